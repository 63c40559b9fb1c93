"""Cross-check real TREC runs: where trec_eval, ir-measures, ranx and the chapter's definitions
disagree on a qrels and run, and the cause of each disagreement, detected in the input."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from . import evaluator
from .errors import AuditError
from .files import open_regular, read_text
from .limits import MAX_GRADE, trim
from .measures import parse as parse_measure
from .references import Reference

CHAPTER = "chapter"
_TREC_NAMES = {"P": "P_{k}", "R": "recall_{k}", "AP": "map_cut_{k}", "nDCG": "ndcg_cut_{k}", "Success": "success_{k}"}
_TREC_FULL = {"AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "SetP": "set_P", "SetR": "set_recall"}


@dataclass
class Issue:
    """Something in an input file that can change a number: ``line`` (1-based), ``cause``, ``text``."""

    line: int
    cause: str
    text: str


@dataclass
class TrecInput:
    """A qrels or run as read: ``data`` (qrels {q: {d: grade}}; run {q: {d: score}}), ``order``
    (run only: documents in file order per query), ``issues`` found, and each library reader's verdict."""

    path: Path
    kind: str
    data: dict
    order: dict = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    readers: dict[str, str] = field(default_factory=dict)


#: Files larger than this are given to the libraries' readers as their first READER_LINES lines
#: (our own reading still covers every line), so the reader check does not triple peak memory.
READER_BYTES = 32 * 2**20
READER_LINES = 200_000


def _reader_verdicts(path: Path, kind: str) -> dict[str, str]:
    """What each library's own reader does with the raw file (its first READER_LINES lines when large)."""
    import itertools
    import tempfile

    if path.stat().st_size > READER_BYTES:
        with tempfile.TemporaryDirectory(prefix="chapter-audit-readers-") as folder:
            head = Path(folder) / path.name
            with open(path, encoding="utf-8") as src, open(head, "w", encoding="utf-8") as dst:
                dst.writelines(itertools.islice(src, READER_LINES))
            verdicts = _reader_verdicts(head, kind)
        return {name: f"{verdict} (checked on the first {READER_LINES:,} lines)" for name, verdict in verdicts.items()}
    import warnings

    import ir_measures
    import pytrec_eval

    from .references.ranx_ref import _import_ranx

    out = {}
    checks = {
        "pytrec_eval": lambda: (pytrec_eval.parse_qrel if kind == "qrels" else pytrec_eval.parse_run)(
            open(path, encoding="utf-8")),
        "ir_measures": lambda: list((ir_measures.read_trec_qrels if kind == "qrels" else ir_measures.read_trec_run)(
            str(path))),
        "ranx": lambda: (_import_ranx().Qrels if kind == "qrels" else _import_ranx().Run).from_file(str(path),
                                                                                                   kind="trec"),
    }
    for name, read in checks.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read()
            out[name] = "reads it"
        except AssertionError:
            out[name] = "rejects it (its reader fails an assertion)"
        except Exception as exc:
            out[name] = f"fails: {type(exc).__name__}: {str(exc)[:120]}"
    return out


_GRADE = re.compile(r"^[+-]?\d{1,12}$")


def _lines(handle, path: Path, kind: str):
    """``(number, text)`` of each line, decoded as UTF-8; refuses UTF-16 and binary files."""
    for number, raw in enumerate(handle, start=1):
        if number == 1 and raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise AuditError(f"the {kind} file is UTF-16 text; TREC files are plain UTF-8 (ASCII) text — convert "
                             "it first (e.g. iconv -f UTF-16 -t UTF-8)", file=str(path))
        if b"\x00" in raw:
            raise AuditError(f"line {number} holds a NUL byte: the {kind} file looks binary (or UTF-16), not a "
                             "TREC text file", file=str(path))
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise AuditError(f"line {number} is not UTF-8 text ({exc.reason} at byte {exc.start} of the line); "
                             f"the {kind} file looks binary or in another encoding", file=str(path))


