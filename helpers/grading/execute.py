"""Autograding that survives a bad cell: one hung or crashing cell costs that cell, not the notebook.

nbgrader's ``Execute`` preprocessor gives up on the whole submission when a cell never returns
and ignores the interrupt (a loop around a bare ``except:`` catches ``KeyboardInterrupt``:
"Timeout waiting for IOPub output") or when the kernel dies (``os._exit``, a crash in compiled
code): every cell scores 0 and nobody is told why. :class:`ResilientExecute` instead

1. gives that cell an error output saying in plain words what happened (so a test cell scores 0),
2. flags it for a person (:func:`helpers.grading.flags.add_flag`),
3. restarts the kernel and silently re-runs the cells that ran before it (not the bad one),
4. and goes on grading the rest of the notebook.

It also enforces the grader's budgets, each a setting of ``c.ResilientExecute`` (defaults measured
on the worked solutions, see each constant):

* **time per notebook** (:data:`DEFAULT_NOTEBOOK_TIMEOUT`): nbgrader's ``Execute.timeout`` limits
  one cell, so cells that each stop just under it could hold a grading worker for as long as
  their author likes. Each cell gets at most what is left of the notebook's budget; when it runs
  out the running cell is interrupted and every later cell gets an error saying so (a test cell
  scores 0), and the notebook is flagged;
* **output in bytes, while it is received** (:data:`DEFAULT_MAX_CELL_OUTPUT_BYTES` per cell,
  :data:`DEFAULT_MAX_OUTPUT_BYTES` per notebook): nbgrader's ``LimitOutput`` counts lines, after
  the fact, so a few 10 MB lines became a 300 MB graded notebook and feedback file. Output beyond
  a budget is not kept (a note says so, the cell is flagged); errors and the fact that a cell
  wrote to stderr are always kept, so a failing test cell still fails;
* **what is kept of an output** (:func:`helpers.grading.rendering.screen_output`): text and PNG/JPEG
  images only, so no HTML or JavaScript reaches the feedback or the formgrader;
* **figures**: a kernel draws each figure's PNG at the figure's own size (``InlineBackend.print_figure_kwargs``
  without ``bbox_inches="tight"``, which measures every artist first and crops to them: 14-17 % of the CPU time
  of 01_cosine's two figures); the course's figures use constrained layout, so nothing falls outside them;
* a notebook that filled its disk (the kernel's working folder and ``/tmp`` are size-limited
  tmpfs in the sandbox, ``c.Sandbox.disk_mb``; checked after its last cell) is flagged.

Every kernel runs in the bubblewrap sandbox (:class:`helpers.grading.sandbox.SandboxKernelManager`,
settings ``c.Sandbox``). Put it in place of nbgrader's ``Execute`` in
``Autograde.autograde_preprocessors`` (``nbgrader_config.py`` does; :func:`helpers.grading.course.configure`
does it for a configuration built in Python).
"""
from __future__ import annotations

import itertools
import math
import os
import stat
import threading
from contextlib import contextmanager
from time import monotonic

import zmq
import zmq.asyncio
from jupyter_client.asynchronous import AsyncKernelClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async, run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Integer, default

from .flags import add_flag, grade_id
from .judge import wire
from .judge.errors import KernelGarbled
from .judge.notebook import GARBLED, judge_for
from .rendering import screen_output
from .sandbox import SandboxError, SandboxKernelManager

__all__ = ["ResilientExecute", "BoundedKernelClient", "DEFAULT_NOTEBOOK_TIMEOUT", "DEFAULT_MAX_CELL_OUTPUT_BYTES",
           "DEFAULT_MAX_OUTPUT_BYTES"]

#: Seconds one notebook may run, kernel start and restarts included (0: no limit). The eleven
#: worked solutions take 12-40 s each in the sandbox on the 2-core reference machine while it was
#: shared (load average about 5; the slowest cell 12 s, loading the embedding); 300 s is 7.5 times
#: the slowest, and no number of cells just under the 60 s cell limit holds a worker longer.
DEFAULT_NOTEBOOK_TIMEOUT = 300
#: Bytes of output kept per cell (text, and images as base64). The largest output of a worked
#: solution's cell is 0.17 MB (a figure of 07_wefat); 2 MB leaves more than ten times that.
DEFAULT_MAX_CELL_OUTPUT_BYTES = 2_000_000
#: Bytes of output kept per notebook. The worked solutions produce 0.07-0.34 MB each in all; 5 MB
#: is about fifteen times the most, and bounds the graded notebook and its feedback page.
DEFAULT_MAX_OUTPUT_BYTES = 5_000_000
#: Longest error message and traceback line kept (characters); longer ones are cut.
ERROR_TEXT_CHARS = 4000
#: Longest text of a result kept when the output budget is spent (nbgrader reads a number there).
RESULT_TEXT_CHARS = 1000

