"""What a grading run remembers between runs: a SHA-256 of every submission graded, in
``autograded/.grading-state.json``, so that a submission whose files (and whose assignment's source)
have not changed is not graded again, and the submissions whose grading process died.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = ["STATE_FILE", "submission_hash", "load_state", "save_state"]


STATE_FILE = ".grading-state.json"   # in autograded/: {"<assignment>/<student>": {"sha256": ..., "died": ...}}


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


def load_state(root: Path) -> dict:
    path = root / "autograded" / STATE_FILE
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def save_state(root: Path, state: dict) -> None:
    path = root / "autograded" / STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True))
    tmp.replace(path)
