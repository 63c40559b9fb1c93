"""audit.register.claims: loading the shipped chapter, and one test per kind of bad input.

Every bad-input test copies the shipped chapter folder (claims/retrieval-23-chapter) into
tmp_path, changes one thing in its text, and checks that ``load_chapter`` raises
``RegisterError`` whose message names the file, the claim id and the field (the
register's contract: "Every error names the file, the claim id and the field").
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from audit.errors import RegisterError
from audit.register.claims import Fixture, load_chapter

SHIPPED = Path(__file__).resolve().parents[1] / "claims" / "retrieval-23-chapter"

# Text of C14 in the shipped register, used as the anchor for most mutations.
C14_ENTRY = "  - id: C14\n"
C14_QUOTE = '    quote: "At cutoff four, a single relevant result therefore gives P@4 = 1/4, not one."\n'
C14_EXPECT = '{measure: "P@4", claimed: "1/4"}'


def chapter_copy(tmp_path: Path, old: str | None = None, new: str = "", file: str = "claims.yaml",
                 count: int = 1) -> Path:
    """A copy of the shipped chapter with ``old`` replaced by ``new`` in ``file`` (must occur)."""
    folder = tmp_path / "chapter"
    shutil.copytree(SHIPPED, folder)
    if old is not None:
        path = folder / file
        text = path.read_text(encoding="utf-8")
        assert old in text, f"mutation anchor not found in {file}: {old!r}"
        path.write_text(text.replace(old, new, count), encoding="utf-8")
    return folder


def load_error(folder: Path) -> RegisterError:
    with pytest.raises(RegisterError) as info:
        load_chapter(folder)
    return info.value


# --- the shipped chapter -------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped():
    return load_chapter(SHIPPED)


def test_shipped_chapter_has_45_claims_in_order(shipped):
    # The register numbers chapter 23's claims C01 … C45 in reading order.
    assert [c.id for c in shipped.register.claims] == [f"C{i:02d}" for i in range(1, 46)]


def test_shipped_chapter_lines_point_at_id_entries(shipped):
    # Expected: the 1-based line of each "  - id: Cnn" entry, read straight from the file.
    text = (SHIPPED / "claims.yaml").read_text(encoding="utf-8")
    expected = {m.group(1): n for n, line in enumerate(text.split("\n"), start=1)
                if (m := re.match(r"^\s*- id: (C\d\d)\s*$", line))}
    assert len(expected) == 45
    assert shipped.lines == expected


# --- bad input: one test each ---------------------------------------------------------------


def test_malformed_yaml_names_file_and_line(tmp_path):
    folder = chapter_copy(tmp_path, C14_ENTRY, C14_ENTRY + "   bad: [\n")
    claims = folder / "claims.yaml"
    # The inserted line is the one after "- id: C14"; PyYAML reports the problem there.
    bad_line = claims.read_text(encoding="utf-8").split("\n").index("   bad: [") + 1
    err = load_error(folder)
    assert str(claims) in str(err)
    assert "malformed YAML" in str(err)
    assert f"line {bad_line}" in str(err)


def test_missing_required_field(tmp_path):
    folder = chapter_copy(tmp_path, C14_QUOTE, "")
    err = load_error(folder)
    message = str(err)
    assert str(folder / "claims.yaml") in message
    assert "claim C14" in message
    assert "field quote" in message
    assert "missing" in message


def test_unknown_kind(tmp_path):
    folder = chapter_copy(tmp_path, "gives P@4 = 1/4\n    kind: value\n", "gives P@4 = 1/4\n    kind: valeu\n")
    message = str(load_error(folder))
    assert str(folder / "claims.yaml") in message
    assert "claim C14" in message
    assert "unknown kind 'valeu'" in message
    assert "value, comparison, arithmetic, convention, property, code, statistic, systems, draft, not checkable" in message


def test_unknown_field(tmp_path):
    folder = chapter_copy(tmp_path, C14_ENTRY, C14_ENTRY + "    colour: red\n")
    message = str(load_error(folder))
    assert str(folder / "claims.yaml") in message
    assert "claim C14" in message
    assert "field colour" in message
    assert "unknown field" in message


def test_unknown_measure_lists_known(tmp_path):
    folder = chapter_copy(tmp_path, C14_EXPECT, '{measure: "Q@4", claimed: "1/4"}')
    err = load_error(folder)
    message = str(err)
    assert str(folder / "claims.yaml") in message
    assert "claim C14" in message
    assert "field expect[0].measure" in message
    assert "'Q@4'" in message
    assert "P@k" in message and "nDCG" in message  # the known measures are listed


def test_unknown_fixture(tmp_path):
    folder = chapter_copy(tmp_path, "fixture: one-relevant-result", "fixture: one-relevent-result")
    message = str(load_error(folder))
    assert str(folder / "claims.yaml") in message
    assert "claim C14" in message
    assert "field fixture" in message
    assert "unknown fixture 'one-relevent-result'" in message
    assert "one-relevant-result" in message.split("fixtures defined:")[1]  # the real name is offered


def test_claimed_value_does_not_parse(tmp_path):
    folder = chapter_copy(tmp_path, C14_EXPECT, '{measure: "P@4", claimed: "one in four"}')
    message = str(load_error(folder))
    assert str(folder / "claims.yaml") in message
    assert "claim C14" in message
    assert "field expect[0].claimed" in message
    assert "'one in four'" in message


def test_repeated_id_in_value_fixture_rejected_at_load(tmp_path):
    # C14 uses fixture one-relevant-result; make its ranking return a twice.
    folder = chapter_copy(tmp_path, "run: {q1: [a]}\n  p-formula:", "run: {q1: [a, n, a]}\n  p-formula:")
    message = str(load_error(folder))
    assert str(folder / "claims.yaml") in message
    assert "claim C14" in message
    assert "one-relevant-result" in message
    assert "repeats document 'a' at ranks 1 and 3" in message


def test_duplicate_claim_id(tmp_path):
    folder = chapter_copy(tmp_path, "  - id: C15\n", "  - id: C14\n")
    message = str(load_error(folder))
    assert str(folder / "claims.yaml") in message
    assert "claim C14" in message
    assert "field id" in message
    assert "used twice" in message


def test_missing_snapshot_file(tmp_path):
    folder = chapter_copy(tmp_path)
    (folder / "snapshot.txt").unlink()
    message = str(load_error(folder))
    assert str(folder / "snapshot.txt") in message
    assert "snapshot file not found" in message


def test_missing_chapter_yaml(tmp_path):
    folder = chapter_copy(tmp_path)
    (folder / "chapter.yaml").unlink()
    message = str(load_error(folder))
    assert str(folder / "chapter.yaml") in message
    assert "missing" in message


def test_folder_does_not_exist(tmp_path):
    folder = tmp_path / "no-such-chapter"
    message = str(load_error(folder))
    assert str(folder) in message
    assert "not a chapter folder" in message


# Regression: location parts starting with "str" (meant for pydantic's 'str' union tag) used to be
# dropped, so the fixture name 'strong-run' vanished from the field path.
def test_schema_error_keeps_names_starting_with_str(tmp_path):
    folder = chapter_copy(tmp_path, "fixtures:\n",
                          "fixtures:\n  strong-run:\n    qrels: {q1: {a: high}}\n    run: {q1: [a]}\n")
    assert "field fixtures.strong-run.qrels.q1.a" in str(load_error(folder))


# --- regressions: faults found and fixed ---------------------------------------------------------


# Regression: an expectation's `query` was not checked against the fixture: a query the fixture lacks is scored 0 by the chapter and every reference, so a claimed '0' is 'supported' without anything being measured
def test_expect_query_not_in_fixture(tmp_path):
    # C27's fixture rr-positions has queries q1 and q2 only; q3 is a typo for q2.
    folder = chapter_copy(tmp_path, '{measure: "RR@4", query: q2, claimed: "0"',
                          '{measure: "RR@4", query: q3, claimed: "0"')
    message = str(load_error(folder))
    assert "claim C27" in message
    assert "q3" in message


# Regression: Expect.claimed was `str | int`, so pydantic coerced an unquoted YAML 1.0 to the exact integer 1,
# losing the printed precision (1.0 = [0.95, 1.05]) silently.
def test_unquoted_decimal_claimed_value_is_rejected(tmp_path):
    # C17 expects P@1 = "1"; an author writing the decimal unquoted must be told to quote it.
    folder = chapter_copy(tmp_path, '{measure: "P@1", claimed: "1"}', '{measure: "P@1", claimed: 1.0}')
    message = str(load_error(folder))
    assert "claim C17" in message
    assert "claimed" in message


# Regression: _validation_error computed first_claim/first_field but did not pass them to RegisterError, so schema errors have .claim and .field None although they are known
def test_schema_error_sets_claim_and_field_attributes(tmp_path):
    folder = chapter_copy(tmp_path, C14_QUOTE, "")
    err = load_error(folder)
    assert (err.file, err.claim, err.field) == (str(folder / "claims.yaml"), "C14", "quote")


@pytest.mark.parametrize("measure", ["P@0", "R@0", "AP@0", "nDCG@0", "RR@0"])
def test_cutoff_zero_is_rejected_at_load(tmp_path, measure):
    """Regression: P@0 reached trec_eval's C code, which aborts the whole process ("Negative cutoff detected")."""
    folder = chapter_copy(tmp_path, '{measure: "P@4", claimed: "1/4"}', f'{{measure: "{measure}", claimed: "1/4"}}')
    err = load_error(folder)
    assert (err.claim, err.field) == ("C14", "expect[0].measure")
    assert "at least 1" in str(err)


