"""Submissions that damage the grading itself, through the REAL autograde (issue 18, items 4 to 7).

Not marks without the work (``test_adversarial.py``), but damage to the grading: pages that run a
student's script with the instructor's session, files the grader copies with its own rights, a
worker held for ever, output or disk that fills the grader, a worker that dies, metadata or code
that slips past the scan. All on ``01_cosine`` (exercises: ``cosine`` 3 points, ``unit_rows`` 2,
``cosine_matrix`` 2 + 1).

:func:`graded` grades every submission of :data:`SUBMISSIONS` in ONE nbgrader ``autograde`` run and
ONE ``generate_feedback`` run, in name order: an honest student first and last, the hostile ones
in between. For each damage class: the run finishes, both honest students keep full marks
unflagged, the hostile one is flagged, and what it leaves in ``autograded/`` and ``feedback/`` is
bounded. :func:`test_a_dead_worker_costs_only_its_own_submission` runs ``python -m helpers
grade``'s :func:`helpers.grading.run.grade_class` twice with a worker killed as the system would kill
it for memory. The rest needs no nbgrader run: collection (``nbgrader collect`` of an exchange),
the kernel's ``sys.path``, and the pieces on their own.

What the same submissions did before (commit 65fd2d7, each graded on its own with ``Execute.timeout``
30 s, on the 2-core test machine while it was shared):

* ``b-html``: the JavaScript output's ``<script>`` and the markdown cell's ``<img onerror=...>``
  reached the feedback page and the formgrader's page (nbconvert shows the JavaScript form of an
  output before its HTML and SVG forms);
* ``c-symlinks``: the named pipe made nbgrader fail the submission (not graded); without it, the
  link to the worked solution arrived in ``autograded/`` and ``feedback/`` as a file holding 37
  hidden-test and 24 solution lines, and the link to ``nbgrader_config.py`` as a copy of it;
* ``d-beside``: the ``numpy.py`` beside the notebook was imported: 0 of 8 code points; it, the
  ``helpers/`` package and the start-up file were copied to ``autograded/`` and ``feedback/``;
* ``e-nb-symlink``: a notebook that is a link to the worked solution earned 8 of 8, and the worked
  solution's answers were in its feedback;
* ``f-slow``: three cells each sleeping just under the cell timeout held the worker 140 s, flagged
  only because they import ``time``;
* ``g-output``: five 10 MB lines made a 50.2 MB graded notebook and a 50.3 MB feedback page; the
  grading process peaked at 547 MB instead of 206 MB;
* ``h-disk``: the 1 GiB written with ``ndarray.tofile`` (no ``open()``) was copied to
  ``autograded/`` and ``feedback/`` (2.1 GB), the one in ``/tmp`` took 1 GiB of memory;
* ``i-metadata``: the ``course_flags`` entry brought in the notebook's metadata became a flag whose
  ``<script>`` ran in the feedback page;
* ``j-scan``: a cell the scan cannot parse passed it without a flag;
* ``k-skip-tag``: the untouched release with every test cell tagged ``skip-execution`` earned 8
  of 8, unflagged;
* a killed worker failed all four submissions of the run (``BrokenProcessPool``), and again on the
  re-run.
"""
from __future__ import annotations

import copy
import json
import os
import re
import signal
import threading
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_raw_cell

import nbgrader_tools as nbt
from helpers.grading import rendering, sandbox, submission
from helpers.grading.flags import read_flags

A = "01_cosine"
EXERCISES = {"cosine_tests": 3.0, "unit_rows_tests": 2.0, "cosine_matrix_tests": 2.0,
             "cosine_matrix_vectorised_tests": 1.0}
HONEST = ("a-honest", "zz-honest")
CELL_TIMEOUT = 30     # seconds per cell in this run (the course: 60)
NOTEBOOK_BUDGET = 60  # seconds per notebook in this run (the course: 300); honest 01_cosine takes 3-30 s
MARKERS = ("XSS-HTML", "XSS-JS", "XSS-SVG", "XSS-MD", "XSS-IMG", "XSS-RAW", "XSS-TAG", "XSS-FLAG")

HTML_CELL = '''class Shiny:
    def _repr_html_(self):
        return "<script>alert('XSS-HTML')</script><b>bold</b>"
    def _repr_javascript_(self):
        return "alert('XSS-JS')"
    def _repr_svg_(self):
        return "<svg xmlns='http://www.w3.org/2000/svg'><script>alert('XSS-SVG')</script></svg>"
Shiny()
'''
MD_CELL = "My notes <script>alert('XSS-MD')</script> <img src=x onerror=\"alert('XSS-IMG')\">"
SLOW_CELL = f"import time\ntime.sleep({CELL_TIMEOUT - 1})\n"
OUTPUT_CELL = "for _ in range(5):\n    print('x' * 10_000_000)\n"
DISK_CELL = "np.zeros(2**27).tofile('big.bin')  # 1 GiB, without open()\n"
TMP_CELL = "np.zeros(2**27).tofile('/tmp/big.bin')\n"
AWAIT_CELL = "import asyncio\nawait asyncio.sleep(0)\nimport subprocess\n"
BROKEN_CELL = "def f(:\n    pass\n"
FLAG_REASON = "<script>alert('XSS-FLAG')</script>"


