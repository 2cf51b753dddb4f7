"""The student's JupyterLab, set up from the bundle, in a real browser: Validate, and none of the instructor's tools.

The bundle (``python -m helpers bundle``, helpers/grading/bundle.py) is built once, and its two wheels (the
course package and ``weat-course-student-settings``) are installed into fresh virtual environments
the way a student's ``pip install -r requirements.txt`` installs them: ``--no-deps --no-index``, the
other packages seen through a ``.pth`` file pointing at this environment's site-packages, and the
Jupyter files pip puts in an environment with JupyterLab and nbgrader (``etc/jupyter/``, copied from
this environment; ``share/jupyter/``, linked). Every server runs that environment's Python from the
bundle's folder, with an empty user configuration (``JUPYTER_CONFIG_DIR``, lab settings, data
folder), on 127.0.0.1 with a token, its kernels cut off from the network (``nbgrader_tools.offline_env``).

1. **A student with the bundle** (``test_bundle_student_sees_validate_only``), in headless Debian
   Chromium: no *Nbgrader* menu, no nbgrader command in the command palette (no Formgrader, Course
   List, Assignment List or Create Assignment), no *Create Assignment* side bar, no "Jupyter news"
   pop-up; the notebook toolbar has **Validate**, and clicking it on the released notebook reports
   the cells that fail. The server answers 404 at ``/formgrader`` (its server extension is off).
2. **A student on the hub** (``test_hub_student_gets_the_assignment_list``): the same environment
   after the one command docs/SYSADMIN.md gives the hub's administrator (``jupyter labextension
   enable --level=sys_prefix @jupyter/nbgrader:menu @jupyter/nbgrader:assignment-list``). The
   *Nbgrader* menu and the palette then hold exactly *Assignment List*; still no formgrader, course
   list, create-assignment side bar or news pop-up; Validate is there.
3. **The hub's grading account** (``test_grading_account_gets_the_formgrader_back``): the user-level
   file and command of docs/SYSADMIN.md, run as a user who does not own the environment
   (``JUPYTER_PREFER_ENV_PATH=0``: jupyter_core then reads the user's configuration first, as it does
   for every hub user in ``/opt/weat-course``), give that account ``/formgrader`` and the lab's
   formgrader plugin, while the students' settings stay in the environment.

Screenshots go to ``test-artifacts/student-lab/``. Needs Debian's Chromium and Playwright for Python
(tests/test_browser.py says how); skipped with the reason unless ``COURSE_TEST_BROWSER_REQUIRED=1``,
then it fails. About 4-5 minutes on a loaded 2-core machine (a bundle build, four servers, one validation).

The negative checks were shown to catch what they look for: with the announcements plugin enabled the
news question is found as a toast ("Would you like to get notified about official Jupyter news?"), and
with create-assignment, formgrader and the menu enabled the side bar lists "Nbgrader Create Assignment"
and the menu "Formgrader" and "Create assignment" (the hub test's menu check is the running control).
"""
from __future__ import annotations

import html
import json
import os
import re
import secrets
import shutil
import site
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_tools as tools  # noqa: E402
from browser_tools import chromium, require_browser  # noqa: E402
from test_browser import SERVER_START_TIMEOUT, UI_TIMEOUT_MS, _free_port, _stop  # noqa: E402

ROOT = tools.COURSE_ROOT
ARTIFACTS = ROOT / "test-artifacts" / "student-lab"
NOTEBOOK = "notebooks/01_cosine/01_cosine.ipynb"
VALIDATE_TIMEOUT_MS = 180_000   # the Validate button runs the whole released notebook in a kernel
# the commands of nbgrader's lab plugins (nbgrader 0.9, @jupyter/nbgrader)
NBGRADER_COMMANDS = {"nbgrader:open-assignment-list": "Assignment List", "nbgrader:open-course-list": "Course List",
                     "nbgrader:open-formgrader": "Formgrader", "nbgrader:open-create-assignment": "Create assignment"}
# docs/SYSADMIN.md's commands (test_sysadmin_gives_these_commands checks that it does)
HUB_COMMAND = ["enable", "--level=sys_prefix", "@jupyter/nbgrader:menu", "@jupyter/nbgrader:assignment-list"]
GRADER_SERVER_FILE = "jupyter_server_config.d/weat-course-grader.json"
GRADER_SERVER_JSON = '{"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": true}}}'
GRADER_LAB_COMMAND = ["enable", "--level=user", "@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"]


# --------------------------------------------------------------------------- the bundle and a student's environment

