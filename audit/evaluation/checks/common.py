"""Measuring a fixture with the chapter's evaluator and every reference, once per (fixture, measure)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from fractions import Fraction

from audit.errors import AuditError
from audit.evaluation import evaluator
from audit.evaluation.references import Reference
from audit.register.claims import Fixture
from audit.measures.syntax import parse as parse_measure
from audit.model.values import ClaimedValue, display, format_exact
from audit.model.expressions import fmt_float
from audit.model.results import ImplValue
from audit.evaluation.parallel import queued

CHAPTER = "chapter"


def scored_run(fixture: Fixture) -> dict[str, dict[str, float]]:
    """Scores references receive: the fixture's explicit scores (tie claims) or strictly
    decreasing small integers along each ranking, distinct even as 32-bit floats, so no
    reference's tie rule can change the order."""
    if fixture.scores is not None:  # in the listed order, so a library keeping insertion order keeps it
        return {q: {d: fixture.scores[q][d] for d in dict.fromkeys(r)} for q, r in fixture.run.items()}
    return {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in fixture.run.items()}


def write_trec_run(fixture: Fixture, folder: str) -> str:
    """The fixture's run as a TREC run file in ``folder`` (one line per occurrence, so a repeated ID stays
    repeated; scores decreasing down each ranking); returns its path."""
    path = os.path.join(folder, "probe.run")
    with open(path, "w", encoding="utf-8") as handle:
        for q, ranking in fixture.run.items():
            for i, d in enumerate(ranking, start=1):
                handle.write(f"{q} Q0 {d} {i} {len(ranking) - i + 1} probe\n")
    return path


