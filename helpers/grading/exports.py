"""The exports of a grading run: nbgrader's ``grades.csv``; ``grades_lms.csv`` (one row per student; per
assignment a numeric column, the score after any late penalty, and a notes column: late, flagged, waiting
for a person, nothing submitted); ``question_stats.csv`` and ``question_stats.png`` (mean score and share
of full marks per graded cell); ``flags.csv`` (the open flags, for a person).

Every export starts from the gradebook as it is now (:func:`write_exports`): late penalties are computed
on the final score, the cells of resolved flags leave the queue, feedback pages whose grades changed are
written again and the LMS copies of feedback follow them, so that whichever command ran last, the exports,
the feedback and its LMS copies agree with the gradebook.
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

from .course import GradeReport, course_api
from .feedback import FeedbackReport, refresh_feedback, regenerate_feedback, settle_gradebook, sync_lms_copies
from .flags import open_flags
from .grade import score_of
from .state import load_state, save_state

__all__ = ["write_exports", "feedback_and_exports", "given_assignments",
           "export_lms", "export_question_stats", "question_stats_figure", "write_flags", "summary", "FLAG_COLUMNS",
           "ExportReport"]


#: The columns of ``flags.csv`` (:func:`write_flags`), in order.
FLAG_COLUMNS = ["assignment", "student", "notebook", "cell", "reason"]


class ExportReport(dict):
    """What :func:`write_exports` wrote.

    A dict of the paths written, ``{"grades", "lms", "question_stats", "flags"}``, with the rest of
    what happened in attributes, each an empty list until :func:`write_exports` fills it.

    Parameters
    ----------
    *args : tuple
        As for ``dict``.
    **kwargs : dict
        As for ``dict``.

    Attributes
    ----------
    feedback : list
        The feedback pages written again, as ``(assignment, student)``.
    lms_refreshed : list
        The LMS copies refreshed.
    lms_stale : list
        The LMS copies set aside as stale.
    errors : list
        The errors met.
    open_flags : list
        The open flags.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.feedback: list = []
        self.lms_refreshed: list = []
        self.lms_stale: list = []
        self.errors: list = []
        self.open_flags: list = []


def write_exports(root: str | os.PathLike, export: str, reports: list[GradeReport] | None = None, *, api=None,
                  feedback_written=()) -> ExportReport:
    """Write the exports of the gradebook and bring the feedback and its LMS copies up to date.

    The exports are ``export`` (nbgrader's CSV), and next to it ``grades_lms.csv``,
    ``question_stats.csv``/``.png`` and ``flags.csv``. First the gradebook is settled (:func:`settle_gradebook`: late penalties on the final scores, the cells
    of resolved flags out of the queue); then the feedback pages whose grades changed are written again
    (:func:`refresh_feedback`) and the LMS copies follow (:func:`sync_lms_copies`). Only the assignments that
    were given (:func:`given_assignments`: at least one submission in the gradebook) are exported;
    ``flags.csv`` holds the open flags of every assignment (:func:`helpers.grading.flags.open_flags`) and the
    flags of ``reports`` that have no gradebook record (a submission whose grading process died);
    ``grades_lms.csv`` notes flagged work.

    Parameters
    ----------
    root : path
        The course root.
    export : str
        The path of nbgrader's CSV, relative to ``root``.
    reports : list of GradeReport, optional
        The run's reports (their flags).
    api : NbGraderAPI, optional
        The course's API (made from ``root`` otherwise).
    feedback_written : iterable of (assignment, student)
        Submissions whose feedback the caller has just written from the settled gradebook.

    Returns
    -------
    ExportReport
        ``{"grades", "lms", "question_stats", "flags"}``: the paths written; the feedback written again and
        the LMS copies refreshed or set aside, in its attributes.
    """

    root = Path(root).resolve()
    if api is None:
        _, api = course_api(root, sandbox=False)
    db_url = api.coursedir.db_url
    out = root / export
    settle_gradebook(db_url, api.config)
    given = given_assignments(db_url)
    flags = open_flags(db_url)
    keys = {(f["assignment"], f["student"], f["notebook"], f["cell"], f["reason"]) for f in flags}
    for r in reports or []:
        for f in r.flags:
            key = (f["assignment"], f["student"], f["notebook"], f["cell"], f["reason"])
            if (r.died or not r.success) and key not in keys:  # no gradebook record to hold it
                flags.append(f)
                keys.add(key)
    paths = ExportReport({"grades": out, "lms": out.with_name(out.stem + "_lms.csv"),
                          "question_stats": out.with_name("question_stats.csv"), "flags": out.with_name("flags.csv")})
    _export_nbgrader(api, root, out, given)
    export_lms(db_url, paths["lms"], assignments=given, flags=flags)
    export_question_stats(db_url, paths["question_stats"], plot=out.with_name("question_stats.png"), assignments=given)
    write_flags(flags, paths["flags"])
    paths.open_flags = flags
    paths.feedback, paths.errors = refresh_feedback(api, root, exclude=feedback_written)
    feedback_dir = Path(api.coursedir.format_path(api.coursedir.feedback_directory, "x", "x")).parent.parent
    paths.lms_refreshed, paths.lms_stale = sync_lms_copies(root, db_url, feedback_dir)
    state = load_state(root)
    if state.get("_export") != export:  # `python -m helpers feedback` writes the same files again
        state["_export"] = export
        save_state(root, state)
    return paths