DIED = ("The Python kernel running this notebook stopped while this cell ran (for example `os._exit()` or "
        "`sys.exit()` inside a function, a crash in compiled code, or running out of memory). The grader started "
        "a new kernel, re-ran the cells above this one and went on with the next cell. This cell did not "
        "finish, so it scored 0, and it is flagged for a person to look at.")
HUNG = ("This cell was still running after {timeout} s and did not stop when interrupted (a loop that catches "
        "every exception with a bare `except:` also catches the interrupt). The grader stopped the kernel, "
        "started a new one, re-ran the cells above this one and went on with the next cell. This cell scored 0, "
        "and it is flagged for a person to look at.")
SLOW = ("This cell was still running after {timeout} s and was interrupted, so it scored 0. It is flagged for a "
        "person to look at (an endless loop, or work far slower than needed).")
NOT_RUN = ("Not run: the kernel failed {n} times in this notebook, so the grader stopped running its cells. "
           "This cell scored 0; the notebook is flagged for a person to look at.")
OUT_OF_TIME = ("Not run: this notebook used up its time budget ({budget} s for the whole notebook), so the grader "
               "stopped running its cells. This cell scored 0; the notebook is flagged for a person to look at.")
STOPPED = ("This cell was still running when the notebook's time budget ({budget} s for the whole notebook) ran "
           "out, and was interrupted. It scored 0, the cells after it were not run, and the notebook is flagged "
           "for a person to look at.")
TRUNCATED = ("[output truncated: the grader keeps at most {cell:,} bytes of output per cell and {notebook:,} per "
             "notebook]")
TOO_MUCH = ("printed more output than the grader keeps ({cell:,} bytes per cell, {notebook:,} per notebook); the rest "
            "was not kept")
DISK_FULL = ("filled, or tried to fill, the disk space the grader gives a notebook ({mb} MiB for its working folder "
             "and as much for /tmp, Sandbox.disk_mb); what did not fit was not written, and none of it is kept")
#: What an error says when a write did not fit (the OS; NumPy checks the free space first).
DISK_ERRORS = ("No space left on device", "[Errno 28]", "Not enough free space to write")
#: Evaluated in the kernel after the last cell: the used share of its working folder and of /tmp.
DISK_PROBE = ("[round(1 - s.f_bavail / s.f_blocks, 3) if s.f_blocks else 0.0 "
              "for s in map(__import__('os').statvfs, ('.', '/tmp'))]")
DROPPED = ("This cell sent more output at once than the grader receives (one message of more than {mb} MiB): it was "
           "not kept, nor what the kernel sent right after it. The grader stopped the kernel, started a new one, "
           "re-ran the cells above this one and went on with the next cell. This cell scored 0, and it is flagged "
           "for a person to look at.")
ACTIVE = ("displayed HTML or JavaScript that a browser would run (a script, an event handler); the grader kept "
          "only its text")


def _error(ename: str, text: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=text, traceback=[f"{ename}: {text}"])


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit:,} characters cut]"


def _cut_bytes(text: str, limit: int) -> str:
    data = text.encode("utf-8", "replace")
    return text if len(data) <= limit else data[:max(0, limit)].decode("utf-8", "ignore")


def _size(msg_type: str, content: dict) -> int:
    if msg_type == "stream":
        return len(content["text"].encode("utf-8", "replace"))
    if msg_type == "error":
        return sum(len(t) for t in [content["ename"], content["evalue"], *content["traceback"]])
    return sum(len(v) for v in content.get("data", {}).values())


# ---------------------------------------------------------------------------------------------------
# The channels from the kernel, bounded at the socket
# ---------------------------------------------------------------------------------------------------

#: The most bytes of one message on a channel of the kernel manager's own (its control socket, which
#: carries only the short replies to a shutdown or an interrupt, and which nothing reads).
MAX_CONTROL_MESSAGE_BYTES = 64 * 1024


