"""Sandboxed autograding (helpers/grading/sandbox.py, helpers/grading/execute.py; docs/INSTRUCTORS.md, "Sandboxed grading").

Adversarial submissions go through the real autograde (nbgrader's ``autograde`` of every student
in one run, in one course folder with one gradebook, with the course's ``nbgrader_config.py``
settings) on ``01_cosine`` (exercises: ``cosine`` 3 points, ``unit_rows`` 2, ``cosine_matrix`` 2 + 1).
Each attacker replaces the ``cosine`` answer cell (the other answers are correct). Students are
graded in the order of their ids: an honest student first, the attackers, then an honest student
and a wrong-but-quiet one. For every attack:

* the attacker gets no points for ``cosine`` (or the cell is flagged for a person);
* the honest students graded before and after keep full marks, the wrong-but-quiet one gets 0;
* the course's files (hash of the tree, minus what grading writes: ``autograded/``, the gradebook)
  and the installed ``helpers`` package and ``data/`` are unchanged.

The attacks find the course from their working folder (``autograded/<student>/01_cosine/``), as a
real one would. Plus: the bubblewrap command line (what is and is not bound), the environment
allow-list, :func:`helpers.grading.course.configure`, and :class:`helpers.grading.execute.ResilientExecute` on
its own (error outputs, flags, replay). Tests that need bubblewrap skip without it unless
``COURSE_TEST_SANDBOX_REQUIRED=1`` (CI).
"""
from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

import nbgrader_tools as nbt
from helpers.grading import sandbox

A = "01_cosine"
EXERCISES = {"cosine_tests": 3.0, "unit_rows_tests": 2.0, "cosine_matrix_tests": 2.0,
             "cosine_matrix_vectorised_tests": 1.0}
SECRET = "db-password-hunter2-do-not-leak"
TIMEOUT = 20  # seconds per cell in these runs (the course uses 60; same mechanism, quicker test)


needs_bwrap = nbt.needs_bwrap


# ---------------------------------------------------------------------------------------------
# The attacks (each is the source of the `cosine` answer cell)
# ---------------------------------------------------------------------------------------------

COURSE = "import os\nROOT = os.path.abspath(os.path.join(os.getcwd(), '..', '..', '..'))\n"
WRONG_COSINE = "\ndef cosine(u, v):\n    return 0.0\n"

ATTACKS = {
    # runs the worked solution of `cosine`, read from solutions/
    "b-read-solutions": COURSE + '''import json
nb = json.load(open(os.path.join(ROOT, 'solutions', '01_cosine', '01_cosine.ipynb')))
src = [c for c in nb['cells'] if c['metadata'].get('nbgrader', {}).get('grade_id') == 'cosine_solution'][0]['source']
exec(''.join(src).replace('### BEGIN SOLUTION', '').replace('### END SOLUTION', ''))
''',
    # sets every score in the gradebook to 0 (the honest student graded before loses hers)
    "c-zero-gradebook": COURSE + '''import sqlite3
db = sqlite3.connect(os.path.join(ROOT, 'gradebook.db'))
db.execute('UPDATE grade SET auto_score = 0, manual_score = 0')
db.commit()
''' + WRONG_COSINE,
    # prints the nbgrader configuration (database password) into its own notebook
    "d-read-config": COURSE + '''print(open(os.path.join(ROOT, 'nbgrader_config.py')).read())
''' + WRONG_COSINE,
    # overwrites the submission of a student graded later, and the graded notebook of one before
    "e-other-student": COURSE + '''import glob
for path in glob.glob(os.path.join(ROOT, 'submitted', 'y-*', '01_cosine', '*.ipynb')) + \\
        glob.glob(os.path.join(ROOT, 'autograded', 'a-*', '01_cosine', '*.ipynb')):
    open(path, 'w').write('{}')
''' + WRONG_COSINE,
    # rewrites the installed check functions (and adds a module) so later students are misgraded
    "f-rewrite-checks": '''import os, helpers.checks
pkg = os.path.dirname(helpers.checks.__file__)
try:
    open(os.path.join(pkg, 'checks.py'), 'a').write('\\n# tampered by a submission\\n')
finally:
    open(os.path.join(pkg, '_tampered.py'), 'w').write('X = 1\\n')
''' + WRONG_COSINE,
    # a detached process (double fork) that outlives the kernel and raises its own scores later
    "g-detached-process": COURSE + '''import sqlite3, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for _ in range(600):
            with open(os.path.join(os.getcwd(), 'daemon-alive.txt'), 'w') as fh:
                fh.write(str(time.time()))
            try:
                db = sqlite3.connect(os.path.join(ROOT, 'gradebook.db'), timeout=1)
                db.execute("UPDATE grade SET auto_score = max_score")
                db.commit()
            except Exception:
                pass
            time.sleep(0.2)
    os._exit(0)
''' + WRONG_COSINE,
    # sends the answers to a listening socket on the grading machine (the test's listener)
    "h-network": '''import socket
s = socket.create_connection(('127.0.0.1', PORT), timeout=3)
s.sendall(b'hello from a submission')
''' + WRONG_COSINE,
    # a memory bomb: touches ever more memory
    "i-memory-bomb": '''def bomb():
    blocks = []
    while True:
        blocks.append(b'x' * (64 * 2**20))

bomb()
''' + WRONG_COSINE,
    # a loop that swallows the interrupt (a beginner's bare except)
    "j-swallow-interrupt": '''import time
while True:
    try:
        time.sleep(0.05)
    except:
        pass
''',
    # kills the kernel in the answer cell
    "k-exit-in-answer": "import os\nos._exit(0)\n",
    # kills the kernel when the test cell calls the student's function
    "l-exit-in-function": "import os\n\ndef cosine(u, v):\n    os._exit(0)\n",
}

