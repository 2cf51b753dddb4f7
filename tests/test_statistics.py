"""Unit tests of helpers.statistics (helpers.weat and helpers.wefat: test_weat.py, test_wefat.py).

Every expected value here comes from outside the code under test: numbers worked out by hand
(arithmetic in the comments), independent implementations written in the test (double loops of
cosines, brute force over itertools.combinations), scipy.stats.permutation_test, or invariants
(sign flips, scale invariance, the ddof factor, the |d| <= 2 bound).
"""
from __future__ import annotations

import itertools
from math import comb, sqrt

import numpy as np
import pytest
import scipy.stats

from helpers.statistics import (
    association, cosine, cosine_matrix, differential_association, effect_size, effect_size_from_scores,
    ConfidenceInterval, permutation_test, resolve_rng, wefat_association,
)

from reference import brute_force_p, random_set, ref_assoc, ref_cos, ref_effect


# ---------------------------------------------------------------------------------------------
# The hand-computed 3 + 3 example
# ---------------------------------------------------------------------------------------------
# A = {(1,0), (0,1)}, B = {(-1,0)}.  For a unit vector u = (ux, uy):
#   mean_a cos(u,a) = (ux + uy) / 2,   mean_b cos(u,b) = -ux
#   s(u,A,B) = (ux + uy)/2 + ux = 1.5*ux + 0.5*uy
# X = (3,4), (4,3), (0,7) -> units (0.6,0.8), (0.8,0.6), (0,1)
#   s = 0.9+0.4 = 1.3,  1.2+0.3 = 1.5,  0+0.5 = 0.5
# Y = (-3,4), (4,-3), (-3,-4) -> units (-0.6,0.8), (0.8,-0.6), (-0.6,-0.8)
#   s = -0.9+0.4 = -0.5,  1.2-0.3 = 0.9,  -0.9-0.4 = -1.3
HAND_X = [[3, 4], [4, 3], [0, 7]]
HAND_Y = [[-3, 4], [4, -3], [-3, -4]]
HAND_A = [[1, 0], [0, 1]]
HAND_B = [[-1, 0]]
HAND_SX = [1.3, 1.5, 0.5]
HAND_SY = [-0.5, 0.9, -1.3]
# s(X,Y,A,B) = (1.3+1.5+0.5) - (-0.5+0.9-1.3) = 3.3 - (-0.9) = 4.2
HAND_STAT = 4.2
# means 3.3/3 = 1.1 and -0.9/3 = -0.3, difference 1.4
# pooled mean 2.4/6 = 0.4; deviations 0.9, 1.1, 0.1, -0.9, 0.5, -1.7
# squares 0.81 + 1.21 + 0.01 + 0.81 + 0.25 + 2.89 = 5.98
# ddof=1: sd = sqrt(5.98/5) = sqrt(1.196) = 1.0936178...;  d = 1.4 / 1.0936178 = 1.2801555...
# ddof=0: sd = sqrt(5.98/6) = sqrt(0.99666...) = 0.9983319...;  d = 1.4 / 0.9983319 = 1.4023392...
HAND_D1 = 1.2801555
HAND_D0 = 1.4023392
# exact p: 3-subsets of {1.5, 1.3, 0.9, 0.5, -0.5, -1.3} with sum >= 3.3 (the observed sum of X):
#   {1.5,1.3,0.9} = 3.7 and {1.5,1.3,0.5} = 3.3 (the observed split, a tie); next best
#   {1.5,0.9,0.5} = 2.9 < 3.3.  So 2 of C(6,3) = 20 splits: p = 2/20 = 0.1
HAND_P = 0.1


def test_hand_example_cosines():
    # cos((3,4),(1,0)) = 3/5; cos((3,4),(0,1)) = 4/5; cos((3,4),(-1,0)) = -3/5
    assert cosine([3, 4], [1, 0]) == pytest.approx(0.6, abs=1e-12)
    assert cosine([3, 4], [0, 1]) == pytest.approx(0.8, abs=1e-12)
    assert cosine([3, 4], [-1, 0]) == pytest.approx(-0.6, abs=1e-12)
    # (4,-3).(-3,-4) = -12 + 12 = 0: orthogonal
    assert cosine([4, -3], [-3, -4]) == pytest.approx(0.0, abs=1e-12)
    # cos((1,0),(1,1)) = 1/sqrt(2)
    assert cosine([1, 0], [1, 1]) == pytest.approx(0.70710678, abs=1e-8)


