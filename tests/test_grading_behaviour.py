"""How grading behaves when students do unexpected things (docs/INSTRUCTORS.md, "How grading behaves").

Every case goes through the real ``nbgrader autograde`` with a gradebook, on ``01_cosine`` (the
fastest notebook; its exercises are ``cosine`` 3 points, ``unit_rows`` 2, ``cosine_matrix`` 2 + 1).
The untouched release (0 points) and the correct submission (full marks) are covered for every
assignment by ``test_notebooks.py``; here are the other cases:

* a correct answer that also warns and writes to stderr keeps full marks;
* an answer that raises, or that loops forever (the per-cell timeout ends it), loses that
  exercise only, and the rest of the notebook is graded;
* an edited test cell is restored; a deleted test cell is re-added and graded; a renamed
  function loses its exercise;
* an answer that calls the course's reference implementation loses that exercise;
* an answer that raises gets feedback that names the likely mistake, not only NumPy's message
  (a missing ``.T``, an unfinished answer cell);
* grading the same submissions twice gives the same grades;
* honesty: no notebook claims "all tests passed", every visible check says what it does not
  cover, and hidden-test failures never show an expected value.
"""
from __future__ import annotations

import re

import pytest

import nbgrader_tools as nbt

A = "01_cosine"
EXERCISE_CELLS = {"cosine_tests": 3.0, "unit_rows_tests": 2.0, "cosine_matrix_tests": 2.0,
                  "cosine_matrix_vectorised_tests": 1.0}

NOISY_COSINE = '''import warnings  # (not sys: helpers.grading.scan flags it, see test_adversarial.py)
warnings.warn("a student's warning while defining cosine")

def cosine(u, v):
    """Correct, but chatty: warns (on stderr) on every call."""
    warnings.warn("computing a cosine")  # warnings go to stderr
    np.log(np.zeros(1))  # a NumPy RuntimeWarning, too
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    if u.shape != v.shape:
        raise ValueError("different lengths")
    nu, nv = np.sqrt(u @ u), np.sqrt(v @ v)
    if nu == 0 or nv == 0:
        raise ValueError("zero vector")
    return float(u @ v / (nu * nv))
'''

RAISING_COSINE = '''def cosine(u, v):
    raise RuntimeError("I have not finished this yet")
'''

# never returns; it waits in its loop rather than spinning, which the interrupt stops the same way (SIGINT raises
# KeyboardInterrupt in time.sleep as between bytecodes) without taking a core of the test machine for the timeout
ENDLESS_COSINE = '''def cosine(u, v):
    import time
    while True:
        time.sleep(0.01)
'''

RENAMED_COSINE = '''def cosine_similarity(u, v):
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    if u.shape != v.shape or not u.any() or not v.any():
        raise ValueError("undefined")
    return float(u @ v / np.sqrt((u @ u) * (v @ v)))
'''

UNNORMALISED_COSINE = '''def cosine(u, v):
    return float(np.dot(np.asarray(u, dtype=float), np.asarray(v, dtype=float)))
'''

REFERENCE_IMPORT = "from helpers.statistics import cosine\n"
MISSING_TRANSPOSE = '''def cosine_matrix(U, V):
    return unit_rows(U) @ unit_rows(V)
'''
UNFINISHED_UNIT_ROWS = '''def unit_rows(M):
    raise NotImplementedError()
'''

REFERENCE_MODULE = '''import helpers.statistics as course_reference

def cosine(u, v):
    return course_reference.cosine(u, v)
'''


def _replace(notebooks: dict, gid: str, source: str) -> dict:
    return nbt.apply_mutant(notebooks, {"name": gid, "cell": gid, "source": source})


def _edit_test_cell(notebooks: dict, gid: str, source: str) -> dict:
    import copy

    out = copy.deepcopy(notebooks)
    for nb in out.values():
        for cell in nb.cells:
            if nbt.grade_id(cell) == gid:
                cell.source = source
    return out


def _delete_cell(notebooks: dict, gid: str) -> dict:
    import copy

    out = copy.deepcopy(notebooks)
    for nb in out.values():
        nb.cells = [c for c in nb.cells if nbt.grade_id(c) != gid]
    return out


