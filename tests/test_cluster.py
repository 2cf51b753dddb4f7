"""Grading on a Dask distributed cluster (``helpers.grading.cluster``) gives the grades of local grading.

A ``LocalCluster`` of two worker processes (one thread each) on loopback stands for two grading
machines sharing the course folder. Both gradings run as the course grades, in the sandbox with warm
kernels, when bubblewrap is installed (always in CI), and unsandboxed without it. A few submissions
of 01_cosine (the worked solutions, the untouched release, two known-wrong mutants) are graded once locally, one after another with
``helpers.grading.grade.grade_submission``, in one course folder, and once by ``python -m helpers grade
--scheduler`` (``grade_class`` with ``helpers.grading.cluster.executor``: the same job as local grading)
in an identical second folder; every cell's score must be the same. Needs the optional extra (``pip install .[cluster]``: dask, distributed), pinned in
requirements.txt; without it the test is skipped, unless ``COURSE_TEST_CLUSTER_REQUIRED=1``.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_tools as tools  # noqa: E402

ASSIGNMENT = "01_cosine"
REQUIRED = os.environ.get("COURSE_TEST_CLUSTER_REQUIRED", "") not in ("", "0")


def _distributed():
    try:
        import distributed
    except ImportError:
        if REQUIRED:
            pytest.fail("COURSE_TEST_CLUSTER_REQUIRED is set but dask distributed is not installed")
        pytest.skip("dask distributed is not installed: pip install .[cluster] (or pip install -r requirements.txt)")
    return distributed


def _cpu_seconds() -> float:
    """CPU time of this process, its finished children and the kernels of its warm templates (reaped inside the
    sandbox, where ``getrusage`` does not see them: :func:`helpers.grading.warm.sandbox_cpu`)."""
    import resource

    from helpers.grading.warm import sandbox_cpu

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime + sandbox_cpu()


def _course(path: Path) -> tuple[Path, list[str]]:
    """A course folder with the release of 01_cosine in the gradebook and four submissions."""
    root = tools.make_course(path, [ASSIGNMENT], config=True)
    api = tools.make_api(root)
    tools.generate_release(api, ASSIGNMENT)
    names = tools.notebook_names(ASSIGNMENT)
    release = {n: tools.read_nb(root / "notebooks" / ASSIGNMENT / f"{n}.ipynb") for n in names}
    solution = {n: tools.read_nb(root / "solutions" / ASSIGNMENT / f"{n}.ipynb") for n in names}
    full = {n: tools.fill_solutions(release[n], solution[n]) for n in names}
    subs = {tools.FULL: full, tools.UNTOUCHED: release}
    for k, mutant in enumerate(tools.load_mutants(ASSIGNMENT)[:2]):
        subs[f"mutant-{k}"] = tools.apply_mutant(full, mutant)
    for student, nbs in subs.items():
        tools.submit(root, ASSIGNMENT, student, nbs)
    return root, sorted(subs)


def test_grade_command_on_a_cluster_grades_like_local_grading(tmp_path):
    """``python -m helpers grade --scheduler ADDRESS`` from the course root, as INSTRUCTORS.md says, against a
    LocalCluster of two workers; the same submissions graded locally one by one with
    ``helpers.grading.grade.grade_submission`` in an identical folder: every cell's score the same, feedback
    and grades.csv written, and the worked solution graded first as the canary (on the cluster too)."""
    distributed = _distributed()
    import subprocess

    from helpers.grading.grade import grade_submission

    with tools.offline_env(tmp_path) as network_log:
        local, students = _course(tmp_path / "local")
        remote, _ = _course(tmp_path / "cluster")
        t0, c0 = time.perf_counter(), _cpu_seconds()
        sandbox = tools.sandbox_available()  # as the course grades (always in CI); unsandboxed without bubblewrap
        local_reports = [grade_submission(local, ASSIGNMENT, s, sandbox=sandbox, feedback=True) for s in students]
        t_local, c_local = time.perf_counter() - t0, _cpu_seconds() - c0
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tools.COURSE_ROOT), os.environ.get("PYTHONPATH", "")])}
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None) as cluster:
            t0 = time.perf_counter()
            res = subprocess.run([sys.executable, "-m", "helpers", "grade", ASSIGNMENT, *tools.sandbox_args(),
                                  "--scheduler", cluster.scheduler_address], cwd=remote, env=env,
                                 capture_output=True, text=True, timeout=900)
            t_cluster = time.perf_counter() - t0
        assert network_log.read_text() == "", "a notebook tried to reach the network"
    print(f"\n{len(students)} submissions: local one by one {t_local:.1f} s ({c_local / len(students):.1f} CPU s per "
          f"submission, grader and kernel), the command on a LocalCluster of 2 workers {t_cluster:.1f} s (the "
          f"canary included); load average {os.getloadavg()[0]:.1f}")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "the worked solution got full marks" in res.stdout, res.stdout
    assert (remote / "grades.csv").is_file()
    for lr in local_reports:
        assert lr.success, lr.error
    for s in students:
        assert s in res.stdout
        assert tools.cell_scores(f"sqlite:///{remote / 'gradebook.db'}", ASSIGNMENT, s) == \
            tools.cell_scores(f"sqlite:///{local / 'gradebook.db'}", ASSIGNMENT, s), s
        assert list((remote / "feedback" / s / ASSIGNMENT).glob("*.html")), f"no feedback for {s}"
    full = tools.cell_scores(f"sqlite:///{remote / 'gradebook.db'}", ASSIGNMENT, tools.FULL)
    auto = {g: v for g, v in full.items() if v["cell_type"] == "code"}
    assert auto and all(v["score"] == v["max_score"] > 0 for v in auto.values()), auto
    blank = tools.cell_scores(f"sqlite:///{remote / 'gradebook.db'}", ASSIGNMENT, tools.UNTOUCHED)
    assert all(v["score"] == 0 for v in blank.values() if v["cell_type"] == "code")


def test_unreachable_scheduler_says_what_to_do(tmp_path):
    _distributed()
    import socket

    from helpers.grading.cluster import ClusterError, executor

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "nbgrader_config.py").write_text("")
    with pytest.raises(ClusterError, match="dask scheduler"):
        executor(f"tcp://127.0.0.1:{port}", tmp_path, timeout=2)


def test_worker_without_the_course_folder_is_refused(tmp_path):
    distributed = _distributed()
    from helpers.grading.cluster import ClusterError, executor

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        with pytest.raises(ClusterError, match="shared filesystem"):
            executor(cluster.scheduler_address, tmp_path / "nowhere")
