"""Composing the findings' changes to one sentence into one hunk: each change made once, words added at one place
joined, the new sentence re-checked with every claim quoting it; changes that need different words in one place, a
new text that would change the chapter's Markdown structure, or a failed joint re-check withdraw the sentence's
hunk."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from audit.attribution.verdict import decide
from audit.errors import AuditError
from audit.evaluation.checks import CHECKERS
from audit.evaluation.checks.common import Measurements
from audit.register.claims import Chapter
from audit.model.results import Proposal
from audit.research.register_edit import Edit, RegisterEditError, set_field
from audit.text.chapter import common_ends
from audit.text.markdown import changed_structure
from audit.research.sentence_words import at_stake


@dataclass(frozen=True)
class Change:
    """One finding's change to the snapshot: ``text`` replaces ``a:b`` (an insertion when ``a == b``); ``qs:qe``
    is the claim's quote with its own change (a caveat after the sentence included); ``more``: a further span of the
    same finding (a value printed after a call)."""

    claim: str
    plan: dict
    a: int
    b: int
    text: str
    qs: int
    qe: int
    more: bool = False


@dataclass
class _Group:
    """The composed change to one sentence: ``text`` replaces ``start:end``; the rest is the hunk's."""

    start: int
    end: int
    text: str
    claims: list[str]
    action: str
    replaced: str
    shown: str
    rationale: str
    tradeoff: str
    check: str
    conventions: list[str]
    register_edits: list[dict]
    response: str


def _word(ch: str) -> bool:
    return ch.isalnum() or ch in "._%@"


def minimal(text: str, a: int, b: int, new: str) -> tuple[int, int, str]:
    """The replacement of ``text[a:b]`` by ``new`` narrowed to the words it changes (whole words, so that two
    changes to one number are seen to meet), for composing it with other changes of the same sentence."""
    old = text[a:b]
    p, q = common_ends(old, new)
    while p > 0 and _word(old[p - 1]):
        p -= 1
    while q > 0 and _word(old[len(old) - q]):
        q -= 1
    return a + p, b - q, new[p:len(new) - q]


_HERE = re.compile(r"^ \(here (.*)\)$", re.DOTALL)


def _merge_insertions(texts: list[str]) -> str:
    """Several words added at one place, each once: "(here …)" statements joined in one parenthesis."""
    texts = list(dict.fromkeys(texts))
    if len(texts) > 1 and all(_HERE.match(t) for t in texts):
        return " (here " + "; ".join(_HERE.match(t).group(1) for t in texts) + ")"
    return "".join(texts)


_RANK = {"contradicted": 0, "qualified": 1, "supported": 2}


def compose(planned: list[Change], located: dict, chapter: Chapter, ms: Measurements, claims: dict, rechecks,
            proposal: Proposal, markdown: bool) -> list[_Group]:
    """The findings' changes composed per sentence: the changes of every claim quoting one sentence made at once
    (identical ones once, words added at one place joined), the new sentence checked for the chapter's structure
    (parsed before and after) and re-checked with every claim that quotes it, each claim re-run with its register
    entry following the new sentence. A group whose changes collide, whose new text would change the structure or
    whose joint re-check fails is withdrawn, each claim with the reason."""
    snapshot = chapter.snapshot.text
    changes = []
    for c in planned:
        if c.a < c.b and not c.more and c.plan.get("action") != "correct a listing":
            a, b, t = minimal(snapshot, c.a, c.b, c.text)
            c = Change(c.claim, c.plan, a, b, t, c.qs, c.qe)
        changes.append(c)
    clusters: list[list[Change]] = []
    hi = -1
    for c in sorted(changes, key=lambda c: (min(c.qs, c.a), c.a, c.claim)):
        lo = min(c.qs, c.a)
        if clusters and lo < hi:
            clusters[-1].append(c)
            hi = max(hi, c.qe, c.b)
        else:
            clusters.append([c])
            hi = max(c.qe, c.b)
    out: list[_Group] = []
    for members in clusters:
        group = _compose_one(members, located, chapter, ms, claims, rechecks, proposal, markdown, snapshot)
        if group is not None:
            out.append(group)
    return out