def test_fractional_cutoff_is_rejected_at_load(tmp_path):
    """Regression: RR@1.5 raised a traceback from deep inside the references."""
    folder = chapter_copy(tmp_path, '{measure: "P@4", claimed: "1/4"}', '{measure: "RR@1.5", claimed: "1/4"}')
    assert "whole number" in str(load_error(folder))


@pytest.mark.parametrize("name, said", [
    # trec_eval reads the level "1e-320" as 1 and keys it iprec_at_recall_1.00; pytrec_eval's answer then had no key
    # iprec_at_recall_0.00 and evaluation raised KeyError
    ("IPrec@1e-320", "more than 2 decimals"),
    ("IPrec@0.125", "more than 2 decimals"),      # computed at 0.125, keyed by trec_eval as 0.12
    ("IPrec@1.5", "must lie in [0, 1]"),
    ("P@0", "at least 1"),
    ("P@-1", "unknown measure"),
    ("nDCG@1.5", "whole number"),
    # trec_eval keeps k in a C long: P.99999999999999999999 answers P_9223372036854775807
    ("P@99999999999999999999", "larger than the limit of 10000"),
    ("P@2147483648", "larger than the limit of 10000"),
    ("R@1e3", "whole number"),
    ("nDCG(rel=99999999999)@4", "larger than the limit of 100"),
    ("RBP(p=1e-300)", "more than 6 decimals"),
    ("SetF(beta=1e-300)", "more than 6 decimals"),
    ("infAP@4", "infAP takes no cutoff"),           # a measure only the references define, given a cutoff
])
def test_a_measure_the_references_cannot_evaluate_is_a_load_error(tmp_path, name, said):
    """Every measure name is checked when the register loads, not when a reference fails on it."""
    folder = chapter_copy(tmp_path, C14_EXPECT, f'{{measure: "{name}", claimed: "1/4"}}')
    err = load_error(folder)
    assert (err.file, err.claim, err.field) == (str(folder / "claims.yaml"), "C14", "expect[0].measure")
    assert said in str(err) and name in str(err)


