"""Known-wrong answers to 07_wefat that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``wefat_correlation`` calls ``wefat_score`` and ``drop_least_namelike``. It is judged on its own (issue 42): the
hidden tests call it with the course's versions of both in place of the student's, and its visible checks give it
the scores of their five words and the filter's result for fraction 0 (``known_values``), so a mistake in
``wefat_score`` or ``drop_least_namelike`` costs its own exercise only. A mutant whose loss changed says so: ``was``
lists the cells it lost before, along the chain.
"""

_SD = "sd = np.concatenate([cos_a, cos_b], axis=1).std(axis=1, ddof=ddof)"
_SCORE = "return (cos_a.mean(axis=1) - cos_b.mean(axis=1)) / sd"
_ORDER = 'order = np.argsort(-distance, kind="stable")'
_IMPORT_REFERENCE = ("from helpers.statistics import wefat_association\n"
                     "\n"
                     "def wefat_score(")
_CALL_INSIDE = ("import helpers.statistics as h\n"
                "    return np.atleast_1d(h.wefat_association(W, A, B, ddof=ddof))")
_NAME_LIKENESS_INSIDE = ("from helpers.wefat import name_likeness\n"
                         '    order = np.argsort(name_likeness(V), kind="stable")')

_CHECK_INPUTS = ("    if W.ndim != 2 or A.ndim != 2 or B.ndim != 2 or 0 in (W.shape[0], A.shape[0], B.shape[0]):\n"
                 '        raise ValueError("W, A and B must be 2-D arrays with one vector per row and at least one row; "\n'
                 '                         f"got shapes {W.shape}, {A.shape} and {B.shape}.")\n')
_CHECK_IN_A_LOOP = ('    for name, M in (("W", W), ("A", A), ("B", B)):\n'
                    "        if M.ndim != 2 or M.shape[0] == 0:\n"
                    '            raise ValueError(f"{name} must be a 2-D array with at least one row; got shape {M.shape}.")\n')
_ROW_LOOP = ("return np.array([(cos_a[i].mean() - cos_b[i].mean()) / sd[i] for i in range(len(sd))])")
_FOR_LOOP = ("out = np.empty(len(sd))\n"
             "    for i in range(len(sd)):\n"
             "        out[i] = (cos_a[i].mean() - cos_b[i].mean()) / sd[i]\n"
             "    return out")
