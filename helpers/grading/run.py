"""Grading a whole class in one command: ``python -m helpers grade`` (run from the course root).

For every assignment someone submitted (a ``submitted/<student>/<assignment>/`` folder) and every
such student folder this runs nbgrader's autograder (:func:`helpers.grading.grade.grade_submission`),
generates the feedback HTML (without hidden tests) and exports the grades
(:func:`helpers.grading.exports.write_exports`). It reads ``nbgrader_config.py`` from the course root,
like the ``nbgrader`` command, so a PostgreSQL gradebook (``CourseDirectory.db_url``) works the same.

Grading fails loudly, never quietly:

* before any student, :func:`helpers.grading.canary.check_worked_solution` grades each assignment's
  worked solution as a canary, in the same sandbox, kernel and judge, in a scratch gradebook: if it
  does not get every automatic point, :class:`~helpers.grading.canary.GradingStopped` says which cells
  and what error, and nothing is graded;
* a submission nbgrader cannot grade reports nbgrader's real error, leaves no new record in the
  gradebook and is flagged (:data:`FAILED`); the others are exported, unless every submission of
  the run failed (:func:`blocking_failures`); the command exits 1.

The canaries run in the same worker processes as the first submissions, so each process starts its
warm-kernel template (:mod:`helpers.grading.warm`) once for both.

:func:`grade_class` grades many submissions in ``workers`` processes at once (one progress bar), or
on a Dask cluster (``scheduler=``, :func:`helpers.grading.cluster.executor`): the same job,
:func:`_job`, runs in both, with its retry on a locked SQLite gradebook. It skips submissions already
graded whose files, and the assignment's source and hidden tests, have not changed
(:mod:`helpers.grading.state`) unless ``force=True``.

A grading process that dies (killed by the system for memory, say) costs only the submission it was
grading: the submissions it took down with it are graded again, each suspect alone in a fresh
process; one that kills its process even alone is reported failed and flagged
(:func:`helpers.grading.flags.flag_submission`), and graded alone on later runs too.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .canary import (CanaryReport, GradingStopped, check_worked_solution, course_package_mismatch, one_line,
                     prepare_gradebook)
from .course import (GradeReport, course_api, default_workers, gradebook_exists, keep_private, load_course_config,
                     read_submission_flags)
from . import warm
from .exports import write_exports
from .grade import grade_submission, score_of
from .state import assignment_hash, load_state, save_state, submission_hash

__all__ = ["grade_class", "submitted_assignments", "blocking_failures", "roster_of", "not_on_roster", "misnamed_notebooks", "DIED", "FAILED",
           "PRELOAD", "RunStopped", "stop_on_signals", "stop_descendants", "descendants"]


#: The flag's message for a submission whose grading process died even when it was graded alone.
DIED = ("The grading process died while grading this submission on its own (for example killed by the system "
        "for using too much memory). The submission was not graded; it is flagged, and it is graded on its own "
        "on later runs so that it cannot take other submissions down with it.")


#: The flag's message for a submission nbgrader could not grade; ``{error}`` is nbgrader's error in one line.
FAILED = ("nbgrader could not grade this submission ({error}). It has no automatic score (the LMS export shows "
          "it as flagged); read it, fix what stops it if it is the grader's, and run grade again: it is graded again "
          "until it succeeds.")


#: What the grading processes import once, in multiprocessing's fork server, before it forks each of them: the
#: grader and the library its judge calls (gensim with it). Measured on the 2-core machine: a spawned process
#: spent 2.3 CPU-s importing the grader and about 2 more importing gensim on its first submission.
PRELOAD = ["helpers.grading.run", "helpers.grading.judge", "helpers.embeddings", "helpers.statistics",
           "helpers.wordsets", "helpers.weat", "helpers.wefat", "helpers.lexicon", "helpers.enumeration"]


class RunStopped(KeyboardInterrupt):
    """The run was stopped by SIGINT or SIGTERM; every process it started has ended.

    Raised by the handler of :func:`stop_on_signals`, after the state or an export being written is
    complete. It is a ``KeyboardInterrupt``, as Ctrl-C would raise.

    Parameters
    ----------
    signum : int
        The signal's number, kept as the attribute ``signum``.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_PR_SET_CHILD_SUBREAPER = 36   #: prctl(2) option: orphaned descendants are re-parented to this process
