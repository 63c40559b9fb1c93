"""A ranking written as a list of judgements, one item per rank, as lessons and Q&A answers print a query's results:

    1. Relevant
    2. Irrelevant
    3. Relevant

or ``- d4 — relevant`` / ``- Document 2: Not relevant`` / ``- D2 (not relevant)`` / ``1. ✓`` / ``1. hit``: three items or more, numbered 1, 2, 3, … in order when
numbered, each nothing but a judgement (and a document's name). The list is the whole ranking the text gives. A line
just after it that counts the query's relevant documents ("Relevant documents: 3", "|R| = 4", "Total relevant: 3")
is |R|; without it, the measures that need |R| ask the author."""

from __future__ import annotations

import re

from audit.draft.examples.example import Example

_YES = r"relevant|✓|✔|hit"
_NO = r"irrelevant|non-?relevant|not\s+relevant|✗|✘|miss"
_ITEM = re.compile(rf"^[ \t]*(?:(?P<n>\d{{1,2}})[.)]|[-*•])[ \t]+(?:(?P<doc>[A-Za-z][\w-]{{0,15}}(?:[ \t]+\d{{1,3}})?)[ \t]*(?:[-–—:][ \t]*|\((?=.*\)\s*$)))?"
                   rf"(?:\*\*|_)?(?P<word>{_NO}|{_YES})(?:\*\*|_)?\)?[ \t]*\.?[ \t]*$", re.IGNORECASE | re.MULTILINE)
_COUNT = re.compile(r"^\s*(?:\*\*)?(?:(?:number\s+of\s+|total\s+)?relevant(?:\s+(?:documents|docs|items|results))?|"
                    r"\|\s*R\s*\|)(?:\*\*)?\s*[:=]\s*(?:\*\*)?(?P<n>\d{1,3})\b", re.IGNORECASE)


def find(text: str) -> list[Example]:
    """Each list of judgements of three items or more, as the whole ranking, with |R| when the line after it counts
    the relevant documents."""
    out: list[Example] = []
    run: list[re.Match] = []

    def close() -> None:
        if len(run) >= 3:
            numbers = [m.group("n") for m in run]
            if all(numbers) and [int(n) for n in numbers] != list(range(1, len(run) + 1)):
                return
            if any(numbers) and not all(numbers):
                return
            docs = [m.group("doc") for m in run]
            if any(docs) and (not all(docs) or len(set(docs)) != len(docs)):
                return
            ranking = [(re.sub(r"\s+", "", docs[i]) if docs[i] else f"r{i + 1}", 0 if re.fullmatch(_NO, m.group("word"), re.IGNORECASE) else 1)
                       for i, m in enumerate(run)]
            start, end = run[0].start(), run[-1].end()
            ex = Example("judgement list", start, end, text.count("\n", 0, start) + 1, ranking, whole=True)
            after = text[end:end + 200].lstrip("\n")
            first = after.split("\n\n", 1)[0].split("\n", 1)[0]
            count = _COUNT.match(first)
            if count:
                ex.relevant = int(count.group("n"))
                ex.facts.append(first.strip())
            out.append(ex)

    for m in _ITEM.finditer(text):
        if run and text[run[-1].end():m.start()].strip("\n") == "" and text.count("\n", run[-1].end(), m.start()) <= 2:
            run.append(m)
            continue
        close()
        run = [m]
    close()
    return out
