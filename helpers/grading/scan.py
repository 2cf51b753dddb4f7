"""A static scan of a submission's own code, before anything runs, for what honest answers never need.

Code in an answer cell runs in the same Python process as the tests that grade it, so it can in
principle reach the tests: register an IPython hook that rewrites later cells, rebind the check
functions, patch ``numpy.allclose``, read the reference implementation. :mod:`helpers.checks`
makes the simple versions of these fail at run time; this scan catches them (and their clever
versions) *before execution*, by reading the code, and flags the submission for a person
(:func:`helpers.grading.flags.add_flag`). A flag never changes a score: the flagged cells keep their auto
score and are left for manual grading in the formgrader.

What the scan reads: every code cell the student controls, i.e. the answer cells and every
unlocked cell (students may edit those and add new ones), except unlocked cells that are exactly
as released. What it flags (each flag names the cell and says why, in plain words):

* IPython magics and shell lines (``%``, ``%%``, ``!``): the cell is not plain Python;
* ``get_ipython`` and the other ways into the running kernel (``globals()``, ``locals()``,
  ``vars()``, ``eval``, ``exec``, ``compile``, ``__import__``, ``breakpoint``), and ``open`` in
  any mode that writes (reading a file is allowed: notebook 10 reads a lexicon);
* ``getattr``/``setattr``/``delattr`` with a computed or dunder name, ``setattr``/``delattr`` on a
  module, and dunder attributes (``__code__``, ``__globals__``, ``__builtins__``, ``__dict__``,
  ``__wrapped__``, ``__closure__``, ``__subclasses__``, ...);
* assigning to or deleting an attribute of an imported module or an alias of one
  (``np.allclose = ...``);
* binding, at notebook level, a name the notebook's test cells rely on (``check_*``, ``quiet``,
  ``np``, builtins such as ``float``): the names come from the test cells themselves;
* imports outside :data:`ALLOWED_IMPORTS` (``os``, ``sys``, ``subprocess``, ``sqlite3``,
  ``inspect``, ``importlib``, ``IPython``, ``ctypes``, ...) and of the course's grading modules;
* an answer function that is a near-copy of the course's reference of any name
  (:func:`similarity` at least :data:`SIMILARITY_THRESHOLD`).

A scan is not a proof: Python is too dynamic for reading code to catch everything, which is why
anything suspicious goes to a person, the checks capture pristine references at import, and the
kernel runs in a sandbox. See CONTRIBUTING.md ("Why the checks cannot be switched off").
"""
from __future__ import annotations

import ast
import builtins
import difflib
import io
import keyword
import tokenize
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade, is_locked, is_solution

from .. import sourcecode
from .flags import grade_id, safe_name

__all__ = ["ALLOWED_IMPORTS", "SIMILARITY_THRESHOLD", "REFERENCE_MODULES", "LIBRARY_METHODS", "MIN_COPY_NODES",
           "scan_notebook", "scan_source", "similarity", "near_copies", "renamed_copies", "reference_sources",
           "reference_normal_forms", "ScanAnswers", "parse_python"]

#: The course's reference modules: :data:`helpers.sourcecode.REFERENCE_MODULES`, the one list the checks, the
#: judge and this scan read.
REFERENCE_MODULES = sourcecode.REFERENCE_MODULES

