"""Shared machinery for the tests that drive nbgrader (import it from any test file).

Everything runs in a temporary course folder, never in the repository, with a SQLite gradebook
in that folder, so tests can run in parallel with each other and with people generating
releases. The pieces, in pipeline order:

* :func:`discover_assignments`: every ``solutions/<assignment>/`` that holds a notebook;
* :func:`course_config` / :func:`make_api`: a ``traitlets`` ``Config`` built from the course's own
  ``nbgrader_config.py`` (the Python API does not read that file), pointed at a temporary root;
* :func:`offline_env`: the environment kernels run in (the venv's ``bin`` on ``PATH`` for
  ``alembic`` and the kernel, and a ``sitecustomize`` that refuses and logs any connection to a
  non-local address);
* :func:`make_course`, :func:`generate_release`;
* :func:`fill_solutions` (a perfect submission made from the released notebook),
  :func:`load_mutants` / :func:`apply_mutant` (known-wrong submissions), :func:`submit`;
* :func:`autograde` (all students of one assignment, in a few worker processes) and
  :func:`cell_scores` (per-cell scores read from the gradebook);
* :func:`validate` (``nbgrader.validator.Validator``), :func:`hidden_and_solution_lines`.

The conventions these functions rely on are in ``CONTRIBUTING.md``.
"""
from __future__ import annotations

import atexit
import contextlib
import copy
import functools
import json
import os
import re
import runpy
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from unittest import mock

import nbformat

COURSE_ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS_DIR = COURSE_ROOT / "solutions"
RELEASE_DIR = COURSE_ROOT / "notebooks"
HIDDEN_DIR = COURSE_ROOT / "hidden_tests"
#: the grader's secret in every test course (helpers.grading.judge draws each submission's hidden inputs from it):
#: fixed, so that a test run grades the same inputs every time
JUDGE_SECRET = "course-tests"
MUTANTS_DIR = COURSE_ROOT / "tests" / "mutants"
VENV_BIN = str(Path(sys.executable).parent)

# markers of the nbgrader source format
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
MARKERS = (BEGIN_SOLUTION, END_SOLUTION, BEGIN_HIDDEN, END_HIDDEN)

# Student ids of the synthetic submissions (mutants get "mutant-<k>").
FULL, UNTOUCHED = "full-marks", "untouched-release"


# ---------------------------------------------------------------------------------------------
# Discovery
# ---------------------------------------------------------------------------------------------

def notebook_names(assignment: str, root: Path = COURSE_ROOT) -> list[str]:
    """File names (without ``.ipynb``) of the notebooks of one assignment, sorted."""
    folder = Path(root) / "solutions" / assignment
    return sorted(p.stem for p in folder.glob("*.ipynb"))


def discover_assignments(root: Path = COURSE_ROOT) -> list[str]:
    """Every ``solutions/<assignment>/`` that holds at least one notebook, sorted by name."""
    folder = Path(root) / "solutions"
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and notebook_names(p.name, root))


def require_assignment(assignment: str) -> None:
    """Skip the calling test when the course has no ``solutions/<assignment>/`` (e.g. a trimmed copy)."""
    import pytest

    if assignment not in discover_assignments():
        pytest.skip(f"{assignment} is not in solutions/")


def read_nb(path) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)


