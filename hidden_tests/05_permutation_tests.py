"""Hidden tests of 05_permutation_tests: judged in the grader's process, never released (helpers/judge.py).

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
REFERENCES = {'plots': ['null_distribution'], 'statistics': ['_all_subset_sums', '_sampled_subset_sums', 'permutation_test']}

def exact_pvalue_tests(nb, seed):
    """Hidden tests of the cell `exact_pvalue_tests`."""
    exact_pvalue = nb.exact_pvalue
    from helpers import statistics as _ref
    with _chk.quiet():
        _chk.check_own_work(exact_pvalue, "permutation_test", "_all_subset_sums", "_sampled_subset_sums", what="`exact_pvalue`",
                            run=lambda: exact_pvalue([0.3, 0.1, 0.2], [0.0, -0.1, 0.4]))
    # what each alternative counts, for the hints
    _RULE = {"greater": "s_i >= s - tol", "less": "s_i <= s + tol",
             "two-sided": "|s_i| >= |s| - tol (the absolute value on both sides; not twice a one-sided p-value)"}
    _kv = load_default()
    for _tid in (6, 7, 9, 10):
        _t = weat_test(_tid)
        _r = run_weat(_kv, _t.target_x.used_by_paper, _t.target_y.used_by_paper, _t.attribute_a.used_by_paper,
                      _t.attribute_b.used_by_paper, rng=0)
        for _alt in ("greater", "two-sided"):
            with _chk.quiet():
                _p = exact_pvalue(_r.scores_x, _r.scores_y, alternative=_alt)
            _chk.check_type(_p, float, f"exact_pvalue on Table 1, row {_tid} ({_alt})")
            _chk.check_close(_p, _ref.permutation_test(_r.scores_x, _r.scores_y, method="exact", alternative=_alt).pvalue,
                        f"exact_pvalue on the GloVe scores of Table 1, row {_tid} ({_alt})", rtol=1e-12, atol=0,
                        hint=f"Count every split, the observed one included, with ties as at least as extreme: "
                             f"'{_alt}' counts {_RULE[_alt]}.")
        # Y against X: the observed statistic is negative, so only |s_i| >= |s| gives the two-sided p-value
        with _chk.quiet():
            _p = exact_pvalue(_r.scores_y, _r.scores_x, alternative="two-sided")
        _chk.check_close(_p, _ref.permutation_test(_r.scores_y, _r.scores_x, method="exact", alternative="two-sided").pvalue,
                    f"exact_pvalue(scores of Y, scores of X, alternative='two-sided') on Table 1, row {_tid} (a negative "
                    "observed statistic)", rtol=1e-12, atol=0,
                    hint=f"The observed s is negative here; 'two-sided' counts {_RULE['two-sided']}.")
    _rng = np.random.default_rng([seed, 2017])
    for _n in (1, 3, 5, 7):
        _sx, _sy = _rng.normal(0.02, 0.05, _n), _rng.normal(0.0, 0.05, _n)
        for _alt in ("greater", "less", "two-sided"):
            with _chk.quiet():
                _p = exact_pvalue(list(_sx), _sy, alternative=_alt)
            _chk.check_close(_p, _ref.permutation_test(_sx, _sy, method="exact", alternative=_alt).pvalue,
                        f"exact_pvalue on {_n} + {_n} unseen scores ({_alt})", rtol=1e-12, atol=0,
                        hint=f"'{_alt}' counts {_RULE[_alt]}, the observed split included.")
        with _chk.quiet():
            _p = exact_pvalue(_sy, list(_sx), alternative="two-sided")
        _chk.check_close(_p, _ref.permutation_test(_sy, _sx, method="exact", alternative="two-sided").pvalue,
                    f"exact_pvalue on {_n} + {_n} unseen scores with a negative observed statistic (two-sided)",
                    rtol=1e-12, atol=0, hint=f"'two-sided' counts {_RULE['two-sided']}.")
    # ties: exact ones (whole numbers) and floating-point ones (0.1 + 0.2 is not 0.3 in binary)
    for _sx, _sy in [([2.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]), ([0.1, 0.2, 0.6], [0.3, 0.4, 0.5]),
                     ([0.1, 0.7, 0.2], [0.3, 0.6, 0.1]), ([0.4, 0.5, 0.6, 0.0], [0.3, 0.2, 0.1, 0.7])]:
        for _alt in ("greater", "less"):
            with _chk.quiet():
                _p = exact_pvalue(_sx, _sy, alternative=_alt)
            _chk.check_close(_p, _ref.permutation_test(_sx, _sy, method="exact", alternative=_alt).pvalue,
                        f"exact_pvalue on {len(_sx)} + {len(_sy)} scores with ties ({_alt})", rtol=1e-12, atol=0,
                        hint="Ties (within the tolerance of the docstring) count as at least as extreme.")
    # the observed split is the most extreme: p is 1 / C(2n, n), never 0
    with _chk.quiet():
        _p = exact_pvalue([1.0] * 5, [0.0] * 5)
    assert _p > 0, "exact_pvalue is 0 when the observed split is the most extreme one; the observed split must count."
    _chk.check_close(_p, _ref.permutation_test([1.0] * 5, [0.0] * 5, method="exact").pvalue,
                "exact_pvalue when the observed split is the most extreme of all", rtol=1e-12, atol=0)
    with _chk.quiet():
        _chk.check_raises(lambda: exact_pvalue([], []), ValueError, "exact_pvalue([], []) should raise ValueError")
        _chk.check_raises(lambda: exact_pvalue([1.0, 0.0], [0.5, 0.2], alternative="bigger"), ValueError,
                     "exact_pvalue with alternative='bigger' should raise ValueError")


def plot_null_distribution_tests(nb, seed):
    """Hidden tests of the cell `plot_null_distribution_tests`."""
    plot_null_distribution = nb.plot_null_distribution
    from helpers import statistics as _ref
    import matplotlib.pyplot as _plt

    _fig0, _ax0 = _plt.subplots()
    try:
        with _chk.quiet():
            _chk.check_own_work(plot_null_distribution, "null_distribution", what="`plot_null_distribution`",
                                run=lambda: plot_null_distribution([0.0, 1.0, 1.0, 2.0], 1.0, _ax0, bins=2))
    finally:
        _plt.close(_fig0)

    def _drawn(null, observed, what, **kwargs):
        # draw on a fresh Axes while another figure is the current one (plt.hist would draw there), then read it
        fig_, ax_ = _plt.subplots()
        other_ = _plt.figure()
        try:
            with _chk.quiet():
                out_ = plot_null_distribution(null, observed, ax_, **kwargs)
            assert out_ is ax_, f"{what}: plot_null_distribution should return the Axes it was given."
            bars_ = sorted((p for p in ax_.patches if hasattr(p, "get_height")), key=lambda p: p.get_x())
            counts_, edges_ = np.histogram(np.asarray(null, dtype=float), bins=kwargs.get("bins", 50))
            assert len(bars_) == len(counts_), (f"{what}: the given Axes should hold one bar per bin; draw the histogram "
                                                "on ax (ax.hist, not plt.hist) with bins=bins.")
            _chk.check_close([p.get_height() for p in bars_], counts_, f"{what}: the heights of the bars", atol=0,
                             hint="Each bar counts the values of the argument null in its bin (not a density).")
            _chk.check_close([p.get_x() for p in bars_] + [bars_[-1].get_x() + bars_[-1].get_width()], edges_,
                             f"{what}: the bin edges", rtol=1e-9, atol=1e-12,
                             hint="Use `bins` bins of equal width from min(null) to max(null), as ax.hist(null, bins=bins) does.")
            xs_ = [line.get_xdata()[0] for line in ax_.lines
                   if len(set(line.get_xdata())) == 1 and len(set(line.get_ydata())) > 1]
            assert any(abs(x - observed) <= 1e-9 * max(1.0, abs(observed)) for x in xs_), (
                f"{what}: the given Axes has no vertical line at x = observed; draw it with ax.axvline(observed).")
            assert ax_.get_xlabel().strip() and ax_.get_ylabel().strip(), (
                f"{what}: label both axes of the given Axes (ax.set_xlabel, ax.set_ylabel).")
        finally:
            _plt.close(fig_)
            _plt.close(other_)

    # all 70 splits of 4 + 4 unseen scores; X's scores are the smaller ones, so the observed statistic is negative
    _rng = np.random.default_rng([seed, 505])
    _res = _ref.permutation_test(_rng.normal(0.0, 0.05, 4), _rng.normal(0.08, 0.05, 4), method="exact")
    _drawn(list(_res.null_distribution), _res.statistic, "plot_null_distribution on the 70 splits of 4 + 4 unseen scores "
           "(bins=7)", bins=7)
    # 3,000 sampled splits of 10 + 10 unseen scores, with the default number of bins
    _res = _ref.permutation_test(_rng.normal(0.03, 0.05, 10), _rng.normal(0.0, 0.05, 10), method="sampled",
                                 n_resamples=3000, rng=4)
    _drawn(_res.null_distribution, _res.statistic, "plot_null_distribution on 3,000 sampled splits (default bins)")


def sampled_pvalue_tests(nb, seed):
    """Hidden tests of the cell `sampled_pvalue_tests`."""
    sampled_pvalue = nb.sampled_pvalue
    from helpers import statistics as _ref
    with _chk.quiet():
        _chk.check_own_work(sampled_pvalue, "permutation_test", "_all_subset_sums", "_sampled_subset_sums", what="`sampled_pvalue`",
                            run=lambda: sampled_pvalue([0.3, 0.1, 0.2], [0.0, -0.1, 0.4], 50, 0))

    def _band(p, p_exact, B, what, hint="each split must be a permutation of the pooled scores (no replacement)."):
        # a sampled p is (k + 1) / (B + 1) with k ~ Binomial(B, p_exact): allow 5 standard errors
        half = 5 * np.sqrt(p_exact * (1 - p_exact) / B) + 1.5 / (B + 1)
        assert abs(p - p_exact) <= half, f"{what} is too far from the exact p-value for {B:,} random splits; {hint}"

    _RULES = {"greater": "'greater' counts the splits with s_i >= s - tol.",
              "less": "'less' counts the splits with s_i <= s + tol.",
              "two-sided": ("'two-sided' counts the splits with |s_i| >= |s| - tol, with the absolute value on both sides; "
                            "it is not twice the one-sided p-value, which is wrong when s < 0.")}

    def _form(p, B, what):
        assert p > 0, f"{what} is 0; the observed split counts, so p = (k + 1) / (B + 1) > 0."
        kk = p * (B + 1)
        assert abs(kk - round(kk)) < 1e-6 and 1 <= round(kk) <= B + 1, f"{what} is not of the form (k + 1) / (B + 1)."

    _kv = load_default()
    _t = weat_test(10)
    _r = run_weat(_kv, _t.target_x.used_by_paper, _t.target_y.used_by_paper, _t.attribute_a.used_by_paper,
                  _t.attribute_b.used_by_paper, rng=0)
    for _alt in ("greater", "two-sided", "less"):
        with _chk.quiet():
            _p = sampled_pvalue(_r.scores_x, _r.scores_y, 20_000, 5, alternative=_alt)
        _chk.check_type(_p, float, f"sampled_pvalue on Table 1, row 10 ({_alt})")
        _form(_p, 20_000, f"sampled_pvalue on Table 1, row 10 ({_alt})")
        _band(_p, _ref.permutation_test(_r.scores_x, _r.scores_y, method="exact", alternative=_alt).pvalue, 20_000,
              f"sampled_pvalue on Table 1, row 10 ({_alt})",
              "each split must be a permutation of the pooled scores (no replacement), and " + _RULES[_alt])
    # Y against X: a negative observed statistic, where only |s_i| >= |s| gives the two-sided p-value
    with _chk.quiet():
        _p = sampled_pvalue(_r.scores_y, _r.scores_x, 20_000, 6, alternative="two-sided")
    _form(_p, 20_000, "sampled_pvalue(scores of Y, scores of X, ...) on Table 1, row 10 (two-sided)")
    _band(_p, _ref.permutation_test(_r.scores_y, _r.scores_x, method="exact", alternative="two-sided").pvalue, 20_000,
          "sampled_pvalue(scores of Y, scores of X, ...) on Table 1, row 10 (two-sided, a negative observed statistic)",
          _RULES["two-sided"])
    # reproducible with a seed and with a Generator; different from other seeds' (data with p near 1/2)
    _rng = np.random.default_rng([seed, 99])
    _sx, _sy = _rng.normal(0, 1, 10), _rng.normal(0, 1, 10)
    with _chk.quiet():
        _runs = [sampled_pvalue(_sx, _sy, 4000, _s) for _s in (11, 11, 12, 13)]
        _g1 = sampled_pvalue(_sx, _sy, 4000, np.random.default_rng([seed, 21]))
        _g2 = sampled_pvalue(_sx, _sy, 4000, np.random.default_rng([seed, 21]))
    assert _runs[0] == _runs[1], "sampled_pvalue gives different p-values for the same seed."
    assert _g1 == _g2, "sampled_pvalue gives different p-values for two Generators made from the same seed."
    assert len(set(_runs)) > 1, "sampled_pvalue gives the same p-value for different seeds; is rng used?"
    _p_ex = _ref.permutation_test(_sx, _sy, method="exact").pvalue
    for _p in _runs + [_g1]:
        _form(_p, 4000, "sampled_pvalue on 10 + 10 unseen scores")
        _band(_p, _p_ex, 4000, "sampled_pvalue on 10 + 10 unseen scores")
    # the same scores, two-sided: their observed statistic is negative
    with _chk.quiet():
        _p = sampled_pvalue(_sx, _sy, 4000, np.random.default_rng([seed, 22]), alternative="two-sided")
    _form(_p, 4000, "sampled_pvalue on 10 + 10 unseen scores (two-sided)")
    _band(_p, _ref.permutation_test(_sx, _sy, method="exact", alternative="two-sided").pvalue, 4000,
          "sampled_pvalue on 10 + 10 unseen scores with a negative observed statistic (two-sided)", _RULES["two-sided"])
    # without replacement: only a permutation of the pooled scores gives these exact p-values
    for _sx, _sy, _B in [([1.0] * 4, [0.0] * 4, 20_000), ([10.0, 0.0, 0.0, 0.0, 0.0], [0.0] * 5, 5_000)]:
        with _chk.quiet():
            _p = sampled_pvalue(_sx, _sy, _B, 3)
        _form(_p, _B, f"sampled_pvalue({_sx}, {_sy})")
        _band(_p, _ref.permutation_test(_sx, _sy, method="exact").pvalue, _B, f"sampled_pvalue({_sx}, {_sy})")
    # the observed split is the most extreme of 12,870: k is (almost) always 0, and p must still be > 0
    with _chk.quiet():
        _p = sampled_pvalue([1.0] * 8, [0.0] * 8, 100, 8)
    _form(_p, 100, "sampled_pvalue when the observed split is the most extreme one")
    with _chk.quiet():
        _chk.check_raises(lambda: sampled_pvalue([1.0, 2.0], [0.0], 100, 0), ValueError,
                     "sampled_pvalue with sets of different sizes should raise ValueError")
        _chk.check_raises(lambda: sampled_pvalue([1.0, 2.0], [0.0, 1.0], 0, 0), ValueError,
                     "sampled_pvalue with n_resamples=0 should raise ValueError")
        _chk.check_raises(lambda: sampled_pvalue([], [], 100, 0), ValueError, "sampled_pvalue([], [], ...) should raise ValueError")
