"""Feedback after manual grading: ``python -m helpers feedback`` writes every autograded submission's
feedback again with the gradebook's current scores, every export with it, and copies the feedback for an LMS.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .course import course_api, nbgrader_error
from .flags import release_resolved_flags
from .plugins import apply_late_penalties
from .state import lms_folders, remember_lms_folder

__all__ = ["FeedbackReport", "autograded_assignments", "regenerate_feedback", "settle_gradebook", "refresh_feedback",
           "sync_lms_copies"]


@dataclass
class FeedbackReport:  # numpydoc ignore=PR01
    """What :func:`regenerate_feedback` did for one assignment.

    ``python -m helpers feedback`` prints it, one assignment after another.

    Attributes
    ----------
    assignment : str
        The assignment's name.
    students : list
        The students whose feedback was written.
    waiting : list
        Those with cells still waiting for a person (their feedback shows those cells ungraded).
    orphans : list
        Those whose ``autograded/`` folder has no submission in the gradebook (skipped).
    lms_files : list
        The files written for the LMS.
    error : str
        nbgrader's error if it failed, else ``""``.
    """

    assignment: str
    students: list = field(default_factory=list)
    waiting: list = field(default_factory=list)
    orphans: list = field(default_factory=list)
    lms_files: list = field(default_factory=list)
    error: str = ""


def autograded_assignments(root: str | os.PathLike = ".") -> list[str]:
    """List the assignments with at least one autograded submission.

    They are the folders ``autograded/<student>/<assignment>/``; without ``autograded/``, none.

    Parameters
    ----------
    root : path
        The course root.

    Returns
    -------
    list of str
        The assignments' names, sorted.
    """
    root = Path(root).resolve()
    folder = root / "autograded"
    if not folder.is_dir():
        return []
    return sorted({a.name for s in folder.iterdir() if s.is_dir() for a in s.iterdir() if a.is_dir()})


def regenerate_feedback(root: str | os.PathLike = ".", assignments: list[str] | None = None, *,
                        lms: str | os.PathLike | None = None, api=None) -> list[FeedbackReport]:
    """Write the feedback of every autograded submission again, with the gradebook's current scores.

    ``python -m helpers grade`` writes feedback right after autograding, before anyone grades by
    hand, and ``nbgrader generate_feedback`` without ``--force`` skips a submission whose feedback
    is newer than its autograded notebook (a manual grade changes neither): run this after manual
    grading (``python -m helpers feedback``, :func:`helpers.grading.exports.feedback_and_exports`, writes
    the exports after it). First the gradebook is settled (:func:`settle_gradebook`: late penalties on the
    final scores, the cells of resolved flags out of the queue). With ``lms``, the folder is remembered and
    each student's feedback will be copied to ``<lms>/<assignment>/<student>_<notebook>.html`` (the naming
    ``zip_collect`` reads) by :func:`sync_lms_copies`, which every export runs, one file per student and
    notebook, to upload to the LMS; ``nbgrader release_feedback`` works only for submissions collected
    through nbgrader's exchange.

    A folder ``autograded/<student>/<assignment>/`` whose submission is not in the gradebook (the student
    was removed with ``nbgrader db student remove``) is skipped and reported (``orphans``): nbgrader would
    stop on it with ``MissingEntry``.

    Parameters
    ----------
    root : path
        The course root.
    assignments : list of str, optional
        Default: every assignment with an autograded submission.
    lms : path, optional
        A folder (relative to ``root`` unless absolute) for the files to upload.
    api : NbGraderAPI, optional
        The course's API (made from ``root`` otherwise).

    Returns
    -------
    list of FeedbackReport
        One per assignment; ``error`` is nbgrader's error (:func:`nbgrader_error`) if it failed.
    """
    from nbgrader.api import Gradebook

    root = Path(root).resolve()
    if api is None:
        _, api = course_api(root, sandbox=False)
    db_url = api.coursedir.db_url
    names = list(assignments) if assignments else autograded_assignments(root)
    settle_gradebook(db_url, api.config, names)
    with Gradebook(db_url) as gb:
        subs = [(a.name, sub) for a in gb.assignments for sub in gb.assignment_submissions(a.name)]
        recorded = {(a, sub.student.id) for a, sub in subs}
        waiting = {(a, sub.student.id) for a, sub in subs
                   if any(g.needs_manual_grade for nb in sub.notebooks for g in nb.grades)}
    target = None
    if lms:
        target = Path(lms) if Path(lms).is_absolute() else root / lms
        target.mkdir(parents=True, exist_ok=True)
        remember_lms_folder(root, target)
    out = []
    for a in names:
        found = sorted(p.parent.name for p in (root / "autograded").glob(f"*/{a}") if p.is_dir())
        students = [s for s in found if (a, s) in recorded]
        report = FeedbackReport(a, students, orphans=[s for s in found if (a, s) not in recorded])
        out.append(report)
        if not students:
            report.error = (f"no autograded submission of {a} in {root / 'autograded'}/<student>/{a}/ that the "
                            f"gradebook knows: grade it first")
            continue
        api.coursedir.student_id_exclude = ",".join(report.orphans)
        try:
            res = api.generate_feedback(a, force=True)
        finally:
            api.coursedir.student_id_exclude = ""
        if not res.get("success"):
            report.error = nbgrader_error(res)
            continue
        report.waiting = [s for s in students if (a, s) in waiting]
        if target is not None:
            (target / a).mkdir(parents=True, exist_ok=True)
    return out


def settle_gradebook(db_url: str, config, assignments=None) -> None:
    """Bring the gradebook's derived values up to date before anything is written from it.

    These are the late penalties on the final scores (:func:`helpers.grading.plugins.apply_late_penalties`)
    and the cells of resolved flags out of the queue (:func:`helpers.grading.flags.release_resolved_flags`).

    Parameters
    ----------
    db_url : str
        The gradebook.
    config : traitlets.config.Config
        The course's configuration.
    assignments : iterable of str, optional
        Only these assignments (default: all).
    """
    release_resolved_flags(db_url, assignments)
    apply_late_penalties(db_url, config, assignments)


def refresh_feedback(api, root: Path, assignments=None, exclude=()) -> tuple[list, list]:
    """Write again the feedback pages whose grades changed since they were written.

    A page carries the fingerprint of the grades it shows (:func:`helpers.grading.feedback_page.page_grades`);
    a page whose fingerprint differs from the gradebook's now (a manual grade, a comment, a late penalty,
    a resolved flag) is written again. Submissions without a page are left without one.

    Parameters
    ----------
    api : NbGraderAPI
        The course's API.
    root : Path
        The course root.
    assignments : iterable of str, optional
        Only these (default: all).
    exclude : iterable of (assignment, student)
        Submissions not to write (already written by the caller).

    Returns
    -------
    (list, list)
        The ``(assignment, student)`` written again, and the errors (``"a/s: message"``).
    """
    from nbgrader.api import Gradebook

    from .feedback_page import grades_fingerprint, page_grades

    wanted = None if assignments is None else set(assignments)
    skip = set(exclude)
    stale = []
    with Gradebook(api.coursedir.db_url) as gb:
        for assignment in gb.assignments:
            if wanted is not None and assignment.name not in wanted:
                continue
            for sub in gb.assignment_submissions(assignment.name):
                key = (assignment.name, sub.student.id)
                if key in skip:
                    continue
                folder = Path(api.coursedir.format_path(api.coursedir.feedback_directory, sub.student.id,
                                                        assignment.name))
                pages = {nb.name: folder / f"{nb.name}.html" for nb in sub.notebooks}
                if not any(p.is_file() for p in pages.values()):
                    continue
                if any(page_grades(p) != grades_fingerprint(gb, nb) for nb in sub.notebooks
                       for p in [pages[nb.name]]):
                    stale.append(key)
    written, errors = [], []
    for a, s in stale:
        res = api.generate_feedback(a, s, force=True)
        if res.get("success"):
            written.append((a, s))
        else:
            errors.append(f"{a}/{s}: {nbgrader_error(res)}")
    return written, errors


def sync_lms_copies(root: Path, db_url: str, feedback_dir: Path | None = None) -> tuple[list, list]:
    """Bring the LMS copies of feedback (the folders ``python -m helpers feedback --lms`` wrote) up to date.

    In every such folder ``<lms>/<assignment>/``, each ``<student>_<notebook>.html`` that differs from
    ``feedback/<student>/<assignment>/<notebook>.html`` is copied again, a page of that assignment not
    copied yet is copied, and a copy whose submission is no longer in the gradebook (a student removed)
    or whose page is gone is renamed ``<name>.stale`` (no longer an ``.html`` to upload).

    Parameters
    ----------
    root : Path
        The course root.
    db_url : str
        The gradebook.
    feedback_dir : Path, optional
        The feedback folder (default ``root/feedback``).

    Returns
    -------
    (list of Path, list of Path)
        The copies written, and the copies set aside as stale.
    """
    from nbgrader.api import Gradebook

    feedback_dir = Path(feedback_dir) if feedback_dir is not None else Path(root) / "feedback"
    refreshed, stale = [], []
    folders = [f for f in lms_folders(root) if f.is_dir()]
    if not folders:
        return refreshed, stale
    with Gradebook(db_url) as gb:
        known = {(sub.assignment.name, sub.student.id) for a in gb.assignments
                 for sub in gb.assignment_submissions(a.name)}
    for folder in folders:
        for adir in sorted(p for p in folder.iterdir() if p.is_dir()):
            a = adir.name
            wanted = {}
            for s_dir in sorted(feedback_dir.glob(f"*/{a}")):
                s = s_dir.parent.name
                if (a, s) in known:
                    for page in sorted(s_dir.glob("*.html")):
                        wanted[f"{s}_{page.name}"] = page
            for copy in sorted(adir.glob("*.html")):
                if copy.name not in wanted:
                    target = copy.with_name(copy.name + ".stale")
                    copy.replace(target)
                    stale.append(target)
            for name, page in wanted.items():
                dest = adir / name
                if not dest.is_file() or dest.read_bytes() != page.read_bytes():
                    shutil.copyfile(page, dest)
                    refreshed.append(dest)
    return refreshed, stale


