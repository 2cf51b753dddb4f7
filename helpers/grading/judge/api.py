"""The proxy API that hidden-test authors use: the notebook's names (:class:`NotebookProxy`), its functions
(:class:`Remote`, :meth:`Remote.map` with :class:`Call`) and the checks (:data:`checks`)."""
from __future__ import annotations

import collections.abc
import contextlib
import inspect
import textwrap
import types

import numpy as np

from ... import checks as _library_checks
from .channel import _Channel
from .codec import NotebookName, Record, _Decoder, _Encoder, _replay_axes, _student_exception
from .errors import JudgeError, KernelGarbled, KernelStuck
from .rules import check_not_using, check_vectorised, own_work_rule

__all__ = ["NotebookProxy", "Remote", "Call", "Results", "Missing", "checks", "check_unchanged", "check_own_work",
           "check_callable", "quiet", "Failures", "HiddenFailures", "every_failure", "MAX_FAILURES", "callee_note",
           "reference_source"]

#: The most failed checks of one cell the feedback lists: enough to name every mistake of an answer (an exercise's
#: hidden test has about ten checks, and a wrong answer seldom fails more than three), few enough to read; the
#: grader stops checking the cell at the fifth.
MAX_FAILURES = 5


def _from_student(raised) -> BaseException:
    """The exception the student's code raised in the kernel, marked as the student's (:class:`Failures` tells it
    from an error of the hidden test)."""
    exc = _student_exception(raised)
    exc.course_from_student = True
    return exc


class Missing(NotebookName):
    """A name the notebook does not define (the student has not run its cell, or deleted it).

    What ``nb.<name>`` gives for such a name; using it raises ``NameError`` like the kernel would.

    Parameters
    ----------
    name : str
        The name.
    """

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<{self.name}: not defined in the notebook>"

    def __getattr__(self, attr):
        raise NameError(f"name '{self.name}' is not defined")


