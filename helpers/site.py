"""The course as a website: ``python -m helpers site OUT [--edition self-study|class]``.

Two editions, built with Sphinx, ``myst-nb`` and ``sphinx-book-theme`` (``requirements-site.txt``):

* **self-study**: a home page (what the course replicates, the course map of ``docs/STUDENTS.md``
  with its points and times, who gets what), one chapter per notebook made from the *executed*
  worked solutions kept in ``executed/`` (outputs and figures; every worked solution folded under
  a "Show solution" toggle, a ``<details>`` element that needs no JavaScript), the replication's
  Table 1 and figures (computed by :func:`helpers.replication.replicate` while the site is built), the
  glossary (``docs/GLOSSARY.md``), the references of all notebooks, and ``docs/STUDENTS.md``;
* **class**: the same frame around the *released* notebooks (``notebooks/``), without any output,
  worked solution or hidden test, and without the replication's results, for an instructor to
  publish during a graded term.

Everything the pages need is in the site: the theme's files and a MathJax 3 (SVG output, no web
fonts) copied from the ``django-static-mathjax`` package (or ``COURSE_MATHJAX_DIR``), so the site
reads offline and from disk, and makes no request outside itself.

``python -m helpers site --execute-only [NN_topic ...]`` (re)writes ``executed/NN_topic.ipynb``: the
worked solution with its hidden-test blocks and solution markers removed, executed top to bottom.
``pytest --nbval executed/ --nbval-sanitize-with executed/nbval_sanitize.cfg`` checks the stored
outputs against a fresh run (``tests/test_site.py`` does, and that the stored sources still match
``solutions/``).

Sphinx and its packages are imported only while building (``import helpers`` stays fast); this
module is also the Sphinx extension of the build (:func:`setup`).
"""
from __future__ import annotations

import copy
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .mathjax import MathJaxMissing
from .mathjax import mathjax_dir as _mathjax_dir

__all__ = ["EDITIONS", "build_site", "execute_notebooks", "stale_executed", "self_study_notebook", "merge_streams",
           "class_notebook", "strip_region", "link_terms", "link_identifiers", "hub_links", "describe_figure", "install_alt_text_hook", "mathjax_dir",
           "SiteError"]

EDITIONS = ("self-study", "class")
EXECUTED_DIR = "executed"
SANITIZE_FILE = "nbval_sanitize.cfg"
SITE_REQUIREMENTS = "requirements-site.txt"
# nbgrader's source markers, spelled in pieces so that this file (shipped in the student bundle's
# wheel) does not itself contain them
BEGIN_SOLUTION, END_SOLUTION = (f"### {edge} SOLUTION" for edge in ("BEGIN", "END"))
BEGIN_HIDDEN, END_HIDDEN = (f"### {edge} HIDDEN TESTS" for edge in ("BEGIN", "END"))
SHOW_SOLUTION, HIDE_SOLUTION = "Show solution", "Hide solution"
SHOW_ANSWER, HIDE_ANSWER = "Show the model answer", "Hide the model answer"
STUB = "raise NotImplementedError()"
#: The metadata of every notebook the site writes or offers for download, the same as ``solutions/``'s: the
#: kernel's ``language_info`` as ipykernel announces it under the course's Python (3.11.7), since JupyterLab writes
#: it into the notebook once the kernel is ready and marks a notebook that lacks it modified before any edit.
NOTEBOOK_METADATA = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
                     "language_info": {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                                       "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                                       "pygments_lexer": "ipython3", "version": "3.11.7"}}


class SiteError(RuntimeError):
    """The site cannot be built or the notebooks cannot be executed; the message says what to do."""


# --------------------------------------------------------------------------------------------- notebooks

def strip_region(source: str, begin: str, end: str, replacement: str | None = None) -> str:
    """``source`` without the lines from ``begin`` to ``end`` (both included).

    Parameters
    ----------
    source : str
        A cell's source.
    begin, end : str
        The marker lines (compared after stripping white space), e.g. nbgrader's hidden-test markers.
    replacement : str or None
        A line put in place of each region, indented like its first marker (None: nothing).

    Returns
    -------
    str
        The source with every region removed; a region left open runs to the end of the cell.
        Trailing blank lines left behind are dropped.

    Examples
    --------
    >>> strip_region("a\\n# <\\nsecret\\n# >\\nb", "# <", "# >")
    'a\\nb'
    >>> strip_region("def f():\\n    # <\\n    return 1\\n    # >", "# <", "# >", "raise NotImplementedError()")
    'def f():\\n    raise NotImplementedError()'
    """
    out, inside = [], False
    for line in source.split("\n"):
        stripped = line.strip()
        if not inside and stripped == begin:
            inside = True
            if replacement is not None:
                out.append(line[: len(line) - len(line.lstrip())] + replacement)
        elif inside:
            if stripped == end:
                inside = False
        else:
            out.append(line)
    return "\n".join(out).rstrip()


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def self_study_notebook(nb):
    """The self-study copy of a worked-solution notebook (not executed).

    Hidden-test blocks are removed, the solution marker lines dropped (the worked solution stays),
    outputs and execution counts cleared, and the notebook metadata reduced to the kernel
    (:data:`NOTEBOOK_METADATA`). Cells keep their ids and nbgrader metadata.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A notebook of ``solutions/``.

    Returns
    -------
    nbformat.NotebookNode
        A new notebook; ``nb`` is unchanged.
    """
    nb = copy.deepcopy(nb)
    nb.metadata = copy.deepcopy(NOTEBOOK_METADATA)
    for cell in nb.cells:
        if cell.cell_type == "code":
            source = strip_region(cell.source, BEGIN_HIDDEN, END_HIDDEN)
            cell.source = "\n".join(line for line in source.split("\n")
                                    if line.strip() not in (BEGIN_SOLUTION, END_SOLUTION))
            cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)
    return nb


#: A plotting call in a code cell of the class edition, where the released notebook shows no figure.
_DRAWS = re.compile(r"\bplt\.|\bplots\.\w+\(|\.(?:plot|scatter|hist|bar|barh|imshow)\(")
FIGURE_NOTE = "*The figure this cell draws appears here when you run the notebook.*"


def _note_figures(nb):
    """Class edition: after each code cell that draws, a note that its figure appears when the notebook runs
    (the text around it may refer to the figure, which the class edition does not show)."""
    import nbformat

    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type == "code" and _DRAWS.search(cell.source):
            cells.append(nbformat.v4.new_markdown_cell(FIGURE_NOTE))
    nb.cells = cells
    return nb


def class_notebook(nb):
    """The class-edition copy of a released notebook: no output, no worked solution, no hidden test.

    The released notebooks of ``notebooks/`` hold none of these; this removes them all the same
    (a solution region becomes ``raise NotImplementedError()``, as nbgrader releases it; a markdown
    answer cell becomes "YOUR ANSWER HERE"), so a release generated by hand or from a changed
    source cannot leak them into a published site.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A notebook of ``notebooks/``.

    Returns
    -------
    nbformat.NotebookNode
        A new notebook; ``nb`` is unchanged.
    """
    nb = copy.deepcopy(nb)
    nb.metadata = copy.deepcopy(NOTEBOOK_METADATA)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            source = strip_region(cell.source, BEGIN_HIDDEN, END_HIDDEN)
            cell.source = strip_region(source, BEGIN_SOLUTION, END_SOLUTION, STUB)
            cell.outputs, cell.execution_count = [], None
        elif cell.cell_type == "markdown" and _nbgrader(cell).get("solution"):
            cell.source = "YOUR ANSWER HERE"
        elif BEGIN_SOLUTION in cell.source or BEGIN_HIDDEN in cell.source:
            cell.source = strip_region(strip_region(cell.source, BEGIN_HIDDEN, END_HIDDEN),
                                       BEGIN_SOLUTION, END_SOLUTION)
    return nb


def merge_streams(outputs: list) -> list:
    """The outputs with consecutive stream outputs of the same stream (stdout, stderr) joined into one.

    How a kernel splits printed text into messages depends on timing; joined, the stored
    notebook is the same from run to run (``pytest --nbval`` joins them the same way to compare).

    Parameters
    ----------
    outputs : list of nbformat output nodes

    Returns
    -------
    list
        New list; the stream outputs in it are new nodes with ``text`` as one string.
    """
    import nbformat

    merged = []
    for output in outputs:
        if output.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream" \
                and merged[-1].get("name") == output.get("name"):
            merged[-1]["text"] += output["text"]
        elif output.get("output_type") == "stream":
            merged.append(nbformat.v4.new_output("stream", name=output["name"], text="".join(output["text"])))
        else:
            merged.append(output)
    return merged


def _read(path):
    import nbformat

    return nbformat.read(str(path), as_version=4)


def _write(nb, path) -> None:
    import nbformat

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def _assignments(root: Path, folder: str) -> list[str]:
    return sorted(p.parent.name for p in (root / folder).glob("*/*.ipynb")
                  if p.stem == p.parent.name and re.fullmatch(r"\d\d_\w+", p.stem))


