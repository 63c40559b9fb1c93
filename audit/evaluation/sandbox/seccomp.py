"""The two seccomp filters of the listing sandbox, compiled to BPF by libseccomp (through pyseccomp).

``sandbox_filter()`` applies to every process in the sandbox (bubblewrap's ``--seccomp``);
``listing_filter()`` is stacked on top of it in the process that runs listing code, after the
trusted runner has forked it. A forbidden call kills the process (``SECCOMP_RET_KILL_PROCESS``,
seen by its parent as SIGSYS), so an attempt cannot be caught and hidden by the listing; the
only exception is ``clone3``, which answers ENOSYS because its flags sit behind a pointer a filter
cannot read (the C library then falls back to ``clone``, whose flags it can).
Syscall names and semantics: the Linux man-pages, section 2; ``SECCOMP_RET_*``: seccomp(2).
"""

from __future__ import annotations

import errno
import os
import socket
from functools import lru_cache

KILL = 0x80000000  # SECCOMP_RET_KILL_PROCESS (Linux ≥ 4.14)

# Namespace flags of clone(2); a clone with any of them is refused (no new namespaces inside).
_CLONE_NEWTIME = 0x00000080
_CLONE_NEWNS = 0x00020000
_CLONE_NEWCGROUP = 0x02000000
_CLONE_NEWUTS = 0x04000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_CLONE_THREAD = 0x00010000
_TIOCSTI = 0x5412
_TIOCLINUX = 0x541C

# Refused everywhere in the sandbox: debugging other processes, mounts and namespaces, the kernel
# keyring, BPF, performance counters, io_uring (a second way into most system calls), userfaultfd,
# handles that bypass the mount view, and administration of the machine.
SANDBOX_DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr", "unshare", "setns",
    "keyctl", "add_key", "request_key",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "open_by_handle_at", "name_to_handle_at",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon",
    "swapoff", "acct", "quotactl", "syslog", "settimeofday", "clock_settime", "adjtimex", "sethostname",
    "setdomainname", "iopl", "ioperm", "fanotify_init", "lookup_dcookie", "vhangup",
)

# Refused in the process that runs listing code: starting any other process or program.
LISTING_DENIED = ("execve", "execveat", "fork", "vfork")


class SeccompUnavailable(RuntimeError):
    """libseccomp (the shared library or its Python binding) cannot be loaded or compile a filter."""


def _library():
    try:
        import pyseccomp
    except Exception as exc:  # the binding raises whatever ctypes raises when libseccomp.so is absent
        raise SeccompUnavailable(f"libseccomp could not be loaded ({type(exc).__name__}: {exc})") from None
    return pyseccomp


def _deny(f, lib, names, action) -> None:
    for name in names:
        try:
            f.add_rule(action, name)
        except (OSError, ValueError, TypeError):
            # A name this architecture does not have (ioperm on aarch64, …): nothing to refuse.
            continue


def _export(f) -> bytes:
    read, write = os.pipe()
    try:
        with os.fdopen(write, "wb", closefd=False) as out:
            f.export_bpf(out)
        os.close(write)
        write = -1
        chunks = []
        while chunk := os.read(read, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(read)
        if write != -1:
            os.close(write)


@lru_cache(maxsize=1)
def sandbox_filter() -> bytes:
    """The filter for the whole sandbox, as a BPF program (an array of ``struct sock_filter``).

    Kills the process on: the calls in ``SANDBOX_DENIED``; ``clone`` with a namespace flag;
    ``socket``/``socketpair`` of any family but AF_UNIX (no AF_INET, AF_INET6, AF_NETLINK,
    AF_PACKET, …); the terminal-injection ioctls TIOCSTI and TIOCLINUX. ``clone3`` fails with
    ENOSYS. Other architectures' system calls (i386 ``int 0x80``, x32) kill the process
    (libseccomp's default for a foreign architecture). Raises ``SeccompUnavailable``.
    """
    lib = _library()
    try:
        f = lib.SyscallFilter(lib.ALLOW)
        _deny(f, lib, SANDBOX_DENIED, KILL)
        for flag in (_CLONE_NEWTIME, _CLONE_NEWNS, _CLONE_NEWCGROUP, _CLONE_NEWUTS, _CLONE_NEWIPC, _CLONE_NEWUSER,
                     _CLONE_NEWPID, _CLONE_NEWNET):
            f.add_rule(KILL, "clone", lib.Arg(0, lib.MASKED_EQ, flag, flag))
        f.add_rule(lib.ERRNO(errno.ENOSYS), "clone3")
        for name in ("socket", "socketpair"):
            f.add_rule(KILL, name, lib.Arg(0, lib.NE, socket.AF_UNIX))
        for request in (_TIOCSTI, _TIOCLINUX):
            f.add_rule(KILL, "ioctl", lib.Arg(1, lib.MASKED_EQ, 0xFFFFFFFF, request))
        return _export(f)
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp could not compile the sandbox filter ({exc})") from None


@lru_cache(maxsize=1)
def listing_filter() -> bytes:
    """The filter stacked on the process that runs listing code, as a BPF program.

    Kills the process on ``execve``/``execveat``/``fork``/``vfork`` and on a ``clone`` that is
    not a thread (no ``CLONE_THREAD``): listing code can start no process and no program, so it
    leaves no daemon, no ``setsid`` grandchild and no fork bomb. Raises ``SeccompUnavailable``.
    """
    lib = _library()
    try:
        f = lib.SyscallFilter(lib.ALLOW)
        _deny(f, lib, LISTING_DENIED, KILL)
        f.add_rule(KILL, "clone", lib.Arg(0, lib.MASKED_EQ, _CLONE_THREAD, 0))
        f.add_rule(lib.ERRNO(errno.ENOSYS), "clone3")
        return _export(f)
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp could not compile the listing filter ({exc})") from None
