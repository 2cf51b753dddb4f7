"""What a submission is: its notebooks, as regular files, and nothing else.

A student controls every byte of what they hand in, and the *type* of every file too. A symbolic
link named like a data file points wherever its author likes, and whoever copies it with
``shutil.copy`` copies the target, with the copier's rights; a named pipe blocks whoever reads
it; a ``helpers/`` package or a ``numpy.py`` beside the notebook shadows the course's in a kernel
whose working folder is on ``sys.path``; an ``ipython_kernel_config.py`` there runs when the
kernel starts. nbgrader 0.9 copies all of them, following links: ``nbgrader collect`` copies each
inbound folder with ``shutil.copytree`` (``ExchangeCollect.do_copy``); autograde copies every
file but the notebooks from ``submitted/`` to ``autograded/`` with ``shutil.copy``
(``BaseConverter.init_assignment``), and ``generate_feedback`` copies them on to ``feedback/``.

So a submission is its notebooks ``<name>.ipynb`` at the top of its folder, each a regular file
(not a link, a folder or a pipe) of at most :data:`MAX_NOTEBOOK_BYTES`, plus nbgrader's
``timestamp.txt`` and ``submission_secret.txt`` (regular files of at most :data:`MAX_TIMESTAMP_BYTES`;
``release_feedback`` needs the second). Everything else is dropped, and nothing is ever opened through a link:

* **at collection**: :class:`SafeCollect` (``c.ExchangeFactory.collect`` in ``nbgrader_config.py``)
  copies only those files, each opened without following links, from the exchange's inbound
  folder to ``submitted/``; an inbound entry that is itself a link is not collected;
* **before autograding**: :func:`before_autograde` (``c.Autograde.pre_convert_hook``) removes
  everything else from ``submitted/<student>/<assignment>/`` before nbgrader copies anything
  (this also covers ``nbgrader zip_collect`` and submissions put there by hand); a notebook that
  is not a regular file, or too large, is never read: it is graded as the untouched release
  (0 points);
* :class:`TakeSubmission`, the first of ``Autograde.sanitize_preprocessors``: discards the
  metadata the submission brings, of the notebook (only ``kernelspec`` and ``language_info`` are
  kept: a ``course_flags`` entry would otherwise pose as the grader's own flags) and of its cells
  (only nbgrader's is kept: a ``skip-execution`` tag on a test cell would make nbclient skip it,
  and a skipped test cell has no error, so it scores full marks), checks the folder once more,
  and flags what was dropped (:func:`helpers.grading.flags.add_flag`).

The kernel never sees the submission's folder anyway when it runs in the sandbox (its working
folder is a fresh, size-limited tmpfs: :mod:`helpers.grading.sandbox`), and it starts with the working
folder off ``sys.path`` (``PYTHONSAFEPATH``); both hold without the other.
"""
from __future__ import annotations

import functools
import os
import shutil
import stat
import threading
import traceback

import jsonschema
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.nbgraderformat import MetadataValidator, SchemaTooNewError, SchemaTooOldError, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import CheckCellMetadata, NbGraderPreprocessor
from nbgrader.utils import is_grade

from .flags import add_flag, safe_name

__all__ = ["MAX_NOTEBOOK_BYTES", "MAX_TIMESTAMP_BYTES", "TIMESTAMP", "SUBMISSION_SECRET", "KEEP_METADATA", "PLACEHOLDER", "clean_submission",
           "before_autograde", "SafeCollect", "TakeSubmission", "CheckCellMetadataOnce", "restore_nbgrader_metadata",
           "refuse_in_formgrader", "FORMGRADER_AUTOGRADE"]

