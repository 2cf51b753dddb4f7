"""Child of benchmarks/embeddings.py: the Python objects load_default() keeps and a WEAT's
transient peak, by tracemalloc, in a fresh process. Prints one JSON line."""
import json
import tracemalloc

import pyarrow.parquet  # noqa: F401
import scipy.stats  # noqa: F401

import helpers.embeddings
import helpers.weat
import helpers.wordsets

tracemalloc.start()
kv = helpers.embeddings.load_default()
cur_load, peak_load = tracemalloc.get_traced_memory()
tracemalloc.reset_peak()
t = helpers.wordsets.weat_test(1)
r = helpers.weat.run_weat(kv, t.target_x.used_by_paper, t.target_y.used_by_paper, t.attribute_a.used_by_paper,
                          t.attribute_b.used_by_paper, rng=0)
cur_weat, peak_weat = tracemalloc.get_traced_memory()
print(json.dumps({"load_current": cur_load, "load_peak": peak_load, "weat_peak": peak_weat,
                  "weat_current": cur_weat, "null_bytes": r.null_distribution.nbytes,
                  "vectors_bytes": kv.vectors.nbytes}))
