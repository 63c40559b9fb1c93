"""Audit one chapter: anchor each claim, run its checker, decide its verdict, build the report model."""

from __future__ import annotations

import hashlib
import signal
import threading
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace

from audit import __version__
from audit.attribution.book import Book, Conflict
from audit.attribution.verdict import (
    PRIORITY,
    Decision,
    decide,
    not_checkable,
    pending,
    stale,
)
from audit.errors import AuditError
from audit.model.evidence import Evidence
from audit.evaluation.checks import CHECKERS, NEEDS, Measurements
from audit.evaluation.notebook import hold_to_chapter, notebook_report
from audit.evaluation.references import Reference, significance_references
from audit.register.claims import Chapter, source_difference
from audit.measures.conventions import CONVENTIONS
from audit.model.limits import CLAIM_SECONDS, shorten
from audit.model.results import (
    VERDICTS,
    ChapterReport,
    ClaimResult,
    Fingerprint,
    Provenance,
    ReferenceInfo,
)
from audit.model.results import Statement as StatementResult
from audit.run.cache import (
    ClaimCache,
    NotebookStore,
    OutcomeStore,
    PerClaimCache,
    ResearchCache,
    claim_key,
    environment,
    research_key,
)
from audit.evaluation.parallel import map_each
from audit.run.revise import Revised, revise
from audit.text.anchors import (
    Anchor,
    Budget,
    anchor_claim,
    edited_claim,
    line_starts,
)
from audit.text.chapter import NORMALISATION
from audit.text.coverage import call_uses, covered_by, use_of
from audit.text.coverage import statements as coverage_statements
from audit.text.markdown import MARKDOWN_READING, is_markdown
from audit.text.scan import MEASURED, has_number, scan, unread_sentences


def fingerprint_statement(chapter: Chapter) -> Fingerprint:
    """Recorded vs computed fingerprint, with a plain statement of what a difference can mean."""
    computed = chapter.snapshot.fingerprint()
    recorded = chapter.identity.fingerprint
    excerpt = chapter.identity.snapshot.excerpt
    if recorded is None:
        statement = "No fingerprint is recorded for this chapter; the computed one identifies the snapshot read."
    elif recorded == computed:
        statement = "The snapshot is the revision the register was written for (fingerprints match)."
    elif excerpt:
        statement = ("The fingerprints cannot match: the register records the snapshot as an excerpt, and the "
                     "recorded fingerprint is of the whole chapter. That the excerpt comes from the recorded revision "
                     "is UNVERIFIED: a hash of the whole chapter cannot check a part of it (and the recorded "
                     "normalisation is not stated). Claims outside the excerpt were not audited.")
    else:
        statement = ("The fingerprints differ: the snapshot is another revision than the one the register "
                     "was written for, or was normalised differently. Check anchors and rerun after updating the register; "
                     "once this revision's report is read, `audit accept` records its fingerprint.")
    reading = chapter.snapshot.reading or (MARKDOWN_READING if is_markdown(chapter.snapshot.path) else "")
    return Fingerprint(recorded=recorded, computed=computed, matches=recorded == computed,
                       normalisation=NORMALISATION + (f"; {reading}" if reading else ""), statement=statement)


def _relation(claimed) -> str:
    """`` = 1/4``, `` ≈ .4884`` or `` < 1``: the claimed value with the right relation sign."""
    text = str(claimed).strip().removeprefix("=").strip()
    return f" {text}" if text[:1] in "≈~<>≤≥" else f" = {text}"