needs_bwrap = nbt.needs_bwrap


# ---------------------------------------------------------------------------------------------
# The submissions
# ---------------------------------------------------------------------------------------------

def _notebooks(root) -> tuple[dict, dict]:
    names = nbt.notebook_names(A, root)
    stubs = {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}
    full = {n: nbt.fill_solutions(nb, nbt.read_nb(root / "solutions" / A / f"{n}.ipynb")) for n, nb in stubs.items()}
    return stubs, full


def _append(notebooks: dict, *cells) -> dict:
    out = copy.deepcopy(notebooks)
    for nb in out.values():
        nb.cells.extend(copy.deepcopy(list(cells)))
    return out


def _after(notebooks: dict, gid: str, *cells) -> dict:
    """Cells inserted right after the cell ``gid``."""
    out = copy.deepcopy(notebooks)
    for nb in out.values():
        k = next(i for i, c in enumerate(nb.cells) if nbt.grade_id(c) == gid)
        nb.cells[k + 1:k + 1] = copy.deepcopy(list(cells))
    return out


def _html(full):
    tagged = new_code_cell("x = 1")
    tagged.metadata["tags"] = ["\"><script>alert('XSS-TAG')</script>"]
    return _append(full, new_code_cell(HTML_CELL), new_markdown_cell(MD_CELL),
                   new_raw_cell("<script>alert('XSS-RAW')</script>"), tagged)


def _metadata(full):
    out = copy.deepcopy(full)
    for nb in out.values():
        nb.metadata["course_flags"] = [{"cell": None, "reason": FLAG_REASON}]
    return out


def _skip_tags(stubs):
    out = copy.deepcopy(stubs)
    for nb in out.values():
        for cell in nbt.test_cells(nb):
            cell.metadata["tags"] = ["skip-execution"]
    return out


SUBMISSIONS = {
    # student id: how to build the notebooks from (release stubs, full answers)
    "a-honest": lambda stubs, full: full,
    "b-html": lambda stubs, full: _html(full),
    "c-symlinks": lambda stubs, full: full,       # + links and a pipe beside it (_beside)
    "d-beside": lambda stubs, full: full,         # + helpers/, numpy.py, ipython_kernel_config.py
    "e-nb-symlink": lambda stubs, full: full,     # the notebook itself becomes a link
    "f-slow": lambda stubs, full: _after(full, "cosine_tests", *[new_code_cell(SLOW_CELL) for _ in range(3)]),
    "g-output": lambda stubs, full: _append(full, new_code_cell(OUTPUT_CELL)),
    "h-disk": lambda stubs, full: _append(full, new_code_cell(DISK_CELL), new_code_cell(TMP_CELL)),
    "i-metadata": lambda stubs, full: _metadata(full),
    "j-scan": lambda stubs, full: _append(full, new_code_cell(AWAIT_CELL), new_code_cell(BROKEN_CELL)),
    "k-skip-tag": lambda stubs, full: _skip_tags(stubs),
    "zz-honest": lambda stubs, full: full,
}


def _beside(root) -> None:
    """What some submissions bring besides their notebook."""
    folder = lambda s: root / "submitted" / s / A  # noqa: E731
    (folder("c-symlinks") / "notes.txt").symlink_to(root / "solutions" / A / f"{A}.ipynb")
    (folder("c-symlinks") / "config.py").symlink_to(root / "nbgrader_config.py")
    (folder("c-symlinks") / "sol").symlink_to(root / "solutions")
    (folder("c-symlinks") / "tests.py").symlink_to(root / "hidden_tests" / f"{A}.py")  # the judge's hidden tests
    os.mkfifo(folder("c-symlinks") / "pipe")
    (folder("d-beside") / "helpers").mkdir()
    (folder("d-beside") / "helpers" / "__init__.py").write_text("raise ImportError('the helpers/ beside it ran')\n")
    (folder("d-beside") / "numpy.py").write_text("raise ImportError('the numpy.py beside it ran')\n")
    (folder("d-beside") / "ipython_kernel_config.py").write_text("raise SystemExit('a start-up file ran')\n")
    nb = folder("e-nb-symlink") / f"{A}.ipynb"
    nb.unlink()
    nb.symlink_to(root / "solutions" / A / f"{A}.ipynb")


def _du(folder: Path) -> int:
    return sum(os.lstat(os.path.join(d, f)).st_size for d, _, fs in os.walk(folder) for f in fs)


