"""Hidden tests of 03_differential_association: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
``differential_association_centroid`` is judged with ``_attribute_direction`` in place of the notebook's
``attribute_direction`` (``Remote.alone``), so that a wrong ``attribute_direction`` costs its own exercise only.
"""

import numpy as np

from helpers import statistics as reference
from helpers.embeddings import load_default, vectors
from helpers.grading.judge import checks as _chk
from helpers.wordsets import weat_test

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
#: ``association`` stays: the notebook allows it in exercise 1 (notebook 2's idea); that the centroid
#: exercises do not call it is read from their source (check_own_work).
REFERENCES = {"statistics": ["differential_association"]}

#: The attribute words themselves as targets: s(P, Q, P, Q) = n |mean(P) - mean(Q)|^2 > 0 (unit vectors).
_P = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [2.0, 0.0, 1.0]])
_Q = np.array([[0.0, 1.0, 4.0], [-1.0, 0.5, 2.0], [0.5, -1.0, 1.0]])

#: Five small 5-d sets for the own-work check: X, Y (2 words each), A (3 words), B (2 words).
_OWN_WORK_SETS = (np.eye(5)[:2] + 0.5, np.eye(5)[2:4] + 0.5, np.eye(5)[:3] + 1.0, -np.eye(5)[:2] - 0.5)


def _rows(rng, n: int, d: int, *, own_lengths: bool = True) -> np.ndarray:
    """``n`` random ``d``-dimensional rows, each scaled by its own factor in [0.1, 10) with ``own_lengths``."""
    M = rng.normal(size=(n, d))
    return M * rng.uniform(0.1, 10, size=(n, 1)) if own_lengths else M


def _random_sets(rng, *, attribute_lengths: bool):
    """Random X, Y (1 to 9 words each, rows of different lengths) and A, B (1 to 8 words each) in 3 to 39 dimensions."""
    d, n = int(rng.integers(3, 40)), int(rng.integers(1, 10))
    X, Y = _rows(rng, n, d), _rows(rng, n, d)
    A = _rows(rng, int(rng.integers(1, 9)), d, own_lengths=attribute_lengths)
    B = _rows(rng, int(rng.integers(1, 9)), d, own_lengths=attribute_lengths)
    return X, Y, A, B


def _glove_sets(row: int) -> list:
    """The vectors of X, Y, A and B of one row of Table 1 in GloVe 6B 50d."""
    spec = weat_test(row)
    kv = load_default()
    return [vectors(kv, ws.words) for ws in (spec.target_x, spec.target_y, spec.attribute_a, spec.attribute_b)]


def _rescaled(M, start: float, stop: float):
    """``M`` with row i multiplied by the i-th of ``len(M)`` evenly spaced factors from ``start`` to ``stop``."""
    return M * np.linspace(start, stop, len(M))[:, None]


def _attribute_direction(A, B) -> np.ndarray:
    """The mean of the unit rows of ``A`` minus that of ``B`` (the exercise's specification, the worked solution's
    logic): ValueError when ``A`` or ``B`` has no rows (and, as ``unit_rows`` does, for a zero row).

    The stand-in for the notebook's ``attribute_direction`` while ``differential_association_centroid`` is judged (it
    runs in the kernel).
    """
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    if len(A) == 0 or len(B) == 0:
        raise ValueError("A and B need at least one word each: an empty set has no centroid.")
    lengths_a = np.linalg.norm(A, axis=1, keepdims=True)
    lengths_b = np.linalg.norm(B, axis=1, keepdims=True)
    if np.any(lengths_a == 0) or np.any(lengths_b == 0):
        raise ValueError("A row is all zeros, so it cannot be scaled to length 1.")
    return (A / lengths_a).mean(axis=0) - (B / lengths_b).mean(axis=0)


