"""The judge's wire format (helpers/grading/judge/wire.py): one table for both sides, and what the grader
does with a forged answer of every node kind (issue 36).

Every forged answer is refused (``JudgeError``: the cell is flagged for a person), and each test measures the
limit it names: the memory the grader allocates while refusing (``tracemalloc``), whether a name the kernel
sent was looked up or called (a spy planted where the old decoder looked), how far decoding went. Each
would fail with its limit removed: the test says how.
"""
from __future__ import annotations

import ast
import base64
import builtins
import io
import json
import tracemalloc

import numpy as np
import pytest

from helpers.grading.judge import channel, codec, wire
from helpers.grading.judge.channel import RUNTIME, _Channel
from helpers.grading.judge.codec import _Decoder, _student_exception
from helpers.grading.judge.errors import JudgeError

RUNTIME_PATH = channel.Path(channel.__file__).with_name("runtime.py")


def _peak(func, *args):
    """``(result or the exception raised, the peak of memory allocated while func ran, in bytes)``."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            result = func(*args)
        except Exception as exc:  # noqa: BLE001 - returned: the caller says which it expects
            result = exc
        return result, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _answer(value, arrays=None) -> dict:
    """What the grader does with an answer's text: the checks before parsing, then the decoder."""
    def run(text):
        out = _Channel._decode(text)
        return _Decoder(out.get("arrays", {}))(out["value"])
    return run


def _decode_text(text):
    out = _Channel._decode(text)
    return _Decoder(out.get("arrays", {}))(out["value"])


def _npy(a: np.ndarray) -> str:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return base64.b64encode(buf.getvalue()).decode()


# ---------------------------------------------------------------------------------------------------
# One table, both sides
# ---------------------------------------------------------------------------------------------------

LIMITS = ("MAX_ANSWER_CHARS", "MAX_NODES", "MAX_DEPTH", "MAX_STRING_CHARS", "MAX_ARRAY_BYTES", "MAX_TEXT",
          "MAX_NAME", "MAX_MRO", "MAX_DRAWN", "BIT_GENERATORS")


def test_the_kernel_runs_the_grader_table_and_holds_no_copy_of_it():
    """The runtime sent to the kernel starts with wire.py's text, and runtime.py assigns none of its names
    (a second copy, as before, whose depth limit had already drifted from the grader's: 40 against 60)."""
    assert RUNTIME.startswith(channel.Path(wire.__file__).read_text())
    tree = ast.parse(RUNTIME_PATH.read_text())
    assigned = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets
                if isinstance(t, ast.Name)}
    assert not assigned & set(LIMITS) and "KINDS" not in assigned, assigned & set(LIMITS)
    ns = {"__name__": "__weat_judge__", "user_ns": {}}
    exec(RUNTIME, ns)  # noqa: S102 - the course's own code
    for name in LIMITS:
        assert ns[name] == getattr(wire, name), name


def test_every_constant_states_its_reason():
    """Each limit carries a ``#:`` comment (the house rule), and it names the measurement it comes from."""
    lines = channel.Path(wire.__file__).read_text().splitlines()
    for name in LIMITS:
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{name} = "))
        assert lines[at - 1].startswith("#:"), name


