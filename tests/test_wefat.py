"""Tests of helpers.wefat on the embedded GloVe 6B 50d: Figures 1 and 2 against independent loops."""
from __future__ import annotations

import numpy as np
import pytest

from helpers.embeddings import load_default
from helpers.wefat import run_wefat_names, run_wefat_occupations
from helpers.wordsets import wefat_names
from reference import glove_vec, ref_assoc, ref_cos


@pytest.fixture(scope="module")
def kv():
    return load_default()


def test_wefat_occupations_on_glove(kv):
    res = run_wefat_occupations(kv)
    assert res.n == 50 and res.missing_words == []
    assert res.pearson_r > 0 and res.pvalue < 1e-4
    # independent: Pearson r of the normalised association (loop) with % women
    A = [glove_vec(kv, w) for w in ("female", "woman", "girl", "sister", "she", "her", "hers", "daughter")]
    B = [glove_vec(kv, w) for w in ("male", "man", "boy", "brother", "he", "him", "his", "son")]
    scores = []
    for w in res.words:
        v = glove_vec(kv, w)
        scores.append(ref_assoc(v, A, B) / np.std([ref_cos(v, x) for x in A + B], ddof=1))
    np.testing.assert_allclose(res.scores, scores, atol=1e-9)
    assert res.pearson_r == pytest.approx(np.corrcoef(scores, res.values)[0, 1], abs=1e-9)
    assert res.ddof == 1
    # the result records ddof; with ddof = 0 every score is sqrt(16 / 15) times larger (16 attribute words)
    pop = run_wefat_occupations(kv, ddof=0)
    assert pop.ddof == 0
    np.testing.assert_allclose(pop.scores, res.scores * np.sqrt(16 / 15), rtol=1e-12)


def test_wefat_names_on_glove_after_namelike_filter(kv):
    res = run_wefat_names(kv)
    assert res.missing_words == []
    assert res.n == 40 and len(res.filtered_words) == 10  # 20% of 50 dropped
    assert not set(res.filtered_words) & set(res.words)
    assert res.pearson_r > 0 and res.pvalue < 1e-4
    # the filtered names are the 10 least similar to the centroid of the 50 unit vectors
    names, _ = wefat_names()
    U = np.array([glove_vec(kv, w) for w in names])
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    c = U.mean(axis=0)
    sim = U @ c / np.linalg.norm(c)
    least = {names[i] for i in np.argsort(sim)[:10]}
    assert least == set(res.filtered_words)
