"""A cold audit of a chapter with ten statistical claims against what it must at least do: run scipy on the same
ten comparisons directly, and load ranx (whose own tests are the second reference). Both measured in this run,
each in a fresh process, with the same warm numba cache.

    python benchmarks/bench_statistics.py [--repeat 3]

Prints:
  audit       ``audit run`` of the ten-claim chapter with an empty claim cache, wall seconds (median);
  scipy       a fresh process importing scipy.stats and running the ten tests as a user would (its defaults:
              permutation_test's 9,999 resamples, exact below 2^14 flips), wall seconds;
  ranx load   a fresh process importing ranx and running its two tests once, wall seconds;
  ratio       audit / (scipy + ranx load): at most 1 means the audit adds nothing beyond them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIFFS = ["0.10", "0.20", "-0.05", "0.15", "0.10", "0.12", "0.08", "0.03", "-0.02", "0.07", "0.11", "0.04"]
A = [0.42, 0.35, 0.61, 0.28, 0.50, 0.47, 0.39, 0.55, 0.31, 0.44, 0.58, 0.26, 0.49, 0.37, 0.52, 0.41, 0.33, 0.60,
     0.45, 0.38]
B = [0.40, 0.30, 0.55, 0.29, 0.43, 0.45, 0.33, 0.50, 0.32, 0.38, 0.52, 0.25, 0.47, 0.30, 0.49, 0.42, 0.30, 0.55,
     0.44, 0.33]

#: The ten claims: (sentence, claim fields). Values as the text prints them, some wrong, some one-sided.
CLAIMS = [
    ("A paired t-test on the twelve differences gives p = 0.0021.", "test: paired t, sided: two, "
     "expect: [{statistic: p, claimed: \"0.0021\"}], decision: significant"),
    ("Its t is 3.9.", "test: paired t, sided: two, expect: [{statistic: t, claimed: \"3.9\"}]"),
    ("The sign test gives p = 0.039.", "test: sign, expect: [{statistic: p, claimed: \"0.039\"}]"),
    ("The Wilcoxon signed-rank test gives p = 0.0049.", "test: wilcoxon, sided: two, "
     "expect: [{statistic: p, claimed: \"0.0049\"}]"),
    ("The exact randomization test gives p = 0.002.", "test: permutation, sided: two, "
     "expect: [{statistic: p, claimed: \"0.002\"}]"),
    ("Cohen's d is 1.1.", "test: paired t, expect: [{statistic: d, claimed: \"1.1\"}]"),
    ("The mean difference is 0.075.", "test: paired t, expect: [{statistic: mean difference, claimed: \"0.075\"}]"),
    ("The 95 % bootstrap interval of the mean difference is [0.04, 0.11].", "test: bootstrap, "
     "expect: [{statistic: interval, claimed: \"[0.04, 0.11]\"}]"),
    ("Over twenty topics a randomization test gives p < 0.001.", "test: permutation, sided: two, "
     "data: {a: " + str([str(x) for x in A]) + ", b: " + str([str(x) for x in B]) + "}, "
     "expect: [{statistic: p, claimed: \"< 0.001\"}]"),
    ("Over twenty topics a paired t-test gives p < 0.0001.", "test: paired t, sided: two, "
     "data: {a: " + str([str(x) for x in A]) + ", b: " + str([str(x) for x in B]) + "}, "
     "expect: [{statistic: p, claimed: \"< 0.0001\"}]"),
]

SCIPY_DIRECT = f"""
import numpy as np
from scipy import stats
d = np.array({[float(x) for x in DIFFS]})
a, b = np.array({A}), np.array({B})
stats.ttest_1samp(d, 0.0); stats.ttest_1samp(d, 0.0)
stats.binomtest(int((d > 0).sum()), int((d != 0).sum()), 0.5)
stats.wilcoxon(d)
stats.permutation_test((d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples")
d.mean() / d.std(ddof=1); d.mean()
stats.bootstrap((d,), np.mean, method="percentile", rng=np.random.default_rng(0))
stats.permutation_test((a - b,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples")
stats.ttest_rel(a, b)
"""
RANX_LOAD = """
import numpy as np
from ranx.statistical_tests import fisher_randomization_test, paired_student_t_test
d = np.array([0.1, 0.2, -0.05, 0.15])
paired_student_t_test(d, np.zeros(4), 0.05)
fisher_randomization_test(d, np.zeros(4), 1000, 0.05, 42)
"""


def chapter(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "chapter.yaml").write_text("id: ten-statistics\ntitle: Ten statistical claims\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text("\n".join(s for s, _ in CLAIMS) + "\n", encoding="utf-8")
    lines = ["claims:"]
    for i, (sentence, fields) in enumerate(CLAIMS, start=1):
        data = "" if "data:" in fields else f"data: {{differences: {DIFFS}}}, "
        lines.append(f"  - {{id: S{i:02d}, title: s{i}, kind: statistic, quote: {sentence!r}, claim: x, {data}{fields}}}")
    (folder / "claims.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def timed(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:3])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    python = sys.executable
    audit = str(Path(python).with_name("audit"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = chapter(Path(tmp) / "claims" / "ten-statistics")
        shared = dict(os.environ)  # the numba cache the user's audits share, warm after the first run
        audit_env = {**shared, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}  # the claim cache: this run's own
        timed([python, "-c", RANX_LOAD], shared)  # warm numba's cache for both sides
        timed([audit, "run", str(folder), "--reports", str(Path(tmp) / "warm"), "--quiet"], audit_env)
        audits, scipys, ranxs = [], [], []
        for i in range(args.repeat):  # --no-cache: every claim computed, nothing read from the claim cache
            audits.append(timed([audit, "run", str(folder), "--reports", str(Path(tmp) / f"r{i}"), "--quiet",
                                 "--no-cache"], audit_env))
            scipys.append(timed([python, "-c", SCIPY_DIRECT], shared))
            ranxs.append(timed([python, "-c", RANX_LOAD], shared))
        a, s, r = (statistics.median(x) for x in (audits, scipys, ranxs))
        print(f"audit: {a:.2f} s (cold, ten statistical claims; runs {', '.join(f'{x:.2f}' for x in audits)})")
        print(f"scipy: {s:.2f} s (the ten comparisons run directly)")
        print(f"ranx load: {r:.2f} s (import and its two tests once)")
        print(f"ratio: {a / (s + r):.2f} (audit / (scipy + ranx load); at most 1 means nothing added)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
