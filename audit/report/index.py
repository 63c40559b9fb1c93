"""The book index (``reports/index.md`` and ``index.html``), the research pack's front page: every chapter report
in the folder, with its verdict counts, fingerprint state and links, and how its verdicts moved across the
revisions the history kept (``history/<chapter id>.json``), built from the files on disk (so a run over one chapter still
indexes every chapter reported before)."""

from __future__ import annotations

from pathlib import Path

from audit.model.results import VERDICTS
from audit.report.files import read_json
from audit.report.shown import html_text, markdown_text

_ORDER = ("contradicted", "stale", "error", "qualified", "pending")


def entries(folder: Path) -> list[dict]:
    """One entry per readable chapter report (``<id>.json`` with a ``format_version``), sorted by book,
    chapter number and id."""
    from audit.register.claims import RESERVED_IDS
    from audit.report.history import moves, read
    history = read(folder)
    out = []
    for path in sorted(folder.glob("*.json")):
        if path.stem.lower() in RESERVED_IDS:  # not a chapter's report (an id no chapter may take)
            continue
        data = read_json(path)
        if not isinstance(data, dict) or "format_version" not in data or not isinstance(data.get("chapter"), dict):
            continue
        ch = data["chapter"]
        if not isinstance(ch.get("id", path.stem), str) or not isinstance(ch.get("title", ""), str) \
                or not isinstance(ch.get("book") or "", str) or not isinstance(ch.get("chapter"), (str, int, type(None))):
            continue
        fp = data.get("fingerprint") if isinstance(data.get("fingerprint"), dict) else {}
        if not fp.get("recorded"):
            state = "none recorded"
        elif fp.get("matches"):
            state = "matches the recorded revision"
        else:
            snapshot = data.get("snapshot") if isinstance(data.get("snapshot"), dict) else {}
            state = "UNVERIFIED: differs from the recorded one" + (" (an excerpt was read)"
                                                                   if snapshot.get("excerpt") else "")
        base = path.stem
        links = {k: f"{base}.{k}" for k in ("html", "md", "json", "patch") if (folder / f"{base}.{k}").exists()}
        claims = [c for c in data.get("claims", []) if isinstance(c, dict) and isinstance(c.get("id"), str)] \
            if isinstance(data.get("claims"), list) else []
        open_claims = [c["id"] for v in _ORDER for c in claims if c.get("verdict") == v]
        summary = data.get("summary") if isinstance(data.get("summary"), dict) else {}
        summary = {k: v for k, v in summary.items() if k in VERDICTS and isinstance(v, int) and not isinstance(v, bool)}
        past = history.get(str(ch.get("id", base)), [])
        revisions = [{"date": e.get("date", ""), "fingerprint": str(e.get("fingerprint", ""))[:12],
                      "summary": e.get("summary", {}), "moved": moves(before, e) if i else []}
                     for i, (before, e) in enumerate(zip([{}] + past, past))]
        nb = data.get("notebook") if isinstance(data.get("notebook"), dict) else None
        notebook = "—" if nb is None else _NOTEBOOK.get(str(nb.get("status")), str(nb.get("status"))) + (
            f" in cell {nb['cell']}" if nb.get("cell") else "") + _notebook_findings(nb)
        if nb is not None and nb.get("status") != "unverified" and "html" in links:
            links["notebook run"] = f"{base}.html#notebook"
        out.append({"id": ch.get("id", base), "title": ch.get("title", ""), "book": ch.get("book") or "",
                    "notebook": notebook,
                    "chapter": ch.get("chapter"), "summary": summary, "fingerprint": state,
                    "links": links, "open": open_claims,
                    "date": str((data.get("provenance") if isinstance(data.get("provenance"), dict) else {}).get("date", "")),
                    "history": revisions})
    return sorted(out, key=lambda e: (e["book"], str(e["chapter"] or "").zfill(6), e["id"]))


#: A notebook run's status in the index's words.
_NOTEBOOK = {"ran": "ran", "failed": "fails", "timeout": "timed out", "violation": "killed by the sandbox",
             "died": "kernel died", "error": "could not be run", "too large": "output too large",
             "not run": "UNVERIFIED: not run (no sandbox)", "unverified": "UNVERIFIED: a URL, not run"}


def _notebook_findings(nb: dict) -> str:
    """"; 1 number wrong in the notebook, 2 sentences it corrects, stale outputs in 1 cell" (what is not empty)."""
    fixes = [f.get("fix", "notebook") for f in nb.get("findings") or [] if isinstance(f, dict)]
    parts = [f"{n} {what}" for n, what in (
        (sum(f in ("notebook", "both") for f in fixes), "number(s) wrong in the notebook"),
        (sum(f == "link" for f in fixes), "named number(s) not printed"),
        (sum(f == "sentence" for f in fixes), "sentence(s) it corrects"),
        (len(nb.get("stale") or []), "cell(s) with stale outputs")) if n]
    return "; " + ", ".join(parts) if parts else ""


def _counts(summary: dict) -> str:
    return ", ".join(f"{summary[v]} {v}" for v in VERDICTS if summary.get(v)) or "no claims"


