"""Hidden tests of 05_permutation_tests: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from matplotlib.figure import Figure

from helpers.embeddings import load_default
from helpers.grading.judge import Call
from helpers.grading.judge import checks as _chk
from helpers.statistics import permutation_test
from helpers.weat import run_weat
from helpers.wordsets import weat_test

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
#: ``helpers.statistics.permutation_test`` (and its ``_all_subset_sums``, ``_sampled_subset_sums``) stays:
#: the notebook's demonstrations need it (``run_weat`` from its first cell on, ``method="normal"`` in
#: section 4). Answers that use it are caught by the own-work rule, which reads their code.
REFERENCES = {"plots": ["null_distribution"]}

#: What an answer to Exercise 1 or 3 must not use.
PVALUE_REFERENCES = ("permutation_test", "_all_subset_sums", "_sampled_subset_sums")

#: The library function that would do Exercises 1 and 3 for the student (demonstrated in the notebook).
SCIPY_PERMUTATION_TEST = "scipy.stats.permutation_test"

#: Why two calls with the same seed differ, as students get it wrong: named in the reproducibility messages.
_SEED_CAUSES = ("The likely causes: global randomness (np.random.seed with np.random.permutation, shuffle, ...), "
                "or a Generator re-created inside the loop (np.random.default_rng() without the seed gives new draws "
                "every time). Make one Generator before the loop with np.random.default_rng(rng) and draw only from it.")

#: What each alternative counts, for the hints.
COUNTS = {"greater": "s_i >= s - tol", "less": "s_i <= s + tol",
          "two-sided": "|s_i| >= |s| - tol, with the absolute value on both sides (not twice the 'greater' p-value, "
                       "which is wrong when s < 0)"}


def _exact(sx, sy, alternative="greater") -> float:
    """The reference's exact p-value."""
    return permutation_test(sx, sy, method="exact", alternative=alternative).pvalue


def _table1_scores(test_id: int):
    """The GloVe scores s(w, A, B) of X and of Y for a row of Table 1 (the paper's words)."""
    t = weat_test(test_id)
    r = run_weat(load_default(), t.target_x.used_by_paper, t.target_y.used_by_paper, t.attribute_a.used_by_paper,
                 t.attribute_b.used_by_paper, rng=0)
    return r.scores_x, r.scores_y


# ---------------------------------------------------------------------------------------------------
# Exercise 1: exact_pvalue
# ---------------------------------------------------------------------------------------------------

