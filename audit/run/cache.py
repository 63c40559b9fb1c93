"""A content-addressed cache of each claim's result, so a rerun recomputes only the claims that changed.

An entry's key is the SHA-256 of everything that can change the claim's result (``claim_key``):
the claim's encoding, the fixtures and cohorts it names, the conventions it is checked under
(book, chapter and its own), the anchored passage (state, text, similarity, note), the listing
text for code claims, the book's rules a listing is held to, the versions of chapter-audit, of its
source files and of every reference library (and numpy, pandas, numba), the Python version and the
per-claim time limit. Search seeds and budgets are fields of the claim, so they are in its
encoding. Where a claim sits in the files (snapshot line and column, register line) is not in the
key: those are filled in from the current files on every run.

The value is the claim's ``ClaimResult`` as JSON, with the book conflicts its check recorded. Each
file holds a format version, the key it was stored under and a SHA-256 digest of its payload; a
file that does not parse, has another format or key, or whose digest does not match is ignored
and the claim recomputed (never trusted). Results that depend on the machine's timing or health
(an ``error`` verdict, a search stopped by its time limit, a reference worker that crashed or
overran) are not stored.

Location: ``$CHAPTER_AUDIT_CACHE`` if set, else ``$XDG_CACHE_HOME/chapter-audit`` or
``~/.cache/chapter-audit``; claims under ``claims/``, reference observations under ``observed/``.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
from collections.abc import Mapping, Sequence
from functools import lru_cache, wraps
from pathlib import Path

from audit import __version__
from audit.report.results import ClaimResult

#: Layout of a cache file; entries of another format are ignored.
FORMAT = 1

#: Environment variable naming the cache folder.
ENV = "CHAPTER_AUDIT_CACHE"


def cache_root() -> Path:
    """The cache folder: ``$CHAPTER_AUDIT_CACHE``, else ``$XDG_CACHE_HOME/chapter-audit``, else
    ``~/.cache/chapter-audit``."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chapter-audit"


@lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 over chapter-audit's own Python sources and data files (names and bytes), so a changed
    checker invalidates entries even when the version number is unchanged."""
    root = Path(__file__).resolve().parents[1]  # the audit package
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".yaml", ".json", ".j2"):
            h.update(str(path.relative_to(root)).encode())
            h.update(b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


def _canonical(data) -> bytes:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def _digest(data) -> str:
    return hashlib.sha256(_canonical(data)).hexdigest()


def _named(value, names: set[str], found: set[str]) -> None:
    """Every string in ``value`` (nested dicts and lists) that is one of ``names``."""
    if isinstance(value, str):
        if value in names:
            found.add(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            _named(v, names, found)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _named(v, names, found)


def environment(versions: Mapping[str, str], seconds: float) -> dict:
    """What every key of a run shares: project and library versions, source digest, Python, time limit."""
    return {"format": FORMAT, "chapter-audit": __version__, "source": source_digest(),
            "python": platform.python_version(), "versions": dict(versions), "claim_seconds": seconds}


def claim_key(claim, chapter, anchor, env: Mapping, book=None) -> str:
    """The key of ``claim``'s result (hex SHA-256; see the module doc for what it covers)."""
    encoded = claim.model_dump(mode="json")
    register = chapter.register
    names: set[str] = set()
    _named(encoded, set(register.fixtures) | set(register.cohorts), names)
    material = {
        "env": dict(env),
        "claim": encoded,
        "fixtures": {n: register.fixtures[n].model_dump(mode="json") for n in sorted(names) if n in register.fixtures},
        "cohorts": {n: register.cohorts[n].model_dump(mode="json") for n in sorted(names) if n in register.cohorts},
        "conventions": chapter.declared_for(claim).as_dict(),
        "tensions": sorted(chapter.declared_for(claim).tensions()),
        "anchor": {"state": anchor.state, "text": anchor.text, "similarity": anchor.similarity,
                   "count": anchor.count, "note": anchor.note},
        "chapter": str(chapter.identity.id),
    }
    if claim.kind == "code":  # a listing is read from the snapshot, with its line numbers
        material["snapshot"] = hashlib.sha256(chapter.snapshot.text.encode()).hexdigest()
        if book is not None:
            material["book_rules"] = [[cid, c.id, c.quote] for cid, c in book._rejecting()]
    return _digest(material)


def storable(result: ClaimResult) -> bool:
    """Whether a result depends only on its key: not an ``error`` (a timeout or an internal fault), not a
    search stopped by its time limit, no reference worker that crashed or overran."""
    if result.verdict == "error" or "time limit stopped" in result.reason:
        return False
    for check in result.checks:
        for value in check.values:
            if value.status == "error" and "worker process" in value.detail:
                return False
    return True


