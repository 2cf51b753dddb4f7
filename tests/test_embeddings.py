"""Unit tests of helpers.embeddings: the embedded GloVe 6B 50d, other formats, lookups, bad files."""
from __future__ import annotations

import os
import time

import numpy as np
import pytest
from gensim.models import KeyedVectors

from helpers.embeddings import (
    EmbeddingFormatError, convert_text_embedding, is_uncased, load_default, load_embedding, lookup, vectors,
)


@pytest.fixture(scope="module")
def kv():
    return load_default()


# ---------------------------------------------------------------------------------------------
# The embedded default
# ---------------------------------------------------------------------------------------------


def test_load_default_is_glove_6b_50d_memory_mapped(kv):
    assert kv.vectors.shape == (400_000, 50)
    assert kv.vectors.dtype == np.float32
    assert isinstance(kv.vectors, np.memmap)
    assert not kv.vectors.flags.writeable  # read-only map, shared between kernels
    assert len(kv.index_to_key) == len(kv.key_to_index) == 400_000
    assert load_default() is kv  # cached


def test_load_default_content_is_glove(kv):
    # the first line of glove.6B.50d.txt: "the 0.418 0.24968 -0.41242 0.1217 0.34527 -0.044457 ..."
    assert kv.index_to_key[:4] == ["the", ",", ".", "of"]
    np.testing.assert_allclose(kv["the"][:6], [0.418, 0.24968, -0.41242, 0.1217, 0.34527, -0.044457], atol=1e-6)
    assert kv.key_to_index["the"] == 0
    # uncased: every key is lower case
    assert is_uncased(kv)
    assert "flower" in kv.key_to_index and "Flower" not in kv.key_to_index
    # semantics survived: a flower is closer to a flower than to a weapon ("rose" would be a bad
    # example: in news text it is mostly the past tense of "rise")
    assert kv.similarity("tulip", "daffodil") > 0.5 > kv.similarity("tulip", "rifle")
    assert "paris" in [w for w, _ in kv.most_similar("france", topn=5)]


def test_load_embedding_none_is_the_default(kv):
    assert load_embedding(None) is kv


def test_lookup_case_handling_on_uncased_glove(kv):
    auto = lookup(kv, ["Einstein", "NASA", "rose"])
    assert auto.words == ["Einstein", "NASA", "rose"]
    assert auto.keys == ["einstein", "nasa", "rose"] and auto.missing_words == []
    np.testing.assert_array_equal(auto.vectors[0], np.asarray(kv["einstein"], dtype=np.float64))
    assert auto.vectors.dtype == np.float64 and auto.vectors.shape == (3, 50)
    exact = lookup(kv, ["Einstein", "rose"], case="exact")
    assert exact.missing_words == ["Einstein"] and exact.keys == ["rose"]
    lower = lookup(kv, ["Einstein"], case="lower")
    assert lower.keys == ["einstein"]


def test_lookup_reports_missing_words_in_order(kv):
    res = lookup(kv, ["zzqxjunk", "rose", "gladiola", "tulip"])
    assert res.missing_words == ["zzqxjunk", "gladiola"]
    assert res.words == ["rose", "tulip"] and res.vectors.shape == (2, 50)
    none = lookup(kv, ["zzqxjunk"])
    assert none.vectors.shape == (0, 50) and none.missing_words == ["zzqxjunk"]


def test_vectors_unknown_words_listed_with_case_hint(kv):
    with pytest.raises(KeyError, match=r"2 word\(s\) of the word list are not in the embedding: 'zzqxjunk', 'gladiola'"):
        vectors(kv, ["rose", "zzqxjunk", "gladiola"])
    with pytest.raises(KeyError, match=r"'Einstein' -> 'einstein'.*case='lower'"):
        vectors(kv, ["Einstein", "rose"], case="exact")
    v = vectors(kv, ["Einstein", "rose"])
    assert v.shape == (2, 50)


def test_lookup_bad_arguments(kv):
    with pytest.raises(TypeError, match="single string 'rose'"):
        lookup(kv, "rose")
    with pytest.raises(TypeError, match="must contain strings"):
        lookup(kv, ["rose", 3])
    with pytest.raises(ValueError, match="case must be one of"):
        lookup(kv, ["rose"], case="upper")