def _formgrader_page(path: Path, student: str) -> str:
    """The page nbgrader's formgrader serves for a submission (its exporter, template and config)."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    c = nbt.course_config(path.parent)
    c.HTMLExporter.template_name = "formgrade"
    c.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = {"assignment_id": A, "notebook_id": A, "submission_id": "x", "index": 0, "total": 1,
                 "base_url": "", "student": student, "last_name": "", "first_name": "", "notebook_path": str(path)}
    return HTMLExporter(config=c).from_filename(str(path), resources=resources)[0]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One autograde run and one generate_feedback run of every submission; what they left."""
    needs_bwrap()
    nbt.require_assignment(A)
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    work = tmp_path_factory.mktemp("damage")
    with nbt.offline_env(work):
        root = nbt.make_course(work / "course", [A])
        (root / "nbgrader_config.py").write_text("# the gradebook's password: hunter2\nc = get_config()\n"
                                                 "c.CourseDirectory.course_id = 'weat-course'\n")
        c = nbt.course_config(root)
        c.Execute.timeout = CELL_TIMEOUT
        c.ResilientExecute.notebook_timeout = NOTEBOOK_BUDGET
        api = NbGraderAPI(coursedir=CourseDirectory(config=c), config=c)
        nbt.generate_release(api, A)
        stubs, full = _notebooks(root)
        for sid, build in SUBMISSIONS.items():
            nbt.submit(root, A, sid, build(stubs, full))
        _beside(root)
        with nbt.Stopwatch() as t:
            result = api.autograde(A, "*", force=True, create=True)
        feedback = api.generate_feedback(A, "*", force=True)
        scores = {}
        for s in SUBMISSIONS:
            try:
                scores[s] = nbt.cell_scores(api.coursedir.db_url, A, s)
            except Exception:  # noqa: BLE001 - test_every_submission_is_graded says which
                scores[s] = {}
        flags = read_flags(api.coursedir.db_url, [A])
        pages = {}
        for s in SUBMISSIONS:
            nb = root / "autograded" / s / A / f"{A}.ipynb"
            pages[s] = _formgrader_page(nb, s) if nb.is_file() else ""
    # the hidden tests: the notebook's hidden blocks and the judge's hidden_tests/<assignment>.py
    secret = nbt.hidden_and_solution_lines(nbt.read_nb(root / "solutions" / A / f"{A}.ipynb"), A)
    print(f"autograde of {len(SUBMISSIONS)} submissions: {t.wall:.1f} s")
    return dict(root=root, result=result, feedback=feedback, scores=scores, flags=flags, pages=pages, secret=secret)


def _code(grades: dict) -> dict:
    return {gid: g for gid, g in grades.items() if g["cell_type"] == "code" and g["max_score"] > 0}


def _flags(graded, student) -> list[str]:
    return [f["reason"] for f in graded["flags"] if f["student"] == student]


def _notebook(graded, student):
    return nbt.read_nb(graded["root"] / "autograded" / student / A / f"{A}.ipynb")


def _feedback(graded, student) -> str:
    return (graded["root"] / "feedback" / student / A / f"{A}.html").read_text()


def _points(graded, student) -> float:
    return sum(g["score"] for g in _code(graded["scores"][student]).values())


# ---------------------------------------------------------------------------------------------
# Every class: the run finishes, honest students keep full marks, the hostile one is flagged
# ---------------------------------------------------------------------------------------------

def test_every_submission_is_graded_and_has_feedback(graded):
    assert graded["result"]["success"], graded["result"].get("error") or graded["result"].get("log")
    assert graded["feedback"]["success"], graded["feedback"].get("error") or graded["feedback"].get("log")
    assert all(graded["scores"].values()), [s for s, g in graded["scores"].items() if not g]
    for s in SUBMISSIONS:
        assert (graded["root"] / "feedback" / s / A / f"{A}.html").is_file(), f"{s} has no feedback page"


@pytest.mark.parametrize("student", HONEST)
def test_honest_students_keep_full_marks_unflagged(graded, student):
    grades = _code(graded["scores"][student])
    assert {gid: g["score"] for gid, g in grades.items()} == EXERCISES
    assert not any(g["needs_manual_grade"] for g in grades.values())
    assert _flags(graded, student) == []


@pytest.mark.parametrize("student", [s for s in SUBMISSIONS if s not in HONEST])
def test_every_hostile_submission_is_flagged(graded, student):
    assert _flags(graded, student), f"{student} was not flagged"


@pytest.mark.parametrize("student", list(SUBMISSIONS))
def test_graded_notebook_and_feedback_are_bounded(graded, student):
    """At most the notebook (5 MB of output, as received) and its page, whatever was printed or written."""
    from helpers.grading.feedback_page import mathjax_script

    root = graded["root"]
    for folder, extra in ((root / "autograded" / student / A, 0),
                          (root / "feedback" / student / A, len(mathjax_script().encode()))):  # the page's own MathJax
        size = _du(folder)
        assert size < 6_000_000 + extra, f"{folder.relative_to(root)} holds {size:,} bytes"
        names = {p.name for p in folder.iterdir()}
        assert names <= {f"{A}.ipynb", f"{A}.html", "timestamp.txt"}, f"{folder.relative_to(root)}: {sorted(names)}"


# ---------------------------------------------------------------------------------------------
# Item 7: safe rendering
# ---------------------------------------------------------------------------------------------

