"""Run a chapter's code listing under kernel-enforced isolation and read its results over a channel it cannot write to.

The listing never runs in chapter-audit's process, nor unconfined. Layers, outermost first:
bubblewrap (``bwrap.py``: user, mount, PID, network, IPC, UTS and cgroup namespaces; a read-only
view of the interpreter and its standard library only; a private tmpfs scratch; every capability
dropped; killed with the audit); a seccomp filter for the whole sandbox and a stricter one for the
process that runs listing code (``seccomp.py``); resource limits (address space, CPU time per
call, file size, open files); a wall-clock limit per call (the runner kills the call's process)
and one for the whole run (the audit kills the sandbox's init, which takes every process in its
PID namespace with it). The trusted runner (``runner.py``) forks one process per call; only the
runner holds the result descriptor, and every message on it is validated here.

When the sandbox cannot be built (no bwrap, the kernel refuses namespaces, no libseccomp), no
listing runs: every call is ``not run`` and ``RunReport.unavailable`` says why.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import struct
import subprocess
import time
from dataclasses import dataclass, field

from audit.evaluation.sandbox.bwrap import (
    SCRATCH_BYTES,
    IsolationUnavailable,
    bwrap_binary,
    command,
)
from audit.evaluation.sandbox.seccomp import (
    SeccompUnavailable,
    listing_filter,
    sandbox_filter,
)

TRIM = 300          # characters of any listing-supplied text kept in a result
MAX_FRAME = 65536   # bytes of one message on the result channel
GRACE = 1.0         # seconds for the sandbox to start and the runner to report a timed-out call
STATUSES = ("ok", "raises", "returns", "timeout", "crashed", "violation", "not run")


@dataclass
class CallResult:
    """One call of the listing.

    ``status``: ``ok`` (``value`` is the number returned), ``raises``, ``returns`` (a
    non-number), ``timeout``, ``crashed``, ``violation`` (killed by the sandbox for a forbidden
    system call, or tampering with its answer pipe) or ``not run``. ``detail`` and ``output``
    (what the call printed) are trimmed to ``TRIM`` characters.
    """

    status: str
    value: float | None = None
    detail: str = ""
    output: str = ""


@dataclass
class RunReport:
    """All calls of one run. ``violations``: distinct misbehaviour seen (empty for a well-behaved
    listing); ``unavailable``: why the sandbox could not be built (empty when it ran);
    ``budget_exhausted``: the run's wall-clock limit stopped it."""

    results: list[CallResult]
    violations: list[str] = field(default_factory=list)
    load_error: str = ""
    isolation: str = ""
    unavailable: str = ""
    budget_exhausted: bool = False


class _ProtocolError(Exception):
    pass


def _trim(text: str) -> str:
    text = str(text)
    return text if len(text) <= TRIM else text[:TRIM] + "…"


def _encode(value):
    if isinstance(value, (set, frozenset)):
        return {"__set__": [_encode(v) for v in sorted(value, key=repr)]}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    return value


def isolation_summary(call_limit: float, memory_mb: int) -> str:
    """One line for reports: what the listing ran under."""
    return (f"a bubblewrap sandbox (new user, mount, PID, network, IPC and UTS namespaces; a read-only view of the "
            f"Python interpreter and its standard library only; a private {SCRATCH_BYTES // 2**20} MB scratch; "
            f"seccomp: no process creation, no network sockets) with {call_limit:g} s and {memory_mb} MB per call")


def _memfd(name: str, data: bytes) -> int:
    """An anonymous in-memory file holding ``data`` (nothing is written to disk), positioned at its start."""
    try:
        fd = os.memfd_create(name)
    except (AttributeError, OSError) as exc:
        raise IsolationUnavailable(f"no memfd_create on this system ({exc})") from None
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _record(raw: bytes) -> dict:
    try:
        record = json.loads(raw.decode())
    except (UnicodeDecodeError, ValueError):
        raise _ProtocolError("a message that is not JSON") from None
    if not isinstance(record, dict):
        raise _ProtocolError("a message that is not an object")
    return record