#: Top-level modules an answer may import. Everything else (os, sys, subprocess, sqlite3, inspect,
#: importlib, IPython, ctypes, signal, threading, multiprocessing, socket, shutil, pathlib, gc, ...)
#: is flagged: no exercise of the course needs it.
ALLOWED_IMPORTS = frozenset({
    "numpy", "scipy", "math", "cmath", "statistics", "itertools", "functools", "collections", "operator",
    "typing", "dataclasses", "__future__", "numbers", "fractions", "decimal", "heapq", "bisect", "random",
    "re", "string", "copy", "warnings", "csv", "json", "pandas", "matplotlib", "seaborn", "helpers",
})
#: Methods of gensim's ``KeyedVectors`` (the course's embedding object, which every notebook hands its
#: students) that compute what the exercises ask for: cosines, similarities, unit vectors. An answer that
#: calls one is flagged like any other function outside its exercise's allow-list.
LIBRARY_METHODS = frozenset({
    "similarity", "cosine_similarities", "distance", "distances", "most_similar", "most_similar_cosmul",
    "n_similarity", "similar_by_vector", "similar_by_word", "similar_by_key", "get_normed_vectors", "fill_norms",
    "get_mean_vector", "relative_cosine_similarity", "rank_by_centrality", "closer_than", "doesnt_match",
    "wmdistance", "unit_normalize_all"})
#: An answer function at least this similar to the reference function of the same name (see
#: :func:`similarity`) is flagged as a near-copy. Measured on the 56 answer functions of every
#: worked solution and mutant that share a name with a reference function: median 0.50, 90th
#: percentile 0.65, maximum 0.78 (03's differential_association); a copy of the reference with renamed variables scores 1.0 (CONTRIBUTING.md).
SIMILARITY_THRESHOLD = 0.9

_FORBIDDEN_NAMES = {
    "get_ipython": "uses get_ipython (the running IPython kernel); no exercise needs it",
    "globals": "uses globals() (the notebook's namespace); no exercise needs it",
    "locals": "uses locals(); no exercise needs it",
    "vars": "uses vars(); no exercise needs it",
    "eval": "uses eval (runs code built as text); no exercise needs it",
    "exec": "uses exec (runs code built as text); no exercise needs it",
    "compile": "uses compile (builds code from text); no exercise needs it",
    "__import__": "uses __import__; import modules with an import statement",
    "breakpoint": "calls breakpoint()",
    "__builtins__": "uses __builtins__ (the built-in functions the tests rely on)",
    "__builtin__": "uses __builtin__",
    "__loader__": "uses __loader__",
    "__spec__": "uses __spec__",
}
_SAFE_DUNDERS = {"__name__", "__doc__", "__init__", "__qualname__", "__future__", "__main__"}


_dotted = sourcecode.dotted
_imports = sourcecode.imports


