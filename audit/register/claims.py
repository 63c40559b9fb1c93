"""The claim register: schema, loading and validation of a chapter folder.

A chapter folder holds ``chapter.yaml`` (identity and snapshot), the snapshot file, and
``claims.yaml`` (fixtures, cohorts and numbered claims). Every error names the file,
the claim id and the field.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from audit.errors import AuditError, RegisterError, ValueParseError
from audit.measures.catalogue import CATALOGUE
from audit.model.rankings import check_ranking
from audit.model.universe import PREMISES
from audit.measures.conventions import (CONVENTIONS, Declared, Statement, check_value, cited_in, declared_from,
                                        formula_statements)
from audit.model.files import read_text
from audit.model.limits import (
    MAX_CLAIMS,
    MAX_COHORT,
    MAX_CUTOFF,
    MAX_GRADE,
    MAX_ID_CHARS,
    MAX_NOTEBOOK_BYTES,
    MAX_QUOTE_CHARS,
    MAX_RANDOM_CASES,
    MAX_REGISTER_BYTES,
    MAX_SEARCH_SECONDS,
    MAX_SNAPSHOT_LINES,
    MAX_UNIVERSE_CASES,
    MAX_YAML_ALIASES,
    MAX_YAML_DEPTH,
    shorten,
    trim,
)
from audit.measures.syntax import at_cutoff
from audit.measures.syntax import parse as parse_measure
from audit.model.values import parse_claimed, parse_expression
from audit.text.chapter import Snapshot

CHAPTER_FILE = "chapter.yaml"
CLAIMS_FILE = "claims.yaml"

#: A chapter or claim id: it names report files, so it is short and plain.
Id = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=100)]
#: Chapter ids that name other files of the reports folder: the book index (``index.md``, ``index.html``) and
#: ``audit crosscheck``'s default report (``crosscheck.md``, ``.json``). Compared without case (a folder on a
#: case-insensitive disk holds one of ``Index.md`` and ``index.md``).
RESERVED_IDS = ("index", "crosscheck")
#: A claimed value as written in YAML. Kept strict so an unquoted 1.0 is not silently read as the
#: integer 1 (exact) instead of the printed "1.0" (an interval); parse_claimed then asks for quotes.
Claimed = StrictStr | StrictInt | StrictFloat
#: A judged grade: a whole number within ±MAX_GRADE (negative grades are legitimate TREC input).
Grade = Annotated[StrictInt, Field(ge=-MAX_GRADE, le=MAX_GRADE)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConventionStatement(Strict):
    """A convention the text states: its value and the quote it rests on."""

    value: StrictStr | StrictInt
    quote: str = ""


#: ``conventions:`` in chapter.yaml, a book file or a claim: ``name: value``, ``name: {value, quote}``, or a
#: list of statements (two different values are an internal tension). Names and values: ``audit.measures.conventions``.
ConventionsSpec = dict[str, StrictStr | StrictInt | ConventionStatement | list[ConventionStatement]]


def _check_conventions(spec: ConventionsSpec | None) -> ConventionsSpec | None:
    for name, entry in (spec or {}).items():
        items = entry if isinstance(entry, list) else [entry]
        if not items:
            raise ValueError(f"convention {name!r} lists no statement")
        for item in items:
            problem = check_value(name, item.value if isinstance(item, ConventionStatement) else item)
            if problem:
                raise ValueError(problem)
    return spec


def _as_plain(spec: ConventionsSpec | None) -> dict:
    out: dict = {}
    for name, entry in (spec or {}).items():
        items = entry if isinstance(entry, list) else [entry]
        out[name] = [{"value": str(i.value), "quote": i.quote} if isinstance(i, ConventionStatement)
                     else {"value": str(i)} for i in items]
    return out


def unprintable(text: str) -> str:
    """The first character of ``text`` that is a control or format character, a line or paragraph separator (a
    newline, an escape, a right-to-left override…), as ``U+000A``; '' when there is none."""
    for ch in text:
        if ch in "\u2028\u2029" or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            return f"U+{ord(ch):04X}"
    return ""


def plain_path(text: str) -> str:
    """A path or name as one plain line: surrounding blanks dropped (a folded YAML scalar ends with a newline); a
    control or format character inside refused, since a name is written into the patch, the reports and the
    console, where such a character would become a line, an escape or a reordering of its own."""
    text = text.strip()
    found = unprintable(text)
    if found:
        what = f"{found}, a NUL byte" if found == "U+0000" else found
        raise ValueError(f"contains a control character ({what}); a name must be one line of printable text")
    return text


PlainPath = Annotated[str, AfterValidator(plain_path)]


class SnapshotInfo(Strict):
    """Where the chapter's text is. ``file``: the snapshot, relative to the chapter folder — a frozen copy beside
    chapter.yaml, or the manuscript itself in the book's repository (``../../book/ch23.md``), read in place.
    ``source``: where a frozen copy came from; when it names a file that exists (relative to the chapter folder)
    and its text differs from the copy's, every run says so."""

    file: Annotated[PlainPath, Field(min_length=1, max_length=255)] = "snapshot.txt"
    excerpt: bool = False
    source: PlainPath = ""

    @field_validator("file")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        if "\x00" in name:
            raise ValueError("the file name contains a NUL byte; name the snapshot file beside chapter.yaml")
        return name


class Identity(Strict):
    """Who the chapter is: book, number, title, stable id, URLs, recorded fingerprint."""

    id: Id
    book: str | None = None
    chapter: int | str | None = None
    title: str
    kind: str = "chapter"
    url: str | None = None
    research_pack: str | None = None
    #: The notebook that accompanies the chapter: a path relative to the chapter folder inside the book's repository
    #: (run in the sandbox by every audit), or a URL (not run: the sandbox has no network; reported UNVERIFIED).
    notebook: Annotated[PlainPath, Field(max_length=2000, pattern=r"^[^\x00]*$")] | None = None
    fingerprint: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    snapshot: SnapshotInfo = SnapshotInfo()
    conventions: ConventionsSpec = {}
    #: The packages the chapter's listings import beyond the standard library, as importable top-level names
    #: (``numpy``, ``scipy``, ``sklearn``); checked when the chapter loads: each must be installed where the listing
    #: sandbox finds it (chapter-audit's own environment).
    environment: list[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")]] = Field(default_factory=list,
                                                                                              max_length=50)

    @field_validator("conventions")
    @classmethod
    def _conventions_known(cls, value):
        return _check_conventions(value)

    @field_validator("id")
    @classmethod
    def _not_reserved(cls, value: str) -> str:
        if value.lower() in RESERVED_IDS:
            raise ValueError(f"{value!r} names another file of the reports folder ({value.lower()}.md, "
                             f"{value.lower()}.html{', the book index' if value.lower() == 'index' else ''}); "
                             "choose another chapter id")
        return value


class BookFile(Strict):
    """``book.yaml``: conventions every chapter of ``book`` states by default (for the chapter folders below it), and
    where the chapters are: ``chapters``, glob patterns relative to the file naming chapter folders (each holding
    a chapter.yaml), e.g. ``["claims/*", "part-*/ch*/audit"]``, read by ``audit run`` when it names no chapter."""

    book: PlainPath | None = None
    conventions: ConventionsSpec = {}
    chapters: list[Annotated[PlainPath, Field(min_length=1, max_length=300)]] = Field(default_factory=list,
                                                                                       max_length=50)

    @field_validator("conventions")
    @classmethod
    def _conventions_known(cls, value):
        return _check_conventions(value)


