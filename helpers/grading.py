"""Grading a whole class in one command: ``python -m helpers grade`` (run from the course root).

For every assignment someone submitted (a ``submitted/<student>/<assignment>/`` folder) and every
such student folder this runs nbgrader's autograder, generates the feedback HTML (without hidden
tests) and exports the grades. It reads ``nbgrader_config.py`` from the course root, like the
``nbgrader`` command, so a PostgreSQL gradebook (``CourseDirectory.db_url``) works the same.

Grading fails loudly, never quietly:

* before any student, :func:`check_worked_solution` grades each assignment's worked solution as a
  canary, in the same sandbox, kernel and judge, in a scratch gradebook: if it does not get every
  automatic point, :class:`GradingStopped` says which cells and what error, and nothing is graded;
  the gradebook must know the assignment with the source's graded cells (it is generated when it
  is unknown or known only by a due date);
* a submission nbgrader cannot grade reports nbgrader's real error (:func:`nbgrader_error`) and
  leaves no record in the gradebook; a run with such a failure writes no export
  (:func:`blocking_failures`);
* exports cover the assignments that were given (:func:`given_assignments`), ``flags.csv`` every
  open flag of every assignment (:func:`helpers.flags.open_flags`); :func:`regenerate_feedback`
  (``python -m helpers feedback``) writes feedback again after manual grading, and copies it for an LMS.

* :func:`grade_submission` grades one submission; :func:`grade_class` grades many in ``workers``
  processes at once (one progress bar) and skips submissions already graded whose files, and the
  assignment's source (its tests), have not changed (SHA-256s per submission in
  ``autograded/.grading-state.json``) unless ``force=True``.
* A grading process that dies (killed by the system for memory, say) costs only the submission it
  was grading: the submissions it took down with it are graded again, each suspect alone in a
  fresh process; one that kills its process even alone is reported failed and flagged
  (:func:`helpers.flags.flag_submission`), and graded alone on later runs too.
* Manual scores survive a regrade, and so does their "graded" state when the submission is
  unchanged and nothing was flagged (nbgrader alone puts every manually graded cell back into the
  manual-grading queue).
* A SQLite gradebook gets a busy timeout, so parallel workers wait for each other's short writes
  instead of failing; a submission that still meets a locked database is graded again.
* Exports: nbgrader's ``grades.csv``; ``grades_lms.csv`` (one row per student, one column per
  assignment, ``missing`` for no submission, ``8.0 (late)`` for a late one), ``question_stats.csv``
  and ``question_stats.png`` (mean score and share of full marks per graded cell), ``flags.csv``.
* :class:`ShortTracebacks` (feedback) and :class:`LatePenaltyPerDay` (late policy) are nbgrader
  plugins that ``nbgrader_config.py`` names.
"""
from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade
from traitlets import Float

__all__ = ["GradeReport", "grade_submission", "grade_class", "load_course_config", "submission_hash",
           "summary", "export_lms", "export_question_stats", "write_flags", "write_exports", "ShortTracebacks",
           "LatePenaltyPerDay", "default_workers", "GradingStopped", "CanaryReport", "check_worked_solution",
           "fill_worked_solution", "nbgrader_error", "submitted_assignments", "given_assignments",
           "blocking_failures", "regenerate_feedback", "FeedbackReport", "autograded_assignments"]

STATE_FILE = ".grading-state.json"   # in autograded/: {"<assignment>/<student>": {"sha256": ..., "died": ...}}
SQLITE_TIMEOUT = 120                 # seconds a worker waits for another worker's gradebook write
DIED = ("The grading process died while grading this submission on its own (for example killed by the system "
        "for using too much memory). The submission was not graded; it is flagged, and it is graded on its own "
        "on later runs so that it cannot take other submissions down with it.")
FLAG_COLUMNS = ["assignment", "student", "notebook", "cell", "reason"]


@dataclass
class GradeReport:
    """One submission: assignment, student, score (after any late penalty), maximum, whether nbgrader
    succeeded, its error, the flags raised (dicts as :func:`helpers.flags.read_flags`), whether it was
    skipped as already graded, how many seconds late it was submitted, and whether its grading
    process died even when it was graded alone."""

    assignment: str
    student: str
    score: float
    max_score: float
    success: bool
    error: str = ""
    flags: list = field(default_factory=list)
    skipped: bool = False
    seconds_late: float = 0.0
    died: bool = False


def load_course_config(root: str | os.PathLike):
    """The traitlets ``Config`` of ``root/nbgrader_config.py`` (nbgrader's Python API does not read it itself).

    Parameters
    ----------
    root : path
        The course root.

    Returns
    -------
    traitlets.config.Config
        The course's configuration, with ``CourseDirectory.root`` set to ``root``.

    Raises
    ------
    FileNotFoundError
        ``root`` has no ``nbgrader_config.py`` (run from the course root).
    """
    from traitlets.config.loader import PyFileConfigLoader

    root = Path(root)
    if not (root / "nbgrader_config.py").is_file():
        raise FileNotFoundError(f"No nbgrader_config.py in {root}; run this from the course root folder.")
    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    cfg.CourseDirectory.root = str(root)
    return cfg


def default_workers() -> int:
    """The number of cores this process may use (``os.process_cpu_count`` or the affinity mask).

    Returns
    -------
    int
        At least 1.
    """
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


@contextlib.contextmanager
def _bin_on_path():
    """The environment's ``bin`` first on ``PATH`` for the duration (nbgrader creates a gradebook
    with the ``alembic`` executable); the previous ``PATH`` is restored afterwards."""
    saved = os.environ.get("PATH")
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + (saved or "")
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = saved


def _sandboxed(cfg, sandbox: bool):
    """Apply ``helpers.sandbox.configure`` when that module exists (helper "sandbox" owns it)."""
    try:
        from . import sandbox as _sandbox_module
    except ImportError:
        return cfg
    return _sandbox_module.configure(cfg, sandbox=sandbox)


def _read_flags(db_url: str, assignment: str, student: str | None = None) -> list[dict]:
    try:
        from .flags import read_flags
    except ImportError:  # helpers.flags not installed yet: nothing can be flagged
        return []
    return [f for f in read_flags(db_url, [assignment]) if student is None or f["student"] == student]


