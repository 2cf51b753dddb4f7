"""The judge: hidden tests run in the grader's own process, on plain values the student's kernel returns.

The student's notebook runs in its sandboxed kernel as before (:mod:`helpers.grading.execute`,
:mod:`helpers.grading.sandbox`), visible checks included. After each graded test cell, the judge runs that
cell's hidden tests **here, in the grader's process**: a function of the assignment's module in the
course's ``hidden_tests/`` folder (never released, never in the student bundle), named like the cell's
``grade_id``. It calls the student's functions through a proxy: each call sends the arguments to the
kernel as plain data (:mod:`helpers.grading.judge_runtime` runs there) and receives plain data back (arrays
loaded without pickle, numbers, strings, exception class names and messages). Expected values are
computed here with the reference implementation and never enter the kernel; the inputs come from a
seed the grader keeps, different for every submission. The cell's pass or fail, its message and its
hint are written by the judge: nothing the kernel does can give a point, it can only lose one (an
error in the visible checks still fails the cell).

Own work, structurally: the kernel imports a copy of the course package in which the assignment's
reference implementations (its module's ``REFERENCES``) raise instead of computing, so calling them
fails like any wrong answer; the rules that read code (no Python loop where vectorised code is asked,
no reference function) read the answer cells' source here (:func:`own_work_rule`,
:func:`python_loops_in_source`).

A hidden-test module looks like this::

    import numpy as np
    from helpers import statistics as _reference
    from helpers.grading.judge import checks as _chk

    REFERENCES = {"statistics": ["cosine"]}   # absent from the judged kernel

    def cosine_tests(nb, seed):                # nb: the notebook's names; seed: this submission's
        cosine = nb.cosine                     # a proxy of the student's function
        rng = np.random.default_rng([seed, 1701])
        with _chk.quiet():
            u, v = rng.normal(size=(2, 50))
            _chk.check_close(cosine(u, v), _reference.cosine(u, v), "cosine of two random 50-d vectors")

Each call is a request to the kernel and back (a few milliseconds of CPU on each side); ``cosine.map(calls)``
(:meth:`Remote.map`) makes many calls in one request, each still with the time limit of one call.

See CONTRIBUTING.md, "Adding an exercise", and docs/INSTRUCTORS.md, "What a submission can and cannot do".
"""
from __future__ import annotations

import ast
import base64
import builtins
import collections.abc
import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import importlib.util
import io
import json
import os
import queue
import re
import secrets
import shutil
import sys
import tempfile
import time
import types
import uuid
import weakref
from pathlib import Path

import numpy as np
from nbgrader.utils import is_grade, is_solution
from traitlets import Float, Unicode
from traitlets.config import Configurable

from .. import checks as _library_checks
from .flags import add_flag, grade_id
from .sandbox import package_dir
from .scan import parse_python

__all__ = ["Judge", "NotebookJudge", "judge_for", "checks", "Remote", "Call", "Results", "Missing", "Record",
           "TextFile", "NotebookProxy", "JudgeError", "python_loops_in_source", "own_work_rule", "stripped_package",
           "submission_seed", "load_cases", "function_definition"]

RUNTIME = (Path(__file__).with_name("judge_runtime.py")).read_text()
COMM_TARGET = "weat_judge"           # the comm target of the judge's requests (given to judge_runtime.open_channel)
PROGRESS_EVERY = 1.0    # seconds: the runtime's PROGRESS_EVERY (judge_runtime.py), the most between its reports
MAX_ANSWER_BYTES = 256 * 1024 * 1024   # the largest answer the judge reads from a kernel
# nbgrader's own hidden-test marker, refused in a graded notebook (those tests would run in the student's
# kernel); spelled in two parts so that it never stands whole in a file of the package (the student bundle
# is checked for it)
NBGRADER_HIDDEN = "### BEGIN HIDDEN" + " TESTS"
SECRET_FILE = ".judge-secret"          # in the course root (git-ignored): the seed the grader keeps

NO_CASES = ("This cell has no hidden tests in {path} (a function named {gid}): the grader cannot judge it, so it "
            "scored 0 and is flagged for a person. Instructors: add the function (CONTRIBUTING.md, "
            "'Adding an exercise').")
CASE_BUG = ("The grader could not finish checking this cell ({kind} in the hidden tests, not necessarily in your "
            "code). It scored 0 for now and is flagged: a person will look at it.")
GARBLED = ("The Python kernel running this notebook sent a message the grader could not read ({detail}; code that "
           "changes the kernel's own settings, such as its session key, does this). The grader stopped the kernel, "
           "started a new one, re-ran the cells above this one and went on with the next cell. This cell scored 0, "
           "and it is flagged for a person to look at.")
STUCK = ("Your code did not answer the grader within {timeout:.0f} s while it was being checked (an endless loop, "
         "or work far slower than needed). This cell scored 0 and is flagged for a person to look at.")

#: CPython 3.11's parser can raise ``SystemError: AST constructor recursion depth mismatch`` for code that is fine
#: (python/cpython#106905; :func:`helpers.grading.scan.parse_python`): a cell that fails with it is flagged.
SPURIOUS_ERROR = "AST constructor recursion depth mismatch"
SPURIOUS = ("Python itself raised an internal error while this cell was checked ('AST constructor recursion depth "
            "mismatch', CPython issue 106905), which is usually not a mistake of the code checked: the cell scored 0 "
            "and is flagged for a person to grade again.")


class JudgeError(RuntimeError):
    """The kernel did not answer the judge as the protocol says (no answer, a malformed one, a stuck kernel)."""


class KernelStuck(JudgeError):
    """A call did not finish within the time limit."""


class KernelGarbled(JudgeError):
    """The kernel sent a message the grader could not read (for example signed with a changed key)."""

    @classmethod
    def from_error(cls, exc: BaseException) -> "KernelGarbled":
        """The error of reading the message, named and cut short (the text :data:`GARBLED` shows)."""
        return cls(f"{type(exc).__name__}: {str(exc)[:200]}")


# ---------------------------------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------------------------------

