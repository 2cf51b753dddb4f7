"""Known-wrong answers to 01_cosine that the autograder must catch (see CONTRIBUTING.md).

Each mutant edits the worked solution of cell ``cell`` (``replace``: ``(old, new)`` pairs, each
``old`` occurring exactly once) or, where the mistake is a different program, gives the whole cell
(``source``); after autograding, the test cells in ``fails`` must lose their points and every
other test cell must keep full marks.
"""

MUTANTS = [
    {
        "name": "cosine without normalising (raw dot product)",
        "cell": "cosine_solution",
        "replace": [("return float(u @ v / (norm_u * norm_v))", "return float(u @ v)")],
        "fails": ["cosine_tests"],
    },
    {
        "name": "cosine returns nan for a zero vector instead of raising",
        "cell": "cosine_solution",
        "replace": [('    if norm_u == 0 or norm_v == 0:\n        raise ValueError("The cosine is undefined for a zero vector.")\n',
                     "")],
        "fails": ["cosine_tests"],
    },
    {
        "name": "cosine calls the course's reference implementation",
        "cell": "cosine_solution",
        "replace": [("def cosine(u, v):", "from helpers.statistics import cosine as reference_cosine\n\n\ndef cosine(u, v):"),
                    ("return float(u @ v / (norm_u * norm_v))", "return reference_cosine(u, v)")],
        "fails": ["cosine_tests"],
    },
    {
        "name": "cosine imports the reference implementation inside the function",
        "cell": "cosine_solution",
        # only the hidden test's run-time spy on helpers.statistics sees this one
        "replace": [("return float(u @ v / (norm_u * norm_v))",
                     "import helpers.statistics\n    return helpers.statistics.cosine(u, v)")],
        "fails": ["cosine_tests"],
    },
    {
        "name": "unit_rows divides by the column lengths (axis=0)",
        "cell": "unit_rows_solution",
        "replace": [("lengths = np.linalg.norm(M, axis=1, keepdims=True)",
                     "lengths = np.linalg.norm(M, axis=0, keepdims=True)"),
                    ("if np.any(lengths == 0):", "if np.any(np.linalg.norm(M, axis=1) == 0):")],
        # cosine_matrix is built on unit_rows, so its values are wrong too; the vectorised check
        # looks only at the shape and the code, so it keeps its point
        "fails": ["unit_rows_tests", "cosine_matrix_tests"],
    },
    {
        "name": "cosine_matrix with a Python loop (right values)",
        "cell": "cosine_matrix_solution",
        "replace": [("return unit_rows(U) @ unit_rows(V).T",
                     "return np.array([[cosine(u, v) for v in V] for u in U])")],
        "fails": ["cosine_matrix_vectorised_tests"],
    },
    {
        "name": "cosine_matrix without normalising (U @ V.T)",
        "cell": "cosine_matrix_solution",
        "replace": [("return unit_rows(U) @ unit_rows(V).T", "return U @ V.T")],
        "fails": ["cosine_matrix_tests"],
    },
]
