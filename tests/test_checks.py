"""helpers.checks: the functions the notebooks' test cells rely on."""
import sys
import warnings

import numpy as np
import pytest

import helpers
import helpers.statistics as st
from helpers.checks import (check_close, check_no_reference_call, check_own_work, check_raises, quiet,
                            reference_calls)
from helpers.embeddings import vectors  # noqa: F401  (a helpers function whose name is also an attribute name)
from helpers.statistics import cosine as imported_cosine


def via_module(u, v):
    return st.cosine(u, v)


def via_import(u, v):
    return imported_cosine(u, v)


def via_full_path(u, v):
    return helpers.statistics.cosine(u, v)


def via_my_helper(u, v):
    return via_import(u, v)


def via_closure(u, v):
    def inner():
        return st.association(u, v, v)
    return inner()


def import_inside(u, v):
    import helpers.statistics
    return helpers.statistics.cosine(u, v)


def from_import_inside(u, v):
    from helpers.statistics import cosine as c
    return c(u, v)


def attribute_named_like_helpers(kv):
    return kv.vectors[:3], kv.cosine


def own_work(u, v):
    return float(np.dot(u, v) / np.linalg.norm(u) / np.linalg.norm(v))


@pytest.mark.parametrize("func, expected", [
    (via_module, ["helpers.statistics.cosine"]),
    (via_import, ["helpers.statistics.cosine"]),
    (via_full_path, ["helpers.statistics.cosine"]),
    (via_my_helper, ["helpers.statistics.cosine"]),
    (via_closure, ["helpers.statistics.association"]),
    (import_inside, ["helpers.statistics.cosine"]),
    (from_import_inside, ["helpers.statistics.cosine"]),
    (imported_cosine, ["helpers.statistics.cosine"]),  # the answer *is* the reference
    (attribute_named_like_helpers, []),  # kv.vectors is not helpers.embeddings.vectors
    (own_work, []),
])
def test_reference_calls(func, expected):
    assert reference_calls(func) == expected


def test_reference_calls_restricted_to_names():
    assert reference_calls(via_module, ("association",)) == []
    assert reference_calls(via_closure, ("association",)) == ["helpers.statistics.association"]


def test_check_own_work_messages():
    check_own_work(own_work, "cosine")
    with pytest.raises(AssertionError, match=r"reference implementation \(helpers\.statistics\.cosine\)"):
        check_own_work(via_module, "cosine")


def test_check_no_reference_call_sees_calls_through_the_module_and_restores_it():
    original = st.cosine
    with pytest.raises(AssertionError, match="helpers.statistics.cosine"):
        check_no_reference_call(lambda: via_module([1, 0], [1, 1]), "cosine", what="via_module")
    assert st.cosine is original
    assert check_no_reference_call(lambda: own_work([1, 0], [1, 1]), "cosine", what="own") == pytest.approx(2 ** -0.5)


def test_quiet_swallows_stderr_and_warnings(capfd):
    with quiet():
        warnings.warn("noise")
        print("noise", file=sys.stderr)
        np.log(np.zeros(1))
    assert capfd.readouterr().err == ""


def test_check_close_reveals_only_when_asked():
    with pytest.raises(AssertionError) as hidden:
        check_close(0.5, 0.7071067811865476, "the cosine")
    assert "0.707" not in str(hidden.value) and "0.5" not in str(hidden.value)
    with pytest.raises(AssertionError, match=r"expected 0\.707107, got 0\.5\.$"):
        check_close(0.5, 0.7071067811865476, "the cosine", reveal=True)
    with pytest.raises(AssertionError, match="NaN"):
        check_close(float("nan"), 1.0, "x")


def test_check_raises():
    check_raises(lambda: 1 / 0, ZeroDivisionError, "divide")
    with pytest.raises(AssertionError, match="returned without raising"):
        check_raises(lambda: 1, ValueError, "f(1) should raise")
    with pytest.raises(AssertionError, match="raised KeyError instead"):
        check_raises(lambda: {}[1], ValueError, "f should raise ValueError")
