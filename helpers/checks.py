"""Checks used by the notebooks' visible and hidden test cells.

Each check raises ``AssertionError`` with a message that says which property is wrong (type,
then shape, then value) without printing the expected value unless ``reveal=True`` (visible
checks only: hidden-test messages appear in nbgrader's feedback). :func:`quiet` keeps a test
cell silent: nbgrader scores a test cell 0 when it writes anything to stderr, even when the
answer is right, so every test cell runs the student's code inside it.

In a notebook the checks run in the same kernel as the student's code, after it: they are the
visible checks, and a notebook can switch them off in its own kernel. That decides nothing: the
grade is written by :mod:`helpers.grading.judge`, which runs the hidden tests in the grader's own process
(with these same functions, through ``helpers.grading.judge.checks``) on values the kernel returns, and an
error of the visible checks can only cost the cell. The pristine references below (the NumPy
functions and builtins captured at import) keep the visible checks honest for a student whose
answer cell accidentally rebinds ``np.allclose`` or ``isinstance``. See CONTRIBUTING.md, "How a
grade is decided".
"""
from __future__ import annotations

import contextlib
import dis
import functools
import importlib
import inspect
import io
import re
import sys
import types
import warnings
from copy import deepcopy as _deepcopy

import numpy as np

from . import sourcecode as _sourcecode

__all__ = ["quiet", "explain", "check_callable", "check_type", "check_shape", "check_close", "check_raises",
           "check_unchanged", "reference_calls", "check_own_work", "check_not_using", "check_vectorised",
           "python_loops", "disguised_loops", "known_values"]

# Pristine references, captured at import (before any answer cell runs); the checks use only these.
_asarray, _isfinite, _absolute, _array2string = np.asarray, np.isfinite, np.absolute, np.array2string
_array, _array_equal = np.array, np.array_equal
_all, _any, _zip, _enumerate = all, any, zip, enumerate
_errstate, _ndarray, _float64 = np.errstate, np.ndarray, np.float64
_isinstance, _issubclass, _type, _callable, _float, _tuple = isinstance, issubclass, type, callable, float, tuple
_len, _sorted, _set, _list, _getattr, _setattr, _id, _format, _str = (len, sorted, set, list, getattr, setattr, id,
                                                                     format, str)
_catch_warnings, _simplefilter = warnings.catch_warnings, warnings.simplefilter
_redirect_stderr, _StringIO = contextlib.redirect_stderr, io.StringIO
_get_instructions, _import_module, _getframe = dis.get_instructions, importlib.import_module, sys._getframe
_FunctionType, _CodeType, _ModuleType, _MethodType = (types.FunctionType, types.CodeType, types.ModuleType,
                                                      types.MethodType)
_partial = functools.partial
_signature = inspect.signature

# the course's reference modules (what an exercise must not call for the function it asks for): the one
# list of helpers.sourcecode, which the scan and the judge read too
_REFERENCE_MODULES = _tuple(f"helpers.{m}" for m in _sourcecode.REFERENCE_MODULES)


