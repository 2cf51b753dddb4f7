"""Hidden tests of 01_cosine: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
``cosine_matrix`` is judged with ``_unit_rows`` in place of the notebook's ``unit_rows`` (``Remote.alone``), so
that a wrong ``unit_rows`` costs its own exercise only; its vectorised point still reads the loops of the
notebook's own ``unit_rows`` (vectorised code all the way down).
"""

import numpy as np
from helpers.embeddings import load_default, lookup
from helpers.wordsets import weat_test

from helpers.grading.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'statistics': ['cosine', 'cosine_matrix', 'unit_rows']}


def _unit_rows(M) -> np.ndarray:
    """Every row of ``M`` scaled to length 1, as a new float64 array; ValueError for a zero row (the exercise's
    specification, the worked solution's logic).

    The stand-in for the notebook's ``unit_rows`` while ``cosine_matrix`` is judged (it runs in the kernel).
    """
    M = np.asarray(M, dtype=float)
    lengths = np.linalg.norm(M, axis=1, keepdims=True)
    if np.any(lengths == 0):
        raise ValueError("A row is all zeros, so it cannot be scaled to length 1.")
    return M / lengths


def cosine_tests(nb, seed):
    """Hidden tests of the cell `cosine_tests`."""
    cosine = nb.cosine
    from helpers import statistics as _reference
    _rng = np.random.default_rng([seed, 1701])
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(cosine, "cosine", "cosine_matrix", "unit_rows", what="cosine",
                            run=lambda: cosine(_rng.normal(size=5), _rng.normal(size=5)))
        # the calls go to the kernel in three requests (cosine.map), each checked in the order of its calls
        _pairs = [_rng.normal(size=(2, 50)) for _ in range(5)]
        _got = cosine.map(_args for _u1, _v1 in _pairs
                          for _args in ((_u1, _v1), (4.5 * _u1, 0.2 * _v1), (_u1, -2.0 * _u1)))
        with each:
            for _i, (_u1, _v1) in enumerate(_pairs):
                _chk.check_close(_got[3 * _i], _reference.cosine(_u1, _v1), "cosine of two random 50-d vectors")
        with each:
            for _i, (_u1, _v1) in enumerate(_pairs):
                _chk.check_close(_got[3 * _i + 1], _reference.cosine(_u1, _v1),
                                 "cosine of rescaled vectors (it must not depend on the lengths)")
        with each:
            for _i in range(len(_pairs)):
                _chk.check_close(_got[3 * _i + 2], -1.0, "cosine of a vector and a negative multiple of it")
        _kv = load_default()
        _words = [(_kv[_a], _kv[_b]) for _a, _b in [("einstein", "shakespeare"), ("flower", "insect"),
                                                     ("caress", "vomit")]]
        _got = cosine.map(_args for _x, _y in _words for _args in ((_x, _y), (list(_x), list(_y))))
        with each:
            for _i, (_x, _y) in enumerate(_words):  # float32 vectors straight from the embedding
                _chk.check_close(_got[2 * _i], _reference.cosine(_x, _y), "cosine of two float32 word vectors",
                                 rtol=1e-5)
        with each:
            for _i, (_x, _y) in enumerate(_words):
                _chk.check_close(_got[2 * _i + 1], _reference.cosine(_x, _y),
                                 "cosine of two word vectors given as lists", rtol=1e-5)
        _got = cosine.map([(_rng.normal(size=7), _rng.normal(size=7)), (_rng.normal(size=50), np.zeros(50)),
                           (np.zeros(50), _rng.normal(size=50)), (_rng.normal(size=50), _rng.normal(size=49)),
                           ([2.0], _rng.normal(size=5))])
        with each:
            _chk.check_type(_got[0], float, "cosine of two float64 arrays")
        with each:
            _chk.check_raises(lambda: _got[1], ValueError, "cosine with an all-zero second vector should raise ValueError")
            _chk.check_raises(lambda: _got[2], ValueError, "cosine with an all-zero first vector should raise ValueError")
        with each:
            _chk.check_raises(lambda: _got[3], ValueError, "cosine of vectors of lengths 50 and 49 should raise ValueError")
            _chk.check_raises(lambda: _got[4], ValueError,
                              "cosine of vectors of lengths 1 and 5 should raise ValueError (no broadcasting)")
        with each:
            _chk.check_unchanged(cosine, _rng.normal(size=50), _rng.normal(size=50),
                                 what="cosine(u, v) of two float64 arrays")


def unit_rows_tests(nb, seed):
    """Hidden tests of the cell `unit_rows_tests`."""
    unit_rows = nb.unit_rows
    from helpers import statistics as _reference
    _rng = np.random.default_rng([seed, 2017])
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(unit_rows, "unit_rows", "cosine_matrix", "cosine", what="unit_rows",
                            run=lambda: unit_rows(_rng.normal(size=(3, 5))))
        _X = _rng.normal(size=(7, 50)) * _rng.uniform(0.1, 10.0, size=(7, 1))
        _W = load_default().vectors[1000:1012]  # float32, read-only memory map
        _one = _rng.normal(size=(1, 3))
        _Z = _rng.normal(size=(5, 4))
        _Z[3] = 0.0
        with each:
            _R = _chk.check_unchanged(unit_rows, _X, what="unit_rows of a 7 x 50 matrix")
            _chk.check_type(_R, np.ndarray, "unit_rows of a 7 x 50 matrix")
            _chk.check_shape(_R, (7, 50), "unit_rows of a 7 x 50 matrix")
            _chk.check_close(_R, _reference.unit_rows(_X), "unit_rows of a 7 x 50 matrix")
            _chk.check_close(np.linalg.norm(_R, axis=1), np.ones(7), "the row lengths of unit_rows(M)")
        _got = unit_rows.map([(_W,), (_one,), (_Z,)])  # one request; the answers checked in this order
        with each:
            _chk.check_shape(_got[0], (12, 50), "unit_rows of 12 float32 word vectors")
            _chk.check_close(_got[0], _reference.unit_rows(_W), "unit_rows of 12 float32 word vectors", rtol=1e-5)
        with each:
            _chk.check_close(_got[1], _reference.unit_rows(_one), "unit_rows of a 1 x 3 matrix")
        with each:
            _chk.check_raises(lambda: _got[2], ValueError,
                              "unit_rows of a 5 x 4 matrix whose fourth row is zero should raise ValueError")