def _require_root(root: Path, *needs: str) -> None:
    missing = [n for n in needs if not (root / n).exists()]
    if missing:
        raise SiteError(f"No {', '.join(missing)} in {root}: run `python -m helpers site` from the course root "
                        "(the folder with README.md, solutions/ and notebooks/).")


def _cells_key(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.rstrip()) for c in nb.cells]


def stale_executed(root: str | os.PathLike = ".") -> dict[str, str]:
    """The assignments whose stored executed notebook is missing or no longer matches its worked solution.

    Parameters
    ----------
    root : path
        The course root.

    Returns
    -------
    dict
        ``{assignment: reason}``; empty when ``executed/`` is up to date (every cell of
        :func:`self_study_notebook` of the solution has the same type and source as the stored copy).
    """
    root = Path(root)
    problems = {}
    for name in _assignments(root, "solutions"):
        path = root / EXECUTED_DIR / f"{name}.ipynb"
        if not path.is_file():
            problems[name] = f"{path.relative_to(root)} is missing"
            continue
        expected = _cells_key(self_study_notebook(_read(root / "solutions" / name / f"{name}.ipynb")))
        stored = _cells_key(_read(path))
        if expected != stored:
            k = next((i for i, (a, b) in enumerate(zip(expected, stored)) if a != b), min(len(expected), len(stored)))
            problems[name] = (f"{path.relative_to(root)} differs from solutions/{name}/{name}.ipynb from cell {k + 1} on "
                              f"({len(stored)} cells stored, {len(expected)} in the solution)")
    return problems


# --------------------------------------------------------------------------------------------- figures

def _text(artist) -> str:
    return " ".join(artist.get_text().split()) if artist is not None else ""


def _is_colorbar(ax) -> bool:
    return ax.get_label() == "<colorbar>" or hasattr(ax, "_colorbar")


def _step_bins(patch) -> int:
    """The bins of a step histogram's outline (``hist(histtype="step")`` or ``"stepfilled"``: one polygon whose
    edges are all horizontal or vertical, its x coordinates the bin edges); 0 for any other patch."""
    import numpy as np
    from matplotlib.patches import Polygon

    if not isinstance(patch, Polygon):
        return 0
    xy = np.asarray(patch.get_xy(), float)
    steps = np.diff(xy, axis=0)
    if len(steps) < 3 or not np.all((steps[:, 0] == 0) | (steps[:, 1] == 0)):
        return 0
    return len(np.unique(xy[:, 0])) - 1


def _plot_kind(ax) -> str:
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    from matplotlib.patches import Rectangle

    points = sum(len(c.get_offsets()) for c in ax.collections if isinstance(c, PathCollection))
    bars = sum(isinstance(p, Rectangle) for p in ax.patches)
    histograms = [n for n in map(_step_bins, ax.patches) if n]
    curves = [ln for ln in ax.lines if len(ln.get_xdata()) > 2]
    kinds = []
    if ax.images:
        kinds.append("a heat map")
    if points:
        kinds.append(f"a scatter plot of {points} points")
    if bars:
        kinds.append(f"{bars} bars")
    kinds += [f"a histogram of {n} bins" for n in histograms]
    if curves:
        kinds.append(f"{len(curves)} line{'s' * (len(curves) > 1)}")
    if any(isinstance(c, LineCollection) for c in ax.collections) and not curves:
        kinds.append("line segments (intervals)")
    if any(isinstance(c, PolyCollection) for c in ax.collections):
        kinds.append("shaded areas")
    if len(ax.texts) >= 3:
        kinds.append(f"{len(ax.texts)} text labels")
    return ", ".join(kinds) or "an empty panel"


def _categories(axis) -> list[str]:
    labels = [_text(t) for t in axis.get_ticklabels()]
    labels = [t for t in labels if t]
    numeric = re.compile(r"^[\s\u2212+\-]*[\d.,]+(e[\u2212+\-]?\d+)?%?$")
    return labels if labels and not all(numeric.match(t) for t in labels) else []


def _num(value: float) -> str:
    """A number as a figure's summary gives it: three significant digits (no more than any machine
    reproduces), thousands separated."""
    value = float(value)
    if abs(value) >= 1000:
        return f"{round(value):,}"
    return f"{value:.3g}"


def _range(values) -> str:
    import numpy as np

    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    lo, hi = (values.min(), values.max()) if values.size else (0.0, 0.0)
    return f"{_num(lo)}" if lo == hi else f"from {_num(lo)} to {_num(hi)}"