def test_hand_example_association():
    assert association(np.array(HAND_X, float), HAND_A, HAND_B) == pytest.approx(HAND_SX, abs=1e-12)
    assert association(np.array(HAND_Y, float), HAND_A, HAND_B) == pytest.approx(HAND_SY, abs=1e-12)
    # a single vector gives a float
    s = association([3, 4], HAND_A, HAND_B)
    assert isinstance(s, float) and s == pytest.approx(1.3, abs=1e-12)


def test_hand_example_differential_association_and_effect_size():
    assert differential_association(HAND_X, HAND_Y, HAND_A, HAND_B) == pytest.approx(HAND_STAT, abs=1e-12)
    assert effect_size(HAND_X, HAND_Y, HAND_A, HAND_B) == pytest.approx(HAND_D1, abs=1e-6)
    assert effect_size(HAND_X, HAND_Y, HAND_A, HAND_B, ddof=1) == pytest.approx(HAND_D1, abs=1e-6)
    assert effect_size(HAND_X, HAND_Y, HAND_A, HAND_B, ddof=0) == pytest.approx(HAND_D0, abs=1e-6)
    assert effect_size_from_scores(HAND_SX, HAND_SY, ddof=1) == pytest.approx(HAND_D1, abs=1e-6)
    assert effect_size_from_scores(HAND_SX, HAND_SY) == pytest.approx(HAND_D1, abs=1e-6)  # default ddof=1
    assert effect_size_from_scores(HAND_SX, HAND_SY, ddof=0) == pytest.approx(HAND_D0, abs=1e-6)


def test_hand_example_exact_p():
    res = permutation_test(HAND_SX, HAND_SY)
    assert res.method == "exact"
    assert res.n_resamples == 20 and len(res.null_distribution) == 20
    assert res.statistic == pytest.approx(HAND_STAT, abs=1e-12)
    assert res.pvalue == pytest.approx(HAND_P, abs=1e-12)
    # "less": splits with X-sum <= 3.3 are all but {1.5,1.3,0.9}: 19/20 = 0.95
    assert permutation_test(HAND_SX, HAND_SY, alternative="less").pvalue == pytest.approx(0.95, abs=1e-12)
    # two-sided: |2*sum - 2.4| >= 4.2 <=> sum >= 3.3 (2 splits) or sum <= -0.9 (their 2 complements,
    # {0.5,-0.5,-1.3} = -1.3 and {0.9,-0.5,-1.3} = -0.9): 4/20 = 0.2
    assert permutation_test(HAND_SX, HAND_SY, alternative="two-sided").pvalue == pytest.approx(0.2, abs=1e-12)
    # and from the vectors themselves
    sx = association(np.array(HAND_X, float), HAND_A, HAND_B)
    sy = association(np.array(HAND_Y, float), HAND_A, HAND_B)
    assert permutation_test(sx, sy, method="exact").pvalue == pytest.approx(HAND_P, abs=1e-12)


def test_docstring_example_two_plus_two():
    # [3,2] vs [1,0]: splits' X-sums 5,4,3,3,2,1 -> stats 2*sum-6 = 4,2,0,0,-2,-4; only 4 >= 4
    res = permutation_test([3.0, 2.0], [1.0, 0.0])
    assert res.pvalue == pytest.approx(1 / 6)
    assert sorted(np.round(res.null_distribution, 12)) == [-4, -2, 0, 0, 2, 4]


# ---------------------------------------------------------------------------------------------
# Cosine and association against independent implementations
# ---------------------------------------------------------------------------------------------


def test_cosine_scale_invariance():
    rng = np.random.default_rng(1)
    for _ in range(20):
        u, v = rng.normal(size=7), rng.normal(size=7)
        a, b = rng.uniform(0.01, 100, size=2)
        c = cosine(u, v)
        assert cosine(a * u, v) == pytest.approx(c, abs=1e-12)
        assert cosine(u, b * v) == pytest.approx(c, abs=1e-12)
        assert cosine(a * u, b * v) == pytest.approx(c, abs=1e-12)
        # a negative factor flips the sign, it is not a "rescaling"
        assert cosine(-a * u, v) == pytest.approx(-c, abs=1e-12)
        assert -1.0 <= c <= 1.0
        assert c == pytest.approx(ref_cos(u, v), abs=1e-12)


def test_cosine_of_parallel_and_antiparallel_vectors_is_clipped_to_unit():
    u = np.array([0.1, 0.2, 0.3])
    assert cosine(u, 3 * u) == pytest.approx(1.0) and cosine(u, 3 * u) <= 1.0
    assert cosine(u, -7 * u) == pytest.approx(-1.0) and cosine(u, -7 * u) >= -1.0


