"""The course's data: the ten WEATs of Table 1 and the two WEFAT data sets.

Data files live in the course's top-level ``data/`` folder (see ``data/SOURCES.md``; the wheel
installs them as ``helpers/data/``) and are found relative to this package, so notebooks work from any folder, including nbgrader's
``autograded/<student>/<assignment>/``.
"""
from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["data_dir", "WordSet", "WeatSpec", "weat_tests", "weat_test", "wefat_occupations",
           "wefat_names", "wefat_paper", "FEMALE_TERMS", "MALE_TERMS"]


def data_dir() -> Path:
    """The folder with the course data (``COURSE_DATA_DIR`` overrides it).

    Inside an installed wheel the data is the package's ``helpers/data/``; in the course folder it
    is the top-level ``data/`` (``pyproject.toml`` maps one onto the other).

    Returns
    -------
    pathlib.Path
        The folder holding ``weat_tests.json`` and the WEFAT data.

    Raises
    ------
    FileNotFoundError
        The folder has no ``weat_tests.json`` (the message says how to fix it).
    """
    env = os.environ.get("COURSE_DATA_DIR")
    here = Path(__file__).resolve().parent
    path = Path(env) if env else next((p for p in (here / "data", here.parent / "data") if p.is_dir()),
                                      here.parent / "data")
    if not (path / "weat_tests.json").is_file():
        raise FileNotFoundError(
            f"The course data folder {path} is missing or incomplete. Install the course in editable "
            "mode from its folder (pip install -r requirements.txt) or set COURSE_DATA_DIR."
        )
    return path


@dataclass(frozen=True)
class WordSet:  # numpydoc ignore=PR01
    """A named word list as the paper prints it, with the words the authors left out.

    Frozen (hashable). :attr:`used_by_paper` is the list the paper's numbers were computed on.

    Attributes
    ----------
    name : str
        The list's name in the paper (e.g. ``"Flowers"``).
    words : tuple of str
        The words as printed.
    dropped_by_paper : tuple of str
        The words the authors left out because they were rare in their corpus (printed in
        italics in the long draft).
    """

    name: str
    words: tuple[str, ...]
    dropped_by_paper: tuple[str, ...] = ()

    @property
    def used_by_paper(self) -> list[str]:
        """The words the paper actually used (``words`` minus ``dropped_by_paper``), in order.

        The tests of :func:`helpers.weat.run_table1` use these.
        """
        drop = set(self.dropped_by_paper)
        return [w for w in self.words if w not in drop]


@dataclass(frozen=True)
class WeatSpec:  # numpydoc ignore=PR01
    """One row of Table 1: word sets, the original IAT result and the paper's WEAT result.

    Frozen; :func:`weat_tests` reads the ten rows from ``data/weat_tests.json``.

    Attributes
    ----------
    id : int
        The row, 1 to 10.
    target_x, target_y : WordSet
        The target word sets X and Y.
    attribute_a, attribute_b : WordSet
        The attribute word sets A and B.
    original : dict
        The human IAT result the row replicates: ``ref``, ``reference``, ``N``, ``d``, ``p`` and, for
        some rows, ``p_note``.
    paper : dict
        The paper's WEAT result on GloVe Common Crawl 840B: ``n_target``, ``n_attribute``, ``d``
        and ``p`` (as printed).
    word_lists_from : str
        The source of the word lists (e.g. ``"Greenwald et al. (1998), p. 1479"``).
    """

    id: int
    target_x: WordSet
    target_y: WordSet
    attribute_a: WordSet
    attribute_b: WordSet
    original: dict
    paper: dict
    word_lists_from: str

    @property
    def title(self) -> str:
        """The row's title, ``"<target X> vs. <target Y> / <attribute A> vs. <attribute B>"``.

        Made of the four word sets' names, for tables and plots.
        """
        return (f"{self.target_x.name} vs. {self.target_y.name} / "
                f"{self.attribute_a.name} vs. {self.attribute_b.name}")