class Judge(Configurable):
    """Settings of the judge (``c.Judge.*`` in ``nbgrader_config.py`` or on the command line)."""

    tests_dir = Unicode("hidden_tests", help="The folder of the hidden-test modules, relative to the course "
                                             "root (never released).").tag(config=True)
    secret = Unicode("", help="The seed the grader keeps: each submission's hidden inputs are drawn from it "
                              "and the student's id. Empty: read (or create) .judge-secret in the course "
                              "root.").tag(config=True)
    call_timeout = Float(0, help="Seconds one call of a student's function may take while judged (0: the "
                                 "per-cell timeout, Execute.timeout).").tag(config=True)



# ---------------------------------------------------------------------------------------------------
# Plain data: the grader's side of the format of helpers/grading/judge_runtime.py
# ---------------------------------------------------------------------------------------------------

#: dtypes of the NumPy scalars sent as their bytes (``{"t": "npscalar", "d": dtype.str, "b": base64}``): bool,
#: integers, floats and complex numbers, named the way ``dtype.str`` names them (``"<f4"``, ``"|b1"``)
_SCALAR_DTYPE = re.compile(r"[<>|=][biufc][0-9]{1,2}")


def _scalar(x: np.generic) -> dict | None:
    """A bool, integer, float or complex NumPy scalar as its dtype and bytes; ``None`` for other scalars.

    A list of ``float32`` numbers (``list(kv["word"])``) is 50 scalars: as ``.npy`` files each would cost a header
    written here and parsed in the kernel (the scalars of one hidden test took more of the kernel's time than its
    ``.npy`` arrays).
    """
    if not _SCALAR_DTYPE.fullmatch(x.dtype.str):
        return None
    return {"t": "npscalar", "d": x.dtype.str, "b": base64.b64encode(x.tobytes()).decode("ascii")}


def _from_scalar(node: dict) -> np.generic:
    """The NumPy scalar of a ``{"d", "b"}`` node (see :func:`_scalar`); never anything but those dtypes."""
    d, b = node.get("d"), node.get("b")
    if not (isinstance(d, str) and _SCALAR_DTYPE.fullmatch(d) and isinstance(b, str)):
        raise JudgeError("malformed answer (scalar)")
    try:
        dtype = np.dtype(d)
        raw = base64.b64decode(b, validate=True)
    except (TypeError, ValueError):
        raise JudgeError("malformed answer (scalar)") from None
    if dtype.kind not in "biufc" or len(raw) != dtype.itemsize:
        raise JudgeError("malformed answer (scalar)")
    return np.frombuffer(raw, dtype=dtype)[0]


def _npy(a: np.ndarray) -> str:
    buf = io.BytesIO()
    np.save(buf, a if a.flags.c_contiguous else a.copy(order="C"), allow_pickle=False)
    return base64.b64encode(buf.getvalue()).decode("ascii")


class _Encoder:
    """Arguments for the kernel: JSON nodes and ``.npy`` arrays (one copy per array object)."""

    def __init__(self):
        self.arrays: dict[str, str] = {}
        self._ids: dict[int, str] = {}
        self._keep = []   # keeps the arrays alive while their ids are keys
        self.axes: list = []

    def _array(self, a: np.ndarray) -> str:
        key = self._ids.get(id(a))
        if key is None:
            if a.dtype.hasobject:
                raise TypeError("arrays of Python objects cannot be sent to the kernel")
            key = f"a{len(self.arrays)}"
            self.arrays[key] = _npy(a)
            self._ids[id(a)] = key
            self._keep.append(a)
        return key

    def __call__(self, x):  # noqa: C901 - one branch per kind of value
        if x is None:
            return {"t": "none"}
        if isinstance(x, (bool, np.bool_)) and not isinstance(x, np.generic):
            return {"t": "bool", "v": bool(x)}
        if isinstance(x, np.generic):
            return _scalar(x) or {"t": "npscalar", "k": self._array(np.asarray(x))}
        if type(x) is int:
            return {"t": "int", "v": x}
        if type(x) is float:
            return {"t": "float", "v": x}
        if type(x) is str:
            return {"t": "str", "v": x}
        if isinstance(x, np.ndarray):
            return {"t": "array", "k": self._array(x), "ro": not x.flags.writeable}
        if type(x) in (list, tuple, set, frozenset):
            return {"t": type(x).__name__, "v": [self(v) for v in x]}
        if type(x) is dict:
            return {"t": "dict", "v": [[self(k), self(v)] for k, v in x.items()]}
        if isinstance(x, np.random.Generator):
            return {"t": "rng", "bit": type(x.bit_generator).__name__, "state": x.bit_generator.state}
        if isinstance(x, (Remote, Missing)):
            return {"t": "ref", "name": x.name}
        if isinstance(x, TextFile):
            return {"t": "file", "text": x.text, "name": x.name}
        if _is_axes(x):
            self.axes.append(x)
            return {"t": "axes"}
        if _is_keyed_vectors(x):
            from ..embeddings import load_default
            if x is load_default():
                return {"t": "kv", "default": True}
            return {"t": "kv", "keys": [str(k) for k in x.index_to_key], "k": self._array(np.asarray(x.vectors))}
        raise TypeError(f"a {type(x).__name__} cannot be sent to the student's kernel; hidden tests pass plain "
                        "data (numbers, strings, lists, dicts, NumPy arrays, Generators, embeddings, Axes, "
                        "TextFile).")


def _is_axes(x) -> bool:
    if "matplotlib" not in sys.modules:
        return False
    from matplotlib.axes import Axes
    return isinstance(x, Axes)


def _is_keyed_vectors(x) -> bool:
    if "gensim" not in sys.modules:
        return False
    from gensim.models import KeyedVectors
    return isinstance(x, KeyedVectors)


