"""Hidden tests of 02_association: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
``score_words`` is judged with ``_associations`` in place of the notebook's ``associations`` (``Remote.alone``),
so that a wrong ``associations`` costs its own exercise only.
"""

import numpy as np

from helpers import statistics as reference
from helpers.embeddings import load_default, vectors
from helpers.grading.judge import checks as _chk
from helpers.wordsets import weat_test

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel
#: (differential_association, effect_size and run_weat compute through association, so they fail there too).
REFERENCES = {"statistics": ["association"]}


def _rows(rng, max_rows: int, d: int, *, own_lengths: bool = False) -> np.ndarray:
    """1 to ``max_rows - 1`` random ``d``-dimensional rows, all scaled by one random factor in [0.1, 10)
    (with ``own_lengths``, each row then also by its own: rows of very different lengths)."""
    M = rng.normal(size=(int(rng.integers(1, max_rows)), d)) * rng.uniform(0.1, 10)
    if own_lengths:
        M = M * rng.uniform(0.1, 10, size=(len(M), 1))
    return M


def _associations(W, A, B) -> np.ndarray:
    """s(w, A, B) of every row of ``W`` (the exercise's specification, the worked solution's logic): ValueError when
    ``W`` is not a matrix or ``A`` or ``B`` has no rows (and, as ``cosine_matrix`` does, for a zero row).

    The stand-in for the notebook's ``associations`` while ``score_words`` is judged (it runs in the kernel).
    """
    W = np.asarray(W, dtype=float)
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    if W.ndim != 2:
        raise ValueError(f"W must be a matrix with one word vector per row, but it has shape {W.shape}.")
    if len(A) == 0 or len(B) == 0:
        raise ValueError("A and B need at least one word each: the mean of an empty set is undefined.")
    lengths = [np.linalg.norm(M, axis=1, keepdims=True) for M in (W, A, B)]
    if any(np.any(n == 0) for n in lengths):
        raise ValueError("A row is all zeros: its cosine is undefined.")
    Wu, Au, Bu = (M / n for M, n in zip((W, A, B), lengths))
    return (Wu @ Au.T).mean(axis=1) - (Wu @ Bu.T).mean(axis=1)


def association_tests(nb, seed):
    """Hidden tests of the cell `association_tests`."""
    association = nb.association
    rng = np.random.default_rng([seed, 20170414])
    cases = []
    for _ in range(5):
        d = int(rng.integers(3, 40))
        w = rng.normal(size=d) * rng.uniform(0.1, 10)
        cases.append((w, _rows(rng, 9, d, own_lengths=True), _rows(rng, 9, d)))
    kv = load_default()
    spec = weat_test(6)  # career vs. family, on words this notebook does not use
    Av, Bv = vectors(kv, spec.attribute_a.words), vectors(kv, spec.attribute_b.words)
    words = [vectors(kv, [word])[0] for word in ("nurse", "engineer", "home")]
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(association, "association", what="`association`",
                            run=lambda: association(np.arange(1.0, 6.0), np.eye(5)[:3] + 0.5, -np.eye(5)[:2] - 0.5))
        # one request; the answers checked in the order of the calls
        answers = association.map(args for w, A, B in cases for args in ((w, A, B), (w, B, A), (3.7 * w, A, 0.2 * B)))
        gots = []  # s(w, A, B) of each case, all read before any is checked: the checks below compare with them
        with each:
            for i in range(len(cases)):
                gots.append(answers[3 * i])
        with each:
            for got, (w, A, B) in zip(gots, cases):
                _chk.check_type(got, float, "association(w, A, B) on random vectors")
                _chk.check_close(got, reference.association(w, A, B),
                                 "association(w, A, B) on random vectors of different lengths and set sizes",
                                 rtol=1e-7, atol=1e-10,
                                 hint="Use means (not sums) of cosines, and cosines (w and every row of A and B scaled "
                                      "to length 1), not plain dot products.")
        with each:
            for i, got in enumerate(gots):
                _chk.check_close(answers[3 * i + 1], -got,
                                 "association(w, B, A), which should be -association(w, A, B)", rtol=1e-7, atol=1e-10)
        with each:
            for i, got in enumerate(gots):
                _chk.check_close(answers[3 * i + 2], got,
                                 "association(c * w, A, B) for c > 0, which should equal association(w, A, B)",
                                 rtol=1e-7, atol=1e-10)
        # one request; the answers checked in the order of the calls
        answers = association.map([(wv, Av, Bv) for wv in words]
                                  + [(words[-1], Av, np.empty((0, Av.shape[1]))), (Av[:2], Av, Bv)])
        with each:
            for i, wv in enumerate(words):
                _chk.check_close(answers[i], reference.association(wv, Av, Bv), "association(w, A, B) on GloVe vectors",
                                 rtol=1e-6, atol=1e-9)
        with each:
            _chk.check_raises(lambda: answers[3], ValueError,
                              "association(w, A, B) with an empty B should raise ValueError")
        with each:
            _chk.check_raises(lambda: answers[4], ValueError,
                              "association(w, A, B) with a matrix as w should raise ValueError")
        with each:
            _chk.check_unchanged(association, rng.normal(size=6), rng.normal(size=(3, 6)), rng.normal(size=(2, 6)),
                                 what="association(w, A, B) of float64 arrays")


