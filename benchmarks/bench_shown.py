"""``visible`` and ``visible_lines`` (audit/report/shown.py) on a large text with scattered control and format
characters, and on the same size of plain text.

The text is about 1 MB: prose lines with, every few hundred characters, an escape sequence, a tab, a newline,
a right-to-left override, a zero-width joiner, a C1 control, a lone surrogate or a tag character;
then the same size of plain prose, and of those characters alone. Each function is
run ``--repeat`` times and the best wall time is printed.

Run from the project root: ``python benchmarks/bench_shown.py [--size BYTES] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH: another checkout can be timed

from audit.report.shown import visible, visible_lines

_ODD = ["\x1b[2J", "\t", "\n", "\u202e", "\u200d", "\x85", "\ud800", "\U000E0041", "\x7f", "\u2028", "\x00"]
_PROSE = "Recall at cutoff k = 10 is the share of judged relevant documents retrieved in the top ten. "


def text(size: int, odd: bool | None, seed: int = 7) -> str:
    """``size`` characters of prose with a control or format character after each piece (``odd``), none
    (``False``), or only such characters (``None``)."""
    rng = random.Random(seed)
    if odd is None:
        return "".join(rng.choice(_ODD) for _ in range(size))[:size]
    out, n = [], 0
    while n < size:
        piece = _PROSE[: rng.randint(20, len(_PROSE))]
        if odd:
            piece += rng.choice(_ODD)
        out.append(piece)
        n += len(piece)
    return "".join(out)[:size]


def best(fn, value: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(value)
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    visible("warm")  # any one-time set-up outside the timings
    visible_lines("warm")
    for label, odd in (("scattered escapes", True), ("plain text", False), ("escapes only", None)):
        value = text(args.size, odd)
        for fn in (visible, visible_lines):
            print(f"{fn.__name__:14s} {label:18s} {len(value):>9,d} chars  {best(fn, value, args.repeat) * 1000:9.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
