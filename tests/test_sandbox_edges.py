"""The sandbox's writable edges and the warm template's failures (helpers/grading/sandbox.py, warm.py,
warm_template.py).

A real sandboxed kernel (plain, and forked from a warm template), started by
:class:`helpers.grading.sandbox.SandboxKernelManager` as the grader starts it, lists its mounts and tries
to fill every place it can write, as a student's cell would:

* every writable mount it sees is one the test expects (its working folder, ``/tmp`` with ``HOME``,
  ``/dev/shm``, the sockets' folder), each a tmpfs; a write to each stops at that place's budget
  (``No space left on device``), and a write to ``/dev``, the root or the connection folder is refused
  (read-only);
* the bytes on the host's disk under every host folder the sandbox binds (the connection folder, the
  spool, the working folder) do not grow;
* POSIX message queues stop at ``RLIMIT_MSGQUEUE``;
* of what it writes to the stderr it was started with (ipykernel keeps a copy of it), at most
  :data:`warm.STDERR_BYTES` reach the grader's stderr (which may be a log file on disk).

And the template: one stopped with SIGSTOP (by its own kernel, or from outside between kernels) is found
out at the first request it does not answer, closed with its sandbox, reported (:func:`warm.take_notes`),
and the next kernel is a plain one; its "ready" message names a module it failed to import.

Each fill writes at most its budget plus one MiB, so a missing limit fails the test without filling the
machine. The budgets are small here (``disk_mb=4``, :data:`sandbox.MSGQUEUE_BYTES` lowered to 64 KiB) so
the fills are cheap. Tests need bubblewrap and skip without it unless ``COURSE_TEST_SANDBOX_REQUIRED=1``.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

import nbgrader_tools as nbt
from helpers.grading import sandbox, warm

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DISK_MB = 4                 # the kernel's working folder and /tmp, each (Sandbox.disk_mb)
MSGQUEUE_BYTES = 64 * 1024  # RLIMIT_MSGQUEUE in these tests (the grader's is sandbox.MSGQUEUE_BYTES)
MiB = 2**20

#: run in the kernel: its writable mounts, then a fill of each place given (at most ``limit`` bytes each), the
#: files left in place; printed as JSON
FILL = r'''
import errno as _e, json as _j, os as _o
def _writable():
    out = {}
    for line in open("/proc/self/mountinfo"):
        left, _, right = line.partition(" - ")
        f, r = left.split(), right.split()
        point = f[4].replace("\\040", " ")
        if "rw" in f[5].split(",") and r[0] not in ("proc", "sysfs", "devpts", "cgroup", "cgroup2", "mqueue") \
                and _o.path.isdir(point):  # (a bound device file such as /dev/null stores nothing)
            out[point] = r[0]
    return out
def _fill(folder, limit):
    n, err = 0, None
    chunk = b"x" * 65536
    try:
        with open(_o.path.join(folder, "fill.bin"), "wb", buffering=0) as fh:
            while n < limit:
                n += fh.write(chunk[:limit - n])
    except OSError as exc:
        err = _e.errorcode.get(exc.errno, str(exc.errno))
    return [n, err]
_places = PLACES
print(_j.dumps({"mounts": _writable(), "home": _o.environ["HOME"], "cwd": _o.getcwd(),
                "fills": {p: _fill(p, limit) for p, limit in _places.items()}}))
'''

#: run in the kernel: fills POSIX message queues (1 KiB messages, 8 a queue) until the kernel refuses
MQUEUE = r'''
import ctypes as _c, json as _j
_rt = _c.CDLL("librt.so.1", use_errno=True)
class _Attr(_c.Structure):
    _fields_ = [("flags", _c.c_long), ("maxmsg", _c.c_long), ("msgsize", _c.c_long), ("curmsgs", _c.c_long),
                ("pad", _c.c_long * 4)]
_rt.mq_open.argtypes = [_c.c_char_p, _c.c_int, _c.c_uint, _c.POINTER(_Attr)]
_rt.mq_send.argtypes = [_c.c_int, _c.c_char_p, _c.c_size_t, _c.c_uint]
_sent, _queues, _err = 0, 0, None
for _k in range(256):
    _q = _rt.mq_open(f"/fill{_k}".encode(), 0o100 | 0o2 | 0o4000, 0o600, _c.byref(_Attr(0, 8, 1024, 0)))
    if _q < 0:
        _err = _c.get_errno()
        break
    _queues += 1
    for _m in range(8):
        if _rt.mq_send(_q, b"x" * 1024, 1024, 0) != 0:
            break
        _sent += 1024
print(_j.dumps({"sent": _sent, "queues": _queues, "errno": _err}))
'''

#: run in the kernel: 1 MiB written to the stderr the kernel was started with (ipykernel keeps a copy of it)
STDERR_FLOOD = """
import os, sys
fd = sys.stderr._original_stdstream_copy
print(sum(os.write(fd, b"E" * 65536) for _ in range(16)))
"""


HISTORY = """
import json, os
h = get_ipython().history_manager
print(json.dumps({"enabled": h.enabled, "file": str(h.hist_file)}))
"""


@pytest.fixture
def course(tmp_path, monkeypatch):
    nbt.needs_bwrap()
    monkeypatch.setattr(sandbox, "MSGQUEUE_BYTES", MSGQUEUE_BYTES)
    warm.close_templates()
    warm._REFUSED.clear()
    warm.take_notes()
    yield tmp_path / "course"
    warm.close_templates()
    warm._REFUSED.clear()


def _last_json(text: str):
    """The last line of a kernel's output that is a JSON object (stderr lines may come between, in any order)."""
    lines = [ln for ln in text.splitlines() if ln.startswith("{")]
    assert lines, f"the kernel printed no JSON object:\n{text[-2000:]}"
    return json.loads(lines[-1])