def _course(root, sandbox: bool, scratch: Path | None = None):
    """``(config, NbGraderAPI)`` for the course at ``root``; a SQLite gradebook gets a busy timeout.

    With ``scratch`` (a folder), the gradebook and the release, submitted, autograded and feedback
    folders are in ``scratch`` instead: the course's source, hidden tests, grader's secret, sandbox
    and configuration are the course's own, nothing of the course's grading state is touched."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    root = Path(root).resolve()
    cfg = load_course_config(root)
    cfg = _sandboxed(cfg, sandbox)
    if scratch is not None:
        scratch = Path(scratch).resolve()
        cfg.CourseDirectory.db_url = f"sqlite:///{scratch / 'gradebook.db'}"
        for step in ("release", "submitted", "autograded", "feedback"):
            cfg.CourseDirectory[f"{step}_directory"] = str(scratch / step)
    url = CourseDirectory(config=cfg).db_url
    if url.startswith("sqlite:") and "timeout=" not in url:
        url += ("&" if "?" in url else "?") + f"timeout={SQLITE_TIMEOUT}"
    cfg.CourseDirectory.db_url = url
    return cfg, NbGraderAPI(coursedir=CourseDirectory(config=cfg), config=cfg)


def _entries(folder: str, prefix: str = ""):
    """``(relative name, path, lstat)`` of everything under ``folder``, sorted; links are not followed."""
    import stat

    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if e.name == ".ipynb_checkpoints":
            continue
        st = e.stat(follow_symlinks=False)
        yield prefix + e.name, e.path, st
        if stat.S_ISDIR(st.st_mode):
            yield from _entries(e.path, prefix + e.name + "/")


def submission_hash(folder: str | os.PathLike) -> str:
    """SHA-256 of a submission folder: every regular file's relative name and contents, and the
    name and type of everything else (links, pipes), sorted by name.

    Nothing is followed or opened but regular files (a link to the solutions or a pipe in a
    submission must neither be read with the grader's rights nor block it).

    Parameters
    ----------
    folder : path
        A submission folder (``submitted/<student>/<assignment>/``) or an assignment's source.

    Returns
    -------
    str
        The hex digest; the same files give the same digest, any change in a name or a byte another.
    """
    import stat

    h = hashlib.sha256()
    for name, path, st in _entries(os.fspath(folder)):
        if stat.S_ISDIR(st.st_mode):
            continue
        h.update(name.encode("utf-8", "surrogateescape") + b"\0")
        if not stat.S_ISREG(st.st_mode):
            h.update(f"<{stat.S_IFMT(st.st_mode):o}>".encode() + b"\0")
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            h.update(f"<{exc.errno}>".encode() + b"\0")
            continue
        with os.fdopen(fd, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


def _cell_sources(folder: Path, notebook: str) -> dict:
    """``{grade_id: source}`` of the graded cells of ``folder/<notebook>.ipynb`` ({} if unreadable)."""
    try:
        cells = json.loads((folder / f"{notebook}.ipynb").read_text()).get("cells", [])
    except (OSError, ValueError):
        return {}
    from .flags import grade_id

    out = {}
    for cell in cells:
        gid = grade_id(cell)
        if gid:
            src = cell.get("source", "")
            out[gid] = "".join(src) if isinstance(src, list) else src
    return out


def _manual_grades(gb, assignment: str, student: str, autograded: Path) -> dict:
    """``{(notebook, grade_id): (auto_score, cell source)}`` of the cells a person has graded (manual
    score given, not waiting for manual grading), with the source last autograded."""
    from nbgrader.api import MissingEntry

    try:
        sub = gb.find_submission(assignment, student)
    except MissingEntry:
        return {}
    out = {}
    for nb in sub.notebooks:
        sources = None
        for g in nb.grades:
            if g.manual_score is not None and not g.needs_manual_grade:
                sources = _cell_sources(autograded, nb.name) if sources is None else sources
                if g.name in sources:
                    out[(nb.name, g.name)] = (g.auto_score, sources[g.name])
    return out


def _score(gb, assignment: str, student: str) -> tuple[float, float, float]:
    """``(score after late penalty, max_score, seconds late)`` from the gradebook."""
    sub = gb.find_submission(assignment, student)
    late = float(sub.total_seconds_late or 0.0)
    return max(0.0, float(sub.score) - float(sub.late_submission_penalty or 0.0)), float(sub.max_score), late


_GENERIC = ("Please see the", "There was an error processing", "Traceback (most recent call last)")


def nbgrader_error(result: dict) -> str:
    """The real cause of a failed nbgrader API call, in one line.

    nbgrader's API returns ``{"success", "error", "log"}``; when a converter fails, ``error`` is only
    "Please see the above traceback" and the cause is in ``log`` (its ``[ERROR]`` lines and the last
    line of the traceback printed there).

    Parameters
    ----------
    result : dict
        What ``NbGraderAPI.autograde`` (or ``generate_assignment``, ``generate_feedback``) returned.

    Returns
    -------
    str
        The error messages of the log, joined by ``"; "`` (each once); the last line of ``error``
        when the log has none; ``""`` for a success.
    """
    if result.get("success"):
        return ""
    messages: list[str] = []

    def add(text: str) -> None:
        text = text.strip()
        if text and not text.startswith(_GENERIC) and not any(text in m for m in messages):
            messages.append(text)

    lines = (result.get("log") or "").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("[ERROR]"):
            text = line[len("[ERROR]"):].strip()
            if text.startswith("Traceback (most recent call last)"):
                block = []
                i += 1
                while i < len(lines) and (lines[i].startswith((" ", "\t")) or not lines[i].strip()):
                    if lines[i].strip():
                        block.append(lines[i].strip())
                    i += 1
                if block:  # "package.module.SomeError: message": the message, named by its class
                    name, _, message = block[-1].partition(": ")
                    add(f"{name.rsplit('.', 1)[-1]}: {message}" if message else name)
                continue
            add(text)
        i += 1
    if not messages:
        tail = [x for x in (result.get("error") or "").strip().splitlines() if x.strip()]
        messages.append(tail[-1].strip() if tail else "nbgrader failed without saying why (run it with --debug)")
    return "; ".join(messages)


def _has_submission(gb, assignment: str, student: str) -> bool:
    from nbgrader.api import MissingEntry

    try:
        gb.find_submission(assignment, student)
    except MissingEntry:
        return False
    return True


def _has_student(gb, student: str) -> bool:
    from nbgrader.api import MissingEntry

    try:
        gb.find_student(student)
    except MissingEntry:
        return False
    return True


def _forget(db_url: str, assignment: str, student: str, *, student_too: bool) -> None:
    """Remove what a failed autograde left in the gradebook: the submission record (and the student,
    when grading created it and it has no other submission), so the gradebook is as it was."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            gb.remove_submission(assignment, student)
        except MissingEntry:
            pass
        if student_too:
            try:
                if not gb.find_student(student).submissions:
                    gb.remove_student(student)
            except MissingEntry:
                pass


def grade_submission(root: str | os.PathLike, assignment: str, student: str, *, sandbox: bool = True,
                     feedback: bool = True) -> GradeReport:
    """Autograde one submission (and write its feedback), keeping the work of human graders.

    Safe to call in a separate process: it reads ``root/nbgrader_config.py`` itself. The gradebook
    must know the assignment (:func:`grade_class` makes sure of it).

    Parameters
    ----------
    root : path
        The course root (the folder with ``nbgrader_config.py``).
    assignment, student : str
        The submission ``root/submitted/<student>/<assignment>/``.
    sandbox : bool
        Run the kernel in the bubblewrap sandbox (``helpers.sandbox.configure``).
    feedback : bool
        Generate ``feedback/<student>/<assignment>/*.html`` (without hidden tests).

    Returns
    -------
    GradeReport
        ``success`` is False, with nbgrader's error (:func:`nbgrader_error`), when nbgrader could not
        grade it; a submission the gradebook did not have before is then removed from it again (and
        the student, when grading created the record), so a failure leaves no empty record behind.

    Notes
    -----
    nbgrader's ``SaveAutoGrades`` keeps manual scores but marks every cell that has one as needing
    manual grading again. Here a cell a person had graded goes back to "graded" when its content and
    its automatic score are unchanged and no flag names it (or the whole notebook); otherwise it
    stays in the queue, with the person's score.
    """
    from nbgrader.api import Gradebook, MissingEntry

    cfg, api = _course(root, sandbox)
    db_url = api.coursedir.db_url
    autograded = Path(api.coursedir.format_path(api.coursedir.autograded_directory, student, assignment))
    with Gradebook(db_url) as gb:
        before = _manual_grades(gb, assignment, student, autograded)
        existed, student_existed = _has_submission(gb, assignment, student), _has_student(gb, student)
    result = api.autograde(assignment, student, force=True, create=True)
    ok = bool(result.get("success"))
    error = "" if ok else nbgrader_error(result)
    if not ok and not existed:  # nbgrader created an empty submission record before it failed
        _forget(db_url, assignment, student, student_too=not student_existed)
    flags = _read_flags(db_url, assignment, student)
    if ok and before:
        flagged = {(f["notebook"], f["cell"]) for f in flags}
        whole = {f["notebook"] for f in flags if f["cell"] is None}
        with Gradebook(db_url) as gb:
            sub = gb.find_submission(assignment, student)
            for nb in sub.notebooks:
                sources = _cell_sources(autograded, nb.name)
                for g in nb.grades:
                    key = (nb.name, g.name)
                    if (key in before and g.manual_score is not None and (g.auto_score, sources.get(g.name)) == before[key]
                            and key not in flagged and nb.name not in whole):
                        g.needs_manual_grade = False
            gb.db.commit()
    if ok and feedback:
        res = api.generate_feedback(assignment, student, force=True)
        if not res.get("success"):
            ok, error = False, "generate_feedback failed: " + nbgrader_error(res)
    with Gradebook(db_url) as gb:
        try:
            score, max_score, late = _score(gb, assignment, student)
        except MissingEntry:
            score, max_score, late = 0.0, 0.0, 0.0
    return GradeReport(assignment, student, score, max_score, ok, error, flags, False, late)


# ---------------------------------------------------------------------------------------------
# Before any student: what grading needs, and the worked solution as a canary
# ---------------------------------------------------------------------------------------------

class GradingStopped(RuntimeError):
    """Grading stopped before any submission was graded; the message says why and what to do."""


CANARY = "worked-solution"   # the canary's student id, in its own scratch gradebook only
# written in two parts so that this file, if it ever ships to students, holds no marker line
SOLUTION_MARKERS = ("### BEGIN " + "SOLUTION", "### END " + "SOLUTION")


@dataclass
class CanaryReport:
    """The worked solution of one assignment graded like a submission (:func:`check_worked_solution`):
    whether it got every automatic point, why not (for a person), the graded cells of a fresh
    ``generate_assignment`` (``{(notebook, grade_id): (max_score, cell_type)}``) and the seconds it took."""

    assignment: str
    ok: bool
    reason: str = ""
    cells: dict = field(default_factory=dict)
    seconds: float = 0.0


def fill_worked_solution(release_nb, source_nb):
    """The released notebook with every answer cell's content taken from the worked solution.

    Cells are matched by ``grade_id``; the ``### BEGIN/END SOLUTION`` lines are dropped. This is
    what a student who solved everything hands in: the release (its checksums and locked cells
    unchanged) with the answers typed in.

    Parameters
    ----------
    release_nb, source_nb : nbformat.NotebookNode
        The released notebook and its source (``solutions/<a>/<nb>.ipynb``).

    Returns
    -------
    nbformat.NotebookNode
        A new notebook; ``release_nb`` is not changed.

    Raises
    ------
    ValueError
        An answer cell of the source is not in the release (the release is out of date).
    """
    import copy

    from .flags import grade_id

    def answer(cell) -> bool:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        return bool(meta.get("solution")) and bool(grade_id(cell))

    answers = {grade_id(c): "\n".join(x for x in "".join(c.source).split("\n") if x.strip() not in SOLUTION_MARKERS)
               for c in source_nb.cells if answer(c)}
    nb = copy.deepcopy(release_nb)
    filled = set()
    for cell in nb.cells:
        if answer(cell) and grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
            filled.add(grade_id(cell))
    if set(answers) - filled:
        raise ValueError(f"answer cells {sorted(set(answers) - filled)} of the worked solution are not in the release")
    return nb


def _first_error(nb) -> tuple[int, str] | None:
    """``(cell number from 1, "Name: message")`` of the first error output in a graded notebook."""
    for k, cell in enumerate(nb.cells, 1):
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if out.get("output_type") == "error":
                return k, _one_line(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}")
    return None


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _kernel_hint(cfg) -> str:
    """Where the grading kernel's Python is, for a kernel that cannot import the course package."""
    name = cfg.get("ExecutePreprocessor", {}).get("kernel_name") or "python3"
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        spec = KernelSpecManager().get_kernel_spec(name)
        where = f"kernel spec {name!r} ({spec.resource_dir}) runs {spec.argv[0]}"
    except Exception as exc:  # noqa: BLE001 - a hint only
        where = f"kernel spec {name!r} cannot be found ({type(exc).__name__}: {exc})"
    return (f" The grading kernel cannot import the course package: the {where}. It must be the course "
            f"environment's Python, in which `python -c 'import helpers'` works (`jupyter kernelspec list`; "
            f"`python -m ipykernel install --user --name {name}` from the activated course environment "
            f"registers it), and the sandbox must be able to read that package (docs/INSTRUCTORS.md, "
            f"'Sandboxed grading').")


def _scratch_gradebook(path: Path) -> None:
    """An empty SQLite gradebook at ``path``, made in this process.

    nbgrader makes a new gradebook by running the ``alembic`` command to learn the schema's version
    (a second Python process: more CPU than the canary's release); here its tables are created
    directly and the version is read from nbgrader's migration scripts."""
    import nbgrader
    from nbgrader.api import Base
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{path}", future=True)
    try:
        Base.metadata.create_all(bind=engine)
        try:
            from alembic.script import ScriptDirectory

            head = ScriptDirectory(str(Path(nbgrader.__file__).parent / "alembic")).get_current_head()
        except Exception:  # noqa: BLE001 - the version only matters to `nbgrader db upgrade`
            head = None
        if head:
            with engine.begin() as conn:
                conn.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
                conn.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": head})
    finally:
        engine.dispose()


def check_worked_solution(root: str | os.PathLike, assignment: str, *, sandbox: bool = True,
                          feedback: bool = True) -> CanaryReport:
    """Grade the worked solution of ``assignment`` exactly as a submission is graded, in a scratch folder.

    The canary: ``solutions/<assignment>`` is generated into a scratch gradebook and release, the
    worked solution is filled into that release (:func:`fill_worked_solution`) and autograded by the
    course's configuration (the same sandbox, kernel, judge, hidden tests and grader's secret as the
    students), and its feedback is generated. It must get every automatic point with no flag. Nothing
    of the course's gradebook or folders is written; the scratch folder is removed.

    Parameters
    ----------
    root : path
        The course root.
    assignment : str
        A folder of the source directory.
    sandbox, feedback : bool
        As in :func:`grade_submission`.

    Returns
    -------
    CanaryReport
        ``ok`` False with ``reason`` (which cells, what error, what to do) when anything fell short.
    """
    import shutil
    import tempfile

    import nbformat
    from nbgrader.api import Gradebook

    from .flags import read_flags

    t0 = time.perf_counter()
    root = Path(root).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="weat-canary-"))
    what = (f"{assignment}: the worked solution (solutions/{assignment} filled into its release), graded like a "
            "submission before any student,")

    def stop(reason: str, cells=None) -> CanaryReport:
        return CanaryReport(assignment, False, what + reason, cells or {}, time.perf_counter() - t0)

    try:
        cfg, api = _course(root, sandbox, scratch=scratch)
        source = root / cfg.CourseDirectory.get("source_directory", "source") / assignment
        if not sorted(source.glob("*.ipynb")):
            return stop(f" cannot be graded: {source} holds no notebook.")
        _scratch_gradebook(scratch / "gradebook.db")
        with _bin_on_path():
            res = api.generate_assignment(assignment, force=True, create=True)
        if not res.get("success"):
            return stop(f" could not be generated (nbgrader generate_assignment): {nbgrader_error(res)}")
        release = scratch / "release" / assignment
        out = scratch / "submitted" / CANARY / assignment
        out.mkdir(parents=True)
        for path in sorted(release.glob("*.ipynb")):
            filled = fill_worked_solution(nbformat.read(path, as_version=4),
                                          nbformat.read(source / path.name, as_version=4))
            nbformat.write(filled, out / path.name)
        res = api.autograde(assignment, CANARY, force=True, create=True)
        if not res.get("success"):
            return stop(f" could not be autograded: {nbgrader_error(res)}")
        db_url = api.coursedir.db_url
        cells, short = {}, []
        with Gradebook(db_url) as gb:
            for snb in gb.find_submission(assignment, CANARY).notebooks:
                for g in snb.grades:
                    cells[(snb.name, g.name)] = (float(g.max_score), g.cell_type)
                    if g.auto_score is not None and float(g.auto_score) < float(g.max_score):
                        short.append((snb.name, g.name, float(g.auto_score), float(g.max_score)))
        flags = read_flags(db_url)
        if short or flags:
            parts = []
            if short:
                parts.append("cells short of full marks: " + ", ".join(
                    f"{n}.ipynb {c} {a:g}/{m:g}" for n, c, a, m in sorted(short)))
            for f in flags:
                parts.append(f"flagged: {f['notebook']}.ipynb {f['cell'] or '(whole notebook)'}: {_one_line(f['reason'])}")
            first = []
            for n in sorted({x[0] for x in short} | {f["notebook"] for f in flags}):
                graded = scratch / "autograded" / CANARY / assignment / f"{n}.ipynb"
                try:
                    err = _first_error(nbformat.read(graded, as_version=4))
                except (OSError, ValueError):
                    err = None
                if err:
                    first.append(f"the first error in {n}.ipynb, cell {err[0]}: {err[1]}")
            if any("helpers" in x and ("ModuleNotFoundError" in x or "ImportError" in x) for x in first):
                todo = _kernel_hint(cfg).strip()
            else:
                todo = ("Grading would have been wrong for every student: fix the cause (the grading environment, "
                        "the hidden tests or the worked solution), then grade again.")
            reason = " did not get full marks:\n" + "".join(f"  - {x}\n" for x in parts + first) + "  " + todo
            return stop(reason, cells)
        if feedback:
            res = api.generate_feedback(assignment, CANARY, force=True)
            if not res.get("success"):
                return stop(f" got full marks but its feedback could not be generated: {nbgrader_error(res)}", cells)
        return CanaryReport(assignment, True, "", cells, time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - whatever it is, it stops grading with its message
        return stop(f" could not be graded: {type(exc).__name__}: {_one_line(exc)}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _gradebook_exists(db_url: str) -> bool:
    """False only for a SQLite gradebook whose file does not exist yet (opening it would create it)."""
    if not db_url.startswith("sqlite:///"):
        return True
    path = db_url[len("sqlite:///"):].split("?", 1)[0]
    return path in ("", ":memory:") or Path(path).exists()


def _prepare_gradebook(api, db_url: str, names: list[str], canaries: dict) -> list[str]:
    """Make the gradebook ready to grade ``names``: an assignment it does not know, or knows without
    notebooks (a due date set before ``generate_assignment``), is generated now (empty submission
    records an earlier failed run left are removed first: they hold no grade). The graded cells it
    holds must be those of the source (``canaries``' fresh generation). Returns notes for the person.

    Raises
    ------
    GradingStopped
        generate_assignment failed, or the gradebook's cells differ from the source's.
    """
    from nbgrader.api import Gradebook, MissingEntry

    notes = []
    with _bin_on_path():
        for a in names:
            with Gradebook(db_url) as gb:
                try:
                    known = gb.find_assignment(a)
                except MissingEntry:
                    known = None
                generate = known is None or not known.notebooks
                if known is not None and generate:
                    empty = [s.student.id for s in gb.assignment_submissions(a) if not s.notebooks]
                    for student in empty:
                        gb.remove_submission(a, student)
                    if empty:
                        notes.append(f"{a}: removed {len(empty)} empty submission record(s) an earlier failed run left")
            if generate:
                res = api.generate_assignment(a, force=True, create=True)
                if not res.get("success"):
                    raise GradingStopped(f"{a}: nbgrader generate_assignment failed, so no submission was graded: "
                                         f"{nbgrader_error(res)}")
                notes.append(f"{a}: generated into the gradebook (it had {'no notebooks' if known else 'no record'})")
            report = canaries.get(a)
            if report is None or not report.cells:
                continue
            with Gradebook(db_url) as gb:
                have = {(nb.name, c.name): (float(c.max_score), c.cell_type)
                        for nb in gb.find_assignment(a).notebooks for c in nb.grade_cells}
            if have != report.cells:
                diff = sorted(set(have.items()) ^ set(report.cells.items()))
                names_ = ", ".join(sorted({f"{n}.ipynb {c}" for (n, c), _ in diff}))
                raise GradingStopped(
                    f"{a}: the gradebook's graded cells differ from solutions/{a} ({names_}): the assignment changed "
                    f"after it was generated, so no submission was graded. Run `nbgrader generate_assignment {a} "
                    f"--force` (and hand out the new release if the students' notebooks changed), then grade again "
                    f"with --force.")
    return notes


# ---------------------------------------------------------------------------------------------
# A whole class, in parallel
# ---------------------------------------------------------------------------------------------

def _worker_init(path: str) -> None:
    os.environ["PATH"] = path  # only in this worker process: the kernel and alembic are found
    os.environ.setdefault("MPLBACKEND", "Agg")


def _job(root: str, assignment: str, student: str, sandbox: bool, feedback: bool,
         marker: str | None = None) -> GradeReport:
    """Grade one submission in a worker; ``marker`` (a file) exists while it runs, so a marker left
    behind names a job whose process died."""
    if marker:
        Path(marker).write_text(str(os.getpid()))
    try:
        for attempt in range(3):
            try:
                report = grade_submission(root, assignment, student, sandbox=sandbox, feedback=feedback)
            except Exception as exc:  # a gradebook error must not stop the other submissions
                report = GradeReport(assignment, student, 0.0, 0.0, False, f"{type(exc).__name__}: {exc}")
            if report.success or "database is locked" not in report.error:
                return report
            time.sleep(1 + attempt)
        return report
    finally:
        if marker:
            Path(marker).unlink(missing_ok=True)


def _local_pool(workers: int, path: str):
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_worker_init,
                               initargs=(path,))


def _grade_locally(root: Path, todo: list, isolate: set, workers: int, sandbox: bool, feedback: bool, path: str,
                   done) -> None:
    """Grade ``todo`` in pools of worker processes, calling ``done(key, report)`` for each.

    A worker that dies breaks its pool, and the pool stops every job it holds. The jobs that were
    running then (their marker files are left) become suspects, each graded again alone in a pool
    of its own (as are the keys in ``isolate`` from the start); the jobs not started yet go to a
    fresh shared pool. A suspect whose lone process dies too is the culprit: failed, flagged."""
    import tempfile
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    markers = Path(tempfile.mkdtemp(prefix="weat-grading-"))
    index = {key: k for k, key in enumerate(todo)}
    shared = [key for key in todo if key not in isolate]
    suspects = [key for key in todo if key in isolate]
    try:
        while shared:
            broken = []
            with _local_pool(min(workers, len(shared)), path) as pool:
                futures = {pool.submit(_job, str(root), a, s, sandbox, feedback, str(markers / str(index[a, s]))): (a, s)
                           for a, s in shared}
                for fut in as_completed(futures):
                    key = futures[fut]
                    try:
                        report = fut.result()
                    except BrokenProcessPool:
                        broken.append(key)
                        continue
                    except Exception as exc:  # noqa: BLE001 - reported, the others go on
                        report = GradeReport(*key, 0.0, 0.0, False, f"{type(exc).__name__}: {exc}")
                    done(key, report)
            running = {key for key in broken if (markers / str(index[key])).exists()}
            for key in running:
                (markers / str(index[key])).unlink(missing_ok=True)
            if broken and not running:  # the pool broke before any job started: do not loop
                running = set(broken)
            suspects += [key for key in broken if key in running]
            shared = [key for key in broken if key not in running]
        for a, s in suspects:
            with _local_pool(1, path) as pool:
                try:
                    report = pool.submit(_job, str(root), a, s, sandbox, feedback).result()
                except BrokenProcessPool:
                    report = GradeReport(a, s, 0.0, 0.0, False, DIED, died=True)
                except Exception as exc:  # noqa: BLE001
                    report = GradeReport(a, s, 0.0, 0.0, False, f"{type(exc).__name__}: {exc}")
            done((a, s), report)
    finally:
        import shutil

        shutil.rmtree(markers, ignore_errors=True)


def _load_state(root: Path) -> dict:
    path = root / "autograded" / STATE_FILE
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _save_state(root: Path, state: dict) -> None:
    path = root / "autograded" / STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True))
    tmp.replace(path)


