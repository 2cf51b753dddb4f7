"""The Word Embedding Factual Association Test (Caliskan, Bryson & Narayanan, Science 2017).

For target words W with a real-world property p_w (e.g. % women in an occupation), compute each
word's normalised association with attribute sets A (female terms) and B (male terms), then
test the association with p_w by Pearson correlation and linear regression.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import floor
from typing import Sequence

import numpy as np
from scipy import stats as sps

from . import statistics as st
from .embeddings import lookup, vectors
from .wordsets import FEMALE_TERMS, MALE_TERMS, wefat_names, wefat_occupations

__all__ = ["WefatResult", "run_wefat", "name_likeness", "run_wefat_occupations", "run_wefat_names"]


@dataclass
class WefatResult:  # numpydoc ignore=PR01
    """WEFAT result: words, their property and association, and the fit.

    ``slope`` and ``intercept`` are those of the paper's regression of the property on the
    association (predicting p_w from s(w, A, B)); ``pearson_r`` and ``pvalue`` the correlation.

    Attributes
    ----------
    words : list of str
        The words used, as written in the list.
    values : numpy.ndarray
        Their real-world property (e.g. % women).
    scores : numpy.ndarray
        Their normalised association s(w, A, B) (:func:`helpers.statistics.wefat_association`).
    pearson_r : float
        Pearson's r between ``scores`` and ``values``.
    pvalue : float
        The two-sided p-value of ``pearson_r`` (``scipy.stats.pearsonr``).
    slope, intercept : float
        The least-squares line predicting ``values`` from ``scores``.
    missing_words : list of str
        Words not in the embedding (dropped with their values).
    filtered_words : list of str
        Words dropped as the least name-like (``drop_least_namelike``).
    ddof : int
        Delta degrees of freedom of each word's standard deviation over A and B (0 or 1).
    """

    words: list[str]
    values: np.ndarray
    scores: np.ndarray
    pearson_r: float
    pvalue: float
    slope: float
    intercept: float
    missing_words: list[str] = field(default_factory=list)
    filtered_words: list[str] = field(default_factory=list)
    ddof: int = 1

    @property
    def n(self) -> int:
        """Number of words used (after the missing and the filtered ones are dropped).

        The number of points behind ``pearson_r``: ``len(words)``.
        """
        return len(self.words)


def name_likeness(vectors) -> np.ndarray:
    r"""Cosine similarity of each vector to the centroid of all of them (higher = more name-like).

    .. math:: \operatorname{nl}(w) = \cos\left(\vec w, \tfrac{1}{n}\textstyle\sum_v \hat v\right)

    The paper "algorithmically determine[s] how name-like each vector is (by computing the
    distance of each vector to the centroid of all the name vectors)" and drops the 20% least
    name-like (Caliskan et al. 2017, long draft, WEFAT methods). Unit vectors are averaged, so
    frequent words with long vectors do not dominate the centroid.

    Parameters
    ----------
    vectors : array_like, shape (n, d)
        The name vectors, one per row.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The name-likeness nl(w) of each row.
    """
    U = st.unit_rows(vectors, "the name vectors")
    return st.cosine_matrix(U, U.mean(axis=0))[:, 0]


def run_wefat(kv, words: Sequence[str], values: Sequence[float], A: Sequence[str] = FEMALE_TERMS,
              B: Sequence[str] = MALE_TERMS, *, ddof: int = 1, drop_least_namelike: float = 0.0,
              case: str = "auto") -> WefatResult:
    r"""Run a WEFAT: normalised association of each word, then Pearson r and regression with ``values``.

    The WEFAT of Caliskan, Bryson & Narayanan (Science 2017): for each target word w,

    .. math:: s(w, A, B) = \frac{\operatorname{mean}_{a} \cos(\vec w, \vec a) - \operatorname{mean}_{b} \cos(\vec w, \vec b)}
                               {\operatorname{std}_{x \in A \cup B} \cos(\vec w, \vec x)}

    (:func:`helpers.statistics.wefat_association`), then Pearson's r and the least-squares line
    predicting ``values`` from the scores. Missing words are dropped (with their values) and
    reported; ``drop_least_namelike`` drops that fraction (rounded down) of the words least
    similar to the centroid, the paper's filter for names (0.2).

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    words : sequence of str
        The target words (occupations, names).
    values : sequence of float
        One real-world value per word (e.g. % women), finite.
    A, B : sequence of str
        The attribute words (default: the female and male terms of the paper).
    ddof : int, 0 or 1
        For the standard deviation of each word's cosines.
    drop_least_namelike : float
        Fraction in [0, 1) of the words dropped by :func:`name_likeness` (0.2 for names).
    case : {"auto", "exact", "lower"}
        How words meet the embedding's keys (:func:`helpers.embeddings.lookup`).

    Returns
    -------
    WefatResult
        The words used, their values and scores, ``pearson_r``, ``pvalue``, ``slope``,
        ``intercept``, ``missing_words``, ``filtered_words`` and ``ddof``.

    Raises
    ------
    ValueError
        Lengths differ, a value is not finite, the fraction is out of range, or fewer than 3 words
        are left.
    KeyError
        An attribute word is not in the embedding.
    """
    words = list(words)
    vals = np.asarray(values, dtype=np.float64)
    if len(words) != len(vals):
        raise ValueError(f"{len(words)} words but {len(vals)} values; give one value per word.")
    if not np.isfinite(vals).all():
        raise ValueError("The property values contain NaN or infinity.")
    if not 0.0 <= drop_least_namelike < 1.0:
        raise ValueError("drop_least_namelike is a fraction between 0 and 1 (the paper used 0.2).")
    found = lookup(kv, words, case=case, what="the target words")
    missing = set(found.missing_words)
    keep_vals = np.array([v for w, v in zip(words, vals) if w not in missing])
    fw, W = list(found.words), found.vectors
    filtered: list[str] = []
    if drop_least_namelike > 0:
        k = floor(drop_least_namelike * len(fw))
        order = np.argsort(name_likeness(W), kind="stable")  # least name-like first
        dropped = set(order[:k].tolist())
        filtered = [fw[i] for i in sorted(dropped)]
        keep = np.array([i not in dropped for i in range(len(fw))])
        fw, W, keep_vals = [w for w, k_ in zip(fw, keep) if k_], W[keep], keep_vals[keep]
    if len(fw) < 3:
        raise ValueError(f"Only {len(fw)} target word(s) are left; a correlation needs at least 3.")
    Av, Bv = vectors(kv, A, case=case, what="attribute set A"), vectors(kv, B, case=case, what="attribute set B")
    scores = st.wefat_association(W, Av, Bv, ddof=ddof)
    r, p = sps.pearsonr(scores, keep_vals)
    fit = sps.linregress(scores, keep_vals)
    return WefatResult(fw, keep_vals, scores, float(r), float(p), float(fit.slope), float(fit.intercept),
                       found.missing_words, filtered, ddof)


def run_wefat_occupations(kv, *, ddof: int = 1) -> WefatResult:
    """Figure 1: 50 occupations vs. % women employed in them (BLS 2015), A = female, B = male terms.

    :func:`run_wefat` on :func:`helpers.wordsets.wefat_occupations` with the paper's female and
    male attribute words (Caliskan, Bryson & Narayanan, Science 2017).

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    ddof : int, 0 or 1
        For the standard deviation of each word's cosines.

    Returns
    -------
    WefatResult
        See :func:`run_wefat`; the paper reports r = 0.90 (``wordsets.wefat_paper()``).
    """
    words, values = wefat_occupations()
    return run_wefat(kv, words, values, ddof=ddof)


def run_wefat_names(kv, *, ddof: int = 1, drop_least_namelike: float = 0.2) -> WefatResult:
    """Figure 2: 50 androgynous names vs. % female (1990 census), least name-like 20% dropped.

    :func:`run_wefat` on :func:`helpers.wordsets.wefat_names` with the paper's female and male
    attribute words, after dropping the names least similar to the centroid of all the name
    vectors (:func:`name_likeness`), the paper's filter.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    ddof : int, 0 or 1
        For the standard deviation of each word's cosines.
    drop_least_namelike : float
        Fraction of the least name-like names dropped (the paper: 0.2).

    Returns
    -------
    WefatResult
        See :func:`run_wefat`; the paper reports r = 0.84 (``wordsets.wefat_paper()``).
    """
    words, values = wefat_names()
    return run_wefat(kv, words, values, ddof=ddof, drop_least_namelike=drop_least_namelike)