@dataclasses.dataclass
class Record:
    """An object the student's code returned, as plain data: its class name and its attributes.

    Attributes are read with ``record.name``; a named tuple also iterates over its items.
    """

    type_name: str
    fields: dict
    items: tuple | None = None

    def __getattr__(self, name):
        fields = self.__dict__.get("fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(f"the {self.__dict__.get('type_name', 'object')} your code returned has no attribute "
                             f"{name!r}")

    def __iter__(self):
        if self.items is None:
            raise TypeError(f"the {self.type_name} your code returned is not a sequence")
        return iter(self.items)

    def __len__(self):
        if self.items is None:
            raise TypeError(f"the {self.type_name} your code returned has no length")
        return len(self.items)

    def __getitem__(self, i):
        if self.items is None:
            raise TypeError(f"the {self.type_name} your code returned cannot be indexed")
        return self.items[i]


@dataclasses.dataclass(frozen=True)
class TextFile:
    """A text file as an argument: the kernel writes ``text`` to a file called ``name`` in a new temporary
    folder, passes the file's path (a ``str``) to the student's function and removes the folder after the call."""

    text: str
    name: str = "file.txt"


@dataclasses.dataclass(frozen=True)
class Opaque:
    """A value that plain data cannot carry (a function, an open file, a class of the student's ...)."""

    type_name: str
    name: str = ""

    def __repr__(self):
        return f"<{self.type_name}{' ' + self.name if self.name else ''} returned by your code>"


class _Decoder:
    """Answers from the kernel: nothing but plain data is ever built from them."""

    def __init__(self, arrays: dict, axes=()):
        if not isinstance(arrays, dict):
            raise JudgeError("malformed answer (arrays)")
        self.arrays = arrays
        self.axes = list(axes)
        self._cache: dict[str, np.ndarray] = {}

    def _array(self, key) -> np.ndarray:
        if not isinstance(key, str) or key not in self.arrays or not isinstance(self.arrays[key], str):
            raise JudgeError("malformed answer (array reference)")
        if key not in self._cache:
            try:
                a = np.load(io.BytesIO(base64.b64decode(self.arrays[key], validate=True)), allow_pickle=False)
            except (ValueError, OSError, EOFError) as exc:
                raise JudgeError(f"malformed answer (array: {exc})") from None
            if not isinstance(a, np.ndarray) or a.dtype.hasobject:
                raise JudgeError("malformed answer (array of objects)")
            self._cache[key] = a
        return self._cache[key].copy()

    def __call__(self, node, depth: int = 0):  # noqa: C901 - one branch per kind of value
        if depth > 60 or not isinstance(node, dict) or not isinstance(node.get("t"), str):
            raise JudgeError("malformed answer (node)")
        t = node["t"]
        v = node.get("v")
        if t == "none":
            return None
        if t == "bool" and isinstance(v, bool):
            return v
        if t == "int" and type(v) is int:
            return v
        if t == "float" and isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        if t == "str" and isinstance(v, str):
            return v
        if t in ("list", "tuple", "set", "frozenset") and isinstance(v, list):
            items = [self(x, depth + 1) for x in v]
            try:
                return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[t](items)
            except TypeError:  # unhashable items in a set
                raise JudgeError("malformed answer (set)") from None
        if t == "dict" and isinstance(v, list):
            out = {}
            for pair in v:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise JudgeError("malformed answer (dict)")
                try:
                    out[self(pair[0], depth + 1)] = self(pair[1], depth + 1)
                except TypeError:
                    raise JudgeError("malformed answer (dict key)") from None
            return out
        if t == "array":
            return self._array(node.get("k"))
        if t == "npscalar" and "d" in node:
            return _from_scalar(node)
        if t == "npscalar":
            a = self._array(node.get("k"))
            if a.ndim != 0:
                raise JudgeError("malformed answer (scalar)")
            return a[()]
        if t == "rng":
            try:
                g = np.random.Generator(getattr(np.random, str(node.get("bit")))())
                g.bit_generator.state = node.get("state")
            except (AttributeError, TypeError, ValueError, KeyError):
                return Opaque("numpy.random.Generator")
            return g
        if t == "kv":
            if node.get("default") is True:
                from ..embeddings import load_default
                return load_default()
            keys = node.get("keys")
            vectors = self._array(node.get("k"))
            if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys) and vectors.ndim == 2
                    and len(keys) == vectors.shape[0]):
                raise JudgeError("malformed answer (embedding)")
            from gensim.models import KeyedVectors
            kv = KeyedVectors(vectors.shape[1], dtype=vectors.dtype)  # count=n would add n empty slots first
            kv.add_vectors(keys, vectors)
            return kv
        if t == "axes":
            i = node.get("i")
            if type(i) is int and 0 <= i < len(self.axes):
                return self.axes[i]
            raise JudgeError("malformed answer (axes)")
        if t == "object":
            fields = node.get("fields")
            if not isinstance(fields, list):
                raise JudgeError("malformed answer (object)")
            out = {}
            for pair in fields:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                    raise JudgeError("malformed answer (object field)")
                out[pair[0]] = self(pair[1], depth + 1)
            items = node.get("items")
            items = tuple(self(x, depth + 1) for x in items) if isinstance(items, list) else None
            return Record(str(node.get("type", "object"))[:200], out, items)
        if t in ("callable", "unsupported"):
            return Opaque(str(node.get("type", "object"))[:200], str(node.get("name", ""))[:200])
        raise JudgeError(f"malformed answer (kind {t[:40]!r})")


_EXCEPTION_CLASSES: dict[tuple[str, str], type] = {}


def _student_exception(info) -> BaseException:
    """The exception a student's code raised, rebuilt here as an exception of the same class name.

    A built-in class (``ValueError``) is itself; another class becomes a class of the same name whose
    base is the first built-in exception among the original's bases, so ``except ValueError`` and
    :func:`helpers.checks.explain` treat it as the kernel did.
    """
    if not isinstance(info, dict):
        return JudgeError("malformed answer (exception)")
    name = str(info.get("type", "Exception"))[:200]
    mro = [str(n) for n in info.get("mro", [])][:50] if isinstance(info.get("mro"), list) else []
    message = str(info.get("message", ""))[:4000]
    base = Exception
    for n in [name, *mro]:
        cls = getattr(builtins, n, None)
        if isinstance(cls, type) and issubclass(cls, Exception):
            base = cls
            break
    if base.__name__ == name:
        cls = base
    else:
        cls = _EXCEPTION_CLASSES.get((name, base.__name__))
        if cls is None:
            cls = type(name if name.isidentifier() else "StudentError", (base,), {"__module__": "student"})
            _EXCEPTION_CLASSES[(name, base.__name__)] = cls
    try:
        exc = cls(message)
    except Exception:  # noqa: BLE001 - e.g. UnicodeDecodeError needs five arguments
        exc = type(name if name.isidentifier() else "StudentError", (Exception,), {"__module__": "student"})(message)
    return exc