def read_trec(path: Path, kind: str, *, check_readers: bool = True) -> TrecInput:
    """Read a TREC qrels (``query iter doc grade``) or run (``query Q0 doc rank score tag``) file.

    Comment lines (``#`` first) are skipped, extra fields beyond the standard ones ignored, and
    a repeated (query, doc) keeps its last line, as ir-measures and ranx do — each recorded as
    an ``Issue`` with its line number, as are negative grades and NaN or infinite scores. Raises
    ``AuditError`` (file and line) for a file that is not a regular UTF-8 text file (a FIFO, a
    device, binary or UTF-16), an empty file, a line with too few fields, a score that is not a
    number, or a grade that is not a whole number within ±``limits.MAX_GRADE``.
    """
    width = 4 if kind == "qrels" else 6
    data: dict = defaultdict(dict)
    order: dict = defaultdict(list)
    seen: dict[tuple[str, str], int] = {}
    result = TrecInput(path, kind, data, order)
    handle = open_regular(path, f"{kind} file")
    lines = 0
    with handle:
        for number, line in _lines(handle, path, kind):
            fields = line.split()
            if not fields:
                continue
            lines += 1
            if line.lstrip().startswith("#"):
                result.issues.append(Issue(number, "comment line", line.rstrip("\n")))
                continue
            if len(fields) < width:
                raise AuditError(f"line {number} has {len(fields)} fields; a {kind} line has {width}: "
                                 f"{trim(line.strip())}", file=str(path))
            if len(fields) > width:
                result.issues.append(Issue(number, f"{len(fields)} fields (extra ones ignored)", line.rstrip("\n")))
            query, doc = fields[0], fields[2]
            if (query, doc) in seen:
                result.issues.append(Issue(number, f"repeats document {doc} of query {query} (line {seen[(query, doc)]});"
                                           " the last line is used", line.rstrip("\n")))
                if kind == "run":
                    order[query].remove(doc)
            seen[(query, doc)] = number
            value = fields[3] if kind == "qrels" else fields[4]
            if kind == "qrels":
                if not _GRADE.match(value):
                    raise AuditError(f"line {number}: grade {trim(value, 40)} is not a whole number; TREC grades "
                                     "are integers (0 non-relevant, 1 or more relevant)", file=str(path))
                grade = int(value)
                if abs(grade) > MAX_GRADE:
                    raise AuditError(f"line {number}: grade {grade} is outside ±{MAX_GRADE} (the limit; trec_eval "
                                     "keeps grades in C ints and exponential gain overflows)", file=str(path))
                if grade < 0:
                    result.issues.append(Issue(number, f"negative grade {value}", line.rstrip("\n")))
                data[query][doc] = grade
            else:
                try:
                    score = float(value)
                except ValueError:
                    raise AuditError(f"line {number}: score {trim(value, 40)} is not a number", file=str(path))
                if not math.isfinite(score):
                    result.issues.append(Issue(number, f"score {value} is {'NaN' if math.isnan(score) else 'infinite'}"
                                               " (not a finite number)", line.rstrip("\n")))
                data[query][doc] = score
                order[query].append(doc)
    if lines == 0:
        raise AuditError(f"the {kind} file is empty", file=str(path))
    result.data, result.order = dict(data), dict(order)
    if check_readers:
        result.readers = _reader_verdicts(path, kind)
    return result


class ImplMean(BaseModel):
    """One implementation's mean: over the run's judged queries (trec_eval's default) and over every
    judged query with missing ones scored 0 (trec_eval -c)."""

    implementation: str
    provider: str = ""
    status: str = "ok"
    mean: float | None = None
    mean_all_judged: float | None = None
    detail: str = ""


class Cause(BaseModel):
    """A detected cause of disagreement: what it is, the queries it touches, and what each
    implementation gives for those queries when the cause is removed."""

    cause: str
    queries: list[str] = Field(default_factory=list)
    detail: str = ""
    without: dict[str, float] = Field(default_factory=dict)
    explains: bool | None = None


class MeasureResult(BaseModel):
    measure: str
    trec_eval_name: str = ""
    expected: float | None = None
    means: list[ImplMean]
    differing_queries: list[str] = Field(default_factory=list)
    largest_difference: float = 0.0
    largest_query: str = ""
    largest_values: dict[str, float] = Field(default_factory=dict)
    causes: list[Cause] = Field(default_factory=list)


