"""How the text calls a listing's function: the container it passes the relevant documents in and the type of its
document IDs, read from what the text shows, so that the harness calls the function as a reader who copies the
text does.

A role says what a parameter means (``relevant set``: the relevant documents of the query), not its Python type. A
NumPy listing written for ``precision_at_k([10, 4, 7], [4, 2], 2)`` breaks on a set (``np.array({4, 2})`` is a 0-d
object array) and one written for ``{"d1", "d3"}`` breaks on a list (``top & relevant``): neither is the listing's
defect as the text uses it. The text says which it means, read in this order:

1. the parameter's type hint (``set[str]``, ``AbstractSet`` → a set; ``list[int]``, ``Sequence`` → a list; ``tuple``
   → a tuple; ``np.ndarray`` → a list, what ``np.asarray`` takes);
2. the calls the text shows (the claim's ``calls``, and the ``>>>`` examples of the text calling the function): a list
   literal → a list, a set literal → a set;
3. the docstring's line about the parameter ("relevant : list of int", ":param relevant: a set of IDs");
4. when nothing says: a list (ordered, no repeat) for a listing that imports NumPy or pandas, whose array functions
   take a list and not a set; a set otherwise (``d in relevant``, ``relevant & set(top)``).

When the text says nothing and the listing raises on generated input with that container but not with the other, the
exception was the harness's doing, not the listing's: the check then calls it with the other container and says so
(``code.check``). Never held against a listing.

Document IDs follow the text too: ints where its calls (or type hints) pass ints, text otherwise (as in a qrels
file). Generated inputs then use ints throughout (ranking, relevant documents, the keys of judgements and scores),
so a listing comparing IDs with == meets the IDs a reader passes, and no ``str()`` on the harness's side makes it
look right or wrong.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from audit.text.python_code import parse_code
from audit.evaluation.sandbox.environment import imported_modules
from audit.text.literals import ArrayLiteral, literal

#: Type-hint names (the last dotted part, before any ``[``) of each container.
_SET_HINTS = {"set", "frozenset", "Set", "FrozenSet", "AbstractSet", "MutableSet"}
_LIST_HINTS = {"list", "List", "Sequence", "MutableSequence", "ndarray", "NDArray", "ArrayLike"}
_TUPLE_HINTS = {"tuple", "Tuple"}
#: Packages whose array functions take a list of IDs and not a set (``np.isin``, ``np.array``, ``pd.Series``).
_ARRAY_PACKAGES = {"numpy", "pandas", "scipy", "sklearn"}
#: The roles whose values hold document IDs, and where: the elements (a list or set of IDs) or the keys (a mapping).
_ID_ELEMENTS = ("ranking", "relevant set")
_ID_KEYS = ("qrels", "scores")


@dataclass(frozen=True)
class TextCalls:
    """How the text calls the function: ``relevant`` is ``"set"``, ``"list"`` or ``"tuple"``; ``ids`` is ``"int"``
    or ``"str"``; each ``*_why`` says what in the text decided it ("" for the default)."""

    relevant: str = "set"
    relevant_why: str = ""
    ids: str = "str"
    ids_why: str = ""
    #: The parameters the text's calls pass as NumPy arrays (``np.array([3, 2, 0])``): every call passes them so.
    arrays: frozenset[str] = frozenset()
    #: How each query's judgements of ``qrels by query`` come: ``"mapping"`` ({document: grade}) or, where the text
    #: passes each query's relevant documents alone (``{"q1": {"d3"}}``), ``"set"``, ``"list"`` or ``"tuple"``.
    judgements: str = "mapping"
    judgements_why: str = ""
    #: The container of the retrieved documents of a listing computing a measure of the set retrieved (SetP, SetR,
    #: no rank counts): ``"list"`` (the ranking as it is), or ``"set"`` where the text passes a set
    #: (``len(retrieved & relevant)``).
    retrieved: str = "list"
    retrieved_why: str = ""
    #: The grades a listing over grades is called with: ``"graded"`` (0–3), or ``"binary"`` (0 and 1) where every
    #: grade the text's calls pass is 0 or 1 and each measure it computes is binary (``binary_grades``).
    grades: str = "graded"
    grades_why: str = ""

    def ranking(self, ids) -> object:
        """The ranking ``ids`` in the container the text passes the retrieved documents in."""
        return set(ids) if self.retrieved == "set" else list(ids)

    @property
    def relevant_said(self) -> bool:
        """Whether the text says which container the relevant documents come in (else it is the default)."""
        return bool(self.relevant_why)

    def container(self, ids) -> object:
        """The relevant documents ``ids`` in this container (a list or tuple sorted, as a reader writes them)."""
        if self.relevant == "set":
            return set(ids)
        ordered = sorted(ids, key=lambda d: (isinstance(d, str), d if not isinstance(d, str) else 0, str(d)))
        return tuple(ordered) if self.relevant == "tuple" else ordered

    def judged(self, item) -> object:
        """One query's judgements (``item``, a code check's ``Input``) as the text passes them: {document: grade}
        with the IDs as the input holds them (ints for a text whose calls pass ints, never made text on the harness's
        side), or its relevant documents in the text's container."""
        if self.judgements == "mapping":
            return dict(item.grades) if item.grades else {d: 1 for d in item.relevant}
        ordered = sorted(item.relevant, key=lambda d: (isinstance(d, str), d if not isinstance(d, str) else 0, str(d)))
        return set(ordered) if self.judgements == "set" else tuple(ordered) if self.judgements == "tuple" else ordered

    def other(self) -> "TextCalls":
        """The same with the other container (a set where a list or tuple was chosen, a list where a set was)."""
        from dataclasses import replace

        return replace(self, relevant="list" if self.relevant == "set" else "set", relevant_why="")


