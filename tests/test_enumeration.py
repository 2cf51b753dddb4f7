"""helpers.enumeration: k-means on unit vectors, the g matrix, the rotation null (sampled and exact),
Benjamini-Hochberg and Benjamini-Yekutieli, the name-like rule, cluster matching."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from helpers.enumeration import (benjamini_hochberg, benjamini_yekutieli, best_overlap, centred_centroids,
                                 exact_rotation_pvalues, g_matrix, knn_label_null, knn_neighbours,
                                 knn_vote_accuracy, name_like, random_rotation, residual_rotation_pvalues,
                                 rotation_null, rotation_pvalues, unit_kmeans)


def _unit(M):
    M = np.asarray(M, dtype=float)
    return M / np.linalg.norm(M, axis=1, keepdims=True)


def _blobs(rng, k=4, per=30, d=8, spread=0.05):
    centres = _unit(rng.normal(size=(k, d)))
    X = np.repeat(centres, per, axis=0) + spread * rng.normal(size=(k * per, d))
    truth = np.repeat(np.arange(k), per)
    return X * rng.uniform(0.5, 3.0, size=(k * per, 1)), truth


# k-means -------------------------------------------------------------------------------------

def test_kmeans_finds_well_separated_clusters_whatever_the_lengths():
    X, truth = _blobs(np.random.default_rng(1))
    labels, centres = unit_kmeans(X, 4, rng=np.random.default_rng(0))
    # same partition as the truth (labels may be numbered differently)
    pairs = set(zip(labels.tolist(), truth.tolist()))
    assert len(pairs) == 4
    assert centres.shape == (4, 8)


def test_kmeans_result_is_a_fixed_point_and_numbered_by_size():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 5))
    labels, centres = unit_kmeans(X, 6, rng=np.random.default_rng(3))
    U = _unit(X)
    for c in range(6):
        np.testing.assert_allclose(centres[c], U[labels == c].mean(axis=0), atol=1e-12)
    nearest = ((U[:, None, :] - centres[None]) ** 2).sum(axis=2).argmin(axis=1)
    assert np.array_equal(nearest, labels)
    sizes = np.bincount(labels)
    assert (np.diff(sizes) <= 0).all() and sizes.min() > 0


def test_kmeans_seeds_reproduce_and_rotation_keeps_labels():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 6))
    a = unit_kmeans(X, 5, rng=np.random.default_rng(7))
    b = unit_kmeans(X, 5, rng=np.random.default_rng(7))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    R = random_rotation(6, np.random.default_rng(8))
    c = unit_kmeans(X @ R, 5, rng=np.random.default_rng(7))
    assert np.array_equal(a[0], c[0])            # only distances enter k-means
    np.testing.assert_allclose(a[1] @ R, c[1], atol=1e-10)


def test_kmeans_k_equal_n_and_bad_input():
    X = np.eye(3)
    labels, _ = unit_kmeans(X, 3, rng=np.random.default_rng(0))
    assert sorted(labels.tolist()) == [0, 1, 2]
    with pytest.raises(ValueError, match="k <= 3"):
        unit_kmeans(X, 4, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="positive whole number"):
        unit_kmeans(X, 0, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        unit_kmeans(X, 2, rng=0.5)
    with pytest.raises(ValueError, match="zero vector"):
        unit_kmeans(np.vstack([X, np.zeros(3)]), 2, rng=np.random.default_rng(0))


def _plain_lloyd(U, k, rng, max_iter=300):
    """Lloyd's algorithm written plainly, as an independent reference for ``enumeration._lloyd``: the
    same k-means++ draws, one product for all scores, and every centre summed again at every step from
    its members in row order. Returns labels, centres and how often a cluster was restarted."""
    def score_of(C):                                 # larger = nearer: u.c - |c|^2 / 2
        return U @ C.T - 0.5 * np.einsum("ij,ij->i", C, C)

    n = len(U)
    centres = np.empty((k, U.shape[1]))
    centres[0] = U[rng.integers(n)]
    d2 = np.maximum(1.0 - 2.0 * score_of(centres[:1])[:, 0], 0.0)
    for c in range(1, k):
        total = d2.sum()
        centres[c] = U[rng.choice(n, p=d2 / total) if total > 0 else rng.integers(n)]
        d2 = np.minimum(d2, np.maximum(1.0 - 2.0 * score_of(centres[c:c + 1])[:, 0], 0.0))
    labels, restarts = np.full(n, -1), 0
    for _ in range(max_iter):
        score = score_of(centres)
        new = score.argmax(axis=1)
        while len(set(new.tolist())) < k:           # the worst-fitted vector starts the first empty cluster
            far = score[np.arange(n), new].argmin()
            new[far] = min(set(range(k)) - set(new.tolist()))
            score[far, :] = np.inf
            restarts += 1
        if np.array_equal(new, labels):
            break
        labels = new
        for c in range(k):
            members = U[labels == c]
            # the order np.add.reduceat adds in: the first member, plus the pairwise sum of the others
            centres[c] = (members[0] + np.asfortranarray(members[1:]).sum(axis=0)) / len(members)
    return labels, centres, restarts


def _glove_units(start, stop, repeat=1):
    from helpers.embeddings import load_default
    return _unit(np.repeat(load_default().vectors[start:stop], repeat, axis=0))


@pytest.mark.parametrize("one_thread", [True, False], ids=["one product", "row blocks"])
def test_kmeans_iterations_equal_a_plain_lloyd_bit_for_bit(monkeypatch, one_thread):
    """Only the clusters that changed are summed again; the centres must still be the plain ones, bit for
    bit, and so every label. Real GloVe vectors; then 60 words three times each with k = 70, which
    leaves clusters empty and restarts them."""
    from helpers import enumeration
    monkeypatch.setattr(enumeration, "_ONE_THREAD", one_thread)
    words = _glove_units(100, 2100)
    cases = [(words, 40, 0), (words, 40, 1), (_glove_units(500, 1500), 7, 2), (_glove_units(300, 360, repeat=3), 70, 3)]
    for U, k, seed in cases:
        labels, centres, inertia = enumeration._lloyd(U, k, np.random.default_rng(seed), 300)
        ref_labels, ref_centres, restarts = _plain_lloyd(U, k, np.random.default_rng(seed))
        assert np.array_equal(labels, ref_labels), (k, seed)
        assert np.array_equal(centres, ref_centres), (k, seed)
        assert inertia == pytest.approx(((U - ref_centres[ref_labels]) ** 2).sum(), rel=1e-12)
    assert restarts > 0          # the last case did restart empty clusters


def test_kmeans_scores_in_one_product_equal_the_row_blocks(monkeypatch):
    from helpers import enumeration
    U = _glove_units(0, 3000)
    centres = U[np.random.default_rng(0).choice(3000, 40, replace=False)] * 0.7
    monkeypatch.setattr(enumeration, "_ONE_THREAD", True)
    one = enumeration._scores(U, centres)
    monkeypatch.setattr(enumeration, "_ONE_THREAD", False)
    assert np.array_equal(one, enumeration._scores(U, centres))


# g matrix ------------------------------------------------------------------------------------

def test_centred_centroids_hand_case_and_weighted_sum_zero():
    V = [[2.0, 0.0], [0.0, 5.0], [0.0, 1.0]]
    D = centred_centroids(V, [0, 1, 1])
    # unit vectors (1,0), (0,1), (0,1); centroids (1,0), (0,1); centroid of all (1/3, 2/3)
    np.testing.assert_allclose(D, [[2 / 3, -2 / 3], [-1 / 3, 1 / 3]], atol=1e-12)
    np.testing.assert_allclose(1 * D[0] + 2 * D[1], 0.0, atol=1e-12)
    with pytest.raises(ValueError, match="no members"):
        centred_centroids(V, [0, 2, 2])
    with pytest.raises(ValueError, match="one per vector"):
        centred_centroids(V, [0, 1])


def test_g_matrix_is_the_one_group_g_of_every_pair():
    """Independent implementation: g(X, A) with the universes, one pair at a time (notebook 9's formula)."""
    rng = np.random.default_rng(5)
    X, A = rng.normal(size=(40, 7)), rng.normal(size=(60, 7))
    xl, al = rng.integers(0, 4, size=40), rng.integers(0, 5, size=60)
    xl[:4], al[:5] = np.arange(4), np.arange(5)

    def cen(M):
        return _unit(M).mean(axis=0)

    expected = np.array([[(cen(X[xl == i]) - cen(X)) @ (cen(A[al == j]) - cen(A)) for j in range(5)]
                         for i in range(4)])
    np.testing.assert_allclose(g_matrix(X, xl, A, al), expected, atol=1e-12)


def test_rotating_all_names_rotates_the_centred_centroids():
    rng = np.random.default_rng(6)
    X, A = rng.normal(size=(30, 5)) * 3, rng.normal(size=(20, 5))
    xl, al = np.arange(30) % 3, np.arange(20) % 4
    R = random_rotation(5, np.random.default_rng(9))
    D, E = centred_centroids(X, xl), centred_centroids(A, al)
    np.testing.assert_allclose(g_matrix(X @ R, xl, A, al), D @ R @ E.T, atol=1e-12)


# the rotation --------------------------------------------------------------------------------

def test_rotation_is_orthogonal_and_keeps_name_name_cosines():
    rng = np.random.default_rng(10)
    for d in (1, 2, 5, 50):
        Q = random_rotation(d, rng)
        assert Q.shape == (d, d)
        np.testing.assert_allclose(Q.T @ Q, np.eye(d), atol=1e-12)
        np.testing.assert_allclose(Q @ Q.T, np.eye(d), atol=1e-12)
    X = rng.normal(size=(25, 50))
    Q = random_rotation(50, rng)
    np.testing.assert_allclose(_unit(X @ Q) @ _unit(X @ Q).T, _unit(X) @ _unit(X).T, atol=1e-12)


def test_rotation_recipe_and_seeds():
    Q1 = random_rotation(4, np.random.default_rng(11))
    Q2 = random_rotation(4, np.random.default_rng(11))
    assert np.array_equal(Q1, Q2)
    assert not np.allclose(Q1, random_rotation(4, np.random.default_rng(12)))
    Z = np.random.default_rng(11).standard_normal((4, 4))
    Q, R = np.linalg.qr(Z)
    np.testing.assert_allclose(Q1, Q @ np.diag(np.sign(np.diag(R))), atol=1e-14)
    # and Q1 R' = Z with R' upper triangular with a positive diagonal (the unique QR)
    Rp = Q1.T @ Z
    np.testing.assert_allclose(np.tril(Rp, -1), 0.0, atol=1e-12)
    assert (np.diag(Rp) > 0).all()
    with pytest.raises(TypeError, match="Generator"):
        random_rotation(3, "seed")
    with pytest.raises(ValueError, match="positive whole number"):
        random_rotation(0, np.random.default_rng(0))


def test_rotation_is_uniform():
    """Haar measure: a fixed unit vector is sent to a uniform point of the sphere, so its first
    coordinate u has (1 + u) / 2 ~ Beta((d-1)/2, (d-1)/2), and E[Q] = 0 (the sign fix matters)."""
    rng = np.random.default_rng(13)
    d, n = 3, 4000
    Qs = np.array([random_rotation(d, rng) for _ in range(n)])
    u = Qs[:, 0, 0]
    assert stats.kstest((1 + u) / 2, stats.beta((d - 1) / 2, (d - 1) / 2).cdf).pvalue > 1e-3
    se = np.sqrt(1 / d / n)
    assert abs(Qs[:, 0, 0].mean()) < 5 * se and abs(np.trace(Qs, axis1=1, axis2=2).mean()) < 5 * np.sqrt(1 / n)


# the null and the p-values --------------------------------------------------------------------

def test_rotation_null_uses_one_rotation_per_draw_in_order():
    rng = np.random.default_rng(14)
    D, E = rng.normal(size=(3, 6)), rng.normal(size=(4, 6))
    null = rotation_null(D, E, n_resamples=5, rng=np.random.default_rng(15))
    r = np.random.default_rng(15)
    expected = np.array([D @ random_rotation(6, r) @ E.T for _ in range(5)])
    np.testing.assert_allclose(null, expected, atol=1e-12)


def test_pvalues_agree_with_the_exact_rotation_null():
    """Under a uniform rotation, G_ij / (|D_i||E_j|) is the first coordinate of a uniform point of the
    sphere, so p_ij = P(u >= cos(D_i, E_j)) is known exactly: an independent check of the Monte Carlo."""
    rng = np.random.default_rng(16)
    d, B = 10, 4000
    D, E = rng.normal(size=(2, d)), rng.normal(size=(3, d))
    res = rotation_pvalues(D, E, n_resamples=B, rng=np.random.default_rng(17))
    cos = (D @ E.T) / np.outer(np.linalg.norm(D, axis=1), np.linalg.norm(E, axis=1))
    exact = stats.beta((d - 1) / 2, (d - 1) / 2).sf((1 + cos) / 2)
    se = np.sqrt(exact * (1 - exact) / B)
    assert (np.abs(res.pvalue - exact) < 5 * se + 2 / B).all(), (res.pvalue, exact)
    np.testing.assert_allclose(res.statistic, D @ E.T, atol=1e-12)
    assert res.null_distribution.shape == (B, 2, 3) and res.n_resamples == B


def test_exact_pvalues_hand_cases():
    """d = 2: u = cos(theta), theta uniform, so p = arccos(c) / pi; d = 3: u is uniform on [-1, 1]
    (Archimedes' hat-box theorem), so p = (1 - c) / 2; d = 1: u = +-1 with probability 1/2."""
    rng = np.random.default_rng(30)
    for d, formula in ((2, lambda c: np.arccos(c) / np.pi), (3, lambda c: (1 - c) / 2)):
        D, E = rng.normal(size=(3, d)), rng.normal(size=(4, d)) * 5
        cos = (D @ E.T) / np.outer(np.linalg.norm(D, axis=1), np.linalg.norm(E, axis=1))
        np.testing.assert_allclose(exact_rotation_pvalues(D, E), formula(cos), atol=1e-12)
    np.testing.assert_allclose(exact_rotation_pvalues([[2.0], [-1.0]], [[3.0]]), [[0.5], [1.0]])
    # d = 50 against scipy's Beta distribution, written as the formula states it
    D, E = rng.normal(size=(6, 50)), rng.normal(size=(7, 50))
    E[0] = D[0] + 0.3 * rng.normal(size=50)                      # one small p-value
    cos = (D @ E.T) / np.outer(np.linalg.norm(D, axis=1), np.linalg.norm(E, axis=1))
    np.testing.assert_allclose(exact_rotation_pvalues(D, E), stats.beta(24.5, 24.5).sf((1 + cos) / 2), rtol=1e-9)
    # aligned, orthogonal, opposite; a zero row gives g = 0 under every rotation: p = 1 (ties count)
    np.testing.assert_allclose(exact_rotation_pvalues([[1.0, 0, 0, 0], [0, 0, 0, 0]],
                                                      [[2.0, 0, 0, 0], [0, 1.0, 0, 0], [-1.0, 0, 0, 0]]),
                               [[0.0, 0.5, 1.0], [1.0, 1.0, 1.0]], atol=1e-12)


def test_exact_pvalues_agree_with_many_rotations():
    """The Monte Carlo null of rotation_null (20,000 uniform rotations, an independent computation)
    against the Beta law: every pair's tail frequency within 5 binomial standard errors, and the
    whole null distribution of one pair against the scaled Beta law by Kolmogorov-Smirnov."""
    rng = np.random.default_rng(31)
    d, B = 6, 20_000
    D, E = rng.normal(size=(3, d)), rng.normal(size=(4, d))
    exact = exact_rotation_pvalues(D, E)
    null = rotation_null(D, E, n_resamples=B, rng=np.random.default_rng(32))
    freq = (null >= D @ E.T).mean(axis=0)
    se = np.sqrt(exact * (1 - exact) / B)
    assert (np.abs(freq - exact) < 5 * se + 1 / B).all(), (freq, exact)
    assert (exact > 0.001).all() and (exact < 0.999).all()      # a real test, not the tails only
    scale = np.linalg.norm(D[0]) * np.linalg.norm(E[1])
    a = (d - 1) / 2
    assert stats.kstest((1 + null[:, 0, 1] / scale) / 2, stats.beta(a, a).cdf).pvalue > 1e-3
    # the Monte Carlo p-value of rotation_pvalues estimates it: (1 + #) / (B + 1)
    res = rotation_pvalues(D, E, n_resamples=B, rng=np.random.default_rng(32))
    np.testing.assert_allclose(res.pvalue, (1 + freq * B) / (B + 1), atol=1e-12)


def test_exact_pvalues_are_rotation_invariant_and_monotone():
    rng = np.random.default_rng(33)
    D, E = rng.normal(size=(3, 7)), rng.normal(size=(5, 7))
    R = random_rotation(7, np.random.default_rng(34))
    np.testing.assert_allclose(exact_rotation_pvalues(D @ R, E @ R), exact_rotation_pvalues(D, E), atol=1e-12)
    np.testing.assert_allclose(exact_rotation_pvalues(3 * D, 0.5 * E), exact_rotation_pvalues(D, E), atol=1e-12)
    cos = (D @ E.T) / np.outer(np.linalg.norm(D, axis=1), np.linalg.norm(E, axis=1))
    p = exact_rotation_pvalues(D, E)
    order = np.argsort(cos.ravel())
    assert (np.diff(p.ravel()[order]) <= 1e-15).all()          # larger cosine, smaller p
    with pytest.raises(ValueError, match="same number of columns"):
        exact_rotation_pvalues(np.ones((2, 3)), np.ones((2, 4)))


def test_pvalues_count_the_observed_and_ties():
    res = rotation_pvalues(np.zeros((2, 4)), np.ones((3, 4)), n_resamples=19, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(res.pvalue, np.ones((2, 3)))
    rng = np.random.default_rng(18)
    res = rotation_pvalues(rng.normal(size=(2, 4)), rng.normal(size=(3, 4)), n_resamples=19,
                           rng=np.random.default_rng(1))
    assert (res.pvalue >= 1 / 20).all() and (res.pvalue <= 1).all()
    np.testing.assert_allclose(res.pvalue * 20, np.round(res.pvalue * 20), atol=1e-9)
    again = rotation_pvalues(rng.normal(size=(2, 4)), rng.normal(size=(3, 4)), n_resamples=19,
                             rng=np.random.default_rng(1))
    assert again.pvalue.shape == (2, 3)


def test_null_rejects_bad_input():
    with pytest.raises(ValueError, match="same number of columns"):
        rotation_null(np.ones((2, 3)), np.ones((2, 4)), n_resamples=2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="positive whole number"):
        rotation_null(np.ones((2, 3)), np.ones((2, 3)), n_resamples=0, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        rotation_pvalues(np.ones((2, 3)), np.ones((2, 3)), n_resamples=2, rng=np.random.RandomState(1))


def test_rng_is_a_seed_or_a_generator_as_everywhere_in_the_library():
    # statistics.resolve_rng's convention: a seed draws what default_rng(seed) draws, a Generator is used as it is
    X = np.random.default_rng(40).normal(size=(30, 4))
    by_seed, by_gen = unit_kmeans(X, 3, rng=7), unit_kmeans(X, 3, rng=np.random.default_rng(7))
    assert by_seed[0].tolist() == by_gen[0].tolist() and np.array_equal(by_seed[1], by_gen[1])
    assert np.array_equal(random_rotation(5, 3), random_rotation(5, np.random.default_rng(3)))
    assert np.array_equal(random_rotation(5, [3, 1]), random_rotation(5, np.random.default_rng([3, 1])))
    D, E = np.random.default_rng(41).normal(size=(2, 5)), np.random.default_rng(42).normal(size=(3, 5))
    assert np.array_equal(rotation_null(D, E, n_resamples=4, rng=9),
                          rotation_null(D, E, n_resamples=4, rng=np.random.default_rng(9)))
    assert np.array_equal(rotation_pvalues(D, E, n_resamples=4, rng=9).pvalue,
                          rotation_pvalues(D, E, n_resamples=4, rng=np.random.default_rng(9)).pvalue)
    gen = np.random.default_rng(5)   # a Generator advances: two calls give two different rotations
    assert not np.allclose(random_rotation(4, gen), random_rotation(4, gen))


# Benjamini-Hochberg ---------------------------------------------------------------------------

def _bh_rejections(p, alpha):
    """The step-up rule written out: reject the k smallest, k the largest i with p_(i) <= i alpha / m."""
    p = np.ravel(p)
    m = len(p)
    order = np.argsort(p, kind="stable")
    k = 0
    for i in range(1, m + 1):
        if p[order[i - 1]] <= i * alpha / m:
            k = i
    rejected = np.zeros(m, dtype=bool)
    rejected[order[:k]] = True
    return rejected


def test_bh_hand_case():
    # sorted 0.01, 0.03, 0.04, 0.5 (m = 4): m p / i = 0.04, 0.06, 0.0533, 0.5; minimum from the end
    np.testing.assert_allclose(benjamini_hochberg([0.01, 0.04, 0.03, 0.5]), [0.04, 0.16 / 3, 0.16 / 3, 0.5])


def test_bh_agrees_with_the_step_up_rule():
    rng = np.random.default_rng(19)
    for trial in range(50):
        m = int(rng.integers(1, 60))
        p = np.where(rng.random(m) < 0.3, rng.random(m) * 0.01, rng.random(m))
        if trial % 5 == 0:
            p = np.round(p, 2)       # ties
        q = benjamini_hochberg(p)
        for alpha in (0.01, 0.05, 0.1, 0.25):
            assert np.array_equal(q <= alpha + 1e-12, _bh_rejections(p, alpha)), (p, alpha)
        assert (q >= p - 1e-15).all() and (q <= 1).all()


def test_bh_keeps_the_shape_and_treats_a_matrix_as_one_family():
    rng = np.random.default_rng(20)
    P = rng.random((4, 6)) ** 3
    Q = benjamini_hochberg(P)
    assert Q.shape == (4, 6)
    np.testing.assert_allclose(Q.ravel(), benjamini_hochberg(P.ravel()))
    with pytest.raises(ValueError, match="between 0 and 1"):
        benjamini_hochberg([0.1, 1.2])
    with pytest.raises(ValueError, match="at least one"):
        benjamini_hochberg([])


# Benjamini-Yekutieli ------------------------------------------------------------------------------

def test_by_hand_case_and_relation_to_bh():
    # c(4) = 1 + 1/2 + 1/3 + 1/4 = 25/12; BH q = 0.04, 0.16/3, 0.16/3, 0.5 -> times 25/12, capped at 1
    np.testing.assert_allclose(benjamini_yekutieli([0.01, 0.04, 0.03, 0.5]),
                               [0.04 * 25 / 12, 0.16 / 3 * 25 / 12, 0.16 / 3 * 25 / 12, 1.0])
    rng = np.random.default_rng(40)
    for m in (1, 7, 480):
        p = rng.random(m) ** 4
        c = sum(1 / i for i in range(1, m + 1))
        np.testing.assert_allclose(benjamini_yekutieli(p), np.minimum(1, c * benjamini_hochberg(p)), atol=1e-12)
        # the step-up rule at level alpha / c(m) rejects the same hypotheses
        for alpha in (0.05, 0.2):
            assert np.array_equal(benjamini_yekutieli(p) <= alpha + 1e-12, _bh_rejections(p, alpha / c))
    P = rng.random((3, 5))
    assert benjamini_yekutieli(P).shape == (3, 5)
    with pytest.raises(ValueError, match="at least one"):
        benjamini_yekutieli([])
    with pytest.raises(ValueError, match="between 0 and 1"):
        benjamini_yekutieli([np.nan])


# the name-like rule -----------------------------------------------------------------------------

def _name_like_loops(V, is_name, candidates, k, share):
    """Brute force: sort every other row by (-cosine, index), count names among the first k."""
    U = _unit(V)
    out = []
    for c in candidates:
        others = [(-(U[c] @ U[j]), j) for j in range(len(U)) if j != c]
        nearest = [j for _, j in sorted(others)[:k]]
        out.append(sum(is_name[j] for j in nearest) >= share * k)
    return np.array(out, dtype=bool)


def test_name_like_agrees_with_brute_force():
    rng = np.random.default_rng(41)
    for trial in range(20):
        n, d = int(rng.integers(12, 60)), int(rng.integers(2, 6))
        V = rng.normal(size=(n, d))
        if trial % 4 == 0:
            V[1] = V[0] * 2.0           # a tie in cosine
            V[2] = V[0] * 0.5
        is_name = rng.random(n) < 0.4
        cand = rng.choice(n, size=min(n, 10), replace=False)
        k = int(rng.integers(1, min(8, n - 1)))
        share = float(rng.choice([0.3, 0.5, 1.0]))
        np.testing.assert_array_equal(name_like(V, is_name, cand, k=k, share=share),
                                      _name_like_loops(V, is_name, cand, k, share))


def test_name_like_hand_case_and_errors():
    V = [[1, 0], [1, 0.1], [1, -0.1], [0, 1], [0.1, 1], [-0.1, 1]]
    names = np.array([False, True, True, False, False, False])
    assert name_like(V, names, [0, 3], k=2).tolist() == [True, False]
    assert name_like(V, names, [0], k=3, share=1.0).tolist() == [False]    # the third neighbour is no name
    assert name_like(V, names, [], k=2).shape == (0,)
    with pytest.raises(ValueError, match="bool array"):
        name_like(V, [1, 0, 0, 0, 0, 0], [0])
    with pytest.raises(ValueError, match="choose k"):
        name_like(V, names, [0], k=6)
    with pytest.raises(ValueError, match="share"):
        name_like(V, names, [0], k=2, share=0)
    with pytest.raises(ValueError, match="row indices"):
        name_like(V, names, [6], k=2)


# matching clusters across runs --------------------------------------------------------------------

def test_best_overlap_hand_case_and_relabelling():
    match, jac = best_overlap([0, 0, 1, 1, 1], [1, 1, 1, 0, 0])
    assert match.tolist() == [1, 0]
    np.testing.assert_allclose(jac, [2 / 3, 2 / 3])
    rng = np.random.default_rng(42)
    a = rng.integers(0, 6, size=200)
    a[:6] = np.arange(6)
    perm = rng.permutation(6)
    match, jac = best_overlap(a, perm[a])          # the same partition, renumbered: found exactly
    assert match.tolist() == perm.tolist() and np.allclose(jac, 1)
    # against a brute-force Jaccard
    b = rng.integers(0, 4, size=200)
    b[:4] = np.arange(4)
    match, jac = best_overlap(a, b)
    for i in range(6):
        scores = [len(set(np.flatnonzero(a == i)) & set(np.flatnonzero(b == j)))
                  / len(set(np.flatnonzero(a == i)) | set(np.flatnonzero(b == j))) for j in range(4)]
        assert match[i] == int(np.argmax(scores)) and jac[i] == pytest.approx(max(scores))
    with pytest.raises(ValueError, match="one per vector"):
        best_overlap([0, 1, 1], [0, 1])


# the conditional (residual) pair test -----------------------------------------------------------

def test_residual_pvalues_hand_case():
    # d = 4, one axis removed: 3 dimensions remain, where u is uniform (Archimedes) and p = (1 - c)/2.
    # (1, 1, 0, 0) and (1, 1, 1, 0) without the second axis: (1, 0, 0, 0) and (1, 0, 1, 0), c = 1/sqrt(2)
    p = residual_rotation_pvalues([[1.0, 1.0, 0.0, 0.0]], [[1.0, 1.0, 1.0, 0.0]], [0.0, 3.0, 0.0, 0.0])
    assert p.shape == (1, 1) and p[0, 0] == pytest.approx((1 - 1 / np.sqrt(2)) / 2, abs=1e-12)
    # without the removal, d = 4: cos = 2/sqrt(6); the Beta(3/2, 3/2) tail, by numerical integration
    c = 2 / np.sqrt(6)
    tail = stats.beta(1.5, 1.5).sf((1 + c) / 2)
    assert exact_rotation_pvalues([[1.0, 1.0, 0.0, 0.0]], [[1.0, 1.0, 1.0, 0.0]])[0, 0] == pytest.approx(tail, rel=1e-10)
    # a word centroid inside the removed span has nothing left: p = 1
    assert residual_rotation_pvalues([[1.0, 1.0, 0.0, 0.0]], [[0.0, 2.0, 0.0, 0.0]], [0.0, 1.0, 0.0, 0.0])[0, 0] == 1.0


def test_residual_pvalues_equal_the_exact_ones_in_the_complement():
    rng = np.random.default_rng(5)
    D, E, R = rng.normal(size=(3, 6)), rng.normal(size=(4, 6)), rng.normal(size=(2, 6))
    Q, _ = np.linalg.qr(R.T, mode="complete")          # columns 2.. span the complement of the rows of R
    C = Q[:, 2:]
    expected = exact_rotation_pvalues(D @ C, E @ C)
    assert residual_rotation_pvalues(D, E, R) == pytest.approx(expected, rel=1e-10)
    # only the span counts: a dependent third row and rescaled rows change nothing
    assert residual_rotation_pvalues(D, E, np.vstack([3 * R, R[0] + R[1]])) == pytest.approx(expected, rel=1e-10)
    # removing a direction orthogonal to every centroid changes only the dimension of the Beta law
    with pytest.raises(ValueError, match="at least 2 must remain"):
        residual_rotation_pvalues(D, E, rng.normal(size=(5, 6)))
    with pytest.raises(ValueError, match="directions of length 6"):
        residual_rotation_pvalues(D, E, [1.0, 0.0])


def test_residual_pvalue_is_the_conditional_law_under_rotations():
    # Monte Carlo: rotate D, keep only rotations whose component along the removed axis stays near the
    # observed one; the share of those with g_perp >= observed estimates the conditional p-value
    rng = np.random.default_rng(11)
    d = 5
    D = np.array([[0.2, 0.9, 0.3, 0.1, 0.0]])
    E = np.array([[0.1, 0.8, 0.6, 0.0, 0.2]])
    f = np.array([0.0, 1.0, 0.0, 0.0, 0.0])
    p = residual_rotation_pvalues(D, E, f)[0, 0]
    Z = rng.normal(size=(400_000, d))
    U = Z / np.linalg.norm(Z, axis=1, keepdims=True) * np.linalg.norm(D)     # D R, uniform on its sphere
    near = np.abs(U @ f - D[0] @ f) < 0.02
    Pe = E[0] - (E[0] @ f) * f
    hits = (U[near] @ Pe >= D[0] @ Pe).mean()
    assert near.sum() > 1_000
    assert hits == pytest.approx(p, abs=4 * np.sqrt(p * (1 - p) / near.sum()) + 0.01)


# the k-NN vote and its label-permutation null ----------------------------------------------------

_TWO_PAIRS = [[1, 0], [1, 0.1], [0, 1], [0.1, 1]]


def test_knn_neighbours_and_vote_hand_case():
    assert knn_neighbours(_TWO_PAIRS, k=1).ravel().tolist() == [1, 0, 3, 2]
    # k = 2: row 0's neighbours are 1 (cos ~ 0.995) and 3 (cos ~ 0.0995), before 2 (cos 0)
    assert knn_neighbours(_TWO_PAIRS, k=2).tolist() == [[1, 3], [0, 3], [3, 1], [2, 1]]
    assert knn_vote_accuracy(_TWO_PAIRS, np.array([True, True, False, False]), k=1) == 1.0
    assert knn_vote_accuracy(_TWO_PAIRS, np.array([True, False, True, False]), k=1) == 0.0
    # k = 2 with labels T T F F: row 0 sees (T, F), a tie, which votes False: wrong; row 1 likewise;
    # rows 2 and 3 see (F, T): a tie, False: right. Accuracy 1/2.
    assert knn_vote_accuracy(_TWO_PAIRS, np.array([True, True, False, False]), k=2) == 0.5
    # a tie of cosines goes to the lower row index
    assert knn_neighbours([[1, 0], [0, 1], [0, 1]], k=1).ravel().tolist() == [1, 2, 1]


def test_knn_label_null_hand_case():
    # of the 6 placements of two True labels on the two pairs, 2 give accuracy 1 and 4 give 0: exact p = 1/3
    res = knn_label_null(_TWO_PAIRS, np.array([True, True, False, False]), k=1, n_resamples=6_000, rng=1)
    assert res.statistic == 1.0
    assert set(np.unique(res.null_distribution)) <= {0.0, 1.0}
    share = res.null_distribution.mean()
    assert share == pytest.approx(1 / 3, abs=4 * np.sqrt(2 / 9 / 6_000))
    assert res.pvalue == (1 + (res.null_distribution >= 1.0).sum()) / 6_001
    assert res.n_resamples == 6_000 and res.null_distribution.shape == (6_000,)


def test_knn_label_null_keeps_the_graph_and_the_label_counts():
    rng = np.random.default_rng(3)
    V = rng.normal(size=(40, 5))
    y = np.arange(40) < 13
    res = knn_label_null(V, y, k=3, n_resamples=50, rng=7)
    # the same draws, by hand: one permutation per shuffle, the vote of knn_vote_accuracy on the same vectors
    draw = np.random.default_rng(7)
    by_hand = []
    for _ in range(50):
        perm = draw.permutation(40)
        by_hand.append(knn_vote_accuracy(V, y[perm], k=3))
    assert res.null_distribution.tolist() == by_hand
    assert knn_label_null(V, y, k=3, n_resamples=50, rng=np.random.default_rng(7)).null_distribution.tolist() == by_hand


def test_knn_chance_is_not_the_majority_rate():
    # 30 points on a circle in order, 20 True then 10 False: the majority rate is 2/3; with k = 1 a shuffled
    # labelling is right for a row when its neighbour has the same label, about (20*19 + 10*9)/(30*29) = 0.54
    t = np.linspace(0, np.pi / 2, 30)
    V = np.c_[np.cos(t), np.sin(t)]
    y = np.arange(30) < 20
    res = knn_label_null(V, y, k=1, n_resamples=4_000, rng=2)
    assert res.null_distribution.mean() == pytest.approx((20 * 19 + 10 * 9) / (30 * 29), abs=0.01)
    assert res.statistic > 0.9 and res.pvalue < 0.001


def test_knn_bad_input():
    with pytest.raises(ValueError, match="choose k < 4"):
        knn_neighbours(_TWO_PAIRS, k=4)
    with pytest.raises(ValueError, match="bool array"):
        knn_vote_accuracy(_TWO_PAIRS, np.array([1, 1, 0, 0]), k=1)
    with pytest.raises(ValueError, match="n_resamples"):
        knn_label_null(_TWO_PAIRS, np.array([True, True, False, False]), k=1, n_resamples=0, rng=0)
