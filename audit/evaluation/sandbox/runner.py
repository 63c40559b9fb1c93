# The trusted runner inside the listing sandbox. Standard library only (but the packages of the audit's environment
# it imports ahead for the calls, PRELOADABLE); never imports chapter-audit.
#
# Started by bubblewrap as the sandbox's PID 1 (`--as-pid-1`: no other process of the sandbox holds a
# descriptor of the audit's) with `python -I -S -B /sandbox/runner.py RESULT_FD REQUEST_FD`. It reads the
# request from REQUEST_FD (one JSON object: code, function, calls, limits, the listing seccomp filter as BPF
# in hex, the audit's read-only package folders, the packages to import ahead), then for each call forks a child that closes every descriptor but two fresh pipes (its output, as
# stdout and stderr, and its answer), stacks the listing filter, loads the listing and calls the function
# once. Listing code never runs in this process.
#
# Who can reach RESULT_FD: the runner alone. A call's process closes it before listing code is loaded and
# cannot take it back: the seccomp filters kill pidfd_open, pidfd_getfd, ptrace, process_vm_readv/writev and
# kcmp; this process is not dumpable (so the kernel's ptrace access check refuses any such request from a
# process without CAP_SYS_PTRACE, which nothing in the sandbox has); there is no /proc; and as its PID
# namespace's init with no signal handler, no signal from inside the sandbox reaches it. What a call's
# process can write is its own answer pipe, read here for that one call only: a byte the child writes once
# the listing filter is loaded (before listing code runs), then one binary answer (a status byte, an IEEE
# double or length-prefixed UTF-8 texts; no nesting, no JSON), checked field by field. The statuses of the
# sandbox's own (timeout, crashed, violation, filter not loaded) are decided here from how the process ended
# and that first byte, never read from what listing code wrote. Records to RESULT_FD are length-prefixed flat JSON objects: {"kind":
# "ready"}, one {"kind": "call", ...} per call, {"kind": "done"}; they carry codes and numbers for the
# sandbox's own statuses and the listing's texts as plain strings, and the audit checks them again.
import ctypes
import json
import os
import resource
import select
import signal
import struct
import sys
import time

MAX_ANSWER = 4096      # bytes a child may write on its answer pipe
MAX_OUTPUT = 65536     # bytes of a child's own output read (the rest is drained and dropped)
TRIM = 300             # characters of a message or of output kept
MAX_TEXT = 6 * TRIM    # bytes of one text in an answer (TRIM characters; a surrogate becomes six)
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
LOAD_FAILED = 120      # a child's exit code when it could not load the listing filter
LOADED = b"\xa5"        # the first byte a child writes on its answer pipe, once the listing filter is loaded
# Answer statuses (the first byte of a child's answer) and the texts each carries.
ANSWERS = {1: ("ok", ()), 2: ("raises", ("type", "message")), 3: ("returns", ("repr",)),
           4: ("load_error", ("type", "message")), 5: ("values", ("repr",))}
MAX_ENTRIES = 256      # numbers in a list or mapping a call may return as values
MAX_KEY = 64           # characters of a mapping's key kept as a value's key
CODES = {name: code for code, (name, _) in ANSWERS.items()}
# Modules imported here once, ahead of the calls, when the request names them (as environment.PRELOAD): packages of
# the audit's own read-only environment, so each call's process starts with them loaded. Nothing else is imported
# here, whatever the request says.
PRELOADABLE = frozenset({"numpy", "scipy", "scipy.special", "scipy.stats", "pandas", "sklearn", "sklearn.metrics"})


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def frame(record):
    data = json.dumps(record, ensure_ascii=True, allow_nan=False).encode()
    return struct.pack(">I", len(data)) + data


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def decode(value):
    if isinstance(value, dict) and "__set__" in value:
        return {decode(v) for v in value["__set__"]}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def trim(text):
    text = str(text)
    return text if len(text) <= TRIM else text[:TRIM] + "…"


def text_bytes(text):
    """``text`` trimmed, as UTF-8 with a length prefix (a lone surrogate written as its backslash escape)."""
    try:
        data = trim(text).encode("utf-8", "backslashreplace")
    except BaseException:
        data = b"(text that could not be shown)"
    return struct.pack(">H", len(data)) + data


def describe(exc):
    try:
        message = str(exc)
    except BaseException:
        message = "(its message could not be rendered)"
    try:
        name = type(exc).__name__
    except BaseException:
        name = "exception"
    return name, message