def _positive_on_attributes(each, func, name: str, sign_hint: str) -> None:
    """The block both forms share: ``func(A, B, A, B)``, the attribute words as the targets, is a positive float."""
    with each:
        own = func(_P, _Q, _P.copy(), _Q.copy())  # four arrays in the kernel, not two
        _chk.check_type(own, float, f"{name}(A, B, A, B)")
        assert own > 0, (
            f"{name}(A, B, A, B), with the attribute words themselves as the targets, should be positive: the words "
            f"of A are closer to A than the words of B are. Check the sign: the sum over X minus the sum over Y, "
            f"{sign_hint}")


def _shared_calls(X, Y, A, B) -> tuple:
    """The calls :func:`_shared_checks` reads for one case, in its order: the statistic, X rescaled, A rescaled, X
    and Y repeated."""
    return ((X, Y, A, B), (_rescaled(X, 0.5, 4.0), Y, A, B), (X, Y, _rescaled(A, 0.5, 4.0), B),
            (np.vstack([X, X]), np.vstack([Y, Y]), A, B))


def _unchanged_and_glove(each, func, name: str, cases: list, errors):
    """The blocks both forms share after :func:`_shared_checks`: the inputs of each random case unchanged, and the
    value on two rows of Table 1 this notebook does not use. ``errors(X, Y, A, B, empty)`` gives the calls each form
    makes that should raise, on row 10's sets; they go in the same request, after the two rows.

    Returns the request's answers: the two rows', then those of ``errors``, from index 2.
    """
    with each:
        for X, Y, A, B in cases:
            _chk.check_unchanged(func, X, Y, A, B, what=f"{name}(X, Y, A, B)")
    glove = [_glove_sets(row) for row in (8, 10)]  # rows this notebook does not use
    # one request; the answers checked in the order of the calls
    answers = func.map([tuple(sets) for sets in glove] + errors(*glove[-1], np.empty((0, 50))))
    with each:
        for i, sets in enumerate(glove):
            _chk.check_close(answers[i], reference.differential_association(*sets), f"{name} on GloVe vectors of "
                             "another row of Table 1", rtol=1e-6, atol=1e-9)
    return answers


def _shared_checks(each, name: str, cases: list, answers, per_case: int, hints: dict) -> list:
    """The checks both forms of s(X, Y, A, B) share, each block failing alone: the value on each random case (against
    the reference), unchanged by rescaling the vectors of X or of A, doubled by repeating every target word.

    ``answers`` holds ``per_case`` answers per case, the first four from :func:`_shared_calls`.
    Returns the statistic of each case (those read before one raised).
    """
    gots = []  # s(X, Y, A, B) of each case, all read before any is checked: the checks below compare with them
    with each:
        for i in range(len(cases)):
            gots.append(answers[per_case * i])
    with each:
        for got, (X, Y, A, B) in zip(gots, cases):
            _chk.check_type(got, float, f"{name} on random vectors")
            _chk.check_close(got, reference.differential_association(X, Y, A, B),
                             f"{name} on random sets of different sizes and vector lengths", rtol=1e-7, atol=1e-10,
                             hint=hints["value"])
    for k, (what, factor) in enumerate([("after rescaling each target vector of X (which should not change it)", 1),
                                        ("after rescaling each attribute vector of A (which should not change it)", 1),
                                        ("with every target word repeated twice (which should double it)", 2)], 1):
        with each:
            for i, got in enumerate(gots):
                _chk.check_close(answers[per_case * i + k], factor * got, f"{name} {what}", rtol=1e-7, atol=1e-10,
                                 hint=hints[("X", "A", "twice")[k - 1]])
    return gots