def test_cosine_matrix_equals_loop_of_cosine():
    rng = np.random.default_rng(2)
    U, V = random_set(rng, 6, 9), random_set(rng, 4, 9)
    C = cosine_matrix(U, V)
    assert C.shape == (6, 4)
    loop = np.array([[ref_cos(u, v) for v in V] for u in U])
    np.testing.assert_allclose(C, loop, atol=1e-12)
    loop2 = np.array([[cosine(u, v) for v in V] for u in U])
    np.testing.assert_allclose(C, loop2, atol=1e-12)
    # rescaling rows changes nothing
    np.testing.assert_allclose(cosine_matrix(U * rng.uniform(0.1, 10, (6, 1)), V), C, atol=1e-12)


def test_association_equals_double_loop():
    rng = np.random.default_rng(3)
    W, A, B = random_set(rng, 5, 8), random_set(rng, 4, 8), random_set(rng, 6, 8)  # |A| != |B| allowed
    got = association(W, A, B)
    want = [ref_assoc(w, A, B) for w in W]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_differential_association_and_effect_size_equal_loops():
    rng = np.random.default_rng(4)
    X, Y, A, B = (random_set(rng, n, 6) for n in (5, 5, 4, 4))
    want_stat = sum(ref_assoc(x, A, B) for x in X) - sum(ref_assoc(y, A, B) for y in Y)
    assert differential_association(X, Y, A, B) == pytest.approx(want_stat, abs=1e-12)
    for ddof in (0, 1):
        assert effect_size(X, Y, A, B, ddof=ddof) == pytest.approx(ref_effect(X, Y, A, B, ddof), abs=1e-12)


