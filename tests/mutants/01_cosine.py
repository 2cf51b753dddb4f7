"""Known-wrong answers to 01_cosine that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``cosine_matrix`` calls ``unit_rows``. It is judged on its own (issue 42): the hidden tests call it with the course's
``unit_rows`` in place of the student's, and the visible checks give it the unit rows of their inputs
(``known_values``), so a wrong ``unit_rows`` costs its own exercise only. A mutant whose loss changed with that says
so: ``was`` lists the cells it lost before, along the chain. The loops are still read through the notebook's own
``unit_rows``: the vectorised point of ``cosine_matrix`` is for vectorised code all the way down.
"""

_ZERO_CHECK = ("    if norm_u == 0 or norm_v == 0:\n"
               '        raise ValueError("The cosine is undefined for a zero vector.")\n')
_IMPORT_REFERENCE = ("from helpers.statistics import cosine as reference_cosine\n"
                     "\n"
                     "\n"
                     "def cosine(u, v):")
_NORMALISE_U_IN_PLACE = ("lengths = np.linalg.norm(U, axis=1, keepdims=True)\n"
                         "    if np.any(lengths == 0):\n"
                         '        raise ValueError("A row of U is all zeros.")\n'
                         "    U /= lengths\n"
                         "    return U @ unit_rows(V).T")
_CALL_INSIDE = ("import helpers.statistics\n"
                "    return helpers.statistics.cosine(u, v)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "cosine without normalising (raw dot product)", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("return float(u @ v / (norm_u * norm_v))", "return float(u @ v)")]},
    {"name": "cosine returns nan for a zero vector instead of raising", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [(_ZERO_CHECK, "")]},
    {"name": "cosine calls the course's reference implementation", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("def cosine(u, v):", _IMPORT_REFERENCE), ("return float(u @ v / (norm_u * norm_v))", "return reference_cosine(u, v)")]},
    # seen twice: the grader reads the import inside the function, and the judged kernel has no reference to call
    {"name": "cosine imports the reference implementation inside the function", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("return float(u @ v / (norm_u * norm_v))", _CALL_INSIDE)]},
    # a wrong unit_rows costs unit_rows only: cosine_matrix is judged with the course's unit_rows (issue 42)
    {"name": "unit_rows divides by the column lengths (axis=0)", "cell": "unit_rows_solution", "fails": ["unit_rows_tests"], "was": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests", "unit_rows_tests"], "replace": [("lengths = np.linalg.norm(M, axis=1, keepdims=True)", "lengths = np.linalg.norm(M, axis=0, keepdims=True)"), ("if np.any(lengths == 0):", "if np.any(np.linalg.norm(M, axis=1) == 0):")]},
    {"name": "cosine_matrix with a Python loop (right values)", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return np.array([[cosine(u, v) for v in V] for u in U])")]},
    {"name": "cosine_matrix without normalising (U @ V.T)", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return U @ V.T")]},
    # --- systematic mistake hunt (issue 11) ---
    {"name": "cosine dividing by the squared lengths (u @ u without the square root)", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("norm_u = np.sqrt(u @ u)", "norm_u = u @ u"), ("norm_v = np.sqrt(v @ v)", "norm_v = v @ v")]},
    {"name": "cosine dividing by the sum of the lengths instead of their product", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("return float(u @ v / (norm_u * norm_v))", "return float(u @ v / (norm_u + norm_v))")]},
    {"name": "cosine returning the absolute value (the sign of opposite directions lost)", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("return float(u @ v / (norm_u * norm_v))", "return float(abs(u @ v) / (norm_u * norm_v))")]},
    {"name": "cosine that checks only the first vector for zero", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("if norm_u == 0 or norm_v == 0:", "if norm_u == 0:")]},
    {"name": "cosine with an elementwise product and no length check (a length-1 vector broadcasts)", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [('    if u.shape != v.shape:\n        raise ValueError(f"u and v must have the same length; got shapes {u.shape} and {v.shape}.")\n', ""), ("return float(u @ v / (norm_u * norm_v))", "return float((u * v).sum() / (norm_u * norm_v))")]},
    {"name": "unit_rows dividing by the length of the whole matrix", "cell": "unit_rows_solution", "fails": ["unit_rows_tests"], "was": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests", "unit_rows_tests"], "replace": [("lengths = np.linalg.norm(M, axis=1, keepdims=True)", "lengths = np.linalg.norm(M)")]},
    {"name": "unit_rows dividing in place (M /= lengths changes a float64 input: np.asarray does not copy)", "cell": "unit_rows_solution", "fails": ["unit_rows_tests"], "was": ["cosine_matrix_tests", "unit_rows_tests"], "replace": [("return M / lengths", "M /= lengths\n    return M")]},
    {"name": "unit_rows without keepdims (row lengths broadcast along the columns)", "cell": "unit_rows_solution", "fails": ["unit_rows_tests"], "was": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests", "unit_rows_tests"], "replace": [("lengths = np.linalg.norm(M, axis=1, keepdims=True)", "lengths = np.linalg.norm(M, axis=1)")]},
    {"name": "unit_rows without the zero-row check (nan rows)", "cell": "unit_rows_solution", "fails": ["unit_rows_tests"], "was": ["cosine_matrix_tests", "unit_rows_tests"], "replace": [('    if np.any(lengths == 0):\n        raise ValueError("A row is all zeros, so it cannot be scaled to length 1.")\n', "")]},
    {"name": "unit_rows dividing by the squared row lengths (no square root)", "cell": "unit_rows_solution", "fails": ["unit_rows_tests"], "was": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests", "unit_rows_tests"], "replace": [("lengths = np.linalg.norm(M, axis=1, keepdims=True)", "lengths = (M ** 2).sum(axis=1, keepdims=True)")]},
    {"name": "unit_rows with a Python loop over the rows (right values; cosine_matrix's hidden check follows it)", "cell": "unit_rows_solution", "fails": ["cosine_matrix_vectorised_tests"], "replace": [("return M / lengths", "return np.array([row / np.linalg.norm(row) for row in M])")]},
    {"name": "cosine_matrix without the transpose (unit_rows(U) @ unit_rows(V))", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return unit_rows(U) @ unit_rows(V)")]},
    {"name": "cosine_matrix the wrong way round (rows of V against rows of U)", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return unit_rows(V) @ unit_rows(U).T")]},
    {"name": "cosine_matrix normalising U but not V", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return unit_rows(U) @ V.T")]},
    {"name": "cosine_matrix dividing by the lengths of the whole matrices", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return U @ V.T / (np.linalg.norm(U) * np.linalg.norm(V))")]},
    {"name": "cosine_matrix with a loop in disguise (map over the rows of U, right values)", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return np.array(list(map(lambda u: unit_rows(V) @ u, unit_rows(U))))")]},
    {"name": "cosine_matrix returning zeros of the right shape (no loop, wrong values: the vectorised point needs a right answer)", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_tests", "cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return np.zeros((U.shape[0], V.shape[0]))")]},
    # --- in-place changes of the inputs (np.asarray does not copy a float64 array); hidden check_unchanged ---
    {"name": "cosine normalising u in place (u /= norm_u changes the caller's float64 array)", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("return float(u @ v / (norm_u * norm_v))", "u /= norm_u\n    return float(u @ v / norm_v)")]},
    {"name": "cosine_matrix normalising the rows of U in place (U /= lengths changes the caller's float64 matrix)", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", _NORMALISE_U_IN_PLACE)]},
]