def associations_tests(nb, seed):
    """Hidden tests of the cell `associations_tests`."""
    associations = nb.associations
    rng = np.random.default_rng([seed, 1608])
    cases = []
    for _ in range(5):
        d = int(rng.integers(3, 40))
        cases.append((_rows(rng, 12, d, own_lengths=True), _rows(rng, 9, d), _rows(rng, 9, d)))
    kv = load_default()
    spec = weat_test(2)  # instruments vs. weapons, pleasant vs. unpleasant
    W = vectors(kv, spec.target_x.words + spec.target_y.words)
    Av, Bv = vectors(kv, spec.attribute_a.words), vectors(kv, spec.attribute_b.words)
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(associations, "association", what="`associations`",
                            run=lambda: associations(np.eye(5)[:4] + 0.5, np.eye(5)[:3] + 0.5, -np.eye(5)[:2] - 0.5))
        answers = associations.map(cases)  # one request; the answers checked in the order of the calls
        with each:
            for i, (Wr, A, B) in enumerate(cases):
                got = answers[i]
                _chk.check_type(got, np.ndarray, "associations(W, A, B) on random vectors")
                _chk.check_shape(got, (len(Wr),), "associations(W, A, B) on random vectors")
                _chk.check_close(got, reference.association(Wr, A, B),
                                 "associations(W, A, B) on random vectors of different lengths and set sizes",
                                 rtol=1e-7, atol=1e-10,
                                 hint="Use the row means (not sums) of the cosine matrices, and cosines rather than "
                                      "dot products.")
        # one request; the answers checked in the order of the calls
        answers = associations.map([(W, Av, Bv), (W[:1], Av, Bv), (W, np.empty((0, W.shape[1])), Bv),
                                    (W, Av, np.empty((0, W.shape[1])))])
        with each:
            _chk.check_close(answers[0], reference.association(W, Av, Bv),
                             "associations(W, A, B) on 50 GloVe word vectors", rtol=1e-6, atol=1e-9)
        with each:
            _chk.check_shape(answers[1], (1,), "associations(W, A, B) for a matrix W with a single row")
        with each:
            _chk.check_raises(lambda: answers[2], ValueError,
                              "associations(W, A, B) with an empty A should raise ValueError")
            _chk.check_raises(lambda: answers[3], ValueError,
                              "associations(W, A, B) with an empty B should raise ValueError")
        with each:
            _chk.check_unchanged(associations, rng.normal(size=(4, 6)), rng.normal(size=(3, 6)),
                                 rng.normal(size=(2, 6)), what="associations(W, A, B) of float64 arrays")


def associations_vectorised_tests(nb, seed):
    """Hidden tests of the cell `associations_vectorised_tests`: a right answer, without a loop.

    The point is for vectorised code that works: a stub or a wrong answer without loops earns nothing.
    """
    rng = np.random.default_rng([seed, 1609])
    W = rng.normal(size=(8, 7)) * rng.uniform(0.1, 10, size=(8, 1))   # rows of very different lengths
    A, B = rng.normal(size=(3, 7)) * 4.0, rng.normal(size=(5, 7)) * 0.3   # |A| != |B|, not unit length
    # each block fails alone: the feedback names every mistake (a wrong value and a loop)
    with _chk.every_failure() as each:
        with each:
            _chk.check_close(nb.associations(W, A, B), reference.association(W, A, B),
                             "associations(W, A, B) on random vectors (the vectorised point needs a right answer)",
                             rtol=1e-7, atol=1e-10)
        with each:
            # associations and every function of this notebook it uses, also loops in disguise (np.vectorize, map, ...)
            _chk.check_vectorised(nb.associations, hint="Use the row means of the two cosine matrices, "
                                  "cosine_matrix(W, A) and cosine_matrix(W, B), instead of scoring the words one at "
                                  "a time.")


def score_words_tests(nb, seed):
    """Hidden tests of the cell `score_words_tests`.

    Judged with the course's ``associations`` in place of the notebook's: a wrong ``associations`` costs its own
    exercise."""
    score_words = nb.score_words.alone(associations=_associations)
    kv = load_default()
    spec = weat_test(2)  # weapons against 10 pleasant and 7 unpleasant words, with missing words in every list
    targets = ["Zzyzxqv"] + list(spec.target_y.words) + ["Qwxzvy"]
    a = list(spec.attribute_a.words[:10]) + ["Plmqzx"]
    b = ["Xqzvbn"] + list(spec.attribute_b.words[:7])
    # each block fails alone: the feedback names every mistake; own work first, alone
    with _chk.every_failure() as each:
        _chk.check_own_work(score_words, "association", what="`score_words`",
                            run=lambda: score_words(kv, ["tulip", "wasp"], ["love", "peace"], ["death"]))
        words, scores, missing = score_words(kv, targets, a, b)  # everything below reads it: not in a block
        with each:
            assert missing == ["Zzyzxqv", "Qwxzvy", "Plmqzx", "Xqzvbn"], (
                "the missing words should list every missing target word, then the missing words of A, then of B, in "
                "list order.")
        with each:
            assert words == list(spec.target_y.words), (
                "the words found should be the target words in the embedding, as written and in order.")
        with each:
            _chk.check_shape(scores, (len(spec.target_y.words),), "the scores of the weapons")
            expected = reference.association(vectors(kv, spec.target_y.words),
                                             vectors(kv, spec.attribute_a.words[:10]),
                                             vectors(kv, spec.attribute_b.words[:7]))
            _chk.check_close(scores, expected, "the scores of the weapons against 10 pleasant and 7 unpleasant words",
                             rtol=1e-6, atol=1e-9)
        with each:
            _chk.check_raises(lambda: score_words(kv, ["Zzyzxqv", "Qwxzvy"], a, b), ValueError,
                              "score_words with no target word in the embedding should raise ValueError")
        with each:
            _chk.check_raises(lambda: score_words(kv, ["rose"], ["Plmqzx"], b), ValueError,
                              "score_words with no word of A in the embedding should raise ValueError")
    return _chk.callee_note(score_words, kv, targets, a, b)
