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


def _wefat_score(W, A, B, ddof=1):
    """The exercise's ``wefat_score`` (s(w, A, B) of every row of W), its ValueErrors included.

    The stand-in for the notebook's ``wefat_score`` while ``wefat_correlation`` is judged (it runs in the kernel: NumPy
    and builtins only, so the cosines are computed here, not with ``cosine_matrix``).
    """
    W, A, B = np.asarray(W, dtype=np.float64), np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64)
    if W.ndim != 2 or A.ndim != 2 or B.ndim != 2 or 0 in (W.shape[0], A.shape[0], B.shape[0]):
        raise ValueError("W, A and B must be 2-D arrays with one vector per row and at least one row.")
    if not W.shape[1] == A.shape[1] == B.shape[1]:
        raise ValueError("W, A and B must have vectors of the same length.")
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, not {ddof!r}.")
    norms = [np.linalg.norm(M, axis=1, keepdims=True) for M in (W, A, B)]
    if any(np.any(n == 0) for n in norms):
        raise ValueError("An all-zero vector has no cosine.")
    U, UA, UB = W / norms[0], A / norms[1], B / norms[2]
    cos_a, cos_b = U @ UA.T, U @ UB.T
    sd = np.concatenate([cos_a, cos_b], axis=1).std(axis=1, ddof=ddof)
    if np.any(sd == 0):
        raise ValueError("A target word has the same cosine with every attribute word, so its score is undefined.")
    return (cos_a.mean(axis=1) - cos_b.mean(axis=1)) / sd


def _drop_least_namelike(words, vectors, fraction=0.2):
    """The exercise's ``drop_least_namelike``: (kept, dropped), the floor(fraction * n) words farthest from the
    centroid of the unit vectors dropped (ties: the earlier word first), its ValueErrors included.

    The stand-in for the notebook's ``drop_least_namelike`` while ``wefat_correlation`` is judged (it runs in the
    kernel).
    """
    words = list(words)
    V = np.asarray(vectors, dtype=np.float64)
    if not 0 <= fraction < 1:
        raise ValueError(f"fraction must be in [0, 1), not {fraction!r}.")
    if not words:
        raise ValueError("There are no words to filter.")
    if V.ndim != 2 or V.shape[0] != len(words):
        raise ValueError(f"vectors must have one row per word ({len(words)} rows); got shape {V.shape}.")
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    distance = np.linalg.norm(U - U.mean(axis=0), axis=1)
    drop = set(np.argsort(-distance, kind="stable")[:int(np.floor(fraction * len(words)))].tolist())
    return [w for i, w in enumerate(words) if i not in drop], [w for i, w in enumerate(words) if i in drop]


# ---------------------------------------------------------------------------------------------------
# Exercise 1: wefat_score
# ---------------------------------------------------------------------------------------------------