DEFAULT = TextCalls()


def _hint_kind(annotation: ast.expr | None) -> str | None:
    """``set``, ``list`` or ``tuple`` for a type hint of that container (``Optional[...]``/``X | None`` looked
    through), else None."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # a string annotation
        try:
            annotation = parse_code(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        kinds = {_hint_kind(annotation.left), _hint_kind(annotation.right)} - {None}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(annotation, ast.Subscript):
        base = annotation.value
        name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else ""
        if name == "Optional":
            return _hint_kind(annotation.slice)
        annotation = base
    name = annotation.attr if isinstance(annotation, ast.Attribute) else \
        annotation.id if isinstance(annotation, ast.Name) else ""
    return "set" if name in _SET_HINTS else "list" if name in _LIST_HINTS else "tuple" if name in _TUPLE_HINTS \
        else None


def _element_type(annotation: ast.expr | None) -> str | None:
    """``int`` or ``str`` for a hint of a container of that type (``list[int]``, ``set[str]``, ``dict[int, int]``'s
    keys), else None."""
    if not isinstance(annotation, ast.Subscript):
        return None
    inner = annotation.slice
    if isinstance(inner, ast.Tuple) and inner.elts:
        inner = inner.elts[0]
    return inner.id if isinstance(inner, ast.Name) and inner.id in ("int", "str") else None


def _container(value: object) -> str | None:
    return "set" if isinstance(value, (set, frozenset)) else "list" if isinstance(value, list) else \
        "tuple" if isinstance(value, tuple) else None


def _ids_of(role: str, value: object) -> list:
    if role in _ID_ELEMENTS and isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if role in _ID_KEYS and isinstance(value, dict):
        return list(value)
    if role == "scored pairs" and isinstance(value, (list, tuple)):
        return [p[0] for p in value if isinstance(p, (list, tuple)) and p]
    return []


def _id_kind(ids: list) -> str | None:
    kinds = {"int" if isinstance(d, int) and not isinstance(d, bool) else "str" if isinstance(d, str) else "other"
             for d in ids}
    return kinds.pop() if len(kinds) == 1 and kinds <= {"int", "str"} else None


def _docstring_kind(node: ast.FunctionDef, param: str) -> str | None:
    """What the docstring's line about ``param`` says it is: a set, or a list (array, sequence); None when silent or
    both."""
    doc = ast.get_docstring(node) or ""
    for line in doc.splitlines():
        if not re.search(rf"(?<![\w.]){re.escape(param)}(?!\w)", line):
            continue
        said = {"set" for _ in re.finditer(r"\b(?:set|frozenset)s?\b", line)} | \
            {"list" for _ in re.finditer(r"\b(?:list|array|sequence|ndarray)s?\b", line, re.IGNORECASE)}
        if len(said) == 1:
            return said.pop()
    return None


def shown_call_values(text: str, function: str, params: list[str]) -> list[dict[str, object]]:
    """The arguments (by parameter) of each ``>>>`` example in ``text`` that calls ``function`` directly or inside
    another call (``round(f(...), 4)``), with literal arguments or names the text assigned a literal before it."""
    from audit.text.doctests import bindings_before, examples

    out = []
    for example in examples(text):
        try:
            tree = parse_code(example.source.strip(), mode="eval")
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function):
                continue
            names = [a.id for a in [*node.args, *(k.value for k in node.keywords)] if isinstance(a, ast.Name)]
            bound = bindings_before(text, example.offset, names) if names else {}
            values = {}
            for name, arg in [*zip(params, node.args), *((k.arg, k.value) for k in node.keywords)]:
                try:
                    values[name] = literal(bound[arg.id] if isinstance(arg, ast.Name) and arg.id in bound else arg)
                except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, KeyError):
                    continue
            out.append(values)
    return out


def read(arguments: dict[str, str], source: str, function: str, shown: list[dict[str, object]],
         measures: tuple[str, ...] = (), said_binary: str | None = None) -> TextCalls:
    """How the text calls ``function`` (defined in ``source``, the listing as it runs), given its parameters' roles
    (``arguments``), the arguments of the calls the text shows (``shown``, by parameter), the measures it
    returns (``measures``: the claim's measure and each returned value's) and the text's sentence saying its
    relevance is binary (``said_binary``, ``stated.binary_relevance``)."""
    try:
        node = next(n for n in ast.walk(parse_code(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and n.name == function)
    except (StopIteration, SyntaxError):
        return DEFAULT
    hints = {a.arg: a.annotation for a in node.args.args}
    relevant, relevant_why = None, ""
    param = next((p for p, role in arguments.items() if role == "relevant set"), None)
    if param is not None:
        said = _hint_kind(hints.get(param))
        if said:
            relevant, relevant_why = said, f"its type hint ({ast.unparse(hints[param])})"
        if relevant is None:
            seen = {_container(values[param]) for values in shown if param in values} - {None}
            if len(seen) == 1:
                relevant = seen.pop()
                relevant_why = f"the calls the text shows pass a {relevant}"
        if relevant is None:
            said = _docstring_kind(node, param)
            if said:
                relevant, relevant_why = said, f"its docstring calls {param} a {said}"
        if relevant is None:
            arrays = {m.split(".")[0] for m in imported_modules(source)} & _ARRAY_PACKAGES
            relevant = "list" if arrays else "set"
    ids, ids_why = None, ""
    for p, role in arguments.items():
        kind = _element_type(hints.get(p)) if role in (*_ID_ELEMENTS, *_ID_KEYS) else None
        if kind:
            ids, ids_why = kind, f"the type hint of {p} ({ast.unparse(hints[p])})"
            break
    if ids is None:
        shown_ids = [d for values in shown for p, role in arguments.items() if p in values
                     for d in _ids_of(role, values[p])]
        kind = _id_kind(shown_ids)
        if kind:
            ids, ids_why = kind, f"the calls the text shows pass {'integer' if kind == 'int' else 'text'} IDs"
    arrays = frozenset(p for p in arguments if any(isinstance(values.get(p), ArrayLiteral) for values in shown))
    judgements, judgements_why = _judgements(node, arguments, hints, shown)
    retrieved, retrieved_why = _retrieved(node, arguments, hints, shown, measures)
    grades, grades_why = binary_grades(arguments, shown, measures, said_binary)
    return TextCalls(relevant or "set", relevant_why, ids or "str", ids_why, arrays, judgements, judgements_why,
                     retrieved, retrieved_why, grades, grades_why)


_GRADE_ROLES = ("ranked grades", "judged grades", "qrels", "ranked grades by query", "qrels by query")


def _grades_of(role: str, value: object) -> list | None:
    """The grades a shown call passes for a parameter of ``role``; None where one is not an integer grade."""
    if role in ("ranked grades", "judged grades") and isinstance(value, (list, tuple)):
        found = list(value)
    elif role == "ranked grades by query" and isinstance(value, (list, tuple)) \
            and all(isinstance(v, (list, tuple)) for v in value):
        found = [g for v in value for g in v]
    elif role == "qrels" and isinstance(value, dict):
        found = list(value.values())
    elif role == "qrels by query" and isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()):
        found = [g for v in value.values() for g in v.values()]
    else:
        return None
    ok = all(isinstance(g, (int, float)) and not isinstance(g, bool) and float(g).is_integer() for g in found)
    return [int(g) for g in found] if ok else None


def binary_grades(arguments: dict[str, str], shown: list[dict[str, object]], measures: tuple[str, ...],
                  said: str | None = None) -> tuple[str, str]:
    """("binary", why) where each measure the listing computes is binary (no gain; relevant at grade 1) and the
    text's calls pass grades, every one of them 0 or 1, or pass none while the text says its relevance is binary
    (``said``): a grade above 1 is then outside what the text passes, and generated input keeps to 0 and 1 (a case
    of its own tries a grade of 2). ("graded", "") otherwise: a graded measure (nDCG) is always tried on grades 0–3,
    since 0/1 examples cannot tell its gains apart."""
    from audit.measures.catalogue import CATALOGUE
    from audit.measures.syntax import parse as parse_measure
    from audit.errors import AuditError

    for measure in measures:
        name = re.split(r"[@(]", measure, maxsplit=1)[0]
        if name not in CATALOGUE or "gain" in CATALOGUE[name].conventions:
            return "graded", ""
        try:
            rel = dict(parse_measure(measure.replace("@k", "@1"), reference_only=True)[0].params).get("rel", 1)
        except AuditError:
            return "graded", ""
        if rel != 1:
            return "graded", ""
    passed = [_grades_of(role, values[p]) for values in shown for p, role in arguments.items()
              if role in _GRADE_ROLES and p in values]
    if measures and said and not passed and any(role in _GRADE_ROLES for role in arguments.values()):
        return "binary", f"the text says its relevance is binary (“{said[:80]}”) and shows no call passing grades"
    if not measures or not passed or any(g is None for g in passed) or not any(passed) \
            or any(x not in (0, 1) for g in passed for x in g):
        return "graded", ""
    return "binary", (f"the calls the text shows pass grades 0 and 1 only, and {', '.join(measures)} "
                      f"{'is a binary measure' if len(measures) == 1 else 'are binary measures'}")


#: Operators and methods only a set has (``retrieved & relevant``, ``retrieved.intersection(relevant)``).
_SET_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)
_SET_METHODS = {"intersection", "union", "difference", "issubset", "issuperset", "isdisjoint", "symmetric_difference"}


def _unordered(measures: tuple[str, ...]) -> bool:
    """Whether every measure of ``measures`` is one of the set retrieved, in which no rank counts (its value hangs
    on no tie rule: SetP, SetR, SetF, the counts)."""
    from audit.measures.catalogue import CATALOGUE

    names = [re.split(r"[@(]", m, maxsplit=1)[0] for m in measures]
    return bool(names) and all(n in CATALOGUE and "ties" not in CATALOGUE[n].conventions for n in names)


def _retrieved(node, arguments: dict[str, str], hints: dict, shown: list[dict[str, object]],
               measures: tuple[str, ...]) -> tuple[str, str]:
    """The container of the retrieved documents for a listing of a measure of the set retrieved: a set where its
    type hint, the calls the text shows, its docstring or its body (a set operator or method on the parameter
    itself) say so; a list otherwise. A ranked measure always gets its ranking as a list."""
    param = next((p for p, role in arguments.items() if role == "ranking"), None)
    if param is None or not _unordered(measures):
        return "list", ""
    said = _hint_kind(hints.get(param))
    if said:
        return ("set" if said == "set" else "list"), f"its type hint ({ast.unparse(hints[param])})"
    seen = {_container(values[param]) for values in shown if param in values} - {None}
    if len(seen) == 1:
        kind = seen.pop()
        return ("set" if kind == "set" else "list"), f"the calls the text shows pass a {kind}"
    said = _docstring_kind(node, param)
    if said:
        return said, f"its docstring calls {param} a {said}"
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, _SET_OPERATORS) and any(
                isinstance(side, ast.Name) and side.id == param for side in (n.left, n.right)):
            return "set", f"its body applies a set operator to it ({ast.unparse(n)})"
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _SET_METHODS \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == param:
            return "set", f"its body calls a set's method on it ({ast.unparse(n)})"
    return "list", ""


def _judgements(node, arguments: dict[str, str], hints: dict, shown: list[dict[str, object]]) -> tuple[str, str]:
    """How the text passes each query's judgements of a ``qrels by query`` parameter: a {document: grade} mapping
    (the default), or the relevant documents alone in a set, list or tuple, read from the type hint
    (``dict[str, set[str]]``), the calls the text shows (``{"q1": {"d3"}, "q2": {"d2"}}``) or the body's default
    for a query it does not find (``query_relevance.get(qid, set())``)."""
    param = next((p for p, role in arguments.items() if role == "qrels by query"), None)
    if param is None:
        return "mapping", ""
    hint = hints.get(param)
    if isinstance(hint, ast.Subscript) and isinstance(hint.slice, ast.Tuple) and len(hint.slice.elts) == 2:
        said = _hint_kind(hint.slice.elts[1])
        if said:
            return said, f"its type hint ({ast.unparse(hint)})"
        inner = hint.slice.elts[1]
        inner = inner.value if isinstance(inner, ast.Subscript) else inner
        if (inner.attr if isinstance(inner, ast.Attribute) else getattr(inner, "id", "")) in (
                "dict", "Dict", "Mapping", "MutableMapping"):
            return "mapping", f"its type hint ({ast.unparse(hint)})"
    seen = {("mapping" if isinstance(v, dict) else _container(v)) for values in shown if isinstance(values.get(param), dict)
            for v in values[param].values()}
    if len(seen) == 1 and None not in seen:
        kind = seen.pop()
        return kind, ("" if kind == "mapping" else f"the calls the text shows pass each query's relevant documents "
                                                   f"in a {kind}")
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "get" \
                and isinstance(call.func.value, ast.Name) and call.func.value.id == param and len(call.args) == 2:
            default = call.args[1]
            kind = ("set" if isinstance(default, ast.Call) and isinstance(default.func, ast.Name)
                    and default.func.id in ("set", "frozenset") and not default.args
                    else "list" if isinstance(default, ast.List) and not default.elts
                    else "tuple" if isinstance(default, ast.Tuple) and not default.elts else None)
            if kind:
                return kind, f"its body takes a {kind} for a query it does not find ({ast.unparse(call)})"
    return "mapping", ""


#: The edge cases' text IDs as integers, for a text whose calls pass integer IDs (distinct within each edge case).
_INT_IDS = {"a": 1, "b": 2, "c1": 1, "c2": 2, "c3": 3, "n": 8, "m": 9}


def _as_int(d):
    if isinstance(d, str):
        if d in _INT_IDS:
            return _INT_IDS[d]
        if re.fullmatch(r"d\d+", d):
            return int(d[1:]) + 1  # generated IDs d0, d1, … become 1, 2, …
    return d


def with_ids(item, calls: TextCalls):
    """``item`` (a code check's ``Input``) with its document IDs of the type the text passes: integers where its
    calls pass integers (the generated ``d0``, ``d1`` … as 1, 2 …), else as they are. The case of mixed ID types is
    left as it is: it is about mixing them."""
    from dataclasses import replace

    if calls.ids != "int" or item.label == "IDs of mixed type":
        return item
    return replace(item, ranking=tuple(_as_int(d) for d in item.ranking),
                   relevant=frozenset(_as_int(d) for d in item.relevant),
                   grades=tuple(sorted(((_as_int(d), g) for d, g in item.grades), key=lambda pair: repr(pair[0]))),
                   queries=tuple((q, with_ids(i, calls)) for q, i in item.queries))


def how_called(function: str, arguments: dict[str, str], calls: TextCalls) -> str:
    """A note for the report where the harness called the function otherwise than with a set of text IDs: in which
    container it passed the relevant documents and what IDs, each with what in the text decided it ("" when
    neither differs from the default)."""
    parts = []
    param = next((p for p, role in arguments.items() if role == "relevant set"), None)
    if param is not None and (calls.relevant != "set" or calls.relevant_why.startswith("the text does not say")):
        parts.append(f"{param} as a {calls.relevant} (" + (calls.relevant_why or
                     "the text does not say which; a listing that imports NumPy or pandas is given a list, which "
                     "their array functions take") + ")")
    retrieved = next((p for p, role in arguments.items() if role == "ranking"), None)
    if retrieved is not None and calls.retrieved == "set":
        parts.append(f"{retrieved} as a set ({calls.retrieved_why}; no rank counts in what it computes)")
    judged = next((p for p, role in arguments.items() if role == "qrels by query"), None)
    if judged is not None and calls.judgements != "mapping":
        parts.append(f"{judged} as each query's relevant documents in a {calls.judgements} ({calls.judgements_why})")
    if calls.ids == "int":
        parts.append(f"integer document IDs ({calls.ids_why})")
    if calls.grades == "binary":
        parts.append(f"grades 0 and 1 ({calls.grades_why}; one case tries a grade of 2)")
    return f"{function}() was called as the text calls it: " + " and ".join(parts) if parts else ""


def unregistered_examples(text: str, function: str, registered: list, start: int = 0, end: int | None = None,
                          boundaries: Sequence[int] = ()) -> list:
    """The ``>>>`` examples of ``text`` between offsets ``start`` and ``end`` (where the listing is the one in force)
    that call ``function`` (``f(…)``, ``print(f(…))``, ``round(f(…), n)``) and print one number or expect an
    exception, and a listing's top-level ``print(f(…))`` with the line its output block shows
    (``coverage.script_outputs``) or with what its comment says it gives (``coverage.comment_outputs``), and that no entry of ``registered`` (the claim's ``calls``) already covers, each as
    a ``ShownCall`` with the names it passes bound to the literal the text assigned them before it. A corrected listing is re-checked
    on these too: the text prints them, and a reader runs them.
    ``boundaries``: the lines of later statements that change what the function reads (``rebound_later``); the same
    call printed with the same output on both sides of one is two examples, since a reader gets two results."""
    from audit.model.values import parse_claimed
    from audit.register.kinds import ShownCall
    from audit.text.coverage import comment_outputs, script_outputs
    from audit.text.doctests import Example, bindings_before, examples, passed_names, place, unwrapped

    def stretch(offset: int | None) -> int:  # how many of the boundaries come before the place
        line = text.count("\n", 0, offset) + 1 if offset is not None else 0
        return sum(1 for b in boundaries if b < line)

    # a registered call covers the text's example only where it says what the text prints
    done = {(c.call, tuple(sorted(c.given.items())), str(c.returns).strip() if c.returns is not None else None,
             c.raises, stretch(place(text, c.call, c.given or {}, after=start)) if boundaries else 0)
            for c in registered}
    out = []
    # a listing's print(f(…)) and the line its output block shows are an example as a session's are
    printed = [Example(source, line, None, at) for at, source, line in [*script_outputs(text), *comment_outputs(text)]
               if unwrapped(source).startswith(f"{function}(")]
    for e in sorted(examples(text) + printed, key=lambda e: e.offset):
        if e.offset < start or (end is not None and e.offset >= end):
            continue
        call = e.source.strip()
        if call.startswith("print(") and unwrapped(call) != call:
            call = unwrapped(call)
        if "\n" in call or not unwrapped(call).startswith(f"{function}("):
            continue
        names = passed_names(call)
        given = bindings_before(text, e.offset, names)
        if any(n not in given for n in names):
            continue
        try:
            if e.raises is not None:
                shown = ShownCall(call=call, raises=e.raises, given=given)
            else:
                printed = e.want.strip()
                if not printed or "\n" in printed:
                    continue
                parse_claimed(printed)
                shown = ShownCall(call=call, returns=printed, given=given)
        except Exception:  # an output that is not one number (an array's repr, text): not re-checked here
            continue
        key = (call, tuple(sorted(given.items())), str(shown.returns).strip() if shown.returns is not None else None,
               shown.raises, stretch(e.offset) if boundaries else 0)
        if key in done:
            continue
        done.add(key)
        out.append(shown)
    return out


def unread_examples(text: str, function: str, start: int = 0, end: int | None = None) -> list[tuple[str, str]]:
    """The ``>>>`` examples of ``function`` between ``start`` and ``end`` whose printed output is not one value the
    audit reads (``<0.1>``, ``0.2  # P@2``, several lines): (call, output) pairs, each named in the finding as not
    checked, so that no example the text prints is passed over in silence."""
    from audit.model.values import parse_claimed
    from audit.text.coverage import comment_outputs, script_outputs
    from audit.text.doctests import examples, unwrapped

    out = []
    # a listing's print of an expression around the call (``print(1 - f(…))``, ``f(…) * 100``): its value is not the
    # call's, and the audit does not compute the expression
    for at, source, shown in sorted([*script_outputs(text), *comment_outputs(text)]):
        if start <= at and (end is None or at < end) and re.search(rf"(?<![\w.]){re.escape(function)}\s*\(", source) \
                and not unwrapped(source).startswith(f"{function}("):
            out.append((source, shown))
    for e in examples(text):
        if e.offset < start or (end is not None and e.offset >= end) or e.raises is not None:
            continue
        call = e.source.strip()
        printed = e.want.strip()
        if "\n" in call or not unwrapped(call).startswith(f"{function}(") or not printed:
            continue
        try:
            if "\n" in printed:
                raise ValueError(printed)
            parse_claimed(printed)
        except Exception:
            out.append((call, printed))
    return out


def without_unused_imports(source: str) -> tuple[str, list[str]]:
    """``source`` (what runs) without the imports it never uses (``audit.text.listings.unused_imports``: never named,
    or named only in postponed type hints) of a module the listing sandbox cannot provide or does not certify
    (``listing_syntax.ALLOWED``), with a note for each: such an import would stop the whole listing from loading, or
    from being certified, though nothing it computes depends on it. An import the listing uses is never left out."""
    from audit.evaluation.listing_syntax import ALLOWED
    from audit.evaluation.sandbox.environment import how_to_provide, importable
    from audit.text.listings import unused_imports

    lines = source.split("\n")
    notes = []
    for module, first, last in reversed(unused_imports(source)):
        top = module.split(".")[0]
        if top in ALLOWED and importable(top):
            continue
        del lines[first - 1:last]
        why = ("which the listing sandbox cannot provide (to run it as printed, " + how_to_provide(top) + ")"
               if not importable(top) else "which is outside what a listing may import")
        notes.append(f"it imports {top}, {why}, and never uses it where it runs (at most in a type hint): it was "
                     "checked without that import")
    return "\n".join(lines), notes[::-1]
