r"""Where the biases come from: word vectors made from a corpus (notebook 12).

Three representations of one corpus, from the simplest to the one the paper measures:

* :func:`build_vocabulary`, :func:`cooccurrence_counts`: windowed co-occurrence counts, a
  :mod:`scipy.sparse` matrix counted with vectorised NumPy (no loop over tokens);
* :func:`ppmi`: positive pointwise mutual information of the counts, and :func:`truncated_svd`: its
  rank-k reduction (deterministic, with a fixed sign for each component);
* :func:`train_word2vec`: a thin wrapper over gensim's ``Word2Vec`` that makes training deterministic
  (``workers=1``, a fixed ``seed`` and a hash that does not depend on ``PYTHONHASHSEED``).

And two tools to change a corpus and watch a WEAT follow: :func:`synthetic_corpus` (a corpus with a
planted association rate between occupations and gendered words, seeded through
:func:`helpers.statistics.resolve_rng`) and :func:`counterfactual_augmentation` (the corpus plus a
copy with the gendered words of each pair swapped).

What gensim 4.4 needs for determinism (read from its code, ``gensim/models/word2vec.py`` and
``keyedvectors.py``, and tested in ``tests/test_corpus.py``): the initial vectors come from
``numpy.random.default_rng(seed)`` (``KeyedVectors.resize_vectors``) and the negative samples and
window shrinking from ``numpy.random.RandomState(seed)``, so a fixed ``seed`` fixes every draw; the
threads take jobs in the order the operating system schedules them, so ``workers=1``. The
``hashfxn`` argument (Python's ``hash``, randomised per process unless ``PYTHONHASHSEED`` is set)
is only used by gensim's deprecated ``seeded_vector`` in 4.4; :func:`train_word2vec` passes a
stable hash anyway, so no version of gensim can make a result depend on the process.
Arithmetic in float32 through BLAS can still differ between CPU kernels: compare vectors trained on
two machines to a few significant digits, not bit for bit.

References
----------
A. Caliskan, J. J. Bryson, A. Narayanan, "Semantics derived automatically from language corpora
contain human-like biases", Science 356, 183-186 (2017), doi:10.1126/science.aal4230.
O. Levy, Y. Goldberg, I. Dagan, "Improving distributional similarity with lessons learned from word
embeddings", Transactions of the ACL 3, 211-225 (2015), doi:10.1162/tacl_a_00134.
T. Mikolov, I. Sutskever, K. Chen, G. Corrado, J. Dean, "Distributed representations of words and
phrases and their compositionality", NIPS 26 (2013), arXiv:1310.4546.
R. Zmigrod, S. J. Mielke, H. Wallach, R. Cotterell, "Counterfactual data augmentation for mitigating
gender stereotypes in languages with rich morphology", ACL 2019, doi:10.18653/v1/P19-1161.
"""
from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from .statistics import resolve_rng

__all__ = [
    "build_vocabulary", "cooccurrence_counts", "ppmi", "truncated_svd", "train_word2vec", "stable_hash",
    "synthetic_corpus", "counterfactual_augmentation", "read_corpus", "MALE_WORDS", "FEMALE_WORDS",
    "HELD_OUT_PAIRS", "CAREER_TARGETS", "CARE_TARGETS", "FILLER_WORDS", "DENSE_SVD_MAX",
]

#: The gendered attribute words of the synthetic corpus (the WEAT's A): pronouns and kin terms, each
#: paired with the word of :data:`FEMALE_WORDS` at the same position (the pairs
#: :func:`counterfactual_augmentation` swaps).
MALE_WORDS = ("he", "him", "man", "boy", "father", "son", "brother", "husband")
#: The female attribute words (the WEAT's B), in the order of their male partners in :data:`MALE_WORDS`.
FEMALE_WORDS = ("she", "her", "woman", "girl", "mother", "daughter", "sister", "wife")
#: Gendered pairs that are not attribute words: a task that needs gender (is the male word closer to
#: the male attribute words than its female partner is?), and the held-out pairs of notebook 08's sense.
HELD_OUT_PAIRS = (("king", "queen"), ("uncle", "aunt"), ("nephew", "niece"), ("prince", "princess"),
                  ("lord", "lady"), ("monk", "nun"))
