"""Which t-test a sentence names (Welch's, Student's with pooled variance, any unpaired test, a paired one), read from
its words and from the scipy calls it shows; ``audit init`` drafts a statistic claim's test from it and the register
refuses a claim whose test the sentence does not name. The tests themselves are ``audit.evaluation.significance``."""

from __future__ import annotations

import re

#: How a sentence names a t-test: Welch's (unequal variances), Student's with pooled variance, any unpaired test
#: (two independent samples, scipy's ttest_ind), a paired one (ttest_rel, or ttest_1samp on the differences).
_T_NAMES = (
    ("welch t", re.compile(r"\bWelch\b|\bequal_var\s*=\s*False\b", re.IGNORECASE)),
    ("student t", re.compile(r"\bequal_var\s*=\s*True\b|\bpooled (?:variance|standard deviation|SD)\b",
                             re.IGNORECASE)),
    ("unpaired", re.compile(r"\bunpaired\b|\bttest_ind\b|\bindependent[- ]samples?\b|\btwo[- ]sample\b|\bWelch\b|"
                            r"\bequal_var\b", re.IGNORECASE)),
    ("paired t", re.compile(r"\bpaired(?:[- ][\w'’]+){0,2}[- ]t\b|\bpaired[- ]samples?\b|\bttest_(?:rel|1samp)\b",
                            re.IGNORECASE)),
)


def t_tests_named(text: str) -> set[str]:
    """Which kinds of t-test ``text`` names: ``welch t``, ``student t`` (pooled variance), ``unpaired`` (any test of
    two independent samples) and ``paired t``."""
    return {name for name, pattern in _T_NAMES if pattern.search(text)}


def t_test_mismatch(test: str, text: str) -> str | None:
    """Why ``text`` names another t-test than ``test`` (a claim's), or None: a paired test where the text names only
    an unpaired one, an unpaired test where it names only a paired one, Student's where it names only Welch's, or the
    reverse. A text naming both kinds (“unlike the paired t-test, Welch's …”) is left to the author."""
    named = t_tests_named(text)
    if test == "paired t" and "unpaired" in named and "paired t" not in named:
        return ("the sentence names an unpaired test of two independent samples (" + (
            "Welch's" if "welch t" in named else "scipy's ttest_ind, two-sample or unpaired") + "), not a paired one: "
            "encode test: " + ("welch t" if "welch t" in named else "student t"))
    if test in ("student t", "welch t") and "paired t" in named and "unpaired" not in named:
        return "the sentence names a paired t-test: encode test: paired t"
    if test == "student t" and "welch t" in named and "student t" not in named:
        return "the sentence names Welch's test (unequal variances): encode test: welch t"
    if test == "welch t" and "student t" in named and "welch t" not in named:
        return "the sentence names Student's test with pooled variance (equal variances): encode test: student t"
    return None