def _root(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _bound_at_top(tree, course_imports=None) -> set[str]:
    """Names a cell binds in the notebook's namespace (:func:`helpers.sourcecode.module_bindings`: at any
    depth of the cell, or ``global`` in a function).

    An import that binds a name to what the course's own cells bind it to (``import numpy as
    np`` again) does not count."""
    course_imports = course_imports or {}
    out: set[str] = set()
    for name, nodes in sourcecode.module_bindings([tree]).items():
        if any(not (isinstance(node, (ast.Import, ast.ImportFrom))
                    and course_imports.get(name) == _imports(node).get(name)) for node in nodes):
            out.add(name)
    return out


#: The reason given for a cell the scan cannot read: it fails closed (a flag), never silently passes.
UNREADABLE = ("could not be read as Python by the scan (a syntax error, or code nested too deeply), so nothing "
              "in it was checked; a person should look")


def parse_python(text: str, *, top_level_await: bool = True):
    """Parse ``text`` into its syntax tree as the kernel compiles it (IPython allows a top-level ``await``).

    CPython 3.11 keeps one recursion counter for every syntax tree it builds; a tree built while
    another is being built (a finaliser that formats a traceback, which parses source lines) leaves
    it unbalanced, and ``compile`` raises ``SystemError: AST constructor recursion depth mismatch``
    for code that is fine (python/cpython#106905). The spurious error is retried once; a second one
    becomes a ``ValueError``, which every caller treats as code it could not read (flagged).

    Parameters
    ----------
    text : str
        The code.
    top_level_await : bool
        Allow ``await`` at the top level, as IPython does (default); the judge's callers pass False.

    Returns
    -------
    ast.Module
        The syntax tree.

    Raises
    ------
    SyntaxError, ValueError, RecursionError, MemoryError
        ``text`` is not Python the scan can read.
    """
    flags = ast.PyCF_ONLY_AST | (ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if top_level_await else 0)
    try:
        return compile(text, "<cell>", "exec", flags=flags, dont_inherit=True)
    except SystemError:
        pass  # the spurious error: once more
    try:
        return compile(text, "<cell>", "exec", flags=flags, dont_inherit=True)
    except SystemError as exc:
        raise ValueError(f"Python could not build the syntax tree ({exc})") from None


def _parse(source: str):
    """(tree, uses_magics) for a cell: plain Python, or IPython syntax turned into Python; tree is
    None when the cell is neither (the callers flag that: the scan fails closed)."""
    try:
        return parse_python(source), False
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        transformed = TransformerManager().transform_cell(source)
        tree = parse_python(transformed)
    except Exception:  # noqa: BLE001 - not Python: scan_source flags it (UNREADABLE)
        return None, False
    return tree, transformed.strip() != source.strip()


def _outside_allow_list(tree, allowed: set, course_imports: dict, answer: bool, reached: set) -> list[str]:
    """Reasons for each module or function the cell's code takes that its exercise's allow-list lacks.

    An import is judged by what the cell takes from it: ``import helpers.statistics as s`` then ``s.cosine``
    takes ``helpers.statistics.cosine``; an import the cell does not use is judged by itself."""
    in_functions = {id(m) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                    for m in ast.walk(n)}
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    uses: dict[str, set] = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in inner and isinstance(n.ctx, ast.Load):
            name = _dotted(n)
            if name:
                head, _, rest = name.partition(".")
                uses.setdefault(head, set()).add(rest)
    out = []

    def take(path):
        parts = path.split(".")
        if sourcecode.is_allowed(path, allowed):
            return
        if parts[0] == "helpers":
            reason = (f"uses the course's {safe_name(path)}, which this exercise does not name (it may compute what "
                      "the exercise asks you to write); a person should check")
        else:
            reason = (f"uses {safe_name(path)}, which is not on this exercise's list (NumPy, math, your own functions "
                      "and what the notebook's own cells import); a person should check it does not do the "
                      "exercise's work")
        if reason not in out:
            out.append(reason)

    for n in ast.walk(tree):
        if isinstance(n, (ast.Import, ast.ImportFrom)) and not getattr(n, "level", 0):
            for a in n.names:
                if isinstance(n, ast.Import):  # `import scipy.stats` binds scipy and takes scipy.stats
                    name, bound = a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0]
                    path = a.name
                else:
                    name, path = a.asname or a.name, f"{n.module or ''}.{a.name}"
                    bound = path
                if course_imports.get(name) == bound or not (answer or id(n) in in_functions or name in reached):
                    continue
                parts = path.split(".")
                if parts[0] not in ALLOWED_IMPORTS or (parts[0] == "helpers" and len(parts) > 1
                                                       and parts[1] not in REFERENCE_MODULES):
                    continue  # flagged already: a module no exercise needs, or the grading machinery
                for rest in sorted(uses.get(name, ())) or [None]:
                    take(path if rest is None else f"{bound}.{rest}" if rest else bound)
        elif isinstance(n, ast.Attribute) and n.attr in LIBRARY_METHODS and (answer or id(n) in in_functions):
            reason = (f"calls .{n.attr}, a method of gensim's word vectors that computes what the exercises ask "
                      "you to write; a person should check")
            if reason not in out:
                out.append(reason)
    return out


