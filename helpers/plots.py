"""Figures of the course (matplotlib). Each function draws on a given ``ax`` or a new figure and
returns the ``Axes``; titles say what the figure shows and axes carry labels and units.

One palette for every figure of the course (these functions and the notebooks' own plots): the
colour-blind-safe colours of Okabe & Ito (Wong, "Points of view: Color blindness", Nature Methods 8,
441, 2011, doi:10.1038/nmeth.1618) with IBM's violet in place of their light colours, each at least 3:1
against a white background (WCAG 1.4.11) and, as a set, apart under simulated deuteranopia and
protanopia (``tests/test_plots.py``). Groups that must be told apart also differ in marker
(:data:`MARKERS`), line style (:data:`LINESTYLES`) or hatch (:data:`HATCHES`), not only in hue.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["null_distribution", "word_associations", "forest_plot", "wefat_scatter", "label_points", "PALETTE",
           "BLUE", "VERMILLION", "GREEN", "VIOLET", "GREY", "BLACK", "MARKERS", "LINESTYLES", "HATCHES"]

#: The first group (e.g. the target set X), the paper's values: Okabe-Ito blue, 5.2:1 against white.
BLUE = "#0072B2"
#: The second group (e.g. Y), this embedding's values, an observed statistic: Okabe-Ito vermillion, 3.9:1.
VERMILLION = "#D55E00"
#: A third group: Okabe-Ito bluish green, 3.4:1.
GREEN = "#009E73"
#: A fourth group: IBM's violet (#785EF0), 4.5:1; Okabe-Ito's reddish purple has 3.1:1 and is close to
#: the blue under protanopia.
VIOLET = "#785EF0"
#: Neutral marks (histograms of a null distribution, reference lines, label leaders): 4.7:1; never the
#: only difference between two groups.
GREY = "#737373"
#: Text, axes, fitted lines.
BLACK = "#000000"
#: The group colours, in the order groups are given.
PALETTE = (BLUE, VERMILLION, GREEN, VIOLET)
#: Markers of the groups, in the same order: a pair differs in shape as well as in colour.
MARKERS = ("o", "s", "D", "^")
#: Line styles of the groups, in the same order.
LINESTYLES = ("-", "--", "-.", ":")
#: Hatches of the groups' bars, in the same order.
HATCHES = ("", "//", "..", "xx")


#: Steps adjustText takes at most to move labels apart (:func:`label_points`): a fixed number, so the same
#: figure on every machine.
LABEL_STEPS = 50


def _ax(ax, figsize):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def label_points(ax, x: Sequence[float], y: Sequence[float], words: Sequence[str], *, fontsize: float = 6):
    """Write ``words`` next to the points ``(x, y)`` without overlaps.

    The package adjustText moves overlapping labels apart, in at most :data:`LABEL_STEPS` steps; a
    thin grey line joins a moved label to its point. A fixed number of steps gives the same figure on
    every machine: adjustText's own default stops after one second of wall time, so where the labels
    ended depended on the machine and its load.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes the points are drawn on.
    x, y : sequence of float
        The points' coordinates, one per word.
    words : sequence of str
        The labels.
    fontsize : float
        The labels' font size.

    Returns
    -------
    list of matplotlib.text.Text
        The labels, after placement (thin grey lines join moved labels to their points).

    Raises
    ------
    ValueError
        When ``x``, ``y`` and ``words`` differ in length.
    """
    from adjustText import adjust_text

    x, y = np.asarray(x, float), np.asarray(y, float)
    if not len(x) == len(y) == len(words):
        raise ValueError(f"label_points needs one word per point: {len(x)} x, {len(y)} y and {len(words)} words.")
    texts = [ax.text(xi, yi, w, fontsize=fontsize, alpha=0.85) for xi, yi, w in zip(x, y, words)]
    if texts:
        adjust_text(texts, x=x, y=y, ax=ax, iter_lim=LABEL_STEPS,
                    arrowprops=dict(arrowstyle="-", color=GREY, lw=0.4))
    return texts


def null_distribution(null: np.ndarray, observed: float, *, pvalue: float | None = None, method: str = "",
                      title: str = "Permutation null distribution of s(X, Y, A, B)", ax=None):
    """Histogram of the permutation statistics with the observed statistic as a vertical line.

    Between 10 and 80 bins (about the square root of the number of splits); the legend gives the
    number of splits, the method and, with ``pvalue``, the p-value.

    Parameters
    ----------
    null : array_like
        The statistics of the splits (``PermutationResult.null_distribution``).
    observed : float
        The observed statistic.
    pvalue : float or None
        Shown in the legend.
    method : str
        ``"exact"`` or ``"sampled"``, shown in the legend.
    title : str
        The title.
    ax : matplotlib.axes.Axes or None
        Where to draw; None draws on a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes, holding the histogram (grey) and the observed statistic as a dashed vermillion line.
    """
    ax = _ax(ax, (7, 4))
    null = np.asarray(null, dtype=float)
    ax.hist(null, bins=min(80, max(10, int(np.sqrt(null.size)))), color=GREY, edgecolor="white", linewidth=0.3,
            label=f"{null.size:,} splits of X ∪ Y" + (f" ({method})" if method else ""))
    lab = f"observed s = {observed:.3f}" + (f", p = {pvalue:.2g}" if pvalue is not None else "")
    ax.axvline(observed, color=VERMILLION, linewidth=2, linestyle=LINESTYLES[1], label=lab)
    ax.set_xlabel("test statistic s(Xᵢ, Yᵢ, A, B) (sum of cosine differences, unitless)")
    ax.set_ylabel("number of splits")
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8)
    return ax


def word_associations(words: Sequence[str], scores: Sequence[float], groups: Sequence[str] | None = None, *,
                      a_name: str = "A", b_name: str = "B", title: str | None = None, ax=None):
    """Horizontal bars of s(w, A, B) per word, sorted, coloured and hatched by group (e.g. X and Y).

    The word most associated with A is at the top, the one most associated with B at the bottom;
    a vertical line marks 0.

    Parameters
    ----------
    words : sequence of str
        The words, one bar each.
    scores : sequence of float
        The association s(w, A, B) of each word.
    groups : sequence of str or None
        The group of each word (e.g. the target set's name), for the colours.
    a_name, b_name : str
        Names of the attribute sets, for the axis label.
    title : str or None
        The title (default: one naming A and B).
    ax : matplotlib.axes.Axes or None
        Where to draw; None draws on a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes, one horizontal bar per word.
    """
    scores = np.asarray(scores, dtype=float)
    order = np.argsort(scores)
    ax = _ax(ax, (6, max(3, 0.22 * len(words) + 1)))
    groups = list(groups) if groups is not None else [""] * len(words)
    names = list(dict.fromkeys(groups))
    colours = dict(zip(names, PALETTE))
    hatches = dict(zip(names, HATCHES))
    ax.barh(np.arange(len(words)), scores[order], color=[colours[groups[i]] for i in order],
            hatch=[hatches[groups[i]] for i in order], edgecolor="white", linewidth=0)
    ax.set_yticks(np.arange(len(words)), [words[i] for i in order], fontsize=8)
    ax.axvline(0, color=BLACK, linewidth=0.8)
    ax.set_xlabel(f"s(w, {a_name}, {b_name}) = mean cos with {a_name} − mean cos with {b_name}")
    ax.set_title(title or f"Association of each word with {a_name} rather than {b_name}")
    if any(names):
        from matplotlib.patches import Patch

        ax.legend(handles=[Patch(facecolor=colours[g], hatch=hatches[g], edgecolor="white", label=g) for g in names],
                  fontsize=8, loc="lower right")
    return ax


def forest_plot(labels: Sequence[str], ours: Sequence[float], paper: Sequence[float],
                original: Sequence[float | None], *, ours_label: str = "this embedding",
                intervals: Sequence[tuple[float, float]] | None = None,
                title: str = "Table 1 effect sizes: original IAT, paper (GloVe 840B)\nand this embedding", ax=None):
    """Effect sizes per test, one row each: the IAT's d, the paper's d and ours (with optional intervals).

    Rows from top to bottom in the order given: a grey square for the IAT's d (people), a blue
    diamond for the paper's and a vermillion dot for ours, with ``intervals`` as vermillion horizontal
    lines; a vertical line marks d = 0.

    Parameters
    ----------
    labels : sequence of str
        One per test.
    ours, paper : sequence of float
        The effect sizes of this embedding and of the paper.
    original : sequence of float or None
        The IAT's d (None where there is none).
    ours_label : str
        The legend's name for ours.
    intervals : sequence of (float, float) or None
        An interval around each of ours (e.g. a bootstrap interval).
    title : str
        The title, over two lines by default (the three sources of d).
    ax : matplotlib.axes.Axes or None
        Where to draw; None draws on a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: three markers per test (the IAT's, the paper's and ours).
    """
    n = len(labels)
    ax = _ax(ax, (10, 0.5 * n + 2.5))
    y = np.arange(n)[::-1]
    orig = np.array([np.nan if v is None else v for v in original], dtype=float)
    ax.scatter(orig, y + 0.2, marker="s", color=GREY, label="original IAT (people)", zorder=3)
    ax.scatter(paper, y, marker="D", color=BLUE, label="paper, GloVe Common Crawl 840B", zorder=3)
    if intervals is not None:
        lo, hi = np.array(intervals, dtype=float).T
        ax.hlines(y - 0.2, lo, hi, color=VERMILLION, linewidth=1.5)
    ax.scatter(ours, y - 0.2, marker="o", color=VERMILLION, label=ours_label, zorder=3)
    ax.set_yticks(y, labels, fontsize=8)
    ax.axvline(0, color=BLACK, linewidth=0.8)
    ax.set_xlabel("effect size d (difference of the mean associations, in pooled standard deviations)")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=3, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    return ax


def wefat_scatter(values: Sequence[float], scores: Sequence[float], words: Sequence[str] | None = None, *,
                  pearson_r: float | None = None, pvalue: float | None = None, paper_r: float | None = None,
                  xlabel: str = "women among workers in the occupation (%)",
                  ylabel: str = "association with female rather than male terms\n(normalised WEFAT score)",
                  title: str = "WEFAT", annotate: bool = True, ax=None):
    """Scatter of a real-world property (x) against the WEFAT score (y), with the least-squares line of y on x.

    The line drawn is the fit of the score on the property, the natural line for this picture;
    the paper's regression (and ``WefatResult.slope``) predicts the property from the score
    instead. Both share Pearson's r, which the legend shows.

    Parameters
    ----------
    values : sequence of float
        The property (x), e.g. % women.
    scores : sequence of float
        The WEFAT scores (y).
    words : sequence of str or None
        Labels of the points (with ``annotate``).
    pearson_r, pvalue : float or None
        Shown in the legend.
    paper_r : float or None
        The paper's r, shown in the legend (``wordsets.wefat_paper()``).
    xlabel, ylabel, title : str
        The labels of the axes and the title.
    annotate : bool
        Write each word next to its point.
    ax : matplotlib.axes.Axes or None
        Where to draw; None draws on a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes, with the points, the least-squares line and the legend of r.
    """
    ax = _ax(ax, (7, 5))
    x, y = np.asarray(values, float), np.asarray(scores, float)
    ax.scatter(x, y, color=BLUE, s=18, zorder=3)
    slope, icpt = np.polyfit(x, y, 1)
    xs = np.array([x.min(), x.max()])
    lab = "least-squares line of the score on x"
    if pearson_r is not None:
        lab += f" (r = {pearson_r:.2f}" + (f", p = {pvalue:.1e}" if pvalue is not None else "") + ")"
    ax.plot(xs, slope * xs + icpt, color=BLACK, linewidth=1.2, label=lab)
    if paper_r is not None:
        ax.plot([], [], " ", label=f"paper (GloVe 840B): r = {paper_r:.2f}")
    ax.axhline(0, color=GREY, linewidth=0.6, linestyle=":")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left")
    if annotate and words is not None:
        label_points(ax, x, y, list(words))
    return ax
