"""A term run by an instructor, through the real ``python -m helpers grade`` (issue 41 items 5, 8, 11;
issue 36 item 4): a tampered notebook costs only its student, a folder name not on the roster makes no
phantom student, a stopped run leaves no process behind, and the grading state is private.

One small course (``01_cosine``, alice with the worked answers) is made once; each test grades a copy.
"""
from __future__ import annotations

import csv
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nbgrader_tools as nbt

A = "01_cosine"


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A course with 01 (the grader generates it in the gradebook), alice's full answers submitted."""
    nbt.require_assignment(A)
    work = tmp_path_factory.mktemp("term")
    with nbt.offline_env(work):
        root = nbt.make_course(work / "course", [A], config=True)
        nbt.submit(root, A, "alice", {A: _full(root)})
    return root


def _release(root: Path):
    return nbt.read_nb(nbt.RELEASE_DIR / A / f"{A}.ipynb")


def _full(root: Path):
    return nbt.fill_solutions(_release(root), nbt.read_nb(nbt.SOLUTIONS_DIR / A / f"{A}.ipynb"))


def _copy(base: Path, tmp_path: Path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(base, root, symlinks=True)
    return root


def _grade(root: Path, tmp_path: Path, *extra: str, timeout: int = 900, umask: int = 0o022) -> subprocess.CompletedProcess:
    """``python -m helpers grade 01_cosine`` from ``root``, started with ``umask`` (a default login's)."""
    with nbt.offline_env(tmp_path):
        return subprocess.run([sys.executable, "-m", "helpers", "grade", A, "--workers", "1", *nbt.sandbox_args(),
                               *extra], cwd=root, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=lambda: os.umask(umask))


def _lms(root: Path) -> dict:
    with open(root / "grades.csv", newline="") as fh:
        return {r["student_id"]: float(r["score"]) for r in csv.DictReader(fh)}


def _students(root: Path) -> set:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return {s.id for s in gb.students}


# ---------------------------------------------------------------------------------------------
# Issue 36, item 4: a tampered notebook costs only its student
# ---------------------------------------------------------------------------------------------

def test_tampered_test_cell_metadata_costs_only_its_student(base, tmp_path):
    """mallory's test cell is marked as an answer cell worth 100 points, and her answers are the worked ones:
    the release's metadata is put back before grading, so she gets the points her answers earn (8 of 10, as
    alice), not 100, with a flag naming the cell; alice is graded and everyone is exported. bob's notebook is
    named ``01_cosine (1).ipynb``: the message names that file, bob is flagged, the others are still exported.

    The same run (issue 41 item 11) starts with umask 022, a gradebook and submitted/ readable by others: they
    are made private, and what the run creates (autograded/, feedback/, the exports) is too."""
    root = _copy(base, tmp_path)
    (root / "gradebook.db").chmod(0o644)
    (root / "submitted").chmod(0o755)
    nb = _full(root)
    test_cell = next(c for c in nb.cells if nbt.nbgrader_meta(c).get("grade") and c.cell_type == "code"
                     and not nbt.nbgrader_meta(c).get("solution"))
    tampered_id = nbt.grade_id(test_cell)
    test_cell.metadata["nbgrader"].update(solution=True, points=100, locked=False)
    test_cell.source = "pass  # my own test"
    nbt.submit(root, A, "mallory", {A: nb})
    nbt.submit(root, A, "bob", {f"{A} (1)": _full(root)})  # a browser's name for a second download
    res = _grade(root, tmp_path)
    out = res.stdout
    assert res.returncode == 1, out[-3000:] + res.stderr[-3000:]
    grades = _lms(root)
    assert grades["alice"] == 8.0 and grades["mallory"] == 8.0, (grades, out[-3000:])
    # bob's notebook cannot be graded under its name: named as found, flagged, the others exported (exit 1)
    assert f"'{A} (1).ipynb', which is not a notebook of {A}" in out and "generate_assignment" not in out, out
    assert "1 submission(s) could not be graded" in out and "No exports written" not in out, out
    with open(root / "flags.csv", newline="") as fh:
        flagged = {r["student"] for r in csv.DictReader(fh)}
    assert {"bob", "mallory"} <= flagged and "alice" not in flagged, flagged
    with open(root / "grades_lms.csv", newline="") as fh:
        bob = next(",".join(r.values()) for r in csv.DictReader(fh) if "bob" in r.values())
    assert "flagged" in bob, bob
    mallory = next(line for line in out.splitlines() if line.startswith(A) and " mallory " in line)
    assert "FLAGGED" in mallory and " 8.0/10.0" in mallory, out
    assert tampered_id in out and "restored from the release" in out, out
    alice = next(line for line in out.splitlines() if line.startswith(A) and " alice " in line)
    assert "FLAGGED" not in alice, out
    # issue 41 item 11, in the same run: started with umask 022, the grading state ends up private
    assert "made private" in out and "gradebook.db" in out, out
    for name in ("gradebook.db", "submitted", "autograded", "feedback", "grades.csv", "grades_lms.csv", "flags.csv"):
        assert stat.S_IMODE((root / name).stat().st_mode) & 0o007 == 0, f"{name} is readable by others"


# ---------------------------------------------------------------------------------------------
# Issue 41, item 5: a folder name not on the roster makes no phantom student
# ---------------------------------------------------------------------------------------------

def test_a_folder_not_on_the_roster_stops_the_run(base, tmp_path):
    """The roster (alice, bob, zoe) is in the gradebook; folders ``zoë`` and ``bob.smith@uni.edu`` were
    collected by hand. ``grade`` names both (zoë with the roster's zoe), exits 2 and grades nothing: no new
    student in the gradebook, no export."""
    from nbgrader.api import Gradebook

    root = _copy(base, tmp_path)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for student in ("alice", "bob", "zoe"):
            gb.update_or_create_student(student)
    nb = _full(root)
    for folder in ("zoë", "bob.smith@uni.edu"):
        nbt.submit(root, A, folder, {A: nb})
    res = _grade(root, tmp_path, timeout=300)
    assert res.returncode == 2, res.stdout[-3000:] + res.stderr[-3000:]
    assert "submitted/zoë/ (did you mean zoe?)" in res.stderr and "submitted/bob.smith@uni.edu/" in res.stderr, \
        res.stderr
    assert "--new-students" in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert _students(root) == {"alice", "bob", "zoe"}
    assert not (root / "grades.csv").exists() and not (root / "grades_lms.csv").exists()
    assert not (root / "autograded").exists() or not any((root / "autograded").glob("*/" + A))


# ---------------------------------------------------------------------------------------------
# Issue 41, item 8: stopping a run ends everything it started
# ---------------------------------------------------------------------------------------------

def _start_time(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(pid: int, started: str) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == started and fields[0] != "Z"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_run_leaves_no_process(base, tmp_path, signum):
    """``kill -TERM`` (or ``-INT``) of ``grade`` once a kernel is running: the command exits with 128 + the signal
    and says what is kept, and no process the run started (seen while it ran: the pool's fork server and worker,
    the sandbox, the warm-kernel template, the kernel) is alive afterwards; the grading state is readable."""
    from helpers.grading.run import descendants

    root = _copy(base, tmp_path)
    seen: dict[int, str] = {}
    with nbt.offline_env(tmp_path):
        proc = subprocess.Popen([sys.executable, "-m", "helpers", "grade", A, "--workers", "1", *nbt.sandbox_args()],
                                cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 300
            kernel = False
            while time.monotonic() < deadline and proc.poll() is None and not kernel:
                for pid in descendants(proc.pid):
                    started = _start_time(pid)
                    if started is not None:
                        seen.setdefault(pid, started)
                    try:
                        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                    except OSError:
                        continue
                    kernel = kernel or b"ipykernel" in cmdline or b"bwrap" in cmdline
                time.sleep(0.1)
            assert kernel and proc.poll() is None, "no kernel started: " + (proc.stderr.read() if proc.poll() else "")
            time.sleep(1.0)
            for pid in descendants(proc.pid):
                started = _start_time(pid)
                if started is not None:
                    seen.setdefault(pid, started)
            os.kill(proc.pid, signum)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert proc.returncode == 128 + signum, (proc.returncode, err[-3000:])
    assert f"Stopped by {signal.Signals(signum).name}" in err and "Traceback" not in err, err[-3000:]
    assert len(seen) >= 3, seen  # fork server, worker, sandbox or kernel
    time.sleep(0.5)
    left = {pid: Path(f"/proc/{pid}/cmdline").read_bytes()[:200] for pid, started in seen.items()
            if _alive(pid, started)}
    assert left == {}, f"processes of the stopped run still alive: {left}"
    state = root / "autograded" / ".grading-state.json"
    if state.exists():
        import json

        json.loads(state.read_text())


# ---------------------------------------------------------------------------------------------
# Issue 41, item 9: the right diagnosis when the kernels would import another copy of the course package
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sandbox", [True, False], ids=["sandbox", "no-sandbox"])
def test_another_copy_of_the_course_package_is_named(base, tmp_path, sandbox):
    """The grading kernel's spec puts another checkout first (an older ``helpers``: one module differs), as an
    editable install of another folder does: ``grade`` stops before any kernel starts, names both folders and
    the module, and does not blame the kernel spec or suggest ``ipykernel install --user``; with and without
    the sandbox."""
    import json

    root = _copy(base, tmp_path)
    other = tmp_path / "other-checkout"
    shutil.copytree(nbt.COURSE_ROOT / "helpers", other / "helpers", ignore=shutil.ignore_patterns("__pycache__"))
    with open(other / "helpers" / "weat.py", "a") as fh:
        fh.write("\n# an older version\n")
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "language": "python",
        "display_name": "Python 3", "env": {"PYTHONPATH": str(other)}}))
    args = [sys.executable, "-m", "helpers", "grade", A, "--workers", "1"]
    args += nbt.sandbox_args() if sandbox else ["--no-sandbox"]
    with nbt.offline_env(tmp_path):
        env = {**os.environ, "JUPYTER_PATH": str(tmp_path / "jupyter")}
        res = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    err = res.stderr
    assert res.returncode == 2, res.stdout[-2000:] + err[-3000:]
    assert str(other / "helpers") in err and str(nbt.COURSE_ROOT / "helpers") in err and "weat.py" in err, err
    assert "ipykernel install --user" not in err and "worked solution" not in res.stdout, err
    assert not (root / "grades.csv").exists()