def cosine_matrix_tests(nb, seed):
    """Hidden tests of the cell `cosine_matrix_tests`.

    Judged with the course's ``unit_rows`` in place of the notebook's: a wrong ``unit_rows`` costs its own
    exercise."""
    cosine_matrix = nb.cosine_matrix.alone(unit_rows=_unit_rows)
    from helpers import statistics as _reference
    _rng = np.random.default_rng([seed, 183])
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(cosine_matrix, "cosine_matrix", "cosine", "unit_rows", what="cosine_matrix",
                            run=lambda: cosine_matrix(_rng.normal(size=(3, 5)), _rng.normal(size=(2, 5))))
        _A, _B = _rng.normal(size=(6, 50)), _rng.normal(size=(9, 50)) * 3.0
        _kv = load_default()
        _spec = weat_test(1)
        _F = lookup(_kv, _spec.target_x.words).vectors
        _P = lookup(_kv, _spec.attribute_a.words).vectors
        _w32 = _kv.vectors[[5, 50, 500]]
        _Z = _rng.normal(size=(4, 50))
        _Z[2] = 0.0
        # one request; the answers checked in the order of the calls
        _got = cosine_matrix.map([(_A, _B), (_A, _A), (_F, _P), (_w32, _w32[:2]), (_A[:1], _B), (_A, _Z), (_Z, _A),
                                  (_A, _B[:, :49])])
        with each:
            _C = _got[0]
            _chk.check_type(_C, np.ndarray, "cosine_matrix of a 6 x 50 and a 9 x 50 matrix")
            _chk.check_shape(_C, (6, 9), "cosine_matrix of a 6 x 50 and a 9 x 50 matrix")
            _chk.check_close(_C, _reference.cosine_matrix(_A, _B), "cosine_matrix of a 6 x 50 and a 9 x 50 matrix")
        with each:
            _chk.check_close(np.diag(_got[1]), np.ones(6), "the diagonal of cosine_matrix(U, U)")
        with each:
            _chk.check_close(_got[2], _reference.cosine_matrix(_F, _P), "cosine_matrix of flowers and pleasant words")
        with each:
            _chk.check_close(_got[3], _reference.cosine_matrix(_w32, _w32[:2]),
                             "cosine_matrix of float32 word vectors", rtol=1e-5)
        with each:
            _chk.check_shape(_got[4], (1, 9), "cosine_matrix of a 1 x 50 and a 9 x 50 matrix")
        with each:
            _chk.check_raises(lambda: _got[5], ValueError, "cosine_matrix with a zero row in V should raise ValueError")
            _chk.check_raises(lambda: _got[6], ValueError, "cosine_matrix with a zero row in U should raise ValueError")
        with each:
            _chk.check_raises(lambda: _got[7], ValueError,
                              "cosine_matrix of a (6, 50) and a (9, 49) matrix should raise ValueError")
        with each:
            _chk.check_unchanged(cosine_matrix, _rng.normal(size=(4, 50)), _rng.normal(size=(3, 50)),
                                 what="cosine_matrix(U, V) of two float64 matrices")
    return _chk.callee_note(cosine_matrix, _A, _B)


def cosine_matrix_vectorised_tests(nb, seed):
    """Hidden tests of the cell `cosine_matrix_vectorised_tests`: a right answer, without a loop.

    The point is for vectorised code that works: a stub or a wrong answer without loops earns nothing. The value is
    judged with the course's ``unit_rows`` in place of the notebook's (a wrong ``unit_rows`` costs its own
    exercise); the loops are read from the notebook's own code, ``unit_rows`` included: this point is for
    vectorised code all the way down.
    """
    from helpers import statistics as _reference
    cosine_matrix = nb.cosine_matrix.alone(unit_rows=_unit_rows)
    _rng = np.random.default_rng([seed, 2024])
    _U, _V = _rng.normal(size=(4, 6)), _rng.normal(size=(3, 6))
    # each block fails alone: the feedback names every mistake (a wrong value and a loop)
    with _chk.every_failure() as each:
        with each:
            _chk.check_close(cosine_matrix(_U, _V), _reference.cosine_matrix(_U, _V),
                             "cosine_matrix of a 4 x 6 and a 3 x 6 matrix (the vectorised point needs a right answer)")
        with each:
            # cosine_matrix and every function of this notebook it uses, also loops in disguise (np.vectorize, map, ...)
            _chk.check_vectorised(nb.cosine_matrix, hint="Write unit_rows(M) as M / np.linalg.norm(M, axis=1, "
                                  "keepdims=True) and cosine_matrix(U, V) as unit_rows(U) @ unit_rows(V).T.")
    # no callee_note here: cosine_matrix_tests gives it, once
