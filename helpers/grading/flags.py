"""Flags for a person: submissions the autograder should not be trusted to score alone.

A flag is a reason, in plain words, attached to one cell of a submitted notebook (its
``grade_id``) or to the whole notebook (``cell=None``). Flags are raised while nbgrader
autogrades (by the static scan :class:`helpers.grading.scan.ScanAnswers` before execution, by the
sandboxed kernel when a cell kills it) and end up in the gradebook, where the formgrader shows
them:

* every graded cell concerned is marked ``needs_manual_grade`` and *keeps its auto score*
  (a flag never silently zeroes anything: a person decides);
* the reason is written as an auto comment starting ``FLAGGED: `` on the answer cell concerned,
  so it appears next to the answer in the formgrader;
* the submitted notebook is marked ``flagged`` in the gradebook.

The pieces: :func:`add_flag` and :func:`notebook_flags` work on the notebook being graded (the
flags live in its metadata under ``"course_flags"``); :class:`SaveFlags` is the nbgrader
preprocessor, placed after ``SaveAutoGrades`` in ``Autograde.autograde_preprocessors`` (see
``nbgrader_config.py``), that writes them to the gradebook; :func:`read_flags` reads them back
from the gradebook, so plain ``nbgrader autograde`` flags too; :func:`open_flags` those a person has
not resolved yet (what ``flags.csv`` lists, for every assignment, until then).

nbgrader's autograde runs two passes (sanitize, then execute) on a notebook written to disk in
between: flags kept in the notebook's metadata survive it. ``ClearMetadataPreprocessor`` runs in
the second pass before ``SaveAutoGrades``; it is disabled by nbgrader's default (it would also
delete the cells' nbgrader metadata that grading needs), and ``nbgrader_config.py`` lists
``"course_flags"`` in its ``preserve_nb_metadata_mask`` in case someone enables it.
"""
from __future__ import annotations

import re

from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade, is_solution, is_task

__all__ = ["METADATA_KEY", "PREFIX", "add_flag", "notebook_flags", "grade_id", "safe_name", "SaveFlags", "read_flags",
           "open_flags", "release_resolved_flags", "flag_submission"]

#: Where a notebook being graded keeps its flags (its metadata), between nbgrader's two passes.
METADATA_KEY = "course_flags"
#: The start of a flag's line in an answer cell's auto comment: how :func:`read_flags` finds it again.
PREFIX = "FLAGGED: "
_LINE = re.compile(r"^FLAGGED: (?P<reason>.*) \[cell: (?P<cell>[^\]]*)\]$")


def add_flag(nb, cell: str | None, reason: str) -> None:
    """Record a flag for a person in the notebook being graded.

    The flag stays in the notebook's metadata until :class:`SaveFlags` writes it to the gradebook.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook being autograded (the flag is stored in ``nb.metadata["course_flags"]``).
    cell : str or None
        The ``grade_id`` of the cell concerned (an answer cell or a test cell), or None for the
        whole notebook.
    reason : str
        What was found, in plain words (one line; newlines are replaced by spaces).

    Returns
    -------
    None
        A flag already recorded (same cell and reason) is not recorded twice. The reason ends up
        in an auto comment, which the feedback renders as Markdown: ``<``, ``>``, ``&``, ``[``,
        ``]`` and ``$`` in it become look-alikes that render as text (see :func:`_plain`).
    """
    reason = _plain(" ".join(str(reason).split()))
    if cell is not None:
        cell = _plain(str(cell))
    flags = nb.metadata.setdefault(METADATA_KEY, [])
    entry = {"cell": cell, "reason": reason}
    if entry not in [dict(f) for f in flags]:
        flags.append(entry)


def notebook_flags(nb) -> list[dict]:
    """List the flags recorded in a notebook by :func:`add_flag`.

    They are read from the notebook's metadata (:data:`METADATA_KEY`); a notebook without any gives
    an empty list.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A notebook (being graded, or an autograded one read from disk).

    Returns
    -------
    list of dict
        One dict per flag with keys ``cell`` (grade_id or None) and ``reason``, in the order
        they were raised.
    """
    return [{"cell": f.get("cell"), "reason": f.get("reason", "")}
            for f in nb.get("metadata", {}).get(METADATA_KEY, [])]


_LOOKALIKE = str.maketrans({"<": "\u2039", ">": "\u203a", "&": "+", "[": "(", "]": ")", "$": "\uff04", "`": "'",
                            "\\": "/"})


def _plain(text: str) -> str:
    """Text that renders as itself in Markdown and HTML: no tags, entities, links, math or code spans."""
    return text.translate(_LOOKALIKE)


def safe_name(name: str, limit: int = 60) -> str:
    """Make a file name safe to show in a flag or a log: letters, digits and ``._+-`` only.

    Every other character becomes ``?``, and a long name is cut to ``limit`` characters.

    Parameters
    ----------
    name : str
        A name from a submission (the student chose every character of it).
    limit : int
        Longest result; longer names are cut and end in ``...``.

    Returns
    -------
    str
        ``name`` with every other character replaced by ``?`` (so no HTML, Markdown or
        terminal control sequence written by a student reaches a page or a log).
    """
    out = re.sub(r"[^A-Za-z0-9._+-]", "?", name)
    return out if len(out) <= limit else out[:limit - 3] + "..."


