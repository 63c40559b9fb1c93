"""The bibliography of primary sources behind the harness's definitions and conventions: schema, loader, look-up.

The shipped file is ``audit/research/sources/bibliography.yaml`` (human-edited). Each entry names a
paper, program, documentation page or dataset; says which of its metadata fields were checked,
against which primary record (URL) and on which date; lists every other filled-in field under
``unverified`` (reports print those as UNVERIFIED); states its reading status and its limits;
and says which measures (ir-measures names) and conventions it bears on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from audit.errors import AuditError
from audit.measures.catalogue import SUPPORTED
from audit.measures.conventions import CONVENTIONS as _CONVENTIONS
from audit.register.claims import (
    UniqueKeyLoader,  # the register's YAML loader: duplicate and non-scalar keys refused
)

BIBLIOGRAPHY_FILE = "bibliography.yaml"

#: The conventions a chapter can state or leave unstated (the keys of the evaluator's convention model).
CONVENTIONS: tuple[str, ...] = tuple(_CONVENTIONS)

#: Measures a source may bear on, in ir-measures names: those the chapter evaluator implements, plus
#: measures a source defines that the harness does not evaluate (trec_eval's and ir-measures' ``Bpref``).
MEASURES: tuple[str, ...] = tuple(dict.fromkeys((*SUPPORTED, "Bpref")))

#: Metadata fields that a check can cover; each filled-in one is either verified or listed as unverified.
METADATA_FIELDS: tuple[str, ...] = (
    "authors", "title", "venue", "year", "volume", "pages", "doi", "arxiv", "url", "version",
)

KINDS = ("paper", "software", "documentation", "dataset")

Id = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")]
MetadataField = Literal["authors", "title", "venue", "year", "volume", "pages", "doi", "arxiv", "url", "version"]
Text = Annotated[str, Field(min_length=1)]
HttpUrl = Annotated[str, Field(pattern=r"^https?://\S+$")]


class BibliographyError(AuditError):
    """The bibliography file is missing, malformed or fails validation; names the file, the entry and the field."""

    def __init__(self, message: str, *, file: str | None = None, entry: str | None = None,
                 field: str | None = None) -> None:
        self.entry = entry
        super().__init__(message, file=file, field=field)

    def __str__(self) -> str:
        where = [str(self.file)] if self.file else []
        if self.entry and f"entry {self.entry}" not in self.message:
            where.append(f"entry {self.entry}")
        if self.field and f"field {self.field}" not in self.message:
            where.append(f"field {self.field}")
        return ": ".join([", ".join(where), self.message]) if where else self.message


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Check(Strict):
    """One verification: these ``fields`` were compared with the record at ``url`` on ``accessed``.

    ``against`` says what the record is (the publisher's page, the Crossref DOI record, the
    project's README or source file at a commit) and, where it matters, how it was reached.
    """

    fields: Annotated[list[MetadataField], Field(min_length=1)]
    against: Text
    url: HttpUrl
    accessed: date


class BearsOn(Strict):
    """What a source defines or documents: ``{measure: how}`` and ``{convention: how}``; ``discusses``: measures it
    studies without defining them (a stability study of AP), which link it to no claim: a source supports a value
    only through the definition the value is computed by."""

    measures: dict[str, Text] = {}
    conventions: dict[str, Text] = {}
    discusses: dict[str, Text] = {}

    @field_validator("measures", "conventions", "discusses")
    @classmethod
    def _known_names(cls, value: dict[str, str], info) -> dict[str, str]:
        known, kind, names = ((MEASURES, "measure", "measures (ir-measures names)")
                              if info.field_name in ("measures", "discusses")
                              else (CONVENTIONS, "convention", "conventions"))
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise ValueError(f"unknown {kind}(s) {', '.join(map(repr, unknown))}; known {names}: {', '.join(known)}")
        return value


class Source(Strict):
    """One primary source. Metadata fields left empty are simply absent; every filled-in one is
    covered by a ``verified`` check or listed in ``unverified``, never both."""

    id: Id
    kind: Literal["paper", "software", "documentation", "dataset"]
    authors: list[Text] = []
    title: Text
    venue: Text | None = None
    year: int | None = None
    volume: Text | None = None
    pages: Text | None = None
    doi: Annotated[str, Field(pattern=r"^10\.\d{4,9}/\S+$")] | None = None
    arxiv: Annotated[str, Field(pattern=r"^\d{4}\.\d{4,5}$")] | None = None
    url: HttpUrl | None = None
    version: Text | None = None
    verified: list[Check] = []
    unverified: list[MetadataField] = []
    reading: Text
    limits: Text
    bears_on: BearsOn = BearsOn()
    brief_lead: Text | None = None
    notes: Text | None = None

    @model_validator(mode="after")
    def _every_field_accounted_for(self) -> Source:
        checked = [f for check in self.verified for f in check.fields]
        for name in dict.fromkeys(checked):
            if name in self.unverified:
                raise ValueError(f"field {name!r} is listed both under verified and under unverified")
        for name in dict.fromkeys(checked + list(self.unverified)):
            if not self.has(name):
                raise ValueError(f"field {name!r} is listed under verified or unverified but has no value")
        missing = [name for name in METADATA_FIELDS if self.has(name)
                   and name not in checked and name not in self.unverified]
        if missing:
            subject = f"field {missing[0]!r} has" if len(missing) == 1 else f"fields {', '.join(missing)} have"
            raise ValueError(f"{subject} a value but no check (with a url and an accessed date) verifies it and it "
                             "is not listed under unverified")
        return self

    def has(self, name: str) -> bool:
        """Whether metadata field ``name`` is filled in."""
        value = getattr(self, name)
        return bool(value) if isinstance(value, list) else value is not None

    def checks_for(self, name: str) -> list[Check]:
        """The checks that verified metadata field ``name`` (empty when it is unverified or absent)."""
        return [check for check in self.verified if name in check.fields]

    def status(self, name: str) -> Literal["verified", "UNVERIFIED", "absent"]:
        """``verified`` (a check covers the field), ``UNVERIFIED`` (filled in, not checked) or ``absent``."""
        if not self.has(name):
            return "absent"
        return "verified" if self.checks_for(name) else "UNVERIFIED"

    @property
    def unverified_fields(self) -> list[str]:
        """Filled-in metadata fields that no check covers, in ``METADATA_FIELDS`` order."""
        return [name for name in METADATA_FIELDS if self.status(name) == "UNVERIFIED"]

    def bears_on_any(self, measures: Iterable[str], conventions: Iterable[str]) -> bool:
        return bool(set(self.bears_on.measures) & set(measures) or set(self.bears_on.conventions) & set(conventions))


class Bibliography(Strict):
    """The whole file: ``sources`` in the curator's order (the order reports list them in)."""

    sources: list[Source]

    @model_validator(mode="after")
    def _unique_ids(self) -> Bibliography:
        seen: set[str] = set()
        for source in self.sources:
            if source.id in seen:
                raise ValueError(f"duplicate id {source.id!r}: ids must be unique")
            seen.add(source.id)
        return self

    def get(self, source_id: str) -> Source:
        """The entry with this id; ``KeyError`` naming the known ids when there is none."""
        for source in self.sources:
            if source.id == source_id:
                return source
        raise KeyError(f"no bibliography entry {source_id!r}; known: {', '.join(s.id for s in self.sources)}")


def _entry_name(data: Any, index: int) -> str:
    items = data.get("sources") if isinstance(data, dict) else None
    item = items[index] if isinstance(items, list) and index < len(items) else None
    ident = item.get("id") if isinstance(item, dict) else None
    return str(ident) if ident else f"#{index + 1}"


def _validation_error(exc: ValidationError, path: str, data: Any) -> BibliographyError:
    """The first few pydantic errors as one message naming the file, the entry id and the field."""
    parts, first_entry, first_field = [], None, None
    for err in exc.errors()[:5]:
        loc = list(err["loc"])
        entry = None
        if len(loc) >= 2 and loc[0] == "sources" and isinstance(loc[1], int):
            entry, loc = _entry_name(data, loc[1]), loc[2:]
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or None
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] == "extra_forbidden":
            msg = "unknown field (check its spelling)"
        if field is None:  # an entry-level rule: its message names the field (or the repeated id)
            named = re.search(r"^fields? '?([a-z_]+)", msg)
            repeated = re.search(r"^duplicate id '([^']+)'", msg)
            field = named.group(1) if named else "id" if repeated else None
            entry = entry or (repeated.group(1) if repeated else None)
        parts.append(", ".join(p for p in (f"entry {entry}" if entry else None,
                                              f"field {field}" if field else None) if p) + f": {msg}")
        if first_entry is None and first_field is None:
            first_entry, first_field = entry, field
    more = len(exc.errors()) - len(parts)
    text = "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
    error = BibliographyError(f"invalid bibliography: {text}", file=path)
    error.entry, error.field = first_entry, first_field  # located, without repeating them in the message
    return error


