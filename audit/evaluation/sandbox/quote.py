"""Text a listing chooses, made safe to show: its exception's type and message, the repr of what it returned,
what it printed.

``clean`` makes such text one printable line of at most ``LIMIT`` characters, the same in every writer: a lone
surrogate becomes U+FFFD (JSON and the report writer refuse it); a control character is shown by its Unicode
control picture (a newline as ␊, a tab as ␉); a format or separator character (bidirectional overrides,
zero-width characters, line and paragraph separators) as ⟨U+202E⟩. ``quote`` then puts it between “ ” after a
label that says whose text it is, with everything Markdown would read as syntax made literal: a backslash
before ``\\ ` * _ [ ] # ~`` (``_`` only where it could open or close emphasis) and before ``:`` of ``://`` and
``.`` of ``www.`` (GFM's bare links), ``&lt;`` for a ``<`` that could open an HTML tag, ``\\&`` before what
could be an entity, and the ``@`` of an e-mail address in a code span (GFM links addresses whatever is
escaped). So no heading, list, link, image, autolink, HTML or emphasis can come from a listing's text, in
Markdown (CommonMark, GFM) as in HTML (which escapes text itself) and JSON.
"""

from __future__ import annotations

import re
import unicodedata

LIMIT = 300  # characters of a listing's text kept, after ``clean``

_CUT = "…"
_QUOTES = {"“": "⟨U+201C⟩", "”": "⟨U+201D⟩"}  # the quote's own delimiters, never inside it
_ALWAYS = {"\\": "\\\\", "`": "\\`", "*": "\\*", "[": "\\[", "]": "\\]", "#": "\\#", "~": "\\~"}
_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_SCHEME = re.compile(r":(?=//)")
_WWW = re.compile(r"(?i)(?<=\bwww)\.")
#: GFM's extended e-mail autolink: the domain is labels separated by periods, at least one period, each label
#: non-empty, so ``Precision@k.`` at a sentence's end (nothing after the period) is not an address.
_EMAIL = re.compile(r"(?<=[A-Za-z0-9.+\-_])@(?=[A-Za-z0-9\-_]+(?:\.[A-Za-z0-9\-_]+)+)")


def _visible(ch: str) -> str:
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
        return f"⟨U+{code:04X}⟩"
    return ch


def clean(text: object, limit: int = LIMIT) -> str:
    """``text`` as one printable line of at most ``limit`` characters (``…`` marks a cut)."""
    try:
        text = text if isinstance(text, str) else str(text)
    except Exception:  # noqa: BLE001 — a str subclass or object whose conversion fails
        return "(text that could not be shown)"
    out, size = [], 0
    for ch in text:
        piece = _visible(ch)
        if size + len(piece) > limit:
            out.append(_CUT)
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)


def markdown_literal(text: str) -> str:
    """``text`` (already ``clean``) with every character Markdown or HTML could read as syntax made literal."""
    text = _ENTITY.sub("\0", _TAG.sub("\1", text))  # \0 and \1 cannot occur in clean text
    out = []
    for i, ch in enumerate(text):
        if ch in _ALWAYS:
            out.append(_ALWAYS[ch])
        elif ch == "_":
            inner = 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
            out.append("_" if inner else "\\_")
        else:
            out.append(ch)
    text = "".join(out).replace("\0", "\\&").replace("\1", "&lt;")
    text = _SCHEME.sub(r"\\:", text)
    text = _WWW.sub(r"\\.", text)
    return _EMAIL.sub("`@`", text)


def quote(label: str, text: object) -> str:
    """``label “text”``: the text cleaned and made literal, between quotes no text of the listing can close."""
    try:
        text = text if isinstance(text, str) else str(text)
    except Exception:  # noqa: BLE001 — an object whose conversion fails
        text = "(text that could not be shown)"
    for mark, escaped in _QUOTES.items():
        text = text.replace(mark, escaped)
    return f"{label} “{markdown_literal(clean(text))}”"
