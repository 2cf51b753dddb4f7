"""What the guides (README.md, BENCHMARKS.md, CONTRIBUTING.md, docs/) state about the course, against the course.

* the number of assignments: no guide says "nine" (there are as many as ``solutions/`` has), and
  the term projections of SYSADMIN.md and BENCHMARKS.md are recomputed from their own stated
  seconds per submission and that number;
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


def test_benchmarks_projection_is_recomputed_from_its_numbers():
    text = " ".join(BENCHMARKS.read_text().split())
    n = n_assignments()
    m = re.search(r"A 200-student term is ([\d,]+) submissions \((\d+) assignments\): ([\d,]+) x ([\d.]+) s / (\d+) "
                  r"cores = ([\d.]+) min at perfect efficiency, about ([\d.]+) min at the (\d+)% measured here; "
                  r"([\d,]+) students, ([\d,]+) submissions, about (\d+) h (\d+) min on the same 16 cores", text)
    assert m, "BENCHMARKS.md's projection sentence changed: update this test"
    subs, count, subs2, per, cores, ideal, real, eff, students, subs_big, h, mins = m.groups()
    assert int(count) == n and number(subs) == number(subs2) == 200 * n and number(subs_big) == number(students) * n
    assert agrees(ideal, number(subs) * float(per) / int(cores) / 60)
    assert agrees(real, number(subs) * float(per) / int(cores) / 60 / (int(eff) / 100))
    big = number(subs_big) * float(per) / int(cores) / 60 / (int(eff) / 100)
    assert abs(int(h) * 60 + int(mins) - big) <= 0.5, (h, mins, big)


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
