"""audit.register.claims: inputs a register can make large, hostile or vacuous, refused at load.

Each test writes a tiny chapter (one value claim) into tmp_path, changes one thing, and checks
that ``load_chapter`` raises ``RegisterError`` naming the file, the claim (when there is one),
the field and, for a limit, the limit (``audit.model.limits``) — never another exception, never a hang.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from audit.errors import RegisterError
from audit.model import limits
from audit.register.claims import load_chapter

SNAPSHOT = "At cutoff four, a single relevant result gives P@4 = 1/4.\n"
FIXTURES = """\
fixtures:
  one-hit:
    qrels: {q1: {a: 1}}
    run: {q1: [a]}
"""
CLAIM = """\
  - id: C1
    title: one hit
    kind: value
    quote: "a single relevant result gives P@4 = 1/4"
    claim: P@4 = 1/4 for one hit.
    fixture: one-hit
    expect:
      - {measure: "P@4", claimed: "1/4"}
"""


def chapter(tmp_path: Path, claims: str | None = None, *, fixtures: str = FIXTURES, chapter_yaml: str | None = None,
            snapshot: str = SNAPSHOT) -> Path:
    folder = tmp_path / "ch"
    folder.mkdir(exist_ok=True)
    (folder / "chapter.yaml").write_text(chapter_yaml or "id: ch\ntitle: Limits\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    (folder / "claims.yaml").write_text(fixtures + "claims:\n" + (CLAIM if claims is None else claims),
                                        encoding="utf-8")
    return folder


def load_error(folder: Path) -> RegisterError:
    with pytest.raises(RegisterError) as info:
        load_chapter(folder)
    return info.value


def test_the_base_chapter_loads(tmp_path):
    # The base every test below mutates is valid, so each refusal comes from the one change.
    assert [c.id for c in load_chapter(chapter(tmp_path)).register.claims] == ["C1"]


# --- numbers, tolerances, expressions -------------------------------------------------------------

def test_claimed_value_with_5000_digits(tmp_path):
    # Past Python's 4,300-digit int conversion limit: once a ValueError that ended every chapter.
    err = load_error(chapter(tmp_path, CLAIM.replace('claimed: "1/4"', f'claimed: "{"9" * 5000}"')))
    assert err.claim == "C1" and err.field == "expect[0].claimed"
    assert f"more than {limits.MAX_DIGITS} digits" in str(err)
    assert len(str(err)) < 600  # the value is trimmed, not echoed whole


def test_unquoted_integer_with_5000_digits(tmp_path):
    # PyYAML itself converts the unquoted integer and fails; that is malformed input, not a crash.
    err = load_error(chapter(tmp_path, CLAIM.replace('claimed: "1/4"', f'claimed: {"9" * 5000}')))
    assert "claims.yaml" in str(err) and "malformed YAML" in str(err)


@pytest.mark.parametrize("tolerance", ["1e-999999999", "1e999", "1e9", "-0.1", "inf", "nan"])
def test_tolerance_not_a_plain_decimal(tmp_path, tolerance):
    # 1e-999999999 hung building the Fraction; 1e999 crashed; 1e9 made anything "supported".
    claim = CLAIM.replace('claimed: "1/4"}', f'claimed: "1/4", tolerance: "{tolerance}"}}')
    started = time.monotonic()
    err = load_error(chapter(tmp_path, claim))
    assert time.monotonic() - started < 5
    assert err.field == "expect[0].claimed" and "tolerance" in str(err)


def test_tolerance_wider_than_a_tenth_of_the_range(tmp_path):
    # 0.5 around 1/4 would hold [−0.25, 0.75]: most of the measure range [0, 1].
    err = load_error(chapter(tmp_path, CLAIM.replace('claimed: "1/4"}', 'claimed: "1/4", tolerance: "0.5"}')))
    assert "wider than the limit 0.1" in str(err)


def test_tolerance_within_the_limit_loads(tmp_path):
    load_chapter(chapter(tmp_path, CLAIM.replace('claimed: "1/4"}', 'claimed: "0.25", tolerance: "0.05"}')))


ARITHMETIC = """\
  - id: A1
    title: sum
    kind: arithmetic
    quote: "P@4 = 1/4"
    claim: one quarter
    expression: "{expression}"
    claimed: "1/4"
