"""The judge's side in the student's kernel: call a function of the notebook, hand back plain data.

This file is not imported by the grader: :mod:`helpers.grading.judge.channel` sends its text to the kernel once, where it
runs with ``user_ns`` (the notebook's namespace) defined; each request then calls :func:`serve` with a
JSON string and the judge reads the JSON string it returns. Requests come as messages of a comm
(:func:`open_channel`; ipykernel hands them to :func:`serve` without running a cell) or, when the comm does
not answer, as an execute request whose reply carries the answer (``user_expressions``). It trusts
nothing and is trusted with nothing: it never sees an expected value, and whatever it answers is
only a value to judge (a student's code can change what it answers, not what the answer earns).

Plain data, both ways, in the format and within the limits of :mod:`helpers.grading.judge.wire` (whose text is
sent to the kernel before this one): JSON trees whose nodes carry their type (``{"t": "float", "v": 0.5}``), NumPy
arrays as ``.npy`` bytes (base64) loaded without pickle, NumPy numbers (bool, integer, float, complex) as
their dtype and bytes, exceptions as their class names and text.
Arguments the kernel must build itself are markers: the default embedding, a small embedding, a
``numpy.random.Generator`` (its state), a fresh matplotlib Axes (drawn on, then described), a name
of the notebook (a student's function passed to another), a text file (written to a temporary folder
for the call; the function gets its path).

A ``call`` or ``map`` request may carry stand-ins: the course's version of another function of the notebook (its
source text, from the hidden tests), bound in the notebook's namespace in place of the student's for that request
only, so that a function is judged on its own (a wrong ``centroid`` costs ``centroid``'s exercise, not every
exercise whose function calls it). A stand-in is the reference of an earlier exercise, whose test cell was judged
before (the judge goes through the cells in order), so code that keeps it gains nothing.
"""
import base64 as _b64
import contextlib as _contextlib
import dataclasses as _dataclasses
import io as _io
import json as _json
import sys as _sys
import time as _time
import warnings as _warnings

if "KINDS" not in globals():  # imported as a module (tests, linters): in the kernel wire.py's text comes first
    from helpers.grading.judge.wire import (BIT_GENERATORS, MAX_ANSWER_CHARS, MAX_ARRAY_BYTES, MAX_DEPTH,
                                            MAX_DRAWN, MAX_MRO, MAX_NAME, MAX_NODES, MAX_STRING_CHARS, MAX_TEXT)

PROGRESS_EVERY = 1.0    # seconds between two progress messages of a map request (none when its calls are quick)


def _np():
    import numpy
    return numpy


class _Decoder:
    def __init__(self, arrays):
        self.arrays = arrays
        self.cache = {}
        self.axes = []
        self.folders = []

    def array(self, key):
        if key not in self.cache:
            self.cache[key] = _np().load(_io.BytesIO(_b64.b64decode(self.arrays[key])), allow_pickle=False)
        return self.cache[key]

    def __call__(self, node):
        t = node["t"]
        if t == "none":
            return None
        if t in ("bool", "int", "float", "str"):
            return {"bool": bool, "int": int, "float": float, "str": str}[t](node["v"])
        if t in ("list", "tuple", "set", "frozenset"):
            items = [self(x) for x in node["v"]]
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[t](items)
        if t == "dict":
            return {self(k): self(v) for k, v in node["v"]}
        if t == "array":
            a = self.array(node["k"])
            if node.get("ro"):
                a.flags.writeable = False
            return a
        if t == "npscalar" and "d" in node:  # a bool, integer, float or complex: its dtype and bytes
            np = _np()
            dtype = np.dtype(node["d"])
            if dtype.kind not in "biufc":
                raise TypeError(f"unknown scalar {node['d']!r}")
            return np.frombuffer(_b64.b64decode(node["b"]), dtype=dtype)[0]
        if t == "npscalar":
            return self.array(node["k"])[()]
        if t == "rng":
            np = _np()
            if node["bit"] not in BIT_GENERATORS:
                raise TypeError(f"unknown bit generator {str(node['bit'])[:MAX_NAME]!r}")
            g = np.random.Generator({"PCG64": np.random.PCG64, "PCG64DXSM": np.random.PCG64DXSM}[node["bit"]]())
            g.bit_generator.state = node["state"]
            return g
        if t == "kv":
            if node.get("default"):
                from helpers.embeddings import load_default
                return load_default()
            from gensim.models import KeyedVectors
            vectors = self.array(node["k"])
            kv = KeyedVectors(vectors.shape[1], dtype=vectors.dtype)  # count=n would add n empty slots first
            kv.add_vectors(list(node["keys"]), vectors)
            return kv
        if t == "axes":
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots()
            plt.figure()  # another figure is the current one: plt.* would draw there, not on ax
            self.axes.append((ax, fig))
            return ax
        if t == "ref":
            return user_ns[node["name"]]  # noqa: F821 - defined by the judge
        if t == "file":
            import os
            import tempfile
            self.folders.append(tempfile.mkdtemp(prefix="judge-"))
            path = os.path.join(self.folders[-1], os.path.basename(str(node["name"])) or "file.txt")
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(str(node["text"]))
            return path
        raise TypeError(f"unknown node {t!r}")


