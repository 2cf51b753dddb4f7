"""Known-wrong answers for 02_association: the nbgrader round trip must catch each of them.

Each mutant replaces the source of one solution cell (``cell``); the test cells listed in
``fails`` must lose their points and every other test cell must keep full marks.
"""

MUTANTS = [
    {
        "name": "association with sums of cosines instead of means",
        "cell": "association",
        "source": '''def association(w, A, B):
    w, A, B = (np.asarray(v, dtype=float) for v in (w, A, B))
    if w.ndim != 1:
        raise ValueError("w must be one vector")
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    return float(cosine_matrix(w[None, :], A).sum() - cosine_matrix(w[None, :], B).sum())
''',
        "fails": ["association_tests"],
    },
    {
        "name": "association with plain dot products (vectors not normalised)",
        "cell": "association",
        "source": '''def association(w, A, B):
    w, A, B = (np.asarray(v, dtype=float) for v in (w, A, B))
    if w.ndim != 1:
        raise ValueError("w must be one vector")
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    return float((A @ w).mean() - (B @ w).mean())
''',
        "fails": ["association_tests"],
    },
    {
        "name": "association that calls the course's reference implementation",
        "cell": "association",
        "source": '''from helpers.statistics import association as reference_association

def association(w, A, B):
    w = np.asarray(w, dtype=float)
    if w.ndim != 1:
        raise ValueError("w must be one vector")
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    return reference_association(w, A, B)
''',
        "fails": ["association_tests"],
    },
    {
        "name": "association that calls the reference through the full module path (only the run-time spy sees it)",
        "cell": "association",
        "source": '''import helpers.statistics

def association(w, A, B):
    w = np.asarray(w, dtype=float)
    if w.ndim != 1:
        raise ValueError("w must be one vector")
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    return helpers.statistics.association(w, A, B)
''',
        "fails": ["association_tests"],
    },
    {
        "name": "associations with row sums of the cosine matrices instead of row means",
        "cell": "associations",
        "source": '''def associations(W, A, B):
    W, A, B = (np.asarray(v, dtype=float) for v in (W, A, B))
    if W.ndim != 2:
        raise ValueError("W must be a matrix")
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    return cosine_matrix(W, A).sum(axis=1) - cosine_matrix(W, B).sum(axis=1)
''',
        "fails": ["associations_tests", "score_words_tests"],
    },
    {
        "name": "associations that normalises the target words but not the attribute words",
        "cell": "associations",
        "source": '''def associations(W, A, B):
    W, A, B = (np.asarray(v, dtype=float) for v in (W, A, B))
    if W.ndim != 2:
        raise ValueError("W must be a matrix")
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    Wh = W / np.linalg.norm(W, axis=1, keepdims=True)
    return (Wh @ A.T).mean(axis=1) - (Wh @ B.T).mean(axis=1)
''',
        "fails": ["associations_tests", "score_words_tests"],
    },
    {
        "name": "associations that returns a column (n, 1) instead of a 1-D array",
        "cell": "associations",
        "source": '''def associations(W, A, B):
    W, A, B = (np.asarray(v, dtype=float) for v in (W, A, B))
    if W.ndim != 2:
        raise ValueError("W must be a matrix")
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    return (cosine_matrix(W, A).mean(axis=1) - cosine_matrix(W, B).mean(axis=1))[:, None]
''',
        "fails": ["associations_tests", "score_words_tests"],
    },
    {
        "name": "score_words that reports only the missing target words, not the missing attribute words",
        "cell": "score_words",
        "source": '''def score_words(kv, targets, attr_a, attr_b):
    found_t, found_a, found_b = lookup(kv, targets), lookup(kv, attr_a), lookup(kv, attr_b)
    if not found_t.words or not found_a.words or not found_b.words:
        raise ValueError("a word list has no word in the embedding")
    return list(found_t.words), associations(found_t.vectors, found_a.vectors, found_b.vectors), found_t.missing
''',
        "fails": ["score_words_tests"],
    },
    {
        "name": "score_words that returns an empty result instead of raising when no target word is found",
        "cell": "score_words",
        "source": '''def score_words(kv, targets, attr_a, attr_b):
    found_t, found_a, found_b = lookup(kv, targets), lookup(kv, attr_a), lookup(kv, attr_b)
    missing = found_t.missing + found_a.missing + found_b.missing
    if not found_t.words:
        return [], np.empty(0), missing
    return list(found_t.words), associations(found_t.vectors, found_a.vectors, found_b.vectors), missing
''',
        "fails": ["score_words_tests"],
    },
]