class Fixture(Strict):
    """Judgements and rankings: ``qrels: {query_id: {doc_id: grade}}``, ``run: {query_id: [doc_id, …]}``.

    ``scores`` (``{query_id: {doc_id: score}}``) is only for claims about ties: the run then
    gives the order the chapter's rule keeps, and the scores are what references see.
    """

    description: str = ""
    qrels: dict[str, dict[str, Grade]]
    run: dict[str, list[str]]
    scores: dict[str, dict[str, Annotated[float, Field(allow_inf_nan=False)]]] | None = None

    @model_validator(mode="before")
    @classmethod
    def _ids_as_text(cls, data: Any) -> Any:
        """Query and document IDs are text; YAML reads ``10`` as a number, so numbers become their digits."""
        if not isinstance(data, dict):
            return data
        data = dict(data)

        def ident(x: Any) -> Any:
            return str(x) if isinstance(x, int) and not isinstance(x, bool) else x

        for key in ("qrels", "scores"):
            if isinstance(data.get(key), dict):
                data[key] = {ident(q): ({ident(d): g for d, g in docs.items()} if isinstance(docs, dict) else docs)
                             for q, docs in data[key].items()}
        if isinstance(data.get("run"), dict):
            data["run"] = {ident(q): ([ident(d) for d in r] if isinstance(r, list) else r)
                           for q, r in data["run"].items()}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> "Fixture":
        ids = [("query", q) for q in {**self.qrels, **self.run}]
        ids += [("document", d) for docs in self.qrels.values() for d in docs]
        ids += [("document", d) for ranking in self.run.values() for d in ranking]
        for what, name in ids:  # a TREC file holds an ID as one whitespace-separated field
            if len(name) > MAX_ID_CHARS:
                raise ValueError(f"{what} ID {trim(name, 40)} is longer than {MAX_ID_CHARS:,} characters (the limit; "
                                 "real IDs are tens of characters, and one long ID multiplies ranx's memory by the "
                                 "number of IDs)")
            if name.split() != [name]:
                raise ValueError(f"{what} ID {name!r} is not one TREC field: an ID must be non-empty text without "
                                 "whitespace (qrels and run files separate fields by whitespace)")
            control = next((c for c in name if unicodedata.category(c) in ("Cc", "Cs")), None)
            if control is not None:  # a NUL ends the ID for trec_eval (C text); other controls are not text
                raise ValueError(f"{what} ID {name!r} holds the control character U+{ord(control):04X}: an ID must "
                                 "be printable text (letters, digits, marks and symbols of any script)")
        for q in self.run:
            if q not in self.qrels:
                raise ValueError(f"run query {q!r} has no qrels; every query of a fixture needs judgements")
        for q in self.qrels:
            if q not in self.run:
                raise ValueError(f"qrels query {q!r} has no ranking; write `{q}: []` in run if nothing was returned")
        if self.scores is not None:
            for q, ranking in self.run.items():
                given = self.scores.get(q, {})
                if sorted(given) != sorted(set(ranking)):
                    raise ValueError(f"scores for query {q!r} must give one score per ranked document")
                values = [given[d] for d in ranking]
                if any(a < b for a, b in zip(values, values[1:])):
                    raise ValueError(f"scores for query {q!r} must not increase along the ranking")
        return self


class Cohort(Strict):
    """A labelled cohort for set-based measures: ``cells: {decision: {label: count}}``."""

    description: str = ""
    positive: str = "positive"
    cells: dict[str, dict[str, Annotated[int, Field(ge=0, le=MAX_COHORT)]]]

    @model_validator(mode="after")
    def _bounded(self) -> "Cohort":
        total = sum(n for labels in self.cells.values() for n in labels.values())
        if total > MAX_COHORT:
            raise ValueError(f"the cohort has {total:,} candidates, more than the limit of {MAX_COHORT:,}")
        return self

    def candidates(self) -> list[tuple[str, str, str]]:
        """``(candidate_id, decision, label)`` for every candidate, numbered in table order."""
        out = []
        for decision, labels in self.cells.items():
            for label, count in labels.items():
                for _ in range(count):
                    out.append((f"c{len(out) + 1:03d}", decision, label))
        return out


class Derived(Strict):
    """What ``audit init`` derived from one sentence of the chapter: the sentence as it was printed then, and the
    fields it wrote for the claim, each with a short fingerprint of the value it wrote (``audit.register.derived``).
    When the sentence changes, the fields whose value is still init's are derived again from the new sentence; a
    field whose value differs from its fingerprint, or that is not listed, was written by hand and is kept."""

    sentence: str = Field(min_length=1, max_length=MAX_QUOTE_CHARS)
    fields: dict[Annotated[str, Field(pattern=r"^[a-z_]{1,40}$")],
                 Annotated[str, Field(pattern=r"^[0-9a-f]{12}$")]] = Field(default_factory=dict, max_length=40)


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


#: How a register names a reference (``by:``) → the reference's name in the audit.
from audit.register.options import OPTIONAL_REFERENCES, REFERENCE_NAMES, reference_call  # noqa: E402  (one home: the options module)

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
CODE_ROLES = ("ranking", "relevant set", "cutoff", "cutoffs", "ranked grades", "judged grades", "qrels", "scores",
              "scored pairs", "run", "scored run", "qrels by query", "ranked grades by query", "per-query values",
              "constant")
#: The roles that hand a listing graded judgements: the grades of the ranked documents in rank order (unjudged 0),
#: every judged grade of the query (in no particular order; what an ideal DCG is sorted from), or a {document: grade}
#: mapping of one query's judgements.
GRADED_ROLES = ("ranked grades", "judged grades", "qrels")
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