class RunResult(BaseModel):
    """One run's cross-check; ``error`` says why it could not be evaluated (``measures`` is then empty)."""

    run: str
    queries: int
    error: str = ""
    issues: list[dict] = Field(default_factory=list)
    readers: dict[str, str] = Field(default_factory=dict)
    run_only_queries: list[str] = Field(default_factory=list)
    qrels_only_queries: list[str] = Field(default_factory=list)
    tied_queries: int = 0
    float32_tied_queries: int = 0
    measures: list[MeasureResult]


class CrosscheckReport(BaseModel):
    format_version: str = "1.0"
    tool: str
    qrels: str
    qrels_issues: list[dict] = Field(default_factory=list)
    qrels_readers: dict[str, str] = Field(default_factory=dict)
    runs: list[RunResult]
    provenance: dict


def trec_eval_name(measure: str) -> str:
    m, spec = parse_measure(measure, True)
    if spec is None:
        return {"Rprec": "Rprec", "Bpref": "bpref", "infAP": "infAP"}.get(m.NAME, "")
    if spec.cutoff is not None and spec.name in _TREC_NAMES:
        return _TREC_NAMES[spec.name].format(k=spec.cutoff)
    return _TREC_FULL.get(spec.name, "") if spec.cutoff is None else ""


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
    values = list(docs.values())
    tied64 = len(set(values)) < len(values)
    tied32 = len({float(np.float32(v)) for v in values}) < len(values)
    return tied64, tied32 and not tied64


def _chapter_values(measures: list[str], qrels, run, orders, rejected: set[str]) -> dict[str, tuple]:
    """The chapter's definitions (trec_eval's default conventions, ties in file order) on our reading of the
    files: ``{measure: (per-query values, provider, status, detail)}``. A query whose ranking repeats a docno
    is left out (those definitions reject it); a measure the chapter does not define is not applicable."""
    out = {}
    for m in measures:
        _, spec = parse_measure(m, True)
        if spec is None:
            out[m] = ({}, "", "not applicable", "the chapter's definitions do not define this measure")
            continue
        values = {}
        for q, docs in run.items():
            if q in qrels and q not in rejected:
                ranking = _chapter_order(docs, orders.get(q, list(docs)))
                values[q] = float(evaluator.evaluate_query(spec, qrels[q], ranking))
        out[m] = (values, "chapter definitions (trec_eval's defaults), ties in file order", "ok",
                  f"queries repeating a docno left out: {', '.join(sorted(rejected))}" if rejected else "")
    return out


def _evaluate(measures: list[str], qrels, run, orders, references: list[Reference],
              files: tuple[Path, Path] | None = None, rejected: set[str] = frozenset()) -> dict[str, dict[str, tuple]]:
    """Per-query values for every implementation and measure:
    {measure: {name: ({q: value}, provider, status, detail)}}. With ``files`` (qrels, run), each library
    reads the files itself and evaluates with its own defaults, as its users call it; otherwise it gets
    the given dicts (one call per reference)."""
    parsed = {m: parse_measure(m, True) for m in measures}
    chapter = _chapter_values(measures, qrels, run, orders, set(rejected))
    out: dict[str, dict[str, tuple]] = {m: {CHAPTER: chapter[m]} for m in measures}
    for ref in references:
        objs = [p[0] for p in parsed.values()]
        outcomes = ref.evaluate_files(objs, str(files[0]), str(files[1])) if files else ref.evaluate(objs, qrels, run)
        for m, (obj, _) in parsed.items():
            o = outcomes[str(obj)]
            out[m][ref.name] = (o.per_query, o.provider, o.status, o.detail)
    return out


TIE_ORDERS = {
    "file order": lambda docs, order: _chapter_order(docs, order),
    "docno descending (32-bit scores, trec_eval's rule)":
        lambda docs, order: sorted(docs, key=lambda d: (float(np.float32(docs[d])), d), reverse=True),
    "docno ascending": lambda docs, order: sorted(sorted(docs), key=lambda d: -docs[d]),
}


