"""The claim register: schema, loading and validation of a chapter folder.

A chapter folder holds ``chapter.yaml`` (identity and snapshot), the snapshot file, and
``claims.yaml`` (fixtures, cohorts and numbered claims). Every error names the file,
the claim id and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, ValidationError, model_validator

from .chapter import Snapshot
from .conventions import Declared, check_value, declared_from
from .errors import AuditError, RegisterError
from .evaluator import check_ranking
from .measures import parse as parse_measure
from .values import parse_claimed, parse_expression

CHAPTER_FILE = "chapter.yaml"
CLAIMS_FILE = "claims.yaml"

Id = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]
#: A claimed value as written in YAML. Kept strict so an unquoted 1.0 is not silently read as the
#: integer 1 (exact) instead of the printed "1.0" (an interval); parse_claimed then asks for quotes.
Claimed = StrictStr | StrictInt | StrictFloat


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConventionStatement(Strict):
    """A convention the text states: its value and the quote it rests on."""

    value: StrictStr | StrictInt
    quote: str = ""


#: ``conventions:`` in chapter.yaml, a book file or a claim: ``name: value``, ``name: {value, quote}``, or a
#: list of statements (two different values are an internal tension). Names and values: ``audit.conventions``.
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


class SnapshotInfo(Strict):
    file: str = "snapshot.txt"
    excerpt: bool = False
    source: str = ""


class Identity(Strict):
    """Who the chapter is: book, number, title, stable id, URLs, recorded fingerprint."""

    id: Id
    book: str | None = None
    chapter: int | str | None = None
    title: str
    kind: str = "chapter"
    url: str | None = None
    research_pack: str | None = None
    notebook: str | None = None   # the notebook that accompanies the chapter (a URL), if any
    fingerprint: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    snapshot: SnapshotInfo = SnapshotInfo()
    conventions: ConventionsSpec = {}

    @model_validator(mode="after")
    def _conventions_known(self) -> "Identity":
        _check_conventions(self.conventions)
        return self


class BookFile(Strict):
    """``book.yaml`` beside the chapter folders: conventions every chapter of ``book`` states by default."""

    book: str | None = None
    conventions: ConventionsSpec = {}

    @model_validator(mode="after")
    def _conventions_known(self) -> "BookFile":
        _check_conventions(self.conventions)
        return self


class Fixture(Strict):
    """Judgements and rankings: ``qrels: {query_id: {doc_id: grade}}``, ``run: {query_id: [doc_id, …]}``.

    ``scores`` (``{query_id: {doc_id: score}}``) is only for claims about ties: the run then
    gives the order the chapter's rule keeps, and the scores are what references see.
    """

    description: str = ""
    qrels: dict[str, dict[str, StrictInt]]
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
    cells: dict[str, dict[str, Annotated[int, Field(ge=0)]]]

    def candidates(self) -> list[tuple[str, str, str]]:
        """``(candidate_id, decision, label)`` for every candidate, numbered in table order."""
        out = []
        for decision, labels in self.cells.items():
            for label, count in labels.items():
                for _ in range(count):
                    out.append((f"c{len(out) + 1:03d}", decision, label))
        return out


class ClaimBase(Strict):
    """Fields every claim has. ``rewording``: an author-side replacement text, shown after the harness's
    own checked proposal and labelled as unchecked, when the
    computed verdict is qualified or contradicted (it never decides the verdict)."""

    id: Id
    title: str
    quote: str = Field(min_length=1)
    prefix: str = ""          # text just before the quote, to tell repeated quotes apart
    suffix: str = ""          # text just after it
    line: int | None = Field(None, ge=1)  # where the quote was when the claim was written (a hint)
    claim: str = Field(min_length=1)
    note: str = ""
    rewording: str = ""
    conventions: ConventionsSpec = {}  # conventions this claim's own sentence states ("under the listed order")

    @model_validator(mode="after")
    def _conventions_known(self) -> "ClaimBase":
        _check_conventions(self.conventions)
        return self


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


class ValueClaim(ClaimBase):
    kind: Literal["value"]
    fixture: str | Fixture
    expect: list[Expect] = Field(min_length=1)


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


class ArithmeticClaim(ClaimBase):
    kind: Literal["arithmetic"]
    expression: str
    claimed: Claimed
    tolerance: str | None = None
    set_measure: SetMeasure | None = None


CONVENTION_RULES = {
    "repeated_ids": ("reject", "keep first", "keep last", "count each"),
    "ties": ("reference order", "docno descending", "docno ascending", "relevant first", "relevant last"),
    "unjudged": ("zero", "condensed"),
    "cutoff": ("first k", "whole ranking"),
}


class ConventionClaim(ClaimBase):
    kind: Literal["convention"]
    convention: Literal["repeated_ids", "ties", "unjudged", "cutoff"]
    rule: str
    probe: str | Fixture
    measures: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _rule_known(self) -> "ConventionClaim":
        if self.rule not in CONVENTION_RULES[self.convention]:
            raise ValueError(f"rule {self.rule!r} is not a known {self.convention} rule; "
                             f"expected one of {', '.join(CONVENTION_RULES[self.convention])}")
        return self


class UniverseSpec(Strict):
    """The exhaustive search space of a property claim (see ``audit.universe.Universe``)."""

    max_length: int = Field(5, ge=0, le=8)
    documents: int = Field(6, ge=1, le=10)
    grades: list[StrictInt] = Field(default_factory=lambda: [0, 1], min_length=2)
    max_k: int = Field(6, ge=1)
    unjudged: bool = True
    relevant: int | None = Field(None, ge=0)


class SearchSpec(Strict):
    """The random stage: ``random_cases`` Hypothesis cases up to ``max_length``, seeded."""

    random_cases: int = Field(2000, ge=0)
    max_length: int = Field(30, ge=1, le=200)
    seed: int = 20261130
    time_limit: float = Field(60.0, gt=0)


PROPERTY_TRANSFORMS = ("promote_second_relevant", "change_after_first_relevant", "add_unretrieved_relevant",
                       "regrade_positives", "judge_unjudged_as_zero")


class PropertyClaim(ClaimBase):
    """A universal statement: ``measure`` (no cutoff) related to the next cutoff, a transformed
    case, or another measure, for every case searched."""

    kind: Literal["property"]
    measure: str
    relation: Literal["increases", "decreases", "never decreases", "never increases", "unchanged", "equals",
                      "never exceeds"]
    compare: Literal["next_cutoff", "transform", "measure"]
    transform: Literal[PROPERTY_TRANSFORMS] | None = None
    other: str | None = None
    universe: UniverseSpec = UniverseSpec()
    search: SearchSpec = SearchSpec()

    @model_validator(mode="after")
    def _complete(self) -> "PropertyClaim":
        if self.compare == "transform" and self.transform is None:
            raise ValueError(f"compare: transform needs a transform, one of {', '.join(PROPERTY_TRANSFORMS)}")
        if self.compare == "measure" and self.other is None:
            raise ValueError("compare: measure needs `other`, the measure to compare with")
        return self


class CodeClaim(ClaimBase):
    """A code listing in the chapter said to compute a measure (checked by the code checker)."""

    kind: Literal["code"]
    function: str
    measure: str
    arguments: dict[str, str] = {}


class DraftClaim(ClaimBase):
    """A statement found by the numeric scan that still needs encoding (reported as pending)."""

    kind: Literal["draft"]
    statement: str = ""


class NotCheckableClaim(ClaimBase):
    kind: Literal["not checkable"]
    reason: str = Field(min_length=1)


Claim = Annotated[Union[ValueClaim, ComparisonClaim, ArithmeticClaim, ConventionClaim, PropertyClaim, CodeClaim,
                        DraftClaim, NotCheckableClaim], Field(discriminator="kind")]
KINDS = ("value", "comparison", "arithmetic", "convention", "property", "code", "draft", "not checkable")


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
        """The conventions a claim is checked under: book, then chapter, then the claim's own."""
        own = getattr(claim, "conventions", None)
        if not own:
            return self.declared
        return self.declared.overlay(declared_from(_as_plain(own), "claim"))

    @property
    def claims_path(self) -> Path:
        return self.folder / CLAIMS_FILE

    def fixture(self, ref: "str | Fixture") -> Fixture:
        return self.register.fixtures[ref] if isinstance(ref, str) else ref


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a mapping that repeats a key (YAML says keys are unique;
    PyYAML would silently keep the last)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first at line {seen[key]})", key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RegisterError(f"missing; a chapter folder needs {CHAPTER_FILE}, {CLAIMS_FILE} and a snapshot "
                            "(see README, 'Writing claims for a new chapter')", file=str(path))
    except UnicodeDecodeError as exc:
        raise RegisterError(f"not UTF-8 text ({exc.reason})", file=str(path))
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader), yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise RegisterError(f"malformed YAML{where}: {problem}", file=str(path))


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
            claim_id = claim_id or f"#{loc[1] + 1}"
            loc = loc[2:]
            if loc and loc[0] in KINDS:  # the discriminator tag pydantic inserts
                loc = loc[1:]
        dotted = ".".join(str(p) for p in loc if not _is_union_tag(p)) or "(entry)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "union_tag_invalid":
            msg = f"unknown kind {err.get('input', {}).get('kind') if isinstance(err.get('input'), dict) else ''!r}; expected one of {', '.join(KINDS)}"
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
    try:
        register = ClaimsFile.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise _validation_error(exc, claims_path, data)
    snapshot_path = folder / identity.snapshot.file
    if not snapshot_path.resolve().is_relative_to(folder.resolve()):
        raise RegisterError(f"snapshot.file {identity.snapshot.file!r} points outside the chapter folder; keep the "
                            "snapshot beside chapter.yaml", file=str(chapter_path), field="snapshot.file")
    snapshot = Snapshot.read(snapshot_path)
    lines = dict(zip((c.id for c in register.claims), _claim_lines(node)))
    declared = _book_conventions(folder, identity).overlay(declared_from(_as_plain(identity.conventions), "chapter"))
    chapter = Chapter(folder, identity, snapshot, register, lines, declared)
    _check_references(chapter)
    return chapter


