"""Opening input files safely: regular files only, bounded in size, decoded as UTF-8.

A FIFO or a device given as a snapshot, register or TREC file would block a plain ``open`` (or
never end); such files are refused from ``fstat`` on a descriptor opened without blocking,
before anything is read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from audit.errors import AuditError


def open_regular(path: Path | str, what: str, error: type[AuditError] = AuditError):
    """A binary file object for ``path`` after checking it is a regular file.

    Raises ``error`` naming ``path`` when it is missing, unreadable, not a regular file (a FIFO,
    device, socket or folder), or when the path itself is invalid (a NUL byte).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{what} not found", file=str(path))
    except ValueError:
        raise error(f"{what} path contains a NUL byte", file=repr(str(path)))
    except OSError as exc:
        raise error(f"cannot read the {what} ({exc.strerror})", file=str(path))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a folder" if stat.S_ISDIR(mode) else
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
                "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise error(f"the {what} is {kind}; give a regular file", file=str(path))
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_text(path: Path | str, what: str, max_bytes: int, error: type[AuditError] = AuditError) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes`` bytes (see ``open_regular``).

    Raises ``error`` for the cases of ``open_regular``, a larger file (naming the limit), and
    bytes that are not UTF-8 (naming the offset).
    """
    with open_regular(path, what, error) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise error(f"the {what} is {size:,} bytes, more than the limit of {max_bytes:,}", file=str(path))
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise error(f"the {what} is more than the limit of {max_bytes:,} bytes", file=str(path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"the {what} is not UTF-8 text ({exc.reason} at byte {exc.start})", file=str(path))
