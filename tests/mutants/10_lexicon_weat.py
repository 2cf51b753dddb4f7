"""Known-wrong answers to 10_lexicon_weat that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

The two exercises are independent (the hidden tests build their own inputs), so every mutant loses
exactly its own exercise's test cell.
"""

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    # Exercise 1: load_lexicon
    {"name": "words not lower-cased (case handling)", "cell": "load_lexicon", "fails": ["load_lexicon_tests"], "replace": [('r["word"].strip().lower()', 'r["word"].strip()')]},
    {"name": "words not stripped of spaces", "cell": "load_lexicon", "fails": ["load_lexicon_tests"], "replace": [('r["word"].strip().lower()', 'r["word"].lower()')]},
    {"name": "a word listed twice is kept twice", "cell": "load_lexicon", "fails": ["load_lexicon_tests"], "replace": [("words = list(dict.fromkeys(w for w in words if w))", "words = [w for w in words if w]")]},
    {"name": "out-of-vocabulary words kept in the found list", "cell": "load_lexicon", "fails": ["load_lexicon_tests"], "replace": [("found = [w for w in words if w in vocabulary]", "found = list(words)")]},
    {"name": "words sorted alphabetically instead of the file's order", "cell": "load_lexicon", "fails": ["load_lexicon_tests"], "replace": [("words = list(dict.fromkeys(w for w in words if w))", "words = sorted(set(w for w in words if w))")]},
    {"name": "category matched as a substring ('work' matches 'homework')", "cell": "load_lexicon", "fails": ["load_lexicon_tests"], "replace": [('if r["category"] == category]', 'if category in r["category"]]')]},
    {"name": "no error when no word of the category is in the vocabulary", "cell": "load_lexicon", "fails": ["load_lexicon_tests"], "replace": [("    if not found:\n", "    if found is None:\n")]},
    # Exercise 2: large_list_effect_size
    {"name": "sums over the attribute sets instead of means (|A| != |B|)", "cell": "large_list_effect_size", "fails": ["large_list_effect_size_tests"], "replace": [("w = Au.mean(axis=0) - Bu.mean(axis=0)", "w = Au.sum(axis=0) - Bu.sum(axis=0)")]},
    {"name": "sums over the target sets instead of means (|X| != |Y|)", "cell": "large_list_effect_size", "fails": ["large_list_effect_size_tests"], "replace": [("(sx.mean() - sy.mean()) / sd", "(sx.sum() - sy.sum()) / sd")]},
    {"name": "population standard deviation (ddof = 0)", "cell": "large_list_effect_size", "fails": ["large_list_effect_size_tests"], "replace": [("np.concatenate([sx, sy]).std(ddof=1)", "np.concatenate([sx, sy]).std()")]},
    {"name": "wrong sign (Y minus X)", "cell": "large_list_effect_size", "fails": ["large_list_effect_size_tests"], "replace": [("(sx.mean() - sy.mean()) / sd", "(sy.mean() - sx.mean()) / sd")]},
    {"name": "dot products instead of cosines (vectors not normalised)", "cell": "large_list_effect_size", "fails": ["large_list_effect_size_tests"], "replace": [("Xu, Yu, Au, Bu = (S / n for S, n in zip(sets, norms))", "Xu, Yu, Au, Bu = sets")]},
    {"name": "normalised along the wrong axis (columns instead of rows)", "cell": "large_list_effect_size", "fails": ["large_list_effect_size_tests"], "replace": [("norms = [np.linalg.norm(S, axis=1, keepdims=True) for S in sets]", "norms = [np.linalg.norm(S, axis=0, keepdims=True) for S in sets]")]},
    {"name": "standard deviation of X's scores only", "cell": "large_list_effect_size", "fails": ["large_list_effect_size_tests"], "replace": [("np.concatenate([sx, sy]).std(ddof=1)", "sx.std(ddof=1)")]},
    {"name": "Cohen's pooled standard deviation (mean of the two variances) instead of the WEAT's", "cell": "large_list_effect_size", "fails": ["large_list_effect_size_tests"], "replace": [("np.concatenate([sx, sy]).std(ddof=1)", "np.sqrt((sx.var(ddof=1) + sy.var(ddof=1)) / 2)")]},
]