@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    require_browser()
    out = tmp_path_factory.mktemp("bundle") / "weat-course"
    res = subprocess.run([sys.executable, "-m", "helpers", "bundle", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    if res.returncode != 0 and "pip" in res.stderr and ("index" in res.stderr.lower() or "connection" in res.stderr.lower()):
        pytest.skip(f"the wheel could not be built (no package index for setuptools?): {res.stderr[-500:]}")
    assert res.returncode == 0, res.stderr[-3000:]
    return out


def student_environment(bundle: Path, where: Path) -> Path:
    """A fresh virtual environment with the bundle's wheels, as ``pip install -r requirements.txt``
    leaves it (see the module docstring); returns its folder."""
    env_dir = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=300)
    py = env_dir / "bin" / "python"
    purelib = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (purelib / "course_dependencies.pth").write_text("\n".join(ours) + "\n")
    # the Jupyter files pip installs with jupyterlab, notebook and nbgrader (nbgrader.json turns its
    # server extensions on); share/jupyter (labextensions, kernels, JupyterLab's own app) is only read
    prefix = Path(sysconfig.get_paths()["data"])
    shutil.copytree(prefix / "etc" / "jupyter", env_dir / "etc" / "jupyter")
    (env_dir / "share").mkdir(exist_ok=True)
    (env_dir / "share" / "jupyter").symlink_to(prefix / "share" / "jupyter")
    wheels = sorted(bundle.glob("*.whl"))
    assert len(wheels) == 2, wheels
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index",
                          "--force-reinstall", *map(str, wheels)], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert (env_dir / "etc" / "jupyter" / "labconfig" / "page_config.d" / "weat-course-students.json").is_file()
    return env_dir


def _run(env_dir: Path, args: list[str], env: dict) -> str:
    res = subprocess.run([str(env_dir / "bin" / "python"), *args], env=env, capture_output=True, text=True,
                         timeout=300, cwd="/")
    assert res.returncode == 0, f"{args}: {res.stdout[-2000:]}{res.stderr[-2000:]}"
    return res.stdout + res.stderr


def _user_env(home: Path, env_dir: Path) -> dict:
    """Environment variables of a user with empty Jupyter folders of their own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "VIRTUAL_ENV", "COURSE_DATA"))}
    env.pop("MPLBACKEND", None)
    for name, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                      ("JUPYTERLAB_SETTINGS_DIR", "lab-settings"), ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
                      ("IPYTHONDIR", "ipython"), ("MPLCONFIGDIR", "mpl")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(home / sub)
    env["PATH"] = str(env_dir / "bin") + os.pathsep + env.get("PATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


# --------------------------------------------------------------------------- a server

class Server:
    def __init__(self, url: str, token: str, proc: subprocess.Popen, log: Path):
        self.url, self.token, self.proc, self.log = url, token, proc, log

    def get(self, path: str) -> tuple[int, str]:
        req = urllib.request.Request(f"{self.url}{path}", headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:  # loopback only
                return r.status, r.read().decode(errors="replace")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")

    def page_config(self) -> dict:
        status, text = self.get("/lab")
        assert status == 200, status
        m = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', text, re.S)
        assert m, "no jupyter-config-data in /lab"
        return json.loads(html.unescape(m.group(1)))

    def log_tail(self, n: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return ""


def start_server(env_dir: Path, folder: Path, env: dict, log: Path) -> Server:
    port, token = _free_port(), secrets.token_hex(24)
    cmd = [str(env_dir / "bin" / "python"), "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={folder}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # CI runs as root; STUDENTS.md tells students the same
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    server = Server(f"http://127.0.0.1:{port}", token, proc, log)
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while True:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited with {proc.returncode}:\n{server.log_tail()}")
        try:
            if server.get("/api/status")[0] == 200:
                return server
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            _stop(proc)
            pytest.fail(f"JupyterLab did not answer within {SERVER_START_TIMEOUT} s:\n{server.log_tail()}")
        time.sleep(0.5)


# --------------------------------------------------------------------------- the browser

@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium driven by Playwright; requests off loopback are refused and recorded."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium() as instance:
        yield instance


def _open_lab(browser, server: Server):
    """A fresh browser profile on the released notebook, the app fully started; returns (context, page)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(UI_TIMEOUT_MS)
    context.external_requests = []

    def _loopback_only(route):
        url = route.request.url
        if re.match(r"^(https?|wss?)://(127\.0\.0\.1|localhost)(:\d+)?/", url) or not re.match(r"^\w+://", url):
            route.continue_()
        else:
            context.external_requests.append(url)
            route.abort()

    context.route("**/*", _loopback_only)
    page = context.new_page()
    page.goto(f"{server.url}/lab/tree/{NOTEBOOK}?token={server.token}", wait_until="domcontentloaded")
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for()
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Help$")).wait_for()
    page.wait_for_timeout(5000)  # the news question, when enabled, is asked a moment after the start
    return context, page