def scan_source(source: str, *, modules=frozenset(), protected=frozenset(), course_imports=None, allowed=None,
                answer: bool = True, reached=frozenset()) -> list[str]:
    """Give the reasons, in plain words, why one cell's code needs a person (``[]`` when none).

    The code is read, never run: its imports, calls, attribute writes, bindings of protected names and
    loops are compared with the rules of the module docstring.

    Parameters
    ----------
    source : str
        The code of one cell (IPython syntax allowed: it is flagged).
    modules : set of str
        Names bound to imported modules elsewhere in the notebook (``np``, ``plt``, ...): setting
        or deleting their attributes is flagged. The cell's own imports are added.
    protected : set of str
        Names the test cells rely on: binding one of them at notebook level is flagged.
    course_imports : dict, optional
        ``{name: module path}`` of the course's own imports (``{"np": "numpy"}``): importing the
        same module under the same name again is not a rebinding.
    allowed : iterable of str, optional
        The exercise's allow-list beyond NumPy and math (:func:`helpers.sourcecode.is_allowed`): the
        dotted paths the notebook's own cells import. With it, an import of anything else (another
        course function, SciPy, ...) and a call of one of :data:`LIBRARY_METHODS` is flagged.
        Without it (None) the allow-list is not checked.
    answer : bool
        The cell is an answer cell: all of its code is held to the allow-list. Another cell of the
        student's is held to it inside its functions, and in imports of a name of ``reached``.
    reached : set of str
        Names the answers use (read in answer cells and in the student's functions).

    Returns
    -------
    list of str
        One reason per finding, without duplicates, in the order found.
    """
    reasons: list[str] = []

    def flag(reason):
        if reason not in reasons:
            reasons.append(reason)

    tree, magics = _parse(source)
    if tree is None:
        return [UNREADABLE]
    if magics:
        flag("uses IPython magics or shell commands (lines starting with % or !): the cell is not plain Python")
    imported = _imports(tree)
    aliases = set(modules) | set(imported)
    # a plain alias of a module (m = np) is a module too
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and _root(n.value) in aliases and isinstance(n.value, (ast.Name, ast.Attribute)):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    aliases.add(t.id)
    # open(path) and open(path, "r"/"rb"/"rt", ...) read a file (notebook 10 reads a lexicon); any
    # other use of open (a mode that writes, a computed mode, open passed around) is flagged
    read_only_opens = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "open":
            modes = [k.value for k in n.keywords if k.arg == "mode"] + n.args[1:2]
            if all(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) <= set("rtb")
                   for m in modes):
                read_only_opens.add(id(n.func))
            target = n.args[0] if n.args else None
            if isinstance(target, ast.Constant) and isinstance(target.value, str) \
                    and (target.value.startswith(("/", "~")) or ".." in target.value):
                flag(f"opens {safe_name(target.value)!r}, a file outside the notebook's folder")
    for n in ast.walk(tree):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            names = ([a.name for a in n.names] if isinstance(n, ast.Import)
                     else [n.module or ""] + [f"{n.module}.{a.name}" for a in n.names])
            for name in names:
                top = name.split(".")[0]
                if isinstance(n, ast.ImportFrom) and n.level:
                    flag("uses a relative import")
                elif top not in ALLOWED_IMPORTS:
                    flag(f"imports {top}, which no exercise needs (it can reach the grader or the system)")
                elif top == "helpers" and "." in name and name.split(".")[1] not in REFERENCE_MODULES:
                    flag(f"imports helpers.{name.split('.')[1]}, a module of the course's grading machinery")
        elif isinstance(n, ast.Name):
            if n.id == "open" and id(n) not in read_only_opens:
                flag("opens a file for writing (or passes open around); exercises only read files")
            elif n.id in _FORBIDDEN_NAMES:
                flag(_FORBIDDEN_NAMES[n.id])
            elif n.id.startswith("__") and n.id.endswith("__") and n.id not in _SAFE_DUNDERS:
                flag(f"uses the special name {n.id}")
        elif isinstance(n, ast.Attribute):
            if n.attr.startswith("__") and n.attr.endswith("__") and n.attr not in _SAFE_DUNDERS:
                flag(f"uses the special attribute {n.attr} (Python internals no exercise needs)")
            if n.attr == "_exit":
                flag("calls os._exit (ends the grading kernel)")
            if isinstance(n.ctx, (ast.Store, ast.Del)) and _root(n) in aliases:
                flag(f"{'changes' if isinstance(n.ctx, ast.Store) else 'deletes'} {_dotted(n) or 'an attribute'} "
                     f"of the imported module {_root(n)}")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "setattr", "delattr", "hasattr"):
            name_arg = n.args[1] if len(n.args) > 1 else None
            literal = isinstance(name_arg, ast.Constant) and isinstance(name_arg.value, str)
            if not literal and n.func.id != "hasattr":
                flag(f"calls {n.func.id} with a computed attribute name")
            elif literal and name_arg.value.startswith("__") and name_arg.value.endswith("__") \
                    and name_arg.value not in _SAFE_DUNDERS:
                flag(f"uses the special attribute {name_arg.value} (through {n.func.id})")
            if n.func.id in ("setattr", "delattr") and n.args and _root(n.args[0]) in aliases:
                flag(f"calls {n.func.id} on the imported module {_root(n.args[0])}")
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            if any(s in n.value for s in ("__builtins__", "__globals__", "__code__", "__subclasses__", "get_ipython")):
                flag("contains the text of a Python internal (e.g. '__globals__' or 'get_ipython') in a string")
    for name in sorted(_bound_at_top(tree, course_imports) & set(protected)):
        flag(f"rebinds {name}, which the tests of this notebook rely on")
    if allowed is not None:
        for reason in _outside_allow_list(tree, set(allowed), course_imports or {}, answer, set(reached)):
            flag(reason)
    return reasons


