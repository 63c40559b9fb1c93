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

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reader:
    """Who reads a convention's value, and so whether a text that does not state the convention is read that way.

    ``kind``:

    - ``default``: a reference computes it by default under the measure's usual name (``who`` names the references);
    - ``origin``: the source that defines the measure defines it so (a text using the measure's name follows it);
    - ``source``: a source defines it so; a reading only when the text cites or follows that source (``who`` is a key
      of ``SOURCES``, whose pattern finds the citation in the text);
    - ``option``: a reference computes it only with a non-default option (trec_eval ``-l 2``, ``-J``; ir-measures'
      ``judged_only``; ranx's ``ndcg_burges``): never a reading unless the text names that condition.
    """

    who: str
    kind: str  # default | origin | source | option

    def reads(self, cited: frozenset[str]) -> bool:
        """Whether this reader makes the value a reading of a text citing ``cited`` that does not state it."""
        return self.kind in ("default", "origin") or (self.kind == "source" and self.who in cited)

    def describe(self) -> str:
        if self.kind == "default":
            return f"{self.who}'s default"
        if self.kind == "source":
            return f"{SOURCES[self.who][0]}, which the text cites"
        if self.kind == "option":
            return f"{self.who} (an option, not the default)"
        return self.who


def _r(default: str = "", origin: str = "", source: str = "", option: str = "") -> tuple[Reader, ...]:
    return tuple(Reader(who.strip(), kind) for kind, whos in (("default", default), ("origin", origin),
                                                              ("source", source), ("option", option))
                 for who in whos.split(";") if who.strip())


