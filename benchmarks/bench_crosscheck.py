"""Wall time and peak memory of `audit crosscheck` on a synthetic TREC run, against the sum of the
three libraries' own evaluation of the same files (each reading them with its own reader), measured
in the same run, each in a fresh process.

    python benchmarks/bench_crosscheck.py [--queries 10000] [--docs 1000] [--judged 50]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
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


def measured(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--no-warm", dest="warm", action="store_false", help="skip the untimed warm-up runs")
    args = parser.parse_args()
    audit = str(Path(sys.executable).with_name("audit"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qrels, run = write_inputs(folder, args.queries, args.docs, args.judged)
        print(f"{args.queries} queries × {args.docs} documents ({run.stat().st_size / 2**20:.0f} MB run), "
              f"measures {MEASURES}")
        commands = {}
        for name, code in LIBRARY.items():
            script = folder / f"evaluate_with_{name}.py"  # not {name}.py, which would shadow the library
            script.write_text(code)
            commands[name] = [sys.executable, str(script), str(qrels), str(run)]
        commands["audit crosscheck"] = [audit, "crosscheck", "--qrels", str(qrels), "--run", str(run),
                                        "--measures", MEASURES, "--out", str(folder / "report")]
        if args.warm:  # numba compiles ranx's metrics on first use; measure with warm caches on both sides
            for cmd in commands.values():
                measured(cmd)
        rows = [(name, *measured(cmd)) for name, cmd in commands.items() if name != "audit crosscheck"]
        ours = measured(commands["audit crosscheck"])
    for name, wall, mem in rows:
        print(f"{name:<14} {wall:8.1f} s  {mem:8.0f} MB")
    total, peak = sum(r[1] for r in rows), max(r[2] for r in rows)
    print(f"{'three libraries':<14} {total:8.1f} s  {peak:8.0f} MB (sum of times, largest peak)")
    print(f"{'audit crosscheck':<14} {ours[0]:8.1f} s  {ours[1]:8.0f} MB")
    print(f"ratio: time {ours[0] / total:.2f}×, peak memory {ours[1] / peak:.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
