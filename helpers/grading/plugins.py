"""nbgrader plugins that ``nbgrader_config.py`` names: :class:`ShortTracebacks` (the feedback shows a
test cell's error without its traceback) and :class:`LatePenaltyPerDay` (the late policy).
"""
from __future__ import annotations

import math

from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade
from traitlets import Float

__all__ = ["ShortTracebacks", "LatePenaltyPerDay"]


class ShortTracebacks(NbGraderPreprocessor):
    """Feedback preprocessor: the error of a graded (test) cell shows only ``Error: message``.

    IPython's traceback prints the lines around the failing one, which in a test cell are the
    hidden tests; ``ClearHiddenTests`` removes them from the cell's source but not from its output.
    The message itself (written to say which property failed, never the expected value) is kept.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "code" and is_grade(cell):
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
        return cell, resources


class LatePenaltyPerDay(LateSubmissionPlugin):
    """Late policy: a fraction of the notebook's score is lost per started day late.

    ``penalty = score * min(1, fraction_per_day * ceil(seconds_late / 86400))``; with the default
    0.1, a notebook handed in 1 hour late keeps 90% of its score, 30 hours late 80%, 10 days late 0.
    Set in ``nbgrader_config.py``::

        c.AssignLatePenalties.plugin_class = "helpers.grading.plugins.LatePenaltyPerDay"
        c.LatePenaltyPerDay.fraction_per_day = 0.1
    """

    fraction_per_day = Float(0.1, help="Share of the score lost per started day late (0 to 1).").tag(config=True)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        if not total_seconds_late or total_seconds_late <= 0:
            return None
        days = math.ceil(total_seconds_late / 86400)
        return float(score) * min(1.0, self.fraction_per_day * days)
