"""End-to-end test in a real browser: JupyterLab runs a correct 01_cosine submission, formgrader lists the course.

What a student and an instructor would see, checked in headless Debian Chromium driven by Playwright:

1. JupyterLab is started from a temporary copy of the course root, on 127.0.0.1 and a free port, with a
   token chosen here, no browser, and nothing that reaches the network (no news feed, no update check,
   read-only extension manager). The server and its kernels run with ``nbgrader_tools.offline_env``
   (connections off loopback refused and logged); the browser's requests off loopback are refused and
   recorded. Both lists must be empty at the end.
2. The released notebook ``notebooks/01_cosine/01_cosine.ipynb`` with the solutions of
   ``solutions/01_cosine`` filled in (a correct submission) is opened, Run > Run All Cells is clicked,
   and the test waits until every code cell has run and the kernel is idle. No cell may show an error
   (a traceback), text output must be there, and at least one figure (an ``<img>`` in an output area)
   must have rendered. The saved notebook is also read back through the contents API: no ``error``
   output.
3. The nbgrader formgrader page (``/formgrader``) must list every assignment in ``solutions/``.

Screenshots go to ``test-artifacts/browser/`` (gitignored), with the server's log. About 30-60 s here;
every wait is bounded (server 60 s, kernel 60 s, Run All 90 s, each page element 30 s).

Needs Debian's Chromium (``apt-get install -y chromium``) and Playwright for Python (in
requirements.txt). Playwright's own browser download (``playwright install``) is never used.
``COURSE_TEST_CHROMIUM`` points at another Chromium binary (a missing path skips the test).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "01_cosine"
ARTIFACTS = ROOT / "test-artifacts" / "browser"
SERVER_START_TIMEOUT = 60      # s: JupyterLab answering /api/status
RUN_ALL_TIMEOUT = 90           # s: Run All Cells until every code cell has run and the kernel is idle
UI_TIMEOUT_MS = 30_000         # ms: one page element to appear

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_tools as tools  # noqa: E402  (shared helpers of the nbgrader tests)
from browser_tools import chromium, require_browser  # noqa: E402

# --------------------------------------------------------------------------- what is needed, or skip

def _require_notebooks():
    release = ROOT / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    source = ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    missing = [str(p.relative_to(ROOT)) for p in (release, source) if not p.is_file()]
    if missing:
        pytest.skip(f"the browser test needs {', '.join(missing)}")
    return release, source


# --------------------------------------------------------------------------- JupyterLab server

def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get_json(url: str, token: str, timeout: float = 5):
    req = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=timeout) as r:  # loopback only
        return json.loads(r.read().decode())


class LabServer:
    def __init__(self, url: str, token: str, course: Path, proc: subprocess.Popen, log: Path):
        self.url, self.token, self.course, self.proc, self.log = url, token, course, proc, log

    def api(self, path: str):
        return _get_json(f"{self.url}{path}", self.token)

    def log_tail(self, n: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return ""


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A temporary copy of the course root holding a correct submission in place of the release."""
    require_browser()
    release, source = _require_notebooks()
    course = tmp_path_factory.mktemp("course")
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    shutil.copytree(ROOT / "solutions", course / "solutions", ignore=ignore)
    shutil.copytree(ROOT / "notebooks", course / "notebooks", ignore=ignore)
    # the course's config, plus an exchange folder of its own (formgrader would try /usr/local/share)
    (course / "exchange").mkdir()
    (course / "nbgrader_config.py").write_text(
        (ROOT / "nbgrader_config.py").read_text()
        + f"\n# added by tests/test_browser.py\nc.Exchange.root = {str(course / 'exchange')!r}\n")
    tools.write_nb(tools.fill_solutions(tools.read_nb(release), tools.read_nb(source)),
                   course / "notebooks" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    return course


@pytest.fixture(scope="module")
def lab(course, tmp_path_factory):
    """JupyterLab on 127.0.0.1:<free port>, token set here, cut off from the network; always shut down."""
    home = tmp_path_factory.mktemp("jupyter-home")
    config_dir, settings_dir = home / "config", home / "lab-settings"
    for d in (config_dir, settings_dir / "@jupyterlab" / "apputils-extension",
              settings_dir / "@jupyterlab" / "notebook-extension"):
        d.mkdir(parents=True)
    # no announcements, no update check, no extension manager talking to PyPI
    (config_dir / "jupyter_server_config.json").write_text(json.dumps({
        "LabApp": {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
                   "extension_manager": "readonly"},
        "ServerApp": {"open_browser": False}}))
    (settings_dir / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    # every cell in the DOM (no virtual scrolling), so every output can be inspected
    (settings_dir / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none", "autoStartDefaultKernel": True}))

    port, token = _free_port(), secrets.token_hex(24)
    # the venv's bin first on PATH, and a sitecustomize that refuses (and logs) any non-local
    # connection, in the server and in its kernels
    with tools.offline_env(home) as network_log:
        env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # as for a student: the notebook's %matplotlib inline decides
    env.update({
        "JUPYTER_CONFIG_DIR": str(config_dir), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings_dir), "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "IPYTHONDIR": str(home / "ipython"), "MPLCONFIGDIR": str(home / "mpl"),
        "JUPYTER_PLATFORM_DIRS": "1", "PYTHONUNBUFFERED": "1",
    })
    env.pop("JUPYTER_TOKEN", None)
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    log = ARTIFACTS / "jupyterlab.log"
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.open_browser=False",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={course}",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--LabApp.extension_manager=readonly"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--ServerApp.allow_root=True")  # CI runs as root
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=course, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    server = LabServer(f"http://127.0.0.1:{port}", token, course, proc, log)
    server.network_log = network_log
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited with {proc.returncode}:\n{server.log_tail()}")
            try:
                server.api("/api/status")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer within {SERVER_START_TIMEOUT} s:\n{server.log_tail()}")
                time.sleep(0.5)
        yield server
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM (the server shuts its kernels down cleanly), then SIGKILL whatever is left of its session."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # anything left in its session (kernels)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


# --------------------------------------------------------------------------- browser

@pytest.fixture(scope="module")
def browser_context(tmp_path_factory):
    """Headless Debian Chromium with a fresh profile, driven by Playwright; always closed."""
    require_browser()
    with chromium(tmp_path_factory.mktemp("chromium-profile"), viewport={"width": 1400, "height": 1000}) as context:
        context.set_default_timeout(UI_TIMEOUT_MS)
        context.external_requests = []

        def _loopback_only(route):
            url = route.request.url
            if re.match(r"^(https?|wss?)://(127\.0\.0\.1|localhost)(:\d+)?/", url) or not re.match(r"^\w+://", url):
                route.continue_()
            else:  # the page must not reach the network: refuse and remember
                context.external_requests.append(url)
                route.abort()

        context.route("**/*", _loopback_only)
        yield context


def _shot(page, name: str, **kw) -> Path:
    path = ARTIFACTS / name
    page.screenshot(path=str(path), **kw)
    return path


def _wait_kernel_ready(page, lab: LabServer, timeout: float = 60) -> None:
    """Until the notebook's kernel runs and is idle. If JupyterLab asks which kernel to start (it may,
    while the kernel specs load), the preferred one is taken, as a person would."""
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if dialog.count() and dialog.first.is_visible():
            dialog.locator("button.jp-mod-accept").click()
        status = page.evaluate(
            "() => { const e = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');"
            " return e ? e.getAttribute('data-status') : null; }")
        if status == "idle" and [k for k in lab.api("/api/kernels") if k["execution_state"] == "idle"]:
            return
        page.wait_for_timeout(500)  # not time.sleep: Playwright handles routed requests only inside its calls
    _shot(page, "00_no_kernel.png")
    pytest.fail(f"no idle kernel for the notebook within {timeout:.0f} s:\n{lab.log_tail()}")


def _prompts(page) -> list[str]:
    return page.eval_on_selector_all(".jp-Notebook .jp-CodeCell .jp-InputArea-prompt",
                                     "els => els.map(e => e.textContent.trim())")


def _wait_all_run(page, lab: LabServer, n_code: int) -> list[str]:
    """Wait until every code cell shows an execution count and the kernel is idle, or until the run
    stopped early (Run All stops at a cell that raises: kernel idle, nothing queued, no change for 3 s).
    Returns the cells' prompts."""
    deadline = time.monotonic() + RUN_ALL_TIMEOUT
    state, last, since = None, None, time.monotonic()
    while time.monotonic() < deadline:
        prompts = _prompts(page)
        state = [k["execution_state"] for k in lab.api("/api/kernels")]
        idle = bool(state) and all(s == "idle" for s in state)
        if prompts != last:
            last, since = prompts, time.monotonic()
        if idle and len(prompts) == n_code and all(re.fullmatch(r"\[\d+\]:", p) for p in prompts):
            return prompts
        if idle and "[*]:" not in prompts and any(re.fullmatch(r"\[\d+\]:", p) for p in prompts) \
                and time.monotonic() - since > 3:
            return prompts  # stopped early: the checks below say why
        page.wait_for_timeout(500)
    _shot(page, "01_timeout.png")
    pytest.fail(f"Run All Cells did not finish in {RUN_ALL_TIMEOUT} s: prompts {last}, kernels {state}")


def test_run_all_cells_and_formgrader(lab, browser_context):
    import nbformat

    page = browser_context.new_page()
    nb_path = f"notebooks/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
    n_code = sum(c.cell_type == "code" for c in nbformat.read(lab.course / nb_path, as_version=4).cells)

    # ---- JupyterLab: open the notebook, wait for the kernel
    page.goto(f"{lab.url}/lab/tree/{nb_path}?token={lab.token}", wait_until="domcontentloaded")
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for()
    _wait_kernel_ready(page, lab)
    _shot(page, "00_opened.png")
    # untouched, it is not marked modified once the kernel is ready: JupyterLab writes the kernel's language_info
    # into the metadata, and the release carries the same (tests/test_release_metadata.py); a kernel of another
    # Python patch release than the release records still rewrites its version
    recorded = nbformat.read(lab.course / nb_path, as_version=4).metadata.language_info.get("version")
    if recorded == sys.version.split()[0]:
        page.wait_for_timeout(1000)
        assert not page.locator(".lm-TabBar-tab.jp-mod-dirty").count(), "the untouched notebook shows as modified"

    # ---- Run > Run All Cells, as a person would
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel",
                 has_text=re.compile(r"^Run All Cells$")).click()
    prompts = _wait_all_run(page, lab, n_code)
    # the notebook's own kernel indicator agrees (it lags the kernel's status a little)
    page.wait_for_function(
        "() => document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator')"
        ".getAttribute('data-status') === 'idle'", timeout=15_000)

    # ---- what the notebook shows
    outputs = page.locator(".jp-Notebook .jp-OutputArea-output")
    stderr = page.locator('.jp-Notebook .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
    # an error output is rendered as stderr: a traceback, or "SomeError: ..." (a SyntaxError has no traceback)
    errors = [t for t in stderr.all_inner_texts()
              if re.search(r"Traceback|^\s*\w*(Error|Exception|Interrupt)\b", t, re.MULTILINE)]
    _shot(page, "02_after_run_all.png")
    assert not errors, "a cell shows an error:\n" + "\n---\n".join(e[:1500] for e in errors)
    not_run = [k for k, p in enumerate(prompts) if not re.fullmatch(r"\[\d+\]:", p)]
    assert not not_run, f"code cells {not_run} did not run (prompts {prompts})"

    texts = page.locator('.jp-Notebook .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"],'
                         ' .jp-Notebook .jp-OutputArea-output[data-mime-type="text/plain"]').all_inner_texts()
    assert any(t.strip() for t in texts), f"no text output rendered ({outputs.count()} outputs in all)"
    test_cell = (page.locator(".jp-Notebook .jp-CodeCell")
                 .filter(has=page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]'))
                 .filter(has_text="check_"))
    if test_cell.count():  # a graded test cell and the sentence it prints
        test_cell.first.scroll_into_view_if_needed()
        test_cell.first.screenshot(path=str(ARTIFACTS / "02_test_cell.png"))

    images = page.locator(".jp-Notebook .jp-OutputArea-output img")
    assert images.count() >= 1, "no figure (<img> in an output area) rendered"
    first = images.first
    first.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=first.element_handle())
    _shot(page, "03_figure.png")
    first.locator("xpath=ancestor::*[contains(concat(' ', @class, ' '), ' jp-CodeCell ')][1]").screenshot(
        path=str(ARTIFACTS / "03_figure_cell.png"))  # the cell: its code and the figure

    # ---- the saved notebook agrees: no error output in any cell (File > Save)
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^File$")).click()
    page.locator(".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel",
                 has_text=re.compile(r"^Save Notebook$")).click()
    # read the file only once the save has finished (the tab is no longer marked unsaved): a read while
    # jupyter_server writes the notebook can find its backup copy and move it back, which fails both the save
    # and the read (a 404 and a 500 in CI run 20)
    page.wait_for_function("() => !document.querySelector('.lm-TabBar-tab.jp-mod-dirty')", timeout=15_000)
    deadline = time.monotonic() + 15
    while True:
        saved = lab.api(f"/api/contents/{nb_path}?content=1")["content"]
        counts = [c.get("execution_count") for c in saved["cells"] if c["cell_type"] == "code"]
        if all(counts) or time.monotonic() > deadline:
            break
        page.wait_for_timeout(500)
    assert all(counts), f"the saved notebook has cells that did not run: {counts}"
    saved_errors = [f"{o.get('ename')}: {o.get('evalue')}" for c in saved["cells"] if c["cell_type"] == "code"
                    for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not saved_errors, f"error outputs in the saved notebook: {saved_errors}"

    # ---- nbgrader formgrader: every assignment of solutions/ is listed
    expected = tools.discover_assignments(lab.course)
    page.goto(f"{lab.url}/formgrader?token={lab.token}", wait_until="domcontentloaded")
    rows = page.locator("#main-table tbody tr, table tbody tr")
    for name in expected:
        page.get_by_text(name, exact=True).first.wait_for()
    listed = {t.strip() for t in page.locator("table td, table a").all_inner_texts()}
    _shot(page, "04_formgrader.png", full_page=True)
    missing = [a for a in expected if a not in listed]
    assert not missing, f"formgrader does not list {missing}; rows: {rows.all_inner_texts()}"
    page.close()

    # ---- nothing in the browser, the server or the kernel tried to reach the network
    assert not browser_context.external_requests, (
        f"the pages requested non-local addresses (refused): {browser_context.external_requests}")
    attempts = lab.network_log.read_text().strip()
    assert not attempts, f"connections to non-local addresses were attempted (and refused):\n{attempts}"
