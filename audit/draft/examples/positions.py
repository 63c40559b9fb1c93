"""Relevant documents at positions stated in prose ("relevant at positions 1, 4 and 5 among five results", "the
first relevant document is at rank 3"), and what the text says about the query's relevant set ("the query has five
relevant documents", "three known-relevant documents", "|R| = 4": ``facts``)."""

from __future__ import annotations

import re

from audit.draft.examples.example import Example

_HYPOTHETICAL = re.compile(r"\b(?:would|were|had|if|suppose|imagine|instead|perfect|swap\w*|mov(?:e|es|ed|ing))\b",
                           re.IGNORECASE)

#: Words before "has/holds n relevant documents" that make it a count of the ranking's, not of the query's.
_RETRIEVED_BEFORE = re.compile(r"\b(?:top|first|results?|ranking|list|run|page|retriev\w*|return\w*)\b", re.IGNORECASE)

_RELEVANT_BEFORE = re.compile(r"\b(?:relevant|hits?)\b[^.;:]*$", re.IGNORECASE)
#: One relevant document of several ("the last relevant document at rank 15", "a relevant document at rank 3"): not
#: the relevant set's positions.
_ONE_OF = re.compile(r"\b(?:last|final|next|second|third|fourth|fifth|another|one|a|each|some)\s+(?:\w+\s+)?"
                     r"relevant\b[^.;:]*$", re.IGNORECASE)
_MEASURE_BEFORE = re.compile(r"(?:\b(?:recall|precision|rank|DCG|nDCG|AP|RR|P|R)|@)\s*$", re.IGNORECASE)


#: Ranks listed with runs ("at ranks 2–10 and 12"): each item a rank or a run of ranks.
_RANK = r"\d+(?:\s*[–-]\s*\d+)?"
_RANKS = rf"{_RANK}(?:\s*(?:,\s*and|,|and|&)\s*{_RANK})*"


def _ranks(listed: str) -> list[int]:
    """``"2–10 and 12"`` → [2, 3, …, 10, 12]; a run written backwards is kept as its two ends (no run)."""
    out = []
    for a, b in re.findall(r"(\d+)(?:\s*[–-]\s*(\d+))?", listed):
        lo, hi = int(a), int(b) if b else int(a)
        out.extend(range(lo, hi + 1) if lo <= hi <= lo + 1000 else [lo, hi])
    return out


def _patterns():
    from audit.text.words import _DOCS, _N, _ORDINAL_POSITION
    positions = re.compile(rf"\b(?:at|in)\s+(?:ranks?|positions?)\s+(?P<list>{_RANKS})(?!\d|\.\d)"
                           rf"(?:\s*,?\s+(?:of|out\s+of|among|in\s+a\s+ranking\s+of|in\s+a\s+list\s+of)\s+(?:the\s+|its\s+)?"
                           rf"(?:top\s+)?(?P<n>{_N})\b)?", re.IGNORECASE)
    first = re.compile(rf"\bfirst\s+relevant\s+{_DOCS}\s+(?:is|sits|was|appears)\s+(?:at\s+(?:rank|position)\s+"
                       rf"(?P<pos>\d+)|(?P<ord>{'|'.join(_ORDINAL_POSITION)})\b)", re.IGNORECASE)
    results = re.compile(rf"\b(?P<n>{_N})\s+(?:results|documents\s+returned|retrieved\s+documents)\b|"
                         rf"\b(?P<n2>{_N})[- ](?:item|result|document)\s+(?:list|ranking|run)\b|"
                         rf"\breturns?\s+(?:only\s+)?(?P<n3>{_N})\s+{_DOCS}|\branks\s+all\s+(?P<n4>{_N})\b", re.IGNORECASE)
    relevant = rf"(?:known[- ])?relevant\s+{_DOCS}"
    total = re.compile(
        rf"\b(?:has|have|had|with|there\s+(?:are|were)|contains?|holds?|of\s+(?:its|the|their))\s+(?:exactly\s+|only\s+|a\s+total\s+of\s+)?"
        rf"(?P<m>{_N})\s+{relevant}(?!\s+(?:among|at|retrieved|returned|in\s+(?:its|the|their)\s+(?:top|first|ranking|run|"
        rf"list|results)))"
        rf"|\b(?P<m2>{_N})\s+known[- ]relevant\s+{_DOCS}"
        rf"|\ball\s+(?P<m3>{_N})\s+(?:of\s+(?:its|the)\s+)?relevant\s+{_DOCS}"
        rf"|\bthe\s+only\s+(?P<m4>{_N})\s+relevant\b"
        rf"|\b(?P<m7>{_N})\s+{_DOCS}\s+in\s+the\s+collection\s+(?:are|were)\s+relevant\b"
        rf"|\b(?P<m5>{_N})\s+(?:of\s+the\s+{_N}\s+)?{_DOCS}\s+(?:are|were)\s+relevant\s+(?:to\s+(?:(?:the|this|that)\s+)?"
        rf"(?:query|need|question|topic|request|[a-z]|q\d*)\b|"
        rf"in\s+(?:the|this)\s+collection|in\s+total|overall|altogether)"
        rf"|\|R\|\s*=\s*(?P<m6>\d+)(?![.\d])"
        rf"|\b(?:its|the|a|one)\s+(?P<m8>single|only|sole)\s+relevant\s+{_DOCS}"
        rf"|\b(?:marked|judged|labell?ed|rated|assessed|found)\s+(?P<m9>{_N})\s+{_DOCS}\s+(?:as\s+)?relevant\b"
        rf"|\b(?P<m10>{_N})\s+relevant\s+{_DOCS}\s+in\s+(?:all|total)\b", re.IGNORECASE)
    return positions, first, results, total


