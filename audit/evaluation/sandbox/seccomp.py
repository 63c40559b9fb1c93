"""The seccomp filters of the listing sandbox: allow-lists, compiled to BPF by libseccomp (through pyseccomp).

Every system call of the kernel's table is in exactly one class below. The classes were reviewed against
Linux 6.19's x86_64 table (``arch/x86/entry/syscalls/syscall_64.tbl``: numbers 0-336 and 424-470;
``REVIEWED_TABLE``), one call at a time; names an architecture does not have are skipped when a filter
is built, and calls libseccomp does not yet name are added by number where the number is the same on
every architecture this project runs on (``_NUMBERS``).

``ALLOWED``    what CPython, its standard library and the trusted runner need, acting on the process's own
               memory, files in its view, descriptors and threads;
``RUNNER_ONLY`` allowed to the runner (bubblewrap's start of its program, a call's process group), refused in
               the process that runs listing code;
``REFUSED``    fail with EPERM: not needed, and no business of a listing (other users' IDs, scheduling of
               other processes, System V and POSIX IPC, NUMA placement, kernel-internal or obsolete calls,
               Landlock, LSM attributes, secret memory, mount listings);
``ABSENT``     fail with ENOSYS, as on a kernel without them: ``clone3`` (its flags sit behind a pointer a
               filter cannot read, so the C library falls back to ``clone``, whose flags it can);
``FORBIDDEN``  kill the process (``SECCOMP_RET_KILL_PROCESS``, seen by its parent as SIGSYS), so an attempt
               cannot be caught and hidden: reaching another process (ptrace, process_vm_*, pidfd_*, kcmp,
               process_madvise/mrelease, migrate_pages, move_pages), mounts and namespaces, keyrings, BPF,
               performance counters, io_uring, userfaultfd, file handles, fanotify and the machine's
               administration (modules, kexec, reboot, swap, clocks, quotas, accounting, host names, I/O ports).

A number the review did not see (a newer kernel's call) fails with ENOSYS. Argument rules: ``socket`` and
``socketpair`` only for ``AF_UNIX``; ``clone`` with a namespace flag, and the terminal-injection ioctls
TIOCSTI and TIOCLINUX, kill (a separate filter: libseccomp lets an unconditional rule override a conditional
one on the same call); ``prlimit64`` only on the calling process (pid 0); ``sched_setscheduler`` only to ``SCHED_OTHER``. In the process that runs listing
code, ``clone`` only makes threads, and ``execve``, ``execveat``, ``fork``, ``vfork`` kill. Foreign
architectures' calls (i386 ``int 0x80``, x32) kill.
Syscall names and semantics: the Linux man-pages, section 2; ``SECCOMP_RET_*``: seccomp(2).
"""

from __future__ import annotations

import errno
import os
import platform
import socket
from functools import lru_cache

REVIEWED_TABLE = "Linux 6.19, arch/x86/entry/syscalls/syscall_64.tbl (0-336, 424-470)"

ALLOWED = frozenset("""
    read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 lseek
    open openat openat2 creat close close_range dup dup2 dup3 fcntl flock pipe pipe2
    stat fstat lstat newfstatat statx statfs fstatfs access faccessat faccessat2 readlink readlinkat
    getdents getdents64 getcwd chdir fchdir umask
    mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat symlink symlinkat
    chmod fchmod fchmodat fchmodat2 chown fchown lchown fchownat truncate ftruncate fallocate
    utime utimes futimesat utimensat fsync fdatasync fadvise64 readahead sendfile copy_file_range splice tee
    setxattr lsetxattr fsetxattr getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr
    removexattr lremovexattr fremovexattr setxattrat getxattrat listxattrat removexattrat
    brk mmap munmap mremap mprotect madvise msync mseal pkey_mprotect pkey_alloc pkey_free map_shadow_stack
    poll ppoll select pselect6 epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2
    eventfd eventfd2 signalfd signalfd4 timerfd_create timerfd_settime timerfd_gettime
    socket socketpair bind connect listen accept accept4 shutdown getsockname getpeername
    setsockopt getsockopt sendto recvfrom sendmsg recvmsg sendmmsg recvmmsg ioctl
    rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait rt_sigsuspend sigaltstack pause
    kill tkill tgkill rt_sigqueueinfo rt_tgsigqueueinfo restart_syscall
    clone wait4 waitid exit exit_group set_tid_address set_robust_list rseq futex futex_waitv
    futex_wake futex_wait futex_requeue membarrier arch_prctl prctl
    getpid getppid gettid getpgrp getpgid getsid getuid geteuid getgid getegid getgroups getresuid getresgid
    capget getrlimit setrlimit prlimit64 getrusage times sysinfo uname getcpu getrandom
    sched_yield sched_setscheduler sched_getaffinity sched_getparam sched_getscheduler sched_getattr sched_get_priority_max
    sched_get_priority_min sched_rr_get_interval getpriority ioprio_get
    time gettimeofday clock_gettime clock_getres clock_nanosleep nanosleep
    alarm getitimer setitimer timer_create timer_settime timer_gettime timer_getoverrun timer_delete
    execve setpgid
""".split())

