"""Known-wrong answers to 02_association that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``score_words`` calls ``associations``. It is judged on its own (issue 42): the hidden tests call it with the course's
``associations`` in place of the student's, and the visible checks give it the scores of its toy embedding
(``known_values``), so a wrong ``associations`` costs its own exercise only. A mutant whose loss changed with that
says so: ``was`` lists the cells it lost before, along the chain.
"""

_ASSOCIATIONS = "return cosine_matrix(W, A).mean(axis=1) - cosine_matrix(W, B).mean(axis=1)"
_IMPORT_REFERENCE = ("from helpers.statistics import association as reference_association\n"
                     "\n"
                     "def association(w, A, B):")
_IMPORT_MODULE = ("import helpers.statistics\n"
                  "\n"
                  "def association(w, A, B):")
_FOR_LOOP = ("scores = np.empty(len(W))\n"
             "    for i in range(len(W)):\n"
             "        scores[i] = cosine_matrix(W[i:i + 1], A).mean() - cosine_matrix(W[i:i + 1], B).mean()\n"
             "    return scores")
_TARGETS_ONLY_NORMALISED = ("Wh = W / np.linalg.norm(W, axis=1, keepdims=True)\n"
                            "    return (Wh @ A.T).mean(axis=1) - (Wh @ B.T).mean(axis=1)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "association with sums of cosines instead of means", "cell": "association", "fails": ["association_tests"], "replace": [("return float(cos_a.mean() - cos_b.mean())", "return float(cos_a.sum() - cos_b.sum())")]},
    {"name": "association with plain dot products (vectors not normalised)", "cell": "association", "fails": ["association_tests"], "replace": [("cos_a = cosine_matrix(w[None, :], A)[0]", "cos_a = A @ w"), ("cos_b = cosine_matrix(w[None, :], B)[0]", "cos_b = B @ w")]},
    {"name": "association that calls the course's reference implementation", "cell": "association", "fails": ["association_tests"], "replace": [("def association(w, A, B):", _IMPORT_REFERENCE), ("return float(cos_a.mean() - cos_b.mean())", "return reference_association(w, A, B)")]},
    {"name": "association that calls the reference through the full module path (only the run-time spy sees it)", "cell": "association", "fails": ["association_tests"], "replace": [("def association(w, A, B):", _IMPORT_MODULE), ("return float(cos_a.mean() - cos_b.mean())", "return helpers.statistics.association(w, A, B)")]},
    {"name": "associations with row sums of the cosine matrices instead of row means", "cell": "associations", "fails": ["associations_tests", "associations_vectorised_tests"], "was": ["associations_tests", "associations_vectorised_tests", "score_words_tests"], "replace": [(_ASSOCIATIONS, "return cosine_matrix(W, A).sum(axis=1) - cosine_matrix(W, B).sum(axis=1)")]},
    {"name": "associations that normalises the target words but not the attribute words", "cell": "associations", "fails": ["associations_tests", "associations_vectorised_tests"], "was": ["associations_tests", "associations_vectorised_tests", "score_words_tests"], "replace": [(_ASSOCIATIONS, _TARGETS_ONLY_NORMALISED)]},
    {"name": "associations that returns a column (n, 1) instead of a 1-D array", "cell": "associations", "fails": ["associations_tests", "associations_vectorised_tests"], "was": ["associations_tests", "associations_vectorised_tests", "score_words_tests"], "replace": [(_ASSOCIATIONS, "return (cosine_matrix(W, A).mean(axis=1) - cosine_matrix(W, B).mean(axis=1))[:, None]")]},
    {"name": "score_words that reports only the missing target words, not the missing attribute words", "cell": "score_words", "fails": ["score_words_tests"], "replace": [("return list(found_t.words), scores, missing", "return list(found_t.words), scores, found_t.missing_words")]},
    {"name": "score_words that returns an empty result instead of raising when no target word is found", "cell": "score_words", "fails": ["score_words_tests"], "replace": [("if not found_t.words or not found_a.words or not found_b.words:", "if not found_t.words:"), ('raise ValueError(f"A word list has no word in the embedding; missing words: {missing}")', "return [], np.empty(0), missing")]},
    # --- systematic mistake hunt (issue 11) ---
    {"name": "association as the mean of the differences np.mean(cos_a - cos_b) (broadcasts when |B| = 1)", "cell": "association", "fails": ["association_tests"], "replace": [("return float(cos_a.mean() - cos_b.mean())", "return float(np.mean(cos_a - cos_b))")]},
    {"name": "association with the sign reversed (B minus A)", "cell": "association", "fails": ["association_tests"], "replace": [("return float(cos_a.mean() - cos_b.mean())", "return float(cos_b.mean() - cos_a.mean())")]},
    {"name": "association normalising w but not the attribute vectors", "cell": "association", "fails": ["association_tests"], "replace": [("cos_a = cosine_matrix(w[None, :], A)[0]", "cos_a = A @ (w / np.linalg.norm(w))"), ("cos_b = cosine_matrix(w[None, :], B)[0]", "cos_b = B @ (w / np.linalg.norm(w))")]},
    {"name": "association returning a 1-element array instead of a float", "cell": "association", "fails": ["association_tests"], "replace": [("cos_a = cosine_matrix(w[None, :], A)[0]", "cos_a = cosine_matrix(w[None, :], A)"), ("cos_b = cosine_matrix(w[None, :], B)[0]", "cos_b = cosine_matrix(w[None, :], B)"), ("return float(cos_a.mean() - cos_b.mean())", "return cos_a.mean(axis=1) - cos_b.mean(axis=1)")]},
    {"name": "associations with means along the wrong axis (over the words, axis=0)", "cell": "associations", "fails": ["associations_tests", "associations_vectorised_tests"], "was": ["associations_tests", "associations_vectorised_tests", "score_words_tests"], "replace": [(_ASSOCIATIONS, "return cosine_matrix(W, A).mean(axis=0) - cosine_matrix(W, B).mean(axis=0)")]},
    {"name": "associations with one overall mean (a single number for all words)", "cell": "associations", "fails": ["associations_tests", "associations_vectorised_tests"], "was": ["associations_tests", "associations_vectorised_tests", "score_words_tests"], "replace": [(_ASSOCIATIONS, "return cosine_matrix(W, A).mean() - cosine_matrix(W, B).mean()")]},
    {"name": "associations as the row means of the difference of the cosine matrices (broadcasts when |B| = 1)", "cell": "associations", "fails": ["associations_tests", "associations_vectorised_tests"], "was": ["associations_tests", "associations_vectorised_tests", "score_words_tests"], "replace": [(_ASSOCIATIONS, "return (cosine_matrix(W, A) - cosine_matrix(W, B)).mean(axis=1)")]},
    {"name": "associations without the check that W is a matrix", "cell": "associations", "fails": ["associations_tests"], "replace": [('    if W.ndim != 2:\n        raise ValueError(f"W must be a matrix with one word vector per row, but it has shape {W.shape}.")\n', "")]},
    {"name": "score_words returning the embedding's keys (lower case) instead of the words as written", "cell": "score_words", "fails": ["score_words_tests"], "replace": [("return list(found_t.words), scores, missing", "return list(found_t.keys), scores, missing")]},
    {"name": "score_words that drops the missing words silently", "cell": "score_words", "fails": ["score_words_tests"], "replace": [("return list(found_t.words), scores, missing", "return list(found_t.words), scores, []")]},
    {"name": "score_words reporting the missing words as a sorted set (list order lost)", "cell": "score_words", "fails": ["score_words_tests"], "replace": [("return list(found_t.words), scores, missing", "return list(found_t.words), scores, sorted(set(missing))")]},
    {"name": "score_words with exact-case lookup (capitalised words count as missing)", "cell": "score_words", "fails": ["score_words_tests"], "replace": [("found_t = lookup(kv, targets)", 'found_t = lookup(kv, targets, case="exact")')]},
    {"name": "score_words with A and B swapped (the sign of every score reversed)", "cell": "score_words", "fails": ["score_words_tests"], "replace": [("scores = associations(found_t.vectors, found_a.vectors, found_b.vectors)", "scores = associations(found_t.vectors, found_b.vectors, found_a.vectors)")]},
    {"name": "score_words returning the scores as a list", "cell": "score_words", "fails": ["score_words_tests"], "replace": [("return list(found_t.words), scores, missing", "return list(found_t.words), list(scores), missing")]},
    # --- in-place changes of the inputs (np.asarray does not copy a float64 array); hidden check_unchanged ---
    {"name": "association normalising w in place (w /= its length changes the caller's float64 array)", "cell": "association", "fails": ["association_tests"], "replace": [("cos_a = cosine_matrix(w[None, :], A)[0]", "w /= np.linalg.norm(w)\n    cos_a = cosine_matrix(w[None, :], A)[0]")]},
    {"name": "association normalising the rows of A in place (A /= lengths changes the caller's float64 matrix)", "cell": "association", "fails": ["association_tests"], "replace": [("cos_a = cosine_matrix(w[None, :], A)[0]", "A /= np.linalg.norm(A, axis=1, keepdims=True)\n    cos_a = cosine_matrix(w[None, :], A)[0]")]},
    {"name": "associations normalising the rows of W in place (W /= lengths changes the caller's float64 matrix)", "cell": "associations", "fails": ["associations_tests"], "replace": [(_ASSOCIATIONS, "W /= np.linalg.norm(W, axis=1, keepdims=True)\n    " + _ASSOCIATIONS)]},
    {"name": "associations normalising the rows of B in place (B /= lengths changes the caller's float64 matrix)", "cell": "associations", "fails": ["associations_tests"], "replace": [(_ASSOCIATIONS, "B /= np.linalg.norm(B, axis=1, keepdims=True)\n    " + _ASSOCIATIONS)]},
    {"name": "associations returning zeros of the right shape (no loop, wrong values: the vectorised point needs a right answer)", "cell": "associations", "fails": ["associations_tests", "associations_vectorised_tests"], "was": ["associations_tests", "associations_vectorised_tests", "score_words_tests"], "replace": [(_ASSOCIATIONS, "return np.zeros(len(W))")]},
    # --- loops in associations (right values): only the vectorised cell loses its point ---
    {"name": "associations with a for loop over the rows of W (right values)", "cell": "associations", "fails": ["associations_vectorised_tests"], "replace": [(_ASSOCIATIONS, _FOR_LOOP)]},
    {"name": "associations with a list comprehension calling association (right values)", "cell": "associations", "fails": ["associations_vectorised_tests"], "replace": [(_ASSOCIATIONS, "return np.array([association(w, A, B) for w in W])")]},
    {"name": "associations with np.apply_along_axis over the rows (a loop in disguise, right values)", "cell": "associations", "fails": ["associations_vectorised_tests"], "replace": [(_ASSOCIATIONS, "return np.apply_along_axis(association, 1, W, A, B)")]},
    {"name": "associations with np.vectorize of association (a loop in disguise, right values)", "cell": "associations", "fails": ["associations_vectorised_tests"], "replace": [(_ASSOCIATIONS, 'return np.vectorize(association, signature="(d),(a,d),(b,d)->()")(W, A, B)')]},
]
