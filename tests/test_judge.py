"""helpers.grading.judge: the plain-data protocol, the rules that read code, the package without references.

The end-to-end behaviour (hidden tests judged through the real autograde, every mutant losing exactly its
cells, attacks earning nothing) is tested in test_notebooks.py and test_adversarial.py; here each part is
tested on its own, against hand-made values, and the kernel side against a real kernel.
"""
from __future__ import annotations

import base64
import io
import os
import tempfile
import json
from pathlib import Path

import numpy as np
import pytest

from helpers.grading import judge
from helpers.grading.judge import JudgeError, NotebookProxy, Record, Remote, _Channel, _Decoder, _Encoder

# ---------------------------------------------------------------------------------------------------
# The format, both ways, without a kernel: the runtime's code run in this process on a fake namespace
# ---------------------------------------------------------------------------------------------------


def _runtime(user_ns: dict):
    ns = {"__name__": "__weat_judge__", "user_ns": user_ns}
    exec(judge.RUNTIME, ns)  # noqa: S102 - the course's own file
    return ns["serve"]


def _call(serve, name, *args, args_after=False, **kwargs):
    enc = _Encoder()
    payload = {"op": "call", "name": name, "args": [enc(a) for a in args],
               "kwargs": [[k, enc(v)] for k, v in kwargs.items()], "args_after": args_after, "arrays": enc.arrays}
    answer = json.loads(serve(json.dumps(payload)))
    return answer, _Decoder(answer.get("arrays", {}), enc.axes)


def test_values_keep_their_type_and_content():
    seen = {}

    def echo(*args):
        seen["args"] = args
        return args

    serve = _runtime({"echo": echo})
    values = [None, True, 3, 2.5, float("nan"), "ß", [1, 2], (1.5, "a"), {"k": [1]}, {1, 2},
              np.float32(0.25), np.int64(7), np.arange(6.0).reshape(2, 3), np.array(["a", "bc"]),
              np.zeros((0, 3), dtype=np.float32), np.bool_(True), np.uint8(200), np.float16(-1.5),
              np.complex64(1 - 2j), np.longdouble(1) / 3, np.str_("ab"), np.datetime64("2017-04-14")]
    answer, dec = _call(serve, "echo", *values)
    back = dec(answer["value"])
    assert isinstance(back, tuple) and len(back) == len(values)
    for sent, got, kernel in zip(values, back, seen["args"]):
        assert type(got) is type(sent), (sent, got)
        assert type(kernel) is type(sent), (sent, kernel)
        if isinstance(sent, np.ndarray):
            assert got.dtype == sent.dtype and got.shape == sent.shape and np.array_equal(got, sent)
        elif isinstance(sent, float) and np.isnan(sent):
            assert np.isnan(got)
        else:
            assert got == sent


def test_numpy_numbers_travel_as_their_dtype_and_bytes_not_as_npy_files():
    enc = _Encoder()
    node = enc(np.float32(0.1))
    assert node == {"t": "npscalar", "d": "<f4", "b": base64.b64encode(np.float32(0.1).tobytes()).decode()}
    assert enc.arrays == {}
    assert enc(np.str_("a"))["t"] == "npscalar" and len(enc.arrays) == 1  # other scalars: a 0-d .npy, as before
    serve = _runtime({"f": lambda: [np.float32(0.1), np.int8(-3)]})
    answer, dec = _call(serve, "f")
    assert answer["arrays"] == {} and [n["d"] for n in answer["value"]["v"]] == ["<f4", "|i1"]
    got = dec(answer["value"])
    assert type(got[0]) is np.float32 and got[0] == np.float32(0.1) and type(got[1]) is np.int8 and got[1] == -3


class _ServeChannel:
    """A channel that hands each request to the runtime's ``serve`` in this process (no kernel)."""

    def __init__(self, serve):
        self.serve = serve
        self.requests = []

    def request(self, payload, calls=1):
        self.requests.append((payload["op"], calls))
        return _Channel._decode(self.serve(json.dumps(payload)))


def test_map_makes_the_calls_in_order_in_one_request_each_with_its_own_copies():
    made = []

    def bump(a, step):
        made.append(step)
        a += step  # changes its argument: the next call must still get the grader's values
        if step == 3:
            raise ValueError(f"no {step}s")
        return a

    channel = _ServeChannel(_runtime({"bump": bump}))
    x = np.zeros(2)
    got = Remote(channel, "bump").map((x, step) for step in (1, 2, 3, 4))
    assert channel.requests == [("map", 4)] and made == [1, 2, 3, 4]
    assert len(got) == 4 and np.array_equal(x, np.zeros(2))
    assert np.array_equal(got[0], [1.0, 1.0]) and np.array_equal(got[1], [2.0, 2.0])
    for _ in range(2):  # read twice, raised twice
        with pytest.raises(ValueError, match="no 3s"):
            got[2]
    assert np.array_equal(got[3], [4.0, 4.0]) and np.array_equal(got[-1], [4.0, 4.0])
    seen = []
    with pytest.raises(ValueError):
        for value in got:  # read in order: the exception comes where the third call's answer is read
            seen.append(value)
    assert len(seen) == 2 and len(got[3:]) == 1
    assert len(Remote(channel, "bump").map([])) == 0
    got = Remote(channel, "bump").map([judge.Call(x, step=5), (x, 6)])
    assert np.array_equal(got[0], [5.0, 5.0]) and np.array_equal(got[1], [6.0, 6.0]) and made[-2:] == [5, 6]


def test_map_answers_are_checked_like_single_answers():
    channel = _ServeChannel(_runtime({"f": lambda: np.array([{"a": 1}], dtype=object), "g": lambda: 1}))
    assert isinstance(Remote(channel, "f").map([()])[0], judge.Opaque)
    with pytest.raises(NameError):
        Remote(channel, "undefined").map([()])[0]
    with pytest.raises(TypeError, match="Axes"):
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        Remote(channel, "g").map([(ax,)])
    forged = _ServeChannel(lambda request: json.dumps({"answers": [{"value": {"t": "int", "v": 1}}]}))
    with pytest.raises(JudgeError, match="answers"):
        Remote(forged, "g").map([(), ()])  # two calls, one answer


def test_an_array_passed_twice_is_one_array_in_the_kernel_and_read_only_stays_read_only():
    seen = {}

    def f(a, b):
        seen["same"] = a is b
        seen["writeable"] = a.flags.writeable
        return 0

    x = np.arange(3.0)
    x.flags.writeable = False
    _call(_runtime({"f": f}), "f", x, x)
    assert seen == {"same": True, "writeable": False}


