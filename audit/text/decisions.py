"""The decision a sentence words about a significance test, and the α it states: one reader for every stage that
needs them (init drafting a claim's ``decision``, the patch asking whether words beside a moved p turn false).

``worded_decision``: "not significant", "no significant", "insignificant", "fail to reject", "cannot reject",
"little evidence", "straddles zero" → not significant; "significant(ly)", "we reject", "is rejected", "clears",
"excludes zero" → significant; words of a decision this reader does not read ("a clear win", "strong evidence",
"would count as") → ``unread``; none → None. Negation is read before assertion, so "fail to reject" is never the
"reject" inside it.
"""

from __future__ import annotations

import re
from fractions import Fraction

NOT_SIGNIFICANT = re.compile(r"\bnot\s+(?:\w+\s+){0,2}significant|\bno\s+significant|\binsignificant|"
                             r"\bfail(?:s|ed)?\s+to\s+reject|\bcannot\s+reject|\bdo(?:es)?\s+not\s+reject|"
                             r"\bstraddles\s+zero|\b(?:includes|contains)\s+zero", re.IGNORECASE)
SIGNIFICANT = re.compile(r"\bsignificant(?:ly)?\b|\bwe\s+reject\b|\bis\s+rejected\b|\bclears?\b|\bexcludes\s+zero",
                         re.IGNORECASE)
#: "little evidence", "the evidence is weak", "cannot separate it from noise": a not-significant decision in words.
WEAK = re.compile(r"\b(?:little|weak|no\s+real|not\s+much)\s+evidence\b|\bevidence\s+is\s+weak\b|"
                  r"\bcannot\s+(?:separate|distinguish|tell)\b[^.;]*?\bfrom\s+(?:noise|chance)\b", re.IGNORECASE)
#: Words of a decision not read here: a sentence using them is left to its author.
UNREAD = re.compile(r"\bwin\b|\bevidence\b|\bweak\b|\bstrong\b|\bconvincing\b|\bnoise\b|\bwould\b|\bcould\b|\bmight\b",
                    re.IGNORECASE)
_ALPHA = re.compile(r"(?:α|\balpha)\s*=\s*(?P<a>0?\.\d+)|\b(?P<pct>\d+(?:\.\d+)?)\s*%\s*(?:level|bar|threshold)|"
                    r"\bat\s+(?P<pct2>\d+(?:\.\d+)?)\s*%", re.IGNORECASE)


def worded_decision(sentence: str) -> str | None:
    """``significant``, ``not significant``, ``unread`` or None (see the module doc)."""
    if UNREAD.search(WEAK.sub(" ", sentence)):
        return "unread"
    if NOT_SIGNIFICANT.search(sentence) or WEAK.search(sentence):
        return "not significant"
    if SIGNIFICANT.search(sentence):
        return "significant"
    return None


def decision_at(sentence: str) -> tuple[int, int] | None:
    """Where the sentence words its decision (the span of the words read: "significantly", "fail to reject"), or
    None."""
    m = NOT_SIGNIFICANT.search(sentence) or WEAK.search(sentence) or SIGNIFICANT.search(sentence)
    return m.span() if m else None


def stated_alpha(text: str) -> str | None:
    """The last α ``text`` states ("α = 0.01", "the 5 % level", "our 1 % bar", "at 5 %"), as a decimal text."""
    found = list(_ALPHA.finditer(text))
    if not found:
        return None
    m = found[-1]
    if m.group("a"):
        return m.group("a") if m.group("a").startswith("0") else "0" + m.group("a")
    value = Fraction(m.group("pct") or m.group("pct2")) / 100
    return str(float(value)) if value < 1 else None
