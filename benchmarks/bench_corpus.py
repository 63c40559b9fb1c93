"""The labelled measures corpus (tests/corpus/measures): how many statements the audit can encode, how many
``audit init`` encodes unedited, and how often its verdict is the labelled one.

Prints a line per text, then one line per claim family and one overall, in this form:

    listings: N statements, agreement A%, wrong supported S, wrong contradicted C
    statistics: N statements, agreement A%, wrong supported S, wrong contradicted C
    overall: N statements, encodable E%, unedited U%, agreement A%, held-out agreement H%, wrong supported S, wrong contradicted C
    init: N statements, found F%, runnable and right R%, wrong W
    patches: N patches applied, structure kept K, rerun clean C, damaged D

(init: ``audit init``'s draft alone, unedited; see ``corpus_measures``. patches: every text with a finding has its
patch applied with ``patch -p0`` in a scratch copy and is audited again; goals K = C = N, D = 0)

then every statement whose verdict differs from its label. Labels: tests/corpus/measures/labels.yaml (each value
computed by compute_labels.py, the libraries called directly and by hand). Run from the project root:
``python benchmarks/bench_corpus.py [--no-init]`` (a few minutes: every text is audited twice, its register and
init's draft).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import corpus_measures as cm  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-init", action="store_true", help="skip audit init's drafts (unedited then reads 0%%)")
    parser.add_argument("--no-patches", action="store_true", help="skip applying each text's patch and its rerun")
    args = parser.parse_args(argv)
    by_text = cm.score(init=not args.no_init, progress=lambda m: print(m, file=sys.stderr, flush=True))
    everything = cm.Figures([s for f in by_text.values() for s in f.statements])
    for name, figures in by_text.items():
        print(figures.line(name + (" (held out)" if figures.statements and figures.statements[0].held_out else ""),
                           held_out=False))
    for family in sorted({s.family for s in everything.statements}):
        print(cm.Figures([s for s in everything.statements if s.family == family]).line(family))
    listings = [s for s in everything.statements if s.kind == "code"]
    if listings:
        print(cm.Figures(listings).brief("listings"))
    statistics = [s for s in everything.statements if s.kind == "statistic"]
    if statistics:
        print(cm.Figures(statistics).brief("statistics"))
    print(everything.line("overall"))
    if not args.no_init:
        print(everything.init_line())
    patches = None
    if not args.no_patches:
        patches = cm.patch_rounds(progress=lambda m: print(m, file=sys.stderr, flush=True))
        print(patches.line())
    wrong = everything.wrong()
    if wrong:
        print(f"\n{len(wrong)} statements whose verdict is not the labelled one:")
        for s in wrong:
            print(f"  {s.text} {s.claim}: labelled {s.verdict}, audit says {s.audit} — {s.quote[:80]!r}")
    init_wrong = [s for s in everything.statements if s.init is not None and s.init != s.verdict]
    if init_wrong:
        print(f"\n{len(init_wrong)} statements whose verdict from init's unedited draft is not the labelled one:")
        for s in init_wrong:
            print(f"  {s.text}: labelled {s.verdict}, init's draft says {s.init} — {s.quote[:80]!r}")
    if patches is not None and (patches.damaged or patches.unclean):
        print("\npatches that damaged the text or left the rerun unclean:")
        for name, why in {**patches.unclean, **patches.damaged}.items():
            print(f"  {name}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
