# The trusted runner inside the listing sandbox. Standard library only (but the packages of the audit's environment
# it imports ahead for the calls, PRELOADABLE); never imports chapter-audit.
#
# Started by bubblewrap as the sandbox's PID 1 (`--as-pid-1`: no other process of the sandbox holds a
# descriptor of the audit's) with `python -I -S -B /sandbox/runner.py RESULT_FD REQUEST_FD`. It reads the
# request from REQUEST_FD (one JSON object: code, function, calls, limits, the listing seccomp filter as BPF
# in hex, the audit's read-only package folders, the packages to import ahead), then for each call forks a child that closes every descriptor but two fresh pipes (its output, as
# stdout and stderr, and its answer), stacks the listing filter, loads the listing and calls the function as an
# ordinary caller would (another call's input, then this call's twice: ``child``). Listing code never runs in this
# process.
#
# Who can reach RESULT_FD: the runner alone. A call's process closes it before listing code is loaded and
# cannot take it back: the seccomp filters kill pidfd_open, pidfd_getfd, ptrace, process_vm_readv/writev and
# kcmp; this process is not dumpable (so the kernel's ptrace access check refuses any such request from a
# process without CAP_SYS_PTRACE, which nothing in the sandbox has); there is no /proc; and as its PID
# namespace's init with no signal handler, no signal from inside the sandbox reaches it. What a call's
# process can write is its own answer pipe, read here for that one call only: a byte the child writes once
# the listing filter is loaded (before listing code runs), then the call's token (16 random bytes this process
# drew for that call alone; listing code holds it only by reading the process's memory through frames or the
# garbage collector, which no certified listing can do: what listing code writes on the pipe is a forged
# answer, never a result), then one binary answer (a status byte, an IEEE double or length-prefixed UTF-8 texts;
# no nesting, no JSON), checked field by field. The answer is made by functions taken before listing code runs
# (``answerer``: patching ``struct``, the built-ins or this module afterwards reaches none of them), from exact
# numbers only (a subclass's methods are listing code). The statuses of the sandbox's own (timeout, crashed,
# violation, filter not loaded) are decided here from how the process ended and that first byte, never read
# from what listing code wrote. Records to RESULT_FD are length-prefixed flat JSON objects: {"kind": "ready"},
# one {"kind": "call", ...} per call, {"kind": "done"}; they carry codes and numbers for the sandbox's own
# statuses and the listing's texts as plain strings, and the audit checks them again.
import builtins
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
TOKEN = 16             # bytes of the runner's secret that opens a call's answer (listing code never writes it)
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
           4: ("load_error", ("type", "message")), 5: ("values", ("repr",)), 6: ("unsteady", ())}
AGAIN_SHARE = 4        # a call is run again (three runs) when the call before it took less than 1/AGAIN_SHARE of its limit
LONG_EVERY, LONG_RUN, LONG_SHARE = 25, 60, 100  # every 25th call, the 60 before it too, when a call takes < 1/100
MAX_ENTRIES = 256      # numbers in a list or mapping a call may return as values
MAX_KEY = 64           # characters of a mapping's key kept as a value's key
CODES = {name: code for code, (name, _) in ANSWERS.items()}
MAX_READ = len(LOADED) + TOKEN + MAX_ANSWER  # bytes read from an answer pipe before it counts as flooding
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
    if isinstance(value, dict) and "__tuple__" in value:
        return tuple(decode(v) for v in value["__tuple__"])
    if isinstance(value, dict) and "__array__" in value:   # the text passed a NumPy array
        items = [decode(v) for v in value["__array__"]]
        try:
            import numpy
        except ImportError:
            return items
        return numpy.asarray(items)
    if isinstance(value, dict) and "__map__" in value:
        return {decode(k): decode(v) for k, v in value["__map__"]}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def trim(text):
    text = str(text)
    return text if len(text) <= TRIM else text[:TRIM] + "…"


