"""Wall time of `audit run` on a chapter, as a ratio against a plain script that only imports
pytrec_eval, ir-measures and ranx and evaluates the same fixtures once each — both measured
in this run, in fresh processes, with the same warm numba cache.

    python benchmarks/bench_audit_run.py [--chapter claims/retrieval-23-chapter] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASELINE = r'''
import sys, warnings, yaml
warnings.simplefilter("ignore")
import pytrec_eval, ir_measures, ranx
register = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
fixtures = register.get("fixtures", {})
pairs = []
for claim in register["claims"]:
    measures = [e["measure"] for e in claim.get("expect", [])] + [e["after_measure"] for e in claim.get("expect", []) if e.get("after_measure")]
    measures += claim.get("measures", [])
    for key in ("fixture", "before", "after", "probe"):
        if isinstance(claim.get(key), str):
            pairs += [(claim[key], m) for m in measures]
TREC = {"P": "P", "R": "recall", "AP": "map_cut", "nDCG": "ndcg_cut"}
RANX = {"P": "precision", "R": "recall", "AP": "map", "nDCG": "ndcg", "RR": "mrr"}
for name, measure in dict.fromkeys(pairs):
    fx = fixtures[name]
    qrels = fx["qrels"]
    run = {q: {d: float(len(r) - i) for i, d in enumerate(dict.fromkeys(r))} for q, r in fx["run"].items()}
    m = ir_measures.parse_measure(measure)
    list(ir_measures.iter_calc([m], qrels, run))
    cut = m.params.get("cutoff")
    if m.NAME in TREC and cut and m.params.get("dcg", "log2") == "log2":
        pytrec_eval.RelevanceEvaluator(qrels, {f"{TREC[m.NAME]}.{cut}"}).evaluate(run)
    if m.NAME in RANX:
        metric = RANX[m.NAME] + (f"@{cut}" if cut else "")
        if m.NAME == "nDCG" and m.params.get("dcg") == "exp-log2":
            metric = "ndcg_burges" + (f"@{cut}" if cut else "")
        ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metric, make_comparable=True)
print(len(pairs))
'''


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", type=Path, default=Path("claims/retrieval-23-chapter"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    audit = [str(Path(sys.executable).with_name("audit"))]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "baseline.py"
        script.write_text(BASELINE, encoding="utf-8")
        base_cmd = [sys.executable, str(script), str(args.chapter / "claims.yaml")]
        audit_cmd = audit + ["run", str(args.chapter), "--reports", tmp, "--quiet"]
        # Warm the numba cache for both, untimed.
        subprocess.run(base_cmd, check=True, stdout=subprocess.DEVNULL)
        subprocess.run(audit_cmd, check=True, stdout=subprocess.DEVNULL)
        audit_times, base_times = [], []
        for _ in range(args.repeat):
            audit_times.append(timed(audit_cmd))
            base_times.append(timed(base_cmd))
    a, b = statistics.median(audit_times), statistics.median(base_times)
    print(f"chapter: {args.chapter}  repeats: {args.repeat}  (median wall time, warm numba cache)")
    print(f"audit run:        {a:6.2f} s   {', '.join(f'{t:.2f}' for t in audit_times)}")
    print(f"baseline script:  {b:6.2f} s   {', '.join(f'{t:.2f}' for t in base_times)}")
    print(f"ratio audit/baseline: {a / b:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