def _canary_job(root: str, assignment: str, sandbox: bool, feedback: bool) -> CanaryReport:
    return check_worked_solution(root, assignment, sandbox=sandbox, feedback=feedback)


def _run_canaries(root: Path, names: list[str], workers: int, sandbox: bool, feedback: bool, path: str,
                  scheduler: str | None) -> dict:
    """:func:`check_worked_solution` of each assignment, where the submissions will be graded (local
    worker processes, or the Dask cluster); ``{assignment: CanaryReport}``."""
    from concurrent.futures import as_completed

    out = {}

    def collect(pool):
        futures = {pool.submit(_canary_job, str(root), a, sandbox, feedback): a for a in names}
        for fut in as_completed(futures):
            a = futures[fut]
            try:
                out[a] = fut.result()
            except Exception as exc:  # noqa: BLE001 - a worker that died: the canary failed
                out[a] = CanaryReport(a, False, f"{a}: the process grading the worked solution failed: "
                                                f"{type(exc).__name__}: {_one_line(exc)}")

    if scheduler:
        from .cluster import executor

        with executor(scheduler, root) as pool:
            collect(pool)
    else:
        with _local_pool(max(1, min(workers, len(names))), path) as pool:
            collect(pool)
    return out


def submitted_assignments(root: str | os.PathLike = ".") -> list[str]:
    """The assignments of the source directory that at least one student has submitted.

    Parameters
    ----------
    root : path
        The course root.

    Returns
    -------
    list of str
        Sorted names: those with a ``submitted/<student>/<assignment>/`` folder.
    """
    cfg, api = _course(root, sandbox=False)
    source = Path(root).resolve() / cfg.CourseDirectory.get("source_directory", "source")
    names = sorted(p.name for p in source.iterdir() if p.is_dir() and not p.name.startswith(".")) if source.is_dir() else []
    return [a for a in names if api.get_submitted_students(a)]


