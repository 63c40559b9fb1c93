"""``audit init``: a new chapter folder whose register starts from the scanned statements.

Every statement ``audit.text.scan`` finds becomes at least one claim, numbered C01, C02, … in reading
order with the line it was found on. Where the sentence gives enough, the claim is complete and
runs as written (``audit.draft.encode``); otherwise it is a ``draft`` whose ``claim`` field is a TODO
saying what to encode and what the sentence did not give.

A statement's values are also drafted on the worked example it follows (``audit.draft.examples``: a rank
table, a grade list, positions in prose), when that example determines the measure; otherwise its draft asks
the author for the fact the example lacks.

The conventions the text states (``audit.text.stated``) are declared with their quotes: in
``chapter.yaml`` (``conventions:``), or on the claims of a value or comparison sentence that
states one for itself ("under the listed order, RR = 1/2").
"""

from __future__ import annotations

import copy
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

import yaml

from audit.errors import AuditError, RegisterError
from audit.register import derived
from audit.register.claims import CHAPTER_FILE, CLAIMS_FILE, book_root, load_chapter
from audit.model.limits import MAX_QUOTE_CHARS
from audit.register.schema import schema_path
from audit.draft import encode
from audit.text import coverage
from audit.text.chapter import Snapshot
from audit.draft.examples import (bind, by_reference, corrections, rank_table, run_literals, score_table, score_tests,
                                  trec_run)
from audit.draft.examples.example import Example
from audit.draft.examples import find as find_examples
from audit.text.listings import find_listings
from audit.text.markdown import is_markdown, layout
from audit.text.scan import METRIC, VALUE, Statement, scan, unread_sentences, units
from audit.text.stated import as_yaml_mapping, declare