# ---------------------------------------------------------------------------------------------
# Other formats, written in tmp_path
# ---------------------------------------------------------------------------------------------

WORDS = ["cat", "dog", "Bird", "fish", "x-ray"]


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    return rng.normal(size=(len(WORDS), 6)).astype(np.float32)


def write_text(path, words, mat, header=False):
    with open(path, "w", encoding="utf-8") as fh:
        if header:
            fh.write(f"{len(words)} {mat.shape[1]}\n")
        for w, row in zip(words, mat):
            fh.write(w + " " + " ".join(repr(float(x)) for x in row) + "\n")


def check_same(kv, words, mat):
    assert kv.index_to_key == words
    assert kv.vectors.shape == mat.shape
    np.testing.assert_array_equal(np.asarray(kv.vectors, dtype=np.float32), mat)


def test_glove_text_file_is_converted_once_and_memory_mapped(tmp_path, small):
    path = tmp_path / "tiny.glove.txt"
    write_text(path, WORDS, small)
    kv = load_embedding(path, progress=False)
    check_same(kv, WORDS, small)
    cache = tmp_path / "tiny.glove.txt.kv"
    assert cache.is_file()
    assert isinstance(kv.vectors, np.memmap)
    # a second load reads the cache, it does not convert again
    stamp = cache.stat().st_mtime_ns
    time.sleep(0.01)
    kv2 = load_embedding(path, progress=False)
    assert cache.stat().st_mtime_ns == stamp
    check_same(kv2, WORDS, small)
    # the cased file is not uncased: "auto" looks words up exactly
    assert not is_uncased(kv2)
    assert lookup(kv2, ["Bird", "bird"]).missing_words == ["bird"]


def test_cache_is_rebuilt_when_the_text_file_is_newer(tmp_path, small):
    path = tmp_path / "e.txt"
    write_text(path, WORDS, small)
    load_embedding(path, progress=False)
    write_text(path, WORDS[:2], small[:2] * 2)
    future = time.time() + 10
    os.utime(path, (future, future))
    check_same(load_embedding(path, progress=False), WORDS[:2], small[:2] * 2)


def test_word2vec_text_file_with_header(tmp_path, small):
    path = tmp_path / "tiny.w2v.txt"
    write_text(path, WORDS, small, header=True)
    kv = load_embedding(path, progress=False, cache_dir=tmp_path / "cache")
    check_same(kv, WORDS, small)
    assert (tmp_path / "cache" / "tiny.w2v.txt.kv").is_file()
    assert not (tmp_path / "tiny.w2v.txt.kv").exists()


def test_convert_text_embedding_writes_keyedvectors(tmp_path, small):
    path = tmp_path / "t.txt"
    write_text(path, WORDS, small)
    out = convert_text_embedding(path, tmp_path / "out.kv", progress=False)
    assert out == tmp_path / "out.kv" and out.is_file()
    check_same(KeyedVectors.load(str(out), mmap="r"), WORDS, small)


def test_gensim_text_output_loads(tmp_path, small):
    # what gensim itself writes (word2vec text with header) also loads
    ref = KeyedVectors(small.shape[1])
    ref.add_vectors(WORDS, small)
    path = tmp_path / "gensim.txt"
    ref.save_word2vec_format(str(path), binary=False)
    kv = load_embedding(path, progress=False)
    assert kv.index_to_key == WORDS
    np.testing.assert_allclose(kv.vectors, small, rtol=1e-6)


def test_saved_keyedvectors_load(tmp_path, small):
    ref = KeyedVectors(small.shape[1])
    ref.add_vectors(WORDS, small)
    inline = tmp_path / "inline.kv"
    ref.save(str(inline))
    check_same(load_embedding(inline), WORDS, small)
    separate = tmp_path / "separate.kv"
    ref.save(str(separate), sep_limit=0)  # vectors in their own .npy: memory-mapped
    kv = load_embedding(separate)
    check_same(kv, WORDS, small)
    assert isinstance(kv.vectors, np.memmap)


