"""A course folder as the grader sees it: its ``nbgrader_config.py`` with the grader's plugins wired in,
nbgrader's API on it, and what one graded submission reports.

:func:`configure` puts the course's grading steps into a configuration (the sandboxed execution, the
judge, the intake of submissions, the feedback's rendering); ``nbgrader_config.py`` calls it, and so does
:func:`course_api` for every grading run, so ``nbgrader autograde`` and ``python -m helpers grade``
grade the same way. :func:`nbgrader_error` finds the real cause of a failed nbgrader call.
"""
from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.converters.autograde import Autograde
from nbgrader.preprocessors import Execute

from .engines import share_engines
from .execute import ResilientExecute
from .flags import open_flags
from .rendering import ShowStudentText
from .sandbox import SandboxError, find_bwrap, missing_bwrap_message
from .submission import CheckCellMetadataOnce, TakeSubmission

__all__ = ["GradeReport", "load_course_config", "configure", "course_api", "create_gradebook", "default_workers",
           "nbgrader_error", "keep_private", "bin_on_path", "gradebook_exists", "read_submission_flags",
           "PRIVATE_FOLDERS", "PRIVATE_FILES", "PRIVATE_UMASK"]


SQLITE_TIMEOUT = 120                 # seconds a worker waits for another worker's gradebook write


@dataclass
class GradeReport:  # numpydoc ignore=PR01
    """What grading one submission reported.

    A grading run makes one per submission; its summary, its exit code and the console's lines are made
    from them.

    Attributes
    ----------
    assignment : str
        The assignment's name.
    student : str
        The student's id.
    score : float
        The score after any late penalty.
    max_score : float
        The assignment's maximum score.
    success : bool
        Whether nbgrader's autograde succeeded.
    error : str
        nbgrader's error in one line (:func:`nbgrader_error`); ``""`` on success.
    flags : list
        The open flags raised, dicts as :func:`helpers.grading.flags.read_flags` returns them.
    skipped : bool
        Whether it was skipped as already graded.
    seconds_late : float
        How many seconds late it was submitted.
    died : bool
        Whether its grading process died, even when it was graded alone.
    notes : list
        What happened to the warm kernels' template while it was graded
        (:func:`helpers.grading.warm.take_notes`: a template that stopped answering, failed imports,
        kernels started plainly).
    """

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
    notes: list = field(default_factory=list)


def load_course_config(root: str | os.PathLike):
    """Read the traitlets ``Config`` of ``root/nbgrader_config.py``.

    nbgrader's Python API does not read the course's configuration file itself; this loads it as
    nbgrader's command line would.

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
    """Count the cores this process may use.

    ``os.process_cpu_count`` where Python has it, else the affinity mask, else ``os.cpu_count``:
    the default number of grading workers.

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
def bin_on_path():
    """Put the Python environment's ``bin`` folder first on ``PATH`` for the duration.

    nbgrader creates a gradebook by running the ``alembic`` executable, which is found on ``PATH``;
    the previous ``PATH`` (or its absence) is restored afterwards.

    Yields
    ------
    None
        Control, with ``PATH`` changed.
    """
    saved = os.environ.get("PATH")
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + (saved or "")
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = saved


def read_submission_flags(db_url: str, assignment: str, student: str | None = None) -> list[dict]:
    """List the open flags of an assignment in the gradebook.

    The same flags as :func:`helpers.grading.flags.open_flags` returns, which ``flags.csv`` lists, so
    the console says the same as the export.

    Parameters
    ----------
    db_url : str
        The gradebook's database URL.
    assignment : str
        The assignment's name.
    student : str, optional
        Only this student's flags, when given.

    Returns
    -------
    list of dict
        The open flags, as :func:`helpers.grading.flags.open_flags` returns them.
    """
    return [f for f in open_flags(db_url, [assignment]) if student is None or f["student"] == student]


def course_api(root, sandbox: bool, scratch: Path | None = None):
    """Open nbgrader's API on the course at ``root``, configured for grading.

    The course's configuration is loaded and passed through :func:`configure`; a SQLite gradebook's URL
    gets a busy timeout of ``SQLITE_TIMEOUT`` seconds, so parallel workers wait for each other's writes.
    With ``scratch`` (a folder), the gradebook and the release, submitted, autograded and feedback
    folders are in ``scratch`` instead: the course's source, hidden tests, grader's secret, sandbox
    and configuration are the course's own, nothing of the course's grading state is touched.

    Parameters
    ----------
    root : path
        The course root.
    sandbox : bool
        Run kernels in bubblewrap (see :func:`configure`).
    scratch : path, optional
        A folder for the gradebook and nbgrader's step folders instead of the course's.

    Returns
    -------
    tuple
        ``(config, api)``: the ``traitlets.config.Config`` and an ``nbgrader.apps.NbGraderAPI`` on it.

    Raises
    ------
    FileNotFoundError
        ``root`` has no ``nbgrader_config.py``.
    SandboxError
        ``sandbox=True`` and bubblewrap is not installed.
    """
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    root = Path(root).resolve()
    cfg = load_course_config(root)
    cfg = configure(cfg, sandbox=sandbox)
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


