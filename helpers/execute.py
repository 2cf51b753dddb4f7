"""Autograding that survives a bad cell: one hung or crashing cell costs that cell, not the notebook.

nbgrader's ``Execute`` preprocessor gives up on the whole submission when a cell never returns
and ignores the interrupt (a loop around a bare ``except:`` catches ``KeyboardInterrupt``:
"Timeout waiting for IOPub output") or when the kernel dies (``os._exit``, a crash in compiled
code): every cell scores 0 and nobody is told why. :class:`ResilientExecute` instead

1. gives that cell an error output saying in plain words what happened (so a test cell scores 0),
2. flags it for a person (:func:`helpers.flags.add_flag`),
3. restarts the kernel and silently re-runs the cells that ran before it (not the bad one),
4. and goes on grading the rest of the notebook.

It also starts every kernel in the bubblewrap sandbox (:class:`helpers.sandbox.SandboxKernelManager`,
settings ``c.Sandbox``). Put it in place of nbgrader's ``Execute`` in
``Autograde.autograde_preprocessors`` (``nbgrader_config.py`` does; :func:`helpers.sandbox.configure`
does it for a configuration built in Python).
"""
from __future__ import annotations

import os
import stat

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async, run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Integer

from .flags import add_flag
from .judge import judge_for
from .sandbox import SandboxError, SandboxKernelManager

__all__ = ["ResilientExecute"]

DIED = ("The Python kernel running this notebook stopped while this cell ran (for example `os._exit()` or "
        "`sys.exit()` inside a function, a crash in compiled code, or running out of memory). The grader started "
        "a new kernel, re-ran the cells above this one and went on with the next cell. This cell did not "
        "finish, so it scored 0, and it is flagged for a person to look at.")
HUNG = ("This cell was still running after {timeout} s and did not stop when interrupted (a loop that catches "
        "every exception with a bare `except:` also catches the interrupt). The grader stopped the kernel, "
        "started a new one, re-ran the cells above this one and went on with the next cell. This cell scored 0, "
        "and it is flagged for a person to look at.")
SLOW = ("This cell was still running after {timeout} s and was interrupted, so it scored 0. It is flagged for a "
        "person to look at (an endless loop, or work far slower than needed).")
NOT_RUN = ("Not run: the kernel failed {n} times in this notebook, so the grader stopped running its cells. "
           "This cell scored 0; the notebook is flagged for a person to look at.")


def _error(ename: str, text: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=text, traceback=[f"{ename}: {text}"])


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


class ResilientExecute(Execute):
    """nbgrader's ``Execute`` with sandboxed kernels and recovery from hung or dead kernels."""

    max_restarts = Integer(5, help="Kernel restarts allowed per notebook; after that the remaining cells "
                                   "are not run (each gets an error, so a test cell scores 0) and the "
                                   "notebook is flagged.").tag(config=True)

    def __init__(self, **kw):
        kw.setdefault("kernel_manager_class", SandboxKernelManager)
        super().__init__(**kw)

    # -- per notebook ---------------------------------------------------------------------------

    def preprocess(self, nb, resources=None, km=None):
        self._ran: list[int] = []       # indices of the code cells that completed, in order
        self._restarts = 0
        self._stopped: str | None = None
        workdir = ((resources or {}).get("metadata") or {}).get("path")
        # the hidden tests of this assignment, judged in this process (helpers.judge); None if switched off
        self.judge = judge_for(self, nb, resources)
        try:
            return super().preprocess(nb, resources, km)
        except SandboxError as exc:
            self.log.error("%s", exc)
            raise
        finally:
            if workdir:
                self._clean_workdir(nb, workdir)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not cell.source.strip():
            return super().preprocess_cell(cell, resources, index)
        if self._stopped:
            cell.outputs = [_error("NotRun", self._stopped)]
            return cell, resources
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._recover(cell, index, "KernelDied", DIED)
        except CellTimeoutError:
            self._recover(cell, index, "CellTimeoutError", HUNG.format(timeout=self.timeout))
        else:
            self._ran.append(index)
            if self.judge is not None:
                self.judge.judge_cell(self, cell, index)
        return cell, resources

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if self.judge is not None:  # the course package without this assignment's reference implementations
            km.overlays = self.judge.overlays
        return km

    def on_cell_executed(self, **kwargs):
        super().on_cell_executed(**kwargs)
        content = kwargs["execute_reply"].get("content", {})
        if content.get("status") == "error" and content.get("ename") == self.error_on_timeout.get("ename"):
            cell = kwargs["cell"]
            self._flag(cell, kwargs.get("cell_index"), SLOW.format(timeout=self.timeout))

    # -- recovery -------------------------------------------------------------------------------

    def _flag(self, cell, index, reason: str) -> None:
        gid = _grade_id(cell)
        add_flag(self.nb, gid, reason if gid else f"Cell {index} (no grade_id): {reason}")

    def _recover(self, cell, index: int, ename: str, text: str) -> None:
        self.log.warning("Cell %s: %s", index, ename)
        cell.outputs = list(cell.get("outputs", [])) + [_error(ename, text)]
        cell.execution_count = None
        self._flag(cell, index, text)
        if self._restarts >= self.max_restarts:
            self._give_up()
            return
        self._restarts += 1
        try:
            self._restart_and_replay()
        except Exception as exc:  # the new kernel failed too: stop here, flagged
            self.log.warning("Restarting the kernel failed: %s", exc)
            self._give_up(f" The last restart failed: {exc}")

    def _give_up(self, detail: str = "") -> None:
        self._stopped = NOT_RUN.format(n=self._restarts + 1) + detail
        add_flag(self.nb, None, self._stopped)

    async def _async_restart_and_replay(self) -> None:
        """A fresh kernel, with the cells that completed before re-run silently (outputs dropped)."""
        if self.kc is not None:
            self.kc.stop_channels()
            self.kc = None
        if self.km is not None:
            try:
                await ensure_async(self.km.shutdown_kernel(now=True))
            except Exception as exc:  # already dead
                self.log.debug("Shutting down the failed kernel: %s", exc)
        self.km = self.create_kernel_manager()
        await self.async_start_new_kernel()
        await self.async_start_new_kernel_client()
        for i in self._ran:
            cell = self.nb.cells[i]
            msg_id = await ensure_async(self.kc.execute(cell.source, silent=True, store_history=False,
                                                        allow_stdin=False))
            reply = await self.async_wait_for_reply(msg_id, cell)
            if reply is None:
                raise RuntimeError(f"re-running cell {i} timed out")

    _restart_and_replay = run_sync(_async_restart_and_replay)

    # -- the notebook's folder ----------------------------------------------------------------

    def _clean_workdir(self, nb, workdir) -> None:
        """Remove symbolic links, pipes and other special files the notebook left in its folder.

        The kernel may write its own folder; nbgrader then writes the graded notebook there and
        the feedback reads it. A symbolic link named like the notebook would make the grader write
        through it to a file outside, and a pipe would block it: neither is left in place.
        """
        for dirpath, dirnames, filenames in os.walk(workdir):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                mode = os.lstat(path).st_mode
                if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    os.unlink(path)
                    add_flag(nb, None, f"The notebook left a symbolic link or special file in its folder "
                                       f"({os.path.relpath(path, workdir)}); the grader removed it.")
