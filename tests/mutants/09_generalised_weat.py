"""Known-wrong answers to 09_generalised_weat that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``generalised_weat`` calls ``centroid``
and ``lemma3_rhs`` calls ``generalised_weat``, so their mistakes propagate along that chain (the
hidden tests compute expected values independently).
"""

_SUMMING_CENTROID = ("    def centroid(M):\n"
                     "        M = np.atleast_2d(np.asarray(M, dtype=np.float64))\n"
                     "        return (M / np.linalg.norm(M, axis=1, keepdims=True)).sum(axis=0)\n"
                     "\n"
                     "    x_bars = [centroid(X) for X in X_groups]\n")
_UNIT_MEAN = ("m = V.mean(axis=0)\n"
              "    return m / np.linalg.norm(m)")

_G = "return float(sum((xb - mu) @ (ab - a_all) for xb, ab in zip(x_bars, a_bars)))"
_MU = "mu = centroid(X_all) if n == 1 else np.mean(x_bars, axis=0)"
_RHS = "return float(np.trace(single) - single.sum() / n)"
_DRAW = "ix, iy, ia, ib = (rng.integers(0, len(S), size=len(S)) for S in (Xu, Yu, Au, Bu))"

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    # a local `centroid` that sums instead of averaging, used for every set in g
    {"name": "g with sums of unit vectors instead of centroids (wrong normalisation, breaks Lemma 1)", "cell": "generalised_weat", "fails": ["generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("    x_bars = [centroid(X) for X in X_groups]\n", _SUMMING_CENTROID)]},
    {"name": "g with mu = centroid of all names pooled (groups weighted by size)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [("mu = centroid(X_all) if n == 1 else np.mean(x_bars, axis=0)", "mu = centroid(X_all) if n == 1 else centroid(np.vstack(X_groups))")]},
    {"name": "centroid as the unit vector of the mean (normalised after averaging)", "cell": "centroid", "fails": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", _UNIT_MEAN)]},
    {"name": "lemma3_rhs without the 1/n factor on the double sum", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [("return float(np.trace(single) - single.sum() / n)", "return float(np.trace(single) - single.sum())")]},
    {"name": "bootstrap that resamples without replacement (a permutation: d never changes)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("ix, iy, ia, ib = (rng.integers(0, len(S), size=len(S)) for S in (Xu, Yu, Au, Bu))", "ix, iy, ia, ib = (rng.permutation(len(S)) for S in (Xu, Yu, Au, Bu))")]},
    {"name": "centroid as the sum of the unit vectors", "cell": "centroid", "fails": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", "return (V / norms).sum(axis=0)")]},
    {"name": "centroid averaged over the wrong axis", "cell": "centroid", "fails": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", "return (V / norms).mean(axis=1)")]},
    {"name": "centroid of the raw (not unit) vectors", "cell": "centroid", "fails": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", "return V.mean(axis=0)")]},
    {"name": "centroid without the ValueError for a zero vector", "cell": "centroid", "fails": ["centroid_tests"], "replace": [("    if (norms == 0).any():", "    if False:")]},
    {"name": "centroid without the ValueError for an empty set", "cell": "centroid", "fails": ["centroid_tests", "generalised_weat_tests"], "replace": [("    if V.shape[0] == 0:", "    if False:")]},
    {"name": "g without centring the group centroids (mu left out)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [(_G, _G.replace("(xb - mu)", "xb"))]},
    {"name": "g without centring the attribute centroids (a_all left out)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [(_G, _G.replace("(ab - a_all)", "ab"))]},
    {"name": "g as the mean over groups instead of the sum", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [(_G, "return float(np.mean([(xb - mu) @ (ab - a_all) for xb, ab in zip(x_bars, a_bars)]))")]},
    {"name": "g with one group ignores X_all (mu = the group's own centroid, so g = 0)", "cell": "generalised_weat", "fails": ["generalised_weat_tests", "lemma3_rhs_tests"], "replace": [(_MU, "mu = np.mean(x_bars, axis=0)")]},
    {"name": "g without the ValueError for unequal numbers of groups and attribute sets (zip truncates)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [("    if len(A_groups) != n:", "    if False:")]},
    {"name": "lemma3_rhs as the trace alone", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [(_RHS, "return float(np.trace(single))")]},
    {"name": "lemma3_rhs with the mean of all entries (1/n^2 instead of 1/n)", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [(_RHS, "return float(np.trace(single) - single.mean())")]},
    {"name": "lemma3_rhs with only the off-diagonal entries in the double sum", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [(_RHS, "return float(np.trace(single) - (single.sum() - np.trace(single)) / n)")]},
    {"name": "lemma3_rhs accepts a single group", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [("    if n < 2:", "    if n < 1:")]},
    {"name": "bootstrap from NumPy's global random state (ignores rng)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_DRAW, "ix, iy, ia, ib = (np.random.randint(0, len(S), size=len(S)) for S in (Xu, Yu, Au, Bu))")]},
    {"name": "bootstrap that resamples the target words only (attribute sets fixed)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_DRAW, "ix, iy = (rng.integers(0, len(S), size=len(S)) for S in (Xu, Yu))\n        ia, ib = np.arange(len(Au)), np.arange(len(Bu))")]},
    {"name": "bootstrap effect sizes with the population standard deviation (ddof=0)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("sd = np.concatenate([sx, sy]).std(ddof=1)", "sd = np.concatenate([sx, sy]).std()")]},
    {"name": "bootstrap with the same indices for X and Y", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("sx, sy = Xu[ix] @ w, Yu[iy] @ w", "sx, sy = Xu[ix] @ w, Yu[ix % len(Yu)] @ w")]},
]
