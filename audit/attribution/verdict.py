"""Verdict rules (DESIGN.md "Verdicts"): evidence → supported / qualified / contradicted, or stale / error.

Checkers gather evidence; this module alone turns it into a verdict, a reason, a
concern, a proposed response and a priority.
"""

from __future__ import annotations

from dataclasses import dataclass

from audit.model.evidence import Evidence, Point

PRIORITY = {"contradicted": "high", "stale": "high", "error": "high", "qualified": "medium",
            "supported": "none", "pending": "low", "not checkable": "none"}


@dataclass(frozen=True)
class Decision:
    verdict: str
    reason: str
    concern: str
    response: str
    priority: str


def _join(points: list[Point]) -> str:
    """Points as sentences: each ends with a full stop, each after the first starts upper-case."""
    texts = [p.text.rstrip(".") + "." for p in points]
    return " ".join(t if i == 0 else _upper_first(t) for i, t in enumerate(texts))


def _upper_first(text: str) -> str:
    """Upper-case the first letter unless the first word is a name that keeps its case (nDCG@3, ranx,
    trec_eval, ir-measures, pytrec_eval, a listing's function: rbp())."""
    first = text.split(" ", 1)[0]
    if any(ch in first for ch in "@_-(`") or (len(first) > 1 and first[1:2].isupper()) or first in ("ranx",):
        return text
    return text[:1].upper() + text[1:]


def _wording(points: list[Point], fallback: str) -> str:
    changes = list(dict.fromkeys(p.wording for p in points if p.wording))  # one sentence once, however many say it
    return " ".join(changes) if changes else fallback


def _error_concern(kinds: set[str]) -> str:
    """What an error means for the reader, by what failed: only a reference's failure is called one."""
    if "register" in kinds:
        return ("The register does not encode what the text says as written, so the statement was not checked: the "
                "mistake is in the claim, not in the chapter or a reference.")
    if "reference" in kinds:
        return "A reference failed, so agreement across implementations is not established."
    if kinds == {"undecided"}:
        return "The check cannot decide the printed value at its precision, so the statement is unverified."
    return "The claim could not be checked, so the statement is unverified."


def decide(evidence: Evidence) -> Decision:
    """Apply the verdict rules in order: error, contradicted, qualified, supported."""
    if evidence.errors:
        others = ""
        if evidence.failures:
            others = " The implementations that did run contradict the claim: " + _join(evidence.failures)
        elif evidence.conditions:
            others = " The implementations that did run qualify it: " + _join(evidence.conditions)
        kinds = evidence.error_kinds
        register = "register" in kinds
        return Decision("error", "Could not be fully checked: " + "; ".join(evidence.errors) + "." + others,
                        evidence.error_concern
                        # a checker that says what to do about its error says what it means too
                        or (evidence.concern if evidence.response and evidence.concern else "")
                        or _error_concern(kinds),
                        evidence.response
                        or (" ".join(f.rstrip(".") + "." for f in evidence.fixes) + " Then rerun the audit."
                            if register and evidence.fixes else "")
                        + (" A reference failed as well: investigate its failure (see the values below)."
                           if register and evidence.fixes and "reference" in kinds and not evidence.response else "")
                        or ("Investigate the failure (see the values below), then rerun the audit."
                            if "reference" in kinds else
                            "The value sits within the check's precision of a bound: print it with one digit fewer, "
                            "or give the claim a tolerance, then rerun the audit." if kinds == {"undecided"} else
                            "Fix what the reason names, then rerun the audit."),
                        PRIORITY["error"])
    if evidence.failures:
        extra = (" Also: " + "; ".join(evidence.notes) + ".") if evidence.notes else ""
        reason = _join(evidence.failures) + extra
        return Decision("contradicted", _upper_first(reason),
                        evidence.concern or
                        "Readers who apply the chapter's own definition get a different result than the text states.",
                        _wording(evidence.failures, "Correct the statement to match the computed value."),
                        PRIORITY["contradicted"])
    if evidence.conditions:
        return Decision("qualified",
                        (evidence.lead + _lower_first(_join(evidence.conditions))) if evidence.lead
                        else _upper_first(_join(evidence.conditions)),
                        evidence.concern or "A reader who reproduces this with another implementation, or under the "
                        "unstated condition, gets a different answer.",
                        _wording(evidence.conditions, "Name the condition in the text."),
                        PRIORITY["qualified"])
    scope = evidence.scope or ("; ".join(dict.fromkeys(evidence.scopes)) + "." if evidence.scopes else "")
    scope = _upper_first(scope)
    if scope and evidence.notes:   # a reference that differs only where the text says so, and why
        scope = scope.rstrip(".") + ". Also: " + "; ".join(dict.fromkeys(evidence.notes)) + "."
    return Decision("supported", scope or "The chapter's definition and every applicable reference agree.",
                    "No concern.", "Keep as written.", PRIORITY["supported"])


def stale(quote: str, note: str = "") -> Decision:
    """The quote is not in this revision (or matches two places equally): never verified silently."""
    from audit.text.anchors import UNSEEN
    lead = ("The quoted sentence is not in the text a reader sees" if note.startswith(UNSEEN) else
            "The quoted sentence was not found in the snapshot")
    return Decision("stale", lead + ", so the claim was not checked against this revision"
                    + (f" ({note})" if note else "") + ".",
                    "The register no longer matches the chapter.",
                    "Update the claim's quote to the current wording (or remove the claim if the sentence is gone), "
                    "then rerun.", PRIORITY["stale"])


def not_checkable(reason: str) -> Decision:
    return Decision("not checkable", reason, "None; kept in the register so coverage stays visible.",
                    "No change needed.", PRIORITY["not checkable"])


def _lower_first(text: str) -> str:  # noqa: D103
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def pending(kind: str) -> Decision:
    """A claim whose kind has no checker in this version (or a draft): shown, never silently skipped."""
    if kind == "draft":
        return Decision("pending", "A draft from the numeric scan: it has a quote but no encoding yet, so nothing "
                        "was verified.", "Unverified until encoded.",
                        "Encode the claim (kind, fixture, expected values) in claims.yaml.", PRIORITY["pending"])
    return Decision("pending", f"Registered as a {kind} claim; the {kind} checker is not available in this version, "
                    "so nothing was verified.", "Unverified until the checker exists.",
                    "No change to the chapter yet; rerun when the checker is available.", PRIORITY["pending"])
