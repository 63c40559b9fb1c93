"""Evaluation conventions a chapter's wording states, recognised for ``audit init``.

``WORDINGS`` is the one table: each row is a convention (``audit.register.conventions``), the value a
wording sets, and a pattern for that wording. ``stated_in`` reads one unit of text (a sentence,
list item or table row from ``audit.text.scan.units``); ``declare`` reads a chapter's units and
returns the ``conventions:`` mapping for ``chapter.yaml``, each statement with its quote.

Two rules keep the reading honest:

* a unit that names two values of one convention is describing the alternatives ("scored with
  unjudged documents as zero …; dropping them first leaves the condensed list …"), so neither is
  declared from it;
* two different values of one convention stated in different units are both written: that is an
  internal tension, which the audit reports with both quotes.

A wording that does not settle a value is not read as one: "the ideal order sorts the judged
documents" leaves open whether the ideal DCG is cut at k, and "ties are broken by docno" without
a direction leaves open which way; neither is declared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from audit.register.conventions import CONVENTIONS

_I = re.IGNORECASE
_RELEVANT = r"(?:relevant|positive)"
_DOC = r"(?:documents?|docs?|results?|passages?|chunks?|items?|IDs?|products?|pages?|records?|hits?)"
_K = r"(?:k|\d+|the\s+(?:requested\s+)?cutoff(?:\s+k)?)"

#: (convention, value, pattern). A row lists its pattern in pieces, joined. ``value`` None: the pattern's ``level`` group gives the relevance
#: level (``grade 2 or more`` → 2; ``grade above 1`` → 2 through the ``above`` group).
WORDINGS: tuple[tuple[str, str | None, re.Pattern], ...] = tuple(
    (name, value, re.compile("".join(parts), _I)) for name, value, *parts in (
        # --- the evaluated prefix and repeated IDs ------------------------------------------------
        ("prefix", "first k distinct IDs", r"\bfirst\s+k\s+distinct\s+(?:IDs?|documents?|results?)"),
        ("prefix", "first k results", r"\bfirst\s+k\s+(?:positions|results),\s+(?:repeats|duplicates)\s+included"),
        ("repeated_ids", "reject", r"\brejects?\s+(?:any\s+|a\s+|the\s+)?(?:ranking|run)s?\s+(?:that|which)\s+",
                                   r"repeats?|\brejects?\s+repeated\s+(?:result\s+)?(?:IDs?|docnos?|documents?)|",
                                   r"\brepeated\s+(?:result\s+)?(?:IDs?|docnos?)\s+(?:are|is)\s+(?:rejected|an\s+error)"),
        ("repeated_ids", "keep first", r"\bfirst\s+k\s+distinct\s+IDs|\bkeeps?\s+(?:only\s+)?the\s+first\s+",
                                       r"(?:copy|occurrence)|\brepeated\s+ID\s+(?:is\s+)?(?:counted|kept)\s+once,?\s+",
                                       r"at\s+its\s+first|\bde-?duplicat\w*\b[^.;]*\bfirst\s+(?:copy|occurrence)"),
        ("repeated_ids", "keep last", r"\bkeeps?\s+(?:only\s+)?the\s+last\s+(?:copy|occurrence|score)|",
                                      r"\brepeated\s+ID\s+(?:is\s+)?(?:counted|kept)\s+once,?\s+at\s+its\s+last"),
        ("repeated_ids", "count each", r"\b(?:every|each)\s+(?:copy|occurrence)\s+of\s+a\s+repeated\s+ID\s+",
                                       r"(?:counts|is\s+counted)"),
        # --- P@k's denominator ---------------------------------------------------------------------
        ("precision_denominator", "k", r"\bdivides?\s+by\s+k\b|\bdenominator\s+is\s+(?:the\s+)?",
                                       r"(?:requested\s+)?(?:cutoff\s+)?k\b|\bof\s+the\s+k\s+retrieved\b|",
                                       r"(?:^|\|\s*)k,\s+kept\s+even\s+when\s+fewer"),
        ("precision_denominator", "number returned",
         rf"\b(?:divides?|divided)\s+(?:the\s+relevant\s+results\s+)?by\s+the\s+number\s+of\s+{_DOC}\s+",
         r"(?:the\s+system\s+|it\s+|actually\s+)?(?:returned|retrieved)|\bdenominator\s+is\s+the\s+number\s+",
         rf"(?:of\s+{_DOC}\s+)?(?:returned|retrieved)"),
        ("precision_denominator", "min(k, |R|)", r"\bdivides?\s+by\s+the\s+smaller\s+of\s+k\s+and\b|",
                                                 r"\bmin\s*\(\s*k\s*,\s*\|R\|\s*\)"),
        # --- ties ------------------------------------------------------------------------------------
        ("ties", "listed order", r"\b(?:ties?|tied)\b[^.]*\b(?:keep|kept|preserves?|preserved|in)\s+(?:the\s+)?",
                                 r"(?:listed|reference|given|original|established\s+(?:full-)?reference)\s+order|",
                                 r"\bresolve\s+score\s+ties\s+using\s+the\s+(?:established\s+)?(?:full-)?reference\s+order|",
                                 r"\bunder\s+the\s+listed\s+order\b"),
        ("ties", "docno descending", r"\b(?:ties?|tied)\b[^.]*\bby\s+(?:docno|document\s+ID)s?,?\s+(?:in\s+)?descending|",
                                     r"\bdocno\s+descending\b|\breverse\s+(?:docno|document\s+ID)\s+order"),
        ("ties", "docno ascending", r"\b(?:ties?|tied)\b[^.]*\bby\s+(?:docno|document\s+ID)s?,?\s+(?:in\s+)?ascending|",
                                    r"\bdocno\s+ascending\b"),
        # --- unjudged documents -----------------------------------------------------------------------
        ("unjudged", "non-relevant", rf"\bunjudged\s+(?:{_DOC}|returns?)\s+(?:count|counts|are\s+counted|",
                                     r"are\s+treated|is\s+treated|are\s+scored|is\s+scored)\s+as\s+(?:not\s+relevant|",
                                     r"non-?relevant|irrelevant|zero|0)\b|\btreats?\s+(?:unknown\s+labels|unjudged\s+",
                                     rf"(?:{_DOC}|returns?))\s+as\s+(?:zero|0|non-?relevant|not\s+relevant)\b"),
        ("unjudged", "removed", rf"\bunjudged\s+{_DOC}\s+(?:are|is)\s+(?:removed|dropped|discarded)|",
                                rf"\b(?:removes?|drops?|discards?)\s+(?:the\s+)?unjudged\s+{_DOC}\s+",
                                r"(?:first|before)|\bscored\s+on\s+(?:the\s+)?condensed\s+lists?\b"),
        # --- nDCG -----------------------------------------------------------------------------------
        ("gain", "linear", r"\blinear\s+gain\b|\bgain\s+(?:is\s+)?(?:equal\s+to|=|equals|is)\s+(?:the\s+)?grade\b"),
        ("gain", "exponential", r"\bexponential\s+gain\b|\bgain\s+is\s+exponential\b|2\s*\^\s*(?:grade|g|rel)\s*",
                                r"[−-]\s*1\b|\b2\s*\*\*\s*(?:grade|g|rel)\s*[−-]\s*1\b"),
        ("ideal", "judged, cut at k", r"\bideal\b[^.]*\b(?:all|every)\s+judged\s+(?:grades?|documents?)[^.]*\b",
                                      r"(?:cut|truncated)\s+at\s+k\b|\bideal\s+DCG@k\s+for\s+the\s+same\s+judge?ments\b"),
        ("ideal", "judged, whole list", r"\bideal\b[^.]*\b(?:all|every)\s+judged\s+(?:grades?|documents?)[^.]*\b",
                                        r"not\s+cut\s+at\s+k\b"),
        ("ideal", "retrieved only", r"\bideal\b[^.]*\b(?:re-?sorts?|sorts?)\s+only\s+the\s+(?:retrieved|returned)\b"),
        # --- AP's denominator -----------------------------------------------------------------------------
        ("ap_denominator", "|R|", r"\b(?:average\s+precision|AP|MAP)\b[^.;]*\b(?:divides?|divided|normali[sz]e[sd]?|",
                                  r"averaged?)\s+(?:by|over)\s+(?:all\s+(?:(?:the|\w+)\s+)?|the\s+(?:total\s+)?number\s+of\s+",
                                  rf"(?:all\s+)?|\|R\|)(?:known[- ])?{_RELEVANT}\s+{_DOC}(?![^.;]*\b(?:retrieved|returned))|",
                                  r"\b(?:average\s+precision|AP)\b[^.;]*\b(?:divides?|divided)\s+by\s+\|R\|"),
        ("ap_denominator", "relevant retrieved", r"\b(?:average\s+precision|AP|MAP)\b[^.;]*\b(?:divides?|divided|",
                                                 r"averaged?)\s+(?:by|over)\s+(?:the\s+(?:number\s+of\s+)?)?",
                                                 rf"{_RELEVANT}\s+{_DOC}\s+(?:retrieved|returned|found)"),
        ("ap_denominator", "min(k, |R|)", r"\b(?:average\s+precision|AP)\b[^.;]*\b(?:divides?|divided)\s+by\s+",
                                          r"min\s*\(\s*k\s*,\s*\|R\|\s*\)"),
        # --- GMAP's floor ----------------------------------------------------------------------------------
        ("gmap_floor", "0.00001", r"\b(?:replaces?|floors?|floored|clamps?|raises?)\b[^.;]*\b(?:AP|average\s+precision)"
                                  r"\b[^.;]*\b(?:0\.00001|1e-5|10\^-5|10⁻⁵)|\b(?:AP|average\s+precision)\s+of\s+0\s+"
                                  r"(?:is\s+)?(?:replaced|floored|raised)\s+(?:by|to|at)\s+0\.00001"),
        # --- relevance level ----------------------------------------------------------------------------
        ("relevance_level", None, rf"\b(?:counts?\s+as|is|are|considered)\s+{_RELEVANT}\s+when\s+(?:its|their|the)\s+",
                                  r"grades?\s+(?:is\s+)?(?P<level>[123])\s+or\s+(?:more|higher|above)|\bgrades?\s*",
                                  r"(?:≥|>=|of\s+at\s+least|at\s+least)\s*(?P<level2>[123])\s+(?:counts?|is|are)\s+",
                                  rf"(?:as\s+)?{_RELEVANT}|\bgrades?\s+above\s+(?P<above>[012])\s+(?:counts?|is|are)\s+",
                                  rf"(?:as\s+)?{_RELEVANT}|\bknown\s+positive\s+relevance\s+grade"),
        # --- RR's cutoff --------------------------------------------------------------------------------
        ("rr_cutoff", "applied", rf"\b(?:M?RR|(?:mean\s+)?reciprocal\s+rank)\s*@\s*{_K}\b[^.]*\b(?:counts?\s+only|only\s+",
                                 r"counts?|looks?\s+only\s+at|within)\s+the\s+first\b|\b(?:M?RR|reciprocal\s+rank)\b",
                                 rf"[^.]*\bcounts?\s+only\s+the\s+first\s+(?:k|\d+|{_DOC})"),
        ("rr_cutoff", "ignored", r"\b(?:M?RR|reciprocal\s+rank)\b[^.]*\b(?:has\s+no\s+cutoff|ignores?\s+the\s+cutoff|",
                                 r"on\s+the\s+whole\s+ranking)"),
        # --- averaging over queries ----------------------------------------------------------------------
        ("averaging", "queries with results", r"\baverag\w*\s+over\s+(?:the\s+)?(?:queries|needs|questions)\s+",
                                              r"(?:that\s+)?(?:returned\s+results|with\s+results)"),
        ("averaging", "all judged queries", r"\baverag\w*\s+(?:\w+\s+)?(?:over|across)\s+(?:all|every)\s+(?:the\s+)?",
                                            r"(?:judged\s+|labell?ed\s+)?(?:queries|query|needs?|questions?)\b|",
                                            r"\baverage\s+each\s+over\s+the\s+labell?ed\s+set\b"),
        ("averaging", "pooled", r"\bpooled\s+over\s+(?:the\s+)?(?:queries|needs|questions)\b"),
        # --- a query with no relevant document -----------------------------------------------------------
        ("no_relevant", "scores 0", r"\b(?:query|need|question)s?\s+(?:with|that\s+ha(?:s|ve))\s+no\s+relevant\s+",
                                    rf"{_DOC}[^.;]*\bscores?\s+(?:0|zero)\b"),
        ("no_relevant", "left out", r"\b(?:query|need|question)s?\s+(?:with|that\s+ha(?:s|ve))\s+no\s+relevant\s+",
                                    rf"{_DOC}[^.;]*\b(?:is|are)\s+(?:left\s+out|dropped|excluded|skipped)\b"),
    ))


def _value(name: str, value: str | None, m: re.Match) -> str | None:
    if value is not None:
        return value
    groups = m.groupdict()
    if groups.get("level") or groups.get("level2"):
        return groups.get("level") or groups.get("level2")
    if groups.get("above") is not None:
        return str(int(groups["above"]) + 1)
    return "1"  # "a known positive relevance grade": any grade above 0


def stated_in(text: str) -> dict[str, tuple[str, int]]:
    """The conventions one unit of text states: ``{name: (value, offset of the wording)}``.

    A unit naming two values of one convention contrasts them and states neither. Values are
    checked against ``audit.register.conventions`` (a row giving an unknown value is a bug in the table)."""
    found: dict[str, dict[str, int]] = {}
    for name, value, pattern in WORDINGS:
        for m in pattern.finditer(text):
            v = _value(name, value, m)
            assert v in CONVENTIONS[name].values, (name, v)
            found.setdefault(name, {}).setdefault(v, m.start())
    return {name: next(iter(values.items())) for name, values in found.items() if len(values) == 1}


def quote_of(text: str, offset: int) -> str:
    """The clause of ``text`` around ``offset`` that states the convention: the unit cut at the
    ``;``/``:`` or sentence boundary on either side, trimmed (an exact substring of ``text``)."""
    starts = [m.end() for m in re.finditer(r"[;:]\s|[.?!]\s+(?=[A-Z])", text) if m.end() <= offset]
    a = starts[-1] if starts else 0
    stop = re.compile(r"[;:](?=\s)|[.?!](?=\s+[A-Z]|\s*$)").search(text, offset)
    b = stop.start() if stop else len(text)
    return text[a:b].strip()


def declare(units: Iterable[str]) -> dict[str, list[dict[str, str]]]:
    """``conventions:`` for ``chapter.yaml`` from the units of a chapter, in reading order: each
    convention a list of ``{value, quote}``, one per distinct value (two values: an internal
    tension; both are written)."""
    out: dict[str, list[dict[str, str]]] = {}
    for text in units:
        for name, (value, offset) in stated_in(text).items():
            stated = out.setdefault(name, [])
            if all(s["value"] != value for s in stated):
                stated.append({"value": value, "quote": quote_of(text, offset)})
    return {name: out[name] for name in CONVENTIONS if name in out}


def as_yaml_mapping(declared: dict[str, list[dict[str, str]]]) -> dict[str, object]:
    """One statement → ``{value, quote}``; several → the list (the register accepts both)."""
    return {name: stated[0] if len(stated) == 1 else stated for name, stated in declared.items()}
