"""Rules that read the student's code, here, from the notebook's source (never from the kernel)."""
from __future__ import annotations

import ast
import contextvars
import functools
import types

from ..scan import parse_python

__all__ = ["function_definition", "own_work_rule", "python_loops_in_source", "check_vectorised", "check_not_using"]

_current: contextvars.ContextVar = contextvars.ContextVar("weat_judge_cells", default=None)

_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
LOOPS_IN_DISGUISE = frozenset({"vectorize", "apply_along_axis", "map", "frompyfunc", "fromiter"})
REFERENCE_MODULES = ("statistics", "embeddings", "wordsets", "weat", "wefat", "lexicon", "enumeration", "plots")


def _sources_before() -> list[str]:
    cells = _current.get()
    if cells is None:
        raise RuntimeError("the source rules work while a cell is judged (NotebookJudge.judge_cell)")
    return cells


@functools.lru_cache(maxsize=1024)
def _parse(source: str):
    """The cell's syntax tree; IPython lines (magics, shell escapes) are blanked first.

    Cached (each rule of each test cell reads every cell above it): the trees are read, never changed."""
    lines = [("" if ln.lstrip().startswith(("%", "!")) else ln) for ln in source.splitlines()]
    try:
        return parse_python("\n".join(lines), top_level_await=False)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _definitions(sources) -> tuple[dict, dict]:
    """``({name: last top-level binding node}, {alias: "helpers.module" or "helpers.module.name"})``."""
    return _definitions_of(tuple(sources))


