"""Hidden tests of 08_debiasing: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from gensim.models import KeyedVectors

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'lexicon': ['gender_direction', 'project_out']}

def gender_direction_tests(nb, seed):
    """Hidden tests of the cell `gender_direction_tests`."""
    gender_direction = nb.gender_direction
    kv = nb.kv
    _rng = np.random.default_rng([seed, 8101])
    _words = ["w0", "w1", "w2", "w3", "w4", "w5"]
    _M = _rng.normal(size=(6, 5)) * _rng.uniform(0.5, 4.0, size=(6, 1))
    _toy = KeyedVectors(5)
    _toy.add_vectors(_words, _M.astype(np.float32))
    _pairs = [("w0", "w1"), ("w2", "w3"), ("w4", "w5")]
    with _chk.quiet():  # helpers.lexicon has the reference
        _chk.check_own_work(gender_direction, "gender_direction", what="`gender_direction`",
                            run=lambda: gender_direction(_toy, _pairs))
    _U = _toy.vectors.astype(np.float64)
    _U = _U / np.linalg.norm(_U, axis=1, keepdims=True)
    _expected = (_U[0] - _U[1]) + (_U[2] - _U[3]) + (_U[4] - _U[5])
    _expected = _expected / np.linalg.norm(_expected)
    with _chk.quiet():
        _g = gender_direction(_toy, _pairs)
    _chk.check_shape(_g, (5,), "gender_direction on a 5-d embedding")
    _chk.check_close(_g, _expected, "gender_direction with three pairs of vectors of different lengths", rtol=1e-5, atol=1e-7)
    with _chk.quiet():
        _g1 = gender_direction(kv, [("himself", "herself")])
    _a = np.asarray(kv["himself"], dtype=np.float64)
    _b = np.asarray(kv["herself"], dtype=np.float64)
    _e1 = _a / np.linalg.norm(_a) - _b / np.linalg.norm(_b)
    _chk.check_close(_g1, _e1 / np.linalg.norm(_e1), "gender_direction(kv, [('himself', 'herself')]) on GloVe", rtol=1e-5, atol=1e-7)
    with _chk.quiet():
        _chk.check_raises(lambda: gender_direction(_toy, [("w0", "w0")]), ValueError,
                     "A pair of identical words (zero difference) should raise ValueError")


def project_out_tests(nb, seed):
    """Hidden tests of the cell `project_out_tests`."""
    project_out = nb.project_out
    _rng = np.random.default_rng([seed, 8202])
    _V = _rng.normal(size=(7, 5)) * _rng.uniform(0.2, 5.0, size=(7, 1))
    _d = _rng.normal(size=5) * 3.7
    with _chk.quiet():  # helpers.lexicon has the reference
        _chk.check_own_work(project_out, "project_out", what="`project_out`",
                            run=lambda: project_out(_V.copy(), _d.copy()))
    _dh = _d / np.linalg.norm(_d)
    _E = _V - np.outer(_V @ _dh, _dh)
    _E = _E / np.linalg.norm(_E, axis=1, keepdims=True)
    with _chk.quiet():
        _P = _chk.check_unchanged(project_out, _V, _d, what="project_out(V, direction) on float64 arrays")
    _chk.check_shape(_P, (7, 5), "project_out on a 7 x 5 matrix")
    _chk.check_close(_P, _E, "project_out on random vectors and a direction of length 3.7", rtol=1e-7, atol=1e-9)
    _chk.check_close(_P @ _dh, np.zeros(7), "The projected rows' components along the direction", atol=1e-9)
    with _chk.quiet():
        _chk.check_raises(lambda: project_out(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]), np.array([1.0, 2.0, 3.0])),
                     ValueError, "A vector parallel to the direction should raise ValueError")
        _chk.check_raises(lambda: project_out(np.vstack([_V[:2], 0.3 * _d]), _d), ValueError,
                     "A vector parallel to the direction should raise ValueError also when rounding leaves a tiny "
                     "non-zero remainder (compare its length with a small tolerance, not with 0)")
        _chk.check_raises(lambda: project_out(_V, np.ones(4)), ValueError,
                     "A direction of the wrong length should raise ValueError")
        _chk.check_raises(lambda: project_out(_V, np.array([1.0, np.nan, 0.0, 0.0, 0.0])), ValueError,
                     "A direction containing NaN should raise ValueError")
        _p = project_out(_V[2], -2.0 * _d)
    _chk.check_close(_p, _E[2], "project_out of one vector with the direction reversed and rescaled", rtol=1e-7, atol=1e-9)
    _chk.check_vectorised(project_out, hint="Take the components of all rows along the direction with one "
                          "matrix-vector product, then subtract and renormalise whole matrices.")


def remaining_gap_tests(nb, seed):
    """Hidden tests of the cell `remaining_gap_tests`."""
    HELD_OUT_PAIRS = nb.HELD_OUT_PAIRS
    kv = nb.kv
    remaining_gap = nb.remaining_gap
    _rng = np.random.default_rng([seed, 8303])
    _M = _rng.normal(size=(8, 6)) * _rng.uniform(0.5, 3.0, size=(8, 1))
    _toy = KeyedVectors(6)
    _toy.add_vectors([f"w{i}" for i in range(8)], _M.astype(np.float32))
    _pairs = [("w0", "w1"), ("w2", "w3"), ("w4", "w5"), ("w6", "w7")]
    _d = _rng.normal(size=6)
    _dh = _d / np.linalg.norm(_d)
    _X = _toy.vectors.astype(np.float64)
    _X = _X - np.outer(_X @ _dh, _dh)
    _X = _X / np.linalg.norm(_X, axis=1, keepdims=True)
    _expected = np.mean([np.linalg.norm(_X[2 * i] - _X[2 * i + 1]) for i in range(4)])
    with _chk.quiet():
        _gap = remaining_gap(_toy, _pairs, _d)
    _chk.check_close(_gap, _expected, "remaining_gap over four random pairs", rtol=1e-5, atol=1e-8)
    _g = np.asarray(kv["he"], dtype=np.float64) - np.asarray(kv["she"], dtype=np.float64)
    _H = np.array([kv[m] for m, _ in HELD_OUT_PAIRS[:6]], dtype=np.float64)
    _F = np.array([kv[f] for _, f in HELD_OUT_PAIRS[:6]], dtype=np.float64)
    _gh = _g / np.linalg.norm(_g)
    _H = _H - np.outer(_H @ _gh, _gh)
    _F = _F - np.outer(_F @ _gh, _gh)
    _H, _F = _H / np.linalg.norm(_H, axis=1, keepdims=True), _F / np.linalg.norm(_F, axis=1, keepdims=True)
    with _chk.quiet():
        _gap2 = remaining_gap(kv, HELD_OUT_PAIRS[:6], _g)
    _chk.check_close(_gap2, np.linalg.norm(_H - _F, axis=1).mean(), "remaining_gap on six GloVe pairs", rtol=1e-5, atol=1e-8)


def projected_keyedvectors_tests(nb, seed):
    """Hidden tests of the cell `projected_keyedvectors_tests`."""
    kv = nb.kv
    projected_keyedvectors = nb.projected_keyedvectors
    _words = ["Einstein", "NASA", "nurse", "engineer", "she", "he", "qwzxv", "Nurse", "poetry"]
    _d = np.asarray(kv["man"], dtype=np.float64) - np.asarray(kv["woman"], dtype=np.float64)
    with _chk.quiet():
        _small = projected_keyedvectors(kv, _words, _d)
    _keys = ["einstein", "nasa", "nurse", "engineer", "she", "he", "poetry"]
    assert list(_small.index_to_key) == _keys, "The keys of the projected embedding of GloVe words are not right."
    _chk.check_shape(_small.vectors, (len(_keys), 50), "The vectors of the projected GloVe words")
    _dh = _d / np.linalg.norm(_d)
    _V = np.array([kv[k] for k in _keys], dtype=np.float64)
    _V = _V - np.outer(_V @ _dh, _dh)
    _V = _V / np.linalg.norm(_V, axis=1, keepdims=True)
    _chk.check_close(np.asarray(_small.vectors, dtype=np.float64), _V, "The projected GloVe vectors", rtol=1e-4, atol=1e-6)
