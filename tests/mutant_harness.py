"""The mutants of an assignment judged in one forking kernel instead of one nbgrader round trip each.

A full round trip of a mutant (submit, ``nbgrader autograde``, a fresh sandboxed kernel importing SciPy,
gensim and matplotlib, loading GloVe, running every cell) costs seconds of CPU, almost all of it the same
for every mutant. Here the worked solution runs once in :mod:`forkserver`; before the first cell a mutant
changes, the kernel forks, and the copy runs the mutant's cells from there to the last graded cell (leaving
out the cells whose effects no later cell can see, :mod:`cell_effects`) while the course's own judge
(:class:`helpers.grading.judge.NotebookJudge`, the code the grader runs) judges every graded cell, exactly as
in ``nbgrader autograde``: the visible checks run in the kernel, the hidden tests in this process, with the
kernel importing the copy of ``helpers`` without the assignment's reference implementations.

What this does not exercise, and the full round trips in ``tests/test_notebooks.py`` do (for the worked
solution, the untouched release and a sample of mutants, whose cell-by-cell scores are compared with
this harness's): nbgrader itself (collect, the gradebook, the preprocessors), the sandbox, ipykernel's
messaging and the per-notebook budgets.
"""
from __future__ import annotations

import logging
import os
import queue
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

import nbformat

from cell_effects import cells_to_run, names_read
from helpers.grading import judge

SERVER = Path(__file__).resolve().parent / "forkserver.py"


class HarnessError(RuntimeError):
    """The harness could not judge a notebook (the kernel died or hung): not a verdict on the notebook."""


@dataclass
class Verdict:
    """One notebook's graded test cells: ``scores[grade_id] = (score, max_score)``; ``errors`` says why a
    cell lost its points, ``hidden`` the messages of the cells whose visible checks passed and whose hidden
    tests failed (what the student's feedback shows), ``flags`` what the judge flagged for a person."""

    scores: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    hidden: dict = field(default_factory=dict)
    flags: dict = field(default_factory=dict)


