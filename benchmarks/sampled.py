"""Monte Carlo permutation p-values (25 + 25 targets, the WEAT 2 scores on the default embedding)
and their scaling with the number of permutations, the set size and memory.

``helpers.statistics.permutation_test`` against ``scipy.stats.permutation_test(...,
vectorized=True)`` at 10^5 resamples; 10^6 permutations against a 0.6 s budget; two Python loop
references (run with a small count, scaled per permutation); the course's sampler (selection
sampling) against the previous design (partition keys), with a chi-square check that both draw
every subset equally often.
"""
from __future__ import annotations

import time
import tracemalloc

import numpy as np
from scipy import stats

from helpers import statistics as st

from .common import MB, Context, Row, best_of, best_of_pair, diff_of_sums, fmt_ratio, fmt_value, table, weat_scores
from .previous import loop_reference_scores, loop_reference_vectors, previous_sampled_subset_sums

SECTION = "Monte Carlo, 25 + 25"


def run(ctx: Context) -> None:
    """Append the Monte Carlo rows, then the scaling tables and the memory of 10^7 permutations."""
    monte_carlo(ctx)
    scaling(ctx)


def monte_carlo(ctx: Context) -> None:
    quick, rows = ctx.quick, ctx.rows
    X, Y, A, B, sx, sy = weat_scores(ctx.kv, 2)
    n_t = len(sx)
    B5 = 100_000
    ours = lambda: st.permutation_test(sx, sy, method="sampled", n_resamples=B5, rng=0)  # noqa: E731
    scipy_call = lambda: stats.permutation_test(  # noqa: E731
        (sx, sy), diff_of_sums, vectorized=True, n_resamples=B5, permutation_type="independent",
        alternative="greater", rng=np.random.default_rng(0))
    t_ours, t_scipy = best_of_pair(ours, scipy_call, 3 if quick else 7)
    p_ours, p_scipy = ours().pvalue, scipy_call().pvalue
    rows.append(Row(SECTION, f"p-value, 10^5 resamples ({n_t} + {n_t}, WEAT 2)", t_ours,
                    "scipy.stats.permutation_test vectorized", t_scipy, ">= 3x faster than scipy",
                    t_scipy / t_ours >= 3, note=f"p: ours {p_ours:.2e}, scipy {p_scipy:.2e}"))

    t_1e6 = best_of(lambda: st.permutation_test(sx, sy, method="sampled", n_resamples=1_000_000, rng=0),
                    2 if quick else 5)
    rows.append(Row(SECTION, "p-value, 10^6 resamples", t_1e6, "budget", 0.6, "< 0.6 s", t_1e6 < 0.6))

    n_vec = 20 if quick else 100
    t0 = time.perf_counter()
    loop_reference_vectors(X, Y, A, B, n_vec, np.random.default_rng(0))
    per_vec = (time.perf_counter() - t0) / n_vec
    rows.append(Row(SECTION, "10^5 resamples vs loop, statistic from vectors", t_ours,
                    f"Python loop, WEFE 1.0.1 design (x10^5 from {n_vec})", per_vec * B5, "(for scale)",
                    note=f"{per_vec * 1e3:.2f} ms per permutation; 10^4 iterations = {per_vec * 1e4:.0f} s"))
    n_sc = 5_000 if quick else 30_000
    t0 = time.perf_counter()
    loop_reference_scores(sx, sy, n_sc, np.random.default_rng(0))
    per_sc = (time.perf_counter() - t0) / n_sc
    rows.append(Row(SECTION, "10^5 resamples vs loop over precomputed scores", t_ours,
                    f"Python loop over scores (x10^5 from {n_sc:,})", per_sc * B5, "(for scale)",
                    note=f"{per_sc * 1e6:.1f} us per permutation"))

    # the sampler alone: the course's selection sampling against the previous partition keys
    pooled = np.concatenate([sx, sy])
    t_new, t_prev = best_of_pair(lambda: st._sampled_subset_sums(pooled, n_t, 1_000_000, np.random.default_rng(0)),
                                 lambda: previous_sampled_subset_sums(pooled, n_t, 1_000_000, np.random.default_rng(0)),
                                 2 if quick else 5)
    # both are uniform samplers: chi-square over the 20 subsets of 3 out of 6 items
    s6 = np.array([1.0, 2, 4, 8, 16, 32])  # distinct subset sums identify the subsets
    chi = {}
    for name, fn in (("course", st._sampled_subset_sums), ("previous", previous_sampled_subset_sums)):
        _, counts = np.unique(fn(s6, 3, 400_000, np.random.default_rng(1)), return_counts=True)
        chi[name] = (len(counts), float(stats.chisquare(counts).pvalue))
    rows.append(Row(SECTION, "sampler only, 10^6: course: selection sampling", t_new,
                    "previous: partition keys (chunk=50,000)", t_prev, "(design check)",
                    note=("uniformity, 4e5 draws of 3 of 6: " +
                          ", ".join(f"{k} {n} subsets chi2 p={p:.2f}" for k, (n, p) in chi.items()))))
    ctx.extra["monte_carlo"] = {"p_ours": p_ours, "p_scipy": p_scipy, "loop_vectors_per_perm_s": per_vec,
                                "loop_scores_per_perm_s": per_sc, "uniformity": chi}