class Remote(NotebookName):
    """A function of the student's notebook, called in the kernel with plain data.

    Calling it sends the arguments (copies: the grader's own arrays never change) and returns the
    decoded result, or raises an exception of the class the student's code raised.

    Parameters
    ----------
    channel : helpers.grading.judge.channel._Channel
        The requests to the kernel.
    name : str
        The function's name in the notebook.
    standins : tuple of dict, optional
        The course's versions of other functions of the notebook that its calls use in place of the student's
        (:meth:`alone`).
    """

    def __init__(self, channel: _Channel, name: str, standins: tuple = ()):
        self._channel = channel
        self.name = name
        self.__name__ = name
        self.standins = tuple(standins)

    def __repr__(self):
        if self.standins:
            return f"<the notebook's {self.name}, with the course's {', '.join(s['name'] for s in self.standins)}>"
        return f"<the notebook's {self.name}>"

    def alone(self, **references) -> Remote:
        """Judge this function on its own: its calls use the course's version of the notebook's functions named.

        ``nb.generalised_weat.alone(centroid=_centroid)`` calls the student's ``generalised_weat`` with the name
        ``centroid`` bound, for each call only, to the hidden tests' ``_centroid`` (run in the kernel, from its
        source text), so that a wrong ``centroid`` costs ``centroid``'s exercise alone. Each reference is a function
        of the hidden-test module that uses only NumPy (as ``np``), builtins, and other functions of that module
        (sent with it).

        Parameters
        ----------
        **references : function
            For each name of the notebook, the course's version of it.

        Returns
        -------
        Remote
            The same function, called with the stand-ins.

        Raises
        ------
        TypeError
            A reference uses a name other than ``np``, a builtin or a function of its own module.
        """
        standins = [s for s in self.standins if s["name"] not in references]
        for name, func in references.items():
            standins.append({"name": name, "function": func.__name__, "source": reference_source(func)})
        return Remote(self._channel, self.name, standins)

    def _standins(self, payload: dict) -> dict:
        if self.standins:
            payload["standins"] = list(self.standins)
        return payload

    @staticmethod
    def _arguments(enc: _Encoder, args, kwargs) -> dict:
        return {"args": [enc(a) for a in args], "kwargs": [[str(k), enc(v)] for k, v in kwargs.items()]}

    @staticmethod
    def _outcome(answer: dict, dec: _Decoder) -> tuple:
        """``(value, None)`` of a call that returned, ``(None, what it raised)`` of one that raised."""
        if "raised" in answer:
            return None, answer["raised"]
        if "value" not in answer:
            raise JudgeError("malformed answer (no value)")
        return dec(answer["value"]), None

    def _call(self, args, kwargs, args_after: bool):
        enc = _Encoder()
        payload = {"op": "call", "name": self.name, **self._arguments(enc, args, kwargs), "args_after": args_after}
        payload["arrays"] = enc.arrays
        answer = self._channel.request(self._standins(payload))
        dec = _Decoder(answer.get("arrays", {}), enc.axes)
        drawn = answer.get("axes", [])
        if enc.axes:
            if not (isinstance(drawn, list) and len(drawn) == len(enc.axes)):
                raise JudgeError("malformed answer (drawings)")
            for ax, d in zip(enc.axes, drawn):
                _replay_axes(ax, d)
        value, raised = self._outcome(answer, dec)
        if raised is not None:
            raise _from_student(raised)
        if not args_after:
            return value
        after = answer.get("args_after")
        if not (isinstance(after, list) and len(after) == len(args)):
            raise JudgeError("malformed answer (arguments after the call)")
        return value, [dec(a) for a in after]

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs, False)

    def map(self, calls) -> Results:
        """Call the function once per item of ``calls``, in one request.

        The same calls in the same order as ``[f(*args) for args in calls]``, each with its own copies of the
        arguments and the time limit of one call, for one round trip to the kernel instead of one per call.
        Reading an answer whose call raised raises the student's exception (:class:`Results`), so checks read
        the answers in the order the calls were made and fail where a call one by one would have failed.

        Parameters
        ----------
        calls : iterable of tuple or Call
            Each item a tuple of positional arguments, or a :class:`Call` (``Call(sx, sy, ddof=0)``) for
            keyword arguments.

        Returns
        -------
        Results
            The answers, in the order of the calls.

        Raises
        ------
        TypeError
            An argument is an Axes (call the function itself to draw).
        """
        calls = [c if isinstance(c, Call) else Call(*c) for c in calls]
        enc = _Encoder()
        payload = {"op": "map", "name": self.name, "calls": [self._arguments(enc, c.args, c.kwargs) for c in calls]}
        if enc.axes:
            raise TypeError("map does not pass Axes; call the function itself to draw")
        payload["arrays"] = enc.arrays
        answer = self._channel.request(self._standins(payload), calls=len(calls))
        answers = answer.get("answers")
        if not (isinstance(answers, list) and len(answers) == len(calls)
                and all(isinstance(a, dict) for a in answers)):
            raise JudgeError("malformed answer (answers)")
        dec = _Decoder(answer.get("arrays", {}))
        return Results([self._outcome(a, dec) for a in answers])

    def call_returning_args(self, *args, **kwargs):
        """Call the function and report its arguments as the call left them.

        For the check that inputs stay unchanged (:func:`check_unchanged`): the kernel encodes its copies of
        the arguments after the call.

        Parameters
        ----------
        *args, **kwargs
            The arguments of the call.

        Returns
        -------
        tuple
            ``(result, [each positional argument after the call])``.
        """
        return self._call(args, kwargs, True)


def _names_used(code: types.CodeType) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_used(const)
    return names


