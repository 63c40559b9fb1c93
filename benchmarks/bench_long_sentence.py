"""The scanner and ``init``'s drafting on one sentence printing the same value again and again ("P@1 = 1/2, "
repeated to each length given), the shape of a per-query table flattened into prose.

For each length: the scanner (``scan_text``), the split into statements (``coverage.statements``) and the whole
drafting of the register (``init.draft_register``: encoding, conventions), best of three runs (one for the
drafting). Each should double when the length doubles.

Run from the project root: ``PYTHONPATH=. python benchmarks/bench_long_sentence.py [LENGTH ...]`` (default 1000 2000
4000 8000 16000); another checkout is timed by putting it first on PYTHONPATH.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH: another checkout can be timed

from audit.text import coverage
from audit.text.chapter import Snapshot
from audit.draft.init import draft_register
from audit.text.scan import scan_text


def best(fn, repeat: int = 3):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> int:
    lengths = [int(a) for a in sys.argv[1:]] or [1000, 2000, 4000, 8000, 16000]
    folder = Path(tempfile.mkdtemp())
    (folder / "warm.txt").write_text("P@1 = 1/2.\n", encoding="utf-8")
    draft_register(Snapshot.read(folder / "warm.txt"))  # one-time set-up (compiled patterns) outside the timings
    for n in lengths:
        line = ("P@1 = 1/2, " * (n // 11 + 1))[:n] + "\n"
        path = folder / f"ch{n}.txt"
        path.write_text(line, encoding="utf-8")
        snapshot = Snapshot.read(path)
        scanned, found = best(lambda: scan_text(line))
        split, parts = best(lambda: [p for s in found for p in coverage.statements(s)])
        drafted, _ = best(lambda: draft_register(snapshot), 1)
        print(f"{n:7,d} chars: scan_text {scanned * 1000:7.1f} ms  coverage.statements {split * 1000:7.1f} ms "
              f"({len(parts):,} statements)  draft_register {drafted * 1000:8.1f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
