"""The shapes of a claim's fixtures, read by every stage, and the one rule a ranking must keep to be read at all.

  qrels:   {query_id: {doc_id: grade}}; grade is an int, relevant when grade >= 1
           ("a known positive relevance grade", chapter 23 §"Define the evaluated prefix").
  ranking: an ordered sequence of doc_id strings, best first, for one query.
  run:     {query_id: ranking}.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from audit.errors import RepeatedIDError

Qrels = Mapping[str, Mapping[str, int]]
Ranking = Sequence[str]
Run = Mapping[str, Ranking]


def check_ranking(ranking: Ranking, *, query_id: str | None = None) -> None:
    """Reject a ranking that repeats a document ID (the ``repeated_ids: reject`` convention).

    Chapter 23: "The evaluator rejects repeated result IDs: returning the same document
    twice cannot count as two discoveries." Raises ``RepeatedIDError`` naming the ID and
    both 1-based positions.
    """
    if len(set(ranking)) == len(ranking):
        return
    seen: dict[str, int] = {}
    for position, doc_id in enumerate(ranking, start=1):
        if doc_id in seen:
            where = f" for query {query_id!r}" if query_id is not None else ""
            raise RepeatedIDError(
                f"ranking{where} repeats document {doc_id!r} at ranks {seen[doc_id]} and {position}; "
                "the chapter's evaluator rejects repeated result IDs — remove the duplicate")
        seen[doc_id] = position
