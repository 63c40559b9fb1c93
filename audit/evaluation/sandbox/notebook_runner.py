# The trusted runner of a chapter's notebook inside the notebook sandbox. Never imports chapter-audit.
#
# Started by bubblewrap as the sandbox's PID 1 with `python -I -S -B /sandbox/notebook_runner.py RESULT_FD
# REQUEST_FD`. It reads the request (one JSON object: the notebook's text, the read-only site-packages folders, the
# per-cell time limit, the kernel's memory and CPU limits, the listing seccomp filter as BPF in hex), executes the
# notebook with nbclient against a Jupyter kernel it starts in the sandbox (kernel.py: the kernel loads the
# listing filter before any package, so the notebook's code runs as a listing's does), and writes one
# length-prefixed JSON record to RESULT_FD: how the run ended, the failing cell and its error, the kernel and the
# versions, the seconds, the executed notebook, and the SHA-256 of the file of every module the kernel imported
# from the site-packages folders (outside the standard library and the notebook's folder, which the audit keys by
# themselves; null when the kernel did not end normally and could not say). The kernel never holds RESULT_FD (it is started with every
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
MAX_OUTPUT = 32 * 2**20  # bytes of outputs the runner keeps before it stops the run
NO_TAG = "chapter-audit-runs-every-cell-0f6e"  # the skip tag given to nbclient: no notebook uses it
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


MAX_MODULES = 20000  # module files the runner hashes; more and the run says it cannot tell which it used


