"""Hidden tests of 09_generalised_weat: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function (a proxy: calls run in the student's kernel on plain data), ``seed`` this
submission's seed. Expected values are computed here: the centroids and g from their definitions
(the course has no reference for them), the bootstrap with the reference (:mod:`helpers.lexicon`).
"""

import ast

import numpy as np

from helpers import lexicon as _reference
from helpers.grading.judge import function_definition
from helpers.grading.judge import checks as _chk

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
#: (helpers.statistics stays: the notebook's narrative uses effect_size and run_table1; generalised_weat's
#: own work is a rule on its code, in generalised_weat_tests.)
REFERENCES = {"lexicon": ["bootstrap_effect_sizes"]}


def _centroid(M) -> np.ndarray:
    """The mean of the unit rows of ``M`` (a single vector counts as one row); ValueError for no rows or a zero row.

    Also the stand-in for the notebook's ``centroid`` while ``generalised_weat`` is judged (it runs in the kernel).
    """
    M = np.atleast_2d(np.asarray(M, dtype=np.float64))
    norms = np.linalg.norm(M, axis=1, keepdims=True)
    if M.shape[0] == 0 or (norms == 0).any():
        raise ValueError("A centroid needs at least one vector, and no zero vector.")
    return (M / norms).mean(axis=0)


def _generalised_weat(X_groups, A_groups, X_all=None, A_all=None) -> float:
    """g of Swinger et al. (2019) from its definition, with the exercise's errors: the stand-in for the notebook's
    ``generalised_weat`` while ``lemma3_rhs`` is judged (it runs in the kernel)."""
    X_groups, A_groups = list(X_groups), list(A_groups)
    n = len(X_groups)
    if n == 0 or len(A_groups) != n or (n == 1 and (X_all is None or A_all is None)):
        raise ValueError("g needs n >= 1 groups paired with n attribute sets, and both universes when n = 1.")
    x_bars = [_centroid(X) for X in X_groups]
    a_all = _centroid(A_all if A_all is not None else np.vstack([np.atleast_2d(A) for A in A_groups]))
    mu = _centroid(X_all) if n == 1 else np.mean(x_bars, axis=0)
    return float(sum((xb - mu) @ (_centroid(A) - a_all) for xb, A in zip(x_bars, A_groups)))


def _g_one(X, A, X_all, A_all) -> float:
    """The one-group statistic g(X, A) = (centroid(X) - centroid(X_all)) . (centroid(A) - centroid(A_all))."""
    return float((_centroid(X) - _centroid(X_all)) @ (_centroid(A) - _centroid(A_all)))


def centroid_tests(nb, seed):
    """Nine random vectors of very different lengths, one 1-d vector, a zero row; input unchanged."""
    centroid = nb.centroid
    rng = np.random.default_rng([seed, 9101])
    V = rng.normal(size=(9, 6)) * rng.uniform(0.1, 6.0, size=(9, 1))
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        with each:
            c = _chk.check_unchanged(centroid, V, what="centroid(V) on a float64 array")
            _chk.check_close(c, _centroid(V), "centroid of 9 random vectors", rtol=1e-9, atol=1e-12)
        with each:
            _chk.check_close(centroid(V[4]), V[4] / np.linalg.norm(V[4]), "centroid of a single 1-d vector",
                             rtol=1e-9, atol=1e-12)
        with each:
            _chk.check_raises(lambda: centroid(np.vstack([V, np.zeros(6)])), ValueError,
                              "A zero row should raise ValueError")