def _tie_rules(measure: str, qrels, run, orders, per, queries: list[str]) -> dict[str, list[str]]:
    """Which tie order each implementation's values match on ``queries``, found by recomputing the
    measure under each order with the chapter's definitions (not assumed from documentation)."""
    _, spec = parse_measure(measure, True)
    if spec is None:
        return {}
    by_order = {name: {q: float(evaluator.evaluate_query(spec, qrels[q], rank(run[q], orders.get(q, list(run[q])))))
                       for q in queries} for name, rank in TIE_ORDERS.items()}
    out = {}
    for name, (vals, _, status, _) in per.items():
        if status != "ok":
            continue
        out[name] = [order for order, expected in by_order.items()
                     if all(abs(vals.get(q, 0.0) - expected[q]) <= 1e-9 for q in queries)]
    return out


def _attributed(measure: str, qrels, run, orders, per, queries: list[str], references: list[Reference]) -> list[Cause]:
    """Causes of each reference's difference from the chapter's column on ``queries``, found by experiment
    (``audit.attribution``): the chapter's definitions re-run with one convention changed, and the input
    rewritten with one cause removed and the reference re-run on it."""
    from .attribution import Input, explain_reference
    from .conventions import relevant_to

    _, spec = parse_measure(measure, True)
    chapter_vals = per.get(CHAPTER, ({}, "", "", ""))[0]
    if spec is None or not queries:
        return []
    sub_qrels = {q: dict(qrels[q]) for q in queries if q in qrels}
    sub_run = {q: [d for d in _chapter_order(run[q], orders.get(q, list(run[q])))] for q in queries if q in run}
    inp = Input(sub_qrels, sub_run, {q: dict(run[q]) for q in sub_run})
    base = dict(evaluator.DEFAULT_READING)
    obj = parse_measure(measure, True)[0]
    names = relevant_to(spec.name, several_queries=True)
    out: list[Cause] = []
    by_ref = {r.name: r for r in references}
    for name, (vals, _, status, _) in per.items():
        if name == CHAPTER or status != "ok":
            continue
        observed = {q: vals[q] for q in queries if q in vals}
        mine = {q: chapter_vals[q] for q in queries if q in chapter_vals}
        if all(q in mine and abs(mine[q] - observed.get(q, -1)) <= 1e-9 for q in observed) and set(observed) == set(mine):
            continue
        ref = by_ref[name]
        found = explain_reference(ref, obj, spec, observed, inp, base, names)
        affected = sorted(q for q in set(observed) | set(mine) if q not in observed or q not in mine
                          or abs(observed[q] - mine[q]) > 1e-9)
        out.append(Cause(cause=f"{ref.title}: " + found.summary(ref.title), queries=affected,
                         detail=found.evidence(), explains=found.explained))
    return out


def _mean(values: dict[str, float], queries: list[str]) -> float:
    return sum(values.get(q, 0.0) for q in queries) / len(queries) if queries else 0.0