class _UniqueKeys:
    """Refuses a mapping that repeats a key (YAML says keys are unique; PyYAML would silently keep the last)
    or whose key is a list or mapping (``? [a, b]``)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, "a key must be plain text or a number, not a list or mapping", key_node.start_mark)
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first at line {seen[key]})", key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


class UniqueKeyLoader(_UniqueKeys, yaml.SafeLoader):
    """PyYAML's safe loader (pure Python), refusing repeated and non-scalar keys. (libyaml's loader is
    faster but reads some text otherwise: a tab between tokens, a byte-order mark inside the text, an empty
    tagged node, …; a register is read by the rules it was written against.)"""


def _shape(text: str, path: Path) -> None:
    """Refuse YAML nested deeper than ``MAX_YAML_DEPTH``, with more than ``MAX_YAML_ALIASES`` aliases, or whose
    top-level ``claims`` block list has more than ``MAX_CLAIMS`` entries, from the token stream (PyYAML's composer
    recurses once per level, so depth is checked before it runs; and composing a register takes about 10 ms a
    claim, so an oversized one is refused before it is composed)."""
    depth = aliases = entries = 0
    opening = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
               yaml.FlowSequenceStartToken)
    closing = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
    tokens = yaml.scan(text, Loader=yaml.SafeLoader)
    previous = None
    key = None          # the top-level key being read
    claims_at = None    # the depth of the entries of the top-level claims list, once known
    while True:
        try:
            token = next(tokens)
        except StopIteration:
            return
        except yaml.YAMLError:
            return  # the loader reports the first problem, with its line
        if isinstance(token, yaml.ScalarToken) and isinstance(previous, yaml.KeyToken) and depth == 1:
            key, claims_at = token.value, None
        elif key == "claims" and claims_at is None and isinstance(previous, yaml.ValueToken) and depth == 1:
            # a block list (entries one level down) or an indentless one (entries at this level); a flow list is
            # counted once composed
            claims_at = {yaml.BlockSequenceStartToken: 2, yaml.BlockEntryToken: 1}.get(type(token), -1)
        if isinstance(token, yaml.BlockEntryToken) and key == "claims" and depth == claims_at:
            entries += 1
            if entries > MAX_CLAIMS:
                raise RegisterError(f"the register has more than {MAX_CLAIMS:,} claims (the limit per chapter; "
                                    f"claim {entries:,} is at line {token.start_mark.line + 1}); split the chapter's "
                                    "claims between registers", file=str(path), field="claims")
        if isinstance(token, opening):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise RegisterError(f"nested deeper than {MAX_YAML_DEPTH} levels (the limit) at line "
                                    f"{token.start_mark.line + 1}", file=str(path))
        elif isinstance(token, closing):
            depth -= 1
        elif isinstance(token, yaml.AliasToken):
            aliases += 1
            if aliases > MAX_YAML_ALIASES:
                raise RegisterError(f"more than {MAX_YAML_ALIASES} aliases (the limit) at line "
                                    f"{token.start_mark.line + 1}; write the repeated parts out", file=str(path))
        previous = token


def _read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    if not os.path.lexists(path):
        raise RegisterError(f"missing; a chapter folder needs {CHAPTER_FILE}, {CLAIMS_FILE} and a snapshot "
                            "(see docs/register.md)", file=str(path))
    text = read_text(path, "register file", MAX_REGISTER_BYTES, RegisterError)
    try:
        _shape(text, path)
        # one pass: the document's node (for the claims' line numbers) and the data constructed from it, as
        # yaml.load and yaml.compose each give them
        loader = UniqueKeyLoader(text)
        try:
            node = loader.get_single_node()
            _no_surrogates(node, path)
            return (loader.construct_document(node) if node is not None else None), node
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise RegisterError(f"malformed YAML{where}: {shorten(problem, 200)}", file=str(path))
    except (ValueError, OverflowError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
        raise RegisterError(f"malformed YAML: a value cannot be read ({shorten(str(exc), 120)})", file=str(path))


def _no_surrogates(node: yaml.Node | None, path: Path) -> None:
    """Refuse a scalar holding a lone surrogate (``"\\ud800"``: YAML's escapes can write one, UTF-8 cannot): no
    report could be written with it."""
    seen: set[int] = set()
    pending = [node] if node is not None else []
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.ScalarNode):
            if isinstance(current.value, str) and any("\ud800" <= c <= "\udfff" for c in current.value):
                mark = current.start_mark
                raise RegisterError(f"malformed YAML at line {mark.line + 1}, column {mark.column + 1}: a lone "
                                    "surrogate escape (\\ud800–\\udfff) is not a character; write the character "
                                    "itself, or its pair of escapes as one \\U escape", file=str(path))
        elif isinstance(current, yaml.SequenceNode):
            pending.extend(current.value)
        elif isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                pending.extend((key, value))


def _claim_lines(node: yaml.Node | None) -> list[int]:
    """1-based line of each entry of the top-level ``claims`` list."""
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if getattr(key, "value", None) == "claims" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


_TYPE_TAGS = {"str", "int", "float", "bool", "list[str]", "Fixture"}
_TYPE_TAG_PREFIXES = ("function-", "lax-or-strict[")


def _is_union_tag(part: object) -> bool:
    """Whether a pydantic location part names a union member (``str``, ``Fixture``) rather than a field."""
    return isinstance(part, str) and (part in _TYPE_TAGS or part.startswith(_TYPE_TAG_PREFIXES))


def _validation_error(exc: ValidationError, path: Path, data: Any) -> RegisterError:
    """The first few pydantic errors as one message naming file, claim id and field."""
    messages = []
    first_claim = first_field = None
    for err in exc.errors()[:5]:
        loc = list(err["loc"])
        claim_id = None
        if len(loc) >= 2 and loc[0] == "claims" and isinstance(loc[1], int):
            items = data.get("claims") if isinstance(data, dict) else None
            entry = items[loc[1]] if isinstance(items, list) and loc[1] < len(items) else None
            claim_id = entry.get("id") if isinstance(entry, dict) else None
            claim_id = shorten(claim_id, 60) if isinstance(claim_id, str) and claim_id else f"#{loc[1] + 1}"
            loc = loc[2:]
            if loc and loc[0] in KINDS:  # the discriminator tag pydantic inserts
                loc = loc[1:]
        dotted = shorten(".".join(str(p) for p in loc if not _is_union_tag(p)) or "(entry)", 120)
        msg = shorten(err["msg"].removeprefix("Value error, "), 300)
        if err["type"] == "union_tag_invalid":
            kind = err.get("input", {}).get("kind") if isinstance(err.get("input"), dict) else ""
            msg = f"unknown kind {trim(kind, 60)}; expected one of {', '.join(KINDS)}"
        if err["type"] == "missing":
            msg = "required field is missing"
        if err["type"] == "extra_forbidden":
            msg = "unknown field (check its spelling)"
        messages.append((f"claim {claim_id}, " if claim_id else "") + f"field {dotted}: {msg}")
        if first_claim is None:
            first_claim, first_field = claim_id, dotted
    more = len(exc.errors()) - len(messages)
    text = "; ".join(messages) + (f"; and {more} more" if more > 0 else "")
    error = RegisterError(f"invalid register: {text}", file=str(path))
    error.claim, error.field = first_claim, first_field  # located, without repeating them in the message
    return error


def load_chapter(folder: Path | str) -> Chapter:
    """Load and validate a chapter folder.

    Raises ``RegisterError`` (file, claim id, field, what was expected) for a missing or
    malformed file, a schema violation, an unknown fixture, cohort or measure, a claimed
    value that does not parse, or a ranking that repeats an ID (outside a repeated-ID probe).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise RegisterError("not a chapter folder (expected a directory with chapter.yaml and claims.yaml)",
                            file=str(folder))
    chapter_path, claims_path = folder / CHAPTER_FILE, folder / CLAIMS_FILE
    data, _ = _read_yaml(chapter_path)
    try:
        identity = Identity.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise _validation_error(exc, chapter_path, data)
    data, node = _read_yaml(claims_path)
    if not isinstance(data, dict) or "claims" not in data:
        found = "empty" if data is None or data == {} else f"a {type(data).__name__}" if not isinstance(data, dict) \
            else "a mapping without a claims list"
        raise RegisterError(f"the register is {found}; it must be a mapping with a `claims` list (write "
                            "`claims: []` for a chapter with no claims yet)", file=str(claims_path), field="claims")
    if isinstance(data.get("claims"), list) and len(data["claims"]) > MAX_CLAIMS:
        raise RegisterError(f"the register has {len(data['claims']):,} claims, more than the limit of {MAX_CLAIMS:,} "
                            "per chapter; split the chapter's claims between registers", file=str(claims_path),
                            field="claims")
    try:
        register = ClaimsFile.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise _validation_error(exc, claims_path, data)
    snapshot_path = folder / identity.snapshot.file
    root = book_root(folder)
    try:
        problem = repository_problem(folder, identity.snapshot.file, root)
    except (OSError, ValueError, RuntimeError) as exc:  # a name too long, a link loop
        problem = f"cannot be read as a path ({type(exc).__name__}: {str(exc)[:80]})"
    if problem:
        raise RegisterError(f"snapshot.file {identity.snapshot.file!r} {problem}; give the chapter's own file "
                            "relative to the chapter folder, or keep a copy beside chapter.yaml",
                            file=str(chapter_path), field="snapshot.file")
    _check_notebook(folder, identity, root, chapter_path)
    _check_source(folder, identity, root, chapter_path)
    _check_environment(identity, chapter_path)
    try:
        snapshot = Snapshot.read(snapshot_path)
    except RegisterError as exc:  # missing, a folder, a FIFO, too large, not UTF-8, not a notebook
        raise RegisterError(f"snapshot.file {identity.snapshot.file!r} ({exc.file or snapshot_path}): {exc.message}",
                            file=str(chapter_path), field="snapshot.file") from None
    count = snapshot.text.count("\n") + (not snapshot.text.endswith("\n"))
    if count > MAX_SNAPSHOT_LINES:
        raise RegisterError(f"the snapshot has {count:,} lines, more than the limit of {MAX_SNAPSHOT_LINES:,}",
                            file=str(snapshot_path))
    lines = dict(zip((c.id for c in register.claims), _claim_lines(node)))
    declared = _book_conventions(folder, identity).overlay(declared_from(_as_plain(identity.conventions), "chapter"))
    # a listing or formula the chapter presents fixes what its stated conventions leave open (a dcg dividing the grade
    # by log2(i + 2): linear gain); the sources the text cites are readings of what is still open
    declared = declared.overlay(formula_statements(snapshot.text, declared))
    declared.cited = cited_in(snapshot.text)
    declared.used = _readings_used(register)
    chapter = Chapter(folder, identity, snapshot, register, lines, declared)
    _check_references(chapter)
    return chapter


def _readings_used(register: "ClaimsFile") -> frozenset[tuple[str, str]]:
    """The convention values the text computes a measure with elsewhere (``Declared.used``): each is then a reading of
    a sentence that leaves that convention unstated.

    - a gain named in a measure (``nDCG(dcg='exp-log2')@5``, a row "nDCG@5, exponential gain");
    - a value a claim's own sentence states (its ``conventions:``, each quoted from the text): the text computing
      the measure that way itself ("the mean over the queries that have relevant documents"), or a library it names
      doing so ("torchmetrics' retrieval_precision with adaptive_k=True shrinks k to the three results returned");
    - the rule a convention claim gives the text itself (no ``by:``).

    Not one: a claim whose values are all what trec_eval, ir-measures or ranx give under an option the sentence names
    (``by:`` a reference: trec_eval's ``-l 2``, ``-J``), which binds that sentence only, like a reference option in a
    measure's name (``rel=2``); nor a variant the text defines under its own name (``Expect.named``), which is the
    text's own measure and no reading of the standard one."""
    from audit.measures.catalogue import GAINS
    from audit.measures.syntax import parse as parse_measure

    out: set[tuple[str, str]] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("measure", "after_measure") and isinstance(v, str):
                    try:
                        spec = parse_measure(v, True)[1]
                    except AuditError:
                        continue
                    if spec is not None and spec.gain in GAINS:
                        out.add(("gain", GAINS[spec.gain]))
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    def by_reference(by: str | None) -> bool:
        return by is not None and by.lower() in REFERENCE_NAMES

    for claim in register.claims:
        if isinstance(claim, (DraftClaim, NotCheckableClaim)):
            continue
        walk(claim.model_dump(mode="json"))
        expect = getattr(claim, "expect", None) or []
        if expect and all(by_reference(getattr(e, "by", None)) or getattr(e, "named", None) is not None
                          for e in expect):
            continue
        for name, statements in declared_from(_as_plain(claim.conventions), "claim").statements.items():
            out.update((name, st.value) for st in statements)
        if isinstance(claim, ConventionClaim) and claim.by is None and claim.convention in CONVENTIONS:
            rule = canonical_rule(claim.convention, claim.rule)
            if rule in CONVENTIONS[claim.convention].values:
                out.add((claim.convention, rule))
    return frozenset(out)

BOOK_FILE = "book.yaml"
URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def notebook_path(folder: Path, identity: Identity) -> Path | None:
    """The chapter's notebook as a file of the book's repository, or None when it names none or a URL."""
    if not identity.notebook or URL.match(identity.notebook):
        return None
    return (Path(folder) / identity.notebook).resolve()


def _check_source(folder: Path, identity: Identity, root: Path, chapter_path: Path) -> None:
    """``snapshot.source`` says where a frozen copy came from: a description, a URL, or a file of the book's
    repository (compared with the copy on every run). A name that is an absolute path, or a file or link that leads
    outside the repository, is refused: the audit reads and names only the book's own files. Raises
    ``RegisterError`` naming chapter.yaml's ``snapshot.source``."""
    source = identity.snapshot.source
    if not source or URL.match(source):
        return
    try:
        path = Path(folder) / source
        problem = (repository_problem(folder, source, root)
                   if Path(source).is_absolute() or path.exists() or path.is_symlink() else "")
    except (OSError, ValueError, RuntimeError):  # a description too long to be a path, a link loop
        problem = ""
    if problem:
        raise RegisterError(f"snapshot.source {source!r} {problem}; name the "
                            "file the copy came from relative to the chapter folder, inside the repository, or "
                            "describe where it came from", file=str(chapter_path), field="snapshot.source")


def _check_environment(identity: Identity, chapter_path: Path) -> None:
    """Every package chapter.yaml's ``environment`` names must be importable in the listing sandbox. Raises
    ``RegisterError`` naming chapter.yaml, ``environment[i]`` and the package, with how to provide it."""
    from audit.evaluation.sandbox.environment import how_to_provide, importable
    for i, name in enumerate(identity.environment):
        if not importable(name):
            raise RegisterError(f"the chapter's listings need {name!r}, which is not installed where the listing "
                                f"sandbox finds packages (chapter-audit's own environment): {how_to_provide(name)}",
                                file=str(chapter_path), field=f"environment[{i}]")


def _check_notebook(folder: Path, identity: Identity, root: Path, chapter_path: Path) -> None:
    """A local ``notebook`` must be a readable notebook inside the book's repository (its folder is what the notebook
    sandbox shows the kernel). Raises ``RegisterError`` naming chapter.yaml's ``notebook``."""
    try:
        path = notebook_path(folder, identity)
        if path is None:
            return
        problem = (repository_problem(folder, identity.notebook, root)
                   or ("is not a .ipynb file" if path.suffix != ".ipynb"
                       else "names no file" if not path.is_file() else ""))
    except (OSError, ValueError, RuntimeError) as exc:  # a name too long, a NUL byte, a link loop
        problem = f"cannot be read as a path ({type(exc).__name__}: {str(exc)[:80]})"
    if problem:
        raise RegisterError(f"notebook {identity.notebook[:200]!r} {problem}; give the chapter's notebook "
                            "relative to the chapter folder, or its URL", file=str(chapter_path), field="notebook")
    import nbformat
    try:
        nbformat.reads(read_text(path, "notebook", MAX_NOTEBOOK_BYTES, RegisterError), as_version=4)
    except RegisterError as exc:
        raise RegisterError(f"notebook {identity.notebook!r}: {exc.message}", file=str(chapter_path),
                            field="notebook") from None
    except Exception as exc:  # nbformat raises JSON, validation and version errors of many types
        raise RegisterError(f"notebook {identity.notebook!r} is not a Jupyter notebook nbformat can read "
                            f"({type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else 'no detail'})",
                            file=str(chapter_path), field="notebook") from None


def hidden_part(path: Path, root: Path) -> str:
    """The first name starting with a dot (``.git``, ``.github``, ``.env``) on the way from the book's repository
    ``root`` to the resolved ``path`` — a folder or file the book keeps out of its text (credentials in
    ``.git/config``, CI workflows) — or '' when there is none. ``path`` must be resolved and inside ``root``. A
    chapter folder inside a dot-folder gets no exception: its own copy there could be a workflow file."""
    return next((part for part in path.relative_to(root).parts if part.startswith(".")), "")


def repository_problem(folder: Path, name: str, root: Path) -> str:
    """What keeps ``name`` (from chapter.yaml, relative to the chapter folder) from being read as a file of the book's
    repository ``root``: '' when nothing does; else that it is absolute or leads outside the repository (also through
    a link), or that it lies in a dot-folder or is a hidden file of the repository (``hidden_part``). The audit reads
    such a file as a chapter's text, shows it in the report and names it in the patch, so neither may be."""
    path = (Path(folder) / name).resolve()
    if Path(name).is_absolute() or not path.is_relative_to(root):
        return f"points outside the book's repository ({root})"
    hidden = hidden_part(path, root)
    if hidden:
        what = "is the hidden file" if hidden == path.name else "lies in the dot-folder"
        return (f"{what} {hidden!r} of the book's repository ({root}), which the audit neither reads as a "
                "chapter's text nor patches")
    return ""


def book_root(folder: Path) -> Path:
    """The book's repository a chapter folder lies in: the nearest folder above it holding ``.git``, else the folder
    above the one holding the chapter folders (``claims/<id>`` → the project). A chapter's manuscript may be read
    from anywhere inside it."""
    folder = folder.resolve()
    for parent in [folder, *folder.parents]:
        if (parent / ".git").exists():
            return parent
    return folder.parent.parent if folder.parent != folder else folder


def source_difference(chapter: "Chapter") -> str:
    """'' when the snapshot is the manuscript itself, or ``snapshot.source`` names no readable file, or that file's
    normalised text is the snapshot's; else a sentence saying that the frozen copy and its source differ."""
    info = chapter.identity.snapshot
    if not info.source or info.source.strip() == info.file.strip():
        return ""
    path = chapter.folder / info.source
    try:
        if not path.is_file() or repository_problem(chapter.folder, info.source, book_root(chapter.folder)):
            return ""
        source = Snapshot.read(path)
    except (OSError, AuditError, ValueError):
        return ""
    if source.fingerprint() == chapter.snapshot.fingerprint():
        return ""
    return (f"the snapshot {info.file} differs from its source {info.source}: this audit read the frozen copy; "
            f"copy the source over it (or point snapshot.file at the source) to audit the current text")


def read_book_file(path: Path) -> BookFile:
    """A ``book.yaml``, validated. Raises ``RegisterError`` naming the file and field."""
    data, _ = _read_yaml(path)
    try:
        return BookFile.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise _validation_error(exc, path, data)


def _book_conventions(folder: Path, identity: Identity) -> Declared:
    """The book's default conventions from the nearest ``book.yaml`` above the chapter folder (beside it, or higher
    up inside the book's repository), if it names this chapter's book (or names none)."""
    root = book_root(folder)
    path = next((parent / BOOK_FILE for parent in Path(folder).resolve().parents
                 if (parent / BOOK_FILE).is_file() and parent.is_relative_to(root)), None)
    if path is None:
        return Declared()
    book = read_book_file(path)
    if book.book is not None and book.book != identity.book:
        return Declared()
    return declared_from(_as_plain(book.conventions), "book")


def role_problem(roles: set[str], shape: str = "number") -> str:
    """What is wrong with a listing's set of argument roles and its return shape, in words ("" when they fit): one
    query's input, or one of the input shapes of several queries (``MULTI_ROLES``), with perhaps a cutoff, cutoffs
    and constants; ``cutoffs`` go with the shape ``at each k``; ``per query`` needs several queries' input."""
    multi = roles & set(MULTI_ROLES)
    rest = roles - set(ANY_ROLES)
    if multi and not (rest <= {"run", "scored run", "qrels by query"} and "qrels by query" in rest
                      and rest & {"run", "scored run"} and len(rest & {"run", "scored run"}) == 1
                      or rest == {"ranked grades by query"} or rest == {"per-query values"}):
        return ("a listing over several queries takes a run (run or scored run) with qrels by query, ranked grades "
                "by query, or per-query values — perhaps with a cutoff, cutoffs and constants — and nothing of one "
                "query")
    if len(roles & set(SCORED_ROLES)) + ("ranking" in roles) + ("ranked grades" in roles) > 1:
        return "one query's ranking is given once: as a ranking, ranked grades, scores or scored pairs"
    if "cutoff" in roles and "cutoffs" in roles:
        return "a function takes a cutoff or a list of cutoffs, not both"
    if "cutoffs" in roles and shape != "at each k":
        return f"shape {shape!r}: a function taking a list of cutoffs returns the measure at each k (shape: at each k)"
    if shape == "per query" and not multi - {"per-query values"}:
        return ("shape 'per query': a function returning the measure per query takes several queries' input (a run "
                "with qrels by query, or ranked grades by query)")
    return ""


def _check_stat_listing(chapter: Chapter, claim: CodeClaim, fail, params: list[str], defaults: dict,
                        source: str) -> None:
    """A listing said to compute a statistic (``listing_rules.LISTING_TESTS``): its roles, what it returns, and the
    calls the text shows."""
    from audit.register.listing_rules import register_problem
    from audit.text.doctests import given_problem

    problem = register_problem(claim, params, defaults, source)
    if problem:
        raise fail(*problem)
    for i, shown in enumerate(claim.calls):
        try:
            shown_arguments(claim, shown.call, params, defaults, shown.given)
        except AuditError as exc:
            raise fail(f"calls[{i}].given" if exc.field == "given" else f"calls[{i}].call", exc.message)
        if shown.call not in chapter.snapshot.text:
            raise fail(f"calls[{i}].call", f"{shorten(shown.call, 80)!r} is not printed in the snapshot; write the "
                                          "call exactly as the text shows it")
        problem = given_problem(chapter.snapshot.text, shown.call, shown.given)
        if problem:
            raise fail(f"calls[{i}].given", problem)


def _check_returns(claim: CodeClaim, fail, measure) -> None:
    """A code claim's ``returns``: one number per element, each a measure (``measure``'s syntax) or a quantity the
    claim's measure defines (``RETURNED``); one query's input; shape ``number``."""
    from audit.register.listing_rules import RETURNED, element_problem

    if len(claim.returns) < 2:
        raise fail("returns", "returns names the elements of a returned tuple; a function returning one value of "
                              "its measure needs no returns")
    if claim.shape != "number":
        raise fail("returns", "a function returning a tuple of values returns one value per element: leave shape "
                              "out (number) and name each element in returns")
    if set(claim.arguments.values()) & set(MULTI_ROLES):
        raise fail("returns", "a function returning a tuple of values is checked on one query's input")
    for i, element in enumerate(claim.returns):
        problem = element_problem(claim, element)
        if problem:
            raise fail(f"returns[{i}]", problem)
        if element.strip() not in RETURNED:
            measure(f"returns[{i}]", element.replace("@k", "@1"))


def parameter_defaults(source: str, function: str) -> dict[str, object]:
    """The literal default of each parameter of ``function`` in ``source`` that has one (``k=10`` → ``{"k": 10}``,
    ``judged=None`` → ``{"judged": None}``); a default that is not a literal is left out."""
    import ast

    node = next((n for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == function), None)
    if node is None:
        return {}
    positional = node.args.posonlyargs + node.args.args
    out: dict[str, object] = {}
    for arg, default in zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults):
        try:
            out[arg.arg] = ast.literal_eval(default)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return out


