"""The register's building blocks: ids, claimed values and grades, a stated convention, the chapter's identity
and snapshot, the book file, a fixture (qrels and a run), a cohort and a derived value.
"""

from __future__ import annotations

import unicodedata

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, field_validator, model_validator
from typing import Annotated, Any

from audit.measures.conventions import check_value
from audit.model.limits import MAX_COHORT, MAX_GRADE, MAX_ID_CHARS, MAX_QUOTE_CHARS, trim


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

        def keyed(mapping: dict, where: str) -> dict:
            # 1 and "1" are one ID once IDs are text: two entries for it would leave one silently
            out = {}
            for k, v in mapping.items():
                if ident(k) in out:
                    raise ValueError(f"{where} names the ID {ident(k)!r} twice (once as a number, once as text)")
                out[ident(k)] = v
            return out

        for key in ("qrels", "scores"):
            if isinstance(data.get(key), dict):
                data[key] = {q: (keyed(docs, f"{key} of query {q!r}") if isinstance(docs, dict) else docs)
                             for q, docs in keyed(data[key], key).items()}
        if isinstance(data.get("run"), dict):
            data["run"] = {q: ([ident(d) for d in r] if isinstance(r, list) else r)
                           for q, r in keyed(data["run"], "run").items()}
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
