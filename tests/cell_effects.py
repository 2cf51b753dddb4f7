"""Which cells of a notebook a mutant's copy may leave out, from the cells' code (used by :mod:`mutant_harness`).

A mutant's copy runs the cells from its first change to the last graded cell. A cell that is neither graded nor
a solution cell, and whose effects no later cell that runs can see, is left out: it cannot change a score.
Effects are over-estimated from the code:

- every name a cell binds or deletes (a bare expression at the end binds IPython's ``_`` and ``Out``);
- the object behind every name it stores into (``x[i] = ...``, ``x.a = ...``, ``x += ...``), calls a method of
  or passes to a call (the function may change it), and NumPy's global random state;
- the same, for global names, in the notebook's functions it calls (a local made from a global is that global);
- a change in place counts as seen whenever a later cell that runs reads a name bound before it (the object may
  be shared: ``y = x``) that may hold such an object: any binding but a ``def``, a function or class imported,
  or NumPy.

A cell the analysis does not follow (a magic, ``global``, ``exec``, a file opened for writing, a call of a name
bound otherwise than by ``def`` or ``import``, a method call when the notebook defines classes) runs, and so does
every cell before it. Not followed: what a library keeps between calls (a cache it returns again).

The harness runs every cell of the worked solution; only mutants' copies leave cells out. Its verdicts on the
mutants of the full round trips must equal nbgrader's, which runs every cell (``tests/test_notebooks.py``).
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from pathlib import Path

_BUILTINS = set(dir(builtins))
_OPAQUE = {"exec", "eval", "globals", "locals", "vars", "setattr", "delattr", "__import__", "get_ipython",
           "__builtins__", "compile"}


class _Opaque(Exception):
    """Code whose effects the analysis does not follow."""


def _python(source: str) -> ast.Module:
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return ast.parse(TransformerManager().transform_cell(source))
    except (SyntaxError, SystemError):  # SystemError: CPython's spurious parser error (python/cpython#106905)
        raise _Opaque from None


def _root(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _names(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _sources(node) -> set:
    """The names whose objects the value of ``node`` may be, hold or view (a call may return its argument or
    its receiver); not the functions called."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        return _sources(node.value)
    if isinstance(node, ast.Call):
        out = _sources(node.func.value) if isinstance(node.func, ast.Attribute) else set()
        return out.union(*(_sources(a) for a in [*node.args, *(k.value for k in node.keywords)]))
    if isinstance(node, ast.IfExp):
        return _sources(node.body) | _sources(node.orelse)
    if isinstance(node, (ast.BoolOp, ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_sources(v) for v in getattr(node, "values", None) or node.elts))
    if isinstance(node, ast.Dict):
        return set().union(*(_sources(v) for v in node.values))
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _sources(node.elt) | set().union(*(_sources(g.iter) for g in node.generators))
    if isinstance(node, ast.DictComp):
        return _sources(node.value) | set().union(*(_sources(g.iter) for g in node.generators))
    if isinstance(node, ast.NamedExpr):
        return _sources(node.value) | {node.target.id}
    return set()


def _data(names: set, nb) -> set:
    """``names`` without NumPy's and the builtins' (a call cannot change a module or a builtin)."""
    return names - nb.numpy - (_BUILTINS - nb.bound)


