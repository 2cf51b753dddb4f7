"""Known-wrong answers for 05_permutation_tests: the nbgrader round trip must catch each of them.

Each mutant replaces the source of one solution cell (``cell``); the test cells listed in
``fails`` must lose their points and every other test cell must keep full marks.
"""

_EXACT_HEAD = '''def exact_pvalue(sx, sy, alternative="greater"):
    sx = np.asarray(sx, dtype=float).ravel()
    sy = np.asarray(sy, dtype=float).ravel()
    if sx.size == 0 or sy.size == 0 or sx.size != sy.size:
        raise ValueError("bad sizes")
    if alternative not in ("greater", "less", "two-sided"):
        raise ValueError("bad alternative")
    pooled = np.concatenate([sx, sy])
    n, total = sx.size, pooled.sum()
    observed = sx.sum() - sy.sum()
    tol = 1e-10 * max(1.0, np.abs(pooled).sum())
'''

_EXACT_COUNT = '''    if alternative == "greater":
        k = np.count_nonzero(null >= observed - tol)
    elif alternative == "less":
        k = np.count_nonzero(null <= observed + tol)
    else:
        k = np.count_nonzero(np.abs(null) >= abs(observed) - tol)
'''

_SAMPLED_HEAD = '''def sampled_pvalue(sx, sy, n_resamples, rng, alternative="greater"):
    sx = np.asarray(sx, dtype=float).ravel()
    sy = np.asarray(sy, dtype=float).ravel()
    if sx.size == 0 or sy.size == 0 or sx.size != sy.size or n_resamples < 1:
        raise ValueError("bad input")
    if alternative not in ("greater", "less", "two-sided"):
        raise ValueError("bad alternative")
    gen = np.random.default_rng(rng)
    pooled = np.concatenate([sx, sy])
    n = sx.size
    observed = sx.sum() - sy.sum()
    tol = 1e-10 * max(1.0, np.abs(pooled).sum())
'''

_SAMPLED_COUNT = '''    if alternative == "greater":
        k = np.count_nonzero(null >= observed - tol)
    elif alternative == "less":
        k = np.count_nonzero(null <= observed + tol)
    else:
        k = np.count_nonzero(np.abs(null) >= abs(observed) - tol)
'''

MUTANTS = [
    {
        "name": "exact p-value that leaves out the observed split",
        "cell": "exact_pvalue",
        "source": _EXACT_HEAD + '''    others = [c for c in combinations(range(2 * n), n) if c != tuple(range(n))]
    idx = np.array(others, dtype=int).reshape(len(others), n)
    null = 2.0 * pooled[idx].sum(axis=1) - total
''' + _EXACT_COUNT + '''    return float(k / max(len(null), 1))
''',
        "fails": ["exact_pvalue_tests"],
    },
    {
        "name": "exact p-value with the paper's strict '>' (ties and the observed split do not count)",
        "cell": "exact_pvalue",
        "source": _EXACT_HEAD + '''    idx = np.array(list(combinations(range(2 * n), n)))
    null = 2.0 * pooled[idx].sum(axis=1) - total
    if alternative == "greater":
        k = np.count_nonzero(null > observed)
    elif alternative == "less":
        k = np.count_nonzero(null < observed)
    else:
        k = np.count_nonzero(np.abs(null) > abs(observed))
    return float(k / len(null))
''',
        "fails": ["exact_pvalue_tests"],
    },
    {
        "name": "exact p-value without the floating-point tolerance for ties",
        "cell": "exact_pvalue",
        "source": _EXACT_HEAD + '''    rows = []
    for chosen in combinations(range(2 * n), n):
        mask = np.zeros(2 * n, dtype=bool)
        mask[list(chosen)] = True
        rows.append(pooled[mask].sum() - pooled[~mask].sum())
    null = np.array(rows)
    tol = 0.0
''' + _EXACT_COUNT + '''    return float(k / len(null))
''',
        "fails": ["exact_pvalue_tests"],
    },
    {
        "name": "exact p-value that calls the course's reference implementation",
        "cell": "exact_pvalue",
        "source": '''def exact_pvalue(sx, sy, alternative="greater"):
    return permutation_test(sx, sy, method="exact", alternative=alternative).pvalue
''',
        "fails": ["exact_pvalue_tests"],
    },
    {
        "name": "sampled p-value that resamples with replacement (a bootstrap, not a permutation)",
        "cell": "sampled_pvalue",
        "source": _SAMPLED_HEAD + '''    draws = gen.choice(pooled, size=(n_resamples, 2 * n), replace=True)
    null = draws[:, :n].sum(axis=1) - draws[:, n:].sum(axis=1)
''' + _SAMPLED_COUNT + '''    return float((k + 1) / (n_resamples + 1))
''',
        "fails": ["sampled_pvalue_tests"],
    },
    {
        "name": "sampled p-value that leaves out the observed split (k / B)",
        "cell": "sampled_pvalue",
        "source": _SAMPLED_HEAD + '''    perms = gen.permuted(np.tile(pooled, (n_resamples, 1)), axis=1)
    null = perms[:, :n].sum(axis=1) - perms[:, n:].sum(axis=1)
''' + _SAMPLED_COUNT + '''    return float(k / n_resamples)
''',
        "fails": ["sampled_pvalue_tests"],
    },
    {
        "name": "sampled p-value that leaves out the observed split in the count only (k / (B + 1))",
        "cell": "sampled_pvalue",
        "source": _SAMPLED_HEAD + '''    perms = gen.permuted(np.tile(pooled, (n_resamples, 1)), axis=1)
    null = perms[:, :n].sum(axis=1) - perms[:, n:].sum(axis=1)
''' + _SAMPLED_COUNT + '''    return float(k / (n_resamples + 1))
''',
        "fails": ["sampled_pvalue_tests"],
    },
    {
        "name": "sampled p-value from NumPy's global random state (ignores rng: not reproducible)",
        "cell": "sampled_pvalue",
        "source": _SAMPLED_HEAD + '''    perms = np.array([np.random.permutation(pooled) for _ in range(n_resamples)])
    null = perms[:, :n].sum(axis=1) - perms[:, n:].sum(axis=1)
''' + _SAMPLED_COUNT + '''    return float((k + 1) / (n_resamples + 1))
''',
        "fails": ["sampled_pvalue_tests"],
    },
    {
        "name": "sampled p-value that calls the course's reference implementation",
        "cell": "sampled_pvalue",
        "source": '''def sampled_pvalue(sx, sy, n_resamples, rng, alternative="greater"):
    return permutation_test(sx, sy, method="sampled", n_resamples=n_resamples, rng=rng,
                            alternative=alternative).pvalue
''',
        "fails": ["sampled_pvalue_tests"],
    },
]

MUTANTS += [
    {
        "name": "exact p-value that imports the reference implementation inside the function",
        "cell": "exact_pvalue",
        # check_own_work (which reads the code) does not see this one; the run-time spy does
        "source": '''def exact_pvalue(sx, sy, alternative="greater"):
    import helpers.statistics as h
    return h.permutation_test(sx, sy, method="exact", alternative=alternative).pvalue
''',
        "fails": ["exact_pvalue_tests"],
    },
    {
        "name": "sampled p-value that imports the reference implementation inside the function",
        "cell": "sampled_pvalue",
        "source": '''def sampled_pvalue(sx, sy, n_resamples, rng, alternative="greater"):
    import helpers.statistics
    return helpers.statistics.permutation_test(sx, sy, method="sampled", n_resamples=n_resamples, rng=rng,
                                               alternative=alternative).pvalue
''',
        "fails": ["sampled_pvalue_tests"],
    },
]
