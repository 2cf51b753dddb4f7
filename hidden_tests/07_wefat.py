"""Hidden tests of 07_wefat: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from helpers.wordsets import wefat_occupations, wefat_names

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'statistics': ['wefat_association'], 'wefat': ['name_likeness', 'run_wefat', 'run_wefat_names', 'run_wefat_occupations']}

def wefat_score_tests(nb, seed):
    """Hidden tests of the cell `wefat_score_tests`."""
    A_female = nb.A_female
    B_male = nb.B_male
    vectors_of = nb.vectors_of
    wefat_score = nb.wefat_score
    from helpers.statistics import wefat_association as _wefat_association
    _rng = np.random.default_rng([seed, 707])
    _W, _A, _B = _rng.normal(size=(30, 12)), _rng.normal(size=(5, 12)), _rng.normal(size=(9, 12))
    for _ddof in (1, 0):
        with _chk.quiet():
            _got = _chk.check_own_work(wefat_score, "wefat_association", "run_wefat", what="`wefat_score`",
                                       run=lambda: wefat_score(_W, _A, _B, ddof=_ddof))
        _chk.check_shape(_got, (30,), "The result for 30 random target vectors")
        _chk.check_close(_got, _wefat_association(_W, _A, _B, ddof=_ddof), f"The scores of 30 random vectors (|A| = 5, |B| = 9, ddof={_ddof})", rtol=1e-9)
    with _chk.quiet():
        _scaled = wefat_score(_W * _rng.uniform(0.1, 10, size=(30, 1)), _A * 3.0, _B, ddof=1)
    _chk.check_close(_scaled, _wefat_association(_W, _A, _B), "The scores of rescaled vectors (cosines do not change)", rtol=1e-9)
    # real words
    _occ, _ = wefat_occupations()
    _Wr = vectors_of(_occ)
    with _chk.quiet():
        _got = wefat_score(_Wr, A_female, B_male)
    _chk.check_close(_got, _wefat_association(_Wr, A_female, B_male), "The scores of the 50 occupations", rtol=1e-9)
    # errors
    _chk.check_raises(lambda: wefat_score(_W, _A, _B, ddof=2), ValueError, "ddof=2 should raise ValueError")
    _chk.check_raises(lambda: wefat_score(_W, _A[:, :5], _B), ValueError, "Vectors of different lengths should raise ValueError")
    _chk.check_raises(lambda: wefat_score(_W, np.empty((0, 12)), _B), ValueError, "An empty attribute set should raise ValueError")
    _chk.check_raises(lambda: wefat_score(np.array([[0.0, 0.0, 1.0]]), np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]])),
                 ValueError, "A word with the same cosine with every attribute word should raise ValueError")


def wefat_score_vectorised_tests(nb, seed):
    """Hidden tests of the cell `wefat_score_vectorised_tests`."""
    wefat_score = nb.wefat_score
    # wefat_score and every function of this notebook it uses, also loops in disguise (np.vectorize, map, ...)
    _chk.check_vectorised(wefat_score, hint="Use whole-matrix operations along axis=1 on cosine_matrix(W, A) and "
                          "cosine_matrix(W, B) instead of scoring the words, or checking the inputs, one at a time.")


def drop_least_namelike_tests(nb, seed):
    """Hidden tests of the cell `drop_least_namelike_tests`."""
    drop_least_namelike = nb.drop_least_namelike
    kv = nb.kv
    toy_vectors = nb.toy_vectors
    toy_words = nb.toy_words
    vectors_of = nb.vectors_of
    from helpers.wefat import name_likeness as _name_likeness, run_wefat_names as _run_wefat_names

    def _expected(words, V, fraction):
        k = int(np.floor(fraction * len(words)))
        drop = set(np.argsort(_name_likeness(V), kind="stable")[:k].tolist())
        return [w for i, w in enumerate(words) if i not in drop], [w for i, w in enumerate(words) if i in drop]

    # the 50 names of Figure 2 (paper's fraction) and a larger fraction
    _names, _ = wefat_names()
    _V = vectors_of(_names)
    with _chk.quiet():
        _got = _chk.check_own_work(drop_least_namelike, "name_likeness", "run_wefat", "run_wefat_names", what="`drop_least_namelike`",
                                   run=lambda: drop_least_namelike(_names, _V, 0.2))
    assert tuple(map(list, _got)) == _expected(_names, _V, 0.2), "The names dropped from the 50 names of Figure 2 (fraction 0.2) are not correct."
    assert list(_got[1]) == _run_wefat_names(kv).filtered_words, "The names dropped from the 50 names of Figure 2 are not the paper's filter."
    with _chk.quiet():
        _got = drop_least_namelike(_names, _V, 0.3)
    assert tuple(map(list, _got)) == _expected(_names, _V, 0.3), "The names dropped with fraction 0.3 are not correct."
    # random vectors of very different lengths; 0.2 * 48 = 9.6 and 0.3 * 37 = 11.1 words (rounded down)
    _rng = np.random.default_rng([seed, 77])
    for _n, _fraction in ((48, 0.2), (37, 0.3)):
        _Vr = (_rng.normal(size=(_n, 6)) + 0.8) * np.exp(2 * _rng.normal(size=(_n, 1)))
        _words = [f"w{i}" for i in range(_n)]
        with _chk.quiet():
            _got = drop_least_namelike(_words, _Vr.tolist(), _fraction)
        _exp = _expected(_words, _Vr, _fraction)
        assert len(_got[1]) == len(_exp[1]), f"With {_n} words and fraction {_fraction}, the number of words dropped is not correct."
        assert tuple(map(list, _got)) == _exp, f"With {_n} random vectors of different lengths, the words dropped are not correct."
    # exact ties among many words: 40 words in 6 directions, with lengths that differ by powers of 2 (so words of
    # one direction have exactly the same unit vector and distance); the cut falls inside a group of tied words
    _rng_tie = np.random.default_rng([seed, 2])
    _base = _rng_tie.normal(size=(6, 6)) + 0.8
    _Vt = _base[_rng_tie.integers(0, 6, size=40)] * 2.0 ** _rng_tie.integers(-3, 4, size=(40, 1))
    _words_t = [f"t{i}" for i in range(40)]
    for _fraction in (0.2, 0.3):
        with _chk.quiet():
            _got = drop_least_namelike(_words_t, _Vt, _fraction)
        assert tuple(map(list, _got)) == _expected(_words_t, _Vt, _fraction), (
            f"With many equally distant words (40 words, fraction {_fraction}) the words dropped are not correct: "
            "of two equally distant words the earlier one is dropped first.")
    _chk.check_raises(lambda: drop_least_namelike(toy_words, toy_vectors, 1.0), ValueError, "fraction=1 should raise ValueError")
    _chk.check_raises(lambda: drop_least_namelike(toy_words, toy_vectors, -0.1), ValueError, "A negative fraction should raise ValueError")
    _chk.check_raises(lambda: drop_least_namelike(toy_words[:4], toy_vectors, 0.2), ValueError, "4 words with 5 vectors should raise ValueError")


def wefat_correlation_tests(nb, seed):
    """Hidden tests of the cell `wefat_correlation_tests`."""
    kv = nb.kv
    wefat_correlation = nb.wefat_correlation
    from helpers.wefat import run_wefat as _run_wefat

    def _compare(got, ref, label):
        assert isinstance(got, dict), f"{label}: the result should be a dict."
        assert list(got["words"]) == ref.words, f"{label}: `words` is not correct."
        assert list(got["missing"]) == ref.missing_words, f"{label}: `missing` is not correct."
        assert list(got["dropped"]) == ref.filtered_words, f"{label}: `dropped` is not correct."
        _chk.check_close(got["values"], ref.values, f"{label}: `values`")
        _chk.check_close(got["scores"], ref.scores, f"{label}: `scores`", rtol=1e-8)
        for key, ref_value in (("r", ref.pearson_r), ("p", ref.pvalue), ("slope", ref.slope), ("intercept", ref.intercept)):
            _chk.check_close(got[key], ref_value, f"{label}: `{key}`", rtol=1e-7, atol=1e-300)

    _occ, _occ_values = wefat_occupations()
    with _chk.quiet():
        _got = _chk.check_own_work(wefat_correlation, "run_wefat", "run_wefat_occupations", "run_wefat_names", what="`wefat_correlation`",
                                   run=lambda: wefat_correlation(kv, _occ, _occ_values))
    _compare(_got, _run_wefat(kv, _occ, _occ_values), "The 50 occupations")
    _names, _name_values = wefat_names()
    for _fraction in (0.2, 0.3):
        with _chk.quiet():
            _got = wefat_correlation(kv, _names, _name_values, fraction=_fraction)
        _compare(_got, _run_wefat(kv, _names, _name_values, drop_least_namelike=_fraction), f"The 50 names, fraction {_fraction}")
    # other attribute sets, missing words and the filter together
    _words = ["Rose", "zqxname", "Lily", "Jasmine", "Daisy", "Violet", "Iris", "qqzzname", "Holly", "Ivy", "Heather", "Poppy"]
    _vals = np.linspace(5, 95, len(_words))
    _A2, _B2 = ["flower", "garden", "petal"], ["name", "girl", "woman", "mother"]
    with _chk.quiet():
        _got = wefat_correlation(kv, _words, _vals, _A2, _B2, fraction=0.25)
    _compare(_got, _run_wefat(kv, _words, _vals, _A2, _B2, drop_least_namelike=0.25), "Flower names with other attribute sets")
    _chk.check_raises(lambda: wefat_correlation(kv, _occ, _occ_values[:-1]), ValueError, "Words and values of different lengths should raise ValueError")
    _chk.check_raises(lambda: wefat_correlation(kv, ["nurse", "zqxjob", "qqzzjob"], [1.0, 2.0, 3.0]), ValueError, "Fewer than 3 words should raise ValueError")
    # exactly 3 words left are enough; 2 left after the filter are not
    with _chk.quiet():
        _three = wefat_correlation(kv, ["nurse", "engineer", "zqxjob", "librarian"], [90.0, 10.0, 50.0, 80.0])
    assert isinstance(_three, dict) and list(_three["words"]) == ["nurse", "engineer", "librarian"], (
        "With exactly 3 words found, wefat_correlation should compute the correlation (a correlation needs at least 3).")
    _chk.check_raises(lambda: wefat_correlation(kv, ["nurse", "engineer", "librarian"], [90.0, 10.0, 80.0], fraction=0.4),
                      ValueError, "When the filter leaves fewer than 3 words, wefat_correlation should raise ValueError")
    _chk.check_raises(lambda: wefat_correlation(kv, _occ, _occ_values, ["woman", "zqxwoman"], ["man", "he"]), ValueError,
                      "An attribute word that is not in the embedding should raise ValueError")
