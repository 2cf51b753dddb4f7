"""Warm kernels: sandboxed Jupyter kernels forked from a template that has already imported the course's modules.

A fresh kernel spends most of its CPU before the notebook's first line: starting Python and ipykernel,
importing gensim (with SciPy's stats module) and matplotlib, loading the embedding. Each grading
process therefore starts, in the same bubblewrap sandbox a plain kernel gets, one **template**
(:mod:`helpers.grading.warm_template`) that does all that once and then forks one kernel at a time.
jupyter_client sees an ordinary kernel: :class:`WarmKernel` stands in for the ``subprocess.Popen`` of
a plain kernel (poll, wait, kill), the connection file and the sockets are the same.

What a kernel of a template shares with the kernels before it is only what the template was before
any of them ran: after each kernel the template kills every process left in its sandbox and empties
every writable place, and it refuses to go on (the grader then starts plain kernels) when it cannot
or when its own state was changed from outside (see :mod:`helpers.grading.warm_template`). One
template serves one grading process and one sandbox configuration (an assignment's stripped package,
limits, environment); another configuration closes it and starts its own.

A template that fails to start, does not answer, exits or reports itself tainted is never used again
by that process: kernels are then started plainly, as before, with the same sandbox. A template that
stops answering (stopped by a signal, say) is found out at the next request it does not answer within
:data:`ANSWER_TIMEOUT`: a fork, or the kill that ends its kernel (each waits for the answer). Its
"ready" message names every module it failed to import. Each such event is logged as a warning and
kept for the run's report (:func:`take_notes`).

The template's sandbox shares nothing writable with the grader: the spool (the kernels' connection
files) is bound read-only, and the kernels' sockets are in a small tmpfs of the sandbox at
:func:`sockets_dir`, which the grader reaches through ``/proc/<sandbox>/root`` (:func:`outside`).
"""
from __future__ import annotations

import atexit
import json
import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

__all__ = ["Template", "TemplateError", "WarmKernel", "spool_dir", "sockets_dir", "outside", "sandbox_pid",
           "stderr_pipe", "note", "take_notes", "template_for", "close_templates", "sandbox_cpu", "WORKDIR",
           "READY_TIMEOUT", "ANSWER_TIMEOUT", "STDERR_BYTES"]

log = logging.getLogger(__name__)

#: The forked kernels' working folder inside the sandbox (a tmpfs of its own, emptied between kernels).
WORKDIR = "/tmp/work"

#: Seconds a template may take to import its modules and load the embedding (about 3-6 s on the 2-core machine).
READY_TIMEOUT = 120.0

#: Seconds a template may take to answer a request (a fork, the cleaning after a kernel). A fork answers
#: in well under a second, the cleaning after a kernel in about 0.1 s (2-core machine); a template that
#: takes longer is taken to have stopped.
ANSWER_TIMEOUT = 30.0

#: Seconds bubblewrap may take to report its sandbox's process id (--info-fd; it does so at once).
INFO_TIMEOUT = 30.0

#: Bytes of a Unix socket's path, with its final NUL (``sun_path`` of ``sockaddr_un`` on Linux).
SOCKET_PATH_MAX = 108

#: Bytes of a sandbox's stderr (bubblewrap's errors, a kernel's start-up traceback; a kernel's own prints go
#: to the notebook) passed on to the grader's stderr, which may be a log file on disk; the rest is dropped.
STDERR_BYTES = 64 * 1024

_SOURCE = Path(__file__).with_name("warm_template.py")
_SPOOL: str | None = None
_LOCAL = threading.local()  # .templates: key -> Template, at most one per thread (a Dask worker may run threads)
_ALL: list = []             # every template this process started (for close_templates and sandbox_cpu)
_REFUSED: set = set()       # keys whose template failed: plain kernels for them, in every thread
_FORKED = 0                 # kernels forked in this process (read by the tests)
_NOTES: list = []           # what the run should report (take_notes)


def _mine() -> dict:
    if not hasattr(_LOCAL, "templates"):
        _LOCAL.templates = {}
    return _LOCAL.templates


class TemplateError(RuntimeError):
    """The template failed: it did not start, answer or stay clean.

    The grader then starts kernels plainly, and says so in the run's report (:func:`note`).
    """


