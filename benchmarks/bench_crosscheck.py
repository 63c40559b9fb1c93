"""Wall time and peak memory of `audit crosscheck` on synthetic TREC files, against the three libraries'
own evaluation of the same files (each reading them with its own reader, in a fresh process), measured
in the same run.

    python benchmarks/bench_crosscheck.py [--case 10000x1000] [--case 100000x100] [--judged 50]

Each case is QUERIESxDOCUMENTS (documents ranked per query; ``--judged`` judgements per query). Time
is wall seconds of the whole command. Memory is the peak resident set of the command's process tree:
the largest of the kernel's peak for the process (``ru_maxrss``, which for a tree is the largest single
process, not the sum) and the sum over the process and its children sampled every 0.1 s (the
cross-check's reference workers run beside it). The ratios compare `audit crosscheck` with the sum of
the three libraries' times and with the largest library's peak. With two or more cases, how time and
memory grow from the first case to each later one is printed too.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

MEASURES = "P@10 R@100 RR AP nDCG@10"

LIBRARY = {
    "pytrec_eval": r'''
import sys, pytrec_eval
qrels = pytrec_eval.parse_qrel(open(sys.argv[1]))
run = pytrec_eval.parse_run(open(sys.argv[2]))
pytrec_eval.RelevanceEvaluator(qrels, {"P.10", "recall.100", "recip_rank", "map", "ndcg_cut.10"}).evaluate(run)
''',
    "ir_measures": r'''
import sys, ir_measures
ms = [ir_measures.parse_measure(m) for m in "P@10 R@100 RR AP nDCG@10".split()]
ir_measures.calc_aggregate(ms, ir_measures.read_trec_qrels(sys.argv[1]), ir_measures.read_trec_run(sys.argv[2]))
''',
    "ranx": r'''
import sys, warnings
warnings.simplefilter("ignore")
import ranx
ranx.evaluate(ranx.Qrels.from_file(sys.argv[1], kind="trec"), ranx.Run.from_file(sys.argv[2], kind="trec"),
              ["precision@10", "recall@100", "mrr", "map", "ndcg@10"])
''',
}


def _tree_rss(root: int) -> int:
    """Resident kB of ``root`` and all its descendants now (from /proc; 0 for a process gone)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"VmRSS:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass
    return total


def measured(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MB of the process tree) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak, done = [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            peak[0] = max(peak[0], _tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return wall, max(usage.ru_maxrss, peak[0]) / 1024


def write_inputs(folder: Path, queries: int, docs: int, judged: int, seed: int = 7) -> tuple[Path, Path]:
    rng = random.Random(seed)
    qrels, run = folder / "qrels", folder / "run"
    with open(qrels, "w") as q, open(run, "w") as r:
        for qi in range(queries):
            for d in rng.sample(range(docs * 2), judged):
                q.write(f"q{qi} 0 d{d} {rng.choice((0, 0, 1, 2))}\n")
            for rank, d in enumerate(rng.sample(range(docs * 2), docs), start=1):
                r.write(f"q{qi} Q0 d{d} {rank} {docs - rank + rng.choice((0, 0.5))} bench\n")
    return qrels, run


def run_case(queries: int, docs: int, judged: int, warm: bool) -> dict[str, tuple[float, float]]:
    """{command: (seconds, MB)} for the three libraries and `audit crosscheck` on one synthetic input."""
    audit = str(Path(sys.executable).with_name("audit"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qrels, run = write_inputs(folder, queries, docs, judged)
        print(f"\n{queries} queries × {docs} documents, {judged} judged per query "
              f"({run.stat().st_size / 2**20:.0f} MB run, {qrels.stat().st_size / 2**20:.0f} MB qrels), "
              f"measures {MEASURES}", flush=True)
        commands = {}
        for name, code in LIBRARY.items():
            script = folder / f"evaluate_with_{name}.py"  # not {name}.py, which would shadow the library
            script.write_text(code)
            commands[name] = [sys.executable, str(script), str(qrels), str(run)]
        commands["audit crosscheck"] = [audit, "crosscheck", "--qrels", str(qrels), "--run", str(run),
                                        "--measures", MEASURES, "--out", str(folder / "report")]
        if warm:  # numba compiles ranx's metrics on first use; measure with warm caches on both sides
            for cmd in commands.values():
                measured(cmd)
        rows = {name: measured(cmd) for name, cmd in commands.items()}
    for name, (wall, mem) in rows.items():
        if name == "audit crosscheck":
            total = sum(rows[n][0] for n in LIBRARY)
            peak = max(rows[n][1] for n in LIBRARY)
            print(f"{'three libraries':<16} {total:8.1f} s  {peak:8.0f} MB (sum of times, largest peak)")
        print(f"{name:<16} {wall:8.1f} s  {mem:8.0f} MB")
    ours, total, peak = rows["audit crosscheck"], sum(rows[n][0] for n in LIBRARY), max(rows[n][1] for n in LIBRARY)
    print(f"ratio: time {ours[0] / total:.2f}×, peak memory {ours[1] / peak:.2f}×", flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", metavar="QUERIESxDOCS",
                        help="a synthetic input, e.g. 10000x1000 (repeatable; default 10000x1000)")
    parser.add_argument("--queries", type=int, help="with --docs: one case (as --case QUERIESxDOCS)")
    parser.add_argument("--docs", type=int)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--no-warm", dest="warm", action="store_false", help="skip the untimed warm-up runs")
    args = parser.parse_args()
    cases = [tuple(int(x) for x in c.lower().split("x")) for c in args.case or []]
    if args.queries or args.docs:
        cases.append((args.queries or 10000, args.docs or 1000))
    results = [(q, d, run_case(q, d, args.judged, args.warm)) for q, d in cases or [(10000, 1000)]]
    if len(results) > 1:
        q0, d0, first = results[0]
        print(f"\ngrowth from {q0}×{d0}:")
        for q, d, rows in results[1:]:
            lib_t = sum(rows[n][0] for n in LIBRARY) / sum(first[n][0] for n in LIBRARY)
            lib_m = max(rows[n][1] for n in LIBRARY) / max(first[n][1] for n in LIBRARY)
            ours_t = rows["audit crosscheck"][0] / first["audit crosscheck"][0]
            ours_m = rows["audit crosscheck"][1] / first["audit crosscheck"][1]
            print(f"  to {q}×{d} ({q / q0:g}× queries, {q * d / (q0 * d0):g}× run lines): three libraries time "
                  f"{lib_t:.2f}×, largest peak {lib_m:.2f}×; audit crosscheck time {ours_t:.2f}×, peak {ours_m:.2f}×")
            for name in (*LIBRARY, "audit crosscheck"):
                print(f"    {name:<16} {first[name][0]:7.1f} s → {rows[name][0]:7.1f} s ({rows[name][0] / first[name][0]:.2f}×)"
                      f"   {first[name][1]:6.0f} MB → {rows[name][1]:6.0f} MB ({rows[name][1] / first[name][1]:.2f}×)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
