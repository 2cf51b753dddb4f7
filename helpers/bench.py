"""Benchmarks of the course (not tests): ``python -m helpers.bench [--quick]``.

Measures the performance targets recorded in BENCHMARKS.md side by side in one run and prints one
table: the measured time, what it is compared with (another implementation or a time budget), the
ratio *reference / measured* (so above 1 is good: faster than the reference, or inside the budget)
and whether the target is met. Scaling tables and the machine follow.

Sections

1. Monte Carlo permutation p-value, 25 + 25 targets (the WEAT 2 scores on the default embedding):
   ``helpers.statistics.permutation_test`` against ``scipy.stats.permutation_test(...,
   vectorized=True)`` at 10^5 resamples, 10^6 permutations against a 0.6 s budget, two Python
   loop references (one permutation per iteration; run with a small count and scaled per
   permutation): the statistic recomputed from the word vectors every iteration, the design of
   the permutation test of WEFE 1.0.1, and a loop over precomputed per-word scores; and the
   course's sampler (selection sampling) against the previous design (partition keys), with a
   chi-square check that both draw every subset equally often.
2. Exact enumeration, 8 + 8 (12,870 splits; the WEAT 7 scores) against scipy's exact mode; the
   course's meet-in-the-middle enumeration against the previous dynamic programme; and the set
   size up to which enumeration stays under one second, with the memory it needs, which together
   fix the exact/sampled threshold ``helpers.statistics.EXACT_MAX_SPLITS``.
3. Embeddings, each in a fresh interpreter (``load_default`` is cached per process): import time,
   loading GloVe 6B 50d, resident memory after loading and running a WEAT against the baseline of
   python + imports (also with pyarrow's memory pool released after loading); converting the same 400,000 words written out as a GloVe text file (progress
   bar, time) and reloading the converted file.
4. ``python -m helpers replicate`` (10^5 permutations per sampled test), wall time of a subprocess.
5. The solution notebooks ``solutions/*/*.ipynb`` that exist, each executed with nbclient in a
   temporary copy of the course, and one student's full set autograded with nbgrader (the
   released notebooks with the solutions filled in) in a temporary course folder.
6. Scaling of the permutation test with the number of permutations (10^4..10^7) and with the set
   size (8..64 per set), and its memory for 10^7 permutations (tracemalloc).

The course's implementations are measured from ``helpers.statistics`` (``_sampled_subset_sums``:
selection sampling; ``_all_subset_sums``: meet in the middle). The designs they replaced live here
as reference implementations, clearly apart from the course code, so that every run shows the
gain of the chosen design in the same process: :func:`previous_sampled_subset_sums` (random keys
and a partial sort) and :func:`previous_all_subset_sums` (a dynamic programme over the items).
The course does not use them.

Timings use ``time.perf_counter`` and keep the best of several repeats; other jobs on the machine
slow single runs down, so the load average is printed at the start and at the end. ``--quick``
(under a minute) uses fewer repeats and skips the notebooks; the full run takes a few minutes.
The test suite never runs this module: benchmarks are not tests.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

__all__ = ["main", "Row", "previous_sampled_subset_sums", "previous_all_subset_sums"]

ROOT = Path(__file__).resolve().parent.parent  # the course root (this package is installed editable)
MB = 1e6  # decimal megabytes, as in "80 MB of vectors" (400,000 x 50 x 4 bytes)


# ---------------------------------------------------------------------------------------------
# Results and formatting
# ---------------------------------------------------------------------------------------------

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
        if self.value and self.ref_value:
            return self.ref_value / self.value
        return None


def fmt_value(v: float | None, unit: str = "s") -> str:
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
    if r is None:
        return "-"
    if r >= 100:
        return f"{r:,.0f}x"
    return f"{r:.1f}x" if r >= 10 else f"{r:.2f}x"


def table(headers: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table (readable as plain text too)."""
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
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run_child(code: str, *args: str, cwd=None, timeout: float = 900, env: dict | None = None
              ) -> tuple[float, dict, str]:
    """Run ``code`` in a fresh interpreter; return (wall seconds, the JSON of its last stdout line, stderr)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=None if env is None else dict(os.environ, **env))
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    return wall, (json.loads(lines[-1]) if lines else {}), proc.stderr


def machine() -> dict:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) / 2 ** 20
    except OSError:
        pass
    import gensim
    import scipy

    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory_gb": round(mem, 1) if mem else None,
        "os": f"{platform.system()} {platform.release()}", "python": platform.python_version(),
        "numpy": np.__version__, "scipy": scipy.__version__, "gensim": gensim.__version__,
    }


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


# ---------------------------------------------------------------------------------------------
# Previous designs (replaced in helpers.statistics; kept here as references, not used by the course)
# ---------------------------------------------------------------------------------------------

def previous_sampled_subset_sums(s, k: int, n_resamples: int, rng: np.random.Generator,
                                 chunk: int = 50_000) -> np.ndarray:
    """Sums of ``n_resamples`` uniformly random k-subsets of ``s``: the course's sampler before
    selection sampling (``helpers.statistics`` up to commit d5c0061).

    Each row draws one float64 key per item; the k smallest keys (``np.partition`` for the k-th)
    pick the subset, and the sums are the boolean mask times ``s`` (a matrix-vector product
    through BLAS). About 1.2 KB of working memory per row of a chunk (60 MB per 50,000 rows).
    """
    s = np.asarray(s, dtype=np.float64)
    m = len(s)
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        keys = rng.random((rows, m))
        kth = np.partition(keys, k - 1, axis=1)[:, k - 1:k]
        out[start:start + rows] = (keys <= kth) @ s
    return out


def previous_all_subset_sums(s, k: int) -> np.ndarray:
    """Sums of all k-subsets of ``s``: the course's exact enumeration before meet-in-the-middle
    (``helpers.statistics`` up to commit d5c0061); the same multiset of sums.

    Dynamic programme over the items: after item i, ``sums[j]`` holds the sums of all j-subsets
    of the items so far; item i extends ``sums[j]`` by ``sums[j-1] + s[i]``, re-copying the growing
    arrays once per item. Sizes that can no longer reach k are dropped.
    """
    s = np.asarray(s, dtype=np.float64)
    m = len(s)
    sums = [np.zeros(1)] + [np.empty(0)] * k
    for i, v in enumerate(s):
        remaining = m - i - 1
        lowest = max(0, k - remaining)  # sizes below this cannot reach k any more
        for j in range(min(i + 1, k), max(lowest, 1) - 1, -1):  # downwards: sums[j-1] is still the old one
            sums[j] = np.concatenate([sums[j], sums[j - 1] + v])
        for j in range(lowest):
            sums[j] = np.empty(0)
    return sums[k]


# ---------------------------------------------------------------------------------------------
# Loop references
# ---------------------------------------------------------------------------------------------

def loop_reference_vectors(X, Y, A, B, n: int, rng: np.random.Generator) -> int:
    """``n`` permutations, one per Python iteration, the statistic recomputed from the word vectors.

    The design of the most used WEAT library's permutation test (WEFE 1.0.1): every iteration
    shuffles the pooled target words, splits them and recomputes s(X_i, Y_i, A, B) word by word
    from cosines. Written here independently; returns the count at least as extreme.
    """
    pooled = np.concatenate([X, Y])
    nx = len(X)

    def cos(u, v):
        return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))

    def s(w):
        return np.mean([cos(w, a) for a in A]) - np.mean([cos(w, b) for b in B])

    observed = sum(s(x) for x in X) - sum(s(y) for y in Y)
    count = 0
    for _ in range(n):
        perm = rng.permutation(len(pooled))
        xi, yi = pooled[perm[:nx]], pooled[perm[nx:]]
        count += (sum(s(x) for x in xi) - sum(s(y) for y in yi)) >= observed
    return count


def loop_reference_scores(sx, sy, n: int, rng: np.random.Generator) -> int:
    """``n`` permutations, one per Python iteration, over the precomputed per-word scores."""
    pooled = np.concatenate([sx, sy])
    nx = len(sx)
    observed = sx.sum() - sy.sum()
    count = 0
    for _ in range(n):
        p = rng.permutation(pooled)
        count += (p[:nx].sum() - p[nx:].sum()) >= observed
    return count


def _diff_of_sums(x, y, axis):
    return x.sum(axis=axis) - y.sum(axis=axis)


# ---------------------------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------------------------

def _weat_vectors(kv, test_id: int):
    """X, Y, A, B vectors and the scores s(w, A, B) of one Table 1 test (words as the paper used them)."""
    from . import statistics as st
    from .embeddings import lookup
    from .wordsets import weat_test

    t = weat_test(test_id)
    X, Y, A, B = (lookup(kv, ws.used_by_paper).vectors for ws in (t.target_x, t.target_y, t.attribute_a, t.attribute_b))
    n = min(len(X), len(Y))
    X, Y = X[:n], Y[:n]
    return X, Y, A, B, st.association(X, A, B), st.association(Y, A, B)


def bench_monte_carlo(quick: bool, kv, rows: list[Row], extra: dict) -> None:
    from scipy import stats

    from . import statistics as st

    sec = "Monte Carlo, 25 + 25"
    X, Y, A, B, sx, sy = _weat_vectors(kv, 2)
    n_t = len(sx)
    B5 = 100_000
    ours = lambda: st.permutation_test(sx, sy, method="sampled", n_resamples=B5, rng=0)  # noqa: E731
    scipy_call = lambda: stats.permutation_test(  # noqa: E731
        (sx, sy), _diff_of_sums, vectorized=True, n_resamples=B5, permutation_type="independent",
        alternative="greater", rng=np.random.default_rng(0))
    t_ours, t_scipy = best_of_pair(ours, scipy_call, 3 if quick else 7)
    p_ours, p_scipy = ours().pvalue, scipy_call().pvalue
    rows.append(Row(sec, f"p-value, 10^5 resamples ({n_t} + {n_t}, WEAT 2)", t_ours,
                    "scipy.stats.permutation_test vectorized", t_scipy, ">= 3x faster than scipy",
                    t_scipy / t_ours >= 3, note=f"p: ours {p_ours:.2e}, scipy {p_scipy:.2e}"))

    t_1e6 = best_of(lambda: st.permutation_test(sx, sy, method="sampled", n_resamples=1_000_000, rng=0),
                    2 if quick else 5)
    rows.append(Row(sec, "p-value, 10^6 resamples", t_1e6, "budget", 0.6, "< 0.6 s", t_1e6 < 0.6))

    n_vec = 20 if quick else 100
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    loop_reference_vectors(X, Y, A, B, n_vec, rng)
    per_vec = (time.perf_counter() - t0) / n_vec
    rows.append(Row(sec, "10^5 resamples vs loop, statistic from vectors", t_ours,
                    f"Python loop, WEFE 1.0.1 design (x10^5 from {n_vec})", per_vec * B5, "(for scale)",
                    note=f"{per_vec * 1e3:.2f} ms per permutation; 10^4 iterations = {per_vec * 1e4:.0f} s"))
    n_sc = 5_000 if quick else 30_000
    t0 = time.perf_counter()
    loop_reference_scores(sx, sy, n_sc, np.random.default_rng(0))
    per_sc = (time.perf_counter() - t0) / n_sc
    rows.append(Row(sec, "10^5 resamples vs loop over precomputed scores", t_ours,
                    f"Python loop over scores (x10^5 from {n_sc:,})", per_sc * B5, "(for scale)",
                    note=f"{per_sc * 1e6:.1f} us per permutation"))

    # the sampler alone: the course's selection sampling against the previous partition keys
    pooled = np.concatenate([sx, sy])
    t_new, t_prev = best_of_pair(lambda: st._sampled_subset_sums(pooled, n_t, 1_000_000, np.random.default_rng(0)),
                                 lambda: previous_sampled_subset_sums(pooled, n_t, 1_000_000, np.random.default_rng(0)),
                                 2 if quick else 5)
    rows.append(Row(sec, "sampler only, 10^6: course: selection sampling", t_new,
                    "previous: partition keys (chunk=50,000)", t_prev, "(design check)"))
    # both are uniform samplers: chi-square over the 20 subsets of 3 out of 6 items
    s6 = np.array([1.0, 2, 4, 8, 16, 32])  # distinct subset sums identify the subsets
    chi = {}
    for name, fn in (("course", st._sampled_subset_sums), ("previous", previous_sampled_subset_sums)):
        draws = fn(s6, 3, 400_000, np.random.default_rng(1))
        _, counts = np.unique(draws, return_counts=True)
        chi[name] = (len(counts), float(stats.chisquare(counts).pvalue))
    rows[-1].note = ("uniformity, 4e5 draws of 3 of 6: " +
                     ", ".join(f"{k} {n} subsets chi2 p={p:.2f}" for k, (n, p) in chi.items()))
    extra["monte_carlo"] = {"p_ours": p_ours, "p_scipy": p_scipy, "loop_vectors_per_perm_s": per_vec,
                            "loop_scores_per_perm_s": per_sc, "uniformity": chi}


def bench_exact(quick: bool, kv, rows: list[Row], extra: dict) -> None:
    from scipy import stats

    from . import statistics as st

    sec = "Exact enumeration"
    _, _, _, _, sx, sy = _weat_vectors(kv, 7)
    ours = lambda: st.permutation_test(sx, sy, method="exact")  # noqa: E731
    scipy_call = lambda: stats.permutation_test(  # noqa: E731
        (sx, sy), _diff_of_sums, vectorized=True, n_resamples=np.inf, permutation_type="independent",
        alternative="greater")
    t_ours = best_of(ours, 5 if quick else 10, number=20)
    t_scipy = best_of(scipy_call, 3 if quick else 5)
    r_o, r_s = ours(), scipy_call()
    n_splits = math.comb(2 * len(sx), len(sx))
    rows.append(Row(sec, f"exact p, {len(sx)} + {len(sy)} ({n_splits:,} splits, WEAT 7)", t_ours, "budget", 0.010,
                    "< 10 ms", t_ours < 0.010))
    rows.append(Row(sec, f"exact p, {len(sx)} + {len(sy)} vs scipy exact", t_ours, "scipy exact (n_resamples=inf)",
                    t_scipy, ">= 10x faster than scipy", t_scipy / t_ours >= 10,
                    note=f"p: ours {r_o.pvalue:.6f}, scipy {r_s.pvalue:.6f} ({len(r_s.null_distribution):,} splits)"))

    # How far enumeration stays under one second. What a student meets is the first exact test in
    # a kernel, so every size runs in fresh processes (first call: the memory for the splits is
    # new to the process and every page of it is faulted in; a repeated call is faster) and a size
    # counts as "under 1 s" only if its first call was under 1 s in every process. Random scores:
    # the time does not depend on them. In this process, the course's subset sums (meet in the
    # middle) against the previous dynamic programme, alternately.
    reps = 2 if quick else 3
    scaling = []
    largest_under_1s = None
    hard_limit = getattr(st, "EXACT_HARD_LIMIT", math.inf)  # beyond it, method="exact" is refused
    same = None
    for n in range(8, 17):
        if math.comb(2 * n, n) > hard_limit:
            break
        runs = [run_child(CHILD_EXACT, str(n))[1] for _ in range(reps)]
        pooled = np.random.default_rng(3).normal(size=2 * n)
        if n <= 14:  # beyond, the dynamic programme re-copies gigabytes per item: seconds per call
            t_new, t_prev = best_of_pair(lambda: st._all_subset_sums(pooled, n),
                                         lambda: previous_all_subset_sums(pooled, n), 3 if n <= 13 else 2)
        else:
            t_new, t_prev = best_of(lambda: st._all_subset_sums(pooled, n), 2), None
        if n == 10:  # the same multiset of sums (different order and rounding of the additions)
            same = bool(np.allclose(np.sort(st._all_subset_sums(pooled, n)),
                                    np.sort(previous_all_subset_sums(pooled, n)), rtol=0, atol=1e-12))
        r = {"n": n, "splits": math.comb(2 * n, n), "null_mb": math.comb(2 * n, n) * 8 / MB,
             "first_max": max(x["first"] for x in runs), "first_min": min(x["first"] for x in runs),
             "repeat": min(x["second"] for x in runs), "peak_rss_mb": max(x["peak_mb"] for x in runs),
             "course_sums_time": t_new, "previous_sums_time": t_prev}
        scaling.append(r)
        if r["first_max"] < 1.0:
            largest_under_1s = n
        else:
            break
    extra["exact_scaling"] = scaling
    by_n = {r["n"]: r for r in scaling}
    time_splits = math.comb(2 * largest_under_1s, largest_under_1s) if largest_under_1s else 0
    n_c = max((n for n in by_n if math.comb(2 * n, n) <= st.EXACT_MAX_SPLITS), default=None)
    extra["exact_threshold"] = {"largest_n_under_1s": largest_under_1s, "splits_allowed_by_time": time_splits,
                                "current_EXACT_MAX_SPLITS": st.EXACT_MAX_SPLITS, "current_n": n_c,
                                "same_multiset_10": same}
    first_over = scaling[-1] if scaling[-1]["first_max"] >= 1.0 else None
    if largest_under_1s:
        last_under = by_n[largest_under_1s]
        rows.append(Row(sec, f"largest exact under 1 s: {largest_under_1s} + {largest_under_1s} "
                        f"({last_under['splits']:,} splits), first call, fresh process", last_under["first_max"],
                        "budget", 1.0, "(reported)",
                        note=(f"slowest of {reps} processes; null distribution {last_under['null_mb']:,.0f} MB, "
                              f"peak RSS {last_under['peak_rss_mb']:,.0f} MB"
                              + (f"; next, {first_over['n']} + {first_over['n']}: {fmt_value(first_over['first_min'])}"
                                 f" to {fmt_value(first_over['first_max'])}, null distribution "
                                 f"{first_over['null_mb']:,.0f} MB, peak RSS {first_over['peak_rss_mb']:,.0f} MB"
                                 if first_over else ""))))
    if n_c is not None:
        cur, nxt = by_n[n_c], by_n.get(n_c + 1)
        ok = st.EXACT_MAX_SPLITS <= time_splits
        if not ok:
            why = (f"auto-exact sizes over 1 s: lower EXACT_MAX_SPLITS to "
                   f"C({2 * largest_under_1s},{largest_under_1s}) = {time_splits:,}")
        elif time_splits > st.EXACT_MAX_SPLITS and nxt:
            why = (f"time alone would allow C({2 * largest_under_1s},{largest_under_1s}) = {time_splits:,}; memory sets "
                   f"the threshold: {nxt['n']} + {nxt['n']} returns a {nxt['null_mb']:,.0f} MB null distribution (peak "
                   f"RSS {nxt['peak_rss_mb']:,.0f} MB) against {cur['null_mb']:,.0f} MB ({cur['peak_rss_mb']:,.0f} MB)")
        else:
            why = "time and the threshold agree"
        label = (f"C({2 * n_c},{n_c})" if math.comb(2 * n_c, n_c) == st.EXACT_MAX_SPLITS
                 else f"{st.EXACT_MAX_SPLITS:,}")
        rows.append(Row(sec, f"threshold EXACT_MAX_SPLITS = {label}: {n_c} + {n_c}, first call, fresh process",
                        cur["first_max"], "budget", 1.0, "auto-exact under 1 s; memory bounded", ok, note=why))
    for n in (13, 14):
        if n in by_n and by_n[n]["previous_sums_time"]:
            r = by_n[n]
            rows.append(Row(sec, f"exact sums {n} + {n}: course: meet-in-the-middle", r["course_sums_time"],
                            "previous: dynamic programme", r["previous_sums_time"], "(design check)",
                            note=(f"same multiset of sums as the dynamic programme (checked at 10 + 10): {same}"
                                  if n == 13 else "")))


CHILD_EXACT = r'''
import json, sys, time
import numpy as np
from helpers import statistics as st
n = int(sys.argv[1])
rng = np.random.default_rng(3)
a, b = rng.normal(size=n), rng.normal(size=n)
t0 = time.perf_counter()
st.permutation_test(a, b, method="exact")
t1 = time.perf_counter()
st.permutation_test(a, b, method="exact")
t2 = time.perf_counter()
with open("/proc/self/status") as fh:  # VmHWM: peak RSS of this process (ru_maxrss survives exec)
    peak = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM"))
print(json.dumps({"first": t1 - t0, "second": t2 - t1, "peak_mb": peak * 1024 / 1e6}))
'''


CHILD_LOAD = r'''
import json, sys, time
release = "release" in sys.argv[1:]  # proposal: return pyarrow's unused pool memory after loading
t0 = time.perf_counter()
import numpy, gensim.models
t1 = time.perf_counter()
import helpers, helpers.embeddings, helpers.weat, helpers.statistics, helpers.wordsets
t2 = time.perf_counter()
import pyarrow.parquet  # imported by load_default; part of the baseline, its time reported apart
t2b = time.perf_counter()
def mem():
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[k] = int(v.split()[0]) * 1024 / 1e6
    return out
m_imports = mem()
kv = helpers.embeddings.load_default()
if release:
    import pyarrow
    pyarrow.default_memory_pool().release_unused()
t3 = time.perf_counter()
m_loaded = mem()
t = helpers.wordsets.weat_test(1)
r = helpers.weat.run_weat(kv, t.target_x.used_by_paper, t.target_y.used_by_paper, t.attribute_a.used_by_paper,
                          t.attribute_b.used_by_paper, rng=0)
t4 = time.perf_counter()
print(json.dumps({"import_numpy_gensim": t1 - t0, "import_helpers": t2 - t1, "import_pyarrow": t2b - t2,
                  "load_default": t3 - t2b,
                  "weat1": t4 - t3, "mem_imports": m_imports, "mem_loaded": m_loaded, "mem_end": mem(),
                  "method": r.method}))
'''

CHILD_TRACE = r'''
import json, tracemalloc
import helpers.embeddings, helpers.weat, helpers.wordsets, pyarrow.parquet, scipy.stats
tracemalloc.start()
kv = helpers.embeddings.load_default()
cur_load, peak_load = tracemalloc.get_traced_memory()
tracemalloc.reset_peak()
t = helpers.wordsets.weat_test(1)
r = helpers.weat.run_weat(kv, t.target_x.used_by_paper, t.target_y.used_by_paper, t.attribute_a.used_by_paper,
                          t.attribute_b.used_by_paper, rng=0)
cur_weat, peak_weat = tracemalloc.get_traced_memory()
print(json.dumps({"load_current": cur_load, "load_peak": peak_load, "weat_peak": peak_weat,
                  "weat_current": cur_weat, "null_bytes": r.null_distribution.nbytes,
                  "vectors_bytes": kv.vectors.nbytes}))
'''

CHILD_EMBEDDING = r'''
import json, sys, time
import numpy as np
t0 = time.perf_counter()
from helpers.embeddings import load_embedding
t1 = time.perf_counter()
kv = load_embedding(sys.argv[1])
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "words": len(kv.index_to_key),
                  "memmap": isinstance(kv.vectors, np.memmap)}))
'''


def write_glove_text(kv, path: Path) -> None:
    """Write ``kv`` as a GloVe text file (word and 50 numbers per line, no header), 5 decimals."""
    M = np.asarray(kv.vectors)
    fmt = " ".join(["%.5f"] * M.shape[1])
    words = kv.index_to_key
    with open(path, "w", encoding="utf-8") as fh:
        for s in range(0, len(words), 20_000):
            fh.write("\n".join(w + " " + fmt % tuple(r) for w, r in zip(words[s:s + 20_000], M[s:s + 20_000].tolist())))
            fh.write("\n")


def bench_embeddings(quick: bool, kv, rows: list[Row], extra: dict, tmp: Path) -> None:
    sec = "Embeddings"
    reps = 2 if quick else 4
    runs = [run_child(CHILD_LOAD, cwd=tmp) for _ in range(reps)]
    keys = ("import_numpy_gensim", "import_helpers", "import_pyarrow", "load_default", "weat1")
    best = {k: min(r[1][k] for r in runs) for k in keys}
    t_load = min(r[1]["load_default"] + r[1]["import_pyarrow"] for r in runs)
    wall = min(r[0] for r in runs)
    rows.append(Row(sec, "load_default() in a fresh process (GloVe 6B 50d)", t_load, "budget", 1.0,
                    "< 1 s", t_load < 1.0,
                    note=(f"pyarrow import {fmt_value(best['import_pyarrow'])} + reading the index and "
                          f"memory-mapping the vectors {fmt_value(best['load_default'])}; page cache warm")))
    rows.append(Row(sec, "import numpy + gensim (fresh process)", best["import_numpy_gensim"], target="(reported)"))
    rows.append(Row(sec, "import helpers (embeddings, weat, statistics) after gensim", best["import_helpers"],
                    target="(reported)"))
    rows.append(Row(sec, "fresh process to a WEAT 1 result (wall)", wall, target="(reported)",
                    note=f"python start-up + imports + load + WEAT 1; WEAT 1 itself {fmt_value(best['weat1'])}"))
    last = min(runs, key=lambda r: r[1]["mem_end"]["VmHWM"])[1]
    base = last["mem_imports"]["VmRSS"]
    peak = last["mem_end"]["VmHWM"]
    loaded, end = last["mem_loaded"], last["mem_end"]
    _, trace, _ = run_child(CHILD_TRACE, cwd=tmp)
    vectors_mb = trace["vectors_bytes"] / MB
    vocab_mb = trace["load_current"] / MB
    weat_mb = (trace["weat_peak"] - trace["load_current"]) / MB
    rows.append(Row(sec, "peak RSS minus python+imports: load + WEAT 1", peak - base, "vectors x 1.5",
                    1.5 * vectors_mb, "near the 80 MB of vectors (<= 1.5x)", peak - base <= 1.5 * vectors_mb,
                    unit="MB",
                    note=(f"RSS after imports (numpy, gensim, helpers, pyarrow) {base:.0f} MB, after load_default "
                          f"{loaded['VmRSS']:.0f} MB (anonymous +{loaded['RssAnon'] - last['mem_imports']['RssAnon']:.0f}, "
                          f"file-backed +{loaded['RssFile'] - last['mem_imports']['RssFile']:.0f}), after the WEAT "
                          f"{end['VmRSS']:.0f} MB (file-backed +{end['RssFile'] - loaded['RssFile']:.0f}: pages of "
                          f"the memory-mapped vectors), peak {peak:.0f} MB. tracemalloc: load_default keeps "
                          f"{vocab_mb:.0f} MB of Python objects (the 400,000 words and key_to_index); the WEAT's "
                          f"transient peak is {weat_mb:.1f} MB (the sampler's chunk, the cosines)")))
    # the same with pyarrow's memory pool released right after load_default (a proposed line in it)
    rel = [run_child(CHILD_LOAD, "release", cwd=tmp) for _ in range(reps)]
    rlast = min(rel, key=lambda r: r[1]["mem_end"]["VmHWM"])[1]
    rbase, rpeak = rlast["mem_imports"]["VmRSS"], rlast["mem_end"]["VmHWM"]
    ranon = rlast["mem_loaded"]["RssAnon"] - rlast["mem_imports"]["RssAnon"]
    rows.append(Row(sec, "the same, pyarrow pool released after load_default", rpeak - rbase, "vectors x 1.5",
                    1.5 * vectors_mb, "(adopted in embeddings.py)", unit="MB",
                    note=(f"pyarrow.default_memory_pool().release_unused() after reading the index: anonymous memory "
                          f"of the load +{ranon:.0f} MB instead of "
                          f"+{loaded['RssAnon'] - last['mem_imports']['RssAnon']:.0f}, peak "
                          f"{(peak - base) - (rpeak - rbase):.0f} MB lower; load_default + release "
                          f"{fmt_value(min(r[1]['load_default'] for r in rel))}")))
    extra["embeddings"] = {"runs": [r[1] for r in runs], "walls": [r[0] for r in runs], "trace": trace,
                           "runs_pool_released": [r[1] for r in rel]}

    # conversion of a 400,000-word GloVe text file, then a cold reload
    text = tmp / "glove.6B.50d.txt"
    t0 = time.perf_counter()
    write_glove_text(kv, text)
    t_write = time.perf_counter() - t0
    wall_conv, conv, err = run_child(CHILD_EMBEDDING, str(text), cwd=tmp)
    bar = "Converting" in err and f"{len(kv.index_to_key)}/{len(kv.index_to_key)}" in err
    rows.append(Row(sec, f"convert {conv['words']:,}-word text file ({text.stat().st_size / 1e6:.0f} MB)", conv["load"],
                    target="progress bar shown", met=bar,
                    note=f"writing the text file took {fmt_value(t_write)}; subprocess wall {fmt_value(wall_conv)}"))
    reload = [run_child(CHILD_EMBEDDING, str(text), cwd=tmp) for _ in range(reps)]
    t_reload = min(r[1]["load"] for r in reload)
    from .embeddings import load_embedding

    kv2 = load_embedding(text, progress=False)
    diff = float(np.max(np.abs(np.asarray(kv2.vectors) - np.asarray(kv.vectors))))
    same_words = kv2.index_to_key == kv.index_to_key
    rows.append(Row(sec, "reload converted file in a fresh process", t_reload, "budget", 1.0, "< 1 s",
                    t_reload < 1.0 and all(r[1]["memmap"] for r in reload),
                    note=(f"memory-mapped: {all(r[1]['memmap'] for r in reload)}; same words: {same_words}; "
                          f"max |diff| {diff:.1e} (5 decimals)")))
    extra["convert"] = {"write_s": t_write, "convert": conv, "convert_wall": wall_conv, "progress_bar": bar,
                        "reload": [r[1] for r in reload], "max_abs_diff": diff}


def bench_replicate(quick: bool, rows: list[Row], extra: dict, tmp: Path) -> None:
    walls = []
    for _ in range(1 if quick else 3):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "helpers", "replicate"], capture_output=True, text=True, cwd=tmp)
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise RuntimeError(f"python -m helpers replicate failed:\n{proc.stderr[-3000:]}")
    ok = "Table 1" in proc.stdout and "WEFAT" in proc.stdout
    t = min(walls)
    rows.append(Row("Replication", "python -m helpers replicate (10^5 permutations)", t, "budget", 15.0,
                    "< 15 s incl. start-up", t < 15 and ok, note=f"runs: {', '.join(fmt_value(w) for w in walls)}"))
    extra["replicate_walls"] = walls


# --- notebooks -------------------------------------------------------------------------------

def _course_copy(dest: Path, assignments: list[Path]) -> Path:
    """A temporary course root: the assignments copied, everything else symlinked to the real course."""
    dest.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name in ("solutions", "notebooks", ".git") or entry.name.startswith("."):
            continue
        (dest / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for a in assignments:
        shutil.copytree(a, dest / "solutions" / a.name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return dest


def _execute(path: Path, timeout: int = 600) -> tuple[float, str]:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    t0 = time.perf_counter()
    try:
        client.execute()
        status = "ok"
    except CellExecutionError as exc:
        status = f"error: {str(exc).strip().splitlines()[-1][:80]}"
    except Exception as exc:  # a timeout or a dead kernel: report, go on with the next notebook
        status = f"failed: {type(exc).__name__}"
    return time.perf_counter() - t0, status


def _load_nbgrader_tools():
    """``tests/nbgrader_tools.py`` (the course's nbgrader test machinery) as a module, or None."""
    import importlib.util

    path = ROOT / "tests" / "nbgrader_tools.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("_bench_nbgrader_tools", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _fill_solutions(release: Path, source: Path, out: Path) -> None:
    """A complete submission: the released notebook with the source's solution cells put back."""
    import nbformat

    src = nbformat.read(source, as_version=4)
    by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in src.cells
             if c.metadata.get("nbgrader", {}).get("solution")}
    nb = nbformat.read(release, as_version=4)
    for c in nb.cells:
        gid = c.metadata.get("nbgrader", {}).get("grade_id")
        if c.metadata.get("nbgrader", {}).get("solution") and gid in by_id:
            c.source = by_id[gid]
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)