def _scripts(page: str) -> list[str]:
    """The markers that reach a page inside a script element or inside a tag (an event handler):
    escaped text (``&lt;script&gt;``) is not a tag."""
    return [m for m in MARKERS if re.search(rf"<script\b[^>]*>[^<]*{m}", page) or re.search(rf"<[a-zA-Z][^<>]*{m}", page)]


@pytest.mark.parametrize("student", ["b-html", "i-metadata"])
def test_no_student_script_reaches_the_feedback_or_the_formgrader(graded, student):
    assert _scripts(_feedback(graded, student)) == []
    assert _scripts(graded["pages"][student]) == []


def test_html_outputs_keep_their_text_and_the_answers_keep_their_marks(graded):
    nb = _notebook(graded, "b-html")
    mimes = {m for c in nb.cells if c.cell_type == "code" for o in c.outputs for m in o.get("data", {})}
    assert mimes <= set(rendering.KEEP_MIME), mimes
    assert any("Shiny" in o.get("data", {}).get("text/plain", "")
               for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert _points(graded, "b-html") == sum(EXERCISES.values())
    reasons = " | ".join(_flags(graded, "b-html"))
    assert "displayed HTML or JavaScript" in reasons and "the student's text holds HTML" in reasons


def test_student_markdown_is_shown_as_text(graded):
    nb = _notebook(graded, "b-html")
    shown = [c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith(rendering.NOTE)]
    assert len([c for c in shown if "XSS" in c.source]) == 2  # the markdown cell and the raw cell
    assert all(c.cell_type != "raw" for c in nb.cells)
    page = _feedback(graded, "b-html")
    assert "&lt;script&gt;alert(&#39;XSS-MD&#39;)" in page or "&lt;script&gt;alert('XSS-MD')" in page


# ---------------------------------------------------------------------------------------------
# Item 5: what a submission is
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("student", ["c-symlinks", "d-beside", "e-nb-symlink"])
def test_nothing_is_followed_with_the_graders_rights(graded, student):
    """No hidden-test line and nothing of nbgrader_config.py in the feedback (the answers are the
    student's own, here the worked solution's); nothing but the notebook in autograded/ (its test
    cells hold the hidden tests by design), and for the linked notebook no line of the worked solution."""
    root, secret = graded["root"], graded["secret"]
    page = _feedback(graded, student)
    assert not [line for line in secret["hidden"] if line in page]
    assert "hunter2" not in page
    autograded = json.dumps(nbt.read_nb(root / "autograded" / student / A / f"{A}.ipynb"))
    assert "hunter2" not in autograded
    if student == "e-nb-symlink":  # the worked solution was never read: the answer cells are the release's
        release = nbt.read_nb(root / "notebooks" / A / f"{A}.ipynb")
        stubs = {nbt.grade_id(c): c.source for c in release.cells if nbt.nbgrader_meta(c).get("solution")}
        graded_nb = nbt.read_nb(root / "autograded" / student / A / f"{A}.ipynb")
        answers = {nbt.grade_id(c): c.source for c in graded_nb.cells if nbt.grade_id(c) in stubs}
        assert answers == stubs


def test_links_and_pipes_are_dropped_and_flagged(graded):
    assert _points(graded, "c-symlinks") == sum(EXERCISES.values())
    reasons = " | ".join(_flags(graded, "c-symlinks"))
    for name in ("config.py (symbolic link)", "notes.txt (symbolic link)", "sol (symbolic link)", "pipe (named pipe)"):
        assert name in reasons, reasons
    assert sorted(p.name for p in (graded["root"] / "submitted" / "c-symlinks" / A).iterdir()) == [
        f"{A}.ipynb", "timestamp.txt"]


def test_files_beside_the_notebook_are_never_imported(graded):
    assert _points(graded, "d-beside") == sum(EXERCISES.values())
    outputs = json.dumps([c.get("outputs", []) for c in _notebook(graded, "d-beside").cells])
    assert "beside it ran" not in outputs and "start-up file" not in outputs
    reasons = " | ".join(_flags(graded, "d-beside"))
    assert "helpers (folder)" in reasons and "numpy.py (file)" in reasons and "ipython_kernel_config.py" in reasons


def test_a_notebook_that_is_a_link_is_graded_as_empty(graded):
    assert _points(graded, "e-nb-symlink") == 0.0
    assert any("graded as the untouched release" in r for r in _flags(graded, "e-nb-symlink"))


# ---------------------------------------------------------------------------------------------
# Item 6: budgets
# ---------------------------------------------------------------------------------------------

def test_time_budget_per_notebook(graded):
    """Cells that each stop just under the cell timeout: the notebook's budget stops them, the rest is not run."""
    nb = _notebook(graded, "f-slow")
    errors = [(o.ename, o.evalue) for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    # the cell running when the budget ran out is interrupted (unless it ended just in time)
    assert any(e == "NotRun" and "time budget" in v for e, v in errors), errors
    grades = _code(graded["scores"]["f-slow"])
    assert grades["cosine_tests"]["auto_score"] == 3.0  # before the slow cells
    assert all(grades[g]["auto_score"] == 0.0 for g in ("unit_rows_tests", "cosine_matrix_tests"))
    assert any("time budget" in r for r in _flags(graded, "f-slow"))


def test_output_budget_in_bytes(graded):
    nb = _notebook(graded, "g-output")
    cell = nb.cells[-1]
    text = "".join(o.get("text", "") for o in cell.outputs)
    assert "[output truncated" in text
    assert len(text.encode()) < 2_100_000
    assert _points(graded, "g-output") == sum(EXERCISES.values())
    assert any("more output than the grader keeps" in r for r in _flags(graded, "g-output"))


def test_disk_budget(graded):
    """1 GiB written without open(), in the working folder and in /tmp: both writes fail at the budget."""
    nb = _notebook(graded, "h-disk")
    errors = [o.ename for c in nb.cells[-2:] for o in c.outputs if o.output_type == "error"]
    assert errors == ["OSError", "OSError"], errors
    assert _points(graded, "h-disk") == sum(EXERCISES.values())
    assert any("the disk space the grader gives" in r for r in _flags(graded, "h-disk"))


# ---------------------------------------------------------------------------------------------
# Item 4: the scan is an aid, metadata is the grader's
# ---------------------------------------------------------------------------------------------

def test_notebook_metadata_brought_by_the_submission_is_discarded(graded):
    from helpers.grading.flags import notebook_flags

    reasons = _flags(graded, "i-metadata")
    assert not any("XSS-FLAG" in r or "script" in r for r in reasons), reasons
    assert any("'course_flags' entry" in r for r in reasons)
    assert not any("XSS-FLAG" in f["reason"] for f in notebook_flags(_notebook(graded, "i-metadata")))
    assert _points(graded, "i-metadata") == sum(EXERCISES.values())


def test_the_scan_fails_closed_and_reads_what_the_kernel_runs(graded):
    reasons = " | ".join(_flags(graded, "j-scan"))
    assert "imports subprocess" in reasons          # behind a top-level await
    assert "could not be read as Python" in reasons  # a syntax error is flagged, not passed
    assert _points(graded, "j-scan") == sum(EXERCISES.values())


def test_skip_execution_tags_are_discarded(graded):
    assert _points(graded, "k-skip-tag") == 0.0
    assert any("skip-execution" in r for r in _flags(graded, "k-skip-tag"))


# ---------------------------------------------------------------------------------------------
# Item 6: a worker that dies costs its own submission (python -m helpers grade)
# ---------------------------------------------------------------------------------------------

VICTIM = "k-killed"
#: the victim's notebook sleeps in this process, which names it (a warm kernel's folder and command line do not)
SLEEPER = "sleep 45.017"


def _worker_grading(target: str) -> int | None:
    """The pid of the grading worker (a child of this process's multiprocessing fork server) whose descendants
    run in ``target`` (or run SLEEPER)."""
    me = os.getpid()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if target not in cmd and not cwd.endswith(target) and SLEEPER not in cmd:
            continue
        p, below = int(pid), None
        while p > 1:
            try:
                ppid = int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1])
                server = b"forkserver" in Path(f"/proc/{p}/cmdline").read_bytes()
            except OSError:
                break
            if ppid == me:
                return below if server else p
            p, below = ppid, p
    return None


