"""Hidden tests of 06_table1: judged in the grader's process, never released (helpers/grading/judge/).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
from gensim.models import KeyedVectors

from helpers.embeddings import load_default, lookup
from helpers.grading.judge import checks as _chk
from helpers.weat import run_table1, trim_to_equal
from helpers.wordsets import weat_test, weat_tests

#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {"embeddings": ["lookup", "vectors"], "weat": ["run_table1", "run_weat", "trim_to_equal"]}


def _random_embedding(words, dim, rng) -> KeyedVectors:
    """An embedding of ``words`` (its keys, as given) with random float32 vectors."""
    kv = KeyedVectors(dim)
    kv.add_vectors(list(words), rng.normal(size=(len(words), dim)).astype(np.float32))
    return kv


def _in_vocabulary(kv, words):
    """The exercise's ``in_vocabulary``: (found, missing), each word as written, found when its lower-case form is a
    key of ``kv``; TypeError for a single string.

    The stand-in for the notebook's ``in_vocabulary`` while ``apply_oov_rule`` and ``table1_rows`` are judged (it runs
    in the kernel: NumPy, builtins and the embedding's own attributes only).
    """
    if isinstance(words, str):
        raise TypeError(f"`words` must be a list of words, not the single string {words!r}.")
    found, missing = [], []
    for word in words:
        (found if word.lower() in kv.key_to_index else missing).append(word)
    return found, missing


def _apply_oov_rule(kv, X, Y, rng):
    """The exercise's ``apply_oov_rule`` (with the course's ``in_vocabulary``), its errors included.

    The stand-in for the notebook's ``apply_oov_rule`` while ``table1_rows`` is judged (it runs in the kernel).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, not {type(rng)}.")
    x, missing_x = _in_vocabulary(kv, X)
    y, missing_y = _in_vocabulary(kv, Y)
    if not x or not y:
        raise ValueError("A target set has no word in the embedding, so the test cannot be run.")
    missing = missing_x + missing_y
    if len(x) == len(y):
        return x, y, missing, []
    larger, smaller = (x, y) if len(x) > len(y) else (y, x)
    drop = set(rng.choice(len(larger), size=len(larger) - len(smaller), replace=False).tolist())
    kept = [w for i, w in enumerate(larger) if i not in drop]
    trimmed = [w for i, w in enumerate(larger) if i in drop]
    return (kept, y, missing, trimmed) if larger is x else (x, kept, missing, trimmed)


# ---------------------------------------------------------------------------------------------------
# Exercise 1: in_vocabulary
# ---------------------------------------------------------------------------------------------------

def in_vocabulary_tests(nb, seed):
    """Hidden tests of the cell `in_vocabulary_tests`."""
    in_vocabulary = nb.in_vocabulary
    kv = load_default()
    rng = np.random.default_rng([seed, 606])

    def check(kv, words, what):
        with _chk.quiet():
            got = in_vocabulary(kv, words)
        assert isinstance(got, tuple) and len(got) == 2, "in_vocabulary should return a tuple (found, missing)."
        expected = lookup(kv, list(words), case="lower")
        assert list(got[0]) == expected.words, f"{what}: `found` is not correct."
        assert list(got[1]) == expected.missing_words, f"{what}: `missing` is not correct."

    # a small cased embedding: only the lower-case form of a word counts
    small = _random_embedding(["apple", "Berlin", "paris", "o'neil", "new-york", "zürich", "tom"], 5, rng)
    # many real words, capitalised, mixed with made-up ones, given as a tuple
    real = [kv.index_to_key[i].capitalize() for i in rng.choice(len(kv.index_to_key), 300, replace=False)]
    mixed = tuple(rng.permutation(real + [f"zq{i}xv" for i in range(40)]).tolist())
    # own work first, alone (a call of the reference raises in every check below); then each block fails alone
    with _chk.every_failure() as each:
        _chk.check_own_work(in_vocabulary, "lookup", "vectors", "run_weat", what="`in_vocabulary`")
        with each:
            _chk.check_raises(lambda: in_vocabulary(kv, "rose"), TypeError,
                              "in_vocabulary(kv, 'rose') should raise TypeError")
        with each:
            check(small, ["Apple", "Berlin", "PARIS", "O'Neil", "berlin", "Zürich", "Tom", "ghost", "new-york", "tom"],
                  "On a second, small embedding (compare the lower-case form with the keys; keep the words as written "
                  "and in order)")
        with each:
            # repeated words (found and missing ones, as written and in other cases): each is reported every time
            check(small, ["tom", "Apple", "ghost", "tom", "apple", "ghost", "Apple", "Tom", "tom"],
                  "On a list with repeated words (a word listed twice is reported twice, in its places)")
        with each:
            check(kv, mixed, "On 340 unseen words (some made up)")