# what "one bad cell costs one exercise" means: these keep their other exercises
KEEP_OTHER_EXERCISES = {"j-swallow-interrupt", "k-exit-in-answer", "l-exit-in-function", "b-read-solutions",
                        "c-zero-gradebook", "d-read-config", "e-other-student", "f-rewrite-checks",
                        "g-detached-process", "h-network"}

WRONG_QUIET = {
    "cosine_solution": "def cosine(u, v):\n    return float(np.dot(u, v))\n",
    "unit_rows_solution": "def unit_rows(M):\n    return np.array(M, dtype=float)\n",
    "cosine_matrix_solution": "def cosine_matrix(U, V):\n    return np.array([[float(np.dot(u, v)) for v in V] for u in U])\n",
}


def _replace(notebooks: dict, gid: str, source: str) -> dict:
    return nbt.apply_mutant(notebooks, {"name": gid, "cell": gid, "source": source})


def _full_submission(root):
    names = nbt.notebook_names(A, root)
    released = {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}
    solutions = {n: nbt.read_nb(root / "solutions" / A / f"{n}.ipynb") for n in names}
    return {n: nbt.fill_solutions(released[n], solutions[n]) for n in names}


def tree_hash(folder, skip=("autograded", "feedback", "gradebook.db", "gradebook.db-journal", "__pycache__")) -> dict:
    """``{relative path: sha256}`` of every file under ``folder`` (symbolic links by their target)."""
    folder = Path(folder)
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        rel_dir = Path(dirpath).relative_to(folder)
        dirnames[:] = [d for d in dirnames if d not in skip and str(rel_dir / d) not in skip]
        for name in filenames:
            rel = rel_dir / name
            if name in skip or str(rel) in skip:
                continue
            p = Path(dirpath) / name
            out[str(rel)] = ("link:" + os.readlink(p)) if p.is_symlink() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


