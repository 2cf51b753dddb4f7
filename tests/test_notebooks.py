"""The notebooks of every assignment, through the real nbgrader pipeline.

For each ``solutions/<assignment>/`` (found automatically; see ``conftest.py``):

1. the worked solution runs without network: in the round trip (4), and as stored in ``executed/``
   against a fresh run by nbval (``tests/test_site.py``; the 60 s budget is measured by
   ``python -m benchmarks``);
2. ``notebooks/<assignment>/`` is byte-identical to a fresh ``generate_assignment``;
3. the released notebook fails every one of its autograded tests (read from the autograded
   untouched release, which is equivalent to ``Validator(invert=True)``, and saves a run);
4. round trip with a gradebook: the solutions filled into the release autograde to full code
   marks and the untouched release to 0; every mutant of ``tests/mutants/<assignment>.py`` loses
   exactly the test cells listed in its ``fails``, judged in one forking kernel per assignment
   (``tests/mutant_harness.py``); a sample of them, each changing its own cell, also goes through the round
   trip in one submission, which must agree with the harness cell by cell and lose their cells;
5. no solution code or hidden-test text in ``notebooks/``; grade ids unique and descriptive;
   no test cell writes to stderr on a correct answer;
6. the points the text states (exercise headings, the introduction's total) are nbgrader's.

Run one assignment with ``pytest tests/test_notebooks.py --assignment 01_cosine``; the timings
are printed at the end.
"""
from __future__ import annotations

import re

import pytest

import nbgrader_tools as nbt
from conftest import SAMPLE, mutant_shown

def _network_attempts(course) -> str:
    return course.network_log.read_text()


# 1 ------------------------------------------------------------------------------------------
# The worked solution is run in the full round trip below (full marks, no network) and, as stored in
# executed/, again by nbval (tests/test_site.py); nbgrader's Validator adds no check of its own.


# 2 ------------------------------------------------------------------------------------------

def _files(folder):
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*"))
            if p.is_file() and ".ipynb_checkpoints" not in p.parts and "__pycache__" not in p.parts}


def test_release_is_generated_from_solutions(assignment, release):
    committed_dir = nbt.RELEASE_DIR / assignment
    assert committed_dir.is_dir(), (
        f"notebooks/{assignment}/ is missing: run `nbgrader generate_assignment {assignment} --force` "
        "from the course root and commit it")
    fresh, committed = _files(release), _files(committed_dir)
    assert sorted(fresh) == sorted(committed), (
        f"notebooks/{assignment}/ holds {sorted(committed)}, a fresh release holds {sorted(fresh)}")
    stale = [name for name in fresh if fresh[name].read_bytes() != committed[name].read_bytes()]
    assert not stale, (f"notebooks/{assignment}/{stale} differ from a fresh release of solutions/: regenerate "
                       f"with `nbgrader generate_assignment {assignment} --force` and commit (never edit by hand)")


# 3 ------------------------------------------------------------------------------------------

def test_release_fails_its_tests(round_trip, assignment):
    """The release, autograded untouched, fails every autograded test cell.

    Equivalent to ``Validator(invert=True)`` on every released notebook (a cell "passes" when it
    scores its maximum), but read from the autograding run the round trip makes anyway, which
    saves one execution of each notebook. The release graded is the fresh one; test 2 checks
    that ``notebooks/`` is byte-identical to it.
    """
    grades = _code_grades(round_trip.scores[nbt.UNTOUCHED])
    assert grades, f"{assignment} has no autograded test cells"
    passing = sorted(gid for gid, g in grades.items() if g["score"] >= g["max_score"])
    assert not passing, f"the release as given to students already passes the test cells {passing}"


# 4 ------------------------------------------------------------------------------------------

def _code_grades(scores):
    return {gid: g for gid, g in scores.items() if g["cell_type"] == "code"}


def test_round_trip_solutions_get_full_marks(round_trip, course):
    grades = _code_grades(round_trip.scores[nbt.FULL])
    assert grades, f"{round_trip.assignment} has no autograded test cells"
    lost = {gid: f"{g['score']}/{g['max_score']}" for gid, g in grades.items() if g["score"] != g["max_score"]}
    assert not lost, f"the solutions filled into the release lost points in {lost}"
    manual = [gid for gid, g in round_trip.scores[nbt.FULL].items() if g["cell_type"] == "markdown"]
    assert all(round_trip.scores[nbt.FULL][gid]["needs_manual_grade"] for gid in manual)
    assert not _network_attempts(course), f"a notebook tried to use the network:\n{_network_attempts(course)}"


def test_round_trip_untouched_release_scores_zero(round_trip):
    grades = _code_grades(round_trip.scores[nbt.UNTOUCHED])
    scored = {gid: g["score"] for gid, g in grades.items() if g["score"] != 0}
    assert not scored, f"the untouched release scored points in {scored}"


