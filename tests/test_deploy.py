"""The deployment files of deploy/ (docs/SYSADMIN.md, "Deploying the hub, step by step") agree with each other.

``deploy/jupyterhub_config.py`` itself is run by ``tests/test_hub.py`` (a real hub, real Unix users).
What no test can run here, a systemd that starts services and an nginx that answers on port 443, is
checked as far as it can be without them:

* the systemd unit is parsed, and ``systemd-analyze verify`` checks it where systemd is installed
  (it reports unknown settings and a command that is not executable); the paths it names (the
  course environment's ``jupyterhub``, the config file, the state folder and ``PATH``) are the
  ones the config file and SYSADMIN.md use;
* the config file, loaded as JupyterHub loads it, has the values the unit, the nginx example and the
  guide rely on (loopback addresses, the state folder, the formgrader service);
* the nginx example is parsed (its ``proxy_pass`` is the hub's public address, WebSockets are
  passed on, HTTPS on 443, HTTP redirected); with an nginx binary (``nginx`` on ``PATH`` or
  ``COURSE_TEST_NGINX``, which .ci/run sets from Debian's package, unpacked and never started),
  ``nginx -t`` checks the file inside a minimal main configuration, with a self-signed certificate
  in place of yours;
* the guide names every shipped file and the commands that install them.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
CONFIG = DEPLOY / "jupyterhub_config.py"
UNIT = DEPLOY / "jupyterhub.service"
NGINX = DEPLOY / "nginx-jupyterhub.conf"
GUIDE = ROOT / "docs" / "SYSADMIN.md"
COURSE_ENV = "/opt/weat-course"           # the guide's course environment
ETC_CONFIG = "/etc/jupyterhub/jupyterhub_config.py"


def load_config(env: dict | None = None, prefix: str = COURSE_ENV):
    """The shipped config as JupyterHub reads it (traitlets' loader), with ``sys.prefix`` = ``prefix``
    (the hub runs from the course environment) and the environment variables ``env``."""
    from traitlets.config.loader import PyFileConfigLoader

    saved_env, saved_prefix = dict(os.environ), sys.prefix
    try:
        for key in [k for k in os.environ if k.startswith("WEAT_") or k == "STATE_DIRECTORY"]:
            del os.environ[key]
        os.environ.update(env or {})
        sys.prefix = prefix
        return PyFileConfigLoader(CONFIG.name, str(CONFIG.parent)).load_config()
    finally:
        sys.prefix = saved_prefix
        os.environ.clear()
        os.environ.update(saved_env)


def unit_settings(text: str) -> dict:
    """``{(section, key): [values]}`` of a systemd unit file (comments and blank lines skipped)."""
    out: dict = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.setdefault((section, key.strip()), []).append(value.strip())
    return out


def nginx_directives(text: str) -> list[tuple[tuple[str, ...], str, list[str]]]:
    """Every simple directive of an nginx file as (enclosing blocks, name, arguments), comments removed."""
    text = re.sub(r"#[^\n]*", "", text)
    tokens = re.findall(r"'[^']*'|\"[^\"]*\"|[{};]|[^\s{};]+", text)
    out, stack, words = [], [], []
    for tok in tokens:
        if tok == "{":
            stack.append(" ".join(words))
            words = []
        elif tok == "}":
            stack.pop()
        elif tok == ";":
            out.append((tuple(stack), words[0], words[1:]))
            words = []
        else:
            words.append(tok)
    assert not stack and not words, "unbalanced braces or a directive without ';' in the nginx example"
    return out


def test_the_config_file_has_what_the_unit_the_proxy_and_the_guide_rely_on():
    c = load_config()
    hub = c.JupyterHub
    assert hub.bind_url == "http://127.0.0.1:8000" and hub.hub_bind_url.startswith("http://127.0.0.1:")
    assert c.ConfigurableHTTPProxy.api_url.startswith("http://127.0.0.1:")
    # the state folder is the unit's StateDirectory; the cookie secret and the database live there
    assert hub.cookie_secret_file == "/var/lib/jupyterhub/jupyterhub_cookie_secret"
    assert hub.db_url == "sqlite:////var/lib/jupyterhub/jupyterhub.sqlite"
    assert hub.authenticator_class == "pam" and c.LocalAuthenticator.allowed_groups == {"weat-students", "weat-graders"}
    assert c.Spawner.cmd == [f"{COURSE_ENV}/bin/jupyterhub-singleuser"]
    assert c.Spawner.environment["PATH"].split(":")[0] == f"{COURSE_ENV}/bin"
    (service,) = hub.services
    assert service["name"] == "weat-course" and service["user"] == "grader-weat-course"
    assert service["cwd"] == "/srv/weat-course" and service["url"].startswith("http://127.0.0.1:")
    assert service["command"] == [f"{COURSE_ENV}/bin/jupyterhub-singleuser", "--ServerApp.root_dir=/srv/weat-course"]
    (role,) = hub.load_roles
    assert role["groups"] == ["weat-graders"] and "access:services!service=weat-course" in role["scopes"]


def test_the_config_file_culls_idle_servers_and_limits_memory(tmp_path, monkeypatch):
    """Idle kernels are culled by each server; idle servers by jupyterhub-idle-culler, once installed (a stand-in
    module here), with the role its documentation gives; every server has a memory limit."""
    c = load_config()
    assert "--MappingKernelManager.cull_idle_timeout=3600" in c.Spawner.args
    assert c.Spawner.mem_limit == "3G"
    assert [s["name"] for s in c.JupyterHub.services] == ["weat-course"]  # the culler is not installed here
    (tmp_path / "jupyterhub_idle_culler").mkdir()
    (tmp_path / "jupyterhub_idle_culler" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    c = load_config({"WEAT_IDLE_TIMEOUT": "1800"})
    culler = next(s for s in c.JupyterHub.services if s["name"] == "idle-culler")
    assert culler["command"][1:] == ["-m", "jupyterhub_idle_culler", "--timeout=1800"]
    role = next(r for r in c.JupyterHub.load_roles if r["name"] == "idle-culler")
    assert role["services"] == ["idle-culler"] and "delete:servers" in role["scopes"]


def test_the_config_file_takes_its_site_settings_from_the_environment(tmp_path):
    """What tests/test_hub.py changes: the WEAT_* settings and STATE_DIRECTORY, and a file in jupyterhub_config.d/."""
    c = load_config({"WEAT_COURSE_DIR": "/x/course", "WEAT_GRADING_ACCOUNT": "g", "WEAT_STUDENTS_GROUP": "s",
                     "WEAT_GRADERS_GROUP": "no-such-group-here", "WEAT_FORMGRADER_PORT": "1234",
                     "STATE_DIRECTORY": "/x/state"}, prefix="/x/env")
    (service,) = c.JupyterHub.services
    assert service["cwd"] == "/x/course" and service["user"] == "g" and service["url"] == "http://127.0.0.1:1234"
    assert c.Spawner.cmd == ["/x/env/bin/jupyterhub-singleuser"]
    assert c.JupyterHub.cookie_secret_file == "/x/state/jupyterhub_cookie_secret"
    assert c.LocalAuthenticator.allowed_groups == {"s", "no-such-group-here"}
    assert c.JupyterHub.load_groups == {"no-such-group-here": {"users": []}}  # a missing group: nobody, no error


def test_local_additions_are_read_last(tmp_path):
    copy = tmp_path / "jupyterhub_config.py"
    shutil.copy(CONFIG, copy)
    (tmp_path / "jupyterhub_config.d").mkdir()
    (tmp_path / "jupyterhub_config.d" / "10-sso.py").write_text(
        "c = get_config()  # noqa\nc.JupyterHub.authenticator_class = 'dummy'\nc.JupyterHub.services.append({'name': 'x'})\n")
    from traitlets.config.loader import PyFileConfigLoader

    c = PyFileConfigLoader(copy.name, str(tmp_path)).load_config()
    assert c.JupyterHub.authenticator_class == "dummy"
    assert [s["name"] for s in c.JupyterHub.services] == ["weat-course", "x"]


def test_the_systemd_unit_starts_the_shipped_config_from_the_course_environment(tmp_path):
    settings = unit_settings(UNIT.read_text())
    (exec_start,) = settings[("Service", "ExecStart")]
    assert exec_start.split() == [f"{COURSE_ENV}/bin/jupyterhub", "-f", ETC_CONFIG]
    assert settings[("Service", "User")] == ["root"]
    (path,) = settings[("Service", "Environment")]
    assert path.startswith("PATH=") and path[5:].split(":")[0] == f"{COURSE_ENV}/bin"
    c = load_config()
    state = os.path.dirname(c.JupyterHub.cookie_secret_file)
    assert "/var/lib/" + settings[("Service", "StateDirectory")][0] == state
    assert settings[("Service", "WorkingDirectory")] == [state]
    assert settings[("Service", "StateDirectoryMode")] == ["0700"]
    assert settings[("Service", "UMask")] == ["0077"], "files the hub's processes make must be private"
    assert settings[("Install", "WantedBy")] == ["multi-user.target"]

    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed: the unit was parsed, not verified")
    # verify checks that ExecStart's program exists: point it at an environment that has jupyterhub
    env = COURSE_ENV if Path(COURSE_ENV, "bin", "jupyterhub").exists() else sys.prefix
    if not Path(env, "bin", "jupyterhub").exists():
        pytest.skip(f"neither {COURSE_ENV} nor {sys.prefix} has bin/jupyterhub for systemd-analyze verify")
    unit = tmp_path / "jupyterhub.service"
    unit.write_text(UNIT.read_text().replace(COURSE_ENV + "/", env.rstrip("/") + "/"))
    res = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    problems = [line for line in (res.stdout + res.stderr).splitlines() if "jupyterhub.service" in line]
    assert res.returncode == 0 and not problems, res.stdout + res.stderr


def test_systemd_analyze_catches_a_broken_unit(tmp_path):
    """The verification above can fail: a wrong program and an unknown value are reported."""
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        pytest.skip("systemd-analyze is not installed")
    unit = tmp_path / "jupyterhub.service"
    unit.write_text(UNIT.read_text().replace(f"{COURSE_ENV}/bin/jupyterhub ", "/nonexistent/bin/jupyterhub "))
    res = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert res.returncode != 0 and "/nonexistent/bin/jupyterhub" in res.stdout + res.stderr


def _nginx_binary() -> str | None:
    return os.environ.get("COURSE_TEST_NGINX") or shutil.which("nginx")


def test_the_nginx_example_proxies_https_to_the_hub(tmp_path):
    directives = nginx_directives(NGINX.read_text())
    c = load_config()
    passes = [args for blocks, name, args in directives if name == "proxy_pass"]
    assert passes == [[c.JupyterHub.bind_url]], f"proxy_pass must be the hub's bind_url {c.JupyterHub.bind_url}: {passes}"
    headers = {args[0]: args[1] for blocks, name, args in directives if name == "proxy_set_header"}
    assert headers.get("Upgrade") == "$http_upgrade" and headers.get("Connection") == "$connection_upgrade"
    assert headers.get("X-Forwarded-Proto") == "$scheme" and headers.get("Host") == "$host"
    listens = [args for blocks, name, args in directives if name == "listen"]
    assert ["443", "ssl"] in listens and ["80"] in listens
    assert any(name == "return" and args[0] == "301" and args[1].startswith("https://") for _, name, args in directives)
    assert {name for _, name, _ in directives} >= {"ssl_certificate", "ssl_certificate_key", "proxy_http_version"}

    nginx = _nginx_binary()
    if not nginx:
        pytest.skip("no nginx binary (PATH or COURSE_TEST_NGINX): the example was parsed, not checked by nginx -t")
    openssl = shutil.which("openssl")
    if not openssl:
        pytest.skip("openssl is not installed (for a self-signed certificate)")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=hub.example.org",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    site = NGINX.read_text()
    for name, path in (("ssl_certificate", cert), ("ssl_certificate_key", key)):
        site, n = re.subn(rf"(?m)^(\s*{name}\s+)\S+;", rf"\g<1>{path};", site)
        assert n == 1, name
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        f"error_log {tmp_path}/error.log;\npid {tmp_path}/nginx.pid;\nevents {{}}\n"
        "http {\n    access_log off;\n"
        + "".join(f"    {kind}_temp_path {tmp_path}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        + f"    include {tmp_path}/site.conf;\n}}\n")
    res = subprocess.run([nginx, "-t", "-q", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                          "-e", str(tmp_path / "error.log")], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    (tmp_path / "site.conf").write_text(site.replace("proxy_http_version 1.1;", "proxy_http_versio 1.1;"))
    res = subprocess.run([nginx, "-t", "-q", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                          "-e", str(tmp_path / "error.log")], capture_output=True, text=True, timeout=60)
    assert res.returncode != 0 and "proxy_http_versio" in res.stderr, "nginx -t must reject an unknown directive"


def test_the_guide_installs_the_shipped_files():
    text = GUIDE.read_text()
    for needed in (f"cp deploy/jupyterhub_config.py {ETC_CONFIG}", "cp deploy/jupyterhub.service /etc/systemd/system/",
                   "systemctl enable --now jupyterhub", "deploy/nginx-jupyterhub.conf", "nginx -t",
                   "/var/lib/jupyterhub/jupyterhub_cookie_secret", "listen_addresses", "pg_hba.conf",
                   "pg_lsclusters", "jupyterhub_config.d"):
        assert needed in text, f"docs/SYSADMIN.md does not say {needed!r}"
    for path in sorted(DEPLOY.iterdir()):
        assert f"deploy/{path.name}" in text, f"docs/SYSADMIN.md does not name deploy/{path.name}"


# --------------------------------------------------------------------------- PostgreSQL for remote graders

def _guide_block_line(pattern: str) -> str:
    """The one line of docs/SYSADMIN.md matching ``pattern`` (a regular expression, whole line)."""
    lines = [line for line in GUIDE.read_text().splitlines() if re.fullmatch(pattern, line.strip())]
    assert len(lines) == 1, f"docs/SYSADMIN.md has {len(lines)} lines matching {pattern!r}, not one"
    return lines[0].strip()


def _postgres_bin() -> Path | None:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return versions[-1].parent if versions else None


def test_the_guides_postgresql_lines_admit_the_grading_role_only(tmp_path):
    """Section 5's ``listen_addresses``, ``ssl`` and ``pg_hba.conf`` lines on a throw-away server (loopback in
    place of the graders' network): the grading role gets in over TLS with its ``.pgpass``; without TLS,
    to another database, or with a ``.pgpass`` others can read, it does not."""
    listen = _guide_block_line(r"listen_addresses = '[^']*'\s*#.*")
    ssl = _guide_block_line(r"ssl = on\s*#.*")
    hba = _guide_block_line(r"hostssl\s+weat_course\s+weat_grader\s+\S+\s+scram-sha-256")
    url = _guide_block_line(r"c\.CourseDirectory\.db_url = \"postgresql://weat_grader@dbhost:5432/weat_course\"")
    assert "sslmode=require" in GUIDE.read_text()
    required = os.environ.get("COURSE_TEST_POSTGRES_REQUIRED", "") not in ("", "0")
    bindir = _postgres_bin()
    import pwd

    try:
        pwd.getpwnam("postgres")
        has_user = True
    except KeyError:
        has_user = False
    missing = ("not root" if os.geteuid() != 0 else "PostgreSQL's server binaries are not installed" if bindir is None
               else "there is no postgres user" if not has_user else "openssl is not installed" if not shutil.which("openssl")
               else "runuser is not on PATH (add /usr/sbin to it)" if not shutil.which("runuser") else None)
    if missing:
        if required:
            pytest.fail(f"COURSE_TEST_POSTGRES_REQUIRED is set but {missing}")
        pytest.skip(f"{missing}: apt-get install postgresql, and run as root")
    import psycopg

    import tempfile

    def as_postgres(*args, check=True):
        res = subprocess.run(["runuser", "-u", "postgres", "--", *map(str, args)], capture_output=True, text=True,
                             cwd="/", timeout=120)
        assert res.returncode == 0 or not check, f"{' '.join(map(str, args))}: {res.stdout}{res.stderr}"
        return res

    work = Path(tempfile.mkdtemp(prefix="weat-pg-test-"))  # not under pytest's folder: postgres cannot enter it
    data = work / "data"
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=dbhost",
                        "-keyout", str(work / "server.key"), "-out", str(work / "server.crt")], check=True, capture_output=True)
        os.chmod(work / "server.key", 0o600)
        subprocess.run(["chown", "-R", "postgres:postgres", str(work)], check=True)

        as_postgres(bindir / "initdb", "-D", data, "-U", "postgres", "--auth-local=trust", "--auth-host=reject")
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        loopback = re.sub(r"'[^']*'", "'127.0.0.1'", listen, count=1)
        with open(data / "postgresql.conf", "a") as f:
            f.write(f"\n# docs/SYSADMIN.md, section 5 (this machine's address on the graders' network: loopback here)\n"
                    f"{loopback}\n{ssl}\n"
                    f"ssl_cert_file = '{work / 'server.crt'}'\nssl_key_file = '{work / 'server.key'}'\n"
                    f"port = {port}\nunix_socket_directories = '{work}'\n")
        address = hba.split()[3]
        (data / "pg_hba.conf").write_text("local all postgres trust\n" + hba.replace(address, "127.0.0.1/32") + "\n")
        subprocess.run(["chown", "postgres:postgres", str(data / "pg_hba.conf")], check=True)
        started = as_postgres(bindir / "pg_ctl", "-D", data, "-l", work / "server.log", "-w", "start", check=False)
        assert started.returncode == 0, started.stdout + started.stderr + (work / "server.log").read_text()
        for sql in ("CREATE ROLE weat_grader LOGIN PASSWORD 'secret-pw'", "CREATE DATABASE weat_course OWNER weat_grader"):
            as_postgres(bindir / "psql", "-h", work, "-p", port, "-U", "postgres", "-d", "postgres", "-qXc", sql)
        pgpass = tmp_path / ".pgpass"
        pgpass.write_text(f"127.0.0.1:{port}:weat_course:weat_grader:secret-pw\n")
        os.chmod(pgpass, 0o600)
        base = url.split('"')[1].replace("dbhost:5432", f"127.0.0.1:{port}")

        def connect(conninfo, passfile=pgpass):
            with psycopg.connect(conninfo, passfile=str(passfile), connect_timeout=20) as conn:
                return conn.execute("SELECT current_user, ssl FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) "
                                    "WHERE pid = pg_backend_pid()").fetchone()

        assert connect(base + "?sslmode=require") == ("weat_grader", True)
        with pytest.raises(psycopg.OperationalError, match="no pg_hba.conf entry"):
            connect(base + "?sslmode=disable")
        with pytest.raises(psycopg.OperationalError, match="no pg_hba.conf entry"):
            connect(base.replace("/weat_course", "/postgres") + "?sslmode=require")
        os.chmod(pgpass, 0o644)  # libpq ignores a password file others can read
        with pytest.raises(psycopg.OperationalError, match="password"):
            connect(base + "?sslmode=require")
    finally:
        as_postgres(bindir / "pg_ctl", "-D", data, "-m", "immediate", "stop", check=False)
        shutil.rmtree(work, ignore_errors=True)


def test_every_command_block_of_the_guide_sets_its_umask():
    """Issue 41 item 11: files made after installation follow the umask of whoever makes them. Every shell block of
    SYSADMIN.md that writes into the course folder, the course environment or /etc, or runs as the grading account,
    sets the umask first (077 for the course folder and the grading account, 022 for what every user reads)."""
    blocks = re.findall(r"```bash\n(.*?)```", GUIDE.read_text(), flags=re.S)
    writes = re.compile(r"/srv/weat-course|runuser -u grader-weat-course|/opt/weat-course/bin/(pip|jupyter|python)|"
                        r"\bcp\b|\bcat >|/etc/|python -m helpers grade")
    missing = [b.strip().splitlines()[0] for b in blocks if writes.search(b) and not re.search(r"umask 0[0-7]{2}", b)]
    assert missing == [], f"blocks of docs/SYSADMIN.md without a umask: {missing}"
    for block in blocks:
        for line in block.splitlines():
            if "runuser -u grader-weat-course -- sh -c" in line:
                assert "umask 077" in line, line
