"""A real multi-user JupyterHub: release, fetch, submit, collect, autograde, feedback, by real Unix users.

What runs (on loopback only), following docs/SYSADMIN.md where it can:

* the course environment: a virtual environment built from Debian's ``/usr/bin/python3`` in a
  world-readable folder (``COURSE_TEST_HUB_ENV``, default ``/opt/weat-course``) holding
  requirements.txt, ``jupyterhub`` and this package (see .ci/run); ``configurable-http-proxy``
  (npm) on ``PATH``;
* three Unix users made by the test with ``useradd`` and removed afterwards with ``userdel -r``:
  an instructor, who owns the course folder (mode 0711: students may only pass through it to
  the exchange) and is the grading account, and two students; two Unix groups (``groupadd``,
  removed with ``groupdel``), the students' and the graders' of ``deploy/jupyterhub_config.py``;
* ``jupyterhub`` started from the shipped ``deploy/jupyterhub_config.py`` (a byte-identical copy:
  PAM login for the two groups, the default LocalProcessSpawner, run as root, the formgrader as a
  hub service run as the grading account), see :class:`Hub` for what the test sets around it; the
  "system-wide" nbgrader config (course id and exchange) is a folder on ``JUPYTER_CONFIG_PATH``
  instead of ``/etc/jupyter`` so the test does not change the machine;
* nbgrader's exchange in the course folder (``<course>/exchange``, mode 0777, as nbgrader wants).

The cycle: the instructor (commands run as that user with ``runuser``, as typed in a terminal)
generates and releases 01_cosine. Each student's single-user server is started through the
hub's REST API, and everything a student does goes through that server, through the proxy, as
the browser would: nbgrader's assignment-list handlers (``/assignments/fetch``, ``/submit``,
``/fetch_feedback``, what the Assignments tab calls) and the Jupyter contents API to save the
filled-in notebook. This tests the student's real path (the server's environment and
permissions) rather than a shell. One student types in the worked solutions and also runs the
notebook in a kernel of their server (which measures the memory per user); the other submits
the release untouched. The instructor collects, autogrades (in the bubblewrap sandbox when
nbgrader_config.py makes it the default and bubblewrap is present), generates and releases the
feedback; the students fetch it. Checked: full marks for the worked solutions and none for the
blank submission in the gradebook, each student's feedback in their home folder (the course's page,
MathJax inside it), PAM's login form (a student's Unix password gets in; a wrong password and an
account in neither group do not), a student cannot read the solutions, the gradebook or the
other student's submission, the cookie secret written by the hub in its state folder (mode 0600),
and the formgrader service running as the grading account and answering through the proxy, with
the graders' group holding the role that opens it.

Every process the test starts is ended (the hub stops the servers and the proxy; leftovers of
the test's users are killed by uid) and the users are removed. Skipped with the reason when not
root or a tool is missing, unless ``COURSE_TEST_HUB_REQUIRED=1`` (set by .ci/run), then it fails.
"""
from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_tools as tools  # noqa: E402

ASSIGNMENT = "01_cosine"
COURSE_ID = "weat-course"
REQUIRED = os.environ.get("COURSE_TEST_HUB_REQUIRED", "") not in ("", "0")
ENV = Path(os.environ.get("COURSE_TEST_HUB_ENV", "/opt/weat-course"))
HOW = ("as root, from the course folder: `npm install -g configurable-http-proxy@5.3.0`, `/usr/bin/python3 -m venv "
       "/opt/weat-course`, install requirements.txt without its `-e .` and test-only lines into it, then "
       "`/opt/weat-course/bin/pip install --no-deps --force-reinstall .` (the hub block of .ci/run does exactly "
       "this; docs/SYSADMIN.md section 1)")


