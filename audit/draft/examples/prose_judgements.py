"""A query's judgements and ranking told in words, as lab sheets and lecture notes set up their example: a grade scale
("3 = perfect, 2 = good, 1 = fair, 0 = bad"), the documents judged at each grade ("A and H are perfect, B and C
good, D and E fair, F and G bad") and the ranking ("Your system returned B, F, A, U, D, C, G, E, in that order").
A returned document the judgements do not name is unjudged; a judged one the ranking does not hold is a judged
document left unretrieved, so the example states every judged grade (the ideal ranking's) and |R|.

Read only when all three are in one paragraph or two adjacent ones and every judged document is named once. The
binary variant names a run of IDs ("D01 … D12"), the non-relevant ones ("D01 and D11 are judged non-relevant; the
other ten are judged relevant") and the ranking by its ends ("the same twelve documents, D01 first and D12 last")."""

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


#: A run of IDs written as its ends: "D01 … D12", "d1 to d10".
_RANGE = re.compile(r"\b(?P<p>[A-Za-z]{1,4})(?P<a>\d{1,4})\s*(?:…|\.\.\.|–|\bto\b)\s*(?P=p)(?P<b>\d{1,4})\b")
_NONRELEVANT = re.compile(rf"(?P<ids>{_ID}(?:\s*(?:,|and)\s*{_ID})*)\s+(?:are|is)\s+(?:judged\s+)?non-?relevant\b")
_OTHERS_RELEVANT = re.compile(r"\bthe\s+(?:other|remaining|rest)\b[^.;]{0,20}?\b(?:are|is)\s+(?:judged\s+)?relevant\b",
                              re.IGNORECASE)
_FIRST_LAST = re.compile(rf"\b(?:same|all)\b[^.;]{{0,40}}?(?P<first>{_ID})\s+first\s+and\s+(?P<last>{_ID})\s+last\b")


def _binary(part: str, a: int, b: int, text: str) -> Example | None:
    """The binary variant told in words: "twelve judged documents, D01 … D12. D01 and D11 are judged non-relevant;
    the other ten are judged relevant", and the run "the same twelve documents, D01 first and D12 last"."""
    span = _RANGE.search(part)
    non = _NONRELEVANT.search(part)
    order = _FIRST_LAST.search(part)
    if not (span and non and order and _OTHERS_RELEVANT.search(part)):
        return None
    width = len(span.group("a"))
    lo, hi = int(span.group("a")), int(span.group("b"))
    if not 2 <= hi - lo + 1 <= 1000:
        return None
    ids = [f"{span.group('p')}{n:0{width}d}" for n in range(lo, hi + 1)]
    negative = set(re.findall(_ID, non.group("ids")))
    if not negative <= set(ids):
        return None
    ranking = ids if (order.group("first"), order.group("last")) == (ids[0], ids[-1]) else (
        ids[::-1] if (order.group("first"), order.group("last")) == (ids[-1], ids[0]) else None)
    if ranking is None:
        return None
    judged = {d: 0 if d in negative else 1 for d in ids}
    return Example("judgements in prose", a, b, text.count("\n", 0, a) + 1, [(d, judged[d]) for d in ranking],
                   whole=True, judged=sorted(judged.values(), reverse=True), facts=[order.group(0)])


def find(text: str) -> list[Example]:
    out = []
    paragraphs = [(m.start(), m.end()) for m in re.finditer(r"(?:[^\n]|\n(?!\s*\n))+", text)]
    for i, (a, b) in enumerate(paragraphs):
        part = text[a:paragraphs[i + 1][1]] if i + 1 < len(paragraphs) else text[a:b]
        returned = _RETURNED.search(text, a, b)
        if returned is None:
            told = _binary(part, a, paragraphs[i + 1][1] if i + 1 < len(paragraphs) else b, text)
            if told is not None:
                out.append(told)
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