def shown_arguments(claim: CodeClaim, call: str, params: list[str],
                    defaults: dict[str, object] | None = None, given: dict[str, str] | None = None) -> dict[str, object]:
    """The arguments of a call the text shows, by parameter name: ``call`` must call ``claim.function`` with literal
    arguments (numbers, strings, lists, tuples, sets, dicts) or names of ``given`` (each the literal the text assigns
    it before the call), positionally or by name, one per parameter; a parameter the call leaves out takes its
    literal default (``defaults``, from ``parameter_defaults``). Raises ``AuditError`` saying what is wrong, its
    ``field`` ``"given"`` when a name the call passes has no literal in ``given``."""
    import ast

    given = given or {}

    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError as exc:
        raise AuditError(f"{shorten(call, 80)!r} is not a Python call ({exc.msg})")
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id != claim.function:
        raise AuditError(f"{shorten(call, 80)!r} is not a call of {claim.function}()")
    if len(node.args) > len(params) or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        raise AuditError(f"{shorten(call, 80)!r} does not match {claim.function}({', '.join(params)})")
    values: dict[str, object] = {}
    for name, arg in [*zip(params, node.args), *((k.arg, k.value) for k in node.keywords)]:
        if name not in params or name in values:
            raise AuditError(f"{shorten(call, 80)!r}: {claim.function}() takes {', '.join(params)}; {name!r} is "
                             "not one of them or is given twice")
        try:
            values[name] = ast.literal_eval(given[arg.id] if isinstance(arg, ast.Name) and arg.id in given else arg)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            if isinstance(arg, ast.Name):
                raise AuditError(f"{shorten(call, 80)!r} passes {arg.id}: give the literal the text assigns it before "
                                 f"the call in given ({{{arg.id}: …}})", field="given")
            raise AuditError(f"{shorten(call, 80)!r}: the argument for {name!r} is not a literal value")
    for p in params:
        if p not in values and p in (defaults or {}):
            values[p] = (defaults or {})[p]
    missing = [p for p in params if p not in values]
    if missing:
        raise AuditError(f"{shorten(call, 80)!r} gives no {', '.join(missing)}")
    return values


