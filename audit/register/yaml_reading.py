"""Reading a register's YAML: safe, with unique keys, bounded depth and aliases, no lone surrogates, each claim's
line remembered, and a validation error said as the field and what is wrong with it.
"""

from __future__ import annotations

import os
import yaml

from pathlib import Path
from pydantic import ValidationError
from typing import Any

from audit.errors import RegisterError
from audit.model.files import read_text
from audit.model.limits import MAX_CLAIMS, MAX_REGISTER_BYTES, MAX_YAML_ALIASES, MAX_YAML_DEPTH, shorten, trim
from audit.register.fields import CHAPTER_FILE, CLAIMS_FILE
from audit.register.kinds import KINDS


class _UniqueKeys:
    """Refuses a mapping that repeats a key (YAML says keys are unique; PyYAML would silently keep the last)
    or whose key is a list or mapping (``? [a, b]``)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, "a key must be plain text or a number, not a list or mapping", key_node.start_mark)
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first at line {seen[key]})", key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


class UniqueKeyLoader(_UniqueKeys, yaml.SafeLoader):
    """PyYAML's safe loader (pure Python), refusing repeated and non-scalar keys. (libyaml's loader is
    faster but reads some text otherwise: a tab between tokens, a byte-order mark inside the text, an empty
    tagged node, …; a register is read by the rules it was written against.)"""


def _shape(text: str, path: Path) -> None:
    """Refuse YAML nested deeper than ``MAX_YAML_DEPTH``, with more than ``MAX_YAML_ALIASES`` aliases, or whose
    top-level ``claims`` block list has more than ``MAX_CLAIMS`` entries, from the token stream (PyYAML's composer
    recurses once per level, so depth is checked before it runs; and composing a register takes about 10 ms a
    claim, so an oversized one is refused before it is composed)."""
    depth = aliases = entries = 0
    opening = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
               yaml.FlowSequenceStartToken)
    closing = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
    tokens = yaml.scan(text, Loader=yaml.SafeLoader)
    previous = None
    key = None          # the top-level key being read
    claims_at = None    # the depth of the entries of the top-level claims list, once known
    while True:
        try:
            token = next(tokens)
        except StopIteration:
            return
        except yaml.YAMLError:
            return  # the loader reports the first problem, with its line
        if isinstance(token, yaml.ScalarToken) and isinstance(previous, yaml.KeyToken) and depth == 1:
            key, claims_at = token.value, None
        elif key == "claims" and claims_at is None and isinstance(previous, yaml.ValueToken) and depth == 1:
            # a block list (entries one level down) or an indentless one (entries at this level); a flow list is
            # counted once composed
            claims_at = {yaml.BlockSequenceStartToken: 2, yaml.BlockEntryToken: 1}.get(type(token), -1)
        if isinstance(token, yaml.BlockEntryToken) and key == "claims" and depth == claims_at:
            entries += 1
            if entries > MAX_CLAIMS:
                raise RegisterError(f"the register has more than {MAX_CLAIMS:,} claims (the limit per chapter; "
                                    f"claim {entries:,} is at line {token.start_mark.line + 1}); split the chapter's "
                                    "claims between registers", file=str(path), field="claims")
        if isinstance(token, opening):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise RegisterError(f"nested deeper than {MAX_YAML_DEPTH} levels (the limit) at line "
                                    f"{token.start_mark.line + 1}", file=str(path))
        elif isinstance(token, closing):
            depth -= 1
        elif isinstance(token, yaml.AliasToken):
            aliases += 1
            if aliases > MAX_YAML_ALIASES:
                raise RegisterError(f"more than {MAX_YAML_ALIASES} aliases (the limit) at line "
                                    f"{token.start_mark.line + 1}; write the repeated parts out", file=str(path))
        previous = token


def _read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    if not os.path.lexists(path):
        raise RegisterError(f"missing; a chapter folder needs {CHAPTER_FILE}, {CLAIMS_FILE} and a snapshot "
                            "(see docs/register.md)", file=str(path))
    text = read_text(path, "register file", MAX_REGISTER_BYTES, RegisterError)
    try:
        _shape(text, path)
        # one pass: the document's node (for the claims' line numbers) and the data constructed from it, as
        # yaml.load and yaml.compose each give them
        node = composed(text)
        _no_surrogates(node, path)
        if node is None:
            return None, None
        loader = UniqueKeyLoader("")
        try:
            return loader.construct_document(node), node
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise RegisterError(f"malformed YAML{where}: {shorten(problem, 200)}", file=str(path))
    except (ValueError, OverflowError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
        raise RegisterError(f"malformed YAML: a value cannot be read ({shorten(str(exc), 120)})", file=str(path))


#: ``composed``'s last text and its node.
_LAST: list = [None, None]


def composed(text: str) -> yaml.Node | None:
    """The YAML document node of ``text`` as PyYAML's pure-Python loader composes it (None for an empty document),
    kept for the last text: a register is composed when its chapter loads and again when its reports make the
    patch's register edits (``audit.research.register_edit``), a tenth of a second each. Raises ``yaml.YAMLError``.
    A node is read, never changed, by its users."""
    if _LAST[0] is not None and _LAST[0] == text:
        return _LAST[1]
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    _LAST[:] = [text, node]
    return node


def _no_surrogates(node: yaml.Node | None, path: Path) -> None:
    """Refuse a scalar holding a lone surrogate (``"\\ud800"``: YAML's escapes can write one, UTF-8 cannot): no
    report could be written with it."""
    seen: set[int] = set()
    pending = [node] if node is not None else []
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.ScalarNode):
            if isinstance(current.value, str) and any("\ud800" <= c <= "\udfff" for c in current.value):
                mark = current.start_mark
                raise RegisterError(f"malformed YAML at line {mark.line + 1}, column {mark.column + 1}: a lone "
                                    "surrogate escape (\\ud800–\\udfff) is not a character; write the character "
                                    "itself, or its pair of escapes as one \\U escape", file=str(path))
        elif isinstance(current, yaml.SequenceNode):
            pending.extend(current.value)
        elif isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                pending.extend((key, value))


def _claim_lines(node: yaml.Node | None) -> list[int]:
    """1-based line of each entry of the top-level ``claims`` list."""
    if not isinstance(node, yaml.MappingNode):
        return []
    for key, value in node.value:
        if getattr(key, "value", None) == "claims" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


_TYPE_TAGS = {"str", "int", "float", "bool", "list[str]", "Fixture"}


_TYPE_TAG_PREFIXES = ("function-", "lax-or-strict[")


def _is_union_tag(part: object) -> bool:
    """Whether a pydantic location part names a union member (``str``, ``Fixture``) rather than a field."""
    return isinstance(part, str) and (part in _TYPE_TAGS or part.startswith(_TYPE_TAG_PREFIXES))


def _validation_error(exc: ValidationError, path: Path, data: Any) -> RegisterError:
    """The first few pydantic errors as one message naming file, claim id and field."""
    messages = []
    first_claim = first_field = None
    for err in exc.errors()[:5]:
        loc = list(err["loc"])
        claim_id = None
        if len(loc) >= 2 and loc[0] == "claims" and isinstance(loc[1], int):
            items = data.get("claims") if isinstance(data, dict) else None
            entry = items[loc[1]] if isinstance(items, list) and loc[1] < len(items) else None
            claim_id = entry.get("id") if isinstance(entry, dict) else None
            claim_id = shorten(claim_id, 60) if isinstance(claim_id, str) and claim_id else f"#{loc[1] + 1}"
            loc = loc[2:]
            if loc and loc[0] in KINDS:  # the discriminator tag pydantic inserts
                loc = loc[1:]
        dotted = shorten(".".join(str(p) for p in loc if not _is_union_tag(p)) or "(entry)", 120)
        msg = shorten(err["msg"].removeprefix("Value error, "), 300)
        if err["type"] == "union_tag_invalid":
            kind = err.get("input", {}).get("kind") if isinstance(err.get("input"), dict) else ""
            msg = f"unknown kind {trim(kind, 60)}; expected one of {', '.join(KINDS)}"
        if err["type"] == "missing":
            msg = "required field is missing"
        if err["type"] == "extra_forbidden":
            msg = "unknown field (check its spelling)"
        messages.append((f"claim {claim_id}, " if claim_id else "") + f"field {dotted}: {msg}")
        if first_claim is None:
            first_claim, first_field = claim_id, dotted
    more = len(exc.errors()) - len(messages)
    text = "; ".join(messages) + (f"; and {more} more" if more > 0 else "")
    error = RegisterError(f"invalid register: {text}", file=str(path))
    error.claim, error.field = first_claim, first_field  # located, without repeating them in the message
    return error
