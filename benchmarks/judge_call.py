"""CPU per call of a student's function through the judge: a comm message, an execute request, ``map``.

Run from the course root with the course installed::

    python -m benchmarks.judge_call --calls 200 --rounds 3 --batch 10

It starts one (unsandboxed) kernel, defines ``cosine(u, v)`` there and calls it through
:class:`helpers.grading.judge.Remote` on two 50-d vectors, in alternating blocks of ``--calls``:
through the judge's comm (what grading does), then with the comm switched off for that kernel client
(every call an execute request, the judge's fallback and its design before the comm), then through the
comm ``--batch`` calls per request (:meth:`~helpers.grading.judge.Remote.map`). It prints one JSON
object: per way, the median over the rounds of the CPU milliseconds per call in the grading process and
in the kernel (read from ``/proc``), and the wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from .per_submission import _cpu


def _kernel_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


class _Executor:
    def __init__(self, km, kc):
        self.km, self.kc = km, kc


def main(argv=None) -> int:
    """Measure and print the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per block")
    parser.add_argument("--rounds", type=int, default=3, help="blocks per way, alternating")
    parser.add_argument("--batch", type=int, default=10, help="calls per map request")
    args = parser.parse_args(argv)
    if not 1 <= args.batch <= args.calls:
        parser.error("--batch must be between 1 and --calls")
    from jupyter_client.manager import start_new_kernel

    from helpers.grading import judge

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        kc.execute_interactive("import numpy as np\ndef cosine(u, v):\n"
                               "    return float(np.dot(u, v) / np.sqrt(np.dot(u, u) * np.dot(v, v)))\n", timeout=60)
        pid = km.provisioner.process.pid
        remote = judge.Remote(judge._Channel(_Executor(km, kc), timeout=60), "cosine")
        u, v = np.random.default_rng(0).normal(size=(2, 50))
        results = {"comm": [], "execute": [], "map": []}
        for _ in range(args.rounds):
            for way in results:
                if way == "execute":
                    judge._COMMS[kc] = False  # no comm for this client: every call an execute request
                elif not judge._COMMS.get(kc):
                    remote(u, v)  # an execute request (the runtime defined if needed), which opens the comm
                    remote(u, v)  # the comm's first answer
                g0, k0, t0 = _cpu()[0], _kernel_cpu(pid), time.perf_counter()
                if way == "map":
                    for _ in range(args.calls // args.batch):
                        assert len(remote.map([(u, v)] * args.batch)) == args.batch
                else:
                    for _ in range(args.calls):
                        remote(u, v)
                g1, k1, t1 = _cpu()[0], _kernel_cpu(pid), time.perf_counter()
                state = judge._COMMS.get(kc)
                assert (state is False) if way == "execute" else (state and state[1]), (way, state)
                calls = args.calls // args.batch * args.batch if way == "map" else args.calls
                results[way].append(((g1 - g0) / calls * 1e3, (k1 - k0) / calls * 1e3, (t1 - t0) / calls * 1e3))
                judge._COMMS.pop(kc, None)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    out = {way: {"grader_ms": round(statistics.median(r[0] for r in rs), 2),
                 "kernel_ms": round(statistics.median(r[1] for r in rs), 2),
                 "wall_ms": round(statistics.median(r[2] for r in rs), 2)} for way, rs in results.items()}
    out.update(calls=args.calls, rounds=args.rounds, batch=args.batch)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
