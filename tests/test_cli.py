"""Tests of the command line: ``python -m helpers replicate`` and its JSON contract (README.md)."""
from __future__ import annotations

import json
import subprocess
import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest
from gensim.models import KeyedVectors

from helpers.cli import main
from helpers.replication import replicate
from helpers.embeddings import load_default
from helpers.wordsets import FEMALE_TERMS, MALE_TERMS, weat_tests, wefat_names, wefat_occupations

# The JSON contract (README.md, "The JSON of replicate --json"): scipy's names, one name per idea.
TOP_KEYS = {"embedding", "n_resamples", "seed", "ddof", "weat", "wefat"}
WEAT_KEYS = {"id", "target_x", "target_y", "attribute_a", "attribute_b", "n_target", "n_attribute", "missing",
             "effect_size", "pvalue", "p_method", "paper_effect_size", "paper_pvalue"}
WEAT_OPTIONAL = {"trimmed"}
WEFAT_KEYS = {"n", "pearson_r", "pvalue", "paper_pearson_r"}
# the keys of the contract before version 1.1 (renamed: permutations, std_ddof, p_value, paper_p_value)
OLD_KEYS = {"permutations", "std_ddof", "p_value", "paper_p_value"}
FIGURES = ("table1_forest.png", "wefat_occupations.png", "wefat_names.png", "weat1_null.png")
PERMUTATIONS = 2000


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "helpers", *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def replicated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("replicate")
    out_json, out_dir = tmp / "results.json", tmp / "figures"
    proc = run_cli("replicate", "--json", out_json, "--n-resamples", PERMUTATIONS, "--seed", 0, "--out", out_dir)
    return proc, out_json, out_dir


def test_replicate_exits_zero(replicated):
    proc, out_json, _ = replicated
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert out_json.is_file()
    # the printed report has the Table 1 comparison and the WEFAT lines
    assert "Table 1" in proc.stdout and "occupations" in proc.stdout and "names" in proc.stdout


def test_json_follows_the_contract(replicated):
    _, out_json, _ = replicated
    doc = json.loads(out_json.read_text())
    assert set(doc) == TOP_KEYS
    assert doc["n_resamples"] == PERMUTATIONS and doc["seed"] == 0 and doc["ddof"] == 1
    assert isinstance(doc["embedding"], str) and "GloVe 6B" in doc["embedding"]
    assert [w["id"] for w in doc["weat"]] == list(range(1, 11))
    specs = {t.id: t for t in weat_tests()}
    for w in doc["weat"]:
        assert WEAT_KEYS <= set(w) <= WEAT_KEYS | WEAT_OPTIONAL, set(w) ^ WEAT_KEYS
        t = specs[w["id"]]
        assert (w["target_x"], w["target_y"]) == (t.target_x.name, t.target_y.name)
        assert (w["attribute_a"], w["attribute_b"]) == (t.attribute_a.name, t.attribute_b.name)
        assert w["paper_effect_size"] == t.paper["d"] and w["paper_pvalue"] == t.paper["p"]
        assert isinstance(w["missing"], list)
        assert isinstance(w["n_target"], int) and isinstance(w["n_attribute"], int)
        assert w["p_method"] in ("exact", "sampled")
        assert 0 < w["pvalue"] <= 1
        assert w["effect_size"] > 0 and w["pvalue"] < 0.05  # GloVe 6B: all ten in the paper's direction
        if w["p_method"] == "sampled":
            # (k + 1) / (B + 1)
            k1 = w["pvalue"] * (PERMUTATIONS + 1)
            assert k1 == pytest.approx(round(k1), abs=1e-6) and round(k1) >= 1
        else:
            n = w["n_target"]
            assert w["pvalue"] * comb(2 * n, n) == pytest.approx(round(w["pvalue"] * comb(2 * n, n)), abs=1e-6)
    w1 = doc["weat"][0]
    assert w1["missing"] == ["gladiola"] and w1["n_target"] == 24 and len(w1.get("trimmed", [None])) == 1
    assert set(doc["wefat"]) == {"occupations", "names"}
    for k, v in doc["wefat"].items():
        assert set(v) == WEFAT_KEYS
        assert v["pearson_r"] > 0 and v["pvalue"] < 1e-4
    assert doc["wefat"]["occupations"]["n"] == 50 and doc["wefat"]["names"]["n"] == 40
    # the paper's r, from data/wefat_paper.json (0.90 and 0.84 on GloVe Common Crawl 840B)
    assert {k: v["paper_pearson_r"] for k, v in doc["wefat"].items()} == {"occupations": 0.90, "names": 0.84}


