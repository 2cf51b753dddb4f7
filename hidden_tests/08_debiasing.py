"""Hidden tests of 08_debiasing: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function (a proxy: calls run in the student's kernel on plain data), ``seed`` this
submission's seed. Expected values are computed here, with the reference (:mod:`helpers.lexicon`).
``remaining_gap`` and ``projected_keyedvectors`` are judged with ``_project_out`` in place of the notebook's
``project_out`` (``Remote.alone``), so that a wrong ``project_out`` costs its own exercise only.
"""

import numpy as np
from gensim.models import KeyedVectors

from helpers import lexicon as _reference
from helpers.embeddings import load_default
from helpers.grading.judge import checks as _chk

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {"lexicon": ["gender_direction", "project_out"]}

#: The first six held-out pairs of the notebook (its cell `pairs`), fixed here: the grader never reads them
#: from the student's kernel.
HELD_OUT_PAIRS = [("husband", "wife"), ("uncle", "aunt"), ("nephew", "niece"), ("grandfather", "grandmother"),
                  ("boys", "girls"), ("sons", "daughters")]


def _toy_embedding(rng, n: int, d: int) -> KeyedVectors:
    """``n`` random words ``w0, w1, ...`` of ``d`` dimensions and very different lengths (float32, as gensim's)."""
    toy = KeyedVectors(d)
    vectors = rng.normal(size=(n, d)) * rng.uniform(0.5, 4.0, size=(n, 1))
    toy.add_vectors([f"w{i}" for i in range(n)], vectors.astype(np.float32))
    return toy


def gender_direction_tests(nb, seed):
    """Three pairs of vectors of different lengths (a float64 result), one GloVe pair, a zero difference; own work."""
    gender_direction = nb.gender_direction
    rng = np.random.default_rng([seed, 8101])
    toy = _toy_embedding(rng, 6, 5)
    pairs = [("w0", "w1"), ("w2", "w3"), ("w4", "w5")]
    kv = load_default()
    # each block fails alone, so the feedback names every mistake; own work first, alone (the rest needs g)
    with _chk.every_failure() as each:
        g = _chk.check_own_work(gender_direction, "gender_direction", what="`gender_direction`",
                                run=lambda: gender_direction(toy, pairs))
        with each:
            _chk.check_shape(g, (5,), "gender_direction on a 5-d embedding")
            # the exercise says "work in float64"; gensim's vectors are float32, so a result that never converted is
            # float32
            assert np.asarray(g).dtype == np.float64, (
                f"gender_direction returned an array of {np.asarray(g).dtype}, not float64: the exercise asks you to "
                "work in float64. gensim stores its vectors as float32; convert each one with "
                "np.asarray(kv[word], dtype=np.float64).")
        with each:
            _chk.check_close(g, _reference.gender_direction(toy, pairs),
                             "gender_direction with three pairs of vectors of different lengths", rtol=1e-5, atol=1e-7)
        with each:
            # GloVe's vectors are a read-only memory map: normalising kv[word] in place raises here
            _chk.check_close(gender_direction(kv, [("himself", "herself")]),
                             _reference.gender_direction(kv, [("himself", "herself")]),
                             "gender_direction(kv, [('himself', 'herself')]) on GloVe", rtol=1e-5, atol=1e-7)
        with each:
            _chk.check_raises(lambda: gender_direction(toy, [("w0", "w0")]), ValueError,
                              "A pair of identical words (zero difference) should raise ValueError")


def project_out_tests(nb, seed):
    """Random vectors and a direction of length 3.7, one vector, every error of the docstring, inputs
    unchanged, own work, no Python loop."""
    project_out = nb.project_out
    rng = np.random.default_rng([seed, 8202])
    V = rng.normal(size=(7, 5)) * rng.uniform(0.2, 5.0, size=(7, 1))
    d = rng.normal(size=5)
    d *= 3.7 / np.linalg.norm(d)
    d_unit = d / np.linalg.norm(d)
    expected = _reference.project_out(V, d)
    # fixed, not drawn from the seed: 0.3 * d_fixed keeps a rounding remainder (2e-16, not 0) after the
    # projection, which about one random direction in 16 does not
    fixed = np.random.default_rng(8202)
    V_fixed = fixed.normal(size=(7, 5)) * fixed.uniform(0.2, 5.0, size=(7, 1))
    d_fixed = fixed.normal(size=5) * 3.7
    # each block fails alone, so the feedback names every mistake (the loop among them); own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(project_out, "project_out", what="`project_out`", run=lambda: project_out(V, d))
        with each:
            P = _chk.check_unchanged(project_out, V, d, what="project_out(V, direction) on float64 arrays")
            _chk.check_shape(P, (7, 5), "project_out on a 7 x 5 matrix")
            _chk.check_close(P, expected, "project_out on random vectors and a direction of length 3.7",
                             rtol=1e-7, atol=1e-9)
            _chk.check_close(P @ d_unit, np.zeros(7), "The projected rows' components along the direction", atol=1e-9)
        with each:
            _chk.check_raises(lambda: project_out(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]), np.array([1.0, 2.0, 3.0])),
                              ValueError, "A vector parallel to the direction should raise ValueError")
            _chk.check_raises(lambda: project_out(np.vstack([V_fixed[:2], 0.3 * d_fixed]), d_fixed), ValueError,
                              "A vector parallel to the direction should raise ValueError also when rounding leaves a "
                              "tiny non-zero remainder (compare its length with a small tolerance, not with 0)")
        with each:
            _chk.check_raises(lambda: project_out(V, np.ones(4)), ValueError,
                              "A direction of the wrong length should raise ValueError")
            _chk.check_raises(lambda: project_out(V, np.array([1.0, np.nan, 0.0, 0.0, 0.0])), ValueError,
                              "A direction containing NaN should raise ValueError")
        with each:
            _chk.check_close(project_out(V[2], -2.0 * d), expected[2],
                             "project_out of one vector with the direction reversed and rescaled", rtol=1e-7, atol=1e-9)
        with each:
            _chk.check_vectorised(project_out, hint="Take the components of all rows along the direction with one "
                                  "matrix-vector product, then subtract and renormalise whole matrices.")


