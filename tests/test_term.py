"""A term whose grades stay right whatever order the instructor works in (issue 41), through the real commands.

One temporary course with ``01_cosine`` (8 code points and a 2-point reflection), a due date, and two
students who hand in the worked solutions: ``alice`` on time, ``dave`` 30 hours late (two started days: 20%
off). ``erin`` is on the roster and submits nothing. The class is graded once by ``python -m helpers grade``;
each test works on its own copy. Manual grades are given as the formgrader gives them (nbgrader's gradebook:
a manual score, the cell no longer waiting; the flag button switches ``flagged``). Checked:

* a changed hidden test (``hidden_tests/<a>.py``) regrades every submission, the worked solution first;
* the late penalty is taken from the final score, manual points included, in ``grades.csv`` (of
  ``python -m helpers feedback`` and of plain ``nbgrader export``), ``grades_lms.csv`` and the feedback page,
  which says what the penalty took off;
* ``python -m helpers feedback`` writes every export again; after a regrade, ``grade`` writes the feedback
  pages whose grades changed again and the LMS copies follow them;
* a flag is resolved by one action (switching the notebook's flag off): its cells keep their automatic
  scores, ``flags.csv``, ``grades_lms.csv`` and the console agree;
* ``grades_lms.csv``: a numeric column per assignment, the notes in another, no ``(max)`` row;
* a removed student's ``autograded/`` folder: ``feedback`` skips it and says what to do, its LMS copy is
  set aside;
* ``grade`` with nothing to grade does not claim it wrote feedback.
"""
from __future__ import annotations

import csv
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nbgrader_tools as nbt

A = "01_cosine"
REFLECTION = "case_reflection_answer"
DUE = "2026-01-01 00:00:00.000000 UTC"
LATE = "2026-01-02 06:00:00.000000 UTC"   # dave: 30 hours late, two started days, 20% off


