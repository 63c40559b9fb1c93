"""The labelled measures corpus (``tests/corpus/measures``): eight texts (four held out), their hand-encoded
registers and the right verdict of every statement (``labels.yaml``, computed by ``compute_labels.py`` with the
libraries called directly and by hand). Scores the audit's verdicts against the labels; shared by the tests and
``benchmarks/bench_corpus.py``.

Figures, per statement:
- *encodable*: the statement has a claim in its text's register (``claim`` not null) that is not ``not checkable``;
- *unedited*: ``audit init`` on the bare snapshot writes a runnable claim on the statement's quote whose verdict is
  the labelled one;
- *agreement*: of the encodable statements, those whose claim's verdict is the labelled one;
- *wrong supported* / *wrong contradicted*: an encodable statement the audit calls supported (contradicted) that is
  labelled otherwise;
- init alone (``Figures.init_line``), over every labelled statement: *found*, some claim of init's draft (a draft
  too) quotes text overlapping the statement; *runnable and right*, init's runnable claims on it give the labelled
  verdict; *wrong*, they give another.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent / "corpus" / "measures"
VERDICTS = ("supported", "qualified", "contradicted")
_ORDER = {"contradicted": 0, "error": 0, "stale": 0, "qualified": 1, "supported": 2}


@dataclass
class Statement:
    text: str
    quote: str
    claim: str | None
    kind: str
    verdict: str
    held_out: bool
    audit: str | None = None       # the register claim's verdict
    init: str | None = None        # the verdict of init's runnable claim on the quote, if any
    found: bool = False            # some claim of init's draft (a draft too) quotes text overlapping the statement
    said: str = ""                 # what the report says of the register claim: its reason, response and checks

    @property
    def encodable(self) -> bool:
        return self.claim is not None and self.kind != "not checkable"

    @property
    def family(self) -> str:
        return self.kind


@dataclass
class Figures:
    statements: list[Statement] = field(default_factory=list)

    def line(self, name: str, held_out: bool = True) -> str:
        s = self.statements
        n = len(s)
        enc = [x for x in s if x.encodable]
        right = [x for x in enc if x.audit == x.verdict]
        pct = (lambda a, b: f"{100 * a / b:.0f}%" if b else "n/a")
        out = (f"{name}: {n} statements, encodable {pct(len(enc), n)}, "
               f"unedited {pct(sum(1 for x in s if x.init == x.verdict), n)}, agreement {pct(len(right), len(enc))}")
        if held_out:
            held = [x for x in enc if x.held_out]
            out += f", held-out agreement {pct(sum(1 for x in held if x.audit == x.verdict), len(held))}"
        return out + (f", wrong supported {sum(1 for x in enc if x.audit == 'supported' and x.verdict != 'supported')}"
                      f", wrong contradicted {sum(1 for x in enc if x.audit == 'contradicted' and x.verdict != 'contradicted')}")

    def brief(self, name: str) -> str:
        """``name: N statements, agreement A%, wrong supported S, wrong contradicted C`` (the listings' line)."""
        enc = [x for x in self.statements if x.encodable]
        right = sum(1 for x in enc if x.audit == x.verdict)
        return (f"{name}: {len(self.statements)} statements, agreement "
                + (f"{100 * right / len(enc):.0f}%" if enc else "n/a")
                + f", wrong supported {sum(1 for x in enc if x.audit == 'supported' and x.verdict != 'supported')}"
                  f", wrong contradicted {sum(1 for x in enc if x.audit == 'contradicted' and x.verdict != 'contradicted')}")

    def init_line(self) -> str:
        """``init: N statements, found F%, runnable and right R%, wrong W``: init's draft alone, unedited."""
        s = self.statements
        pct = (lambda a, b: f"{100 * a / b:.0f}%" if b else "n/a")
        return (f"init: {len(s)} statements, found {pct(sum(x.found for x in s), len(s))}, runnable and right "
                f"{pct(sum(1 for x in s if x.init == x.verdict), len(s))}, "
                f"wrong {sum(1 for x in s if x.init is not None and x.init != x.verdict)}")

    def wrong(self) -> list[Statement]:
        return [x for x in self.statements if x.encodable and x.audit != x.verdict]


def auditable(folder: Path) -> bool:
    """Whether this installation can audit the corpus text in ``folder``: every package its chapter.yaml names in
    ``environment:`` is importable in the listing sandbox. scikit-learn is an optional extra
    (``pip install '.[sklearn]'``, as the Quick start and CI install it); without it the text that calls it is a
    load error, which is the audit's right answer, so tests that audit the corpus leave that text out."""
    from audit.evaluation.sandbox.environment import importable
    data = yaml.safe_load((folder / "chapter.yaml").read_text(encoding="utf-8")) or {}
    return all(importable(name) for name in data.get("environment") or [])


def load() -> list[dict]:
    """The texts of ``labels.yaml``; raises ``ValueError`` when a quote is not in its snapshot exactly once."""
    data = yaml.safe_load((CORPUS / "labels.yaml").read_text(encoding="utf-8"))
    for text in data["texts"]:
        snapshot = (CORPUS / text["file"]).read_text(encoding="utf-8")
        for s in text["statements"]:
            if snapshot.count(s["quote"]) != 1:
                raise ValueError(f"{text['file']}: quote {s['quote']!r} occurs {snapshot.count(s['quote'])} times")
    return data["texts"]


def score(texts: list[dict] | None = None, *, init: bool = True, references=None,
          progress=lambda message: None) -> dict[str, Figures]:
    """Audit each text's register (and, with ``init``, ``audit init``'s draft of its snapshot) and score the
    verdicts against the labels. Returns ``{text id: Figures}``."""
    from audit.errors import AuditError
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect

    references = references if references is not None else all_references()
    out: dict[str, Figures] = {}
    for text in texts if texts is not None else load():
        progress(f"auditing {text['id']}")
        folder = CORPUS / text["id"]
        try:
            report = audit_chapter(load_chapter(folder), references, collect([]))
            verdicts = {c.id: c.verdict for c in report.claims}
            said = {c.id: _said(c) for c in report.claims}
        except AuditError as exc:  # a register that does not load: every statement of the text is an error
            progress(f"{text['id']}: {exc.message}")
            verdicts = {s["claim"]: "error" for s in text["statements"] if s.get("claim")}
            said = {s["claim"]: exc.message for s in text["statements"] if s.get("claim")}
        drafted: list[tuple[str, str]] = []
        quoted: list[str] = []
        snapshot = (CORPUS / text["file"]).read_text(encoding="utf-8")
        if init:
            drafted, quoted = init_draft(snapshot, references)
        figures = Figures()
        for s in text["statements"]:
            st = Statement(text["id"], s["quote"], s.get("claim"), s["kind"], s["verdict"], bool(text.get("held_out")))
            if st.encodable:
                st.audit = verdicts.get(st.claim)
                st.said = said.get(st.claim, "")
            a = snapshot.find(st.quote)
            span = (a, a + len(st.quote))
            covering = [v for q, v in drafted if (b := snapshot.find(q)) >= 0 and b < span[1] and span[0] < b + len(q)]
            if covering:
                st.init = min(covering, key=lambda v: _ORDER.get(v, 3))
            st.found = any((b := snapshot.find(q)) >= 0 and b < span[1] and span[0] < b + len(q) for q in quoted)
            figures.statements.append(st)
        out[text["id"]] = figures
    return out


def _said(result) -> str:
    """Everything a report says of one claim, as one text: its reason, concern and response, and each check's label
    and each implementation's behaviour and detail."""
    parts = [result.reason, result.concern, result.response]
    for check in result.checks:
        parts.append(check.label)
        parts += [part for v in check.values for part in (v.behaviour, v.detail)]
    return "\n".join(p for p in parts if p)


def init_draft(snapshot: str, references) -> tuple[list[tuple[str, str]], list[str]]:
    """``audit init``'s draft of ``snapshot``, audited unedited: (quote, verdict) of each runnable claim, and the
    quote of every claim (drafts too)."""
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect
    from audit.draft.init import create_chapter

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "snapshot.md"
        source.write_text(snapshot, encoding="utf-8")
        draft_folder, _ = create_chapter(source, "draft", Path(tmp) / "claims")
        chapter = load_chapter(draft_folder)
        kinds = {c.id: c.kind for c in chapter.register.claims}
        draft = audit_chapter(chapter, references, collect([]))
        return ([(c.quote, c.verdict) for c in draft.claims if kinds.get(c.id) not in ("draft", "not checkable")],
                [c.quote for c in chapter.register.claims])


@dataclass
class PatchFigures:
    """The author's loop on every corpus text with a finding: its patch applied in a scratch copy and the text
    audited again. ``applied``: texts whose patch applied; ``kept``: of those, the Markdown structure of the text (its
    reading, for a notebook or an HTML page) unchanged outside the changed lines; ``clean``: the rerun has no stale,
    edited or erroneous claim, no patched claim contradicted and no further hunk; ``damaged``: a patch that did not
    apply, changed the structure, or wrote a repeated word or a doubled comparison sign the text did not have."""

    applied: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    clean: list[str] = field(default_factory=list)
    damaged: dict[str, str] = field(default_factory=dict)
    unclean: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        return (f"patches: {len(self.applied)} patches applied, structure kept {len(self.kept)}, "
                f"rerun clean {len(self.clean)}, damaged {len(self.damaged)}")


_REPEATED = r"\b(\w+) \1\b"
_DOUBLED = r"[<>≤≥] ?[<>≤≥]"


def _damage(before: str, after: str) -> str:
    import re

    from audit.text.markdown import changed_structure
    old, new = before.split("\n"), after.split("\n")
    first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    tail = next((i for i, (a, b) in enumerate(zip(reversed(old), reversed(new))) if a != b), 0)
    last = max(first, len(old) - 1 - tail)
    broken = changed_structure(before, after, (first, last), len(new) - len(old))
    if broken:
        return broken
    for pattern, what in ((_REPEATED, "a repeated word"), (_DOUBLED, "a doubled comparison sign")):
        if len(re.findall(pattern, after)) > len(re.findall(pattern, before)):
            return f"{what} the text did not have"
    return ""


def patch_rounds(ids: list[str] | None = None, progress=lambda message: None) -> PatchFigures:
    """Audit every corpus text (``ids``: these only) in a scratch project, apply each patch with ``patch -p0`` from
    its root as the README says, and audit the patched texts again (see ``PatchFigures``)."""
    import contextlib
    import io
    import json
    import os
    import shutil
    import subprocess

    from audit.cli import main
    from audit.text.chapter import Snapshot

    figures = PatchFigures()
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = []
        for folder in sorted(CORPUS.iterdir()):
            if (folder / "chapter.yaml").exists() and (ids is None or folder.name in ids):
                shutil.copytree(folder, root / "claims" / folder.name)
                folders.append(f"claims/{folder.name}")
        os.chdir(root)
        try:
            progress(f"auditing {len(folders)} texts")
            with contextlib.redirect_stdout(io.StringIO()):   # the CLI's "wrote …" lines
                main(["run", *folders, "--reports", "reports", "--quiet", "--no-cache"])
            first = {}
            for path in sorted(Path("reports").glob("*.json")):
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict) and "research" in data and "chapter" in data:
                    first[str(data["chapter"]["id"])] = data
            patched = []
            for cid, data in first.items():
                patch = Path("reports") / f"{cid}.patch"
                proposal = (data.get("research") or {}).get("proposal") or {}
                if not patch.exists() or not proposal.get("hunks"):
                    continue
                snapshot = Path(proposal["file"])
                before = Snapshot.read(snapshot).text
                run = subprocess.run(["patch", "-p0", "-s"], input=patch.read_text(encoding="utf-8"), cwd=root,
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    figures.damaged[cid] = f"the patch did not apply: {(run.stdout + run.stderr).strip()[:200]}"
                    continue
                figures.applied.append(cid)
                after = Snapshot.read(snapshot).text
                damage = _damage(before, after)
                if damage:
                    figures.damaged[cid] = damage
                else:
                    figures.kept.append(cid)
                patched.append(cid)
            if patched:
                progress(f"auditing the {len(patched)} patched texts again")
                with contextlib.redirect_stdout(io.StringIO()):
                    main(["run", *[f"claims/{cid}" for cid in patched], "--reports", "reports", "--quiet",
                          "--no-cache"])
            for cid in patched:
                second = json.loads((Path("reports") / f"{cid}.json").read_text(encoding="utf-8"))
                hunked = {i for h in first[cid]["research"]["proposal"]["hunks"] for i in h.get("claims") or [h["claim"]]}
                bad = [f"{c['id']} {c['verdict']}" for c in second["claims"]
                       if c["verdict"] in ("stale", "error") or c.get("anchor_state") == "edited"
                       or (c["id"] in hunked and c["verdict"] == "contradicted")]
                more = [h["claim"] for h in second["research"]["proposal"]["hunks"]]
                if bad or more:
                    figures.unclean[cid] = "; ".join(bad + [f"another hunk for {m}" for m in more])
                else:
                    figures.clean.append(cid)
        finally:
            os.chdir(here)
    return figures
