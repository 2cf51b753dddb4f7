"""Known-wrong answers to 02_association that the autograder must catch (format: CONTRIBUTING.md, "Mutants")."""

_ASSOCIATIONS = "return cosine_matrix(W, A).mean(axis=1) - cosine_matrix(W, B).mean(axis=1)"

MUTANTS = [
    {"name": "association with sums of cosines instead of means", "cell": "association", "fails": ["association_tests"],
     "replace": [("return float(cos_a.mean() - cos_b.mean())", "return float(cos_a.sum() - cos_b.sum())")]},
    {"name": "association with plain dot products (vectors not normalised)", "cell": "association", "fails": ["association_tests"],
     "replace": [("cos_a = cosine_matrix(w[None, :], A)[0]", "cos_a = A @ w"),
                 ("cos_b = cosine_matrix(w[None, :], B)[0]", "cos_b = B @ w")]},
    {"name": "association that calls the course's reference implementation", "cell": "association", "fails": ["association_tests"],
     "replace": [("def association(w, A, B):",
                  "from helpers.statistics import association as reference_association\n\ndef association(w, A, B):"),
                 ("return float(cos_a.mean() - cos_b.mean())", "return reference_association(w, A, B)")]},
    {"name": "association that calls the reference through the full module path (only the run-time spy sees it)", "cell": "association", "fails": ["association_tests"],
     "replace": [("def association(w, A, B):", "import helpers.statistics\n\ndef association(w, A, B):"),
                 ("return float(cos_a.mean() - cos_b.mean())", "return helpers.statistics.association(w, A, B)")]},
    {"name": "associations with row sums of the cosine matrices instead of row means", "cell": "associations", "fails": ["associations_tests", "score_words_tests"],
     "replace": [(_ASSOCIATIONS, _ASSOCIATIONS.replace("mean", "sum"))]},
    {"name": "associations that normalises the target words but not the attribute words", "cell": "associations", "fails": ["associations_tests", "score_words_tests"],
     "replace": [(_ASSOCIATIONS, "Wh = W / np.linalg.norm(W, axis=1, keepdims=True)\n"
                                 "    return (Wh @ A.T).mean(axis=1) - (Wh @ B.T).mean(axis=1)")]},
    {"name": "associations that returns a column (n, 1) instead of a 1-D array", "cell": "associations", "fails": ["associations_tests", "score_words_tests"],
     "replace": [(_ASSOCIATIONS, f"return ({_ASSOCIATIONS[len('return '):]})[:, None]")]},
    {"name": "score_words that reports only the missing target words, not the missing attribute words", "cell": "score_words", "fails": ["score_words_tests"],
     "replace": [("return list(found_t.words), scores, missing", "return list(found_t.words), scores, found_t.missing_words")]},
    {"name": "score_words that returns an empty result instead of raising when no target word is found", "cell": "score_words", "fails": ["score_words_tests"],
     "replace": [("if not found_t.words or not found_a.words or not found_b.words:", "if not found_t.words:"),
                 ('raise ValueError(f"A word list has no word in the embedding; missing words: {missing}")',
                  "return [], np.empty(0), missing")]},
]
