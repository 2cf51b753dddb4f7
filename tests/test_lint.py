"""The code is linted: pyflakes' checks (undefined names, unused imports and variables, ...) and syntax
errors, through ruff (pinned in requirements.txt; settings in pyproject.toml), over the library, the
grader, the hidden tests, the tests, the benchmarks, the scripts and the hub's configuration (deploy/)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ["helpers", "hidden_tests", "tests", "benchmarks", "scripts", "deploy"]


def _ruff(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *args], cwd=cwd,
                          capture_output=True, text=True)


def test_the_code_is_lint_free():
    pytest.importorskip("ruff", reason="ruff is pinned in requirements.txt: pip install -r requirements.txt")
    res = _ruff(*FOLDERS)
    assert res.returncode == 0, res.stdout[-5000:] + res.stderr[-2000:]


def test_the_linter_finds_an_unused_import_and_an_undefined_name(tmp_path):
    pytest.importorskip("ruff", reason="ruff is pinned in requirements.txt: pip install -r requirements.txt")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "bad.py").write_text("import os\n\n\ndef f():\n    return undefined_name\n")
    out = _ruff("bad.py", cwd=tmp_path).stdout
    assert "F401" in out and "F821" in out, out
