"""A content-addressed cache of each claim's result, so a rerun recomputes only the claims that changed.

An entry's key is the SHA-256 of everything that can change the claim's result (``claim_key``):
the claim's encoding, the fixtures and cohorts it names, the conventions it is checked under
(book, chapter and its own), the anchored passage (state, text, similarity, note), the listing
text for code claims, the book's rules a listing is held to, the other value claims of the measures it
names with their fixtures (their printed arithmetic can fix a reading of the same number), the versions of chapter-audit, of its
source files and of every reference library (and numpy, pandas, numba), the Python version and the
per-claim time limit. Search seeds and budgets are fields of the claim, so they are in its
encoding. Where a claim sits in the files (snapshot line and column, register line) is not in the
key: those are filled in from the current files on every run.

The value is the claim's ``ClaimResult`` as JSON, with the book conflicts its check recorded. Results that
depend on the machine's timing or health (an ``error`` verdict, a search stopped by its time limit, a
reference worker that crashed or overran) are not stored.

**What an entry is trusted for.** A key says where an entry is, not who wrote it: anyone who can write the cache
folder can compute any key (``claim_key`` is public) and any digest. So an entry is a header line -- format,
namespace, key and an HMAC-SHA256 of all of them and the payload, made with a key kept outside the cache
(``audit.run.signing``) -- followed by the payload's JSON, and it is used only when

- it is read as a regular file, reached without following a symbolic link below the cache folder (no link, FIFO
  or device; ``MAX_CACHE_ENTRY_BYTES`` at most), and
- its HMAC is right for this installation's key (checked before the JSON is parsed), and
- its payload is one this version could have written (``audit.run.entries``: the result model, the claim asked
  for, finite numbers, a chart without script).

Anything else is a miss: the value is computed again and the entry replaced, never a crash and never a changed
verdict. Entries are written the same way (through no link, to a temporary file renamed into place). Entries
refused and writes that failed are counted (``STATS``) so the command line can say so.

Location: ``$CHAPTER_AUDIT_CACHE`` if set, else ``$XDG_CACHE_HOME/chapter-audit`` or
``~/.cache/chapter-audit``; claims under ``claims/``, reference observations under ``observed/``.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import platform
import secrets
import stat
import sys
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from audit import __version__
from audit.evaluation.checks.value import printed_elsewhere_inputs
from audit.model.limits import MAX_CACHE_ENTRY_BYTES
from audit.model.results import ClaimResult
from audit.run import entries as checks
from audit.run.signing import signer

#: Layout of a cache file; entries of another format are ignored.
FORMAT = 2

#: Environment variable naming the cache folder.
ENV = "CHAPTER_AUDIT_CACHE"

#: First word of an entry's header line.
MAGIC = b"chapter-audit-cache"
#: An entry's file name ends so.
SUFFIX = ".entry"


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
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=str).encode("utf-8", "surrogatepass")


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
        # another sentence's printed arithmetic for the same number can fix a reading (value._printed_elsewhere)
        "printed elsewhere": printed_elsewhere_inputs(chapter, claim),
    }
    if claim.kind == "code":  # a listing is read from the snapshot, with its line numbers
        material["snapshot"] = hashlib.sha256(chapter.snapshot.text.encode()).hexdigest()
        if book is not None:
            material["book_rules"] = [[cid, c.id, c.quote] for cid, c in book.rejecting(str(chapter.identity.id))]
    return _digest(material)


class ClaimCache:
    """Cached claim results under ``folder`` (default ``cache_root() / "claims"``); ``enabled=False``
    makes every lookup a miss and stores nothing (``--no-cache``).

    ``hits`` and ``misses`` count lookups in this process. The folders beside ``folder`` hold the other
    namespaces (``research``, ``per-claim``).
    """

    def __init__(self, folder: Path | None = None, enabled: bool = True) -> None:
        self.folder = Path(folder) if folder is not None else cache_root() / "claims"
        self.enabled = enabled
        self.hits = 0
        self.misses = 0
        self._store = _Store(self.folder, "claims")

    def beside(self, name: str) -> Path:
        """The folder of namespace ``name`` next to this one."""
        return self.folder.parent / name

    def get(self, key: str, claim=None, chapter: str | None = None) -> tuple[ClaimResult, list[dict]] | None:
        """The stored result and book conflicts for ``key``, or None when absent or not to be trusted (see the
        module doc). With ``claim`` (and ``chapter``), the entry must be that claim's result (id and kind) and its
        conflicts that chapter's."""
        checked = self._store.checked(
            key, lambda found: checks.claim_result(found, getattr(claim, "id", None), getattr(claim, "kind", None),
                                                   chapter), "not a result this version writes") if self.enabled else None
        if checked is None:
            self.misses += self.enabled
            return None
        self.hits += 1
        return checked

    def put(self, key: str, result: ClaimResult, conflicts: Sequence[dict] = ()) -> None:
        """Store ``result`` (skipped when disabled or not ``storable``); a failed write is counted in ``STATS``."""
        if not self.enabled or not checks.storable(result):
            return
        self._store.put(key, {"result": result.model_dump(mode="json"), "conflicts": [dict(c) for c in conflicts]})


