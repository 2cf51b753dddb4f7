"""The worked solutions ``solutions/*/*.ipynb``, each executed top to bottom with nbclient (a fresh
kernel each) in a temporary copy of the course, against the 60 s budget of the smoke test."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from unittest import mock

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from .common import ROOT, Context, Row, fmt_value, table

SECTION = "Notebooks"
BUDGET = 60.0  # seconds per solution notebook (CONTRIBUTING.md)


def assignments(solutions: Path = ROOT / "solutions") -> list[Path]:
    """Every ``solutions/<assignment>/`` folder that holds a notebook, sorted."""
    return sorted(p for p in solutions.glob("*") if p.is_dir() and any(p.glob("*.ipynb")))


def course_copy(dest: Path, folders: list[Path]) -> Path:
    """A temporary course root: the assignments copied, everything else symlinked to the real course."""
    dest.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name in ("solutions", "notebooks") or entry.name.startswith("."):
            continue
        (dest / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for a in folders:
        shutil.copytree(a, dest / "solutions" / a.name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return dest


def execute(path: Path, timeout: int = 600) -> tuple[float, str]:
    """Run a notebook in a fresh kernel; (seconds, ``"ok"`` or what went wrong)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    t0 = time.perf_counter()
    try:
        client.execute()
        status = "ok"
    except CellExecutionError as exc:
        status = f"error: {str(exc).strip().splitlines()[-1][:80]}"
    except Exception as exc:  # noqa: BLE001 - a timeout or a dead kernel: report, go on with the next notebook
        status = f"failed: {type(exc).__name__}"
    return time.perf_counter() - t0, status


def run(ctx: Context) -> None:
    """Append one row per solution notebook and their total."""
    folders = assignments()
    nbs = [(a, nb) for a in folders for nb in sorted(a.glob("*.ipynb"))]
    course = course_copy(ctx.tmp / "course-exec", folders)
    empty = ctx.tmp / "empty.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), empty)
    done = []
    # MPLBACKEND=Agg as the course's tests run notebooks (kernels inherit the environment)
    with mock.patch.dict(os.environ, {"MPLBACKEND": "Agg"}):
        t_kernel, _ = execute(empty)
        for a, nb in nbs:
            t, status = execute(course / "solutions" / a.name / nb.name)
            done.append({"notebook": f"{a.name}/{nb.name}", "time": t, "status": status})
            ctx.rows.append(Row(SECTION, f"execute {a.name}/{nb.name}", t, "budget", BUDGET, f"< {BUDGET:.0f} s",
                                t < BUDGET and status == "ok", note="" if status == "ok" else status))
    total = sum(d["time"] for d in done)
    ctx.rows.append(Row(SECTION, f"execute all {len(nbs)} solution notebook(s)", total, target="(reported)",
                        note=f"nbclient, one fresh kernel each; kernel start-up alone (empty notebook) "
                             f"{fmt_value(t_kernel)}"))
    ctx.extra["notebooks"] = done
    ctx.sections.append("\n".join(["Solution notebooks (nbclient, fresh kernel each):", "",
                                   table(["notebook", "time", "status"],
                                         [[d["notebook"], fmt_value(d["time"]), d["status"]] for d in done], "lrl")]))