def answer_for(function, args):
    """Call the listing's function; its answer, as bytes."""
    try:
        value = function(*args)
    except BaseException as exc:
        name, message = describe(exc)
        return bytes([CODES["raises"]]) + text_bytes(name) + text_bytes(message)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return bytes([CODES["ok"]]) + struct.pack(">d", float(value))
        except BaseException:
            pass
    try:
        text = repr(value)
    except BaseException:
        text = f"a {type(value).__name__} that cannot be shown"
    try:
        entries = values_of(value)
    except BaseException:
        entries = None
    if entries is not None:
        answer = bytes([CODES["values"]]) + text_bytes(text) + entries
        if len(answer) <= MAX_ANSWER:
            return answer
    return bytes([CODES["returns"]]) + text_bytes(text)


def number(value):
    if type(value) not in (int, float):  # exactly a number: a subclass's own methods are listing code
        raise TypeError
    return struct.pack(">d", float(value))


def values_of(value):
    """A returned list or tuple of numbers, or a mapping of text or integer keys to numbers, as the binary block of
    a ``values`` answer: a shape byte (0 a sequence, 1 a mapping), a count, then each entry (a mapping's key as a
    length-prefixed text) and its IEEE double; None for anything else. Only exact built-in types are read, so no
    method of the listing's runs here."""
    if type(value) in (list, tuple):
        items = list(value)
        if len(items) > MAX_ENTRIES:
            return None
        return bytes([0]) + struct.pack(">H", len(items)) + b"".join(number(v) for v in items)
    if type(value) is dict:
        pairs = list(dict.items(value))
        if len(pairs) > MAX_ENTRIES or any(type(k) not in (str, int) for k, _ in pairs):
            return None
        out = [bytes([1]), struct.pack(">H", len(pairs))]
        for k, v in pairs:
            key = str.encode(k if type(k) is str else int.__repr__(k), "utf-8", "backslashreplace")[:MAX_KEY]
            out += [struct.pack(">H", len(key)), key, number(v)]
        return b"".join(out)
    return None


def close_all_but(*keep):
    """Close every descriptor above 2 except ``keep`` (whatever its number: inherited ones may lie above
    the RLIMIT_NOFILE this runner sets)."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 2**20)


def child(request, call, answer_w, output_w, prog):
    """In the forked child: never returns."""
    try:
        os.dup2(output_w, 1)
        os.dup2(output_w, 2)
        close_all_but(answer_w)  # the result channel, the request, the runner's other pipes
        os.setpgid(0, 0)
        cpu = max(1, int(request["call_limit"] + 0.999))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
                libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
            os._exit(LOAD_FAILED)
        # Written before any listing code runs, and never unwritten: without it, and only then, an exit with
        # LOAD_FAILED means the filter did not load (a listing can exit with any code, but only after this).
        write_all(answer_w, LOADED)
    except BaseException:
        os._exit(LOAD_FAILED)
    # From here on, listing code runs in this process.
    try:
        namespace = {"__name__": "listing"}
        try:
            exec(compile(request["code"], "<listing>", "exec"), namespace)
            function = namespace[request["function"]]
        except BaseException as exc:
            name, message = describe(exc)
            answer = bytes([CODES["load_error"]]) + text_bytes(name) + text_bytes(message)
        else:
            answer = answer_for(function, decode(call))
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        write_all(answer_w, answer)
    finally:
        os._exit(0)


def reap(pid, deadline):
    """Wait for ``pid``; kill it at ``deadline`` (it may have closed its pipes and gone on running)."""
    pause = 0.00005  # a process that closed its pipes is usually gone within microseconds
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status, False
        if time.monotonic() >= deadline:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return os.waitpid(pid, 0)[1], True
        time.sleep(pause)
        pause = min(pause * 2, 0.005)


def collect(pid, answer_r, output_r, deadline):
    """Read a child's answer and output until both close or the deadline passes; reap it."""
    answer, output, timed_out = b"", b"", False
    open_fds = {answer_r, output_r}
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select(list(open_fds), [], [], left)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                open_fds.discard(fd)
            elif fd == answer_r:
                answer += chunk
                if len(answer) > MAX_ANSWER:
                    open_fds.clear()  # flooding its answer pipe: the answer is void, the process stopped now
            elif len(output) < MAX_OUTPUT:
                output += chunk
    flooded = len(answer) > MAX_ANSWER
    if timed_out or flooded:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    status, late = reap(pid, deadline)
    os.close(answer_r)
    os.close(output_r)
    return answer, output, status, (timed_out or late) and not flooded


