"""helpers: the Python package behind the course on bias in word embeddings.

Modules: :mod:`helpers.embeddings` (loading, lookup), :mod:`helpers.wordsets` (the paper's data),
:mod:`helpers.statistics` (cosine, association, effect size, permutation tests, WEFAT score),
:mod:`helpers.weat` and :mod:`helpers.wefat` (whole tests on an embedding), :mod:`helpers.enumeration`
(clusters of names and words, the rotation null, Benjamini-Hochberg), :mod:`helpers.plots`,
:mod:`helpers.checks` (notebook checks), :mod:`helpers.scan` and :mod:`helpers.flags` (grading:
the scan of a submission before it runs, flags for a person) and the CLI (``python -m helpers replicate``).
"""
__version__ = "1.1.0"