def _replay_axes(ax, drawn) -> None:
    """Draw on the grader's ``ax`` what the student's code drew on its copy in the kernel."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    if not isinstance(drawn, dict):
        raise JudgeError("malformed answer (drawing)")

    def numbers(seq, n=None):
        if not isinstance(seq, list) or (n is not None and len(seq) != n):
            raise JudgeError("malformed answer (drawing data)")
        return [float(v) for v in seq]

    for rect in drawn.get("rectangles", []):
        x, y, w, h = numbers(rect, 4)
        ax.add_patch(Rectangle((x, y), w, h))
    for line in drawn.get("lines", []):
        if not (isinstance(line, list) and len(line) == 2):
            raise JudgeError("malformed answer (line)")
        ax.add_line(Line2D(numbers(line[0]), numbers(line[1])))
    for pts in drawn.get("points", []):
        arr = np.asarray([numbers(p, 2) for p in pts], dtype=float).reshape(-1, 2)
        ax.scatter(arr[:, 0], arr[:, 1])
    ax.set_xlabel(str(drawn.get("xlabel", ""))[:4000])
    ax.set_ylabel(str(drawn.get("ylabel", ""))[:4000])
    ax.set_title(str(drawn.get("title", ""))[:4000])
    legend = drawn.get("legend")
    if isinstance(legend, list) and legend:
        ax.legend([Line2D([], [])] * len(legend), [str(t)[:4000] for t in legend])


# ---------------------------------------------------------------------------------------------------
# Talking to the kernel
# ---------------------------------------------------------------------------------------------------

#: per kernel client, the judge's comm in its kernel: ``(comm_id, answered)``, or False once a comm opened
#: there never answered (the notebook changed the kernel's comms; execute requests serve it from then on)
_COMMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_DEFINE = ("__weat_judge__ = (lambda ns: (exec({runtime!r}, ns), ns['open_channel']({target!r}), ns['serve'])[2])("
           "{{'__name__': '__weat_judge__', 'user_ns': globals()}})")


def _text_answer(content: dict):
    """The text of ``__weat_answer__`` in an execute reply's ``user_expressions`` (None if there is none)."""
    value = content.get("user_expressions", {}).get("answer", {})
    return value.get("data", {}).get("text/plain") if isinstance(value, dict) else None