def write_nb(nb, path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def grade_id(cell) -> str | None:
    return nbgrader_meta(cell).get("grade_id")


def test_cells(nb, cell_type: str | None = "code") -> list:
    """The graded cells of a notebook (autograded test cells by default; ``None`` for all)."""
    return [c for c in nb.cells
            if nbgrader_meta(c).get("grade") and (cell_type is None or c.cell_type == cell_type)]


class Stopwatch:
    """``with Stopwatch() as t: ...``; then ``t.wall`` (seconds) and ``t.cpu`` (CPU seconds of
    this process and of every child process that ended meanwhile: kernels, workers).

    On a shared machine the wall time depends on the load; the CPU time does not, and
    ``cpu / number of cores`` estimates the wall time on an idle machine.
    """

    @staticmethod
    def _cpu() -> float:
        import resource

        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    def __enter__(self):
        self._w0, self._c0 = time.perf_counter(), self._cpu()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self._w0
        self.cpu = self._cpu() - self._c0


# ---------------------------------------------------------------------------------------------
# Configuration and environment
# ---------------------------------------------------------------------------------------------

def course_config(course_dir, db_url: str | None = None):
    """A ``traitlets`` ``Config`` for a course folder: the settings of the course's
    ``nbgrader_config.py`` (kernel name, per-cell timeout, ``add_missing_cells``, folder names),
    with ``CourseDirectory.root`` set to ``course_dir`` and a SQLite gradebook inside it.

    ``NbGraderAPI`` does not read ``nbgrader_config.py``, so the file is loaded here and the
    settings the grades depend on are checked to be present.
    """
    from helpers.grading.course import load_course_config

    c = load_course_config(COURSE_ROOT)
    for section, key in [("ExecutePreprocessor", "kernel_name"), ("Execute", "timeout"),
                         ("OverwriteCells", "add_missing_cells"), ("CourseDirectory", "source_directory"),
                         ("CourseDirectory", "release_directory")]:
        if key not in c[section]:
            raise AssertionError(f"nbgrader_config.py does not set {section}.{key}; the tests rely on it.")
    course_dir = Path(course_dir).resolve()
    c.CourseDirectory.root = str(course_dir)
    c.CourseDirectory.db_url = db_url or f"sqlite:///{course_dir / 'gradebook.db'}"
    c.Application.log_level = "WARN"
    # Sandboxed kernels (nbgrader_config.py's default) when bubblewrap is installed; without it the
    # notebooks still run (the tests of the sandbox itself skip), unless COURSE_TEST_SANDBOX_REQUIRED=1.
    c.Sandbox.enabled = sandbox_available()
    return c


def sandbox_available() -> bool:
    """bubblewrap is installed; raises when it is not and ``COURSE_TEST_SANDBOX_REQUIRED=1`` (CI).

    ``COURSE_TEST_SANDBOX=0`` turns the sandbox off (for ``benchmarks/per_submission.py``: a kernel in
    bubblewrap's PID namespace is never waited for by the grader, so its CPU time is not counted).
    """
    from helpers.grading.sandbox import SandboxError, find_bwrap

    if os.environ.get("COURSE_TEST_SANDBOX") == "0":
        if os.environ.get("COURSE_TEST_SANDBOX_REQUIRED") == "1":
            raise SandboxError("COURSE_TEST_SANDBOX=0 and COURSE_TEST_SANDBOX_REQUIRED=1 contradict each other")
        return False
    if find_bwrap() is not None:
        return True
    if os.environ.get("COURSE_TEST_SANDBOX_REQUIRED") == "1":
        raise SandboxError("COURSE_TEST_SANDBOX_REQUIRED=1 but bubblewrap (bwrap) is not installed: "
                           "apt-get install bubblewrap")
    return False


def sandbox_args() -> list[str]:
    """The command line's sandbox option: none (the sandbox, with warm kernels) when bubblewrap is installed,
    else ``["--no-sandbox"]``; see :func:`sandbox_available`."""
    return [] if sandbox_available() else ["--no-sandbox"]


def needs_bwrap() -> None:
    """Skip the calling test without bubblewrap, or fail it when ``COURSE_TEST_SANDBOX_REQUIRED=1`` (CI)."""
    import pytest

    from helpers.grading.sandbox import find_bwrap

    if find_bwrap() is None:
        if os.environ.get("COURSE_TEST_SANDBOX_REQUIRED") == "1":
            pytest.fail("COURSE_TEST_SANDBOX_REQUIRED=1 but bubblewrap (bwrap) is not installed")
        pytest.skip("bubblewrap (bwrap) is not installed (apt-get install bubblewrap)")


def make_api(course_dir, db_url: str | None = None, **sandbox):
    """``NbGraderAPI`` for a course folder, configured by :func:`course_config`; ``sandbox`` sets
    ``c.Sandbox`` options (``enabled=False``, ``warm_kernels=False``)."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    c = course_config(course_dir, db_url)
    for name, value in sandbox.items():
        setattr(c.Sandbox, name, value)
    return NbGraderAPI(coursedir=CourseDirectory(config=c), config=c)


_SITECUSTOMIZE = r'''
"""Installed by tests/nbgrader_tools.py: notebooks under test must not use the network."""
import os
import socket
import sys

_LOG = os.environ.get("COURSE_TEST_NETWORK_LOG")
_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


def _remote(sock, address):
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
        return False
    host = str(address[0])
    return not (host in ("", "localhost", "::1", "0.0.0.0") or host.startswith("127."))


def _refuse(sock, address):
    if _LOG:
        with open(_LOG, "a") as fh:
            fh.write(f"{os.getpid()} {address!r} {' '.join(sys.argv)[:300]}\n")
    raise OSError(f"Network access is disabled while the course tests run notebooks (tried {address!r}).")


def connect(self, address):
    if _remote(self, address):
        _refuse(self, address)
    return _connect(self, address)


def connect_ex(self, address):
    if _remote(self, address):
        _refuse(self, address)
    return _connect_ex(self, address)


socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
'''


@functools.lru_cache(maxsize=None)
def _offline_site(pid: int) -> Path:
    site = Path(tempfile.mkdtemp(prefix=f"weat-offline-site-{pid}-"))
    atexit.register(shutil.rmtree, site, True)
    return site


def offline_site() -> Path:
    """This process's folder holding the network-refusing ``sitecustomize.py`` (made once per process, and
    written again if something removed it)."""
    site = _offline_site(os.getpid())
    if not (site / "sitecustomize.py").is_file():
        site.mkdir(parents=True, exist_ok=True)
        (site / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    return site


@contextlib.contextmanager
def offline_env(work_dir, fresh_log: bool = True):
    """Environment for running notebooks and nbgrader: yields the path of the network log.

    The log is emptied on entry, unless ``fresh_log`` is false (a later step of the same course, which
    adds to it).

    * ``dirname(sys.executable)`` (the venv's ``bin``) first on ``PATH``: nbgrader calls the
      ``alembic`` executable when it creates a gradebook, and the kernel is found there;
    * a ``sitecustomize.py`` on ``PYTHONPATH`` that makes every kernel refuse connections to
      non-local addresses and append them to the log (local ZeroMQ traffic is unaffected);
    * ``MPLBACKEND=Agg`` so figures never need a display.

    The ``sitecustomize.py`` is the same for every course, so it lives in one folder per test process
    (:func:`offline_site`) rather than in ``work_dir``: the kernels' ``PYTHONPATH`` is then the same for
    every course of a process, so the grader's warm template for a sandbox configuration
    (:func:`helpers.grading.warm.template_for`, keyed by the sandbox command, ``PYTHONPATH`` included) serves
    the courses of later tests too instead of being started again for each (about 3 CPU-s each).
    """
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    site = offline_site()
    log = work_dir / "network.log"
    if fresh_log or not log.exists():
        log.write_text("")
    changes = {
        "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p),
        "COURSE_TEST_NETWORK_LOG": str(log),
        "MPLBACKEND": "Agg",
    }
    with mock.patch.dict(os.environ, changes):  # restores the environment as it was
        yield log


# ---------------------------------------------------------------------------------------------
# Course folder, release
# ---------------------------------------------------------------------------------------------

def make_course(course_dir, assignments, gradebook: bool = True, config: bool = False) -> Path:
    """A fresh course folder with ``solutions/<a>/`` and ``hidden_tests/<a>.py`` copied from the repository
    for each assignment, the grader's secret (``.judge-secret``) set to :data:`JUDGE_SECRET`, and, with
    ``gradebook``, an empty ``gradebook.db`` made as the grader makes one (:func:`helpers.grading.course.
    create_gradebook`: the file nbgrader makes, without its ``alembic`` process of 2.5 CPU-s;
    ``tests/test_grading.py`` compares the two). Without it, nbgrader's first command makes it, as in a new
    instructor's course. With ``config``, the course's own ``nbgrader_config.py`` too."""
    from helpers.grading.course import create_gradebook

    course_dir = Path(course_dir)
    course_dir.mkdir(parents=True, exist_ok=True)
    if gradebook:
        create_gradebook(f"sqlite:///{course_dir / 'gradebook.db'}")
    (course_dir / "hidden_tests").mkdir(exist_ok=True)
    for a in assignments:
        shutil.copytree(SOLUTIONS_DIR / a, course_dir / "solutions" / a,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        if (HIDDEN_DIR / f"{a}.py").is_file():
            shutil.copy(HIDDEN_DIR / f"{a}.py", course_dir / "hidden_tests" / f"{a}.py")
    (course_dir / ".judge-secret").write_text(JUDGE_SECRET + "\n")
    if config:
        shutil.copy(COURSE_ROOT / "nbgrader_config.py", course_dir / "nbgrader_config.py")
    return course_dir


def _check_result(result: dict, what: str) -> None:
    if not result.get("success"):
        raise AssertionError(f"{what} failed:\n{result.get('error', '')}\n{result.get('log', '')}")


def generate_release(api, assignment: str) -> float:
    """``generate_assignment`` (forced, creating the assignment in the gradebook); returns seconds."""
    t0 = time.perf_counter()
    _check_result(api.generate_assignment(assignment, force=True, create=True), f"generate_assignment {assignment}")
    return time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------
# Submissions
# ---------------------------------------------------------------------------------------------

def strip_solution_markers(source: str) -> str:
    """The source with the ``### BEGIN/END SOLUTION`` lines removed (what a student would write)."""
    return "\n".join(line for line in source.split("\n")
                     if line.strip() not in (BEGIN_SOLUTION, END_SOLUTION))


def fill_solutions(release_nb, solution_nb):
    """A copy of the released notebook with every solution cell's content taken from the source.

    Cells are matched by ``grade_id``, so this is what a student who solved everything submits:
    the released notebook (checksums, locked cells and all) with their answers typed in.
    """
    answers = {grade_id(c): strip_solution_markers(c.source)
               for c in solution_nb.cells if nbgrader_meta(c).get("solution")}
    nb = copy.deepcopy(release_nb)
    filled = set()
    for cell in nb.cells:
        gid = grade_id(cell)
        if nbgrader_meta(cell).get("solution") and gid in answers:
            cell.source = answers[gid]
            filled.add(gid)
    missing = set(answers) - filled
    if missing:
        raise AssertionError(f"Solution cells missing from the release: {sorted(missing)}")
    return nb


def mutants_file(assignment: str) -> Path:
    return MUTANTS_DIR / f"{assignment}.py"


def load_mutants(assignment: str) -> list[dict]:
    """The ``MUTANTS`` list of ``tests/mutants/<assignment>.py`` ([] if there is no file), checked."""
    path = mutants_file(assignment)
    if not path.is_file():
        return []
    mutants = runpy.run_path(str(path)).get("MUTANTS")
    assert isinstance(mutants, list), f"{path} must define a list MUTANTS"
    names = set()
    for m in mutants:
        assert isinstance(m, dict) and {"name", "cell", "fails"} <= set(m) and len({"source", "replace"} & set(m)) == 1, (
            f"{path}: each mutant needs name, cell, fails and either replace (edits of the worked solution) "
            f"or source (a whole new cell); got {m!r:.200}")
        if "replace" in m:
            assert m["replace"] and all(isinstance(e, (list, tuple)) and len(e) == 2 for e in m["replace"]), (
                f"{path}: mutant {m['name']!r}: replace must be a non-empty list of (old, new) pairs")
        assert isinstance(m["fails"], (list, tuple)) and m["fails"], f"{path}: mutant {m['name']!r} fails no cell"
        if "was" in m:  # the cells it lost before each function was judged on its own (a chain that cascaded)
            assert set(m["fails"]) < set(m["was"]), (
                f"{path}: mutant {m['name']!r}: 'was' lists the cells it lost when its mistake cascaded along a chain of "
                f"calls, so it must hold every cell of 'fails' and more")
        assert m["name"] not in names, f"{path}: two mutants are called {m['name']!r}"
        names.add(m["name"])
    return mutants


def apply_mutant(notebooks: dict, mutant: dict) -> dict:
    """Copies of ``{name: notebook}`` with the cell ``mutant["cell"]`` changed by the mutant.

    A mutant either edits the worked solution (``replace``: ``(old, new)`` pairs, applied in order,
    each ``old`` occurring exactly once) or rewrites the whole cell (``source``). ``notebooks`` are
    filled with the worked solutions (:func:`fill_solutions`), so ``old`` is solution text.
    """
    out = copy.deepcopy(notebooks)
    hits = [(name, cell) for name, nb in out.items() for cell in nb.cells if grade_id(cell) == mutant["cell"]]
    assert len(hits) == 1, f"mutant {mutant['name']!r}: cell {mutant['cell']!r} found {len(hits)} times"
    _, cell = hits[0]
    assert nbgrader_meta(cell).get("solution"), (
        f"mutant {mutant['name']!r}: {mutant['cell']!r} is not a solution cell (students can only change those)")
    source = mutant.get("source")
    if source is None:  # edits of the worked solution: each `old` must occur exactly once
        source = cell.source
        for old, new in mutant["replace"]:
            n = source.count(old)
            assert n == 1, f"mutant {mutant['name']!r}: {old!r} occurs {n} times in {mutant['cell']!r}, not once"
            source = source.replace(old, new)
    assert cell.source.strip() != source.strip(), f"mutant {mutant['name']!r} equals the solution"
    cell.source = source
    return out


def submit(course_dir, assignment: str, student: str, notebooks: dict) -> None:
    """Write ``{name: notebook}`` to ``submitted/<student>/<assignment>/`` (plus a timestamp)."""
    folder = Path(course_dir) / "submitted" / student / assignment
    for name, nb in notebooks.items():
        write_nb(nb, folder / f"{name}.ipynb")
    (folder / "timestamp.txt").write_text("2026-01-01 00:00:00.000000 UTC")


# ---------------------------------------------------------------------------------------------
# Autograding
# ---------------------------------------------------------------------------------------------

def cell_scores(db_url: str, assignment: str, student: str) -> dict:
    """``{grade_id: grade}`` for one submission, each grade a dict with ``score``, ``max_score``,
    ``cell_type``, ``notebook`` and ``needs_manual_grade`` (read from the gradebook)."""
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(db_url) as gb:
        sub = gb.find_submission(assignment, student)
        for nb in sub.notebooks:
            for g in nb.grades:
                out[g.name] = {"score": float(g.score), "max_score": float(g.max_score), "cell_type": g.cell_type,
                               "needs_manual_grade": bool(g.needs_manual_grade), "auto_score": g.auto_score,
                               "notebook": nb.name}
    return out


def process_facts(_=None) -> dict:
    """Run in a worker process of :func:`helpers.grading.run` (tests/test_grading.py): what it inherited."""
    with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
        parent = f.read().replace(b"\0", b" ").decode(errors="replace")
    return {"pid": os.getpid(), "ppid": os.getppid(), "parent": parent, "gensim": "gensim" in sys.modules,
            "marker": os.environ.get("COURSE_TEST_MARKER"), "path": os.environ.get("PATH"), "cwd": os.getcwd(),
            "sys_path": list(sys.path)}


def _autograde_worker(course_dir: str, assignment: str, students: list[str], env: dict) -> dict:
    """Run in a worker process: autograde every submission in ``course_dir`` (one nbgrader run,
    ``student_id="*"``) and return the scores of ``students``."""
    os.environ.update(env)
    api = make_api(course_dir)
    _check_result(api.autograde(assignment, "*", force=True, create=True), f"autograde {assignment} ({students})")
    return {s: cell_scores(api.coursedir.db_url, assignment, s) for s in students}


def parallel_processes(at_most: int) -> int:
    """How many processes a test step may run at once: one under pytest-xdist, whose workers already keep the
    cores busy (a second process only adds work: a second warm template, a second run of a worked solution),
    else the CPU count, at most ``at_most``."""
    return 1 if os.environ.get("PYTEST_XDIST_WORKER") else max(1, min(os.cpu_count() or 1, at_most))


def autograde_workers(n_students: int) -> int:
    """How many processes :func:`autograde` uses: ``COURSE_TEST_WORKERS``, else :func:`parallel_processes`
    (at most 4; under xdist one process forks every kernel from one warm template, :mod:`helpers.grading.warm`)."""
    wanted = int(os.environ.get("COURSE_TEST_WORKERS", "0")) or parallel_processes(4)
    return max(1, min(wanted, n_students))


def autograde(course_dir, assignment: str, students: list[str], workers: int | None = None) -> tuple[dict, float]:
    """Autograde the submissions of ``students`` to ``assignment``; returns (scores, seconds).

    ``scores[student]`` is :func:`cell_scores`. ``course_dir`` must hold the release, the
    gradebook made by :func:`generate_release` and the submissions (:func:`submit`). nbgrader
    starts one kernel after another, so the students are split over ``workers`` processes
    (default :func:`autograde_workers`); each grades its share in one nbgrader run, in its own
    copy of the course folder and gradebook (SQLite does not like concurrent writers). The
    autograded notebooks are copied back to ``course_dir/autograded/<student>/``.
    """
    course_dir = Path(course_dir)
    workers = workers or autograde_workers(len(students))
    shares = [share for share in (students[k::workers] for k in range(workers)) if share]
    env = {k: os.environ[k] for k in ("PATH", "PYTHONPATH", "COURSE_TEST_NETWORK_LOG", "MPLBACKEND")
           if k in os.environ}
    t0 = time.perf_counter()
    dirs = []
    for k, share in enumerate(shares):
        d = course_dir.parent / f"{course_dir.name}-{assignment}-worker{k}"
        if d.exists():
            shutil.rmtree(d)
        shutil.copytree(course_dir, d, ignore=shutil.ignore_patterns("autograded", "feedback", "submitted"))
        for s in share:
            shutil.copytree(course_dir / "submitted" / s / assignment, d / "submitted" / s / assignment)
        dirs.append(d)
    scores: dict = {}
    if len(shares) == 1:
        scores.update(_autograde_worker(str(dirs[0]), assignment, shares[0], env))
    else:
        with ProcessPoolExecutor(max_workers=len(shares), mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_autograde_worker, str(d), assignment, share, env) for d, share in zip(dirs, shares)]
            for f in futures:
                scores.update(f.result())
    for d, share in zip(dirs, shares):
        for s in share:
            dest = course_dir / "autograded" / s / assignment
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(d / "autograded" / s / assignment, dest)
        shutil.rmtree(d, ignore_errors=True)
    return scores, time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------
