"""What a browser does not show of an HTML page or of raw HTML in a Markdown chapter: an element with the ``hidden``
attribute, a hiding ``style``, or one a rule of the page's own ``<style>`` elements selects (by tag, id and classes)
and hides. Read by the HTML reading of a chapter (``chapter._html_text``) and by the Markdown reading's unseen
spans (``markdown.unseen``). A stylesheet the page links to is not read."""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Elements without content (no end tag).
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})
_UNRENDERED_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|"
                               r"font-size\s*:\s*0(?:\.0*)?(?:px|em|rem|pt|%)?\s*(?:;|$)|opacity\s*:\s*0(?:\.0*)?\s*(?:;|$)|"
                               r"color\s*:\s*transparent\s*(?:;|$)|"
                               r"clip\s*:\s*rect\(\s*0[a-z]*[\s,]+0[a-z]*[\s,]+0[a-z]*[\s,]+0[a-z]*\s*\)|"
                               r"clip-path\s*:\s*(?:inset\(\s*50\s*%|(?:circle|ellipse)\(\s*0(?:\.0*)?(?:[a-z%]*)?\s*[)a]|"
                               r"polygon\(\s*0[a-z%]*\s+0[a-z%]*\s*\))|"
                               r"transform\s*:[^;]*\bscale[XY]?\(\s*0(?:\.0*)?\s*[,)]|scale\s*:\s*0(?:\.0*)?\s*(?:;|$)|"
                               r"(?:text-indent|left|top|margin-left|margin-top)\s*:\s*-\d{3,}(?:\.\d*)?\s*(?:px|em|rem|pt)?\s*(?:;|$)|"
                               r"(?:width|height|max-width|max-height)\s*:\s*(?:0|1px)\s*(?:;|$)[^}]*overflow\s*:\s*hidden|"
                               r"overflow\s*:\s*hidden[^}]*(?:width|height|max-width|max-height)\s*:\s*(?:0|1px)\s*(?:;|$))",
                               re.IGNORECASE)
_STYLE_ELEMENT = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.IGNORECASE | re.DOTALL)
_CSS_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
#: An ``@media print`` block (its rules hide nothing on a screen).
_PRINT_MEDIA = re.compile(r"@media[^{]*\bprint\b[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", re.IGNORECASE)
#: The last compound selector of a rule's selector: a tag, an id and classes (``span.fn``, ``#x``, ``.a.b``).
_COMPOUND = re.compile(r"^(?P<tag>[a-z][a-z0-9-]*|\*)?(?P<rest>(?:[.#][\w-]+|\[[^\]]*\])*)$", re.IGNORECASE)


def _hides(declarations: str) -> bool:
    """Whether CSS declarations keep a browser from showing an element's text: ``display:none``,
    ``visibility:hidden``, a zero font size or opacity, transparent text, the visually-hidden clip (``clip:
    rect(0 0 0 0)``, ``clip-path: inset(50%)`` or a zero circle), a zero scale (``transform: scale(0)``), a 1px box
    with its overflow hidden or a far negative offset."""
    return bool(_UNRENDERED_STYLE.search(" ".join(declarations.split())))


#: Pseudo-classes that pick some of the elements a compound selects by their place or content: read as selecting all
#: of them (a rule then hides more, never less). ``:not(…)`` is read so too. User-action ones (``:hover``) are not.
_STRUCTURAL = re.compile(r":(?:not\((?:[^()]|\([^()]*\))*\)|first-child|last-child|only-child|first-of-type|"
                         r"last-of-type|only-of-type|empty|nth-(?:last-)?(?:child|of-type)\([^()]*\))", re.IGNORECASE)
_ANY_OF = re.compile(r":(?:is|where|matches|any)\(((?:[^()]|\([^()]*\))*)\)", re.IGNORECASE)


def _expanded(selectors: str) -> list[str]:
    """A rule's selector list as plain selectors: ``:is(.a, .b) p`` as ``.a p`` and ``.b p``, structural
    pseudo-classes and ``:not(…)`` dropped (``p:not(.shown)`` as ``p``)."""
    todo, out = [s for s in _split_top(selectors)], []
    while todo and len(out) < 200:
        selector = todo.pop(0)
        m = _ANY_OF.search(selector)
        if m:
            todo.extend(selector[:m.start()] + inner.strip() + selector[m.end():] for inner in _split_top(m.group(1)))
            continue
        out.append(_STRUCTURAL.sub("", selector))
    return out


def _split_top(selectors: str) -> list[str]:
    """A selector list split at its top-level commas (a comma inside ``:is(…)`` stays)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(selectors):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(selectors[start:i])
            start = i + 1
    return [*out, selectors[start:]]


def _hiding_selectors(raw: str) -> list[tuple[str, str | None, frozenset[str]]]:
    """The selectors of the page's own ``<style>`` rules that hide what they select (``_hides``), as (tag or "*", id
    or None, classes) of each selector's last compound (``:is(…)`` read as each of its selectors, ``:not(…)`` and
    structural pseudo-classes as selecting all); a selector with a user-action pseudo-class (``:hover``), a
    pseudo-element (``::before``) or another form is left out. Over-reading a descendant selector hides more, never less. A stylesheet the page links to is not
    read (the docs say so)."""
    out = []
    for css in _STYLE_ELEMENT.findall(raw):
        for selectors, declarations in _CSS_RULE.findall(_PRINT_MEDIA.sub(" ", _CSS_COMMENT.sub(" ", css))):
            if not _hides(declarations):
                continue
            for selector in _expanded(selectors):
                last = re.split(r"[\s>+~]+", selector.strip())[-1] if selector.strip() else ""
                m = _COMPOUND.match(last)
                if not last or not m or not (m.group("tag") or m.group("rest")):
                    continue
                parts = re.findall(r"([.#])([\w-]+)", m.group("rest") or "")
                ids = [v for k, v in parts if k == "#"]
                out.append(((m.group("tag") or "*").lower(), ids[0] if ids else None,
                            frozenset(v for k, v in parts if k == ".")))
    return out


def _not_rendered(tag: str, attrs, hiding=()) -> bool:
    """Whether an element keeps a browser from showing it: its attributes (``hidden``, a ``style`` that ``_hides``)
    or one of the page's ``<style>`` rules that selects it (``_hiding_selectors``)."""
    classes: set[str] = set()
    own_id = None
    for name, value in attrs:
        if name == "hidden" or (name == "style" and value and _hides(value)):
            return True
        if name == "class" and value:
            classes.update(value.split())
        elif name == "id":
            own_id = value
    return any((t == "*" or t == tag) and (i is None or i == own_id) and c <= classes for t, i, c in hiding)


class _StartTag(HTMLParser):
    """Reads the attributes of the start tags it is fed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.found.extend(attrs)


def attributes(start_tag: str) -> list[tuple[str, str | None]]:
    """The attributes of one start tag (``<span class="x" hidden>``) as Python's HTML parser reads them."""
    reader = _StartTag()
    reader.feed(start_tag)
    reader.close()
    return reader.found
