"""Hidden tests of 03_differential_association: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from helpers.embeddings import load_default, vectors
from helpers.wordsets import weat_test

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'statistics': ['association', 'differential_association']}

def differential_association_tests(nb, seed):
    """Hidden tests of the cell `differential_association_tests`."""
    differential_association = nb.differential_association
    import helpers.statistics as _reference
    with _chk.quiet():
        _chk.check_own_work(differential_association, "differential_association", what="`differential_association`",
                            run=lambda: differential_association(np.eye(5)[:2] + 0.5, np.eye(5)[2:4] + 0.5, np.eye(5)[:3] + 1.0,
                                                                 -np.eye(5)[:2] - 0.5))
    # the attribute words themselves as targets: s(A, B, A, B) = n |mean(A) - mean(B)|^2 > 0 (unit vectors)
    _P = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [2.0, 0.0, 1.0]])
    _Q = np.array([[0.0, 1.0, 4.0], [-1.0, 0.5, 2.0], [0.5, -1.0, 1.0]])
    with _chk.quiet():
        _self = differential_association(_P, _Q, _P.copy(), _Q.copy())
    _chk.check_type(_self, float, "differential_association(A, B, A, B)")
    assert _self > 0, ("differential_association(A, B, A, B), with the attribute words themselves as the targets, should be "
                       "positive: the words of A are closer to A than the words of B are. Check the sign: the sum over X "
                       "minus the sum over Y, and for each word the mean cosine with A minus the mean cosine with B.")
    _rng = np.random.default_rng([seed, 356183])
    for _trial in range(5):
        _d, _n = int(_rng.integers(3, 40)), int(_rng.integers(1, 10))
        _X = _rng.normal(size=(_n, _d)) * _rng.uniform(0.1, 10, size=(_n, 1))
        _Y = _rng.normal(size=(_n, _d)) * _rng.uniform(0.1, 10, size=(_n, 1))
        _A = _rng.normal(size=(int(_rng.integers(1, 9)), _d))
        _B = _rng.normal(size=(int(_rng.integers(1, 9)), _d))
        with _chk.quiet():
            _got = _chk.check_unchanged(differential_association, _X, _Y, _A, _B, what="differential_association(X, Y, A, B)")
            _rescaled_targets = differential_association(_X * np.linspace(0.5, 4.0, _n)[:, None], _Y, _A, _B)
            _rescaled_attributes = differential_association(_X, _Y, _A * np.linspace(0.5, 4.0, len(_A))[:, None], _B)
            _doubled = differential_association(np.vstack([_X, _X]), np.vstack([_Y, _Y]), _A, _B)
            _swap_targets = differential_association(_Y, _X, _A, _B)
            _swap_attributes = differential_association(_X, _Y, _B, _A)
        _chk.check_type(_got, float, "differential_association on random vectors")
        _chk.check_close(_rescaled_targets, _got, "differential_association after rescaling each target vector of X "
                         "(which should not change it)", rtol=1e-7, atol=1e-10,
                         hint="Cosines do not depend on the lengths of the vectors: normalise the target vectors (or use cosine_matrix).")
        _chk.check_close(_rescaled_attributes, _got, "differential_association after rescaling each attribute vector of A "
                         "(which should not change it)", rtol=1e-7, atol=1e-10,
                         hint="Cosines do not depend on the lengths of the vectors: normalise the attribute vectors (or use cosine_matrix).")
        _chk.check_close(_doubled, 2 * _got, "differential_association with every target word repeated twice (which should "
                         "double it)", rtol=1e-7, atol=1e-10,
                         hint="The statistic adds up one score per target word (sums over X and Y, not means); each word's "
                              "score is a mean over the attribute words (axis=1 of the cosine matrices).")
        _chk.check_close(_swap_targets, -_got, "differential_association(Y, X, A, B), which should be -s(X, Y, A, B)", rtol=1e-7, atol=1e-10,
                         hint="Swapping X and Y flips the sign: do not take the absolute value.")
        _chk.check_close(_swap_attributes, -_got, "differential_association(X, Y, B, A), which should be -s(X, Y, A, B)", rtol=1e-7, atol=1e-10,
                         hint="Swapping A and B flips the sign: do not take the absolute value.")
        _chk.check_close(_got, _reference.differential_association(_X, _Y, _A, _B),
                    "differential_association on random sets of different sizes and vector lengths", rtol=1e-7, atol=1e-10,
                    hint="Each target word's score is the mean (not the sum) of its cosines with A minus the mean of its "
                         "cosines with B; the statistic is the sum of the scores over X minus the sum over Y.")
    _kv = load_default()
    for _row in (8, 10):  # rows this notebook does not use
        _spec = weat_test(_row)
        _sets = [vectors(_kv, _ws.words) for _ws in (_spec.target_x, _spec.target_y, _spec.attribute_a, _spec.attribute_b)]
        with _chk.quiet():
            _got = differential_association(*_sets)
        _chk.check_close(_got, _reference.differential_association(*_sets), "differential_association on GloVe vectors "
                    "of another row of Table 1", rtol=1e-6, atol=1e-9)
    with _chk.quiet():
        _chk.check_raises(lambda: differential_association(_sets[0][:5], _sets[1][:4], _sets[2], _sets[3]), ValueError,
                     "differential_association with 5 words in X and 4 in Y should raise ValueError")
        _chk.check_raises(lambda: differential_association(_sets[1][:3], _sets[0][:6], _sets[2], _sets[3]), ValueError,
                     "differential_association with 3 words in X and 6 in Y should raise ValueError")
        _chk.check_raises(lambda: differential_association(np.empty((0, 50)), np.empty((0, 50)), _sets[2], _sets[3]), ValueError,
                     "differential_association with empty X and Y should raise ValueError")
        _chk.check_raises(lambda: differential_association(_sets[0], _sets[1], np.empty((0, 50)), _sets[3]), ValueError,
                     "differential_association with an empty A should raise ValueError")
        _chk.check_raises(lambda: differential_association(_sets[0], _sets[1], _sets[2], np.empty((0, 50))), ValueError,
                     "differential_association with an empty B should raise ValueError")


def attribute_direction_tests(nb, seed):
    """Hidden tests of the cell `attribute_direction_tests`."""
    attribute_direction = nb.attribute_direction
    import helpers.statistics as _reference
    with _chk.quiet():
        _chk.check_own_work(attribute_direction, "association", "differential_association", what="`attribute_direction`",
                            run=lambda: attribute_direction(np.eye(5)[:3] + 1.0, -np.eye(5)[:2] - 0.5))
    _rng = np.random.default_rng([seed, 2016])
    for _trial in range(5):
        _d = int(_rng.integers(3, 40))
        _A = _rng.normal(size=(int(_rng.integers(1, 9)), _d))
        _A = _A * _rng.uniform(0.1, 10, size=(len(_A), 1))
        _B = _rng.normal(size=(int(_rng.integers(1, 9)), _d))
        _B = _B * _rng.uniform(0.1, 10, size=(len(_B), 1))
        with _chk.quiet():
            _got = _chk.check_unchanged(attribute_direction, _A, _B, what="attribute_direction(A, B)")
            _rescaled = attribute_direction(_A * np.linspace(0.5, 4.0, len(_A))[:, None], _B * np.linspace(3.0, 0.2, len(_B))[:, None])
            _doubled = attribute_direction(np.vstack([_A, _A]), np.vstack([_B, _B]))
        _chk.check_type(_got, np.ndarray, "attribute_direction on random vectors")
        _chk.check_shape(_got, (_d,), "attribute_direction on random vectors")
        _chk.check_close(_rescaled, _got, "attribute_direction after rescaling each attribute vector (which should not change it)",
                         rtol=1e-7, atol=1e-10, hint="Scale every attribute vector to length 1 (each row by its own length) before taking the means.")
        _chk.check_close(_doubled, _got, "attribute_direction with every attribute word repeated twice (which should not change it)",
                         rtol=1e-7, atol=1e-10, hint="The centroids are means of the unit vectors, not sums.")
        _centre_a, _centre_b = _reference.unit_rows(_A).mean(axis=0), _reference.unit_rows(_B).mean(axis=0)
        assert float(_got @ (_centre_a - _centre_b)) > 0, (
            "attribute_direction on random vectors points the wrong way: it should point from the centroid of B towards "
            "the centroid of A (the mean of A's unit vectors minus the mean of B's).")
        _chk.check_close(_got, _centre_a - _centre_b,
                    "attribute_direction on random vectors of different lengths and set sizes", rtol=1e-7, atol=1e-10,
                    hint="Do not rescale the result (or the two centroids) to length 1: the direction is the plain difference "
                         "of the two means of unit vectors, and its length matters.")
    _kv = load_default()
    _spec = weat_test(6)
    _Av, _Bv = vectors(_kv, _spec.attribute_a.words), vectors(_kv, _spec.attribute_b.words)
    _W = vectors(_kv, _spec.target_x.words + _spec.target_y.words)
    with _chk.quiet():
        _got = attribute_direction(_Av, _Bv)
    _chk.check_close(_reference.unit_rows(_W) @ _got, _reference.association(_W, _Av, _Bv),
                "the unit target vectors dotted with attribute_direction(A, B), which should equal s(w, A, B) for every "
                "word (career vs. family, on names)", rtol=1e-6, atol=1e-9)
    with _chk.quiet():
        _chk.check_raises(lambda: attribute_direction(_Av, np.empty((0, 50))), ValueError,
                     "attribute_direction with an empty B should raise ValueError")
        _chk.check_raises(lambda: attribute_direction(np.empty((0, 50)), _Bv), ValueError,
                     "attribute_direction with an empty A should raise ValueError")


def differential_association_centroid_tests(nb, seed):
    """Hidden tests of the cell `differential_association_centroid_tests`."""
    differential_association_centroid = nb.differential_association_centroid
    import helpers.statistics as _reference
    with _chk.quiet():
        _chk.check_own_work(differential_association_centroid, "association", "differential_association", what="`differential_association_centroid` (which should use the centroid form, not s(w, A, B))",
                            run=lambda: differential_association_centroid(np.eye(5)[:2] + 0.5, np.eye(5)[2:4] + 0.5,
                                                                          np.eye(5)[:3] + 1.0, -np.eye(5)[:2] - 0.5))
    # the attribute words themselves as targets: s(A, B, A, B) = n |mean(A) - mean(B)|^2 > 0 (unit vectors)
    _P = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [2.0, 0.0, 1.0]])
    _Q = np.array([[0.0, 1.0, 4.0], [-1.0, 0.5, 2.0], [0.5, -1.0, 1.0]])
    with _chk.quiet():
        _self = differential_association_centroid(_P, _Q, _P.copy(), _Q.copy())
    _chk.check_type(_self, float, "differential_association_centroid(A, B, A, B)")
    assert _self > 0, ("differential_association_centroid(A, B, A, B), with the attribute words themselves as the targets, "
                       "should be positive: the words of A are closer to A than the words of B are. Check the sign: the "
                       "sum over X minus the sum over Y, dotted with the centroid of A minus the centroid of B.")
    _rng = np.random.default_rng([seed, 1708])
    for _trial in range(5):
        _d, _n = int(_rng.integers(3, 40)), int(_rng.integers(1, 10))
        _X = _rng.normal(size=(_n, _d)) * _rng.uniform(0.1, 10, size=(_n, 1))
        _Y = _rng.normal(size=(_n, _d)) * _rng.uniform(0.1, 10, size=(_n, 1))
        _A = _rng.normal(size=(int(_rng.integers(1, 9)), _d))
        _A = _A * _rng.uniform(0.1, 10, size=(len(_A), 1))
        _B = _rng.normal(size=(int(_rng.integers(1, 9)), _d))
        _B = _B * _rng.uniform(0.1, 10, size=(len(_B), 1))
        with _chk.quiet():
            _got = _chk.check_unchanged(differential_association_centroid, _X, _Y, _A, _B,
                                        what="differential_association_centroid(X, Y, A, B)")
            _rescaled_targets = differential_association_centroid(_X * np.linspace(0.5, 4.0, _n)[:, None], _Y, _A, _B)
            _rescaled_attributes = differential_association_centroid(_X, _Y, _A * np.linspace(0.5, 4.0, len(_A))[:, None], _B)
            _doubled = differential_association_centroid(np.vstack([_X, _X]), np.vstack([_Y, _Y]), _A, _B)
        _chk.check_type(_got, float, "differential_association_centroid on random vectors")
        _chk.check_close(_rescaled_targets, _got, "differential_association_centroid after rescaling each target vector of X "
                         "(which should not change it)", rtol=1e-7, atol=1e-10,
                         hint="Normalise each target vector (each row) to length 1 before summing.")
        _chk.check_close(_rescaled_attributes, _got, "differential_association_centroid after rescaling each attribute vector of A "
                         "(which should not change it)", rtol=1e-7, atol=1e-10,
                         hint="The attribute centroids are means of unit vectors: use your attribute_direction(A, B) (and "
                              "make sure its own test cell passes).")
        _chk.check_close(_doubled, 2 * _got, "differential_association_centroid with every target word repeated twice (which "
                         "should double it)", rtol=1e-7, atol=1e-10,
                         hint="Sum (not average) the unit target vectors.")
        _chk.check_close(_got, _reference.differential_association(_X, _Y, _A, _B),
                    "differential_association_centroid on random sets of different sizes and vector lengths",
                    rtol=1e-7, atol=1e-10,
                    hint="Dot the difference of the target sums with attribute_direction(A, B) as it is (not rescaled to "
                         "length 1), and make sure attribute_direction passes its own test cell.")
    _kv = load_default()
    for _row in (8, 10):
        _spec = weat_test(_row)
        _sets = [vectors(_kv, _ws.words) for _ws in (_spec.target_x, _spec.target_y, _spec.attribute_a, _spec.attribute_b)]
        with _chk.quiet():
            _got = differential_association_centroid(*_sets)
        _chk.check_close(_got, _reference.differential_association(*_sets), "differential_association_centroid on GloVe "
                    "vectors of another row of Table 1", rtol=1e-6, atol=1e-9)
    with _chk.quiet():
        _chk.check_raises(lambda: differential_association_centroid(_sets[0][:5], _sets[1][:4], _sets[2], _sets[3]), ValueError,
                     "differential_association_centroid with 5 words in X and 4 in Y should raise ValueError")
        _chk.check_raises(lambda: differential_association_centroid(np.empty((0, 50)), np.empty((0, 50)), _sets[2], _sets[3]),
                     ValueError, "differential_association_centroid with empty X and Y should raise ValueError")