def blocking_failures(reports: list[GradeReport]) -> list[GradeReport]:
    """The submissions nbgrader could not grade (a failed run: no export is written).

    A submission whose grading process died even alone is not among them: it is flagged for a
    person, and it would fail again on every run.
    """
    return [r for r in reports if not r.success and not r.died]


def grade_class(root: str | os.PathLike = ".", *, assignments: list[str] | None = None, workers: int | None = None,
                sandbox: bool = True, force: bool = False, feedback: bool = True, export: str | None = "grades.csv",
                progress: bool = True, scheduler: str | None = None, canary: bool = True,
                log=None) -> list[GradeReport]:
    """Autograde every submitted assignment (or ``assignments``), then export.

    Before any submission is graded, each assignment that has a submission to grade is checked: its
    worked solution is graded as a canary (:func:`check_worked_solution`, in the same sandbox, with
    the same judge, where the submissions will be graded) and must get every automatic point; the
    gradebook must know the assignment (it is generated when it does not, or knows it without
    notebooks) with the source's graded cells. Otherwise :class:`GradingStopped` says why, and no
    submission is graded.

    Parameters
    ----------
    root : path
        The course root (the folder with ``nbgrader_config.py``).
    assignments : list of str, optional
        Default: the assignments someone submitted (:func:`submitted_assignments`).
    workers : int, optional
        Submissions graded at once, each by :func:`grade_submission` in a worker process (default
        :func:`default_workers`, the number of cores). The grades do not depend on it.
    sandbox, feedback : bool
        As in :func:`grade_submission`.
    force : bool
        Regrade submissions whose files have not changed since they were last graded.
    export : str or None
        nbgrader's CSV of the grades, relative to ``root``; ``grades_lms.csv``,
        ``question_stats.csv``/``.png`` and ``flags.csv`` are written next to it (:func:`write_exports`).
        None: no exports. Never written when a submission failed (:func:`blocking_failures`).
    progress : bool
        Show one progress bar (on stderr).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:8786``): the submissions are graded
        by its workers (:func:`helpers.cluster.executor`) instead of local processes, and
        ``workers`` is ignored. The workers must see the course folder at the same path and use
        the same gradebook (PostgreSQL for several machines): docs/SYSADMIN.md.
    canary : bool
        Grade the worked solutions first (default). Only tests that have just proved the same
        environment switch it off.
    log : callable, optional
        Called with a line for the person (the canaries' times, the gradebook prepared).

    Returns
    -------
    list of GradeReport
        Sorted by assignment and student; skipped submissions have ``skipped=True``.

    Raises
    ------
    FileNotFoundError
        No ``nbgrader_config.py`` in ``root``, an assignment not in the source directory, or no
        submission to grade.
    GradingStopped
        A worked solution did not get full marks, or the gradebook cannot be made ready: nothing
        was graded, the gradebook and the exports are as they were.
    ValueError
        ``workers`` below 1.
    """
    from concurrent.futures import as_completed

    from nbgrader.api import Gradebook, MissingEntry
    from tqdm.auto import tqdm

    from .flags import flag_submission

    log = log or (lambda line: None)
    root = Path(root).resolve()
    workers = default_workers() if workers is None else int(workers)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}.")
    cfg, api = _course(root, sandbox)
    source = root / cfg.CourseDirectory.get("source_directory", "source")
    if assignments:
        unknown = [a for a in assignments if not (source / a).is_dir()]
        if unknown:
            raise FileNotFoundError(f"No assignment {', '.join(unknown)} in {source}/ (the assignments are the "
                                    f"folders there).")
        names = list(assignments)
    else:
        names = submitted_assignments(root)
    work = [(a, s) for a in names for s in sorted(api.get_submitted_students(a))]
    if not work:
        where = ", ".join(names) if names else "any assignment"
        raise FileNotFoundError(f"No submissions in {root / 'submitted'}/<student>/<assignment>/ for {where}.")
    db_url = api.coursedir.db_url
    state = _load_state(root)
    # a submission is unchanged when its files and the assignment's source (tests) are unchanged
    sources = {a: submission_hash(source / a) for a in names}
    hashes = {(a, s): submission_hash(root / "submitted" / s / a) + ":" + sources[a] for a, s in work}
    reports, todo = [], []
    flags_of = {}  # assignment -> its flags, read once (skipped submissions keep theirs)
    maybe = [(a, s) for a, s in work if not force and state.get(f"{a}/{s}", {}).get("sha256") == hashes[a, s]
             and (root / "autograded" / s / a).is_dir()]
    if maybe and _gradebook_exists(db_url):
        with Gradebook(db_url) as gb:
            for a, s in maybe:
                try:
                    score, max_score, late = _score(gb, a, s)
                except MissingEntry:
                    continue
                if a not in flags_of:
                    flags_of[a] = _read_flags(db_url, a)
                mine = [f for f in flags_of[a] if f["student"] == s]
                reports.append(GradeReport(a, s, score, max_score, True, "", mine, True, late))
    done_keys = {(r.assignment, r.student) for r in reports}
    todo = [key for key in work if key not in done_keys]
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    to_grade = sorted({a for a, _ in todo})
    canaries = {}
    if to_grade and canary:
        canaries = _run_canaries(root, to_grade, workers, sandbox, feedback, path, scheduler)
        failed = [canaries[a] for a in to_grade if not canaries[a].ok]
        if failed:
            raise GradingStopped("\n\n".join(c.reason for c in failed) + "\n\nNo submission was graded; the "
                                 "gradebook and the exports are as they were.")
        for a in to_grade:
            log(f"{a}: the worked solution got full marks ({canaries[a].seconds:.0f} s)")
    if to_grade:
        for note in _prepare_gradebook(api, db_url, to_grade, canaries):
            log(note)
    bar = tqdm(total=len(work), initial=len(reports), desc="Autograding", unit=" submission", disable=not progress)

    def done(key, report):
        a, s = key
        if report.died:
            if flag_submission(db_url, a, s, DIED):
                report.flags = _read_flags(db_url, a, s)
            else:
                report.flags = [{"assignment": a, "student": s, "notebook": "", "cell": None, "reason": DIED}]
            state[f"{a}/{s}"] = {"died": hashes[a, s]}
        elif report.success:
            state[f"{a}/{s}"] = {"sha256": hashes[a, s]}
        else:
            state.pop(f"{a}/{s}", None)
        _save_state(root, state)
        reports.append(report)
        bar.update(1)

    if todo and scheduler:
        from .cluster import executor

        with executor(scheduler, root) as pool:
            futures = {pool.submit(_job, str(root), a, s, sandbox, feedback): (a, s) for a, s in todo}
            for fut in as_completed(futures):
                a, s = futures[fut]
                try:
                    report = fut.result()
                except Exception as exc:  # a worker process died (Dask retried it once)
                    report = GradeReport(a, s, 0.0, 0.0, False, f"{type(exc).__name__}: {exc}")
                done((a, s), report)
    elif todo:
        died_before = {(a, s) for a, s in todo if state.get(f"{a}/{s}", {}).get("died")}
        _grade_locally(root, todo, died_before, workers, sandbox, feedback, path, done)
    bar.close()
    reports.sort(key=lambda r: (r.assignment, r.student))
    if export and not blocking_failures(reports):
        write_exports(root, export, reports, api=api)
    return reports