def _merge_alike(edits: list[tuple[int, int, str, list[str]]], snapshot: str) -> list[tuple[int, int, str, list[str]]]:
    """Overlapping edits that write the same words over the span they cover together ("≈ 0.492" → "≈ 0.472" for the
    arithmetic, "0.492." → "0.472." for the measure quoting the sentence's end) as one edit of that span."""
    out: list[tuple[int, int, str, list[str]]] = []
    for a2, b2, t2, i2 in edits:
        if out:
            a1, b1, t1, i1 = out[-1]
            if a1 < b1 and a2 < b2 and a2 < b1:
                lo, hi = min(a1, a2), max(b1, b2)
                one = snapshot[lo:a1] + t1 + snapshot[b1:hi]
                two = snapshot[lo:a2] + t2 + snapshot[b2:hi]
                if one == two:
                    out[-1] = (lo, hi, one, i1 + i2)
                    continue
        out.append((a2, b2, t2, i2))
    return out


def _withdraw(proposal: Proposal, ids, reason: str) -> None:
    for cid in dict.fromkeys(ids):
        if not any(w["claim"] == cid for w in proposal.withdrawn):
            proposal.withdrawn.append({"claim": cid, "reason": reason})


def _compose_one(members: list[Change], located: dict, chapter: Chapter, ms: Measurements, claims: dict, rechecks,
                 proposal: Proposal, markdown: bool, snapshot: str) -> _Group | None:
    while True:   # collisions: two claims wanting different words in one place cannot both be written
        spots: dict[tuple[int, int], dict[str, list[str]]] = {}
        for m in members:
            spots.setdefault((m.a, m.b), {}).setdefault(m.text, []).append(m.claim)
        edits: list[tuple[int, int, str, list[str]]] = []
        clash = None
        for (a, b), texts in sorted(spots.items()):
            ids = [cid for ids in texts.values() for cid in ids]
            if a < b and len(texts) > 1:
                clash = (ids, f"the claims quoting this sentence need different words in place of “{snapshot[a:b]}” ("
                              + "; ".join(f"{', '.join(dict.fromkeys(i))}: “{t}”" for t, i in texts.items()) + ")")
                break
            edits.append((a, b, _merge_insertions(list(texts)) if a == b else next(iter(texts)), ids))
        if clash is None:
            edits = _merge_alike(edits, snapshot)
            for (a1, b1, _, i1), (a2, b2, _, i2) in zip(edits, edits[1:]):
                if a2 < b1 or (a1 < a2 < b1):
                    clash = (i1 + i2, f"the changes for {', '.join(dict.fromkeys(i1))} and "
                                      f"{', '.join(dict.fromkeys(i2))} overlap in “{snapshot[a1:max(b1, b2)]}”")
                    break
        if clash is None:
            break
        ids, why = clash
        _withdraw(proposal, ids, why + "; no one sentence holds them all, so the author words it (each finding "
                                     "gives its value)")
        members = [m for m in members if m.claim not in ids]
        if not members:
            return None
    # the hunk holds the sentence: every finding's quote with its change, so the lines shown are the whole sentence
    start = min([e[0] for e in edits] + [m.qs for m in members if not m.more])
    end = max([e[1] for e in edits] + [m.qe for m in members if not m.more])
    text = snapshot[start:end]
    for a, b, t, _ in sorted(edits, reverse=True):
        text = text[:a - start] + t + text[b - start:]
    after = snapshot[:start] + text + snapshot[end:]
    plan_ids = list(dict.fromkeys(m.claim for m in members))
    if markdown:
        first, last = snapshot.count("\n", 0, start), snapshot.count("\n", 0, end)
        broken = changed_structure(snapshot, after, (first, last), text.count("\n") - snapshot[start:end].count("\n"))
        if broken:
            _withdraw(proposal, plan_ids, f"the new text would change the chapter's structure outside the sentence "
                                          f"({broken}); the finding says what to change")
            return None

    left, right = _sentence_bounds(snapshot, start, end)
    # a listing's rewrite is code, checked by running it: the words at stake are those of prose
    stake = "" if any(claims[cid].kind == "code" for cid in plan_ids) else at_stake(
        snapshot[left:right], snapshot[left:start] + text + snapshot[end:right],
        [(snapshot[a:b], t) for a, b, t, _ in edits])
    if stake:
        _withdraw(proposal, plan_ids, f"{stake}; the finding gives the value, and the author words the sentence")
        return None

    def moved(p: int, own: str | None, end_side: bool) -> int:
        """Offset ``p`` of the snapshot in ``after``: words added at ``p`` come before it, unless ``p`` ends a
        quote whose own claim added them there."""
        shift = 0
        for a, b, t, ids in edits:
            if b < p or (a < p and b <= p) or (a == b == p and end_side and own in ids):
                shift += len(t) - (b - a)
        return p + shift

    spans = {}
    for m in members:
        if not m.more:
            s0, e0 = spans.get(m.claim, (m.qs, m.qe))
            spans[m.claim] = (min(s0, m.qs), max(e0, m.qe))
    others = [cid for cid, (s0, e0, verdict) in located.items() if cid not in spans and verdict in _RANK
              and claims[cid].kind != "code"
              and any((s0 < b and a < e0) if a < b else s0 < a < e0 for a, b, _, _ in edits)]
    for cid in others:
        spans[cid] = located[cid][:2]
    register: dict[tuple[str, str], Edit] = {}
    for m in members:
        for e in m.plan["edits"]:
            register[(e.claim, e.field)] = e
    quotes = {}
    for cid, (s0, e0) in spans.items():
        if any(m.more for m in members if m.claim == cid) and not any(not m.more for m in members if m.claim == cid):
            continue
        if claims[cid].kind == "code":
            continue   # a listing's quote is its signature line, which its own plan rewrites
        q = after[moved(s0, None, False):moved(e0, cid, True)]
        quotes[cid] = q if "\n" in claims[cid].quote else q.replace("\n", " ")
        if cid in plan_ids or quotes[cid] != claims[cid].quote:
            register[(cid, "quote")] = Edit(cid, "quote", quotes[cid])
    _rederive_records(register, claims, snapshot, after, edits, moved)
    joint = len(plan_ids) > 1 or bool(others)
    verdicts: dict[str, str] = {}
    if joint:
        import dataclasses
        trial = dataclasses.replace(chapter, snapshot=dataclasses.replace(chapter.snapshot, text=after))
        for cid in [*plan_ids, *others]:
            if cid not in quotes:
                continue
            own = [e for (c, _), e in register.items() if c == cid]
            try:
                verdicts[cid] = _recheck_joint(claims[cid], own, trial, ms, rechecks, after[start:end])
            except (AuditError, RegisterEditError, ValueError) as exc:
                verdicts[cid] = f"error ({getattr(exc, 'message', exc)})"
        failed = []
        for cid, verdict in verdicts.items():
            if cid in plan_ids:
                actions = {m.plan["action"] for m in members if m.claim == cid}
                settled = {m.plan.get("settled") for m in members if m.claim == cid}
                ok = verdict == "supported" or (verdict == "qualified" and (actions == {"state a convention"}
                                                                            or settled == {"qualified"}))
            else:   # a claim quoting the changed words: the new sentence must hold for it too
                ok = _RANK.get(verdict, -1) >= max(_RANK[located[cid][2]], _RANK["qualified"])
            if not ok:
                failed.append(f"{cid} is {verdict}" + ("" if cid in plan_ids else f" (it quotes the changed words; "
                                                          f"it was {located[cid][2]})"))
        if failed:
            _withdraw(proposal, plan_ids, "the changes for " + ", ".join(plan_ids) + " made at once, and every claim "
                      "quoting the sentence re-run on the new text: " + "; ".join(failed)
                      + "; the sentence must be worded by the author (each finding gives its value)")
            return None
    plans = [m.plan for m in members if not m.more] or [members[0].plan]
    first_plan = plans[0]
    checks = list(dict.fromkeys(p["check"] for p in plans))
    if len(plan_ids) == 1:
        p = first_plan
        check = p["check"] + (("; every other claim quoting the sentence re-run on the new text keeps its verdict ("
                               + ", ".join(f"{c} {verdicts[c]}" for c in others if c in verdicts) + ")")
                              if others else "")
        shown = p["text"].strip() if not members[0].more else members[0].text.strip()
        replaced = p["replaced"]
        if any(m.more for m in members):
            replaced, shown = members[0].plan["replaced"], members[0].text.strip()
        response = (f"{p['response'].rstrip('.')} ({check.replace('re-checked: ', 'checked: ', 1)})."
                    + p.get("then", ""))
        action, rationale, tradeoff = p["action"], p["rationale"], p["tradeoff"]
    else:
        s0 = min(spans[c][0] for c in plan_ids)
        e0 = max(spans[c][1] for c in plan_ids)
        replaced = snapshot[s0:e0]
        shown = " ".join(after[moved(s0, None, False):moved(e0, plan_ids[-1], True)].split())
        check = ("re-checked together: the changes for " + ", ".join(plan_ids) + " made at once in one sentence, and "
                 "every claim quoting it re-run on the new text (" + ", ".join(f"{c} {v}" for c, v in verdicts.items())
                 + "); " + "; ".join(c.replace("re-checked: ", "", 1) for c in checks))
        action = " and ".join(dict.fromkeys(p["action"] for p in plans))
        rationale = " ".join(dict.fromkeys(p["rationale"] for p in plans))
        tradeoff = " ".join(dict.fromkeys(p["tradeoff"] for p in plans))
        response = ("One change to the sentence for " + ", ".join(plan_ids) + ": "
                    + "; ".join(dict.fromkeys(_lower_first(p["response"].rstrip(".")) for p in plans))
                    + f", so that it reads “{shown}” ({check.replace('re-checked together: ', 'checked: ', 1)})."
                    + "".join(dict.fromkeys(p.get("then", "") for p in plans)))
    conventions = list(dict.fromkeys(n for p in plans for n in p.get("conventions", [])))
    return _Group(start, end, text, plan_ids, action, replaced, shown, rationale, tradeoff, check, conventions,
                  [e.as_dict() for e in register.values()], response)