# ---------------------------------------------------------------------------------------------------
# Exercise 2: apply_oov_rule
# ---------------------------------------------------------------------------------------------------

def _oov_rule(kv, X, Y, rng):
    """The reference's (x_used, y_used, missing, trimmed) for the target lists X and Y."""
    fx, fy = lookup(kv, X, case="lower"), lookup(kv, Y, case="lower")
    x, y, trimmed = trim_to_equal(fx.words, fy.words, rng)
    return x, y, fx.missing_words + fy.missing_words, trimmed


def apply_oov_rule_tests(nb, seed):
    """Hidden tests of the cell `apply_oov_rule_tests`.

    Judged with the course's ``in_vocabulary`` in place of the notebook's: a wrong ``in_vocabulary`` costs its own
    exercise."""
    apply_oov_rule = nb.apply_oov_rule.alone(in_vocabulary=_in_vocabulary)
    kv = load_default()
    flowers, insects = ["rose", "gladiola", "tulip"], ["ant", "bee", "moth"]
    t3 = weat_test(3)
    X3, Y3 = list(t3.target_x.words), list(t3.target_y.words)
    # own work first, alone (a call of the reference raises in every check below); then each block fails alone
    with _chk.every_failure() as each:
        _chk.check_own_work(apply_oov_rule, "trim_to_equal", "run_weat", "run_table1", what="`apply_oov_rule`")
        with each:
            _chk.check_raises(lambda: apply_oov_rule(kv, flowers, insects, 0), TypeError,
                              "An integer instead of a Generator should raise TypeError")
        with each:
            _chk.check_raises(lambda: apply_oov_rule(kv, ["gladiola", "zqxvw"], insects,
                                                     np.random.default_rng([seed, 0])),
                              ValueError, "A target set with no word in the embedding should raise ValueError")
        with each:  # equal sizes: nothing trimmed
            got = apply_oov_rule(kv, ["math", "algebra"], ["poetry", "art"], np.random.default_rng([seed, 1]))
            assert tuple(got) == (["math", "algebra"], ["poetry", "art"], [], []), (
                "With equal sizes and no missing word nothing should change.")
        with each:  # the full printed lists of row 3 (48 vs. 38 found): X is the larger set, 10 names trimmed
            seen = set()
            # one request; the answers checked in the order of the calls
            answers = apply_oov_rule.map((kv, X3, Y3, np.random.default_rng([seed, 3, k])) for k in range(12))
            for k in range(12):
                got = answers[k]
                x, y, missing, trimmed = _oov_rule(kv, X3, Y3, np.random.default_rng([seed, 3, k]))
                assert len(got) == 4 and len(got[0]) == len(got[1]), (
                    "x_used and y_used should have the same length (row 3, full lists).")
                assert list(got[2]) == missing, "`missing` is not correct for the full lists of row 3."
                assert list(got[0]) == x and list(got[1]) == y, (
                    "The words kept for the full lists of row 3 are not the ones the specified rng.choice call picks.")
                assert list(got[3]) == trimmed, "`trimmed` is not correct for the full lists of row 3."
                seen.add(tuple(got[3]))
            assert len(seen) > 1, "Different seeds should trim different words."
        with each:  # Y is the larger set; the result depends on rng alone (the same state twice gives the same result)
            X, Y = ["tulip", "zqxvw", "daisy", "gladiola"], ["ant", "bee", "moth", "wasp", "flea"]
            a, b = apply_oov_rule.map([(kv, X, Y, np.random.default_rng([seed, 42]))] * 2)  # two Generators, one state
            assert a == b, ("Two generators in the same state should give the same result; use `rng`, not global "
                            "randomness.")
            assert list(a[0]) == ["tulip", "daisy"] and list(a[2]) == ["zqxvw", "gladiola"], (
                "When Y is the larger set, X should keep its words and `missing` list X's missing words.")
            _, y, _, trimmed = _oov_rule(kv, X, Y, np.random.default_rng([seed, 42]))
            assert list(a[1]) == y and list(a[3]) == trimmed, (
                "When Y is the larger set, the words trimmed from Y are not correct.")
    return _chk.callee_note(apply_oov_rule, kv, X3, Y3, np.random.default_rng([seed, 3, 0]))


