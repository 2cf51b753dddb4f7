"""The judge: hidden tests run in the grader's own process, on plain values the student's kernel returns.

The student's notebook runs in its sandboxed kernel as before (:mod:`helpers.grading.execute`,
:mod:`helpers.grading.sandbox`), visible checks included. After each graded test cell, the judge runs that
cell's hidden tests **here, in the grader's process**: a function of the assignment's module in the
course's ``hidden_tests/`` folder (never released, never in the student bundle), named like the cell's
``grade_id``. It calls the student's functions through a proxy: each call sends the arguments to the
kernel as plain data (:mod:`helpers.grading.judge.runtime` runs there) and receives plain data back (arrays
loaded without pickle, numbers, strings, exception class names and messages). Expected values are
computed here with the reference implementation and never enter the kernel; the inputs come from a
seed the grader keeps, different for every submission. The cell's pass or fail, its message and its
hint are written by the judge: nothing the kernel does can give a point, it can only lose one (an
error in the visible checks still fails the cell).

Own work, structurally: the kernel imports a copy of the course package in which the assignment's
reference implementations (its module's ``REFERENCES``) raise instead of computing, so calling them
fails like any wrong answer; the rules that read code (no Python loop where vectorised code is asked,
no reference function) read the answer cells' source here (:func:`own_work_rule`,
:func:`python_loops_in_source`).

A hidden-test module looks like this::

    import numpy as np
    from helpers import statistics as _reference
    from helpers.grading.judge import checks as _chk

    REFERENCES = {"statistics": ["cosine"]}   # absent from the judged kernel

    def cosine_tests(nb, seed):                # nb: the notebook's names; seed: this submission's
        cosine = nb.cosine                     # a proxy of the student's function
        rng = np.random.default_rng([seed, 1701])
        with _chk.quiet():
            u, v = rng.normal(size=(2, 50))
            _chk.check_close(cosine(u, v), _reference.cosine(u, v), "cosine of two random 50-d vectors")

Each call is a request to the kernel and back (a few milliseconds of CPU on each side); ``cosine.map(calls)``
(:meth:`Remote.map`) makes many calls in one request, each still with the time limit of one call.

See CONTRIBUTING.md, "Adding an exercise", and docs/INSTRUCTORS.md, "What a submission can and cannot do".

The package, module by module (each imports only those above it in this list, and the science library):

* :mod:`~helpers.grading.judge.errors`: what goes wrong between the grader and a kernel;
* :mod:`~helpers.grading.judge.executor`: what the judge uses of the executor (a ``typing.Protocol``);
* :mod:`~helpers.grading.judge.wire`: the one table of node kinds and limits, read by both sides;
* :mod:`~helpers.grading.judge.runtime`: the kernel's side (its text is sent to the kernel, never imported here);
* :mod:`~helpers.grading.judge.codec`: plain data, the grader's side of the runtime's format;
* :mod:`~helpers.grading.judge.channel`: requests to the kernel and its answers, within the time limits;
* :mod:`~helpers.grading.judge.rules`: the rules that read the student's code;
* :mod:`~helpers.grading.judge.stripped`: the course package without the assignment's reference implementations;
* :mod:`~helpers.grading.judge.api`: what hidden tests use (:class:`NotebookProxy`, :class:`Remote`,
  :class:`Call`, :data:`checks`);
* :mod:`~helpers.grading.judge.notebook`: the judge of one notebook (:func:`judge_for`, :class:`NotebookJudge`).

This ``__init__`` only re-exports their names, so that ``from helpers.grading.judge import checks`` (the
hidden tests) and ``helpers.grading.judge.judge_for`` keep working.
"""

# ruff: noqa: F401 - re-exports: the names of the package's modules, as before the split
from __future__ import annotations

from .api import (MAX_FAILURES, Call, HiddenFailures, Missing, NotebookProxy, Remote, Results, check_callable, check_own_work,
                  check_unchanged, checks, every_failure, quiet)
from .channel import _COMMS, COMM_TARGET, MAX_ANSWER_BYTES, PROGRESS_EVERY, RUNTIME, _Channel
from .codec import NotebookName, Opaque, Record, TextFile, _Decoder, _Encoder, _replay_axes, _student_exception
from .errors import JudgeError, KernelGarbled, KernelStuck
from .executor import Executor, KernelConnection
from .notebook import (CASE_BUG, GARBLED, NBGRADER_HIDDEN, NO_CASES, SECRET_FILE, SPURIOUS, SPURIOUS_ERROR, STUCK, Judge,
                       NotebookJudge, hidden_failures_text, judge_for, load_cases, submission_seed, warnings_silenced)
from .rules import (LOOPS_IN_DISGUISE, REFERENCE_MODULES, _current, check_not_using, check_vectorised,
                    function_definition, own_work_rule, python_loops_in_source)
from .stripped import _private_cache, stripped_package

__all__ = ["Judge", "NotebookJudge", "judge_for", "checks", "Remote", "Call", "Results", "Missing", "Record",
           "TextFile", "NotebookProxy", "JudgeError", "python_loops_in_source", "own_work_rule", "stripped_package",
           "submission_seed", "load_cases", "function_definition", "HiddenFailures", "every_failure",
           "hidden_failures_text"]
