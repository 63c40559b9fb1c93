"""Run a chapter's code listing in isolation: a separate process, a time limit, a memory limit,
a scratch folder, no network, the standard library only.

The listing never runs in chapter-audit's own process. Isolation, layer by layer: the child is
started with ``python -I -S`` (no site-packages, no user paths, no environment hooks); in a
new network namespace when ``unshare`` allows it (no network at all), with an audit hook that
refuses sockets, subprocesses and writes outside its scratch folder either way; under
``RLIMIT_AS`` (memory), ``RLIMIT_CPU`` and ``RLIMIT_FSIZE``; and killed with its process group
at the wall-clock limit.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

RUNNER = Path(__file__).with_name("runner.py")


@dataclass
class CallResult:
    """One call of the listing: ``status`` ok / raises / returns (a non-number) / timeout / crashed / not run."""

    status: str
    value: float | None = None
    detail: str = ""


@dataclass
class RunReport:
    results: list[CallResult]
    violations: list[str] = field(default_factory=list)
    load_error: str = ""
    isolation: str = ""


def _encode(value):
    if isinstance(value, (set, frozenset)):
        return {"__set__": [_encode(v) for v in sorted(value, key=repr)]}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    return value


@lru_cache(maxsize=1)
def _netns_prefix() -> tuple[str, ...]:
    """``unshare -rn`` when it works here (a private network namespace, so no network at all)."""
    tool = shutil.which("unshare")
    if tool is None:
        return ()
    try:
        ok = subprocess.run([tool, "-rn", "true"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return (tool, "-rn") if ok else ()


def isolation_summary(time_limit: float, memory_mb: int) -> str:
    net = "a private network namespace (no network)" if _netns_prefix() else "sockets refused by an audit hook"
    return (f"a separate `python -I -S` process (standard library only) in a scratch folder; {net}; writes outside "
            f"the folder, subprocesses and sockets refused; {time_limit:g} s wall-clock and {memory_mb} MB memory "
            "per run")


def _limits(memory_mb: int, cpu_seconds: int):
    def apply() -> None:
        import resource
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (2**20, 2**20))
    return apply


def run_listing(code: str, function: str, calls: list[list], *, time_limit: float = 5.0,
                memory_mb: int = 256, max_hangs: int = 3) -> RunReport:
    """Call ``function`` from ``code`` on each argument list in ``calls``, in isolation.

    A call that hangs is reported as ``timeout`` and the process restarted after it; after
    ``max_hangs`` hangs the remaining calls are ``not run``. A process that dies (a crash, the
    memory limit) marks the call it was in as ``crashed``.
    """
    results: list[CallResult | None] = [None] * len(calls)
    report = RunReport(results=[], isolation=isolation_summary(time_limit, memory_mb))
    payload = [_encode(c) for c in calls]
    start, hangs = 0, 0
    while start < len(calls):
        with tempfile.TemporaryDirectory(prefix="chapter-audit-listing-") as scratch:
            request = json.dumps({"code": code, "function": function, "calls": payload, "start": start})
            command = [*_netns_prefix(), sys.executable, "-I", "-S", str(RUNNER)]
            proc = subprocess.Popen(command, cwd=scratch, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env={"PATH": os.defpath},
                                    preexec_fn=_limits(memory_mb, int(time_limit) + 1))
            timed_out = False
            try:
                out, err = proc.communicate(request, timeout=time_limit)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
        current = None
        for line in out.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "violation" in record:
                report.violations.append(record["violation"])
            elif "load_error" in record:
                report.load_error = record["load_error"]
            elif "started" in record:
                current = record["started"]
            elif "i" in record:
                i = record["i"]
                if "ok" in record:
                    results[i] = CallResult("ok", float(record["ok"]))
                elif "raises" in record:
                    results[i] = CallResult("raises", detail=f"{record['raises']}: {record['message']}")
                else:
                    results[i] = CallResult("returns", detail=record["returns"])
                current = None
        if report.load_error:
            break
        if current is None:
            if proc.returncode not in (0, None) and not timed_out:
                report.load_error = f"the listing's process exited with code {proc.returncode}: {err.strip()[-200:]}"
            break
        if timed_out:
            results[current] = CallResult("timeout", detail=f"still running after {time_limit:g} s; stopped")
            hangs += 1
        else:
            sig = -proc.returncode if proc.returncode and proc.returncode < 0 else None
            how = f"signal {signal.Signals(sig).name}" if sig else f"exit code {proc.returncode}"
            results[current] = CallResult("crashed", detail=f"the interpreter died ({how}) {err.strip()[-160:]}".strip())
        start = current + 1
        if hangs >= max_hangs:
            break
    report.results = [r or CallResult("not run", detail=report.load_error or "stopped after repeated hangs")
                      for r in results]
    return report
