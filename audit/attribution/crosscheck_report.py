"""What `audit crosscheck` reports: per run and measure, the mean each implementation gives, the causes found
for their differences, and the Markdown it is written as."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from audit.attribution.trec_files import shown_id
from audit.evaluation.sandbox.quote import clean, markdown_literal
from audit.measures.syntax import parse as parse_measure


_TREC_NAMES = {"P": "P_{k}", "R": "recall_{k}", "AP": "map_cut_{k}", "nDCG": "ndcg_cut_{k}", "Success": "success_{k}"}


_TREC_FULL = {"AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "SetP": "set_P", "SetR": "set_recall",
              "Rprec": "Rprec", "Bpref": "bpref", "NumRel": "num_rel", "NumRet": "num_ret", "NumRelRet": "num_rel_ret",
              "GMAP": "gm_map"}


class _Model(BaseModel):
    """A part of the cross-check report: a NaN an implementation returned is written "NaN" in the JSON, never
    null (which reads as "no value")."""

    model_config = ConfigDict(ser_json_inf_nan="strings")


class ImplMean(_Model):
    """One implementation's mean: over the run's judged queries (trec_eval's default) and over every
    judged query with missing ones scored 0 (trec_eval -c)."""

    implementation: str
    provider: str = ""
    status: str = "ok"
    mean: float | None = None
    mean_all_judged: float | None = None
    detail: str = ""


class Cause(_Model):
    """A detected cause of disagreement: what it is, the queries it touches, and what each
    implementation gives for those queries when the cause is removed."""

    cause: str
    queries: list[str] = Field(default_factory=list)
    detail: str = ""
    without: dict[str, float] = Field(default_factory=dict)
    explains: bool | None = None


class MeasureResult(_Model):
    """One measure on one run. ``differing_queries``: the queries on which the implementations that compute the
    measure do not agree (``_differences``); ``largest_kind`` the kind of the largest difference (``KINDS``), at
    ``largest_query``, where each implementation gave ``largest_values`` (a number, or "left out", "rejected",
    "error"); ``largest_difference`` its size when it is a difference of numbers (0 when nothing differs, None
    when the largest is of another kind)."""

    measure: str
    trec_eval_name: str = ""
    expected: float | None = None
    means: list[ImplMean]
    differing_queries: list[str] = Field(default_factory=list)
    largest_kind: str = ""
    largest_difference: float | None = 0.0
    largest_query: str = ""
    largest_values: dict[str, float | str] = Field(default_factory=dict)
    causes: list[Cause] = Field(default_factory=list)


class RunResult(_Model):
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


class CrosscheckReport(_Model):
    format_version: str = "1.1"
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
    if spec.name == "SetF" and spec.beta in (None, 1):
        return "set_F"
    if spec.name == "IPrec" and spec.recall is not None:
        return f"iprec_at_recall_{float(spec.recall):.2f}"
    if spec.rel is not None or spec.gain not in (None, "log2"):
        return ""
    return _TREC_FULL.get(spec.name, "") if spec.cutoff is None else ""


#: The kind of a measure on which nothing can be compared: fewer than two implementations compute it, or none
#: returned a value.
NOT_COMPARED = "not compared"


def _md(text: object) -> str:
    """Text from the files (query and document IDs, a line of a run, what a reader said of it) as literal Markdown:
    one line, control characters shown, no character read as markup or a link."""
    return markdown_literal(clean(text, limit=4000))


def _id(query: str) -> str:
    return _md(shown_id(query))


def _readers_and_issues(readers: dict[str, str], issues: list[dict], with_text: bool) -> list[str]:
    """Markdown bullets: each library reader's verdict on a file, then its first 20 issues (with the line's text
    when ``with_text``)."""
    out = [f"- {name}'s reader {_md(verdict)}" for name, verdict in readers.items()]
    out += [f"- line {i['line']}: {_md(i['cause'])}" + (f" — “{_md(i['text'])}”" if with_text else "")
            for i in issues[:20]]
    if len(issues) > 20:
        out.append(f"- … and {len(issues) - 20} more")
    return out


def _largest_text(m: MeasureResult) -> str:
    """The largest-difference cell: "0" when the implementations agree on every query; else the difference —
    its size for numbers ("0.5"), or what stands against the values for another kind ("nan vs 1", "left out vs
    0", "rejected vs 0.5") — then the query and every implementation's value or status there."""
    if m.largest_kind == NOT_COMPARED:
        alone = [k for k, v in m.largest_values.items() if v == "returns values"]
        return f"not compared: {'only ' + alone[0] if alone else 'no implementation'} returns values"
    if not m.largest_query:
        return "0"

    def number(v) -> bool:
        return isinstance(v, float) and not math.isnan(v)

    values = ", ".join(f"{k} {v:.6f}" if isinstance(v, float) else f"{k} {v}" for k, v in m.largest_values.items())
    if m.largest_kind == "difference":
        head = f"{m.largest_difference:.2g}"
    else:
        words = dict.fromkeys("nan" if isinstance(v, float) else v for v in m.largest_values.values() if not number(v))
        numbers = sorted({v for v in m.largest_values.values() if number(v)})
        head = f"{' / '.join(words)} vs {', '.join(f'{x:g}' for x in numbers)}"
    return f"{head} (query {shown_id(m.largest_query)}: {values})"


def render_markdown(report: CrosscheckReport) -> str:
    """The cross-check as Markdown: per run, per measure means, differing queries and causes."""
    out = [f"# Cross-check: {_md(report.qrels)}\n", f"Generated by `{report.tool}`.\n"]
    if report.qrels_issues or report.qrels_readers:
        out.append("## Qrels\n")
        out += _readers_and_issues(report.qrels_readers, report.qrels_issues, with_text=True)
        out.append("")
    for run in report.runs:
        out.append(f"## Run {_md(run.run)}\n")
        if run.error:
            out.append(f"Not evaluated: {_md(run.error)}.\n")
            continue
        out.append(f"{run.queries} queries; {run.tied_queries} with tied scores, {run.float32_tied_queries} more tied "
                   "only in single precision.")
        if run.qrels_only_queries:
            out.append(f"Queries judged but absent from the run: {', '.join(map(_id, run.qrels_only_queries))} "
                       "— each library was given the files as its users give them, so each applies its own rule (see "
                       "the causes below); the \"with -c\" figures count them as 0 for everyone, as trec_eval -c "
                       "does.")
        if run.run_only_queries:
            out.append(f"Queries in the run without judgements (ignored by every implementation): "
                       f"{', '.join(map(_id, run.run_only_queries))}.")
        out += _readers_and_issues(run.readers, run.issues, with_text=False)
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
            counted = "—" if m.largest_kind == NOT_COMPARED else len(m.differing_queries)
            largest = _md(_largest_text(m)).replace("|", "\\|")
            out.append(f"| {m.measure} | {expected} | " + " | ".join(cells) + f" | {counted} | {largest} |")
        out.append("")
        for m in run.measures:
            for c in m.causes:
                named = ", ".join(map(_id, c.queries[:20])) + (f" … ({len(c.queries)} in all)"
                                                               if len(c.queries) > 20 else "")
                line = f"- **{m.measure}**: {_md(c.cause)}" + (f" — queries {named}" if c.queries else "")
                if c.without:
                    line += ("; with ties broken by one rule (score, then docno descending) the means over those "
                             "queries are " + ", ".join(f"{k} {v:.6f}" for k, v in c.without.items())
                             + (" — the disagreement disappears" if c.explains else " — a difference remains"))
                out.append(line + (f". {_md(c.detail)}" if c.detail else ""))
        out.append("")
    return "\n".join(out) + "\n"
