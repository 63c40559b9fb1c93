"""Measurements.prefetch: the chapter's fixtures go to each reference as one batch, started without waiting;
a batch that fails leaves its pairs to be evaluated one by one, so a failure stays with its own fixture."""

from __future__ import annotations

from audit.evaluation.checks.common import Measurements
from audit.evaluation.references.base import Outcome, Reference, Support
from audit.register.claims import Fixture


class BatchShy(Reference):
    """Raises on any call with more than one query (a library failing on a combined input); otherwise gives
    P@k = 1/4 for every query, as chapter 23's one-hit example (one relevant result at cutoff 4)."""

    name = "batch-shy"
    library = "fake"
    title = "fails on batches"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def version(self) -> str:
        return "0"

    def conventions(self) -> dict[str, str]:
        return {}

    def supports(self, measure) -> Support:
        return Support(True)

    def evaluate(self, measures, qrels, run):
        self.calls.append(len(qrels))
        if len(qrels) > 1:
            raise RuntimeError("cannot evaluate several queries at once")
        return {str(m): Outcome("ok", per_query={q: 0.25 for q in qrels}, provider="fake") for m in measures}

    def evaluate_run_file(self, measures, qrels, path):
        return self.evaluate(measures, qrels, {})


def test_a_failed_batch_leaves_each_fixture_to_be_evaluated_alone():
    one = Fixture(qrels={"q1": {"a": 1}}, run={"q1": ["a"]})
    two = Fixture(qrels={"q1": {"b": 1}}, run={"q1": ["b", "c"]})
    ref = BatchShy()
    ms = Measurements([ref])
    ms.prefetch([(one, "P@4"), (two, "P@4")])      # one call with both fixtures: it raises
    assert ms.reference(ref, one, "P@4").per_query == {"q1": 0.25}
    assert ms.reference(ref, two, "P@4").per_query == {"q1": 0.25}
    assert ref.calls == [2, 1, 1]                  # the batch, then each fixture alone
