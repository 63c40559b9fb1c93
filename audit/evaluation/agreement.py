"""When two implementations' per-query values are the same: the test every cause experiment and convention probe
uses (``audit.attribution.causes``, ``audit.evaluation.observe``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

PerQuery = Mapping[str, float | Fraction]

#: References return doubles, the chapter exact fractions: values this close are the same number.
TOLERANCE = 1e-6


def agree(a: PerQuery, b: PerQuery) -> bool:
    """Same queries, values within 1e-6 (references return doubles; the chapter exact fractions); a reference value
    printed to five decimals (gdeval.pl, ir-measures' ERR) agrees with any value that rounds to it."""
    return set(a) == set(b) and all(abs(float(a[q]) - float(b[q])) <= max(TOLERANCE, _printed(a[q]), _printed(b[q]))
                                    for q in a)


def _printed(v) -> float:
    """Half a unit of the fifth decimal when ``v`` is a float with at most five decimals, else 0."""
    if not isinstance(v, float) or not math.isfinite(v):
        return 0.0
    scaled = v * 100_000
    return 0.000005 if abs(scaled - round(scaled)) < 1e-6 else 0.0