def _summary(ax) -> str:
    """What one panel shows, in numbers: how many values, bars or points, their range, the observed lines."""
    import numpy as np
    from matplotlib.collections import LineCollection, PathCollection
    from matplotlib.container import BarContainer

    parts = []
    if ax.images:
        data = np.asarray(ax.images[0].get_array(), float)
        rows, cols = data.shape[:2]
        parts.append(f"a {rows} × {cols} heat map of values {_range(data)}")
    for bars in (c for c in ax.containers if isinstance(c, BarContainer)):
        rects = list(bars.patches)
        if not rects:
            continue
        horizontal = getattr(bars, "orientation", "vertical") == "horizontal"
        values = np.array([r.get_width() if horizontal else r.get_height() for r in rects], float)
        starts = np.array([r.get_y() if horizontal else r.get_x() for r in rects], float)
        widths = np.array([r.get_height() if horizontal else r.get_width() for r in rects], float)
        if len(rects) >= 5 and not horizontal and np.allclose(starts[:-1] + widths[:-1], starts[1:]) \
                and np.all(values >= 0):
            parts.append(f"a histogram of {_num(values.sum())} values {_range([starts[0], starts[-1] + widths[-1]])}"
                         f", the tallest bar between {_num(starts[values.argmax()])} and "
                         f"{_num(starts[values.argmax()] + widths[values.argmax()])}")
        else:
            text = f"{len(rects)} {'horizontal ' if horizontal else ''}bars of values {_range(values)}"
            names = _categories(ax.yaxis if horizontal else ax.xaxis)
            ticks = ax.get_yticks() if horizontal else ax.get_xticks()
            centres = starts + widths / 2
            if names and len(names) == len(ticks) and len(rects) > 2:
                def name(i):
                    return names[int(np.argmin(np.abs(np.asarray(ticks, float) - centres[i])))]
                hi, lo = int(values.argmax()), int(values.argmin())
                text += f" (highest {name(hi)}: {_num(values[hi])}; lowest {name(lo)}: {_num(values[lo])})"
            parts.append(text)
    for patch in ax.patches:
        if _step_bins(patch):
            xy = np.asarray(patch.get_xy(), float)
            top = xy[np.argmax(xy[:, 1])]
            parts.append(f"a histogram of {_step_bins(patch)} bins {_range(xy[:, 0])}, the tallest near {_num(top[0])}")
    intervals = [s for c in ax.collections if isinstance(c, LineCollection) for s in c.get_segments() if len(s) == 2]
    if intervals and not any(isinstance(c, PathCollection) for c in ax.collections):
        ends = np.asarray(intervals, float).reshape(-1, 2)
        horizontal = np.allclose(ends[0::2, 1], ends[1::2, 1])
        parts.append(f"{len(intervals)} intervals {_range(ends[:, 0] if horizontal else ends[:, 1])}")
    points = [c.get_offsets() for c in ax.collections if isinstance(c, PathCollection) and len(c.get_offsets())]
    if points:
        xy = np.asarray(np.concatenate([np.asarray(p, float) for p in points]), float)
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        text = f"{len(xy):,} points"
        if _categories(ax.yaxis) and len(xy):
            text += f" at values {_range(xy[:, 0])}"
        elif len(xy) >= 3 and np.ptp(xy[:, 0]) > 0 and np.ptp(xy[:, 1]) > 0 and not _categories(ax.yaxis):
            text += f", horizontal {_range(xy[:, 0])}, vertical {_range(xy[:, 1])}, Pearson r = " \
                    f"{np.corrcoef(xy[:, 0], xy[:, 1])[0, 1]:.2f}"
        parts.append(text)
    curves = [ln for ln in ax.lines if len(ln.get_xdata()) > 2]
    if curves:
        ys = np.concatenate([np.asarray(ln.get_ydata(), float) for ln in curves])
        parts.append(f"{len(curves)} line{'s' * (len(curves) > 1)} of values {_range(ys)}")
    marks = []
    for ln in ax.lines:
        x = np.asarray(ln.get_xdata(), float)
        label = ln.get_label() if not ln.get_label().startswith("_") else ""
        if len(x) == 2 and x[0] == x[1] and label:
            marks.append(f"a vertical line at {_num(x[0])} ({label})" if len(label) < 60 else
                         f"a vertical line at {_num(x[0])}")
    parts += marks[:3]
    return ", ".join(parts) or "no data"


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at the end of a clause ("; " or ". "), never inside a value."""
    if len(text) <= limit:
        return text
    cut = max(text.rfind("; ", 0, limit - 5), text.rfind(". ", 0, limit - 5))
    return (text[:cut] if cut > 0 else text[: limit - 5].rsplit(" ", 1)[0].rstrip(",;")) + "; ..."


def describe_figure(fig, limit: int = 900) -> str:
    """A text alternative for a matplotlib figure: one short sentence of what it shows, in numbers, then what
    kind of chart each panel is, its title, its axes, its legend.

    Used as the ``alt`` text of the figures of the site's chapters (the executed notebooks store it
    in each figure output's metadata, :func:`install_alt_text_hook`).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    limit : int
        Longest text returned, in characters (a longer one is cut at the end of a clause, never inside a
        value, and ends with "...").

    Returns
    -------
    str
        For example ``'Shows a histogram of 1,000 values from 0 to 5, most between 1 and 1.05. Figure:
        "Lengths of the vectors", 100 bars; horizontal axis: length; vertical axis: number of words.'``

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.scatter([1, 2, 3], [3, 1, 2], label="words")
    >>> _ = ax.set(title="Association", xlabel="% women", ylabel="s(w, A, B)")
    >>> _ = ax.legend()
    >>> describe_figure(fig)
    'Shows 3 points, horizontal from 1 to 3, vertical from 1 to 3, Pearson r = -0.50. Figure: "Association", a scatter plot of 3 points; horizontal axis: % women; vertical axis: s(w, A, B); legend: words.'
    >>> plt.close(fig)
    """
    axes = [ax for ax in fig.axes if ax.get_visible() and not _is_colorbar(ax)]
    sup = _text(getattr(fig, "_suptitle", None))
    panels = []
    for ax in axes:
        title = " ".join(t for t in (_text(ax.title), _text(ax._left_title), _text(ax._right_title)) if t)
        bits = [(f'"{title}", ' if title else "") + _plot_kind(ax)]
        xlabel, ylabel = _text(ax.xaxis.label), _text(ax.yaxis.label)
        xcat, ycat = _categories(ax.xaxis), _categories(ax.yaxis)
        if xlabel:
            bits.append(f"horizontal axis: {xlabel}")
        if ylabel:
            bits.append(f"vertical axis: {ylabel}")
        for name, cats in (("columns", xcat), ("rows", ycat)):
            if cats:
                shown = cats[:12]
                bits.append(f"{name}: " + ", ".join(shown) + (f" and {len(cats) - 12} more" if len(cats) > 12 else ""))
        legend = ax.get_legend()
        if legend is not None:
            entries = [_text(t) for t in legend.get_texts() if _text(t)]
            if entries:
                bits.append("legend: " + ", ".join(entries))
        panels.append("; ".join(bits))
    if not panels:
        text = "Figure" + (f' "{sup}"' if sup else "") + " with no axes."
    elif len(panels) == 1:
        text = "Figure" + (f' "{sup}"' if sup else "") + ": " + panels[0] + "."
    else:
        text = (f"Figure of {len(panels)} panels" + (f' "{sup}"' if sup else "") + ". "
                + " ".join(f"Panel {k}: {p}." for k, p in enumerate(panels, 1)))
    summaries = [_summary(ax) for ax in axes]
    if len(summaries) == 1:
        first = f"Shows {summaries[0]}."
    elif summaries:
        first = f"Shows {len(summaries)} panels: " + "; ".join(f"({k}) {t}" for k, t in enumerate(summaries, 1)) + "."
    else:
        first = ""
    if len(first) > limit // 2:
        first = _clip(first, limit // 2)
    return _clip((first + " " + text).strip(), limit)


def install_alt_text_hook() -> None:
    """Make the inline matplotlib backend store :func:`describe_figure`'s text in each figure output, at twice the pixels.

    Run inside the kernel that executes a notebook (:func:`execute_notebooks` does); every figure
    shown then carries ``"alt"`` in its output metadata, which the site uses as the image's text
    alternative, and is a "retina" PNG (twice the pixels each way, its display size in the metadata),
    sharp on high-density screens. Results are otherwise unchanged.
    """
    import matplotlib_inline.backend_inline as inline

    original = getattr(inline._fetch_figure_metadata, "__wrapped__", inline._fetch_figure_metadata)

    def fetch_with_alt(fig):
        metadata = dict(original(fig) or {})
        try:
            metadata["alt"] = describe_figure(fig)
        except Exception as exc:  # noqa: BLE001 - never break a notebook for its alt text
            metadata["alt"] = f"Figure (no description: {type(exc).__name__})"
        return metadata

    fetch_with_alt.__wrapped__ = original
    inline._fetch_figure_metadata = fetch_with_alt
    # figures for high-density screens: twice the pixels, shown at the same size (width and height in the
    # output's metadata); set on the backend's configuration too, so a later `%matplotlib inline` keeps it
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        inline.InlineBackend.instance().figure_formats = {"retina"}
        inline.set_matplotlib_formats("retina")


_HOOK = "__import__('helpers.site').site.install_alt_text_hook()"


# --------------------------------------------------------------------------------------------- execution

def execute_notebooks(root: str | os.PathLike = ".", assignments: list[str] | None = None, *,
                      timeout: int = 600, progress=print) -> list[Path]:
    """Execute the worked solutions into ``executed/NN_topic.ipynb`` (what the self-study site shows).

    Each notebook is :func:`self_study_notebook` of ``solutions/NN_topic/NN_topic.ipynb`` (no hidden
    test, no solution marker) run top to bottom in a fresh ``python3`` kernel whose working folder
    is ``executed/`` (as ``pytest --nbval`` runs it), with figure descriptions recorded for the
    site (:func:`install_alt_text_hook`, run silently before the first cell and not stored).

    Parameters
    ----------
    root : path
        The course root.
    assignments : list of str or None
        Assignment names (default: every one in ``solutions/``).
    timeout : int
        Seconds one cell may run.
    progress : callable or None
        Called with one line per notebook.

    Returns
    -------
    list of Path
        The notebooks written.

    Raises
    ------
    SiteError
        An unknown assignment, or a cell raised (the notebook is not written; the message names the cell).
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    root = Path(root).resolve()
    _require_root(root, "solutions")
    known = _assignments(root, "solutions")
    names = list(assignments) if assignments else known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SiteError(f"No worked solution for {', '.join(unknown)} in solutions/ (known: {', '.join(known)}).")
    out_dir = root / EXECUTED_DIR
    out_dir.mkdir(exist_ok=True)
    written = []
    import time

    for name in names:
        start = time.perf_counter()
        nb = self_study_notebook(_read(root / "solutions" / name / f"{name}.ipynb"))
        run = copy.deepcopy(nb)
        run.cells.insert(0, nbformat.v4.new_code_cell(_HOOK + ";"))
        env = dict(os.environ, PYTHONHASHSEED="0")
        env.pop("MPLBACKEND", None)
        client = NotebookClient(run, timeout=timeout, kernel_name="python3", record_timing=False,
                                resources={"metadata": {"path": str(out_dir)}})
        try:
            client.execute(env=env, cwd=str(out_dir), stderr=subprocess.DEVNULL)  # the kernel's own log
        except CellExecutionError as exc:
            raise SiteError(f"{name}: a cell raised while executing the worked solution; executed/{name}.ipynb "
                            f"was not written.\n{str(exc)[-3000:]}") from exc
        hook = run.cells.pop(0)
        if hook.outputs:
            raise SiteError(f"{name}: the figure-description hook printed {hook.outputs!r}")
        for cell, done in zip(nb.cells, run.cells):
            if cell.cell_type == "code":
                cell.outputs = merge_streams(done.outputs)
                cell.execution_count = done.execution_count - 1 if done.execution_count else None
                for output in cell.outputs:
                    if "execution_count" in output and output.execution_count:
                        output.execution_count -= 1
        nb.metadata = copy.deepcopy(NOTEBOOK_METADATA)
        path = out_dir / f"{name}.ipynb"
        _write(nb, path)
        written.append(path)
        if progress:
            progress(f"{path.relative_to(root)}: executed in {time.perf_counter() - start:.0f} s")
    return written


# --------------------------------------------------------------------------------------------- MathJax

def mathjax_dir() -> Path:
    """The ``es5`` folder of a MathJax 3 whose ``tex-svg.js`` the site serves itself.

    :func:`helpers.mathjax.mathjax_dir`, with the site's install command in its message.

    Returns
    -------
    pathlib.Path
        ``COURSE_MATHJAX_DIR`` when set, else the copy inside the ``django-static-mathjax`` package.

    Raises
    ------
    SiteError
        No MathJax 3 found; the message says how to install one.
    """
    try:
        return _mathjax_dir(f"pip install -r {SITE_REQUIREMENTS}")
    except MathJaxMissing as exc:
        raise SiteError(str(exc)) from None


