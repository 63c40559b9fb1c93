"""Code listings in a chapter snapshot: fenced Markdown blocks, indented blocks, and unfenced
Python in plain text (a ``def`` at the start of a line and the lines that belong to it)."""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from audit.errors import AuditError
from audit.text.python_code import parse_code

_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")
_CODE_START = re.compile(r"^(def |class |import |from \S+ import |@)")
#: A module-level statement that may continue unfenced code (never start it: prose can look like one): an assignment
#: to a name (``CUTOFF = 10``, ``K: int = 10``), a call (``print(…)``), a compound statement's head.
_STATEMENT = re.compile(r"^(?:[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s*(?::[^=\n]+)?=(?!=)|[A-Za-z_][\w.]*\(|"
                        r"(?:if|for|while|with|try|except|finally|else|elif|async|assert|raise|return|del|global)\b)")


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
        opening = _FENCE.match(line)
        if opening:
            # closed by a fence of the same character, at least as long, with nothing after it (CommonMark 4.5)
            run = opening.group("fence")
            closing = re.compile(rf"^ {{0,3}}{re.escape(run[0])}{{{len(run)},}}\s*$")
            j = i + 1
            while j < len(lines) and not closing.match(lines[j]):
                j += 1
            out.append(Listing(i + 2, j, "fenced", "\n".join(lines[i + 1:j])))
            i = j + 1
            continue
        if _CODE_START.match(line):
            j = _unfenced_end(lines, i)
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


MAX_CUTS = 8  # statement starts tried, from the syntax error back, for where unfenced code ends


def _continues(line: str) -> bool:
    """Whether a line may continue unfenced code: indented (spaces or a tab), a comment, a line code starts with, a
    module-level statement (a constant's assignment, a call, a compound statement's head), or a line closing a
    bracket at column 0 (the ``):`` or ``) -> float:`` ending a signature whose parameters take a line each)."""
    return line.startswith((" ", "\t", "#", ")", "]", "}")) or bool(_CODE_START.match(line) or _STATEMENT.match(line))


def _syntax_error_line(code: str) -> int | None:
    """The 1-based line of ``code``'s first syntax error, 0 when it has one without a line, None when it parses."""
    try:
        parse_code(code)
    except SyntaxError as exc:
        return exc.lineno or 0
    except ValueError:  # a NUL byte
        return 0
    return None


def _parses(code: str) -> bool:
    return _syntax_error_line(code) is None


def _unfenced_end(lines: list[str], i: int) -> int:
    """The end (exclusive) of the unfenced code that starts at line ``i``: the lines that may continue it
    (``_continues``), across runs of blank lines of any length (PEP 8 puts two between definitions, a docstring may
    hold several), up to the first line of prose; then, unless that reads as Python, the longest run of whole
    statements from ``i`` that does (a prose line that looked like a statement ends it), and failing that the lines
    up to the first blank line followed by prose (how plain text was read before)."""
    j, end = i + 1, i + 1
    while j < len(lines):
        if not lines[j].strip():
            j += 1
            continue
        if not _continues(lines[j]):
            break
        j += 1
        end = j
    error = _syntax_error_line("\n".join(lines[i:end]))
    if error is None:
        return end
    # the longest prefix ending before a line at column 0 (a statement's start) at or before the error that parses;
    # a few tries only, so a long text that is not Python costs a few parses
    starts = [cut for cut in range(min(end - 1, i + error - 1 if error else end - 1), i, -1)
              if lines[cut].strip() and not lines[cut].startswith((" ", "\t", "#"))]
    for cut in starts[:MAX_CUTS]:
        if _parses("\n".join(lines[i:cut])):
            return _trimmed(lines, i, cut)
    j = i + 1
    while j < len(lines) and (lines[j].startswith((" ", "\t", "#")) or _CODE_START.match(lines[j])
                              or (not lines[j].strip() and j + 1 < len(lines)
                                  and (lines[j + 1].startswith((" ", "\t", "#")) or _CODE_START.match(lines[j + 1])))):
        j += 1
    return j


