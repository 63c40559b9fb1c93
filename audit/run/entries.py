"""What a cache entry may hold, checked before it is used.

An entry is used only when its signature is good (``audit.run.signing``); these checks come after that, so that
an entry this version could never have written (by a bug, an older layout, or a key that leaked) is computed
again rather than trusted or crashing the audit. Each check returns the value to use, or None: never raises.

- every entry: plain JSON; no NaN or infinity, no number beyond 2**``MAX_VALUE_BITS`` (no value the checks
  compute is larger), no text holding a lone surrogate (it cannot be written as UTF-8);
- a claim's result: a ``ClaimResult`` that reads back as stored (no unknown field, no value the model had to
  convert), of the claim asked for (id and kind), with a known verdict, priority and anchor state, claimed
  intervals whose low end is not above their high end, and one that would have been stored (``storable``);
  its book conflicts are this chapter's and this claim's, with exactly a conflict's fields;
- research sections: a ``Research`` that reads back as stored, naming only the chapter's claims, each hunk on a
  line of the snapshot and replacing that line as it is (or as an earlier hunk made it);
- a reference outcome, a reference's observations, a claim's proposal re-check or sensitivity rows: their own
  fields and kinds;
- a chart: SVG of the elements and attributes matplotlib writes, links only within the chart, no script, no
  event handler, no style that loads anything (``svg``): it is put into the HTML report as it is.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from audit.model.limits import MAX_VALUE_BITS

if TYPE_CHECKING:
    from audit.model.results import ClaimResult

#: Largest magnitude of a number in an entry.
LARGEST = float(2**MAX_VALUE_BITS)
#: Deepest nesting of an entry's JSON.
MAX_DEPTH = 64

ANCHOR_STATES = ("unchanged", "moved", "edited", "ambiguous", "lost")
OUTCOME_STATUSES = ("ok", "not applicable", "rejected")   # an error outcome is never stored
OBSERVATION_STATUSES = ("ok", "rejected", "not applicable")


def refuse_constant(name: str):
    """``json.loads``'s ``parse_constant``: NaN and ±Infinity are not read."""
    raise ValueError(f"{name} is not stored in an entry")


def plain(value, depth: int = 0) -> bool:
    """Whether ``value`` is plain JSON within the limits above."""
    if depth > MAX_DEPTH:
        return False
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, int):
        return abs(value) <= LARGEST
    if isinstance(value, float):
        return math.isfinite(value) and abs(value) <= LARGEST
    if isinstance(value, list):
        return all(plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _text(k) and plain(v, depth + 1) for k, v in value.items())
    return False


def _text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _same(model, stored) -> bool:
    """The model reads back as what was stored (nothing dropped, added or converted)."""
    try:
        return model.model_dump(mode="json") == stored
    except Exception:
        return False


def storable(result: ClaimResult) -> bool:
    """Whether a result depends only on its key: not an ``error`` (a timeout or an internal fault), not a
    search stopped by its time limit, no reference worker that crashed or overran."""
    if result.verdict == "error" or "time limit stopped" in result.reason:
        return False
    for check in result.checks:
        for value in check.values:
            if value.status == "error" and "worker process" in value.detail:
                return False
    return True


def claim_result(payload, claim_id: str | None = None, kind: str | None = None, chapter: str | None = None):
    """``(ClaimResult, conflicts)`` from a claim entry's payload, or None (see the module doc)."""
    from audit.model.results import EVIDENCE_CLASSES, PRIORITIES, VERDICTS, ClaimResult

    if not isinstance(payload, dict) or set(payload) != {"result", "conflicts"}:
        return None
    try:
        result = ClaimResult.model_validate(payload["result"])
    except Exception:
        return None
    if not _same(result, payload["result"]):
        return None
    if claim_id is not None and result.id != claim_id or kind is not None and result.kind != kind:
        return None
    if result.verdict not in VERDICTS or result.priority not in PRIORITIES or result.anchor_state not in ANCHOR_STATES:
        return None
    if not 0 <= result.similarity <= 1 or any(n is not None and n < 1 for n in (result.line, result.column,
                                                                                   result.register_line)):
        return None
    if any(e.cls not in EVIDENCE_CLASSES for e in result.evidence):
        return None
    for check in result.checks:
        if check.low is not None and check.high is not None and check.low > check.high:
            return None
    from audit.measures.conventions import CONVENTIONS
    for name, values in result.holds_only.items():
        if name not in CONVENTIONS or any(v not in CONVENTIONS[name].values for v in values):
            return None
    if not storable(result):
        return None
    conflicts = conflicts_of(payload["conflicts"], chapter, result.id)
    return None if conflicts is None else (result, conflicts)


