"""The labelled measures corpus (tests/corpus/measures, labels computed by compute_labels.py with the libraries
called directly and by hand): the audit's verdicts on its hand-encoded registers, and the cases that were
defects."""

from __future__ import annotations

import pytest

import corpus_measures as cm

# the whole labelled corpus audited (about 9 CPU minutes; `benchmarks/bench_corpus.py` prints the same figures):
# a long end-to-end run, run by `pytest -m slow` and by CI
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scored():
    return cm.score(init=False)


def _by_claim(scored) -> dict[str, cm.Statement]:
    return {s.claim: s for f in scored.values() for s in f.statements if s.claim}


def test_no_wrong_supported_and_no_wrong_contradicted(scored):
    """Goal of the corpus benchmark: no statement labelled qualified or contradicted is called supported, and no
    statement labelled supported or qualified is called contradicted."""
    everything = cm.Figures([s for f in scored.values() for s in f.statements])
    bad = [s for s in everything.statements if s.encodable and s.audit != s.verdict
           and "supported" in (s.audit, s.verdict) and s.audit in ("supported", "contradicted")]
    assert not bad, [(s.claim, s.verdict, s.audit) for s in bad]
    assert "wrong supported 0, wrong contradicted 0" in everything.line("overall")


def test_no_statement_ends_in_an_error(scored):
    """RX19: ranx returns NaN for bpref when no judged non-relevant document exists (it divides by
    min(|R|, |N|) = 0); a NaN value lies in no claimed interval, and the check used to end in an internal error."""
    errors = [(s.claim, s.audit) for f in scored.values() for s in f.statements if s.audit == "error"]
    assert not errors


_UNSATISFIED_IMPORT = ("No module named", "sandbox cannot provide", "ModuleNotFoundError", "does not load")


def test_every_listing_verdict_rests_on_the_listings_own_behaviour(scored):
    """Issue 38: a blog post's NumPy listings were contradicted with "The listing does not load (ModuleNotFoundError:
    No module named 'numpy')" when the sandbox hid the environment's packages. Every listing of the corpus imports
    only what the sandbox offers (the standard library, NumPy, SciPy, pandas, scikit-learn), so no verdict or
    reason may say an import could not be satisfied: each rests on what the listing computes."""
    listings = [s for f in scored.values() for s in f.statements if s.kind == "code" and s.encodable]
    assert len(listings) >= 39
    unsatisfied = [(s.claim, s.audit, line) for s in listings for line in s.said.splitlines()
                   if any(word in line for word in _UNSATISFIED_IMPORT)]
    assert not unsatisfied, unsatisfied
    assert all(s.said for s in listings), [s.claim for s in listings if not s.said]


@pytest.mark.parametrize(("claim", "verdict", "why"), [
    ("TB24", "supported", "GMAP of AP 1, 1/2, 1/4 is (1/8)^(1/3) = 1/2 by hand; trec_eval's gm_map per query is "
                          "ln(AP), combined as a geometric mean, not averaged"),
    ("TB26", "qualified", "one AP of 0: the plain geometric mean is 0, trec_eval floors it at 0.00001 (0.0167)"),
    ("LN39", "supported", "the text states trec_eval's floor; gm_map of 0.7904 and 0.00001 is 0.0028 (trec_eval)"),
    ("BL11", "qualified", "2^g - 1 > g fails at g = 1 (equal): 'always larger' is false, 'never smaller' holds"),
    ("QA02", "supported", "P@10 = 5/10: the min(k, |R|) denominator has no reader, so it does not qualify"),
    ("RX21", "contradicted", "the sentence says ranx's rbp.80 gives 0.328; ranx weighs by grade and gives 0.528"),
    ("RX19", "contradicted", "the sentence says ranx's bpref gives 1.0; ranx gives NaN (no judged non-relevant)"),
    ("FQ15", "supported", "ml_metrics' apk divides by min(k, |R|) = 2: 1/2; the references' 1/3 does not qualify it"),
    ("TB15", "supported", "Rprec = R@|R| on every ranking searched (the cutoff tied to each case's |R|)"),
    ("FQ06", "supported", "binary RBP(p = 0.95) never exceeds 1: 1 - p^n < 1"),
    ("QA28", "supported", "the printed 5/20 fixes P@20's denominator at k: 5/10 (number returned) is not tried"),
    ("LN35", "contradicted", "trec_eval -l 2 keeps grade-1 gains in ndcg: 0.7586 at -l 1 and -l 2 (pytrec_eval)"),
    ("RX24", "contradicted", "trec_eval -l 2 gives 0.6292 where ranx's ndcg@5-l2 gives 0.6309 (grade 1 kept)"),
    ("RX04", "supported", "ranx's precision@10 on six returned is 2/10: its P@k denominator is k"),
    ("TB27", "qualified", "GMAP <= MAP by AM-GM for the plain geometric mean; trec_eval's gm_map of all-zero APs is "
                          "0.00001 > MAP 0"),
    ("TB21", "supported", "F1 = 2PR/(P+R) lies between min(P, R) and max(P, R)"),
    ("BL22", "supported", "a first result of grade 4 contributes (2^4 - 1)/2^4 = 15/16 to ERR on its own"),
    ("FQ23", "supported", "AP@k over the relevant retrieved (<= |R|) is never below AP@k over |R|"),
    ("FQ13", "contradicted", "torchmetrics divides AP@3 by the two relevant retrieved: 5/6, not 5/9"),
    ("GL05", "supported", "scikit-learn's ndcg_score(k=5) sorts all eight retrieved grades for its ideal, then cuts "
                          "at 5: 0.639349 (scikit-learn 1.9.1); the first five re-sorted give 0.8162"),
    ("MP22", "supported", "the printed (1 + 2/3)/3 divides by |R| = 3; AP over the two relevant retrieved (5/6) is "
                          "ruled out by the text's own divisor"),
    ("GL18", "supported", "the printed (1 + 2/3 + 3/6)/4 divides by the four relevant at -l 2, not the three "
                          "retrieved: 13/24"),
    ("MP17", "qualified", "two of q3's three returned are relevant: P@10 over the number returned is 2/3 (pytrec_eval "
                          "set_P 0.6667), the reading the text itself computes with torchmetrics' adaptive_k (MP20); "
                          "over k it is 0.2 (pytrec_eval P_10, ir_measures P@10, ranx precision@10)"),
    ("MP13", "qualified", "14.2000001 and 14.2 tie as 32-bit floats (trec_eval 9: 1/3) but not as doubles "
                          "(trec_eval 10.0: 1)"),
])
def test_verdicts_that_were_wrong(scored, claim, verdict, why):
    assert _by_claim(scored)[claim].audit == verdict, why


def test_nearly_every_statement_is_encodable(scored):
    """Goal of the corpus benchmark: at least 95 % of the statements have a checkable claim. The 8 others: a release
    no reference runs (trec_eval 7.0), two about a library's metric names, a transcription of the fixture, two about
    run queries without qrels (which ranx, called with make_comparable as the adapter calls it, drops), a library
    behaviour no convention value describes (ml_metrics' apk returns 1.0 on no relevant item) and a statement about
    which query makes two denominators differ."""
    everything = cm.Figures([s for f in scored.values() for s in f.statements])
    encodable = sum(1 for s in everything.statements if s.encodable)
    assert encodable / len(everything.statements) >= 0.95, (encodable, len(everything.statements))
