"""Run a chapter's Jupyter notebook with nbclient in the sandbox, and read back the executed notebook.

The notebook sandbox is the listing sandbox (``bwrap.py``: the same namespaces, identity, dropped capabilities,
interpreter view, seccomp filters and private scratch) with what a Jupyter kernel needs on top, all read-only: the
audit's own package folders (ipykernel, and the packages the notebook imports), the system's shared-library folders
and a copy of the notebook's own folder (``/book``, the kernel's working directory: its regular files, no dot-entry,
socket, FIFO or link leaving it; ``book_files``). The trusted runner
(``notebook_runner.py``, the sandbox's PID 1) executes the notebook with nbclient; the kernel (``kernel.py``) loads
the listing seccomp filter before any package, so every line of the notebook runs as a listing's call does: no
network socket, no process or program started, nothing of another process reached, no host file outside that view,
nothing written but the scratch. The kernel speaks to the runner over ZeroMQ's ``ipc`` transport (Unix sockets in
the scratch). Limits: ``cell_limit`` seconds of wall-clock time per cell (nbclient's timeout), the kernel's address
space (``memory_mb``) and CPU seconds, and ``time_limit`` for the whole run, after which the audit kills the
sandbox's init and with it every process inside.

The runner answers with one length-prefixed JSON record; it is checked here again (size, exact fields and types)
and its notebook is read and validated with nbformat, so nothing the kernel printed is taken for more than a
notebook's outputs.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import stat
import struct
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from audit.evaluation.sandbox import GRACE, _sandbox_init, _stop, _trim, start, unavailable_reason
from audit.evaluation.sandbox.bwrap import NOTEBOOK_SCRATCH_BYTES, IsolationUnavailable, bwrap_binary, \
    notebook_command, site_folders
from audit.evaluation.sandbox.seccomp import SeccompUnavailable, listing_filter, sandbox_filters

MAX_RECORD = 16 * 2**20  # as notebook_runner.py bounds its record
#: How a run can end (the runner's words are codes; these are the audit's).
ENDINGS = {
    "ran": "ran every cell",
    "failed": "a cell raised an error",
    "timeout": "the run was stopped at its time limit",
    "violation": "the kernel made a system call the sandbox forbids (a network socket, starting a process…) and "
                 "was killed",
    "died": "the kernel died",
    "error": "the notebook could not be executed",
    "too large": "the executed notebook is too large to read back",
}
_FIELDS = {"kind": str, "status": str, "cell": (int, type(None)), "error": str, "seconds": (int, float),
           "kernel": str, "versions": dict, "notebook": str, "modules": (dict, type(None))}
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass
class NotebookRun:
    """One execution of a notebook.

    ``status``: a key of ``ENDINGS``, or ``not run`` (``unavailable`` says why); ``cell``: the 1-based number of
    the code or Markdown cell the run stopped in (None when it ran through); ``error``: the error as the kernel
    gave it (``Type: message``, cleaned, at most 300 characters); ``seconds``: wall-clock time of the execution;
    ``kernel`` and ``versions`` (python, ipykernel, jupyter_client, nbclient, nbformat); ``notebook``: the executed
    notebook (an ``nbformat.NotebookNode``, outputs included), None when it could not be read back; ``isolation``:
    one line on what it ran under; ``modules``: {file: SHA-256} of every module the kernel imported from the
    site-packages folders (None when the kernel did not end normally and could not list them)."""

    status: str
    cell: int | None = None
    error: str = ""
    seconds: float = 0.0
    kernel: str = ""
    versions: dict = field(default_factory=dict)
    notebook: object = None
    isolation: str = ""
    unavailable: str = ""
    modules: dict | None = None

    @property
    def ran(self) -> bool:
        return self.status == "ran"

    def summary(self) -> str:
        """One line for a report's provenance: that it ran (kernel, versions, time) or how it failed."""
        if self.status == "not run":
            return f"not run: {self.unavailable}"
        versions = ", ".join(f"{k} {v}" for k, v in sorted(self.versions.items()))
        where = f" in cell {self.cell}" if self.cell else ""
        said = f" ({self.error})" if self.error else ""
        head = "ran every cell" if self.ran else f"{ENDINGS.get(self.status, self.status)}{where}{said}"
        return f"{head}; kernel {self.kernel or 'unknown'} ({versions}); {self.seconds:.1f} s"


