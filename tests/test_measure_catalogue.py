"""Every measure of the catalogue (``evaluator.CATALOGUE``) against every reference that computes it, on
randomized inputs: the chapter's exact definition under the reading a reference follows gives that reference's
value on each query, and every difference is a named convention.

Inputs: 240 queries drawn with a fixed seed (grades 0-4, unjudged documents, rankings shorter and longer
than the cutoffs, queries with no relevant document); scores strictly decreasing and distinct in single
precision, so no tie rule matters. One call per reference evaluates every measure on every query.
Expected values are the libraries' own (pytrec_eval, ir-measures, ranx called through their adapters,
which only translate names); the comparison is with the chapter's exact values.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from audit.evaluation import definitions as D
from audit.evaluation import evaluator as E
from audit.evaluation.references import all_references
from audit.measures.syntax import parse

#: The references as an audit calls them: each in its worker process.
REFS = {r.name: r for r in all_references()}

#: Measures checked, with at least one reference computing each.
MEASURES = ("P@5", "R@5", "RR", "AP", "AP@5", "nDCG@5", "nDCG(dcg='exp-log2')@5", "DCG@5", "DCG(dcg='exp-log2')@5",
            "Rprec", "Bpref", "SetF", "F@5", "ERR@5", "ERR@10", "RBP(p=0.8)", "RBP(p=0.95)", "IPrec@0", "IPrec@0.3", "IPrec@0.5",
            "IPrec@1", "NumRel", "NumRet", "NumRelRet", "SetP", "SetR", "Success@3")

#: The reading each reference follows where it differs from trec_eval's defaults, per measure (observed here:
#: the test fails if the reference follows anything else).
READINGS = {
    ("ranx", "RBP"): {"rbp_gain": "grade"},       # ranx weighs a relevant document by its grade
    ("ir_measures", "ERR"): {"err_max_grade": "4"},  # gdeval.pl: (2^g - 1) / 2^4
    # the trec_eval bundled by pytrec_eval (9.x) reaches recall level r at (long)(r · |R| + 0.9) relevant
    # documents; trec_eval 10.0 (its published outputs, tests/test_evaluator_trec_eval.py) at lround(r · |R|)
    ("pytrec_eval", "IPrec"): {"iprec_level": "floor(r·|R| + 0.9) relevant"},
    ("ir_measures", "IPrec"): {"iprec_level": "floor(r·|R| + 0.9) relevant"},
}

#: Values a reference prints rounded: gdeval.pl prints ERR with 5 decimals.
ROUNDED = {("ir_measures", "ERR"): 0.5e-5}


def _inputs(seed: int = 20261201, queries: int = 240):
    rnd = random.Random(seed)
    qrels, run, rankings = {}, {}, {}
    for n in range(queries):
        q = f"q{n:03d}"
        docs = [f"d{i:02d}" for i in range(rnd.randint(1, 14))]
        judged = rnd.sample(docs, rnd.randint(1, len(docs)))
        judgements = {d: rnd.choice((0, 0, 1, 2, 3, 4)) for d in judged}
        if n % 17 == 0:
            judgements = {d: 0 for d in judged}  # judged, no relevant document
        if n % 11 == 0:
            judgements[f"x{n}"] = rnd.randint(1, 4)  # a relevant document never retrieved
        ranking = rnd.sample(docs, rnd.randint(1, len(docs)))
        qrels[q] = judgements
        rankings[q] = ranking
        run[q] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
    return qrels, run, rankings


@pytest.fixture(scope="module")
def outcomes():
    qrels, run, rankings = _inputs()
    parsed = [parse(m)[0] for m in MEASURES]
    return qrels, rankings, {name: ref.evaluate(parsed, qrels, run) for name, ref in REFS.items()}


def _chapter(spec, judgements, ranking, reading) -> Fraction:
    return E.evaluate_query(spec, judgements, ranking, {**D.DEFAULT_READING, **reading})


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_every_measure_has_a_reference(outcomes) -> None:
    """A measure in the catalogue that no reference computes could only be checked against itself."""
    _, _, by_ref = outcomes
    for text in MEASURES:
        key = str(parse(text)[0])
        assert any(o[key].status == "ok" for o in by_ref.values()), text


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
@pytest.mark.parametrize("text", MEASURES)
@pytest.mark.parametrize("reference", ("pytrec_eval", "ir_measures", "ranx"))
def test_definition_matches_reference(outcomes, text: str, reference: str) -> None:
    """Each query's exact value equals the reference's (to 1e-9, or its printed rounding)."""
    qrels, rankings, by_ref = outcomes
    measure, spec = parse(text)
    outcome = by_ref[reference][str(measure)]
    if outcome.status == "not applicable":
        pytest.skip(f"{reference} does not compute {text}: {outcome.detail}")
    assert outcome.status == "ok", outcome.detail
    reading = READINGS.get((reference, spec.name), {})
    tolerance = ROUNDED.get((reference, spec.name), 0) + 1e-9
    differing = []
    for q, value in outcome.per_query.items():
        own = float(_chapter(spec, qrels[q], rankings[q], reading))
        if abs(own - value) > tolerance:
            differing.append((q, qrels[q], rankings[q], own, value))
    assert not differing, f"{len(differing)} queries differ, first: {differing[0]}"
    # the reference scored the queries the chapter's definitions score (those whose qrels have an entry)
    assert len(outcome.per_query) >= len(qrels) - sum(1 for j in qrels.values() if not j)


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_ranx_rbp_differs_from_binary_rbp_by_its_gain(outcomes) -> None:
    """ranx's rbp weighs a relevant document by its grade (ranx/metrics/rank_biased_precision.py:
    ``weighted_hit_list[i] = qrels[j, 1]``); Moffat & Zobel 2008's RBP counts it as 1. On a query with a
    grade above 1 the two differ, and the ``rbp_gain`` convention names the difference."""
    qrels, rankings, by_ref = outcomes
    measure, spec = parse("RBP(p=0.8)")
    values = by_ref["ranx"][str(measure)].per_query
    graded = [q for q in values if any(qrels[q].get(d, 0) > 1 for d in rankings[q])]
    assert graded
    q = graded[0]
    binary = float(_chapter(spec, qrels[q], rankings[q], {}))
    assert abs(binary - values[q]) > 1e-6


def test_ir_measures_setf_beta_is_trec_eval_x() -> None:
    """ir-measures passes SetF's beta to trec_eval's set_F parameter x, which weighs (x + 1) P R / (R + x P):
    x is β², so ir-measures' SetF(beta=2) is F with β = √2. On P = 3/5, R = 3/4: F_2 = 5·(9/20)/(12/5 + 3/4)
    = 5/7 ≈ 0.714286 by hand; trec_eval's x = 2 gives 3·(9/20)/(3/4 + 6/5) = 9/13 ≈ 0.692308."""
    qrels = {"q1": {"a": 3, "b": 2, "c": 0, "d": 1, "e": 2}}
    run = {"q1": {"b": 5.0, "c": 4.0, "a": 3.0, "x": 2.0, "d": 1.0}}
    measure, spec = parse("SetF(beta=2)")
    assert E.evaluate_query(spec, qrels["q1"], ["b", "c", "a", "x", "d"]) == Fraction(5, 7)
    assert REFS["pytrec_eval"].evaluate([measure], qrels, run)[str(measure)].per_query["q1"] == pytest.approx(5 / 7)
    assert REFS["ir_measures"].evaluate([measure], qrels, run)[str(measure)].per_query["q1"] == pytest.approx(9 / 13)