class ClaimCache:
    """Cached claim results under ``folder`` (default ``cache_root() / "claims"``); ``enabled=False``
    makes every lookup a miss and stores nothing (``--no-cache``).

    ``hits`` and ``misses`` count lookups in this process.
    """

    def __init__(self, folder: Path | None = None, enabled: bool = True) -> None:
        self.folder = Path(folder) if folder is not None else cache_root() / "claims"
        self.enabled = enabled
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[ClaimResult, list[dict]] | None:
        """The stored result and book conflicts for ``key``, or None when absent, unreadable, of another
        format or key, or failing its digest."""
        if not self.enabled:
            return None
        found = _read(self._path(key), key)
        if found is None:
            self.misses += 1
            return None
        try:
            result = ClaimResult.model_validate(found["result"])
            conflicts = [dict(c) for c in found.get("conflicts", [])]
        except (ValueError, TypeError, KeyError):
            self.misses += 1
            return None
        self.hits += 1
        return result, conflicts

    def put(self, key: str, result: ClaimResult, conflicts: Sequence[dict] = ()) -> None:
        """Store ``result`` (skipped when disabled or not ``storable``); a write failure is ignored."""
        if not self.enabled or not storable(result):
            return
        _write(self._path(key), key, {"result": result.model_dump(mode="json"), "conflicts": list(conflicts)})


def research_key(chapter, claim_keys: Mapping[str, str], results, env: Mapping) -> str:
    """The key of a chapter's research sections (source ledger, proposal, sensitivity, experiments): every
    claim's key and result, the chapter's identity and snapshot, and the run's environment."""
    return _digest({"research": sorted(claim_keys.items()), "results": [r.model_dump(mode="json") for r in results],
                    "identity": chapter.identity.model_dump(mode="json"), "snapshot": chapter.snapshot.text,
                    "declared": chapter.declared.as_dict(), "env": dict(env)})


class ResearchCache:
    """Cached research sections per chapter (``cache_root() / "research"``), validated like claim entries."""

    def __init__(self, folder: Path | None = None, enabled: bool = True) -> None:
        self.folder = Path(folder) if folder is not None else cache_root() / "research"
        self.enabled = enabled

    def get(self, key: str) -> dict | None:
        if not self.enabled:
            return None
        found = _read(self.folder / key[:2] / f"{key}.json", key)
        return found.get("research") if isinstance(found, dict) and isinstance(found.get("research"), dict) else None

    def put(self, key: str, research) -> None:
        if self.enabled:
            _write(self.folder / key[:2] / f"{key}.json", key, {"research": research.model_dump(mode="json")})


class PerClaimCache:
    """What the research sections derive from one claim alone, kept per claim key (``cache_root() /
    "per-claim"``): the upgrade proposal's re-checks of a claim's correction ("convention caveat") and the
    claim's rows of the metric-choice sensitivity table ("sensitivity"). Each depends only on what the
    claim's key covers (its encoding, fixtures, conventions, anchored text, and the versions of
    chapter-audit and of every reference library), so a revision elsewhere in the chapter does not compute
    it again. Validated like claim entries."""

    def __init__(self, folder: Path, claim_keys: Mapping[str, str], enabled: bool = True) -> None:
        self.folder = Path(folder)
        self.claim_keys = dict(claim_keys)
        self.enabled = enabled

    def _key(self, claim_id: str, what: str) -> str | None:
        if not self.enabled or claim_id not in self.claim_keys:
            return None
        return _digest({"derived": what, "claim": self.claim_keys[claim_id]})

    def get(self, claim_id: str, what: str) -> dict | None:
        """What was stored as ``what`` for the claim, or None."""
        key = self._key(claim_id, what)
        found = _read(self.folder / key[:2] / f"{key}.json", key) if key else None
        return found.get("outcome") if isinstance(found, dict) and isinstance(found.get("outcome"), dict) else None

    def put(self, claim_id: str, what: str, outcome: dict) -> None:
        key = self._key(claim_id, what)
        if key:
            _write(self.folder / key[:2] / f"{key}.json", key, {"outcome": outcome})


def _read(path: Path, key: str) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
        return None
    payload = data.get("payload")
    if not isinstance(payload, dict) or data.get("digest") != _digest(payload):
        return None
    return payload


def _write(path: Path, key: str, payload: dict) -> None:
    """Write atomically (a temporary file renamed), so a reader never sees half an entry."""
    data = {"format": FORMAT, "key": key, "digest": _digest(payload), "payload": payload}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, ensure_ascii=False))
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)  # type: ignore[possibly-undefined]
        except (OSError, UnboundLocalError, NameError):
            pass


