"""The claim kinds a register holds (value, comparison, arithmetic, statistic, convention, property, code, systems,
draft, not checkable): each a model with its fields and the checks a single claim's fields allow. The register file (``ClaimsFile``) and a loaded chapter (``Chapter``) with the conventions each claim is
checked under (``own_conditions``).
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from pathlib import Path
from pydantic import Field, StrictFloat, StrictInt, StrictStr, field_validator, model_validator
from typing import Annotated, Literal, Union

from audit.measures.conventions import CONVENTIONS, Declared, declared_from, Statement
from audit.model.limits import MAX_GRADE, MAX_QUOTE_CHARS, MAX_RANDOM_CASES, MAX_SEARCH_SECONDS, MAX_UNIVERSE_CASES
from audit.model.universe import PREMISES
from audit.register.fields import (
    _as_plain,
    _check_conventions,
    Claimed,
    CLAIMS_FILE,
    Cohort,
    ConventionsSpec,
    Derived,
    Fixture,
    Grade,
    Id,
    Identity,
    Strict,
)
from audit.register.options import OPTIONAL_REFERENCES, reference_call, REFERENCE_NAMES
from audit.text.chapter import Snapshot


class ClaimBase(Strict):
    """Fields every claim has. ``rewording``: an author-side replacement text, shown after the harness's
    own checked proposal and labelled as unchecked, when the
    computed verdict is qualified or contradicted (it never decides the verdict)."""

    id: Id
    title: str
    quote: str = Field(min_length=1, max_length=MAX_QUOTE_CHARS)
    prefix: str = Field("", max_length=MAX_QUOTE_CHARS)   # text just before the quote, to tell repeats apart
    suffix: str = Field("", max_length=MAX_QUOTE_CHARS)   # text just after it
    line: int | None = Field(None, ge=1)  # where the quote was when the claim was written (a hint)
    claim: str = Field(min_length=1)
    note: str = ""
    rewording: str = ""
    conventions: ConventionsSpec = {}  # conventions this claim's own sentence states ("under the listed order")
    #: What ``audit init`` derived from the claim's sentence (``Derived``); absent on a claim written by hand.
    derived: Derived | None = None

    @field_validator("conventions")
    @classmethod
    def _conventions_known(cls, value):
        return _check_conventions(value)


class Expect(Strict):
    """One claimed value. ``aggregate`` says how a value over several needs is read: ``mean`` of
    per-need values (MRR, mean recall; the default), ``pooled`` (Σ found / Σ |R|: the share of all
    relevant material, recall only) or ``both`` (the wording fits either; both are checked). Unset: the
    chapter's ``averaging`` convention, or every averaging when the chapter does not state it."""

    measure: str
    claimed: Claimed
    tolerance: str | None = None
    derived: str = ""
    query: str | None = None
    aggregate: Literal["mean", "pooled", "both"] | None = None
    #: The sentence says what one implementation returns. A reference ("ranx's rbp.80 gives 0.328", "trec_eval
    #: leaves it out, so MAP is 0.875": trec_eval, pytrec_eval, ir_measures, ranx): its value decides; the chapter's
    #: definitions and the other references are shown. Another library ("ml_metrics' apk returns 0.5"): the
    #: chapter's definitions under the claim's stated conventions (that library's reading, each with its quote)
    #: decide, and the references, which follow their own, are shown without qualifying it.
    #: A reference may carry the options the sentence names ("trec_eval -J", "trec_eval -l 2 -M 10", "ir_measures
    #: judged_only"): it is then run with them (``audit.register.options``).
    by: str | None = Field(None, pattern=r"^[A-Za-z][A-Za-z0-9_.-]{0,40}( +[-A-Za-z0-9_=.]{1,20}){0,6}$")
    #: The text's own name or notation for a variant it defines ("AP₁@K divides by the relevant items in the top K",
    #: beside AP₂@K): the variant's definition is the claim's stated conventions (each with its quote), the value is
    #: held to the chapter's definitions under them, and the references, which compute the standard measure, are
    #: notes in the ledger, not qualifications.
    named: str | None = Field(None, min_length=1, max_length=40, pattern=r"^[^\x00-\x1f]+$")
    #: The ideal order the sentence prints, grades best first ("against the ideal order 3, 2, 1": "3, 2, 1"): the
    #: readings of how the ideal DCG is built that give another order are not tried, and the order is checked.
    ideal: str | None = Field(None, pattern=r"^\s*-?\d+(\s*[, ]\s*-?\d+)*\s*$", max_length=200)
    #: The chapter's notebook prints this value: ``"cell 5"`` (the one number cell 5's outputs show) or ``"cell 5: MRR"``
    #: (the number printed after the label ``MRR``). When the notebook runs, its number is held to the chapter's
    #: claimed value and to the chapter's definitions; a difference is a finding on the notebook (``--fail-on
    #: notebook``), not on the sentence, whose verdict the definitions decide.
    notebook: str | None = Field(None, pattern=r"^cell [1-9][0-9]{0,4}(: .{1,80})?$")

    @field_validator("by")
    @classmethod
    def _by_options_known(cls, value):
        reference_call(value)  # a ValueError naming an option the reference cannot be run with
        return value

    def ideal_grades(self) -> list[int] | None:
        """``ideal`` as grades, zeros left out (a zero adds nothing to an ideal DCG)."""
        if self.ideal is None:
            return None
        return [g for g in (int(t) for t in self.ideal.replace(",", " ").split()) if g > 0]


