"""Hidden tests of 10_lexicon_weat: judged in the grader's process, never released (helpers/judge.py).

Each function is named after the test cell it judges and is called as ``f(nb, seed)``: ``nb.<name>``
is the notebook's function or value (a proxy: calls run in the student's kernel on plain data),
``seed`` this submission's seed. Expected values are computed here, with the reference.
"""

import numpy as np
import os

from helpers.judge import checks as _chk


#: The course's reference implementations of this assignment's exercises: absent from the judged kernel.
REFERENCES = {'lexicon': ['empath_category', 'load_lexicon'], 'statistics': ['association', 'differential_association', 'effect_size', 'effect_size_from_scores']}

def load_lexicon_tests(nb, seed):
    """Hidden tests of the cell `load_lexicon_tests`."""
    _tmp = nb._tmp
    load_lexicon = nb.load_lexicon
    _path2 = os.path.join(_tmp, "hidden_lexicon.csv")
    with open(_path2, "w", encoding="utf-8") as fh:
        fh.write("category,word\npositive_emotion,Zest\nnegative_emotion,gloom\npositive_emotion, cheer \n"
                 "positive_emotion,bliss\npositive_emotion,zest\npositive_emotion,qqqx\npositive_emotion,Amity\n"
                 "positive_emotion,happy\nhomework,essay\nwork,office\n")
    _voc = {"zest", "cheer", "bliss", "amity", "happy", "gloom", "office", "essay"}
    _got = _chk.check_own_work(load_lexicon, "load_lexicon", "empath_category", what="`load_lexicon`",
                              run=lambda: load_lexicon(_path2, "positive_emotion", _voc))
    assert [list(_got[0]), list(_got[1])] == [["zest", "cheer", "bliss", "amity", "happy"], ["qqqx"]], (
        "load_lexicon on a file with capitals, spaces, a repeated word and an out-of-vocabulary word is not right.")
    with _chk.quiet():
        _w = load_lexicon(_path2, "work", _voc)
    assert [list(_w[0]), list(_w[1])] == [["office"], []], "'work' must match the category exactly (not 'homework')."
    with _chk.quiet():
        _chk.check_raises(lambda: load_lexicon(_path2, "emotion", _voc), ValueError,
                     "A category name that is only part of other names should raise ValueError")
        _chk.check_raises(lambda: load_lexicon(_path2, "negative_emotion", {"happy"}), ValueError,
                     "A category with no word in the vocabulary should raise ValueError")


def large_list_effect_size_tests(nb, seed):
    """Hidden tests of the cell `large_list_effect_size_tests`."""
    large_list_effect_size = nb.large_list_effect_size
    from helpers import statistics as _st
    _rng = np.random.default_rng([seed, 1010])
    _sets = [_rng.normal(size=(k, 6)) * _rng.uniform(0.2, 5.0, size=(k, 1)) for k in (7, 3, 11, 4)]
    _sets[0][:, 0] += 1.5
    _sets[2][:, 0] += 1.5
    with _chk.quiet():
        _d = _chk.check_own_work(large_list_effect_size, "effect_size", "effect_size_from_scores", "association",
                                 "differential_association", what="`large_list_effect_size`",
                                 run=lambda: large_list_effect_size(*_sets))
    _chk.check_close(_d, _st.effect_size(*_sets), "large_list_effect_size on random sets of sizes 7, 3, 11 and 4",
                rtol=1e-7, atol=1e-10)
    _sets2 = [_rng.normal(size=(k, 5)) for k in (2, 9, 3, 13)]
    with _chk.quiet():
        _d2 = large_list_effect_size(*_sets2)
    _chk.check_close(_d2, _st.effect_size(*_sets2), "large_list_effect_size on random sets of sizes 2, 9, 3 and 13",
                rtol=1e-7, atol=1e-10)
    with _chk.quiet():
        _chk.check_raises(lambda: large_list_effect_size(np.vstack([_sets[0], np.zeros(6)]), *_sets[1:]), ValueError,
                     "A zero vector should raise ValueError")
