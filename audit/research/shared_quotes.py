"""Claims that quote a sentence a hunk changes, brought along with it: each claim's quote, claim text and printed
values follow every change made in the sentence, in hunk order (a claim text printing its siblings' numbers follows
theirs too), so the register the proposal writes still quotes the patched manuscript."""

from __future__ import annotations

import re

from audit.register.claims import Chapter
from audit.model.results import Proposal
from audit.research.register_edit import Edit
from audit.research.rewrite import replace_once
from audit.research.compose import minimal


def _core(old: str, new: str) -> tuple[str, str] | None:
    """The words a change replaces and writes (``minimal``: "IDCG@3 = 4.50" → "IDCG@3 = 4.26" is "4.50" → "4.26");
    None when nothing is replaced."""
    a, b, written = minimal(old, 0, len(old), new)
    core_old, core_new = old[a:b].strip(), written.strip()
    return (core_old, core_new) if core_old and core_old != core_new and len(core_old) <= 40 else None


def shared_words(proposal: Proposal, chapter: Chapter) -> None:
    """Every claim quoting a sentence a hunk changes: its title and claim text follow each number or word the hunks
    change in that sentence, in the order the patch applies them, not its own alone — a claim text printing its
    siblings' numbers ("IDCG@3 = 4.50, DCG@3 = 4.26 and nDCG@3 = 0.95") follows them all — where it prints the old
    one once."""
    original = {c.id: c for c in chapter.register.claims}
    running: dict[tuple[str, str], str] = {}
    for h in proposal.hunks:
        core = _core(h.replaced, h.text)
        if core is None:
            continue
        old, new = core
        own = {(e["claim"], e["field"]): e for e in h.register_edits if e["field"] in ("title", "claim")}
        quoting = [c for c in original.values() if c.id in (h.claim, *h.claims)
                   or (c.quote and " ".join(c.quote.split()) in " ".join(h.old.split()))]
        for c in quoting:
            for name in ("title", "claim"):
                key = (c.id, name)
                first = getattr(c, name, "") or ""
                base = running.get(key, first)
                moved = replace_once(base, old, new)
                if key in own:
                    if base != first and own[key]["value"] == replace_once(first, old, new) and moved is not None:
                        own[key]["value"] = moved   # the own edit, made on the text the earlier hunks left
                    running[key] = own[key]["value"]
                elif moved is not None and moved != base:
                    h.register_edits.append({"claim": c.id, "field": name, "value": moved})
                    running[key] = moved


def shared_quotes(proposal: Proposal, chapter: Chapter) -> None:
    """Every claim whose quote holds the text a hunk changes (the hunk's own claim too, when its plan left the quote
    as it was) gets its quote edited with the same change, in that hunk's register edits ("Rejected 16 6 Whole
    cohort 43 8" is C39's quote as well as C40's: correcting C40's 8 to 7 changes C39's quote too), so no claim is
    left quoting a sentence the patch rewrote. A quote is found as the anchors find it, a line break in the text
    matching its space (and written back as a space). A quote the change only partly overlaps is left for the rerun
    to report (edited)."""
    quotes = {c.id: c.quote for c in chapter.register.claims}
    for h in proposal.hunks:
        for e in h.register_edits:
            if e["field"] == "quote":
                quotes[e["claim"]] = e["value"]
        old, new = h.old, h.new
        p = 0
        while p < min(len(old), len(new)) and old[p] == new[p]:
            p += 1
        q = 0
        while q < min(len(old), len(new)) - p and old[-1 - q] == new[-1 - q]:
            q += 1
        a, b = p, len(old) - q            # the changed span of the old line
        own = any(e["field"] == "quote" and e["claim"] == h.claim for e in h.register_edits)
        for cid, quote in quotes.items():
            if (cid == h.claim and own) or not quote.split():
                continue
            pattern = re.compile(r"\s+".join(map(re.escape, quote.split())))
            if pattern.search(new):
                continue
            spots = list(pattern.finditer(old))
            if len(spots) != 1 or not (spots[0].start() <= a and b <= spots[0].end()):
                continue
            i, j = spots[0].span()
            changed = new[i:j + len(new) - len(old)].replace("\n", " ")
            h.register_edits.append(Edit(cid, "quote", changed).as_dict())
            quotes[cid] = changed
