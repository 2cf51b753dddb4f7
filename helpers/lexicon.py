r"""Lexicon WEATs: Table 1's targets against large attribute lists from a lexicon, and large name lists.

Sutton, Lansdall-Welfare & Cristianini, "Biased Embeddings from Wild Data: Measuring, Understanding
and Removing", Advances in Intelligent Data Analysis XVII (IDA 2018; details as we read them),
doi:10.1007/978-3-030-01768-2_27, keep the target words of Table 1 of Caliskan, Bryson & Narayanan
(Science 2017) but take the attribute words from categories of the LIWC lexicon ("LIWC-WEAT"), replace
the 8 + 8 gendered names by large lists of baby names, and repeat the gender tests after projecting a
gender direction out of the embedding (their Experiment 3). LIWC is proprietary; the course uses the
open Empath lexicon (``data/empath_categories.csv``) and U.S. Social Security Administration name
counts (``data/ssa_names.csv``), both derived by ``scripts/derive_data.py`` (see ``data/SOURCES.md``).

The effect size is the WEAT's (:func:`helpers.statistics.effect_size`, means over each set, so sets
of different sizes are fine); the interval is the word bootstrap of notebook 9
(:func:`bootstrap_effect_sizes`); the projection is notebook 8's (:func:`project_out`).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Container, Sequence

import numpy as np

from . import statistics as st
from .embeddings import lookup
from .wordsets import data_dir, weat_test

__all__ = ["load_lexicon", "empath_category", "ssa_names", "gendered_names", "bootstrap_effect_sizes", "bootstrap_interval",
           "gender_direction", "project_out", "LexiconResult", "lexicon_weat", "LEXICON_TESTS",
           "PAPER_DIRECTION", "run_lexicon_tests", "lexicon_json", "format_lexicon", "effect_size_ceiling",
           "AdjustedGap", "adjusted_gap"]

#: Table 1 row -> (Empath category for attribute A, for attribute B). The researcher's choice: each
#: pair is the closest Empath category to the paper's attribute list, as Sutton et al. matched LIWC's.
#: Key ``"6s"``: row 6's male and female names with sentiment (Sutton et al., Sec. III-B4).
LEXICON_TESTS: dict[str, tuple[int, str, str]] = {
    "1": (1, "positive_emotion", "negative_emotion"),
    "2": (2, "positive_emotion", "negative_emotion"),
    "3": (3, "positive_emotion", "negative_emotion"),
    "4": (4, "positive_emotion", "negative_emotion"),
    "6": (6, "work", "family"),
    "6s": (6, "positive_emotion", "negative_emotion"),
    "7": (7, "masculine", "feminine"),
    "8": (8, "masculine", "feminine"),
}

#: The gender direction Sutton et al. selected (Sec. III-D1): the difference of "himself" and "herself".
PAPER_DIRECTION = (("himself", "herself"),)


def load_lexicon(path, category: str, vocabulary: Container[str]) -> tuple[list[str], list[str]]:
    """Read one category of a ``category,word`` CSV lexicon and split it by the vocabulary.

    Words are stripped and lower-cased (the lexicon is matched against an uncased embedding such as
    GloVe 6B); a word listed twice in the category counts once (its first occurrence); order is the
    file's. A word is *found* when its lower-cased form is in ``vocabulary``, else *missing*
    (out-of-vocabulary words are dropped from the test and reported, the rule of notebook 6).

    Parameters
    ----------
    path : str or path-like
        CSV file with a header row ``category,word`` and one word per row.
    category : str
        The category to read, matched exactly (e.g. ``"positive_emotion"``).
    vocabulary : container of str
        E.g. ``kv.key_to_index`` or a set of words.

    Returns
    -------
    found : list of str
        The words in the vocabulary: lower-case, in the file's order, without repeats.
    missing : list of str
        The other words of the category, likewise.

    Raises
    ------
    ValueError
        When ``category`` is not in the file (the message lists the categories it has) or when
        none of its words is in the vocabulary.
    """
    by_category: dict[str, list[str]] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            by_category.setdefault(row["category"], []).append(row["word"])
    if category not in by_category:
        raise ValueError(f"No category {category!r} in {path}; it has: {', '.join(sorted(by_category))}.")
    unique = {}  # dict keeps the first occurrence's order
    for raw in by_category[category]:
        word = raw.strip().lower()
        if word:
            unique.setdefault(word, None)
    found, missing = [], []
    for word in unique:
        (found if word in vocabulary else missing).append(word)
    if not found:
        raise ValueError(f"None of the {len(unique)} words of {category!r} is in the vocabulary.")
    return found, missing


def empath_category(category: str, vocabulary: Container[str]) -> tuple[list[str], list[str]]:
    """One Empath category from ``data/empath_categories.csv``: :func:`load_lexicon` on the course's file.

    The file holds 15 categories of the Empath lexicon (Fast, Chen & Bernstein, "Empath:
    Understanding Topic Signals in Large-Scale Text", CHI 2016, doi:10.1145/2858036.2858535),
    derived by ``scripts/derive_data.py``.

    Parameters
    ----------
    category : str
        An Empath category name (see ``data/SOURCES.md`` for the 15 the course keeps).
    vocabulary : container of str
        E.g. ``kv.key_to_index`` or a set of words.

    Returns
    -------
    found : list of str
        The category's words in the vocabulary, as :func:`load_lexicon`.
    missing : list of str
        Its other words.

    Raises
    ------
    ValueError
        As :func:`load_lexicon`.
    """
    return load_lexicon(data_dir() / "empath_categories.csv", category, vocabulary)


@lru_cache(maxsize=1)
def ssa_names() -> tuple[tuple[str, int, float], ...]:
    """The 5,000 first names with the most U.S. births 1950-2015 (SSA data), most births first.

    Read from ``data/ssa_names.csv`` (derived by ``scripts/derive_data.py``; source in
    ``data/SOURCES.md``) once and cached.

    Returns
    -------
    tuple of (str, int, float)
        One ``(name, births, share_female)`` per name, names lower-case; ``share_female`` is
        female births / all births of the name in 1950-2015.
    """
    with open(Path(data_dir()) / "ssa_names.csv", encoding="utf-8", newline="") as fh:
        return tuple((r["name"], int(r["births"]), float(r["share_female"])) for r in csv.DictReader(fh))


def gendered_names(vocabulary: Container[str], n: int = 300, *, min_share: float = 0.95,
                   exclude: Container[str] = ()) -> tuple[list[str], list[str]]:
    """Large lists of male and female first names by a stated rule.

    Going down the SSA names by births (1950-2015), a name is *female* when at least ``min_share``
    of its births were girls, *male* when at most ``1 - min_share`` were; it is kept when it is in
    ``vocabulary`` and not in ``exclude`` (e.g. the attribute words, so that *joy* or *hope* cannot
    be a name and a positive-emotion word at once). The first ``n`` of each gender are returned.

    Parameters
    ----------
    vocabulary : container of str
        The words names must be in (e.g. ``kv.key_to_index``).
    n : int
        Names per gender, positive.
    min_share : float
        How one-sided a name's births must be, in (0.5, 1].
    exclude : container of str
        Words never used as names.

    Returns
    -------
    male : list of str
        ``n`` lower-case male names, most births first.
    female : list of str
        ``n`` lower-case female names, most births first.

    Raises
    ------
    ValueError
        When ``n`` < 1, ``min_share`` is outside (0.5, 1], or fewer than ``n`` names qualify.
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be a positive whole number, not {n!r}.")
    if not 0.5 < min_share <= 1:
        raise ValueError(f"min_share must be in (0.5, 1], not {min_share!r}.")
    male, female = [], []
    for name, _, share in ssa_names():
        if name not in vocabulary or name in exclude:
            continue
        if share >= min_share and len(female) < n:
            female.append(name)
        elif share <= 1 - min_share and len(male) < n:
            male.append(name)
    if len(male) < n or len(female) < n:
        raise ValueError(f"Only {len(male)} male and {len(female)} female names qualify; ask for fewer than {n}.")
    return male, female


def bootstrap_effect_sizes(X, Y, A, B, *, n_resamples: int, rng, ddof: int = 1) -> np.ndarray:
    r"""Effect sizes of a WEAT over bootstrap resamples of its four word sets (notebook 9).

    For each of the ``n_resamples`` replicates, draw row indices for X, Y, A and B, in this order, with
    ``rng.integers(0, len(S), size=len(S))`` (each set keeps its size, drawn with replacement), and
    compute the effect size (the standard deviation with ``ddof``, 1 by default)

    .. math:: d^* = \frac{\operatorname{mean}_{x \in X^*} s(x,A^*,B^*) - \operatorname{mean}_{y \in Y^*} s(y,A^*,B^*)}
                         {\operatorname{std}_{w \in X^* \cup Y^*} s(w,A^*,B^*)}

    (Caliskan, Bryson & Narayanan, Science 2017, for d). A replicate with all scores equal gets NaN.
    The 2.5% and 97.5% percentiles of the replicates form a 95% interval over word choice.

    The exercise of notebook 9 asks students for a version that accepts a ``numpy.random.Generator``
    only; this one follows the library's convention (:func:`helpers.statistics.resolve_rng`), and
    gives the same replicates for the same generator.

    Parameters
    ----------
    X, Y, A, B : array_like, shape (n_S, d)
        The word vectors of each set, one per row (sizes may differ).
    n_resamples : int
        The number of replicates (>= 1).
    rng : int, numpy.random.Generator or None
        The only source of randomness (:func:`helpers.statistics.resolve_rng`).
    ddof : int, 0 or 1
        As for the effect size: 1 (sample standard deviation, default) or 0 (population).

    Returns
    -------
    numpy.ndarray, shape (n_resamples,), float64
        The effect size of each replicate (NaN where all its scores are equal).

    Raises
    ------
    ValueError
        When ``n_resamples`` < 1, or a set is empty or has a zero vector.
    TypeError
        When ``rng`` is not a seed, a generator or None.
    """
    rng = st.resolve_rng(rng)
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError("n_resamples must be a positive whole number.")
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, not {ddof!r}.")
    Xu, Yu, Au, Bu = (st.unit_rows(S, name) for S, name in
                      ((X, "target set X"), (Y, "target set Y"), (A, "attribute set A"), (B, "attribute set B")))
    n = int(n_resamples)
    sizes = [len(S) for S in (Xu, Yu, Au, Bu)]
    # the draws one replicate at a time, in the order above (the stream of the notebook's exercise) ...
    draws = [np.empty((n, m), dtype=np.intp) for m in sizes]
    for b in range(n):
        for rows, m in zip(draws, sizes):
            rows[b] = rng.integers(0, m, size=m)
    # ... and the arithmetic on blocks of replicates: the same operations per replicate, so the same bits
    # (a batched matmul per replicate equals its matrix-vector product), and blocks of at most about
    # 2 million numbers per set (16 MB), whatever the sets' sizes
    out = np.empty(n)
    step = max(1, 2_000_000 // (max(sizes) * Xu.shape[1]))
    for lo in range(0, n, step):
        ix, iy, ia, ib = (rows[lo:lo + step] for rows in draws)
        w = (Au[ia].mean(axis=1) - Bu[ib].mean(axis=1))[:, :, None]       # (block, d, 1)
        sx, sy = np.matmul(Xu[ix], w)[..., 0], np.matmul(Yu[iy], w)[..., 0]
        if sx.shape[1] + sy.shape[1] > ddof:
            sd = np.concatenate([sx, sy], axis=1).std(axis=1, ddof=ddof)
        else:
            sd = np.zeros(len(sx))
        diff = sx.mean(axis=1) - sy.mean(axis=1)
        out[lo:lo + step] = np.divide(diff, sd, out=np.full(len(sd), np.nan), where=sd > 0)
    return out


def bootstrap_interval(X, Y, A, B, *, n_resamples: int, rng, ddof: int = 1) -> st.ConfidenceInterval:
    r"""Return the 95% interval of a WEAT's effect size over the choice of words.

    The word bootstrap of notebook 9: the 2.5% and 97.5% percentiles of
    :func:`bootstrap_effect_sizes` (replicates whose scores are all equal, NaN, are left out).

    Parameters
    ----------
    X, Y, A, B : array_like, shape (n_S, d)
        The word vectors of each set, one per row (sizes may differ).
    n_resamples : int
        The number of bootstrap replicates (>= 1).
    rng : int, numpy.random.Generator or None
        The only source of randomness (:func:`helpers.statistics.resolve_rng`).
    ddof : int, 0 or 1
        As for the effect size: 1 (sample standard deviation, default) or 0 (population).

    Returns
    -------
    helpers.statistics.ConfidenceInterval
        ``(low, high)``, the ends of the interval (a named tuple: ``low, high = ...`` unpacks it).

    Raises
    ------
    ValueError
        As :func:`bootstrap_effect_sizes`.
    TypeError
        As :func:`bootstrap_effect_sizes`.
    """
    lo, hi = np.nanpercentile(bootstrap_effect_sizes(X, Y, A, B, n_resamples=n_resamples, rng=rng, ddof=ddof),
                              [2.5, 97.5])
    return st.ConfidenceInterval(float(lo), float(hi))


def gender_direction(kv, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    r"""Unit gender direction from (male, female) word pairs (notebook 8; Bolukbasi et al. 2016).

    .. math:: \hat g = \frac{\sum_i (\hat m_i - \hat f_i)}{\lVert \sum_i (\hat m_i - \hat f_i) \rVert}

    Sutton et al. (IDA 2018, Sec. III-D1) chose the single pair (himself, herself).

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    pairs : sequence of (str, str)
        The (male word, female word) pairs.

    Returns
    -------
    numpy.ndarray, shape (d,), float64
        The direction, of unit length.

    Raises
    ------
    ValueError
        When ``pairs`` is empty, a word is missing, or the differences sum to zero.
    """
    pairs = list(pairs)
    if not pairs:
        raise ValueError("gender_direction needs at least one (male, female) pair.")
    words = [w for p in pairs for w in p]
    missing = [w for w in words if w not in kv.key_to_index]
    if missing:
        raise ValueError(f"Not in the embedding: {missing}.")
    M = st.unit_rows(np.array([kv[m] for m, _ in pairs], dtype=np.float64))
    F = st.unit_rows(np.array([kv[f] for _, f in pairs], dtype=np.float64))
    g = (M - F).sum(axis=0)
    norm = np.linalg.norm(g)
    if norm == 0:
        raise ValueError("The pair differences sum to zero: no direction.")
    return g / norm


def project_out(V, direction) -> np.ndarray:
    r"""Remove ``direction`` from every row and renormalise (Sutton et al., IDA 2018, Eq. (5); notebook 8).

    .. math:: \vec w_\perp = \vec w - (\vec w \cdot \hat g)\,\hat g, \qquad
              \hat w_\perp = \vec w_\perp / \lVert \vec w_\perp \rVert

    Parameters
    ----------
    V : array_like, shape (d,) or (n, d)
        One vector or a matrix of vectors, one per row.
    direction : array_like, shape (d,)
        A non-zero vector, normalised here.

    Returns
    -------
    numpy.ndarray, float64
        The shape of ``V``: unit rows orthogonal to ``direction``.

    Raises
    ------
    ValueError
        When ``direction`` is zero or not finite, ``V`` is not finite, the dimensions differ, or a
        row is parallel to ``direction``.
    """
    V = np.asarray(V, dtype=np.float64)
    g = np.asarray(direction, dtype=np.float64).ravel()
    if not (np.isfinite(g).all() and np.isfinite(V).all()):
        raise ValueError("The vectors and the direction must be finite (no NaN or infinity).")
    gn = np.linalg.norm(g)
    if gn == 0:
        raise ValueError("The direction is the zero vector.")
    single = V.ndim == 1
    M = np.atleast_2d(V)
    if M.shape[1] != g.size:
        raise ValueError(f"Vectors have {M.shape[1]} dimensions but the direction has {g.size}.")
    g = g / gn
    P = M - np.outer(M @ g, g)
    norms = np.linalg.norm(P, axis=1, keepdims=True)
    if (norms <= 1e-12 * np.maximum(np.linalg.norm(M, axis=1, keepdims=True), 1e-300)).any():
        raise ValueError("A vector is parallel to the direction: nothing is left after the projection.")
    P = P / norms
    return P[0] if single else P


@dataclass
class LexiconResult:  # numpydoc ignore=PR01
    """One lexicon WEAT: effect size, its word-bootstrap interval and the words used.

    There is no p-value: the uncertainty reported is the interval over the choice of words.

    Attributes
    ----------
    effect_size : float
        The effect size d on all words found (with ``ddof``).
    interval : helpers.statistics.ConfidenceInterval
        ``(low, high)``, the 2.5% and 97.5% percentiles of ``n_resamples`` bootstrap replicates.
    x_words, y_words, a_words, b_words : list of str
        The words used (found in the embedding).
    missing_words : list of str
        The words dropped as out of vocabulary.
    n_resamples : int
        Replicates behind ``interval``.
    projected : bool
        Whether a gender direction was projected out first.
    ddof : int
        Delta degrees of freedom of the effect size's standard deviation (0 or 1), for ``effect_size``
        and every replicate.
    """

    effect_size: float
    interval: st.ConfidenceInterval
    x_words: list[str]
    y_words: list[str]
    a_words: list[str]
    b_words: list[str]
    missing_words: list[str] = field(default_factory=list)
    n_resamples: int = 0
    projected: bool = False
    ddof: int = 1

    @property
    def sizes(self) -> tuple[int, int, int, int]:
        """(|X|, |Y|, |A|, |B|) after dropping out-of-vocabulary words.

        X and Y may differ in size: a lexicon WEAT does not trim them (its effect size uses means).
        """
        return len(self.x_words), len(self.y_words), len(self.a_words), len(self.b_words)


def lexicon_weat(kv, X: Sequence[str], Y: Sequence[str], A: Sequence[str], B: Sequence[str], *,
                 n_resamples: int = 1000, rng=None, direction=None, ddof: int = 1) -> LexiconResult:
    r"""A WEAT with sets of any sizes, out-of-vocabulary words dropped, and a word-bootstrap interval.

    .. math:: d = \frac{\operatorname{mean}_{x \in X} s(x,A,B) - \operatorname{mean}_{y \in Y} s(y,A,B)}
                       {\operatorname{std}_{w \in X \cup Y} s(w,A,B)}, \qquad
              s(w,A,B) = \operatorname{mean}_{a \in A} \cos(\vec w,\vec a) - \operatorname{mean}_{b \in B} \cos(\vec w,\vec b)

    (Caliskan, Bryson & Narayanan 2017; the LIWC-WEAT of Sutton et al., IDA 2018, with large
    attribute lists). Unlike Table 1's rule, X and Y are *not* trimmed to equal size: d uses means.
    With ``direction``, every vector is first passed through :func:`project_out` (Experiment 3).

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    X, Y, A, B : sequence of str
        The word lists (looked up with :func:`helpers.embeddings.lookup`, case ``"auto"``).
    n_resamples : int
        Bootstrap replicates for the interval (:func:`bootstrap_effect_sizes`).
    rng : int, numpy.random.Generator or None
        The only source of randomness, for the bootstrap (:func:`helpers.statistics.resolve_rng`).
    direction : array_like, shape (d,), or None
        A vector to project out first, or None.
    ddof : int, 0 or 1
        For the effect size and its replicates: 1 (sample standard deviation, default) or 0.

    Returns
    -------
    LexiconResult
        The effect size, its interval, the words used and dropped, ``n_resamples``, whether a
        direction was projected out, and ``ddof``.

    Raises
    ------
    ValueError
        When a set has no word in the embedding, or ``ddof`` is not 0 or 1.
    """
    found = {}
    missing: list[str] = []
    for name, words in (("X", X), ("Y", Y), ("A", A), ("B", B)):
        words = list(words)
        res = lookup(kv, words, what=f"set {name}")
        if not res.words:
            raise ValueError(f"None of the words of set {name} is in the embedding.")
        found[name] = res
        kept = set(res.words)
        missing += [w for w in words if w not in kept]
    mats = [found[k].vectors for k in "XYAB"]
    if direction is not None:
        mats = [project_out(M, direction) for M in mats]
    d = st.effect_size(mats[0], mats[1], mats[2], mats[3], ddof=ddof)
    interval = bootstrap_interval(*mats, n_resamples=n_resamples, rng=rng, ddof=ddof)
    return LexiconResult(d, interval, *(found[k].words for k in "XYAB"), missing, int(n_resamples),
                         direction is not None, ddof)


def run_lexicon_tests(kv, *, n_names: int = 300, n_resamples: int = 1000, seed: int = 0,
                      pairs: Sequence[tuple[str, str]] = PAPER_DIRECTION) -> list[dict]:
    """All lexicon WEATs of the course, before and after projecting the gender direction out.

    For every entry of :data:`LEXICON_TESTS` the paper's targets of that Table 1 row (its used
    words) against the two Empath categories; for the gendered-name rows ("6" and "6s") also the
    large SSA name lists of :func:`gendered_names` (``n_names`` per gender, attribute words of the
    course's Empath categories excluded). Each result again after :func:`project_out` with the
    direction of ``pairs`` for the gender rows (6, 6s, 7, 8). Bootstrap generators are
    ``resolve_rng([seed, k])`` (``numpy.random.default_rng([seed, k])``) with k the row's
    position, so each row is reproducible alone.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    n_names : int
        Names per gender in the large lists.
    n_resamples : int
        Bootstrap replicates per interval.
    seed : int
        Seed of the per-row generators.
    pairs : sequence of (str, str)
        The (male, female) pairs for :func:`gender_direction`.

    Returns
    -------
    list of dict
        One per test, with keys ``key``, ``row``, ``targets`` ("paper" or "ssa"),
        ``attribute_a``, ``attribute_b``, ``projected`` (bool) and ``result`` (a
        :class:`LexiconResult`).
    """
    vocab = kv.key_to_index
    cats = {c: empath_category(c, vocab)[0] for _, a, b in LEXICON_TESTS.values() for c in (a, b)}
    all_attr = {w for words in cats.values() for w in words}
    male, female = gendered_names(vocab, n_names, exclude=all_attr)
    direction = gender_direction(kv, pairs)
    out = []
    k = 0
    for key, (row, a, b) in LEXICON_TESTS.items():
        t = weat_test(row)
        variants = [("paper", t.target_x.used_by_paper, t.target_y.used_by_paper)]
        if key in ("6", "6s"):
            variants.append(("ssa", male, female))
        for targets, X, Y in variants:
            for projected in ((False, True) if row in (6, 7, 8) else (False,)):
                res = lexicon_weat(kv, X, Y, cats[a], cats[b], n_resamples=n_resamples, rng=st.resolve_rng([seed, k]),
                                   direction=direction if projected else None)
                out.append({"key": key, "row": row, "targets": targets, "attribute_a": a, "attribute_b": b,
                            "projected": projected, "result": res})
                k += 1
    return out


def lexicon_json(kv, *, n_names: int = 300, n_resamples: int = 1000, seed: int = 0) -> dict:
    """Return the lexicon WEATs of :func:`run_lexicon_tests` as JSON-ready data (``replicate --extended``).

    Each :class:`LexiconResult` becomes plain numbers, strings and lists, so ``json.dump`` can
    write the whole.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    n_names : int
        As :func:`run_lexicon_tests`.
    n_resamples : int
        As :func:`run_lexicon_tests`.
    seed : int
        As :func:`run_lexicon_tests`.

    Returns
    -------
    dict
        With ``lexicon`` ("empath 0.89"), ``names`` (the rule), ``n_names``, ``n_resamples``,
        ``seed``, ``direction`` (the pairs projected out) and ``tests``: one dict per test with
        ``key``, ``row``, ``targets`` ("paper": Table 1's words; "ssa": the large name lists),
        ``attribute_a``, ``attribute_b``, ``projected``, ``n_x``, ``n_y``, ``n_a``, ``n_b``,
        ``effect_size``, ``interval`` ([low, high], 95% word bootstrap) and ``missing``
        (out-of-vocabulary words).
    """
    rows = run_lexicon_tests(kv, n_names=n_names, n_resamples=n_resamples, seed=seed)
    tests = []
    for r in rows:
        res = r["result"]
        n_x, n_y, n_a, n_b = res.sizes
        tests.append({"key": r["key"], "row": r["row"], "targets": r["targets"], "attribute_a": r["attribute_a"],
                      "attribute_b": r["attribute_b"], "projected": r["projected"], "n_x": n_x, "n_y": n_y,
                      "n_a": n_a, "n_b": n_b, "effect_size": res.effect_size, "interval": list(res.interval),
                      "missing": res.missing_words})
    return {"lexicon": "empath 0.89 (data/empath_categories.csv)",
            "names": "SSA births 1950-2015, >= 95% one sex, in the embedding, not an attribute word, most births first",
            "n_names": n_names, "n_resamples": n_resamples, "seed": seed,
            "direction": [list(p) for p in PAPER_DIRECTION], "tests": tests}


def format_lexicon(lex: dict) -> str:
    """Format :func:`lexicon_json`'s output as a text table, for the ``replicate --extended`` report.

    One line per test without the projection, with the same test after the projection beside it
    (``-`` where it is not repeated after the projection).

    Parameters
    ----------
    lex : dict
        The output of :func:`lexicon_json`.

    Returns
    -------
    str
        The table, one line per test (before and after the projection side by side).
    """
    lines = ["", f"Lexicon WEATs (Sutton et al., IDA 2018) with {lex['lexicon']}; large names: {lex['names']}",
             f"d with 95% word-bootstrap intervals ({lex['n_resamples']:,} resamples); 'after' = "
             f"{'-'.join(lex['direction'][0])} direction projected out",
             f"{'row':>3} {'targets':<8} {'A vs. B':<38} {'|X|,|Y|,|A|,|B|':>16}  {'d [95%]':<22} after projection"]
    before = [t for t in lex["tests"] if not t["projected"]]
    after = {(t["key"], t["targets"]): t for t in lex["tests"] if t["projected"]}
    for t in before:
        cell = lambda u: f"{u['effect_size']:5.2f} [{u['interval'][0]:5.2f}, {u['interval'][1]:5.2f}]"
        a = after.get((t["key"], t["targets"]))
        sizes = f"{t['n_x']},{t['n_y']},{t['n_a']},{t['n_b']}"
        lines.append(f"{t['key']:>3} {t['targets']:<8} {t['attribute_a'] + ' vs. ' + t['attribute_b']:<38} "
                     f"{sizes:>16}  {cell(t):<22} {cell(a) if a else '-'}")
    return "\n".join(lines)


def effect_size_ceiling(n_x: int, n_y: int, *, ddof: int = 1) -> float:
    r"""Largest possible effect size d of a WEAT with target sets of sizes ``n_x`` and ``n_y``.

    The effect size divides the difference of the two groups' mean associations by the standard
    deviation of all :math:`N = n_x + n_y` associations together. It is largest when every
    association in X equals one value and every one in Y another; with :math:`a - b` their
    difference, the N values have variance :math:`\frac{n_x n_y}{N^2}(a - b)^2` around their mean,
    so with ``ddof`` the standard deviation is :math:`|a-b|\sqrt{\frac{n_x n_y}{N (N - \mathrm{ddof})}}` and

    .. math:: d_{\max} = \sqrt{\frac{N\,(N - \mathrm{ddof})}{n_x\, n_y}},

    which for :math:`n_x = n_y = n` is :math:`2\sqrt{(2n - \mathrm{ddof})/(2n)}`: 1.94 for 8 + 8
    names with ddof = 1, :math:`2\sqrt{15/16}`. A bootstrap interval of d near this ceiling is
    pressed against it, so its upper end says little (notebook 10, section 5).

    Parameters
    ----------
    n_x, n_y : int
        The sizes of the two target sets, positive whole numbers.
    ddof : int
        Delta degrees of freedom of the standard deviation, 0 or 1.

    Returns
    -------
    float
        The ceiling of :math:`|d|`.

    Raises
    ------
    ValueError
        When a size is not a positive whole number, ddof is not 0 or 1, or N - ddof < 1.

    Examples
    --------
    >>> round(effect_size_ceiling(8, 8), 4)    # 2 * sqrt(15/16)
    1.9365
    """
    for value, name in ((n_x, "n_x"), (n_y, "n_y")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive whole number, got {value!r}.")
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}.")
    n = n_x + n_y
    if n - ddof < 1:
        raise ValueError("Need at least two associations for ddof = 1.")
    return float(np.sqrt(n * (n - ddof) / (n_x * n_y)))


@dataclass(frozen=True)
class AdjustedGap:  # numpydoc ignore=PR01
    """Result of :func:`adjusted_gap`.

    A difference of group means before and after a least-squares adjustment for a covariate.

    Attributes
    ----------
    gap : float
        The raw difference of means, group True minus group False.
    adjusted : float
        The coefficient of the group indicator with the covariate in the model.
    stderr : float
        Its ordinary least-squares standard error.
    tstat : float
        ``adjusted / stderr``.
    df : int
        Residual degrees of freedom, n - 3.
    """

    gap: float
    adjusted: float
    stderr: float
    tstat: float
    df: int


def adjusted_gap(scores, group, covariate) -> AdjustedGap:
    r"""Difference of two groups' mean scores, adjusted for a covariate by least squares (ANCOVA).

    Fits :math:`y_i = \beta_0 + \beta_1 z_i + \beta_2 c_i + \varepsilon_i` by ordinary least
    squares, with :math:`z_i = 1` for group True and 0 otherwise and :math:`c_i` the covariate, and
    returns the raw gap :math:`\bar y_{z=1} - \bar y_{z=0}` beside :math:`\hat\beta_1`, its standard
    error :math:`\sqrt{\hat\sigma^2 [(M^\top M)^{-1}]_{11}}` with
    :math:`\hat\sigma^2 = \mathrm{RSS}/(n - 3)`, and :math:`t = \hat\beta_1 / \mathrm{se}`. The
    adjusted gap is the difference the groups would show at equal covariate, if the score depends
    linearly on it with one slope for both groups (Snedecor & Cochran, *Statistical Methods*, 8th
    ed., Iowa State University Press, 1989, chapter 18). Notebook 10 uses it for a name's sentiment
    score, the gender of the name and the log of its frequency rank. The t-value is a rough guide:
    the scores of names share the attribute words, so they are not independent observations.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        One score per item.
    group : array_like of bool, shape (n,)
        The group of each item; both groups must be present.
    covariate : array_like of float, shape (n,)
        The covariate, not constant within both groups together.

    Returns
    -------
    AdjustedGap
        The raw and adjusted gaps, the standard error, t and the degrees of freedom.

    Raises
    ------
    ValueError
        For shapes that do not match, NaN, fewer than 4 items, a missing group, or a covariate that
        is constant or a function of the group (the model cannot separate them).

    Examples
    --------
    Scores 1, 2 for group False at covariate 0, 1 and 4, 5 for group True at 1, 2: one slope 1
    explains a raw gap of 3 as 1 from the covariate and 2 from the group; the fit is exact (se 0):

    >>> r = adjusted_gap([1.0, 2.0, 4.0, 5.0], [False, False, True, True], [0.0, 1.0, 1.0, 2.0])
    >>> round(r.gap, 12), round(r.adjusted, 12), r.df
    (3.0, 2.0, 1)
    """
    y = np.asarray(scores, dtype=np.float64)
    z = np.asarray(group)
    c = np.asarray(covariate, dtype=np.float64)
    if y.ndim != 1 or z.shape != y.shape or c.shape != y.shape:
        raise ValueError(f"scores, group and covariate must be three lists of the same length; got shapes "
                         f"{y.shape}, {z.shape}, {c.shape}.")
    if z.dtype != bool:
        raise ValueError("group must be True/False for each item.")
    if not (np.isfinite(y).all() and np.isfinite(c).all()):
        raise ValueError("scores or covariate contain NaN or infinite values.")
    if y.size < 4 or z.all() or not z.any():
        raise ValueError("Need at least 4 items and both groups.")
    M = np.column_stack([np.ones(y.size), z.astype(np.float64), c])
    if np.linalg.matrix_rank(M) < 3:
        raise ValueError("The covariate is constant or determined by the group; the gap cannot be adjusted for it.")
    beta, *_ = np.linalg.lstsq(M, y, rcond=None)
    resid = y - M @ beta
    df = y.size - 3
    sigma2 = float(resid @ resid) / df
    se = float(np.sqrt(sigma2 * np.linalg.inv(M.T @ M)[1, 1]))
    adjusted = float(beta[1])
    return AdjustedGap(float(y[z].mean() - y[~z].mean()), adjusted, se, adjusted / se if se > 0 else float("nan"), df)
