"""Reading a student's Python code: what the own-work rules of the checks, the scan and the judge share.

Three places read a student's code for the course's own-work rules: the notebooks' visible checks
(:mod:`helpers.checks`, on the function objects in the kernel), the static scan before a
submission runs (``helpers.grading.scan``) and the judge's source rules (``helpers.grading.judge``,
on the notebook's source in the grader). What they have in common is here, once: the module lists
(:data:`REFERENCE_MODULES`, :data:`ANSWER_MODULES`), the loop forms (:data:`LOOP_NODES`,
:data:`LOOPS_IN_DISGUISE`, :func:`is_disguised_loop`, :func:`loops`), dotted names and what a name is
bound to (:func:`dotted`, :func:`imports`, :func:`aliases`, :func:`resolve`), where a notebook binds
a name (:func:`module_bindings`, :func:`own_code`, :func:`recursive_names`) and the normal form of a
function that tells a renamed copy (:func:`normal_form`).

It is part of the science library (the checks run in the student's kernel and may not import the
grader; the grader imports this). It reads code and never runs it: a rule that reads code misses
code built while it runs (``exec``, ``getattr`` with a computed name), which the scan flags for a
person instead.
"""
from __future__ import annotations

import ast
import builtins
import copy

__all__ = ["REFERENCE_MODULES", "ANSWER_MODULES", "LOOP_NODES", "LOOPS_IN_DISGUISE", "LOOPING_MODULES",
           "LOOPING_ATTRIBUTES", "LOOP_MAKERS", "dotted", "imports", "aliases", "resolve", "is_disguised_loop",
           "is_allowed", "loops", "module_bindings", "own_code", "recursive_names", "normal_form"]

#: The course's reference modules of ``helpers`` (what an exercise asks students to write themselves):
#: the science library's modules that compute, without the checks, the figures' helpers and the runners.
REFERENCE_MODULES = ("statistics", "embeddings", "wordsets", "weat", "wefat", "lexicon", "enumeration", "corpus",
                     "plots")

#: Modules every answer may use, whatever the exercise (issue 36: NumPy and ``math``; ``typing``,
#: ``__future__`` and ``warnings`` compute nothing, and a correct answer may warn). An answer's other
#: modules are the ones the notebook's own cells import.
ANSWER_MODULES = frozenset({"numpy", "math", "typing", "__future__", "warnings"})

#: Syntax that runs Python code once per element: the loop statements and the comprehensions (a
#: comprehension is a ``for`` loop written inside brackets: Python runs its body once per element).
LOOP_NODES = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

#: Functions that call Python code once per element (a loop in disguise), by their full dotted name.
LOOPS_IN_DISGUISE = frozenset({
    "builtins.map", "builtins.filter", "functools.reduce", "_functools.reduce", "numpy.vectorize",
    "numpy.frompyfunc", "numpy.apply_along_axis", "numpy.apply_over_axes", "numpy.fromiter", "numpy.piecewise",
})

#: Modules each of whose functions iterate in Python (``itertools.accumulate``, ``itertools.starmap``, ...).
LOOPING_MODULES = frozenset({"itertools"})

#: Attribute names that are a loop in disguise on whatever object they are read (``np.vectorize`` under
#: another alias, ``pandas.Series.map``), also when the object cannot be resolved by reading the code.
LOOPING_ATTRIBUTES = frozenset({"vectorize", "frompyfunc", "apply_along_axis", "apply_over_axes", "fromiter", "map",
                                "starmap"})

