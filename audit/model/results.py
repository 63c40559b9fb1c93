"""The one result model every reporter renders (Markdown, JSON); reporters never decide verdicts."""

from __future__ import annotations

from pydantic import BaseModel, Field, PrivateAttr

#: Version of the JSON report layout; bump on any incompatible change.
FORMAT_VERSION = "2.4"

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
    differences: dict[str, float] = Field(default_factory=dict)  # a comparison's per-query a − b, in query order


class Revision(BaseModel):
    """A claim ``audit init`` derived from a sentence the author has since edited (``audit.run.revise``): the sentence
    its fields were derived from, the sentence as now printed, the fields derived again from it, the fields the author
    wrote (kept), and, for each hand-written field the new sentence no longer bears out, why the claim is stale."""

    sentence: str
    now: str
    rederived: list[str] = Field(default_factory=list)
    hand_written: list[str] = Field(default_factory=list)
    stale: list[str] = Field(default_factory=list)

    def sentence_text(self) -> str:
        """One plain sentence for the report."""
        if not self.now:
            return f"Its sentence (“{self.sentence.strip()}”) is no longer printed as it was."
        out = f"Derived again from the sentence as now printed (“{self.now.strip()}”; it was “{self.sentence.strip()}”)"
        out += f": {', '.join(self.rederived)} re-derived" if self.rederived else ": nothing init wrote changed"
        if self.hand_written:
            out += f"; written by hand and kept: {', '.join(self.hand_written)}"
        return out + "."


class ClaimResult(BaseModel):
    """A claim's verdict with its reason, concern, proposed response, priority and evidence."""

    id: str
    kind: str
    title: str
    claim: str
    quote: str
    anchor: str
    anchor_state: str = "unchanged"   # unchanged, moved, edited, ambiguous, lost (see audit.text.anchors)
    found_text: str = ""              # the passage found; the new wording when edited
    similarity: float = 1.0
    line: int | None = None
    column: int | None = None
    #: where the quote is in the chapter's file when it is read in another format ("notebook cell 3, line 1",
    #: "ch5.html line 80"; "" for a text file, whose ``line`` is the file's)
    place: str = ""
    register_line: int | None = None
    verdict: str
    reason: str
    concern: str
    response: str
    priority: str
    claimed: str = ""
    checks: list[Check] = Field(default_factory=list)
    #: convention → the values under which alone a qualified claim holds (see ``Tension``)
    holds_only: dict[str, list[str]] = Field(default_factory=dict)
    note: str = ""
    #: where the book prints the value (a value claim's ``page``: "p. 214, Table 23.2"); left out of the JSON report
    #: when empty
    page: str = ""
    evidence: list[EvidenceItem] = Field(default_factory=list)  # the finding's evidence, each with its class
    #: set when the claim was derived again from its edited sentence (``audit.run.revise``); left out of the JSON
    #: report when None
    revision: Revision | None = None


#: The evidence classes a finding's items are labelled with (the research brief's investigation rule 9).
EVIDENCE_CLASSES = ("established background", "reported by a source", "reproduced locally", "hypothesis",
                    "proposed experiment")


class EvidenceItem(BaseModel):
    """One piece of a finding's evidence: ``cls`` is one of ``EVIDENCE_CLASSES``; ``cite`` a source id or
    an experiment id when the item rests on one."""

    cls: str
    text: str
    cite: str = ""


class ReferenceInfo(BaseModel):
    """A reference in the ledger: ``observed`` is convention name → what it did on that convention's probe
    (``audit.evaluation.observe``); ``conventions`` holds the adapter's notes on how it is called."""

    name: str
    title: str
    library: str
    version: str
    conventions: dict[str, str]
    observed: dict[str, str] = Field(default_factory=dict)


