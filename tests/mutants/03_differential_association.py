"""Known-wrong answers for 03_differential_association: the nbgrader round trip must catch each of them.

Each mutant replaces the source of one solution cell (``cell``); the test cells listed in
``fails`` must lose their points and every other test cell must keep full marks.
"""

MUTANTS = [
    {
        "name": "differential association with means of the per-word scores instead of sums",
        "cell": "differential_association",
        "source": '''def differential_association(X, Y, A, B):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if len(X) != len(Y):
        raise ValueError(f"X has {len(X)} words and Y has {len(Y)}")
    if len(X) == 0 or len(A) == 0 or len(B) == 0:
        raise ValueError("empty set")
    return float(association(X, A, B).mean() - association(Y, A, B).mean())
''',
        "fails": ["differential_association_tests"],
    },
    {
        "name": "differential association without the equal-size check",
        "cell": "differential_association",
        "source": '''def differential_association(X, Y, A, B):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if len(X) == 0 or len(Y) == 0 or len(A) == 0 or len(B) == 0:
        raise ValueError("empty set")
    return float(association(X, A, B).sum() - association(Y, A, B).sum())
''',
        "fails": ["differential_association_tests"],
    },
    {
        "name": "differential association with plain dot products (vectors not normalised)",
        "cell": "differential_association",
        "source": '''def differential_association(X, Y, A, B):
    X, Y, A, B = (np.asarray(v, dtype=float) for v in (X, Y, A, B))
    if len(X) != len(Y):
        raise ValueError(f"X has {len(X)} words and Y has {len(Y)}")
    if len(X) == 0 or len(A) == 0 or len(B) == 0:
        raise ValueError("empty set")
    return float(((X @ A.T).mean(axis=1) - (X @ B.T).mean(axis=1)).sum()
                 - ((Y @ A.T).mean(axis=1) - (Y @ B.T).mean(axis=1)).sum())
''',
        "fails": ["differential_association_tests"],
    },
    {
        "name": "differential association that calls the course's reference implementation",
        "cell": "differential_association",
        "source": '''import helpers.statistics as st

def differential_association(X, Y, A, B):
    if len(X) == 0 or len(Y) == 0 or len(A) == 0 or len(B) == 0:
        raise ValueError("empty set")
    return st.differential_association(X, Y, A, B)
''',
        "fails": ["differential_association_tests"],
    },
    {
        "name": "attribute direction from the means of the raw attribute vectors (not normalised)",
        "cell": "attribute_direction",
        "source": '''def attribute_direction(A, B):
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    return A.mean(axis=0) - B.mean(axis=0)
''',
        "fails": ["attribute_direction_tests", "differential_association_centroid_tests"],
    },
    {
        "name": "attribute direction rescaled to unit length",
        "cell": "attribute_direction",
        "source": '''def attribute_direction(A, B):
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    if len(A) == 0 or len(B) == 0:
        raise ValueError("empty attribute set")
    d = unit_rows(A).mean(axis=0) - unit_rows(B).mean(axis=0)
    return d / np.linalg.norm(d)
''',
        "fails": ["attribute_direction_tests", "differential_association_centroid_tests"],
    },
    {
        "name": "centroid form with the raw target vectors (not normalised)",
        "cell": "differential_association_centroid",
        "source": '''def differential_association_centroid(X, Y, A, B):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if len(X) != len(Y):
        raise ValueError(f"X has {len(X)} words and Y has {len(Y)}")
    if len(X) == 0:
        raise ValueError("empty target sets")
    return float((X.sum(axis=0) - Y.sum(axis=0)) @ attribute_direction(A, B))
''',
        "fails": ["differential_association_centroid_tests"],
    },
    {
        "name": "centroid form with the means of the target vectors instead of their sums",
        "cell": "differential_association_centroid",
        "source": '''def differential_association_centroid(X, Y, A, B):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if len(X) != len(Y):
        raise ValueError(f"X has {len(X)} words and Y has {len(Y)}")
    if len(X) == 0:
        raise ValueError("empty target sets")
    return float((unit_rows(X).mean(axis=0) - unit_rows(Y).mean(axis=0)) @ attribute_direction(A, B))
''',
        "fails": ["differential_association_centroid_tests"],
    },
    {
        "name": "centroid exercise answered with the per-word associations instead of the centroid form",
        "cell": "differential_association_centroid",
        "source": '''def differential_association_centroid(X, Y, A, B):
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if len(X) != len(Y):
        raise ValueError(f"X has {len(X)} words and Y has {len(Y)}")
    if len(X) == 0:
        raise ValueError("empty target sets")
    return float(association(X, A, B).sum() - association(Y, A, B).sum())
''',
        "fails": ["differential_association_centroid_tests"],
    },
    {
        "name": "centroid exercise answered through the full module path of the reference (only the run-time spy sees it)",
        "cell": "differential_association_centroid",
        "source": '''import helpers.statistics

def differential_association_centroid(X, Y, A, B):
    if len(X) != len(Y):
        raise ValueError(f"X has {len(X)} words and Y has {len(Y)}")
    if len(X) == 0:
        raise ValueError("empty target sets")
    return helpers.statistics.differential_association(X, Y, A, B)
''',
        "fails": ["differential_association_centroid_tests"],
    },
]