def generalised_weat_tests(nb, seed):
    """Three, two and one random groups of different sizes, with and without the universes; errors; own work.

    Judged with the course's ``centroid`` in place of the notebook's: a wrong ``centroid`` costs its own exercise."""
    generalised_weat = nb.generalised_weat.alone(centroid=_centroid)
    rng = np.random.default_rng([seed, 9202])
    Xs = [rng.normal(size=(k, 7)) * rng.uniform(0.3, 4.0, size=(k, 1)) for k in (3, 6, 2)]
    As = [rng.normal(size=(k, 7)) for k in (4, 2, 5)]
    A_all = np.vstack(As + [rng.normal(size=(3, 7))])
    X_all = np.vstack(Xs + [rng.normal(size=(4, 7))])
    mu3 = np.mean([_centroid(X) for X in Xs], axis=0)
    g3 = sum((_centroid(X) - mu3) @ (_centroid(A) - _centroid(A_all)) for X, A in zip(Xs, As))
    mu2 = (_centroid(Xs[0]) + _centroid(Xs[1])) / 2
    g2 = (_centroid(Xs[0]) - mu2) @ (_centroid(As[0]) - _centroid(As[1]))
    _chk.check_own_work(generalised_weat, "association", "differential_association", "effect_size")
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        with each:
            _chk.check_close(generalised_weat(Xs, As, X_all, A_all), g3,
                             "g for three random groups of different sizes", rtol=1e-7, atol=1e-10)
        with each:
            # for n >= 2 the deviations from mu add up to zero, so A_all drops out: the same g without universes
            _chk.check_close(generalised_weat(Xs, As), g3, "g for three groups without the universes",
                             rtol=1e-7, atol=1e-10)
        with each:
            _chk.check_close(generalised_weat([Xs[1]], [As[1]], X_all, A_all), _g_one(Xs[1], As[1], X_all, A_all),
                             "g for one group with its universes", rtol=1e-7, atol=1e-10)
        with each:
            _chk.check_close(generalised_weat(Xs[:2], As[:2]), g2, "g for two groups of unequal sizes (3 and 6 names)",
                             rtol=1e-7, atol=1e-10)
        with each:
            _chk.check_raises(lambda: generalised_weat([], []), ValueError, "No groups at all should raise ValueError")
            _chk.check_raises(lambda: generalised_weat([Xs[0], np.empty((0, 7))], As[:2]), ValueError,
                              "An empty name group should raise ValueError")
    return _chk.callee_note(generalised_weat, Xs, As, X_all, A_all)


def _calls_with_all_groups(name: str, callee: str) -> list[str]:
    """The calls of ``callee`` in the notebook's function ``name`` (read from its source) that pass the function's
    first or second parameter (the whole lists of groups), as it is or as ``list(...)``/``tuple(...)`` of it.

    By Lemma 3 the right-hand side equals g of all the groups whatever the universes, so no value tells a
    shortcut from the one-group sum: only the code can. Like every rule that reads code, it misses a shortcut
    hidden well enough (another name for the list, a helper function).
    """
    fn = function_definition(name)
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args][:2]

    def whole(node) -> bool:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") \
                and len(node.args) == 1:
            node = node.args[0]
        return isinstance(node, ast.Name) and node.id in params

    found = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            arguments = list(node.args[:2]) + [k.value for k in node.keywords if k.arg in ("X_groups", "A_groups")]
            if called == callee and any(whole(a) for a in arguments):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def lemma3_rhs_tests(nb, seed):
    """Four random groups with universes larger than the groups; mismatched lists; a missing universe.

    Judged with the course's ``generalised_weat`` in place of the notebook's: a wrong ``generalised_weat`` (or
    ``centroid``) costs its own exercise."""
    lemma3_rhs = nb.lemma3_rhs.alone(generalised_weat=_generalised_weat)
    rng = np.random.default_rng([seed, 9303])
    Xs = [rng.normal(size=(k, 5)) for k in (2, 4, 3, 5)]
    As = [rng.normal(size=(k, 5)) for k in (3, 3, 2, 4)]
    X_all = np.vstack(Xs + [rng.normal(size=(6, 5))])
    A_all = np.vstack(As + [rng.normal(size=(2, 5))])
    G = np.array([[_g_one(X, A, X_all, A_all) for A in As] for X in Xs])
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        with each:
            _chk.check_close(lemma3_rhs(Xs, As, X_all, A_all), np.trace(G) - G.sum() / 4,
                             "lemma3_rhs for four random groups", rtol=1e-7, atol=1e-10)
        with each:
            _chk.check_raises(lambda: lemma3_rhs(Xs, As[:3], X_all, A_all), ValueError,
                              "Four groups with three attribute sets should raise ValueError")
        with each:
            _chk.check_raises(lambda: lemma3_rhs(Xs, As, None, A_all), ValueError,
                              "lemma3_rhs with X_all=None should raise ValueError: each one-group statistic "
                              "g(X_i, A_j) needs the universes (call generalised_weat with a single group)")
        with each:
            shortcut = _calls_with_all_groups("lemma3_rhs", "generalised_weat")
            assert not shortcut, ("`lemma3_rhs` calls generalised_weat with all the groups (" + "; ".join(shortcut)
                                  + "). By Lemma 3 that is the left-hand side; Exercise 3 asks for the right-hand side "
                                  "from the one-group statistics, generalised_weat([X_i], [A_j], X_all, A_all) for "
                                  "every pair (i, j).")
    return _chk.callee_note(lemma3_rhs, Xs, As, X_all, A_all)


