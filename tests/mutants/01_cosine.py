"""Known-wrong answers to 01_cosine that the autograder must catch (format: CONTRIBUTING.md, "Mutants")."""

_ZERO_CHECK = ("    if norm_u == 0 or norm_v == 0:\n"
               '        raise ValueError("The cosine is undefined for a zero vector.")\n')
_IMPORT_REFERENCE = ("from helpers.statistics import cosine as reference_cosine\n"
                     "\n"
                     "\n"
                     "def cosine(u, v):")
_CALL_INSIDE = ("import helpers.statistics\n"
                "    return helpers.statistics.cosine(u, v)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "cosine without normalising (raw dot product)", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("return float(u @ v / (norm_u * norm_v))", "return float(u @ v)")]},
    {"name": "cosine returns nan for a zero vector instead of raising", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [(_ZERO_CHECK, "")]},
    {"name": "cosine calls the course's reference implementation", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("def cosine(u, v):", _IMPORT_REFERENCE), ("return float(u @ v / (norm_u * norm_v))", "return reference_cosine(u, v)")]},
    # check_own_work sees this one twice: it reads imports inside the function, and its run-time spy watches the call
    {"name": "cosine imports the reference implementation inside the function", "cell": "cosine_solution", "fails": ["cosine_tests"], "replace": [("return float(u @ v / (norm_u * norm_v))", _CALL_INSIDE)]},
    # cosine_matrix is built on unit_rows, so its values are wrong too; the vectorised check
    # looks only at the shape and the code, so it keeps its point
    {"name": "unit_rows divides by the column lengths (axis=0)", "cell": "unit_rows_solution", "fails": ["unit_rows_tests", "cosine_matrix_tests"], "replace": [("lengths = np.linalg.norm(M, axis=1, keepdims=True)", "lengths = np.linalg.norm(M, axis=0, keepdims=True)"), ("if np.any(lengths == 0):", "if np.any(np.linalg.norm(M, axis=1) == 0):")]},
    {"name": "cosine_matrix with a Python loop (right values)", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_vectorised_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return np.array([[cosine(u, v) for v in V] for u in U])")]},
    {"name": "cosine_matrix without normalising (U @ V.T)", "cell": "cosine_matrix_solution", "fails": ["cosine_matrix_tests"], "replace": [("return unit_rows(U) @ unit_rows(V).T", "return U @ V.T")]},
]