_APPLY = ("both = np.concatenate([cos_a, cos_b], axis=1)\n"
          "    n_a = cos_a.shape[1]\n"
          "    return np.apply_along_axis(lambda r: (r[:n_a].mean() - r[n_a:].mean()) / r.std(ddof=ddof), 1, both)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "WEFAT score with the population standard deviation whatever ddof says", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SD, "sd = np.concatenate([cos_a, cos_b], axis=1).std(axis=1)")]},
    {"name": "WEFAT score without the normalisation (the plain WEAT association)", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SCORE, "return cos_a.mean(axis=1) - cos_b.mean(axis=1)")]},
    {"name": "WEFAT score normalised by the std of A's and B's cosines separately (averaged)", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SD, "sd = (cos_a.std(axis=1, ddof=ddof) + cos_b.std(axis=1, ddof=ddof)) / 2")]},
    # the judged kernel has no working wefat_association or name_likeness (REFERENCES of hidden_tests/07_wefat.py): a
    # mutant that calls one raises, also in the visible check of wefat_score_vectorised_tests
    {"name": "WEFAT score that calls the course's reference wefat_association", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [("def wefat_score(", _IMPORT_REFERENCE), (_SCORE, "return np.atleast_1d(wefat_association(W, A, B, ddof=ddof))")]},
    {"name": "name-likeness filter that drops the MOST name-like words", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "was": ["drop_least_namelike_tests", "wefat_correlation_tests"], "replace": [(_ORDER, 'order = np.argsort(distance, kind="stable")')]},
    {"name": "name-likeness filter that rounds fraction * n instead of rounding down", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "replace": [("k = int(np.floor(fraction * len(words)))", "k = int(round(fraction * len(words)))")]},
    {"name": "name-likeness filter with the centroid of the raw (not unit-length) vectors", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "was": ["drop_least_namelike_tests", "wefat_correlation_tests"], "replace": [("distance = np.linalg.norm(U - U.mean(axis=0), axis=1)", "distance = np.linalg.norm(V - V.mean(axis=0), axis=1)")]},
    {"name": "wefat_correlation that regresses the scores on the values (slope the wrong way round)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("fit = linregress(scores, used_values)", "fit = linregress(used_values, scores)")]},
    {"name": "wefat_correlation that keeps the values of missing words (values and words out of step)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("used, used_values = [words[i] for i in found], values[found]", "used, used_values = [words[i] for i in found], values[:len(found)]")]},
    # these two also raise in the judged kernel (see above)
    {"name": "WEFAT score that imports the reference wefat_association inside the function", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SCORE, _CALL_INSIDE)]},
    {"name": "name-likeness filter that imports the reference name_likeness inside the function", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "was": ["drop_least_namelike_tests", "wefat_correlation_tests"], "replace": [(_ORDER, _NAME_LIKENESS_INSIDE)]},
    {"name": "WEFAT score with the standard deviation over the wrong axis (axis=0)", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SD, "sd = np.concatenate([cos_a, cos_b], axis=1).std(axis=0, ddof=ddof)")]},
    {"name": "WEFAT score normalised by the standard deviation of A's cosines only", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SD, "sd = cos_a.std(axis=1, ddof=ddof)")]},
    {"name": "WEFAT score with sums of cosines instead of means", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SCORE, "return (cos_a.sum(axis=1) - cos_b.sum(axis=1)) / sd")]},
    {"name": "WEFAT score with the means over the wrong axis (over target words)", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SCORE, "return (cos_a.mean(axis=0) - cos_b.mean(axis=0)) / sd")]},
    {"name": "WEFAT score with dot products of unnormalised vectors instead of cosines", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [("cos_a, cos_b = cosine_matrix(W, A), cosine_matrix(W, B)", "cos_a, cos_b = W @ A.T, W @ B.T")]},
    {"name": "WEFAT score returning zeros of the right shape (no loop, wrong values: the vectorised point needs a right answer)", "cell": "wefat_score", "fails": ["wefat_score_tests", "wefat_score_vectorised_tests"], "was": ["wefat_correlation_tests", "wefat_score_tests", "wefat_score_vectorised_tests"], "replace": [(_SCORE, "return np.zeros(len(W))")]},
    {"name": "WEFAT score without the ValueError for a zero standard deviation", "cell": "wefat_score", "fails": ["wefat_score_tests"], "replace": [("    if np.any(sd == 0):", "    if False:")]},
    {"name": "WEFAT score that accepts any ddof", "cell": "wefat_score", "fails": ["wefat_score_tests"], "replace": [("    if ddof not in (0, 1):", "    if False:")]},
    {"name": "name-likeness filter that rounds fraction * n up", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "was": ["drop_least_namelike_tests", "wefat_correlation_tests"], "replace": [("k = int(np.floor(fraction * len(words)))", "k = int(np.ceil(fraction * len(words)))")]},
    {"name": "name-likeness filter that lists the dropped words farthest first, not in their order", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "was": ["drop_least_namelike_tests", "wefat_correlation_tests"], "replace": [("dropped = [w for i, w in enumerate(words) if i in drop]", "dropped = [words[i] for i in order[:k]]")]},
    {"name": "name-likeness filter with the centroid over the wrong axis", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "was": ["drop_least_namelike_tests", "wefat_correlation_tests"], "replace": [("U - U.mean(axis=0)", "U - U.mean(axis=1, keepdims=True)")]},
    {"name": "name-likeness filter that accepts fraction = 1", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "replace": [("if not 0 <= fraction < 1:", "if not 0 <= fraction <= 1:")]},
    {"name": "wefat_correlation with the population standard deviation (ddof=0)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("scores = wefat_score(vec(used), vec(A), vec(B))", "scores = wefat_score(vec(used), vec(A), vec(B), ddof=0)")]},
    {"name": "wefat_correlation with Spearman's rank correlation instead of Pearson's r", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("r, p = pearsonr(scores, used_values)", "from scipy.stats import spearmanr\n    r, p = spearmanr(scores, used_values)")]},
    {"name": "wefat_correlation with a one-sided p-value (p / 2)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [('"p": float(p)', '"p": float(p / 2)')]},
    {"name": "wefat_correlation looks the vectors up as written (capitalised names raise KeyError)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("[kv[w.lower()] for w in ws]", "[kv[w] for w in ws]")]},
    {"name": "wefat_correlation that cuts the values from the end after the filter (values and words out of step)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("used_values[mask]", "used_values[:int(mask.sum())]")]},
    {"name": "name-likeness filter with np.argsort's default sort (not stable: ties broken in any order)", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "replace": [(_ORDER, "order = np.argsort(-distance)")]},
    {"name": "name-likeness filter that reverses an ascending sort (ties: the later word dropped first)", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "replace": [(_ORDER, 'order = np.argsort(distance, kind="stable")[::-1]')]},
    {"name": "name-likeness filter that lists the kept words nearest first, not in their order", "cell": "drop_least_namelike", "fails": ["drop_least_namelike_tests"], "replace": [("kept = [w for i, w in enumerate(words) if i not in drop]", "kept = [words[i] for i in order[k:][::-1]]")]},
    {"name": "wefat_correlation that accepts 2 words (needs at least 2 instead of 3)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("    if len(used) < 3:", "    if len(used) < 2:")]},
    {"name": "wefat_correlation that counts the words before the filter (2 left after it pass)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("    if len(used) < 3:", "    if len(found) < 3:")]},
    {"name": "wefat_correlation that needs more than 3 words (3 rejected)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("    if len(used) < 3:", "    if len(used) <= 3:")]},
    {"name": "wefat_correlation without the ValueError for a missing attribute word (KeyError instead)", "cell": "wefat_correlation", "fails": ["wefat_correlation_tests"], "replace": [("    if missing_attributes:", "    if False:")]},
    # --- "no Python loop" is graded (wefat_score_vectorised_tests, 1 point): right values, a loop ---
    {"name": "WEFAT score with a for loop over the words (right values)", "cell": "wefat_score", "fails": ["wefat_score_vectorised_tests"], "replace": [(_SCORE, _FOR_LOOP)]},
    {"name": "WEFAT score with a list comprehension over the words (right values)", "cell": "wefat_score", "fails": ["wefat_score_vectorised_tests"], "replace": [(_SCORE, _ROW_LOOP)]},
    {"name": "WEFAT score with np.apply_along_axis over the rows (right values)", "cell": "wefat_score", "fails": ["wefat_score_vectorised_tests"], "replace": [(_SCORE, _APPLY)]},
    {"name": "WEFAT score that checks its three inputs in a for loop (right values)", "cell": "wefat_score", "fails": ["wefat_score_vectorised_tests"], "replace": [(_CHECK_INPUTS, _CHECK_IN_A_LOOP)]},
]
