"""Known-wrong answers to 03_differential_association that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``differential_association_centroid`` calls ``attribute_direction``. It is judged on its own (issue 42): the hidden
tests call it with the course's ``attribute_direction`` in place of the student's, and the visible checks give it the
direction of their example (``known_values``), so a wrong ``attribute_direction`` costs its own exercise only. A
mutant whose loss changed with that says so: ``was`` lists the cells it lost before, along the chain.
"""

_SUMS = "return float(scores_x.sum() - scores_y.sum())"
_DIRECTION = "return unit_rows(A).mean(axis=0) - unit_rows(B).mean(axis=0)"
_TARGETS = "target_difference = unit_rows(X).sum(axis=0) - unit_rows(Y).sum(axis=0)"
_CENTROID_RETURN = "return float(target_difference @ attribute_direction(A, B))"
_SIZE_CHECK = ("    if len(X) != len(Y):\n"
               '        raise ValueError(f"X and Y must have the same number of words, but X has {len(X)} and Y has {len(Y)}.")\n')
_DOT_PRODUCTS_X = ("A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)\n"
                   "    scores_x = (X @ A.T).mean(axis=1) - (X @ B.T).mean(axis=1)")
_IMPORT_REFERENCE = ("import helpers.statistics as st\n"
                     "\n"
                     "def differential_association(")
_UNIT_DIRECTION = ("d = unit_rows(A).mean(axis=0) - unit_rows(B).mean(axis=0)\n"
                   "    return d / np.linalg.norm(d)")
_IMPORT_MODULE = ("import helpers.statistics\n"
                  "\n"
                  "def differential_association_centroid(")

_IN_PLACE_TARGETS = ("X /= np.linalg.norm(X, axis=1, keepdims=True)\n"
                     "    Y /= np.linalg.norm(Y, axis=1, keepdims=True)\n"
                     "    scores_x = cosine_matrix(X, A)")
_IN_PLACE_A = ("A = np.asarray(A, dtype=float)\n"
               "    A /= np.linalg.norm(A, axis=1, keepdims=True)\n"
               "    scores_x = cosine_matrix(X, A)")
_IN_PLACE_DIRECTION = ("A /= np.linalg.norm(A, axis=1, keepdims=True)\n"
                       "    B /= np.linalg.norm(B, axis=1, keepdims=True)\n"
                       "    return A.mean(axis=0) - B.mean(axis=0)")
_IN_PLACE_CENTROID = ("X /= np.linalg.norm(X, axis=1, keepdims=True)\n"
                      "    Y /= np.linalg.norm(Y, axis=1, keepdims=True)\n"
                      "    target_difference = X.sum(axis=0) - Y.sum(axis=0)")
_EMPTY_ATTRIBUTE_CHECK = ('    if len(A) == 0 or len(B) == 0:\n'
                          '        raise ValueError("A and B need at least one word each.")\n')
