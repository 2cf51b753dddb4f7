"""pytest set-up shared by the course's tests.

* Assignments are discovered from ``solutions/*/``; every test that takes an ``assignment``
  argument runs once per assignment (``--assignment 01_cosine`` restricts the run, and may be
  repeated), and a test that also takes ``mutant`` runs once per mutant of
  ``tests/mutants/<assignment>.py``.
* Session fixtures build one temporary nbgrader course (one gradebook for all assignments),
  generate each release once and autograde each assignment's synthetic students once, so the
  expensive steps are shared by all the tests of an assignment.
* At the end, a summary lists the measured time of every step and of all tests per assignment.
* Tests run in parallel (pytest-xdist, ``-n`` in pyproject.toml) in groups that each go to one worker:
  all the tests of an assignment (they share its release, round trip and mutant harness), and every
  other test file whole (they share module fixtures). The longest go first (see LONG_GROUPS). Workers
  send their timings and mutant counts with their reports, so the summary is the same with ``-n0``.
"""
from __future__ import annotations

import functools
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_tools as nbt  # noqa: E402

_TIMES: dict = defaultdict(dict)          # assignment -> {step: (wall, cpu)} (this process's steps)
# what the summary prints, gathered from every test report (from this process or an xdist worker)
_SEEN_TIMES: dict = defaultdict(dict)      # assignment -> {step: (wall, cpu)}
_SEEN_TEST_TIME: dict = defaultdict(float) # assignment -> seconds spent in its tests
_SEEN_MUTANTS: dict = {}                   # assignment -> (mutants shown to lose exactly their cells, of how many)

# The order in which groups are sent to the xdist workers: the longest first (worker-seconds in CI run 11 on the
# 2-core machine, fixtures included: test_grading 432, assignment 11 318, test_grading_damage 247), so
# that no long group starts last and runs alone at the end; the others follow in collection order. A scheduling
# hint: a wrong order costs time, never a test (no group depends on another, and the assignments' fixtures
# change the environment only while they run, Course.offline). Measured: CI run 18 took 1004 s of tests in this
# order; run 19 took 1080 s with the groups ordered by run 18's worker-seconds (test_site and test_sandbox
# earlier, assignment 11 fourth). One run each, so the difference may be the machine's, but it is no gain.
# After those, the other groups of more than 30 worker-seconds, longest first (CI run 22), so that the groups
# sent last are the short ones. In run 22 they went in collection order, test_warm.py (52 s) among the last, and one
# core was idle for the last 50 s.
LONG_GROUPS = ["assignment-11_enumerating_biases", "tests/test_grading.py", "tests/test_grading_damage.py",
               "tests/test_hub.py", "tests/test_site.py", "tests/test_portability.py", "tests/test_grading_behaviour.py",
               "tests/test_adversarial.py", "tests/test_cluster.py", "assignment-05_permutation_tests",
               "tests/test_sandbox.py", "tests/test_term_run.py", "tests/test_term.py", "tests/test_wire.py", "tests/test_sandbox_edges.py", "tests/test_instructor_commands.py", "assignment-04_effect_size", "assignment-12_bias_from_corpora",
               "assignment-08_debiasing", "assignment-07_wefat", "tests/test_student_lab.py",
               "assignment-09_generalised_weat", "tests/test_cli.py", "assignment-03_differential_association",
               "assignment-06_table1", "assignment-02_association", "assignment-10_lexicon_weat",
               "assignment-01_cosine", "tests/test_warm.py", "tests/test_bundle.py", "tests/test_browser.py",
               "tests/test_feedback_page.py"]


def pytest_addoption(parser):
    parser.addoption("--assignment", action="append", default=[],
                     help="only test this assignment (e.g. 01_cosine); may be given more than once")


def selected_assignments(config) -> list[str]:
    found = nbt.discover_assignments()
    wanted = config.getoption("--assignment")
    unknown = set(wanted) - set(found)
    if unknown:
        raise pytest.UsageError(f"--assignment: no solutions/<name>/ notebook for {sorted(unknown)}; found {found}")
    return [a for a in found if not wanted or a in wanted]


def pytest_configure(config):
    config.addinivalue_line("markers", "assignments(*names): run the test for these of the selected assignments only")


