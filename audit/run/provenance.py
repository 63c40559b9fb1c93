"""Provenance: date, command, Python and library versions."""

from __future__ import annotations

import datetime as _dt
import platform
import shlex
import sys
from importlib.metadata import PackageNotFoundError, version

from audit import __version__
from audit.model.results import Provenance

LIBRARIES = ("pytrec-eval-terrier", "ir-measures", "ranx", "numpy", "pandas", "numba")


def versions() -> dict[str, str]:
    return {"chapter-audit": __version__, **installed(LIBRARIES)}


def installed(names, missing: str = "not installed") -> dict[str, str]:
    """The installed version of each distribution in ``names`` (``missing`` for one not installed)."""
    out = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = missing
    return out


def collect(argv: list[str] | None = None, numba_cache: str = "") -> Provenance:
    argv = sys.argv if argv is None else argv
    command = " ".join(["audit", *map(shlex.quote, argv[1:])]) if argv else "audit"
    return Provenance(date=_dt.date.today().isoformat(), command=command,
                      python=f"{platform.python_implementation()} {platform.python_version()}",
                      versions=versions(), numba_cache=numba_cache)
