"""Reports already in place: a rerun whose reports would come out byte for byte as the ones in the reports folder
does not render them again.

Rendering a chapter's reports (reading its register twice to fit the patch's register edits, the Markdown, the
HTML page, the patch) is most of an unchanged rerun's time. An entry (``cache_root() / "rendered"``, signed like
every cache entry) is kept under a key over everything the reports are rendered from: the report as JSON before
the register edits are fitted (the whole result model), the snapshot's text, the register's text, the manuscript
file as read, the claims of a partial audit, chapter-audit's sources and the versions of the libraries that
render (``RENDERING_LIBRARIES``). It holds what fitting the register edits did (the hunks kept, the hunks
withdrawn) and the size and SHA-256 of each report written. A later run with the same key makes the same fit and
renders the JSON report again (a tenth of the work); when that JSON and every report file in the folder have the
recorded sizes and digests, the files are left as they are. Anything else (an entry missing or not trusted, a
report edited, removed or left over) renders and writes every report as before.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from audit.run.cache import _digest, _Store, cache_root, source_digest

#: The libraries whose versions a report's rendering depends on.
RENDERING_LIBRARIES = ("jinja2", "markupsafe", "matplotlib", "pydantic", "pyyaml")

_HEX = re.compile(r"[0-9a-f]{64}")


@lru_cache(maxsize=1)
def _versions() -> dict[str, str]:
    from audit.run.provenance import installed
    return installed(RENDERING_LIBRARIES, "")


class RenderedReports:
    """The record of reports written, per key (see the module doc)."""

    def __init__(self, folder: Path | None = None, enabled: bool = True) -> None:
        self.enabled = enabled
        self._store = _Store(Path(folder) if folder is not None else cache_root() / "rendered", "rendered")

    def key(self, *parts: str) -> str:
        return _digest({"rendered": list(parts), "source": source_digest(), "libraries": _versions()})

    def get(self, key: str) -> dict | None:
        """The entry under ``key`` when it has the shape ``put`` writes, else None."""
        if not self.enabled:
            return None
        return self._store.checked(key, _entry, "not a record of reports written")

    def put(self, key: str, kept: list[int], withdrawn: list[dict], digests: dict[str, str],
            sizes: dict[str, int]) -> None:
        if self.enabled:
            self._store.put(key, {"kept": kept, "withdrawn": withdrawn, "digests": digests, "sizes": sizes})


def _entry(found: dict) -> dict | None:
    kept, withdrawn, digests, sizes = (found.get(k) for k in ("kept", "withdrawn", "digests", "sizes"))
    if set(found) != {"kept", "withdrawn", "digests", "sizes"} or not isinstance(kept, list) \
            or not isinstance(withdrawn, list) or not isinstance(digests, dict) or not isinstance(sizes, dict):
        return None
    if set(sizes) != set(digests) or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                                             for n in sizes.values()):
        return None
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in kept) or kept != sorted(set(kept)):
        return None
    if not all(isinstance(w, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in w.items())
               for w in withdrawn):
        return None
    if not digests or not all(s in (".json", ".md", ".html", ".patch") and isinstance(d, str) and _HEX.fullmatch(d)
                              for s, d in digests.items()):
        return None
    return found