def pytest_generate_tests(metafunc):
    if "assignment" not in metafunc.fixturenames:
        return
    assignments = selected_assignments(metafunc.config)
    only = metafunc.definition.get_closest_marker("assignments")
    if only:
        assignments = [a for a in assignments if a in only.args]
    if "mutant" in metafunc.fixturenames:
        pairs, ids = [], []
        for a in assignments:
            try:
                names = [m["name"] for m in nbt.load_mutants(a)]
            except Exception as exc:  # reported by test_mutants_are_declared; keep the other assignments
                names = [f"<{nbt.mutants_file(a).name} does not load: {type(exc).__name__}>"]
            for name in names:
                pairs.append((a, name))
                ids.append(f"{a}-{name}")
        metafunc.parametrize(("assignment", "mutant"), pairs, ids=ids, scope="session")
    else:
        metafunc.parametrize("assignment", assignments, scope="session")


def record_time(assignment: str, step: str, watch: "nbt.Stopwatch") -> None:
    """Note the wall and CPU time of one step (printed in the summary at the end of the run)."""
    _TIMES[assignment][step] = (watch.wall, watch.cpu)
    print(f"[{assignment}] {step}: {watch.wall:.1f} s wall, {watch.cpu:.1f} s CPU")


@functools.cache
def _assignments() -> tuple[str, ...]:
    """The course's assignments, read once (:func:`group_of` runs for every test, more than once)."""
    return tuple(nbt.discover_assignments())


def group_of(nodeid: str) -> str:
    """The xdist group of a test: ``assignment-NN_topic`` for a test of one assignment, else its file."""
    file, _, rest = nodeid.partition("::")
    if rest.endswith("]") and "[" in rest:
        param = rest[rest.index("[") + 1:-1]
        for a in _assignments():
            if param == a or param.startswith(a + "-"):
                return f"assignment-{a}"
    return file


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than this process may use cores (``--maxprocesses`` caps it).

    A worker sometimes waits instead of computing (a cell's timeout, a hub, a browser or a Dask cluster
    starting); the extra worker computes meanwhile. With three workers the 2-core CI machine was idle 4-8 %
    of a run (``vmstat``, BENCHMARKS.md): CI is CPU-bound, and more workers would not shorten it."""
    import os

    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's scope scheduler with the groups of :func:`group_of` as scopes (sent in collection order)."""
    from xdist.scheduler import LoadScopeScheduling

    class CourseGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return CourseGroups(config, log)


def pytest_collection_modifyitems(config, items):
    """The tests of each group together, the long groups first (xdist sends groups in this order)."""
    assignments = nbt.discover_assignments()
    unknown = [g for g in LONG_GROUPS if not (Path(__file__).parent.parent / g).is_file()
               and g.removeprefix("assignment-") not in assignments]
    if unknown:
        raise pytest.UsageError(f"tests/conftest.py: LONG_GROUPS names no test file or assignment: {unknown}")
    groups: dict = {}
    for item in items:
        groups.setdefault(group_of(item.nodeid), []).append(item)
    rank = {g: k for k, g in enumerate(LONG_GROUPS)}
    order = sorted(groups, key=lambda g: rank.get(g, len(rank)))  # stable: the rest keep collection order
    items[:] = [item for g in order for item in groups[g]]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    params = getattr(getattr(item, "callspec", None), "params", {})
    a = params.get("assignment")
    if isinstance(a, str):  # plain data, so that an xdist worker's report carries it to the summary (a test
        # limited by @pytest.mark.assignments to assignments not selected has none: pytest's NOTSET)
        report.user_properties.append(("course_assignment", {
            "assignment": a, "times": {k: list(v) for k, v in _TIMES.get(a, {}).items()},
            "mutants": list(_MUTANTS_JUDGED[a]) if a in _MUTANTS_JUDGED else None}))


def pytest_runtest_logreport(report):
    for key, value in getattr(report, "user_properties", []):
        if key != "course_assignment":
            continue
        a = value["assignment"]
        _SEEN_TEST_TIME[a] += report.duration
        _SEEN_TIMES[a].update({k: tuple(v) for k, v in value["times"].items()})
        if value["mutants"] is not None:  # an assignment's tests run on one worker: the latest count is its count
            _SEEN_MUTANTS[a] = tuple(value["mutants"])


def pytest_terminal_summary(terminalreporter):
    tr = terminalreporter
    if _SEEN_MUTANTS:
        shown = sum(k for k, _ in _SEEN_MUTANTS.values())
        total = sum(n for _, n in _SEEN_MUTANTS.values())
        tr.section("mutants")
        tr.write_line(f"{shown} of {total} mutants shown to lose exactly their cells "
                      f"({len(_SEEN_MUTANTS)} assignments)")
    if not _SEEN_TIMES and not _SEEN_TEST_TIME:
        return
    tr.section("notebook test timings (wall clock; CPU seconds of the step and its kernels in brackets)")
    for a in sorted(set(_SEEN_TIMES) | set(_SEEN_TEST_TIME)):
        steps = ", ".join(f"{k} {w:.1f} s ({c:.1f} s CPU)" for k, (w, c) in _SEEN_TIMES[a].items())
        tr.write_line(f"{a}: all its tests {_SEEN_TEST_TIME[a]:.1f} s (fixtures included)"
                      f"{'; ' + steps if steps else ''}")