# Leak checks
# ---------------------------------------------------------------------------------------------

def _significant(line: str) -> bool:
    """Lines that could identify solution or hidden-test text (not blank, not brackets or short stubs)."""
    s = line.strip()
    return len(s) >= 8 and re.search(r"[A-Za-z]", s) is not None and s not in MARKERS


def hidden_cases(assignment: str) -> dict:
    """``{grade_id: source}``: the hidden tests of each test cell, from ``hidden_tests/<assignment>.py``
    (the functions named like a cell; {} when the module does not exist)."""
    import ast

    path = HIDDEN_DIR / f"{assignment}.py"
    if not path.is_file():
        return {}
    text = path.read_text()
    return {node.name: ast.get_source_segment(text, node) for node in ast.parse(text).body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")}


#: the line a test cell ends with, where its hidden tests used to be (helpers.grading.judge runs them)
HIDDEN_MARKER = "# Hidden tests of this exercise run in the grader, outside this notebook ({assignment}: {grade_id})."


def hidden_and_solution_lines(solution_nb, assignment: str | None = None) -> dict:
    """``{"hidden": {...}, "solution": {...}}``: significant lines that occur *only* inside
    ``### BEGIN HIDDEN TESTS`` or ``### BEGIN SOLUTION`` blocks of the source notebook, or in the
    assignment's hidden-test module ``hidden_tests/<assignment>.py`` (a line that also occurs
    elsewhere in the notebook, e.g. ``with quiet():``, is not a leak)."""
    blocks = {"hidden": set(), "solution": set()}
    for case in (hidden_cases(assignment) if assignment is not None else {}).values():
        # the hidden tests' own lines (an import line is anybody's)
        blocks["hidden"].update(s for s in (line.strip() for line in case.split("\n"))
                                if not s.startswith(("import ", "from ")))
    elsewhere = set()
    for cell in solution_nb.cells:
        if cell.cell_type != "code":
            lines = {line.strip() for line in cell.source.split("\n")}
            if nbgrader_meta(cell).get("solution"):  # a model answer: its text is replaced in the release
                blocks["solution"].update(lines)
            else:
                elsewhere.update(lines)
            continue
        state = None
        for line in cell.source.split("\n"):
            s = line.strip()
            if s == BEGIN_HIDDEN:
                state = "hidden"
            elif s == BEGIN_SOLUTION:
                state = "solution"
            elif s in (END_HIDDEN, END_SOLUTION):
                state = None
            elif state:
                blocks[state].add(s)
            else:
                elsewhere.add(s)
    return {k: {s for s in v - elsewhere if _significant(s)} for k, v in blocks.items()}


def stderr_outputs(cell) -> str:
    """Everything a code cell wrote to stderr."""
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


def pretty(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, default=str)


def run_nbval(executed: Path, tmp_path: Path, env: dict | None = None) -> tuple[dict, set]:
    """One ``pytest --nbval`` run over the notebooks in ``executed`` (a copy of ``executed/``, with its
    sanitizers), as they were executed (``PYTHONHASHSEED=0``, matplotlib's default backend, figures recorded as
    ``python -m helpers site --execute-only`` records them), in ``env`` (default: this process's), with the
    figure check of ``tests/figure_check.py`` (what nbval skips: each figure's pixels and alt text). Returns the
    failed cells (name -> the message) and the passed ones."""
    import subprocess
    import xml.etree.ElementTree as ET

    import figure_check
    from helpers.site import SANITIZE_FILE

    report = tmp_path / f"nbval-{os.getpid()}-{time.monotonic_ns()}.xml"
    env = dict(os.environ if env is None else env, PYTHONHASHSEED="0")  # as executed (helpers site --execute-only)
    env = figure_check.kernel_env(tmp_path / f"home-{time.monotonic_ns()}", env)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parent), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("MPLBACKEND", None)
    res = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "-p", "figure_check",
                          "--nbval-sanitize-with", str(executed / SANITIZE_FILE), "-o", "addopts=",
                          "-p", "no:cacheprovider", "-q", f"--junitxml={report}", str(executed)],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert report.is_file(), f"nbval did not run:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    failed, passed = {}, set()
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if bad is not None:
            failed[name] = (bad.get("message") or "") + (bad.text or "")
        elif case.find("skipped") is None:
            passed.add(name)
    return failed, passed