_STOP = {"shield": 0, "pending": None, "stopping": False}   # this process's signal state (stop_on_signals)


def _process_tree() -> dict[int, list[int]]:
    """``{parent pid: [child pids]}`` of the live (not zombie) processes, from Linux's /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def descendants(pid: int | None = None) -> list[int]:
    """List the live processes started, directly or not, by ``pid``.

    Read from Linux's /proc; zombies are left out. A parent comes before its children.

    Parameters
    ----------
    pid : int, optional
        The ancestor (default ``os.getpid()``).

    Returns
    -------
    list of int
        Their process ids; empty where /proc cannot be read.
    """
    try:
        tree = _process_tree()
    except OSError:
        return []
    out, todo = [], [os.getpid() if pid is None else pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def stop_descendants(rounds: int = 50) -> int:
    """Kill (SIGKILL) every process this one started, however deep.

    That is the pool's fork server and workers, their kernels and sandboxed warm-kernel templates;
    multiprocessing's resource tracker is left to end with this process. Grading holds nothing a kill can corrupt: a gradebook write is a database transaction, a worker writes
    no file the state relies on (:func:`helpers.grading.state.save_state` is called here, in this process),
    and a submission whose grading was cut is not in the state, so the next run grades it again. With
    :func:`stop_on_signals` active this process is a child subreaper, so a process whose parent was killed
    first is still found. Repeated until none is left (a process may fork while the others are killed).

    Parameters
    ----------
    rounds : int
        At most this many passes of 20 ms.

    Returns
    -------
    int
        How many processes were killed.
    """
    import signal

    killed = 0
    for _ in range(rounds):
        pids = [pid for pid in descendants() if not _is_resource_tracker(pid)]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
    return killed


def _is_resource_tracker(pid: int) -> bool:
    """multiprocessing's resource tracker: it ends by itself when this process exits (and frees what the
    workers left); killed before, it is started again at exit and prints errors."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"multiprocessing.resource_tracker" in fh.read()
    except OSError:
        return False


class _Shield:
    """While active, SIGINT/SIGTERM wait (:func:`stop_on_signals`): the state or an export is being written."""

    def __enter__(self):
        _STOP["shield"] += 1

    def __exit__(self, *exc):
        _STOP["shield"] -= 1
        if not _STOP["shield"] and _STOP["pending"] is not None and exc[0] is None:
            signum, _STOP["pending"] = _STOP["pending"], None
            raise RunStopped(signum)


def _stopping() -> bool:
    return bool(_STOP["stopping"])


def stop_on_signals():
    """Make SIGINT and SIGTERM end everything the run started, then raise :class:`RunStopped`.

    For ``python -m helpers grade``. This process becomes a child subreaper (Linux), so that no process of the run escapes by losing its
    parent. On a signal every descendant is killed (:func:`stop_descendants`) at once; the signal is then
    raised as :class:`RunStopped`, after the state or an export being written is complete. Further signals
    are ignored while stopping.

    Returns
    -------
    None
        The handlers are installed for the rest of this process.
    """
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: descendants are found while their parents live
        pass

    def handler(signum, frame):
        if _STOP["stopping"]:
            return
        _STOP["stopping"] = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop_descendants()
        if _STOP["shield"]:
            _STOP["pending"] = signum
            return
        raise RunStopped(signum)

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def _worker_init(path: str, environ: dict) -> None:
    # the environment of the process that made the pool, as a spawned process would get it (the fork server
    # keeps the one it started with)
    os.environ.clear()
    os.environ.update(environ)
    os.environ["PATH"] = path  # only in this worker process: the kernel and alembic are found
    os.environ.setdefault("MPLBACKEND", "Agg")


