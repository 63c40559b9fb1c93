"""The source ledger: the bibliography entries bearing on a chapter's claims, and how each bears on each.

A source is linked to a claim only through something the claim uses (``audit.research.sources.sources_for``):

* a **measure** the claim computes (``P@4`` → the entries defining P);
* a **convention** that changes the claim's value on its input (found by the metric-choice
  sensitivity run, ``audit.research.sensitivity``), or the convention a convention claim is about.

The relation is decided by what the harness computed, never by topic:

* an entry naming a reference implementation (trec_eval, pytrec_eval, ir-measures, ranx) supports
  a claim when that reference's value agrees with it, contradicts it when the claim is contradicted
  and the reference disagrees too, and qualifies it otherwise (it disagrees, or follows another rule);
* any other entry supports a supported claim through the measure it defines, and qualifies (or, for
  a contradicted claim, contradicts) a claim through a convention that changes its value.
"""

from __future__ import annotations

from collections.abc import Iterable

from audit.measures.conventions import CONVENTIONS
from audit.model.results import (
    ClaimResult,
    SensitivityRow,
    SourceEntry,
    SourceLink,
    SourceMetadata,
)
from audit.research.sources import Source, shipped_bibliography, sources_for
from audit.research.sources.bibliography import MEASURES, _measure_name

#: Bibliography entries that document a reference implementation the harness runs.
REFERENCE_SOURCES = {
    "trec-eval": "pytrec_eval", "pytrec-eval-terrier": "pytrec_eval", "pytrec-eval-paper": "pytrec_eval",
    "ir-measures": "ir_measures", "ir-measures-paper": "ir_measures",
    "ranx": "ranx", "ranx-paper": "ranx",
}
#: Convention claims name their convention in the register's terms; ``cutoff`` is the evaluated prefix.
#: The convention a convention claim is about, as the bibliography names it (a claim's ``cutoff`` is the prefix).
_CLAIM_CONVENTION = {"cutoff": "prefix"}


def claim_measures(claim) -> list[str]:
    """The ir-measures names a register claim computes (``P``, ``nDCG`` …), known to the bibliography."""
    raw: list[str] = []
    if claim.kind == "value":
        raw = [e.measure for e in claim.expect]
    elif claim.kind == "comparison":
        raw = [m for e in claim.expect for m in (e.measure, e.after_measure) if m]
    elif claim.kind == "property":
        raw = [claim.measure] + claim.others
    elif claim.kind in ("code", "convention"):
        raw = [claim.measure] if claim.kind == "code" else list(claim.measures)
    elif claim.kind == "arithmetic" and claim.set_measure:
        raw = [claim.set_measure.measure]
    names = [_measure_name(m) for m in raw]
    return list(dict.fromkeys(n for n in names if n in MEASURES))


def claim_conventions(claim, rows: Iterable[SensitivityRow]) -> list[str]:
    """Conventions that change the claim's value on its input, and a convention claim's own."""
    out = [c.axis for r in rows if r.claim == claim.id for c in r.cells if c.axis in CONVENTIONS
           and c.outcome == "flips"]
    if claim.kind == "convention":
        out.append(_CLAIM_CONVENTION.get(claim.convention, claim.convention))
    return list(dict.fromkeys(out))


def _reference_relation(result: ClaimResult, reference: str) -> tuple[str, str] | None:
    values = [(check, v) for check in result.checks for v in check.values if v.implementation == reference]
    if not values:
        return None
    if any(v.status == "rejected" for _, v in values) and result.kind == "convention":
        return "supports", f"{reference} rejects the probe, as the claim says"
    verdicts = [v.in_interval for _, v in values if v.status == "ok"]
    behaviours = [v.behaviour for _, v in values if v.behaviour]
    if result.kind == "convention":
        if any(v.in_interval is False for _, v in values):
            return "qualifies", f"{reference} follows another rule on the probe: {'; '.join(dict.fromkeys(behaviours))}"
        return "supports", f"{reference} follows the claimed rule on the probe"
    if not verdicts or any(v is None for v in verdicts):
        if result.verdict == "contradicted":
            return "contradicts", f"{reference} gives the counterexample's values too"
        if result.kind == "property" and result.verdict == "supported":
            return "supports", f"no counterexample through {reference}"
        return None
    if result.kind == "code":  # a listing is compared with each reference on generated input, not a printed value
        agree = "; ".join(f"{v.detail}" for _, v in values if v.status == "ok" and v.detail)
        if all(verdicts):
            return "supports", f"{reference} agrees with the listing on every generated input it computes ({agree})"
        return ("contradicts" if result.verdict == "contradicted" else "qualifies",
                f"{reference} and the listing differ on some generated inputs (they agree on {agree})")
    if all(verdicts):
        return "supports", f"{reference} gives the claimed value ({len(verdicts)} check(s))"
    if result.verdict == "contradicted":
        return "contradicts", f"{reference} disagrees with the printed value too"
    return "qualifies", f"{reference} gives another value on {sum(1 for v in verdicts if not v)} check(s)"


