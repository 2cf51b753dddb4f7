"""Known-wrong answers for 04_effect_size: the nbgrader round trip must catch each of them.

Each mutant replaces the source of one solution cell (``cell``); the test cells listed in
``fails`` must lose their points and every other test cell must keep full marks.
"""

MUTANTS = [
    {
        "name": "effect size with the other ddof (population std, ddof=0, as the default)",
        "cell": "effect_size",
        "source": '''def effect_size(sx, sy, ddof=0):
    sx = np.asarray(sx, dtype=float).ravel()
    sy = np.asarray(sy, dtype=float).ravel()
    if sx.size == 0 or sy.size == 0:
        raise ValueError("empty")
    pooled = np.concatenate([sx, sy])
    sd = pooled.std(ddof=ddof)
    if not sd > 0:
        raise ValueError("zero std")
    return float((sx.mean() - sy.mean()) / sd)
''',
        "fails": ["effect_size_tests"],
    },
    {
        "name": "effect size that ignores ddof (np.std's default, ddof=0, always)",
        "cell": "effect_size",
        "source": '''def effect_size(sx, sy, ddof=1):
    sx = np.asarray(sx, dtype=float).ravel()
    sy = np.asarray(sy, dtype=float).ravel()
    if sx.size == 0 or sy.size == 0:
        raise ValueError("empty")
    sd = np.std(np.concatenate([sx, sy]))
    if not sd > 0:
        raise ValueError("zero std")
    return float((sx.mean() - sy.mean()) / sd)
''',
        "fails": ["effect_size_tests"],
    },
    {
        "name": "effect size with the pooled within-group std (Cohen's d) instead of the std of X and Y together",
        "cell": "effect_size",
        "source": '''def effect_size(sx, sy, ddof=1):
    sx = np.asarray(sx, dtype=float).ravel()
    sy = np.asarray(sy, dtype=float).ravel()
    if sx.size == 0 or sy.size == 0:
        raise ValueError("empty")
    ss = ((sx - sx.mean()) ** 2).sum() + ((sy - sy.mean()) ** 2).sum()
    sd = np.sqrt(ss / (sx.size + sy.size - 2 * ddof))
    if not sd > 0:
        raise ValueError("zero std")
    return float((sx.mean() - sy.mean()) / sd)
''',
        "fails": ["effect_size_tests"],
    },
    {
        "name": "effect size that calls the course's reference implementation",
        "cell": "effect_size",
        "source": '''from helpers.statistics import effect_size_from_scores

def effect_size(sx, sy, ddof=1):
    return effect_size_from_scores(sx, sy, ddof=ddof)
''',
        "fails": ["effect_size_tests"],
    },
    {
        "name": "maximum effect size: the footnote's 2.0 for any ddof",
        "cell": "max_effect_size",
        "source": '''def max_effect_size(n, ddof):
    if ddof not in (0, 1) or n < 1:
        raise ValueError("bad input")
    return 2.0
''',
        "fails": ["max_effect_size_tests"],
    },
    {
        "name": "maximum effect size with the ddof factor upside down (above 2 for ddof=1)",
        "cell": "max_effect_size",
        "source": '''def max_effect_size(n, ddof):
    if ddof not in (0, 1) or n < 1:
        raise ValueError("bad input")
    N = 2 * n
    return float(2.0 * np.sqrt(N / (N - ddof)))
''',
        "fails": ["max_effect_size_tests"],
    },
    {
        "name": "Cohen's d with the standard deviation of X and Y pooled together (the WEAT's d)",
        "cell": "cohens_d",
        "source": '''def cohens_d(sx, sy):
    sx = np.asarray(sx, dtype=float).ravel()
    sy = np.asarray(sy, dtype=float).ravel()
    if sx.size == 0 or sy.size == 0 or sx.size + sy.size < 3:
        raise ValueError("too few")
    sd = np.concatenate([sx, sy]).std(ddof=1)
    if not sd > 0:
        raise ValueError("zero std")
    return float((sx.mean() - sy.mean()) / sd)
''',
        "fails": ["cohens_d_tests"],
    },
    {
        "name": "Cohen's d dividing the within-group sum of squares by N instead of N - 2",
        "cell": "cohens_d",
        "source": '''def cohens_d(sx, sy):
    sx = np.asarray(sx, dtype=float).ravel()
    sy = np.asarray(sy, dtype=float).ravel()
    if sx.size == 0 or sy.size == 0 or sx.size + sy.size < 3:
        raise ValueError("too few")
    ss = ((sx - sx.mean()) ** 2).sum() + ((sy - sy.mean()) ** 2).sum()
    sp = np.sqrt(ss / (sx.size + sy.size))
    if not sp > 0:
        raise ValueError("zero std")
    return float((sx.mean() - sy.mean()) / sp)
''',
        "fails": ["cohens_d_tests"],
    },
]

MUTANTS += [
    {
        "name": "effect size that imports the reference implementation inside the function",
        "cell": "effect_size",
        # check_own_work (which reads the code) does not see this one; the run-time spy does
        "source": '''def effect_size(sx, sy, ddof=1):
    import helpers.statistics
    return helpers.statistics.effect_size_from_scores(sx, sy, ddof=ddof)
''',
        "fails": ["effect_size_tests"],
    },
    {
        "name": "maximum effect size computed with the reference effect size on the extreme configuration",
        "cell": "max_effect_size",
        "source": '''def max_effect_size(n, ddof):
    import helpers.statistics as h
    if ddof not in (0, 1) or n < 1:
        raise ValueError("bad input")
    return h.effect_size_from_scores([1.0] * n, [-1.0] * n, ddof=ddof)
''',
        "fails": ["max_effect_size_tests"],
    },
]