@dataclass(frozen=True)
class Convention:
    """One convention: its values (first = the reading trec_eval's defaults follow, where one does),
    a phrase per value, and where it is defined. Which measures depend on it, each measure declares
    (``audit.measures.catalogue.CATALOGUE``)."""

    name: str
    title: str
    values: tuple[str, ...]
    phrases: Mapping[str, str]
    source: str
    aggregate: bool = False  # decided over several queries (averaging, queries without relevant documents)
    #: Who reads each value (``Reader``): a value is a *reading* of a text that does not state the convention only
    #: when a reference computes it by default under the measure's usual name, the measure's defining source does,
    #: or a source the text cites does. Any other value (a reference's non-default option, a rule nobody uses) is
    #: tried only when the text states it, so it never qualifies a verdict.
    readers: Mapping[str, tuple[Reader, ...]] = field(default_factory=dict)

    @property
    def unsourced(self) -> frozenset[str]:
        """Values no reference's default and no source reads: tried only when a text states them."""
        return frozenset(v for v in self.values if not any(r.kind in ("default", "origin", "source")
                                                            for r in self.readers.get(v, ())))

    def reads(self, value: str, cited: frozenset[str] = frozenset()) -> bool:
        """Whether a text citing ``cited`` that does not state this convention is read with ``value``."""
        return any(r.reads(cited) for r in self.readers.get(value, ()))

    def readers_of(self, value: str, cited: frozenset[str] = frozenset()) -> list[Reader]:
        return [r for r in self.readers.get(value, ()) if r.reads(cited)]

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
    }, "chapter 23 §Define the evaluated prefix; trec_eval counts positions", readers={
        "first k results": _r(default="trec_eval"), "first k distinct IDs": _r(default="ir_measures; ranx")}),
    Convention("precision_denominator", "P@k denominator", ("k", "number returned", "min(k, |R|)"), {
        "k": "P@k divides by k, even when fewer results are returned",
        "number returned": "P@k divides by the number of results returned within the cutoff",
        "min(k, |R|)": "P@k divides by the smaller of k and the number of relevant documents",
    }, "trec_eval P_k (denominator k); Manning et al. 2008 §8.4 (of the retrieved)", readers={
        "k": _r(default="trec_eval; ir_measures; ranx"), "number returned": _r(source="manning-2008")}),
    Convention("repeated_ids", "repeated IDs", ("reject", "keep first", "keep last", "count each"), {
        "reject": "a ranking that repeats an ID is rejected",
        "keep first": "a repeated ID keeps only its first occurrence",
        "keep last": "a repeated ID keeps only its last occurrence (the last score read)",
        "count each": "every occurrence of a repeated ID is counted",
    }, "trec_eval rejects repeated docnos; ir-measures and ranx keep the last score", readers={
        "reject": _r(default="trec_eval"), "keep last": _r(default="ir_measures; ranx")}),
    Convention("ties", "tie rule", ("listed order", "docno descending", "docno ascending"), {
        "listed order": "tied documents keep the listed order",
        "docno descending": "tied documents are ordered by docno, descending (trec_eval)",
        "docno ascending": "tied documents are ordered by docno, ascending",
    }, "trec_eval orders equal scores by docno descending", readers={
        "listed order": _r(default="ranx"), "docno descending": _r(default="trec_eval; ir_measures"),
        "docno ascending": _r(default="ir_measures (msmarco provider, RR@k)")}),
    Convention("unjudged", "unjudged documents", ("non-relevant", "removed"), {
        "non-relevant": "an unjudged document counts as non-relevant",
        "removed": "unjudged documents are removed before cutting at k (a condensed list)",
    }, "trec_eval (non-relevant); Sakai 2007 (condensed lists)", readers={
        "non-relevant": _r(default="trec_eval; ir_measures; ranx"),
        "removed": _r(source="sakai-2007", option="trec_eval -J; ir_measures judged_only")}),
    Convention("gain", "nDCG gain", ("linear", "exponential"), {
        "linear": "nDCG's gain is the grade (linear)",
        "exponential": "nDCG's gain is 2^grade − 1 (exponential)",
    }, "Järvelin & Kekäläinen 2002 (linear; trec_eval ndcg_cut); Burges et al. 2005 "
                            "(exponential; ranx ndcg_burges)", readers={
        "linear": _r(default="trec_eval; ir_measures; ranx", origin="Järvelin & Kekäläinen 2002"),
        "exponential": _r(source="burges-2005", option="ranx ndcg_burges")}),
    Convention("discount", "DCG discount", ("log2(i + 1)", "log2(max(i, 2))"), {
        "log2(i + 1)": "DCG divides the gain at rank i by log2(i + 1), so only rank 1 counts in full",
        "log2(max(i, 2))": "DCG divides the gain at rank i by log2(max(i, 2)): ranks 1 and 2 count in full, rank i ≥ 2 "
                           "is divided by log2 i",
    }, "trec_eval ndcg_cut, ir-measures and ranx (log2(i + 1)); Järvelin & Kekäläinen 2002 with base b = 2 "
       "(log2(max(i, 2)): no discount before rank b), read only where a text states it",
       readers={"log2(i + 1)": _r(default="trec_eval; ir_measures; ranx")}),
    Convention("ideal", "ideal DCG", ("judged, cut at k", "judged, whole list", "retrieved only",
                                      "all retrieved, cut at k"), {
        "judged, cut at k": "the ideal DCG@k sorts all judged grades and cuts at k",
        "judged, whole list": "the ideal DCG sorts all judged grades and is not cut at k",
        "retrieved only": "the ideal DCG@k re-sorts only the grades of the first k retrieved documents",
        "all retrieved, cut at k": "the ideal DCG@k sorts the grades of every retrieved document, not only the "
                                   "first k, and cuts at k (scikit-learn's ndcg_score)",
    }, "trec_eval ndcg_cut (judged, cut at k); scikit-learn ndcg_score (all retrieved, cut at k: its ideal sorts "
       "every label it is given, y_true, and keeps the first k)", readers={
        "judged, cut at k": _r(default="trec_eval; ir_measures; ranx"), "all retrieved, cut at k": _r(source="scikit-learn")}),
    Convention("relevance_level", "relevance level", ("1", "2", "3"), {
        "1": "a grade of 1 or more is relevant",
        "2": "a grade of 2 or more is relevant",
        "3": "a grade of 3 or more is relevant",
    }, "trec_eval -l (relevance_level, default 1)", readers={
        "1": _r(default="trec_eval; ir_measures; ranx"), "2": _r(source="trec-dl", option="trec_eval -l 2; ir_measures rel=2; ranx -l2"),
        "3": _r(option="trec_eval -l 3; ir_measures rel=3; ranx -l3")}),
    Convention("rr_cutoff", "RR cutoff", ("applied", "ignored"), {
        "applied": "RR@k counts a relevant document only within the first k",
        "ignored": "RR is computed on the whole ranking, whatever k",
    }, "MS MARCO MRR@10 (applied); trec_eval recip_rank (no cutoff)", readers={
        "applied": _r(default="trec_eval; ir_measures; ranx", origin="MS MARCO MRR@10"), "ignored": _r(option="trec_eval recip_rank (RR, no cutoff)")}),
    Convention("ap_denominator", "AP denominator", ("|R|", "relevant retrieved", "min(k, |R|)"), {
        "|R|": "AP divides by the number of relevant documents, retrieved or not",
        "relevant retrieved": "AP divides by the number of relevant documents retrieved",
        "min(k, |R|)": "AP@k divides by the smaller of k and the number of relevant documents",
    }, "trec_eval map (|R|); scikit-learn average_precision_score on the returned list, catalyst's MAPMetric "
       "(relevant retrieved); ml_metrics apk (min(k, |R|))", readers={
        "|R|": _r(default="trec_eval; ir_measures; ranx"), "relevant retrieved": _r(source="scikit-learn; catalyst"),
        "min(k, |R|)": _r(source="ml_metrics")}),
    Convention("level_gain", "gain below the relevance level", ("kept", "dropped"), {
        "kept": "a graded measure keeps the gain of every positive grade, whatever the relevance level",
        "dropped": "grades below the relevance level give no gain",
    }, "trec_eval ndcg (kept: -l applies to binary measures only); ranx ndcg@k-l2 (dropped)", readers={
        "kept": _r(default="trec_eval; ir_measures"), "dropped": _r(default="ranx")}),
    Convention("err_max_grade", "ERR's top grade", ("highest grade judged", "4"), {
        "highest grade judged": "ERR's stopping probability is (2^g − 1) / 2^g_max, g_max the query's top judged grade",
        "4": "ERR's stopping probability is (2^g − 1) / 2^4 (grades above 4 are refused)",
    }, "Chapelle et al. 2009 (g_max, the top grade of the judging scale); gdeval.pl (the TREC Web track's script, "
       "ir-measures' one provider of ERR@k: 4, its 0–4 scale); trec_eval and ranx compute no ERR. A text may state "
       "its own scale's top grade as a number (“grades 0–3 … (2^g − 1)/2^3”: 3)", readers={
        "highest grade judged": _r(origin="Chapelle et al. 2009"), "4": _r(default="ir_measures (gdeval)")}),
    Convention("rbp_gain", "RBP gain", ("binary", "grade"), {
        "binary": "RBP counts a relevant document as 1",
        "grade": "RBP weighs a relevant document by its grade",
    }, "Moffat & Zobel 2008 (binary); ranx rbp (the grade)", readers={
        "binary": _r(origin="Moffat & Zobel 2008"), "grade": _r(default="ranx")}),
    Convention("iprec_level", "interpolation's recall level",
               ("round(r·|R|) relevant", "floor(r·|R| + 0.9) relevant", "recall ≥ r"), {
        "round(r·|R|) relevant": "recall level r is reached once round(r·|R|) relevant documents are retrieved",
        "floor(r·|R| + 0.9) relevant": "recall level r is reached once floor(r·|R| + 0.9) relevant documents are "
                                       "retrieved",
        "recall ≥ r": "recall level r is reached once recall is at least r",
    }, "trec_eval 10.0 iprec_at_recall (lround(r · num_rel)); trec_eval 9, bundled by pytrec_eval (r · num_rel + 0.9, "
       "truncated); Manning et al. 2008 §8.4 (recall ≥ r)", readers={
        "round(r·|R|) relevant": _r(default="trec_eval 10.0"),
        "floor(r·|R| + 0.9) relevant": _r(default="trec_eval (pytrec_eval); ir_measures"),
        "recall ≥ r": _r(origin="Manning et al. 2008 §8.4")}),
    Convention("gmap_floor", "GMAP floor", ("floored", "none"), {
        "floored": "GMAP floors each query's AP at 0.00001, so one AP of 0 does not make it 0",
        "none": "GMAP is the plain geometric mean: one AP of 0 makes it 0",
    }, "trec_eval gm_map (0.00001, MIN_GEO_MEAN); Robertson 2006 (the plain geometric mean, with a small floor "
       "suggested)", readers={
        "floored": _r(default="trec_eval"), "none": _r(origin="Robertson 2006")}),
    Convention("averaging", "averaging", ("queries with results", "all judged queries", "pooled"), {
        "queries with results": "the mean is over the queries that returned results (trec_eval)",
        "all judged queries": "the mean is over every judged query, one without results scoring 0 (trec_eval -c)",
        "pooled": "recall is pooled over queries: Σ relevant found / Σ |R|",
    }, "trec_eval (queries in the run) and -c (all qrels queries); no reference computes pooled recall and no "
       "source in the bibliography uses it, so a text is read that way only when it says so (“pooled over queries”)",
        aggregate=True, readers={"queries with results": _r(default="trec_eval"),
                                 "all judged queries": _r(default="ir_measures; ranx", option="trec_eval -c")}),
    Convention("no_relevant", "a judged query without relevant documents", ("scores 0", "left out"), {
        "scores 0": "a judged query with no relevant document scores 0 and counts in the mean",
        "left out": "a judged query with no relevant document is left out of the mean",
    }, "trec_eval, ir-measures and ranx score a query judged with no relevant document 0 (observed); leaving it "
       "out is the textbook MAP over queries that have relevant documents (Manning et al. 2008 §8.4)",
        aggregate=True, readers={"scores 0": _r(default="trec_eval; ir_measures; ranx"), "left out": _r(source="manning-2008")}),
    Convention("no_qrels", "a query with an empty qrels entry", ("left out", "scores 0"), {
        "left out": "a query whose qrels entry is empty is left out of the mean",
        "scores 0": "a query whose qrels entry is empty scores 0 and counts in the mean",
    }, "pytrec_eval leaves out a query whose qrels entry is empty; ir-measures and ranx score it 0 (observed)",
        aggregate=True, readers={"left out": _r(default="trec_eval"), "scores 0": _r(default="ir_measures; ranx")}),
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


