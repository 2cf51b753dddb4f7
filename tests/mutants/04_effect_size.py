"""Known-wrong answers to 04_effect_size that the autograder must catch (format: CONTRIBUTING.md, "Mutants")."""

_SD = "sd = pooled.std(ddof=ddof)"
_D = "return float((sx.mean() - sy.mean()) / sd)"
_BOUND = "return float(2.0 * np.sqrt((N - ddof) / N))"
_SP = "sp = np.sqrt(ss / dof)"
_WITHIN_GROUP_SD = ("ss = ((sx - sx.mean()) ** 2).sum() + ((sy - sy.mean()) ** 2).sum()\n"
                    "    sd = np.sqrt(ss / (sx.size + sy.size - 2 * ddof))")
_IMPORT_REFERENCE = ("from helpers.statistics import effect_size_from_scores\n"
                     "\n"
                     "def effect_size(")
_CALL_INSIDE = ("import helpers.statistics\n"
                "    return helpers.statistics.effect_size_from_scores(sx, sy, ddof=ddof)")
_BOUND_FROM_REFERENCE = ("import helpers.statistics as h\n"
                         "    return h.effect_size_from_scores([1.0] * n, [-1.0] * n, ddof=ddof)")

# One mutant per line: its name, the solution cell it changes, the test cells that must lose their
# points, and the edits of the worked solution ((old, new); each old occurs there exactly once).
MUTANTS = [
    {"name": "effect size with the other ddof (population std, ddof=0, as the default)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [("def effect_size(sx, sy, ddof=1):", "def effect_size(sx, sy, ddof=0):")]},
    {"name": "effect size that ignores ddof (np.std's default, ddof=0, always)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_SD, "sd = np.std(pooled)")]},
    {"name": "effect size with the pooled within-group std (Cohen's d) instead of the std of X and Y together", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_SD, _WITHIN_GROUP_SD)]},
    {"name": "effect size that calls the course's reference implementation", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [("def effect_size(", _IMPORT_REFERENCE), (_D, "return effect_size_from_scores(sx, sy, ddof=ddof)")]},
    {"name": "maximum effect size: the footnote's 2.0 for any ddof", "cell": "max_effect_size", "fails": ["max_effect_size_tests"], "replace": [(_BOUND, "return 2.0")]},
    {"name": "maximum effect size with the ddof factor upside down (above 2 for ddof=1)", "cell": "max_effect_size", "fails": ["max_effect_size_tests"], "replace": [(_BOUND, "return float(2.0 * np.sqrt(N / (N - ddof)))")]},
    {"name": "Cohen's d with the standard deviation of X and Y pooled together (the WEAT's d)", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [(_SP, "sp = np.concatenate([sx, sy]).std(ddof=1)")]},
    {"name": "Cohen's d dividing the within-group sum of squares by N instead of N - 2", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [(_SP, "sp = np.sqrt(ss / (sx.size + sy.size))")]},
    # check_own_work sees these twice: it reads imports inside the function, and its run-time spy watches the call
    {"name": "effect size that imports the reference implementation inside the function", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_D, _CALL_INSIDE)]},
    {"name": "maximum effect size computed with the reference effect size on the extreme configuration", "cell": "max_effect_size", "fails": ["max_effect_size_tests"], "replace": [(_BOUND, _BOUND_FROM_REFERENCE)]},
]
