"""Reference implementations the course does not use: the designs ``helpers.statistics`` replaced,
and Python loops, kept here so that every run shows the gain of the chosen design in one process.

The course's own code is measured from ``helpers.statistics`` (``_sampled_subset_sums``: selection
sampling; ``_all_subset_sums``: meet in the middle).
"""
from __future__ import annotations

import numpy as np


def previous_sampled_subset_sums(s, k: int, n_resamples: int, rng: np.random.Generator,
                                 chunk: int = 50_000) -> np.ndarray:
    """Sums of ``n_resamples`` uniformly random k-subsets of ``s``: the course's sampler before
    selection sampling.

    Each row draws one float64 key per item; the k smallest keys (``np.partition`` for the k-th)
    pick the subset, and the sums are the boolean mask times ``s`` (a matrix-vector product
    through BLAS). About 1.2 KB of working memory per row of a chunk (60 MB per 50,000 rows).

    Parameters
    ----------
    s : array_like of float
        The pooled scores.
    k : int
        The subset size (the size of X).
    n_resamples : int
        How many subsets to draw.
    rng : numpy.random.Generator
        The only source of randomness.
    chunk : int
        Rows drawn at once.

    Returns
    -------
    numpy.ndarray, shape (n_resamples,)
        The sum of each subset.
    """
    s = np.asarray(s, dtype=np.float64)
    m = len(s)
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        keys = rng.random((rows, m))
        kth = np.partition(keys, k - 1, axis=1)[:, k - 1:k]
        out[start:start + rows] = (keys <= kth) @ s
    return out


def previous_all_subset_sums(s, k: int) -> np.ndarray:
    """Sums of all k-subsets of ``s``: the course's exact enumeration before meet-in-the-middle
    (the same multiset of sums).

    Dynamic programme over the items: after item i, ``sums[j]`` holds the sums of all j-subsets
    of the items so far; item i extends ``sums[j]`` by ``sums[j-1] + s[i]``, re-copying the growing
    arrays once per item. Sizes that can no longer reach k are dropped.

    Parameters
    ----------
    s : array_like of float
        The pooled scores.
    k : int
        The subset size.

    Returns
    -------
    numpy.ndarray, shape (C(len(s), k),)
        The sum of every k-subset, in no particular order.
    """
    s = np.asarray(s, dtype=np.float64)
    m = len(s)
    sums = [np.zeros(1)] + [np.empty(0)] * k
    for i, v in enumerate(s):
        remaining = m - i - 1
        lowest = max(0, k - remaining)  # sizes below this cannot reach k any more
        for j in range(min(i + 1, k), max(lowest, 1) - 1, -1):  # downwards: sums[j-1] is still the old one
            sums[j] = np.concatenate([sums[j], sums[j - 1] + v])
        for j in range(lowest):
            sums[j] = np.empty(0)
    return sums[k]


def loop_reference_vectors(X, Y, A, B, n: int, rng: np.random.Generator) -> int:
    """``n`` permutations, one per Python iteration, the statistic recomputed from the word vectors.

    The design of the permutation test of WEFE 1.0.1 (the most used WEAT library): every iteration
    shuffles the pooled target words, splits them and recomputes s(X_i, Y_i, A, B) word by word
    from cosines. Written here independently.

    Parameters
    ----------
    X, Y, A, B : numpy.ndarray
        The word vectors of the four sets, one per row.
    n : int
        Number of permutations.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    int
        How many permutations were at least as extreme as the observed split.
    """
    pooled = np.concatenate([X, Y])
    nx = len(X)

    def cos(u, v):
        return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))

    def s(w):
        return np.mean([cos(w, a) for a in A]) - np.mean([cos(w, b) for b in B])

    observed = sum(s(x) for x in X) - sum(s(y) for y in Y)
    count = 0
    for _ in range(n):
        perm = rng.permutation(len(pooled))
        xi, yi = pooled[perm[:nx]], pooled[perm[nx:]]
        count += (sum(s(x) for x in xi) - sum(s(y) for y in yi)) >= observed
    return count


def loop_reference_scores(sx, sy, n: int, rng: np.random.Generator) -> int:
    """``n`` permutations, one per Python iteration, over the precomputed per-word scores ``sx`` and
    ``sy`` (s(w, A, B) of X and of Y); ``n``, ``rng`` and the count returned as in
    :func:`loop_reference_vectors`."""
    pooled = np.concatenate([sx, sy])
    nx = len(sx)
    observed = sx.sum() - sy.sum()
    count = 0
    for _ in range(n):
        p = rng.permutation(pooled)
        count += (p[:nx].sum() - p[nx:].sum()) >= observed
    return count