def _menu_bar(page) -> list[str]:
    return [t.strip() for t in page.locator(".lm-MenuBar-item").all_inner_texts()]


def _palette(page, query: str) -> list[str]:
    """The command palette's entries for ``query`` (Ctrl+Shift+C, as a person opens it)."""
    page.locator(".jp-NotebookPanel .jp-Notebook").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Shift+C")
    box = page.locator(".jp-ModalCommandPalette input, #command-palette input").first
    box.wait_for()
    box.fill(query)
    page.wait_for_timeout(500)
    items = [t.strip() for t in page.locator(".jp-ModalCommandPalette .lm-CommandPalette-itemLabel").all_inner_texts()]
    page.keyboard.press("Escape")
    return items


def _nbgrader_menu(page, shot: str) -> list[str]:
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Nbgrader$")).click()
    menu = page.locator("#jp-mainmenu-nbgrader")
    menu.wait_for()
    labels = [t.strip() for t in menu.locator(".lm-Menu-item:not(.lm-mod-hidden) .lm-Menu-itemLabel").all_inner_texts()]
    page.screenshot(path=str(ARTIFACTS / shot))
    page.keyboard.press("Escape")
    return [t for t in labels if t]


def _right_sidebar(page) -> list[str]:
    tabs = page.locator(".jp-SideBar.jp-mod-right .lm-TabBar-tab")
    return [(tabs.nth(k).get_attribute("title") or tabs.nth(k).inner_text()).strip() for k in range(tabs.count())]


def _news_toasts(page) -> list[str]:
    texts = page.locator(".Toastify__toast, .jp-Notification-Toast, .jp-toast-message").all_inner_texts()
    return [t for t in texts if re.search(r"news|newer version|update", t, re.I)]


def _check_no_instructor_tools(page, server: Server, where: str) -> None:
    sidebar = _right_sidebar(page)
    assert sidebar, f"{where}: no tab found in the right side bar (has JupyterLab's layout changed?)"
    assert not [t for t in sidebar if "assignment" in t.lower()], f"{where}: right side bar {sidebar}"
    assert not page.locator(".nbgrader-CreateAssignmentWidget, #nbgrader-create_assignment").count()
    toasts = _news_toasts(page)
    assert not toasts, f"{where}: the news/update question is shown: {toasts}"
    disabled = set(server.page_config()["disabledExtensions"])
    for plugin in ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list", "@jupyter/nbgrader:create-assignment",
                   "@jupyterlab/apputils-extension:announcements"):
        assert plugin in disabled, f"{where}: {plugin} is not disabled ({sorted(disabled)})"
    assert "@jupyter/nbgrader:validate-assignment" not in disabled
    assert server.get("/formgrader")[0] == 404, f"{where}: the formgrader's server extension answers"
    assert server.get("/formgraders")[0] == 404, f"{where}: the course list's server extension answers"


def _validate_button(page):
    button = page.locator(".jp-NotebookPanel-toolbar .validate-button")
    button.wait_for()
    assert "Validate" in button.inner_text()
    return button


@pytest.fixture(scope="module")
def student_env(bundle, tmp_path_factory) -> Path:
    return student_environment(bundle, tmp_path_factory.mktemp("student"))


@pytest.fixture(scope="module")
def hub_env(bundle, tmp_path_factory) -> Path:
    """The course environment of a hub: the bundle's, then the administrator's command of docs/SYSADMIN.md."""
    env_dir = student_environment(bundle, tmp_path_factory.mktemp("hub"))
    home = tmp_path_factory.mktemp("root-home")
    _run(env_dir, ["-m", "jupyterlab.labextensions", *HUB_COMMAND], _user_env(home, env_dir))
    return env_dir


def _student_server(env_dir: Path, bundle: Path, home: Path, log_name: str):
    env = _user_env(home, env_dir)
    with tools.offline_env(home) as network_log:
        offline = {k: os.environ[k] for k in ("PYTHONPATH", "COURSE_TEST_NETWORK_LOG")}
    env.update(offline)
    env["PATH"] = str(env_dir / "bin") + os.pathsep + os.environ.get("PATH", "")
    return start_server(env_dir, bundle, env, ARTIFACTS / log_name), network_log


# --------------------------------------------------------------------------- the tests