# What a student's code most often raises, and the likely mistake behind it (first match wins).
# Each entry: (exception class names, a pattern of the message or None, the explanation).
_LIKELY_CAUSES = [
    (("NotImplementedError",), None,
     "The function still raises NotImplementedError: replace `raise NotImplementedError()` in its "
     "answer cell with your code, then run that cell again."),
    (("ValueError",), re.compile(r"^matmul: Input operand 1 has a mismatch|shapes \S+ and \S+ not aligned"),
     "A matrix product P @ Q needs as many columns in P as rows in Q: print both shapes. To pair every row of U "
     "with every row of V, transpose the second matrix: unit_rows(U) @ unit_rows(V).T (the missing .T is the usual "
     "slip). To apply a d x d matrix R (a rotation, a projection) to every row vector of D, shape (k, d), multiply "
     "from the right: D @ R, not R @ D."),
    (("ValueError",), re.compile(r"operands could not be broadcast together"),
     "Two arrays of different shapes were combined element by element (+, -, *, /). Print their shapes: "
     "usual causes are a mean or sum over the wrong axis, dividing rows by their lengths without "
     "keepdims=True, or subtracting the cosines to B from the cosines to A when A and B have different sizes "
     "(take each mean first, then subtract)."),
    (("UFuncTypeError", "_UFuncOutputCastingError"), re.compile(r"Cannot cast ufunc '\w+' output"),
     "An in-place operation (x /= n, x -= m) on an integer array cannot store its float result. It would "
     "also have changed the caller's array: np.asarray(x) returns x itself when x is already an array. "
     "Write x = x / n, which makes a new array."),
    (("ValueError",), re.compile(r"read-only"),
     "An in-place operation (x /= n, x -= m, x[i] = ...) on an array that may not be changed (the embedding's "
     "vectors are read-only). np.asarray(x) does not copy an array, so this would change the caller's data: "
     "write x = x / n, which makes a new array, or copy first with x = np.array(x, dtype=float)."),
    (("TypeError", "ValueError"), re.compile(r"Cannot cast scalar from dtype\('O'\)|SeedSequence|[Ss]eed must be"),
     "np.random.seed (or a seed) was given something that is not an integer, such as the Generator rng. "
     "Leave NumPy's global random state alone and draw from the Generator you are given: "
     "rng.permutation(n), rng.choice(...), rng.integers(...)."),
    # more misuses of a Generator argument (notebook 5 and every exercise that takes rng)
    (("AttributeError",), re.compile(r"^'(int|numpy\.u?int\d+)' object has no attribute '(permutation|permuted|"
                                     r"choice|integers|random|shuffle|normal|standard_normal|uniform|bit_generator)'"),
     "rng may be a seed (an int) as well as a Generator. Make a Generator from either with "
     "gen = np.random.default_rng(rng) (it returns a Generator unchanged) and draw from gen."),
    (("AttributeError",), re.compile(r"Generator' object has no attribute '(seed|randint|rand|randn|random_sample|"
                                     r"random_integers|get_state|set_state|RandomState)'"),
     "A Generator has no seed(), randint(), rand() or randn(): those are NumPy's old global functions. A Generator "
     "is seeded when it is made (np.random.default_rng(seed)); draw with rng.integers(...), rng.random(...), "
     "rng.standard_normal(...), rng.permutation(...)."),
    (("TypeError",), re.compile(r"^(permutation|shuffle|choice)\(\) takes (exactly|at most) \d+ positional argument"),
     "np.random.permutation, np.random.shuffle and np.random.choice use NumPy's global random state and take no "
     "generator. Call the Generator's own method instead: rng.permutation(x), rng.shuffle(x), rng.choice(...)."),
    (("TypeError",), re.compile(r"Generator' object is not callable"),
     "rng is a Generator, not a function: call one of its methods, e.g. rng.permutation(x) or rng.integers(...)."),
    (("ValueError",), re.compile(r"Cannot take a larger sample than population when replace is False"),
     "rng.choice(x, size=..., replace=False) draws all the values of `size` from x without repeats, so it cannot "
     "draw more than len(x) in all. For many independent permutations of x, permute each row of a stack of "
     "copies: rng.permuted(np.tile(x, (B, 1)), axis=1)."),
    (("ValueError",), re.compile(r"inhomogeneous shape"),
     "A list of arrays of different lengths was turned into one array (e.g. np.std([sx, sy]) or "
     "np.array([sx, sy]) with |X| != |Y|). To pool the values, join them: np.concatenate([sx, sy])."),
    (("ValueError",), re.compile(r"truth value of an array with more than one element is ambiguous"),
     "`if`, `and`, `or` or `not` was applied to an array of several values. Use np.any(...) or np.all(...) "
     "to get one True or False, or & and | element by element."),
    (("IndexError",), re.compile(r"too many indices for array"),
     "A 1-D array was indexed with two indices. Check whether you hold one vector, shape (d,), or a matrix "
     "of row vectors, shape (n, d); x[None, :] turns a vector into a 1 x d matrix."),
    (("AxisError",), None,
     "A mean or sum along an axis the array does not have: a vector has only axis 0; a matrix of row "
     "vectors has axis 0 (down the words) and axis 1 (along each vector)."),
    (("KeyError",), re.compile(r"not present"),
     "A word is not in the embedding. Look words up with lookup(kv, words), which reports the missing ones, "
     "instead of kv[word]."),
    (("NameError",), None,
     "A name is used that is not defined. Run the notebook's cells in order (Kernel > Restart Kernel and Run "
     "All Cells) and check the spelling."),
    (("TypeError",), re.compile(r"required positional argument|unexpected keyword argument|positional argument"),
     "The function's parameters differ from those the exercise asks for: keep the signature given in the "
     "answer cell (the names, their order, and the keyword-only arguments after *)."),
    (("TypeError",), re.compile(r"unhashable type: 'numpy.ndarray'"),
     "An array was used as a dictionary key or set element. Use the words (strings), or tuple(x), instead."),
    (("ZeroDivisionError",), None,
     "A division by zero: an empty word list, or a length or standard deviation of 0? Check for that case "
     "and raise ValueError with a clear message."),
    (("RecursionError",), None,
     "The function calls itself without end: does a helper function share its name with the function "
     "that calls it?"),
]
_MAX_MESSAGE = 400


def explain(exc: BaseException) -> str:
    """A feedback message for an exception raised by a student's code: what was raised, and why.

    The message is the exception's class and text (shortened to 400 characters) and, when the
    exception is one students often meet, the likely mistake behind it (the missing ``.T`` of a
    matrix product, shapes that do not broadcast, an in-place operation, ``np.random.seed(rng)``,
    an unfinished answer cell, ...).

    Parameters
    ----------
    exc : BaseException
        The exception.

    Returns
    -------
    str
        ``"Your code raised ValueError: <text>"`` and, on a second line, ``"A likely cause:
        <explanation>"``; without the second line for an exception that has no known cause.
    """
    names = {k.__name__ for k in _type(exc).__mro__}
    full = _str(exc)
    text = full if _len(full) <= _MAX_MESSAGE else full[:_MAX_MESSAGE] + " ..."
    msg = f"Your code raised {_type(exc).__name__}" + (f": {text}" if text else "")
    for kinds, pattern, cause in _LIKELY_CAUSES:
        if names.intersection(kinds) and (pattern is None or pattern.search(full)):
            return f"{msg}\nA likely cause: {cause}"
    return msg


