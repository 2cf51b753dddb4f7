"""Child of benchmarks/exact.py: the first and the repeated exact test of n + n random scores in
this fresh process, and its peak resident memory. Prints one JSON line."""
import json
import sys
import time

import numpy as np

from helpers import statistics as st

n = int(sys.argv[1])
rng = np.random.default_rng(3)
a, b = rng.normal(size=n), rng.normal(size=n)
t0 = time.perf_counter()
st.permutation_test(a, b, method="exact")
t1 = time.perf_counter()
st.permutation_test(a, b, method="exact")
t2 = time.perf_counter()
with open("/proc/self/status") as fh:  # VmHWM: peak RSS of this process (ru_maxrss survives exec)
    peak = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM"))
print(json.dumps({"first": t1 - t0, "second": t2 - t1, "peak_mb": peak * 1024 / 1e6}))
