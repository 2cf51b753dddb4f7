"""Known-wrong answers to 06_table1 that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``apply_oov_rule`` calls ``in_vocabulary``, and ``table1_rows`` calls both. Each is judged on its own (issue 42): the
hidden tests call it with the course's version of its callees in place of the student's, and the visible checks of
``apply_oov_rule`` give it ``in_vocabulary``'s values for their word lists (``known_values``), so a mistake costs its
own exercise. ``table1_rows``'s visible checks run the ten WEATs of Table 1 (about thirty calls of the two callees on
the paper's word lists, with random trims): too many values to write out by hand, so they still use the student's
functions, and a mistake that makes those raise or changes row 1's counts (``in_vocabulary`` that is case-sensitive or
calls the reference ``lookup``; ``apply_oov_rule`` that never trims or calls ``trim_to_equal``) still costs
``table1_rows_tests`` too. A mutant whose loss changed says so: ``was`` lists the cells it lost before, along the chain.
"""

_EQUAL = "    if len(x) == len(y):\n        return x, y, missing, []\n"
_FOUND = "return found, missing"
_IMPORT_LOOKUP = ("from helpers.embeddings import lookup\n"
                  "\n"
                  "def in_vocabulary(")
_CALL_LOOKUP = ('res = lookup(kv, words, case="lower")\n'
                "    return res.words, res.missing_words")
_CUT_LAST_WORDS = ("    n = min(len(x), len(y))\n"
                   "    return x[:n], y[:n], missing, x[n:] + y[n:]\n")
_WRAP_RUN_TABLE1 = ("from helpers.weat import run_table1\n"
                    "\n"
                    "def table1_rows(kv, *, seed=0, n_resamples=20_000):\n"
                    "    rows = []\n"
                    "    for t, r in zip(weat_tests(), run_table1(kv, seed=seed, n_resamples=n_resamples)):\n"
                    '        rows.append({"id": t.id, "targets": f"{t.target_x.name} vs. {t.target_y.name}",\n'
                    '                     "attributes": f"{t.attribute_a.name} vs. {t.attribute_b.name}",\n'
                    '                     "n_target": r.n_target, "n_attribute": len(r.a_words), "iat_d": t.original["d"],\n'
                    '                     "iat_p": t.original["p"], "paper_d": t.paper["d"], "paper_p": t.paper["p"],\n'
                    '                     "d": float(r.effect_size), "p": float(r.pvalue), "method": r.method,\n'
                    '                     "missing": r.missing_words, "trimmed": r.trimmed_words})\n'
                    "    return rows\n")
_LOOKUP_INSIDE = ("from helpers.embeddings import lookup\n"
                  '    res = lookup(kv, list(words), case="lower")\n'
                  "    return res.words, res.missing_words")
_TRIM_INSIDE = ("    from helpers.weat import trim_to_equal\n"
                "    x, y, dropped = trim_to_equal(x, y, rng)\n"
                "    return x, y, missing, dropped\n")

_DROP = "drop = set(rng.choice(len(larger), size=len(larger) - len(smaller), replace=False).tolist())"
_KEEP_DRAWN = ("keep = set(rng.choice(len(larger), size=len(smaller), replace=False).tolist())\n"
               "    drop = set(range(len(larger))) - keep")