def answerer(numpy=None):
    """The functions a call's process uses, once listing code has run, to turn what the function returned (or
    raised) into its answer, built before any listing code runs. Everything they use is captured here, in their
    closure: patching ``struct``, ``builtins`` or this module afterwards reaches none of it.

    Only exact built-in numbers are numbers: ``int`` (not ``bool``) and ``float``; with ``numpy`` (the module,
    loaded before the listing), NumPy's own integer and floating scalar types and a NumPy array of them with no
    dimension. A subclass (of ``float``, of ``np.float64``) is not a number, and no method of the listing's runs
    to read one: its ``__float__`` is never called. A list or tuple of such numbers, a one-dimensional NumPy array
    of them and a mapping of text or integer keys to them are ``values``. Returns (answer for a call, answer for
    a listing that did not load)."""
    pack_double, pack_size = struct.Struct(">d").pack, struct.Struct(">H").pack
    type_, float_, int_, str_, bytes_, len_, list_, repr_ = type, float, int, str, bytes, len, list, repr
    issubclass_, base_exception, join, encode = issubclass, BaseException, b"".join, str.encode
    dict_items, int_repr = dict.items, int.__repr__
    any_, tuple_, dict_ = any, tuple, dict
    codes, max_entries, max_key, max_answer, trim_ = dict(CODES), MAX_ENTRIES, MAX_KEY, MAX_ANSWER, TRIM
    # (type, how it is read) pairs, compared by identity only: a listing's metaclass can make its class equal to
    # float and hash like it, so no lookup here goes through == or a hash
    exact_numbers = [(int, int), (float, float)]
    ndarray = None
    if numpy is not None:
        try:
            exact_numbers += [(numpy.dtype(code).type, int) for code in numpy.typecodes["AllInteger"]]
            exact_numbers += [(numpy.dtype(code).type, float) for code in numpy.typecodes["Float"]]
            ndarray = numpy.ndarray
        except base_exception:
            exact_numbers, ndarray = [(int, int), (float, float)], None

    def read_as(kind):
        for known, how in exact_numbers:
            if kind is known:
                return how
        return None

    def array(value, ndim):
        """Whether ``value`` is exactly a NumPy array of integers or floats with ``ndim`` dimensions."""
        return ndarray is not None and type_(value) is ndarray and value.ndim == ndim and value.dtype.kind in "iuf"

    def text_bytes(text):
        try:
            text = text if type_(text) is str_ else str_(text)
            if len_(text) > trim_:
                text = text[:trim_] + "…"
            data = encode(text, "utf-8", "backslashreplace")
        except base_exception:
            data = b"(text that could not be shown)"
        return pack_size(len_(data)) + data

    def describe(exc):
        try:
            message = str_(exc)
        except base_exception:
            message = "(its message could not be rendered)"
        try:
            name = type_(exc).__name__
        except base_exception:
            name = "exception"
        return text_bytes(name) + text_bytes(message)

    def number(value):
        """``value`` as a float if it is exactly a number (see above), else None."""
        kind = read_as(type_(value))
        if kind is None and array(value, 0):
            value = value.item()
            kind = read_as(type_(value))
        if kind is None:
            return None
        return float_(int_(value)) if kind is int else float_(value)

    def entries(value):
        """A returned list or tuple of numbers, a one-dimensional array of them, a mapping of text or integer keys
        to numbers, or a list or tuple of (key, number) pairs (a mapping as a text prints one), as the binary
        block of a ``values`` answer: a shape byte (0 a sequence, 1 a mapping), a count, then each entry (a
        mapping's key as a length-prefixed text) and its IEEE double; None otherwise."""
        kind = type_(value)
        if kind is list_ or kind is tuple_ or (array(value, 1) and value.size <= max_entries):
            items = list_(value)
            if len_(items) > max_entries:
                return None
            numbers = [number(v) for v in items]
            if None not in numbers:
                return bytes_([0]) + pack_size(len_(numbers)) + join(pack_double(v) for v in numbers)
            if not items or any_(type_(v) is not list_ and type_(v) is not tuple_ or len_(v) != 2 for v in items):
                return None
            pairs = [(v[0], v[1]) for v in items]  # (key, number) pairs: [[1, 0.5], [2, 0.25]] is {1: 0.5, 2: 0.25}
        elif kind is dict_:
            pairs = list_(dict_items(value))
        else:
            return None
        if len_(pairs) > max_entries or any_(type_(k) is not str_ and type_(k) is not int_ for k, _ in pairs):
            return None
        out = [bytes_([1]), pack_size(len_(pairs))]
        for k, v in pairs:
            v = number(v)
            if v is None:
                return None
            key = encode(k if type_(k) is str_ else int_repr(k), "utf-8", "backslashreplace")[:max_key]
            out += [pack_size(len_(key)), key, pack_double(v)]
        return join(out)

    def shown(value):
        """The repr of a value that is not read as numbers (the listing's words); a subclass of a number says so."""
        try:
            text = repr_(value)
        except base_exception:
            text = "a value that cannot be shown"
        try:
            kind = type_(value)
            for base in (float_, int_):
                if kind is not base and issubclass_(kind, base) and read_as(kind) is None:
                    text = f"{text} (an instance of a subclass of {base.__name__}, not a {base.__name__})"
                    break
        except base_exception:
            pass
        return text

    def call(function, args):
        """Call the listing's function; its answer, as bytes."""
        try:
            value = function(*args)
        except base_exception as exc:
            return bytes_([codes["raises"]]) + describe(exc)
        try:
            got = number(value)
            if got is not None:
                return bytes_([codes["ok"]]) + pack_double(got)
        except base_exception:
            pass
        text = shown(value)
        try:
            block = entries(value)
        except base_exception:
            block = None
        if block is not None:
            answer = bytes_([codes["values"]]) + text_bytes(text) + block
            if len_(answer) <= max_answer:
                return answer
        return bytes_([codes["returns"]]) + text_bytes(text)

    def load_error(exc):
        return bytes_([codes["load_error"]]) + describe(exc)

    return call, load_error


