"""Grading a whole class in one command: ``python -m helpers grade`` (run from the course root).

For every assignment in ``solutions/`` and every student folder in ``submitted/<student>/<assignment>/``
this runs nbgrader's autograder, generates the feedback HTML (without hidden tests) and exports the
grades. It reads ``nbgrader_config.py`` from the course root, like the ``nbgrader`` command, so a
PostgreSQL gradebook (``CourseDirectory.db_url``) works the same.

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
           "summary", "export_lms", "export_question_stats", "write_flags", "ShortTracebacks",
           "LatePenaltyPerDay", "default_workers"]

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


def _course(root, sandbox: bool):
    """``(config, NbGraderAPI)`` for the course at ``root``; a SQLite gradebook gets a busy timeout."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    root = Path(root).resolve()
    cfg = load_course_config(root)
    cfg = _sandboxed(cfg, sandbox)
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
        ``success`` is False, with nbgrader's error, when nbgrader could not grade it.

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
    result = api.autograde(assignment, student, force=True, create=True)
    ok, error = bool(result.get("success")), result.get("error") or ""
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
            ok, error = False, "generate_feedback failed: " + (res.get("error") or "")
    with Gradebook(db_url) as gb:
        try:
            score, max_score, late = _score(gb, assignment, student)
        except MissingEntry:
            score, max_score, late = 0.0, 0.0, 0.0
    return GradeReport(assignment, student, score, max_score, ok, error, flags, False, late)


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


def grade_class(root: str | os.PathLike = ".", *, assignments: list[str] | None = None, workers: int | None = None,
                sandbox: bool = True, force: bool = False, feedback: bool = True, export: str | None = "grades.csv",
                progress: bool = True, scheduler: str | None = None) -> list[GradeReport]:
    """Autograde every submission of every assignment (or of ``assignments``), then export.

    Parameters
    ----------
    root : path
        The course root (the folder with ``nbgrader_config.py``).
    assignments : list of str, optional
        Default: every folder of the source directory (``solutions/``).
    workers : int, optional
        Submissions graded at once, each by :func:`grade_submission` in a worker process (default
        :func:`default_workers`, the number of cores). The grades do not depend on it.
    sandbox, feedback : bool
        As in :func:`grade_submission`.
    force : bool
        Regrade submissions whose files have not changed since they were last graded.
    export : str or None
        nbgrader's CSV of all grades, relative to ``root``; ``grades_lms.csv``,
        ``question_stats.csv``/``.png`` and ``flags.csv`` are written next to it. None: no exports.
    progress : bool
        Show one progress bar (on stderr).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:8786``): the submissions are graded
        by its workers (:func:`helpers.cluster.executor`) instead of local processes, and
        ``workers`` is ignored. The workers must see the course folder at the same path and use
        the same gradebook (PostgreSQL for several machines): docs/SYSADMIN.md.

    Returns
    -------
    list of GradeReport
        Sorted by assignment and student; skipped submissions have ``skipped=True``.

    Raises
    ------
    FileNotFoundError
        No ``nbgrader_config.py`` in ``root``, or no submission to grade.
    ValueError
        ``workers`` below 1.
    """
    from concurrent.futures import as_completed

    from nbgrader.api import Gradebook, MissingEntry
    from tqdm.auto import tqdm

    from .flags import flag_submission

    root = Path(root).resolve()
    workers = default_workers() if workers is None else int(workers)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}.")
    cfg, api = _course(root, sandbox)
    source = root / cfg.CourseDirectory.get("source_directory", "source")
    names = assignments or sorted(p.name for p in source.iterdir() if p.is_dir() and not p.name.startswith("."))
    work = [(a, s) for a in names for s in sorted(api.get_submitted_students(a))]
    if not work:
        raise FileNotFoundError(f"No submissions in {root / 'submitted'}/<student>/<assignment>/ for {', '.join(names)}.")
    db_url = api.coursedir.db_url
    with _bin_on_path():
        with Gradebook(db_url) as gb:  # creates the gradebook (alembic) before any worker starts
            known = {x.name for x in gb.assignments}
        for a in names:  # the gradebook must know each assignment's cells before grading it
            if a not in known:
                api.generate_assignment(a, force=True, create=True)  # releases are byte-identical
    state = _load_state(root)
    # a submission is unchanged when its files and the assignment's source (tests) are unchanged
    sources = {a: submission_hash(source / a) for a in names}
    hashes = {(a, s): submission_hash(root / "submitted" / s / a) + ":" + sources[a] for a, s in work}
    reports, todo = [], []
    flags_of = {}  # assignment -> its flags, read once (skipped submissions keep theirs)
    with Gradebook(db_url) as gb:
        for a, s in work:
            done = (not force and state.get(f"{a}/{s}", {}).get("sha256") == hashes[a, s]
                    and (root / "autograded" / s / a).is_dir())
            if done:
                try:
                    score, max_score, late = _score(gb, a, s)
                except MissingEntry:
                    done = False
            if done:
                if a not in flags_of:
                    flags_of[a] = _read_flags(db_url, a)
                mine = [f for f in flags_of[a] if f["student"] == s]
                reports.append(GradeReport(a, s, score, max_score, True, "", mine, True, late))
            else:
                todo.append((a, s))
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
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
    if export:
        out = root / export
        _export_nbgrader(api, root, out)
        export_lms(db_url, out.with_name(out.stem + "_lms.csv"))
        export_question_stats(db_url, out.with_name("question_stats.csv"), plot=out.with_name("question_stats.png"))
        write_flags([f for r in reports for f in r.flags], out.with_name("flags.csv"))
    return reports


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

