"""Fuzz campaign, CI budget: Hypothesis draws registers (valid and corrupted chapter.yaml,
claims.yaml and snapshots) and TREC files; every run must exit 0, 1 or 3 (crosscheck: 0 or 3),
print no traceback and no internal error, finish within its limit, never call a claim that
exercises nothing "supported", and leave only valid JSON reports (``oracle.py``).

The budget is fixed (``derandomize``, a set number of examples); these are ``slow`` tests, left out of the
default run and run by CI as a step of their own (``pytest -m slow``);
``benchmarks/bench_fuzz.py`` runs the same generator on 10,000 registers.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from generate import register, trec_pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import check_register, check_trec

pytestmark = pytest.mark.slow   # a second step of the test run: `pytest -m slow` (docs/development.md)

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


CACHE_CASES = r'''
import json, random, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from cache_cases import Warm, check_cache
warm = Warm(Path(tempfile.mkdtemp(prefix="fuzz-cache-warm-")))
for i in range(int(sys.argv[2])):
    with tempfile.TemporaryDirectory(prefix="fuzz-cache-") as root:
        label, problems = check_cache(warm, random.Random(i), Path(root), seconds=60)
    print(json.dumps([label, problems]), flush=True)
'''


def test_fuzzed_cache_entries_change_nothing(tmp_path):
    """Forged (unsigned, or signed with content this version never writes), damaged and odd cache entries, and
    cache folders replaced by links: every audit ends as the clean one did, with the same reports
    (``cache_cases.py``). In a child process, so that a run that never ended would fail the test, not hang it."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(tmp_path / "unused"), "COLUMNS": "1000"}
    done = subprocess.run([sys.executable, "-c", CACHE_CASES, str(Path(__file__).parent), "24"], capture_output=True,
                          text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    cases = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]
    assert len(cases) == 24
    assert not [(label, problems) for label, problems in cases if problems]
