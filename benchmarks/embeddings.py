"""Embeddings, each in a fresh interpreter (``load_default`` is cached per process): import time,
loading GloVe 6B 50d, resident memory after loading and running a WEAT against the baseline of
python + imports; converting the same 400,000 words written out as a GloVe text file (progress
bar, time) and reloading the converted file.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from helpers.embeddings import load_embedding

from .common import MB, Context, Row, fmt_value, run_child

SECTION = "Embeddings"


def write_glove_text(kv, path: Path) -> None:
    """Write ``kv`` as a GloVe text file (word and its numbers per line, no header), 5 decimals."""
    M = np.asarray(kv.vectors)
    fmt = " ".join(["%.5f"] * M.shape[1])
    words = kv.index_to_key
    with open(path, "w", encoding="utf-8") as fh:
        for s in range(0, len(words), 20_000):
            fh.write("\n".join(w + " " + fmt % tuple(r) for w, r in zip(words[s:s + 20_000], M[s:s + 20_000].tolist())))
            fh.write("\n")


def run(ctx: Context) -> None:
    """Append the loading, memory and conversion rows."""
    rows, tmp, kv = ctx.rows, ctx.tmp, ctx.kv
    reps = 2 if ctx.quick else 4
    runs = [run_child("load_default", cwd=tmp) for _ in range(reps)]
    keys = ("import_numpy_gensim", "import_helpers", "import_pyarrow", "load_default", "weat1")
    best = {k: min(r[1][k] for r in runs) for k in keys}
    t_load = min(r[1]["load_default"] + r[1]["import_pyarrow"] for r in runs)
    wall = min(r[0] for r in runs)
    rows.append(Row(SECTION, "load_default() in a fresh process (GloVe 6B 50d)", t_load, "budget", 1.0,
                    "< 1 s", t_load < 1.0,
                    note=(f"pyarrow import {fmt_value(best['import_pyarrow'])} + reading the index and "
                          f"memory-mapping the vectors {fmt_value(best['load_default'])}; page cache warm")))
    rows.append(Row(SECTION, "import numpy + gensim (fresh process)", best["import_numpy_gensim"], target="(reported)"))
    rows.append(Row(SECTION, "import helpers (embeddings, weat, statistics) after gensim", best["import_helpers"],
                    target="(reported)"))
    rows.append(Row(SECTION, "fresh process to a WEAT 1 result (wall)", wall, target="(reported)",
                    note=f"python start-up + imports + load + WEAT 1; WEAT 1 itself {fmt_value(best['weat1'])}"))
    last = min(runs, key=lambda r: r[1]["mem_end"]["VmHWM"])[1]
    base, peak = last["mem_imports"]["VmRSS"], last["mem_end"]["VmHWM"]
    loaded, end = last["mem_loaded"], last["mem_end"]
    _, trace, _ = run_child("trace_memory", cwd=tmp)
    vectors_mb = trace["vectors_bytes"] / MB
    vocab_mb = trace["load_current"] / MB
    weat_mb = (trace["weat_peak"] - trace["load_current"]) / MB
    rows.append(Row(SECTION, "peak RSS minus python+imports: load + WEAT 1", peak - base, "vectors x 1.5",
                    1.5 * vectors_mb, "near the 80 MB of vectors (<= 1.5x)", peak - base <= 1.5 * vectors_mb,
                    unit="MB",
                    note=(f"RSS after imports (numpy, gensim, helpers, pyarrow) {base:.0f} MB, after load_default "
                          f"{loaded['VmRSS']:.0f} MB (anonymous +{loaded['RssAnon'] - last['mem_imports']['RssAnon']:.0f}, "
                          f"file-backed +{loaded['RssFile'] - last['mem_imports']['RssFile']:.0f}), after the WEAT "
                          f"{end['VmRSS']:.0f} MB (file-backed +{end['RssFile'] - loaded['RssFile']:.0f}: pages of "
                          f"the memory-mapped vectors), peak {peak:.0f} MB. tracemalloc: load_default keeps "
                          f"{vocab_mb:.0f} MB of Python objects (the 400,000 words and key_to_index); the WEAT's "
                          f"transient peak is {weat_mb:.1f} MB (the sampler's chunk, the cosines)")))
    ctx.extra["embeddings"] = {"runs": [r[1] for r in runs], "walls": [r[0] for r in runs], "trace": trace}

    # conversion of a 400,000-word GloVe text file, then a reload of the converted copy
    text = tmp / "glove.6B.50d.txt"
    t0 = time.perf_counter()
    write_glove_text(kv, text)
    t_write = time.perf_counter() - t0
    wall_conv, conv, err = run_child("load_embedding", str(text), cwd=tmp)
    bar = "Converting" in err and f"{len(kv.index_to_key)}/{len(kv.index_to_key)}" in err
    rows.append(Row(SECTION, f"convert {conv['words']:,}-word text file ({text.stat().st_size / 1e6:.0f} MB)",
                    conv["load"], target="progress bar shown", met=bar,
                    note=f"writing the text file took {fmt_value(t_write)}; subprocess wall {fmt_value(wall_conv)}"))
    reload = [run_child("load_embedding", str(text), cwd=tmp) for _ in range(reps)]
    t_reload = min(r[1]["load"] for r in reload)
    kv2 = load_embedding(text, progress=False)
    diff = float(np.max(np.abs(np.asarray(kv2.vectors) - np.asarray(kv.vectors))))
    same_words = kv2.index_to_key == kv.index_to_key
    memmap = all(r[1]["memmap"] for r in reload)
    rows.append(Row(SECTION, "reload converted file in a fresh process", t_reload, "budget", 1.0, "< 1 s",
                    t_reload < 1.0 and memmap,
                    note=f"memory-mapped: {memmap}; same words: {same_words}; max |diff| {diff:.1e} (5 decimals)"))
    ctx.extra["convert"] = {"write_s": t_write, "convert": conv, "convert_wall": wall_conv, "progress_bar": bar,
                            "reload": [r[1] for r in reload], "max_abs_diff": diff}