def note(text: str, logged: bool = False) -> None:
    """Keep ``text`` for the run's report (:func:`take_notes`) and log it as a warning.

    The notes of a grading process end up in the :class:`helpers.grading.course.GradeReport` of the
    submission it was grading.

    Parameters
    ----------
    text : str
        What happened, in a sentence for the person running the grader.
    logged : bool
        The caller logged it already.
    """
    if not logged:
        log.warning("Warm kernels: %s", text)
    _NOTES.append(text)


def take_notes() -> list[str]:
    """Take what happened to this process's templates since the last call.

    That is a template that did not start, stopped answering or was tainted, modules a template failed
    to import, kernels started plainly (:func:`note`).

    Returns
    -------
    list of str
        One sentence each, oldest first; the list is emptied.
    """
    out = list(_NOTES)
    del _NOTES[:len(out)]
    return out


def spool_dir() -> str:
    """Make, once per grading process, the folder that holds each sandboxed kernel's connection folder.

    A template sees this folder (and only it of the grader's files), so a kernel it forks can create
    its sockets where jupyter_client connects to them.

    Returns
    -------
    str
        The folder's path (made again if it was removed), with its ``sockets`` folder.
    """
    global _SPOOL
    if _SPOOL is None or not os.path.isdir(_SPOOL):
        _SPOOL = tempfile.mkdtemp(prefix="weat-kernels-")
        os.mkdir(os.path.join(_SPOOL, "sockets"))
    return _SPOOL


def sockets_dir() -> str:
    """Name the folder where a sandboxed kernel creates its sockets.

    Inside each sandbox it is a small tmpfs of its own (:data:`helpers.grading.sandbox.SOCKETS_KB`),
    outside an empty folder of :func:`spool_dir`; the grader reaches the sandbox's through
    :func:`outside`.

    Returns
    -------
    str
        The folder's path, the same inside and outside the sandbox.
    """
    return os.path.join(spool_dir(), "sockets")


def outside(pid: int, path: str) -> str:
    """Give the path by which the grader reaches ``path`` of the sandbox whose first process is ``pid``.

    It goes through that process's root in ``/proc``, and must leave room for a socket's name within
    the length of a Unix socket's path.

    Parameters
    ----------
    pid : int
        A process of the sandbox that bubblewrap started (not the kernel's, which it could hide).
    path : str
        An absolute path inside the sandbox.

    Returns
    -------
    str
        ``/proc/<pid>/root<path>``.

    Raises
    ------
    TemplateError
        If the grader may not look into that process's root (``/proc`` mounted with ``hidepid``), or
        the path would be too long for a Unix socket.
    """
    root = f"/proc/{int(pid)}/root"
    if not os.access(root, os.X_OK):
        raise TemplateError(f"the grader cannot reach the sandbox's files through {root} (is /proc mounted with "
                            "hidepid? The grading user must see its own processes there)")
    if len(root + path) + len("-65535") >= SOCKET_PATH_MAX:
        raise TemplateError(f"the path of the kernel's sockets, {root + path}-N, is too long for a Unix socket "
                            f"({SOCKET_PATH_MAX - 1} bytes at most): set TMPDIR to a shorter folder (e.g. /tmp)")
    return root + path


def stderr_pipe(name: str) -> int:
    """Open a pipe for a sandbox's stderr: at most :data:`STDERR_BYTES` of what comes through reach the grader's.

    A thread relays the pipe to the grader's stderr and, past the limit, drops the rest with one line
    that says so.

    Parameters
    ----------
    name : str
        What writes to it, for the line that says the rest was dropped.

    Returns
    -------
    int
        The writing end (the caller passes it to the sandbox and closes its own copy).
    """
    read, write = os.pipe()
    threading.Thread(target=_relay, args=(read, name), daemon=True, name=f"stderr of {name}").start()
    return write


def _relay(fd: int, name: str) -> None:
    passed, cut = 0, False
    try:
        while True:
            data = os.read(fd, 65536)
            if not data:
                return
            if passed < STDERR_BYTES:
                part = data[:STDERR_BYTES - passed]
                passed += len(part)
                _write_stderr(part)
                data = data[len(part):]
            if data and not cut:
                cut = True
                _write_stderr(f"\n[the rest of the stderr of {name} is dropped: over {STDERR_BYTES} bytes]\n".encode())
    finally:
        os.close(fd)


