"""Hidden tests of 11_enumerating_biases: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function (a proxy: calls run in the student's kernel on plain data), ``seed`` this
submission's seed. Expected values are computed here, with the reference (:mod:`helpers.enumeration`)
and SciPy's ``false_discovery_control``. ``rotation_pvalues`` is judged with ``_random_rotation`` in place of the
notebook's ``random_rotation`` (``Remote.alone``), so that a wrong ``random_rotation`` costs its own exercise only.
"""

import numpy as np
from scipy.stats import false_discovery_control

from helpers import enumeration as _reference
from helpers.grading.judge import checks as _chk

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
#: (SciPy's false_discovery_control and helpers.enumeration.benjamini_yekutieli stay: the narrative of
#: section 6 uses benjamini_yekutieli, and benjamini_hochberg_tests reads the code for both; BY's q-values
#: of p / c(m) are BH's q-values of p.)
REFERENCES = {"enumeration": ["random_rotation", "rotation_null", "rotation_pvalues", "benjamini_hochberg"]}


def _random_rotation(d, rng) -> np.ndarray:
    """``random_rotation`` as the exercise specifies it (its recipe, draws included, and its ValueError; the worked
    solution's logic).

    The stand-in for the notebook's ``random_rotation`` while ``rotation_pvalues`` is judged (it runs in the kernel:
    NumPy and builtins only). It draws exactly as the recipe says from the Generator it is given, one
    ``standard_normal((d, d))`` per call, so the p-values match the reference's.
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError("d must be a positive whole number.")
    gen = np.random.default_rng(rng)
    Z = gen.standard_normal((d, d))
    Q, R = np.linalg.qr(Z)
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


def random_rotation_tests(nb, seed):
    """The recipe's values for d = 7, 1, 2 and 50 from hidden seeds, two successive calls with one
    generator, an int seed, d = 0; own work."""
    random_rotation = nb.random_rotation
    # each block fails alone, so the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        Q = _chk.check_own_work(random_rotation, "random_rotation", "rotation_null", "rotation_pvalues",
                                what="`random_rotation`",
                                run=lambda: random_rotation(7, np.random.default_rng([seed, 1107])))
        with each:
            _chk.check_close(Q, _reference.random_rotation(7, np.random.default_rng([seed, 1107])),
                             "random_rotation(7, rng) for a hidden seed", atol=1e-10,
                             hint="Follow the recipe: one rng.standard_normal((d, d)) draw, np.linalg.qr, then the "
                             "sign of R's diagonal applied to the columns of Q.")
        for d, key in ((1, 3), (2, 11), (50, 2019)):
            with each:
                _chk.check_close(random_rotation(d, np.random.default_rng([seed, key])),
                                 _reference.random_rotation(d, np.random.default_rng([seed, key])),
                                 f"random_rotation({d}, rng) for a hidden seed", atol=1e-10)
        with each:
            # the second call gets the generator in the state the first call left it in the kernel
            first, (_, rng_after) = random_rotation.call_returning_args(4, np.random.default_rng([seed, 5]))
            ref_rng = np.random.default_rng([seed, 5])
            _chk.check_close(np.array([first, random_rotation(4, rng_after)]),
                             np.array([_reference.random_rotation(4, ref_rng), _reference.random_rotation(4, ref_rng)]),
                             "two successive calls with one generator", atol=1e-10)
        # a seed in place of a Generator (the course's convention, notebook 5): np.random.default_rng(seed)
        key = int(np.random.default_rng([seed, 6]).integers(2**31))
        with each:
            _chk.check_close(random_rotation(5, key), _reference.random_rotation(5, np.random.default_rng(key)),
                             "random_rotation(5, seed) with an int seed", atol=1e-10,
                             hint="rng may be a seed or a Generator: draw from gen = np.random.default_rng(rng).")
        with each:
            _chk.check_raises(lambda: random_rotation(0, np.random.default_rng(0)), ValueError,
                              "d = 0 should raise ValueError")


def _pvalues(D, E, n_resamples: int, key) -> np.ndarray:
    """The reference's p-values with the generator ``numpy.random.default_rng(key)``."""
    return _reference.rotation_pvalues(D, E, n_resamples=n_resamples, rng=np.random.default_rng(key)).pvalue


