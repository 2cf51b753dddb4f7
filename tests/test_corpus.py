"""helpers.corpus: counts and PPMI against values computed by hand, the SVD against its definition,
word2vec's determinism, the synthetic corpus, counterfactual augmentation, reading a corpus file, and
``python -m helpers train`` followed by ``replicate --embedding`` on its output."""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from helpers import corpus
from helpers.cli import main

ROOT = Path(__file__).resolve().parents[1]

# The tiny corpus: "a b a c" and "b c". With window 1 the pairs at distance 1 are
# (a,b) (b,a) (a,c) in the first sentence and (b,c) in the second; each counts in both directions.
TINY = [["a", "b", "a", "c"], ["b", "c"]]
VOCAB = ["a", "b", "c"]
#            a  b  c
COUNTS_W1 = [[0, 2, 1],   # a: b twice (a b, b a), c once (a c)
             [2, 0, 1],   # b: a twice, c once (second sentence)
             [1, 1, 0]]   # c: a once, b once
# window 2 adds distance 2 inside the first sentence: (a, a) twice (positions 0 and 2, both
# directions) and (b, c) once (positions 1 and 3)
COUNTS_W2 = [[2, 2, 1],
             [2, 0, 2],
             [1, 2, 0]]


def test_cooccurrence_counts_by_hand():
    C1 = corpus.cooccurrence_counts(TINY, VOCAB, window=1)
    assert sp.issparse(C1) and C1.dtype == np.float64
    assert C1.toarray().tolist() == COUNTS_W1
    assert corpus.cooccurrence_counts(TINY, VOCAB, window=2).toarray().tolist() == COUNTS_W2
    # windows do not cross sentences: "c" ending the first and "b" starting the second are not counted
    assert corpus.cooccurrence_counts([["a", "c"], ["b", "a"]], VOCAB, window=3).toarray().tolist() == \
        [[0, 1, 1], [1, 0, 0], [1, 0, 0]]
    # a word outside the vocabulary keeps its position: "x" separates a from b at window 1
    assert corpus.cooccurrence_counts([["a", "x", "b"]], VOCAB, window=1).nnz == 0
    assert corpus.cooccurrence_counts([["a", "x", "b"]], VOCAB, window=2).toarray()[0, 1] == 1


def test_cooccurrence_counts_against_a_loop():
    rng = np.random.default_rng(3)
    words = list("abcdefg")
    sents = [list(rng.choice(words, size=rng.integers(1, 12))) for _ in range(40)]
    for window in (1, 2, 5):
        expected = np.zeros((7, 7))
        for s in sents:
            for i, w in enumerate(s):
                for j in range(max(0, i - window), min(len(s), i + window + 1)):
                    if j != i:
                        expected[words.index(w), words.index(s[j])] += 1
        assert np.array_equal(corpus.cooccurrence_counts(sents, words, window).toarray(), expected)


def test_cooccurrence_counts_refuses_bad_input():
    with pytest.raises(ValueError, match="window"):
        corpus.cooccurrence_counts(TINY, VOCAB, window=0)
    with pytest.raises(ValueError, match="repeats"):
        corpus.cooccurrence_counts(TINY, ["a", "a"])
    with pytest.raises(TypeError, match="list of words"):
        corpus.cooccurrence_counts(["a b a c"], VOCAB)


