"""Known-wrong answers to 08_debiasing that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

``remaining_gap`` and ``projected_keyedvectors`` call ``project_out``. Each is judged on its own (issue 42): the
hidden tests call it with the course's version of ``project_out`` in place of the student's, and the visible checks
give it the values of ``project_out`` for their inputs (``known_values``), so a wrong ``project_out`` costs its own
exercise only. A mutant whose loss changed with that says so: ``was`` lists the cells it lost before, along the
chain.
"""

_CASE_AWARE_KEYS = ("found = lookup(kv, list(words))\n"
                    "    keys = list(dict.fromkeys(found.keys))")

_INPLACE_UNIT = ("m = kv[male]\n"
                 "        f = kv[female]\n"
                 "        m /= np.linalg.norm(m)\n"
                 "        f /= np.linalg.norm(f)\n"
                 "        total += m - f")
_FIRST_PAIR_ONLY = "total += m / np.linalg.norm(m) - f / np.linalg.norm(f)"
_GAP = "return float(np.linalg.norm(project_out(M, direction) - project_out(F, direction), axis=1).mean())"
_PROJECT = "P = W - np.outer(W @ g, g)"
_PROJECT_IN_PLACE = ("W -= np.outer(W @ g, g)\n"
                     "    P = W")
_PARALLEL_CHECK = "    if (lengths <= 1e-12 * np.linalg.norm(W, axis=1, keepdims=True)).any():"
_RENORMALISE_AND_RETURN = ("    P = P / lengths\n"
                           "    return P[0] if single else P")
_PROJECT_OUT_REFERENCE = ("    from helpers.lexicon import project_out as reference_project_out\n"
                          "    return reference_project_out(V, direction)")
_DIRECTION_REFERENCE = ("from helpers.lexicon import gender_direction as reference_direction\n"
                        "\n"
                        "\n"
                        "def gender_direction(kv, pairs):")
_DIRECTION_INSIDE = ("import helpers.lexicon\n"
                     "    return helpers.lexicon.gender_direction(kv, pairs)")
