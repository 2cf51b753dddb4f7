"""Warm kernels (helpers/grading/warm.py, helpers/grading/warm_template.py): kernels forked from a template.

Each test starts real sandboxed kernels through :class:`helpers.grading.sandbox.SandboxKernelManager`, as
the grader does, and runs code in them as a student's cell would. What they show:

* the kernels are forked from the template (not started plainly), each with its own random state,
  an empty working folder, ``/tmp`` and ``HOME``;
* nothing one kernel leaves reaches the next: no process (a detached daemon that keeps writing an
  IPython startup file), no file in ``/tmp``, ``HOME``, the working folder, the connection folders or
  ``/dev/shm``, no System V shared memory;
* a kernel can neither read nor trace the template (it is not dumpable);
* a template changed from outside (its priority lowered) or killed is never used again: the next
  kernels are plain ones, and they work;
* grading with and without warm kernels gives the same grades (the worked solution and a mutant of
  ``01_cosine``, through nbgrader's autograde).

Tests need bubblewrap and skip without it unless ``COURSE_TEST_SANDBOX_REQUIRED=1`` (CI).
"""
from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import pytest

import nbgrader_tools as nbt
from helpers.grading import warm
from helpers.grading.sandbox import read_only_paths

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


needs_bwrap = nbt.needs_bwrap


#: what a kernel reports about itself (printed as JSON)
REPORT = '''
import json as _j, os as _o, random as _r, sys as _s
import numpy as _np
def _ls(p):
    try:
        return sorted(_o.listdir(p))
    except OSError as e:
        return [type(e).__name__]
def _shm():
    try:
        return [l.split()[1] for l in open("/proc/sysvipc/shm").readlines()[1:] if l.split()]
    except OSError:
        return []
print(_j.dumps({"pid": _o.getpid(), "ppid": _o.getppid(), "cwd": _o.getcwd(), "cwd_files": _ls("."),
                "tmp": _ls("/tmp"), "home": _ls(_o.environ["HOME"]),
                "startup": _ls(_o.path.join(_o.environ["HOME"], ".ipython", "profile_default", "startup")), "shm": _ls("/dev/shm"), "sysv": _shm(),
                "procs": sorted(int(p) for p in _o.listdir("/proc") if p.isdigit()),
                "random": [_r.random(), float(_np.random.rand())], "leak": "LEAK" in globals(),
                "sigpipe": int(__import__("signal").getsignal(__import__("signal").SIGPIPE)),
                "spool": _ls(_o.path.dirname(_o.path.dirname(_s.argv[-1]))) if _s.argv[-1].endswith(".json") else None,
                "argv": _s.argv, "module_to_run": __import__("ipykernel.kernelapp").kernelapp.IPKernelApp.instance().module_to_run}))
'''

#: leaves everything it can behind for the next kernel
LEAVE = r'''
import ctypes, os, time
home = os.environ["HOME"]
startup = os.path.join(home, ".ipython", "profile_default", "startup")
os.makedirs(startup, exist_ok=True)
open(os.path.join(startup, "00-leak.py"), "w").write("LEAK = 1\n")
for path in ("/tmp/left.txt", "left.txt", "/dev/shm/left", os.path.join(os.path.dirname(os.path.dirname(__import__("sys").argv[-1])), "left")):
    try:
        open(path, "w").write("x")
    except OSError:
        pass
libc = ctypes.CDLL(None)
libc.shmget(0x5EED, 4096, 0o1600)        # IPC_CREAT | 0600
if os.fork() == 0:                       # a detached daemon that keeps writing the startup file
    os.setsid()
    if os.fork() == 0:
        while True:
            try:
                os.makedirs(startup, exist_ok=True)
                open(os.path.join(startup, "00-leak.py"), "w").write("LEAK = 1\n")
            except OSError:
                pass
            time.sleep(0.01)
    os._exit(0)
time.sleep(0.3)
print("left")
'''


_start, _run, _stop, _kind = nbt.start_sandbox_kernel, nbt.run_code, nbt.stop_kernel, nbt.kernel_kind


@pytest.fixture
def course(tmp_path):
    needs_bwrap()
    warm.close_templates()
    warm._REFUSED.clear()
    yield tmp_path / "course"
    warm.close_templates()
    warm._REFUSED.clear()


def _tmp_entries(course: Path) -> set[str]:
    """What a fresh kernel's ``/tmp`` may hold: ``home``, ``work``, the connection folders' spool, and the first
    component below ``/tmp`` of every folder the sandbox binds read-only there (a clone under ``/tmp`` has its
    ``.venv`` and ``helpers/`` bound, so its top folder is visible, read-only)."""
    entries = {"home", "work", Path(warm.spool_dir()).name}
    for p in read_only_paths(course.resolve()):
        if p.parts[:2] == ("/", "tmp") and len(p.parts) > 2:
            entries.add(p.parts[2])
    return entries