async def start_sandbox_kernel(course: Path, **settings):
    """A kernel started as the grader starts one (:class:`helpers.grading.sandbox.SandboxKernelManager`), for the
    course folder ``course``, in ``course/autograded/s/a``, with ``Sandbox`` settings ``settings``; returns the
    manager and a ready client."""
    from traitlets.config import Config

    from helpers.grading.sandbox import SandboxKernelManager

    config = Config()
    config.Sandbox.course_root = str(course)
    for k, v in settings.items():
        setattr(config.Sandbox, k, v)
    workdir = course / "autograded" / "s" / "a"
    workdir.mkdir(parents=True, exist_ok=True)
    km = SandboxKernelManager(config=config)
    await km.start_kernel(cwd=str(workdir))
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=120)
    return km, kc


async def run_code(kc, code: str, timeout: float = 60) -> str:
    """Run ``code`` in the kernel of ``kc`` as a cell; what it printed, with any error as ``Name: message``."""
    msg_id = kc.execute(code)
    out = []
    while True:
        msg = await kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append(f"{msg['content']['ename']}: {msg['content']['evalue']}")
        elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return "".join(out)


async def stop_kernel(km, kc) -> None:
    """Stop the client's channels and shut the kernel down."""
    kc.stop_channels()
    await km.shutdown_kernel()


def kernel_kind(km) -> str:
    """The kind of process the kernel runs in (``WarmKernel``, ``Popen``), or ``ended``."""
    return type(km.provisioner.process).__name__ if km.provisioner.process is not None else "ended"