def _trimmed(lines: list[str], i: int, end: int) -> int:
    """``end`` moved back over trailing blank lines (not before ``i + 1``)."""
    while end > i + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _folded(text: str) -> str:
    """Code as a quote is matched to it: NFC, every run of whitespace (spaces, tabs, line breaks) one space."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def holds(listing: Listing, quote: str) -> bool:
    """Whether the listing holds ``quote``: its text exactly, or its lines with whitespace folded (a register's
    YAML may fold a long line, or turn a tab into spaces; the listing's own lines are what is matched)."""
    quote = quote.strip()
    if not quote:
        return False
    return quote in listing.code or _folded(quote) in _folded(listing.code)


def _defined(node: ast.stmt) -> list[str]:
    """The module-level names a statement defines (a function, a class, a constant's targets)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
        and node.value is not None else []
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _root(target: ast.AST, calls: bool = True) -> str | None:
    """The name an expression's items, attributes (and, with ``calls``, calls) hang from: ``CFG`` of
    ``CFG["a"].b``."""
    kinds = (ast.Attribute, ast.Subscript, ast.Call) if calls else (ast.Attribute, ast.Subscript)
    while isinstance(target, kinds):
        target = target.func if isinstance(target, ast.Call) else target.value
    return target.id if isinstance(target, ast.Name) else None


def _changed(node: ast.stmt) -> list[str]:
    """The module-level names a statement changes in place (``SIGN.insert(0, -1)``, ``CUTOFFS += [20]``,
    ``del CACHE[k]``): a reader who runs the block runs it, so a function using the name meets the change."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute):
        name = _root(node.value.func.value)
        return [name] if name else []
    if isinstance(node, ast.AugAssign):
        name = _root(node.target)
        return [name] if name else []
    if isinstance(node, ast.Delete):
        return [n for n in (_root(t) for t in node.targets if not isinstance(t, ast.Name)) if n]
    return []


def _changed_in_place(node: ast.stmt) -> list[str]:
    """``_changed``, and the names whose item or attribute a statement assigns (``C["c"] = True``)."""
    out = _changed(node)
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
            name = _root(t, calls=False) if isinstance(t, (ast.Subscript, ast.Attribute)) else None
            if name and name not in out:
                out.append(name)
    return out


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PART_METHODS = {"get", "setdefault", "pop", "popitem", "__getitem__"}  # methods that return a part of the object


def _alias_roots(value: ast.AST | None) -> set[str]:
    """The names whose object (or a part of it) an expression may be: ``CONFIG`` of ``CONFIG``,
    ``CONFIG["opts"]``, ``CONFIG.get("opts")``, ``[CONFIG]`` or ``CONFIG if a else OTHER``. A name bound to it is
    an alias: changing that name's object in place changes theirs."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, (ast.Attribute, ast.Subscript, ast.Starred, ast.NamedExpr)):
        return _alias_roots(value.value)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _PART_METHODS:
        return _alias_roots(value.func.value)
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_alias_roots(e) for e in value.elts)) if value.elts else set()
    if isinstance(value, ast.Dict):
        return set().union(*(_alias_roots(v) for v in value.values)) if value.values else set()
    if isinstance(value, ast.IfExp):
        return _alias_roots(value.body) | _alias_roots(value.orelse)
    if isinstance(value, ast.BoolOp):
        return set().union(*(_alias_roots(v) for v in value.values))
    return set()


class Aliases:
    """The module-level names bound, in reading order, to another name's object (``C = CONFIG``): a change in place
    of ``C`` is one of ``CONFIG``. ``bind`` reads a statement; ``roots`` gives the names a changed name stands for
    (itself included); ``binding`` the statement that made a name an alias."""

    def __init__(self) -> None:
        self._of: dict[str, set[str]] = {}
        self._by: dict[str, ast.stmt] = {}

    def bind(self, node: ast.stmt) -> None:
        names = _binds(node) if not isinstance(node, (ast.Assign, ast.AnnAssign)) else [
            t.id for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)]
        roots: set[str] = set()
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and names:
            for r in _alias_roots(node.value):
                roots |= self.roots(r)
        for name in names:
            if roots - {name}:
                self._of[name], self._by[name] = roots - {name}, node
            else:
                self._of.pop(name, None)
                self._by.pop(name, None)

    def roots(self, name: str) -> set[str]:
        return {name} | self._of.get(name, set())

    def binding(self, name: str) -> ast.stmt | None:
        return self._by.get(name)


def _used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _segment(code: str, node: ast.stmt) -> str:
    """A statement's source, with its decorators."""
    decorators = getattr(node, "decorator_list", [])
    return "".join(f"@{ast.get_source_segment(code, d)}\n" for d in decorators) + ast.get_source_segment(code, node)


def module_source(code: str, function: str, earlier: Sequence[str] = ()) -> str | None:
    """What of a listing ``function`` runs with: every import (also inside a module-level ``try``), and the
    module-level functions, classes and constants it uses, directly or through each other, and the statements that
    change those in place (``SIGN.insert(0, -1)``), directly or by calling one of its helpers that does
    (``setup()``), in the listing's order. Example calls and prints at module level are left out: they show the
    function, they are not part of it.
    ``earlier``: listings the text builds on (printed before it), whose imports and definitions the function may use
    too (a name the listing itself defines is its own). None when the listing does not define ``function``. Raises
    ``SyntaxError`` for a listing that is not Python."""
    trees = [(c, parse_code(c)) for c in [*earlier, code]]
    defines: dict[str, list[ast.stmt]] = {}
    aliases = Aliases()
    for _, tree in trees:  # later listings' definitions replace earlier ones
        mine: dict[str, list[ast.stmt]] = {}
        changes: dict[str, list[ast.stmt]] = {}
        for node in tree.body:
            for name in _defined(node):
                mine.setdefault(name, []).append(node)
            for name in _changed(node):
                changes.setdefault(name, []).append(node)
            for name in _changed_in_place(node):  # ``C = CONFIG; C["c"] = True`` changes CONFIG
                for root in aliases.roots(name) - {name}:
                    if not any(isinstance(d, _DEFINITIONS) for d in mine.get(root, defines.get(root, []))):
                        changes.setdefault(root, []).append(node)  # a function held in a dict is not changed
            aliases.bind(node)
        defines.update(mine)
        for name, nodes in changes.items():  # a change keeps the definition it changes
            defines.setdefault(name, []).extend(nodes)
    tree = trees[-1][1]
    target = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and n.name == function), None)
    if target is None:
        return None
    keep: set[int] = {id(target)}
    todo = [target]

    def close() -> None:
        while todo:
            for name in _used(todo.pop()):
                for node in defines.get(name, []):
                    if id(node) not in keep:
                        keep.add(id(node))
                        todo.append(node)
    close()
    # a call at the listing's top level of one of its helpers that changes a name the function uses (``setup()``
    # setting CONFIG["complement"]) runs for a reader who runs the block: it is no example call
    used = {name for c, t in trees for n in t.body if id(n) in keep for name in _used(n)}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
            helper = next((d for d in defines.get(node.value.func.id, [])
                           if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
            changed = {r for n in _mutated_by(helper) for r in aliases.roots(n)} if helper is not None else set()
            if helper is not None and helper is not target and changed & used and id(node) not in keep:
                keep.add(id(node))
                todo.append(node)
                close()

    def imports(node: ast.stmt) -> bool:
        return isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.Try) and all(isinstance(b, (ast.Import, ast.ImportFrom)) for b in node.body))
    return "\n".join(_segment(c, n) for c, t in trees for n in t.body if imports(n) or id(n) in keep) + "\n"