"""


@pytest.mark.parametrize("expression, says", [
    ("1e999", "plain decimals"),
    ("1" * 40 + "/4", f"more than {limits.MAX_DIGITS} digits"),
    ("(" * 30 + "1/4" + ")" * 30, f"deeper than {limits.MAX_EXPRESSION_DEPTH}"),
    ("+".join(["1/400"] * 100), f"longer than {limits.MAX_EXPRESSION_CHARS} characters"),
], ids=["exponent", "digits", "depth", "length"])
def test_expression_limits(tmp_path, expression, says):
    err = load_error(chapter(tmp_path, ARITHMETIC.format(expression=expression)))
    assert err.claim == "A1" and err.field == "expression" and says in str(err)


# --- YAML shape -----------------------------------------------------------------------------------

def test_unhashable_key(tmp_path):
    # `? [a, b]` is a YAML key that is a list: once a TypeError ("unhashable type") that ended every chapter.
    err = load_error(chapter(tmp_path, fixtures="fixtures:\n  ? [a, b]\n  : {qrels: {}, run: {}}\n"))
    assert "claims.yaml" in str(err) and "a key must be plain text or a number" in str(err)


def test_deep_nesting(tmp_path):
    deep = "[" * 5000 + "]" * 5000
    err = load_error(chapter(tmp_path, fixtures=f"deep: {deep}\n"))
    assert f"nested deeper than {limits.MAX_YAML_DEPTH} levels" in str(err)


def test_alias_expansion(tmp_path):
    # The "billion laughs" shape: each level repeats the one before ten times.
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    err = load_error(chapter(tmp_path, fixtures="\n".join(levels) + "\n"))
    assert f"more than {limits.MAX_YAML_ALIASES} aliases" in str(err)


def test_register_file_too_large(tmp_path):
    folder = chapter(tmp_path)
    with open(folder / "claims.yaml", "a", encoding="utf-8") as handle:
        handle.write("#" * (limits.MAX_REGISTER_BYTES + 1))
    assert f"more than the limit of {limits.MAX_REGISTER_BYTES:,}" in str(load_error(folder))


@pytest.mark.parametrize("text", ["", "null\n", "~\n", "{}\n"], ids=["empty", "null", "tilde", "empty mapping"])
def test_empty_or_null_register_is_an_error(tmp_path, text):
    folder = chapter(tmp_path)
    (folder / "claims.yaml").write_text(text, encoding="utf-8")
    err = load_error(folder)
    assert err.field == "claims" and "claims.yaml" in str(err)


def test_explicit_empty_claims_list_loads(tmp_path):
    # What `audit init` writes for a snapshot with no numeric statement: a chapter with no claims yet.
    folder = chapter(tmp_path, "[]\n".join([""]))
    (folder / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
    assert load_chapter(folder).register.claims == []


# --- files and paths ------------------------------------------------------------------------------

def test_nul_byte_in_snapshot_path(tmp_path):
    err = load_error(chapter(tmp_path, chapter_yaml='id: ch\ntitle: T\nsnapshot: {file: "snap\\0shot.txt"}\n'))
    assert "chapter.yaml" in str(err) and "snapshot.file" in str(err)


def test_fifo_as_snapshot_is_refused_without_blocking(tmp_path):
    folder = chapter(tmp_path)
    (folder / "snapshot.txt").unlink()
    os.mkfifo(folder / "snapshot.txt")
    started = time.monotonic()
    err = load_error(folder)
    assert time.monotonic() - started < 5
    assert "is a FIFO" in str(err)


def test_fifo_as_register_is_refused_without_blocking(tmp_path):
    folder = chapter(tmp_path)
    (folder / "claims.yaml").unlink()
    os.mkfifo(folder / "claims.yaml")
    assert "is a FIFO" in str(load_error(folder))


def test_snapshot_too_large(tmp_path):
    err = load_error(chapter(tmp_path, snapshot=SNAPSHOT + "x" * limits.MAX_SNAPSHOT_BYTES))
    assert f"more than the limit of {limits.MAX_SNAPSHOT_BYTES:,}" in str(err)


# --- grades, cutoffs ------------------------------------------------------------------------------

@pytest.mark.parametrize("grade", [2000, 2**31, -2**31])
def test_grade_out_of_range(tmp_path, grade):
    # 2000 overflowed exponential-gain nDCG (2**2000); 2**31 wraps in trec_eval's C int and gave 0.
    err = load_error(chapter(tmp_path, fixtures=FIXTURES.replace("{a: 1}", f"{{a: {grade}}}")))
    assert "fixtures.one-hit.qrels.q1.a" in str(err) and str(limits.MAX_GRADE) in str(err)


def test_negative_grade_loads(tmp_path):
    # Negative grades are legitimate TREC input (non-relevant); see tests/test_worker.py for how
    # each reference treats them.
    load_chapter(chapter(tmp_path, fixtures=FIXTURES.replace("{a: 1}", "{a: 1, b: -5}")))


def test_cutoff_past_the_limit(tmp_path):
    err = load_error(chapter(tmp_path, CLAIM.replace('"P@4"', f'"P@{limits.MAX_CUTOFF + 1}"')))
    assert err.field == "expect[0].measure" and f"limit of {limits.MAX_CUTOFF}" in str(err)


@pytest.mark.parametrize("measure", ["SetP@4", "nDCG(lvl=2)"])
def test_measure_ir_measures_cannot_express(tmp_path, measure):
    # SetP@4 raised AssertionError and an unknown parameter KeyError inside ir-measures.
    err = load_error(chapter(tmp_path, CLAIM.replace('"P@4"', f'"{measure}"')))
    assert err.field == "expect[0].measure"


# --- property universes ---------------------------------------------------------------------------

PROPERTY = """\
  - id: P1
    title: recall never decreases
    kind: property
    quote: "P@4 = 1/4"
    claim: R@k never decreases as k grows.
    measure: R
    relation: never decreases
    compare: next_cutoff
    universe: {universe}
