"""The warm-kernel template: runs INSIDE the sandbox, never in the grader (:mod:`helpers.grading.warm`).

Started by :class:`helpers.grading.warm.Template` as ``python -c <this file's source> <fd>`` in the
same bubblewrap command as a plain kernel, it imports once what every kernel of the course imports
(ipykernel, NumPy, SciPy, gensim, matplotlib, the course package) and loads the default embedding (with
the vector lengths gensim keeps for similarity queries), then forks one Jupyter kernel at a time on
request. A fork costs well under a second; a fresh kernel spends several CPU-seconds importing the same
modules.

Nothing of one kernel reaches the next:

* **one kernel at a time.** When a kernel exits, every other process in the sandbox's PID namespace
  is killed (the template is their subreaper and reaps them all), then ``/tmp`` (with ``HOME``), the
  working folder, the sockets' folder, ``/dev/shm`` and System V IPC objects are emptied (the
  connection folders are read-only). If anything is left, or the template's own state was changed
  from outside (resource limits, priority, scheduling, CPU affinity), it says so and exits: the
  grader then starts plain kernels;
* **no student code in the template.** It runs only its own code; it is not dumpable
  (``PR_SET_DUMPABLE`` 0), so no kernel can read or write its memory (ptrace, ``/proc/<pid>/mem``);
* **a fresh start for each kernel.** The child closes every file the template holds (the control
  socket first), starts its own session, seeds Python's and NumPy's random generators from the
  system and starts ``IPKernelApp`` in an empty working folder.

Protocol on the control socket (an inherited ``socketpair``; JSON, one object per line):
``{"op": "fork", "argv": [...], "cwd": ...}`` answers ``{"pid": n}`` or ``{"error": ...}``;
``{"op": "kill", "pid": n}``; the template sends ``{"exit": n, "status": s, "cpu": seconds, "total":
seconds}`` when kernel ``n`` ended and the sandbox is clean again (``cpu``: the kernel's CPU time;
``total``: the template's and everything it reaped so far), ``{"ready": true, "failed": [module, ...],
"total": seconds}`` once after its imports (``failed``: what it could not import or load, which each
kernel then does itself) and ``{"tainted": reason}`` before it exits on a failed check. End of file
on the socket ends the template (and, with bubblewrap's ``--die-with-parent``, a dead grader ends it
too).
"""
import ctypes
import gc
import json
import os
import resource
import select
import shutil
import signal
import socket
import sys
import time

CONTROL_FD = -1              # the control socket (set from the command line)
WORKDIR = "/tmp/work"        # the kernels' working folder (a tmpfs of its own)
SPOOL = ""                   # the folder that holds each kernel's connection folder (bound from the grader)
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 4, 36
_libc = ctypes.CDLL(None, use_errno=True)

#: modules a kernel imports while it starts (ipykernel 7: its debugger, IPython's, the history database)
KERNEL_START = ("ipykernel.debugger", "debugpy", "IPython.core.debugger", "IPython.core.completerlib",
                "IPython.core.oinspect", "IPython.extensions.storemagic", "sqlite3", "psutil", "pdb",
                "faulthandler", "ipykernel.zmqshell", "ipykernel.comm", "comm")
#: modules a kernel imports at its first cell (tornado's asyncio loop), at ``%matplotlib inline`` (every
#: notebook's first cell: the magic, the inline backend) and when it sends large buffers (pyzmq), and
#: adjustText, which the course's plots import when they label points
KERNEL_FIRST_CELLS = ("tornado.platform.asyncio", "IPython.core.magics.pylab", "IPython.core.magics.execution",
                      "IPython.core.magics.ast_mod", "IPython.core.magic_arguments", "IPython.core.logger",
                      "IPython.core.pylabtools", "IPython.utils.module_paths", "matplotlib_inline.backend_inline",
                      "zmq.utils.garbage", "adjustText")


def send(sock, obj):
    sock.sendall((json.dumps(obj) + "\n").encode())


def state():
    """What a kernel inherits that another process of the same user could change from outside."""
    limits = {name: resource.getrlimit(getattr(resource, name)) for name in dir(resource) if name.startswith("RLIMIT_")}
    return {"limits": limits, "nice": os.getpriority(os.PRIO_PROCESS, 0), "policy": os.sched_getscheduler(0),
            "affinity": sorted(os.sched_getaffinity(0))}


#: file systems whose files are not a kernel's to leave behind (or are not files)
NOT_FILES = {"proc", "sysfs", "devpts", "cgroup", "cgroup2"}


