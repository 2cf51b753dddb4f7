"""Known-wrong answers to 11_enumerating_biases that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``rotation_pvalues`` calls ``random_rotation``. Its hidden tests judge it on its own (issue 42): they call it with the
course's version of ``random_rotation`` in place of the student's, so a wrong rotation costs Exercise 1 only. A
mutant whose loss changed with that says so: ``was`` lists the cells it lost before, along the chain. Its visible
checks still call the student's ``random_rotation``: each call draws from a Generator's current state, so its
values cannot be written out in a table (``known_values``); they check no p-value, only the shape, the range,
ties and reproducibility, so only a rotation that is not reproducible still costs Exercise 2 there.
"""

#: What a wrong random_rotation lost while rotation_pvalues' hidden tests used it (before issue 42).
_ROTATION_FAILS = ["random_rotation_tests", "rotation_pvalues_tests"]
_SIGNS = "return Q * signs"
_GAUSSIAN = "Z = gen.standard_normal((d, d))"
_GENERATOR = "gen = np.random.default_rng(rng)\n    Z = gen"
_COUNT = "count += (D @ R) @ E.T >= observed"
_ROTATE = "R = random_rotation(D.shape[1], gen)"
_ROTATE_PER_CLUSTER = ("count += np.array([D[i] @ random_rotation(D.shape[1], rng) for i in range(len(D))]) @ E.T "
                       ">= observed")
_ROTATE_EACH_RESAMPLE = "    for _ in range(int(n_resamples)):\n        R = random_rotation(D.shape[1], gen)\n"
_ROTATE_ONCE = "    R = random_rotation(D.shape[1], gen)\n    for _ in range(int(n_resamples)):\n"
_SCALED = "scaled = flat[order] * m / np.arange(1, m + 1)"
_RUNNING_MIN = "q_sorted = np.minimum.accumulate(scaled[::-1])[::-1]"
_FLAT = "    flat = p.ravel()"
_CALL_SCIPY = ("    from scipy.stats import false_discovery_control\n"
               "    return false_discovery_control(p.ravel(), method='bh').reshape(p.shape)\n")
_CALL_REFERENCE = "    from helpers.enumeration import benjamini_hochberg as bh\n    return bh(p)\n"
# Benjamini-Yekutieli's q-values of p / c(m) are Benjamini-Hochberg's q-values of p: right values, not own work.
_CALL_YEKUTIELI = ("    from helpers.enumeration import benjamini_yekutieli\n"
                   "    return benjamini_yekutieli(p / np.sum(1.0 / np.arange(1, p.size + 1)))\n")
