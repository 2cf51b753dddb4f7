"""Which cells a mutant's copy may leave out (``cell_effects.cells_to_run``): only cells whose effects no
later cell that runs can see. Each case is a small notebook: cell 0 is the mutant's change (a solution cell),
the last a graded test cell, and the cell between them is left out or kept."""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cell_effects as mh  # noqa: E402


def _cell(source: str, kind: str = "") -> nbformat.NotebookNode:
    meta = {"nbgrader": {"solution": True, "grade": False, "grade_id": "answer"}} if kind == "solution" else \
        {"nbgrader": {"solution": False, "grade": True, "grade_id": "answer_tests", "points": 1}} if kind == "graded" \
        else {}
    return nbformat.v4.new_code_cell(source, metadata=meta)


def _notebook(*cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# a notebook")] + list(cells)
    return nb


def _left_out(middle: str, test: str = "assert f([1]) == 2", before: str = "import numpy as np\nx = [1]",
              needed=()) -> bool:
    """Is the ungraded cell ``middle`` left out of a mutant's copy that changes ``def f`` (cell 2)?"""
    nb = _notebook(_cell(before), _cell("def f(v):\n    return len(v) + 1", "solution"), _cell(middle),
                   _cell(test, "graded"))
    run = mh.cells_to_run(nb, 2, len(nb.cells), needed)
    assert {2, 4} <= set(run), run  # the mutant's change and the graded cell always run
    return 3 not in run


@pytest.mark.parametrize("middle", [
    "y = f([1, 2])\nprint(y)",                                   # a result nobody reads
    "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot(x)\nplt.show()",
    "z = np.asarray(x) * 2\nprint(np.linalg.norm(z))",           # NumPy's functions change no module
    "rng = np.random.default_rng(0)\nw = rng.normal(size=3)",     # a generator of its own
    "for k in range(3):\n    print(k, f(x))",
    "x.append(5)",                                               # changes x, which no later cell reads
])
def test_a_cell_whose_effects_nobody_sees_is_left_out(middle):
    assert _left_out(middle)


@pytest.mark.parametrize("middle", [
    "x = [1, 2]",                                   # binds a name the test reads
    "x.append(5)",                                  # changes the object the test reads
    "x[0] = 7",
    "x += [3]",
    "del x",
    "from random import shuffle\nshuffle(x)",       # passes it to a function that may change it
    "y = x\ny.append(1)",                           # through another name
    "z.append(1)",                                  # through a name bound before (z = x)
    "np.random.seed(0)",                            # NumPy's global random state (the test uses np)
    "f = len",                                      # rebinds the function the test calls
    "%store x",                                     # a magic: not followed
    "exec('x.append(1)')",
    "with open('out.txt', 'w') as fh:\n    fh.write('1')",  # a file a later cell may read
])
def test_a_cell_a_later_cell_may_see_runs(middle):
    before = "import numpy as np\nx = [1]\nz = x"
    assert not _left_out(middle, test="assert f(x) == 2\nassert np.random.rand() >= 0", before=before)


def test_a_bare_expression_binds_ipythons_last_result():
    assert not _left_out("f([1, 2])", test="assert _ == 3")
    assert _left_out("y = f([1, 2])", test="assert _ == 3")


def test_a_change_made_inside_a_function_the_cell_calls_counts():
    before = "import numpy as np\nx = [1]\ndef grow(n):\n    y = x\n    y.extend(range(n))"
    assert _left_out("grow(3)", before=before)               # y is x: grow changes x, which f([1]) does not read,
    assert not _left_out("grow(3)", before=before, test="assert f(x) == 2")  # but f(x) does
    assert _left_out("def g(n):\n    y = [n]\n    y.append(n)\n    return y\ng(3)", before=before,
                     test="assert f(x) == 2")                 # g changes only its own list


def test_what_the_hidden_tests_read_counts():
    # the hidden tests call nb.h, whose body reads the global `scale`, which the middle cell rebinds
    before = "import numpy as np\nx = [1]\nscale = 1\ndef h(v):\n    return v * scale"
    assert not _left_out("scale = 2", before=before, needed={"h"})
    assert _left_out("scale = 2", before=before)
    assert _left_out("scale = 2", before=before, needed={"f"})
    assert not _left_out("scale = 2", before=before, needed=None)  # the tests use nb otherwise: all names


def test_a_cell_not_followed_keeps_every_cell_before_it():
    nb = _notebook(_cell("x = [1]"), _cell("def f(v):\n    return len(v)", "solution"), _cell("y = 3"),
                   _cell("get_ipython().run_line_magic('who', '')"), _cell("assert f(x) == 1", "graded"))
    assert mh.cells_to_run(nb, 2, len(nb.cells)) == [2, 3, 4, 5]


def test_names_read_by_hidden_tests(tmp_path):
    cases = tmp_path / "cases.py"
    cases.write_text("def f_tests(nb, seed):\n    g = nb.g\n    assert nb.f(1) == g(1)\n")
    assert mh.names_read(cases) == {"f", "g"}
    cases.write_text("def f_tests(nb, seed):\n    check(nb)\n")
    assert mh.names_read(cases) is None
    cases.write_text("def f_tests(nb, seed):\n    assert getattr(nb, 'f')(1)\n")
    assert mh.names_read(cases) is None


def test_a_cell_that_does_not_parse_leaves_nothing_out():
    assert _left_out("y = f([1, 2])")
    assert not _left_out("y = f([1, 2])", before="import numpy as np\nx = [1]\ndef g(:")
