"""Before any student: what grading needs, and the worked solution graded as a canary.

:func:`check_worked_solution` grades each assignment's worked solution exactly as a submission is
graded (same sandbox, kernel, judge and hidden tests) in a scratch gradebook; :func:`prepare_gradebook`
makes the course's gradebook ready (the assignment generated, its graded cells those of the source).
Either stops grading with :class:`GradingStopped` and the reason, before any student is touched.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from .course import bin_on_path, course_api, create_gradebook, nbgrader_error
from .flags import read_flags

__all__ = ["GradingStopped", "CanaryReport", "check_worked_solution", "fill_worked_solution", "prepare_gradebook",
           "course_package_mismatch", "one_line"]


class GradingStopped(RuntimeError):
    """Grading stopped before any submission was graded; the message says why and what to do.

    Raised by the checks that run first (the worked solutions, the gradebook, the roster): the
    gradebook and the exports are as they were.
    """


CANARY = "worked-solution"   # the canary's student id, in its own scratch gradebook only


# written in two parts so that this file, if it ever ships to students, holds no marker line
SOLUTION_MARKERS = ("### BEGIN " + "SOLUTION", "### END " + "SOLUTION")


@dataclass
class CanaryReport:  # numpydoc ignore=PR01
    """The worked solution of one assignment graded like a submission (:func:`check_worked_solution`).

    A grading run grades no submission of an assignment whose report is not ``ok``.

    Attributes
    ----------
    assignment : str
        The assignment's name.
    ok : bool
        Whether the worked solution got every automatic point.
    reason : str
        Why not, for a person; ``""`` when ``ok``.
    cells : dict
        The graded cells of a fresh ``generate_assignment``, ``{(notebook, grade_id): (max_score, cell_type)}``.
    seconds : float
        The seconds the check took.
    """

    assignment: str
    ok: bool
    reason: str = ""
    cells: dict = field(default_factory=dict)
    seconds: float = 0.0


def fill_worked_solution(release_nb, source_nb):
    """The released notebook with every answer cell's content taken from the worked solution.

    Cells are matched by ``grade_id``; the ``### BEGIN/END SOLUTION`` lines are dropped. This is
    what a student who solved everything hands in: the release (its checksums and locked cells
    unchanged) with the answers typed in.

    Parameters
    ----------
    release_nb, source_nb : nbformat.NotebookNode
        The released notebook and its source (``solutions/<a>/<nb>.ipynb``).

    Returns
    -------
    nbformat.NotebookNode
        A new notebook; ``release_nb`` is not changed.

    Raises
    ------
    ValueError
        An answer cell of the source is not in the release (the release is out of date).
    """
    import copy

    from nbgrader.utils import is_solution

    from .flags import grade_id

    def answer(cell) -> bool:
        return bool(is_solution(cell)) and bool(grade_id(cell))

    answers = {grade_id(c): "\n".join(x for x in "".join(c.source).split("\n") if x.strip() not in SOLUTION_MARKERS)
               for c in source_nb.cells if answer(c)}
    nb = copy.deepcopy(release_nb)
    filled = set()
    for cell in nb.cells:
        if answer(cell) and grade_id(cell) in answers:
            cell.source = answers[grade_id(cell)]
            filled.add(grade_id(cell))
    if set(answers) - filled:
        raise ValueError(f"answer cells {sorted(set(answers) - filled)} of the worked solution are not in the release")
    return nb


def _first_error(nb) -> tuple[int, str] | None:
    """``(cell number from 1, "Name: message")`` of the first error output in a graded notebook."""
    for k, cell in enumerate(nb.cells, 1):
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if out.get("output_type") == "error":
                return k, one_line(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}")
    return None


def one_line(text: str, limit: int = 300) -> str:
    """Put a message on one line, at most ``limit`` characters long.

    Runs of white space, newlines included, become one space; a longer text is cut and ends in ``...``.

    Parameters
    ----------
    text : str
        The message (anything ``str`` accepts).
    limit : int
        The most characters kept.

    Returns
    -------
    str
        The message on one line.
    """
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


#: Run by the grading kernel's Python (outside any course folder): where it imports the course package from, and a
#: digest of its science library (the top-level modules the notebooks import), without importing it.
_PACKAGE_PROBE = """
import hashlib, importlib.util, json, os
spec = importlib.util.find_spec("helpers")
folder = os.path.dirname(spec.origin) if spec and spec.origin else None
print(json.dumps({"folder": folder, "files": {n: hashlib.sha256(open(os.path.join(folder, n), "rb").read()).hexdigest()
                 for n in sorted(os.listdir(folder)) if n.endswith(".py")} if folder else {}}))