def _project_out(V, direction) -> np.ndarray:
    """``project_out`` as the exercise specifies it, its ValueErrors included (the worked solution's logic).

    The stand-in for the notebook's ``project_out`` while ``remaining_gap`` and ``projected_keyedvectors`` are
    judged (it runs in the kernel: NumPy and builtins only).
    """
    g = np.asarray(direction, dtype=np.float64).ravel()
    W = np.asarray(V, dtype=np.float64)
    single = W.ndim == 1
    W = np.atleast_2d(W)
    if not np.isfinite(g).all():
        raise ValueError("The direction contains NaN or infinity.")
    norm = np.linalg.norm(g)
    if norm == 0:
        raise ValueError("The direction is the zero vector; there is nothing to project out.")
    if W.shape[1] != g.size:
        raise ValueError(f"The vectors have length {W.shape[1]} but the direction has length {g.size}.")
    g = g / norm
    P = W - np.outer(W @ g, g)
    lengths = np.linalg.norm(P, axis=1, keepdims=True)
    if (lengths <= 1e-12 * np.linalg.norm(W, axis=1, keepdims=True)).any():
        raise ValueError("A vector is zero after the projection (it was parallel to the direction); "
                         "it cannot be renormalised.")
    P = P / lengths
    return P[0] if single else P


def _gap(kv, pairs, direction) -> float:
    """The mean distance between the projected words of each pair, from the reference ``project_out``."""
    M = np.array([kv[m] for m, _ in pairs], dtype=np.float64)
    F = np.array([kv[f] for _, f in pairs], dtype=np.float64)
    return float(np.linalg.norm(_reference.project_out(M, direction) - _reference.project_out(F, direction),
                                axis=1).mean())


def remaining_gap_tests(nb, seed):
    """Four random pairs on a toy embedding and six held-out GloVe pairs.

    Judged with the course's ``project_out`` in place of the notebook's: a wrong ``project_out`` costs its own
    exercise."""
    remaining_gap = nb.remaining_gap.alone(project_out=_project_out)
    rng = np.random.default_rng([seed, 8303])
    toy = _toy_embedding(rng, 8, 6)
    pairs = [("w0", "w1"), ("w2", "w3"), ("w4", "w5"), ("w6", "w7")]
    d = rng.normal(size=6)
    kv = load_default()
    g = np.asarray(kv["he"], dtype=np.float64) - np.asarray(kv["she"], dtype=np.float64)
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        with each:
            _chk.check_close(remaining_gap(toy, pairs, d), _gap(toy, pairs, d), "remaining_gap over four random pairs",
                             rtol=1e-5, atol=1e-8)
        with each:
            _chk.check_close(remaining_gap(kv, HELD_OUT_PAIRS, g), _gap(kv, HELD_OUT_PAIRS, g),
                             "remaining_gap on six GloVe pairs", rtol=1e-5, atol=1e-8)
    return _chk.callee_note(remaining_gap, toy, pairs, d)


def projected_keyedvectors_tests(nb, seed):
    """GloVe words written in another case, repeated or missing, and the man - woman direction.

    Judged with the course's ``project_out`` in place of the notebook's: a wrong ``project_out`` costs its own
    exercise."""
    projected_keyedvectors = nb.projected_keyedvectors.alone(project_out=_project_out)
    kv = load_default()
    words = ["Einstein", "NASA", "nurse", "engineer", "she", "he", "qwzxv", "Nurse", "poetry"]
    keys = ["einstein", "nasa", "nurse", "engineer", "she", "he", "poetry"]
    d = np.asarray(kv["man"], dtype=np.float64) - np.asarray(kv["woman"], dtype=np.float64)
    expected = _reference.project_out(np.array([kv[k] for k in keys], dtype=np.float64), d)
    # each block fails alone: wrong keys (case, repeats, order) and wrong vectors are told apart
    with _chk.every_failure() as each:
        small = projected_keyedvectors(kv, words, d)
        _chk.check_type(small, KeyedVectors, "projected_keyedvectors(kv, words, direction)")
        with each:
            assert list(small.index_to_key) == keys, "The keys of the projected embedding of GloVe words are not right."
        with each:
            # the vectors of the right keys it holds (all of them when the keys are right)
            have = [k for k in keys if k in small.key_to_index]
            _chk.check_shape(small.vectors, (len(small.index_to_key), 50), "The vectors of the projected GloVe words")
            _chk.check_close(np.array([small[k] for k in have], dtype=np.float64).reshape(len(have), 50),
                             expected[[keys.index(k) for k in have]], "The projected GloVe vectors",
                             rtol=1e-4, atol=1e-6)
    return _chk.callee_note(projected_keyedvectors, kv, words, d)
