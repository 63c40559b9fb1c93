"""Words of a sentence whose truth hangs on a number the patch changes, though no claim encodes them: the conclusion
drawn from a p-value ("significantly"), an effect's size in words ("a small effect"), sameness ("the same 0.375") and a
comparison the number no longer bears ("the randomisation test is more forgiving: p = 0.19"). A hunk that would leave
such words beside its new number is not written: the finding gives the value, and the author words the sentence.
"""

from __future__ import annotations

import re
from fractions import Fraction

from audit.text.decisions import decision_at, worded_decision

_NUMBER = re.compile(r"(?<![\w.])[-−]?(?:\d+\.\d+|\.\d+|\d+)(?![\w.]*\d)")
_P_VALUE = re.compile(r"\bp\s*(?:=|<|≤|≈)\s*(?P<p>0?\.\d+)")
_EFFECT = re.compile(r"\b(?P<size>negligible|trivial|small|medium|moderate|large|huge|big)\b(?:\s+\w+)?\s+"
                     r"(?:effect|difference|improvement|gain)\b", re.IGNORECASE)
#: Words saying the number equals another: "the same 0.375", "the same value as", "unchanged at 0.4", "identical to".
_SAME = re.compile(r"\bthe\s+same\s+(?:value|score|number|figure|result|mean|MRR|MAP|AP|nDCG|[\d.]+)\b|"
                   r"\b(?:identical|equal)\s+to\b|\bunchanged\b|\bas\s+before\b|\bno\s+change\b", re.IGNORECASE)
_COMPARED = re.compile(r"\b(?:more|less)\s+(?:forgiving|lenient|strict|conservative|powerful|sensitive|generous|"
                       r"optimistic|pessimistic)\b|\b(?:highest|lowest|largest|smallest|best|worst|strongest|weakest)\b",
                       re.IGNORECASE)
#: Cohen's (1988) conventional sizes of d, each from its lower bound.
_COHEN = ((Fraction(0), "negligible"), (Fraction(1, 5), "small"), (Fraction(1, 2), "medium"), (Fraction(4, 5), "large"))
_SIZE_WORD = {"negligible": "negligible", "trivial": "negligible", "small": "small", "medium": "medium",
              "moderate": "medium", "large": "large", "huge": "large", "big": "large"}
ALPHA = Fraction(1, 20)


def _numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def _cohen(value: Fraction) -> str:
    return [name for bound, name in _COHEN if abs(value) >= bound][-1]


def _fraction(text: str) -> Fraction | None:
    try:
        return Fraction(text.replace("−", "-"))
    except (ValueError, ZeroDivisionError):
        return None


def at_stake(before: str, after: str, changes: list[tuple[str, str]]) -> str:
    """Why the words of ``after`` (the sentence as the patch writes it; ``before`` as printed) would be false beside
    the new numbers of ``changes`` (``(old text, new text)`` of each edit), or '' when none is at stake."""
    new_numbers = [n for _, new in changes for n in _numbers(new) if n not in _numbers(before)]
    if not new_numbers:
        return ""
    # the conclusion drawn from a p the patch moves across α, in words the patch keeps
    old_p = [_fraction(m.group("p")) for m in _P_VALUE.finditer(before)]
    new_p = [_fraction(m.group("p")) for m in _P_VALUE.finditer(after)]
    if len(old_p) == len(new_p) == 1 and None not in old_p + new_p and (old_p[0] < ALPHA) != (new_p[0] < ALPHA):
        decided = worded_decision(after)
        # the words left beside the new p: "significantly" at p = .12, "not significant" (or "we fail to reject") at
        # p = .003; words of a decision not read (a clear win) are at stake too
        if decided == "unread" or (decided is not None and (new_p[0] < ALPHA) != (decided == "significant")):
            at = decision_at(after)
            said = after[at[0]:at[1]] if at is not None else "its conclusion"
            return f"the sentence still says “{said}” with the corrected p on the other side of α = 0.05"
    # an effect's size in words beside a number the patch changes (Cohen's conventions: 0.2 small, 0.5 medium, 0.8
    # large)
    for m in _EFFECT.finditer(after):
        near = [n for n in new_numbers if n in after[max(0, m.start() - 40):m.end() + 40]]
        for n in near:
            value = _fraction(n)
            if value is not None and _cohen(value) != _SIZE_WORD[m.group("size").lower()]:
                return (f"the sentence calls {n} “{m.group(0)}”, which by Cohen's conventions (0.2 small, 0.5 medium, "
                        f"0.8 large) it is not")
    around = [after[max(0, at - 80):at + len(n) + 80] for n in new_numbers for at in [after.find(n)] if at >= 0]
    for window in around:
        same = _SAME.search(window)
        if same:
            return f"the sentence calls the corrected number “{same.group(0)}” as another it prints or implies"
        compared = _COMPARED.search(window)
        if compared:
            return (f"the sentence compares in words (“{compared.group(0)}”) what the corrected number may no longer "
                    "bear out")
    return ""