def test_sane_measure_parameters_are_read_exactly():
    """The refusals above leave the names authors write: a level of two decimals is that fraction, a cutoff up to the
    limit is kept, a whole number for a real parameter is that number."""
    from fractions import Fraction

    from audit.measures.syntax import parse
    assert parse("IPrec@0.25")[1].recall == Fraction(1, 4)
    assert parse("IPrec@5e-1")[1].recall == Fraction(1, 2)
    assert parse("IPrec@1")[1].recall == 1 and parse("IPrec@0")[1].recall == 0
    assert parse("P@10000")[1].cutoff == 10_000
    assert parse("RBP(p=0.95)")[1].p == Fraction(19, 20)
    assert parse("SetF(beta=2)")[1].beta == 2
    assert parse("alpha_nDCG(alpha=0.5)@5", True)[1] is None


def test_judged_query_without_ranking_is_rejected(tmp_path):
    """Regression: a qrels query with no ranking was averaged differently by the references and blamed on the chapter."""
    folder = chapter_copy(tmp_path, "qrels: {q1: {a: 1}}\n    run: {q1: [a]}",
                          "qrels: {q1: {a: 1}, q2: {a: 1}}\n    run: {q1: [a]}")
    message = str(load_error(folder))
    assert "one-relevant-result" in message and "'q2' has no ranking" in message


def test_snapshot_outside_the_books_repository_is_rejected(tmp_path):
    """A manuscript may be read in place from the book's repository; a path leaving it is refused."""
    folder = chapter_copy(tmp_path, "file: snapshot.txt", "file: ../../../etc/passwd", file="chapter.yaml")
    err = load_error(folder)
    assert err.field == "snapshot.file" and "outside the book's repository" in str(err)


@pytest.mark.parametrize("name", ["a b", "a\tb", "", "a\x0cb", "a\u00a0b", " a"])
def test_fixture_ids_are_single_trec_fields(name):
    """A TREC qrels or run line is whitespace-separated fields (``str.split()``, as pytrec_eval's
    ``parse_run``, ir-measures' and ranx's readers split it), and repeated-ID probes reach the libraries as
    such a file (``checks.common.write_trec_run``): "q1 Q0 a b 3 1 probe" is seven fields, which
    pytrec_eval's reader refuses by assertion and ir-measures' fails on (measured), a refusal that would be
    read as the library's rule for repeated IDs. So an ID must be one field: non-empty, no whitespace."""
    for qrels, run in (({"q1": {name: 1}}, {"q1": [name]}), ({name: {"a": 1}}, {name: ["a"]})):
        with pytest.raises(ValidationError, match="not one TREC field"):
            Fixture(qrels=qrels, run=run)
    assert Fixture(qrels={"q1": {"a-b_1.x": 1}}, run={"q1": ["a-b_1.x", "c"]}).run == {"q1": ["a-b_1.x", "c"]}