def exact_pvalue_tests(nb, seed):
    """Hidden tests of the cell `exact_pvalue_tests`."""
    exact_pvalue = nb.exact_pvalue
    cases = []  # the calls, made in one request after the loops below, and checked in this order

    def check(sx, sy, alternative, what, hint, kind=None):
        # kind: the block of checks this one belongs to (one message per kind of mistake)
        cases.append((sx, sy, alternative, what, hint, kind or alternative))

    for test_id in (6, 7, 9, 10):
        sx, sy = _table1_scores(test_id)
        for alt in ("greater", "two-sided"):
            check(sx, sy, alt, f"exact_pvalue on the GloVe scores of Table 1, row {test_id} ({alt})",
                  f"Count every split, the observed one included, with ties as at least as extreme: '{alt}' counts "
                  f"{COUNTS[alt]}.")
        # Y against X: the observed statistic is negative, so only |s_i| >= |s| gives the two-sided p-value
        check(sy, sx, "two-sided", f"exact_pvalue(scores of Y, scores of X, alternative='two-sided') on Table 1, "
              f"row {test_id} (a negative observed statistic)",
              f"The observed s is negative here; 'two-sided' counts {COUNTS['two-sided']}.", "negative")
    rng = np.random.default_rng([seed, 2017])
    for n in (1, 3, 5, 7):
        sx, sy = rng.normal(0.02, 0.05, n), rng.normal(0.0, 0.05, n)
        if sx.sum() < sy.sum():  # X first: the observed statistic is positive, and negative with Y first
            sx, sy = sy, sx
        for alt in ("greater", "less", "two-sided"):
            check(list(sx), sy, alt, f"exact_pvalue on {n} + {n} unseen scores ({alt})",
                  f"'{alt}' counts {COUNTS[alt]}, the observed split included.")
        check(sy, list(sx), "two-sided", f"exact_pvalue on {n} + {n} unseen scores with a negative observed "
              "statistic (two-sided)", f"'two-sided' counts {COUNTS['two-sided']}.", "negative")
    # ties: exact ones (whole numbers) and floating-point ones (0.1 + 0.2 is not 0.3 in binary)
    for sx, sy in [([2.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]), ([0.1, 0.2, 0.6], [0.3, 0.4, 0.5]),
                   ([0.1, 0.7, 0.2], [0.3, 0.6, 0.1]), ([0.4, 0.5, 0.6, 0.0], [0.3, 0.2, 0.1, 0.7])]:
        for alt in ("greater", "less"):
            check(sx, sy, alt, f"exact_pvalue on {len(sx)} + {len(sy)} scores with ties ({alt})",
                  "Ties (within the tolerance of the docstring) count as at least as extreme.", "ties")
    # each block fails alone: the feedback names every mistake (one block per kind of case)
    with _chk.every_failure() as each:
        # own work first, alone: the value checks mean nothing for the course's reference or scipy's test
        _chk.check_own_work(exact_pvalue, *PVALUE_REFERENCES, what="`exact_pvalue`",
                            run=lambda: exact_pvalue([0.3, 0.1, 0.2], [0.0, -0.1, 0.4]))
        _chk.check_not_using(exact_pvalue, SCIPY_PERMUTATION_TEST, what="`exact_pvalue`",
                             hint="This exercise asks you to enumerate the splits yourself.")
        answers = exact_pvalue.map(Call(sx, sy, alternative=alternative) for sx, sy, alternative, *_ in cases)
        for kind in ("greater", "less", "two-sided", "negative", "ties"):
            with each:
                for i, (sx, sy, alternative, what, hint, _) in enumerate(cases):
                    if cases[i][5] != kind:
                        continue
                    p = answers[i]
                    _chk.check_type(p, float, what)
                    _chk.check_close(p, _exact(sx, sy, alternative), what, rtol=1e-12, atol=0, hint=hint)
        # the observed split is the most extreme: p is 1 / C(2n, n), never 0 (and "greater" is the default)
        with each:
            p = exact_pvalue([1.0] * 5, [0.0] * 5)
            assert p > 0, ("exact_pvalue is 0 when the observed split is the most extreme one; the observed split "
                           "must count.")
            _chk.check_close(p, _exact([1.0] * 5, [0.0] * 5), "exact_pvalue when the observed split is the most "
                             "extreme of all", rtol=1e-12, atol=0)
        with each:
            _chk.check_raises(lambda: exact_pvalue([], []), ValueError, "exact_pvalue([], []) should raise ValueError")
        with each:
            _chk.check_raises(lambda: exact_pvalue([1.0, 0.0], [0.5, 0.2], alternative="bigger"), ValueError,
                              "exact_pvalue with alternative='bigger' should raise ValueError")


# ---------------------------------------------------------------------------------------------------
# Exercise 2: plot_null_distribution (drawn in the kernel on a copy of the Axes, replayed here)
# ---------------------------------------------------------------------------------------------------

def _new_axes():
    """A fresh Axes of its own figure (no pyplot state in the grader)."""
    return Figure().add_subplot()


def _check_drawing(plot_null_distribution, null, observed, what, **kwargs):
    """What ``plot_null_distribution(null, observed, ax, **kwargs)`` drew on ``ax``: bars, line, labels."""
    # in the kernel the Axes is not on the current figure: plt.hist or plt.axvline would draw elsewhere
    ax = _new_axes()
    with _chk.quiet():
        returned = plot_null_distribution(null, observed, ax, **kwargs)
    assert returned is ax, f"{what}: plot_null_distribution should return the Axes it was given."
    bars = sorted((p for p in ax.patches if hasattr(p, "get_height")), key=lambda p: p.get_x())
    counts, edges = np.histogram(np.asarray(null, dtype=float), bins=kwargs.get("bins", 50))
    assert len(bars) == len(counts), (f"{what}: the given Axes should hold one bar per bin; draw the histogram on ax "
                                      "(ax.hist, not plt.hist) with bins=bins.")
    _chk.check_close([p.get_height() for p in bars], counts, f"{what}: the list of bar heights", atol=0,
                     hint="Each bar counts the values of the argument null in its bin (not a density).")
    _chk.check_close([p.get_x() for p in bars] + [bars[-1].get_x() + bars[-1].get_width()], edges,
                     f"{what}: the list of bin edges", rtol=1e-9, atol=1e-12,
                     hint="Use `bins` bins of equal width from min(null) to max(null), as ax.hist(null, bins=bins) "
                          "does.")
    xs = [line.get_xdata()[0] for line in ax.lines
          if len(set(line.get_xdata())) == 1 and len(set(line.get_ydata())) > 1]
    assert any(abs(x - observed) <= 1e-9 * max(1.0, abs(observed)) for x in xs), (
        f"{what}: the given Axes has no vertical line at x = observed; draw it with ax.axvline(observed).")
    assert ax.get_xlabel().strip() and ax.get_ylabel().strip(), (
        f"{what}: label both axes of the given Axes (ax.set_xlabel, ax.set_ylabel).")