@functools.lru_cache(maxsize=64)
def _definitions_of(sources: tuple) -> tuple[dict, dict]:
    last, aliases = {}, {}
    for src in sources:
        tree = _parse(src)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name == "helpers" or a.name.startswith("helpers."):
                        aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else "helpers"
            elif isinstance(node, ast.ImportFrom) and node.module and (
                    node.module == "helpers" or node.module.startswith("helpers.")):
                for a in node.names:
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                last[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            last[n.id] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for a in node.names:
                    last[(a.asname or a.name).split(".")[0]] = node
    return types.MappingProxyType(last), types.MappingProxyType(aliases)  # cached: read-only


def _function_node(name: str, label: str):
    defs, aliases = _definitions(_sources_before())
    node = defs.get(name)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise AssertionError(f"{label}: the grader reads the code of your `def {name}(...)` in the notebook and "
                             f"found none (or `{name}` was assigned something else after it); define {name} with "
                             "`def` in its answer cell.")
    return node, defs, aliases


def function_definition(name: str, label: str | None = None) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The syntax tree of the notebook's function ``name``, for a rule that reads the student's code.

    Read here, from the source of the cells run before the one being judged: the last top-level binding of
    ``name`` (what the kernel's ``name`` is, unless the code hides it). A hidden-test module uses it for a
    rule no value can decide (for example Lemma 3 of notebook 09, where the shortcut gives the same number).

    Parameters
    ----------
    name : str
        The function's name in the notebook.
    label : str, optional
        How the message names it (default: ```name```).

    Returns
    -------
    ast.FunctionDef or ast.AsyncFunctionDef
        Its ``def`` statement.

    Raises
    ------
    AssertionError
        The notebook has no ``def name(...)`` (or assigned ``name`` something else after it): the cell fails
        with a message that says to define it with ``def`` in its answer cell.
    RuntimeError
        Called while no cell is being judged.
    """
    return _function_node(name, label or f"`{name}`")[0]


def _dotted(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _helpers_names(fn, aliases) -> set[str]:
    """The ``helpers.<module>.<name>`` functions that the code of ``fn`` refers to."""
    found = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("helpers"):
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("helpers"))
        dotted = _dotted(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
        if dotted:
            head, _, rest = dotted.partition(".")
            full = aliases.get(head, "helpers" if head == "helpers" else None)
            if full:
                found.add(f"{full}.{rest}" if rest else full)
    return found


def _own_calls(fn, defs) -> list:
    """The notebook's own functions that ``fn`` names, directly or indirectly (``fn`` first)."""
    out, seen, todo = [], set(), [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        out.append(f)
        for node in ast.walk(f):
            if isinstance(node, ast.Name) and node.id in defs and isinstance(
                    defs[node.id], (ast.FunctionDef, ast.AsyncFunctionDef)):
                todo.append(defs[node.id])
    return out


def own_work_rule(name: str, references, label: str) -> None:
    """Assert that the notebook's function ``name`` (and its own functions it uses) names none of ``references``.

    Parameters
    ----------
    name : str
        The student's function.
    references : iterable of str
        Names of the course's reference functions the exercise asks the student to write.
    label : str
        How the message names the function.

    Raises
    ------
    AssertionError
        The code refers to one of them (e.g. ``helpers.statistics.cosine``), or ``name`` has no ``def``.
    """
    fn, defs, aliases = _function_node(name, label)
    wanted = set(references)
    used = sorted({n for f in _own_calls(fn, defs) for n in _helpers_names(f, aliases)
                   if n.rsplit(".", 1)[-1] in wanted and n.count(".") >= 1})
    if used:
        raise AssertionError(f"{label} calls the course's reference implementation ({', '.join(used)}). This "
                             "exercise asks you to write it yourself with NumPy.")


def python_loops_in_source(fn) -> list[str]:
    """The loops (``for``, ``while``, comprehensions) in a function's syntax tree, one line each.

    Parameters
    ----------
    fn : ast.FunctionDef
        The function.

    Returns
    -------
    list of str
        ``"<function>: line N: <kind>"`` per loop; ``[]`` for loop-free code.
    """
    return [f"{fn.name}: line {n.lineno}: {type(n).__name__}" for n in ast.walk(fn) if isinstance(n, _LOOPS)]


def _name_of(func) -> str:
    return getattr(func, "name", None) or getattr(func, "__name__", "your function")


def check_vectorised(func, what: str | None = None, *, follow: bool = True, hint: str = ""):
    """No Python loop in ``func``, read from the notebook's source here (see :func:`helpers.checks.check_vectorised`).

    With ``follow`` the notebook's own functions it uses are read too, and loops in disguise
    (``np.vectorize``, ``np.apply_along_axis``, ``map``, ``np.frompyfunc``, ``np.fromiter``) count.
    """
    name = _name_of(func)
    label = what or name
    tail = f" {hint}" if hint else ""
    fn, defs, _ = _function_node(name, label)
    assert not python_loops_in_source(fn), f"{label} contains a Python loop (for, while or a comprehension).{tail}"
    if not follow:
        return
    for f in _own_calls(fn, defs):
        assert not python_loops_in_source(f), (f"{label} calls your function {f.name}, which contains a Python "
                                               f"loop; {label} must be vectorised all the way down.{tail}")
        used = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)} | {
            n.attr for n in ast.walk(f) if isinstance(n, ast.Attribute)}
        disguised = sorted(used & LOOPS_IN_DISGUISE)
        assert not disguised, (f"{f.name} loops in disguise ({', '.join(disguised)}); use whole-array NumPy "
                               f"operations instead.{tail}")


def _identifiers(node) -> set[str]:
    """The names, attribute names and string constants in ``node``'s syntax tree."""
    return {n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else n.value
            for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute))
            or (isinstance(n, ast.Constant) and isinstance(n.value, str))}


def check_not_using(func, *names: str, what: str | None = None, hint: str = ""):
    """No library function ``names`` in the code of ``func`` or the notebook's own functions it uses, read here.

    ``names`` are dotted (``"scipy.stats.false_discovery_control"``). The code uses one when it names its last
    part (a name, an attribute, or a string as in ``getattr(stats, "...")``) or a name the notebook bound to it
    (``from scipy.stats import false_discovery_control as fdc``, ``fdc = stats.false_discovery_control``).
    Like every rule that reads code, it misses a function hidden well enough.
    """
    name = _name_of(func)
    label = what or f"`{name}`"
    fn, defs, _ = _function_node(name, label)
    wanted = {n.rsplit(".", 1)[-1] for n in names}
    bound = set(wanted)
    for tree in filter(None, map(_parse, _sources_before())):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                bound |= {a.asname for a in node.names if a.asname and a.name in wanted}
            elif isinstance(node, ast.Assign) and _identifiers(node.value) & wanted:
                bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    used = sorted({i for f in _own_calls(fn, defs) for i in _identifiers(f)} & bound)
    tail = f" {hint}" if hint else ""
    assert not used, f"{label} uses {', '.join(names)} (as {', '.join(used)}).{tail}"