def module_hashes(listing, site):
    """{file: SHA-256} of each file the kernel listed (its imported modules) that lies in one of the ``site``
    folders; None when the kernel wrote no readable list."""
    import hashlib
    try:
        with open(listing, encoding="utf-8") as handle:
            files = json.loads(handle.read(64 * 2**20))
    except (OSError, ValueError):
        return None
    if not isinstance(files, list) or len(files) > MAX_MODULES:
        return None
    roots = [os.path.join(os.path.realpath(folder), "") for folder in site]
    out = {}
    for name in files:
        if not isinstance(name, str):
            return None
        real = os.path.realpath(name)
        if not any(real.startswith(root) for root in roots):
            continue
        digest = hashlib.sha256()
        try:
            with open(real, "rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
        except OSError:
            return None
        out[real] = digest.hexdigest()
    return out


def plots(notebook, folder):
    """Whether the notebook's code, or a module beside it, names matplotlib or a library that draws with it."""
    import re
    words = re.compile(r"\b(matplotlib|pyplot|seaborn|plotnine)\b|\.plot\b|\.hist\(")
    if any(cell.get("cell_type") == "code" and words.search(str(cell.get("source", ""))) for cell in notebook.cells):
        return True
    try:
        modules = [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith(".py")]
        for module in modules[:200]:
            with open(module, encoding="utf-8", errors="replace") as handle:
                if words.search(handle.read(2**20)):
                    return True
    except OSError:
        pass
    return False


def matplotlib_font_list():
    """Build matplotlib's font list in the kernel's MPLCONFIGDIR before the kernel starts. matplotlib builds it on
    its first import, asking fontconfig's ``fc-list`` for the system's fonts in a new process, which the kernel's
    filter kills (SIGSYS): every notebook that plots was reported as a violation. The runner may start processes;
    ``fc-list`` is not in the sandbox's view, so matplotlib lists its own fonts, as on a machine without
    fontconfig."""
    import importlib.util
    try:
        if importlib.util.find_spec("matplotlib") is not None:
            import matplotlib.font_manager  # noqa: F401  (writes fontlist-*.json on import)
    except BaseException:
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
    # the runner holds every output the kernel sends: its address space is bounded as the kernel's is (the kernel
    # lowers its own limits from these), and what it keeps of the outputs by MAX_OUTPUT
    memory = request["memory_mb"] * 2**20
    for limit, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, 256), (resource.RLIMIT_AS, memory)):
        resource.setrlimit(limit, (value, value))
    settings = os.path.join(SCRATCH, "kernel-settings.json")
    listing = os.path.join(SCRATCH, "kernel-modules.json")
    with open(settings, "w", encoding="utf-8") as handle:
        json.dump({"memory_mb": request["memory_mb"], "cpu_seconds": request["cpu_seconds"],
                   "filter": request["filter"], "site": request["site"], "modules": listing}, handle)
    for name in ("IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR"):
        os.environ[name] = os.path.join(SCRATCH, name.lower())
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    # Jupyter's own default: a figure is shown as the cell's image output, as the committed notebook holds it
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    sys.path.extend(request["site"])
    record = {"kind": "notebook", "status": "ran", "cell": None, "error": "", "seconds": 0.0, "kernel": "",
              "versions": {}, "notebook": "", "modules": None}
    started = time.monotonic()
    flooded, current = {"cell": None}, {"cell": None}
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

        class BoundedClient(nbclient.NotebookClient):
            """nbclient's client, which keeps at most MAX_OUTPUT bytes of outputs: past them it keeps no more and
            kills the kernel, so the run ends there (reported as too large)."""
            kept = 0

            def output(self, outs, msg, display_id, cell_index):
                BoundedClient.kept += len(json.dumps(msg.get("content", {}), default=str))
                if BoundedClient.kept > MAX_OUTPUT:
                    if flooded["cell"] is None:
                        flooded["cell"] = cell_index
                        try:
                            os.kill(manager.provisioner.process.pid, signal.SIGKILL)
                        except BaseException:
                            pass
                    return None
                return super().output(outs, msg, display_id, cell_index)

        record["versions"] = {"python": sys.version.split()[0], "ipykernel": ipykernel.__version__,
                              "jupyter_client": jupyter_client.__version__, "nbclient": nbclient.__version__,
                              "nbformat": nbformat.__version__}
        record["kernel"] = "python3 (ipykernel)"
        notebook = nbformat.reads(request["notebook"], as_version=4)
        for cell in notebook.cells:  # what the run shows is only what it printed: no committed output is kept
            if cell.get("cell_type") == "code":
                cell.outputs, cell.execution_count = [], None

        if plots(notebook, request["cwd"]):
            matplotlib_font_list()

        def on_start(cell, cell_index):
            current["cell"] = cell_index

        manager = SandboxKernelManager(transport="ipc", ip=os.path.join(SCRATCH, "kernel"),
                                       connection_file=os.path.join(SCRATCH, "kernel.json"), kernel_name="python3")
        # every cell runs, whatever its tags say: no cell is skipped ("skip-execution") and every error stops the
        # run ("raises-exception" is not honoured), so "ran every cell" means what it says
        client = BoundedClient(notebook, km=manager, timeout=request["cell_limit"], startup_timeout=60,
                               allow_errors=False, force_raise_errors=True, skip_cells_with_tag=NO_TAG,
                               record_timing=False, kernel_name="python3",
                               resources={"metadata": {"path": request["cwd"]}}, on_cell_start=on_start)
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
            if flooded["cell"] is not None or isinstance(exc, MemoryError):
                raise
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
        if flooded["cell"] is not None or isinstance(exc, MemoryError):
            record.update(status="too large", cell=flooded["cell"] if flooded["cell"] is not None else current["cell"],
                          error=f"its outputs passed {MAX_OUTPUT // 2**20} MB; the run was stopped there"
                          if flooded["cell"] is not None else "its outputs did not fit in the runner's memory")
            record["notebook"] = ""
        else:
            record.update(status="error", error=text_of(exc))
    record["seconds"] = round(time.monotonic() - started, 3)
    try:  # a kernel killed inside a cell did not list what that cell imported
        record["modules"] = module_hashes(listing, request["site"]) if record["status"] in ("ran", "failed",
                                                                                               "timeout") else None
    except BaseException:
        record["modules"] = None
    data = json.dumps(record, ensure_ascii=True).encode()
    if len(data) > MAX_RECORD:  # a failure keeps its status, cell and error; only the outputs are not sent
        record["notebook"] = ""
        said = f"the executed notebook is {len(data)} bytes, more than {MAX_RECORD // 2**20} MB"
        if record["status"] == "ran":
            record["status"], record["error"] = "too large", said
        else:
            record["error"] = f"{record['error']}; {said}"[:2000]
        data = json.dumps(record, ensure_ascii=True).encode()
    write_all(result_fd, struct.pack(">I", len(data)) + data)


main()
