"""``python -m helpers grade`` at class scale (helpers/grading.py), through the real autograde.

One temporary course with ``01_cosine`` (the fastest notebook; 8 code points and a 2-point
reflection) and four students: ``alice`` (the worked solutions), ``bob`` (the untouched release),
``carol`` (``cosine`` calls the course's reference: fails a hidden test only) and ``dave`` (the
worked solutions, handed in 30 hours after the due date). A roster adds ``erin``, who submits
nothing. Tested:

* 2 workers give exactly the cell scores of 1 worker (two copies of the course, graded side by
  side; the measured throughput is printed);
* a re-run skips unchanged submissions, regrades a changed one, and all after the source changed;
  ``force`` regrades all;
* a manual score and its "graded" state survive a forced regrade; a changed answer keeps the
  score but goes back to the manual-grading queue;
* the feedback HTML shows the failure message but no hidden-test line;
* the exports: ``grades_lms.csv`` (``missing`` for erin, ``(late)`` and the configured penalty for
  dave), ``question_stats.csv`` (hand-computed means) and its plot, ``flags.csv``;
* ``nbgrader zip_collect`` with the documented pattern; the course-local exchange root.

Grading runs with ``sandbox=False`` so that these tests need no bubblewrap (the sandbox has its
own tests); everything else is the course's ``nbgrader_config.py``.
"""
from __future__ import annotations

import csv
import html
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import nbgrader_tools as nbt

A = "01_cosine"
REFLECTION = "case_reflection_answer"
DUE = "2026-01-01 00:00:00.000000 UTC"  # nbt.submit stamps submissions with exactly this time
LATE = "2026-01-02 06:00:00.000000 UTC"  # 30 hours late: two started days, 20% off with 10% per day


def _submissions(root: Path) -> None:
    names = nbt.notebook_names(A, root)
    released = {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}
    solutions = {n: nbt.read_nb(root / "solutions" / A / f"{n}.ipynb") for n in names}
    full = {n: nbt.fill_solutions(released[n], solutions[n]) for n in names}
    reference = next(m for m in nbt.load_mutants(A) if "reference" in m["name"])
    nbt.submit(root, A, "alice", full)
    nbt.submit(root, A, "bob", released)
    nbt.submit(root, A, "carol", nbt.apply_mutant(full, reference))
    nbt.submit(root, A, "dave", full)
    (root / "submitted" / "dave" / A / "timestamp.txt").write_text(LATE)