def _score(db_url: str, assignment: str, student: str) -> str:
    try:
        from nbgrader.api import Gradebook

        with Gradebook(db_url) as gb:
            sub = gb.find_submission(assignment, student)
            auto = [g for nb in sub.notebooks for g in nb.grades if not g.needs_manual_grade]
            manual = sum(1 for nb in sub.notebooks for g in nb.grades if g.needs_manual_grade)
            return (f"auto-graded {sum(float(g.score) for g in auto):g} / {sum(float(g.max_score) for g in auto):g} "
                    f"points, {manual} cell(s) for manual grading")
    except Exception as exc:  # noqa: BLE001 - report, do not stop the benchmark
        return f"no score ({type(exc).__name__}: {exc})"


def _autograde_with_tools(tools, assignments: list[Path], tmp: Path, student: str):
    """Generate, submit (solutions filled into the release) and autograde with tests/nbgrader_tools.py."""
    per, problems = [], []
    course = tools.make_course(tmp / "course-grade", [a.name for a in assignments])
    import warnings

    with tools.offline_env(tmp / "grade-env"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's SAWarnings from nbgrader's gradebook
        api = tools.make_api(course)
        t_gen = 0.0
        for a in assignments:
            try:
                tg = tools.generate_release(api, a.name)
                t_gen += tg
                release = course / "notebooks" / a.name
                nbs = {nb.stem: tools.fill_solutions(tools.read_nb(release / nb.name), tools.read_nb(nb))
                       for nb in sorted(a.glob("*.ipynb"))}
                tools.submit(course, a.name, student, nbs)
                scores, ta = tools.autograde(course, a.name, [student], workers=1)
                cells = scores.get(student, {}).values()
                auto = [g for g in cells if not g["needs_manual_grade"]]
                score = (f"auto-graded {sum(g['score'] for g in auto):g} / {sum(g['max_score'] for g in auto):g} "
                         f"points, {len(cells) - len(auto)} cell(s) for manual grading")
                per.append({"assignment": a.name, "autograde_s": ta, "generate_s": tg, "ok": True, "score": score})
            except Exception as exc:  # noqa: BLE001 - one broken assignment must not hide the others
                msg = str(exc).strip().splitlines()
                problems.append(f"{a.name}: {type(exc).__name__}: {msg[0][:120] if msg else ''}")
                per.append({"assignment": a.name, "autograde_s": None, "generate_s": None, "ok": False, "score": ""})
    return per, problems, t_gen


def _autograde_with_cli(assignments: list[Path], tmp: Path, student: str):
    """The same with the nbgrader command line, for a course without tests/nbgrader_tools.py."""
    per, problems, t_gen = [], [], 0.0
    course = _course_copy(tmp / "course-grade", assignments)
    db = f"sqlite:///{course / 'gradebook.db'}"
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
               MPLBACKEND="Agg")

    def nbgrader(*args):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.db_url={db}"],
                              cwd=course, capture_output=True, text=True, env=env)
        return time.perf_counter() - t0, proc

    for a in assignments:
        tg, proc = nbgrader("generate_assignment", a.name, "--force")
        t_gen += tg
        if proc.returncode != 0:
            problems.append(f"generate_assignment {a.name}: {proc.stderr.strip()[-300:]}")
            continue
        for nb in sorted(a.glob("*.ipynb")):
            _fill_solutions(course / "notebooks" / a.name / nb.name, nb,
                            course / "submitted" / student / a.name / nb.name)
        ta, proc = nbgrader("autograde", a.name, "--force", f"--student={student}")
        ok = proc.returncode == 0
        if not ok:
            problems.append(f"autograde {a.name}: {proc.stderr.strip()[-300:]}")
        per.append({"assignment": a.name, "autograde_s": ta, "generate_s": tg, "ok": ok,
                    "score": _score(db, a.name, student)})
    return per, problems, t_gen