def default_path() -> Path:
    """The bibliography shipped with the package (``audit/research/sources/bibliography.yaml``)."""
    return Path(str(resources.files("audit.research.sources") / BIBLIOGRAPHY_FILE))


def load_bibliography(path: Path | str | None = None) -> Bibliography:
    """Load and validate a bibliography file (the shipped one when ``path`` is None).

    Raises ``BibliographyError`` naming the file, the entry id and the field for a missing or
    malformed file, an unknown field, a duplicate id, an unknown measure or convention, a check
    without a URL or access date, or a filled-in field that is neither verified nor unverified.
    """
    path = Path(path) if path is not None else default_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BibliographyError("missing; expected a YAML file with a top-level 'sources' list", file=str(path))
    except UnicodeDecodeError as exc:
        raise BibliographyError(f"not UTF-8 text ({exc.reason})", file=str(path))
    try:
        data = yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise BibliographyError(f"malformed YAML{where}: {getattr(exc, 'problem', None) or exc}", file=str(path))
    try:
        return Bibliography.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise _validation_error(exc, str(path), data)


@lru_cache(maxsize=1)
def shipped_bibliography() -> Bibliography:
    """The package's own bibliography, loaded once."""
    return load_bibliography()


def _measure_name(text: str) -> str:
    """``nDCG@4`` or ``nDCG(dcg='exp-log2')@4`` → ``nDCG``; aliases MRR/MAP/NDCG → RR/AP/nDCG."""
    match = re.match(r"^\s*([A-Za-z_]+)", text)
    name = match.group(1) if match else text
    return {"MRR": "RR", "MAP": "AP", "NDCG": "nDCG", "Precision": "P", "Recall": "R"}.get(name, name)


def sources_for(measures: Iterable[str], conventions: Iterable[str],
                bibliography: Bibliography | None = None) -> list[Source]:
    """The entries that bear on any of ``measures`` or ``conventions``, in the bibliography's order.

    ``measures`` are ir-measures names, with or without cutoff and parameters (``nDCG``,
    ``nDCG@4``); ``conventions`` are names from ``CONVENTIONS``. Uses the shipped bibliography
    unless one is given. Raises ``ValueError`` naming an unknown measure or convention.
    """
    names = {_measure_name(m) for m in measures}
    unknown = sorted(names - set(MEASURES))
    if unknown:
        raise ValueError(f"unknown measure(s) {', '.join(unknown)}; known: {', '.join(MEASURES)}")
    conventions = set(conventions)
    unknown = sorted(conventions - set(CONVENTIONS))
    if unknown:
        raise ValueError(f"unknown convention(s) {', '.join(unknown)}; known: {', '.join(CONVENTIONS)}")
    bib = bibliography if bibliography is not None else shipped_bibliography()
    return [source for source in bib.sources if source.bears_on_any(names, conventions)]