def _write_stderr(data: bytes) -> None:
    try:
        while data:
            data = data[os.write(2, data):]
    except OSError:
        pass


def sandbox_pid(fd: int, process=None, timeout: float | None = None) -> int:
    """Read the process id (outside) of the sandbox's first process from bubblewrap's ``--info-fd``.

    bubblewrap writes a JSON object with ``child-pid`` there once the sandbox runs; more than 64 KiB
    without it is refused.

    Parameters
    ----------
    fd : int
        The reading end of the pipe bubblewrap writes to.
    process : subprocess.Popen, optional
        The bubblewrap process, to report its exit status if it wrote nothing.
    timeout : float, optional
        Seconds to wait (default :data:`INFO_TIMEOUT`).

    Returns
    -------
    int
        The process id.

    Raises
    ------
    TemplateError
        If bubblewrap ended or said nothing in time.
    """
    end = time.monotonic() + (INFO_TIMEOUT if timeout is None else timeout)
    data = b""
    while True:
        try:
            return int(json.loads(data)["child-pid"])
        except (ValueError, KeyError, TypeError):
            pass
        left = end - time.monotonic()
        if left <= 0 or len(data) > 65536:
            raise TemplateError("bubblewrap did not report its sandbox's process id")
        if not select.select([fd], [], [], left)[0]:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            status = process.poll() if process is not None else None
            raise TemplateError(f"bubblewrap ended before it reported its sandbox (exit status {status})")
        data += chunk


