"""Grading on several machines: the per-submission grading jobs on a Dask distributed cluster.

``python -m helpers grade --scheduler ADDRESS`` sends every submission to the Dask scheduler at
``ADDRESS`` (e.g. ``tcp://grader1:8786``); each worker runs
:func:`helpers.grading.grade.grade_submission` for one submission at a time, exactly what
``--workers N`` runs in local processes, so the grades are the same. Needs the optional extra
``pip install .[cluster]`` (PyPI ``dask`` and ``distributed``) on the instructor's machine and on
every grading machine.

A real cluster needs (docs/SYSADMIN.md, "Grading on several machines"):

* the course folder on a shared filesystem, mounted at the same path on every machine
  (workers read ``submitted/`` and write ``autograded/`` and ``feedback/`` there);
* the gradebook in PostgreSQL (``CourseDirectory.db_url`` in ``nbgrader_config.py``): SQLite on
  a network filesystem is not safe with writers on several machines;
* the same course environment (this package, nbgrader, the kernel) on every machine, and one
  worker thread per core (``dask worker ADDRESS --nworkers N --nthreads 1``): each job runs one
  notebook kernel.
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ClusterError", "executor"]

INSTALL = "pip install .[cluster]  (or: pip install dask distributed)"


class ClusterError(RuntimeError):
    """The cluster cannot grade; the message says what to do.

    Dask is missing, the scheduler is unreachable, or a worker cannot see the course folder or import
    the course's package.
    """


def _worker_check(root: str) -> str:
    """Run on each worker: '' when it can grade ``root``, else what is wrong there. Puts the
    worker's environment ``bin`` first on its ``PATH`` (nbgrader runs ``alembic`` and the kernel)."""
    import importlib.util
    import socket
    import sys

    where = socket.gethostname()
    if not os.path.isfile(os.path.join(root, "nbgrader_config.py")):
        return (f"{where}: no {root}/nbgrader_config.py; mount the course folder on a shared filesystem "
                "at the same path on every grading machine")
    if importlib.util.find_spec("nbgrader") is None or importlib.util.find_spec("helpers") is None:
        return f"{where}: the worker's Python cannot import nbgrader and helpers; start it from the course environment"
    path = os.environ.get("PATH", "").split(os.pathsep)
    here = os.path.dirname(sys.executable)
    if path[:1] != [here]:
        os.environ["PATH"] = os.pathsep.join([here, *path])
    os.environ.setdefault("MPLBACKEND", "Agg")
    return ""


def executor(scheduler: str, root: str | os.PathLike, *, timeout: float = 30.0):
    """A ``concurrent.futures.Executor`` running jobs on the Dask cluster at ``scheduler``.

    A drop-in for the local ``ProcessPoolExecutor`` of :func:`helpers.grading.run.grade_class`:
    ``submit`` returns ordinary ``concurrent.futures.Future`` objects (``as_completed`` works);
    jobs are not cached (``pure=False``) and a job whose worker died is retried once. Leaving the
    ``with`` block waits for the jobs and disconnects from the scheduler.

    Parameters
    ----------
    scheduler : str
        Address of the Dask scheduler, e.g. ``"tcp://grader1:8786"`` (``dask scheduler`` prints it).
    root : str or path-like
        The course folder; every worker must see it at the same absolute path.
    timeout : float
        Seconds to wait for the scheduler, and for a first worker if it has none.

    Returns
    -------
    concurrent.futures.Executor
        The executor, to be used in a ``with`` block.

    Raises
    ------
    ClusterError
        Dask is not installed, the scheduler is not reachable, it has no workers, or a worker
        cannot see ``root`` or import nbgrader and this package.
    """
    try:
        from distributed import Client
        from distributed.cfexecutor import ClientExecutor
    except ImportError as exc:
        raise ClusterError(f"--scheduler needs Dask distributed: {INSTALL}") from exc

    class _Executor(ClientExecutor):
        def shutdown(self, wait=True, **kwargs):
            try:
                super().shutdown(wait=wait)
            finally:
                self._client.close()

    root = str(Path(root).resolve())
    try:
        client = Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"Cannot reach the Dask scheduler at {scheduler!r} ({exc}). Start it with "
                           "`dask scheduler` on the scheduler machine and pass the address it prints.") from exc
    try:
        if not client.scheduler_info().get("workers"):
            try:
                client.wait_for_workers(1, timeout=timeout)
            except TimeoutError as exc:
                raise ClusterError(f"The scheduler at {scheduler} has no workers: start "
                                   f"`dask worker {scheduler} --nworkers N --nthreads 1` on each grading machine "
                                   "(from the course environment).") from exc
        problems = [p for p in client.run(_worker_check, root).values() if p]
        if problems:
            raise ClusterError("Some Dask workers cannot grade: " + "; ".join(sorted(set(problems))))
    except BaseException:
        client.close()
        raise
    return _Executor(client, pure=False, retries=1)
