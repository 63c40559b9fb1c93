"""MkDocs hook: the pages' generated parts, drawn from the project's own declarations so they cannot drift.

A page asks for a generated part with a marker line of its own:

- ``<!-- generated: conventions -->``: the conventions a text can state, their values in order (the first is the
  reading used where the text states none) and where each is defined, from ``audit.measures.conventions``;
- ``<!-- generated: convention-values -->``: what each value of each convention means, from the same declarations;
- ``<!-- generated: measures -->``: the chapter evaluator's measures and the conventions each depends on, from its
  catalogue (``audit.evaluation.evaluator.CATALOGUE``);
- ``<!-- generated: register -->``: every field of ``chapter.yaml`` and of ``claims.yaml``, from the committed JSON
  Schemas (``audit/register/schemas/*.json``, which a test holds equal to the register's models).

A marker naming no known part stops the build with the page and the marker, so a misspelt one is never left blank.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "audit" / "register" / "schemas"
MARKER = re.compile(r"^<!-- generated: ([a-z -]+?) -->$", re.MULTILINE)


def _cell(text: str) -> str:
    """Text safe inside one Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _code(text: str) -> str:
    """Code; a pipe inside it needs no escape in a table cell (Python-Markdown's tables leave code spans whole)."""
    return "`" + text + "`"


def _rst(text: str) -> str:
    """A docstring's reStructuredText literals (``x``) as Markdown code (`x`)."""
    return re.sub(r"``(.+?)``", r"`\1`", text)


# --- conventions -----------------------------------------------------------------------------------------------


def _conventions() -> dict:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from audit.measures.conventions import CONVENTIONS
    return CONVENTIONS


def conventions_table() -> str:
    rows = ["| convention | what it decides | values (the first is the reading used where the text states none "
            "and one reading must be shown) | defined by |", "|---|---|---|---|"]
    for name, c in _conventions().items():
        values = ", ".join(_code(v) for v in c.values)
        rows.append(f"| {_code(name)} | {_cell(c.title)} | {values} | {_cell(c.source)} |")
    return "\n".join(rows) + "\n"


def convention_values() -> str:
    out = []
    for name, c in _conventions().items():
        out.append(f"- {_code(name)} ({c.title})")
        for v in c.values:
            note = " — not tried where the text does not state it" if v in c.unsourced else ""
            out.append(f"    - {_code(v)}: {c.phrase(v)}{note}")
    return "\n".join(out) + "\n"


def measure_catalogue() -> str:
    """The chapter evaluator's measures: each with what it is, its cutoff, the conventions its value can depend on
    (on one query, and over several), how queries combine, and where it is defined."""
    _conventions()
    from audit.evaluation.evaluator import relevant_to
    from audit.measures.catalogue import CATALOGUE
    rows = ["| measure | what | cutoff | conventions it depends on | over several queries, also | queries combine by "
            "| defined by |", "|---|---|---|---|---|---|---|"]
    for name, m in CATALOGUE.items():
        one = relevant_to(name, several_queries=False)
        more = [c for c in relevant_to(name, several_queries=True) if c not in one]
        rows.append(f"| {_code(name)} | {_cell(m.title)} | {m.cutoff} | {', '.join(_code(c) for c in one) or '—'} "
                    f"| {', '.join(_code(c) for c in more) or '—'} | {m.combine} | {_cell(m.source)} |")
    return "\n".join(rows) + "\n"


# --- the register's JSON Schemas -------------------------------------------------------------------------------


