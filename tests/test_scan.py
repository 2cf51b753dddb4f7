"""helpers.grading.scan (the static scan of a submission before execution) and helpers.grading.flags (flags in a notebook).

The scan must flag every attack of issue 10 and no honest answer: the false-positive test runs it
over every worked solution and every mutant in tests/mutants/ (0 flags). The autograde end to end
(flags in the gradebook, scores kept) is in tests/test_adversarial.py.
"""
import ast
import gc
import re
import sys
import textwrap

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
    ("m = __import__('sc' + 'ipy')", "__import__"),
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


COURSE = {"np": "numpy", "plt": "matplotlib.pyplot", "cosine_matrix": "helpers.statistics.cosine_matrix",
          "stats": "scipy.stats", "load_default": "helpers.embeddings.load_default"}


def _allow_list_scan(code, **kwargs):
    return scan.scan_source(code, modules=MODULES, protected=set(), course_imports=COURSE,
                            allowed=set(COURSE.values()), **kwargs)


@pytest.mark.parametrize("code, reason", [
    ("from helpers.statistics import association", "helpers.statistics.association, which this exercise does not"),
    ("import helpers.statistics\ndef f(u, v):\n    return helpers.statistics.cosine(u, v)",
     "the course's helpers.statistics.cosine, which this exercise does not name"),
    ("import helpers.statistics as st\nx = st", "the course's helpers.statistics, which this exercise does not name"),
    ("def f(u, v):\n    from helpers.wefat import name_likeness as nl\n    return nl(u, v)",
     "helpers.wefat.name_likeness, which"),
    ("from scipy.spatial.distance import cosine", "scipy.spatial.distance.cosine, which is not on this exercise's"),
    ("import scipy", "uses scipy, which is not on this exercise's list"),
    ("import sklearn.metrics.pairwise as p", "imports sklearn"),
    ("import itertools", "itertools, which is not on this exercise's list"),
    ("def f(kv, a, b):\n    return kv.similarity(a, b)", ".similarity, a method of gensim's word vectors"),
    ("def unit(kv):\n    return kv.get_normed_vectors()", ".get_normed_vectors, a method of gensim"),
])
def test_answers_are_held_to_their_exercise_allow_list(code, reason):
    """NumPy, math, the student's own functions and what the notebook's own cells import (here: cosine_matrix,
    scipy.stats, matplotlib.pyplot): anything else is flagged for a person (issue 36)."""
    found = _allow_list_scan(code)
    assert any(reason in r for r in found), found


@pytest.mark.parametrize("code", [
    "import numpy as np\nimport math\nfrom numpy.linalg import norm\nfrom typing import Sequence\nimport numpy.linalg",
    "def f(U, V):\n    return cosine_matrix(U, V).mean(axis=1)",
    "from helpers.statistics import cosine_matrix",
    "import matplotlib.pyplot as plt",
    "from scipy.stats import pearsonr  # inside scipy.stats, which the notebook imports",
    "def f(kv, w):\n    return kv[w] @ kv.vectors.T  # the embedding's data, not its methods",
    "import helpers.statistics as st\ndef f(U, V):\n    return st.cosine_matrix(U, V)  # judged by what it takes",
    "import warnings\nwarnings.warn('a correct answer may warn')",
])
def test_the_allow_list_leaves_what_the_exercise_names_alone(code):
    assert _allow_list_scan(code) == []


def test_other_cells_of_the_student_are_held_to_the_allow_list_where_answers_reach_them():
    """A scratch cell may compare with SciPy; its functions, and the names the answers use, may not."""
    scratch = "from scipy.spatial.distance import cosine as c\nprint(c([1, 0], [0, 1]))"
    assert _allow_list_scan(scratch, answer=False) == []
    assert any("scipy.spatial.distance.cosine" in r for r in _allow_list_scan(scratch, answer=False, reached={"c"}))
    helper = "def _c(u, v):\n    from scipy.spatial.distance import cosine\n    return 1 - cosine(u, v)"
    assert any("scipy.spatial.distance.cosine" in r for r in _allow_list_scan(helper, answer=False))
    nb_cells = [nbformat.v4.new_code_cell(scratch),
                nbformat.v4.new_code_cell("def cosine(u, v):\n    return 1 - c(u, v)",
                                          metadata={"nbgrader": {"solution": True, "grade_id": "cosine_solution"}})]
    found = scan.scan_notebook(nbformat.v4.new_notebook(cells=nb_cells))
    assert [f["cell"] for f in found if "scipy.spatial.distance.cosine" in f["reason"]] == ["cell 1"], found


