"""helpers.plots: the same figure on every machine."""
from __future__ import annotations

import itertools

import adjustText
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

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