def listed(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def _reading_key(reading) -> tuple:
    """A hashable key for a reading (None: trec_eval's defaults)."""
    return tuple(sorted((reading or {}).items()))


def _content_key(fixture: Fixture) -> str:
    """A cache key from the fixture's content (not its address: fixtures built on the fly are freed
    and their addresses reused)."""
    return fixture.model_dump_json(exclude={"description"})


def repeats(fixture: Fixture) -> bool:
    """Whether a ranking of the fixture repeats a document ID (only a TREC run file can hold it)."""
    return any(len(set(r)) < len(r) for r in fixture.run.values())


class Measurements:
    """Caches the chapter's and each reference's per-query values by (fixture, measure)."""

    def __init__(self, references: Sequence[Reference], book=None, store=None) -> None:
        self.references = list(references)
        self.book = book  # the Book audited with this chapter, for cross-chapter conventions (may be None)
        self.store = store  # reference outcomes kept across runs (audit.run.cache.OutcomeStore), or None
        self._chapter: dict[tuple[str, str], dict[str, Fraction]] = {}
        self._refs: dict[tuple[str, str, str], object] = {}
        self._pending: dict[str, list[tuple[list, Future]]] = {}  # reference → batches still evaluating
        self._files: dict[tuple[str, tuple[str, ...]], dict[str, Future]] = {}  # run-file probes → per reference
        self._tables: dict[tuple, dict] = {}  # reading → the chapter's values in property searches
        self._searches: dict[tuple, Future] = {}  # (reference, property-search batch) → its evaluation
        self._starts_for: list[Reference] | None = None  # a chapter-only view: whose search batches it starts

    def chapter_table(self, reading=None) -> dict:
        """The chapter's values of (measure, case) at each cutoff under ``reading``, as property searches
        fill them (``audit.evaluation.checks.counterexamples.Evaluations``): one table per reading, shared by every search in
        this audit, so a value is computed once."""
        return self._tables.setdefault(_reading_key(reading), {})

    def chapter_only(self) -> "Measurements":
        """A view with no references that shares this one's chapter values (to compute the chapter's side of
        the checks while the references are still evaluating)."""
        view = Measurements([], self.book)
        view._chapter, view._tables, view._searches = self._chapter, self._tables, self._searches
        view._starts_for = self.references
        return view

    def search_references(self) -> list[Reference]:
        """The references a property search evaluates its batches on. In a chapter-only view these are the
        audit's references still: the view's searches start their batches (``search_batch``) without
        waiting for them, so the real searches later find them evaluated or under way."""
        return self.references if self._starts_for is None else self._starts_for

    @property
    def waits(self) -> bool:
        """Whether a property search waits for its batches' reference values (False in a chapter-only view)."""
        return self._starts_for is None

    def search_batch(self, ref: Reference, key: tuple, call: Callable[[], dict]) -> Future:
        """The future of ``call()`` — ``ref``'s evaluation of the property-search batch ``key`` — started in
        ``ref``'s queue the first time the batch is asked for and shared after that: a search repeated
        under the same reading (the weaker form's, or the real search after a chapter-only view's) costs
        the reference nothing more."""
        future = self._searches.get(key)
        if future is None:
            future = self._searches[key] = queued(ref.name, call)
        return future

    def close(self) -> None:
        """Drop the search batches that have not started: after the claims, those no search asked for (a
        chapter-only view started a stage the real search did not reach). A later request starts one again."""
        for key, future in list(self._searches.items()):
            if future.cancel():
                del self._searches[key]

    def chapter(self, fixture: Fixture, measure: str, reading=None) -> dict[str, Fraction]:
        """Per-query exact values by the chapter's definitions under ``reading`` (default: trec_eval's
        defaults). Raises ``AuditError`` on bad input."""
        key = (_content_key(fixture), measure, _reading_key(reading))
        if key not in self._chapter:
            _, spec = parse_measure(measure)
            self._chapter[key] = evaluator.evaluate(spec, fixture.qrels, fixture.run, reading, fixture.scores)
        return self._chapter[key]

    def chapter_value(self, fixture: Fixture, measure: str, reading, query: str | None = None):
        """One number by the chapter's definitions under ``reading``: the query's value, or the value over
        all queries by the reading's averaging. None when the reading leaves the query out or does not
        apply (pooled for a measure other than recall)."""
        if query is not None:
            return self.chapter(fixture, measure, reading).get(query)
        key = (_content_key(fixture), measure, _reading_key(reading), "aggregate")
        if key not in self._chapter:
            _, spec = parse_measure(measure)
            self._chapter[key] = evaluator.aggregate(spec, fixture.qrels, fixture.run, reading, fixture.scores)
        return self._chapter[key]

    def _stored(self, ref: Reference, fixture_key: str, measure: str) -> bool:
        """Whether the outcome is known, looking in the store when there is one (after waiting for the
        reference's batches still evaluating)."""
        if ref.name in self._pending:
            self._settle(ref)
        key = (fixture_key, measure, ref.name)
        if key in self._refs:
            return True
        found = self.store.get(ref, fixture_key, measure) if self.store is not None else None
        if found is not None:
            self._refs[key] = found
        return found is not None

    def reference(self, ref: Reference, fixture: Fixture, measure: str):
        if repeats(fixture):  # a dict of scores cannot hold a repeated ID: each reference reads a run file
            content = _content_key(fixture)
            measures = next((ms for key, ms in self._files if key == content and measure in ms), (measure,))
            return self.file_outcomes(fixture, measures)[ref.name][measure]
        key = (_content_key(fixture), measure, ref.name)
        if not self._stored(ref, key[0], measure):
            m, _ = parse_measure(measure, True)
            self._refs[key] = ref.evaluate([m], fixture.qrels, scored_run(fixture))[str(m)]
            if self.store is not None:
                self.store.put(ref, key[0], measure, self._refs[key])
        return self._refs[key]

    def reference_with(self, ref: Reference, fixture: Fixture, measure: str, params: Mapping[str, object]):
        """``ref``'s outcome for ``measure`` with its own option ``params`` set (``Reference.options``: the measure's
        ir-measures parameters, such as ``judged_only=True``), which the chapter's measure names do not model; None
        when the reference does not support the measure so, or the fixture repeats an ID (read from a file)."""
        if repeats(fixture):
            return None
        m = parse_measure(measure, True)[0](**params)
        if not ref.supports(m).ok:
            return None
        key = (_content_key(fixture), str(m), ref.name)
        if key not in self._refs:
            self._refs[key] = ref.evaluate([m], fixture.qrels, scored_run(fixture))[str(m)]
        return self._refs[key]

    def prefetch(self, requests: Sequence[tuple[Fixture, str]]) -> None:
        """Start evaluating many (fixture, measure) pairs with one call per reference, the references in
        parallel, and return at once: a later ``reference`` or ``values`` waits for the batch of the
        reference it asks about, so the caller can go on with the chapter's own work meanwhile.

        Fixtures become queries of one combined input (``f<k>~<query_id>``), so each
        reference pays its per-call cost once rather than once per pair. Pairs already known
        (in this run or in the store) are not sent; a reference with nothing to evaluate is not
        called. A reference that fails on the batch is left uncached, so each pair is retried
        alone and a failure stays attached to the fixture that caused it.
        """
        wanted: dict[tuple[str, str], Fixture] = {}
        files: dict[str, tuple[Fixture, dict[str, None]]] = {}  # fixtures repeating an ID: one run file each
        for fixture, measure in requests:
            if repeats(fixture):
                files.setdefault(_content_key(fixture), (fixture, {}))[1][measure] = None
                continue
            wanted.setdefault((_content_key(fixture), measure), fixture)
        self.prefetch_files([(fixture, tuple(measures)) for fixture, measures in files.values()])
        calls = []
        for ref in self.references:
            missing = [pair for pair in wanted if not self._stored(ref, *pair)]
            if missing:
                calls.append((ref, missing))
        if not calls:
            return

        def batch(call):
            ref, missing = call
            fixtures: dict[str, Fixture] = {}
            measures: dict[str, None] = {}
            for pair in missing:
                fixtures.setdefault(pair[0], wanted[pair])
                measures[pair[1]] = None
            qrels: dict[str, dict[str, int]] = {}
            run: dict[str, dict[str, float]] = {}
            owner: dict[str, tuple[str, str]] = {}
            for k, (key, fixture) in enumerate(fixtures.items()):
                for q, judgements in fixture.qrels.items():
                    batch_q = f"f{k}~{q}"
                    qrels[batch_q] = dict(judgements)
                    owner[batch_q] = (key, q)
                for q, docs in scored_run(fixture).items():
                    run[f"f{k}~{q}"] = docs
            texts = {text: parse_measure(text)[0] for text in measures}
            parsed = list({str(m): m for m in texts.values()}.values())
            return fixtures, texts, owner, ref.evaluate(parsed, qrels, run)

        for ref, missing in calls:
            self._pending.setdefault(ref.name, []).append((missing, queued(ref.name, batch, (ref, missing))))

    def _settle(self, ref: Reference) -> None:
        """Wait for the reference's prefetched batches and keep their outcomes (and store them)."""
        for missing, future in self._pending.pop(ref.name, []):
            try:
                fixtures, texts, owner, outcomes = future.result()
            except Exception:  # left uncached: each pair is then evaluated alone, its failure its own
                continue
            for text, m in texts.items():
                outcome = outcomes[str(m)]
                if outcome.status == "error":
                    continue
                split: dict[str, dict[str, float]] = {key: {} for key in fixtures}
                for batch_q, value in outcome.per_query.items():
                    key, q = owner[batch_q]
                    split[key][q] = value
                for key in fixtures:
                    self._refs[(key, text, ref.name)] = replace(outcome, per_query=split[key])
            if self.store is not None:
                for pair in missing:
                    if (pair[0], pair[1], ref.name) in self._refs:
                        self.store.put(ref, pair[0], pair[1], self._refs[(pair[0], pair[1], ref.name)])

    def prefetch_files(self, requests: Sequence[tuple[Fixture, Sequence[str]]]) -> None:
        """Start evaluating probes that only a TREC run file can hold (a repeated document ID), each
        reference reading the file with its own reader (``evaluate_run_file``), all references in
        parallel; ``file_outcomes`` waits for them."""
        for fixture, measures in requests:
            key = (_content_key(fixture), tuple(measures))
            if key in self._files:
                continue

            def call(ref, fixture=fixture, measures=tuple(measures)):
                parsed = [parse_measure(m)[0] for m in measures]
                with tempfile.TemporaryDirectory(prefix="chapter-audit-") as folder:
                    outcomes = ref.evaluate_run_file(parsed, {q: fixture.qrels[q] for q in fixture.run if q in fixture.qrels},
                                                     write_trec_run(fixture, folder))
                return {text: outcomes[str(m)] for text, m in zip(measures, parsed)}

            self._files[key] = {r.name: queued(r.name, call, r) for r in self.references}

    def file_outcomes(self, fixture: Fixture, measures: Sequence[str]) -> dict[str, dict[str, object]]:
        """``{reference name: {measure: Outcome}}`` for a run-file probe (see ``prefetch_files``)."""
        self.prefetch_files([(fixture, measures)])
        return {name: future.result() for name, future in self._files[(_content_key(fixture), tuple(measures))].items()}

    def values(self, fixture: Fixture, measure: str, *, query: str | None = None,
               claimed: ClaimedValue | None = None) -> list[ImplValue]:
        """The chapter's value then each reference's, as mean over queries (or one ``query``)."""
        out: list[ImplValue] = []
        try:
            per_query = self.chapter(fixture, measure)
            if query and query not in per_query:
                raise AuditError(f"the chapter's definitions leave query {query!r} out")
            value = per_query[query] if query else combined(measure, per_query)
            out.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact", value=float(value),
                                 exact=format_exact(value), per_query={q: display(format_exact(v)) for q, v in per_query.items()},
                                 in_interval=claimed.contains(value) if claimed else None))
        except AuditError as exc:
            out.append(ImplValue(implementation=CHAPTER, status="error", detail=exc.message))
        for ref in self.references:
            outcome = self.reference(ref, fixture, measure)
            if outcome.status == "ok" and query and query not in outcome.per_query:
                out.append(ImplValue(implementation=ref.name, provider=outcome.provider, status="left out",
                                     detail=f"it returned no value for query {query!r}"))
            elif outcome.status == "ok":
                value = (outcome.per_query[query] if query else
                         combined(measure, outcome.per_query) if outcome.per_query else outcome.mean)
                out.append(ImplValue(implementation=ref.name, provider=outcome.provider, value=value,
                                     per_query={q: fmt_float(v) for q, v in outcome.per_query.items()},
                                     in_interval=claimed.contains(value) if claimed else None))
            else:
                out.append(ImplValue(implementation=ref.name, provider=outcome.provider, status=outcome.status,
                                     detail=outcome.detail))
        return out