class ClaimTimeout(BaseException):
    """A claim's check ran past ``CLAIM_SECONDS`` (a BaseException, so no ``except Exception`` in a
    checker or library swallows it)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``ClaimTimeout`` in the block after ``seconds`` of wall time (SIGALRM; only in the main
    thread of a POSIX process — elsewhere the block runs unbounded)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise ClaimTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _run_checker(claim, chapter: Chapter, ms: Measurements, seconds: float) -> tuple[Evidence | None, Decision | None]:
    """The checker's evidence, or an ``error`` decision when the check cannot run, overruns
    ``seconds`` or fails unexpectedly (named as an internal failure, so it is reported, not hidden)."""
    try:
        with time_limit(seconds):
            return CHECKERS[claim.kind](claim, chapter, ms), None
    except AuditError as exc:
        return None, Decision("error", f"The check could not run: {exc.message}.",
                              "The claim's encoding or fixture is faulty; nothing was verified.",
                              "Fix the register entry named in the reason, then rerun.", "high")
    except ClaimTimeout:
        return None, Decision("error", f"The check did not finish within the limit of {seconds:g} s per claim "
                              "and was stopped; nothing was verified.",
                              "The claim's search or listing takes too long to check.",
                              "Narrow the claim's search (universe, random_cases, time_limit) or its fixture, "
                              "then rerun.", "high")
    except (RecursionError, MemoryError, OverflowError, ArithmeticError, ValueError, TypeError, KeyError,
            IndexError, AttributeError, RuntimeError) as exc:
        return None, Decision("error", f"The check failed with an internal error ({type(exc).__name__}: "
                              f"{shorten(str(exc), 200)}); nothing was verified.",
                              "chapter-audit could not check this claim; this is a fault of the tool, not the "
                              "chapter.", "Report this internal error with the claim's register entry.", "high")


def audit_claim(claim, chapter: Chapter, ms: Measurements, anchor: Anchor | None = None,
                seconds: float = CLAIM_SECONDS, revised: Revised | None = None) -> ClaimResult:
    """One claim's result; checker failures become an ``error`` verdict, never a crash.

    ``seconds`` bounds the check's wall time (see ``time_limit``); past it the claim is an error. ``revised``: the
    claim was derived again from its edited sentence (``audit.run.revise``); a hand-written field the new sentence
    no longer bears out makes it stale, never checked against the old text.
    """
    anchor = anchor or anchor_claim(chapter.snapshot, claim)
    evidence = Evidence()
    edit_note = ""
    if revised is not None and revised.stale and revised.stale_fields:
        decision = Decision("stale", "A field written by hand no longer matches its sentence, so the claim was not "
                            "checked against this revision: " + "; ".join(revised.stale) + ".",
                            "The register holds a value the chapter no longer prints; checking it would judge the "
                            "old text.", f"Update {', '.join(f'`{n}`' for n in revised.stale_fields)} to the sentence "
                            "as now printed (or remove it from the register, so that it is derived from the "
                            "sentence), then rerun.", PRIORITY["stale"])
    elif revised is not None and revised.stale:
        decision = Decision("stale", "The claim was not checked against this revision: " + "; ".join(revised.stale)
                            + ".", "The register no longer matches the chapter; checking it would judge the old text.",
                            "Update the claim to the sentence as now printed (or remove it if the sentence is gone), "
                            "then rerun.", PRIORITY["stale"])
    elif not anchor.found:
        decision = stale(claim.quote, anchor.note)
    elif claim.kind == "not checkable":
        decision = not_checkable(claim.reason)
    elif claim.kind not in CHECKERS:
        decision = pending(claim.kind)
    else:
        checked = claim
        if anchor.state == "edited":
            checked, edit_note = edited_claim(claim, anchor.text)
        found, failed = _run_checker(checked, chapter, ms, seconds)
        if failed is not None:
            decision = failed
        else:
            evidence = found
            decision = decide(evidence)
            if claim.rewording and decision.verdict in ("qualified", "contradicted"):
                # the register's rewording is free text the harness cannot check: it is shown as such, never
                # as the verified fix
                decision = replace(decision, response=f"{decision.response} The register also suggests "
                                   f"(free text, not checked by the harness): “{claim.rewording.strip()}”")
        if anchor.state == "edited":
            decision = replace(decision, reason=f"Edited since the register was written: now “{anchor.text}”"
                               + (f"; {edit_note}" if edit_note else "") + f". {decision.reason}",
                               # a supported edit only needs the register's quote updated; anything else is urgent
                               priority="low" if decision.verdict == "supported" else
                               "high" if decision.priority in ("none", "low") else decision.priority,
                               response=decision.response if decision.verdict != "supported" else
                               "Keep the new wording; update the register's quote to it.")
            claim = checked
    anchor_text = {"unchanged": "found", "moved": "moved", "edited": f"edited ({anchor.similarity:.0%} similar)",
                   "ambiguous": "ambiguous", "lost": "not found"}[anchor.state]
    if anchor.note and anchor.state in ("unchanged", "moved"):
        anchor_text += f" — {anchor.note}"
    claimed = ""
    if claim.kind == "value":
        claimed = "; ".join(f"{e.measure}{_relation(e.claimed)}" + (" (derived, not printed)" if e.derived else "")
                            for e in claim.expect)
    elif claim.kind == "comparison":
        claimed = "; ".join(f"{e.measure}{' → ' + e.after_measure if e.after_measure else ''} {e.change}"
                            + (f" ({e.before} → {e.after})" if e.before is not None and e.after is not None else
                               f" (before {e.before})" if e.before is not None else
                               f" (after {_relation(e.after).strip().removeprefix('= ')})" if e.after is not None
                               else "")
                            for e in claim.expect)
    elif claim.kind == "arithmetic":
        claimed = f"{claim.expression}{_relation(claim.claimed)}"
    elif claim.kind == "convention":
        claimed = f"{claim.convention.replace('_', ' ')}: {claim.rule}" + (f" ({claim.by})" if claim.by else "")
    elif claim.kind == "property":
        from audit.evaluation.checks.counterexamples import TRANSFORMS, WHOLE, measure_at
        at = {"|R|": "|R|", "whole ranking": WHOLE}.get(claim.at, "k")
        target = {"next_cutoff": "as k grows",
                  "measure": " and ".join(measure_at(o, at) for o in claim.others) + (
                      " (" + "; ".join(f"{n}: {v}" for n, v in claim.other_reading().items()) + ")"
                      if claim.other_conventions else ""),
                  "constant": str(claim.bound),
                  "transform": f"when {TRANSFORMS[claim.transform][1]}" if claim.transform else ""}[claim.compare]
        from audit.model.universe import PREMISES
        claimed = f"{measure_at(claim.measure, at)} {claim.relation} {target}" + (
            f", when {PREMISES[claim.given].text}" if claim.given else "")
    elif claim.kind == "code":
        claimed = f"{claim.function} computes {claim.measure}"
    elif claim.kind == "statistic":
        claimed = "; ".join([f"{e.statistic}{_relation(e.claimed)}" for e in claim.expect]
                            + ([f"t({claim.reported.df}) = {claim.reported.t}, p{_relation(claim.reported.p)}"]
                               if claim.reported else [])
                            + ([f"{claim.decision} at α = {claim.alpha}"] if claim.decision else [])
                            + ([f"significant after correction: {', '.join(claim.significant) or 'none'}"]
                               if claim.significant is not None else []))
        claimed = f"{claim.test}: {claimed}"
    elif claim.kind == "systems":
        claimed = "; ".join(f"{p.system} {p.relation}" + (f" {', '.join(p.others)}" if p.others else "")
                            + (f" ({p.measure})" if p.measure else "") for p in claim.parts)
    if revised is not None:
        decision = replace(decision, reason=f"{revised.revision.sentence_text()} {decision.reason}")
    return ClaimResult(id=claim.id, kind=claim.kind, title=claim.title, claim=claim.claim, quote=claim.quote,
                       anchor=anchor_text, anchor_state=anchor.state, found_text=anchor.text if anchor.found else "",
                       similarity=round(anchor.similarity, 4), line=anchor.line, column=anchor.column,
                       place=chapter.snapshot.place(anchor.line) if anchor.line else "",
                       register_line=chapter.lines.get(claim.id), verdict=decision.verdict, reason=decision.reason,
                       concern=decision.concern, response=decision.response, priority=decision.priority,
                       claimed=claimed, checks=evidence.checks, note=claim.note,
                       page=getattr(claim, "page", ""),
                       holds_only={n: sorted(v, key=CONVENTIONS[n].values.index) for n, v in evidence.holds_only.items()
                                   if v} if decision.verdict == "qualified" else {},
                       revision=revised.revision if revised is not None else None)


def audit_chapter(chapter: Chapter, references: Sequence[Reference], provenance: Provenance,
                  progress: Callable[[str], None] | None = None, book: Book | None = None,
                  cache: ClaimCache | None = None, select: Collection[str] | None = None,
                  ledger: bool = True, computing: Callable[[], None] | None = None,
                  computed: Callable[[ClaimResult], None] | None = None) -> ChapterReport:
    """Audit the claims of ``chapter`` in register order and return the report model.

    ``book``: the chapters audited together, so a listing can be held to a convention another
    chapter states; conflicts are added to ``book.conflicts`` (see ``add_book_findings``).
    ``cache``: where claim results are looked up and stored (``audit.run.cache``); None computes every
    claim and stores nothing; with a cache, reference outcomes are kept too (``cache.OutcomeStore``).
    ``select``: claim ids to audit (None: all); the report then holds only those claims, in register
    order. A reference's worker process starts on its first evaluation, so a run in which every claim
    (or every outcome a changed claim needs) is cached loads no reference library. ``ledger=False``
    leaves the references' observed conventions out (the pytest plugin shows claims only). ``computing``
    is called once, when some claim is not in the cache, as its computing starts, and ``computed`` with
    each claim's result as it is computed: to prepare other work meanwhile (the reports' charts) while
    the audit waits on its references.
    """
    budget = Budget()
    # a claim init derived from a sentence the author has since edited is checked as derived again from it
    chapter, revised = revise(chapter, budget)
    claims = [c for c in chapter.register.claims if select is None or c.id in select]
    anchors = {claim.id: anchor_claim(chapter.snapshot, claim, budget) for claim in chapter.register.claims}
    env = environment(provenance.versions, CLAIM_SECONDS)
    keys: dict[str, str] = {}
    cached: dict[str, tuple[ClaimResult, list[dict]]] = {}
    chapter_id = str(chapter.identity.id)
    if cache is not None:
        for claim in claims:
            keys[claim.id] = claim_key(claim, chapter, anchors[claim.id], env, book)
            if claim.id in revised:  # derived again by reading the whole text (its tables, its conventions)
                keys[claim.id] = hashlib.sha256(f"{keys[claim.id]}\n{chapter.snapshot.fingerprint()}".encode()
                                                ).hexdigest()
            hit = cache.get(keys[claim.id], claim, chapter_id)
            if hit is not None:
                cached[claim.id] = hit
    todo = [c for c in claims if c.id not in cached]
    if todo and computing is not None:
        computing()
    store = OutcomeStore(env) if cache is not None and cache.enabled else None
    ms = Measurements(references, book, store)
    requests = []
    for claim in todo:
        if anchors[claim.id].found:
            requests += NEEDS[claim.kind](claim, chapter) if claim.kind in NEEDS else []
    searches = [c for c in todo if c.kind == "property" and anchors[c.id].found]
    if not cached and (requests or searches):
        # Nothing of this chapter is cached (a first run, or no cache), so its references' values are not
        # stored either: their workers start loading now. Otherwise a worker starts on the first value
        # not stored, so a revision whose values are all stored loads no library.
        _start(references)
    # a reference whose own significance tests a claim will ask for: its library loads while scipy's tests run
    _start(significance_references(references, todo))
    # started here, evaluated in the references' worker processes while the claims are checked in order
    ms.prefetch(requests)
    # While the references load and evaluate, this process computes what needs only the chapter's
    # definitions: the chapter's side of the property searches, then the sensitivity table.
    _chapter_side(chapter, searches, ms)
    per_claim = (PerClaimCache(cache.beside("per-claim"), keys)
                 if cache is not None and cache.enabled else None)
    early = None
    if todo and select is None:
        from audit.research.sensitivity import sensitivity
        early = sensitivity(chapter, ms, {c.id for c in claims if anchors[c.id].line}, per_claim)
    results = []
    try:
        for claim in claims:
            if progress:
                progress(claim.id)
            anchor = anchors[claim.id]
            if claim.id in cached:
                result, conflicts = cached[claim.id]
                result = result.model_copy(update={"line": anchor.line, "column": anchor.column,
                                                   "register_line": chapter.lines.get(claim.id)})
                if book is not None:
                    for found in conflicts:
                        conflict = Conflict(**found)
                        if conflict not in book.conflicts:
                            book.conflicts.append(conflict)
            else:
                result = audit_claim(claim, chapter, ms, anchor, revised=revised.get(claim.id))
                if computed is not None:
                    computed(result)
                if cache is not None:
                    mine = [asdict(c) for c in (book.conflicts if book is not None else [])
                            if (c.chapter, c.claim) == (chapter_id, claim.id)]
                    cache.put(keys[claim.id], result, mine)
            results.append(result)
    finally:
        ms.close()  # search batches started ahead that no search asked for (also when a claim fails)
    notebook = _notebook(chapter, cache, claims, results) if select is None else None
    statements, scan_summary = scan_coverage(chapter, anchors)
    counts = Counter(r.verdict for r in results)
    ident = chapter.identity
    seen = map_each(observed, list(references)) if ledger else [{} for _ in references]
    report = ChapterReport(
        tool=f"chapter-audit {__version__}",
        chapter={"id": ident.id, "book": ident.book, "chapter": ident.chapter, "title": ident.title,
                 "kind": ident.kind, "url": ident.url, "research_pack": ident.research_pack},
        snapshot={"file": str(chapter.folder / ident.snapshot.file), "folder": str(chapter.folder),
                  "excerpt": ident.snapshot.excerpt,
                  "source": ident.snapshot.source, "source_differs": source_difference(chapter),
                  "characters": len(chapter.snapshot.text),
                  "lines": len(chapter.snapshot.text.splitlines())},
        fingerprint=fingerprint_statement(chapter),
        provenance=provenance,
        references=[ReferenceInfo(name=r.name, title=r.title, library=r.library, version=r.version(),
                                  conventions=r.conventions(), observed=o) for r, o in zip(references, seen)],
        conventions=chapter.declared.as_dict(),
        unstated=[n for n in CONVENTIONS if not chapter.declared.stated(n)],
        tensions=tensions(chapter) + claim_tensions(results),
        summary={v: counts.get(v, 0) for v in VERDICTS},
        claims=results, statements=statements, scan=scan_summary, notebook=notebook)
    from audit.model.results import Research
    from audit.research.sections import complete, finish
    stored = None
    if cache is not None and cache.enabled and select is None:
        rcache = ResearchCache(cache.beside("research"))
        rkey = research_key(chapter, keys, results, env)
        stored = rcache.get(rkey, [r.id for r in results], chapter.snapshot.text.splitlines())
    if stored is not None:
        # finished on a copy: research sections this chapter's results cannot carry are computed below instead
        trial = report.model_copy(deep=True)
        try:
            if chapter.identity.notebook:
                trial.chapter["notebook"] = chapter.identity.notebook
            trial.research = Research.model_validate(stored.model_dump(mode="json"))
            finish(trial)
            return trial
        except Exception:
            pass
    complete(report, chapter, ms, early, per_claim)
    if cache is not None and cache.enabled and select is None and report.research is not None:
        rcache.put(rkey, report.research)
    return report


def _notebook(chapter: Chapter, cache: ClaimCache | None, claims: Sequence, results: Sequence[ClaimResult]):
    """The report's notebook section: the chapter's notebook run in the sandbox (or its stored run, when its text,
    its folder's files, this source and the kernel's packages are unchanged), held to the claims that name it."""
    from audit.register.claims import notebook_path
    path = notebook_path(chapter.folder, chapter.identity)
    text = path.read_text(encoding="utf-8") if path is not None else None
    store = NotebookStore(cache is not None and cache.enabled, cache.beside("notebooks") if cache is not None else None)
    key = store.key(text, path.parent) if text is not None and store.enabled else None
    report = store.get(key)
    if report is None:
        report = notebook_report(chapter, text)
        if report is not None:
            store.put(key, report)
    if report is not None:
        hold_to_chapter(report, claims, results)
    return report


def _start(references: Sequence[Reference]) -> None:
    """Start the references' worker processes (loading a library takes seconds), if they have any."""
    for ref in references:
        start = getattr(ref, "start", None)
        if start is not None:
            start()