"""


def _library_files(folder: Path) -> dict[str, str]:
    import hashlib

    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.py"))}


def _kernel_command(cfg) -> tuple[list[str], dict] | None:
    """The grading kernel's Python and the environment its spec adds (None: no such kernel spec)."""
    import sys

    name = cfg.get("ExecutePreprocessor", {}).get("kernel_name") or "python3"
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        spec = KernelSpecManager().get_kernel_spec(name)
    except Exception:  # noqa: BLE001 - the canary reports a missing kernel
        return None
    python = spec.argv[0] if spec.argv else "python"
    # jupyter_client starts a spec whose first word is python (or python3, python3.11) with the Python running it
    if python in {"python", f"python{sys.version_info[0]}", "python%i.%i" % sys.version_info[:2]}:
        python = sys.executable
    return [python], dict(spec.env or {})


def course_package_mismatch(root: str | os.PathLike, cfg) -> str:
    """Why the grading kernels would not run the course package the grader runs, or ``""``.

    The grader imports the course package ``helpers`` of the course folder (``python -m helpers grade`` from
    it) or of its environment; the kernels import whatever their kernel spec's Python finds, outside the
    course folder. When the two differ, the submissions are graded against other code than the grader's and
    the worked solution's: an editable install (``pip install -e``) of another checkout, or a course
    environment not reinstalled after ``git pull`` on a hub. This compares the two packages' science library
    (the top-level modules, by content) without starting a kernel: the kernel spec's Python, with the
    environment its spec sets, finds the package without importing it (measured on the 2-core machine under
    load: 0.03 CPU-s in that process, 0.01-0.05 in the grader's, 0.3-0.6 s of wall time). It holds with and
    without the sandbox.

    Parameters
    ----------
    root : path
        The course root.
    cfg : traitlets.config.Config
        The course configuration (its ``ExecutePreprocessor.kernel_name``).

    Returns
    -------
    str
        The message for the person, naming both folders and what to reinstall; ``""`` when they match
        or the kernel spec cannot be found (the canary then says so).
    """
    import json
    import subprocess
    import tempfile

    import helpers

    mine = Path(helpers.__file__).resolve().parent
    kernel = _kernel_command(cfg)
    if kernel is None:
        return ""
    argv, extra = kernel
    env = {**os.environ, **extra, "PYTHONSAFEPATH": "1"}
    with tempfile.TemporaryDirectory(prefix="weat-probe-") as where:
        try:
            res = subprocess.run([*argv, "-c", _PACKAGE_PROBE], cwd=where, env=env, capture_output=True, text=True,
                                 timeout=120)
            found = json.loads(res.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            return ""  # the canary starts the real kernel and reports what fails
    python = argv[0]
    if not found.get("folder"):
        return (f"The grading kernel's Python ({python}) cannot import the course package, which the grader imports "
                f"from {mine}. Install the course into the environment of that Python (from the course folder: "
                f"{python} -m pip install -e . on an instructor's machine; on a hub, SYSADMIN.md 'Updating the "
                f"course'), or point the kernel spec at the course environment's Python "
                f"(`{python} -m ipykernel install --sys-prefix --name python3` from that environment). Nothing was "
                f"graded.")
    theirs = Path(found["folder"]).resolve()
    changed = sorted(n for n in set(found["files"]) | set(_library_files(mine))
                     if found["files"].get(n) != _library_files(mine).get(n))
    if not changed:
        return ""
    root = Path(root).resolve()
    elsewhere = "" if theirs.is_relative_to(root) else " (an editable install of another folder, or an older install)"
    return (f"The grader and the grading kernels would run different copies of the course package: the grader "
            f"imports it from {mine}, the kernels ({python}) from {theirs}{elsewhere}, and their science library "
            f"differs ({', '.join(changed[:6])}{' and more' if len(changed) > 6 else ''}). Every submission would be "
            f"graded against other code than the grader's. Install the course package of this course folder into "
            f"that environment: `{python} -m pip install -e {root}` (an instructor's machine), or after a git pull on "
            f"a hub `{python} -m pip install --no-deps --force-reinstall {root}` (SYSADMIN.md, 'Updating the "
            f"course'). The kernel spec is not the cause: do not re-register it. Nothing was graded.")


def _kernel_hint(cfg) -> str:
    """Where the grading kernel's Python is, for a kernel that cannot import the course package."""
    name = cfg.get("ExecutePreprocessor", {}).get("kernel_name") or "python3"
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        spec = KernelSpecManager().get_kernel_spec(name)
        where = f"kernel spec {name!r} ({spec.resource_dir}) runs {spec.argv[0]}"
    except Exception as exc:  # noqa: BLE001 - a hint only
        where = f"kernel spec {name!r} cannot be found ({type(exc).__name__}: {exc})"
    return (f" The grading kernel cannot import the course package: the {where}. It must be the course "
            f"environment's Python, in which `python -c 'import helpers'` works (`jupyter kernelspec list`; "
            f"`python -m ipykernel install --sys-prefix --name {name}` from the activated course environment "
            f"registers it there; not --user, which SYSADMIN.md explains), and the sandbox must be able to read "
            f"that package: an editable install of a folder the sandbox does not show fails here "
            f"(docs/INSTRUCTORS.md, 'Sandboxed grading').")


def check_worked_solution(root: str | os.PathLike, assignment: str, *, sandbox: bool = True,
                          feedback: bool = True) -> CanaryReport:
    """Grade the worked solution of ``assignment`` exactly as a submission is graded, in a scratch folder.

    The canary: ``solutions/<assignment>`` is generated into a scratch gradebook and release, the
    worked solution is filled into that release (:func:`fill_worked_solution`) and autograded by the
    course's configuration (the same sandbox, kernel, judge, hidden tests and grader's secret as the
    students), and its feedback is generated. It must get every automatic point with no flag. Nothing
    of the course's gradebook or folders is written; the scratch folder is removed.

    Parameters
    ----------
    root : path
        The course root.
    assignment : str
        A folder of the source directory.
    sandbox, feedback : bool
        As in :func:`grade_submission`.

    Returns
    -------
    CanaryReport
        ``ok`` False with ``reason`` (which cells, what error, what to do) when anything fell short.
    """
    import shutil
    import tempfile

    import nbformat
    from nbgrader.api import Gradebook


    t0 = time.perf_counter()
    root = Path(root).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="weat-canary-"))
    what = (f"{assignment}: the worked solution (solutions/{assignment} filled into its release), graded like a "
            "submission before any student,")

    def stop(reason: str, cells=None) -> CanaryReport:
        return CanaryReport(assignment, False, what + reason, cells or {}, time.perf_counter() - t0)

    try:
        cfg, api = course_api(root, sandbox, scratch=scratch)
        source = root / cfg.CourseDirectory.get("source_directory", "source") / assignment
        if not sorted(source.glob("*.ipynb")):
            return stop(f" cannot be graded: {source} holds no notebook.")
        create_gradebook(f"sqlite:///{scratch / 'gradebook.db'}")
        with bin_on_path():
            res = api.generate_assignment(assignment, force=True, create=True)
        if not res.get("success"):
            return stop(f" could not be generated (nbgrader generate_assignment): {nbgrader_error(res)}")
        release = scratch / "release" / assignment
        out = scratch / "submitted" / CANARY / assignment
        out.mkdir(parents=True)
        for path in sorted(release.glob("*.ipynb")):
            filled = fill_worked_solution(nbformat.read(path, as_version=4),
                                          nbformat.read(source / path.name, as_version=4))
            nbformat.write(filled, out / path.name)
        res = api.autograde(assignment, CANARY, force=True, create=True)
        if not res.get("success"):
            return stop(f" could not be autograded: {nbgrader_error(res)}")
        db_url = api.coursedir.db_url
        cells, short = {}, []
        with Gradebook(db_url) as gb:
            for snb in gb.find_submission(assignment, CANARY).notebooks:
                for g in snb.grades:
                    cells[(snb.name, g.name)] = (float(g.max_score), g.cell_type)
                    if g.auto_score is not None and float(g.auto_score) < float(g.max_score):
                        short.append((snb.name, g.name, float(g.auto_score), float(g.max_score)))
        flags = read_flags(db_url)
        if short or flags:
            parts = []
            if short:
                parts.append("cells short of full marks: " + ", ".join(
                    f"{n}.ipynb {c} {a:g}/{m:g}" for n, c, a, m in sorted(short)))
            for f in flags:
                parts.append(f"flagged: {f['notebook']}.ipynb {f['cell'] or '(whole notebook)'}: {one_line(f['reason'])}")
            first = []
            for n in sorted({x[0] for x in short} | {f["notebook"] for f in flags}):
                graded = scratch / "autograded" / CANARY / assignment / f"{n}.ipynb"
                try:
                    err = _first_error(nbformat.read(graded, as_version=4))
                except (OSError, ValueError):
                    err = None
                if err:
                    first.append(f"the first error in {n}.ipynb, cell {err[0]}: {err[1]}")
            if any("helpers" in x and ("ModuleNotFoundError" in x or "ImportError" in x) for x in first):
                todo = _kernel_hint(cfg).strip()
            else:
                todo = ("Grading would have been wrong for every student: fix the cause (the grading environment, "
                        "the hidden tests or the worked solution), then grade again.")
            reason = " did not get full marks:\n" + "".join(f"  - {x}\n" for x in parts + first) + "  " + todo
            return stop(reason, cells)
        if feedback:
            res = api.generate_feedback(assignment, CANARY, force=True)
            if not res.get("success"):
                return stop(f" got full marks but its feedback could not be generated: {nbgrader_error(res)}", cells)
        return CanaryReport(assignment, True, "", cells, time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - whatever it is, it stops grading with its message
        return stop(f" could not be graded: {type(exc).__name__}: {one_line(exc)}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def prepare_gradebook(api, db_url: str, names: list[str], canaries: dict) -> list[str]:
    """Make the gradebook ready to grade the assignments ``names``.

    The gradebook is created if it does not exist (:func:`helpers.grading.course.create_gradebook`).
    An assignment it does not know, or knows without notebooks (a due date set before
    ``generate_assignment``), is generated now (empty submission records an earlier failed run left
    are removed first: they hold no grade). The graded cells it holds must be those of the source
    (``canaries``' fresh generation).

    Parameters
    ----------
    api : nbgrader.apps.NbGraderAPI
        The course's API.
    db_url : str
        The gradebook's database URL.
    names : list of str
        The assignments to grade.
    canaries : dict
        ``{assignment: CanaryReport}`` of the worked solutions' checks; an assignment without one (or
        without cells) is not compared.

    Returns
    -------
    list of str
        Notes for the person: what was generated or removed.

    Raises
    ------
    GradingStopped
        The gradebook could not be made, generate_assignment failed, or the gradebook's cells differ from the
        source's.
    """
    from nbgrader.api import Gradebook, MissingEntry

    notes = []
    try:
        create_gradebook(db_url)
    except Exception as exc:  # noqa: BLE001 - said in one line, and nothing is graded
        raise GradingStopped(f"the gradebook {db_url} does not exist and could not be made, so no submission was "
                             f"graded: {type(exc).__name__}: {one_line(str(exc))}. Check that the course folder "
                             f"can be written to.") from None
    with bin_on_path():
        for a in names:
            with Gradebook(db_url) as gb:
                try:
                    known = gb.find_assignment(a)
                except MissingEntry:
                    known = None
                generate = known is None or not known.notebooks
                if known is not None and generate:
                    empty = [s.student.id for s in gb.assignment_submissions(a) if not s.notebooks]
                    for student in empty:
                        gb.remove_submission(a, student)
                    if empty:
                        notes.append(f"{a}: removed {len(empty)} empty submission record(s) an earlier failed run left")
            if generate:
                res = api.generate_assignment(a, force=True, create=True)
                if not res.get("success"):
                    raise GradingStopped(f"{a}: nbgrader generate_assignment failed, so no submission was graded: "
                                         f"{nbgrader_error(res)}")
                notes.append(f"{a}: generated into the gradebook (it had {'no notebooks' if known else 'no record'})")
            report = canaries.get(a)
            if report is None or not report.cells:
                continue
            with Gradebook(db_url) as gb:
                have = {(nb.name, c.name): (float(c.max_score), c.cell_type)
                        for nb in gb.find_assignment(a).notebooks for c in nb.grade_cells}
            if have != report.cells:
                diff = sorted(set(have.items()) ^ set(report.cells.items()))
                names_ = ", ".join(sorted({f"{n}.ipynb {c}" for (n, c), _ in diff}))
                raise GradingStopped(
                    f"{a}: the gradebook's graded cells differ from solutions/{a} ({names_}): the assignment changed "
                    f"after it was generated, so no submission was graded. Run `nbgrader generate_assignment {a} "
                    f"--force` (and hand out the new release if the students' notebooks changed), then grade again "
                    f"with --force.")
    return notes
