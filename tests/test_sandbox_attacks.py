"""Hostile code listings against the sandbox: each attack must leave the host unchanged, leave no process
behind, and give a verdict that says the listing misbehaved (not the clean listing's verdict).

Every attack is a correct recall@k whose body starts with the attack, audited as a code claim with the
chapter's own definitions (no references: they play no part in isolation). Host state watched: a canary
folder the test owns, the interpreter's ``os.py`` and the sandbox runner (both mounted read-only inside),
the processes whose command line names the sandbox runner, bwrap or the test's marker.
"""

from __future__ import annotations

import hashlib
import os
import platform
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

import audit.evaluation.checks.code as code_check
from audit.evaluation.checks.common import Measurements
from audit.evaluation.sandbox import run_listing, unavailable_reason
from audit.evaluation.sandbox.bwrap import RUNNER, RUNNER_INSIDE, bwrap_binary
from audit.register.claims import load_chapter
from audit.run.audit import audit_claim

ROOT = Path(__file__).resolve().parents[1]
MARKER = f"chapter-audit-attack-{uuid.uuid4().hex}"
CLEAN_BODY = """\
ranking = [str(d) for d in ranking]
relevant = {str(d) for d in relevant}
if not relevant or k <= 0:
    return 0.0
return len(set(ranking[:k]) & relevant) / len(relevant)
"""

pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")


# --- the host state an attack must not change ----------------------------------------------------------

@pytest.fixture
def canary(tmp_path):
    """A folder with a file and a subfolder; yields the folder and asserts afterwards that it is unchanged,
    that the host files mounted into the sandbox are unchanged and that no sandbox process is left."""
    folder = tmp_path / "canary"
    (folder / "sub").mkdir(parents=True)
    (folder / "canary.txt").write_text("intact\n", encoding="utf-8")
    watched = [Path(os.__file__), RUNNER]
    before = _snapshot(folder), [_digest(p) for p in watched]
    yield folder
    assert (_snapshot(folder), [_digest(p) for p in watched]) == before, "the listing changed a host file"
    assert _survivors() == [], "a sandbox process outlived the run"


def _snapshot(folder: Path) -> list:
    return sorted((str(p.relative_to(folder)), p.is_dir(), p.stat().st_mtime_ns,
                   None if p.is_dir() else p.read_bytes()) for p in folder.rglob("*"))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def _parent(pid: str) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
    except (OSError, IndexError):
        return None


def _ours(pid: str, bwrap: str) -> bool:
    """Whether the process descends from this test process, or from a sandbox process left to init (its
    parent ended): a sandbox another test process runs at the same time (pytest -n) is not this test's."""
    me, seen = str(os.getpid()), 0
    while pid not in (None, "0") and seen < 64:
        parent = _parent(pid)
        if parent == me:
            return True
        if parent == "1":
            line = _cmdline(pid)
            return line.split(" ")[0] == bwrap or MARKER in line
        pid, seen = parent, seen + 1
    return False


def _survivors() -> list[str]:
    """Processes started from this installation's bwrap (the sandbox's outer process and its init: while
    neither lives, the kernel has ended every process of the sandbox's PID namespace), or carrying the marker,
    that descend from this test process or were left to init."""
    bwrap = bwrap_binary()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        line = _cmdline(pid)
        if pid != str(os.getpid()) and (line.split(" ")[0] == bwrap or MARKER in line) and _ours(pid, bwrap):
            found.append(f"{pid}: {line[:120]}")
    return found


# --- auditing a listing ----------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def small_claims(monkeypatch):
    """20 generated inputs (not 300) and short limits keep each audited attack near one second."""
    monkeypatch.setattr(code_check, "SAMPLE", 20)
    monkeypatch.setattr(code_check, "CALL_LIMIT", 1.0)
    monkeypatch.setattr(code_check, "CLAIM_BUDGET", 5.0)


def listing(attack: str, imports: str = "") -> str:
    body = textwrap.indent(textwrap.dedent(attack).strip("\n") + "\n" + CLEAN_BODY, "    ")
    return f"{imports}\ndef recall_at_k(ranking, relevant, k):\n{body}"