class ValueClaim(ClaimBase):
    """A measure on a fixture gives the printed value(s) (``expect``). ``page``: where the book prints the value, as
    its author finds it in print or proofs ("p. 214, Table 23.2"); the report shows it with the claim."""

    kind: Literal["value"]
    fixture: str | Fixture
    expect: list[Expect] = Field(min_length=1)
    #: Where the book prints the value ("p. 214, Table 23.2", "Figure 4.1"): shown with the claim; it decides nothing.
    page: str = Field("", max_length=120, pattern=r"^[^\x00-\x1f\x7f]*$")


class Change(Strict):
    measure: str
    after_measure: str | None = None
    change: Literal["increases", "decreases", "unchanged"]
    before: Claimed | None = None
    after: Claimed | None = None


class ComparisonClaim(ClaimBase):
    kind: Literal["comparison"]
    before: str | Fixture
    after: str | Fixture
    expect: list[Change] = Field(min_length=1)


class SetMeasure(Strict):
    cohort: str
    measure: Literal["SetP", "SetR"]
    selected: list[str] = Field(min_length=1)
    among: list[str] | None = None


class Computes(Strict):
    """What an arithmetic expression is the text's computation of: ``measure`` on ``fixture`` (one ``query``, or
    the value over all queries)."""

    measure: str
    fixture: str | Fixture
    query: str | None = None


class ArithmeticClaim(ClaimBase):
    kind: Literal["arithmetic"]
    expression: str
    claimed: Claimed
    tolerance: str | None = None
    set_measure: SetMeasure | None = None
    #: The expression is how the text computes this measure ("DCG@5 = 3 + 1.26 + 1.5 + 0.39 = 6.15"): the printed
    #: value is checked against the expression and against the measure's exact value, and a difference that
    #: rounding the printed terms explains is named as such.
    computes: Computes | None = None


#: The tests a ``statistic`` claim may name (each declared, with what it computes, in
#: ``audit.evaluation.significance.TESTS``): four significance tests and the percentile bootstrap on paired per-query
#: values, two unpaired t-tests on two samples (Student's, equal variances; Welch's, unequal variances), and two
#: corrections of a family of printed p-values.
TESTS = ("paired t", "sign", "permutation", "wilcoxon", "bootstrap", "student t", "welch t", "bonferroni", "holm")


#: The tests that compare two independent samples (``data.a`` and ``data.b``, of any lengths), not paired values.
UNPAIRED = ("student t", "welch t")


#: What a ``statistic`` claim's expectation may print: the p-value, the test statistic (t for a t-test, the number
#: of positive differences for the sign test, W for Wilcoxon), a t-test's degrees of freedom, the mean difference,
#: Cohen's d (for paired data the mean difference over the differences' standard deviation; for two samples over
#: the pooled standard deviation, or for Welch's test the root mean of the two variances), a bootstrap confidence
#: interval ("[0.01, 0.09]") and a corrected p-value.
STATISTICS = ("p", "t", "df", "positives", "W", "mean difference", "d", "interval", "adjusted p")