def bench_notebooks(quick: bool, rows: list[Row], extra: dict, tmp: Path, solutions: Path, autograde: bool) -> None:
    sec = "Notebooks"
    assignments = sorted(p for p in solutions.glob("*") if p.is_dir() and any(p.glob("*.ipynb")))
    nbs = [(a, nb) for a in assignments for nb in sorted(a.glob("*.ipynb"))]
    extra["notebooks"] = []
    if not nbs:
        rows.append(Row(sec, f"solution notebooks: none found under {solutions}", None, target="< 30 s each"))
        return
    tools = _load_nbgrader_tools() if solutions.resolve() == (ROOT / "solutions").resolve() else None
    course = _course_copy(tmp / "course-exec", assignments)
    import nbformat

    empty = tmp / "empty.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), empty)
    saved = {k: os.environ.get(k) for k in ("MPLBACKEND",)}
    os.environ["MPLBACKEND"] = "Agg"  # as the course's tests run notebooks; kernels inherit it
    try:
        t_kernel, _ = _execute(empty)
        total = 0.0
        for a, nb in nbs:
            t, status = _execute(course / "solutions" / a.name / nb.name)
            total += t
            extra["notebooks"].append({"notebook": f"{a.name}/{nb.name}", "time": t, "status": status})
            rows.append(Row(sec, f"execute {a.name}/{nb.name}", t, "budget", 30.0, "< 30 s",
                            t < 30 and status == "ok", note="" if status == "ok" else status))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    rows.append(Row(sec, f"execute all {len(nbs)} solution notebook(s)", total, target="(reported)",
                    note=f"nbclient, one fresh kernel each; kernel start-up alone (empty notebook) {fmt_value(t_kernel)}"))
    if not autograde:
        rows.append(Row(sec, "autograde one student's full set", None, target="< 3 min", note="skipped"))
        return
    student = "bench-student"
    if tools is not None:
        per, problems, t_gen = _autograde_with_tools(tools, assignments, tmp, student)
        how = "tests/nbgrader_tools.py (generate_release, fill_solutions, submit, autograde with 1 worker)"
    else:
        per, problems, t_gen = _autograde_with_cli(assignments, tmp, student)
        how = "nbgrader command line (tests/nbgrader_tools.py not used)"
    t_grade = sum(p["autograde_s"] or 0.0 for p in per)
    for p in per:
        rows.append(Row(sec, f"autograde {p['assignment']}", p["autograde_s"], target="(per notebook)",
                        met=None if p["ok"] else False, note=p["score"] or "failed"))
    rows.append(Row(sec, f"autograde one student's full set ({len(per)} assignments)", t_grade, "budget", 180.0,
                    "< 3 min", t_grade < 180 and not problems,
                    note=(f"{how}; generating the releases took {fmt_value(t_gen)} more"
                          + ("; PROBLEMS: " + " | ".join(problems) if problems else ""))))
    extra["autograde"] = {"how": how, "per_assignment": per, "generate_s": t_gen, "autograde_s": t_grade,
                          "problems": problems}


