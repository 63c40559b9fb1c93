"""Edits to a claim register's text that keep its layout: the upgrade proposal's changes to ``claims.yaml``.

A hunk that rewords a sentence must change the claim that quotes it, or the next run finds the quote stale
and the value unprinted. Each edit sets one field of one claim (``quote``, ``relation``, ``expect.0.claimed``,
``conventions``); the register's text is changed only where that field's value is written (found from the
YAML parser's marks), as a JSON-style flow value, which YAML reads in block and flow context alike, so
comments, order and every other line are kept. A field the claim does not have is added after its last field.

``apply`` checks its own work: the edited text, read again, must equal the register read before with exactly
these fields set; anything else raises ``RegisterEditError`` and the proposal withdraws the hunk.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

import yaml

from audit.register.yaml_reading import composed


class RegisterEditError(Exception):
    """An edit that cannot be placed in the register's text, or whose result reads back differently."""


@dataclass(frozen=True)
class Edit:
    """Set ``field`` (a dotted path: ``quote``, ``expect.0.claimed``) of claim ``claim`` to ``value``."""

    claim: str
    field: str
    value: Any

    def as_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "field": self.field, "value": self.value}


def _flow(value: Any) -> str:
    """``value`` written as a YAML flow value (JSON is one): strings double-quoted, mappings in braces."""
    return json.dumps(value, ensure_ascii=False)


def _claims_node(root) -> yaml.SequenceNode:
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "claims" and isinstance(value, yaml.SequenceNode):
                return value
    raise RegisterEditError("the register has no `claims:` list")


def _claim_node(claims: yaml.SequenceNode, claim_id: str) -> yaml.MappingNode:
    for node in claims.value:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == "id" and isinstance(value, yaml.ScalarNode) and value.value == claim_id:
                    return node
    raise RegisterEditError(f"claim {claim_id} is not in the register")


def _child(node, step: str):
    """The node at ``step`` under ``node`` (a mapping key or a sequence index), or None when a key is missing."""
    if isinstance(node, yaml.MappingNode):
        return next((value for key, value in node.value if key.value == step), None)
    if isinstance(node, yaml.SequenceNode) and step.isdigit() and int(step) < len(node.value):
        return node.value[int(step)]
    raise RegisterEditError(f"no field {step!r} here")


def _span_end(text: str, node) -> int:
    """Where ``node``'s own text ends: block scalars and block collections' marks run past their last line
    break, which belongs to the layout, not the value."""
    end = node.end_mark.index
    while end > node.start_mark.index and text[end - 1] in " \n":
        end -= 1
    return end


def _shared(root) -> set[int]:
    """The ids of the nodes written once and used again through a YAML alias (``&q`` … ``*q``): the composed tree
    holds such a node at every place that names it, and its marks are those of the place that defines it."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            shared.add(id(node))
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return shared


def _block(value: Any, column: int) -> str:
    """``value`` (a mapping or a list) written in block style from ``column``, as the register writes it: its first
    line where the old value began, each further line indented to that column."""
    lines = yaml.safe_dump(value, sort_keys=False, allow_unicode=True, default_flow_style=False,
                           width=110).rstrip("\n").split("\n")
    return lines[0] + "".join("\n" + " " * column + line for line in lines[1:])


def _change(text: str, root, edit: Edit, block: bool = True) -> tuple[int, int, str]:
    """Where ``edit`` goes in ``text`` (``root``: its composed node tree): the span to replace and what replaces it
    (an empty span for a field the claim does not have yet). A field that is, or lies inside, a value the register
    writes once and uses again through a YAML alias is not edited: its text is also another place's value."""
    shared = _shared(root)
    parent = _claim_node(_claims_node(root), edit.claim)
    steps = edit.field.split(".")
    path = [parent]
    for step in steps[:-1]:
        parent = _child(parent, step)
        if parent is None:
            raise RegisterEditError(f"claim {edit.claim} has no {edit.field}")
        path.append(parent)
    node = _child(parent, steps[-1])
    if any(id(n) in shared for n in path + [node] if n is not None):
        raise RegisterEditError(f"claim {edit.claim}: {edit.field} is written once and used again through a YAML "
                                "alias (&name … *name), so editing it would change every place that uses it; make "
                                "this change by hand")
    if node is not None:
        if block and isinstance(edit.value, (dict, list)) and edit.value and not getattr(node, "flow_style", True):
            return node.start_mark.index, _span_end(text, node), _block(edit.value, node.start_mark.column)
        return node.start_mark.index, _span_end(text, node), _flow(edit.value)
    if not isinstance(parent, yaml.MappingNode) or not parent.value:
        raise RegisterEditError(f"claim {edit.claim}: {edit.field} cannot be added here")
    if parent.flow_style:
        close = text.rindex("}", parent.start_mark.index, parent.end_mark.index)
        return len(text[:close].rstrip()), close, f", {steps[-1]}: {_flow(edit.value)}"
    last_key, last_value = parent.value[-1]
    indent = " " * parent.value[0][0].start_mark.column
    end = _span_end(text, last_value)
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    return line_end, line_end, f"\n{indent}{steps[-1]}: {_flow(edit.value)}"


