"""The fuzz campaign at scale (not run in CI): N cases, of which a fifth are TREC file pairs through
``audit crosscheck``, a tenth recall@k listings (right or wrong, after prefixes that print, flood,
forge protocol frames or try what the sandbox refuses; 20 generated inputs each, as in the attack
suite) and the rest registers through ``audit run``, with the oracle of ``tests/fuzz/oracle.py``,
then M fuzzed claim-cache entries (``tests/fuzz/cache_cases.py``: forged unsigned or signed with invalid
content, damaged, odd file types, folders replaced by links, removed), each audited against the
clean run of the same chapter.

    python benchmarks/bench_fuzz.py [--registers 10000] [--cache-cases 500] [--minutes 0 (no limit)] [--seed 0]
                                    [--resume]
    python benchmarks/bench_fuzz.py --growth [--scales 1 10 100]

``--growth`` runs no fuzz cases: it grows each input kind (a TREC pair's queries, its documents per query, a
register's claims, a fixture's queries, a snapshot's lines, a sentence's terms and parentheses) by each of ``--scales`` and audits it once per scale
(``audit crosscheck`` or ``audit run --no-cache``) in a child process, printing for each the wall time, the peak
resident memory of the audit's process and the largest of its children's (the references' workers, the
sandbox), their ratios to the first scale's, and the growth exponent between the last two scales (1: linear;
about 1.1 at these sizes: n log n; 2: quadratic). A warm-up run first, so ranx's numba cache is filled.

A child process audits the cases one after the other (the reference workers start once) and
reports each on its stdout; when it dies (a crash: a signal or an exit without a report) or a
case passes ``--hang`` seconds, the parent records it against that case and starts a new child
at the next one. Prints, and writes as JSON to ``--out``: cases run, the registers' exit codes
and claim verdicts, and counts of internal errors, crashes, hangs, vacuous verdicts, bad exit
codes, tracebacks, corrupt reports, listings given a verdict their function does not earn
(``forged``) and listing markup raw in an HTML report (``injected``), with the first examples of each; for the cache cases, the
count of each mutation and of runs whose reports differ from the clean run's (``changed``).

The JSON is written again after every case, with the seed, the case counts and the next case to run, so a campaign
longer than one sitting goes on with ``--resume`` (same ``--seed``, ``--registers`` and ``--cache-cases``): each case
is drawn from the seed and its own index, so a resumed campaign runs the same cases as one run would, and its
figures are the sums over the sittings.
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


#: A child auditing one grown input: runs the ``audit`` command line in its own process (its workers are stopped,
#: and so reaped, before it ends) and writes its wall time and the peak resident memory (KB) of itself and of its
#: largest child to the file named by its first argument.
GROWTH_CHILD = r'''
import json, resource, sys, time
out = sys.argv[1]
sys.argv = ["audit", *sys.argv[2:]]
from audit.cli import main
started = time.perf_counter()
try:
    code = main()
except SystemExit as exc:
    code = exc.code
seconds = time.perf_counter() - started
with open(out, "w") as handle:
    json.dump({"code": code, "seconds": seconds, "audit_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               "children_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}, handle)
'''


def _trec_pair(folder: Path, queries: int, docs: int) -> list[str]:
    """A qrels (each query judging 20 of its documents, grades 0–2) and a run (``docs`` a query, distinct scores)
    with IDs of one width at every scale (ranx compiles anew for a new width); the crosscheck arguments."""
    import random
    rng = random.Random(queries * 7919 + docs)
    qrels, run = folder / "qrels", folder / "run"
    with open(qrels, "w") as q, open(run, "w") as r:
        for i in range(queries):
            for j in rng.sample(range(docs), min(20, docs)):
                q.write(f"q{i:06d} 0 d{j:07d} {rng.randrange(3)}\n")
            for rank, j in enumerate(rng.sample(range(docs * 2), docs)):
                r.write(f"q{i:06d} Q0 d{j:07d} {rank + 1} {docs * 2 - rank} growth\n")
    return ["crosscheck", "--qrels", str(qrels), "--run", str(run), "--measures", "P@10 AP nDCG@10 RR",
            "--out", str(folder / "report")]


def _chapter(folder: Path, claims: int, queries: int, lines: int) -> list[str]:
    """A chapter of ``claims`` value claims (P@2 on a fixture of its own: ``queries`` queries of 10 ranked
    documents, the first relevant, so P@2 = 1/2 for each) and a snapshot of ``lines`` lines of prose with numbers
    (every claim's sentence among them); the ``audit run`` arguments."""
    chapter = folder / "growth"
    chapter.mkdir()
    (chapter / "chapter.yaml").write_text("id: growth\ntitle: Growth\n", encoding="utf-8")
    sentences = [f"In run {i:05d}, one relevant result in the top two gives P@2 = 1/2." for i in range(claims)]
    filler = [f"Table row {i:05d}: the system returned {i % 97} results in {i % 13}.{i % 10} ms." for i in range(lines)]
    text = []
    for i, line in enumerate(filler):
        text.append(line)
        if i < claims:
            text.append(sentences[i])
    text.extend(sentences[len(filler):])
    (chapter / "snapshot.txt").write_text("\n".join(text) + "\n", encoding="utf-8")
    fixtures, entries = [], []
    for i in range(claims):
        qrels = ", ".join(f"q{k:05d}: {{d0: 1, d1: 0}}" for k in range(queries))
        run = ", ".join(f"q{k:05d}: [d0, d1, d2, d3, d4, d5, d6, d7, d8, d9]" for k in range(queries))
        fixtures.append(f"  f{i:05d}:\n    qrels: {{{qrels}}}\n    run: {{{run}}}\n")
        entries.append(f"  - id: C{i + 1}\n    title: run {i:05d}\n    kind: value\n"
                       f"    quote: \"{sentences[i]}\"\n    claim: P@2 = 1/2.\n    fixture: f{i:05d}\n"
                       "    expect:\n      - {measure: \"P@2\", claimed: \"1/2\"}\n")
    (chapter / "claims.yaml").write_text("fixtures:\n" + "".join(fixtures) + "claims:\n" + "".join(entries),
                                         encoding="utf-8")
    return ["run", str(chapter), "--no-cache", "--quiet", "--reports", str(folder / "reports")]


def _long_sum(folder: Path, terms: int, shape: str) -> list[str]:
    """A chapter of one sentence holding a sum of ``terms`` terms (``1``, ``(1)`` or a nested ``((…1…))``) that ends
    in no relation ("P@1 = 1 + 1 + … + 1 here."), and no claim: the scanner's expression patterns on it."""
    chapter = folder / "growth"
    chapter.mkdir()
    (chapter / "chapter.yaml").write_text("id: growth\ntitle: Growth\n", encoding="utf-8")
    body = ("(" * terms + "1" + ")" * terms) if shape == "nested" else " + ".join([shape] * terms)
    (chapter / "snapshot.txt").write_text(f"P@1 = {body} here.\n", encoding="utf-8")
    (chapter / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
    return ["run", str(chapter), "--no-cache", "--quiet", "--reports", str(folder / "reports")]


#: Each input kind: how its arguments are built at scale ``s``.
GROWTH = {
    "TREC queries (20·s queries × 100 documents)": lambda folder, s: _trec_pair(folder, 20 * s, 100),
    "TREC documents per query (20 queries × 100·s)": lambda folder, s: _trec_pair(folder, 20, 100 * s),
    "register claims (5·s value claims)": lambda folder, s: _chapter(folder, 5 * s, 2, 20),
    "fixture queries (1 claim, 5·s queries)": lambda folder, s: _chapter(folder, 1, 5 * s, 20),
    "snapshot lines (1 claim, 100·s lines)": lambda folder, s: _chapter(folder, 1, 2, 100 * s),
    "a sentence's terms (30·s terms 1 + 1 + …)": lambda folder, s: _long_sum(folder, 30 * s, "1"),
    "a sentence's terms (30·s terms (1) + (1) + …)": lambda folder, s: _long_sum(folder, 30 * s, "(1)"),
    "a sentence's parentheses (30·s deep ((…1…)))": lambda folder, s: _long_sum(folder, 30 * s, "nested"),
}


def _audit_once(args: list[str], folder: Path) -> dict:
    import tempfile
    with tempfile.NamedTemporaryFile(dir=folder, suffix=".json", delete=False) as handle:
        out = handle.name
    subprocess.run([sys.executable, "-c", GROWTH_CHILD, out, *args], cwd=folder, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)
    return json.loads(Path(out).read_text())


def growth(scales: list[int], out: Path) -> int:
    """Audit each input kind at each scale; print and write the figures (see the module doc)."""
    import math
    import tempfile
    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-growth-") as root:
        warm = Path(root) / "warm"
        warm.mkdir()
        _audit_once(_trec_pair(warm, 2, 10), warm)
        for kind, build in GROWTH.items():
            rows = results[kind] = []
            for s in scales:
                folder = Path(root) / f"{len(results)}-{s}"
                folder.mkdir()
                row = _audit_once(build(folder, s), folder)
                row["scale"] = s
                rows.append(row)
                first = rows[0]
                print(f"{kind:48} ×{s:<4} exit {row['code']}  {row['seconds']:7.1f} s "
                      f"(×{row['seconds'] / first['seconds']:.1f})  audit {row['audit_kb'] / 1024:7.0f} MB "
                      f"(×{row['audit_kb'] / first['audit_kb']:.1f})  children {row['children_kb'] / 1024:7.0f} MB "
                      f"(×{row['children_kb'] / first['children_kb']:.1f})", flush=True)
            if len(rows) >= 2:
                a, b = rows[-2], rows[-1]
                step = math.log(b["scale"] / a["scale"])
                exponents = {what: round(math.log(max(b[what], 1e-9) / max(a[what], 1e-9)) / step, 2)
                             for what in ("seconds", "audit_kb", "children_kb")}
                results[kind].append({"exponents (last two scales)": exponents})
                print(f"{'':48} growth exponents ×{a['scale']}→×{b['scale']}: time {exponents['seconds']}, "
                      f"audit memory {exponents['audit_kb']}, children's {exponents['children_kb']}", flush=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--registers", type=int, default=10_000, help="register, TREC and listing cases to run (default 10000)")
    parser.add_argument("--cache-cases", type=int, default=500, help="fuzzed cache entries to run after them "
                        "(default 500)")
    parser.add_argument("--minutes", type=float, default=0, help="stop after this many minutes (0: no limit)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang", type=float, default=120.0, help="seconds after which a case counts as a hang")
    parser.add_argument("--out", type=Path, default=Path("bench_fuzz.json"))
    parser.add_argument("--resume", action="store_true", help="go on with the campaign --out holds (same seed and "
                        "counts), from its next case")
    parser.add_argument("--growth", action="store_true", help="measure how each input kind's time and memory "
                        "grow with its size instead of fuzzing")
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10, 100], help="the growth scales")
    args = parser.parse_args()
    if args.growth:
        return growth(args.scales, args.out)
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else float("inf")
    counts: Counter = Counter()
    kinds: Counter = Counter()
    tallies: Counter = Counter()
    labels: Counter = Counter()
    examples: dict[str, list] = {}
    done = 0
    next_case = 0
    before = 0.0  # the seconds of the sittings a resumed campaign had already run
    started = time.monotonic()
    env = dict(os.environ, COLUMNS="1000")
    total = args.registers + args.cache_cases
    campaign = {"seed": args.seed, "registers": args.registers, "cache cases": args.cache_cases}
    if args.resume and args.out.exists():
        saved = json.loads(args.out.read_text(encoding="utf-8"))
        if saved.get("campaign") != campaign:
            print(f"error: {args.out} holds the campaign {saved.get('campaign')}, not {campaign}", file=sys.stderr)
            return 2
        done, next_case, before = saved["cases"], saved["next"], saved["seconds"]
        kinds.update(saved["kinds"])
        tallies.update(saved["registers"])
        labels.update(saved["cache mutations"])
        counts.update(saved["problems"])
        examples = {k: [tuple(e) if isinstance(e, list) else e for e in v] for k, v in saved["examples"].items()}

    def result() -> dict:
        return {"campaign": campaign, "cases": done, "next": next_case,
                "seconds": round(before + time.monotonic() - started, 1), "kinds": dict(sorted(kinds.items())),
                "registers": dict(sorted(tallies.items())),
                "cache mutations": dict(sorted(labels.items())),
                "problems": {k: counts.get(k, 0) for k in ("internal", "crash", "hang", "vacuous", "exit",
                                                           "traceback", "report", "changed", "forged",
                                                           "injected")},
                "examples": examples}

    def save() -> None:
        partial = args.out.with_name(args.out.name + ".partial")
        partial.write_text(json.dumps(result(), indent=2) + "\n", encoding="utf-8")
        partial.replace(args.out)

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
                    save()
                    break
                if time.monotonic() >= deadline:  # the case under way is run again by --resume
                    child.kill()
                    child.wait()
                    break
                continue
            line = child.stdout.readline()
            if not line:  # the child ended without reporting the case it had started: a crash
                code = child.wait()
                if current < total and code != 0:
                    counts["crash"] += 1
                    examples.setdefault("crash", []).append((current, code))
                    next_case = current + 1
                    save()
                else:
                    next_case = total
                break
            message = json.loads(line)
            if "start" in message:
                current, case_started = message["start"], time.monotonic()
                continue
            done += 1
            next_case = message["done"] + 1
            kinds[message["kind"]] += 1
            tallies.update(message.get("tally", {}))
            if "label" in message:
                labels[message["label"]] += 1
            for problem, detail in message["problems"]:
                counts[problem] += 1
                if len(examples.setdefault(problem, [])) < 5:
                    examples[problem].append((message["done"], message.get("label", ""), detail[:400]))
            save()
            if time.monotonic() >= deadline:
                child.kill()
                child.wait()
                break
    save()
    final = result()
    print(json.dumps(final, indent=2))
    if final["next"] < total:
        print(f"stopped at case {final['next']} of {total}: go on with --resume", file=sys.stderr)
    return 0 if not any(final["problems"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