def test_ppmi_by_hand():
    # COUNTS_W1: N = 8; row (= column) sums a 3, b 3, c 2.
    # PMI(a,b) = log(2*8/(3*3)) = log(16/9) > 0; PMI(a,c) = log(1*8/(3*2)) = log(4/3) > 0;
    # PMI(b,c) = log(4/3); the zero counts stay 0.
    P = corpus.ppmi(COUNTS_W1).toarray()
    expected = np.array([[0, math.log(16 / 9), math.log(4 / 3)],
                         [math.log(16 / 9), 0, math.log(4 / 3)],
                         [math.log(4 / 3), math.log(4 / 3), 0]])
    np.testing.assert_allclose(P, expected, rtol=1e-14)
    # a negative PMI is clipped: in [[4, 1], [1, 0]] (N = 6, sums 5 and 1), PMI(0,0) = log(4*6/25) < 0
    Q = corpus.ppmi(np.array([[4.0, 1.0], [1.0, 0.0]])).toarray()
    np.testing.assert_allclose(Q, [[0.0, math.log(6 / 5)], [math.log(6 / 5), 0.0]], rtol=1e-14)
    with pytest.raises(ValueError, match="every count is zero"):
        corpus.ppmi(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        corpus.ppmi(np.array([[1.0, -1.0], [0.0, 1.0]]))


def test_truncated_svd_definition_and_sign():
    rng = np.random.default_rng(5)
    M = rng.random((30, 20))
    U, s, _ = np.linalg.svd(M, full_matrices=False)
    W = corpus.truncated_svd(M, 4, weight=1.0)
    # the same subspace and lengths as U_k S_k, columns up to sign, and the sign rule holds
    for j in range(4):
        col = U[:, j] * s[j]
        assert np.allclose(W[:, j], col, atol=1e-10) or np.allclose(W[:, j], -col, atol=1e-10)
        assert W[np.abs(W[:, j]).argmax(), j] > 0
    np.testing.assert_allclose(corpus.truncated_svd(sp.csr_matrix(M), 4, weight=0.0),
                               W / s[:4], atol=1e-10)
    with pytest.raises(ValueError, match="k must be"):
        corpus.truncated_svd(M, 20)


def test_truncated_svd_sparse_path_agrees_with_dense(monkeypatch):
    M = sp.random(40, 40, density=0.3, random_state=1, format="csr")
    dense = corpus.truncated_svd(M, 3)
    monkeypatch.setattr(corpus, "DENSE_SVD_MAX", 10)
    np.testing.assert_allclose(corpus.truncated_svd(M, 3), dense, atol=1e-8)


SMALL = dict(n_sentences=300, n_definitional=100, n_filler=100)


def test_word2vec_is_deterministic():
    sents = corpus.synthetic_corpus(0.5, rng=7, **SMALL)
    a = corpus.train_word2vec(sents, vector_size=16, epochs=3, seed=4)
    b = corpus.train_word2vec(sents, vector_size=16, epochs=3, seed=4)
    assert a.index_to_key == b.index_to_key
    assert np.array_equal(a.vectors, b.vectors)   # bit for bit
    c = corpus.train_word2vec(sents, vector_size=16, epochs=3, seed=5)
    assert not np.array_equal(a.vectors, c.vectors)


def test_word2vec_does_not_depend_on_the_hash_seed(tmp_path):
    """Two processes with different PYTHONHASHSEED train the same vectors."""
    code = ("import sys, numpy as np; from helpers import corpus; "
            f"s = corpus.synthetic_corpus(0.5, rng=7, **{SMALL!r}); "
            "kv = corpus.train_word2vec(s, vector_size=16, epochs=2, seed=4); "
            "np.save(sys.argv[1], kv.vectors); print(' '.join(kv.index_to_key))")
    out = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        path = tmp_path / f"v{hash_seed}.npy"
        keys = subprocess.run([sys.executable, "-c", code, str(path)], env=env, cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
        out.append((keys, np.load(path)))
    assert out[0][0] == out[1][0]
    assert np.array_equal(out[0][1], out[1][1])


def test_train_word2vec_refuses_an_empty_corpus():
    with pytest.raises(ValueError, match="empty"):
        corpus.train_word2vec([[], []])


def test_synthetic_corpus_plants_the_rate():
    career, care = set(corpus.CAREER_TARGETS), set(corpus.CARE_TARGETS)
    male = set(corpus.MALE_WORDS)

    def share_male(sents):
        # among occupation sentences with a career target: the share whose attribute word is male
        hits = [any(w in male for w in s) for s in sents if career & set(s)]
        return np.mean(hits), len(hits)

    for rate in (0.0, 0.6, 1.0):
        sents = corpus.synthetic_corpus(rate, rng=2, n_sentences=4000, n_definitional=0, n_filler=0)
        share, n = share_male(sents)
        assert abs(share - (1 + rate) / 2) < 4 * math.sqrt(0.25 / n) + 1e-12
    a = corpus.synthetic_corpus(0.3, rng=11, **SMALL)
    assert a == corpus.synthetic_corpus(0.3, rng=11, **SMALL)
    assert a != corpus.synthetic_corpus(0.3, rng=12, **SMALL)
    assert len(a) == 500 and all(len(s) == 8 for s in a)
    assert not any(care & set(s) and career & set(s) for s in a)
    with pytest.raises(ValueError, match="rate"):
        corpus.synthetic_corpus(1.5)


def test_counterfactual_augmentation():
    pairs = [("he", "she"), ("king", "queen")]
    out = corpus.counterfactual_augmentation([["she", "saw", "the", "king"], ["he"]], pairs)
    assert out == [["she", "saw", "the", "king"], ["he"], ["he", "saw", "the", "queen"], ["she"]]
    with pytest.raises(ValueError, match="another pair"):
        corpus.counterfactual_augmentation([["a"]], [("he", "she"), ("she", "her")])
    with pytest.raises(ValueError, match="two different words"):
        corpus.counterfactual_augmentation([["a"]], [("he", "he")])


def test_read_corpus(tmp_path):
    good = tmp_path / "c.txt"
    good.write_text("The cat sat\n\n  on the mat \n")
    assert corpus.read_corpus(good) == [["the", "cat", "sat"], ["on", "the", "mat"]]
    empty = tmp_path / "e.txt"
    empty.write_text("\n  \n")
    with pytest.raises(ValueError, match="empty"):
        corpus.read_corpus(empty)
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"\x89PNG\x00\x01\x02")
    with pytest.raises(ValueError, match="not a text file"):
        corpus.read_corpus(binary)
    latin = tmp_path / "l.txt"
    latin.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        corpus.read_corpus(latin)
    with pytest.raises(FileNotFoundError):
        corpus.read_corpus(tmp_path / "missing.txt")


# ---------------------------------------------------------------------------------------------
# python -m helpers train
# ---------------------------------------------------------------------------------------------

def _paper_words() -> list[str]:
    from helpers.wordsets import weat_tests, wefat_names, wefat_occupations

    words = {w.lower() for t in weat_tests() for ws in (t.target_x, t.target_y, t.attribute_a, t.attribute_b)
             for w in ws.used_by_paper}
    words |= {w.lower() for w in wefat_occupations()[0] + wefat_names()[0]}
    return sorted(words)


def test_train_then_replicate_reads_the_embedding(tmp_path, capsys):
    """A corpus of the paper's words in random sentences: train writes a word2vec file that
    ``replicate --embedding`` reads and runs all ten WEATs and both WEFATs on."""
    words = _paper_words()
    rng = np.random.default_rng(0)
    text = tmp_path / "corpus.txt"
    text.write_text("\n".join(" ".join(rng.choice(words, 8)) for _ in range(1500)) + "\n")
    out = tmp_path / "out" / "vectors.txt"
    assert main(["train", str(text), str(out), "--vector-size", "8", "--epochs", "1", "--min-count", "1",
                 "--quiet"]) == 0
    assert out.read_text().split("\n", 1)[0] == f"{len(words)} 8"   # word2vec's header: count, dimensions
    report = tmp_path / "r.json"
    assert main(["replicate", "--embedding", str(out), "--n-resamples", "100", "--quiet",
                 "--json", str(report)]) == 0
    import json

    doc = json.loads(report.read_text())
    assert doc["embedding"] == str(out) and len(doc["weat"]) == 10
    assert all(t["missing"] == [] for t in doc["weat"])


@pytest.mark.parametrize("content, message", [
    (b"", "is empty"),
    (b"\n \n", "is empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not a text file"),
    (b"caf\xe9 au lait\n", "not UTF-8"),
    (b"lorem ipsum dolor\n" * 10, "none of the words of the paper's Table 1"),
])
def test_train_refuses_bad_corpora(tmp_path, capsys, content, message):
    corpus_file = tmp_path / "corpus.txt"
    corpus_file.write_bytes(content)
    assert main(["train", str(corpus_file), str(tmp_path / "v.txt"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "v.txt").exists()


def test_train_warns_when_a_table1_set_has_no_word(tmp_path, capsys):
    """Flowers, insects and the pleasant words but no unpleasant one: row 1 cannot run, and replicate would
    stop there, so train says so (and still writes the vectors)."""
    from helpers.wordsets import weat_test

    t = weat_test(1)
    words = [w.lower() for ws in (t.target_x, t.target_y, t.attribute_a) for w in ws.used_by_paper]
    rng = np.random.default_rng(2)
    corpus_file = tmp_path / "corpus.txt"
    corpus_file.write_text("\n".join(" ".join(rng.choice(words, 6)) for _ in range(200)) + "\n")
    assert main(["train", str(corpus_file), str(tmp_path / "v.txt"), "--vector-size", "4", "--epochs", "1",
                 "--min-count", "1"]) == 0
    captured = capsys.readouterr()
    assert "every word set has words for 0 of the 10 Table 1 tests" in captured.out
    assert "warning: Table 1 rows 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 have a word set" in captured.err
    assert (tmp_path / "v.txt").is_file()


def test_train_missing_file(tmp_path, capsys):
    assert main(["train", str(tmp_path / "nope.txt"), str(tmp_path / "v.txt")]) == 2
    assert "no such corpus file" in capsys.readouterr().err


def test_train_reports_and_shows_a_progress_bar(tmp_path, capsys):
    words = _paper_words()
    rng = np.random.default_rng(1)
    text = tmp_path / "corpus.txt"
    lines = [" ".join(rng.choice(words, 6)) for _ in range(300)]
    text.write_text("\n".join(lines) + "\n")
    out = tmp_path / "v.bin"
    assert main(["train", str(text), str(out), "--vector-size", "4", "--epochs", "2", "--min-count", "1",
                 "--binary"]) == 0
    captured = capsys.readouterr()
    assert "Training word2vec" in captured.err and "2/2" in captured.err   # tqdm's bar, one step per epoch
    assert "every word set has words for 10 of the 10 Table 1 tests" in captured.out
    assert f"replicate --embedding {out}" in captured.out
    from helpers.embeddings import load_embedding

    kv = load_embedding(out, progress=False)   # word2vec's binary format, read back by replicate's loader
    assert kv.vector_size == 4 and sorted(kv.index_to_key) == sorted({w for line in lines for w in line.split()})