@pytest.fixture(autouse=True, scope="module")
def _warm_templates_refused_per_module():
    """A warm template refused in one test module is tried again in the next.

    Every course of a test process has the same sandbox command (:func:`nbgrader_tools.offline_site`), so the
    grader's template for it serves later modules too. Modules that kill or taint it on purpose
    (``test_adversarial.py``, ``test_warm.py``) make the process refuse that configuration for good, as a
    grader would for the rest of its run; without this, every later module of the process would grade
    in plain kernels, which cost about 3 CPU-s more each, instead of starting a new template."""
    yield
    from helpers.grading import warm
    warm._REFUSED.clear()


# ---------------------------------------------------------------------------------------------
# Session fixtures: one temporary course, one release and one autograding run per assignment
# ---------------------------------------------------------------------------------------------

@dataclass
class Course:
    root: Path
    api: object
    config: object
    network_log: Path
    work: Path

    def offline(self):
        """The course's :func:`nbgrader_tools.offline_env` for one step (its network log kept across steps).

        Only while a step runs: the environment of the worker's other tests (a JupyterLab server, pip in
        a fresh environment) is left as it was."""
        return nbt.offline_env(self.work, fresh_log=False)


@pytest.fixture(scope="session")
def course(tmp_path_factory, request):
    """A temporary nbgrader course holding ``solutions/`` of every selected assignment.

    Kernels and nbgrader run in :func:`nbgrader_tools.offline_env` (the venv's ``bin`` on ``PATH`` for
    ``alembic``; connections to non-local addresses refused and logged in one log for the session), entered
    by each step (:meth:`Course.offline`). The gradebook is ``<root>/gradebook.db``.
    """
    work = tmp_path_factory.mktemp("nbgrader")
    assignments = selected_assignments(request.config)
    with nbt.offline_env(work) as log:
        root = nbt.make_course(work / "course", assignments)
        config = nbt.course_config(root)
        api = nbt.make_api(root)
    return Course(root, api, config, log, work)


@pytest.fixture(scope="session")
def release(course, assignment):
    """Generate ``notebooks/<assignment>/`` in the temporary course (once); returns its folder."""
    with course.offline(), nbt.Stopwatch() as t:
        nbt.generate_release(course.api, assignment)
    record_time(assignment, "generate_assignment", t)
    return course.root / "notebooks" / assignment


SAMPLE = "round-trip sample"   # the label of the round trip's one submission of mutants
SAMPLE_STUDENT = "mutant-sample"  # its student id: its hidden tests' seed in both engines


def round_trip_sample(mutants: list, graded=()) -> list:
    """The mutants that also go through a full nbgrader round trip, all in one submission (every mutant is
    judged alone by :mod:`mutant_harness`): the first that calls the course's reference implementation (the
    sandbox binds the copy without it over the package; the harness puts it first on the path), whatever it
    loses; then, those that lose fewest cells first and otherwise in the order listed (the first of them
    whatever it loses when no mutant calls the reference), each mutant that changes a solution cell none picked
    so far changes and loses only test cells none of them loses, as long as one test cell of ``graded`` (the
    autograded test cells' ids) is left that none of them loses alone. Together they lose at
    least every cell of their ``fails``, and more where one's function calls another's (01: a ``cosine_matrix``
    that loops over ``cosine`` loses its cells too when ``cosine`` calls the reference the sandbox hides)."""
    picked, cells, lost = [], set(), set()
    for m in [m for m in mutants if "reference" in m["name"]][:1] + sorted(mutants, key=lambda m: len(m["fails"])):
        fails = set(m["fails"])
        if picked and (m["cell"] in cells or lost & fails or (graded and set(graded) <= lost | fails)):
            continue
        picked.append(m)
        cells.add(m["cell"])
        lost |= fails
    return picked


def sample_notebooks(full: dict, mutants: list) -> dict:
    """``{name: notebook}``: the worked solution ``full`` with every mutant of :func:`round_trip_sample` applied
    (each changes its own cell)."""
    out = full
    for m in mutants:
        out = nbt.apply_mutant(out, m)
    return out


def _sample_submission(full: dict, mutants: list) -> tuple[list, dict | None]:
    """The round trip's sampled mutants of ``mutants`` and their one submission (None without mutants): what
    both the round trip and the harness grade."""
    sampled = round_trip_sample(mutants, [nbt.grade_id(c) for nb in full.values() for c in nbt.test_cells(nb)])
    return sampled, (sample_notebooks(full, sampled) if sampled else None)


