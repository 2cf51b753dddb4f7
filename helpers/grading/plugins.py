"""nbgrader plugins that ``nbgrader_config.py`` names: :class:`ShortTracebacks` (the feedback shows a
test cell's error without its traceback), :class:`LatePenaltyPerDay` (the late policy), and
:class:`FinalLatePenalty` and :class:`FinalScoreCsvExport`, which make plain ``nbgrader generate_feedback``
and ``nbgrader export`` take the late penalty from the final score (:func:`apply_late_penalties`), as the
course's own commands do.
"""
from __future__ import annotations

import math

from nbgrader.plugins import CsvExportPlugin, LateSubmissionPlugin
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade
from traitlets import Float

__all__ = ["ShortTracebacks", "LatePenaltyPerDay", "FinalLatePenalty", "FinalScoreCsvExport", "apply_late_penalties"]


class ShortTracebacks(NbGraderPreprocessor):  # numpydoc ignore=PR01,PR02
    """Feedback preprocessor: the error of a graded (test) cell shows only ``Error: message``.

    IPython's traceback prints the lines around the failing one, which in a test cell are the
    hidden tests; ``ClearHiddenTests`` removes them from the cell's source but not from its output.
    The message itself (written to say which property failed, never the expected value) is kept.

    Parameters
    ----------
    **kw : dict
        The plugin's options (traitlets: ``config``, ``parent``).
    """

    def preprocess_cell(self, cell, resources, cell_index):
        """Cut the traceback of a graded cell's error to its last line, ``Error: message``.

        Other cells, and outputs that are not errors, are left as they are.

        Parameters
        ----------
        cell : nbformat.NotebookNode
            A cell of the autograded notebook.
        resources : dict
            The resources nbgrader passes.
        cell_index : int
            The cell's position.

        Returns
        -------
        tuple
            ``(cell, resources)``, ``cell`` changed in place.
        """
        if cell.cell_type == "code" and is_grade(cell):
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
        return cell, resources


class LatePenaltyPerDay(LateSubmissionPlugin):  # numpydoc ignore=PR01,PR02
    """Late policy: a fraction of the notebook's score is lost per started day late.

    ``penalty = score * min(1, fraction_per_day * ceil(seconds_late / 86400))``; with the default
    0.1, a notebook handed in 1 hour late keeps 90% of its score, 30 hours late 80%, 10 days late 0.
    Set in ``nbgrader_config.py``::

        c.AssignLatePenalties.plugin_class = "helpers.grading.plugins.LatePenaltyPerDay"
        c.LatePenaltyPerDay.fraction_per_day = 0.1

    Parameters
    ----------
    **kwargs : dict
        The plugin's options (traitlets: ``config``, ``parent``).
    """

    fraction_per_day = Float(0.1, help="Share of the score lost per started day late (0 to 1).").tag(config=True)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        """Compute the penalty of a notebook handed in ``total_seconds_late`` seconds late.

        ``score * min(1, fraction_per_day * ceil(total_seconds_late / 86400))``; see the class.

        Parameters
        ----------
        student_id : str
            The student (nbgrader's interface; not used).
        score : float
            The notebook's score.
        total_seconds_late : float
            How late it was handed in, in seconds.

        Returns
        -------
        float or None
            The points taken off; None when it was not late.
        """
        if not total_seconds_late or total_seconds_late <= 0:
            return None
        days = math.ceil(total_seconds_late / 86400)
        return float(score) * min(1.0, self.fraction_per_day * days)


def apply_late_penalties(db_url: str, config, assignments=None, student: str | None = None) -> int:
    """Compute every late penalty again on the notebook's current score, manual grades included.

    nbgrader's ``AssignLatePenalties`` runs while autograding, when a written answer has no score yet:
    its penalty is then taken from the automatic points only, and stays so after manual grading (a
    student 30 hours late with 8 automatic and 2 manual points kept 8.4 instead of 8.0). This gives
    each late notebook the penalty the configured plugin (``c.AssignLatePenalties.plugin_class``)
    gives its score now, bounded as nbgrader bounds it (0 to the score); a notebook on time has none.
    :func:`helpers.grading.exports.write_exports`, :func:`helpers.grading.feedback.regenerate_feedback`
    and :func:`helpers.grading.grade.grade_submission` call it before they write grades or feedback.

    Parameters
    ----------
    db_url : str
        The gradebook.
    config : traitlets.config.Config
        The course's configuration (``nbgrader_config.py``), which names the late policy.
    assignments : iterable of str, optional
        Only these assignments (default: all).
    student : str, optional
        Only this student's submissions.

    Returns
    -------
    int
        The number of notebooks whose penalty changed.
    """
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        return _apply_late_penalties(gb, config, assignments, student)


def _apply_late_penalties(gb, config, assignments=None, student: str | None = None) -> int:
    """:func:`apply_late_penalties` in an open gradebook."""
    from nbgrader.preprocessors import AssignLatePenalties

    assigner = AssignLatePenalties(config=config)
    assigner.init_plugin()
    wanted = None if assignments is None else set(assignments)
    changed = 0
    for assignment in gb.assignments:
        if wanted is not None and assignment.name not in wanted:
            continue
        for sub in gb.assignment_submissions(assignment.name):
            if student is not None and sub.student.id != student:
                continue
            late = float(sub.total_seconds_late or 0.0)
            for nb in sub.notebooks:
                penalty = None
                if late > 0:
                    penalty = assigner.plugin_inst.late_submission_penalty(sub.student.id, nb.score, late)
                    if penalty is not None:
                        penalty = min(max(0.0, float(penalty)), float(nb.score))
                if penalty != nb.late_submission_penalty:
                    nb.late_submission_penalty = penalty
                    changed += 1
    if changed:
        gb.db.commit()
    return changed


class FinalLatePenalty(NbGraderPreprocessor):  # numpydoc ignore=PR01,PR02
    """Compute the notebook's late penalty again on its final score: a feedback preprocessor.

    It runs before nbgrader's ``GetGrades`` (:func:`apply_late_penalties`), so that plain
    ``nbgrader generate_feedback`` shows the final penalty too.

    Parameters
    ----------
    **kw : dict
        The plugin's options (traitlets: ``config``, ``parent``).
    """

    def preprocess(self, nb, resources):
        """Compute the late penalty of this student's notebooks of this assignment again, in the gradebook.

        The notebook itself is not changed.

        Parameters
        ----------
        nb : nbformat.NotebookNode
            The notebook whose feedback is being made.
        resources : dict
            The resources nbgrader passes (the gradebook, assignment and student).

        Returns
        -------
        tuple
            ``(nb, resources)``, unchanged.
        """
        info = resources["nbgrader"]
        apply_late_penalties(info["db_url"], self.config, [info["assignment"]], info["student"])
        return nb, resources


class FinalScoreCsvExport(CsvExportPlugin):  # numpydoc ignore=PR01,PR02
    """Write nbgrader's CSV export after computing the late penalties again on the final scores.

    Set as ``c.ExportApp.plugin_class``; the penalties are computed as :func:`apply_late_penalties`
    does, so that plain ``nbgrader export`` writes them too.

    Parameters
    ----------
    **kwargs : dict
        The plugin's options (traitlets: ``config``, ``parent``).
    """

    def export(self, gradebook) -> None:
        """Compute every late penalty again in ``gradebook``, then export as nbgrader's CSV plugin does.

        The penalties change in the gradebook itself (committed), so the export and the gradebook agree.

        Parameters
        ----------
        gradebook : nbgrader.api.Gradebook
            The open gradebook.
        """
        _apply_late_penalties(gradebook, self.config)
        super().export(gradebook)
