"""Known-wrong answers to 11_enumerating_biases that the autograder must catch (see CONTRIBUTING.md).

Each mutant edits the worked solution of the cell ``cell`` (``replace``: ``(old, new)`` pairs, each
``old`` occurring exactly once) or rewrites it (``source``); after autograding, the test cells in
``fails`` must lose their points and every other test cell must keep full marks.
``rotation_pvalues`` calls the student's ``random_rotation``, so a wrong rotation also costs
Exercise 2 (its hidden tests compute the expected p-values with the course's reference rotation).
"""

ROTATION = "random_rotation"
PVALUES = "rotation_pvalues"
BH = "benjamini_hochberg"
ROTATION_FAILS = ["random_rotation_tests", "rotation_pvalues_tests"]

MUTANTS = [
    # --- Exercise 1: random_rotation -----------------------------------------------------------
    {
        "name": "rotation: the Gaussian matrix itself, never orthogonalised (lengths and angles change)",
        "cell": ROTATION,
        "replace": [("return Q * signs", "return Z")],
        "fails": ROTATION_FAILS,
    },
    {
        "name": "rotation: Gaussian columns scaled to unit length but not orthogonal to each other",
        "cell": ROTATION,
        "replace": [("return Q * signs", "return Z / np.linalg.norm(Z, axis=0)")],
        "fails": ROTATION_FAILS,
    },
    {
        "name": "rotation: QR without the sign fix (orthogonal, but not uniformly distributed)",
        "cell": ROTATION,
        "replace": [("return Q * signs", "return Q")],
        "fails": ROTATION_FAILS,
    },
    {
        "name": "rotation: the sign fix applied to the rows of Q instead of its columns",
        "cell": ROTATION,
        "replace": [("return Q * signs", "return signs[:, None] * Q")],
        "fails": ROTATION_FAILS,
    },
    {
        "name": "rotation: NumPy's global random state instead of rng (not reproducible)",
        "cell": ROTATION,
        "replace": [("Z = rng.standard_normal((d, d))", "Z = np.random.standard_normal((d, d))")],
        "fails": ROTATION_FAILS,
    },
    {
        "name": "rotation: QR of uniform numbers instead of standard normal ones (not uniformly distributed)",
        "cell": ROTATION,
        "replace": [("Z = rng.standard_normal((d, d))", "Z = rng.random((d, d))")],
        "fails": ROTATION_FAILS,
    },
    # --- Exercise 2: rotation_pvalues ----------------------------------------------------------
    {
        "name": "p-values: a different rotation for each name cluster (destroys the names' own geometry)",
        "cell": PVALUES,
        "replace": [("count += (D @ R) @ E.T >= observed",
                     "count += np.array([D[i] @ random_rotation(D.shape[1], rng) for i in range(len(D))]) @ E.T "
                     ">= observed")],
        "fails": ["rotation_pvalues_tests"],
    },
    {
        "name": "p-values: rotates the words instead of the names (same distribution, not the documented recipe)",
        "cell": PVALUES,
        "replace": [("count += (D @ R) @ E.T >= observed", "count += D @ (E @ R).T >= observed")],
        "fails": ["rotation_pvalues_tests"],
    },
    {
        "name": "p-values: names and words rotated by the same matrix (every cosine kept: no null at all)",
        "cell": PVALUES,
        "replace": [("count += (D @ R) @ E.T >= observed", "count += (D @ R) @ (E @ R).T >= observed")],
        "fails": ["rotation_pvalues_tests"],
    },
    {
        "name": "p-values: the observed statistic not counted (count / B, can be 0)",
        "cell": PVALUES,
        "replace": [("return (1.0 + count) / (int(n_resamples) + 1.0)", "return count / int(n_resamples)")],
        "fails": ["rotation_pvalues_tests"],
    },
    {
        "name": "p-values: ties not counted as at least as extreme (> instead of >=)",
        "cell": PVALUES,
        "replace": [("count += (D @ R) @ E.T >= observed", "count += (D @ R) @ E.T > observed")],
        "fails": ["rotation_pvalues_tests"],
    },
    {
        "name": "p-values: two-sided (absolute values) instead of one-sided",
        "cell": PVALUES,
        "replace": [("count += (D @ R) @ E.T >= observed", "count += np.abs((D @ R) @ E.T) >= np.abs(observed)")],
        "fails": ["rotation_pvalues_tests"],
    },
    {
        "name": "p-values: one rotation drawn once and reused for every resample",
        "cell": PVALUES,
        "replace": [("    for _ in range(int(n_resamples)):\n        R = random_rotation(D.shape[1], rng)\n",
                     "    R = random_rotation(D.shape[1], rng)\n    for _ in range(int(n_resamples)):\n")],
        "fails": ["rotation_pvalues_tests"],
    },
    {
        "name": "p-values: a fresh unseeded generator for each rotation (global randomness, not reproducible)",
        "cell": PVALUES,
        "replace": [("R = random_rotation(D.shape[1], rng)", "R = random_rotation(D.shape[1], np.random.default_rng())")],
        "fails": ["rotation_pvalues_tests"],
    },
    # --- Exercise 3: benjamini_hochberg --------------------------------------------------------
    {
        "name": "BH: Bonferroni instead (m p, no division by the rank)",
        "cell": BH,
        "replace": [("scaled = flat[order] * m / np.arange(1, m + 1)", "scaled = flat[order] * m")],
        "fails": ["benjamini_hochberg_tests"],
    },
    {
        "name": "BH: no running minimum (q not monotone in p)",
        "cell": BH,
        "replace": [("q_sorted = np.minimum.accumulate(scaled[::-1])[::-1]", "q_sorted = scaled")],
        "fails": ["benjamini_hochberg_tests"],
    },
    {
        "name": "BH: running minimum from the smallest p upwards (wrong direction)",
        "cell": BH,
        "replace": [("q_sorted = np.minimum.accumulate(scaled[::-1])[::-1]",
                     "q_sorted = np.minimum.accumulate(scaled)")],
        "fails": ["benjamini_hochberg_tests"],
    },
    {
        "name": "BH: running maximum instead of minimum",
        "cell": BH,
        "replace": [("q_sorted = np.minimum.accumulate(scaled[::-1])[::-1]",
                     "q_sorted = np.maximum.accumulate(scaled)")],
        "fails": ["benjamini_hochberg_tests"],
    },
    {
        "name": "BH: ranks by position, the p-values never sorted",
        "cell": BH,
        "replace": [('order = np.argsort(flat, kind="stable")', "order = np.arange(m)")],
        "fails": ["benjamini_hochberg_tests"],
    },
    {
        "name": "BH: q-values returned in sorted order, not in the original positions",
        "cell": BH,
        "replace": [("q[order] = np.minimum(q_sorted, 1.0)", "q[:] = np.minimum(q_sorted, 1.0)")],
        "fails": ["benjamini_hochberg_tests"],
    },
    {
        "name": "BH: a separate family for each name cluster (each row) instead of all pairs",
        "cell": BH,
        "source": '''
def benjamini_hochberg(p):
    p = np.asarray(p, dtype=np.float64)
    if p.size == 0:
        raise ValueError("No p-values given.")
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("p-values must lie between 0 and 1.")
    def one_family(flat):
        m = flat.size
        order = np.argsort(flat, kind="stable")
        q_sorted = np.minimum.accumulate((flat[order] * m / np.arange(1, m + 1))[::-1])[::-1]
        q = np.empty(m)
        q[order] = np.minimum(q_sorted, 1.0)
        return q
    if p.ndim == 2:
        return np.array([one_family(row) for row in p])
    return one_family(p.ravel()).reshape(p.shape)
''',
        "fails": ["benjamini_hochberg_tests"],
    },
]
