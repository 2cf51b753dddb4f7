"""The package's layout, as CONTRIBUTING.md draws it ("Layout: which module may import which").

Every import of ``helpers`` code is read from the sources (``import`` and ``from ... import`` anywhere in a
module, inside functions too, relative or absolute), and:

* no two modules import each other, directly or through others (no circle);
* the science library (``helpers/*.py`` but the faces) imports nothing but the science library: not the
  grader (``helpers/grading/``), not the website, not the command line; the notebooks' checks
  (``helpers.checks``) import nothing of the package at all;
* the grader imports the science library and itself, never a face; outside the grader only the command
  line imports it, and only its commands (``helpers.grading.cli``);
* every module sits on a floor of :data:`FLOORS` and imports only from lower floors.

The checker is tried on a small planted package first, so that it is shown to find a circle, a science
module that imports the grader and an import that runs up a floor.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# bottom to top; a module may import only modules on lower floors (CONTRIBUTING.md draws the same)
FLOORS = {
    "science": [
        ["sourcecode"],
        ["statistics", "embeddings", "wordsets", "plots", "checks"],
        ["weat", "wefat", "lexicon", "enumeration", "corpus"],
        ["replication"],
    ],
    "grading": [
        ["grading.warm", "grading.warm_template", "grading.engines", "grading.judge.wire",
         "grading.judge.executor"],
        ["grading.flags", "grading.state", "grading.plugins", "grading.sandbox", "grading.judge.runtime",
         "grading.judge.errors", "grading.bundle", "grading.cluster", "grading.feedback_page"],
        ["grading.scan"],
        ["grading.rendering", "grading.submission", "grading.judge.codec", "grading.judge.channel",
         "grading.judge.rules", "grading.judge.stripped"],
        ["grading.judge.api"],
        ["grading.judge.notebook"],
        ["grading.execute"],
        ["grading.course"],
        ["grading.grade", "grading.canary", "grading.feedback"],
        ["grading.exports"],
        ["grading.run"],
        ["grading.cli"],
    ],
    "faces": [["site"], ["cli"], ["__main__"]],
    "shared": [["mathjax"]],   # neither science nor a face: what the site and the grader's feedback page share
}
PACKAGES = {"", "grading"}  # __init__ modules: docstrings and the version only, they import nothing
#: packages whose ``__init__`` re-exports the names of their own modules, for code outside ``helpers`` (the
#: hidden tests' ``from helpers.grading.judge import checks``); it imports nothing else, and nothing in
#: ``helpers`` imports it (a module imports the module that defines a name, so the layout sees the real edge)
RE_EXPORTING = {"grading.judge"}


def module_names(root: Path) -> dict[str, Path]:
    """``{dotted name without "helpers.": path}`` of every module of ``root/helpers`` (``""`` is the package)."""
    out = {}
    for path in sorted((root / "helpers").rglob("*.py")):
        parts = path.relative_to(root / "helpers").with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    """``{module: modules of helpers it imports}``, names as :func:`module_names` gives them."""
    mods = module_names(root)
    graph = {}
    for name, path in mods.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        package = [p for p in package if p]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name == "helpers" or a.name.startswith("helpers.")]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                    module = ".".join(["helpers", *base, *([node.module] if node.module else [])])
                else:
                    module = node.module or ""
                if module == "helpers" or module.startswith("helpers."):
                    targets = [f"{module}.{a.name}" for a in node.names] or [module]
                    targets = [t if t.removeprefix("helpers.") in mods else module for t in targets]
            for t in targets:
                short = "" if t == "helpers" else t.removeprefix("helpers.")
                if short in mods and short != name:
                    found.add(short)
        graph[name] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def violations(graph: dict[str, set[str]], floors: dict = FLOORS) -> list[str]:
    """Every import against the layout, one line each; [] when the package keeps it."""
    where = {m: (part, k) for part, levels in floors.items() for k, level in enumerate(levels) for m in level}
    problems = [f"circle: {' <-> '.join(c)}" for c in circles(graph)]
    for m in sorted(graph):
        if m in PACKAGES:
            problems += [f"helpers.{m or '__init__'} imports {t} (a package's __init__ imports nothing)"
                         for t in sorted(graph[m])]
            continue
        if m in RE_EXPORTING:
            problems += [f"helpers.{m} imports helpers.{t} (a re-exporting package imports only its own modules)"
                         for t in sorted(graph[m]) if not t.startswith(m + ".")]
            continue
        problems += [f"helpers.{m} imports the package helpers.{t} (import the module that defines the name)"
                     for t in sorted(graph[m] & RE_EXPORTING)]
        if m not in where:
            problems.append(f"helpers.{m} is on no floor of the layout (add it to FLOORS and CONTRIBUTING.md)")
            continue
        part, k = where[m]
        for t in sorted(graph[m]):
            if t in PACKAGES or t in RE_EXPORTING:
                continue
            if t not in where:
                continue  # reported as a module on no floor
            tpart, tk = where[t]
            if part == "science" and tpart != "science":
                problems.append(f"science module helpers.{m} imports helpers.{t} (the library never imports the "
                                f"{'grader' if tpart == 'grading' else 'faces'})")
            elif m == "checks" and t and t != "sourcecode":
                problems.append(f"helpers.checks imports helpers.{t} (the notebooks' checks read code with "
                                "helpers.sourcecode and import nothing else of the package)")
            elif part == "shared" and t:
                problems.append(f"helpers.{m} imports helpers.{t} (a shared module imports nothing of the package)")
            elif part == "grading" and tpart == "faces":
                problems.append(f"grader module helpers.{m} imports the face helpers.{t}")
            elif part != "grading" and tpart == "grading" and not (m == "cli" and t == "grading.cli"):
                problems.append(f"helpers.{m} imports the grader's helpers.{t} (only helpers.cli may, and only "
                                "helpers.grading.cli)")
            elif part == tpart and tk >= k:
                problems.append(f"helpers.{m} (floor {k + 1} of {part}) imports helpers.{t} (floor {tk + 1}): "
                                "imports run downwards only")
    return problems


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "helpers" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checker_finds_what_it_must(tmp_path):
    root = _write(tmp_path, {
        "__init__.py": "", "grading/__init__.py": "",
        "statistics.py": "def f():\n    from .grading import run\n",          # science -> grader, lazily
        "weat.py": "from . import statistics\n",
        "checks.py": "from helpers import statistics\n",                    # checks import the package
        "grading/run.py": "from .course import x\n",
        "grading/course.py": "def g():\n    from helpers.grading.run import y\n",   # a circle
        "grading/flags.py": "from ..site import z\n",                       # grader -> face
        "site.py": "", "cli.py": "from .grading import course\n",            # cli -> not grading.cli
        "grading/judge/__init__.py": "from .api import a\nfrom ..flags import b\n",   # re-exports, and more
        "grading/judge/api.py": "", "grading/execute.py": "from .judge import a\n",  # the package, not .api
    })
    graph = import_graph(root)
    assert graph["statistics"] == {"grading.run"} and graph["grading.flags"] == {"site"}
    found = "\n".join(violations(graph))
    for expected in ("circle: grading.course <-> grading.run", "science module helpers.statistics imports "
                     "helpers.grading.run", "helpers.checks imports helpers.statistics",
                     "grader module helpers.grading.flags imports the face helpers.site",
                     "helpers.cli imports the grader's helpers.grading.course",
                     "helpers.grading.course (floor 8 of grading) imports helpers.grading.run (floor 11)",
                     "helpers.grading.judge imports helpers.grading.flags (a re-exporting package imports only",
                     "helpers.grading.execute imports the package helpers.grading.judge (import the module"):
        assert expected in found, (expected, found)


def test_the_package_keeps_its_layout():
    graph = import_graph(ROOT)
    assert graph["cli"] >= {"replication", "site", "grading.cli"}, graph["cli"]  # the reader sees lazy imports
    assert "checks" in graph["grading.judge.api"]
    problems = violations(graph)
    assert not problems, "\n".join(problems)


def test_every_module_is_on_a_floor_and_named_in_contributing():
    mods = set(module_names(ROOT)) - PACKAGES - RE_EXPORTING
    placed = {m for levels in FLOORS.values() for level in levels for m in level}
    assert mods == placed, (sorted(mods - placed), sorted(placed - mods))
    text = (ROOT / "CONTRIBUTING.md").read_text()
    layout = text[text.index("## Layout"):]
    layout = layout[:layout.index("\n## ", 3)]
    missing = [m for m in sorted(placed) if m.removeprefix("grading.") not in layout]  # "judge.api", "cli"
    assert not missing, f"CONTRIBUTING.md's layout does not name {missing}"


def test_the_library_imports_without_the_grader():
    """Import every science module with nbgrader, traitlets, jupyter_client and the grader blocked: the
    students' wheel has none of them, so the library must not need them."""
    import subprocess
    import sys

    science = [m for level in FLOORS["science"] for m in level]
    code = ("import sys\nclass Block:\n    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('nbgrader', 'traitlets', 'jupyter_client', 'nbclient') or "
            "name.startswith('helpers.grading'):\n            raise ImportError('blocked: ' + name)\n"
            "sys.meta_path.insert(0, Block())\n" + "".join(f"import helpers.{m}\n" for m in science) + "print('ok')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]