def _run(root: Path, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    res = subprocess.run([sys.executable, "-m", "helpers", *args], cwd=root, capture_output=True, text=True,
                         timeout=timeout)
    return res


def _csv(path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _page_total(path) -> tuple[float, float]:
    text = re.sub(r"<[^>]+>", " ", html.unescape(Path(path).read_text()))
    m = re.search(r"\(Score: ([0-9.]+) / ([0-9.]+)\)", text)
    assert m, f"no total score in {path}"
    return float(m[1]), float(m[2])


def _set_manual(root: Path, student: str, cell: str, score: float) -> None:
    """A manual score, as the formgrader saves it."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        g = gb.find_grade(cell, A, A, student)
        g.manual_score, g.needs_manual_grade = score, False
        gb.db.commit()


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The class graded once by ``python -m helpers grade``."""
    from nbgrader.api import Gradebook

    nbt.require_assignment(A)
    work = tmp_path_factory.mktemp("term")
    with nbt.offline_env(work):
        root = nbt.make_course(work / "course", [A], config=True)
        api = nbt.make_api(root)
        nbt.generate_release(api, A)
        with Gradebook(api.coursedir.db_url) as gb:
            gb.update_or_create_assignment(A, duedate=DUE)
            for sid in ("alice", "dave", "erin"):  # the roster
                gb.update_or_create_student(sid, first_name=sid.title(), last_name="Roster", email=f"{sid}@example.org")
        released = nbt.read_nb(root / "notebooks" / A / f"{A}.ipynb")
        full = nbt.fill_solutions(released, nbt.read_nb(root / "solutions" / A / f"{A}.ipynb"))
        nbt.submit(root, A, "alice", {A: full})
        nbt.submit(root, A, "dave", {A: full})
        (root / "submitted" / "dave" / A / "timestamp.txt").write_text(LATE)
        res = _run(root, "grade", "--workers", "1", *nbt.sandbox_args())
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert "Feedback written" in res.stdout
    return {"root": root, "work": work}


@pytest.fixture
def copy(course, tmp_path):
    root = tmp_path / "course"
    shutil.copytree(course["root"], root)
    with nbt.offline_env(tmp_path):
        yield root


def test_a_changed_hidden_test_is_regraded_after_the_worked_solution(copy):
    """Item 1: the record of what was graded covers hidden_tests/<a>.py."""
    shutil.rmtree(copy / "submitted" / "dave")  # one submission is enough (an autograde fewer)
    tests = copy / "hidden_tests" / f"{A}.py"
    tests.write_text(tests.read_text() + "\n# the instructor removed two checks here\n")
    res = _run(copy, "grade", "--workers", "1", *nbt.sandbox_args())
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert "1 submission(s): 1 graded, 0 skipped" in res.stdout, res.stdout[-2000:]
    assert f"{A}: the worked solution got full marks" in res.stdout, "the worked solution is checked again"


def test_the_late_penalty_is_taken_from_the_final_score(copy):
    """Item 2: dave, 30 hours late, 8 automatic and 2 manual points: 10 - 20% = 8.0 (not 10 - 1.6 = 8.4)."""
    grades = {r["student_id"]: r for r in _csv(copy / "grades.csv")}
    assert float(grades["dave"]["score"]) == pytest.approx(6.4), "before manual grading: 8 - 20%"
    _set_manual(copy, "dave", REFLECTION, 2.0)
    plain = subprocess.run([sys.executable, "-m", "nbgrader", "export", "--to", "plain.csv"], cwd=copy,
                           capture_output=True, text=True, timeout=300)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert float({r["student_id"]: r for r in _csv(copy / "plain.csv")}["dave"]["score"]) == pytest.approx(8.0), \
        "plain `nbgrader export` (the guide's one-assignment cycle) takes the penalty from the final score too"
    res = _run(copy, "feedback")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    grades = {r["student_id"]: r for r in _csv(copy / "grades.csv")}
    assert float(grades["dave"]["raw_score"]) == 10.0
    assert float(grades["dave"]["late_submission_penalty"]) == pytest.approx(2.0)
    assert float(grades["dave"]["score"]) == pytest.approx(8.0)
    lms = {r["student_id"]: r for r in _csv(copy / "grades_lms.csv")}
    assert lms["dave"][A] == "8.0" and "late 30 h: 2.0 off" in lms["dave"][f"{A} notes"], lms["dave"]
    page = copy / "feedback" / "dave" / A / f"{A}.html"
    assert _page_total(page) == (8.0, 10.0)
    text = html.unescape(re.sub(r"<[^>]+>", " ", page.read_text()))
    assert "Handed in 30 hours after the due date: the late penalty took 2.0 of your 10.0 points off." in text


def test_exports_and_lms_copies_follow_manual_grading_and_regrades(copy):
    """Items 3 and 4: `feedback` rewrites every export; a flag resolved by switching it off keeps the automatic
    scores, and the console, flags.csv and grades_lms.csv agree; `grade` refreshes outdated pages and LMS copies."""
    from nbgrader.api import Gradebook

    from helpers.grading.flags import flag_submission

    db = f"sqlite:///{copy / 'gradebook.db'}"
    assert flag_submission(db, A, "alice", "a person should look at this")
    res = _run(copy, "feedback", "--lms", "to_lms")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert [(f["student"], f["reason"]) for f in _csv(copy / "flags.csv")] == [("alice", "a person should look at this")]
    lms = {r["student_id"]: r for r in _csv(copy / "grades_lms.csv")}
    assert "flagged" in lms["alice"][f"{A} notes"] and "1 open flag(s)" in res.stdout, res.stdout
    held = {c: g for c, g in nbt.cell_scores(db, A, "alice").items() if g["auto_score"] is not None}
    assert held and all(g["needs_manual_grade"] for g in held.values()), "the flag holds every graded cell"

    # one action resolves it: the flag switched off (the formgrader's flag button); the reflection graded
    with Gradebook(db) as gb:
        gb.find_submission_notebook(A, A, "alice").flagged = False
        gb.db.commit()
    _set_manual(copy, "alice", REFLECTION, 1.5)
    res = _run(copy, "feedback")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert _csv(copy / "flags.csv") == [] and "open flag" not in res.stdout
    scores = nbt.cell_scores(db, A, "alice")
    assert all(not scores[c]["needs_manual_grade"] and scores[c]["score"] == g["score"] for c, g in held.items()), \
        "the cells the flag held keep their automatic scores and leave the queue"
    lms = {r["student_id"]: r for r in _csv(copy / "grades_lms.csv")}
    assert lms["alice"][A] == "9.5" and lms["alice"][f"{A} notes"] == "", lms["alice"]
    page, lms_copy = copy / "feedback" / "alice" / A / f"{A}.html", copy / "to_lms" / A / f"alice_{A}.html"
    assert _page_total(lms_copy) == (9.5, 10.0) and lms_copy.read_bytes() == page.read_bytes()

    # a later change of grade, then `grade` (nothing to autograde): the console shows no resolved flag, and the
    # outdated page and its LMS copy are written again with the export
    _set_manual(copy, "alice", REFLECTION, 1.0)
    res = _run(copy, "grade", "--workers", "1", *nbt.sandbox_args())
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert "FLAGGED" not in res.stdout and "Flags for a person" not in res.stdout, res.stdout
    assert "0 graded, 2 skipped" in res.stdout and "Feedback written" not in res.stdout, \
        "nothing was autograded: grade does not say it wrote feedback"
    assert float({r["student_id"]: r for r in _csv(copy / "grades.csv")}["alice"]["score"]) == 9.0
    assert _page_total(page) == (9.0, 10.0) and lms_copy.read_bytes() == page.read_bytes()


def test_the_lms_csv_has_a_numeric_column_and_the_notes_beside_it(copy):
    """Item 6: what Canvas's and Moodle's CSV imports read: one header row, one row per student, numbers only in
    the grade column (empty for no score), the notes in their own column."""
    with open(copy / "grades_lms.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["student_id", "last_name", "first_name", "email", A, f"{A} notes"]
    body = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
    assert set(body) == {"alice", "dave", "erin"}, "no (max) row, no other row than the students'"
    for row in body.values():
        assert row[A] == "" or float(row[A]) >= 0, row
    assert body["alice"][A] == "8.0" and body["alice"][f"{A} notes"] == "waiting for manual grading"
    assert body["dave"][A] == "6.4" and body["dave"][f"{A} notes"] == "late 30 h: 1.6 off; waiting for manual grading"
    assert body["erin"][A] == "" and body["erin"][f"{A} notes"] == "nothing submitted"
    assert body["erin"]["email"] == "erin@example.org"


def test_feedback_after_a_student_is_removed(copy):
    """Item 7: the gradebook no longer has dave, his autograded/ folder remains: feedback is written for the
    others, his folder is named with what to do, and his LMS copy is set aside."""
    res = _run(copy, "feedback", "--lms", "to_lms")
    assert res.returncode == 0 and (copy / "to_lms" / A / f"dave_{A}.html").is_file(), res.stderr[-3000:]
    removed = subprocess.run([sys.executable, "-m", "nbgrader", "db", "student", "remove", "dave", "--force"],
                             cwd=copy, capture_output=True, text=True, timeout=300)
    assert removed.returncode == 0, removed.stderr[-2000:]
    assert (copy / "autograded" / "dave" / A).is_dir()
    res = _run(copy, "feedback", "--lms", "to_lms")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert f"skipped autograded/dave/{A}/" in res.stdout and f"delete autograded/dave/{A}/" in res.stdout, res.stdout
    assert "feedback written for 1 submission(s)" in res.stdout
    assert not (copy / "to_lms" / A / f"dave_{A}.html").exists()
    assert (copy / "to_lms" / A / f"dave_{A}.html.stale").is_file() and "stale" in res.stdout
    assert "dave" not in {r["student_id"] for r in _csv(copy / "grades_lms.csv")}


def test_question_stats_legend_clear_of_title_and_bars_and_waiting_cells_marked():
    """Smaller: the legend covers neither a bar nor the title; a cell whose scores mostly wait for a person says so."""
    import matplotlib.pyplot as plt

    from helpers.grading.exports import question_stats_figure

    rows = [{"assignment": A, "cell": f"cell_{k}", "n": 4, "waiting": 0, "mean_fraction": f, "share_full": f}
            for k, f in enumerate([1.0, 0.0, 0.5, 1.0, 0.95, 1.0])]
    rows.append({"assignment": A, "cell": REFLECTION, "n": 1, "waiting": 3, "mean_fraction": 0.0, "share_full": 0.0})
    fig = question_stats_figure(rows)
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = fig.legends[0].get_window_extent()
    title = ax.title.get_window_extent()
    bars = [b.get_window_extent() for b in ax.patches]
    assert len(bars) == 14
    assert not [b for b in bars if b.overlaps(legend)], "the legend covers a bar"
    assert not legend.overlaps(title), "the legend covers the title"
    assert not legend.overlaps(ax.xaxis.label.get_window_extent()), "the legend covers the x label"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == f"{A} / {REFLECTION} (1 of 4 graded)" and "(" not in labels[0], labels
    assert [b.get_hatch() for b in ax.patches].count("//") == 2
    plt.close(fig)