def _copy_mathjax(es5: Path, dest: Path) -> None:
    """The parts of MathJax 3 the pages use: ``tex-svg.js`` and what it loads on demand (TeX
    extensions, the menu, the accessibility tools). No web fonts: the SVG output draws its glyphs."""
    dest.mkdir(parents=True)
    shutil.copy2(es5 / "tex-svg.js", dest / "tex-svg.js")
    for sub in ("input", "ui", "a11y", "sre", "adaptors"):
        if (es5 / sub).is_dir():
            shutil.copytree(es5 / sub, dest / sub)
    if (es5 / "output" / "svg").is_dir():
        shutil.copytree(es5 / "output" / "svg", dest / "output" / "svg")
    licence = es5.parent / "LICENSE"
    if licence.is_file():
        shutil.copy2(licence, dest / "LICENSE")


def _require_sphinx() -> None:
    import importlib.util

    missing = [m for m in ("sphinx", "myst_nb", "sphinx_book_theme") if importlib.util.find_spec(m) is None]
    if missing:
        raise SiteError(f"Building the site needs {', '.join(missing)}: `pip install -r {SITE_REQUIREMENTS}` "
                        "(from the course root; it installs requirements.txt too).")


# --------------------------------------------------------------------------------------------- pages

def _section(markdown: str, heading: str) -> str:
    """The body of the ``## heading`` section of a Markdown text (up to the next heading of that level or higher)."""
    m = re.search(rf"(?m)^## {re.escape(heading)}\s*$", markdown)
    if not m:
        raise SiteError(f"No '## {heading}' section found; the site takes it from the course's docs.")
    rest = markdown[m.end():]
    end = re.search(r"(?m)^#{1,2} ", rest)
    return rest[: end.start() if end else len(rest)].strip()


def _course_map(students_md: str, chapters: list[str]) -> tuple[str, dict]:
    """The course map of ``docs/STUDENTS.md`` with each notebook linked to its chapter, and its totals."""
    text = _section(students_md, "Course map").replace("(GLOSSARY.md)", "(glossary.md)")
    points = minutes = n = 0
    lines = []
    for line in text.splitlines():
        m = re.match(r"^\| `(\d\d_\w+)` \|.*\| (\d+) \| (\d+) min \|", line)
        if m:
            name = m.group(1)
            n, points, minutes = n + 1, points + int(m.group(2)), minutes + int(m.group(3))
            if name in chapters:
                line = line.replace(f"`{name}`", f"[`{name}`]({name}.ipynb)", 1)
        lines.append(line)
    if not n:
        raise SiteError("The course map of docs/STUDENTS.md has no row like '| `01_cosine` | ... | 10 | 45 min | ... |'.")
    return "\n".join(lines), {"notebooks": n, "points": points, "minutes": minutes}


_ENTRY = re.compile(r"^- \*\*(?P<term>.+?)\*\* \[(?P<where>[^\]]+)\]:\s*(?P<text>.*)$")


def _glossary_entries(glossary_md: str) -> list[dict]:
    """The entries of ``docs/GLOSSARY.md`` (``- **Term** [NN]: definition``, continued on lines indented
    by two spaces): ``term`` (Markdown), ``key`` (the term without ``$``, how Sphinx's ``{term}`` role
    finds it), ``where`` (the bracket's text) and ``text`` (the definition, its lines joined by newlines)."""
    entries = []
    for line in glossary_md.splitlines():
        m = _ENTRY.match(line)
        if m:
            entries.append({"term": m["term"], "key": m["term"].replace("$", ""), "where": m["where"],
                            "text": m["text"]})
        elif entries and line.startswith("  ") and line.strip():
            entries[-1]["text"] += "\n" + line.strip()
    return entries


def _glossary(glossary_md: str, chapters: list[str]) -> str:
    """``docs/GLOSSARY.md`` as a Sphinx glossary: an anchor per term (``glossary.html#term-...``, what the
    chapters' first uses link to), sorted, each ``[NN]`` (the notebook where a word is introduced) a
    link that reads "notebook NN"."""
    by_number = {c[:2]: c for c in chapters}

    def where(text):
        return re.sub(r"\d\d", lambda k: f"[notebook {k.group(0)}]({by_number[k.group(0)]}.ipynb)"
                      if k.group(0) in by_number else f"notebook {k.group(0)}", text)

    title, _, rest = glossary_md.partition("\n")
    intro = rest.split("\n- **", 1)[0].strip()
    body = []
    for e in _glossary_entries(glossary_md):
        text = "\n  ".join(e["text"].split("\n"))
        body += [e["term"], f"  {text} (Introduced in {where(e['where'])}.)", ""]
    return "\n".join([title, "", intro, "", "```{glossary}", ":sorted:", "", *body, "```", ""])


#: Markdown that term links must not enter: fenced blocks, maths, code, links, roles, HTML, headings, tables.
_PROTECTED = re.compile(r"(`{3,}|~{3,})[\s\S]*?\1|\$\$[\s\S]*?\$\$|\$[^$\n]+\$|\{[\w:-]+\}`[^`]*`|`[^`\n]*`"
                        r"|!?\[[^\]\n]*\]\([^)\n]*\)|<[^>\n]+>|^#.*$|^\s*\|.*$", re.M)


def _term_patterns(entries: list[dict]) -> list[tuple[str, re.Pattern]]:
    """``(key, pattern)`` per glossary term: the words a chapter uses for it (the term without maths; the
    name in brackets and the name before them; each name of a list such as "k-means, k-means++"),
    case-insensitive unless written in capitals (WEAT, IAT), an optional plural s."""
    out = []
    mains = {re.sub(r"\s*\([^)]*\)|\$[^$]*\$", "", e["term"]).strip().lower() for e in entries}
    for e in entries:
        plain = re.sub(r"\$[^$]*\$", "", e["term"]).strip()
        # a name in brackets is another name of the term, unless it names another term ("Effect size d (WEAT)")
        names = [re.sub(r"\s*\([^)]*\)", "", plain).strip(),
                 *(n for n in re.findall(r"\(([^)]*)\)", plain) if n.lower() not in mains)]
        names = [n.strip() for name in names for n in re.split(r",\s*|\s+and\s+", name) if len(n.strip()) >= 3]
        alternatives = []
        for n in sorted(set(names), key=len, reverse=True):
            word = re.escape(n)
            alternatives.append(word if n.isupper() else f"(?i:{word})")
        if alternatives:
            out.append((e["key"], re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")s?(?![\w-])")))
    return out


def link_terms(nb, entries: list[dict]):
    """A copy of ``nb`` whose markdown links the first use of each glossary term to its entry (``{term}`` role).

    Only running text is searched: not maths, code, links, headings, tables or HTML.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A chapter.
    entries : list of dict
        The glossary (:func:`_glossary_entries`).

    Returns
    -------
    nbformat.NotebookNode
        A new notebook; ``nb`` is unchanged.
    """
    nb = copy.deepcopy(nb)
    todo = _term_patterns(entries)
    for cell in nb.cells:
        if cell.cell_type != "markdown" or not todo:
            continue
        source = cell.source
        for key, pattern in list(todo):
            pieces, pos, done = [], 0, False
            for m in list(_PROTECTED.finditer(source)) + [None]:
                end = m.start() if m else len(source)
                if not done:
                    hit = pattern.search(source, pos, end)
                    if hit:
                        word = hit.group(0)
                        pieces.append(source[pos:hit.start()] + f"{{term}}`{word} <{key}>`" + source[hit.end():end])
                        done = True
                    else:
                        pieces.append(source[pos:end])
                else:
                    pieces.append(source[pos:end])
                if m:
                    pieces.append(m.group(0))
                    pos = m.end()
            if done:
                source = "".join(pieces)
                todo.remove((key, pattern))
        cell.source = source
    return nb


_REF_ID = re.compile(r"\b(doi:\S+?|arXiv:\S+?)(?=[,;\s)]|\.?$)")


def _references(chapters: dict[str, object]) -> str:
    """One list of the works the notebooks cite (``**References.**`` at the end of each), each once,
    keyed by its DOI or arXiv id, with the notebooks (and sections) that cite it."""
    works: dict[str, dict] = {}
    order = []
    for name, nb in chapters.items():
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown" and "**References.**" in c.source)
        if not text:
            continue
        text = text[text.index("**References.**") + len("**References.**"):]
        entries = []
        for block in re.split(r"\n\s*\n", text):
            if "doi:" not in block and "arXiv:" not in block:
                continue  # e.g. "Next, notebook 5: ..."
            block = " ".join(block.split())
            parts = re.split(r"(?:^|\s)\* ", block) if block.lstrip().startswith("* ") else \
                re.split(r"(?<=[a-z0-9)]\.)\s+(?=(?:[A-Z]\. )+[A-Z][a-z])", block)
            entries += [p.strip() for p in parts if p.strip()]
        for entry in entries:
            ident = _REF_ID.search(entry)
            if not ident:
                continue
            key = ident.group(1).rstrip(".").lower()
            note = None
            m = re.search(r"\s\(([^()]*(?:\([^()]*\)[^()]*)*)\)\.?$", entry)
            if m and m.start() >= ident.start():
                note, entry = m.group(1), entry[: m.start()]
            prefix = re.match(r"^the long draft:\s*", entry)
            if prefix:
                entry = entry[prefix.end():]
            entry = entry.rstrip(" .,")
            work = works.setdefault(key, {"citations": [], "cited": []})
            if key not in order:
                order.append(key)
            work["citations"].append(entry)
            work["cited"].append((name, note))

    def surname(key):
        m = re.match(r"^(?:[A-Z]\.\s*)+([^\s,]+)", max(works[key]["citations"], key=len))
        return (m.group(1) if m else "", key)

    lines = ["# References", "",
             "Every work the notebooks cite, once, with the notebooks that cite it (and where, in brackets). "
             "Each notebook also lists its own references at its end.", ""]
    for key in sorted(order, key=surname):
        work = works[key]
        cited = "; ".join(f"[notebook {n[:2]}]({n}.ipynb)" + (f" ({note})" if note else "") for n, note in work["cited"])
        lines.append(link_identifiers(f"- {max(work['citations'], key=len)}. Cited in {cited}."))
    return "\n".join(lines) + "\n"