_CONFLICT_FIELDS = ("chapter", "claim", "rule_chapter", "rule_claim", "rule", "text")


def conflicts_of(stored, chapter: str | None, claim_id: str) -> list[dict] | None:
    """A claim's book conflicts as stored, or None when one is not a conflict of this chapter's claim."""
    if not isinstance(stored, list):
        return None
    for found in stored:
        if not isinstance(found, dict) or sorted(found) != sorted(_CONFLICT_FIELDS) \
                or not all(isinstance(v, str) for v in found.values()):
            return None
        if found["claim"] != claim_id or (chapter is not None and found["chapter"] != chapter):
            return None
    return [dict(c) for c in stored]


def research(stored, claim_ids: Collection[str], lines: Sequence[str]):
    """The chapter's ``Research`` from an entry, or None (see the module doc). ``lines``: the snapshot's lines."""
    from audit.model.results import Research

    try:
        found = Research.model_validate(stored)
    except Exception:
        return None
    if not _same(found, stored):
        return None
    ids = set(claim_ids)
    named = [s.claim for s in found.sensitivity] + [link.claim for s in found.sources for link in s.links]
    named += [c for item in found.checklist for c in item.claims] + [c for e in found.experiments for c in e.claims]
    if found.proposal is not None:
        named += [h.claim for h in found.proposal.hunks]
        named += [d.get("claim", "") for d in found.proposal.not_proposed + found.proposal.withdrawn]
        # the hunks applied in order, as patch applies them: each one's ``old`` lines (a corrected listing spans
        # several) are the text at its ``line`` as the hunks before it left it
        text = list(lines)
        for hunk in found.proposal.hunks:
            olds = hunk.old.split("\n")
            if not 1 <= hunk.line <= len(text) - len(olds) + 1 or text[hunk.line - 1:hunk.line - 1 + len(olds)] != olds:
                return None
            text[hunk.line - 1:hunk.line - 1 + len(olds)] = hunk.new.split("\n")
    if any(c not in ids for c in named):
        return None
    return found


def outcome(payload):
    """A reference's ``Outcome`` from an entry, or None."""
    from audit.evaluation.references.base import Outcome

    found = payload.get("outcome") if isinstance(payload, dict) and set(payload) == {"outcome"} else None
    if not isinstance(found, dict) or set(found) - {"status", "per_query", "provider", "detail", "readers"}:
        return None
    if found.get("status") not in OUTCOME_STATUSES:
        return None
    per_query, readers = found.get("per_query", {}), found.get("readers", {})
    if not isinstance(per_query, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                  for v in per_query.values()):
        return None
    if not isinstance(readers, dict) or not all(isinstance(v, str) for v in readers.values()):
        return None
    if not all(isinstance(found.get(k, ""), str) for k in ("provider", "detail")):
        return None
    return Outcome(status=found["status"], per_query={q: float(v) for q, v in per_query.items()},
                   provider=found.get("provider", ""), detail=found.get("detail", ""), readers=dict(readers))


def observations(payload):
    """A reference's observed conventions (``{name: Observation}``) from an entry, or None."""
    from audit.evaluation.observe import Observation

    found = payload.get("observed") if isinstance(payload, dict) and set(payload) == {"observed"} else None
    if not isinstance(found, dict):
        return None
    out = {}
    for name, fields in found.items():
        if not isinstance(fields, dict) or set(fields) != {"convention", "follows", "status", "values", "probe",
                                                           "by_measure"}:
            return None
        if fields["convention"] != name or fields["status"] not in OBSERVATION_STATUSES:
            return None
        if not _strings(fields["follows"]) or not all(isinstance(fields[k], str) for k in ("values", "probe")):
            return None
        by_measure = fields["by_measure"]
        if not isinstance(by_measure, dict):
            return None
        for pair in by_measure.values():
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and _strings(pair[1])):
                return None
        out[name] = Observation(convention=name, follows=list(fields["follows"]), status=fields["status"],
                                values=fields["values"], probe=fields["probe"],
                                by_measure={m: (p[0], list(p[1])) for m, p in by_measure.items()})
    return out


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def per_claim(what: str, payload, claim_id: str) -> dict | None:
    """What the research sections kept for one claim, or None: ``what`` is "convention caveat" (a caveat's text and
    check, or why it was withdrawn), "departures" (``others``: reference → rule, or measure → rule), "sensitivity"
    (the claim's rows) or "recheck …" (the verdict of the claim re-run on an edited entry)."""
    found = payload.get("outcome") if isinstance(payload, dict) and set(payload) == {"outcome"} else None
    if not isinstance(found, dict):
        return None
    if what == "convention caveat":
        if set(found) == {"text", "check"} and all(isinstance(v, str) and v.strip() for v in found.values()):
            return found
        if set(found) == {"withdrawn"} and isinstance(found["withdrawn"], str) and found["withdrawn"].strip():
            return found
        return None
    if what == "sensitivity":
        from audit.model.results import SensitivityRow
        rows = found.get("rows")
        if set(found) != {"rows"} or not isinstance(rows, list) or not rows:
            return None
        for row in rows:
            try:
                model = SensitivityRow.model_validate(row)
            except Exception:
                return None
            if model.claim != claim_id or not _same(model, row):
                return None
        return found
    if what == "departures":
        others = found.get("others")
        if set(found) != {"others"} or not isinstance(others, dict) or not others:
            return None
        for rule in others.values():
            rules = rule.values() if isinstance(rule, dict) else [rule]
            if not rules or not all(isinstance(r, str) and r.strip() for r in rules):
                return None
        return found
    if what.startswith("recheck "):
        verdicts = ("supported", "qualified", "contradicted", "error")
        return found if set(found) == {"verdict"} and found["verdict"] in verdicts else None
    return None


