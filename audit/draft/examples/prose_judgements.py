"""A query's judgements and ranking told in words, as lab sheets and lecture notes set up their example: a grade scale
("3 = perfect, 2 = good, 1 = fair, 0 = bad"), the documents judged at each grade ("A and H are perfect, B and C
good, D and E fair, F and G bad") and the ranking ("Your system returned B, F, A, U, D, C, G, E, in that order").
A returned document the judgements do not name is unjudged; a judged one the ranking does not hold is a judged
document left unretrieved, so the example states every judged grade (the ideal ranking's) and |R|.

Read only when all three are in one paragraph or two adjacent ones and every judged document is named once."""

from __future__ import annotations

import re

from audit.draft.examples.example import Example

_SCALE = re.compile(r"\b(?P<g>\d)\s*=\s*(?P<w>[a-z][a-z-]{1,20})\b", re.IGNORECASE)
_ID = r"\b(?:[A-Z]\d{0,3}|[a-z]\d{1,3}|d\d{1,4}|doc\d{1,4})\b"
_RETURNED = re.compile(rf"\b(?:returned|retrieved|ranked|ranks|returns|retrieves)\s+(?P<list>(?:{_ID})(?:\s*,\s*(?:and\s+)?"
                       rf"(?:{_ID})){{2,}})(?:,?\s+in\s+that\s+order)?")
_PARAGRAPH = re.compile(r"\n\s*\n")


def _scale(text: str) -> dict[str, int] | None:
    for sentence in re.split(r"(?<=[.:;])\s+", text):
        pairs = {m.group("w").lower(): int(m.group("g")) for m in _SCALE.finditer(sentence)}
        if len(pairs) >= 3 and len(set(pairs.values())) == len(pairs):
            return pairs
    return None


def _judged(text: str, scale: dict[str, int]) -> dict[str, int] | None:
    """Documents by grade from clauses like "A and H are perfect, B and C good": every clause names IDs and one
    word of the scale."""
    words = "|".join(map(re.escape, scale))
    clause = re.compile(rf"(?P<ids>(?:{_ID})(?:\s*(?:,|and)\s*(?:{_ID}))*)\s+(?:(?:are|is|was|were)\s+)?(?:judged\s+)?"
                        rf"(?P<w>{words})\b", re.IGNORECASE)
    out: dict[str, int] = {}
    for sentence in re.split(r"(?<=[.;])\s+", text):
        found = list(clause.finditer(sentence))
        if len(found) < 2:
            continue
        for m in found:
            for doc in re.findall(_ID, m.group("ids")):
                if doc in out:
                    return None   # a document given two grades: not read
                out[doc] = scale[m.group("w").lower()]
    return out if len(out) >= 3 else None


def find(text: str) -> list[Example]:
    out = []
    paragraphs = [(m.start(), m.end()) for m in re.finditer(r"(?:[^\n]|\n(?!\s*\n))+", text)]
    for i, (a, b) in enumerate(paragraphs):
        part = text[a:paragraphs[i + 1][1]] if i + 1 < len(paragraphs) else text[a:b]
        returned = _RETURNED.search(text, a, b)
        if returned is None:
            continue
        scale, judged = _scale(part), None
        if scale:
            judged = _judged(part, scale)
        if not judged:
            continue
        ranking = re.findall(_ID, returned.group("list"))
        if len(set(ranking)) != len(ranking) or sum(d in judged for d in ranking) * 2 < len(ranking):
            continue
        out.append(Example("judgements in prose", a, b, text.count("\n", 0, a) + 1,
                           [(d, judged.get(d)) for d in ranking], whole=True,
                           judged=sorted(judged.values(), reverse=True),
                           unretrieved={d: g for d, g in judged.items() if d not in ranking},
                           facts=[returned.group(0)]))
    return out