def _start(course: Path, **settings):
    return nbt.start_sandbox_kernel(course, **{"disk_mb": DISK_MB, **settings})


_run, _stop, _kind = nbt.run_code, nbt.stop_kernel, nbt.kernel_kind


def host_bytes(*folders) -> int:
    """Bytes the host's file systems hold for the files under ``folders`` (allocated blocks)."""
    total = 0
    for folder in folders:
        for root, _dirs, files in os.walk(folder):
            for name in files:
                try:
                    total += os.lstat(os.path.join(root, name)).st_blocks * 512
                except OSError:
                    pass
    return total


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "warm"])
def probed(request, tmp_path_factory):
    """One kernel (plain, or forked from a template) that fills every place, fills message queues and floods
    its stderr: what it reports, the growth of the host folders, and what reached the grader's stderr."""
    import tempfile
    import threading

    nbt.needs_bwrap()
    patch = pytest.MonkeyPatch()
    patch.setattr(sandbox, "MSGQUEUE_BYTES", MSGQUEUE_BYTES)
    warm.close_templates()
    warm._REFUSED.clear()
    course = tmp_path_factory.mktemp("edges") / "course"
    budgets = {"/tmp": DISK_MB * MiB, "/dev/shm": sandbox.SHM_MB * MiB, warm.sockets_dir(): sandbox.SOCKETS_KB * 1024}

    async def go():
        km, kc = await _start(course, warm_kernels=request.param)
        try:
            out = {"kind": _kind(km), "connection": os.path.dirname(km.connection_file)}
            workdir = json.loads((await _run(kc, "import json, os; print(json.dumps(os.getcwd()))")).strip())
            out["places"] = {**budgets, workdir: DISK_MB * MiB}
            tries = {p: b + MiB for p, b in out["places"].items()}
            tries.update({p: MiB for p in ["/dev", "/", out["connection"]]})
            tries["HOME"] = MiB  # HOME is in /tmp: filled after /tmp, it has no room left
            code = FILL.replace("PLACES", repr(tries)).replace("'HOME'", "_o.environ['HOME']")
            watched = [out["connection"], warm.spool_dir(), str(course)]
            before = host_bytes(*watched)
            out["fill"] = _last_json(await _run(kc, code))
            out["grown"] = host_bytes(*watched) - before
            out["mqueue"] = _last_json(await _run(kc, MQUEUE))
            out["stderr_written"] = (await _run(kc, STDERR_FLOOD)).strip()
            out["history"] = _last_json(await _run(kc, HISTORY))
            out["after_full"] = [await _run(kc, f"print({i})") for i in range(3)]
            return out
        finally:
            await _stop(km, kc)

    saved = os.dup(2)
    with tempfile.TemporaryFile() as err:
        os.dup2(err.fileno(), 2)  # the grader's stderr, as a log file on disk
        try:
            result = asyncio.run(go())
            warm.close_templates()
            for thread in threading.enumerate():  # the relays end when their sandboxes have
                if thread.name.startswith("stderr of"):
                    thread.join(timeout=30)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            patch.undo()
        err.seek(0)
        result["stderr"] = err.read().decode(errors="replace")
    result["warm"] = request.param
    yield result
    warm._REFUSED.clear()