def test_ranx_bpref_depends_on_the_other_queries_of_a_call() -> None:
    """Observed with ranx 0.3.21: in one ``ranx.evaluate`` call, a query with no relevant document makes the
    bpref of the queries after it 0. Query b alone: R = {r1, r2}, N = {n1}; r1 at rank 1 gains 1, r2 after n1
    gains 1 − 1/min(2, 1) = 0, so bpref = 1/2 (trec_eval ``bpref``, by hand). The ranx adapter therefore
    evaluates bpref query by query; if ranx stops depending on the call, this test says so."""
    import json
    import subprocess
    import sys
    qrels = {"a": {"n1": 0}, "b": {"r1": 1, "r2": 1, "n1": 0}}
    run = {"a": {"n1": 1.0}, "b": {"r1": 3.0, "n1": 2.0, "r2": 1.0}}
    script = ("import json, sys, warnings, ranx\nwarnings.simplefilter('ignore')\nqrels, run = json.loads(sys.argv[1])\n"
              "alone = ranx.Run({'b': run['b']}); ranx.evaluate(ranx.Qrels({'b': qrels['b']}), alone, ['bpref'])\n"
              "together = ranx.Run(run); ranx.evaluate(ranx.Qrels(qrels), together, ['bpref'])\n"
              "print(json.dumps([alone.scores['bpref']['b'], together.scores['bpref']['b']]))")
    done = subprocess.run([sys.executable, "-c", script, json.dumps([qrels, run])], capture_output=True, text=True,
                          timeout=300, check=True)
    alone, together = json.loads(done.stdout.strip().splitlines()[-1])
    assert alone == pytest.approx(0.5)
    if together == pytest.approx(0.5):
        pytest.fail("ranx's bpref no longer depends on the other queries of a call: evaluate it in one call again")
    measure, spec = parse("Bpref")
    assert E.evaluate_query(spec, qrels["b"], ["r1", "n1", "r2"]) == Fraction(1, 2)
    assert REFS["ranx"].evaluate([measure], qrels, run)[str(measure)].per_query["b"] == pytest.approx(0.5)


