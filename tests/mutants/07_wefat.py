"""Known-wrong answers for 07_wefat: the nbgrader round trip must catch each of them.

Each mutant replaces the source of one solution cell (``cell``); the test cells listed in
``fails`` must lose their points and every other test cell must keep full marks.
``wefat_correlation`` calls the student's ``wefat_score`` and ``drop_least_namelike``, so a
wrong score (or a wrong filter) also makes its scores (or its filtered names) wrong.
"""

MUTANTS = [
    {
        "name": "WEFAT score with the population standard deviation whatever ddof says",
        "cell": "wefat_score",
        "source": '''def wefat_score(W, A, B, ddof=1):
    W, A, B = (np.asarray(M, dtype=np.float64) for M in (W, A, B))
    for M in (W, A, B):
        if M.ndim != 2 or M.shape[0] == 0:
            raise ValueError("need 2-D arrays with rows")
    if not W.shape[1] == A.shape[1] == B.shape[1]:
        raise ValueError("different lengths")
    if ddof not in (0, 1):
        raise ValueError("ddof must be 0 or 1")
    cos_a, cos_b = cosine_matrix(W, A), cosine_matrix(W, B)
    sd = np.concatenate([cos_a, cos_b], axis=1).std(axis=1)
    if np.any(sd == 0):
        raise ValueError("undefined")
    return (cos_a.mean(axis=1) - cos_b.mean(axis=1)) / sd
''',
        "fails": ["wefat_score_tests", "wefat_correlation_tests"],
    },
    {
        "name": "WEFAT score without the normalisation (the plain WEAT association)",
        "cell": "wefat_score",
        "source": '''def wefat_score(W, A, B, ddof=1):
    W, A, B = (np.asarray(M, dtype=np.float64) for M in (W, A, B))
    for M in (W, A, B):
        if M.ndim != 2 or M.shape[0] == 0:
            raise ValueError("need 2-D arrays with rows")
    if not W.shape[1] == A.shape[1] == B.shape[1]:
        raise ValueError("different lengths")
    if ddof not in (0, 1):
        raise ValueError("ddof must be 0 or 1")
    return cosine_matrix(W, A).mean(axis=1) - cosine_matrix(W, B).mean(axis=1)
''',
        "fails": ["wefat_score_tests", "wefat_correlation_tests"],
    },
    {
        "name": "WEFAT score normalised by the std of A's and B's cosines separately (averaged)",
        "cell": "wefat_score",
        "source": '''def wefat_score(W, A, B, ddof=1):
    W, A, B = (np.asarray(M, dtype=np.float64) for M in (W, A, B))
    for M in (W, A, B):
        if M.ndim != 2 or M.shape[0] == 0:
            raise ValueError("need 2-D arrays with rows")
    if not W.shape[1] == A.shape[1] == B.shape[1]:
        raise ValueError("different lengths")
    if ddof not in (0, 1):
        raise ValueError("ddof must be 0 or 1")
    cos_a, cos_b = cosine_matrix(W, A), cosine_matrix(W, B)
    sd = (cos_a.std(axis=1, ddof=ddof) + cos_b.std(axis=1, ddof=ddof)) / 2
    if np.any(sd == 0):
        raise ValueError("undefined")
    return (cos_a.mean(axis=1) - cos_b.mean(axis=1)) / sd
''',
        "fails": ["wefat_score_tests", "wefat_correlation_tests"],
    },
    {
        "name": "WEFAT score that calls the course's reference wefat_association",
        "cell": "wefat_score",
        "source": '''from helpers.statistics import wefat_association

def wefat_score(W, A, B, ddof=1):
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or W.shape[0] == 0 or np.asarray(A).shape[0] == 0:
        raise ValueError("need 2-D arrays with rows")
    return np.atleast_1d(wefat_association(W, A, B, ddof=ddof))
''',
        "fails": ["wefat_score_tests"],
    },
    {
        "name": "name-likeness filter that drops the MOST name-like words",
        "cell": "drop_least_namelike",
        "source": '''def drop_least_namelike(words, vectors, fraction=0.2):
    words = list(words)
    V = np.asarray(vectors, dtype=np.float64)
    if not 0 <= fraction < 1 or not words or V.ndim != 2 or V.shape[0] != len(words):
        raise ValueError("bad input")
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    distance = np.linalg.norm(U - U.mean(axis=0), axis=1)
    k = int(np.floor(fraction * len(words)))
    drop = set(np.argsort(distance, kind="stable")[:k].tolist())
    return [w for i, w in enumerate(words) if i not in drop], [w for i, w in enumerate(words) if i in drop]
''',
        "fails": ["drop_least_namelike_tests", "wefat_correlation_tests"],
    },
    {
        "name": "name-likeness filter that rounds fraction * n instead of rounding down",
        "cell": "drop_least_namelike",
        "source": '''def drop_least_namelike(words, vectors, fraction=0.2):
    words = list(words)
    V = np.asarray(vectors, dtype=np.float64)
    if not 0 <= fraction < 1 or not words or V.ndim != 2 or V.shape[0] != len(words):
        raise ValueError("bad input")
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    distance = np.linalg.norm(U - U.mean(axis=0), axis=1)
    k = int(round(fraction * len(words)))
    drop = set(np.argsort(-distance, kind="stable")[:k].tolist())
    return [w for i, w in enumerate(words) if i not in drop], [w for i, w in enumerate(words) if i in drop]
''',
        "fails": ["drop_least_namelike_tests"],
    },
    {
        "name": "name-likeness filter with the centroid of the raw (not unit-length) vectors",
        "cell": "drop_least_namelike",
        "source": '''def drop_least_namelike(words, vectors, fraction=0.2):
    words = list(words)
    V = np.asarray(vectors, dtype=np.float64)
    if not 0 <= fraction < 1 or not words or V.ndim != 2 or V.shape[0] != len(words):
        raise ValueError("bad input")
    distance = np.linalg.norm(V - V.mean(axis=0), axis=1)
    k = int(np.floor(fraction * len(words)))
    drop = set(np.argsort(-distance, kind="stable")[:k].tolist())
    return [w for i, w in enumerate(words) if i not in drop], [w for i, w in enumerate(words) if i in drop]
''',
        "fails": ["drop_least_namelike_tests", "wefat_correlation_tests"],
    },
    {
        "name": "wefat_correlation that regresses the scores on the values (slope the wrong way round)",
        "cell": "wefat_correlation",
        "source": '''def wefat_correlation(kv, words, values, A=FEMALE_TERMS, B=MALE_TERMS, *, fraction=0.0):
    words = list(words)
    values = np.asarray(values, dtype=np.float64)
    if len(words) != len(values):
        raise ValueError("lengths differ")
    vec = lambda ws: np.array([kv[w.lower()] for w in ws], dtype=np.float64)
    found = [i for i, w in enumerate(words) if w.lower() in kv.key_to_index]
    missing = [w for w in words if w.lower() not in kv.key_to_index]
    used, used_values = [words[i] for i in found], values[found]
    dropped = []
    if fraction > 0:
        kept, dropped = drop_least_namelike(used, vec(used), fraction)
        mask = np.array([w not in set(dropped) for w in used])
        used, used_values = [w for w, k in zip(used, mask) if k], used_values[mask]
    if len(used) < 3:
        raise ValueError("too few words")
    scores = wefat_score(vec(used), vec(A), vec(B))
    r, p = pearsonr(scores, used_values)
    fit = linregress(used_values, scores)
    return {"words": used, "values": used_values, "scores": scores, "r": float(r), "p": float(p),
            "slope": float(fit.slope), "intercept": float(fit.intercept), "missing": missing, "dropped": dropped}
''',
        "fails": ["wefat_correlation_tests"],
    },
    {
        "name": "wefat_correlation that keeps the values of missing words (values and words out of step)",
        "cell": "wefat_correlation",
        "source": '''def wefat_correlation(kv, words, values, A=FEMALE_TERMS, B=MALE_TERMS, *, fraction=0.0):
    words = list(words)
    values = np.asarray(values, dtype=np.float64)
    if len(words) != len(values):
        raise ValueError("lengths differ")
    vec = lambda ws: np.array([kv[w.lower()] for w in ws], dtype=np.float64)
    missing = [w for w in words if w.lower() not in kv.key_to_index]
    used = [w for w in words if w.lower() in kv.key_to_index]
    used_values = values[:len(used)]
    dropped = []
    if fraction > 0:
        kept, dropped = drop_least_namelike(used, vec(used), fraction)
        mask = np.array([w not in set(dropped) for w in used])
        used, used_values = [w for w, k in zip(used, mask) if k], used_values[mask]
    if len(used) < 3:
        raise ValueError("too few words")
    scores = wefat_score(vec(used), vec(A), vec(B))
    r, p = pearsonr(scores, used_values)
    fit = linregress(scores, used_values)
    return {"words": used, "values": used_values, "scores": scores, "r": float(r), "p": float(p),
            "slope": float(fit.slope), "intercept": float(fit.intercept), "missing": missing, "dropped": dropped}
''',
        "fails": ["wefat_correlation_tests"],
    },
    {
        "name": "WEFAT score that imports the reference wefat_association inside the function",
        "cell": "wefat_score",
        "source": '''def wefat_score(W, A, B, ddof=1):
    import helpers.statistics as h
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or W.shape[0] == 0 or np.asarray(A).shape[0] == 0:
        raise ValueError("need 2-D arrays with rows")
    return np.atleast_1d(h.wefat_association(W, A, B, ddof=ddof))
''',
        "fails": ["wefat_score_tests"],
    },
    {
        "name": "name-likeness filter that imports the reference name_likeness inside the function",
        "cell": "drop_least_namelike",
        "source": '''def drop_least_namelike(words, vectors, fraction=0.2):
    from helpers.wefat import name_likeness
    words = list(words)
    V = np.asarray(vectors, dtype=np.float64)
    if not 0 <= fraction < 1 or not words or V.ndim != 2 or V.shape[0] != len(words):
        raise ValueError("bad input")
    k = int(np.floor(fraction * len(words)))
    drop = set(np.argsort(name_likeness(V), kind="stable")[:k].tolist())
    return [w for i, w in enumerate(words) if i not in drop], [w for i, w in enumerate(words) if i in drop]
''',
        "fails": ["drop_least_namelike_tests"],
    },
]
