"""What each reference returns for a value claim: one row per reference (its value on the fixture, whether it lands
in the printed interval, what it cannot express), and the reference's other release where scores tie in single
precision."""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from fractions import Fraction

from audit.evaluation.checks.common import Measurements, combined, fmt_float, listed, repeats
from audit.evaluation.readings import REJECTED
from audit.model.values import ClaimedValue, display, format_exact
from audit.model.results import ImplValue


def _show(value) -> str:
    if value == REJECTED:
        return "rejected"
    return display(format_exact(value))


def _approx(value) -> str:
    """`` (≈ 0.6667)`` after a value printed as a fraction, else ''."""
    return f" (≈ {float(value):.4f})" if isinstance(value, Fraction) and "/" in format_exact(value) else ""


def reference_rows(ms: Measurements, fixture, measure: str, claimed: ClaimedValue,
                   query: str | None) -> list[tuple[object, ImplValue, dict | None]]:
    """Each reference's row and the per-query values it returned (None when it gave no value)."""
    return [reference_row(ms, ref, fixture, measure, claimed, query) for ref in ms.references]


def reference_row(ms: Measurements, ref, fixture, measure: str, claimed: ClaimedValue, query: str | None,
                  provider: str = "", params: Mapping[str, object] | None = None
                  ) -> tuple[object, ImplValue, dict | None]:
    """One reference's row (``provider``: how the row says it was computed, if not the reference's own provider)
    and the per-query values it returned (None when it gave no value). ``params``: the reference's own options
    (``judged_only``, ``rel``), with which it is run."""
    if params:
        outcome = ms.reference_with(ref, fixture, measure, params)
        if outcome is None:
            return ref, ImplValue(implementation=ref.name, provider=provider, status="not applicable",
                                  detail=f"{ref.title} cannot compute {measure} with "
                                         f"{', '.join(f'{k}={v}' for k, v in params.items())}"), None
    else:
        outcome = ms.reference(ref, fixture, measure)
    provider = provider or outcome.provider
    if outcome.status != "ok":
        return ref, ImplValue(implementation=ref.name, provider=provider, status=outcome.status,
                              detail=outcome.detail), None
    returned = dict(outcome.per_query)
    left_out = [q for q in fixture.qrels if q not in returned]
    per_query = {q: fmt_float(v) for q, v in returned.items()}
    per_query.update({q: "left out" for q in left_out})
    detail = (f"left out {', '.join(left_out)} (it returned no value for {'it' if len(left_out) == 1 else 'them'})"
              if left_out else "")
    if query is not None:
        if query not in returned:
            return ref, ImplValue(implementation=ref.name, provider=provider, status="left out",
                                  per_query=per_query, detail=detail), returned
        value = returned[query]
    else:
        if not returned:
            return ref, ImplValue(implementation=ref.name, provider=provider, status="left out",
                                  detail="it returned no value for any query"), returned
        value = combined(measure, returned)
    return ref, ImplValue(implementation=ref.name, provider=provider, value=value, per_query=per_query,
                          in_interval=claimed.contains(value), detail=detail), returned


#: References whose releases read a run's scores at different precisions: the release this audit runs, which reads
#: them as 32-bit floats, and a later one reading them as doubles. trec_eval 9 (the copy pytrec_eval bundles) keeps a
#: score as a C float; trec_eval 10.0 keeps it as a double (trec_format.h, ``TEXT_RESULTS.sim``, from
#: usnistgov/trec_eval commit dc0c991 "Convert float to double"). On scores that differ only beyond single precision
#: the two releases order the documents differently, so what "trec_eval gives" depends on the release.
SCORE_PRECISION = {"pytrec_eval": ("trec_eval 9 (the release pytrec_eval bundles)", "trec_eval 10.0")}


def single_precision_ties(fixture) -> list[str]:
    """The scores of the fixture that are equal as 32-bit floats but not as doubles, each group as "14.2000001 and
    14.2" (nothing when the fixture has no scores, or every tie in single precision is one in double precision)."""
    out = []
    for scores in (fixture.scores or {}).values():
        groups: dict[float, set[float]] = {}  # each score as a 32-bit float (C's double → float rounding)
        for v in scores.values():
            groups.setdefault(array("f", [v])[0], set()).add(float(v))
        out += [listed([repr(v) for v in sorted(vs, reverse=True)]) for vs in groups.values() if len(vs) > 1]
    return list(dict.fromkeys(out))


def as_doubles(fixture):
    """The fixture with its scores replaced by strictly decreasing whole numbers in the order scores read as doubles
    give, ties in double precision broken by docno descending (trec_eval's rule, in every release): what a reference
    reading 32-bit floats then computes is what the same code reading doubles computes on the original scores."""
    scores = {}
    for q, s in fixture.scores.items():
        order = sorted(sorted(s, reverse=True), key=lambda d: -s[d])
        scores[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    return fixture.model_copy(update={"scores": scores})


def other_release(ms: Measurements, fixture, measure: str, claimed: ClaimedValue, query: str | None,
                  name: str) -> tuple[ImplValue, str, str, list[str]] | None:
    """For a reference whose releases read scores at different precisions (``SCORE_PRECISION``), on a fixture whose
    scores differ only beyond single precision: the row of the release reading doubles (the reference run on the
    order doubles give, ``as_doubles``), the two releases' names and the scores that tie only in single precision.
    None when neither applies or the reference gives no value."""
    if name not in SCORE_PRECISION or fixture.scores is None or repeats(fixture):
        return None
    ties = single_precision_ties(fixture)
    if not ties:
        return None
    ref = next((r for r in ms.references if r.name == name), None)
    if ref is None:
        return None
    ours, later = SCORE_PRECISION[name]
    _, row, _ = reference_row(ms, ref, as_doubles(fixture), measure, claimed, query,
                              provider=f"{later}'s reading of scores, as doubles: {ref.name} run on the order they give")
    return (row, ours, later, ties) if row.status == "ok" else None


def _phrase_list(outs, claimed) -> str:
    return "; ".join(f"{o.label()} gives {_show(o.value)}{_approx(o.value) if o.value != REJECTED else ''}"
                     for o in outs)
