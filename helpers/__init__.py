"""helpers: the Python package behind the course on bias in word embeddings.

Modules: :mod:`helpers.embeddings` (loading, lookup), :mod:`helpers.wordsets` (the paper's data),
:mod:`helpers.statistics` (cosine, association, effect size, permutation tests, WEFAT score),
:mod:`helpers.weat` and :mod:`helpers.wefat` (whole tests on an embedding), :mod:`helpers.lexicon`
(lexicon WEATs, large name lists), :mod:`helpers.enumeration` (clusters of names and words, the
rotation null, Benjamini-Hochberg), :mod:`helpers.plots`, :mod:`helpers.checks` (notebook checks);
for instructors :mod:`helpers.scan`, :mod:`helpers.flags`, :mod:`helpers.sandbox`,
:mod:`helpers.execute` (grading you can trust), :mod:`helpers.grading`, :mod:`helpers.cluster`,
:mod:`helpers.bundle`; and the CLI (``python -m helpers replicate | grade | bundle``).
"""
__version__ = "1.2.0"
