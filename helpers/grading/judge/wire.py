"""The judge's wire format: one table of node kinds and one set of limits, for both sides.

The grader's codec (:mod:`helpers.grading.judge.codec`) and the kernel's runtime
(:mod:`helpers.grading.judge.runtime`) read the same table: the runtime's text is sent to the kernel
after this module's text (:data:`helpers.grading.judge.channel.RUNTIME`), so the kernel never holds a
copy that could drift. This module imports nothing (it runs in the kernel too).

A value travels as a JSON tree of nodes ``{"t": kind, field: value, ...}``; arrays travel beside the
tree, as ``.npy`` bytes in base64, named by a key. :data:`KINDS` lists every kind, the direction it may
travel in and the type of each of its fields; a node of another kind, with another field or with a
field of another type is refused. No name the kernel sends is looked up or called: a Generator is its
bit generator's name, one of :data:`BIT_GENERATORS`, and its state, checked field by field.

The limits were chosen from the largest honest answer: every assignment's worked solution judged
through the judge (``tests/mutant_harness.py``, 229 answers of the 11 assignments, measured for
issue 36). Each limit is a multiple of that largest answer, and an answer beyond one is refused
before it is parsed, or cut by the runtime (which then says so in the answer).
"""

__all__ = ["MAX_ANSWER_CHARS", "STRUCTURE_EVERY", "STRUCTURE_SLACK", "MAX_NODES", "MAX_DEPTH", "MAX_STRING_CHARS",
           "MAX_ARRAY_BYTES", "MAX_TEXT", "MAX_NAME", "MAX_MRO", "MAX_DRAWN", "MAX_MESSAGE_BYTES", "QUEUED_MESSAGES",
           "BIT_GENERATORS", "ARRAY_KINDS", "KINDS", "structure_ok"]

#: Characters of one answer's JSON text, checked before it is parsed. The largest honest answer is
#: 36,471 (06_table1's rows); 512 KiB is 14 times that. The runtime answers no more: beyond it the
#: answer says "too large" (the cell is flagged for a person).
MAX_ANSWER_CHARS = 512 * 1024
#: Structure characters (``[``, ``{``, ``,``, ``:``) per character of an answer's text, counted
#: before parsing: at most one per :data:`STRUCTURE_EVERY` characters, plus :data:`STRUCTURE_SLACK`. The
#: densest honest answer has one per 4.75 characters (10_lexicon_weat), and no node of the format is
#: denser than one per 3.8 (``["a",{"t":"none"}]``, a record's field); a text denser than that, such as
#: ``[{},{},...]`` (one per 1.5), would make ``json.loads`` build 24 bytes of Python objects per
#: character and is refused unread.
STRUCTURE_EVERY = 3
#: Structure characters allowed on top of :data:`STRUCTURE_EVERY` (a short answer such as ``{}``).
STRUCTURE_SLACK = 64
#: Nodes of one answer. The largest honest answer has 1,260 (06_table1); 20,000 is 16 times that (and
#: fewer than :data:`MAX_ANSWER_CHARS` can hold: 40,000 ``{"t":"none"}`` nodes).
MAX_NODES = 20_000
#: Nesting depth of nodes (a list in a list is depth 2). The deepest honest answer is 4 nodes deep
#: (06_table1's rows); 20 is five times that.
MAX_DEPTH = 20
#: Characters of one string node, dictionary key or embedding word. The longest honest string has 50
#: characters (06_table1); 10,000 is 200 times that, and the runtime cuts longer strings to it.
MAX_STRING_CHARS = 10_000
#: Bytes of one array's data. The largest honest array is 20,000 bytes (11_enumerating_biases);
#: 256 KiB is 13 times that.
MAX_ARRAY_BYTES = 256 * 1024
#: Characters of an exception's message and of a drawing's labels, as the student's feedback shows them.
MAX_TEXT = 4000
#: Characters of a name: a class name, a field name, a function's name, a dtype.
MAX_NAME = 200
#: Class names in an exception's ancestry (its ``__mro__``).
MAX_MRO = 50
#: Rectangles, lines and point sets drawn on one Axes, and points in one line or set. The course's
#: figures draw at most a few dozen bars; 10,000 is far more.
MAX_DRAWN = 10_000
#: Bytes of one message on a channel from the kernel (ZeroMQ's ``ZMQ_MAXMSGSIZE``, set on every socket
#: the grader opens to a kernel: a larger message makes ZeroMQ drop the connection, and the message is
#: never received, nor anything the kernel sends on that channel until ZeroMQ connects again). The largest
#: honest message is 46,507 bytes (06_table1's answer in a comm message, where it is escaped once more: at
#: most twice its size) and the largest output message of a worked solution 0.17 MB (a figure of 07_wefat).
#: 12 MiB holds the largest answer the judge reads, and a line of 10 MB printed at once, which the output
#: budget then cuts and flags (``helpers.grading.execute.DEFAULT_MAX_CELL_OUTPUT_BYTES``,
#: ``tests/test_grading_damage.py``'s ``g-output``).
MAX_MESSAGE_BYTES = 12 * 1024 * 1024
#: Messages that ZeroMQ keeps for the grader per channel, not yet read (``ZMQ_RCVHWM``; ZeroMQ's
#: default is 1,000). iopub carries a cell's outputs and the judge's answers, read as they come (a
#: print is sent at most every 0.2 s, ipykernel's flush interval); shell carries the replies to the
#: grader's requests, one at a time. Beyond these the kernel's side drops its messages (what a flood from
#: the kernel costs the grader is at most this many messages of :data:`MAX_MESSAGE_BYTES` each).
QUEUED_MESSAGES = {"iopub": 16, "shell": 4, "control": 2}
#: The bit generators a ``numpy.random.Generator`` may travel with (``default_rng`` makes a PCG64).
BIT_GENERATORS = ("PCG64", "PCG64DXSM")
#: The kinds of a NumPy array's dtype that travel: numbers, bools, dates and fixed-width text; never
#: Python objects, never structured (void) records.
ARRAY_KINDS = "biufcmMUS"

