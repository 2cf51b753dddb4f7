"""Hidden tests of 02_association: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from helpers.embeddings import load_default
from helpers.wordsets import weat_test

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'statistics': ['association']}

def association_tests(nb, seed):
    """Hidden tests of the cell `association_tests`."""
    association = nb.association
    import helpers.statistics as _reference
    from helpers.embeddings import vectors as _vectors
    with _chk.quiet():
        _chk.check_own_work(association, "association", what="`association`",
                            run=lambda: association(np.arange(1.0, 6.0), np.eye(5)[:3] + 0.5, -np.eye(5)[:2] - 0.5))
    _rng = np.random.default_rng([seed, 20170414])
    for _trial in range(5):
        _d = int(_rng.integers(3, 40))
        _w = _rng.normal(size=_d) * _rng.uniform(0.1, 10)
        _A = _rng.normal(size=(int(_rng.integers(1, 9)), _d)) * _rng.uniform(0.1, 10, size=(1, 1))
        _A = _A * _rng.uniform(0.1, 10, size=(len(_A), 1))  # rows of very different lengths
        _B = _rng.normal(size=(int(_rng.integers(1, 9)), _d)) * _rng.uniform(0.1, 10, size=(1, 1))
        with _chk.quiet():
            _got = association(_w, _A, _B)
            _swapped = association(_w, _B, _A)
            _scaled = association(3.7 * _w, _A, 0.2 * _B)
        _chk.check_type(_got, float, "association(w, A, B) on random vectors")
        _chk.check_close(_got, _reference.association(_w, _A, _B), "association(w, A, B) on random vectors of "
                    "different lengths and set sizes", rtol=1e-7, atol=1e-10,
                    hint="Use means (not sums) of cosines, and cosines (w and every row of A and B scaled to "
                         "length 1), not plain dot products.")
        _chk.check_close(_swapped, -_got, "association(w, B, A), which should be -association(w, A, B)", rtol=1e-7, atol=1e-10)
        _chk.check_close(_scaled, _got, "association(c * w, A, B) for c > 0, which should equal association(w, A, B)",
                    rtol=1e-7, atol=1e-10)
    _kv = load_default()
    _spec = weat_test(6)  # career vs. family, on words this notebook does not use
    _Av, _Bv = _vectors(_kv, _spec.attribute_a.words), _vectors(_kv, _spec.attribute_b.words)
    for _word in ("nurse", "engineer", "home"):
        _wv = _vectors(_kv, [_word])[0]
        with _chk.quiet():
            _got = association(_wv, _Av, _Bv)
        _chk.check_close(_got, _reference.association(_wv, _Av, _Bv), "association(w, A, B) on GloVe vectors", rtol=1e-6, atol=1e-9)
    with _chk.quiet():
        _chk.check_raises(lambda: association(_wv, _Av, np.empty((0, _Av.shape[1]))), ValueError,
                     "association(w, A, B) with an empty B should raise ValueError")
        _chk.check_raises(lambda: association(_Av[:2], _Av, _Bv), ValueError,
                     "association(w, A, B) with a matrix as w should raise ValueError")
        _chk.check_unchanged(association, _rng.normal(size=6), _rng.normal(size=(3, 6)), _rng.normal(size=(2, 6)),
                             what="association(w, A, B) of float64 arrays")


def associations_tests(nb, seed):
    """Hidden tests of the cell `associations_tests`."""
    associations = nb.associations
    import helpers.statistics as _reference
    from helpers.embeddings import vectors as _vectors
    with _chk.quiet():
        _chk.check_own_work(associations, "association", what="`associations`",
                            run=lambda: associations(np.eye(5)[:4] + 0.5, np.eye(5)[:3] + 0.5, -np.eye(5)[:2] - 0.5))
    _rng = np.random.default_rng([seed, 1608])
    for _trial in range(5):
        _d = int(_rng.integers(3, 40))
        _W = _rng.normal(size=(int(_rng.integers(1, 12)), _d)) * _rng.uniform(0.1, 10, size=(1, 1))
        _W = _W * _rng.uniform(0.1, 10, size=(len(_W), 1))
        _A = _rng.normal(size=(int(_rng.integers(1, 9)), _d)) * _rng.uniform(0.1, 10, size=(1, 1))
        _B = _rng.normal(size=(int(_rng.integers(1, 9)), _d)) * _rng.uniform(0.1, 10, size=(1, 1))
        with _chk.quiet():
            _got = associations(_W, _A, _B)
        _chk.check_type(_got, np.ndarray, "associations(W, A, B) on random vectors")
        _chk.check_shape(_got, (len(_W),), "associations(W, A, B) on random vectors")
        _chk.check_close(_got, _reference.association(_W, _A, _B), "associations(W, A, B) on random vectors of "
                    "different lengths and set sizes", rtol=1e-7, atol=1e-10,
                    hint="Use the row means (not sums) of the cosine matrices, and cosines rather than dot products.")
    _kv = load_default()
    _spec = weat_test(2)  # instruments vs. weapons, pleasant vs. unpleasant
    _W = _vectors(_kv, _spec.target_x.words + _spec.target_y.words)
    _Av, _Bv = _vectors(_kv, _spec.attribute_a.words), _vectors(_kv, _spec.attribute_b.words)
    with _chk.quiet():
        _got = associations(_W, _Av, _Bv)
        _one = associations(_W[:1], _Av, _Bv)
    _chk.check_close(_got, _reference.association(_W, _Av, _Bv), "associations(W, A, B) on 50 GloVe word vectors",
                rtol=1e-6, atol=1e-9)
    _chk.check_shape(_one, (1,), "associations(W, A, B) for a matrix W with a single row")
    with _chk.quiet():
        _chk.check_raises(lambda: associations(_W, np.empty((0, _W.shape[1])), _Bv), ValueError,
                     "associations(W, A, B) with an empty A should raise ValueError")
        _chk.check_raises(lambda: associations(_W, _Av, np.empty((0, _W.shape[1]))), ValueError,
                     "associations(W, A, B) with an empty B should raise ValueError")
        _chk.check_unchanged(associations, _rng.normal(size=(4, 6)), _rng.normal(size=(3, 6)), _rng.normal(size=(2, 6)),
                             what="associations(W, A, B) of float64 arrays")


def associations_vectorised_tests(nb, seed):
    """Hidden tests of the cell `associations_vectorised_tests`."""
    associations = nb.associations
    # associations and every function of this notebook it uses, also loops in disguise (np.vectorize, map, ...)
    _chk.check_vectorised(associations, hint="Use the row means of the two cosine matrices, cosine_matrix(W, A) and "
                          "cosine_matrix(W, B), instead of scoring the words one at a time.")


def score_words_tests(nb, seed):
    """Hidden tests of the cell `score_words_tests`."""
    score_words = nb.score_words
    import helpers.statistics as _reference
    from helpers.embeddings import vectors as _vectors
    with _chk.quiet():
        _chk.check_own_work(score_words, "association", what="`score_words`",
                            run=lambda: score_words(load_default(), ["tulip", "wasp"], ["love", "peace"], ["death"]))
    _kv = load_default()
    _spec = weat_test(2)
    _targets = ["Zzyzxqv"] + list(_spec.target_y.words) + ["Qwxzvy"]
    _a = list(_spec.attribute_a.words[:10]) + ["Plmqzx"]
    _b = ["Xqzvbn"] + list(_spec.attribute_b.words[:7])
    with _chk.quiet():
        _words, _scores, _missing = score_words(_kv, _targets, _a, _b)
    assert _missing == ["Zzyzxqv", "Qwxzvy", "Plmqzx", "Xqzvbn"], \
        "the missing words should list every missing target word, then the missing words of A, then of B, in list order."
    assert _words == list(_spec.target_y.words), "the words found should be the target words in the embedding, as written and in order."
    _chk.check_shape(_scores, (len(_spec.target_y.words),), "the scores of the weapons")
    _chk.check_close(_scores, _reference.association(_vectors(_kv, _spec.target_y.words), _vectors(_kv, _spec.attribute_a.words[:10]),
                                                _vectors(_kv, _spec.attribute_b.words[:7])),
                "the scores of the weapons against 10 pleasant and 7 unpleasant words", rtol=1e-6, atol=1e-9)
    with _chk.quiet():
        _chk.check_raises(lambda: score_words(_kv, ["Zzyzxqv", "Qwxzvy"], _a, _b), ValueError,
                     "score_words with no target word in the embedding should raise ValueError")
        _chk.check_raises(lambda: score_words(_kv, ["rose"], ["Plmqzx"], _b), ValueError,
                     "score_words with no word of A in the embedding should raise ValueError")
