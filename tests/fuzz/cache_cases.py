"""Fuzzed claim-cache entries: a chapter audited once, then its cache changed as anyone who can write the cache
folder could change it, and audited again. The run must end as the clean one did (its exit code, no traceback,
no internal error, within its time limit) with byte-identical reports: nothing forged, damaged or odd is used.

``Warm`` audits the chapter once (the base cache and reports); ``mutate`` changes a copy of the cache and says
how; ``check_cache`` audits with the changed cache and returns the problems, each tagged with its class:
``changed`` (a report differs from the clean one), ``exit``, ``traceback``, ``internal``, ``hang``.

Mutations (``KINDS``), each on one to three entries of any namespace (claims, research, per-claim, outcomes,
observed, charts), or on a namespace's folder:

- forged, unsigned: the payload changed, with the old signature, a recomputed SHA-256 in its place, or none;
- forged, signed: the payload changed to one this version never writes (an unknown verdict, NaN, ±1e308, a lone
  surrogate, another claim's result, a missing or an extra field, a hunk of an unknown claim, a chart with script
  or an event handler), signed with the installation's key, as a bug or a leaked key could write it;
- damaged: truncated, a byte flipped, junk appended, emptied, the header alone, random bytes;
- odd file types: a FIFO, a symbolic link to /dev/zero, /dev/urandom, /dev/null or to another entry, a folder,
  an oversized (sparse) file, a namespace or key folder replaced by a symbolic link;
- removed (a plain miss).

Reference outcomes and the proposal's per-claim re-checks are read only while a claim or the research sections are
computed, so when they are changed, the claims' and research entries are removed too.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import shutil
import time
from pathlib import Path

from audit.cli import main

SNAPSHOT = ("At cutoff four, a single relevant result gives P@4 = 1/4. A draft said P@4 = 1/3. "
            "The evaluator rejects repeated result IDs.\n")
CLAIMS = """\
fixtures:
  one-hit:
    qrels: {q1: {a: 1}}
    run: {q1: [a]}
  repeated-id-probe:
    qrels: {q1: {a: 1, b: 1, n: 0}}
    run: {q1: [a, n, a, b]}
claims:
  - id: C1
    title: right
    kind: value
    quote: "a single relevant result gives P@4 = 1/4"
    claim: P@4 = 1/4 for one hit.
    fixture: one-hit
    expect:
      - {measure: "P@4", claimed: "1/4"}
  - id: R1
    title: repeated IDs rejected
    kind: convention
    quote: "The evaluator rejects repeated result IDs."
    claim: A ranking that repeats an ID is rejected.
    convention: repeated_ids
    rule: reject
    probe: repeated-id-probe
    measures: ["RR@4"]
  - id: C3
    title: wrong
    kind: value
    quote: "A draft said P@4 = 1/3."
    claim: P@4 = 1/3 for one hit.
    fixture: one-hit
    expect:
      - {measure: "P@4", claimed: "1/3"}
  - id: C2
    title: prose
    kind: not checkable
    quote: "At cutoff four"
    claim: The cutoff is four.
    reason: framing only.
