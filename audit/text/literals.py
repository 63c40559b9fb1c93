"""The values a text passes to its functions, read as literals: Python's own literals (``[1, 0, 1]``, ``{"d1": 3}``),
and a NumPy array built from one (``np.array([1, 0, 1])``, ``np.asarray([3, 2, 3], dtype=float)``), which a NumPy
text passes where a plain text passes a list. Nothing is run: the text is parsed and its literal evaluated with
``ast.literal_eval``."""

from __future__ import annotations

import ast

from audit.text.python_code import parse_code
import re

#: The NumPy constructors a text wraps a literal in, as written (``np.array``, ``numpy.asarray``).
_ARRAY_CALLS = {"array", "asarray", "asfarray"}
_NUMPY_NAMES = {"np", "numpy"}
#: The keywords such a constructor may carry without changing the values (``dtype=float``, ``dtype=np.float64``).
_ARRAY_KEYWORDS = {"dtype"}


class ArrayLiteral(list):
    """A list the text passed as a NumPy array: the listing is called with ``numpy.asarray`` of it, as the text
    calls it (the sandbox's runner builds the array); everything else reads it as the list it holds."""

    def __repr__(self) -> str:
        return f"np.array({list.__repr__(self)})"


def _array(node: ast.AST) -> ast.AST | None:
    """The literal inside ``np.array(<literal>)`` (and its kin), or None when ``node`` is no such call."""
    if not isinstance(node, ast.Call) or len(node.args) != 1:
        return None
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in _ARRAY_CALLS and isinstance(func.value, ast.Name)
            and func.value.id in _NUMPY_NAMES):
        return None
    if any(k.arg not in _ARRAY_KEYWORDS for k in node.keywords):
        return None
    return node.args[0]


def literal(source: str | ast.AST) -> object:
    """The value of a literal as the text writes it (a string of code or a parsed node): ``ast.literal_eval``'s, or an
    ``ArrayLiteral`` for a NumPy array built from a list literal. Raises ``ValueError`` (or ``SyntaxError``) as
    ``ast.literal_eval`` does for anything else."""
    node = parse_code(source.strip(), mode="eval").body if isinstance(source, str) else source
    inner = _array(node)
    if inner is not None:
        value = ast.literal_eval(inner)
        if not isinstance(value, (list, tuple)):
            raise ValueError("a NumPy array of no list literal")
        return ArrayLiteral(value)
    return ast.literal_eval(node)


_FENCE = re.compile(r"^(```|~~~)[^\n]*\n(?P<body>.*?)^\1", re.MULTILINE | re.DOTALL)


def block_assignments(text: str) -> list[tuple[int, int, list[tuple[str, ast.expr]]]]:
    """Each fenced code block of ``text`` that parses as Python: the offsets of its body and its top-level
    assignments of one name (``qrels = {...}``, ``predicted = ["b", "c"]``), as (name, value node) in order. What a
    worked example's data reads; nothing is run."""
    out = []
    for block in _FENCE.finditer(text):
        try:
            tree = parse_code(block.group("body"))
        except (SyntaxError, ValueError):
            continue
        assigned = [(node.targets[0].id, node.value) for node in tree.body
                    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)]
        out.append((block.start("body"), block.end("body"), assigned))
    return out