_BY_HAND_UNNORMALISED = ("(lambda P: P / np.linalg.norm(P, axis=1, keepdims=True))"
                         "(V - np.outer(V @ direction, direction)).astype(np.float32)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "project_out without renormalising the projected vectors", "cell": "project_out", "fails": ["project_out_tests"], "was": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [("    P = P / lengths\n", "")]},
    {"name": "project_out without normalising the direction", "cell": "project_out", "fails": ["project_out_tests"], "was": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [("    g = g / norm\n", "")]},
    {"name": "gender_direction from the raw (not unit) word vectors", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [("total += m / np.linalg.norm(m) - f / np.linalg.norm(f)", "total += m - f")]},
    {"name": "remaining_gap as the mean cosine distance (1 - cos) instead of the Euclidean distance", "cell": "remaining_gap", "fails": ["remaining_gap_tests"], "replace": [("return float(np.linalg.norm(project_out(M, direction) - project_out(F, direction), axis=1).mean())", "return float((1 - (project_out(M, direction) * project_out(F, direction)).sum(axis=1)).mean())")]},
    {"name": "projected_keyedvectors uses the words as written (no case handling)", "cell": "projected_keyedvectors", "fails": ["projected_keyedvectors_tests"], "replace": [(_CASE_AWARE_KEYS, "keys = [w for w in dict.fromkeys(words) if w in kv.key_to_index]")]},
    {"name": "gender_direction pointing from male to female (f - m)", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [(_FIRST_PAIR_ONLY, "total += f / np.linalg.norm(f) - m / np.linalg.norm(m)")]},
    {"name": "gender_direction as the mean of the differences, not normalised to unit length", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [("return total / norm", "return total / len(pairs)")]},
    {"name": "gender_direction that normalises each difference instead of each word vector", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [(_FIRST_PAIR_ONLY, "total += (m - f) / np.linalg.norm(m - f)")]},
    {"name": "gender_direction keeps only the last pair (= instead of +=)", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [(_FIRST_PAIR_ONLY, "total = m / np.linalg.norm(m) - f / np.linalg.norm(f)")]},
    {"name": "gender_direction without the ValueError for a zero difference (returns NaN)", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [("        raise ValueError(\"The differences", "        pass  # raise ValueError(\"The differences")]},
    {"name": "gender_direction that normalises gensim's vectors in place (changes kv)", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [("m = np.asarray(kv[male], dtype=np.float64)\n        f = np.asarray(kv[female], dtype=np.float64)\n        " + _FIRST_PAIR_ONLY, _INPLACE_UNIT)]},
    {"name": "project_out normalises the columns (axis=0) instead of the rows", "cell": "project_out", "fails": ["project_out_tests"], "was": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [("lengths = np.linalg.norm(P, axis=1, keepdims=True)", "lengths = np.linalg.norm(P, axis=0, keepdims=True)")]},
    {"name": "project_out with the row lengths not kept as a column (broadcasting error)", "cell": "project_out", "fails": ["project_out_tests"], "was": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [("lengths = np.linalg.norm(P, axis=1, keepdims=True)", "lengths = np.linalg.norm(P, axis=1)"), ("np.linalg.norm(W, axis=1, keepdims=True)", "np.linalg.norm(W, axis=1)")]},
    {"name": "project_out adds the component instead of subtracting it", "cell": "project_out", "fails": ["project_out_tests"], "was": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [("P = W - np.outer(W @ g, g)", "P = W + np.outer(W @ g, g)")]},
    {"name": "project_out returns a (1, d) matrix for a single vector", "cell": "project_out", "fails": ["project_out_tests"], "replace": [("return P[0] if single else P", "return P")]},
    {"name": "project_out without the ValueError for a vector parallel to the direction", "cell": "project_out", "fails": ["project_out_tests"], "replace": [("    if (lengths <= 1e-12", "    if False and (lengths <= 1e-12")]},
    {"name": "remaining_gap as the sum over pairs instead of the mean", "cell": "remaining_gap", "fails": ["remaining_gap_tests"], "replace": [(_GAP, _GAP.replace(".mean())", ".sum())"))]},
    {"name": "remaining_gap with the norm over the wrong axis (axis=0)", "cell": "remaining_gap", "fails": ["remaining_gap_tests"], "replace": [(_GAP, _GAP.replace("axis=1", "axis=0"))]},
    {"name": "remaining_gap as the mean squared distance", "cell": "remaining_gap", "fails": ["remaining_gap_tests"], "replace": [(_GAP, "return float(((project_out(M, direction) - project_out(F, direction)) ** 2).sum(axis=1).mean())")]},
    {"name": "remaining_gap that forgets to project (distance of the unit vectors)", "cell": "remaining_gap", "fails": ["remaining_gap_tests"], "replace": [(_GAP, "return float(np.linalg.norm(M / np.linalg.norm(M, axis=1, keepdims=True) - F / np.linalg.norm(F, axis=1, keepdims=True), axis=1).mean())")]},
    {"name": "projected_keyedvectors keeps repeated words twice", "cell": "projected_keyedvectors", "fails": ["projected_keyedvectors_tests"], "replace": [("keys = list(dict.fromkeys(found.keys))", "keys = list(found.keys)")]},
    {"name": "projected_keyedvectors that only normalises (direction not projected out)", "cell": "projected_keyedvectors", "fails": ["projected_keyedvectors_tests"], "replace": [("project_out(V, direction).astype(np.float32)", "(V / np.linalg.norm(V, axis=1, keepdims=True)).astype(np.float32)")]},
    {"name": "projected_keyedvectors projects by hand without renormalising", "cell": "projected_keyedvectors", "fails": ["projected_keyedvectors_tests"], "replace": [("project_out(V, direction).astype(np.float32)", "(V - np.outer(V @ direction, direction) / (direction @ direction)).astype(np.float32)")]},
    {"name": "projected_keyedvectors that removes repeats with a set (keys sorted, order of first appearance lost)", "cell": "projected_keyedvectors", "fails": ["projected_keyedvectors_tests"], "replace": [("keys = list(dict.fromkeys(found.keys))", "keys = sorted(set(found.keys))")]},
    # --- issue 11: in-place changes, loops, unchecked errors, the course's reference ---
    # np.asarray does not copy a float64 array: the hidden check_unchanged sees the caller's V or direction change
    {"name": "project_out that removes the direction in place (W -= ...; changes a float64 V)", "cell": "project_out", "fails": ["project_out_tests"], "replace": [(_PROJECT, _PROJECT_IN_PLACE)]},
    {"name": "project_out that normalises the direction in place (g /= norm; changes the caller's direction)", "cell": "project_out", "fails": ["project_out_tests"], "replace": [("    g = g / norm\n", "    g /= norm\n")]},
    {"name": "project_out returning zeros of the right shape (no loop, wrong values: the vectorised requirement needs a right answer)", "cell": "project_out", "fails": ["project_out_tests"], "was": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [("return P[0] if single else P", "return np.zeros_like(P[0] if single else P)")]},
    {"name": "project_out with a Python loop over the rows (right values)", "cell": "project_out", "fails": ["project_out_tests"], "replace": [(_PROJECT, "P = np.array([w - (w @ g) * g for w in W])")]},
    {"name": "project_out that tests for NaN with == np.nan (always False, so a NaN direction gives NaN rows)", "cell": "project_out", "fails": ["project_out_tests"], "replace": [("if not np.isfinite(g).all():", "if (g == np.nan).any() or np.isinf(g).any():")]},
    {"name": "project_out that raises only for an exactly zero projected vector (rounding leaves a tiny one)", "cell": "project_out", "fails": ["project_out_tests"], "replace": [(_PARALLEL_CHECK, "    if (lengths == 0).any():")]},
    # the reference raises in the judged kernel (remaining_gap and projected_keyedvectors, which call project_out, are
    # judged with the course's project_out and keep their points)
    {"name": "project_out that calls the course's reference implementation", "cell": "project_out", "fails": ["project_out_tests"], "was": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [(_RENORMALISE_AND_RETURN, _PROJECT_OUT_REFERENCE)]},
    {"name": "gender_direction that calls the course's reference implementation", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [("def gender_direction(kv, pairs):", _DIRECTION_REFERENCE), ("return total / norm", "return reference_direction(kv, pairs)")]},
    {"name": "gender_direction that imports the reference implementation inside the function", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [("return total / norm", _DIRECTION_INSIDE)]},
    {"name": "projected_keyedvectors projects by hand with the direction not normalised", "cell": "projected_keyedvectors", "fails": ["projected_keyedvectors_tests"], "replace": [("project_out(V, direction).astype(np.float32)", _BY_HAND_UNNORMALISED)]},
    # --- issue 42: the exercise says "work in float64"; the visible and the hidden check both read the dtype ---
    {"name": "gender_direction that returns float32 (gensim's dtype) instead of float64", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [("return total / norm", "return (total / norm).astype(np.float32)")]},
    {"name": "remaining_gap as the norm of the whole matrix of differences divided by the number of pairs", "cell": "remaining_gap", "fails": ["remaining_gap_tests"], "replace": [(_GAP, _GAP.replace(", axis=1).mean())", ") / len(pairs))"))]},
]