_DOI = re.compile(r"\b(doi|arXiv):(\S+?)(?=[,;\s)\]]|\.(?:\s|$)|\.?$)")


def link_identifiers(text: str) -> str:
    """``text`` with each ``doi:...`` and ``arXiv:...`` outside code, maths and links made a link
    (https://doi.org/..., https://arxiv.org/abs/...).

    Parameters
    ----------
    text : str
        Markdown.

    Returns
    -------
    str

    Examples
    --------
    >>> link_identifiers("Science 356 (2017), doi:10.1126/science.aal4230.")
    'Science 356 (2017), [doi:10.1126/science.aal4230](https://doi.org/10.1126/science.aal4230).'
    """
    def link(m):
        base = "https://doi.org/" if m.group(1) == "doi" else "https://arxiv.org/abs/"
        return f"[{m.group(0)}]({base}{m.group(2)})"

    pieces, pos = [], 0
    for m in list(_PROTECTED.finditer(text)) + [None]:
        end = m.start() if m else len(text)
        pieces.append(_DOI.sub(link, text[pos:end]))
        if m:
            pieces.append(m.group(0))
            pos = m.end()
    return "".join(pieces)


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    return "`" * max(3, longest + 1)


def _chapter_self_study(nb):
    """An executed self-study notebook made ready for the site: each worked solution folded."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        meta = _nbgrader(cell)
        if cell.cell_type == "code":
            # defensive: a stale stored copy must not show hidden tests either
            cell.source = strip_region(cell.source, BEGIN_HIDDEN, END_HIDDEN)
            if meta.get("solution"):
                tags = [t for t in cell.metadata.get("tags", []) if not t.startswith(("hide-", "remove-"))]
                cell.metadata["tags"] = tags + ["hide-cell"]
                cell.metadata["mystnb"] = {"code_prompt_show": SHOW_SOLUTION, "code_prompt_hide": HIDE_SOLUTION}
        elif cell.cell_type == "markdown" and meta.get("solution"):
            fence = _fence(cell.source)
            cell.source = f"{fence}{{course-answer}}\n{cell.source}\n{fence}"
    return nb


def _alt_texts(nb) -> dict[str, str]:
    """``{sha256 of an image output: its alt text}`` (myst-nb names image files by that hash)."""
    from binascii import a2b_base64

    out = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            alt = output.get("metadata", {}).get("alt")
            for mime in ("image/png", "image/jpeg"):
                if alt and mime in output.get("data", {}):
                    out[hashlib.sha256(a2b_base64(output["data"][mime])).hexdigest()] = alt
    return out


def _table1_page(fig_dir: Path) -> str:
    """The replication page: Table 1 and the WEFAT side by side with the paper, and the figures
    (computed now by :func:`helpers.replication.replicate`, as ``python -m helpers replicate`` does)."""
    from .replication import format_pvalue, replicate
    from .wordsets import weat_tests

    n_resamples, seed = 100_000, 0
    doc = replicate(n_resamples=n_resamples, seed=seed, out=str(fig_dir), progress=False)
    specs = {t.id: t for t in weat_tests()}
    rows = ["| # | targets; attributes | original d | paper d | our d | paper P | our p |",
            "|---:|---|---:|---:|---:|---:|---:|"]
    studies: dict[str, list[int]] = {}
    for w in doc["weat"]:
        t = specs[w["id"]]
        studies.setdefault(t.original["reference"].split("),")[0] + ")", []).append(w["id"])
        original_d = "n/a" if t.original["d"] is None else f"{t.original['d']:.2f}"
        rows.append(f"| {w['id']} | {w['target_x']} vs. {w['target_y']}; {w['attribute_a']} vs. {w['attribute_b']} | "
                    f"{original_d} | {w['paper_effect_size']:.2f} | {w['effect_size']:.2f} | "
                    f"{format_pvalue(w['paper_pvalue'])} | {format_pvalue(w['pvalue'])} |")
    by_method = {m: [w["id"] for w in doc["weat"] if w["p_method"] == m] for m in ("sampled", "exact")}
    def rows_of(ids):
        return ("row " if len(ids) == 1 else "rows ") + ", ".join(map(str, ids))

    notes = ["Original d: the study the paper compares with, "
             + "; ".join(f"{study} for {rows_of(ids)}" for study, ids in studies.items()) + "."]
    missing: dict[str, list[int]] = {}
    for t in specs.values():
        if t.original["d"] is None:
            missing.setdefault(t.original.get("p_note", "no d reported").removeprefix("not applicable: "), []).append(t.id)
    notes += [f"n/a ({rows_of(ids)}): {why}." for why, ids in missing.items()]
    notes.append("Our p: " + "; ".join(
        f"{'counted over ' + format(n_resamples, ',') + ' random splits' if m == 'sampled' else 'exact, over all splits'} "
        f"for {rows_of(ids)}" for m, ids in by_method.items() if ids) + ".")
    wefat = ["| data set | words | paper r | our r | our p |", "|---|---:|---:|---:|---:|"]
    for key, v in doc["wefat"].items():
        wefat.append(f"| {key} | {v['n']} | {v['paper_pearson_r']:.2f} | {v['pearson_r']:.2f} | {v['pvalue']:.1e} |")
    ds = [w["effect_size"] for w in doc["weat"]]
    significant = sum(w["pvalue"] < 0.05 and w["effect_size"] > 0 for w in doc["weat"])
    occ, names = doc["wefat"]["occupations"], doc["wefat"]["names"]
    alt = {
        "table1_forest": (f"Forest plot of the {len(ds)} WEATs of Table 1, one row per test: the effect size d of the "
                          "original IAT, of the paper and of GloVe 6B 50d with its 95% interval over the choice of "
                          f"words; ours range from {min(ds):.2f} to {max(ds):.2f}."),
        "wefat_occupations": (f"Scatter plot of {occ['n']} occupations: the share of women among workers (BLS 2015, "
                              "horizontal) against the association of the occupation's word with female terms "
                              f"(vertical); Pearson r = {occ['pearson_r']:.2f} here, {occ['paper_pearson_r']:.2f} "
                              "in the paper."),
        "wefat_names": (f"Scatter plot of {names['n']} androgynous names: the share of people with the name who are "
                        "female (1990 census, horizontal) against the name's association with female terms "
                        f"(vertical); Pearson r = {names['pearson_r']:.2f} here, {names['paper_pearson_r']:.2f} in "
                        "the paper."),
        "weat1_null": ("Histogram of the WEAT 1 statistic (flowers vs. insects, pleasant vs. unpleasant) over "
                       + (f"{n_resamples:,} random splits" if doc["weat"][0]["p_method"] == "sampled" else "all splits")
                       + " of the target words, the permutation null distribution, with the observed statistic "
                       f"marked by a vertical line (one-sided p = {format_pvalue(doc['weat'][0]['pvalue'])})."),
    }
    captions = {
        "table1_forest": "Table 1 as a forest plot (notebooks 06 and 09).",
        "wefat_occupations": "Figure 1 of the paper: occupations (notebook 07).",
        "wefat_names": "Figure 2 of the paper: androgynous names, after the name-likeness filter (notebook 07).",
        "weat1_null": "The permutation test of WEAT 1 (notebook 05).",
    }
    figures = []
    for stem in ("table1_forest", "wefat_occupations", "wefat_names", "weat1_null"):
        figures += [f"```{{figure}} figures/{stem}.png", f":alt: {alt[stem]}", "", captions[stem], "```", ""]
    return "\n".join([
        "# The replication: Table 1 and the figures", "",
        "Computed while this site was built, by the same code as `python -m helpers replicate` (GloVe 6B 50d; "
        f"{n_resamples:,} random splits per sampled permutation test, seed {seed}; the sample standard deviation, "
        "ddof = 1). Notebooks [06](06_table1.ipynb) and [07](07_wefat.ipynb) rebuild them step by step. The paper "
        "used GloVe Common Crawl 840B (300 dimensions, cased); our p-values count permutations "
        "((k + 1)/(B + 1)) or enumerate every split (exact).", "",
        f"On this embedding {significant} of the {len(ds)} WEATs come out in the paper's direction and significant "
        f"at p < 0.05, with effect sizes from {min(ds):.2f} to {max(ds):.2f}.", "",
        "## Table 1: WEAT effect sizes and one-sided p-values", "", *rows, "",
        *(x for note in notes for x in (note, "")),
        "## WEFAT: Pearson correlation of the association with female terms and the real-world share", "",
        *wefat, "", "## Figures", "", *figures])


HUB_ENV = "COURSE_SITE_HUB_URL"
SITE_LICENCE = ("The text and figures of this course are under the Creative Commons Attribution 4.0 licence "
                "([CC BY 4.0](https://creativecommons.org/licenses/by/4.0/)), its code under the MIT License; "
                "the data keep their sources' terms (the repository's `LICENSE-TEXT.md`).")


def _citation(cff_text: str) -> list[str]:
    """The home page's "How to cite" lines from ``CITATION.cff``: the citation as text and as BibTeX."""
    import yaml

    cff = yaml.safe_load(cff_text)
    authors = " and ".join(a.get("name") or f"{a.get('given-names', '')} {a.get('family-names', '')}".strip()
                           for a in cff.get("authors", []))
    lines = [f"{authors}. *{cff['title']}*. Version {cff['version']}."]
    bib_title = cff["title"].replace("&", "\\&")
    bib = ["@software{weat_course,", f"  author  = {{{{{authors}}}}},", f"  title   = {{{bib_title}}},",
           f"  version = {{{cff['version']}}},", f"  note    = {{{', '.join(cff.get('license', []))}}},", "}"]
    out = [cff.get("message", ""), "", *lines, "", "```bibtex", *bib, "```"]
    for ref in cff.get("references", []):
        names = ", ".join(f"{a['family-names']}, {a['given-names']}" for a in ref.get("authors", []))
        out += ["", f"The paper it replicates: {names} ({ref['year']}). {ref['title']}. *{ref['journal']}* "
                    f"{ref['volume']}({ref['issue']}), {ref['start']}-{ref['end']}. "
                    f"[doi:{ref['doi']}](https://doi.org/{ref['doi']})."]
    return out