def _chapter_side(chapter: Chapter, claims: Sequence, ms: Measurements) -> None:
    """Run the checks of ``claims`` with no reference, keeping only the chapter's values they compute
    (``Measurements.chapter_table``): the real checks then find them computed. Any failure is left for the
    real check to report."""
    view = ms.chapter_only()
    for claim in claims:
        try:
            with time_limit(CLAIM_SECONDS):
                CHECKERS[claim.kind](claim, chapter, view)
        except (Exception, ClaimTimeout):
            continue


def observed(ref: Reference) -> dict[str, str]:
    """The reference's observed conventions (``audit.evaluation.observe``) as sentences, probed once per process."""
    from audit.evaluation.observe import observed as probe
    return {name: o.sentence() for name, o in probe(ref).items()}


#: For each convention with a probe, the measure and input on which a tension's values are shown.
_TENSION_PROBES = {
    "repeated_ids": ("P@3", {"q1": {"a": 1}}, {"q1": ["n", "n", "a"]}, "ranking n, n, a with a relevant"),
    "precision_denominator": ("P@4", {"q1": {"a": 1}}, {"q1": ["a"]}, "one relevant result returned alone"),
    "ties": ("RR", {"q1": {"c": 1}}, {"q1": ["b", "c", "a"]}, "b, c, a tied, c relevant"),
    "gain": ("nDCG@2", {"q1": {"a": 1, "b": 2}}, {"q1": ["a", "b"]}, "grades 1 then 2"),
    "rr_cutoff": ("RR@2", {"q1": {"c": 1}}, {"q1": ["a", "b", "c"]}, "first relevant at rank 3"),
    "unjudged": ("R@1", {"q1": {"b": 1}}, {"q1": ["x", "b"]}, "unjudged x before relevant b"),
}