# ---------------------------------------------------------------------------------------------
# Near-copies of the reference
# ---------------------------------------------------------------------------------------------

def _strip_docstrings(tree):
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = n.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                n.body = body[1:] or [ast.Pass()]
    return tree


def _tokens(source: str) -> list[str]:
    """Normalised tokens of a function: no comments, docstrings, annotations or formatting;
    every name except attribute names (``np.linalg.norm`` keeps ``linalg``, ``norm``) becomes
    ``N``, every string ``S``."""
    tree = _strip_docstrings(parse_python(source, top_level_await=False))
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n.returns = None
            for a in n.args.args + n.args.kwonlyargs + n.args.posonlyargs:
                a.annotation = None
    text = ast.unparse(tree)
    out, prev = [], None
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
            out.append(tok.string if prev == "." else "N")
        elif tok.type == tokenize.STRING:
            out.append("S")
        elif tok.type in (tokenize.INDENT, tokenize.DEDENT):
            out.append(tok.type == tokenize.INDENT and ">" or "<")
        else:
            out.append(tok.string)
        prev = tok.string
    return out


def similarity(source_a: str, source_b: str) -> float:
    """How alike two functions' code is, from 0 (nothing in common) to 1 (the same up to names).

    Both are normalised (:func:`_tokens`: comments, docstrings, annotations and layout dropped,
    local names replaced by one placeholder, attribute names such as ``norm`` kept), and the ratio
    of :class:`difflib.SequenceMatcher` between the two token lists is returned.

    Parameters
    ----------
    source_a, source_b : str
        The source of one function definition each.

    Returns
    -------
    float
        ``2 * matches / (len(a) + len(b))``, in [0, 1].
    """
    a, b = _tokens(source_a), _tokens(source_b)
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


_REFERENCE_CACHE: dict[str, str] | None = None


def reference_sources() -> dict[str, str]:
    """Read the source of every function defined in the course's reference modules.

    The sources are read once per process and kept.

    Returns
    -------
    dict
        Source of each function (public and private) of :data:`REFERENCE_MODULES`, read with
        :func:`inspect.getsource` in the grader's process.
    """
    global _REFERENCE_CACHE
    if _REFERENCE_CACHE is None:
        import importlib
        import inspect

        out = {}
        for m in REFERENCE_MODULES:
            mod = importlib.import_module(f"helpers.{m}")
            for name, obj in vars(mod).items():
                if inspect.isfunction(obj) and obj.__module__ == mod.__name__:
                    try:
                        out[f"{m}.{name}"] = inspect.getsource(obj)
                    except (OSError, TypeError):
                        continue
        _REFERENCE_CACHE = out
    return _REFERENCE_CACHE