def audit_listing(tmp_path: Path, source: str):
    folder = tmp_path / "chapter"
    folder.mkdir(exist_ok=True)
    (folder / "snapshot.txt").write_text("The listing:\n\n" + source, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: attacks\ntitle: Attacks\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(
        "claims:\n  - id: A1\n    title: recall\n    kind: code\n    quote: \"def recall_at_k(ranking, relevant, k):\"\n"
        "    claim: computes recall\n    function: recall_at_k\n    measure: R@k\n"
        "    arguments: {ranking: ranking, relevant: relevant set, k: cutoff}\n", encoding="utf-8")
    chapter = load_chapter(folder)
    return audit_claim(chapter.register.claims[0], chapter, Measurements([]))


@pytest.fixture(scope="module")
def clean_verdict(tmp_path_factory):
    """The clean listing's result. It is qualified, not supported, because it counts a repeated ID once where the
    book's rule (chapter 23) rejects such a ranking; every attack must end differently and say why."""
    return audit_listing(tmp_path_factory.mktemp("clean"), listing(""))


def test_the_clean_listing_is_qualified_only_for_repeated_ids(clean_verdict):
    assert clean_verdict.verdict == "qualified"
    assert "repeated ID" in clean_verdict.reason and "sandbox" not in clean_verdict.reason


def assert_misbehaved(result, clean, *expected: str) -> None:
    assert result.verdict != clean.verdict, result.reason
    assert result.verdict in ("contradicted", "error"), result.reason
    assert any(text.lower() in result.reason.lower() for text in expected), result.reason


STOPPED = "the sandbox stopped the listing"


# --- process creation: ctypes, _ctypes, _posixsubprocess, daemons, setsid, fork bombs --------------------

ATTACKS = {
    "ctypes libc system()": ("""
        import ctypes
        ctypes.CDLL("libc.so.6").system(b"touch {canary}/pwned-by-system")
        """, STOPPED),
    "_ctypes libc system() without importing ctypes": ("""
        import _ctypes
        class Int(_ctypes._SimpleCData):
            _type_ = "i"
        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL
            _restype_ = Int
        class Library:
            _handle = _ctypes.dlopen("libc.so.6", 2)
        Function(("system", Library()))(b"touch {canary}/pwned-by-_ctypes")
        """, STOPPED),
    "_posixsubprocess.fork_exec": ("""
        import _posixsubprocess, os, sys
        exe = sys.executable.encode()
        _posixsubprocess.fork_exec([exe, b"-c", b"open('{canary}/pwned-by-fork_exec', 'w')", b"{marker}"], [exe],
                                   True, (), None, None, -1, -1, -1, -1, -1, -1, *os.pipe(), False, False, -1,
                                   None, None, None, -1, None, False)
        """, STOPPED),
    "os.system": ("""
        import os
        os.system("touch {canary}/pwned-by-os-system")
        """, STOPPED),
    "a daemon (double fork, setsid)": ("""
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(60)
            os._exit(0)
        """, STOPPED),
    "a fork bomb": ("""
        import os
        while True:
            os.fork()
        """, STOPPED),
    "exec of the interpreter": ("""
        import os, sys
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)", "{marker}"])
        """, STOPPED),
    "killing the sandbox's processes": ("""
        import os, signal
        os.kill(-1, signal.SIGKILL)
        """, STOPPED),
}

# --- sockets of every family ------------------------------------------------------------------------------

for family, kind in (("AF_INET", "SOCK_DGRAM"), ("AF_INET", "SOCK_STREAM"), ("AF_INET6", "SOCK_DGRAM"),
                     ("AF_NETLINK", "SOCK_RAW"), ("AF_PACKET", "SOCK_RAW")):
    ATTACKS[f"a socket {family}/{kind}"] = (f"""
        import socket
        socket.socket(socket.{family}, socket.{kind})
        """, STOPPED)

# --- system calls the sandbox filter refuses (x86_64 numbers) -----------------------------------------------

X86_64 = {"ptrace": 101, "mount": 165, "unshare": 272, "setns": 308, "keyctl": 250, "bpf": 321,
          "perf_event_open": 298}
for name, number in X86_64.items():
    ATTACKS[f"syscall {name}"] = (f"""
        import ctypes
        ctypes.CDLL(None).syscall({number}, 0, 0, 0, 0, 0)
        """, STOPPED)

# --- the filesystem: writes, deletes, truncation, reads ---------------------------------------------------

ATTACKS.update({
    "os.chdir then write": ("""
        import os
        os.chdir("{canary}")
        open("canary.txt", "w").write("owned")
        """, "FileNotFoundError"),
    "os.chdir to / then write": ("""
        import os
        os.chdir("/")
        open("pwned", "w").write("owned")
        """, "Read-only file system"),
    "dir_fd delete": ("""
        import os
        os.unlink("canary.txt", dir_fd=os.open("{canary}", os.O_RDONLY))
        """, "FileNotFoundError"),
    "dir_fd write into the interpreter's folder": ("""
        import os
        os.mkdir("pwned", dir_fd=os.open(os.path.dirname(os.__file__), os.O_RDONLY))
        """, "Read-only file system"),
    "O_RDONLY|O_TRUNC on a canary": ("""
        import os
        os.open("{canary}/canary.txt", os.O_RDONLY | os.O_TRUNC)
        """, "FileNotFoundError"),
    "O_RDONLY|O_TRUNC on the standard library": ("""
        import os
        os.open(os.__file__, os.O_RDONLY | os.O_TRUNC)
        """, "Read-only file system"),
    "rename of the standard library": ("""
        import os
        os.rename(os.__file__, os.__file__ + ".bak")
        """, "Read-only file system"),
    "monkey-patched os and builtins, then a write and a fork": ("""
        import builtins, os, os.path, sys
        os.path.realpath = lambda p, *a, **k: "/scratch/x"
        os.fsdecode = lambda p: "/scratch/x"
        sys.addaudithook = lambda hook: None
        builtins.PermissionError = type("Nothing", (Exception,), {{}})
        os._exit = lambda code: None
        try:
            open("{canary}/canary.txt", "w").write("owned")
        except OSError:
            os.fork()
        """, STOPPED),
    "filling the scratch": ("""
        for i in range(64):
            open(f"/scratch/fill{{i}}", "wb").write(b"x" * 2**20)
        """, "No space left on device"),
    "memory exhaustion": ("""
        hoard = []
        while True:
            hoard.append(bytearray(2**26))  # 64 MB a step: the 256 MB limit is reached at once, even on a busy machine
        """, "MemoryError"),
})


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_is_contained_and_reported(name, canary, tmp_path, clean_verdict):
    attack, expected = ATTACKS[name]
    if name.startswith("syscall") and platform.machine() != "x86_64":
        pytest.skip("system call numbers are x86_64's")
    source = listing(attack.format(canary=canary, marker=MARKER))
    result = audit_listing(tmp_path, source)
    assert_misbehaved(result, clean_verdict, expected)
    assert not any(p.name.startswith("pwned") for p in canary.rglob("*"))


def test_the_ctypes_attack_is_live_outside_the_sandbox(tmp_path):
    """Control: the _ctypes attack does run a shell command when nothing confines it, so its test means
    something. (Run here in a plain interpreter, writing only inside the test's own folder.)"""
    target = tmp_path / "ran"
    attack = textwrap.dedent(ATTACKS["_ctypes libc system() without importing ctypes"][0]).replace(
        "touch {canary}/pwned-by-_ctypes", f"touch {target}")
    subprocess.run([sys.executable, "-I", "-S", "-c", attack], check=True, timeout=30)
    assert target.exists()


# --- reads of host files: nothing comes back -----------------------------------------------------------------

@pytest.mark.parametrize("path", ["/etc/passwd", "/etc/hostname", str(ROOT / "pyproject.toml"),
                                  os.path.expanduser("~/.bashrc"), "/proc/self/environ", "/proc/1/cmdline",
                                  "/sys/kernel/hostname"])
def test_host_files_cannot_be_read(path, canary, tmp_path, clean_verdict):
    source = listing(f"""
        raise ValueError(open({path!r}, "rb").read(200))
        """)
    result = audit_listing(tmp_path, source)
    assert_misbehaved(result, clean_verdict, "FileNotFoundError")
    assert "ValueError" not in result.reason
    if os.path.exists(path):
        head = Path(path).read_bytes()[:12].decode("utf-8", "replace").strip()
        assert not head or head not in result.reason


def test_the_home_folder_and_project_are_not_in_view(canary):
    source = ("import os\ndef f():\n"
              f"    return sum(os.path.exists(p) for p in ({str(ROOT)!r}, {os.path.expanduser('~/.bashrc')!r}, "
              "'/etc', '/proc', '/sys', '/home', '/tmp'))\n")
    report = run_listing(source, "f", [[]], time_limit=10)
    assert report.results[0].status == "ok" and report.results[0].value == 0.0


def test_exception_text_is_trimmed(canary):
    report = run_listing("def f():\n    raise ValueError('x' * 5000)\n", "f", [[]], time_limit=10)
    assert report.results[0].status == "raises"
    assert len(report.results[0].detail) <= 320


# --- sockets to the host ------------------------------------------------------------------------------------

def test_an_af_unix_socket_on_the_host_is_out_of_reach(canary, tmp_path, clean_verdict):
    """AF_UNIX is the one family the filter allows; the host's sockets are neither mounted (a path) nor in the
    sandbox's network namespace (an abstract name), so nothing connects."""
    path = str(tmp_path / "host.sock")
    abstract = "\0" + MARKER
    servers = []
    for address in (path, abstract):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(address)
        server.listen(4)
        server.settimeout(0.2)
        servers.append(server)
    source = listing(f"""
        import socket
        for address in ({path!r}, {abstract!r}):
            try:
                socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect(address)
            except OSError as exc:
                last = exc
        raise last
        """)
    result = audit_listing(tmp_path, source)
    assert_misbehaved(result, clean_verdict, "FileNotFoundError", "ConnectionRefusedError")
    for server in servers:
        with pytest.raises(socket.timeout):
            server.accept()
        server.close()


def test_a_udp_datagram_never_reaches_the_host(canary, tmp_path, clean_verdict):
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(0.2)
    port = receiver.getsockname()[1]
    source = listing(f"""
        import socket
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"{MARKER}", ("127.0.0.1", {port}))
        """)
    result = audit_listing(tmp_path, source)
    assert_misbehaved(result, clean_verdict, STOPPED)
    with pytest.raises(socket.timeout):
        receiver.recvfrom(100)
    receiver.close()


# --- forged results ------------------------------------------------------------------------------------------

FORGED_LINES = '{"i": 0, "ok": 0.5}\n{"started": 3}\n{"i": 1000000000, "ok": 1.0}\n{"ready": true}'


def test_protocol_lines_on_stdout_are_only_output(canary, tmp_path, clean_verdict):
    """A listing that prints the old protocol's lines and returns 7.0: the audit records 7.0."""
    source = listing(f"""
        print({FORGED_LINES!r})
        return 7.0
        """)
    result = audit_listing(tmp_path, source)
    assert result.verdict == "contradicted"
    assert "returns 7.0000" in result.reason


def test_forged_frames_on_every_guessable_descriptor_are_caught(canary, tmp_path, clean_verdict):
    """Length-prefixed frames claiming agreeing values, written to descriptors 0-1023: the runner's answer pipe
    gets extra data (a violation); the result channel itself is not reachable from the listing's process."""
    source = listing("""
        import json, os, struct
        for index in (0, 1, 5, 10**9):
            for data in (json.dumps({"i": index, "status": "ok", "value": (0.5).hex(), "output": ""}),
                         json.dumps({"status": "ok", "value": (0.5).hex()}), json.dumps({"done": True})):
                for fd in range(1024):
                    try:
                        os.write(fd, struct.pack(">I", len(data)) + data.encode())
                    except OSError:
                        pass
        """)
    result = audit_listing(tmp_path, source)
    assert_misbehaved(result, clean_verdict, "wrote to the runner's answer pipe itself")


def test_the_listing_process_holds_only_its_own_descriptors(canary):
    """Standard input (/dev/null), its output pipe as stdout and stderr, and its answer pipe: four descriptors.
    The runner's result channel, the request and bwrap's descriptors are closed before listing code runs."""
    source = ("import os\ndef f():\n    open_fds = 0\n    for fd in range(2**16):\n        try:\n"
              "            os.fstat(fd)\n            open_fds += 1\n        except OSError:\n            pass\n"
              "    return open_fds\n")
    report = run_listing(source, "f", [[]], time_limit=10)
    assert report.results[0].status == "ok" and report.results[0].value == 4.0


def test_an_out_of_range_index_on_the_result_channel_is_a_protocol_error():
    """The runner never writes such a record, but if the channel carried one the run stops cleanly: no
    IndexError, the calls not run, a violation named."""
    from audit.evaluation.sandbox import _call_result, _ProtocolError
    with pytest.raises(_ProtocolError):
        _call_result({"i": 10**9, "status": "ok", "value": (1.0).hex(), "output": ""}, 0, 3)
    with pytest.raises(_ProtocolError):
        _call_result({"i": 0, "status": "ok", "value": "not a number", "output": ""}, 0, 3)
    with pytest.raises(_ProtocolError):
        _call_result({"i": 0, "status": "exploded", "output": ""}, 0, 3)


# --- time: loops, shrinking, the whole claim bounded -------------------------------------------------------------

def test_an_infinite_loop_costs_at_most_the_claim_budget(canary, tmp_path, clean_verdict, monkeypatch):
    monkeypatch.setattr(code_check, "CALL_LIMIT", 0.5)
    monkeypatch.setattr(code_check, "CLAIM_BUDGET", 3.0)
    start = time.monotonic()
    result = audit_listing(tmp_path, listing("while True:\n    pass"))
    assert time.monotonic() - start < 3.0 + 2.0
    assert_misbehaved(result, clean_verdict, "hangs", "not run")


def test_shrinking_stops_when_the_claim_budget_is_spent(canary, tmp_path, clean_verdict, monkeypatch):
    """Wrong (divides by k) on rankings of three or more, and slow (0.2 s a call) on generated IDs: the 20
    generated inputs take 4 s of the 5 s budget, so Hypothesis cannot finish shrinking; it must stop at the
    budget with the smallest failing input found so far."""
    monkeypatch.setattr(code_check, "CALL_LIMIT", 1.0)
    monkeypatch.setattr(code_check, "CLAIM_BUDGET", 5.0)
    source = listing("""
        import time
        if all(str(d).startswith("d") for d in ranking):
            time.sleep(0.2)
        if len(ranking) >= 3 and k > 0:
            return len(set(map(str, ranking[:k])) & set(map(str, relevant))) / k
        """)
    start = time.monotonic()
    result = audit_listing(tmp_path, source)
    assert time.monotonic() - start < 5.0 + 2.0
    assert result.verdict == "contradicted", result.reason
    assert "the smallest found before the listing's 5 s time limit ran out" in result.reason


def test_a_listing_that_hangs_while_shrinking_stays_within_the_budget(canary, tmp_path, clean_verdict,
                                                                      monkeypatch):
    """Wrong on rankings of three or more; loops forever on a ranking of two generated IDs — a length none of
    the 20 generated inputs has (0, 1, 3, 4, 5, 7, 9, 10, 12), but one Hypothesis tries while shrinking a
    longer ranking. Each such try costs the call limit; the claim as a whole costs at most its budget."""
    monkeypatch.setattr(code_check, "CALL_LIMIT", 0.5)
    monkeypatch.setattr(code_check, "CLAIM_BUDGET", 4.0)
    source = listing("""
        if len(ranking) == 2 and all(str(d).startswith("d") for d in ranking):
            while True:
                pass
        if len(ranking) >= 3 and k > 0:
            return len(set(map(str, ranking[:k])) & set(map(str, relevant))) / k
        """)
    start = time.monotonic()
    result = audit_listing(tmp_path, source)
    assert time.monotonic() - start < 4.0 + 2.0
    assert result.verdict == "contradicted", result.reason
    assert "wrong on ordinary input" in result.reason.lower()
    assert "hangs" in result.reason or "time limit ran out" in result.reason, result.reason


# --- the audit killed: nothing survives ---------------------------------------------------------------------------

HARNESS = """
import signal, sys
# Ctrl-C as at a terminal: a test run started in the background inherits SIGINT ignored, and Python then
# installs no KeyboardInterrupt handler
signal.signal(signal.SIGINT, signal.default_int_handler)
from audit.evaluation.sandbox import run_listing
print("started", flush=True)
run_listing("def f():\\n    while True:\\n        pass\\n", "f", [[]] * 5, time_limit=600, call_limit=600)
"""


def _descendants(root: int) -> dict[int, str]:
    children: dict[int, list[int]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(pid))
    found, todo = {}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = _cmdline(str(child))
            todo.append(child)
    return found


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_killing_the_audit_kills_the_sandbox(how, canary):
    harness = subprocess.Popen([sys.executable, "-c", HARNESS], stdout=subprocess.PIPE, cwd=ROOT)
    assert harness.stdout.readline().strip() == b"started"
    deadline = time.monotonic() + 20
    while not any(RUNNER_INSIDE in line.split(" ") for line in _descendants(harness.pid).values()):
        assert time.monotonic() < deadline, "the sandbox never started"
        time.sleep(0.05)
    time.sleep(0.2)  # the listing's process is running its loop
    inside = _descendants(harness.pid)
    assert len(inside) >= 3  # bwrap, the sandbox's init, the runner (and the call's process)
    harness.send_signal(how)
    harness.wait(timeout=20)
    deadline = time.monotonic() + 5
    while any(_cmdline(str(pid)) == line for pid, line in inside.items()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid, line in inside.items() if _cmdline(str(pid)) == line] == []
    assert not [p for p in Path("/tmp").glob("chapter-audit-listing-*")]


# --- isolation unavailable: listings are not run ----------------------------------------------------------------

def test_a_kernel_that_refuses_namespaces_means_not_run(tmp_path):
    """A user namespace whose max_user_namespaces is 0 is a kernel that refuses bwrap's namespaces."""
    if subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("unshare -U is not allowed here")
    target = tmp_path / "ran-unconfined"
    script = textwrap.dedent(f"""
        from audit.evaluation.sandbox import run_listing
        report = run_listing("def f():\\n    open({str(target)!r}, 'w').write('x')\\n    return 1\\n", "f", [[]])
        print(report.results[0].status, "|", report.unavailable)
        """)
    out = subprocess.run(["unshare", "-U", "-r", "sh", "-c",
                          f"echo 0 > /proc/sys/user/max_user_namespaces && exec {sys.executable} -c \"$0\"", script],
                         capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    status, reason = out.stdout.strip().split(" | ", 1)
    assert status == "not run"
    assert "namespace" in reason
    assert not target.exists()


def test_isolation_unavailable_is_an_error_verdict_and_nothing_runs(tmp_path, monkeypatch):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace, likely because the kernel "
                    "does not allow non-privileged user namespaces.' >&2\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("CHAPTER_AUDIT_BWRAP", str(fake))
    target = tmp_path / "ran-unconfined"
    result = audit_listing(tmp_path, listing(f"open({str(target)!r}, 'w').write('x')"))
    assert result.verdict == "error"
    assert "not run: isolation unavailable" in result.reason and "non-privileged user namespaces" in result.reason
    assert not target.exists()
