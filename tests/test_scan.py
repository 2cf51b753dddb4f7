"""helpers.grading.scan (the static scan of a submission before execution) and helpers.grading.flags (flags in a notebook).

The scan must flag every attack of issue 10 and no honest answer: the false-positive test runs it
over every worked solution and every mutant in tests/mutants/ (0 flags). The autograde end to end
(flags in the gradebook, scores kept) is in tests/test_adversarial.py.
"""
import ast
import gc
import re
import sys

import nbformat
import pytest

from helpers.grading import flags, scan
from nbgrader_tools import (apply_mutant, discover_assignments, fill_solutions, grade_id, load_mutants, nbgrader_meta,
                            notebook_names, read_nb, RELEASE_DIR, SOLUTIONS_DIR)

MODULES = {"np", "plt"}
PROTECTED = {"check_close", "check_own_work", "quiet", "np", "float", "load_default"}


@pytest.mark.parametrize("code, reason", [
    ("ip = get_ipython()\nip.input_transformers_post.append(lambda lines: [])", "get_ipython"),
    ("check_close = lambda *a, **k: None", "rebinds check_close"),
    ("def check_own_work(*a, **k):\n    pass", "rebinds check_own_work"),
    ("from contextlib import nullcontext as quiet", "contextlib"),
    ("import numpy as np\nnp.allclose = lambda *a, **k: True", "changes np.allclose of the imported module np"),
    ("m = np\nm.isclose = None", "changes m.isclose"),
    ("setattr(np, 'allclose', len)", "setattr on the imported module np"),
    ("del np.allclose", "deletes np.allclose"),
    ("import builtins\nbuiltins.isinstance = lambda *a: True", "imports builtins"),
    ("float = int", "rebinds float"),
    ("import math as np", "rebinds np"),
    ("import helpers.checks as c\nc.check_close = print", "helpers.checks, a module of the course's grading"),
    ("from helpers import checks", "helpers.checks"),
    ("import sqlite3", "imports sqlite3"),
    ("import subprocess", "imports subprocess"),
    ("import os\nos._exit(0)", "os._exit"),
    ("import inspect, helpers.statistics as s\nexec(inspect.getsource(s.cosine))", "imports inspect"),
    ("exec('x = 1')", "exec"),
    ("f = eval", "eval"),
    ("globals()['check_close'] = print", "globals()"),
    ("vars()['x'] = 1", "vars()"),
    ("getattr(np, name)", "getattr with a computed attribute name"),
    ("def cosine(u, v):\n    return cosine.__wrapped__(u, v)", "__wrapped__"),
    ("g = (lambda: 0).__globals__", "__globals__"),
    ("f = getattr(len, '__self__')", "__self__"),
    ("x = ().__class__.__base__.__subclasses__()", "__subclasses__"),
    ("__builtins__.len = None", "__builtins__"),
    ("%%capture\nx = 1", "magics"),
    ("!rm -rf ~", "shell"),
    ("%load_ext autoreload", "magics"),
    ("with open('/etc/passwd') as f:\n    pass", "outside the notebook's folder"),
    ("with open('../../../solutions/x.ipynb') as f:\n    pass", "outside the notebook's folder"),
    ("def f(p):\n    with open(p, 'w') as fh:\n        fh.write('x')", "opens a file for writing"),
    ("def f(p, m):\n    return open(p, m)", "opens a file for writing"),
    ("o = open", "opens a file for writing"),
    ("import importlib\nm = importlib.import_module('o' + 's')", "imports importlib"),
    ("def f():\n    global np\n    np = None", "rebinds np"),
    ("for load_default in []:\n    pass", "rebinds load_default"),
    ("s = 'get_ipython'", "in a string"),
])
def test_scan_flags_what_honest_answers_never_need(code, reason):
    found = scan.scan_source(code, modules=MODULES, protected=PROTECTED)
    assert any(reason in r for r in found), found


