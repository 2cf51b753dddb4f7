"""The judge of one notebook: its settings, the hidden-test module, each graded cell's verdict."""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import secrets
import types
from pathlib import Path

import numpy as np
from nbgrader.utils import is_grade, is_solution
from traitlets import Float, Unicode
from traitlets.config import Configurable

from ..flags import add_flag, grade_id
from ..sandbox import package_dir
from .api import MAX_FAILURES, NotebookProxy
from .channel import _Channel
from .errors import JudgeError, KernelGarbled, KernelStuck
from .executor import Executor
from .rules import _current
from .stripped import _private_cache, stripped_package

__all__ = ["Judge", "NotebookJudge", "judge_for", "load_cases", "submission_seed", "warnings_silenced",
           "hidden_failures_text"]

# nbgrader's own hidden-test marker, refused in a graded notebook (those tests would run in the student's
# kernel); spelled in two parts so that it never stands whole in a file of the package (the student bundle
# is checked for it)
NBGRADER_HIDDEN = "### BEGIN HIDDEN" + " TESTS"
SECRET_FILE = ".judge-secret"          # in the course root (git-ignored): the seed the grader keeps

NO_CASES = ("This cell has no hidden tests in {path} (a function named {gid}): the grader cannot judge it, so it "
            "scored 0 and is flagged for a person. Instructors: add the function (CONTRIBUTING.md, "
            "'Adding an exercise').")
CASE_BUG = ("The grader could not finish checking this cell ({kind} in the hidden tests, not necessarily in your "
            "code). It scored 0 for now and is flagged: a person will look at it.")
GARBLED = ("The Python kernel running this notebook sent a message the grader could not read ({detail}; code that "
           "changes the kernel's own settings, such as its session key, does this). The grader stopped the kernel, "
           "started a new one, re-ran the cells above this one and went on with the next cell. This cell scored 0, "
           "and it is flagged for a person to look at.")
STUCK = ("Your code did not answer the grader within {timeout:.0f} s while it was being checked (an endless loop, "
         "or work far slower than needed). This cell scored 0 and is flagged for a person to look at.")

#: The most characters of a passed hidden test's note (:func:`~.api.callee_note`) a cell shows: its longest, with
#: two callees named, is about 420 (plus an exception's name, at most 200); the bound only keeps a hidden test's bug
#: from flooding the feedback.
MAX_NOTE_CHARS = 2000

#: CPython 3.11's parser can raise ``SystemError: AST constructor recursion depth mismatch`` for code that is fine
#: (python/cpython#106905; :func:`helpers.grading.scan.parse_python`): a cell that fails with it is flagged.
SPURIOUS_ERROR = "AST constructor recursion depth mismatch"
SPURIOUS = ("Python itself raised an internal error while this cell was checked ('AST constructor recursion depth "
            "mismatch', CPython issue 106905), which is usually not a mistake of the code checked: the cell scored 0 "
            "and is flagged for a person to grade again.")


class Judge(Configurable):  # numpydoc ignore=PR01,PR02
    """Settings of the judge (``c.Judge.*`` in ``nbgrader_config.py`` or on the command line).

    Where the hidden tests are, the grader's secret, and the time limit of one call of a student's function.

    Parameters
    ----------
    **kwargs
        The arguments of traitlets' ``Configurable`` (``config=``).
    """

    tests_dir = Unicode("hidden_tests", help="The folder of the hidden-test modules, relative to the course "
                                             "root (never released).").tag(config=True)
    secret = Unicode("", help="The seed the grader keeps: each submission's hidden inputs are drawn from it "
                              "and the student's id. Empty: read (or create) .judge-secret in the course "
                              "root.").tag(config=True)
    call_timeout = Float(0, help="Seconds one call of a student's function may take while judged (0: the "
                                 "per-cell timeout, Execute.timeout).").tag(config=True)


def load_cases(path: Path) -> types.ModuleType:
    """The hidden-test module at ``path`` (imported afresh, under a private name).

    Each call imports it again, so a changed file is read; the name holds a hash of the path.

    Parameters
    ----------
    path : pathlib.Path
        ``hidden_tests/<assignment>.py``.

    Returns
    -------
    module
        The module.

    Raises
    ------
    FileNotFoundError
        No such file (the message says where it was looked for).
    """
    if not path.is_file():
        raise FileNotFoundError(f"No hidden tests for this assignment: {path} is missing. Every assignment's "
                                "hidden tests live in hidden_tests/<assignment>.py (CONTRIBUTING.md).")
    name = f"_weat_hidden_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _course_root(executor) -> Path:
    root = executor.config.get("CourseDirectory", {}).get("root", "") or os.getcwd()
    return Path(root).resolve()