def test_the_grader_arrays_never_change_and_args_after_report_in_place_changes():
    def scale(a):
        a /= 2.0
        return a

    x = np.array([2.0, 4.0])
    answer, dec = _call(_runtime({"scale": scale}), "scale", x, args_after=True)
    assert np.array_equal(x, [2.0, 4.0])            # the grader's copy
    assert np.array_equal(dec(answer["args_after"][0]), [1.0, 2.0])   # what the function left


def test_exceptions_come_back_by_class_name_and_message():
    class MyError(ValueError):
        pass

    def bad(kind):
        if kind == 1:
            raise MyError("not like this")
        if kind == 2:
            raise KeyError("missing")
        raise SystemExit(3)

    serve = _runtime({"bad": bad})
    for kind, cls, base in [(1, "MyError", ValueError), (2, "KeyError", KeyError), (3, "SystemExit", Exception)]:
        answer, _ = _call(serve, "bad", kind)
        exc = judge._student_exception(answer["raised"])
        assert type(exc).__name__ == cls and isinstance(exc, base)
    answer, _ = _call(serve, "bad", 1)
    exc = judge._student_exception(answer["raised"])
    assert str(exc) == "not like this" and isinstance(exc, ValueError)
    with pytest.raises(ValueError, match="not like this"):
        raise exc


def test_objects_become_records_and_functions_opaque():
    from collections import namedtuple
    from dataclasses import dataclass

    Pair = namedtuple("Pair", "low high")

    @dataclass
    class Result:
        effect_size: float
        scores: np.ndarray

    serve = _runtime({"f": lambda: (Pair(1.0, 2.0), Result(0.5, np.ones(2)), len, object())})
    answer, dec = _call(serve, "f")
    pair, result, func, other = dec(answer["value"])
    assert isinstance(pair, Record) and tuple(pair) == (1.0, 2.0) and pair.high == 2.0
    assert result.effect_size == 0.5 and np.array_equal(result.scores, np.ones(2))
    assert isinstance(func, judge.Opaque) and isinstance(other, (judge.Opaque, Record))


def test_object_arrays_are_never_loaded():
    serve = _runtime({"f": lambda: np.array([{"a": 1}], dtype=object)})
    answer, dec = _call(serve, "f")
    assert isinstance(dec(answer["value"]), judge.Opaque)
    # a forged answer with a pickled object array is refused, not unpickled
    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    forged = _Decoder({"a0": base64.b64encode(buf.getvalue()).decode()})
    with pytest.raises(JudgeError):
        forged({"t": "array", "k": "a0"})


@pytest.mark.parametrize("node", [
    {"t": "int", "v": "3"}, {"t": "float", "v": "x"}, {"t": "list", "v": {}}, {"t": "array", "k": "nope"},
    {"t": "dict", "v": [[{"t": "list", "v": []}, {"t": "none"}]]}, {"t": "eval", "v": "1"}, [], "str",
    {"t": "object", "fields": [[1, {"t": "none"}]]}, {"t": "axes", "i": 0},
    {"t": "npscalar", "d": "|O8", "b": "AAAAAAAAAAA="}, {"t": "npscalar", "d": "<f8", "b": "AAAA"},
    {"t": "npscalar", "d": "f8,i4", "b": "AAAAAAAAAAAAAAAA"}, {"t": "npscalar", "d": "<V8", "b": "AAAAAAAAAAA="},
    {"t": "npscalar", "d": 8, "b": "AAAAAAAAAAA="}, {"t": "npscalar", "d": "<f8", "b": "not base64!"},
    {"t": "npscalar", "d": "<f8"},
])
def test_malformed_answers_are_refused(node):
    with pytest.raises(JudgeError):
        _Decoder({})(node)


def test_generators_embeddings_and_references_are_sent_as_markers():
    from helpers.embeddings import load_default

    seen = {}

    def f(rng, kv, g):
        seen["draw"] = rng.random()
        seen["default"] = kv is load_default()
        seen["g"] = g
        return 0

    rng = np.random.default_rng(5)
    expected = np.random.default_rng(5).random()
    _call(_runtime({"f": f, "other": len}), "f", rng, load_default(), Remote(None, "other"))
    assert seen["draw"] == expected and seen["default"] and seen["g"] is len
    assert rng.random() == expected  # the grader's Generator did not advance


