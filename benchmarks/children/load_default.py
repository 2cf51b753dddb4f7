"""Child of benchmarks/embeddings.py: import times, load_default() and a WEAT 1 in a fresh
process, with its memory (/proc/self/status) after the imports, after loading and at the end.
Prints one JSON line."""
import json
import time

t0 = time.perf_counter()
import numpy  # noqa: E402,F401
import gensim.models  # noqa: E402,F401
t1 = time.perf_counter()
import helpers.embeddings  # noqa: E402
import helpers.statistics  # noqa: E402,F401
import helpers.weat  # noqa: E402
import helpers.wordsets  # noqa: E402
t2 = time.perf_counter()
import pyarrow.parquet  # noqa: E402,F401  (imported by load_default; its time is reported apart)
t2b = time.perf_counter()


def mem():
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[k] = int(v.split()[0]) * 1024 / 1e6
    return out


m_imports = mem()
kv = helpers.embeddings.load_default()
t3 = time.perf_counter()
m_loaded = mem()
t = helpers.wordsets.weat_test(1)
r = helpers.weat.run_weat(kv, t.target_x.used_by_paper, t.target_y.used_by_paper, t.attribute_a.used_by_paper,
                          t.attribute_b.used_by_paper, rng=0)
t4 = time.perf_counter()
print(json.dumps({"import_numpy_gensim": t1 - t0, "import_helpers": t2 - t1, "import_pyarrow": t2b - t2,
                  "load_default": t3 - t2b, "weat1": t4 - t3, "mem_imports": m_imports, "mem_loaded": m_loaded,
                  "mem_end": mem(), "method": r.method}))
