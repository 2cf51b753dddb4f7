"""Hidden tests of 12_bias_from_corpora: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function (a proxy: calls run in the student's kernel on plain data), ``seed`` this
submission's seed. Expected values are computed here, with the reference (:mod:`helpers.corpus`), on
small corpora: each cell's checks take well under a second.
"""

import numpy as np

from helpers import corpus as _reference
from helpers.grading.judge import checks as _chk

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {"corpus": ["cooccurrence_counts", "ppmi", "counterfactual_augmentation"]}


def _random_corpus(rng, n_sentences: int, n_words: int, max_length: int = 9):
    """Sentences of words ``w0 .. w{n_words-1}`` and an out-of-vocabulary ``oov`` (about one token in eight),
    with lengths from 1 to ``max_length`` (one-word sentences have no pair at all)."""
    words = np.array([f"w{k}" for k in range(n_words)] + ["oov"])
    p = np.r_[np.full(n_words, 7 / (8 * n_words)), 1 / 8]
    return [list(words[rng.choice(len(words), size=rng.integers(1, max_length + 1), p=p)])
            for _ in range(n_sentences)]


def _encode(sentences, vocabulary):
    index = {w: k for k, w in enumerate(vocabulary)}
    ids = np.array([index.get(w, -1) for s in sentences for w in s], dtype=np.int64)
    sentence = np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])
    return ids, sentence


def cooccurrence_counts_tests(nb, seed):
    """Random corpora with out-of-vocabulary tokens and one-word sentences, windows 1 to 5, a window longer
    than every sentence, no loop, every error of the docstring, own work."""
    cooccurrence_counts = nb.cooccurrence_counts
    rng = np.random.default_rng([seed, 12101])
    sents = _random_corpus(rng, 60, 9)
    vocab = [f"w{k}" for k in range(9)]
    ids, sent = _encode(sents, vocab)
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        # own work first, alone (its run is also the first value check)
        C = _chk.check_own_work(cooccurrence_counts, "cooccurrence_counts", what="`cooccurrence_counts`",
                                run=lambda: cooccurrence_counts(ids, sent, 9, 2))
        with each:
            _chk.check_shape(C, (9, 9), "cooccurrence_counts on a random corpus of 9 words")
            _chk.check_close(C, _reference.cooccurrence_counts(sents, vocab, 2).toarray(),
                             "cooccurrence_counts (window 2) on 60 random sentences with words outside the vocabulary",
                             rtol=0, atol=0)
        with each:
            for window in (1, 3, 5, 12):
                _chk.check_close(cooccurrence_counts(ids, sent, 9, window),
                                 _reference.cooccurrence_counts(sents, vocab, window).toarray(),
                                 f"cooccurrence_counts with window {window} on 60 random sentences", rtol=0, atol=0)
        with each:
            # a vocabulary word that never occurs keeps its (zero) row and column
            wide = cooccurrence_counts(ids, sent, 11, 2)
            what = "cooccurrence_counts with n_words 11, larger than the 9 words that occur"
            _chk.check_shape(wide, (11, 11), what)
            _chk.check_close(wide, np.pad(_reference.cooccurrence_counts(sents, vocab, 2).toarray(), ((0, 2), (0, 2))),
                             f"{what} (the two that never occur keep zero rows and columns)", rtol=0, atol=0)
        with each:
            one = cooccurrence_counts(np.array([3]), np.array([0]), 4, 2)
            _chk.check_close(one, np.zeros((4, 4)), "cooccurrence_counts of a one-word corpus", rtol=0, atol=0)
        with each:
            _chk.check_raises(lambda: cooccurrence_counts(ids, sent, 9, 0), ValueError,
                              "A window of 0 should raise ValueError")
        with each:
            _chk.check_raises(lambda: cooccurrence_counts(ids, sent[:-1], 9, 2), ValueError,
                              "ids and sentence of different lengths should raise ValueError")
        with each:
            _chk.check_raises(lambda: cooccurrence_counts(ids, sent, 5, 2), ValueError,
                              "An index at least n_words should raise ValueError")
        with each:
            below = ids.copy()
            below[3] = -2
            _chk.check_raises(lambda: cooccurrence_counts(below, sent, 9, 2), ValueError,
                              "An index below -1 should raise ValueError (-1 alone marks a word outside the vocabulary)")
        with each:
            _chk.check_raises(lambda: cooccurrence_counts(ids.reshape(-1, 1), sent.reshape(-1, 1), 9, 2), ValueError,
                              "ids and sentence given as columns (2-D arrays) should raise ValueError")
        with each:
            _chk.check_vectorised(cooccurrence_counts, hint="Make every pair (i, i + k) at once by broadcasting the "
                                  "positions against the distances 1 .. window, then count the pairs with np.bincount.")


