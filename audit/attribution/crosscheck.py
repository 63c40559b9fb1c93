"""Cross-check real TREC runs: where trec_eval, ir-measures, ranx and the chapter's definitions
disagree on a qrels and run, and the cause of each disagreement, detected in the input."""

from __future__ import annotations

import math
import re
import threading
from array import array
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path


from audit.errors import AuditError, MeasureError, ReadingDoesNotApply
from audit.evaluation import evaluator
from audit.evaluation import definitions
from audit.evaluation.checks.common import combined
from audit.evaluation.references import Outcome, Reference
from audit.evaluation.references.pytrec_eval_ref import trec_order
from audit.model.files import open_regular, read_text
from audit.measures.syntax import parse as parse_measure
from audit.attribution.crosscheck_report import (
    Cause,
    CrosscheckReport,
    ImplMean,
    MeasureResult,
    NOT_COMPARED,
    RunResult,
    trec_eval_name,
)
from audit.attribution.trec_files import (
    _LineReader,
    _lines,
    _NotGrouped,
    _reread,
    _run_blocks,
    Issue,
    read_trec,
    shown_id,
    TrecInput,
)

CHAPTER = "chapter"


def read_expected(path: Path) -> dict[str, float]:
    """The ``all`` lines of a trec_eval output file: ``{measure: value}``."""
    out = {}
    if not path.exists():
        raise AuditError("cannot read trec_eval's output (no such file)", file=str(path))
    text = read_text(path, "trec_eval output", 64 * 2**20)
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            try:
                out[parts[0]] = float(parts[2])
            except ValueError:
                pass
    if not out:
        raise AuditError("no 'all' lines: expected trec_eval's output (measure, 'all', value)", file=str(path))
    return out


def _chapter_order(scores: dict[str, float], order: list[str]) -> list[str]:
    """The chapter's ranking: score descending, ties kept in file order (the reference order)."""
    position = {d: i for i, d in enumerate(order)}
    return sorted(scores, key=lambda d: (-scores[d], position[d]))