def differential_association_tests(nb, seed):
    """Hidden tests of the cell `differential_association_tests`."""
    differential_association = nb.differential_association
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(differential_association, "differential_association", what="`differential_association`",
                            run=lambda: differential_association(*_OWN_WORK_SETS))
        _positive_on_attributes(each, differential_association, "differential_association",
                                "and for each word the mean cosine with A minus the mean cosine with B.")
        rng = np.random.default_rng([seed, 356183])
        cases = [_random_sets(rng, attribute_lengths=False) for _ in range(5)]
        # one request; six calls per case, the answers read in the calls' order
        answers = differential_association.map(args for X, Y, A, B in cases for args in (
            *_shared_calls(X, Y, A, B), (Y, X, A, B), (X, Y, B, A)))
        gots = _shared_checks(each, "differential_association", cases, answers, 6, {
            "value": "Each target word's score is the mean (not the sum) of its cosines with A minus the mean of its "
                     "cosines with B; the statistic is the sum of the scores over X minus the sum over Y.",
            "X": "Cosines do not depend on the lengths of the vectors: normalise the target vectors (or use "
                 "cosine_matrix).",
            "A": "Cosines do not depend on the lengths of the vectors: normalise the attribute vectors (or use "
                 "cosine_matrix).",
            "twice": "The statistic adds up one score per target word (sums over X and Y, not means); each word's "
                     "score is a mean over the attribute words (axis=1 of the cosine matrices)."})
        with each:
            for i, got in enumerate(gots):
                _chk.check_close(answers[6 * i + 4], -got, "differential_association(Y, X, A, B), which should be "
                                 "-s(X, Y, A, B)", rtol=1e-7, atol=1e-10,
                                 hint="Swapping X and Y flips the sign: do not take the absolute value.")
        with each:
            for i, got in enumerate(gots):
                _chk.check_close(answers[6 * i + 5], -got, "differential_association(X, Y, B, A), which should be "
                                 "-s(X, Y, A, B)", rtol=1e-7, atol=1e-10,
                                 hint="Swapping A and B flips the sign: do not take the absolute value.")
        answers = _unchanged_and_glove(each, differential_association, "differential_association", cases,
                                       lambda X, Y, A, B, empty: [(X[:5], Y[:4], A, B), (Y[:3], X[:6], A, B),
                                                                  (empty, empty, A, B), (X, Y, empty, B),
                                                                  (X, Y, A, empty)])
        with each:
            _chk.check_raises(lambda: answers[2], ValueError,
                              "differential_association with 5 words in X and 4 in Y should raise ValueError")
            _chk.check_raises(lambda: answers[3], ValueError,
                              "differential_association with 3 words in X and 6 in Y should raise ValueError")
        with each:
            _chk.check_raises(lambda: answers[4], ValueError,
                              "differential_association with empty X and Y should raise ValueError")
        with each:
            _chk.check_raises(lambda: answers[5], ValueError,
                              "differential_association with an empty A should raise ValueError")
            _chk.check_raises(lambda: answers[6], ValueError,
                              "differential_association with an empty B should raise ValueError")


