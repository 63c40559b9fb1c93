"""What changed between two audits of a chapter: the committed JSON report and a new run."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from audit.model.values import format_decimal

from audit.text.anchors import fold


@dataclass
class ReportDiff:
    """Claims added, removed, moved and edited; verdicts and values changed; the fingerprint."""

    chapter: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    moved: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    edited: list[tuple[str, str, str]] = field(default_factory=list)
    verdicts: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    values: list[tuple[str, str]] = field(default_factory=list)
    fingerprint: tuple[str, str] | None = None
    #: What the chapter's notebook now does otherwise: its status, a number a cell prints, its findings and stale
    #: outputs (a notebook run again after a module it imports changed prints another value).
    notebook: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.moved or self.edited or self.verdicts or self.values
                    or self.fingerprint or self.notebook)

    def lines(self) -> list[str]:
        """A short plain-text summary, one line per change."""
        if self.empty:
            return [f"{self.chapter}: no change since the previous report"]
        out = [f"{self.chapter}: changes since the previous report"]
        if self.fingerprint:
            out.append(f"  fingerprint {self.fingerprint[0][:12]}… → {self.fingerprint[1][:12]}… (the snapshot changed)")
        out += [f"  added    {cid}" for cid in self.added]
        out += [f"  removed  {cid}" for cid in self.removed]
        out += [f"  moved    {cid}: line {a} → {b}" for cid, a, b in self.moved]
        out += [f"  edited   {cid}: “{a}” → “{b}”" for cid, a, b in self.edited]
        out += [f"  verdict  {cid}: {a} → {b}\n           was: {ra}\n           now: {rb}"
                for cid, a, b, ra, rb in self.verdicts]
        out += [f"  values   {cid}: {what}" for cid, what in self.values]
        out += [f"  notebook {what}" for what in self.notebook]
        return out


#: An exact value longer than this is shown as a decimal: a fraction is only easier to read when it is short.
EXACT_CHARACTERS = 12


def shown(exact: str | None, value: float | None, status: str | None) -> str:
    """A value for a line of the summary: the exact fraction when it is short (``7/12``), else six decimals (nDCG's
    exact values run to 50 digits); the float, or the status, when there is no exact value."""
    if exact:
        try:
            x = Fraction(exact)
        except (ValueError, ZeroDivisionError):
            return exact
        return exact if len(exact) <= EXACT_CHARACTERS else format_decimal(x)
    return f"{value:.6f}" if value is not None else str(status)


def _values(claim: dict) -> dict[tuple[str, str], str]:
    out = {}
    for check in claim.get("checks", []):
        for v in check.get("values", []):
            shown_value = shown(v.get("exact"), v.get("value"), v.get("status"))
            if v.get("per_query", {}).get("left") is not None:
                shown_value = f"{v['per_query']['left']}→{v['per_query']['right']}"
            out[(check.get("measure") or check.get("label", ""), v["implementation"])] = str(shown_value)
    return out


def diff_reports(old: dict, new: dict) -> ReportDiff:
    """Compare two JSON reports (dicts) of the same chapter."""
    result = ReportDiff(chapter=str(new.get("chapter", {}).get("id", "?")))
    before = {c["id"]: c for c in old.get("claims", [])}
    after = {c["id"]: c for c in new.get("claims", [])}
    result.added = [cid for cid in after if cid not in before]
    result.removed = [cid for cid in before if cid not in after]
    for cid in (c for c in after if c in before):
        a, b = before[cid], after[cid]
        a_text = a.get("found_text") or a.get("quote")
        b_text = b.get("found_text") or b.get("quote")
        if b.get("anchor_state") == "edited" or fold(a_text) != fold(b_text):
            result.edited.append((cid, a_text, b_text))
        elif a.get("line") != b.get("line") and a.get("line") is not None and b.get("line") is not None:
            result.moved.append((cid, a.get("line"), b.get("line")))  # a lost anchor is no move: its verdict says stale
        if a.get("verdict") != b.get("verdict"):
            result.verdicts.append((cid, a["verdict"], b["verdict"], a.get("reason", ""), b.get("reason", "")))
        va, vb = _values(a), _values(b)
        changed = [f"{key[0]} {key[1]}: {va.get(key, '—')} → {vb.get(key, '—')}"
                   for key in sorted(set(va) | set(vb)) if va.get(key) != vb.get(key)]
        if changed:
            result.values.append((cid, "; ".join(changed[:4]) + (f"; and {len(changed) - 4} more"
                                                                if len(changed) > 4 else "")))
    result.notebook = _notebook_changes(old.get("notebook"), new.get("notebook"))
    fa = old.get("fingerprint", {}).get("computed")
    fb = new.get("fingerprint", {}).get("computed")
    if fa and fb and fa != fb:
        result.fingerprint = (fa, fb)
    return result


def _listed(items: list[str], what: str) -> list[str]:
    """At most three texts, then how many more."""
    return [f"{what}: {text}" for text in items[:3]] + ([f"{what}: and {len(items) - 3} more"] if len(items) > 3 else [])


def _notebook_changes(old: dict | None, new: dict | None) -> list[str]:
    """One line per change of the report's notebook section: the notebook added or dropped, its status, each number a
    cell prints (by cell and label), findings and stale outputs gained or lost."""
    if not old and not new:
        return []
    if not old or not new:
        return [f"{(new or old).get('path', '')}: {'now run' if new else 'no longer run'}"
                + (f" ({new.get('status')})" if new else "")]
    out = []
    if old.get("path") != new.get("path"):
        out.append(f"{old.get('path')} → {new.get('path')}")
    if old.get("status") != new.get("status"):
        out.append(f"status {old.get('status')} → {new.get('status')}")

    def numbers(section: dict) -> dict[tuple, str]:
        return {(n.get("cell"), n.get("label")): str(n.get("value")) for n in section.get("numbers") or []}

    na, nb = numbers(old), numbers(new)
    for key in sorted(set(na) | set(nb), key=lambda k: (k[0] or 0, str(k[1]))):
        if na.get(key) != nb.get(key):
            out.append(f"cell {key[0]} {key[1]}: {na.get(key, '—')} → {nb.get(key, '—')}")
    def texts(section: dict, name: str) -> list[str]:
        return [f.get("text", "") if isinstance(f, dict) else str(f) for f in section.get(name) or []]

    for name, what in (("findings", "finding"), ("stale", "stale output")):
        before, after = texts(old, name), texts(new, name)
        out += _listed([t for t in after if t not in before], f"new {what}")
        out += _listed([t for t in before if t not in after], f"{what} gone")
    return out
