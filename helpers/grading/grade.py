"""Grading one submission: nbgrader's autograde and feedback, keeping the work of human graders,
and leaving no record behind when nbgrader fails.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from .course import GradeReport, course_api, nbgrader_error, read_submission_flags
from .flags import grade_id
from .plugins import apply_late_penalties

__all__ = ["grade_submission", "score_of"]


def _cell_sources(folder: Path, notebook: str) -> dict:
    """``{grade_id: source}`` of the graded cells of ``folder/<notebook>.ipynb`` ({} if unreadable)."""
    try:
        cells = json.loads((folder / f"{notebook}.ipynb").read_text()).get("cells", [])
    except (OSError, ValueError):
        return {}

    out = {}
    for cell in cells:
        gid = grade_id(cell)
        if gid:
            src = cell.get("source", "")
            out[gid] = "".join(src) if isinstance(src, list) else src
    return out


def _manual_grades(gb, assignment: str, student: str, autograded: Path) -> dict:
    """``{(notebook, grade_id): (auto_score, cell source)}`` of the cells a person has graded (manual
    score given, not waiting for manual grading), with the source last autograded."""
    from nbgrader.api import MissingEntry

    try:
        sub = gb.find_submission(assignment, student)
    except MissingEntry:
        return {}
    out = {}
    for nb in sub.notebooks:
        sources = None
        for g in nb.grades:
            if g.manual_score is not None and not g.needs_manual_grade:
                sources = _cell_sources(autograded, nb.name) if sources is None else sources
                if g.name in sources:
                    out[(nb.name, g.name)] = (g.auto_score, sources[g.name])
    return out


def score_of(gb, assignment: str, student: str) -> tuple[float, float, float]:
    """Read one submission's score, maximum and lateness from the gradebook.

    The score is nbgrader's total minus its late-submission penalty, never below zero; the
    exports and the run's summary report this number.

    Parameters
    ----------
    gb : nbgrader.api.Gradebook
        An open gradebook.
    assignment : str
        The assignment's name.
    student : str
        The student's id.

    Returns
    -------
    tuple of float
        ``(score after the late penalty, max_score, seconds late)``.

    Raises
    ------
    nbgrader.api.MissingEntry
        When the gradebook has no such submission.
    """
    sub = gb.find_submission(assignment, student)
    late = float(sub.total_seconds_late or 0.0)
    return max(0.0, float(sub.score) - float(sub.late_submission_penalty or 0.0)), float(sub.max_score), late


def _has_submission(gb, assignment: str, student: str) -> bool:
    from nbgrader.api import MissingEntry

    try:
        gb.find_submission(assignment, student)
    except MissingEntry:
        return False
    return True


def _has_student(gb, student: str) -> bool:
    from nbgrader.api import MissingEntry

    try:
        gb.find_student(student)
    except MissingEntry:
        return False
    return True


def _forget(db_url: str, assignment: str, student: str, *, student_too: bool) -> None:
    """Remove what a failed autograde left in the gradebook: the submission record (and the student,
    when grading created it and it has no other submission), so the gradebook is as it was."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            gb.remove_submission(assignment, student)
        except MissingEntry:
            pass
        if student_too:
            try:
                if not gb.find_student(student).submissions:
                    gb.remove_student(student)
            except MissingEntry:
                pass


def grade_submission(root: str | os.PathLike, assignment: str, student: str, *, sandbox: bool = True,
                     feedback: bool = True) -> GradeReport:
    """Autograde one submission (and write its feedback), keeping the work of human graders.

    Safe to call in a separate process: it reads ``root/nbgrader_config.py`` itself. The gradebook
    must know the assignment (:func:`grade_class` makes sure of it).

    Parameters
    ----------
    root : path
        The course root (the folder with ``nbgrader_config.py``).
    assignment, student : str
        The submission ``root/submitted/<student>/<assignment>/``.
    sandbox : bool
        Run the kernel in the bubblewrap sandbox (``helpers.grading.course.configure``).
    feedback : bool
        Generate ``feedback/<student>/<assignment>/*.html`` (without hidden tests).

    Returns
    -------
    GradeReport
        ``success`` is False, with nbgrader's error (:func:`nbgrader_error`), when nbgrader could not
        grade it; a submission the gradebook did not have before is then removed from it again (and
        the student, when grading created the record), so a failure leaves no empty record behind.

    Notes
    -----
    nbgrader's ``SaveAutoGrades`` keeps manual scores but marks every cell that has one as needing
    manual grading again. Here a cell a person had graded goes back to "graded" when its content and
    its automatic score are unchanged and no flag names it (or the whole notebook); otherwise it
    stays in the queue, with the person's score. The late penalty is then computed on the final score
    (:func:`helpers.grading.plugins.apply_late_penalties`), manual points included.
    """
    from nbgrader.api import Gradebook, MissingEntry

    cfg, api = course_api(root, sandbox)
    db_url = api.coursedir.db_url
    autograded = Path(api.coursedir.format_path(api.coursedir.autograded_directory, student, assignment))
    with Gradebook(db_url) as gb:
        before = _manual_grades(gb, assignment, student, autograded)
        existed, student_existed = _has_submission(gb, assignment, student), _has_student(gb, student)
    result = api.autograde(assignment, student, force=True, create=True)
    ok = bool(result.get("success"))
    error = "" if ok else nbgrader_error(result)
    if not ok and not existed:  # nbgrader created an empty submission record before it failed
        _forget(db_url, assignment, student, student_too=not student_existed)
    flags = read_submission_flags(db_url, assignment, student)
    if ok and before:
        flagged = {(f["notebook"], f["cell"]) for f in flags}
        whole = {f["notebook"] for f in flags if f["cell"] is None}
        with Gradebook(db_url) as gb:
            sub = gb.find_submission(assignment, student)
            for nb in sub.notebooks:
                sources = _cell_sources(autograded, nb.name)
                for g in nb.grades:
                    key = (nb.name, g.name)
                    if (key in before and g.manual_score is not None and (g.auto_score, sources.get(g.name)) == before[key]
                            and key not in flagged and nb.name not in whole):
                        g.needs_manual_grade = False
            gb.db.commit()
    if ok:  # nbgrader took the penalty from the score before the manual grades were restored
        apply_late_penalties(db_url, cfg, [assignment], student)
    if ok and feedback:
        res = api.generate_feedback(assignment, student, force=True)
        if not res.get("success"):
            ok, error = False, "generate_feedback failed: " + nbgrader_error(res)
    with Gradebook(db_url) as gb:
        try:
            score, max_score, late = score_of(gb, assignment, student)
        except MissingEntry:
            score, max_score, late = 0.0, 0.0, 0.0
    return GradeReport(assignment, student, score, max_score, ok, error, flags, False, late)