RUNNER_ONLY = frozenset({"execve", "setpgid"})

REFUSED = frozenset("""
    setuid setgid setreuid setregid setresuid setresgid setfsuid setfsgid setgroups capset setsid
    personality seccomp
    setpriority sched_setparam sched_setattr sched_setaffinity ioprio_set
    mlock mlock2 munlock mlockall munlockall mincore cachestat
    mbind set_mempolicy get_mempolicy set_mempolicy_home_node get_robust_list
    shmget shmat shmdt shmctl semget semop semctl semtimedop msgget msgsnd msgrcv msgctl
    mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr
    io_setup io_destroy io_getevents io_submit io_cancel io_pgetevents
    inotify_init inotify_init1 inotify_add_watch inotify_rm_watch
    mknod mknodat memfd_create memfd_secret vmsplice sync syncfs sync_file_range
    modify_ldt set_thread_area get_thread_area
    landlock_create_ruleset landlock_add_rule landlock_restrict_self
    lsm_get_self_attr lsm_set_self_attr lsm_list_modules statmount listmount listns file_getattr file_setattr
    uselib ustat sysfs _sysctl remap_file_pages create_module get_kernel_syms query_module nfsservctl
    getpmsg putpmsg afs_syscall tuxcall security vserver epoll_ctl_old epoll_wait_old uretprobe uprobe
""".split())

ABSENT = frozenset({"clone3"})

FORBIDDEN = frozenset("""
    ptrace process_vm_readv process_vm_writev process_madvise process_mrelease kcmp
    pidfd_open pidfd_getfd pidfd_send_signal migrate_pages move_pages
    mount umount2 pivot_root chroot open_tree open_tree_attr move_mount fsopen fsconfig fsmount fspick
    mount_setattr unshare setns
    keyctl add_key request_key bpf perf_event_open userfaultfd io_uring_setup io_uring_enter io_uring_register
    open_by_handle_at name_to_handle_at lookup_dcookie fanotify_init fanotify_mark
    kexec_load kexec_file_load init_module finit_module delete_module reboot swapon swapoff acct
    quotactl quotactl_fd syslog settimeofday clock_settime clock_adjtime adjtimex sethostname setdomainname
    iopl ioperm vhangup
    execveat fork vfork
""".split())

# Refused in the process that runs listing code, on top of the sandbox's classes: starting any process or
# program (a clone without CLONE_THREAD is killed by its own rule).
LISTING_FORBIDDEN = frozenset({"execve", "execveat", "fork", "vfork"})

# Calls this project's libseccomp may not name yet, by number. From 424 on, a call has the same number on
# x86_64 and aarch64 (asm-generic); 335-336 are x86_64's own.
_NUMBERS = {"setxattrat": 463, "getxattrat": 464, "listxattrat": 465, "removexattrat": 466, "open_tree_attr": 467,
            "file_getattr": 468, "file_setattr": 469, "listns": 470, "statmount": 457, "listmount": 458,
            "lsm_get_self_attr": 459, "lsm_set_self_attr": 460, "lsm_list_modules": 461, "mseal": 462,
            "futex_wake": 454, "futex_wait": 455, "futex_requeue": 456, "map_shadow_stack": 453, "cachestat": 451,
            "fchmodat2": 452, "set_mempolicy_home_node": 450, "futex_waitv": 449, "process_mrelease": 448,
            "memfd_secret": 447}
