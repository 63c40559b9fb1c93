"""Scanner and ``audit init`` on the labelled corpus (tests/corpus) and on both seed chapters.

For each text: the scanner's recall (labelled statements it finds) and precision (statements it
reports that are labelled), the share of labelled statements ``init`` encodes so they run
unedited, and the share of those whose verdict from ``audit run`` is the labelled one. Texts held
out while the scanner was written are reported separately. The seeds' labels are their
hand-written registers' checkable claims (every kind except ``not checkable``; their verdicts are
the committed reports').

Run from the project root: ``python benchmarks/bench_scanner.py [--no-audit]`` (the audit runs
every reference; allow a few minutes, more on a cold ranx cache).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import corpus_labels as cl

from audit.register.claims import load_chapter
from audit.draft.init import create_chapter


def seed_texts() -> list[cl.Text]:
    """Both shipped chapters as labelled texts: each checkable hand-written claim is a label."""
    out = []
    for name in ("retrieval-23-chapter", "recall-and-precision"):
        chapter = load_chapter(ROOT / "claims" / name)
        report = json.loads((ROOT / "reports" / f"{name}.json").read_text(encoding="utf-8"))
        verdicts = {c["id"]: c["verdict"] for c in report["claims"]}
        text = chapter.snapshot.text
        t = cl.Text(f"claims/{name}/snapshot.txt", "seed", False, text)
        for c in chapter.register.claims:
            if c.kind == "not checkable" or c.quote not in text:
                continue
            a = text.index(c.quote)
            t.labels.append(cl.Label(c.quote, c.kind, "", verdicts.get(c.id, ""), [(a, a + len(c.quote))]))
        out.append(t)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-audit", action="store_true", help="scanner figures only (no init, no audit)")
    args = parser.parse_args()
    corpus = cl.load()
    groups = [("labelled corpus, developed on", [t for t in corpus if not t.held_out]),
              ("labelled corpus, held out", [t for t in corpus if t.held_out]),
              ("seed chapters (hand-written registers)", seed_texts())]
    references = None
    if not args.no_audit:
        from audit.evaluation.references import all_references
        references = all_references()
    header = f"{'text':44} {'labels':>6} {'recall':>8} {'precision':>10} {'encoded':>9} {'right':>9}"
    all_scan: list[cl.ScanScore] = []
    corpus_scan: list[cl.ScanScore] = []
    corpus_init: list[cl.InitScore] = []
    for title, texts in groups:
        print(f"\n== {title}\n{header}")
        scans, inits = [], []
        for t in texts:
            s = cl.score(t)
            scans.append(s)
            line = f"{t.file:44} {s.labels:>6} {s.recall:>8.1%} {s.precision:>10.1%}"
            if references is not None:
                with tempfile.TemporaryDirectory() as tmp:
                    src = Path(tmp) / "snapshot.txt"
                    src.write_text(t.text, encoding="utf-8")
                    folder, _ = create_chapter(src, "bench", Path(tmp) / "claims")
                    i = cl.audit_labelled(folder, t.text, t.labels, references)
                inits.append(i)
                line += (f" {i.encoded / i.labels:>9.1%} "
                         f"{(i.right / i.encoded if i.encoded else 1):>9.1%}")
            print(line)
            for m in s.missed:
                print(f"    missed: {m[:100]}")
            if references is not None:
                for w in inits[-1].wrong:
                    print(f"    wrong verdict: {w[:160]}")
        tot = cl.total(scans)
        line = f"{'  all of the above':44} {tot.labels:>6} {tot.recall:>8.1%} {tot.precision:>10.1%}"
        if inits:
            n, e, r = sum(i.labels for i in inits), sum(i.encoded for i in inits), sum(i.right for i in inits)
            line += f" {e / n:>9.1%} {(r / e if e else 1):>9.1%}"
        print(line)
        all_scan += scans
        if "labelled corpus" in title:
            corpus_scan += scans
            corpus_init += inits
    tot = cl.total(corpus_scan)
    print(f"\n== labelled corpus overall: {tot.labels} statements, recall {tot.recall:.1%} ({tot.found}/{tot.labels}), "
          f"precision {tot.precision:.1%} ({tot.true}/{tot.statements})")
    if corpus_init:
        n, e, r = (sum(i.labels for i in corpus_init), sum(i.encoded for i in corpus_init),
                   sum(i.right for i in corpus_init))
        print(f"   init: {e}/{n} encoded to run unedited ({e / n:.1%}); verdict right on {r}/{e} ({r / e:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