_BH_PER_ROW = '''
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
'''

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    # --- Exercise 1: random_rotation
    {"name": "rotation: the Gaussian matrix itself, never orthogonalised (lengths and angles change)", "cell": "random_rotation", "fails": ["random_rotation_tests"], "was": _ROTATION_FAILS, "replace": [(_SIGNS, "return Z")]},
    {"name": "rotation: Gaussian columns scaled to unit length but not orthogonal to each other", "cell": "random_rotation", "fails": ["random_rotation_tests"], "was": _ROTATION_FAILS, "replace": [(_SIGNS, "return Z / np.linalg.norm(Z, axis=0)")]},
    {"name": "rotation: QR without the sign fix (orthogonal, but not uniformly distributed)", "cell": "random_rotation", "fails": ["random_rotation_tests"], "was": _ROTATION_FAILS, "replace": [(_SIGNS, "return Q")]},
    {"name": "rotation: the sign fix applied to the rows of Q instead of its columns", "cell": "random_rotation", "fails": ["random_rotation_tests"], "was": _ROTATION_FAILS, "replace": [(_SIGNS, "return signs[:, None] * Q")]},
    # rotation_pvalues' visible checks call the student's random_rotation (a table of its values cannot be written
    # out: each call draws from the Generator's current state), and their reproducibility check fails for this one
    {"name": "rotation: NumPy's global random state instead of rng (not reproducible)", "cell": "random_rotation", "fails": _ROTATION_FAILS, "replace": [(_GAUSSIAN, "Z = np.random.standard_normal((d, d))")]},
    {"name": "rotation: QR of uniform numbers instead of standard normal ones (not uniformly distributed)", "cell": "random_rotation", "fails": ["random_rotation_tests"], "was": _ROTATION_FAILS, "replace": [(_GAUSSIAN, "Z = gen.random((d, d))")]},
    {"name": "rotation: ignores the given Generator (a new one from the fixed seed 0)", "cell": "random_rotation", "fails": ["random_rotation_tests"], "was": _ROTATION_FAILS, "replace": [(_GENERATOR, "gen = np.random.default_rng(0)\n    Z = gen")]},
    {"name": "rotation: draws from rng itself (fails for an int seed; rotation_pvalues passes it a Generator)", "cell": "random_rotation", "fails": ["random_rotation_tests"], "replace": [(_GAUSSIAN, "Z = rng.standard_normal((d, d))")]},
    # --- Exercise 2: rotation_pvalues
    {"name": "p-values: a different rotation for each name cluster (destroys the names' own geometry)", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_COUNT, _ROTATE_PER_CLUSTER)]},
    {"name": "p-values: rotates the words instead of the names (same distribution, not the documented recipe)", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_COUNT, "count += D @ (E @ R).T >= observed")]},
    {"name": "p-values: names and words rotated by the same matrix (every cosine kept: no null at all)", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_COUNT, "count += (D @ R) @ (E @ R).T >= observed")]},
    {"name": "p-values: the observed statistic not counted (count / B, can be 0)", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [("return (1.0 + count) / (int(n_resamples) + 1.0)", "return count / int(n_resamples)")]},
    {"name": "p-values: ties not counted as at least as extreme (> instead of >=)", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_COUNT, "count += (D @ R) @ E.T > observed")]},
    {"name": "p-values: two-sided (absolute values) instead of one-sided", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_COUNT, "count += np.abs((D @ R) @ E.T) >= np.abs(observed)")]},
    {"name": "p-values: one rotation drawn once and reused for every resample", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_ROTATE_EACH_RESAMPLE, _ROTATE_ONCE)]},
    {"name": "p-values: the int seed passed on to random_rotation (the same rotation in every resample)", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_ROTATE, "R = random_rotation(D.shape[1], rng)")]},
    {"name": "p-values: the rotation applied from the left, R @ D (shapes do not match)", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_COUNT, "count += (R @ D) @ E.T >= observed")]},
    {"name": "BH: calls scipy.stats.false_discovery_control", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [(_FLAT, _CALL_SCIPY + _FLAT)]},
    {"name": "BH: calls the course's reference implementation", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [(_FLAT, _CALL_REFERENCE + _FLAT)]},
    {"name": "BH: the course's benjamini_yekutieli of p / c(m) (the right values through a forbidden function)", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [(_FLAT, _CALL_YEKUTIELI + _FLAT)]},
    {"name": "p-values: a fresh unseeded generator for each rotation (global randomness, not reproducible)", "cell": "rotation_pvalues", "fails": ["rotation_pvalues_tests"], "replace": [(_ROTATE, "R = random_rotation(D.shape[1], np.random.default_rng())")]},
    # --- Exercise 3: benjamini_hochberg
    {"name": "BH: Bonferroni instead (m p, no division by the rank)", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [(_SCALED, "scaled = flat[order] * m")]},
    {"name": "BH: no running minimum (q not monotone in p)", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [(_RUNNING_MIN, "q_sorted = scaled")]},
    {"name": "BH: running minimum from the smallest p upwards (wrong direction)", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [(_RUNNING_MIN, "q_sorted = np.minimum.accumulate(scaled)")]},
    {"name": "BH: running maximum instead of minimum", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [(_RUNNING_MIN, "q_sorted = np.maximum.accumulate(scaled)")]},
    {"name": "BH: ranks by position, the p-values never sorted", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [('order = np.argsort(flat, kind="stable")', "order = np.arange(m)")]},
    {"name": "BH: q-values returned in sorted order, not in the original positions", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "replace": [("q[order] = np.minimum(q_sorted, 1.0)", "q[:] = np.minimum(q_sorted, 1.0)")]},
    {"name": "BH: a separate family for each name cluster (each row) instead of all pairs", "cell": "benjamini_hochberg", "fails": ["benjamini_hochberg_tests"], "source": _BH_PER_ROW},
]
