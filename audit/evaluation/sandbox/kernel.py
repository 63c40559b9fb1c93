# The start of a notebook's Jupyter kernel inside the notebook sandbox. Never imports chapter-audit.
#
# Started by the notebook runner (notebook_runner.py) as `python -I -S -B /sandbox/kernel.py CONNECTION SETTINGS`.
# Before any package is imported it sets the kernel's resource limits (address space, CPU seconds, file size,
# core dumps) and stacks the listing seccomp filter (SETTINGS names the file holding it as BPF), the same filter a
# listing's call runs under: no process and no program started, no socket but AF_UNIX (the kernel speaks to the
# runner over ZeroMQ's ipc transport, Unix sockets in the scratch), nothing reaching another process. Only then
# does it add the read-only site-packages to the path and start ipykernel, so the notebook's code runs under the
# filter from its first line; a forbidden call kills the kernel (SIGSYS), which the runner reports. After every cell
# (IPython's post_run_cell event, which follows a cell that raised as well) the kernel writes the file of every
# module it has imported to the file SETTINGS names ("modules"), which the runner hashes: a stored run is reused
# only while those files are unchanged.
import ctypes
import json
import os
import resource
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
FILTER_FAILED = 120


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def write_modules(path):
    """The files of the modules the kernel imported, one JSON list, at its end."""
    files = []
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None) if module is not None else None
        if isinstance(name, str) and type(name) is str:
            files.append(name)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(sorted(set(files)), handle)


def main():
    connection, settings_path = sys.argv[1], sys.argv[2]
    with open(settings_path, encoding="utf-8") as handle:
        settings = json.load(handle)
    memory = settings["memory_mb"] * 2**20
    cpu = int(settings["cpu_seconds"])
    for limit, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_FSIZE, 2**24),
                         (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(limit, (value, value))
    bpf = bytes.fromhex(settings["filter"])
    buffer = ctypes.create_string_buffer(bpf, len(bpf))
    prog = SockFprog(len(bpf) // 8, ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        sys.exit(FILTER_FAILED)
    # the notebook's folder first, as a kernel Jupyter starts in it has it ('' on its path): a module beside the
    # notebook imports (its file then keys the stored run, as every imported module's does)
    sys.path.insert(0, os.getcwd())
    sys.path.extend(settings["site"])
    # The kernel's only network is the sandbox's loopback, and its sockets are Unix sockets: jupyter_client's
    # lookup of the machine's interfaces (psutil's netlink socket, or `ip addr`) would be killed, so it is given
    # the loopback address without looking.
    from jupyter_client import localinterfaces
    localinterfaces._load_ips_psutil = localinterfaces._load_ips_dumb
    localinterfaces.localhost()
    # ipykernel listens on a TCP port of the loopback for the output of processes the kernel forks; the kernel
    # can fork none here, so that pipe is not opened (its bind would be a network socket, which kills).
    from ipykernel import iostream

    def no_fork_pipe(thread):
        thread._pipe_flag = False

    iostream.IOPubThread._setup_pipe_in = no_fork_pipe
    # No debugger: importing debugpy starts a process, which kills. ipykernel then reports no debugger support.
    sys.modules["debugpy"] = None
    from ipykernel.kernelapp import IPKernelApp, launch_new_instance
    init_shell = IPKernelApp.init_shell

    def init_shell_listing_modules(app):
        init_shell(app)
        app.shell.events.register("post_run_cell", lambda *args: write_modules(settings["modules"]))

    IPKernelApp.init_shell = init_shell_listing_modules
    launch_new_instance(argv=["-f", connection, "--HistoryManager.enabled=False", "--IPKernelApp.quiet=True"])


main()