BOOK_FILE = "book.yaml"


def _book_conventions(folder: Path, identity: Identity) -> Declared:
    """The book's default conventions from ``book.yaml`` beside the chapter folder, if it names this
    chapter's book (or names none)."""
    path = folder.parent / BOOK_FILE
    if not path.is_file():
        return Declared()
    data, _ = _read_yaml(path)
    try:
        book = BookFile.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise _validation_error(exc, path, data)
    if book.book is not None and book.book != identity.book:
        return Declared()
    return declared_from(_as_plain(book.conventions), "book")


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
                                   exc.message)
            return fx

        def measure(field_name: str, text: str, reference_only: bool = False) -> None:
            try:
                parse_measure(text, reference_only)
            except AuditError as exc:
                raise fail(field_name, exc.message)

        def claimed(field_name: str, text, tolerance=None) -> None:
            try:
                parse_claimed(text, tolerance=tolerance)
            except AuditError as exc:
                raise fail(field_name, exc.message)

        if claim.kind == "value":
            fx = fixture("fixture", claim.fixture)
            for i, e in enumerate(claim.expect):
                measure(f"expect[{i}].measure", e.measure, reference_only=True)
                spec = parse_measure(e.measure, True)[1]
                if e.aggregate in ("pooled", "both") and (e.query is not None or spec is None or spec.name != "R"):
                    raise fail(f"expect[{i}].aggregate", "a pooled reading is defined for recall (R@k) over all "
                               "needs; drop `query` or use aggregate: mean")
                if e.query is not None and e.query not in fx.run:
                    raise fail(f"expect[{i}].query", f"query {e.query!r} is not in the fixture's run; "
                               f"it has {', '.join(map(repr, fx.run))}")
                claimed(f"expect[{i}].claimed", e.claimed, e.tolerance)
        elif claim.kind == "comparison":
            fixture("before", claim.before)
            fixture("after", claim.after)
            for i, e in enumerate(claim.expect):
                measure(f"expect[{i}].measure", e.measure)
                if e.after_measure:
                    measure(f"expect[{i}].after_measure", e.after_measure)
                for side in ("before", "after"):
                    if getattr(e, side) is not None:
                        claimed(f"expect[{i}].{side}", getattr(e, side))
        elif claim.kind == "arithmetic":
            try:
                parse_expression(claim.expression)
            except AuditError as exc:
                raise fail("expression", exc.message)
            claimed("claimed", claim.claimed, claim.tolerance)
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
            measure("measure", f"{claim.measure}@1")
            if claim.other:
                measure("other", f"{claim.other}@1")
        elif claim.kind == "convention":
            fixture("probe", claim.probe, allow_repeats=claim.convention == "repeated_ids")
            for i, m in enumerate(claim.measures):
                measure(f"measures[{i}]", m)