def defines(listing: Listing, function: str) -> bool:
    """Whether the listing defines ``function`` at module level (False for a listing that is not Python)."""
    try:
        tree = parse_code(listing.code)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function for n in tree.body)


def candidates(listings: Sequence[Listing], quote: str, function: str | None = None) -> list[int]:
    """The indexes of the listings a claim's ``quote`` may mean, in reading order: those holding the quote that define
    ``function`` (when one does), else every listing holding the quote."""
    holding = [i for i, listing in enumerate(listings) if holds(listing, quote)]
    if function:
        defining = [i for i in holding if defines(listings[i], function)]
        if defining:
            return defining
    return holding


def claimed_listing(listings: Sequence[Listing], quote: str, function: str | None = None,
                    occurrence: int | None = None) -> int:
    """The index of the listing a code claim means: the one listing holding ``quote`` (and defining ``function``), or,
    where several do (a first version of a function and a later one, both printing the same ``def`` line), the
    ``occurrence``-th of them in reading order (1 for the first). One rule for every reader of a claim (the code
    check, its builds_on, the corrected listing's patch, init): a quote several listings hold is never resolved by
    taking the first.

    Raises ``AuditError`` (``field``: ``quote`` or ``occurrence``) when no listing holds the quote, when several do and
    ``occurrence`` is not given, or when ``occurrence`` is past the last of them."""
    found = candidates(listings, quote, function)
    if not found:
        raise AuditError(f"no code listing in the snapshot contains {quote!r}", field="quote")
    lines = ", ".join(f"{n}. lines {listings[i].start}–{listings[i].end}" for n, i in enumerate(found, start=1))
    if occurrence is None:
        if len(found) == 1:
            return found[0]
        raise AuditError(f"{len(found)} code listings contain {quote!r} ({lines}): say which the claim means with "
                         f"occurrence: 1 … {len(found)}, counted in reading order", field="occurrence")
    if not 1 <= occurrence <= len(found):
        raise AuditError(f"occurrence {occurrence}: {'only one' if len(found) == 1 else len(found)} code "
                         f"listing{'s' * (len(found) > 1)} contain{'s' * (len(found) == 1)} {quote!r} ({lines})",
                         field="occurrence")
    return found[occurrence - 1]