class _BoundedContext(zmq.asyncio.Context):
    """A ZeroMQ context whose sockets refuse messages larger than :data:`max_bytes` (``ZMQ_MAXMSGSIZE``: ZeroMQ drops
    the connection instead, and the message is never received) and keep at most ``queued[socket type]`` messages
    unread (``ZMQ_RCVHWM``; beyond them the kernel's side drops its messages). Set before the socket connects."""

    max_bytes = wire.MAX_MESSAGE_BYTES
    queued = {zmq.SUB: wire.QUEUED_MESSAGES["iopub"], zmq.DEALER: wire.QUEUED_MESSAGES["shell"]}

    def socket(self, socket_type, *args, **kwargs):  # noqa: D102 - zmq.Context.socket, with the limits set
        sock = super().socket(socket_type, *args, **kwargs)
        sock.setsockopt(zmq.MAXMSGSIZE, self.max_bytes)
        sock.setsockopt(zmq.RCVHWM, self.queued.get(socket_type, wire.QUEUED_MESSAGES["control"]))
        return sock


class _ControlContext(_BoundedContext):
    """The kernel manager's context: its control socket gets small messages and a short queue."""

    max_bytes = MAX_CONTROL_MESSAGE_BYTES
    queued: dict = {}


_CONTEXTS: dict = {}
#: numbers the inproc addresses of the clients' iopub monitors (a client's id() is reused after it is collected)
_MONITORS = itertools.count()

#: How much a grading process's resident memory may grow while one of its kernels runs (from the start of the
#: kernel's channels): above it the kernel is killed (its cell scores 0 and is flagged, a new kernel runs the
#: rest). ZeroMQ bounds each part of a message and the messages it queues, but keeps every part of one message
#: until its last arrives: a kernel sending one message of many parts is stopped here. Growth, not the whole
#: process: a long-lived process (a pytest worker, a grading worker after many submissions) may hold more than
#: this of its own, and an honest kernel must not pay for it. A grading process of 01_cosine peaks at 362 MiB
#: in all (BENCHMARKS.md, issue 36); an honest submission grows it by far less than 2 GiB.
MAX_GROWTH_BYTES = 2 * 1024 ** 3
#: Seconds between two readings of the process's memory (a reading is a read of /proc/self/statm).
MEMORY_EVERY = 0.02


def _resident_bytes() -> int:
    with open("/proc/self/statm", "rb") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _MemoryGuard(threading.Thread):
    """Kills the kernel of ``km`` when this process's resident memory grows by more than ``limit`` from what it
    was when the guard was made (see MAX_GROWTH_BYTES)."""

    def __init__(self, km, limit: int):
        super().__init__(name="kernel-memory-guard", daemon=True)
        self.km, self.tripped = km, False
        self.limit = _resident_bytes() + limit
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(MEMORY_EVERY):
            if _resident_bytes() > self.limit:
                self.tripped = True
                process = getattr(getattr(self.km, "provisioner", None), "process", None)
                if process is not None:
                    process.kill()  # the connection closes: ZeroMQ drops the message it was receiving
                return


def _context(kind: type) -> zmq.asyncio.Context:
    """This process's context of ``kind`` (one per process: a context made before a fork is not used after it)."""
    key = (kind, os.getpid())
    # a kernel manager that made its own context before ours was set destroys the context it holds at its
    # shutdown (jupyter_client's cleanup): the next kernel of the process then gets a new one, not a dead one
    # (a dead context left every later kernel of a process unanswered: "Kernel didn't respond")
    if key not in _CONTEXTS or _CONTEXTS[key].closed:
        _CONTEXTS[key] = kind()
    return _CONTEXTS[key]