class _Server:
    """The forking kernel, driven over a socket pair."""

    def __init__(self, cwd: Path, env: dict, log_path: Path):
        ours, theirs = socket.socketpair()
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen([sys.executable, str(SERVER), str(theirs.fileno())], cwd=cwd, env=env,
                                     pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        theirs.close()
        self.conn = Connection(ours.detach())
        self.pid = self.proc.pid  # the process that answers now (a forked child while one runs)

    def ask(self, msg, timeout: float):
        self.conn.send(msg)
        return self.receive(timeout)

    def receive(self, timeout: float):
        if not self.conn.poll(timeout):
            raise TimeoutError(f"no answer to the harness within {timeout:.0f} s")
        try:
            return self.conn.recv()
        except EOFError:
            raise HarnessError("the kernel died") from None

    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        if self.pid == self.proc.pid:
            return self.proc.poll() is None
        try:  # a forked child is the server's child, not ours: a zombie still answers kill(0)
            with open(f"/proc/{self.pid}/stat") as f:
                return f.read().split(") ", 1)[1][0] != "Z"
        except OSError:
            return False

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.conn.close()
        self.log.close()


class _KernelClient:
    """The two calls of a kernel client the judge makes (:class:`helpers.grading.judge._Channel`)."""

    def __init__(self, server: _Server):
        self.server = server
        self.replies: queue.Queue = queue.Queue()

    def execute(self, code, silent=True, store_history=False, allow_stdin=False, stop_on_error=False,
                user_expressions=None):
        self.server.conn.send(("execute", code, user_expressions or {}))
        return "harness"

    def get_shell_msg(self, timeout=None):
        try:
            op, content = self.server.receive(timeout or 1)
        except TimeoutError:
            raise queue.Empty from None
        assert op == "reply", op
        return {"parent_header": {"msg_id": "harness"}, "content": content}

    def get_iopub_msg(self, timeout=None):
        raise queue.Empty


class _KernelManager:
    def __init__(self, server: _Server):
        self.server = server

    def interrupt_kernel(self):
        os.kill(self.server.pid, signal.SIGINT)

    def is_alive(self):
        return self.server.alive()


class _Executor:
    """What :meth:`helpers.grading.judge.NotebookJudge.judge_cell` needs of nbgrader's executor."""

    def __init__(self, server: _Server, nb):
        self.kc, self.km, self.nb = _KernelClient(server), _KernelManager(server), nb
        self.log = logging.getLogger("mutant_harness")

    def _recover(self, cell, index, ename, text):
        raise HarnessError(f"cell {index} hung in the judge: {text}")


def _graded(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def last_graded(nb) -> int:
    """The index of the notebook's last graded code cell (-1: none)."""
    return max((i for i, c in enumerate(nb.cells) if _graded(c)), default=-1)


def _first_change(base, nb) -> int:
    assert len(base.cells) == len(nb.cells), "a variant must have the cells of the worked solution"
    for i, (a, b) in enumerate(zip(base.cells, nb.cells)):
        if a.source != b.source:
            return i
    return len(base.cells)


class Harness:
    """Judge variants of one assignment's worked solution (its mutants) in one forking kernel.

    Parameters
    ----------
    assignment : str
        The assignment (``hidden_tests/<assignment>.py`` holds its hidden tests).
    base : nbformat.NotebookNode
        The worked solution filled into the release (what the round trip's full-marks student submits).
    course_root : Path
        The course folder: ``hidden_tests/`` and ``.judge-secret`` as the grader reads them.
    work : Path
        A scratch folder (the kernel's working folder and its log).
    timeout : float
        Seconds allowed for one cell or one judged call.
    """

    def __init__(self, assignment: str, base, course_root: Path, work: Path, timeout: float = 300.0):
        self.assignment, self.base, self.timeout = assignment, base, timeout
        self.cases_path = Path(course_root) / "hidden_tests" / f"{assignment}.py"
        self.cases = judge.load_cases(self.cases_path)
        self.names_read = names_read(self.cases_path)
        self.cells_left_out = 0  # by mutants' copies (cells_to_run), over every run
        self.retried: list = []  # mutants judged once more after the spurious parser error
        self.secret = (Path(course_root) / ".judge-secret").read_text().strip()
        refs = getattr(self.cases, "REFERENCES", {}) or {}
        self.work = Path(work)
        self.work.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        if refs:  # as the grader does without the sandbox: the stripped copy first on the path
            # the grader's own cache: one compiled copy per content, shared by both kernels and every run
            copy = judge.stripped_package(refs, judge._private_cache())
            env["PYTHONPATH"] = os.pathsep.join(p for p in (str(copy.parent), env.get("PYTHONPATH")) if p)
        env.update(PYTHONSAFEPATH="1", MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1")
        self.env = env

    def _judge(self, server: _Server, nb, student: str, start: int, stop: int, verdict: Verdict,
               run: set | None = None) -> None:
        """Run cells ``start..stop-1`` of ``nb`` in the kernel ``server`` answers with, judging each graded
        cell. Cells after the last graded one are never run: they cannot change a score; given ``run`` (a
        mutant's copy, which nothing runs after: :func:`cells_to_run`), only those cells run."""
        seed = judge.submission_seed(self.secret, self.assignment, student)
        nj = judge.NotebookJudge(None, self.cases, self.cases_path, seed, (), self.timeout)
        executor = _Executor(server, nb)
        stop = min(stop, last_graded(nb) + 1)
        if run is None:
            run = set(range(start, stop))
        self.cells_left_out += sum(nb.cells[i].cell_type == "code" and i not in run for i in range(start, stop))
        for index in range(start, stop):
            cell = nb.cells[index]
            if cell.cell_type != "code" or index not in run:
                continue
            try:
                op, error = server.ask(("run", cell.source), self.timeout)
            except TimeoutError:
                raise HarnessError(f"{self.assignment}: cell {index} ran longer than {self.timeout:.0f} s") from None
            assert op == "ran", op
            if not _graded(cell):
                continue
            gid = cell.metadata.nbgrader.grade_id
            cell.outputs = [] if error is None else [
                nbformat.v4.new_output("error", ename=error[0], evalue=error[1], traceback=[])]
            nj.judge_cell(executor, cell, index)
            errors = [o for o in cell.outputs if o.get("output_type") == "error"]
            points = float(cell.metadata.nbgrader.get("points", 0))
            verdict.scores[gid] = (0.0 if errors else points, points)
            if errors:
                verdict.errors[gid] = f"{errors[0].get('ename')}: {str(errors[0].get('evalue'))[:500]}"
                if error is None:
                    verdict.hidden[gid] = str(errors[0].get("evalue"))
        for flag in nb.metadata.get("course_flags") or []:
            verdict.flags.setdefault(str(flag.get("cell") if isinstance(flag, dict) else None), str(flag))
        nb.metadata.pop("course_flags", None)

    def plan(self, variants: dict) -> dict:
        """``{label: the cells its copy runs}`` (:func:`cells_to_run`). Called before :meth:`run`, in one thread:
        CPython 3.11.7's parser raised "AST constructor recursion depth mismatch" when another thread compiled at
        the same time (the judge does)."""
        plans = {}
        for label, nb in variants.items():
            start = _first_change(self.base, nb)
            plans[label] = set(cells_to_run(nb, start, last_graded(nb) + 1, self.names_read))
        return plans

    def run(self, variants: dict, students: dict, plans: dict) -> dict:
        """``{label: Verdict}`` for the worked solution (label ``"full"``) and each variant.

        ``variants`` maps a label to a notebook (the base with some solution cells changed);
        ``students`` maps each label (and ``"full"``) to the student id whose seed the judge uses;
        ``plans`` each label to the cells its copy runs (:meth:`plan`).
        """
        import copy

        starts = {label: _first_change(self.base, nb) for label, nb in variants.items()}
        self.full_student = students["full"]
        base = copy.deepcopy(self.base)
        server = _Server(self.work, self.env, self.work / "kernel.log")
        verdicts = {"full": Verdict()}
        try:
            done = 0
            for label in sorted(variants, key=lambda k: starts[k]):
                start = starts[label]
                # the worked solution up to the mutant's first change (judged: the "full" student's cells)
                self._judge_until(server, base, done, start, verdicts["full"])
                done = start
                # judged once more after CPython's spurious parser error (judge.SPURIOUS_ERROR, python/cpython#106905;
                # CI run 22 met it once in a judged cell); run_mutants says which were
                for _ in range(2):
                    verdicts[label] = self._fork(server, copy.deepcopy(variants[label]), students[label], start,
                                                 verdicts["full"], plans[label])
                    if not any(judge.SPURIOUS_ERROR in e for e in verdicts[label].errors.values()):
                        break
                    self.retried.append(label)
            self._judge_until(server, base, done, len(base.cells), verdicts["full"])
        finally:
            server.close()
        return verdicts

    def _judge_until(self, server, nb, start: int, stop: int, verdict: Verdict) -> None:
        if stop > start:
            self._judge(server, nb, self.full_student, start, stop, verdict)

    def _fork(self, server: _Server, nb, student: str, start: int, before: Verdict, run: set) -> Verdict:
        op, pid = server.ask(("fork",), 60)
        assert op == "forked", op
        server.pid = pid
        verdict = Verdict(dict(before.scores), dict(before.errors), dict(before.hidden), {})
        try:
            self._judge(server, nb, student, start, len(nb.cells), verdict, run)
            server.conn.send(("exit",))
        except BaseException:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            raise
        finally:
            server.pid = server.proc.pid
            try:
                op, _ = server.receive(60)
                assert op == "resumed", op
            except (TimeoutError, HarnessError):
                pass
        return verdict


def run_mutants(assignment: str, full_nb, mutants: list, students: dict, course_root, work,
                workers: int | None = None, extra: dict | None = None) -> tuple[dict, int]:
    """``{label: Verdict}`` for the worked solution (``"full"``), every mutant (by name) and every notebook of
    ``extra`` (``{label: notebook}``, variants of the worked solution such as several mutants at once), and how
    many cells the copies left out (:func:`cells_to_run`).

    The mutants are shared out between ``workers`` forking kernels, each running the worked solution once;
    their verdicts on the worked solution must agree. The default is :func:`nbgrader_tools.parallel_processes`:
    one kernel under pytest-xdist, whose workers already keep every core busy, else two (one on a one-core
    machine). Under xdist a second kernel runs the worked solution again and cost more CPU than it saved time;
    measured alone on the 2-core machine, 08_debiasing took 36-39 CPU-s in one kernel against 59-61 in two,
    11_enumerating_biases 27 against 36.
    """
    from concurrent.futures import ThreadPoolExecutor

    import nbgrader_tools as nbt

    name = full_nb.metadata.get("name", assignment)
    variants = {m["name"]: nbt.apply_mutant({name: full_nb}, m)[name] for m in mutants} | dict(extra or {})
    order = sorted(variants, key=lambda k: _first_change(full_nb, variants[k]))
    workers = max(1, min(workers or nbt.parallel_processes(2), len(order) or 1))
    groups = [{k: variants[k] for k in order[i::workers]} for i in range(workers)]
    harnesses = [Harness(assignment, full_nb, Path(course_root), Path(work) / f"kernel{i}") for i in range(workers)]
    plans = harnesses[0].plan(variants)
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda hg: hg[0].run(hg[1], students, plans), zip(harnesses, groups)))
    verdicts = {}
    for result in results:
        assert result["full"].scores == results[0]["full"].scores, (
            f"{assignment}: the worked solution scored differently in two kernels: "
            f"{results[0]['full'].scores} and {result['full'].scores}")
        verdicts.update(result)
    retried = [label for h in harnesses for label in h.retried]
    if retried:
        print(f"{assignment}: judged again after CPython's spurious parser error: {retried}")
    return verdicts, sum(h.cells_left_out for h in harnesses)
