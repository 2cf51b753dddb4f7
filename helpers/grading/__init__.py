"""helpers.grading: the grader that instructors run (``python -m helpers grade``), never imported by the
science library and not in the students' wheel (install it with ``pip install -e '.[grading]'``).

From the command down: :mod:`~helpers.grading.cli` (``grade``, ``feedback``, ``bundle``) ->
:mod:`~helpers.grading.run` (a whole class, in local processes or on Dask through
:mod:`~helpers.grading.cluster`) -> :mod:`~helpers.grading.canary` (the worked solution graded before
any student) and :mod:`~helpers.grading.grade` (one submission) -> :mod:`~helpers.grading.course` (the
course's configuration with the grader's plugins, nbgrader's API) -> the plugins nbgrader runs:
:mod:`~helpers.grading.submission` (what a submission is), :mod:`~helpers.grading.execute` (sandboxed,
resilient execution), :mod:`~helpers.grading.judge` (hidden tests judged in the grader's process, with
:mod:`~helpers.grading.judge.runtime` in the kernel), :mod:`~helpers.grading.rendering` (no student HTML
in any page), :mod:`~helpers.grading.sandbox` (bubblewrap), :mod:`~helpers.grading.scan` and
:mod:`~helpers.grading.flags` (flags for a person). Beside them: :mod:`~helpers.grading.state`
(what a run remembers), :mod:`~helpers.grading.exports`, :mod:`~helpers.grading.feedback`,
:mod:`~helpers.grading.plugins` (nbgrader plugins named in ``nbgrader_config.py``),
:mod:`~helpers.grading.engines` (one database engine per gradebook in a process) and
:mod:`~helpers.grading.bundle` (the students' distribution).
"""