def _sentence_bounds(text: str, a: int, b: int) -> tuple[int, int]:
    """The sentence of ``text`` around ``text[a:b]``: from the end of the sentence or paragraph before it to the end
    of its own."""
    left = max([0] + [i + len(sep) for sep in (". ", "? ", "! ", "\n\n") if (i := text.rfind(sep, 0, a)) >= 0])
    right = min([len(text)] + [i + 1 for sep in (". ", "? ", "! ", ".\n", "\n\n") if (i := text.find(sep, b)) >= 0])
    return left, right


def _rederive_records(register: dict, claims: dict, snapshot: str, after: str, edits, moved) -> None:
    """The ``derived:`` record of each claim init drafted that the patch edits, brought to the patched sentence: its
    sentence as the patch prints it, and the fingerprints of the fields init wrote as the patch writes them (a field
    the author wrote stays the author's). The patch is the tool's edit: on the rerun the claim is read as the patch
    left it, not derived again from a sentence the patch changed."""
    from audit.register.derived import field_print, fields_of, hand_written
    for cid in dict.fromkeys(c for c, _ in list(register)):
        claim = claims.get(cid)
        record = getattr(claim, "derived", None)
        if record is None:
            continue
        x = snapshot.find(record.sentence)
        y = x + len(record.sentence)
        if x < 0 or not any((x < b and a < y) if a < b else x <= a <= y for a, b, _, _ in edits):
            continue
        data = claim.model_dump(mode="json", exclude_unset=True)
        try:
            for (c, _), e in list(register.items()):
                if c == cid:
                    set_field(data, e)
            new = type(claim).model_validate(data)
        except (RegisterEditError, ValueError):
            continue
        hand = set(hand_written(claim))
        fields = {name: value for name, value in record.fields.items() if name in hand}
        fields.update({name: field_print(value) for name, value in fields_of(new).items() if name not in hand})
        register[(cid, "derived")] = Edit(cid, "derived", {"sentence": after[moved(x, None, False):moved(y, cid, True)],
                                                          "fields": fields})


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:1].isupper() and text[1:2].islower() else text


def _recheck_joint(claim, edits: list[Edit], trial: Chapter, ms: Measurements, store, sentence: str) -> str:
    """The verdict of ``claim`` with ``edits`` made to its register entry, run on ``trial`` (the chapter with the
    composed sentence), kept in ``store`` under the edits and the sentence."""
    what = "recheck joint " + json.dumps([sentence, [e.as_dict() for e in edits]], sort_keys=True, ensure_ascii=False)
    stored = store.get(claim.id, what) if store is not None else None
    if stored is not None and stored.get("verdict") in ("supported", "qualified", "contradicted", "error"):
        return stored["verdict"]
    data = claim.model_dump(mode="json", exclude_unset=True)
    for e in edits:
        set_field(data, e)
    new = type(claim).model_validate(data)
    verdict = decide(CHECKERS[new.kind](new, trial, ms)).verdict
    if store is not None:
        store.put(claim.id, what, {"verdict": verdict})
    return verdict