class Tension(BaseModel):
    """Two statements of one chapter that set the same convention to different values, or (``claims``) two claims
    that each hold only under a value of a convention the text leaves open, and not the same one."""

    convention: str
    title: str
    statements: list[dict[str, str]]   # value, quote
    probe: str                          # what each value gives on a probe input
    claims: bool = False                # between claims that need different values, not stated values

    def settings(self, strong: str = "") -> str:
        """``“The evaluator rejects …” sets it to reject; “… first k distinct IDs” sets it to keep first``: each
        statement with the value it sets (``strong``: the Markdown mark around each value, e.g. ``**``)."""
        return "; ".join(f"“{st['quote']}” sets it to {strong}{st['value']}{strong}" for st in self.statements)


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
    """A statement found in the prose (``audit.text.coverage``: one printed value with its measure or
    expression, a table cell, a change, the rest of a sentence, or a whole sentence the rules do not split),
    the sentence or row it is part of (``unit``, empty when the statement is the whole unit; of a unit longer than
    ``coverage.UNIT_SHOWN`` characters, that many around the statement, ``…`` marking each cut), and the claims
    that cover it."""

    line: int
    kind: str
    text: str
    unit: str = ""
    covered_by: list[str] = Field(default_factory=list)


class NotebookNumber(BaseModel):
    """A number the chapter's notebook printed or displayed: its cell (1-based, over all cells), the label printed
    before it (``MRR`` in ``MRR = 0.611``; "" when none), the number as printed, and the output line."""

    cell: int
    label: str
    value: str
    line: str


class NotebookFinding(BaseModel):
    """Where the notebook and its chapter part: ``claim`` (its id) names the number in ``cell`` as its evidence;
    ``text`` says what differs and what to change."""

    claim: str
    cell: int
    text: str
    #: what to correct: ``notebook`` (its number is wrong), ``sentence`` (the notebook is right; the claim's finding
    #: corrects the sentence), ``both``, or ``link`` (the claim names a number the notebook does not print)
    fix: str = "notebook"


class NotebookReport(BaseModel):
    """The chapter's notebook and its run. ``status``: ``ran``, how the run ended (``failed``, ``timeout``,
    ``violation``, ``died``, ``error``, ``too large``), ``not run`` (the sandbox is unavailable) or ``unverified``
    (a URL); ``summary``: one line for the provenance; ``cell``/``error``: where and how it stopped; ``numbers``: the
    numbers its outputs show; ``stale``: code cells whose committed outputs differ from the re-executed ones (as
    nbval compares them: text outputs, execution counts ignored); ``agreements``/``findings``: the numbers claims
    name as evidence, held to the chapter."""

    path: str
    status: str
    summary: str
    cell: int | None = None
    error: str = ""
    seconds: float = 0.0
    kernel: str = ""
    versions: dict[str, str] = Field(default_factory=dict)
    isolation: str = ""
    numbers: list[NotebookNumber] = Field(default_factory=list)
    stale: list[str] = Field(default_factory=list)
    agreements: list[str] = Field(default_factory=list)
    findings: list[NotebookFinding] = Field(default_factory=list)
    #: {file: SHA-256} of every module the run's kernel imported from the site-packages folders (None: not known);
    #: kept with a stored run, not in the report
    _modules: dict[str, str] | None = PrivateAttr(default=None)

    @property
    def failing(self) -> bool:
        """Whether ``--fail-on notebook`` fails on it: a local notebook that did not run through, a number of it a
        claim names that is wrong (or not printed), or committed outputs the re-execution no longer prints (as nbval
        fails on them). A number that is right where the sentence is wrong fails the claim, not the notebook."""
        return self.status not in ("ran", "unverified", "not run") or bool(self.stale) \
            or any(f.fix != "sentence" for f in self.findings)


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
    research: Research | None = None
    notebook: NotebookReport | None = None



class SourceLink(BaseModel):
    """How one bibliography entry bears on one claim: ``relation`` supports / qualifies / contradicts,
    ``via`` the measure, convention or reference that links them, ``how`` what the source says or what
    the harness computed with it."""

    claim: str
    relation: str
    via: str
    how: str


class SourceMetadata(BaseModel):
    """One metadata field of a source: its value, ``verified`` or ``UNVERIFIED``, and for a verified
    field the record it was compared with (``against``, ``url``) and the ``accessed`` date."""

    field: str
    value: str
    status: str
    against: str = ""
    url: str = ""
    accessed: str = ""