def parse_answer(answer):
    """The child's one answer as a record, or None unless ``answer`` is exactly one well-formed answer."""
    if not answer or len(answer) > MAX_ANSWER or answer[0] not in ANSWERS:
        return None
    status, fields = ANSWERS[answer[0]]
    if status == "ok":
        if len(answer) != 9:
            return None
        return {"status": "ok", "value": struct.unpack(">d", answer[1:])[0].hex()}
    record, at = {"status": status}, 1
    for name in fields:
        if at + 2 > len(answer):
            return None
        (size,) = struct.unpack(">H", answer[at:at + 2])
        data = answer[at + 2:at + 2 + size]
        if size > MAX_TEXT or len(data) != size:
            return None
        try:
            record[name] = trim(data.decode("utf-8", "strict"))
        except UnicodeDecodeError:
            return None
        at += 2 + size
    if status == "values":
        block = answer[at:]
        if entries_of(block) is None:
            return None
        record["entries"] = block.hex()
        return record
    return record if at == len(answer) else None


def entries_of(block):
    """The (key, number) pairs of a ``values`` answer's block (key None in a sequence), or None unless ``block`` is
    exactly one well-formed block."""
    if len(block) < 3 or block[0] not in (0, 1):
        return None
    (count,) = struct.unpack(">H", block[1:3])
    if count > MAX_ENTRIES:
        return None
    at, out = 3, []
    for _ in range(count):
        key = None
        if block[0] == 1:
            if at + 2 > len(block):
                return None
            (size,) = struct.unpack(">H", block[at:at + 2])
            if size > MAX_KEY or at + 2 + size > len(block):
                return None
            try:
                key = block[at + 2:at + 2 + size].decode("utf-8", "strict")
            except UnicodeDecodeError:
                return None
            at += 2 + size
        if at + 8 > len(block):
            return None
        out.append((key, struct.unpack(">d", block[at:at + 8])[0]))
        at += 8
    return out if at == len(block) else None


def outcome(index, answer, output, status, timed_out):
    """The record for one call, from how its child ended and what it answered."""
    shown = trim(output.decode("utf-8", "replace").strip()) if output else ""
    base = {"kind": "call", "i": index, "output": shown}
    if len(answer) > MAX_ANSWER:
        return {**base, "status": "violation", "cause": "answer"}
    if timed_out:
        return {**base, "status": "timeout", "cause": "wall"}
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGSYS:
            return {**base, "status": "violation", "cause": "syscall"}
        if sig == signal.SIGXCPU:
            return {**base, "status": "timeout", "cause": "cpu"}
        return {**base, "status": "crashed", "signal": sig, "exit": 0}
    code = os.WEXITSTATUS(status)
    if not answer.startswith(LOADED):
        if code == LOAD_FAILED:
            return {**base, "status": "isolation_failed"}
        return {**base, "status": "crashed", "signal": 0, "exit": code}
    answer = answer[len(LOADED):]
    record = parse_answer(answer)
    if record is None:
        if answer:
            return {**base, "status": "violation", "cause": "answer"}
        return {**base, "status": "crashed", "signal": 0, "exit": code}
    return {**base, **record}


def offer_packages(request):
    """Put the audit's package folders on the path (the calls import from them) and import ahead the packages of
    ``PRELOADABLE`` the request names. One that fails to import is left for the call, which reports its error."""
    sys.path.extend(folder for folder in request.get("site", ()) if type(folder) is str)
    for name in request.get("preload", ()):
        if name in PRELOADABLE:
            try:
                __import__(name)
            except BaseException:
                pass


def main():
    result_fd, request_fd = int(sys.argv[1]), int(sys.argv[2])
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as init, no handler: no signal from inside reaches us
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise SystemExit("cannot make the runner non-dumpable")
    close_all_but(result_fd, request_fd)  # anything else inherited
    request = json.loads(read_all(request_fd).decode())
    os.close(request_fd)
    memory = request["memory_mb"] * 2**20
    for limit, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, 2**20),
                         (resource.RLIMIT_NOFILE, 64), (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, 64)):
        resource.setrlimit(limit, (value, value))
    bpf = bytes.fromhex(request["filter"])
    buffer = ctypes.create_string_buffer(bpf, len(bpf))
    prog = SockFprog(len(bpf) // 8, ctypes.addressof(buffer))
    offer_packages(request)
    write_all(result_fd, frame({"kind": "ready"}))
    hangs = 0
    for index, call in enumerate(request["calls"]):
        answer_r, answer_w = os.pipe()
        output_r, output_w = os.pipe()
        deadline = time.monotonic() + request["call_limit"]
        pid = os.fork()
        if pid == 0:
            os.close(answer_r)
            os.close(output_r)
            os.close(result_fd)
            child(request, call, answer_w, output_w, prog)
        os.close(answer_w)
        os.close(output_w)
        record = outcome(index, *collect(pid, answer_r, output_r, deadline))
        write_all(result_fd, frame(record))
        if record["status"] in ("load_error", "isolation_failed"):
            break
        hangs += record["status"] == "timeout"
        if hangs >= request["max_hangs"]:
            break
    write_all(result_fd, frame({"kind": "done"}))


main()