class _Encoder:
    def __init__(self, axes=()):
        self.arrays = {}
        self.items = 0
        self.chars = 0  # characters of the arrays so far (an answer holds at most MAX_ANSWER_CHARS)
        self.axes = [ax for ax, _ in axes]

    def array(self, a):
        np = _np()
        if a.dtype.kind not in "biufcmMUS" or a.dtype.fields is not None or a.dtype.subdtype is not None:
            return {"t": "unsupported", "type": f"numpy.ndarray of {str(a.dtype)[:MAX_NAME]}"}
        if a.nbytes > MAX_ARRAY_BYTES or self.chars + a.nbytes * 4 // 3 > MAX_ANSWER_CHARS:
            return {"t": "unsupported", "type": f"numpy.ndarray of {a.nbytes} bytes (too large)"}
        buf = _io.BytesIO()
        np.save(buf, a if a.flags.c_contiguous else a.copy(order="C"), allow_pickle=False)
        key = f"a{len(self.arrays)}"
        self.arrays[key] = _b64.b64encode(buf.getvalue()).decode("ascii")
        self.chars += len(self.arrays[key])
        return key

    def __call__(self, x, depth=1):
        if depth > 1:
            return self._encode(x, depth)
        before = self.items  # a whole value: within the answer's budget of nodes, or one node saying it is not
        node = self._encode(x, depth)
        if self.items > MAX_NODES:
            self.items = before + 1
            return {"t": "unsupported", "type": "(too large)"}
        return node

    def _encode(self, x, depth):
        self.items += 1
        if self.items > MAX_NODES or depth >= MAX_DEPTH:
            return {"t": "unsupported", "type": "(too large or too deep)"}
        np = _np() if "numpy" in _sys.modules else None
        if x is None:
            return {"t": "none"}
        if isinstance(x, bool):
            return {"t": "bool", "v": bool(x)}
        if np is not None and isinstance(x, np.generic):
            if x.dtype.hasobject:
                return {"t": "unsupported", "type": type(x).__name__}
            if x.dtype.kind in "biufc" and x.dtype.fields is None:
                return {"t": "npscalar", "d": x.dtype.str, "b": _b64.b64encode(x.tobytes()).decode("ascii")}
            key = self.array(np.asarray(x))
            return key if isinstance(key, dict) else {"t": "npscalar", "k": key}
        if type(x) is int:
            return {"t": "int", "v": int(x)}
        if type(x) is float:
            return {"t": "float", "v": float(x)}
        if type(x) is str:
            return {"t": "str", "v": str(x)[:MAX_STRING_CHARS]}
        if np is not None and isinstance(x, np.ndarray):
            key = self.array(x)
            return key if isinstance(key, dict) else {"t": "array", "k": key}
        if type(x) in (list, tuple, set, frozenset):
            kind = type(x).__name__
            return {"t": kind, "v": [self(v, depth + 1) for v in x]}
        if type(x) is dict:
            return {"t": "dict", "v": [[self(k, depth + 1), self(v, depth + 1)] for k, v in x.items()]}
        if np is not None and isinstance(x, np.random.Generator):
            if type(x.bit_generator).__name__ not in BIT_GENERATORS:
                return {"t": "unsupported", "type": f"Generator({type(x.bit_generator).__name__[:MAX_NAME]})"}
            return {"t": "rng", "bit": type(x.bit_generator).__name__, "state": x.bit_generator.state}
        if "matplotlib" in _sys.modules:
            from matplotlib.axes import Axes
            if isinstance(x, Axes):
                for i, ax in enumerate(self.axes):
                    if x is ax:
                        return {"t": "axes", "i": i}
                return {"t": "unsupported", "type": "matplotlib Axes (not the one it was given)"}
        if "gensim" in _sys.modules:
            from gensim.models import KeyedVectors
            if isinstance(x, KeyedVectors):
                emb = _sys.modules.get("helpers.embeddings")
                if emb is not None and getattr(emb, "_DEFAULT_CACHE", None) is x:
                    return {"t": "kv", "default": True}
                if len(x) > MAX_NODES:
                    return {"t": "unsupported", "type": "KeyedVectors (too large)"}
                key = self.array(x.vectors)
                if isinstance(key, dict):
                    return key
                return {"t": "kv", "keys": [str(k)[:MAX_STRING_CHARS] for k in x.index_to_key], "k": key}
        if isinstance(x, tuple) and hasattr(type(x), "_fields"):
            return {"t": "object", "type": type(x).__name__[:MAX_NAME],
                    "fields": [[str(f)[:MAX_NAME], self(getattr(x, f), depth + 1)] for f in type(x)._fields],
                    "items": [self(v, depth + 1) for v in x]}
        if _dataclasses.is_dataclass(x) and not isinstance(x, type):
            return {"t": "object", "type": type(x).__name__[:MAX_NAME],
                    "fields": [[f.name[:MAX_NAME], self(getattr(x, f.name), depth + 1)] for f in _dataclasses.fields(x)]}
        if callable(x):
            return {"t": "callable", "type": type(x).__name__[:MAX_NAME], "name": str(getattr(x, "__name__", ""))[:MAX_NAME]}
        fields = getattr(x, "__dict__", None)
        if isinstance(fields, dict) and not isinstance(x, type):
            return {"t": "object", "type": type(x).__name__[:MAX_NAME],
                    "fields": [[k[:MAX_NAME], self(v, depth + 1)] for k, v in list(fields.items())[:200]
                               if isinstance(k, str) and not k.startswith("_")]}
        return {"t": "unsupported", "type": type(x).__name__[:MAX_NAME]}


