"""Cases per second per reference for a property search: every case as a query of one call
(batched) against one call per case (unbatched), measured in the same run.

    python benchmarks/bench_property_batching.py [--unbatched-sample 300]

A case is one (ranking, judgements, cutoff) evaluation of one measure. The universe is the
one the course module's "raising k always helps recall" claim searches.
"""

from __future__ import annotations

import argparse
import time

from audit.evaluation import evaluator
from audit.evaluation.references import all_references
from audit.model.universe import Universe
from audit.measures.syntax import parse


def inputs(cases):
    """Every case as one query, with strictly decreasing scores, as the property checker builds them."""
    qrels = {f"c{i}": c.qrels() for i, c in enumerate(cases)}
    run = {f"c{i}": {d: float(len(c.ranked) - r) for r, d in enumerate(c.ranking())} for i, c in enumerate(cases)}
    return qrels, run


def timed_call(reference, cases, measures) -> float:
    qrels, run = inputs(cases)
    start = time.perf_counter()
    outcomes = reference.evaluate(measures, qrels, run)
    elapsed = time.perf_counter() - start
    assert all(o.status == "ok" for o in outcomes.values()), outcomes
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", default="R")
    parser.add_argument("--unbatched-sample", type=int, default=300)
    args = parser.parse_args()
    cases = list(Universe(5, 6, (0, 1), 6).cases())
    ks = range(1, 7)
    sample = cases[:args.unbatched_sample]
    print(f"measure {args.measure}@k, k = 1…6; {len(cases)} cases × 6 cutoffs batched, "
          f"{len(sample)} cases × 6 cutoffs unbatched")
    print(f"{'reference':<12} {'batched /s':>12} {'calls':>6} {'unbatched /s':>13} {'calls':>6} {'ratio':>7}")
    measures = [parse(f"{args.measure}@{k}")[0] for k in ks]
    for ref in all_references():
        timed_call(ref, cases[:5], measures)  # warm up (ranx compiles once)
        batched = len(cases) * len(ks) / timed_call(ref, cases, measures)
        spent = sum(timed_call(ref, [case], measures) for case in sample)
        unbatched = len(sample) * len(ks) / spent
        print(f"{ref.name:<12} {batched:12.0f} {1:6d} {unbatched:13.0f} {len(sample):6d} {batched / unbatched:7.1f}")
    start = time.perf_counter()
    for case in cases:
        for k in ks:
            evaluator.evaluate_query(parse(f"{args.measure}@{k}")[1], case.qrels(), case.ranking())
    print(f"{'chapter':<12} {len(cases) * len(ks) / (time.perf_counter() - start):12.0f}  (exact arithmetic, "
          "no per-call cost)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