def tensions(chapter: Chapter) -> list:
    """Internal tensions: a convention the chapter's text sets to two values, with both quotes and what each
    value gives on a probe input (by the chapter's definitions)."""
    from audit.evaluation import evaluator
    from audit.evaluation.readings import base_reading
    from audit.measures.syntax import parse as parse_measure
    from audit.model.results import Tension
    out = []
    for name, statements in chapter.declared.tensions().items():
        probe = ""
        if name in _TENSION_PROBES:
            measure, qrels, run, text = _TENSION_PROBES[name]
            scores = {"q1": {d: 1.0 for d in run["q1"]}} if name == "ties" else None
            parts = []
            for value in dict.fromkeys(s.value for s in statements):
                reading = {**base_reading(chapter.declared), name: value}
                try:
                    got = evaluator.aggregate(parse_measure(measure)[1], qrels, run, reading, scores)
                    parts.append(f"{value}: {measure} = {got}")
                except AuditError as exc:
                    parts.append(f"{value}: {exc.message.split(';')[0]}")
            probe = f"On a probe ({text}) — " + "; ".join(parts)
        out.append(Tension(convention=name, title=CONVENTIONS[name].title, probe=probe,
                           statements=[{"value": s.value, "quote": s.quote} for s in statements]))
    return out


