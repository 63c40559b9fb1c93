"""Run a chapter's code listing under kernel-enforced isolation and read its results over a channel it cannot reach.

The listing never runs in chapter-audit's process, nor unconfined. Layers, outermost first:
bubblewrap (``bwrap.py``: user, mount, PID, network, IPC, UTS and cgroup namespaces; a read-only
view of the interpreter, its standard library and the audit's own packages (``environment.py``: NumPy,
SciPy, pandas, the references, what texts import); a private tmpfs scratch; every capability
dropped; killed with the audit); seccomp allow-lists for the whole sandbox and a stricter one for the
process that runs listing code (``seccomp.py``); resource limits (address space, CPU time per
call, file size, open files); a wall-clock limit per call (the runner kills the call's process)
and one for the whole run (the audit kills the sandbox's init, which takes every process in its
PID namespace with it).

The result channel: the audit holds its read end; the trusted runner (``runner.py``), the sandbox's
PID 1, holds the write end and is the only process of the sandbox that does. It forks one process
per call, which closes that descriptor before listing code is loaded and cannot obtain it again
(see ``runner.py``); that process answers on a fresh pipe the runner reads for that call only. So
a listing can at most make its own call answer something; it cannot speak for another call, end
the run, or say anything in the sandbox's name. Every record on the channel is checked here
again (size, a flat object, exact fields and types, call indices in order); the sandbox's own
statuses arrive as codes and their wording is this module's. What the listing chose (exception
texts, a returned value's repr, its output) is kept apart in ``CallResult.text``/``output``,
cleaned by ``quote.clean``; results show it only through ``quote.quote``.

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

from audit.evaluation.sandbox import environment
from audit.text.literals import ArrayLiteral
from audit.evaluation.sandbox.bwrap import (
    SCRATCH_BYTES,
    IsolationUnavailable,
    bwrap_binary,
    command,
    site_folders,
)
from audit.evaluation.listing_syntax import numeric
from audit.evaluation.sandbox.quote import clean
from audit.evaluation.sandbox.seccomp import (
    SeccompUnavailable,
    listing_filter,
    sandbox_filters,
)

TRIM = 300          # characters of any listing-supplied text kept in a result
MAX_FRAME = 65536   # bytes of one message on the result channel
MAX_TEXT = 4 * TRIM  # characters of one text field on the result channel
GRACE = 1.0         # seconds for the sandbox to start and the runner to report a timed-out call
PRELOAD_LIMIT = 20.0  # seconds for the runner to import the packages a listing uses (environment.PRELOAD) ahead
STATUSES = ("ok", "raises", "returns", "timeout", "crashed", "violation", "not run")

#: The sandbox's own words for what it saw; never taken from the channel.
FORBIDDEN_CALL = ("made a system call the sandbox forbids (starting a process or program, a network socket, "
                  "reaching another process, mount, namespaces, keyctl, bpf, perf_event_open…); the sandbox killed it")
FORGED_ANSWER = "wrote to the runner's answer pipe itself (forged or malformed protocol data)"
UNSTEADY = ("returned another answer when called again with the same arguments in the same process, after calls "
            "on other inputs, or changed the arguments it was given: what it returns depends on earlier calls (a "
            "memo, a counter) or on what it changed in its arguments")
RUNNER_ENDED = "ended its own sandbox (the runner was killed) while this call ran"
FILTER_FAILED = "the listing's seccomp filter could not be loaded in the sandbox"


@dataclass
class CallResult:
    """One call of the listing.

    ``status``: ``ok`` (``value`` is the number returned), ``raises``, ``values`` (a list or tuple of
    numbers, or a mapping of text or integer keys to numbers: ``values`` holds its (key, number) pairs in
    order, key None in a sequence, a mapping's key as text; ``text`` its repr), ``returns`` (anything
    else), ``timeout``, ``crashed``, ``violation`` (killed by the sandbox for a forbidden
    system call, or tampering with its answer pipe) or ``not run``. ``detail``: the sandbox's own
    account (why a call hung, crashed, was stopped or not run). ``text``: what the listing chose to
    say — ``Type: message`` of the exception it raised, or the repr of the non-number it returned —
    and ``output``, what it printed; both ``quote.clean``: one printable line, at most ``TRIM``
    characters. Show them only through ``quote.quote``.
    """

    status: str
    value: float | None = None
    detail: str = ""
    output: str = ""
    text: str = ""
    values: tuple[tuple[str | None, float], ...] | None = None


@dataclass
class RunReport:
    """All calls of one run. ``violations``: distinct misbehaviour seen (empty for a well-behaved
    listing; the sandbox's words); ``load_error``: the exception the listing raised while loading
    (``Type: message``, cleaned; the listing's words); ``unavailable``: why the sandbox could not be
    built (empty when it ran); ``budget_exhausted``: the run's wall-clock limit stopped it."""

    results: list[CallResult]
    violations: list[str] = field(default_factory=list)
    load_error: str = ""
    isolation: str = ""
    unavailable: str = ""
    budget_exhausted: bool = False


class _ProtocolError(Exception):
    pass


def _trim(text: str) -> str:
    return clean(text, TRIM)


def _encode(value):
    """An argument as JSON the runner's ``decode`` turns back into the same value: a set, a tuple and a mapping are
    tagged (JSON has no set or tuple, and would make a mapping's integer keys text, so that a listing given
    ``{1: 3}`` would meet ``{"1": 3}``), and so is a list the text passed as a NumPy array."""
    if isinstance(value, (set, frozenset)):
        return {"__set__": [_encode(v) for v in sorted(value, key=repr)]}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v) for v in value]}
    if isinstance(value, ArrayLiteral):   # the text passed np.array([...]): the runner builds the array
        return {"__array__": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {"__map__": [[_encode(k), _encode(v)] for k, v in value.items()]}
    return value


def isolation_summary(call_limit: float, memory_mb: int) -> str:
    """One line for reports: what the listing ran under."""
    return (f"a bubblewrap sandbox (new user, mount, PID, network, IPC and UTS namespaces; a read-only view of the "
            f"Python interpreter, its standard library and the audit's own packages; a private "
            f"{SCRATCH_BYTES // 2**20} MB scratch; seccomp: no process creation, no network sockets) with "
            f"{call_limit:g} s and {memory_mb} MB per call")


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


def _flat(raw: bytes) -> bool:
    """Whether ``raw`` is at most one JSON object deep: one ``{`` outside strings, no ``[`` (checked before
    parsing, so no nesting can reach the parser's recursion)."""
    depth = opened = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte == 0x7B:  # {
            depth += 1
            opened += 1
            if depth > 1 or opened > 1:
                return False
        elif byte == 0x7D:
            depth -= 1
        elif byte == 0x5B:  # [
            return False
    return True


def _no_constant(name: str):
    raise ValueError(f"a non-finite number ({name})")


def _unique(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a repeated field")
    return dict(pairs)


#: Exact fields of each record (beyond ``kind``); of a call record by status (beyond ``i``, ``status``, ``output``).
_CALL_FIELDS = {"ok": {"value"}, "raises": {"type", "message"}, "returns": {"repr"}, "values": {"repr", "entries"},
                "load_error": {"type", "message"},
                "timeout": {"cause"}, "crashed": {"signal", "exit"}, "violation": {"cause"}, "isolation_failed": set()}
_CAUSES = {"timeout": {"wall", "cpu"}, "violation": {"syscall", "answer", "unsteady"}}


def _record(raw: bytes) -> dict:
    """One message of the channel, checked: valid UTF-8 JSON, a flat object, no repeated field, no NaN."""
    if not _flat(raw):
        raise _ProtocolError("a nested message")
    try:
        record = json.loads(raw.decode("utf-8", "strict"), parse_constant=_no_constant, object_pairs_hook=_unique)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _ProtocolError("a message that is not JSON") from None
    if not isinstance(record, dict) or record.get("kind") not in ("ready", "call", "done"):
        raise _ProtocolError("a message of no known kind")
    if record["kind"] != "call" and set(record) != {"kind"}:
        raise _ProtocolError("a greeting or closing with extra fields")
    return record


def _int(value, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise _ProtocolError("a number field out of range")
    return value


def _text(record: dict, name: str) -> str:
    value = record[name]
    if type(value) is not str or len(value) > MAX_TEXT:
        raise _ProtocolError("a text field that is not text")
    return value


MAX_ENTRIES, MAX_KEY = 256, 64  # as runner.py bounds a returned list or mapping


def _entries(text: object) -> tuple[tuple[str | None, float], ...]:
    """A ``values`` record's block (hex; see ``runner.values_of``) as (key, number) pairs, parsed again here.
    Raises ``_ProtocolError`` unless it is exactly one well-formed block."""
    if type(text) is not str or len(text) > 8192:  # the hex of at most an answer's 4096 bytes
        raise _ProtocolError("a values block that is not text")
    try:
        block = bytes.fromhex(text)
    except ValueError:
        raise _ProtocolError("a values block that is not hex") from None
    if len(block) < 3 or block[0] not in (0, 1) or int.from_bytes(block[1:3], "big") > MAX_ENTRIES:
        raise _ProtocolError("a values block of no known shape")
    keyed, at, out = block[0] == 1, 3, []
    for _ in range(int.from_bytes(block[1:3], "big")):
        key = None
        if keyed:
            size = int.from_bytes(block[at:at + 2], "big")
            if at + 2 > len(block) or size > MAX_KEY or at + 2 + size > len(block):
                raise _ProtocolError("a values block cut short")
            try:
                key = block[at + 2:at + 2 + size].decode("utf-8", "strict")
            except UnicodeDecodeError:
                raise _ProtocolError("a key that is not UTF-8") from None
            at += 2 + size
        if at + 8 > len(block):
            raise _ProtocolError("a values block cut short")
        out.append((key, struct.unpack(">d", block[at:at + 8])[0]))
        at += 8
    if at != len(block):
        raise _ProtocolError("a values block with trailing bytes")
    return tuple(out)


def _call_result(record: dict, index: int, count: int, call_limit: float) -> tuple[CallResult, str]:
    """A call record → (result, the listing's load error text). Raises ``_ProtocolError`` unless the record has
    exactly the fields its status has, each of its type, for the call that is due."""
    if record.get("kind") != "call" or type(record.get("i")) is not int or record["i"] != index \
            or not 0 <= index < count:
        raise _ProtocolError("a result for another call than the one due")
    status = record.get("status")
    if type(status) is not str or status not in _CALL_FIELDS:
        raise _ProtocolError("an unknown status")
    if set(record) != _CALL_FIELDS[status] | {"kind", "i", "status", "output"}:
        raise _ProtocolError("a record with missing or extra fields")
    output = _trim(_text(record, "output"))
    if status in _CAUSES and record["cause"] not in _CAUSES[status]:
        raise _ProtocolError("an unknown cause")
    if status == "ok":
        value = _text(record, "value")
        try:
            return CallResult("ok", float.fromhex(value), output=output), ""
        except (ValueError, OverflowError):
            raise _ProtocolError("a value that is not a number") from None
    if status in ("raises", "load_error"):
        said = _trim(f"{_text(record, 'type')}: {_text(record, 'message')}")
        if status == "load_error":
            return CallResult("not run", detail="the listing does not load", output=output), said
        return CallResult("raises", text=said, output=output), ""
    if status == "returns":
        return CallResult("returns", text=_trim(_text(record, "repr")), output=output), ""
    if status == "values":
        return CallResult("values", text=_trim(_text(record, "repr")), output=output,
                          values=_entries(record["entries"])), ""
    if status == "timeout":
        detail = (f"still running after {call_limit:g} s; stopped" if record["cause"] == "wall"
                  else f"used more than {call_limit:g} s of CPU; stopped")
        return CallResult("timeout", detail=detail, output=output), ""
    if status == "violation":
        detail = {"syscall": FORBIDDEN_CALL, "answer": FORGED_ANSWER, "unsteady": UNSTEADY}[record["cause"]]
        return CallResult("violation", detail=detail, output=output), ""
    if status == "crashed":
        sig, code = _int(record["signal"], 0, 64), _int(record["exit"], 0, 255)
        if sig:
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            return CallResult("crashed", detail=f"the interpreter died (signal {name})", output=output), ""
        return CallResult("crashed", detail=f"the interpreter exited (code {code}) without an answer",
                          output=output), ""
    return CallResult("isolation_failed", output=output), ""


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


def start(command_of, filters: tuple[bytes, ...], request: dict) -> tuple[subprocess.Popen, int, int]:
    """Start a sandbox: each seccomp filter of ``filters`` and the JSON ``request`` in an anonymous in-memory file, a
    result pipe, and bubblewrap's ``--info-fd`` pipe (for ``_sandbox_init``). ``command_of(seccomp_fds, result_fd,
    request_fd)`` gives bwrap's command (``bwrap.command``, ``bwrap.notebook_command``). Returns (bwrap's process, the
    result pipe's read end, the info pipe's read end); the caller closes both and stops the sandbox with ``_stop``.
    Raises ``IsolationUnavailable`` when bwrap cannot be started."""
    seccomp_fds = tuple(_memfd("chapter-audit-seccomp", bpf) for bpf in filters)
    request_fd = _memfd("chapter-audit-request", json.dumps(request).encode())
    result_r, result_w = os.pipe()
    info_r, info_w = os.pipe()
    passed = (*seccomp_fds, request_fd, result_w, info_w)
    args = command_of(seccomp_fds, result_w, request_fd)
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
    return proc, result_r, info_r


def _run(bwrap: str, code: str, function: str, calls: list[list], time_limit: float, call_limit: float,
         memory_mb: int, max_hangs: int, repeat: bool = True) -> RunReport:
    count = len(calls)
    per_call = max(0.05, min(call_limit, time_limit))
    report = RunReport(results=[], isolation=isolation_summary(per_call, memory_mb))
    results: list[CallResult | None] = [None] * count
    ahead = environment.preload(code)
    request = {"code": code, "function": function, "calls": [_encode(c) for c in calls], "call_limit": per_call,
               "memory_mb": memory_mb, "max_hangs": max_hangs, "filter": listing_filter().hex(),
               "numeric": numeric(code), "site": list(site_folders()), "preload": ahead, "repeat": repeat}
    proc, result_r, info_r = start(lambda fds, result_w, request_fd: command(bwrap, fds, result_w, request_fd),
                                   sandbox_filters(), request)
    # the packages imported ahead (before the runner's greeting) have their own allowance; the run's limit counts
    # from the greeting
    deadline = time.monotonic() + time_limit + GRACE + (PRELOAD_LIMIT if ahead else 0)
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
                    info = (info + chunk)[:4096]
                elif key.fd != result_r:
                    bwrap_output = (bwrap_output + chunk)[:4096]
                else:
                    buffer += chunk
            try:
                while len(buffer) >= 4:
                    (size,) = struct.unpack(">I", buffer[:4])
                    if size > MAX_FRAME:
                        raise _ProtocolError("a message too long")
                    if len(buffer) < 4 + size:
                        break
                    record, buffer = _record(buffer[4:4 + size]), buffer[4 + size:]
                    if done:
                        raise _ProtocolError("a message after the last one")
                    if not ready:
                        if record["kind"] != "ready":
                            raise _ProtocolError("a first message that is not the runner's greeting")
                        ready = True
                        deadline = min(deadline, time.monotonic() + time_limit + GRACE)
                    elif record["kind"] == "done":
                        done = True
                    elif record["kind"] == "ready":
                        raise _ProtocolError("a second greeting")
                    else:
                        result, load_error = _call_result(record, index, count, per_call)
                        if result.status == "isolation_failed":
                            report.unavailable = FILTER_FAILED
                            break
                        results[index] = result
                        index += 1
                        if load_error:
                            report.load_error = load_error
                        if result.status == "violation" and result.detail not in report.violations:
                            report.violations.append(result.detail)
                if len(buffer) > 4 + MAX_FRAME:
                    raise _ProtocolError("a message too long")
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
            results[index] = CallResult("violation", detail=RUNNER_ENDED)
            report.violations.append(RUNNER_ENDED)
        index += 1
    rest = (f"not run: isolation unavailable ({report.unavailable})" if report.unavailable
            else "the listing does not load" if report.load_error
            else ("the listing's time limit ran out" if report.budget_exhausted
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
                f"a trivial listing did not run cleanly in the sandbox ({first.status}: {first.detail or first.text})"))
        except (IsolationUnavailable, SeccompUnavailable) as exc:
            _availability[bwrap] = str(exc)
    return _availability[bwrap]


def run_listing(code: str, function: str, calls: list[list], *, time_limit: float = 30.0, call_limit: float = 2.0,
                memory_mb: int = 256, max_hangs: int = 3, repeat: bool = True) -> RunReport:
    """Call ``function`` from ``code`` once per argument list in ``calls``, each in a fresh sandboxed process.

    With ``repeat`` (the default), each process first calls it on another of ``calls`` and the call's answer is
    the one after that, checked to be the same when the call is made again on the same argument objects (an answer
    that changes is a violation, ``UNSTEADY``): as an ordinary caller gets it, not as a fresh process does. Off
    only for a listing held to its own seed's output, whose random generator an extra call would advance.

    ``time_limit``: seconds of wall-clock time for the whole run (the sandbox is killed then);
    ``call_limit``: seconds of wall-clock (and CPU) time per call; ``memory_mb``: address space per
    process, plus ``environment.PACKAGES_MB`` for a listing that imports packages beyond the standard library
    (NumPy and SciPy alone map more than a small limit). The packages of ``environment.PRELOAD`` the listing
    imports are imported once, ahead of the calls (not counted in ``time_limit``). After ``max_hangs`` calls that
    time out, the remaining calls are ``not run``. Never raises for anything the listing does; never runs the
    listing when isolation is unavailable.
    """
    if environment.uses_packages(code):
        memory_mb += environment.PACKAGES_MB
    reason = unavailable_reason()
    if not reason:
        try:
            return _run(bwrap_binary(), code, function, calls, time_limit, call_limit, memory_mb, max_hangs, repeat)
        except (IsolationUnavailable, SeccompUnavailable) as exc:
            reason = str(exc)
    return RunReport(results=[CallResult("not run", detail=f"not run: isolation unavailable ({reason})")
                              for _ in calls], unavailable=reason, isolation="no sandbox: " + reason)