def test_mutants_are_declared(assignment):
    path = nbt.mutants_file(assignment)
    assert path.is_file(), f"{path.relative_to(nbt.COURSE_ROOT)} is missing: list known-wrong answers (CONTRIBUTING.md)"
    assert nbt.load_mutants(assignment), f"{path.name} lists no mutants"


def test_mutant_loses_exactly_its_cells(harness, mutant):
    """Every mutant, judged by the course's judge in one forking kernel (tests/mutant_harness.py)."""
    found = [m for m in harness.mutants if m["name"] == mutant]
    if not found:
        pytest.fail(f"{harness.assignment}: mutant {mutant}")
    m = found[0]
    verdict = harness.verdicts[mutant]
    grades = verdict.scores
    unknown = set(m["fails"]) - set(grades)
    assert not unknown, f"mutant {mutant!r}: 'fails' names {sorted(unknown)}, which are not autograded test cells"
    kept = {gid: f"{grades[gid][0]}/{grades[gid][1]}" for gid in m["fails"] if grades[gid][0] >= grades[gid][1]}
    lost = {gid: f"{s}/{p} ({verdict.errors.get(gid)})" for gid, (s, p) in grades.items()
            if gid not in m["fails"] and s != p}
    assert not kept, f"mutant {mutant!r} was not caught: it kept full marks in {kept}"
    assert not lost, f"mutant {mutant!r} also lost points in {lost}, which it should not affect"
    assert not verdict.flags, f"mutant {mutant!r} was flagged for a person: {verdict.flags}"
    mutant_shown(harness.assignment)


def test_the_harness_grades_as_nbgrader_does(round_trip, harness):
    """The worked solution and the round trip's submission of sampled mutants score cell by cell the same in the
    harness as in the full nbgrader round trip (same student ids, so the same hidden inputs); and in nbgrader
    that submission loses at least every cell each of its mutants loses alone (more where one mutant's function
    calls another's)."""
    labels = ["full"] + ([SAMPLE] if round_trip.mutants else [])
    for label in labels:
        nbgrader = {gid: (float(g["score"]), float(g["max_score"]))
                    for gid, g in _code_grades(round_trip.scores[round_trip.students[label]]).items()}
        assert harness.verdicts[label].scores == nbgrader, (
            f"{label!r}: the harness {harness.verdicts[label].scores} and nbgrader {nbgrader} disagree")
    if round_trip.mutants:
        expected = {gid for m in round_trip.mutants for gid in m["fails"]}
        grades = _code_grades(round_trip.scores[round_trip.students[SAMPLE]])
        kept = sorted(gid for gid in expected if grades[gid]["score"] == grades[gid]["max_score"])
        assert not kept, (f"the mutants {[m['name'] for m in round_trip.mutants]}, together in one submission, kept "
                          f"full marks in nbgrader in {kept}")


# 5 ------------------------------------------------------------------------------------------

def test_release_leaks_no_solutions_or_hidden_tests(assignment):
    for name in nbt.notebook_names(assignment):
        solution = nbt.read_nb(nbt.SOLUTIONS_DIR / assignment / f"{name}.ipynb")
        released_path = nbt.RELEASE_DIR / assignment / f"{name}.ipynb"
        if not released_path.is_file():
            pytest.fail(f"notebooks/{assignment}/{name}.ipynb is missing")
        released = nbt.read_nb(released_path)
        secret = nbt.hidden_and_solution_lines(solution, assignment)
        for k, cell in enumerate(released.cells):
            for marker in nbt.MARKERS:
                assert marker not in cell.source, f"{name}.ipynb cell {k} of the release contains {marker!r}"
            lines = {line.strip() for line in cell.source.split("\n")}
            for kind in ("hidden", "solution"):
                leaked = sorted(lines & secret[kind])
                assert not leaked, f"{name}.ipynb cell {k} ({nbt.grade_id(cell)}) of the release shows {kind} text: {leaked[:3]}"


# nbgrader's own ids ("cell-8f3a2c1d"), hashes and numbered generic names ("test_3", "answer")
_GENERIC_ID = re.compile(r"(?:cell|tests?|answers?|questions?|q|ex|exercises?|solutions?|tasks?|hidden)[-_]?[0-9a-f]*"
                         r"|[0-9a-f_-]*[0-9][0-9a-f_-]*")