_HAND_COSINES_X = ("unit = lambda M: np.asarray(M, dtype=float) / np.linalg.norm(M, axis=1, keepdims=True)\n"
                   "    scores_x = (unit(X) @ unit(A).T).mean(axis=1) - (unit(X) @ unit(B).T).mean(axis=1)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "differential association with means of the per-word scores instead of sums", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [(_SUMS, "return float(scores_x.mean() - scores_y.mean())")]},
    {"name": "differential association without the equal-size check", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [(_SIZE_CHECK, "")]},
    {"name": "differential association with plain dot products (vectors not normalised)", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [("scores_x = cosine_matrix(X, A).mean(axis=1) - cosine_matrix(X, B).mean(axis=1)", _DOT_PRODUCTS_X), ("scores_y = cosine_matrix(Y, A).mean(axis=1) - cosine_matrix(Y, B).mean(axis=1)", "scores_y = (Y @ A.T).mean(axis=1) - (Y @ B.T).mean(axis=1)")]},
    {"name": "differential association that calls the course's reference implementation", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [("def differential_association(", _IMPORT_REFERENCE), (_SUMS, "return st.differential_association(X, Y, A, B)")]},
    {"name": "attribute direction from the means of the raw attribute vectors (not normalised)", "cell": "attribute_direction", "fails": ["attribute_direction_tests"], "was": ["attribute_direction_tests", "differential_association_centroid_tests"], "replace": [(_DIRECTION, "return A.mean(axis=0) - B.mean(axis=0)")]},
    {"name": "attribute direction rescaled to unit length", "cell": "attribute_direction", "fails": ["attribute_direction_tests"], "was": ["attribute_direction_tests", "differential_association_centroid_tests"], "replace": [(_DIRECTION, _UNIT_DIRECTION)]},
    {"name": "centroid form with the raw target vectors (not normalised)", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_TARGETS, "target_difference = X.sum(axis=0) - Y.sum(axis=0)")]},
    {"name": "centroid form with the means of the target vectors instead of their sums", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_TARGETS, "target_difference = unit_rows(X).mean(axis=0) - unit_rows(Y).mean(axis=0)")]},
    {"name": "centroid exercise answered with the per-word associations instead of the centroid form", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_CENTROID_RETURN, "return float(association(X, A, B).sum() - association(Y, A, B).sum())")]},
    {"name": "centroid exercise answered through the full module path of the reference (only the run-time spy sees it)", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [("def differential_association_centroid(", _IMPORT_MODULE), (_CENTROID_RETURN, "return helpers.statistics.differential_association(X, Y, A, B)")]},
    # --- systematic mistake hunt (issue 11) ---
    {"name": "differential association with the sign reversed (Y minus X)", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [(_SUMS, "return float(scores_y.sum() - scores_x.sum())")]},
    {"name": "differential association returning the absolute value", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [(_SUMS, "return float(abs(scores_x.sum() - scores_y.sum()))")]},
    {"name": "differential association with the means over the wrong axis (axis=0, over the target words)", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [("scores_x = cosine_matrix(X, A).mean(axis=1) - cosine_matrix(X, B).mean(axis=1)", "scores_x = cosine_matrix(X, A).mean(axis=0) - cosine_matrix(X, B).mean(axis=0)"), ("scores_y = cosine_matrix(Y, A).mean(axis=1) - cosine_matrix(Y, B).mean(axis=1)", "scores_y = cosine_matrix(Y, A).mean(axis=0) - cosine_matrix(Y, B).mean(axis=0)")]},
    {"name": "differential association checking that A and B (not X and Y) have the same size", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [("if len(X) != len(Y):", "if len(A) != len(B):")]},
    {"name": "attribute direction with the sign reversed (B minus A)", "cell": "attribute_direction", "fails": ["attribute_direction_tests"], "was": ["attribute_direction_tests", "differential_association_centroid_tests"], "replace": [(_DIRECTION, "return unit_rows(B).mean(axis=0) - unit_rows(A).mean(axis=0)")]},
    {"name": "attribute direction with sums of the unit vectors instead of means", "cell": "attribute_direction", "fails": ["attribute_direction_tests"], "was": ["attribute_direction_tests", "differential_association_centroid_tests"], "replace": [(_DIRECTION, "return unit_rows(A).sum(axis=0) - unit_rows(B).sum(axis=0)")]},
    {"name": "attribute direction with the means over the wrong axis (axis=1, one number per word)", "cell": "attribute_direction", "fails": ["attribute_direction_tests"], "was": ["attribute_direction_tests", "differential_association_centroid_tests"], "replace": [(_DIRECTION, "return unit_rows(A).mean(axis=1) - unit_rows(B).mean(axis=1)")]},
    {"name": "attribute direction from the centroids rescaled to unit length before the difference", "cell": "attribute_direction", "fails": ["attribute_direction_tests"], "was": ["attribute_direction_tests", "differential_association_centroid_tests"], "replace": [(_DIRECTION, "a = unit_rows(A).mean(axis=0)\n    b = unit_rows(B).mean(axis=0)\n    return a / np.linalg.norm(a) - b / np.linalg.norm(b)")]},
    {"name": "centroid form without the equal-size check", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_SIZE_CHECK, "")]},
    {"name": "centroid form with the sign reversed (Y minus X)", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_TARGETS, "target_difference = unit_rows(Y).sum(axis=0) - unit_rows(X).sum(axis=0)")]},
    {"name": "centroid form projecting on the unit attribute direction (divided by its length)", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_CENTROID_RETURN, "direction = attribute_direction(A, B)\n    return float(target_difference @ direction / np.linalg.norm(direction))")]},
    {"name": "centroid form with the centroids of the raw attribute vectors (not normalised)", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_CENTROID_RETURN, "return float(target_difference @ (A.mean(axis=0) - B.mean(axis=0)))")]},
    # --- in-place changes of the caller's arrays, and further slips (issue 11) ---
    {"name": "differential association normalising the caller's target vectors in place (X /= ...: np.asarray does not copy)", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [("scores_x = cosine_matrix(X, A)", _IN_PLACE_TARGETS)]},
    {"name": "differential association normalising the caller's attribute vectors A in place", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [("scores_x = cosine_matrix(X, A)", _IN_PLACE_A)]},
    {"name": "differential association with sums over the attribute words instead of means", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [("scores_x = cosine_matrix(X, A).mean(axis=1) - cosine_matrix(X, B).mean(axis=1)", "scores_x = cosine_matrix(X, A).sum(axis=1) - cosine_matrix(X, B).sum(axis=1)"), ("scores_y = cosine_matrix(Y, A).mean(axis=1) - cosine_matrix(Y, B).mean(axis=1)", "scores_y = cosine_matrix(Y, A).sum(axis=1) - cosine_matrix(Y, B).sum(axis=1)")]},
    {"name": "differential association with hand-written cosines and no check for an empty A or B (nan instead of ValueError)", "cell": "differential_association", "fails": ["differential_association_tests"], "replace": [(_EMPTY_ATTRIBUTE_CHECK, ""), ("scores_x = cosine_matrix(X, A).mean(axis=1) - cosine_matrix(X, B).mean(axis=1)", _HAND_COSINES_X), ("scores_y = cosine_matrix(Y, A).mean(axis=1) - cosine_matrix(Y, B).mean(axis=1)", "scores_y = (unit(Y) @ unit(A).T).mean(axis=1) - (unit(Y) @ unit(B).T).mean(axis=1)")]},
    {"name": "attribute direction normalising the caller's attribute vectors in place (A /= ...: np.asarray does not copy)", "cell": "attribute_direction", "fails": ["attribute_direction_tests"], "was": ["attribute_direction_tests", "differential_association_centroid_tests"], "replace": [(_DIRECTION, _IN_PLACE_DIRECTION)]},
    {"name": "attribute direction dividing by the norm of the whole matrix instead of each row's", "cell": "attribute_direction", "fails": ["attribute_direction_tests"], "was": ["attribute_direction_tests", "differential_association_centroid_tests"], "replace": [(_DIRECTION, "return (A / np.linalg.norm(A)).mean(axis=0) - (B / np.linalg.norm(B)).mean(axis=0)")]},
    {"name": "centroid form normalising the caller's target vectors in place (X /= ...: np.asarray does not copy)", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_TARGETS, _IN_PLACE_CENTROID)]},
    {"name": "centroid form dividing the target vectors by the column norms (axis=0) instead of each row's length", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_TARGETS, "target_difference = (X / np.linalg.norm(X, axis=0)).sum(axis=0) - (Y / np.linalg.norm(Y, axis=0)).sum(axis=0)")]},
    {"name": "centroid form dividing by the row lengths without keepdims (rows and columns mixed up)", "cell": "differential_association_centroid", "fails": ["differential_association_centroid_tests"], "replace": [(_TARGETS, "target_difference = (X / np.linalg.norm(X, axis=1)).sum(axis=0) - (Y / np.linalg.norm(Y, axis=1)).sum(axis=0)")]},
]
