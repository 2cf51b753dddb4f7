"""Talking to the student's kernel: requests through the judge's comm (or execute requests), answers from
its messages, each call within its time limit."""
from __future__ import annotations

import base64
import binascii
import json
import queue
import re
import time
import uuid
import weakref
from pathlib import Path

from . import wire
from .errors import JudgeError, KernelGarbled, KernelStuck
from .executor import KernelConnection

__all__ = ["RUNTIME", "COMM_TARGET", "PROGRESS_EVERY", "MAX_ANSWER_BYTES", "ANSWER_FIELDS"]

#: the code sent to the kernel: the wire format's table and limits, then the runtime that reads them
RUNTIME = Path(wire.__file__).read_text() + "\n\n" + Path(__file__).with_name("runtime.py").read_text()
#: the comm target of the judge's requests (given to runtime.open_channel)
COMM_TARGET = "weat_judge"
#: seconds: the runtime's PROGRESS_EVERY (runtime.py), the most between its reports
PROGRESS_EVERY = 1.0
#: the largest answer the judge reads from a kernel (the old name of wire.MAX_ANSWER_CHARS)
MAX_ANSWER_BYTES = wire.MAX_ANSWER_CHARS
#: the fields an answer may have (runtime.serve): anything else is refused
ANSWER_FIELDS = frozenset({"value", "raised", "args_after", "axes", "arrays", "answers", "missing", "callable",
                           "failed"})
#: an execute request's answer: the runtime's JSON text in base64, as the kernel's ``repr`` of a str shows it
_BASE64_REPR = re.compile(r"'([A-Za-z0-9+/]*={0,2})'")


#: per kernel client, the judge's comm in its kernel: ``(comm_id, answered)``, or False once a comm opened
#: there never answered (the notebook changed the kernel's comms; execute requests serve it from then on)
_COMMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_DEFINE = ("__weat_judge__ = (lambda ns: (exec({runtime!r}, ns), ns['open_channel']({target!r}), ns['serve'])[2])("
           "{{'__name__': '__weat_judge__', 'user_ns': globals()}})")


def _text_answer(content: dict):
    """The text of ``__weat_answer__`` in an execute reply's ``user_expressions`` (None if there is none)."""
    value = content.get("user_expressions", {}).get("answer", {})
    return value.get("data", {}).get("text/plain") if isinstance(value, dict) else None


