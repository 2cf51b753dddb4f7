"""The instructors' commands of ``python -m helpers``: ``grade``, ``feedback`` and ``bundle``
(:func:`helpers.cli.main` parses the arguments and calls these).
"""
from __future__ import annotations

import signal
import sys
from pathlib import Path

from .bundle import build_bundle
from .canary import GradingStopped
from .course import course_api, keep_private
from .exports import feedback_and_exports, summary
from .run import RunStopped, blocking_failures, grade_class, stop_on_signals

__all__ = ["grade_command", "feedback_command", "bundle_command"]


def grade_command(args) -> int:
    """Run ``python -m helpers grade``: check the grading environment on the worked solutions, grade, export.

    Grades the course in the current folder with :func:`helpers.grading.run.grade_class` (its grading
    state kept private, SIGINT and SIGTERM ending every process of the run), then prints a line per
    submission, the flags, nbgrader's errors, a summary and where the exports went.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments (``assignments``, ``workers``, ``no_sandbox``, ``force``, ``no_feedback``,
        ``export``, ``scheduler``, ``new_students``).

    Returns
    -------
    int
        The exit code: 0 when every submission was graded, 1 when some failed, 2 when grading could not
        start (the message is on stderr), 128 plus the signal's number when stopped by a signal.
    """

    if args.workers is not None and args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    stop_on_signals()
    try:
        reports = grade_class(".", assignments=args.assignments or None, workers=args.workers,
                              sandbox=not args.no_sandbox, force=args.force, feedback=not args.no_feedback,
                              export=args.export, scheduler=args.scheduler,
                              roster=not getattr(args, "new_students", False), private=True, log=print)
    except RunStopped as exc:
        name = signal.Signals(exc.signum).name
        print(f"\nStopped by {name}: every process of this run (workers, kernels, sandboxes) has ended. The "
              f"submissions graded before are kept (gradebook, autograded/, feedback/); those being graded were not "
              f"recorded and are graded on the next run. The exports are those of an earlier run: run `python -m "
              f"helpers grade` again to finish.", file=sys.stderr)
        return 128 + exc.signum
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except GradingStopped as exc:
        print(f"error: grading stopped before any submission was graded.\n{exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # helpers.grading.sandbox.SandboxError says how to install bubblewrap
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{'assignment':<30} {'student':<20} {'score':>11}")
    for r in reports:
        note = "" if r.success else "  (autograde failed: see the errors below)"
        note += "  (late)" if r.seconds_late > 0 else ""
        note += "  (skipped: unchanged since last graded)" if r.skipped else ""
        note += f"  FLAGGED ({len(r.flags)})" if r.flags else ""
        print(f"{r.assignment:<30} {r.student:<20} {r.score:>5.1f}/{r.max_score:<5.1f}{note}")
    flags = [f for r in reports for f in r.flags]
    if flags:
        print("\nFlags for a person (also in flags.csv and the formgrader's manual grading):")
        for f in flags:
            print(f"  {f['assignment']} {f['student']} {f['notebook']} {f['cell'] or '(whole notebook)'}: {f['reason']}")
    errors: dict[str, list[str]] = {}
    for r in reports:
        if not r.success:
            errors.setdefault(r.error.strip() or "nbgrader gave no reason", []).append(f"{r.assignment}/{r.student}")
    if errors:
        print("\nErrors (the submissions nbgrader could not grade):")
        for error, who in errors.items():
            print(f"  {', '.join(who[:5])}{f' and {len(who) - 5} more' if len(who) > 5 else ''}: {error}")
    n = summary(reports)
    print(f"\n{len(reports)} submission(s): {n['graded']} graded, {n['skipped']} skipped (unchanged; --force "
          f"regrades), {n['failed']} failed, {n['flagged']} flagged")
    failed = blocking_failures(reports)
    if args.export and failed:
        stem = Path(args.export)
        print(f"No exports written: none of the {len(failed)} submission(s) could be graded (errors above), which "
              f"points to the grading environment rather than the students. {stem} and the other exports, if any, "
              f"are those of an earlier run. Fix the cause and run again: what was graded is skipped.")
    elif args.export:
        stem = Path(args.export)
        print(f"Grades written to {stem} and {stem.with_name(stem.stem + '_lms.csv')}; per-question statistics "
              f"to {stem.with_name('question_stats.csv')} (plot: .png); open flags to {stem.with_name('flags.csv')}")
        if n["failed"]:
            print(f"{n['failed']} submission(s) could not be graded (errors above): each is flagged, in flags.csv and "
                  f"marked in {stem.with_name(stem.stem + '_lms.csv')}, and is graded again on the next run; the "
                  f"others are exported as usual.")
    if not args.no_feedback and n["graded"]:
        print("Feedback written to feedback/; after grading by hand, run `python -m helpers feedback` to write "
              "it again with your grades.")
    return 0 if all(r.success for r in reports) else 1


def feedback_command(args) -> int:
    """Run ``python -m helpers feedback``: write the feedback again with the gradebook's scores.

    The feedback of every autograded submission (or of the assignments named) and every export are
    written again from the gradebook (:func:`helpers.grading.exports.feedback_and_exports`), with the
    grading state kept private; what was written, what waits for manual grading and the open flags are
    printed.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments (``assignments``, ``lms``).

    Returns
    -------
    int
        The exit code: 0 on success, 1 when feedback failed for an assignment or a submission, 2 when
        there is no course or nothing autograded.
    """

    try:
        _, api = course_api(".", sandbox=False)
        keep_private(".", api.coursedir.db_url)  # feedback/ and the exports it rewrites: for the grading account
        reports, exports = feedback_and_exports(".", args.assignments or None, lms=args.lms)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not reports:
        print("error: no autograded submission in autograded/: grade first (python -m helpers grade)", file=sys.stderr)
        return 2
    status = 0
    for r in reports:
        for s in r.orphans:
            print(f"{r.assignment}: skipped autograded/{s}/{r.assignment}/: the gradebook has no such submission (a "
                  f"student removed?). If {s} left the course, delete autograded/{s}/{r.assignment}/, "
                  f"feedback/{s}/{r.assignment}/ and submitted/{s}/{r.assignment}/ (or `grade` grades it again).")
        if r.error:
            print(f"{r.assignment}: feedback failed: {r.error}", file=sys.stderr)
            status = 1
            continue
        print(f"{r.assignment}: feedback written for {len(r.students)} submission(s) to feedback/<student>/{r.assignment}/")
        if r.waiting:
            print(f"  still waiting for manual grading (their feedback shows those cells ungraded): "
                  f"{', '.join(r.waiting)}")
        if r.lms_files:
            print(f"  for the LMS: {len(r.lms_files)} file(s) in {r.lms_files[0].parent}/ (<student>_<notebook>.html)")
    if exports is None:
        print("No exports written: feedback failed (above).", file=sys.stderr)
        return 1
    print(f"Exports written again from the gradebook: {exports['grades']}, {exports['lms'].name}, "
          f"{exports['question_stats'].name} (.png), {exports['flags'].name}")
    if exports.open_flags:
        print(f"{len(exports.open_flags)} open flag(s) in {exports['flags'].name}: resolve each in the formgrader (set "
              f"the scores you change, then switch the notebook's flag off: its other cells keep their automatic "
              f"scores) and run this again before you release grades.")
    for path in exports.lms_stale:
        print(f"  LMS copy set aside as stale (its submission is no longer graded): {path}")
    for error in exports.errors:
        print(f"  feedback failed: {error}", file=sys.stderr)
        status = 1
    return status


def bundle_command(args) -> int:
    """Run ``python -m helpers bundle OUT``: write the students' distribution.

    :func:`helpers.grading.bundle.build_bundle` writes it from the course in the current folder.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments (``out``, ``force``).

    Returns
    -------
    int
        The exit code: 0 when written, 2 when it could not be (the message is on stderr).
    """

    try:
        out = build_bundle(".", args.out, force=args.force)
    except (FileNotFoundError, FileExistsError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Student bundle written to {out}/ (give students this folder; see docs/STUDENTS.md)")
    return 0