def write_exports(root: str | os.PathLike, export: str, reports: list[GradeReport] | None = None, *, api=None) -> dict:
    """Write the exports of the gradebook: ``export`` (nbgrader's CSV), and next to it ``grades_lms.csv``,
    ``question_stats.csv``/``.png`` and ``flags.csv``.

    Only the assignments that were given (:func:`given_assignments`: at least one submission in the
    gradebook) are exported; ``flags.csv`` holds the open flags of every assignment
    (:func:`helpers.flags.open_flags`) and the flags of ``reports`` that have no gradebook record (a
    submission whose grading process died); ``grades_lms.csv`` marks flagged work.

    Parameters
    ----------
    root : path
        The course root.
    export : str
        nbgrader's CSV, relative to ``root``.
    reports : list of GradeReport, optional
        The run's reports (their flags).
    api : NbGraderAPI, optional
        The course's API (made from ``root`` otherwise).

    Returns
    -------
    dict
        ``{"grades", "lms", "question_stats", "flags"}``: the paths written.
    """
    from .flags import open_flags

    root = Path(root).resolve()
    if api is None:
        _, api = _course(root, sandbox=False)
    db_url = api.coursedir.db_url
    out = root / export
    given = given_assignments(db_url)
    flags = open_flags(db_url)
    keys = {(f["assignment"], f["student"], f["notebook"], f["cell"], f["reason"]) for f in flags}
    for r in reports or []:
        for f in r.flags:
            key = (f["assignment"], f["student"], f["notebook"], f["cell"], f["reason"])
            if r.died and key not in keys:  # no gradebook record to hold it
                flags.append(f)
                keys.add(key)
    paths = {"grades": out, "lms": out.with_name(out.stem + "_lms.csv"),
             "question_stats": out.with_name("question_stats.csv"), "flags": out.with_name("flags.csv")}
    _export_nbgrader(api, root, out, given)
    export_lms(db_url, paths["lms"], assignments=given, flags=flags)
    export_question_stats(db_url, paths["question_stats"], plot=out.with_name("question_stats.png"), assignments=given)
    write_flags(flags, paths["flags"])
    return paths