def hub_links(chapters: dict, hub: str) -> dict:
    """The class edition's chapters with an "Open this notebook in JupyterHub" link below each title.

    Parameters
    ----------
    chapters : dict
        ``{assignment: notebook}``.
    hub : str
        The instructor's address (environment variable ``COURSE_SITE_HUB_URL`` at build time), with
        ``{assignment}`` where the assignment's name goes, e.g. an nbgitpuller link to the class's hub;
        empty: no link.

    Returns
    -------
    dict
        New notebooks (``chapters`` unchanged), each with a second cell holding the link; ``chapters`` itself
        when ``hub`` is empty.

    Raises
    ------
    SiteError
        ``hub`` is not an http(s) address or has no ``{assignment}``.
    """
    from html import escape

    import nbformat

    hub = hub.strip()
    if not hub:
        return chapters
    if "{assignment}" not in hub or not re.match(r"^https?://[^\s\"<>]+$", hub):
        raise SiteError(f"{HUB_ENV} must be an http(s) address holding {{assignment}} (replaced by e.g. 01_cosine), "
                        f"for example an nbgitpuller link to your hub; it is {hub!r}.")
    out = {}
    for name, nb in chapters.items():
        nb = copy.deepcopy(nb)
        url = escape(hub.replace("{assignment}", name), quote=True)
        nb.cells.insert(1, nbformat.v4.new_markdown_cell(
            f'<p class="course-hub"><a class="btn course-hub-link" href="{url}">Open this notebook in JupyterHub</a></p>'))
        out[name] = nb
    return out


def _home(edition: str, readme: str, course_map: str, totals: dict, chapters: list[str],
          citation: list[str] | None = None) -> str:
    title = readme.splitlines()[0].lstrip("# ").strip()
    intro = readme.split("\n\n")[1].strip()
    hours = totals["minutes"] / 60
    if edition == "self-study":
        about = [
            "**This is the self-study edition.** Each chapter is one notebook of the course with its worked "
            "solutions, executed: the code, what it printed and its figures, as stored in the course's `executed/` "
            "folder. Each worked solution is folded under **Show solution** below its exercise, and each written "
            "answer under **Show the model answer**: try the exercise first, then compare. To run the notebooks "
            "yourself, see [Starting](students.md#starting); the [replication](replication.md) page shows the "
            "whole Table 1 and the figures at once.",
        ]
    else:
        about = [
            "**This is the class edition.** The chapters are the notebooks as released to students: the teaching "
            "text, the code and the exercises with their visible checks, without outputs and without worked "
            "solutions. Do the exercises in JupyterLab, where they are checked and graded: see "
            "[Starting](students.md#starting) and [how the course works](students.md).",
        ]
    who = [
        "- **Readers on their own** use the self-study edition of this site and, to run the notebooks, the course "
        "repository, whose `solutions/` holds the worked solutions the self-study edition shows.",
        "- **Students of a graded class** use the class edition of this site, published by their instructor, and "
        "the student bundle or JupyterHub of their class: released notebooks without worked solutions or hidden "
        "tests.",
        "- **Instructors** keep the course repository (worked solutions, hidden tests, grading tools) private during "
        "a term; its `docs/INSTRUCTORS.md` explains releasing, grading and feedback.",
    ]
    toc_chapters = "\n".join(chapters)
    extra = "replication\n" if edition == "self-study" else ""
    return "\n".join([
        f"# {title}", "", intro, "", *about, "",
        "## Course map", "", course_map, "",
        f"In all: {totals['notebooks']} notebooks, {totals['points']} points, about {hours:.0f} hours for a first pass.",
        "", "## Who gets what", "", *who, "",
        "## Licence and how to cite", "", SITE_LICENCE, "", *(citation or []), "",
        "```{toctree}", ":caption: Notebooks", ":hidden:", "", toc_chapters, "```", "",
        "```{toctree}", ":caption: The course", ":hidden:", "", extra + "glossary\nreferences\nstudents", "```", ""])


CSS = """
/* the worked solutions and model answers: native <details>, readable without JavaScript */
details.course-answer { border-left: 4px solid var(--pst-color-primary, #0a7d91); margin: 1em 0;
  padding: 0.2em 1em; background: var(--pst-color-surface, #f5f5f5); }
details.course-answer > summary { cursor: pointer; font-weight: 600; padding: 0.4em 0; }
details.course-answer:not([open]) > summary .expanded, details.course-answer[open] > summary .collapsed { display: none; }
details.hide.above-input > summary { font-weight: 600; }
details.hide > summary .collapsed::before, details.course-answer > summary::marker { color: var(--pst-color-primary, #0a7d91); }
/* wide tables scroll instead of widening the page on a phone */
article .pst-scrollable-table-container { overflow-x: auto; max-width: 100%; }
article table.table { width: auto; }  /* no wider than its rows (a block-level table left an empty band) */
.cell_output pre, .highlight pre { white-space: pre; overflow-x: auto; }
img { max-width: 100%; height: auto; }
/* on a phone the theme's headings take a screen each */
@media (max-width: 600px) {
  article h1 { font-size: 1.9rem; } article h2 { font-size: 1.5rem; } article h3 { font-size: 1.25rem; }
}
/* a long displayed formula scrolls on a narrow screen (MathJax does not break lines) */
div.math { overflow-x: auto; overflow-y: hidden; max-width: 100%; }
article mjx-container[display="true"] { overflow: visible !important; }  /* div.math scrolls, and takes the Tab stop */
/* every control shows where the keyboard is (WCAG 2.4.7): the themes hide the outline of some buttons */
a:focus-visible, button:focus-visible, summary:focus-visible, .btn:focus-visible, input:focus-visible,
[tabindex]:focus-visible, label:focus-visible {
  outline: 3px solid var(--course-focus, #1a5fb4) !important; outline-offset: 2px; box-shadow: none !important; }
html[data-theme="dark"] { --course-focus: #99c1f1; }
/* the page's contents column (right) wraps long code and formulas instead of running off the screen */
.bd-sidebar-secondary .pre, .bd-sidebar-secondary code { white-space: normal !important; overflow-wrap: anywhere;
  word-break: break-all; }
.bd-sidebar-secondary .sidebar-secondary-item { min-width: 0; }
/* glossary: one entry per term, its anchor the term */
dl.glossary dt { margin-top: 0.8em; }
/* figures: a figure wider than the text keeps its size and scrolls sideways (its labels stay legible);
   below it, a link opens it full size (course.js) */
div.cell_output { overflow-x: auto; max-width: 100%; }
@media (min-width: 600px) { .cell_output img { max-width: none; } }
div.course-print-copy { display: none; }
a.course-figure-open { display: inline-block; font-size: 0.85em; margin: 0.2em 0 0.8em; }
/* the copy button of each code block (course.js) */
div.highlight.course-has-copy { position: relative; }
button.course-copy { position: absolute; top: 0.3em; right: 0.3em; font-size: 0.75em; padding: 0.1em 0.5em;
  border: 1px solid var(--pst-color-border, #767676); border-radius: 4px; color: var(--pst-color-text-base, #222);
  background: var(--pst-color-background, #fff); opacity: 0.9; cursor: pointer; }
p.course-hub { margin: 0.5em 0 1em; }
a.course-hub-link { border: 1px solid var(--pst-color-primary, #0a7d91); }
/* print: light colours whatever the screen's mode, every solution open, code wrapped, no navigation */
@media print {
  html, html[data-theme="dark"], html[data-theme="light"] {
    --pst-color-background: #fff; --pst-color-on-background: #fff; --pst-color-surface: #f3f3f3;
    --pst-color-on-surface: #111; --pst-color-text-base: #111; --pst-color-text-muted: #333;
    --pst-color-heading: #111; --pst-color-primary: #0b4f6c; --pst-color-link: #0b4f6c;
    --pst-color-inline-code: #6b1f5c; --pst-color-border: #bbb; --pst-color-shadow: transparent;
    color-scheme: light; }
  body, article, .bd-main, .bd-content, .bd-article-container { color: #111 !important; background: #fff !important; }
  mjx-container, mjx-container svg { color: #111 !important; }
  .highlight, .highlight pre, div.cell_output, .cell_output pre { background: #f6f6f6 !important; color: #111 !important; }
  html[data-theme="dark"] .highlight * { color: #111 !important; }
  pre, .highlight pre, .cell_output pre { white-space: pre-wrap !important; overflow-wrap: anywhere; overflow: visible !important; }
  article details.hide, article details.course-answer { display: none !important; }
  div.course-print-copy { display: block !important; border-left: 4px solid #0b4f6c; padding-left: 0.8em; }
  p.course-print-label { font-weight: 600; margin: 0.5em 0; }
  .course-figure-open, .course-copy, .course-hub, .headerlink, .bd-header-article, .prev-next-area, .bd-sidebar-primary, .bd-sidebar-secondary { display: none !important; }
  .cell_output img { max-width: 100% !important; }
}
"""