def plot_null_distribution_tests(nb, seed):
    """Hidden tests of the cell `plot_null_distribution_tests`."""
    plot_null_distribution = nb.plot_null_distribution
    rng = np.random.default_rng([seed, 505])
    # all 70 splits of 4 + 4 unseen scores; X's scores are the smaller ones, so the observed statistic is negative
    sx, sy = rng.normal(0.0, 0.05, 4), rng.normal(0.08, 0.05, 4)
    if sx.sum() > sy.sum():
        sx, sy = sy, sx
    exact = permutation_test(sx, sy, method="exact")
    # 3,000 sampled splits of 10 + 10 unseen scores, with the default number of bins
    sampled = permutation_test(rng.normal(0.03, 0.05, 10), rng.normal(0.0, 0.05, 10), method="sampled",
                               n_resamples=3000, rng=rng)
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        _chk.check_own_work(plot_null_distribution, "null_distribution", what="`plot_null_distribution`",
                            run=lambda: plot_null_distribution([0.0, 1.0, 1.0, 2.0], 1.0, _new_axes(), bins=2))
        with each:
            _check_drawing(plot_null_distribution, list(exact.null_distribution), exact.statistic,
                           "plot_null_distribution on the 70 splits of 4 + 4 unseen scores (bins=7)", bins=7)
        with each:
            _check_drawing(plot_null_distribution, sampled.null_distribution, sampled.statistic,
                           "plot_null_distribution on 3,000 sampled splits (default bins)")


# ---------------------------------------------------------------------------------------------------
# Exercise 3: sampled_pvalue
# ---------------------------------------------------------------------------------------------------

def _check_form(p, n_resamples, what):
    """``p`` is (k + 1) / (B + 1) for a whole number k from 0 to B."""
    assert p > 0, f"{what} is 0; the observed split counts, so p = (k + 1) / (B + 1) > 0."
    k1 = p * (n_resamples + 1)
    assert abs(k1 - round(k1)) < 1e-6 and 1 <= round(k1) <= n_resamples + 1, (
        f"{what} is not of the form (k + 1) / (B + 1).")


def _check_band(p, p_exact, n_resamples, what,
                hint="each split must be a permutation of the pooled scores (no replacement)."):
    """``p`` is within 5 standard errors of ``p_exact`` (k ~ Binomial(B, p_exact)), plus the +1 of the form."""
    half = 5 * np.sqrt(p_exact * (1 - p_exact) / n_resamples) + 1.5 / (n_resamples + 1)
    assert abs(p - p_exact) <= half, (f"{what} is too far from the exact p-value for {n_resamples:,} random splits; "
                                      f"{hint}")


def _middling_scores(rng):
    """10 + 10 scores with a negative observed statistic and a one-sided p-value from 0.6 to 0.95.

    Different seeds then give different sampled p-values, and 'two-sided' (from 0.1 to 0.8) differs from
    twice 'greater', from counting |s_i| >= s and from counting s_i >= |s|.
    """
    while True:
        sx, sy = rng.normal(0.0, 1.0, (2, 10))
        if sx.sum() > sy.sum():
            sx, sy = sy, sx
        if 0.6 <= _exact(sx, sy) <= 0.95:
            return sx, sy


