"""Reruns, one claim, and the property search's speed: each figure against the plain three-library script,
both measured in this run, in fresh processes, with the same warm numba cache.

    python benchmarks/bench_reruns.py [--chapter claims/retrieval-23-chapter] [--claim C14] [--repeat 3]

Prints, for the chapter:
  cold     ``audit run`` with an empty claim cache (every claim computed) / the plain script;
  revised  ``audit run`` after one number of one sentence changed (a copy of the chapter, cache warm)
           / the plain script;
  rerun    ``audit run`` with nothing changed (every claim from the cache), wall seconds;
  pytest   ``pytest --audit CHAPTER -k CLAIM`` with an empty cache / the plain script on that claim's
           fixture alone;
  property cases per second per reference in the chapter's property searches, measured inside the
           audit (``audit.evaluation.checks.counterexamples.TALLY``: cases sent to each reference / CPU seconds its
           worker spent on them, and / seconds of its calls);
  cpu      the CPU seconds of that cold audit, by process (this one and each reference's worker).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from bench_audit_run import BASELINE  # noqa: E402  (the plain script: the fixtures through the three libraries)


def timed(cmd: list[str], env: dict, cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    return time.perf_counter() - start


def median(cmd: list[str], env: dict, repeat: int, prepare=None) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        if prepare:
            prepare()
        times.append(timed(cmd, env))
    return statistics.median(times), times


def revise(snapshot: Path, original: str, quote: str, step: int = 1) -> None:
    """One sentence revised: the first number in the claim's quote raised by ``step`` (1/4 → 2/4); each
    repeat uses another step, so no repeat finds the revision already in the cache."""
    match = re.search(r"\d+", quote.split("@")[-1])
    assert match and quote in original, "the claim's quote has no number or is not in the snapshot"
    tail = quote.split("@")[-1]
    head = quote[:len(quote) - len(tail)]
    changed = head + tail[:match.start()] + str(int(match.group()) + step) + tail[match.end():]
    snapshot.write_text(original.replace(quote, changed, 1), encoding="utf-8")


def one_claim_register(register: Path, claim_id: str, out: Path) -> None:
    data = yaml.safe_load(register.read_text(encoding="utf-8"))
    data["claims"] = [c for c in data["claims"] if c["id"] == claim_id]
    assert data["claims"], f"no claim {claim_id} in {register}"
    out.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


def child_cpu(cmd: list[str], env: dict) -> float:
    """User + system CPU seconds of one run of ``cmd`` and its children."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def property_speed(chapter_dir: Path) -> tuple[dict[str, list], dict[str, float]]:
    """Audit the whole chapter in this process (empty cache, no reports) and return the property searches'
    tally and the CPU seconds each process spent: this one (the chapter's side) and each reference's worker."""
    import resource

    from audit.evaluation.checks.counterexamples import TALLY
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect

    before = resource.getrusage(resource.RUSAGE_SELF)
    chapter = load_chapter(chapter_dir)
    references = all_references()
    audit_chapter(chapter, references, collect(["bench"]))
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = {"this process": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime}
    for ref in references:
        process = getattr(ref, "_process", None)
        if process is not None and process.poll() is None:
            cpu[f"{ref.name} worker"] = _cpu_seconds(process.pid)
    return TALLY, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", type=Path, default=Path("claims/retrieval-23-chapter"))
    parser.add_argument("--claim", default="C14")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    audit = str(Path(sys.executable).with_name("audit"))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        # Python's bytecode cache as a user's installation has it: a shell that sets PYTHONDONTWRITEBYTECODE would
        # otherwise make every audit compile chapter-audit's modules anew (the libraries' bytecode came with them)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["CHAPTER_AUDIT_CACHE"] = str(tmp / "cache")
        copy = tmp / "chapter" / args.chapter.name
        shutil.copytree(args.chapter, copy)
        script = tmp / "baseline.py"
        script.write_text(BASELINE, encoding="utf-8")
        base_cmd = [sys.executable, str(script), str(copy / "claims.yaml")]
        one = tmp / "one-claim.yaml"
        one_claim_register(copy / "claims.yaml", args.claim, one)
        one_cmd = [sys.executable, str(script), str(one)]
        audit_cmd = [audit, "run", str(copy), "--reports", str(tmp / "reports"), "--quiet"]
        pytest_cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--audit", str(copy),
                      "-k", args.claim]
        snapshot = copy / "snapshot.txt"
        original = snapshot.read_text(encoding="utf-8")
        register = yaml.safe_load((copy / "claims.yaml").read_text(encoding="utf-8"))
        quote = next(c["quote"] for c in register["claims"] if c["id"] == args.claim)

        def empty_cache() -> None:
            shutil.rmtree(tmp / "cache", ignore_errors=True)

        steps = iter(range(1, 1000))

        def warm_then_revise() -> None:
            snapshot.write_text(original, encoding="utf-8")
            subprocess.run(audit_cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            revise(snapshot, original, quote, next(steps))

        # Warm the numba cache (and the file cache) for everything, untimed.
        subprocess.run(base_cmd, check=True, stdout=subprocess.DEVNULL, env=env)
        subprocess.run(audit_cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        base, base_times = median(base_cmd, env, args.repeat)
        one_base, one_times = median(one_cmd, env, args.repeat)
        cold, cold_times = median(audit_cmd, env, args.repeat, empty_cache)
        revised, revised_times = median(audit_cmd, env, args.repeat, warm_then_revise)
        snapshot.write_text(original, encoding="utf-8")
        subprocess.run(audit_cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        rerun, rerun_times = median(audit_cmd, env, args.repeat)
        single, single_times = median(pytest_cmd, env, args.repeat, empty_cache)
        base_cpu = child_cpu(base_cmd, env)
    os.environ["CHAPTER_AUDIT_CACHE"] = tempfile.mkdtemp(prefix="chapter-audit-bench-")
    tally, cpu = property_speed(args.chapter)

    def row(label: str, value: float, times: list[float], ratio: str) -> None:
        print(f"{label:<44} {value:7.2f} s   {ratio:<18} ({', '.join(f'{t:.2f}' for t in times)})")

    print(f"chapter: {args.chapter}  claim: {args.claim}  repeats: {args.repeat}  (median wall time, warm numba cache)")
    row("plain script, whole chapter's fixtures", base, base_times, "")
    row(f"plain script, {args.claim}'s fixture", one_base, one_times, "")
    row("audit run, cold claim cache", cold, cold_times, f"ratio {cold / base:.2f}")
    row("audit run after a one-number revision", revised, revised_times, f"ratio {revised / base:.2f}")
    row("audit run, nothing changed", rerun, rerun_times, "wall")
    row(f"pytest --audit … -k {args.claim}, cold cache", single, single_times, f"ratio {single / one_base:.2f}")
    print("CPU seconds of a cold audit in one process (no reports), by process — with two cores, the largest "
          "bounds the wall time from below:")
    for name, seconds in cpu.items():
        print(f"  {name:<22} {seconds:6.2f} s")
    print(f"  {'the plain script':<22} {base_cpu:6.2f} s (all of it, one process)")
    print("property search inside the audit (chapter's property claims, cold cache):")
    print("  per CPU second of the reference's worker (the library's own cost), and per second of its calls "
          "(which, on a busy machine, includes waiting for a core):")
    for name, (cases, evaluations, seconds, cpu_seconds) in tally.items():
        print(f"  {name:<12} {cases / cpu_seconds:10,.0f} cases/CPU s {evaluations / cpu_seconds:12,.0f} "
              f"case×cutoff/CPU s   {cases / seconds:10,.0f} cases/s of calls   "
              f"({cases:,} cases, {cpu_seconds:.2f} CPU s, {seconds:.2f} s of calls)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