def ppmi_tests(nb, seed):
    """Random counts that are not symmetric, with zeros, a row and a column of zeros, no warning or NaN, the
    errors of the docstring, inputs unchanged, no loop, own work."""
    ppmi = nb.ppmi
    rng = np.random.default_rng([seed, 12202])
    C = rng.poisson(1.5, size=(7, 5)).astype(np.float64)
    C[2] = 0.0           # a word never seen
    C[:, 4] = 0.0        # a context never seen
    C[0, 0] = 9.0
    expected = _reference.ppmi(C).toarray()
    counts = rng.integers(0, 4, size=(6, 6)).tolist()
    counts[0][0] = 5
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        _chk.check_own_work(ppmi, "ppmi", what="`ppmi`", run=lambda: ppmi(C))   # own work first, alone
        with each:
            P = _chk.check_unchanged(ppmi, C, what="ppmi(C) on a float64 array")
            _chk.check_shape(P, (7, 5), "ppmi of a 7 x 5 matrix of counts")
            assert np.isfinite(P).all(), ("ppmi returned NaN or infinity for a matrix with a row and a column of "
                                          "zeros.")
            _chk.check_close(P, expected, "ppmi of random counts that are not symmetric (with a row and a column of "
                             "zeros)", rtol=1e-10, atol=1e-12)
        with each:
            _chk.check_close(ppmi(counts), _reference.ppmi(counts).toarray(), "ppmi of a list of lists of integers",
                             rtol=1e-10, atol=1e-12)
        with each:
            _chk.check_raises(lambda: ppmi(np.array([[1.0, -1.0], [2.0, 0.0]])), ValueError,
                              "A negative count should raise ValueError")
        with each:
            _chk.check_raises(lambda: ppmi(np.array([[1.0, np.nan], [2.0, 0.0]])), ValueError,
                              "A NaN count should raise ValueError")
        with each:
            _chk.check_raises(lambda: ppmi(np.array([[1.0, np.inf], [2.0, 0.0]])), ValueError,
                              "An infinite count should raise ValueError")
        with each:
            _chk.check_raises(lambda: ppmi(np.zeros((3, 2))), ValueError, "A matrix of zeros should raise ValueError")
        with each:
            _chk.check_raises(lambda: ppmi(np.ones(4)), ValueError, "A 1-D array should raise ValueError")
        with each:
            _chk.check_vectorised(ppmi, hint="Compute the row and column sums once and the whole matrix of PMI with "
                                  "broadcasting; np.where or a boolean mask handles the zeros.")


def swap_gendered_tests(nb, seed):
    """Random sentences with every pair word and other words, the caller's lists unchanged, an empty sentence,
    a word in two pairs, own work."""
    swap_gendered = nb.swap_gendered
    rng = np.random.default_rng([seed, 12303])
    pairs = [("he", "she"), ("him", "her"), ("king", "queen"), ("uncle", "aunt")]
    words = np.array([w for p in pairs for w in p] + ["the", "saw", "engineer", "nurse", "and"])
    sents = [list(words[rng.integers(len(words), size=rng.integers(1, 8))]) for _ in range(20)] + [[]]
    expected = _reference.counterfactual_augmentation(sents, pairs)[len(sents):]
    with _chk.every_failure() as each:  # each block fails alone: the feedback names every mistake
        _chk.check_own_work(swap_gendered, "counterfactual_augmentation", what="`swap_gendered`",
                            run=lambda: swap_gendered(sents, pairs))   # own work first, alone
        got, after = swap_gendered.call_returning_args(sents, pairs)
        with each:
            assert after[0] == sents, "swap_gendered changed the caller's sentences: build new lists."
        with each:
            assert isinstance(got, list) and len(got) == len(sents), (
                f"swap_gendered should return a list of {len(sents)} sentences.")
            assert [list(s) for s in got] == expected, (
                "swap_gendered on 21 random sentences (one of them empty) with four pairs is not right: every word of "
                "a pair becomes its partner, both directions at once, and every other word stays.")
        with each:
            twice = swap_gendered(swap_gendered(sents, pairs), pairs)
            assert [list(s) for s in twice] == sents, "Swapping twice should give the original sentences back."
        with each:
            _chk.check_raises(lambda: swap_gendered(sents, [("he", "she"), ("she", "her")]), ValueError,
                              "A word in two pairs should raise ValueError")
        with each:
            _chk.check_raises(lambda: swap_gendered(sents, [("king", "king")]), ValueError,
                              "A pair with the same word twice should raise ValueError")
