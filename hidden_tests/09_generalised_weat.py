"""Hidden tests of 09_generalised_weat: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'lexicon': ['bootstrap_effect_sizes'], 'statistics': ['association', 'differential_association']}

def centroid_tests(nb, seed):
    """Hidden tests of the cell `centroid_tests`."""
    centroid = nb.centroid
    _rng = np.random.default_rng([seed, 9101])
    _V = _rng.normal(size=(9, 6)) * _rng.uniform(0.1, 6.0, size=(9, 1))
    with _chk.quiet():
        _c = _chk.check_unchanged(centroid, _V, what="centroid(V) on a float64 array")
    _chk.check_close(_c, (_V / np.linalg.norm(_V, axis=1, keepdims=True)).mean(axis=0), "centroid of 9 random vectors",
                rtol=1e-9, atol=1e-12)
    with _chk.quiet():
        _c1 = centroid(_V[4])
    _chk.check_close(_c1, _V[4] / np.linalg.norm(_V[4]), "centroid of a single 1-d vector", rtol=1e-9, atol=1e-12)
    with _chk.quiet():
        _chk.check_raises(lambda: centroid(np.vstack([_V, np.zeros(6)])), ValueError, "A zero row should raise ValueError")


def generalised_weat_tests(nb, seed):
    """Hidden tests of the cell `generalised_weat_tests`."""
    generalised_weat = nb.generalised_weat
    def _cen(M):
        M = np.atleast_2d(np.asarray(M, dtype=np.float64))
        return (M / np.linalg.norm(M, axis=1, keepdims=True)).mean(axis=0)
    _rng = np.random.default_rng([seed, 9202])
    _Xs = [_rng.normal(size=(k, 7)) * _rng.uniform(0.3, 4.0, size=(k, 1)) for k in (3, 6, 2)]
    _As = [_rng.normal(size=(k, 7)) for k in (4, 2, 5)]
    _Aall = np.vstack(_As + [_rng.normal(size=(3, 7))])
    _Xall = np.vstack(_Xs + [_rng.normal(size=(4, 7))])
    _mu = np.mean([_cen(X) for X in _Xs], axis=0)
    _exp3 = sum((_cen(X) - _mu) @ (_cen(A) - _cen(_Aall)) for X, A in zip(_Xs, _As))
    with _chk.quiet():
        _g3 = generalised_weat(_Xs, _As, _Xall, _Aall)
    _chk.check_own_work(generalised_weat, "association", "differential_association", "effect_size")
    _chk.check_close(_g3, _exp3, "g for three random groups of different sizes", rtol=1e-7, atol=1e-10)
    with _chk.quiet():
        _g3b = generalised_weat(_Xs, _As)
    _chk.check_close(_g3b, _exp3, "g for three groups without the universes", rtol=1e-7, atol=1e-10)
    _exp1 = (_cen(_Xs[1]) - _cen(_Xall)) @ (_cen(_As[1]) - _cen(_Aall))
    with _chk.quiet():
        _g1 = generalised_weat([_Xs[1]], [_As[1]], _Xall, _Aall)
    _chk.check_close(_g1, _exp1, "g for one group with its universes", rtol=1e-7, atol=1e-10)
    _mu2 = (_cen(_Xs[0]) + _cen(_Xs[1])) / 2
    _exp2 = (_cen(_Xs[0]) - _mu2) @ (_cen(_As[0]) - _cen(_As[1]))
    with _chk.quiet():
        _g2 = generalised_weat(_Xs[:2], _As[:2])
    _chk.check_close(_g2, _exp2, "g for two groups of unequal sizes (3 and 6 names)", rtol=1e-7, atol=1e-10)
    with _chk.quiet():
        _chk.check_raises(lambda: generalised_weat([], []), ValueError, "No groups at all should raise ValueError")
        _chk.check_raises(lambda: generalised_weat([_Xs[0], np.empty((0, 7))], _As[:2]), ValueError,
                     "An empty name group should raise ValueError")


def lemma3_rhs_tests(nb, seed):
    """Hidden tests of the cell `lemma3_rhs_tests`."""
    lemma3_rhs = nb.lemma3_rhs
    def _cen(M):
        M = np.atleast_2d(np.asarray(M, dtype=np.float64))
        return (M / np.linalg.norm(M, axis=1, keepdims=True)).mean(axis=0)
    _rng = np.random.default_rng([seed, 9303])
    _Xs = [_rng.normal(size=(k, 5)) for k in (2, 4, 3, 5)]
    _As = [_rng.normal(size=(k, 5)) for k in (3, 3, 2, 4)]
    _Xall = np.vstack(_Xs + [_rng.normal(size=(6, 5))])
    _Aall = np.vstack(_As + [_rng.normal(size=(2, 5))])
    _G = np.array([[(_cen(X) - _cen(_Xall)) @ (_cen(A) - _cen(_Aall)) for A in _As] for X in _Xs])
    with _chk.quiet():
        _rhs = lemma3_rhs(_Xs, _As, _Xall, _Aall)
    _chk.check_close(_rhs, np.trace(_G) - _G.sum() / 4, "lemma3_rhs for four random groups", rtol=1e-7, atol=1e-10)
    with _chk.quiet():
        _chk.check_raises(lambda: lemma3_rhs(_Xs, _As[:3], _Xall, _Aall), ValueError,
                     "Four groups with three attribute sets should raise ValueError")
        _chk.check_raises(lambda: lemma3_rhs(_Xs, _As, None, _Aall), ValueError,
                     "lemma3_rhs with X_all=None should raise ValueError: each one-group statistic "
                     "g(X_i, A_j) needs the universes (call generalised_weat with a single group)")


def bootstrap_effect_sizes_tests(nb, seed):
    """Hidden tests of the cell `bootstrap_effect_sizes_tests`."""
    bootstrap_effect_sizes = nb.bootstrap_effect_sizes
    def _d(X, Y, A, B):
        def _u(M):
            return M / np.linalg.norm(M, axis=1, keepdims=True)
        w = _u(A).mean(axis=0) - _u(B).mean(axis=0)
        sx, sy = _u(X) @ w, _u(Y) @ w
        return (sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1)
    _rng = np.random.default_rng([seed, 9404])
    _sets = [_rng.normal(size=(k, 6)) for k in (5, 4, 6, 3)]
    with _chk.quiet():  # helpers.lexicon has the reference
        _chk.check_own_work(bootstrap_effect_sizes, "bootstrap_effect_sizes", what="`bootstrap_effect_sizes`",
                            run=lambda: bootstrap_effect_sizes(*[S.copy() for S in _sets], n_resamples=3,
                                                               rng=np.random.default_rng([seed, 1])))
    _r = np.random.default_rng([seed, 77])
    _exp = []
    for _b in range(40):
        _pick = [S[_r.integers(0, len(S), size=len(S))] for S in _sets]
        _exp.append(_d(*_pick))
    with _chk.quiet():
        _got = _chk.check_unchanged(bootstrap_effect_sizes, *_sets, n_resamples=40, rng=np.random.default_rng([seed, 77]),
                                    what="bootstrap_effect_sizes(X, Y, A, B, ...) on float64 arrays")
    _chk.check_shape(_got, (40,), "bootstrap_effect_sizes with n_resamples=40")
    _chk.check_close(_got, np.array(_exp), "The bootstrap effect sizes on random sets of sizes 5, 4, 6 and 3",
                rtol=1e-6, atol=1e-9, hint="Check the draws (for each replicate in turn: X, Y, A, then B, one "
                "rng.integers(0, len(S), size=len(S)) call each) and each replicate's effect size (cosines, "
                "means over the words of A and B, standard deviation with ddof=1).")
    with _chk.quiet():
        _chk.check_raises(lambda: bootstrap_effect_sizes(_sets[0][:0], *_sets[1:], n_resamples=3, rng=np.random.default_rng([seed, 0])),
                     ValueError, "An empty target set should raise ValueError")
        _chk.check_raises(lambda: bootstrap_effect_sizes(_sets[0], _sets[1], np.vstack([_sets[2], np.zeros(6)]), _sets[3],
                                                         n_resamples=3, rng=np.random.default_rng([seed, 0])),
                     ValueError, "An attribute set with a zero vector should raise ValueError")
        _chk.check_raises(lambda: bootstrap_effect_sizes(*_sets, n_resamples=3, rng=0), TypeError,
                     "rng=0 (an int seed, not a numpy.random.Generator) should raise TypeError")
        _undefined = bootstrap_effect_sizes(np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[1.0, 0.0]]),
                                            np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), n_resamples=3,
                                            rng=np.random.default_rng([seed, 2]))
    _chk.check_close(np.isnan(_undefined), np.ones(3),
                     "Whether each replicate is NaN when X and Y hold the same word (all scores equal)",
                     hint="The effect size is 0/0 there: the docstring asks for NaN.")