_NUMBERS_X86_64 = {"uretprobe": 335, "uprobe": 336}

KILL = 0x80000000  # SECCOMP_RET_KILL_PROCESS (Linux >= 4.14)

# Namespace flags of clone(2); a clone with any of them is refused (no new namespaces inside).
_CLONE_NEWTIME = 0x00000080
_CLONE_NEWNS = 0x00020000
_CLONE_NEWCGROUP = 0x02000000
_CLONE_NEWUTS = 0x04000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_NAMESPACE_FLAGS = (_CLONE_NEWTIME, _CLONE_NEWNS, _CLONE_NEWCGROUP, _CLONE_NEWUTS, _CLONE_NEWIPC, _CLONE_NEWUSER,
                    _CLONE_NEWPID, _CLONE_NEWNET)
_CLONE_THREAD = 0x00010000
_TIOCSTI = 0x5412
_TIOCLINUX = 0x541C


class SeccompUnavailable(RuntimeError):
    """libseccomp (the shared library or its Python binding) cannot be loaded or compile a filter."""


def _library():
    try:
        import pyseccomp
    except Exception as exc:  # the binding raises whatever ctypes raises when libseccomp.so is absent
        raise SeccompUnavailable(f"libseccomp could not be loaded ({type(exc).__name__}: {exc})") from None
    return pyseccomp


def _number(lib, name: str) -> int | None:
    """The native number of ``name``, or None when this architecture has no such call."""
    try:
        number = lib.resolve_syscall(lib.Arch.NATIVE, name)
    except (OSError, ValueError, TypeError):
        number = -1
    if number != -1:  # -1: a name libseccomp does not know; below -1: a call of another architecture only
        return number if number >= 0 else None
    machine = platform.machine()
    if machine in ("x86_64", "aarch64") and name in _NUMBERS:
        return _NUMBERS[name]
    if machine == "x86_64" and name in _NUMBERS_X86_64:
        return _NUMBERS_X86_64[name]
    return None


def _rule(f, lib, action, names, *args) -> None:
    for name in sorted(names):
        number = _number(lib, name)
        if number is None:
            continue
        f.add_rule(action, number, *args)


def _new(lib, default):
    f = lib.SyscallFilter(default)
    f.set_attr(lib.Attr.ACT_BADARCH, KILL)
    try:
        f.set_attr(lib.Attr.CTL_OPTIMIZE, 2)  # a binary tree of syscall numbers (libseccomp >= 2.5)
    except OSError:
        pass
    return f


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


def _calls(lib, allowed: frozenset, forbidden: frozenset, refused: frozenset, thread_only: bool):
    """An allow-list filter: ``allowed`` pass, ``refused`` EPERM, ``ABSENT`` and anything unnamed ENOSYS,
    ``forbidden`` kill."""
    f = _new(lib, lib.ERRNO(errno.ENOSYS))
    special = {"prlimit64", "clone", "socket", "socketpair", "sched_setscheduler"}
    _rule(f, lib, lib.ALLOW, allowed - special)
    _rule(f, lib, lib.ERRNO(errno.EPERM), refused)
    _rule(f, lib, KILL, forbidden)
    # ``ABSENT`` needs no rule: ENOSYS is the default (libseccomp refuses a rule that repeats the default).
    # Each argument rule below is split into disjoint cases (libseccomp lets an unconditional rule win).
    _rule(f, lib, lib.ALLOW, {"prlimit64"}, lib.Arg(0, lib.EQ, 0))
    _rule(f, lib, lib.ERRNO(errno.EPERM), {"prlimit64"}, lib.Arg(0, lib.NE, 0))
    # ZeroMQ's threads (a notebook's kernel) set their own policy, unchanged: SCHED_OTHER (0) only, which gives no
    # process more time than the others (any other policy, or SCHED_RESET_ON_FORK, fails with EPERM).
    _rule(f, lib, lib.ALLOW, {"sched_setscheduler"}, lib.Arg(1, lib.EQ, 0))
    _rule(f, lib, lib.ERRNO(errno.EPERM), {"sched_setscheduler"}, lib.Arg(1, lib.NE, 0))
    for name in ("socket", "socketpair"):
        _rule(f, lib, lib.ALLOW, {name}, lib.Arg(0, lib.EQ, socket.AF_UNIX))
        _rule(f, lib, KILL, {name}, lib.Arg(0, lib.NE, socket.AF_UNIX))
    if thread_only:
        _rule(f, lib, lib.ALLOW, {"clone"}, lib.Arg(0, lib.MASKED_EQ, _CLONE_THREAD, _CLONE_THREAD))
        _rule(f, lib, KILL, {"clone"}, lib.Arg(0, lib.MASKED_EQ, _CLONE_THREAD, 0))
    else:
        _rule(f, lib, lib.ALLOW, {"clone"})
    return f