@contextlib.contextmanager
def quiet():
    """Swallow warnings, NumPy floating-point warnings and anything written to stderr; explain errors.

    A test cell runs the student's code inside ``with quiet():``. An ``AssertionError`` (a failed
    check) passes through unchanged; any other exception is re-raised as an ``AssertionError``
    with :func:`explain`'s message, so a raw NumPy error is never the only feedback (the original
    exception stays attached as its cause, and the student's traceback still shows the line).

    Use as ``with quiet(): ...`` (a ``contextlib.contextmanager``).

    Yields
    ------
    None
        The body of the ``with`` statement runs at this point.

    Raises
    ------
    AssertionError
        A failed check, or the explained exception of the student's code.
    """
    with _catch_warnings(), _errstate(all="ignore"), _redirect_stderr(_StringIO()):
        _simplefilter("ignore")
        try:
            yield
        except AssertionError:
            raise
        except Exception as exc:  # noqa: BLE001 - every error of the student's code gets its explanation
            raise AssertionError(explain(exc)) from exc


def check_callable(obj, name: str):
    """Assert that ``obj`` is a function (or another callable).

    A test cell calls it before calling ``obj``, so a name that holds something other than a
    function gets this message instead of a ``TypeError`` from the call.

    Parameters
    ----------
    obj : object
        What the notebook holds under the name.
    name : str
        The name, for the message.

    Returns
    -------
    None
        When ``obj`` is callable.

    Raises
    ------
    AssertionError
        If ``obj`` is not callable (the student has not run the cell that defines it).
    """
    assert _callable(obj), f"`{name}` should be a function; did you run the cell that defines it?"


def check_type(value, types, what: str):
    """Assert that ``value`` is of one of ``types``.

    The class checked is ``type(value)``, which an object cannot fake (its ``__class__`` can
    lie); subclasses count.

    Parameters
    ----------
    value : object
        The student's result.
    types : type or tuple of type
        The accepted classes (subclasses count: ``numpy.float64`` is a ``float``).
    what : str
        What ``value`` is, for the message (e.g. ``"cosine([1, 0], [1, 1])"``).

    Returns
    -------
    None
        When ``value`` is of an accepted class.

    Raises
    ------
    AssertionError
        If ``value``'s class is none of ``types``.
    """
    names = types.__name__ if _isinstance(types, _type) else " or ".join(t.__name__ for t in types)
    assert _issubclass(_type(value), types), (
        f"{what} should be a {names}, but it is a {_type(value).__name__}.")


def check_shape(value, shape: tuple, what: str):
    """Assert that ``numpy.asarray(value)`` has shape ``shape``.

    ``numpy.asarray`` is the module's own reference, taken at import, so a notebook that patches
    NumPy changes nothing; a list of lists has the shape of its array.

    Parameters
    ----------
    value : array_like
        The student's result.
    shape : tuple of int
        The expected shape (``()`` for a scalar).
    what : str
        What ``value`` is, for the message.

    Returns
    -------
    None
        When the shape is right.

    Raises
    ------
    AssertionError
        If the shapes differ (the message shows both: shapes are never the secret).
    """
    arr = _asarray(value)
    assert arr.shape == _tuple(shape), f"{what} should have shape {_tuple(shape)}, but it has shape {arr.shape}."


def _show(x: np.ndarray) -> str:
    """A value for a message: scalars as ``0.707107`` (never ``1.``), arrays by NumPy."""
    return _format(_float(x), ".6g") if x.ndim == 0 else _array2string(x, precision=6)


def check_close(actual, expected, what: str, *, rtol: float = 1e-6, atol: float = 1e-9, reveal: bool = False,
                hint: str = ""):
    """Assert that ``actual`` is finite and close to ``expected``: ``|actual - expected| <= atol + rtol |expected|``.

    The comparison is NumPy's ``allclose`` rule, computed with this module's pristine references
    (patching ``numpy.allclose`` or ``numpy.isclose`` in the notebook changes nothing).

    Parameters
    ----------
    actual, expected : array_like
        The student's result and the right one; both are converted to float64 arrays.
    what : str
        What ``actual`` is, for the message.
    rtol, atol : float
        Relative and absolute tolerance.
    reveal : bool
        Show the expected value in the message (visible checks only: hidden-test messages reach
        the student through nbgrader's feedback).
    hint : str
        A sentence appended to the message when the values differ.

    Returns
    -------
    None
        When ``actual`` is finite and close to ``expected``.

    Raises
    ------
    AssertionError
        If the shapes differ, ``actual`` holds NaN or infinity, or a value is not close.
    """
    a = _asarray(actual, dtype=_float64)
    e = _asarray(expected, dtype=_float64)
    assert a.shape == e.shape, f"{what} should have shape {e.shape}, but it has shape {a.shape}."
    assert _isfinite(a).all(), f"{what} contains NaN or infinity."
    with _errstate(all="ignore"):
        close = (_absolute(a - e) <= atol + rtol * _absolute(e)).all()
    if not close:
        msg = f"{what} is not correct"
        if reveal:
            msg += f": expected {_show(e)}, got {_show(a)}"
        raise AssertionError(msg + (f". {hint}" if hint else "."))


