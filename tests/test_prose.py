"""Prose and output agree: the numbers a notebook's text states are the numbers its code prints.

A solution notebook's markdown may state a number in two ways only:

* formatted from the computation: a code cell prints it (nothing to check here), or
* written in the text and registered below as a **claim**: ``Claim(text, output)``, where
  ``text`` is a regular expression found in exactly one markdown cell of the solution (or in
  ``where``, e.g. ``README.md``) and ``output`` one regular expression per group of ``text``,
  each with one group, searched in the text printed by the executed solution (all code cells'
  outputs, joined). Group *i* of the prose must equal group *i* of the output: numbers agree when
  the output, rounded to the digits the prose shows, gives the prose's number (``53%`` against
  ``53``, ``1.71`` against ``1.708``, ``2.5e-08`` against ``2.5e-08``, ``5\\cdot 10^{-5}`` against
  ``5.0e-05``); anything else (a word pair, a name) must be equal as text.

``DISCUSSIONS`` lists the markdown cells whose every decimal number and percentage must lie inside
a claim (or be one of the few numbers quoted from the papers, listed with it). So a discussion
cannot gain an unchecked number, and a claim whose output changed fails.

The solutions are executed once per session (about 20 s each), in their own folder, as students
run them. ``test_a_wrong_number_is_caught`` shows the check failing on a deliberately wrong number.
"""
from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest


ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Claim:
    text: str                 # regex over one markdown cell (or the file ``where``)
    output: tuple             # one regex (one group each) per group of ``text``
    where: str | None = None  # a file of the course instead of the notebook's markdown


def C(text, *output, where=None):
    return Claim(text, tuple(output), where)


def t06(row, col):
    """Regex for column ``col`` (0 = counted p at B = 20,000, 1 = at 4,000,000, 2 = normal) of the
    p-value table of 06 section 5.5."""
    return r"(?m)^\s*" + str(row) + r"\s+" + r"\S+\s+" * col + r"(\S+e-\d+)"


def t06_table1(row, col):
    """Regex for column ``col`` of Table 1 as 06 prints it (0 = our d), by the row's number."""
    cols = {"ours_d": r"(?m)^\s*{row} .*?\s+\d+\s+[-\d.]+\s+\S+\s+\d+\s+(\d\.\d\d)\s",
            "paper_d": r"(?m)^\s*{row} .*?\s+\d+\s+(\d\.\d\d)\s+\S+\s+\d+\s+\d\.\d\d\s"}
    return cols[col].format(row=row)


def t08(i, col):
    """Column of the before/after table of 08: d_before, d_after, s_before, s_after, s_left, p_before,
    p_after, p_two_sided."""
    names = ["d_before", "d_after", "s_before", "s_after", "s_left", "p_before", "p_after", "p_two"]
    k = names.index(col)
    return (r"(?m)^WEAT " + str(i) + r": [A-Za-z. ]+?" + r"\s+[-\d.e%]+" * k + r"\s+([-\d.e]+)")


def t08_alt(name, col):
    """Column of the comparison of directions in 08 (gap, left6, left7, left8, d7, p7, r)."""
    names = ["gap", "left6", "left7", "left8", "d7", "p7", "r"]
    k = names.index(col)
    return r"(?m)^" + re.escape(name) + r"\s+" + r"[-\d.%]+\s+" * k + r"([-\d.]+)"


def knn_null(name, k, col):
    """08's k-NN proxy test after the projection: words right ("right"), the shuffled-label mean ("mean") or p."""
    tail = {"right": r"(\d+) of", "mean": r"\d+ of \d+ .*mean (\d+) right", "p": r".*, p = (\S+)$"}[col]
    return r"(?m)^" + re.escape(name) + r", k = " + str(k) + r": " + tail


CEILING = r"The ceiling of \|d\| for 8 \+ 8 names \(ddof = 1\): (\S+) ="
SENT_RANK_M = r"median frequency rank: male names ([\d,]+), female"
SENT_RANK_F = r"median frequency rank: male names [\d,]+, female names ([\d,]+)"
SENT_GAP = r"sentiment gap, male minus female: (\S+);"
SENT_ADJ = r"adjusted for log frequency rank: (\S+) \("
SENT_T = r"of it\), t = (\S+) \("


def t10_shrink(key, targets, k):
    """The k-th "% smaller" (0: |d|, 1: association gap, 2: centroid distance) of 10's projection table."""
    return r"(?m)^\s*" + key + " " + targets + r"\s" + r"(?:[^%\n]*%)" * k + r"[^%\n]*?(\d+)%"


def t10_distance(key, targets, col):
    """The centroid distance before (col 0) or after (col 1) the projection in 10's projection table."""
    return r"(?m)^\s*" + key + " " + targets + r"\s[^%\n]*%[^%\n]*%\s+" + r"\S+\s+" * col + r"(\S+)"


def t10_rank(i):
    """The i-th word of 10's list of negative_emotion words leaning most towards the European-American names."""
    return r"towards the European-American names \(frequency rank\): " + r"\w+ \([\d,]+\), " * i + r"(\w+) \("


def t10_row(row, col):
    """10's table of lexicon WEATs with the paper's targets: our d ("d") or Table 1's d ("table1") of a row."""
    start = r"(?m)^\s+" + str(row) + r" \S.*?positive_emotion vs\. negative_emotion\s+\S+\s+"
    return start + (r"(\S+)\s" if col == "d" else r"\S+\s+\S+\s+(\S+)$")


def t11(cluster, col):
    """Column of the name-cluster table of 11 (female share or mean year), by the cluster's number."""
    tail = r"(\S+)" if col == "female" else r"\S+\s+(\d+)"
    return r"(?m)^\s+N" + str(cluster) + r"\s+\d+\s+[\d,]+\s+" + tail


def t11_stable(pair, col, method="BH"):
    """11's stability table: how many of the other seeds a discovery survives (col "all") or survives with
    both matched clusters at a Jaccard overlap of at least 0.5 with the original ones (col "same"), counted
    with Benjamini-Hochberg ("BH") or Benjamini-Yekutieli ("BY") q-values."""
    pattern = r"(\d) of \d+ \(\d of \d+\)" if col == "all" else r"\d of \d+ \((\d) of \d+\)"
    return r"(?m)^\s*" + re.escape(pair) + r"\s.*\s" + method + " " + pattern