def given_assignments(db_url: str) -> list[str]:
    """The assignments of the gradebook that were given: at least one submission is recorded.

    An assignment the gradebook knows only from a due date set in advance, or from a release nobody
    has handed in yet, is not exported (a column of ``missing`` would mark the whole class missing).

    Parameters
    ----------
    db_url : str
        The gradebook.

    Returns
    -------
    list of str
        Sorted names.
    """
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        return sorted(a.name for a in gb.assignments if gb.assignment_submissions(a.name))


@dataclass
class FeedbackReport:
    """What :func:`regenerate_feedback` did for one assignment: the students whose feedback was written,
    those with cells still waiting for a person (their feedback shows those cells ungraded), the files
    written for the LMS, and nbgrader's error if it failed."""

    assignment: str
    students: list = field(default_factory=list)
    waiting: list = field(default_factory=list)
    lms_files: list = field(default_factory=list)
    error: str = ""


def autograded_assignments(root: str | os.PathLike = ".") -> list[str]:
    """The assignments with at least one autograded submission (``autograded/<student>/<assignment>/``)."""
    root = Path(root).resolve()
    folder = root / "autograded"
    if not folder.is_dir():
        return []
    return sorted({a.name for s in folder.iterdir() if s.is_dir() for a in s.iterdir() if a.is_dir()})


