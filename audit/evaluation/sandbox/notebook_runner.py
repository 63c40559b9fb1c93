# The trusted runner of a chapter's notebook inside the notebook sandbox. Never imports chapter-audit.
#
# Started by bubblewrap as the sandbox's PID 1 with `python -I -S -B /sandbox/notebook_runner.py RESULT_FD
# REQUEST_FD`. It reads the request (one JSON object: the notebook's text, the read-only site-packages folders, the
# per-cell time limit, the kernel's memory and CPU limits, the listing seccomp filter as BPF in hex), executes the
# notebook with nbclient against a Jupyter kernel it starts in the sandbox (kernel.py: the kernel loads the
# listing filter before any package, so the notebook's code runs as a listing's does), and writes one
# length-prefixed JSON record to RESULT_FD: how the run ended, the failing cell and its error, the kernel and the
# versions, the seconds, and the executed notebook. The kernel never holds RESULT_FD (it is started with every
# other descriptor closed); what it can say reaches the audit only as the notebook's outputs, which the audit
# validates again as a notebook.
import ctypes
import json
import os
import resource
import signal
import struct
import sys
import time

PR_SET_DUMPABLE = 4
MAX_RECORD = 16 * 2**20  # bytes of the record (the executed notebook included)
KERNEL = "/sandbox/kernel.py"
SCRATCH = "/scratch"
FILTER_FAILED = 120  # kernel.py's exit code when the listing filter could not be loaded


def read_all(fd):
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def close_all_but(*keep):
    for fd in range(3, 1024):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def text_of(exc):
    try:
        return f"{type(exc).__name__}: {exc}"[:2000]
    except BaseException:
        return type(exc).__name__


def main():
    result_fd, request_fd = int(sys.argv[1]), int(sys.argv[2])
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise SystemExit("cannot make the runner non-dumpable")
    close_all_but(result_fd, request_fd)
    request = json.loads(read_all(request_fd).decode())
    os.close(request_fd)
    for limit, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, 256)):
        resource.setrlimit(limit, (value, value))
    settings = os.path.join(SCRATCH, "kernel-settings.json")
    with open(settings, "w", encoding="utf-8") as handle:
        json.dump({"memory_mb": request["memory_mb"], "cpu_seconds": request["cpu_seconds"],
                   "filter": request["filter"], "site": request["site"]}, handle)
    for name in ("IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR"):
        os.environ[name] = os.path.join(SCRATCH, name.lower())
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    os.environ["MPLBACKEND"] = "agg"
    sys.path.extend(request["site"])
    record = {"kind": "notebook", "status": "ran", "cell": None, "error": "", "seconds": 0.0, "kernel": "",
              "versions": {}, "notebook": ""}
    started = time.monotonic()
    try:
        import subprocess
        subprocess._USE_VFORK = False  # fork, not vfork: the sandbox's filter kills vfork
        from jupyter_client import localinterfaces  # no interface lookup: see kernel.py
        localinterfaces._load_ips_psutil = localinterfaces._load_ips_dumb
        import ipykernel
        import jupyter_client
        import nbclient
        import nbformat
        from jupyter_client.manager import AsyncKernelManager
        from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

        class SandboxKernelManager(AsyncKernelManager):
            def format_kernel_cmd(self, extra_arguments=None):
                return [sys.executable, "-I", "-S", "-B", KERNEL, self.connection_file, settings]

        record["versions"] = {"python": sys.version.split()[0], "ipykernel": ipykernel.__version__,
                              "jupyter_client": jupyter_client.__version__, "nbclient": nbclient.__version__,
                              "nbformat": nbformat.__version__}
        record["kernel"] = "python3 (ipykernel)"
        notebook = nbformat.reads(request["notebook"], as_version=4)
        current = {"cell": None}

        def on_start(cell, cell_index):
            current["cell"] = cell_index

        manager = SandboxKernelManager(transport="ipc", ip=os.path.join(SCRATCH, "kernel"),
                                       connection_file=os.path.join(SCRATCH, "kernel.json"), kernel_name="python3")
        client = nbclient.NotebookClient(notebook, km=manager, timeout=request["cell_limit"], startup_timeout=60,
                                         allow_errors=False, record_timing=False, kernel_name="python3",
                                         resources={"metadata": {"path": request["cwd"]}},
                                         on_cell_start=on_start)
        def kernel_exit():
            try:
                return manager.provisioner.process.poll()
            except BaseException:
                return None

        try:
            client.execute()
        except CellTimeoutError as exc:
            record.update(status="timeout", cell=current["cell"], error=text_of(exc))
        except CellExecutionError as exc:
            record.update(status="failed", cell=current["cell"], error=f"{exc.ename}: {exc.evalue}"[:2000])
        except BaseException as exc:  # DeadKernelError, or a kernel that died before it answered
            code = kernel_exit()
            if code is not None and code < 0 and -code == signal.SIGSYS:
                record.update(status="violation", cell=current["cell"], error="killed by the sandbox (SIGSYS)")
            elif code == FILTER_FAILED:
                record.update(status="error", error="the kernel could not load the listing seccomp filter")
            else:
                ended = f"exit code {code}" if code is not None and code >= 0 else \
                    f"signal {signal.Signals(-code).name}" if code is not None else "still running"
                record.update(status="died" if isinstance(exc, DeadKernelError) or code is not None else "error",
                              cell=current["cell"], error=f"{text_of(exc)} (kernel: {ended})")
        record["notebook"] = nbformat.writes(notebook)
    except BaseException as exc:
        record.update(status="error", error=text_of(exc))
    record["seconds"] = round(time.monotonic() - started, 3)
    data = json.dumps(record, ensure_ascii=True).encode()
    if len(data) > MAX_RECORD:
        record["notebook"] = ""
        record["status"], record["error"] = "too large", f"the executed notebook is {len(data)} bytes"
        data = json.dumps(record, ensure_ascii=True).encode()
    write_all(result_fd, struct.pack(">I", len(data)) + data)


main()