def _describe_axes(ax):
    """What a student drew on an Axes, as plain data (bars, lines, points, labels)."""
    np = _np()
    from matplotlib.patches import Rectangle
    enc = []
    for p in ax.patches[:MAX_DRAWN]:
        if isinstance(p, Rectangle):
            enc.append([float(p.get_x()), float(p.get_y()), float(p.get_width()), float(p.get_height())])
    lines = [[np.asarray(line.get_xdata(), dtype=float)[:MAX_DRAWN].tolist(),
              np.asarray(line.get_ydata(), dtype=float)[:MAX_DRAWN].tolist()] for line in ax.lines[:MAX_DRAWN]]
    points = []
    for c in ax.collections[:MAX_DRAWN]:
        try:
            points.append(np.asarray(c.get_offsets(), dtype=float)[:MAX_DRAWN].tolist())
        except (TypeError, ValueError):
            continue
    legend = ax.get_legend()
    return {"rectangles": enc, "lines": lines, "points": points, "xlabel": str(ax.get_xlabel())[:MAX_TEXT],
            "ylabel": str(ax.get_ylabel())[:MAX_TEXT], "title": str(ax.get_title())[:MAX_TEXT],
            "legend": [str(t.get_text())[:MAX_TEXT] for t in legend.get_texts()][:MAX_DRAWN]
            if legend is not None else None}


def _exception(exc):
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a student's exception whose __str__ fails
        text = "(its message could not be read)"
    return {"type": type(exc).__name__[:MAX_NAME], "mro": [c.__name__[:MAX_NAME] for c in type(exc).__mro__][:MAX_MRO],
            "message": text[:MAX_TEXT]}


class _Absent:
    pass


def _standins(req, live):
    """``{name: function}``: the stand-ins of the request, each defined from its source in a namespace of its own;
    each works while ``live`` is not empty (a stand-in kept by the student's code is of no use after the request)."""
    found = {}
    for s in req.get("standins") or []:
        space = {"np": _np(), "__name__": "course_standin"}
        exec(compile(str(s["source"]), "<the course's " + str(s["name"])[:MAX_NAME] + ">", "exec"), space)

        def standin(*args, _course=space[str(s["function"])], **kwargs):
            if not live:
                raise RuntimeError("the course's version of this function works only while the grader judges a call")
            return _course(*args, **kwargs)
        found[str(s["name"])] = standin
    return found