class _Channel:
    """Requests to the student's kernel through the executor's kernel client, answers from its messages.

    A request goes as a message of the judge's comm (``judge_runtime.open_channel``): ipykernel hands it to
    the runtime without running a cell. When the comm does not answer (a new kernel, or a notebook that
    changed the kernel's comms), the request goes as an execute request instead, which defines the runtime
    if it is missing and opens the comm again for the next request. Either way the answer is only a value.
    """

    def __init__(self, executor, timeout: float, budget: float | None = None):
        self.executor = executor
        self.timeout = timeout  # seconds one call of the student's code may take
        self.end = None if budget is None else time.monotonic() + budget  # the notebook's time budget runs out

    def request(self, payload: dict, calls: int = 1) -> dict:
        """The kernel's answer to ``payload``; ``calls``: how many calls of the student's code it makes (each
        may take the time limit of one call)."""
        from nbclient.util import run_sync
        return run_sync(self._request)(payload, calls)

    async def _request(self, payload: dict, calls: int = 1) -> dict:
        kc = self.executor.kc
        if kc is None:
            raise JudgeError("the kernel is not running")
        request = json.dumps(payload)
        state = _COMMS.get(kc)
        if state:
            comm_id, answered = state
            text = await self._via_comm(kc, comm_id, request, calls)
            if text is not None:
                _COMMS[kc] = (comm_id, True)
                return self._decode(text)
            _COMMS[kc] = None if answered else False  # a restarted kernel: open it again; never answered: stop
        text = await self._via_execute(kc, request, calls)
        if _COMMS.get(kc) is not False and hasattr(kc, "shell_channel") and hasattr(kc, "session"):
            comm_id = uuid.uuid4().hex
            kc.shell_channel.send(kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": COMM_TARGET,
                                                               "data": {}}))
            _COMMS[kc] = (comm_id, False)
        return self._decode(text)

    @staticmethod
    def _decode(text) -> dict:
        if not isinstance(text, str):
            raise JudgeError("no answer from the kernel (the judge's code was changed or failed there)")
        if len(text) > MAX_ANSWER_BYTES:
            raise JudgeError("the answer is too large")
        try:
            out = json.loads(text)
        except (ValueError, TypeError, MemoryError, RecursionError):
            raise JudgeError("malformed answer (not a JSON string)") from None
        if not isinstance(out, dict):
            raise JudgeError("malformed answer")
        if "failed" in out:
            raise JudgeError(f"the judge's code failed in the kernel: {str(out['failed'])[:300]}")
        return out

    async def _via_comm(self, kc, comm_id: str, request: str, calls: int = 1):
        """The answer to ``request`` sent through the comm, or None if the kernel went idle without one."""
        msg = kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"request": request}})
        kc.shell_channel.send(msg)
        # a map request's calls: the kernel reports progress at most every PROGRESS_EVERY seconds, so a call starts
        # at most that long after the last report, and each gets at least one call's time limit from its start
        slack = PROGRESS_EVERY if calls > 1 else 0.0
        clock = self._clock(slack=slack)
        latest = self._deadline(calls, slack)  # forged reports cannot give more than all the calls' time
        answer = None
        while True:
            reply = await self._next(kc, msg["header"]["msg_id"], kc.get_iopub_msg, clock)
            content = reply.get("content") or {}
            if reply.get("msg_type") == "comm_msg" and answer is None and content.get("comm_id") == comm_id:
                data = content.get("data")
                if calls > 1 and isinstance(data, dict) and set(data) == {"progress"}:
                    if not clock["interrupted"]:
                        clock["deadline"] = min(self._deadline(1, slack), latest)
                    continue
                answer = data.get("answer", 0) if isinstance(data, dict) else 0  # 0: malformed, read as such
            elif reply.get("msg_type") == "status" and content.get("execution_state") == "idle":
                break
        await self._drain_iopub(kc)
        return answer

    async def _via_execute(self, kc, request: str, calls: int = 1):
        """The answer to ``request`` sent as an execute request (the runtime defined first if it is missing)."""
        # a missing runtime answers None, not a NameError (whose traceback IPython would format: 0.2 s of CPU)
        call = f"__weat_answer__ = __weat_judge__({request!r}) if '__weat_judge__' in globals() else None"
        reply = await self._execute(kc, call, calls)
        content = reply.get("content", {})
        if content.get("status") == "ok" and _text_answer(content) == "None":
            # the runtime is defined once per kernel (again after a restart, or if the notebook deleted it)
            await self._execute(kc, _DEFINE.format(runtime=RUNTIME, target=COMM_TARGET))
            reply = await self._execute(kc, call, calls)
        content = reply.get("content", {})
        text = _text_answer(content)
        if content.get("status") != "ok" or not isinstance(text, str):
            return None
        if len(text) > MAX_ANSWER_BYTES:
            raise JudgeError("the answer is too large")
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise JudgeError("malformed answer (not a JSON string)") from None

    async def _execute(self, kc, code: str, calls: int = 1) -> dict:
        """Run ``code`` in the kernel (silently); its execute reply, with the value of ``__weat_answer__``."""
        msg_id = kc.execute(code, silent=True, store_history=False, allow_stdin=False, stop_on_error=False,
                            user_expressions={"answer": "__weat_answer__"})
        reply = await self._next(kc, msg_id, kc.get_shell_msg, self._clock(calls))
        await self._drain_iopub(kc)
        return reply

    def _deadline(self, calls: int = 1, slack: float = 0.0) -> float:
        """The time limit of ``calls`` calls from now, plus ``slack`` (never past the end of the notebook's budget)."""
        deadline = time.monotonic() + self.timeout * max(1, calls) + slack
        return deadline if self.end is None else min(deadline, self.end)

    def _clock(self, calls: int = 1, slack: float = 0.0) -> dict:
        return {"deadline": self._deadline(calls, slack), "interrupted": False}

    async def _next(self, kc, msg_id: str, get, clock: dict) -> dict:
        """The next message ``get`` reads that answers ``msg_id``, within the time limit of ``clock``.

        Past the limit the kernel is interrupted; a message after that (or none within 10 s more) means the
        call was stuck (:class:`KernelStuck`). A message that cannot be read means :class:`KernelGarbled`.
        """
        from jupyter_client.utils import ensure_async

        while True:
            remaining = clock["deadline"] - time.monotonic()
            if remaining <= 0:
                if clock["interrupted"]:
                    raise KernelStuck(f"no answer within {self.timeout:.0f} s, even after an interrupt")
                clock["interrupted"] = True
                await ensure_async(self.executor.km.interrupt_kernel())
                clock["deadline"] = time.monotonic() + 10
                continue
            try:
                reply = await ensure_async(get(timeout=min(remaining, 5)))
            except queue.Empty:  # nothing yet
                if not await ensure_async(self.executor.km.is_alive()):
                    raise JudgeError("the kernel died while it was being checked") from None
                continue
            except Exception as exc:  # noqa: BLE001 - a message that cannot be read: this kernel is replaced
                raise KernelGarbled.from_error(exc) from None
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                if clock["interrupted"]:
                    raise KernelStuck(f"no answer within {self.timeout:.0f} s")
                return reply

    @staticmethod
    async def _drain_iopub(kc) -> None:
        """Drop what the judged call published (status messages, anything the student's code displayed)."""
        from jupyter_client.utils import ensure_async
        for _ in range(10_000):
            try:
                await ensure_async(kc.get_iopub_msg(timeout=0))
            except queue.Empty:  # drained
                return
            except Exception as exc:  # noqa: BLE001 - a message that cannot be read: this kernel is replaced
                raise KernelGarbled.from_error(exc) from None