def mounts():
    """``(mount point, writable, file system type)`` of every mount this process sees."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields = left.split()
            point = fields[4].replace("\\040", " ")
            out.append((point, "rw" in fields[5].split(","), right.split()[0]))
    return out


def writable_files():
    """``{path: [mode, device, owner]}`` of everything in the writable mounts (not entering other mounts),
    and the set of mount points."""
    table = mounts()
    points = {m for m, _, _ in table}
    found = {}
    for point, writable, fstype in table:
        if not writable or fstype in NOT_FILES:
            continue
        for root, dirs, files in os.walk(point):
            dirs[:] = [d for d in dirs if os.path.join(root, d) not in points]
            for name in dirs + files:
                path = os.path.join(root, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                found[path] = [st.st_mode, st.st_rdev, st.st_uid]
    return found, points


def remove(path):
    """Remove a file or a whole folder (folders made unreadable are made readable first)."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            for root, dirs, _files in os.walk(path):
                for d in dirs:
                    try:
                        os.chmod(os.path.join(root, d), 0o700)
                    except OSError:
                        pass
            os.chmod(path, 0o700)
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def holds_a_mount(path, points):
    """Whether ``path`` is a mount point or a folder leading to one (it cannot be removed)."""
    return path in points or any(q.startswith(path + "/") for q in points)


def restore(keep):
    """Remove everything in the writable mounts that is not in ``keep`` (nor a mount point or a folder
    leading to one); what is still different afterwards (a list of paths, empty when none)."""
    found, points = writable_files()
    for path in sorted(found, key=len):
        if path not in keep and not holds_a_mount(path, points) and os.path.lexists(path):
            remove(path)
    found, _ = writable_files()
    extra = [p for p in found if p not in keep and not holds_a_mount(p, points)]
    changed = [p for p, kind in keep.items() if found.get(p) != kind]
    return sorted(extra + changed)


def remove_sysv_ipc():
    """Remove every System V shared memory segment, semaphore set and message queue; True if none is left."""
    IPC_RMID = 0
    for kind, call in (("shm", _libc.shmctl), ("sem", _libc.semctl), ("msg", _libc.msgctl)):
        for ident in sysv_ids(kind):
            if kind == "sem":
                call(ident, 0, IPC_RMID, None)
            else:
                call(ident, IPC_RMID, None)
    return not any(sysv_ids(kind) for kind in ("shm", "sem", "msg"))


def sysv_ids(kind):
    """The ids of the System V objects of ``kind`` ("shm", "sem" or "msg") in this IPC namespace."""
    try:
        with open(f"/proc/sysvipc/{kind}") as f:
            return [int(line.split()[1]) for line in f.readlines()[1:] if line.split()]
    except OSError:
        return []


