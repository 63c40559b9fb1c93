"""The labelled scanner corpus (``tests/corpus``): texts, hand labels, and the scanner's recall
and precision on them. Shared by the tests and ``benchmarks/bench_scanner.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from audit.text.scan import Statement, scan_text

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclass
class Label:
    """One hand-labelled statement: its quote(s) as character spans, kind, fixture and right verdict."""

    quote: str
    kind: str
    fixture: str
    verdict: str
    spans: list[tuple[int, int]]


@dataclass
class Text:
    file: str
    style: str
    held_out: bool
    text: str
    labels: list[Label] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return CORPUS / self.file


def load() -> list[Text]:
    """Every labelled text; raises ``ValueError`` if a quote is not found exactly once."""
    data = yaml.safe_load((CORPUS / "labels.yaml").read_text(encoding="utf-8"))
    out = []
    for entry in data["texts"]:
        text = (CORPUS / entry["file"]).read_text(encoding="utf-8")
        t = Text(entry["file"], entry["style"], bool(entry.get("held_out")), text)
        for s in entry["statements"]:
            spans = []
            for q in [s["quote"], *s.get("also", [])]:
                if text.count(q) != 1:
                    raise ValueError(f"{entry['file']}: quote {q!r} occurs {text.count(q)} times")
                a = text.index(q)
                spans.append((a, a + len(q)))
            t.labels.append(Label(s["quote"], s["kind"], s.get("fixture", ""), s["verdict"], spans))
        out.append(t)
    return out


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@dataclass
class ScanScore:
    labels: int
    found: int            # labels overlapped by a scanned statement
    statements: int
    true: int             # scanned statements overlapping a label
    missed: list[str]
    spurious: list[str]

    @property
    def recall(self) -> float:
        return self.found / self.labels if self.labels else 1.0

    @property
    def precision(self) -> float:
        return self.true / self.statements if self.statements else 1.0


def score_spans(statements: list[Statement], labels: list[list[tuple[int, int]]], quotes: list[str]) -> ScanScore:
    """Recall (labels overlapped by a statement) and precision (statements overlapping a label)."""
    found = [any(overlaps((s.start, s.end), sp) for s in statements for sp in spans) for spans in labels]
    true = [any(overlaps((s.start, s.end), sp) for spans in labels for sp in spans) for s in statements]
    return ScanScore(len(labels), sum(found), len(statements), sum(true),
                     [q for q, f in zip(quotes, found) if not f], [s.text for s, t in zip(statements, true) if not t])


def score(text: Text) -> ScanScore:
    return score_spans(scan_text(text.text), [lb.spans for lb in text.labels], [lb.quote for lb in text.labels])


def total(scores: list[ScanScore]) -> ScanScore:
    return ScanScore(sum(s.labels for s in scores), sum(s.found for s in scores), sum(s.statements for s in scores),
                     sum(s.true for s in scores), [m for s in scores for m in s.missed],
                     [m for s in scores for m in s.spurious])


# --- init and audit on a labelled text ----------------------------------------------------------

@dataclass
class InitScore:
    """Per text: how many labelled statements ``init`` encoded so they run unedited (every claim
    overlapping the statement is complete, and there is one), and how many of those got the
    labelled verdict. A statement's verdict is its claims' worst (contradicted > qualified >
    supported)."""

    labels: int
    encoded: int
    right: int
    wrong: list[str]
    unencoded: list[str]


_ORDER = {"contradicted": 3, "error": 3, "stale": 3, "qualified": 2, "supported": 1}


def audit_labelled(folder: Path, text: str, labels: list[Label], references=None) -> InitScore:
    """Audit an ``init`` folder and score its claims against the labels."""
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect

    chapter = load_chapter(folder)
    report = audit_chapter(chapter, references if references is not None else all_references(), collect([]))
    spans = {}
    for claim in chapter.register.claims:
        a = text.find(claim.quote)
        spans[claim.id] = (a, a + len(claim.quote)) if a >= 0 else (-1, -1)
    verdicts = {c.id: c.verdict for c in report.claims}
    kinds = {c.id: c.kind for c in chapter.register.claims}
    encoded = right = 0
    wrong, unencoded = [], []
    for lb in labels:
        ids = [cid for cid, sp in spans.items() if any(overlaps(sp, s) for s in lb.spans)]
        if not ids or any(kinds[c] == "draft" for c in ids):
            unencoded.append(lb.quote)
            continue
        encoded += 1
        worst = max((verdicts[c] for c in ids), key=lambda v: _ORDER.get(v, 3))
        if worst == lb.verdict:
            right += 1
        else:
            wrong.append(f"{lb.quote} — labelled {lb.verdict}, audit says {worst} ({', '.join(ids)})")
    return InitScore(len(labels), encoded, right, wrong, unencoded)


# --- statement recall on every labelled text -------------------------------------------------------

@dataclass
class Recall:
    """Statement recall over every labelled text of ``tests/corpus`` (this corpus and ``tests/corpus/measures``):
    labelled statements, those the scanner reads as statements (a scanned unit overlaps the quote), those the
    scanner or the sentence sweep (``audit.text.scan.unread_sentences``) lists, and the same for the held-out
    texts; ``missed``: the quotes neither lists."""

    texts: int = 0
    labels: int = 0
    read: int = 0
    swept: int = 0
    held_labels: int = 0
    held_read: int = 0
    missed: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, float | int]:
        """The ``corpus_*`` entries of ``audit.text.scan.MEASURED``."""
        return {"corpus_statements": self.labels, "corpus_texts": self.texts,
                "corpus_recall": round(self.read / self.labels, 4),
                "corpus_held_out_statements": self.held_labels,
                "corpus_held_out_recall": round(self.held_read / self.held_labels, 4),
                "corpus_swept_recall": round(self.swept / self.labels, 4)}


def corpus_recall() -> Recall:
    """Read every labelled text as ``audit run`` reads it (``Snapshot.read``: Markdown as Markdown) and count."""
    import corpus_measures as cm

    from audit.text.chapter import Snapshot
    from audit.text.scan import scan, unread_sentences
    texts = [(t.path, [lb.spans for lb in t.labels], [lb.quote for lb in t.labels], t.held_out) for t in load()]
    for entry in cm.load():
        path = cm.CORPUS / entry["file"]
        body = path.read_text(encoding="utf-8")
        spans = [[(body.index(s["quote"]), body.index(s["quote"]) + len(s["quote"]))] for s in entry["statements"]]
        texts.append((path, spans, [s["quote"] for s in entry["statements"]], bool(entry.get("held_out"))))
    out = Recall()
    for path, labels, quotes, held in texts:
        snapshot = Snapshot.read(path)
        found = scan(snapshot)
        swept = found + unread_sentences(snapshot.text, snapshot.markdown, found)
        out.texts += 1
        for spans, quote in zip(labels, quotes):
            read = any(overlaps((s.start, s.end), sp) for s in found for sp in spans)
            listed = any(overlaps((s.start, s.end), sp) for s in swept for sp in spans)
            out.labels += 1
            out.read += read
            out.swept += listed
            out.held_labels += held
            out.held_read += held and read
            if not listed:
                out.missed.append(f"{path.parent.name}/{path.name}: {quote}")
    return out