def t11_cond(pair, col):
    """11's conditional tests of overlapping pairs ("N9-W16"): the word centroids' cosine, p alone, p given."""
    tail = {"cos": r"= (\S+);", "alone": r"p = (\S+) alone", "given": r"alone, (\S+) after"}[col]
    return r"(?m)^" + re.escape(pair) + r" given .*?" + tail


def t11_proj(pair, col):
    """11's table of section 7.3 (the projected embedding): female, g_before, g_after, p_before, p_after."""
    k = ["female", "g_before", "g_after", "p_before", "p_after"].index(col)
    return r"(?m)^\s*" + re.escape(pair) + r"\s+(?=\d\.\d\d\s+-?\d\.\d{4}\s)" + r"\S+\s+" * k + r"(\S+)"


CLAIMS = {
    "04_effect_size": [
        C(r"All (\d+) science words lean towards the male terms", r"(\d+) of \d+ science words"),
        C(r"and so do (\d+) of the (\d+) arts words", r"science words and (\d+) of \d+ arts", r"and \d+ of (\d+) arts words"),
    ],
    "05_permutation_tests": [
        C(r"for\n?\s*\$B = 2\{,\}000\$ it is (\S+), against an expected (\S+), with a standard error of (\S+)\)",
          r"mean - exact = (\S+);", r"expected \(1 - p\)/\(B \+ 1\) = (\S+);", r"mean of 20 runs (\S+)"),
        # issue 19, item 9: the normal approximation for rows 1 and 3 (the table of section 4)
        C(r"For rows 1 and 3 the same approximation gives\s+\$(1\.\d \\cdot 10\^\{-\d\})\$ and \$(\d\.\d \\cdot 10\^\{-\d\})\$",
          r"(?m)^\s+1\s+\d+\s+\S+\s+\S+\s+(\S+)\s+\S+$", r"(?m)^\s+3\s+\d+\s+\S+\s+\S+\s+(\S+)\s+\S+$"),
        # row 6: the observed split is the most extreme of all (no split above it, only itself at or above it)
        C(r"most extreme split of all \(row (\d+) on GloVe 6B is such a case\)",
          r"(?m)^row (\d+) \(\d+ names\), [\d,]+ splits: 0 with s_i > s, 1 with s_i >= s - tol$"),
        C(r"\*\*row (\d+)\*\* \(male vs\. female names; career vs\. family\)\s+is the most extreme of all ([\d,]+) splits of its (\d+) names",
          r"(?m)^row (\d+) \(\d+ names\), [\d,]+ splits: 0 with s_i > s, 1 with",
          r"(?m)^row 6 \(\d+ names\), ([\d,]+) splits: 0 with s_i > s, 1 with", r"(?m)^row 6 \((\d+) names\), [\d,]+ splits: 0 with"),
        C(r"gives (\d+)/([\d,]+) ≈ (\d\.\de-\d)", r"exact_pvalue: p = \S+ = (\d+) / ", r"(?m)exact_pvalue: p = \S+ = \d+ / ([\d,]+)$",
          r"exact_pvalue: p = (\S+) ="),
    ],
    "06_table1": [
        # section 5.5 and its reflection (issue 11, item 2)
        C(r"only row 2 sits on the floor \((\S+):", t06(2, 0)),
        C(r"rows 1 and 3 \((\S+) and (\S+)\) lie above it", t06(1, 0), t06(3, 0)),
        C(r"For row 2 the normal tail\s+gives (\S+), the order", t06(2, 2)),
        C(r"For rows 1 and 3 it gives (\S+) and (\S+),", t06(1, 2), t06(3, 2)),
        C(r"With\s+4,000,000 splits the counts fall to (\S+) and (\S+), now", t06(1, 1), t06(3, 1)),
        C(r"Row 2 is still on the floor, (\S+), at", t06(2, 1)),
        C(r"between \$(5\\cdot 10\^\{-5\})\$ and\s+\$(1.5\\cdot 10\^\{-4\})\$", t06(2, 0), t06(1, 0)),
        C(r"with 4,000,000 splits rows 1 and 3 count (\S+) and\s+(\S+), below", t06(1, 1), t06(3, 1)),
        # the reflection's model answer
        C(r"ours (\d\.\d\d), paper (\d\.\d\d)\), then rows 3 \((\d\.\d\d) vs\. (\d\.\d\d)\) and 1 \((\d\.\d\d)\s+vs\. (\d\.\d\d)\)",
          t06_table1(4, "ours_d"), t06_table1(4, "paper_d"), t06_table1(3, "ours_d"), t06_table1(3, "paper_d"),
          t06_table1(1, "ours_d"), t06_table1(1, "paper_d")),
        C(r"\(row 3: (\d\.\d\d) with the paper's list, (\d\.\d\d) with the full lists",
          r"with the paper's reduced lists: d = (\S+);", r"with the full lists: .*?d = (\S+) "),
        C(r"\(d from\s+about (\d\.\d\d) to (\d\.\d\d) over 50 trims", r"over 50 random trims: min (\d\.\d+)", r"over 50 random trims: .*max (\d\.\d+)"),
        # the word bootstrap of the forest plot (issue 11)
        C(r"include 0 for (\d+) of the (\d+) rows", r"Rows whose interval includes 0: .*\((\d+) of \d+\)",
          r"Rows whose interval includes 0: .*\(\d+ of (\d+)\)"),
        # item 1: --ddof 0 makes d grow (README)
        C(r"WEAT 6:\s+(\d\.\d\d) → (\d\.\d\d)\)", r"WEAT  6: N = 16, d \(ddof=1\) = (\S+),", r"WEAT  6: .*d \(ddof=0\) = (\S+)",
          where="README.md"),
    ],
    "07_wefat": [
        C(r"r = 0.84 with n = 40 gives p = (\S+), while\s+\$P < 10\^\{-13\}\$ needs n >= (\d+) names",
          r"with n = 40 gives p = (\S+);", r"P < 1e-13 needs n >= (\d+)"),
        C(r"from (0\.\d+) to (0\.\d+)\)\. Is 20% special", r"fraction 0.00: n = 50, r = (\S+)", r"fraction 0.20: n = 40, r = (\S+)"),
        C(r"whatever \$r_\{12\}\$ is: p is at most (\S+), so", r"(?m)^\s+occupations: .* to (\S+), p < 0.05"),
        C(r"the gap of about (0\.\d+) is more than", r"(?m)^\s+occupations: .*\(gap (\S+)\)"),
        C(r"correlate at (0\.\d+) or more\s+\(p up to (\S+) otherwise\)",
          r"names \(filter 0.2\): .*p < 0.05 when r12 >= (\S+)", r"names \(filter 0.2\): .* to (\S+), p < 0.05"),
        C(r"gives p at most (\S+) for every admissible", r"(?m)^\s+occupations: .* to (\S+), p < 0.05"),
    ],
    "09_generalised_weat": [
        # issue 38, item 9: the README adds what notebook 9 finds
        C(r"fragile to resampling the words \(rows (\d+), (\d+), (\d+), (\d+), (\d+) and (\d+)\)",
          *(r"Fragile on this embedding \(bootstrap interval contains 0\): WEAT \[" + r"\d+, " * k + r"(\d+)"
            + (r"\]" if k == 5 else "") for k in range(6)),
          where="README.md"),
    ],
    "12_bias_from_corpora": [
        # the reflection's model answer, against the table of section 5
        C(r"is large\s+\(mean d (\S+)\) and significant", r"(?m)^original\s+(\S+) \["),
        C(r"The projection removes it \(mean d (\S+),", r"(?m)^projection\s+(\S+) \["),
        C(r"\(0 of 6, against (\S+) before\)", r"(?m)^original .*?(\S+) of 6 \["),
        C(r"\(mean d (\S+), significant in none\), while", r"(?m)^CDA\s+(\S+) \["),
        C(r"signal even grows \((\S+) against (\S+)\)", r"(?m)^CDA .* (\S+) \[\S+, \S+\]$",
          r"(?m)^original .* (\S+) \[\S+, \S+\]$"),
        # the dose-response table: the first rate at which word2vec (the last column) is significant in all four
        # corpora, and the first at which the raw rows (the first column) are in three
        C(r"at a planted\s+rate of (\S+) \(a fifth", r"(?m)^\s*(\d\.\d\d) .* 4 of 4$"),
        C(r"the raw counts already at (\S+) in three of four", r"(?m)^\s*(\d\.\d\d)\s+\S+ \[\s*\S+,\s+\S+\]  3 of 4"),
    ],
    "11_enumerating_biases": [
        # section 1: the rule for names among the words
        C(r"far too wide:\s+(\d+) of the candidate tokens meet it", r"(\d+) of them not Empath words"),
        # section 2: what the clusters capture
        C(r"\(N1 and N6, (\S+) and (\S+) female\)", t11(1, "female"), t11(6, "female")),
        C(r"female names \(N4, (\S+)\) hold", t11(4, "female")),
        C(r"names of N4 and N1 belong to people born on average in (\d+) and (\d+),", t11(4, "year"), t11(1, "year")),
        C(r"have the youngest names, (\d+) and (\d+)\. Era and gender mix: N0\s+is also (\S+) female",
          t11(0, "year"), t11(11, "year"), t11(0, "female")),
        C(r"and it is (\S+) female\. A", t11(11, "female")),
        # section 5.1: Monte Carlo against exact
        C(r"among the (\d+)\s+pairs with exact \$p \\ge 0\.001\$ the largest difference is (\S+) standard errors, and (\S+) of the",
          r"the (\d+) pairs with exact p >= 0.001", r"(\S+) standard errors;", r"standard errors; (\S+) within 3"),
        C(r"the (\d) pairs\s+at its floor have exact p-values from (\S+) to (\S+), and",
          r"the (\d) pairs at the Monte Carlo floor", r"have exact p-values (\S+),", r"have exact p-values .*, (\S+)\n"),
        C(r"and (\d) of them lie below anything", r"pairs with exact p < \S+: (\d+)"),
        # section 6: the corrections
        C(r"On this run Benjamini-Hochberg keeps (\d+) pairs, Benjamini-Yekutieli (\d+) and Bonferroni (\d+), the same",
          r"Benjamini-Hochberg, q <= 0.05:\s+(\d+)", r"Benjamini-Yekutieli, q <= 0.05:\s+(\d+)", r"Bonferroni, p <= \S+:\s+(\d+)"),
        C(r"the same\s+(\d) as Benjamini-Yekutieli\.", r"Benjamini-Yekutieli, q <= 0.05:\s+(\d+)"),
        C(r"With the Monte Carlo\s+p-values Bonferroni would keep (\d+):", r"with the Monte Carlo p-values: .*Bonferroni (\d+) "),
        C(r"including the one whose exact p-value, (\S+), does not\.", r"have exact p-values .*, (\S+)\n"),
        C(r"Bonferroni is therefore not stricter than needed here: it keeps exactly()",
          r"Bonferroni and Benjamini-Yekutieli keep the same pairs: True()"),
        C(r"Benjamini-Hochberg reported something in (\S+) of the scrambled runs and Benjamini-Yekutieli in\s+(\S+)\.",
          r"in (\S+) of the runs \(Benjamini-Hochberg\)", r"and (\S+) \(Benjamini-Yekutieli\)"),
        # issue 38, item 5: BH's share is an observation, with its standard error
        C(r"so a share of (\S+) \(binomial\s+standard error (\S+) over the runs\)",
          r"in (\S+) of the runs \(Benjamini-Hochberg\)", r"binomial standard error of (\S+)\n"),
        # issue 38, item 4: Lemma 2 and the sizes
        C(r"map prints (\d+) names against ([\d,]+) for N11", r"N11: (\d+) names", r"the other names ([\d,]+);"),
        C(r"N0 \(the recent names\) at (\S+), N10 \(names\s+that are also ordinary words or places\) at (\S+)\s+and\s+N1\s+\(the\s+most\s+common\s+male\s+names\)\s+at\s+(\S+),\s+where\s+a\s+random\s+direction\s+gives\s+a\s+standard\s+deviation\s+of\s+(\S+)\.\s+The\s+word\s+clusters\s+less\s+so\s+\(the\s+largest\s+is\s+(\S+)\)",
          r"N0 (\S+),", r"N10 (\S+),", r"N1 (\S+),", r"standard deviation (\S+)\)", r"largest \|cosine\| (\S+);"),
        # section 7: the associations
        C(r"\*\*N11 with W22\*\* has the largest \$g\$ \((\S+)\)", r"largest g = (\S+),"),
        C(r"survives all five other seeds, each time with\s+clusters that keep at least half of their members \((\d) of 5\)",
          t11_stable("N11-W22", "same")),
        C(r"give\s+(\d+%) of it, and N11 as a whole is (\S+) female with mean year of birth (\d+)\.",
          r"N11-W22: .*\n.*\n   names that drive g \((\d+)%", t11(11, "female"), t11(11, "year")),
        C(r"common female names \((\S+) female, mean year (\d+)\) with family", t11(4, "female"), t11(4, "year")),
        C(r"it survives\s+all five seeds \((\d) of 5 with both\s+overlaps", t11_stable("N4-W30", "same")),
        # issue 38, item 2: the summary follows Benjamini-Yekutieli
        C(r"does not report it\s+in this run \(q = (\S+)\) and reports it in only (\d) of 5 other seeds",
          r"N4-W30: .*q_BY = (\S+);", t11_stable("N4-W30", "all", "BY")),
        C(r"\*\*only\*\* pair that is a discovery of\s+Benjamini-Yekutieli in this run and again with all five other seeds \((\d) of 5\)",
          t11_stable("N11-W22", "all", "BY")),
        C(r"Following Benjamini-Yekutieli, whose guarantee holds\s+for these dependent tests, \*\*one\*\* pair()",
          r"finds again with all 5 other seeds: N11-W22 \(1 of \d+\)()"),
        # issue 38, item 3: overlapping pairs, the conditional test
        C(r"the centroids of W33 and W16 have cosine (\S+), and once W33's direction is removed \(the\s+conditional test above\) the p-value of N9-W16 rises from (\S+) to (\S+)\. N9-W33 keeps\s+p = (\S+) once",
          t11_cond("N9-W16", "cos"), t11_cond("N9-W16", "alone"), t11_cond("N9-W16", "given"), t11_cond("N9-W33", "given")),
        C(r"given W22's direction its p-value rises from (\S+)\s+to (\S+) \(the word centroids have cosine (\S+)\)\. N11-W22 given W37 keeps p = (\S+)\.",
          t11_cond("N11-W37", "alone"), t11_cond("N11-W37", "given"), t11_cond("N11-W37", "cos"), t11_cond("N11-W22", "given")),
        # issue 38, item 6: what the name rule costs
        C(r"Without the rule (\d+) of the ([\d,]+) words are tokens the rule would leave out, and the enumeration\s+reports (\d+) pairs by Benjamini-Hochberg and (\d+) by Benjamini-Yekutieli \((\d+) and (\d+) with the rule\)",
          r"without the rule (\d+) of", r"without the rule \d+ of the ([\d,]+) words", r"discoveries: (\d+) \(Benjamini-Hochberg\), \d+ \(Benjamini-Yekutieli\), against",
          r"discoveries: \d+ \(Benjamini-Hochberg\), (\d+) \(Benjamini-Yekutieli\), against",
          r"against (\d+) and \d+ with it", r"against \d+ and (\d+) with it"),
        C(r"the conflict cluster of N11 now holds (\d+) tokens", r"N11 with a cluster of \d+ words, (\d+) of them left out"),
        C(r"personal\s+names \(\*(arafat)\*, \*(hussein)\*, \*(abbas)\*\) among them", r"left out by the rule: .*\b(arafat)\b",
          r"left out by the rule: .*\b(hussein)\b", r"left out by the rule: .*\b(abbas)\b"),
        # issue 38, item 12: the enumeration after notebook 8's projection
        C(r"\(N4-W30, (\S+) female\) falls from p = (\S+) to (\S+), and neither correction reports it",
          t11_proj("N4-W30", "female"), t11_proj("N4-W30", "p_before"), t11_proj("N4-W30", "p_after")),
        C(r"N11 with conflict words \(p = (\S+) after\)", t11_proj("N11-W22", "p_after")),
        C(r"N9 \(male names, (\S+) female\) with sports, which the projection weakens\s+\(g from (\S+) to (\S+)\)",
          t11_proj("N9-W33", "female"), t11_proj("N9-W33", "g_before"), t11_proj("N9-W33", "g_after")),
        C(r"(\d+) pairs by Benjamini-Hochberg and (\d+) by\s+Benjamini-Yekutieli after the projection, against (\d+) and (\d+) before",
          r"after the projection: (\d+) discoveries", r"after the projection: \d+ discoveries \(Benjamini-Hochberg\), (\d+)",
          r"after the projection: .*against (\d+) and", r"after the projection: .*against \d+ and (\d+) before"),
        C(r"common male\s+names \(N6, (\S+) female\) with words of university", r"N6 \((\S+) female, mean year"),
        C(r"(N11-W37) even becomes a discovery of\s+Benjamini-Yekutieli", r"(?m)^\s*(N11-W37)\s.*yes\s+yes$"),
        C(r"male names \((\S+) female\) with sports", t11(9, "female")),
        C(r"W33 survives (\d) of 5 seeds, W16 (\d) of 5\s+with Benjamini-Hochberg and (\d) of 5 with Benjamini-Yekutieli",
          t11_stable("N9-W33", "all"), t11_stable("N9-W16", "all"), t11_stable("N9-W16", "all", "BY")),
        C(r"\(countries of Europe and Latin America\) survives (\d) of 5 seeds, but never with a\s+matched name cluster whose Jaccard overlap with N7 reaches 0\.5 \((\d) of 5; the overlaps range from\s+(\S+) to (\S+)\)",
          t11_stable("N7-W31", "all"), t11_stable("N7-W31", "same"),
          r"Name overlaps over the five runs.* N7-W31 (\d\.\d\d)-", r"Name overlaps over the five runs.* N7-W31 \d\.\d\d-(\d\.\d\d)"),
        C(r"the most common male names \((\S+) female\) with generic narrative words", t11(1, "female")),
        C(r"(\d+%) of its \$g\$ lies along the frequency direction alone", r"N1-W2: .*frequency direction (\d+)%"),
        C(r"comes back in only (\d)\s+of 5 runs", t11_stable("N11-W37", "all")),
        # "all five": an empty group that the output regex matches only when the row says 5 of 5
        C(r"\*\*N11 with W22\*\* has the largest \$g\$ \(\S+\) and survives all five other seeds()",
          r"(?m)^\s*N11-W22\s.*\sBH 5 of 5 \(.*()$"),
        C(r"With Benjamini-Hochberg it survives\s+all five seeds()", r"(?m)^\s*N4-W30\s.*\sBH 5 of 5 \(.*()$"),
        # section 7.2 and 8: power
        C(r"a pair\s+needs a cosine of (\S+) between its centred centroids to pass Bonferroni \((\S+) to be the first\s+discovery of Benjamini-Yekutieli\), a pair with cosine (\S+) has \$p\$ = (\S+) on its own",
          r"first step of Benjamini-Hochberg: .* >= (\S+)\n", r"first step of Benjamini-Yekutieli: .* >= (\S+)\n",
          r"a pair with cosine (\S+) alone", r"alone: p = (\S+);"),
        C(r"it gets q = (\S+) from Benjamini-Hochberg and (\S+)\s+from Benjamini-Yekutieli",
          r"in place of its weakest pair: q = (\S+) \(Benjamini-Hochberg\)",
          r"in place of its weakest pair: q = \S+ \(Benjamini-Hochberg\), (\S+) \(Benjamini-Yekutieli\)"),
        # the reflection's model answer
        C(r"Common female names \(N4: (\S+)\s+female\s+births,\s+mean\s+year\s+of\s+birth\s+(\d+)\)", t11(4, "female"), t11(4, "year")),
        C(r"with g = (\S+), exact p = (\S+) and q = (\S+):\s+among (\d+) pairs", r"N4-W30: g = (\S+),",
          r"N4-W30: g = \S+, p = (\S+),", r"N4-W30: .*q_BH = (\S+),", r"exact p-values, (\d+) pairs"),
        C(r"the more cautious\s+Benjamini-Yekutieli \(q = (\S+)\)", r"N4-W30: .*q_BY = (\S+);"),
        C(r"Benjamini-Hochberg it came back with all five other k-means seeds()", r"(?m)^\s*N4-W30\s.*\sBH 5 of 5 \(.*()$"),
        C(r"and with Benjamini-Yekutieli in only (\d) of 5\.", t11_stable("N4-W30", "all", "BY")),
        C(r"but only (\d) of 5\s+times\s+with\s+both\s+matched\s+clusters", t11_stable("N4-W30", "same")),
        C(r"\(passing\s+Bonferroni takes a cosine of (\S+) between", r"first step of Benjamini-Hochberg: .* >= (\S+)\n"),
    ],
    "08_debiasing": [
        # section 3: the choice of the direction
        C(r"choose (himself-herself) as well \(gap (\S+)\)", r"Direction used from now on: (\S+)\.", r"(?m)^\s+himself-herself\s+(\S+)"),
        C(r"mean of all (\d+) pairs has a slightly smaller gap \((\S+)\)", r"mean of (\d+) pairs", r"(?m)^\s+mean of \d+ pairs\s+(\S+)"),
        C(r"removes nothing of the gap \((\S+), as without", r"(?m)^\s+male-female\s+(\S+)"),
        # section 5: reading the numbers
        C(r"\$s\$ keeps (\d+)% and (\d+)% of its size", t08(7, "s_left"), t08(8, "s_left")),
        C(r"\(one-sided p = (\S+) and (\S+)\)\.", t08(7, "p_after"), t08(8, "p_after")),
        C(r"drops from (\S+) to (\S+) \(p = (\S+)\), no longer", r"Pearson r (\S+) \(p", r"-> (\S+) \(p = \S+\);", r"-> \S+ \(p = (\S+)\);"),
        C(r"Row 6 keeps (\d+)% of its association and stays significant \(p = (\S+)\)", t08(6, "s_left"), t08(6, "p_after")),
        C(r"row 8 keeps d = (\S+) with", t08(8, "d_after")),
        C(r"the mean of all (\d+) pairs and with the most familiar", r"mean of (\d+) pairs"),
        # section 5: the comparison of directions
        C(r"The mean of (\d+) pairs explains", r"mean of (\d+) pairs"),
        C(r"than himself-herself \(gap (\S+) against (\S+)\)", t08_alt("mean of 13 pairs", "gap"), t08_alt("himself-herself", "gap")),
        C(r"\$d\$ goes\s+from (\S+) to (\S+), and the two-sided p = (\S+) says",
          t08_alt("(none)", "d7"), t08_alt("mean of 13 pairs", "d7"), t08_alt("mean of 13 pairs", "p7")),
        C(r"\(d = (\S+), two-sided\s+p = (\S+); s = (\S+), (\S+)% of the original s\) and leaves a WEFAT correlation of (\S+)\.",
          t08_alt("he-she", "d7"), t08_alt("he-she", "p7"), r"after he-she:\s+s =\s+(\S+) ",
          r"after he-she:\s+s =\s+\S+ \(\s*(\S+)% of s\)", t08_alt("he-she", "r")),
        # issue 19, item 6: the reversal by d and by s
        C(r"the original one \((\S+)% of the original d\)", r"after mean of 13 pairs:\s+s = .*d =\s+\S+ \(\s*(\S+)% of d\)"),
        C(r"\(s = (\S+) against (\S+), (\S+)% of s\)", r"after mean of 13 pairs:\s+s =\s+(\S+) ",
          r"WEAT 7 before the projection: s = (\S+),", r"after mean of 13 pairs:\s+s =\s+\S+ \(\s*(\S+)% of s\)"),
        # section 6: proxies
        C(r"\((\d+)% and (\d+)%\s+of \$s\$ removed\)", r"WEAT 7 with male/female names as attributes: .*\((\d+)% removed",
          r"WEAT 8 with male/female names as attributes: .*\((\d+)% removed"),
        C(r"Row 7 stays at the edge of significance \(p = (\S+)\)", r"WEAT 7 with male/female names .* -> (\S+)\n"),
        C(r"career and family, (\d+)% removed, p = (\S+)\)", r"WEAT 6 \(names; .*\((\d+)% removed", r"WEAT 6 \(names; .* -> (\S+)\n"),
        C(r"\((\d+)% after the projection, against (\d+)% by chance\)",
          r"600 most gendered words: .* and (\d+)% after", r"600 most gendered words: .*rate (\d+)%"),
        # issue 38, item 1: the chance level of a k-NN vote is labels shuffled over the fixed neighbour graph
        C(r"the vote gets (\d+) right on average, against (\d+)\s+observed, and no shuffle in ([\d,]+) comes close \(p = (\S+), the",
          knn_null("600 most gendered words", 5, "mean"), knn_null("600 most gendered words", 5, "right"),
          r"against ([\d,]+) shuffles of the labels", knn_null("600 most gendered words", 5, "p")),
        C(r"recover the former side of (\d+)% \((\d+)% before\), against a\s+majority-class rate of (\d+)%",
          r"50 occupations: .* and (\d+)% after", r"50 occupations: .* for (\d+)% before", r"50 occupations: .*rate (\d+)%"),
        C(r"chance then gets (\d+) of (\d+) right on average, and (\d+) right\s+or more is rare \(p = (\S+)\)",
          knn_null("50 occupations", 5, "mean"), r"50 occupations, k = 5: \d+ of (\d+) right",
          knn_null("50 occupations", 5, "right"), knn_null("50 occupations", 5, "p")),
        C(r"p = (\S+) with 3, (\S+) with 7 and (\S+) with 9\.", knn_null("50 occupations", 3, "p"),
          knn_null("50 occupations", 7, "p"), knn_null("50 occupations", 9, "p")),
        C(r"the evidence of\s+a surviving proxy is \*\*weak and depends on k\*\*()",
          r"50 occupations: p < 0.05 with k = .* -> weak evidence of a surviving proxy that depends on k()"),
        C(r"The 600 words leave no\s+doubt()", r"600 most gendered words: p < 0.05 with k = .* -> a surviving proxy at every k()"),
        # the reflection's model answer
        C(r"kept only (\d+)% and (\d+)%\s+of its value and the WEFAT correlation with the share of women fell from (\S+) to (\S+),",
          t08(7, "s_left"), t08(8, "s_left"), r"Pearson r (\S+) \(p", r"-> (\S+) \(p = \S+\);"),
        C(r"row 6 with names kept (\d+)% of its", t08(6, "s_left")),
        C(r"former gender side of\s+(\d+)% of the 600", r"600 most gendered words: .* and (\d+)% after"),
        C(r"another\s+direction \(the mean of (\d+) pairs\)", r"mean of (\d+) pairs"),
    ],
    "10_lexicon_weat": [
        # issue 19, item 7: what drives row 3's reversal
        C(r"\((\d+) of (\d+) negative and (\d+) of (\d+) positive\s+words\)",
          r"negative_emotion: (\d+) of", r"negative_emotion: \d+ of (\d+) words", r"positive_emotion: (\d+) of",
          r"positive_emotion: \d+ of (\d+) words"),
        C(r"the negative words lean more \((\S+) against (\S+) on average\)",
          r"negative_emotion: .*mean lean (\S+)", r"positive_emotion: .*mean lean (\S+)"),
        C(r"lean most are \*(\w+)\*, \*(\w+)\*, \*(\w+)\*, \*(\w+)\*, \*(\w+)\* and \*(\w+)\*:",
          *(t10_rank(i) for i in range(6))),
        C(r"lists \*(\w+)\* and \*(\w+)\* under both", r"words in both categories: (\w+),", r"words in both categories: \w+, (\w+)"),
        C(r"\(Spearman correlation (\S+) with its frequency rank\)", r"Spearman correlation of an emotion word's lean .*\): (\S+)"),
        C(r"\(median\s+rank ([\d,]+) against ([\d,]+)\)", r"median frequency rank: European-American names ([\d,]+),",
          r"median frequency rank: .*African-American names ([\d,]+);"),
        C(r"more frequent than its positive ones\s+\(median rank ([\d,]+) against ([\d,]+)\)",
          r"median frequency rank: .*negative_emotion words ([\d,]+)", r"median frequency rank: .*positive_emotion words ([\d,]+),"),
        # issue 19, item 8: random 8 + 8 names
        C(r"Random 8 \+ 8 names give \$d\$ = (\S+) on average, and 95% of the draws fall between (\S+) and (\S+);",
          r"d mean (\S+), 95%", r"95% of draws between (\S+) and", r"95% of draws between \S+ and ([\d.]+)"),
        C(r"only (\S+)% of them reach the (\S+) of Table 1's names", r"draws reaching it: (\S+)%", r"Table 1's 8 \+ 8 names: d = (\S+);"),
        C(r"\(only (\S+)% of the draws have", r"draws with d <= 0: \d+ \((\S+)%\)"),
        # issue 19, item 7: "% smaller" by three measures
        C(r"\$\|d\|\$ shrinks by (\d+)%, the association gap by (\d+)% and the distance between\s+the name centroids by (\d+)%",
          t10_shrink("6", "paper", 0), t10_shrink("6", "paper", 1), t10_shrink("6", "paper", 2)),
        C(r"shrink more by every measure \((\d+)%, (\d+)% and (\d+)%\)",
          t10_shrink("6", "ssa", 0), t10_shrink("6", "ssa", 1), t10_shrink("6", "ssa", 2)),
        C(r"centroid distance hardly changes \((\S+) to (\S+) and (\S+) to (\S+)\)",
          t10_distance("7", "paper", 0), t10_distance("7", "paper", 1), t10_distance("8", "paper", 0),
          t10_distance("8", "paper", 1)),
        C(r"(\d+) of the (\d+) intervals still exclude 0; only row 7's, \[(\S+), (\S+)\], contains it",
          r"exclude 0: (\d+) of", r"exclude 0: \d+ of (\d+);", r"row 7 \(paper\) \[(\S+),", r"row 7 \(paper\) \[\S+, (\S+)\]"),
        # the reflection's model answer
        C(r"the career/family d fell from (\S+) to (\S+)\s", r"career vs. family\s+8 \+ 8\s+8,8\s+(\S+) \[",
          r"career vs. family\s+SSA 300\s+300,300\s+(\S+) \["),
        C(r"reach (\S+) in only (\S+)% of draws", r"Table 1's 8 \+ 8 names: d = (\S+);", r"draws reaching it: (\S+)%"),
        C(r"\(d = (\S+)\s+and (\S+), intervals excluding 0\)", t10_row(3, "d"), t10_row(4, "d")),
        C(r"words give (\S+) and (\S+) on the same", t10_row(3, "table1"), t10_row(4, "table1")),
        # issue 38, item 8: intervals pressed against the ceiling of d are no test; the random draws are
        C(r"the ceiling of \$d\$, (\S+) for 8 \+ 8 names", CEILING),
        C(r"with\s+8 \+ 8 names d cannot exceed (\S+), and the 8 \+ 8", CEILING),
        # issue 38, item 7: the gender-sentiment row with the frequency control, both numbers
        C(r"Frequency explains half of it: male names are more frequent \(median ranks ([\d,]+) and ([\d,]+)\), and the gap of (\S+) is (\S+) at equal log frequency rank \(t = (\S+)\)",
          SENT_RANK_M, SENT_RANK_F, SENT_GAP, SENT_ADJ, SENT_T),
        C(r"ones \(median ranks ([\d,]+) and ([\d,]+)\), and a\s+name's sentiment score follows its frequency rank \(Spearman correlation (\S+):",
          SENT_RANK_M, SENT_RANK_F, r"Spearman correlation of a name's sentiment score with its frequency rank \(\d+ names\): (\S+)"),
        C(r"the raw gap \(male minus female\) is (\S+), and at\s+equal log frequency rank it is (\S+), (\d+)% of it\. The adjusted gap remains \(t = (\S+),",
          SENT_GAP, SENT_ADJ, r"adjusted for log frequency rank: \S+ \((\d+)% of it\)", SENT_T),
        # issue 38, item 11: Sutton et al.'s Experiment 2 with BLS data
        C(r"are strongly correlated\s+\(r = (\S+)\)", r"before the projection: male vs\. female association r = (\S+) \("),
        C(r"all (\d+) of its male occupations lean to the masculine side here, but so do (\d+) of our (\d+)\s+occupations",
          r"Table I male  : .*-> (\d+) of \d+ on", r"(\d+) of the \d+ lean to the masculine side", r"(\d+) occupations; Empath"),
        C(r"only (\d+) of its (\d+) female occupations are on the feminine side",
          r"Table I female: .*-> (\d+) of \d+ on", r"Table I female: .*-> \d+ of (\d+) on"),
        C(r"\(\*(designer)\*,\s+\*(housekeeper)\* and \*(supervisor)\* among them; \*(psychologist)\* and \*(pharmacist)\* are not\)",
          r"Table I female: .*(designer) \+", r"Table I female: .*(housekeeper) \+", r"Table I female: .*(supervisor) \+",
          r"Table I female: .*(psychologist) -", r"Table I female: .*(pharmacist) -"),
        C(r"the share of women in the occupation\s+\(r = (\S+), p = (\S+)\)",
          r"before the projection: .*% women r = (\S+) \(", r"before the projection: .*% women r = \S+ \(p = (\S+)\)"),
        C(r"the correlation with the\s+employment statistics is gone \(r = (\S+), p = (\S+)\)",
          r"after  the projection: .*% women r = (\S+) \(", r"after  the projection: .*% women r = \S+ \(p = (\S+)\)"),
        C(r"\(mean\s+\|female - male\| from (\S+) to (\S+)\)", r"(?m)^before the projection: .*= (\S+)$",
          r"(?m)^after  the projection: .*= (\S+)$"),
    ],
}