# ---------------------------------------------------------------------------------------------------
# Exercise 3: table1_rows
# ---------------------------------------------------------------------------------------------------

def _compare_rows(got, kv, seed, n_resamples, label):
    """``got`` (what table1_rows returned) against the reference's run_table1 with the same seed."""
    assert isinstance(got, list) and len(got) == 10, f"{label}: table1_rows should return 10 rows."
    for g, r in zip(got, run_table1(kv, n_resamples=n_resamples, seed=seed)):
        where = f"{label}, WEAT {r.test_id}"
        assert g["id"] == r.test_id, f"{label}: the rows are not in the order 1 to 10."
        assert g["n_target"] == r.n_target, f"{where}: `n_target` is not correct."
        assert g["n_attribute"] == len(r.a_words), (
            f"{where}: `n_attribute` is not correct (the words of A used, after dropping the missing ones).")
        assert list(g["missing"]) == list(r.missing_words), (
            f"{where}: `missing` is not correct (the missing words of X, Y, A and B, in this order).")
        assert list(g["trimmed"]) == list(r.trimmed_words), (
            f"{where}: `trimmed` is not correct (use one generator per test, first for the trim).")
        _chk.check_close(g["d"], r.effect_size, f"{where}: the effect size", rtol=1e-9)
        assert g["method"] == r.method, f"{where}: `method` is not correct."
        if r.method == "exact":
            _chk.check_close(g["p"], r.pvalue, f"{where}: the exact p-value", rtol=1e-9)
        else:  # the docstring fixes the generator and its state, so the same splits: p is the reference's
            # (ties are counted within a tolerance, so rounding of the scores cannot move a split across; one
            # count of slack all the same). An unseeded or other generator misses by Monte Carlo noise, many counts.
            assert abs(g["p"] - r.pvalue) <= 1 / (n_resamples + 1) + 1e-12, (
                f"{where}: the sampled p-value is not the one the docstring's generator gives (pass the same `rng`, "
                "after the trim, to permutation_test with n_resamples).")


def table1_rows_tests(nb, seed):
    """Hidden tests of the cell `table1_rows_tests`.

    Judged with the course's ``apply_oov_rule`` and ``in_vocabulary`` in place of the notebook's: a mistake in either
    costs its own exercise."""
    table1_rows = nb.table1_rows.alone(apply_oov_rule=_apply_oov_rule, in_vocabulary=_in_vocabulary)
    kv = load_default()
    rng = np.random.default_rng([seed, 6])
    # GloVe 6B with another seed
    table_seed = int(rng.integers(1, 10_000))
    # an embedding of random vectors, with some words missing, so that several rows are trimmed
    drop = {"tulip", "daisy", "jamal", "kareem", "math", "poetry", "sick", "ethel", "caress", "lucky", "executive"}
    words = sorted({w.lower() for t in weat_tests() for s in (t.target_x, t.target_y, t.attribute_a, t.attribute_b)
                    for w in s.words} - drop)
    fake = _random_embedding(words, 20, rng)
    # own work first, alone (a call of the reference raises in every check below); then each block fails alone
    with _chk.every_failure() as each:
        _chk.check_own_work(table1_rows, "run_weat", "run_table1", what="`table1_rows`")
        with each:
            got = table1_rows(kv, seed=table_seed, n_resamples=3_000)
            _compare_rows(got, kv, table_seed, 3_000, "GloVe 6B, with an unseen seed")
        with each:
            got = table1_rows(fake, seed=3, n_resamples=3_000)
            _compare_rows(got, fake, 3, 3_000, "an embedding of random vectors")
    return _chk.callee_note(table1_rows, fake, seed=3, n_resamples=200)
