"""Grading a whole class in one command: ``python -m helpers grade`` (run from the course root).

For every assignment in ``solutions/`` and every student folder in ``submitted/<student>/<assignment>/``
this runs nbgrader's autograder (with a progress bar), optionally generates the feedback HTML, and
exports all grades to ``grades.csv``. It reads ``nbgrader_config.py`` from the course root, like
the ``nbgrader`` command, so a PostgreSQL gradebook (``CourseDirectory.db_url``) works the same.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GradeReport", "grade_class", "load_course_config"]


@dataclass
class GradeReport:
    """One autograded submission: assignment, student, score, maximum and whether nbgrader succeeded."""

    assignment: str
    student: str
    score: float
    max_score: float
    success: bool
    error: str = ""


def load_course_config(root: str | os.PathLike):
    """The traitlets ``Config`` of ``root/nbgrader_config.py`` (nbgrader's Python API does not read it itself)."""
    from traitlets.config.loader import PyFileConfigLoader

    root = Path(root)
    if not (root / "nbgrader_config.py").is_file():
        raise FileNotFoundError(f"No nbgrader_config.py in {root}; run this from the course root folder.")
    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    cfg.CourseDirectory.root = str(root)
    return cfg


def grade_class(root: str | os.PathLike = ".", *, assignments: list[str] | None = None, feedback: bool = True,
                export: str | None = "grades.csv", progress: bool = True) -> list[GradeReport]:
    """Autograde every submission of every assignment (or of ``assignments``), then feedback and export.

    Returns one :class:`GradeReport` per submission. The environment's ``bin`` folder is put on
    ``PATH`` because nbgrader creates the gradebook with the ``alembic`` executable.
    """
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from tqdm.auto import tqdm

    root = Path(root).resolve()
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    cfg = load_course_config(root)
    api = NbGraderAPI(coursedir=CourseDirectory(config=cfg), config=cfg)
    source = root / cfg.CourseDirectory.get("source_directory", "source")
    names = assignments or sorted(p.name for p in source.iterdir() if p.is_dir() and not p.name.startswith("."))
    work = [(a, s) for a in names for s in sorted(api.get_submitted_students(a))]
    if not work:
        raise FileNotFoundError(f"No submissions in {root / 'submitted'}/<student>/<assignment>/ for {', '.join(names)}.")
    with Gradebook(api.coursedir.db_url) as gb:
        known = {x.name for x in gb.assignments}
    for a in names:  # the gradebook must know each assignment's cells before grading it
        if a not in known:
            api.generate_assignment(a, force=True, create=True)  # releases are byte-identical
    reports = []
    for a, s in tqdm(work, desc="Autograding", unit=" submission", disable=not progress):
        res = api.autograde(a, s)
        if feedback and res["success"]:
            api.generate_feedback(a, s)
        with Gradebook(api.coursedir.db_url) as gb:
            try:
                sub = gb.find_submission(a, s)
                score, max_score = float(sub.score), float(sub.max_score)
            except MissingEntry:
                score, max_score = 0.0, 0.0
        reports.append(GradeReport(a, s, score, max_score, bool(res["success"]), res.get("error") or ""))
    if export:
        from nbgrader.apps.exportapp import ExportApp

        app = ExportApp(coursedir=api.coursedir, parent=api)
        cwd = os.getcwd()
        try:
            os.chdir(root)
            app.init_plugin()
            app.plugin_inst.to = export
            with Gradebook(api.coursedir.db_url) as gb:
                app.plugin_inst.export(gb)
        finally:
            os.chdir(cwd)
    return reports