# --- scaling ---------------------------------------------------------------------------------

def bench_scaling(quick: bool, kv, rows: list[Row], extra: dict) -> None:
    import tracemalloc

    from . import statistics as st

    _, _, _, _, sx, sy = _weat_vectors(kv, 2)
    n_t = len(sx)
    pooled = np.concatenate([sx, sy])
    perms = []
    for n in (10_000, 100_000, 1_000_000, 10_000_000):
        reps = 1 if n >= 10_000_000 else (2 if quick else 3)
        course = lambda: st._sampled_subset_sums(pooled, n_t, n, np.random.default_rng(0))  # noqa: E731
        previous = lambda: previous_sampled_subset_sums(pooled, n_t, n, np.random.default_rng(0))  # noqa: E731
        if quick and n >= 10_000_000:  # permutation_test is timed below, with its memory; no previous (4 s)
            t, (t_new, t_prev) = None, (best_of(course, reps), None)
        else:
            t = best_of(lambda: st.permutation_test(sx, sy, method="sampled", n_resamples=n, rng=0), reps)
            t_new, t_prev = best_of_pair(course, previous, reps)
        perms.append({"n": n, "time": t, "course_sampler_time": t_new, "previous_sampler_time": t_prev})
    # memory for 10^7 permutations
    tracemalloc.start()
    t0 = time.perf_counter()
    res = st.permutation_test(sx, sy, method="sampled", n_resamples=10_000_000, rng=0)
    t_traced = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    out_mb = res.null_distribution.nbytes / MB
    del res
    tracemalloc.reset_peak()
    sums = st._sampled_subset_sums(pooled, n_t, 10_000_000, np.random.default_rng(0))
    _, peak_sampler = tracemalloc.get_traced_memory()
    del sums
    tracemalloc.reset_peak()
    prev = previous_sampled_subset_sums(pooled, n_t, 10_000_000, np.random.default_rng(0))
    _, peak_prev = tracemalloc.get_traced_memory()
    del prev
    tracemalloc.stop()
    if perms[-1]["time"] is None:
        perms[-1]["time"] = t_traced
        perms[-1]["note"] = "timed under tracemalloc"
    extra["scaling_permutations"] = perms
    sizes = []
    for n in (8, 16, 32, 64):
        rng = np.random.default_rng(n)
        a, b = rng.normal(size=n), rng.normal(size=n)
        p = np.concatenate([a, b])
        t = best_of(lambda: st.permutation_test(a, b, method="sampled", n_resamples=100_000, rng=0), 2 if quick else 3)
        t_new, t_prev = best_of_pair(lambda: st._sampled_subset_sums(p, n, 100_000, np.random.default_rng(0)),
                                     lambda: previous_sampled_subset_sums(p, n, 100_000, np.random.default_rng(0)),
                                     2 if quick else 3)
        sizes.append({"n": n, "time": t, "course_sampler_time": t_new, "previous_sampler_time": t_prev})
    extra["scaling_sizes"] = sizes
    unchunked = 10_000_000 * 2 * n_t * 8 / MB
    extra["memory_1e7"] = {"peak_traced_mb": peak / MB, "output_mb": out_mb, "course_sampler_peak_mb": peak_sampler / MB,
                           "previous_sampler_peak_mb": peak_prev / MB, "previous_unchunked_keys_mb": unchunked}
    rows.append(Row("Scaling", "10^7 permutations: peak traced memory", peak / MB, "previous sampler's peak",
                    peak_prev / MB, "bounded by chunking (< 2x the output)", peak / MB < 2 * out_mb, unit="MB",
                    note=(f"the returned null distribution is {out_mb:.0f} MB; the sampler alone peaks at "
                          f"{peak_sampler / MB:.1f} MB (output + {peak_sampler / MB - out_mb:.1f} MB, one chunk's working "
                          f"set); the rest is the comparison mask of the count (1 byte per permutation). The previous "
                          f"sampler needed {peak_prev / MB - out_mb:.0f} MB per chunk, and {unchunked:,.0f} MB of random "
                          f"keys without chunks")))


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------

