"""Child of benchmarks/embeddings.py: load_embedding(path) in a fresh process (converting a text
file the first time, reading the converted copy after). Prints one JSON line."""
import json
import sys
import time

import numpy as np

t0 = time.perf_counter()
from helpers.embeddings import load_embedding  # noqa: E402

t1 = time.perf_counter()
kv = load_embedding(sys.argv[1])
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "words": len(kv.index_to_key),
                  "memmap": isinstance(kv.vectors, np.memmap)}))