def test_kernels_are_forked_fresh_and_leave_nothing_behind(course):
    async def go():
        reports, kinds = [], []
        for i in range(3):
            km, kc = await _start(course)
            kinds.append(_kind(km))
            reports.append(json.loads((await _run(kc, REPORT)).strip().splitlines()[-1]))
            if i == 0:
                assert "left" in await _run(kc, LEAVE)
                after = json.loads((await _run(kc, REPORT)).strip().splitlines()[-1])
                assert after["sysv"] and "left" in after["shm"] and len(after["procs"]) > len(reports[0]["procs"]), after
            await _stop(km, kc)
        return reports, kinds

    reports, kinds = asyncio.run(go())
    assert kinds == ["WarmKernel"] * 3, kinds
    first = reports[0]
    for r in reports:
        # HOME holds only what IPython made when this kernel started
        assert r["cwd"] == warm.WORKDIR and r["cwd_files"] == [] and r["home"] == [".ipython"] and r["shm"] == [], r
        assert "00-leak.py" not in r["startup"], r
        assert r["sysv"] == [] and not r["leak"], r
        assert r["sigpipe"] == signal.SIG_IGN, "SIGPIPE is not ignored, as Python ignores it in a plain kernel"
        # /tmp holds the kernel's own folders, and the top folders of what the sandbox binds read-only
        # under /tmp (the course's environment, when the course lives there): nothing an earlier kernel left
        assert "left.txt" not in r["tmp"] and set(r["tmp"]) <= _tmp_entries(course), r["tmp"]
        # init, the template, the kernel: no daemon of a kernel before
        assert r["procs"] == sorted({1, r["ppid"], r["pid"]}), r["procs"]
        # started as `python -m ipykernel_launcher -f FILE` starts a plain kernel: IPython runs no module at start
        assert Path(r["argv"][0]).name == "ipykernel_launcher.py" and r["argv"][1:2] == ["-f"], r["argv"]
        assert r["module_to_run"] == "", r["module_to_run"]
        assert r["ppid"] == first["ppid"]  # the same template forked them all
    assert len({r["pid"] for r in reports}) == 3
    assert len({tuple(r["random"]) for r in reports}) == 3, "kernels forked from one template share their random state"


def test_the_template_can_be_neither_read_nor_traced(course):
    code = '''
import ctypes, os
ppid = os.getppid()
for name in ("mem", "environ", "maps"):
    try:
        open(f"/proc/{ppid}/{name}", "rb").read(16)
        print(name, "readable")
    except OSError as e:
        print(name, type(e).__name__)
libc = ctypes.CDLL(None, use_errno=True)
print("ptrace", libc.ptrace(16, ppid, None, None), ctypes.get_errno())   # PTRACE_ATTACH
'''

    async def go():
        km, kc = await _start(course)
        try:
            return _kind(km), await _run(kc, code)
        finally:
            await _stop(km, kc)

    kind, out = asyncio.run(go())
    assert kind == "WarmKernel"
    for name in ("mem", "environ", "maps"):
        assert f"{name} PermissionError" in out, out
    assert "ptrace -1 1" in out, out  # EPERM


@pytest.mark.parametrize("attack", ["renice", "kill"])
def test_a_changed_or_killed_template_is_not_used_again(course, attack, caplog):
    code = {"renice": "import os\nos.setpriority(os.PRIO_PROCESS, os.getppid(), 19)\nprint('reniced')\n",
            "kill": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"}[attack]

    async def go():
        km, kc = await _start(course)
        first = _kind(km)
        try:
            await asyncio.wait_for(_run(kc, code), 10)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - the killed template takes its kernel with it
            pass
        await _stop(km, kc)
        km, kc = await _start(course)
        second = _kind(km)
        out = await _run(kc, "print(6 * 7)")
        await _stop(km, kc)
        return first, second, out

    first, second, out = asyncio.run(go())
    assert first == "WarmKernel"
    assert second == "Popen", "a template changed or killed by a kernel forked another one"
    assert out.strip() == "42"
    assert "Warm kernels" in caplog.text


def test_grades_are_the_same_with_and_without_warm_kernels(tmp_path):
    """The worked solution and a mutant of 01_cosine, graded by nbgrader's autograde both ways."""
    needs_bwrap()

    A = "01_cosine"
    nbt.require_assignment(A)
    mutant = next(m for m in nbt.load_mutants(A))
    scores = {}
    for use in (True, False):
        work = tmp_path / str(use)
        with nbt.offline_env(work):
            root = nbt.make_course(work / "course", [A])
            api = nbt.make_api(root, warm_kernels=use)
            nbt.generate_release(api, A)
            names = nbt.notebook_names(A, root)
            stubs = {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}
            full = {n: nbt.fill_solutions(nb, nbt.read_nb(root / "solutions" / A / f"{n}.ipynb")) for n, nb in stubs.items()}
            nbt.submit(root, A, "a-full", full)
            nbt.submit(root, A, "b-mutant", nbt.apply_mutant(full, mutant))
            result = api.autograde(A, "*", force=True, create=True)
            assert result["success"], result.get("error")
            scores[use] = {s: {g: v["auto_score"] for g, v in nbt.cell_scores(api.coursedir.db_url, A, s).items()}
                           for s in ("a-full", "b-mutant")}
        warm.close_templates()
    assert scores[True] == scores[False]
    assert scores[True]["a-full"] != scores[True]["b-mutant"]