def test_wefat_association_equals_loop():
    rng = np.random.default_rng(5)
    W, A, B = random_set(rng, 4, 6), random_set(rng, 3, 6), random_set(rng, 3, 6)
    for ddof in (0, 1):
        want = []
        for w in W:
            cs = [ref_cos(w, x) for x in list(A) + list(B)]
            sd = np.std(cs, ddof=ddof)
            want.append(ref_assoc(w, A, B) / sd)
        np.testing.assert_allclose(wefat_association(W, A, B, ddof=ddof), want, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Symmetries
# ---------------------------------------------------------------------------------------------


def test_sign_changes_when_targets_or_attributes_swap():
    rng = np.random.default_rng(6)
    X, Y, A, B = (random_set(rng, n, 6) for n in (6, 6, 5, 5))
    d = effect_size(X, Y, A, B)
    s = differential_association(X, Y, A, B)
    assert d != 0 and s != 0
    assert effect_size(Y, X, A, B) == pytest.approx(-d, abs=1e-12)
    assert effect_size(X, Y, B, A) == pytest.approx(-d, abs=1e-12)
    assert effect_size(Y, X, B, A) == pytest.approx(d, abs=1e-12)
    assert differential_association(Y, X, A, B) == pytest.approx(-s, abs=1e-12)
    assert differential_association(X, Y, B, A) == pytest.approx(-s, abs=1e-12)
    # the permutation statistic too, and the one-sided p-values swap roles
    sx, sy = association(X, A, B), association(Y, A, B)
    r = permutation_test(sx, sy)
    r_swapped = permutation_test(sy, sx)
    assert r_swapped.statistic == pytest.approx(-r.statistic, abs=1e-12)
    assert r_swapped.pvalue == pytest.approx(permutation_test(sx, sy, alternative="less").pvalue, abs=1e-12)


def test_effect_size_invariant_to_rescaling_vectors():
    rng = np.random.default_rng(7)
    X, Y, A, B = (random_set(rng, n, 6) for n in (5, 5, 4, 4))
    d = effect_size(X, Y, A, B)
    scale = lambda M: M * rng.uniform(0.1, 10, size=(len(M), 1))  # noqa: E731
    assert effect_size(scale(X), scale(Y), scale(A), scale(B)) == pytest.approx(d, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# The ddof question and the footnote "the maximum effect size is 2.0"
# ---------------------------------------------------------------------------------------------


def test_ddof0_and_ddof1_related_by_sqrt_factor():
    rng = np.random.default_rng(8)
    for n in (2, 3, 8, 25):
        sx, sy = rng.normal(0.5, 1, n), rng.normal(0, 1, n)
        N = 2 * n
        d0 = effect_size_from_scores(sx, sy, ddof=0)
        d1 = effect_size_from_scores(sx, sy, ddof=1)
        assert d1 == pytest.approx(d0 * sqrt((N - 1) / N), rel=1e-12)


def test_ddof0_effect_size_bounded_by_two_on_random_data():
    rng = np.random.default_rng(9)
    worst = 0.0
    for _ in range(2000):
        n = int(rng.integers(2, 12))
        shift = rng.uniform(0, 50)  # up to huge separations: d0 approaches 2
        sx, sy = rng.normal(shift, 1, n), rng.normal(0, 1, n)
        d0 = effect_size_from_scores(sx, sy, ddof=0)
        assert abs(d0) <= 2 + 1e-12
        worst = max(worst, abs(d0))
    assert worst > 1.99  # the bound is approached, so the check above is not vacuous


def test_bound_two_is_attained_with_ddof0_only():
    # X scores all 1, Y scores all 0: mean difference 1; pooled values 0/1 half each,
    # population sd = 0.5 -> d0 = 1/0.5 = 2 exactly.
    # sample sd = sqrt(6 * 0.25 / 5) = sqrt(0.3) = 0.5477226 -> d1 = 1.8257419 = 2*sqrt(5/6)
    assert effect_size_from_scores([1, 1, 1], [0, 0, 0], ddof=0) == pytest.approx(2.0, abs=1e-12)
    assert effect_size_from_scores([1, 1, 1], [0, 0, 0], ddof=1) == pytest.approx(1.8257419, abs=1e-7)


def test_ddof1_below_two_for_equal_sizes():
    # With |X| = |Y| = n, d1 = d0 * sqrt((2n-1)/(2n)) <= 2 * sqrt((2n-1)/(2n)) < 2: with ddof=1
    # the footnote's bound holds but is never attained.
    rng = np.random.default_rng(10)
    for _ in range(500):
        n = int(rng.integers(2, 10))
        sx, sy = rng.normal(rng.uniform(0, 50), 1, n), rng.normal(0, 1, n)
        assert abs(effect_size_from_scores(sx, sy, ddof=1)) <= 2 * sqrt((2 * n - 1) / (2 * n)) + 1e-12


def test_effect_size_above_two_exists_with_ddof1_for_unequal_sets():
    # The bound 2 needs |X| = |Y|. With |X| = 1, |Y| = 9 (X = [1], Y = nine 0s):
    #   mean difference 1 - 0 = 1; pooled mean 0.1
    #   sum of squares 0.9^2 + 9 * 0.1^2 = 0.81 + 0.09 = 0.9
    #   ddof=1: sd = sqrt(0.9/9) = sqrt(0.1) = 0.3162278 -> d = 3.1622777 > 2
    #   ddof=0: sd = sqrt(0.9/10) = 0.3 -> d = 3.3333333
    d1 = effect_size_from_scores([1.0], [0.0] * 9, ddof=1)
    d0 = effect_size_from_scores([1.0], [0.0] * 9, ddof=0)
    assert d1 == pytest.approx(3.1622777, abs=1e-6) and d1 > 2
    assert d0 == pytest.approx(10 / 3, abs=1e-9)
    # the same through vectors: one X word on the A side, nine Y words orthogonal to both attributes
    A, B = [[1, 0, 0]], [[0, 1, 0]]
    X = [[1, 0, 0]]          # s = 1 - 0 = 1
    Y = [[0, 0, 1]] * 9      # s = 0 - 0 = 0
    assert effect_size(X, Y, A, B, ddof=1) == pytest.approx(3.1622777, abs=1e-6)


# ---------------------------------------------------------------------------------------------
# Exact permutation test against brute force and scipy
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 6])
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_exact_p_equals_brute_force(n, alternative):
    rng = np.random.default_rng(100 + n)
    for shift in (0.0, 0.3, 1.0, -0.5):
        sx, sy = rng.normal(shift, 1, n), rng.normal(0, 1, n)
        res = permutation_test(sx, sy, alternative=alternative, method="exact")
        want, splits = brute_force_p(sx, sy, alternative)
        assert res.n_resamples == splits == comb(2 * n, n)
        assert res.pvalue == pytest.approx(want, abs=1e-12)
        assert res.pvalue >= 1 / splits  # the observed split counts: never 0
        # null distribution: every split once, observed included, symmetric about 0
        assert len(res.null_distribution) == splits
        assert np.min(np.abs(res.null_distribution - res.statistic)) < 1e-9
        np.testing.assert_allclose(np.sort(res.null_distribution), np.sort(-res.null_distribution), atol=1e-9)