"""


def test_universe_counted_before_it_is_built(tmp_path):
    # Grades 0-29 gave MemoryError building the cases: 1,485,648,371 cases by Universe.size().
    universe = "{max_length: 5, documents: 6, grades: [" + ", ".join(map(str, range(30))) + "], max_k: 6}"
    started = time.monotonic()
    err = load_error(chapter(tmp_path, PROPERTY.format(universe=universe)))
    assert time.monotonic() - started < 5
    assert "1,485,648,371 cases" in str(err) and f"limit of {limits.MAX_UNIVERSE_CASES:,}" in str(err)


def test_largest_schema_universe_is_refused(tmp_path):
    # Within the schema's per-field limits (length 8, 10 documents, 4 grades) it ran 454 s.
    universe = "{max_length: 8, documents: 10, grades: [0, 1, 2, 3], max_k: 6}"
    err = load_error(chapter(tmp_path, PROPERTY.format(universe=universe)))
    assert "6,263,636 cases" in str(err)


@pytest.mark.parametrize("universe, says", [
    ("{grades: [0, -1]}", "no relevant grade"),
    ("{relevant: 0}", "relevant: 0"),
], ids=["no positive grade", "relevant zero"])
def test_universe_without_a_relevant_document(tmp_path, universe, says):
    err = load_error(chapter(tmp_path, PROPERTY.format(universe=universe)))
    assert err.claim == "P1" and says in str(err)


def test_search_time_limit_is_bounded(tmp_path):
    claim = PROPERTY.format(universe="{}") + "    search: {time_limit: 100000}\n"
    err = load_error(chapter(tmp_path, claim))
    assert "search.time_limit" in str(err)


# --- nothing vacuous ------------------------------------------------------------------------------

def test_fixture_without_a_relevant_or_judged_ranked_document(tmp_path):
    # Nothing relevant and nothing ranked judged: every measure gives 0, so "gives 0, and all agree" would
    # check nothing.
    err = load_error(chapter(tmp_path, CLAIM.replace('"1/4"', '"0"'),
                             fixtures=FIXTURES.replace("{a: 1}", "{z: 0}")))
    assert err.claim == "C1" and err.field == "fixture" and "no document has a relevant grade" in str(err)


def test_a_query_whose_ranked_documents_are_judged_non_relevant_is_a_subject(tmp_path):
    # "A query with nothing relevant scores 0" is a claim in its own right: the libraries differ on such queries
    # (trec_eval returns a query of grade-0 judgements, leaves out an empty qrels entry; nDCG's ideal is 0).
    loaded = load_chapter(chapter(tmp_path, CLAIM.replace('"1/4"', '"0"'), fixtures=FIXTURES.replace("{a: 1}", "{a: 0}")))
    assert [c.id for c in loaded.register.claims] == ["C1"]


def test_fixture_with_empty_rankings(tmp_path):
    err = load_error(chapter(tmp_path, CLAIM.replace('"1/4"', '"0"'), fixtures=FIXTURES.replace("[a]", "[]")))
    assert err.claim == "C1" and "nothing is ranked" in str(err)


def test_judged_fraction_needs_no_relevant_document(tmp_path):
    # Judged@k counts judged documents, relevant or not: a fixture of grade-0 documents exercises it.
    claim = CLAIM.replace('"P@4", claimed: "1/4"', '"Judged@1", claimed: "1"')
    load_chapter(chapter(tmp_path, claim, fixtures=FIXTURES.replace("{a: 1}", "{a: 0}")))


CONVENTION = """\
  - id: V1
    title: convention
    kind: convention
    quote: "P@4 = 1/4"
    claim: a convention
    convention: {convention}
    rule: {rule}
    probe: probe
    measures: ["{measure}"]