@pytest.mark.parametrize("code", [
    "import numpy as np\nfrom scipy import stats\nimport math, itertools, functools, collections",
    "from helpers.statistics import unit_rows\nfrom helpers import statistics as st",
    "def cosine(u, v):\n    u = np.asarray(u)\n    return float(u @ v)",
    "def f(x):\n    np = 3  # a local name, not the notebook's np\n    return np",
    "kv = load_default  # not a call, but a name the tests do not protect here",
    "result = {}\nresult['x'] = 1\nobj = type('O', (), {})()\nobj.x = 2",
    "x = getattr(obj, 'shape', None)",
    "if __name__ == '__main__':\n    pass",
    "import csv\ndef load(path):\n    with open(path, encoding='utf-8', newline='') as fh:\n        return list(csv.reader(fh))",
    "def load(path):\n    with open(path, 'rb') as fh:\n        return fh.read()",
])
def test_scan_leaves_honest_code_alone(code):
    protected = PROTECTED - {"load_default"}
    assert scan.scan_source(code, modules=MODULES, protected=protected, course_imports={"np": "numpy"}) == []


def test_similarity_of_copies_and_of_honest_answers():
    ref = scan.reference_sources()["statistics.cosine"]
    renamed = re.sub(r"\bu\b", "a", re.sub(r"\bv\b", "b", re.sub(r"\bc\b", "out", ref)))
    assert renamed != ref
    assert scan.similarity(ref, ref) == 1.0
    assert scan.similarity(renamed, ref) >= scan.SIMILARITY_THRESHOLD
    honest = "def cosine(u, v):\n    u, v = np.asarray(u), np.asarray(v)\n    return float(u @ v / np.sqrt(u @ u) / np.sqrt(v @ v))"
    assert scan.similarity(honest, ref) < scan.SIMILARITY_THRESHOLD
    assert [f for f, _, _ in scan.near_copies(ref)] == ["cosine"]
    assert scan.near_copies(honest) == []


def _restore_tests(nb, source_nb):
    """What nbgrader's OverwriteCells does before the scan: the test cells as the course wrote them."""
    locked = {grade_id(c): c.source for c in source_nb.cells
              if (nbgrader_meta(c).get("grade") or nbgrader_meta(c).get("locked")) and not nbgrader_meta(c).get("solution")}
    for c in nb.cells:
        if grade_id(c) in locked:
            c.source = locked[grade_id(c)]
    return nb


def test_no_false_positive_on_worked_solutions_and_mutants():
    """Every worked solution and every mutant of every assignment: 0 flags (honest answers, right or wrong)."""
    flagged, scanned = [], 0
    for a in discover_assignments():
        names = notebook_names(a)
        sources = {n: read_nb(SOLUTIONS_DIR / a / f"{n}.ipynb") for n in names}
        releases = {n: read_nb(RELEASE_DIR / a / f"{n}.ipynb") for n in names}
        worked = {n: _restore_tests(fill_solutions(releases[n], sources[n]), sources[n]) for n in names}
        for label, nbs in [("worked", worked)] + [(m["name"], apply_mutant(worked, m)) for m in load_mutants(a)]:
            for n, nb in nbs.items():
                scanned += 1
                found = scan.scan_notebook(nb, releases[n])
                if found:
                    flagged.append((a, label, found))
    assert scanned > 80
    assert flagged == []


def test_unchanged_provided_cells_are_not_scanned_but_changed_ones_are():
    a = "01_cosine"
    release = read_nb(RELEASE_DIR / a / f"{a}.ipynb")
    nb = _restore_tests(fill_solutions(release, read_nb(SOLUTIONS_DIR / a / f"{a}.ipynb")),
                        read_nb(SOLUTIONS_DIR / a / f"{a}.ipynb"))
    assert scan.scan_notebook(nb, release) == []  # its setup cell has %matplotlib inline, the course's own
    nb.cells.insert(3, nbformat.v4.new_code_cell("np.allclose = lambda *a, **k: True"))
    found = scan.scan_notebook(nb, release)
    assert found == [{"cell": "cell 4", "reason": "changes np.allclose of the imported module np"}]