#: Target words (the WEAT's X) that the generator pairs with male words at the planted rate.
CAREER_TARGETS = ("engineer", "programmer", "scientist", "pilot", "mechanic", "surgeon", "architect", "plumber")
#: Target words (the WEAT's Y) that the generator pairs with female words at the planted rate.
CARE_TARGETS = ("nurse", "librarian", "dancer", "secretary", "nanny", "receptionist", "hairdresser", "florist")
#: Neutral words that fill the sentences of the synthetic corpus around the target and attribute words.
FILLER_WORDS = tuple(
    "the a of to and in that was for on with as at by from this said went saw made took came gave found "
    "told asked worked lived city town house morning evening day week year work home street garden market "
    "letter book table window door road river office school train car paper money time story place".split())
#: Largest vocabulary whose matrix :func:`truncated_svd` decomposes densely (``numpy.linalg.svd``): a
#: 3,000 x 3,000 float64 matrix is 72 MB and takes seconds; larger ones go to ``scipy.sparse.linalg.svds``.
DENSE_SVD_MAX = 3000


def _check_sentences(sentences) -> list[list[str]]:
    """The corpus as a list of lists of str, or a ValueError/TypeError that says what is wrong."""
    if isinstance(sentences, str) or not isinstance(sentences, Iterable):
        raise TypeError("sentences must be a list of sentences, each a list of words (str), not "
                        f"{type(sentences).__name__}")
    out = []
    for k, s in enumerate(sentences):
        if isinstance(s, str) or not isinstance(s, Iterable):
            raise TypeError(f"sentence {k} is a {type(s).__name__}; each sentence must be a list of words (str): "
                            "split text with str.split()")
        s = list(s)
        if not all(isinstance(w, str) for w in s):
            raise TypeError(f"sentence {k} contains something that is not a str")
        out.append(s)
    return out


def build_vocabulary(sentences, min_count: int = 1) -> list[str]:
    """Return the words of a corpus seen at least ``min_count`` times, most frequent first.

    Ties keep the order in which the words first appear in the corpus, so the vocabulary (and the
    rows of every matrix built on it) does not depend on the process or the machine.

    Parameters
    ----------
    sentences : iterable of list of str
        The corpus: one list of words (tokens) per sentence.
    min_count : int
        Leave out words seen fewer times.

    Returns
    -------
    list of str
        The vocabulary, most frequent first.

    Raises
    ------
    TypeError
        When a sentence is not a list of str.
    ValueError
        When ``min_count`` is below 1.

    Examples
    --------
    >>> build_vocabulary([["b", "a", "b"], ["c", "a", "b"]])
    ['b', 'a', 'c']
    """
    if min_count < 1:
        raise ValueError("min_count must be at least 1")
    counts = Counter(w for s in _check_sentences(sentences) for w in s)
    # Counter keeps first-appearance order; sorted() is stable
    return [w for w, n in sorted(counts.items(), key=lambda item: -item[1]) if n >= min_count]


