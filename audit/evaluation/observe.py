"""Which value of each convention a reference follows, observed on probe inputs rather than read from its docs.

Each probe is a tiny input on which the values of one convention give different numbers by the
chapter's definitions (e.g. ties: three tied documents listed b, c, a with c relevant — RR is
1/2 in listed order, 1 by docno descending, 1/3 by docno ascending). A reference runs the probe;
the values whose chapter numbers equal its numbers exactly are what it follows. The reference
ledger is built from these observations, the same way claims' causes are found
(``audit.attribution.causes``), so the ledger and a finding cannot disagree.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field

from audit.evaluation.agreement import agree
from audit.evaluation import evaluator
from audit.evaluation import definitions
from audit.evaluation.references import Reference
from audit.measures.conventions import CONVENTIONS
from audit.measures.syntax import parse as parse_measure


@dataclass(frozen=True)
class Probe:
    convention: str
    measures: tuple[str, ...]
    qrels: Mapping[str, Mapping[str, int]]
    run: Mapping[str, tuple[str, ...]]               # listed order
    scores: Mapping[str, Mapping[str, float]] | None = None
    lines: tuple[tuple[str, str, float], ...] = ()    # a TREC run file's lines (query, doc, score), for repeats
    text: str = ""


def _run(run: Mapping[str, tuple[str, ...]]) -> dict[str, dict[str, float]]:
    return {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in run.items()}


PROBES: tuple[Probe, ...] = (
    # RR and RR@3: ir-measures computes RR@k with its msmarco provider and RR with pytrec_eval, whose tie rules differ
    Probe("ties", ("RR", "RR@3"), {"q1": {"a": 0, "b": 0, "c": 1}}, {"q1": ("b", "c", "a")},
          {"q1": {"b": 1.0, "c": 1.0, "a": 1.0}},
          text="b, c, a all scored 1.0, only c relevant: RR (and RR@3) 1/2 listed, 1 by docno descending, 1/3 "
               "ascending"),
    Probe("precision_denominator", ("P@4",), {"q1": {"a": 1, "b": 1}}, {"q1": ("a",)},
          text="one relevant result returned of two relevant, P@4: 1/4 over k, 1 over the number returned, "
               "1/2 over min(k, |R|)"),
    Probe("gain", ("nDCG@2",), {"q1": {"a": 1, "b": 2}}, {"q1": ("a", "b")},
          text="grades 1 then 2, nDCG@2: linear ≈ 0.8597, exponential ≈ 0.7967"),
    Probe("discount", ("nDCG@2",), {"q1": {"a": 2, "b": 1}}, {"q1": ("b", "a")},
          text="grades 1 then 2, nDCG@2: ≈ 0.8597 dividing rank i by log2(i + 1), 1 by log2(max(i, 2))"),
    Probe("ideal", ("nDCG@1",), {"q1": {"a": 1, "b": 3, "c": 2}}, {"q1": ("a", "c")},
          text="grades 1 then 2 returned, a grade 3 judged and not returned: nDCG@1 1/3 with the judged grades cut "
               "at k, lower over the whole judged list, 1/2 from every retrieved grade cut at k, 1 from the first k "
               "retrieved only"),
    Probe("rr_cutoff", ("RR@2",), {"q1": {"c": 1}}, {"q1": ("a", "b", "c")},
          text="the first relevant document at rank 3, RR@2: 0 with the cutoff applied, 1/3 without"),
    Probe("unjudged", ("R@1",), {"q1": {"b": 1, "a": 0}}, {"q1": ("x", "b")},
          text="an unjudged x before the relevant b, R@1: 0 when unjudged counts as non-relevant, 1 when removed"),
    Probe("no_qrels", ("AP",), {"q1": {"a": 1}, "q2": {}}, {"q1": ("a",), "q2": ("b",)},
          text="q2's qrels entry is empty: mean AP 1 with q2 left out, 1/2 with q2 scored 0"),
    Probe("no_relevant", ("AP",), {"q1": {"a": 1}, "q2": {"b": 0}}, {"q1": ("a",), "q2": ("b",)},
          text="q2 is judged, its one document non-relevant: mean AP 1 with q2 left out, 1/2 with q2 scored 0"),
    Probe("averaging", ("AP",), {"q1": {"a": 1}, "q2": {"c": 1}}, {"q1": ("a",)},
          text="judged q2 missing from the run: mean AP 1 over the queries with results, 1/2 over all judged queries"),
    Probe("relevance_level", ("P@1",), {"q1": {"a": 1}}, {"q1": ("a",)},
          text="grade 1 returned, P@1: 1 at relevance level 1, 0 at level 2"),
    Probe("repeated_ids", ("RR", "P@3"), {"q1": {"n": 1, "a": 0}}, {"q1": ("n", "a", "n")},
          lines=(("q1", "n", 3.0), ("q1", "a", 2.0), ("q1", "n", 1.0)),
          text="a run file listing n (score 3), a (2), n (1), n relevant: keep first RR 1 P@3 1/3, keep last "
               "RR 1/2 P@3 1/3, count each RR 1 P@3 2/3, or the run is rejected"),
)


@dataclass
class Observation:
    """What one reference did on one convention's probe: per measure (each with the provider that computed it) the
    values reproducing its numbers, and ``follows``, those every measure allows."""

    convention: str
    follows: list[str] = field(default_factory=list)   # convention values reproducing its numbers on every measure
    status: str = "ok"                                  # ok, rejected, not applicable, error
    values: str = ""
    probe: str = ""
    by_measure: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # measure → (provider, values)

    def split(self) -> bool:
        """The measures' providers follow different values (ir-measures: RR by pytrec_eval, RR@k by msmarco)."""
        return self.status == "ok" and not self.follows and all(r for _, r in self.by_measure.values())

    def summary(self) -> str:
        """The observed value(s) in a few words: ``docno descending``; per measure and provider when they differ."""
        if self.status == "rejected":
            return "reject"
        if self.split():
            return "; ".join(f"{m}: {' or '.join(r)} ({provider})" for m, (provider, r) in self.by_measure.items())
        return " or ".join(self.follows)

    def known(self) -> list[str]:
        """Every value some measure's provider was seen to follow (what a cause may name for this reference)."""
        if self.status == "rejected":
            return list(self.follows)
        return self.follows or list(dict.fromkeys(v for _, r in self.by_measure.values() for v in r))

    def sentence(self) -> str:
        title = CONVENTIONS[self.convention].title
        if self.status == "rejected":
            return f"{title}: rejects the run (probe: {self.probe})"
        if self.status != "ok":
            return f"{title}: {self.status} ({self.values})"
        if self.split():
            return (f"{title}: differs by measure and provider — {self.summary()}; observed {self.values} "
                    f"(probe: {self.probe})")
        if not self.follows:
            return f"{title}: matches no known value — {self.values} (probe: {self.probe})"
        return f"{title}: {' or '.join(self.follows)} — observed {self.values} (probe: {self.probe})"