#: The site's own script (``_static/course.js``). Its first part works around a bug of the pinned theme
#: versions (pydata-sphinx-theme issue 2451, sphinx-book-theme issue 988, both open at 0.20.0 / 1.4.0, the
#: newest sphinx-book-theme): the themes attach the sidebar handlers to the *first* ``.primary-toggle`` and
#: ``.secondary-toggle`` of the page, a button of the hidden top bar, so the visible ☰ and contents buttons
#: do nothing. A click on any other toggle is passed on to the first one, so every width gets the themes'
#: own behaviour (a dialog on a narrow screen, a folding sidebar on a wide one). Re-check on a theme upgrade
#: (CONTRIBUTING.md, "Patched internals"): remove it once the visible buttons work without it.
JS = """
(function () {
  "use strict";
  function ready(f) {
    if (document.readyState !== "loading") { f(); } else { document.addEventListener("DOMContentLoaded", f); }
  }
  // the visible sidebar buttons: pass their clicks on to the button the theme wired
  function wireSidebarToggles() {
    ["primary", "secondary"].forEach(function (side) {
      var toggles = document.querySelectorAll("." + side + "-toggle");
      var wired = toggles[0];
      toggles.forEach(function (button) {
        if (button === wired || button.dataset.courseWired) { return; }
        button.dataset.courseWired = "1";
        button.addEventListener("click", function (event) {
          event.preventDefault();
          event.stopImmediatePropagation();
          wired.click();
        }, true);
      });
    });
  }
  ready(wireSidebarToggles);

  // the theme's search buttons read "Search" to a screen reader but show "Search Ctrl+K" (axe-core:
  // label-content-name-mismatch, WCAG 2.5.3); without the aria-label their name is what they show;
  // so do myst-nb's "Show solution" toggles ("Toggle hidden content")
  ready(function () {
    document.querySelectorAll(".search-button-field[aria-label], details.hide > summary[aria-label]")
      .forEach(function (b) { b.removeAttribute("aria-label"); });
  });

  // each figure of a chapter: a link below it to the image at full size
  function linkFigures() {
    document.querySelectorAll(".cell_output img").forEach(function (img) {
      if (img.dataset.courseLinked) { return; }
      img.dataset.courseLinked = "1";
      var link = document.createElement("a");
      link.href = img.getAttribute("src");
      link.className = "course-figure-open";
      link.textContent = "Open the figure full size";
      img.insertAdjacentElement("afterend", link);
    });
  }
  ready(linkFigures);

  // a copy button on each block of code (the Clipboard API, which pages read from disk may use; else the
  // selection and execCommand)
  function copyText(text, done) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallback(text, done); });
    } else { fallback(text, done); }
  }
  function fallback(text, done) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); done(); } finally { document.body.removeChild(area); }
  }
  function addCopyButtons() {
    document.querySelectorAll("div.highlight > pre").forEach(function (pre) {
      var box = pre.parentElement;
      if (box.closest(".cell_output")) { return; }  // code, not what it printed
      if (box.querySelector(".course-copy")) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "course-copy";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy the code");
      button.addEventListener("click", function () {
        copyText(pre.innerText.replace(/\\n$/, ""), function () {
          button.textContent = "Copied";
          window.setTimeout(function () { button.textContent = "Copy"; }, 2000);
        });
      });
      box.classList.add("course-has-copy");
      box.insertBefore(button, pre);
    });
  }
  ready(addCopyButtons);

  // printing: a copy of each worked solution and model answer, shown only in print, where the folded
  // <details> element is left out (a closed <details> prints without its content, whatever the style
  // sheet or a "beforeprint" handler does, in Chromium's PDF output)
  function printCopies() {
    document.querySelectorAll("article details.hide, article details.course-answer").forEach(function (d) {
      if (d.dataset.coursePrint) { return; }
      d.dataset.coursePrint = "1";
      var copy = document.createElement("div");
      copy.className = "course-print-copy";
      var label = document.createElement("p");
      label.className = "course-print-label";
      label.textContent = d.classList.contains("course-answer") ? "Model answer" : "Worked solution";
      copy.appendChild(label);
      Array.prototype.forEach.call(d.children, function (child) {
        if (child.tagName === "SUMMARY") { return; }
        var c = child.cloneNode(true);
        c.removeAttribute("id");
        c.querySelectorAll("[id]").forEach(function (e) { e.removeAttribute("id"); });
        copy.appendChild(c);
      });
      d.insertAdjacentElement("afterend", copy);
    });
  }
  // after MathJax has typeset the page (the copies then hold the typeset formulas); "load" waits for it to load
  window.addEventListener("load", function () {
    var typeset = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    (typeset || Promise.resolve()).then(function () {
      printCopies();
      // a block that scrolls sideways (a long formula, a wide figure or table) takes a Tab stop, so that
      // a keyboard can scroll it (WCAG 2.1.1; axe-core: scrollable-region-focusable)
      document.querySelectorAll("article div.math, article div.cell_output, article .pst-scrollable-table-container, article pre")
        .forEach(function (e) {
          if (e.scrollWidth > e.clientWidth + 1 && !e.hasAttribute("tabindex") && !e.closest(".course-print-copy")) {
            e.setAttribute("tabindex", "0");
          }
        });
    });
  });
})();
"""

CONF = '''# Generated by helpers/site.py: the Sphinx configuration of the course's site ({edition} edition).
project = {title!r}
author = "the course's authors"
copyright = "the course's authors"
extensions = ["myst_nb", "helpers.site"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
master_doc = "index"
language = "en"
html_theme = "sphinx_book_theme"
html_title = {short!r}
html_static_path = ["_static"]
# the light/dark switch starts from the reader's system setting ("auto"; unset, the theme logs an error on every page)
html_context = {{"default_mode": "auto"}}
# search once, in the top bar (the theme's sidebar has a second search field; theme.conf's default without it)
html_sidebars = {{"**": ["navbar-logo.html", "icon-links.html", "sbt-sidebar-nav.html"]}}
html_css_files = ["course.css"]
html_js_files = ["course.js"]
html_show_sourcelink = False
html_show_sphinx = True
html_copy_source = True
html_last_updated_fmt = None
html_theme_options = {{
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "navigation_with_keys": False,
    "extra_footer": {footer!r},
}}
# maths: MathJax 3 served from the site itself (_static/mathjax, copied at build time), SVG output: no web fonts
mathjax_path = "mathjax/tex-svg.js"
# formulas are not Tab stops (MathJax's menu setting "Include in Tab Order"; its menu stays on right-click)
mathjax3_config = {{"svg": {{"fontCache": "global"}}, "options": {{"menuOptions": {{"settings": {{"inTabOrder": False}}}}}}}}
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
nb_execution_mode = "off"
nb_ipywidgets_js = {{}}
nb_merge_streams = True
nb_output_stderr = "show"
suppress_warnings = ["myst.header"]
course_alt_texts = {alt!r}
'''


