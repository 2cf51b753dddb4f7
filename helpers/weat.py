"""Running a whole WEAT on an embedding: words in, a result object out.

:func:`run_weat` looks the words up, applies the paper's rule for out-of-vocabulary words, and
computes the effect size and the permutation p-value with :mod:`helpers.statistics`.
:func:`run_table1` runs the ten WEATs of Table 1 of Caliskan, Bryson & Narayanan (Science 2017).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import statistics as st
from .embeddings import check_words, lookup
from .wordsets import WeatSpec, weat_tests

__all__ = ["WeatResult", "run_weat", "run_table1", "trim_to_equal"]


@dataclass
class WeatResult:  # numpydoc ignore=PR01
    """Result of one WEAT, with scipy-like names (``effect_size``, ``pvalue``, ``null_distribution``).

    It records the choices behind its numbers (``method``, ``n_resamples``, ``alternative``,
    ``ddof``) and what happened to the words (``missing_words``, ``trimmed_words``). Its ``repr``
    is short: the arrays are long.

    Attributes
    ----------
    effect_size : float
        The effect size d.
    pvalue : float
        The permutation p-value.
    statistic : float
        The test statistic s(X, Y, A, B).
    null_distribution : numpy.ndarray
        The permutation statistics (see :class:`helpers.statistics.PermutationResult`).
    method : {"exact", "sampled", "normal"}
        How the p-value was computed.
    n_resamples : int
        Splits enumerated or sampled.
    alternative : {"greater", "less", "two-sided"}
        The alternative hypothesis of the permutation test.
    ddof : int
        Delta degrees of freedom of the effect size's standard deviation (0 or 1).
    x_words, y_words, a_words, b_words : list of str
        The words used, as written in the lists.
    scores_x, scores_y : numpy.ndarray
        s(w, A, B) of each used target word of X and of Y.
    missing_words : list of str
        Words not in the embedding (dropped).
    trimmed_words : list of str
        Target words dropped at random to make |X| = |Y| (the paper's rule).
    test_id : int or None
        The row of Table 1, when the test is one of them.
    """

    effect_size: float
    pvalue: float
    statistic: float
    null_distribution: np.ndarray
    method: str
    n_resamples: int
    alternative: str
    ddof: int
    x_words: list[str]
    y_words: list[str]
    a_words: list[str]
    b_words: list[str]
    scores_x: np.ndarray
    scores_y: np.ndarray
    missing_words: list[str] = field(default_factory=list)
    trimmed_words: list[str] = field(default_factory=list)
    test_id: int | None = None

    @property
    def n_target(self) -> int:
        """Words per target set used (after the out-of-vocabulary rule).

        X and Y have this size both: words of the larger set were dropped at random
        (``trimmed_words``).
        """
        return len(self.x_words)

    def __repr__(self) -> str:  # short: the arrays are long
        tid = f"WEAT {self.test_id}: " if self.test_id is not None else ""
        return (f"WeatResult({tid}effect_size={self.effect_size:.3f}, pvalue={self.pvalue:.3g}, "
                f"method={self.method!r}, n_target={self.n_target}, missing_words={self.missing_words})")


def trim_to_equal(x: list[str], y: list[str], rng) -> tuple[list[str], list[str], list[str]]:
    """Drop words at random from the larger target set until |X| = |Y| (the paper's rule).

    Returns the new X, the new Y (order kept) and the dropped words.

    Parameters
    ----------
    x, y : list of str
        The target words found in the embedding.
    rng : int, numpy.random.Generator or None
        The only source of randomness (:func:`helpers.statistics.resolve_rng`): one
        ``choice`` call when the sizes differ, none otherwise.

    Returns
    -------
    x, y : list of str
        The words kept, in their original order, now of equal length.
    dropped : list of str
        The words dropped, in their original order (``[]`` when the sizes were equal).
    """
    rng = st.resolve_rng(rng)
    if len(x) == len(y):
        return x, y, []
    big, small = (x, y) if len(x) > len(y) else (y, x)
    drop_idx = set(rng.choice(len(big), size=len(big) - len(small), replace=False).tolist())
    kept = [w for i, w in enumerate(big) if i not in drop_idx]
    dropped = [w for i, w in enumerate(big) if i in drop_idx]
    return (kept, y, dropped) if big is x else (x, kept, dropped)


def _clean(words: Sequence[str], what: str) -> list[str]:
    words = check_words(words, what)
    if not words:
        raise ValueError(f"{what} is empty: every WEAT word set needs at least one word.")
    dups = sorted({w for w in words if words.count(w) > 1})
    if dups:
        raise ValueError(f"{what} lists {dups} more than once; each word may appear once.")
    return words


def run_weat(
    kv, X: Sequence[str], Y: Sequence[str], A: Sequence[str], B: Sequence[str], *,
    ddof: int = 1, alternative: str = "greater", method: str = "auto", n_resamples: int = 100_000,
    rng=None, case: str = "auto", on_missing: str = "drop", test_id: int | None = None,
) -> WeatResult:
    r"""Run one Word Embedding Association Test (Caliskan, Bryson & Narayanan 2017).

    Effect size :math:`d = (\bar s_X - \bar s_Y) / \operatorname{std}_{w \in X \cup Y} s(w,A,B)`
    and the one-sided permutation p-value of :math:`s(X,Y,A,B)`; see
    :func:`helpers.statistics.permutation_test` for the methods.

    Out-of-vocabulary words (``on_missing="drop"``, the paper's rule): they are dropped and
    reported in ``missing_words``; if X and Y then differ in size, words of the larger set are
    dropped at random (from ``rng``) until they are equal, and reported in ``trimmed_words``.
    With ``on_missing="raise"`` a missing word raises ``KeyError``.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    X, Y : sequence of str
        The target words.
    A, B : sequence of str
        The attribute words.
    ddof : int, 0 or 1
        For the effect size: 1 (sample standard deviation, default) or 0 (population).
    alternative : {"greater", "less", "two-sided"}
        Passed to :func:`helpers.statistics.permutation_test`.
    method : {"auto", "exact", "sampled", "normal"}
        Passed to :func:`helpers.statistics.permutation_test`.
    n_resamples : int
        Passed to :func:`helpers.statistics.permutation_test`.
    rng : int, numpy.random.Generator or None
        Used for the trimming and for sampled tests (:func:`helpers.statistics.resolve_rng`).
    case : {"auto", "exact", "lower"}
        How words meet the embedding's keys (see :func:`helpers.embeddings.lookup`).
    on_missing : {"drop", "raise"}
        Drop a word that is not in the embedding (the paper's rule) or raise ``KeyError``.
    test_id : int or None
        Recorded in the result (the row of Table 1).

    Returns
    -------
    WeatResult
        ``effect_size``, ``pvalue``, ``statistic``, ``null_distribution``, ``method``,
        ``n_resamples``, ``ddof``, the words used, their scores, ``missing_words`` and
        ``trimmed_words``.

    Raises
    ------
    ValueError
        An empty set, a word listed twice, a word in both X and Y (or both A and B), or a set
        with no word in the embedding.
    KeyError
        ``on_missing="raise"`` and a word is missing.
    """
    if on_missing not in ("drop", "raise"):
        raise ValueError(f"on_missing must be 'drop' or 'raise', not {on_missing!r}.")
    sets = {"X": _clean(X, "target set X"), "Y": _clean(Y, "target set Y"),
            "A": _clean(A, "attribute set A"), "B": _clean(B, "attribute set B")}
    for p, q, kind in (("X", "Y", "target"), ("A", "B", "attribute")):
        other = set(sets[q])
        both = [w for w in sets[p] if w in other]
        if both:
            raise ValueError(f"{both} appear(s) in both {kind} sets {p} and {q}; the two sets must not overlap.")
    gen = st.resolve_rng(rng)
    found, missing = {}, []
    for k, words in sets.items():
        res = lookup(kv, words, case=case, what=f"set {k}")
        if res.missing_words and on_missing == "raise":
            raise KeyError(f"Not in the embedding (set {k}): {', '.join(map(repr, res.missing_words))}.")
        if not res.words:
            raise ValueError(f"None of the words of set {k} is in the embedding ({', '.join(words[:5])}, ...); "
                             "check the spelling and the case, or use another embedding.")
        missing += res.missing_words
        found[k] = res
    xw, yw, trimmed = trim_to_equal(found["X"].words, found["Y"].words, gen)
    row = {k: dict(zip(found[k].words, found[k].vectors)) for k in ("X", "Y")}
    Xv = np.array([row["X"][w] for w in xw])
    Yv = np.array([row["Y"][w] for w in yw])
    Av, Bv = found["A"].vectors, found["B"].vectors
    sx, sy = st.association(Xv, Av, Bv), st.association(Yv, Av, Bv)
    d = st.effect_size_from_scores(sx, sy, ddof=ddof)
    perm = st.permutation_test(sx, sy, alternative=alternative, method=method, n_resamples=n_resamples, rng=gen)
    return WeatResult(d, perm.pvalue, perm.statistic, perm.null_distribution, perm.method, perm.n_resamples,
                      alternative, ddof, xw, yw, found["A"].words, found["B"].words, sx, sy, missing, trimmed, test_id)


def run_table1(kv, *, ddof: int = 1, n_resamples: int = 100_000, seed: int = 0, method: str = "auto",
               tests: Sequence[WeatSpec] | None = None) -> list[WeatResult]:
    """Run the ten WEATs of Table 1 with the words the paper used (its dropped words left out).

    Each test gets its own generator ``resolve_rng([seed, test_id])`` (that is,
    ``numpy.random.default_rng([seed, test_id])``), so one test's result does not depend on which
    other tests ran before it.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    ddof : int, 0 or 1
        For the effect sizes (1: the authors' code).
    n_resamples : int
        Random splits per sampled permutation test.
    seed : int
        Seed of the per-test generators.
    method : str
        Passed to :func:`helpers.statistics.permutation_test` (``"auto"``: exact for small sets).
    tests : sequence of WeatSpec or None
        The tests to run (default: all ten, in order).

    Returns
    -------
    list of WeatResult
        One per test, in order, each with its ``test_id``.
    """
    results = []
    for t in tests or weat_tests():
        results.append(run_weat(
            kv, t.target_x.used_by_paper, t.target_y.used_by_paper, t.attribute_a.used_by_paper,
            t.attribute_b.used_by_paper, ddof=ddof, method=method, n_resamples=n_resamples,
            rng=st.resolve_rng([seed, t.id]), test_id=t.id))
    return results
