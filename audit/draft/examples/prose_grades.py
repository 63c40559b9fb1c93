"""A list of grades written straight after the word that names it, in a sentence about a ranking: "ERR@3 for the top
three grades 2, 0, 3", "six results with relevance 3, 2, 3, 0, 1, 2", "the ranked judgements 1, 0, 1, 1". (A list
after a verb or a colon, "the grades are 4, 3, 1, 0", or in brackets or code, is ``grade_list``'s.)

A list of grades that says which grades count ("grades 2, 3 and 4 count as relevant", "grades 0, 1, 2 and 3 on a
four-point scale") is no ranking; nor is a list whose length disagrees with the count the sentence gives it ("the
top five grades 2, 0, 3"). "The top three grades" make the example the ranking's first three ranks only."""

from __future__ import annotations

import re

from audit.draft.examples.example import Example
from audit.text.stated import DIGITS

_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                 "eleven": 11, "twelve": 12}
_COUNT = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"

_LISTED = re.compile(
    rf"\b(?:(?P<top>top|first)\s+(?P<n>{_COUNT})\s+)?(?:(?:ranked|retrieved|returned)\s+)?"
    r"(?:relevance\s+(?:grades|labels|judge?ments)|grades|relevance|judge?ments|labels|gains)\s+"
    r"(?P<list>\d{1,2}(?:\s*,\s*\d{1,2}){2,}(?:,?\s+and\s+\d{1,2})?)(?![\d/]|\.\d|\s*(?:/|%))",
    re.IGNORECASE)
#: After the list: a rule saying which grades count, or a scale, not a ranking.
_WHICH_COUNT = re.compile(r"^\W{0,3}(?:\w+\s+){0,3}?(?:counts?|counted|count\s+as|are\s+(?:relevant|treated|considered)|"
                          r"as\s+relevant|or\s+(?:higher|more|above)|(?:on|of)\s+(?:a|the)\b[^.]{0,20}\bscale)\b",
                          re.IGNORECASE)
_SCALE = re.compile(r"\b(?:scale|levels|point|possible|range)\b", re.IGNORECASE)
#: The sentence speaks of a ranking: its rank order, results, a cutoff or a measure.
_RANKING = re.compile(r"\b(?:top|ranks?|ranked|ranking|order|results?|retrieved|returned|list)\b|@\d|\b(?:n?DCG|ERR|"
                      r"RBP|AP|P|RR)\b", re.IGNORECASE)
_MAX_GRADE = 10


def _sentence(text: str, a: int, b: int) -> str:
    start = max(text.rfind(". ", 0, a), text.rfind("\n\n", 0, a)) + 1
    ends = [e for e in (text.find(". ", b), text.find("\n\n", b)) if e != -1]
    return text[start:min(ends) if ends else len(text)]


def find(text: str) -> list[Example]:
    """Each list of grades written after its name in a sentence about a ranking, as an example: the whole ranking,
    or its first n ranks when the sentence says "the top n"."""
    out = []
    for m in _LISTED.finditer(text):
        grades = [int(x) for x in DIGITS.findall(m.group("list"))]
        if max(grades) > _MAX_GRADE or _WHICH_COUNT.match(text[m.end():m.end() + 60]):
            continue
        sentence = _sentence(text, m.start(), m.end())
        if _SCALE.search(sentence) or not _RANKING.search(sentence):
            continue
        if "ideal" in text[max(0, m.start() - 40):m.start()].lower():
            continue   # the ideal's grades, not a ranking (``grade_list.ideals`` reads those)
        top = m.group("top")
        if top:
            word = m.group("n").lower()
            n = int(word) if word.isdigit() else _NUMBER_WORDS[word]
            if n != len(grades):
                continue   # "the top five grades 2, 0, 3": the count and the list disagree
        ranking = [(f"d{i + 1}", g) for i, g in enumerate(grades)]
        out.append(Example("grade list", m.start("list"), m.end("list"), text.count("\n", 0, m.start()) + 1, ranking,
                           whole=not top))
    return out