def attribute_direction_tests(nb, seed):
    """Hidden tests of the cell `attribute_direction_tests`."""
    attribute_direction = nb.attribute_direction
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(attribute_direction, "association", "differential_association",
                            what="`attribute_direction`",
                            run=lambda: attribute_direction(*_OWN_WORK_SETS[2:]))
        rng = np.random.default_rng([seed, 2016])
        cases = []
        for _ in range(5):
            d = int(rng.integers(3, 40))
            cases.append((d, _rows(rng, int(rng.integers(1, 9)), d), _rows(rng, int(rng.integers(1, 9)), d)))
        # one request; three calls per case, the answers read in the calls' order
        answers = attribute_direction.map(args for _, A, B in cases for args in (
            (A, B), (_rescaled(A, 0.5, 4.0), _rescaled(B, 3.0, 0.2)), (np.vstack([A, A]), np.vstack([B, B]))))
        gots = []  # the direction of each case, all read before any is checked: the checks below compare with them
        with each:
            for i in range(len(cases)):
                gots.append(answers[3 * i])
        with each:
            for got, (d, A, B) in zip(gots, cases):
                _chk.check_type(got, np.ndarray, "attribute_direction on random vectors")
                _chk.check_shape(got, (d,), "attribute_direction on random vectors")
                expected = reference.unit_rows(A).mean(axis=0) - reference.unit_rows(B).mean(axis=0)
                assert float(got @ expected) > 0, (
                    "attribute_direction on random vectors points the wrong way: it should point from the centroid of "
                    "B towards the centroid of A (the mean of A's unit vectors minus the mean of B's).")
                _chk.check_close(got, expected, "attribute_direction on random vectors of different lengths and set "
                                 "sizes", rtol=1e-7, atol=1e-10,
                                 hint="Do not rescale the result (or the two centroids) to length 1: the direction is "
                                      "the plain difference of the two means of unit vectors, and its length matters.")
        with each:
            for i, got in enumerate(gots):
                _chk.check_close(answers[3 * i + 1], got, "attribute_direction after rescaling each attribute vector "
                                 "(which should not change it)", rtol=1e-7, atol=1e-10,
                                 hint="Scale every attribute vector to length 1 (each row by its own length) before "
                                      "taking the means.")
        with each:
            for i, got in enumerate(gots):
                _chk.check_close(answers[3 * i + 2], got, "attribute_direction with every attribute word repeated "
                                 "twice (which should not change it)", rtol=1e-7, atol=1e-10,
                                 hint="The centroids are means of the unit vectors, not sums.")
        with each:
            for _, A, B in cases:
                _chk.check_unchanged(attribute_direction, A, B, what="attribute_direction(A, B)")
        X, Y, A, B = _glove_sets(6)  # career vs. family, on names
        W = np.vstack([X, Y])
        empty = np.empty((0, 50))
        answers = attribute_direction.map([(A, B), (A, empty), (empty, B)])  # one request, checked in this order
        with each:
            _chk.check_close(reference.unit_rows(W) @ answers[0], reference.association(W, A, B),
                             "the unit target vectors dotted with attribute_direction(A, B), which should equal "
                             "s(w, A, B) for every word (career vs. family, on names)", rtol=1e-6, atol=1e-9)
        with each:
            _chk.check_raises(lambda: answers[1], ValueError,
                              "attribute_direction with an empty B should raise ValueError")
            _chk.check_raises(lambda: answers[2], ValueError,
                              "attribute_direction with an empty A should raise ValueError")


def differential_association_centroid_tests(nb, seed):
    """Hidden tests of the cell `differential_association_centroid_tests`.

    Judged with the course's ``attribute_direction`` in place of the notebook's: a wrong ``attribute_direction``
    costs its own exercise."""
    centroid_form = nb.differential_association_centroid.alone(attribute_direction=_attribute_direction)
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(centroid_form, "association", "differential_association",
                            what="`differential_association_centroid` (which should use the centroid form, not "
                                 "s(w, A, B))",
                            run=lambda: centroid_form(*_OWN_WORK_SETS))
        _positive_on_attributes(each, centroid_form, "differential_association_centroid",
                                "dotted with the centroid of A minus the centroid of B.")
        rng = np.random.default_rng([seed, 1708])
        cases = [_random_sets(rng, attribute_lengths=True) for _ in range(5)]
        # one request; four calls per case, the answers read in the calls' order
        answers = centroid_form.map(args for X, Y, A, B in cases for args in _shared_calls(X, Y, A, B))
        _shared_checks(each, "differential_association_centroid", cases, answers, 4, {
            "value": "Dot the difference of the target sums with attribute_direction(A, B) as it is (not rescaled to "
                     "length 1).",
            "X": "Normalise each target vector (each row) to length 1 before summing.",
            "A": "The attribute centroids are means of unit vectors: use attribute_direction(A, B).",
            "twice": "Sum (not average) the unit target vectors."})
        answers = _unchanged_and_glove(each, centroid_form, "differential_association_centroid", cases,
                                       lambda X, Y, A, B, empty: [(X[:5], Y[:4], A, B), (empty, empty, A, B)])
        with each:
            _chk.check_raises(lambda: answers[2], ValueError,
                              "differential_association_centroid with 5 words in X and 4 in Y should raise ValueError")
        with each:
            _chk.check_raises(lambda: answers[3], ValueError,
                              "differential_association_centroid with empty X and Y should raise ValueError")
    return _chk.callee_note(centroid_form, *cases[0])