def test_exact_p_with_ties_counts_them_as_extreme():
    # integer scores with many ties: every split with the same statistic as the observed counts
    sx, sy = [2.0, 2.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]
    for alt in ("greater", "less", "two-sided"):
        want, _ = brute_force_p(sx, sy, alt)
        assert permutation_test(sx, sy, alternative=alt).pvalue == pytest.approx(want, abs=1e-12)
    # ties produced by floating-point arithmetic (0.1+0.2 != 0.3) still count
    sx, sy = [0.1, 0.2, 0.0], [0.3, 0.0, 0.0]
    # splits: X-sum 0.3 for {0.1,0.2,0}, {0.3,0,0} x2 ... brute force with tolerance decides
    want, _ = brute_force_p(sx, sy, "greater")
    assert permutation_test(sx, sy).pvalue == pytest.approx(want, abs=1e-12)


def test_exact_p_never_zero_even_for_extreme_split():
    sx, sy = [10.0, 11.0, 12.0, 13.0, 14.0], [0.0, 1.0, 2.0, 3.0, 4.0]
    res = permutation_test(sx, sy)
    assert res.pvalue == pytest.approx(1 / comb(10, 5)) and res.pvalue > 0
    # the most extreme split in the wrong direction: "greater" gives 1
    assert permutation_test(sy, sx).pvalue == pytest.approx(1.0)
    # two-sided counts both extremes
    assert permutation_test(sx, sy, alternative="two-sided").pvalue == pytest.approx(2 / comb(10, 5))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_p_equals_scipy_permutation_test(seed):
    rng = np.random.default_rng(seed)
    n = 7
    sx, sy = rng.normal(0.4, 1, n), rng.normal(0, 1, n)

    def stat(x, y, axis=-1):
        return np.sum(x, axis=axis) - np.sum(y, axis=axis)

    ref = scipy.stats.permutation_test((sx, sy), stat, vectorized=True, permutation_type="independent",
                                       n_resamples=np.inf, alternative="greater")
    ours = permutation_test(sx, sy, method="exact")
    assert ours.statistic == pytest.approx(ref.statistic, abs=1e-12)
    assert ours.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    assert len(ours.null_distribution) == len(ref.null_distribution) == comb(2 * n, n)
    np.testing.assert_allclose(np.sort(ours.null_distribution), np.sort(ref.null_distribution), atol=1e-9)


def test_exact_p_with_ties_equals_scipy():
    sx, sy = np.array([3.0, 1.0, 1.0, 2.0, 0.0]), np.array([1.0, 0.0, 2.0, 0.0, 1.0])
    ref = scipy.stats.permutation_test((sx, sy), lambda x, y, axis=-1: x.sum(axis) - y.sum(axis),
                                       vectorized=True, permutation_type="independent",
                                       n_resamples=np.inf, alternative="greater")
    assert permutation_test(sx, sy).pvalue == pytest.approx(ref.pvalue, abs=1e-12)


def test_auto_method_switches_at_the_threshold():
    rng = np.random.default_rng(11)
    assert permutation_test(rng.normal(size=13), rng.normal(size=13), rng=0, n_resamples=100).method == "exact"
    r = permutation_test(rng.normal(size=14), rng.normal(size=14), rng=0, n_resamples=100)
    assert r.method == "sampled" and r.n_resamples == 100
    # a lower threshold makes a small case sampled
    r = permutation_test([1.0, 2.0, 3.0], [0.0, 1.0, 2.0], exact_max_splits=10, rng=0, n_resamples=50)
    assert r.method == "sampled"


# ---------------------------------------------------------------------------------------------
# Sampled permutation test
# ---------------------------------------------------------------------------------------------


def moderate_case():
    """n = 9 (48,620 splits) with an exact p between 0.05 and 0.5."""
    rng = np.random.default_rng(12)
    sx, sy = rng.normal(0.3, 1, 9), rng.normal(0, 1, 9)
    return sx, sy


def test_sampled_p_agrees_with_exact_within_sampling_error():
    sx, sy = moderate_case()
    exact = permutation_test(sx, sy, method="exact").pvalue
    assert 0.05 < exact < 0.5  # the case is what it claims to be
    B = 20_000
    for alt in ("greater", "two-sided"):
        exact = permutation_test(sx, sy, method="exact", alternative=alt).pvalue
        sampled = permutation_test(sx, sy, method="sampled", n_resamples=B, rng=123, alternative=alt).pvalue
        se = sqrt(exact * (1 - exact) / B)
        assert abs(sampled - exact) <= 4 * se + 1 / (B + 1)


