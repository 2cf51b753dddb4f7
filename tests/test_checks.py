"""helpers.checks: the functions the notebooks' test cells rely on."""
import functools
import subprocess
import sys
import warnings

import numpy as np
import pytest

import helpers
import helpers.statistics as st
from helpers.checks import (check_close, check_not_using, check_own_work, check_raises, check_type, check_unchanged, check_vectorised,
                            explain, python_loops, quiet, reference_calls)
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


def test_check_own_work_run_sees_calls_through_the_module_and_restores_it():
    original, code = st.cosine, st.cosine.__code__
    with pytest.raises(AssertionError, match="helpers.statistics.cosine"):
        check_own_work(own_work, "cosine", run=lambda: via_module([1, 0], [1, 1]), what="via_module")
    assert st.cosine is original and st.cosine.__code__ is code and "__course_spy__" not in vars(st)
    assert check_own_work(own_work, "cosine", run=lambda: own_work([1, 0], [1, 1])) == pytest.approx(2 ** -0.5)


# the reference kept wherever a function can keep it (issue 10, item 5)
def kept_in_default(u, v, _f=helpers.statistics.cosine):
    return _f(u, v)


def kept_in_kwdefault(u, v, *, _f=st.cosine):
    return _f(u, v)


def _closure_over(reference):
    return lambda u, v: reference(u, v)


kept_in_closure = _closure_over(st.cosine)
_partial = functools.partial(st.cosine)


def kept_in_partial(u, v):
    return _partial(u, v)


def kept_in_wrapped(u, v):
    return float(np.dot(u, v))


kept_in_wrapped.__wrapped__ = st.cosine


class _Holder:
    def cosine(self, u, v):
        return st.cosine(u, v)


kept_in_bound_method = _Holder().cosine


@functools.wraps(st.cosine)
def kept_by_wraps(u, v):
    return float(np.dot(u, v))


def module_in_default(u, v, _m=st):
    return _m.cosine(u, v)


def kept_in_tuple(u, v, _fs=(st.cosine,)):
    return _fs[0](u, v)


@pytest.mark.parametrize("func", [kept_in_default, kept_in_kwdefault, kept_in_closure, kept_in_partial,
                                  functools.partial(st.cosine), kept_in_wrapped, kept_in_bound_method,
                                  module_in_default, kept_in_tuple, kept_by_wraps])
def test_reference_calls_sees_the_reference_wherever_the_function_keeps_it(func):
    assert reference_calls(func, ("cosine",)) == ["helpers.statistics.cosine"]
    with pytest.raises(AssertionError, match="reference implementation"):
        check_own_work(func, "cosine")


@pytest.mark.parametrize("func", [kept_in_default, kept_in_kwdefault, kept_in_closure, kept_in_partial,
                                  kept_in_bound_method, module_in_default, kept_in_tuple])
def test_the_run_time_watch_sees_a_reference_captured_before_it_started(func):
    """The function object itself is watched, so a reference kept anywhere is noticed when it runs."""
    with pytest.raises(AssertionError, match=r"helpers\.statistics\.cosine"):
        check_own_work(own_work, "cosine", run=lambda: func([1.0, 0.0], [1.0, 1.0]))
    assert st.cosine([1.0, 0.0], [1.0, 1.0]) == pytest.approx(2 ** -0.5)  # restored


def draws_via_a_computed_name(null, observed, ax):
    import importlib

    return getattr(importlib.import_module("helpers." + "plots"), "null_" + "distribution")(null, observed, ax=ax)


def test_the_run_time_watch_sees_the_course_figures():
    """A figure exercise (05's null distribution): a call of helpers.plots that reading the code cannot see."""
    from matplotlib.figure import Figure

    from helpers import plots

    ax = Figure().subplots()
    assert reference_calls(draws_via_a_computed_name, ("null_distribution",)) == []
    with pytest.raises(AssertionError, match=r"helpers\.plots\.null_distribution"):
        check_own_work(draws_via_a_computed_name, "null_distribution",
                       run=lambda: draws_via_a_computed_name(np.arange(10.0), 5.0, ax))
    assert "__course_spy__" not in vars(plots) and plots.null_distribution(np.arange(10.0), 5.0, ax=ax) is ax


def test_the_run_time_watch_ignores_the_reference_calling_itself():
    # helpers.statistics.association uses cosine_matrix/unit_rows internally: allowed, not the student's call
    check_own_work(own_work, "cosine_matrix", "unit_rows", run=lambda: st.association([1.0, 0.0], [[1.0, 1.0]], [[0.0, 1.0]]))


