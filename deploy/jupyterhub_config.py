# JupyterHub for the course weat-course (docs/SYSADMIN.md, "Deploying the hub, step by step").
#
# Copy this file to /etc/jupyterhub/jupyterhub_config.py; deploy/jupyterhub.service starts
#   /opt/weat-course/bin/jupyterhub -f /etc/jupyterhub/jupyterhub_config.py
# as root, in /var/lib/jupyterhub. tests/test_hub.py starts JupyterHub from this very file (a
# byte-identical copy), with the environment variables below pointing at its own folders and users,
# its loopback ports given on the command line, and one file in jupyterhub_config.d/ (its API token).
#
# What you may change, at the top: the course id, the course folder and the grading account, the
# two Unix groups. Each can also be set by an environment variable of the same name (in the
# service unit: Environment=WEAT_COURSE_DIR=...); the defaults are the names SYSADMIN.md uses.
import grp
import os
import sys
from glob import glob
from importlib.util import find_spec

c = get_config()  # noqa: F821

COURSE_ID = os.environ.get("WEAT_COURSE_ID", "weat-course")
COURSE_DIR = os.environ.get("WEAT_COURSE_DIR", "/srv/weat-course")       # owned by the grading account
GRADING_ACCOUNT = os.environ.get("WEAT_GRADING_ACCOUNT", "grader-weat-course")
STUDENTS_GROUP = os.environ.get("WEAT_STUDENTS_GROUP", "weat-students")  # Unix group: may log in
GRADERS_GROUP = os.environ.get("WEAT_GRADERS_GROUP", "weat-graders")     # Unix group: may log in, open the formgrader
FORMGRADER_PORT = int(os.environ.get("WEAT_FORMGRADER_PORT", "9999"))   # on 127.0.0.1 only
# the course environment: the one this hub runs from (/opt/weat-course when started by the unit)
COURSE_ENV = sys.prefix
# JupyterHub's own files: its database, the cookie secret, pid files. systemd sets STATE_DIRECTORY
# (StateDirectory=jupyterhub in the unit: /var/lib/jupyterhub, mode 0700, owned by root).
STATE = os.environ.get("STATE_DIRECTORY", "/var/lib/jupyterhub")
PATH = f"{COURSE_ENV}/bin:/usr/local/bin:/usr/bin:/bin"
# memory of one user's server and kernels together (SYSADMIN.md section 10: about 0.6 GB per active student,
# 0.4 GB more per open notebook); enforced with SystemdSpawner (below), shown to users otherwise
MEMORY_LIMIT = os.environ.get("WEAT_MEMORY_LIMIT", "3G")
IDLE_TIMEOUT = int(os.environ.get("WEAT_IDLE_TIMEOUT", "3600"))   # seconds idle before a server or kernel is stopped

# --- network: plain HTTP on loopback; the reverse proxy (deploy/nginx-jupyterhub.conf) does HTTPS
c.JupyterHub.bind_url = "http://127.0.0.1:8000"       # the public side of configurable-http-proxy
c.JupyterHub.hub_bind_url = "http://127.0.0.1:8081"   # the hub's own API, for the proxy and the servers
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:8001"
c.ConfigurableHTTPProxy.pid_file = os.path.join(STATE, "jupyterhub-proxy.pid")
c.JupyterHub.pid_file = os.path.join(STATE, "jupyterhub.pid")

# --- state: the database of users and servers (SQLite; not the gradebook) and the cookie secret.
# JupyterHub writes the secret (32 random bytes, hex) on its first start, mode 0600, and refuses a
# secret file that others can read. Keep it across restarts and upgrades: a new secret logs every
# user out. It is not in this file, which is readable by all.
c.JupyterHub.db_url = "sqlite:///" + os.path.join(STATE, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "jupyterhub_cookie_secret")

# --- who logs in: the machine's Unix accounts (PAM), members of the two groups only
c.JupyterHub.authenticator_class = "pam"
c.LocalAuthenticator.allowed_groups = {STUDENTS_GROUP, GRADERS_GROUP}
c.LocalAuthenticator.create_system_users = False   # accounts are made by you, not by the hub

# --- each user's server: JupyterLab from the course environment, run as that user in their home
c.Spawner.cmd = [os.path.join(COURSE_ENV, "bin", "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {"PATH": PATH}
c.Spawner.start_timeout = 180   # seconds; a busy machine starts JupyterLab slowly
c.Spawner.http_timeout = 120
# idle kernels are stopped by the user's own server (jupyter_server's culling: no package needed)
c.Spawner.args = [f"--MappingKernelManager.cull_idle_timeout={IDLE_TIMEOUT}", "--MappingKernelManager.cull_interval=300"]

# --- memory per user: SystemdSpawner runs each user's server and kernels in a systemd unit with MemoryMax
# (pip install jupyterhub-systemdspawner==1.0.2, SYSADMIN.md section 10); where it is not installed, or
# systemd does not run, the LocalProcessSpawner starts servers with no limit (it does not enforce mem_limit)
c.Spawner.mem_limit = MEMORY_LIMIT
if find_spec("systemdspawner") is not None and os.path.isdir("/run/systemd/system"):
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.unit_name_template = "jupyter-{USERNAME}-singleuser"
    c.SystemdSpawner.isolate_tmp = True          # a private /tmp per user
    c.SystemdSpawner.isolate_devices = True
    c.SystemdSpawner.disable_user_sudo = True
    c.SystemdSpawner.unit_extra_properties = {"MemorySwapMax": "0", "UMask": "0077"}

# --- the graders' formgrader: one server run as the grading account in the course folder, at
# https://<hub>/services/<course id>/ (docs/SYSADMIN.md, "Several graders"). Who may open it: the
# members of GRADERS_GROUP when the hub starts (restart the hub after changing the group).
try:
    graders = sorted(grp.getgrnam(GRADERS_GROUP).gr_mem)
except KeyError:
    graders = []
c.JupyterHub.load_groups = {GRADERS_GROUP: {"users": graders}}
c.JupyterHub.load_roles = [{
    "name": f"formgrade-{COURSE_ID}",
    "groups": [GRADERS_GROUP],
    "scopes": [f"access:services!service={COURSE_ID}", "list:services", f"read:services!service={COURSE_ID}"],
}]
c.JupyterHub.services = [{
    "name": COURSE_ID,   # nbgrader's course list finds the formgrader by this name: keep it the course id
    "url": f"http://127.0.0.1:{FORMGRADER_PORT}",
    "command": [os.path.join(COURSE_ENV, "bin", "jupyterhub-singleuser"), f"--ServerApp.root_dir={COURSE_DIR}"],
    "user": GRADING_ACCOUNT,
    "cwd": COURSE_DIR,
    "environment": {"PATH": PATH, "JUPYTERHUB_DEFAULT_URL": "/formgrader"},
}]

# --- idle servers are stopped by jupyterhub-idle-culler, a hub service (pip install jupyterhub-idle-culler==2.0.0,
# SYSADMIN.md section 10); its role is the one its documentation gives
if find_spec("jupyterhub_idle_culler") is not None:
    c.JupyterHub.services.append({
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={IDLE_TIMEOUT}"],
    })
    c.JupyterHub.load_roles.append({
        "name": "idle-culler",
        "services": ["idle-culler"],
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    })

# --- local additions, read last in name order: every *.py in jupyterhub_config.d/ beside this file
# (for example an SSO authenticator and its client secret, in a file only root can read; this file
# can then be replaced by a new version without losing them)
for extra in sorted(glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "jupyterhub_config.d", "*.py"))):
    load_subconfig(extra)  # noqa: F821