def wefat_score_tests(nb, seed):
    """Hidden tests of the cell `wefat_score_tests`."""
    wefat_score = nb.wefat_score
    rng = np.random.default_rng([seed, 707])
    W, A, B = rng.normal(size=(30, 12)), rng.normal(size=(5, 12)), rng.normal(size=(9, 12))
    lengths = rng.uniform(0.1, 10, size=(30, 1))
    occupations, _ = wefat_occupations()
    W_real, A_female, B_male = _vectors_of(occupations), _vectors_of(FEMALE_TERMS), _vectors_of(MALE_TERMS)
    # own work first, alone (a call of the reference raises in every check below); then each block fails alone
    with _chk.every_failure() as each:
        _chk.check_own_work(wefat_score, "wefat_association", "run_wefat", what="`wefat_score`")
        for ddof in (1, 0):
            with each:
                got = wefat_score(W, A, B, ddof=ddof)
                _chk.check_shape(got, (30,), "The result for 30 random target vectors")
                _chk.check_close(got, wefat_association(W, A, B, ddof=ddof),
                                 f"The scores of 30 random vectors (|A| = 5, |B| = 9, ddof={ddof})", rtol=1e-9)
        with each:
            scaled = wefat_score(W * lengths, A * 3.0, B, ddof=1)
            _chk.check_close(scaled, wefat_association(W, A, B),
                             "The scores of rescaled vectors (cosines do not change)", rtol=1e-9)
        with each:  # real words
            got = wefat_score(W_real, A_female, B_male)
            _chk.check_close(got, wefat_association(W_real, A_female, B_male), "The scores of the 50 occupations",
                             rtol=1e-9)
        # errors
        with each:
            _chk.check_raises(lambda: wefat_score(W, A, B, ddof=2), ValueError, "ddof=2 should raise ValueError")
        with each:
            _chk.check_raises(lambda: wefat_score(W, A[:, :5], B), ValueError,
                              "Vectors of different lengths should raise ValueError")
        with each:
            _chk.check_raises(lambda: wefat_score(W, np.empty((0, 12)), B), ValueError,
                              "An empty attribute set should raise ValueError")
        with each:
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
    with _chk.every_failure() as each:
        with each:
            _chk.check_close(nb.wefat_score(W, A, B), wefat_association(W, A, B),
                             "wefat_score of 12 random vectors (the vectorised point needs a right answer)", rtol=1e-9)
        with each:
            # wefat_score and every function of this notebook it uses, also loops in disguise (np.vectorize, map, ...)
            _chk.check_vectorised(nb.wefat_score, hint="Use whole-matrix operations along axis=1 on "
                                  "cosine_matrix(W, A) and cosine_matrix(W, B) instead of scoring the words, or "
                                  "checking the inputs, one at a time.")


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
    V_names = _vectors_of(names)
    # random vectors of very different lengths, given as lists; 0.2 * 48 = 9.6 and 0.3 * 37 = 11.1 words (rounded down)
    rng = np.random.default_rng([seed, 77])
    randoms = [(n, fraction, (rng.normal(size=(n, 6)) + 0.8) * np.exp(2 * rng.normal(size=(n, 1))))
               for n, fraction in ((48, 0.2), (37, 0.3))]
    # exact ties among many words (fixed: the cut falls inside a group of tied words): 40 words in 6 directions,
    # with lengths that differ by powers of 2, so that words of one direction have exactly the same unit vector
    fixed = np.random.default_rng(2)
    base = fixed.normal(size=(6, 6)) + 0.8
    V_ties = base[fixed.integers(0, 6, size=40)] * 2.0 ** fixed.integers(-3, 4, size=(40, 1))
    toy_words = ["a", "b", "c", "d", "e"]
    toy_vectors = np.array([[1, 0], [1, 0.1], [1, -0.1], [0.9, 0], [-1, 1]])
    # own work first, alone (a call of the reference raises in every check below); then each block fails alone
    with _chk.every_failure() as each:
        _chk.check_own_work(drop_least_namelike, "name_likeness", "run_wefat", "run_wefat_names",
                            what="`drop_least_namelike`")
        with each:
            got = check(names, V_names, 0.2, "The 50 names of Figure 2 (fraction 0.2)")
            assert list(got[1]) == run_wefat_names(load_default()).filtered_words, (
                "The names dropped from the 50 names of Figure 2 are not the paper's filter.")
        with each:
            check(names, V_names, 0.3, "The 50 names of Figure 2 (fraction 0.3)")
        for n, fraction, V in randoms:
            with each:
                check([f"w{i}" for i in range(n)], V.tolist(), fraction,
                      f"With {n} random vectors of different lengths and fraction {fraction}")
        for fraction in (0.2, 0.3):
            with each:
                check([f"t{i}" for i in range(40)], V_ties, fraction,
                      f"With many equally distant words (40 words, fraction {fraction}; of two equally distant words "
                      "the earlier one is dropped first)")
        # errors
        with each:
            _chk.check_raises(lambda: drop_least_namelike(toy_words, toy_vectors, 1.0), ValueError,
                              "fraction=1 should raise ValueError")
        with each:
            _chk.check_raises(lambda: drop_least_namelike(toy_words, toy_vectors, -0.1), ValueError,
                              "A negative fraction should raise ValueError")
        with each:
            _chk.check_raises(lambda: drop_least_namelike(toy_words[:4], toy_vectors, 0.2), ValueError,
                              "4 words with 5 vectors should raise ValueError")


# ---------------------------------------------------------------------------------------------------
# Exercise 3: wefat_correlation
# ---------------------------------------------------------------------------------------------------

#: The keys of wefat_correlation's result (its docstring's Returns).
WEFAT_KEYS = ("words", "values", "scores", "r", "p", "slope", "intercept", "missing", "dropped")