def research_key(chapter, claim_keys: Mapping[str, str], results, env: Mapping) -> str:
    """The key of a chapter's research sections (source ledger, proposal, sensitivity, experiments): every
    claim's key and result, the chapter's identity and snapshot, how the sections name its files (its folder as
    given, the patch's paths from the working directory: ``sections.named_paths``), and the run's environment."""
    from audit.research.sections import named_paths
    return _digest({"research": sorted(claim_keys.items()), "results": [r.model_dump(mode="json") for r in results],
                    "identity": chapter.identity.model_dump(mode="json"), "snapshot": chapter.snapshot.text,
                    "declared": chapter.declared.as_dict(), "paths": named_paths(chapter), "env": dict(env)})


class ResearchCache:
    """Cached research sections per chapter (``cache_root() / "research"``), checked like claim entries."""

    def __init__(self, folder: Path | None = None, enabled: bool = True) -> None:
        self.folder = Path(folder) if folder is not None else cache_root() / "research"
        self.enabled = enabled
        self._store = _Store(self.folder, "research")

    def get(self, key: str, claim_ids: Sequence[str] = (), lines: Sequence[str] = ()):
        """The stored ``Research``, or None; it must name only ``claim_ids`` and its hunks the snapshot's ``lines``."""
        if not self.enabled:
            return None
        return self._store.checked(key, lambda found: checks.research(found.get("research"), claim_ids, lines)
                                   if set(found) == {"research"} else None, "not research sections of this chapter")

    def put(self, key: str, research) -> None:
        if self.enabled:
            self._store.put(key, {"research": research.model_dump(mode="json")})


class PerClaimCache:
    """What the research sections derive from one claim alone, kept per claim key (``cache_root() /
    "per-claim"``): the upgrade proposal's re-checks of a claim's correction ("convention caveat") and the
    claim's rows of the metric-choice sensitivity table ("sensitivity"). Each depends only on what the
    claim's key covers (its encoding, fixtures, conventions, anchored text, and the versions of
    chapter-audit and of every reference library), so a revision elsewhere in the chapter does not compute
    it again. Checked like claim entries."""

    def __init__(self, folder: Path, claim_keys: Mapping[str, str], enabled: bool = True) -> None:
        self.folder = Path(folder)
        self.claim_keys = dict(claim_keys)
        self.enabled = enabled
        self._store = _Store(self.folder, "per-claim")

    def _key(self, claim_id: str, what: str) -> str | None:
        if not self.enabled or claim_id not in self.claim_keys:
            return None
        return _digest({"derived": what, "claim": self.claim_keys[claim_id]})

    def get(self, claim_id: str, what: str) -> dict | None:
        """What was stored as ``what`` for the claim, or None."""
        key = self._key(claim_id, what)
        if not key:
            return None
        return self._store.checked(key, lambda found: checks.per_claim(what, found, claim_id), f"not a claim's {what}")

    def put(self, claim_id: str, what: str, outcome: dict) -> None:
        key = self._key(claim_id, what)
        if key:
            self._store.put(key, {"outcome": outcome})


# --- entries on disk -------------------------------------------------------------------------------------------

#: This process's count of entries refused (found but not trusted) and of writes that failed, with the last
#: reason of each; ``audit run`` reports them.
STATS = {"refused": 0, "refused_reason": "", "unwritten": 0, "unwritten_reason": "", "unwritten_errno": 0}


def reset_stats() -> None:
    STATS.update(refused=0, refused_reason="", unwritten=0, unwritten_reason="", unwritten_errno=0)


def _refused(reason: str) -> None:
    STATS["refused"] += 1
    STATS["refused_reason"] = reason


