"""The pieces every Markdown section of a report is written with: literal text, table cells, anchors, fenced code,
and one implementation's value in a cell. The Markdown (``markdown``) and its research-brief sections
(``research_sections``) both write with them; the HTML report reads some of them."""

from __future__ import annotations

import re

from audit.model.results import Check, ImplValue
from audit.model.values import display

#: The name of the chapter's own definition in a report's columns (beside the references').
CHAPTER = "chapter"


_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")


def no_raw_html(text: str) -> str:
    """``text`` with every ``<`` that could open raw HTML in Markdown (a tag, comment, declaration
    or processing instruction: ``<`` then a letter, ``/``, ``!`` or ``?``) written as ``&lt;``, so a
    quote or title holding ``<script>`` or ``<img onerror=…>`` is shown, never run. ``< 1`` is kept."""
    return _TAG_OPEN.sub("&lt;", text)


class Html(str):
    """Markup the report writes itself (an anchor), kept as raw HTML; every other piece of a line is passed
    through ``no_raw_html``."""


def target(name: str) -> Html:
    """``<a id="C08"></a>``: the target of ``#C08`` in CommonMark and on GitHub (which prefixes ids with
    ``user-content-`` and still follows ``#C08`` to it). ``name``: a claim id (``register.claims.Id``: letters,
    digits, ``_.-``) or a name made of them, so it needs no escaping."""
    return Html(f'<a id="{name}"></a>')


def _line(parts: tuple) -> str:
    return "".join(p if isinstance(p, Html) else no_raw_html(str(p)) for p in parts)


def cell(text: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ").strip()


def short(v: ImplValue, check: Check) -> str:
    """One implementation's value for one check, as short as it can be and still exact."""
    if v.status == "not applicable":
        return "n/a"
    if v.status == "error":
        return "error"
    if v.behaviour and v.implementation is not None and "probe" in check.label:
        return ("rejects" if v.status == "rejected" else v.behaviour)
    if v.status == "rejected":
        return "rejects"
    if "left" in v.per_query:
        return f"{v.per_query['left']} → {v.per_query['right']}"
    if "before" in v.per_query and "after" in v.per_query and v.status == "ok":
        return f"{v.per_query['before']} → {v.per_query['after']}"
    if v.exact is not None:
        return display(v.exact)
    return f"{v.value:.4f}" if v.value is not None else "—"


#: The research brief's required sections (section 9), in its order and with its names.
SECTIONS = ("1. Context and provenance", "2. Claim audit", "3. Source ledger", "4. Findings", "5. Upgrade proposal",
            "6. Experiment opportunities", "7. Review checklist")


#: Longest table cell before it is cut, the whole text staying in the finding.
CELL_LIMIT = 160


#: Longest identity or reading status of a bibliography entry in the Markdown ledger (whole in the HTML and JSON).
LEDGER_LIMIT = 100


def clip(text: object, claim_id: str, whole: str = "", limit: int = CELL_LIMIT) -> str:
    """A table cell's text, cut at ``limit`` characters with a pointer to where it is whole (``whole``; by
    default the claim's finding)."""
    text = str(text if text is not None else "")
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + f" … (in full {whole or f'under {claim_id} in Findings'})"


def anchor(claim_id: str) -> str:
    """The stable anchor of a claim's finding (``#C08``), the same in the Markdown and HTML reports."""
    return claim_id


def fenced(code: str) -> "Html":
    """``code`` as a fenced block whose fence is longer than any run of backticks in it, so no line of the code can
    close it (CommonMark 4.5): the code is shown literally, whatever it holds."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    # inside a code block nothing is HTML (CommonMark 4.5): written as it is, never escaped
    return Html(f"{fence}\n{code}\n{fence}\n")


def hunk_anchor(number: int) -> str:
    """The anchor of the upgrade proposal's hunk ``number`` (1-based): ``hunk-1``, in the Markdown and HTML."""
    return f"hunk-{number}"


def _short(text: str, limit: int = 100) -> str:
    """A statement on one line, cut at a word after ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"