def mutant_student(mutants: list, name: str) -> str:
    """The student id of a mutant (its place in the list): its hidden tests' seed in both engines."""
    return f"mutant{[m['name'] for m in mutants].index(name):02d}"


def _filled_solution(course, release, assignment) -> dict:
    names = nbt.notebook_names(assignment, course.root)
    released = {n: nbt.read_nb(release / f"{n}.ipynb") for n in names}
    solutions = {n: nbt.read_nb(course.root / "solutions" / assignment / f"{n}.ipynb") for n in names}
    return released, {n: nbt.fill_solutions(released[n], solutions[n]) for n in names}


def _mutants(assignment) -> list:
    try:
        return nbt.load_mutants(assignment)
    except Exception:  # test_mutants_are_declared reports it; grade the rest anyway
        return []


@dataclass
class RoundTrip:
    assignment: str
    students: dict          # label ("full", "untouched", SAMPLE) -> student id
    scores: dict            # student id -> {grade_id: grade dict}
    mutants: list           # the mutants in the SAMPLE submission (round_trip_sample)
    autograded: Path        # <course>/autograded


@pytest.fixture(scope="session")
def round_trip(course, release, assignment):
    """Autograde, in one go, the synthetic students of an assignment: the solutions filled into
    the release (``full``), the release as is (``untouched``) and one submission carrying every mutant of
    :func:`round_trip_sample` (``SAMPLE``; every mutant is also judged alone by the ``harness`` fixture)."""
    # The untouched student submits the fresh release, not notebooks/: test 2 checks that the two
    # are byte-identical, and a stale notebooks/ (cells the gradebook does not know) would make
    # nbgrader fail the whole autograding run instead of failing test 2 alone.
    released, full = _filled_solution(course, release, assignment)
    mutants, sample = _sample_submission(full, _mutants(assignment))
    students = {"full": nbt.FULL, "untouched": nbt.UNTOUCHED}
    nbt.submit(course.root, assignment, nbt.FULL, full)
    nbt.submit(course.root, assignment, nbt.UNTOUCHED, released)
    if sample:
        students[SAMPLE] = SAMPLE_STUDENT
        nbt.submit(course.root, assignment, SAMPLE_STUDENT, sample)
    with course.offline(), nbt.Stopwatch() as t:
        scores, _ = nbt.autograde(course.root, assignment, list(students.values()))
    record_time(assignment, f"autograde {len(students)} students ({nbt.autograde_workers(len(students))} workers)", t)
    return RoundTrip(assignment, students, scores, mutants, course.root / "autograded")


@dataclass
class Judged:
    assignment: str
    mutants: list           # every mutant of tests/mutants/<assignment>.py
    verdicts: dict          # "full", SAMPLE or a mutant's name -> mutant_harness.Verdict


_MUTANTS_JUDGED: dict = {}  # assignment -> (mutants shown to lose exactly their cells, of how many)


@pytest.fixture(scope="session")
def harness(course, release, assignment, tmp_path_factory):
    """Every mutant of the assignment judged by :mod:`mutant_harness` (one forking kernel, the course's
    judge), and the round trip's ``SAMPLE`` submission, with the same student ids, so the same hidden inputs,
    as in the round trip."""
    import mutant_harness

    _, full = _filled_solution(course, release, assignment)
    assert len(full) == 1, "the harness judges assignments of one notebook"
    mutants = _mutants(assignment)
    students = {"full": nbt.FULL} | {m["name"]: mutant_student(mutants, m["name"]) for m in mutants}
    _, sample = _sample_submission(full, mutants)
    extra = {SAMPLE: next(iter(sample.values()))} if sample else {}
    students[SAMPLE] = SAMPLE_STUDENT
    with course.offline(), nbt.Stopwatch() as t:
        verdicts, left_out = mutant_harness.run_mutants(assignment, next(iter(full.values())), mutants, students,
                                                        course.root, tmp_path_factory.mktemp(f"harness-{assignment}"),
                                                        extra=extra)
    record_time(assignment, f"harness: {len(mutants)} mutants in forking kernels ({left_out} cells left out)", t)
    _MUTANTS_JUDGED[assignment] = [0, len(mutants)]
    return Judged(assignment, mutants, verdicts)


def mutant_shown(assignment: str) -> None:
    """Count a mutant shown to lose exactly its cells (the summary prints the total)."""
    _MUTANTS_JUDGED[assignment][0] += 1


@pytest.fixture
def record():
    """``record(assignment, step, stopwatch)``: add a timing to the end-of-run summary."""
    return record_time