#: Largest notebook accepted (bytes). The course's worked solutions, executed with every output
#: kept (what a student who runs everything submits), are at most about 0.4 MB (07_wefat: 61 kB of
#: cells, 0.34 MB of outputs); 20 MB leaves fifty times that and keeps the grader's memory small.
MAX_NOTEBOOK_BYTES = 20 * 1000 * 1000
#: nbgrader's ``timestamp.txt`` holds one date (about 32 bytes), its ``submission_secret.txt`` 128 hex
#: digits (written by ``nbgrader submit``; ``release_feedback`` names the feedback file after it).
MAX_TIMESTAMP_BYTES = 1024
#: nbgrader's file of the submission's date, kept beside the notebooks.
TIMESTAMP = "timestamp.txt"
#: The file ``nbgrader submit`` writes with the submission's secret, kept beside the notebooks.
SUBMISSION_SECRET = "submission_secret.txt"
#: Notebook-level metadata kept from a submission (everything else is discarded before grading).
KEEP_METADATA = ("kernelspec", "language_info")
#: Marks the notebook :func:`clean_submission` puts in place of one it removed.
PLACEHOLDER = "course_placeholder"

_LOCK = threading.Lock()
_DROPPED: dict[str, list[str]] = {}  # submission folder (real path) -> what before_autograde dropped


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "file"


def _verdict(name: str, st: os.stat_result) -> str | None:
    """None when the entry belongs to a submission, else why it does not."""
    if not stat.S_ISREG(st.st_mode):
        return _kind(st.st_mode)
    if name in (TIMESTAMP, SUBMISSION_SECRET):
        return None if st.st_size <= MAX_TIMESTAMP_BYTES else f"file over {MAX_TIMESTAMP_BYTES} bytes"
    if name.endswith(".ipynb") and not name.startswith("."):
        return None if st.st_size <= MAX_NOTEBOOK_BYTES else f"notebook over {MAX_NOTEBOOK_BYTES // 10**6} MB"
    return "file"


def _remove(path: str, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)  # removes links inside without following them
    else:
        os.unlink(path)