def test_the_runtime_obeys_the_limits_it_shares(monkeypatch):
    """The kernel's side cuts what it sends at the table's limits, so an honest (if wrong) answer is a
    value the grader reads, not a refused answer: depth, strings, arrays, and the whole answer's size."""
    ns = {"__name__": "__weat_judge__", "user_ns": {}}
    exec(RUNTIME, ns)  # noqa: S102 - the course's own code
    deep = []
    for _ in range(wire.MAX_DEPTH + 5):
        deep = [deep]
    ns["user_ns"].update(deep=lambda: deep, long=lambda: "x" * (wire.MAX_STRING_CHARS + 10),
                         big=lambda: np.zeros(wire.MAX_ARRAY_BYTES // 8 + 1),
                         huge=lambda: ["y" * 1000] * (wire.MAX_ANSWER_CHARS // 1000 + 10))
    for name, check in [("deep", lambda v: isinstance(v, list)), ("long", lambda v: len(v) == wire.MAX_STRING_CHARS),
                        ("big", lambda v: isinstance(v, codec.Opaque) and "too large" in v.type_name)]:
        text = ns["serve"](json.dumps({"op": "call", "name": name, "args": [], "kwargs": []}))
        out = _Channel._decode(text)
        assert check(_Decoder(out.get("arrays", {}))(out["value"])), name
    text = ns["serve"](json.dumps({"op": "call", "name": "huge", "args": [], "kwargs": []}))
    with pytest.raises(JudgeError, match="AnswerTooLarge|at most"):
        _Channel._decode(text)


# ---------------------------------------------------------------------------------------------------
# Forged answers, node kind by node kind
# ---------------------------------------------------------------------------------------------------

NONE = {"t": "none"}
GOOD = {  # one well-formed node of every kind that may come from the kernel
    "none": NONE, "bool": {"t": "bool", "v": True}, "int": {"t": "int", "v": 3}, "float": {"t": "float", "v": 0.5},
    "str": {"t": "str", "v": "ab"}, "list": {"t": "list", "v": [NONE]}, "tuple": {"t": "tuple", "v": [NONE]},
    "set": {"t": "set", "v": [NONE]}, "frozenset": {"t": "frozenset", "v": [NONE]},
    "dict": {"t": "dict", "v": [[{"t": "str", "v": "k"}, NONE]]},
    "array": {"t": "array", "k": "a0"}, "npscalar": {"t": "npscalar", "d": "<f8", "b": "AAAAAAAA4D8="},
    "rng": {"t": "rng", "bit": "PCG64", "state": np.random.default_rng(1).bit_generator.state},
    "kv": {"t": "kv", "keys": ["he", "she"], "k": "a1"}, "axes": {"t": "axes", "i": 0},
    "object": {"t": "object", "type": "Result", "fields": [["pvalue", {"t": "float", "v": 0.1}]]},
    "callable": {"t": "callable", "type": "function", "name": "f"}, "unsupported": {"t": "unsupported", "type": "x"},
}
ARRAYS = {"a0": _npy(np.arange(3.0)), "a1": _npy(np.ones((2, 3), dtype=np.float32))}


def _decoder():
    return _Decoder(dict(ARRAYS), axes=["the grader's axes"])


def test_the_table_and_the_examples_cover_the_same_kinds():
    from_kernel = {k for k, (direction, _) in wire.KINDS.items() if direction != "to kernel"}
    assert set(GOOD) == from_kernel


@pytest.mark.parametrize("kind", sorted(GOOD))
def test_each_kind_is_read_when_well_formed_and_refused_with_a_field_it_does_not_have(kind):
    _decoder()(json.loads(json.dumps(GOOD[kind])))
    with pytest.raises(JudgeError):
        _decoder()({**GOOD[kind], "extra": 1})


@pytest.mark.parametrize("kind", sorted(k for k in GOOD if wire.KINDS[k][1]))
def test_each_kind_is_refused_with_a_field_of_another_type(kind):
    field = next(iter(wire.KINDS[kind][1]))
    for wrong in ({"a": 1}, [[[]]], "s" * (wire.MAX_STRING_CHARS + 1), 1.5, None):
        if wrong == 1.5 and wire.KINDS[kind][1][field] == "number":
            continue
        node = {**GOOD[kind], field: wrong}
        with pytest.raises(JudgeError):
            _decoder()(node)


@pytest.mark.parametrize("node", [
    {"t": "eval", "v": "1"}, {"t": "ref", "name": "cosine"}, {"t": "file", "text": "x", "name": "a"},
    {"t": "__class__"}, {"v": 1}, [], "str", None,
])
def test_unknown_kinds_and_kinds_that_only_travel_to_the_kernel_are_refused(node):
    with pytest.raises(JudgeError):
        _decoder()(node)


def test_a_name_the_kernel_sends_is_never_looked_up_or_called(monkeypatch):
    """The old decoder called ``getattr(numpy.random, <the kernel's name>)()`` for a Generator, and
    ``getattr(builtins, <the kernel's name>)(message)`` for an exception. Spies planted under those
    names must never run; each forged name is refused or made a plain class of that name."""
    called = []

    class Spy:
        def __init__(self, *args):
            called.append(args)

    monkeypatch.setattr(np.random, "MT19937", Spy)
    monkeypatch.setattr(np.random, "weat_spy", Spy, raising=False)
    state = np.random.default_rng(1).bit_generator.state
    for bit in ("MT19937", "weat_spy", "default_rng", "__class__"):
        with pytest.raises(JudgeError):
            _decoder()({"t": "rng", "bit": bit, "state": state})

    class SpyError(Exception):
        def __init__(self, *args):
            called.append(args)
            super().__init__(*args)

    monkeypatch.setattr(builtins, "WeatSpyError", SpyError, raising=False)
    exc = _student_exception({"type": "WeatSpyError", "mro": ["WeatSpyError", "ValueError"], "message": "m"})
    assert type(exc).__name__ == "WeatSpyError" and type(exc) is not SpyError and isinstance(exc, ValueError)
    assert called == []


def test_a_generator_is_rebuilt_from_its_state_field_by_field():
    rng = np.random.default_rng(7)
    rng.random(3)
    got = _decoder()({"t": "rng", "bit": "PCG64", "state": rng.bit_generator.state})
    assert got.random() == rng.random()
    for forged in ({"bit_generator": "PCG64"}, {**rng.bit_generator.state, "state": {"state": -1, "inc": 1}},
                   {**rng.bit_generator.state, "bit_generator": "PCG64DXSM"},
                   {**rng.bit_generator.state, "state": {"state": 2 ** 200, "inc": 1}},
                   {**rng.bit_generator.state, "uinteger": "0"}):
        with pytest.raises(JudgeError):
            _decoder()({"t": "rng", "bit": "PCG64", "state": forged})


def test_over_deep_answers_are_refused_at_the_table_depth():
    def nested(depth):
        node = NONE
        for _ in range(depth - 1):
            node = {"t": "list", "v": [node]}
        return node

    _decoder()(nested(wire.MAX_DEPTH))
    with pytest.raises(JudgeError, match="deep"):
        _decoder()(nested(wire.MAX_DEPTH + 1))
    # deeper than json.loads itself goes: refused, not a crash
    text = '{"value":' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(JudgeError):
        _decode_text(text)


def test_too_many_nodes_are_refused_at_the_table_count():
    """40,000 ``none`` nodes fit in the largest answer's characters; the node count refuses them."""
    ok = {"t": "list", "v": [NONE] * (wire.MAX_NODES - 1)}
    assert len(_decoder()(ok)) == wire.MAX_NODES - 1
    text = json.dumps({"value": {"t": "list", "v": [NONE] * (wire.MAX_NODES * 2)}}, separators=(",", ":"))
    assert len(text) <= wire.MAX_ANSWER_CHARS
    with pytest.raises(JudgeError, match="nodes"):
        _decode_text(text)
    with pytest.raises(JudgeError, match="nodes"):  # an embedding's words count as nodes
        keys = [f"w{i}" for i in range(wire.MAX_NODES + 1)]
        _Decoder({"a0": _npy(np.zeros((len(keys), 1), dtype=np.float32))})({"t": "kv", "keys": keys, "k": "a0"})


def test_oversized_answers_are_refused_before_they_are_parsed():
    """An answer over MAX_ANSWER_CHARS costs the grader nothing beyond the text it received (json.loads of
    this one would build a list of 180,000 floats, 4 MB)."""
    text = json.dumps({"value": {"t": "list", "v": [{"t": "float", "v": 0.5}] * 180_000}})
    assert len(text) > wire.MAX_ANSWER_CHARS
    result, peak = _peak(_decode_text, text)
    assert isinstance(result, JudgeError) and "too large" in str(result)
    assert peak < len(text) // 4, peak


def test_a_text_denser_than_the_format_is_refused_unread():
    """``[{},{},...]`` within the size limit: json.loads would build 72 bytes of objects for every 3
    characters (24 times what was received); it is refused before parsing, at a small fraction of that."""
    text = '{"value":[' + "{}," * (wire.MAX_ANSWER_CHARS // 3 - 10) + "{}]}"
    assert len(text) <= wire.MAX_ANSWER_CHARS
    result, peak = _peak(_decode_text, text)
    assert isinstance(result, JudgeError) and "denser" in str(result)
    assert peak < len(text), (peak, len(text))


def test_the_memory_of_decoding_is_a_small_multiple_of_the_text():
    """The worst accepted shapes, each at the size limit: decoding (parse, checks, values) stays within
    WIRE_MULTIPLE times the characters received (the statement in docs/INSTRUCTORS.md)."""
    third = wire.MAX_ANSWER_CHARS // 3
    shapes = {
        "strings": json.dumps({"value": {"t": "list", "v": [{"t": "str", "v": "é" * 50}] * (third // 40)}},
                              ensure_ascii=False),
        "nodes": json.dumps({"value": {"t": "list", "v": [NONE] * (wire.MAX_NODES - 1)}}, separators=(",", ":")),
        "floats": json.dumps({"value": {"t": "list", "v": [{"t": "float", "v": 1.5}] * (wire.MAX_NODES - 1)}},
                             separators=(",", ":")),
        "arrays": json.dumps({"value": {"t": "list", "v": [{"t": "array", "k": f"a{i}"} for i in range(3)]},
                              "arrays": {f"a{i}": _npy(np.zeros(wire.MAX_ARRAY_BYTES // 8 // 4)) for i in range(3)}}),
    }
    for name, text in shapes.items():
        assert len(text) <= wire.MAX_ANSWER_CHARS, name
        result, peak = _peak(_decode_text, text)
        assert not isinstance(result, Exception), (name, result)
        assert peak <= WIRE_MULTIPLE * len(text), (name, peak / len(text))


#: the stated bound: decoding allocates at most this many bytes per character of the answer received
WIRE_MULTIPLE = 24


def test_arrays_are_bounded_by_their_header_before_they_are_built():
    """A header that claims 10**8 elements over 8 bytes of data: refused before anything is allocated
    (``np.load`` allocated the claimed 800 MB first, then found the data short)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10 ** 8,)})
    forged = base64.b64encode(header.getvalue() + b"\0" * 8).decode()
    result, peak = _peak(lambda: _Decoder({"a0": forged})({"t": "array", "k": "a0"}))
    assert isinstance(result, JudgeError) and peak < 1_000_000, (result, peak)
    too_big = np.zeros(wire.MAX_ARRAY_BYTES // 8 + 1)
    with pytest.raises(JudgeError):
        _Decoder({"a0": _npy(too_big)})({"t": "array", "k": "a0"})
    for dtype in (object, [("a", "<f8")], "V8"):
        buf = io.BytesIO()
        np.save(buf, np.zeros(2, dtype=dtype), allow_pickle=True)
        with pytest.raises(JudgeError):
            _Decoder({"a0": base64.b64encode(buf.getvalue()).decode()})({"t": "array", "k": "a0"})


def test_an_array_is_built_once_however_often_the_answer_names_it():
    """The old decoder copied a cached array for every reference: 100 references to one 256 KiB array
    were 25 MB in the grader from 350 KB of text."""
    arrays = {"a0": _npy(np.zeros(wire.MAX_ARRAY_BYTES // 8))}
    node = {"t": "list", "v": [{"t": "array", "k": "a0"}] * 100}
    result, peak = _peak(lambda: _Decoder(arrays)(node))
    assert isinstance(result, JudgeError) and "twice" in str(result)
    assert peak < 3 * wire.MAX_ARRAY_BYTES, peak


def test_strings_names_and_messages_are_bounded():
    with pytest.raises(JudgeError):
        _decoder()({"t": "str", "v": "x" * (wire.MAX_STRING_CHARS + 1)})
    with pytest.raises(JudgeError):
        _decoder()({"t": "object", "type": "T" * (wire.MAX_NAME + 1), "fields": []})
    with pytest.raises(JudgeError):
        _decoder()({"t": "object", "type": "T", "fields": [["f" * (wire.MAX_NAME + 1), NONE]]})
    assert isinstance(_student_exception({"type": "E", "mro": ["E"] * (wire.MAX_MRO + 1), "message": ""}), JudgeError)
    assert isinstance(_student_exception({"type": "E", "mro": [], "message": ["not", "text"]}), JudgeError)
    assert len(str(_student_exception({"type": "E", "mro": [], "message": "m" * 10 ** 5}))) == wire.MAX_TEXT


def test_the_classes_made_for_students_exceptions_are_bounded():
    for i in range(codec._MAX_EXCEPTION_CLASSES + 50):
        _student_exception({"type": f"Forged{i}Error", "mro": [], "message": ""})
    assert len(codec._EXCEPTION_CLASSES) <= codec._MAX_EXCEPTION_CLASSES


def test_a_drawing_is_bounded_and_holds_only_numbers_and_text():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        for drawn in ({"rectangles": [[0.0, 0.0, 1.0, 1.0]] * (wire.MAX_DRAWN + 1)},
                      {"lines": [[["1"], [2.0]]]}, {"title": ["not", "text"]}, {"script": "x"},
                      {"points": [[[0.0, 1.0]] * (wire.MAX_DRAWN + 1)]}):
            with pytest.raises(JudgeError):
                codec._replay_axes(ax, drawn)
    finally:
        plt.close("all")


def test_an_execute_reply_is_matched_never_parsed_as_python():
    """The execute request's answer comes back as the repr of base64 text. A forged reply holding a Python
    literal instead (``ast.literal_eval`` read it before) is refused unread: a tuple of 100,000 lists would
    have been 30 MB of syntax tree."""
    assert _Channel._execute_text(repr(base64.b64encode(b'{"value": {"t": "none"}}').decode())) == \
        '{"value": {"t": "none"}}'
    forged = "(" + "[]," * 100_000 + ")"
    result, peak = _peak(_Channel._execute_text, forged)
    assert isinstance(result, JudgeError) and peak < len(forged), peak
    for text in ("'not base64!'", "'QUJD' + 'REVG'", repr(base64.b64encode("é".encode()).decode())):
        with pytest.raises(JudgeError):
            _Channel._decode(_Channel._execute_text(text))


# ---------------------------------------------------------------------------------------------------
# Floods on the channels from the kernel, measured in the grading process
# ---------------------------------------------------------------------------------------------------

#: A kernel floods one channel from a thread while the grader reads nothing; the grader's process then
#: reports the growth of its peak resident memory (VmHWM). Bounded: the grader's client
#: (helpers.grading.execute.BoundedKernelClient and the manager's context); plain: jupyter_client's.
FLOOD_WORKER = r'''
import asyncio, json, os, sys, time
mode, channel, count, size, done, parts = (sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5],
                                           int(sys.argv[6]))
from jupyter_client.manager import AsyncKernelManager
from helpers.grading import execute

def hwm():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))

FLOOD = """
import threading
_k = get_ipython().kernel
_ident = _k._parent_ident["shell"]
_sockets = {{"iopub": (_k.iopub_socket, None), "stdin": (_k.stdin_socket, _ident),
            "shell": (_k.shell_stream, _ident), "control": (_k.control_stream, _ident)}}
_sock, _to = _sockets[{channel!r}]
def _flood():
    text = "x" * {size}
    if {parts} > 1:  # one message of many parts (ZeroMQ counts a message once in its queue, whatever its parts)
        _k.session.send(_sock, "stream", {{"name": "stdout", "text": ""}}, ident=_to,
                        buffers=[text.encode()] * {parts})
    for _ in range({count}):
        _k.session.send(_sock, "stream", {{"name": "stdout", "text": text}}, ident=_to)
    open({done!r}, "w").close()
threading.Thread(target=_flood, daemon=True).start()
"""

async def main():
    km = AsyncKernelManager()
    if mode == "bounded":  # what ResilientExecute.create_kernel_manager does
        km.client_class = "helpers.grading.execute.BoundedKernelClient"
        km.context = execute._context(execute._ControlContext)
        execute.BoundedKernelClient.max_growth_bytes = int(sys.argv[7])
    await km.start_kernel()
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=120)
    base = hwm()
    msg_id = kc.execute(FLOOD.format(channel=channel, count=count, size=size, done=done, parts=parts))
    while True:
        reply = await kc.get_shell_msg(timeout=120)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    start = time.monotonic()
    while not os.path.exists(done) and time.monotonic() - start < 60 and await km.is_alive():
        await asyncio.sleep(0.2)
    await asyncio.sleep(2)  # what is still in flight
    killed = bool(getattr(kc, "_guard", None) and kc._guard.tripped)
    print(json.dumps({"base": base, "peak": hwm(), "finished": os.path.exists(done), "killed": killed}))
    kc.stop_channels()
    await km.shutdown_kernel(now=True)

asyncio.run(main())
'''

#: the stated bound: messages ZeroMQ may queue for the grader (each channel's queue, plus one being received),
#: each of at most MAX_MESSAGE_BYTES, and 48 MiB for the allocator and what a read costs
FLOOD_BOUND = sum(n + 1 for n in (wire.QUEUED_MESSAGES["iopub"], wire.QUEUED_MESSAGES["shell"])) * \
    wire.MAX_MESSAGE_BYTES + 48 * 1024 * 1024


def _flood(tmp_path, mode: str, channel: str, count: int, size: int, parts: int = 1, guard: int = 2 ** 40,
           killed: bool = False) -> int:
    import subprocess
    import sys

    done = tmp_path / f"{mode}-{channel}-{size}.done"
    res = subprocess.run([sys.executable, "-c", FLOOD_WORKER, mode, channel, str(count), str(size), str(done),
                          str(parts), str(guard)],
                         capture_output=True, text=True, timeout=300, cwd=channel_root())
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["killed"] == killed and (killed or out["finished"]), out  # the kernel sent it all, or was stopped
    grown = out["peak"] - out["base"]
    print(f"{mode} {channel} {count} x {size} bytes, {parts} parts: the grader grew by {grown / 2 ** 20:.1f} MiB")
    return grown


def channel_root():
    return channel.Path(channel.__file__).resolve().parents[3]


MB = 1024 * 1024


@pytest.mark.parametrize("name, count, size", [
    ("stdin", 60, 8 * MB), ("control", 60, 8 * MB), ("shell", 60, 8 * MB), ("iopub", 60, 8 * MB),
    ("iopub", 40, 13 * MB),  # larger than MAX_MESSAGE_BYTES: refused at the socket
])
def test_a_flood_on_a_channel_stays_within_the_stated_bound(tmp_path, name, count, size):
    """About 500 MB sent on each channel while the grader reads nothing: the grading process grows by less
    than FLOOD_BOUND (stdin and control are not connected at all; shell and iopub keep a few messages)."""
    grown = _flood(tmp_path, "bounded", name, count, size)
    assert grown < FLOOD_BOUND, (name, grown / MB, FLOOD_BOUND / MB)


@pytest.mark.parametrize("name", ["stdin"])
def test_the_flood_measurement_sees_an_unbounded_client_grow(tmp_path, name):
    """The same flood against jupyter_client's own client (every channel connected, ZeroMQ's defaults):
    the grader keeps it (issue 36: 1.5 GB over stdin), more than FLOOD_BOUND and 100 MiB, so the measurement
    above can fail."""
    grown = _flood(tmp_path, "plain", name, 60, 8 * MB)
    assert grown > FLOOD_BOUND + 100 * MB, (name, grown / MB)


#: what the memory guard allows a test's grading process to grow by, before it kills the kernel
GUARD = 64 * MB


def test_a_message_of_many_parts_is_stopped_by_the_memory_guard(tmp_path):
    """ZeroMQ keeps every part of one message until its last arrives (its queue counts messages, not parts):
    one message of 300 parts of 2 MB (600 MB). With the guard's limit 64 MiB above the process's size the
    kernel is killed, and the process grows by at most that plus what arrives between two readings."""
    grown = _flood(tmp_path, "bounded", "iopub", 0, 2 * MB, parts=300, guard=GUARD, killed=True)
    assert grown < GUARD + 96 * MB, grown / MB


def test_the_memory_guard_counts_growth_not_what_the_process_already_held(monkeypatch):
    """A long-lived grading process may hold more than the guard's limit of its own (a pytest worker did, and
    killed every honest kernel it started): the guard measures how much the process grows while a kernel runs."""
    import threading

    from helpers.grading import execute

    killed = threading.Event()

    class Process:
        def kill(self):
            killed.set()

    km = type("KM", (), {"provisioner": type("P", (), {"process": Process()})()})()
    resident = [3 * 1024 ** 3]  # 3 GiB before the kernel starts: more than the limit below
    monkeypatch.setattr(execute, "_resident_bytes", lambda: resident[0])
    monkeypatch.setattr(execute, "MEMORY_EVERY", 0.001)
    guard = execute._MemoryGuard(km, 1024 ** 3)
    guard.start()
    resident[0] += 1024 ** 3 - 1  # grown by just under the limit: the kernel lives
    assert not killed.wait(0.2) and not guard.tripped
    resident[0] += 2  # past it
    assert killed.wait(10) and guard.tripped
    guard.stopping.set()


def test_a_destroyed_shared_context_is_replaced_for_the_next_kernel():
    """The contexts the grader's kernels share in a process (one per kind): one destroyed by a kernel manager's
    clean-up is not handed to the next kernel."""
    from helpers.grading import execute

    for kind in (execute._ControlContext, execute._BoundedContext):
        first = execute._context(kind)
        assert execute._context(kind) is first
        first.destroy(linger=0)
        second = execute._context(kind)
        assert second is not first and not second.closed and execute._context(kind) is second