class SourceEntry(BaseModel):
    """A row of the source ledger: a bibliography entry bearing on this chapter's claims."""

    id: str
    kind: str
    identity: str
    url: str
    metadata: list[SourceMetadata]
    reading: str
    limits: str
    accessed: list[str]
    links: list[SourceLink]
    brief_lead: str = ""


class Hunk(BaseModel):
    """One proposed change to the snapshot: ``old`` and ``new`` are the whole snapshot line ``line``
    (1-based, in the text as the hunks before it left it, as ``patch`` applies them) before and after; ``text`` the
    words added or replacing ``replaced``; ``snapshot_line``: where its lines start in the snapshot as read (what the
    author looks up; 0 in reports written before it was kept)."""

    claim: str
    #: Every claim whose finding this hunk answers, when several quote the sentence it changes (``claim`` first):
    #: their changes are composed into one new sentence, re-checked with every claim that quotes it
    claims: list[str] = Field(default_factory=list)
    line: int
    snapshot_line: int = 0
    old: str
    new: str
    action: str           # state a convention, correct a value, reword, add a caveat
    replaced: str
    text: str
    rationale: str
    tradeoff: str
    dependencies: list[str] = Field(default_factory=list)
    check: str            # what the harness re-ran on the new text, and what it found
    conventions: list[str] = Field(default_factory=list)  # the conventions the new text states or is about
    #: The claim register's edits that go with the new text (claim, field, value), so the next run reads the
    #: sentence as changed: a new quote, a corrected claimed value, a stated convention
    register_edits: list[dict] = Field(default_factory=list)
    response: str = ""    # the finding's proposed response: this change, in these words, and its check


class Proposal(BaseModel):
    """The upgrade proposal: checked hunks, in snapshot order, and findings with no checked text."""

    file: str             # the snapshot's path, as the patch names it
    register_file: str = ""   # the claim register's path, as the patch names it
    hunks: list[Hunk] = Field(default_factory=list)
    not_proposed: list[dict[str, str]] = Field(default_factory=list)   # claim, reason
    withdrawn: list[dict[str, str]] = Field(default_factory=list)      # claim, reason: the check failed


class Experiment(BaseModel):
    """An experiment: what to test, how (a register snippet or a command), the criteria, its status."""

    id: str
    origin: str           # uncovered statement, open condition, research gap
    claims: list[str] = Field(default_factory=list)
    what: str
    method: str
    success: str
    failure: str
    status: str = "UNRUN"


class SensitivityCell(BaseModel):
    """One alternative: ``outcome`` holds / flips / n/a, with the value the alternative gives."""

    alternative: str
    axis: str             # metric or a convention name
    value: str
    outcome: str
    stated: bool = False  # the chapter's own choice (the baseline)


class SensitivityRow(BaseModel):
    claim: str
    statement: str
    kind: str
    cells: list[SensitivityCell] = Field(default_factory=list)
    conclusion: str       # what the cells say (``research.sensitivity.conclusion``), or not applicable
    deciding: list[str] = Field(default_factory=list)
    note: str = ""


class ChecklistItem(BaseModel):
    """A decision for the author: ``recommendation`` accept / revise / defer / reject, with the reason."""

    subject: str
    claims: list[str] = Field(default_factory=list)
    recommendation: str
    reason: str
    urgency: int          # 0 most urgent


class Research(BaseModel):
    """The research brief's sections beyond the claim audit, computed by the harness."""

    sources: list[SourceEntry] = Field(default_factory=list)
    sources_not_bearing: list[str] = Field(default_factory=list)
    proposal: Proposal | None = None
    experiments: list[Experiment] = Field(default_factory=list)
    sensitivity: list[SensitivityRow] = Field(default_factory=list)
    checklist: list[ChecklistItem] = Field(default_factory=list)
    unverified: list[str] = Field(default_factory=list)   # every item marked UNVERIFIED, in one list
    #: the items of ``unverified`` about bibliography entries (shown in the source ledger; the rest are about the
    #: chapter itself and shown in its context)
    unverified_sources: list[str] = Field(default_factory=list)


ClaimResult.model_rebuild()
ChapterReport.model_rebuild()
