"""Autograde time per submission with and without the sandbox, measured side by side in one run.

    python -m benchmarks --only sandbox        (a row in the benchmark's table)
    python -m benchmarks.sandbox [--repeats 5] [--assignment 01_cosine]

One temporary course, one gradebook; the same correct submission is autograded ``repeats`` times
with the sandbox and ``repeats`` times without, interleaved (on/off, then off/on, ...) so that a
change in the machine's load hits both alike. Also times a bare kernel start (start until it
answers ``kernel_info``) both ways. Prints medians of wall-clock seconds. (CPU time is not
compared: a sandboxed kernel's CPU time does not reach the grader's ``RUSAGE_CHILDREN``, because
the processes of its PID namespace are reaped inside it.)
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from tests import nbgrader_tools as nbt

from .common import Context, Row

SECTION = "Grading"
TARGET_OVERHEAD = 0.15


def _kernel_start_seconds(config, workdir) -> float:
    from helpers.grading.sandbox import SandboxKernelManager

    async def once():
        km = SandboxKernelManager(kernel_name="python3", config=config)
        t0 = time.perf_counter()
        await km.start_kernel(cwd=str(workdir))
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=60)
        seconds = time.perf_counter() - t0
        kc.stop_channels()
        await km.shutdown_kernel(now=True)
        return seconds

    return asyncio.run(once())


def measure(assignment: str = "01_cosine", repeats: int = 5, work=None) -> dict:
    """Autograde one correct submission ``repeats`` times with and without the sandbox (interleaved).

    Returns
    -------
    dict
        ``{"sandbox": {"wall": [...], "start": [...]}, "plain": {...}}`` (seconds per
        submission and per bare kernel start) and ``"overhead"``: median wall with / without - 1.
    """
    import copy

    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from helpers.grading.sandbox import find_bwrap

    if find_bwrap() is None:
        raise SystemExit("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    out = {"sandbox": {"wall": [], "start": []}, "plain": {"wall": [], "start": []}}
    with tempfile.TemporaryDirectory(dir=work) as tmp, nbt.offline_env(tmp):
        root = nbt.make_course(Path(tmp) / "course", [assignment])
        configs = {}
        for mode in out:
            c = nbt.course_config(root)
            c.Sandbox.enabled = mode == "sandbox"
            configs[mode] = c
        apis = {m: NbGraderAPI(coursedir=CourseDirectory(config=c), config=c) for m, c in configs.items()}
        nbt.generate_release(apis["plain"], assignment)
        names = nbt.notebook_names(assignment, root)
        full = {n: nbt.fill_solutions(nbt.read_nb(root / "notebooks" / assignment / f"{n}.ipynb"),
                                      nbt.read_nb(root / "solutions" / assignment / f"{n}.ipynb")) for n in names}
        startdir = root / "autograded" / "kernel-start"
        startdir.mkdir(parents=True)
        for r in range(repeats):
            for mode in (("sandbox", "plain") if r % 2 == 0 else ("plain", "sandbox")):
                sid = f"{mode}-{r}"
                nbt.submit(root, assignment, sid, copy.deepcopy(full))
                with nbt.Stopwatch() as t:
                    result = apis[mode].autograde(assignment, sid)
                if not result["success"]:
                    raise RuntimeError(f"autograde {sid} failed: {result.get('error')}\n{result.get('log')}")
                scores = nbt.cell_scores(apis[mode].coursedir.db_url, assignment, sid)
                lost = {k: g for k, g in scores.items() if g["score"] != g["max_score"] and g["cell_type"] == "code"}
                if lost:
                    raise RuntimeError(f"{sid}: the correct submission lost points: {lost}")
                out[mode]["wall"].append(t.wall)
                out[mode]["start"].append(_kernel_start_seconds(configs[mode], startdir))
    med = {m: statistics.median(v["wall"]) for m, v in out.items() if m in ("sandbox", "plain")}
    out["overhead"] = med["sandbox"] / med["plain"] - 1
    return out


def report(result: dict) -> str:
    lines = []
    for mode in ("plain", "sandbox"):
        r = result[mode]
        lines.append(f"{mode:8s} autograde per submission: median {statistics.median(r['wall']):.2f} s wall "
                     f"(runs: {', '.join(f'{x:.2f}' for x in r['wall'])}); "
                     f"kernel start median {statistics.median(r['start']):.2f} s "
                     f"(runs: {', '.join(f'{x:.2f}' for x in r['start'])})")
    lines.append(f"sandbox overhead (median wall): {100 * result['overhead']:+.1f} %")
    return "\n".join(lines)


def run(ctx: Context) -> None:
    """Append the sandboxed and unsandboxed autograde times of 01_cosine (medians, interleaved)."""
    result = measure("01_cosine", 3 if ctx.quick else 5, work=ctx.tmp)
    on, off = (statistics.median(result[m]["wall"]) for m in ("sandbox", "plain"))
    ctx.rows.append(Row(SECTION, "autograde 01_cosine in the bubblewrap sandbox", on, "without sandbox", off,
                        f"overhead <= {TARGET_OVERHEAD:.0%}", result["overhead"] <= TARGET_OVERHEAD,
                        note=f"overhead {100 * result['overhead']:+.1f} % (medians, interleaved runs); "
                             f"kernel start {statistics.median(result['sandbox']['start']):.2f} s sandboxed, "
                             f"{statistics.median(result['plain']['start']):.2f} s without"))
    ctx.extra["sandbox"] = result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--assignment", default="01_cosine")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(report(measure(args.assignment, args.repeats)))
