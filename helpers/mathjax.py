"""Where the course's own copy of MathJax 3 is: the website and the feedback pages typeset maths with it,
and no page may fetch it from the web.

The copy comes from the PyPI package ``django-static-mathjax`` (MathJax 3.2.2, Apache-2.0; pinned in
``requirements.txt``), or from the folder ``COURSE_MATHJAX_DIR`` names (for example
``node_modules/mathjax/es5`` after ``npm install mathjax@3``). Shared by :mod:`helpers.site` and
:mod:`helpers.grading.feedback_page`; it imports nothing of the package.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

__all__ = ["MATHJAX_ENV", "MathJaxMissing", "mathjax_dir"]

MATHJAX_ENV = "COURSE_MATHJAX_DIR"
NPM = "`npm install mathjax@3` puts one in node_modules/mathjax/es5"


class MathJaxMissing(RuntimeError):
    """No MathJax 3 is installed, or ``COURSE_MATHJAX_DIR`` names a folder without it."""


def mathjax_dir(install: str) -> Path:
    """The ``es5`` folder of MathJax 3 (the one that holds ``tex-svg.js``).

    Parameters
    ----------
    install : str
        How the caller's users install it (e.g. ``"pip install -r requirements-site.txt"``), for the
        message.

    Returns
    -------
    pathlib.Path
        ``COURSE_MATHJAX_DIR`` when set, else the copy inside the ``django-static-mathjax`` package.

    Raises
    ------
    MathJaxMissing
        No MathJax 3 found; the message says how to install one.
    """
    env = os.environ.get(MATHJAX_ENV)
    if env:
        path = Path(env)
        if (path / "tex-svg.js").is_file():
            return path
        raise MathJaxMissing(f"{MATHJAX_ENV}={env} has no tex-svg.js: point it at the es5/ folder of MathJax 3 "
                             f"({NPM}), or unset it to use the copy from `{install}`.")
    spec = importlib.util.find_spec("mathjax")
    for base in (spec.submodule_search_locations or []) if spec else []:
        path = Path(base) / "static" / "mathjax" / "es5"
        if (path / "tex-svg.js").is_file():
            return path
    raise MathJaxMissing(f"MathJax 3 is not installed, and the course serves its own copy (no page may fetch it "
                         f"from the web): `{install}` (it installs django-static-mathjax, which ships MathJax 3), or "
                         f"set {MATHJAX_ENV} to the es5/ folder of a MathJax 3 ({NPM}).")
