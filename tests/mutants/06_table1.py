"""Known-wrong answers for 06_table1: the nbgrader round trip must catch each of them.

Each mutant replaces the source of one solution cell (``cell``); the test cells listed in
``fails`` must lose their points and every other test cell must keep full marks. Later exercises
call earlier ones, so a wrong ``in_vocabulary`` or ``apply_oov_rule`` also costs the later cells
that depend on it.
"""

MUTANTS = [
    {
        "name": "in_vocabulary looks words up as written (case-sensitive), so 'Einstein' and capitalised names are missing",
        "cell": "in_vocabulary",
        "source": '''def in_vocabulary(kv, words):
    if isinstance(words, str):
        raise TypeError("words must be a list")
    found = [w for w in words if w in kv.key_to_index]
    missing = [w for w in words if w not in kv.key_to_index]
    return found, missing
''',
        "fails": ["in_vocabulary_tests", "apply_oov_rule_tests", "table1_rows_tests"],
    },
    {
        "name": "in_vocabulary that calls the course's reference lookup",
        "cell": "in_vocabulary",
        "source": '''from helpers.embeddings import lookup

def in_vocabulary(kv, words):
    if isinstance(words, str):
        raise TypeError("words must be a list")
    res = lookup(kv, words, case="lower")
    return res.words, res.missing
''',
        "fails": ["in_vocabulary_tests"],
    },
    {
        "name": "OOV rule trims with NumPy's global random state instead of the rng passed in",
        "cell": "apply_oov_rule",
        "source": '''def apply_oov_rule(kv, X, Y, rng):
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a Generator")
    x, missing_x = in_vocabulary(kv, X)
    y, missing_y = in_vocabulary(kv, Y)
    if not x or not y:
        raise ValueError("empty target set")
    missing = missing_x + missing_y
    if len(x) == len(y):
        return x, y, missing, []
    larger, smaller = (x, y) if len(x) > len(y) else (y, x)
    drop = set(np.random.choice(len(larger), size=len(larger) - len(smaller), replace=False).tolist())
    kept = [w for i, w in enumerate(larger) if i not in drop]
    trimmed = [w for i, w in enumerate(larger) if i in drop]
    return (kept, y, missing, trimmed) if larger is x else (x, kept, missing, trimmed)
''',
        "fails": ["apply_oov_rule_tests", "table1_rows_tests"],
    },
    {
        "name": "OOV rule cuts the larger set to size by dropping its last words (not at random)",
        "cell": "apply_oov_rule",
        "source": '''def apply_oov_rule(kv, X, Y, rng):
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a Generator")
    x, missing_x = in_vocabulary(kv, X)
    y, missing_y = in_vocabulary(kv, Y)
    if not x or not y:
        raise ValueError("empty target set")
    n = min(len(x), len(y))
    trimmed = x[n:] + y[n:]
    return x[:n], y[:n], missing_x + missing_y, trimmed
''',
        "fails": ["apply_oov_rule_tests", "table1_rows_tests"],
    },
    {
        "name": "OOV rule drops the missing words but never trims (sets of unequal size)",
        "cell": "apply_oov_rule",
        "source": '''def apply_oov_rule(kv, X, Y, rng):
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a Generator")
    x, missing_x = in_vocabulary(kv, X)
    y, missing_y = in_vocabulary(kv, Y)
    if not x or not y:
        raise ValueError("empty target set")
    return x, y, missing_x + missing_y, []
''',
        "fails": ["apply_oov_rule_tests", "table1_rows_tests"],
    },
    {
        "name": "table1_rows with the population standard deviation (ddof=0)",
        "cell": "table1_rows",
        "source": '''def table1_rows(kv, *, seed=0, n_resamples=20_000):
    def vec(words):
        return np.array([kv[w.lower()] for w in words], dtype=np.float64)
    rows = []
    for t in weat_tests():
        rng = np.random.default_rng([seed, t.id])
        x, y, missing, trimmed = apply_oov_rule(kv, t.target_x.used_by_paper, t.target_y.used_by_paper, rng)
        a, missing_a = in_vocabulary(kv, t.attribute_a.used_by_paper)
        b, missing_b = in_vocabulary(kv, t.attribute_b.used_by_paper)
        A, B = vec(a), vec(b)
        sx, sy = association(vec(x), A, B), association(vec(y), A, B)
        d = effect_size_from_scores(sx, sy, ddof=0)
        test = permutation_test(sx, sy, alternative="greater", method="auto", n_resamples=n_resamples, rng=rng)
        rows.append({"id": t.id, "targets": f"{t.target_x.name} vs. {t.target_y.name}",
                     "attributes": f"{t.attribute_a.name} vs. {t.attribute_b.name}",
                     "n_target": len(x), "n_attribute": len(a), "iat_d": t.original["d"], "iat_p": t.original["p"],
                     "paper_d": t.paper["d"], "paper_p": t.paper["p"], "d": float(d), "p": float(test.pvalue),
                     "method": test.method, "missing": missing + missing_a + missing_b, "trimmed": trimmed})
    return rows
''',
        "fails": ["table1_rows_tests"],
    },
    {
        "name": "table1_rows with the full printed word lists instead of the words the paper used",
        "cell": "table1_rows",
        "source": '''def table1_rows(kv, *, seed=0, n_resamples=20_000):
    def vec(words):
        return np.array([kv[w.lower()] for w in words], dtype=np.float64)
    rows = []
    for t in weat_tests():
        rng = np.random.default_rng([seed, t.id])
        x, y, missing, trimmed = apply_oov_rule(kv, list(t.target_x.words), list(t.target_y.words), rng)
        a, missing_a = in_vocabulary(kv, t.attribute_a.words)
        b, missing_b = in_vocabulary(kv, t.attribute_b.words)
        A, B = vec(a), vec(b)
        sx, sy = association(vec(x), A, B), association(vec(y), A, B)
        d = effect_size_from_scores(sx, sy, ddof=1)
        test = permutation_test(sx, sy, alternative="greater", method="auto", n_resamples=n_resamples, rng=rng)
        rows.append({"id": t.id, "targets": f"{t.target_x.name} vs. {t.target_y.name}",
                     "attributes": f"{t.attribute_a.name} vs. {t.attribute_b.name}",
                     "n_target": len(x), "n_attribute": len(a), "iat_d": t.original["d"], "iat_p": t.original["p"],
                     "paper_d": t.paper["d"], "paper_p": t.paper["p"], "d": float(d), "p": float(test.pvalue),
                     "method": test.method, "missing": missing + missing_a + missing_b, "trimmed": trimmed})
    return rows
''',
        "fails": ["table1_rows_tests"],
    },
    {
        "name": "table1_rows that calls the course's reference run_table1",
        "cell": "table1_rows",
        "source": '''from helpers.weat import run_table1

def table1_rows(kv, *, seed=0, n_resamples=20_000):
    rows = []
    for t, r in zip(weat_tests(), run_table1(kv, seed=seed, n_resamples=n_resamples)):
        rows.append({"id": t.id, "targets": f"{t.target_x.name} vs. {t.target_y.name}",
                     "attributes": f"{t.attribute_a.name} vs. {t.attribute_b.name}",
                     "n_target": r.n_target, "n_attribute": len(r.a_words), "iat_d": t.original["d"],
                     "iat_p": t.original["p"], "paper_d": t.paper["d"], "paper_p": t.paper["p"],
                     "d": float(r.effect_size), "p": float(r.pvalue), "method": r.method,
                     "missing": r.missing_words, "trimmed": r.trimmed_words})
    return rows
''',
        "fails": ["table1_rows_tests"],
    },
    {
        "name": "in_vocabulary that imports the reference lookup inside the function (invisible to check_own_work)",
        "cell": "in_vocabulary",
        "source": '''def in_vocabulary(kv, words):
    from helpers.embeddings import lookup
    if isinstance(words, str):
        raise TypeError("words must be a list")
    res = lookup(kv, list(words), case="lower")
    return res.words, res.missing
''',
        "fails": ["in_vocabulary_tests"],
    },
    {
        "name": "apply_oov_rule that imports the reference trim_to_equal inside the function",
        "cell": "apply_oov_rule",
        "source": '''def apply_oov_rule(kv, X, Y, rng):
    from helpers.weat import trim_to_equal
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a Generator")
    x, missing_x = in_vocabulary(kv, X)
    y, missing_y = in_vocabulary(kv, Y)
    if not x or not y:
        raise ValueError("empty target set")
    x, y, dropped = trim_to_equal(x, y, rng)
    return x, y, missing_x + missing_y, dropped
''',
        "fails": ["apply_oov_rule_tests"],
    },
]
