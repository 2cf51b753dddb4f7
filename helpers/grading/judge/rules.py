"""Rules that read the student's code, here, from the notebook's source (never from the kernel)."""
from __future__ import annotations

import ast
import contextvars
import functools
import types

from ... import sourcecode
from ...sourcecode import LOOPS_IN_DISGUISE, REFERENCE_MODULES  # noqa: F401 - re-exported by helpers.grading.judge
from ..scan import parse_python

__all__ = ["function_definition", "own_work_rule", "python_loops_in_source", "check_vectorised", "check_not_using"]

_current: contextvars.ContextVar = contextvars.ContextVar("weat_judge_cells", default=None)

# LOOPS_IN_DISGUISE and REFERENCE_MODULES: helpers.sourcecode's, the one list the checks and the scan read too


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


@functools.lru_cache(maxsize=64)
def _notebook(sources: tuple) -> tuple[types.MappingProxyType, types.MappingProxyType]:
    """``(every binding of each name at any depth, {name: dotted path} of imports and aliases)``.

    :func:`helpers.sourcecode.module_bindings` and :func:`helpers.sourcecode.aliases` of the cells; cached and
    read-only (each rule of each test cell reads every cell above it)."""
    trees = [t for t in map(_parse, sources) if t is not None]
    return (types.MappingProxyType(sourcecode.module_bindings(trees)),
            types.MappingProxyType(sourcecode.aliases(trees)))