def _assignments(tree):
    """``(target, value)`` of every binding in ``tree``: assignments, loops, ``with ... as``, ``:=``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            yield from ((t, node.value) for t in node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            yield node.target, node.value
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            yield node.target, node.iter
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            yield node.optional_vars, node.context_expr


@dataclass
class _Notebook:
    numpy: set            # the names NumPy is imported as
    functions: dict       # name -> the notebook's ``def`` nodes of that name
    bound: set            # names bound otherwise (assignments, loops, parameters)
    has_classes: bool


class _Effects(ast.NodeVisitor):
    """What code loads (``loads``), binds (``stores``), may change in place (``changes``: the names whose objects
    it stores into, calls a method of or passes to a call) and which of the notebook's functions it calls or
    passes on (``calls``). A ``def`` binds its name; its body counts only where it is called."""

    def __init__(self, nb: _Notebook):
        self.nb = nb
        self.loads, self.stores, self.changes, self.calls = set(), set(), set(), set()

    def data(self, names: set) -> set:
        return _data(names, self.nb)

    def visit_Name(self, node):
        if node.id in _OPAQUE:
            raise _Opaque(node.id)
        (self.loads if isinstance(node.ctx, ast.Load) else self.stores).add(node.id)
        if node.id in self.nb.functions:
            self.calls.add(node.id)

    def visit_Global(self, node):
        raise _Opaque

    visit_Nonlocal = visit_Global

    def visit_ImportFrom(self, node):
        if any(a.name == "*" for a in node.names):
            raise _Opaque
        self.stores.update((a.asname or a.name) for a in node.names)

    def visit_Import(self, node):
        self.stores.update((a.asname or a.name).split(".")[0] for a in node.names)

    def visit_FunctionDef(self, node):
        self.stores.add(node.name)
        for sub in [*node.decorator_list, *node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
            self.visit(sub)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.stores.add(node.name)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        root = _root(node.target)
        if root:
            self.loads.add(root)
            self.changes.add(root)
        self.generic_visit(node)

    def _store_into(self, node):
        if not isinstance(node.ctx, ast.Load):
            root = _root(node)
            if root:
                self.changes.add(root)
        self.generic_visit(node)

    visit_Attribute = visit_Subscript = _store_into

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name):
            if func.id in self.nb.bound:
                raise _Opaque(f"call of {func.id}")  # a callable bound by an assignment or a parameter: not followed
            if func.id == "open":  # a file written is seen by whatever reads it later
                mode = node.args[1] if len(node.args) > 1 else \
                    next((k.value for k in node.keywords if k.arg == "mode"), None)
                if mode is not None and not (isinstance(mode, ast.Constant) and set(str(mode.value)) <= set("rbt")):
                    raise _Opaque("a file opened for writing")
        elif isinstance(func, ast.Attribute):
            root, chain = _root(func), []
            while isinstance(func, ast.Attribute):
                chain.append(func.attr)
                func = func.value
            if root in self.nb.numpy:
                if "random" in chain and chain[0] != "default_rng":
                    self.stores.add(root)  # NumPy's global random state
            elif self.nb.has_classes:
                raise _Opaque("method call")  # a method of the notebook's own classes could change anything
            elif root:
                self.changes.add(root)
        else:
            raise _Opaque("call of an expression")
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            self.changes |= self.data(_sources(arg))
        self.generic_visit(node)


def _function(d, nb: _Notebook) -> tuple[set, set, set]:
    """(global names read, global names possibly changed, the notebook's functions called) of one ``def``:
    what it binds is local; a change to a local counts against the globals that local was made from."""
    e = _Effects(nb)
    for stmt in d.body:
        e.visit(stmt)
    local = {a.arg for a in ast.walk(d.args) if isinstance(a, ast.arg)}
    aliases: dict = {}
    for node in ast.walk(d):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            local.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not d:
            local.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            local.update((a.asname or a.name).split(".")[0] for a in node.names)
    for target, value in _assignments(d):
        for name in _names(target):
            aliases.setdefault(name, set()).update(e.data(_sources(value)))
    changed, todo = set(), list(e.stores | e.changes)
    seen = set()
    while todo:  # a local made from a local made from a global changes that global
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name not in local:
            changed.add(name)
        else:
            todo.extend(aliases.get(name, ()))
    return e.loads - local, changed, e.calls


def _notebook(trees) -> _Notebook:
    """What the code cells' syntax ``trees`` define and bind (:class:`_Notebook`)."""
    nb = _Notebook(set(), {}, set(), False)
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                nb.numpy.update(a.asname or a.name for a in node.names if a.name == "numpy")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                nb.functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                nb.has_classes = True
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                nb.bound.add(node.id)
            elif isinstance(node, ast.arg):
                nb.bound.add(node.arg)
    return nb


def _code(node: ast.ImportFrom, name: str) -> bool:
    """Is ``from <module> import <name>`` a function or a class (in this environment, the kernel's)?"""
    import importlib
    import inspect

    try:
        obj = getattr(importlib.import_module("." * node.level + (node.module or "")), name)
    except Exception:  # noqa: BLE001 - not importable here: count it as data
        return False
    return inspect.isroutine(obj) or inspect.isclass(obj)


def names_read(cases_path) -> set | None:
    """The notebook's names the hidden tests read (``nb.<name>``); None when they use ``nb`` otherwise (pass it
    on, ``getattr``): then every name counts as read."""
    tree = ast.parse(Path(cases_path).read_text())
    attrs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "nb"]
    if any(id(n) not in attrs for n in uses):
        return None
    return {n.attr for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "nb"}