def crosscheck(qrels_path: Path, run_paths: list[Path], measures: list[str], references: list[Reference], *,
               expected: Path | None = None, provenance: dict | None = None, check_readers: bool = True,
               progress=None) -> CrosscheckReport:
    """Evaluate each run with every implementation and explain each disagreement by its cause."""
    from . import __version__

    for m in measures:
        parse_measure(m, True)
    qrels_in = read_trec(qrels_path, "qrels", check_readers=check_readers)
    qrels = qrels_in.data
    expected_values = read_expected(expected) if expected else {}
    runs = []
    for path in run_paths:
        if progress:
            progress(f"reading {path}")
        run_in = read_trec(path, "run", check_readers=check_readers)
        run = run_in.data
        common = sorted(q for q in run if q in qrels)
        if not common:  # this run's problem only: the other runs are still evaluated and reported
            runs.append(RunResult(run=str(path), queries=len(run), readers=run_in.readers,
                                  error="the run shares no query with the qrels; nothing can be evaluated",
                                  issues=[{"line": i.line, "cause": i.cause, "text": i.text[:120]}
                                          for i in run_in.issues],
                                  run_only_queries=sorted(run), qrels_only_queries=sorted(qrels), measures=[]))
            continue
        ties = {q: _ties(run[q]) for q in common}
        tied = {q for q, (in64, _) in ties.items() if in64}
        tied32 = {q for q, (_, only32) in ties.items() if only32}
        duplicates = sorted({i.text.split()[0] for i in run_in.issues if i.cause.startswith("repeats")})
        negative = sorted({i.text.split()[0] for i in qrels_in.issues if "grade" in i.cause})
        nonfinite = sorted({i.text.split()[0] for i in run_in.issues if "not a finite number" in i.cause})
        broken = _tie_broken({q: run[q] for q in common})
        if progress:
            progress(f"{path.name}: evaluating {', '.join(measures)} with every implementation")
        evaluated = _evaluate(measures, qrels, {q: run[q] for q in common}, run_in.order, references,
                              files=(qrels_path, path), rejected=set(duplicates))
        results = []
        for measure in measures:
            per = evaluated[measure]
            judged = sorted(qrels)
            # each implementation's own mean: over the queries it returned a value for (its own default)
            means = [ImplMean(implementation=name, provider=prov, status=status if vals or status != "ok" else "left out",
                              mean=_mean(vals, sorted(vals)) if status == "ok" and vals else None,
                              mean_all_judged=_mean(vals, judged) if status == "ok" and vals else None,
                              detail=detail or ("it returned no value for any query" if status == "ok" and not vals
                                                else ""))
                     for name, (vals, prov, status, detail) in per.items()]
            ok = {name: vals for name, (vals, _, status, _) in per.items() if status == "ok"}
            differing, largest, largest_q = [], 0.0, ""
            for q in sorted(set().union(*ok.values()) if ok else set()):
                values = [vals[q] for vals in ok.values() if q in vals]
                spread = max(values) - min(values)
                if spread > 1e-9 or len(values) < len(ok):  # a value left out by one is a difference too
                    differing.append(q)
                    if spread > largest:
                        largest, largest_q = spread, q
            causes = []
            if tied & set(differing) or tied32 & set(differing):
                after = _evaluate([measure], qrels, {q: broken[q] for q in differing},
                                  {q: sorted(broken[q], key=lambda d: -broken[q][d]) for q in differing},
                                  references)[measure]
                without = {name: _mean(vals, differing) for name, (vals, _, status, _) in after.items() if status == "ok"}
                agree = max(without.values()) - min(without.values()) <= 1e-9 if without else None
                affected = sorted((tied | tied32) & set(differing))
                observed = _tie_rules(measure, qrels, run, run_in.order, per, affected)
                causes.append(Cause(
                    cause="tied scores" + (" (some only in single precision)" if tied32 & set(differing) else ""),
                    queries=affected,
                    detail="Observed on these queries: " + "; ".join(
                        f"{name} matches {' or '.join(rules) if rules else 'none of the orders tried'}"
                        for name, rules in observed.items()),
                    without=without, explains=agree))
            if duplicates and set(duplicates) & set(differing):
                said = "; ".join(f"{name} {'rejects the file' if status == 'rejected' else 'keeps the last line'}"
                                 for name, (_, _, status, _) in per.items() if name != CHAPTER)
                causes.append(Cause(cause="repeated doc ids in the run", queries=sorted(set(duplicates) & set(differing)),
                                    detail=f"{said}; the chapter's definitions (trec_eval's defaults) reject a ranking "
                                           "that repeats a docno, so those queries are left out of its column"))
            missing = [q for q in differing if q not in run and q in qrels]
            if missing:
                rules = []
                for name, (vals, _, status, _) in per.items():
                    if status == "ok":
                        given = [vals[q] for q in missing if q in vals]
                        rules.append(f"{name} " + ("leaves them out" if not given else
                                                   "scores them " + ", ".join(sorted({f"{v:g}" for v in given}))))
                # the experiment: without these queries, do the implementations agree on the rest?
                rest_agree = all(len({round(v[q], 9) for v in ok.values() if q in v}) <= 1
                                 for q in set(differing) - set(missing))
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
            for cause in _attributed(measure, qrels, run, run_in.order, per, sorted(set(differing) - explained),
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
            name = trec_eval_name(measure)
            results.append(MeasureResult(measure=measure, trec_eval_name=name, expected=expected_values.get(name),
                                         means=means, differing_queries=differing, largest_difference=largest,
                                         largest_query=largest_q, causes=causes,
                                         largest_values={n: v[largest_q] for n, v in ok.items() if largest_q in v}
                                         if largest_q else {}))
        runs.append(RunResult(
            run=str(path), queries=len(run), readers=run_in.readers,
            issues=[{"line": i.line, "cause": i.cause, "text": i.text[:120]} for i in run_in.issues],
            run_only_queries=sorted(q for q in run if q not in qrels),
            qrels_only_queries=sorted(q for q in qrels if q not in run),
            tied_queries=len(tied), float32_tied_queries=len(tied32), measures=results))
    return CrosscheckReport(tool=f"chapter-audit {__version__}", qrels=str(qrels_path), qrels_readers=qrels_in.readers,
                            qrels_issues=[{"line": i.line, "cause": i.cause, "text": i.text[:120]}
                                          for i in qrels_in.issues],
                            runs=runs, provenance=provenance or {})


def render_markdown(report: CrosscheckReport) -> str:
    """The cross-check as Markdown: per run, per measure means, differing queries and causes."""
    out = [f"# Cross-check: {report.qrels}\n", f"Generated by `{report.tool}`.\n"]
    if report.qrels_issues or report.qrels_readers:
        out.append("## Qrels\n")
        for name, verdict in report.qrels_readers.items():
            out.append(f"- {name}'s reader {verdict}")
        for i in report.qrels_issues[:20]:
            out.append(f"- line {i['line']}: {i['cause']} — `{i['text']}`")
        if len(report.qrels_issues) > 20:
            out.append(f"- … and {len(report.qrels_issues) - 20} more")
        out.append("")
    for run in report.runs:
        out.append(f"## Run {run.run}\n")
        if run.error:
            out.append(f"Not evaluated: {run.error}.\n")
            continue
        out.append(f"{run.queries} queries; {run.tied_queries} with tied scores, {run.float32_tied_queries} more tied "
                   "only in single precision.")
        if run.qrels_only_queries:
            out.append(f"Queries judged but absent from the run: {', '.join(run.qrels_only_queries)} — each library "
                       "was given the files as its users give them, so each applies its own rule (see the causes "
                       "below); the \"with -c\" figures count them as 0 for everyone, as trec_eval -c does.")
        if run.run_only_queries:
            out.append(f"Queries in the run without judgements (ignored by every implementation): "
                       f"{', '.join(run.run_only_queries)}.")
        for name, verdict in run.readers.items():
            out.append(f"- {name}'s reader {verdict}")
        for i in run.issues[:20]:
            out.append(f"- line {i['line']}: {i['cause']}")
        if len(run.issues) > 20:
            out.append(f"- … and {len(run.issues) - 20} more")
        impls = [m.implementation for m in run.measures[0].means] if run.measures else []
        out.append("")
        missing = bool(run.qrels_only_queries)
        out.append("| measure | trec_eval expected | " + " | ".join(impls) + " | queries differing | largest difference |")
        out.append("|---|---|" + "---|" * len(impls) + "---|---|")
        for m in run.measures:
            def shown(x):
                if x.mean is None:
                    return x.status
                return f"{x.mean:.4f}" + (f" ({x.mean_all_judged:.4f} with -c)" if missing else "")
            cells = [shown(x) for x in m.means]
            expected = f"{m.expected:.4f} ({m.trec_eval_name})" if m.expected is not None else "—"
            largest = (f"{m.largest_difference:.2g} (query {m.largest_query}: "
                       + ", ".join(f"{k} {v:.6f}" for k, v in m.largest_values.items()) + ")"
                       if m.largest_query else "0")
            out.append(f"| {m.measure} | {expected} | " + " | ".join(cells) +
                       f" | {len(m.differing_queries)} | {largest} |")
        out.append("")
        for m in run.measures:
            for c in m.causes:
                line = f"- **{m.measure}**: {c.cause} — queries {', '.join(c.queries)}"
                if c.without:
                    line += ("; with ties broken by one rule (score, then docno descending) the means over those "
                             "queries are " + ", ".join(f"{k} {v:.6f}" for k, v in c.without.items())
                             + (" — the disagreement disappears" if c.explains else " — a difference remains"))
                out.append(line + (f". {c.detail}" if c.detail else ""))
        out.append("")
    return "\n".join(out) + "\n"
