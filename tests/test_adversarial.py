"""Submissions that try to get marks without the work, through the REAL autograde (issues 10 and 18).

Every attack below earned marks on the released ``01_cosine`` at some point: the first group
(``ATTACKS``, issue 10) before the static scan and the pristine checks; the second (``JUDGED``, issue 18)
even with them, because the grade was still decided inside the student's kernel. Since issue 18 the
hidden tests run in the grader's process on values the kernel returns (:mod:`helpers.grading.judge`), and the
judged kernel has no reference implementation of the assignment's exercises: an answer that is wrong
earns nothing, whatever else the notebook does to its kernel. The scan still flags what honest answers
never need, for a person; it is no longer the defence, so these tests do not rely on it.

All submissions are graded in ONE nbgrader run, in name order: an honest student first and last
(full marks, no flag), the attackers in between, then a wrong-but-quiet submission (0 for the
wrong exercise, no flag). Attackers answer only ``cosine``, and wrongly (or through the course's
reference implementation); the other answers stay the release's stubs. Each attacker's automatic
score is 0, flagged or not, except for a copy of the reference's code, which computes right answers
itself (copying is not something a grader can tell from the work; the scan flags it for a person).
The course's files and the installed package are unchanged afterwards.

Issue 36 adds the ways around the own-work rules, each answering right: a loop the judge did not read
(``AROUND_THE_LOOP_RULE``: under ``if True:``, in a lambda, through ``functools.reduce``, by recursion)
loses exactly the "vectorised" point; work that is not the student's through something other than the
exercise's references (``AROUND_THE_REFERENCE_RULE``: a later notebook's course function, SciPy, the
embedding's similarity method, a renamed copy of the reference) keeps its points and is flagged.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import nbformat
import pytest

import nbgrader_tools as nbt
from helpers.grading import warm
from helpers.grading.flags import read_flags

A = "01_cosine"
HONEST_FIRST, HONEST_LAST, WRONG_QUIET = "a-honest", "zz-honest", "zy-wrong-quiet"

CONSTANT = '''
def cosine(u, v):
    return 0.5
'''

ATTACKS = {
    # student id: (answer cell source or a function of the notebooks, must the scan flag it?); since issue 36 the
    # scan flags every import of a course function the exercise does not name, references included
    "transformer": ('''
ip = get_ipython()
ip.input_transformers_post.append(lambda lines: [] if any("check_" in l for l in lines) else lines)
''' + CONSTANT, True),
    "rebind-checks": ('''
check_close = check_type = check_shape = check_raises = check_own_work = check_callable = lambda *a, **k: None
''' + CONSTANT, True),
    "rebind-quiet": ('''
import contextlib

@contextlib.contextmanager
def quiet():
    try:
        yield
    except BaseException:
        pass
''' + CONSTANT, True),
    "patch-allclose": ('''
np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.shape(a), dtype=bool)
''' + CONSTANT, True),
    "patch-builtins": ('''
import builtins
builtins.callable = lambda *a: True  # (builtins.isinstance = ... kills the kernel itself)
''' + CONSTANT, True),
    "patch-checks-module": ('''
import helpers.checks as hc
for name in ("check_close", "check_type", "check_shape", "check_raises", "check_own_work", "check_callable"):
    setattr(hc, name, lambda *a, **k: None)
''' + CONSTANT, True),
    "sys-modules": ('''
import sys, types
fake = types.ModuleType("helpers.checks")
fake.__getattr__ = lambda name: (lambda *a, **k: None)
sys.modules["helpers.checks"] = fake
''' + CONSTANT, True),
    "ipython-events": ('''
def _mute(result):
    result.error_in_exec = None
get_ipython().events.register("post_run_cell", _mute)
''' + CONSTANT, True),
    "capture-magic": ('''%%capture
''' + CONSTANT, True),
    "globals-rebind": ('''
globals()["check_" + "close"] = lambda *a, **k: None
''' + CONSTANT, True),
    "reference-default-argument": ('''
import helpers.statistics

def cosine(u, v, _f=helpers.statistics.cosine):
    return _f(u, v)
''', False),
    "reference-closure": ('''
from helpers import statistics as _s

def _make():
    f = _s.cosine
    def cosine(u, v):
        return f(u, v)
    return cosine

cosine = _make()
''', False),
    "reference-partial": ('''
import functools
import helpers.statistics

_c = functools.partial(helpers.statistics.cosine)

def cosine(u, v):
    return _c(u, v)
''', False),
    "reference-wrapped": ('''
import functools
import helpers.statistics

@functools.wraps(helpers.statistics.cosine)
def cosine(u, v):
    return cosine.__wrapped__(u, v)
''', True),
    "reference-bound-method": ('''
import helpers.statistics

class _Tools:
    def cos(self, u, v):
        return helpers.statistics.cosine(u, v)

cosine = _Tools().cos
''', False),
    "reference-getsource-exec": ('''
import inspect
import helpers.statistics
from helpers.statistics import as_vectors, _same_dim
exec(inspect.getsource(helpers.statistics.cosine))
''', True),
    "reference-near-copy": ('''
from helpers.statistics import as_vectors, _same_dim


def cosine(a, b) -> float:
    """My own cosine."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"two vectors please, got {a.shape} and {b.shape}")
    aa, bb = as_vectors(a, "first"), as_vectors(b, "second")
    _same_dim(("first", aa), ("second", bb))
    result = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    return min(1.0, max(-1.0, result))