#: Every node kind: the direction it travels in (``"both"``, ``"to kernel"``, ``"from kernel"``) and its
#: fields, each with its type (a trailing ``?``: the field may be absent). Types: ``bool``, ``int``,
#: ``number`` (int or float), ``str`` (at most :data:`MAX_STRING_CHARS`), ``name`` (at most
#: :data:`MAX_NAME`), ``text`` (any string, cut to :data:`MAX_TEXT` by whoever shows it), ``nodes`` (a
#: list of nodes), ``pairs`` (a list of ``[node, node]``), ``fields`` (a list of ``[name, node]``),
#: ``key`` (the name of an array beside the tree), ``dtype`` (``dtype.str`` of a bool, integer, float or
#: complex number), ``base64``, ``keys`` (a list of strings), ``bitgen`` (one of
#: :data:`BIT_GENERATORS`), ``rngstate`` (a bit generator's state, checked by the codec).
KINDS = {
    "none": ("both", {}),
    "bool": ("both", {"v": "bool"}),
    "int": ("both", {"v": "int"}),
    "float": ("both", {"v": "number"}),
    "str": ("both", {"v": "str"}),
    "list": ("both", {"v": "nodes"}),
    "tuple": ("both", {"v": "nodes"}),
    "set": ("both", {"v": "nodes"}),
    "frozenset": ("both", {"v": "nodes"}),
    "dict": ("both", {"v": "pairs"}),
    "array": ("both", {"k": "key", "ro": "bool?"}),
    "npscalar": ("both", {"d": "dtype?", "b": "base64?", "k": "key?"}),
    "rng": ("both", {"bit": "bitgen", "state": "rngstate"}),
    "kv": ("both", {"default": "bool?", "keys": "keys?", "k": "key?"}),
    "axes": ("both", {"i": "int?"}),
    "ref": ("to kernel", {"name": "name"}),
    "file": ("to kernel", {"text": "text", "name": "name"}),
    "object": ("from kernel", {"type": "name", "fields": "fields", "items": "nodes?"}),
    "callable": ("from kernel", {"type": "name", "name": "name"}),
    "unsupported": ("from kernel", {"type": "text"}),
}


def structure_ok(text):
    """Whether ``text`` has few enough JSON structure characters to be parsed (:data:`STRUCTURE_EVERY`).

    Counted before parsing, over the whole text (strings included), with ``str.count``: a few milliseconds for
    the largest answer.

    Parameters
    ----------
    text : str
        An answer's JSON text, not yet parsed.

    Returns
    -------
    bool
        True when it has at most one structure character per :data:`STRUCTURE_EVERY` characters
        (plus :data:`STRUCTURE_SLACK`).
    """
    count = text.count("[") + text.count("{") + text.count(",") + text.count(":")
    return count <= len(text) // STRUCTURE_EVERY + STRUCTURE_SLACK
