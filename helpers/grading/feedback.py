"""Feedback after manual grading: ``python -m helpers feedback`` writes every autograded submission's
feedback again with the gradebook's current scores, and copies it for an LMS.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .course import course_api, nbgrader_error

__all__ = ["FeedbackReport", "autograded_assignments", "regenerate_feedback"]


@dataclass
class FeedbackReport:
    """What :func:`regenerate_feedback` did for one assignment: the students whose feedback was written,
    those with cells still waiting for a person (their feedback shows those cells ungraded), the files
    written for the LMS, and nbgrader's error if it failed."""

    assignment: str
    students: list = field(default_factory=list)
    waiting: list = field(default_factory=list)
    lms_files: list = field(default_factory=list)
    error: str = ""


def autograded_assignments(root: str | os.PathLike = ".") -> list[str]:
    """The assignments with at least one autograded submission (``autograded/<student>/<assignment>/``)."""
    root = Path(root).resolve()
    folder = root / "autograded"
    if not folder.is_dir():
        return []
    return sorted({a.name for s in folder.iterdir() if s.is_dir() for a in s.iterdir() if a.is_dir()})


def regenerate_feedback(root: str | os.PathLike = ".", assignments: list[str] | None = None, *,
                        lms: str | os.PathLike | None = None) -> list[FeedbackReport]:
    """Write the feedback of every autograded submission again, with the gradebook's current scores.

    ``python -m helpers grade`` writes feedback right after autograding, before anyone grades by
    hand, and ``nbgrader generate_feedback`` without ``--force`` skips a submission whose feedback
    is newer than its autograded notebook (a manual grade changes neither): run this after manual
    grading. With ``lms``, each student's feedback is also copied to
    ``<lms>/<assignment>/<student>_<notebook>.html`` (the naming ``zip_collect`` reads), one file per
    student and notebook, to upload to the LMS; ``nbgrader release_feedback`` works only for
    submissions collected through nbgrader's exchange.

    Parameters
    ----------
    root : path
        The course root.
    assignments : list of str, optional
        Default: every assignment with an autograded submission.
    lms : path, optional
        A folder (relative to ``root`` unless absolute) for the files to upload.

    Returns
    -------
    list of FeedbackReport
        One per assignment; ``error`` is nbgrader's error (:func:`nbgrader_error`) if it failed.
    """
    import shutil

    from nbgrader.api import Gradebook, MissingEntry

    root = Path(root).resolve()
    _, api = course_api(root, sandbox=False)
    names = list(assignments) if assignments else autograded_assignments(root)
    out = []
    for a in names:
        students = sorted(p.parent.name for p in (root / "autograded").glob(f"*/{a}") if p.is_dir())
        report = FeedbackReport(a, students)
        out.append(report)
        if not students:
            report.error = f"no autograded submission of {a} in {root / 'autograded'}/<student>/{a}/: grade it first"
            continue
        res = api.generate_feedback(a, force=True)
        if not res.get("success"):
            report.error = nbgrader_error(res)
            continue
        with Gradebook(api.coursedir.db_url) as gb:
            for s in students:
                try:
                    sub = gb.find_submission(a, s)
                except MissingEntry:
                    continue
                if any(g.needs_manual_grade for nb in sub.notebooks for g in nb.grades):
                    report.waiting.append(s)
        if lms:
            target = Path(lms) if Path(lms).is_absolute() else root / lms
            target = target / a
            target.mkdir(parents=True, exist_ok=True)
            for s in students:
                for page in sorted((root / "feedback" / s / a).glob("*.html")):
                    dest = target / f"{s}_{page.name}"
                    shutil.copyfile(page, dest)
                    report.lms_files.append(dest)
    return out