def occurrence_of(listings: Sequence[Listing], at: int, quote: str, function: str | None = None) -> int | None:
    """The ``occurrence`` a claim on listing ``at`` needs: its place among the listings holding ``quote`` (1-based),
    None when it is the only one."""
    found = candidates(listings, quote, function)
    if len(found) < 2 or at not in found:
        return None
    return found.index(at) + 1


def function_source(text: str, quote: str, function: str, builds_on: Sequence[str] = (),
                    occurrence: int | None = None) -> tuple[Listing, str]:
    """The listing the claim means (``claimed_listing``: the one holding ``quote``, or the ``occurrence``-th of
    several) and what of it ``function`` runs with (``module_source``), with the definitions of the earlier listings
    that contain each of ``builds_on``, and the imports, constants and definitions of earlier listings that bind a
    name it uses and does not bind itself (``earlier_bindings``: a notebook's first cell importing NumPy).

    Raises ``AuditError`` when no listing contains the quote (or one of ``builds_on``, in it or before it; one in it
    is read with it anyway), when the quote is
    ambiguous, when a listing is not valid Python, or when it does not define ``function``.
    """
    listings = find_listings(text)
    at = claimed_listing(listings, quote, function, occurrence)
    listing = listings[at]
    earlier = []
    for line in builds_on:
        if holds(listing, line):
            continue  # a helper in the listing's own block: read with it already
        found = [e for e in listings[:at] if holds(e, line)]
        if not found:
            raise AuditError(f"neither the listing at lines {listing.start}–{listing.end} nor one before it contains "
                             f"{line!r}")
        earlier.append(found[-1])
    try:
        for e in earlier:
            parse_code(e.code)
    except SyntaxError as exc:
        raise AuditError(f"a listing it builds on is not valid Python ({exc.msg}" + (f", listing line {exc.lineno}" if exc.lineno else "") + ")")
    try:
        source = module_source(listing.code, function, [e.code for e in earlier])
    except SyntaxError as exc:
        raise AuditError(f"the listing at lines {listing.start}–{listing.end} is not valid Python "
                         f"({exc.msg}" + (f", listing line {exc.lineno}" if exc.lineno else "") + ")")
    if source is None:
        raise AuditError(f"the listing at lines {listing.start}–{listing.end} does not define {function}()")
    return listing, futures_first(earlier_bindings(listings[:at], source), [e.code for e in listings[:at]])


def _futures(code: str | ast.Module) -> list[ast.ImportFrom]:
    """The ``from __future__`` imports of ``code`` (its text, or its parsed tree)."""
    try:
        tree = parse_code(code) if isinstance(code, str) else code
    except (SyntaxError, ValueError):
        return []
    return [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]


def futures_first(source: str, earlier: Sequence[str]) -> str:
    """``source`` with its ``from __future__`` imports, and those of the ``earlier`` listings (the text is one module
    read in order, as a notebook's kernel keeps them from cell to cell), once each at its top, where Python requires
    them: ``from __future__ import annotations`` in the first code block still postpones the type hints of a later
    block that builds on it, and a block repeating it after the earlier block's code is not a syntax error."""
    own = _futures(source)
    features = list(dict.fromkeys(a.name for code in [*earlier, source] for n in _futures(code) for a in n.names))
    if not features:
        return source
    lines = source.split("\n")
    for node in sorted(own, key=lambda n: n.lineno, reverse=True):
        del lines[node.lineno - 1:node.end_lineno]
    return f"from __future__ import {', '.join(features)}\n" + "\n".join(lines)


