"""The words of a worked example: a count in digits or words ("4", "forty-three"), an ordinal rank ("the third"),
a list of ranks ("2, 3 and 6"), and the nouns a text counts documents with. ``audit.draft.encode`` and the worked-example
parsers (``audit.draft.examples``) read examples with them."""

from __future__ import annotations

import re

from audit.text.scan import TENS, UNITS, WORD_NUMBER
from audit.text.stated import DIGITS

_ORDINAL_POSITION = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                     "eighth": 8, "ninth": 9, "tenth": 10}


def number(text: str) -> int | None:
    """``"4"`` or ``"four"`` or ``"forty-three"`` → int; ``None`` otherwise."""
    t = text.strip().lower()
    if t.isdigit():
        return int(t)
    if t in UNITS:
        return UNITS.index(t)
    parts = t.split("-")
    if parts[0] in TENS:
        base = 20 + 10 * TENS.index(parts[0])
        if len(parts) == 1:
            return base
        if len(parts) == 2 and parts[1] in UNITS[1:10]:
            return base + UNITS.index(parts[1])
    return None


def _list(text: str) -> list[int]:
    """``"2, 3 and 6"`` → [2, 3, 6]."""
    return [int(x) for x in DIGITS.findall(text)]


_LIST = r"\d+(?:\s*(?:,\s*and|,|and|&)\s*\d+)*"
_N = rf"(?:\d+|{WORD_NUMBER})"
_DOCS = r"(?:documents?|results?|items?|passages?|chunks?|docs?)"
_NEEDS = re.compile(rf"\b(?:(?P<q>{_N})\s+(?:needs|questions|queries)|needs|questions|queries)\b[^.;]*?"
                    rf"\bat\s+ranks\s+(?P<list>{_LIST})", re.IGNORECASE)


#: A query's label opening a line or a clause ("Query 2:", "Q3 —", "- topic 401:"): a statement holding two is about
#: several queries, each its own ranking.
QUERY_LABEL = re.compile(r"(?:^|\n|[.;]\s)\s*(?:[-*•]\s*)?(?:query|q|topic|question)\s*#?\s*(\d+)\s*[:—–-]",
                         re.IGNORECASE)
