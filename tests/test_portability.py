"""Results and tests that do not depend on the machine or on where the course lives.

1. **Another BLAS kernel.** The stored outputs of ``executed/`` are checked against a fresh run once more, with
   OpenBLAS's Sandybridge kernel (``OPENBLAS_CORETYPE=Sandybridge``) instead of the processor's own. A
   processor with AVX2 gets Haswell's kernel or a newer one by default, which sums in another order, so a
   printed digit that depends on the kernel fails here, on the developer's machine, and not on a user's.
   ``tests/test_site.py`` checks the same outputs with the processor's own kernel.
2. **Any folder.** The course is copied (its files, without ``.git``: an unpacked archive) to a folder whose
   path has a space in it, and reached through a symbolic link; from there the warm kernels' test and the
   round trip of ``01_cosine`` run in the sandbox as in the checkout. A clone under ``/tmp`` is the same case:
   this copy lives under pytest's temporary folder.
3. **Debian's Python** (``COURSE_TEST_HUB_ENV``, the course environment that ``.ci/run`` builds from
   ``/usr/bin/python3`` for the hub): the science library's tests and the round trip of ``01_cosine`` run under
   it as well.

Needs nbval (1), bubblewrap (2; required when ``COURSE_TEST_SANDBOX_REQUIRED=1``) and the hub's environment
(3; required when ``COURSE_TEST_HUB_REQUIRED=1``).
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_tools as nbt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

#: the science library's tests, run under a second interpreter (Debian's Python); each runs in seconds
SCIENCE_TESTS = ["tests/test_statistics.py", "tests/test_weat.py", "tests/test_wefat.py", "tests/test_embeddings.py",
                 "tests/test_lexicon.py", "tests/test_checks.py"]


def _required(env: str, reason: str):
    if os.environ.get(env) == "1":
        pytest.fail(f"{env}=1 but {reason}")
    pytest.skip(reason)


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def test_stored_outputs_agree_under_a_second_blas_kernel(tmp_path):
    pytest.importorskip("nbval", reason="nbval is pinned in requirements.txt: pip install -r requirements.txt")
    if platform.machine() not in ("x86_64", "AMD64") or "avx2" not in _cpu_flags():
        # OpenBLAS's Sandybridge kernel is then this processor's own (or not an x86 kernel at all): test_site's
        # run is the only one that can be made here
        pytest.skip("an x86-64 processor with AVX2 is needed for a kernel other than its own (Sandybridge)")
    work = tmp_path / "executed"
    shutil.copytree(ROOT / "executed", work)
    failed, passed = nbt.run_nbval(work, tmp_path, dict(os.environ, OPENBLAS_CORETYPE="Sandybridge"))
    assert not failed, ("stored outputs differ under OpenBLAS's Sandybridge kernel: print fewer digits (12 "
                        "significant digits at most; a difference of two equal forms as round-off, see "
                        "executed/nbval_sanitize.cfg):\n" + "\n\n".join(f"{k}:\n{v[-1500:]}" for k, v in failed.items()))
    assert len(passed) > 100, f"too few cells checked: {len(passed)}"


def _course_files() -> list[Path]:
    """The course's own files, as a clone or an archive holds them (not the environment, outputs or caches)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [ROOT / n for n in out.decode().split("\0") if n and (ROOT / n).is_file()]
    except (OSError, subprocess.CalledProcessError):  # an unpacked archive itself: every file but the environment's
        skip = {".venv", ".git", "website", "website-class", "test-artifacts", "__pycache__", "autograded",
                "submitted", "feedback"}
        return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def test_the_course_works_from_a_folder_with_a_space_through_a_symlink_without_git(tmp_path):
    nbt.needs_bwrap()
    real = tmp_path / "a folder with spaces" / "weat course"
    for f in _course_files():
        (real / f.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, real / f.relative_to(ROOT))
    link = tmp_path / "course-link"
    link.symlink_to(real, target_is_directory=True)
    assert not (link / ".git").exists()
    # the copy's package, not the checkout's (the environment's editable install points at the checkout)
    env = dict(os.environ, PYTHONPATH=str(link))
    where = subprocess.run([sys.executable, "-c", "import helpers; print(helpers.__file__)"], cwd=link, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).resolve().is_relative_to(real.resolve()), where
    res = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
                          "--assignment", "01_cosine",
                          "tests/test_warm.py::test_kernels_are_forked_fresh_and_leave_nothing_behind",
                          "tests/test_notebooks.py::test_round_trip_solutions_get_full_marks"],
                         cwd=link, env=env, capture_output=True, text=True)
    assert res.returncode == 0 and re.search(r"^2 passed\b", res.stdout, re.M), res.stdout[-4000:] + res.stderr[-2000:]


def test_the_science_library_and_a_round_trip_under_debians_python(tmp_path):
    hub_env = os.environ.get("COURSE_TEST_HUB_ENV")
    if not hub_env:
        _required("COURSE_TEST_HUB_REQUIRED", "COURSE_TEST_HUB_ENV names no environment built from Debian's Python "
                  "(.ci/run builds one)")
    python = Path(hub_env) / "bin" / "python"
    probe = subprocess.run([str(python), "-c", "import sys, pytest; print(sys.version.split()[0])"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        _required("COURSE_TEST_HUB_REQUIRED", f"{python} cannot run pytest: {probe.stderr[-300:]}")
    if probe.stdout.strip() == platform.python_version():  # a whole run under Debian's Python shows more than this
        pytest.skip(f"this run is under Python {platform.python_version()} already, the hub environment's")
    res = subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=--doctest-modules",
                          "-q", *SCIENCE_TESTS, "helpers/statistics.py", "helpers/weat.py"],
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    print(f"\nDebian's Python {probe.stdout.strip()}: {res.stdout.strip().splitlines()[-1]}")
    # and one notebook's round trip: released, submitted by three students, autograded in the sandbox
    trip = subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
                           "--assignment", "01_cosine", "tests/test_notebooks.py::test_round_trip_solutions_get_full_marks"],
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True)
    assert trip.returncode == 0 and re.search(r"^1 passed\b", trip.stdout, re.M), trip.stdout[-4000:] + trip.stderr[-2000:]