def regenerate_feedback(root: str | os.PathLike = ".", assignments: list[str] | None = None, *,
                        lms: str | os.PathLike | None = None) -> list[FeedbackReport]:
    """Write the feedback of every autograded submission again, with the gradebook's current scores.

    ``python -m helpers grade`` writes feedback right after autograding, before anyone grades by
    hand, and ``nbgrader generate_feedback`` without ``--force`` skips a submission whose feedback
    is newer than its autograded notebook (a manual grade changes neither): run this after manual
    grading. With ``lms``, each student's feedback is also copied to
    ``<lms>/<assignment>/<student>_<notebook>.html`` (the naming ``zip_collect`` reads), one file per
    student and notebook, to upload to the LMS; ``nbgrader release_feedback`` works only for
    submissions collected through nbgrader's exchange.

    Parameters
    ----------
    root : path
        The course root.
    assignments : list of str, optional
        Default: every assignment with an autograded submission.
    lms : path, optional
        A folder (relative to ``root`` unless absolute) for the files to upload.

    Returns
    -------
    list of FeedbackReport
        One per assignment; ``error`` is nbgrader's error (:func:`nbgrader_error`) if it failed.
    """
    import shutil

    from nbgrader.api import Gradebook, MissingEntry

    root = Path(root).resolve()
    _, api = _course(root, sandbox=False)
    names = list(assignments) if assignments else autograded_assignments(root)
    out = []
    for a in names:
        students = sorted(p.parent.name for p in (root / "autograded").glob(f"*/{a}") if p.is_dir())
        report = FeedbackReport(a, students)
        out.append(report)
        if not students:
            report.error = f"no autograded submission of {a} in {root / 'autograded'}/<student>/{a}/: grade it first"
            continue
        res = api.generate_feedback(a, force=True)
        if not res.get("success"):
            report.error = nbgrader_error(res)
            continue
        with Gradebook(api.coursedir.db_url) as gb:
            for s in students:
                try:
                    sub = gb.find_submission(a, s)
                except MissingEntry:
                    continue
                if any(g.needs_manual_grade for nb in sub.notebooks for g in nb.grades):
                    report.waiting.append(s)
        if lms:
            target = Path(lms) if Path(lms).is_absolute() else root / lms
            target = target / a
            target.mkdir(parents=True, exist_ok=True)
            for s in students:
                for page in sorted((root / "feedback" / s / a).glob("*.html")):
                    dest = target / f"{s}_{page.name}"
                    shutil.copyfile(page, dest)
                    report.lms_files.append(dest)
    return out


def summary(reports: list[GradeReport]) -> dict:
    """Counts of a grading run.

    Parameters
    ----------
    reports : list of GradeReport
        What :func:`grade_class` returned.

    Returns
    -------
    dict
        ``{"graded": n, "skipped": n, "failed": n, "flagged": n}`` (flagged: submissions with a flag).
    """
    return {"graded": sum(r.success and not r.skipped for r in reports), "skipped": sum(r.skipped for r in reports),
            "failed": sum(not r.success for r in reports), "flagged": sum(bool(r.flags) for r in reports)}


# ---------------------------------------------------------------------------------------------
# Exports
# ---------------------------------------------------------------------------------------------

def _export_nbgrader(api, root: Path, out: Path, assignments: list[str] | None = None) -> None:
    from nbgrader.api import Gradebook
    from nbgrader.apps.exportapp import ExportApp

    app = ExportApp(coursedir=api.coursedir, parent=api)
    cwd = os.getcwd()
    try:
        os.chdir(root)
        app.init_plugin()
        app.plugin_inst.to = str(out)
        if assignments is not None:
            app.plugin_inst.assignment = list(assignments) or ["(none)"]  # an empty list would mean all
        with Gradebook(api.coursedir.db_url) as gb:
            app.plugin_inst.export(gb)
    finally:
        os.chdir(cwd)


