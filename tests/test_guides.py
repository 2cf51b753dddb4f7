"""What the guides (README.md, BENCHMARKS.md, CONTRIBUTING.md, docs/) state about the course, against the course.

* the number of assignments: no guide says "nine" (there are as many as ``solutions/`` has);
* grading cost: BENCHMARKS.md has one table of it, which covers every assignment and whose sums are
  recomputed; SYSADMIN.md's term projection uses that table's figure, rounded up, and is recomputed from
  it; no guide states another per-submission figure;
* the exchange: every ``c.Exchange.root`` a guide gives is the course folder's ``exchange/``, with
  the course folder SYSADMIN.md and ``deploy/jupyterhub_config.py`` use;
* personal data: the files INSTRUCTORS.md lists under "Where personal data lives" are git-ignored;
* the size of MathJax in each feedback page, as the guides state it.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDES = [ROOT / "README.md", ROOT / "BENCHMARKS.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
SYSADMIN = ROOT / "docs" / "SYSADMIN.md"
INSTRUCTORS = ROOT / "docs" / "INSTRUCTORS.md"
BENCHMARKS = ROOT / "BENCHMARKS.md"


def n_assignments() -> int:
    return sum(1 for d in (ROOT / "solutions").iterdir() if d.is_dir() and re.fullmatch(r"\d\d_\w+", d.name))


def number(text: str) -> float:
    return float(text.replace(",", ""))


def agrees(stated: str, value: float) -> bool:
    """``stated`` (as printed, e.g. "13.75", "14", "2,200") is ``value`` rounded to the digits it shows."""
    decimals = len(stated.split(".")[1]) if "." in stated else 0
    return abs(number(stated) - value) <= 0.5 * 10 ** -decimals + 1e-9


def minutes(text: str) -> float:
    """"about 2 hours 18 minutes" / "about 3.4 minutes" / "2 h 4 min" / "12.4 min" -> minutes (as stated)."""
    h = re.search(r"([\d.]+)\s*(?:hours?|h)\b", text)
    m = re.search(r"([\d.]+)\s*(?:minutes?|min)\b", text)
    return (float(h.group(1)) * 60 if h else 0) + (float(m.group(1)) if m else 0)


def test_no_guide_counts_nine_assignments():
    n = n_assignments()
    assert n == 12, f"solutions/ has {n} assignments; update this test and the guides together"
    for path in GUIDES:
        text = path.read_text()
        for m in re.finditer(r"(?i)\bnine assignments\b(?! the course had then)|\b1,800 submissions\b|\b18,000\b", text):
            line = text[:m.start()].count("\n") + 1
            pytest.fail(f"{path.relative_to(ROOT)}:{line}: {m.group()!r}: the course has {n} assignments")


def test_sysadmin_projection_is_recomputed_from_its_numbers():
    text = SYSADMIN.read_text()
    n = n_assignments()
    per = float(re.search(r"Projection at ([\d.]+) s per submission per core \(a term has (\d+) assignments",
                          text).group(1))
    assert int(re.search(r"a term has (\d+) assignments", text).group(1)) == n
    rows = re.findall(r"(?m)^\| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([^|]+) \| ([^|]+) \|$", text)
    assert len(rows) == 2, rows
    for students, submissions, core_minutes, one, four in rows:
        subs = number(students) * n
        assert number(submissions) == subs, (students, submissions)
        assert agrees(core_minutes, subs * per / 60), (core_minutes, subs * per / 60)
        for stated, cores in ((one, 16), (four, 64)):
            exact = subs * per / 60 / cores
            shown = minutes(stated)
            unit = 1 if "hour" in stated else 10 ** -(len(re.search(r"([\d.]+) minutes", stated).group(1).partition(".")[2]))
            assert abs(shown - exact) <= 0.5 * unit + 1e-9, (stated, exact)
    one_assignment = re.search(r"one assignment is an? (\w+) of it \(200 students: about ([\d.]+) minutes on 16", text)
    assert one_assignment.group(1) == "twelfth" and n == 12
    assert agrees(one_assignment.group(2), 200 * per / 60 / 16), one_assignment.group(2)


def cost_table() -> tuple[list[str], list[list[float]]]:
    """BENCHMARKS.md's one table of grading cost: (assignments, per run the CPU-s of each, feedback included)."""
    text = BENCHMARKS.read_text()
    part = text[text.index("## Grading cost per submission"):]
    part = part[:part.index("\n## ")]
    rows = re.findall(r"(?m)^\| (\d\d_\w+) \| ([^|]+) \| ([^|]+) \| [^|]+ \|$", part)
    total = re.search(r"(?m)^\| all (\d+) \| ([\d.]+) \| ([\d.]+) \| +\|$", part)
    assert rows and total, "BENCHMARKS.md's grading-cost table changed: update this test"

    def cost(cell: str, other: str) -> float:
        if cell.strip() == "(one run)":
            cell = other
        m = re.match(r"\s*([\d.]+) \(([\d.]+) / ([\d.]+)\)(?: \+ ([\d.]+))?", cell)
        assert m, cell
        return float(m.group(1)) + float(m.group(4) or 0)  # (grader / kernels) are medians of their own

    names = [name for name, _, _ in rows]
    runs = [[cost(one, one) for _, one, _ in rows], [cost(two, one) for _, one, two in rows]]
    assert int(total.group(1)) == len(names)
    for stated, run in zip(total.group(2, 3), runs):
        assert agrees(stated, sum(run)), (stated, sum(run))
    return names, runs