def feedback_and_exports(root: str | os.PathLike = ".", assignments: list[str] | None = None, *,
                         lms: str | os.PathLike | None = None,
                         export: str | None = None) -> tuple[list[FeedbackReport], ExportReport | None]:
    """Write the feedback of every autograded submission again, then every export.

    This is ``python -m helpers feedback``: the feedback first
    (:func:`helpers.grading.feedback.regenerate_feedback`), then every export from the same gradebook
    (:func:`write_exports`), so that after it the feedback, its LMS copies and the exports all agree with the
    gradebook.

    Parameters
    ----------
    root : path
        The course root.
    assignments : list of str, optional
        Default: every assignment with an autograded submission.
    lms : path, optional
        A folder for the LMS copies (:func:`helpers.grading.feedback.regenerate_feedback`).
    export : str, optional
        The path of nbgrader's CSV, relative to ``root`` (default: the one the last export wrote, else ``grades.csv``).

    Returns
    -------
    (list of FeedbackReport, ExportReport or None)
        One report per assignment, and what the exports wrote (None when feedback failed for an assignment
        with submissions: then no export is written).
    """
    root = Path(root).resolve()
    _, api = course_api(root, sandbox=False)
    reports = regenerate_feedback(root, assignments, lms=lms, api=api)
    if any(r.error for r in reports if r.students):
        return reports, None
    name = export or load_state(root).get("_export") or "grades.csv"
    written = [(r.assignment, s) for r in reports for s in r.students]
    exports = write_exports(root, name, api=api, feedback_written=written)
    if lms:
        target = Path(lms) if Path(lms).is_absolute() else root / lms
        for r in reports:
            r.lms_files = sorted((target / r.assignment).glob("*.html"))
    return reports, exports


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
    """Count what a grading run did.

    A submission is graded when nbgrader succeeded and it was not skipped, failed when nbgrader did
    not succeed, flagged when it has a flag (it may also be graded or failed).

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
    """Write a CSV for an LMS's grade import: one row per student.

    Per assignment it has a numeric column and a notes column. The columns are ``student_id``, ``last_name``, ``first_name``, ``email``, then for each assignment
    ``<assignment>`` (the score after any late penalty, a plain number such as ``8.0``; empty when the
    gradebook has no score: nothing submitted, or a flagged submission whose grading died) and
    ``<assignment> notes`` (plain words: ``late 30 h: 2.0 off``, ``flagged: resolve in the formgrader``,
    ``waiting for manual grading``, ``nothing submitted``). No other row than the header and one per student
    (the maxima are in nbgrader's ``grades.csv``, ``max_score``). Students come from the gradebook (a roster
    imported with ``nbgrader db student import`` included), sorted by id. docs/INSTRUCTORS.md ("Exports")
    says how Canvas's and Moodle's CSV imports read it.

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
                notes = []
                try:
                    sub = gb.find_submission(a, st.id)
                except MissingEntry:
                    row[a] = ""
                    notes.append("flagged: no score, its grading failed (flags.csv)" if (a, st.id) in flagged
                                 else "nothing submitted")
                else:
                    score, _, late = score_of(gb, a, st.id)
                    row[a] = f"{score:.1f}"
                    if late > 0:
                        notes.append(f"late {late / 3600:.0f} h: {float(sub.late_submission_penalty or 0.0):.1f} off")
                    if (a, st.id) in flagged:
                        notes.append("flagged: resolve in the formgrader")
                    elif any(g.needs_manual_grade for nb in sub.notebooks for g in nb.grades):
                        notes.append("waiting for manual grading")
                row[f"{a} notes"] = "; ".join(notes)
            rows.append(row)
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, ["student_id", "last_name", "first_name", "email", *assignments,
                                *(f"{a} notes" for a in assignments)])
        w.writeheader()
        w.writerows(rows)
    return path


