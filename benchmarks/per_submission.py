"""CPU seconds of autograding ONE submission (the worked solution), per assignment, split by process.

Run from a checkout's root with its own environment (the editable install must be that checkout's)::

    python -m benchmarks.per_submission --assignments 01_cosine 04_effect_size --students 3 --json out.json

It makes a temporary course with ``tests/nbgrader_tools.py`` and generates each release; then, in this
process (as one worker of ``python -m helpers grade`` does), it autogrades a first student (the
solutions filled into the release) and then ``--students`` more, one nbgrader run each. It prints one
JSON object: per assignment the CPU seconds of

* ``first``: the first submission, which also pays for what a worker does once (imports, and with the
  judge of issue 18 the grader's own copy of the embedding and the hidden-test modules);
* ``grader_s`` and ``kernels_s``: each further submission (the median), in this process and in its
  kernels; ``cpu_s`` is their sum, the cost that grows with the size of the class.

With ``--feedback`` each submission's feedback is also written, as ``python -m helpers grade`` does after
autograding it (nbgrader's ``generate_feedback``, the course's feedback page), and ``feedback_s`` reports the
median CPU seconds of that step for the further submissions (in this process: it runs no kernel).

With ``--distinct-answers`` each student's answer cells end with a comment naming the student, so that no two
submissions have the same answer cells, as in a class (the grader keeps some work by a cell's source: the
feedback page's highlighted code); the code run is the same.

With ``--without-judge`` each further submission is graded twice in a row, with the judge and without it
(its hidden tests not run), and ``without_judge`` reports the second and ``judge_s``, the median of the
differences: what judging costs on the same notebooks and library, whatever else changed between checkouts.

CPU time depends much less on the machine's load than wall time (reported too). Without the sandbox
(the default here) kernels are this process's children and ``getrusage`` counts them. With ``--sandbox``
(bubblewrap) a kernel is reaped inside the sandbox's PID namespace, so ``getrusage`` never sees it
(measured: a sandboxed child burning 1 CPU-second adds 0.002 s); warm kernels (``Sandbox.warm_kernels``,
on by default) are counted through their template, which reports what it and its kernels used
(:func:`helpers.grading.warm.sandbox_cpu`; its start, imports included, falls in ``first``), plain sandboxed
kernels (``--plain``) not at all. To compare two versions of the grader (for example before and after the judge of issue 18),
run this file in each checkout alternately in the same session (``cd CHECKOUT && python
/path/to/per_submission.py ...``) and compare the medians (BENCHMARKS.md, "Grading one submission").
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path


def _cpu() -> tuple[float, float]:
    """(CPU seconds of this process, CPU seconds of its waited-for children and of its warm kernels)."""
    try:
        from helpers.grading.warm import sandbox_cpu
    except ImportError:  # a checkout from before warm kernels (run there to compare)
        def sandbox_cpu():
            return 0.0
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime + sandbox_cpu()


@contextlib.contextmanager
def _judge(on: bool):
    """The judge as graded (``on``), or switched off for the benchmark alone (no hidden tests run)."""
    if on:
        yield
        return
    from helpers.grading import execute
    saved = execute.judge_for
    execute.judge_for = lambda *args, **kwargs: None
    try:
        yield
    finally:
        execute.judge_for = saved


def _signed(nbs: dict, student: str) -> dict:
    """``nbs`` with each answer cell ending in a comment line that names ``student``."""
    import copy

    out = copy.deepcopy(nbs)
    for nb in out.values():
        for cell in nb.cells:
            if cell.cell_type == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
                cell.source = cell.source.rstrip("\n") + f"\n# {student}\n"
    return out


def main(argv=None) -> int:
    """Measure; print and optionally write the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignments", nargs="+", default=None, help="default: every assignment")
    parser.add_argument("--students", type=int, default=3,
                        help="submissions measured after the first one (the median is reported)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--sandbox", action="store_true",
                        help="grade in bubblewrap (kernels' CPU time is then not counted)")
    parser.add_argument("--plain", action="store_true",
                        help="with --sandbox: start every kernel plainly (Sandbox.warm_kernels = False)")
    parser.add_argument("--feedback", action="store_true",
                        help="also write each submission's feedback, as `python -m helpers grade` does, and report "
                             "its CPU seconds (feedback_s)")
    parser.add_argument("--distinct-answers", action="store_true",
                        help="end each student's answer cells with a comment naming the student (no two submissions "
                             "alike, as in a class)")
    parser.add_argument("--without-judge", action="store_true",
                        help="also grade every further submission once more with the judge switched off (its "
                             "hidden tests not run; the score is then not full marks), alternately, and report "
                             "the difference: what judging costs, with the same notebooks and library")
    args = parser.parse_args(argv)
    if not args.sandbox:
        os.environ["COURSE_TEST_SANDBOX"] = "0"
    sys.path.insert(0, str(Path.cwd() / "tests"))
    import nbgrader_tools as nbt

    names = args.assignments or nbt.discover_assignments()
    out = {"python": sys.executable, "checkout": str(Path.cwd()), "sandbox": nbt.sandbox_available(),
           "warm_kernels": nbt.sandbox_available() and not args.plain, "assignments": {}}
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tmp = Path(tmp)
        with nbt.offline_env(tmp / "env"):
            course = nbt.make_course(tmp / "course", names)
            api = nbt.make_api(course)
            api.config.Sandbox.warm_kernels = not args.plain
            for a in names:
                nbt.generate_release(api, a)
                release = course / "notebooks" / a
                nbs = {nb: nbt.fill_solutions(nbt.read_nb(release / f"{nb}.ipynb"),
                                              nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{nb}.ipynb"))
                       for nb in nbt.notebook_names(a)}
                students = [f"bench-{a}-{i}" for i in range(args.students + 1)]
                for student in students:
                    nbt.submit(course, a, student, _signed(nbs, student) if args.distinct_answers else nbs)
                runs, bare, feedback, full = [], [], [], True
                for i, student in enumerate(students):
                    for judged in (True, False) if (args.without_judge and i) else (True,):
                        with _judge(judged):
                            (g0, k0), t0 = _cpu(), time.perf_counter()
                            result = api.autograde(a, student, force=True, create=True)
                            (g1, k1), t1 = _cpu(), time.perf_counter()
                        if not result["success"]:
                            raise SystemExit(f"autograde {a} {student} failed: {result.get('error')}")
                        (runs if judged else bare).append((g1 - g0, k1 - k0, t1 - t0))
                        if judged:
                            auto = [g for g in nbt.cell_scores(api.coursedir.db_url, a, student).values()
                                    if not g["needs_manual_grade"]]
                            full &= sum(g["score"] for g in auto) == sum(g["max_score"] for g in auto)
                    if args.feedback:
                        (g0, k0) = _cpu()
                        result = api.generate_feedback(a, student, force=True)
                        (g1, k1) = _cpu()
                        if not result["success"]:
                            raise SystemExit(f"generate_feedback {a} {student} failed: {result.get('error')}")
                        feedback.append(g1 - g0 + k1 - k0)
                later = runs[1:]
                if bare:
                    out.setdefault("without_judge", {})[a] = {
                        "grader_s": round(statistics.median(r[0] for r in bare), 2),
                        "kernels_s": round(statistics.median(r[1] for r in bare), 2),
                        "cpu_s": round(statistics.median(r[0] + r[1] for r in bare), 2),
                        "judge_s": round(statistics.median(r[0] + r[1] - b[0] - b[1] for r, b in zip(later, bare)), 3)}
                out["assignments"][a] = {
                    "first": round(runs[0][0] + runs[0][1], 2),
                    "grader_s": round(statistics.median(r[0] for r in later), 2),
                    "kernels_s": round(statistics.median(r[1] for r in later), 2),
                    "cpu_s": round(statistics.median(r[0] + r[1] for r in later), 2),
                    "wall_s": round(statistics.median(r[2] for r in later), 2),
                    "full_marks": full, "students": args.students}
                if feedback:
                    out["assignments"][a]["feedback_s"] = round(statistics.median(feedback[1:]), 2)
                print(a, out["assignments"][a], file=sys.stderr, flush=True)
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
