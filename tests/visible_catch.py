"""How many of the known-wrong answers the visible checks catch: ``python tests/visible_catch.py [NN_x ...] [-v]``.

For every mutant of ``tests/mutants/<assignment>.py`` (the wrong answers each exercise must lose points
for) this runs the worked solution's code cells in one Python process, up to the mutant's cell; there it
forks, the copy runs the mutant's version of the cell (built as the mutant harness builds it,
:func:`nbgrader_tools.apply_mutant`) and then the cells up to the exercise's own visible test cell
(``<cell>_tests``). The mutant counts as **caught** when that test cell raises: what a student sees on
running it, before any hidden test. Validate runs the same cells.

What this leaves out (a measurement, not a grade): the kernel (IPython magics are skipped: ``%matplotlib``
only draws), the sandbox, and whether the message points at the mistake (``-v`` prints every message, to
read). Prints a Markdown table (the one in BENCHMARKS.md, "Visible checks against the mutant library").
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import select
import sys
import time
import traceback
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import nbgrader_tools as nbt  # noqa: E402  (tests/ on the path first)

#: The seed of the global random states in each mutant's copy (:func:`_seed_global_randomness`).
GLOBAL_SEED = 0

#: Seconds one mutant's copy may take (its cell and the cells up to its test cell) before it counts as a hang.
TIMEOUT = 300


def _code(source: str) -> str:
    """The cell as plain Python: IPython magics and shell lines become ``pass``."""
    return "\n".join("pass" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def _run(source: str, ns: dict, index: int) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(_code(source), f"<cell {index}>", "exec"), ns)


def _own_tests(nb, mutant) -> list[str]:
    """The exercise's own test cells: those of ``fails`` named after the mutant's cell (``<cell>_tests``, and
    ``<cell>_vectorised_tests`` where an exercise has two; a ``_solution`` suffix of the cell left out), else
    (a mutant that only costs another exercise's points, through a rule that follows calls) all of ``fails``."""
    ids = {nbt.grade_id(c) for c in nb.cells}
    base = mutant["cell"].removesuffix("_solution")
    own = [g for g in mutant["fails"] if g.startswith(f"{base}_") and g in ids]
    return own or [g for g in mutant["fails"] if g in ids]


def measure(assignment: str) -> list[dict]:
    """``[{"name", "cell", "test", "caught", "message"}]`` for every mutant of ``assignment``."""
    folder = ROOT / "solutions" / assignment
    nb = nbformat.read(folder / f"{assignment}.ipynb", as_version=4)
    mutants = runpy.run_path(str(ROOT / "tests" / "mutants" / f"{assignment}.py"))["MUTANTS"]
    index = {nbt.grade_id(c): i for i, c in enumerate(nb.cells) if nbt.grade_id(c)}
    at: dict[int, list] = {}
    for m in mutants:
        cell = nbt.apply_mutant({assignment: nb}, m)[assignment].cells[index[m["cell"]]]
        own = _own_tests(nb, m)
        at.setdefault(index[m["cell"]], []).append((m, cell.source, [index[g] for g in own], own))
    stop = max(max(t) for cases in at.values() for _, _, t, _ in cases)
    old = os.getcwd()
    os.chdir(folder)
    ns: dict = {"__name__": "__main__"}
    results = []
    try:
        for i, cell in enumerate(nb.cells[:stop + 1]):
            if cell.cell_type != "code":
                continue
            for m, source, tests, test_ids in at.get(i, []):
                results.append(_fork(nb, ns, i, source, tests) | {"name": m["name"], "cell": m["cell"], "tests": test_ids})
            _run(cell.source, ns, i)
    finally:
        os.chdir(old)
    return results


def _seed_global_randomness() -> None:
    """Give Python's and NumPy's global random states a fixed seed in each copy. They start from the operating
    system's entropy, so a mutant that draws from them (instead of the ``rng`` it is given) could pass a visible
    check by a chance coincidence of its draws in one run and not in the next: the count would vary between runs."""
    import random

    random.seed(GLOBAL_SEED)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(GLOBAL_SEED)


def _fork(nb, ns, i, source, tests) -> dict:
    """Run the mutant's ``source`` in place of cell ``i`` and the cells up to the last of ``tests`` in a forked
    copy: caught when its own cell or one of ``tests`` raises (an error in another cell is not a visible check)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the copy: report, never return
        os.close(r)
        _seed_global_randomness()
        out = {"caught": False, "message": ""}
        for j in range(i, max(tests) + 1):
            if nb.cells[j].cell_type != "code":
                continue
            try:
                _run(source if j == i else nb.cells[j].source, ns, j)
            except BaseException as exc:  # noqa: BLE001  (any error in the test cell is what the student sees)
                if j == i or j in tests:
                    out = {"caught": True, "message": "".join(traceback.format_exception_only(type(exc), exc)).strip()}
                    break
        with os.fdopen(w, "w") as f:
            f.write(json.dumps(out))
        os._exit(0)
    os.close(w)
    ready, _, _ = select.select([r], [], [], TIMEOUT)
    if not ready:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(r)
        return {"caught": True, "message": f"no result within {TIMEOUT} s (a hang: the student notices)"}
    with os.fdopen(r) as f:
        text = f.read()
    os.waitpid(pid, 0)
    return json.loads(text) if text else {"caught": True, "message": "the copy died"}


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    wanted = [a for a in argv if not a.startswith("-")] or sorted(p.name for p in (ROOT / "solutions").iterdir()
                                                                   if (ROOT / "tests" / "mutants" / f"{p.name}.py").exists())
    os.environ.setdefault("MPLBACKEND", "Agg")
    rows, total, caught = [], 0, 0
    for a in wanted:
        t0 = time.perf_counter()
        res = measure(a)
        n, c = len(res), sum(r["caught"] for r in res)
        total, caught = total + n, caught + c
        rows.append(f"| {a} | {n} | {c} | {100 * c / n:.0f}% |")
        print(f"{a}: {c}/{n} caught ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        if verbose:
            for r in res:
                print(f"  [{'caught' if r['caught'] else 'MISSED'}] {r['cell']}: {r['name']}"
                      + (f"\n      {r['message'][:300]}" if r["caught"] else ""), file=sys.stderr)
    print("| assignment | mutants | caught by the visible test cell | share |")
    print("|---|---:|---:|---:|")
    print("\n".join(rows))
    print(f"| all | {total} | {caught} | {100 * caught / max(total, 1):.0f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