def _export_nbgrader(api, root: Path, out: Path) -> None:
    from nbgrader.api import Gradebook
    from nbgrader.apps.exportapp import ExportApp

    app = ExportApp(coursedir=api.coursedir, parent=api)
    cwd = os.getcwd()
    try:
        os.chdir(root)
        app.init_plugin()
        app.plugin_inst.to = str(out)
        with Gradebook(api.coursedir.db_url) as gb:
            app.plugin_inst.export(gb)
    finally:
        os.chdir(cwd)


def export_lms(db_url: str, path: str | os.PathLike) -> Path:
    """Write an LMS-ready CSV: one row per student, one column per assignment.

    Each cell is the score after any late penalty (``8.0``), ``8.0 (late)`` when the submission
    came after the due date, or ``missing`` when the student submitted nothing. Students come from
    the gradebook (a roster imported with ``nbgrader db student import`` included), sorted by id.

    Parameters
    ----------
    db_url : str
        The gradebook (``CourseDirectory.db_url``).
    path : path
        The CSV to write.

    Returns
    -------
    Path
        ``path``.
    """
    from nbgrader.api import Gradebook, MissingEntry

    path = Path(path)
    with Gradebook(db_url) as gb:
        assignments = sorted(a.name for a in gb.assignments)
        rows = []
        for st in sorted(gb.students, key=lambda x: x.id):
            row = {"student_id": st.id, "last_name": st.last_name or "", "first_name": st.first_name or "",
                   "email": st.email or ""}
            for a in assignments:
                try:
                    score, _, late = _score(gb, a, st.id)
                except MissingEntry:
                    row[a] = "missing"
                else:
                    row[a] = f"{score:.1f} (late)" if late > 0 else f"{score:.1f}"
            rows.append(row)
        maxima = {a: f"{gb.find_assignment(a).max_score:.1f}" for a in assignments}
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, ["student_id", "last_name", "first_name", "email", *assignments])
        w.writeheader()
        w.writerow({"student_id": "(max)", **maxima})
        w.writerows(rows)
    return path


def export_question_stats(db_url: str, path: str | os.PathLike, *, plot: str | os.PathLike | None = None) -> list[dict]:
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

    Returns
    -------
    list of dict
        The rows of the CSV.
    """
    import numpy as np
    from nbgrader.api import Gradebook

    rows = []
    with Gradebook(db_url) as gb:
        for a in sorted(gb.assignments, key=lambda x: x.name):
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