def _kill_the_victims_worker(stop: threading.Event, killed: list) -> None:
    """SIGKILL the worker grading VICTIM while its notebook sleeps, as the system does when memory runs out."""
    target = f"/autograded/{VICTIM}/{A}"
    while not stop.is_set():
        pid = _worker_grading(target)
        if pid:
            stop.wait(2)  # let it get into the sleeping cell
            try:
                os.kill(pid, signal.SIGKILL)  # a process this test started (a worker of its pool)
                killed.append(pid)
            except ProcessLookupError:
                pass
            stop.wait(3)
        stop.wait(0.2)


def test_a_dead_worker_costs_only_its_own_submission(tmp_path):
    """Two runs of grade_class (2 workers): the victim's worker is killed each time it is graded.

    Before, the first run failed every submission pending in the broken pool and every re-run did
    it again. Now the others are graded (those taken down with it again, alone), the victim fails,
    flagged, and the re-run grades it alone, skipping the others (unchanged).
    """
    needs_bwrap()
    nbt.require_assignment(A)
    from helpers.grading.state import STATE_FILE
    from helpers.grading.run import grade_class

    with nbt.offline_env(tmp_path):
        root = nbt.make_course(tmp_path / "course", [A], config=True)
        nbt.generate_release(nbt.make_api(root), A)
        _, full = _notebooks(root)
        sleeper = _append(full, new_code_cell(f"import subprocess\nsubprocess.run({SLEEPER.split()!r})\n"))
        students = {"a-honest": full, VICTIM: sleeper, "y-honest": full, "z-honest": full}
        for sid, nbs in students.items():
            nbt.submit(root, A, sid, nbs)
        runs = []
        for _ in range(2):
            stop, killed = threading.Event(), []
            watcher = threading.Thread(target=_kill_the_victims_worker, args=(stop, killed), daemon=True)
            watcher.start()
            try:
                # no canary: not what this tests (tests/test_grading.py tests it), and one autograde less per run
                reports = {r.student: r for r in grade_class(root, workers=2, progress=False, export=None,
                                                             canary=False)}
            finally:
                stop.set()
                watcher.join()
            runs.append((reports, killed))
        state = json.loads((root / "autograded" / STATE_FILE).read_text())
        flags = read_flags(nbt.make_api(root).coursedir.db_url, [A])
    (first, killed1), (second, killed2) = runs
    assert killed1 and killed2, "the victim's worker was never found"
    for s in ("a-honest", "y-honest", "z-honest"):
        assert first[s].success and first[s].score == 8.0, (s, first[s])  # all code points (the reflection: a person)
        assert second[s].skipped and second[s].score == 8.0, (s, second[s])
        assert not first[s].flags
    for run in (first, second):
        assert not run[VICTIM].success and run[VICTIM].died and run[VICTIM].flags, run[VICTIM]
        assert "grading process died" in run[VICTIM].error
    assert state[f"{A}/{VICTIM}"].get("died")
    assert not any(f["student"] != VICTIM for f in flags)