def misnamed_notebooks(root: str | os.PathLike, assignment: str, student: str) -> str:
    """Why a submission's notebooks cannot be graded by name, or ``""``.

    nbgrader grades every ``*.ipynb`` of ``submitted/<student>/<assignment>/`` by its name, and a name that is
    not one of the assignment's notebooks (``01_cosine (1).ipynb``, as a browser names a second download)
    fails with "did you forget to run generate_assignment", which points at the instructor. Here the file
    found is named, with the names expected.

    Parameters
    ----------
    root : path
        The course root.
    assignment, student : str
        The submission.

    Returns
    -------
    str
        The message for the person (what was found, what to rename), or ``""``.
    """
    root = Path(root)
    cfg = load_course_config(root)
    source = root / cfg.CourseDirectory.get("source_directory", "source") / assignment
    expected = sorted(p.name for p in source.glob("*.ipynb"))
    folder = root / "submitted" / student / assignment
    try:
        found = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".ipynb") and not e.name.startswith("."))
    except OSError:
        return ""
    strange = [n for n in found if n not in expected]
    if not strange or not expected:
        return ""
    shown = ", ".join(repr(n) if n.isprintable() else ascii(n) for n in strange[:5])
    missing = [n for n in expected if n not in found]
    todo = (f"rename it: mv 'submitted/{student}/{assignment}/{strange[0]}' 'submitted/{student}/{assignment}/"
            f"{missing[0]}'" if len(strange) == 1 and len(missing) == 1 and strange[0].isprintable()
            else "keep only the assignment's notebooks, under their names")
    return (f"submitted/{student}/{assignment}/ holds {shown}, which is not a notebook of {assignment} (its "
            f"notebooks: {', '.join(expected)}{'; missing: ' + ', '.join(missing) if missing else ''}). The student "
            f"probably handed in a renamed copy: {todo}, then grade again.")


def _job(root: str, assignment: str, student: str, sandbox: bool, feedback: bool,
         marker: str | None = None) -> GradeReport:
    """Grade one submission in a worker; ``marker`` (a file) exists while it runs, so a marker left
    behind names a job whose process died."""
    if marker:
        Path(marker).write_text(str(os.getpid()))
    try:
        misnamed = misnamed_notebooks(root, assignment, student)
        if misnamed:
            return GradeReport(assignment, student, 0.0, 0.0, False, misnamed)
        for attempt in range(3):
            try:
                report = grade_submission(root, assignment, student, sandbox=sandbox, feedback=feedback)
            except Exception as exc:  # a gradebook error must not stop the other submissions
                report = GradeReport(assignment, student, 0.0, 0.0, False, f"{type(exc).__name__}: {exc}")
            report.notes = warm.take_notes()  # reported by the run (a template that stopped, plain kernels)
            if report.success or "database is locked" not in report.error:
                return report
            time.sleep(1 + attempt)
        return report
    finally:
        if marker:
            Path(marker).unlink(missing_ok=True)


def _local_pool(workers: int, path: str):
    """Worker processes forked by multiprocessing's fork server, which has imported :data:`PRELOAD` once.

    Each worker starts as a spawned one would (a fresh process, not a copy of this one and its threads),
    with this process's current environment, ``sys.path`` and working folder, but without importing the
    grader again. The fork server is started at the first pool and serves every later one of this process.
    """
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    context = get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init,
                               initargs=(path, dict(os.environ)))


def _grade_locally(root: Path, todo: list, isolate: set, workers: int, sandbox: bool, feedback: bool, path: str,
                   done, pool=None) -> None:
    """Grade ``todo`` in pools of worker processes, calling ``done(key, report)`` for each.

    A worker that dies breaks its pool, and the pool stops every job it holds. The jobs that were
    running then (their marker files are left) become suspects, each graded again alone in a pool
    of its own (as are the keys in ``isolate`` from the start); the jobs not started yet go to a
    fresh shared pool. A suspect whose lone process dies too is the culprit: failed, flagged.
    ``pool``, if given, is used (and shut down) for the first shared round: the canaries' pool, whose
    processes have their warm-kernel templates started already (:mod:`helpers.grading.warm`)."""
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
            first, pool = pool, None
            with first or _local_pool(min(workers, len(shared)), path) as pool:
                futures = {}
                for a, s in shared:
                    marker = str(markers / str(index[a, s]))
                    try:
                        futures[pool.submit(_job, str(root), a, s, sandbox, feedback, marker)] = (a, s)
                    except BrokenProcessPool:  # a job submitted before broke the pool: this one never started
                        broken.append((a, s))
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


