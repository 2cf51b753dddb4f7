"""helpers.sourcecode (reading a student's code for the own-work rules) and the judge's rules built on it.

Each way around the loop rule that issue 36 found (a second definition under ``if True:``, a loop inside a
lambda, ``functools.reduce``) and the others of its kind (``map``, ``filter``, ``itertools``, recursion, a
comprehension, a definition inside a function that declares the name ``global``, an alias of a loop in
disguise) is read by the judge's ``check_vectorised`` from source, and by the visible checks'
``check_vectorised`` from the function objects; honest whole-array code passes both (``np.add.reduce`` is
not ``functools.reduce``). The same submissions through the real autograde: tests/test_adversarial.py.
"""
from __future__ import annotations

import ast

import pytest

from helpers import checks, sourcecode
from helpers.grading import judge
from helpers.grading.judge import Remote

HEADER = "import numpy as np\nimport functools\nimport itertools\n"
VECTORISED = '''
def cosine_matrix(U, V):
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    return U @ V.T
'''

#: each way around the loop rule: (name, answer cell); each must fail both readings
AROUND_THE_LOOP_RULE = {
    "second-def-under-if-true": VECTORISED + '''
if True:
    def cosine_matrix(U, V):
        return np.array([[u @ v / np.linalg.norm(u) / np.linalg.norm(v) for v in V] for u in U])
''',
    "loop-in-lambda": '''
_pairs = lambda U, V: np.array([[u @ v / np.linalg.norm(u) / np.linalg.norm(v) for v in V] for u in U])

def cosine_matrix(U, V):
    return _pairs(U, V)
''',
    "functools-reduce": '''
def cosine_matrix(U, V):
    unit = lambda M: M / np.linalg.norm(M, axis=1, keepdims=True)
    rows = functools.reduce(lambda acc, u: acc + [unit(V) @ u], unit(U), [])
    return np.array(rows)
''',
    "reduce-imported-under-another-name": '''
from functools import reduce as fold

def cosine_matrix(U, V):
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    return np.array(fold(lambda acc, u: acc + [V @ u], U, []))
''',
    "reduce-aliased": '''
fold = functools.reduce

def cosine_matrix(U, V):
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    return np.array(fold(lambda acc, u: acc + [V @ u], U, []))
''',
    "map": '''
def cosine_matrix(U, V):
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    return np.array(list(map(lambda u: V @ (u / np.linalg.norm(u)), U)))
''',
    "filter": '''
def cosine_matrix(U, V):
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    keep = list(filter(lambda u: True, U))
    return np.array(keep) @ V.T
''',
    "itertools": '''
def cosine_matrix(U, V):
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    pairs = itertools.product(U, V)
    return np.fromiter(itertools.starmap(np.dot, pairs), float).reshape(len(U), len(V))
''',
    "recursion": '''
def cosine_matrix(U, V):
    if len(U) == 0:
        return np.zeros((0, len(V)))
    u = U[0] / np.linalg.norm(U[0])
    first = (V / np.linalg.norm(V, axis=1, keepdims=True)) @ u
    return np.vstack([first, cosine_matrix(U[1:], V)])
''',
    "recursion-through-a-helper": '''
def _rest(U, V):
    return cosine_matrix(U[1:], V) if len(U) > 1 else np.zeros((0, len(V)))

def cosine_matrix(U, V):
    u = U[0] / np.linalg.norm(U[0])
    return np.vstack([(V / np.linalg.norm(V, axis=1, keepdims=True)) @ u, _rest(U, V)])
''',
    "comprehension": '''
def cosine_matrix(U, V):
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    return np.array([V @ (u / np.linalg.norm(u)) for u in U])
''',
    "def-through-global": VECTORISED + '''
def _install():
    global cosine_matrix
    def cosine_matrix(U, V):
        return np.array([[u @ v / np.linalg.norm(u) / np.linalg.norm(v) for v in V] for u in U])

_install()
''',
    "vectorize-made-once": '''
_cos = np.vectorize(lambda i, j, U, V: 0.0, excluded={2, 3})

def cosine_matrix(U, V):
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    return U @ V.T + _cos(0, 0, U, V)
''',
}

HONEST = {
    "whole-array": VECTORISED,
    "ufunc-reduce": '''
def cosine_matrix(U, V):
    norms = np.sqrt(np.add.reduce(U * U, axis=1))[:, None]
    return (U / norms) @ (V / np.linalg.norm(V, axis=1, keepdims=True)).T
''',
    "a-table-built-once": '''
_squares = [k * k for k in range(3)]  # computed once, when the cell ran: not a loop of the function

def cosine_matrix(U, V):
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    return U @ (V / np.linalg.norm(V, axis=1, keepdims=True)).T + 0 * _squares[0]
''',
    "a-local-name-like-a-looping-function": '''
def helper(M):
    return [m for m in M]

def cosine_matrix(U, V):
    helper = np.linalg.norm  # a local name: the notebook's looping helper is not used
    return (U / helper(U, axis=1, keepdims=True)) @ (V / helper(V, axis=1, keepdims=True)).T
''',
}


def _judge_vectorised(source: str) -> None:
    token = judge._current.set([HEADER, source])
    try:
        judge.check_vectorised(Remote(None, "cosine_matrix"))
    finally:
        judge._current.reset(token)


def _kernel_function(source: str):
    namespace = {"__name__": "__main__"}
    exec(compile(HEADER + source, "<cell>", "exec"), namespace)  # noqa: S102 - the fixed sources above
    return namespace["cosine_matrix"]


@pytest.mark.parametrize("way", sorted(AROUND_THE_LOOP_RULE))
def test_the_judge_reads_every_way_around_the_loop_rule(way):
    with pytest.raises(AssertionError, match="loop|calls itself|again"):
        _judge_vectorised(AROUND_THE_LOOP_RULE[way])