def check_raises(func, exc_types, what: str):
    """Assert that ``func()`` raises one of ``exc_types``.

    Any other outcome fails with ``what``: an exception of another class (the message names it)
    or a normal return.

    Parameters
    ----------
    func : callable
        Called with no arguments (e.g. ``lambda: cosine([0, 0], [1, 1])``).
    exc_types : type or tuple of type
        The accepted exception classes.
    what : str
        The message's start, saying what should have happened.

    Returns
    -------
    None
        When ``func()`` raised one of ``exc_types``.

    Raises
    ------
    AssertionError
        If ``func()`` returns, or raises an exception of another class.
    """
    try:
        func()
    except exc_types:
        return
    except Exception as exc:  # a different error
        raise AssertionError(f"{what}: it raised {_type(exc).__name__} instead.") from None
    raise AssertionError(f"{what}: it returned without raising.")


def _snapshot(value):
    """Copies of the arrays in ``value`` (an array, or a list or tuple of them), or None."""
    if _isinstance(value, _ndarray):
        return _array(value, copy=True)
    if _isinstance(value, (list, _tuple)) and value and _all(_isinstance(v, _ndarray) for v in value):
        return [_array(v, copy=True) for v in value]
    return None


def check_unchanged(func, *args, what: str, **kwargs):
    """Call ``func(*args, **kwargs)`` and assert that it changed none of its array arguments.

    Give float64 arrays: ``np.asarray(x, dtype=float)`` returns such an ``x`` itself, not a copy,
    so an in-place ``x /= n`` or ``x -= m`` inside ``func`` writes into the caller's array, the
    mistake this check catches (with other dtypes ``np.asarray`` copies and hides it).

    Parameters
    ----------
    func : callable
        The student's function.
    *args
        Its positional arguments; each NumPy array (or list of arrays) among them is compared,
        exactly, with a copy taken before the call.
    what : str
        The call, for the message (e.g. ``"cosine(u, v)"``).
    **kwargs
        Its keyword arguments, compared in the same way.

    Returns
    -------
    object
        What ``func`` returned.

    Raises
    ------
    AssertionError
        Naming the first argument that changed.
    """
    named = [(f"argument {k + 1}", a) for k, a in _enumerate(args)] + [(f"argument {k}", a) for k, a in kwargs.items()]
    before = [(name, value, _snapshot(value)) for name, value in named]
    result = func(*args, **kwargs)
    for name, value, copy in before:
        if copy is None:
            continue
        same = (_array_equal(value, copy, equal_nan=True) if _isinstance(copy, _ndarray)
                else _all(_array_equal(v, c, equal_nan=True) for v, c in _zip(value, copy)))
        assert same, (f"{what} changed its {name}: the caller's array is different after the call. An in-place "
                      "operation (x /= n, x -= m, x[...] = ...) writes into the caller's array, and "
                      "np.asarray(x) does not copy an array that is already float: write x = x / n instead, "
                      "which makes a new array.")
    return result


def _same_argument(a, b) -> bool:
    """Whether a call's argument ``a`` is the listed argument ``b``: equal arrays (of any dtype), equal lists or
    tuples of them, or equal plain values."""
    if _isinstance(b, _ndarray) or _isinstance(a, _ndarray):
        try:
            x, y = _asarray(a, dtype=_float64), _asarray(b, dtype=_float64)
        except (TypeError, ValueError):
            return False
        return x.shape == y.shape and bool(_array_equal(x, y))
    if _isinstance(b, (list, _tuple)):
        return (_isinstance(a, (list, _tuple)) and _len(a) == _len(b)
                and _all(_same_argument(u, v) for u, v in _zip(a, b)))
    try:
        return bool(a is b or a == b)
    except Exception:  # noqa: BLE001 - values that cannot be compared are not the same
        return False


@contextlib.contextmanager
def known_values(namespace: dict, name: str, calls):
    """For the block, the function ``name`` of ``namespace`` answers the listed calls with the values listed.

    A visible check of a function that calls another exercise's function (``generalised_weat`` calls
    ``centroid``) gives it the right values of that function for the check's own inputs, written out in the
    test cell, so that a mistake in the other function shows in that function's check only. A call that is
    not listed goes to the notebook's own function. Afterwards the name is bound to what it was before.

    Parameters
    ----------
    namespace : dict
        The notebook's names: ``globals()`` in a test cell.
    name : str
        The function's name there.
    calls : list of tuple
        ``(arguments, value)`` pairs: ``arguments`` is a tuple of the call's positional arguments, or its one
        argument when it is not a tuple. A call matches when each argument (keyword arguments and defaults
        matched by the notebook's function's signature) equals the listed one (arrays compared as float64,
        exactly, lists and tuples item by item). Each call gets a new copy of its value (an array or list as a
        float64 array, anything else deep-copied), so that code that changes what it got changes no later answer.

    Yields
    ------
    list of tuple
        Every call made in the block, as ``(args, kwargs)``, listed or not (a check can read how it was called).

    Notes
    -----
    Use it around the value checks only: the checks that read code (:func:`check_vectorised`,
    :func:`check_own_work`) would read the stand-in's code in place of the notebook's function.

    Examples
    --------
    >>> def centroid(V):
    ...     return np.zeros(2)                      # a wrong centroid
    >>> def spread(V):
    ...     return float(np.linalg.norm(centroid(V)))
    >>> X = np.array([[3.0, 0.0], [0.0, 2.0]])
    >>> with known_values(globals(), "centroid", [(X, np.array([0.5, 0.5]))]):
    ...     print(round(spread(X), 4))
    0.7071
    >>> spread(X)
    0.0
    """
    missing = object()
    yours = namespace.get(name, missing)

    def positional(args, kwargs):
        """The call's arguments by position, defaults filled in from the notebook's function (if it has them)."""
        try:
            bound = _signature(yours).bind(*args, **kwargs)
        except (TypeError, ValueError):  # no signature, or a call it does not accept
            return args if not kwargs else None
        bound.apply_defaults()
        return bound.args

    listed = [(positional(args if _isinstance(args, _tuple) else (args,), {}), value) for args, value in calls]
    seen = []

    def stand_in(*args, **kwargs):
        seen.append((args, kwargs))
        given = positional(args, kwargs)
        for known, value in listed:
            if given is not None and known is not None and _len(known) == _len(given) \
                    and _all(_same_argument(a, k) for a, k in _zip(given, known)):
                # a copy each time: code that changes what it got (pops from a list) must not change the table
                return _array(value, dtype=_float64) if _isinstance(value, (_ndarray, list)) else _deepcopy(value)
        if yours is missing:
            raise NameError(f"name '{name}' is not defined")
        return yours(*args, **kwargs)

    stand_in.__name__ = stand_in.__qualname__ = name
    namespace[name] = stand_in
    try:
        yield seen
    finally:
        if yours is missing:
            namespace.pop(name, None)
        else:
            namespace[name] = yours


