"""What a grading run remembers between runs: a SHA-256 of every submission graded, in
``autograded/.grading-state.json``, so that a submission whose files, and whose assignment's source and
hidden tests (:func:`assignment_hash`), have not changed is not graded again, and the submissions whose
grading process died.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["STATE_FILE", "LMS_FILE", "submission_hash", "assignment_hash", "load_state", "save_state", "lms_folders",
           "remember_lms_folder"]


#: In autograded/: ``{"<assignment>/<student>": {"sha256": ..., "died": ...}}``, the grading state.
STATE_FILE = ".grading-state.json"
#: in autograded/: the folders ``python -m helpers feedback --lms`` copied feedback to, kept up to date by every export
LMS_FILE = ".lms-folders.json"


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
    """Hash a submission folder with SHA-256.

    The hash covers every regular file's relative name and contents, and the name and type of
    everything else (links, pipes), sorted by name. Nothing is followed or opened but regular files (a link to the solutions or a pipe in a
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


def assignment_hash(root: str | os.PathLike, source: str | os.PathLike, assignment: str,
                    tests_dir: str = "hidden_tests") -> str:
    """Hash with SHA-256 what grades an assignment besides the submission.

    That is its source folder (``solutions/<assignment>/``, the test cells; :func:`submission_hash`)
    and its hidden tests (``<tests_dir>/<assignment>.py``). A change to either regrades every submission of the assignment, and so runs its worked-solution check
    again (a hidden test that no longer matches the worked solution stops the run before any student).

    Parameters
    ----------
    root : path
        The course root.
    source : path
        The assignment's source folder.
    assignment : str
        Its name.
    tests_dir : str
        The folder of the hidden tests, relative to ``root`` (``c.Judge.tests_dir``).

    Returns
    -------
    str
        The hex digest (a missing hidden-test module hashes as missing, so adding one changes it).
    """
    tests = Path(root) / tests_dir / f"{assignment}.py"
    h = hashlib.sha256(submission_hash(source).encode())
    try:
        h.update(b"tests\0" + tests.read_bytes())
    except OSError as exc:
        h.update(f"tests<{exc.errno}>".encode())
    return h.hexdigest()


def load_state(root: Path) -> dict:
    """Read the grading state of the course at ``root`` (:data:`STATE_FILE` in ``autograded/``).

    A state file that is missing or cannot be read as JSON gives an empty state: every submission is
    then graded again.

    Parameters
    ----------
    root : pathlib.Path
        The course root.

    Returns
    -------
    dict
        ``{"<assignment>/<student>": {"sha256": ..., "died": ...}}``.
    """
    path = root / "autograded" / STATE_FILE
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def save_state(root: Path, state: dict) -> None:
    """Write the grading state of the course at ``root`` (:data:`STATE_FILE` in ``autograded/``).

    It is written to a temporary file and then moved in place, so a reader never sees half of it.

    Parameters
    ----------
    root : pathlib.Path
        The course root.
    state : dict
        The state, as :func:`load_state` returns it.
    """
    path = root / "autograded" / STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True))
    tmp.replace(path)


def lms_folders(root: Path) -> list[Path]:
    """List the folders ``python -m helpers feedback --lms`` has copied feedback to.

    They are kept in :data:`LMS_FILE` in ``autograded/``, so that every export keeps those copies up to
    date; a missing or unreadable file gives none.

    Parameters
    ----------
    root : pathlib.Path
        The course root.

    Returns
    -------
    list of pathlib.Path
        The folders, as absolute paths.
    """
    try:
        names = json.loads((Path(root) / "autograded" / LMS_FILE).read_text())
    except (OSError, ValueError):
        return []
    return [Path(n) for n in names if isinstance(n, str)]


def remember_lms_folder(root: Path, folder: Path) -> None:
    """Add ``folder`` to :func:`lms_folders`.

    The list is kept sorted, each folder once (resolved to an absolute path), and written to a
    temporary file then moved in place.

    Parameters
    ----------
    root : pathlib.Path
        The course root.
    folder : pathlib.Path
        The folder feedback was copied to.
    """
    path = Path(root) / "autograded" / LMS_FILE
    names = sorted({str(f) for f in lms_folders(root)} | {str(Path(folder).resolve())})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(names, indent=1))
    tmp.replace(path)
