"""Hidden checks a review of ``hidden_tests/`` found too weak, missing or reported wrongly: each answer below is wrong
in a way the old checks let through (or blamed on the wrong thing), and its hidden test, run in the grader's process
against the course's kernel runtime, must now name each of its mistakes, and only those.
"""
import pytest

from test_hidden_every_failure import _messages
from test_judge import _solution_functions


def _edited(assignment: str, names: tuple, edits: list, imports: str = "") -> str:
    """The worked solution's functions ``names`` with each ``(old, new)`` of ``edits`` made once."""
    source = imports + _solution_functions(assignment, *names)
    for old, new in edits:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


#: 06's table1_rows that leaves the generator out of permutation_test (a fresh, unseeded one draws the splits).
#: The old check accepted any p within five Monte Carlo standard errors of the reference's.
UNSEEDED_TABLE1_ROWS = _edited(
    "06_table1", ("in_vocabulary", "apply_oov_rule", "table1_rows"),
    [("method=\"auto\", n_resamples=n_resamples, rng=rng)", "method=\"auto\", n_resamples=n_resamples)")],
    "from helpers.statistics import association, effect_size_from_scores, permutation_test\n"
    "from helpers.wordsets import weat_tests\n")

#: 12's cooccurrence_counts sized by the largest index that occurs, not by n_words. The old check compared only the
#: first 9 x 9 block of the 11-word result.
SIZED_BY_IDS = _edited("12_bias_from_corpora", ("cooccurrence_counts",), [
    ("counts = np.bincount(a * n_words + b, minlength=n_words * n_words).reshape(n_words, n_words)",
     "m = int(ids.max()) + 1\n    counts = np.bincount(a * m + b, minlength=m * m).reshape(m, m)")])

#: 07's wefat_correlation without the "dropped" key: the old check read the key and blamed the student's code for
#: the KeyError ("Your code raised").
NO_DROPPED_KEY = _edited("07_wefat", ("wefat_score", "drop_least_namelike", "wefat_correlation"),
                         [(', "missing": missing, "dropped": dropped}', ', "missing": missing}')],
                         "from scipy.stats import linregress, pearsonr\n"
                         "from helpers.wordsets import FEMALE_TERMS, MALE_TERMS\n")

#: 10's load_lexicon that also returns the words it read: the old test's own unpacking raised, blamed on the student.
THREE_LISTS = _edited("10_lexicon_weat", ("load_lexicon",), [("return found, missing", "return found, missing, words")],
                      "import csv\n")

#: 12's cooccurrence_counts that skips every negative index (not only -1) and accepts 2-D ids: the hidden test named
#: "every error of the docstring" but had no case of either.
LOOSE_COUNTS = _edited("12_bias_from_corpora", ("cooccurrence_counts",), [
    ("if ids.ndim != 1 or ids.shape != sentence.shape:", "if ids.size != sentence.size:"), ("ids.min() < -1 or ", "")])

#: 12's ppmi that refuses NaN but not infinity.
INFINITE_PPMI = _edited("12_bias_from_corpora", ("ppmi",), [
    ("if not np.isfinite(C).all() or (C < 0).any():", "if np.isnan(C).any() or (C < 0).any():")])

#: 04's effect_size that ignores ddof (always N - 1): the hint of the doubled-scores check named only the numerator.
FIXED_DDOF = _edited("04_effect_size", ("effect_size",), [("sd = pooled.std(ddof=ddof)", "sd = pooled.std(ddof=1)")])


@pytest.mark.parametrize("notebook, test, source, expected", [
    ("12_bias_from_corpora", "cooccurrence_counts_tests", SIZED_BY_IDS, ["n_words 11, larger than the 9 words"]),
    ("07_wefat", "wefat_correlation_tests", NO_DROPPED_KEY,
     ["The 50 occupations: the result lacks the key(s) 'dropped'.", "The 50 names, fraction 0.2: the result lacks",
      "The 50 names, fraction 0.3: the result lacks", "Flower names with other attribute sets: the result lacks"]),
    ("12_bias_from_corpora", "cooccurrence_counts_tests", LOOSE_COUNTS,
     ["An index below -1 should raise ValueError", "ids and sentence given as columns (2-D arrays)"]),
    ("12_bias_from_corpora", "ppmi_tests", INFINITE_PPMI, ["An infinite count should raise ValueError"]),
    ("10_lexicon_weat", "load_lexicon_tests", THREE_LISTS,
     ["load_lexicon should return two lists, (found, missing), not tuple of 3.", "not tuple of 3."]),
], ids=["12-sized-by-ids", "07-missing-key", "12-loose-errors", "12-ppmi-infinity", "10-three-lists"])
def test_a_hidden_check_names_the_mistake_it_was_too_weak_for(notebook, test, source, expected):
    messages = _messages(notebook, test, source)
    assert len(messages) == len(expected), messages
    for message, part in zip(messages, expected):
        assert part in message and "Your code raised" not in message, (part, messages)


#: 06's table1_rows with the population standard deviation: a failure on GloVe 6B, whose seed is hidden.
DDOF0_TABLE1_ROWS = _edited(
    "06_table1", ("in_vocabulary", "apply_oov_rule", "table1_rows"),
    [("        d = effect_size_from_scores(sx, sy, ddof=1)", "        d = effect_size_from_scores(sx, sy, ddof=0)")],
    "from helpers.statistics import association, effect_size_from_scores, permutation_test\n"
    "from helpers.wordsets import weat_tests\n")


def test_table1_rows_messages_name_no_hidden_seed():
    messages = _messages("06_table1", "table1_rows_tests", DDOF0_TABLE1_ROWS, seed=5)
    assert messages[0].startswith("GloVe 6B, with an unseen seed, WEAT 1: the effect size"), messages


def test_table1_rows_with_an_unseeded_generator_loses_its_point():
    """Its p-values are random: on GloVe 6B most sampled rows have p near 0 whatever the generator (they may pass),
    while the random embedding's moderate p-values miss the reference's by many counts."""
    messages = _messages("06_table1", "table1_rows_tests", UNSEEDED_TABLE1_ROWS)
    assert any(m.startswith("an embedding of random vectors, WEAT") for m in messages), messages
    assert all("the sampled p-value is not the one the docstring's generator gives" in m for m in messages), messages


def test_the_doubled_scores_hint_names_ddof_as_well():
    messages = _messages("04_effect_size", "effect_size_tests", FIXED_DDOF)
    doubled = [m for m in messages if "repeated twice" in m]
    assert doubled and "pass ddof on" in doubled[0], messages
