"""Hidden tests of 11_enumerating_biases: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'enumeration': ['random_rotation', 'rotation_null', 'rotation_pvalues']}

def random_rotation_tests(nb, seed):
    """Hidden tests of the cell `random_rotation_tests`."""
    random_rotation = nb.random_rotation
    from helpers.enumeration import random_rotation as _ref_rotation
    with _chk.quiet():
        _Q = _chk.check_own_work(random_rotation, "random_rotation", "rotation_null", "rotation_pvalues",
                                 what="`random_rotation`", run=lambda: random_rotation(7, np.random.default_rng([seed, 1107])))
    _chk.check_close(_Q, _ref_rotation(7, np.random.default_rng([seed, 1107])), "random_rotation(7, rng) for a hidden seed",
                atol=1e-10, hint="Follow the recipe: one rng.standard_normal((d, d)) draw, np.linalg.qr, then the "
                "sign of R's diagonal applied to the columns of Q.")
    for _d, _seed in ((1, 3), (2, 11), (50, 2019)):
        with _chk.quiet():
            _Q = random_rotation(_d, np.random.default_rng(_seed))
        _chk.check_close(_Q, _ref_rotation(_d, np.random.default_rng(_seed)), f"random_rotation({_d}, rng) for a hidden seed",
                    atol=1e-10)
    _r1, _r2 = np.random.default_rng([seed, 5]), np.random.default_rng([seed, 5])
    with _chk.quiet():
        _pair = [random_rotation(4, _r1), random_rotation(4, _r1)]
    _chk.check_close(np.array(_pair), np.array([_ref_rotation(4, _r2), _ref_rotation(4, _r2)]),
                "two successive calls with one generator", atol=1e-10)
    with _chk.quiet():
        _chk.check_raises(lambda: random_rotation(0, np.random.default_rng([seed, 0])), ValueError, "d = 0 should raise ValueError")


def rotation_pvalues_tests(nb, seed):
    """Hidden tests of the cell `rotation_pvalues_tests`."""
    rotation_pvalues = nb.rotation_pvalues
    from helpers.enumeration import rotation_pvalues as _ref_pvalues
    _rng = np.random.default_rng([seed, 1111])
    _D, _E = _rng.normal(size=(3, 6)) * 0.3, _rng.normal(size=(4, 6)) * 0.2
    with _chk.quiet():
        _p = _chk.check_own_work(rotation_pvalues, "rotation_null", "rotation_pvalues", what="`rotation_pvalues`",
                                 run=lambda: rotation_pvalues(_D, _E, n_resamples=300, rng=np.random.default_rng([seed, 7])))
    _chk.check_shape(_p, (3, 4), "rotation_pvalues for 3 name clusters and 4 word clusters")
    _chk.check_close(_p, _ref_pvalues(_D, _E, n_resamples=300, rng=np.random.default_rng([seed, 7])).pvalue,
                "p-values of random 6-d centroids with 300 rotations", atol=1e-12,
                hint="One random_rotation per resample, applied to D only; count values >= the observed one.")
    _D1 = np.vstack([_D, -_D.sum(axis=0)])
    with _chk.quiet():
        _p1 = rotation_pvalues(_D1, _E[:2], n_resamples=1, rng=np.random.default_rng([seed, 8]))
    _chk.check_close(_p1, _ref_pvalues(_D1, _E[:2], n_resamples=1, rng=np.random.default_rng([seed, 8])).pvalue,
                "p-values with a single rotation", atol=1e-12)
    with _chk.quiet():
        _chk.check_raises(lambda: rotation_pvalues(_D, _E[:, :5], n_resamples=3, rng=np.random.default_rng([seed, 0])), ValueError,
                     "D and E with different numbers of columns should raise ValueError")
        _chk.check_raises(lambda: rotation_pvalues(_D, _E, n_resamples=0, rng=np.random.default_rng([seed, 0])), ValueError,
                     "n_resamples=0 should raise ValueError")


def benjamini_hochberg_tests(nb, seed):
    """Hidden tests of the cell `benjamini_hochberg_tests`."""
    benjamini_hochberg = nb.benjamini_hochberg
    import scipy.stats as _sps
    _chk.check_own_work(benjamini_hochberg, "benjamini_hochberg")
    _fdc = _sps.false_discovery_control
    _aliases = {"false_discovery_control"} | {k for k, v in benjamini_hochberg.__globals__.items() if v is _fdc}
    _names = set()
    _codes = [benjamini_hochberg.__code__]
    while _codes:
        _c = _codes.pop()
        _names.update(_c.co_names)
        _codes.extend(_k for _k in _c.co_consts if hasattr(_k, "co_names"))
    assert not (_names & _aliases), (
        "`benjamini_hochberg` calls scipy.stats.false_discovery_control. This exercise asks you to write the "
        "step-up rule yourself with NumPy.")
    _rng = np.random.default_rng([seed, 1313])
    _P = np.where(_rng.random((6, 9)) < 0.3, _rng.random((6, 9)) * 0.005, _rng.random((6, 9)))
    # at run time too: scipy's function records its calls while the student's runs
    _fdc_calls = []
    def _fdc_spy(*args, **kwargs):
        _fdc_calls.append(1)
        return _fdc(*args, **kwargs)
    _sps.false_discovery_control = _fdc_spy
    try:
        with _chk.quiet():
            _Q = benjamini_hochberg(_P)
    finally:
        _sps.false_discovery_control = _fdc
    assert not _fdc_calls, ("`benjamini_hochberg` calls scipy.stats.false_discovery_control. This exercise asks you "
                            "to write the step-up rule yourself with NumPy.")
    _chk.check_shape(_Q, (6, 9), "benjamini_hochberg of a 6 x 9 matrix")
    _chk.check_close(_Q, _fdc(_P.ravel(), method="bh").reshape(6, 9), "q-values of a 6 x 9 matrix (one family)",
                atol=1e-12, hint="All entries of the matrix form one family of m = p.size tests.")
    for _n, _round in ((1, None), (7, 1), (40, 2), (200, None)):
        _p = _rng.random(_n) ** 3
        if _round:
            _p = np.round(_p, _round)
        with _chk.quiet():
            _q = benjamini_hochberg(list(_p))
        _chk.check_close(_q, _fdc(_p, method="bh"), f"q-values of {_n} p-values" + (" with ties" if _round else ""),
                    atol=1e-12)
    with _chk.quiet():
        _q = benjamini_hochberg(np.array([0.9, 0.95, 0.99, 1.0]))
    _chk.check_close(_q, _fdc(np.array([0.9, 0.95, 0.99, 1.0]), method="bh"), "q-values of four large p-values",
                atol=1e-12)
    with _chk.quiet():
        _chk.check_raises(lambda: benjamini_hochberg([]), ValueError, "No p-values should raise ValueError")
        _chk.check_raises(lambda: benjamini_hochberg([0.2, 1.5]), ValueError, "A p-value above 1 should raise ValueError")