def _binds(node: ast.stmt) -> list[str]:
    """The module-level names a statement binds: a definition's or constant's (``_defined``), or an import's (also
    inside a module-level ``try``)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    if isinstance(node, ast.Try):
        return [n for b in node.body for n in _binds(b)]
    return _defined(node)


def _unbound(source: str) -> set[str]:
    """The names ``source`` (what runs) uses that nothing in it binds and Python does not provide."""
    import builtins

    tree = parse_code(source)
    bound = {name for node in tree.body for name in _binds(node)} | set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound


MAX_BINDINGS = 50  # statements of earlier listings brought along for one function


def earlier_bindings(earlier: Sequence[Listing], source: str) -> str:
    """``source`` with, before it, the statements of ``earlier`` listings (printed before its own) that bind a name it
    uses and does not bind: for each such name the latest module-level import, constant or definition binding it, as
    a reader running the text in order (a notebook's cells) has it; and so on for the names those use. A notebook
    whose first cell imports NumPy as ``np`` then gives every later cell its ``np``. A name no earlier listing binds
    is left unbound: a NameError on it is the listing's own."""
    parsed = []
    for e in earlier:
        try:
            parsed.append((e.code, parse_code(e.code)))
        except (SyntaxError, ValueError):
            continue
    added: dict[tuple[int, int], str] = {}
    current = source
    while len(added) < MAX_BINDINGS:
        try:
            missing = _unbound(current)
        except SyntaxError:
            return source
        new = False
        for name in sorted(missing):
            for at in range(len(parsed) - 1, -1, -1):
                code, tree = parsed[at]
                node = next((n for n in reversed(tree.body) if name in _binds(n)), None)
                if node is not None:
                    if (at, node.lineno) not in added:
                        added[(at, node.lineno)] = _segment(code, node)
                        new = True
                    break
        if not new:
            break
        current = "\n".join(added[key] for key in sorted(added)) + "\n" + source
    return current


def bound_earlier(text: str, listing: Listing, name: str) -> int | None:
    """The snapshot line of the latest listing before ``listing`` that binds ``name`` anywhere in its module-level code
    (an import, an assignment, a definition, a loop's target, inside a block or not); None when none does."""
    found = None
    for e in find_listings(text):
        if e.start >= listing.start:
            break
        try:
            tree = parse_code(e.code)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and node.id == name) or \
                    (isinstance(node, ast.alias) and (node.asname or node.name).split(".")[0] == name) or \
                    (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name):
                found = e.start + getattr(node, "lineno", 1) - 1
                break
    return found


def given_in_prose(text: str, name: str) -> int | None:
    """The first snapshot line outside every listing where the text gives ``name`` a value in its prose — “Relevant:
    `["A", "B"]`”, “`Relevant = {...}`”, “let Relevant be …” — as lecture notes give the data a listing reads as a
    global; None when the prose never does."""
    inside = set()
    for e in find_listings(text):
        inside.update(range(e.start, e.end + 1))
    given = re.compile(rf"(?<![\w.]){re.escape(name)}`?\s*(?::|=|:=|\bis\b|\bbe\b)|\blet\s+`?{re.escape(name)}\b")
    for number, line in enumerate(text.splitlines(), start=1):
        if number not in inside and given.search(line):
            return number
    return None


def builds_on_lines(text: str, quote: str, function: str, occurrence: int | None = None) -> list[str]:
    """The ``builds_on`` a code claim needs: for each name ``function`` uses (directly or through its listing's own
    definitions) that its listing neither defines nor imports and Python does not provide, the first line of the
    latest earlier listing defining it ("def dcg(grades):"), once each, in the order of the listings; empty when
    nothing is missing or a listing is not Python. A notebook's cells build on each other this way."""
    import builtins

    listings = find_listings(text)
    try:
        at = claimed_listing(listings, quote, function, occurrence)
    except AuditError:
        return []
    try:
        own = module_source(listings[at].code, function)
        earlier = [(e, parse_code(e.code)) for e in listings[:at]]
    except SyntaxError:
        return []
    if own is None:
        return []
    tree = parse_code(own)
    # bound somewhere in what runs: module-level definitions, imports, parameters, assignments and loop targets
    bound = {name for node in tree.body for name in _defined(node)} | set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    missing = {name for node in tree.body for name in _used(node)} - bound
    lines: list[str] = []
    for name in sorted(missing):
        for listing, parsed in reversed(earlier):
            node = next((n for n in parsed.body if name in _defined(n)), None)
            if node is not None:
                line = listing.code.split("\n")[node.lineno - 1].strip()
                if line not in lines:
                    lines.append(line)
                break
    return sorted(lines, key=lambda line: next(i for i, (e, _) in enumerate(earlier) if line in e.code))