def test_word2vec_binary_loads(tmp_path, small):
    ref = KeyedVectors(small.shape[1])
    ref.add_vectors(WORDS, small)
    path = tmp_path / "tiny.bin"
    ref.save_word2vec_format(str(path), binary=True)
    kv = load_embedding(path)
    check_same(kv, WORDS, small)


# ---------------------------------------------------------------------------------------------
# Bad files: clear errors naming the problem
# ---------------------------------------------------------------------------------------------


def test_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="No embedding at .*nowhere.txt"):
        load_embedding(tmp_path / "nowhere.txt")
    with pytest.raises(FileNotFoundError, match="No embedding file at"):
        convert_text_embedding(tmp_path / "nowhere.txt")


def test_folder_is_not_an_embedding(tmp_path):
    with pytest.raises(EmbeddingFormatError, match="is a folder"):
        load_embedding(tmp_path)


# (file name, its bytes, what the error message must say)
BAD_FILES = [
    ("notes.txt", b"hello world\nthis is not an embedding\n", "line 1: a value is not a number"),
    ("one.txt", b"hello\n", "1 field"),
    ("image.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "neither a text embedding"),
    ("empty.txt", b"", "is empty"),
    ("broken.kv", b"\x80\x04\x95garbage", "could not be loaded"),
    ("ragged.txt", b"a 1 2 3\nb 4 5 6\nc 7 8 9 10\n", "line 3: 4 values where the first line has 3"),
    ("ragged_w2v.txt", b"2 3\na 1 2 3\nb 4 5\n", "line 3: 2 values where the first line has 3"),
    # an extra *number* is a ragged row, not a word with a space (see test_words_with_spaces_as_in_glove_840b)
    ("ragged2.txt", b"a 1 2 3\nb 4 5 6 7\n", "line 2: 4 values where the first line has 3"),
    ("nan.txt", b"a 1 2 3\nb 4 nan 6\n", "line 2: the vector contains NaN or infinity"),
    ("dup.txt", b"a 1 2 3\nb 4 5 6\na 7 8 9\n", "the word 'a' occurs twice"),
]


@pytest.mark.parametrize(("name", "content", "match"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_gives_a_clear_error(tmp_path, name, content, match):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(EmbeddingFormatError, match=match):
        load_embedding(path, progress=False)
    assert not (tmp_path / f"{name}.kv").exists()  # nothing half-written is left as a cache


def test_truncated_text_file(tmp_path, small):
    path = tmp_path / "trunc.txt"
    write_text(path, WORDS, small)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 25])  # the last line loses some of its numbers
    with pytest.raises(EmbeddingFormatError, match=r"line 5: \d values where the first line has 6.*truncated"):
        load_embedding(path, progress=False)
    assert not (tmp_path / "trunc.txt.kv").exists()  # nothing half-written is left as a cache


def test_words_with_spaces_as_in_glove_840b(tmp_path):
    # GloVe Common Crawl 840B (the paper's embedding) has a few tokens with spaces, e.g. ". . .";
    # the vector is the last d fields of the line (a naive split would call the file ragged)
    path = tmp_path / "cc.txt"
    path.write_text(", 0.1 0.2 0.3\n. . . 1 2 3\nat name@domain.com 4 5 6\ncat 7 8 9\n")
    kv = load_embedding(path, progress=False)
    assert kv.index_to_key == [",", ". . .", "at name@domain.com", "cat"]
    np.testing.assert_array_equal(kv[". . ."], np.array([1, 2, 3], dtype=np.float32))
    np.testing.assert_array_equal(kv["cat"], np.array([7, 8, 9], dtype=np.float32))


def test_truncated_word2vec_binary(tmp_path, small):
    ref = KeyedVectors(small.shape[1])
    ref.add_vectors(WORDS, small)
    path = tmp_path / "trunc.bin"
    ref.save_word2vec_format(str(path), binary=True)
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(EmbeddingFormatError, match="could not be read as a word2vec binary file"):
        load_embedding(path)


def test_format_error_is_a_value_error():
    # callers (the CLI) catch ValueError
    assert issubclass(EmbeddingFormatError, ValueError)