#: What a grading run keeps from everyone but the grading account (and its group, for a group-shared course):
#: the folders nbgrader fills with students' work (nbgrader itself gives their files mode 644 and its folders 755,
#: so the folder itself must bar others), the exports of grades and the roster.
PRIVATE_FOLDERS = ("submitted", "autograded", "feedback", "downloaded")
#: The files of :func:`keep_private`: the exports of grades and flags, the roster.
PRIVATE_FILES = ("roster.csv", "grades.csv", "grades_lms.csv", "flags.csv", "question_stats.csv",
                 "question_stats.png")
#: The umask of the grading commands at least: nothing they create is readable by others.
PRIVATE_UMASK = 0o007


def keep_private(root, db_url: str | None = None) -> list[str]:
    """Take every permission of "others" off the course's grading state, and tighten this process's umask.

    A course folder that everyone may pass through (mode 0711 on a hub) exposes whatever inside it is
    readable by others; files and folders made after installation follow the umask of whoever made them.
    Here the SQLite gradebook (with its journal), :data:`PRIVATE_FOLDERS` and :data:`PRIVATE_FILES` of
    ``root`` lose their ``o=rwx`` bits (owner and group bits are kept: a group-shared course keeps
    working), and the umask gains :data:`PRIVATE_UMASK`. Links are not followed.

    Parameters
    ----------
    root : path
        The course root.
    db_url : str, optional
        The gradebook; a SQLite file is checked.

    Returns
    -------
    list of str
        What was readable by others and is no longer (paths relative to ``root``), for the person.
    """
    import stat

    root = Path(root)
    os.umask(os.umask(0) | PRIVATE_UMASK)
    paths = [root / name for name in (*PRIVATE_FOLDERS, *PRIVATE_FILES)]
    db = _sqlite_file(db_url) if db_url else None
    if db is not None:
        paths += [db, db.with_name(db.name + "-journal"), db.with_name(db.name + "-wal")]
    fixed = []
    for path in paths:
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode) or not st.st_mode & 0o007:
            continue
        os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o007)
        fixed.append(os.path.relpath(path, root) if str(path).startswith(str(root)) else str(path))
    return fixed


_GENERIC = ("Please see the", "There was an error processing", "Traceback (most recent call last)")


def _sqlite_file(db_url: str) -> Path | None:
    """The file of a SQLite gradebook's URL (None: another database, or SQLite in memory)."""
    if not db_url.startswith("sqlite:///"):
        return None
    path = db_url[len("sqlite:///"):].split("?", 1)[0]
    return None if path in ("", ":memory:") else Path(path)


def gradebook_exists(db_url: str) -> bool:
    """Tell whether the gradebook of ``db_url`` exists.

    Opening a SQLite gradebook whose file does not exist would create it, so a run that only reads
    asks first; other databases are taken to exist.

    Parameters
    ----------
    db_url : str
        The gradebook's database URL.

    Returns
    -------
    bool
        False only for a SQLite gradebook whose file does not exist yet.
    """
    path = _sqlite_file(db_url)
    return path is None or path.exists()


def create_gradebook(db_url: str) -> None:
    """Create the SQLite gradebook of ``db_url`` if its file does not exist yet, as nbgrader would, in this process.

    nbgrader creates a new gradebook by running the ``alembic`` command to learn its schema's version: a
    second Python process of about 2.5 CPU-seconds. Here nbgrader's tables are created directly and the
    version is read from nbgrader's own migration scripts, which is what that command prints; the result is
    the same file (``tests/test_grading.py`` compares the two). Where those scripts cannot be read, nbgrader
    creates it as usual; a gradebook that is not a SQLite file, or exists, is left alone.

    Parameters
    ----------
    db_url : str
        The gradebook's database URL.
    """
    path = _sqlite_file(db_url)
    if path is None or path.exists():
        return
    import nbgrader
    from nbgrader.api import Base, Gradebook
    from sqlalchemy import create_engine, text

    try:
        from alembic.script import ScriptDirectory

        head = ScriptDirectory(str(Path(nbgrader.__file__).parent / "alembic")).get_current_head()
    except Exception:  # noqa: BLE001 - nbgrader's own way, below
        head = None
    if not head:
        with bin_on_path(), Gradebook(db_url):
            return
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.{os.getpid()}.part")  # made whole, then moved in: never half a gradebook
    engine = create_engine(f"sqlite:///{part}", future=True)
    try:
        try:
            Base.metadata.create_all(bind=engine)
            with engine.begin() as conn:
                conn.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
                conn.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": head})
        finally:
            engine.dispose()
        if not path.exists():
            os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


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