def isolation_summary(cell_limit: float, memory_mb: int) -> str:
    return (f"the listing sandbox (new user, mount, PID, network, IPC and UTS namespaces; seccomp: no process "
            f"creation in the kernel, no network sockets) with the audit's packages, the system libraries and a copy "
            f"of the notebook's folder's files read-only, a private {NOTEBOOK_SCRATCH_BYTES // 2**20} MB scratch; "
            f"{cell_limit:g} s per cell, {memory_mb} MB for the kernel")


def _checked(raw: bytes) -> dict:
    try:
        record = json.loads(raw.decode("utf-8", "strict"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("a record that is not JSON") from None
    if not isinstance(record, dict) or set(record) != set(_FIELDS) or record.get("kind") != "notebook":
        raise ValueError("a record with missing or extra fields")
    for name, kind in _FIELDS.items():
        if not isinstance(record[name], kind) or isinstance(record[name], bool):
            raise ValueError(f"a record whose {name} is not of its type")
    if record["status"] not in ENDINGS:
        raise ValueError("an unknown ending")
    if not all(isinstance(k, str) and isinstance(v, str) and len(k) < 40 and len(v) < 40
               for k, v in record["versions"].items()):
        raise ValueError("versions that are not short texts")
    if record["modules"] is not None and not all(isinstance(k, str) and len(k) < 4096 and isinstance(v, str)
                                                 and _SHA256.fullmatch(v) for k, v in record["modules"].items()):
        raise ValueError("module hashes that are not file names and SHA-256 digests")
    return record


def _read_notebook(text: str):
    import nbformat
    notebook = nbformat.reads(text, as_version=4)
    nbformat.validate(notebook)
    return notebook


MAX_BOOK_FILES = 2000          # files of the notebook's folder shown to it
MAX_BOOK_BYTES = 256 * 2**20   # and their bytes


def book_files(folder: Path) -> list[tuple[Path, str]] | None:
    """The files of the notebook's folder the kernel sees, as (file, path below the folder): regular files in it and
    its subfolders, a link only when it stays inside the folder and leads to no dot-file or dot-folder; no dot-file
    or dot-folder (``.git`` holds a CI's credentials), however reached, no socket, FIFO or device. None when there are
    more than ``MAX_BOOK_FILES`` or ``MAX_BOOK_BYTES``."""
    folder = Path(folder).resolve()
    out, size = [], 0
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue
        try:
            real = path.resolve()
            info = path.stat()
        except (OSError, RuntimeError):  # a dangling link, a loop
            continue
        if not stat.S_ISREG(info.st_mode) or not real.is_relative_to(folder) \
                or any(part.startswith(".") for part in real.relative_to(folder).parts):
            continue  # a link to a dot-file or into a dot-folder (gitcfg -> .git/config) is that file
        size += info.st_size
        out.append((real, relative.as_posix()))
        if len(out) > MAX_BOOK_FILES or size > MAX_BOOK_BYTES:
            return None
    return out


def _copy_book(folder: Path, into: Path) -> bool:
    """Copy ``book_files(folder)`` below ``into``; False when the folder is too large."""
    files = book_files(folder)
    if files is None:
        return False
    for source, relative in files:
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return True


def _run(bwrap: str, text: str, folder: str, cell_limit: float, time_limit: float, memory_mb: int) -> NotebookRun:
    isolation = isolation_summary(cell_limit, memory_mb)
    request = {"notebook": text, "site": list(site_folders()), "cell_limit": cell_limit, "memory_mb": memory_mb,
               "cpu_seconds": int(time_limit), "filter": listing_filter().hex(), "cwd": "/book"}
    proc, result_r, info_r = start(
        lambda fds, result_w, request_fd: notebook_command(bwrap, fds, result_w, request_fd, folder),
        sandbox_filters(notebook=True), request)
    deadline = time.monotonic() + time_limit + GRACE
    buffer, said, info, timed_out = b"", b"", b"", False
    selector = selectors.DefaultSelector()
    for fd in (result_r, proc.stdout.fileno(), info_r):
        selector.register(fd, selectors.EVENT_READ)
    try:
        while selector.get_map() and len(buffer) <= 4 + MAX_RECORD:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 1 << 20)
                if not chunk:
                    selector.unregister(key.fd)
                elif key.fd == info_r:
                    info = (info + chunk)[:4096]
                elif key.fd == result_r:
                    buffer += chunk
                else:
                    said = (said + chunk)[-4096:]
    finally:
        _stop(proc, _sandbox_init(info, proc.pid))
        selector.close()
        for fd in (result_r, info_r):
            os.close(fd)
        proc.stdout.close()
    if timed_out:
        return NotebookRun("timeout", error=f"the notebook's time limit of {time_limit:g} s ran out; the sandbox was "
                                            "killed", seconds=time_limit, isolation=isolation)
    size = struct.unpack(">I", buffer[:4])[0] if len(buffer) >= 4 else -1
    if size < 0 or size > MAX_RECORD or len(buffer) != 4 + size:
        bwrap_said = _trim(said.decode("utf-8", "replace").strip())
        return NotebookRun("error", error=f"the sandbox gave no complete answer (bwrap exit code {proc.returncode}"
                                          + (f": {bwrap_said}" if bwrap_said else "") + ")", isolation=isolation)
    try:
        record = _checked(buffer[4:])
        notebook = _read_notebook(record["notebook"]) if record["notebook"] else None
    except Exception as exc:  # nbformat raises its own validation errors
        return NotebookRun("error", error=_trim(f"the sandbox's answer could not be read ({exc})"), isolation=isolation)
    cell = record["cell"] + 1 if isinstance(record["cell"], int) else None
    return NotebookRun(record["status"], cell=cell, error=_trim(record["error"]), seconds=float(record["seconds"]),
                       kernel=_trim(record["kernel"]), versions=dict(record["versions"]), notebook=notebook,
                       isolation=isolation, modules=record["modules"])


def run_notebook(text: str, folder: str, *, cell_limit: float = 60.0, time_limit: float = 300.0,
                 memory_mb: int = 2048) -> NotebookRun:
    """Execute the notebook ``text`` (nbformat JSON) with ``folder`` (an existing directory, the notebook's own) as
    its working directory, in the notebook sandbox. ``cell_limit``: seconds per cell; ``time_limit``: seconds for
    the whole run; ``memory_mb``: the kernel's address space. Never raises for anything the notebook does; never
    runs it when isolation is unavailable (status ``not run``)."""
    reason = unavailable_reason()
    if not reason:
        try:
            bwrap = bwrap_binary()
            return _in_copy(lambda *a: _run(bwrap, *a), text, os.path.realpath(folder), cell_limit, time_limit,
                            memory_mb)
        except (IsolationUnavailable, SeccompUnavailable) as exc:
            reason = str(exc)
    return NotebookRun("not run", unavailable=f"isolation unavailable ({reason})", isolation="no sandbox: " + reason)


def _in_copy(run, text: str, folder: str, *args) -> NotebookRun:
    """``run`` on a copy of the notebook's folder (``book_files``): the kernel sees its files, not the folder."""
    with tempfile.TemporaryDirectory(prefix="chapter-audit-book-") as copy:
        if not _copy_book(Path(folder), Path(copy)):
            return NotebookRun("error", error=f"the notebook's folder holds more than {MAX_BOOK_FILES} files or "
                                              f"{MAX_BOOK_BYTES // 2**20} MB; keep its data beside it smaller")
        return run(text, copy, *args)