def report(rows: list[Row], extra: dict, info: dict, args, elapsed: float, load_start: str, load_end: str) -> str:
    out = [f"# helpers.bench ({'--quick' if args.quick else 'full run'}), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
           "",
           f"Machine: {info['cpu']}, {info['cores']} cores, {info['memory_gb']} GB RAM, {info['os']}; Python "
           f"{info['python']}, numpy {info['numpy']}, scipy {info['scipy']}, gensim {info['gensim']}.",
           f"Load average (1/5/15 min) at start {load_start}, at end {load_end}. Total {elapsed:.0f} s.",
           "Ratio = reference / measured: above 1 means faster than the reference implementation, or "
           "inside the time budget.", ""]
    hdr = ["section", "measurement", "measured", "reference", "ref.", "ratio", "target", "met"]
    body = []
    for r in rows:
        met = "-" if r.met is None else ("yes" if r.met else "NO")
        body.append([r.section, r.name, fmt_value(r.value, r.unit), r.reference or "-",
                     fmt_value(r.ref_value, r.unit), fmt_ratio(r.ratio), r.target or "-", met])
    out.append(table(hdr, body, "llrlrrll"))
    notes = [f"- {r.name}: {r.note}" for r in rows if r.note]
    if notes:
        out += ["", "Notes:"] + notes
    if "scaling_permutations" in extra:
        out += ["", "Permutation test, 25 + 25, time against the number of permutations (permutation_test, "
                    "sampled; and the sampler alone: the course's selection sampling against the previous "
                    "partition keys):", ""]
        base = extra["scaling_permutations"]
        out.append(table(["permutations", "permutation_test", "per 10^6", "course sampler", "previous sampler",
                          "speed-up"],
                         [[f"{p['n']:,}", fmt_value(p["time"]), fmt_value(p["time"] / p["n"] * 1e6),
                           fmt_value(p["course_sampler_time"]), fmt_value(p["previous_sampler_time"]),
                           fmt_ratio(p["previous_sampler_time"] / p["course_sampler_time"]
                                     if p["previous_sampler_time"] else None)]
                          for p in base], "rrrrrr"))
        out += ["", "Time against the set size (10^5 permutations, sampled):", ""]
        out.append(table(["per set", "permutation_test", "course sampler", "previous sampler", "speed-up"],
                         [[f"{p['n']} + {p['n']}", fmt_value(p["time"]), fmt_value(p["course_sampler_time"]),
                           fmt_value(p["previous_sampler_time"]),
                           fmt_ratio(p["previous_sampler_time"] / p["course_sampler_time"])]
                          for p in extra["scaling_sizes"]], "rrrrr"))
        m = extra["memory_1e7"]
        out += ["", f"Memory, 10^7 permutations (tracemalloc peak): permutation_test {m['peak_traced_mb']:.0f} MB, of "
                    f"which the returned null distribution is {m['output_mb']:.0f} MB. The course's sampler alone: "
                    f"{m['course_sampler_peak_mb']:.1f} MB. The previous sampler alone: "
                    f"{m['previous_sampler_peak_mb']:.0f} MB; without chunks its random keys alone would be "
                    f"{m['previous_unchunked_keys_mb']:,.0f} MB."]
    if "exact_scaling" in extra:
        th = extra["exact_threshold"]
        out += ["", "Exact enumeration against the set size: permutation_test(method='exact') in fresh processes "
                    "(first call, fastest to slowest process; repeated call in the same process; peak RSS of the "
                    "process), and the subset sums alone in this process (course: meet in the middle; previous: "
                    "dynamic programme):", ""]
        out.append(table(["per set", "splits", "null distr.", "first call", "repeated call", "peak RSS",
                          "course sums", "previous sums", "speed-up"],
                         [[f"{r['n']} + {r['n']}", f"{r['splits']:,}", fmt_value(r["null_mb"], "MB"),
                           f"{fmt_value(r['first_min'])} - {fmt_value(r['first_max'])}", fmt_value(r["repeat"]),
                           fmt_value(r["peak_rss_mb"], "MB"), fmt_value(r["course_sums_time"]),
                           fmt_value(r["previous_sums_time"]),
                           fmt_ratio(r["previous_sums_time"] / r["course_sums_time"] if r["previous_sums_time"] else None)]
                          for r in extra["exact_scaling"]], "rrrrrrrrr"))
        n_t = th["largest_n_under_1s"] or 0
        out += ["", f"Largest set size enumerated in under 1 s (first call, every process): {n_t} + {n_t}, "
                    f"C({2 * n_t}, {n_t}) = {th['splits_allowed_by_time']:,} splits; "
                    f"helpers.statistics.EXACT_MAX_SPLITS = {th['current_EXACT_MAX_SPLITS']:,} "
                    f"({th['current_n']} + {th['current_n']})."]
    if extra.get("notebooks"):
        out += ["", "Solution notebooks (nbclient, fresh kernel each):", ""]
        out.append(table(["notebook", "time", "status"],
                         [[n["notebook"], fmt_value(n["time"]), n["status"]] for n in extra["notebooks"]], "lrl"))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.bench",
        description="Benchmarks of the course (not tests): one table of times, references, ratios and targets "
                    "(see BENCHMARKS.md). Progress goes to stderr, the report to stdout.")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, no notebooks (under a minute)")
    parser.add_argument("--json", metavar="FILE", help="also write every number as JSON to FILE")
    parser.add_argument("--no-notebooks", action="store_true", help="skip executing and autograding the notebooks")
    parser.add_argument("--solutions", metavar="DIR", default=str(ROOT / "solutions"),
                        help="folder of the assignments (default: the course's solutions/)")
    args = parser.parse_args(argv)

    t_start = time.perf_counter()
    load_start = loadavg()
    info = machine()
    log(f"{info['cpu']}, {info['cores']} cores; load average {load_start}")
    rows: list[Row] = []
    extra: dict = {}
    from .embeddings import load_default

    kv = load_default()
    with tempfile.TemporaryDirectory(prefix="helpers-bench-") as tmpdir:
        tmp = Path(tmpdir)
        log("Monte Carlo permutation test")
        bench_monte_carlo(args.quick, kv, rows, extra)
        log("exact enumeration")
        bench_exact(args.quick, kv, rows, extra)
        log("embeddings (fresh processes, conversion of a 400,000-word text file)")
        bench_embeddings(args.quick, kv, rows, extra, tmp)
        log("python -m helpers replicate")
        bench_replicate(args.quick, rows, extra, tmp)
        if args.no_notebooks or args.quick:
            rows.append(Row("Notebooks", "solution notebooks and autograding", None, target="< 30 s each; < 3 min",
                            note="skipped (--quick)" if args.quick else "skipped (--no-notebooks)"))
        else:
            log("notebooks")
            bench_notebooks(args.quick, rows, extra, tmp, Path(args.solutions), autograde=True)
        log("scaling")
        bench_scaling(args.quick, kv, rows, extra)
    elapsed = time.perf_counter() - t_start
    text = report(rows, extra, info, args, elapsed, load_start, loadavg())
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": info, "rows": [dict(asdict(r), ratio=r.ratio) for r in rows],
                                               "extra": extra}, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