def rotation_pvalues_tests(nb, seed):
    """300 rotations of random 6-d centroids, a single rotation, an int seed, errors; own work.

    Judged with the course's ``random_rotation`` in place of the notebook's: a wrong ``random_rotation`` costs its
    own exercise."""
    rotation_pvalues = nb.rotation_pvalues.alone(random_rotation=_random_rotation)
    rng = np.random.default_rng([seed, 1111])
    D, E = rng.normal(size=(3, 6)) * 0.3, rng.normal(size=(4, 6)) * 0.2
    D1 = np.vstack([D, -D.sum(axis=0)])
    key = int(rng.integers(2**31))
    # each block fails alone, so the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        p = _chk.check_own_work(rotation_pvalues, "rotation_null", "rotation_pvalues", what="`rotation_pvalues`",
                                run=lambda: rotation_pvalues(D, E, n_resamples=300,
                                                             rng=np.random.default_rng([seed, 7])))
        with each:
            _chk.check_shape(p, (3, 4), "rotation_pvalues for 3 name clusters and 4 word clusters")
            _chk.check_close(p, _pvalues(D, E, 300, [seed, 7]), "p-values of random 6-d centroids with 300 rotations",
                             atol=1e-12, hint="One random_rotation per resample, applied to D only; count values >= "
                             "the observed one.")
        with each:
            _chk.check_close(rotation_pvalues(D1, E[:2], n_resamples=1, rng=np.random.default_rng([seed, 8])),
                             _pvalues(D1, E[:2], 1, [seed, 8]), "p-values with a single rotation", atol=1e-12)
        with each:
            _chk.check_close(rotation_pvalues(D, E, n_resamples=200, rng=key), _pvalues(D, E, 200, key),
                             "rotation_pvalues(D, E, n_resamples=200, rng=seed) with an int seed", atol=1e-12,
                             hint="Make one Generator with np.random.default_rng(rng) and pass it to every "
                                  "random_rotation call: an int seed passed on gives the same rotation every time.")
        with each:
            _chk.check_raises(lambda: rotation_pvalues(D, E[:, :5], n_resamples=3, rng=np.random.default_rng(0)),
                              ValueError, "D and E with different numbers of columns should raise ValueError")
        with each:
            _chk.check_raises(lambda: rotation_pvalues(D, E, n_resamples=0, rng=np.random.default_rng(0)), ValueError,
                              "n_resamples=0 should raise ValueError")
    return _chk.callee_note(rotation_pvalues, D, E, n_resamples=300, rng=np.random.default_rng([seed, 7]))


def benjamini_hochberg_tests(nb, seed):
    """A 6 x 9 matrix as one family, families of 1 to 200 p-values with and without ties, p-values near 1,
    errors; own work (neither the course's benjamini_hochberg or benjamini_yekutieli nor SciPy's
    false_discovery_control)."""
    benjamini_hochberg = nb.benjamini_hochberg
    rng = np.random.default_rng([seed, 1313])
    P = np.where(rng.random((6, 9)) < 0.3, rng.random((6, 9)) * 0.005, rng.random((6, 9)))
    # each block fails alone, so the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(benjamini_hochberg, "benjamini_hochberg", "benjamini_yekutieli")
        with each:
            _chk.check_not_using(benjamini_hochberg, "scipy.stats.false_discovery_control",
                                 hint="This exercise asks you to write the step-up rule yourself with NumPy.")
        with each:
            Q = benjamini_hochberg(P)
            _chk.check_shape(Q, (6, 9), "benjamini_hochberg of a 6 x 9 matrix")
            _chk.check_close(Q, false_discovery_control(P.ravel(), method="bh").reshape(6, 9),
                             "q-values of a 6 x 9 matrix (one family)", atol=1e-12,
                             hint="All entries of the matrix form one family of m = p.size tests.")
        for n, decimals in ((1, None), (7, 1), (40, 2), (200, None)):
            p = rng.random(n) ** 3
            if decimals:
                p = np.round(p, decimals)
                p[-1] = p[0]   # at least one tie
            with each:
                _chk.check_close(benjamini_hochberg(list(p)), false_discovery_control(p, method="bh"),
                                 f"q-values of {n} p-values" + (" with ties" if decimals else ""), atol=1e-12)
        large = np.array([0.9, 0.95, 0.99, 1.0])
        with each:
            _chk.check_close(benjamini_hochberg(large), false_discovery_control(large, method="bh"),
                             "q-values of four large p-values", atol=1e-12)
        with each:
            _chk.check_raises(lambda: benjamini_hochberg([]), ValueError, "No p-values should raise ValueError")
        with each:
            _chk.check_raises(lambda: benjamini_hochberg([0.2, 1.5]), ValueError,
                              "A p-value above 1 should raise ValueError")