def test_docs_list_every_convention_with_its_values_in_order() -> None:
    """The docs' convention table (docs/conventions.md, generated by docs/hooks.py) is the model's: every convention,
    its values in order (the first is the default reading), so it cannot name a value the evaluator does not have."""
    import importlib.util
    from pathlib import Path

    from audit.measures.conventions import CONVENTIONS
    docs = Path(__file__).resolve().parents[1] / "docs"
    assert "<!-- generated: conventions -->" in (docs / "conventions.md").read_text(encoding="utf-8")
    spec = importlib.util.spec_from_file_location("docs_hooks", docs / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    table = hooks.render("<!-- generated: conventions -->", "conventions.md")
    rows = {line.split("|")[1].strip().strip("`"): line.split("|", 2)[2] for line in table.splitlines()
            if line.startswith("| `")}
    for name, convention in CONVENTIONS.items():
        assert name in rows, name
        listed = rows[name]
        positions = [listed.find(f"`{v}`") for v in convention.values]
        assert all(p >= 0 for p in positions) and positions == sorted(positions), (name, listed)


def test_num_rel_ret_counts_relevant_as_the_reading_says():
    """ir-measures writes NumRelRet as NumRet(rel=1); the chapter's NumRelRet counts "relevant" at the reading's
    relevance level, as P, R and AP do, so a stated level 2 is honoured and an unstated one is a reading:
    grades 3, 1, 2 returned → 3 relevant returned at level 1, 2 at level 2 (by hand). An explicit
    NumRet(rel=2) fixes the level itself."""
    _, spec = parse("NumRelRet")
    assert spec.rel is None and "relevance_level" in E.relevant_to("NumRelRet", several_queries=False)
    judgements, ranking = {"a": 3, "b": 1, "c": 2}, ["a", "b", "c"]
    assert _chapter(spec, judgements, ranking, {}) == 3
    assert _chapter(spec, judgements, ranking, {"relevance_level": "2"}) == 2
    assert parse("NumRet(rel=2)")[1].rel == 2