def total_cpu():
    """CPU seconds of the template and every process it reaped (its kernels and what they left)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def others():
    """Processes of this PID namespace other than its init (1) and the template."""
    me = os.getpid()
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)]


def kill_the_rest():
    """Kill every process but init and the template, and reap them; None, or what failed."""
    deadline = time.monotonic() + 10
    while True:
        try:
            os.kill(-1, signal.SIGKILL)  # every process this one may signal, except init and itself
        except ProcessLookupError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        if not others():
            return None
        if time.monotonic() > deadline:
            return f"processes left after the kernel: {others()}"
        time.sleep(0.01)


def clean(home, keep):
    """After a kernel: kill what it left, put every writable place back as ``keep`` says (the connection
    folders emptied) and remove System V IPC objects; None, or what failed."""
    reason = kill_the_rest()
    if reason:
        return reason
    os.makedirs(home, exist_ok=True)
    left = restore(keep)
    if not remove_sysv_ipc():
        left.append("System V IPC objects")
    return f"could not put back {', '.join(left[:5])}" if left else None


def baseline(home):
    """At the start: the template's own files removed from the writable places, HOME made; what every
    later cleaning puts back."""
    found, points = writable_files()
    for path in sorted(found, key=len):
        if path.startswith("/dev/") and not path.startswith("/dev/shm/"):  # devices (/dev is read-only)
            continue
        if not holds_a_mount(path, points):
            remove(path)
    os.makedirs(home, exist_ok=True)
    found, _ = writable_files()
    return found


def child(sock, argv, cwd):
    """In the forked child: become a fresh kernel (never returns)."""
    status = 1
    try:
        os.closerange(3, CONTROL_FD)
        os.closerange(CONTROL_FD + 1, 65536)
        sock.close()
        os.setsid()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        _libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        import random

        import numpy
        random.seed()
        numpy.random.seed()
        os.chdir(cwd)
        # what `python -m ipykernel_launcher ARGS` gives a plain kernel: sys.argv is the launcher's file and ARGS,
        # and IPKernelApp parses ARGS. Given "-m ipykernel_launcher" too, IPKernelApp would run that module in
        # the kernel at its start (IPython's -m), which fails and formats the error: 0.35 CPU-s of every kernel.
        import importlib.util

        args = list(argv[3:] if list(argv[1:3]) == ["-m", "ipykernel_launcher"] else argv[1:])
        sys.argv = [importlib.util.find_spec("ipykernel_launcher").origin, *args]
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance(argv=args)
        status = 0
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - reported through the exit status; the grader flags the notebook
        import traceback
        traceback.print_exc()
    finally:
        os._exit(status)


def load(name, failed):
    """Import module ``name``; on any failure add ``name`` to ``failed`` (a kernel then imports it itself)."""
    try:
        __import__(name)
    except Exception:  # noqa: BLE001 - named in the ready message; the kernel imports it as a plain kernel does
        failed.append(name)


def main():
    sock = socket.socket(fileno=CONTROL_FD)
    home = os.environ.get("HOME", "/tmp/home")
    failed = []  # what could not be imported or loaded: named in the ready message
    # what ipykernel does before any cell runs, done before matplotlib is imported here
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    if sys.path and sys.path[0] in ("", "."):
        del sys.path[0]
    # gensim.models imports NumPy, SciPy (its stats module too); then what every kernel starts with, and
    # (0.35 CPU-s of each kernel's start otherwise) what it imports while it starts and at its first cells
    for name in ("numpy", "gensim.models", "ipykernel.ipkernel", "ipykernel.kernelapp", "matplotlib.pyplot",
                 *KERNEL_START, *KERNEL_FIRST_CELLS):
        load(name, failed)
    try:  # what `%matplotlib inline` asks first: which backend "inline" names, read from the installed packages'
        # entry points (under the grader, MPLBACKEND is Agg, so importing pyplot did not read them)
        from matplotlib.backends.registry import backend_registry
        backend_registry.resolve_gui_or_backend("inline")
    except Exception:  # noqa: BLE001 - the kernel reads them itself then, as a plain kernel does
        failed.append("matplotlib's inline backend")
    try:  # draw a figure once, off pyplot (no figure left): fonts found and loaded, renderer and PNG writer ready
        import io

        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        figure = Figure()
        FigureCanvasAgg(figure)
        axes = figure.subplots()
        axes.plot([0, 1], [0, 1], label="a")
        axes.bar([0, 1], [1, 2])
        axes.scatter([0, 1], [1, 0])
        axes.set(title="t", xlabel="x $x^2$", ylabel="y")
        axes.legend()
        figure.savefig(io.BytesIO(), format="png")
    except Exception:  # noqa: BLE001 - a kernel then does it itself, as a plain kernel does
        failed.append("a first figure")
    for name in ("checks", "statistics", "wordsets", "weat", "wefat", "plots", "lexicon", "enumeration"):
        load(f"helpers.{name}", failed)
    try:
        import helpers.embeddings
        # and the word vectors' lengths, which gensim computes at the first similarity query (most_similar,
        # similarity) and keeps from then on: the numbers a kernel would compute from the read-only
        # memory-mapped vectors (stored column by column: 0.15 CPU-s of each kernel of 01_cosine). As after
        # any query, code that replaces kv.vectors must call kv.fill_norms(force=True) itself.
        helpers.embeddings.load_default().fill_norms()
    except Exception:  # noqa: BLE001 - a kernel then imports and loads it itself, as a plain kernel would
        failed.append("helpers.embeddings (the default embedding)")
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    reason = kill_the_rest()
    if reason:
        send(sock, {"tainted": reason})
        return
    keep = baseline(home)
    before = state()
    send(sock, {"ready": True, "failed": failed, "total": total_cpu()})
    kernel = None
    buffer = b""
    while True:
        readable, _, _ = select.select([sock], [], [], 0.05)
        if kernel is not None:
            pid, status, usage = os.wait4(kernel, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                kernel = None
                reason = clean(home, keep) or (None if state() == before else "its limits or scheduling were changed")
                send(sock, {"exit": pid, "status": code, "cpu": usage.ru_utime + usage.ru_stime, "total": total_cpu()})
                if reason:
                    send(sock, {"tainted": reason})
                    return
        if not readable:
            continue
        data = sock.recv(65536)
        if not data:
            return
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            request = json.loads(line)
            if request.get("op") == "kill":
                if kernel is not None and request.get("pid") == kernel:
                    os.kill(kernel, signal.SIGKILL)
            elif request.get("op") == "fork":
                if kernel is not None:
                    send(sock, {"error": "a kernel is still running"})
                    continue
                gc.collect()
                gc.freeze()  # the template's objects: never scanned by a kernel's collector, so never copied by it
                pid = os.fork()
                if pid == 0:
                    child(sock, request["argv"], request["cwd"])
                kernel = pid
                send(sock, {"pid": pid})


if __name__ == "__main__":
    CONTROL_FD, WORKDIR, SPOOL = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    try:
        main()
    finally:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        os._exit(0)
