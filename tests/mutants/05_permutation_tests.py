"""Known-wrong answers to 05_permutation_tests that the autograder must catch (format: CONTRIBUTING.md, "Mutants")."""

_SPLITS = "idx = np.array(list(combinations(range(2 * n), n)))"
_EXACT_P = "return float(k / len(null))"
_PERMS = "perms = gen.permuted(np.tile(pooled, (rows, 1)), axis=1)"
_SAMPLED_P = "return float((k + 1) / (n_resamples + 1))"
_WITHOUT_OBSERVED = ("others = [c for c in combinations(range(2 * n), n) if c != tuple(range(n))]\n"
                     "    idx = np.array(others, dtype=int).reshape(len(others), n)")
_SPLIT_MASKS = ("mask = np.zeros((len(list(combinations(range(2 * n), n))), 2 * n), dtype=bool)\n"
                "    for row, chosen in enumerate(combinations(range(2 * n), n)):\n"
                "        mask[row, list(chosen)] = True")
_CALL_SAMPLED = ('return permutation_test(sx, sy, method="sampled", n_resamples=n_resamples, rng=rng,\n'
                 "                            alternative=alternative).pvalue")
_CALL_EXACT_INSIDE = ("import helpers.statistics as h\n"
                      '    return h.permutation_test(sx, sy, method="exact", alternative=alternative).pvalue')
_CALL_SAMPLED_INSIDE = ("import helpers.statistics\n"
                        '    return helpers.statistics.permutation_test(sx, sy, method="sampled", n_resamples=n_resamples, rng=rng,\n'
                        "                                               alternative=alternative).pvalue")

# SciPy's permutation_test (demonstrated in the notebook) as the whole answer. Its exact p-values equal the
# reference's on 120 random cases of 2-6 scores (all three alternatives); the exact wrapper below also misses
# n = 1 (SciPy refuses it) and one floating-point tie (SciPy's tolerance is not the course's), which an answer
# could patch around; the rule that reads the code (check_not_using) takes the points whatever the values
_SCIPY_STATISTIC = "lambda x, y, axis=-1: np.sum(x, axis=axis) - np.sum(y, axis=axis)"
_CALL_SCIPY_EXACT = ("return float(stats.permutation_test((sx, sy), " + _SCIPY_STATISTIC + ", permutation_type='independent',\n"
                     "                                      vectorized=True, n_resamples=np.inf, alternative=alternative).pvalue)")
_CALL_SCIPY_SAMPLED = ("return float(stats.permutation_test((sx, sy), " + _SCIPY_STATISTIC + ", permutation_type='independent',\n"
                       "                                      vectorized=True, n_resamples=n_resamples, rng=gen,\n"
                       "                                      alternative=alternative).pvalue)")

_PLOT_CALLS_REFERENCE = ("def plot_null_distribution(null, observed, ax, bins=50):\n"
                         "    from helpers.plots import null_distribution\n"
                         "    return null_distribution(null, observed, ax=ax)\n")
