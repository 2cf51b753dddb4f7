"""The course package without the assignment's reference implementations: the copy the judged kernel imports."""
from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from ..sandbox import package_dir
from ..scan import parse_python
from .errors import JudgeError

__all__ = ["stripped_package"]


STUB = ("raise RuntimeError({label!r} ' is not available while your work is graded: this exercise asks you to '"
        "'write it yourself.')")


def _strip_source(source: str, names, module: str) -> str:
    """``source`` with the body of each top-level function in ``names`` replaced by a ``raise``."""
    tree = parse_python(source, top_level_await=False)
    lines = source.splitlines(keepends=True)
    edits = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            first = node.body[0]
            indent = " " * first.col_offset
            stub = indent + STUB.format(label=f"helpers.{module}.{node.name}") + "\n"
            edits.append((first.lineno - 1, node.end_lineno, stub))
    missing = set(names) - {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if missing:
        raise ValueError(f"helpers.{module} has no function {sorted(missing)} to remove (REFERENCES of a "
                         "hidden-test module)")
    for start, end, stub in sorted(edits, reverse=True):
        lines[start:end] = [stub]
    return "".join(lines)


def _private_cache() -> Path:
    """The grader's own folder for stripped copies: ``$TMPDIR/weat-judge-<uid>``, mode 0700.

    Per user, because on a shared machine (a JupyterHub) other users grade too and a folder one of them
    made is not writable by the next; and checked, because a folder another user made in advance could
    hold a package the judged kernels would import.
    """
    path = Path(tempfile.gettempdir()) / f"weat-judge-{os.getuid()}"
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    import stat as _stat
    if not _stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise JudgeError(
            f"{path} is not a private folder of this user (owner uid {st.st_uid}, mode {oct(st.st_mode & 0o777)}); "
            "the judge keeps its copies of the course package there. Remove it (or set TMPDIR to a folder "
            "only you can write) and grade again.")
    return path


def stripped_package(references: dict, cache_dir) -> Path:
    """A copy of the course package in which the functions ``references`` raise instead of computing.

    Made once per distinct ``references``, package content and package folder, compiled, and renamed into place
    whole (so two workers never see half a copy); the judged kernel sees it read-only over the package's folder.

    Parameters
    ----------
    references : dict
        ``{"statistics": ["cosine", ...], ...}``: module of ``helpers`` to function names.
    cache_dir : path
        Where copies are kept (one folder per distinct ``references`` and package content).

    Returns
    -------
    pathlib.Path
        The copy's ``helpers`` folder (its modules only: the grader, ``helpers/grading/``, is not
        copied, so the kernel cannot read it), to bind over the package's folder in the sandbox.
    """
    package = package_dir()
    h = hashlib.sha256(json.dumps({k: sorted(v) for k, v in sorted(references.items())}).encode())
    # and where the package is: a copy links to its course's data/, so two checkouts of the same content (a course
    # copied or moved, a second clone) must not share one (its link would outlive the folder it names)
    h.update(str(package.resolve()).encode() + b"\0")
    for path in sorted(package.glob("*.py")):
        h.update(path.name.encode() + path.read_bytes())
    target = Path(cache_dir) / f"helpers-{h.hexdigest()[:16]}" / "helpers"
    if target.is_dir():
        return target
    tmp = Path(tempfile.mkdtemp(prefix="stripping-", dir=cache_dir)) / "helpers"
    tmp.mkdir()
    for path in sorted(package.glob("*.py")):
        text = path.read_text()
        if path.stem in references:
            text = _strip_source(text, set(references[path.stem]), path.stem)
        (tmp / path.name).write_text(text)
    data = package / "data"
    if data.is_dir():  # an installed package holds its data
        shutil.copytree(data, tmp / "data")
    elif (package.parent / "data").is_dir():  # the course folder (editable install): data/ beside helpers/
        (tmp.parent / "data").symlink_to(package.parent / "data")
    import compileall
    compileall.compile_dir(str(tmp), quiet=2)  # the kernel sees the copy read-only: compile it now
    try:
        tmp.parent.rename(target.parent)
    except OSError:  # another worker made it first
        shutil.rmtree(tmp.parent, ignore_errors=True)
    return target
