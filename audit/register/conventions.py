"""Evaluation conventions a text can state, as data: names, values, what each value means.

Chapters differ: one divides P@k by k, another by the number of results returned; one keeps
tied documents in listed order, another breaks ties by docno. A chapter declares the
conventions its text states (``chapter.yaml`` → ``conventions:``, each with the quote it rests
on); a book-level file may declare the book's defaults; a claim may override for itself. Every
convention not stated is **unstated**: a claim that depends on it is evaluated under each of
its values (see ``audit.evaluation.readings``).

A *reading* is one full assignment ``{convention name: value}``; the chapter evaluator
(``audit.evaluation.evaluator``) takes a reading as its parameter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Convention:
    """One convention: its values (first = the reading trec_eval's defaults follow, where one does),
    a phrase per value, and where it is defined. Which measures depend on it, each measure declares
    (``audit.evaluation.evaluator.CATALOGUE``)."""

    name: str
    title: str
    values: tuple[str, ...]
    phrases: Mapping[str, str]
    source: str
    aggregate: bool = False  # decided over several queries (averaging, queries without relevant documents)
    #: Values no reference computes by default or by a named option and no cited source uses: a text that does not
    #: state them is not read that way, so they never qualify a verdict (a text may still state them).
    unsourced: frozenset[str] = frozenset()

    def named(self) -> str:
        """How a sentence names it: "the P@k denominator", "how unjudged documents count"."""
        return NOUNS.get(self.name, f"the {self.title}")

    def phrase(self, value: str) -> str:
        if value not in self.phrases and value in numbered_values(self.name):
            return NUMBERED[self.name].format(n=value)
        return self.phrases.get(value, f"{self.title}: {value}")


CONVENTIONS: dict[str, Convention] = {c.name: c for c in (
    Convention("prefix", "evaluated prefix", ("first k results", "first k distinct IDs"), {
        "first k results": "the prefix is the first k positions of the ranking, repeats included",
        "first k distinct IDs": "the prefix is the first k distinct IDs of the ranking",
    }, "chapter 23 §Define the evaluated prefix; trec_eval counts positions"),
    Convention("precision_denominator", "P@k denominator", ("k", "number returned", "min(k, |R|)"), {
        "k": "P@k divides by k, even when fewer results are returned",
        "number returned": "P@k divides by the number of results returned within the cutoff",
        "min(k, |R|)": "P@k divides by the smaller of k and the number of relevant documents",
    }, "trec_eval P_k (denominator k); Manning et al. 2008 §8.4 (of the retrieved)",
        unsourced=frozenset({"min(k, |R|)"})),
    Convention("repeated_ids", "repeated IDs", ("reject", "keep first", "keep last", "count each"), {
        "reject": "a ranking that repeats an ID is rejected",
        "keep first": "a repeated ID keeps only its first occurrence",
        "keep last": "a repeated ID keeps only its last occurrence (the last score read)",
        "count each": "every occurrence of a repeated ID is counted",
    }, "trec_eval rejects repeated docnos; ir-measures and ranx keep the last score"),
    Convention("ties", "tie rule", ("listed order", "docno descending", "docno ascending"), {
        "listed order": "tied documents keep the listed order",
        "docno descending": "tied documents are ordered by docno, descending (trec_eval)",
        "docno ascending": "tied documents are ordered by docno, ascending",
    }, "trec_eval orders equal scores by docno descending"),
    Convention("unjudged", "unjudged documents", ("non-relevant", "removed"), {
        "non-relevant": "an unjudged document counts as non-relevant",
        "removed": "unjudged documents are removed before cutting at k (a condensed list)",
    }, "trec_eval (non-relevant); Sakai 2007 (condensed lists)"),
    Convention("gain", "nDCG gain", ("linear", "exponential"), {
        "linear": "nDCG's gain is the grade (linear)",
        "exponential": "nDCG's gain is 2^grade − 1 (exponential)",
    }, "Järvelin & Kekäläinen 2002 (linear; trec_eval ndcg_cut); Burges et al. 2005 "
                            "(exponential; ranx ndcg_burges)"),
    Convention("ideal", "ideal DCG", ("judged, cut at k", "judged, whole list", "retrieved only",
                                      "all retrieved, cut at k"), {
        "judged, cut at k": "the ideal DCG@k sorts all judged grades and cuts at k",
        "judged, whole list": "the ideal DCG sorts all judged grades and is not cut at k",
        "retrieved only": "the ideal DCG@k re-sorts only the grades of the first k retrieved documents",
        "all retrieved, cut at k": "the ideal DCG@k sorts the grades of every retrieved document, not only the "
                                   "first k, and cuts at k (scikit-learn's ndcg_score)",
    }, "trec_eval ndcg_cut (judged, cut at k); scikit-learn ndcg_score (all retrieved, cut at k: its ideal sorts "
       "every label it is given, y_true, and keeps the first k)"),
    Convention("relevance_level", "relevance level", ("1", "2", "3"), {
        "1": "a grade of 1 or more is relevant",
        "2": "a grade of 2 or more is relevant",
        "3": "a grade of 3 or more is relevant",
    }, "trec_eval -l (relevance_level, default 1)"),
    Convention("rr_cutoff", "RR cutoff", ("applied", "ignored"), {
        "applied": "RR@k counts a relevant document only within the first k",
        "ignored": "RR is computed on the whole ranking, whatever k",
    }, "MS MARCO MRR@10 (applied); trec_eval recip_rank (no cutoff)"),
    Convention("ap_denominator", "AP denominator", ("|R|", "relevant retrieved", "min(k, |R|)"), {
        "|R|": "AP divides by the number of relevant documents, retrieved or not",
        "relevant retrieved": "AP divides by the number of relevant documents retrieved",
        "min(k, |R|)": "AP@k divides by the smaller of k and the number of relevant documents",
    }, "trec_eval map (|R|); scikit-learn average_precision_score on the returned list (relevant retrieved); "
       "ml_metrics apk (min(k, |R|))"),
    Convention("level_gain", "gain below the relevance level", ("kept", "dropped"), {
        "kept": "a graded measure keeps the gain of every positive grade, whatever the relevance level",
        "dropped": "grades below the relevance level give no gain",
    }, "trec_eval ndcg (kept: -l applies to binary measures only); ranx ndcg@k-l2 (dropped)"),
    Convention("err_max_grade", "ERR's top grade", ("highest grade judged", "4"), {
        "highest grade judged": "ERR's stopping probability is (2^g − 1) / 2^g_max, g_max the query's top judged grade",
        "4": "ERR's stopping probability is (2^g − 1) / 2^4 (grades above 4 are refused)",
    }, "Chapelle et al. 2009 (g_max, the top grade of the judging scale); gdeval.pl (the TREC Web track's script, "
       "ir-measures' one provider of ERR@k: 4, its 0–4 scale); trec_eval and ranx compute no ERR. A text may state "
       "its own scale's top grade as a number (“grades 0–3 … (2^g − 1)/2^3”: 3)"),
    Convention("rbp_gain", "RBP gain", ("binary", "grade"), {
        "binary": "RBP counts a relevant document as 1",
        "grade": "RBP weighs a relevant document by its grade",
    }, "Moffat & Zobel 2008 (binary); ranx rbp (the grade)"),
    Convention("iprec_level", "interpolation's recall level",
               ("round(r·|R|) relevant", "floor(r·|R| + 0.9) relevant", "recall ≥ r"), {
        "round(r·|R|) relevant": "recall level r is reached once round(r·|R|) relevant documents are retrieved",
        "floor(r·|R| + 0.9) relevant": "recall level r is reached once floor(r·|R| + 0.9) relevant documents are "
                                       "retrieved",
        "recall ≥ r": "recall level r is reached once recall is at least r",
    }, "trec_eval 10.0 iprec_at_recall (lround(r · num_rel)); trec_eval 9, bundled by pytrec_eval (r · num_rel + 0.9, "
       "truncated); Manning et al. 2008 §8.4 (recall ≥ r)"),
    Convention("gmap_floor", "GMAP floor", ("floored", "none"), {
        "floored": "GMAP floors each query's AP at 0.00001, so one AP of 0 does not make it 0",
        "none": "GMAP is the plain geometric mean: one AP of 0 makes it 0",
    }, "trec_eval gm_map (0.00001, MIN_GEO_MEAN); Robertson 2006 (the plain geometric mean, with a small floor "
       "suggested)"),
    Convention("averaging", "averaging", ("queries with results", "all judged queries", "pooled"), {
        "queries with results": "the mean is over the queries that returned results (trec_eval)",
        "all judged queries": "the mean is over every judged query, one without results scoring 0 (trec_eval -c)",
        "pooled": "recall is pooled over queries: Σ relevant found / Σ |R|",
    }, "trec_eval (queries in the run) and -c (all qrels queries); no reference computes pooled recall and no "
       "source in the bibliography uses it, so a text is read that way only when it says so (“pooled over queries”)",
        aggregate=True, unsourced=frozenset({"pooled"})),
    Convention("no_relevant", "a judged query without relevant documents", ("scores 0", "left out"), {
        "scores 0": "a judged query with no relevant document scores 0 and counts in the mean",
        "left out": "a judged query with no relevant document is left out of the mean",
    }, "trec_eval, ir-measures and ranx score a query judged with no relevant document 0 (observed); leaving it "
       "out is the textbook MAP over queries that have relevant documents (Manning et al. 2008 §8.4)",
        aggregate=True),
    Convention("no_qrels", "a query with an empty qrels entry", ("left out", "scores 0"), {
        "left out": "a query whose qrels entry is empty is left out of the mean",
        "scores 0": "a query whose qrels entry is empty scores 0 and counts in the mean",
    }, "pytrec_eval leaves out a query whose qrels entry is empty; ir-measures and ranx score it 0 (observed)",
        aggregate=True),
)}

NAMES = tuple(CONVENTIONS)

#: Conventions a text may also set to a whole number it states, beside the values read when it is unstated: ERR's
#: g_max, the top grade of the text's own judging scale (Chapelle et al. 2009), for any scale, not only gdeval's 0–4.
#: A stated number is never one of the readings an unstated convention is tried under.
NUMBERED = {"err_max_grade": "ERR's stopping probability is (2^g − 1) / 2^{n}, {n} the top grade of the judging scale"}
_NUMBERED_RANGE = range(1, 21)


def numbered_values(name: str) -> tuple[str, ...]:
    """The whole numbers a text may state for ``name`` (``NUMBERED``), as text; none for other conventions."""
    return tuple(str(n) for n in _NUMBERED_RANGE) if name in NUMBERED else ()


def accepts(name: str, value: object) -> bool:
    """Whether ``value`` is a value of convention ``name`` a text may state."""
    return name in CONVENTIONS and (str(value) in CONVENTIONS[name].values or str(value) in numbered_values(name))

NOUNS = {"prefix": "which prefix is evaluated", "precision_denominator": "the P@k denominator",
         "repeated_ids": "how repeated IDs are handled", "ties": "the tie rule",
         "unjudged": "how unjudged documents count", "gain": "the nDCG gain", "ideal": "how the ideal DCG is built",
         "relevance_level": "the relevance level", "rr_cutoff": "whether RR@k stops at k",
         "averaging": "which queries the mean is over", "no_relevant": "how a judged query without relevant documents counts",
         "no_qrels": "how a query with an empty qrels entry counts",
         "ap_denominator": "what AP divides by", "level_gain": "whether grades below the relevance level gain",
         "err_max_grade": "ERR's top grade", "rbp_gain": "how RBP weighs a relevant document",
         "iprec_level": "when a recall level counts as reached", "gmap_floor": "whether GMAP floors each AP"}


def title_of(name: str) -> str:
    """A convention's title ("P@k denominator"), or the name itself for one this registry does not define."""
    return CONVENTIONS[name].title if name in CONVENTIONS else name


def values_of(name: str) -> tuple[str, ...]:
    return CONVENTIONS[name].values


@dataclass(frozen=True)
class Statement:
    """One place a text states a convention: the value and the quote it rests on."""

    value: str
    quote: str = ""
    origin: str = "chapter"  # chapter, book, claim


@dataclass
class Declared:
    """The conventions a chapter (with its book's defaults and a claim's overrides) states.

    ``statements``: convention name → the statements setting it. One statement fixes the
    value; two statements with different values are an internal tension (both values are
    then evaluated); none leaves the convention unstated.
    """

    statements: dict[str, list[Statement]] = field(default_factory=dict)

    def values(self, name: str) -> tuple[str, ...]:
        """The values a claim is evaluated under: the stated one(s), or every value when unstated."""
        stated = self.statements.get(name)
        if not stated:
            return CONVENTIONS[name].values
        return tuple(dict.fromkeys(s.value for s in stated))

    def stated(self, name: str) -> bool:
        return bool(self.statements.get(name))

    def tensions(self) -> dict[str, list[Statement]]:
        """Conventions set to two or more different values by the same text."""
        return {name: stated for name, stated in self.statements.items()
                if len({s.value for s in stated if s.origin != "claim"}) > 1}

    def overlay(self, other: "Declared") -> "Declared":
        """``other``'s statements replace this one's, convention by convention."""
        merged = dict(self.statements)
        merged.update({k: v for k, v in other.statements.items() if v})
        return Declared(merged)

    def as_dict(self) -> dict[str, list[dict[str, str]]]:
        return {name: [{"value": s.value, "quote": s.quote, "origin": s.origin} for s in stated]
                for name, stated in sorted(self.statements.items())}


def declared_from(mapping: Mapping[str, object] | None, origin: str) -> Declared:
    """Build ``Declared`` from the register's ``conventions:`` mapping (already schema-checked).

    Each entry is ``name: value``, ``name: {value, quote}`` or a list of such mappings.
    """
    out: dict[str, list[Statement]] = {}
    for name, entry in (mapping or {}).items():
        items: Iterable = entry if isinstance(entry, list) else [entry]
        for item in items:
            if isinstance(item, Mapping):
                out.setdefault(name, []).append(Statement(str(item["value"]), str(item.get("quote") or ""), origin))
            else:
                out.setdefault(name, []).append(Statement(str(item), "", origin))
    return Declared(out)


def check_value(name: str, value: object) -> str | None:
    """An error message when ``name``/``value`` is not a known convention value, else None."""
    if name not in CONVENTIONS:
        return f"unknown convention {name!r}; known conventions: {', '.join(NAMES)}"
    if not accepts(name, value):
        numbered = (f", or a whole number from {_NUMBERED_RANGE.start} to {_NUMBERED_RANGE.stop - 1} (the top grade "
                    "of the text's judging scale)") if name in NUMBERED else ""
        return (f"unknown value {value!r} for convention {name!r}; expected one of "
                f"{', '.join(repr(v) for v in CONVENTIONS[name].values)}{numbered}")
    return None


def describe(reading: Mapping[str, str], names: Iterable[str]) -> str:
    """'gain = exponential, ties = docno descending' for the named conventions of a reading."""
    return ", ".join(f"{CONVENTIONS[n].title} {reading[n]}" for n in names)


def join_alike(parts: list[tuple[str, str]]) -> str:
    """Phrases each with its qualifier, joined with "and", the words they all begin with written once:
    [("orders tied documents by docno, ascending", "for RR@4"), ("orders tied documents by docno, descending",
    "for RR")] → "orders tied documents by docno, ascending for RR@4 and descending for RR"."""
    phrases = [p for p, _ in parts]
    head = ""
    if len(phrases) > 1:
        common = phrases[0]
        for p in phrases[1:]:
            n = 0
            while n < min(len(common), len(p)) and common[n] == p[n]:
                n += 1
            common = common[:n]
        cut = common.rfind(" ")
        head = common[:cut + 1] if cut > 0 and all(len(p) > cut + 1 for p in phrases) else ""
    return head + " and ".join((p[len(head):] + (f" {q}" if q else "")) for p, q in parts)
