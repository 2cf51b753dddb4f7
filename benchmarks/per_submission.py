"""CPU seconds and wall seconds of autograding ONE submission (the worked solution), per assignment.

Run from a checkout's root with its own environment (the editable install must be that checkout's)::

    python -m benchmarks.per_submission --assignments 01_cosine 04_effect_size --repeats 3 --json out.json

It makes a temporary course with ``tests/nbgrader_tools.py``, generates each release once, then
autogrades a fresh student (the solutions filled into the release) ``--repeats`` times with one worker,
sandboxed when bubblewrap is installed, and prints one JSON object: per assignment the median wall
seconds and the median CPU seconds of the grading process and its children, which depend much less on
the machine's load than wall time. The kernel's CPU time is counted only with ``--no-sandbox``: a kernel
in bubblewrap's PID namespace is reaped inside it, so ``getrusage`` never sees it (measured: a sandboxed
child burning 1 CPU-second adds 0.002 s). Measure CPU with ``--no-sandbox`` (the sandbox itself costs
little CPU: its wall time shows in a sandboxed run). To compare two versions of the grader (for
example before and after the judge of issue 18), run it in each checkout alternately in the same session
and compare the CPU medians (BENCHMARKS.md, "Grading one submission").
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import warnings
from pathlib import Path


def main(argv=None) -> int:
    """Measure; print and optionally write the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignments", nargs="+", default=None, help="default: every assignment")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--students", type=int, default=4,
                        help="submissions graded in one run, one worker (the per-submission figures are the run's "
                             "divided by this: a worker's start-up is shared, as in a class)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--no-sandbox", action="store_true",
                        help="grade without bubblewrap, so that the kernel's CPU time is counted")
    args = parser.parse_args(argv)
    if args.no_sandbox:
        import os
        os.environ["COURSE_TEST_SANDBOX"] = "0"
    sys.path.insert(0, str(Path.cwd() / "tests"))
    import nbgrader_tools as nbt

    names = args.assignments or nbt.discover_assignments()
    out = {"python": sys.executable, "sandbox": nbt.sandbox_available(), "assignments": {}}
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tmp = Path(tmp)
        with nbt.offline_env(tmp / "env"):
            course = nbt.make_course(tmp / "course", names)
            api = nbt.make_api(course)
            for a in names:
                nbt.generate_release(api, a)
                release = course / "notebooks" / a
                nbs = {nb: nbt.fill_solutions(nbt.read_nb(release / f"{nb}.ipynb"),
                                              nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{nb}.ipynb"))
                       for nb in nbt.notebook_names(a)}
                walls, cpus, full = [], [], True
                for k in range(args.repeats):
                    students = [f"bench{k}-{i}" for i in range(args.students)]
                    for student in students:
                        nbt.submit(course, a, student, nbs)
                    with nbt.Stopwatch() as t:
                        scores, _ = nbt.autograde(course, a, students, workers=1)
                    walls.append(t.wall / len(students))
                    cpus.append(t.cpu / len(students))
                    for student in students:
                        auto = [g for g in scores[student].values() if not g["needs_manual_grade"]]
                        full &= sum(g["score"] for g in auto) == sum(g["max_score"] for g in auto)
                        # the next repeat grades only its own students ("*" would regrade these too)
                        shutil.rmtree(course / "submitted" / student)
                out["assignments"][a] = {"wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus),
                                         "full_marks": full, "repeats": args.repeats, "students": args.students}
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