class BoundedKernelClient(AsyncKernelClient):  # numpydoc ignore=PR01,PR02
    """The grader's client of a kernel: only the shell and iopub channels, each bounded at its socket.

    The stdin, control and heartbeat channels are never connected: nothing of the grader reads them, so a
    kernel that writes to them reaches no socket of the grader (nbclient's client connected all five, and
    ZeroMQ kept whatever the kernel sent on stdin: 1.5 GB in issue 36). Shell and iopub refuse a message over
    :data:`helpers.grading.judge.wire.MAX_MESSAGE_BYTES` and queue at most
    :data:`helpers.grading.judge.wire.QUEUED_MESSAGES` unread (:class:`_BoundedContext`).

    Parameters
    ----------
    **kwargs : dict
        The options of a kernel client (traitlets), as ``AsyncKernelClient`` takes them.
    """

    @default("context")
    def _bounded_context_default(self):
        return _context(_BoundedContext)  # shared by the process's clients, never destroyed by one of them

    #: how much this process's resident memory may grow while the channels run (MAX_GROWTH_BYTES; tests lower it)
    max_growth_bytes = MAX_GROWTH_BYTES
    _guard = None
    _iopub_events = None

    def dropped_messages(self) -> int:
        """Count the iopub messages ZeroMQ refused since the last call (each larger than its limit).

        ZeroMQ drops the connection instead of receiving such a message, and connects again: the message and
        what the kernel sent in between are lost, so the executor says so in the cell and flags it.

        Returns
        -------
        int
            The connections dropped on iopub since the last call.
        """
        count = 0
        while self._iopub_events is not None and self._iopub_events.poll(0):
            self._iopub_events.recv_multipart()
            count += 1
        return count

    def start_channels(self, shell: bool = True, iopub: bool = True, stdin: bool = False, hb: bool = False,
                       control: bool = False) -> None:
        """Start the shell and iopub channels only (the others stay unconnected unless asked for).

        Also starts the guard of this process's memory (:data:`MAX_GROWTH_BYTES`), which kills the kernel
        when a message of many parts fills it.

        Parameters
        ----------
        shell, iopub, stdin, hb, control : bool
            Which channels to start.
        """
        super().start_channels(shell=shell, iopub=iopub, stdin=stdin, hb=hb, control=control)
        if iopub and self._iopub_events is None:  # ZeroMQ reports each connection it drops (a message too large)
            address = f"inproc://weat-iopub-events-{os.getpid()}-{next(_MONITORS)}"
            self.iopub_channel.socket.monitor(address, zmq.EVENT_DISCONNECTED)
            self._iopub_events = zmq.Context.shadow(self.context.underlying).socket(zmq.PAIR)
            # no limit on the events queued (a few dozen bytes each, one per reconnection, read after every cell):
            # ZeroMQ's I/O thread waits on a full queue (stop_channels)
            self._iopub_events.setsockopt(zmq.RCVHWM, 0)
            self._iopub_events.connect(address)
        if self._guard is None and os.path.exists("/proc/self/statm"):
            self._guard = _MemoryGuard(self.parent, self.max_growth_bytes)
            self._guard.start()

    def stop_channels(self) -> None:
        """Stop the channels that were started, and the guard of this process's memory.

        jupyter_client's ``stop_channels`` asks each channel whether it is alive, which connects the
        channels that were never started; this one looks only at those that were.
        """
        if self._guard is not None:
            self._guard.stopping.set()
            self._guard = None
        if self._iopub_events is not None:
            # the monitor first, then its reader: ZeroMQ's I/O thread sends each event with a blocking send, so an
            # event with no reader (the kernel going away while the iopub socket is being closed) blocked that thread
            # for good, and with it every socket of the process's shared context: every later kernel of the process
            # "didn't respond in 60 seconds" (tests/test_sandbox.py, test_letting_go_of_a_kernel_never_blocks_...)
            socket = self._iopub_channel.socket if self._iopub_channel is not None else None
            if socket is not None and not socket.closed:
                socket.disable_monitor()
            self._iopub_events.close(linger=0)
            self._iopub_events = None
        for channel in (self._shell_channel, self._iopub_channel, self._stdin_channel, self._hb_channel,
                        self._control_channel):
            if channel is not None and channel.is_alive():
                channel.stop()


