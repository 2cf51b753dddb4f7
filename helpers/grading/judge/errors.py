"""The judge's errors: what goes wrong between the grader and a student's kernel."""
from __future__ import annotations

__all__ = ["JudgeError", "KernelStuck", "KernelGarbled"]


class JudgeError(RuntimeError):
    """The kernel did not answer the judge as the protocol says (no answer, a malformed one, a stuck kernel).

    The judge gives the cell 0 points and flags it for a person: it is never read as a wrong answer.
    """


class KernelStuck(JudgeError):
    """A call did not finish within the time limit.

    The executor then replaces the kernel and re-runs the cells above (the cell scores 0, flagged).
    """


class KernelGarbled(JudgeError):
    """The kernel sent a message the grader could not read (for example signed with a changed key).

    The executor then replaces the kernel, as for :class:`KernelStuck`.
    """

    @classmethod
    def from_error(cls, exc: BaseException) -> "KernelGarbled":
        """The error of reading the message, named and cut short.

        Parameters
        ----------
        exc : BaseException
            What reading the message raised.

        Returns
        -------
        KernelGarbled
            Its class name and the first 200 characters of its message (the text
            ``helpers.grading.judge.notebook.GARBLED`` shows).
        """
        return cls(f"{type(exc).__name__}: {str(exc)[:200]}")