# ---------------------------------------------------------------------------------------------
# Issue 41, item 10: the formgrader's own Autograde button does not grade around the course
# ---------------------------------------------------------------------------------------------

FORMGRADER_BUTTON = """
import json, sys
from jupyter_server.serverapp import ServerApp
from nbgrader.server_extensions.formgrader.apihandlers import AutogradeHandler
from helpers.grading.course import course_api

_, api = course_api(".", sandbox=False)
assert api.generate_assignment(sys.argv[1], force=True, create=True)["success"]
ServerApp.instance()  # the process of a Jupyter server, as the formgrader's
handler = AutogradeHandler.__new__(AutogradeHandler)  # what its post() does, without a request
written = []
handler.write = written.append
type(handler).api = property(lambda self: api)
AutogradeHandler.post.__wrapped__.__wrapped__.__wrapped__(handler, sys.argv[1], sys.argv[2])
print(written[0])
"""


def test_the_formgraders_autograde_button_is_refused(base, tmp_path):
    """The formgrader's AutogradeHandler, called as its button calls it inside a Jupyter server, fails with the
    message that says to run ``python -m helpers grade``, and grades nothing."""
    import json

    root = _copy(base, tmp_path)
    with nbt.offline_env(tmp_path):
        res = subprocess.run([sys.executable, "-c", FORMGRADER_BUTTON, A, "alice"], cwd=root, capture_output=True,
                             text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    answer = json.loads(res.stdout.strip().splitlines()[-1])
    assert not answer["success"], answer
    assert "python -m helpers grade" in answer["log"] + answer.get("error", ""), answer
    assert not (root / "autograded" / "alice" / A / f"{A}.ipynb").exists()
