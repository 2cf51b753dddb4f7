"""A notebook kernel that can fork: the test-side engine of :mod:`mutant_harness` (never used for grading).

Run as ``python forkserver.py FD``: FD is one end of a socket pair, wrapped in a
:class:`multiprocessing.connection.Connection`. The process holds one IPython shell (the shell ipykernel
wraps, with its magics, display formatter and ``user_expressions``) and answers requests, one at a time:

``("run", source)``
    Run a notebook cell; answer ``("ran", error)`` with ``error = None`` or ``(ename, evalue)``.
``("execute", code, user_expressions)``
    What a kernel client's ``execute(code, silent=True, user_expressions=...)`` does; answer
    ``("reply", content)`` with the fields of an execute reply the course's judge reads.
``("fork",)``
    Fork. The child answers ``("forked", pid)`` and serves the following requests with a copy of
    everything the cells defined so far; the parent waits until the child has exited (``("exit",)``, or
    killed by the harness), then answers ``("resumed", status)`` and serves again, its state untouched.
``("exit",)``
    Leave at once.

Forking replaces what costs most in a notebook run (starting a kernel, importing SciPy, gensim and
matplotlib, loading the embedding, running the cells before the one a mutant changes) by a copy-on-write
copy, so every mutant starts from exactly the state a fresh run would have reached at its first change.
"""
from __future__ import annotations

import gc
import os
import sys
from multiprocessing.connection import Connection


def _error(result) -> tuple[str, str] | None:
    exc = result.error_before_exec or result.error_in_exec
    return None if exc is None else (type(exc).__name__, str(exc)[:2000])


def main() -> None:
    conn = Connection(int(sys.argv[1]))
    from IPython.core.interactiveshell import InteractiveShell

    class Shell(InteractiveShell):
        def enable_gui(self, gui=None):  # `%matplotlib inline`: no event loop to hook, as in a kernel
            pass

    shell = Shell.instance()
    shell.showtraceback = lambda *a, **k: None  # errors are answered, not printed
    shell.showsyntaxerror = lambda *a, **k: None
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            os._exit(0)
        op = msg[0]
        if op == "run":
            conn.send(("ran", _error(shell.run_cell(msg[1], store_history=True))))
        elif op == "execute":
            result = shell.run_cell(msg[1], silent=True, store_history=False)
            error = _error(result)
            content = {"status": "ok" if error is None else "error",
                       "user_expressions": shell.user_expressions(msg[2])}
            if error:
                content["ename"], content["evalue"] = error
            conn.send(("reply", content))
        elif op == "fork":
            sys.stdout.flush()
            sys.stderr.flush()
            # the copy's collector never scans what exists now, so it neither spends time on it nor copies its
            # pages by touching their headers; this process collects them again once the copy has ended
            gc.freeze()
            pid = os.fork()
            if pid == 0:
                conn.send(("forked", os.getpid()))
                continue
            _, status = os.waitpid(pid, 0)
            gc.unfreeze()
            conn.send(("resumed", status))
        elif op == "exit":
            os._exit(0)
        else:
            conn.send(("unknown", op))


if __name__ == "__main__":
    main()