def _in_helpers(obj) -> bool:
    mod = obj.__name__ if _isinstance(obj, _ModuleType) else _getattr(obj, "__module__", None)
    return _isinstance(mod, _str) and (mod == "helpers" or mod.startswith("helpers."))


def _is_reference(obj) -> bool:
    return _callable(obj) and not _isinstance(obj, (_ModuleType, _type)) and _in_helpers(obj)


def _label(obj) -> str:
    return f"{obj.__module__}.{_getattr(obj, '__name__', '?')}"


def _codes(code):
    """``code`` and every code object nested in it (functions, classes, comprehensions), depth first."""
    todo = [code]
    while todo:
        code = todo.pop()
        todo.extend(c for c in code.co_consts if _isinstance(c, _CodeType))
        yield code


def _kept(f) -> list:
    """What function ``f`` keeps: its default and keyword-only default values and its closure's cells."""
    kept = [*(f.__defaults__ or ()), *(f.__kwdefaults__ or {}).values()]
    for cell in f.__closure__ or ():
        try:
            kept.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    return kept


# functions of these packages are not followed into (the student's own code is)
_LIBRARIES = ("numpy", "scipy", "matplotlib", "pandas", "functools", "collections", "itertools", "math",
              "statistics", "typing", "gensim", "IPython", "ipykernel", "builtins", "operator", "random")