def _type(node: dict) -> str:
    """A schema node as a short type: `string`, `integer or null`, a link to a $def, `list of …`, a constant."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "const" in node:
        return _code(json.dumps(node["const"], ensure_ascii=False))
    if "enum" in node:
        return "one of " + ", ".join(_code(json.dumps(v, ensure_ascii=False)) for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return " or ".join(dict.fromkeys(_type(n) for n in node[key]))
    kind = node.get("type")
    if kind == "array":
        return "list of " + _type(node.get("items", {}))
    if kind == "object" and "additionalProperties" in node and isinstance(node["additionalProperties"], dict):
        return "mapping of string to " + _type(node["additionalProperties"])
    if isinstance(kind, list):
        return " or ".join(kind)
    return kind or "any"


def _limits(node: dict) -> str:
    """The constraints a field carries (lengths, bounds, pattern), from the node and its alternatives."""
    found = []
    names = {"minLength": "at least {} character(s)", "maxLength": "at most {} characters", "minimum": "≥ {}",
             "maximum": "≤ {}", "exclusiveMinimum": "> {}", "exclusiveMaximum": "< {}",
             "minItems": "at least {} items", "maxItems": "at most {} items", "pattern": "matches `{}`"}
    for n in [node, *node.get("anyOf", []), *node.get("oneOf", [])]:
        for key, form in names.items():
            if key in n:
                text = "non-empty" if key == "minLength" and n[key] == 1 else form.format(n[key])
                if text not in found:
                    found.append(text)
    return "; ".join(found)


def _default(node: dict, required: bool) -> str:
    if required:
        return "**required**"
    if "default" not in node:
        return "optional"
    value = node["default"]
    return "default " + _code(json.dumps(value, ensure_ascii=False)) if value not in (None, "", [], {}) else "optional"


def _object(name: str, node: dict, level: str) -> list[str]:
    out = [f"{level} {name}", ""]
    if node.get("description"):
        out += [_rst(node["description"]).strip(), ""]
    props = node.get("properties", {})
    if not props:
        return out + [f"Type: {_type(node)}.", ""]
    required = set(node.get("required", []))
    out += ["| field | type | required or default | constraints |", "|---|---|---|---|"]
    for field, sub in props.items():
        out.append(f"| {_code(field)} | {_type(sub)} | {_default(sub, field in required)} | {_limits(sub)} |")
    if node.get("additionalProperties") is False:
        out += ["", "No other field is accepted."]
    return out + [""]


def register_reference() -> str:
    """Both schemas as Markdown: ``chapter.yaml``'s and ``claims.yaml``'s top-level objects, then each definition
    they use, once (a definition both share, such as a convention statement, is one model)."""
    out: list[str] = []
    defs: dict[str, dict] = {}
    for which, command in (("chapter", "audit schema --chapter"), ("claims", "audit schema")):
        path = SCHEMAS / f"{which}.schema.json"
        schema = json.loads(path.read_text(encoding="utf-8"))
        part = _object(f"{which}.yaml", schema, "##")
        part[2:2] = [f"Generated from `audit/register/schemas/{path.name}` (`{command}` prints it).", ""]
        out += part
        kinds = [(d["properties"]["kind"]["const"], name) for name, d in schema.get("$defs", {}).items()
                 if "const" in d.get("properties", {}).get("kind", {})]
        if kinds:
            out += ["Each claim's `kind` selects its fields:", "", "| kind | fields |", "|---|---|"]
            out += [f"| {_code(kind)} | [{name}](#{name.lower()}) |" for kind, name in kinds] + [""]
        for name, node in schema.get("$defs", {}).items():
            if name in defs and defs[name] != node:
                raise ValueError(f"{path.name}: definition {name!r} differs from the other schema's")
            defs[name] = node
    out += ["## Definitions", ""]
    for name in sorted(defs):
        out += _object(name, defs[name], "###")
    return "\n".join(out) + "\n"


# --- the hook --------------------------------------------------------------------------------------------------

PARTS = {
    "conventions": conventions_table,
    "convention-values": convention_values,
    "measures": measure_catalogue,
    "register": register_reference,
}


class UnknownPart(ValueError):
    pass


def render(markdown: str, page: str = "a page") -> str:
    """The page's Markdown with each marker replaced by its generated part."""
    def part(match: re.Match) -> str:
        name = match.group(1)
        if name not in PARTS:
            raise UnknownPart(f"{page}: unknown generated part {name!r} (known: {', '.join(PARTS)})")
        return PARTS[name]().rstrip("\n")
    return MARKER.sub(part, markdown)


def on_page_markdown(markdown, page, config, files):  # noqa: ARG001 (MkDocs' hook signature)
    return render(markdown, page.file.src_uri)