class Listener:
    """A TCP server on 127.0.0.1 that records every connection it accepts."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = []
        self._stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self._stop:
            try:
                conn, addr = self.sock.accept()
            except OSError:
                continue
            self.accepted.append(addr)
            conn.close()

    def close(self):
        self._stop = True
        self.thread.join(2)
        self.sock.close()


# ---------------------------------------------------------------------------------------------
# One autograde run of all the attackers between honest students
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    needs_bwrap()
    nbt.require_assignment(A)
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    import helpers

    work = tmp_path_factory.mktemp("sandbox")
    listener = Listener()
    package = Path(helpers.__file__).resolve().parent
    try:
        with nbt.offline_env(work):
            root = nbt.make_course(work / "course", [A])
            (root / "nbgrader_config.py").write_text(f"# the gradebook's password: {SECRET}\nc = get_config()\n")
            c = nbt.course_config(root)
            assert c.Sandbox.enabled, "the course config does not sandbox although bwrap is installed"
            c.Execute.timeout = TIMEOUT
            api = NbGraderAPI(coursedir=CourseDirectory(config=c), config=c)
            nbt.generate_release(api, A)
            full = _full_submission(root)
            students = {"a-honest-before": full, "y-honest-after": full, "z-wrong-after": full}
            for gid, src in WRONG_QUIET.items():
                students["z-wrong-after"] = _replace(students["z-wrong-after"], gid, src)
            for sid, src in ATTACKS.items():
                students[sid] = _replace(full, "cosine_solution", src.replace("PORT", str(listener.port)))
            for sid, nbs in students.items():
                nbt.submit(root, A, sid, nbs)
            before = tree_hash(root)
            package_before, data_before = tree_hash(package), tree_hash(package.parent / "data")
            with nbt.Stopwatch() as t:
                result = api.autograde(A, "*", force=True, create=True)
            ended = time.time()
            time.sleep(3)  # a surviving process would keep writing
            scores = {sid: nbt.cell_scores(api.coursedir.db_url, A, sid) for sid in students}
            after = tree_hash(root)
            package_after, data_after = tree_hash(package), tree_hash(package.parent / "data")
    finally:
        listener.close()
    print(f"autograde of {len(students)} students: {t.wall:.1f} s")
    return dict(root=root, result=result, scores=scores, students=students, before=before, after=after,
                package=(package_before, package_after), data=(data_before, data_after),
                connections=listener.accepted, ended=ended, db_url=api.coursedir.db_url)


def _code(scores: dict) -> dict:
    return {gid: g for gid, g in scores.items() if g["cell_type"] == "code"}


def _flagged(attacked, student: str, cell: str) -> bool:
    """The cell is left for a person (needs_manual_grade), or ``helpers.grading.flags.read_flags`` lists it."""
    if attacked["scores"][student][cell]["needs_manual_grade"]:
        return True
    from helpers.grading import flags

    if hasattr(flags, "read_flags"):
        return any(f["student"] == student and f["cell"] in (cell, None) for f in flags.read_flags(attacked["db_url"], [A]))
    return False


def _outputs(attacked, student: str) -> str:
    nb = nbt.read_nb(attacked["root"] / "autograded" / student / A / f"{A}.ipynb")
    return "\n".join(str(o) for cell in nb.cells for o in cell.get("outputs", []))


def test_autograde_completes(attacked):
    assert attacked["result"]["success"], attacked["result"].get("error") or attacked["result"].get("log")


@pytest.mark.parametrize("student", ["a-honest-before", "y-honest-after"])
def test_honest_students_keep_full_marks(attacked, student):
    grades = _code(attacked["scores"][student])
    for gid, points in EXERCISES.items():
        assert grades[gid]["score"] == points, f"{student}: {gid} scored {grades[gid]['score']} of {points}"


def test_wrong_but_quiet_student_graded_after_gets_zero(attacked):
    grades = _code(attacked["scores"]["z-wrong-after"])
    assert {gid: grades[gid]["score"] for gid in EXERCISES} == {gid: 0.0 for gid in EXERCISES}


@pytest.mark.parametrize("student", list(ATTACKS))
def test_attacker_gets_no_points_for_the_attacked_exercise(attacked, student):
    grades = _code(attacked["scores"][student])
    assert grades["cosine_tests"]["score"] == 0.0 or _flagged(attacked, student, "cosine_tests"), (
        f"{student} scored {grades['cosine_tests']['score']} for cosine, unflagged")
    if student in KEEP_OTHER_EXERCISES:  # one bad cell costs one exercise
        for gid in ("unit_rows_tests", "cosine_matrix_tests", "cosine_matrix_vectorised_tests"):
            assert grades[gid]["score"] == EXERCISES[gid], f"{student}: {gid} lost its points"


def test_course_files_unchanged(attacked):
    before, after = attacked["before"], attacked["after"]
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"grading changed the course's files: {changed}"


def test_installed_package_and_data_unchanged(attacked):
    for what in ("package", "data"):
        before, after = attacked[what]
        assert before == after, f"the course's {what} changed: {sorted(set(before) ^ set(after))}"


def test_secrets_and_answers_do_not_reach_the_notebook(attacked):
    assert SECRET not in _outputs(attacked, "d-read-config")
    assert "FileNotFoundError" in _outputs(attacked, "d-read-config")
    assert "FileNotFoundError" in _outputs(attacked, "b-read-solutions")


def test_no_network(attacked):
    assert attacked["connections"] == [], f"a submission connected to the grading machine: {attacked['connections']}"
    assert "ConnectionRefusedError" in _outputs(attacked, "h-network") or "OSError" in _outputs(attacked, "h-network")


def test_no_process_survives_its_kernel(attacked):
    marker = attacked["root"] / "autograded" / "g-detached-process" / A / "daemon-alive.txt"
    if marker.exists():  # it ran while the kernel did; it must have stopped with it
        last = float(marker.read_text() or 0)
        assert last < attacked["ended"], f"the detached process still ran {time.time() - last:.1f} s ago"


def test_memory_bomb_is_stopped(attacked):
    out = _outputs(attacked, "i-memory-bomb")
    # a MemoryError in the cell, or a kernel that died of it, or one that, short of memory, sent a broken
    # message (seen once in CI: "Invalid Signature"); each is stopped, and the last two are flagged
    assert any(e in out for e in ("MemoryError", "KernelDied", "KernelMessageError")), out[-2000:]


@pytest.mark.parametrize("student, ename", [("j-swallow-interrupt", "CellTimeoutError"),
                                            ("k-exit-in-answer", "KernelDied"),
                                            ("l-exit-in-function", "KernelDied")])
def test_bad_cell_is_explained(attacked, student, ename):
    nb = nbt.read_nb(attacked["root"] / "autograded" / student / A / f"{A}.ipynb")
    cell = "cosine_tests" if student == "l-exit-in-function" else "cosine_solution"
    outputs = [o for c in nb.cells if nbt.grade_id(c) == cell for o in c.outputs if o.output_type == "error"]
    assert any(o.ename == ename and "flagged for a person" in o.evalue for o in outputs), outputs


def test_attack_is_real_without_the_sandbox(tmp_path):
    """Control: unsandboxed, the read-the-solutions attack reads and runs the worked solution (so the
    test above means something). It no longer earns the points: the judge reads ``def cosine`` from
    the answer cell's source (helpers.grading.judge), and this answer cell has none."""
    nbt.require_assignment(A)
    with nbt.offline_env(tmp_path):
        root = nbt.make_course(tmp_path / "course", [A])
        api = nbt.make_api(root, enabled=False)
        nbt.generate_release(api, A)
        nbt.submit(root, A, "cheat", _replace(_full_submission(root), "cosine_solution", ATTACKS["b-read-solutions"]))
        result = api.autograde(A, "cheat")
        assert result["success"], result.get("error")
        nb = nbt.read_nb(root / "autograded" / "cheat" / A / f"{A}.ipynb")
    answer = next(c for c in nb.cells if nbt.grade_id(c) == "cosine_solution")
    assert answer.outputs == [], answer.outputs  # no FileNotFoundError: solutions/ was read and its cosine ran


