"""Doctests and the names they pass: the ``>>>`` examples of a text, read with the standard library's doctest parser.

A text shows a listing's function at work in two ways: a doctest (``>>> r_precision([0, 1, 0])`` and the output on
the next line, in a docstring or in the prose) and a call in a sentence. Both are claims about the listing. This
module finds the examples (``doctest.DocTestParser``, the parser doctest itself uses: its prompts, continuation
lines, expected output and expected exceptions), and the literal a name is assigned before a call passes it
(``relevance = [3, 2, 3, 0, 1, 2]`` in a listing or a sentence, ``>>> r = [0, 0, 1]`` earlier in a session).
"""

from __future__ import annotations

import ast
import doctest
import re
from dataclasses import dataclass
from functools import lru_cache
from audit.text.python_code import parse_code
from audit.text.literals import literal as read_literal

_PARSER = doctest.DocTestParser()
#: Inline code in a sentence (`relevance = [3, 2, 3, 0, 1, 2]`).
_INLINE = re.compile(r"`([^`\n]+)`")
#: A Markdown code fence (``` or ~~~, up to three spaces in).
_FENCE_LINE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})")


@dataclass(frozen=True)
class Example:
    """One doctest example: its ``source`` (the statement or expression, continuation lines joined, no prompt),
    ``want`` (the output doctest expects, "" for none), ``exc_msg`` (the exception line doctest expects, e.g.
    ``ValueError: k is past the end``, or None) and ``offset``, where its prompt is in the text."""

    source: str
    want: str
    exc_msg: str | None
    offset: int

    @property
    def raises(self) -> str | None:
        """The expected exception as doctest prints it: ``Type: message`` (``Type`` alone without one)."""
        return None if self.exc_msg is None else self.exc_msg.strip()


def _line_offsets(text: str) -> list[int]:
    out, at = [], 0
    for line in text.split("\n"):
        out.append(at)
        at += len(line) + 1
    return out


