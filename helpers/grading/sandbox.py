"""Sandboxed grading: each submission's kernel runs inside bubblewrap (``bwrap``).

nbgrader runs a student's notebook in a Jupyter kernel with the grader's rights: without a
sandbox an answer cell can read ``solutions/``, rewrite ``gradebook.db`` or the installed course
package, talk to the network or leave a process behind. Here each kernel is started by
bubblewrap (Debian package ``bubblewrap``, the sandbox Flatpak uses) in fresh Linux namespaces:

* **files by allow-list**: the system folders, the Python environment, the course package's
  ``helpers/`` and ``data/`` read-only; an empty ``/tmp`` and ``HOME``. Nothing else exists
  inside: not ``solutions/``, ``source/``, ``release/``, ``submitted/``, ``feedback/``, the
  gradebook, ``nbgrader_config.py``, other students' folders, ``/run`` or the grader's home;
* **a disk budget**: the kernel's working folder (at the path of
  ``autograded/<student>/<assignment>/``) and ``/tmp`` are each a fresh tmpfs of at most
  ``Sandbox.disk_mb`` MiB (bubblewrap's ``--size``, bubblewrap 0.7 or newer; Debian 12 has 0.8).
  Nothing the kernel writes reaches the real folder, so nothing it writes reaches
  ``autograded/`` or ``feedback/``; files the course ships beside the notebook (an assignment's
  source folder's other files, copied there by nbgrader) are bound into it read-only, the
  notebooks are not;
* **no other writable place without a size**: ``/dev`` is read-only but for ``/dev/shm``, a tmpfs of
  :data:`SHM_MB` MiB; the kernel's sockets are in a tmpfs of :data:`SOCKETS_KB` KiB of their own
  (the grader reaches them through ``/proc/<sandbox>/root``), and its connection folder (the
  connection file) is bound read-only; POSIX message queues hold at most :data:`MSGQUEUE_BYTES`
  bytes (``RLIMIT_MSGQUEUE``; ``/dev/mqueue`` is not mounted). With the disk budget, nothing a
  kernel writes reaches the host's disk (tests/test_sandbox_edges.py fills each place);
* **a safe import path**: ``PYTHONSAFEPATH=1`` (also without the sandbox), so neither Python nor
  IPython puts the working folder on ``sys.path``: a ``numpy.py`` or ``helpers/`` written there
  is never imported in place of the real one;
* **no network**: a network namespace of its own (the kernel talks to nbgrader through Unix
  sockets in a private folder, jupyter_client's ``ipc`` transport);
* **no process left behind**: a PID namespace of its own, so every process the notebook started
  dies with the kernel (``--die-with-parent`` ends it if the grader dies);
* **no privileges**: every capability dropped (as root bubblewrap would otherwise keep them);
* **a memory limit** (``RLIMIT_AS``, set by ``prlimit``), so a memory bomb ends in
  ``MemoryError`` in that cell, not in the machine swapping;
* **a process limit** (``RLIMIT_NPROC``, set by ``prlimit``), so a fork bomb ends in an error in
  that cell. Linux counts it per user and never applies it to root: it holds when grading runs as
  an ordinary user (an instructor's account on a hub, a grading account), not as root;
* **a cleared environment** with an allow-list (no database URL or password leaks in).

Interrupts are sent as Jupyter messages (a signal cannot reach a process in another PID
namespace). :func:`configure` sets up an nbgrader configuration; ``nbgrader_config.py`` switches
the sandbox on for plain ``nbgrader autograde``. ``helpers.grading.execute.ResilientExecute`` is the
preprocessor that starts these kernels.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import Bool, Integer, List, Unicode
from traitlets.config import Configurable

from . import warm

__all__ = ["SandboxError", "find_bwrap", "missing_bwrap_message", "package_dir", "Sandbox", "SandboxKernelManager", "bwrap_command",
           "kernel_env", "provided_files", "bwrap_supports_size", "python_roots", "read_only_paths", "check_workdir", "DEFAULT_MEMORY_MB", "DEFAULT_MAX_PROCESSES",
           "DEFAULT_DISK_MB", "SHM_MB", "SOCKETS_KB", "MSGQUEUE_BYTES"]

#: Default memory limit of a kernel (address space, MiB). The course's nine worked solutions peak at
#: 1.89-1.99 GB of address space in their sandboxed kernel (VmPeak in /proc/<pid>/status; most of it
#: reserved by allocators and never touched: resident memory peaks at 0.36-0.49 GB). 4 GiB leaves
#: room for honest work and stops a memory bomb long before the machine suffers.
DEFAULT_MEMORY_MB = 4096

#: Default process limit (``RLIMIT_NPROC``: processes and threads of the grading user, counted
#: across the machine, so it must leave room for the grader's own). A kernel uses about ten
#: threads; 512 stops a fork bomb within a second and leaves room for a grader's session.
DEFAULT_MAX_PROCESSES = 512

#: Default size (MiB) of each of the kernel's two writable folders, its working folder and /tmp
#: (tmpfs, so also memory of the machine when filled). Every worked solution leaves its working
#: folder empty and at most 0.12 MB in /tmp (matplotlib's font cache, notebook 10's temporary
#: lexicon files); 100 MiB is about a thousand times that.
DEFAULT_DISK_MB = 100

#: Size (MiB) of the kernel's /dev/shm (a tmpfs of its own; the rest of /dev is read-only). No course
#: code uses it (no multiprocessing, joblib or POSIX shared memory); a POSIX semaphore or lock of
#: Python's multiprocessing takes one 4 KiB page there, so 16 MiB holds four thousand of them.
SHM_MB = 16

#: Size (KiB) of the tmpfs that holds the kernel's ZeroMQ Unix sockets (the connection folder itself,
#: with the connection file, is read-only). A socket takes no data blocks, so the kernel's five need
#: none of it; 256 KiB leaves room for nothing else of use.
SOCKETS_KB = 256

#: Bytes a kernel's POSIX message queues may hold (``RLIMIT_MSGQUEUE``; Linux's default, 800 KiB,
#: stated so the host's setting cannot raise it). No course code uses message queues.
MSGQUEUE_BYTES = 819200

#: Environment variables a sandboxed kernel keeps (plus names starting with ENV_PREFIXES).
#: Everything else (database URLs, passwords, tokens, JPY_PARENT_PID) is dropped.
ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE",
             "PYTHONWARNINGS", "PYDEVD_DISABLE_FILE_VALIDATION", "NBGRADER_EXECUTION", "MPLBACKEND",
             "COURSE_DATA_DIR")
ENV_PREFIXES = ("LC_", "OPENBLAS_", "OMP_", "MKL_", "MALLOC_")

#: What of /etc the kernel sees (dynamic linker, users and groups by name, time zone, fonts).
#: Not the rest: /etc holds server configurations, and root owns /etc/shadow.
ETC_ALLOW = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone", "passwd",
             "group", "nsswitch.conf", "hosts", "host.conf", "mime.types", "fonts", "matplotlibrc",
             "os-release", "debian_version")

#: System folders bound read-only (or recreated as the same symbolic links, on merged-/usr systems).
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")

#: Where the kernel's HOME is inside the sandbox (on its private /tmp).
SANDBOX_HOME = "/tmp/home"

#: Options given to an IPython kernel the grader starts. IPython's history database is a SQLite file in
#: HOME written by a background thread: nothing reads it when grading, it spends the kernel's disk
#: budget, and once a submission fills that budget the thread prints "The history saving thread hit an
#: unexpected error" into whichever cell is running (into a student's graded output).
IPYTHON_KERNEL_OPTIONS = ("--HistoryManager.enabled=False",)

_INSTALL = (
    "Install bubblewrap, the sandbox that keeps a submission away from the answers, the gradebook, other "
    "students' work, the network and the course's files (Debian/Ubuntu: `sudo apt-get install bubblewrap`; "
    "Fedora: `sudo dnf install bubblewrap`), or grade WITHOUT the sandbox: `python -m helpers grade "
    "--no-sandbox` or `nbgrader autograde ... --Sandbox.enabled=False`. Without it every submission runs "
    "with your rights: it can read the worked solutions, change any grade, rewrite the course's files "
    "and reach the network. Do that only for submissions you trust."
)


class SandboxError(RuntimeError):
    """The sandbox cannot be used (bubblewrap missing, or an unsafe folder would be exposed).

    The message says what to do (install bubblewrap, grade from the course root, move the course); a
    grading run stops on it rather than run a submission unsandboxed.
    """


def find_bwrap() -> str | None:
    """Find the bubblewrap executable.

    It is looked up on ``PATH``, then in ``/usr/bin``, ``/bin`` and ``/usr/local/bin`` (a grading
    service may run with a short ``PATH``).

    Returns
    -------
    str or None
        ``bwrap`` found on ``PATH`` (or in ``/usr/bin``), else None.
    """
    return shutil.which("bwrap") or shutil.which("bwrap", path="/usr/bin:/bin:/usr/local/bin")


def bwrap_supports_size(bwrap: str) -> bool:
    """Tell whether this bubblewrap has ``--size`` (0.7.0 and newer, not installed setuid).

    Its ``--help`` is read once per executable and the answer kept for this process; a setuid
    bubblewrap refuses ``--size``, so it counts as without.

    Parameters
    ----------
    bwrap : str
        The bubblewrap executable.

    Returns
    -------
    bool
        True when ``--size`` can limit the sandbox's tmpfs folders.
    """
    if bwrap not in _SIZE_SUPPORT:
        try:
            out = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
            help_text = out.stdout + out.stderr
        except (OSError, subprocess.SubprocessError):
            help_text = ""
        setuid = bool(os.stat(bwrap).st_mode & 0o4000) if os.path.exists(bwrap) else False
        _SIZE_SUPPORT[bwrap] = "--size" in help_text and not setuid
    return _SIZE_SUPPORT[bwrap]


_SIZE_SUPPORT: dict[str, bool] = {}


def missing_bwrap_message() -> str:
    """Say that bubblewrap is missing, and what to do.

    The message of the :class:`SandboxError` raised when grading needs the sandbox and bubblewrap is
    not installed: how to install it, or how to grade without it and what that exposes.

    Returns
    -------
    str
        The message.
    """
    return f"bubblewrap (`bwrap`) is not installed, so submissions cannot be graded in a sandbox. {_INSTALL}"


class Sandbox(Configurable):  # numpydoc ignore=PR01,PR02
    """Settings of the grading sandbox (``c.Sandbox.*`` in ``nbgrader_config.py`` or on the command line).

    Each setting is a traitlets option with its help; :class:`SandboxKernelManager` reads them for
    every kernel it starts.

    Parameters
    ----------
    **kwargs : dict
        The options of a traitlets ``Configurable`` (``config``, ``parent``, or settings by name).
    """

    enabled = Bool(True, help="Run each grading kernel in a bubblewrap sandbox. Switch off only for trusted "
                              "submissions (`--Sandbox.enabled=False`).").tag(config=True)
    memory_mb = Integer(DEFAULT_MEMORY_MB, help="Address-space limit of a kernel in MiB (0: no limit).").tag(config=True)
    max_processes = Integer(DEFAULT_MAX_PROCESSES, help="Process limit (RLIMIT_NPROC) of a kernel: processes and "
                            "threads of the grading user, counted across the machine; Linux does not apply it "
                            "to root (0: no limit).").tag(config=True)
    disk_mb = Integer(DEFAULT_DISK_MB, help="Size in MiB of each of the kernel's writable folders (its working "
                      "folder and /tmp, both tmpfs); a write beyond it fails with 'No space left on device' "
                      "(0: no limit).").tag(config=True)
    course_root = Unicode("", help="The course folder (default: CourseDirectory.root, else the current "
                                   "folder). Never visible inside the sandbox.").tag(config=True)
    read_only = List(Unicode(), help="Extra folders the kernel may read (e.g. a shared data folder).").tag(config=True)
    env_allow = List(Unicode(), help="Extra environment variables the kernel keeps.").tag(config=True)
    warm_kernels = Bool(True, help="Fork each kernel from a template in the same sandbox that has already imported "
                                   "the course's modules (helpers.grading.warm): the same kernel, several CPU-seconds "
                                   "cheaper. Needs the disk budget (disk_mb > 0); any failure of the template falls "
                                   "back to plain kernels (`--Sandbox.warm_kernels=False` always starts them "
                                   "plainly).").tag(config=True)

    def root(self) -> Path:
        """Find the course folder, which the sandbox never shows.

        ``Sandbox.course_root`` when set, else ``CourseDirectory.root`` of the configuration, else the
        current folder.

        Returns
        -------
        pathlib.Path
            The course folder, resolved.
        """
        root = self.course_root
        if not root:
            root = self.config.get("CourseDirectory", {}).get("root", "") or os.getcwd()
        return Path(root).resolve()


def package_dir() -> Path:
    """Find the folder of the course package the grader imports.

    That is ``helpers/``, this subpackage's parent; the sandboxed kernel imports the same one.

    Returns
    -------
    pathlib.Path
        The package's folder, resolved.
    """
    return Path(__file__).resolve().parents[1]


def _is_within(path: Path, other: Path) -> bool:
    """``path`` is ``other`` or inside it."""
    try:
        path.relative_to(other)
        return True
    except ValueError:
        return False


def python_roots() -> list[Path]:
    """List the folders of the Python environment.

    ``sys.prefix``, ``sys.base_prefix``, ``sys.exec_prefix`` and ``sys.base_exec_prefix``, each as
    given and as its real path, and the folder above the real interpreter's (a venv's interpreter is a
    symbolic link into the base installation).

    Returns
    -------
    list of pathlib.Path
        The folders, possibly repeated.
    """
    roots = []
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix):
        roots += [Path(os.path.abspath(p)), Path(os.path.realpath(p))]
    exe = Path(os.path.realpath(sys.executable))
    roots.append(exe.parent.parent)
    return roots


def read_only_paths(course_root: Path, extra=(), env: dict | None = None) -> list[Path]:
    """List the folders bound read-only in the sandbox besides the system folders.

    They are the Python environment (:func:`python_roots`), the course package's ``helpers/`` and
    ``data/``, ``COURSE_DATA_DIR``, ``PYTHONPATH`` entries and ``extra``, each as given and as its real
    path. An entry that would reveal the course root, the package's whole folder (a checkout, not an
    installed package), the grader's home or ``/`` (being one of them or above them) is left out, as is
    one that does not exist; its allowed parts (``helpers/``, ``data/``, a venv inside) are bound on
    their own.

    Parameters
    ----------
    course_root : pathlib.Path
        The course folder, never shown.
    extra : iterable of path
        More folders (``Sandbox.read_only``, the kernel's environment).
    env : dict, optional
        The environment to read ``COURSE_DATA_DIR`` and ``PYTHONPATH`` from (default ``os.environ``).

    Returns
    -------
    list of pathlib.Path
        The folders, each once.
    """
    env = os.environ if env is None else env
    package = package_dir()
    candidates = python_roots() + [package, package.parent / "data"]
    if env.get("COURSE_DATA_DIR"):
        candidates.append(Path(env["COURSE_DATA_DIR"]))
    candidates += [Path(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    candidates += [Path(p) for p in extra]
    protected = [course_root, Path.home().resolve(), Path("/")]
    if package.parent.name not in ("site-packages", "dist-packages"):
        # the package's folder is a checkout (editable install or PYTHONPATH): the course itself. An
        # installed package's folder is the environment's site-packages, bound with the environment.
        protected.append(package.parent)
    out: list[Path] = []
    for p in candidates:
        p = Path(os.path.abspath(p))
        for q in {p, Path(os.path.realpath(p))}:
            if not q.exists() or any(_is_within(x, q) for x in protected):
                continue
            if q not in out:
                out.append(q)
    return out


def kernel_env(env: dict, extra_allow=()) -> dict:
    """Make the environment of a sandboxed kernel from the grader's.

    It keeps the allow-listed variables of ``env`` (``ENV_ALLOW``, names starting with
    ``ENV_PREFIXES``), with a private ``HOME`` and ``TMPDIR``, ``PYTHONSAFEPATH=1`` (the working folder
    is not on ``sys.path``), one BLAS thread and two malloc arenas unless set (many kernels share the
    grading machine, and each thread's buffers and arenas count against the memory limit).

    Parameters
    ----------
    env : dict
        The grader's environment (``os.environ``).
    extra_allow : iterable of str
        More variable names to pass through (``Sandbox.env_allow``).

    Returns
    -------
    dict
        The kernel's environment: never a database URL, password or token of the grader.
    """
    allow = set(ENV_ALLOW) | set(extra_allow)
    out = {k: v for k, v in env.items() if k in allow or k.startswith(ENV_PREFIXES)}
    out.update(HOME=SANDBOX_HOME, TMPDIR="/tmp", PATH=env.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
               PYTHONSAFEPATH="1")
    for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        out.setdefault(k, "1")
    out.setdefault("MALLOC_ARENA_MAX", "2")  # glibc reserves 64 MB per thread arena otherwise (0.75 GB measured)
    return out


def bwrap_command(kernel_cmd: list[str], *, workdir, private_dir, read_only, env: dict, memory_mb: int = 0,
                  max_processes: int = 0, bwrap: str = "bwrap", overlays=(), disk_mb: int = 0,
                  provided=(), sockets_dir=None, info_fd: int | None = None) -> list[str]:
    """Build the bubblewrap command line that runs ``kernel_cmd`` in the sandbox.

    Every namespace is unshared (no network), capabilities are dropped, the environment is ``env``
    only; the system folders, part of /etc and ``read_only`` are bound read-only, /dev is read-only but
    for a /dev/shm of :data:`SHM_MB` MiB (with ``disk_mb``), and the kernel runs under ``prlimit`` with the memory, process
    and message-queue limits.

    Parameters
    ----------
    kernel_cmd : list of str
        The kernel's own command (``python -m ipykernel_launcher -f <connection file>``).
    workdir : path
        The notebook's folder: the kernel's working folder, seen inside as a fresh tmpfs (with
        ``disk_mb``) or as the real folder, writable (``disk_mb=0``).
    private_dir : path
        The folder holding the connection file, bound read-only.
    read_only : list of paths
        Folders bound read-only besides the system folders (:func:`read_only_paths`).
    env : dict
        The kernel's whole environment (:func:`kernel_env`); everything else is cleared.
    memory_mb : int
        Address-space limit (``RLIMIT_AS``) in MiB; 0 for none.
    max_processes : int
        Process limit (``RLIMIT_NPROC``, per user; not applied by Linux to root); 0 for none.
    bwrap : str
        The bubblewrap executable.
    overlays : iterable of (path, path)
        ``(source, destination)`` pairs bound read-only after the other folders, so ``source`` is
        seen at ``destination`` instead of what is there (the judge puts a copy of the course package
        without an assignment's reference implementations over the package).
    disk_mb : int
        Size of the tmpfs at ``workdir`` and of ``/tmp`` in MiB; 0: ``/tmp`` without a size limit
        and the real ``workdir`` bound writable.
    provided : iterable of paths
        Files or folders inside ``workdir`` bound read-only into its tmpfs (what the course ships
        beside the notebook; ignored with ``disk_mb=0``, which shows the whole folder).
    sockets_dir : path, optional
        Where the kernel creates its ZeroMQ Unix sockets: a tmpfs of :data:`SOCKETS_KB` KiB (of the
        default size with ``disk_mb=0``). The grader reaches it through ``/proc/<pid>/root`` of the
        sandbox (:func:`helpers.grading.warm.outside`).
    info_fd : int, optional
        A file descriptor bubblewrap writes the sandbox's process id to (its ``--info-fd``).

    Returns
    -------
    list of str
        The command: bubblewrap's, then ``prlimit``'s, then ``kernel_cmd``.
    """
    workdir, private_dir = Path(workdir).resolve(), Path(private_dir).resolve()
    cmd = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--hostname", "sandbox", "--clearenv", "--unsetenv", "JPY_PARENT_PID"]
    if info_fd is not None:
        cmd += ["--info-fd", str(int(info_fd))]
    for k, v in sorted(env.items()):
        cmd += ["--setenv", k, v]
    for name in SYSTEM_DIRS:
        p = Path("/") / name
        if p.is_symlink():
            cmd += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            cmd += ["--ro-bind", str(p), str(p)]
    for name in ETC_ALLOW:
        cmd += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    size = ["--size", str(int(disk_mb) * 1024 * 1024)] if disk_mb else []
    # /dev read-only (bubblewrap's is a tmpfs without a size) but for /dev/shm, a tmpfs with one; without
    # --size (disk_mb=0) /dev/shm stays the folder of the read-only /dev
    shm = ["--size", str(SHM_MB * 1024 * 1024), "--tmpfs", "/dev/shm"] if disk_mb else []
    cmd += ["--dev", "/dev", *shm, "--remount-ro", "/dev", "--proc", "/proc", *size, "--tmpfs", "/tmp",
            "--dir", SANDBOX_HOME]
    # parents before children, so a folder bound inside another one stays visible
    for p in sorted({Path(p) for p in read_only}, key=lambda p: (len(p.parts), str(p))):
        cmd += ["--ro-bind", str(p), str(p)]
    for source, destination in overlays:
        cmd += ["--ro-bind", str(Path(source).resolve()), str(Path(destination).resolve())]
    cmd += ["--ro-bind", str(private_dir), str(private_dir)]  # the connection file: read, never written
    if sockets_dir is not None:
        sockets = ["--size", str(SOCKETS_KB * 1024)] if disk_mb else []
        cmd += [*sockets, "--tmpfs", str(Path(sockets_dir).resolve())]
    if disk_mb:
        cmd += [*size, "--tmpfs", str(workdir)]
        for p in sorted(Path(p).resolve() for p in provided):
            if _is_within(p, workdir) and p != workdir:
                cmd += ["--ro-bind", str(p), str(p)]
    else:
        cmd += ["--bind", str(workdir), str(workdir)]
    cmd += ["--remount-ro", "/", "--chdir", str(workdir), "--"]
    limits = ([f"--as={int(memory_mb) * 1024 * 1024}"] if memory_mb else []) + (
        [f"--nproc={int(max_processes)}"] if max_processes else []) + [f"--msgqueue={MSGQUEUE_BYTES}"]
    cmd += ["prlimit", *limits, "--"]
    return cmd + list(kernel_cmd)


def provided_files(workdir) -> list[Path]:
    """List what the course ships beside a notebook in its folder.

    The entries of ``workdir`` other than notebooks, nbgrader's ``timestamp.txt``, links and special
    files (nbgrader copies an assignment's other source files there; a submission's own files were
    dropped, :mod:`helpers.grading.submission`).

    Parameters
    ----------
    workdir : path
        The notebook's folder.

    Returns
    -------
    list of pathlib.Path
        The files and folders, sorted; empty when the folder cannot be read.
    """
    out = []
    try:
        entries = list(os.scandir(workdir))
    except OSError:
        return out
    for e in entries:
        if e.name.endswith(".ipynb") or e.name == "timestamp.txt" or e.is_symlink():
            continue
        if e.is_file(follow_symlinks=False) or e.is_dir(follow_symlinks=False):
            out.append(Path(e.path))
    return sorted(out)


def check_workdir(workdir: Path, course_root: Path, read_only) -> None:
    """Refuse a kernel folder that would expose the course.

    The kernel may write its working folder, so it must not hold the course, the package or a
    read-only folder; and the course must not be inside a system folder, which the kernel sees whole.

    Parameters
    ----------
    workdir : pathlib.Path
        The kernel's working folder.
    course_root : pathlib.Path
        The course folder.
    read_only : iterable of path
        The folders bound read-only (:func:`read_only_paths`).

    Raises
    ------
    SandboxError
        When either holds; the message says what to do.
    """
    for p in [course_root, package_dir(), *read_only]:
        if _is_within(Path(p), workdir):
            raise SandboxError(f"Refusing to run a sandboxed kernel that may write {workdir}: it holds {p}. "
                               "Grade from the course root, where notebooks run in autograded/<student>/<assignment>/.")
    for name in SYSTEM_DIRS:
        system = Path("/") / name
        if _is_within(course_root, system.resolve()) or _is_within(course_root, system):
            raise SandboxError(f"The course folder {course_root} is inside {system}, which every sandboxed kernel "
                               "can read: move the course (e.g. to /srv/<course>) so its solutions stay hidden.")


class SandboxKernelManager(AsyncKernelManager):
    """A jupyter_client kernel manager whose kernels run in the bubblewrap sandbox (``c.Sandbox``).

    With ``Sandbox.enabled = False`` it is jupyter_client's ``AsyncKernelManager`` (the kernel runs
    with the grader's rights). Used by ``helpers.grading.execute.ResilientExecute``.

    Parameters
    ----------
    *args : tuple
        As for ``AsyncKernelManager``.
    **kwargs : dict
        As for ``AsyncKernelManager``.
    """

    _private_dir = None
    #: ``(source, destination)`` folders bound over others in the sandbox (see :func:`bwrap_command`);
    #: without the sandbox, each source's parent goes first on the kernel's ``PYTHONPATH`` instead.
    overlays: tuple = ()

    def _sandbox(self) -> Sandbox:
        return Sandbox(config=self.config)

    async def _ipython_kernel_cmd(self, **kw):
        """jupyter_client's kernel command, with :data:`IPYTHON_KERNEL_OPTIONS` for an IPython kernel."""
        kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
        if "ipykernel_launcher" in kernel_cmd[1:3]:
            kernel_cmd = [*kernel_cmd, *IPYTHON_KERNEL_OPTIONS]
        return kernel_cmd, kw

    async def _async_pre_start_kernel(self, **kw):
        settings = self._sandbox()
        if not settings.enabled:
            kernel_cmd, kw = await self._ipython_kernel_cmd(**kw)
            env = dict(kw.get("env") or os.environ)
            env["PYTHONSAFEPATH"] = "1"  # the working folder is not on sys.path
            if self.overlays:
                first = [str(Path(source).resolve().parent) for source, _ in self.overlays]
                env["PYTHONPATH"] = os.pathsep.join(first + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
            kw["env"] = env
            return kernel_cmd, kw
        bwrap = find_bwrap()
        if bwrap is None:
            raise SandboxError(missing_bwrap_message())
        if settings.disk_mb and not bwrap_supports_size(bwrap):
            raise SandboxError(f"{bwrap} cannot limit the kernel's disk (its --size option needs bubblewrap 0.7 or "
                               "newer, not installed setuid): install a newer bubblewrap (Debian 12 has 0.8), or "
                               "grade without a disk budget with --Sandbox.disk_mb=0 (a submission may then fill "
                               "the disk of autograded/ and feedback/).")
        if self._private_dir is None:  # kept across restarts (same connection file)
            # in the folder a warm template sees (helpers.grading.warm), so a forked kernel can read it
            self._private_dir = tempfile.mkdtemp(prefix="kernel-", dir=warm.spool_dir())
            self.transport = "ipc"
            self.connection_file = os.path.join(self._private_dir, "kernel.json")
        # the sockets' path inside the sandbox (a tmpfs there, an empty folder outside); the grader's side
        # becomes the same path under /proc/<sandbox>/root once the kernel is launched
        self.ip = os.path.join(warm.sockets_dir(), "ipc")
        assert self.kernel_spec is not None
        self.kernel_spec.interrupt_mode = "message"  # signals cannot enter the PID namespace
        kernel_cmd, kw = await self._ipython_kernel_cmd(**kw)
        workdir = Path(kw.get("cwd") or os.getcwd()).resolve()
        root = settings.root()
        env = kw.get("env") or dict(os.environ)
        exe = shutil.which(kernel_cmd[0], path=env.get("PATH")) or kernel_cmd[0]
        kernel_prefixes = {Path(os.path.abspath(exe)).parent.parent, Path(os.path.realpath(exe)).parent.parent}
        read_only = read_only_paths(root, [*settings.read_only, *kernel_prefixes], env)
        check_workdir(workdir, root, read_only)
        kw["env"] = kernel_env(env, settings.env_allow)
        kw.setdefault("stdout", subprocess.DEVNULL)  # ipykernel's connection banner, not the student's prints
        self._close_stderr()
        self._stderr = kw["stderr"] = warm.stderr_pipe("a sandboxed kernel")  # bounded on its way to the grader's
        env = kw["env"]

        # this kernel's sandbox, or its template's
        def command(argv, inner_workdir, private_dir, provided=(), info_fd=None):
            return bwrap_command(argv, workdir=inner_workdir, private_dir=private_dir, read_only=read_only, env=env,
                                 memory_mb=settings.memory_mb, max_processes=settings.max_processes, bwrap=bwrap,
                                 overlays=self.overlays, disk_mb=settings.disk_mb, provided=provided,
                                 sockets_dir=warm.sockets_dir(), info_fd=info_fd)

        provided = provided_files(workdir)
        self._close_info()
        self._info = os.pipe()  # bubblewrap writes the sandbox's process id there (--info-fd)
        kw["pass_fds"] = (self._info[1],)  # Popen's keyword, passed through by jupyter_client's launcher
        cmd = command(kernel_cmd, workdir, self._private_dir, provided, info_fd=self._info[1])
        self.log.debug("Sandboxed kernel: %s", cmd)
        self._template, self._kernel_cmd = None, list(kernel_cmd)
        if settings.warm_kernels and settings.disk_mb and not provided and kernel_cmd[1:3] == ["-m", "ipykernel_launcher"]:
            # the template's own command line says everything its kernels depend on
            key = tuple(command(kernel_cmd[:1], warm.WORKDIR, warm.spool_dir()))
            self._template = warm.template_for(key, command, kernel_cmd[0], env)
        return cmd, kw

    _info: tuple | None = None
    _stderr: int | None = None

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            try:
                os.close(self._stderr)
            except OSError:
                pass
            self._stderr = None

    def _close_info(self) -> None:
        for fd in self._info or ():
            try:
                os.close(fd)
            except OSError:
                pass
        self._info = None

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        """Fork the kernel from this process's warm template when there is one, else start it plainly."""
        template, self._template = getattr(self, "_template", None), None
        if template is not None:
            try:
                process = template.fork(self._kernel_cmd)
            except warm.TemplateError as exc:
                self.log.warning("Warm kernels: %s; starting this kernel plainly.", exc)
                warm.note(f"a kernel was started plainly: {exc}", logged=True)
            else:
                self._close_info()
                self._close_stderr()
                assert self.provisioner is not None
                self.provisioner.process, self.provisioner.pid, self.provisioner.pgid = process, process.pid, None
                self._reconcile_connection_info(self.provisioner.connection_info)
                try:
                    self.ip = warm.outside(template.sandbox_pid, self.ip)
                except warm.TemplateError as exc:
                    raise SandboxError(f"The kernel's sockets cannot be reached: {exc}") from exc
                return
        if self._info is None:  # not started by _async_pre_start_kernel (the sandbox is off)
            await super()._async_launch_kernel(kernel_cmd, **kw)
            return
        read, write = self._info
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            os.close(write)
            self._info = (read,)
            self._close_stderr()
        try:
            self.ip = warm.outside(warm.sandbox_pid(read, self.provisioner.process), self.ip)
        except warm.TemplateError as exc:
            raise SandboxError(f"The sandboxed kernel cannot be reached: {exc}") from exc
        finally:
            self._close_info()

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """Clean up as jupyter_client does; unless restarting, remove the connection file's folder.

        The folder is private to this manager and kept across restarts, so that a restarted kernel
        reads the same connection file; it goes when the kernel is shut down for good.

        Parameters
        ----------
        restart : bool
            True when the kernel is being restarted: its connection file is kept.
        """
        await super()._async_cleanup_resources(restart=restart)
        if not restart and self._private_dir is not None:
            shutil.rmtree(self._private_dir, ignore_errors=True)
            self._private_dir = None

    cleanup_resources = _async_cleanup_resources