def links_for(source: Source, results: list[ClaimResult], uses: dict[str, tuple[list[str], list[str]]]
              ) -> list[SourceLink]:
    links = []
    for r in results:
        if r.verdict in ("stale", "error", "pending", "not checkable") or r.id not in uses:
            continue
        measures, conventions = uses[r.id]
        via_m = [m for m in measures if m in source.bears_on.measures]
        via_c = [c for c in conventions if c in source.bears_on.conventions]
        if not via_m and not via_c:
            continue
        if source.id in REFERENCE_SOURCES:
            found = _reference_relation(r, REFERENCE_SOURCES[source.id])
            if found:
                via = ", ".join(via_m + [CONVENTIONS[c].title for c in via_c])
                links.append(SourceLink(claim=r.id, relation=found[0], via=f"reference {REFERENCE_SOURCES[source.id]}"
                                        f" ({via})", how=found[1]))
            continue
        if r.verdict == "supported":
            via_c = []  # the chapter states what decides the value; the measure's definition is the link
        for c in via_c:
            links.append(SourceLink(claim=r.id, relation="contradicts" if r.verdict == "contradicted" else "qualifies",
                                    via=f"convention {CONVENTIONS[c].title}",
                                    how=f"the claim's value changes with this convention; the source: "
                                        f"{source.bears_on.conventions[c]}"))
        if via_m and r.verdict == "supported":
            # a definition supports a value computed by it; a qualified or contradicted claim is linked to a
            # non-reference source only through the convention that decides it
            m = via_m[0]
            links.append(SourceLink(claim=r.id, relation="supports", via=f"measure {m}",
                                    how=f"defines the measure the claim computes: {source.bears_on.measures[m]}"))
    return links


def _identity(s: Source) -> str:
    who = ", ".join(s.authors) if s.authors else ""
    where = ", ".join(str(x) for x in (s.venue, s.volume, s.pages, s.year) if x)
    return ". ".join(x for x in (who, f"“{s.title}”", where) if x)


def _metadata(s: Source) -> list[SourceMetadata]:
    out = []
    for name in ("authors", "title", "venue", "year", "volume", "pages", "doi", "arxiv", "url", "version"):
        if not s.has(name):
            continue
        value = getattr(s, name)
        value = ", ".join(value) if isinstance(value, list) else str(value)
        checks = s.checks_for(name)
        if checks:
            c = checks[0]
            out.append(SourceMetadata(field=name, value=value, status="verified", against=c.against, url=c.url,
                                      accessed=c.accessed.isoformat()))
        else:
            out.append(SourceMetadata(field=name, value=value, status="UNVERIFIED"))
    return out


def ledger(results: list[ClaimResult], claims, rows: list[SensitivityRow]) -> tuple[list[SourceEntry], list[str]]:
    """The entries bearing on these claims (bibliography order) with their links, and the ids of those
    bearing on none."""
    uses = {c.id: (claim_measures(c), claim_conventions(c, rows)) for c in claims}
    all_m = {m for ms, _ in uses.values() for m in ms}
    all_c = {c for _, cs in uses.values() for c in cs}
    candidates = sources_for(all_m, all_c)
    entries, listed = [], set()
    for s in candidates:
        links = links_for(s, results, uses)
        if not links:
            continue
        listed.add(s.id)
        entries.append(SourceEntry(
            id=s.id, kind=s.kind, identity=_identity(s), url=s.url or "", metadata=_metadata(s),
            reading=s.reading, limits=s.limits,
            accessed=sorted({c.accessed.isoformat() for c in s.verified}), links=links, brief_lead=s.brief_lead or ""))
    others = [s.id for s in shipped_bibliography().sources if s.id not in listed]
    return entries, others


def unread(entry: SourceEntry) -> bool:
    """Whether the full text of a paper was not read (its reading status says metadata or abstract only)."""
    text = entry.reading.lower()
    return any(w in text for w in ("metadata only", "abstract only", "not read", "abstract and"))