#: Sources a convention's value may be read from only when the text cites or follows them: key → (how a report names
#: it, a pattern that finds the text citing it or using its implementation by name).
SOURCES: dict[str, tuple[str, str]] = {
    "burges-2005": ("Burges et al. 2005 (exponential gain)", r"\bBurges\b|\bRankNet\b|\bLambda(?:Rank|MART)\b"),
    "manning-2008": ("Manning, Raghavan & Schütze 2008", r"\bManning\b|\bIntroduction\s+to\s+Information\s+Retrieval\b"),
    "sakai-2007": ("Sakai 2007 (condensed lists)", r"\bSakai\b"),
    "scikit-learn": ("scikit-learn (ndcg_score, average_precision_score)",
                     r"\bscikit-learn\b|\bsklearn\b|\bndcg_score\b|\baverage_precision_score\b"),
    "ml_metrics": ("ml_metrics' apk (and the R package Metrics' apk and mapk)", r"\bml_metrics\b|\bm?apk\b"),
    "catalyst": ("catalyst's MAPMetric (AP@k over the relevant items in the top k)", r"\bcatalyst\b|\bMAPMetric\b"),
    "trec-dl": ("the TREC Deep Learning track (binary measures at grade 2 or more)",
                r"\bTREC\s+(?:Deep\s+Learning|DL)\b"),
}


