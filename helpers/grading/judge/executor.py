"""What the judge uses of the executor that runs the notebook: a ``typing.Protocol``, not a base class.

:class:`helpers.grading.execute.ResilientExecute` is the executor when grading; ``tests/mutant_harness.py`` and
the tests in ``tests/test_judge.py`` give the judge small objects with the same attributes. The judge uses
nothing else of them.
"""
from __future__ import annotations

import logging
from typing import Any, Protocol

__all__ = ["KernelConnection", "Executor"]


class KernelConnection(Protocol):  # numpydoc ignore=PR01
    """A running kernel, as the judge's channel talks to it (:class:`helpers.grading.judge.channel._Channel`).

    The channel sends requests and reads answers through ``kc`` and interrupts or checks the kernel
    through ``km``.

    Attributes
    ----------
    kc : jupyter_client.asynchronous.AsyncKernelClient or None
        The kernel's client (``shell_channel``, ``session``, ``execute``, ``get_shell_msg``, ``get_iopub_msg``);
        None when no kernel runs.
    km : jupyter_client.manager.AsyncKernelManager
        The kernel's manager (``interrupt_kernel``, ``is_alive``).
    """

    kc: Any
    km: Any


class Executor(KernelConnection, Protocol):  # numpydoc ignore=PR01
    """The executor of a notebook, as the judge of its graded cells uses it (:func:`~helpers.grading.judge.judge_for`).

    Besides the kernel (:class:`KernelConnection`): the notebook, its configuration and time budget, a log,
    and the executor's way to replace a kernel that stopped answering.

    Attributes
    ----------
    nb : nbformat.NotebookNode
        The notebook being executed (the judge adds its flags to its metadata).
    config : traitlets.config.Config
        The grader's configuration (``CourseDirectory.root``, ``Judge.*``).
    timeout : float or None
        Seconds one cell may run (``Execute.timeout``).
    log : logging.Logger
        Where the judge reports a bug of the hidden tests.
    """

    nb: Any
    config: Any
    timeout: float | None
    log: logging.Logger

    def time_left(self) -> float | None:
        """Tell the seconds left of the notebook's time budget.

        Each call of the student's code gets at most what is left (and at least one second).

        Returns
        -------
        float or None
            The seconds left; None when the notebook has no budget.
        """

    def _recover(self, cell: Any, index: int, ename: str, text: str) -> None:
        """Give ``cell`` an error output and a flag, start a new kernel and re-run the cells above it.

        Parameters
        ----------
        cell : nbformat.NotebookNode
            The cell the kernel stopped answering in.
        index : int
            Its index in the notebook.
        ename, text : str
            The error's name and message.
        """