def test_bundle_student_sees_validate_only(bundle, student_env, browser, tmp_path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    server, network_log = _student_server(student_env, bundle, tmp_path / "home", "student.log")
    try:
        context, page = _open_lab(browser, server)
        page.screenshot(path=str(ARTIFACTS / "student_opened.png"))
        bar = _menu_bar(page)
        assert "Run" in bar and "Help" in bar, bar
        assert "Nbgrader" not in bar, f"the student has an Nbgrader menu: {bar}"
        found = _palette(page, "nbgrader")
        found += [t for label in ("Formgrader", "Course List", "Assignment List", "Create assignment")
                  for t in _palette(page, label) if label.lower() in t.lower()]
        assert not [t for t in found if any(x.lower() in t.lower() for x in NBGRADER_COMMANDS.values())], found
        _check_no_instructor_tools(page, server, "bundle")

        # Validate: nbgrader's toolbar button runs the released notebook and lists the failing cells
        _validate_button(page).click()
        message = page.locator("#validation-message")
        message.wait_for(timeout=VALIDATE_TIMEOUT_MS)
        text = message.inner_text()
        page.screenshot(path=str(ARTIFACTS / "student_validate.png"))
        assert "The following cell failed" in text and "NotImplementedError" in text, text[:2000]
        page.keyboard.press("Escape")
        assert not context.external_requests, f"the page requested non-local addresses: {context.external_requests}"
        context.close()
        attempts = network_log.read_text().strip()
        assert not attempts, f"connections to non-local addresses were attempted (and refused):\n{attempts}"
    finally:
        _stop(server.proc)


def test_hub_student_gets_the_assignment_list(bundle, hub_env, browser, tmp_path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    server, _ = _student_server(hub_env, bundle, tmp_path / "home", "hub-student.log")
    try:
        context, page = _open_lab(browser, server)
        bar = _menu_bar(page)
        assert "Nbgrader" in bar, f"the hub's student has no Nbgrader menu: {bar}"
        entries = _nbgrader_menu(page, "hub_student_menu.png")
        assert entries == ["Assignment List"], f"the Nbgrader menu holds {entries}"
        found = [t for t in _palette(page, "nbgrader") if t]
        assert found == ["Assignment List"], f"the command palette's nbgrader entries: {found}"
        _check_no_instructor_tools(page, server, "hub student")
        _validate_button(page)
        assert server.get("/assignments")[0] != 404, "the assignment list's server extension does not answer"
        context.close()
    finally:
        _stop(server.proc)


def test_grading_account_gets_the_formgrader_back(bundle, hub_env, tmp_path):
    home = tmp_path / "home"
    env = _user_env(home, hub_env)
    env["JUPYTER_PREFER_ENV_PATH"] = "0"  # the hub's users do not own /opt/weat-course: user config first
    # docs/SYSADMIN.md, as the grading account. (`jupyter server extension enable --user` cannot do it: in
    # jupyter_server 2 it refuses, with exit status 0, an extension the user's own configuration does not list yet.)
    server_file = Path(env["JUPYTER_CONFIG_DIR"]) / GRADER_SERVER_FILE
    server_file.parent.mkdir(parents=True)
    server_file.write_text(GRADER_SERVER_JSON + "\n")
    _run(hub_env, ["-m", "jupyterlab.labextensions", *GRADER_LAB_COMMAND], env)
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'weat-course'\n"
        f"c.Exchange.root = {str(tmp_path / 'exchange')!r}\n")
    (tmp_path / "exchange").mkdir()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    server = start_server(hub_env, course, env, ARTIFACTS / "grader.log")
    try:
        status, text = server.get("/formgrader")
        assert status == 200 and "Manage Assignments" in text, (status, text[:500])
        disabled = set(server.page_config()["disabledExtensions"])
        assert not disabled & {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                               "@jupyter/nbgrader:menu", "@jupyter/nbgrader:assignment-list"}, sorted(disabled)
        assert "@jupyterlab/apputils-extension:announcements" in disabled
    finally:
        _stop(server.proc)
    # the students' settings are still in the environment: a student (no user configuration) has no formgrader
    student = start_server(hub_env, course, _user_env(tmp_path / "student-home", hub_env), ARTIFACTS / "grader-student.log")
    try:
        assert student.get("/formgrader")[0] == 404
    finally:
        _stop(student.proc)


def test_sysadmin_gives_these_commands():
    """The commands and the file this test runs are the ones docs/SYSADMIN.md gives the administrator."""
    text = (ROOT / "docs" / "SYSADMIN.md").read_text()
    for needed in ("jupyter labextension " + " ".join(HUB_COMMAND), GRADER_SERVER_FILE, GRADER_SERVER_JSON,
                   "jupyter labextension " + " ".join(GRADER_LAB_COMMAND)):
        assert needed in text, f"docs/SYSADMIN.md does not give {needed!r}"
