"""Autograding timings: one student's full set (every assignment's release with the worked
solutions filled in) generated, submitted and autograded with nbgrader in a temporary course, with
the test suite's machinery (``tests/nbgrader_tools.py``).

This is the place for timings of ``helpers.grading`` (``grade_submission``, ``grade_class``) too:
add rows here.
"""
from __future__ import annotations

import warnings

from tests import nbgrader_tools as nbt

from .common import Context, Row, fmt_value

SECTION = "Grading"
BUDGET = 180.0  # seconds for one student's full set


def run(ctx: Context) -> None:
    """Append one row per assignment and the total for one student."""
    student = "bench-student"
    names = nbt.discover_assignments()
    course = nbt.make_course(ctx.tmp / "course-grade", names)
    per = []
    with nbt.offline_env(ctx.tmp / "grade-env"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLAlchemy's SAWarnings from nbgrader's gradebook
        api = nbt.make_api(course)
        for a in names:
            t_gen = nbt.generate_release(api, a)
            release = course / "notebooks" / a
            nbs = {nb: nbt.fill_solutions(nbt.read_nb(release / f"{nb}.ipynb"),
                                          nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{nb}.ipynb"))
                   for nb in nbt.notebook_names(a)}
            nbt.submit(course, a, student, nbs)
            scores, t_grade = nbt.autograde(course, a, [student], workers=1)
            auto = [g for g in scores[student].values() if not g["needs_manual_grade"]]  # not the written answers
            got, total = sum(g["score"] for g in auto), sum(g["max_score"] for g in auto)
            per.append({"assignment": a, "generate_s": t_gen, "autograde_s": t_grade, "score": got, "max_score": total})
            ctx.rows.append(Row(SECTION, f"autograde {a}", t_grade, target="full marks", met=got == total,
                                note=f"{got:g} / {total:g} autograded points"))
    t_all = sum(p["autograde_s"] for p in per)
    ok = all(p["score"] == p["max_score"] for p in per)
    ctx.rows.append(Row(SECTION, f"autograde one student's full set ({len(per)} assignments)", t_all, "budget", BUDGET,
                        f"< {BUDGET / 60:.0f} min", t_all < BUDGET and ok,
                        note=(f"tests/nbgrader_tools.py, one worker; generating the releases took "
                              f"{fmt_value(sum(p['generate_s'] for p in per))} more")))
    ctx.extra["autograde"] = per
