# The trusted runner inside the listing sandbox. Standard library only; never imports chapter-audit.
#
# Started by bubblewrap as `python -I -S -B /sandbox/runner.py RESULT_FD REQUEST_FD`. It reads the
# request from REQUEST_FD (one JSON object: code, function, calls, limits, the listing seccomp filter
# as BPF in hex), then for each call forks a child that closes every descriptor but two fresh pipes
# (its output, as stdout and stderr, and its one answer), stacks the listing filter, loads the
# listing and calls the function once. The runner alone holds RESULT_FD: it validates each child's
# answer and writes length-prefixed JSON records there ({"ready"}, one per call, {"done"}). Listing
# code never runs in this process, so nothing it does can write to RESULT_FD.
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
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
LOAD_FAILED = 120      # a child's exit code when it could not load the listing filter


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def frame(record):
    data = json.dumps(record).encode()
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


def describe(exc):
    try:
        message = str(exc)
    except BaseException:
        message = "(its message could not be rendered)"
    try:
        name = type(exc).__name__
    except BaseException:
        name = "exception"
    return trim(name), trim(message)


def answer_for(function, args):
    """Call the listing's function; the answer record (without an index)."""
    try:
        value = function(*args)
    except BaseException as exc:
        name, message = describe(exc)
        return {"status": "raises", "type": name, "message": message}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return {"status": "ok", "value": float(value).hex()}
        except BaseException:
            pass
    try:
        text = repr(value)
    except BaseException:
        text = f"a {type(value).__name__} that cannot be shown"
    return {"status": "returns", "repr": trim(text)}


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
        close_all_but(answer_w)
        os.setpgid(0, 0)
        cpu = max(1, int(request["call_limit"] + 0.999))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
                libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
            os._exit(LOAD_FAILED)
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
            record = {"status": "load_error", "type": name, "message": message}
        else:
            record = answer_for(function, decode(call))
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        write_all(answer_w, frame(record))
    finally:
        os._exit(0)


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
                    open_fds.discard(fd)  # flooding its answer pipe: the answer is void anyway
            elif len(output) < MAX_OUTPUT:
                output += chunk
    if timed_out or len(answer) > MAX_ANSWER:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    os.close(answer_r)
    os.close(output_r)
    return answer, output, status, timed_out


def parse_answer(answer):
    """The child's one answer record, or None when the pipe does not hold exactly one valid frame."""
    if len(answer) < 4:
        return None
    (size,) = struct.unpack(">I", answer[:4])
    if size != len(answer) - 4:
        return None
    try:
        record = json.loads(answer[4:].decode())
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    status = record.get("status")
    fields = {"ok": {"value"}, "raises": {"type", "message"}, "returns": {"repr"},
              "load_error": {"type", "message"}}.get(status)
    if fields is None or set(record) != fields | {"status"} or not all(isinstance(record[f], str) for f in fields):
        return None
    if status == "ok":
        try:
            float.fromhex(record["value"])
        except (ValueError, OverflowError):
            return None
    return {k: trim(v) if k not in ("status", "value") else v for k, v in record.items()}


def outcome(index, answer, output, status, timed_out, call_limit):
    """The record for one call, from what its child did."""
    shown = trim(output.decode("utf-8", "replace").strip()) if output else ""
    base = {"i": index, "output": shown}
    if timed_out:
        return {**base, "status": "timeout", "detail": f"still running after {call_limit:g} s; stopped"}
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGSYS:
            return {**base, "status": "violation",
                    "detail": "made a system call the sandbox forbids (starting a process or program, a network "
                              "socket, ptrace, mount, namespaces, keyctl, bpf, perf_event_open…); the sandbox "
                              "killed it"}
        if sig == signal.SIGXCPU:
            return {**base, "status": "timeout", "detail": f"used more than {call_limit:g} s of CPU; stopped"}
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return {**base, "status": "crashed", "detail": f"the interpreter died (signal {name})"}
    code = os.WEXITSTATUS(status)
    if code == LOAD_FAILED and not answer:
        return {**base, "status": "isolation_failed", "detail": "the listing seccomp filter could not be loaded"}
    record = parse_answer(answer)
    if record is None:
        if answer:
            return {**base, "status": "violation",
                    "detail": "wrote to the runner's answer pipe itself (forged or malformed protocol data)"}
        return {**base, "status": "crashed", "detail": f"the interpreter exited (code {code}) without an answer"}
    return {**base, **record}


def main():
    result_fd, request_fd = int(sys.argv[1]), int(sys.argv[2])
    close_all_but(result_fd, request_fd)  # bwrap's seccomp and info descriptors, anything else inherited
    request = json.loads(read_all(request_fd).decode())
    os.close(request_fd)
    memory = request["memory_mb"] * 2**20
    for limit, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, 2**20),
                         (resource.RLIMIT_NOFILE, 64), (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, 64)):
        resource.setrlimit(limit, (value, value))
    bpf = bytes.fromhex(request["filter"])
    buffer = ctypes.create_string_buffer(bpf, len(bpf))
    prog = SockFprog(len(bpf) // 8, ctypes.addressof(buffer))
    write_all(result_fd, frame({"ready": True}))
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
        record = outcome(index, *collect(pid, answer_r, output_r, deadline), request["call_limit"])
        write_all(result_fd, frame(record))
        if record["status"] in ("load_error", "isolation_failed"):
            break
        hangs += record["status"] == "timeout"
        if hangs >= request["max_hangs"]:
            break
    write_all(result_fd, frame({"done": True}))


main()