@pytest.mark.parametrize("way", sorted(set(AROUND_THE_LOOP_RULE) - {"vectorize-made-once"}))
def test_the_visible_check_reads_every_way_around_the_loop_rule(way):
    """The visible twin, on the function objects (a ``np.vectorize`` object is a class instance the bytecode
    reading does not follow: the judge, which decides the point, reads its source)."""
    with pytest.raises(AssertionError, match="loop|calls itself|again"):
        checks.check_vectorised(_kernel_function(AROUND_THE_LOOP_RULE[way]))


@pytest.mark.parametrize("way", sorted(HONEST))
def test_whole_array_code_passes_both_readings(way):
    _judge_vectorised(HONEST[way])
    checks.check_vectorised(_kernel_function(HONEST[way]))


def test_the_reference_rule_reads_every_definition_and_every_binding():
    """A second definition under ``if True:``, and a reference held in a module-level value."""
    for source in ("def cosine(u, v):\n    return 0.0\nif True:\n    import helpers.statistics as s\n"
                   "    def cosine(u, v):\n        return s.cosine(u, v)\n",
                   "import functools\nimport helpers.statistics\n_c = functools.partial(helpers.statistics.cosine)\n"
                   "def cosine(u, v):\n    return _c(u, v)\n"):
        token = judge._current.set([source])
        try:
            with pytest.raises(AssertionError, match="reference implementation"):
                judge.own_work_rule("cosine", ["cosine"], "`cosine`")
        finally:
            judge._current.reset(token)


def test_loops_names_each_form_with_its_line():
    tree = ast.parse("from functools import reduce as r\nimport numpy as np\n"
                     "def f(x):\n    y = [a for a in x]\n    z = r(np.add, x)\n    w = np.add.reduce(x)\n"
                     "    def g(n):\n        return g(n - 1)\n    while False:\n        pass\n    return y, z, w\n")
    assert sourcecode.loops(tree.body[2], sourcecode.aliases([tree])) == [
        "line 4: list comprehension", "line 5: r (a loop in disguise)", "line 7: g calls itself (recursion)",
        "line 9: while loop"]


def test_dotted_names_resolve_through_imports_and_aliases():
    tree = ast.parse("import numpy as np\nfrom functools import reduce\nimport itertools as it\nm = np\nq = m.linalg\n")
    bound = sourcecode.aliases([tree])
    assert sourcecode.resolve("q.norm", bound) == "numpy.linalg.norm"
    assert sourcecode.resolve("map", bound) == "builtins.map"
    assert sourcecode.resolve("somewhere.else", bound) == "somewhere.else"
    assert sourcecode.is_disguised_loop(sourcecode.resolve("reduce", bound))
    assert sourcecode.is_disguised_loop(sourcecode.resolve("it.accumulate", bound))
    assert not sourcecode.is_disguised_loop(sourcecode.resolve("np.add.reduce", bound))
    assert sourcecode.dotted(ast.parse("a.b.c", mode="eval").body) == "a.b.c"
    assert sourcecode.dotted(ast.parse("f().c", mode="eval").body) is None


def test_module_bindings_reads_every_depth_in_source_order():
    tree = ast.parse("def f():\n    pass\nif True:\n    def f():\n        return 1\ntry:\n    f = 3\nexcept Exception:\n"
                     "    pass\ndef g():\n    global f\n    f = 4\n    h = 5\n")
    found = sourcecode.module_bindings([tree])
    assert [type(n).__name__ for n in found["f"]] == ["FunctionDef", "FunctionDef", "Assign", "Assign"]
    assert "h" not in found  # a local name of g


def test_normal_form_is_the_same_for_a_renamed_copy_only():
    a = ast.parse('def f(x, y):\n    """Doc."""\n    z = np.dot(x, y)\n    return z / 2\n').body[0]
    b = ast.parse("def other(p: float, q) -> float:\n    r = np.dot(p, q)  # renamed\n    return r / 2\n").body[0]
    c = ast.parse("def f(x, y):\n    z = np.dot(x, y)\n    return z / 3\n").body[0]
    d = ast.parse("def f(x, y):\n    z = np.vdot(x, y)\n    return z / 2\n").body[0]
    assert sourcecode.normal_form(a) == sourcecode.normal_form(b)
    assert sourcecode.normal_form(a) != sourcecode.normal_form(c)
    assert sourcecode.normal_form(a) != sourcecode.normal_form(d)  # attribute names are kept


def test_the_allow_list():
    assert sourcecode.is_allowed("numpy.linalg.norm", set())
    assert sourcecode.is_allowed("math.sqrt", set())
    assert not sourcecode.is_allowed("numpyx", set())
    assert sourcecode.is_allowed("helpers.statistics.cosine_matrix", {"helpers.statistics.cosine_matrix"})
    assert not sourcecode.is_allowed("helpers.statistics.cosine", {"helpers.statistics.cosine_matrix"})
    assert not sourcecode.is_allowed("scipy.spatial.distance.cosine", {"scipy.stats"})


def test_one_list_for_the_three_readers():
    from helpers.grading import scan
    from helpers.grading.judge import rules

    assert scan.REFERENCE_MODULES is sourcecode.REFERENCE_MODULES is rules.REFERENCE_MODULES
    assert rules.LOOPS_IN_DISGUISE is sourcecode.LOOPS_IN_DISGUISE
    assert checks._REFERENCE_MODULES == tuple(f"helpers.{m}" for m in sourcecode.REFERENCE_MODULES)
    assert checks._is_disguised_loop is sourcecode.is_disguised_loop