def build_site(root: str | os.PathLike = ".", out: str | os.PathLike = "site", *, edition: str = "self-study",
               force: bool = False, progress=print) -> dict:
    """Build the course's website into ``out`` (static HTML, readable from disk or any static host).

    Parameters
    ----------
    root : path
        The course root (``README.md``, ``docs/``, ``solutions/``, ``notebooks/``, ``executed/``).
    out : path
        The folder to write; open ``out/index.html``.
    edition : {"self-study", "class"}
        ``"self-study"``: the executed worked solutions of ``executed/`` (each solution folded) and the
        replication's Table 1 and figures. ``"class"``: the released notebooks of ``notebooks/``,
        without outputs, worked solutions or hidden tests, and no replication results.
    force : bool
        Replace ``out`` when it exists.
    progress : callable or None
        Called with a line per step.

    Returns
    -------
    dict
        ``out`` (Path), ``edition``, ``seconds`` (build time), ``chapters`` (assignment names) and
        ``warnings`` (Sphinx's warnings, one string each; a clean build has none).

    Raises
    ------
    SiteError
        Sphinx, myst-nb, the theme or MathJax is missing, ``out`` exists (without ``force``), an
        executed notebook is missing or stale (self-study), or Sphinx failed; the message says what to do.
    """
    import time

    start = time.perf_counter()
    if edition not in EDITIONS:
        raise SiteError(f"The edition must be one of {', '.join(EDITIONS)}, not {edition!r}.")
    root, out = Path(root).resolve(), Path(out).resolve()
    _require_root(root, "README.md", "docs/STUDENTS.md", "docs/GLOSSARY.md",
                  "solutions" if edition == "self-study" else "notebooks")
    _require_sphinx()
    es5 = mathjax_dir()
    if out == root or root.is_relative_to(out):
        raise SiteError(f"{out} holds the course itself; choose a new folder for the site.")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise SiteError(f"{out} exists; choose a new folder or pass --force to replace it.")
    downloads = {}  # what the download button gives: the notebook as stored, without the site's markup
    if edition == "self-study":
        stale = stale_executed(root)
        if stale:
            raise SiteError("The executed notebooks behind the self-study site do not match the worked solutions:\n  "
                            + "\n  ".join(f"{k}: {v}" for k, v in stale.items())
                            + f"\nRun `python -m helpers site --execute-only {' '.join(stale)}` from the course root "
                              "(a minute or so per notebook), check the new outputs, and commit executed/.")
        names = _assignments(root, "solutions")
        downloads = {n: _read(root / EXECUTED_DIR / f"{n}.ipynb") for n in names}
        chapters = {n: _chapter_self_study(nb) for n, nb in downloads.items()}
    else:
        names = _assignments(root, "notebooks")
        downloads = {n: class_notebook(_read(root / "notebooks" / n / f"{n}.ipynb")) for n in names}
        chapters = {n: _note_figures(copy.deepcopy(nb)) for n, nb in downloads.items()}
    if not chapters:
        raise SiteError(f"No notebooks found for the {edition} edition in {root}.")
    glossary_md = (root / "docs" / "GLOSSARY.md").read_text(encoding="utf-8")
    terms = _glossary_entries(glossary_md)
    chapters = {n: link_terms(nb, terms) for n, nb in chapters.items()}  # new notebooks: downloads unchanged
    for nb in chapters.values():
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = link_identifiers(cell.source)
    if edition == "class":
        chapters = hub_links(chapters, os.environ.get(HUB_ENV, ""))
    readme = (root / "README.md").read_text(encoding="utf-8")
    students = (root / "docs" / "STUDENTS.md").read_text(encoding="utf-8")
    course_map, totals = _course_map(students, names)
    with tempfile.TemporaryDirectory(prefix="course-site-") as tmp:
        src = Path(tmp) / "src"
        (src / "_static").mkdir(parents=True)
        alt = {}
        for name, nb in chapters.items():
            _write(nb, src / f"{name}.ipynb")
            alt.update(_alt_texts(nb))
        cff = root / "CITATION.cff"
        citation = _citation(cff.read_text(encoding="utf-8")) if cff.is_file() else None
        (src / "index.md").write_text(_home(edition, readme, course_map, totals, names, citation), encoding="utf-8")
        (src / "students.md").write_text(students.replace("(GLOSSARY.md)", "(glossary.md)"), encoding="utf-8")
        (src / "glossary.md").write_text(_glossary(glossary_md, names), encoding="utf-8")
        (src / "references.md").write_text(_references(chapters), encoding="utf-8")
        if edition == "self-study":
            if progress:
                progress("computing Table 1 and the figures (python -m helpers replicate) ...")
            (src / "replication.md").write_text(_table1_page(src / "figures"), encoding="utf-8")
        (src / "_static" / "course.css").write_text(CSS, encoding="utf-8")
        (src / "_static" / "course.js").write_text(JS, encoding="utf-8")
        _copy_mathjax(es5, src / "_static" / "mathjax")
        title = readme.splitlines()[0].lstrip("# ").strip()
        short = "Bias in word embeddings" + (" (class edition)" if edition == "class" else "")
        from datetime import datetime, timezone

        from . import __version__

        built = datetime.fromtimestamp(int(os.environ.get("SOURCE_DATE_EPOCH") or time.time()), timezone.utc)
        footer = (f"Version {__version__} of the course, {edition} edition, built on {built:%Y-%m-%d}. "
                  "Text and figures: CC BY 4.0; code: MIT. Built with Sphinx, myst-nb and sphinx-book-theme; "
                  "MathJax 3 is served from this site.")
        (src / "conf.py").write_text(CONF.format(edition=edition, title=title, short=short, footer=footer, alt=alt),
                                     encoding="utf-8")
        if progress:
            progress(f"building the {edition} edition with Sphinx ({len(chapters)} chapters) ...")
        html = Path(tmp) / "html"
        warnings_file = Path(tmp) / "warnings.txt"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                                           os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
        env.pop("MPLBACKEND", None)
        res = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-E", "-q", "-w", str(warnings_file),
                              "-d", str(Path(tmp) / "doctrees"), str(src), str(html)],
                             capture_output=True, text=True, env=env, cwd=tmp)
        warnings = [w for w in (warnings_file.read_text(errors="replace").strip().split("\n")
                                if warnings_file.exists() else []) if w.strip()]
        warnings = [w.replace(str(src) + os.sep, "") for w in warnings]
        if res.returncode != 0 or not (html / "index.html").is_file():
            raise SiteError(f"Sphinx failed to build the {edition} edition (exit {res.returncode}):\n"
                            f"{res.stdout[-3000:]}\n{res.stderr[-3000:]}\n" + "\n".join(warnings[:20]))
        (html / ".buildinfo").unlink(missing_ok=True)
        for name, nb in downloads.items():
            if (html / "_sources" / f"{name}.ipynb").is_file():
                _write(nb, html / "_sources" / f"{name}.ipynb")
        (html / "EDITION").write_text(edition + "\n")
        if out.exists():
            shutil.rmtree(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(html, out)
    seconds = time.perf_counter() - start
    if progress:
        for w in warnings:
            progress(f"warning: {w}")
    return {"out": out, "edition": edition, "seconds": seconds, "chapters": names, "warnings": warnings}


# --------------------------------------------------------------------------------------------- Sphinx extension

def setup(app):
    """The Sphinx extension of the site's build (``extensions = ["helpers.site"]``).

    * ``course-answer``: a directive whose content (a model answer) is folded in a ``<details>``
      element under "Show the model answer";
    * the text alternatives of the notebooks' figures (config ``course_alt_texts``, by image hash)
      are set on their images; an image left without one is a warning;
    * MathJax is loaded on every page (the navigation's chapter titles hold maths), not only on
      pages whose own text does.
    """
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class AnswerDirective(Directive):
        has_content = True

        def run(self):
            body = nodes.container(classes=["course-answer-body"])
            self.state.nested_parse(self.content, self.content_offset, body)
            opening = ('<details class="course-answer">\n<summary><span class="collapsed">'
                       f'{SHOW_ANSWER}</span><span class="expanded">{HIDE_ANSWER}</span></summary>\n')
            return [nodes.raw("", opening, format="html"), body, nodes.raw("", "</details>\n", format="html")]

    def set_alt_texts(app, doctree):
        texts = app.config.course_alt_texts
        for image in doctree.findall(nodes.image):
            stem = Path(image["uri"]).stem
            if not image.get("alt") and stem in texts:
                image["alt"] = texts[stem]
            if not image.get("alt"):
                from sphinx.util import logging

                logging.getLogger(__name__).warning(f"image without a text alternative: {image['uri']}",
                                                    location=image)

    # MathJax on every page: the navigation shows the chapter titles, some of which hold maths
    app.set_html_assets_policy("always")
    app.add_config_value("course_alt_texts", {}, "env")
    app.add_directive("course-answer", AnswerDirective)
    app.connect("doctree-read", set_alt_texts)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