#: A quote saying that its bootstrap or randomization test drew random resamples ("10,000 resamples",
#: "5,000 random sign flips", ``n_resamples=9999``, a seeded generator).
_RESAMPLES_SAID = re.compile(r"\b\d[\d,.\u202f ]*\s+(?:random\s+|bootstrap\s+)*(?:re-?samples|resamplings|replicates|"
                             r"permutations|(?:sign[- ])?flips|draws)\b|n_resamples\s*=|default_rng\(\s*\d|"
                             r"random\.seed\(", re.IGNORECASE)


def _check_statistic(claim: StatisticClaim, fail, claimed, fixture, measure) -> None:
    """A statistic claim's data, printed values, alpha and confidence, as the statistic check will read them: numbers
    where numbers are printed, at least two queries (or two p-values), statistics the test computes, and something
    printed to check."""
    from audit.model.values import parse_interval

    for name in ("alpha", "confidence"):
        try:
            level = parse_claimed(getattr(claim, name))
        except AuditError as exc:
            raise fail(name, exc.message)
        if level.nominal is None or level.approximate or not 0 < level.nominal < 1:
            raise fail(name, f"{name} {getattr(claim, name)!r} must be one number between 0 and 1")
    family = claim.test in ("bonferroni", "holm")
    said = _RESAMPLES_SAID.search(claim.quote)
    if said and claim.resamples is None and claim.test in ("bootstrap", "permutation"):
        raise fail("resamples", f"the quote says the test drew random resamples ({said.group(0)!r}): its printed "
                                "value is a Monte Carlo estimate; give resamples (their number) so that it is held to "
                                "the exact value within its Monte Carlo error, not to the exact value alone")
    if claim.resamples is not None and claim.test not in ("bootstrap", "permutation"):
        raise fail("resamples", f"the {claim.test} test draws no random resamples; resamples is for a bootstrap or "
                                "a randomization (permutation) test the text says was run on random resamples")
    from audit.text.t_tests import t_test_mismatch

    mismatch = t_test_mismatch(claim.test, claim.quote)
    if mismatch is not None:
        raise fail("test", f"test is {claim.test}, but {mismatch}")
    if (claim.data is None) == (claim.reported is None):
        raise fail("data", "give the data (data) or, for a t-test reported without it, reported: {t, df, p}")
    if claim.reported is not None:
        if claim.test not in ("paired t", "student t", "welch t"):
            raise fail("reported", "a reported statistic is checked for a t-test (paired t, student t or welch t: "
                       "t, df, p)")
        claimed("reported.t", claim.reported.t)
        claimed("reported.p", claim.reported.p)
        claimed("reported.df", claim.reported.df)
        df = parse_claimed(claim.reported.df)
        if df.nominal is None or df.approximate or not 1 <= df.nominal <= 100_000:
            raise fail("reported.df", f"{claim.reported.df!r} is not one number of degrees of freedom from 1 to "
                       "100,000")
        if claim.test != "welch t" and df.nominal.denominator != 1:
            raise fail("reported.df", f"{claim.test} has whole degrees of freedom, not {claim.reported.df!r}; a "
                       "decimal df is Welch's (test: welch t)")
        if claim.expect:
            raise fail("expect", "with reported, the printed t and p are the reported ones; leave expect out")
        return
    d = claim.data
    if family != (d.p_values is not None):
        raise fail("data", f"{claim.test} corrects a family of printed p-values: give data.p_values"
                   if family else "data.p_values is for a correction (test: bonferroni or holm)")
    if family:
        if len(d.p_values) < 2:
            raise fail("data.p_values", "a correction needs at least two comparisons")
        for name, v in d.p_values.items():
            claimed(f"data.p_values.{name}", v)
            value = parse_claimed(v)
            if value.nominal is None or not 0 <= value.nominal <= 1:
                raise fail(f"data.p_values.{name}", f"{v!r} is not one p-value between 0 and 1")
        for name in claim.significant or []:
            if name not in d.p_values:
                raise fail("significant", f"{name!r} is not a comparison of data.p_values ({', '.join(d.p_values)})")
        for i, e in enumerate(claim.expect):
            if e.statistic != "adjusted p" or e.comparison not in d.p_values:
                raise fail(f"expect[{i}]", "a correction prints adjusted p-values: statistic: adjusted p, with "
                           f"comparison: one of {', '.join(d.p_values)}")
            claimed(f"expect[{i}].claimed", e.claimed, e.tolerance)
        for field_name in ("sided", "decision", "correction"):
            if getattr(claim, field_name) is not None:
                raise fail(field_name, f"{field_name} belongs to a test on data; a correction says which comparisons "
                           "stay significant (significant: [...])")
        if claim.comparisons != 1:
            raise fail("comparisons", "a correction's family is its p_values")
        if not claim.expect and claim.significant is None:
            raise fail("expect", "give a printed adjusted p (expect) or the comparisons that stay significant")
        return
    if claim.significant is not None:
        raise fail("significant", "significant: [...] names the comparisons of a correction; a test says decision")
    unpaired = claim.test in UNPAIRED
    if unpaired and d.differences is not None:
        raise fail("data.differences", f"{claim.test} compares two independent samples, so it has no per-query "
                   "differences: give data.a and data.b, each system's values as printed (differences belong to a "
                   "paired test: paired t, sign, permutation, wilcoxon, bootstrap)")
    if d.measure is not None:
        if unpaired:
            raise fail("data.measure", f"{claim.test} runs on the two samples as printed: give data.a and data.b as "
                       "lists of per-topic values, not fixtures")
        measure("data.measure", d.measure, reference_only=False)
        sides = [fixture(f"data.{side}", getattr(d, side)) for side in ("a", "b")]
        if sorted(sides[0].run) != sorted(sides[1].run):
            raise fail("data.b", "fixtures a and b must rank the same queries (a paired test pairs them)")
        n = len(sides[0].run)
    else:
        for field_name in ("a", "b", "differences"):
            for i, v in enumerate(getattr(d, field_name) or []):
                try:
                    value = parse_claimed(v)
                except AuditError as exc:
                    raise fail(f"data.{field_name}[{i}]", exc.message)
                if value.nominal is None or value.approximate:
                    raise fail(f"data.{field_name}[{i}]",
                               f"{v!r} is not one number; write each per-query value as printed")
        n = len(d.differences if d.differences is not None else d.a)
        if unpaired:
            n = min(len(d.a), len(d.b))
        elif d.differences is None and len(d.a) != len(d.b):
            raise fail("data.b", f"a paired test pairs each query's a and b, but a has {len(d.a)} values and b "
                       f"{len(d.b)}; for two independent samples the test is student t or welch t")
    if n < 2:
        raise fail("data", "an unpaired test needs at least two values in each sample" if unpaired else
                   "a paired test needs at least two queries")
    if claim.test == "bootstrap" and claim.sided is not None:
        raise fail("sided", "a bootstrap interval has no side; its decision is whether it holds 0")
    if claim.correction == "bonferroni" and claim.comparisons < 2:
        raise fail("correction", "a Bonferroni correction needs the family's size: comparisons: 2 or more")
    if not claim.expect and claim.decision is None:
        raise fail("expect", "give a printed statistic (expect) or the decision the text draws (decision)")
    computes = {"paired t": ("p", "t", "df"), "sign": ("p", "positives"), "permutation": ("p",),
                "wilcoxon": ("p", "W"), "bootstrap": ("interval",), "student t": ("p", "t", "df"),
                "welch t": ("p", "t", "df")}[claim.test] + ("mean difference", "d")
    for i, e in enumerate(claim.expect):
        if e.comparison is not None:
            raise fail(f"expect[{i}].comparison", "comparison names a p-value of a correction's family")
        if e.statistic == "adjusted p":
            if claim.comparisons < 2 or claim.test == "bootstrap":
                raise fail(f"expect[{i}].statistic", "an adjusted p is the Bonferroni-corrected p of a test in a "
                           "family of comparisons: give comparisons: 2 or more")
        elif e.statistic not in computes:
            raise fail(f"expect[{i}].statistic", f"{claim.test} gives {', '.join(computes)}"
                       + (", adjusted p" if claim.test != "bootstrap" else "") + f", not {e.statistic}")
        if e.statistic == "interval":
            try:
                parse_interval(str(e.claimed))
            except AuditError as exc:
                raise fail(f"expect[{i}].claimed", exc.message)
        else:
            claimed(f"expect[{i}].claimed", e.claimed, e.tolerance)