def _tie_broken(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Scores made strictly decreasing by one stated rule: score descending, then docno descending
    (trec_eval's), as small integers, distinct even in single precision."""
    out = {}
    for q, docs in run.items():
        ranked = sorted(docs, key=lambda d: (docs[d], d), reverse=True)
        out[q] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return out


def _ties(docs: dict[str, float]) -> tuple[bool, bool]:
    """(some scores are equal, some are equal only as 32-bit floats — trec_eval's reading of scores)."""
    values = list(docs.values())
    tied64 = len(set(values)) < len(values)
    tied32 = len(set(array("f", values))) < len(values)  # C's double → float rounding, numpy.float32's
    return tied64, tied32 and not tied64


def _chapter_query(specs: list, judgements, scores: dict[str, float], order: list[str]) -> list[float | str]:
    """The chapter's definitions of each measure in ``specs`` (``evaluator.MeasureSpec``) on one query, its
    ranking ordered once for all of them: score descending, ties in file order (``_chapter_order``). A measure
    whose definition refuses the query gives the reason instead of a value (``_chapter_value``)."""
    if any(map(math.isnan, scores.values())):  # a NaN compares false both ways: keep _chapter_order's exact rule
        ranking = _chapter_order(scores, order)
    else:  # the same order: a stable sort, descending, keeps tied documents in file order
        ranking = sorted(order, key=scores.__getitem__, reverse=True)
    return [_chapter_value(spec, judgements, ranking) for spec in specs]


def _chapter_value(spec, judgements, ranking, reading=None) -> float | str:
    """One measure by the chapter's definitions on one ranking, or the reason they refuse it (``MeasureError``:
    exponential gain or ERR on a grade above ``definitions.MAX_GRADE``)."""
    try:
        return float(evaluator.evaluate_query(spec, judgements, ranking, reading))
    except (MeasureError, ReadingDoesNotApply) as exc:
        return str(exc)


def _chapter_specs(measures: list[str]) -> dict[str, object]:
    """``{measure: evaluator.MeasureSpec, or None when the chapter's definitions do not define it}``."""
    return {m: parse_measure(m, True)[1] for m in measures}


def _chapter_outcomes(specs: dict, values: dict[str, dict[str, float]], rejected: set[str],
                      errors: dict[str, str] | None = None) -> dict[str, tuple]:
    """The chapter's column per measure, ``(per-query values, provider, status, detail)``, from its values;
    ``errors``: ``{measure: why its definition refused a query}`` (the column is then an error, with no values)."""
    out = {}
    for m, spec in specs.items():
        if spec is None:
            out[m] = ({}, "", "not applicable", "the chapter's definitions do not define this measure")
        elif errors and m in errors:
            out[m] = ({}, "chapter definitions (trec_eval's defaults), ties in file order", "error", errors[m])
        else:
            out[m] = (values[m], "chapter definitions (trec_eval's defaults), ties in file order", "ok",
                      f"queries repeating a docno left out: {', '.join(sorted(rejected))}" if rejected else "")
    return out


def _chapter_values(measures: list[str], qrels, run, orders, rejected: set[str]) -> dict[str, tuple]:
    """The chapter's definitions (trec_eval's default conventions, ties in file order) on our reading of the
    files: ``{measure: (per-query values, provider, status, detail)}``. A query whose ranking repeats a docno
    is left out (those definitions reject it); a measure the chapter does not define is not applicable."""
    specs = _chapter_specs(measures)
    defined = [m for m, spec in specs.items() if spec is not None]
    values: dict[str, dict[str, float]] = {m: {} for m in defined}
    errors: dict[str, str] = {}
    for q, docs in run.items():
        if q in qrels and q not in rejected:
            for m, v in zip(defined, _chapter_query([specs[m] for m in defined], qrels[q], docs,
                                                    orders.get(q, list(docs)))):
                if isinstance(v, str):
                    errors.setdefault(m, f"query {shown_id(q)}: {v}")
                else:
                    values[m][q] = v
    return _chapter_outcomes(specs, values, rejected, errors)


def _evaluate(measures: list[str], qrels, run, orders, references: list[Reference],
              rejected: set[str] = frozenset()) -> dict[str, dict[str, tuple]]:
    """Per-query values for every implementation and measure on the given dicts (one call per reference):
    {measure: {name: ({q: value}, provider, status, detail)}}."""
    parsed = {m: parse_measure(m, True) for m in measures}
    chapter = _chapter_values(measures, qrels, run, orders, set(rejected))
    out: dict[str, dict[str, tuple]] = {m: {CHAPTER: chapter[m]} for m in measures}
    for ref in references:
        outcomes = ref.evaluate([p[0] for p in parsed.values()], qrels, run)
        for m, (obj, _) in parsed.items():
            o = outcomes[str(obj)]
            out[m][ref.name] = (o.per_query, o.provider, o.status, o.detail)
    return out


class _LibraryCalls:
    """Each reference's ``evaluate_files`` on a qrels and run, one reference after another (one library's
    reading of the files in memory at a time), in a background thread while this process reads the run.
    ``result()``: ``{reference name: {measure: Outcome}}``; ``cancel()`` stops the evaluations."""

    def __init__(self, references: list[Reference], measures: list[object], qrels_path: Path, run_path: Path):
        self._references, self._measures = references, measures
        self._paths = (str(qrels_path), str(run_path))
        self._out: dict[str, dict] = {}
        self._cancelled = threading.Event()
        self._thread = threading.Thread(target=self._run, name="library-evaluations", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for ref in self._references:
            if self._cancelled.is_set():
                return
            try:
                self._out[ref.name] = ref.evaluate_files(self._measures, *self._paths)
            except Exception as exc:  # an adapter promises not to raise; its failure is its own column's error
                self._out[ref.name] = {str(m): Outcome("error", provider=ref.name,
                                                       detail=f"{type(exc).__name__}: {exc}"[:500])
                                       for m in self._measures}

    def result(self) -> dict[str, dict]:
        self._thread.join()
        return self._out

    def cancel(self) -> None:
        self._cancelled.set()
        for ref in self._references:
            interrupt = getattr(ref, "interrupt", None)
            if interrupt is not None:
                interrupt()
        self._thread.join()


def _verdicts(outcomes: dict[str, dict], kind: str) -> dict[str, str]:
    """Each library reader's verdict on the ``kind`` file, as its ``evaluate_files`` outcomes carry it."""
    out = {}
    for name, by_measure in outcomes.items():
        o = next(iter(by_measure.values()), None)
        if o is None:
            continue
        out[name] = o.readers.get(kind) or f"not known ({o.status}: {o.detail[:120]})"
    return out


TIE_ORDERS = {
    "file order": lambda docs, order: _chapter_order(docs, order),
    "docno descending (32-bit scores, trec_eval's rule)":
        lambda docs, order: trec_order(docs),
    "docno ascending": lambda docs, order: sorted(sorted(docs), key=lambda d: -docs[d]),
}


def _tie_rules(measure: str, qrels, run, orders, per, queries: list[str]) -> dict[str, list[str]]:
    """Which tie order each implementation's values match on ``queries``, found by recomputing the
    measure under each order with the chapter's definitions (not assumed from documentation)."""
    _, spec = parse_measure(measure, True)
    if spec is None:
        return {}
    try:
        by_order = {name: {q: float(evaluator.evaluate_query(spec, qrels[q], rank(run[q], orders.get(q, list(run[q])))))
                           for q in queries} for name, rank in TIE_ORDERS.items()}
    except (MeasureError, ReadingDoesNotApply):  # the chapter's definitions refuse the input: no order to match
        return {}
    out = {}
    for name, (vals, _, status, _) in per.items():
        if status != "ok":
            continue
        out[name] = [order for order, expected in by_order.items()
                     if all(abs(vals.get(q, 0.0) - expected[q]) <= 1e-9 for q in queries)]
    return out


def _attributed(measure: str, qrels, run, orders, per, queries: list[str], references: list[Reference]) -> list[Cause]:
    """Causes of each reference's difference from the chapter's column on ``queries``, found by experiment
    (``audit.attribution.causes``): the chapter's definitions re-run with one convention changed, and the input
    rewritten with one cause removed and the reference re-run on it."""
    from audit.attribution.causes import Input, explain_reference
    from audit.evaluation.evaluator import relevant_to

    _, spec = parse_measure(measure, True)
    chapter_vals, _, chapter_status, _ = per.get(CHAPTER, ({}, "", "", ""))
    if spec is None or not queries or chapter_status != "ok":  # nothing of the chapter's to explain a reference by
        return []
    sub_qrels = {q: dict(qrels[q]) for q in queries if q in qrels}
    sub_run = {q: [d for d in _chapter_order(run[q], orders.get(q, list(run[q])))] for q in queries if q in run}
    inp = Input(sub_qrels, sub_run, {q: dict(run[q]) for q in sub_run})
    base = dict(definitions.DEFAULT_READING)
    obj = parse_measure(measure, True)[0]
    names = relevant_to(spec.name, several_queries=True)
    out: list[Cause] = []
    by_ref = {r.name: r for r in references}
    for name, (vals, _, status, _) in per.items():
        if name == CHAPTER or status != "ok":
            continue
        observed = {q: vals[q] for q in queries if q in vals}
        mine = {q: chapter_vals[q] for q in queries if q in chapter_vals}
        if set(observed) == set(mine) and all(_same(mine[q], observed[q]) for q in observed):
            continue
        ref = by_ref[name]
        found = explain_reference(ref, obj, spec, observed, inp, base, names)
        affected = sorted(q for q in set(observed) | set(mine) if q not in observed or q not in mine
                          or not _same(observed[q], mine[q]))
        out.append(Cause(cause=f"{ref.title}: " + found.summary(ref.title), queries=affected,
                         detail=found.evidence(), explains=found.explained))
    return out


#: The ``repeated_ids`` rules under which the chapter's definitions evaluate a query that repeats a docno, beside
#: trec_eval's default (reject), each as a column of its own.
REPEAT_RULES = ("keep first", "keep last")
_REPEAT_COLUMNS = {rule: f"{CHAPTER} ({rule})" for rule in REPEAT_RULES}


def _repeat_variants(specs: dict, chapter: dict[str, tuple], qrels, occurrences: dict) -> dict[str, dict[str, tuple]]:
    """The chapter's definitions with a repeated docno's first, and its last, occurrence kept (the ``repeated_ids``
    convention): ``{measure: {"chapter (keep first)": outcome, "chapter (keep last)": outcome}}``. On a query of
    ``occurrences`` (``{q: [(doc, score), …]}``, every line) the lines are ranked as the chapter ranks a run (score
    descending, ties in file order) and the rule keeps one occurrence of each docno; every other query keeps the
    chapter's value. A measure without a chapter value keeps the chapter's status."""
    out: dict[str, dict[str, tuple]] = {m: {} for m in specs}
    rankings = {q: [lines[i][0] for i in sorted(range(len(lines)), key=lambda i: (-lines[i][1], i))]
                for q, lines in occurrences.items()}
    for rule, column in _REPEAT_COLUMNS.items():
        reading = {**definitions.DEFAULT_READING, "repeated_ids": rule}
        for m, spec in specs.items():
            vals, _, status, detail = chapter[m]
            if status != "ok":
                out[m][column] = (vals, "", status, detail)
                continue
            values, error = dict(vals), ""
            for q, ranking in rankings.items():
                v = _chapter_value(spec, qrels[q], ranking, reading)
                if isinstance(v, str):
                    error = error or f"query {shown_id(q)}: {v}"
                else:
                    values[q] = v
            provider = f"chapter definitions, a repeated docno's {rule.split()[1]} occurrence kept, ties in file order"
            out[m][column] = ({}, provider, "error", error) if error else (values, provider, "ok", "")
    return out


def _repeated_cause(queries: list[str], per: dict[str, tuple], variants: dict[str, tuple]) -> Cause:
    """Repeated docnos as the cause on ``queries``: what each library does with them (rejects the file, or which of
    the chapter's keep-first and keep-last values its own match) and the chapter's values under each rule;
    explained when every library that returns values matches one of them."""
    values = {rule: variants[column][0] for rule, column in _REPEAT_COLUMNS.items()
              if column in variants and variants[column][2] == "ok"}
    said, fitted = [], bool(values)
    for name, (vals, _, status, _) in per.items():
        if name == CHAPTER or status not in ("ok", "rejected"):
            continue
        if status == "rejected":
            said.append(f"{name} rejects the file")
            continue
        fits = [rule for rule, v in values.items()
                if all(q in vals and q in v and _same(vals[q], v[q]) for q in queries)]
        said.append(f"{name} matches {' and '.join(fits) if fits else 'neither keep first nor keep last'}")
        fitted = fitted and bool(fits)
    chapter = "; ".join(f"{rule} " + ", ".join(f"{shown_id(q)} {v[q]:.4f}" for q in queries[:3] if q in v)
                        for rule, v in values.items())
    return Cause(cause="repeated doc ids in the run", queries=queries, explains=True if fitted else None,
                 detail="; ".join(said) + ". The chapter's definitions under trec_eval's defaults reject a ranking "
                        "that repeats a docno (those queries are left out of its column)"
                        + (f"; with one occurrence kept they give {chapter}" if chapter else ""))


def _unscored_cause(shown: dict[str, tuple], queries: list[str], qrels_issues: list[Issue],
                    run_issues: list[Issue]) -> Cause | None:
    """The implementations with no value for any query (a reader that rejects a file, a failure), against the
    ``queries`` others score: each with what it said, and the lines of a rejected file that the chapter reads by its
    own rules (comment lines skipped, extra fields ignored, …). None when every implementation returned values."""
    lacking = {name: (status, detail) for name, (_, _, status, detail) in shown.items()
               if status not in ("ok", "not applicable")}
    if not lacking:
        return None
    groups: dict[str, list[str]] = {}
    said: dict[str, list[str]] = {}  # each thing said, with the implementations that said it
    for name, (status, detail) in lacking.items():
        groups.setdefault(status, []).append(name)
        said.setdefault(detail, []).append(name)
    lines = []
    for kind, issues in (("qrels", qrels_issues), ("run", run_issues)):
        if issues and any(f"its {kind} reader" in detail for _, detail in lacking.values()):
            lines.append(f"{kind} file " + "; ".join(f"line {i.line}: {i.cause}" for i in issues[:3])
                         + (f"; {len(issues)} lines noted in all" if len(issues) > 3 else ""))
    read = (f". The chapter reads the file by its own rules; the lines they act on: {'; '.join(lines)}"
            if lines and shown.get(CHAPTER, ("", "", ""))[2] == "ok" else "")
    return Cause(cause="; ".join(f"{status} by {', '.join(names)}" if status == "rejected" else
                                 f"{status} in {', '.join(names)}" for status, names in groups.items()),
                 queries=queries,
                 detail="; ".join(f"{', '.join(names)}: {detail}" for detail, names in said.items()) + read)


def _agree(values: list[float]) -> bool:
    """Whether every value agrees with the first (``_same``)."""
    return all(_same(values[0], v) for v in values[1:])


def _mean(values: dict[str, float], queries: list[str]) -> float:
    return sum(values.get(q, 0.0) for q in queries) / len(queries) if queries else 0.0


def _combined(measure: str, values: dict[str, float], queries: list[str]) -> float:
    """``values`` over ``queries`` (a missing one as 0) combined as the measure combines them (``combined``)."""
    return float(combined(measure, {q: float(values.get(q, 0.0)) for q in queries})) if queries else 0.0


@dataclass
class _RunRead:
    """A run as the cross-check keeps it: its queries in file order, its issues, tie flags
    (``_ties``) and the chapter's values ``{measure: {query: value}}`` for the queries it shares with
    the qrels (``errors``: ``{measure: why its definition refused a query}``), and what is needed to read
    any query's ranking again (``rankings``, ``occurrences``)."""

    queries: list[str]
    issues: list[Issue]
    ties: dict[str, tuple[bool, bool]]
    chapter: dict[str, dict[str, float]]
    path: Path
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    whole: TrecInput | None = None
    errors: dict[str, str] = field(default_factory=dict)

    def rankings(self, queries) -> tuple[dict, dict]:
        """``({q: {doc: score}}, {q: [doc in file order]})`` for those of ``queries`` the run has."""
        if self.whole is not None:
            return ({q: self.whole.data[q] for q in queries if q in self.whole.data},
                    {q: self.whole.order[q] for q in queries if q in self.whole.order})
        return _reread(self.path, {q: self.spans[q] for q in queries if q in self.spans})

    def occurrences(self, queries) -> dict[str, list[tuple[str, float]]]:
        """``{q: [(doc, score), …]}``: every line of each of ``queries``, in file order, a repeated docno at each
        of its lines (read again: the bytes of those queries, or the whole file when its queries are not
        grouped)."""
        wanted = set(queries)
        out: dict[str, list[tuple[str, float]]] = defaultdict(list)
        reader = _LineReader(self.path, "run")
        if self.whole is None:
            pieces = []
            with open(self.path, "rb") as handle:
                for start, end in sorted(self.spans[q] for q in wanted if q in self.spans):
                    handle.seek(start)
                    pieces.append(handle.read(end - start).decode("utf-8"))
            lines = ((0, line) for piece in pieces for line in piece.split("\n"))
        else:
            handle = open_regular(self.path, "run file")
            with handle:
                lines = [(number, line) for number, line, _ in _lines(handle, self.path, "run")]
        for number, line in lines:
            read = reader.read(number, line)
            if read is not None and read[0] in wanted:
                out[read[0]].append((read[1], read[2]))
        return dict(out)


#: Kinds of difference on one query, the most telling first: a NaN against a number (no size can be given),
#: numbers that differ, a value some implementation leaves out, and an implementation with no value at all
#: (its reader rejected the file, or it failed).
KINDS = ("NaN vs a number", "difference", "left out vs scored", "no value vs scored")


@dataclass
class _Differences:
    """Where the implementations disagree on one measure: ``queries`` (every query on which they differ, in
    ``KINDS``' sense), ``in_values`` (those on which the values returned differ: the ones causes are sought for)
    and the largest difference: its ``kind``, ``size`` (numbers only), ``query`` and each implementation's
    ``values`` there."""

    queries: list[str] = field(default_factory=list)
    in_values: list[str] = field(default_factory=list)
    kind: str = ""
    size: float | None = 0.0
    query: str = ""
    values: dict[str, float | str] = field(default_factory=dict)


def _same(a: float, b: float) -> bool:
    """Two values agree: within 1e-9, or both NaN (a NaN against a number is a difference)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= 1e-9


def _differences(per: dict[str, tuple]) -> _Differences:
    """Compare the implementations that compute the measure (all but the "not applicable" ones) query by query.
    A query differs when their values spread by more than 1e-9, when one returns NaN and another a number, when
    one leaves out a query another scores, or when one has no value at all (its reader rejected the file, or it
    failed) while another scores the query. The largest difference is the first of ``KINDS`` found, the widest
    spread among differences of numbers; each implementation's value there is given as a number or as what it
    did ("left out", "rejected", "error"). Kind ``NOT_COMPARED`` when fewer than two implementations compute the
    measure or none returned a value."""
    compared = {name: (vals, status) for name, (vals, _, status, _) in per.items() if status != "not applicable"}
    ok = {name: vals for name, (vals, status) in compared.items() if status == "ok"}
    without = [name for name, (_, status) in compared.items() if status != "ok"]
    out = _Differences()
    if len(compared) < 2 or not any(ok.values()):  # one implementation alone, or no value from any: no comparison
        out.kind, out.size = NOT_COMPARED, None
        out.values = {name: "returns values" if vals else "no value" for name, (vals, _) in compared.items()}
        return out
    best: tuple = ()
    for q in sorted(set().union(*ok.values()) if ok else set()):
        values = [vals[q] for vals in ok.values() if q in vals]
        numbers = [v for v in values if not math.isnan(v)]
        spread = max(numbers) - min(numbers) if numbers else 0.0
        if numbers and len(numbers) < len(values):
            kind = KINDS[0]
        elif spread > 1e-9:
            kind = KINDS[1]
        elif len(values) < len(ok):
            kind = KINDS[2]
        elif without:
            kind = KINDS[3]
        else:
            continue
        out.queries.append(q)
        if kind != KINDS[3]:
            out.in_values.append(q)
        rank = (-KINDS.index(kind), spread if kind == KINDS[1] else 0.0)
        if not best or rank > best:
            best, out.kind, out.query = rank, kind, q
            out.size = spread if kind == KINDS[1] else None
    if out.query:
        out.values = {name: (vals[out.query] if out.query in vals else "left out") if status == "ok" else status
                      for name, (vals, status) in compared.items()}
    return out


def _read_run(handle, path: Path, qrels, specs: dict) -> _RunRead:
    """Read the run from ``handle`` one query at a time (``_run_blocks``), computing each shared query's tie
    flags and chapter values as it goes, so only one query's ranking is held; a run whose queries are not
    grouped is read whole (``read_trec``) and evaluated the same way. A query repeating a docno has no
    chapter value (trec_eval's defaults reject it). Raises ``AuditError`` as ``read_trec`` does."""
    defined = [m for m, spec in specs.items() if spec is not None]
    chosen = [specs[m] for m in defined]
    queries, ties, spans = [], {}, {}
    chapter: dict[str, dict[str, float]] = {m: {} for m in defined}
    errors: dict[str, str] = {}

    def take(query: str, scores: dict, order: list[str], repeated: bool) -> None:
        queries.append(query)
        if query in qrels:
            ties[query] = _ties(scores)
            if not repeated:
                for m, v in zip(defined, _chapter_query(chosen, qrels[query], scores, order)):
                    if isinstance(v, str):
                        errors.setdefault(m, f"query {shown_id(query)}: {v}")
                    else:
                        chapter[m][query] = v

    reader = _LineReader(path, "run")
    try:
        for block in _run_blocks(handle, path, reader):
            spans[block.query] = block.span
            take(block.query, block.scores, block.order, block.repeated)
        return _RunRead(queries, reader.issues, ties, chapter, path, spans=spans, errors=errors)
    except _NotGrouped:
        pass
    whole = read_trec(path, "run", check_readers=False)
    queries.clear()
    ties.clear()
    errors.clear()
    for values in chapter.values():
        values.clear()
    repeated = {i.text.split()[0] for i in whole.issues if i.cause.startswith("repeats")}
    for query, scores in whole.data.items():
        take(query, scores, whole.order[query], query in repeated)
    return _RunRead(queries, whole.issues, ties, chapter, path, whole=whole, errors=errors)


def crosscheck(qrels_path: Path, run_paths: list[Path], measures: list[str], references: list[Reference], *,
               expected: Path | None = None, provenance: dict | None = None, check_readers: bool = True,
               progress=None) -> CrosscheckReport:
    """Evaluate each run with every implementation and explain each disagreement by its cause.

    Each library reads the files itself in its worker process (``Reference.evaluate_files``), one after
    another, while this process reads the run one query at a time and computes the chapter's values;
    each library's reader verdicts come from those same calls (``check_readers``: report them). A
    disagreement's experiments re-read and re-run only the queries that differ. Raises ``AuditError``
    for a malformed qrels or run (the libraries' evaluations are then stopped).
    """
    from audit import __version__

    for m in measures:
        parse_measure(m, True)
    qrels_in = read_trec(qrels_path, "qrels", check_readers=False)
    qrels = qrels_in.data
    expected_values = read_expected(expected) if expected else {}
    specs = _chapter_specs(measures)
    objects = [parse_measure(m, True)[0] for m in measures]
    qrels_readers: dict[str, str] = {}
    runs = []
    for path in run_paths:
        if progress:
            progress(f"reading {path}; evaluating {', '.join(measures)} with every implementation")
        handle = open_regular(path, "run file")  # a FIFO or a folder stops here, before any library opens it
        calls = _LibraryCalls(references, objects, qrels_path, path)
        try:
            with handle:
                run_read = _read_run(handle, path, qrels, specs)
        except BaseException:
            calls.cancel()
            raise
        outcomes = calls.result()
        readers = _verdicts(outcomes, "run") if check_readers else {}
        if check_readers and not qrels_readers:
            qrels_readers = _verdicts(outcomes, "qrels")
        run_queries = set(run_read.queries)
        common = sorted(q for q in run_queries if q in qrels)
        issues = [{"line": i.line, "cause": i.cause, "text": i.text[:120]} for i in run_read.issues]
        if not common:  # this run's problem only: the other runs are still evaluated and reported
            runs.append(RunResult(run=str(path), queries=len(run_queries), readers=readers,
                                  error="the run shares no query with the qrels; nothing can be evaluated",
                                  issues=issues, run_only_queries=sorted(run_queries),
                                  qrels_only_queries=sorted(qrels), measures=[]))
            continue
        tied = {q for q, (in64, _) in run_read.ties.items() if in64}
        tied32 = {q for q, (_, only32) in run_read.ties.items() if only32}
        duplicates = sorted({i.text.split()[0] for i in run_read.issues if i.cause.startswith("repeats")})
        negative = sorted({i.text.split()[0] for i in qrels_in.issues if "grade" in i.cause})
        nonfinite = sorted({i.text.split()[0] for i in run_read.issues if "not a finite number" in i.cause})
        chapter = _chapter_outcomes(specs, run_read.chapter, set(duplicates), run_read.errors)
        repeats = sorted(set(duplicates) & set(qrels))
        # beside trec_eval's rejection, the chapter's definitions with a repeated docno's first, and last, occurrence
        # kept: two more columns, read again from the lines of the queries that repeat one
        variants = _repeat_variants(specs, chapter, qrels, run_read.occurrences(repeats)) if repeats else {}
        evaluated = {m: {CHAPTER: chapter[m], **variants.get(m, {})} for m in measures}
        for ref in references:
            for m, obj in zip(measures, objects):
                o = outcomes[ref.name][str(obj)]
                evaluated[m][ref.name] = (o.per_query, o.provider, o.status, o.detail)
        differences = {m: _differences(evaluated[m]) for m in measures}
        # only the queries whose values differ are read again, for the experiments that explain the differences
        run, orders = run_read.rankings(sorted({q for d in differences.values() for q in d.in_values}))
        results = []
        for measure in measures:
            shown = evaluated[measure]
            per = {name: entry for name, entry in shown.items() if name not in variants.get(measure, {})}
            judged = sorted(qrels)
            # each implementation's own value over the queries it returned a value for (its own default), combined
            # as the measure combines queries (the mean; trec_eval's sum for counts, geometric mean for GMAP)
            means = [ImplMean(implementation=name, provider=prov, status=status if vals or status != "ok" else "left out",
                              mean=_combined(measure, vals, sorted(vals)) if status == "ok" and vals else None,
                              mean_all_judged=_combined(measure, vals, judged) if status == "ok" and vals else None,
                              detail=detail or ("it returned no value for any query" if status == "ok" and not vals
                                                else ""))
                     for name, (vals, prov, status, detail) in shown.items()]
            ok = {name: vals for name, (vals, _, status, _) in per.items() if status == "ok"}
            found = differences[measure]
            differing = found.in_values
            causes = []
            if tied & set(differing) or tied32 & set(differing):
                broken = _tie_broken({q: run[q] for q in differing if q in run})
                after = _evaluate([measure], qrels, broken,
                                  {q: sorted(broken[q], key=lambda d: -broken[q][d]) for q in broken},
                                  references)[measure]
                without = {name: _mean(vals, differing) for name, (vals, _, status, _) in after.items() if status == "ok"}
                agree = max(without.values()) - min(without.values()) <= 1e-9 if without else None
                affected = sorted((tied | tied32) & set(differing))
                observed = _tie_rules(measure, qrels, run, orders, per, affected)
                causes.append(Cause(
                    cause="tied scores" + (" (some only in single precision)" if tied32 & set(differing) else ""),
                    queries=affected,
                    detail="Observed on these queries: " + "; ".join(
                        f"{name} matches {' or '.join(rules) if rules else 'none of the orders tried'}"
                        for name, rules in observed.items()),
                    without=without, explains=agree))
            if set(repeats) & set(differing):
                causes.append(_repeated_cause(sorted(set(repeats) & set(differing)), per, variants.get(measure, {})))
            missing = [q for q in differing if q not in run_queries and q in qrels]
            if missing:
                rules = []
                for name, (vals, _, status, _) in per.items():
                    if status == "ok":
                        given = [vals[q] for q in missing if q in vals]
                        rules.append(f"{name} " + ("leaves them out" if not given else
                                                   "scores them " + ", ".join(sorted({f"{v:g}" for v in given}))))
                # the experiment: without these queries, do the implementations agree on the rest?
                rest_agree = all(_agree([v[q] for v in ok.values() if q in v]) for q in set(differing) - set(missing))
                causes.append(Cause(cause="judged queries missing from the run", queries=missing,
                                    detail="; ".join(rules) + " (trec_eval leaves such a query out; trec_eval -c, "
                                           "ir-measures and ranx with make_comparable count it as 0)",
                                    explains=True if rest_agree else None))
            if negative and set(negative) & set(differing):
                causes.append(Cause(cause="negative grades", queries=sorted(set(negative) & set(differing))))
            if nonfinite and set(nonfinite) & set(differing):
                causes.append(Cause(cause="NaN or infinite scores", queries=sorted(set(nonfinite) & set(differing)),
                                    detail="a NaN or infinite score has no place in a ranking; each implementation "
                                           "orders it its own way"))
            explained = {q for c in causes for q in c.queries}
            for cause in _attributed(measure, qrels, run, orders, per, sorted(set(differing) - explained),
                                     references):
                causes.append(cause)
            unexplained = sorted(set(differing) - {q for c in causes for q in c.queries if c.explains is not False})
            if unexplained:
                causes.append(Cause(cause="unexplained", queries=unexplained, explains=False,
                                    detail="no single cause tried (tie order, single precision, each convention of the "
                                           "chapter's definitions, judged queries missing from the run) makes the "
                                           "implementations agree on these queries; values: " + "; ".join(
                                               f"{n} {', '.join(f'{q} {v[q]:.4f}' for q in unexplained[:3] if q in v)}"
                                               for n, v in ok.items())))
            unscored = _unscored_cause(shown, found.queries, qrels_in.issues, run_read.issues)
            if unscored is not None:  # a fact about every query, not a cause of the values' differences: first
                causes.insert(0, unscored)
            name = trec_eval_name(measure)
            results.append(MeasureResult(measure=measure, trec_eval_name=name, expected=expected_values.get(name),
                                         means=means, differing_queries=found.queries, largest_kind=found.kind,
                                         largest_difference=found.size, largest_query=found.query,
                                         largest_values=found.values, causes=causes))
        runs.append(RunResult(
            run=str(path), queries=len(run_queries), readers=readers, issues=issues,
            run_only_queries=sorted(q for q in run_queries if q not in qrels),
            qrels_only_queries=sorted(q for q in qrels if q not in run_queries),
            tied_queries=len(tied), float32_tied_queries=len(tied32), measures=results))
    return CrosscheckReport(tool=f"chapter-audit {__version__}", qrels=str(qrels_path), qrels_readers=qrels_readers,
                            qrels_issues=[{"line": i.line, "cause": i.cause, "text": i.text[:120]}
                                          for i in qrels_in.issues],
                            runs=runs, provenance=provenance or {})