def export_lms(db_url: str, path: str | os.PathLike, *, assignments: list[str] | None = None,
               flags: list[dict] | None = None) -> Path:
    """Write an LMS-ready CSV: one row per student, one column per assignment.

    Each cell is the score after any late penalty (``8.0``), ``8.0 (late)`` when the submission
    came after the due date, ``8.0 (flagged)`` (or ``6.4 (late, flagged)``) while a flag on it is
    open, ``flagged`` for flagged work the gradebook has no score for, or ``missing`` when the
    student submitted nothing. Students come from the gradebook (a roster imported with
    ``nbgrader db student import`` included), sorted by id; the first row, ``(max)``, holds each
    assignment's maximum.

    Parameters
    ----------
    db_url : str
        The gradebook (``CourseDirectory.db_url``).
    path : path
        The CSV to write.
    assignments : list of str, optional
        The columns (default: :func:`given_assignments`).
    flags : list of dict, optional
        Open flags (default: :func:`helpers.flags.open_flags` of the gradebook).

    Returns
    -------
    Path
        ``path``.
    """
    from nbgrader.api import Gradebook, MissingEntry

    from .flags import open_flags

    path = Path(path)
    assignments = given_assignments(db_url) if assignments is None else sorted(assignments)
    flagged = {(f["assignment"], f["student"]) for f in (open_flags(db_url) if flags is None else flags)}
    with Gradebook(db_url) as gb:
        rows = []
        for st in sorted(gb.students, key=lambda x: x.id):
            row = {"student_id": st.id, "last_name": st.last_name or "", "first_name": st.first_name or "",
                   "email": st.email or ""}
            for a in assignments:
                try:
                    score, _, late = _score(gb, a, st.id)
                except MissingEntry:
                    row[a] = "flagged" if (a, st.id) in flagged else "missing"
                else:
                    notes = (["late"] if late > 0 else []) + (["flagged"] if (a, st.id) in flagged else [])
                    row[a] = f"{score:.1f}" + (f" ({', '.join(notes)})" if notes else "")
            rows.append(row)
        maxima = {a: f"{gb.find_assignment(a).max_score:.1f}" for a in assignments}
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, ["student_id", "last_name", "first_name", "email", *assignments])
        w.writeheader()
        w.writerow({"student_id": "(max)", **maxima})
        w.writerows(rows)
    return path


def export_question_stats(db_url: str, path: str | os.PathLike, *, plot: str | os.PathLike | None = None,
                          assignments: list[str] | None = None) -> list[dict]:
    """Per-question statistics: for every graded cell, the mean score and the share of full marks.

    Over the submissions in the gradebook; a cell still waiting for a person (``needs_manual_grade``
    without a score) is left out of its own mean (``n`` says how many scores count).
    ``share_full = #{score == max_score} / n``; ``mean_fraction = mean_score / max_score``.

    Parameters
    ----------
    db_url : str
        The gradebook.
    path : path
        The CSV to write (assignment, notebook, cell, cell_type, max_score, n, mean_score,
        mean_fraction, share_full).
    plot : path, optional
        A horizontal bar chart (matplotlib) of ``mean_fraction`` and ``share_full`` per cell.
    assignments : list of str, optional
        Only these assignments (default: :func:`given_assignments`).

    Returns
    -------
    list of dict
        The rows of the CSV.
    """
    import numpy as np
    from nbgrader.api import Gradebook

    rows = []
    wanted = set(given_assignments(db_url) if assignments is None else assignments)
    with Gradebook(db_url) as gb:
        for a in sorted((x for x in gb.assignments if x.name in wanted), key=lambda x: x.name):
            subs = list(a.submissions)
            for nb in a.notebooks:
                for cell in nb.grade_cells:
                    scores = []
                    for sub in subs:
                        for snb in sub.notebooks:
                            if snb.name != nb.name:
                                continue
                            for g in snb.grades:
                                if g.name == cell.name and not (g.needs_manual_grade and g.manual_score is None
                                                                and g.auto_score is None):
                                    scores.append(float(g.score))
                    s = np.asarray(scores, dtype=np.float64)
                    mx = float(cell.max_score)
                    n = int(s.size)
                    mean = float(s.mean()) if n else float("nan")
                    rows.append({"assignment": a.name, "notebook": nb.name, "cell": cell.name,
                                 "cell_type": cell.cell_type, "max_score": mx, "n": n,
                                 "mean_score": round(mean, 4) if n else "",
                                 "mean_fraction": round(mean / mx, 4) if n and mx else "",
                                 "share_full": round(float(np.mean(s >= mx)), 4) if n else ""})
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]) if rows else ["assignment", "notebook", "cell"])
        w.writeheader()
        w.writerows(rows)
    if plot and rows:
        _plot_question_stats(rows, plot)
    return rows


def _plot_question_stats(rows: list[dict], path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = [r for r in rows if r["n"]]
    if not rows:
        return
    labels = [f"{r['assignment']} / {r['cell']}" for r in rows]
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.3 * len(rows)))
    ax.barh(y - 0.2, [r["mean_fraction"] for r in rows], height=0.4, label="mean score / max")
    ax.barh(y + 0.2, [r["share_full"] for r in rows], height=0.4, label="share with full marks")
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of the class")
    ax.set_title("Which exercises does the class fail? (per graded cell)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_flags(flags: list[dict], path: str | os.PathLike) -> Path:
    """Write ``flags.csv`` (assignment, student, notebook, cell, reason), one row per flag.

    Parameters
    ----------
    flags : list of dict
        Flags as :func:`helpers.flags.read_flags` returns them.
    path : path
        The CSV file to write (a header row even when there is no flag).

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    path = Path(path)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, FLAG_COLUMNS, extrasaction="ignore")
        w.writeheader()
        for f in sorted(flags, key=lambda f: (f["assignment"], f["student"], f["notebook"], str(f["cell"]))):
            w.writerow({**f, "cell": f["cell"] or ""})
    return path


# ---------------------------------------------------------------------------------------------
# nbgrader plugins named in nbgrader_config.py
# ---------------------------------------------------------------------------------------------

class ShortTracebacks(NbGraderPreprocessor):
    """Feedback preprocessor: the error of a graded (test) cell shows only ``Error: message``.

    IPython's traceback prints the lines around the failing one, which in a test cell are the
    hidden tests; ``ClearHiddenTests`` removes them from the cell's source but not from its output.
    The message itself (written to say which property failed, never the expected value) is kept.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "code" and is_grade(cell):
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
        return cell, resources


class LatePenaltyPerDay(LateSubmissionPlugin):
    """Late policy: a fraction of the notebook's score is lost per started day late.

    ``penalty = score * min(1, fraction_per_day * ceil(seconds_late / 86400))``; with the default
    0.1, a notebook handed in 1 hour late keeps 90% of its score, 30 hours late 80%, 10 days late 0.
    Set in ``nbgrader_config.py``::

        c.AssignLatePenalties.plugin_class = "helpers.grading.LatePenaltyPerDay"
        c.LatePenaltyPerDay.fraction_per_day = 0.1
    """

    fraction_per_day = Float(0.1, help="Share of the score lost per started day late (0 to 1).").tag(config=True)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        if not total_seconds_late or total_seconds_late <= 0:
            return None
        days = math.ceil(total_seconds_late / 86400)
        return float(score) * min(1.0, self.fraction_per_day * days)