def test_sampled_null_consists_of_valid_splits_without_replacement():
    # every sampled statistic must be the statistic of some split into halves (a subset of the
    # exact null); resampling words with replacement would produce other values
    sx, sy = [1.0, 2.0, 4.0, 8.0], [16.0, 32.0, 64.0, 128.0]  # powers of 2: every subset sum distinct
    exact = permutation_test(sx, sy, method="exact").null_distribution
    sampled = permutation_test(sx, sy, method="sampled", n_resamples=5000, rng=0).null_distribution
    assert np.isin(np.round(sampled, 9), np.round(exact, 9)).all()
    # all 70 splits appear, about equally often (uniform over splits)
    values, counts = np.unique(np.round(sampled, 9), return_counts=True)
    assert len(values) == comb(8, 4)
    assert counts.min() > 5000 / 70 / 3 and counts.max() < 5000 / 70 * 3


def test_same_seed_same_result_different_seed_different_null():
    sx, sy = moderate_case()
    a = permutation_test(sx, sy, method="sampled", n_resamples=3000, rng=7)
    b = permutation_test(sx, sy, method="sampled", n_resamples=3000, rng=7)
    c = permutation_test(sx, sy, method="sampled", n_resamples=3000, rng=8)
    assert a.pvalue == b.pvalue
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    assert not np.array_equal(a.null_distribution, c.null_distribution)
    # a Generator with the same seed gives the same as the int seed
    g = permutation_test(sx, sy, method="sampled", n_resamples=3000, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a.null_distribution, g.null_distribution)


def test_rng_generator_is_consumed_not_reset():
    sx, sy = moderate_case()
    gen = np.random.default_rng(5)
    a = permutation_test(sx, sy, method="sampled", n_resamples=500, rng=gen)
    b = permutation_test(sx, sy, method="sampled", n_resamples=500, rng=gen)
    assert not np.array_equal(a.null_distribution, b.null_distribution)


def test_sampled_p_has_k_plus_one_over_b_plus_one_form():
    sx, sy = moderate_case()
    B = 999
    res = permutation_test(sx, sy, method="sampled", n_resamples=B, rng=3)
    assert res.method == "sampled" and len(res.null_distribution) == B
    k = int(np.sum(res.null_distribution >= res.statistic - 1e-9))
    assert res.pvalue == pytest.approx((k + 1) / (B + 1), abs=1e-15)
    # a strong effect: no sample reaches the observed statistic, p is exactly 1/(B+1), not 0
    strong = permutation_test(np.arange(20.0) + 100, np.arange(20.0), method="sampled", n_resamples=B, rng=3)
    assert strong.pvalue == pytest.approx(1 / (B + 1), abs=1e-15)
    assert strong.pvalue >= 1 / (B + 1)


def test_normal_approximation_reaches_below_one_over_b_plus_one():
    rng = np.random.default_rng(13)
    sx, sy = rng.normal(3, 1, 20), rng.normal(0, 1, 20)
    B = 1000
    counted = permutation_test(sx, sy, method="sampled", n_resamples=B, rng=1)
    normal = permutation_test(sx, sy, method="normal", n_resamples=B, rng=1)
    assert counted.pvalue == pytest.approx(1 / (B + 1))
    assert normal.method == "normal"
    assert normal.pvalue < 1e-3 / (B + 1)  # far smaller than counting can reach
    # the normal fit: z = (obs - mean) / sd of the sampled null, tail probability
    null = normal.null_distribution
    z = (normal.statistic - null.mean()) / null.std(ddof=1)
    assert normal.pvalue == pytest.approx(scipy.stats.norm.sf(z), rel=1e-9)


def test_normal_approximation_close_to_exact_on_moderate_case():
    sx, sy = moderate_case()
    exact = permutation_test(sx, sy, method="exact").pvalue
    normal = permutation_test(sx, sy, method="normal", n_resamples=20_000, rng=0).pvalue
    assert normal == pytest.approx(exact, abs=0.03)


# ---------------------------------------------------------------------------------------------
# Bad input: clear errors naming the problem
# ---------------------------------------------------------------------------------------------