#: Allowed to the notebook runner on top of ``ALLOWED``: jupyter_client starts the kernel in a new session. The
#: sandbox is already its own session without a terminal (bubblewrap's ``--new-session``), and the kernel's listing
#: filter refuses it again, so the notebook's code cannot call it.
NOTEBOOK_RUNNER_ONLY = frozenset({"setsid"})


@lru_cache(maxsize=2)
def sandbox_filters(notebook: bool = False) -> tuple[bytes, bytes]:
    """The two filters of the whole sandbox (bubblewrap's ``--add-seccomp-fd``), as BPF programs (arrays of
    ``struct sock_filter``): the allow-list of calls, and the argument rules (default allow; ``clone`` with a
    namespace flag and the ioctls TIOCSTI and TIOCLINUX kill). ``notebook``: the notebook sandbox's, which also
    allows ``NOTEBOOK_RUNNER_ONLY``. Raises ``SeccompUnavailable``."""
    lib = _library()
    extra = NOTEBOOK_RUNNER_ONLY if notebook else frozenset()
    try:
        calls = _calls(lib, ALLOWED | extra, FORBIDDEN, REFUSED - extra, thread_only=False)
        args = _new(lib, lib.ALLOW)
        for flag in _NAMESPACE_FLAGS:
            _rule(args, lib, KILL, {"clone"}, lib.Arg(0, lib.MASKED_EQ, flag, flag))
        for request in (_TIOCSTI, _TIOCLINUX):
            _rule(args, lib, KILL, {"ioctl"}, lib.Arg(1, lib.MASKED_EQ, 0xFFFFFFFF, request))
        return _export(calls), _export(args)
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp could not compile the sandbox filters ({exc})") from None


@lru_cache(maxsize=1)
def listing_filter() -> bytes:
    """The allow-list stacked on the process that runs listing code, as a BPF program: the sandbox's
    ``ALLOWED`` less ``RUNNER_ONLY``; ``clone`` only with ``CLONE_THREAD``; ``execve``, ``execveat``, ``fork``,
    ``vfork`` and a ``clone`` that is not a thread kill, so listing code starts no process and no program (no
    daemon, no ``setsid`` grandchild, no fork bomb). Raises ``SeccompUnavailable``."""
    lib = _library()
    try:
        f = _calls(lib, ALLOWED - RUNNER_ONLY, FORBIDDEN | LISTING_FORBIDDEN,
                   REFUSED | (RUNNER_ONLY - LISTING_FORBIDDEN), thread_only=True)
        return _export(f)
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp could not compile the listing filter ({exc})") from None


def classified() -> dict[str, str]:
    """Every reviewed call name → its class (``allowed``, ``runner only``, ``refused``, ``absent``,
    ``forbidden``); in the process that runs listing code, ``runner only`` is refused or forbidden."""
    out: dict[str, str] = {}
    for name in ALLOWED - RUNNER_ONLY:
        out[name] = "allowed"
    for cls, names in (("runner only", RUNNER_ONLY), ("refused", REFUSED), ("absent", ABSENT),
                       ("forbidden", FORBIDDEN)):
        for name in names:
            out[name] = cls
    return out