def _env_now() -> dict:
    from audit.register.limits import CLAIM_SECONDS
    from audit.run.provenance import versions
    return environment(versions(), CLAIM_SECONDS)


def stored_observations(ref, compute) -> dict:
    """A reference's observations (``audit.evaluation.observe.observe``), from the cache when stored for this
    reference, its library's version and this chapter-audit source, else ``compute()`` (stored unless a
    probe failed). Used only while the process cache is on (``set_memo``)."""
    from audit.evaluation.observe import Observation

    if not _MEMO["enabled"]:
        return compute()
    key = _digest({"env": _env_now(), "reference": ref.name, "library": ref.library, "version": ref.version()})
    path = cache_root() / "observed" / key[:2] / f"{key}.json"
    found = _read(path, key)
    if found is not None:
        try:
            return {name: Observation(**fields) for name, fields in found["observed"].items()}
        except (TypeError, KeyError, AttributeError):
            pass
    value = compute()
    if all(o.status != "error" for o in value.values()):
        from dataclasses import asdict
        _write(path, key, {"observed": {name: asdict(o) for name, o in value.items()}})
    return value


class OutcomeStore:
    """Reference outcomes by (fixture content, measure, reference, versions): a revised claim whose fixture
    and measures are unchanged needs no reference process at all. Error outcomes are not stored."""

    def __init__(self, env: Mapping, enabled: bool = True, folder: Path | None = None) -> None:
        self.env = dict(env)
        self.enabled = enabled
        self.folder = Path(folder) if folder is not None else cache_root() / "outcomes"

    def _key(self, ref, fixture_key: str, measure: str) -> str:
        return _digest({"env": self.env, "reference": ref.name, "library": ref.library, "version": ref.version(),
                        "fixture": fixture_key, "measure": measure})

    def get(self, ref, fixture_key: str, measure: str):
        from audit.evaluation.references.base import Outcome

        if not self.enabled:
            return None
        key = self._key(ref, fixture_key, measure)
        found = _read(self.folder / key[:2] / f"{key}.json", key)
        if found is None:
            return None
        try:
            outcome = Outcome(**found["outcome"])
            outcome.per_query = {str(q): float(v) for q, v in outcome.per_query.items()}
            return outcome
        except (TypeError, KeyError, ValueError, AttributeError):
            return None

    def put(self, ref, fixture_key: str, measure: str, outcome) -> None:
        from dataclasses import asdict

        if not self.enabled or outcome.status == "error":
            return
        key = self._key(ref, fixture_key, measure)
        _write(self.folder / key[:2] / f"{key}.json", key, {"outcome": asdict(outcome)})


#: Whether ``memoised`` functions read and write the cache in this process (``--no-cache`` turns it off).
_MEMO = {"enabled": False}


def set_memo(enabled: bool) -> None:
    """Turn the process-wide caches (``memoised`` renderings, reference observations) on or off; off by
    default, turned on by ``audit run`` and the pytest plugin unless told not to cache."""
    _MEMO["enabled"] = enabled


@lru_cache(maxsize=None)
def _installed(name: str) -> str:
    """The installed version of distribution ``name`` (read once per process: reading package metadata
    takes milliseconds, and a chart is keyed by it), or "not installed"."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def memoised(namespace: str, *libraries: str):
    """Decorate a pure function of pydantic models and plain values returning text (a chart's SVG), so its
    output is stored under ``cache_root() / namespace``, keyed by the arguments, this source and the
    versions of ``libraries``; a stored output is returned without calling it (or importing what it
    imports). Entries are validated like claim entries."""
    def plain(value):
        return value.model_dump(mode="json") if hasattr(value, "model_dump") else value

    def decorate(fn):
        @wraps(fn)
        def wrapper(*args, **kwargs):
            if not _MEMO["enabled"]:
                return fn(*args, **kwargs)
            versions = {name: _installed(name) for name in libraries}
            key = _digest({"format": FORMAT, "source": source_digest(), "function": fn.__qualname__,
                           "versions": versions, "args": [plain(a) for a in args],
                           "kwargs": {k: plain(v) for k, v in kwargs.items()}})
            path = cache_root() / namespace / key[:2] / f"{key}.json"
            found = _read(path, key)
            if found is not None and isinstance(found.get("text"), str):
                return found["text"]
            text = fn(*args, **kwargs)
            if isinstance(text, str):
                _write(path, key, {"text": text})
            return text
        return wrapper
    return decorate


# the evaluation stage keeps its reference observations here (it does not import this stage)
from audit.evaluation import observe as _observe  # noqa: E402

_observe.STORE[:] = [stored_observations]