def claim_tensions(results: Sequence[ClaimResult]) -> list:
    """Claims that each hold only under values of one unstated convention, with no value common to them (one needs
    ties broken by docno ascending, another by docno descending): no single reading makes both true, which the
    chapter should see beside its own tensions."""
    from audit.model.results import Tension
    out = []
    for name in CONVENTIONS:
        needs = [(r, set(r.holds_only[name])) for r in results if name in r.holds_only]
        if len(needs) < 2 or set.intersection(*(v for _, v in needs)):
            continue
        out.append(Tension(convention=name, title=CONVENTIONS[name].title, claims=True,
                           statements=[{"value": " or ".join(sorted(v, key=CONVENTIONS[name].values.index)),
                                        "quote": r.quote, "claim": r.id} for r, v in needs],
                           probe="No single value makes all of these claims hold"))
    return out


def scan_coverage(chapter: Chapter, anchors: dict[str, Anchor]):
    """The prose's statements with the claims covering each (``audit.text.coverage``: a sentence printing three
    values is three statements, each covered only by a claim that quotes and prints its value), then each sentence
    the scanner does not read that holds a number, a comparison or a universal word (``unread_sentences``; kind
    ``unread: …``), covered by any claim quoting it. The summary counts them (``statements``, ``unread``,
    ``uncovered``) and gives the statement recall measured on the labelled corpus (``statement_recall``, and every
    ``scanner_*`` figure of ``audit.text.scan.MEASURED``), never one computed from this register: for a register
    ``init`` drafted from the scanner's own statements that would be 100 % by construction.
    ``numeric_claims_found`` of ``numeric_claims`` is how many of the register's quotes stating a number the
    scanner reads (a claim a scanner change would no longer see)."""
    text = chapter.snapshot.text
    starts = line_starts(text)
    spans = {}
    for cid, anchor in anchors.items():
        if anchor.found and anchor.line:
            start = starts[anchor.line - 1] + anchor.column - 1
            spans[cid] = (start, start + len(anchor.text))
    uses = [use_of(c.model_dump(), spans[c.id]) for c in chapter.register.claims if c.id in spans]
    # a listing's shown calls cover the sentences that print their results
    uses += [u for c in chapter.register.claims if c.kind == "code" for u in call_uses(c.model_dump(), text)]
    found = scan(chapter.snapshot)
    statements = [StatementResult(line=bisect_right(starts, p.start), kind=p.kind, text=p.text,
                                  unit="" if p.whole else p.context(), covered_by=covered_by(p, uses))
                  for s in found for p in coverage_statements(s)]
    # the sentences the scanner reads as no statement but that hold a number, a comparison or a universal word:
    # covered only by a claim whose quote overlaps them (a draft of init's too), so an init draft's "uncovered"
    # is what the scanner missed, not 0 by construction
    unread = unread_sentences(text, chapter.snapshot.markdown, found)
    statements += [StatementResult(line=s.line, kind=s.kind, text=s.text,
                                   covered_by=[u.id for u in uses if u.span[0] < s.end and s.start < u.span[1]])
                   for s in unread]
    statements.sort(key=lambda s: s.line)
    numeric = [c.id for c in chapter.register.claims if c.kind != "not checkable" and has_number(c.quote)
               and c.id in spans]
    hit = [cid for cid in numeric if any(spans[cid][0] < s.end and s.start < spans[cid][1] for s in found)]
    uncovered = sum(1 for s in statements if not s.covered_by)
    return statements, {"units": len(found), "statements": len(statements) - len(unread), "unread": len(unread),
                        "uncovered": uncovered, "numeric_claims": len(numeric), "numeric_claims_found": len(hit),
                        "statement_recall": MEASURED["corpus_recall"],
                        **{f"scanner_{k}": v for k, v in MEASURED.items()}}


def add_book_findings(report: ChapterReport, book: Book) -> None:
    """Record the book-level conflicts that involve this chapter in its report."""
    from audit.research.sections import finish
    report.book_conflicts = [c.sentence() for c in book.involving(str(report.chapter["id"]))]
    finish(report)