SUBMISSIONS = {
    # student id: (how to build it from the correct submission, cells expected to score 0)
    "noisy": (lambda full: _replace(full, "cosine_solution", NOISY_COSINE), set()),
    "raises": (lambda full: _replace(full, "cosine_solution", RAISING_COSINE), {"cosine_tests"}),
    "renamed": (lambda full: _replace(full, "cosine_solution", RENAMED_COSINE), {"cosine_tests"}),
    "edited-test-cell": (lambda full: _edit_test_cell(_replace(full, "cosine_solution", UNNORMALISED_COSINE),
                                                      "cosine_tests", "print('looks fine to me')\n"),
                         {"cosine_tests"}),
    "deleted-test-cell": (lambda full: _delete_cell(full, "cosine_tests"), set()),
    "reference-import": (lambda full: _replace(full, "cosine_solution", REFERENCE_IMPORT), {"cosine_tests"}),
    "reference-module": (lambda full: _replace(full, "cosine_solution", REFERENCE_MODULE), {"cosine_tests"}),
    "missing-transpose": (lambda full: _replace(full, "cosine_matrix_solution", MISSING_TRANSPOSE),
                          {"cosine_matrix_tests", "cosine_matrix_vectorised_tests"}),
    # cosine_matrix calls unit_rows but is judged with the course's unit_rows (issue 42): the unfinished
    # unit_rows costs its own exercise only
    "unfinished": (lambda full: _replace(full, "unit_rows_solution", UNFINISHED_UNIT_ROWS), {"unit_rows_tests"}),
}
# what the feedback of a test cell must say for a submission whose answer raises
EXPLAINED = {
    ("missing-transpose", "cosine_matrix_tests"): ["Your code raised ValueError: matmul", "A likely cause",
                                                   "unit_rows(U) @ unit_rows(V).T"],
    ("unfinished", "unit_rows_tests"): ["Your code raised NotImplementedError", "A likely cause",
                                        "replace `raise NotImplementedError()`"],
}


def _full_submission(root):
    names = nbt.notebook_names(A, root)
    released = {n: nbt.read_nb(root / "notebooks" / A / f"{n}.ipynb") for n in names}
    solutions = {n: nbt.read_nb(root / "solutions" / A / f"{n}.ipynb") for n in names}
    return {n: nbt.fill_solutions(released[n], solutions[n]) for n in names}