def test_grade_ids_unique_and_descriptive(assignment):
    for name in nbt.notebook_names(assignment):
        nb = nbt.read_nb(nbt.SOLUTIONS_DIR / assignment / f"{name}.ipynb")
        ids = []
        for k, cell in enumerate(nb.cells):
            meta = nbt.nbgrader_meta(cell)
            if not (meta.get("grade") or meta.get("solution") or meta.get("locked") or meta.get("task")):
                continue
            gid = meta.get("grade_id")
            assert gid, f"{name}.ipynb cell {k} is an nbgrader cell without a grade_id"
            assert re.fullmatch(r"[a-z][a-z0-9_]{3,}", gid) and not _GENERIC_ID.fullmatch(gid), (
                f"{name}.ipynb cell {k}: grade_id {gid!r} is not descriptive (use e.g. 'cosine_matrix_tests')")
            assert meta.get("schema_version") == 3, f"{name}.ipynb {gid}: nbgrader schema_version should be 3"
            if meta.get("grade") and cell.cell_type == "code":
                assert meta.get("locked") and meta.get("points", 0) > 0, f"{name}.ipynb {gid}: a test cell must be locked and have points"
            ids.append(gid)
        released = nbt.RELEASE_DIR / assignment / f"{name}.ipynb"
        for label, book in [("solutions", nb)] + ([("notebooks", nbt.read_nb(released))] if released.is_file() else []):
            # with OverwriteCells.add_missing_cells, nbgrader's autograde stops with KeyError: 'grade_id'
            # on a submitted cell that has nbgrader metadata but no grade_id
            bare = [k for k, c in enumerate(book.cells) if "nbgrader" in c.metadata and not nbt.grade_id(c)]
            assert not bare, (f"{label}/{assignment}/{name}.ipynb cells {bare} have nbgrader metadata without a "
                              "grade_id; nbgrader cannot autograde such a notebook (remove the metadata or add an id)")
        dupes = sorted({g for g in ids if ids.count(g) > 1})
        assert not dupes, f"{name}.ipynb: grade_ids used more than once: {dupes}"
        assert nb.metadata.get("kernelspec", {}).get("name") == "python3", f"{name}.ipynb: kernel should be python3"
        with_outputs = [k for k, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
        assert not with_outputs, f"{name}.ipynb is stored with outputs in cells {with_outputs}: clear them"


def test_test_cells_silent_on_correct_answer(round_trip):
    folder = round_trip.autograded / nbt.FULL / round_trip.assignment
    for name in nbt.notebook_names(round_trip.assignment):
        nb = nbt.read_nb(folder / f"{name}.ipynb")
        noisy = {nbt.grade_id(c): nbt.stderr_outputs(c)[:300] for c in nbt.test_cells(nb) if nbt.stderr_outputs(c)}
        assert not noisy, f"{name}.ipynb: test cells wrote to stderr on a correct answer (nbgrader scores that 0): {noisy}"
        # a function judged alone (issue 42) gets a note only when the student's own callee changes its result
        noted = [nbt.grade_id(c) for c in nbt.test_cells(nb) if any(
            "the hidden tests judge" in o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream")]
        assert not noted, f"{name}.ipynb: a correct answer got a note that blames a callee in {noted}"


# 6 ------------------------------------------------------------------------------------------

_STATED = re.compile(r"\((\d+(?:\s*\+\s*\d+)*) points?\b")
_TOTAL = re.compile(r"(?:[Gg]rad\w* \((\d+) points\)|:\s*(\d+) points\b)")  # "graded (10 points)", ": 10 points"


def _stating_headings(nb) -> list[list]:
    """``[heading, points stated, points of the graded cells under it]`` for every markdown heading
    that states points; a heading's cells run to the next heading of its level or above."""
    stating, open_sections = [], []  # open: [level, heading, stated or None, graded points]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.split("\n"):
                level = len(line) - len(line.lstrip("#"))
                if level and line[level:level + 1] == " ":
                    open_sections = [s for s in open_sections if s[0] < level]
                    m = _STATED.search(line)
                    section = [level, line.strip(), sum(int(x) for x in m.group(1).split("+")) if m else None, 0]
                    open_sections.append(section)
                    if m:
                        stating.append(section)
        if nbt.nbgrader_meta(cell).get("grade"):
            for s in open_sections:
                s[3] += nbt.nbgrader_meta(cell).get("points", 0)
    return [s[1:] for s in stating]


def test_stated_points_match_the_metadata(assignment):
    """What the text promises is what nbgrader grades: a heading that states points, e.g.
    ``### Exercise 1 (3 points)`` or ``(2 + 1 points)``, states the sum of the ``points`` of the
    graded cells under it, and a total stated in the introduction (``Grading (10 points)``,
    ``...: 10 points``) is the notebook's total."""
    for name in nbt.notebook_names(assignment):
        nb = nbt.read_nb(nbt.SOLUTIONS_DIR / assignment / f"{name}.ipynb")
        stating = _stating_headings(nb)
        assert stating, f"{name}: no heading states the points of its exercise"
        wrong = [f"{h!r} states {stated} points, its graded cells have {got}" for h, stated, got in stating
                 if stated != got]
        assert not wrong, f"{name}: " + "; ".join(wrong)
        total = sum(nbt.nbgrader_meta(c).get("points", 0) for c in nbt.test_cells(nb, None))
        intro = " ".join(c.source for c in nb.cells[:3] if c.cell_type == "markdown")
        totals = {int(a or b) for a, b in _TOTAL.findall(intro)}
        assert totals <= {total}, f"{name}: the introduction states {sorted(totals)} points in all, the metadata {total}"