def _href(target: str) -> str:
    """A link target from a report's file name or a claim id, percent-encoded: never read as Markdown or a scheme.
    A fragment the index itself appends (``#notebook``) stays a fragment; the name before it is encoded."""
    from urllib.parse import quote
    name, mark, fragment = str(target).partition("#")
    return quote(name, safe="") + (mark + quote(fragment, safe="") if mark else "")


def render_markdown(items: list[dict]) -> str:
    lines = ["# Chapter audits: index", "",
             ("Each chapter's report, its verdict counts, the state of its fingerprint and of its notebook's run. A "
             "claim's finding is at "
              "`<report>.html#<claim id>` (for example `retrieval-23-chapter.html#C08`)."), "",
             "| chapter | book | verdicts | fingerprint | notebook | reports | claims to review |",
             "|---|---|---|---|---|---|---|"]
    for e in items:
        # the chapter's number, title, book and notebook state come from the book: literal, one line
        name = markdown_text(f"{e['chapter']} — {e['title']}" if e["chapter"] else e["title"])
        reports = ", ".join(f"[{k}]({_href(v)})" for k, v in e["links"].items())
        html = e["links"].get("html", "")
        review = ", ".join(f"[{markdown_text(c)}]({_href(html)}#{_href(c)})" if html else markdown_text(c)
                           for c in e["open"]) or "none"
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in (
            f"**{markdown_text(e['id'])}** ({name})", markdown_text(e["book"]) or "—", _counts(e["summary"]),
            e["fingerprint"],
            markdown_text(e["notebook"]),
            reports, review)) + " |")
    histories = [e for e in items if len(e["history"]) > 1]
    if histories:
        lines += ["", "## How the verdicts moved", "",
                  "Each revision of a chapter the history kept (a new fingerprint, or a verdict that moved), oldest "
                  "first.", ""]
        for e in histories:
            lines += [f"### {markdown_text(e['id'])}", "", "| date | fingerprint | verdicts | moved |", "|---|---|---|---|"]
            for r in e["history"]:
                lines.append("| " + " | ".join(x.replace("|", "\\|") for x in (
                    markdown_text(r["date"]), markdown_text(r["fingerprint"]), _counts(r["summary"]),
                    markdown_text("; ".join(r["moved"])) or "—")) + " |")
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def render_html(items: list[dict]) -> str:
    escape = html_text  # every string shown: HTML escaped, control and format characters visible
    rows = []
    histories = []
    for e in items:
        if len(e["history"]) > 1:
            body = "".join(f'<tr><td>{escape(r["date"])}</td><td><code>{escape(r["fingerprint"])}</code></td>'
                           f'<td>{escape(_counts(r["summary"]))}</td><td>{escape("; ".join(r["moved"]) or "—")}</td></tr>'
                           for r in e["history"])
            histories.append(f'<h3 id="history-{escape(e["id"])}">{escape(e["id"])}</h3>\n<table class="history">'
                             "<thead><tr><th>date</th><th>fingerprint</th><th>verdicts</th><th>moved</th></tr>"
                             f"</thead><tbody>{body}</tbody></table>")
        name = f"{e['chapter']} — {e['title']}" if e["chapter"] else e["title"]
        reports = " · ".join(f'<a href="{escape(v)}">{escape(k)}</a>' for k, v in e["links"].items())
        html = e["links"].get("html", "")
        review = ", ".join(f'<a href="{escape(html)}#{escape(c)}">{escape(c)}</a>' if html else escape(c)
                           for c in e["open"]) or "none"
        rows.append(f'<tr class="chapter" id="{escape(e["id"])}"><td><strong>{escape(e["id"])}</strong><br>'
                    f'{escape(name)}</td><td>{escape(e["book"] or "—")}</td><td>{escape(_counts(e["summary"]))}</td>'
                    f'<td>{escape(e["fingerprint"])}</td><td>{escape(e["notebook"])}</td><td>{reports}</td>'
                    f'<td>{review}</td></tr>')
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Chapter audits: index</title>\n"
            "<style>body{font:14px/1.5 system-ui,sans-serif;margin:24px 32px}table{border-collapse:collapse}"
            "th,td{border-bottom:1px solid #d8dee4;padding:6px 8px;text-align:left;vertical-align:top}"
            "th{background:#f6f8fa}</style>\n</head>\n<body>\n<h1>Chapter audits: index</h1>\n"
            "<p>Each chapter's report, its verdict counts, the state of its fingerprint and of its notebook's run. A "
            "claim's finding is at "
            "<code>&lt;report&gt;.html#&lt;claim id&gt;</code>.</p>\n<table id=\"index\"><thead><tr><th>chapter</th>"
            "<th>book</th><th>verdicts</th><th>fingerprint</th><th>notebook</th><th>reports</th><th>claims to review</th>"
            "</tr></thead>"
            "<tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n"
            + ("<h2>How the verdicts moved</h2>\n<p>Each revision of a chapter the history kept (a new fingerprint, or "
               "a verdict that moved), oldest first.</p>\n" + "\n".join(histories) + "\n" if histories else "")
            + "</body>\n</html>\n")