#: What a listing or a formula fixes by the way it computes a measure: (convention, value, pattern on one line).
#: A DCG whose listing divides the grade itself by the log discount (``rel / np.log2(i + 2)``, ``\frac{rel_i}{\log_2
#: (i+1)}``) uses linear gain; one computing ``2 ** rel - 1`` (not ERR's ``(2 ** g - 1) / 2 ** g_max``), exponential.
_GRADE = r"(?:rels?|relevances?|grades?|labels?|y_true|g|r)(?:_?i)?(?:\[\s*[\w+\s-]*\])?"
#: A grade's name in a LaTeX gain, bare or set upright (``rel_i``, ``\operatorname{rel}_j``, ``\mathrm{rel}_i``).
LATEX_GRADE = r"(?:\\(?:operatorname|mathrm|text|mathit|textrm)\s*\{\s*(?:g|rel|grade|r)\s*\}|g|rel|grade|r)"
FORMULAS: tuple[tuple[str, str, re.Pattern], ...] = tuple((n, v, re.compile(p)) for n, v, p in (
    ("gain", "linear", rf"(?<![\w.])(?<!\*\*\s)(?<!\*\*){_GRADE}\s*/\s*(?:np\.|numpy\.|math\.)?log2\s*\(|"
                       r"\\frac\s*\{\s*" + LATEX_GRADE + r"(?:_\{?\w+\}?)?\s*\}\s*\{\s*\\log"),
    ("gain", "exponential", rf"(?:\b2(?:\.0)?\s*(?:\*\*|\^)\s*\{{?\(?\s*(?:{_GRADE}|{LATEX_GRADE}(?:_\{{?\w+\}}?)?)\s*\)?\}}?|"
                            rf"\b(?:np|numpy)\.(?:power\(\s*2(?:\.0)?\s*,\s*{_GRADE}\s*\)|exp2\(\s*{_GRADE}\s*\))|"
                            rf"\bpow\(\s*2(?:\.0)?\s*,\s*{_GRADE}\s*\))\s*[−-]\s*1\b(?!\s*\)?\s*\}}?\s*/\s*\(?\s*(?:2|16)\b)"),
))