def grade_id(cell) -> str | None:
    """Read the nbgrader ``grade_id`` of a cell.

    It is in the cell's ``metadata["nbgrader"]``; a cell without nbgrader's metadata (or with
    metadata that is not a dict) has none.

    Parameters
    ----------
    cell : nbformat.NotebookNode
        A notebook cell.

    Returns
    -------
    str or None
        Its ``grade_id``, or None.
    """
    meta = cell.get("metadata", {}).get("nbgrader")
    return meta.get("grade_id") if isinstance(meta, dict) else None


def _comment_line(flag: dict) -> str:
    return f"{PREFIX}{flag['reason']} [cell: {flag['cell'] or '(whole notebook)'}]"


class SaveFlags(NbGraderPreprocessor):  # numpydoc ignore=PR01,PR02
    """Write the notebook's flags to the gradebook: an nbgrader preprocessor placed after ``SaveAutoGrades``.

    For a flag on a cell, the graded cells concerned are that cell (if graded) and every graded
    cell after it in the notebook (code in an answer cell can affect every later test); for a
    whole-notebook flag, every graded cell. They are marked ``needs_manual_grade``; their auto
    score is kept. The reason goes into the auto comment of the answer cell concerned (the
    flagged cell if it is an answer cell, else the nearest answer cell before it, else the first
    one), one line ``FLAGGED: <reason> [cell: <grade_id>]`` per flag, so the formgrader shows it.

    Parameters
    ----------
    **kw : dict
        The preprocessor's options (traitlets: ``config``, ``parent``).
    """

    def preprocess(self, nb, resources):
        """Write the flags of ``nb`` to the gradebook, and log each as a warning.

        Without flags nothing is written. The graded cells concerned are marked
        ``needs_manual_grade`` (their auto scores stay), the flag lines replace the earlier ones in the
        answer cells' auto comments, and the submitted notebook is marked ``flagged``; entries the
        gradebook lacks are skipped.

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The notebook being autograded.
        resources : dict
            The resources nbgrader passes; ``resources["nbgrader"]`` names the gradebook, assignment, student
            and notebook.

        Returns
        -------
        tuple
            ``(nb, resources)``, unchanged.
        """
        flags = notebook_flags(nb)
        if not flags:
            return nb, resources
        from nbgrader.api import Gradebook, MissingEntry

        info = resources["nbgrader"]
        notebook_id, assignment_id, student_id = info["notebook"], info["assignment"], info["student"]
        cells = [c for c in nb.cells if grade_id(c)]
        ids = [grade_id(c) for c in cells]
        graded = [i for i, c in enumerate(cells) if is_grade(c)]
        answers = [i for i, c in enumerate(cells) if is_solution(c) or is_task(c)]
        manual: set[str] = set()
        comments: dict[str, list[str]] = {}
        for flag in flags:
            pos = ids.index(flag["cell"]) if flag["cell"] in ids else None
            start = 0 if pos is None else pos
            manual.update(ids[i] for i in graded if i >= start)
            before = [i for i in answers if pos is not None and i <= pos]
            target = before[-1] if before else (answers[0] if answers else None)
            if target is not None:
                comments.setdefault(ids[target], []).append(_comment_line(flag))
        with Gradebook(info["db_url"]) as gb:
            for gid in manual:
                try:
                    grade = gb.find_grade(gid, notebook_id, assignment_id, student_id)
                except MissingEntry:
                    continue
                grade.needs_manual_grade = True  # the auto score stays: a person decides
            for gid, lines in comments.items():
                try:
                    comment = gb.find_comment(gid, notebook_id, assignment_id, student_id)
                except MissingEntry:
                    continue
                kept = [x for x in (comment.auto_comment or "").split("\n") if x and not x.startswith(PREFIX)]
                comment.auto_comment = "\n".join(kept + lines)
            try:
                gb.find_submission_notebook(notebook_id, assignment_id, student_id).flagged = True
            except MissingEntry:
                pass
            gb.db.commit()
        for flag in flags:
            self.log.warning("FLAGGED %s/%s/%s cell %s: %s", assignment_id, student_id, notebook_id,
                             flag["cell"] or "(whole notebook)", flag["reason"])
        return nb, resources