class PairedData(Strict):
    """What a test runs on: per-query values of two systems (``a``, ``b``, the same queries in the same order) or
    their differences (``differences``: a − b), numbers as the text prints them (kept exact); for an unpaired test
    (``student t``, ``welch t``), ``a`` and ``b`` are two samples, of any lengths; or ``measure`` with
    ``a`` and ``b`` naming two fixtures on the same queries (the per-query values are then the chapter's
    definitions of the measure on each); or, for a correction (bonferroni, holm), ``p_values``: the family's raw
    p-values as printed, by comparison name."""

    a: list[Claimed] | str | None = Field(None, max_length=1000)
    b: list[Claimed] | str | None = Field(None, max_length=1000)
    differences: list[Claimed] | None = Field(None, max_length=1000)
    measure: str | None = None
    p_values: dict[str, Claimed] | None = Field(None, max_length=1000)

    @model_validator(mode="after")
    def _one_shape(self):
        if self.p_values is not None:
            if self.a is not None or self.b is not None or self.differences is not None or self.measure is not None:
                raise ValueError("p_values is a family of printed p-values; give it alone")
            return self
        if self.measure is not None:
            if not isinstance(self.a, str) or not isinstance(self.b, str) or self.differences is not None:
                raise ValueError("with measure, a and b name two fixtures (the systems' runs on the same queries)")
            return self
        if isinstance(self.a, str) or isinstance(self.b, str):
            raise ValueError("a and b name fixtures only with measure (the measure computed on each); otherwise "
                             "give the per-query values")
        if (self.differences is None) == (self.a is None and self.b is None):
            raise ValueError("give either differences or both a and b")
        if self.differences is None and (self.a is None or self.b is None):
            raise ValueError("a and b must both be given, with one value per query each")
        return self


class StatExpect(Strict):
    statistic: Literal["p", "t", "df", "positives", "W", "mean difference", "d", "interval", "adjusted p"]
    claimed: Claimed
    tolerance: str | None = None
    #: For a correction (bonferroni, holm): which comparison of ``data.p_values`` the printed adjusted p is for.
    comparison: str | None = None


class Reported(Strict):
    """A t-test as a paper reports it, without its data ("t(4) = 2.39, p = .04"): the statistic as printed, its
    degrees of freedom as printed (an integer; Welch's test prints a decimal, "17.3", quoted as printed) and the
    p-value as printed ("= .04", "< .05")."""

    t: Claimed
    df: Claimed
    p: Claimed


class StatisticClaim(ClaimBase):
    """A statistical comparison the text reports: ``test`` (``TESTS``) on ``data``, the printed statistics
    (``expect``) and the decision it draws (``decision``: significant or not, at ``alpha``).

    Whether the test is one- or two-sided is the claim's ``sided`` when the text says so; otherwise both are read
    (a one-sided test is a reading a reader may take). ``comparisons`` is the size of the family the test belongs
    to (several systems against one baseline); with more than one and no ``correction`` stated, the decision is read
    uncorrected and Bonferroni-corrected. A bootstrap interval is at ``confidence``. A correction (bonferroni,
    holm) of printed p-values names the comparisons that stay ``significant``. Without data, ``reported`` (a
    t-test's t, df and p as printed) is checked for its internal consistency, as statcheck does."""

    kind: Literal["statistic"]
    test: Literal["paired t", "sign", "permutation", "wilcoxon", "bootstrap", "student t", "welch t", "bonferroni",
                  "holm"]
    data: PairedData | None = None
    reported: Reported | None = None
    sided: Literal["two", "greater", "less"] | None = None
    expect: list[StatExpect] = Field(default_factory=list, max_length=10)
    decision: Literal["significant", "not significant"] | None = None
    alpha: Claimed = "0.05"
    confidence: Claimed = "0.95"
    comparisons: int = Field(1, ge=1, le=10_000)
    correction: Literal["none", "bonferroni"] | None = None
    significant: list[str] | None = None
    #: The random resamples (or sign flips) a bootstrap or randomization test drew, when the text says ("10,000
    #: resamples", ``n_resamples=10000``): its printed value is then a Monte Carlo estimate, held to the exact value
    #: within that many resamples' error (``audit.evaluation.monte_carlo``).
    resamples: int | None = Field(None, ge=100, le=100_000_000)
    zero_method: Literal["wilcox", "pratt", "zsplit"] | None = None
    continuity: bool | None = None

    @model_validator(mode="after")
    def _wilcoxon_options(self) -> "StatisticClaim":
        """How a Wilcoxon test treats zero differences and whether its normal approximation is continuity-corrected
        are scipy.stats.wilcoxon's ``zero_method`` and ``correction``, for the text that states them; unstated, they
        are scipy's defaults (``wilcox``: zeros dropped; no correction). No other test has them."""
        for name in ("zero_method", "continuity"):
            if getattr(self, name) is not None and self.test != "wilcoxon":
                raise ValueError(f"`{name}` applies only to test: wilcoxon (this claim's test is {self.test})")
        return self