# Markdown cells (found by a regex over their text) in which every decimal number and percentage
# must be part of a claim; ``allowed`` lists numbers quoted from the papers or fixed by design.
DISCUSSIONS = {
    "05_permutation_tests": [(r"^\(a\) With a strict", [])],
    "06_table1": [(r"^With \$B = 20\{,\}000\$ only row 2", [])],
    "07_wefat": [(r"^For the occupations the difference is significant", ["0.05"])],  # the usual threshold
    "12_bias_from_corpora": [(r"^\*Model answer \(for graders", ["0.4"])],   # the planted rate of section 5
    "11_enumerating_biases": [
        (r"^What the clusters capture, on this run", []),
        (r"^The Monte Carlo p-values agree with the exact ones", ["0.001"]),   # a threshold of the check
        (r"^\*\*Three corrections, three guarantees", []),
        (r"^Benjamini-Hochberg reported something in", ["5%", "7.1"]),   # alpha, a section number
        (r"^The name clusters lie far along the frequency direction", []),
        (r"^Reading the list", ["0.5"]),                            # the overlap the table requires
        (r"^### 7\.1 Do they survive", ["0.5", "0.05"]),           # the overlap the table requires, alpha
        (r"^## 8\. What unsupervised enumeration", ["5%", "0.05", "7.1"]),   # alpha, and a section number
        (r"^\*Model answer \(for graders", ["0.5", "7.2"]),        # the overlap the table requires, a section
        (r"^Without the rule", []),
        (r"^\*\*What the projection changes", ["7.2"]),           # a section number
    ],
    "08_debiasing": [
        (r"^\*\*Reading the numbers\.\*\*", []),
        (r"^The direction matters as much as the method", []),
        (r"^The debiasing paper found", []),
        (r"^With names as attributes", []),
        (r"^A model answer", []),
    ],
    "10_lexicon_weat": [
        (r"^\*\*Reading the comparison\.\*\*", []),
        (r"^Random 8 \+ 8 names give", []),
        (r"^The three measures answer", []),
        (r"^\*\*Side by side with the paper", []),
        (r"^A model answer", ["95%"]),   # the name rule, a stated choice
        (r"^The male names are far more frequent", []),
        (r"^\*\*Reading Experiment 2\*\*", []),
    ],
}

NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?%?|(?<![\w.])\d+%")


def _normalise(text: str) -> str:
    text = text.replace("−", "-").replace("–", "-")
    text = re.sub(r"\\cdot\s*10\^\{?(-?\d+)\}?", r"e\1", text)
    return text.replace(" ", "")


def _number(text: str):
    try:
        return float(_normalise(text).rstrip("%"))
    except ValueError:
        return None


def _resolution(text: str) -> float:
    """Half a unit of the last digit the prose shows (``1.71`` -> 0.005, ``2.5e-08`` -> 5e-10)."""
    t = _normalise(text).rstrip("%")
    mantissa, _, exponent = t.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def agree(stated: str, printed: str) -> bool:
    a, b = _number(stated), _number(printed)
    if a is None or b is None:
        return stated.strip() == printed.strip()
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=0) or abs(a - b) <= _resolution(stated) * (1 + 1e-9)


def outputs_text(nb) -> str:
    parts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out.get("text", ""))
            elif "text/plain" in out.get("data", {}) and "image/png" not in out.get("data", {}):
                parts.append(out["data"]["text/plain"] + "\n")
    return "".join(parts)


def check_claims(nb, claims, root: Path = ROOT) -> list[str]:
    """Every disagreement between a claim's prose and the executed notebook ``nb``, as messages."""
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    printed = outputs_text(nb)
    problems = []
    for claim in claims:
        sources = [(root / claim.where).read_text()] if claim.where else markdown
        hits = [m for s in sources for m in [re.search(claim.text, s)] if m]
        if len(hits) != 1:
            problems.append(f"prose /{claim.text}/ found in {len(hits)} markdown cells (expected exactly 1)")
            continue
        stated = hits[0].groups()
        if len(stated) != len(claim.output):
            problems.append(f"/{claim.text}/ has {len(stated)} groups but {len(claim.output)} output patterns")
            continue
        for value, pattern in zip(stated, claim.output):
            m = re.search(pattern, printed)
            if not m:
                problems.append(f"output /{pattern}/ not printed by the notebook (prose states {value!r})")
            elif not agree(value, m.group(1)):
                problems.append(f"the prose states {value!r} where the notebook prints {m.group(1)!r} "
                                f"(prose /{claim.text}/, output /{pattern}/)")
    return problems


