"""Plain data: the grader's side of the format of :mod:`helpers.grading.judge.runtime`.

The encoder turns a hidden test's arguments into JSON nodes and ``.npy`` arrays; the decoder builds only plain
values from the kernel's answers (:class:`Record` for an object, :class:`Opaque` for what plain data cannot
carry), and a student's exception is rebuilt by its class name.
"""
from __future__ import annotations

import base64
import builtins
import dataclasses
import io
import re
import sys

import numpy as np

from .errors import JudgeError

__all__ = ["Record", "TextFile", "Opaque", "NotebookName"]


class NotebookName:
    """A name of the student's notebook (a function passed to another), sent to the kernel as that name."""

    name: str


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
        if isinstance(x, NotebookName):
            return {"t": "ref", "name": x.name}
        if isinstance(x, TextFile):
            return {"t": "file", "text": x.text, "name": x.name}
        if _is_axes(x):
            self.axes.append(x)
            return {"t": "axes"}
        if _is_keyed_vectors(x):
            from ...embeddings import load_default
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
                from ...embeddings import load_default
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