def reference_calls(func, names=None) -> list[str]:
    """List the course's (``helpers``) functions that ``func`` uses, wherever it keeps them.

    Reads the bytecode and the function object, following:

    * global names that are ``helpers`` functions, and attribute chains that start at a
      ``helpers`` module (``helpers.statistics.cosine``, ``st.cosine``); attribute names on
      other objects (``kv.vectors``) do not count;
    * references kept in the function itself: default and keyword-only default values, closure
      cells, ``__wrapped__``, and inside those ``functools.partial`` objects, bound methods,
      callable objects of the student's classes, tuples, lists and dicts;
    * imports inside the function (``import helpers.statistics``, ``from helpers.statistics import
      cosine as c``), resolved by importing the module, so this works in a fresh process;
    * the student's own functions that ``func`` uses, recursively (nested functions too).

    A function that *is* a ``helpers`` function (``from helpers.statistics import cosine`` as the
    answer) counts whatever its name.

    Parameters
    ----------
    func : callable
        The student's function.
    names : iterable of str, optional
        Only report ``helpers`` functions with these names (e.g. ``("cosine",)``); default: any.

    Returns
    -------
    list of str
        Sorted, without duplicates, e.g. ``["helpers.statistics.cosine"]``; ``[]`` for own work.
    """
    names = None if names is None else _set(names)
    if _is_reference(func):  # the answer *is* a course function
        return [_label(func)]
    found: list[str] = []
    seen: set[int] = _set()

    def wanted(name) -> bool:
        return names is None or name in names

    def visit(obj):
        if _id(obj) in seen:
            return
        seen.add(_id(obj))
        if _is_reference(obj):
            if wanted(_getattr(obj, "__name__", "")):
                found.append(_label(obj))
            return
        if _isinstance(obj, _partial):
            visit(obj.func)
            for x in obj.args:
                visit(x)
            for x in obj.keywords.values():
                visit(x)
        elif _isinstance(obj, _MethodType):
            visit(obj.__func__)
            visit(obj.__self__)
        elif _isinstance(obj, (_tuple, list, _set, frozenset)):
            for x in obj:
                visit(x)
        elif _isinstance(obj, dict):
            for x in obj.values():
                visit(x)
        elif _isinstance(obj, _FunctionType):
            module = _getattr(obj, "__module__", None) or ""
            if module.split(".")[0] in _LIBRARIES:
                return
            read_function(obj)
        elif _callable(obj) and not _isinstance(obj, (_ModuleType, _type)) \
                and (_getattr(_type(obj), "__module__", "") or "").split(".")[0] not in _LIBRARIES + ("helpers",):
            visit(_getattr(_type(obj), "__call__", None))  # a callable object of the student's class
            visit(_getattr(obj, "__dict__", {}))

    def attributes_of(modules, attr):
        for m in modules:
            obj = _getattr(m, attr, None)
            if _is_reference(obj) and wanted(obj.__name__):
                found.append(_label(obj))
                return

    def read_function(f):
        kept = _kept(f)
        wrapped = f.__dict__.get("__wrapped__")
        if wrapped is not None:
            kept.append(wrapped)
        modules = [x for x in kept if _isinstance(x, _ModuleType) and _in_helpers(x)]
        for x in kept:
            visit(x)
        for code in _codes(f.__code__):
            ins = list(_get_instructions(code))
            local_modules = list(modules)
            for k, op in enumerate(ins):  # imports inside the function, resolved by importing them
                if op.opname == "IMPORT_NAME" and _str(op.argval).split(".")[0] == "helpers":
                    try:
                        local_modules.append(_import_module(_str(op.argval)))
                    except ImportError:
                        continue
                elif op.opname == "IMPORT_FROM" and local_modules:
                    obj = _getattr(local_modules[-1], op.argval, None)
                    if obj is None:
                        try:
                            obj = _import_module(f"{local_modules[-1].__name__}.{op.argval}")
                        except ImportError:
                            obj = None
                    if _isinstance(obj, _ModuleType) and _in_helpers(obj):
                        local_modules.append(obj)
                    elif obj is not None:
                        visit(obj)
            if local_modules:  # st.cosine where st is a helpers module kept or imported in the function
                for op in ins:
                    if op.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                        attributes_of(local_modules, op.argval)
            for i, op in enumerate(ins):
                if op.opname not in ("LOAD_GLOBAL", "LOAD_NAME"):
                    continue
                g = f.__globals__
                if op.argval in g:
                    obj = g[op.argval]
                else:
                    b = g.get("__builtins__")
                    obj = (b.get(op.argval) if _isinstance(b, dict) else _getattr(b, op.argval, None))
                if obj is None:
                    continue
                if _isinstance(obj, _ModuleType) and _in_helpers(obj):
                    j = i + 1  # follow helpers.statistics.cosine / st.cosine
                    while j < _len(ins) and ins[j].opname in ("LOAD_ATTR", "LOAD_METHOD") \
                            and _isinstance(obj, _ModuleType):
                        obj = _getattr(obj, ins[j].argval, None)
                        j += 1
                    if _is_reference(obj) and wanted(obj.__name__):
                        found.append(_label(obj))
                elif not _isinstance(obj, _ModuleType):
                    visit(obj)

    visit(func)
    return _sorted(_set(found))


def _spy_targets(names):
    """The reference functions called ``names`` (any name if empty) in the course's modules."""
    targets = {}
    for module_name in _REFERENCE_MODULES:
        try:
            module = _import_module(module_name)
        except ImportError:
            continue
        for name, obj in list(vars(module).items()):
            if (not names or name in names) and _isinstance(obj, _FunctionType) and _in_helpers(obj):
                targets[_id(obj)] = obj
    return list(targets.values())


_SPY_SOURCE = "def spy(*args, **kwargs):\n    return __course_spy__[{key}](*args, **kwargs)\n"


@contextlib.contextmanager
def _watch(names, used: list):
    """While active, every call of the reference functions ``names`` from outside ``helpers``
    appends its label to ``used``, however the caller got hold of the function (module
    attribute, default argument, closure, ``functools.partial``, bound method...).

    The function objects themselves are instrumented (their ``__code__`` is swapped for a spy
    and back), so a reference captured before the check starts is watched too. Calls from inside
    ``helpers`` (a reference function calling another) do not count.
    """
    swapped = []
    try:
        for k, f in enumerate(_spy_targets(names)):
            if f.__closure__:  # a spy must have the same free variables: watch the module attribute only
                continue
            clone = _FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
            clone.__kwdefaults__ = f.__kwdefaults__
            label = _label(f)

            def recorder(*args, __clone=clone, __label=label, **kwargs):
                caller = _getframe(2).f_globals.get("__name__", "")
                if not (_isinstance(caller, _str) and caller.startswith("helpers.") and caller != __name__):
                    used.append(__label)
                return __clone(*args, **kwargs)

            namespace = {}
            exec(_SPY_SOURCE.format(key=k), {}, namespace)  # noqa: S102 - our own fixed source
            registry = f.__globals__.setdefault("__course_spy__", {})
            registry[k] = recorder
            swapped.append((f, f.__code__))
            f.__code__ = namespace["spy"].__code__
        yield
    finally:
        for f, code in swapped:
            f.__code__ = code
            f.__globals__.pop("__course_spy__", None)