# --- charts -----------------------------------------------------------------------------------------------------

_SVG, _XLINK = "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"
_RDF, _DC, _CC = ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://purl.org/dc/elements/1.1/",
                  "http://creativecommons.org/ns#")
_XML = "http://www.w3.org/XML/1998/namespace"
#: The elements matplotlib's SVG backend writes for line and scatter charts (no image, no foreignObject, no
#: script, no animation, no hyperlink).
_ELEMENTS = {f"{{{_SVG}}}{name}" for name in (
    "svg", "metadata", "defs", "style", "g", "path", "use", "rect", "text", "tspan", "clipPath", "title", "desc",
    "line", "polyline", "polygon", "circle", "ellipse", "linearGradient", "radialGradient", "stop", "pattern")}
_ELEMENTS |= {f"{{{_RDF}}}RDF", f"{{{_CC}}}Work", f"{{{_CC}}}Agent"} | {
    f"{{{_DC}}}{name}" for name in ("type", "format", "creator", "title", "date", "description")}
#: Their attributes (no event handler; links are checked below).
_ATTRIBUTES = {"width", "height", "viewBox", "version", "transform", "x", "y", "id", "d", "clip-path", "style",
               "type", "x1", "y1", "x2", "y2", "points", "cx", "cy", "r", "rx", "ry", "fill", "stroke",
               "stroke-width", "opacity", "font-size", "font-family", "font-weight", "font-style", "text-anchor",
               "dominant-baseline", "offset", "stop-color", "stop-opacity", "gradientUnits", "patternUnits",
               "preserveAspectRatio", "class", f"{{{_XLINK}}}href", f"{{{_RDF}}}resource", f"{{{_XML}}}space"}
_LOCAL_LINK = re.compile(r"#[A-Za-z0-9_.-]+\Z")
_LOCAL_URL = re.compile(r"url\(#[A-Za-z0-9_.-]+\)")
#: Style text: properties and values only (no escape, no at-rule, no tag, no entity).
_STYLE = re.compile(r"[A-Za-z0-9#.,:;%()\s'\"_*{}/+-]*\Z")


def svg(text) -> bool:
    """Whether ``text`` is a chart as this version draws it ('' or the SVG of ``audit.report.charts``): safe to put
    into a page as it is (see the module doc)."""
    if text == "":
        return True
    if not isinstance(text, str) or not text.startswith("<svg") or not text.rstrip().endswith("</svg>"):
        return False
    if "<!" in text or "<?" in text:  # no DOCTYPE, entity, CDATA section, comment or processing instruction
        return False
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError, RecursionError):
        return False
    for element in root.iter():
        if element.tag not in _ELEMENTS:
            return False
        for name, value in element.attrib.items():
            if name not in _ATTRIBUTES:
                return False
            if name == f"{{{_XLINK}}}href" and not _LOCAL_LINK.match(value):
                return False
            if name == f"{{{_RDF}}}resource" and not value.startswith("http://purl.org/dc/dcmitype/"):
                return False
            if name in ("style", "clip-path", "fill", "stroke") and not _style(value):
                return False
        if element.tag == f"{{{_SVG}}}style" and not _style(element.text or ""):
            return False
    return True


def _style(value: str) -> bool:
    if not _STYLE.match(value):
        return False
    lowered = value.lower()
    if "expression" in lowered or "javascript" in lowered or "behavior" in lowered:
        return False
    return lowered.count("url(") == len(_LOCAL_URL.findall(value))
