"""A correction for multiple comparisons a text applies to a table of raw p-values: reports print the family's raw
p-values in a table (``| system | raw p |``), then correct them in prose — "Bonferroni's correction … leaves RM3 at
.044", "DeepCT's Holm-adjusted p-value is .034, while CPRF's is .084", "After Bonferroni correction only monoBERT
and RM3 remain significant at α = .05".

Each adjusted p a sentence prints for a comparison the table names becomes a statistic claim (``test: bonferroni``
or ``holm``, the table's p-values as its data), quoting the comparison's own words; a sentence that says which
comparisons stay significant becomes one whose ``significant`` lists them — only when it places every comparison of
the table (by name, or with "only" for the rest). The method is the one the sentence names; a sentence naming both,
or neither, is left to the author. The table is the last p-value table before the sentence with no heading
between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from audit.text.decisions import stated_alpha

_HEADING = re.compile(r"^\s*#{1,6}\s", re.MULTILINE)
_P_HEADER = re.compile(r"^(?:raw\s+|unadjusted\s+|uncorrected\s+)?p(?:[-\s]?values?)?$", re.IGNORECASE)
_P = r"(?:0?\.\d+|1(?:\.0+)?|0)"
_METHODS = (("bonferroni", re.compile(r"\bbonferroni", re.IGNORECASE)),
            ("holm", re.compile(r"\bholm\b", re.IGNORECASE)))
_NOT = re.compile(r"\b(?:not|no\s+longer|fails?\s+to|neither|nor)\b", re.IGNORECASE)


@dataclass
class PTable:
    """A table of raw p-values: where it is, its first line, and each comparison's printed p."""

    start: int
    end: int
    line: int
    p_values: dict[str, str]


def find(text: str) -> list[PTable]:
    """Every two-column table of ``text`` whose second column is headed as raw p-values and whose rows name a
    comparison and print its p."""
    from audit.text.markdown import pipe_tables
    out = []
    for start, end, first, rows in pipe_tables(text):
        if len(rows) < 4 or not re.fullmatch(r"[\s:|-]+", rows[1]):
            continue
        head = [c.strip().strip("*_` ") for c in rows[0].strip().strip("|").split("|")]
        if len(head) != 2 or not _P_HEADER.match(head[1]):
            continue
        values: dict[str, str] = {}
        for row in rows[2:]:
            cells = [c.strip().strip("*_` ") for c in row.strip().strip("|").split("|")]
            if len(cells) != 2 or not re.fullmatch(_P, cells[1]) or not re.search(r"[A-Za-z]", cells[0]) \
                    or cells[0] in values:
                values = {}
                break
            values[cells[0]] = cells[1]
        if len(values) >= 2:
            out.append(PTable(start, end, first + 1, values))
    return out


def _named(sentence: str, name: str) -> list[re.Match]:
    return list(re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", sentence))


def drafts(sentence: str, start: int, text: str) -> list[dict] | None:
    """The correction claims of ``sentence`` (at offset ``start`` of ``text``) on the p-value table it corrects;
    None when it corrects none, or leaves its method unsaid."""
    methods = [name for name, pattern in _METHODS if pattern.search(sentence)]
    if len(methods) != 1:
        return None
    before = [t for t in find(text) if t.end <= start]
    if not before or _HEADING.search(text, before[-1].end, start):
        return None
    table, method = before[-1], methods[0]
    base = {"kind": "statistic", "test": method, "data": {"p_values": dict(table.p_values)}}
    alpha = stated_alpha(sentence)
    described = "Bonferroni" if method == "bonferroni" else "Holm"
    out = []
    for name in table.p_values:
        for m in _named(sentence, name):
            v = re.compile(rf"(?:'s)?(?:\s+[\w-]+){{0,3}}?\s+(?:is|was|at|of|becomes|rises\s+to|goes\s+to|moves\s+to)"
                           rf"\s+(?:p\s*=\s*)?(?P<v>{_P})(?![\d/])").match(sentence, m.end())
            if v is None or re.search(r"\braw\b|\bunadjusted\b|significan|\blevel\b|α|\balpha\b|\bthreshold\b",
                                      sentence[m.end():v.start("v")], re.IGNORECASE):
                continue
            claim = {**base, "quote": sentence[m.start():v.end()],
                     "claim": f"{described}'s adjusted p of {name} over the {len(table.p_values)} p-values of the "
                              f"table at line {table.line} is {v.group('v')}",
                     "expect": [{"statistic": "adjusted p", "comparison": name, "claimed": v.group("v")}]}
            out.append(claim)
            break
    stays = _significant(sentence, list(table.p_values))
    if stays is not None:
        claim = {**base, "quote": sentence.strip().rstrip("."),
                 "claim": f"after {described}'s correction of the table at line {table.line}, the comparisons "
                          f"significant are {', '.join(stays) or 'none'}", "significant": stays}
        out.append(claim)
    for claim in out:
        if alpha:
            claim["alpha"] = alpha
    return out or None


def _significant(sentence: str, names: list[str]) -> list[str] | None:
    """The comparisons ``sentence`` says stay significant, when it places every one of ``names``: those it lists
    before "are significant" ("remain significant"), the rest listed before "are not" or left out by "only"; a
    comparison named anywhere else, or a negation not read, leaves the sentence to the author."""
    if not re.search(r"\bsignificant\b", sentence, re.IGNORECASE):
        return None
    one = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    listed = rf"(?:{one})(?:(?:,\s*|,?\s+and\s+|,?\s+or\s+|,?\s+nor\s+)(?:{one}))*"
    negated = re.compile(rf"(?:\bneither\s+)?{listed}\s+(?:is|are|was|were|does|do|did)\s+(?:not|no\s+longer)\b|"
                         rf"\bneither\s+{listed}", re.IGNORECASE)
    no = {n for m in negated.finditer(sentence) for n in names if _named(m.group(0), n)}
    rest = negated.sub(" ", sentence)
    if _NOT.search(rest):
        return None   # a negation this reader does not place
    positive = re.compile(rf"{listed}\s+(?:is|are|was|were|remains?|stays?)\s+(?:still\s+|also\s+)?significant\b",
                          re.IGNORECASE)
    yes = {n for m in positive.finditer(rest) for n in names if _named(m.group(0), n)}
    if any(_named(rest, n) for n in names if n not in yes):
        return None   # a comparison named elsewhere in the sentence ("unlike Hybrid, …")
    if yes & no or not yes and not no:
        return None
    if yes | no != set(names):
        if not re.search(r"\bonly\b", sentence, re.IGNORECASE) or no:
            return None
    return [n for n in names if n in yes]