# ---------------------------------------------------------------------------------------------
# ResilientExecute on its own (no nbgrader run): outputs, flags, replay
# ---------------------------------------------------------------------------------------------

def _execute(nb, tmp_path, use_sandbox: bool, timeout: int | None = None):
    """Run ``nb`` (in place) through :class:`ResilientExecute` as a course's autograding does; its working folder."""
    from traitlets.config import Config

    from helpers.grading.execute import ResilientExecute

    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    c = Config()
    if timeout is not None:
        c.Execute.timeout = timeout
    c.Sandbox.enabled = use_sandbox
    c.Sandbox.course_root = str(tmp_path / "course")
    work = tmp_path / "course" / "autograded" / "s" / "a"
    work.mkdir(parents=True)
    with nbt.offline_env(tmp_path):
        ResilientExecute(config=c).preprocess(nb, {"metadata": {"path": str(work)}})
    return work


@pytest.mark.parametrize("use_sandbox", [True, False])
def test_resilient_execute_recovers_and_flags(tmp_path, use_sandbox):
    from nbformat.v4 import new_code_cell, new_notebook
    from helpers.grading.flags import notebook_flags

    if use_sandbox:
        needs_bwrap()

    def graded(source, gid):
        return new_code_cell(source, metadata={"nbgrader": {"grade_id": gid}})

    nb = new_notebook(cells=[
        new_code_cell("x = 1"),
        graded("import os\nos._exit(0)", "dies"),
        new_code_cell("print(x + 1)"),
        graded("import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except:\n        pass", "hangs"),
        new_code_cell("x += 10\nprint(x + 2)"),
        graded("import os\nos.symlink('/etc/passwd', 'link')", "links"),
        graded("get_ipython().kernel.session.key = b'forged'\nprint('unreadable')", "garbles"),
        new_code_cell("print(x + 3)"),
    ])
    work = _execute(nb, tmp_path, use_sandbox, timeout=5)
    out = [[(o.output_type, o.get("text") or o.get("ename")) for o in cell.outputs] for cell in nb.cells]
    assert out[0] == []
    assert out[1] == [("error", "KernelDied")]
    assert out[2] == [("stream", "2\n")]                       # x came back: cell 0 was replayed
    assert ("error", "CellTimeoutError") in out[3]
    assert out[4] == [("stream", "13\n")]                      # replay ran cells 0 and 2 once each, not 1 or 3
    assert out[6] == [("error", "KernelMessageError")]         # a changed session key: messages unreadable
    assert out[7] == [("stream", "14\n")]                      # a new kernel, replayed (cells 0, 2, 4; not 5)
    flags = notebook_flags(nb)
    # sandboxed, the link lands in the kernel's own tmpfs and never in the real folder; without the
    # sandbox it does, and is removed and flagged
    assert [f["cell"] for f in flags] == ["dies", "hangs", "garbles"] + ([] if use_sandbox else [None])
    assert "os._exit" in flags[0]["reason"] and "did not stop when interrupted" in flags[1]["reason"]
    assert "could not read (ValueError: Invalid Signature" in flags[2]["reason"]
    assert not os.path.lexists(work / "link"), "a symbolic link left by the notebook was not removed"


