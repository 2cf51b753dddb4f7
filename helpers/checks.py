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

    Reads the bytecode: a global name that is a ``helpers`` function counts, and so does an
    attribute chain that starts at a ``helpers`` module (``helpers.statistics.cosine``,
    ``st.cosine``); attribute names elsewhere (``kv.vectors``) do not. Nested functions are read
    too, and the student's own functions are followed recursively. A function that *is* a
    ``helpers`` function (``from helpers.statistics import cosine`` as the answer) counts as well.
    ``names`` restricts the answer to helpers functions with those names (e.g. ``("cosine",)``).
    Used to check that an exercise is the student's own work rather than the course's reference.
    """
    import dis
    import types

    def in_helpers(obj) -> bool:
        mod = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
        return isinstance(mod, str) and (mod == "helpers" or mod.startswith("helpers."))

    def wanted(name: str) -> bool:
        return names is None or name in names

    seen = _seen if _seen is not None else set()
    if _seen is None and callable(func) and not isinstance(func, types.ModuleType) and in_helpers(func):
        # the answer *is* a course function: whatever its name, it is not the student's own work
        return [f"{func.__module__}.{getattr(func, '__name__', '?')}"]
    if not isinstance(func, types.FunctionType) or id(func) in seen:
        return []
    seen.add(id(func))
    found: list[str] = []
    codes = [func.__code__]
    while codes:
        code = codes.pop()
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        ins = list(dis.get_instructions(code))
        if any(op.opname == "IMPORT_NAME" and str(op.argval).split(".")[0] == "helpers" for op in ins):
            # `import helpers.statistics` or `from helpers.statistics import cosine` inside the
            # function: every imported or attribute name that is a helpers function counts
            import sys as _sys

            modules = [m for k, m in list(_sys.modules.items()) if k == "helpers" or k.startswith("helpers.")]
            for op in ins:
                if op.opname in ("IMPORT_FROM", "LOAD_ATTR", "LOAD_METHOD") and wanted(str(op.argval)):
                    for m in modules:
                        obj = getattr(m, str(op.argval), None)
                        if callable(obj) and not isinstance(obj, types.ModuleType) and in_helpers(obj):
                            found.append(f"{obj.__module__}.{obj.__name__}")
                            break
        for i, op in enumerate(ins):
            if op.opname not in ("LOAD_GLOBAL", "LOAD_NAME"):
                continue
            obj = func.__globals__.get(op.argval, getattr(func.__globals__.get("__builtins__"), op.argval, None))
            if obj is None:
                continue
            if isinstance(obj, types.ModuleType) and in_helpers(obj):
                j = i + 1  # follow helpers.statistics.cosine / st.cosine
                while j < len(ins) and ins[j].opname in ("LOAD_ATTR", "LOAD_METHOD") and isinstance(obj, types.ModuleType):
                    obj = getattr(obj, ins[j].argval, None)
                    j += 1
                if callable(obj) and not isinstance(obj, types.ModuleType) and in_helpers(obj) and wanted(obj.__name__):
                    found.append(f"{obj.__module__}.{obj.__name__}")
            elif callable(obj) and in_helpers(obj):
                if wanted(getattr(obj, "__name__", op.argval)):
                    found.append(f"{obj.__module__}.{getattr(obj, '__name__', op.argval)}")
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
