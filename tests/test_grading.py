"""``python -m helpers grade`` at class scale (helpers/grading/run.py), through the real autograde.

One temporary course with ``01_cosine`` (the fastest notebook; 8 code points and a 2-point
reflection) and four students: ``alice`` (the worked solutions), ``bob`` (the untouched release),
``carol`` (``cosine`` calls the course's reference: fails a hidden test only) and ``dave`` (the
worked solutions, collected by ``nbgrader zip_collect`` from a file name stamped 30 hours after the
due date). A roster adds ``erin``, who submits nothing. The course also has ``08_debiasing``, which
nobody submitted but whose due date is already in the gradebook, and (in the first copy only)
``01_cosine_again``, a second assignment (01's notebook under another name) that alice submitted.
Tested:

* 2 workers give exactly the cell scores of 1 worker (two copies of the course, graded side by
  side; the measured throughput is printed);
* the scope: with no name, what was submitted is graded; only assignments that were given are
  exported; flags stay in ``flags.csv`` across runs of other assignments until a person resolves
  them, and ``grades_lms.csv`` marks flagged work;
* a re-run skips unchanged submissions, regrades a changed one, and all after the source changed;
  ``force`` regrades all;
* a manual score and its "graded" state survive a forced regrade; a changed answer keeps the
  score but goes back to the manual-grading queue; ``python -m helpers feedback`` writes the
  feedback again with it (``nbgrader generate_feedback`` without ``--force`` does not), and
  ``--lms`` puts one file per student in a folder;
* the feedback HTML shows the failure message but no hidden-test line;
* the exports: ``grades_lms.csv`` (no score and ``nothing submitted`` for erin, a late note and the configured penalty for
  dave), ``question_stats.csv`` (hand-computed means) and its plot, ``flags.csv``;
* before any student, the worked solution is graded as a canary: a kernel that cannot import the
  course package stops the run with the reason, and nothing is graded or written;
* a failed run (the due date set first on a fresh gradebook, the assignment never generated; a
  file that is no notebook) shows the real error and leaves no record in the gradebook; a submission
  that cannot be graded is flagged and the others are exported;
* ``nbgrader zip_collect`` with the documented pattern (its timestamp group); the course-local
  exchange root.

Grading runs as the course grades, in the sandbox with warm kernels, when bubblewrap is installed
(always in CI), and unsandboxed without it, so that these tests run on any machine (the sandbox has
its own tests); everything else is the course's ``nbgrader_config.py``. Runs after the first pass
``canary=False`` where they test something else (the canary costs one autograde per assignment).
"""
from __future__ import annotations

import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import nbgrader_tools as nbt

A = "01_cosine"
B = "01_cosine_again"   # a second submitted assignment: 01's notebook and hidden tests under another name
C = "08_debiasing"      # in solutions/ and (a due date set in advance) in the gradebook; nobody submitted it
REFLECTION = "case_reflection_answer"
DUE = "2026-01-01 00:00:00.000000 UTC"  # nbt.submit stamps submissions with exactly this time
LATE_STAMP = "2026-01-02-06-00-00"      # in dave's file name: 30 hours late, two started days, 20% off
SANDBOX = nbt.sandbox_available()       # grade as the course does when bubblewrap is installed (always in CI)


def _full(root: Path) -> dict:
    names = nbt.notebook_names(A, root)
    released = {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}
    solutions = {n: nbt.read_nb(root / "solutions" / A / f"{n}.ipynb") for n in names}
    return {n: nbt.fill_solutions(released[n], solutions[n]) for n in names}