def _function_node(name: str, label: str):
    bindings, aliases = _notebook(tuple(_sources_before()))
    nodes = bindings.get(name) or [None]
    if not isinstance(nodes[-1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise AssertionError(f"{label}: the grader reads the code of your `def {name}(...)` in the notebook and "
                             f"found none (or `{name}` was assigned something else after it); define {name} with "
                             "`def` in its answer cell.")
    return nodes[-1], bindings, aliases


def function_definition(name: str, label: str | None = None) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The syntax tree of the notebook's function ``name``, for a rule that reads the student's code.

    Read here, from the source of the cells run before the one being judged: the last binding of ``name``, at
    any depth (what the kernel's ``name`` is when every condition held, unless the code hides it). A
    hidden-test module uses it for a rule no value can decide (for example Lemma 3 of notebook 09, where the
    shortcut gives the same number).

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


def _helpers_names(code, aliases) -> set[str]:
    """The ``helpers.<module>.<name>`` functions that ``code`` refers to (names resolved through ``aliases``)."""
    found = set()
    for node in ast.walk(code):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("helpers"):
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("helpers"))
        dotted = sourcecode.dotted(node) if isinstance(node, (ast.Attribute, ast.Name)) else None
        if dotted:
            path = sourcecode.resolve(dotted, aliases)
            if path == "helpers" or path.startswith("helpers."):
                found.add(path)
    return found


def own_work_rule(name: str, references, label: str) -> None:
    """Assert that the notebook's function ``name`` (and its own functions it uses) names none of ``references``.

    Every definition of ``name`` is read, at any depth (a second one under ``if True:``), and so is every
    notebook name it uses, through each of its bindings (:func:`helpers.sourcecode.own_code`).

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
    _, bindings, aliases = _function_node(name, label)
    wanted = set(references)
    used = sorted({n for _, code in sourcecode.own_code(name, bindings) for n in _helpers_names(code, aliases)
                   if n.rsplit(".", 1)[-1] in wanted and n.count(".") >= 1})
    if used:
        raise AssertionError(f"{label} calls the course's reference implementation ({', '.join(used)}). This "
                             "exercise asks you to write it yourself with NumPy.")


def python_loops_in_source(fn) -> list[str]:
    """The loops in a function's syntax tree, one line each (:func:`helpers.sourcecode.loops`).

    ``for``, ``while``, comprehensions, loops in disguise (``map``, ``functools.reduce``, ``itertools``,
    ``np.vectorize``, ...; names resolved through the function's own imports) and a function that calls
    itself, wherever they are in it (nested functions and lambdas too).

    Parameters
    ----------
    fn : ast.FunctionDef
        The function.

    Returns
    -------
    list of str
        ``"<function>: line N: <kind>"`` per loop; ``[]`` for loop-free code.
    """
    return [f"{fn.name}: {where}" for where in sourcecode.loops(fn)]


def _name_of(func) -> str:
    return getattr(func, "name", None) or getattr(func, "__name__", "your function")


def _loops(code, aliases) -> tuple[list, list, list]:
    """(loops, loops in disguise, recursion) in one binding's code; an assigned value counts as computed once."""
    found = sourcecode.loops(code, aliases, once=not isinstance(code, ast.stmt))
    disguised = [f for f in found if f.endswith("(a loop in disguise)")]
    recursion = [f for f in found if f.endswith("(recursion)")]
    return [f for f in found if f not in disguised and f not in recursion], disguised, recursion


def check_vectorised(func, what: str | None = None, *, follow: bool = True, hint: str = ""):
    """No Python loop in ``func``, read from the notebook's source here (see :func:`helpers.checks.check_vectorised`).

    Every definition of the function counts, at any depth or under any condition (a second ``def`` under ``if
    True:``), with what it holds (nested functions, lambdas, default values). Loops are those of
    :func:`helpers.sourcecode.loops`: ``for``, ``while``, comprehensions (a comprehension runs its body once per
    element in Python), loops in disguise (``map``, ``filter``, ``functools.reduce``, ``itertools``,
    ``np.vectorize``, ``np.apply_along_axis``, ...) and recursion. With ``follow`` the notebook's own code that
    the function uses is read too, through every binding of each name (:func:`helpers.sourcecode.own_code`),
    and so is recursion through several functions.

    Parameters
    ----------
    func : Remote
        The notebook's function (``nb.<name>``); only its name is used.
    what : str, optional
        How the message names it (default: its name).
    follow : bool
        Also read the notebook's own code that the function runs.
    hint : str
        A sentence appended to the message (what to use instead).

    Raises
    ------
    AssertionError
        A loop was found (the message says which and where), or the notebook has no ``def`` of the function.
    """
    name = _name_of(func)
    label = what or name
    tail = f" {hint}" if hint else ""
    _, bindings, aliases = _function_node(name, label)
    own = sourcecode.own_code(name, bindings)
    for n, code in own if follow else [(n, c) for n, c in own if n == name]:
        plain, disguised, recursion = _loops(code, aliases)
        where = "; ".join(plain)
        if n == name:
            assert not plain, f"{label} contains a Python loop (for, while or a comprehension: {where}).{tail}"
        else:
            assert not plain, (f"{label} calls your function {n}, which contains a Python loop ({where}); {label} "
                               f"must be vectorised all the way down.{tail}")
        shown = ", ".join(d.split(": ", 1)[1].replace(" (a loop in disguise)", "") for d in disguised)
        assert not disguised, f"{n} loops in disguise ({shown}); use whole-array NumPy operations instead.{tail}"
        assert not recursion, (f"{n} calls itself ({'; '.join(recursion)}): recursion runs Python code once per "
                               f"step, a loop; use whole-array NumPy operations instead.{tail}")
    recursive = sourcecode.recursive_names(name, bindings) if follow else []
    assert not recursive, (f"{label} runs {', '.join(recursive)} again from inside itself (recursion through "
                           f"several functions runs Python code once per step, a loop); use whole-array NumPy "
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

    Parameters
    ----------
    func : object
        The student's function as the notebook proxy gives it (its ``name`` is read).
    *names : str
        The dotted names of the library functions it may not use.
    what : str, optional
        How the message names the function (default: its name in backticks).
    hint : str
        A sentence added to the message: what to write instead.

    Raises
    ------
    AssertionError
        When the code uses one of ``names``; the message says which, and under what name.
    """
    name = _name_of(func)
    label = what or f"`{name}`"
    _, bindings, _ = _function_node(name, label)
    wanted = {n.rsplit(".", 1)[-1] for n in names}
    bound = set(wanted)
    for tree in filter(None, map(_parse, _sources_before())):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                bound |= {a.asname for a in node.names if a.asname and a.name in wanted}
            elif isinstance(node, ast.Assign) and _identifiers(node.value) & wanted:
                bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    used = sorted({i for _, code in sourcecode.own_code(name, bindings) for i in _identifiers(code)} & bound)
    tail = f" {hint}" if hint else ""
    assert not used, f"{label} uses {', '.join(names)} (as {', '.join(used)}).{tail}"