class _Channel:
    """Requests to the student's kernel through the executor's kernel client, answers from its messages.

    A request goes as a message of the judge's comm (``judge_runtime.open_channel``): ipykernel hands it to
    the runtime without running a cell. When the comm does not answer (a new kernel, or a notebook that
    changed the kernel's comms), the request goes as an execute request instead, which defines the runtime
    if it is missing and opens the comm again for the next request. Either way the answer is only a value.
    """

    def __init__(self, executor: KernelConnection, timeout: float, budget: float | None = None):
        self.executor = executor
        self.timeout = timeout  # seconds one call of the student's code may take
        self.end = None if budget is None else time.monotonic() + budget  # the notebook's time budget runs out

    def request(self, payload: dict, calls: int = 1) -> dict:
        """The kernel's answer to ``payload``; ``calls``: how many calls of the student's code it makes (each
        may take the time limit of one call)."""
        from nbclient.util import run_sync
        return run_sync(self._request)(payload, calls)

    async def _request(self, payload: dict, calls: int = 1) -> dict:
        kc = self.executor.kc
        if kc is None:
            raise JudgeError("the kernel is not running")
        request = json.dumps(payload)
        state = _COMMS.get(kc)
        if state:
            comm_id, answered = state
            text = await self._via_comm(kc, comm_id, request, calls)
            if text is not None:
                _COMMS[kc] = (comm_id, True)
                return self._decode(text)
            _COMMS[kc] = None if answered else False  # a restarted kernel: open it again; never answered: stop
        text = await self._via_execute(kc, request, calls)
        if _COMMS.get(kc) is not False and hasattr(kc, "shell_channel") and hasattr(kc, "session"):
            comm_id = uuid.uuid4().hex
            kc.shell_channel.send(kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": COMM_TARGET,
                                                               "data": {}}))
            _COMMS[kc] = (comm_id, False)
        return self._decode(text)

    @staticmethod
    def _decode(text) -> dict:
        """The answer ``text`` parsed, once its size and density are known to be within the wire's limits.

        Checked before parsing: at most :data:`~helpers.grading.judge.wire.MAX_ANSWER_CHARS` characters, and few
        enough structure characters (:func:`~helpers.grading.judge.wire.structure_ok`), so that ``json.loads``
        builds at most about 24 bytes of objects per character received. The values in it are checked as they
        are decoded (:class:`~helpers.grading.judge.codec._Decoder`).
        """
        if not isinstance(text, str):
            raise JudgeError("no answer from the kernel (the judge's code was changed or failed there)")
        if len(text) > wire.MAX_ANSWER_CHARS:
            raise JudgeError(f"the answer is too large ({len(text)} characters, more than {wire.MAX_ANSWER_CHARS})")
        if not wire.structure_ok(text):
            raise JudgeError("malformed answer (denser than the wire format)")
        try:
            out = json.loads(text)
        except (ValueError, TypeError, MemoryError, RecursionError):
            raise JudgeError("malformed answer (not a JSON string)") from None
        if not isinstance(out, dict) or not set(out) <= ANSWER_FIELDS:
            raise JudgeError("malformed answer")
        if "failed" in out:
            failed = out["failed"]
            message = failed.get("message") if isinstance(failed, dict) else None
            raise JudgeError(f"the judge's code failed in the kernel: {str(message)[:300]}")
        return out

    async def _via_comm(self, kc, comm_id: str, request: str, calls: int = 1):
        """The answer to ``request`` sent through the comm, or None if the kernel went idle without one."""
        msg = kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"request": request}})
        kc.shell_channel.send(msg)
        # a map request's calls: the kernel reports progress at most every PROGRESS_EVERY seconds, so a call starts
        # at most that long after the last report, and each gets at least one call's time limit from its start
        slack = PROGRESS_EVERY if calls > 1 else 0.0
        clock = self._clock(slack=slack)
        latest = self._deadline(calls, slack)  # forged reports cannot give more than all the calls' time
        answer = None
        while True:
            reply = await self._next(kc, msg["header"]["msg_id"], kc.get_iopub_msg, clock)
            content = reply.get("content") or {}
            if reply.get("msg_type") == "comm_msg" and answer is None and content.get("comm_id") == comm_id:
                data = content.get("data")
                if calls > 1 and isinstance(data, dict) and set(data) == {"progress"}:
                    if not clock["interrupted"]:
                        clock["deadline"] = min(self._deadline(1, slack), latest)
                    continue
                answer = data.get("answer", 0) if isinstance(data, dict) else 0  # 0: malformed, read as such
            elif reply.get("msg_type") == "status" and content.get("execution_state") == "idle":
                break
        await self._drain_iopub(kc)
        return answer

    async def _via_execute(self, kc, request: str, calls: int = 1):
        """The answer to ``request`` sent as an execute request (the runtime defined first if it is missing)."""
        # a missing runtime answers None, not a NameError (whose traceback IPython would format: 0.2 s of CPU); the
        # answer comes as base64, so that what the reply carries is checked by a pattern, never parsed as Python
        call = (f"__weat_answer__ = __import__('base64').b64encode(__weat_judge__({request!r}).encode()).decode() "
                "if '__weat_judge__' in globals() else None")
        reply = await self._execute(kc, call, calls)
        content = reply.get("content", {})
        if content.get("status") == "ok" and _text_answer(content) == "None":
            # the runtime is defined once per kernel (again after a restart, or if the notebook deleted it)
            await self._execute(kc, _DEFINE.format(runtime=RUNTIME, target=COMM_TARGET))
            reply = await self._execute(kc, call, calls)
        content = reply.get("content", {})
        text = _text_answer(content)
        if content.get("status") != "ok" or not isinstance(text, str):
            return None
        return self._execute_text(text)

    @staticmethod
    def _execute_text(text: str) -> str:
        """The runtime's JSON text from an execute reply's ``text/plain`` (the ``repr`` of its base64): matched by a
        pattern, after its length is checked, and never parsed as Python."""
        if len(text) > wire.MAX_ANSWER_CHARS * 4 // 3 + 8:
            raise JudgeError("the answer is too large")
        match = _BASE64_REPR.fullmatch(text)
        if match is None:
            raise JudgeError("malformed answer (not the runtime's base64)")
        try:
            return base64.b64decode(match.group(1), validate=True).decode("ascii")
        except (binascii.Error, ValueError):
            raise JudgeError("malformed answer (not the runtime's base64)") from None

    async def _execute(self, kc, code: str, calls: int = 1) -> dict:
        """Run ``code`` in the kernel (silently); its execute reply, with the value of ``__weat_answer__``."""
        msg_id = kc.execute(code, silent=True, store_history=False, allow_stdin=False, stop_on_error=False,
                            user_expressions={"answer": "__weat_answer__"})
        reply = await self._next(kc, msg_id, kc.get_shell_msg, self._clock(calls))
        await self._drain_iopub(kc)
        return reply

    def _deadline(self, calls: int = 1, slack: float = 0.0) -> float:
        """The time limit of ``calls`` calls from now, plus ``slack`` (never past the end of the notebook's budget)."""
        deadline = time.monotonic() + self.timeout * max(1, calls) + slack
        return deadline if self.end is None else min(deadline, self.end)

    def _clock(self, calls: int = 1, slack: float = 0.0) -> dict:
        return {"deadline": self._deadline(calls, slack), "interrupted": False}

    async def _next(self, kc, msg_id: str, get, clock: dict) -> dict:
        """The next message ``get`` reads that answers ``msg_id``, within the time limit of ``clock``.

        Past the limit the kernel is interrupted; a message after that (or none within 10 s more) means the
        call was stuck (:class:`KernelStuck`). A message that cannot be read means :class:`KernelGarbled`.
        """
        from jupyter_client.utils import ensure_async

        while True:
            remaining = clock["deadline"] - time.monotonic()
            if remaining <= 0:
                if clock["interrupted"]:
                    raise KernelStuck(f"no answer within {self.timeout:.0f} s, even after an interrupt")
                clock["interrupted"] = True
                await ensure_async(self.executor.km.interrupt_kernel())
                clock["deadline"] = time.monotonic() + 10
                continue
            try:
                reply = await ensure_async(get(timeout=min(remaining, 5)))
            except queue.Empty:  # nothing yet
                if not await ensure_async(self.executor.km.is_alive()):
                    raise JudgeError("the kernel died while it was being checked") from None
                continue
            except Exception as exc:  # noqa: BLE001 - a message that cannot be read: this kernel is replaced
                raise KernelGarbled.from_error(exc) from None
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                if clock["interrupted"]:
                    raise KernelStuck(f"no answer within {self.timeout:.0f} s")
                return reply

    @staticmethod
    async def _drain_iopub(kc) -> None:
        """Drop what the judged call published (status messages, anything the student's code displayed)."""
        from jupyter_client.utils import ensure_async
        for _ in range(10_000):
            try:
                await ensure_async(kc.get_iopub_msg(timeout=0))
            except queue.Empty:  # drained
                return
            except Exception as exc:  # noqa: BLE001 - a message that cannot be read: this kernel is replaced
                raise KernelGarbled.from_error(exc) from None
