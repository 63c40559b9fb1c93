"""The fuzz campaign at scale (not run in CI): N cases, of which a fifth are TREC file pairs through
``audit crosscheck``, a tenth recall@k listings (right or wrong, after prefixes that print, flood,
forge protocol frames or try what the sandbox refuses; 20 generated inputs each, as in the attack
suite) and the rest registers through ``audit run``, with the oracle of ``tests/fuzz/oracle.py``,
then M fuzzed claim-cache entries (``tests/fuzz/cache_cases.py``: forged unsigned or signed with invalid
content, damaged, odd file types, folders replaced by links, removed), each audited against the
clean run of the same chapter.

    python benchmarks/bench_fuzz.py [--registers 10000] [--cache-cases 500] [--minutes 0 (no limit)] [--seed 0]

A child process audits the cases one after the other (the reference workers start once) and
reports each on its stdout; when it dies (a crash: a signal or an exit without a report) or a
case passes ``--hang`` seconds, the parent records it against that case and starts a new child
at the next one. Prints, and writes as JSON to ``--out``: cases run, the registers' exit codes
and claim verdicts, and counts of internal errors, crashes, hangs, vacuous verdicts, bad exit
codes, tracebacks, corrupt reports, listings given a verdict their function does not earn
(``forged``) and listing markup raw in an HTML report (``injected``), with the first examples of each; for the cache cases, the
count of each mutation and of runs whose reports differ from the clean run's (``changed``).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import json, random, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generate import listing, register, trec_pair
from oracle import check_listing, check_register, check_trec
import audit.evaluation.checks.code as code_check
# the attack suite's budget for one listing: 20 generated inputs, 1 s a call, 10 s a claim
code_check.SAMPLE, code_check.CALL_LIMIT, code_check.CLAIM_BUDGET = 20, 1.0, 10.0
start, stop, seed, hang = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
registers = int(sys.argv[6])
warm = None
for i in range(start, stop):
    print(json.dumps({"start": i}), flush=True)
    rng = random.Random(seed * 1_000_003 + i)
    tally = {}
    if i >= registers:  # a cache case: the chapter audited once per child, its cache changed per case
        from cache_cases import Warm, check_cache
        if warm is None:
            warm = Warm(Path(tempfile.mkdtemp(prefix="bench-fuzz-warm-")))
        with tempfile.TemporaryDirectory(prefix="bench-fuzz-cache-") as root:
            label, problems = check_cache(warm, rng, Path(root), seconds=hang)
        print(json.dumps({"done": i, "kind": "cache: " + " ".join(label.split()[:2]), "problems": problems,
                          "tally": {}, "label": label}), flush=True)
        continue
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as root:
        if i % 5 == 4:
            problems = check_trec(*trec_pair(rng), Path(root), seconds=hang)
            kind = "trec"
        elif i % 10 == 7:
            case = listing(rng, i)
            problems = check_listing(case, Path(root), seconds=hang)
            kind = "listing (" + case.label.split(",")[0] + ")"
        else:
            reg = register(rng, i)
            problems = check_register(reg, Path(root), seconds=hang, tally=tally)
            kind = "register (" + (reg.corrupted or "valid") + ")"
    print(json.dumps({"done": i, "kind": kind, "problems": problems, "tally": tally}), flush=True)
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--registers", type=int, default=10_000, help="register, TREC and listing cases to run (default 10000)")
    parser.add_argument("--cache-cases", type=int, default=500, help="fuzzed cache entries to run after them "
                        "(default 500)")
    parser.add_argument("--minutes", type=float, default=0, help="stop after this many minutes (0: no limit)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang", type=float, default=120.0, help="seconds after which a case counts as a hang")
    parser.add_argument("--out", type=Path, default=Path("bench_fuzz.json"))
    args = parser.parse_args()
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else float("inf")
    counts: Counter = Counter()
    kinds: Counter = Counter()
    tallies: Counter = Counter()
    labels: Counter = Counter()
    examples: dict[str, list] = {}
    done = 0
    next_case = 0
    started = time.monotonic()
    env = dict(os.environ, COLUMNS="1000")
    total = args.registers + args.cache_cases
    while next_case < total and time.monotonic() < deadline:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(ROOT / "tests" / "fuzz"), str(next_case),
                                  str(total), str(args.seed), str(args.hang), str(args.registers)],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
        current, case_started = next_case, time.monotonic()
        while True:
            ready, _, _ = select.select([child.stdout], [], [], 5.0)
            if not ready:
                if time.monotonic() - case_started > args.hang * 2:
                    child.kill()
                    child.wait()
                    counts["hang"] += 1
                    examples.setdefault("hang", []).append(current)
                    next_case = current + 1
                    break
                if time.monotonic() >= deadline:
                    child.kill()
                    child.wait()
                    next_case = total
                    break
                continue
            line = child.stdout.readline()
            if not line:  # the child ended without reporting the case it had started: a crash
                code = child.wait()
                if current < total and code != 0:
                    counts["crash"] += 1
                    examples.setdefault("crash", []).append((current, code))
                    next_case = current + 1
                else:
                    next_case = total
                break
            message = json.loads(line)
            if "start" in message:
                current, case_started = message["start"], time.monotonic()
                continue
            done += 1
            kinds[message["kind"]] += 1
            tallies.update(message.get("tally", {}))
            if "label" in message:
                labels[message["label"]] += 1
            for problem, detail in message["problems"]:
                counts[problem] += 1
                if len(examples.setdefault(problem, [])) < 5:
                    examples[problem].append((message["done"], message.get("label", ""), detail[:400]))
            if time.monotonic() >= deadline:
                child.kill()
                child.wait()
                next_case = total
                break
    result = {"cases": done, "seconds": round(time.monotonic() - started, 1), "kinds": dict(sorted(kinds.items())),
              "registers": dict(sorted(tallies.items())),
              "cache mutations": dict(sorted(labels.items())),
              "problems": {k: counts.get(k, 0) for k in ("internal", "crash", "hang", "vacuous", "exit",
                                                         "traceback", "report", "changed", "forged",
                                                         "injected")},
              "examples": examples}
    print(json.dumps(result, indent=2))
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if not any(result["problems"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