def _empty_notebook(path: str) -> None:
    """A notebook without cells, marked :data:`PLACEHOLDER` (:class:`TakeSubmission` grades the release instead)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata[PLACEHOLDER] = True
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        nbformat.write(nb, fh)


def clean_submission(folder, *, placeholders=()) -> list[str]:
    """Remove from a submission folder everything that is not part of a submission.

    Kept: the notebooks ``*.ipynb`` at the top of the folder that are regular files of at most
    :data:`MAX_NOTEBOOK_BYTES`, and ``timestamp.txt`` and ``submission_secret.txt`` (regular, at most
    :data:`MAX_TIMESTAMP_BYTES`). Removed without being opened or followed: every other file,
    every folder (with its contents), symbolic link, pipe, socket or device. Nothing outside
    ``folder`` is touched.

    Parameters
    ----------
    folder : path
        ``submitted/<student>/<assignment>/``.
    placeholders : iterable of str
        Names of notebooks that must exist afterwards (those nbgrader is about to grade): when one
        of them was removed it is replaced by an empty notebook marked :data:`PLACEHOLDER`, which
        :class:`TakeSubmission` grades as the untouched release (0 points).

    Returns
    -------
    list of str
        One description per entry removed, e.g. ``"config.py (symbolic link)"``; names pass
        through :func:`safe_name`. Empty when the folder was already clean.
    """
    folder = os.fspath(folder)
    dropped = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except FileNotFoundError:
        return []
    for entry in entries:
        st = entry.stat(follow_symlinks=False)
        why = _verdict(entry.name, st)
        if why is None:
            continue
        _remove(entry.path, st)
        note = f"{safe_name(entry.name)} ({why})"
        if entry.name in set(placeholders):
            _empty_notebook(entry.path)
            note += ", graded as the untouched release"
        dropped.append(note)
    for name in placeholders:  # a notebook nbgrader listed but that is gone (e.g. a broken link)
        path = os.path.join(folder, name)
        if not os.path.lexists(path):
            _empty_notebook(path)
    return dropped


def _folder_is_real(folder: str) -> bool:
    """``submitted/<student>/<assignment>`` and ``submitted/<student>`` are folders, not links."""
    for p in (folder, os.path.dirname(folder)):
        try:
            if not stat.S_ISDIR(os.lstat(p).st_mode):
                return False
        except OSError:
            return False
    return True


def before_autograde(assignment=None, student=None, notebooks=(), **_) -> None:
    """``Autograde.pre_convert_hook``: clean each submission folder before nbgrader reads or copies it.

    nbgrader calls it once per submission, after listing the submission's notebooks and before
    copying its files to ``autograded/`` (``BaseConverter.convert_notebooks``). What it drops is
    remembered for :class:`TakeSubmission`, which flags it. nbgrader logs and ignores an
    exception raised by a hook, so this one raises none: a folder it cannot clean is reported
    in the log and cleaned (and flagged) again by :class:`TakeSubmission`.

    Parameters
    ----------
    assignment, student : str
        As nbgrader passes them (``student`` may be ``"*"``).
    notebooks : list of str
        The submission's notebook paths nbgrader is about to grade.
    **_ : dict
        What else nbgrader passes (ignored).
    """
    import logging

    log = logging.getLogger("helpers.grading.submission")
    for folder in sorted({os.path.dirname(os.path.abspath(p)) for p in notebooks}):
        names = [os.path.basename(p) for p in notebooks if os.path.dirname(os.path.abspath(p)) == folder]
        try:
            if not _folder_is_real(folder):
                raise OSError(f"{folder} is not a folder (a symbolic link?)")
            dropped = clean_submission(folder, placeholders=names)
        except Exception as exc:  # noqa: BLE001 - reported, and checked again by TakeSubmission
            log.error("Cleaning the submission %s failed: %s", folder, exc)
            continue
        if dropped:
            log.warning("Dropped from %s (only the notebooks are graded): %s", folder, "; ".join(dropped))
            with _LOCK:
                _DROPPED.setdefault(os.path.realpath(folder), []).extend(dropped)


class TakeSubmission(NbGraderPreprocessor):  # numpydoc ignore=PR01,PR02
    """Take only the notebook of a submission: an nbgrader preprocessor, first of ``Autograde.sanitize_preprocessors``.

    * The notebook-level metadata the submission brings is discarded, except
      :data:`KEEP_METADATA`; a ``course_flags`` entry (where the grader keeps its flags until
      :class:`helpers.grading.flags.SaveFlags`) is flagged. Each cell keeps only its ``nbgrader``
      metadata (tags such as ``skip-execution`` or ``raises-exception`` change how nbclient runs
      a cell); a test cell tagged ``skip-execution`` is flagged.
    * The submission's folder is cleaned once more (:func:`clean_submission`: nothing if
      :func:`before_autograde` ran), and everything dropped is flagged for the whole notebook.

    Parameters
    ----------
    **kw : dict
        The preprocessor's options (traitlets: ``config``, ``parent``).
    """

    def preprocess(self, nb, resources):
        """Take only what is graded of the submitted notebook, and flag what was dropped.

        Stops first when run inside a Jupyter server (:func:`refuse_in_formgrader`). A notebook that
        :func:`clean_submission` replaced by a placeholder gets the release's cells. Cells' nbgrader
        metadata is restored from the release (:func:`restore_nbgrader_metadata`), with a flag for
        each change; see the class for the rest.

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The submitted notebook.
        resources : dict
            The resources nbgrader passes (the assignment, notebook and folder).

        Returns
        -------
        tuple
            ``(nb, resources)``, ``nb`` changed in place.

        Raises
        ------
        RuntimeError
            Inside a Jupyter server (see :func:`refuse_in_formgrader`).
        """
        from .flags import METADATA_KEY

        refuse_in_formgrader()
        brought = dict(nb.metadata)
        nb.metadata = type(nb.metadata)({k: v for k, v in brought.items() if k in KEEP_METADATA})
        if brought.get(PLACEHOLDER) and not nb.cells:  # the submitted notebook was removed, unread
            release = self._release(resources)
            if release is not None:
                nb.cells = release.cells
                nb.metadata.update({k: v for k, v in release.metadata.items() if k in KEEP_METADATA})
        if METADATA_KEY in brought:
            add_flag(nb, None, f"The submitted notebook's metadata carried a {METADATA_KEY!r} entry (where the "
                               "grader keeps its own flags); it was discarded before grading.")
        skipped = False
        for cell in nb.cells:
            meta = cell.get("metadata") or {}
            tags = meta.get("tags")
            if isinstance(tags, list) and "skip-execution" in tags and isinstance(meta.get("nbgrader"), dict) \
                    and is_grade(cell):
                skipped = True
            cell.metadata = type(nb.metadata)({"nbgrader": meta["nbgrader"]} if "nbgrader" in meta else {})
        if skipped:
            add_flag(nb, None, "A graded cell of the submitted notebook was tagged 'skip-execution' (which would "
                               "skip it, and a skipped test cell has no error); the tag was discarded.")
        try:
            release = self._release(resources)
        except Exception as exc:  # noqa: BLE001 - nbgrader's own checks still run on the submission as it is
            self.log.warning("The release of this notebook could not be read (%s): its nbgrader metadata was not "
                             "checked against the release.", exc)
            release = None
        if release is not None:
            for cell, note in restore_nbgrader_metadata(nb, release):
                add_flag(nb, cell, note)
        folder = ((resources or {}).get("metadata") or {}).get("path")
        if folder:
            name = (resources.get("nbgrader") or {}).get("notebook")
            with _LOCK:
                dropped = _DROPPED.pop(os.path.realpath(folder), [])
            try:
                dropped += clean_submission(folder, placeholders=[f"{name}.ipynb"] if name else [])
            except OSError as exc:
                add_flag(nb, None, f"The submission's folder could not be checked ({type(exc).__name__}).")
            if dropped:
                add_flag(nb, None, "The submission brought more than its notebook; only the notebook is graded, "
                                   "the rest was dropped before grading, unread: " + "; ".join(dropped[:20])
                         + (f"; and {len(dropped) - 20} more" if len(dropped) > 20 else "") + ".")
        return nb, resources

    def _release(self, resources):
        """The released notebook this submission answers (None when there is none)."""
        from .scan import _release_for

        info = (resources or {}).get("nbgrader", {})
        return _release_for(self.config, info.get("assignment", ""), info.get("notebook", ""))


#: What the formgrader's Autograde button shows in its error log (:func:`refuse_in_formgrader`).
FORMGRADER_AUTOGRADE = (
    "Autograding from the formgrader's Autograde button is off for this course: it would grade around the course's "
    "checks (the worked solution graded first, the roster, the record of what was graded, the flags of a "
    "grading process that died, stopping cleanly, private modes). Grade from a terminal in the course folder: "
    "python -m helpers grade (docs/INSTRUCTORS.md, 'The whole class in one command'); the formgrader then shows "
    "the grades, for manual grading.")


def refuse_in_formgrader() -> None:
    """Stop an autograde that runs inside a Jupyter server: the formgrader's Autograde button.

    The formgrader's button calls nbgrader's ``NbGraderAPI.autograde`` in the server's own process, with
    none of what ``python -m helpers grade`` does around it (:mod:`helpers.grading.run`). The course's
    grading, ``nbgrader autograde`` and the canaries run outside any server and are not affected.
    :class:`TakeSubmission`, the first step of every autograde, calls it; the button then shows
    :data:`FORMGRADER_AUTOGRADE` in its error log, and nothing is graded.

    Raises
    ------
    RuntimeError
        With :data:`FORMGRADER_AUTOGRADE`, when this process runs a Jupyter server.
    """
    import sys

    server = sys.modules.get("jupyter_server.serverapp")
    if server is not None and server.ServerApp.initialized():
        raise RuntimeError(FORMGRADER_AUTOGRADE)


def restore_nbgrader_metadata(nb, release) -> list[tuple[str | None, str]]:
    """Put back the release's ``nbgrader`` cell metadata in a submitted notebook, in place.

    The release is the source of truth for which cells are answers, tests or locked, their points,
    ``grade_id`` and checksum. A student can edit all of it in the notebook's JSON: a test cell marked
    as an answer cell, with other points, makes nbgrader's autograde fail on the notebook (its
    ``OverwriteCells`` restores points, locking and source, not the kind of cell). Here each cell of the
    submission that carries a ``grade_id`` of the release (the first one only, when several do), or
    failing that the ``id`` of a released cell with nbgrader metadata, gets that cell's ``nbgrader``
    metadata, unchanged (the checksum is left to nbgrader's ``OverwriteCells``); other nbgrader metadata is
    removed (a second copy of a released cell without a note, as nbgrader's ``DeduplicateIds`` does).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The submitted notebook, changed in place.
    release : nbformat.NotebookNode
        The released notebook of the same name.

    Returns
    -------
    list of (str or None, str)
        One ``(grade_id, reason)`` per cell whose metadata was changed, for
        :func:`helpers.grading.flags.add_flag` (``grade_id`` None: a cell the release does not know).
        Empty for a submission whose metadata is the release's.
    """
    import copy

    by_grade_id, by_cell_id = {}, {}
    for cell in release.cells:
        meta = (cell.get("metadata") or {}).get("nbgrader")
        if isinstance(meta, dict) and meta.get("grade_id"):
            by_grade_id.setdefault(meta["grade_id"], meta)
            if cell.get("id"):
                by_cell_id.setdefault(cell["id"], meta)
    notes, claimed = [], set()
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader")
        gid = meta.get("grade_id") if isinstance(meta, dict) else None
        gid = gid if isinstance(gid, str) else None
        original = by_grade_id.get(gid) if gid not in claimed else None
        if original is None:
            by_id = by_cell_id.get(cell.get("id"))
            original = by_id if by_id is not None and by_id["grade_id"] not in claimed else None
        if original is None:
            if meta is not None:
                del cell.metadata["nbgrader"]
                if gid in claimed:  # a copy of a released cell (as JupyterLab copies it): nbgrader drops it too
                    continue
                notes.append((None, f"A cell carried nbgrader metadata that no cell of the release has "
                                    f"({safe_name(str(gid), 60) if gid else 'no grade_id'}); it was removed "
                                    "before grading."))
            continue
        claimed.add(original["grade_id"])
        # the checksum is left to nbgrader (OverwriteCells sets the gradebook's; the source has none)
        changed = sorted(k for k in (set(meta) | set(original)) - {"checksum"} if meta.get(k) != original.get(k)) \
            if isinstance(meta, dict) else ["all"]
        if changed:
            restored = copy.deepcopy(original)
            if "checksum" not in restored and isinstance(meta, dict) and "checksum" in meta:
                restored["checksum"] = meta["checksum"]
            cell.metadata["nbgrader"] = restored
            notes.append((original["grade_id"], f"The nbgrader metadata of cell {original['grade_id']} was changed "
                                                f"in the submission ({', '.join(safe_name(str(k), 30) for k in changed[:8])}); "
                                                "it was restored from the release before grading."))
    return notes


class SafeCollect(ExchangeCollect):  # numpydoc ignore=PR01,PR02
    """``nbgrader collect`` that copies only a submission's notebooks and ``timestamp.txt``.

    nbgrader's ``ExchangeCollect.do_copy`` copies the whole inbound folder with
    ``shutil.copytree``, following symbolic links with the instructor's rights; students can
    write the inbound folder directly, not only through ``nbgrader submit``. Here the inbound
    entry must itself be a folder (not a link), and each file is copied only if it is part of a
    submission (:func:`clean_submission`'s rule), opened without following links and checked to
    be a regular file after opening. What is left out is logged (names through :func:`safe_name`).
    Set in ``nbgrader_config.py``: ``c.ExchangeFactory.collect = "helpers.grading.submission.SafeCollect"``.

    Parameters
    ----------
    coursedir : nbgrader.coursedir.CourseDirectory
        The course's folders, as for nbgrader's ``ExchangeCollect``.
    authenticator : nbgrader.auth.Authenticator
        As for nbgrader's ``ExchangeCollect``.
    **kwargs : dict
        The exchange's options (traitlets).
    """

    def do_copy(self, src, dest, log=None):
        """Copy one inbound submission folder ``src`` to ``dest``, only the files of a submission.

        ``src`` that is not a folder (a link, say) is not collected, with a warning. Each entry is copied
        only when :func:`clean_submission`'s rule keeps it and it is a regular file once opened without
        following links; what is left out is logged. A group-shared course gets group modes.

        Parameters
        ----------
        src : str
            The inbound submission folder.
        dest : str
            The folder to create and fill.
        log : logging.Logger, optional
            Where to log (default: the exchange's log).
        """
        log = log or self.log
        st = os.lstat(src)
        if not stat.S_ISDIR(st.st_mode):
            log.warning("Not collected: %s is a %s, not a folder.", safe_name(os.path.basename(src), 120), _kind(st.st_mode))
            return
        os.makedirs(dest)
        dropped = []
        for entry in sorted(os.scandir(src), key=lambda e: e.name):
            est = entry.stat(follow_symlinks=False)
            why = _verdict(entry.name, est)
            if why is None:
                why = _copy_regular(entry.path, os.path.join(dest, entry.name))
            if why is not None:
                dropped.append(f"{safe_name(entry.name)} ({why})")
        if self.coursedir.groupshared:
            os.chmod(dest, (os.stat(dest).st_mode | 0o2770) & 0o2777)
            for name in os.listdir(dest):
                os.chmod(os.path.join(dest, name), 0o664)
        if dropped:
            log.warning("Collected only the notebooks of %s; left out: %s", safe_name(os.path.basename(src), 120),
                        "; ".join(dropped))


def _copy_regular(src: str, dest: str) -> str | None:
    """Copy one regular file without following links; None on success, else why it was not copied."""
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        why = _verdict(os.path.basename(dest), st)
        if why is not None:
            return why
        data = fh.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        return "grew while copied"
    out = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(out, "wb") as fh:
        fh.write(data)
    return None


class CheckCellMetadataOnce(CheckCellMetadata):  # numpydoc ignore=PR01,PR02
    """Check the cells' nbgrader metadata as nbgrader's ``CheckCellMetadata`` does, its schema's validator built once.

    The same checks and the same errors.

    nbgrader checks each cell's ``nbgrader`` metadata with ``jsonschema.validate(metadata, schema)``, which checks
    the schema itself against its meta-schema and builds a new validator for every cell, and it builds three
    metadata validators (reading their schema files) for every notebook. The step runs twice per notebook
    (in ``Autograde.sanitize_preprocessors`` and ``Autograde.autograde_preprocessors``). Measured on
    ``01_cosine``'s worked solution (process time, mean of 20): 24 ms per run with nbgrader's step, 1.7 ms with this.
    Here one validator per process checks every cell: the version checks of nbgrader's
    ``BaseMetadataValidator.validate_cell``, then the schema, reporting ``jsonschema.validate``'s error (its
    ``best_match``), then the checks of ``MetadataValidatorV3``, unchanged.
    :func:`helpers.grading.course.configure` puts this step in place of nbgrader's in both lists.

    Parameters
    ----------
    **kw : dict
        The preprocessor's options (traitlets: ``config``, ``parent``).
    """

    def preprocess(self, nb, resources):
        """Check every cell's nbgrader metadata; an invalid one stops the notebook, as in nbgrader.

        One validator, built once per process, checks the whole notebook.

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The notebook.
        resources : dict
            The resources nbgrader passes.

        Returns
        -------
        tuple
            ``(nb, resources)``, unchanged.

        Raises
        ------
        ValidationError
            The metadata of a cell is invalid (the details are logged).
        """
        try:
            _metadata_validator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg)
        return nb, resources


class _SchemaOnce(BaseMetadataValidator):
    """``BaseMetadataValidator.validate_cell`` with one ``jsonschema`` validator for all cells."""

    def __init__(self) -> None:
        super().__init__()
        kind = jsonschema.validators.validator_for(self.schema)
        kind.check_schema(self.schema)
        self._schema_check = kind(self.schema)

    def validate_cell(self, cell) -> None:
        if "nbgrader" not in cell.metadata:
            return
        schema = cell.metadata["nbgrader"].get("schema_version", 0)
        if schema < self.schema_version:
            raise SchemaTooOldError(f"Outdated schema version: {schema} (expected {self.schema_version})",
                                    schema, self.schema_version)
        if schema > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {schema} (expected {self.schema_version})",
                                    schema, self.schema_version)
        error = jsonschema.exceptions.best_match(self._schema_check.iter_errors(cell.metadata["nbgrader"]))
        if error is not None:
            raise error


class _MetadataValidator(MetadataValidator, _SchemaOnce):
    """nbgrader's metadata validator, whose ``super().validate_cell`` is :class:`_SchemaOnce`'s."""


@functools.cache
def _metadata_validator() -> _MetadataValidator:
    return _MetadataValidator()