def reference_source(func: types.FunctionType) -> str:
    """The source text of a hidden tests' function and of the functions of its module it calls, to run in the kernel.

    What :meth:`Remote.alone` sends: the kernel defines the functions from it in a namespace holding only ``np``,
    so a name the text uses must be NumPy, a builtin or one of those functions (checked here, not there).

    Parameters
    ----------
    func : function
        A function defined at the top of a hidden-test module.

    Returns
    -------
    str
        Its definition, after the definitions it needs.

    Raises
    ------
    TypeError
        ``func`` (or a function it calls) uses a global name other than ``np``, a builtin or a function of the
        same module: in the kernel it would not be defined.
    """
    order, todo = [], [func]
    while todo:
        f = todo.pop()
        if f in order:
            continue
        if not isinstance(f, types.FunctionType) or f.__module__ != func.__module__:
            raise TypeError(f"{f!r} is not a function of {func.__module__}")
        order.append(f)
        for name in sorted(_names_used(f.__code__)):
            if name == "np" or name not in f.__globals__:  # a builtin, or an attribute's name (``x.mean``)
                continue
            value = f.__globals__[name]
            if isinstance(value, types.FunctionType) and value.__module__ == func.__module__:
                todo.append(value)
            else:
                raise TypeError(f"{func.__name__} uses {name!r}, which the kernel would not have: a stand-in may use "
                                "np, builtins and the functions of its own module only")
    return "\n\n".join(textwrap.dedent(inspect.getsource(f)) for f in reversed(order))


class Call:
    """The arguments of one call in :meth:`Remote.map`: ``Call(*args, **kwargs)``.

    Needed only for keyword arguments: a plain tuple holds positional ones.

    Parameters
    ----------
    *args, **kwargs
        The call's arguments.
    """

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

    def __repr__(self):
        return f"Call(*{self.args!r}, **{self.kwargs!r})"