def _unwritten(reason: str, code: int = 0) -> None:
    STATS["unwritten"] += 1
    STATS["unwritten_reason"] = reason
    STATS["unwritten_errno"] = code


_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class _Store:
    """The entries of one namespace, in ``folder`` (``<key[:2]>/<key>.entry``). ``folder``'s parent is the cache
    folder, which may itself be reached through a symbolic link (it is the user's choice); nothing below it is."""

    def __init__(self, folder: Path, namespace: str) -> None:
        self.folder = Path(folder)
        self.namespace = namespace

    def _signer(self):
        return signer(self.folder.parent)

    def _parts(self, key: str) -> tuple[str, ...]:
        return self.folder.name, key[:2]

    def get(self, key: str) -> dict | None:
        """The payload stored under ``key``: None when absent or not trusted (counted in ``STATS``)."""
        sign = self._signer()
        if sign.secret is None:
            return None
        data = _read_below(self.folder.parent, self._parts(key), key + SUFFIX)
        if data is None:
            return None
        if isinstance(data, str):
            _refused(data)
            return None
        header, newline, body = data.partition(b"\n")
        fields = header.split(b" ")
        if not newline or len(fields) != 5 or fields[:4] != self._header(key):
            _refused("not an entry of this format, namespace and key")
            return None
        if not sign.verify(fields[4], *self._signed(key, body)):
            _refused("its signature is not this installation's (written without the key, or altered)")
            return None
        try:
            payload = json.loads(body.decode("utf-8"), parse_constant=checks.refuse_constant)
        except (ValueError, RecursionError):
            payload = None
        if not isinstance(payload, dict) or not checks.plain(payload):
            _refused("its content is not plain JSON within the limits")
            return None
        return payload

    def checked(self, key: str, check, refusal: str):
        """The payload under ``key`` as ``check`` returns it when it is one this version could have written
        (``audit.run.entries``), else None: absent, not trusted, or refused by ``check`` (counted in ``STATS`` with
        ``refusal`` as the reason)."""
        found = self.get(key)
        if found is None:
            return None
        value = check(found)
        if value is None:
            _refused(refusal)
        return value

    def _header(self, key: str) -> list[bytes]:
        """The header's fields before the signature: magic, format, namespace, key (all signed, with the body)."""
        return [MAGIC, str(FORMAT).encode(), self.namespace.encode(), key.encode()]

    def _signed(self, key: str, body: bytes) -> tuple[bytes, ...]:
        return (*self._header(key), body)

    def put(self, key: str, payload: dict) -> None:
        """Store ``payload`` under ``key``, signed; nothing when there is no key or the payload cannot be an entry
        (a NaN, a lone surrogate: it would be refused when read). A failed write is counted in ``STATS``."""
        sign = self._signer()
        if sign.secret is None:
            return
        try:
            body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        except (ValueError, TypeError, UnicodeEncodeError, RecursionError):
            return
        if len(body) > MAX_CACHE_ENTRY_BYTES - 512:
            return
        mac = sign.mac(*self._signed(key, body))
        header = b" ".join([*self._header(key), mac.encode()])
        _write_below(self.folder.parent, self._parts(key), key + SUFFIX, header + b"\n" + body)


