"""What a chapter does to a listing's function after printing it: the later statements (in later listings, and in
the ``>>>`` sessions the text prints) that bind again or change a name the function reads, so the calls the text
prints after them run as a reader who runs the text in order gets them (``rebound_later``)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from audit.errors import AuditError
from audit.text.listings import (
    Aliases,
    Listing,
    _changed_in_place,
    _binds,
    _changed,
    _free,
    _mutated_by,
    _same_binding,
    _used,
    claimed_listing,
    find_listings,
)
from audit.text.python_code import parse_code


@dataclass(frozen=True)
class Rebinding:
    """A later listing's statement that binds again, otherwise, or changes in place a name a function reads."""

    listing: Listing
    name: str
    code: str  # the statement, as a reader runs it
    line: int = 0  # the snapshot line the statement ends on: a call printed after it meets it


def _changes(node: ast.stmt, read: set[str], shared: set[str], binders: dict[str, list[ast.stmt]],
             helpers: dict[str, ast.FunctionDef | ast.AsyncFunctionDef], aliases: Aliases) -> list[str]:
    """The names of ``read`` a later module-level statement binds again otherwise, or changes; and of ``shared``
    (objects a default holds, ``opts=OPTS``) those it changes in place only (binding the name again leaves the
    default's object as it was). Directly, through a loop's target or an assignment expression, or by calling a
    helper that changes them (``fix()``), or through an alias (``C = CONFIG`` before ``C["c"] = True``)."""
    names: list[str] = []

    def add(found) -> None:
        names.extend(n for n in found if n not in names)

    rebound = {n for t in (node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)])
               if isinstance(t, ast.Name) for n in [t.id]} if isinstance(node, (ast.Assign, ast.AnnAssign)) else set()
    add(n for n in _binds(node) if (n in read or (n in shared and n not in rebound))
        and not _same_binding(node, n, binders.get(n, [])))
    add(n for n in _changed(node) if n in read or n in shared)
    add(sorted(r for n in _changed_in_place(node) for r in aliases.roots(n) - {n}
               if (r in read or r in shared) and r not in helpers))  # a function held in a dict is not changed
    if isinstance(node, (ast.For, ast.AsyncFor, ast.With)) or any(isinstance(x, ast.NamedExpr) for x in ast.walk(node)):
        add(sorted({x.id for x in ast.walk(node) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)} & read))
    for call in (x for x in ast.walk(node) if isinstance(x, ast.Call) and isinstance(x.func, ast.Name)):
        helper = helpers.get(call.func.id)
        if helper is not None:
            add(sorted({r for n in _mutated_by(helper) for r in aliases.roots(n)} & (read | shared)))
    return names


def rebound_later(text: str, quote: str, function: str, source: str,
                  occurrence: int | None = None) -> list[Rebinding]:
    """The statements after the claimed listing that bind again, otherwise, or change in place a module-level name
    ``function`` reads when called (``source``, what ``function_source`` gave: a constant, a helper, an import, and
    what its helpers read), up to the listing that defines ``function`` again: in later listings, and in the ``>>>``
    sessions the text prints after the listing begins (its own docstring's included). A statement counts directly,
    through a loop's target or an assignment expression, or by calling a helper that changes the name (``fix()``,
    ``global``). A reader running the text in order who calls the function after such a statement gets another
    function than the one printed (``SCALE = 0`` two blocks on turns a recall into 1 − recall), so the text's calls
    after it are run with it. The same import or statement again (``import numpy as np`` in every cell) changes
    nothing; a block a reader never sees (in an HTML comment, a hidden element) is not run."""
    from audit.text.doctests import examples
    from audit.text.markdown import unseen

    listings = find_listings(text)
    try:
        at = claimed_listing(listings, quote, function, occurrence)
        tree = parse_code(source)
    except (AuditError, SyntaxError, ValueError):
        return []
    binders: dict[str, list[ast.stmt]] = {}
    for node in tree.body:
        for name in _binds(node):
            binders.setdefault(name, []).append(node)
    helpers = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    aliases = Aliases()  # names bound to another's object (``C = CONFIG``), in reading order
    for node in tree.body:
        aliases.bind(node)
    try:  # the listing's other functions: a later call of one may change what the function reads
        own = parse_code(listings[at].code).body
        helpers = {**{n.name: n for n in own if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}, **helpers}
        for node in own:
            aliases.bind(node)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        pass
    target = helpers.get(function)
    if target is None:
        return []
    read, todo = set(), [target]
    while todo:
        for name in _free(todo.pop()) - read:
            read.add(name)
            todo.extend(n for n in binders.get(name, []) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                               ast.ClassDef)))
    # a default that is a module-level object (``opts=OPTS``) is that object: a later change of it is the function's
    shared = {d.id for d in [*target.args.defaults, *target.args.kw_defaults] if isinstance(d, ast.Name)}
    shared &= set(binders)
    read &= set(binders) - {function}
    read.add(function)  # ``recall_at_k = logged(recall_at_k)``: a later binding of the name itself is what is called
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    hidden = [(a, b) for a, b, _ in unseen(text)] if "<" in text or "[" in text or "%" in text or ":::" in text \
        else []

    def seen(line: int) -> bool:
        at_offset = starts[min(line, len(starts)) - 1]
        return not any(a <= at_offset < b for a, b in hidden)

    # what runs after the listing, in reading order: later listings' statements, and the sessions' examples
    steps: list[tuple[int, Listing, list[ast.stmt]]] = []
    stop = None
    for listing in listings[at + 1:]:
        try:
            statements = parse_code(listing.code).body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue  # a session: read below, example by example
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function for n in statements):
            stop = listing.start  # a new version of the function: its own claim
            break
        if seen(listing.start):
            steps.append((listing.start, listing, statements))
    first = listings[at].start
    for example in examples(text) if ">>>" in text else []:
        line = text.count("\n", 0, example.offset) + 1
        if line < first or (stop is not None and line >= stop) or not seen(line):
            continue
        try:
            statements = parse_code(example.source).body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        steps.append((line, Listing(line, line, "session", example.source), statements))
    out = []
    later: dict[str, ast.stmt] = {}  # definitions of the later steps, which a change may call (``fix()``)
    for _, listing, statements in sorted(steps, key=lambda step: step[0]):
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                later[node.name] = node
                if not isinstance(node, ast.ClassDef):
                    helpers[node.name] = node
                if node.name not in read or _same_binding(node, node.name, binders.get(node.name, [])):
                    continue  # a new helper is a change only once called; a helper written anew is one now
            names = _changes(node, read, shared, binders, helpers, aliases)
            if names:
                needed = [later[n] for n in sorted(_used(node)) if n in later and later[n] is not node]
                needed += [b for n in sorted(_used(node)) for b in [aliases.binding(n)] if b is not None
                           and b is not node and b not in needed]
                line = listing.start + (node.end_lineno or node.lineno) - 1 if listing.style != "session" \
                    else listing.start
                out.append(Rebinding(listing, names[0], "\n".join(ast.unparse(x) for x in [*needed, node]), line))
            aliases.bind(node)
    return out