def check_own_work(func, *names: str, run=None, what: str | None = None):
    """Assert that ``func`` is the student's own work, not the course's reference implementation.

    Two checks in one:

    1. the code: :func:`reference_calls` reads ``func`` (and what it keeps: defaults, closures,
       ``functools.partial``, ``__wrapped__``, bound methods, imports inside it, the student's
       own functions it calls) for the reference functions ``names``;
    2. the run (if ``run`` is given): ``run()`` is called while the reference functions ``names``
       are watched, so a call through any path the code check cannot see is noticed too.

    Parameters
    ----------
    func : callable
        The student's function.
    *names : str
        Names of the reference functions the exercise asks the student to write (e.g.
        ``"cosine"``); without names, every ``helpers`` function counts.
    run : callable, optional
        Zero-argument callable that exercises ``func`` (e.g. ``lambda: cosine(u, v)``).
    what : str, optional
        How the message names ``func`` (default: its name in backquotes).

    Returns
    -------
    object
        Whatever ``run()`` returned (None without ``run``).

    Raises
    ------
    AssertionError
        If ``func`` uses, or ``run()`` calls, one of the reference functions.
    """
    label = what or f"`{_getattr(func, '__name__', 'your function')}`"
    used = reference_calls(func, names or None)
    assert not used, (f"{label} calls the course's reference implementation ({', '.join(used)}). "
                      "This exercise asks you to write it yourself with NumPy.")
    if run is None:
        return None
    called: list[str] = []
    with _watch(names, called):
        result = run()
    assert not called, (f"{label} calls the course's reference implementation ({called[0]}). "
                        "This exercise asks you to write it yourself with NumPy.")
    return result


def check_not_using(func, *names: str, what: str | None = None, hint: str = ""):
    """Assert that ``func`` and the notebook's own functions it uses do not use the library functions ``names``.

    ``names`` are dotted (``"scipy.stats.false_discovery_control"``). The code uses one when it names
    its last part (a global, an attribute, an import or a string) or a global name bound to the
    function itself (``fdc = stats.false_discovery_control``). The visible twin of the grader's rule
    (``helpers.grading.judge``), which reads the notebook's source instead; like every rule that reads code,
    it misses a function hidden well enough.

    Parameters
    ----------
    func : function
        The student's function.
    *names : str
        Dotted names of the forbidden library functions.
    what : str, optional
        How the message names ``func`` (default: its name in backquotes).
    hint : str
        A sentence appended to the message.

    Returns
    -------
    None
        When none of ``names`` is used.

    Raises
    ------
    AssertionError
        Naming the forbidden function and the name it was used under.
    """
    label = what or f"`{_getattr(func, '__name__', 'your function')}`"
    targets = {}
    for dotted in names:
        module, _, attr = dotted.rpartition(".")
        try:
            targets[attr] = _getattr(_import_module(module), attr, None)
        except ImportError:
            targets[attr] = None
    objects = [t for t in targets.values() if t is not None]
    used = _set()
    functions = _own_functions(func) or ([func] if _isinstance(func, _FunctionType) else [])
    for f in functions:
        used.update(_getattr(x, "__name__", "?") for x in _kept(f) if _any_is(x, objects))
        for code in _codes(f.__code__):
            for n in (*code.co_names, *(c for c in code.co_consts if _isinstance(c, _str))):
                if n in targets or _any_is(f.__globals__.get(n), objects):
                    used.add(n)
    tail = f" {hint}" if hint else ""
    assert not used, f"{label} uses {', '.join(names)} (as {', '.join(_sorted(used))}).{tail}"


def _any_is(x, objects) -> bool:
    return x is not None and _any(x is o for o in objects)


_is_disguised_loop = _sourcecode.is_disguised_loop


def _path_of(obj, name: str) -> str:
    """The dotted path of a global object as :func:`helpers.sourcecode.is_disguised_loop` reads it."""
    if _isinstance(obj, _ModuleType):
        return obj.__name__
    module = _getattr(obj, "__module__", None)
    module = module[1:] if module in ("_functools", "_operator") else module  # functools.reduce is _functools'
    return f"{module}.{_getattr(obj, '__name__', name)}" if _isinstance(module, _str) else name


def disguised_loops(func) -> list[str]:
    """List the loops in disguise that the code of ``func`` uses.

    ``map``, ``filter``, ``functools.reduce``, ``itertools``, ``np.vectorize``, ``np.apply_along_axis`` and the
    rest of :data:`helpers.sourcecode.LOOPS_IN_DISGUISE` (the one list the scan and the judge read too). Global
    names are resolved to the objects they are bound to (``from functools import reduce as r``
    is ``functools.reduce``), attribute chains on a module are followed (``np.add.reduce`` is a ufunc's
    whole-array reduction, not one), and the objects ``func`` keeps (default values, closure cells) count.

    Parameters
    ----------
    func : function
        A Python function (its nested functions, lambdas and comprehensions are read too).

    Returns
    -------
    list of str
        Sorted dotted names, without duplicates; ``[]`` when none is used.
    """
    code0 = _getattr(func, "__code__", None)
    if not _isinstance(code0, _CodeType):
        return []
    found = _set()
    for x in _kept(func):
        if _callable(x) or _isinstance(x, _ModuleType):
            path = _path_of(x, "?")
            if _is_disguised_loop(path):
                found.add(path)
    g = func.__globals__
    b = g.get("__builtins__")
    attributes = _set()
    for code in _codes(code0):
        attributes.update(n for n in code.co_names if n in _sourcecode.LOOPING_ATTRIBUTES)
        ins = _list(_get_instructions(code))
        for i, op in _enumerate(ins):
            if op.opname not in ("LOAD_GLOBAL", "LOAD_NAME"):
                continue
            name = _str(op.argval)
            if name in g:
                obj = g[name]
            else:
                obj = b.get(name) if _isinstance(b, dict) else _getattr(b, name, None)
            if obj is None:
                continue
            path, disguised, j = _path_of(obj, name), False, i + 1
            while True:
                disguised = disguised or _is_disguised_loop(path)
                if j >= _len(ins) or ins[j].opname not in ("LOAD_ATTR", "LOAD_METHOD"):
                    break
                path, j = f"{path}.{ins[j].argval}", j + 1
            if disguised:
                found.add(path)
    found.update(a for a in attributes if not _any(p.endswith("." + a) for p in found))
    return _sorted(found)