_PLOT_HIST = 'ax.hist(null, bins=bins, color="#737373"'
_PLOT_LABELS = ('ax.set_xlabel("statistic of a split, s(X_i, Y_i, A, B) (unitless)")\n'
                '    ax.set_ylabel("number of splits")\n    ')

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "exact p-value that leaves out the observed split", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [(_SPLITS, _WITHOUT_OBSERVED), (_EXACT_P, "return float(k / max(len(null), 1))")]},
    {"name": "exact p-value with the paper's strict '>' (ties and the observed split do not count)", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [("null >= observed - tol", "null > observed"), ("null <= observed + tol", "null < observed"), ("np.abs(null) >= abs(observed) - tol", "np.abs(null) > abs(observed)")]},
    # each split's statistic summed its own way, so an exact tie with the observed one is luck
    {"name": "exact p-value without the floating-point tolerance for ties", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [("tol = 1e-10 * max(1.0, np.abs(pooled).sum())", "tol = 0.0"), (_SPLITS, _SPLIT_MASKS), ("null = 2.0 * pooled[idx].sum(axis=1) - total", "null = np.array([pooled[m].sum() - pooled[~m].sum() for m in mask])")]},
    {"name": "exact p-value that calls the course's reference implementation", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [(_EXACT_P, 'return permutation_test(sx, sy, method="exact", alternative=alternative).pvalue')]},
    {"name": "sampled p-value that resamples with replacement (a bootstrap, not a permutation)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [(_PERMS, "perms = gen.choice(pooled, size=(rows, 2 * n), replace=True)")]},
    {"name": "sampled p-value that leaves out the observed split (k / B)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [(_SAMPLED_P, "return float(k / n_resamples)")]},
    {"name": "sampled p-value that leaves out the observed split in the count only (k / (B + 1))", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [(_SAMPLED_P, "return float(k / (n_resamples + 1))")]},
    {"name": "sampled p-value from NumPy's global random state (ignores rng: not reproducible)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [(_PERMS, "perms = np.array([np.random.permutation(pooled) for _ in range(rows)])")]},
    {"name": "sampled p-value that calls the course's reference implementation", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [(_SAMPLED_P, _CALL_SAMPLED)]},
    # check_own_work sees these twice: it reads imports inside the function, and its run-time spy watches the call
    {"name": "exact p-value that imports the reference implementation inside the function", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [(_EXACT_P, _CALL_EXACT_INSIDE)]},
    {"name": "sampled p-value that imports the reference implementation inside the function", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [(_SAMPLED_P, _CALL_SAMPLED_INSIDE)]},
    {"name": "exact p-value that returns scipy.stats.permutation_test's", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [(_EXACT_P, _CALL_SCIPY_EXACT)]},
    {"name": "sampled p-value that returns scipy.stats.permutation_test's (drawing from the passed-in rng)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [(_SAMPLED_P, _CALL_SCIPY_SAMPLED)]},
    {"name": "exact p-value with the statistic's sign reversed (sum(sy) - sum(sx))", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [("observed = sx.sum() - sy.sum()", "observed = sy.sum() - sx.sum()")]},
    {"name": "exact p-value whose splits' statistic is sum(X_i) alone (Y_i not subtracted)", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [("null = 2.0 * pooled[idx].sum(axis=1) - total", "null = pooled[idx].sum(axis=1)")]},
    {"name": "exact 'less' p-value as the complement of 'greater' (the observed split and ties drop out)", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [("k = np.count_nonzero(null <= observed + tol)", "k = len(null) - np.count_nonzero(null >= observed - tol)")]},
    {"name": "sampled p-value that ignores rng (np.random.default_rng() with no seed)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("gen = np.random.default_rng(rng)", "gen = np.random.default_rng()")]},
    {"name": "sampled p-value that shuffles along the wrong axis (axis=0 moves identical rows)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("perms = gen.permuted(np.tile(pooled, (rows, 1)), axis=1)", "perms = gen.permuted(np.tile(pooled, (rows, 1)), axis=0)")]},
    {"name": "sampled p-value that draws one permutation and reuses it for every split", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("perms = gen.permuted(np.tile(pooled, (rows, 1)), axis=1)", "perms = np.tile(gen.permutation(pooled), (rows, 1))")]},
    {"name": "sampled p-value that sums each half over the wrong axis (axis=0)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("null = perms[:, :n].sum(axis=1) - perms[:, n:].sum(axis=1)", "null = perms[:, :n].sum(axis=0) - perms[:, n:].sum(axis=0)")]},
    {"name": "sampled p-value off by one in the denominator ((k + 1) / B)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [(_SAMPLED_P, "return float((k + 1) / n_resamples)")]},
    {"name": "sampled p-value with a strict '>' (ties with the observed split do not count)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("k += np.count_nonzero(null >= observed - tol)", "k += np.count_nonzero(null > observed)")]},
    # two-sided mistakes that only a negative observed statistic shows (for s > 0 the first two agree with |s_i| >= |s|)
    {"name": "exact two-sided p-value as twice the one-sided 'greater' p-value (capped at 1)", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [("k = np.count_nonzero(np.abs(null) >= abs(observed) - tol)", "k = min(len(null), 2 * np.count_nonzero(null >= observed - tol))")]},
    {"name": "exact two-sided p-value counting |s_i| >= s (no absolute value of the observed s)", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [("k = np.count_nonzero(np.abs(null) >= abs(observed) - tol)", "k = np.count_nonzero(np.abs(null) >= observed - tol)")]},
    {"name": "exact two-sided p-value counting s_i >= |s| (no absolute value of the splits' s_i)", "cell": "exact_pvalue", "fails": ["exact_pvalue_tests"], "replace": [("k = np.count_nonzero(np.abs(null) >= abs(observed) - tol)", "k = np.count_nonzero(null >= abs(observed) - tol)")]},
    {"name": "sampled two-sided p-value as twice the one-sided 'greater' p-value (capped at 1)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("k += np.count_nonzero(np.abs(null) >= abs(observed) - tol)", "k += np.count_nonzero(null >= observed - tol)"), (_SAMPLED_P, "return float(min(1.0, (2 if alternative == 'two-sided' else 1) * (k + 1) / (n_resamples + 1)))")]},
    {"name": "sampled two-sided p-value counting |s_i| >= s (no absolute value of the observed s)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("k += np.count_nonzero(np.abs(null) >= abs(observed) - tol)", "k += np.count_nonzero(np.abs(null) >= observed - tol)")]},
    {"name": "sampled two-sided p-value counting s_i >= |s| (no absolute value of the splits' s_i)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("k += np.count_nonzero(np.abs(null) >= abs(observed) - tol)", "k += np.count_nonzero(null >= abs(observed) - tol)")]},
    {"name": "sampled p-value that draws from rng itself (fails for an int seed)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("gen = np.random.default_rng(rng)", "gen = rng")]},
    {"name": "sampled p-value that seeds NumPy's global state (np.random.seed(rng); fails for a Generator)", "cell": "sampled_pvalue", "fails": ["sampled_pvalue_tests"], "replace": [("gen = np.random.default_rng(rng)", "np.random.seed(rng)"), (_PERMS, "perms = np.array([np.random.permutation(pooled) for _ in range(rows)])")]},
    # the figure (Exercise 2), read from the Axes
    {"name": "null-distribution figure with the line at the mean of the null instead of the observed statistic", "cell": "plot_null_distribution", "fails": ["plot_null_distribution_tests"], "replace": [("ax.axvline(observed,", "ax.axvline(null.mean(),")]},
    {"name": "null-distribution figure of the wrong data (the notebook's row-8 null8, not the argument)", "cell": "plot_null_distribution", "fails": ["plot_null_distribution_tests"], "replace": [(_PLOT_HIST, 'ax.hist(null8, bins=bins, color="#737373"')]},
    {"name": "null-distribution figure as a density (density=True) instead of counts", "cell": "plot_null_distribution", "fails": ["plot_null_distribution_tests"], "replace": [(_PLOT_HIST, 'ax.hist(null, bins=bins, density=True, color="#737373"')]},
    {"name": "null-distribution figure that ignores bins (matplotlib's default 10)", "cell": "plot_null_distribution", "fails": ["plot_null_distribution_tests"], "replace": [(_PLOT_HIST, 'ax.hist(null, color="#737373"')]},
    {"name": "null-distribution figure without axis labels", "cell": "plot_null_distribution", "fails": ["plot_null_distribution_tests"], "replace": [(_PLOT_LABELS, "")]},
    {"name": "null-distribution figure drawn with plt.* on the current figure instead of the given Axes", "cell": "plot_null_distribution", "fails": ["plot_null_distribution_tests"], "replace": [(_PLOT_HIST, 'plt.hist(null, bins=bins, color="#737373"'), ("ax.axvline(", "plt.axvline("), ("ax.set_xlabel(", "plt.xlabel("), ("ax.set_ylabel(", "plt.ylabel("), ("ax.legend(", "plt.legend(")]},
    {"name": "null-distribution figure that does not return the Axes", "cell": "plot_null_distribution", "fails": ["plot_null_distribution_tests"], "replace": [("    return ax", "")]},
    {"name": "null-distribution figure that calls the course's figure (helpers.plots.null_distribution)", "cell": "plot_null_distribution", "fails": ["plot_null_distribution_tests"], "source": _PLOT_CALLS_REFERENCE},
]