def test_json_uses_one_name_per_idea(replicated):
    # the renamed keys of the old contract appear nowhere, at any depth
    doc = json.loads(replicated[1].read_text())

    def keys(obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield k
                yield from keys(v)
        elif isinstance(obj, list):
            for v in obj:
                yield from keys(v)

    assert not OLD_KEYS & set(keys(doc))


def test_permutations_is_an_alias_of_n_resamples(capsys):
    # --permutations (the old flag) still works and means --n-resamples
    from helpers.cli import main as cli_main

    with pytest.raises(SystemExit):
        cli_main(["replicate", "--permutations", "0"])
    assert "--n-resamples must be a positive number" in capsys.readouterr().err


def test_readme_documents_the_json_contract():
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = text[text.index("### The JSON of `replicate --json`"):]
    section = section[:section.index("\n## ")]
    for key in TOP_KEYS | WEAT_KEYS | WEAT_OPTIONAL | WEFAT_KEYS:
        assert f"`{key}`" in section, key
    for key in OLD_KEYS:
        assert f"`{key}`" in section, f"the renaming of {key} is documented"


def test_figures_written(replicated):
    _, _, out_dir = replicated
    for name in FIGURES:
        f = out_dir / name
        assert f.is_file(), name
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 5000


def test_forest_intervals_are_the_word_bootstrap():
    # helpers.replication.word_intervals against a plain loop: resample the used words of each set with
    # replacement, recompute d with helpers.statistics.effect_size, take the 2.5/97.5 percentiles
    import helpers.statistics as st
    from helpers.replication import word_intervals
    from helpers.embeddings import lookup
    from helpers.weat import run_table1

    kv = load_default()
    results = run_table1(kv, n_resamples=200, seed=0)[:2]
    got = word_intervals(kv, results, seed=3, n_resamples=150)
    for r, (lo, hi) in zip(results, got):
        sets = [lookup(kv, w).vectors for w in (r.x_words, r.y_words, r.a_words, r.b_words)]
        gen = np.random.default_rng([3, r.test_id, 9])
        ds = []
        for _ in range(150):
            picks = [S[gen.integers(0, len(S), size=len(S))] for S in sets]
            try:
                ds.append(st.effect_size(*picks))
            except ValueError:  # all scores equal in a replicate
                ds.append(np.nan)
        np.testing.assert_allclose([lo, hi], np.nanpercentile(ds, [2.5, 97.5]), rtol=1e-9)
        assert lo < hi
    # the figure draws them: one horizontal segment per test, from low to high
    import matplotlib

    matplotlib.use("Agg")
    from helpers import plots

    ax = plots.forest_plot(["1", "2"], [r.effect_size for r in results], [1.5, 1.5], [None, None], intervals=got)
    drawn = sorted(tuple(sorted((seg[0][0], seg[1][0]))) for c in ax.collections if hasattr(c, "get_segments")
                   for seg in c.get_segments())
    assert drawn == sorted((lo, hi) for lo, hi in got)


def test_same_seed_same_results_in_process(replicated):
    # replicate() in this process with the same seed gives the same numbers as the subprocess
    _, out_json, _ = replicated
    doc = json.loads(out_json.read_text())
    again = json.loads(json.dumps(replicate(n_resamples=PERMUTATIONS, seed=0, progress=False)))
    assert again == doc


def test_other_embedding_via_flag_gives_the_same_numbers(replicated, tmp_path):
    # A word2vec binary holding exactly the GloVe 6B vectors of the course's words: --embedding must
    # read it and, with the same seed, reproduce the default's results word for word.
    kv = load_default()
    words = {w.lower() for t in weat_tests() for s in (t.target_x, t.target_y, t.attribute_a, t.attribute_b)
             for w in s.words}
    words |= {w.lower() for w in wefat_occupations()[0] + wefat_names()[0]} | set(FEMALE_TERMS) | set(MALE_TERMS)
    words = sorted(w for w in words if w in kv.key_to_index)
    sub = KeyedVectors(kv.vector_size)
    sub.add_vectors(words, np.asarray(kv.vectors[[kv.key_to_index[w] for w in words]]))
    path = tmp_path / "subset.bin"
    sub.save_word2vec_format(str(path), binary=True)
    doc = replicate(str(path), n_resamples=PERMUTATIONS, seed=0, progress=False)
    ref = json.loads(replicated[1].read_text())
    assert doc["embedding"] == str(path)
    for ours, theirs in zip(doc["weat"], ref["weat"]):
        assert ours["missing"] == theirs["missing"]
        assert ours["effect_size"] == pytest.approx(theirs["effect_size"], abs=1e-9)
        assert ours["pvalue"] == pytest.approx(theirs["pvalue"], abs=1e-12)
    for k in ("occupations", "names"):
        assert doc["wefat"][k]["pearson_r"] == pytest.approx(ref["wefat"][k]["pearson_r"], abs=1e-9)


def test_bad_embedding_path_exits_with_one_line_error(tmp_path):
    missing = tmp_path / "no_such_embedding.txt"
    proc = run_cli("replicate", "--embedding", missing, "--n-resamples", 10)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error:") and "no_such_embedding.txt" in lines[0]


def test_file_that_is_not_an_embedding_exits_with_readable_error(tmp_path, capsys):
    # in-process (main() is what `python -m helpers` calls) to keep the suite fast
    bad = tmp_path / "notes.txt"
    bad.write_text("these are my notes\nnot vectors at all\n")
    assert main(["replicate", "--embedding", str(bad), "--n-resamples", "10", "--quiet"]) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert "notes.txt" in lines[0] and "not a number" in lines[0]


def test_embedding_without_the_words_exits_with_readable_error(tmp_path, capsys):
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("cat 1 2 3\ndog 4 5 6\n")
    assert main(["replicate", "--embedding", str(tiny), "--n-resamples", "10", "--quiet"]) != 0
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "None of the words" in lines[0]


@pytest.mark.parametrize("n", [0, -5])
def test_non_positive_n_resamples_rejected(n):
    proc = run_cli("replicate", "--n-resamples", n)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "--n-resamples must be a positive number" in proc.stderr


@pytest.mark.parametrize("fmt, magic", [("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_figures_in_another_format(tmp_path, fmt, magic, capsys):
    # in-process (main() is what `python -m helpers` calls; the module fixture runs that command)
    assert main(["replicate", "--permutations", "200", "--quiet", "--out", str(tmp_path), "--format", fmt]) == 0, \
        capsys.readouterr().err
    for name in FIGURES:
        f = tmp_path / name.replace(".png", f".{fmt}")
        assert f.is_file() and f.read_bytes()[:len(magic)] == magic, f.name
    assert not list(tmp_path.glob("*.png"))


def test_dpi_sets_the_png_resolution(tmp_path, capsys):
    assert main(["replicate", "--permutations", "200", "--quiet", "--out", str(tmp_path), "--dpi", "60"]) == 0, \
        capsys.readouterr().err
    import matplotlib.image

    small = matplotlib.image.imread(tmp_path / "weat1_null.png")
    # the default figure at 120 dpi is twice as wide in pixels; here: figure width (inches) x 60
    import matplotlib
    matplotlib.use("Agg")
    from helpers import plots

    ax = plots.null_distribution(np.zeros(10) + np.arange(10), 5.0)
    width_inches = ax.figure.get_size_inches()[0]
    assert abs(small.shape[1] - width_inches * 60) <= 2


@pytest.mark.parametrize("args, message", [(["--dpi", "0"], "--dpi must be a positive number"),
                                           (["--format", "gif"], "invalid choice")])
def test_bad_figure_options_rejected(args, message):
    proc = run_cli("replicate", *args)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and message in proc.stderr
def test_extended_adds_the_lexicon_weats(replicated, tmp_path):
    """--extended: the documented "lexicon" key, before/after projection, paper and SSA names, and a printed section."""
    from helpers import lexicon as lx

    out_json = tmp_path / "ext.json"
    proc = run_cli("replicate", "--extended", "--json", out_json, "--n-resamples", 200, "--seed", 0)
    assert proc.returncode == 0, proc.stderr
    assert "Lexicon WEATs" in proc.stdout and "himself-herself" in proc.stdout
    doc = json.loads(out_json.read_text())
    assert set(doc) == TOP_KEYS | {"lexicon"}
    lex = doc["lexicon"]
    assert {"lexicon", "names", "n_names", "n_resamples", "seed", "direction", "tests"} <= set(lex)
    assert "n_boot" not in lex  # renamed in version 1.2
    keys = {"key", "row", "targets", "attribute_a", "attribute_b", "projected", "n_x", "n_y", "n_a", "n_b",
            "effect_size", "interval", "missing"}
    assert all(set(t) == keys for t in lex["tests"])
    have = {(t["key"], t["targets"], t["projected"]) for t in lex["tests"]}
    for key in ("6", "6s"):
        for targets in ("paper", "ssa"):
            assert {(key, targets, False), (key, targets, True)} <= have
    for t in lex["tests"]:
        assert t["interval"][0] <= t["effect_size"] <= t["interval"][1] or t["n_x"] <= 8
        if t["targets"] == "ssa":
            assert t["n_x"] == t["n_y"] == lex["n_names"]
    # the same numbers as the library, independently of the CLI
    kv = load_default()
    ref = lx.lexicon_weat(kv, weat_tests()[5].target_x.used_by_paper, weat_tests()[5].target_y.used_by_paper,
                          lx.empath_category("work", kv.key_to_index)[0], lx.empath_category("family", kv.key_to_index)[0],
                          n_resamples=10, rng=0)
    row6 = next(t for t in lex["tests"] if (t["key"], t["targets"], t["projected"]) == ("6", "paper", False))
    assert row6["effect_size"] == pytest.approx(ref.effect_size, rel=1e-12)
    assert "lexicon" not in json.loads(replicated[1].read_text())   # only with --extended
