"""The judge's errors: what goes wrong between the grader and a student's kernel."""
from __future__ import annotations

__all__ = ["JudgeError", "KernelStuck", "KernelGarbled"]


class JudgeError(RuntimeError):
    """The kernel did not answer the judge as the protocol says (no answer, a malformed one, a stuck kernel)."""


class KernelStuck(JudgeError):
    """A call did not finish within the time limit."""


class KernelGarbled(JudgeError):
    """The kernel sent a message the grader could not read (for example signed with a changed key)."""

    @classmethod
    def from_error(cls, exc: BaseException) -> "KernelGarbled":
        """The error of reading the message, named and cut short (the text :data:`GARBLED` shows)."""
        return cls(f"{type(exc).__name__}: {str(exc)[:200]}")