def test_add_flag_and_notebook_flags():
    nb = nbformat.v4.new_notebook()
    flags.add_flag(nb, "cosine_solution", "uses get_ipython\n(the kernel)")
    flags.add_flag(nb, "cosine_solution", "uses get_ipython (the kernel)")  # recorded once
    flags.add_flag(nb, None, "the kernel died")
    assert flags.notebook_flags(nb) == [{"cell": "cosine_solution", "reason": "uses get_ipython (the kernel)"},
                                        {"cell": None, "reason": "the kernel died"}]
    nb2 = nbformat.reads(nbformat.writes(nb), as_version=4)  # survives writing, as between nbgrader's passes
    assert flags.notebook_flags(nb2) == flags.notebook_flags(nb)


@pytest.mark.parametrize("code", ["def f(:\n    pass", "x = (" * 250 + ")" * 250, "x = 1\0"])
def test_scan_fails_closed_on_code_it_cannot_read(code):
    """A cell the scan cannot parse is flagged (a person looks), never passed silently."""
    assert scan.scan_source(code, modules=MODULES, protected=PROTECTED) == [scan.UNREADABLE]


def _while_another_tree_is_built(parse):
    """``parse(code)`` while the garbage collector, on its first pass, builds a second syntax tree (as a
    finaliser that formats a traceback does): ``(result or exception, whether the second tree was built)``."""
    left = [1]

    def build_another(phase, info):
        if phase == "start" and left[0]:
            left[0] -= 1
            ast.parse("[[[1]]]")

    code = "x = 1\n" + "def g(a):\n    return [a, (a, {a: [a]})]\n" * 50
    old = gc.get_threshold()
    gc.callbacks.append(build_another)
    gc.set_threshold(1, 1, 1)
    try:
        return parse(code), left == [0]
    except Exception as exc:  # noqa: BLE001 - returned for the assertions
        return exc, left == [0]
    finally:
        gc.callbacks.remove(build_another)
        gc.set_threshold(*old)


def test_scan_reads_code_while_python_builds_another_tree(monkeypatch):
    """CPython 3.11 (python/cpython#106905) raises ``SystemError: AST constructor recursion depth mismatch``
    for good code when a tree is built while another is (seen in CI: an honest mutant failed the scan after
    an earlier autograde left a task whose finaliser logged a traceback). The scan retries once, and
    flags the cell (fails closed) if Python fails again."""
    raw, nested = _while_another_tree_is_built(lambda c: compile(c, "<c>", "exec", flags=ast.PyCF_ONLY_AST))
    assert nested
    if sys.version_info < (3, 12):  # the bug is real on the Python the course runs on
        assert isinstance(raw, SystemError) and "recursion depth mismatch" in str(raw), raw

    real, failures = compile, []

    def flaky(*args, **kwargs):
        if len(failures) < failures_wanted:
            failures.append(1)
            raise SystemError("AST constructor recursion depth mismatch (before=126, after=178)")
        return real(*args, **kwargs)

    monkeypatch.setattr(scan, "compile", flaky, raising=False)
    failures_wanted = 1
    tree = scan.parse_python("x = 1\nimport subprocess")
    assert isinstance(tree, ast.Module) and len(tree.body) == 2 and failures == [1]
    failures.clear()
    assert any("imports subprocess" in r for r in scan.scan_source("import subprocess", modules=MODULES,
                                                                     protected=PROTECTED))
    failures.clear()
    failures_wanted = 10
    assert scan.scan_source("x = 1", modules=MODULES, protected=PROTECTED) == [scan.UNREADABLE]


def test_scan_reads_top_level_await_as_the_kernel_does():
    """IPython runs a top-level ``await``; the scan parses it too, so what follows is still read."""
    found = scan.scan_source("import asyncio\nawait asyncio.sleep(0)\nimport subprocess", modules=MODULES,
                             protected=PROTECTED)
    assert any("imports subprocess" in r for r in found), found


def test_scan_roles_come_from_nbgrader():
    """Cell roles as nbgrader reads them: a graded cell is locked (restored) even without ``locked``;
    an answer cell is the student's even when marked locked."""
    code = nbformat.v4.new_code_cell
    test = code("import subprocess", metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1}})
    answer = code("import subprocess", metadata={"nbgrader": {"solution": True, "locked": True, "grade_id": "a"}})
    nb = nbformat.v4.new_notebook(cells=[test, answer])
    assert [f["cell"] for f in scan.scan_notebook(nb)] == ["a"]
