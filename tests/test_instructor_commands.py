"""The commands of docs/INSTRUCTORS.md, run exactly as written, on a temporary copy of the course.

The guide's code blocks are parsed, not copied: every line starting with ``nbgrader`` or
``python -m helpers grade``/``feedback`` in the guide is run from the course root (``jupyter lab``, which
opens a browser, is covered by ``test_browser.py``). Two students submit ``01_cosine``: alice
with correct answers (full code points, the reflection left for manual grading), bob the
untouched release (0 points).
"""
from __future__ import annotations

import csv
import re
import subprocess
import sys

import pytest

import nbgrader_tools as nbt

A = "01_cosine"
GUIDE = nbt.COURSE_ROOT / "docs" / "INSTRUCTORS.md"


def guide_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", GUIDE.read_text(), flags=re.S)
    commands = []
    for block in blocks:
        for line in block.splitlines():
            cmd = line.split("#", 1)[0].strip()
            if cmd.startswith(("nbgrader ", "python -m helpers grade", "python -m helpers feedback")):
                commands.append(cmd)
    return commands


def test_the_guide_has_the_commands_this_test_runs():
    cmds = guide_commands()
    for needed in ("nbgrader generate_assignment", "nbgrader autograde", "nbgrader generate_feedback",
                   "nbgrader export", "python -m helpers grade", "python -m helpers feedback"):
        assert any(c.startswith(needed) for c in cmds), f"docs/INSTRUCTORS.md no longer shows `{needed}`"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    nbt.require_assignment(A)
    work = tmp_path_factory.mktemp("guide")
    root = work / "course"
    with nbt.offline_env(work):
        nbt.make_course(root, [A], gradebook=False, config=True)  # the guide's first command makes it
        release = nbt.read_nb(nbt.RELEASE_DIR / A / f"{A}.ipynb")
        solution = nbt.read_nb(nbt.SOLUTIONS_DIR / A / f"{A}.ipynb")
        nbt.submit(root, A, "alice", {A: nbt.fill_solutions(release, solution)})
        nbt.submit(root, A, "bob", {A: release})
        yield root


def run(cmd: str, cwd) -> subprocess.CompletedProcess:
    args = cmd.split()
    if args[0] == "python":
        args[0] = sys.executable
    elif args[0] == "nbgrader":
        args = [sys.executable, "-m", "nbgrader", *args[1:]]
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)


def _grades(path) -> dict:
    with open(path, newline="") as fh:
        return {(r["assignment"], r["student_id"]): float(r["score"]) for r in csv.DictReader(fh)}


def test_guide_cycle_for_one_assignment(course):
    commands = [c for c in guide_commands() if c.startswith("nbgrader ") and A in c or c == "nbgrader export"]
    assert [c.split()[1] for c in commands] == ["generate_assignment", "autograde", "generate_feedback", "export"]
    for cmd in commands:
        res = run(cmd, course)
        assert res.returncode == 0, f"`{cmd}` failed:\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    grades = _grades(course / "grades.csv")
    assert grades[(A, "alice")] == 8.0  # all 8 code points; the 2-point reflection awaits a person
    assert grades[(A, "bob")] == 0.0
    for student in ("alice", "bob"):
        html = course / "feedback" / student / A / f"{A}.html"
        assert html.is_file(), f"no feedback for {student}"
    assert "YOUR ANSWER HERE" not in (course / "feedback" / "alice" / A / f"{A}.html").read_text()


def test_helpers_grade_grades_the_whole_class(course):
    cmd = next(c for c in guide_commands() if c == "python -m helpers grade")
    (course / "grades.csv").unlink(missing_ok=True)
    res = run(cmd, course)
    assert res.returncode == 0, f"`{cmd}` failed:\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    lines = {tuple(line.split()[:2]): line for line in res.stdout.splitlines() if line.startswith(A)}
    assert " 8.0/10.0" in lines[(A, "alice")] and " 0.0/10.0" in lines[(A, "bob")], res.stdout
    assert "Autograding" in res.stderr  # the progress bar
    assert f"{A}: the worked solution got full marks" in res.stdout, res.stdout  # the canary ran first
    assert _grades(course / "grades.csv") == {(A, "alice"): 8.0, (A, "bob"): 0.0}


def _feedback_total(path) -> float:
    import html

    text = re.sub(r"<[^>]+>", " ", html.unescape(path.read_text()))
    return float(re.search(r"\(Score: ([0-9.]+) / [0-9.]+\)", text)[1])


def test_helpers_feedback_after_manual_grading(course):
    """The guide's step after manual grading writes the feedback again with the person's grade."""
    from nbgrader.api import Gradebook

    cmd = next(c for c in guide_commands() if c == "python -m helpers feedback")
    page = course / "feedback" / "alice" / A / f"{A}.html"
    assert page.is_file(), "runs after test_helpers_grade_grades_the_whole_class"
    assert _feedback_total(page) == 8.0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        g = gb.find_grade("case_reflection_answer", A, A, "alice")
        g.manual_score, g.needs_manual_grade = 1.5, False
        gb.db.commit()
    res = run(cmd, course)
    assert res.returncode == 0, f"`{cmd}` failed:\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    assert _feedback_total(page) == 9.5


def test_helpers_grade_outside_a_course_says_what_to_do(tmp_path):
    res = run("python -m helpers grade", tmp_path)
    assert res.returncode == 2 and "nbgrader_config.py" in res.stderr and "Traceback" not in res.stderr
