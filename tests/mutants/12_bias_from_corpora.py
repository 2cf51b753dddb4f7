"""Known-wrong answers to 12_bias_from_corpora that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

The three exercises are independent (the analysis cells use them, but no graded cell calls another
exercise), so each mutant loses its own cell only.
"""

_RETURN_COUNTS = "return (counts + counts.T).astype(np.float64)"
_KEEP = "keep = (sentence[first] == sentence[second]) & (ids[first] >= 0) & (ids[second] >= 0)"
_PAIRS = ("    first = np.arange(ids.size)[:, None]\n"
          "    second = first + np.arange(1, window + 1)[None, :]\n"
          "    inside = second < ids.size\n"
          "    first, second = np.broadcast_to(first, second.shape)[inside], second[inside]\n")
_PAIRS_LOOP = ("    firsts, seconds = [], []\n"
               "    for k in range(1, window + 1):\n"
               "        firsts.append(np.arange(ids.size - k))\n"
               "        seconds.append(np.arange(k, ids.size))\n"
               "    first = np.concatenate(firsts) if firsts else np.zeros(0, np.int64)\n"
               "    second = np.concatenate(seconds) if seconds else np.zeros(0, np.int64)\n")
_DROP_OOV = ("    first = np.arange(ids.size)[:, None]\n")
_DROP_OOV_NEW = ("    known = ids >= 0\n"
                 "    ids, sentence = ids[known], sentence[known]\n"
                 "    first = np.arange(ids.size)[:, None]\n")
_COUNTS_REFERENCE = ("    from helpers.corpus import cooccurrence_counts as reference\n"
                     "    return reference([[str(w) for w in ids]], [str(k) for k in range(n_words)], window).toarray()\n")

_EXPECTED = "expected = C.sum(axis=1, keepdims=True) * C.sum(axis=0, keepdims=True) / total"
_MASKED = ("    seen = C > 0\n"
           "    pmi = np.zeros_like(C)\n"
           "    pmi[seen] = np.log(C[seen] / expected[seen])\n")
_UNMASKED = ("    with np.errstate(divide=\"ignore\", invalid=\"ignore\"):\n"
             "        pmi = np.log(C / expected)\n")
_ROW_LOOP = ("    pmi = np.zeros_like(C)\n"
             "    for w in range(C.shape[0]):\n"
             "        seen = C[w] > 0\n"
             "        pmi[w, seen] = np.log(C[w, seen] / expected[w, seen])\n")
_PPMI_REFERENCE = ("    from helpers.corpus import ppmi as reference\n"
                   "    return reference(C).toarray()\n")

_SWAP_RETURN = "return [[partner.get(w, w) for w in s] for s in sentences]"
_SWAP_CHAINED = ("out = [list(s) for s in sentences]\n"
                 "    for a, b in pairs:\n"
                 "        out = [[b if w == a else w for w in s] for s in out]\n"
                 "        out = [[a if w == b else w for w in s] for s in out]\n"
                 "    return out")
_SWAP_IN_PLACE = ("for s in sentences:\n"
                  "        s[:] = [partner.get(w, w) for w in s]\n"
                  "    return sentences")