def test_zero_vector_is_rejected():
    with pytest.raises(ValueError, match="all-zero vector"):
        cosine([0, 0], [1, 1])
    with pytest.raises(ValueError, match="all-zero vector"):
        cosine_matrix([[1, 0], [0, 0]], [[1, 1]])
    with pytest.raises(ValueError, match="attribute set B contains an all-zero vector"):
        association([1, 0], [[1, 1]], [[0, 0]])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_are_rejected(bad):
    with pytest.raises(ValueError, match="NaN or infinite"):
        cosine([bad, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="attribute set A contains NaN or infinite"):
        association([1.0, 0.0], [[1.0, bad]], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="NaN or infinity"):
        permutation_test([1.0, bad], [0.0, 1.0])


def test_different_dimensions_are_rejected():
    with pytest.raises(ValueError, match="different dimensions"):
        cosine([1, 0], [1, 0, 0])
    with pytest.raises(ValueError, match="different dimensions"):
        cosine_matrix(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="different dimensions"):
        association(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="different dimensions"):
        effect_size(np.ones((2, 3)), np.ones((2, 5)), np.ones((2, 3)), np.eye(3)[:2])


def test_empty_sets_are_rejected():
    with pytest.raises(ValueError, match="attribute set A is empty"):
        association([1.0, 0.0], np.empty((0, 2)), [[0.0, 1.0]])
    with pytest.raises(ValueError, match="target set X is empty"):
        differential_association(np.empty((0, 2)), [[1.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="at least one word"):
        effect_size_from_scores([], [1.0, 2.0])
    with pytest.raises(ValueError, match="at least one word"):
        permutation_test([], [1.0])


def test_unequal_target_sizes_rejected_where_the_statistic_needs_equal_sizes():
    X, Y = [[1.0, 0.0], [1.0, 1.0]], [[0.0, 1.0]]
    with pytest.raises(ValueError, match=r"same number of words.*got 2 and 1"):
        differential_association(X, Y, [[1.0, 0.0]], [[0.0, 1.0]])
    with pytest.raises(ValueError, match=r"equal size \(got 2 and 1\)"):
        permutation_test([1.0, 2.0], [0.0])


@pytest.mark.parametrize("n", [0, -1, -100])
def test_non_positive_permutation_count_rejected(n):
    for method in ("sampled", "normal", "auto", "exact"):
        with pytest.raises(ValueError, match="n_resamples must be a positive"):
            permutation_test([1.0, 2.0], [0.0, 1.0], method=method, n_resamples=n, rng=0)


def test_non_integer_permutation_count_rejected():
    with pytest.raises(ValueError, match="n_resamples must be a positive whole number"):
        permutation_test([1.0, 2.0], [0.0, 1.0], method="sampled", n_resamples=10.5)
    with pytest.raises(ValueError, match="n_resamples"):
        permutation_test([1.0, 2.0], [0.0, 1.0], method="sampled", n_resamples=True)


def test_unknown_alternative_and_method_rejected():
    with pytest.raises(ValueError, match=r"alternative must be one of .*'bigger'"):
        permutation_test([1.0, 2.0], [0.0, 1.0], alternative="bigger")
    with pytest.raises(ValueError, match=r"method must be .*'bootstrap'"):
        permutation_test([1.0, 2.0], [0.0, 1.0], method="bootstrap")


def test_bad_ddof_and_bad_rng_rejected():
    with pytest.raises(ValueError, match="ddof must be 0"):
        effect_size_from_scores([1.0, 2.0], [0.0, 1.0], ddof=2)
    with pytest.raises(TypeError, match="rng must be a seed"):
        permutation_test([1.0, 2.0], [0.0, 1.0], method="sampled", rng="seed")


def test_identical_scores_give_clear_error_not_nan():
    with pytest.raises(ValueError, match="identical"):
        effect_size_from_scores([0.5, 0.5], [0.5, 0.5])


def test_non_numeric_vectors_rejected():
    with pytest.raises(TypeError, match="must be numbers"):
        association([["a", "b"]], [[1.0, 0.0]], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="two vectors"):
        cosine(np.ones((2, 2)), np.ones(2))


def test_sampled_splits_are_uniform_over_all_subsets():
    """Selection sampling picks every k-subset with probability 1/C(m, k): with powers of two as
    scores every subset has its own sum, so the frequencies of the 20 subsets of 3 out of 6 can be
    tested against the uniform distribution (chi-square; a biased sampler gives p ~ 0)."""
    from scipy.stats import chisquare

    from helpers.statistics import _sampled_subset_sums

    sums = _sampled_subset_sums(2.0 ** np.arange(6), 3, 200_000, np.random.default_rng(2024))
    values, counts = np.unique(sums, return_counts=True)
    assert len(values) == 20  # every one of the C(6, 3) subsets occurs, and nothing else
    assert set(np.round(values).astype(int)) == {sum(1 << i for i in c) for c in itertools.combinations(range(6), 3)}
    assert chisquare(counts).pvalue > 1e-3


def test_progress_bar_only_when_long_and_never_under_nbgrader(capfd, monkeypatch):
    """A bar for long sampled tests, but never while nbgrader runs a notebook (a test cell that writes to stderr
    scores 0). tqdm.auto draws it on stderr in a terminal and as a notebook bar once an IPython kernel has been
    made in this process (by an earlier test of the same worker): stdout then, so both streams are read."""
    import helpers.statistics as hs

    def shown():
        out = capfd.readouterr()
        return out.out + out.err

    sx, sy = np.arange(10.0), np.arange(10.0) + 0.5
    monkeypatch.setattr(hs, "PROGRESS_MIN_RESAMPLES", 1000)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    hs.permutation_test(sx, sy, method="sampled", n_resamples=999, rng=0)
    assert shown() == ""  # below the threshold
    hs.permutation_test(sx, sy, method="sampled", n_resamples=2000, rng=0)
    assert "Permutations" in shown()
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    hs.permutation_test(sx, sy, method="sampled", n_resamples=2000, rng=0)
    assert shown() == ""
    a = hs.permutation_test(sx, sy, method="sampled", n_resamples=2000, rng=0, progress=True)
    b = hs.permutation_test(sx, sy, method="sampled", n_resamples=2000, rng=0, progress=False)
    assert "Permutations" in shown() and a.pvalue == b.pvalue  # the bar changes nothing else


def test_resolve_rng_is_the_one_convention():
    # a Generator is used as it is (its state advances); a seed gives exactly default_rng(seed)
    gen = np.random.default_rng(3)
    assert resolve_rng(gen) is gen
    for seed in (7, np.int64(7), [7, 2], (7, 2), np.array([7, 2]), np.random.SeedSequence(7)):
        expected = np.random.default_rng(seed if not isinstance(seed, np.random.SeedSequence) else 7)
        assert resolve_rng(seed).integers(0, 1 << 30, 5).tolist() == expected.integers(0, 1 << 30, 5).tolist()
    assert resolve_rng([7, 2]).random() != resolve_rng([7, 3]).random()   # test k of a run gets its own stream
    assert isinstance(resolve_rng(None), np.random.Generator)
    for bad in (1.5, "7", np.random.RandomState(0), [1.5, 2], [], {"seed": 1}):
        with pytest.raises(TypeError, match="rng must be a seed"):
            resolve_rng(bad)
    with pytest.raises(ValueError):
        resolve_rng(-1)


def test_confidence_interval_is_a_named_pair_like_scipys():
    ci = ConfidenceInterval(0.25, 1.5)
    low, high = ci
    assert (low, high) == (ci.low, ci.high) == (ci[0], ci[1]) == (0.25, 1.5)
    assert ci._fields == scipy.stats.bootstrap([[1.0, 2.0, 3.0]], np.mean, n_resamples=9,
                                               rng=0).confidence_interval._fields == ("low", "high")
    assert repr(ci) == "ConfidenceInterval(low=0.25, high=1.5)"


def test_randomness_only_through_resolve_rng():
    """No science module makes its own generator, checks a generator's type or uses NumPy's global state."""
    import ast
    import importlib
    import inspect

    for name in ("statistics", "embeddings", "wordsets", "weat", "wefat", "lexicon", "enumeration", "plots"):
        tree = ast.parse(inspect.getsource(importlib.import_module(f"helpers.{name}")))
        allowed = set()   # resolve_rng itself, and type annotations (they draw nothing)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "resolve_rng" and name == "statistics":
                allowed |= {id(n) for n in ast.walk(node)}
            annotations = ([node.returns] if isinstance(node, ast.FunctionDef) and node.returns else []) + \
                ([node.annotation] if isinstance(node, (ast.arg, ast.AnnAssign)) and node.annotation else [])
            allowed |= {id(n) for a in annotations for n in ast.walk(a)}
        for node in ast.walk(tree):
            if id(node) in allowed or not isinstance(node, ast.Attribute):
                continue
            text = ast.unparse(node)
            assert not (text.startswith("np.random.") or text.startswith("numpy.random.")), (
                f"helpers.{name} uses {text} (line {node.lineno}): take an rng argument and call resolve_rng(rng)")
