"""What nbval does not compare: each figure of ``executed/`` against the same figure of a fresh run.

nbval compares text outputs and skips images and output metadata, so a changed figure, or a changed text
alternative (the ``alt`` the site shows, :func:`helpers.site.describe_figure`), would pass it. Loaded into a
``pytest --nbval`` run (``-p figure_check``, with ``tests/`` on ``sys.path`` and :func:`kernel_env`'s
environment, which makes the fresh kernels record figures as ``python -m helpers site --execute-only`` does),
this plugin compares, for every cell nbval runs, the stored figures with the fresh ones:

* the same number of figures, each with the same ``alt`` text, exactly;
* the same pixel size, and pixels within :data:`PIXEL_TOLERANCE` (fonts and anti-aliasing differ a little
  between machines), at most :data:`CHANGED_SHARE` of them beyond it.

A difference fails the cell's test with what differs. It reads whatever ``executed/`` holds.
"""
from __future__ import annotations

import base64
import io
import os
import sys
from pathlib import Path

import pytest

#: Largest difference of one colour channel (0-1) that counts as the same pixel: anti-aliasing and font
#: hinting move edge pixels by less than this between machines.
PIXEL_TOLERANCE = 0.25
#: Pixels of a figure that may differ by more than PIXEL_TOLERANCE (a changed digit of a label changes
#: a hundred or more at the course's resolution, a moved label or a changed colour thousands).
CHANGED_PIXELS = 50
#: The IPython startup file that installs the figure hook in every kernel of the run.
STARTUP = "import helpers.site as _course_site\n_course_site.install_alt_text_hook()\ndel _course_site\n"


def kernel_env(home: Path, env: dict | None = None) -> dict:
    """``env`` (default: this process's) with an ``IPYTHONDIR`` whose startup file makes each kernel store
    figures as the executed notebooks do (:func:`helpers.site.install_alt_text_hook`)."""
    startup = Path(home) / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-course-figures.py").write_text(STARTUP)
    return dict(os.environ if env is None else env, IPYTHONDIR=str(Path(home) / "ipython"))


def _pixels(data: str):
    import numpy as np
    from matplotlib.image import imread

    return np.asarray(imread(io.BytesIO(base64.b64decode(data)), format="png"), float)


def _figures(outputs) -> list[tuple[str, str]]:
    return [(o["data"]["image/png"], (o.get("metadata") or {}).get("alt", "")) for o in outputs or []
            if isinstance(o.get("data"), dict) and "image/png" in o["data"]]


def compare_figures(stored, fresh) -> list[str]:
    """What differs between the figures of two lists of outputs (nbformat dicts); empty when they match."""
    import numpy as np

    a, b = _figures(stored), _figures(fresh)
    if len(a) != len(b):
        return [f"{len(a)} figures stored, {len(b)} in the fresh run"]
    problems = []
    for k, ((png_a, alt_a), (png_b, alt_b)) in enumerate(zip(a, b), 1):
        if alt_a != alt_b:
            problems.append(f"figure {k}: the alt text differs:\n  stored: {alt_a}\n  fresh:  {alt_b}")
        pa, pb = _pixels(png_a), _pixels(png_b)
        if pa.shape != pb.shape:
            problems.append(f"figure {k}: {pa.shape[1]} x {pa.shape[0]} pixels stored, {pb.shape[1]} x {pb.shape[0]} "
                            "in the fresh run")
            continue
        changed = int(np.sum(np.abs(pa - pb).max(axis=-1) > PIXEL_TOLERANCE))
        if changed > CHANGED_PIXELS:
            problems.append(f"figure {k}: {changed} of the pixels differ (at most {CHANGED_PIXELS} may)")
    return problems


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    outcome = yield
    fresh = getattr(item, "test_outputs", None)
    cell = getattr(item, "cell", None)
    if outcome.excinfo is not None or fresh is None or cell is None:
        return
    problems = compare_figures(cell.get("outputs", []), fresh)
    if problems:
        print(f"{item.nodeid}: the figures differ from the fresh run", file=sys.stderr)
        outcome.force_exception(AssertionError(
            "the stored figures differ from a fresh run (re-execute with `python -m helpers site --execute-only` "
            "if the change is intended):\n" + "\n".join(problems)))
