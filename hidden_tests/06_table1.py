"""Hidden tests of 06_table1: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from helpers.wordsets import weat_tests, weat_test

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'embeddings': ['lookup', 'vectors'], 'weat': ['run_table1', 'run_weat', 'trim_to_equal']}

def in_vocabulary_tests(nb, seed):
    """Hidden tests of the cell `in_vocabulary_tests`."""
    in_vocabulary = nb.in_vocabulary
    kv = nb.kv
    from gensim.models import KeyedVectors as _KeyedVectors
    from helpers.embeddings import lookup as _lookup
    _chk.check_raises(lambda: in_vocabulary(kv, "rose"), TypeError, "in_vocabulary(kv, 'rose') should raise TypeError")
    # a small cased embedding: only the lower-case form of a word counts
    _rng = np.random.default_rng([seed, 606])
    _keys = ["apple", "Berlin", "paris", "o'neil", "new-york", "zürich", "tom"]
    _fake = _KeyedVectors(5)
    _fake.add_vectors(_keys, _rng.normal(size=(len(_keys), 5)).astype(np.float32))
    _words = ["Apple", "Berlin", "PARIS", "O'Neil", "berlin", "Zürich", "Tom", "ghost", "new-york", "tom"]
    with _chk.quiet():
        _got = in_vocabulary(_fake, _words)
    _ref = _lookup(_fake, _words, case="lower")
    assert isinstance(_got, tuple) and len(_got) == 2, "in_vocabulary should return a tuple (found, missing)."
    assert list(_got[0]) == _ref.words, "On a second, small embedding `found` is not correct (compare the lower-case form with the keys; keep the words as written and in order)."
    assert list(_got[1]) == _ref.missing_words, "On a second, small embedding `missing` is not correct."
    # repeated words (found and missing ones, as written and in other cases): each is reported every time, in its place
    _twice = ["tom", "Apple", "ghost", "tom", "apple", "ghost", "Apple", "Tom", "tom"]
    with _chk.quiet():
        _got = in_vocabulary(_fake, _twice)
    _ref = _lookup(_fake, _twice, case="lower")
    assert isinstance(_got, tuple) and len(_got) == 2 and list(_got[0]) == _ref.words and list(_got[1]) == _ref.missing_words, (
        "On a list with repeated words the split is not correct (a word listed twice is reported twice, in its places).")
    # many real words, capitalised, mixed with made-up ones, given as a tuple
    _real = [kv.index_to_key[i].capitalize() for i in _rng.choice(len(kv.index_to_key), 300, replace=False)]
    _fake_words = [f"zq{i}xv" for i in range(40)]
    _mixed = tuple(_rng.permutation(np.array(_real + _fake_words, dtype=object)).tolist())
    with _chk.quiet():
        _got = _chk.check_own_work(in_vocabulary, "lookup", "vectors", "run_weat", what="`in_vocabulary`",
                                   run=lambda: in_vocabulary(kv, _mixed))
    _ref = _lookup(kv, list(_mixed), case="lower")
    assert list(_got[0]) == _ref.words and list(_got[1]) == _ref.missing_words, "On 340 unseen words (some made up) the split is not correct."


def apply_oov_rule_tests(nb, seed):
    """Hidden tests of the cell `apply_oov_rule_tests`."""
    apply_oov_rule = nb.apply_oov_rule
    flowers = nb.flowers
    insects = nb.insects
    kv = nb.kv
    from helpers.embeddings import lookup as _lookup
    from helpers.weat import trim_to_equal as _trim_to_equal
    _chk.check_raises(lambda: apply_oov_rule(kv, flowers, insects, 0), TypeError, "An integer instead of a Generator should raise TypeError")
    _chk.check_raises(lambda: apply_oov_rule(kv, ["gladiola", "zqxvw"], insects, np.random.default_rng([seed, 0])), ValueError,
                 "A target set with no word in the embedding should raise ValueError")

    def _expected(X, Y, seed):
        fx, fy = _lookup(kv, X, case="lower"), _lookup(kv, Y, case="lower")
        x, y, dropped = _trim_to_equal(fx.words, fy.words, np.random.default_rng(seed))
        return x, y, fx.missing_words + fy.missing_words, sorted(dropped, key=(fx.words + fy.words).index)

    # equal sizes: nothing trimmed
    with _chk.quiet():
        _r = apply_oov_rule(kv, ["math", "algebra"], ["poetry", "art"], np.random.default_rng([seed, 1]))
    assert tuple(_r) == (["math", "algebra"], ["poetry", "art"], [], []), "With equal sizes and no missing word nothing should change."
    # the full printed lists of row 3 (48 vs. 38 found): X is the larger set, 10 names trimmed
    _t3 = weat_test(3)
    _X, _Y = list(_t3.target_x.words), list(_t3.target_y.words)
    _seen = set()
    for _seed in range(12):
        with _chk.quiet():
            _got = _chk.check_own_work(apply_oov_rule, "trim_to_equal", "run_weat", "run_table1", what="`apply_oov_rule`",
                                       run=lambda: apply_oov_rule(kv, _X, _Y, np.random.default_rng(_seed)))
        _exp = _expected(_X, _Y, _seed)
        assert len(_got) == 4 and len(_got[0]) == len(_got[1]), "x_used and y_used should have the same length (row 3, full lists)."
        assert list(_got[2]) == _exp[2], "`missing` is not correct for the full lists of row 3."
        assert list(_got[0]) == _exp[0] and list(_got[1]) == _exp[1], (
            "The words kept for the full lists of row 3 are not the ones the specified rng.choice call picks.")
        assert list(_got[3]) == _exp[3], "`trimmed` is not correct for the full lists of row 3."
        _seen.add(tuple(_got[3]))
    assert len(_seen) > 1, "Different seeds should trim different words."
    # Y is the larger set; global random state must not matter
    _Xs, _Ys = ["tulip", "zqxvw", "daisy", "gladiola"], ["ant", "bee", "moth", "wasp", "flea"]
    np.random.seed(1)
    with _chk.quiet():
        _a = apply_oov_rule(kv, _Xs, _Ys, np.random.default_rng([seed, 42]))
    np.random.seed(2)
    with _chk.quiet():
        _b = apply_oov_rule(kv, _Xs, _Ys, np.random.default_rng([seed, 42]))
    assert _a == _b, "The result should depend only on `rng`, not on NumPy's global random state."
    assert list(_a[0]) == ["tulip", "daisy"] and list(_a[2]) == ["zqxvw", "gladiola"], "When Y is the larger set, X should keep its words and `missing` list X's missing words."
    _exp = _expected(_Xs, _Ys, 42)
    assert list(_a[1]) == _exp[1] and list(_a[3]) == _exp[3], "When Y is the larger set, the words trimmed from Y are not correct."


def table1_rows_tests(nb, seed):
    """Hidden tests of the cell `table1_rows_tests`."""
    kv = nb.kv
    table1_rows = nb.table1_rows
    from gensim.models import KeyedVectors as _KeyedVectors
    from helpers.weat import run_table1 as _run_table1

    def _compare(got, ref, label, n_resamples):
        assert isinstance(got, list) and len(got) == 10, f"{label}: table1_rows should return 10 rows."
        for g, r in zip(got, ref):
            assert g["id"] == r.test_id, f"{label}: the rows are not in the order 1 to 10."
            assert g["n_target"] == r.n_target, f"{label}, WEAT {r.test_id}: `n_target` is not correct."
            assert g["n_attribute"] == len(r.a_words), (
                f"{label}, WEAT {r.test_id}: `n_attribute` is not correct (the words of A used, after dropping the missing ones).")
            assert list(g["missing"]) == list(r.missing_words), (
                f"{label}, WEAT {r.test_id}: `missing` is not correct (the missing words of X, Y, A and B, in this order).")
            assert list(g["trimmed"]) == list(r.trimmed_words), f"{label}, WEAT {r.test_id}: `trimmed` is not correct (use one generator per test, first for the trim)."
            _chk.check_close(g["d"], r.effect_size, f"{label}, WEAT {r.test_id}: the effect size", rtol=1e-9)
            assert g["method"] == r.method, f"{label}, WEAT {r.test_id}: `method` is not correct."
            if r.method == "exact":
                _chk.check_close(g["p"], r.pvalue, f"{label}, WEAT {r.test_id}: the exact p-value", rtol=1e-9)
            else:  # a sampled p-value: accept Monte Carlo noise
                band = 5 * np.sqrt(r.pvalue * (1 - r.pvalue) / n_resamples) + 5 / n_resamples
                assert abs(g["p"] - r.pvalue) <= band, f"{label}, WEAT {r.test_id}: the sampled p-value is not correct."

    # GloVe 6B with another seed
    with _chk.quiet():
        _got = _chk.check_own_work(table1_rows, "run_weat", "run_table1", what="`table1_rows`",
                                   run=lambda: table1_rows(kv, seed=11, n_resamples=3_000))
    _compare(_got, _run_table1(kv, n_resamples=3_000, seed=11), "GloVe 6B, seed 11", 3_000)
    # an embedding of random vectors, with some words missing, so that several rows are trimmed
    _rng = np.random.default_rng([seed, 6])
    _drop = {"tulip", "daisy", "jamal", "kareem", "math", "poetry", "sick", "ethel", "caress", "lucky", "executive"}
    _all = sorted({w.lower() for t in weat_tests() for s in (t.target_x, t.target_y, t.attribute_a, t.attribute_b)
                   for w in s.words} - _drop)
    _fake = _KeyedVectors(20)
    _fake.add_vectors(_all, _rng.normal(size=(len(_all), 20)).astype(np.float32))
    with _chk.quiet():
        _got = table1_rows(_fake, seed=3, n_resamples=3_000)
    _compare(_got, _run_table1(_fake, n_resamples=3_000, seed=3), "an embedding of random vectors", 3_000)