def test_every_writable_place_stops_at_its_budget_and_nothing_reaches_the_host_disk(probed):
    report, places = probed["fill"], probed["places"]
    assert probed["kind"] == ("WarmKernel" if probed["warm"] else "Popen"), probed["kind"]
    assert probed["grown"] == 0, f"{probed['grown']} bytes reached the host's disk"
    fills = report["fills"]
    for place, budget in places.items():
        written, error = fills[place]
        assert error == "ENOSPC" and written <= budget, (place, written, error)
        if budget >= MiB:  # the fill did reach the budget (less the file system's own blocks)
            assert written >= budget - 256 * 1024, (place, written, budget)
    assert fills[report["home"]] == [0, "ENOSPC"], fills
    for place in ["/dev", "/", probed["connection"]]:
        assert fills[place] == [0, "EROFS"], (place, fills[place])
    # every writable place is one of those, and a tmpfs (not the host's disk)
    assert set(report["mounts"]) == set(places), report["mounts"]
    assert set(report["mounts"].values()) == {"tmpfs"}, report["mounts"]


def test_posix_message_queues_stop_at_their_budget(probed):
    report = probed["mqueue"]
    # the queues' room (and the kernel's bookkeeping) counts against the limit: fewer bytes get in
    assert 0 < report["sent"] <= MSGQUEUE_BYTES, report
    assert report["queues"] < 256 and report["errno"] == 24, report  # EMFILE: the limit, not the count of queues


def test_what_a_kernel_writes_to_its_stderr_reaches_the_graders_only_up_to_its_budget(probed):
    err = probed["stderr"]
    assert probed["stderr_written"] == str(2**20), probed["stderr_written"]  # all written (the pipe is drained)
    # what the sandbox wrote before (the debugger's warnings) counts too: a few hundred bytes
    assert warm.STDERR_BYTES - 4096 <= err.count("E") <= warm.STDERR_BYTES, len(err)
    assert "the rest of the stderr of" in err, err[-300:]


def test_a_kernel_keeps_no_history_database_so_a_full_disk_adds_nothing_to_a_cells_output(probed):
    # IPython's history thread, writing to a full HOME, printed its error into whichever cell ran next
    assert probed["history"]["enabled"] is False, probed["history"]
    assert probed["after_full"] == ["0\n", "1\n", "2\n"], probed["after_full"]


