"""The claim register: schema, loading and validation of a chapter folder.

A chapter folder holds ``chapter.yaml`` (identity and snapshot), the snapshot file, and
``claims.yaml`` (fixtures, cohorts and numbered claims). Every error names the file,
the claim id and the field.
"""

from __future__ import annotations

import re

from pathlib import Path

import yaml
from pydantic import ValidationError

from audit.errors import AuditError, RegisterError
from audit.measures.conventions import CONVENTIONS, Declared, cited_in, declared_from, formula_statements
from audit.model.limits import MAX_CLAIMS, MAX_SNAPSHOT_LINES
from audit.measures.syntax import parse as parse_measure
from audit.text.chapter import Snapshot

from audit.register.options import OPTIONAL_REFERENCES, REFERENCE_NAMES  # noqa: F401 — also read from here
from audit.register.book import (  # noqa: F401 — also read from here
    hidden_part,
    _book_conventions,
    _check_environment,
    _check_notebook,
    _check_source,
    BOOK_FILE,
    book_root,
    notebook_path,
    read_book_file,
    repository_problem,
    source_difference,
    URL,
)
from audit.register.fields import (  # noqa: F401 — also read from here
    ConventionStatement,
    RESERVED_IDS,
    _as_plain,
    CHAPTER_FILE,
    CLAIMS_FILE,
    Cohort,
    Fixture,
    Identity,
)
from audit.register.kinds import (  # noqa: F401 — also read from here
    ArithmeticClaim,
    canonical_rule,
    Chapter,
    Claim,
    ClaimsFile,
    CODE_ROLES,
    CodeClaim,
    ComparisonClaim,
    CONVENTION_RULES,
    ConventionClaim,
    DraftClaim,
    GRADED_ROLES,
    MULTI_ROLES,
    NotCheckableClaim,
    own_conditions,
    PropertyClaim,
    SCORED_ROLES,
    StandingClaim,
    StatisticClaim,
    TESTS,
    UNPAIRED,
    ValueClaim,
)
from audit.register.load_checks import (  # noqa: F401 — also read from here
    role_problem,
    _check_references,
    parameter_defaults,
    shown_arguments,
)
from audit.register.yaml_reading import (  # noqa: F401 — also read from here
    _claim_lines,
    _read_yaml,
    _shape,
    _validation_error,
    UniqueKeyLoader,
)


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
    _check_convention_quotes(identity, register, snapshot, chapter_path, claims_path)
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


def _check_convention_quotes(identity, register, snapshot, chapter_path: Path, claims_path: Path) -> None:
    """A convention quoted from the text must be in the text a reader sees (its spaces and line breaks aside): one
    whose quote the chapter does not hold, or holds only where no rendering shows it (a comment, a hidden element:
    ``markdown.unseen``), states nothing the text states, and it would decide readings (a contradicted value
    qualified by a rule no sentence gives). Raises ``RegisterError`` naming the file, the claim and the field."""
    import re

    def plain(t: str) -> str:
        return re.sub(r"\s+", " ", t).strip()

    text = snapshot.text
    if snapshot.markdown:
        from audit.text.markdown import unseen
        for a, b, _ in reversed(unseen(text)):  # what no reader sees stands as a break between the words around it
            text = text[:a] + " \x00 " + text[b:]  # (not whitespace, which plain() would fold into one space)
    body = plain(text)
    # where sentences end for the denial test: a paragraph, heading, list item or table row ends one as well
    paragraphs = plain(re.sub(r"\n[ \t]*\n|\n(?=[ \t]*(?:#|[-*+] |\d+[.)] |\|))", " \x00 ", text))
    specs = [(chapter_path, None, identity.conventions)] + [(claims_path, c.id, getattr(c, "conventions", None))
                                                            for c in register.claims]
    for path, claim_id, spec in specs:
        for name, entry in (spec or {}).items():
            for i, item in enumerate(entry if isinstance(entry, list) else [entry]):
                quote = getattr(item, "quote", "")
                where = f"conventions.{name}" + (f"[{i}]" if isinstance(entry, list) else "") + ".quote"
                denial = _denied(paragraphs, plain(quote)) if quote and plain(quote) in paragraphs else None
                if denial:
                    raise RegisterError(f"the quote {quote[:120]!r} is held only by a sentence that denies or doubts "
                                        f"it ({denial!r}): a convention rests on what the text states; quote a "
                                        f"sentence that states it, or leave the quote out", file=str(path),
                                        claim=claim_id, field=where)
                if quote and plain(quote) not in body:
                    hidden = plain(quote) in plain(snapshot.text)
                    raise RegisterError(f"the quote {quote[:120]!r} is " + (
                        "printed only where a reader of the rendered chapter never sees it (a comment or a hidden "
                        "element)" if hidden else "not in the chapter's text") + ": a convention rests on what the "
                        "text says; quote the sentence that states it, or leave the quote out", file=str(path),
                        claim=claim_id, field=where)


#: Words before a quote, in its sentence, that deny or doubt what follows ("It is a myth that …", "Never assume …",
#: "Some readers think …"), and words right after it that do ("… is wrong").
_DENIED_BEFORE = re.compile(r"\b(?:not|never|no|nor|neither|\w+n't|cannot|false(?:ly)?|untrue|myth|mistaken(?:ly)?|"
                            r"mistake|misconception|wrong(?:ly)?|incorrect(?:ly)?|erroneous(?:ly)?|"
                            r"(?:claims?|thinks?|believes?|assumes?|supposes?|pretends?) that)\b", re.IGNORECASE)
_DENIED_AFTER = re.compile(r"^\W{0,3}(?:is|are|was|were)\s+(?:not|false|wrong|untrue|incorrect|mistaken|a myth|"
                           r"a mistake|a misconception)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;]\s|\x00")
_CLAUSE = re.compile(r"[,;—–()|]|\b(?:because|since|but|and|so|while|whereas|although|though)\b", re.IGNORECASE)


def _denied(body: str, quote: str) -> str | None:
    """The words denying or doubting ``quote`` in the sentence of each place ``body`` prints it, when every place
    does (one sentence stating it is enough); None otherwise."""
    found = None
    start = body.find(quote)
    while start != -1:
        ends = [m.end() for m in _SENTENCE_END.finditer(body, max(0, start - 400), start)]
        before = body[ends[-1] if ends else max(0, start - 400):start]
        before = _CLAUSE.split(before)[-1]  # "… is 0.0028, not 0, because <quote>": the denial is another clause's
        after = body[start + len(quote):start + len(quote) + 60]
        words = _DENIED_BEFORE.findall(before) or [m.group(0).strip() for m in [_DENIED_AFTER.search(after)] if m]
        if not words:
            return None
        found = found or words[-1]
        start = body.find(quote, start + 1)
    return found


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