def _secret(settings: Judge, root: Path) -> str:
    if settings.secret:
        return settings.secret
    path = root / SECRET_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        value = secrets.token_hex(16)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_text().strip()
        with os.fdopen(fd, "w") as fh:
            fh.write(value + "\n")
        return value


def submission_seed(secret: str, assignment: str, student: str) -> int:
    """The seed of one submission's hidden inputs: a hash of the grader's secret, the assignment and the student.

    Different for every student and assignment, the same at every grading of the same submission.

    Parameters
    ----------
    secret, assignment, student : str
        What the seed is drawn from.

    Returns
    -------
    int
        A 63-bit seed for ``numpy.random.default_rng([seed, ...])``.
    """
    digest = hashlib.sha256("\0".join([secret, assignment, student]).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _error_output(ename: str, text: str):
    from nbformat import NotebookNode
    return NotebookNode(output_type="error", ename=ename, evalue=text, traceback=[f"{ename}: {text}"])


def _printed(text: str):
    """``text`` as printed output of a cell (a line, when it has any)."""
    from nbformat import NotebookNode
    return NotebookNode(output_type="stream", name="stdout", text=text + ("\n" if text else ""))


def _as_text(output):
    """An execute_result or display_data of a test cell as plain text (its number is never partial credit)."""
    text = output.get("data", {}).get("text/plain", "")
    return _printed("".join(text) if isinstance(text, list) else str(text))


class NotebookJudge:
    """The hidden tests of one assignment, judged for one notebook while nbgrader executes it (:func:`judge_for`).

    The executor calls :meth:`judge_cell` after each graded test cell has run in the kernel.

    Parameters
    ----------
    executor : Executor or None
        The notebook's executor (unused here: each cell's call passes it).
    cases : module
        The hidden-test module (:func:`load_cases`).
    path : pathlib.Path
        Its file, for messages.
    seed : int
        This submission's seed (:func:`submission_seed`).
    overlays : tuple
        ``((copy, package folder),)``: the stripped package bound over the course's in the sandbox.
    timeout : float
        Seconds one call of the student's code may take.
    """

    def __init__(self, executor: Executor | None, cases: types.ModuleType, path: Path, seed: int, overlays,
                 timeout: float):
        self.cases = cases
        self.path = path
        self.seed = seed
        self.overlays = overlays
        self.timeout = timeout

    def _case(self, gid: str):
        func = getattr(self.cases, gid, None) if gid and gid.isidentifier() else None
        # only a function the module defines (never one it imports, such as ``wordsets.weat_tests``)
        ok = isinstance(func, types.FunctionType) and func.__module__ == self.cases.__name__
        return func if ok else None

    def judge_cell(self, executor: Executor, cell, index: int) -> None:
        """Judge a graded test cell that has just run in the kernel; write its verdict into its outputs.

        Nothing else is changed. The cell keeps what the kernel printed (as plain text) and any error
        of its visible checks (which fails it: the kernel can lose points, never earn them); when the
        visible checks passed, the hidden tests run here, and a failure adds an error output with
        their message. A hidden test that passes may return a note (a string, :func:`~.api.callee_note`), added
        as printed text.

        Parameters
        ----------
        executor : Executor
            The notebook's executor (its kernel, notebook, time budget and recovery).
        cell : nbformat.NotebookNode
            The cell (other cells than graded test cells are left alone).
        index : int
            Its index in the notebook.
        """
        if cell.cell_type != "code" or not is_grade(cell) or is_solution(cell):
            return
        gid = grade_id(cell)
        cell.outputs = [_as_text(o) if o.get("output_type") in ("execute_result", "display_data") else o
                        for o in cell.get("outputs", [])]
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors:
            if any(SPURIOUS_ERROR in f"{o.get('evalue', '')} {' '.join(o.get('traceback') or [])}" for o in errors):
                add_flag(executor.nb, gid, SPURIOUS)
            return
        case = self._case(gid)
        if case is None:
            text = NO_CASES.format(path=self.path.name, gid=gid)
            cell.outputs.append(_error_output("NotJudged", text))
            add_flag(executor.nb, gid, text)
            return
        left = executor.time_left() if hasattr(executor, "time_left") else None  # the notebook's time budget
        channel = _Channel(executor, self.timeout if left is None else max(1.0, min(self.timeout, left)),
                           None if left is None else max(1.0, left))
        token = _current.set([c.source for c in executor.nb.cells[:index] if c.cell_type == "code"])
        try:
            with warnings_silenced():
                note = case(NotebookProxy(channel), self.seed)
            if isinstance(note, str) and note:  # a passed test's note (api.callee_note): never a number or a value
                cell.outputs.append(_printed(note[:MAX_NOTE_CHARS]))
        except AssertionError as exc:
            cell.outputs.append(_error_output("AssertionError", hidden_failures_text(exc)))
            if SPURIOUS_ERROR in str(exc):
                add_flag(executor.nb, gid, SPURIOUS)
        except KernelStuck:
            # the error output, the flag and a fresh kernel (the cells so far re-run) for the cells after it
            executor._recover(cell, index, "TimeoutError", STUCK.format(timeout=self.timeout))
        except KernelGarbled as exc:
            executor._recover(cell, index, "KernelMessageError", GARBLED.format(detail=exc))
        except JudgeError as exc:
            text = f"The grader could not check this cell: {exc}. It scored 0 and is flagged for a person."
            cell.outputs.append(_error_output("NotJudged", text))
            add_flag(executor.nb, gid, text)
        except Exception as exc:  # noqa: BLE001 - a bug of the hidden tests must not cost the whole notebook
            executor.log.error("Hidden tests %s of %s failed: %r", gid, self.path, exc)
            text = CASE_BUG.format(kind=type(exc).__name__)
            cell.outputs.append(_error_output("NotJudged", text))
            add_flag(executor.nb, gid, f"{text} ({type(exc).__name__}: {str(exc)[:300]})")
        finally:
            _current.reset(token)


def hidden_failures_text(exc: AssertionError) -> str:
    """The feedback of a failed hidden test: each failed check on its own line, marked as a hidden test.

    The checks are ``exc.messages`` of :class:`~helpers.grading.judge.api.HiddenFailures`, else its one message.

    Parameters
    ----------
    exc : AssertionError
        What the hidden test raised.

    Returns
    -------
    str
        E.g. ``Hidden test failed: ...``, or ``2 hidden tests failed:`` and a line ``[hidden test k] ...`` for each.
    """
    messages = getattr(exc, "messages", None) or [str(exc)]
    if len(messages) == 1:
        return f"Hidden test failed: {messages[0]}"
    lines = [f"{len(messages)} hidden tests failed:"] + [f"[hidden test {k}] {m}" for k, m in enumerate(messages, 1)]
    if getattr(exc, "stopped", False):
        lines.append(f"(The grader stops checking a cell at {MAX_FAILURES} failures: fix these, and it checks the rest.)")
    return "\n".join(lines)


@contextlib.contextmanager
def warnings_silenced():
    """The hidden tests' own NumPy and Python warnings stay out of the grader's log.

    A context manager around each cell's hidden tests.

    Yields
    ------
    None
        The block runs inside it.
    """
    import warnings
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def judge_for(executor: Executor, nb, resources) -> NotebookJudge | None:
    """The judge of the notebook nbgrader is about to execute (None outside autograding).

    There is no switch to turn it off: without it the visible checks alone would decide.

    Parameters
    ----------
    executor : helpers.grading.execute.ResilientExecute
        The executing preprocessor (its configuration names the course root).
    nb : nbformat.NotebookNode
        The notebook.
    resources : dict
        The resources nbgrader passes (``resources["nbgrader"]`` names the assignment and the student).

    Returns
    -------
    NotebookJudge or None
        The judge of this notebook; None when nbgrader names no assignment.

    Raises
    ------
    FileNotFoundError
        The judge is on and the assignment has no hidden-test module (grading without it would give
        every test cell 0: fail before any student is graded).
    JudgeError
        A test cell holds nbgrader's hidden-test block: it would run in the student's kernel, where the
        student's code can read and change it.
    """
    settings = Judge(config=executor.config)
    info = (resources or {}).get("nbgrader") or {}
    assignment = info.get("assignment")
    if not assignment:
        return None
    root = _course_root(executor)
    path = root / settings.tests_dir / f"{assignment}.py"
    # test cells only: nbgrader restores them from the gradebook, so what they hold is the instructor's
    # (a student who writes the marker into an answer cell changes nothing)
    inside = [grade_id(c) or "?" for c in nb.cells
              if c.cell_type == "code" and is_grade(c) and not is_solution(c) and NBGRADER_HIDDEN in c.get("source", "")]
    if inside:
        raise JudgeError(
            f"{assignment}: the cells {', '.join(inside)} hold a '{NBGRADER_HIDDEN}' block. Such tests would run in "
            f"the student's kernel, where the student's code can read and change them: move them into "
            f"{settings.tests_dir}/{assignment}.py (CONTRIBUTING.md, 'Adding an exercise') and generate the "
            "assignment again.")
    cases = load_cases(path)
    seed = submission_seed(_secret(settings, root), assignment, str(info.get("student", "")))
    references = getattr(cases, "REFERENCES", {}) or {}
    overlays = ()
    if references:
        copy = stripped_package(references, _private_cache())
        overlays = ((copy, package_dir()),)
    timeout = settings.call_timeout or float(executor.timeout or 60)
    return NotebookJudge(executor, cases, path, seed, overlays, timeout)