def python_loops(func) -> list[str]:
    """The loop constructs (``for``, ``while``, comprehensions) in the code of ``func``.

    Read from the bytecode, not the source: a ``FOR_ITER`` instruction or a backward jump is a
    loop, in ``func``'s code and in every code object nested in it. A loop in a comment or a
    string does not count.

    Parameters
    ----------
    func : function
        A Python function (its nested functions and comprehensions are read too).

    Returns
    -------
    list of str
        One ``"<code name>: <opcode>"`` per backward jump or ``FOR_ITER``; ``[]`` for loop-free code.
    """
    code0 = _getattr(func, "__code__", None)
    if not _isinstance(code0, _CodeType):
        return []
    found = []
    for code in _codes(code0):
        for ins in _get_instructions(code):
            if ins.opname == "FOR_ITER" or "BACKWARD" in ins.opname or ins.opname == "JUMP_ABSOLUTE":
                found.append(f"{code.co_name}: {ins.opname}")
    return found


def _own_functions(func) -> list:
    """``func`` and the notebook's own functions it uses, directly or indirectly (and what they keep)."""
    out, seen, todo = [], _set(), [func]
    while todo:
        f = todo.pop()
        if _isinstance(f, _partial):
            todo.append(f.func)
            continue
        if _isinstance(f, _MethodType):
            todo.append(f.__func__)
            continue
        if not _isinstance(f, _FunctionType) or _id(f) in seen or _getattr(f, "__module__", None) != "__main__":
            continue
        seen.add(_id(f))
        out.append(f)
        todo.extend(_kept(f))
        for code in _codes(f.__code__):
            todo.extend(f.__globals__.get(n) for n in code.co_names)
    return out


def check_vectorised(func, what: str | None = None, *, follow: bool = True, hint: str = ""):
    """Assert that ``func`` has no Python loop (``for``, ``while``, comprehension) or loop in disguise.

    Loop statements are found in the bytecode (:func:`python_loops`); loops in disguise by the
    functions ``func`` calls (:func:`disguised_loops`, see ``follow``), and recursion (a function of
    the notebook that calls itself again, directly or through others) counts as a loop too. A
    comprehension is a loop: Python runs its body once per element. The grader's twin,
    ``helpers.grading.judge``, reads the same forms (:mod:`helpers.sourcecode`) from the notebook's source.

    Parameters
    ----------
    func : function
        The student's function.
    what : str, optional
        How the message names ``func`` (default: its name).
    follow : bool
        Also read the notebook's own functions that ``func`` uses, directly or indirectly, and
        look for loops in disguise (``np.vectorize``, ``np.apply_along_axis``, ``map``, ``filter``,
        ``functools.reduce``, ``itertools``, ...: :data:`helpers.sourcecode.LOOPS_IN_DISGUISE`) and
        recursion. With ``follow=False`` only ``func``'s own code is read for loop statements (a
        visible check that says so).
    hint : str
        A sentence appended to the message (what to use instead).

    Returns
    -------
    None
        When no loop is found.

    Raises
    ------
    AssertionError
        Naming the function that loops.
    """
    label = what or _getattr(func, "__name__", "your function")
    tail = f" {hint}" if hint else ""
    assert not python_loops(func), f"{label} contains a Python loop (for, while or a comprehension).{tail}"
    if not follow:
        return
    for f in _own_functions(func):
        assert not python_loops(f), (f"{label} calls your function {f.__name__}, which contains a Python loop; "
                                     f"{label} must be vectorised all the way down.{tail}")
        disguised = disguised_loops(f)
        assert not disguised, (f"{f.__name__} loops in disguise ({', '.join(disguised)}); "
                               f"use whole-array NumPy operations instead.{tail}")
    recursive = _recursive(func)
    assert not recursive, (f"{label} calls itself again (through {', '.join(recursive)}): recursion runs Python "
                           f"code once per step, a loop; use whole-array NumPy operations instead.{tail}")


def _recursive(func) -> list[str]:
    """The notebook's own functions, among those ``func`` uses, that call themselves again (directly or not)."""
    own = _own_functions(func)
    ids = {_id(f): f for f in own}
    edges = {}
    for f in own:
        reached = _set()
        for x in _kept(f):
            if _id(x) in ids:
                reached.add(_id(x))
        for code in _codes(f.__code__):
            reached.update(_id(f.__globals__.get(n)) for n in code.co_names if _id(f.__globals__.get(n)) in ids)
        edges[_id(f)] = reached
    out = []
    for start in edges:
        seen, todo = _set(), _list(edges[start])
        while todo:
            k = todo.pop()
            if k == start:
                out.append(ids[start].__name__)
                break
            if k not in seen:
                seen.add(k)
                todo.extend(edges.get(k, ()))
    return _sorted(out)