def _chapter(probe: Probe, measure: str, reading: Mapping[str, str]) -> dict:
    _, spec = parse_measure(measure)
    qrels = probe.qrels
    if probe.convention == "repeated_ids":
        return evaluator.evaluate(spec, qrels, probe.run, reading)
    return evaluator.evaluate(spec, qrels, probe.run, reading, probe.scores)


def _write_run(probe: Probe, folder: str) -> str:
    path = os.path.join(folder, "probe.run")
    with open(path, "w", encoding="utf-8") as handle:
        for rank, (q, d, s) in enumerate(probe.lines, start=1):
            handle.write(f"{q} Q0 {d} {rank} {s} probe\n")
    return path


def observe(ref: Reference) -> dict[str, Observation]:
    """Run every probe through ``ref``; never raises (a failure is that observation's status)."""
    out: dict[str, Observation] = {}
    for probe in PROBES:
        obs = Observation(probe.convention, probe=probe.text)
        results = {}
        try:
            parsed = [parse_measure(m)[0] for m in probe.measures]
            if probe.lines:
                with tempfile.TemporaryDirectory(prefix="chapter-audit-probe-") as folder:
                    outcomes = ref.evaluate_run_file(parsed, probe.qrels, _write_run(probe, folder))
            else:
                outcomes = ref.evaluate(parsed, probe.qrels, probe.scores or _run(probe.run))
        except Exception as exc:  # an adapter must not raise; if it does, it is this observation's error
            out[probe.convention] = Observation(probe.convention, status="error", values=f"{type(exc).__name__}: {exc}")
            continue
        statuses = {o.status for o in outcomes.values()}
        if "rejected" in statuses:
            obs.status = "rejected"
            obs.follows = ["reject"] if probe.convention == "repeated_ids" else []
            out[probe.convention] = obs
            continue
        bad = next((o for o in outcomes.values() if o.status != "ok"), None)
        if bad is not None:
            obs.status, obs.values = bad.status, bad.detail
            out[probe.convention] = obs
            continue
        providers = {}
        for m, measure in zip(parsed, probe.measures):
            results[measure] = dict(outcomes[str(m)].per_query)
            providers[measure] = outcomes[str(m)].provider
        obs.values = "; ".join(f"{measure} " + (", ".join(f"{q} {v:.4f}" for q, v in vals.items()) or "no query")
                               for measure, vals in results.items())
        base = dict(definitions.DEFAULT_READING)
        if probe.convention != "repeated_ids":
            base["repeated_ids"] = "keep last"
        matched: dict[str, list[str]] = {measure: [] for measure in probe.measures}
        for value in CONVENTIONS[probe.convention].values:
            if value == "pooled":  # not a per-query rule: a probe of per-query values cannot show it
                continue
            reading = {**base, probe.convention: value}
            for measure in probe.measures:
                try:
                    if agree(_chapter(probe, measure, reading), results[measure]):
                        matched[measure].append(value)
                except Exception:
                    continue
        obs.by_measure = {measure: (providers[measure], matched[measure]) for measure in probe.measures}
        obs.follows = [v for v in CONVENTIONS[probe.convention].values if all(v in r for r in matched.values())]
        out[probe.convention] = obs
    return out