def unchecked_numbers(nb, claims, discussions) -> list[str]:
    """Numbers in the listed discussion cells that lie outside every claim's matched text."""
    problems = []
    for cell_pattern, allowed in discussions:
        cells = [c.source for c in nb.cells if c.cell_type == "markdown" and re.search(cell_pattern, c.source)]
        if len(cells) != 1:
            problems.append(f"discussion cell /{cell_pattern}/ found {len(cells)} times (expected 1)")
            continue
        # headings ("### 5.6") and references (doi:..., arXiv:...) are not stated results
        text = re.sub(r"(?m)^#.*$|(?:doi|arXiv):\S+", lambda m: " " * len(m.group(0)), cells[0])
        covered = [m.span() for c in claims if not c.where for m in [re.search(c.text, text)] if m]
        for m in NUMBER.finditer(text):
            if m.group(0) in allowed or any(a <= m.start() and m.end() <= b for a, b in covered):
                continue
            problems.append(f"{m.group(0)!r} in the cell starting {text[:40]!r} is neither printed nor a registered claim")
    return problems


def executed(assignment: str):
    """The worked solution of ``assignment`` as executed and stored in ``executed/`` (tests/test_site.py
    checks that it is the current worked solution and, with nbval, that a fresh run prints the same)."""
    return nbformat.read(ROOT / "executed" / f"{assignment}.ipynb", as_version=4)


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_stated_numbers_match_the_output(name):
    problems = check_claims(executed(name), CLAIMS[name])
    assert not problems, f"{name}: prose and output disagree:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", sorted(DISCUSSIONS))