_BUILTINS = frozenset(dir(builtins))
_KINDS = {ast.For: "for loop", ast.AsyncFor: "async for loop", ast.While: "while loop",
          ast.ListComp: "list comprehension", ast.SetComp: "set comprehension", ast.DictComp: "dict comprehension",
          ast.GeneratorExp: "generator expression"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def dotted(node: ast.AST) -> str | None:
    """The dotted name of an attribute chain on a name (``np.linalg.norm``), else None.

    Only names and attribute reads count: ``f().x`` and ``a[0].x`` have no dotted name.

    Parameters
    ----------
    node : ast.AST
        A node of a syntax tree.

    Returns
    -------
    str or None
        ``"np.linalg.norm"`` for the expression ``np.linalg.norm``; None for any other node.
    """
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


def imports(tree: ast.AST) -> dict[str, str]:
    """What each import in ``tree`` binds: ``{bound name: module or object path}``.

    ``import numpy as np`` binds ``np`` to ``numpy``; ``import scipy.stats`` binds ``scipy`` to ``scipy``;
    ``from helpers.statistics import cosine as c`` binds ``c`` to ``helpers.statistics.cosine``. Imports
    inside functions count too (the rules read what the code could reach).

    Parameters
    ----------
    tree : ast.AST
        A syntax tree (a cell, or a function).

    Returns
    -------
    dict
        The last import of each name wins, in the order :func:`ast.walk` meets them.
    """
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(n, ast.ImportFrom):
            for a in n.names:
                out[a.asname or a.name] = f"{n.module or ''}.{a.name}"
    return out


def aliases(trees) -> dict[str, str]:
    """``{name: dotted path}`` for every import of ``trees`` and every plain alias of an imported name.

    An alias is an assignment of a dotted name whose head is imported, anywhere in the code: ``r =
    functools.reduce`` binds ``r`` to ``functools.reduce``, ``m = np`` binds ``m`` to ``numpy``. Aliases of
    aliases are followed.

    Parameters
    ----------
    trees : iterable of ast.AST
        The syntax trees of a notebook's cells, in order.

    Returns
    -------
    dict
        Name to the dotted path it stands for.
    """
    trees = list(trees)
    out: dict[str, str] = {}
    for tree in trees:
        out.update(imports(tree))
    pairs = []
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
                name = dotted(n.value)
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                if name:
                    pairs += [(t.id, name) for t in targets if isinstance(t, ast.Name)]
    for _ in range(len(pairs)):  # each round resolves one more link of a chain
        changed = False
        for target, name in pairs:
            head = name.partition(".")[0]
            if head in out and target != head:
                path = resolve(name, out)
                if out.get(target) != path:
                    out[target], changed = path, True
        if not changed:
            break
    return out


def resolve(name: str, bound: dict[str, str]) -> str:
    """The full dotted path of ``name`` (``np.linalg.norm`` -> ``numpy.linalg.norm``).

    The head is looked up in ``bound`` (see :func:`aliases`); a head not bound there but a built-in name
    (``map``, ``filter``) is ``builtins.<name>``; any other head is left as it is.

    Parameters
    ----------
    name : str
        A dotted name as the code writes it.
    bound : dict
        ``{name: dotted path}`` of the code's imports and aliases.

    Returns
    -------
    str
        The dotted path.
    """
    head, dot, rest = name.partition(".")
    if head in bound:
        return bound[head] + dot + rest
    if head in _BUILTINS:
        return f"builtins.{name}"
    return name


def is_disguised_loop(path: str) -> bool:
    """Whether calling the function at ``path`` runs Python code once per element (a loop in disguise).

    ``functools.reduce``, ``map``, ``filter``, ``numpy.vectorize``, ``numpy.apply_along_axis``, every
    function of ``itertools``, and any attribute named in :data:`LOOPING_ATTRIBUTES`. A ufunc's own
    ``reduce`` (``numpy.add.reduce``) is whole-array NumPy and is not one.

    Parameters
    ----------
    path : str
        A full dotted path (:func:`resolve`).

    Returns
    -------
    bool
        True for a loop in disguise.
    """
    parts = path.split(".")
    return (path in LOOPS_IN_DISGUISE or parts[0] in LOOPING_MODULES
            or (len(parts) > 1 and parts[-1] in LOOPING_ATTRIBUTES))


def is_allowed(path: str, allowed) -> bool:
    """Whether the module or object at ``path`` is on an exercise's allow-list.

    On the list: :data:`ANSWER_MODULES` and everything in them, and each path of ``allowed`` (the modules
    and functions the notebook's own cells import), with everything inside it.

    Parameters
    ----------
    path : str
        A full dotted path (``scipy.spatial.distance.cosine``).
    allowed : iterable of str
        The exercise's further dotted paths (``helpers.statistics.cosine_matrix``, ``scipy.stats``).

    Returns
    -------
    bool
        True when ``path`` is, or lies inside, an allowed module or object.
    """
    for ok in (*ANSWER_MODULES, *allowed):
        if path == ok or path.startswith(ok + "."):
            return True
    return False


def _kind(node) -> str:
    return _KINDS[type(node)]


#: Loops in disguise that return a function that loops when called (``f = np.vectorize(g)``): in a value
#: computed once (:func:`loops` with ``once=True``) a call of one of these still counts.
LOOP_MAKERS = frozenset({"numpy.vectorize", "numpy.frompyfunc"})


def loops(node: ast.AST, bound: dict[str, str] | None = None, *, once: bool = False) -> list[str]:
    """Every Python-level loop in the code of ``node``, one line each: ``"line N: <what>"``.

    Counted: the loop statements and comprehensions (:data:`LOOP_NODES`), wherever they are in ``node``
    (nested functions, lambdas, default values, decorators, a second definition under ``if``); a use of a
    loop in disguise (:func:`is_disguised_loop`; names resolved through ``bound``); and a function
    defined in ``node`` that calls itself (recursion runs Python code once per step). A function of the
    notebook that ``node`` calls is not read here: :func:`own_code` finds it.

    Parameters
    ----------
    node : ast.AST
        A function definition, a lambda, a class or a whole cell.
    bound : dict, optional
        ``{name: dotted path}`` of the notebook's imports and aliases (:func:`aliases`); without it
        ``node``'s own imports are used.
    once : bool
        ``node`` is a value the notebook computed once, when its cell ran (``table = [f(w) for w in
        words]``): only what runs again when the value is called counts (its lambdas, a loop in disguise
        it refers to without calling it, and one of :data:`LOOP_MAKERS` it calls).

    Returns
    -------
    list of str
        In the order of the source; ``[]`` for loop-free code.
    """
    bound = imports(node) if bound is None else bound
    found = []
    inner, in_lambda, called = set(), set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute):
            inner.add(id(n.value))
        elif isinstance(n, _FUNCTIONS):
            in_lambda.update(id(m) for m in ast.walk(n))
        elif isinstance(n, ast.Call):
            called.add(id(n.func))
    for n in ast.walk(node):
        line = getattr(n, "lineno", 0)
        if once and id(n) not in in_lambda:
            name = dotted(n) if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in inner else None
            if isinstance(n, LOOP_NODES) or (name and id(n) in called and resolve(name, bound) not in LOOP_MAKERS):
                continue
        if isinstance(n, LOOP_NODES):
            found.append((line, f"line {line}: {_kind(n)}"))
        elif isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in inner and isinstance(n.ctx, ast.Load):
            name = dotted(n)
            if name and is_disguised_loop(resolve(name, bound)):
                found.append((line, f"line {line}: {name} (a loop in disguise)"))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            calls_itself = any(isinstance(m, ast.Name) and m.id == n.name and isinstance(m.ctx, ast.Load)
                               for stmt in n.body for m in ast.walk(stmt))
            if calls_itself:
                found.append((line, f"line {line}: {n.name} calls itself (recursion)"))
    return [text for _, text in sorted(found, key=lambda x: x[0])]