def _canary_job(root: str, assignment: str, sandbox: bool, feedback: bool) -> CanaryReport:
    return check_worked_solution(root, assignment, sandbox=sandbox, feedback=feedback)


def _run_canaries(root: Path, names: list[str], workers: int, sandbox: bool, feedback: bool, path: str,
                  scheduler: str | None, pool=None) -> dict:
    """:func:`check_worked_solution` of each assignment, where the submissions will be graded (local
    worker processes, or the Dask cluster); ``{assignment: CanaryReport}``. ``pool``: the local pool to
    use (left running, for the submissions)."""
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
                                                f"{type(exc).__name__}: {one_line(exc)}")

    if scheduler:
        from .cluster import executor

        with executor(scheduler, root) as cluster:
            collect(cluster)
    elif pool is not None:
        collect(pool)
    else:
        with _local_pool(max(1, min(workers, len(names))), path) as own:
            collect(own)
    return out


def submitted_assignments(root: str | os.PathLike = ".") -> list[str]:
    """List the assignments of the source directory that at least one student has submitted.

    The default set of assignments of :func:`grade_class`; nbgrader's API says who submitted what.

    Parameters
    ----------
    root : path
        The course root.

    Returns
    -------
    list of str
        Sorted names: those with a ``submitted/<student>/<assignment>/`` folder.
    """
    cfg, api = course_api(root, sandbox=False)
    source = Path(root).resolve() / cfg.CourseDirectory.get("source_directory", "source")
    names = sorted(p.name for p in source.iterdir() if p.is_dir() and not p.name.startswith(".")) if source.is_dir() else []
    return [a for a in names if api.get_submitted_students(a)]


def roster_of(db_url: str) -> set[str]:
    """Read the ids of the students the gradebook knows.

    Those are an imported roster and those graded before; without a gradebook, none (and no gradebook
    is created).

    Parameters
    ----------
    db_url : str
        The gradebook.

    Returns
    -------
    set of str
        Their ids.
    """
    from nbgrader.api import Gradebook

    if not gradebook_exists(db_url):
        return set()
    with Gradebook(db_url) as gb:
        return {s.id for s in gb.students}


def not_on_roster(students, roster: set[str]) -> str:
    """Why the submissions of ``students`` not in ``roster`` stop the run, or ``""`` when all are in it.

    A folder name with a typo (``zoë`` for ``zoe``, an e-mail address for the id) would otherwise become a
    new student in the gradebook and a row of the LMS export. Each name is shown with the closest ids of
    the roster.

    Parameters
    ----------
    students : iterable of str
        The folder names under ``submitted/``.
    roster : set of str
        :func:`roster_of`; empty (no roster imported, nobody graded yet) accepts everyone.

    Returns
    -------
    str
        The message for the person, naming each unknown folder and what to do.
    """
    import difflib
    import unicodedata

    unknown = sorted(set(students) - roster) if roster else []
    if not unknown:
        return ""

    def plain(name: str) -> str:
        return unicodedata.normalize("NFKD", name.split("@")[0]).encode("ascii", "ignore").decode().lower()

    folded = {plain(r): r for r in roster}
    lines = []
    for name in unknown:
        close = difflib.get_close_matches(plain(name), list(folded), n=3, cutoff=0.6)
        hint = f" (did you mean {' or '.join(folded[c] for c in close)}?)" if close else ""
        shown = name if name.isprintable() and len(name) <= 80 else ascii(name[:80])  # no terminal controls
        lines.append(f"  submitted/{shown}/{hint}")
    return (f"{len(unknown)} submission folder(s) name a student who is not on the roster (the {len(roster)} students "
            f"of the gradebook):\n" + "\n".join(lines) + "\nA misnamed folder would become a new student in the "
            "gradebook and the LMS export. Rename the folder to the student's id (mv submitted/OLD submitted/ID), "
            "or add the student to the roster (nbgrader db student add ID --first-name=... --last-name=...), or, if "
            "these are new students, run again with --new-students. Nothing was graded.")