def scaling(ctx: Context) -> None:
    quick = ctx.quick
    _, _, _, _, sx, sy = weat_scores(ctx.kv, 2)
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
    unchunked = 10_000_000 * 2 * n_t * 8 / MB
    memory = {"peak_traced_mb": peak / MB, "output_mb": out_mb, "course_sampler_peak_mb": peak_sampler / MB,
              "previous_sampler_peak_mb": peak_prev / MB, "previous_unchunked_keys_mb": unchunked}
    ctx.extra.update(scaling_permutations=perms, scaling_sizes=sizes, memory_1e7=memory)
    ctx.rows.append(Row("Scaling", "10^7 permutations: peak traced memory", peak / MB, "previous sampler's peak",
                        peak_prev / MB, "bounded by chunking (< 2x the output)", peak / MB < 2 * out_mb, unit="MB",
                        note=(f"the returned null distribution is {out_mb:.0f} MB; the sampler alone peaks at "
                              f"{peak_sampler / MB:.1f} MB (output + {peak_sampler / MB - out_mb:.1f} MB, one chunk's "
                              f"working set); the rest is the comparison mask of the count (1 byte per permutation). "
                              f"The previous sampler needed {peak_prev / MB - out_mb:.0f} MB per chunk, and "
                              f"{unchunked:,.0f} MB of random keys without chunks")))

    def speedup(p):
        return fmt_ratio(p["previous_sampler_time"] / p["course_sampler_time"] if p["previous_sampler_time"] else None)

    ctx.sections.append("\n".join([
        "Permutation test, 25 + 25, time against the number of permutations (permutation_test, sampled; and the "
        "sampler alone: the course's selection sampling against the previous partition keys):", "",
        table(["permutations", "permutation_test", "per 10^6", "course sampler", "previous sampler", "speed-up"],
              [[f"{p['n']:,}", fmt_value(p["time"]), fmt_value(p["time"] / p["n"] * 1e6),
                fmt_value(p["course_sampler_time"]), fmt_value(p["previous_sampler_time"]), speedup(p)]
               for p in perms], "rrrrrr"),
        "", "Time against the set size (10^5 permutations, sampled):", "",
        table(["per set", "permutation_test", "course sampler", "previous sampler", "speed-up"],
              [[f"{p['n']} + {p['n']}", fmt_value(p["time"]), fmt_value(p["course_sampler_time"]),
                fmt_value(p["previous_sampler_time"]), speedup(p)] for p in sizes], "rrrrr"),
        "", f"Memory, 10^7 permutations (tracemalloc peak): permutation_test {memory['peak_traced_mb']:.0f} MB, of "
            f"which the returned null distribution is {out_mb:.0f} MB. The course's sampler alone: "
            f"{memory['course_sampler_peak_mb']:.1f} MB. The previous sampler alone: "
            f"{memory['previous_sampler_peak_mb']:.0f} MB; without chunks its random keys alone would be "
            f"{unchunked:,.0f} MB."]))