@pytest.mark.parametrize("use_sandbox", [True, False])
def test_graded_figures_are_drawn_at_their_own_size(tmp_path, use_sandbox):
    """The grading kernels draw a figure's PNG at the figure's size, not cropped to its artists."""
    import base64
    import struct

    from nbformat.v4 import new_code_cell, new_notebook

    if use_sandbox:
        needs_bwrap()
    nb = new_notebook(cells=[new_code_cell(
        "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(figsize=(3, 2), dpi=100, layout='constrained')\n"
        "ax.plot([0, 1], [1, 0])\nax.set_title('a title')\nplt.show()")])
    _execute(nb, tmp_path, use_sandbox)
    images = [base64.b64decode(o.data["image/png"]) for o in nb.cells[0].outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, nb.cells[0].outputs
    assert struct.unpack(">II", images[0][16:24]) == (300, 200)  # cropped to its artists, it would not be


def test_resilient_execute_gives_up_after_max_restarts(tmp_path):
    from nbformat.v4 import new_code_cell, new_notebook
    from traitlets.config import Config

    from helpers.grading.execute import ResilientExecute
    from helpers.grading.flags import notebook_flags

    nb = new_notebook(cells=[new_code_cell("import os\nos._exit(0)") for _ in range(3)] + [new_code_cell("print(1)")])
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    c = Config()
    c.Sandbox.enabled = False
    c.ResilientExecute.max_restarts = 1
    with nbt.offline_env(tmp_path):
        ResilientExecute(config=c).preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    enames = [[o.get("ename") for o in cell.outputs] for cell in nb.cells]
    assert enames == [["KernelDied"], ["KernelDied"], ["NotRun"], ["NotRun"]]
    assert notebook_flags(nb)[-1]["cell"] is None


_WEDGED: list = []  # contexts a failing run of the test below leaves blocked: kept, so that no collection waits on them


def test_letting_go_of_a_kernel_never_blocks_the_shared_context():
    """ZeroMQ's I/O thread sends each event of a socket monitor with a blocking send. The client closed the reader of
    its iopub socket's events before that socket, so a kernel that went away meanwhile (the executor shuts the kernel
    down right after the client lets go of it) blocked that thread for good, and with it every socket of the process's
    shared context: every later kernel of the process "didn't respond in 60 seconds" (seen under Python 3.11.2 after
    the kernel that forged its session key). Here a kernel's two sockets go away as the client stops, fifty times,
    each time followed by a message through the same context (without the fix, blocked after 1 to 19 of them)."""
    import zmq

    from helpers.grading.execute import BoundedKernelClient, _BoundedContext

    context, kernel = _BoundedContext(), zmq.Context()  # the client's own context: a blocked one stays in this test
    _WEDGED.append(context)
    plain = zmq.Context.shadow(context.underlying)  # the same context (and I/O thread), with blocking sockets
    try:
        for attempt in range(50):
            iopub, shell = kernel.socket(zmq.PUB), kernel.socket(zmq.ROUTER)
            iopub.monitor(f"inproc://accepted-{attempt}", zmq.EVENT_ACCEPTED)
            accepted = kernel.socket(zmq.PAIR)
            accepted.connect(f"inproc://accepted-{attempt}")
            iopub_port, shell_port = (s.bind_to_random_port("tcp://127.0.0.1") for s in (iopub, shell))
            kc = BoundedKernelClient(context=context, ip="127.0.0.1", transport="tcp", iopub_port=iopub_port,
                                     shell_port=shell_port)
            kc.start_channels()
            assert accepted.poll(10_000), "the client's iopub socket did not connect"
            kc.stop_channels()
            for s in (accepted, iopub, shell):  # the kernel goes away
                s.close(linger=0)
            probe = kernel.socket(zmq.ROUTER)
            client = plain.socket(zmq.DEALER)
            client.connect(f"tcp://127.0.0.1:{probe.bind_to_random_port('tcp://127.0.0.1')}")
            client.send(b"kernel_info_request")
            answered = probe.poll(10_000)
            client.close(linger=0)
            probe.close(linger=0)
            assert answered, f"the context no longer reaches a kernel after {attempt + 1} clients let go of theirs"
    finally:
        kernel.destroy(linger=0)


# ---------------------------------------------------------------------------------------------
# The command line and the environment (no bubblewrap needed)
# ---------------------------------------------------------------------------------------------

def _binds(cmd):
    """``{"ro": [...], "rw": [...]}`` destinations of the bind mounts of a bwrap command line."""
    out = {"ro": [], "rw": []}
    for i, arg in enumerate(cmd):
        if arg in ("--ro-bind", "--ro-bind-try"):
            out["ro"].append(cmd[i + 2])
        elif arg == "--bind":
            out["rw"].append(cmd[i + 2])
    return out


def test_bwrap_command_isolates(tmp_path):
    root = tmp_path / "course"
    work = root / "autograded" / "alice" / A
    private = tmp_path / "kernel"
    for p in (work, private, root / "solutions", root / ".venv"):
        p.mkdir(parents=True)
    (private / "k.json").write_text("{}")
    ro = sandbox.read_only_paths(root, extra=[root / ".venv"], env={"PYTHONPATH": f"{root}:{tmp_path}"})
    cmd = sandbox.bwrap_command(["python", "-m", "ipykernel_launcher", "-f", str(private / "k.json")],
                                workdir=work, private_dir=private, read_only=ro,
                                env=sandbox.kernel_env({"PATH": "/usr/bin"}), memory_mb=1024)
    sep = cmd.index("--")
    opts = cmd[:sep]
    for flag in ("--unshare-all", "--die-with-parent", "--new-session", "--clearenv"):
        assert flag in opts
    assert opts[opts.index("--cap-drop") + 1] == "ALL"
    assert "--share-net" not in opts
    binds = _binds(opts)
    assert binds["rw"] == [str(work.resolve())]
    assert str(private.resolve()) in binds["ro"]  # the connection file: read, never written
    assert str(root.resolve() / ".venv") in binds["ro"]            # CI's venv inside the course root
    for hidden in (root, root / "solutions", tmp_path, Path.home(), Path("/")):
        assert str(Path(hidden).resolve()) not in binds["ro"] + binds["rw"], f"{hidden} is visible"
    assert not any(b.startswith(("/run", "/var", "/sys")) for b in binds["ro"] + binds["rw"])
    etc = [b for b in binds["ro"] if b.startswith("/etc")]
    assert "/etc" not in etc and "/etc/shadow" not in etc and "/etc/ld.so.cache" in etc
    assert cmd[sep + 1:sep + 5] == ["prlimit", f"--as={1024 * 2**20}", f"--msgqueue={sandbox.MSGQUEUE_BYTES}", "--"]
    limited = sandbox.bwrap_command(["python"], workdir=work, private_dir=private, read_only=ro,
                                    env={}, memory_mb=1024, max_processes=99)
    assert limited[limited.index("--") + 1:limited.index("--") + 6] == [
        "prlimit", f"--as={1024 * 2**20}", "--nproc=99", f"--msgqueue={sandbox.MSGQUEUE_BYTES}", "--"]
    assert cmd[-5:-3] == ["python", "-m"]
    assert opts[opts.index("--chdir") + 1] == str(work.resolve())


FORK_BOMB = """
import os, time
made = 0
try:
    for _ in range(300):
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        made += 1
except OSError as exc:
    print("stopped", made, exc.errno)
else:
    print("not stopped", made)
"""


LIMIT = 64  # of 300 forks the bomb tries


def test_fork_bomb_is_stopped_for_an_ordinary_grader():
    """RLIMIT_NPROC, which Linux never applies to root: a grader that is an ordinary user (an
    instructor on a hub) runs a fork bomb in the sandbox's command line; it stops at the limit and
    its processes die with the sandbox."""
    import pwd
    import shutil as _shutil
    import subprocess as sp

    bwrap = sandbox.find_bwrap()
    if bwrap is None or os.geteuid() != 0 or not _shutil.which("runuser"):
        reason = "needs bubblewrap and root (to run the sandbox as the ordinary user nobody)"
        if os.environ.get("COURSE_TEST_SANDBOX_REQUIRED") == "1":
            pytest.fail(f"COURSE_TEST_SANDBOX_REQUIRED=1 but this test {reason}")
        pytest.skip(reason)
    import tempfile

    nobody = pwd.getpwnam("nobody")
    top = Path(tempfile.mkdtemp(prefix="weat-forkbomb-"))  # not under pytest's folder: nobody cannot enter it
    top.chmod(0o755)
    work, private = top / "work", top / "kernel"
    for p in (work, private):
        p.mkdir()
        os.chown(p, nobody.pw_uid, nobody.pw_gid)
    (work / "bomb.py").write_text(FORK_BOMB)
    cmd = sandbox.bwrap_command(["/usr/bin/python3", str(work / "bomb.py")], workdir=work, private_dir=private,
                                read_only=[], env=sandbox.kernel_env({"PATH": "/usr/bin:/bin"}),
                                max_processes=LIMIT, bwrap=bwrap)
    try:
        res = sp.run(["runuser", "-u", "nobody", "--", *cmd], capture_output=True, text=True, timeout=60, cwd="/")
    finally:
        _shutil.rmtree(top, ignore_errors=True)
    assert res.stdout.startswith("stopped"), (res.stdout, res.stderr)
    made = int(res.stdout.split()[1])
    assert made < LIMIT, res.stdout
    survivors = sp.run(["pgrep", "-u", "nobody", "-f", "bomb.py"], capture_output=True, text=True).stdout.split()
    assert not survivors, f"processes of the fork bomb survived the sandbox: {survivors}"


def test_read_only_paths_hold_the_package_not_its_folder():
    import helpers

    package = Path(helpers.__file__).resolve().parent
    ro = sandbox.read_only_paths(Path("/nonexistent-course"), env={"PYTHONPATH": str(package.parent)})
    assert package in ro and (package.parent / "data") in ro
    assert package.parent not in ro                                 # not solutions/, tests/, ...
    assert Path(os.path.realpath(sys.base_prefix)) in ro


def test_kernel_env_is_an_allow_list():
    env = sandbox.kernel_env({"PATH": "/usr/bin", "HOME": "/root", "NBGRADER_EXECUTION": "autograde",
                              "DATABASE_URL": "postgresql://u:pw@h/db", "PGPASSWORD": "pw", "JPY_PARENT_PID": "1",
                              "OPENBLAS_NUM_THREADS": "2", "AWS_SECRET_ACCESS_KEY": "k", "LC_ALL": "C.UTF-8"})
    assert env["HOME"] == sandbox.SANDBOX_HOME and env["NBGRADER_EXECUTION"] == "autograde"
    assert env["OPENBLAS_NUM_THREADS"] == "2" and env["LC_ALL"] == "C.UTF-8"
    for k in ("DATABASE_URL", "PGPASSWORD", "JPY_PARENT_PID", "AWS_SECRET_ACCESS_KEY"):
        assert k not in env


def test_workdir_holding_the_course_is_refused(tmp_path):
    with pytest.raises(sandbox.SandboxError, match="Refusing"):
        sandbox.check_workdir(tmp_path, tmp_path / "course", [])
    with pytest.raises(sandbox.SandboxError, match="inside /usr"):
        sandbox.check_workdir(tmp_path, Path("/usr/local/course"), [])


def test_missing_bwrap_stops_the_kernel_start(monkeypatch, tmp_path):
    from traitlets.config import Config

    monkeypatch.setattr(sandbox, "find_bwrap", lambda: None)
    km = sandbox.SandboxKernelManager(kernel_name="python3", config=Config())
    with pytest.raises(sandbox.SandboxError, match="apt-get install bubblewrap"):
        asyncio.run(km.start_kernel(cwd=str(tmp_path)))


def test_configure_swaps_execute_and_needs_bwrap(monkeypatch):
    from traitlets.config import Config

    from helpers.grading import course
    from helpers.grading.execute import ResilientExecute

    c = course.configure(Config(), sandbox=False, memory_mb=512)
    pps = c.Autograde.autograde_preprocessors
    assert pps[0] is ResilientExecute and len(pps) == 7
    assert c.Sandbox.enabled is False and c.Sandbox.memory_mb == 512
    c = nbt.course_config(Path("/tmp/unused-course"))               # nbgrader_config.py
    wired = list(c.Autograde.autograde_preprocessors)
    assert wired[0] is ResilientExecute and c.Sandbox.memory_mb == 4096
    assert course.configure(c, sandbox=False).Autograde.autograde_preprocessors == wired  # idempotent
    # nbgrader's metadata check, in both lists, is the course's (the same checks, tests/test_grading_damage.py)
    from helpers.grading.submission import CheckCellMetadataOnce
    for pps in (wired, c.Autograde.sanitize_preprocessors, course.configure(Config(), sandbox=False).Autograde.sanitize_preprocessors):
        assert CheckCellMetadataOnce in pps and not any(getattr(pp, "__name__", pp) == "CheckCellMetadata" for pp in pps)
    assert c.Exporter.optimistic_validation is True
    monkeypatch.setattr(course, "find_bwrap", lambda: None)
    course.configure(Config(), require_bwrap=False)               # what nbgrader_config.py does
    with pytest.raises(sandbox.SandboxError) as err:
        course.configure(Config())
    assert "apt-get install bubblewrap" in str(err.value) and "--no-sandbox" in str(err.value)


@pytest.mark.parametrize("student, cell", [("j-swallow-interrupt", "cosine_solution"),
                                           ("k-exit-in-answer", "cosine_solution"),
                                           ("l-exit-in-function", "cosine_tests")])
def test_bad_cell_is_flagged_in_the_gradebook(attacked, student, cell):
    """ResilientExecute's flags reach the gradebook (helpers.grading.flags.SaveFlags), so plain autograde shows them."""
    from helpers.grading import flags

    if not hasattr(flags, "read_flags"):
        pytest.skip("helpers.grading.flags has no read_flags yet")
    found = [f for f in flags.read_flags(attacked["db_url"], [A]) if f["student"] == student]
    assert any(f["cell"] == cell for f in found), found


def test_read_only_paths_of_an_installed_package_hold_its_environment(monkeypatch, tmp_path):
    """A package installed in an environment (a hub's /opt/weat-course): the environment's folder is
    bound, with the interpreter, even though it holds the package's folder (site-packages)."""
    env_root = tmp_path / "opt" / "weat-course"
    site_packages = env_root / "lib" / "python3.11" / "site-packages"
    (site_packages / "helpers").mkdir(parents=True)
    (env_root / "bin").mkdir()
    monkeypatch.setattr(sandbox, "package_dir", lambda: site_packages / "helpers")
    monkeypatch.setattr(sandbox, "python_roots", lambda: [env_root])
    ro = sandbox.read_only_paths(tmp_path / "course", env={})
    assert env_root in ro
    # a checkout is different: its folder is the course, never bound as a whole
    checkout = tmp_path / "checkout"
    (checkout / "helpers").mkdir(parents=True)
    monkeypatch.setattr(sandbox, "package_dir", lambda: checkout / "helpers")
    monkeypatch.setattr(sandbox, "python_roots", lambda: [tmp_path])
    ro = sandbox.read_only_paths(tmp_path / "course", env={})
    assert checkout / "helpers" in ro and checkout not in ro and tmp_path not in ro