class WarmKernel:
    """A kernel forked by a :class:`Template`, with the part of ``subprocess.Popen`` jupyter_client uses.

    jupyter_client's provisioner holds it as its process: it polls, waits for, signals and kills it;
    the template reports its end and its CPU time.

    Parameters
    ----------
    template : Template
        The template that forked it.
    pid : int
        Its process id inside the sandbox (not valid outside it).
    """

    stdin = stdout = stderr = None

    def __init__(self, template: Template, pid: int):
        self.template, self.pid = template, pid
        self.returncode: int | None = None
        #: CPU seconds the kernel used (user + system, its waited-for children included), once it ended.
        self.cpu: float | None = None

    def poll(self) -> int | None:
        """Tell whether the kernel ended, as ``Popen.poll`` does.

        What the template sent is read first (:meth:`Template.pump`).

        Returns
        -------
        int or None
            The exit status once the kernel ended (a negative signal number if killed), else None.
        """
        if self.returncode is None:
            self.template.pump()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the kernel to end.

        It is polled every 20 ms.

        Parameters
        ----------
        timeout : float, optional
            Seconds; ``subprocess.TimeoutExpired`` after them.

        Returns
        -------
        int
            The exit status.

        Raises
        ------
        subprocess.TimeoutExpired
            The kernel did not end within ``timeout``.
        """
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired("warm kernel", timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        """Kill the kernel for SIGKILL or SIGTERM; other signals are not sent (interrupts are messages).

        Signals cannot enter the sandbox's PID namespace, so the template kills the kernel (:meth:`kill`).

        Parameters
        ----------
        signum : int
            The signal.
        """
        if signum in (signal.SIGKILL, signal.SIGTERM):
            self.kill()

    def kill(self) -> None:
        """Kill the kernel (the template then kills whatever it left and cleans up).

        Nothing happens once it has ended. ``terminate`` is the same.
        """
        if self.returncode is None:
            self.template.kill(self)

    terminate = kill

    def _ended(self, status: int, cpu: float | None) -> None:
        self.returncode, self.cpu = status, cpu


class Template:
    """A template process in the sandbox that forks kernels (:mod:`helpers.grading.warm_template`).

    It imports the course's modules once; each kernel forked from it starts with them imported. It runs
    one kernel at a time, and answers on a socket pair.

    Parameters
    ----------
    command : callable
        ``command(kernel_cmd, workdir, private_dir)`` returns the full sandbox command line that runs
        ``kernel_cmd`` (:func:`helpers.grading.sandbox.bwrap_command` with the kernel's settings).
    python : str
        The Python executable of the kernels.
    env : dict
        The environment the sandbox command runs with.
    """

    def __init__(self, command, python: str, env: dict):
        self.spool = spool_dir()
        ours, theirs = socket.socketpair()
        self._sock, self._buffer, self._kernel = ours, b"", None
        argv = [python, "-c", _SOURCE.read_text(), str(theirs.fileno()), WORKDIR, self.spool]
        #: CPU seconds of the template and the kernels it reaped, as it last reported (None before).
        self.cpu: float | None = None
        #: The modules the template failed to import (from its "ready" message; its kernels import them).
        self.failed_imports: list[str] = []
        #: The process id (outside) of the sandbox's first process: the grader reaches the sockets through it.
        self.sandbox_pid: int | None = None
        self.process = None
        read, write = os.pipe()
        stderr = stderr_pipe("a warm-kernel template and its kernels")
        try:
            self.process = subprocess.Popen(command(argv, WORKDIR, self.spool, info_fd=write), env=env,
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
                                            pass_fds=[theirs.fileno(), write])
            os.close(write)
            write = None
            self.sandbox_pid = sandbox_pid(read, self.process)
            ready = self._expect("ready", READY_TIMEOUT)
            if "error" in ready:
                raise TemplateError(str(ready["error"])[:500])
        except TemplateError:
            self.close()
            raise
        finally:
            theirs.close()
            for fd in (read, write, stderr):
                if fd is not None:
                    os.close(fd)
        failed = ready.get("failed") if isinstance(ready.get("failed"), list) else []
        self.failed_imports = [str(name)[:200] for name in failed[:50]]
        if self.failed_imports:
            note(f"the template failed to import {', '.join(self.failed_imports)} (each kernel imports them "
                 "itself, as a plain kernel does)")

    # -- messages --------------------------------------------------------------------------------

    def _read(self, timeout: float) -> dict | None:
        """The next message, or None if none came within ``timeout`` seconds."""
        end, tried = time.monotonic() + timeout, False
        while b"\n" not in self._buffer:
            left = end - time.monotonic()
            if tried and left <= 0:
                return None
            tried = True
            self._sock.settimeout(max(left, 0.0))
            try:
                data = self._sock.recv(65536)
            except (TimeoutError, BlockingIOError):
                return None
            except OSError as exc:
                raise TemplateError(f"the template's socket failed: {exc}") from exc
            if not data:
                raise TemplateError(f"the template ended (exit status {self.process.poll()})")
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        message = json.loads(line)
        if "tainted" in message:
            raise TemplateError(f"the template stopped: {message['tainted']}")
        if "total" in message:
            self.cpu = float(message["total"])
        if "exit" in message and self._kernel is not None and message["exit"] == self._kernel.pid:
            self._kernel._ended(int(message["status"]), message.get("cpu"))
            self._kernel = None
        return message

    def _expect(self, key: str, timeout: float) -> dict:
        end = time.monotonic() + timeout
        while True:
            message = self._read(max(0.0, end - time.monotonic()))
            if message is None:
                raise TemplateError(f"the template did not answer within {timeout:g} s")
            if key in message or "error" in message:
                return message

    def _send(self, message: dict) -> None:
        try:
            self._sock.sendall((json.dumps(message) + "\n").encode())
        except OSError as exc:
            raise TemplateError(f"the template's socket failed: {exc}") from exc

    def pump(self) -> None:
        """Read what the template sent (a kernel's end); a failed template ends its kernel's tracking.

        Nothing is waited for. A template that failed is noted (:func:`note`) and closed, and its
        kernel is reported as killed.
        """
        try:
            while self._read(0.0) is not None:
                pass
        except TemplateError as exc:
            self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        note(f"{exc}; kernels are started plainly from now on")
        if self._kernel is not None:  # its sandbox ends with the template: report it as ended
            self._kernel._ended(-signal.SIGKILL, None)
            self._kernel = None
        self.close(kill=True)

    # -- requests --------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """Tell whether the template can still fork kernels.

        Its process runs and its socket is open.

        Returns
        -------
        bool
            True while it can.
        """
        return self.process is not None and self.process.poll() is None and self._sock.fileno() >= 0

    def fork(self, kernel_cmd: list[str]) -> WarmKernel:
        """Fork a kernel that runs ``kernel_cmd`` (``python -m ipykernel_launcher -f <connection file>``).

        One kernel at a time: a template whose last kernel still runs refuses. A template that does not
        answer within :data:`ANSWER_TIMEOUT` is closed.

        Parameters
        ----------
        kernel_cmd : list of str
            The kernel's command line.

        Returns
        -------
        WarmKernel
            The forked kernel.

        Raises
        ------
        TemplateError
            If the template cannot fork it (the caller starts a plain kernel instead).
        """
        if self._kernel is not None:
            self.pump()
        if self._kernel is not None:
            raise TemplateError("the template's last kernel is still running")
        self._send({"op": "fork", "argv": list(kernel_cmd), "cwd": WORKDIR})
        try:
            answer = self._expect("pid", ANSWER_TIMEOUT)
        except TemplateError as exc:
            self._fail(exc)
            raise
        if "error" in answer:
            raise TemplateError(answer["error"])
        self._kernel = WarmKernel(self, int(answer["pid"]))
        global _FORKED
        _FORKED += 1
        return self._kernel

    def kill(self, kernel: WarmKernel) -> None:
        """Kill ``kernel`` and wait until the template reports it ended and cleaned up (a no-op once it ended).

        A template that does not report it within :data:`ANSWER_TIMEOUT` has stopped answering: it is
        closed (its whole sandbox ends, the kernel with it) and never used again.

        Parameters
        ----------
        kernel : WarmKernel
            A kernel of this template.
        """
        if kernel is not self._kernel:
            return
        try:
            self._send({"op": "kill", "pid": kernel.pid})
            end = time.monotonic() + ANSWER_TIMEOUT
            while self._kernel is kernel:
                if self._read(max(0.0, end - time.monotonic())) is None:
                    raise TemplateError(f"the template did not answer within {ANSWER_TIMEOUT:g} s")
        except TemplateError as exc:
            self._fail(exc)

    def close(self, kill: bool = False) -> None:
        """End the template and any kernel it runs: its socket is closed, so it exits (killed after 10 s).

        Its sandbox, and so its kernel, ends with it.

        Parameters
        ----------
        kill : bool
            Kill its sandbox at once (a template that stopped answering would not exit by itself).
        """
        try:
            self._sock.close()
        except OSError:
            pass
        if self.process is not None and self.process.poll() is None:
            if kill:
                self.process.kill()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # a stopped template: its sandbox dies with bubblewrap
                self.process.kill()
                self.process.wait()


def template_for(key, command, python: str, env: dict) -> Template | None:
    """Get this process's template for the sandbox configuration ``key``, started if needed; None if it failed.

    A thread keeps one template: another configuration's is closed first. A configuration whose template
    failed to start, ended or was tainted gets None from then on (plain kernels).

    Parameters
    ----------
    key : hashable
        Everything the sandbox command depends on (limits, environment, folders, overlays).
    command : callable
        See :class:`Template`.
    python : str
        The kernels' Python executable.
    env : dict
        The environment the sandbox command runs with.

    Returns
    -------
    Template or None
        The running template, or None: start the kernel plainly.
    """
    if key in _REFUSED:
        return None
    mine = _mine()
    template = mine.get(key)
    if template is not None and template.alive:
        return template
    if template is not None:  # it ended or was tainted: plain kernels from now on for this configuration
        _REFUSED.add(key)
        mine.pop(key, None)
        template.close()
        return None
    for other in mine.values():  # another configuration (another assignment): its template is not needed now
        other.close()
    mine.clear()
    try:
        template = Template(command, python, env)
    except (TemplateError, OSError) as exc:
        note(f"the template did not start ({exc}); kernels are started plainly")
        _REFUSED.add(key)
        return None
    mine[key] = template
    _ALL.append(template)
    return template


def close_templates() -> None:
    """End every template of this process (all threads').

    It is also called when the process exits, before :func:`spool_dir` is removed.
    """
    for template in list(_ALL):
        template.close()
    _mine().clear()


def sandbox_cpu() -> float:
    """CPU seconds the templates of this process reported: their own and their kernels' (for benchmarks).

    A kernel in bubblewrap's PID namespace is reaped inside it, so the grader's ``getrusage`` never counts
    it; a template counts what it reaped and reports it after each kernel.

    Returns
    -------
    float
        The CPU seconds, summed over this process's templates.
    """
    return sum(t.cpu or 0.0 for t in _ALL)


@atexit.register
def _at_exit() -> None:
    close_templates()
    if _SPOOL is not None:
        shutil.rmtree(_SPOOL, ignore_errors=True)
