"""Issue 42 item 3 for notebooks 04, 05, 09 (bootstrap_effect_sizes), 10 and 12: a hidden test reports every check
a wrong answer fails, not only the first (``every_failure`` in ``hidden_tests/``).

Each answer below makes two or more independent mistakes; its hidden test, run in the grader's process against
the course's kernel runtime (as ``tests/test_judge.py`` does for 08), must name each of them. That every mutant
still loses exactly its cells is ``tests/test_notebooks.py``'s.
"""
import pytest

from helpers.grading import judge
from helpers.grading.judge import NotebookProxy

import nbgrader_tools as nbt
from test_judge import _ServeChannel, _runtime, _solution_functions, _with_cells

#: cohens_d with the absolute value (swapping X and Y keeps the sign) that divides 0 by 0 for 1 + 1 scores.
ABS_COHENS_D = '''
import numpy as np
def cohens_d(sx, sy):
    sx, sy = np.asarray(sx, dtype=float), np.asarray(sy, dtype=float)
    if sx.size == 0 or sy.size == 0:
        raise ValueError("empty")
    ss = ((sx - sx.mean()) ** 2).sum() + ((sy - sy.mean()) ** 2).sum()
    with np.errstate(all="ignore"):
        sp = np.sqrt(ss / (sx.size + sy.size - 2))
    if sp == 0:
        raise ValueError("zero spread")
    return float(abs(sx.mean() - sy.mean()) / sp)
'''

#: ppmi without the clipping at 0, with a Python loop over the rows.
LOOPY_PMI = '''
import numpy as np
def ppmi(C):
    C = np.asarray(C, dtype=np.float64)
    if C.ndim != 2 or not np.isfinite(C).all() or (C < 0).any() or C.sum() == 0:
        raise ValueError("bad counts")
    expected = C.sum(axis=1, keepdims=True) * C.sum(axis=0, keepdims=True) / C.sum()
    pmi = np.zeros_like(C)
    for w in range(C.shape[0]):
        seen = C[w] > 0
        pmi[w, seen] = np.log(C[w, seen] / expected[w, seen])
    return pmi
'''

#: swap_gendered that swaps the first word of each pair only and accepts a word in two pairs.
ONE_WAY_SWAP = '''
def swap_gendered(sentences, pairs):
    partner = {}
    for a, b in pairs:
        if a == b:
            raise ValueError("a pair of one word")
        partner[a] = b
    return [[partner.get(w, w) for w in s] for s in sentences]
'''

#: large_list_effect_size with dot products of the raw vectors (no cosines) and no error for a zero vector.
RAW_DOT_EFFECT_SIZE = '''
import numpy as np
def large_list_effect_size(X, Y, A, B):
    X, Y, A, B = (np.asarray(S, dtype=np.float64) for S in (X, Y, A, B))
    w = A.mean(axis=0) - B.mean(axis=0)
    sx, sy = X @ w, Y @ w
    return float((sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1))
'''


#: bootstrap_effect_sizes without the error for a zero vector that gives 0, not NaN, when all scores are equal.
BOOTSTRAP_ZERO_FOR_NAN = '''
import numpy as np
def bootstrap_effect_sizes(X, Y, A, B, *, n_resamples, rng):
    rng = np.random.default_rng(rng)
    if n_resamples < 1:
        raise ValueError("n_resamples < 1")
    sets = [np.atleast_2d(np.asarray(S, dtype=np.float64)) for S in (X, Y, A, B)]
    if any(S.shape[0] == 0 for S in sets):
        raise ValueError("an empty set")
    with np.errstate(all="ignore"):
        Xu, Yu, Au, Bu = (S / np.linalg.norm(S, axis=1, keepdims=True) for S in sets)
    out = np.empty(n_resamples)
    for b in range(n_resamples):
        ix, iy, ia, ib = (rng.integers(0, len(S), size=len(S)) for S in (Xu, Yu, Au, Bu))
        w = Au[ia].mean(axis=0) - Bu[ib].mean(axis=0)
        sx, sy = Xu[ix] @ w, Yu[iy] @ w
        sd = np.concatenate([sx, sy]).std(ddof=1)
        out[b] = (sx.mean() - sy.mean()) / sd if sd > 0 else 0.0
    return out
'''


def _twice_greater_any_alternative() -> str:
    """05's worked exact_pvalue with two mistakes: two-sided as twice 'greater' (wrong when s < 0), and no error for
    an unknown alternative (it counts as 'two-sided')."""
    source = _solution_functions("05_permutation_tests", "exact_pvalue")
    for old, new in [("k = np.count_nonzero(np.abs(null) >= abs(observed) - tol)",
                      "k = min(len(null), 2 * np.count_nonzero(null >= observed - tol))"),
                     ('if alternative not in ("greater", "less", "two-sided"):', "if False:")]:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return "from itertools import combinations\n" + source   # the notebook's setup cell imports it


def _messages(assignment: str, test: str, source: str, seed: int = 5) -> list[str]:
    cases = judge.load_cases(nbt.HIDDEN_DIR / f"{assignment}.py")
    user_ns = {}
    exec(source, user_ns)  # noqa: S102 - the test's own source
    token = _with_cells(source)
    try:
        with pytest.raises(judge.HiddenFailures) as info:
            getattr(cases, test)(NotebookProxy(_ServeChannel(_runtime(user_ns))), seed)
    finally:
        judge._current.reset(token)
    return info.value.messages


# not "assignment": conftest parametrizes that name itself
@pytest.mark.parametrize("notebook, test, source, expected", [
    ("04_effect_size", "cohens_d_tests", ABS_COHENS_D,
     ["with X and Y swapped", "cohens_d with only 2 scores should raise ValueError"]),
    ("12_bias_from_corpora", "ppmi_tests", LOOPY_PMI,
     ["ppmi of random counts that are not symmetric", "ppmi of a list of lists", "loop"]),
    ("12_bias_from_corpora", "swap_gendered_tests", ONE_WAY_SWAP,
     ["swap_gendered on 21 random sentences", "Swapping twice", "A word in two pairs should raise ValueError"]),
    ("10_lexicon_weat", "large_list_effect_size_tests", RAW_DOT_EFFECT_SIZE,
     ["random sets of sizes 7, 3, 11 and 4", "random sets of sizes 2, 9, 3 and 13",
      "A zero vector should raise ValueError"]),
    ("09_generalised_weat", "bootstrap_effect_sizes_tests", BOOTSTRAP_ZERO_FOR_NAN,
     ["An attribute set with a zero vector should raise ValueError", "Whether each replicate is NaN"]),
    ("05_permutation_tests", "exact_pvalue_tests", _twice_greater_any_alternative(),
     ["a negative observed statistic", "alternative='bigger' should raise ValueError"]),
], ids=["04-cohens_d", "12-ppmi", "12-swap_gendered", "10-large_list_effect_size", "09-bootstrap_effect_sizes",
        "05-exact_pvalue"])
def test_every_mistake_of_an_answer_is_reported(notebook, test, source, expected):
    messages = _messages(notebook, test, source)
    assert len(messages) == len(expected), messages
    for message, part in zip(messages, expected):
        assert part in message, (part, messages)