def combined(measure: str, per_query: Mapping[str, Fraction | float]) -> Fraction | float:
    """Per-query values of ``measure`` (its name as written, ``GMAP``, ``NumRel``, ``P@4``) over the queries, as the
    measure combines them (``evaluator.combine``: the mean; the sum for counts; the geometric mean for GMAP); the
    mean for a measure only the references define. Exact values stay exact, floats give a float."""
    spec = parse_measure(measure, True)[1]
    return evaluator.combine(spec.name if spec is not None else "", per_query)


def exact_of(v: ImplValue) -> Fraction | float | None:
    """The comparable value of an ``ImplValue``: exact Fraction for the chapter, float otherwise."""
    if v.status != "ok":
        return None
    return Fraction(v.exact) if v.exact is not None else v.value


def shown(v: ImplValue) -> str:
    if v.status != "ok":
        return v.status
    return display(v.exact) if v.exact is not None else fmt_float(v.value)


def errors_of(values: Sequence[ImplValue], label: str) -> list[str]:
    return [f"{v.implementation} ({v.provider or 'n/a'}) failed on {label}: {v.detail}"
            for v in values if v.status == "error"]


def applicable(values: Sequence[ImplValue]) -> list[ImplValue]:
    return [v for v in values if v.implementation != CHAPTER and v.status == "ok"]


def not_applicable_names(values: Sequence[ImplValue]) -> list[str]:
    return [f"{v.implementation} ({v.detail})" for v in values if v.status == "not applicable"]


def fixture_name(ref: "str | Fixture") -> str:
    return f"fixture '{ref}'" if isinstance(ref, str) else "inline fixture"


def by_name(refs: Sequence[Reference]) -> Mapping[str, Reference]:
    return {r.name: r for r in refs}
