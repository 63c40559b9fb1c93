"""Fuzz campaign, CI budget: Hypothesis draws registers (valid and corrupted chapter.yaml,
claims.yaml and snapshots) and TREC files; every run must exit 0, 1 or 3 (crosscheck: 0 or 3),
print no traceback and no internal error, finish within its limit, never call a claim that
exercises nothing "supported", and leave only valid JSON reports (``oracle.py``).

The budget is fixed (``derandomize``, a set number of examples) so CI time stays under a minute;
``benchmarks/bench_fuzz.py`` runs the same generator on 10,000 registers.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from generate import register, trec_pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import check_register, check_trec

BUDGET = settings(max_examples=25, derandomize=True, database=None, deadline=None,
                  suppress_health_check=list(HealthCheck))


@BUDGET
@given(st.randoms(use_true_random=False), st.integers(0, 10**6))
def test_fuzzed_registers_behave(rng: random.Random, index: int):
    reg = register(rng, index)
    with tempfile.TemporaryDirectory(prefix="fuzz-") as root:
        problems = check_register(reg, Path(root), seconds=60)
    assert not problems, (reg.corrupted, problems, {k: v[:2000] for k, v in reg.files.items()})


@settings(BUDGET, max_examples=15)
@given(st.randoms(use_true_random=False))
def test_fuzzed_trec_files_behave(rng: random.Random):
    qrels, run = trec_pair(rng)
    with tempfile.TemporaryDirectory(prefix="fuzz-") as root:
        problems = check_trec(qrels, run, Path(root), seconds=60)
    assert not problems, (problems, qrels[:1000], run[:1000])