"""


@pytest.mark.parametrize("convention, rule, measure, probe, says", [
    ("ties", "reference order", "RR", "{qrels: {q1: {a: 0, b: 1}}, run: {q1: [a, b]}}", "share a score"),
    ("ties", "reference order", "RR", "{qrels: {q1: {a: 0, b: 1}}, run: {q1: [a, b]}, scores: {q1: {a: 2.0, b: 1.0}}}",
     "share a score"),
    ("unjudged", "zero", "P@2", "{qrels: {q1: {a: 0, b: 1}}, run: {q1: [a, b]}}", "every ranked document is judged"),
    ("repeated_ids", "reject", "P@2", "{qrels: {q1: {a: 1}}, run: {q1: [a, b]}}", "no ranking repeats"),
    ("cutoff", "first k", "P@2", "{qrels: {q1: {a: 1}}, run: {q1: [a, b]}}", "no ranking is longer than the cutoff"),
], ids=["ties without scores", "ties with distinct scores", "unjudged", "repeated ids", "cutoff"])
def test_convention_probe_that_cannot_tell_rules_apart(tmp_path, convention, rule, measure, probe, says):
    folder = chapter(tmp_path, CONVENTION.format(convention=convention, rule=rule, measure=measure),
                     fixtures=f"fixtures:\n  probe: {probe}\n")
    err = load_error(folder)
    assert err.claim == "V1" and err.field == "probe" and says in str(err)


def test_tie_probe_with_tied_scores_loads(tmp_path):
    probe = "{qrels: {q1: {a: 0, b: 1}}, run: {q1: [a, b]}, scores: {q1: {a: 1.0, b: 1.0}}}"
    load_chapter(chapter(tmp_path, CONVENTION.format(convention="ties", rule="reference order", measure="RR"),
                         fixtures=f"fixtures:\n  probe: {probe}\n"))


@pytest.mark.parametrize("args", [(5, 6, (0, 1), 6, True), (4, 5, (0, 1, 2, 3), 5, True), (3, 3, (0,), 3, False),
                                  (2, 4, (0, 1, 1), 3, True), (0, 2, (1, 2), 1, False), (6, 4, (0, 1), 4, False)])
def test_universe_size_counts_without_building(args):
    # The up-front count the limit is checked against equals the number of cases enumerated.
    from audit.model.universe import Universe

    universe = Universe(*args)
    assert universe.size() == sum(1 for _ in universe.cases())


# --- inputs that ended a chapter or the run without its report ---------------------------------------------------

def test_a_lone_surrogate_escape_in_yaml_names_the_file_and_line(tmp_path):
    # YAML's "\ud800" is a lone surrogate: no report could be written as UTF-8 with it
    err = load_error(chapter(tmp_path, fixtures=FIXTURES.replace("{q1: [a]}", '{q1: ["a\\ud800"]}')))
    assert "claims.yaml" in str(err) and "line 4" in str(err) and "surrogate" in str(err)
    err = load_error(chapter(tmp_path, chapter_yaml='id: ch\ntitle: "T\\udc00"\n'))
    assert "chapter.yaml" in str(err) and "line 2" in str(err)


def test_a_surrogate_pair_written_as_one_escape_loads(tmp_path):
    folder = chapter(tmp_path, chapter_yaml='id: ch\ntitle: "Limits \\U0001F600"\n')
    assert load_chapter(folder).identity.title == "Limits 🙂".replace("🙂", "\U0001F600")


def test_a_surrogate_in_yaml_gives_exit_3_and_no_traceback(tmp_path, capsys):
    from audit.cli import main
    folder = chapter(tmp_path, fixtures=FIXTURES.replace("{q1: {a: 1}}", '{"q\\ud800": {a: 1}}'))
    assert main(["run", str(folder), "--reports", str(tmp_path / "reports"), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "claims.yaml" in err and "surrogate" in err and "Traceback" not in err


@pytest.mark.parametrize("query", ["q\\u0000", "q\\u001b", "q\\u007f"], ids=["NUL", "ESC", "DEL"])
def test_an_id_holding_a_control_character_is_refused(tmp_path, query):
    # trec_eval reads "q\0" as "q" (C text): the batch's ids no longer matched ("KeyError: 'f0~q'")
    fixtures = FIXTURES.replace("{q1: {a: 1}}", f'{{"{query}": {{a: 1}}}}').replace("{q1: [a]}", f'{{"{query}": [a]}}')
    err = load_error(chapter(tmp_path, fixtures=fixtures))
    assert "fixtures.one-hit" in str(err) and "control character" in str(err)


UNICODE_IDS = ["qé", "日本", "q\u0301", "q\u200b", "🙂", "Ωμέγα-1", "q#1"]


def test_unicode_ids_are_audited_by_every_implementation(tmp_path, monkeypatch):
    """Query and document IDs in any script, with combining marks, zero-width characters or emoji: every reference
    computes them and agrees with the chapter (the batch that sends several fixtures at once keeps them apart)."""
    import json

    from audit.cli import main
    qrels = ", ".join(f'"{q}": {{"d-{q}": 1, "{q}-n": 0}}' for q in UNICODE_IDS)
    run = ", ".join(f'"{q}": ["d-{q}", "{q}-n"]' for q in UNICODE_IDS)
    fixtures = f"fixtures:\n  one-hit:\n    qrels: {{{qrels}}}\n    run: {{{run}}}\n"
    claim = CLAIM.replace('{measure: "P@4", claimed: "1/4"}', '{measure: "P@4", claimed: "1/4"}\n'
                          f'      - {{measure: "P@4", query: "{UNICODE_IDS[1]}", claimed: "1/4"}}')
    folder = chapter(tmp_path, claim, fixtures=fixtures,
                     chapter_yaml="id: ch\ntitle: Unicode\nconventions: {precision_denominator: k}\n")
    monkeypatch.setenv("CHAPTER_AUDIT_CACHE", str(tmp_path / "cache"))
    assert main(["run", str(folder), "--reports", str(tmp_path / "reports"), "--quiet"]) == 0
    report = json.loads((tmp_path / "reports" / "ch.json").read_text(encoding="utf-8"))
    [result] = report["claims"]
    assert result["verdict"] == "supported", result["reason"]
    values = [v for check in result["checks"] for v in check["values"]]
    assert {v["implementation"] for v in values if v["status"] == "ok"} == {"chapter", "pytrec_eval", "ir_measures",
                                                                            "ranx"}
    assert all(set(v["per_query"]) == set(UNICODE_IDS) for v in values if v["status"] == "ok" and
               len(v["per_query"]) > 1)


def test_a_snapshot_of_a_million_lines_is_refused_before_any_work(tmp_path):
    folder = chapter(tmp_path, snapshot="x\n" * 999_999 + SNAPSHOT)
    started = time.monotonic()
    err = load_error(folder)
    assert time.monotonic() - started < 5
    assert "snapshot.txt" in str(err) and f"more than the limit of {limits.MAX_SNAPSHOT_LINES:,}" in str(err)


def test_anchoring_is_linear_in_the_snapshot(tmp_path):
    """A lost quote with a line hint near the end of a million-line text (it took 708 s: every word's line was
    counted from the start), a quote repeated on 200,000 lines, and a quote found only once folded."""
    from audit.text.anchors import Budget, locate
    from audit.text.chapter import Snapshot

    text = "x\n" * 999_990 + "At cutoff four, a single relevant result gives P@4 = 1/4.\n"
    started = time.monotonic()
    edited = locate(Snapshot(tmp_path / "s.txt", text), "a single relevant document yields P@4 = 1/4", line=999_990,
                    budget=Budget())
    assert edited.state == "edited" and edited.line == 999_991
    folded = locate(Snapshot(tmp_path / "s.txt", text), "a single  relevant result gives P@4 = 1/4")
    assert folded.state == "unchanged" and folded.line == 999_991
    repeated = locate(Snapshot(tmp_path / "r.txt", "P@4 = 1/4 here.\n" * 200_000), "P@4 = 1/4")
    assert repeated.state == "ambiguous" and "and 199,990 more" in repeated.note
    assert time.monotonic() - started < 60   # seconds, on a busy machine; it took 708 s


def test_a_register_of_3006_claims_is_refused_before_any_work(tmp_path):
    claims = "".join(CLAIM.replace("id: C1", f"id: C{i}") for i in range(1, 3007))
    started = time.monotonic()
    err = load_error(chapter(tmp_path, claims))
    assert time.monotonic() - started < 10
    assert err.field == "claims" and f"more than {limits.MAX_CLAIMS:,} claims" in str(err)
    err = load_error(chapter(tmp_path, "  [" + ", ".join(f"{{id: C{i}}}" for i in range(1, 3007)) + "]\n"))
    assert err.field == "claims" and "3,006 claims" in str(err)   # a flow list: counted once read


def test_a_register_at_the_claim_limit_loads(tmp_path):
    claims = "".join(CLAIM.replace("id: C1", f"id: C{i}") for i in range(1, limits.MAX_CLAIMS + 1))
    assert len(load_chapter(chapter(tmp_path, claims)).register.claims) == limits.MAX_CLAIMS


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_a_2gb_trec_file_is_refused_before_it_is_read(tmp_path, capsys, which):
    from audit.cli import main
    files = {"qrels": tmp_path / "qrels", "run": tmp_path / "run"}
    files["qrels"].write_text("q1 0 a 1\n")
    files["run"].write_text("q1 Q0 a 1 1.0 r\n")
    with open(files[which], "r+b") as handle:   # 2 GB of NUL bytes, sparse: nothing is written to the disk
        handle.truncate(2 * 2**30)
    started = time.monotonic()
    code = main(["crosscheck", "--qrels", str(files["qrels"]), "--run", str(files["run"]), "--out",
                 str(tmp_path / "cross")])
    assert time.monotonic() - started < 5
    err = capsys.readouterr().err
    limit = limits.MAX_QRELS_BYTES if which == "qrels" else limits.MAX_RUN_BYTES
    assert code == 3 and str(files[which]) in err and f"the limit of {limit:,}" in err, err


@pytest.mark.parametrize("chapter_id", ["index", "Index", "INDEX", "crosscheck"])
def test_a_chapter_id_cannot_name_the_book_index(tmp_path, chapter_id):
    err = load_error(chapter(tmp_path, chapter_yaml=f"id: {chapter_id}\ntitle: T\n"))
    assert "chapter.yaml" in str(err) and "field id" in str(err) and "choose another chapter id" in str(err)


def test_the_writer_refuses_a_report_named_like_the_index(tmp_path):
    from types import SimpleNamespace

    from audit.errors import AuditError
    from audit.report.writer import write_chapter_reports
    with pytest.raises(AuditError, match="overwrite index.md"):
        write_chapter_reports(SimpleNamespace(chapter={"id": "index"}), "", tmp_path)
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("claimed", ["<= 999999999999999999999999999999", "< 2", "≤ 1.5", ">= -1", "> -0.5"])
def test_a_bound_outside_the_measures_range_is_refused(tmp_path, claimed):
    err = load_error(chapter(tmp_path, CLAIM.replace('claimed: "1/4"', f'claimed: "{claimed}"')))
    assert err.claim == "C1" and err.field == "expect[0].claimed" and "outside the range of P@4" in str(err)


@pytest.mark.parametrize("claimed", ["<= 1", ">= 0", "< 1", "> 0", "<= 1/2"])
def test_a_bound_within_the_range_loads(tmp_path, claimed):
    # "<= 1" restates the range, as a chapter may ("lies between 0 and 1"); it is checked as printed
    load_chapter(chapter(tmp_path, CLAIM.replace('claimed: "1/4"', f'claimed: "{claimed}"')))


def test_a_bound_on_an_unbounded_measure_loads(tmp_path):
    load_chapter(chapter(tmp_path, CLAIM.replace('{measure: "P@4", claimed: "1/4"}',
                                                 '{measure: "DCG@4", claimed: "<= 999999"}')))


def test_a_chapter_dense_with_numbers_lists_its_uncovered_statements_past_the_first_snippets_in_one_experiment(
        tmp_path):
    """400 lines of two numeric statements each and an empty register: 800 uncovered statements. The first
    ``MAX_SNIPPETS`` get a register snippet each; the rest are one experiment naming how many and where (a 1 MB
    table dump would otherwise make 40,000 experiments, each a YAML snippet)."""
    from audit.research import experiments
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect
    from audit.register.claims import load_chapter
    lines = [f"Query {i} gives P@{i % 9 + 1} = {i % 7 + 1}/{i % 5 + 10} and MAP ≈ 0.{100 + i % 800}." for i in range(400)]
    (tmp_path / "snapshot.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: dense\ntitle: Dense\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), [], collect("test"))
    uncovered = [s for s in report.statements if not s.covered_by]
    assert len(uncovered) == 800
    per_statement = [e for e in report.research.experiments if e.origin.startswith("uncovered statement")]
    assert len(per_statement) == experiments.MAX_SNIPPETS
    rest = [e for e in report.research.experiments if e.origin.startswith(f"{800 - experiments.MAX_SNIPPETS} more uncovered")]
    assert len(rest) == 1 and "snapshot lines" in rest[0].origin


def test_a_comparison_of_a_fixture_with_itself_is_refused(tmp_path):
    """“unchanged” from a fixture to the same fixture holds whatever any implementation computes (the fuzz campaign
    found it supported): the check could not fail, so the register does not load."""
    from audit.errors import RegisterError
    from audit.register.claims import load_chapter
    (tmp_path / "snapshot.txt").write_text("Nothing changes.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: same\ntitle: Same\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        "fixtures:\n  a: {qrels: {q1: {d0: 1}}, run: {q1: [d0]}}\n  b: {qrels: {q1: {d0: 1}}, run: {q1: [d0]}}\n"
        "claims:\n  - {id: C1, title: same, kind: comparison, quote: Nothing changes., claim: x, before: a, after: b,"
        " expect: [{measure: RR, change: unchanged}]}\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    assert caught.value.claim == "C1" and caught.value.field == "after"
    assert "the after fixture is the before fixture" in caught.value.message


@pytest.mark.parametrize("where", ["qrels document", "run document", "query"])
def test_an_id_past_the_length_limit_is_refused(tmp_path, where):
    """Issue 39.4: one 16 KB docno drove ranx's worker past 10 GB (it holds every ID of a call in one array as wide as
    the longest). A fixture's query or document ID longer than limits.MAX_ID_CHARS (1,000) is refused at load, naming
    the fixture, the ID (cut short) and the limit; 1,000 characters load."""
    long = "d" * (limits.MAX_ID_CHARS + 1)
    fixtures = {"qrels document": FIXTURES.replace("{q1: {a: 1}}", f"{{q1: {{a: 1, {long}: 0}}}}"),
                "run document": FIXTURES.replace("{q1: [a]}", f"{{q1: [a, {long}]}}"),
                "query": FIXTURES.replace("{q1: {a: 1}}", f"{{q1: {{a: 1}}, {long}: {{a: 1}}}}")
                                 .replace("{q1: [a]}", f"{{q1: [a], {long}: [a]}}")}[where]
    err = str(load_error(chapter(tmp_path, fixtures=fixtures)))
    what = "query" if where == "query" else "document"
    assert "claims.yaml" in err and "fixtures.one-hit" in err and f"{what} ID 'ddd" in err, err
    assert "longer than 1,000 characters (the limit" in err and "1,001 characters" in err and len(err) < 800, err
    at = fixtures.replace(long, long[1:])
    assert [c.id for c in load_chapter(chapter(tmp_path, fixtures=at)).register.claims] == ["C1"]