@_contextlib.contextmanager
def _bound(req):
    """The notebook's namespace with the request's stand-ins (if any) in place of its own functions, as it was
    afterwards."""
    live = [True]
    standins = _standins(req, live)
    saved = {name: user_ns.get(name, _Absent) for name in standins}  # noqa: F821 - defined by the judge
    user_ns.update(standins)  # noqa: F821
    try:
        yield
    finally:
        live.clear()
        for name, value in saved.items():
            if value is _Absent:
                user_ns.pop(name, None)  # noqa: F821
            else:
                user_ns[name] = value  # noqa: F821


def _serve(req, progress=None):
    with _bound(req):  # the request's stand-ins (none for most): bound for its calls only
        return _answer(req, progress)


def _answer(req, progress=None):
    op, name = req["op"], req["name"]
    if op == "get":
        if name not in user_ns:  # noqa: F821 - defined by the judge
            return {"missing": True}
        value = user_ns[name]  # noqa: F821
        if callable(value):
            return {"callable": True}
        enc = _Encoder()
        return {"value": enc(value), "arrays": enc.arrays}
    if op == "map":  # one call per item, in order; each gets its own copies of the arrays
        enc = _Encoder()
        answers = []
        last = _time.monotonic()
        for call in req["calls"]:
            answers.append(_call(name, dict(call, arrays=req.get("arrays", {})), enc))
            if progress is not None and _time.monotonic() - last >= PROGRESS_EVERY:
                progress(len(answers))  # the judge's time limit is one call's from here
                last = _time.monotonic()
        return {"answers": answers, "arrays": enc.arrays}
    return _call(name, req)


def _call(name, req, enc=None):
    dec = _Decoder(req.get("arrays", {}))
    args = [dec(a) for a in req["args"]]
    kwargs = {k: dec(v) for k, v in req["kwargs"]}
    answer = {}
    try:
        func = user_ns[name]  # noqa: F821
    except KeyError:
        return {"raised": {"type": "NameError", "mro": ["NameError", "Exception", "BaseException", "object"],
                           "message": f"name '{name}' is not defined"}}
    sink = _io.StringIO()
    try:
        with _warnings.catch_warnings(), _contextlib.redirect_stdout(sink), _contextlib.redirect_stderr(sink):
            _warnings.simplefilter("ignore")
            result = func(*args, **kwargs)
    except BaseException as exc:  # noqa: BLE001 - everything the student's code raises is data
        if isinstance(exc, KeyboardInterrupt):
            raise
        answer["raised"] = _exception(exc)
        result = None
    shared = enc is not None
    enc = enc if shared else _Encoder(dec.axes)  # a map request's answers share one budget of nodes
    if "raised" not in answer:
        answer["value"] = enc(result)
    if req.get("args_after"):
        answer["args_after"] = [enc(a) for a in args]
    answer["axes"] = [_describe_axes(ax) for ax, _ in dec.axes]
    if dec.axes:
        import matplotlib.pyplot as plt
        plt.close("all")
    if not shared:
        answer["arrays"] = enc.arrays
    if dec.folders:
        import shutil
        for folder in dec.folders:
            shutil.rmtree(folder, ignore_errors=True)
    return answer


def _on_open(comm, _open_msg):
    def on_msg(msg):
        data = (msg.get("content") or {}).get("data") or {}
        comm.send({"answer": serve(str(data.get("request", "")), lambda n: comm.send({"progress": n}))})
    comm.on_msg(on_msg)


def open_channel(target):
    """Register the comm target ``target`` (the judge's name for it) through which its requests come; never raises.

    A comm message is handled by ipykernel without running a cell (no compiling, no history, no
    display formatting of the answer): about a third of an execute request's CPU in the kernel.
    """
    try:
        from IPython import get_ipython
        get_ipython().kernel.comm_manager.register_target(target, _on_open)
    except Exception:  # noqa: BLE001 - no comm (a changed kernel): the judge uses execute requests
        return False
    return True


def serve(request, progress=None):
    """Answer one request of the judge (a JSON string) with a JSON string.

    ``progress(n)``, if given, is called during a ``map`` request after its ``n``-th call, at most every
    :data:`PROGRESS_EVERY` seconds, so that the judge can give each call the time limit of one call.
    """
    try:
        answer = _serve(_json.loads(request), progress)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the judge reads what went wrong
        answer = {"failed": _exception(exc)}
    text = _json.dumps(answer)
    if len(text) > MAX_ANSWER_CHARS:  # the judge reads no more: say so instead
        text = _json.dumps({"failed": {"type": "AnswerTooLarge", "mro": ["AnswerTooLarge"],
                                       "message": f"an answer of {len(text)} characters (the judge reads at most "
                                                  f"{MAX_ANSWER_CHARS})"}})
    return text