def _call_result(record: dict, index: int, count: int) -> tuple[CallResult, str]:
    """A validated call record → (result, load error text)."""
    if record.get("i") != index or not isinstance(record["i"], int) or not 0 <= index < count:
        raise _ProtocolError(f"a result for call {record.get('i')!r} where call {index} of {count} was due")
    status, output = record.get("status"), record.get("output", "")
    if not isinstance(output, str):
        raise _ProtocolError("an output that is not text")
    texts = {k: record.get(k) for k in ("detail", "type", "message", "repr", "value") if k in record}
    if not all(isinstance(v, str) for v in texts.values()):
        raise _ProtocolError("a field that is not text")
    output = _trim(output)
    if status == "ok":
        try:
            return CallResult("ok", float.fromhex(texts.get("value", "")), output=output), ""
        except (ValueError, OverflowError):
            raise _ProtocolError("a value that is not a number") from None
    if status == "raises":
        return CallResult("raises", detail=_trim(f"{texts.get('type', '')}: {texts.get('message', '')}"),
                          output=output), ""
    if status == "returns":
        return CallResult("returns", detail=_trim(texts.get("repr", "")), output=output), ""
    if status == "load_error":
        return CallResult("not run", output=output), _trim(f"{texts.get('type', '')}: {texts.get('message', '')}")
    if status in ("timeout", "crashed", "violation", "isolation_failed"):
        return CallResult(status, detail=_trim(texts.get("detail", "")), output=output), ""
    raise _ProtocolError(f"an unknown status {status!r}")


def _sandbox_init(info: bytes, bwrap_pid: int) -> int | None:
    """The host PID of the sandbox's init (bwrap ``--info-fd``), checked to be a child of ``bwrap_pid``."""
    try:
        pid = int(json.loads(info.decode())["child-pid"])
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            parent = int(stat.read().rsplit(")", 1)[1].split()[1])
    except (ValueError, KeyError, TypeError, OSError, IndexError):
        return None
    return pid if parent == bwrap_pid else None


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def _stop(proc: subprocess.Popen, init: int | None) -> None:
    """Kill the whole sandbox: its init first (the kernel then kills every process of its PID namespace), then
    bwrap; return once the namespace is empty."""
    if proc.poll() is None and init is not None:
        try:
            os.kill(init, signal.SIGKILL)
        except ProcessLookupError:
            pass
        end = time.monotonic() + 5
        while not _gone(init) and time.monotonic() < end:
            time.sleep(0.01)
    if proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _run(bwrap: str, code: str, function: str, calls: list[list], time_limit: float, call_limit: float,
         memory_mb: int, max_hangs: int) -> RunReport:
    count = len(calls)
    per_call = max(0.05, min(call_limit, time_limit))
    report = RunReport(results=[], isolation=isolation_summary(per_call, memory_mb))
    results: list[CallResult | None] = [None] * count
    request = {"code": code, "function": function, "calls": [_encode(c) for c in calls], "call_limit": per_call,
               "memory_mb": memory_mb, "max_hangs": max_hangs, "filter": listing_filter().hex()}
    seccomp_fd = _memfd("chapter-audit-seccomp", sandbox_filter())
    request_fd = _memfd("chapter-audit-request", json.dumps(request).encode())
    result_r, result_w = os.pipe()
    info_r, info_w = os.pipe()
    passed = (seccomp_fd, request_fd, result_w, info_w)
    args = command(bwrap, seccomp_fd, result_w, request_fd)
    args[1:1] = ["--info-fd", str(info_w)]
    try:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                pass_fds=passed, env={"PATH": os.defpath})
    except OSError as exc:
        for fd in (*passed, result_r, info_r):
            os.close(fd)
        raise IsolationUnavailable(f"bwrap could not be started ({exc})") from None
    for fd in passed:
        os.close(fd)
    deadline = time.monotonic() + time_limit + GRACE
    buffer, bwrap_output, info = b"", b"", b""
    ready = done = timed_out = False
    index, protocol = 0, ""
    selector = selectors.DefaultSelector()
    for fd in (result_r, proc.stdout.fileno(), info_r):
        selector.register(fd, selectors.EVENT_READ)
    try:
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                elif key.fd == info_r:
                    info += chunk[:4096]
                elif key.fd != result_r:
                    bwrap_output = (bwrap_output + chunk)[:4096]
                else:
                    buffer += chunk
            try:
                while len(buffer) >= 4:
                    (size,) = struct.unpack(">I", buffer[:4])
                    if size > MAX_FRAME:
                        raise _ProtocolError(f"a message of {size} bytes")
                    if len(buffer) < 4 + size:
                        break
                    record, buffer = _record(buffer[4:4 + size]), buffer[4 + size:]
                    if done:
                        raise _ProtocolError("a message after the last one")
                    if not ready:
                        if record != {"ready": True}:
                            raise _ProtocolError("a first message that is not the runner's greeting")
                        ready = True
                    elif record == {"done": True}:
                        done = True
                    else:
                        result, load_error = _call_result(record, index, count)
                        if result.status == "isolation_failed":
                            report.unavailable = result.detail
                            break
                        results[index] = result
                        index += 1
                        if load_error:
                            report.load_error = load_error
                        if result.status == "violation" and result.detail not in report.violations:
                            report.violations.append(result.detail)
            except _ProtocolError as exc:
                protocol = str(exc)
            if protocol or report.unavailable:
                break
    finally:
        _stop(proc, _sandbox_init(info, proc.pid))
        selector.close()
        for fd in (result_r, info_r):
            os.close(fd)
        proc.stdout.close()
    said = _trim(bwrap_output.decode("utf-8", "replace").strip())
    if not ready and not protocol:
        report.unavailable = report.unavailable or (f"the sandbox did not start (bwrap exit code {proc.returncode}"
                                                    + (f": {said}" if said else "") + ")")
    if report.unavailable:
        results = [None] * count
        index = 0
    elif protocol:
        report.violations.append(f"the result channel carried {protocol}; the run was stopped")
    elif not done and index < count:
        if timed_out:
            report.budget_exhausted = True
            results[index] = CallResult("timeout", detail=f"still running when the listing's time limit of "
                                                           f"{time_limit:g} s ran out; the sandbox was killed")
        else:
            what = "ended its own sandbox (the runner was killed) while this call ran"
            results[index] = CallResult("violation", detail=what)
            report.violations.append(what)
        index += 1
    rest = (f"not run: isolation unavailable ({report.unavailable})" if report.unavailable
            else report.load_error or ("the listing's time limit ran out" if report.budget_exhausted
                                       else "stopped after repeated hangs" if done
                                       else "the run was stopped"))
    report.results = [r or CallResult("not run", detail=rest) for r in results]
    return report


