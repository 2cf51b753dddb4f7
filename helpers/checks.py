"""Checks used by the notebooks' visible and hidden test cells.

Each check raises ``AssertionError`` with a message that says which property is wrong (type,
then shape, then value) without printing the expected value unless ``reveal=True`` (visible
checks only: hidden-test messages appear in nbgrader's feedback). :func:`quiet` keeps a test
cell silent: nbgrader scores a test cell 0 when it writes anything to stderr, even when the
answer is right, so every test cell runs the student's code inside it.
"""
from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np

__all__ = ["quiet", "check_callable", "check_type", "check_shape", "check_close", "check_raises",
           "reference_calls", "check_own_work", "check_no_reference_call"]


@contextlib.contextmanager
def quiet():
    """Swallow warnings, NumPy floating-point warnings and anything written to stderr."""
    with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def check_callable(obj, name: str):
    assert callable(obj), f"`{name}` should be a function; did you run the cell that defines it?"


def check_type(value, types, what: str):
    names = types.__name__ if isinstance(types, type) else " or ".join(t.__name__ for t in types)
    assert isinstance(value, types), f"{what} should be a {names}, but it is a {type(value).__name__}."


def check_shape(value, shape: tuple, what: str):
    arr = np.asarray(value)
    assert arr.shape == tuple(shape), f"{what} should have shape {tuple(shape)}, but it has shape {arr.shape}."


def _show(x: np.ndarray) -> str:
    """A value for a message: scalars as ``0.707107`` (never ``1.``), arrays by NumPy."""
    return format(float(x), ".6g") if x.ndim == 0 else np.array2string(x, precision=6)


def check_close(actual, expected, what: str, *, rtol: float = 1e-6, atol: float = 1e-9, reveal: bool = False,
                hint: str = ""):
    """Assert ``actual`` is finite and close to ``expected``; the message shows the expected value only if ``reveal``."""
    a = np.asarray(actual, dtype=float)
    e = np.asarray(expected, dtype=float)
    assert a.shape == e.shape, f"{what} should have shape {e.shape}, but it has shape {a.shape}."
    assert np.isfinite(a).all(), f"{what} contains NaN or infinity."
    if not np.allclose(a, e, rtol=rtol, atol=atol):
        msg = f"{what} is not correct"
        if reveal:
            msg += f": expected {_show(e)}, got {_show(a)}"
        raise AssertionError(msg + (f". {hint}" if hint else "."))


def check_raises(func, exc_types, what: str):
    """Assert that ``func()`` raises one of ``exc_types`` (any other outcome fails with ``what``)."""
    try:
        func()
    except exc_types:
        return
    except Exception as exc:  # a different error
        raise AssertionError(f"{what}: it raised {type(exc).__name__} instead.") from None
    raise AssertionError(f"{what}: it returned without raising.")


def reference_calls(func, names=None, _seen=None) -> list[str]:
    """Names of ``helpers`` functions that ``func`` uses, directly or through functions it calls.

    Follows the global names a function's code refers to (and the code of nested functions),
    recursing into the student's own functions. ``names`` restricts the answer to helpers
    functions with those names (e.g. ``("cosine",)``). Used to check that an exercise is the
    student's own work rather than a call to the course's reference implementation.
    """
    import types

    seen = _seen if _seen is not None else set()
    found: list[str] = []
    own_module = getattr(func, "__module__", None) or ""
    if callable(func) and own_module.startswith("helpers") and _seen is None:
        # the answer *is* a course function, e.g. `from helpers.statistics import cosine`: whatever
        # its name, it is not the student's own work
        return [f"{own_module}.{getattr(func, '__name__', '?')}"]
    if not isinstance(func, types.FunctionType) or id(func) in seen:
        return found
    seen.add(id(func))
    codes = [func.__code__]
    while codes:
        code = codes.pop()
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        for name in code.co_names:
            obj = func.__globals__.get(name)
            if obj is None:
                continue
            module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
            if isinstance(obj, types.ModuleType) and obj.__name__.startswith("helpers"):
                # e.g. `helpers.statistics.cosine(...)` or `st.cosine(...)`: check the attributes used
                for attr in code.co_names:
                    target = getattr(obj, attr, None)
                    if callable(target) and (names is None or attr in names):
                        found.append(f"{obj.__name__}.{attr}")
            elif module.startswith("helpers") and callable(obj):
                if names is None or getattr(obj, "__name__", name) in names:
                    found.append(f"{module}.{getattr(obj, '__name__', name)}")
            elif isinstance(obj, types.FunctionType):
                found += reference_calls(obj, names, seen)
    return sorted(set(found))


def check_own_work(func, *names: str, what: str | None = None):
    """Assert that ``func`` does not call the reference implementation of ``names`` in ``helpers``."""
    used = reference_calls(func, names or None)
    label = what or f"`{getattr(func, '__name__', 'your function')}`"
    assert not used, (f"{label} calls the course's reference implementation ({', '.join(used)}). "
                      "This exercise asks you to write it yourself with NumPy.")


def check_no_reference_call(call, *names: str, what: str, module: str = "helpers.statistics"):
    """Run ``call()`` while the reference functions ``names`` of ``module`` record their use; assert none ran.

    Complements :func:`check_own_work` (which reads the code): this one notices a call to the
    reference through any import path at run time, e.g. ``import helpers.statistics as h; h.cosine``.
    Returns whatever ``call()`` returned.
    """
    import importlib

    mod = importlib.import_module(module)
    used: list[str] = []
    saved = {n: getattr(mod, n) for n in names}

    def spy(name, func):
        def wrapper(*args, **kwargs):
            used.append(name)
            return func(*args, **kwargs)
        return wrapper

    for n, f in saved.items():
        setattr(mod, n, spy(n, f))
    try:
        result = call()
    finally:
        for n, f in saved.items():
            setattr(mod, n, f)
    assert not used, (f"{what} calls the course's reference implementation ({module}.{used[0]}). "
                      "This exercise asks you to write it yourself with NumPy.")
    return result
