"""A listing's own refusals: the preconditions it checks on its arguments and raises on, on purpose.

A listing that says ``if k > len(r): raise ValueError("k exceeds the ranking")`` or ``assert k >= 1`` states the
inputs it takes; an input it refuses that way is outside what it claims to compute, not a defect of it. Such a guard
is read from the listing's syntax tree, never by running its code: a statement of the function's own body (not
nested in a loop or another block) that is ``if <condition>: raise <Exception>(<message>)`` or ``assert <condition>[,
<message>]``, whose condition reads only the function's parameters (as the caller passed them: none the body rebinds
before the guard), built-in functions, literals and the modules the listing imports. A call that raises the guard's
exception type with a message the guard's own message gives (a literal, or an f-string's literal parts around
anything) is that guard's refusal. An exception the listing does not
raise on purpose (an IndexError past the end of a list, a ZeroDivisionError, NumPy's own ValueError) is never one, and
nor is a check raising an exception the interpreter raises for such a defect (``INTERPRETER_RAISED``), whatever its
message.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass

from audit.text.python_code import parse_code
from audit.evaluation.sandbox import CallResult

#: Exceptions the interpreter itself raises for a defect (an index past the end, a division by zero, a missing key):
#: a check raising one of these cannot be told from the defect by its text ("list index out of range" is Python's
#: own message too), so it is never a refusal, and what it would excuse stays the named defect.
INTERPRETER_RAISED = frozenset({"IndexError", "KeyError", "LookupError", "ZeroDivisionError", "ArithmeticError",
                                "OverflowError", "FloatingPointError", "AttributeError", "NameError",
                                "UnboundLocalError", "RecursionError", "MemoryError", "StopIteration"})

#: At least this many characters of a guard's message must be its own literal text, so that an f-string made only of
#: its arguments (``raise ValueError(f"{msg}")``) cannot pass off any ValueError as its refusal.
MIN_LITERAL = 3


@dataclass(frozen=True)
class Guard:
    """One precondition of the listing: its ``condition`` (the listing's text: the condition it raises on; for an
    ``assert``, the condition it requires, with ``asserts`` set), the exception ``kind`` it raises, the ``message``
    pattern that exception's text matches, its ``line`` in the source that runs."""

    condition: str
    kind: str
    message: str
    line: int
    asserts: bool = False

    def matches(self, text: str) -> bool:
        """Whether a raised exception's text (``Type: message``, as the sandbox reports it) is this guard's."""
        kind, _, said = text.partition(": ")
        return kind.strip() == self.kind and re.fullmatch(self.message, said, re.S) is not None

    def wording(self) -> str:
        """The guard as the report names it: its condition and the exception it raises."""
        return (f"assert {self.condition}" if self.asserts else f"if {self.condition}: raise {self.kind}")


def _pattern(node: ast.expr | None) -> str | None:
    """The regular expression the message of ``raise X(node)`` matches as ``str(exc)`` shows it; None when it cannot
    be told from the text (a variable, a call, a message with too little literal text)."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.escape(node.value)
    if isinstance(node, ast.JoinedStr):
        parts, literal = [], 0
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(re.escape(v.value))
                literal += len(v.value.strip())
            else:
                parts.append(".*")
        return "".join(parts) if literal >= MIN_LITERAL else None
    return None


def _kind(exc: ast.expr | None) -> str | None:
    """The exception type a ``raise`` names (``ValueError`` of ``raise ValueError(…)``), None when it names none."""
    name = exc.func if isinstance(exc, ast.Call) else exc
    return name.id if isinstance(name, ast.Name) else name.attr if isinstance(name, ast.Attribute) else None


def _raised(node: ast.Raise) -> tuple[str, str] | None:
    """``(exception type, message pattern)`` of ``raise ValueError("…")`` (or of a bare ``raise ValueError``)."""
    exc = node.exc
    if isinstance(exc, ast.Call):
        if exc.keywords or len(exc.args) > 1:
            return None
        name, message = exc.func, _pattern(exc.args[0] if exc.args else None)
    else:
        name, message = exc, ""
    kind = name.id if isinstance(name, ast.Name) else name.attr if isinstance(name, ast.Attribute) else None
    if kind is None or message is None or not kind[:1].isupper() or kind in INTERPRETER_RAISED:
        return None
    return kind, message


def _names(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _reads_arguments_only(test: ast.expr, allowed: set[str]) -> bool:
    """Whether a condition reads names, and only ``allowed`` ones (the parameters, built-ins, imported modules), with
    no lambda or assignment expression in it."""
    names = _names(test)
    return bool(names) and names <= allowed and not any(isinstance(n, (ast.Lambda, ast.NamedExpr))
                                                       for n in ast.walk(test))


def _rebound(statements: list[ast.stmt]) -> set[str]:
    """The names ``statements`` bind (assignments, loop and ``with`` targets, imports, definitions, anywhere in
    them), so a guard after them reading one of those names does not read the caller's argument."""
    out: set[str] = set()
    for stmt in statements:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                out |= {(a.asname or a.name).split(".")[0] for a in n.names}
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                out |= set(n.names)
    return out


def guards(source: str, function: str) -> list[Guard]:
    """The preconditions ``function`` of ``source`` (what runs) checks on its arguments and raises on (module doc).
    A guard whose exception and message some other ``raise`` of the function could also produce is left out: its
    refusal could not be told from that raise."""
    try:
        tree = parse_code(source)
    except (SyntaxError, ValueError):
        return []
    node = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function),
                None)
    if node is None:
        return []
    args = node.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    modules = {(a.asname or a.name).split(".")[0] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
               for a in n.names}
    allowed = params | set(dir(builtins)) | modules
    found: list[Guard] = []
    guarded: set[int] = set()
    for stmt in node.body:
        # a parameter the body rebinds before the guard is no longer what the caller passed: ``r = r[:k]`` then
        # ``assert len(r) == len(labels)`` checks the body's own cut, not an argument (every k below the length fails)
        allowed_here = allowed - _rebound(node.body[:node.body.index(stmt)])
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], ast.Raise) and stmt.body[0].exc is not None \
                and _reads_arguments_only(stmt.test, allowed_here) and params & _names(stmt.test):
            raised = _raised(stmt.body[0])
            if raised:
                found.append(Guard(ast.unparse(stmt.test), *raised, stmt.lineno))
                guarded.add(id(stmt.body[0]))
        elif isinstance(stmt, ast.Assert) and _reads_arguments_only(stmt.test, allowed_here) \
                and params & _names(stmt.test):
            message = _pattern(stmt.msg)
            if message is not None:
                found.append(Guard(ast.unparse(stmt.test), "AssertionError", message, stmt.lineno, asserts=True))
    # any other raise (or assert) of the function that could give the same text: that guard cannot be told apart
    others = []
    for n in ast.walk(node):
        if isinstance(n, ast.Raise) and id(n) not in guarded:
            raised = _raised(n) if n.exc is not None else None
            others.append(raised or (_kind(n.exc) or "*", ".*"))  # a message it cannot tell could be any text
        elif isinstance(n, ast.Assert) and not any(g.asserts and g.line == n.lineno for g in found):
            others.append(("AssertionError", ".*"))
    return [g for g in found if not any(kind in (g.kind, "*") and (message == ".*" or message == g.message)
                                        for kind, message in others)]


def refusal(result: CallResult, own: list[Guard]) -> Guard | None:
    """The guard whose refusal a call's result is (None when the call did not raise, or raised otherwise)."""
    if result.status != "raises" or not own:
        return None
    return next((g for g in own if g.matches(result.text)), None)