class ResilientExecute(Execute):
    """Run a notebook like nbgrader's ``Execute``, with sandboxed kernels and recovery from hung or dead kernels.

    Kernels are started by :class:`helpers.grading.sandbox.SandboxKernelManager` and read through
    :class:`BoundedKernelClient`. A cell that kills or hangs its kernel gets an error and a flag, and a
    new kernel re-runs the cells that completed before the next cell runs (at most ``max_restarts``
    times); the notebook has a time budget (``notebook_timeout``) and output budgets
    (``max_cell_output_bytes``, ``max_output_bytes``); each output is screened
    (:func:`helpers.grading.rendering.screen_output`). The assignment's hidden tests are judged cell by
    cell (:mod:`helpers.grading.judge`).

    Parameters
    ----------
    **kw : dict
        The preprocessor's options (traitlets); ``kernel_manager_class`` defaults to
        :class:`helpers.grading.sandbox.SandboxKernelManager`.
    """

    max_restarts = Integer(5, help="Kernel restarts allowed per notebook; after that the remaining cells "
                                   "are not run (each gets an error, so a test cell scores 0) and the "
                                   "notebook is flagged.").tag(config=True)
    notebook_timeout = Integer(DEFAULT_NOTEBOOK_TIMEOUT, help="Seconds a whole notebook may run (kernel start and "
                               "restarts included); each cell gets at most what is left. When it runs out, the "
                               "running cell is interrupted, the remaining cells are not run (each gets an error) "
                               "and the notebook is flagged. 0: no limit.").tag(config=True)
    max_cell_output_bytes = Integer(DEFAULT_MAX_CELL_OUTPUT_BYTES, help="Bytes of output kept per cell, counted "
                                    "as received (text, images as base64); the rest is dropped with a note and the "
                                    "cell is flagged. Errors and stderr are always kept. 0: no limit.").tag(config=True)
    max_output_bytes = Integer(DEFAULT_MAX_OUTPUT_BYTES, help="Bytes of output kept per notebook, counted as "
                               "received (see max_cell_output_bytes). 0: no limit.").tag(config=True)

    @default("iopub_timeout")
    def _iopub_timeout_default(self):
        # after a cell's reply, how long its last outputs may take to arrive (nbclient's 4 s is
        # short for a few MB of output on a busy grading machine; honest cells need far less)
        return 15

    @default("extra_arguments")
    def _extra_arguments_default(self):
        # figures as PNGs of the figure's own size, not cropped to their artists (module docstring, "figures")
        return ["--InlineBackend.print_figure_kwargs={'bbox_inches': None}"]

    def __init__(self, **kw):
        kw.setdefault("kernel_manager_class", SandboxKernelManager)
        super().__init__(**kw)

    # -- per notebook ---------------------------------------------------------------------------

    def preprocess(self, nb, resources=None, km=None):
        """Run every cell of ``nb``, recovering from dead or hung kernels; then clean its folder.

        Each run starts the notebook's time budget and output counts afresh and makes the judge of the
        assignment's hidden tests (:func:`helpers.grading.judge.notebook.judge_for`; None when it is switched
        off). Afterwards symbolic links and special files the kernel left in the notebook's folder are
        removed, with a flag.

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The notebook to run.
        resources : dict, optional
            The resources nbconvert passes; ``resources["metadata"]["path"]`` is the notebook's folder.
        km : jupyter_client.KernelManager, optional
            A kernel manager to use instead of a new one.

        Returns
        -------
        tuple
            ``(nb, resources)``, with the outputs.

        Raises
        ------
        SandboxError
            The sandbox cannot run the kernel (logged first).
        """
        self._ran: list[int] = []       # indices of the code cells that completed, in order
        self._restarts = 0
        self._stopped: str | None = None
        self._t0 = monotonic()          # the notebook's time budget runs from here
        self._out_total = 0             # output bytes received in this notebook
        self._out_cell: dict = {}       # cell index -> output bytes received
        self._noted: set = set()        # (cell index, kind) already given a truncation note or flag
        workdir = ((resources or {}).get("metadata") or {}).get("path")
        # the hidden tests of this assignment, judged in this process (helpers.grading.judge); None if switched off
        self.judge = judge_for(self, nb, resources)
        try:
            return super().preprocess(nb, resources, km)
        except SandboxError as exc:
            self.log.error("%s", exc)
            raise
        finally:
            if workdir:
                self._clean_workdir(nb, workdir)

    def preprocess_cell(self, cell, resources, index):
        """Run one cell; a kernel that dies, hangs or sends what the grader cannot read costs this cell only.

        A code cell is not run when the notebook's time budget is spent or the kernel has failed too
        often: it gets a ``NotRun`` error. A cell whose kernel died, hung or sent an unreadable message
        gets an error output and a flag, and a new kernel replays the cells that completed. A cell that
        completed is judged (its hidden tests) when there is a judge.

        Parameters
        ----------
        cell : nbformat.NotebookNode
            The cell.
        resources : dict
            The resources nbconvert passes.
        index : int
            The cell's position in the notebook.

        Returns
        -------
        tuple
            ``(cell, resources)``.

        Raises
        ------
        SandboxError
            The sandbox cannot run a kernel.
        CellExecutionError
            As nbclient raises it (``allow_errors`` off).
        """
        if cell.cell_type != "code" or not cell.source.strip():
            return super().preprocess_cell(cell, resources, index)
        if not self._stopped and self._out_of_time():
            self._stop_for_time()
        if self._stopped:
            cell.outputs = [_error("NotRun", self._stopped)]
            return cell, resources
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
            self._note_dropped(cell, index)
        except DeadKernelError:
            self._recover(cell, index, "KernelDied", DIED)
        except CellTimeoutError:
            if self._note_dropped(cell, index):  # its last messages (the kernel's "idle" too) never arrived
                self._recover(cell, index, "OutputNotReceived", DROPPED.format(mb=wire.MAX_MESSAGE_BYTES // 2 ** 20))
            else:
                self._recover(cell, index, "CellTimeoutError", HUNG.format(timeout=self.timeout))
        except (SandboxError, CellExecutionError):
            raise
        except Exception as exc:  # noqa: BLE001 - e.g. "Invalid Signature": a message the grader cannot read
            self._recover(cell, index, "KernelMessageError", GARBLED.format(detail=KernelGarbled.from_error(exc)))
        else:
            self._ran.append(index)
            if self.judge is not None:
                self.judge.judge_cell(self, cell, index)
        return cell, resources

    # -- the time budget ------------------------------------------------------------------------

    def _remaining(self) -> float | None:
        """Seconds left of the notebook's time budget (None: no budget)."""
        if not self.notebook_timeout or getattr(self, "_t0", None) is None:
            return None
        return self.notebook_timeout - (monotonic() - self._t0)

    def time_left(self) -> float | None:
        """Tell how many seconds are left of this notebook's time budget.

        Work done in the kernel on the grader's behalf (the judge's calls) should not take longer.

        Returns
        -------
        float or None
            The seconds left (negative once spent), or None without a budget or before the notebook started.
        """
        return self._remaining()

    def _out_of_time(self) -> bool:
        left = self._remaining()
        return left is not None and left <= 0.5

    def _stop_for_time(self) -> None:
        self._stopped = OUT_OF_TIME.format(budget=self.notebook_timeout)
        add_flag(self.nb, None, self._stopped)

    def _get_timeout(self, cell):
        """The cell's timeout: ``Execute.timeout``, or what is left of the notebook's budget if less."""
        timeout = super()._get_timeout(cell)
        left = self._remaining()
        if left is None:
            return timeout
        left = max(1, math.ceil(left))
        return left if timeout is None or left < timeout else timeout

    # -- outputs, as they are received ----------------------------------------------------------

    def _note_dropped(self, cell, index) -> bool:
        """Say in the cell, and flag, that ZeroMQ refused an output message of it (larger than the channel's limit).

        True when it did."""
        dropped = getattr(self.kc, "dropped_messages", None)
        if dropped is None or not dropped():
            return False
        note = TRUNCATED.format(cell=self.max_cell_output_bytes, notebook=self.max_output_bytes)
        cell.setdefault("outputs", []).append(NotebookNode(output_type="stream", name="stdout", text=note + "\n"))
        if (index, "flag") not in self._noted:
            self._noted.add((index, "flag"))
            self._flag(cell, index, TOO_MUCH.format(cell=self.max_cell_output_bytes, notebook=self.max_output_bytes))
        return True

    def _screen(self, msg: dict, cell_index) -> dict | None:
        """The message with only what may be kept (:func:`helpers.grading.rendering.screen_output`), within
        the output budgets; None to drop it."""
        msg_type = msg.get("msg_type") or msg.get("header", {}).get("msg_type")
        if msg_type not in ("stream", "display_data", "update_display_data", "execute_result", "error"):
            return None
        content, dropped = screen_output(msg_type, msg.get("content") or {})
        cell = self.nb.cells[cell_index] if isinstance(cell_index, int) and cell_index < len(self.nb.cells) else None
        if any(d.endswith("(active)") for d in dropped) and (cell_index, "active") not in self._noted:
            self._noted.add((cell_index, "active"))
            self._flag(cell, cell_index, ACTIVE)
        if content is None:
            return None
        if msg_type == "error":  # always kept (a failing cell must fail), always short
            content["evalue"] = _cut(content["evalue"], ERROR_TEXT_CHARS)
            content["traceback"] = [_cut(t, ERROR_TEXT_CHARS) for t in content["traceback"][-100:]]
        size = _size(msg_type, content)
        left = self._left(cell_index)
        self._out_total += size
        self._out_cell[cell_index] = self._out_cell.get(cell_index, 0) + size
        if size > left and msg_type != "error":
            if (cell_index, "flag") not in self._noted:
                self._noted.add((cell_index, "flag"))
                self._flag(cell, cell_index, TOO_MUCH.format(cell=self.max_cell_output_bytes,
                                                             notebook=self.max_output_bytes))
            content = self._truncate(msg_type, content, max(0, left), cell_index)
            if content is None:
                return None
        return {**msg, "msg_type": msg_type, "content": content}

    def _left(self, cell_index) -> float:
        left = math.inf
        if self.max_cell_output_bytes:
            left = min(left, self.max_cell_output_bytes - self._out_cell.get(cell_index, 0))
        if self.max_output_bytes:
            left = min(left, self.max_output_bytes - self._out_total)
        return left

    def _truncate(self, msg_type: str, content: dict, left: int, cell_index) -> dict | None:
        """What is kept of an output that does not fit: the start of a stream and one note per
        stream (so a cell that wrote to stderr still did), the short text of a result; no display."""
        note = TRUNCATED.format(cell=self.max_cell_output_bytes, notebook=self.max_output_bytes)
        if msg_type == "stream":
            key = (cell_index, "note-" + content["name"])
            if key in self._noted:
                return None
            self._noted.add(key)
            return {"name": content["name"], "text": _cut_bytes(content["text"], left) + "\n" + note + "\n"}
        if msg_type == "execute_result":
            text = content["data"].get("text/plain", "")
            return {**content, "data": {"text/plain": _cut(text, RESULT_TEXT_CHARS)}}
        return None

    def output(self, outs, msg, display_id, cell_index):
        """Keep an output message of a cell, screened and within the output budgets.

        Only streams, displays, results and errors are kept, with only what may be kept
        (:func:`helpers.grading.rendering.screen_output`; active HTML flags the cell); an output beyond
        a budget is cut, once, with a note and a flag. Errors are always kept, cut short.

        Parameters
        ----------
        outs : list
            The cell's outputs so far.
        msg : dict
            The message from the kernel.
        display_id : str or None
            The display's id.
        cell_index : int
            The cell's position.

        Returns
        -------
        nbformat.NotebookNode or None
            The output added, as nbclient's ``output``; None when nothing is kept.
        """
        msg = self._screen(msg, cell_index)
        if msg is None:
            return None
        return super().output(outs, msg, display_id, cell_index)

    def _update_display_id(self, display_id, msg):
        cells = list(self._display_id_map.get(display_id, {}))
        msg = self._screen(msg, cells[0] if cells else None)
        if msg is not None:
            super()._update_display_id(display_id, msg)

    def handle_comm_msg(self, outs, msg, cell_index):
        """Ignore a comm message (widgets): no widget state or output widget is kept.

        nbclient would keep a widget's state in the notebook and show output widgets' outputs.

        Parameters
        ----------
        outs : list
            The cell's outputs so far.
        msg : dict
            The comm message.
        cell_index : int
            The cell's position.

        Returns
        -------
        None
            Always.
        """
        return None

    @contextmanager
    def setup_kernel(self, **kwargs):
        """Start the kernel for the duration, as nbclient does; afterwards check its disk.

        When the sandbox has a disk budget, the kernel's working folder and /tmp are measured after the
        last cell (:data:`DISK_PROBE`), and a share of 98 % or more flags the notebook.

        Parameters
        ----------
        **kwargs : dict
            As for nbclient's ``setup_kernel``.

        Yields
        ------
        None
            Control, with the kernel running.
        """
        with super().setup_kernel(**kwargs):
            try:
                yield
            finally:
                self._check_disk()

    def _check_disk(self) -> None:
        """Flag the notebook when its kernel's folders are (nearly) full after its last cell."""
        import ast

        from .sandbox import Sandbox

        settings = Sandbox(config=self.config)
        if not (settings.enabled and settings.disk_mb) or self.kc is None or self._stopped:
            return
        try:
            msg_id = self.kc.execute("", silent=True, store_history=False, user_expressions={"disk": DISK_PROBE})
            reply = self.wait_for_reply(msg_id)
            text = reply["content"]["user_expressions"]["disk"]["data"]["text/plain"]
            if not isinstance(text, str) or len(text) > 100:  # two numbers: a forged reply is not parsed
                raise ValueError("not the disk probe's answer")
            used = ast.literal_eval(text)
        except Exception as exc:  # noqa: BLE001 - a dead or unanswering kernel: nothing to measure
            self.log.debug("Disk check skipped: %s", exc)
            return
        if isinstance(used, list) and any(isinstance(u, float) and u >= 0.98 for u in used):
            add_flag(self.nb, None, "The notebook " + DISK_FULL.format(mb=settings.disk_mb) + ".")

    def _disk_mb(self) -> int:
        from .sandbox import Sandbox

        settings = Sandbox(config=self.config)
        return settings.disk_mb if settings.enabled else 0

    def create_kernel_manager(self):
        """Make nbclient's kernel manager, with the grader's bounded channels and the judge's overlays.

        Its clients are :class:`BoundedKernelClient`, its own (control) socket takes only small
        messages, and with a judge the course package without this assignment's reference
        implementations is bound over the package in the sandbox.

        Returns
        -------
        jupyter_client.KernelManager
            The kernel manager (a :class:`helpers.grading.sandbox.SandboxKernelManager` by default).
        """
        km = super().create_kernel_manager()
        # the channels from the kernel, bounded at their sockets (BoundedKernelClient; module "channels" above)
        km.client_class = f"{__name__}.BoundedKernelClient"
        km.context = _context(_ControlContext)
        if self.judge is not None:  # the course package without this assignment's reference implementations
            km.overlays = self.judge.overlays
        return km

    def on_cell_executed(self, **kwargs):
        """Cut a cell's error short, and flag a full disk or a timeout.

        nbclient's hook after a cell's reply. An error output's message and traceback lines are cut to
        :data:`ERROR_TEXT_CHARS` (the last 100 lines kept); an error that says the disk was full flags
        the cell; a cell interrupted at its timeout is flagged, or, when the notebook's budget ran out,
        gets an error and stops the notebook.

        Parameters
        ----------
        **kwargs : dict
            The ``cell``, ``cell_index`` and ``execute_reply`` nbclient passes.
        """
        super().on_cell_executed(**kwargs)
        cell, index = kwargs["cell"], kwargs.get("cell_index")
        for out in cell.get("outputs", []):  # nbgrader adds the reply's error as it came: keep it short
            if out.get("output_type") == "error":
                out["evalue"] = _cut(str(out.get("evalue", "")), ERROR_TEXT_CHARS)
                out["traceback"] = [_cut(str(t), ERROR_TEXT_CHARS) for t in list(out.get("traceback") or [])[-100:]]
                if any(m in out["evalue"] for m in DISK_ERRORS):
                    self._flag(cell, index, DISK_FULL.format(mb=self._disk_mb()))
        content = kwargs["execute_reply"].get("content", {})
        if content.get("status") == "error" and content.get("ename") == self.error_on_timeout.get("ename"):
            if self._out_of_time():
                cell.outputs = list(cell.get("outputs", [])) + [_error("CellTimeoutError",
                                                                       STOPPED.format(budget=self.notebook_timeout))]
                self._stop_for_time()
            else:
                self._flag(cell, index, SLOW.format(timeout=self.timeout))

    # -- recovery -------------------------------------------------------------------------------

    def _flag(self, cell, index, reason: str) -> None:
        gid = grade_id(cell) if cell is not None else None
        add_flag(self.nb, gid, reason if gid else f"Cell {index} (no grade_id): {reason}")

    def _recover(self, cell, index: int, ename: str, text: str) -> None:
        self.log.warning("Cell %s: %s", index, ename)
        cell.outputs = list(cell.get("outputs", [])) + [_error(ename, text)]
        cell.execution_count = None
        self._flag(cell, index, text)
        if self._out_of_time():
            self._stop_for_time()
            return
        if self._restarts >= self.max_restarts:
            self._give_up()
            return
        self._restarts += 1
        try:
            self._restart_and_replay()
        except Exception as exc:  # the new kernel failed too: stop here, flagged
            self.log.warning("Restarting the kernel failed: %s", exc)
            self._give_up(f" The last restart failed: {exc}")

    def _give_up(self, detail: str = "") -> None:
        self._stopped = NOT_RUN.format(n=self._restarts + 1) + detail
        add_flag(self.nb, None, self._stopped)

    async def _async_restart_and_replay(self) -> None:
        """A fresh kernel, with the cells that completed before re-run silently (outputs dropped)."""
        if self.kc is not None:
            self.kc.stop_channels()
            self.kc = None
        if self.km is not None:
            try:
                await ensure_async(self.km.shutdown_kernel(now=True))
            except Exception as exc:  # already dead
                self.log.debug("Shutting down the failed kernel: %s", exc)
        self.km = self.create_kernel_manager()
        await self.async_start_new_kernel()
        await self.async_start_new_kernel_client()
        for i in self._ran:
            cell = self.nb.cells[i]
            msg_id = await ensure_async(self.kc.execute(cell.source, silent=True, store_history=False,
                                                        allow_stdin=False))
            reply = await self.async_wait_for_reply(msg_id, cell)
            if reply is None:
                raise RuntimeError(f"re-running cell {i} timed out")

    _restart_and_replay = run_sync(_async_restart_and_replay)

    # -- the notebook's folder ----------------------------------------------------------------

    def _clean_workdir(self, nb, workdir) -> None:
        """Remove symbolic links, pipes and other special files the notebook left in its folder.

        The kernel may write its own folder; nbgrader then writes the graded notebook there and
        the feedback reads it. A symbolic link named like the notebook would make the grader write
        through it to a file outside, and a pipe would block it: neither is left in place.
        """
        for dirpath, dirnames, filenames in os.walk(workdir):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                mode = os.lstat(path).st_mode
                if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    os.unlink(path)
                    add_flag(nb, None, f"The notebook left a symbolic link or special file in its folder "
                                       f"({os.path.relpath(path, workdir)}); the grader removed it.")