def test_the_assignments_references_are_the_judges_not_the_scans():
    """A call of a function the graded kernel lacks (``REFERENCES`` of the hidden tests, read as a literal)
    fails its cell in the judge; the allow-list does not flag it too. Another course function is flagged."""
    root = SOLUTIONS_DIR.parent
    assert scan._references_for({"CourseDirectory": {"root": str(root)}}, "01_cosine") == {
        "statistics": ["cosine", "cosine_matrix", "unit_rows"]}
    assert scan._references_for({"CourseDirectory": {"root": str(root)}}, "no_such_assignment") == {}
    answer = nbformat.v4.new_code_cell("import helpers.statistics as s\ndef cosine(u, v):\n    return s.cosine(u, v)",
                                       metadata={"nbgrader": {"solution": True, "grade_id": "cosine_solution"}})
    nb = nbformat.v4.new_notebook(cells=[answer])
    assert scan.scan_notebook(nb, references={"statistics": ["cosine"]}) == []
    assert "helpers.statistics.cosine" in scan.scan_notebook(nb)[0]["reason"]
    answer.source = answer.source.replace("s.cosine(u, v)", "s.association(u, [v], [-v]) / 2")
    assert "helpers.statistics.association" in scan.scan_notebook(nb, references={"statistics": ["cosine"]})[0]["reason"]


def _renamed(source: str, name: str) -> str:
    """``source`` (one function) with every identifier renamed, its docstring and annotations dropped."""
    tree = ast.parse(textwrap.dedent(source))

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            node.id = f"my_{node.id}"
            return node

        def visit_arg(self, node):
            node.arg, node.annotation = f"my_{node.arg}", None
            return node

    fn = Rename().visit(tree).body[0]
    fn.name, fn.returns = name, None
    if isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant):
        fn.body = fn.body[1:]
    return ast.unparse(tree)


def test_a_copy_of_any_course_function_under_other_names_is_flagged():
    """Normal forms (names made canonical, docstrings dropped): equal for a renamed copy, whatever its name;
    an honest answer of the same exercise differs."""
    ref = scan.reference_sources()["statistics.cosine_matrix"]
    copy = _renamed(ref, "all_pairs")
    assert "all_pairs" in copy and "cosine_matrix" not in copy
    assert scan.renamed_copies(copy) == [("all_pairs", "statistics.cosine_matrix")]
    nested = "def outer(U, V):\n" + textwrap.indent(copy, "    ") + "\n    return all_pairs(U, V)\n"
    assert scan.renamed_copies(nested) == [("all_pairs", "statistics.cosine_matrix")]
    honest = ("def all_pairs(U, V):\n    U = U / np.linalg.norm(U, axis=1, keepdims=True)\n"
              "    V = V / np.linalg.norm(V, axis=1, keepdims=True)\n    return U @ V.T\n")
    assert scan.renamed_copies(honest) == []
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        copy + "\n\ndef cosine_matrix(U, V):\n    return all_pairs(U, V)\n",
        metadata={"nbgrader": {"solution": True, "grade_id": "cosine_matrix_solution"}})])
    assert scan.scan_notebook(nb) == [{"cell": "cosine_matrix_solution", "reason": "all_pairs is a copy of the "
                                       "course's helpers.statistics.cosine_matrix under other names"}]


def test_no_function_of_the_course_is_too_small_to_tell_unless_it_is_a_wrapper():
    """Course functions below MIN_COPY_NODES are not compared: one-line wrappers, none that computes."""
    forms = scan.reference_normal_forms()
    assert "statistics.unit_rows" in forms.values() and "statistics.cosine" in forms.values()
    assert len(forms) >= 80


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


ALLOW_LIST_REASONS = ("which this exercise does not name", "which is not on this exercise's list")


def _mutant_text(m) -> str:
    return m.get("source", "") + "".join(new for _, new in m.get("replace", []))


def test_no_false_positive_on_worked_solutions_and_mutants():
    """Every worked solution and every mutant of every assignment: 0 flags (honest answers, right or wrong),
    except the allow-list's own: a mutant that takes another course function or SciPy is flagged for that
    (issue 36), and only for that, naming a module or function its own code imports. A mutant that calls the
    assignment's references (``REFERENCES``, which the judge zeroes) is not flagged for it."""
    flagged, allow_listed, scanned = [], [], 0
    for a in discover_assignments():
        names = notebook_names(a)
        sources = {n: read_nb(SOLUTIONS_DIR / a / f"{n}.ipynb") for n in names}
        releases = {n: read_nb(RELEASE_DIR / a / f"{n}.ipynb") for n in names}
        worked = {n: _restore_tests(fill_solutions(releases[n], sources[n]), sources[n]) for n in names}
        references = scan._references_for({"CourseDirectory": {"root": str(SOLUTIONS_DIR.parent)}}, a)
        assert references or a == "10_lexicon_weat", f"{a}: no REFERENCES read from its hidden tests"
        for m in [None] + load_mutants(a):
            label, nbs = ("worked", worked) if m is None else (m["name"], apply_mutant(worked, m))
            for n, nb in nbs.items():
                scanned += 1
                found = scan.scan_notebook(nb, releases[n], references=references)
                other = [f for f in found if not any(r in f["reason"] for r in ALLOW_LIST_REASONS)]
                if other or (found and m is None):
                    flagged.append((a, label, found))
                for f in found:
                    if f not in other:
                        took = re.search(r"uses (?:the course's )?(\S+),", f["reason"]).group(1)
                        assert took.rsplit(".", 1)[-1] in _mutant_text(m), (a, label, f)
                        allow_listed.append((a, label))
    assert scanned > 80
    assert flagged == []
    assert len(allow_listed) >= 5, allow_listed  # the mutants that call another course function or SciPy


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