class Results(collections.abc.Sequence):
    """The answers of :meth:`Remote.map`, in the order of the calls.

    A sequence: reading an answer whose call raised raises the student's exception (a new one each time it
    is read).

    Parameters
    ----------
    outcomes : list of tuple
        ``(value, None)`` for a call that returned, ``(None, what it raised)`` for one that raised.
    """

    def __init__(self, outcomes: list):
        self._outcomes = outcomes

    def __len__(self):
        return len(self._outcomes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Results(self._outcomes[i])
        value, raised = self._outcomes[i]
        if raised is not None:
            raise _from_student(raised)
        return value


class NotebookProxy:
    """The notebook's names, seen from the grader: ``nb.cosine`` is a :class:`Remote`, ``nb.x`` a value.

    Each attribute read asks the kernel for that name: a function becomes a :class:`Remote`, a value is
    decoded as plain data, a name the notebook lacks is a :class:`Missing`. Hidden tests get one as ``nb``.

    Parameters
    ----------
    channel : helpers.grading.judge.channel._Channel
        The requests to the kernel.
    """

    def __init__(self, channel: _Channel):
        object.__setattr__(self, "_channel", channel)

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        answer = self._channel.request({"op": "get", "name": name})
        if answer.get("missing"):
            return Missing(name)
        if answer.get("callable"):
            return Remote(self._channel, name)
        if "value" not in answer:
            raise JudgeError("malformed answer (no value)")
        return _Decoder(answer.get("arrays", {}))(answer["value"])

    def __setattr__(self, name, value):
        raise AttributeError("the hidden tests read the notebook; they never change it")


def check_unchanged(func, *args, what: str, **kwargs):
    """:func:`helpers.checks.check_unchanged` for a function of the notebook.

    The kernel reports its arguments as the call left them, and they are compared, exactly, with the
    grader's (never changed) copies; for another callable the library's check runs.

    Parameters
    ----------
    func : Remote or callable
        The function.
    *args
        Its positional arguments (arrays, or lists and tuples of arrays, are compared).
    what : str
        How the message names the function.
    **kwargs
        Its keyword arguments.

    Returns
    -------
    object
        What the call returned.

    Raises
    ------
    AssertionError
        An array argument is different after the call.
    """
    if not isinstance(func, Remote):
        return _library_checks.check_unchanged(func, *args, what=what, **kwargs)
    result, after = func.call_returning_args(*args, **kwargs)
    for k, (before, now) in enumerate(zip(args, after)):
        arrays = [(before, now)] if isinstance(before, np.ndarray) else (
            list(zip(before, now)) if isinstance(before, (list, tuple)) and isinstance(now, (list, tuple))
            and len(before) == len(now) and all(isinstance(b, np.ndarray) for b in before) else [])
        for b, n in arrays:
            same = isinstance(n, np.ndarray) and b.shape == n.shape and np.array_equal(b, n, equal_nan=True)
            assert same, (f"{what} changed its argument {k + 1}: the caller's array is different after the call. "
                          "An in-place operation (x /= n, x -= m, x[...] = ...) writes into the caller's array, and "
                          "np.asarray(x) does not copy an array that is already float: write x = x / n instead, "
                          "which makes a new array.")
    return result


def check_own_work(func, *names: str, run=None, what: str | None = None):
    """Own work, judged here: the code of ``func`` names none of the reference functions ``names``.

    The code is read from the notebook (:func:`~helpers.grading.judge.rules.own_work_rule`), then ``run()``
    is called (in the judged kernel those references raise).

    Parameters
    ----------
    func : Remote
        The notebook's function (``nb.<name>``).
    *names : str
        The reference functions it must not use.
    run : callable, optional
        The checks to run once the rule holds.
    what : str, optional
        How the message names the function.

    Returns
    -------
    object
        What ``run()`` returned (None without ``run``).

    Raises
    ------
    AssertionError
        The function is not defined, or its code uses one of ``names``.
    TypeError
        ``func`` is not a function of the notebook.
    """
    if not isinstance(func, Remote):
        if isinstance(func, Missing):
            raise AssertionError(f"`{func.name}` is not defined; did you run the cell that defines it?")
        raise TypeError("check_own_work takes a function of the notebook (nb.<name>)")
    label = what or f"`{func.name}`"
    own_work_rule(func.name, names, label)
    return run() if run is not None else None


def check_callable(obj, name: str):
    """:func:`helpers.checks.check_callable`, for a function of the notebook.

    A name of the notebook that is a function is a :class:`Remote`; anything else fails.

    Parameters
    ----------
    obj : object
        What ``nb.<name>`` gave.
    name : str
        The name, for the message.

    Raises
    ------
    AssertionError
        ``obj`` is not a function of the notebook.
    """
    assert isinstance(obj, Remote), f"`{name}` should be a function; did you run the cell that defines it?"


def _same(a, b) -> bool:
    """Whether two decoded answers agree: numbers and arrays within float32's rounding, KeyedVectors by keys and
    vectors, lists, tuples, dicts and records item by item, anything else by ``==``."""
    if hasattr(a, "index_to_key") and hasattr(b, "index_to_key"):  # KeyedVectors: an object compares by identity
        return list(a.index_to_key) == list(b.index_to_key) and _same(a.vectors, b.vectors)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, Record) and isinstance(b, Record):
        return type(a) is type(b) and _same(vars(a), vars(b))
    if isinstance(a, (bool, int, float, complex, np.number, np.bool_, np.ndarray)) and isinstance(
            b, (bool, int, float, complex, np.number, np.bool_, np.ndarray)):
        x, y = np.asarray(a), np.asarray(b)
        if x.dtype.kind not in "biufc" or y.dtype.kind not in "biufc":
            return x.shape == y.shape and bool(np.array_equal(x, y))
        return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-6, atol=1e-9, equal_nan=True))
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that cannot be compared are not the same
        return False


