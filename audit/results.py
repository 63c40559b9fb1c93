"""The one result model every reporter renders (Markdown, JSON); reporters never decide verdicts."""

from __future__ import annotations

from pydantic import BaseModel, Field

#: Version of the JSON report layout; bump on any incompatible change.
FORMAT_VERSION = "1.0"

VERDICTS = ("supported", "qualified", "contradicted", "stale", "error", "pending", "not checkable")
PRIORITIES = ("high", "medium", "low", "none")


class ImplValue(BaseModel):
    """One implementation's value for one check.

    ``implementation``: ``chapter`` (the chapter's definitions) or a reference name.
    ``status``: ok, not applicable, error, rejected. ``value`` is the mean over queries;
    ``exact`` the exact fraction (chapter only); ``per_query`` values as text;
    ``behaviour`` the convention rule(s) the values match (convention checks).
    """

    implementation: str
    provider: str = ""
    status: str = "ok"
    value: float | None = None
    exact: str | None = None
    per_query: dict[str, str] = Field(default_factory=dict)
    in_interval: bool | None = None
    behaviour: str = ""
    detail: str = ""


class Check(BaseModel):
    """One computed comparison behind a verdict (a measure on a fixture, an expression, a probe)."""

    label: str
    measure: str = ""
    claimed: str | None = None
    interval: str | None = None
    derived: str = ""
    values: list[ImplValue] = Field(default_factory=list)
    table: list[list[str]] = Field(default_factory=list)  # a counterexample a reader can check by hand
    low: float | None = None    # the claimed interval as numbers, for charts (None = unbounded)
    high: float | None = None
    curves: dict[str, list[float]] = Field(default_factory=dict)  # measure → values at k = 1, 2, … (chapter)


class ClaimResult(BaseModel):
    """A claim's verdict with its reason, concern, proposed response, priority and evidence."""

    id: str
    kind: str
    title: str
    claim: str
    quote: str
    anchor: str
    anchor_state: str = "unchanged"   # unchanged, moved, edited, ambiguous, lost (see audit.anchors)
    found_text: str = ""              # the passage found; the new wording when edited
    similarity: float = 1.0
    line: int | None = None
    column: int | None = None
    register_line: int | None = None
    verdict: str
    reason: str
    concern: str
    response: str
    priority: str
    claimed: str = ""
    checks: list[Check] = Field(default_factory=list)
    note: str = ""


class ReferenceInfo(BaseModel):
    """A reference in the ledger: ``observed`` is convention name → what it did on that convention's probe
    (``audit.observe``); ``conventions`` holds the adapter's notes on how it is called."""

    name: str
    title: str
    library: str
    version: str
    conventions: dict[str, str]
    observed: dict[str, str] = Field(default_factory=dict)


class Tension(BaseModel):
    """Two statements of one chapter that set the same convention to different values."""

    convention: str
    title: str
    statements: list[dict[str, str]]   # value, quote
    probe: str                          # what each value gives on a probe input


class Fingerprint(BaseModel):
    recorded: str | None
    computed: str
    matches: bool
    normalisation: str
    statement: str


class Provenance(BaseModel):
    date: str
    command: str
    python: str
    versions: dict[str, str]
    numba_cache: str = ""


class Statement(BaseModel):
    """A quantitative statement found in the prose, and the claims whose quotes cover it."""

    line: int
    kind: str
    text: str
    covered_by: list[str] = Field(default_factory=list)


class ChapterReport(BaseModel):
    format_version: str = FORMAT_VERSION
    tool: str
    chapter: dict[str, object]
    snapshot: dict[str, object]
    fingerprint: Fingerprint
    provenance: Provenance
    references: list[ReferenceInfo]
    summary: dict[str, int]
    claims: list[ClaimResult]
    book_conflicts: list[str] = Field(default_factory=list)
    conventions: dict[str, list[dict[str, str]]] = Field(default_factory=dict)  # declared: name → statements
    unstated: list[str] = Field(default_factory=list)                             # convention names not declared
    tensions: list[Tension] = Field(default_factory=list)
    statements: list[Statement] = Field(default_factory=list)
    scan: dict[str, float] = Field(default_factory=dict)