def test_discussions_state_only_checked_numbers(name):
    nb = nbformat.read(ROOT / "solutions" / name / f"{name}.ipynb", as_version=4)
    problems = unchecked_numbers(nb, CLAIMS[name], DISCUSSIONS[name])
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


def test_a_wrong_number_is_caught():
    """08's discussion with one number changed (7% -> 9%) fails the check; unchanged it passes."""
    nb = executed("08_debiasing")
    assert check_claims(nb, CLAIMS["08_debiasing"]) == []
    wrong = copy.deepcopy(nb)
    cell = next(c for c in wrong.cells if c.cell_type == "markdown" and c.source.startswith("**Reading the numbers"))
    cell.source = cell.source.replace("$s$ keeps 7% and", "$s$ keeps 9% and")
    problems = check_claims(wrong, CLAIMS["08_debiasing"])
    assert any("'9'" in p and "'7'" in p for p in problems), problems


def test_the_comparison_rules():
    assert agree("1.71", "1.708") and not agree("1.71", "1.716")
    assert agree("53%", "53") and not agree("53%", "54")
    assert agree("2.5e-08", "2.5e-08") and not agree("2.5e-08", "2.6e-08")
    assert agree(r"5\cdot 10^{-5}", "5.0e-05") and agree("−1.17", "-1.17")
    assert agree("himself-herself", "himself-herself") and not agree("he-she", "himself-herself")
    toy = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("Our r is 0.66 and the paper's 0.90."),
        nbformat.v4.new_code_cell("", outputs=[nbformat.v4.new_output("stream", text="r = 0.6640\n")])])
    assert check_claims(toy, [C(r"Our r is (\S+) and", r"r = (\S+)")]) == []
    assert unchecked_numbers(toy, [C(r"Our r is (\S+) and", r"r = (\S+)")], [(r"^Our r", [])]) != []
    assert unchecked_numbers(toy, [C(r"Our r is (\S+) and", r"r = (\S+)")], [(r"^Our r", ["0.90"])]) == []
    toy.cells[1].outputs[0].text = "r = 0.6740\n"
    assert check_claims(toy, [C(r"Our r is (\S+) and", r"r = (\S+)")]) != []


