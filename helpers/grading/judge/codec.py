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

from . import wire
from .errors import JudgeError

__all__ = ["Record", "TextFile", "Opaque", "NotebookName"]


class NotebookName:
    """A name of the student's notebook (a function passed to another), sent to the kernel as that name.

    The base of :class:`~helpers.grading.judge.api.Remote` and :class:`~helpers.grading.judge.api.Missing`: the
    codec sends ``{"t": "ref", "name": name}`` for either, and the kernel looks the name up in the notebook.

    Attributes
    ----------
    name : str
        The name in the notebook.
    """

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
            bit = type(x.bit_generator).__name__
            if bit not in wire.BIT_GENERATORS:
                raise TypeError(f"a Generator of {bit} cannot be sent to the student's kernel; use one of "
                                f"{', '.join(wire.BIT_GENERATORS)} (numpy.random.default_rng makes a PCG64)")
            return {"t": "rng", "bit": bit, "state": x.bit_generator.state}
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
class Record:  # numpydoc ignore=PR01
    """An object the student's code returned, as plain data: its class name and its attributes.

    Attributes are read with ``record.name``; a named tuple also iterates over its items.

    Attributes
    ----------
    type_name : str
        The name of the object's class in the kernel.
    fields : dict
        Its attributes (a named tuple's or dataclass's fields, or the public names of its ``__dict__``), decoded.
    items : tuple or None
        A named tuple's items, in order; None for another object.
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
class TextFile:  # numpydoc ignore=PR01
    """A text file as an argument of a student's function.

    The kernel writes ``text`` to a file called ``name`` in a new temporary folder, passes the file's path (a
    ``str``) to the student's function and removes the folder after the call.

    Attributes
    ----------
    text : str
        The file's content, written exactly (no newline translation).
    name : str
        The file's name (its folder is new for each call).
    """

    text: str
    name: str = "file.txt"


@dataclasses.dataclass(frozen=True)
class Opaque:  # numpydoc ignore=PR01
    """A value that plain data cannot carry (a function, an open file, a class of the student's ...).

    What the grader holds instead of it: its class name, and its name when it has one. It equals nothing a
    hidden test expects, so a check that compares it fails with a message that names its type.

    Attributes
    ----------
    type_name : str
        The name of the value's class in the kernel (or what it was, such as ``"(too large)"``).
    name : str
        Its ``__name__`` when it is a function or a class; empty otherwise.
    """

    type_name: str
    name: str = ""

    def __repr__(self):
        return f"<{self.type_name}{' ' + self.name if self.name else ''} returned by your code>"


def _text(value, limit: int, what: str) -> str:
    """``value`` if it is a string of at most ``limit`` characters; else the answer is refused."""
    if not isinstance(value, str) or len(value) > limit:
        raise JudgeError(f"malformed answer ({what})")
    return value


#: a bit generator's state as ``numpy`` gives it (``bit_generator.state``): its fields and their bounds
_RNG_STATE = {"state": 2 ** 128, "inc": 2 ** 128}
#: the bit generators a Generator is rebuilt with: a fixed table, never a name looked up (wire.BIT_GENERATORS)
_BIT_GENERATORS = {"PCG64": np.random.PCG64, "PCG64DXSM": np.random.PCG64DXSM}
assert set(_BIT_GENERATORS) == set(wire.BIT_GENERATORS)


def _generator(bit: str, state) -> np.random.Generator:
    """A Generator of the bit generator ``bit`` (one of :data:`_BIT_GENERATORS`) in the state ``state``, each field
    checked: ``{"bit_generator": bit, "state": {"state": int, "inc": int}, "has_uint32": 0 or 1, "uinteger": int}``."""
    ok = (isinstance(state, dict) and set(state) == {"bit_generator", "state", "has_uint32", "uinteger"}
          and state["bit_generator"] == bit and isinstance(state["state"], dict)
          and set(state["state"]) == set(_RNG_STATE)
          and all(type(state["state"][k]) is int and 0 <= state["state"][k] < top for k, top in _RNG_STATE.items())
          and state["has_uint32"] in (0, 1) and type(state["has_uint32"]) is int
          and type(state["uinteger"]) is int and 0 <= state["uinteger"] < 2 ** 32)
    if not ok:
        raise JudgeError("malformed answer (Generator state)")
    bit_generator = _BIT_GENERATORS[bit]()
    bit_generator.state = state
    return np.random.Generator(bit_generator)


_FIELD_TYPES = {
    "bool": lambda v: type(v) is bool,
    "int": lambda v: type(v) is int,
    "number": lambda v: type(v) in (int, float),
    "str": lambda v: isinstance(v, str) and len(v) <= wire.MAX_STRING_CHARS,
    "name": lambda v: isinstance(v, str) and len(v) <= wire.MAX_NAME,
    "text": lambda v: isinstance(v, str) and len(v) <= wire.MAX_STRING_CHARS,
    "nodes": lambda v: isinstance(v, list),
    "pairs": lambda v: isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 for p in v),
    "fields": lambda v: isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                                                    and len(p[0]) <= wire.MAX_NAME for p in v),
    "key": lambda v: isinstance(v, str) and len(v) <= wire.MAX_NAME,
    "dtype": lambda v: isinstance(v, str) and _SCALAR_DTYPE.fullmatch(v) is not None,
    "base64": lambda v: isinstance(v, str) and len(v) <= 64,
    "keys": lambda v: isinstance(v, list) and all(isinstance(k, str) and len(k) <= wire.MAX_STRING_CHARS for k in v),
    "bitgen": lambda v: v in wire.BIT_GENERATORS,
    "rngstate": lambda v: isinstance(v, dict),   # checked field by field by _generator
}
#: the kinds an answer from the kernel may hold, with their fields (wire.KINDS)
_FROM_KERNEL = {kind: fields for kind, (direction, fields) in wire.KINDS.items() if direction != "to kernel"}


def _check_node(node) -> str:
    """The kind of ``node`` after checking it against :data:`helpers.grading.judge.wire.KINDS`: a kind that may come
    from the kernel, no other field, every field of its type."""
    if not isinstance(node, dict) or not isinstance(node.get("t"), str):
        raise JudgeError("malformed answer (node)")
    kind = node["t"]
    fields = _FROM_KERNEL.get(kind)
    if fields is None:
        raise JudgeError(f"malformed answer (kind {kind[:40]!r})")
    for name, value in node.items():
        if name == "t":
            continue
        spec = fields.get(name)
        if spec is None or not _FIELD_TYPES[spec.rstrip("?")](value):
            raise JudgeError(f"malformed answer ({kind} node, field {name[:40]!r})")
    missing = [name for name, spec in fields.items() if not spec.endswith("?") and name not in node]
    if missing:
        raise JudgeError(f"malformed answer ({kind} node without {missing[0]!r})")
    return kind


class _Decoder:
    """Answers from the kernel: nothing but plain values is ever built from them.

    Every node is checked against :data:`helpers.grading.judge.wire.KINDS` before anything is built from it;
    an answer has at most :data:`~helpers.grading.judge.wire.MAX_NODES` nodes, nested at most
    :data:`~helpers.grading.judge.wire.MAX_DEPTH` deep, and each array is built once, from at most
    :data:`~helpers.grading.judge.wire.MAX_ARRAY_BYTES` of data whose size its header states exactly.
    """

    def __init__(self, arrays: dict, axes=()):
        if not (isinstance(arrays, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in arrays.items())):
            raise JudgeError("malformed answer (arrays)")
        self.arrays = arrays
        self.axes = list(axes)
        self.nodes = 0
        self._used: set[str] = set()

    def _array(self, key) -> np.ndarray:
        """The array named ``key``, built from its ``.npy`` bytes (header read first, no pickle), once."""
        if not isinstance(key, str) or key not in self.arrays:
            raise JudgeError("malformed answer (array reference)")
        if key in self._used:  # each array is one value: an answer cannot make the grader copy it again and again
            raise JudgeError("malformed answer (an array used twice)")
        self._used.add(key)
        text = self.arrays[key]
        if len(text) > (wire.MAX_ARRAY_BYTES + 4096) * 4 // 3 + 4:
            raise JudgeError("malformed answer (array too large)")
        try:
            raw = base64.b64decode(text, validate=True)
            buf = io.BytesIO(raw)
            version = np.lib.format.read_magic(buf)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                           (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read_header is None:
                raise ValueError(f"version {version} of the .npy format")
            shape, fortran, dtype = read_header(buf)  # a header of at most 10,000 bytes (NumPy's max_header_size)
        except (ValueError, OSError, EOFError, TypeError, SyntaxError) as exc:
            raise JudgeError(f"malformed answer (array: {str(exc)[:200]})") from None
        if not all(type(n) is int and n >= 0 for n in shape):
            raise JudgeError("malformed answer (array shape)")
        if dtype.kind not in wire.ARRAY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
            raise JudgeError(f"malformed answer (array of {str(dtype)[:40]})")
        count = 1
        for n in shape:
            count *= n
        data = memoryview(raw)[buf.tell():]
        if count * dtype.itemsize > wire.MAX_ARRAY_BYTES or len(data) != count * dtype.itemsize:
            raise JudgeError("malformed answer (array size)")
        return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy()

    def __call__(self, node, depth: int = 1):  # noqa: C901 - one branch per kind of value
        self.nodes += 1
        if self.nodes > wire.MAX_NODES:
            raise JudgeError(f"malformed answer (more than {wire.MAX_NODES} nodes)")
        if depth > wire.MAX_DEPTH:
            raise JudgeError(f"malformed answer (nested more than {wire.MAX_DEPTH} deep)")
        t = _check_node(node)
        v = node.get("v")
        if t == "none":
            return None
        if t in ("bool", "int", "str"):
            return v
        if t == "float":
            return float(v)
        if t in ("list", "tuple", "set", "frozenset"):
            items = [self(x, depth + 1) for x in v]
            try:
                return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[t](items)
            except TypeError:  # unhashable items in a set
                raise JudgeError("malformed answer (set)") from None
        if t == "dict":
            out = {}
            for key, value in v:
                try:
                    out[self(key, depth + 1)] = self(value, depth + 1)
                except TypeError:
                    raise JudgeError("malformed answer (dict key)") from None
            return out
        if t == "array":
            return self._array(node["k"])
        if t == "npscalar":
            if set(node) == {"t", "d", "b"}:
                return _from_scalar(node)
            if set(node) != {"t", "k"}:
                raise JudgeError("malformed answer (scalar)")
            a = self._array(node["k"])
            if a.ndim != 0:
                raise JudgeError("malformed answer (scalar)")
            return a[()]
        if t == "rng":
            return _generator(node["bit"], node["state"])
        if t == "kv":
            if node.get("default") is True and set(node) == {"t", "default"}:
                from ...embeddings import load_default
                return load_default()
            if set(node) != {"t", "keys", "k"}:
                raise JudgeError("malformed answer (embedding)")
            keys = node["keys"]
            vectors = self._array(node["k"])
            if not (vectors.ndim == 2 and vectors.dtype.kind == "f" and len(keys) == vectors.shape[0]
                    and len(set(keys)) == len(keys)):
                raise JudgeError("malformed answer (embedding)")
            self.nodes += len(keys)
            if self.nodes > wire.MAX_NODES:
                raise JudgeError(f"malformed answer (more than {wire.MAX_NODES} nodes)")
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
            out = {}
            for name, value in node["fields"]:
                out[name] = self(value, depth + 1)
            items = node.get("items")
            items = tuple(self(x, depth + 1) for x in items) if items is not None else None
            return Record(node["type"], out, items)
        if t == "callable":
            return Opaque(node["type"], node["name"])
        return Opaque(node["type"][:wire.MAX_NAME])  # unsupported


#: the built-in exception classes, by name: a fixed table (an exception's name from the kernel is looked up here,
#: never in a module)
_BUILTIN_EXCEPTIONS = {name: cls for name, cls in vars(builtins).items()
                       if isinstance(cls, type) and issubclass(cls, Exception)}
#: classes made for the names of students' own exceptions, by (name, built-in base); at most _MAX_EXCEPTION_CLASSES
_EXCEPTION_CLASSES: dict[tuple[str, str], type] = {}
_MAX_EXCEPTION_CLASSES = 1024


def _student_exception(info) -> BaseException:
    """The exception a student's code raised, rebuilt here as an exception of the same class name.

    A built-in class (``ValueError``) is itself; another class becomes a class of the same name whose
    base is the first built-in exception among the original's bases, so ``except ValueError`` and
    :func:`helpers.checks.explain` treat it as the kernel did.
    """
    mro = info.get("mro") if isinstance(info, dict) else None
    if not (isinstance(info, dict) and set(info) == {"type", "mro", "message"} and isinstance(mro, list)
            and len(mro) <= wire.MAX_MRO and all(isinstance(n, str) and len(n) <= wire.MAX_NAME for n in mro)
            and isinstance(info["type"], str) and len(info["type"]) <= wire.MAX_NAME
            and isinstance(info["message"], str)):
        return JudgeError("malformed answer (exception)")
    name, message = info["type"], info["message"][:wire.MAX_TEXT]
    base = next((_BUILTIN_EXCEPTIONS[n] for n in [name, *mro] if n in _BUILTIN_EXCEPTIONS), Exception)
    if base.__name__ == name:
        cls = base
    else:
        cls = _EXCEPTION_CLASSES.get((name, base.__name__))
        if cls is None:
            cls = type(name if name.isidentifier() else "StudentError", (base,), {"__module__": "student"})
            if len(_EXCEPTION_CLASSES) < _MAX_EXCEPTION_CLASSES:
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

    if not (isinstance(drawn, dict) and set(drawn) <= {"rectangles", "lines", "points", "xlabel", "ylabel", "title",
                                                       "legend"}):
        raise JudgeError("malformed answer (drawing)")

    def items(seq):
        if not isinstance(seq, list) or len(seq) > wire.MAX_DRAWN:
            raise JudgeError("malformed answer (drawing data)")
        return seq

    def numbers(seq, n=None):
        if not (isinstance(seq, list) and len(seq) <= wire.MAX_DRAWN and (n is None or len(seq) == n)
                and all(type(v) in (int, float) for v in seq)):
            raise JudgeError("malformed answer (drawing data)")
        return [float(v) for v in seq]

    def label(key):
        value = drawn.get(key, "")
        return _text(value, wire.MAX_STRING_CHARS, "drawing label")[:wire.MAX_TEXT]

    for rect in items(drawn.get("rectangles", [])):
        x, y, w, h = numbers(rect, 4)
        ax.add_patch(Rectangle((x, y), w, h))
    for line in items(drawn.get("lines", [])):
        if not (isinstance(line, list) and len(line) == 2):
            raise JudgeError("malformed answer (line)")
        ax.add_line(Line2D(numbers(line[0]), numbers(line[1])))
    for pts in items(drawn.get("points", [])):
        arr = np.asarray([numbers(p, 2) for p in items(pts)], dtype=float).reshape(-1, 2)
        ax.scatter(arr[:, 0], arr[:, 1])
    ax.set_xlabel(label("xlabel"))
    ax.set_ylabel(label("ylabel"))
    ax.set_title(label("title"))
    legend = drawn.get("legend")
    if legend is not None:
        texts = [_text(t, wire.MAX_STRING_CHARS, "legend")[:wire.MAX_TEXT] for t in items(legend)]
        if texts:
            ax.legend([Line2D([], [])] * len(texts), texts)
