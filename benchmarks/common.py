"""What every benchmark module shares: rows, best-of timing, tables, child processes, the machine.

A benchmark module has one function ``run(quick, ctx)`` that appends :class:`Row` objects to
``ctx.rows`` and may store raw numbers in ``ctx.extra`` (written by ``--json``) and a Markdown
section in ``ctx.sections`` (printed after the main table).
"""
from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent  # the course root
CHILDREN = Path(__file__).resolve().parent / "children"
MB = 1e6  # decimal megabytes, as in "80 MB of vectors" (400,000 x 50 x 4 bytes)


@dataclass
class Row:
    """One measurement: ``value`` in ``unit``; ``ref_value`` is the reference (implementation or budget)."""

    section: str
    name: str
    value: float | None
    reference: str = ""
    ref_value: float | None = None
    target: str = ""
    met: bool | None = None
    unit: str = "s"
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """``ref_value / value`` (above 1: faster than the reference or inside the budget), or None."""
        if self.value and self.ref_value:
            return self.ref_value / self.value
        return None


@dataclass
class Context:
    """What one run passes to every benchmark module."""

    quick: bool
    tmp: Path
    kv: object  # the default embedding, loaded once
    rows: list[Row] = field(default_factory=list)
    extra: dict = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)


def fmt_value(v: float | None, unit: str = "s") -> str:
    """A time (``unit="s"``, shown in s, ms or us), a size in MB or another number with its unit."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if unit == "MB":
        return f"{v:,.0f} MB" if v >= 10 else f"{v:.1f} MB"
    if unit != "s":
        return f"{v:g} {unit}"
    if v >= 100:
        return f"{v:,.0f} s"
    if v >= 1:
        return f"{v:.2f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.1f} ms" if v < 0.1 else f"{v * 1e3:.0f} ms"
    return f"{v * 1e6:.0f} us"


def fmt_ratio(r: float | None) -> str:
    """A ratio as ``2.50x`` (``-`` for None)."""
    if r is None:
        return "-"
    if r >= 100:
        return f"{r:,.0f}x"
    return f"{r:.1f}x" if r >= 10 else f"{r:.2f}x"


def table(headers: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table (readable as plain text too); ``align`` has one ``l`` or ``r`` per column."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    align = align or "l" * len(headers)

    def line(cells):
        return "| " + " | ".join(c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(cells, widths, align)) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2)) for w, a in zip(widths, align)) + "|"
    return "\n".join([line(headers), sep] + [line(r) for r in rows])


def best_of(fn, repeat: int, number: int = 1) -> float:
    """Smallest mean time per call of ``fn`` over ``repeat`` rounds of ``number`` calls."""
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def best_of_pair(fa, fb, repeat: int, number: int = 1) -> tuple[float, float]:
    """``best_of`` for two functions measured alternately (a, b, a, b, ...), so that a burst of
    load from other jobs hits both sides of a comparison rather than one."""
    ta = tb = math.inf
    for _ in range(repeat):
        ta = min(ta, best_of(fa, 1, number))
        tb = min(tb, best_of(fb, 1, number))
    return ta, tb


def log(msg: str) -> None:
    """A progress line on stderr (the report goes to stdout)."""
    print(f"[benchmarks {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def child_env() -> dict:
    """The environment of a child process: this one, with the course root first on ``PYTHONPATH``."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))


def run_child(name: str, *args: str, cwd=None, timeout: float = 900) -> tuple[float, dict, str]:
    """Run ``benchmarks/children/<name>.py`` in a fresh interpreter.

    Returns (wall seconds, the JSON object on its last ``{``-line of stdout, its stderr). The
    child imports ``helpers`` from the course root (``PYTHONPATH``), whatever ``cwd`` is.
    """
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(CHILDREN / f"{name}.py"), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, env=child_env())
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child {name} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    return wall, (json.loads(lines[-1]) if lines else {}), proc.stderr


def machine() -> dict:
    """CPU model, cores, memory, OS and the versions of Python, NumPy, SciPy and gensim."""
    import gensim
    import scipy

    cpu = platform.processor() or "unknown"
    mem = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) / 2 ** 20
    except OSError:
        pass
    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory_gb": round(mem, 1) if mem else None,
        "os": f"{platform.system()} {platform.release()}", "python": platform.python_version(),
        "numpy": np.__version__, "scipy": scipy.__version__, "gensim": gensim.__version__,
    }


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages, or ``n/a``."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


def weat_scores(kv, test_id: int):
    """X, Y, A, B vectors and the scores s(w, A, B) of X and of Y for one Table 1 test (the words
    the paper used; X and Y cut to the same size)."""
    from helpers import statistics as st
    from helpers.embeddings import lookup
    from helpers.wordsets import weat_test

    t = weat_test(test_id)
    X, Y, A, B = (lookup(kv, ws.used_by_paper).vectors for ws in (t.target_x, t.target_y, t.attribute_a, t.attribute_b))
    n = min(len(X), len(Y))
    X, Y = X[:n], Y[:n]
    return X, Y, A, B, st.association(X, A, B), st.association(Y, A, B)


def diff_of_sums(x, y, axis):
    """The WEAT statistic on scores, for ``scipy.stats.permutation_test(vectorized=True)``."""
    return x.sum(axis=axis) - y.sum(axis=axis)
