"""``python -m benchmarks [--quick] [--json FILE] [--only AREA ...]``: one table of times, references,
ratios and targets, then the tables of each area. Progress goes to stderr, the report to stdout."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from helpers.embeddings import load_default

from . import embeddings, exact, grading, notebooks, replicate, sampled, sandbox
from .common import Context, Row, fmt_ratio, fmt_value, loadavg, log, machine, table

AREAS = {"sampled": sampled, "exact": exact, "embeddings": embeddings, "replicate": replicate,
         "notebooks": notebooks, "grading": grading, "sandbox": sandbox}
SLOW = ("notebooks", "grading", "sandbox")  # skipped by --quick


def report(ctx: Context, info: dict, quick: bool, elapsed: float, load_start: str, load_end: str) -> str:
    """The Markdown report: machine, load, the main table, its notes and each area's tables."""
    out = [f"# python -m benchmarks{' --quick' if quick else ''}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
           "",
           f"Machine: {info['cpu']}, {info['cores']} cores, {info['memory_gb']} GB RAM, {info['os']}; Python "
           f"{info['python']}, numpy {info['numpy']}, scipy {info['scipy']}, gensim {info['gensim']}.",
           f"Load average (1/5/15 min) at start {load_start}, at end {load_end}. Total {elapsed:.0f} s.",
           "Ratio = reference / measured: above 1 means faster than the reference implementation, or "
           "inside the time budget.", ""]
    body = [[r.section, r.name, fmt_value(r.value, r.unit), r.reference or "-", fmt_value(r.ref_value, r.unit),
             fmt_ratio(r.ratio), r.target or "-", "-" if r.met is None else ("yes" if r.met else "NO")]
            for r in ctx.rows]
    out.append(table(["section", "measurement", "measured", "reference", "ref.", "ratio", "target", "met"], body,
                     "llrlrrll"))
    notes = [f"- {r.name}: {r.note}" for r in ctx.rows if r.note]
    if notes:
        out += ["", "Notes:"] + notes
    for section in ctx.sections:
        out += ["", section]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks; returns the exit status (0)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"fewer repeats, skip {' and '.join(SLOW)}")
    parser.add_argument("--json", metavar="FILE", help="also write every number as JSON to FILE")
    parser.add_argument("--only", nargs="+", choices=list(AREAS), metavar="AREA",
                        help=f"run only these areas ({', '.join(AREAS)})")
    args = parser.parse_args(argv)
    areas = args.only or [a for a in AREAS if not (args.quick and a in SLOW)]

    t_start, load_start = time.perf_counter(), loadavg()
    info = machine()
    log(f"{info['cpu']}, {info['cores']} cores; load average {load_start}")
    with tempfile.TemporaryDirectory(prefix="course-benchmarks-") as tmpdir:
        ctx = Context(quick=args.quick, tmp=Path(tmpdir), kv=load_default())
        for name in areas:
            log(name)
            AREAS[name].run(ctx)
    skipped = [a for a in AREAS if a not in areas]
    if skipped:
        ctx.rows.append(Row("Skipped", ", ".join(skipped), None,
                            note="--quick" if args.quick and not args.only else "--only"))
    text = report(ctx, info, args.quick, time.perf_counter() - t_start, load_start, loadavg())
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": info, "rows": [dict(asdict(r), ratio=r.ratio) for r in ctx.rows],
                                               "extra": ctx.extra}, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