def read_flags(db_url: str, assignments=None) -> list[dict]:
    """Read every flag stored in a gradebook by :class:`SaveFlags`.

    They are found in the submitted notebooks' auto comments, as the lines that start with
    :data:`PREFIX`; a flag a person has resolved is still there (:func:`open_flags` leaves those out).

    Parameters
    ----------
    db_url : str
        The gradebook's database URL (``CourseDirectory.db_url``, e.g. ``sqlite:///gradebook.db``).
    assignments : iterable of str, optional
        Only these assignments (default: all).

    Returns
    -------
    list of dict
        One dict per flag with keys ``assignment``, ``student``, ``notebook``, ``cell`` (the
        grade_id concerned, None for the whole notebook) and ``reason``, sorted by assignment,
        student and notebook.
    """
    from nbgrader.api import Gradebook

    wanted = None if assignments is None else set(assignments)
    out = []
    with Gradebook(db_url) as gb:
        for assignment in gb.assignments:
            if wanted is not None and assignment.name not in wanted:
                continue
            for sub in gb.assignment_submissions(assignment.name):
                for snb in sub.notebooks:
                    for comment in snb.comments:
                        for line in (comment.auto_comment or "").split("\n"):
                            m = _LINE.match(line)
                            if m:
                                cell = m["cell"]
                                out.append({"assignment": assignment.name, "student": sub.student.id,
                                            "notebook": snb.name,
                                            "cell": None if cell == "(whole notebook)" else cell,
                                            "reason": m["reason"]})
    out.sort(key=lambda f: (f["assignment"], f["student"], f["notebook"]))
    return out


def open_flags(db_url: str, assignments=None) -> list[dict]:
    """The flags no person has resolved yet, of every assignment (or of ``assignments``).

    A flag is resolved when a person has dealt with its notebook in the formgrader: the notebook's flag
    was switched off (the formgrader's flag button; :func:`release_resolved_flags` then takes the
    cells it held out of the queue with their automatic scores), or every cell of it that waited for
    manual grading has been graded. Until then it stays open, whatever assignment a later run grades.
    A regrade that raises it again reopens it.

    Parameters
    ----------
    db_url : str
        The gradebook.
    assignments : iterable of str, optional
        Only these assignments (default: all).

    Returns
    -------
    list of dict
        As :func:`read_flags`, only the open ones.
    """
    from nbgrader.api import Gradebook

    flags = read_flags(db_url, assignments)
    if not flags:
        return []
    wanted = {(f["assignment"], f["student"], f["notebook"]) for f in flags}
    still = set()
    with Gradebook(db_url) as gb:
        for a, s, n in wanted:
            try:
                snb = gb.find_submission_notebook(n, a, s)
            except Exception:  # noqa: BLE001 - MissingEntry: nothing left to resolve
                continue
            if snb.flagged and any(g.needs_manual_grade for g in snb.grades):
                still.add((a, s, n))
    return [f for f in flags if (f["assignment"], f["student"], f["notebook"]) in still]


def release_resolved_flags(db_url: str, assignments=None) -> int:
    """Take the cells a resolved flag held out of the manual-grading queue, with their automatic scores.

    A flag puts every graded cell after the flagged one in the queue, automatic scores kept. Switching
    the notebook's flag off in the formgrader (the flag button of its grading view) is the one action that
    resolves it: the cells you gave a score keep yours, and every other cell the flag held (an automatic
    score, no manual one, waiting) leaves the queue with its automatic score, so that no score has to be
    typed in again. Cells that wait for a person by nature (a written answer, with no automatic score) and
    cells a resubmission sent back to the queue (they have a manual score) are left as they are.
    ``write_exports``, ``regenerate_feedback`` and :func:`open_flags` see the result.

    Parameters
    ----------
    db_url : str
        The gradebook.
    assignments : iterable of str, optional
        Only these assignments (default: all).

    Returns
    -------
    int
        The number of cells taken out of the queue.
    """
    from nbgrader.api import Gradebook

    wanted = None if assignments is None else set(assignments)
    released = 0
    with Gradebook(db_url) as gb:
        for assignment in gb.assignments:
            if wanted is not None and assignment.name not in wanted:
                continue
            for sub in gb.assignment_submissions(assignment.name):
                for snb in sub.notebooks:
                    if snb.flagged or not any(PREFIX in (c.auto_comment or "") for c in snb.comments):
                        continue
                    for g in snb.grades:
                        if g.needs_manual_grade and g.auto_score is not None and g.manual_score is None:
                            g.needs_manual_grade = False
                            released += 1
        if released:
            gb.db.commit()
    return released


def flag_submission(db_url: str, assignment: str, student: str, reason: str) -> bool:
    """Flag a whole submission in the gradebook, from outside nbgrader's run (e.g. its grader died).

    Every notebook of the submission gets what :class:`SaveFlags` gives a whole-notebook flag:
    its graded cells are marked ``needs_manual_grade`` (scores kept), the reason is added to the
    auto comment of its first answer cell (by name) and the notebook is marked ``flagged``.

    Parameters
    ----------
    db_url : str
        The gradebook.
    assignment, student : str
        The submission.
    reason : str
        What happened, in plain words.

    Returns
    -------
    bool
        False when the gradebook has no such submission (nothing was written).
    """
    from nbgrader.api import Gradebook, MissingEntry

    line = _comment_line({"cell": None, "reason": _plain(" ".join(str(reason).split()))})
    with Gradebook(db_url) as gb:
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            return False
        for snb in sub.notebooks:
            for g in snb.grades:
                g.needs_manual_grade = True
            comments = sorted(snb.comments, key=lambda c: c.name)
            if comments:
                kept = [x for x in (comments[0].auto_comment or "").split("\n") if x and x != line]
                comments[0].auto_comment = "\n".join(kept + [line])
            snb.flagged = True
        gb.db.commit()
    return True