def _code(scores: dict) -> dict:
    return {gid: g for gid, g in scores.items() if g["cell_type"] == "code"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Autograde every submission of SUBMISSIONS in one temporary course; returns their scores."""
    nbt.require_assignment(A)
    work = tmp_path_factory.mktemp("behaviour")
    with nbt.offline_env(work):
        root = nbt.make_course(work / "course", [A])
        api = nbt.make_api(root)
        nbt.generate_release(api, A)
        full = _full_submission(root)
        for sid, (build, _) in SUBMISSIONS.items():
            nbt.submit(root, A, sid, build(full))
        scores, _ = nbt.autograde(root, A, list(SUBMISSIONS))
    return scores, root


@pytest.mark.parametrize("student", list(SUBMISSIONS))
def test_submission_is_graded_as_documented(graded, student):
    zero = SUBMISSIONS[student][1]
    grades = _code(graded[0][student])
    assert set(EXERCISE_CELLS) <= set(grades), f"{student}: graded cells {sorted(grades)} lack some of {sorted(EXERCISE_CELLS)}"
    for gid, points in EXERCISE_CELLS.items():
        expected = 0.0 if gid in zero else points
        got = grades[gid]["score"]
        assert got == expected, f"{student}: {gid} scored {got}, expected {expected} (of {points})"
        assert not grades[gid]["needs_manual_grade"], f"{student}: {gid} was left for manual grading"


def test_deleted_test_cell_is_graded_not_left_for_a_person(graded):
    g = graded[0]["deleted-test-cell"]["cosine_tests"]
    assert g["auto_score"] == 3.0 and not g["needs_manual_grade"]


@pytest.mark.parametrize("student, gid", list(EXPLAINED))
def test_an_error_is_explained_in_the_feedback(graded, student, gid):
    """The autograded test cell's error (what the feedback shows) names the likely mistake."""
    _, root = graded
    nb = nbt.read_nb(root / "autograded" / student / A / f"{A}.ipynb")
    cell = next(c for c in nb.cells if nbt.grade_id(c) == gid)
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert errors, f"{student}: {gid} has no error output"
    shown = f"{errors[-1].ename}: {errors[-1].evalue}"
    assert errors[-1].ename == "AssertionError", shown
    for words in EXPLAINED[(student, gid)]:
        assert words in shown, f"{student}: {gid}'s feedback lacks {words!r}: {shown}"


def test_endless_loop_is_stopped_and_the_rest_graded(tmp_path):
    """A ``cosine`` that never returns: the cell timeout stops it, the other exercises keep their points.

    The course's timeout is 60 s per cell (``nbgrader_config.py``); this test uses 15 s so that it
    is quick, which exercises the same mechanism (``Execute.timeout`` with ``interrupt_on_timeout``).
    Not less: on a loaded 2-core machine the setup cell's imports alone took over 5 s.
    """
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    nbt.require_assignment(A)
    with nbt.offline_env(tmp_path):
        root = nbt.make_course(tmp_path / "course", [A])
        c = nbt.course_config(root)
        assert c.Execute.timeout <= 120 and c.Execute.interrupt_on_timeout, "the course's timeout settings changed"
        c.Execute.timeout = 15
        api = NbGraderAPI(coursedir=CourseDirectory(config=c), config=c)
        nbt.generate_release(api, A)
        nbt.submit(root, A, "endless", _replace(_full_submission(root), "cosine_solution", ENDLESS_COSINE))
        with nbt.Stopwatch() as t:
            result = api.autograde(A, "endless")
        assert result["success"], result.get("error")
        grades = _code(nbt.cell_scores(api.coursedir.db_url, A, "endless"))
    assert grades["cosine_tests"]["score"] == 0.0
    for gid in ("unit_rows_tests", "cosine_matrix_tests", "cosine_matrix_vectorised_tests"):
        assert grades[gid]["score"] == EXERCISE_CELLS[gid], f"{gid} lost points after the endless cosine"
    print(f"autograde with an endless loop took {t.wall:.1f} s")


@pytest.mark.assignments("05_permutation_tests")
def test_same_submissions_same_grades_on_a_second_run(round_trip, assignment, tmp_path):
    """Randomness is seeded: grading a submission again gives identical cell scores.

    Uses the permutation-test notebook (sampled p-values): the round trip's worked solution and its submission
    of sampled mutants (``tests/conftest.py``), autograded again in a second, separate course with the same
    student ids, must score cell by cell as in the round trip.
    """
    from conftest import SAMPLE, sample_notebooks

    a = assignment
    assert round_trip.mutants, f"{a} has no mutants in its round trip"
    with nbt.offline_env(tmp_path):
        root = nbt.make_course(tmp_path / "course", [a])
        api = nbt.make_api(root)
        nbt.generate_release(api, a)
        names = nbt.notebook_names(a, root)
        released = {n: nbt.read_nb(root / "notebooks" / a / f"{n}.ipynb") for n in names}
        full = {n: nbt.fill_solutions(released[n], nbt.read_nb(root / "solutions" / a / f"{n}.ipynb")) for n in names}
        students = {round_trip.students["full"]: full,
                    round_trip.students[SAMPLE]: sample_notebooks(full, round_trip.mutants)}
        for sid, nbs in students.items():
            nbt.submit(root, a, sid, nbs)
        scores, _ = nbt.autograde(root, a, list(students))
    again = {s: {g: v["score"] for g, v in sc.items()} for s, sc in scores.items()}
    first = {s: {g: v["score"] for g, v in round_trip.scores[s].items()} for s in students}
    assert again == first
    assert sum(first[round_trip.students[SAMPLE]].values()) < sum(first[round_trip.students["full"]].values()), \
        "the sampled mutants lost no points, so this comparison covers no wrong answer"


# ---------------------------------------------------------------------------------------------
# Honest checks (static, every assignment)
# ---------------------------------------------------------------------------------------------

def _visible_part(source: str) -> str:
    return source.split(nbt.BEGIN_HIDDEN)[0]


def test_no_notebook_claims_all_tests_passed(assignment):
    pattern = re.compile(r"all (the )?(visible )?(tests|checks) (have )?passed|tests passed!", re.I)
    for folder in (nbt.SOLUTIONS_DIR, nbt.RELEASE_DIR):
        for path in sorted((folder / assignment).glob("*.ipynb")):
            for k, cell in enumerate(nbt.read_nb(path).cells):
                assert not pattern.search(cell.source), f"{path.relative_to(nbt.COURSE_ROOT)} cell {k} claims all tests passed"


def test_every_visible_check_says_what_it_does_not_cover(assignment):
    for name in nbt.notebook_names(assignment):
        nb = nbt.read_nb(nbt.SOLUTIONS_DIR / assignment / f"{name}.ipynb")
        for cell in nbt.test_cells(nb):
            visible = _visible_part(cell.source)
            last_print = visible[visible.rfind("print("):] if "print(" in visible else ""
            assert re.search(r"\bnot\b|n't\b", last_print, flags=re.I), (
                f"{name}.ipynb {nbt.grade_id(cell)}: the visible checks must end by printing what they do not cover")
            gid = nbt.grade_id(cell)
            assert nbt.BEGIN_HIDDEN not in cell.source, f"{name}.ipynb {gid}: hidden tests belong in hidden_tests/"
            assert gid in nbt.hidden_cases(assignment), f"hidden_tests/{assignment}.py has no hidden tests for {gid}"
            marker = nbt.HIDDEN_MARKER.format(assignment=assignment, grade_id=gid)
            assert cell.source.rstrip().endswith(marker), f"{name}.ipynb {gid} does not end with the line {marker!r}"


def test_hidden_tests_never_reveal_expected_values_in_code(assignment):
    cases = nbt.hidden_cases(assignment)
    assert cases, f"hidden_tests/{assignment}.py is missing"
    for gid, hidden in cases.items():
        assert "reveal=True" not in hidden, f"hidden_tests/{assignment}.py {gid}: a hidden check uses reveal=True"
        assert not re.search(r"np\.testing\.assert_|numpy\.testing\.assert_", hidden), (
            f"hidden_tests/{assignment}.py {gid}: np.testing asserts print the expected value; use helpers.checks")


_LONG_NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d{3,}")


def test_hidden_failures_show_no_numbers(harness):
    """When a known-wrong answer fails a *hidden* check, the message (shown in the feedback HTML)
    contains no number with three or more decimals: neither the expected value nor a value that
    could be compared with it. Every mutant's hidden failures (its visible checks passed)."""
    checked = 0
    for label, verdict in harness.verdicts.items():
        for gid, message in verdict.hidden.items():
            checked += 1
            assert not _LONG_NUMBER.search(message), f"{label}: hidden check of {gid} shows a number: {message[:300]}"
    print(f"{harness.assignment}: {checked} hidden-test failure message(s) checked")
