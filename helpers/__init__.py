"""helpers: the Python package behind the course on bias in word embeddings.

The science library, which students, notebooks and researchers import: :mod:`helpers.embeddings`
(loading, lookup), :mod:`helpers.wordsets` (the paper's data), :mod:`helpers.statistics` (cosine,
association, effect size, permutation tests, WEFAT score), :mod:`helpers.weat` and :mod:`helpers.wefat`
(whole tests on an embedding), :mod:`helpers.lexicon` (lexicon WEATs, large name lists),
:mod:`helpers.enumeration` (clusters of names and words, the rotation null, Benjamini-Hochberg),
:mod:`helpers.corpus` (co-occurrence counts, PPMI, SVD and word2vec trained on a corpus),
:mod:`helpers.plots`, :mod:`helpers.replication` (the whole replication: Table 1, the WEFATs, the
figures) and :mod:`helpers.checks` (the notebooks' visible checks).

For instructors, not in the students' wheel: :mod:`helpers.grading` (grading a class you can trust;
installed with the ``grading`` extra), which imports the library and is never imported by it;
:mod:`helpers.site` (the course as a website); and the command line (``python -m helpers replicate |
train | site | grade | feedback | bundle``). CONTRIBUTING.md draws which module may import which.
"""
__version__ = "1.2.0"
