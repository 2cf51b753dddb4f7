"""Known-wrong answers to 09_generalised_weat that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``generalised_weat`` calls ``centroid`` and ``lemma3_rhs`` calls ``generalised_weat``. Each is judged on its own
(issue 42): the hidden tests call it with the course's version of its callee in place of the student's, and the
visible checks give it the callee's values for their inputs (``known_values``), so a mistake costs its own
exercise only. A mutant whose loss changed with that says so: ``was`` lists the cells it lost before, along the
chain.
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
_SEED = "    rng = np.random.default_rng(rng)   # a seed or a Generator (a Generator is used as it is)\n"
_ZERO_VECTOR_CHECK = ("    if any((np.linalg.norm(S, axis=1) == 0).any() for S in sets):\n"
                      "        raise ValueError(\"A word vector is zero, so its cosine similarities are undefined.\")\n")
_NORMALISE_ONCE = "Xu, Yu, Au, Bu = (S / np.linalg.norm(S, axis=1, keepdims=True) for S in sets)   # normalise once"
_NORMALISE_IN_PLACE = ("for S in sets:\n"
                       "        S /= np.linalg.norm(S, axis=1, keepdims=True)\n"
                       "    Xu, Yu, Au, Bu = sets")
_REPLICATE_LOOP = ("    for b in range(int(n_resamples)):\n"
                   "        " + _DRAW)
_ALL_REPLICATES_PER_SET = ("    IX, IY, IA, IB = (rng.integers(0, len(S), size=(int(n_resamples), len(S))) for S in (Xu, Yu, Au, Bu))\n"
                           "    for b in range(int(n_resamples)):\n"
                           "        ix, iy, ia, ib = IX[b], IY[b], IA[b], IB[b]")
_D_LINE = "out[b] = (sx.mean() - sy.mean()) / sd if sd > 0 else np.nan"
_SCORES_AND_D = ("sx, sy = Xu[ix] @ w, Yu[iy] @ w\n"
                 "        sd = np.concatenate([sx, sy]).std(ddof=1)\n"
                 "        " + _D_LINE)
_IMPORT_EFFECT_SIZE = ("from helpers.statistics import effect_size\n"
                       "\n"
                       "\n"
                       "def bootstrap_effect_sizes(")
_IMPORT_REFERENCE = ("from helpers.lexicon import bootstrap_effect_sizes as reference_bootstrap\n"
                     "\n"
                     "\n"
                     "def bootstrap_effect_sizes(")
_IMPORT_MODULE = ("import helpers.lexicon\n"
                  "\n"
                  "\n"
                  "def bootstrap_effect_sizes(")
_CALL_REFERENCE_INSIDE = ("    import helpers.lexicon as lexicon\n"
                          "    return lexicon.bootstrap_effect_sizes(X, Y, A, B, n_resamples=n_resamples, rng=rng)\n")
_A_ALL = "a_all = centroid(A_all) if A_all is not None else centroid(np.vstack([np.atleast_2d(A) for A in A_groups]))"
_SINGLE = ("single = np.array([[generalised_weat([X], [A], X_all, A_all) for A in A_groups] for X in X_groups])\n"
           "    return float(np.trace(single) - single.sum() / n)")
_LEFT_SIDE_CHECKED = ("if X_all is None or A_all is None:\n"
                      "        raise ValueError(\"The one-group statistics need the universes X_all and A_all.\")\n"
                      "    return generalised_weat(list(X_groups), A_groups, X_all, A_all)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    # a local `centroid` that sums instead of averaging, used for every set in g
    {"name": "g with sums of unit vectors instead of centroids (wrong normalisation, breaks Lemma 1)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "was": ["generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("    x_bars = [centroid(X) for X in X_groups]\n", _SUMMING_CENTROID)]},
    {"name": "g with mu = centroid of all names pooled (groups weighted by size)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [("mu = centroid(X_all) if n == 1 else np.mean(x_bars, axis=0)", "mu = centroid(X_all) if n == 1 else centroid(np.vstack(X_groups))")]},
    {"name": "centroid as the unit vector of the mean (normalised after averaging)", "cell": "centroid", "fails": ["centroid_tests"], "was": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", _UNIT_MEAN)]},
    {"name": "lemma3_rhs without the 1/n factor on the double sum", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [("return float(np.trace(single) - single.sum() / n)", "return float(np.trace(single) - single.sum())")]},
    {"name": "bootstrap that resamples without replacement (a permutation: d never changes)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("ix, iy, ia, ib = (rng.integers(0, len(S), size=len(S)) for S in (Xu, Yu, Au, Bu))", "ix, iy, ia, ib = (rng.permutation(len(S)) for S in (Xu, Yu, Au, Bu))")]},
    {"name": "centroid as the sum of the unit vectors", "cell": "centroid", "fails": ["centroid_tests"], "was": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", "return (V / norms).sum(axis=0)")]},
    {"name": "centroid averaged over the wrong axis", "cell": "centroid", "fails": ["centroid_tests"], "was": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", "return (V / norms).mean(axis=1)")]},
    {"name": "centroid of the raw (not unit) vectors", "cell": "centroid", "fails": ["centroid_tests"], "was": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", "return V.mean(axis=0)")]},
    {"name": "centroid without the ValueError for a zero vector", "cell": "centroid", "fails": ["centroid_tests"], "replace": [("    if (norms == 0).any():", "    if False:")]},
    {"name": "centroid without the ValueError for an empty set", "cell": "centroid", "fails": ["centroid_tests"], "was": ["centroid_tests", "generalised_weat_tests"], "replace": [("    if V.shape[0] == 0:", "    if False:")]},
    {"name": "g without centring the group centroids (mu left out)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [(_G, _G.replace("(xb - mu)", "xb"))]},
    {"name": "g without centring the attribute centroids (a_all left out)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [(_G, _G.replace("(ab - a_all)", "ab"))]},
    {"name": "g as the mean over groups instead of the sum", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [(_G, "return float(np.mean([(xb - mu) @ (ab - a_all) for xb, ab in zip(x_bars, a_bars)]))")]},
    {"name": "g with one group ignores X_all (mu = the group's own centroid, so g = 0)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "was": ["generalised_weat_tests", "lemma3_rhs_tests"], "replace": [(_MU, "mu = np.mean(x_bars, axis=0)")]},
    {"name": "g without the ValueError for unequal numbers of groups and attribute sets (zip truncates)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [("    if len(A_groups) != n:", "    if False:")]},
    {"name": "lemma3_rhs as the trace alone", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [(_RHS, "return float(np.trace(single))")]},
    {"name": "lemma3_rhs with the mean of all entries (1/n^2 instead of 1/n)", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [(_RHS, "return float(np.trace(single) - single.mean())")]},
    {"name": "lemma3_rhs with only the off-diagonal entries in the double sum", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [(_RHS, "return float(np.trace(single) - (single.sum() - np.trace(single)) / n)")]},
    {"name": "lemma3_rhs accepts a single group", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [("    if n < 2:", "    if n < 1:")]},
    {"name": "bootstrap from NumPy's global random state (ignores rng)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_DRAW, "ix, iy, ia, ib = (np.random.randint(0, len(S), size=len(S)) for S in (Xu, Yu, Au, Bu))")]},
    {"name": "bootstrap that resamples the target words only (attribute sets fixed)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_DRAW, "ix, iy = (rng.integers(0, len(S), size=len(S)) for S in (Xu, Yu))\n        ia, ib = np.arange(len(Au)), np.arange(len(Bu))")]},
    {"name": "bootstrap effect sizes with the population standard deviation (ddof=0)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("sd = np.concatenate([sx, sy]).std(ddof=1)", "sd = np.concatenate([sx, sy]).std()")]},
    {"name": "bootstrap with the same indices for X and Y", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("sx, sy = Xu[ix] @ w, Yu[iy] @ w", "sx, sy = Xu[ix] @ w, Yu[ix % len(Yu)] @ w")]},
    # --- issue 11: the rng's type, in-place changes, the draws, NaN, the course's reference, the universes ---
    {"name": "bootstrap that draws from rng itself (an int seed fails with AttributeError)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_SEED, "")]},
    {"name": "bootstrap that ignores the given Generator (a new one from the fixed seed 0)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_SEED, "    rng = np.random.default_rng(0)\n")]},
    {"name": "bootstrap that calls the course's reference implementation", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("def bootstrap_effect_sizes(", _IMPORT_REFERENCE), ("return out", "return reference_bootstrap(X, Y, A, B, n_resamples=n_resamples, rng=rng)")]},
    {"name": "bootstrap that calls the reference through import helpers.lexicon (the full module path)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("def bootstrap_effect_sizes(", _IMPORT_MODULE), ("return out", "return helpers.lexicon.bootstrap_effect_sizes(X, Y, A, B, n_resamples=n_resamples, rng=rng)")]},
    {"name": "bootstrap that imports the reference module inside the function", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_SEED, _CALL_REFERENCE_INSIDE)]},
    {"name": "bootstrap that normalises the word vectors in place (changes float64 inputs: np.asarray does not copy)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_NORMALISE_ONCE, _NORMALISE_IN_PLACE)]},
    {"name": "bootstrap that draws all replicates of X first, then of Y, A and B (not the docstring's order)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_REPLICATE_LOOP, _ALL_REPLICATES_PER_SET)]},
    {"name": "bootstrap that draws the attribute sets before the targets (A, B, X, Y)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_DRAW, "ia, ib, ix, iy = (rng.integers(0, len(S), size=len(S)) for S in (Au, Bu, Xu, Yu))")]},
    {"name": "bootstrap with sums of cosines over A and B instead of means", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("w = Au[ia].mean(axis=0) - Bu[ib].mean(axis=0)", "w = Au[ia].sum(axis=0) - Bu[ib].sum(axis=0)")]},
    {"name": "bootstrap with dot products of the raw vectors (not cosines)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_NORMALISE_ONCE, "Xu, Yu, Au, Bu = sets")]},
    {"name": "bootstrap that makes its own generator (seed 0) instead of drawing from rng", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_DRAW, _DRAW.replace("rng.integers", "np.random.default_rng(0).integers"))]},
    {"name": "bootstrap that never draws the last word of a set (rng.integers(0, len(S) - 1), high is exclusive)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_DRAW, _DRAW.replace("rng.integers(0, len(S),", "rng.integers(0, max(len(S) - 1, 1),"))]},
    {"name": "bootstrap without the ValueError for a zero vector (NaN effect sizes)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_ZERO_VECTOR_CHECK, "")]},
    {"name": "bootstrap that gives 0 instead of NaN when all scores of a replicate are equal", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [(_D_LINE, _D_LINE.replace("else np.nan", "else 0.0"))]},
    {"name": "bootstrap with helpers.statistics.effect_size per replicate (raises ValueError instead of NaN for equal scores)", "cell": "bootstrap_effect_sizes", "fails": ["bootstrap_effect_sizes_tests"], "replace": [("def bootstrap_effect_sizes(", _IMPORT_EFFECT_SIZE), (_SCORES_AND_D, "out[b] = effect_size(Xu[ix], Yu[iy], Au[ia], Bu[ib])")]},
    {"name": "centroid that normalises the rows in place (changes a float64 input: np.asarray does not copy)", "cell": "centroid", "fails": ["centroid_tests"], "replace": [("return (V / norms).mean(axis=0)", "V /= norms\n    return V.mean(axis=0)")]},
    {"name": "centroid dividing by the length of the whole matrix", "cell": "centroid", "fails": ["centroid_tests"], "was": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("return (V / norms).mean(axis=0)", "return (V / np.linalg.norm(V)).mean(axis=0)")]},
    {"name": "centroid without keepdims (row lengths broadcast along the columns)", "cell": "centroid", "fails": ["centroid_tests"], "was": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"], "replace": [("norms = np.linalg.norm(V, axis=1, keepdims=True)", "norms = np.linalg.norm(V, axis=1)")]},
    {"name": "g with mu = centroid of X_all whenever X_all is given (also for n >= 2)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [(_MU, "mu = centroid(X_all) if X_all is not None else np.mean(x_bars, axis=0)")]},
    {"name": "g ignores A_all (always the stack of the attribute sets, so one-group g = 0)", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "was": ["generalised_weat_tests", "lemma3_rhs_tests"], "replace": [(_A_ALL, "a_all = centroid(np.vstack([np.atleast_2d(A) for A in A_groups]))")]},
    {"name": "g with mu averaged over the wrong axis", "cell": "generalised_weat", "fails": ["generalised_weat_tests"], "replace": [(_MU, _MU.replace("axis=0", "axis=1"))]},
    {"name": "lemma3_rhs returns the left side (generalised_weat with all n groups; equal by the lemma)", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [(_SINGLE, "return generalised_weat(X_groups, A_groups)")]},
    # the right-hand side equals the left whatever the universes: only the rule that reads the code catches this one
    {"name": "lemma3_rhs that checks the universes, then returns the left side (generalised_weat with all n groups)", "cell": "lemma3_rhs", "fails": ["lemma3_rhs_tests"], "replace": [(_SINGLE, _LEFT_SIDE_CHECKED)]},
]
