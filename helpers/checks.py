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

__all__ = ["quiet", "check_callable", "check_type", "check_shape", "check_close", "check_raises"]


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
            msg += f": expected {np.array2string(e, precision=6)}, got {np.array2string(a, precision=6)}"
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
