"""Tests of helpers.weat on the embedded GloVe 6B 50d: whole WEATs against independent loops,
the paper's out-of-vocabulary rule, Table 1 and bad input."""
from __future__ import annotations

from math import comb

import numpy as np
import pytest

from helpers.embeddings import load_default
from helpers.weat import run_table1, run_weat, trim_to_equal
from helpers.wordsets import weat_test
from reference import brute_force_p, glove_vec, ref_assoc, ref_effect


@pytest.fixture(scope="module")
def kv():
    return load_default()


def test_run_weat_matches_independent_computation_on_glove(kv):
    # WEAT 6 (8 + 8 words, all in GloVe 6B): effect size by double loops, p by brute force
    t = weat_test(6)
    X, Y, A, B = ([glove_vec(kv, w) for w in s.words] for s in (t.target_x, t.target_y, t.attribute_a, t.attribute_b))
    res = run_weat(kv, t.target_x.words, t.target_y.words, t.attribute_a.words, t.attribute_b.words)
    assert res.method == "exact" and res.n_resamples == comb(16, 8) == 12870
    assert res.missing_words == [] and res.trimmed_words == []
    assert res.effect_size == pytest.approx(ref_effect(X, Y, A, B, ddof=1), abs=1e-9)
    sx = [ref_assoc(x, A, B) for x in X]
    sy = [ref_assoc(y, A, B) for y in Y]
    assert res.statistic == pytest.approx(sum(sx) - sum(sy), abs=1e-9)
    want_p, _ = brute_force_p(sx, sy)
    assert res.pvalue == pytest.approx(want_p, abs=1e-12)
    res0 = run_weat(kv, t.target_x.words, t.target_y.words, t.attribute_a.words, t.attribute_b.words, ddof=0)
    assert res0.effect_size == pytest.approx(ref_effect(X, Y, A, B, ddof=0), abs=1e-9)


def test_run_weat_oov_rule_drops_reports_and_trims(kv):
    # WEAT 1: "gladiola" is not in GloVe 6B -> dropped and reported; one insect trimmed at random
    t = weat_test(1)
    args = (t.target_x.words, t.target_y.words, t.attribute_a.words, t.attribute_b.words)
    res = run_weat(kv, *args, rng=0, n_resamples=2000)
    assert res.missing_words == ["gladiola"]
    assert "gladiola" not in res.x_words
    assert len(res.x_words) == len(res.y_words) == 24
    assert len(res.trimmed_words) == 1
    assert res.trimmed_words[0] in t.target_y.words and res.trimmed_words[0] not in res.y_words
    assert sorted(res.y_words + res.trimmed_words) == sorted(t.target_y.words)
    assert res.y_words == [w for w in t.target_y.words if w not in res.trimmed_words]  # order kept
    # seeded and reproducible
    again = run_weat(kv, *args, rng=0, n_resamples=2000)
    assert again.trimmed_words == res.trimmed_words and again.pvalue == res.pvalue
    # the choice is random: different seeds drop different insects
    dropped = {run_weat(kv, *args, rng=s, n_resamples=10).trimmed_words[0] for s in range(12)}
    assert len(dropped) > 1


def test_run_weat_oov_in_y_trims_x(kv):
    X = ["rose", "tulip", "daisy", "lily"]
    Y = ["ant", "flea", "zzqxjunkword", "qqwwyyzz"]
    A, B = ["love", "peace", "happy"], ["death", "murder", "filth"]
    res = run_weat(kv, X, Y, A, B, rng=1)
    assert res.missing_words == ["zzqxjunkword", "qqwwyyzz"]
    assert len(res.x_words) == len(res.y_words) == 2
    assert len(res.trimmed_words) == 2 and set(res.trimmed_words) <= set(X)
    assert set(res.x_words) | set(res.trimmed_words) == set(X)


def test_trim_to_equal_is_seeded():
    x, y = list("abcdefgh"), list("xyz")
    a = trim_to_equal(x, y, np.random.default_rng(4))
    b = trim_to_equal(x, y, np.random.default_rng(4))
    assert a == b
    kept, same_y, dropped = a
    assert same_y == y and len(kept) == 3 and len(dropped) == 5 and sorted(kept + dropped) == x
    assert trim_to_equal(y, y[::-1], np.random.default_rng(0)) == (y, y[::-1], [])
    # a seed, as everywhere in the library (statistics.resolve_rng), draws what default_rng(seed) draws
    assert trim_to_equal(x, y, 4) == a
    with pytest.raises(TypeError, match="rng must be a seed"):
        trim_to_equal(x, y, 4.0)


def test_run_weat_bad_input(kv):
    A, B = ["love", "peace"], ["death", "filth"]
    with pytest.raises(ValueError, match=r"\['rose'\] appear\(s\) in both target sets X and Y"):
        run_weat(kv, ["rose", "tulip"], ["rose", "ant"], A, B)
    with pytest.raises(ValueError, match="both attribute sets"):
        run_weat(kv, ["rose"], ["ant"], ["love", "death"], ["death"])
    with pytest.raises(ValueError, match="target set X is empty"):
        run_weat(kv, [], ["ant"], A, B)
    with pytest.raises(ValueError, match="more than once"):
        run_weat(kv, ["rose", "rose"], ["ant", "flea"], A, B)
    with pytest.raises(KeyError, match="zzqxjunkword"):
        run_weat(kv, ["rose", "zzqxjunkword"], ["ant", "flea"], A, B, on_missing="raise")
    with pytest.raises(ValueError, match="None of the words of set Y"):
        run_weat(kv, ["rose"], ["zzqxjunkword"], A, B)
    with pytest.raises(TypeError, match="single string"):
        run_weat(kv, "rose", ["ant"], A, B)
    with pytest.raises(ValueError, match="alternative must be one of"):
        run_weat(kv, ["rose", "tulip"], ["ant", "flea"], A, B, alternative="larger")
    with pytest.raises(ValueError, match="n_resamples must be a positive"):
        run_weat(kv, ["rose", "tulip"], ["ant", "flea"], A, B, n_resamples=0)


def test_run_table1_all_ten_in_the_papers_direction(kv):
    results = run_table1(kv, n_resamples=20_000, seed=0)
    assert [r.test_id for r in results] == list(range(1, 11))
    for r in results:
        spec = weat_test(r.test_id)
        assert r.effect_size > 0, r
        assert r.pvalue < 0.05, r
        assert len(r.x_words) == len(r.y_words)
        # set sizes: Table 1's N_T minus what GloVe 6B lacks (only gladiola, in WEAT 1)
        assert len(r.x_words) == spec.paper["n_target"] - (1 if r.test_id == 1 else 0)
        if r.method == "sampled":
            assert r.n_resamples == 20_000 and r.pvalue >= 1 / 20_001
        else:
            assert r.n_resamples == comb(2 * len(r.x_words), len(r.x_words))
    again = run_table1(kv, n_resamples=20_000, seed=0)
    assert [r.pvalue for r in again] == [r.pvalue for r in results]