def _counted_pattern():
    from audit.text.words import _DOCS, _N
    return re.compile(
        rf"\bhits?\s*(?:so\s+far|found|seen|retrieved|in\s+the\s+top\s+{_N})?\s*(?:=|is|are|:|of)\s*(?P<a>{_N})\b(?![./]\d)"
        rf"|(?<!rank\s)(?<!position\s)(?<!@)\b(?P<b>{_N})\s+hits?\b(?!\s*/)"
        rf"|\b(?P<c>{_N})\s+relevant\s+{_DOCS}\s+(?:so\s+far|in\s+the\s+top\s+{_N}|among\s+(?:the\s+|its\s+)?(?:top\s+|first\s+)?{_N}|"
        rf"retrieved|returned|found)\b"
        rf"|\btop\s+{_N}\b[^.;]{{0,40}}?\b(?:hold|holds|contain|contains|include|includes)\s+(?P<d>{_N})\s+(?:are\s+)?relevant\b"
        rf"|\b(?P<e>{_N})\s+of\s+the\s+(?:top|first)\s+{_N}\s+(?:{_DOCS}\s+)?(?:are|is|were)\s+relevant\b",
        re.IGNORECASE)


def counted(sentence: str) -> set[int]:
    """The counts of relevant documents retrieved that a sentence states ("hits so far = 2", "two hits", "three
    relevant documents among the top five", "the top five hold two relevant"): what relevant positions the sentence
    gives must agree with."""
    from audit.text.words import number
    out = set()
    for m in _counted_pattern().finditer(sentence):
        word = next(m.group(g) for g in "abcde" if m.group(g))
        if m.group("b") and re.search(r"(?:\brank|\bposition|@)\s*$", sentence[:m.start()], re.IGNORECASE):
            continue   # "at rank 5 hits so far = 2": a rank, not a count
        n = number(word)
        if n is not None:
            out.add(n)
    return out


def conflict(sentence: str, ranks: list[int]) -> str:
    """The question a sentence leaves when the count of relevant documents retrieved it states disagrees with the
    relevant positions it gives (``""`` when they agree or it states no count)."""
    counts = counted(sentence) - {len(ranks)}
    if not counts:
        return ""
    return (f"the text places relevant documents at {'rank' if len(ranks) == 1 else 'ranks'} "
            f"{', '.join(map(str, ranks))} but counts {' or '.join(map(str, sorted(counts)))} relevant retrieved: "
            "at which ranks are the relevant documents?")


def _sentences(text: str) -> list[tuple[int, int]]:
    from audit.text.scan import units
    return [(u.start, u.end) for u in units(text) if u.kind in ("sentence", "item")]


#: A document of the ranking said to be unjudged in the sentence placing the relevant ones ("the document at rank 5
#: was never judged"): no grade, not a judged non-relevant one.
_UNJUDGED_AT = re.compile(r"\b(?:the\s+)?(?:document|result|item|passage)\s+at\s+(?:rank|position)\s+(?P<r>\d+)\s+"
                          r"(?:was|is)\s+(?:never\s+judged|unjudged|not\s+judged)\b", re.IGNORECASE)
#: The sentence before, in the same paragraph, saying how many results the example's ranking has ("Our example
#: ranking for this page has ten results."): the ranking is whole at that length.
_RANKING_HAS = re.compile(r"\b(?:ranking|list|run|result\s+list)\b[^.;:]{0,40}?\b(?:has|have|holds?|returns?|contains?)\s+"
                          r"(?:exactly\s+|only\s+)?\w+\s+(?:results|documents)\b", re.IGNORECASE)


def _told_before(text: str, a: int, results: re.Pattern) -> re.Match | None:
    """The count of results the sentence just before ``text[a:]`` gives the ranking, when it is in the same paragraph,
    supposes nothing and places no relevant document itself."""
    para = max(text.rfind("\n\n", 0, a), 0)
    before = [(x, y) for x, y in _sentences(text[para:a]) if text[para + x:para + y].strip()]
    if not before:
        return None
    sentence = text[para + before[-1][0]:para + before[-1][1]]
    if _HYPOTHETICAL.search(sentence) or re.search(r"\brelevant\b", sentence, re.IGNORECASE) or not _RANKING_HAS.search(
            sentence):
        return None
    return results.search(sentence)


