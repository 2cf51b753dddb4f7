"""Known-wrong answers to 08_debiasing that the autograder must catch (format: CONTRIBUTING.md, "Mutants").

Exercises that call ``project_out``
(``remaining_gap``, ``projected_keyedvectors``) inherit its mistakes, so a wrong ``project_out``
loses their points too.
"""

_CASE_AWARE_KEYS = ("found = lookup(kv, list(words))\n"
                    "    keys = list(dict.fromkeys(found.keys))")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "project_out without renormalising the projected vectors", "cell": "project_out", "fails": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [("    P = P / lengths\n", "")]},
    {"name": "project_out without normalising the direction", "cell": "project_out", "fails": ["project_out_tests", "remaining_gap_tests", "projected_keyedvectors_tests"], "replace": [("    g = g / norm\n", "")]},
    {"name": "gender_direction from the raw (not unit) word vectors", "cell": "gender_direction", "fails": ["gender_direction_tests"], "replace": [("total += m / np.linalg.norm(m) - f / np.linalg.norm(f)", "total += m - f")]},
    {"name": "remaining_gap as the mean cosine distance (1 - cos) instead of the Euclidean distance", "cell": "remaining_gap", "fails": ["remaining_gap_tests"], "replace": [("return float(np.linalg.norm(project_out(M, direction) - project_out(F, direction), axis=1).mean())", "return float((1 - (project_out(M, direction) * project_out(F, direction)).sum(axis=1)).mean())")]},
    {"name": "projected_keyedvectors uses the words as written (no case handling)", "cell": "projected_keyedvectors", "fails": ["projected_keyedvectors_tests"], "replace": [(_CASE_AWARE_KEYS, "keys = [w for w in dict.fromkeys(words) if w in kv.key_to_index]")]},
]
