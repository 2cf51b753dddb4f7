"""Hidden tests of 04_effect_size: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from scipy import stats

from helpers import statistics as reference
from helpers.embeddings import load_default
from helpers.grading.judge import Call
from helpers.grading.judge import checks as _chk
from helpers.weat import run_weat
from helpers.wordsets import weat_test

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
#: ``effect_size_from_scores`` (the reference of the exercise effect_size) stays: helpers.weat.run_weat
#: computes its d with it, and the notebook's narrative runs run_weat for the scores of Table 1; that
#: the exercises do not call it is read from their source (check_own_work).
REFERENCES = {"statistics": ["effect_size"]}

#: The names every exercise of this notebook must not call.
_OWN = ("effect_size", "effect_size_from_scores")


def _swapped_and_scaled(each, cases, d, swapped, scaled, call: str, *, swap_hint: str, scale_hint: str) -> None:
    """The two blocks effect_size's and cohens_d's tests share: swapping X and Y flips the sign of d, multiplying
    every score by 10 leaves it as it is. ``d(k)``, ``swapped(k)`` and ``scaled(k)`` are case k's answers, read inside
    the blocks (a value an earlier block failed to read stops the test there, as any hidden test's own error);
    ``call`` names the call in the messages, with ``{}`` for its two arguments."""
    name = call.split("(")[0]
    with each:
        for k, (nx, ny, _, _) in enumerate(cases):
            _chk.check_close(swapped(k), -d(k), f"{call.format('sy, sx')} with X and Y swapped ({ny} + {nx} scores), "
                             f"which should be -{call.format('sx, sy')}", rtol=1e-9, hint=swap_hint)
    with each:
        for k, (nx, ny, _, _) in enumerate(cases):
            _chk.check_close(scaled(k), d(k), f"{name} on the same {nx} + {ny} scores multiplied by 10 (which should "
                             "not change d: it has no units)", rtol=1e-9, hint=scale_hint)


def effect_size_tests(nb, seed):
    """Hidden tests of the cell `effect_size_tests`."""
    effect_size = nb.effect_size
    rng = np.random.default_rng([seed, 20170414])
    cases = [(nx, ny, rng.normal(0.05, 0.1, nx), rng.normal(-0.03, 0.1, ny)) for nx, ny in [(8, 8), (5, 7), (25, 25), (1, 3)]]
    runs = []
    for row in (6, 7):
        t = weat_test(row)
        runs.append((row, run_weat(load_default(), t.target_x.used_by_paper, t.target_y.used_by_paper,
                                   t.attribute_a.used_by_paper, t.attribute_b.used_by_paper, rng=0)))
    # each block fails alone: the feedback names every mistake (one block per kind of check, over all the cases)
    with _chk.every_failure() as each:
        # own work first, alone: the value checks mean nothing for the course's reference
        _chk.check_own_work(effect_size, *_OWN, what="`effect_size`",
                            run=lambda: effect_size([0.3, 0.1, 0.2], [0.0, -0.1]))
        # one request for the calls other than check_unchanged's: five per case, in this order
        answers = effect_size.map(call for _, _, sx, sy in cases for call in (
            Call(sx, sy, ddof=0), Call(list(sx), list(sy)), Call(sy, sx, ddof=1), Call(10.0 * sx, 10.0 * sy, ddof=1),
            Call(np.concatenate([sx, sx]), np.concatenate([sy, sy]), ddof=0)))
        D0, DEFAULT, SWAPPED, SCALED, D0_DOUBLED = range(5)

        def answer(k, which):
            return answers[5 * k + which]

        with each:  # d with ddof=1 on every case: the blocks after this one compare with it
            d1s = [_chk.check_unchanged(effect_size, sx, sy, ddof=1,
                                        what=f"effect_size(sx, sy, ddof=1) on {nx} + {ny} scores")
                   for nx, ny, sx, sy in cases]
            for (nx, ny, sx, sy), d1 in zip(cases, d1s):
                _chk.check_type(d1, float, f"effect_size on {nx} + {ny} scores")
                assert (d1 > 0) == (reference.effect_size_from_scores(sx, sy, ddof=1) > 0), (
                    f"effect_size(sx, sy, ddof=1) on {nx} + {ny} unseen scores has the wrong sign: d is the mean of X "
                    "minus the mean of Y (keep its sign: no absolute value), divided by a standard deviation, which is "
                    "positive.")
        _swapped_and_scaled(each, cases, lambda k: d1s[k], lambda k: answer(k, SWAPPED), lambda k: answer(k, SCALED),
                            "effect_size({}, ddof=1)",
                            swap_hint="Swapping X and Y should flip the sign of d and change nothing else: do not "
                                      "take the absolute value, and use a standard deviation that treats X and Y "
                                      "alike (that of all the scores together).",
                            scale_hint="Divide by the standard deviation, the square root of the variance (not by the "
                                       "variance).")
        with each:
            for k, (nx, ny, sx, sy) in enumerate(cases):
                N = nx + ny
                _chk.check_close(answer(k, D0) * np.sqrt((N - 1) / N), d1s[k], f"effect_size with ddof=1 compared "
                                 f"with ddof=0 on the same {nx} + {ny} scores (d with ddof=1 should be d with ddof=0 "
                                 "times sqrt((N - 1) / N))", rtol=1e-9,
                                 hint="Pass ddof on to the standard deviation of all N scores of X and Y together "
                                      "(np.std(pooled, ddof=ddof): N - ddof in the denominator of the variance).")
        with each:
            for k, (nx, ny, sx, sy) in enumerate(cases):
                _chk.check_close(answer(k, D0_DOUBLED), answer(k, D0), f"effect_size(ddof=0) with each of the {nx} + "
                                 f"{ny} scores repeated twice (which should not change d)", rtol=1e-9,
                                 hint="The numerator is the difference of the two means, not of the two sums; "
                                      "and pass ddof on to the standard deviation (with ddof=0, repeating every "
                                      "score changes neither the means nor the standard deviation).")
        with each:
            for k, (nx, ny, sx, sy) in enumerate(cases):
                _chk.check_close(d1s[k], reference.effect_size_from_scores(sx, sy, ddof=1),
                                 f"effect_size on {nx} + {ny} unseen scores with ddof=1", rtol=1e-9,
                                 hint="The denominator is the standard deviation of all the scores of X and Y pooled "
                                      "together (np.concatenate): not of X alone, not the within-group standard "
                                      "deviation of Cohen's d, not the average of the two groups' standard deviations.")
        with each:
            for k, (nx, ny, sx, sy) in enumerate(cases):
                _chk.check_close(answer(k, D0), reference.effect_size_from_scores(sx, sy, ddof=0),
                                 f"effect_size on {nx} + {ny} unseen scores with ddof=0", rtol=1e-9)
        with each:
            for k, (nx, ny, sx, sy) in enumerate(cases):
                _chk.check_close(answer(k, DEFAULT), d1s[k], f"effect_size(sx, sy) without ddof, on {nx} + {ny} scores "
                                 "given as lists, which should equal effect_size(sx, sy, ddof=1)", rtol=1e-9,
                                 hint="The default is ddof=1, the sample standard deviation; lists must work like "
                                      "arrays.")
        # one request; the answers checked in the order of the calls
        answers = effect_size.map([(r.scores_x, r.scores_y) for _, r in runs] + [
            ([0.5, 0.25], []), ([0.25, 0.25], [0.25]), Call([0.25, 0.25], [0.25, 0.25], ddof=0)])
        with each:
            for i, (row, r) in enumerate(runs):
                _chk.check_close(answers[i], reference.effect_size_from_scores(r.scores_x, r.scores_y, ddof=1),
                                 f"effect_size on the GloVe scores of Table 1, row {row}", rtol=1e-9)
        with each:
            _chk.check_raises(lambda: answers[2], ValueError, "effect_size with an empty Y should raise ValueError")
        with each:
            _chk.check_raises(lambda: answers[3], ValueError,
                              "effect_size with all scores equal (standard deviation 0) should raise ValueError")
        with each:
            _chk.check_raises(lambda: answers[4], ValueError,
                              "effect_size with all scores equal and ddof=0 should raise ValueError")


_BOUND_HINTS = {0: "With ddof=0 the footnote's bound is reached, whatever the number of words.",
                1: "With ddof=1 the bound is below 2 and depends on n: the variance divides by N - 1, where N = 2n "
                   "counts the words of X and Y together (see the docstring)."}


def max_effect_size_tests(nb, seed):
    """Hidden tests of the cell `max_effect_size_tests`."""
    max_effect_size = nb.max_effect_size
    cases = [(n, ddof) for ddof in (0, 1) for n in (1, 2, 6, 8, 25, 100)]
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        _chk.check_own_work(max_effect_size, *_OWN, what="`max_effect_size`", run=lambda: max_effect_size(3, 1))
        answers = max_effect_size.map(cases + [(8, 2), (-3, 1)])  # one request; the answers checked in its order
        for bound_ddof in (0, 1):  # a block for each bound: a mistake in one of them does not hide the other
            with each:
                for i, (n, ddof) in enumerate(cases):
                    if ddof != bound_ddof:
                        continue
                    m = answers[i]
                    _chk.check_type(m, float, f"max_effect_size({n}, {ddof})")
                    # the most extreme configuration reaches the bound
                    _chk.check_close(m, reference.effect_size_from_scores([1.0] * n, [-1.0] * n, ddof=ddof),
                                     f"max_effect_size({n}, {ddof}), the bound with ddof={ddof} for {n} + {n} target "
                                     "words,", rtol=1e-9, hint=_BOUND_HINTS[ddof])
        with each:
            _chk.check_raises(lambda: answers[len(cases)], ValueError,
                              "max_effect_size(8, 2) should raise ValueError (ddof must be 0 or 1)")
        with each:
            _chk.check_raises(lambda: answers[len(cases) + 1], ValueError,
                              "max_effect_size(-3, 1) should raise ValueError")


def cohens_d_tests(nb, seed):
    """Hidden tests of the cell `cohens_d_tests`."""
    cohens_d = nb.cohens_d
    rng = np.random.default_rng([seed, 1998])
    cases = [(nx, ny, rng.normal(shift, 1.0, nx), rng.normal(0.0, 1.5, ny))
             for nx, ny, shift in [(8, 8, 0.5), (4, 9, 1.0), (30, 30, 6.0), (1, 2, 1.0)]]
    # the two-sample t statistic with equal variances is d / sqrt(1/n_X + 1/n_Y)
    expected = [stats.ttest_ind(sx, sy, equal_var=True).statistic * np.sqrt(1 / nx + 1 / ny)
                for nx, ny, sx, sy in cases]
    # each block fails alone: the feedback names every mistake (one block per kind of check, over all the cases)
    with _chk.every_failure() as each:
        _chk.check_own_work(cohens_d, *_OWN, what="`cohens_d`", run=lambda: cohens_d([0.3, 0.1, 0.2], [0.0, -0.1]))
        # one request for the calls other than check_unchanged's: three per case, in this order
        answers = cohens_d.map(args for _, _, sx, sy in cases
                               for args in ((list(sx), sy), (sy, sx), (10.0 * sx, 10.0 * sy)))
        LIST, SWAPPED, SCALED = range(3)

        def answer(k, which):
            return answers[3 * k + which]

        with each:  # d on every case: the blocks after this one compare with it
            cs = [_chk.check_unchanged(cohens_d, sx, sy, what=f"cohens_d(sx, sy) on {nx} + {ny} scores")
                  for nx, ny, sx, sy in cases]
            for (nx, ny, sx, sy), c, e in zip(cases, cs, expected):
                _chk.check_type(c, float, f"cohens_d on {nx} + {ny} scores")
                assert (c > 0) == (e > 0), (
                    f"cohens_d on {nx} + {ny} unseen scores has the wrong sign: d is the mean of X minus the mean of "
                    "Y, divided by s_p, which is positive (keep the sign: no absolute value).")
        _swapped_and_scaled(each, cases, lambda k: cs[k], lambda k: answer(k, SWAPPED), lambda k: answer(k, SCALED),
                            "cohens_d({})",
                            swap_hint="Swapping X and Y should flip the sign of d and change nothing else: do not take "
                                      "the absolute value, and pool the spread of both groups in s_p (not one group's "
                                      "standard deviation).",
                            scale_hint="Divide by s_p, the square root of the pooled variance (not by the variance).")
        with each:
            for k, (nx, ny, sx, sy) in enumerate(cases):
                _chk.check_close(cs[k], expected[k], f"cohens_d on {nx} + {ny} unseen scores", rtol=1e-9,
                                 hint="s_p pools the within-group sums of squares of X and Y and divides them by "
                                      "n_X + n_Y - 2: it is not the standard deviation of all the scores together "
                                      "(the WEAT's d), not the plain mean of the two groups' variances (right only for "
                                      "equal sizes), not one group's standard deviation.")
        with each:
            for k, (nx, ny, sx, sy) in enumerate(cases):
                _chk.check_close(answer(k, LIST), cs[k], f"cohens_d on {nx} + {ny} scores with X given as a list",
                                 rtol=1e-9, hint="Convert the inputs with np.asarray(..., dtype=float).")
        # one request; the answers checked in the order of the calls
        answers = cohens_d.map([([], [1.0, 2.0]), ([1.0], [0.5]), ([1.0, 1.0], [0.0, 0.0])])
        with each:
            _chk.check_raises(lambda: answers[0], ValueError, "cohens_d with an empty X should raise ValueError")
        with each:
            _chk.check_raises(lambda: answers[1], ValueError, "cohens_d with only 2 scores should raise ValueError")
        with each:
            _chk.check_raises(lambda: answers[2], ValueError,
                              "cohens_d with a zero within-group standard deviation should raise ValueError")
