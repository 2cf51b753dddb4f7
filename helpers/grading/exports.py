"""The exports of a grading run: nbgrader's ``grades.csv``; ``grades_lms.csv`` (one row per student,
one column per assignment, ``missing`` for no submission, ``8.0 (late)`` for a late one);
``question_stats.csv`` and ``question_stats.png`` (mean score and share of full marks per graded
cell); ``flags.csv`` (the open flags, for a person).
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

from .course import GradeReport, course_api
from .flags import open_flags
from .grade import score_of

__all__ = ["write_exports", "given_assignments", "export_lms", "export_question_stats", "question_stats_figure",
           "write_flags", "summary",
           "FLAG_COLUMNS"]


FLAG_COLUMNS = ["assignment", "student", "notebook", "cell", "reason"]


def write_exports(root: str | os.PathLike, export: str, reports: list[GradeReport] | None = None, *, api=None) -> dict:
    """Write the exports of the gradebook: ``export`` (nbgrader's CSV), and next to it ``grades_lms.csv``,
    ``question_stats.csv``/``.png`` and ``flags.csv``.

    Only the assignments that were given (:func:`given_assignments`: at least one submission in the
    gradebook) are exported; ``flags.csv`` holds the open flags of every assignment
    (:func:`helpers.grading.flags.open_flags`) and the flags of ``reports`` that have no gradebook record (a
    submission whose grading process died); ``grades_lms.csv`` marks flagged work.

    Parameters
    ----------
    root : path
        The course root.
    export : str
        nbgrader's CSV, relative to ``root``.
    reports : list of GradeReport, optional
        The run's reports (their flags).
    api : NbGraderAPI, optional
        The course's API (made from ``root`` otherwise).

    Returns
    -------
    dict
        ``{"grades", "lms", "question_stats", "flags"}``: the paths written.
    """

    root = Path(root).resolve()
    if api is None:
        _, api = course_api(root, sandbox=False)
    db_url = api.coursedir.db_url
    out = root / export
    given = given_assignments(db_url)
    flags = open_flags(db_url)
    keys = {(f["assignment"], f["student"], f["notebook"], f["cell"], f["reason"]) for f in flags}
    for r in reports or []:
        for f in r.flags:
            key = (f["assignment"], f["student"], f["notebook"], f["cell"], f["reason"])
            if (r.died or not r.success) and key not in keys:  # no gradebook record to hold it
                flags.append(f)
                keys.add(key)
    paths = {"grades": out, "lms": out.with_name(out.stem + "_lms.csv"),
             "question_stats": out.with_name("question_stats.csv"), "flags": out.with_name("flags.csv")}
    _export_nbgrader(api, root, out, given)
    export_lms(db_url, paths["lms"], assignments=given, flags=flags)
    export_question_stats(db_url, paths["question_stats"], plot=out.with_name("question_stats.png"), assignments=given)
    write_flags(flags, paths["flags"])
    return paths


def given_assignments(db_url: str) -> list[str]:
    """The assignments of the gradebook that were given: at least one submission is recorded.

    An assignment the gradebook knows only from a due date set in advance, or from a release nobody
    has handed in yet, is not exported (a column of ``missing`` would mark the whole class missing).

    Parameters
    ----------
    db_url : str
        The gradebook.

    Returns
    -------
    list of str
        Sorted names.
    """
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        return sorted(a.name for a in gb.assignments if gb.assignment_submissions(a.name))


def summary(reports: list[GradeReport]) -> dict:
    """Counts of a grading run.

    Parameters
    ----------
    reports : list of GradeReport
        What :func:`grade_class` returned.

    Returns
    -------
    dict
        ``{"graded": n, "skipped": n, "failed": n, "flagged": n}`` (flagged: submissions with a flag).
    """
    return {"graded": sum(r.success and not r.skipped for r in reports), "skipped": sum(r.skipped for r in reports),
            "failed": sum(not r.success for r in reports), "flagged": sum(bool(r.flags) for r in reports)}


def _export_nbgrader(api, root: Path, out: Path, assignments: list[str] | None = None) -> None:
    from nbgrader.api import Gradebook
    from nbgrader.apps.exportapp import ExportApp

    app = ExportApp(coursedir=api.coursedir, parent=api)
    cwd = os.getcwd()
    try:
        os.chdir(root)
        app.init_plugin()
        app.plugin_inst.to = str(out)
        if assignments is not None:
            app.plugin_inst.assignment = list(assignments) or ["(none)"]  # an empty list would mean all
        with Gradebook(api.coursedir.db_url) as gb:
            app.plugin_inst.export(gb)
    finally:
        os.chdir(cwd)


def export_lms(db_url: str, path: str | os.PathLike, *, assignments: list[str] | None = None,
               flags: list[dict] | None = None) -> Path:
    """Write an LMS-ready CSV: one row per student, one column per assignment.

    Each cell is the score after any late penalty (``8.0``), ``8.0 (late)`` when the submission
    came after the due date, ``8.0 (flagged)`` (or ``6.4 (late, flagged)``) while a flag on it is
    open, ``flagged`` for flagged work the gradebook has no score for, or ``missing`` when the
    student submitted nothing. Students come from the gradebook (a roster imported with
    ``nbgrader db student import`` included), sorted by id; the first row, ``(max)``, holds each
    assignment's maximum.

    Parameters
    ----------
    db_url : str
        The gradebook (``CourseDirectory.db_url``).
    path : path
        The CSV to write.
    assignments : list of str, optional
        The columns (default: :func:`given_assignments`).
    flags : list of dict, optional
        Open flags (default: :func:`helpers.grading.flags.open_flags` of the gradebook).

    Returns
    -------
    Path
        ``path``.
    """
    from nbgrader.api import Gradebook, MissingEntry


    path = Path(path)
    assignments = given_assignments(db_url) if assignments is None else sorted(assignments)
    flagged = {(f["assignment"], f["student"]) for f in (open_flags(db_url) if flags is None else flags)}
    with Gradebook(db_url) as gb:
        rows = []
        for st in sorted(gb.students, key=lambda x: x.id):
            row = {"student_id": st.id, "last_name": st.last_name or "", "first_name": st.first_name or "",
                   "email": st.email or ""}
            for a in assignments:
                try:
                    score, _, late = score_of(gb, a, st.id)
                except MissingEntry:
                    row[a] = "flagged" if (a, st.id) in flagged else "missing"
                else:
                    notes = (["late"] if late > 0 else []) + (["flagged"] if (a, st.id) in flagged else [])
                    row[a] = f"{score:.1f}" + (f" ({', '.join(notes)})" if notes else "")
            rows.append(row)
        maxima = {a: f"{gb.find_assignment(a).max_score:.1f}" for a in assignments}
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, ["student_id", "last_name", "first_name", "email", *assignments])
        w.writeheader()
        w.writerow({"student_id": "(max)", **maxima})
        w.writerows(rows)
    return path


def export_question_stats(db_url: str, path: str | os.PathLike, *, plot: str | os.PathLike | None = None,
                          assignments: list[str] | None = None) -> list[dict]:
    """Per-question statistics: for every graded cell, the mean score and the share of full marks.

    Over the submissions in the gradebook; a cell still waiting for a person (``needs_manual_grade``
    without a score) is left out of its own mean (``n`` says how many scores count).
    ``share_full = #{score == max_score} / n``; ``mean_fraction = mean_score / max_score``.

    Parameters
    ----------
    db_url : str
        The gradebook.
    path : path
        The CSV to write (assignment, notebook, cell, cell_type, max_score, n, mean_score,
        mean_fraction, share_full).
    plot : path, optional
        A horizontal bar chart (matplotlib) of ``mean_fraction`` and ``share_full`` per cell.
    assignments : list of str, optional
        Only these assignments (default: :func:`given_assignments`).

    Returns
    -------
    list of dict
        The rows of the CSV.
    """
    import numpy as np
    from nbgrader.api import Gradebook

    rows = []
    wanted = set(given_assignments(db_url) if assignments is None else assignments)
    with Gradebook(db_url) as gb:
        for a in sorted((x for x in gb.assignments if x.name in wanted), key=lambda x: x.name):
            subs = list(a.submissions)
            for nb in a.notebooks:
                for cell in nb.grade_cells:
                    scores = []
                    for sub in subs:
                        for snb in sub.notebooks:
                            if snb.name != nb.name:
                                continue
                            for g in snb.grades:
                                if g.name == cell.name and not (g.needs_manual_grade and g.manual_score is None
                                                                and g.auto_score is None):
                                    scores.append(float(g.score))
                    s = np.asarray(scores, dtype=np.float64)
                    mx = float(cell.max_score)
                    n = int(s.size)
                    mean = float(s.mean()) if n else float("nan")
                    rows.append({"assignment": a.name, "notebook": nb.name, "cell": cell.name,
                                 "cell_type": cell.cell_type, "max_score": mx, "n": n,
                                 "mean_score": round(mean, 4) if n else "",
                                 "mean_fraction": round(mean / mx, 4) if n and mx else "",
                                 "share_full": round(float(np.mean(s >= mx)), 4) if n else ""})
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]) if rows else ["assignment", "notebook", "cell"])
        w.writeheader()
        w.writerows(rows)
    if plot and rows:
        _plot_question_stats(rows, plot)
    return rows


def question_stats_figure(rows: list[dict]):
    """The bar chart of :func:`export_question_stats`: per graded cell, the mean score over the maximum and
    the share of the class with full marks; cells with no score yet are left out.

    Parameters
    ----------
    rows : list of dict
        The rows :func:`export_question_stats` returns.

    Returns
    -------
    matplotlib.figure.Figure or None
        None when no cell has a score. The legend sits above the axes, where it covers no bar.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = [r for r in rows if r["n"]]
    if not rows:
        return None
    labels = [f"{r['assignment']} / {r['cell']}" for r in rows]
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.3 * len(rows)), layout="constrained")
    ax.barh(y - 0.2, [r["mean_fraction"] for r in rows], height=0.4, label="mean score / max")
    ax.barh(y + 0.2, [r["share_full"] for r in rows], height=0.4, label="share with full marks")
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of the class")
    ax.set_title("Which exercises does the class fail? (per graded cell)")
    # above the axes, between them and the title: never over a bar, however long the bars are
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, fontsize=8, frameon=False)
    return fig


def _plot_question_stats(rows: list[dict], path) -> None:
    import matplotlib.pyplot as plt

    fig = question_stats_figure(rows)
    if fig is None:
        return
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_flags(flags: list[dict], path: str | os.PathLike) -> Path:
    """Write ``flags.csv`` (assignment, student, notebook, cell, reason), one row per flag.

    Parameters
    ----------
    flags : list of dict
        Flags as :func:`helpers.grading.flags.read_flags` returns them.
    path : path
        The CSV file to write (a header row even when there is no flag).

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    path = Path(path)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, FLAG_COLUMNS, extrasaction="ignore")
        w.writeheader()
        for f in sorted(flags, key=lambda f: (f["assignment"], f["student"], f["notebook"], str(f["cell"]))):
            w.writerow({**f, "cell": f["cell"] or ""})
    return path