''', True),
}

# Issue 18: attacks that defeated the checks while they ran in the kernel (student id: answer cell source).
JUDGED = {
    "param-rebind": '''
import helpers.checks as _c

def _off(module):
    module.check_close = module.check_type = module.check_raises = module.check_own_work = lambda *a, **k: None

_off(_c)
''' + CONSTANT,
    "daemon-thread": '''
import threading
import time
import helpers.checks as _c

def _keep_patching():
    while True:
        _c.check_close = _c.check_type = _c.check_raises = lambda *a, **k: None
        time.sleep(0.001)

threading.Thread(target=_keep_patching, daemon=True).start()
''' + CONSTANT,
    "shell-through-allowed-module": '''
import warnings
_ip = warnings.sys.modules["IPython"].get_ipython()
_ip.input_transformers_post.append(lambda lines: ["pass\\n"] if any("check_" in l for l in lines) else lines)
''' + CONSTANT,
    "ctypes-bytes": '''
import numpy
numpy.ctypeslib.ctypes.pythonapi.PyRun_SimpleString(
    bytes.fromhex("696d706f72742068656c706572732e636865636b7320617320633b20632e636865636b5f636c6f7365203d206c616d626461202a612c202a2a6b3a204e6f6e65"))
''' + CONSTANT,
    "frame-walk": '''
def cosine(u, v):
    def _up():
        frame = _gen.gi_frame.f_back
        while frame is not None:
            for name in ("check_close", "check_type", "check_raises"):
                if name in frame.f_globals:
                    frame.f_globals[name] = lambda *a, **k: None
            frame = frame.f_back
        yield 0
    _gen = _up()
    next(_gen)
    return 0.0
''',
    "reference-in-container": '''
import helpers.statistics
_box = {"f": [helpers.statistics.cosine]}

def cosine(u, v):
    return _box["f"][0](u, v)
''',
    "source-in-assertion": '''
def cosine(u, v):
    raise AssertionError("\\n".join(In))
''',
}

# Warm kernels (helpers.grading.warm): each kernel is forked from the grading process's template. In name
# order: w-leave-behind leaves a poisoned IPython startup file (and a daemon that keeps writing it), files and
# shared memory for the next kernel; wa-honest, forked next, must keep full marks; x-kill-template kills the
# template, so zy-wrong-quiet and zz-honest are graded in plain kernels, as they would be without warm kernels.
POISON = "import numpy as np\nnp.dot = lambda *a, **k: 0.0\nnp.linalg.norm = lambda *a, **k: 1.0\n"
WARM = {
    "w-leave-behind": '''
import ctypes, os, time
_startup = os.path.join(os.environ["HOME"], ".ipython", "profile_default", "startup")

def _write():
    os.makedirs(_startup, exist_ok=True)
    with open(os.path.join(_startup, "00-poison.py"), "w") as f:
        f.write(%r)