def callee_note(func: Remote, *args, **kwargs) -> str | None:
    """After ``func`` (judged :meth:`~Remote.alone`) passed: a note when the student's own callees change its result.

    The function is called once more on ``args``, with the notebook's own versions of the functions the
    stand-ins replaced. When that result differs from the one with the course's (or only one of the two raises),
    the mistake is in a callee, which its own test has judged: the note says so, and that this function passed.
    With several stand-ins, each of the student's callees is tried on its own (the course's others in place), and
    the note names those that change the result (all of them when only their combination does). A function whose
    result with the course's callees changes from one call to the next gets no note. An answer the
    grader cannot read (too large, malformed) is such a change, never a failure of the function that passed; a
    kernel that must be replaced (stuck, garbled) is left to the judge's recovery.

    Parameters
    ----------
    func : Remote
        The function, with its stand-ins (``nb.<name>.alone(...)``).
    *args, **kwargs
        One call's arguments.

    Returns
    -------
    str or None
        The note for the feedback; None when both results agree (or ``func`` has no stand-ins).
    """
    if not isinstance(func, Remote) or not func.standins:
        return None

    def outcome(f):
        """``(value, None)``, or ``(None, how the call went wrong)``."""
        try:
            return f(*args, **kwargs), None
        except (KernelStuck, KernelGarbled):
            raise  # the kernel must be replaced: the judge's recovery (the cell is flagged for a person)
        except JudgeError:  # an answer too large or malformed: the function already passed, so it only says so here
            return None, "gives an answer the grader cannot read"
        except Exception as exc:  # noqa: BLE001 - what the student's code raised is an outcome to compare
            if not getattr(exc, "course_from_student", False):
                raise  # the hidden test's own failure
            return None, f"raises {type(exc).__name__}"

    def agree(a, b):
        return a[1] == b[1] and (a[1] is not None or _same(a[0], b[0]))

    course, mine = outcome(func), outcome(Remote(func._channel, func.name))
    if agree(course, mine) or not agree(course, outcome(func)):
        return None  # the same; or the function's own result changes from call to call, which blames no callee
    blamed = list(func.standins)
    if len(blamed) > 1:  # which of the student's callees changes the result, each on its own with the course's others
        blamed = [s for s in func.standins
                  if not agree(course, outcome(Remote(func._channel, func.name,
                                                      [t for t in func.standins if t is not s])))] or blamed
    names = " and ".join(f"`{s['name']}`" for s in func.standins)
    wrong = " and ".join(f"`{s['name']}`" for s in blamed)
    how = (mine[1] or "gives a different result") + " on the same input"
    return (f"Note: the hidden tests judge `{func.name}` with the course's {names} in place of yours, so that a "
            f"mistake there costs only its own exercise; judged that way, `{func.name}` passed. With your own "
            f"{names} it {how}: the mistake is in {wrong} (see its test above), not in `{func.name}`.")


@contextlib.contextmanager
def quiet():
    """:func:`helpers.checks.quiet` for hidden tests: the student's errors become explained failures.

    A failure of the judge itself (a kernel that does not answer, an answer that is not plain data) stays
    what it is, so the cell is flagged for a person instead of failing as a wrong answer.

    Yields
    ------
    None
        The block runs inside it.

    Raises
    ------
    JudgeError
        The judge failed inside the block (not the student's code).
    """
    try:
        with _library_checks.quiet():
            yield
    except AssertionError as exc:
        if isinstance(exc.__cause__, JudgeError):
            raise exc.__cause__ from None
        raise


class HiddenFailures(AssertionError):
    """The failed checks of one hidden test, each message kept (:func:`every_failure`).

    Its text is the messages, one a line; the judge writes each into the feedback marked as a hidden test
    (:func:`helpers.grading.judge.notebook.hidden_failures_text`).

    Parameters
    ----------
    messages : list of str
        The messages, in the order the checks failed.
    stopped : bool
        True when the grader stopped checking at :data:`MAX_FAILURES` failures.
    """

    def __init__(self, messages: list, stopped: bool = False):
        super().__init__("\n".join(messages))
        self.messages, self.stopped = list(messages), stopped


