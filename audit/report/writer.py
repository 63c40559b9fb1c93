"""The one function that writes report files: atomic, parent folders created, says where it wrote."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from ..errors import AuditError


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