def test_reference_calls_resolves_imports_inside_a_function_in_a_fresh_process():
    code = ("import numpy as np\n"
            "from helpers.checks import reference_calls\n"
            "def f(u, v):\n"
            "    from helpers.statistics import cosine as c\n"
            "    return c(u, v)\n"
            "def g(u, v):\n"
            "    import helpers.weat\n"
            "    return helpers.weat.run_weat(u, v)\n"
            "def h(u, v):\n"
            "    from helpers import statistics\n"
            "    return statistics.cosine(u, v)\n"
            "import sys\n"
            "assert not [m for m in sys.modules if m.startswith('helpers.') and m not in ('helpers.checks', "
            "'helpers.sourcecode')]\n"
            "print(reference_calls(f), reference_calls(g), reference_calls(h))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["['helpers.statistics.cosine']", "['helpers.weat.run_weat']", "['helpers.statistics.cosine']"]


def test_checks_ignore_patched_numpy_and_builtins(monkeypatch):
    """Pristine references: patching numpy after import switches no check off."""
    monkeypatch.setattr(np, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(np, "isclose", lambda *a, **k: np.ones(np.shape(a[0]), dtype=bool))
    monkeypatch.setattr(np, "isfinite", lambda *a, **k: np.ones(np.shape(a[0]), dtype=bool))
    monkeypatch.setattr(np, "asarray", lambda x, *a, **k: np.zeros(3))
    with pytest.raises(AssertionError, match="not correct"):
        check_close(0.5, 0.7071067811865476, "the cosine")
    with pytest.raises(AssertionError, match="NaN"):
        check_close(float("nan"), 1.0, "x")
    with pytest.raises(AssertionError, match="should be a float"):
        check_type("0.7", float, "x")


def test_checks_ignore_patched_builtins():
    # in a child process: patching builtins here would break pytest itself
    code = ("import builtins\n"
            "from helpers.checks import check_type, check_callable\n"
            "builtins.isinstance = lambda *a: True\n"
            "builtins.issubclass = lambda *a: True\n"
            "builtins.callable = lambda *a: True\n"
            "for f in (lambda: check_type('0.7', float, 'x'), lambda: check_callable(3, 'f')):\n"
            "    try:\n"
            "        f()\n"
            "    except AssertionError:\n"
            "        print('caught')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["caught", "caught"]


def test_check_type_reads_the_real_class():
    class Liar:
        @property
        def __class__(self):
            return float

    assert isinstance(Liar(), float)  # isinstance believes __class__
    with pytest.raises(AssertionError, match="should be a float, but it is a Liar"):
        check_type(Liar(), float, "x")
    check_type(np.float64(0.5), float, "x")  # subclasses count


def vectorised(U, V):
    return U @ V.T


def _loop_helper(U):
    return np.array([u / np.linalg.norm(u) for u in U])


def calls_a_looping_helper(U, V):
    return _loop_helper(U) @ _loop_helper(V).T


def disguised(U, V):
    return np.vectorize(lambda a, b: a * b)(U, V)


def looping(U, V):
    out = []
    for u in U:
        out.append(u @ V.T)
    return np.array(out)


def test_check_vectorised():
    check_vectorised(vectorised)
    assert python_loops(looping) and not python_loops(vectorised)
    with pytest.raises(AssertionError, match=r"looping contains a Python loop .* Use @\.$"):
        check_vectorised(looping, hint="Use @.")
    check_vectorised(calls_a_looping_helper, follow=False)  # its own code has no loop
    calls_a_looping_helper.__module__ = "__main__"  # as in a notebook
    _loop_helper.__module__ = "__main__"
    disguised.__module__ = "__main__"
    try:
        with pytest.raises(AssertionError, match="calls your function _loop_helper, which contains a Python loop"):
            check_vectorised(calls_a_looping_helper)
        with pytest.raises(AssertionError, match=r"loops in disguise \(numpy\.vectorize\)"):
            check_vectorised(disguised)
    finally:
        calls_a_looping_helper.__module__ = _loop_helper.__module__ = disguised.__module__ = __name__


def test_quiet_swallows_stderr_and_warnings(capfd):
    with quiet():
        warnings.warn("noise")
        print("noise", file=sys.stderr)
        np.log(np.zeros(1))
    assert capfd.readouterr().err == ""


def _unit_rows_without_t(U, V):
    return U @ V  # the missing .T


def _normalise_in_place(x):
    x = np.asarray(x, dtype=float)
    x /= np.linalg.norm(x)
    return x


def _seed_with_generator(rng):
    np.random.seed(rng)


# Each slip a student makes, called for real, and the words the explanation must contain.
SLIPS = [
    (lambda: _unit_rows_without_t(np.ones((2, 3)), np.ones((4, 3))), "ValueError", ".T"),
    (lambda: np.ones((1, 3)) - np.ones((1, 2)), "ValueError", "keepdims=True"),
    (lambda: np.arange(3).__itruediv__(2.0), "UFuncTypeError", "np.asarray(x) returns x itself"),
    (lambda: _seed_with_generator(np.random.default_rng(0)), "TypeError", "draw from the Generator"),
    (lambda: (5).permutation(np.arange(3)), "AttributeError", "np.random.default_rng(rng)"),
    (lambda: np.random.default_rng(0).randint(3), "AttributeError", "rng.integers"),
    (lambda: np.random.permutation(np.arange(3), np.random.default_rng(0)), "TypeError", "rng.permutation(x)"),
    (lambda: np.random.default_rng(0)(3), "TypeError", "not a function"),
    (lambda: np.random.default_rng(0).choice(3, size=(2, 3), replace=False), "ValueError", "rng.permuted"),
    (lambda: bool(np.ones(3) > 0), "ValueError", "np.any"),
    (lambda: np.std([np.ones(2), np.ones(3)]), "ValueError", "np.concatenate([sx, sy])"),
    (lambda: np.ones(3)[0, 1], "IndexError", "x[None, :]"),
    (lambda: np.ones(3).mean(axis=1), "AxisError", "axis 1 (along each vector)"),
    (lambda: 1 / 0, "ZeroDivisionError", "standard deviation of 0"),
    (lambda: undefined_name, "NameError", "Run the notebook's cells in order"),  # noqa: F821
]


@pytest.mark.parametrize("slip, kind, words", SLIPS)
def test_quiet_explains_the_likely_mistake(slip, kind, words):
    with pytest.raises(AssertionError) as info:
        with quiet():
            slip()
    message = str(info.value)
    assert message.startswith(f"Your code raised {kind}"), message
    assert "A likely cause: " in message and words in message, message
    assert type(info.value.__cause__).__name__ == kind  # the original error stays attached


def test_explain_read_only_and_unfinished_and_unknown():
    x = np.ones(3)
    x.flags.writeable = False
    with pytest.raises(ValueError) as info:
        x /= 2
    assert "read-only" in explain(info.value) and "x = x / n" in explain(info.value)
    assert "replace `raise NotImplementedError()`" in explain(NotImplementedError())
    assert explain(RuntimeError("odd")) == "Your code raised RuntimeError: odd"  # no invented cause
    assert explain(RuntimeError("x" * 5000)).endswith("x ...")  # shortened


def test_quiet_passes_failed_checks_through_unchanged():
    with pytest.raises(AssertionError, match="^the cosine is not correct"):
        with quiet():
            check_close(0.5, 0.7, "the cosine")


def test_check_unchanged():
    u = np.array([3.0, 4.0])
    with pytest.raises(AssertionError, match=r"cosine\(u, v\) changed its argument 1.*x = x / n"):
        check_unchanged(_normalise_in_place, u, what="cosine(u, v)")
    np.testing.assert_allclose(check_unchanged(np.linalg.norm, np.array([3.0, 4.0]), what="norm"), 5.0)
    rows = [np.ones(2), np.zeros(2)]

    def zero_first(rs):
        rs[0][:] = 0

    with pytest.raises(AssertionError, match="argument 1"):
        check_unchanged(zero_first, rows, what="f(rows)")
    with pytest.raises(AssertionError, match="argument B"):
        check_unchanged(lambda A, B: B.__isub__(1), np.ones(2), B=np.ones(2), what="f(A, B)")


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


def test_reference_modules_are_the_scans():
    import helpers.checks as chk
    from helpers.grading.scan import REFERENCE_MODULES

    assert chk._REFERENCE_MODULES == tuple(f"helpers.{m}" for m in REFERENCE_MODULES)


def test_run_time_spy_sees_the_lexicon_reference():
    import helpers.lexicon as lx

    rng = np.random.default_rng(0)
    sets = [rng.normal(size=(3, 4)) for _ in range(4)]

    def my_bootstrap(X, Y, A, B, *, n_resamples, rng):
        f = getattr(lx, "bootstrap_" + "effect_sizes")  # a path the code check cannot read
        return f(X, Y, A, B, n_resamples=n_resamples, rng=rng)

    with pytest.raises(AssertionError, match="bootstrap_effect_sizes"):
        check_own_work(my_bootstrap, "bootstrap_effect_sizes",
                       run=lambda: my_bootstrap(*sets, n_resamples=3, rng=np.random.default_rng(1)))


@pytest.mark.parametrize("source, fails", [
    ("import scipy.stats as sps\ndef bh(p):\n    return sps.false_discovery_control(p)\n", True),
    ("from scipy.stats import false_discovery_control as fdc\ndef bh(p):\n    return fdc(p)\n", True),
    ("import scipy.stats\nf = scipy.stats.false_discovery_control\ndef _mine(p):\n    return f(p)\n"
     "def bh(p):\n    return _mine(p)\n", True),
    ("import scipy.stats as s\ndef bh(p):\n    return getattr(s, 'false_discovery_control')(p)\n", True),
    ("def bh(p):\n    from scipy.stats import false_discovery_control\n    return false_discovery_control(p)\n", True),
    ("import numpy as np\nfrom scipy.stats import false_discovery_control\n"
     "def bh(p):\n    \"\"\"Not scipy.stats.false_discovery_control.\"\"\"\n    return np.minimum.accumulate(p)\n", False),
])
def test_check_not_using_reads_the_function_in_the_kernel(source, fails):
    """The visible twin of the grader's check_not_using (tests/test_judge.py), on the function objects."""
    namespace = {"__name__": "__main__"}
    exec(compile(source, "<cell>", "exec"), namespace)  # noqa: S102 - a fixed test source
    if fails:
        with pytest.raises(AssertionError, match="uses scipy.stats.false_discovery_control"):
            check_not_using(namespace["bh"], "scipy.stats.false_discovery_control")
    else:
        check_not_using(namespace["bh"], "scipy.stats.false_discovery_control")


def test_known_values_answers_the_listed_calls_and_hands_on_the_rest():
    """Issue 42's visible side: the listed calls get the listed values (keywords and defaults matched through the
    notebook's function's signature, arrays by value); others go to the notebook's function; every call is recorded,
    and the name is bound to what it was before, also after an error."""
    from helpers.checks import known_values

    def g(X_groups, A_groups, X_all=None, A_all=None):
        return "yours"

    ns = {"g": g}
    X, A = np.array([[3.0, 0.0]]), np.array([[0.0, 2.0]])
    with known_values(ns, "g", [(([X], [A], None, A), 0.25)]) as calls:
        assert ns["g"]([X.copy()], [A], A_all=A) == 0.25          # an equal copy, a keyword, a default
        assert ns["g"]((X,), [A], None, A) == 0.25                 # a tuple for a list
        assert ns["g"]([X], [A]) == "yours"                        # A_all not given: not listed
        assert ns["g"]([X + 1e-12], [A], None, A) == "yours"       # arrays compared exactly
    assert ns["g"] is g and len(calls) == 4 and calls[2] == (([X], [A]), {})
    with pytest.raises(ZeroDivisionError):
        with known_values(ns, "g", []):
            1 / 0
    assert ns["g"] is g
    with known_values(ns, "h", [(X, [1.0, 2.0])]):               # one argument; a name the notebook lacks
        got = ns["h"](X)
        assert isinstance(got, np.ndarray) and got.dtype == np.float64 and np.array_equal(got, [1.0, 2.0])
        with pytest.raises(NameError, match="'h' is not defined"):
            ns["h"](A)
    assert "h" not in ns


def test_known_values_gives_each_call_its_own_copy():
    """A caller that changes what the stand-in returned (pops from a found-words list, as a correct apply_oov_rule
    may) changes neither the next answer nor the test cell's own lists that the table names."""
    from helpers.checks import known_values

    insects = ["ant", "bee", "moth"]
    ns = {"split": lambda kv, words: "yours"}
    with known_values(ns, "split", [(("kv", insects), (insects, []))]):
        first = ns["split"]("kv", insects)
        first[0].pop()
        second = ns["split"]("kv", insects)
    assert second == (["ant", "bee", "moth"], []) and insects == ["ant", "bee", "moth"]
