"""``python -m helpers replicate`` (10^5 permutations per sampled test): wall time of a subprocess."""
from __future__ import annotations

import subprocess
import sys
import time

from .common import Context, Row, child_env, fmt_value


def run(ctx: Context) -> None:
    """Append the row of the whole replication, start-up included."""
    walls = []
    for _ in range(1 if ctx.quick else 3):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "helpers", "replicate"], capture_output=True, text=True,
                              cwd=ctx.tmp, env=child_env())
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise RuntimeError(f"python -m helpers replicate failed:\n{proc.stderr[-3000:]}")
    ok = "Table 1" in proc.stdout and "WEFAT" in proc.stdout
    t = min(walls)
    ctx.rows.append(Row("Replication", "python -m helpers replicate (10^5 permutations)", t, "budget", 15.0,
                        "< 15 s incl. start-up", t < 15 and ok, note=f"runs: {', '.join(fmt_value(w) for w in walls)}"))
    ctx.extra["replicate_walls"] = walls