def cells_to_run(nb, start: int, stop: int, needed=()) -> list[int]:
    """The code cells among ``start..stop-1`` a mutant's copy must run (see above): the first (the mutant's
    change), the graded and solution cells, and every cell whose effects a later one that runs may see.
    ``needed``: the notebook's names read after the last cell (by the hidden tests; None: any name)."""
    try:  # each code cell's syntax tree; a cell that does not parse hides what it binds: nothing is left out
        trees = {i: _python(c.source) for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    except _Opaque:
        return [i for i in range(start, stop) if nb.cells[i].cell_type == "code"]
    info = _notebook(trees.values())
    functions = {}  # name -> (globals read, globals changed), with those of the functions it calls; None: opaque
    for name, defs in info.functions.items():
        try:
            parts = [_function(d, info) for d in defs]
            functions[name] = (set().union(*(p[0] for p in parts)), set().union(*(p[1] for p in parts)),
                               set().union(*(p[2] for p in parts)))
        except _Opaque:
            functions[name] = None
    changed = True
    while changed:  # to a fixed point over calls
        changed = False
        for name, f in functions.items():
            if f is None:
                continue
            if any(functions[c] is None for c in f[2]):
                functions[name], changed = None, True
                continue
            reads = f[0].union(*(functions[c][0] for c in f[2]))
            writes = f[1].union(*(functions[c][1] for c in f[2]))
            if (reads, writes) != f[:2]:
                functions[name], changed = (reads, writes, f[2]), True

    def reads(names) -> set:
        out = set(names)
        for n in names:
            f = functions.get(n, ())
            if f is None:
                raise _Opaque
            if f:
                out |= f[0]
        return out

    # index -> the names bound in cells 0..index that may hold an object a cell can change: every binding but a
    # ``def``, a function or class imported, and NumPy (a module may hold such objects; NumPy's random state is
    # followed apart)
    data_before, bound = {}, set()
    for index in range(len(nb.cells)):
        tree = trees.get(index)
        if tree is not None:
            bound |= {n for target, _ in _assignments(tree) for n in _names(target)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    bound |= {(a.asname or a.name).split(".")[0] for a in node.names} - info.numpy
                elif isinstance(node, ast.ImportFrom):
                    bound |= {a.asname or a.name for a in node.names if not _code(node, a.name)}
        data_before[index] = set(bound)
    run, wanted = [], None
    try:
        wanted = None if needed is None else reads(set(needed))
    except _Opaque:
        pass
    for index in range(stop - 1, start - 1, -1):
        cell = nb.cells[index]
        if cell.cell_type != "code":
            continue
        if wanted is None:  # something not followed runs later: every cell runs
            run.append(index)
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        try:
            e = _Effects(info)
            tree = trees[index]
            e.visit(tree)
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                e.stores |= {"_", "__", "___", "Out"}
            changes = set(e.changes)
            for c in e.calls:
                if functions[c] is None:
                    raise _Opaque
                changes |= functions[c][1]
            seen = (e.stores | changes) & wanted or changes and wanted & data_before[index]
            if index == start or meta.get("grade") or meta.get("solution") or seen:
                wanted |= reads(e.loads)
                run.append(index)
        except _Opaque:
            run.append(index)
            wanted = None
    return sorted(run)

