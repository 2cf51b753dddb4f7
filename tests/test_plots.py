"""helpers.plots: the same figure on every machine."""
from __future__ import annotations

import itertools
import re

import adjustText
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from helpers import plots
from helpers.plots import LABEL_STEPS, label_points


def _label_places() -> np.ndarray:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=40), 0.05 * rng.normal(size=40)     # crowded: the labels overlap at first
    figure = Figure(figsize=(6, 4))
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    ax.scatter(x, y)
    texts = label_points(ax, x, y, [f"word{i}" for i in range(40)])
    return np.array([text.get_position() for text in texts])


def test_label_points_places_the_labels_the_same_on_a_slow_machine(monkeypatch):
    """adjustText's default stops after one second of wall time; label_points stops after LABEL_STEPS
    steps, whatever the clock says. Here every reading of the clock is 0.1 s after the last."""
    assert LABEL_STEPS > 10
    quick = _label_places()
    clock = itertools.count(0.0, 0.1)
    monkeypatch.setattr(adjustText, "timer", lambda: next(clock))
    assert np.array_equal(_label_places(), quick)


# --------------------------------------------------------------------------- the palette

#: Machado, Oliveira & Fernandes, "A physiologically-based model for simulation of color vision deficiency",
#: IEEE TVCG 15(6), 1291-1298, 2009, doi:10.1109/TVCG.2009.113: the matrices of severity 1.0 (dichromacy),
#: applied to linear RGB.
MACHADO = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
}
#: CIE76 colour difference two marks must keep under every simulated vision (about 2.3 is just noticeable;
#: red against green, the fault this palette replaces, is about 7 under deuteranopia).
MIN_DELTA_E = 20
#: WCAG 2.1, 1.4.11 "Non-text Contrast": graphics that carry meaning, 3:1 against what is next to them.
MIN_CONTRAST = 3.0


def _linear(colour) -> np.ndarray:
    from matplotlib.colors import to_rgb

    c = np.asarray(to_rgb(colour), float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of a linear sRGB colour."""
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _contrast(a, b="white") -> float:
    la, lb = (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] for c in (_linear(a), _linear(b)))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _delta_e(a, b, vision: str | None = None) -> float:
    m = MACHADO[vision] if vision else np.eye(3)
    return float(np.linalg.norm(_lab(np.clip(m @ _linear(a), 0, 1)) - _lab(np.clip(m @ _linear(b), 0, 1))))


def test_the_helpers_are_right_on_known_values():
    assert abs(_contrast("black") - 21) < 1e-9 and abs(_contrast("white") - 1) < 1e-9
    assert abs(_contrast("#767676") - 4.54) < 0.01            # WebAIM's lightest grey passing 4.5:1 on white
    assert abs(_delta_e("black", "white") - 100) < 0.01
    # the fault the palette replaces: matplotlib's red and green, far apart to most readers, not under deuteranopia
    assert _delta_e("tab:red", "tab:green") > 100 and _delta_e("tab:red", "tab:green", "deuteranopia") < 10


def test_every_colour_of_the_palette_has_3_to_1_contrast_on_white():
    low = {c: round(_contrast(c), 2) for c in (*plots.PALETTE, plots.GREY, plots.BLACK) if _contrast(c) < MIN_CONTRAST}
    assert not low, f"colours below {MIN_CONTRAST}:1 against white: {low}"
    assert _contrast("tab:orange") < MIN_CONTRAST  # the control: the colour it replaces fails


@pytest.mark.parametrize("vision", [None, *MACHADO])
def test_the_group_colours_stay_apart_under_colour_vision_deficiencies(vision):
    colours = (*plots.PALETTE, plots.BLACK)
    close = {(a, b): round(_delta_e(a, b, vision), 1) for a, b in itertools.combinations(colours, 2)
             if _delta_e(a, b, vision) < MIN_DELTA_E}
    assert not close, f"under {vision or 'normal vision'} these pairs are closer than ΔE {MIN_DELTA_E}: {close}"


def test_groups_differ_in_shape_as_well_as_in_colour():
    n = len(plots.PALETTE)
    for styles in (plots.MARKERS, plots.LINESTYLES, plots.HATCHES):
        assert len(styles) == n and len(set(styles)) == n, styles


def _colours_of(ax) -> set[str]:
    """Every colour drawn on ``ax`` (faces, edges, lines), as hex, without full transparency or white."""
    from matplotlib.colors import to_hex, to_rgba

    found = []
    for artist in [*ax.patches, *ax.lines, *ax.collections]:
        for get in ("get_facecolor", "get_edgecolor", "get_color"):
            value = getattr(artist, get, lambda: None)()
            if value is None or isinstance(value, str) and value == "none":
                continue
            for rgba in np.atleast_2d(to_rgba(value) if isinstance(value, str) else np.asarray(value, float)):
                if len(rgba) == 4 and rgba[3] > 0:
                    found.append(to_hex(rgba[:3]))
    return set(found) - {"#ffffff"}


def test_the_course_figures_use_only_the_palette():
    rng = np.random.default_rng(0)
    palette = {c.lower() for c in (*plots.PALETTE, plots.GREY, plots.BLACK)}
    axes = [plots.null_distribution(rng.normal(size=500), 1.0, pvalue=0.01, method="sampled"),
            plots.word_associations(list("abcd"), [0.1, -0.2, 0.3, 0.0], list("XXYY")),
            plots.forest_plot(["t1", "t2"], [1.0, 0.5], [1.2, 0.4], [1.0, None], intervals=[(0.5, 1.5), (0, 1)]),
            plots.wefat_scatter(rng.uniform(0, 100, 20), rng.normal(size=20), pearson_r=0.5, annotate=False)]
    import matplotlib.pyplot as plt

    for ax in axes:
        other = _colours_of(ax) - palette
        plt.close(ax.figure)
        assert not other, f"{ax.get_title()!r} draws colours outside the palette: {other}"


def _solution_colours() -> dict[str, list[str]]:
    """Colour literals of the plotting calls of solutions/ (``color=``, ``edgecolor=``, ``facecolor=``)."""
    import json
    from pathlib import Path

    found = {}
    pattern = re.compile(r"""\b(?:color|edgecolor|facecolor|colors)\s*=\s*["']([^"']+)["']""")
    for path in sorted((Path(__file__).resolve().parents[1] / "solutions").glob("*/*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"])
                found.setdefault(path.stem, []).extend(pattern.findall(source))
                found[path.stem] += re.findall(r"""["'](tab:\w+|0\.\d+)["']""", source)
    return found


def test_the_notebooks_plot_with_the_palette():
    palette = {c.lower() for c in (*plots.PALETTE, plots.GREY, plots.BLACK)} | {"black", "white", "none"}
    other = {nb: sorted(set(c.lower() for c in cs) - palette) for nb, cs in _solution_colours().items()}
    other = {k: v for k, v in other.items() if v}
    assert not other, f"colours outside helpers.plots' palette in solutions/: {other}"