#: Older spellings of a rule → the convention value it names (``audit.measures.conventions``).
RULE_SPELLINGS = {"reference order": "listed order", "zero": "non-relevant", "condensed": "removed"}


#: The rules a convention claim may state: each convention's values (``averaging: pooled`` is not a per-query rule,
#: so no probe can show it), two tie rules that are not readings of the evaluator, and the cutoff.
CONVENTION_RULES: dict[str, tuple[str, ...]] = {
    **{name: tuple(v for v in c.values if v != "pooled") for name, c in CONVENTIONS.items()},
    "ties": CONVENTIONS["ties"].values + ("relevant first", "relevant last"),
    "cutoff": ("first k", "whole ranking"),
}


def canonical_rule(convention: str, rule: str) -> str:
    """``rule`` in the spelling of ``CONVENTION_RULES`` (``reference order`` → ``listed order``)."""
    return RULE_SPELLINGS.get(rule, rule)


class ConventionClaim(ClaimBase):
    """How an evaluator behaves on a probe: the chapter's own rule, or with ``by`` what one reference does
    ("trec_eval's -l 2 leaves ndcg's gains alone", "ranx divides P@k by k")."""

    kind: Literal["convention"]
    convention: str
    rule: str
    probe: str | Fixture
    measures: list[str] = Field(min_length=1)
    by: str | None = None
    #: What the text goes on to say each named reference does instead ("ir-measures and ranx keep only the last
    #: occurrence": ``{ir_measures: keep last, ranx: keep last}``; per measure where one library differs between
    #: measures: ``{ir_measures: {"RR@4": docno ascending, RR: docno descending}}``). Each is checked on the probe:
    #: a reference doing what the text says of it does not qualify the claim (the reader is told); one that does not
    #: contradicts it.
    others: dict[str, str | dict[str, str]] = {}

    @model_validator(mode="after")
    def _rule_known(self) -> "ConventionClaim":
        if self.convention not in CONVENTION_RULES:
            raise ValueError(f"convention {self.convention!r} is not known; expected one of "
                             f"{', '.join(CONVENTION_RULES)}")
        rules = CONVENTION_RULES[self.convention]
        if canonical_rule(self.convention, self.rule) not in rules:
            raise ValueError(f"rule {self.rule!r} is not a known {self.convention} rule; "
                             f"expected one of {', '.join(rules)}")
        if self.by is not None and self.by.lower() not in REFERENCE_NAMES and self.by.lower() not in \
                OPTIONAL_REFERENCES:
            raise ValueError(f"by: {self.by!r} is not a reference of this audit "
                             f"({', '.join([*REFERENCE_NAMES, *OPTIONAL_REFERENCES])}); "
                             "what another library does cannot be probed here — state its reading as a value "
                             "claim's conventions, with `by:` on the expectation")
        if self.others and self.by is not None:
            raise ValueError("others: names what other references do beside the chapter's rule; a sentence about one "
                             "reference (`by:`) has no chapter rule to set them against")
        for name, said in self.others.items():
            if name.lower() not in REFERENCE_NAMES:
                raise ValueError(f"others: {name!r} is not a reference of this audit ({', '.join(REFERENCE_NAMES)})")
            for measure, told in (said.items() if isinstance(said, dict) else [(None, said)]):
                if canonical_rule(self.convention, told) not in rules:
                    raise ValueError(f"others: {name}: rule {told!r} is not a known {self.convention} rule; expected "
                                     f"one of {', '.join(rules)}")
                if measure is not None and measure not in self.measures:
                    raise ValueError(f"others: {name}: {measure!r} is not one of the probe's measures "
                                     f"({', '.join(self.measures)})")
        return self

    def told(self, reference: str, measure: str) -> str | None:
        """The rule the text says ``reference`` (an audit reference name) follows for ``measure``, or None."""
        for name, said in self.others.items():
            if REFERENCE_NAMES[name.lower()] == reference:
                rule = said.get(measure) if isinstance(said, dict) else said
                return canonical_rule(self.convention, rule) if rule is not None else None
        return None