def _annotations(tree: ast.AST) -> list[ast.expr]:
    """The type hints of ``tree``: parameters', return values' and annotated assignments'."""
    out: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            out.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            out.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            out.append(node.annotation)
    return out


def unused_imports(source: str) -> list[tuple[str, int, int]]:
    """The module-level imports of ``source`` (what runs) whose names nothing uses when it runs, as (module, first
    line, last line), lines 1-based in ``source``: never named, or named only in type hints that ``from __future__
    import annotations`` leaves unevaluated. ``from __future__`` itself is not one."""
    try:
        tree = parse_code(source)
    except (SyntaxError, ValueError):
        return []
    postponed = any(a.name == "annotations" for n in _futures(tree) for a in n.names)
    hinted = {id(n) for a in (_annotations(tree) if postponed else []) for n in ast.walk(a)}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in hinted}
    out = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module == "__future__" or node.level):
            continue
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or any(a.name == "*" for a in node.names):
            continue
        names = [(a.asname or a.name).split(".")[0] for a in node.names]
        if not set(names) & used:
            module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            out.append((module, node.lineno, node.end_lineno))
    return out


def in_force(snapshot: str, quote: str, function: str, occurrence: int | None = None) -> tuple[int, int | None]:
    """Where the version of ``function`` a claim means is in force in ``snapshot``, as offsets: from the start of
    its listing to the start of the next listing that defines the function again (None: to the end of the text).
    (0, None) when the listing cannot be told."""
    listings = find_listings(snapshot)
    try:
        at = claimed_listing(listings, quote, function, occurrence)
    except AuditError:
        return 0, None
    starts = [0] + [m.end() for m in re.finditer("\n", snapshot)]
    for listing in listings[at + 1:]:
        if re.search(rf"^\s*def\s+{re.escape(function)}\s*\(", listing.code, re.M):
            return starts[listings[at].start - 1], starts[listing.start - 1]
    return starts[listings[at].start - 1], None



def _free(node: ast.AST) -> set[str]:
    """The names a function (or class) reads from the module when called: what its body loads and neither takes as a
    parameter nor binds itself (a default, ``k=K``, is read when the function is defined)."""
    body = ast.Module(body=node.body, type_ignores=[])  # defaults and annotations are read once, when it is defined
    local = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
    local |= {n.id for n in ast.walk(body) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    local |= {n.name for n in ast.walk(body) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return _used(body) - local


def _same_binding(node: ast.stmt, name: str, own: list[ast.stmt]) -> bool:
    """Whether ``node`` binds ``name`` as one of ``own`` (the statements of what runs) does: the same import of it
    (a notebook importing NumPy as ``np`` in every cell) or the same statement."""
    def alias(n: ast.stmt):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            return next(((getattr(n, "module", None), getattr(n, "level", 0), a.name) for a in n.names
                         if (a.asname or a.name).split(".")[0] == name), None)
        return None
    return any(ast.dump(node) == ast.dump(o) or (alias(node) is not None and alias(node) == alias(o)) for o in own)


def changed_roots(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names whose object ``function``'s body changes in place, whatever binds them: a method that changes it
    (``r.reverse()``), an augmented assignment, ``del`` of a part, an item or attribute assigned
    (``CFG["c"] = True``)."""
    return {name for node in ast.walk(function) if isinstance(node, ast.stmt) and node is not function
            for name in _changed_in_place(node)}


def _mutated_by(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The module-level names a call of ``function`` binds or changes: those it declares ``global`` and assigns, and
    those it does not make its own (no parameter, no assignment) but changes in place (``changed_roots``:
    ``CFG["c"] = True``, ``CFG.update(…)``)."""
    declared = {n for g in ast.walk(function) if isinstance(g, ast.Global) for n in g.names}
    local = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    local |= {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - declared
    assigned = {t.id for node in ast.walk(function) if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(t, ast.Name) and t.id in declared}
    return assigned | (changed_roots(function) - local)