#: A line that computes or defines (an assignment, a return, a formula), not prose about one.
_COMPUTES = re.compile(r"(?<![<>!=])=(?!=)|\breturn\b|\\frac\b|\bsum\(")
_VARIANT = re.compile(r"\b(?:instead|variant|alternative(?:ly)?|others?|some\s+(?:texts|authors|libraries)|"
                      r"learning-to-rank|the\s+same\s+with)\b", re.IGNORECASE)


def formula_statements(text: str, declared: "Declared") -> "Declared":
    """The conventions the chapter's listings and formulas fix and its stated conventions leave open: one value of a
    convention found on the chapter's lines (``FORMULAS``) is stated by the line that computes it, quoted. Two values
    found (a text computing both gains) state nothing. Conventions ``declared`` states are left as they are."""
    found: dict[str, dict[str, str]] = {}
    before = ""  # the last line of prose before this one
    for line in (text or "").splitlines():
        introduced, stripped = before, line.strip()
        if stripped and not stripped.startswith(("$$", "\\[", "```")):
            before = line
        if not _COMPUTES.search(line) or _VARIANT.search(line):
            continue  # prose about a formula, or a variant set beside the definition ("uses 2^g − 1 instead")
        if stripped.startswith(("$$", "\\[")) and _VARIANT.search(introduced):
            continue  # a display formula the sentence before presents as a variant ("An alternative formulation …:")
        for name, value, pattern in FORMULAS:
            if not declared.stated(name) and pattern.search(line):
                found.setdefault(name, {}).setdefault(value, line.strip())
    return Declared({name: [Statement(value, quote, "chapter")] for name, values in found.items() if len(values) == 1
                     for value, quote in values.items()})


def cited_in(text: str) -> frozenset[str]:
    """The ``SOURCES`` a text cites or follows by name."""
    return frozenset(key for key, (_, cue) in SOURCES.items() if re.search(cue, text or "", re.IGNORECASE))

NOUNS = {"prefix": "which prefix is evaluated", "precision_denominator": "the P@k denominator",
         "repeated_ids": "how repeated IDs are handled", "ties": "the tie rule",
         "unjudged": "how unjudged documents count", "gain": "the nDCG gain", "discount": "how DCG discounts a rank", "ideal": "how the ideal DCG is built",
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
    #: The ``SOURCES`` the text cites or follows: an unstated convention is also read as they define it.
    cited: frozenset[str] = frozenset()
    #: (convention, value) pairs the text itself computes a measure with elsewhere (a row "nDCG@5, exponential gain"
    #: encoded as ``nDCG(dcg='exp-log2')@5``; a claim whose sentence states the value, about the text's own numbers or
    #: a library it names: ``claims._readings_used``): a text that computes both gains leaves a reader of a plain
    #: "nDCG@5" to wonder which, so that value is a reading of its unstated convention. A reference option a sentence
    #: names (``rel=2``, trec_eval's ``-l 2``) binds that sentence only and is not one.
    used: frozenset[tuple[str, str]] = frozenset()

    def values(self, name: str) -> tuple[str, ...]:
        """The values a claim is evaluated under: the stated one(s), or every value when unstated."""
        stated = self.statements.get(name)
        if not stated:
            return CONVENTIONS[name].values
        return tuple(dict.fromkeys(s.value for s in stated))

    def stated(self, name: str) -> bool:
        return bool(self.statements.get(name))

    def reads(self, name: str, value: str) -> bool:
        """Whether the text is read with ``value`` of ``name``: it states it, or leaves the convention unstated and
        a reference's default, the measure's defining source or a source the text cites reads it so."""
        if self.stated(name):
            return value in self.values(name)
        return CONVENTIONS[name].reads(value, self.cited) or (name, value) in self.used

    def tried(self, name: str) -> tuple[str, ...]:
        """The values a claim is checked under: the stated one(s), or, when unstated, every value someone reads the
        text with (``reads``); the first value stays when nobody reads any."""
        values = self.values(name)
        if self.stated(name):
            return values
        return tuple(v for v in values if self.reads(name, v)) or values[:1]

    def tensions(self) -> dict[str, list[Statement]]:
        """Conventions set to two or more different values by the same text."""
        return {name: stated for name, stated in self.statements.items()
                if len({s.value for s in stated if s.origin != "claim"}) > 1}

    def overlay(self, other: "Declared") -> "Declared":
        """``other``'s statements replace this one's, convention by convention."""
        merged = dict(self.statements)
        merged.update({k: v for k, v in other.statements.items() if v})
        return Declared(merged, self.cited | other.cited, self.used | other.used)

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