def _place(text: str, edits: list[Edit], root, block: bool = True) -> str:
    """``text`` with ``edits`` placed from one reading of it: an edit of a field a later edit sets again is
    dropped (the later one wins, as in ``set_field``), and the changes are made from the end of the text back,
    so each span found stays where it was; an edit inserted at the same place as another comes after it. Edits
    whose spans overlap are placed one at a time, the text read again for each."""
    last = {(e.claim, e.field): i for i, e in enumerate(edits)}
    kept = [e for i, e in enumerate(edits) if last[(e.claim, e.field)] == i]
    changes = sorted(((*_change(text, root, e, block), i) for i, e in enumerate(kept)), key=lambda c: (c[0], c[3]))
    if any(b[0] < a[1] for a, b in zip(changes, changes[1:])):
        for e in kept:
            start, end, new = _change(text, yaml.compose(text, Loader=yaml.SafeLoader), e, block)
            text = text[:start] + new + text[end:]
        return text
    for start, end, new, _ in reversed(changes):
        text = text[:start] + new + text[end:]
    return text


def set_field(claim: dict, edit: Edit) -> None:
    """Make ``edit`` in ``claim`` (a claim as plain data: mappings and lists), in place."""
    steps = edit.field.split(".")
    target: Any = claim
    for step in steps[:-1]:
        target = target[int(step)] if isinstance(target, list) else target[step]
    if isinstance(target, list):
        target[int(steps[-1])] = copy.deepcopy(edit.value)
    else:
        target[steps[-1]] = copy.deepcopy(edit.value)


def _expected(data: Any, edit: Edit) -> None:
    set_field(next(c for c in data["claims"] if isinstance(c, dict) and c.get("id") == edit.claim), edit)


def _unshared(data: Any) -> Any:
    """``data`` with every mapping and list copied at each place it occurs (``copy.deepcopy`` would keep the sharing
    of YAML aliases)."""
    if isinstance(data, dict):
        return {k: _unshared(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_unshared(v) for v in data]
    return data


def apply(text: str, edits: list[Edit], block: bool = True) -> str:
    """``text`` (a ``claims.yaml``) with ``edits`` made, in order: a mapping or list that the register writes in
    block style is written in block style again (``block``), else as a flow value. Raises ``RegisterEditError`` when an
    edit names a missing claim or cannot be placed, or when the edited text does not read back as the register with
    exactly these fields set."""
    if not edits:
        return text
    key = (text, repr([e.as_dict() for e in edits]), block)
    if key not in _MADE:
        _MADE.clear()  # the last register edited, only: a chapter's reports make the same edits twice
        _MADE[key] = _apply_any(text, edits, block)
    return _MADE[key]


#: ``apply``'s last result by its arguments: checking the edits fit (``proposal.fit_register``) and writing the
#: patch (``proposal.register_text``) make the same edits in the same register, and each reading and read-back of
#: a register takes a tenth of a second.
_MADE: dict[tuple[str, str, bool], str] = {}


def _apply_any(text: str, edits: list[Edit], block: bool) -> str:
    if block:
        try:
            return _apply(text, edits, True)
        except RegisterEditError:
            pass   # a block value that does not read back where it stands: the flow value always does
    return _apply(text, edits, False)


def _apply(text: str, edits: list[Edit], block: bool) -> str:
    try:
        root = composed(text)  # the chapter's load composed it already
        loader = yaml.SafeLoader("")
        try:
            expected = loader.construct_document(root)   # the register's data, from the same reading
        finally:
            loader.dispose()
        out = _place(text, edits, root, block)   # before the expected edits: it names a claim or field the register lacks
        expected = _unshared(expected)  # an alias's value is its own copy, so an edit sets one place only
        for edit in edits:
            _expected(expected, edit)
        after = yaml.safe_load(out)
    except yaml.YAMLError as exc:
        raise RegisterEditError(f"the edited register does not read: {exc}") from None
    except (KeyError, IndexError, StopIteration, TypeError, ValueError) as exc:
        raise RegisterEditError(f"the edit does not fit the register: {exc}") from None
    if after != expected:
        raise RegisterEditError("the edited register reads back differently from the intended edit")
    return out
