"""Hidden tests of 07_wefat: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np

from helpers.embeddings import load_default
from helpers.grading.judge import checks as _chk
from helpers.statistics import wefat_association
from helpers.wefat import name_likeness, run_wefat, run_wefat_names
from helpers.wordsets import FEMALE_TERMS, MALE_TERMS, wefat_names, wefat_occupations

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {"statistics": ["wefat_association"],
              "wefat": ["name_likeness", "run_wefat", "run_wefat_names", "run_wefat_occupations"]}


def _vectors_of(words) -> np.ndarray:
    """Float64 GloVe 6B vectors of ``words``, looked up in lower case (the notebook's ``vectors_of``)."""
    kv = load_default()
    return np.array([kv[w.lower()] for w in words], dtype=np.float64)


# ---------------------------------------------------------------------------------------------------
# Exercise 1: wefat_score
# ---------------------------------------------------------------------------------------------------

def wefat_score_tests(nb, seed):
    """Hidden tests of the cell `wefat_score_tests`."""
    wefat_score = nb.wefat_score
    rng = np.random.default_rng([seed, 707])
    W, A, B = rng.normal(size=(30, 12)), rng.normal(size=(5, 12)), rng.normal(size=(9, 12))
    with _chk.quiet():
        _chk.check_own_work(wefat_score, "wefat_association", "run_wefat", what="`wefat_score`")
    for ddof in (1, 0):
        with _chk.quiet():
            got = wefat_score(W, A, B, ddof=ddof)
        _chk.check_shape(got, (30,), "The result for 30 random target vectors")
        _chk.check_close(got, wefat_association(W, A, B, ddof=ddof),
                         f"The scores of 30 random vectors (|A| = 5, |B| = 9, ddof={ddof})", rtol=1e-9)
    with _chk.quiet():
        scaled = wefat_score(W * rng.uniform(0.1, 10, size=(30, 1)), A * 3.0, B, ddof=1)
    _chk.check_close(scaled, wefat_association(W, A, B), "The scores of rescaled vectors (cosines do not change)",
                     rtol=1e-9)
    # real words
    occupations, _ = wefat_occupations()
    W_real, A_female, B_male = _vectors_of(occupations), _vectors_of(FEMALE_TERMS), _vectors_of(MALE_TERMS)
    with _chk.quiet():
        got = wefat_score(W_real, A_female, B_male)
    _chk.check_close(got, wefat_association(W_real, A_female, B_male), "The scores of the 50 occupations", rtol=1e-9)
    # errors
    _chk.check_raises(lambda: wefat_score(W, A, B, ddof=2), ValueError, "ddof=2 should raise ValueError")
    _chk.check_raises(lambda: wefat_score(W, A[:, :5], B), ValueError,
                      "Vectors of different lengths should raise ValueError")
    _chk.check_raises(lambda: wefat_score(W, np.empty((0, 12)), B), ValueError,
                      "An empty attribute set should raise ValueError")
    _chk.check_raises(lambda: wefat_score(np.array([[0.0, 0.0, 1.0]]), np.array([[1.0, 0.0, 0.0]]),
                                          np.array([[0.0, 1.0, 0.0]])),
                      ValueError, "A word with the same cosine with every attribute word should raise ValueError")


def wefat_score_vectorised_tests(nb, seed):
    """Hidden tests of the cell `wefat_score_vectorised_tests`: a right answer, without a loop.

    The point is for vectorised code that works: a stub or a wrong answer without loops earns nothing.
    """
    rng = np.random.default_rng([seed, 708])
    W = rng.normal(size=(12, 8)) * rng.uniform(0.2, 5.0, size=(12, 1))   # rows of very different lengths
    A, B = rng.normal(size=(4, 8)), rng.normal(size=(7, 8)) * 2.0       # |A| != |B|
    with _chk.quiet():
        _chk.check_close(nb.wefat_score(W, A, B), wefat_association(W, A, B),
                         "wefat_score of 12 random vectors (the vectorised point needs a right answer)", rtol=1e-9)
    # wefat_score and every function of this notebook it uses, also loops in disguise (np.vectorize, map, ...)
    _chk.check_vectorised(nb.wefat_score, hint="Use whole-matrix operations along axis=1 on cosine_matrix(W, A) and "
                          "cosine_matrix(W, B) instead of scoring the words, or checking the inputs, one at a time.")


# ---------------------------------------------------------------------------------------------------
# Exercise 2: drop_least_namelike
# ---------------------------------------------------------------------------------------------------

def _kept_and_dropped(words, V, fraction):
    """The reference filter: the floor(fraction * n) least name-like words dropped, ties earlier first."""
    k = int(np.floor(fraction * len(words)))
    drop = set(np.argsort(name_likeness(V), kind="stable")[:k].tolist())
    return [w for i, w in enumerate(words) if i not in drop], [w for i, w in enumerate(words) if i in drop]


def drop_least_namelike_tests(nb, seed):
    """Hidden tests of the cell `drop_least_namelike_tests`."""
    drop_least_namelike = nb.drop_least_namelike

    def check(words, V, fraction, what):
        with _chk.quiet():
            got = drop_least_namelike(words, V, fraction)
        expected = _kept_and_dropped(words, np.asarray(V, dtype=np.float64), fraction)
        assert isinstance(got, (tuple, list)) and len(got) == 2, (
            f"{what}: drop_least_namelike should return a tuple (kept, dropped).")
        assert len(got[1]) == len(expected[1]), (
            f"{what}: the number of words dropped is not correct (floor(fraction * n)).")
        assert tuple(map(list, got)) == expected, f"{what}: the words kept and dropped are not correct."
        return got

    # the 50 names of Figure 2 (paper's fraction) and a larger fraction
    names, _ = wefat_names()
    V = _vectors_of(names)
    with _chk.quiet():
        _chk.check_own_work(drop_least_namelike, "name_likeness", "run_wefat", "run_wefat_names",
                            what="`drop_least_namelike`")
    got = check(names, V, 0.2, "The 50 names of Figure 2 (fraction 0.2)")
    assert list(got[1]) == run_wefat_names(load_default()).filtered_words, (
        "The names dropped from the 50 names of Figure 2 are not the paper's filter.")
    check(names, V, 0.3, "The 50 names of Figure 2 (fraction 0.3)")
    # random vectors of very different lengths, given as lists; 0.2 * 48 = 9.6 and 0.3 * 37 = 11.1 words (rounded down)
    rng = np.random.default_rng([seed, 77])
    for n, fraction in ((48, 0.2), (37, 0.3)):
        V = (rng.normal(size=(n, 6)) + 0.8) * np.exp(2 * rng.normal(size=(n, 1)))
        check([f"w{i}" for i in range(n)], V.tolist(), fraction,
              f"With {n} random vectors of different lengths and fraction {fraction}")
    # exact ties among many words (fixed: the cut falls inside a group of tied words): 40 words in 6 directions,
    # with lengths that differ by powers of 2, so that words of one direction have exactly the same unit vector
    rng = np.random.default_rng(2)
    base = rng.normal(size=(6, 6)) + 0.8
    V = base[rng.integers(0, 6, size=40)] * 2.0 ** rng.integers(-3, 4, size=(40, 1))
    for fraction in (0.2, 0.3):
        check([f"t{i}" for i in range(40)], V, fraction,
              f"With many equally distant words (40 words, fraction {fraction}; of two equally distant words the "
              "earlier one is dropped first)")
    # errors
    toy_words = ["a", "b", "c", "d", "e"]
    toy_vectors = np.array([[1, 0], [1, 0.1], [1, -0.1], [0.9, 0], [-1, 1]])
    _chk.check_raises(lambda: drop_least_namelike(toy_words, toy_vectors, 1.0), ValueError,
                      "fraction=1 should raise ValueError")
    _chk.check_raises(lambda: drop_least_namelike(toy_words, toy_vectors, -0.1), ValueError,
                      "A negative fraction should raise ValueError")
    _chk.check_raises(lambda: drop_least_namelike(toy_words[:4], toy_vectors, 0.2), ValueError,
                      "4 words with 5 vectors should raise ValueError")


# ---------------------------------------------------------------------------------------------------
# Exercise 3: wefat_correlation
# ---------------------------------------------------------------------------------------------------

def _compare_wefat(got, ref, label):
    """``got`` (what wefat_correlation returned) against the reference's WefatResult ``ref``."""
    assert isinstance(got, dict), f"{label}: the result should be a dict."
    assert list(got["words"]) == ref.words, f"{label}: `words` is not correct."
    assert list(got["missing"]) == ref.missing_words, f"{label}: `missing` is not correct."
    assert list(got["dropped"]) == ref.filtered_words, f"{label}: `dropped` is not correct."
    _chk.check_close(got["values"], ref.values, f"{label}: `values`")
    _chk.check_close(got["scores"], ref.scores, f"{label}: `scores`", rtol=1e-8)
    for key, expected in (("r", ref.pearson_r), ("p", ref.pvalue), ("slope", ref.slope), ("intercept", ref.intercept)):
        _chk.check_close(got[key], expected, f"{label}: `{key}`", rtol=1e-7, atol=1e-300)


def wefat_correlation_tests(nb, seed):
    """Hidden tests of the cell `wefat_correlation_tests`."""
    wefat_correlation = nb.wefat_correlation
    kv = load_default()
    occupations, occupation_values = wefat_occupations()
    with _chk.quiet():
        got = _chk.check_own_work(wefat_correlation, "run_wefat", "run_wefat_occupations", "run_wefat_names",
                                  what="`wefat_correlation`",
                                  run=lambda: wefat_correlation(kv, occupations, occupation_values))
    _compare_wefat(got, run_wefat(kv, occupations, occupation_values), "The 50 occupations")
    names, name_values = wefat_names()
    for fraction in (0.2, 0.3):
        with _chk.quiet():
            got = wefat_correlation(kv, names, name_values, fraction=fraction)
        _compare_wefat(got, run_wefat(kv, names, name_values, drop_least_namelike=fraction),
                       f"The 50 names, fraction {fraction}")
    # other attribute sets, missing words and the filter together
    words = ["Rose", "zqxname", "Lily", "Jasmine", "Daisy", "Violet", "Iris", "qqzzname", "Holly", "Ivy", "Heather",
             "Poppy"]
    values = np.random.default_rng([seed, 7]).uniform(5, 95, len(words))
    A, B = ["flower", "garden", "petal"], ["name", "girl", "woman", "mother"]
    with _chk.quiet():
        got = wefat_correlation(kv, words, values, A, B, fraction=0.25)
    _compare_wefat(got, run_wefat(kv, words, values, A, B, drop_least_namelike=0.25),
                   "Flower names with other attribute sets")
    _chk.check_raises(lambda: wefat_correlation(kv, occupations, occupation_values[:-1]), ValueError,
                      "Words and values of different lengths should raise ValueError")
    _chk.check_raises(lambda: wefat_correlation(kv, ["nurse", "zqxjob", "qqzzjob"], [1.0, 2.0, 3.0]), ValueError,
                      "Fewer than 3 words should raise ValueError")
    # exactly 3 words left are enough; 2 left after the filter are not
    with _chk.quiet():
        three = wefat_correlation(kv, ["nurse", "engineer", "zqxjob", "librarian"], [90.0, 10.0, 50.0, 80.0])
    assert isinstance(three, dict) and list(three["words"]) == ["nurse", "engineer", "librarian"], (
        "With exactly 3 words found, wefat_correlation should compute the correlation (a correlation needs at least 3).")
    _chk.check_raises(lambda: wefat_correlation(kv, ["nurse", "engineer", "librarian"], [90.0, 10.0, 80.0],
                                                fraction=0.4),
                      ValueError, "When the filter leaves fewer than 3 words, wefat_correlation should raise ValueError")
    _chk.check_raises(lambda: wefat_correlation(kv, occupations, occupation_values, ["woman", "zqxwoman"],
                                                ["man", "he"]),
                      ValueError, "An attribute word that is not in the embedding should raise ValueError")