def _docstrings(code: str) -> list[tuple[int, int, str]]:
    """The docstrings of a Python listing (its module's, its functions' and classes'), each as (first line, last
    line, the docstring's text), lines 1-based in ``code``: what doctest reads as a docstring's examples."""
    try:
        tree = parse_code(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or not node.body:
            continue
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            out.append((first.lineno, first.end_lineno, first.value.value))
    return sorted(out)


def _parse(chunk: str, first_line: int, starts: list[int], end: int) -> list[Example] | None:
    """The examples doctest reads in ``chunk``, whose first line is line ``first_line`` (0-based) of the text; None
    when doctest refuses it (a continuation line indented otherwise than its prompt)."""
    try:
        parsed = _PARSER.get_examples(chunk)
    except ValueError:
        return None
    return [Example(e.source.strip(), e.want, e.exc_msg,
                    starts[first_line + e.lineno] + e.indent if first_line + e.lineno < len(starts) else end)
            for e in parsed]


def _read(chunk: str, first_line: int, starts: list[int], end: int) -> list[Example]:
    """``_parse``, and where doctest refuses the whole chunk, each of its blank-line-separated blocks that holds a
    prompt, so one ill-indented session does not hide the others."""
    whole = _parse(chunk, first_line, starts, end)
    if whole is not None:
        return whole
    out: list[Example] = []
    block: list[str] = []
    first = 0
    for i, line in enumerate(chunk.split("\n") + [""]):
        if line.strip():
            if not block:
                first = i
            block.append(line)
            continue
        if any(">>>" in b for b in block):
            out += _parse("\n".join(block) + "\n", first_line + first, starts, end) or []
        block = []
    return out


def examples(text: str) -> list[Example]:
    """Every ``>>>`` example of ``text``, in reading order, as doctest reads it: a Python listing's docstrings each
    on its own (the docstring ends an example's output, as it does for doctest), and the text outside them (a
    session in the prose or in a console block)."""
    if ">>>" not in text:
        return []
    from audit.text.listings import find_listings

    starts = _line_offsets(text)
    lines = text.split("\n")
    out: list[Example] = []
    # a Markdown fence closes a console block: it is markup, never part of an example's output
    masked = ["" if _FENCE_LINE.match(line) else line for line in lines]
    for listing in find_listings(text):
        for first, last, doc in _docstrings(listing.code):
            if ">>>" not in doc:
                continue
            top = listing.start + first - 2  # the docstring's first line, 0-based in the text
            out += _read(doc, top, starts, len(text))
            for n in range(top, min(listing.start + last - 1, len(masked))):
                masked[n] = ""
    out += _read("\n".join(masked), 0, starts, len(text))
    return sorted(out, key=lambda e: e.offset)


def _assignment(code: str) -> tuple[str, str] | None:
    """``(name, literal)`` for one statement assigning a literal value to one name (``r = [0, 1, 0]``), else None."""
    try:
        tree = parse_code(code.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign):
        return None
    node = tree.body[0]
    if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return None
    try:
        read_literal(node.value)   # a literal, or a NumPy array of one (``r = np.array([0, 1, 0])``)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return node.targets[0].id, ast.get_source_segment(code.strip(), node.value)


#: Most lines a literal assigned over several lines may take (``relevance = [3, 2, 3,`` … ``0, 1, 2]``).
_MAX_CONTINUED = 40


def _continued_assignment(lines: list[str], i: int) -> tuple[str, str] | None:
    """``_assignment`` of a statement that opens a bracket on line ``i`` and closes it on a later line."""
    depth = lambda t: sum(t.count(c) for c in "[({") - sum(t.count(c) for c in "])}")  # noqa: E731
    if depth(lines[i]) <= 0:
        return None
    code = lines[i]
    for line in lines[i + 1:i + _MAX_CONTINUED]:
        code += "\n" + line
        if depth(code) <= 0:
            return _assignment(code)
    return None


def assignments(text: str) -> list[tuple[int, str, str]]:
    """Each literal assigned to a name in ``text`` as ``(offset, name, literal as printed)``, in reading order: a
    doctest example's statement, a line of a listing or the text, or inline code in a sentence."""
    out: list[tuple[int, str, str]] = []
    for e in examples(text):
        found = _assignment(e.source)
        if found:
            out.append((e.offset, *found))
    starts = _line_offsets(text)
    lines = text.split("\n")
    for i, (start, line) in enumerate(zip(starts, lines)):
        if ">>>" in line or "=" not in line:
            continue
        if line[:1].isspace():
            continue  # an indented line assigns inside a function (or continues a statement): not a name a text binds
        found = _assignment(line) or _continued_assignment(lines, i)
        if found:
            out.append((start, *found))
            continue
        for m in _INLINE.finditer(line):
            found = _assignment(m.group(1))
            if found:
                out.append((start + m.start(1), *found))
    return sorted(out)


#: Calls a doctest wraps around the call of a listing's function to print its value: ``print(f(…))``, and
#: ``round(f(…), 4)``, whose output is then the value at the printed precision.
_WRAPPERS = ("print", "round")


def unwrapped(call: str) -> str:
    """The call of the function a shown call makes, as printed: ``round(precision_at_k(r, 3), 4)`` and
    ``print(f(…))`` give the inner call, whose value the output prints (rounded: at the printed precision); any
    other text is returned as it is."""
    text = call.strip()
    try:
        node = parse_code(text, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return call
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS \
            and not node.keywords and node.args and isinstance(node.args[0], ast.Call) \
            and (len(node.args) == 1 or (node.func.id == "round" and len(node.args) == 2
                                         and isinstance(node.args[1], ast.Constant)
                                         and type(node.args[1].value) is int)):
        return ast.get_source_segment(text, node.args[0]) or call
    return call


def passed_names(call: str) -> list[str]:
    """The names a call passes as arguments (``ndcg_at_k(relevance, 3)``: relevance), in order; through a wrapping
    ``round(…, n)`` or ``print(…)`` (``unwrapped``)."""
    try:
        node = parse_code(unwrapped(call).strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    if not isinstance(node, ast.Call):
        return []
    args = [*node.args, *(k.value for k in node.keywords)]
    return list(dict.fromkeys(a.id for a in args if isinstance(a, ast.Name)))


#: Methods that change a list, set, mapping or NumPy array in place (``r.reverse()``, ``relevant.add("d9")``).
_MUTATORS = ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "add", "discard", "update",
             "setdefault", "popitem", "difference_update", "intersection_update", "symmetric_difference_update",
             "fill", "resize", "put", "itemset", "shuffle")
_AUG = r"(?:\*\*|//|>>|<<|[-+*/%|&^@])"


_PROMPT = re.compile(r"(?:>>>|\.\.\.)(?: |$)")
_SCOPE = re.compile(r"(?:async\s+def|def|class)\b|lambda\b")


def _code_line(line: str) -> str:
    """A line of code without a doctest prompt (``>>> `` or ``... ``) before it, its indentation kept."""
    stripped = line.lstrip()
    m = _PROMPT.match(stripped)
    return stripped[m.end():] if m else line


def _in_scope(text: str, at: int) -> bool:
    """Whether the line holding offset ``at`` sits in a function's or a class's body: its indentation leads up, block
    by block, to a ``def`` or ``class`` line before a line at the margin (``diffs = np.asarray(diffs)`` inside
    ``def bootstrap(diffs):`` binds the function's own name, not the text's ``diffs``)."""
    start = text.rfind("\n", 0, at) + 1
    line = _code_line(text[start:text.find("\n", at) if text.find("\n", at) >= 0 else len(text)])
    indent = len(line) - len(line.lstrip())
    while indent > 0 and start > 0:
        end = start - 1
        start = text.rfind("\n", 0, end) + 1
        above = _code_line(text[start:end])
        if not above.strip() or above.lstrip().startswith("#"):
            continue
        level = len(above) - len(above.lstrip())
        if level < indent:
            if _SCOPE.match(above.lstrip()):
                return True
            indent = level
    return False


@lru_cache(maxsize=8)
def _argument_changers(text: str) -> frozenset[str]:
    """The functions the text's listings define that change an argument they are given in place (``def fix(r):
    r.reverse()``, ``listings.changed_roots``): a call of one passing a name changes what the name holds."""
    from audit.text.listings import changed_roots, find_listings

    out = set()
    for listing in find_listings(text) if "def " in text else []:
        try:
            tree = parse_code(listing.code)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
            # a parameter the body binds again (``diffs = np.asarray(diffs)``) is no longer the caller's object
            params -= {x.id for x in ast.walk(fn) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)}
            if changed_roots(fn) & params:
                out.add(fn.name)
    return frozenset(out)


def _changed_after(text: str, name: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` changes ``name`` after its literal assignment: an item or slice assigned
    (``r[0] = 1``), an augmented assignment, ``del``, a method that changes it in place (``r.reverse()``), a shuffle
    of it, or an assignment of something other than a literal at a statement's start (``r = sorted(r)``). A change
    inside a function's or class's body is to that scope's own name (``_in_scope``) and does not count."""
    n = re.escape(name)
    changes = (rf"(?<![\w.]){n}\s*\[[^\]\n]*\]\s*{_AUG}?=(?!=)", rf"(?<![\w.]){n}\s*{_AUG}=(?!=)",
               rf"\bdel\s+{n}\b", rf"(?<![\w.]){n}\s*\.\s*(?:{'|'.join(_MUTATORS)})\s*\(",
               rf"\bshuffle\s*\(\s*{n}\b")
    for pattern in changes:
        for m in re.compile(pattern).finditer(text, start, end):
            if not _in_scope(text, m.start()):
                return True
    # an alias of it (``alias = r``; what changes the alias changes it), a loop writing into it (``for r[0] in …``),
    # heapq's in-place functions, and a function of the text that changes the argument it is given (``fix(r)``)
    indirect = [rf"(?m)^[ \t]*(?:>>>[ \t]+)?[A-Za-z_]\w*[ \t]*=[ \t]*{n}[ \t]*(?:#.*)?$", rf"\bfor\s+{n}\s*\[",
                rf"\bheapq\s*\.\s*heap\w*\s*\(\s*{n}\b",
                *(rf"(?<![\w.])(?<!def ){re.escape(f)}\s*\([^()]*(?<![\w.]){n}(?![\w.])"
                  for f in _argument_changers(text))]
    for pattern in indirect:
        for m in re.compile(pattern).finditer(text, start, end):
            if not _in_scope(text, m.start()):
                return True
    for m in re.compile(rf"(?m)^\s*(?:(?:>>>|\.\.\.)\s+)?({n}\s*=(?!=).*)$").finditer(text, start, end):
        if _in_scope(text, m.start(1)) or _assignment(m.group(1)) is not None:
            continue
        try:
            tree = parse_code(m.group(1).strip())
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue  # prose ("k = 3 is the cutoff"), not a statement
        if tree.body and isinstance(tree.body[0], ast.Assign):
            return True  # Python that binds the name to something else than a literal
    return False


def bindings_before(text: str, offset: int, names: list[str]) -> dict[str, str]:
    """The literal each of ``names`` was last assigned before ``offset`` in ``text`` (as printed); a name with no
    such assignment, or one the text changes between that assignment and ``offset`` (``r.reverse()``, ``r[0] = 1``,
    ``r = sorted(r)``: the call then passes something else than the literal), is left out."""
    out: dict[str, tuple[int, str]] = {}
    for at, name, literal in assignments(text):
        if at >= offset:
            break
        if name in names:
            out[name] = (at, literal)
    kept = {}
    for name, (at, literal) in out.items():
        line_end = text.find("\n", at)
        after = offset if line_end < 0 or line_end >= offset else line_end
        if not _changed_after(text, name, after, offset):
            kept[name] = literal
    return kept


def occurrences(text: str, call: str) -> list[int]:
    """Where ``call`` is printed in ``text`` (its offsets), whitespace as printed."""
    return [m.start() for m in re.finditer(re.escape(call), text)]


def _same_literal(a: str, b: str) -> bool:
    try:
        return read_literal(a) == read_literal(b)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return " ".join(a.split()) == " ".join(b.split())


def place(text: str, call: str, given: dict[str, str], after: int = 0) -> int | None:
    """Where ``call`` is printed with its names bound as ``given`` says (the first such place; the first place for a
    call that passes no name), or None. ``after``: the first such place at or after this offset (where one of several
    versions of a function is printed), else the first anywhere."""
    return next(iter(places(text, call, given, after)), None)


def places(text: str, call: str, given: dict[str, str], after: int = 0) -> list[int]:
    """Every place ``call`` is printed with its names bound as ``given`` says: those at or after ``after`` in reading
    order, then those before it (``place`` gives the first)."""
    names = passed_names(call)
    found = occurrences(text, call)
    out = []
    for at in [a for a in found if a >= after] + [a for a in found if a < after]:
        bound = bindings_before(text, at, names) if names else {}
        if all(n in bound and n in given and _same_literal(bound[n], given[n]) for n in names):
            out.append(at)
    return out


def _is_literal(source: str) -> bool:
    try:
        read_literal(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def given_problem(text: str, call: str, given: dict[str, str]) -> str:
    """Why a shown call's ``given`` names do not hold in ``text`` ("" when they do): every name the call passes must
    be given, each given literal must be one, and at some place the call is printed, each name's last assignment
    before it must be the given literal."""
    names = passed_names(call)
    missing = [n for n in names if n not in given]
    if missing:
        return (f"{call!r} passes {', '.join(missing)}; give the literal the text assigns "
                + ("it" if len(missing) == 1 else "each") + " before the call in given ({" + missing[0] + ": …})")
    extra = [n for n in given if n not in names]
    if extra:
        return f"given names {', '.join(extra)}, which {call!r} does not pass"
    for name, literal in given.items():
        try:
            read_literal(literal)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return (f"given: {name} is {literal!r}, not a literal value (a number, string, list, tuple, set or dict, "
                    "or a NumPy array of one)")
    places = occurrences(text, call)
    if place(text, call, given) is not None:
        return ""
    if not places:
        return ""  # the call itself is reported as not printed
    bound = bindings_before(text, places[0], names)
    wrong = next(n for n in names if n not in bound or not _same_literal(bound[n], given[n]))
    if wrong not in bound:
        assigned = list(re.finditer(rf"^[ \t]*(?:>>>[ \t]*)?{re.escape(wrong)}[ \t]*=(?!=)[ \t]*(\S[^\n]*)$",
                                    text[:places[0]], re.M))
        expression = assigned[-1].group(1).strip() if assigned else ""
        if expression and not _is_literal(expression):
            # bound to an expression (``actuals = list(range(9))``): no literal a register can give
            return (f"before {call!r} the text assigns {wrong} = {expression[:80]}, which is no literal value: the "
                    "audit passes a call's names only as the literals the text assigns them, so this call cannot be "
                    "checked as printed; leave it out of calls, or print the call with the literal")
        return f"the text assigns {wrong} no literal before it prints {call!r}"
    return (f"before {call!r} the text assigns {wrong} = {bound[wrong]}, not {given[wrong]}; write the literal the "
            "text assigns")


def passed_values(text: str, function: str, param: str, index: int | None) -> list[object]:
    """The literal values the text's code passes ``function`` for ``param`` (by keyword, or at position ``index``)
    in every call it prints: in its listings and in its ``>>>`` sessions. A value that is no literal is left out."""
    from audit.text.listings import find_listings
    from audit.text.literals import literal

    codes = [listing.code for listing in find_listings(text)] + [e.source for e in examples(text)]
    out: list[object] = []
    for code in codes:
        if function not in code:
            continue
        try:
            tree = parse_code(code)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function):
                continue
            args = [k.value for k in node.keywords if k.arg == param]
            if index is not None and index < len(node.args) and not any(isinstance(a, ast.Starred)
                                                                       for a in node.args[:index + 1]):
                args.append(node.args[index])
            for arg in args:
                try:
                    out.append(literal(arg))
                except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                    continue
    return out
