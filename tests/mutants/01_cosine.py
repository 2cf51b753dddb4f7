"""Known-wrong answers to 01_cosine that the autograder must catch (see CONTRIBUTING.md).

Each mutant replaces the solution cell ``cell`` with ``source``; after autograding, the test
cells in ``fails`` must lose their points and every other test cell must keep full marks.
"""

MUTANTS = [
    {
        "name": "cosine without normalising (raw dot product)",
        "cell": "cosine_solution",
        "source": '''
def cosine(u, v):
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    if u.shape != v.shape:
        raise ValueError("different lengths")
    if not u.any() or not v.any():
        raise ValueError("zero vector")
    return float(u @ v)
''',
        "fails": ["cosine_tests"],
    },
    {
        "name": "cosine returns nan for a zero vector instead of raising",
        "cell": "cosine_solution",
        "source": '''
def cosine(u, v):
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    if u.shape != v.shape:
        raise ValueError("different lengths")
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
''',
        "fails": ["cosine_tests"],
    },
    {
        "name": "cosine calls the course's reference implementation",
        "cell": "cosine_solution",
        "source": '''
from helpers.statistics import cosine as reference_cosine


def cosine(u, v):
    return reference_cosine(u, v)
''',
        "fails": ["cosine_tests"],
    },
    {
        "name": "cosine imports the reference implementation inside the function",
        "cell": "cosine_solution",
        "source": '''
def cosine(u, v):
    import helpers.statistics
    return helpers.statistics.cosine(u, v)
''',
        # helpers.checks.check_own_work does not see this one; the hidden test's spy on
        # helpers.statistics does
        "fails": ["cosine_tests"],
    },
    {
        "name": "unit_rows divides by the column lengths (axis=0)",
        "cell": "unit_rows_solution",
        "source": '''
def unit_rows(M):
    M = np.asarray(M, dtype=float)
    lengths = np.linalg.norm(M, axis=0, keepdims=True)
    if np.any(np.linalg.norm(M, axis=1) == 0):
        raise ValueError("zero row")
    return M / lengths
''',
        # cosine_matrix is built on unit_rows, so its values are wrong too; the vectorised check
        # looks only at the shape and the code, so it keeps its point
        "fails": ["unit_rows_tests", "cosine_matrix_tests"],
    },
    {
        "name": "cosine_matrix with a Python loop (right values)",
        "cell": "cosine_matrix_solution",
        "source": '''
def cosine_matrix(U, V):
    return np.array([[cosine(u, v) for v in np.asarray(V, dtype=float)] for u in np.asarray(U, dtype=float)])
''',
        "fails": ["cosine_matrix_vectorised_tests"],
    },
    {
        "name": "cosine_matrix without normalising (U @ V.T)",
        "cell": "cosine_matrix_solution",
        "source": '''
def cosine_matrix(U, V):
    return np.asarray(U, dtype=float) @ np.asarray(V, dtype=float).T
''',
        "fails": ["cosine_matrix_tests"],
    },
]