class UniverseSpec(Strict):
    """The exhaustive search space of a property claim (see ``audit.model.universe.Universe``)."""

    max_length: int = Field(5, ge=0, le=8)
    documents: int = Field(6, ge=1, le=10)
    grades: list[Grade] = Field(default_factory=lambda: [0, 1], min_length=2, max_length=2 * MAX_GRADE + 1)
    max_k: int = Field(6, ge=1, le=10)
    unjudged: bool = True
    relevant: int | None = Field(None, ge=0, le=10)
    #: Each case a run of this many queries, for a statement about values over queries ("GMAP is never larger than
    #: MAP"): every measure combines its per-query values as over a run.
    queries: int = Field(1, ge=1, le=3)

    @model_validator(mode="after")
    def _meaningful(self) -> "UniverseSpec":
        from audit.model.universe import Universe

        if self.max_length < 1:
            raise ValueError("max_length: 0 keeps only empty rankings, on which every measure is 0, so the search "
                             "would exercise nothing; give at least 1")
        if max(self.grades) < 1:
            raise ValueError(f"grades {self.grades} hold no relevant grade (1 or more): no case of the universe "
                             "has a relevant document, so the search would exercise nothing")
        if self.relevant == 0:
            raise ValueError("relevant: 0 keeps only cases without a relevant document, so the search would "
                             "exercise nothing; give at least 1")
        if self.relevant is not None and self.relevant > self.documents:
            raise ValueError(f"relevant: {self.relevant} is more than the {self.documents} documents of the universe")
        size = Universe(self.max_length, self.documents, tuple(self.grades), self.max_k, self.unjudged,
                        queries=self.queries).size()
        if size > MAX_UNIVERSE_CASES:
            raise ValueError(f"the universe has {size:,} cases, more than the limit of {MAX_UNIVERSE_CASES:,}; "
                             "use fewer grades, documents or a shorter max_length (the random stage goes further)")
        return self


class SearchSpec(Strict):
    """The random stage: ``random_cases`` Hypothesis cases up to ``max_length``, seeded."""

    random_cases: int = Field(2000, ge=0, le=MAX_RANDOM_CASES)
    max_length: int = Field(30, ge=1, le=200)
    seed: int = Field(20261130, ge=0, lt=2**64)
    time_limit: float = Field(60.0, gt=0, le=MAX_SEARCH_SECONDS)


PROPERTY_PREMISES = tuple(PREMISES)


PROPERTY_TRANSFORMS = ("promote_second_relevant", "change_after_first_relevant", "add_unretrieved_relevant",
                       "regrade_positives", "judge_unjudged_as_zero")