def configure(cfg, *, sandbox: bool = True, memory_mb: int | None = None, require_bwrap: bool = True):
    """Set up an nbgrader configuration so that autograding runs each kernel sandboxed.

    Puts ``helpers.grading.execute.ResilientExecute`` in place of nbgrader's ``Execute`` in
    ``Autograde.autograde_preprocessors`` (a cell that hangs or kills its kernel costs that cell
    only; the time and output budgets) and sets ``Sandbox.enabled`` / ``Sandbox.memory_mb``. A
    configuration that lacks them also gets the rules of :mod:`helpers.grading.submission` and
    :mod:`helpers.grading.rendering` (``nbgrader_config.py`` sets them itself): ``TakeSubmission`` first
    and ``ShowStudentText`` last in ``Autograde.sanitize_preprocessors``, the
    ``Autograde.pre_convert_hook``, ``ExchangeFactory.collect`` and ``HTMLExporter.sanitize_html``.

    Two steps are made cheaper without checking less: nbgrader's ``CheckCellMetadata`` becomes
    :class:`helpers.grading.submission.CheckCellMetadataOnce` (the same checks, one schema validator per
    process), and nbconvert validates the notebook against nbformat's schema once, after the last step of a
    list, instead of after every step (``Exporter.optimistic_validation``; an invalid result still stops
    the run). On ``01_cosine`` (per submission: two runs of the metadata check, and 14 of the 16 validations)
    that is about 0.09 CPU-s of the grader's 0.6-0.7 per submission, measured step by step. And, for this
    whole process, nbgrader's gradebooks share one SQLAlchemy engine per database
    (:func:`helpers.grading.engines.share_engines`), so their SQL is compiled once, not at every opening.

    Parameters
    ----------
    cfg : traitlets.config.Config
        The course configuration (e.g. ``helpers.grading.course.load_course_config(root)``); changed in place.
    sandbox : bool
        Run kernels in bubblewrap (default). ``False`` runs them with the grader's rights.
    memory_mb : int, optional
        Memory limit of a kernel in MiB (default :data:`helpers.grading.sandbox.DEFAULT_MEMORY_MB`; 0 for none).
    require_bwrap : bool
        Check now that bubblewrap is installed (default). ``nbgrader_config.py`` passes False: it is
        read by every nbgrader command, and a missing bubblewrap should stop autograding only (the
        kernel start raises :class:`SandboxError` then).

    Returns
    -------
    traitlets.config.Config
        ``cfg``.

    Raises
    ------
    SandboxError
        ``sandbox=True`` and bubblewrap is not installed (the message says how to install it).
    """
    if sandbox and require_bwrap and find_bwrap() is None:
        raise SandboxError(missing_bwrap_message())
    share_engines()
    current = cfg.Autograde.get("autograde_preprocessors") or Autograde.class_traits()["autograde_preprocessors"].default()
    swapped = []
    for pp in current:
        name = _dotted_name(pp)
        if pp is Execute or name in ("nbgrader.preprocessors.Execute", "nbgrader.preprocessors.execute.Execute",
                                     "helpers.grading.execute.ResilientExecute"):
            pp = ResilientExecute
        swapped.append(pp)
    if ResilientExecute not in swapped:
        raise SandboxError("Autograde.autograde_preprocessors has no Execute step to sandbox: " + repr(current))
    cfg.Autograde.autograde_preprocessors = _with_quick_metadata_check(swapped)
    sanitize = list(cfg.Autograde.get("sanitize_preprocessors")
                    or Autograde.class_traits()["sanitize_preprocessors"].default())
    names = [_dotted_name(pp) for pp in sanitize]
    if "helpers.grading.submission.TakeSubmission" not in names:
        sanitize.insert(0, TakeSubmission)
    if "helpers.grading.rendering.ShowStudentText" not in names:
        sanitize.append(ShowStudentText)
    cfg.Autograde.sanitize_preprocessors = _with_quick_metadata_check(sanitize)
    if "optimistic_validation" not in cfg.Exporter:
        cfg.Exporter.optimistic_validation = True
    if "pre_convert_hook" not in cfg.Autograde:
        cfg.Autograde.pre_convert_hook = "helpers.grading.submission.before_autograde"
    if "collect" not in cfg.ExchangeFactory:
        cfg.ExchangeFactory.collect = "helpers.grading.submission.SafeCollect"
    if "sanitize_html" not in cfg.HTMLExporter:
        cfg.HTMLExporter.sanitize_html = True
    cfg.Sandbox.enabled = bool(sandbox)
    if memory_mb is not None:
        cfg.Sandbox.memory_mb = int(memory_mb)
    return cfg


_NBGRADER_CHECK_METADATA = ("nbgrader.preprocessors.CheckCellMetadata",
                            "nbgrader.preprocessors.checkcellmetadata.CheckCellMetadata")


def _with_quick_metadata_check(steps: list) -> list:
    """``steps`` with nbgrader's ``CheckCellMetadata`` replaced by :class:`CheckCellMetadataOnce`."""
    return [CheckCellMetadataOnce if _dotted_name(pp) in _NBGRADER_CHECK_METADATA else pp for pp in steps]


def _dotted_name(pp) -> str:
    return pp if isinstance(pp, str) else f"{pp.__module__}.{pp.__qualname__}"