def find(text: str) -> list[Example]:
    """A sentence placing relevant documents at ranks: its ranking is known down to the last stated position, or
    whole when the sentence says how many results there are. Several needs in one sentence (a rank repeated, "three
    queries … at ranks 1, 3 and 2") and hypotheticals ("if it moved to rank 2") are no example."""
    from audit.text.words import QUERY_LABEL, _NEEDS, number
    from audit.text.words import _ORDINAL_POSITION
    positions, first, results, _ = _patterns()
    out = []
    for a, b in _sentences(text):
        sentence = text[a:b]
        if _NEEDS.search(sentence) or _HYPOTHETICAL.search(sentence) or not re.search(r"\brelevant\b|\bhits?\b",
                                                                                       sentence, re.IGNORECASE):
            continue
        # "relevant … at positions 1, 4 and 5", never "the recall at rank 7" (a cutoff) or a rank far from "relevant"
        found = [m for m in positions.finditer(sentence) if _RELEVANT_BEFORE.search(sentence[max(0, m.start() - 60):m.start()])
                 and not _MEASURE_BEFORE.search(sentence[:m.start()])
                 and not _ONE_OF.search(sentence[max(0, m.start() - 60):m.start()])]
        if len(found) == 1:
            ranks = _ranks(found[0].group("list"))
            if len(set(ranks)) < len(ranks) or ranks != sorted(ranks) or not ranks or min(ranks) < 1:
                continue
            n = number(found[0].group("n")) if found[0].group("n") else None
            if n is None:
                r = results.search(sentence) or _told_before(text, a, results)
                n = number(r.group("n") or r.group("n2") or r.group("n3") or r.group("n4")) if r else None
            if n is not None and n < max(ranks):
                continue
            length = n or max(ranks)
        elif not found and first.search(sentence):
            if len(list(first.finditer(sentence))) > 1 or len(set(QUERY_LABEL.findall(sentence))) > 1:
                continue   # "Query 1: First relevant at rank 1 … Query 2: First relevant at rank 3": several queries
            m = first.search(sentence)
            p = int(m.group("pos")) if m.group("pos") else _ORDINAL_POSITION[m.group("ord").lower()]
            ranks, length, n = [p], p, None
        else:
            continue
        unjudged = {int(m.group("r")) for m in _UNJUDGED_AT.finditer(sentence)} - set(ranks)
        ranking = [(f"d{i}", None if i in unjudged else 1 if i in ranks else 0) for i in range(1, length + 1)]
        out.append(Example("positions", a, b, text.count("\n", 0, a) + 1, ranking, whole=n is not None,
                           conflict=conflict(sentence, ranks)))
    return out


#: A sentence that supposes from its first word ("Suppose the query has ten relevant documents, …").
_SUPPOSED = re.compile(r"\s*(?:suppose|imagine|if|assume|say)\b", re.IGNORECASE)


def _clause(sentence: str, m: re.Match) -> str:
    """The clause of ``sentence`` holding the match: from the last comma, semicolon, colon or dash before it (or the
    last "and"/"but"/"so" after one) to its end."""
    before = sentence[:m.start()]
    cut = max(before.rfind(c) for c in ",;:—–")
    joined = list(re.finditer(r"\b(?:and|but|so|while)\b", before[cut + 1:]))
    start = cut + 1 + joined[-1].start() if joined else cut + 1
    return sentence[start:m.end()]


def facts(text: str) -> list[tuple[int, int, int, str]]:
    """Each statement of how many relevant documents a query has: (start, end, |R|, the sentence). A hypothetical
    ("if the query had ten relevant documents") states nothing about the example."""
    from audit.text.words import number
    _, _, _, total = _patterns()
    out = []
    for a, b in _sentences(text):
        sentence = text[a:b]
        if _SUPPOSED.match(sentence):
            continue
        for m in total.finditer(sentence):
            if _HYPOTHETICAL.search(_clause(sentence, m)):
                continue   # "if the query had ten relevant documents"; not "… relevant if its grade is 1, and q1 has |R| = 4"
            word = next(m.group(g) for g in ("m", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10") if m.group(g))
            if word.lower() in ("single", "only", "sole"):
                if re.search(r"\beach\b|\btopics\b|\bqueries\b", sentence, re.IGNORECASE):
                    continue   # "three topics with a single relevant document each"
                word = "1"
            if m.group("m") and _RETRIEVED_BEFORE.search(sentence[max(0, m.start() - 40):m.start()]):
                continue   # "the top five hold three relevant documents": what the ranking holds, not |R|
            n = number(word)
            if n is not None and n > 0:
                out.append((a + m.start(), a + m.end(), n, sentence))
    return out