def test_a_small_embedding_keeps_exactly_its_words_both_ways():
    from gensim.models import KeyedVectors

    toy = KeyedVectors(3)
    toy.add_vectors(["he", "she"], np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    seen = {}

    def f(kv):
        seen["keys"], seen["vectors"] = list(kv.index_to_key), kv.vectors.copy()
        return kv

    answer, dec = _call(_runtime({"f": f}), "f", toy)
    back = dec(answer["value"])
    for keys, vectors in ((seen["keys"], seen["vectors"]), (list(back.index_to_key), back.vectors)):
        assert keys == ["he", "she"]  # no empty slots before the words
        assert vectors.dtype == np.float32 and np.array_equal(vectors, toy.vectors)
    assert back["she"].tolist() == [4.0, 5.0, 6.0]


def test_a_text_file_is_written_for_the_call_and_removed_after_it():
    import os

    seen = {}

    def f(path):
        with open(path, encoding="utf-8", newline="") as fh:
            seen["text"], seen["path"] = fh.read(), path
        return os.path.basename(path)

    answer, dec = _call(_runtime({"f": f}), "f", judge.TextFile("category,word\n x ,ß\r\n", name="toy.csv"))
    assert dec(answer["value"]) == "toy.csv"
    assert seen["text"] == "category,word\n x ,ß\r\n"  # exactly the text: no newline translation
    assert not os.path.exists(os.path.dirname(seen["path"]))


def test_a_grader_function_cannot_be_sent():
    with pytest.raises(TypeError, match="cannot be sent"):
        _Encoder()(lambda: 0)


def test_axes_drawn_in_the_kernel_are_replayed_on_the_grader_axes():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def draw(values, ax):
        ax.hist(values, bins=2)
        ax.axvline(1.5)
        ax.set_xlabel("statistic")
        return ax

    fig, ax = plt.subplots()
    try:
        answer, dec = _call(_runtime({"draw": draw}), "draw", [0.0, 1.0, 3.0], ax)
        for a, d in zip(dec.axes, answer["axes"]):
            judge._replay_axes(a, d)
        assert dec(answer["value"]) is ax
        assert sorted(p.get_height() for p in ax.patches) == [1.0, 2.0]
        assert [list(line.get_xdata()) for line in ax.lines] == [[1.5, 1.5]]
        assert ax.get_xlabel() == "statistic"
    finally:
        plt.close("all")


# ---------------------------------------------------------------------------------------------------
# Rules that read the notebook's code
# ---------------------------------------------------------------------------------------------------

def _with_cells(*sources):
    return judge._current.set(list(sources))


LOOPY = '''
import numpy as np
def helper(M):
    return np.array([row / np.linalg.norm(row) for row in M])
def cosine_matrix(U, V):
    return helper(U) @ helper(V).T
'''
DISGUISED = '''
import numpy as np
def cosine_matrix(U, V):
    f = np.vectorize(lambda a: a)
    return f(U) @ V.T
'''
CLEAN = '''
import numpy as np
def unit_rows(M):
    return M / np.linalg.norm(M, axis=1, keepdims=True)
def cosine_matrix(U, V):
    return unit_rows(U) @ unit_rows(V).T
'''


@pytest.mark.parametrize("source, follow, fails", [
    (CLEAN, True, False), (LOOPY, False, False), (LOOPY, True, True), (DISGUISED, True, True),
    ("def cosine_matrix(U, V):\n    for u in U:\n        pass\n", False, True),
    ("def cosine_matrix(U, V):\n    return 0\ncosine_matrix = lambda U, V: [u for u in U]\n", False, True),
    ("x = 1\n", False, True),
])
def test_check_vectorised_reads_the_source(source, follow, fails):
    token = _with_cells("%matplotlib inline\nimport numpy as np", source)
    try:
        if fails:
            with pytest.raises(AssertionError):
                judge.check_vectorised(Remote(None, "cosine_matrix"), follow=follow)
        else:
            judge.check_vectorised(Remote(None, "cosine_matrix"), follow=follow)
    finally:
        judge._current.reset(token)


@pytest.mark.parametrize("source, fails", [
    ("from helpers.statistics import cosine as c\ndef cosine(u, v):\n    return c(u, v)\n", True),
    ("import helpers.statistics as st\ndef cosine(u, v):\n    return st.cosine(u, v)\n", True),
    ("import helpers\ndef cosine(u, v, _f=helpers.statistics.cosine):\n    return _f(u, v)\n", True),
    ("def cosine(u, v):\n    from helpers import statistics\n    return statistics.cosine(u, v)\n", True),
    ("from helpers import statistics\ndef _mine(u, v):\n    return statistics.cosine(u, v)\n"
     "def cosine(u, v):\n    return _mine(u, v)\n", True),
    ("import numpy as np\nfrom helpers.statistics import cosine_matrix\n"
     "def cosine(u, v):\n    return float(np.dot(u, v))\n", False),
])
def test_own_work_rule_reads_the_function_and_what_it_calls(source, fails):
    token = _with_cells(source)
    try:
        if fails:
            with pytest.raises(AssertionError, match="reference implementation"):
                judge.own_work_rule("cosine", ["cosine"], "`cosine`")
        else:
            judge.own_work_rule("cosine", ["cosine"], "`cosine`")
    finally:
        judge._current.reset(token)


@pytest.mark.parametrize("source, fails", [
    ("import scipy.stats as sps\ndef bh(p):\n    return sps.false_discovery_control(p)\n", True),
    ("from scipy.stats import false_discovery_control as fdc\ndef bh(p):\n    return fdc(p)\n", True),
    ("import scipy.stats\nf = scipy.stats.false_discovery_control\ndef _mine(p):\n    return f(p)\n"
     "def bh(p):\n    return _mine(p)\n", True),
    ("import scipy.stats as s\ndef bh(p):\n    return getattr(s, 'false_discovery_control')(p)\n", True),
    ("import numpy as np\nfrom scipy.stats import false_discovery_control\n"
     "def bh(p):\n    \"\"\"Not scipy.stats.false_discovery_control.\"\"\"\n    return np.minimum.accumulate(p)\n", False),
])
def test_check_not_using_reads_the_function_what_it_calls_and_the_names_bound_to_it(source, fails):
    token = _with_cells(source)
    try:
        if fails:
            with pytest.raises(AssertionError, match="uses scipy.stats.false_discovery_control"):
                judge.check_not_using(Remote(None, "bh"), "scipy.stats.false_discovery_control")
        else:
            judge.check_not_using(Remote(None, "bh"), "scipy.stats.false_discovery_control")
    finally:
        judge._current.reset(token)


# ---------------------------------------------------------------------------------------------------
# The package without references; the seed
# ---------------------------------------------------------------------------------------------------

def test_stripped_package_raises_for_references_only(tmp_path):
    import subprocess
    import sys

    copy = judge.stripped_package({"statistics": ["cosine"]}, tmp_path)
    # imported as the kernel does without the sandbox (the copy first on PYTHONPATH; the sandbox binds it
    # over the package's folder instead, tests/test_adversarial.py)
    probe = ("import helpers.statistics as s, numpy as np\n"
             "print(s.__file__)\n"
             "print(s.cosine_matrix(np.eye(2), np.eye(2)).tolist())\n"
             "try:\n    s.cosine([1.0, 0.0], [1.0, 1.0])\nexcept RuntimeError as e:\n    print('raised', e)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path,
                         env={**__import__("os").environ, "PYTHONPATH": str(copy.parent)}).stdout.splitlines()
    assert out[0].startswith(str(copy)), out
    assert out[1] == "[[1.0, 0.0], [0.0, 1.0]]"
    assert out[2].startswith("raised helpers.statistics.cosine is not available while your work is graded"), out
    with pytest.raises(ValueError, match="no function"):
        judge.stripped_package({"statistics": ["no_such_function"]}, tmp_path)
    assert judge.stripped_package({"statistics": ["cosine"]}, tmp_path) == copy  # made once, then reused


def test_two_checkouts_of_the_same_package_get_copies_of_their_own(tmp_path, monkeypatch):
    """The same package content in two folders (a second clone, a course moved) gets two copies, each linking to its
    own course's data: a shared copy's link named the first folder, and once that was gone the judged kernel found
    no data (seen when a helper's checkout was removed)."""
    import shutil

    from helpers.grading.judge import stripped
    from helpers.grading.sandbox import package_dir

    copies = []
    (tmp_path / "cache").mkdir()
    for name in ("one", "two"):
        course = tmp_path / name
        (course / "helpers").mkdir(parents=True)
        for path in package_dir().glob("*.py"):
            shutil.copy(path, course / "helpers" / path.name)
        (course / "data").mkdir()
        monkeypatch.setattr(stripped, "package_dir", lambda course=course: course / "helpers")
        copies.append(stripped.stripped_package({"statistics": ["cosine"]}, tmp_path / "cache"))
    assert copies[0] != copies[1]
    assert [(c.parent / "data").resolve() for c in copies] == [tmp_path / "one" / "data", tmp_path / "two" / "data"]


def test_submission_seeds_differ_by_student_and_secret():
    seeds = {judge.submission_seed(s, "01_cosine", st) for s in ("a", "b") for st in ("alice", "bob")}
    assert len(seeds) == 4
    assert judge.submission_seed("a", "01_cosine", "alice") == judge.submission_seed("a", "01_cosine", "alice")


def test_every_graded_cell_has_hidden_tests_and_every_module_is_used():
    import nbgrader_tools as nbt

    moved = 0
    for a in nbt.discover_assignments():
        assert (nbt.HIDDEN_DIR / f"{a}.py").is_file(), f"{a}: hidden_tests/{a}.py is missing"
        moved += 1
        module = judge.load_cases(nbt.HIDDEN_DIR / f"{a}.py")
        graded = set()
        for name in nbt.notebook_names(a):
            nb = nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{name}.ipynb")
            for cell in nb.cells:
                meta = nbt.nbgrader_meta(cell)
                if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
                    graded.add(meta["grade_id"])
                    assert "### BEGIN HIDDEN TESTS" not in cell.source, f"{a}: {meta['grade_id']} still has hidden tests"
        cases = {n for n, f in vars(module).items() if isinstance(f, __import__("types").FunctionType)
                 and f.__module__ == module.__name__ and not n.startswith("_")}
        assert graded == cases, f"{a}: graded cells without hidden tests {graded - cases}, hidden tests of no cell {cases - graded}"
        refs = getattr(module, "REFERENCES", {})
        judge.stripped_package(refs, Path(__import__("tempfile").mkdtemp()))  # every name exists
    assert moved == len(nbt.discover_assignments()) == 12


# ---------------------------------------------------------------------------------------------------
# Against a real kernel
# ---------------------------------------------------------------------------------------------------

class _Executor:
    """What the judge needs of nbgrader's executor: a kernel client and manager."""

    def __init__(self, km, kc):
        self.km, self.kc = km, kc


@pytest.fixture(scope="module")
def kernel():
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    kc.execute_interactive("import numpy as np\n"
                           "def cosine(u, v):\n    return float(np.dot(u, v) / np.sqrt(np.dot(u, u) * np.dot(v, v)))\n"
                           "def slow():\n    import time\n    while True:\n        time.sleep(0.05)\n"
                           "x = np.arange(3.0)\n", timeout=60)
    yield _Executor(km, kc)
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def test_remote_calls_against_a_real_kernel(kernel):
    nb = NotebookProxy(_Channel(kernel, timeout=30))
    assert nb.cosine([1.0, 0.0], [1.0, 1.0]) == pytest.approx(2 ** -0.5)
    assert np.array_equal(nb.x, np.arange(3.0))
    assert isinstance(nb.not_defined, judge.Missing)
    with pytest.raises(NameError):
        Remote(_Channel(kernel, 30), "nothing")()


def test_a_call_that_never_returns_is_interrupted(kernel):
    nb = NotebookProxy(_Channel(kernel, timeout=1))
    assert nb.cosine([1.0], [2.0]) == 1.0  # the comm is open: the stuck call is a comm message
    with pytest.raises(judge.KernelStuck):
        nb.slow()
    with pytest.raises(judge.KernelStuck):  # not turned into a wrong answer by the hidden tests' quiet()
        with judge.checks.quiet():
            nb.slow()
    # the kernel still answers afterwards
    assert NotebookProxy(_Channel(kernel, timeout=30)).cosine([1.0], [2.0]) == 1.0


def test_map_against_a_real_kernel_and_a_stuck_call_in_it(kernel):
    cosine = Remote(_Channel(kernel, timeout=30), "cosine")
    got = cosine.map([([1.0, 0.0], [1.0, 1.0]), ([1.0], [2.0]), ([1.0, 2.0], [1.0])])
    assert got[0] == pytest.approx(2 ** -0.5) and got[1] == 1.0
    with pytest.raises(ValueError):
        got[2]
    with pytest.raises(judge.KernelStuck):
        Remote(_Channel(kernel, timeout=1), "slow").map([(), (), (), ()])
    assert cosine([1.0], [2.0]) == 1.0
    # a stuck call is stopped at the time limit of one call (and the progress slack), not of all four: each call
    # naps 3.9 s, more than one call's limit with the slack (2 s) and less than four calls' (5 s). Counted, not
    # timed: with the limit of four calls the first nap would end, and the second call would start
    kernel.kc.execute_interactive("STARTED = []\ndef long_nap():\n    import time\n    STARTED.append(1)\n"
                                  "    time.sleep(3.9)\n", timeout=30)
    with pytest.raises(judge.KernelStuck):
        Remote(_Channel(kernel, timeout=1), "long_nap").map([(), (), (), ()])
    assert NotebookProxy(_Channel(kernel, timeout=30)).STARTED == [1]
    # calls that each take less than the limit, but more than it together: the kernel's progress reports count
    kernel.kc.execute_interactive("def nap(s):\n    import time\n    time.sleep(s)\n    return s\n", timeout=30)
    assert cosine([1.0], [2.0]) == 1.0 and judge._COMMS[kernel.kc]  # the comm is open
    assert list(Remote(_Channel(kernel, timeout=1.5), "nap").map([(0.7,)] * 4)) == [0.7] * 4


def test_forged_progress_reports_cannot_hold_the_grader(kernel):
    """A student's function that sends progress reports itself, and keeps running, is still interrupted when
    all the calls' time limits have passed."""
    kernel.kc.execute_interactive(
        "FORGED = []\n"
        "def forge():\n    import time\n    from comm import get_comm_manager\n"
        "    for _ in range(100):\n"
        "        for c in list(get_comm_manager().comms.values()):\n            c.send({'progress': 1})\n"
        "        FORGED.append(1)\n        time.sleep(0.2)\n    FORGED.append('done')\n    return 'done'\n",
        timeout=30)
    assert Remote(_Channel(kernel, timeout=30), "cosine")([1.0], [2.0]) == 1.0  # the comm is open
    assert judge._COMMS[kernel.kc]
    # two calls, 1 s each: the forged reports (every 0.2 s for 20 s) cannot extend the limit past both calls' time
    # and the slack, so the first call is interrupted before its end. Checked by what the kernel did, not by a
    # clock: without the cap it would finish both calls ('done'), with no KernelStuck
    with pytest.raises(judge.KernelStuck):
        Remote(_Channel(kernel, timeout=1), "forge").map([(), ()])
    forged = NotebookProxy(_Channel(kernel, timeout=30)).FORGED
    assert forged and "done" not in forged, forged
    assert Remote(_Channel(kernel, timeout=30), "cosine")([1.0], [2.0]) == 1.0


def test_the_runtime_reports_progress_as_often_as_the_judge_expects():
    ns = {"__name__": "__weat_judge__", "user_ns": {}}
    exec(judge.RUNTIME, ns)  # noqa: S102 - the course's own file
    assert ns["PROGRESS_EVERY"] == judge.PROGRESS_EVERY


def test_a_deleted_runtime_is_defined_again(kernel):
    """Without raising in the kernel first (IPython would format a traceback: about 0.2 s of its CPU)."""
    kernel.kc.execute_interactive("import sys\nsys.last_type = None\nglobals().pop('__weat_judge__', None)\n"
                                  "def last_error():\n    return repr(sys.last_type)\n", timeout=30)
    judge._COMMS.pop(kernel.kc, None)  # as for a new kernel: the first request is an execute request
    nb = NotebookProxy(_Channel(kernel, timeout=30))
    assert nb.cosine([1.0], [2.0]) == 1.0
    assert nb.last_error() == "None"


def test_calls_go_through_the_comm_without_running_a_cell(kernel):
    """After the first request opens the judge's comm, a call is no execute request (the kernel's
    handler of execute requests, counted here, is never reached)."""
    cosine = Remote(_Channel(kernel, timeout=30), "cosine")
    assert cosine([1.0], [2.0]) == 1.0
    kernel.kc.execute_interactive("_k = get_ipython().kernel\n_handler = _k.shell_handlers['execute_request']\n"
                                  "executed = []\n"
                                  "_k.shell_handlers['execute_request'] = lambda *a: (executed.append(1), _handler(*a))[1]",
                                  timeout=30)
    try:
        for _ in range(5):
            assert cosine([1.0, 0.0], [1.0, 1.0]) == pytest.approx(2 ** -0.5)
        assert judge._COMMS[kernel.kc][1] is True
        assert NotebookProxy(_Channel(kernel, timeout=30)).executed == []
    finally:
        kernel.kc.execute_interactive("_k.shell_handlers['execute_request'] = _handler", timeout=30)
    assert len(NotebookProxy(_Channel(kernel, timeout=30)).executed) == 1  # (the cell that restored it)


def test_a_forged_answer_is_only_a_value(kernel):
    """A notebook that replaces the runtime can answer what it likes, through the comm or through execute
    requests: a value, judged like any other."""
    forged = "json.dumps({'value': {'t': 'float', 'v': 42.0}, 'arrays': {}})"
    comms = "list(get_ipython().kernel.comm_manager.comms.values())"
    remote = Remote(_Channel(kernel, timeout=30), "cosine")
    assert remote([1.0], [2.0]) == 1.0
    try:
        # the comm's handler replaced
        kernel.kc.execute_interactive(f"import json\nfor _c in {comms}:\n"
                                      f"    _c.on_msg(lambda msg, _c=_c: _c.send({{'answer': {forged}}}))", timeout=30)
        assert remote([1.0], [2.0]) == 42.0
        # the comm closed, its target removed and the runtime replaced: execute requests from then on
        kernel.kc.execute_interactive(f"for _c in {comms}:\n    _c.close()\n"
                                      "get_ipython().kernel.comm_manager.targets.clear()\n"
                                      f"__weat_judge__ = lambda request: {forged}", timeout=30)
        assert remote([1.0], [2.0]) == 42.0
        # a forged "what is cosine?" answer makes it a number, which is not a function
        assert NotebookProxy(_Channel(kernel, timeout=30)).cosine == 42.0
        assert judge._COMMS[kernel.kc] is False
        kernel.kc.execute_interactive("__weat_judge__ = lambda request: 'not json'", timeout=30)
        with pytest.raises(JudgeError):
            remote([1.0], [2.0])
    finally:
        kernel.kc.execute_interactive("del __weat_judge__", timeout=30)
        judge._COMMS.pop(kernel.kc, None)
    assert remote([1.0], [2.0]) == 1.0  # the runtime and its comm defined again
    assert remote([1.0], [2.0]) == 1.0 and judge._COMMS[kernel.kc][1] is True


def test_a_kernel_that_garbles_its_messages_is_replaced_not_waited_for():
    """A student's function that changes the kernel's session key makes every later message unreadable
    ("Invalid Signature"): the judge says so at once (the executor then replaces the kernel, flagged),
    instead of waiting out the time limit or failing the whole notebook."""
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        kc.execute_interactive("def forge():\n    get_ipython().kernel.session.key = b'forged'\n    return 1.0\n",
                               timeout=60)
        with pytest.raises(judge.KernelGarbled, match="Invalid Signature"):
            Remote(_Channel(_Executor(km, kc), timeout=60), "forge")()
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_the_stripped_copies_live_in_a_private_folder(tmp_path, monkeypatch):
    """Per user (on a hub, another user's folder is not writable) and refused when anyone else can write it."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = judge._private_cache()
    assert path == tmp_path / f"weat-judge-{os.getuid()}" and (path.stat().st_mode & 0o777) == 0o700
    assert judge._private_cache() == path  # made once, then reused
    path.chmod(0o777)  # as if another user had made it in advance, open to all
    with pytest.raises(judge.JudgeError, match="not a private folder"):
        judge._private_cache()
    path.rmdir()
    (tmp_path / "elsewhere").mkdir()
    path.symlink_to(tmp_path / "elsewhere")  # a link planted where the folder should be
    with pytest.raises(judge.JudgeError, match="not a private folder"):
        judge._private_cache()


def test_a_case_is_a_function_the_module_defines():
    """06 imports ``wordsets.weat_tests``: a cell with that grade_id must not be judged by it."""
    import nbgrader_tools as nbt

    cases = judge.load_cases(nbt.HIDDEN_DIR / "06_table1.py")
    nj = judge.NotebookJudge(None, cases, nbt.HIDDEN_DIR / "06_table1.py", 0, (), 1.0)
    assert nj._case("weat_tests") is None and nj._case("table1_rows_tests") is not None
    assert nj._case("__import__") is None and nj._case("REFERENCES") is None


def test_a_hidden_block_left_in_a_notebook_stops_grading(tmp_path):
    """nbgrader's own hidden tests would run in the student's kernel: the judge refuses the notebook."""
    import logging

    import nbformat
    from traitlets.config import Config

    (tmp_path / "hidden_tests").mkdir()
    (tmp_path / "hidden_tests" / "01_cosine.py").write_text("def cosine_tests(nb, seed):\n    pass\n")
    (tmp_path / ".judge-secret").write_text("s\n")
    cell = nbformat.v4.new_code_cell("check(cosine)\n### BEGIN HIDDEN TESTS\nassert cosine(1, 1) == 1\n### END HIDDEN TESTS")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "cosine_tests", "points": 1}
    nb = nbformat.v4.new_notebook(cells=[cell])
    c = Config()
    c.CourseDirectory.root = str(tmp_path)

    class Executor:
        config, timeout, log = c, 60, logging.getLogger("test")

    resources = {"nbgrader": {"assignment": "01_cosine", "student": "s1"}}
    with pytest.raises(JudgeError, match="cosine_tests hold a '### BEGIN HIDDEN TESTS' block"):
        judge.judge_for(Executor(), nb, resources)
    cell.source = "check(cosine)"
    answer = nbformat.v4.new_code_cell("# ### BEGIN HIDDEN TESTS (a student's comment)\ndef cosine(u, v):\n    return 1")
    answer.metadata["nbgrader"] = {"grade": False, "solution": True, "grade_id": "cosine_solution"}
    nb.cells.insert(0, answer)  # the marker in an answer cell changes nothing
    assert isinstance(judge.judge_for(Executor(), nb, resources), judge.NotebookJudge)


def test_a_cell_failing_with_pythons_spurious_parser_error_is_flagged(tmp_path):
    """CPython 3.11 can raise "AST constructor recursion depth mismatch" for code that is fine (python/cpython#106905):
    the cell keeps its 0 and is flagged for a person, whether the visible checks or the hidden tests met it."""
    import logging

    import nbformat

    cases = tmp_path / "cases.py"
    cases.write_text("def f_tests(nb, seed):\n    raise AssertionError('Your code raised SystemError: AST constructor "
                     "recursion depth mismatch (before=66, after=74)')\n\n"
                     "def g_tests(nb, seed):\n    assert False, 'wrong value'\n")
    nj = judge.NotebookJudge(None, judge.load_cases(cases), cases, 0, (), 1.0)

    def graded(gid, error=None):
        cell = nbformat.v4.new_code_cell("check()")
        cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": gid, "points": 1}
        if error:
            cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue=error, traceback=[])]
        return cell

    cells = [graded("f_tests"), graded("g_tests"), graded("h_tests", "Your code raised SystemError: AST constructor "
                                                          "recursion depth mismatch (before=3, after=9)"),
             graded("k_tests", "Your code raised ValueError: shapes (2,) and (3,) not aligned")]
    nb = nbformat.v4.new_notebook(cells=cells)

    class Executor:
        log, kc = logging.getLogger("test"), None

    Executor.nb = nb
    for index, cell in enumerate(cells):
        nj.judge_cell(Executor(), cell, index)
    flagged = {f["cell"]: f["reason"] for f in nb.metadata.get("course_flags", [])}
    assert set(flagged) == {"f_tests", "h_tests"}, flagged
    assert all("CPython issue 106905" in r for r in flagged.values())
    assert all(any(o.get("output_type") == "error" for o in c.outputs) for c in cells)  # every one scored 0


def test_the_executor_protocol_names_everything_the_judge_uses():
    """Every attribute the judge reads of its executor (``executor.X``, ``self.executor.X`` in its modules) is
    declared by the Protocol in helpers/grading/judge/executor.py, and the grader's executor has them all."""
    import ast
    import typing

    from helpers.grading.execute import ResilientExecute
    from helpers.grading.judge import executor as protocol

    declared = set()
    for cls in (protocol.Executor, protocol.KernelConnection):
        declared |= set(typing.get_type_hints(cls)) | {n for n, v in vars(cls).items() if callable(v)}
    used = set()
    for module in ("notebook", "channel", "api"):
        tree = ast.parse((Path(judge.__file__).parent / f"{module}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                base = node.value
                if (isinstance(base, ast.Name) and base.id == "executor") or (
                        isinstance(base, ast.Attribute) and base.attr == "executor"):
                    used.add(node.attr)
    assert used and used <= declared, used - declared
    for name in declared - {"kc", "km", "nb", "log"}:  # those four are set when a notebook runs
        assert hasattr(ResilientExecute, name), name


LOOPY_PROJECT_OUT = '''
import numpy as np
def project_out(V, direction):
    d = np.asarray(direction, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    if d.shape != (V.shape[-1],) or not np.all(np.isfinite(d)):
        raise ValueError("a direction of the vectors' length, without NaN")
    d = d / np.linalg.norm(d)
    out = []
    for v in np.atleast_2d(V):  # a Python loop, and a parallel vector is divided by 0 instead of refused
        p = v - (v @ d) * d
        out.append(p / np.linalg.norm(p))
    return np.array(out)[0] if V.ndim == 1 else np.array(out)
'''


def test_every_failing_hidden_check_of_an_exercise_is_reported():
    """Issue 42: 08's project_out with a Python loop that also lets a parallel vector through fails two hidden
    checks; the feedback names both (each marked as a hidden test, with its hint), not only the first."""
    import nbformat
    import nbgrader_tools as nbt

    cases = judge.load_cases(nbt.HIDDEN_DIR / "08_debiasing.py")
    user_ns = {}
    exec(LOOPY_PROJECT_OUT, user_ns)  # noqa: S102 - the test's own source
    token = _with_cells(LOOPY_PROJECT_OUT)
    try:
        with pytest.raises(judge.HiddenFailures) as info:
            cases.project_out_tests(NotebookProxy(_ServeChannel(_runtime(user_ns))), 8)
    finally:
        judge._current.reset(token)
    messages = info.value.messages
    assert len(messages) == 2, messages
    assert "parallel to the direction should raise ValueError" in messages[0], messages
    assert "loop" in messages[1] and "one matrix-vector product" in messages[1], messages  # the check's hint
    text = judge.hidden_failures_text(info.value)
    assert text.splitlines()[0] == "2 hidden tests failed:", text
    assert text.splitlines()[1].startswith("[hidden test 1] A vector parallel") and "[hidden test 2]" in text, text
    # judge_cell writes it into the cell's error output (the feedback shows it): both checks are there
    cell = nbformat.v4.new_code_cell("check()")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "two_tests", "points": 1}

    class Cases:
        __name__ = "cases"

        @staticmethod
        def two_tests(nb, seed):
            student = ValueError("the student's code raised")
            student.course_from_student = True  # as Remote marks what the kernel raised
            with judge.checks.every_failure() as each:
                with each:
                    raise AssertionError("first wrong value. Hint: the first hint.")
                with each:
                    raise student
                judge.checks.check_close(1.0, 2.0, "a check outside the blocks")
                raise AssertionError("never reached")

    Cases.two_tests.__module__ = "cases"
    nj = judge.NotebookJudge(None, Cases, Path("cases.py"), 0, (), 1.0)

    class Executor:
        log, kc, nb = None, None, nbformat.v4.new_notebook(cells=[cell])

    nj._case = lambda gid: Cases.two_tests
    nj.judge_cell(Executor(), cell, 0)
    shown = [o for o in cell.outputs if o.get("output_type") == "error"]
    assert len(shown) == 1 and shown[0]["ename"] == "AssertionError", cell.outputs
    lines = shown[0]["evalue"].splitlines()
    assert lines[0] == "3 hidden tests failed:" and "the first hint" in lines[1] and "ValueError" in lines[2], lines
    assert "a check outside the blocks" in lines[3] and "never reached" not in shown[0]["evalue"], lines
    # an error of the hidden test's own code after a failed block (a value that block did not compute) stops there
    with pytest.raises(judge.HiddenFailures) as info:
        with judge.checks.every_failure() as each:
            with each:
                raise AssertionError("wrong shape")
            with each:
                raise TypeError("'NoneType' object is not subscriptable")
            raise AssertionError("never reached")
    assert info.value.messages == ["wrong shape"]


def _solution_functions(assignment: str, *names: str) -> str:
    """The worked solution's cells that define ``names`` (the solution markers dropped), as one source text."""
    import nbformat
    import nbgrader_tools as nbt

    nb = nbformat.read(nbt.SOLUTIONS_DIR / assignment / f"{assignment}.ipynb", as_version=4)
    cells = [c.source for c in nb.cells if c.cell_type == "code" and any(f"def {n}(" in c.source for n in names)
             and (c.metadata.get("nbgrader") or {}).get("solution")]
    assert len(cells) == len(names), names
    return "import numpy as np\n" + "\n".join(
        "\n".join(line for line in c.splitlines() if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
        for c in cells)


WRONG_CENTROID_THAT_KEEPS = '''
import numpy as np
def centroid(V):                           # wrong: the raw rows' mean; the course's centroid, once kept, in its place
    if "kept" in globals() and kept is not centroid:
        return kept(V)
    return np.atleast_2d(np.asarray(V, dtype=np.float64)).mean(axis=0)
_generalised_weat = generalised_weat
def generalised_weat(X_groups, A_groups, X_all=None, A_all=None):
    global kept
    if "kept" not in globals():
        kept = centroid                    # keeps the centroid the grader's first call binds (the course's)
    return _generalised_weat(X_groups, A_groups, X_all, A_all)
'''


def test_a_function_is_judged_with_the_course_version_of_the_function_it_calls():
    """Issue 42, the chain of 09 graded alone: a wrong ``centroid`` (1 point) fails its own test only; the right
    ``generalised_weat`` (3) and ``lemma3_rhs`` (2) that call it pass, each with a note that names ``centroid``. The
    course's versions are bound for each request only, and a copy kept by the student's code stops working after it."""
    import nbgrader_tools as nbt

    cases = judge.load_cases(nbt.HIDDEN_DIR / "09_generalised_weat.py")
    source = _solution_functions("09_generalised_weat", "generalised_weat", "lemma3_rhs") + WRONG_CENTROID_THAT_KEEPS
    user_ns = {}
    exec(source, user_ns)  # noqa: S102 - the course's solution and the test's own code
    wrong = user_ns["centroid"]
    channel = _ServeChannel(_runtime(user_ns))
    token = _with_cells(source)
    try:
        with pytest.raises(AssertionError, match="centroid of 9 random vectors"):
            cases.centroid_tests(NotebookProxy(channel), 5)
        note = cases.generalised_weat_tests(NotebookProxy(channel), 5)
        assert user_ns["centroid"] is wrong, "the course's centroid stays bound after the request"
        assert "`generalised_weat` passed" in note and "the mistake is in `centroid`" in note, note
        with pytest.raises(RuntimeError, match="only while the grader judges a call"):
            user_ns["kept"](np.eye(2))  # the copy it kept is of no use now
        with pytest.raises(AssertionError, match="works only while the grader judges a call"):
            cases.centroid_tests(NotebookProxy(channel), 5)  # judged again, with what it kept: still no marks
        note = cases.lemma3_rhs_tests(NotebookProxy(channel), 5)
        assert "`lemma3_rhs` passed" in note and "the mistake is in `generalised_weat`" in note, note
        # with the student's own callee the same function fails: without the stand-ins the chain cascades
        proxy = NotebookProxy(channel)
        plain = Remote(channel, "generalised_weat")
        assert plain.standins == () and proxy.generalised_weat.standins == ()
        del user_ns["kept"]
        rng = np.random.default_rng(0)
        Xs, As = [rng.normal(size=(3, 4)) for _ in range(2)], [rng.normal(size=(2, 4)) for _ in range(2)]
        assert not np.isclose(plain(Xs, As), proxy.generalised_weat.alone(centroid=cases._centroid)(Xs, As))
        # a right centroid: no note
        exec(_solution_functions("09_generalised_weat", "centroid"), user_ns)  # noqa: S102
        assert cases.generalised_weat_tests(NotebookProxy(channel), 5) is None
    finally:
        judge._current.reset(token)


def _course_plus_one(x):
    """A stand-in for the tests below (sent to the runtime from its source)."""
    return x + 1


def _course_double(x):
    """A stand-in for the tests below (sent to the runtime from its source)."""
    return 2 * x


def test_callee_note_names_the_callee_that_changes_the_result():
    """07's wefat_correlation and 06's table1_rows have two stand-ins: the note names the student's callee that is
    wrong (each tried on its own, with the course's other), not both; both when both are."""
    from helpers.grading.judge.api import Remote, callee_note

    user_ns = {}
    exec("def f(x):\n    return x + 2\ndef g(x):\n    return 2 * x\ndef h(x):\n    return f(x) + g(x)\n", user_ns)
    h = Remote(_ServeChannel(_runtime(user_ns)), "h").alone(f=_course_plus_one, g=_course_double)
    assert h(3) == 10
    note = callee_note(h, 3)
    assert "the mistake is in `f` (see" in note and "With your own `f` and `g` it gives a different result" in note, note
    exec("def g(x):\n    return 3 * x\n", user_ns)
    assert "the mistake is in `f` and `g` (see" in callee_note(h, 3)
    exec("def f(x):\n    return x + 1\ndef g(x):\n    return 2 * x\n", user_ns)
    assert callee_note(h, 3) is None


def test_callee_note_blames_no_callee_when_the_functions_own_result_varies():
    """A function whose result changes from call to call (06's table1_rows without its seeded generator) differs
    from itself, not because of its callee: no note blames the callee."""
    from helpers.grading.judge.api import Remote, callee_note

    user_ns = {}
    exec("import itertools\n_n = itertools.count()\n"  # noqa: S102 - the test's own source
         "def f(x):\n    return x + 1\ndef h(x):\n    return f(x) + next(_n)\n", user_ns)
    h = Remote(_ServeChannel(_runtime(user_ns)), "h").alone(f=_course_plus_one)
    assert callee_note(h, 3) is None
    exec("def h(x):\n    return f(x)\ndef f(x):\n    return x + 2\n", user_ns)  # noqa: S102
    assert "the mistake is in `f` (see" in callee_note(h, 3)


def test_callee_note_compares_a_dict_of_results_key_by_key():
    """07's wefat_correlation returns a dict holding arrays (and 06's table1_rows a list of dicts): equal results
    are the same, so a right callee gives no note; a changed array or word is not."""
    same = judge.api._same
    res = {"words": ["nurse", "engineer"], "scores": np.array([0.5, -0.25]), "r": 0.75, "dropped": []}
    assert same(res, dict(res, scores=res["scores"] * (1 + 1e-12)))
    assert not same(res, dict(res, scores=res["scores"] + 1e-3))
    assert not same(res, dict(res, words=["nurse", "carpenter"]))
    assert not same(res, {k: v for k, v in res.items() if k != "r"})
    assert same([res, {"id": 1}], [dict(res), {"id": 1}]) and not same([res], [res, res])
    assert same((["rose"], [], ["gladiola"]), (["rose"], [], ["gladiola"])) and not same((["rose"],), (["tulip"],))


def test_a_stand_in_may_use_numpy_builtins_and_its_own_module_only():
    """What the kernel would not have is refused in the grader, before any request (a hidden test's bug, flagged)."""
    import nbgrader_tools as nbt

    cases = judge.load_cases(nbt.HIDDEN_DIR / "09_generalised_weat.py")
    text = judge.api.reference_source(cases._generalised_weat)
    assert text.index("def _centroid") < text.index("def _generalised_weat"), text
    with pytest.raises(TypeError, match="uses 'ast'"):
        judge.api.reference_source(cases._calls_with_all_groups)


def test_a_passed_tests_note_is_printed_in_its_cell():
    """judge_cell adds the note a passed hidden test returns as printed text; the cell keeps its points."""
    import nbformat

    cell = nbformat.v4.new_code_cell("check()")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "noted_tests", "points": 1}

    class Executor:
        log, kc, nb = None, None, nbformat.v4.new_notebook(cells=[cell])

    nj = judge.NotebookJudge(None, None, Path("cases.py"), 0, (), 1.0)
    nj._case = lambda gid: (lambda nb, seed: "Note: judged alone.")
    nj.judge_cell(Executor(), cell, 0)
    assert [o.get("output_type") for o in cell.outputs] == ["stream"] and cell.outputs[0]["text"] == "Note: judged alone.\n"


def test_a_callee_note_compares_answers_by_value():
    """callee_note's comparison: KeyedVectors by keys and vectors (two objects with the same content agree),
    containers and records item by item, numbers within float32's rounding; a real difference disagrees."""
    from gensim.models import KeyedVectors

    from helpers.grading.judge.api import _same

    def kv(words, vectors):
        out = KeyedVectors(2)
        out.add_vectors(words, np.asarray(vectors, dtype=np.float32))
        return out

    assert _same(kv(["a", "b"], [[1, 0], [0, 1]]), kv(["a", "b"], [[1, 0], [0, 1]]))
    assert not _same(kv(["a", "b"], [[1, 0], [0, 1]]), kv(["b", "a"], [[0, 1], [1, 0]]))
    assert not _same(kv(["a"], [[1, 0]]), kv(["a"], [[1, 0.01]]))
    assert _same({"x": [1.0, np.float32(0.1)]}, {"x": [1.0, 0.1]}) and not _same({"x": 1.0}, {"y": 1.0})
    assert _same(Record("R", {"p": 0.5}), Record("R", {"p": 0.5 + 1e-12})) and not _same(Record("R", {"p": 0.5}),
                                                                                      Record("R", {"p": 0.6}))
    assert _same(np.array(["a", "b"]), np.array(["a", "b"])) and not _same([1.0, 2.0], (1.0, 2.0))
    assert _same(float("nan"), np.nan) and not _same(1.0, "1.0")


def _course_words(n):
    """A stand-in for the test below: ``n`` short words (a function of this module, sent to the kernel)."""
    return ["w"] * n


def test_a_callee_note_never_fails_a_function_that_passed():
    """The note's second call, with the student's own callee, may give an answer the grader cannot read (here one
    too large); the function passed with the course's callee, so the note says so instead of failing the cell."""
    user_ns = {}
    exec("def words(n):\n    return ['x' * 10000] * 100\n"  # noqa: S102 - the test's own source
         "def listed(n):\n    return words(n)\n", user_ns)
    channel = _ServeChannel(_runtime(user_ns))
    alone = Remote(channel, "listed").alone(words=_course_words)
    assert alone(3) == ["w", "w", "w"]
    with pytest.raises(JudgeError, match="too large|failed"):
        Remote(channel, "listed")(3)  # without the stand-in the answer is refused, as any too-large answer
    note = judge.checks.callee_note(alone, 3)
    assert "gives an answer the grader cannot read on the same input" in note and "the mistake is in `words`" in note