class Missing:
    """A name the notebook does not define (the student has not run its cell, or deleted it)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<{self.name}: not defined in the notebook>"

    def __getattr__(self, attr):
        raise NameError(f"name '{self.name}' is not defined")


class Remote:
    """A function of the student's notebook, called in the kernel with plain data.

    Calling it sends the arguments (copies: the grader's own arrays never change) and returns the
    decoded result, or raises an exception of the class the student's code raised.
    """

    def __init__(self, channel: _Channel, name: str):
        self._channel = channel
        self.name = name
        self.__name__ = name

    def __repr__(self):
        return f"<the notebook's {self.name}>"

    @staticmethod
    def _arguments(enc: _Encoder, args, kwargs) -> dict:
        return {"args": [enc(a) for a in args], "kwargs": [[str(k), enc(v)] for k, v in kwargs.items()]}

    @staticmethod
    def _outcome(answer: dict, dec: _Decoder) -> tuple:
        """``(value, None)`` of a call that returned, ``(None, what it raised)`` of one that raised."""
        if "raised" in answer:
            return None, answer["raised"]
        if "value" not in answer:
            raise JudgeError("malformed answer (no value)")
        return dec(answer["value"]), None

    def _call(self, args, kwargs, args_after: bool):
        enc = _Encoder()
        payload = {"op": "call", "name": self.name, **self._arguments(enc, args, kwargs), "args_after": args_after}
        payload["arrays"] = enc.arrays
        answer = self._channel.request(payload)
        dec = _Decoder(answer.get("arrays", {}), enc.axes)
        drawn = answer.get("axes", [])
        if enc.axes:
            if not (isinstance(drawn, list) and len(drawn) == len(enc.axes)):
                raise JudgeError("malformed answer (drawings)")
            for ax, d in zip(enc.axes, drawn):
                _replay_axes(ax, d)
        value, raised = self._outcome(answer, dec)
        if raised is not None:
            raise _student_exception(raised)
        if not args_after:
            return value
        after = answer.get("args_after")
        if not (isinstance(after, list) and len(after) == len(args)):
            raise JudgeError("malformed answer (arguments after the call)")
        return value, [dec(a) for a in after]

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs, False)

    def map(self, calls) -> Results:
        """Call the function once per item of ``calls``, in one request: each item a tuple of positional
        arguments, or a :class:`Call` (``Call(sx, sy, ddof=0)``) for keyword arguments.

        The same calls in the same order as ``[f(*args) for args in calls]``, each with its own copies of the
        arguments and the time limit of one call, for one round trip to the kernel instead of one per call.
        Reading an answer whose call raised raises the student's exception (:class:`Results`), so checks read
        the answers in the order the calls were made and fail where a call one by one would have failed.
        """
        calls = [c if isinstance(c, Call) else Call(*c) for c in calls]
        enc = _Encoder()
        payload = {"op": "map", "name": self.name, "calls": [self._arguments(enc, c.args, c.kwargs) for c in calls]}
        if enc.axes:
            raise TypeError("map does not pass Axes; call the function itself to draw")
        payload["arrays"] = enc.arrays
        answer = self._channel.request(payload, calls=len(calls))
        answers = answer.get("answers")
        if not (isinstance(answers, list) and len(answers) == len(calls)
                and all(isinstance(a, dict) for a in answers)):
            raise JudgeError("malformed answer (answers)")
        dec = _Decoder(answer.get("arrays", {}))
        return Results([self._outcome(a, dec) for a in answers])

    def call_returning_args(self, *args, **kwargs):
        """``(result, arguments as the function left them)``: for the check that inputs stay unchanged."""
        return self._call(args, kwargs, True)


class Call:
    """The arguments of one call in :meth:`Remote.map`: ``Call(*args, **kwargs)``."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

    def __repr__(self):
        return f"Call(*{self.args!r}, **{self.kwargs!r})"


class Results(collections.abc.Sequence):
    """The answers of :meth:`Remote.map`, in the order of the calls; an answer whose call raised raises the
    student's exception (a new one each time it is read)."""

    def __init__(self, outcomes: list):
        self._outcomes = outcomes

    def __len__(self):
        return len(self._outcomes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Results(self._outcomes[i])
        value, raised = self._outcomes[i]
        if raised is not None:
            raise _student_exception(raised)
        return value


class NotebookProxy:
    """The notebook's names, seen from the grader: ``nb.cosine`` is a :class:`Remote`, ``nb.x`` a value."""

    def __init__(self, channel: _Channel):
        object.__setattr__(self, "_channel", channel)

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        answer = self._channel.request({"op": "get", "name": name})
        if answer.get("missing"):
            return Missing(name)
        if answer.get("callable"):
            return Remote(self._channel, name)
        if "value" not in answer:
            raise JudgeError("malformed answer (no value)")
        return _Decoder(answer.get("arrays", {}))(answer["value"])

    def __setattr__(self, name, value):
        raise AttributeError("the hidden tests read the notebook; they never change it")


# ---------------------------------------------------------------------------------------------------
# Rules that read the student's code (here, from the notebook's source)
# ---------------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------------
# The checks the hidden tests call (helpers.checks, with the three that read or compare the student's
# code and inputs made to work on the notebook's functions from here)
# ---------------------------------------------------------------------------------------------------

def _name_of(func) -> str:
    return getattr(func, "name", None) or getattr(func, "__name__", "your function")


def check_unchanged(func, *args, what: str, **kwargs):
    """:func:`helpers.checks.check_unchanged` for a function of the notebook: the kernel reports its arguments
    as the call left them, and they are compared, exactly, with the grader's (never changed) copies."""
    if not isinstance(func, Remote):
        return _library_checks.check_unchanged(func, *args, what=what, **kwargs)
    result, after = func.call_returning_args(*args, **kwargs)
    for k, (before, now) in enumerate(zip(args, after)):
        arrays = [(before, now)] if isinstance(before, np.ndarray) else (
            list(zip(before, now)) if isinstance(before, (list, tuple)) and isinstance(now, (list, tuple))
            and len(before) == len(now) and all(isinstance(b, np.ndarray) for b in before) else [])
        for b, n in arrays:
            same = isinstance(n, np.ndarray) and b.shape == n.shape and np.array_equal(b, n, equal_nan=True)
            assert same, (f"{what} changed its argument {k + 1}: the caller's array is different after the call. "
                          "An in-place operation (x /= n, x -= m, x[...] = ...) writes into the caller's array, and "
                          "np.asarray(x) does not copy an array that is already float: write x = x / n instead, "
                          "which makes a new array.")
    return result


def check_own_work(func, *names: str, run=None, what: str | None = None):
    """Own work, judged here: the code of ``func`` (read from the notebook) names none of the reference
    functions ``names``, then ``run()`` is called (in the judged kernel those references raise).

    Returns
    -------
    object
        What ``run()`` returned (None without ``run``).
    """
    if not isinstance(func, Remote):
        if isinstance(func, Missing):
            raise AssertionError(f"`{func.name}` is not defined; did you run the cell that defines it?")
        raise TypeError("check_own_work takes a function of the notebook (nb.<name>)")
    label = what or f"`{func.name}`"
    own_work_rule(func.name, names, label)
    return run() if run is not None else None


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


def check_callable(obj, name: str):
    """:func:`helpers.checks.check_callable`, for a function of the notebook."""
    assert isinstance(obj, Remote), f"`{name}` should be a function; did you run the cell that defines it?"


@contextlib.contextmanager
def quiet():
    """:func:`helpers.checks.quiet` for hidden tests: the student's errors become explained failures, but a
    failure of the judge itself (a kernel that does not answer, an answer that is not plain data) stays
    what it is, so the cell is flagged for a person instead of failing as a wrong answer."""
    try:
        with _library_checks.quiet():
            yield
    except AssertionError as exc:
        if isinstance(exc.__cause__, JudgeError):
            raise exc.__cause__ from None
        raise


checks = types.SimpleNamespace(
    quiet=quiet, explain=_library_checks.explain, check_type=_library_checks.check_type,
    check_shape=_library_checks.check_shape, check_close=_library_checks.check_close,
    check_raises=_library_checks.check_raises, check_callable=check_callable, check_unchanged=check_unchanged,
    check_own_work=check_own_work, check_vectorised=check_vectorised, check_not_using=check_not_using)
checks.__doc__ = "The checks hidden tests use: ``from helpers.grading.judge import checks as _chk``."


# ---------------------------------------------------------------------------------------------------
# The course package without the assignment's reference implementations
# ---------------------------------------------------------------------------------------------------

STUB = ("raise RuntimeError({label!r} ' is not available while your work is graded: this exercise asks you to '"
        "'write it yourself.')")


def _strip_source(source: str, names, module: str) -> str:
    """``source`` with the body of each top-level function in ``names`` replaced by a ``raise``."""
    tree = parse_python(source, top_level_await=False)
    lines = source.splitlines(keepends=True)
    edits = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            first = node.body[0]
            indent = " " * first.col_offset
            stub = indent + STUB.format(label=f"helpers.{module}.{node.name}") + "\n"
            edits.append((first.lineno - 1, node.end_lineno, stub))
    missing = set(names) - {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if missing:
        raise ValueError(f"helpers.{module} has no function {sorted(missing)} to remove (REFERENCES of a "
                         "hidden-test module)")
    for start, end, stub in sorted(edits, reverse=True):
        lines[start:end] = [stub]
    return "".join(lines)


def _private_cache() -> Path:
    """The grader's own folder for stripped copies: ``$TMPDIR/weat-judge-<uid>``, mode 0700.

    Per user, because on a shared machine (a JupyterHub) other users grade too and a folder one of them
    made is not writable by the next; and checked, because a folder another user made in advance could
    hold a package the judged kernels would import.
    """
    path = Path(tempfile.gettempdir()) / f"weat-judge-{os.getuid()}"
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    import stat as _stat
    if not _stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise JudgeError(
            f"{path} is not a private folder of this user (owner uid {st.st_uid}, mode {oct(st.st_mode & 0o777)}); "
            "the judge keeps its copies of the course package there. Remove it (or set TMPDIR to a folder "
            "only you can write) and grade again.")
    return path


def stripped_package(references: dict, cache_dir) -> Path:
    """A copy of the course package in which the functions ``references`` raise instead of computing.

    Parameters
    ----------
    references : dict
        ``{"statistics": ["cosine", ...], ...}``: module of ``helpers`` to function names.
    cache_dir : path
        Where copies are kept (one folder per distinct ``references`` and package content).

    Returns
    -------
    pathlib.Path
        The copy's ``helpers`` folder (its modules only: the grader, ``helpers/grading/``, is not
        copied, so the kernel cannot read it), to bind over the package's folder in the sandbox.
    """
    package = package_dir()
    h = hashlib.sha256(json.dumps({k: sorted(v) for k, v in sorted(references.items())}).encode())
    for path in sorted(package.glob("*.py")):
        h.update(path.name.encode() + path.read_bytes())
    target = Path(cache_dir) / f"helpers-{h.hexdigest()[:16]}" / "helpers"
    if target.is_dir():
        return target
    tmp = Path(tempfile.mkdtemp(prefix="stripping-", dir=cache_dir)) / "helpers"
    tmp.mkdir()
    for path in sorted(package.glob("*.py")):
        text = path.read_text()
        if path.stem in references:
            text = _strip_source(text, set(references[path.stem]), path.stem)
        (tmp / path.name).write_text(text)
    data = package / "data"
    if data.is_dir():  # an installed package holds its data
        shutil.copytree(data, tmp / "data")
    elif (package.parent / "data").is_dir():  # the course folder (editable install): data/ beside helpers/
        (tmp.parent / "data").symlink_to(package.parent / "data")
    import compileall
    compileall.compile_dir(str(tmp), quiet=2)  # the kernel sees the copy read-only: compile it now
    try:
        tmp.parent.rename(target.parent)
    except OSError:  # another worker made it first
        shutil.rmtree(tmp.parent, ignore_errors=True)
    return target


# ---------------------------------------------------------------------------------------------------
# The judge of one notebook
# ---------------------------------------------------------------------------------------------------

def load_cases(path: Path) -> types.ModuleType:
    """The hidden-test module at ``path`` (imported afresh, under a private name).

    Raises
    ------
    FileNotFoundError
        No such file (the message says where it was looked for).
    """
    if not path.is_file():
        raise FileNotFoundError(f"No hidden tests for this assignment: {path} is missing. Every assignment's "
                                "hidden tests live in hidden_tests/<assignment>.py (CONTRIBUTING.md).")
    name = f"_weat_hidden_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _course_root(executor) -> Path:
    root = executor.config.get("CourseDirectory", {}).get("root", "") or os.getcwd()
    return Path(root).resolve()


def _secret(settings: Judge, root: Path) -> str:
    if settings.secret:
        return settings.secret
    path = root / SECRET_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        value = secrets.token_hex(16)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_text().strip()
        with os.fdopen(fd, "w") as fh:
            fh.write(value + "\n")
        return value


def submission_seed(secret: str, assignment: str, student: str) -> int:
    """The seed of one submission's hidden inputs: a hash of the grader's secret, the assignment and the student.

    Parameters
    ----------
    secret, assignment, student : str
        What the seed is drawn from.

    Returns
    -------
    int
        A 63-bit seed for ``numpy.random.default_rng([seed, ...])``.
    """
    digest = hashlib.sha256("\0".join([secret, assignment, student]).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _error_output(ename: str, text: str):
    from nbformat import NotebookNode
    return NotebookNode(output_type="error", ename=ename, evalue=text, traceback=[f"{ename}: {text}"])


def _as_text(output):
    """An execute_result or display_data of a test cell as plain text (its number is never partial credit)."""
    from nbformat import NotebookNode
    data = output.get("data", {})
    text = data.get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else str(text)
    return NotebookNode(output_type="stream", name="stdout", text=text + ("\n" if text else ""))


class NotebookJudge:
    """The hidden tests of one assignment, judged for one notebook while nbgrader executes it (:func:`judge_for`)."""

    def __init__(self, executor, cases: types.ModuleType, path: Path, seed: int, overlays, timeout: float):
        self.cases = cases
        self.path = path
        self.seed = seed
        self.overlays = overlays
        self.timeout = timeout

    def _case(self, gid: str):
        func = getattr(self.cases, gid, None) if gid and gid.isidentifier() else None
        # only a function the module defines (never one it imports, such as ``wordsets.weat_tests``)
        ok = isinstance(func, types.FunctionType) and func.__module__ == self.cases.__name__
        return func if ok else None

    def judge_cell(self, executor, cell, index: int) -> None:
        """Judge a graded test cell that has just run in the kernel; write its verdict into its outputs.

        Nothing else is changed. The cell keeps what the kernel printed (as plain text) and any error
        of its visible checks (which fails it: the kernel can lose points, never earn them); when the
        visible checks passed, the hidden tests run here, and a failure adds an error output with
        their message.
        """
        if cell.cell_type != "code" or not is_grade(cell) or is_solution(cell):
            return
        gid = grade_id(cell)
        cell.outputs = [_as_text(o) if o.get("output_type") in ("execute_result", "display_data") else o
                        for o in cell.get("outputs", [])]
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors:
            if any(SPURIOUS_ERROR in f"{o.get('evalue', '')} {' '.join(o.get('traceback') or [])}" for o in errors):
                add_flag(executor.nb, gid, SPURIOUS)
            return
        case = self._case(gid)
        if case is None:
            text = NO_CASES.format(path=self.path.name, gid=gid)
            cell.outputs.append(_error_output("NotJudged", text))
            add_flag(executor.nb, gid, text)
            return
        left = executor.time_left() if hasattr(executor, "time_left") else None  # the notebook's time budget
        channel = _Channel(executor, self.timeout if left is None else max(1.0, min(self.timeout, left)),
                           None if left is None else max(1.0, left))
        token = _current.set([c.source for c in executor.nb.cells[:index] if c.cell_type == "code"])
        try:
            with warnings_silenced():
                case(NotebookProxy(channel), self.seed)
        except AssertionError as exc:
            cell.outputs.append(_error_output("AssertionError", str(exc)))
            if SPURIOUS_ERROR in str(exc):
                add_flag(executor.nb, gid, SPURIOUS)
        except KernelStuck:
            # the error output, the flag and a fresh kernel (the cells so far re-run) for the cells after it
            executor._recover(cell, index, "TimeoutError", STUCK.format(timeout=self.timeout))
        except KernelGarbled as exc:
            executor._recover(cell, index, "KernelMessageError", GARBLED.format(detail=exc))
        except JudgeError as exc:
            text = f"The grader could not check this cell: {exc}. It scored 0 and is flagged for a person."
            cell.outputs.append(_error_output("NotJudged", text))
            add_flag(executor.nb, gid, text)
        except Exception as exc:  # noqa: BLE001 - a bug of the hidden tests must not cost the whole notebook
            executor.log.error("Hidden tests %s of %s failed: %r", gid, self.path, exc)
            text = CASE_BUG.format(kind=type(exc).__name__)
            cell.outputs.append(_error_output("NotJudged", text))
            add_flag(executor.nb, gid, f"{text} ({type(exc).__name__}: {str(exc)[:300]})")
        finally:
            _current.reset(token)


@contextlib.contextmanager
def warnings_silenced():
    """The hidden tests' own NumPy and Python warnings stay out of the grader's log."""
    import warnings
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def judge_for(executor, nb, resources) -> NotebookJudge | None:
    """The judge of the notebook nbgrader is about to execute (None outside autograding).

    There is no switch to turn it off: without it the visible checks alone would decide.

    Parameters
    ----------
    executor : helpers.grading.execute.ResilientExecute
        The executing preprocessor (its configuration names the course root).
    nb : nbformat.NotebookNode
        The notebook.
    resources : dict
        nbgrader's resources (``resources["nbgrader"]`` names the assignment and the student).

    Returns
    -------
    Judge or None

    Raises
    ------
    FileNotFoundError
        The judge is on and the assignment has no hidden-test module (grading without it would give
        every test cell 0: fail before any student is graded).
    JudgeError
        A test cell holds nbgrader's hidden-test block: it would run in the student's kernel, where the
        student's code can read and change it.
    """
    settings = Judge(config=executor.config)
    info = (resources or {}).get("nbgrader") or {}
    assignment = info.get("assignment")
    if not assignment:
        return None
    root = _course_root(executor)
    path = root / settings.tests_dir / f"{assignment}.py"
    # test cells only: nbgrader restores them from the gradebook, so what they hold is the instructor's
    # (a student who writes the marker into an answer cell changes nothing)
    inside = [grade_id(c) or "?" for c in nb.cells
              if c.cell_type == "code" and is_grade(c) and not is_solution(c) and NBGRADER_HIDDEN in c.get("source", "")]
    if inside:
        raise JudgeError(
            f"{assignment}: the cells {', '.join(inside)} hold a '{NBGRADER_HIDDEN}' block. Such tests would run in "
            f"the student's kernel, where the student's code can read and change them: move them into "
            f"{settings.tests_dir}/{assignment}.py (CONTRIBUTING.md, 'Adding an exercise') and generate the "
            "assignment again.")
    cases = load_cases(path)
    seed = submission_seed(_secret(settings, root), assignment, str(info.get("student", "")))
    references = getattr(cases, "REFERENCES", {}) or {}
    overlays = ()
    if references:
        copy = stripped_package(references, _private_cache())
        overlays = ((copy, package_dir()),)
    timeout = settings.call_timeout or float(executor.timeout or 60)
    return NotebookJudge(executor, cases, path, seed, overlays, timeout)