def _check_code(chapter: Chapter, claim: CodeClaim, fail, measure, claimed) -> None:
    """A code claim's listing, function, arguments and measure, as the code checker will read them: the listing
    that holds the quote must be Python and define the function; every parameter must have a role (and every role
    named be one); the measure must be one the chapter's definitions compute."""
    import ast

    from audit.text.listings import function_source

    try:
        _, source = function_source(chapter.snapshot.text, claim.quote, claim.function, claim.builds_on,
                                    claim.occurrence)
    except AuditError as exc:
        raise fail(exc.field if exc.field else "function" if "does not define" in exc.message else
                   "builds_on" if "builds on" in exc.message or "no listing before" in exc.message else "quote",
                   exc.message)
    node = next(n for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == claim.function)
    params = [a.arg for a in node.args.posonlyargs + node.args.args]
    from audit.register.listing_rules import LISTING_TESTS
    if claim.measure in LISTING_TESTS:  # a listing computing a statistic: its own roles and values
        _check_stat_listing(chapter, claim, fail, params, parameter_defaults(source, claim.function), source)
        return
    if claim.resamples is not None:
        raise fail("resamples", "resamples is for a listing computing a bootstrap or a randomization test")
    for p, role in claim.arguments.items():
        if role not in CODE_ROLES:
            raise fail(f"arguments.{p}", f"role {role!r} is not one of {', '.join(CODE_ROLES)}")
        if p not in params:
            raise fail(f"arguments.{p}", f"{claim.function}() has no parameter {p!r}; it takes {', '.join(params)}")
    roles = set(claim.arguments.values())
    problem = role_problem(roles, claim.shape)
    if problem:
        raise fail("arguments" if "shape" not in problem else "shape", problem)
    defaults = parameter_defaults(source, claim.function)
    for p, role in claim.arguments.items():
        if role == "constant" and p not in claim.constants and p not in defaults:
            raise fail(f"arguments.{p}", f"a constant needs its value: give it in constants ({p}: …) or as the "
                                         "listing's literal default")
    from audit.measures.syntax import parse as parse_measure
    try:
        measured = dict(parse_measure(claim.measure.replace("@k", "@1"), reference_only=True)[0].params)
    except AuditError:
        measured = {}  # an unknown measure is reported below, under measure
    for p, role in claim.arguments.items():
        value = claim.constants.get(p, defaults.get(p))
        if role == "constant" and p in measured and isinstance(value, (int, float)) and float(value) != float(measured[p]):
            raise fail(f"constants.{p}" if p in claim.constants else f"arguments.{p}",
                       f"the listing is called with {p} = {value}, but the measure {claim.measure!r} has {p} = "
                       f"{measured[p]}: make them the same")
    from audit.text.listings import builds_on_lines
    # an earlier listing's function or class it calls must be named (its code is what the claim analyses with it);
    # an earlier import or constant is brought along by itself (``earlier_bindings``)
    needed = [line for line in builds_on_lines(chapter.snapshot.text, claim.quote, claim.function, claim.occurrence)
              if re.match(r"(?:async\s+)?def\s|class\s", line)
              and not any(line.strip() in b or b.strip() in line for b in claim.builds_on)]
    if needed:
        raise fail("builds_on", f"{claim.function}() uses what an earlier listing defines; add "
                                f"{', '.join(repr(n) for n in needed)} to builds_on")
    for p in claim.constants:
        if claim.arguments.get(p) != "constant":
            raise fail(f"constants.{p}", f"{p!r} is not an argument with the role constant")
    unmapped = [p for p in params if p not in claim.arguments]
    if unmapped:
        raise fail("arguments", f"{claim.function}() takes {', '.join(params)}; give each a role ({', '.join(CODE_ROLES)})"
                                f": {', '.join(unmapped)} has none")
    from audit.text.doctests import given_problem
    for i, shown in enumerate(claim.calls):
        try:
            shown_arguments(claim, shown.call, params, parameter_defaults(source, claim.function), shown.given)
        except AuditError as exc:
            raise fail(f"calls[{i}].given" if exc.field == "given" else f"calls[{i}].call", exc.message)
        if shown.call not in chapter.snapshot.text:
            raise fail(f"calls[{i}].call", f"{shorten(shown.call, 80)!r} is not printed in the snapshot; write the "
                                          "call exactly as the text shows it")
        problem = given_problem(chapter.snapshot.text, shown.call, shown.given)
        if problem:
            raise fail(f"calls[{i}].given", problem)
        if shown.raises is not None and shown.raises.strip() not in chapter.snapshot.text:
            raise fail(f"calls[{i}].raises", f"{shorten(shown.raises, 80)!r} is not printed in the snapshot; write "
                                            "the exception line exactly as the doctest shows it")
        if shown.returns is not None and (claim.shape != "number" or claim.returns):
            from audit.model.values import parse_claimed_parts

            try:
                parse_claimed_parts(shown.returns, tolerance=shown.tolerance)
            except ValueParseError as exc:
                raise fail(f"calls[{i}].returns", exc.message)
        elif shown.returns is not None:
            claimed(f"calls[{i}].returns", shown.returns, shown.tolerance)
    uses_k = bool({"cutoff", "cutoffs"} & roles) or claim.shape == "at each k"
    if uses_k != ("@k" in claim.measure):
        raise fail("measure", f"{claim.measure!r}: a function with a cutoff argument, or one returning the measure "
                              "at each k, computes a measure at k (write it with @k, e.g. R@k); one without computes "
                              "it on the whole ranking")
    measure("measure", claim.measure.replace("@k", "@1"))
    if claim.returns:
        _check_returns(claim, fail, measure)