def _unavailable(reason: str):
    if REQUIRED:
        pytest.fail(f"COURSE_TEST_HUB_REQUIRED is set but {reason}")
    pytest.skip(f"{reason}. To run this test, {HOW}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _check_tools() -> str:
    """The path of configurable-http-proxy, or skip/fail with what is missing."""
    if os.name != "posix" or os.geteuid() != 0:
        _unavailable("the hub test must run as root (it creates Unix users and the hub spawns servers as them)")
    for tool in ("useradd", "userdel", "groupadd", "groupdel", "runuser"):
        if not shutil.which(tool):
            _unavailable(f"`{tool}` is not installed")
    chp = shutil.which("configurable-http-proxy")
    if not chp:
        _unavailable("configurable-http-proxy (npm) is not on PATH")
    for exe in ("jupyterhub", "jupyterhub-singleuser", "nbgrader", "python"):
        if not (ENV / "bin" / exe).exists():
            _unavailable(f"the course environment {ENV} has no bin/{exe}")
    probe = subprocess.run(["runuser", "-u", "nobody", "--", str(ENV / "bin" / "python"), "-c",
                            "import helpers, nbgrader, jupyterhub, os; print(os.path.dirname(helpers.__file__))"],
                           capture_output=True, text=True, cwd="/")
    if probe.returncode:
        _unavailable(f"another user cannot use {ENV} (is it under a folder of mode 700, or is the course package "
                     f"missing?): {probe.stderr.strip().splitlines()[-1:] or probe.returncode}")
    installed = Path(probe.stdout.strip())
    stale = [p.name for p in sorted((tools.COURSE_ROOT / "helpers").glob("*.py"))
             if not (installed / p.name).is_file() or (installed / p.name).read_bytes() != p.read_bytes()]
    if stale:
        _unavailable(f"the course package in {ENV} differs from this checkout ({', '.join(stale)}): "
                     f"`{ENV}/bin/pip install --no-deps --force-reinstall .`")
    return chp


class Users:
    """Unix users made with ``useradd -m`` and groups made with ``groupadd``, removed (with the users'
    processes and homes) at the end."""

    def __init__(self):
        self.names: list[str] = []
        self.groups: list[str] = []

    def add_group(self, name: str) -> str:
        subprocess.run(["groupadd", name], check=True, capture_output=True)
        self.groups.append(name)
        return name

    def add(self, name: str, group: str | None = None) -> pwd.struct_passwd:
        subprocess.run(["useradd", "-m", "-s", "/bin/bash", *(["-G", group] if group else []), name],
                       check=True, capture_output=True)
        self.names.append(name)
        return pwd.getpwnam(name)

    def kill_processes(self) -> list[int]:
        """SIGKILL every process owned by the test's users (found by uid in /proc); returns their pids."""
        uids = set()
        for n in self.names:
            try:
                uids.add(pwd.getpwnam(n).pw_uid)
            except KeyError:
                pass
        killed = []
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                if d.stat().st_uid in uids:
                    os.kill(int(d.name), signal.SIGKILL)
                    killed.append(int(d.name))
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                pass
        return killed

    def remove(self) -> None:
        self.kill_processes()
        time.sleep(0.2)
        for n in reversed(self.names):
            subprocess.run(["userdel", "-r", n], capture_output=True)
        for g in reversed(self.groups):
            subprocess.run(["groupdel", g], capture_output=True)


def as_user(user: str, args: list[str], cwd, env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``args`` as ``user`` (``runuser``) with a clean environment and umask 077, like a login shell."""
    home = pwd.getpwnam(user).pw_dir
    base = {"HOME": home, "USER": user, "LOGNAME": user, "LANG": "C.UTF-8",
            "PATH": f"{ENV / 'bin'}:/usr/local/bin:/usr/bin:/bin"}
    cmd = ["runuser", "-u", user, "--", "env", "-i", *[f"{k}={v}" for k, v in {**base, **env}.items()],
           "sh", "-c", 'umask 077; exec "$@"', "sh", *args]
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if res.returncode:
        raise AssertionError(f"as {user}: {' '.join(args)} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}")
    return res


DEPLOY = tools.COURSE_ROOT / "deploy"
HUB_CONFIG = DEPLOY / "jupyterhub_config.py"


class Hub:
    """A JupyterHub on loopback, started from the shipped ``deploy/jupyterhub_config.py`` (docs/SYSADMIN.md),
    driven through its REST API with a service token.

    What differs from a real deployment, and how: the settings the config file reads from the
    environment (``WEAT_*``: the course folder, the grading account, the two Unix groups, the
    formgrader's port; ``STATE_DIRECTORY``, which systemd sets) point at the test's folders and
    users; the three loopback ports are free ones, given on the command line; and
    ``jupyterhub_config.d/50-test.py`` beside the copied file adds the test's API service and passes
    ``JUPYTER_CONFIG_PATH`` (the test's stand-in for ``/etc/jupyter``) to the servers.
    """

    def __init__(self, workdir: Path, chp: str, course: Path, grading_account: str, groups: dict,
                 config_path: Path):
        self.dir = workdir
        self.port, self.hub_port, self.api_port, self.formgrader_port = (_free_port() for _ in range(4))
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = secrets.token_hex(32)
        etc = workdir / "etc-jupyterhub"
        (etc / "jupyterhub_config.d").mkdir(parents=True)
        shutil.copy(HUB_CONFIG, etc / "jupyterhub_config.py")
        assert (etc / "jupyterhub_config.py").read_bytes() == HUB_CONFIG.read_bytes()
        (etc / "jupyterhub_config.d" / "50-test.py").write_text(f"""\
c = get_config()  # noqa
c.JupyterHub.services.append({{"name": "course-test", "api_token": {self.token!r}}})
c.JupyterHub.load_roles.append({{"name": "course-test", "services": ["course-test"],
    "scopes": ["admin:users", "admin:servers", "access:servers", "list:users", "read:users", "read:servers",
               "access:services", "list:services", "read:services", "read:groups", "read:roles:groups"]}})
c.Spawner.env_keep.append("JUPYTER_CONFIG_PATH")
""")
        self.state = workdir / "state"
        self.state.mkdir(mode=0o700)
        env_path = f"{ENV / 'bin'}:{Path(chp).parent}:/usr/local/bin:/usr/bin:/bin"
        env = {"PATH": env_path, "HOME": str(workdir), "LANG": "C.UTF-8", "STATE_DIRECTORY": str(self.state),
               "JUPYTER_CONFIG_PATH": str(config_path),
               "WEAT_COURSE_ID": COURSE_ID, "WEAT_COURSE_DIR": str(course), "WEAT_GRADING_ACCOUNT": grading_account,
               "WEAT_STUDENTS_GROUP": groups["students"], "WEAT_GRADERS_GROUP": groups["graders"],
               "WEAT_FORMGRADER_PORT": str(self.formgrader_port)}
        self.log = open(workdir / "jupyterhub.log", "w")
        self.proc = subprocess.Popen([str(ENV / "bin" / "jupyterhub"), "-f", str(etc / "jupyterhub_config.py"),
                                      f"--JupyterHub.bind_url=http://127.0.0.1:{self.port}",
                                      f"--JupyterHub.hub_bind_url=http://127.0.0.1:{self.hub_port}",
                                      f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{self.api_port}"],
                                     cwd=self.state, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + 90
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"jupyterhub exited ({self.proc.returncode}):\n{self.log_text()}")
            try:
                self.api("GET", "/hub/api/")
                break
            except (OSError, AssertionError):
                if time.monotonic() > deadline:
                    raise AssertionError(f"jupyterhub did not answer within 90 s:\n{self.log_text()}")
                time.sleep(0.5)

    def log_text(self) -> str:
        self.log.flush()
        return (self.dir / "jupyterhub.log").read_text()[-6000:]

    def request(self, method: str, path: str, data=None, form: dict | None = None, timeout: float = 120):
        """An HTTP request to the proxy with the service token; returns (status, body text)."""
        headers = {"Authorization": f"token {self.token}"}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def api(self, method: str, path: str, data=None, form=None, ok=(200, 201, 202, 204)):
        status, text = self.request(method, path, data=data, form=form)
        if status not in ok:
            raise AssertionError(f"{method} {path} -> {status}: {text[:2000]}")
        return json.loads(text) if text.strip() else None

    def start_server(self, user: str) -> None:
        self.api("POST", f"/hub/api/users/{user}", ok=(201, 409))  # allowed_users are made at start
        self.api("POST", f"/hub/api/users/{user}/server")

    def wait_ready(self, user: str, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            server = (self.api("GET", f"/hub/api/users/{user}")["servers"] or {}).get("")
            if server and server.get("ready"):
                return
            time.sleep(0.5)
        raise AssertionError(f"the server of {user} was not ready within {timeout} s:\n{self.log_text()}")

    def login(self, user: str, password: str) -> int:
        """Log in through the hub's login form, as a browser does (its ``_xsrf`` cookie and field); the
        status of the POST (302 to the user's server: logged in; 403: refused), redirects not followed."""
        import http.cookiejar
        import re

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect)
        with opener.open(self.url + "/hub/login", timeout=60) as r:
            xsrf = re.search(r'name="_xsrf" value="([^"]+)"', r.read().decode()).group(1)
        form = urllib.parse.urlencode({"username": user, "password": password, "_xsrf": xsrf}).encode()
        try:
            with opener.open(urllib.request.Request(self.url + "/hub/login", data=form, method="POST"), timeout=60) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def wait_service(self, name: str, owner: str, timeout: float = 180) -> None:
        """Wait until the managed service ``name`` answers through the proxy, and check it runs as ``owner``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                status, _ = self.request("GET", f"/services/{name}/api/status", timeout=30)
            except OSError:
                status = None
            if status == 200:
                break
            time.sleep(1)
        else:
            raise AssertionError(f"the service {name} did not answer within {timeout} s:\n{self.log_text()}")
        uid = pwd.getpwnam(owner).pw_uid
        assert any(command(pid) == "jupyterhub-singleuser" for pid in processes_of(uid)), \
            f"no jupyterhub-singleuser runs as {owner}"

    def stop(self) -> None:
        """Stop the servers, then the hub (which stops the proxy); kill what is left."""
        if self.proc.poll() is None:
            for user in getattr(self, "started", []):
                try:
                    self.request("DELETE", f"/hub/api/users/{user}/server", timeout=30)
                except OSError:
                    pass
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        for pid_file in ("jupyterhub-proxy.pid",):  # the proxy runs in its own session
            try:
                pid = int((self.state / pid_file).read_text().strip())
                if Path(f"/proc/{pid}/cmdline").read_bytes().find(b"configurable-http-proxy") >= 0:
                    os.kill(pid, signal.SIGKILL)
            except (OSError, ValueError):
                pass
        self.log.close()


def run_in_kernel(hub: Hub, user: str, cells: list[str], timeout: float = 300) -> list[str]:
    """Start a kernel in ``user``'s server, run ``cells`` one after another over the kernel's
    websocket (the browser's path) and return each cell's text output; fail on an error."""
    from tornado.httpclient import HTTPRequest
    from tornado.ioloop import IOLoop
    from tornado.websocket import websocket_connect

    kernel = hub.api("POST", f"/user/{user}/api/kernels", data={"name": "python3"})
    url = f"ws://127.0.0.1:{hub.port}/user/{user}/api/kernels/{kernel['id']}/channels"
    session = uuid.uuid4().hex

    async def run():
        ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {hub.token}"}))
        outputs = []
        for code in cells:
            msg_id = uuid.uuid4().hex
            ws.write_message(json.dumps({
                "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": user, "session": session,
                           "version": "5.3", "date": ""},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                            "allow_stdin": False, "stop_on_error": True}}))
            text, status, idle = [], None, False
            while status is None or not idle:  # the reply (shell) and the outputs (iopub) come in any order
                raw = await ws.read_message()
                if raw is None:
                    raise AssertionError(f"the kernel's websocket of {user} closed")
                if isinstance(raw, bytes):
                    continue
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["header"]["msg_type"], msg["content"]
                if kind == "stream":
                    text.append(content["text"])
                elif kind in ("execute_result", "display_data"):
                    text.append(content["data"].get("text/plain", ""))
                elif kind == "error":
                    raise AssertionError(f"cell failed in {user}'s kernel:\n{code}\n{content['ename']}: {content['evalue']}")
                elif kind == "execute_reply":
                    status = content["status"]
                elif kind == "status" and content.get("execution_state") == "idle":
                    idle = True
            outputs.append("".join(text))
        ws.close()
        return outputs

    return IOLoop.current().run_sync(run, timeout=timeout)


def assignment_list(answer) -> list[dict]:
    """The assignments in an answer of nbgrader's assignment-list handlers (``{"success", "value"}``);
    a failed action (its traceback in ``value``) fails the test."""
    assert isinstance(answer, dict) and answer.get("success"), f"nbgrader's server extension failed: {answer}"
    return answer["value"]


def processes_of(uid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and d.stat().st_uid == uid:
                out.append(int(d.name))
        except FileNotFoundError:
            pass
    return out


def command(pid: int) -> str:
    """The program a process runs (the script after the interpreter, shortened)."""
    args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    prog = next((a for a in args[1:] if a and not a.startswith(b"-")), args[0])
    return Path(prog.decode()).name


def memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in kB, from /proc/<pid>/smaps_rollup."""
    rss = pss = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Rss:"):
            rss = int(line.split()[1])
        elif line.startswith("Pss:"):
            pss = int(line.split()[1])
    return rss, pss


def test_hub_release_fetch_submit_collect_autograde_feedback():
    chp = _check_tools()
    t_start = time.perf_counter()
    tag = secrets.token_hex(3)
    instructor, full, blank = f"wc-inst-{tag}", f"wc-full-{tag}", f"wc-blank-{tag}"
    users = Users()
    top = Path(tempfile.mkdtemp(prefix="weat-hub-test-"))
    hub = None
    try:
        os.chmod(top, 0o755)
        # the two Unix groups of deploy/jupyterhub_config.py: students, and graders (who open the formgrader)
        groups = {"students": users.add_group(f"wc-stud-{tag}"), "graders": users.add_group(f"wc-grad-{tag}")}
        inst = users.add(instructor, groups["graders"])
        users.add(full, groups["students"])
        users.add(blank, groups["students"])
        outsider = f"wc-out-{tag}"
        users.add(outsider)  # a Unix account in neither group: the hub must refuse it

        # The course folder, owned by the instructor; students may only pass through it (0711) to
        # the exchange (0777; nbgrader makes exchange/weat-course/{outbound,inbound,feedback}).
        course = top / "course"
        tools.make_course(course, [ASSIGNMENT], gradebook=False, config=True)  # the instructor's generate_assignment makes it
        exchange = course / "exchange"
        exchange.mkdir()
        subprocess.run(["chown", "-R", f"{instructor}:{instructor}", str(course)], check=True)
        for p in course.rglob("*"):
            os.chmod(p, 0o700 if p.is_dir() else 0o600)
        os.chmod(course, 0o711)
        os.chmod(exchange, 0o777)

        # "System-wide" nbgrader config for every user of the hub (docs/SYSADMIN.md puts it in
        # /etc/jupyter/nbgrader_config.py; here a folder on JUPYTER_CONFIG_PATH).
        etc = top / "etc-jupyter"
        etc.mkdir()
        (etc / "nbgrader_config.py").write_text(
            f"c = get_config()  # noqa\nc.CourseDirectory.course_id = {COURSE_ID!r}\n"
            f"c.Exchange.root = {str(exchange)!r}\n")
        os.chmod(etc, 0o755)
        os.chmod(etc / "nbgrader_config.py", 0o644)
        env = {"JUPYTER_CONFIG_PATH": str(etc), "MPLBACKEND": "Agg"}

        # The grading account (here the instructor) turns the formgrader on for itself (docs/SYSADMIN.md
        # section 1); the hub runs it as the service "weat-course" in the course folder.
        as_user(instructor, ["sh", "-c", "mkdir -p ~/.jupyter/jupyter_server_config.d && echo "
                             "'{\"ServerApp\": {\"jpserver_extensions\": {\"nbgrader.server_extensions.formgrader\": true}}}'"
                             " > ~/.jupyter/jupyter_server_config.d/weat-course-grader.json"], course, env)

        # The hub, from deploy/jupyterhub_config.py; the students' servers start while the instructor
        # prepares the release.
        hub = Hub(top, chp, course, instructor, groups, etc)
        hub.started = [full, blank]
        t0 = time.perf_counter()
        for s in (full, blank):
            hub.start_server(s)

        as_user(instructor, ["nbgrader", "generate_assignment", ASSIGNMENT, "--force"], course, env)
        as_user(instructor, ["nbgrader", "release_assignment", ASSIGNMENT], course, env)
        assert (exchange / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()

        for s in (full, blank):
            hub.wait_ready(s)
        t_spawn = time.perf_counter() - t0

        # PAM with the two groups: a student logs in with the Unix password; a wrong password and an
        # account in neither group are refused.
        password = secrets.token_urlsafe(12)
        subprocess.run(["chpasswd"], input=f"{blank}:{password}\n{outsider}:{password}\n", text=True, check=True,
                       capture_output=True)
        assert hub.login(blank, password) == 302, hub.log_text()
        assert hub.login(blank, password + "x") == 403
        assert hub.login(outsider, password) == 403, f"{outsider} (in neither group) could log in"

        # The cookie secret: written by the hub on its first start in its state folder, readable by root only.
        secret = hub.state / "jupyterhub_cookie_secret"
        assert secret.is_file() and secret.stat().st_mode & 0o077 == 0 and secret.stat().st_uid == 0, \
            f"the cookie secret {secret} is missing or readable by others"
        # The graders' formgrader: the service runs as the grading account in the course folder, and
        # the graders' group (the instructor) may open it.
        hub.wait_service(COURSE_ID, instructor)
        status, page = hub.request("GET", f"/services/{COURSE_ID}/formgrader")
        assert status == 200 and "Manage Assignments" in page, (status, page[:500], hub.log_text())
        group = hub.api("GET", f"/hub/api/groups/{groups['graders']}")
        assert group["users"] == [instructor] and f"formgrade-{COURSE_ID}" in group.get("roles", []), group
        for s in (full, blank):
            listed = assignment_list(hub.api("POST", f"/user/{s}/assignments/fetch",
                                             form={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}))
            assert any(a.get("assignment_id") == ASSIGNMENT and a.get("status") == "fetched" for a in listed), listed

        # The worked solutions typed into the fetched notebook and saved through the server.
        path = f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"
        import nbformat

        model = hub.api("GET", f"/user/{full}/api/contents/{path}?content=1")
        fetched = nbformat.from_dict(model["content"])
        solution = tools.read_nb(tools.SOLUTIONS_DIR / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
        filled = tools.fill_solutions(fetched, solution)
        hub.api("PUT", f"/user/{full}/api/contents/{path}", data={"type": "notebook", "format": "json",
                                                                    "content": filled})
        saved = tools.read_nb(Path(pwd.getpwnam(full).pw_dir) / path)
        assert [c.source for c in saved.cells] == [c.source for c in filled.cells]

        # That student runs the notebook in a kernel of their server (as in JupyterLab): the course
        # environment works for them, and memory per user = their server + that kernel.
        cells = [c.source for c in filled.cells if c.cell_type == "code"]
        cells.insert(0, f"import os, sys; os.chdir(os.path.expanduser('~/{ASSIGNMENT}')); print(sys.executable)")
        outputs = run_in_kernel(hub, full, cells)
        assert outputs[0].strip().startswith(str(ENV)), f"the student's kernel runs {outputs[0]!r}, not {ENV}"
        uid = pwd.getpwnam(full).pw_uid
        mem = {pid: memory_kb(pid) for pid in processes_of(uid)}
        rss, pss = sum(m[0] for m in mem.values()) / 1024, sum(m[1] for m in mem.values()) / 1024
        each = ", ".join(f"{command(pid)} {m[0] / 1024:.0f}/{m[1] / 1024:.0f}" for pid, m in mem.items())
        print(f"\nmemory of {full} (server + kernel after running {ASSIGNMENT}, {len(mem)} processes): "
              f"RSS {rss:.0f} MB, PSS {pss:.0f} MB (RSS/PSS per process: {each})")

        for s in (full, blank):
            listed = assignment_list(hub.api("POST", f"/user/{s}/assignments/submit",
                                             form={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT}))
            assert any(a.get("assignment_id") == ASSIGNMENT and a.get("status") == "submitted" for a in listed), listed

        # A student cannot read the course's private files, nor list the submissions. (nbgrader makes
        # each submitted file world-readable, in a folder named with a random suffix that only a
        # listing would reveal: the inbound folder is write-only for students, mode 2733.)
        inbound = exchange / COURSE_ID / "inbound"
        for secret in (course / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", course / "gradebook.db"):
            res = subprocess.run(["runuser", "-u", blank, "--", "cat", str(secret)], capture_output=True, cwd="/")
            assert res.returncode != 0 and not res.stdout, f"{blank} could read {secret}"
        res = subprocess.run(["runuser", "-u", blank, "--", "ls", str(inbound)], capture_output=True, cwd="/")
        assert res.returncode != 0, f"{blank} could list the submissions in {inbound}"
        submitted = sorted(p.name for p in inbound.iterdir())
        assert len(submitted) == 2 and all(len(name.rsplit("+", 1)[-1]) >= 8 for name in submitted), submitted

        # nbgrader's exchange folders: everyone may fetch, students may not list the submissions.
        modes = {d: (exchange / COURSE_ID / d).stat().st_mode & 0o7777 for d in ("outbound", "inbound")}
        assert modes["outbound"] & 0o005 == 0o005 and modes["inbound"] & 0o004 == 0, {k: oct(v) for k, v in modes.items()}

        # The kernel the course config names (python3) is the course environment's, for the grader.
        specs = json.loads(as_user(instructor, ["jupyter", "kernelspec", "list", "--json"], course, env).stdout)
        kernel = specs["kernelspecs"]["python3"]["resource_dir"]
        assert kernel.startswith(str(ENV)), f"the grader's python3 kernel is {kernel}, not in {ENV}"

        # The instructor's side, as typed in a terminal in the course folder.
        for cmd in (["collect", ASSIGNMENT], ["autograde", ASSIGNMENT], ["generate_feedback", ASSIGNMENT],
                    ["release_feedback", ASSIGNMENT]):
            as_user(instructor, ["nbgrader", *cmd], course, env)

        feedback_mode = (exchange / COURSE_ID / "feedback").stat().st_mode
        assert feedback_mode & 0o004 == 0, f"students could list the feedback folder ({oct(feedback_mode)})"
        for s in (full, blank):
            hub.api("POST", f"/user/{s}/assignments/fetch_feedback",
                    form={"course_id": COURSE_ID, "assignment_id": ASSIGNMENT})
            html = list((Path(pwd.getpwnam(s).pw_dir) / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html"))
            assert html, f"{s} got no feedback"
            assert html[0].stat().st_uid == pwd.getpwnam(s).pw_uid
            page = html[0].read_text(encoding="utf-8")  # the course's page: MathJax inside it, nothing from a CDN
            assert "window.MathJax" in page and "cdnjs.cloudflare.com/ajax/libs/mathjax" not in page

        db = f"sqlite:///{course / 'gradebook.db'}"
        scores = {s: tools.cell_scores(db, ASSIGNMENT, s) for s in (full, blank)}
        auto = [g for g, v in scores[full].items() if v["cell_type"] == "code"]
        assert auto, "no autograded cells in the gradebook"
        for g in auto:
            assert scores[full][g]["score"] == scores[full][g]["max_score"] > 0, (g, scores[full][g])
            assert scores[blank][g]["score"] == 0, (g, scores[blank][g])
        assert (course / "gradebook.db").stat().st_uid == inst.pw_uid
        print(f"servers ready {t_spawn:.0f} s after the request; whole cycle {time.perf_counter() - t_start:.0f} s")
    finally:
        if hub is not None:
            hub.stop()
        users.remove()
        shutil.rmtree(top, ignore_errors=True)
    for n in users.names:
        with pytest.raises(KeyError):
            pwd.getpwnam(n)