class PropertyClaim(ClaimBase):
    """A universal statement: ``measure`` (no cutoff) related to the next cutoff, a transformed
    case, or another measure, for every case searched."""

    kind: Literal["property"]
    measure: str
    #: ``rises or falls``: not a universal statement but its denial in both directions ("raising k can raise or
    #: lower precision"): the search must find a case where the measure rises and one where it falls.
    relation: Literal["increases", "decreases", "never decreases", "never increases", "unchanged", "equals",
                      "never exceeds", "never below", "always below", "always exceeds", "between", "rises or falls"]
    compare: Literal["next_cutoff", "transform", "measure", "constant"]
    transform: Literal[PROPERTY_TRANSFORMS] | None = None
    #: The measure compared with; for ``relation: between``, the two it lies between ("F1 always lies between
    #: precision and recall": ``[P, R]``).
    other: str | list[str] | None = None
    #: ``compare: constant``: the number the measure is related to ("never exceeds 1", "never below 0").
    bound: Claimed | None = None
    #: The cutoff both sides are taken at: every k of the search, or each case's |R| ("R-precision equals
    #: recall at rank |R|"; a case with no relevant document has no such cutoff and is skipped).
    at: Literal["k", "|R|", "whole ranking"] = "k"
    #: The conventions the ``other`` side is computed under, where the statement compares one measure under two
    #: conventions ("dividing by the relevant retrieved can only raise AP@k compared with dividing by |R|": the
    #: claim's ``conventions`` state one, ``other_conventions`` the other). Searched by the chapter's definitions
    #: only: each reference computes its own convention.
    other_conventions: ConventionsSpec = {}
    #: A premise the statement is conditioned on (``audit.model.universe.PREMISES``): only cases satisfying
    #: it are searched ("a perfect first result guarantees ERR ≥ 15/16": ``given: first result top grade``).
    given: Literal[PROPERTY_PREMISES] | None = None
    universe: UniverseSpec = UniverseSpec()
    search: SearchSpec = SearchSpec()

    @model_validator(mode="after")
    def _complete(self) -> "PropertyClaim":
        if self.compare == "transform" and self.transform is None:
            raise ValueError(f"compare: transform needs a transform, one of {', '.join(PROPERTY_TRANSFORMS)}")
        if self.compare == "measure" and self.other is None:
            raise ValueError("compare: measure needs `other`, the measure to compare with")
        if self.compare == "constant" and self.bound is None:
            raise ValueError("compare: constant needs `bound`, the number the measure is related to (e.g. 1)")
        if self.at == "whole ranking" and self.compare == "next_cutoff":
            raise ValueError("at: whole ranking takes no cutoff, so there is no next cutoff to compare with")
        if self.at == "|R|" and self.compare in ("next_cutoff", "transform"):
            raise ValueError(f"at: |R| fixes the cutoff; it compares two measures or a measure and a bound, not "
                             f"{'the next cutoff' if self.compare == 'next_cutoff' else 'a transformed case'}")
        if self.bound is not None and self.compare != "constant":
            raise ValueError("bound is the number of compare: constant; drop it or set compare: constant")
        if (self.relation == "between") != isinstance(self.other, list):
            raise ValueError("relation: between takes compare: measure and `other: [A, B]`, the two measures the "
                             "measure lies between; any other relation takes one measure in `other`")
        if isinstance(self.other, list) and (len(self.other) != 2 or self.compare != "measure"):
            raise ValueError("relation: between needs compare: measure and exactly two measures in `other`")
        if self.universe.queries > 1 and (self.compare == "transform" or self.at == "|R|"):
            raise ValueError("a universe of runs (queries > 1) compares values over queries: a measure, a bound or the "
                             "next cutoff, not a transformed case or each case's |R|")
        if self.other_conventions and self.compare != "measure":
            raise ValueError("other_conventions sets the conventions of the `other` measure; it needs compare: measure")
        return self

    @field_validator("other_conventions")
    @classmethod
    def _other_conventions_known(cls, value):
        return _check_conventions(value)

    def other_reading(self) -> dict[str, str]:
        """``other_conventions`` as convention → value (each one's first statement)."""
        return {name: items[0]["value"] for name, items in _as_plain(self.other_conventions).items()}

    @property
    def others(self) -> list[str]:
        """The measure(s) compared with (``other`` as a list)."""
        return [] if self.other is None else list(self.other) if isinstance(self.other, list) else [self.other]


#: What a listing's function may take, by the role each argument plays (``CodeClaim.arguments``).
CODE_ROLES = ("ranking", "relevant set", "cutoff", "cutoffs", "ranked grades", "judged grades", "relevant count",
              "qrels", "scores",
              "scored pairs", "run", "scored run", "qrels by query", "ranked grades by query", "per-query values",
              "constant")


#: The roles that hand a listing graded judgements: the grades of the ranked documents in rank order (unjudged 0),
#: every judged grade of the query (in no particular order; what an ideal DCG is sorted from), or a {document: grade}
#: mapping of one query's judgements.
GRADED_ROLES = ("ranked grades", "judged grades", "qrels")

#: The number of relevant documents the query has (|R|, those not retrieved included), which a listing over ranked
#: grades cannot count from them: ``recall_at_k(r, k, total_relevant)``.
COUNT_ROLES = ("relevant count",)


#: The roles that hand a listing one query's ranking as scores: a {document: score} mapping, or a list of
#: (document, score) pairs; neither in rank order (the listing must sort by score, highest first).
SCORED_ROLES = ("scores", "scored pairs")


#: The roles of a listing over several queries: a run ({query: [document, …]} in rank order, or, as pytrec_eval and
#: ranx take it, {query: {document: score}}) with qrels by query ({query: {document: grade}}); the grades of each
#: query's ranked documents, a list a query ([[grade, …], …], the shape of the widely copied rank_metrics.py); or
#: the measure's per-query values ({query: value}), which the listing combines.
MULTI_ROLES = ("run", "scored run", "qrels by query", "ranked grades by query", "per-query values")