def _check_references(chapter: Chapter) -> None:
    path = str(chapter.claims_path)
    seen: set[str] = set()
    for claim in chapter.register.claims:
        if claim.id in seen:
            raise RegisterError("claim id is used twice; ids must be unique and stable", file=path,
                                claim=claim.id, field="id")
        seen.add(claim.id)

        def fail(field_name: str, message: str) -> RegisterError:
            return RegisterError(message, file=path, claim=claim.id, field=field_name)

        def fixture(field_name: str, ref, allow_repeats: bool = False) -> Fixture:
            if isinstance(ref, str) and ref not in chapter.register.fixtures:
                known = ", ".join(sorted(chapter.register.fixtures)) or "none"
                raise fail(field_name, f"unknown fixture {ref!r}; fixtures defined: {known}")
            fx = chapter.fixture(ref)
            if not allow_repeats:
                for q, ranking in fx.run.items():
                    try:
                        check_ranking(ranking, query_id=q)
                    except AuditError as exc:
                        raise fail(f"{field_name} (fixture {ref if isinstance(ref, str) else 'inline'}), run.{q}",
                                   exc.message.replace(
                                       "the chapter's evaluator rejects repeated result IDs — remove the duplicate",
                                       "remove the duplicate, or state how a repeated ID counts (repeated_ids: keep "
                                       "first, keep last or count each, with its quote) in chapter.yaml or on the "
                                       "claim"))
            return fx

        # A value or comparison fixture may repeat an ID when the text states how a repeat counts and never says a
        # repeat is rejected.
        declared = chapter.declared_for(claim)
        repeats_allowed = declared.stated("repeated_ids") and "reject" not in declared.values("repeated_ids")

        def measure(field_name: str, text: str, reference_only: bool = False) -> None:
            try:
                m, spec = parse_measure(text, reference_only)
            except AuditError as exc:
                raise fail(field_name, shorten(exc.message, 300))
            cutoff = spec.cutoff if spec is not None else dict(m.params).get("cutoff")
            if cutoff is not None and cutoff > MAX_CUTOFF:
                raise fail(field_name, f"cutoff {cutoff} is larger than the limit of {MAX_CUTOFF}")
            if spec is not None and spec.rel is not None and not 1 <= spec.rel <= MAX_GRADE:
                raise fail(field_name, f"relevance level rel={spec.rel!r} must be a whole number from 1 to {MAX_GRADE}")

        def exercised(field_name: str, fx: Fixture, measures: list[str], query: str | None = None) -> None:
            """Refuse a fixture on which every measure is trivially 0 (nothing ranked, nothing relevant)."""
            queries = [query] if query is not None else list(fx.run)
            if not any(fx.run[q] for q in queries):
                raise fail(field_name, "nothing is ranked (every ranking read is empty), so every measure gives 0 "
                           "and no implementation is exercised; give the fixture a ranking")
            specs = [parse_measure(m, True)[1] for m in measures]
            specs = [s for s in specs if s is not None]  # a measure only the references define: not judged here
            if not specs or all(s.name == "Judged" for s in specs):
                return
            level = min(s.rel or 1 for s in specs)
            relevant = any(g >= level for q in queries for g in fx.qrels[q].values())
            judged_ranked = any(d in fx.qrels[q] for q in queries for d in fx.run[q])
            # A query whose ranked documents are judged but none relevant is a subject in its own right (what a
            # measure gives when nothing is relevant: trec_eval returns it, an empty qrels entry it leaves out).
            # Nothing judged among the ranked and nothing relevant exercises nothing.
            if not relevant and not judged_ranked:
                raise fail(field_name, f"no document has a relevant grade ({level} or more) and no ranked document is "
                           "judged in the queries read, so every measure gives 0 and no implementation is exercised; "
                           "judge a document")

        def claimed(field_name: str, text, tolerance=None, measure_name: str | None = None) -> None:
            try:
                value = parse_claimed(text, tolerance=tolerance)
            except AuditError as exc:
                raise fail(field_name, exc.message)
            if measure_name is not None:
                spec = parse_measure(measure_name, True)[1]
                if spec is not None and CATALOGUE[spec.name].bounded and _beyond_range(value):
                    raise fail(field_name, f"the bound {trim(str(text), 40)} lies outside the range of "
                               f"{measure_name} (0 to 1), so every value {measure_name} can take satisfies it and the "
                               "check could not fail; encode the bound the chapter prints, or the sentence as "
                               "`not checkable`")

        if claim.kind == "value":
            fx = fixture("fixture", claim.fixture, allow_repeats=repeats_allowed)
            for i, e in enumerate(claim.expect):
                measure(f"expect[{i}].measure", e.measure, reference_only=True)
                spec = parse_measure(e.measure, True)[1]
                if e.aggregate in ("pooled", "both") and (e.query is not None or spec is None or spec.name != "R"):
                    raise fail(f"expect[{i}].aggregate", "a pooled reading is defined for recall (R@k) over all "
                               "needs; drop `query` or use aggregate: mean")
                if e.query is not None and e.query not in fx.run:
                    raise fail(f"expect[{i}].query", f"query {e.query!r} is not in the fixture's run; "
                               f"it has {', '.join(map(repr, fx.run))}")
                claimed(f"expect[{i}].claimed", e.claimed, e.tolerance, e.measure)
                exercised("fixture", fx, [e.measure], e.query)
                if e.ideal is not None:
                    if spec is None or "ideal" not in CATALOGUE[spec.name].conventions:
                        raise fail(f"expect[{i}].ideal", f"{e.measure} has no ideal order (only nDCG and IDCG have one)")
                    if e.query is None and len(fx.run) > 1:
                        raise fail(f"expect[{i}].ideal", "an ideal order belongs to one query; give `query`")
        elif claim.kind == "comparison":
            sides = (fixture("before", claim.before, allow_repeats=repeats_allowed),
                     fixture("after", claim.after, allow_repeats=repeats_allowed))
            if sides[0].model_dump() == sides[1].model_dump():
                raise fail("after", "the after fixture is the before fixture: every measure is unchanged, whatever "
                                    "any implementation does, so the check could not fail; give the input after the "
                                    "change")
            for i, e in enumerate(claim.expect):
                measure(f"expect[{i}].measure", e.measure)
                if e.after_measure:
                    measure(f"expect[{i}].after_measure", e.after_measure)
                problems = []
                for side, fx in zip(("before", "after"), sides):
                    try:
                        exercised(side, fx, [e.measure, e.after_measure or e.measure])
                    except RegisterError as exc:
                        problems.append(exc)
                if len(problems) == 2:  # one trivial side is a legitimate starting point, not both
                    raise problems[0]
                for side in ("before", "after"):
                    if getattr(e, side) is not None:
                        claimed(f"expect[{i}].{side}", getattr(e, side), None,
                                e.after_measure or e.measure if side == "after" else e.measure)
        elif claim.kind == "code":
            _check_code(chapter, claim, fail, measure, claimed)
        elif claim.kind == "statistic":
            _check_statistic(claim, fail, claimed, fixture, measure)
        elif claim.kind == "systems":
            from audit.register.listing_rules import systems_problem
            problem = systems_problem(claim)
            if problem:
                raise fail(*problem)
        elif claim.kind == "arithmetic":
            try:
                parse_expression(claim.expression)
            except AuditError as exc:
                raise fail("expression", exc.message)
            claimed("claimed", claim.claimed, claim.tolerance)
            if claim.computes is not None:
                fx = fixture("computes.fixture", claim.computes.fixture)
                measure("computes.measure", claim.computes.measure, reference_only=True)
                if claim.computes.query is not None and claim.computes.query not in fx.run:
                    raise fail("computes.query", f"query {claim.computes.query!r} is not in the fixture's run; "
                               f"it has {', '.join(map(repr, fx.run))}")
                exercised("computes.fixture", fx, [claim.computes.measure], claim.computes.query)
            sm = claim.set_measure
            if sm is not None:
                if sm.cohort not in chapter.register.cohorts:
                    raise fail("set_measure.cohort", f"unknown cohort {sm.cohort!r}; cohorts defined: "
                               f"{', '.join(sorted(chapter.register.cohorts)) or 'none'}")
                decisions = chapter.register.cohorts[sm.cohort].cells
                for part in ("selected", "among"):
                    for d in getattr(sm, part) or []:
                        if d not in decisions:
                            raise fail(f"set_measure.{part}", f"unknown decision {d!r}; the cohort has "
                                       f"{', '.join(decisions)}")
        elif claim.kind == "property":
            whole = claim.at == "whole ranking"  # both sides without a cutoff
            measure("measure", claim.measure if whole else at_cutoff(claim.measure, 1))
            for i, other in enumerate(claim.others):
                measure("other" if len(claim.others) == 1 else f"other[{i}]", other if whole else at_cutoff(other, 1))
            if claim.compare == "next_cutoff":
                _, spec = parse_measure(at_cutoff(claim.measure, 1), True)
                if spec is not None and CATALOGUE[spec.name].cutoff == "none":
                    raise fail("compare", f"{claim.measure} takes no cutoff: it is the same at k and k + 1, so "
                               "comparing the next cutoff tests nothing")
            if claim.bound is not None:
                try:
                    bound = parse_claimed(claim.bound)
                except AuditError as exc:
                    raise fail("bound", exc.message)
                if not bound.exact:
                    raise fail("bound", f"the bound must be an exact number (0, 1, 1/2), found {claim.bound!r}")
        elif claim.kind == "convention":
            probe = fixture("probe", claim.probe, allow_repeats=claim.convention == "repeated_ids")
            for i, m in enumerate(claim.measures):
                measure(f"measures[{i}]", m)
            exercised("probe", probe, claim.measures)
            reason = _probe_gap(claim.convention, probe, [parse_measure(m)[1] for m in claim.measures])
            if reason:
                raise fail("probe", f"the probe cannot tell the {claim.convention.replace('_', ' ')} rules apart: "
                           f"{reason}")