_SWAP_REFERENCE = ("from helpers.corpus import counterfactual_augmentation\n"
                   "    return counterfactual_augmentation(sentences, pairs)[len(sentences):]")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    # --- cooccurrence_counts ---
    {"name": "cooccurrence_counts sized by the largest index that occurs, not by n_words", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [("counts = np.bincount(a * n_words + b, minlength=n_words * n_words).reshape(n_words, n_words)", "m = int(ids.max()) + 1\n    counts = np.bincount(a * m + b, minlength=m * m).reshape(m, m)")]},
    {"name": "cooccurrence_counts counting each pair in one direction only (not symmetric)", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [(_RETURN_COUNTS, "return counts.astype(np.float64)")]},
    {"name": "cooccurrence_counts whose windows cross sentence boundaries", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [(_KEEP, "keep = (ids[first] >= 0) & (ids[second] >= 0)")]},
    {"name": "cooccurrence_counts that counts only the pairs at distance exactly window", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [("np.arange(1, window + 1)[None, :]", "np.arange(window, window + 1)[None, :]")]},
    {"name": "cooccurrence_counts that also counts each token with itself (distance 0)", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [("np.arange(1, window + 1)[None, :]", "np.arange(0, window + 1)[None, :]")]},
    {"name": "cooccurrence_counts that removes words outside the vocabulary before windowing (their neighbours move closer)", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [(_DROP_OOV, _DROP_OOV_NEW)]},
    {"name": "cooccurrence_counts without the ValueError for a window of 0 (returns zeros)", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [("    if window < 1:\n        raise", "    if window < 0:\n        raise")]},
    {"name": "cooccurrence_counts with a Python loop over the distances (right values)", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [(_PAIRS, _PAIRS_LOOP)]},
    {"name": "cooccurrence_counts that calls the course's reference implementation", "cell": "cooccurrence_counts", "fails": ["cooccurrence_counts_tests"], "replace": [("    first = np.arange(ids.size)[:, None]\n", _COUNTS_REFERENCE + "    first = np.arange(ids.size)[:, None]\n")]},
    # --- ppmi ---
    {"name": "ppmi without clipping negative PMI at 0", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [("return np.maximum(pmi, 0.0)", "return pmi")]},
    {"name": "ppmi with log base 2", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [("np.log(C[seen]", "np.log2(C[seen]")]},
    {"name": "ppmi with the row and column sums swapped (right only for symmetric counts)", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [(_EXPECTED, "expected = C.sum(axis=0, keepdims=True).T * C.sum(axis=1, keepdims=True).T / total")]},
    {"name": "ppmi without dividing by N (the product of the marginal counts, not probabilities)", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [(_EXPECTED, _EXPECTED.replace(" / total", ""))]},
    {"name": "ppmi that divides 0 by 0 for a row of zeros (NaN instead of 0)", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [(_MASKED, _UNMASKED)]},
    {"name": "ppmi without the ValueError for a negative count", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [("if not np.isfinite(C).all() or (C < 0).any():", "if not np.isfinite(C).all():")]},
    {"name": "ppmi that normalises the caller's float64 counts in place (C /= total)", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [(_EXPECTED, "C /= total\n    expected = C.sum(axis=1, keepdims=True) * C.sum(axis=0, keepdims=True)")]},
    {"name": "ppmi with a Python loop over the rows (right values)", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [(_MASKED, _ROW_LOOP)]},
    {"name": "ppmi that calls the course's reference implementation", "cell": "ppmi", "fails": ["ppmi_tests"], "replace": [(_MASKED + "    return np.maximum(pmi, 0.0)", _PPMI_REFERENCE)]},
    # --- swap_gendered ---
    {"name": "swap_gendered that replaces the first word of each pair only (she stays she)", "cell": "swap_gendered", "fails": ["swap_gendered_tests"], "replace": [("        partner[b] = a\n", "")]},
    {"name": "swap_gendered replacing a by b, then b by a, pair by pair (every he turns back)", "cell": "swap_gendered", "fails": ["swap_gendered_tests"], "replace": [(_SWAP_RETURN, _SWAP_CHAINED)]},
    {"name": "swap_gendered that swaps the caller's sentences in place", "cell": "swap_gendered", "fails": ["swap_gendered_tests"], "replace": [(_SWAP_RETURN, _SWAP_IN_PLACE)]},
    {"name": "swap_gendered without the ValueError for a word in two pairs", "cell": "swap_gendered", "fails": ["swap_gendered_tests"], "replace": [("if a == b or a in partner or b in partner:", "if a == b:")]},
    {"name": "swap_gendered that calls the course's reference implementation", "cell": "swap_gendered", "fails": ["swap_gendered_tests"], "replace": [(_SWAP_RETURN, _SWAP_REFERENCE)]},
]