# The frame of every notebook ---------------------------------------------------------------

ASSIGNMENTS = sorted(p.name for p in (ROOT / "solutions").iterdir() if (p / f"{p.name}.ipynb").is_file())


@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_notebook_has_its_frame(folder, name):
    """Estimated time, prerequisites and objectives at the top; a Summary with self-check questions,
    an optional challenge and references at the end; the course map in docs/STUDENTS.md agrees (time, points)."""
    nb = nbformat.read(ROOT / folder / name / f"{name}.ipynb", as_version=4)
    top = nb.cells[0].source
    minutes = re.search(r"\*\*Estimated time:\*\* about (\d+) minutes", top)
    assert minutes, f"{folder}/{name}: the first cell states no '**Estimated time:** about N minutes'"
    assert "**Prerequisites:**" in top and "Learning objectives" in top, f"{folder}/{name}: prerequisites or objectives missing"
    last = nb.cells[-1]
    assert last.cell_type == "markdown" and last.source.startswith("## Summary"), (
        f"{folder}/{name}: the last cell is not a '## Summary'")
    for part in ("### Self-check (not graded)", "### Optional challenge (not graded)", "**References.**", "doi:"):
        assert part in last.source, f"{folder}/{name}: the Summary lacks {part!r}"
    row = re.search(r"(?m)^\| `" + re.escape(name) + r"` \|.*\| (\d+) \| (\d+) min \|", (ROOT / "docs" / "STUDENTS.md").read_text())
    assert row and row.group(2) == minutes.group(1), (
        f"docs/STUDENTS.md's course map and {name} disagree on the time ({row and row.group(2)} vs {minutes.group(1)})")
    points = sum(c.metadata.get("nbgrader", {}).get("points", 0) for c in nb.cells
                 if c.metadata.get("nbgrader", {}).get("grade"))
    assert int(row.group(1)) == points, (
        f"docs/STUDENTS.md's course map gives {name} {row.group(1)} points, its graded cells {points}")


def test_no_seed_file_names_in_the_course():
    """Students have no copy of the papers' text files: cite in full, never `papers/00x_...`."""
    bad = re.compile(r"papers/00\d|`00\d_\.\.\.`|reading list|text file of that paper")
    files = [*ROOT.glob("solutions/*/*.ipynb"), *ROOT.glob("notebooks/*/*.ipynb"), *ROOT.glob("docs/*.md"), ROOT / "README.md"]
    hits = [f"{f.relative_to(ROOT)}: {m.group(0)}" for f in files for m in bad.finditer(f.read_text())]
    assert not hits, "\n".join(hits)