def cooccurrence_counts(sentences, vocabulary: Sequence[str], window: int = 2) -> sp.csr_matrix:
    r"""Count how often each pair of vocabulary words occurs within ``window`` positions of each other.

    .. math:: C_{wc} = \#\{(i, j) : t_i = w,\ t_j = c,\ 0 < |i - j| \le \text{window},
              \ i, j \text{ in the same sentence}\}

    The count is symmetric (:math:`C = C^\top`) and unweighted (every position in the window counts
    1, as in Levy, Goldberg & Dagan 2015 without "dynamic context windows"). Words outside
    ``vocabulary`` keep their positions (they separate the words around them) but are not counted.
    Vectorised: the corpus becomes one array of word indices and, for each distance k, the pairs at
    distance k inside one sentence are counted at once (``scipy.sparse.coo_matrix`` adds duplicates).

    Parameters
    ----------
    sentences : iterable of list of str
        The corpus: one list of words per sentence; windows do not cross sentences.
    vocabulary : sequence of str
        The words of the rows and columns, in this order (for example :func:`build_vocabulary`).
    window : int
        The largest distance counted (at least 1).

    Returns
    -------
    scipy.sparse.csr_matrix
        The counts (float64), shape (len(vocabulary), len(vocabulary)), symmetric.

    Raises
    ------
    TypeError
        When a sentence is not a list of str.
    ValueError
        When ``window`` is below 1, or ``vocabulary`` is empty or repeats a word.

    Examples
    --------
    >>> C = cooccurrence_counts([["a", "b", "c"]], ["a", "b", "c"], window=1)
    >>> C.toarray().tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    if int(window) != window or window < 1:
        raise ValueError("window must be a whole number, at least 1")
    vocabulary = list(vocabulary)
    if not vocabulary:
        raise ValueError("the vocabulary is empty")
    index = {w: i for i, w in enumerate(vocabulary)}
    if len(index) != len(vocabulary):
        raise ValueError("the vocabulary repeats a word")
    sentences = _check_sentences(sentences)
    n = len(vocabulary)
    ids = np.fromiter((index.get(w, -1) for s in sentences for w in s), dtype=np.int64)
    sent = np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])
    rows, cols = [], []
    for k in range(1, int(window) + 1):
        left, right = ids[:-k], ids[k:]
        keep = (sent[:-k] == sent[k:]) & (left >= 0) & (right >= 0)
        rows += [left[keep], right[keep]]
        cols += [right[keep], left[keep]]
    r = np.concatenate(rows) if rows else np.empty(0, np.int64)
    c = np.concatenate(cols) if cols else np.empty(0, np.int64)
    return sp.coo_matrix((np.ones(len(r)), (r, c)), shape=(n, n)).tocsr()


def ppmi(counts) -> sp.csr_matrix:
    r"""Positive pointwise mutual information of a co-occurrence matrix.

    .. math:: \operatorname{PPMI}(w, c) = \max\Bigl(0,\ \log \frac{P(w, c)}{P(w)\,P(c)}\Bigr)
              = \max\Bigl(0,\ \log \frac{C_{wc}\, N}{C_{w\cdot}\, C_{\cdot c}}\Bigr)

    with :math:`N = \sum_{w,c} C_{wc}`, row sums :math:`C_{w\cdot}` and column sums
    :math:`C_{\cdot c}` (natural logarithm; Levy, Goldberg & Dagan 2015, without context-distribution
    smoothing). A pair never seen has PPMI 0 (the limit of :math:`\max(0, \log 0)`), so the result
    is as sparse as the counts.

    Parameters
    ----------
    counts : scipy.sparse matrix or array_like
        Non-negative co-occurrence counts, shape (n_words, n_contexts).

    Returns
    -------
    scipy.sparse.csr_matrix
        The PPMI values (float64), the shape of ``counts``.

    Raises
    ------
    ValueError
        When a count is negative or not finite, or every count is zero.

    Examples
    --------
    >>> P = ppmi([[0, 2], [2, 0]])
    >>> round(float(P[0, 1]), 6)   # log(2 * 4 / (2 * 2)) = log 2
    0.693147
    """
    C = sp.csr_matrix(counts, dtype=np.float64)
    C.sum_duplicates()
    C.eliminate_zeros()
    if not np.isfinite(C.data).all() or (C.data < 0).any():
        raise ValueError("co-occurrence counts must be finite and non-negative")
    total = C.data.sum()
    if total == 0:
        raise ValueError("every count is zero: the corpus has no pair of vocabulary words within the window")
    rows = np.asarray(C.sum(axis=1)).ravel()
    cols = np.asarray(C.sum(axis=0)).ravel()
    coo = C.tocoo()
    pmi = np.log(coo.data * total / (rows[coo.row] * cols[coo.col]))
    out = sp.csr_matrix((np.maximum(pmi, 0.0), (coo.row, coo.col)), shape=C.shape)
    out.eliminate_zeros()
    return out


def truncated_svd(M, k: int, *, weight: float = 0.5) -> np.ndarray:
    r"""Rank-``k`` word vectors from a matrix by truncated singular value decomposition.

    .. math:: M \approx U_k \Sigma_k V_k^\top, \qquad W = U_k \Sigma_k^{p}

    with the ``k`` largest singular values, in decreasing order, and :math:`p` = ``weight`` (Levy,
    Goldberg & Dagan 2015: :math:`p = 0.5` or 0 often work better than 1). Deterministic: each
    component's sign is fixed so that the entry of largest absolute value of its column of
    :math:`U` is positive (an SVD is unique only up to these signs); matrices with at most
    :data:`DENSE_SVD_MAX` rows and columns are decomposed densely with LAPACK
    (``numpy.linalg.svd``), larger ones with ``scipy.sparse.linalg.svds`` (ARPACK) from a fixed
    start vector.

    Parameters
    ----------
    M : scipy.sparse matrix or array_like
        The matrix, one word per row (for example :func:`ppmi`'s result).
    k : int
        Number of dimensions, ``1 <= k < min(M.shape)``.
    weight : float
        The exponent :math:`p` of the singular values.

    Returns
    -------
    numpy.ndarray
        The word vectors (float64), shape (M.shape[0], k): one per row.

    Raises
    ------
    ValueError
        When ``k`` is out of range or ``M`` is not finite.

    Examples
    --------
    >>> W = truncated_svd(np.diag([3.0, 2.0, 1.0]), 2, weight=1.0)
    >>> W.round(6).tolist()
    [[3.0, 0.0], [0.0, 2.0], [0.0, 0.0]]
    """
    dense = not sp.issparse(M)
    A = np.asarray(M, dtype=np.float64) if dense else sp.csr_matrix(M, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError("M must be a matrix (2-D)")
    if int(k) != k or not 1 <= k < min(A.shape):
        raise ValueError(f"k must be a whole number with 1 <= k < min(M.shape) = {min(A.shape)}")
    if not np.isfinite(A if dense else A.data).all():
        raise ValueError("M contains NaN or infinite values")
    k = int(k)
    if max(A.shape) <= DENSE_SVD_MAX:
        U, s, _ = np.linalg.svd(A if dense else A.toarray(), full_matrices=False)
        U, s = U[:, :k], s[:k]
    else:
        from scipy.sparse.linalg import svds
        v0 = np.ones(min(A.shape)) / np.sqrt(min(A.shape))
        U, s, _ = svds(A, k=k, v0=v0, solver="arpack")
        order = np.argsort(-s, kind="stable")
        U, s = U[:, order], s[order]
    pivot = np.abs(U).argmax(axis=0)
    U = U * np.where(U[pivot, np.arange(k)] < 0, -1.0, 1.0)
    return U * s ** weight


def stable_hash(text: str) -> int:
    """A hash of a string that is the same in every process (CRC-32), for gensim's ``hashfxn``.

    Python's ``hash`` of a string changes from process to process unless ``PYTHONHASHSEED`` is set;
    this one does not.

    Parameters
    ----------
    text : str
        The string.

    Returns
    -------
    int
        Its CRC-32, between 0 and 2**32 - 1.

    Examples
    --------
    >>> stable_hash("he")
    3508889223
    """
    return zlib.crc32(str(text).encode("utf-8"))


def train_word2vec(sentences, *, vector_size: int = 50, window: int = 5, min_count: int = 1, epochs: int = 5,
                   sg: int = 1, negative: int = 5, sample: float = 1e-3, seed: int = 0,
                   on_epoch: Callable[[int], None] | None = None):
    """Train word2vec (gensim 4) on a corpus, deterministically, and return its word vectors.

    A thin wrapper over ``gensim.models.Word2Vec`` (Mikolov et al. 2013) with what determinism
    needs (the module docstring says why): ``workers=1``, ``seed`` and a stable ``hashfxn``.
    The same corpus, arguments and seed give the same vectors, bit for bit, on one machine.

    Parameters
    ----------
    sentences : iterable of list of str
        The corpus: one list of words per sentence.
    vector_size : int
        Dimensions of the vectors.
    window : int
        The largest distance between a word and a context word (gensim draws a smaller one per word).
    min_count : int
        Leave out words seen fewer times.
    epochs : int
        Passes over the corpus.
    sg : int
        1 for skip-gram, 0 for CBOW.
    negative : int
        Negative samples per positive one.
    sample : float
        Threshold for down-sampling frequent words (gensim's ``sample``; 0 keeps every word).
    seed : int
        The seed of every random draw (initial vectors, negative samples, window sizes).
    on_epoch : callable or None
        Called with the number of epochs done after each epoch (for a progress bar).

    Returns
    -------
    gensim.models.KeyedVectors
        The trained word vectors (float32), most frequent word first.

    Raises
    ------
    TypeError
        When a sentence is not a list of str.
    ValueError
        When no word is seen ``min_count`` times (an empty corpus).
    """
    from gensim.models import Word2Vec
    from gensim.models.callbacks import CallbackAny2Vec

    sentences = _check_sentences(sentences)
    if not build_vocabulary(sentences, min_count=min_count):
        raise ValueError(f"the corpus has no word seen at least min_count={min_count} times (is it empty?)")

    class _Progress(CallbackAny2Vec):
        def __init__(self):
            self.done = 0

        def on_epoch_end(self, model):
            self.done += 1
            on_epoch(self.done)

    model = Word2Vec(sentences, vector_size=vector_size, window=window, min_count=min_count, epochs=epochs,
                     sg=sg, negative=negative, sample=sample, seed=seed, workers=1, hashfxn=stable_hash,
                     callbacks=[_Progress()] if on_epoch else ())
    return model.wv


def synthetic_corpus(rate: float, *, n_sentences: int = 4000, n_definitional: int = 1000, n_filler: int = 1000,
                     sentence_length: int = 8, rng=None) -> list[list[str]]:
    r"""A corpus in which occupations share contexts with gendered words at a planted rate.

    Three kinds of sentences, each of ``sentence_length`` words, in a random order:

    * ``n_sentences`` occupation sentences: a target word (uniform over :data:`CAREER_TARGETS` and
      :data:`CARE_TARGETS`), zero to two filler words, then a gendered attribute word. With
      probability ``rate`` the attribute word has the stereotyped gender (male for a career
      target, female for a care target); otherwise its gender is a fair coin. So the share of
      career targets that meet a male word is :math:`(1 + \text{rate}) / 2`: 0.5 at ``rate=0`` (no
      association), 1 at ``rate=1``.
    * ``n_definitional`` sentences in which two words of one gender stand side by side: an
      attribute word or a word of :data:`HELD_OUT_PAIRS`, then another attribute word of the same
      gender (*king he*, *man his*). They give the held-out words their gender, and the
      attribute words contexts in common.
    * ``n_filler`` sentences of filler words only.

    Filler words are drawn with Zipf-like frequencies (the k-th with weight 1/k).

    Parameters
    ----------
    rate : float
        The planted association, between 0 and 1.
    n_sentences : int
        Occupation sentences.
    n_definitional : int
        Sentences of the held-out gendered words.
    n_filler : int
        Sentences of filler words only.
    sentence_length : int
        Words per sentence (at least 5).
    rng : int, sequence of int, numpy.random.Generator or None
        Seed or generator (:func:`helpers.statistics.resolve_rng`).

    Returns
    -------
    list of list of str
        The sentences.

    Raises
    ------
    ValueError
        When ``rate`` is outside [0, 1], a count is negative or ``sentence_length`` is below 5.
    """
    if not 0.0 <= rate <= 1.0:
        raise ValueError("rate must be between 0 and 1")
    if min(n_sentences, n_definitional, n_filler) < 0 or sentence_length < 5:
        raise ValueError("the numbers of sentences must be >= 0 and sentence_length >= 5")
    g = resolve_rng(rng)
    fill_p = 1.0 / np.arange(1, len(FILLER_WORDS) + 1)
    fill_p /= fill_p.sum()
    words = np.array(FILLER_WORDS + CAREER_TARGETS + CARE_TARGETS + MALE_WORDS + FEMALE_WORDS
                     + tuple(w for pair in HELD_OUT_PAIRS for w in pair))   # a str dtype wide enough for all
    out = words[g.choice(len(FILLER_WORDS), p=fill_p,
                         size=(n_sentences + n_definitional + n_filler, sentence_length))]
    targets = np.array(CAREER_TARGETS + CARE_TARGETS)
    male, female = np.array(MALE_WORDS), np.array(FEMALE_WORDS)
    # occupation sentences
    t = g.integers(len(targets), size=n_sentences)
    is_career = t < len(CAREER_TARGETS)
    stereotyped = g.random(n_sentences) < rate
    coin = g.random(n_sentences) < 0.5
    is_male = np.where(stereotyped, is_career, coin)
    attr = np.where(is_male, male[g.integers(len(male), size=n_sentences)],
                    female[g.integers(len(female), size=n_sentences)])
    start = g.integers(sentence_length - 3, size=n_sentences)
    gap = g.integers(1, 4, size=n_sentences)
    rows = np.arange(n_sentences)
    out[rows, start] = targets[t]
    out[rows, start + gap] = attr
    # definitional sentences: two words of one gender side by side (an attribute word or a held-out word,
    # then another attribute word), so gendered words share their contexts with each other
    side = g.integers(2, size=n_definitional)
    first = g.integers(len(male) + len(HELD_OUT_PAIRS), size=n_definitional)
    second = g.integers(len(male) - 1, size=n_definitional)
    second = np.where(second >= first, second + 1, second)   # another attribute word than the first
    start_d = g.integers(sentence_length - 2, size=n_definitional)
    gendered = np.array([MALE_WORDS + tuple(m for m, _ in HELD_OUT_PAIRS),
                         FEMALE_WORDS + tuple(f for _, f in HELD_OUT_PAIRS)])
    rows = n_sentences + np.arange(n_definitional)
    out[rows, start_d] = gendered[side, first]
    out[rows, start_d + 1] = gendered[side, second]
    out = out.tolist()
    order = g.permutation(len(out))
    return [out[i] for i in order]


def counterfactual_augmentation(sentences, pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The corpus followed by a copy of it in which the words of every gendered pair are swapped.

    Counterfactual data augmentation (Zmigrod et al. 2019 and earlier work by Lu et al.): in the copy
    every occurrence of a pair's first word becomes the second and vice versa (*he* <-> *she*,
    *king* <-> *queen*), so a word that met *he* in the original meets *she* as often in the copy,
    while what defines a gendered word (the *king* ... *he*) is kept, swapped as a whole. A word in
    no pair is unchanged.

    Parameters
    ----------
    sentences : iterable of list of str
        The corpus.
    pairs : iterable of (str, str)
        The gendered pairs; a word may be in one pair only.

    Returns
    -------
    list of list of str
        ``2 * len(sentences)`` sentences: the original ones, then their swapped copies.

    Raises
    ------
    TypeError
        When a sentence is not a list of str.
    ValueError
        When a word is in two pairs, or a pair is not two different words.

    Examples
    --------
    >>> counterfactual_augmentation([["the", "king", "and", "he"]], [("he", "she"), ("king", "queen")])
    [['the', 'king', 'and', 'he'], ['the', 'queen', 'and', 'she']]
    """
    sentences = _check_sentences(sentences)
    swap: dict[str, str] = {}
    for pair in pairs:
        if len(pair) != 2 or pair[0] == pair[1]:
            raise ValueError(f"each pair must be two different words, not {pair!r}")
        a, b = pair
        if a in swap or b in swap:
            raise ValueError(f"a word of {pair!r} is already in another pair")
        swap[a], swap[b] = b, a
    return [list(s) for s in sentences] + [[swap.get(w, w) for w in s] for s in sentences]


def read_corpus(path) -> list[list[str]]:
    """Read a plain-text corpus: one sentence per line, words separated by white space, lower-cased.

    What ``python -m helpers train`` reads. Empty lines are skipped; a file that is not UTF-8 text
    gets a message that says so instead of a decoding traceback.

    Parameters
    ----------
    path : str or os.PathLike
        A UTF-8 text file.

    Returns
    -------
    list of list of str
        The non-empty lines, each split into words.

    Raises
    ------
    FileNotFoundError
        When there is no such file.
    ValueError
        When the file is not UTF-8 text (binary data, a NUL byte) or holds no word.
    """
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no such corpus file: {p} (give a plain-text file, one sentence per line)")
    data = p.read_bytes()
    if b"\x00" in data[:65536]:
        raise ValueError(f"{p} is not a text file (it contains NUL bytes): give a plain-text file, one sentence "
                         "per line")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{p} is not UTF-8 text (byte {exc.start} cannot be decoded): convert it to UTF-8 "
                         "plain text, one sentence per line") from None
    sentences = [line.lower().split() for line in text.splitlines()]
    sentences = [s for s in sentences if s]
    if not sentences:
        raise ValueError(f"the corpus {p} is empty: it holds no word")
    return sentences