_TRIMMED = "trimmed = [w for i, w in enumerate(larger) if i in drop]"
_DRAW_ORDER = ("order = rng.choice(len(larger), size=len(larger) - len(smaller), replace=False).tolist()\n"
               "    drop = set(order)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "in_vocabulary looks words up as written (case-sensitive), so 'Einstein' and capitalised names are missing", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests", "table1_rows_tests"], "was": ["apply_oov_rule_tests", "in_vocabulary_tests", "table1_rows_tests"], "replace": [("if word.lower() in kv.key_to_index:", "if word in kv.key_to_index:")]},
    # the judged kernel has no working lookup or trim_to_equal (REFERENCES of hidden_tests/06_table1.py): a mutant that
    # calls one raises, also in table1_rows' visible checks, which run the student's functions (see above)
    {"name": "in_vocabulary that calls the course's reference lookup", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests", "table1_rows_tests"], "was": ["apply_oov_rule_tests", "in_vocabulary_tests", "table1_rows_tests"], "replace": [("def in_vocabulary(", _IMPORT_LOOKUP), (_FOUND, _CALL_LOOKUP)]},
    {"name": "OOV rule trims with NumPy's global random state instead of the rng passed in", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests"], "was": ["apply_oov_rule_tests", "table1_rows_tests"], "replace": [("drop = set(rng.choice(", "drop = set(np.random.choice(")]},
    {"name": "OOV rule cuts the larger set to size by dropping its last words (not at random)", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests"], "was": ["apply_oov_rule_tests", "table1_rows_tests"], "replace": [(_EQUAL, _CUT_LAST_WORDS)]},
    {"name": "OOV rule drops the missing words but never trims (sets of unequal size)", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests", "table1_rows_tests"], "replace": [(_EQUAL, "    return x, y, missing, []\n")]},
    {"name": "table1_rows with the population standard deviation (ddof=0)", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [("\n        d = effect_size_from_scores(sx, sy, ddof=1)", "\n        d = effect_size_from_scores(sx, sy, ddof=0)")]},
    {"name": "table1_rows with the full printed word lists instead of the words the paper used", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [("apply_oov_rule(kv, t.target_x.used_by_paper, t.target_y.used_by_paper, rng)", "apply_oov_rule(kv, list(t.target_x.words), list(t.target_y.words), rng)"), ("in_vocabulary(kv, t.attribute_a.used_by_paper)", "in_vocabulary(kv, t.attribute_a.words)"), ("in_vocabulary(kv, t.attribute_b.used_by_paper)", "in_vocabulary(kv, t.attribute_b.words)")]},
    {"name": "table1_rows whose permutation tests draw from a fresh unseeded generator (rng not passed on)", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [('method="auto", n_resamples=n_resamples, rng=rng)', 'method="auto", n_resamples=n_resamples)')]},
    {"name": "table1_rows that calls the course's reference run_table1", "cell": "table1_rows", "fails": ["table1_rows_tests"], "source": _WRAP_RUN_TABLE1},
    # these two also raise in the judged kernel (see above), in table1_rows' visible checks too
    {"name": "in_vocabulary that imports the reference lookup inside the function", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests", "table1_rows_tests"], "was": ["apply_oov_rule_tests", "in_vocabulary_tests", "table1_rows_tests"], "replace": [(_FOUND, _LOOKUP_INSIDE)]},
    {"name": "apply_oov_rule that imports the reference trim_to_equal inside the function", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests", "table1_rows_tests"], "replace": [(_EQUAL, _TRIM_INSIDE)]},
    {"name": "in_vocabulary reports the lower-case form instead of the word as written", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests"], "was": ["apply_oov_rule_tests", "in_vocabulary_tests", "table1_rows_tests"], "replace": [("found.append(word)", "found.append(word.lower())")]},
    {"name": "in_vocabulary also accepts a word whose written (cased) form is a key", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests"], "replace": [("if word.lower() in kv.key_to_index:", "if word in kv.key_to_index or word.lower() in kv.key_to_index:")]},
    {"name": "in_vocabulary without the TypeError for a single string (looks up its letters)", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests"], "replace": [("        raise TypeError(", "        pass  # raise TypeError(")]},
    {"name": "in_vocabulary drops repeated words, keeping the first (loops over dict.fromkeys(words))", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests"], "replace": [("for word in words:", "for word in dict.fromkeys(words):")]},
    {"name": "in_vocabulary loops over set(words) (repeated words dropped, order lost)", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests"], "was": ["apply_oov_rule_tests", "in_vocabulary_tests", "table1_rows_tests"], "replace": [("for word in words:", "for word in set(words):")]},
    {"name": "in_vocabulary loops over sorted(set(words)) (repeated words dropped, output sorted)", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests"], "was": ["apply_oov_rule_tests", "in_vocabulary_tests", "table1_rows_tests"], "replace": [("for word in words:", "for word in sorted(set(words)):")]},
    {"name": "in_vocabulary returns the lists sorted (order of words lost)", "cell": "in_vocabulary", "fails": ["in_vocabulary_tests"], "was": ["apply_oov_rule_tests", "in_vocabulary_tests", "table1_rows_tests"], "replace": [(_FOUND, "return sorted(found), sorted(missing)")]},
    {"name": "OOV rule draws the positions to drop with replacement (sets can stay unequal)", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests"], "was": ["apply_oov_rule_tests", "table1_rows_tests"], "replace": [("replace=False).tolist())", "replace=True).tolist())")]},
    {"name": "OOV rule draws the words to keep instead of the words to drop", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests"], "was": ["apply_oov_rule_tests", "table1_rows_tests"], "replace": [(_DROP, _KEEP_DRAWN)]},
    {"name": "OOV rule lists the trimmed words in the order drawn, not their original order", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests"], "was": ["apply_oov_rule_tests", "table1_rows_tests"], "replace": [(_DROP, _DRAW_ORDER), (_TRIMMED, "trimmed = [larger[i] for i in order]")]},
    {"name": "OOV rule without the TypeError for an integer seed", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests"], "replace": [("        raise TypeError(", "        rng = np.random.default_rng(rng)  # raise TypeError(")]},
    {"name": "OOV rule without the ValueError for a target set with no word in the embedding", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests"], "replace": [("        raise ValueError(", "        pass  # raise ValueError(")]},
    {"name": "OOV rule lists Y's missing words before X's", "cell": "apply_oov_rule", "fails": ["apply_oov_rule_tests"], "was": ["apply_oov_rule_tests", "table1_rows_tests"], "replace": [("missing = missing_x + missing_y", "missing = missing_y + missing_x")]},
    {"name": "table1_rows seeds every test's generator with the seed alone (ignores t.id)", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [("        rng = np.random.default_rng([seed, t.id])", "        rng = np.random.default_rng(seed)")]},
    {"name": "table1_rows with the two-sided p-value instead of the paper's one-sided one", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [('test = permutation_test(sx, sy, alternative="greater"', 'test = permutation_test(sx, sy, alternative="two-sided"')]},
    {"name": "table1_rows with X and Y swapped in the effect size (sign of d reversed)", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [("        d = effect_size_from_scores(sx, sy, ddof=1)", "        d = effect_size_from_scores(sy, sx, ddof=1)")]},
    {"name": "table1_rows leaves the attributes' missing words out of `missing`", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [('"missing": missing + missing_a + missing_b', '"missing": missing')]},
    {"name": "table1_rows lists the attributes' missing words before those of the targets", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [('"missing": missing + missing_a + missing_b', '"missing": missing_a + missing_b + missing')]},
    {"name": "table1_rows reports |A| + |B| as n_attribute", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [('"n_attribute": len(a)', '"n_attribute": len(a) + len(b)')]},
    {"name": "table1_rows reports the size of A before its missing words are dropped as n_attribute", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [('"n_attribute": len(a)', '"n_attribute": len(t.attribute_a.used_by_paper)')]},
    {"name": "table1_rows looks the vectors up as written (capitalised names raise KeyError)", "cell": "table1_rows", "fails": ["table1_rows_tests"], "replace": [("[kv[w.lower()] for w", "[kv[w] for w")]},
]
