"""Hidden tests of 04_effect_size: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from helpers.embeddings import load_default
from helpers.wordsets import weat_test
from helpers.weat import run_weat

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'statistics': ['effect_size', 'effect_size_from_scores']}

def effect_size_tests(nb, seed):
    """Hidden tests of the cell `effect_size_tests`."""
    effect_size = nb.effect_size
    from helpers import statistics as _ref
    with _chk.quiet():
        _chk.check_own_work(effect_size, "effect_size", "effect_size_from_scores", what="`effect_size`",
                            run=lambda: effect_size([0.3, 0.1, 0.2], [0.0, -0.1]))
    _rng = np.random.default_rng([seed, 20170414])
    for _nx, _ny in [(8, 8), (5, 7), (25, 25), (1, 3)]:
        _sx, _sy = _rng.normal(0.05, 0.1, _nx), _rng.normal(-0.03, 0.1, _ny)
        _N = _nx + _ny
        _expected = _ref.effect_size_from_scores(_sx, _sy, ddof=1)
        with _chk.quiet():
            _d1 = _chk.check_unchanged(effect_size, _sx, _sy, ddof=1, what=f"effect_size(sx, sy, ddof=1) on {_nx} + {_ny} scores")
            _d0 = effect_size(_sx, _sy, ddof=0)
            _d_default = effect_size(list(_sx), list(_sy))
            _d_swapped = effect_size(_sy, _sx, ddof=1)
            _d_scaled = effect_size(10.0 * _sx, 10.0 * _sy, ddof=1)
            _d0_doubled = effect_size(np.concatenate([_sx, _sx]), np.concatenate([_sy, _sy]), ddof=0)
        _chk.check_type(_d1, float, f"effect_size on {_nx} + {_ny} scores")
        assert (_d1 > 0) == (_expected > 0), (
            f"effect_size(sx, sy, ddof=1) on {_nx} + {_ny} unseen scores has the wrong sign: d is the mean of X minus the "
            "mean of Y (keep its sign: no absolute value), divided by a standard deviation, which is positive.")
        _chk.check_close(_d_swapped, -_d1, f"effect_size(sy, sx, ddof=1) with X and Y swapped ({_ny} + {_nx} scores), which "
                         "should be -effect_size(sx, sy, ddof=1)", rtol=1e-9,
                         hint="Swapping X and Y should flip the sign of d and change nothing else: do not take the absolute "
                              "value, and use a standard deviation that treats X and Y alike (that of all the scores together).")
        _chk.check_close(_d_scaled, _d1, f"effect_size on the same {_nx} + {_ny} scores multiplied by 10 (which should not "
                         "change d: it has no units)", rtol=1e-9,
                         hint="Divide by the standard deviation, the square root of the variance (not by the variance).")
        _chk.check_close(_d0 * np.sqrt((_N - 1) / _N), _d1, f"effect_size with ddof=1 compared with ddof=0 on the same {_nx} + {_ny} "
                         "scores (d with ddof=1 should be d with ddof=0 times sqrt((N - 1) / N))", rtol=1e-9,
                         hint="Pass ddof on to the standard deviation of all N scores of X and Y together "
                              "(np.std(pooled, ddof=ddof): N - ddof in the denominator of the variance).")
        _chk.check_close(_d0_doubled, _d0, f"effect_size(ddof=0) with each of the {_nx} + {_ny} scores repeated twice (which "
                         "should not change d)", rtol=1e-9,
                         hint="The numerator is the difference of the two means, not of the two sums.")
        _chk.check_close(_d1, _expected, f"effect_size on {_nx} + {_ny} unseen scores with ddof=1", rtol=1e-9,
                         hint="The denominator is the standard deviation of all the scores of X and Y pooled together "
                              "(np.concatenate): not of X alone, not the within-group standard deviation of Cohen's d, not "
                              "the average of the two groups' standard deviations.")
        _chk.check_close(_d0, _ref.effect_size_from_scores(_sx, _sy, ddof=0),
                    f"effect_size on {_nx} + {_ny} unseen scores with ddof=0", rtol=1e-9)
        _chk.check_close(_d_default, _d1, f"effect_size(sx, sy) without ddof, on {_nx} + {_ny} scores given as lists, which "
                         "should equal effect_size(sx, sy, ddof=1)", rtol=1e-9,
                         hint="The default is ddof=1, the sample standard deviation; lists must work like arrays.")
    for _tid in (6, 7):
        _t = weat_test(_tid)
        _r = run_weat(load_default(), _t.target_x.used_by_paper, _t.target_y.used_by_paper, _t.attribute_a.used_by_paper,
                      _t.attribute_b.used_by_paper, rng=0)
        with _chk.quiet():
            _d = effect_size(_r.scores_x, _r.scores_y)
        _chk.check_close(_d, _ref.effect_size_from_scores(_r.scores_x, _r.scores_y, ddof=1),
                    f"effect_size on the GloVe scores of Table 1, row {_tid}", rtol=1e-9)
    with _chk.quiet():
        _chk.check_raises(lambda: effect_size([0.5, 0.25], []), ValueError, "effect_size with an empty Y should raise ValueError")
        _chk.check_raises(lambda: effect_size([0.25, 0.25], [0.25]), ValueError,
                     "effect_size with all scores equal (standard deviation 0) should raise ValueError")
        _chk.check_raises(lambda: effect_size([0.25, 0.25], [0.25, 0.25], ddof=0), ValueError,
                     "effect_size with all scores equal and ddof=0 should raise ValueError")


def max_effect_size_tests(nb, seed):
    """Hidden tests of the cell `max_effect_size_tests`."""
    max_effect_size = nb.max_effect_size
    from helpers import statistics as _ref
    with _chk.quiet():
        _chk.check_own_work(max_effect_size, "effect_size", "effect_size_from_scores", what="`max_effect_size`",
                            run=lambda: max_effect_size(3, 1))
    _hints = {0: "With ddof=0 the footnote's bound is reached, whatever the number of words.",
              1: "With ddof=1 the bound is below 2 and depends on n: the variance divides by N - 1, where N = 2n counts "
                 "the words of X and Y together (see the docstring)."}
    for _ddof in (0, 1):
        for _n in (1, 2, 6, 8, 25, 100):
            with _chk.quiet():
                _m = max_effect_size(_n, _ddof)
            _chk.check_type(_m, float, f"max_effect_size({_n}, {_ddof})")
            # the most extreme configuration reaches the bound
            _chk.check_close(_m, _ref.effect_size_from_scores([1.0] * _n, [-1.0] * _n, ddof=_ddof),
                             f"max_effect_size({_n}, {_ddof}), the bound with ddof={_ddof} for {_n} + {_n} target words,",
                             rtol=1e-9, hint=_hints[_ddof])
    with _chk.quiet():
        _chk.check_raises(lambda: max_effect_size(8, 2), ValueError, "max_effect_size(8, 2) should raise ValueError (ddof must be 0 or 1)")
        _chk.check_raises(lambda: max_effect_size(-3, 1), ValueError, "max_effect_size(-3, 1) should raise ValueError")


def cohens_d_tests(nb, seed):
    """Hidden tests of the cell `cohens_d_tests`."""
    cohens_d = nb.cohens_d
    from scipy import stats as _stats
    with _chk.quiet():
        _chk.check_own_work(cohens_d, "effect_size", "effect_size_from_scores", what="`cohens_d`",
                            run=lambda: cohens_d([0.3, 0.1, 0.2], [0.0, -0.1]))
    _rng = np.random.default_rng([seed, 1998])
    for _nx, _ny, _shift in [(8, 8, 0.5), (4, 9, 1.0), (30, 30, 6.0), (1, 2, 1.0)]:
        _sx, _sy = _rng.normal(_shift, 1.0, _nx), _rng.normal(0.0, 1.5, _ny)
        # the two-sample t statistic with equal variances is d / sqrt(1/n_X + 1/n_Y)
        _expected = _stats.ttest_ind(_sx, _sy, equal_var=True).statistic * np.sqrt(1 / _nx + 1 / _ny)
        with _chk.quiet():
            _c = _chk.check_unchanged(cohens_d, _sx, _sy, what=f"cohens_d(sx, sy) on {_nx} + {_ny} scores")
            _c_list = cohens_d(list(_sx), _sy)
            _c_swapped = cohens_d(_sy, _sx)
            _c_scaled = cohens_d(10.0 * _sx, 10.0 * _sy)
        _chk.check_type(_c, float, f"cohens_d on {_nx} + {_ny} scores")
        assert (_c > 0) == (_expected > 0), (
            f"cohens_d on {_nx} + {_ny} unseen scores has the wrong sign: d is the mean of X minus the mean of Y, divided "
            "by s_p, which is positive (keep the sign: no absolute value).")
        _chk.check_close(_c_swapped, -_c, f"cohens_d(sy, sx) with X and Y swapped ({_ny} + {_nx} scores), which should be "
                         "-cohens_d(sx, sy)", rtol=1e-9,
                         hint="Swapping X and Y should flip the sign of d and change nothing else: do not take the absolute "
                              "value, and pool the spread of both groups in s_p (not one group's standard deviation).")
        _chk.check_close(_c_scaled, _c, f"cohens_d on the same {_nx} + {_ny} scores multiplied by 10 (which should not change "
                         "d: it has no units)", rtol=1e-9,
                         hint="Divide by s_p, the square root of the pooled variance (not by the variance).")
        _chk.check_close(_c, _expected, f"cohens_d on {_nx} + {_ny} unseen scores", rtol=1e-9,
                         hint="s_p pools the within-group sums of squares of X and Y and divides them by n_X + n_Y - 2: it "
                              "is not the standard deviation of all the scores together (the WEAT's d), not the plain mean "
                              "of the two groups' variances (right only for equal sizes), not one group's standard deviation.")
        _chk.check_close(_c_list, _c, f"cohens_d on {_nx} + {_ny} scores with X given as a list", rtol=1e-9,
                         hint="Convert the inputs with np.asarray(..., dtype=float).")
    with _chk.quiet():
        _chk.check_raises(lambda: cohens_d([], [1.0, 2.0]), ValueError, "cohens_d with an empty X should raise ValueError")
        _chk.check_raises(lambda: cohens_d([1.0], [0.5]), ValueError, "cohens_d with only 2 scores should raise ValueError")
        _chk.check_raises(lambda: cohens_d([1.0, 1.0], [0.0, 0.0]), ValueError,
                     "cohens_d with a zero within-group standard deviation should raise ValueError")
