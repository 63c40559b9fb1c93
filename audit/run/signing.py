"""The key that signs the cache's entries, kept outside the cache.

Whoever can write the cache folder (a CI cache shared between branches, a shared home) can write any entry
and recompute any digest of it; only an entry whose HMAC-SHA256 was made with this key is used. The key is

- ``$CHAPTER_AUDIT_CACHE_KEY`` itself, when set (at least 32 characters: a CI secret, so that the jobs
  sharing a cache share the key while a branch that can only write the cache cannot sign an entry); else
- the key file ``$CHAPTER_AUDIT_CACHE_KEY_FILE``, else ``$XDG_STATE_HOME/chapter-audit/cache-key``, else
  ``~/.local/state/chapter-audit/cache-key``: 32 random bytes (hex), created on first use with mode 0600 in a
  folder of mode 0700, and used only while it is a regular file owned by this user that no one else may read
  or write, outside the cache folder.

Without a usable key nothing is read from the cache and nothing is written to it (``Signer.problem`` says
why); the audit computes everything, as with ``--no-cache``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

#: The key itself (e.g. a CI secret).
KEY_ENV = "CHAPTER_AUDIT_CACHE_KEY"
#: Where the key file is.
KEY_FILE_ENV = "CHAPTER_AUDIT_CACHE_KEY_FILE"
#: Shortest key accepted from ``KEY_ENV``, in characters.
MIN_KEY_CHARS = 32
#: Random bytes of a created key.
KEY_BYTES = 32


@dataclass(frozen=True)
class Signer:
    """Signs and checks entries with the key; ``secret`` None when there is no usable key (``problem`` says why)."""

    secret: bytes | None
    source: str
    problem: str = ""

    def mac(self, *parts: bytes) -> str:
        """HMAC-SHA256 (hex) of ``parts``, each preceded by its length (no two sequences of parts collide)."""
        assert self.secret is not None
        h = hmac.new(self.secret, digestmod=hashlib.sha256)
        for part in parts:
            h.update(len(part).to_bytes(8, "big"))
            h.update(part)
        return h.hexdigest()

    def verify(self, mac: bytes, *parts: bytes) -> bool:
        return self.secret is not None and hmac.compare_digest(mac, self.mac(*parts).encode("ascii"))


def key_file() -> Path:
    """Where the key file is (see the module doc)."""
    if os.environ.get(KEY_FILE_ENV):
        return Path(os.environ[KEY_FILE_ENV]).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "chapter-audit" / "cache-key"


_SIGNERS: dict[tuple, Signer] = {}


def signer(cache_folder: Path) -> Signer:
    """The signer for a cache in ``cache_folder`` (read once per process for each key source and folder)."""
    given = os.environ.get(KEY_ENV)
    path = None if given else key_file()
    memo = (given, str(path), str(cache_folder))
    if memo not in _SIGNERS:
        _SIGNERS[memo] = _from_env(given) if given else _from_file(path, Path(cache_folder))
    return _SIGNERS[memo]


def forget() -> None:
    """Read the key again on next use (after the environment or the key file changed)."""
    _SIGNERS.clear()


def _from_env(given: str) -> Signer:
    if len(given) < MIN_KEY_CHARS:
        return Signer(None, KEY_ENV, f"{KEY_ENV} is shorter than {MIN_KEY_CHARS} characters, too short to sign the "
                                     "cache's entries")
    return Signer(given.encode("utf-8", "surrogatepass"), KEY_ENV)


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return False


def _from_file(path: Path, cache_folder: Path) -> Signer:
    source = str(path)
    if _inside(path, cache_folder):
        return Signer(None, source, f"the cache key file {path} is inside the cache folder, where whoever can write "
                                    f"the cache could read it; keep it elsewhere ({KEY_FILE_ENV})")
    try:
        return Signer(_read_key(path), source)
    except FileNotFoundError:
        pass
    except _Refused as exc:
        return Signer(None, source, str(exc))
    try:
        _create_key(path)
        return Signer(_read_key(path), source)
    except _Refused as exc:
        return Signer(None, source, str(exc))
    except OSError as exc:
        return Signer(None, source, f"cannot create the cache key file {path} ({exc.strerror or exc})")


class _Refused(Exception):
    """A key file that must not be used, with the reason."""


def _read_key(path: Path) -> bytes:
    """The key in ``path``; raises FileNotFoundError when there is none, ``_Refused`` when it must not be used."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _Refused(f"cannot read the cache key file {path} ({exc.strerror or exc}; it must be a regular file, "
                       "not a symbolic link)")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Refused(f"the cache key file {path} is not a regular file")
        if info.st_uid != os.geteuid():
            raise _Refused(f"the cache key file {path} belongs to another user")
        if info.st_mode & 0o077:
            raise _Refused(f"the cache key file {path} may be read or written by others (mode "
                           f"{stat.S_IMODE(info.st_mode):04o}); make it 0600 (chmod 600) or delete it")
        data = os.read(fd, 4096)
    finally:
        os.close(fd)
    try:
        secret = bytes.fromhex(data.decode("ascii").strip())
    except ValueError:
        secret = b""
    if len(secret) < KEY_BYTES:
        raise _Refused(f"the cache key file {path} does not hold a key ({KEY_BYTES * 2} hexadecimal digits); delete it "
                       "and a new one is made")
    return secret


def _create_key(path: Path) -> None:
    """Write a new random key to ``path`` (0600) unless another process just did: written whole to a temporary
    file, then linked into place, so no reader ever sees a partial key."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(8)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(KEY_BYTES) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another audit created it first: theirs is used
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