def _wordset(d: dict) -> WordSet:
    return WordSet(d["name"], tuple(d["words"]), tuple(d.get("dropped_by_paper", ())))


@lru_cache(maxsize=1)
def weat_tests() -> tuple[WeatSpec, ...]:
    """The ten WEATs of Table 1 of Caliskan, Bryson & Narayanan (2017), ids 1-10 in row order.

    Each with the word lists as the paper and its long draft (arXiv:1608.07187v2) give them, the
    words the authors left out, the human IAT result the row replicates and the paper's result.

    Returns
    -------
    tuple of WeatSpec
        Read from ``data/weat_tests.json`` once and cached.
    """
    with open(data_dir() / "weat_tests.json", encoding="utf-8") as fh:
        doc = json.load(fh)
    return tuple(
        WeatSpec(t["id"], _wordset(t["target_x"]), _wordset(t["target_y"]), _wordset(t["attribute_a"]),
                 _wordset(t["attribute_b"]), t["original"], t["paper"], t["word_lists_from"])
        for t in doc["tests"]
    )


def weat_test(test_id: int) -> WeatSpec:
    """Row ``test_id`` (1-10) of Table 1.

    The entry of :func:`weat_tests` whose ``id`` is ``test_id``.

    Parameters
    ----------
    test_id : int
        The row, 1 to 10.

    Returns
    -------
    WeatSpec
        The row's word sets and results.

    Raises
    ------
    KeyError
        ``test_id`` is not 1 to 10.
    """
    for t in weat_tests():
        if t.id == test_id:
            return t
    raise KeyError(f"There is no WEAT {test_id!r}; Table 1 has rows 1 to 10.")


def _read_csv(name: str, key: str, value: str) -> tuple[list[str], list[float]]:
    with open(data_dir() / name, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [r[key] for r in rows], [float(r[value]) for r in rows]


#: Female attribute words of the WEFATs (Nosek et al. 2002a, as in WEAT 7).
FEMALE_TERMS = ("female", "woman", "girl", "sister", "she", "her", "hers", "daughter")
#: Male attribute words of the WEFATs (Nosek et al. 2002a, as in WEAT 7).
MALE_TERMS = ("male", "man", "boy", "brother", "he", "him", "his", "son")


def wefat_occupations() -> tuple[list[str], list[float]]:
    """The 50 occupations of Figure 1 and the % women among those employed in them (BLS 2015).

    Read from ``data/occupations_bls2015.csv`` (its source is in ``data/SOURCES.md``).

    Returns
    -------
    words : list of str
        The occupations.
    values : list of float
        Percent women, one per word.
    """
    return _read_csv("occupations_bls2015.csv", "word", "percent_women")


def wefat_names() -> tuple[list[str], list[float]]:
    """The 50 androgynous names of Figure 2 and the % female with that name (1990 U.S. census).

    Read from ``data/names_census1990.csv`` (its source is in ``data/SOURCES.md``).

    Returns
    -------
    words : list of str
        The names.
    values : list of float
        Percent female, one per name.
    """
    return _read_csv("names_census1990.csv", "name", "percent_female")


def wefat_paper() -> dict[str, dict]:
    """What the paper reports for its two WEFATs (GloVe Common Crawl 840B), from ``data/wefat_paper.json``.

    For comparison with the course's results, which come from another embedding (GloVe 6B 50d
    by default).

    Returns
    -------
    dict
        ``{"occupations": {...}, "names": {...}}``, each with ``figure`` (1 or 2), ``n`` (words),
        ``pearson_r`` (0.90 and 0.84) and ``p_below`` (the bound on P in the caption).
    """
    with open(data_dir() / "wefat_paper.json", encoding="utf-8") as fh:
        doc = json.load(fh)
    return {k: doc[k] for k in ("occupations", "names")}