def _make_course(work: Path) -> Path:
    """A course folder with the release, a gradebook that knows the due date, a roster and the submissions."""
    from nbgrader.api import Gradebook

    root = nbt.make_course(work / "course", [A])
    shutil.copy(nbt.COURSE_ROOT / "nbgrader_config.py", root)
    api = nbt.make_api(root)
    nbt.generate_release(api, A)
    with Gradebook(api.coursedir.db_url) as gb:
        gb.update_or_create_assignment(A, duedate=DUE)
    (root / "roster.csv").write_text("id,first_name,last_name,email\nerin,Erin,Roster,erin@example.org\n")
    res = subprocess.run([sys.executable, "-m", "nbgrader", "db", "student", "import", "roster.csv"],
                         cwd=root, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    _submissions(root)
    return root


def _scores(root: Path) -> dict:
    return {s: nbt.cell_scores(f"sqlite:///{root / 'gradebook.db'}", A, s) for s in ("alice", "bob", "carol", "dave")}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Two identical courses: one graded with 1 worker, the other with 2 (timed side by side)."""
    from helpers.grading import grade_class

    nbt.require_assignment(A)
    work = tmp_path_factory.mktemp("grading")
    with nbt.offline_env(work):
        one = _make_course(work / "one")
        two = work / "two" / "course"
        shutil.copytree(one, two)
        times, cpu, reports = {}, {}, {}
        for n, root in ((1, one), (2, two)):
            with nbt.Stopwatch() as t:
                reports[n] = grade_class(root, workers=n, sandbox=False, progress=False)
            times[n], cpu[n] = t.wall, t.cpu
        with nbt.Stopwatch() as t:
            rerun = grade_class(one, workers=2, sandbox=False, progress=False)
        times["rerun"] = t.wall
    k = len(reports[1])
    # wall times depend on the machine's load; CPU seconds per submission do not
    print(f"\n{k} submissions: 1 worker {times[1]:.1f} s ({60 * k / times[1]:.1f}/min), 2 workers {times[2]:.1f} s "
          f"({60 * k / times[2]:.1f}/min), parallel efficiency {times[1] / (2 * times[2]):.0%}; "
          f"CPU {cpu[1] / k:.1f} s and {cpu[2] / k:.1f} s per submission; "
          f"re-run skipping all {times['rerun']:.1f} s")
    return {"one": one, "two": two, "reports": reports, "rerun": rerun, "times": times, "work": work}


def test_two_workers_give_the_grades_of_one(graded):
    r1, r2 = graded["reports"][1], graded["reports"][2]
    assert [(r.assignment, r.student, r.score, r.max_score, r.success) for r in r1] == \
           [(r.assignment, r.student, r.score, r.max_score, r.success) for r in r2]
    s1, s2 = _scores(graded["one"]), _scores(graded["two"])
    assert s1 == s2
    assert all(r.success and not r.skipped for r in r1), [r.error for r in r1]


def test_the_grades_are_right(graded):
    by = {r.student: r for r in graded["reports"][1]}
    assert by["alice"].score == 8.0 and by["alice"].max_score == 10.0
    assert by["bob"].score == 0.0
    scores = _scores(graded["one"])
    assert scores["carol"]["cosine_tests"]["score"] == 0.0 and scores["carol"]["unit_rows_tests"]["score"] == 2.0
    assert by["dave"].seconds_late == 30 * 3600
    assert by["dave"].score == pytest.approx(8.0 * 0.8), "10% per started day late, 30 hours: 20% off"


def test_rerun_skips_unchanged_submissions(graded):
    rerun = graded["rerun"]
    assert all(r.skipped and r.success for r in rerun)
    assert [(r.student, r.score) for r in rerun] == [(r.student, r.score) for r in graded["reports"][1]]


def test_changed_submission_or_source_is_regraded(graded, tmp_path):
    from helpers.grading import grade_class

    root = tmp_path / "course"
    shutil.copytree(graded["two"], root)
    release = nbt.read_nb(root / "notebooks" / A / f"{A}.ipynb")
    with nbt.offline_env(tmp_path):
        nbt.submit(root, A, "alice", {A: release})  # alice hands in the blank release instead
        reports = {r.student: r for r in grade_class(root, workers=2, sandbox=False, progress=False, export=None)}
        assert {s for s, r in reports.items() if not r.skipped} == {"alice"}
        assert reports["alice"].score == 0.0 and reports["bob"].score == 0.0
        (root / "solutions" / A / "notes.txt").write_text("the instructor changed the assignment's source\n")
        again = grade_class(root, workers=2, sandbox=False, progress=False, export=None)
    assert not any(r.skipped for r in again) and len(again) == 4, "a changed source regrades its submissions"


def test_manual_score_survives_a_forced_regrade(graded, tmp_path):
    from nbgrader.api import Gradebook

    from helpers.grading import grade_class

    root = tmp_path / "course"
    shutil.copytree(graded["one"], root)
    db = f"sqlite:///{root / 'gradebook.db'}"
    with Gradebook(db) as gb:
        g = gb.find_grade(REFLECTION, A, A, "alice")
        assert g.needs_manual_grade, "the reflection waits for a person after autograding"
        g.manual_score = 1.5
        g.needs_manual_grade = False
        gb.db.commit()
    with nbt.offline_env(tmp_path):
        reports = {r.student: r for r in grade_class(root, workers=1, sandbox=False, progress=False,
                                                     export=None, force=True)}
    assert not any(r.skipped for r in reports.values()), "force regrades everything"
    g = nbt.cell_scores(db, A, "alice")[REFLECTION]
    assert g["score"] == 1.5 and not g["needs_manual_grade"], g
    assert reports["alice"].score == 9.5
    # alice rewrites her reflection: the score stays, the cell goes back to the queue
    nb = nbt.read_nb(root / "submitted" / "alice" / A / f"{A}.ipynb")
    cell = next(c for c in nb.cells if nbt.grade_id(c) == REFLECTION)
    cell.source += "\n\nA second thought, added after grading."
    nbt.write_nb(nb, root / "submitted" / "alice" / A / f"{A}.ipynb")
    with nbt.offline_env(tmp_path):
        reports = {r.student: r for r in grade_class(root, workers=1, sandbox=False, progress=False, export=None)}
    assert not reports["alice"].skipped and reports["bob"].skipped
    g = nbt.cell_scores(db, A, "alice")[REFLECTION]
    assert g["score"] == 1.5 and g["needs_manual_grade"], g


def test_feedback_shows_failures_but_no_hidden_test(graded):
    root = graded["one"]
    solution = nbt.read_nb(root / "solutions" / A / f"{A}.ipynb")
    hidden = nbt.hidden_and_solution_lines(solution, A)["hidden"]
    assert hidden, "01_cosine has hidden tests"
    autograded = nbt.read_nb(root / "autograded" / "carol" / A / f"{A}.ipynb")
    cell = next(c for c in autograded.cells if nbt.grade_id(c) == "cosine_tests")
    error = next(o for o in cell.outputs if o.output_type == "error")
    assert error.evalue.strip()
    for student in ("alice", "bob", "carol", "dave"):
        page = (root / "feedback" / student / A / f"{A}.html").read_text()
        text = html.unescape(page)
        for line in hidden:
            assert line not in text and html.escape(line) not in page, f"{student}: hidden test line in feedback: {line}"
        assert "BEGIN HIDDEN TESTS" not in text
    carol = html.unescape((root / "feedback" / "carol" / A / f"{A}.html").read_text())
    assert error.evalue.strip().splitlines()[0] in carol, "the failure message must be in the feedback"


def _read_csv(path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_lms_export_marks_missing_and_late(graded):
    rows = {r["student_id"]: r for r in _read_csv(graded["one"] / "grades_lms.csv")}
    assert rows["(max)"][A] == "10.0"
    assert rows["alice"][A] == "8.0" and rows["bob"][A] == "0.0"
    assert rows["dave"][A] == "6.4 (late)"
    assert rows["erin"][A] == "missing" and rows["erin"]["first_name"] == "Erin"
    nbgrader_csv = {r["student_id"]: r for r in _read_csv(graded["one"] / "grades.csv")}
    assert float(nbgrader_csv["dave"]["late_submission_penalty"]) == pytest.approx(1.6)


def test_question_stats_by_hand(graded):
    root = graded["one"]
    rows = {r["cell"]: r for r in _read_csv(root / "question_stats.csv")}
    scores = _scores(root)
    for cell in ("cosine_tests", "unit_rows_tests", "cosine_matrix_tests", "cosine_matrix_vectorised_tests"):
        got = [scores[s][cell]["score"] for s in ("alice", "bob", "carol", "dave")]
        mx = scores["alice"][cell]["max_score"]
        assert int(rows[cell]["n"]) == 4
        assert float(rows[cell]["mean_score"]) == pytest.approx(sum(got) / 4, abs=1e-4)
        assert float(rows[cell]["share_full"]) == pytest.approx(sum(x == mx for x in got) / 4, abs=1e-4)
    # cosine: alice and dave full (3), bob and carol 0 -> mean 1.5, half the class with full marks
    assert float(rows["cosine_tests"]["mean_score"]) == 1.5 and float(rows["cosine_tests"]["share_full"]) == 0.5
    # the reflections waiting for a person are not averaged as 0; bob's blank one is scored 0 by nbgrader
    assert rows[REFLECTION]["n"] == "1" and float(rows[REFLECTION]["mean_score"]) == 0.0
    assert (root / "question_stats.png").stat().st_size > 1000


def test_flags_csv_has_the_documented_columns(graded):
    with open(graded["one"] / "flags.csv", newline="") as fh:
        assert next(csv.reader(fh)) == ["assignment", "student", "notebook", "cell", "reason"]


def test_cli_prints_the_summary_and_skips(graded, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(graded["one"], root)
    with nbt.offline_env(tmp_path):
        res = subprocess.run([sys.executable, "-m", "helpers", "grade", "--workers", "2", "--no-sandbox"],
                             cwd=root, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "4 submission(s): 0 graded, 4 skipped" in res.stdout and "0 failed" in res.stdout, res.stdout
    assert "dave" in res.stdout and "(late)" in res.stdout
    bad = subprocess.run([sys.executable, "-m", "helpers", "grade", "--workers", "0"], cwd=root,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--workers" in bad.stderr and "Traceback" not in bad.stderr


def test_path_is_not_changed_for_good(graded, tmp_path, monkeypatch):
    import os

    from helpers.grading import grade_class

    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    grade_class(graded["one"], workers=1, sandbox=False, progress=False, export=None)
    assert os.environ["PATH"] == "/usr/bin:/bin"


# ---------------------------------------------------------------------------------------------
# Small fixes: zip_collect, the exchange root
# ---------------------------------------------------------------------------------------------

def test_zip_collect_with_the_documented_pattern(tmp_path):
    """An LMS download ``downloaded/<a>/archive/*.zip`` holding ``<student>_<notebook>.ipynb`` files."""
    root = nbt.make_course(tmp_path / "course", [A])
    shutil.copy(nbt.COURSE_ROOT / "nbgrader_config.py", root)
    archive = root / "downloaded" / A / "archive"
    archive.mkdir(parents=True)
    nb = (nbt.RELEASE_DIR / A / f"{A}.ipynb").read_bytes()
    with zipfile.ZipFile(archive / "lms_download.zip", "w") as z:
        for student in ("alice", "bob-smith"):
            z.writestr(f"{student}_{A}.ipynb", nb)
    with nbt.offline_env(tmp_path):
        res = subprocess.run([sys.executable, "-m", "nbgrader", "zip_collect", A], cwd=root,
                             capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    for student in ("alice", "bob-smith"):
        assert (root / "submitted" / student / A / f"{A}.ipynb").read_bytes() == nb, res.stderr[-3000:]
    assert "downloaded/" in (nbt.COURSE_ROOT / ".gitignore").read_text().split()


def test_exchange_root_is_inside_the_course():
    from helpers.grading import load_course_config

    cfg = load_course_config(nbt.COURSE_ROOT)
    exchange = Path(cfg.Exchange.root)
    assert exchange.is_absolute() and exchange.is_relative_to(nbt.COURSE_ROOT), exchange
    assert "exchange/" in (nbt.COURSE_ROOT / ".gitignore").read_text().split()


def test_exchange_commands_stay_in_the_course(tmp_path):
    """``nbgrader list`` (what the formgrader's assignment list runs) and ``release_assignment``
    use ``<course>/exchange``: no "Unwritable directory" error, nothing written elsewhere."""
    root = nbt.make_course(tmp_path / "course", [A])
    shutil.copy(nbt.COURSE_ROOT / "nbgrader_config.py", root)
    with nbt.offline_env(tmp_path):
        api = nbt.make_api(root)
        nbt.generate_release(api, A)
        for cmd in (["list"], ["release_assignment", A]):
            res = subprocess.run([sys.executable, "-m", "nbgrader", *cmd], cwd=root, capture_output=True,
                                 text=True, timeout=300)
            assert res.returncode == 0 and "Unwritable" not in res.stdout + res.stderr, res.stderr[-2000:]
    assert (root / "exchange" / "weat-course" / "outbound" / A / f"{A}.ipynb").is_file()


def test_flags_are_written_and_keep_the_points_for_a_person(tmp_path):
    """A suspicious answer (``import subprocess`` in an otherwise correct ``cosine``) is flagged by
    the static scan (helpers.scan / helpers.flags, another part of the course): ``flags.csv`` lists
    it, the report carries it, and a re-run that skips the submission still reports it."""
    pytest.importorskip("helpers.flags", reason="helpers.flags (the static scan's flags) is not in this tree")
    pytest.importorskip("helpers.scan", reason="helpers.scan (the static scan) is not in this tree")
    from helpers.grading import grade_class

    root = nbt.make_course(tmp_path / "course", [A])
    shutil.copy(nbt.COURSE_ROOT / "nbgrader_config.py", root)
    with nbt.offline_env(tmp_path):
        nbt.generate_release(nbt.make_api(root), A)
        released = {A: nbt.read_nb(root / "notebooks" / A / f"{A}.ipynb")}
        solution = nbt.read_nb(root / "solutions" / A / f"{A}.ipynb")
        full = {A: nbt.fill_solutions(released[A], solution)}
        answer = next(nbt.strip_solution_markers(c.source) for c in solution.cells if nbt.grade_id(c) == "cosine_solution")
        nbt.submit(root, A, "mallory", nbt.apply_mutant(full, {"name": "subprocess", "cell": "cosine_solution",
                                                               "source": "import subprocess\n" + answer}))
        first = grade_class(root, workers=1, sandbox=False, progress=False)
        again = grade_class(root, workers=1, sandbox=False, progress=False)
    rows = _read_csv(root / "flags.csv")
    assert [(r["student"], r["cell"]) for r in rows] == [("mallory", "cosine_solution")], rows
    assert first[0].flags and again[0].skipped and again[0].flags == first[0].flags
