"""Worked examples read out of a chapter's text, as Sybil reads a document: a parser per shape finds the regions
of the text that print a ranking (``rank_table``: a table of rank, document and relevance or grade; ``judgement_list``:
a list of judgements, one item per rank, "1. Relevant 2. Irrelevant …"; ``grade_list``:
a list of grades in prose or in a listing; ``relevant_set``: a relevant set printed with a ranking of IDs, "relevant
items {a, b, d}, ranking [b, c, a, e, f]"; ``run_literals``: qrels and a run written as literals in a code block,
every query of them; ``trec_run``: a run in TREC format in a code block with each query's judgements in bullets after
it; ``prose_judgements``: a grade scale, the documents judged at each grade and the ranking
told in words; ``prose_grades``: grades written straight after their name, "the top
three grades 2, 0, 3"; ``positions``: relevant documents at stated positions in prose), each
region yields an ``Example``; ``positions.facts`` reads what the text says about the query around them (how many
relevant documents it has), and ``bind`` attaches those facts to their example, binds each statement to the
example it follows and drafts the statement's values on that example's fixture — only when the example determines
the measure (``Example.missing``), else a question to the author.
"""

from __future__ import annotations

from audit.draft.examples import (bind, grade_list, judgement_list, positions, prose_grades, prose_judgements, rank_table,
                                  relevant_set, run_literals, trec_run)
from audit.draft.examples.bind import _OURS, _between, _headings, _running
from audit.draft.examples.example import Example


def find(text: str) -> list[Example]:
    """Every worked example in ``text``, in reading order, with the facts the text states about each
    (``bind.attach``)."""
    found: list[Example] = []
    for parser in (trec_run.find, run_literals.find, rank_table.find, judgement_list.find, relevant_set.find,
                   prose_judgements.find, grade_list.find, prose_grades.find, positions.find):
        for ex in parser(text):
            if not any(ex.start < other.end and other.start < ex.end for other in found):
                found.append(ex)
    found.sort(key=lambda e: e.start)
    found = [e for i, e in enumerate(found) if not (i and e.kind == "positions" and _retold(text, found[:i], e))]
    bind.attach(text, found)
    return found


def _retold(text: str, before: list[Example], e: Example) -> bool:
    """Whether positions in prose retell an example printed before them ("The first relevant result is at rank 1"
    under a rank table whose first row is relevant): the same relevance at every rank they give, and no count of
    hits in their sentence that disagrees with them; the example just before, with nothing between them but prose,
    or the last ranking printed before (a table or a list), across headings, when the sentence calls it "our list" or
    it is the text's running example."""
    if e.conflict:
        return False
    candidates = [(before[-1], not _between(list(_headings(text)), before[-1].end, e.start))]
    printed = [b for b in before if b.kind != "positions"]
    if printed and (_OURS.search(text[e.start:e.end]) or _running(text, printed[-1])):
        # "our list", or the text's running example, which later sections go on using
        candidates.append((printed[-1], True))
    for example, near in candidates:
        if not near or len(e.ranking) > len(example.ranking) or e.whole and len(e.ranking) != len(example.ranking):
            continue
        if all(bool(g) == bool(h) for (_, g), (_, h) in zip(e.ranking, example.ranking)):
            return True
    return False