def _open_below(root: Path, parts: Sequence[str], create: bool) -> int:
    """A descriptor of ``root/parts…``, each part a folder reached without following a symbolic link (created when
    ``create``). Raises OSError (ELOOP or ENOTDIR for a link or a file where a folder should be)."""
    if create:
        root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, _DIRECTORY)
    try:
        for part in parts:
            if create:
                try:
                    os.mkdir(part, dir_fd=fd)
                except FileExistsError:
                    pass
            inner = os.open(part, _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_below(root: Path, parts: Sequence[str], name: str) -> bytes | str | None:
    """The bytes of the entry ``root/parts…/name``: None when there is none, else the reason it was not read
    (a symbolic link, FIFO, device or folder; larger than ``MAX_CACHE_ENTRY_BYTES``; unreadable)."""
    try:
        folder = _open_below(root, parts, create=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"a folder of the cache is a symbolic link or not a folder ({exc.strerror or exc})"
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0),
                     dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it is a symbolic link or cannot be opened ({exc.strerror or exc})"
    finally:
        os.close(folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "it is not a regular file (a FIFO, device, socket or folder)"
        if info.st_size > MAX_CACHE_ENTRY_BYTES:
            return f"it is larger than {MAX_CACHE_ENTRY_BYTES:,} bytes"
        chunks, size = [], 0
        while size <= MAX_CACHE_ENTRY_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_CACHE_ENTRY_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_CACHE_ENTRY_BYTES:
            return f"it is larger than {MAX_CACHE_ENTRY_BYTES:,} bytes"
        return b"".join(chunks)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    finally:
        os.close(fd)


def _write_below(root: Path, parts: Sequence[str], name: str, data: bytes) -> None:
    """Write ``data`` to ``root/parts…/name`` atomically (a temporary file renamed into place, so a reader never
    sees half an entry), following no symbolic link below ``root``; a failure is counted in ``STATS``."""
    tmp = f".tmp-{secrets.token_hex(8)}"
    folder = None
    try:
        folder = _open_below(root, parts, create=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600,
                     dir_fd=folder)
        try:
            view = memoryview(data)
            while view:
                view = view[_write_some(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError as exc:
        if folder is not None:
            try:
                os.unlink(tmp, dir_fd=folder)
            except OSError:
                pass
        where = root.joinpath(*parts)
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            _unwritten(f"a folder of the cache ({where}) is a symbolic link or a file; nothing is written through it",
                       exc.errno)
        else:
            _unwritten(f"{exc.strerror or exc} ({where})", exc.errno or 0)
    finally:
        if folder is not None:
            os.close(folder)


def _write_some(fd: int, data) -> int:
    """``os.write`` (a seam for the tests, which make it fail as a full disk does)."""
    return os.write(fd, data)


def _env_now() -> dict:
    from audit.model.limits import CLAIM_SECONDS
    from audit.run.provenance import versions
    return environment(versions(), CLAIM_SECONDS)


def stored_observations(ref, compute) -> dict:
    """A reference's observations (``audit.evaluation.observe.observe``), from the cache when stored for this
    reference, its library's version and this chapter-audit source, else ``compute()`` (stored unless a
    probe failed). Used only while the process cache is on (``set_memo``)."""
    if not _MEMO["enabled"]:
        return compute()
    key = _digest({"env": _env_now(), "reference": ref.name, "library": ref.library, "version": ref.version()})
    store = _Store(cache_root() / "observed", "observed")
    value = store.checked(key, checks.observations, "not a reference's observations")
    if value is not None:
        return value
    value = compute()
    if all(o.status != "error" for o in value.values()):
        from dataclasses import asdict
        store.put(key, {"observed": {name: asdict(o) for name, o in value.items()}})
    return value


def _folder_digest(folder: Path) -> str | None:
    """SHA-256 over the files of the notebook's folder the kernel sees (``sandbox.notebook.book_files``: names and
    bytes, read in blocks); None when the folder is too large to be shown to it."""
    from audit.evaluation.sandbox.notebook import book_files
    files = book_files(folder)
    if files is None:
        return None
    h = hashlib.sha256()
    for path, relative in files:
        h.update(relative.encode() + b"\0")
        if not _hash_into(h, path):
            return None
        h.update(b"\0")
    return h.hexdigest()


def _hash_into(h, path) -> bool:
    """Feed the file at ``path`` into the hash ``h`` in blocks; False when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                h.update(block)
    except OSError:
        return False
    return True


def _file_sha256(path: str) -> str | None:
    h = hashlib.sha256()
    return h.hexdigest() if _hash_into(h, path) else None


def modules_unchanged(modules: Mapping[str, str]) -> bool:
    """Whether every module file a stored run's kernel imported still has the SHA-256 it had then."""
    return all(_file_sha256(path) == digest for path, digest in modules.items())


class NotebookStore:
    """Notebook runs (the report's notebook section before claims are held to it) by (the notebook's text, the files
    of its folder, this source, the kernel's packages, the Python version and the platform), each kept with the
    SHA-256 of the file of every module its kernel imported outside the standard library: a stored run is reused
    only while each of those files is unchanged, so a rerun with nothing changed executes no notebook and a changed
    module the notebook imports runs it again. A run whose kernel could not list its modules is not stored."""

    def __init__(self, enabled: bool = True, folder: Path | None = None) -> None:
        self.enabled = enabled
        self._store = _Store(Path(folder) if folder is not None else cache_root() / "notebooks", "notebooks")

    def key(self, text: str, folder: Path) -> str | None:
        files = _folder_digest(folder)
        if files is None:
            return None
        versions = {name: _installed(name) for name in ("ipykernel", "nbclient", "jupyter_client", "pyzmq")}
        return _digest({"format": FORMAT, "source": source_digest(), "notebook": text, "files": files,
                        "versions": versions, "python": sys.version, "executable": sys.executable,
                        "platform": platform.platform()})

    def get(self, key: str | None):
        from audit.model.results import NotebookReport
        if not self.enabled or key is None:
            return None
        found = self._store.get(key)
        if not found:
            return None
        try:
            if set(found) != {"report", "modules"} or not isinstance(found["modules"], dict):
                raise ValueError("not a notebook run")
            report = NotebookReport.model_validate(found["report"])
        except Exception:  # pydantic's ValidationError: an entry this version does not write
            _refused("not a notebook run this version writes")
            return None
        if not modules_unchanged(found["modules"]):
            return None  # a module the kernel imported changed since: the notebook runs again
        report._modules = dict(found["modules"])
        return report

    def put(self, key: str | None, report) -> None:
        modules = getattr(report, "_modules", None)
        if self.enabled and key is not None and report.status not in ("not run", "error") and modules is not None:
            self._store.put(key, {"report": report.model_dump(mode="json"), "modules": modules})


class OutcomeStore:
    """Reference outcomes by (fixture content, measure, reference, versions): a revised claim whose fixture
    and measures are unchanged needs no reference process at all. Error outcomes are not stored."""

    def __init__(self, env: Mapping, enabled: bool = True, folder: Path | None = None) -> None:
        self.env = dict(env)
        self.enabled = enabled
        self.folder = Path(folder) if folder is not None else cache_root() / "outcomes"
        self._store = _Store(self.folder, "outcomes")

    def _key(self, ref, fixture_key: str, measure: str) -> str:
        return _digest({"env": self.env, "reference": ref.name, "library": ref.library, "version": ref.version(),
                        "fixture": fixture_key, "measure": measure})

    def get(self, ref, fixture_key: str, measure: str):
        if not self.enabled:
            return None
        return self._store.checked(self._key(ref, fixture_key, measure), checks.outcome, "not a reference's outcome")

    def put(self, ref, fixture_key: str, measure: str, outcome) -> None:
        from dataclasses import asdict

        if not self.enabled or outcome.status == "error":
            return
        self._store.put(self._key(ref, fixture_key, measure), {"outcome": asdict(outcome)})


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


#: How a stored text of a ``memoised`` namespace is checked before it is returned: a chart goes into the HTML
#: report as it is, so it must be SVG without script (``entries.svg``).
TEXT_CHECKS = {"charts": checks.svg}


def memoised_call(namespace: str, libraries: Sequence[str], fn, args, kwargs):
    """The output of ``fn(*args, **kwargs)``, a pure function of pydantic models and plain values returning text (a
    chart's SVG), stored under ``cache_root() / namespace``, keyed by the arguments, this source and the versions of
    ``libraries``; a stored output is returned without calling it (or importing what it imports). Entries are
    checked like claim entries, and their text by ``TEXT_CHECKS[namespace]``. The report stage's charts call it
    through their store (``audit.report.charts.STORE``)."""
    if not _MEMO["enabled"]:
        return fn(*args, **kwargs)

    def plain(value):
        return value.model_dump(mode="json") if hasattr(value, "model_dump") else value

    accept = TEXT_CHECKS.get(namespace, lambda text: True)
    versions = {name: _installed(name) for name in libraries}
    key = _digest({"format": FORMAT, "source": source_digest(), "function": fn.__qualname__,
                   "versions": versions, "args": [plain(a) for a in args],
                   "kwargs": {k: plain(v) for k, v in kwargs.items()}})
    store = _Store(cache_root() / namespace, namespace)
    stored = store.checked(key, lambda found: found["text"] if set(found) == {"text"} and isinstance(
        found["text"], str) and accept(found["text"]) else None, f"not a stored {namespace} text this version "
        "writes")
    if stored is not None:
        return stored
    text = fn(*args, **kwargs)
    if isinstance(text, str):
        store.put(key, {"text": text})
    return text


# the evaluation stage keeps its reference observations here (it does not import this stage)
from audit.evaluation import observe as _observe  # noqa: E402

_observe.STORE[:] = [stored_observations]

# the report stage keeps its charts here (it does not import this stage)
from audit.report import charts as _charts  # noqa: E402

_charts.STORE[:] = [memoised_call]