def blocking_failures(reports: list[GradeReport]) -> list[GradeReport]:
    """The failed submissions that stop the exports: all of them when none was graded or skipped.

    A submission nbgrader could not grade, in a run where others were graded (the worked solution
    proved the environment first), costs only its student: it is flagged (:data:`FAILED`) and the
    others are exported. When every submission failed, the cause is more likely the grading
    environment than the students: nothing is exported. A submission whose grading process died
    even alone is never among them: it is flagged for a person, and it would fail again on every run.

    Parameters
    ----------
    reports : list of GradeReport
        The run's reports.

    Returns
    -------
    list of GradeReport
        The failures that block the exports (empty: write them).
    """
    failed = [r for r in reports if not r.success and not r.died]
    return failed if failed and not any(r.success for r in reports) else []


def grade_class(root: str | os.PathLike = ".", *, assignments: list[str] | None = None, workers: int | None = None,
                sandbox: bool = True, force: bool = False, feedback: bool = True, export: str | None = "grades.csv",
                progress: bool = True, scheduler: str | None = None, canary: bool = True,
                roster: bool = False, private: bool = False, log=None) -> list[GradeReport]:
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
    sandbox : bool
        As in :func:`grade_submission`.
    force : bool
        Regrade submissions whose files have not changed since they were last graded.
    feedback : bool
        As in :func:`grade_submission`.
    export : str or None
        The path of nbgrader's CSV of the grades, relative to ``root``; ``grades_lms.csv``,
        ``question_stats.csv``/``.png`` and ``flags.csv`` are written next to it (:func:`write_exports`).
        None: no exports. Not written when every submission failed (:func:`blocking_failures`).
    progress : bool
        Show one progress bar (on stderr).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:8786``): the submissions are graded
        by its workers (:func:`helpers.grading.cluster.executor`) instead of local processes, and
        ``workers`` is ignored. The workers must see the course folder at the same path and use
        the same gradebook (PostgreSQL for several machines): docs/SYSADMIN.md.
    canary : bool
        Grade the worked solutions first (default). Only tests that have just proved the same
        environment switch it off.
    roster : bool
        Refuse a submission folder named after a student the gradebook does not know (:func:`not_on_roster`):
        nothing is graded. ``python -m helpers grade`` sets it unless given ``--new-students``. A gradebook
        without students (no roster imported, nothing graded yet) accepts every name, with a line to ``log``.
    private : bool
        Before grading, take every permission of others off the gradebook, the grading folders and the
        exports, and keep this process's umask at 007 or tighter (:func:`helpers.grading.course.keep_private`);
        ``python -m helpers grade`` sets it.
    log : callable, optional
        Called with a line for the person (the canaries' times, the gradebook prepared, modes fixed).

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
        A worked solution did not get full marks, the gradebook cannot be made ready, or (with ``roster``)
        a submission names a student not on the roster: nothing was graded, the gradebook and the
        exports are as they were.
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
    cfg, api = course_api(root, sandbox)
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
    if private:
        made = keep_private(root, db_url)
        if made:
            log(f"Readable by others until now, made private (SYSADMIN.md, umask): {', '.join(made)}")
    if roster:
        known = roster_of(db_url)
        refused = not_on_roster({s for _, s in work}, known)
        if refused:
            raise GradingStopped(refused)
        if not known:
            log(f"No roster in the gradebook yet: {len({s for _, s in work})} student(s) are added from the folder "
                f"names in submitted/. Import the roster first (nbgrader db student import roster.csv) so that a "
                f"misnamed folder stops the run instead of becoming a new student.")
    state = load_state(root)
    # a submission is unchanged when its files and the assignment's source and hidden tests are unchanged
    sources = {a: assignment_hash(root, source / a, a, cfg.Judge.get("tests_dir", "hidden_tests")) for a in names}
    hashes = {(a, s): submission_hash(root / "submitted" / s / a) + ":" + sources[a] for a, s in work}
    reports, todo = [], []
    flags_of = {}  # assignment -> its flags, read once (skipped submissions keep theirs)
    maybe = [(a, s) for a, s in work if not force and state.get(f"{a}/{s}", {}).get("sha256") == hashes[a, s]
             and (root / "autograded" / s / a).is_dir()]
    if maybe and gradebook_exists(db_url):
        with Gradebook(db_url) as gb:
            for a, s in maybe:
                try:
                    score, max_score, late = score_of(gb, a, s)
                except MissingEntry:
                    continue
                if a not in flags_of:
                    flags_of[a] = read_submission_flags(db_url, a)
                mine = [f for f in flags_of[a] if f["student"] == s]
                reports.append(GradeReport(a, s, score, max_score, True, "", mine, True, late))
    done_keys = {(r.assignment, r.student) for r in reports}
    todo = [key for key in work if key not in done_keys]
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    to_grade = sorted({a for a, _ in todo})
    died_before = {(a, s) for a, s in todo if state.get(f"{a}/{s}", {}).get("died")}
    # one pool for the canaries and the first round of submissions: a worker's warm-kernel template serves both
    pool = None
    if to_grade and canary and not scheduler and len(todo) > len(died_before):
        pool = _local_pool(max(1, min(workers, len(todo) - len(died_before))), path)
    try:
        if to_grade and not scheduler:
            mismatch = course_package_mismatch(root, cfg)
            if mismatch:
                raise GradingStopped(mismatch)
        canaries = {}
        if to_grade and canary:
            canaries = _run_canaries(root, to_grade, workers, sandbox, feedback, path, scheduler, pool)
            failed = [canaries[a] for a in to_grade if not canaries[a].ok]
            if failed:
                raise GradingStopped("\n\n".join(c.reason for c in failed) + "\n\nNo submission was graded; the "
                                     "gradebook and the exports are as they were.")
            for a in to_grade:
                log(f"{a}: the worked solution got full marks ({canaries[a].seconds:.0f} s)")
        if to_grade:
            for note in prepare_gradebook(api, db_url, to_grade, canaries):
                log(note)
        bar = tqdm(total=len(work), initial=len(reports), desc="Autograding", unit=" submission",
                   disable=not progress)

        def done(key, report):
            a, s = key
            for text in getattr(report, "notes", ()):
                log(f"{a}/{s}: warm kernels: {text}")
            if report.died:
                if flag_submission(db_url, a, s, DIED):
                    report.flags = read_submission_flags(db_url, a, s)
                else:
                    report.flags = [{"assignment": a, "student": s, "notebook": "", "cell": None, "reason": DIED}]
                state[f"{a}/{s}"] = {"died": hashes[a, s]}
            elif report.success:
                state[f"{a}/{s}"] = {"sha256": hashes[a, s]}
            else:  # not recorded: graded again on the next run
                state.pop(f"{a}/{s}", None)
                reason = FAILED.format(error=one_line(report.error or "no reason given"))
                with Gradebook(db_url) as gb:  # a row of the LMS export, marked flagged (the name passed the roster)
                    gb.update_or_create_student(s)
                if flag_submission(db_url, a, s, reason):  # an earlier record keeps its scores, flagged
                    report.flags = read_submission_flags(db_url, a, s)
                else:
                    report.flags = [{"assignment": a, "student": s, "notebook": "", "cell": None, "reason": reason}]
            with _Shield():
                save_state(root, state)
            reports.append(report)
            bar.update(1)

        if todo and scheduler:
            from .cluster import executor

            with executor(scheduler, root) as cluster:
                futures = {cluster.submit(_job, str(root), a, s, sandbox, feedback): (a, s) for a, s in todo}
                for fut in as_completed(futures):
                    a, s = futures[fut]
                    try:
                        report = fut.result()
                    except Exception as exc:  # a worker process died (Dask retried it once)
                        report = GradeReport(a, s, 0.0, 0.0, False, f"{type(exc).__name__}: {exc}")
                    done((a, s), report)
        elif todo:
            _grade_locally(root, todo, died_before, workers, sandbox, feedback, path, done, pool)
        bar.close()
        reports.sort(key=lambda r: (r.assignment, r.student))
        if export and not blocking_failures(reports):
            with _Shield():
                write_exports(root, export, reports, api=api)
        return reports
    finally:
        if pool is not None:
            pool.shutdown(wait=not _stopping(), cancel_futures=True)
