"""Code listings in a chapter snapshot: fenced Markdown blocks, indented blocks, and unfenced
Python in plain text (a ``def`` at the start of a line and the lines that belong to it)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from audit.errors import AuditError

_FENCE = re.compile(r"^(```|~~~)")
_CODE_START = re.compile(r"^(def |class |import |from \S+ import |@)")


@dataclass(frozen=True)
class Listing:
    """A block of code: 1-based ``start``/``end`` lines in the snapshot, how it was marked, its text."""

    start: int
    end: int
    style: str
    code: str


def find_listings(text: str) -> list[Listing]:
    """Every code listing in ``text``, in order.

    ``fenced``: between ``` or ~~~ fences. ``indented``: a run of lines indented by four spaces
    or a tab after a blank line, outside a fence. ``unfenced``: a line starting with ``def``,
    ``class``, ``import`` or a decorator, and every following line that is indented, blank, or a
    comment — plain-text chapters often print code this way.
    """
    lines = text.split("\n")
    out: list[Listing] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            j = i + 1
            while j < len(lines) and not _FENCE.match(lines[j]):
                j += 1
            out.append(Listing(i + 2, j, "fenced", "\n".join(lines[i + 1:j])))
            i = j + 1
            continue
        if _CODE_START.match(line):
            j = i + 1
            while j < len(lines) and (lines[j].startswith((" ", "\t", "#")) or _CODE_START.match(lines[j])
                                      or (not lines[j].strip() and j + 1 < len(lines)
                                          and (lines[j + 1].startswith((" ", "\t", "#"))
                                               or _CODE_START.match(lines[j + 1])))):
                j += 1
            out.append(Listing(i + 1, j, "unfenced", "\n".join(lines[i:j])))
            i = j
            continue
        if line.startswith(("    ", "\t")) and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith(("    ", "\t")) or not lines[j].strip()):
                j += 1
            block = [ln[4:] if ln.startswith("    ") else ln.lstrip("\t") for ln in lines[i:j]]
            out.append(Listing(i + 1, j, "indented", "\n".join(block).rstrip("\n")))
            i = j
            continue
        i += 1
    return out


def function_source(text: str, quote: str, function: str) -> tuple[Listing, str]:
    """The listing that contains ``quote`` and the source of ``function`` within it.

    Raises ``AuditError`` when no listing contains the quote, when the listing is not valid
    Python, or when it does not define ``function``.
    """
    for listing in find_listings(text):
        if quote.strip() in listing.code:
            try:
                tree = ast.parse(listing.code)
            except SyntaxError as exc:
                raise AuditError(f"the listing at lines {listing.start}–{listing.end} is not valid Python "
                                 f"({exc.msg}, listing line {exc.lineno})")
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and node.name == function:
                    # Keep the listing's imports so the function runs as printed.
                    imports = [ast.get_source_segment(listing.code, n) for n in tree.body
                               if isinstance(n, (ast.Import, ast.ImportFrom))]
                    body = ast.get_source_segment(listing.code, node)
                    decorators = "".join(f"@{ast.get_source_segment(listing.code, d)}\n" for d in node.decorator_list)
                    return listing, "\n".join([*imports, decorators + body]) + "\n"
            raise AuditError(f"the listing at lines {listing.start}–{listing.end} does not define {function}()")
    raise AuditError(f"no code listing in the snapshot contains {quote!r}")
