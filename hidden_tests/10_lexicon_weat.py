"""Hidden tests of 10_lexicon_weat: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function (a proxy: calls run in the student's kernel on plain data), ``seed`` this
submission's seed. Expected values are computed here, with the reference (:mod:`helpers.statistics`).
"""

import numpy as np

from helpers import statistics as _reference
from helpers.grading.judge import TextFile
from helpers.grading.judge import checks as _chk

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
#: None here: the notebook's narrative runs helpers.lexicon.run_lexicon_tests and helpers.weat.run_table1,
#: which need helpers.lexicon.load_lexicon (through empath_category) and helpers.statistics.effect_size.
#: Own work is the rule on the code (check_own_work) alone.
REFERENCES = {}

#: A lexicon with capitals, spaces, a repeated word, an out-of-vocabulary word and categories whose
#: names contain each other, and a vocabulary; both fixed (a constructed case).
LEXICON = TextFile("category,word\npositive_emotion,Zest\nnegative_emotion,gloom\npositive_emotion, cheer \n"
                   "positive_emotion,bliss\npositive_emotion,zest\npositive_emotion,qqqx\npositive_emotion,Amity\n"
                   "positive_emotion,happy\nhomework,essay\nwork,office\n", name="hidden_lexicon.csv")
VOCABULARY = {"zest", "cheer", "bliss", "amity", "happy", "gloom", "office", "essay"}


def _pair(result):
    """``result`` as ``(found, missing)``; a failed check (not an error of the test's own unpacking) otherwise."""
    assert isinstance(result, (tuple, list)) and len(result) == 2, (
        f"load_lexicon should return two lists, (found, missing), not {type(result).__name__}"
        + (f" of {len(result)}" if isinstance(result, (tuple, list)) else "") + ".")
    return result


def load_lexicon_tests(nb, seed):
    """Capitals, spaces, repeats, the file's order, exact category names, no word found; own work."""
    load_lexicon = nb.load_lexicon
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        # own work first, alone (its run is also the first value check)
        first = _chk.check_own_work(load_lexicon, "load_lexicon", "empath_category", what="`load_lexicon`",
                                    run=lambda: load_lexicon(LEXICON, "positive_emotion", VOCABULARY))
        with each:
            found, missing = _pair(first)
            assert [list(found), list(missing)] == [["zest", "cheer", "bliss", "amity", "happy"], ["qqqx"]], (
                "load_lexicon on a file with capitals, spaces, a repeated word and an out-of-vocabulary word is not "
                "right.")
        with each:
            found, missing = _pair(load_lexicon(LEXICON, "work", VOCABULARY))
            assert [list(found), list(missing)] == [["office"], []], (
                "'work' must match the category exactly (not 'homework').")
        with each:
            _chk.check_raises(lambda: load_lexicon(LEXICON, "emotion", VOCABULARY), ValueError,
                              "A category name that is only part of other names should raise ValueError")
        with each:
            _chk.check_raises(lambda: load_lexicon(LEXICON, "negative_emotion", {"happy"}), ValueError,
                              "A category with no word in the vocabulary should raise ValueError")


#: The usual mistakes of Exercise 2, each as the options of :func:`_variant` that make it.
MISTAKES = {
    "the population standard deviation (ddof=0) instead of the sample one (ddof=1)": {"ddof": 0},
    "dot products of the raw vectors instead of cosines (no normalisation)": {"axis": None},
    "vectors normalised along the wrong axis (each column, axis=0, instead of each row, axis=1)": {"axis": 0},
    "sums over X and Y instead of means": {"targets": np.sum},
    "sums over A and B instead of means": {"attributes": np.sum},
    "sums over X and Y and over A and B instead of means": {"targets": np.sum, "attributes": np.sum},
    "the standard deviation of X's scores only instead of all |X| + |Y| scores pooled": {"pooled": False},
    "Cohen's pooled standard deviation (the mean of the two variances) instead of the standard deviation of all "
    "|X| + |Y| scores": {"pooled": "cohen"},
    "the mean over Y minus the mean over X (the sign reversed)": {"sign": -1},
}


def _variant(X, Y, A, B, *, ddof=1, axis=1, targets=np.mean, attributes=np.mean, pooled=True, sign=1) -> float:
    """The effect size computed with one of the usual mistakes (the defaults give the right one)."""
    Xu, Yu, Au, Bu = (S if axis is None else S / np.linalg.norm(S, axis=axis, keepdims=True) for S in (X, Y, A, B))
    w = attributes(Au, axis=0) - attributes(Bu, axis=0)
    sx, sy = Xu @ w, Yu @ w
    if pooled == "cohen":
        sd = np.sqrt((sx.var(ddof=ddof) + sy.var(ddof=ddof)) / 2)
    else:
        sd = (np.concatenate([sx, sy]) if pooled else sx).std(ddof=ddof)
    return float(sign * (targets(sx) - targets(sy)) / sd)


def _likely_mistake(got, sets) -> str:
    """A hint that names the usual mistake whose effect size equals ``got`` on ``sets`` (a general one otherwise)."""
    try:
        value = float(np.asarray(got, dtype=np.float64))
    except (TypeError, ValueError):
        value = float("nan")
    with np.errstate(all="ignore"):
        for mistake, options in MISTAKES.items():
            if np.isclose(value, _variant(*sets, **options), rtol=1e-7, atol=1e-10):
                return f"Your value is what {mistake} gives."
    return ("Check each step: cosines (each row divided by its own length, axis=1), means (not sums) over A and B "
            "and over X and Y, and the sample standard deviation (ddof=1) of the |X| + |Y| scores pooled.")


def large_list_effect_size_tests(nb, seed):
    """Random sets of four different sizes (twice), vectors of different lengths, a zero vector; own work."""
    large_list_effect_size = nb.large_list_effect_size
    rng = np.random.default_rng([seed, 1010])
    sets = [rng.normal(size=(k, 6)) * rng.uniform(0.2, 5.0, size=(k, 1)) for k in (7, 3, 11, 4)]
    sets[0][:, 0] += 1.5   # X and A share a component along the first axis
    sets[2][:, 0] += 1.5
    sets2 = [rng.normal(size=(k, 5)) for k in (2, 9, 3, 13)]
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        # own work first, alone (its run is also the first value check)
        d = _chk.check_own_work(large_list_effect_size, "effect_size", "effect_size_from_scores", "association",
                                "differential_association", what="`large_list_effect_size`",
                                run=lambda: large_list_effect_size(*sets))
        with each:
            _chk.check_close(d, _reference.effect_size(*sets),
                             "large_list_effect_size on random sets of sizes 7, 3, 11 and 4", rtol=1e-7, atol=1e-10,
                             hint=_likely_mistake(d, sets))
        with each:
            d2 = large_list_effect_size(*sets2)
            _chk.check_close(d2, _reference.effect_size(*sets2),
                             "large_list_effect_size on random sets of sizes 2, 9, 3 and 13", rtol=1e-7, atol=1e-10,
                             hint=_likely_mistake(d2, sets2))
        with each:
            _chk.check_raises(lambda: large_list_effect_size(np.vstack([sets[0], np.zeros(6)]), *sets[1:]),
                              ValueError, "A zero vector should raise ValueError")
