"""Exact enumeration: 8 + 8 (12,870 splits; the WEAT 7 scores) against scipy's exact mode; the
course's meet-in-the-middle enumeration against the previous dynamic programme; and the set size
up to which enumeration stays under one second, with the memory it needs, which together fix the
exact/sampled threshold ``helpers.statistics.EXACT_MAX_SPLITS``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from helpers import statistics as st

from .common import MB, Context, Row, best_of, best_of_pair, diff_of_sums, fmt_ratio, fmt_value, run_child, table, \
    weat_scores
from .previous import previous_all_subset_sums

SECTION = "Exact enumeration"


def run(ctx: Context) -> None:
    """Append the exact-test rows and the table of set sizes."""
    quick, rows = ctx.quick, ctx.rows
    _, _, _, _, sx, sy = weat_scores(ctx.kv, 7)
    ours = lambda: st.permutation_test(sx, sy, method="exact")  # noqa: E731
    scipy_call = lambda: stats.permutation_test(  # noqa: E731
        (sx, sy), diff_of_sums, vectorized=True, n_resamples=np.inf, permutation_type="independent",
        alternative="greater")
    t_ours = best_of(ours, 5 if quick else 10, number=20)
    t_scipy = best_of(scipy_call, 3 if quick else 5)
    r_o, r_s = ours(), scipy_call()
    splits = math.comb(2 * len(sx), len(sx))
    rows.append(Row(SECTION, f"exact p, {len(sx)} + {len(sy)} ({splits:,} splits, WEAT 7)", t_ours, "budget", 0.010,
                    "< 10 ms", t_ours < 0.010))
    rows.append(Row(SECTION, f"exact p, {len(sx)} + {len(sy)} vs scipy exact", t_ours, "scipy exact (n_resamples=inf)",
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
    same = None
    for n in range(8, 17):
        if math.comb(2 * n, n) > st.EXACT_HARD_LIMIT:  # beyond it, method="exact" is refused
            break
        runs = [run_child("exact_first_call", str(n))[1] for _ in range(reps)]
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
    by_n = {r["n"]: r for r in scaling}
    time_splits = math.comb(2 * largest_under_1s, largest_under_1s) if largest_under_1s else 0
    n_c = max((n for n in by_n if math.comb(2 * n, n) <= st.EXACT_MAX_SPLITS), default=None)
    ctx.extra["exact_scaling"] = scaling
    ctx.extra["exact_threshold"] = {"largest_n_under_1s": largest_under_1s, "splits_allowed_by_time": time_splits,
                                    "current_EXACT_MAX_SPLITS": st.EXACT_MAX_SPLITS, "current_n": n_c,
                                    "same_multiset_10": same}
    first_over = scaling[-1] if scaling[-1]["first_max"] >= 1.0 else None
    if largest_under_1s:
        last_under = by_n[largest_under_1s]
        rows.append(Row(SECTION, f"largest exact under 1 s: {largest_under_1s} + {largest_under_1s} "
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
        rows.append(Row(SECTION, f"threshold EXACT_MAX_SPLITS = {label}: {n_c} + {n_c}, first call, fresh process",
                        cur["first_max"], "budget", 1.0, "auto-exact under 1 s; memory bounded", ok, note=why))
    for n in (13, 14):
        if n in by_n and by_n[n]["previous_sums_time"]:
            r = by_n[n]
            rows.append(Row(SECTION, f"exact sums {n} + {n}: course: meet-in-the-middle", r["course_sums_time"],
                            "previous: dynamic programme", r["previous_sums_time"], "(design check)",
                            note=(f"same multiset of sums as the dynamic programme (checked at 10 + 10): {same}"
                                  if n == 13 else "")))
    n_t = largest_under_1s or 0
    ctx.sections.append("\n".join([
        "Exact enumeration against the set size: permutation_test(method='exact') in fresh processes (first call, "
        "fastest to slowest process; repeated call in the same process; peak RSS of the process), and the subset "
        "sums alone in this process (course: meet in the middle; previous: dynamic programme):", "",
        table(["per set", "splits", "null distr.", "first call", "repeated call", "peak RSS", "course sums",
               "previous sums", "speed-up"],
              [[f"{r['n']} + {r['n']}", f"{r['splits']:,}", fmt_value(r["null_mb"], "MB"),
                f"{fmt_value(r['first_min'])} - {fmt_value(r['first_max'])}", fmt_value(r["repeat"]),
                fmt_value(r["peak_rss_mb"], "MB"), fmt_value(r["course_sums_time"]), fmt_value(r["previous_sums_time"]),
                fmt_ratio(r["previous_sums_time"] / r["course_sums_time"] if r["previous_sums_time"] else None)]
               for r in scaling], "rrrrrrrrr"),
        "", f"Largest set size enumerated in under 1 s (first call, every process): {n_t} + {n_t}, "
            f"C({2 * n_t}, {n_t}) = {time_splits:,} splits; helpers.statistics.EXACT_MAX_SPLITS = "
            f"{st.EXACT_MAX_SPLITS:,} ({n_c} + {n_c})."]))