def _targets(t, out: list):
    if isinstance(t, ast.Name):
        out.append(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _targets(e, out)
    elif isinstance(t, ast.Starred):
        _targets(t.value, out)


def _binds(stmt) -> list[str]:
    """The names one statement binds in the scope it runs in (not inside its nested blocks)."""
    out: list[str] = []
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.append(stmt.name)
    elif isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            _targets(t, out)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        _targets(stmt.target, out)
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        _targets(stmt.target, out)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                _targets(item.optional_vars, out)
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        out += [(a.asname or a.name).split(".")[0] for a in stmt.names]
    elif isinstance(stmt, ast.Delete):
        for t in stmt.targets:
            _targets(t, out)
    elif isinstance(stmt, ast.Try):
        out += [h.name for h in stmt.handlers if h.name]
    return out


def _blocks(stmt) -> list[list]:
    blocks = [getattr(stmt, f, None) or [] for f in ("body", "orelse", "finalbody")]
    blocks += [h.body for h in getattr(stmt, "handlers", None) or []]
    blocks += [c.body for c in getattr(stmt, "cases", None) or []]
    return blocks


def module_bindings(trees) -> dict[str, list[ast.AST]]:
    """Every statement that binds each name of the notebook's namespace, at any depth, in source order.

    Read: the cells' statements and those nested in ``if``, ``for``, ``while``, ``try``, ``with`` and
    ``match`` blocks (a second definition under ``if True:`` binds the name as surely as the first),
    ``del`` and ``except ... as`` names, walrus expressions (``(f := lambda x: ...)``) outside functions,
    and the statements of a function that declares the name ``global``. A function's or a class's own
    local names are not the notebook's.

    Parameters
    ----------
    trees : iterable of ast.Module
        The syntax trees of the notebook's cells, in the order they ran.

    Returns
    -------
    dict
        ``{name: [statement, ...]}``, the statements in the order they appear; the last one is what the
        name is bound to when the cells ran in order and every condition held.
    """
    out: dict[str, list] = {}

    def add(name, node):
        out.setdefault(name, []).append(node)

    def visit(stmts):
        for s in stmts:
            for name in _binds(s):
                add(name, s)
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                declared = {g for n in ast.walk(s) if isinstance(n, ast.Global) for g in n.names}
                for n in ast.walk(s):
                    if n is not s and isinstance(n, ast.stmt):
                        for name in set(_binds(n)) & declared:
                            add(name, n)
                continue
            if isinstance(s, ast.ClassDef):
                continue
            for n in ast.walk(s):
                if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                    add(n.target.id, s)
            for block in _blocks(s):
                visit(block)

    for tree in trees:
        visit(tree.body)
    return out


def _code_of(stmt) -> list[ast.AST]:
    """The parts of a binding statement that run when the bound name is called.

    A definition runs whole; an assignment's value is followed (its lambdas run when called, and the names
    it refers to may be functions), but a comprehension that built a value once, when the cell ran, is
    not a loop of the function that reads the value."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt]
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
        return [stmt.value]
    return []


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _parts(scope) -> tuple[list, list, set]:
    """(parts evaluated in the enclosing scope, parts evaluated in ``scope`` itself, its parameters)."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        every = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
        outer = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
        if not isinstance(scope, ast.Lambda):
            outer += [*scope.decorator_list, *(x.annotation for x in every if x.annotation)]
            outer += [scope.returns] if scope.returns else []
        inner = scope.body if isinstance(scope.body, list) else [scope.body]
        return outer, inner, {x.arg for x in every}
    if isinstance(scope, ast.ClassDef):
        return [*scope.decorator_list, *scope.bases, *(k.value for k in scope.keywords)], scope.body, set()
    first, *rest = scope.generators
    inner = [first.target, *first.ifs, *rest] + ([scope.key, scope.value] if isinstance(scope, ast.DictComp)
                                                   else [scope.elt])
    return [first.iter], inner, set()


def _free(nodes, params=frozenset()) -> set[str]:
    """The names ``nodes`` (the parts of one scope) read from an enclosing scope or the notebook."""
    loads, stores, declared = set(), set(params), set()

    def visit(n):
        if isinstance(n, _SCOPES):
            outer, inner, own = _parts(n)
            for part in outer:
                visit(part)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stores.add(n.name)
            loads.update(_free(inner, own))
            return
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            declared.update(n.names)
        elif isinstance(n, ast.alias):
            stores.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            stores.add(n.name)
        for child in ast.iter_child_nodes(n):
            visit(child)

    for node in nodes:
        visit(node)
    return loads - (stores - declared)


def _names(node) -> set[str]:
    """The notebook names a binding's code reads (a function's own local names and parameters excluded)."""
    return _free([node])


def own_code(name: str, bindings: dict[str, list]) -> list[tuple[str, ast.AST]]:
    """The notebook's own code that ``name`` runs: its bindings and those of every notebook name they use.

    Followed through every binding of each name (:func:`module_bindings`: all of them, not only the last),
    directly and indirectly. Imports are not the notebook's own code and are not followed.

    Parameters
    ----------
    name : str
        A name of the notebook (a function the exercise asks for).
    bindings : dict
        :func:`module_bindings` of the notebook.

    Returns
    -------
    list of tuple
        ``(name, node)`` pairs, ``name``'s own first; each node is a definition or an assigned value.
    """
    out, seen, todo = [], set(), [name]
    while todo:
        n = todo.pop(0)
        if n in seen:
            continue
        seen.add(n)
        for stmt in bindings.get(n, ()):
            for code in _code_of(stmt):
                out.append((n, code))
                todo += sorted(_names(code) & set(bindings) - seen)
    return out


def recursive_names(name: str, bindings: dict[str, list]) -> list[str]:
    """The notebook's names, among those ``name`` runs (:func:`own_code`), that reach themselves again.

    ``f`` calls ``g`` and ``g`` calls ``f``: both recurse, which runs Python code once per step (a loop).

    Parameters
    ----------
    name : str
        A name of the notebook.
    bindings : dict
        :func:`module_bindings` of the notebook.

    Returns
    -------
    list of str
        Sorted; ``[]`` when nothing recurses.
    """
    edges: dict[str, set] = {}
    for n, code in own_code(name, bindings):
        edges.setdefault(n, set()).update(_names(code) & set(bindings))
    out = []
    for start in edges:
        seen, todo = set(), list(edges[start])
        while todo:
            n = todo.pop()
            if n == start:
                out.append(start)
                break
            if n not in seen:
                seen.add(n)
                todo += edges.get(n, ())
    return sorted(out)


class _Canonical(ast.NodeTransformer):
    """Rename every identifier (not attribute names) to ``_0``, ``_1``, ... in order of first appearance."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def _new(self, name):
        return self.names.setdefault(name, f"_{len(self.names)}")

    def visit_Name(self, node):
        node.id = self._new(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self._new(node.arg)
        node.annotation = None
        return node

    def _function(self, node):
        node.name = self._new(node.name)
        node.returns = None
        node.decorator_list = []
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        self.generic_visit(node)
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node):
        node.name = self._new(node.name)
        self.generic_visit(node)
        return node

    def visit_alias(self, node):
        if node.asname:
            node.asname = self._new(node.asname)
        return node

    def visit_keyword(self, node):  # keyword names are the callee's parameters: kept
        self.generic_visit(node)
        return node

    def visit_Global(self, node):
        node.names = [self._new(n) for n in node.names]
        return node

    visit_Nonlocal = visit_Global


def normal_form(node: ast.AST) -> str:
    """A function's syntax tree with its names made canonical, as text: equal for a copy under other names.

    The tree is copied; its docstrings, annotations and decorators are dropped; every identifier (the
    function's name, its parameters, its local and global names) becomes ``_0``, ``_1``, ... in order of
    first appearance; attribute names (``linalg``, ``norm``), keyword names and constants are kept. Then
    :func:`ast.dump` without line numbers. Two functions with the same normal form differ only in names,
    comments, docstrings, annotations and layout.

    Parameters
    ----------
    node : ast.AST
        A function definition (or any syntax tree).

    Returns
    -------
    str
        The dump of the canonical tree.
    """
    tree = _Canonical().visit(copy.deepcopy(node))
    return ast.dump(tree, annotate_fields=False, include_attributes=False)