_CACHE: dict[str, dict[str, Observation]] = {}

#: Where observations are kept across runs: ``store(ref, compute)`` returns the stored ones or ``compute()``'s. Set by
#: the run stage (``audit.run.cache.stored_observations``); unset, every process probes afresh.
STORE: list = []


def observed(ref: Reference) -> dict[str, Observation]:
    """``observe(ref)``, probed once per process and reference (and kept across runs by ``STORE`` when the run
    stage set one)."""
    if ref.name not in _CACHE:
        _CACHE[ref.name] = STORE[0](ref, lambda: observe(ref)) if STORE else observe(ref)
    return _CACHE[ref.name]


def follows(ref: Reference) -> dict[str, list[str]]:
    """Convention name → the values ``ref`` was observed to follow on its probe (where its providers differ, the
    values any of them follows)."""
    return {name: o.known() for name, o in observed(ref).items()}


def known_rules(ref: Reference) -> dict[str, list[str]]:
    """``follows(ref)``, or nothing for a reference whose probes cannot run (a test double, a failing library)."""
    try:
        return follows(ref)
    except Exception:
        return {}


def reading_of(ref: Reference) -> dict[str, str]:
    """The reading ``ref`` was observed to follow: each probed convention's first observed value; a convention no
    probe shows (or a reference whose probes cannot run) keeps its first value, trec_eval's default."""
    reading = dict(definitions.DEFAULT_READING)
    for name, values in known_rules(ref).items():
        if values:
            reading[name] = values[0]
    return reading
