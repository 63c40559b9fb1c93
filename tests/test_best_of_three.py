"""“Best of three”: a student write-up compares its system with two others on per-topic tables of MAP and
nDCG@10, and each half of a sentence is checked on the table it rests on.

Means, by hand from the printed values (six topics):
MAP      BM25 1.72/6 = 0.28667, System 2 1.89/6 = 0.315, System A 1.96/6 = 0.32667 → System A > System 2 > BM25;
nDCG@10  BM25 2.85/6 = 0.475,   System 2 3.12/6 = 0.52,  System A 3.07/6 = 0.51167 → System 2 > System A > BM25."""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.errors import RegisterError
from audit.evaluation.checks.standing import means
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

MAP = {"BM25": ["0.21", "0.35", "0.18", "0.40", "0.27", "0.31"],
       "System 2": ["0.25", "0.38", "0.22", "0.41", "0.30", "0.33"],
       "System A": ["0.27", "0.36", "0.25", "0.44", "0.29", "0.35"]}
NDCG = {"BM25": ["0.41", "0.52", "0.38", "0.60", "0.45", "0.49"],
        "System 2": ["0.48", "0.55", "0.44", "0.63", "0.50", "0.52"],
        "System A": ["0.46", "0.57", "0.45", "0.61", "0.47", "0.51"]}


def _rows(table) -> list[str]:
    return ["| topic | " + " | ".join(table) + " |", "|---" * (len(table) + 1) + "|"] + [
        f"| {401 + i} | " + " | ".join(v[i] for v in table.values()) + " |" for i in range(6)]


SNAPSHOT = "\n".join([
    "## 5 Results", "",
    "Table 3: MAP per topic.", "", *_rows(MAP), "",
    "Table 4: nDCG@10 per topic.", "", *_rows(NDCG), "",
    "System A is the best of the three on MAP and only loses to System 2 on nDCG@10.",
    "System A is the best of the three on MAP and also the best on nDCG@10.",
    "BM25 has the lowest mean on both measures.", "",
])


def _tables(*which) -> str:
    out = []
    for name, table in which:
        out.append(f'"{name}": {{' + ", ".join(f'"{s}": [' + ", ".join(f'"{v}"' for v in vs) + "]"
                                             for s, vs in table.items()) + "}")
    return "{" + ", ".join(out) + "}"


BOTH = _tables(("MAP", MAP), ("nDCG@10", NDCG))
CLAIMS = f"""\
claims:
  - id: B1
    title: best on MAP, second on nDCG@10
    kind: systems
    quote: "System A is the best of the three on MAP and only loses to System 2 on nDCG@10."
    claim: System A has the highest mean MAP and only System 2 has a higher mean nDCG@10
    tables: {BOTH}
    parts:
      - {{says: "System A is the best of the three on MAP", system: System A, relation: best, measure: MAP}}
      - {{says: "only loses to System 2 on nDCG@10", system: System A, relation: only loses to, others: [System 2],
         measure: "nDCG@10"}}
  - id: B2
    title: best on both
    kind: systems
    quote: "System A is the best of the three on MAP and also the best on nDCG@10."
    claim: System A has the highest mean on both measures
    tables: {BOTH}
    parts:
      - {{says: "System A is the best of the three on MAP", system: System A, relation: best, measure: MAP}}
      - {{says: "also the best on nDCG@10", system: System A, relation: best, measure: "nDCG@10"}}
  - id: B3
    title: BM25 lowest
    kind: systems
    quote: "BM25 has the lowest mean on both measures."
    claim: BM25 has the lowest mean MAP and nDCG@10
    tables: {BOTH}
    parts:
      - {{says: "BM25 has the lowest mean", system: BM25, relation: worst, measure: MAP}}
      - {{says: "BM25 has the lowest mean", system: BM25, relation: worst, measure: "nDCG@10"}}
"""


def _write(folder, claims: str):
    (folder / "snapshot.md").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: results\ntitle: Results\nsnapshot: {file: snapshot.md}\n",
                                         encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    chapter = load_chapter(_write(tmp_path_factory.mktemp("best"), CLAIMS))
    return {c.id: c for c in audit_chapter(chapter, [], collect("test")).claims}


def test_means_are_exact_in_the_printed_values():
    assert means(MAP) == {"BM25": Fraction(172, 600), "System 2": Fraction(189, 600), "System A": Fraction(196, 600)}
    assert means(NDCG) == {"BM25": Fraction(285, 600), "System 2": Fraction(312, 600), "System A": Fraction(307, 600)}


def test_both_halves_true_is_supported(results):
    b1 = results["B1"]
    assert b1.verdict == "supported", b1.reason
    assert "System A's mean MAP is 0.3267" in b1.reason and "System A's mean nDCG@10 is 0.5117" in b1.reason, b1.reason


def test_one_false_half_contradicts_and_is_named(results):
    b2 = results["B2"]
    assert b2.verdict == "contradicted", b2.reason
    assert "“also the best on nDCG@10” does not hold on the table: System 2 has a higher mean" in b2.reason, b2.reason
    assert "System A is the best of the three on MAP” does not hold" not in b2.reason
    assert "System 2 > System A > BM25" in b2.response, b2.response


def test_worst_on_both(results):
    assert results["B3"].verdict == "supported", results["B3"].reason


def test_a_true_half_alone_is_refused_at_load(tmp_path):
    half = CLAIMS.replace('      - {says: "also the best on nDCG@10", system: System A, relation: best, '
                          'measure: "nDCG@10"}\n', "")
    assert half != CLAIMS
    with pytest.raises(RegisterError) as info:
        load_chapter(_write(tmp_path, half))
    message = str(info.value)
    assert "B2" in message and "parts" in message and "“best”" in message, message


def test_only_loses_to_is_exact(tmp_path):
    """System A loses to System 2 alone on nDCG@10 (0.5117 < 0.52; BM25 0.475): encoded as losing only to BM25, the
    part is contradicted, naming whom it loses to."""
    wrong = CLAIMS.replace("relation: only loses to, others: [System 2],\n         measure: \"nDCG@10\"",
                           "relation: only loses to, others: [BM25],\n         measure: \"nDCG@10\"")
    assert wrong != CLAIMS
    result = {c.id: c for c in audit_chapter(load_chapter(_write(tmp_path, wrong)), [], collect("test")).claims}["B1"]
    assert result.verdict == "contradicted"
    assert "“only loses to System 2 on nDCG@10” does not hold on the table: System A loses to System 2" in result.reason
