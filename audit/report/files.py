"""The one function that writes report files: atomic, parent folders created, says where it wrote; and the lock
under which one audit writes a reports folder. The reporters, the history and the index write through it."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from audit.errors import AuditError

#: The sub-folder of the reports folder that holds the reports of a partial audit (``audit run --claims``): they
#: never replace a chapter's own reports.
SELECTED = "selected"

#: The lock file of a reports folder (``locked``).
LOCK = ".audit.lock"


@contextmanager
def locked(folder: Path, waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the reports folder's lock (``fcntl.flock`` on ``folder/.audit.lock``, exclusive) while writing it, so two
    audits writing one folder write one after the other: every chapter report and the index of one run, then
    every one of the other's, never some of each. ``waiting`` is told when another audit holds the lock. The lock
    ends with the process, however it ends. Raises ``AuditError`` naming the folder when the lock file cannot be
    made (where ``fcntl`` does not exist, nothing is locked)."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    path = Path(folder) / LOCK
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                     0o644)
    except OSError as exc:
        raise AuditError(f"cannot lock the reports folder: {exc.strerror or exc}", file=str(path))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting(f"another audit is writing {folder}; waiting for it to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def write_text(path: Path | str, text: str) -> str:
    """Write ``text`` to ``path`` atomically (``-`` means stdout); return where it went.

    The file is written beside its destination and renamed into place, so a failure
    never leaves a half-written report. Raises ``AuditError`` naming the path on an OS error.
    """
    if str(path) == "-":
        sys.stdout.write(text)
        return "stdout"
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            os.chmod(tmp, 0o644)  # mkstemp creates 0600; reports are meant to be shared
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise AuditError(f"cannot write report: {exc.strerror or exc}", file=str(path))
    return str(path)


#: The largest earlier report or history file read back, in bytes (as ``audit diff`` reads a report).
MAX_READ_BACK_BYTES = 256 * 2**20


def read_json(path: Path) -> object | None:
    """The JSON value in ``path``, or None when it cannot be read: missing, not a regular file (a FIFO would block
    a plain ``open``), larger than ``MAX_READ_BACK_BYTES``, not UTF-8, not JSON, or nested too deep to decode (a
    committed report is the book's, and a contributor may have written anything there)."""
    import json

    from audit.model.files import read_text
    try:
        return json.loads(read_text(path, "report", MAX_READ_BACK_BYTES))
    except (AuditError, OSError, ValueError, RecursionError, MemoryError):
        return None