def bootstrap_effect_sizes_tests(nb, seed):
    """40 replicates on random sets of different sizes (the draws in the docstring's order), an int seed, errors,
    NaN for equal scores, inputs unchanged, own work."""
    bootstrap_effect_sizes = nb.bootstrap_effect_sizes
    rng = np.random.default_rng([seed, 9404])
    sets = [rng.normal(size=(k, 6)) for k in (5, 4, 6, 3)]
    expected = _reference.bootstrap_effect_sizes(*sets, n_resamples=40, rng=np.random.default_rng([seed, 77]))
    key = int(rng.integers(2**31))
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        _chk.check_own_work(bootstrap_effect_sizes, "bootstrap_effect_sizes", what="`bootstrap_effect_sizes`",
                            run=lambda: bootstrap_effect_sizes(*sets, n_resamples=3, rng=np.random.default_rng(1)))
        with each:
            got = _chk.check_unchanged(bootstrap_effect_sizes, *sets, n_resamples=40,
                                       rng=np.random.default_rng([seed, 77]),
                                       what="bootstrap_effect_sizes(X, Y, A, B, ...) on float64 arrays")
            _chk.check_shape(got, (40,), "bootstrap_effect_sizes with n_resamples=40")
            _chk.check_close(got, expected, "The bootstrap effect sizes on random sets of sizes 5, 4, 6 and 3",
                             rtol=1e-6, atol=1e-9, hint="Check the draws (for each replicate in turn: X, Y, A, then B, "
                             "one rng.integers(0, len(S), size=len(S)) call each) and each replicate's effect size "
                             "(cosines, means over the words of A and B, standard deviation with ddof=1).")
        with each:
            _chk.check_raises(lambda: bootstrap_effect_sizes(sets[0][:0], *sets[1:], n_resamples=3,
                                                             rng=np.random.default_rng(0)),
                              ValueError, "An empty target set should raise ValueError")
        with each:
            _chk.check_raises(lambda: bootstrap_effect_sizes(sets[0], sets[1], np.vstack([sets[2], np.zeros(6)]),
                                                             sets[3], n_resamples=3, rng=np.random.default_rng(0)),
                              ValueError, "An attribute set with a zero vector should raise ValueError")
        with each:
            # a seed in place of a Generator (the course's convention, notebook 5): np.random.default_rng(seed)
            _chk.check_close(bootstrap_effect_sizes(*sets, n_resamples=10, rng=key),
                             _reference.bootstrap_effect_sizes(*sets, n_resamples=10, rng=np.random.default_rng(key)),
                             "bootstrap_effect_sizes(X, Y, A, B, n_resamples=10, rng=seed) with an int seed",
                             rtol=1e-6, atol=1e-9, hint="rng may be a seed or a Generator: draw from "
                             "np.random.default_rng(rng).")
        with each:
            undefined = bootstrap_effect_sizes(np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([[1.0, 0.0]]),
                                               np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), n_resamples=3,
                                               rng=np.random.default_rng(2))
            _chk.check_close(np.isnan(undefined), np.ones(3),
                             "Whether each replicate is NaN when X and Y hold the same word (all scores equal)",
                             hint="The effect size is 0/0 there: the docstring asks for NaN.")