def _zip_collect(root: Path, assignment: str, files: dict) -> subprocess.CompletedProcess:
    """An LMS download: ``{file name: notebook}`` in one zip in ``downloaded/<assignment>/archive/``,
    then ``nbgrader zip_collect`` with the course's pattern."""
    import nbformat

    archive = root / "downloaded" / assignment / "archive"
    archive.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive / "lms_download.zip", "w") as z:
        for name, nb in files.items():
            z.writestr(name, nb if isinstance(nb, (bytes, str)) else nbformat.writes(nb))
    res = subprocess.run([sys.executable, "-m", "nbgrader", "zip_collect", assignment], cwd=root,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return res


def _submissions(root: Path) -> None:
    names = nbt.notebook_names(A, root)
    released = {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}
    full = _full(root)
    reference = next(m for m in nbt.load_mutants(A) if "reference" in m["name"])
    nbt.submit(root, A, "alice", full)
    nbt.submit(root, A, "bob", released)
    nbt.submit(root, A, "carol", nbt.apply_mutant(full, reference))
    # dave's work comes from the LMS, its file name stamped with the time he handed it in
    _zip_collect(root, A, {f"dave_{LATE_STAMP}_{n}.ipynb": nb for n, nb in full.items()})


def _add_second_assignment(root: Path) -> None:
    """``B``: 01's source and hidden tests under another name, submitted by alice (not yet in the gradebook)."""
    shutil.copytree(root / "solutions" / A, root / "solutions" / B)
    shutil.copy(root / "hidden_tests" / f"{A}.py", root / "hidden_tests" / f"{B}.py")
    nbt.submit(root, B, "alice", _full(root))


def _make_course(work: Path) -> Path:
    """A course folder with the release, a gradebook that knows the due dates, a roster and the submissions."""
    from nbgrader.api import Gradebook

    root = nbt.make_course(work / "course", [A, C], config=True)
    api = nbt.make_api(root)
    nbt.generate_release(api, A)
    with Gradebook(api.coursedir.db_url) as gb:
        gb.update_or_create_assignment(A, duedate=DUE)
        gb.update_or_create_assignment(C, duedate="2026-06-01 00:00:00 UTC")  # given later in the term
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
    from helpers.grading.run import grade_class

    nbt.require_assignment(A)
    work = tmp_path_factory.mktemp("grading")
    with nbt.offline_env(work):
        one = _make_course(work / "one")
        _add_second_assignment(one)
        two = work / "two" / "course"
        shutil.copytree(one, two)
        times, cpu, reports, logs = {}, {}, {}, {1: [], 2: []}
        for n, root in ((1, one), (2, two)):
            with nbt.Stopwatch() as t:
                reports[n] = grade_class(root, workers=n, sandbox=SANDBOX, progress=False, log=logs[n].append)
            times[n], cpu[n] = t.wall, t.cpu
        with nbt.Stopwatch() as t:
            rerun = grade_class(one, workers=2, sandbox=SANDBOX, progress=False)
        times["rerun"] = t.wall
    k = len(reports[1])
    n = k + 2  # autogrades: the submissions and the two canaries (worked solutions of A and B)
    # wall times depend on the machine's load; CPU seconds per autograde do not
    print(f"\n{k} submissions and 2 canaries: 1 worker {times[1]:.1f} s, 2 workers {times[2]:.1f} s, parallel "
          f"efficiency {times[1] / (2 * times[2]):.0%}; CPU {cpu[1] / n:.1f} s and {cpu[2] / n:.1f} s per autograde; "
          f"re-run skipping all {times['rerun']:.1f} s")
    return {"one": one, "two": two, "reports": reports, "rerun": rerun, "times": times, "work": work, "logs": logs}


def test_two_workers_give_the_grades_of_one(graded):
    r1, r2 = graded["reports"][1], graded["reports"][2]
    assert [(r.assignment, r.student) for r in r1 if r.assignment != A] == [(B, "alice")]
    assert [(r.assignment, r.student, r.score, r.max_score, r.success) for r in r1] == \
           [(r.assignment, r.student, r.score, r.max_score, r.success) for r in r2]
    s1, s2 = _scores(graded["one"]), _scores(graded["two"])
    assert s1 == s2
    assert all(r.success and not r.skipped for r in r1), [r.error for r in r1]


def test_the_grades_are_right(graded):
    by = {r.student: r for r in graded["reports"][1] if r.assignment == A}
    assert by["alice"].score == 8.0 and by["alice"].max_score == 10.0
    assert by["bob"].score == 0.0
    scores = _scores(graded["one"])
    assert scores["carol"]["cosine_tests"]["score"] == 0.0 and scores["carol"]["unit_rows_tests"]["score"] == 2.0
    assert by["dave"].seconds_late == 30 * 3600
    assert by["dave"].score == pytest.approx(8.0 * 0.8), "10% per started day late, 30 hours: 20% off"


def test_rerun_skips_unchanged_submissions(graded):
    rerun = graded["rerun"]
    assert all(r.skipped and r.success for r in rerun)
    assert [(r.student, r.score) for r in rerun if r.assignment == A] == \
           [(r.student, r.score) for r in graded["reports"][1] if r.assignment == A]
    assert [(r.assignment, r.student) for r in rerun if r.assignment != A] == [(B, "alice")]


def test_the_worked_solutions_were_graded_first(graded):
    """Each assignment with work to grade had its canary (and reported its time) before any student."""
    for n in (1, 2):
        lines = graded["logs"][n]
        for a in (A, B):
            assert any(x.startswith(f"{a}: the worked solution got full marks") for x in lines), lines
        assert any(x.startswith(f"{B}: generated into the gradebook") for x in lines), lines


def test_changed_submission_or_source_is_regraded(graded, tmp_path):
    from helpers.grading.run import grade_class

    root = tmp_path / "course"
    shutil.copytree(graded["two"], root)
    release = nbt.read_nb(root / "notebooks" / A / f"{A}.ipynb")
    with nbt.offline_env(tmp_path):
        nbt.submit(root, A, "alice", {A: release})  # alice hands in the blank release instead
        # one worker: what this tests does not depend on it (test_two_workers_give_the_grades_of_one), and a second
        # worker process starts a second warm template (about 3 CPU-s)
        reports = {r.student: r for r in grade_class(root, assignments=[A], workers=1, sandbox=SANDBOX, progress=False,
                                                     export=None, canary=False)}
        assert {s for s, r in reports.items() if not r.skipped} == {"alice"}
        assert reports["alice"].score == 0.0 and reports["bob"].score == 0.0
        (root / "solutions" / A / "notes.txt").write_text("the instructor changed the assignment's source\n")
        again = grade_class(root, assignments=[A], workers=1, sandbox=SANDBOX, progress=False, export=None, canary=False)
    assert not any(r.skipped for r in again) and len(again) == 4, "a changed source regrades its submissions"


def test_manual_score_survives_a_forced_regrade(graded, tmp_path):
    from nbgrader.api import Gradebook

    from helpers.grading.run import grade_class

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
        reports = {r.student: r for r in grade_class(root, assignments=[A], workers=1, sandbox=SANDBOX, progress=False,
                                                     export=None, force=True, canary=False)}
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
        reports = {r.student: r for r in grade_class(root, assignments=[A], workers=1, sandbox=SANDBOX, progress=False,
                                                     export=None, canary=False)}
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
    assert "(max)" not in rows
    assert rows["alice"][A] == "8.0" and rows["bob"][A] == "0.0"
    assert rows["dave"][A] == "6.4" and rows["dave"][f"{A} notes"].startswith("late 30 h: 1.6 off")
    assert rows["erin"][A] == "" and rows["erin"][f"{A} notes"] == "nothing submitted"
    assert rows["erin"]["first_name"] == "Erin"
    nbgrader_csv = {r["student_id"]: r for r in _read_csv(graded["one"] / "grades.csv")}
    assert float(nbgrader_csv["dave"]["late_submission_penalty"]) == pytest.approx(1.6)


def test_question_stats_by_hand(graded):
    root = graded["one"]
    rows = {r["cell"]: r for r in _read_csv(root / "question_stats.csv") if r["assignment"] == A}
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
        res = subprocess.run([sys.executable, "-m", "helpers", "grade", "--workers", "2"] + nbt.sandbox_args(),
                             cwd=root, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "5 submission(s): 0 graded, 5 skipped" in res.stdout and "0 failed" in res.stdout, res.stdout
    assert "the worked solution" not in res.stdout, "nothing to grade: no canary"
    assert "dave" in res.stdout and "(late)" in res.stdout
    bad = subprocess.run([sys.executable, "-m", "helpers", "grade", "--workers", "0"], cwd=root,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--workers" in bad.stderr and "Traceback" not in bad.stderr


def test_cli_failed_run_shows_the_error_and_flags_it(graded, tmp_path):
    """A new submission that is no notebook: the command prints nbgrader's real error, exits 1, flags it
    and exports the others (issue 36 item 4: it costs only its student)."""
    root = tmp_path / "course"
    shutil.copytree(graded["one"], root)
    (root / "submitted" / "mallory" / A).mkdir(parents=True)
    (root / "submitted" / "mallory" / A / f"{A}.ipynb").write_text("not a notebook")
    before = {name: (root / name).read_bytes() for name in ("grades.csv", "grades_lms.csv", "flags.csv")}
    with nbt.offline_env(tmp_path):
        res = subprocess.run([sys.executable, "-m", "helpers", "grade", A, "--workers", "1", "--new-students"]
                             + nbt.sandbox_args(), cwd=root, capture_output=True, text=True, timeout=900)
    assert res.returncode == 1, res.stdout[-2000:] + res.stderr[-3000:]
    out = res.stdout
    assert "mallory" in out and "NotJSONError" in out and "Please see the" not in out, out
    assert "1 failed" in out and "No exports written" not in out and "1 submission(s) could not be graded" in out, out
    assert "mallory" in (root / "flags.csv").read_text()
    with open(root / "grades_lms.csv", newline="") as fh:
        mallory = next(",".join(r.values()) for r in csv.DictReader(fh) if "mallory" in r.values())
    assert "flagged" in mallory, mallory
    others = [line for line in (root / "grades.csv").read_bytes().splitlines() if b"mallory" not in line]
    assert others == before["grades.csv"].splitlines(), "the others' grades changed"


def test_path_is_not_changed_for_good(graded, tmp_path, monkeypatch):
    import os

    from helpers.grading.run import grade_class

    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    grade_class(graded["one"], workers=1, sandbox=SANDBOX, progress=False, export=None)
    assert os.environ["PATH"] == "/usr/bin:/bin"


# ---------------------------------------------------------------------------------------------
# Scope: what is graded, what is exported, flags until resolved
# ---------------------------------------------------------------------------------------------

def test_with_no_name_what_was_submitted_is_graded(graded):
    """``C`` is in solutions/ and has a due date in the gradebook, but nobody submitted it: it is neither
    generated nor graded nor exported; ``B`` (submitted by alice only) is."""
    from nbgrader.api import Gradebook

    root = graded["one"]
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        assert not gb.find_assignment(C).notebooks, "an assignment nobody submitted is not generated"
        assert [s.student.id for s in gb.assignment_submissions(B)] == ["alice"]
    assert not (root / "notebooks" / C).exists()
    with open(root / "grades_lms.csv", newline="") as fh:
        assert next(csv.reader(fh))[4:] == [A, B, f"{A} notes", f"{B} notes"], "only assignments that were given are exported"
    assert {r["assignment"] for r in _read_csv(root / "grades.csv")} == {A, B}
    assert {r["assignment"] for r in _read_csv(root / "question_stats.csv")} == {A, B}
    rows = {r["student_id"]: r for r in _read_csv(root / "grades_lms.csv")}
    assert rows["alice"][B] == "8.0" and rows["bob"][B] == "" and rows["bob"][f"{B} notes"] == "nothing submitted"


def test_flags_stay_until_a_person_resolves_them(graded, tmp_path):
    """A flag on alice's ``A`` stays in flags.csv when ``B`` is graded, and grades_lms.csv marks it, until
    a person switches the flag off or grades every cell waiting for them."""
    from nbgrader.api import Gradebook

    from helpers.grading.flags import flag_submission, open_flags
    from helpers.grading.run import grade_class
    from helpers.grading.exports import write_exports

    root = tmp_path / "course"
    shutil.copytree(graded["one"], root)
    db = f"sqlite:///{root / 'gradebook.db'}"
    assert flag_submission(db, A, "alice", "a person should look at this")
    with nbt.offline_env(tmp_path):
        reports = grade_class(root, assignments=[B], workers=1, sandbox=SANDBOX, progress=False)
    assert [(r.assignment, r.student, r.skipped) for r in reports] == [(B, "alice", True)]
    flags = _read_csv(root / "flags.csv")
    assert [(f["assignment"], f["student"], f["reason"]) for f in flags] == \
        [(A, "alice", "a person should look at this")], "a run of B keeps A's open flag"
    lms = {r["student_id"]: r for r in _read_csv(root / "grades_lms.csv")}
    assert lms["alice"][A] == "8.0" and "flagged" in lms["alice"][f"{A} notes"] and lms["alice"][B] == "8.0"
    assert lms["dave"][A] == "6.4" and "flagged" not in lms["dave"][f"{A} notes"]

    # resolved by switching the flag off (the formgrader's flag button)
    with Gradebook(db) as gb:
        gb.find_submission_notebook(A, A, "alice").flagged = False
        gb.db.commit()
    write_exports(root, "grades.csv")
    assert _read_csv(root / "flags.csv") == []
    assert "flagged" not in {r["student_id"]: r for r in _read_csv(root / "grades_lms.csv")}["alice"][f"{A} notes"]

    # flagged again, and resolved by grading every cell that waits for a person
    assert flag_submission(db, A, "alice", "a second look")
    assert "a second look" in [f["reason"] for f in open_flags(db)]
    with Gradebook(db) as gb:
        for g in gb.find_submission_notebook(A, A, "alice").grades:
            if g.needs_manual_grade:
                g.manual_score = g.auto_score if g.auto_score is not None else g.max_score
                g.needs_manual_grade = False
        gb.db.commit()
    assert open_flags(db) == []


# ---------------------------------------------------------------------------------------------
# Feedback after manual grading, and back to the LMS
# ---------------------------------------------------------------------------------------------

def _feedback_total(path) -> tuple[float, float]:
    text = re.sub(r"<[^>]+>", " ", html.unescape(Path(path).read_text()))
    m = re.search(r"\(Score: ([0-9.]+) / ([0-9.]+)\)", text)
    assert m, f"no total score in {path}"
    return float(m[1]), float(m[2])


def test_feedback_is_written_again_after_a_manual_grade(graded, tmp_path):
    from nbgrader.api import Gradebook

    root = tmp_path / "course"
    shutil.copytree(graded["one"], root)
    page = root / "feedback" / "alice" / A / f"{A}.html"
    assert _feedback_total(page) == (8.0, 10.0), "helpers grade wrote feedback before the manual grade"
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        g = gb.find_grade(REFLECTION, A, A, "alice")
        g.manual_score, g.needs_manual_grade = 2.0, False
        gb.db.commit()
    with nbt.offline_env(tmp_path):
        stale = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", A], cwd=root,
                               capture_output=True, text=True, timeout=300)
        assert stale.returncode == 0, stale.stderr[-2000:]
        assert _feedback_total(page) == (8.0, 10.0), "nbgrader without --force skips it (why the guide says --force)"
        res = subprocess.run([sys.executable, "-m", "helpers", "feedback", A, "--lms", "to_lms"], cwd=root,
                             capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert _feedback_total(page) == (10.0, 10.0), "the feedback shows the manual grade"
    assert "still waiting for manual grading" in res.stdout and "carol" in res.stdout and "alice, " not in res.stdout
    # LMS hand-back: one file per student in one folder, named as zip_collect reads them
    files = sorted(p.name for p in (root / "to_lms" / A).iterdir())
    assert files == [f"{s}_{A}.html" for s in ("alice", "bob", "carol", "dave")], files
    assert (root / "to_lms" / A / f"alice_{A}.html").read_bytes() == page.read_bytes()


# ---------------------------------------------------------------------------------------------
# Failing loudly: the canary, a failed run
# ---------------------------------------------------------------------------------------------

def _broken_kernel(folder: Path) -> Path:
    """A Jupyter data folder whose ``python3`` kernel (the one nbgrader_config.py names) is the course's
    Python but cannot import ``helpers``, as when the grading environment's install points elsewhere."""
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True)
    code = "import sys; sys.modules['helpers'] = None; from ipykernel import kernelapp; kernelapp.launch_new_instance()"
    (spec / "kernel.json").write_text(json.dumps({"argv": [sys.executable, "-c", code, "-f", "{connection_file}"],
                                                  "display_name": "no course package", "language": "python"}))
    return folder


def test_canary_stops_a_kernel_that_cannot_import_the_course(tmp_path):
    """Every submission would score 0: the worked solution is graded first and stops the run with the
    reason (which cells, what error, where the kernel is), before any student is graded or anything written."""
    root = nbt.make_course(tmp_path / "course", [A], gradebook=False, config=True)
    release = nbt.read_nb(nbt.RELEASE_DIR / A / f"{A}.ipynb")
    solution = nbt.read_nb(nbt.SOLUTIONS_DIR / A / f"{A}.ipynb")
    nbt.submit(root, A, "alice", {A: nbt.fill_solutions(release, solution)})
    nbt.submit(root, A, "bob", {A: release})
    jupyter = _broken_kernel(tmp_path / "jupyter")
    args = [sys.executable, "-m", "helpers", "grade", "--workers", "1"] + nbt.sandbox_args()
    with nbt.offline_env(tmp_path):
        env = {**os.environ, "JUPYTER_PATH": str(jupyter)}
        res = subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=900, env=env)
    assert res.returncode == 2, res.stdout[-2000:] + res.stderr[-3000:]
    err = res.stderr
    assert "grading stopped before any submission was graded" in err and "Traceback" not in err, err[-3000:]
    assert "did not get full marks" in err and "cosine_tests 0/3" in err, err[-3000:]
    assert "No module named 'helpers" in err and "kernel spec 'python3'" in err and str(jupyter) in err, err[-3000:]
    for left in ("gradebook.db", "autograded", "feedback", "grades.csv", "grades_lms.csv", "flags.csv", "notebooks"):
        assert not (root / left).exists(), f"a stopped run left {left}"
    assert "alice" not in res.stdout and "bob" not in res.stdout


def test_a_failed_run_leaves_no_trap(tmp_path):
    """The issue's course: the due date set first on a fresh gradebook, the assignment never generated."""
    from nbgrader.api import Gradebook

    from helpers.grading.run import grade_class
    from helpers.grading.grade import grade_submission

    root = nbt.make_course(tmp_path / "course", [A], config=True)
    release = nbt.read_nb(nbt.RELEASE_DIR / A / f"{A}.ipynb")
    nbt.submit(root, A, "bob", {A: release})
    db = f"sqlite:///{root / 'gradebook.db'}"
    with nbt.offline_env(tmp_path):
        res = subprocess.run([sys.executable, "-m", "nbgrader", "db", "assignment", "add", A,
                              f"--duedate={DUE}"], cwd=root, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr[-2000:]
        with Gradebook(db) as gb:
            gb.update_or_create_student("ghost")
            gb.add_submission(A, "ghost")  # the empty record an earlier failed run left (the trap)

        # one submission graded as before this fix: nbgrader's real error, and no record left behind
        report = grade_submission(root, A, "bob", sandbox=SANDBOX)
        assert not report.success
        assert "No notebooks found, did you forget to run 'nbgrader generate_assignment'?" in report.error
        assert "Please see the" not in report.error
        with Gradebook(db) as gb:
            assert [s.id for s in gb.students] == ["ghost"], "grading bob created no student or submission"

        # the whole class: the canary, then the assignment is generated (the ghost's empty record removed)
        # and bob is graded; mallory's file is no notebook: her failure is shown and flagged, bob is exported
        (root / "submitted" / "mallory" / A).mkdir(parents=True)
        (root / "submitted" / "mallory" / A / f"{A}.ipynb").write_text('{"cells": [')
        notes = []
        reports = {r.student: r for r in grade_class(root, workers=1, sandbox=SANDBOX, progress=False, log=notes.append)}
    assert reports["bob"].success and reports["bob"].score == 0.0 and reports["bob"].max_score == 10.0
    assert not reports["mallory"].success and "NotJSONError" in reports["mallory"].error, reports["mallory"]
    assert any("removed 1 empty submission record" in n for n in notes) and any("generated into" in n for n in notes)
    assert reports["mallory"].flags, "the submission that could not be graded is flagged"
    with Gradebook(db) as gb:
        assert [s.student.id for s in gb.assignment_submissions(A)] == ["bob"]  # no record for mallory's work
    for export in ("grades.csv", "grades_lms.csv", "question_stats.csv", "flags.csv"):
        assert (root / export).exists(), f"{export} not written: one failure stopped everyone's export"
    assert "mallory" in (root / "flags.csv").read_text()
    with nbt.offline_env(tmp_path):  # the trap of the issue: generate_assignment --force refused
        res = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", A, "--force"], cwd=root,
                             capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]


# ---------------------------------------------------------------------------------------------
# Small fixes: zip_collect, the exchange root
# ---------------------------------------------------------------------------------------------

def test_zip_collect_with_the_documented_pattern(tmp_path):
    """An LMS download ``downloaded/<a>/archive/*.zip`` holding ``<student>_<notebook>.ipynb`` files, or
    ``<student>_<YYYY-MM-DD-HH-MM-SS>_<notebook>.ipynb`` when the LMS stamps the time of handing in:
    that time becomes ``timestamp.txt`` (what nbgrader compares with the due date)."""
    from nbgrader.utils import parse_utc

    root = nbt.make_course(tmp_path / "course", [A], config=True)
    nb = (nbt.RELEASE_DIR / A / f"{A}.ipynb").read_bytes()
    with nbt.offline_env(tmp_path):
        res = _zip_collect(root, A, {f"alice_{A}.ipynb": nb, f"bob-smith_{A}.ipynb": nb,
                                     f"carol_{LATE_STAMP}_{A}.ipynb": nb})
    for student in ("alice", "bob-smith", "carol"):
        assert (root / "submitted" / student / A / f"{A}.ipynb").read_bytes() == nb, res.stderr[-3000:]
    assert not (root / "submitted" / "alice" / A / "timestamp.txt").exists(), "no time in the name, no timestamp"
    stamp = (root / "submitted" / "carol" / A / "timestamp.txt").read_text()
    assert str(parse_utc(stamp)) == "2026-01-02 06:00:00", stamp
    assert "downloaded/" in (nbt.COURSE_ROOT / ".gitignore").read_text().split()
    guide = (nbt.COURSE_ROOT / "docs" / "INSTRUCTORS.md").read_text()
    assert "(?P<timestamp>" in guide and "timestamp.txt" in guide


def test_late_lms_work_is_penalised(graded):
    """dave's submission came through zip_collect, stamped 30 hours after the due date in its file name."""
    stamp = (graded["one"] / "submitted" / "dave" / A / "timestamp.txt").read_text()
    assert stamp.startswith("2026-01-02 06:00:00"), stamp
    by = {r.student: r for r in graded["reports"][1] if r.assignment == A}
    assert by["dave"].seconds_late == 30 * 3600 and by["dave"].score == pytest.approx(8.0 * 0.8)


def test_workers_are_forked_with_the_grader_imported_and_this_environment(tmp_path, monkeypatch):
    """grade_class's worker processes come from multiprocessing's fork server, which imported the grader and
    gensim once (helpers.grading.run.PRELOAD), and each gets the environment, PATH and working folder of the
    process that made its pool at that moment, as a spawned process would: not the fork server's, which
    was started with the first pool."""
    from helpers.grading import run

    with run._local_pool(1, os.environ["PATH"]) as pool:  # the fork server starts (if no earlier test started it)
        first = pool.submit(nbt.process_facts).result()
    monkeypatch.setenv("COURSE_TEST_MARKER", "set after the fork server started")
    monkeypatch.chdir(tmp_path)
    with run._local_pool(2, "/course/bin:" + os.environ["PATH"]) as pool:
        later = list(pool.map(nbt.process_facts, range(2)))
    for facts in [first] + later:
        assert facts["ppid"] != os.getpid() and "forkserver" in facts["parent"], facts["parent"]
        assert facts["gensim"], "the worker imported gensim itself: the fork server did not preload it"
    assert {f["ppid"] for f in later} == {first["ppid"]}, "a later pool started a fork server of its own"
    assert first["marker"] is None
    for facts in later:
        assert facts["marker"] == "set after the fork server started"
        assert facts["path"].startswith("/course/bin:") and facts["cwd"] == str(tmp_path)
        assert set(sys.path) <= set(facts["sys_path"])


def test_a_new_gradebook_is_the_one_nbgrader_makes(tmp_path):
    """``create_gradebook`` makes in the grader's process the file nbgrader makes by running ``alembic``: the
    same tables, indexes and schema version, and, once nbgrader has opened each, the same rows."""
    import sqlite3

    from nbgrader.api import Gradebook

    from helpers.grading.course import bin_on_path, create_gradebook

    ours, theirs = f"sqlite:///{tmp_path / 'ours.db'}", f"sqlite:///{tmp_path / 'theirs.db'}"
    create_gradebook(ours)
    assert (tmp_path / "ours.db").is_file()
    with bin_on_path():
        for url in (ours, theirs):
            with Gradebook(url):
                pass

    def dump(url):
        con = sqlite3.connect(url[len("sqlite:///"):])
        try:
            schema = sorted(con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
            rows = {name: sorted(con.execute(f'SELECT * FROM "{name}"')) for kind, name, _, _ in schema
                    if kind == "table"}
        finally:
            con.close()
        return schema, rows

    schema, rows = dump(ours)
    assert rows["alembic_version"] and rows["course"], rows
    assert (schema, rows) == dump(theirs)
    create_gradebook(ours)  # an existing gradebook is left as it is
    assert dump(ours) == (schema, rows)


def test_a_gradebook_that_cannot_be_made_stops_the_run_in_one_line(tmp_path):
    from helpers.grading.canary import GradingStopped, prepare_gradebook

    (tmp_path / "a-file").write_text("not a folder\n")
    url = f"sqlite:///{tmp_path / 'a-file' / 'gradebook.db'}"
    with pytest.raises(GradingStopped, match=r"does not exist and could not be made, so no submission was graded: "
                                             r"\w+Error: .+ Check that the course folder can be written to"):
        prepare_gradebook(None, url, [A], {})


def test_exchange_root_is_inside_the_course():
    from helpers.grading.course import load_course_config

    cfg = load_course_config(nbt.COURSE_ROOT)
    exchange = Path(cfg.Exchange.root)
    assert exchange.is_absolute() and exchange.is_relative_to(nbt.COURSE_ROOT), exchange
    assert "exchange/" in (nbt.COURSE_ROOT / ".gitignore").read_text().split()


def test_exchange_commands_stay_in_the_course(tmp_path):
    """``nbgrader list`` (what the formgrader's assignment list runs) and ``release_assignment``
    use ``<course>/exchange``: no "Unwritable directory" error, nothing written elsewhere."""
    root = nbt.make_course(tmp_path / "course", [A], config=True)
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
    the static scan (helpers.grading.scan / helpers.grading.flags, another part of the course): ``flags.csv`` lists
    it, the report carries it, and a re-run that skips the submission still reports it."""
    pytest.importorskip("helpers.grading.flags", reason="helpers.grading.flags (the static scan's flags) is not in this tree")
    pytest.importorskip("helpers.grading.scan", reason="helpers.grading.scan (the static scan) is not in this tree")
    from helpers.grading.run import grade_class

    root = nbt.make_course(tmp_path / "course", [A], config=True)
    with nbt.offline_env(tmp_path):
        nbt.generate_release(nbt.make_api(root), A)
        released = {A: nbt.read_nb(root / "notebooks" / A / f"{A}.ipynb")}
        solution = nbt.read_nb(root / "solutions" / A / f"{A}.ipynb")
        full = {A: nbt.fill_solutions(released[A], solution)}
        answer = next(nbt.strip_solution_markers(c.source) for c in solution.cells if nbt.grade_id(c) == "cosine_solution")
        nbt.submit(root, A, "mallory", nbt.apply_mutant(full, {"name": "subprocess", "cell": "cosine_solution",
                                                               "source": "import subprocess\n" + answer}))
        first = grade_class(root, workers=1, sandbox=SANDBOX, progress=False, canary=False)
        again = grade_class(root, workers=1, sandbox=SANDBOX, progress=False, canary=False)
    rows = _read_csv(root / "flags.csv")
    assert [(r["student"], r["cell"]) for r in rows] == [("mallory", "cosine_solution")], rows
    assert first[0].flags and again[0].skipped and again[0].flags == first[0].flags