class Failures:
    """The failed checks of one hidden test (:func:`every_failure`); ``with`` it, a block of checks fails alone.

    A block whose check fails (or whose call of the student's code raises) records the message, and the test goes
    on with the next block; a failure of the judge (:class:`JudgeError`) still stops everything. A block whose
    hidden-test code (not the student's) raises after a block failed most likely used what that block did not
    compute: the test stops there, with the failures so far. At :data:`MAX_FAILURES` failures the test stops.

    Parameters
    ----------
    limit : int
        The most failures recorded before the test stops.
    """

    def __init__(self, limit: int = MAX_FAILURES):
        self.messages: list[str] = []
        self.limit = limit

    def error(self, stopped: bool = False) -> HiddenFailures:
        """The failure to raise: every message so far.

        It is raised at the end of :func:`every_failure`, or at once when a block stops the test.

        Parameters
        ----------
        stopped : bool
            The grader stopped checking at the limit.

        Returns
        -------
        HiddenFailures
            Its ``messages`` are the recorded ones, in order.
        """
        return HiddenFailures(self.messages, stopped)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or isinstance(exc, (HiddenFailures, JudgeError)) or not isinstance(exc, Exception):
            return False
        if isinstance(exc, AssertionError):
            if isinstance(exc.__cause__, JudgeError):
                raise exc.__cause__ from None
            self.messages.append(str(exc))
        elif self.messages and not getattr(exc, "course_from_student", False):
            raise self.error() from None  # the hidden test's own code: most likely a value the failed block lacks
        else:  # the student's code raised (or the first error): explained as helpers.checks.quiet does
            self.messages.append(_library_checks.explain(exc))
        if len(self.messages) >= self.limit:
            raise self.error(stopped=True) from None
        return True


@contextlib.contextmanager
def every_failure(limit: int = MAX_FAILURES):
    """:func:`quiet` that reports every failed check, not only the first.

    Each ``with`` block of the :class:`Failures` it yields fails alone.
    Checks outside a block stop the test as before (those that later checks depend on); the failures of
    the blocks before are reported with theirs. Example::

        with _chk.every_failure() as each:
            P = project_out(V, d)               # everything below needs P: it stops the test if it fails
            with each:
                _chk.check_close(P, expected, "project_out on random vectors")
            with each:
                _chk.check_raises(lambda: project_out(V, np.ones(4)), ValueError, "A direction of the wrong length")
            with each:
                _chk.check_vectorised(project_out)

    Parameters
    ----------
    limit : int
        The most failures reported (:data:`MAX_FAILURES`).

    Yields
    ------
    Failures
        ``with`` it around each block of checks that can fail alone.

    Raises
    ------
    HiddenFailures
        At the end, when a check failed: every message.
    JudgeError
        The judge failed (not the student's code).
    """
    failures = Failures(limit)
    try:
        with quiet():
            yield failures
    except HiddenFailures:
        raise
    except AssertionError as exc:
        failures.messages.append(str(exc))
        raise failures.error() from None
    if failures.messages:
        raise failures.error()


#: The checks hidden tests use (``from helpers.grading.judge import checks as _chk``): helpers.checks', with those
#: that read code or compare arguments made to work on the notebook's functions from the grader.
checks = types.SimpleNamespace(
    quiet=quiet, explain=_library_checks.explain, check_type=_library_checks.check_type,
    check_shape=_library_checks.check_shape, check_close=_library_checks.check_close,
    check_raises=_library_checks.check_raises, check_callable=check_callable, check_unchanged=check_unchanged,
    check_own_work=check_own_work, check_vectorised=check_vectorised, check_not_using=check_not_using,
    every_failure=every_failure, callee_note=callee_note)
checks.__doc__ = "The checks hidden tests use: ``from helpers.grading.judge import checks as _chk``."