#: Roles any listing may add to its input: its cutoff(s) and fixed constants (``CodeClaim.constants``).
ANY_ROLES = ("cutoff", "cutoffs", "constant")


#: What the function returns (``CodeClaim.shape``): one number (the measure on its input, or over the run); a
#: mapping query → the measure on that query (or a list in query order); the measure at each cutoff, as a list (or
#: a mapping k → value) at each of the ``cutoffs`` argument's cutoffs, at 1 … k with a ``cutoff`` argument, else
#: at 1 … the ranking's length.
SHAPES = ("number", "per query", "at each k")


class ShownCall(Strict):
    """A call of the listing's function that the text prints ("Called as `ndcg_at_k([2, 3, 0, 1, 3], 5)` it
    returns 0.79", or a doctest's ``>>> ndcg_at_k(r, 3)`` with its output): ``call``, exactly as printed, each
    argument a literal value or a name of ``given``; ``returns``, the value the text says it returns (omitted when
    the text shows the call without a result); ``raises``, the exception a doctest expects instead (its last line,
    ``ValueError`` or ``ValueError: k is past the end``); ``given``, each name the call passes → the literal the text
    assigns it before the call, as printed (``{relevance: "[3, 2, 3, 0, 1, 2]"}`` for ``relevance = [3, 2, 3, 0, 1,
    2]`` in the text or ``>>> r = [0, 1, 0]`` earlier in the doctest)."""

    call: str = Field(min_length=1, max_length=2000)
    returns: Claimed | None = None
    tolerance: str | None = None
    raises: str | None = Field(None, min_length=1, max_length=300)
    given: dict[str, Annotated[StrictStr, Field(min_length=1, max_length=2000)]] = Field(default_factory=dict,
                                                                                    max_length=20)

    @model_validator(mode="after")
    def _one_outcome(self) -> "ShownCall":
        if self.raises is not None and self.returns is not None:
            raise ValueError("a shown call either returns a value or raises an exception; give returns or raises")
        if self.raises is not None and not re.fullmatch(r"[A-Za-z_][\w.]*(?::.*)?", self.raises.strip(), re.S):
            raise ValueError(f"raises: {self.raises!r} is not an exception as a doctest prints it "
                             "(ValueError, or ValueError: its message)")
        for name in self.given:
            if not name.isidentifier():
                raise ValueError(f"given: {name!r} is not a Python name")
        return self


class CodeClaim(ClaimBase):
    """A code listing in the chapter said to compute a measure (checked by the code checker): ``function``, defined
    in the listing that holds the quote; ``measure`` (``R@k``: the cutoff comes from the ``cutoff`` argument);
    ``arguments``: each parameter of the function → its role (``CODE_ROLES``). Checked at load: the listing, the
    function, its parameters and the measure."""

    kind: Literal["code"]
    function: str
    measure: str
    arguments: dict[str, str] = {}
    #: Calls the text shows, each run as printed and compared with its printed result and with the chapter's
    #: definitions on the same input.
    calls: list[ShownCall] = Field(default_factory=list, max_length=50)
    #: Which of the listings holding the quote the claim means, counted from 1 in reading order, where several do (a
    #: first version of a function and a later one printing the same ``def`` line); required then, omitted otherwise.
    occurrence: int | None = Field(None, ge=1, le=1000)
    #: A line of each earlier listing the text builds on ("def dcg(grades):"): the function may use what they define.
    builds_on: list[str] = Field(default_factory=list, max_length=20)
    #: What the function returns (``SHAPES``): a number (the default), ``per query`` or ``at each k``.
    shape: Literal["number", "per query", "at each k"] = "number"
    #: The value each ``constant`` argument is called with (``{p: 0.8}``); a constant left out here takes the
    #: literal default the listing prints.
    constants: dict[str, StrictInt | StrictFloat | StrictStr | None] = Field(default_factory=dict, max_length=20)
    #: What each element of a returned tuple is, in order (``rbp(ranking, relevant, p)`` returning ``(score,
    #: residual)``: ``[RBP(p=0.8), residual]``): a measure, or a quantity of ``listing_rules.RETURNED`` (checked by
    #: ``audit.evaluation.checks.returned``, element by element).
    returns: list[Annotated[StrictStr, Field(min_length=1, max_length=200)]] | None = Field(None, min_length=1,
                                                                                            max_length=10)
    #: The random resamples a Monte Carlo listing draws (a bootstrap's or a randomization test's), for its error.
    resamples: int | None = Field(None, ge=100, le=100_000_000)


