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

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    # a local `centroid` that sums instead of averaging, used for every set in g
    {"name": "g with sums of unit vectors instead of centroids (wrong normalisation, breaks Lemma 1)", "cell": "generalised_weat", "fails": ["generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("    x_bars = [centroid(X) for X in X_groups]\n", _SUMMING_CENTROID)]},
    {"name": "g with mu = centroid of all names pooled (groups weighted by size)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [("mu = centroid(X_all) if n == 1 else np.mean(x_bars, axis=0)", "mu = centroid(X_all) if n == 1 else centroid(np.vstack(X_groups))")]},
    {"name": "centroid as the unit vector of the mean (normalised after averaging)", "cell": "centroid", "fails": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", _UNIT_MEAN)]},
    {"name": "lemma3_rhs without the 1/n factor on the double sum", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [("return float(np.trace(single) - single.sum() / n)", "return float(np.trace(single) - single.sum())")]},
    {"name": "bootstrap that resamples without replacement (a permutation: d never changes)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("ix, iy, ia, ib = (rng.integers(0, len(S), size=len(S)) for S in (Xu, Yu, Au, Bu))", "ix, iy, ia, ib = (rng.permutation(len(S)) for S in (Xu, Yu, Au, Bu))")]},
]