def near_copies(source: str, threshold: float = SIMILARITY_THRESHOLD) -> list[tuple[str, str, float]]:
    """Find the functions of ``source`` that are near-copies of the reference function of the same name.

    A near-copy is at least ``threshold`` similar (:func:`similarity`) to the reference function of
    the same name, in any reference module. Only the same name: the honest answers of some exercises *are* the formula of a reference
    function under another name (04's ``effect_size`` reaches 0.92 against
    ``statistics.effect_size_from_scores``), so comparing against every reference would flag them.

    Parameters
    ----------
    source : str
        The code of one cell; its top-level functions of at least 12 tokens are compared.
    threshold : float
        The similarity from which a function counts as a near-copy.

    Returns
    -------
    list of tuple
        ``(function name, "module.reference name", similarity)`` for each near-copy.
    """
    tree, _ = _parse(source)
    if tree is None:
        return []  # scan_source flags the cell
    found = []
    refs = reference_sources()
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        mine = ast.unparse(node)
        if len(_tokens(mine)) < 12:  # a one-line function cannot be told from a copy
            continue
        best = max(((similarity(mine, ref), name) for name, ref in refs.items()
                    if name.split(".", 1)[1] == node.name), default=(0.0, ""))
        if best[0] >= threshold:
            found.append((node.name, best[1], best[0]))
    return found


#: A course function is compared by its normal form only from this many syntax-tree nodes of its body on:
#: smaller ones (``return _DATA``, a one-line wrapper) are what an honest answer may write too. Of the 88
#: functions of the reference modules, 6 are smaller (one-line wrappers such as ``wordsets.wefat_names``);
#: the smallest that computes, ``statistics.unit_rows``, has 28. No answer function of any worked solution
#: or mutant has the normal form of any course function, at any size (tests/test_scan.py).
MIN_COPY_NODES = 20

_NORMAL_FORMS: dict[str, str] | None = None


def reference_normal_forms() -> dict[str, str]:
    """``{normal form: "module.function"}`` of every function of the course's reference modules.

    Read from the modules' source files (no import) with :func:`helpers.sourcecode.normal_form`; functions
    at any depth (methods, nested functions) of at least :data:`MIN_COPY_NODES` nodes.

    Returns
    -------
    dict
        Normal form to the function's name; cached for the process.
    """
    global _NORMAL_FORMS
    if _NORMAL_FORMS is None:
        out = {}
        folder = Path(sourcecode.__file__).parent
        for m in REFERENCE_MODULES:
            tree = parse_python((folder / f"{m}.py").read_text(encoding="utf-8"), top_level_await=False)
            for n in ast.walk(tree):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _size(n) >= MIN_COPY_NODES:
                    out.setdefault(sourcecode.normal_form(n), f"{m}.{n.name}")
        _NORMAL_FORMS = out
    return _NORMAL_FORMS