def close_all_but(*keep):
    """Close every descriptor above 2 except ``keep`` (whatever its number: inherited ones may lie above
    the RLIMIT_NOFILE this runner sets)."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 2**20)


def plain(value):
    """A call's argument as plain data, to tell whether a call changed it: containers by their items (a set's and a
    mapping's in a fixed order), a NumPy array by its list; None for anything else of the listing's making."""
    kind = type(value)
    if kind in (str, int, float, bool, type(None)):
        return (kind.__name__, value)
    if kind in (list, tuple):
        return (kind.__name__, [plain(v) for v in value])
    if kind in (set, frozenset):
        return ("set", sorted((repr(plain(v)) for v in value)))
    if kind is dict:
        return ("dict", sorted((repr(plain(k)), repr(plain(v))) for k, v in value.items()))
    if hasattr(value, "tolist") and type(value).__module__ == "numpy":
        return ("array", plain(value.tolist()))
    return None


def shared(call, args, other):
    """``other``'s arguments decoded, each the very object of ``args`` (``call`` decoded) where ``other`` passes the
    same value at that place: a caller computing R@1 and R@3 of one ranking passes one list."""
    if type(call) is not list or type(other) is not list:
        return decode(other)
    return [args[i] if i < len(call) and call[i] == o else decode(o) for i, o in enumerate(other)]


def child(request, call, answer_w, output_w, prog, token, others=()):
    """In the forked child: never returns. Its answer is ``token`` (the runner's secret for this call) followed by
    what ``answerer``'s functions make of the call, written with functions taken before listing code runs.

    As an ordinary caller uses a function (one process, many calls, the same objects passed again): the call is made
    first (its answer is the one reported), then, with ``others`` ((call, that call's own first answer or None)
    pairs of the request), each of those calls, passing this call's very objects where it passes the same value,
    then this call again on its own objects. The answer is ``unsteady`` when a later answer differs from that call's
    own first one, or the call changed its arguments: what the function returns depends on earlier calls (a memo,
    a counter) or on what it changed in what it was given."""
    runs = 2 + len(others) if others else 1
    try:
        os.dup2(output_w, 1)
        os.dup2(output_w, 2)
        close_all_but(answer_w)  # the result channel, the request, the runner's other pipes
        os.setpgid(0, 0)
        cpu = max(1, int(request["call_limit"] * min(runs, 3) + 0.999))
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
    write, exit_, flush_all, base_exception = os.write, os._exit, (sys.stdout, sys.stderr), BaseException
    numpy = None
    if request.get("numeric"):
        try:  # NumPy's own types, taken before the listing runs (it would load NumPy itself next)
            import numpy
        except BaseException:
            numpy = None
    try:
        answer_of, load_error = answerer(numpy)
        code, name = request["code"], request["function"]
        args, pristine = decode(call), plain(decode(call))
        # each other call's arguments, sharing this call's objects where it passes the same values
        later = [(shared(call, args, other), expected) for other, expected in others]
        unsteady, plain_, bytes_type = bytes([CODES["unsteady"]]), plain, bytes
        # the listing's own copy of the built-ins: what it rebinds there is its own
        namespace = {"__name__": "listing", "__builtins__": dict(builtins.__dict__)}
    except BaseException:
        exit_(LOAD_FAILED)
    # From here on, listing code runs in this process.
    try:
        try:
            exec(compile(code, "<listing>", "exec"), namespace)
            function = namespace[name]
        except base_exception as exc:
            answer = load_error(exc)
        else:
            answer = answer_of(function, args)
            if later:
                steady = True
                for other_args, expected in later:
                    got = answer_of(function, other_args)
                    if type(expected) is bytes_type and got != expected:
                        steady = False
                if answer_of(function, args) != answer:
                    steady = False
                try:
                    if plain_(args) != pristine:
                        steady = False
                except base_exception:
                    steady = False
                if not steady:
                    answer = unsteady
        for stream in flush_all:
            try:
                stream.flush()
            except base_exception:
                pass
        data = token + answer
        while data:
            data = data[write(answer_w, data):]
    finally:
        exit_(0)


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
                if len(answer) > MAX_READ:
                    open_fds.clear()  # flooding its answer pipe: the answer is void, the process stopped now
            elif len(output) < MAX_OUTPUT:
                output += chunk
    flooded = len(answer) > MAX_READ
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


def outcome(index, answer, output, status, timed_out, token):
    """The record for one call, from how its child ended and what it answered (after the byte written before
    listing code ran, the call's ``token``, then one answer: anything else was written by listing code)."""
    shown = trim(output.decode("utf-8", "replace").strip()) if output else ""
    base = {"kind": "call", "i": index, "output": shown}
    if len(answer) > MAX_READ:
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
    record = parse_answer(answer[len(token):]) if answer.startswith(token) else None
    if record is None:
        if answer:
            return {**base, "status": "violation", "cause": "answer"}
        return {**base, "status": "crashed", "signal": 0, "exit": code}
    if record["status"] == "unsteady":
        return {**base, "status": "violation", "cause": "unsteady"}
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
    hangs, calls, took, firsts = 0, request["calls"], 0.0, {}
    for index, call in enumerate(calls):
        answer_r, answer_w = os.pipe()
        output_r, output_w = os.pipe()
        token = os.urandom(TOKEN)
        # after the call, the call before it (and, every LONG_EVERY calls, the LONG_RUN before it), then the call
        # again: unless the call before took a quarter of the limit or more (a listing slowing every call to escape
        # them runs out of the whole run's time instead). The first call of a request is made once.
        others = []
        if request.get("repeat") is True and index and took < request["call_limit"] / AGAIN_SHARE:
            picks = [index - 1]
            if index % LONG_EVERY == 0 and took < request["call_limit"] / LONG_SHARE:
                picks = list(range(max(0, index - LONG_RUN), index))
            # only calls that answered in their own process: one that hung or crashed there is its own finding
            others = [(calls[j], firsts[j]) for j in picks if j in firsts]
        runs = 2 + len(others) if others else 1
        started = time.monotonic()
        deadline = started + request["call_limit"] * min(runs, 3)
        pid = os.fork()
        if pid == 0:
            os.close(answer_r)
            os.close(output_r)
            os.close(result_fd)
            child(request, call, answer_w, output_w, prog, token, others)
        os.close(answer_w)
        os.close(output_w)
        answer, output, status, timed_out = collect(pid, answer_r, output_r, deadline)
        record = outcome(index, answer, output, status, timed_out, token)
        if record["status"] in ("ok", "values", "returns", "raises"):
            firsts[index] = answer[len(LOADED) + len(token):]  # the call's own answer, first in its process
        took = (time.monotonic() - started) / runs
        write_all(result_fd, frame(record))
        if record["status"] in ("load_error", "isolation_failed"):
            break
        hangs += record["status"] == "timeout"
        if hangs >= request["max_hangs"]:
            break
    write_all(result_fd, frame({"kind": "done"}))


if __name__ == "__main__":
    main()