def sampled_pvalue_tests(nb, seed):
    """Hidden tests of the cell `sampled_pvalue_tests`."""
    sampled_pvalue = nb.sampled_pvalue
    row10 = _table1_scores(10)
    rng = np.random.default_rng([seed, 99])
    middling = _middling_scores(rng)
    # each block fails alone: the feedback names every mistake
    with _chk.every_failure() as each:
        # own work first, alone: the value checks mean nothing for the course's reference or scipy's test
        _chk.check_own_work(sampled_pvalue, *PVALUE_REFERENCES, what="`sampled_pvalue`",
                            run=lambda: sampled_pvalue([0.3, 0.1, 0.2], [0.0, -0.1, 0.4], 50, 0))
        _chk.check_not_using(sampled_pvalue, SCIPY_PERMUTATION_TEST, what="`sampled_pvalue`",
                             hint="This exercise asks you to draw the splits yourself.")
        sx, sy = row10
        for alt in ("greater", "two-sided", "less"):
            with each:
                p = sampled_pvalue(sx, sy, 20_000, 5, alternative=alt)
                what = f"sampled_pvalue on Table 1, row 10 ({alt})"
                _chk.check_type(p, float, what)
                _check_form(p, 20_000, what)
                _check_band(p, _exact(sx, sy, alt), 20_000, what, "each split must be a permutation of the pooled "
                            f"scores (no replacement), and '{alt}' counts the splits with {COUNTS[alt]}.")
        # Y against X: a negative observed statistic, where only |s_i| >= |s| gives the two-sided p-value
        with each:
            p = sampled_pvalue(sy, sx, 20_000, 6, alternative="two-sided")
            what = ("sampled_pvalue(scores of Y, scores of X, ...) on Table 1, row 10 (two-sided, a negative observed "
                    "statistic)")
            _check_form(p, 20_000, what)
            _check_band(p, _exact(sy, sx, "two-sided"), 20_000, what,
                        f"'two-sided' counts the splits with {COUNTS['two-sided']}.")
        # reproducible with a seed and with a Generator; different from other seeds'
        sx, sy = middling
        with each:  # the p-values of this block are checked again in the next one
            # six different seeds: a correct answer gives six equal p-values with probability below 1e-8 (Binomial
            # counts of 4000 at the p-values _middling_scores allows; three seeds: up to 5e-4, one class in a few)
            runs = [sampled_pvalue(sx, sy, 4000, s) for s in (11, 11, 12, 13, 14, 15, 16)]
            g1 = sampled_pvalue(sx, sy, 4000, np.random.default_rng([seed, 21]))
            g2 = sampled_pvalue(sx, sy, 4000, np.random.default_rng([seed, 21]))
            assert runs[0] == runs[1], f"sampled_pvalue gives different p-values for the same seed. {_SEED_CAUSES}"
            assert g1 == g2, (f"sampled_pvalue gives different p-values for two Generators made from the same seed. "
                              f"{_SEED_CAUSES}")
            assert len(set(runs)) > 1, "sampled_pvalue gives the same p-value for different seeds; is rng used?"
        with each:
            for p in runs + [g1]:
                _check_form(p, 4000, "sampled_pvalue on 10 + 10 unseen scores")
                _check_band(p, _exact(sx, sy), 4000, "sampled_pvalue on 10 + 10 unseen scores")
        # the same scores, two-sided: their observed statistic is negative
        with each:
            p = sampled_pvalue(sx, sy, 4000, np.random.default_rng([seed, 22]), alternative="two-sided")
            _check_form(p, 4000, "sampled_pvalue on 10 + 10 unseen scores (two-sided)")
            _check_band(p, _exact(sx, sy, "two-sided"), 4000, "sampled_pvalue on 10 + 10 unseen scores with a "
                        "negative observed statistic (two-sided)",
                        f"'two-sided' counts the splits with {COUNTS['two-sided']}.")
        # without replacement: only a permutation of the pooled scores gives these exact p-values
        for sx, sy, n_resamples, what in [
                ([1.0] * 4, [0.0] * 4, 20_000, "sampled_pvalue on 4 + 4 scores of two values"),
                ([10.0, 0.0, 0.0, 0.0, 0.0], [0.0] * 5, 5_000, "sampled_pvalue on 5 + 5 scores, all tied but one")]:
            with each:
                p = sampled_pvalue(sx, sy, n_resamples, 3)
                _check_form(p, n_resamples, what)
                _check_band(p, _exact(sx, sy), n_resamples, what)
        # the observed split is the most extreme of 12,870: k is (almost) always 0, and p must still be > 0
        with each:
            p = sampled_pvalue([1.0] * 8, [0.0] * 8, 100, 8)
            _check_form(p, 100, "sampled_pvalue when the observed split is the most extreme one")
        with each:
            _chk.check_raises(lambda: sampled_pvalue([1.0, 2.0], [0.0], 100, 0), ValueError,
                              "sampled_pvalue with sets of different sizes should raise ValueError")
        with each:
            _chk.check_raises(lambda: sampled_pvalue([1.0, 2.0], [0.0, 1.0], 0, 0), ValueError,
                              "sampled_pvalue with n_resamples=0 should raise ValueError")
        with each:
            _chk.check_raises(lambda: sampled_pvalue([], [], 100, 0), ValueError,
                              "sampled_pvalue([], [], ...) should raise ValueError")
