"""Flags for a person: events during autograding that a grader should look at.

Minimal version (the full module, with ``SaveFlags`` and ``read_flags``, is maintained with the
static scan of answer cells): a flag is recorded in the notebook being graded.
"""
from __future__ import annotations

__all__ = ["add_flag", "notebook_flags"]

#: Key of the notebook metadata holding the flags.
METADATA_KEY = "weat_course_flags"


def add_flag(nb, cell, reason) -> None:
    """Record a flag in a notebook during autograding.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The notebook being graded (changed in place).
    cell : str or None
        The ``grade_id`` of the cell concerned (an answer cell or a test cell), or None for the
        whole notebook.
    reason : str
        What happened, in plain words, for the person who grades.
    """
    nb.metadata.setdefault(METADATA_KEY, []).append({"cell": cell, "reason": str(reason)})


def notebook_flags(nb) -> list[dict]:
    """The flags recorded in a notebook: a list of dicts with keys ``cell`` and ``reason``."""
    return [{"cell": f.get("cell"), "reason": f.get("reason", "")} for f in nb.metadata.get(METADATA_KEY, [])]