def _compare_wefat(got, ref, label):
    """``got`` (what wefat_correlation returned) against the reference's WefatResult ``ref``."""
    assert isinstance(got, dict), f"{label}: the result should be a dict."
    lacking = [k for k in WEFAT_KEYS if k not in got]
    assert not lacking, f"{label}: the result lacks the key(s) {', '.join(map(repr, lacking))}."
    assert list(got["words"]) == ref.words, f"{label}: `words` is not correct."
    assert list(got["missing"]) == ref.missing_words, f"{label}: `missing` is not correct."
    assert list(got["dropped"]) == ref.filtered_words, f"{label}: `dropped` is not correct."
    _chk.check_close(got["values"], ref.values, f"{label}: `values`")
    _chk.check_close(got["scores"], ref.scores, f"{label}: `scores`", rtol=1e-8)
    for key, expected in (("r", ref.pearson_r), ("p", ref.pvalue), ("slope", ref.slope), ("intercept", ref.intercept)):
        _chk.check_close(got[key], expected, f"{label}: `{key}`", rtol=1e-7, atol=1e-300)


def wefat_correlation_tests(nb, seed):
    """Hidden tests of the cell `wefat_correlation_tests`.

    Judged with the course's ``wefat_score`` and ``drop_least_namelike`` in place of the notebook's: a mistake in either
    costs its own exercise."""
    wefat_correlation = nb.wefat_correlation.alone(wefat_score=_wefat_score, drop_least_namelike=_drop_least_namelike)
    kv = load_default()
    occupations, occupation_values = wefat_occupations()
    names, name_values = wefat_names()
    # other attribute sets, missing words and the filter together
    words = ["Rose", "zqxname", "Lily", "Jasmine", "Daisy", "Violet", "Iris", "qqzzname", "Holly", "Ivy", "Heather",
             "Poppy"]
    values = np.random.default_rng([seed, 7]).uniform(5, 95, len(words))
    A, B = ["flower", "garden", "petal"], ["name", "girl", "woman", "mother"]
    # own work first, alone (a call of the reference raises in every check below); then each block fails alone
    with _chk.every_failure() as each:
        _chk.check_own_work(wefat_correlation, "run_wefat", "run_wefat_occupations", "run_wefat_names",
                            what="`wefat_correlation`")
        with each:
            got = wefat_correlation(kv, occupations, occupation_values)
            _compare_wefat(got, run_wefat(kv, occupations, occupation_values), "The 50 occupations")
        for fraction in (0.2, 0.3):
            with each:
                got = wefat_correlation(kv, names, name_values, fraction=fraction)
                _compare_wefat(got, run_wefat(kv, names, name_values, drop_least_namelike=fraction),
                               f"The 50 names, fraction {fraction}")
        with each:
            got = wefat_correlation(kv, words, values, A, B, fraction=0.25)
            _compare_wefat(got, run_wefat(kv, words, values, A, B, drop_least_namelike=0.25),
                           "Flower names with other attribute sets")
        with each:
            _chk.check_raises(lambda: wefat_correlation(kv, occupations, occupation_values[:-1]), ValueError,
                              "Words and values of different lengths should raise ValueError")
        with each:
            _chk.check_raises(lambda: wefat_correlation(kv, ["nurse", "zqxjob", "qqzzjob"], [1.0, 2.0, 3.0]),
                              ValueError, "Fewer than 3 words should raise ValueError")
        with each:  # exactly 3 words left are enough; 2 left after the filter are not
            three = wefat_correlation(kv, ["nurse", "engineer", "zqxjob", "librarian"], [90.0, 10.0, 50.0, 80.0])
            assert isinstance(three, dict) and list(three.get("words", ())) == ["nurse", "engineer", "librarian"], (
                "With exactly 3 words found, wefat_correlation should compute the correlation (a correlation needs at "
                "least 3).")
        with each:
            _chk.check_raises(lambda: wefat_correlation(kv, ["nurse", "engineer", "librarian"], [90.0, 10.0, 80.0],
                                                        fraction=0.4),
                              ValueError, "When the filter leaves fewer than 3 words, wefat_correlation should raise "
                              "ValueError")
        with each:
            _chk.check_raises(lambda: wefat_correlation(kv, occupations, occupation_values, ["woman", "zqxwoman"],
                                                        ["man", "he"]),
                              ValueError, "An attribute word that is not in the embedding should raise ValueError")
    return _chk.callee_note(wefat_correlation, kv, names, name_values, fraction=0.2)