def _template_pid(template: warm.Template) -> int:
    """The template's process id outside: the child of the sandbox's first process."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{template.sandbox_pid}\n" in status:
                return int(entry)
    raise AssertionError("the template's process was not found")


@pytest.mark.parametrize("when", ["by-its-kernel", "between-kernels"])
def test_a_stopped_template_is_found_out_and_replaced_by_plain_kernels(course, monkeypatch, when):
    monkeypatch.setattr(warm, "ANSWER_TIMEOUT", 3.0)  # (30 s in grading; the count below is what is tested)

    async def go():
        forked = warm._FORKED
        km, kc = await _start(course)
        first = _kind(km)
        template = warm._ALL[-1]
        if when == "by-its-kernel":
            await _run(kc, "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)")
        await _stop(km, kc)
        if when == "between-kernels":
            assert template.alive
            os.kill(_template_pid(template), signal.SIGSTOP)
        km, kc = await _start(course)
        second = _kind(km)
        out = await _run(kc, "print(6 * 7)")
        await _stop(km, kc)
        km, kc = await _start(course)
        third = _kind(km)
        await _stop(km, kc)
        return first, second, third, out, warm._FORKED - forked, template

    first, second, third, out, forked, template = asyncio.run(go())
    assert (first, second, third) == ("WarmKernel", "Popen", "Popen")
    assert out.strip() == "42"
    assert forked == 1  # one kernel forked; the stopped template was asked once more and never again
    assert template.process.poll() is not None, "the stopped template's sandbox is still there"
    notes = warm.take_notes()
    assert any("did not answer" in n and "plainly" in n for n in notes), notes


def test_the_ready_message_names_what_the_template_failed_to_import(course, tmp_path):
    package = tmp_path / "overlay" / "helpers"
    shutil.copytree(sandbox.package_dir(), package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "plots.py").write_text('raise ImportError("broken for this test")\n')
    env = sandbox.kernel_env(dict(os.environ))
    read_only = sandbox.read_only_paths(course, [], env)

    def command(argv, workdir, private_dir, provided=(), info_fd=None):
        return sandbox.bwrap_command(argv, workdir=workdir, private_dir=private_dir, read_only=read_only, env=env,
                                     bwrap=sandbox.find_bwrap(), overlays=[(package, sandbox.package_dir())],
                                     disk_mb=DISK_MB, sockets_dir=warm.sockets_dir(), info_fd=info_fd)

    template = warm.Template(command, sys.executable, env)
    try:
        assert template.alive
        assert template.failed_imports == ["helpers.plots"], template.failed_imports
    finally:
        template.close()
    notes = warm.take_notes()
    assert any("failed to import helpers.plots" in n for n in notes), notes


def test_a_socket_path_too_long_for_unix_sockets_is_refused_with_what_to_do():
    short = warm.outside(os.getpid(), "/tmp/weat-kernels-x/sockets/ipc")
    assert short == f"/proc/{os.getpid()}/root/tmp/weat-kernels-x/sockets/ipc"
    with pytest.raises(warm.TemplateError, match="TMPDIR"):
        warm.outside(os.getpid(), "/" + "x" * (warm.SOCKET_PATH_MAX - len(f"/proc/{os.getpid()}/root")) + "/ipc")


def test_the_runs_report_carries_what_happened_to_the_template(monkeypatch):
    """What a worker's template went through while a submission was graded (warm.note) reaches the run's report,
    which prints it (run.grade_class's done()), so a fall-back to plain kernels is in the run's output."""
    from helpers.grading import run
    from helpers.grading.course import GradeReport

    text = "the template stopped answering; kernels are started plainly from now on"

    def grade(root, assignment, student, sandbox, feedback):
        warm.note(text)
        return GradeReport(assignment, student, 1.0, 1.0, True)

    monkeypatch.setattr(run, "grade_submission", grade)
    monkeypatch.setattr(run, "misnamed_notebooks", lambda *args: "")
    warm.take_notes()
    report = run._job("/nowhere", "01_cosine", "alice", True, False)
    assert report.notes == [text] and warm.take_notes() == []