_write()
for _p in ("/tmp/poison.py", "poison.py"):
    with open(_p, "w") as f:
        f.write("x")
ctypes.CDLL(None).shmget(0x5EED, 4096, 0o1600)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            try:
                _write()
            except OSError:
                pass
            time.sleep(0.005)
    os._exit(0)
''' % POISON + CONSTANT,
    "x-kill-template": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + CONSTANT,
}
HONEST_AFTER_LEAVER = "wa-honest"

#: files a submission brings beside its notebook: a fake course package whose checks pass everything
BESIDE = {"helpers/__init__.py": "", "helpers/checks.py": (
    "def __getattr__(name):\n    return lambda *a, **k: None\n")}

#: a callable object with loops, for the one point of "vectorised" (its values are right)
LOOPY_OBJECT = '''
class _CosineMatrix:
    def __call__(self, U, V):
        U = np.asarray(U, dtype=float)
        V = np.asarray(V, dtype=float)
        if U.shape[1] != V.shape[1]:
            raise ValueError("different d")
        out = np.empty((len(U), len(V)))
        for i in range(len(U)):
            for j in range(len(V)):
                out[i, j] = cosine(U[i], V[j])
        return out

cosine_matrix = _CosineMatrix()
'''

WRONG_QUIET_COSINE = '''
def cosine(u, v):
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    if u.shape != v.shape or not u.any() or not v.any():
        raise ValueError("undefined")
    return float(u @ v)  # forgot to divide by the lengths
'''

NEW_CELL_ATTACK = "np.allclose = lambda *a, **k: True\ncheck_close = lambda *a, **k: None\n"

# Issue 36: ways around the own-work rules that earned points with no flag. Each answer computes the right values.
# The loop rule: a loop the judge did not read earned the "vectorised" point (student id: cosine_matrix answer).
# Each must lose exactly that point; the other cells keep full marks. (map, filter, itertools and the rest are read
# the same way: tests/test_sourcecode.py, without a kernel.)
_CHECKED = '''
    U = np.asarray(U, dtype=float)
    V = np.asarray(V, dtype=float)
    if U.shape[1] != V.shape[1]:
        raise ValueError("U and V have different numbers of columns")
'''
AROUND_THE_LOOP_RULE = {
    "loop-under-if-true": ("def cosine_matrix(U, V):" + _CHECKED + "    return unit_rows(U) @ unit_rows(V).T\n\n"
                           "if True:\n    def cosine_matrix(U, V):" + _CHECKED.replace("\n    ", "\n        ")
                           + "        return np.array([[cosine(u, v) for v in V] for u in U])"
                           ".reshape(len(U), len(V))\n"),
    "loop-in-lambda": ("_pairs = lambda U, V: np.array([[cosine(u, v) for v in V] for u in U]).reshape(len(U), len(V))"
                       "\n\ndef cosine_matrix(U, V):" + _CHECKED + "    return _pairs(U, V)\n"),
    "loop-functools-reduce": ("import functools\n\ndef cosine_matrix(U, V):" + _CHECKED + "    Vn = unit_rows(V)\n"
                              "    rows = functools.reduce(lambda acc, u: acc + [Vn @ u], unit_rows(U), [])\n"
                              "    return np.array(rows).reshape(len(U), len(V))\n"),
    "loop-recursion": ("def cosine_matrix(U, V):" + _CHECKED + "    if len(U) <= 1:\n"
                       "        return unit_rows(U) @ unit_rows(V).T\n"
                       "    return np.vstack([cosine_matrix(U[:1], V), cosine_matrix(U[1:], V)])\n"),
}
# The reference rule: work that is not the student's, through something other than the exercise's references
# (student id: (answer cell, source, what the flag must say)). Each keeps the points its values earn (all of them:
# the values are right) and is flagged for a person, who decides.
_VALID = '''
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    if u.shape != v.shape or not u.any() or not v.any():
        raise ValueError("the cosine needs two non-zero vectors of one length")
'''
LATER_COURSE_FUNCTION = '''
from helpers.enumeration import centred_centroids

def unit_rows(M):
    M = np.asarray(M, dtype=float)
    both = np.vstack([M, -M])  # centred on the mean of +/- the unit rows, which is 0: the unit rows themselves
    return centred_centroids(both, np.arange(len(both)))[:len(M)]