def test_grading_cost_table_covers_every_assignment():
    names, runs = cost_table()
    assert names == sorted(d.name for d in (ROOT / "solutions").iterdir()
                           if d.is_dir() and re.fullmatch(r"\d\d_\w+", d.name))
    text = " ".join(BENCHMARKS.read_text().split())
    per = re.search(r"all 12 over 12: ([\d.]+) and ([\d.]+) CPU-s", text)
    for stated, run in zip(per.groups(), runs):
        assert agrees(stated, sum(run) / len(names)), (stated, sum(run) / len(names))
    term = re.search(r"200 students x ([\d.]+) CPU-s = ([\d,]+) CPU-s, ([\d.]+) minutes on 16 cores", text)
    assert agrees(term.group(1), max(sum(run) for run in runs))
    assert agrees(term.group(2), 200 * float(term.group(1)))
    assert agrees(term.group(3), 200 * float(term.group(1)) / 16 / 60)


def test_guides_take_grading_cost_from_the_table():
    """The planning figure of the guides is the table's mean per submission, rounded up to one decimal."""
    names, runs = cost_table()
    mean = max(sum(run) for run in runs) / len(names)
    text = " ".join(BENCHMARKS.read_text().split())
    planned = float(re.search(r"The guides plan with \*\*([\d.]+) CPU-s per submission per core", text).group(1))
    assert mean <= planned < mean + 0.1, (planned, mean)
    sysadmin = " ".join(SYSADMIN.read_text().split())
    assert f"Projection at {planned:g} s per submission per core" in sysadmin
    assert 'BENCHMARKS.md, section "Grading cost per submission"' in sysadmin
    for path in (SYSADMIN, INSTRUCTORS):
        # no other per-submission figure in seconds than the table's planning one
        for m in re.finditer(r"([\d.]+) (?:CPU-)?s(?:econds)? per submission", " ".join(path.read_text().split())):
            assert float(m.group(1)) == planned, f"{path.name}: {m.group()!r}: take it from BENCHMARKS.md's table"


def test_every_exchange_root_is_the_course_folders_exchange():
    from traitlets.config.loader import PyFileConfigLoader

    course = PyFileConfigLoader("jupyterhub_config.py", str(ROOT / "deploy")).load_config().JupyterHub.services[0]["cwd"]
    assert course == "/srv/weat-course"
    assert f"the course folder `{course}`" in SYSADMIN.read_text()
    roots = []
    for path in GUIDES:
        text = path.read_text()
        assert "/srv/nbgrader" not in text, f"{path.name} names another exchange folder"
        roots += [(path.name, r) for r in re.findall(r'c\.Exchange\.root = "([^"]+)"', text)]
    assert roots and all(r == f"{course}/exchange" for _, r in roots), roots
    assert {name for name, _ in roots} >= {"SYSADMIN.md", "INSTRUCTORS.md"}
    for command in (f"mkdir -p {course}/exchange", f"chmod 0777 {course}/exchange"):
        assert command in SYSADMIN.read_text()
    # the course's own file: <course folder>/exchange
    assert 'c.Exchange.root = os.path.join(COURSE_ROOT, "exchange")' in (ROOT / "nbgrader_config.py").read_text()


def test_personal_data_is_git_ignored():
    text = " ".join(INSTRUCTORS.read_text().split())
    part = re.search(r"\*\*Where personal data lives\.\*\*(.*?)hold students' names", text).group(1)
    names = re.findall(r"`([^`]+)`", part)
    assert {"roster.csv", "gradebook.db", "submitted/", "feedback/", "grades_lms.csv"} <= set(names), names
    git = shutil.which("git")
    if not git or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    paths = [n.replace("*", "png") + ("x" if n.endswith("/") else "") for n in names]
    res = subprocess.run([git, "-C", str(ROOT), "check-ignore", "--no-index", *paths], capture_output=True, text=True)
    ignored = set(res.stdout.split())
    assert ignored == set(paths), f"not git-ignored: {sorted(set(paths) - ignored)}"


def test_the_stated_size_of_the_feedback_pages_mathjax():
    from helpers.grading.feedback_page import mathjax_script

    mb = len(mathjax_script().encode()) / 1e6
    for path in (SYSADMIN, INSTRUCTORS):
        stated = re.findall(r"MathJax[^.]*?([\d.]+) MB", " ".join(path.read_text().split()))
        assert stated and all(agrees(s, mb) for s in stated), (path.name, stated, mb)
    gb = re.search(r"a term of ([\d,]+) submissions holds about (\d+) GB of it", " ".join(SYSADMIN.read_text().split()))
    assert number(gb.group(1)) == 200 * n_assignments() and agrees(gb.group(2), number(gb.group(1)) * mb / 1000)