def _beyond_range(value) -> bool:
    """A half-line every value in [0, 1] lies in, whose bound is outside [0, 1] (``<= 999…``, ``> -1``): a claimed
    value that cannot be false for a measure bounded by 0 and 1. (``<= 1`` and ``>= 0`` restate the range, as a
    chapter may; they are checked as printed.)"""
    if value.low is None and value.high is not None:
        return value.high > 1
    if value.high is None and value.low is not None:
        return value.low < 0
    return False


def _probe_gap(convention: str, probe: Fixture, specs) -> str:
    """Why a convention probe exercises nothing (empty when it exercises the convention)."""
    if convention == "ties":
        scores = probe.scores or {}
        tied = any(len({scores[q][d] for d in set(r)}) < len(set(r)) for q, r in probe.run.items() if q in scores)
        return "" if tied else ("no two ranked documents share a score; give tied `scores` (without them every "
                                "document gets a distinct score)")
    if convention == "unjudged":
        unjudged = any(d not in probe.qrels[q] for q, r in probe.run.items() for d in r)
        return "" if unjudged else "every ranked document is judged; rank a document absent from the qrels"
    if convention == "repeated_ids":
        repeated = any(len(set(r)) < len(r) for r in probe.run.values())
        return "" if repeated else "no ranking repeats a document ID"
    if convention == "cutoff":
        cutoffs = [s.cutoff for s in specs if s.cutoff is not None]
        if not cutoffs:
            return "no measure has a cutoff k"
        longest = max((len(r) for r in probe.run.values()), default=0)
        return "" if longest > min(cutoffs) else (f"no ranking is longer than the cutoff {min(cutoffs)}, so scoring "
                                                  "the first k and the whole ranking agree")
    return ""