def export_question_stats(db_url: str, path: str | os.PathLike, *, plot: str | os.PathLike | None = None,
                          assignments: list[str] | None = None) -> list[dict]:
    """Per-question statistics: for every graded cell, the mean score and the share of full marks.

    Over the submissions in the gradebook; a cell still waiting for a person (``needs_manual_grade``
    without a score) is left out of its own mean (``n`` says how many scores count, ``waiting`` how many
    wait for a person).
    ``share_full = #{score == max_score} / n``; ``mean_fraction = mean_score / max_score``.

    Parameters
    ----------
    db_url : str
        The gradebook.
    path : path
        The CSV to write (assignment, notebook, cell, cell_type, max_score, n, waiting, mean_score,
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
                    scores, waiting = [], 0
                    for sub in subs:
                        for snb in sub.notebooks:
                            if snb.name != nb.name:
                                continue
                            for g in snb.grades:
                                if g.name != cell.name:
                                    continue
                                if g.needs_manual_grade and g.manual_score is None and g.auto_score is None:
                                    waiting += 1
                                else:
                                    scores.append(float(g.score))
                    s = np.asarray(scores, dtype=np.float64)
                    mx = float(cell.max_score)
                    n = int(s.size)
                    mean = float(s.mean()) if n else float("nan")
                    rows.append({"assignment": a.name, "notebook": nb.name, "cell": cell.name,
                                 "cell_type": cell.cell_type, "max_score": mx, "n": n, "waiting": waiting,
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
    """Draw the bar chart of :func:`export_question_stats`.

    Per graded cell, the mean score over the maximum and the share of the class with full marks; cells
    with no score yet are left out.

    Parameters
    ----------
    rows : list of dict
        The rows :func:`export_question_stats` returns.

    Returns
    -------
    matplotlib.figure.Figure or None
        None when no cell has a score. The legend sits below the axes, under the x label, where it
        covers neither a bar nor the title. A cell some of whose scores still wait for a person is drawn
        hatched and labelled ``(k of n graded)``: its bars are not yet the class's result.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = [r for r in rows if r["n"]]
    if not rows:
        return None
    waiting = [int(r.get("waiting") or 0) for r in rows]
    labels = [f"{r['assignment']} / {r['cell']}" + (f" ({r['n']} of {r['n'] + w} graded)" if w else "")
              for r, w in zip(rows, waiting)]
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 2.0 + 0.3 * len(rows)), layout="constrained")
    mean_bars = ax.barh(y - 0.2, [r["mean_fraction"] for r in rows], height=0.4, label="mean score / max")
    full_bars = ax.barh(y + 0.2, [r["share_full"] for r in rows], height=0.4, label="share with full marks")
    for bars in (mean_bars, full_bars):
        for bar, w in zip(bars, waiting):
            if w:
                bar.set_hatch("//")
                bar.set_alpha(0.45)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of the class" + (" (hatched: some scores still wait for a person)" if any(waiting) else ""))
    ax.set_title("Which exercises does the class fail? (per graded cell)")
    # below the axes and their label: never over a bar or the title, however long the bars are
    fig.legend(handles=[mean_bars, full_bars], loc="outside lower center", ncol=2, fontsize=8, frameon=False)
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

    The rows are sorted by assignment, student, notebook and cell; a flag on no cell has an empty
    ``cell``, and keys other than :data:`FLAG_COLUMNS` are left out.

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
