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
    # --- systematic mistake hunt (issue 11) ---
    {"name": "effect size with the sign reversed (mean of Y minus mean of X)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_D, "return float((sy.mean() - sx.mean()) / sd)")]},
    {"name": "effect size with the standard deviation of X only", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_SD, "sd = sx.std(ddof=ddof)")]},
    {"name": "effect size with the average of the two group standard deviations", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_SD, "sd = (sx.std(ddof=ddof) + sy.std(ddof=ddof)) / 2")]},
    {"name": "effect size dividing by the variance (no square root)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_SD, "sd = pooled.var(ddof=ddof)")]},
    {"name": "effect size returning |d| (the sign lost)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_D, "return float(abs(sx.mean() - sy.mean()) / sd)")]},
    {"name": "effect size without the zero-SD check (nan when all scores are equal)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [('    if not sd > 0:\n        raise ValueError("All scores are equal: the standard deviation is 0 and d is undefined.")\n', "")]},
    {"name": "effect size without the empty-set check (nan for an empty X)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [('    if sx.size == 0 or sy.size == 0:\n        raise ValueError("Both target sets need at least one score.")\n', "")]},
    {"name": "maximum effect size with N = n (the size of one set, not both)", "cell": "max_effect_size", "fails": ["max_effect_size_tests"], "replace": [("N = 2 * n", "N = n")]},
    {"name": "maximum effect size without the square root", "cell": "max_effect_size", "fails": ["max_effect_size_tests"], "replace": [(_BOUND, "return float(2.0 * (N - ddof) / N)")]},
    {"name": "maximum effect size with N - 1 whatever the ddof", "cell": "max_effect_size", "fails": ["max_effect_size_tests"], "replace": [(_BOUND, "return float(2.0 * np.sqrt((N - 1) / N))")]},
    {"name": "maximum effect size without the ddof check (ddof=2 accepted)", "cell": "max_effect_size", "fails": ["max_effect_size_tests"], "replace": [('    if ddof not in (0, 1):\n        raise ValueError("ddof must be 0 or 1.")\n', "")]},
    {"name": "maximum effect size without the check on n", "cell": "max_effect_size", "fails": ["max_effect_size_tests"], "replace": [('    if n < 1:\n        raise ValueError("Each target set needs at least one word.")\n', "")]},
    {"name": "Cohen's d with the unweighted mean of the two sample variances (right only for equal sizes)", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [(_SP, "sp = np.sqrt((sx.var(ddof=1) + sy.var(ddof=1)) / 2)")]},
    {"name": "Cohen's d with the mean of the two population variances", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [(_SP, "sp = np.sqrt((sx.var() + sy.var()) / 2)")]},
    {"name": "Cohen's d with the standard deviation of Y only (Glass's delta)", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [(_SP, "sp = sy.std(ddof=1)")]},
    {"name": "Cohen's d dividing by the pooled variance (no square root)", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [(_SP, "sp = ss / dof")]},
    {"name": "Cohen's d with the sign reversed (mean of Y minus mean of X)", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [("return float((sx.mean() - sy.mean()) / sp)", "return float((sy.mean() - sx.mean()) / sp)")]},
    {"name": "Cohen's d without the zero-SD check (inf when each group is constant)", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [('    if not sp > 0:\n        raise ValueError("The pooled within-group standard deviation is 0: d is undefined.")\n', "")]},
    {"name": "effect size with ddof=1 hard-coded (the ddof argument ignored)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_SD, "sd = pooled.std(ddof=1)")]},
    {"name": "effect size centring the caller's scores in place (sx -= sx.mean(): np.asarray does not copy)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [("return float((sx.mean() - sy.mean()) / sd)", "diff = sx.mean() - sy.mean()\n    sx -= sx.mean()\n    sy -= sy.mean()\n    return float(diff / sd)")]},
    {"name": "Cohen's d centring the caller's scores in place (sx -= sx.mean(): np.asarray does not copy)", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [("ss = ((sx - sx.mean()) ** 2).sum() + ((sy - sy.mean()) ** 2).sum()", "diff = sx.mean() - sy.mean()\n    sx -= sx.mean()\n    sy -= sy.mean()\n    ss = (sx ** 2).sum() + (sy ** 2).sum()"), ("return float((sx.mean() - sy.mean()) / sp)", "return float(diff / sp)")]},
    {"name": "effect size with the difference of the sums (notebook 3's statistic) instead of the means", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_D, "return float((sx.sum() - sy.sum()) / sd)")]},
    {"name": "effect size pooling with np.std([sx, sy]) (a ragged list: works only for equal sizes)", "cell": "effect_size", "fails": ["effect_size_tests"], "replace": [(_SD, "sd = np.std([sx, sy], ddof=ddof)")]},
    {"name": "Cohen's d dividing the within-group sum of squares by N - 1 instead of N - 2", "cell": "cohens_d", "fails": ["cohens_d_tests"], "replace": [(_SP, "sp = np.sqrt(ss / (sx.size + sy.size - 1))")]},
]
