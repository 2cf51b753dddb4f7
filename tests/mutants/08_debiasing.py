"""Known-wrong answers to 08_debiasing that the autograder must catch (see CONTRIBUTING.md).

Each mutant replaces the solution cell ``cell`` with ``source``; after autograding, the test
cells in ``fails`` must lose their points and every other test cell must keep full marks.
Exercises that call ``project_out`` (``remaining_gap``, ``projected_keyedvectors``) inherit its
mistakes, so a wrong ``project_out`` loses their points too.
"""

MUTANTS = [
    {
        "name": "project_out without renormalising the projected vectors",
        "cell": "project_out",
        "source": '''
def project_out(V, direction):
    g = np.asarray(direction, dtype=np.float64).ravel()
    W = np.asarray(V, dtype=np.float64)
    single = W.ndim == 1
    W = np.atleast_2d(W)
    norm = np.linalg.norm(g)
    if norm == 0:
        raise ValueError("zero direction")
    if W.shape[1] != g.size:
        raise ValueError("wrong length")
    g = g / norm
    P = W - np.outer(W @ g, g)
    if (np.linalg.norm(P, axis=1) < 1e-12).any():
        raise ValueError("parallel")
    return P[0] if single else P
''',
        "fails": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"],
    },
    {
        "name": "project_out without normalising the direction",
        "cell": "project_out",
        "source": '''
def project_out(V, direction):
    g = np.asarray(direction, dtype=np.float64).ravel()
    W = np.asarray(V, dtype=np.float64)
    single = W.ndim == 1
    W = np.atleast_2d(W)
    if not np.linalg.norm(g) > 0:
        raise ValueError("zero direction")
    if W.shape[1] != g.size:
        raise ValueError("wrong length")
    P = W - np.outer(W @ g, g)
    lengths = np.linalg.norm(P, axis=1, keepdims=True)
    if (lengths < 1e-12).any():
        raise ValueError("parallel")
    P = P / lengths
    return P[0] if single else P
''',
        "fails": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"],
    },
    {
        "name": "gender_direction from the raw (not unit) word vectors",
        "cell": "gender_direction",
        "source": '''
def gender_direction(kv, pairs):
    pairs = list(pairs)
    if not pairs:
        raise ValueError("empty")
    total = sum(np.asarray(kv[m], dtype=np.float64) - np.asarray(kv[f], dtype=np.float64) for m, f in pairs)
    norm = np.linalg.norm(total)
    if not norm > 1e-12:
        raise ValueError("zero")
    return total / norm
''',
        "fails": ["gender_direction_tests"],
    },
    {
        "name": "remaining_gap as the mean cosine distance (1 - cos) instead of the Euclidean distance",
        "cell": "remaining_gap",
        "source": '''
def remaining_gap(kv, pairs, direction):
    pairs = list(pairs)
    if not pairs:
        raise ValueError("empty")
    M = project_out(np.array([kv[m] for m, _ in pairs], dtype=np.float64), direction)
    F = project_out(np.array([kv[f] for _, f in pairs], dtype=np.float64), direction)
    return float((1 - (M * F).sum(axis=1)).mean())
''',
        "fails": ["remaining_gap_tests"],
    },
    {
        "name": "projected_keyedvectors uses the words as written (no case handling)",
        "cell": "projected_keyedvectors",
        "source": '''
def projected_keyedvectors(kv, words, direction):
    keys = [w for w in dict.fromkeys(words) if w in kv.key_to_index]
    if not keys:
        raise ValueError("none found")
    V = np.array([kv[k] for k in keys], dtype=np.float64)
    out = KeyedVectors(kv.vector_size)
    out.add_vectors(keys, project_out(V, direction).astype(np.float32))
    return out
''',
        "fails": ["projected_keyedvectors_tests"],
    },
]
