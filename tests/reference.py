"""Independent reference implementations for the tests: plain loops, no vectorisation, no helpers code.

The tests of ``helpers.statistics``, ``helpers.weat`` and ``helpers.wefat`` compare the course's
vectorised code with these, which follow the formulas of Caliskan, Bryson & Narayanan,
"Semantics derived automatically from language corpora contain human-like biases", Science
356(6334):183-186, 2017 (doi:10.1126/science.aal4230) word for word.
"""
from __future__ import annotations

import itertools
from math import sqrt

import numpy as np


def ref_cos(u, v):
    u, v = np.asarray(u, float), np.asarray(v, float)
    return float(np.dot(u, v) / (np.sqrt(np.dot(u, u)) * np.sqrt(np.dot(v, v))))


def ref_assoc(w, A, B):
    """s(w,A,B) as the paper writes it: a double loop over the attribute words."""
    return sum(ref_cos(w, a) for a in A) / len(A) - sum(ref_cos(w, b) for b in B) / len(B)


def ref_effect(X, Y, A, B, ddof=1):
    sx = [ref_assoc(x, A, B) for x in X]
    sy = [ref_assoc(y, A, B) for y in Y]
    pooled = sx + sy
    m = sum(pooled) / len(pooled)
    sd = sqrt(sum((v - m) ** 2 for v in pooled) / (len(pooled) - ddof))
    return (sum(sx) / len(sx) - sum(sy) / len(sy)) / sd


def brute_force_p(sx, sy, alternative="greater", tol=1e-9):
    """Count all equal-size splits of X u Y (the observed one included); ties count as extreme."""
    pooled = list(sx) + list(sy)
    n, total = len(sx), sum(pooled)
    observed = sum(sx) - sum(sy)
    count = splits = 0
    for idx in itertools.combinations(range(len(pooled)), n):
        sub = sum(pooled[i] for i in idx)
        stat = sub - (total - sub)
        splits += 1
        if alternative == "greater":
            count += stat >= observed - tol
        elif alternative == "less":
            count += stat <= observed + tol
        else:
            count += abs(stat) >= abs(observed) - tol
    return count / splits, splits


def random_set(rng, n, d=5):
    return rng.normal(size=(n, d))


def glove_vec(kv, word):
    """The float64 vector of ``word`` (lower-cased) in an uncased embedding such as GloVe 6B."""
    return np.asarray(kv[word.lower()], dtype=np.float64)