def _size(node) -> int:
    """Syntax-tree nodes of a function's body, a leading docstring left out."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return sum(1 for stmt in body for _ in ast.walk(stmt))


def renamed_copies(source: str) -> list[tuple[str, str]]:
    """``(function, "module.reference")`` for each function of ``source`` that is a course function renamed.

    Every function of the cell, at any depth, whatever its name, whose normal form
    (:func:`helpers.sourcecode.normal_form`: names made canonical, docstrings, annotations and decorators
    dropped) is that of a function of the course's reference modules (:func:`reference_normal_forms`).

    Parameters
    ----------
    source : str
        The code of one cell.

    Returns
    -------
    list of tuple
        One pair per copy, in the order of the source.
    """
    tree, _ = _parse(source)
    if tree is None:
        return []  # scan_source flags the cell
    refs = reference_normal_forms()
    found = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ref = refs.get(sourcecode.normal_form(n))
            if ref:
                found.append((n.name, ref))
    return found


# ---------------------------------------------------------------------------------------------
# A notebook
# ---------------------------------------------------------------------------------------------

def _student_controlled(cell) -> bool:
    """A code cell the student may change: an answer cell, or any cell nbgrader does not restore
    (cell roles as nbgrader reads them: :func:`nbgrader.utils.is_solution`, ``is_locked``)."""
    return cell.cell_type == "code" and (is_solution(cell) or not is_locked(cell))


def _names_loaded(source: str) -> set[str]:
    tree, _ = _parse(source)
    if tree is None:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def scan_notebook(nb, release=None, *, threshold: float = SIMILARITY_THRESHOLD, references=None) -> list[dict]:
    """Scan every cell of a submitted notebook that the student controls, and say what needs a person.

    Each such cell is read by :func:`scan_source`, knowing the course cells' imports and the names the
    test cells rely on; answer functions are compared with the reference functions
    (:func:`near_copies`, :func:`renamed_copies`).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The submitted notebook, with its test cells as the course wrote them (nbgrader's
        ``OverwriteCells`` restores them before this runs).
    release : nbformat.NotebookNode, optional
        The released notebook: its unlocked, non-answer cells are not scanned when submitted
        unchanged (``%matplotlib inline`` in a provided cell is the course's, not the student's).
    threshold : float
        Similarity from which an answer function counts as a near-copy of a reference function.
    references : dict, optional
        ``{"statistics": ["cosine", ...]}``: the assignment's references, which the graded kernel lacks
        (``REFERENCES`` of its hidden-test module). The judge zeroes an answer that calls one, so the
        allow-list does not flag them as well.

    Returns
    -------
    list of dict
        One dict per finding with keys ``cell`` (the grade_id, or ``"cell <n>"`` for a cell
        without one, counted from 1 among all cells) and ``reason``.
    """
    provided = set()
    if release is not None:
        provided = {c.source.strip() for c in release.cells
                    if c.cell_type == "code" and not is_solution(c)}
    course_cells = [c for c in nb.cells if c.cell_type == "code" and not _student_controlled(c)]
    course_cells += [c for c in nb.cells if _student_controlled(c) and not is_solution(c)
                     and c.source.strip() in provided]
    course_imports: dict[str, str] = {}
    for c in course_cells:
        tree, _ = _parse(c.source)
        if tree is not None:
            course_imports.update(_imports(tree))
    modules, course_names = set(course_imports), set(course_imports)
    tests = [c for c in nb.cells if c.cell_type == "code" and is_grade(c)]
    used = set().union(*[_names_loaded(c.source) for c in tests]) if tests else set()
    protected = (used & (course_names | set(dir(builtins)))) | {n for n in used if n.startswith("check_")}
    protected |= {n for n in course_names if n.startswith("check_") or n == "quiet"}
    students = [(k, c) for k, c in enumerate(nb.cells, 1) if _student_controlled(c)
                and (is_solution(c) or c.source.strip() not in provided)]
    reached: set[str] = set()
    for _, c in students:
        tree, _ = _parse(c.source)
        if tree is not None:
            reached |= {n.id for node in ([tree] if is_solution(c) else
                                          [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef,
                                                                                       ast.AsyncFunctionDef))])
                        for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    allowed = set(course_imports.values()) | {f"helpers.{m}.{f}" for m, fs in (references or {}).items() for f in fs}
    flags = []
    for k, cell in students:
        where = grade_id(cell) or f"cell {k}"
        try:
            for reason in scan_source(cell.source, modules=modules, protected=protected, course_imports=course_imports,
                                      allowed=allowed, answer=is_solution(cell), reached=reached):
                flags.append({"cell": where, "reason": reason})
            copied = set()
            for func, ref, score in near_copies(cell.source, threshold):
                copied.add(func)
                flags.append({"cell": where, "reason": f"{func} is a near-copy of the course's reference "
                                                       f"helpers.{ref} (similarity {score:.2f})"})
            for func, ref in renamed_copies(cell.source):
                if func not in copied:
                    copied.add(func)
                    flags.append({"cell": where, "reason": f"{func} is a copy of the course's helpers.{ref} under "
                                                           "other names"})
        except (RecursionError, MemoryError, ValueError, SyntaxError) as exc:  # fail closed
            flags.append({"cell": where, "reason": f"{UNREADABLE} ({type(exc).__name__})"})
    return flags


def _release_for(config, assignment: str, notebook: str):
    """The released (or, failing that, source) notebook of an assignment, or None."""
    import nbformat
    from nbgrader.coursedir import CourseDirectory

    cd = CourseDirectory(config=config)
    for folder in (cd.release_directory, cd.source_directory):
        path = Path(cd.format_path(folder, ".", assignment)) / f"{notebook}.ipynb"
        if path.is_file():
            return nbformat.read(str(path), as_version=4)
    return None


def _references_for(config, assignment: str) -> dict:
    """``REFERENCES`` of the assignment's hidden-test module, read as a literal (never imported here), or {}.

    The module is where the judge looks for it: ``<course root>/<Judge.tests_dir>/<assignment>.py``."""
    root = Path(config.get("CourseDirectory", {}).get("root", "") or ".")
    path = root / (config.get("Judge", {}).get("tests_dir", "") or "hidden_tests") / f"{assignment}.py"
    try:
        tree = parse_python(path.read_text(encoding="utf-8"), top_level_await=False)
    except (OSError, SyntaxError, ValueError):
        return {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "REFERENCES" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return {}
            return value if isinstance(value, dict) else {}
    return {}


class ScanAnswers(NbGraderPreprocessor):  # numpydoc ignore=PR01,PR02
    """Scan the student's code before execution and flag what it finds: an nbgrader preprocessor.

    Placed at the end of ``Autograde.sanitize_preprocessors`` (after ``OverwriteCells`` restored
    the test cells). Each finding becomes :func:`helpers.grading.flags.add_flag`; the notebook itself is
    not changed, so the submission is still executed and auto-scored.

    Parameters
    ----------
    **kw : dict
        The preprocessor's options (traitlets: ``config``, ``parent``).
    """

    def preprocess(self, nb, resources):
        """Scan ``nb`` (:func:`scan_notebook`) against its release and flag each finding.

        Without the release every unlocked cell is scanned; a scan that fails flags the whole notebook
        for a person (it fails closed).

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The submitted notebook.
        resources : dict
            The resources nbgrader passes (the assignment and notebook).

        Returns
        -------
        tuple
            ``(nb, resources)``, with the flags in the notebook's metadata.
        """
        from helpers.grading.flags import add_flag

        info = resources.get("nbgrader", {})
        release = None
        try:
            release = _release_for(self.config, info.get("assignment", ""), info.get("notebook", ""))
        except Exception as exc:  # noqa: BLE001 - without the release every unlocked cell is scanned
            self.log.warning("scan: release notebook not found (%s); scanning every unlocked cell", exc)
        try:
            found = scan_notebook(nb, release, references=_references_for(self.config, info.get("assignment", "")))
        except Exception as exc:  # noqa: BLE001 - fail closed: a scan that breaks flags the notebook
            self.log.warning("scan failed: %s", exc)
            found = [{"cell": None, "reason": f"The scan of the student's code failed ({type(exc).__name__}), so "
                                              "nothing in this notebook was checked; a person should look."}]
        for f in found:
            add_flag(nb, f["cell"], f["reason"])
        return nb, resources