'''
AROUND_THE_REFERENCE_RULE = {
    "ref-later-course-function": ("unit_rows_solution", LATER_COURSE_FUNCTION,
                                  "uses the course's helpers.enumeration.centred_centroids, which this exercise "
                                  "does not name"),
    "ref-scipy": ("cosine_solution", "def cosine(u, v):" + _VALID + "    from scipy.spatial import distance\n"
                  "    return float(1.0 - distance.cosine(u, v))\n",
                  "uses scipy.spatial.distance.cosine, which is not on this exercise's list"),
    "ref-gensim-method": ("cosine_solution", "def cosine(u, v):" + _VALID +
                          "    return float(kv.cosine_similarities(u, v[None, :])[0])\n",
                          "calls .cosine_similarities, a method of gensim's word vectors"),
    "ref-renamed-copy": ("cosine_solution", None, "my_cosine is a copy of the course's helpers.statistics.cosine "
                                                  "under other names"),
}


def _renamed_copy() -> str:
    """The course's own cosine (with the two functions it calls), every name of it renamed, docstrings dropped:
    what a student who copies the reference writes, answered through a wrapper of the exercise's name."""
    import ast
    import builtins
    import inspect
    import textwrap

    import helpers.statistics as reference

    keep = set(dir(builtins)) | {"np"}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            node.id = node.id if node.id in keep else f"my_{node.id.lstrip('_')}"
            return node

        def visit_arg(self, node):
            node.arg, node.annotation = f"my_{node.arg}", None
            return node

        def visit_FunctionDef(self, node):
            node.name, node.returns = f"my_{node.name.lstrip('_')}", None
            if isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
                node.body = node.body[1:]
            self.generic_visit(node)
            return node

    parts = [ast.unparse(Rename().visit(ast.parse(textwrap.dedent(inspect.getsource(f)))))
             for f in (reference.as_vectors, reference._same_dim, reference.cosine)]
    return "\n\n\n".join(parts) + "\n\n\ndef cosine(u, v):\n    return my_cosine(u, v)\n"


def _answer(notebooks: dict, gid: str, source: str) -> dict:
    return nbt.apply_mutant(notebooks, {"name": gid, "cell": gid, "source": source})


def _release_stubs(root) -> dict:
    names = nbt.notebook_names(A, root)
    return {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}


def _full(root) -> dict:
    return {n: nbt.fill_solutions(nb, nbt.read_nb(root / "solutions" / A / f"{n}.ipynb"))
            for n, nb in _release_stubs(root).items()}


def _with_new_cell(notebooks: dict) -> dict:
    """The attack in a new cell of the student's own (not an answer cell), answers as constants."""
    import copy

    out = _answer(notebooks, "cosine_solution", CONSTANT)
    out = copy.deepcopy(out)
    for nb in out.values():
        nb.cells.insert(3, nbformat.v4.new_code_cell(NEW_CELL_ATTACK))
    return out


def _digest(paths) -> dict:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    nbt.require_assignment(A)
    import helpers

    package = sorted(Path(helpers.__file__).parent.glob("*.py"))
    course_files = package + sorted((nbt.COURSE_ROOT / "solutions" / A).glob("*.ipynb"))
    before = _digest(course_files)
    work = tmp_path_factory.mktemp("adversarial")
    with nbt.offline_env(work):
        root = nbt.make_course(work / "course", [A])
        api = nbt.make_api(root)
        nbt.generate_release(api, A)
        stubs, full = _release_stubs(root), _full(root)
        submissions = {HONEST_FIRST: full, HONEST_LAST: full,
                       WRONG_QUIET: _answer(full, "cosine_solution", WRONG_QUIET_COSINE),
                       "new-cell": _with_new_cell(stubs)}
        for sid, (source, _) in ATTACKS.items():
            submissions[sid] = _answer(stubs, "cosine_solution", source)
        for sid, source in {**JUDGED, **WARM}.items():
            submissions[sid] = _answer(stubs, "cosine_solution", source)
        submissions[HONEST_AFTER_LEAVER] = full
        submissions["files-beside"] = _answer(stubs, "cosine_solution", CONSTANT)
        submissions["loopy-object"] = _answer(full, "cosine_matrix_solution", LOOPY_OBJECT)
        for sid, source in AROUND_THE_LOOP_RULE.items():
            submissions[sid] = _answer(full, "cosine_matrix_solution", source)
        for sid, (cell, source, _) in AROUND_THE_REFERENCE_RULE.items():
            submissions[sid] = _answer(full, cell, source or _renamed_copy())
        for sid, nbs in submissions.items():
            nbt.submit(root, A, sid, nbs)
        for name, text in BESIDE.items():
            path = root / "submitted" / "files-beside" / A / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        # one nbgrader run, students in name order (honest first and last)
        forked, refused = warm._FORKED, set(warm._REFUSED)
        result = api.autograde(A, "*", force=True, create=True)
        forked, refused = warm._FORKED - forked, warm._REFUSED - refused
        scores = {}
        for s in submissions:
            try:
                scores[s] = nbt.cell_scores(api.coursedir.db_url, A, s)
            except Exception:  # noqa: BLE001 - not graded: test_every_submission_is_graded says which
                scores[s] = {}
        flags = read_flags(api.coursedir.db_url, [A])
        api.generate_feedback(A, "source-in-assertion")
        feedback = "".join(p.read_text() for p in (root / "feedback" / "source-in-assertion" / A).glob("*.html"))
        hidden = nbt.hidden_and_solution_lines(nbt.read_nb(root / "solutions" / A / f"{A}.ipynb"), A)["hidden"]
    return {"scores": scores, "flags": flags, "before": before, "after": _digest(course_files), "result": result,
            "feedback": feedback, "hidden": hidden, "forked": forked, "refused": refused}


def test_every_submission_is_graded(graded):
    assert graded["result"]["success"], graded["result"].get("error")
    assert all(graded["scores"].values()), [s for s, g in graded["scores"].items() if not g]


def _code(grades: dict) -> dict:
    return {gid: g for gid, g in grades.items() if g["cell_type"] == "code" and g["max_score"] > 0}


def _flagged(graded, student) -> list[dict]:
    return [f for f in graded["flags"] if f["student"] == student]


@pytest.mark.parametrize("student", [HONEST_FIRST, HONEST_AFTER_LEAVER, HONEST_LAST])
def test_honest_student_keeps_full_marks_unflagged(graded, student):
    grades = _code(graded["scores"][student])
    assert grades and all(g["score"] == g["max_score"] for g in grades.values()), grades
    assert not any(g["needs_manual_grade"] for g in grades.values())
    assert _flagged(graded, student) == []


def test_wrong_but_quiet_submission_still_gets_zero(graded):
    grades = _code(graded["scores"][WRONG_QUIET])
    assert grades["cosine_tests"]["score"] == 0.0
    assert all(g["score"] == g["max_score"] for gid, g in grades.items() if gid != "cosine_tests")
    assert _flagged(graded, WRONG_QUIET) == []


@pytest.mark.parametrize("student", [s for s in ATTACKS if s != "reference-near-copy"] + list(JUDGED) + list(WARM)
                         + ["new-cell", "files-beside"])
def test_attacker_earns_no_point(graded, student):
    """A wrong answer (or one through the reference) earns nothing, flagged or not."""
    grades = _code(graded["scores"][student])
    earned = {gid: g["auto_score"] for gid, g in grades.items() if g["auto_score"]}
    assert not earned, f"{student} earned points for a wrong answer: {earned}"


def test_the_class_was_graded_in_warm_kernels_until_the_template_was_killed(graded):
    """Every student before x-kill-template got a kernel forked from the template (the honest student after
    w-leave-behind among them); the killed template was not used again (the rest got plain kernels)."""
    if not nbt.sandbox_available():
        pytest.skip("warm kernels need the sandbox (bubblewrap)")
    before_kill = [s for s in graded["scores"] if s < "x-kill-template"]
    assert graded["forked"] >= len(before_kill) + 1, (graded["forked"], len(before_kill))
    assert len(graded["refused"]) == 1, graded["refused"]


def test_a_callable_object_with_loops_earns_neither_cosine_matrix_cell(graded):
    """Its values are right, but the grader reads the code of a `def`: an object it cannot read fails
    both the own-work rule and the vectorised point (each message says to define it with `def`)."""
    grades = _code(graded["scores"]["loopy-object"])
    judged = {"cosine_matrix_tests", "cosine_matrix_vectorised_tests"}
    assert all(grades[gid]["auto_score"] == 0.0 for gid in judged), grades
    assert all(g["auto_score"] == g["max_score"] for gid, g in grades.items() if gid not in judged), grades


@pytest.mark.parametrize("student", sorted(AROUND_THE_LOOP_RULE))
def test_each_way_around_the_loop_rule_loses_exactly_the_vectorised_point(graded, student):
    """A loop under `if True:`, in a lambda, through functools.reduce, or by recursion: right values, so
    every cell keeps its points except the one for vectorised code (issue 36)."""
    grades = _code(graded["scores"][student])
    assert grades["cosine_matrix_vectorised_tests"]["auto_score"] == 0.0, grades
    kept = {gid: g["auto_score"] for gid, g in grades.items() if gid != "cosine_matrix_vectorised_tests"}
    assert all(kept[gid] == grades[gid]["max_score"] for gid in kept), kept


@pytest.mark.parametrize("student", sorted(AROUND_THE_REFERENCE_RULE))
def test_each_way_around_the_reference_rule_is_flagged_for_a_person(graded, student):
    """Another course function, SciPy, the embedding's own similarity method, a renamed copy of the reference:
    the answer cell is held to the exercise's allow-list (or compared with every course function), so the work
    goes to a person with its points kept for them to confirm or remove; nothing else is flagged (issue 36)."""
    cell, _, reason = AROUND_THE_REFERENCE_RULE[student]
    flags = _flagged(graded, student)
    assert any(f["cell"] == cell and reason in f["reason"] for f in flags), flags
    assert {f["cell"] for f in flags} == {cell}, flags
    grades = _code(graded["scores"][student])
    tests = cell.replace("_solution", "_tests")
    assert grades[tests]["needs_manual_grade"], grades[tests]
    assert all(g["auto_score"] == g["max_score"] for g in grades.values()), grades


def test_feedback_never_shows_hidden_tests(graded):
    """An answer that raises an AssertionError carrying the cells' source: no hidden test is in a cell."""
    assert graded["hidden"] and graded["feedback"]
    shown = [line for line in graded["hidden"] if line in graded["feedback"]]
    assert not shown, shown[:3]
    assert "check_close" in graded["feedback"]  # the visible checks' source was what it could show


def test_flags_name_the_cell_and_the_reason(graded):
    reasons = {s: " | ".join(f"{f['cell']}: {f['reason']}" for f in _flagged(graded, s)) for s in ATTACKS}
    assert "cosine_solution: uses get_ipython" in reasons["transformer"]
    assert "rebinds check_close" in reasons["rebind-checks"]
    assert "rebinds quiet" in reasons["rebind-quiet"]
    assert "changes np.allclose of the imported module np" in reasons["patch-allclose"]
    assert "imports builtins" in reasons["patch-builtins"]
    assert "helpers.checks" in reasons["patch-checks-module"]
    assert "imports sys" in reasons["sys-modules"]
    assert "magics" in reasons["capture-magic"]
    assert "globals()" in reasons["globals-rebind"]
    assert "__wrapped__" in reasons["reference-wrapped"]
    assert "imports inspect" in reasons["reference-getsource-exec"] and "exec" in reasons["reference-getsource-exec"]
    assert "near-copy of the course's reference helpers.statistics.cosine" in reasons["reference-near-copy"]
    new_cell = _flagged(graded, "new-cell")
    assert {f["cell"] for f in new_cell} == {"cell 4"}, new_cell


def test_a_flag_keeps_the_auto_score(graded):
    """The near-copy computes right answers: its points stay, for a person to confirm or remove."""
    g = graded["scores"]["reference-near-copy"]["cosine_tests"]
    assert g["auto_score"] == g["max_score"] == 3.0 and g["needs_manual_grade"]


def test_course_files_and_package_unchanged(graded):
    assert graded["after"] == graded["before"]