def _title(kind: str, text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return f"{kind}: {text[:70]}{'…' if len(text) > 70 else ''}"


def encode_statement(s: Statement, tables=(), declared: dict[str, tuple[str, ...]] | None = None,
                     local: dict[str, tuple[str, ...]] | None = None, text: str = "",
                     example: Example | None = None) -> list[dict]:
    """Complete claims for one statement (possibly several), or one draft with a TODO. ``tables``
    are the rankings printed as tables (``rank_table.fixture_tables``) a table row may refer to;
    ``declared`` the conventions stated for the statement (``{name: values}``: its chapter's, its
    section's and its own), which decide whether a printed computation or a fixture is the sentence's;
    ``local`` those its section or the sentence itself states; ``text``: the whole chapter, where a listing is
    found and checked and the calls of its function the text prints are read; ``example``: the worked example the
    statement follows (``audit.draft.examples.bind.bound``), on whose fixture a value the sentence does not describe
    for itself is drafted when the example determines the measure, else the draft asks for the missing fact."""
    if s.kind == "listing":
        claims, reason = encode.code(s, text)
        return claims or [_draft(s, reason)]
    if s.context:  # a table row
        claims, reason = encode.table_row(s, list(tables), example)
        return _with_rest(s, claims) if claims else [_draft(s, reason)]
    stated = {name: set(values) for name, values in (declared or {}).items()}
    claims: list[dict] = list(encode.statistics(s))
    tested = (corrections.drafts(s.text, s.start, text) or score_tests.drafts(s.text, s.start, text)
              if text and not claims else None)
    if tested:
        # the tests the text works on a per-topic table, each statistic on the table's rows; the sentence's own
        # arithmetic ("(28 + 8)/256 = 36/256") beside them
        sums, _ = encode.arithmetic(s, stated, False)
        return _with_rest(s, tested + sums)
    if claims and text:
        claims = score_table.with_data(claims, s.text, s.start, text)   # the per-topic table the test reports on
    sums, why_arithmetic = encode.arithmetic(s, stated, encode.persistence_part(_section_of(text, s.start))
                                             if text else False)
    claims += sums
    claims += encode.counts(s)
    claims += encode.harmonic(s)
    props, why_property = encode.properties(s, encode.antecedent(text, s.start) if text else None)
    claims += props
    if not props:
        claims += encode.comparison(s)
    vals, why_value = encode.values(s, declared, local)
    valued = {e["measure"] for c in vals for e in c["expect"]}
    if vals:
        # A measure's value computed in a chain and encoded on its fixture: the value claim checks it under every
        # reading and against the references, where the chain's arithmetic alone would take one reading. A chain
        # whose value no value claim holds (the mean over two queries beside one query's RR) stays.
        held = {(e["measure"], str(e["claimed"]).lstrip("≈~ ")) for c in vals for e in c["expect"]}
        claims = [c for c in claims if c["kind"] != "arithmetic"
                  or (encode.computes(s.text, c["quote"]), str(c.get("claimed", "")).lstrip("≈~ ")) not in held]
    claims += vals
    # values on the worked example the sentence follows: the value claim beside the chain's arithmetic, which checks
    # the printed terms while the value claim checks what they stand for (|R|, the ideal) against the example
    if example is not None and example.kind == "run file" and example.queries is None:
        on_example, asked = [], example.conflict   # the run file's lines are not all stated: the draft asks for them
    elif example is not None and example.queries is not None and example.kind == "run file":
        on_example, asked = trec_run.values(s, example, text)   # a run in TREC format, judged in bullets
    elif example is not None and example.queries is not None:
        on_example, asked = run_literals.values(s.text, example), ""   # every query of printed qrels and run
    else:
        on_example, asked = bind.values(s, example, declared, local, valued) if example is not None else ([], "")
    if example is not None and not on_example and not vals:
        # what one reference returns on the example: in a sentence, or a line of trec_eval's output
        since = text[example.start:s.start]
        on_example = (by_reference.values(s.text, example, since) or by_reference.trec_eval_line(s.text, example)
                      or by_reference.trec_eval_names(s.text, example, since))
        asked = "" if on_example else asked
        left = _left_unquoted(s, on_example, example)
        if on_example and left:
            # "`mapk(k=3)` gives 0.5648 while trec_eval's map_cut.3 gives 0.5185": the other library's value is the
            # author's to encode
            on_example = on_example + [_draft(s, f"only part of the statement was encoded; not encoded: “{left}”")]
    claims += on_example
    if asked:
        why_value = asked
    if claims:
        # the question a value left undetermined asks ("which ranks hold the relevant documents?") before why the
        # arithmetic was not encoded
        question = why_value if why_value.rstrip().endswith("?") and not valued else ""
        out = _with_rest(s, claims, asked or question or (why_arithmetic[0] if why_arithmetic else ""))
        left = _left_unquoted(s, out, example) if s.kind != "listing" and any(c.get("variable") for c in sums) else ""
        if left and not any(c["kind"] == "draft" for c in out):
            # "(1 − p)p^4 = 0.082 at p = 0.8, for a total residual of about 0.189": the sum of terms printed
            # elsewhere is the author's to encode
            out.append(_draft(s, f"only part of the statement was encoded; not encoded: “{left}”"))
        if asked and not any(c["kind"] == "draft" for c in out):
            # a value the example does not determine stays the author's to answer, even when the arithmetic printed
            # for it is encoded
            out.append(_draft(s, asked))
        return out
    if why_arithmetic:
        reason = why_arithmetic[0] + (f"; {why_value}" if why_value and (s.kind == "value" or asked) else "")
    else:
        reason = why_property if s.kind == "universal" and why_property != "no universal wording" else why_value
    return [_draft(s, reason)]


_DECIMAL = re.compile(r"(?<![\w.])\d*\.\d+(?![\w.])")


def _left_unquoted(s: Statement, claims: list[dict], example: Example | None) -> str:
    """The part of ``s`` printing a decimal value that none of ``claims`` quotes (the example's own listing aside), or
    ``""``."""
    body = s.text
    if example is not None and s.start <= example.start < s.end:
        a, b = example.start - s.start, min(example.end, s.end) - s.start
        body = body[:a] + " " * (b - a) + body[b:]
    for c in claims:
        at = body.find(c["quote"].strip())
        if at >= 0:
            body = body[:at] + " " * len(c["quote"].strip()) + body[at + len(c["quote"].strip()):]
    m = _DECIMAL.search(body)
    if m is None:
        return ""
    start = max(body.rfind(",", 0, m.start()), body.rfind(";", 0, m.start()), body.rfind(":", 0, m.start()), -1) + 1
    return " ".join(body[start:m.end()].split())


def _section_of(text: str, at: int) -> str:
    """The part of ``text`` around offset ``at`` between two Markdown headings."""
    starts = [m.start() for m in _HEADING.finditer(text)]
    a = max([h for h in starts if h <= at] or [0])
    b = min([h for h in starts if h > at] or [len(text)])
    return text[a:b]


def _with_rest(s: Statement, claims: list[dict], why: str = "") -> list[dict]:
    """``claims``, and a draft of the whole sentence when it states more than they cover (``audit.text.coverage``:
    another printed value, a computation left to a draft, a printed table's numbers, a count), naming what is
    left, so that every statement the report counts has a claim."""
    uses = []
    for i, c in enumerate(claims):
        quote = c["quote"].strip()
        at = s.text.find(quote)
        span = (s.start + at, s.start + at + len(quote)) if quote and at >= 0 else (s.start, s.end)
        uses.append(coverage.use_of({**c, "id": f"#{i}"}, span))
    left = [p for p in coverage.statements(s) if not coverage.covered_by(p, uses)]
    if not left:
        return claims
    named = "; ".join("“" + " ".join(p.text.split()) + "”" for p in left)
    # what is left is a measure's value (a formula's nDCG_{5} = … = 0.800 beside the division init encoded): the
    # draft asks for a value claim, whatever kind the scanner gave the sentence
    rest = replace(s, kind="value") if all(p.kind == "value" and p.measure is not None for p in left) else s
    return claims + [_draft(rest, f"only part of the statement was encoded; not encoded: {named}"
                                  + (f" ({why})" if why else ""))]


def _draft(s: Statement, reason: str) -> dict:
    return {"kind": "draft", "quote": s.text, "claim": encode.todo(s, reason), "statement": s.kind}


def _shortened(claim: dict, s: Statement, quote: str, text: str) -> tuple[dict, str]:
    """A claim whose quote is longer than a register's quote may be (``MAX_QUOTE_CHARS``), as a draft quoting the
    quote's opening words (cut at a space), with the text just before them as its ``prefix`` (the opening words of
    a sentence that repeats itself occur again inside it), which says how long the sentence is and what init read
    in it: the register init writes always loads."""
    cut = quote[:MAX_QUOTE_CHARS]
    space = cut.rfind(" ", 0, MAX_QUOTE_CHARS)
    opening = (cut[:space] if space > 0 else cut).rstrip()
    read = "" if claim["kind"] == "draft" else f"; init read in it: {claim['claim']}"
    reason = (f"the sentence is {len(quote):,} characters, more than the {MAX_QUOTE_CHARS:,} a quote may hold (the "
              f"quote is its opening words); quote the part that states each claim{read}")
    at = text.find(opening, s.start)
    before = text[max(0, at - 40):at] if at > 0 else ""
    draft = {"kind": "draft", "quote": opening, "claim": encode.todo(s, reason), "statement": s.kind}
    if before.strip():
        draft["prefix"] = before
    return draft, opening


def _unique_quote(claim: dict, s: Statement, text: str) -> str:
    """The claim's quote when it occurs once in the snapshot, else the whole statement."""
    quote = claim["quote"].strip()
    return quote if quote and text.count(quote) == 1 else s.text


_OWN_CONVENTIONS = ("value", "comparison")  # claim kinds a sentence's stated convention applies to alone


_PRINTED_VALUE = re.compile(rf"(?:{METRIC.pattern})`?\s*(?:=|≈|(?:gives|returns|reports|prints)\s)\s*{VALUE}")


def _states_own_value(s: Statement, drafted: list[dict]) -> bool:
    """Whether a convention stated in ``s`` belongs to its own claims: they are value or comparison
    claims, or a draft of a sentence printing a measure's value ("Under the listed order, … RR = 1/2"). A value
    drafted on the worked example the sentence follows does not make it so: "Average precision divides by all four
    relevant documents: AP = …" states how AP is computed, for the chapter."""
    if any(c["kind"] in _OWN_CONVENTIONS and not c.get("on example") for c in drafted):
        return True
    return s.kind == "value" and bool(_PRINTED_VALUE.search(s.text))


def unread_quoted_by_none(snapshot: Snapshot, claims: list[dict]) -> list[Statement]:
    """The sentences with a number, a comparison or a universal word that the scanner reads as no statement
    (``scan.unread_sentences``) and that no drafted claim quotes: what ``audit run`` lists as uncovered on the
    draft, and what the author reads the chapter for."""
    text = snapshot.text
    quoted = [(a, a + len(c["quote"])) for c in claims if (a := text.find(str(c.get("quote", "")))) >= 0]
    return [s for s in unread_sentences(text, snapshot.markdown)
            if not any(a < s.end and s.start < b for a, b in quoted)]


def draft_register(snapshot: Snapshot) -> tuple[list[dict], dict[str, int], dict[str, dict], dict[str, object]]:
    """The claims ``init`` writes for a snapshot, counts by outcome (``statements``, ``encoded``
    claims, ``draft`` claims, and per encoded kind), the rankings printed as tables (fixtures
    ``table-1``, … that table-row claims name), and the ``conventions:`` the text states for
    ``chapter.yaml``.

    A convention stated in a sentence that is encoded as value or comparison claims, or that prints
    a measure's value, is that sentence's claims' own (``conventions:`` on each); one stated in a heading
    holds for its section's claims ("## DCG with linear gain"); stated anywhere else, it is the chapter's.
    The chapter's conventions decide some encodings (a fixture must reproduce the printed value under
    them), so the text is read again until they settle."""
    text = snapshot.text
    statements = scan(snapshot)
    tables = rank_table.fixture_tables(text)
    examples = find_examples(text)
    chapter: dict[str, list[dict[str, str]]] = {}
    for _ in range(3):  # the chapter's conventions decide encodings, which decide what is the chapter's
        claims, counts, chapter_units = _draft_pass(text, statements, tables, chapter, snapshot.markdown, examples)
        declared = declare(chapter_units, options=False)
        if declared == chapter:
            break
        chapter = declared
    claims = _without_covered_calls(claims, statements, text, counts)
    conventions = as_yaml_mapping(chapter)
    counts["conventions"] = len(conventions)
    return claims, counts, {f"table-{i + 1}": t[2] for i, t in enumerate(tables)}, conventions


def _without_covered_calls(claims: list[dict], statements: list[Statement], text: str, counts: dict) -> list[dict]:
    """The drafts of sentences that only print what a listing's shown calls return, dropped (the code claim's
    ``calls`` check them), the claims numbered again in reading order."""
    uses = [u for c in claims if c["kind"] == "code" for u in coverage.call_uses(c, text)]
    if not uses:
        return claims
    by_text = {s.text: s for s in statements}
    kept = []
    for c in claims:
        s = by_text.get(c["quote"]) if c["kind"] == "draft" else None
        if s is not None and all(coverage.covered_by(p, uses) for p in coverage.statements(s)):
            counts["draft"] -= 1
            continue
        kept.append(c)
    for i, c in enumerate(kept, start=1):
        c["id"] = f"C{i:02d}"
    return kept


_HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t#]*$", re.MULTILINE)


def _sections(text: str) -> list[tuple[int, dict[str, list[dict[str, str]]]]]:
    """Each Markdown heading's offset and the conventions it states ("## DCG with linear gain"): they hold for
    the statements of its section, up to the next heading. A ``#`` line inside a code listing is code."""
    code = {n for listing in find_listings(text) for n in range(listing.start, listing.end + 1)}
    return [(m.start(), declare([m.group("title")], options=False)) for m in _HEADING.finditer(text)
            if text.count("\n", 0, m.start()) + 1 not in code]


#: A sentence that scopes what it states to its own part of the text ("In this part a document's gain is its
#: grade", "Now each document gains 2^g − 1"): its conventions are its section's, as a heading's are.
_SECTION_SCOPE = re.compile(r"^\s*(?:now\b|from\s+here\s+on\b|for\s+the\s+rest\s+of\s+this\s+(?:part|section)\b)|"
                            r"\b(?:in|for|throughout)\s+this\s+(?:part|section|exercise|lab|example)\b", re.IGNORECASE)


def _section_scoped(text: str, all_units, sections: list[tuple[int, dict]]) -> set[int]:
    """The starts of the units whose stated conventions hold for their section only, each merged into its
    section's conventions in ``sections`` (a unit before any heading stays the chapter's): a unit that says so
    (``_SECTION_SCOPE``), and one that states, under a later heading, another value of a convention an earlier
    section already stated ("A passage is relevant when its grade is 1 or more", then under "## 7. Leaderboard
    metric": "The course leaderboard only counts grade-2 passages for MRR@10"): the text switched for that part."""
    out = set()
    earlier: dict[str, list[tuple[str, int]]] = {}   # each convention's values stated so far, with their section
    for u in all_units:
        body = text[u.start:u.end]
        at = next((i for i in range(len(sections) - 1, -1, -1) if sections[i][0] < u.start), None)
        stated = declare([body], options=False)
        switched = at is not None and any(
            earlier.get(name) and all(section < at for _, section in earlier[name])
            and not {v["value"] for v in values} & {value for value, _ in earlier[name]}
            for name, values in stated.items())
        for name, values in stated.items():
            earlier.setdefault(name, []).extend((v["value"], -1 if at is None else at) for v in values)
        if not (_SECTION_SCOPE.search(body) or switched):
            continue
        if at is None or not stated:
            continue
        for name, values in stated.items():
            sections[at][1].setdefault(name, values)
        out.add(u.start)
    return out


def _values(declared: dict[str, list[dict[str, str]]]) -> dict[str, tuple[str, ...]]:
    return {name: tuple(dict.fromkeys(s["value"] for s in stated)) for name, stated in declared.items()}


def _draft_pass(text: str, statements: list[Statement], tables, chapter: dict[str, list[dict[str, str]]],
                markdown: bool = False, examples: list[Example] = ()) -> tuple[list[dict], dict[str, int], list[str]]:
    """One reading of the text with the chapter's conventions ``chapter``: the claims, the counts and the units
    whose conventions are the chapter's. ``markdown``: the text is read as Markdown (``scan.units``); ``examples``:
    the worked examples each statement may follow (``audit.draft.examples``)."""
    by_start = {s.start: s for s in statements}
    sections = _sections(text)
    all_units = units(text, markdown)
    scoped = _section_scoped(text, all_units, sections)
    functions = _functions_stated(text, all_units)
    claims: list[dict] = []
    counts = {"statements": sum(len(coverage.statements(s)) for s in statements), "encoded": 0, "draft": 0}
    chapter_units: list[str] = []
    for u in all_units:
        s = by_start.get(u.start)
        if s is None:
            if (u.start not in scoped and u.kind != "row" and u.start not in functions["units"]
                    and not _library_subject(text, u.start)):
                # a table row's own label, a section's "In this part …" and what a sentence says of one listing's
                # function state nothing chapter-wide
                chapter_units.append(text[u.start:u.end])
            continue
        section = next((d for at, d in reversed(sections) if at < s.start), {})
        sentence = declare([s.text])
        local = {**_values(section), **_values(sentence)}
        example = bind.bound(list(examples), s.start, s.end, text)
        drafted = encode_statement(s, tables, {**_values(chapter), **local}, local, text, example)
        own = as_yaml_mapping(sentence)
        if (own and not _states_own_value(s, drafted) and not encode._BY.search(s.text) and not s.context
                and s.start not in functions["units"] and not _library_subject(text, s.start)
                and s.start not in scoped):
            # what a library computes ("ir_measures' ERR@3 runs gdeval, which divides by 2^4, and gives 0.306") is
            # the library's convention, stated for that sentence alone, never the chapter's
            chapter_units.append(s.text)
            own = {}
        own = {**as_yaml_mapping({n: v for n, v in section.items() if n not in own}), **own}
        for c in drafted:
            quote = _unique_quote(c, s, text)
            if len(quote) > MAX_QUOTE_CHARS:
                c, quote = _shortened(c, s, quote, text)
            line = s.line + s.text[:max(s.text.find(quote), 0)].count("\n")
            entry = {"id": f"C{len(claims) + 1:02d}", "title": _title(c["kind"], c["claim"] if c["kind"] != "draft"
                                                                       else s.text),
                     "kind": c["kind"], "quote": quote, "line": line}
            entry.update({k: v for k, v in c.items() if k not in ("kind", "quote", "on example", "variable")})
            if own and c["kind"] in _OWN_CONVENTIONS + ("draft",):
                entry["conventions"] = {**c.get("conventions", {}), **own}
            elif section and c["kind"] == "code":
                # a listing under a heading whose section states its own rule ("## 7. … only counts grade-2
                # passages") is held to that section's rule
                entry["conventions"] = copy.deepcopy({**c.get("conventions", {}), **as_yaml_mapping(section)})
            named = next((f"table-{i + 1}" for i, t in enumerate(tables) if t[2] == c.get("fixture")), None)
            if named:
                entry["fixture"] = named
            claims.append(entry)
            if c["kind"] == "draft":
                counts["draft"] += 1
            else:
                counts["encoded"] += 1
                counts[c["kind"]] = counts.get(c["kind"], 0) + 1
    for entry in claims:
        stated = functions["by function"].get(entry.get("function", "")) if entry["kind"] == "code" else None
        if stated:
            entry["conventions"] = {**as_yaml_mapping(stated), **entry.get("conventions", {})}
    counts.setdefault("arithmetic", 0)
    return claims, counts, chapter_units


#: A sentence whose subject is a pronoun ("It sorts by score and breaks ties by docno …", "Its recip_rank …").
_PRONOUN_SUBJECT = re.compile(r"\s*(?:[-*+]\s+)?(?:It|Its|They|Their)\b")
_LIBRARY = re.compile(rf"\b(?:{encode._LIBRARIES})\b", re.IGNORECASE)


def _library_subject(text: str, at: int) -> bool:
    """Whether the sentence at ``at`` speaks of a library by a pronoun: it opens with "It"/"Its"/"They" and the
    sentences before it in its paragraph or list item name exactly one library ("trec_eval never reads the rank
    column. It sorts by score and breaks ties by docno in descending order"). What it states is that library's
    convention, never the chapter's."""
    if not _PRONOUN_SUBJECT.match(text, at):
        return False
    start = max(text.rfind("\n\n", 0, at), text.rfind("\n- ", 0, at), text.rfind("\n* ", 0, at)) + 1
    return len({m.group(0).lower().replace("-", "_") for m in _LIBRARY.finditer(text, start, at)}) == 1


#: A sentence speaking of the listing right after it ("this version takes its ideal from the labels it is given",
#: "the function below divides by k").
_THIS_LISTING = re.compile(r"\b(?:this|the\s+following)\s+(?:version|function|implementation|helper)\b|"
                           r"\bthe\s+(?:version|function|implementation|helper)\s+below\b", re.IGNORECASE)


def _functions_stated(text: str, all_units) -> dict:
    """What the text says of one listing's function in a sentence naming it ("`ndcg_from_labels` knows only the
    labels it is given: its ideal DCG sorts those labels … and keeps the best k"): ``{"by function": {name:
    conventions}, "units": starts of those sentences}``. Those conventions are the function's code claim's, not the
    chapter's (issue: the function's own documented reading, never a chapter-wide rule)."""
    names = set()
    listings = find_listings(text)
    for listing in listings:
        names.update(re.findall(r"^\s*def\s+([A-Za-z_]\w*)\s*\(", listing.code, re.MULTILINE))
    out: dict = {"by function": {}, "units": set()}
    if not names:
        return out
    named = re.compile(r"`(" + "|".join(map(re.escape, sorted(names))) + r")(?:\([^`]*\))?`")
    for u in all_units:
        body = text[u.start:u.end]
        called = {m.group(1) for m in named.finditer(body)}
        if not called and _THIS_LISTING.search(body):
            # "this version takes its ideal from …:" just before a listing defining one function speaks of it
            after = text.count("\n", 0, u.end) + 1
            following = next((listing for listing in listings if after < listing.start <= after + 3), None)
            defined = re.findall(r"^def\s+([A-Za-z_]\w*)\s*\(", following.code, re.MULTILINE) if following else []
            called = set(defined) if len(defined) == 1 else set()
        if len(called) != 1:
            continue
        stated = declare([body], options=False)
        if stated:
            out["by function"].setdefault(called.pop(), {}).update(stated)
            out["units"].add(u.start)
    return out


def _notebook_links(claims: list[dict], notebook: Path) -> int:
    """Name the notebook's printed number as the evidence of a drafted value (``expect[].notebook``) where the link is
    plain: the value's measure is drafted once in the chapter and the notebook's committed outputs print exactly one
    number labelled with it ("P@5 = 0.5000"). Returns how many were linked; the run holds each to the chapter."""
    import nbformat

    from audit.text.outputs import numbers, output_texts
    printed = numbers(output_texts(nbformat.read(notebook, as_version=4)))
    expects = [e for c in claims if c.get("kind") == "value" for e in c.get("expect", [])]
    linked = 0
    for expect in expects:
        measure = str(expect.get("measure", ""))
        same = [n for n in printed if n[1].casefold() == measure.casefold() and len(n[1]) <= 80]
        if len(same) == 1 and sum(str(e.get("measure", "")) == measure for e in expects) == 1:
            expect["notebook"] = f"cell {same[0][0]}: {same[0][1]}"
            linked += 1
    return linked


def _first_title(text: str, markdown: bool) -> str:
    """A chapter's title as its text gives it: its first heading, else its first line of prose; never a line of
    a code block, its fence, front matter or a comment."""
    lines = text.split("\n")
    skip = set(layout(text).skip) if markdown else set()
    for listing in find_listings(text):  # a listing's lines and the fences around it (1-based start and end)
        skip.update(range(max(listing.start - 2, 0), min(listing.end + 1, len(lines))))
    fence = re.compile(r"^\s*(```|~~~)")
    kept = [(i, ln.strip()) for i, ln in enumerate(lines) if ln.strip() and i not in skip and not fence.match(ln)]
    heading = next((ln for _, ln in kept if _HEADING.match(ln)), None) if markdown else None
    chosen = heading or next((ln for _, ln in kept), "")
    return chosen.lstrip("# ").strip().rstrip("#").strip()


def create_chapter(snapshot: Path, chapter_id: str, claims_dir: Path, *, title: str | None = None,
                   book: str | None = None, chapter: str | int | None = None,
                   notebook: Path | None = None) -> tuple[Path, dict[str, int]]:
    """Create ``claims_dir/chapter_id`` with chapter.yaml and a register holding one or more claims per scanned
    statement (see ``draft_register``). The chapter is read where it lives when that is inside the book's repository
    (``_snapshot_file``), else from a copy.

    ``chapter.yaml`` records ``book`` and ``chapter`` as given, the snapshot file (the manuscript) as a path
    relative to the new folder, and the conventions the text states (``conventions:``, each with
    its quote; two values for one convention are both written, an internal tension). Both files start with a ``yaml-language-server`` line naming the
    JSON Schema (``audit schema``), relative to the folder. Raises ``AuditError`` if the id is not
    usable as a folder name, the folder exists or the snapshot cannot be read.

    ``notebook``: the chapter's companion notebook, recorded in chapter.yaml (relative to the folder, so every audit
    runs it); a drafted value whose measure its committed outputs print under that label is linked to that number
    (``_notebook_links``; ``counts["notebook links"]``). Raises ``AuditError`` when it is not a readable notebook.
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", chapter_id):
        raise AuditError(f"chapter id {chapter_id!r} must be letters, digits, '.', '_' or '-'")
    if not snapshot.is_file():
        raise AuditError("no such snapshot file (give the chapter text as a plain-text or Markdown file)",
                         file=str(snapshot))
    folder = claims_dir / chapter_id
    if folder.exists():
        raise AuditError("already exists; choose another id or remove the folder", file=str(folder))
    text = Snapshot.read(snapshot)
    claims, counts, fixtures, conventions = draft_register(text)
    counts["unread"] = len(unread_quoted_by_none(text, claims))
    if notebook is not None:
        try:
            counts["notebook links"] = _notebook_links(claims, notebook)
        except Exception as exc:  # nbformat raises JSON, validation and version errors of many types; OSError
            raise AuditError(f"not a Jupyter notebook init can read ({type(exc).__name__}: "
                             f"{str(exc).splitlines()[0][:160] if str(exc) else 'no detail'})",
                             file=str(notebook)) from None
    used = {c["fixture"] for c in claims if isinstance(c.get("fixture"), str)}
    fixtures = {name: fx for name, fx in fixtures.items() if name in used}
    folder.mkdir(parents=True)
    snapshot_info = _snapshot_file(snapshot, folder)
    first_line = _first_title(text.text, text.markdown) or chapter_id
    chapter_number = int(chapter) if isinstance(chapter, str) and chapter.isdigit() else chapter
    identity = {"id": chapter_id, "book": book, "chapter": chapter_number, "title": title or first_line[:120],
                "kind": "chapter", "fingerprint": text.fingerprint(),
                "snapshot": snapshot_info,
                "notebook": _relative(notebook.resolve(), folder.resolve()) if notebook is not None else None,
                "conventions": conventions or None}
    identity = {k: v for k, v in identity.items() if v is not None}
    header = (f"# yaml-language-server: $schema={_relative(schema_path('claims'), folder.resolve())}\n"
              "# Claim register started by `audit init`. Claims are numbered in reading order; ids are stable, do\n"
              "# not renumber. Encoded claims run as written; each draft's `claim` says what is left to encode\n"
              "# (docs/authoring.md). `derived:` is the sentence a claim was drafted from\n"
              "# and the fields init wrote; when the sentence changes they are derived again, a field you edit is kept.\n")
    derived.attach(claims, text)  # each claim's sentence and the fingerprints of the fields init wrote
    (folder / CHAPTER_FILE).write_text(
        f"# yaml-language-server: $schema={_relative(schema_path('chapter'), folder.resolve())}\n"
        + yaml.safe_dump(identity, sort_keys=False, allow_unicode=True), encoding="utf-8")
    def write() -> None:
        (folder / CLAIMS_FILE).write_text(header + yaml.safe_dump({**({"fixtures": fixtures} if fixtures else {}),
                                                                   "claims": claims}, sort_keys=False,
                                                                  allow_unicode=True, width=110), encoding="utf-8")

    write()
    # what init writes must load: a drafted claim the register refuses (a comparison of a fixture with itself …)
    # becomes a draft naming why, one at a time, until the register loads
    for _ in range(len(claims) + 1):
        try:
            load_chapter(folder)
            break
        except RegisterError as exc:
            at = next((i for i, c in enumerate(claims) if c.get("id") == exc.claim and c.get("kind") != "draft"), None)
            if at is None:
                raise
            old_claim = claims[at]
            claims[at] = {"id": old_claim["id"], "title": old_claim.get("title", old_claim["id"]), "kind": "draft",
                          "quote": old_claim["quote"], "claim": f"TODO: the encoding init tried is refused "
                          f"({exc.field}: {exc.message}); encode this statement by hand", "statement": "refused"}
            counts["encoded"] -= 1
            counts["draft"] += 1
            kind = old_claim.get("kind")
            if counts.get(kind):
                counts[kind] -= 1
            write()
    return folder, counts


def _snapshot_file(snapshot: Path, folder: Path) -> dict[str, object]:
    """chapter.yaml's ``snapshot``: the manuscript itself, relative to the chapter folder, when it lies in the book's
    repository (the audit reads it in place and the patch edits it); otherwise a copy beside chapter.yaml, since the
    audit reads no file outside the repository, with ``source`` naming where it came from. A notebook, an HTML page
    or a Markdown file stays one (read in its format); any other text is copied as snapshot.txt."""
    path = snapshot.resolve()
    if path.is_relative_to(book_root(folder)):
        return {"file": _relative(path, folder.resolve()), "excerpt": False}
    copy = f"snapshot{snapshot.suffix.lower()}" if snapshot.suffix.lower() in (".ipynb", ".html", ".htm") \
        or is_markdown(snapshot) else "snapshot.txt"
    shutil.copyfile(snapshot, folder / copy)
    return {"file": copy, "excerpt": False, "source": f"{path.name}, copied from outside the book's repository"}


def _relative(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder`` (with ``..`` as needed), in forward slashes."""
    return Path(os.path.relpath(path, folder)).as_posix()