# ---------------------------------------------------------------------------------------------
# Collection, the kernel's sys.path and the pieces (no autograde run)
# ---------------------------------------------------------------------------------------------

def _metadata_variants():
    """Every notebook of solutions/ and notebooks/, and 01's release with its metadata broken in each way
    nbgrader's schema and checks catch (and ways they let pass)."""
    books = [nbt.read_nb(p) for folder in (nbt.SOLUTIONS_DIR, nbt.RELEASE_DIR) for p in sorted(folder.glob("*/*.ipynb"))]
    base = nbt.read_nb(nbt.RELEASE_DIR / A / f"{A}.ipynb")
    graded = next(k for k, c in enumerate(base.cells) if nbt.nbgrader_meta(c).get("grade") and c.cell_type == "code")
    answer = next(k for k, c in enumerate(base.cells) if nbt.nbgrader_meta(c).get("solution") and c.cell_type == "code")
    edits = {
        "no grade_id": (graded, lambda m: m.pop("grade_id")), "empty grade_id": (graded, lambda m: m.update(grade_id="")),
        "no points": (graded, lambda m: m.pop("points")), "points as text": (graded, lambda m: m.update(points="3")),
        "grade as text": (graded, lambda m: m.update(grade="yes")), "no locked": (graded, lambda m: m.pop("locked")),
        "schema 2": (graded, lambda m: m.update(schema_version=2)), "schema 4": (graded, lambda m: m.update(schema_version=4)),
        "no schema": (graded, lambda m: m.pop("schema_version")), "extra key": (answer, lambda m: m.update(colour="red")),
        "task code cell": (answer, lambda m: m.update(task=True)), "duplicate id": (
            answer, lambda m: m.update(grade_id=nbt.grade_id(base.cells[graded]))),
        "negative points": (graded, lambda m: m.update(points=-1)), "no solution": (answer, lambda m: m.pop("solution")),
    }
    for name, (k, edit) in edits.items():
        nb = copy.deepcopy(base)
        edit(nb.cells[k].metadata["nbgrader"])
        books.append(nb)
    markdown = copy.deepcopy(base)
    markdown.cells.append(new_markdown_cell("x", metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": False, "grade_id": "md", "points": 1, "schema_version": 3}}))
    return books + [markdown]


def test_the_courses_metadata_check_is_nbgraders():
    """``CheckCellMetadataOnce`` (one schema validator per process) accepts and refuses exactly what nbgrader's
    ``MetadataValidator`` does, with the same error, on every notebook of the course and on broken metadata."""
    from nbgrader.nbgraderformat import MetadataValidator

    def outcome(validate, nb):
        try:
            validate(copy.deepcopy(nb))
        except Exception as exc:  # noqa: BLE001 - compared, type and message
            return type(exc).__name__, str(exc)
        return None

    books = _metadata_variants()
    results = [(outcome(MetadataValidator().validate_nb, nb), outcome(submission._metadata_validator().validate_nb, nb))
               for nb in books]
    assert [theirs for theirs, ours in results if theirs != ours] == []
    refused = sum(theirs is not None for theirs, _ in results)
    assert refused >= 10, f"only {refused} of the broken notebooks were refused: the variants test too little"


def test_collect_copies_only_the_notebook(tmp_path):
    """``nbgrader collect`` with the course's configuration: from an inbound folder holding links,
    a pipe and a folder, only the notebook and timestamp.txt arrive in submitted/; an inbound
    entry that is itself a link is not collected."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    nbt.require_assignment(A)
    with nbt.offline_env(tmp_path):
        root = nbt.make_course(tmp_path / "course", [A])
        c = nbt.course_config(root)
        c.CourseDirectory.course_id = "weat-course"
        c.Exchange.root = str(tmp_path / "exchange")
        api = NbGraderAPI(coursedir=CourseDirectory(config=c), config=c)
        nbt.generate_release(api, A)
        inbound = tmp_path / "exchange" / "weat-course" / "inbound"
        mine = inbound / f"alice+{A}+2026-01-01 00:00:00.000000 UTC+abc"
        mine.mkdir(parents=True)
        (mine / f"{A}.ipynb").write_bytes((root / "notebooks" / A / f"{A}.ipynb").read_bytes())
        (mine / "timestamp.txt").write_text("2026-01-01 00:00:00.000000 UTC")
        (mine / "solution.ipynb").symlink_to(root / "solutions" / A / f"{A}.ipynb")
        (mine / "config.py").symlink_to(root / "nbgrader_config.py")
        os.mkfifo(mine / "pipe")
        (mine / "helpers").mkdir()
        (mine / "helpers" / "__init__.py").write_text("")
        (inbound / f"mallory+{A}+2026-01-01 00:00:00.000000 UTC+def").symlink_to(root / "solutions" / A)
        result = api.collect(A)
    assert result["success"], result.get("error") or result.get("log")
    got = root / "submitted" / "alice" / A
    assert sorted(p.name for p in got.iterdir()) == [f"{A}.ipynb", "timestamp.txt"]
    assert not any(p.is_symlink() for p in got.iterdir())
    assert not (root / "submitted" / "mallory" / A / f"{A}.ipynb").exists()


@pytest.mark.parametrize("use_sandbox", [True, False])
def test_the_working_folder_is_not_on_sys_path(tmp_path, use_sandbox):
    """A ``numpy.py``, a ``helpers/`` package and a module beside the notebook (put there before the
    kernel starts, and written by the kernel itself) are never imported: ``sys.path`` holds
    neither ``''`` nor the working folder."""
    from nbformat.v4 import new_notebook
    from traitlets.config import Config

    from helpers.grading.execute import ResilientExecute

    if use_sandbox:
        needs_bwrap()
    write = ("import pathlib\n"
             "pathlib.Path('numpy.py').write_text('raise ImportError(\"local numpy\")')\n"
             "pathlib.Path('helpers').mkdir(exist_ok=True)\n"
             "pathlib.Path('helpers/__init__.py').write_text('raise ImportError(\"local helpers\")')\n"
             "pathlib.Path('course_probe.py').write_text('X = 1')\n")
    nb = new_notebook(cells=[new_code_cell(write),
                             new_code_cell("import numpy, helpers, os, sys\nprint(numpy.__file__)\nprint(helpers.__file__)\n"
                                           "print('' in sys.path, os.getcwd() in sys.path)"),
                             new_code_cell("import course_probe")])
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    work = tmp_path / "course" / "autograded" / "s" / A
    (work / "helpers").mkdir(parents=True)
    (work / "helpers" / "__init__.py").write_text("raise ImportError('local helpers')")
    (work / "numpy.py").write_text("raise ImportError('local numpy')")
    (work / "course_probe.py").write_text("X = 1")
    c = Config()
    c.Sandbox.enabled = use_sandbox
    c.Sandbox.course_root = str(tmp_path / "course")
    with nbt.offline_env(tmp_path):
        ResilientExecute(config=c).preprocess(nb, {"metadata": {"path": str(work)}})
    printed = nb.cells[1].outputs[0].text.split("\n")
    import helpers
    import numpy

    assert printed[0] == numpy.__file__ and printed[1] == helpers.__file__, nb.cells[1].outputs
    assert printed[2] == "False False"
    assert nb.cells[2].outputs[0].ename == "ModuleNotFoundError"


def test_clean_submission_keeps_only_notebooks(tmp_path):
    target = tmp_path / "secret.ipynb"
    target.write_text("{}")
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "a.ipynb").write_text("{}")
    (folder / "timestamp.txt").write_text("2026-01-01 00:00:00.000000 UTC")
    (folder / "b.ipynb").symlink_to(target)
    (folder / "big.ipynb").write_bytes(b" " * (submission.MAX_NOTEBOOK_BYTES + 1))
    (folder / "dir").mkdir()
    (folder / "dir" / "link").symlink_to(target)
    (folder / "<img src=x>.py").write_text("")
    os.mkfifo(folder / "fifo")
    dropped = submission.clean_submission(folder, placeholders=["b.ipynb"])
    assert sorted(p.name for p in folder.iterdir()) == ["a.ipynb", "b.ipynb", "timestamp.txt"]
    placeholder = nbformat.read(str(folder / "b.ipynb"), as_version=4)
    assert not (folder / "b.ipynb").is_symlink() and placeholder.cells == []
    assert placeholder.metadata[submission.PLACEHOLDER]
    assert target.read_text() == "{}"                                   # never followed
    assert "?img?src?x?.py (file)" in dropped and "fifo (named pipe)" in dropped
    assert "b.ipynb (symbolic link), graded as the untouched release" in dropped
    assert any(d.startswith("big.ipynb (notebook over") for d in dropped)
    assert submission.clean_submission(folder) == []


def test_clean_submission_keeps_nbgrader_submission_secret(tmp_path):
    """``nbgrader submit`` writes submission_secret.txt, which release_feedback needs (tests/test_hub.py);
    kept as a small regular file, dropped as a link or when too large."""
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "a.ipynb").write_text("{}")
    (folder / "submission_secret.txt").write_text("ab" * 64)
    assert submission.clean_submission(folder) == [] and (folder / "submission_secret.txt").is_file()
    (folder / "submission_secret.txt").write_bytes(b"0" * (submission.MAX_TIMESTAMP_BYTES + 1))
    assert submission.clean_submission(folder) == [f"submission_secret.txt (file over {submission.MAX_TIMESTAMP_BYTES} bytes)"]
    (folder / "submission_secret.txt").symlink_to(tmp_path / "elsewhere")
    assert submission.clean_submission(folder) == ["submission_secret.txt (symbolic link)"]


def test_submission_hash_neither_follows_nor_blocks(tmp_path):
    from helpers.grading.state import submission_hash

    folder = tmp_path / "sub"
    folder.mkdir()
    target = tmp_path / "target"
    target.write_text("one")
    (folder / "link").symlink_to(target)
    os.mkfifo(folder / "fifo")
    result = []
    t = threading.Thread(target=lambda: result.append(submission_hash(folder)), daemon=True)
    t.start()
    t.join(60)  # a guard against a hang (reading the pipe), not a measurement
    assert result, "submission_hash blocked on a named pipe"
    target.write_text("two")
    assert submission_hash(folder) == result[0]


def test_screen_output_keeps_text_and_raster_images():
    content, dropped = rendering.screen_output("display_data", {
        "data": {"text/plain": "x", "text/html": "<script>1</script>", "image/png": "iVBORw0KGgo=",
                 "image/jpeg": "not base64 <img onerror=1>", "image/svg+xml": "<svg/>",
                 "application/javascript": "alert(1)"},
        "metadata": {"image/png": {"width": "1 onerror=alert(1)"}}, "transient": {"display_id": "d1"}})
    assert content == {"data": {"text/plain": "x", "image/png": "iVBORw0KGgo="}, "metadata": {},
                       "transient": {"display_id": "d1"}}
    assert sorted(dropped) == ["application/javascript (active)", "image/jpeg (active)", "image/svg+xml",
                               "text/html (active)"]
    assert rendering.screen_output("display_data", {"data": {"text/html": "<b>x</b>"}})[0] is None
    stream, _ = rendering.screen_output("stream", {"name": "<script>", "text": ["a", "b"]})
    assert stream == {"name": "stdout", "text": "ab"}


def test_student_text_cannot_leave_its_code_block():
    from nbconvert.exporters import HTMLExporter

    source = "```\n</code></pre><script>alert(1)</script>\n```\n\t<img src=x onerror=alert(2)>\n$\\href{javascript:x}{y}$"
    html = HTMLExporter().markdown2html({}, rendering.as_text(source))
    body = html.split("<pre><code>", 1)[1]
    assert body.count("</code></pre>") == 1 and body.endswith("</code></pre>\n")
    assert "<script>" not in html and "<img" not in html


def test_bwrap_command_gives_the_kernel_size_limited_folders(tmp_path):
    work, private = tmp_path / "course" / "autograded" / "s" / A, tmp_path / "kernel"
    for p in (work / "data", private):
        p.mkdir(parents=True)
    (work / f"{A}.ipynb").write_text("{}")
    (work / "words.txt").write_text("a")
    provided = sandbox.provided_files(work)
    assert provided == [work / "data", work / "words.txt"]
    cmd = sandbox.bwrap_command(["python"], workdir=work, private_dir=private, read_only=[], env={}, disk_mb=7,
                                provided=provided)
    size = ["--size", str(7 * 2**20), "--tmpfs"]
    k = cmd.index(str(work.resolve()))
    assert cmd[k - 3:k] == size and cmd[cmd.index("/tmp") - 3:cmd.index("/tmp")] == size
    assert str(work.resolve()) not in [cmd[i + 1] for i, a in enumerate(cmd) if a == "--bind"]
    for p in provided:
        assert cmd[cmd.index(str(p.resolve())) - 1] == "--ro-bind"
    assert str((work / f"{A}.ipynb").resolve()) not in cmd
    assert sandbox.kernel_env({})["PYTHONSAFEPATH"] == "1"


def test_flag_text_renders_as_text():
    from nbformat.v4 import new_notebook

    from helpers.grading.flags import add_flag, notebook_flags

    nb = new_notebook()
    add_flag(nb, "<b>id</b>", "opened <script>x</script> & [link](javascript:y) $\\href{z}{w}$ `code`")
    (flag,) = notebook_flags(nb)
    assert not set("<>&[]$`\\") & set(flag["reason"] + flag["cell"])