"""

NAMESPACES = ("claims", "research", "per-claim", "outcomes", "observed", "charts")
KINDS = ("unsigned", "digest", "unsigned-plain", "signed-invalid", "damaged", "odd", "folder-link", "removed")


def _audit(folder: Path, reports: Path, cache: Path) -> tuple[int, str, float]:
    from audit.evaluation import observe
    observe._CACHE.clear()  # the references' observed conventions are read from the cache, as a new process reads them
    os.environ["CHAPTER_AUDIT_CACHE"] = str(cache)
    out = io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["run", str(folder), "--reports", str(reports), "--fail-on", "contradicted"])
    return code, out.getvalue(), time.monotonic() - started


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


class Warm:
    """The chapter audited twice into ``root`` (so every namespace is stored): its folder, reports and cache,
    the clean run's exit code and reports."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / "claims" / "cached"
        self.folder.mkdir(parents=True)
        (self.folder / "chapter.yaml").write_text("id: cached\nbook: Fuzz\ntitle: cache fuzz\n"
                                                  "conventions: {precision_denominator: k}\n", encoding="utf-8")
        (self.folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
        (self.folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
        self.reports, self.cache = root / "reports", root / "cache"
        _audit(self.folder, self.reports, self.cache)
        self.code, text, _ = _audit(self.folder, self.reports, self.cache)
        assert "Traceback" not in text and "warning" not in text, text
        self.clean = _files(self.reports)


def _entries(cache: Path, namespace: str | None = None) -> list[Path]:
    names = [namespace] if namespace else NAMESPACES
    return sorted(p for n in names for p in (cache / n).rglob("*.entry") if p.is_file() and not p.is_symlink())


def _split(path: Path) -> tuple[list[bytes], bytes]:
    header, body = path.read_bytes().split(b"\n", 1)
    return header.split(b" "), body


def _write(path: Path, fields: list[bytes], payload, how: str) -> None:
    body = json.dumps(payload, ensure_ascii=True, allow_nan=True).encode("ascii")
    magic, fmt, namespace, key = fields[:4]
    if how == "signed":
        from audit.run.signing import signer
        mac = signer(path.parents[2]).mac(magic, fmt, namespace, key, body).encode()
    elif how == "digest":
        mac = hashlib.sha256(body).hexdigest().encode()
    elif how == "unsigned":
        mac = fields[4]
    else:
        mac = b""
    path.write_bytes(b" ".join([magic, fmt, namespace, key, mac]) + b"\n" + body)


def _leaves(value, path=()):
    """(path, value) of every leaf of a JSON value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, path + (i,))
    else:
        yield path, value


def _set(value, path, new):
    for part in path[:-1]:
        value = value[part]
    value[path[-1]] = new


def _any_change(rng: random.Random, payload) -> None:
    """Change one leaf of ``payload`` to another plausible value (what an unsigned forger would try)."""
    leaves = list(_leaves(payload))
    if not leaves:
        return
    path, old = rng.choice(leaves)
    if not path:
        return
    choices = ["supported", "contradicted", "", "forged", 0, 1, 0.25, 1 / 3, None, True, [], {}]
    _set(payload, path, rng.choice([c for c in choices if c != old] or ["x"]))


#: Changes to a payload that this version never writes (each refused by ``audit.run.entries`` when signed).
def _invalid(rng: random.Random, payload, namespace: str) -> str:
    if namespace == "charts":
        payload["text"] = rng.choice([
            '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
            (payload.get("text") or "<svg></svg>").replace("</svg>", "<image href='https://x.example'/></svg>"),
            "<p>not svg</p>", 42])
        return "chart"
    leaves = [(p, v) for p, v in _leaves(payload) if p]
    choice = rng.choice(["nan", "huge", "surrogate", "verdict", "extra", "missing", "type", "other-claim",
                         "unknown-claim"])
    if choice == "verdict" and namespace == "claims":
        payload["result"]["verdict"] = "bogus"
    elif choice == "other-claim" and namespace == "claims":
        payload["result"]["id"] = "C9"
    elif choice == "unknown-claim" and namespace == "research" and payload["research"].get("proposal"):
        for hunk in payload["research"]["proposal"]["hunks"]:
            hunk["claim"] = "C99"
    elif choice == "extra":
        payload["bogus"] = 1
    elif choice == "missing" and payload:
        payload.pop(rng.choice(sorted(payload)))
    elif choice == "type" and leaves:
        path, _ = rng.choice(leaves)
        _set(payload, path, {"bogus": [1]})
    elif choice == "huge" and leaves:
        numbers = [p for p, v in leaves if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for path in numbers or [rng.choice(leaves)[0]]:
            _set(payload, path, rng.choice([1e308, -1e308]))
    elif choice == "surrogate" and leaves:
        texts = [p for p, v in leaves if isinstance(v, str)]
        _set(payload, rng.choice(texts or [rng.choice(leaves)[0]]), "forged \ud800")
    else:
        numbers = [p for p, v in leaves if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for path in numbers or [rng.choice(leaves)[0] if leaves else ("bogus",)]:
            _set(payload, path, float("nan"))
        choice = "nan"
    return choice


def mutate(rng: random.Random, cache: Path) -> str:
    """Change ``cache`` in one of the ways of ``KINDS``; returns a label of what was done."""
    kind = rng.choice(KINDS)
    namespace = rng.choice([n for n in NAMESPACES if _entries(cache, n)])
    if namespace in ("outcomes", "per-claim"):  # read only while a claim or the research sections are computed
        for computed in ("claims", "research"):
            shutil.rmtree(cache / computed, ignore_errors=True)
    if kind == "folder-link":
        target = cache / namespace
        moved = cache.parent / f"moved-{namespace}"
        shutil.move(target, moved)
        if rng.random() < 0.5:
            target.symlink_to(moved, target_is_directory=True)
            return f"folder-link {namespace}"
        target.mkdir()
        sub = sorted(p for p in moved.iterdir() if p.is_dir())[0]
        (target / sub.name).symlink_to(sub, target_is_directory=True)
        return f"key-folder-link {namespace}"
    paths = _entries(cache, namespace)
    chosen = rng.sample(paths, min(len(paths), rng.randint(1, 3)))
    label = f"{kind} {namespace}"
    for path in chosen:
        if kind == "removed":
            path.unlink()
        elif kind in ("unsigned", "digest", "unsigned-plain"):
            fields, body = _split(path)
            payload = json.loads(body)
            _any_change(rng, payload)
            _write(path, fields, payload, {"unsigned": "unsigned", "digest": "digest"}.get(kind, "none"))
        elif kind == "signed-invalid":
            fields, body = _split(path)
            payload = json.loads(body)
            label = f"{kind} {namespace} {_invalid(rng, payload, namespace)}"
            _write(path, fields, payload, "signed")
        elif kind == "damaged":
            data = bytearray(path.read_bytes())
            how = rng.choice(["truncate", "flip", "append", "empty", "header", "random"])
            if how == "truncate":
                data = data[:rng.randrange(len(data))]
            elif how == "flip":
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
            elif how == "append":
                data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
            elif how == "empty":
                data = bytearray()
            elif how == "header":
                data = data.split(b"\n", 1)[0]
            else:
                data = bytearray(os.urandom(rng.randint(1, 4096)))
            path.write_bytes(bytes(data))
            label = f"damaged {namespace} {how}"
        else:
            from audit.model.limits import MAX_CACHE_ENTRY_BYTES
            how = rng.choice(["fifo", "/dev/zero", "/dev/urandom", "/dev/null", "other entry", "folder", "oversized"])
            other = rng.choice(_entries(cache))
            path.unlink()
            if how == "fifo":
                os.mkfifo(path)
            elif how.startswith("/dev/"):
                path.symlink_to(how)
            elif how == "other entry":
                path.symlink_to(other)
            elif how == "folder":
                path.mkdir()
            else:
                with open(path, "wb") as handle:
                    handle.truncate(MAX_CACHE_ENTRY_BYTES + 1)
            label = f"odd {namespace} {how}"
    return label


def check_cache(warm: Warm, rng: random.Random, root: Path, *, seconds: float = 120.0) -> tuple[str, list]:
    """Change a copy of ``warm``'s cache (``mutate``), audit with it, and return (what was done, problems). A run that
    never ends is the caller's to catch (``benchmarks/bench_fuzz.py`` runs the cases in a child process)."""
    cache, reports = root / "cache", root / "reports"
    shutil.copytree(warm.cache, cache, symlinks=True)
    shutil.copytree(warm.reports, reports)
    label = mutate(rng, cache)
    code, text, elapsed = _audit(warm.folder, reports, cache)
    problems = []
    if code != warm.code:
        problems.append(("exit", f"exit code {code}, clean run {warm.code}: {text[-300:]}"))
    if "Traceback" in text:
        problems.append(("traceback", text[-500:]))
    if "internal error" in text:
        problems.append(("internal", text[-500:]))
    if elapsed > seconds:
        problems.append(("hang", f"{elapsed:.1f} s"))
    changed = [name for name, data in _files(reports).items() if warm.clean.get(name) != data]
    changed += [name for name in warm.clean if not (reports / name).exists()]
    if changed:
        problems.append(("changed", f"{', '.join(changed)} differ from the clean run's"))
    return label, problems