class StandingPart(Strict):
    """One half of a sentence comparing a system with others: ``says``, the words of the quote it encodes ("is the
    best of the three on MAP"); ``system``; ``relation`` (``audit.register.listing_rules.RELATIONS``); ``others``,
    the systems it is compared with one by one (for ``beats``, ``loses to``, ``only loses to``, ``only beats``);
    ``measure``, which of the claim's tables it reads (needed when there are several)."""

    says: str = Field(min_length=1, max_length=500)
    system: str = Field(min_length=1, max_length=200)
    relation: Literal["best", "worst", "beats", "loses to", "only loses to", "only beats"]
    others: list[str] = Field(default_factory=list, max_length=100)
    measure: str | None = Field(None, min_length=1, max_length=100)


class StandingClaim(ClaimBase):
    """A statement comparing one system with several on the per-topic tables it rests on ("System A is the best of
    the three on MAP and only loses to System 2 on nDCG@10"): ``tables``, for each measure as the text names it, each
    system's per-topic values as printed (the same topics in the same order), read as their means; ``parts``, one a
    half of the sentence (checked by ``audit.evaluation.checks.standing``)."""

    kind: Literal["systems"]
    tables: dict[str, dict[str, list[Claimed]]] = Field(min_length=1, max_length=20)
    parts: list[StandingPart] = Field(min_length=1, max_length=20)


class DraftClaim(ClaimBase):
    """A statement found by the numeric scan that still needs encoding (reported as pending)."""

    kind: Literal["draft"]
    statement: str = ""


class NotCheckableClaim(ClaimBase):
    kind: Literal["not checkable"]
    reason: str = Field(min_length=1)


Claim = Annotated[Union[ValueClaim, ComparisonClaim, ArithmeticClaim, ConventionClaim, PropertyClaim, CodeClaim,
                        StatisticClaim, StandingClaim, DraftClaim, NotCheckableClaim], Field(discriminator="kind")]


KINDS = ("value", "comparison", "arithmetic", "convention", "property", "code", "statistic", "systems", "draft",
         "not checkable")


class ClaimsFile(Strict):
    fixtures: dict[str, Fixture] = {}
    cohorts: dict[str, Cohort] = {}
    claims: list[Claim] = Field(default_factory=list)


@dataclass
class Chapter:
    """A loaded chapter: folder, identity, snapshot, register and each claim's line in claims.yaml."""

    folder: Path
    identity: Identity
    snapshot: Snapshot
    register: ClaimsFile
    lines: dict[str, int] = field(default_factory=dict)
    declared: Declared = field(default_factory=Declared)  # the book's and the chapter's stated conventions

    def declared_for(self, claim) -> Declared:
        """The conventions a claim is checked under: book, then chapter, then the claim's own (``own_conditions``:
        the register's and those its sentence states)."""
        own = own_conditions(claim)
        if not own.statements:
            return self.declared
        return self.declared.overlay(own)

    @property
    def claims_path(self) -> Path:
        return self.folder / CLAIMS_FILE

    def fixture(self, ref: "str | Fixture") -> Fixture:
        return self.register.fixtures[ref] if isinstance(ref, str) else ref


def own_conditions(claim) -> Declared:
    """The conditions a claim's own sentence states, which bind that claim whatever the chapter states elsewhere:
    the register's claim-level ``conventions``, and each convention they leave open that the quote's own wording
    states (``audit.text.stated``: "when its denominator is the full relevant set" → AP divides by |R|; "on the
    condensed list" or "trec_eval -J" → unjudged documents removed). A reading the sentence rules out is then never
    tried for it."""
    from audit.text.stated import quote_of, stated_in

    out = declared_from(_as_plain(getattr(claim, "conventions", None) or {}), "claim")
    quote = getattr(claim, "quote", None) or ""
    if getattr(claim, "kind", "") in ("convention", "not checkable", "draft"):
        return out  # a sentence about how a library behaves, or nothing to evaluate: its wording is its subject
    for name, (value, offset) in stated_in(quote).items():
        if not out.stated(name):
            out.statements[name] = [Statement(value, quote_of(quote, offset), "claim")]
    return out