_availability: dict[str, str] = {}
_PROBE = "def probe():\n    return 1\n"


def unavailable_reason() -> str:
    """Why listings cannot run here (empty when they can): the sandbox is built once and must run a trivial
    listing cleanly. The answer is kept per bwrap binary for the life of the process."""
    try:
        bwrap = bwrap_binary()
    except IsolationUnavailable as exc:
        return str(exc)
    if bwrap not in _availability:
        try:
            report = _run(bwrap, _PROBE, "probe", [[]], time_limit=30, call_limit=20, memory_mb=256, max_hangs=1)
            first = report.results[0]
            ok = first.status == "ok" and first.value == 1.0 and not report.violations
            _availability[bwrap] = "" if ok else (report.unavailable or _trim(
                f"a trivial listing did not run cleanly in the sandbox ({first.status}: {first.detail})"))
        except (IsolationUnavailable, SeccompUnavailable) as exc:
            _availability[bwrap] = str(exc)
    return _availability[bwrap]


def run_listing(code: str, function: str, calls: list[list], *, time_limit: float = 30.0, call_limit: float = 2.0,
                memory_mb: int = 256, max_hangs: int = 3) -> RunReport:
    """Call ``function`` from ``code`` once per argument list in ``calls``, each in a fresh sandboxed process.

    ``time_limit``: seconds of wall-clock time for the whole run (the sandbox is killed then);
    ``call_limit``: seconds of wall-clock (and CPU) time per call; ``memory_mb``: address space per
    process. After ``max_hangs`` calls that time out, the remaining calls are ``not run``. Never
    raises for anything the listing does; never runs the listing when isolation is unavailable.
    """
    reason = unavailable_reason()
    if not reason:
        try:
            return _run(bwrap_binary(), code, function, calls, time_limit, call_limit, memory_mb, max_hangs)
        except (IsolationUnavailable, SeccompUnavailable) as exc:
            reason = str(exc)
    return RunReport(results=[CallResult("not run", detail=f"not run: isolation unavailable ({reason})")
                              for _ in calls], unavailable=reason, isolation="no sandbox: " + reason)
