"""Known-wrong answers to 09_generalised_weat that the autograder must catch (see CONTRIBUTING.md).

Each mutant replaces the solution cell ``cell`` with ``source``; after autograding, the test
cells in ``fails`` must lose their points and every other test cell must keep full marks.
``generalised_weat`` calls ``centroid`` and ``lemma3_rhs`` calls ``generalised_weat``, so their
mistakes propagate along that chain (the hidden tests compute expected values independently).
"""

MUTANTS = [
    {
        "name": "g with sums of unit vectors instead of centroids (wrong normalisation, breaks Lemma 1)",
        "cell": "generalised_weat",
        "source": '''
def generalised_weat(X_groups, A_groups, X_all=None, A_all=None):
    X_groups, A_groups = list(X_groups), list(A_groups)
    n = len(X_groups)
    if n == 0 or len(A_groups) != n:
        raise ValueError("groups")
    if n == 1 and (X_all is None or A_all is None):
        raise ValueError("universes")
    def total(M):
        M = np.atleast_2d(np.asarray(M, dtype=np.float64))
        if M.shape[0] == 0:
            raise ValueError("empty")
        return (M / np.linalg.norm(M, axis=1, keepdims=True)).sum(axis=0)
    x_bars = [total(X) for X in X_groups]
    a_bars = [total(A) for A in A_groups]
    a_all = total(A_all) if A_all is not None else total(np.vstack(A_groups))
    mu = total(X_all) if n == 1 else np.mean(x_bars, axis=0)
    return float(sum((xb - mu) @ (ab - a_all) for xb, ab in zip(x_bars, a_bars)))
''',
        "fails": ["generalised_weat_tests", "lemma3_rhs_tests"],
    },
    {
        "name": "g with mu = centroid of all names pooled (groups weighted by size)",
        "cell": "generalised_weat",
        "source": '''
def generalised_weat(X_groups, A_groups, X_all=None, A_all=None):
    X_groups, A_groups = list(X_groups), list(A_groups)
    n = len(X_groups)
    if n == 0 or len(A_groups) != n:
        raise ValueError("groups")
    if n == 1 and (X_all is None or A_all is None):
        raise ValueError("universes")
    a_all = centroid(A_all) if A_all is not None else centroid(np.vstack(A_groups))
    mu = centroid(X_all) if n == 1 else centroid(np.vstack(X_groups))
    return float(sum((centroid(X) - mu) @ (centroid(A) - a_all) for X, A in zip(X_groups, A_groups)))
''',
        "fails": ["generalised_weat_tests"],
    },
    {
        "name": "centroid as the unit vector of the mean (normalised after averaging)",
        "cell": "centroid",
        "source": '''
def centroid(V):
    V = np.atleast_2d(np.asarray(V, dtype=np.float64))
    if V.shape[0] == 0:
        raise ValueError("empty")
    if (np.linalg.norm(V, axis=1) == 0).any():
        raise ValueError("zero")
    m = V.mean(axis=0)
    return m / np.linalg.norm(m)
''',
        "fails": ["centroid_tests", "generalised_weat_tests", "lemma3_rhs_tests"],
    },
    {
        "name": "lemma3_rhs without the 1/n factor on the double sum",
        "cell": "lemma3_rhs",
        "source": '''
def lemma3_rhs(X_groups, A_groups, X_all, A_all):
    X_groups, A_groups = list(X_groups), list(A_groups)
    n = len(X_groups)
    if n < 2 or len(A_groups) != n:
        raise ValueError("groups")
    G = np.array([[generalised_weat([X], [A], X_all, A_all) for A in A_groups] for X in X_groups])
    return float(np.trace(G) - G.sum())
''',
        "fails": ["lemma3_rhs_tests"],
    },
    {
        "name": "bootstrap that resamples without replacement (a permutation: d never changes)",
        "cell": "bootstrap_effect_sizes",
        "source": '''
def bootstrap_effect_sizes(X, Y, A, B, *, n_boot, rng):
    if n_boot < 1:
        raise ValueError("n_boot")
    sets = [np.atleast_2d(np.asarray(S, dtype=np.float64)) for S in (X, Y, A, B)]
    if any(S.shape[0] == 0 for S in sets):
        raise ValueError("empty")
    out = np.empty(int(n_boot))
    for b in range(int(n_boot)):
        out[b] = effect_size(*(S[rng.permutation(len(S))] for S in sets))
    return out
''',
        "fails": ["bootstrap_effect_sizes_tests"],
    },
]
