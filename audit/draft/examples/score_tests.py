"""Significance tests a text works on a per-topic score table (``score_table``): lecture notes and reports print the
table, then test it in prose — "the mean difference is 0.03375", "t ≈ 2.75 on 7 degrees of freedom", "Six of the
eight differences are positive", "the exact two-sided Wilcoxon p-value is 0.156", "so B's improvement is
statistically significant at the 5 % level".

Each statistic a sentence prints becomes a statistic claim on the table's rows, quoting its own clause, so that a
wrong t never hides a right p. The test is the one the sentence names, else the one its section's heading names,
else the last one named before it in its section; the side is the one it says (else none: two-sided is the default
reading, as it is scipy's). A statistic whose direction matters — the mean difference, t, d, the count of wins, a
one-sided p — is drafted only when the text says which system is subtracted from which: a difference column headed
"B − A", "d = B − A" beside the table, or the sentence naming the system that gains ("D gains 0.057 over C", "nine
of the ten queries improved under v7"). A sentence that words its decision in a way not read here ("a clear win",
"little evidence") is left to the author whole: a drafted p beside unread words could certify a sentence whose
conclusion is false. A correction for multiple comparisons, an unpaired test and a sentence naming two tests are
left to the author too.

A table is the statement's when it is the last per-topic table before it with no heading between, or, across
headings, when no other table comes between and the statement's section retells it (names its number of topics,
"eight differences", or prints its cells).
"""

from __future__ import annotations

import re
from fractions import Fraction

from audit.draft.examples.score_table import ScoreTable, find as find_tables, find_differences
from audit.text.decisions import decision_at, stated_alpha, worded_decision
from audit.model.values import _TENS, _UNITS

NUMBER_WORDS = {**_UNITS, **_TENS}

_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<title>.*)$", re.MULTILINE)

#: The tests a text names, in the order they are looked for (a randomisation test's "sign flips" are not the sign
#: test's).
_TESTS = (("wilcoxon", re.compile(r"\bwilcoxon|\bsigned[- ]rank", re.IGNORECASE)),
          ("permutation", re.compile(r"\brandomi[sz]ation|\bpermutation", re.IGNORECASE)),
          ("bootstrap", re.compile(r"\bbootstrap", re.IGNORECASE)),
          ("sign", re.compile(r"\bsign\s+test|\bbinomial\b", re.IGNORECASE)),
          ("paired t", re.compile(r"\bt[- ]?tests?\b|\bstudent'?s\s+t\b|\bttest_rel\b", re.IGNORECASE)))
#: What this parser leaves to the author: corrections, unpaired tests, intervals of a t-test.
_LEFT = re.compile(r"\bbonferroni|\bholm\b|\badjusted\b|\bunpaired\b|\bindependent\s+samples|\btwo-sample\b|\bwelch|"
                   r"\bttest_ind\b|\bequal_var\b|\bconfidence\s+interval\s+of\s+the\s+t\b|\bmargin\s+of\s+error",
                   re.IGNORECASE)
_NUM = r"[-−]?(?:\d+\.\d+|\.\d+|\d+)"
_WORDS = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_COUNT = rf"(?:\d+|{_WORDS})"

_P = re.compile(rf"(?<![\w.])p\s*(?P<rel>=|≈|<|≤)\s*(?P<v>{_NUM})|(?<![\w.])p(?:[-\s]value)?(?:'s)?\s+(?:is|was|of|comes\s+to)"
                rf"\s+(?:about\s+|roughly\s+)?(?P<v2>{_NUM})(?![\d/]|\s*/)|\bp[-\s]value\b[^.;:]*?\b(?:is|of|gives)\s+"
                rf"(?P<expr>(?:\(?[\d ()+/]+\)?\s*/\s*\d+\s*=\s*)?(?P<frac>\d+/\d+)\s*(?P<rel3>≈|=)\s*(?P<v3>{_NUM}))",
                re.IGNORECASE)
_T = re.compile(rf"(?<![\w(])t\s*(?P<rel>=|≈)\s*(?P<v>{_NUM})(?![\d(])")
_DF = re.compile(r"\b(?:on|with)\s+(?P<df>\d+)\s+degrees\s+of\s+freedom", re.IGNORECASE)
_W = re.compile(r"(?<![\w])W\s*(?P<rel>=|≈)\s*(?:min\s*\([^)]*\)\s*=\s*)?(?P<v>\d+(?:\.\d+)?)(?!\d|\.\d)")
_D = re.compile(rf"(?<![\w'])d\s*(?P<rel>=|≈)\s*(?P<v>{_NUM})|\bcohen'?s\s+d\b[^.;:]*?\b(?:is|of|comes\s+to|equals)\s+"
                rf"(?:about\s+)?(?P<v2>{_NUM})(?!\s*/)", re.IGNORECASE)
_MEAN = re.compile(rf"\bmean\s+(?:per[- ]\w+\s+)?(?:difference|gain|improvement)\s+(?:is|of|was|comes\s+to)\s+"
                   rf"(?:about\s+)?(?P<v>{_NUM})|\bon\s+average,?\s+(?P<sys>[\w.+-]+)\s+(?:gains|improves\s+by|adds)\s+"
                   rf"(?P<v2>{_NUM})|\b(?:improves|raises|lifts|increases)\s+the\s+mean\s+(?:[\w@-]+\s+){{0,2}}?by\s+"
                   rf"(?P<v3>{_NUM})", re.IGNORECASE)
_WINS = re.compile(rf"\b(?P<n>{_COUNT})\s+(?:of|out\s+of)\s+(?:the\s+|its\s+|our\s+)?(?P<m>{_COUNT})\s+"
                   r"(?P<what>differences|topics|queries|pairs)\b", re.IGNORECASE)
_WIN_WORDS = re.compile(r"\bpositive\b|\bimprov|\bwins?\b|\bbetter\b|\bhigher\b|\bgain", re.IGNORECASE)
_BRACKETS = re.compile(rf"\[\s*(?P<low>{_NUM})\s*,\s*(?P<high>{_NUM})\s*\]")
_PERCENT = re.compile(r"(?P<conf>\d+(?:\.\d+)?)\s*%")
_RESAMPLES = re.compile(r"\b(?P<n>\d{1,3}(?:,\d{3})+|\d+)\s+(?:bootstrap\s+)?(?:resamples|resamplings|times)\b",
                        re.IGNORECASE)
#: A clause boundary inside a sentence: each statistic quotes its own clause.
_CLAUSE = re.compile(r";\s|:\s|,\s+(?:and|so|which|while|but|though)\s+|,\s+(?=with\s+an?\s+effect\s+size\b)|\s+and\s+(?=(?:the\s+)?(?:p|t|W|d)\b)|,\s+(?=p\s*[=≈<])")
_SIDE = re.compile(r"\b(?P<side>one|two)[- ](?:sided|tailed)\b", re.IGNORECASE)
def _name(header: str) -> str:
    """The name a text calls a table's system by: ``v6 (control)`` → v6, ``AP of B`` → B, ``System A`` → A."""
    words = re.sub(r"\([^)]*\)", " ", header).split()
    if not words:
        return header
    if "of" in [w.lower() for w in words[:-1]]:
        return words[len(words) - 1 - [w.lower() for w in reversed(words)].index("of") + 1]
    if len(words) > 1 and words[0].lower() in ("system", "run", "model", "ranker", "method"):
        return words[1]
    return words[0]


def _named_at(sentence: str, name: str) -> list[int]:
    """Where ``sentence`` names the system ``name`` (a single capital letter only as a word, never the sentence's
    opening article "A" or pronoun "I")."""
    flags = 0 if len(name) == 1 else re.IGNORECASE
    out = []
    for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", sentence, flags):
        if name in ("A", "I") and not sentence[:m.start()].strip():
            continue  # the article or the pronoun opening the sentence
        out.append(m.start())
    return out


def _count(word: str) -> int | None:
    word = word.lower()
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word)


class _Table:
    """A score table as this parser reads it: its two systems' names and columns, its rows, every cell printed."""

    def __init__(self, table: ScoreTable, text: str):
        self.table = table
        self.headers = list(table.systems)
        self.names = [_name(h) for h in self.headers]
        self.rows = len(next(iter(table.systems.values())))
        self.cells = set(re.findall(r"\d*\.\d+", text[table.start:table.end]))
        lead = text[max(0, table.start - 400):table.end]
        self.order: tuple[int, int] | None = None
        for i, a in enumerate(self.names):
            for j, b in enumerate(self.names):
                if i != j and re.search(rf"(?<![\w-]){re.escape(a)}\s*[−–-]\s*{re.escape(b)}(?![\w-])", lead):
                    self.order = (i, j)


def _bound(tables: list[ScoreTable], at: int, end: int, text: str) -> ScoreTable | None:
    before = [t for t in tables if t.end <= at]
    if not before:
        return None
    table = before[-1]
    heads = [m for m in _HEADING.finditer(text, table.end, at)]
    if not heads:
        return table
    from audit.text.markdown import pipe_tables
    if any(table.end < s < at for s, _, _, _ in pipe_tables(text)):
        return None  # another table comes between
    section = text[heads[-1].start():end]
    read = _Table(table, text)
    counts = [_count(m.group(1)) for m in re.finditer(rf"\b({_COUNT})\s+(?:\w+\s+)?(?:topics|queries|differences|"
                                                      r"pairs)\b", section, re.IGNORECASE)]
    if any(_count(m.group(1)) not in (None, read.rows)
           for m in re.finditer(rf"\b({_COUNT})\s+(?:topics|queries)\b", section, re.IGNORECASE)):
        return None  # the section speaks of another number of topics: other data
    if read.rows in counts or re.search(r"\bper[- ](?:query|topic)\b", section, re.IGNORECASE):
        return table
    if any(len(n) > 1 and _named_at(section, n) for n in read.names):
        return table
    printed = {v.lstrip("-−") for v in re.findall(r"[-−]?\d*\.\d+", section)}
    return table if len(printed & {c.lstrip("-") for c in read.cells}) >= 2 else None


def _test(sentence: str, section_title: str, earlier: str) -> str | None:
    named = [name for name, pattern in _TESTS if pattern.search(sentence)]
    if len(named) == 1:
        return named[0]
    if named:
        return None  # two tests in one sentence: which statistic is whose is the author's to say
    named = [name for name, pattern in _TESTS if pattern.search(section_title)]
    if len(named) == 1:
        return named[0]
    last = max(((m.start(), name) for name, pattern in _TESTS for m in pattern.finditer(earlier)), default=None)
    return last[1] if last else None


def _clause(sentence: str, at: int) -> tuple[int, int]:
    """The clause of ``sentence`` around offset ``at``."""
    cuts = [(m.start(), m.end()) for m in _CLAUSE.finditer(sentence)]
    a = max([e for s, e in cuts if e <= at], default=0)
    b = min([s for s, e in cuts if s >= at], default=len(sentence))
    return a, b


def drafts(sentence: str, start: int, text: str) -> list[dict] | None:
    """The statistic claims of ``sentence`` (at offset ``start`` of ``text``) on the per-topic table it reports on;
    None when it reports on none, or when it is left to the author (see the module doc)."""
    table = _bound(find_tables(text), start, start + len(sentence), text)
    if table is None:
        return _on_differences(sentence, start, text)
    if len(table.systems) != 2 or _LEFT.search(sentence):
        return None
    read = _Table(table, text)
    found = _statistics(sentence, read)
    decision = worded_decision(sentence)
    if decision == "unread" or (not found and decision is None):
        return None
    title, earlier = _section_before(text, start, table.end)
    # a sentence naming no test reports the t-test when it, or its section before it, prints t
    test = _test(sentence, title, earlier) or ("paired t" if _T.search(sentence) or _T.search(earlier) else None)
    side = _SIDE.search(sentence)
    sided = ("two" if side.group("side").lower() == "two" else "one") if side else None
    said = _order(sentence, read)
    out = []
    for (a, b), stats in found.items():
        chosen = _chosen_test(stats, test)
        if chosen is None:
            return None
        order = said or _order_by_sign(stats, read)
        if sided == "one" and said is None and not any(st[3] for st in stats):
            order = _better_first(read)  # one-sided in the direction the data show, as a text means it
        if order is None and any(st[3] for st in stats):
            return None  # the direction is not said: the whole sentence is the author's
        claim = _claim(sentence[a:b].strip(" ,."), chosen, read, order, stats, sided, sentence, earlier)
        if claim is None:
            return None
        out.append(claim)
    if decision is not None:
        intervals = [c for c in out if c["test"] == "bootstrap"]
        if _ZERO.search(sentence):
            # "which straddles zero": the interval's own decision, whatever other test the sentence names
            if len(intervals) != 1:
                return None
            intervals[0]["decision"] = decision
            return out
        if test is None or test == "bootstrap":
            return None
        clause = _decision_clause(sentence)
        claim = next((c for c in out if c["test"] == test and (clause in c["quote"] or c["quote"] in clause)), None)
        if claim is None:
            order = said or (_better_first(read) if sided == "one" else None)
            if sided == "one" and order is None:
                return None
            claim = _claim(clause, test, read, order, [], sided, sentence, earlier)
            if claim is None:
                return None
            out.append(claim)
        claim["decision"] = decision
        claim["alpha"] = stated_alpha(sentence) or stated_alpha(earlier) or stated_alpha(text[:start]) or "0.05"
    return out


def _chosen_test(stats, test: str | None) -> str | None:
    """The test a clause's statistics are drafted under: the statistic names its test where the sentence may not (W
    is Wilcoxon's, the wins the sign test's, t and its df the t-test's, an interval the bootstrap's; the mean
    difference and d are the same under any test), else the test the text names, else the t-test. None when a p has
    no test, or sits beside another test's statistic."""
    names = {st[0] for st in stats}
    by_statistic = ("wilcoxon" if "W" in names else "sign" if "positives" in names else
                    "paired t" if names & {"t", "df"} else "bootstrap" if "interval" in names else None)
    if "p" in names and by_statistic is None and test is None:
        return None
    if by_statistic and "p" in names and test not in (None, by_statistic):
        return None
    return by_statistic if by_statistic and "p" not in names else (test or by_statistic or "paired t")


_ZERO = re.compile(r"\b(?:straddles|includes|contains|excludes)\s+zero\b", re.IGNORECASE)


def _better_first(read: _Table) -> tuple[int, int] | None:
    """The system with the higher mean first: the direction a one-sided test is read in when the text does not say."""
    columns = [read.table.systems[h] for h in read.headers]
    gap = _mean(columns[0]) - _mean(columns[1])
    return None if gap == 0 else (0, 1) if gap > 0 else (1, 0)


def _order_by_sign(stats, read: _Table) -> tuple[int, int] | None:
    """For a t, d, mean difference or interval of it printed without saying which system comes first: the order
    whose mean difference has the printed sign (the magnitude is what such a sentence claims); None when the statistics
    include a count of wins, or their signs disagree."""
    signs = set()
    for statistic, value, _, directed in stats:
        if not directed:
            continue
        if statistic == "interval":
            ends = _BRACKETS.match(value)
            middle = sum(Fraction(ends.group(g).replace("−", "-")) for g in ("low", "high"))
            if middle == 0:
                return None
            signs.add(middle < 0)
            continue
        if statistic not in ("t", "d", "mean difference"):
            return None
        signs.add(value.replace("−", "-").startswith("-"))
    if len(signs) != 1:
        return None if signs else (0, 1)
    columns = [read.table.systems[h] for h in read.headers]
    gap = _mean(columns[0]) - _mean(columns[1])
    if gap == 0:
        return None
    negative = signs.pop()
    return (0, 1) if (gap < 0) == negative else (1, 0)


def _mean(values: list[str]) -> Fraction:
    return sum((Fraction(v.replace("−", "-")) for v in values), Fraction(0)) / len(values)


def _statistics(sentence: str, read: _Table) -> dict[tuple[int, int], list[tuple[str, str, str, bool]]]:
    """``{clause span: [(statistic, claimed text, relation, direction matters)]}`` for each statistic the sentence
    prints."""
    found: dict[tuple[int, int], list[tuple[str, str, str, bool]]] = {}

    def add(at: int, statistic: str, value: str, rel: str = "=", directed: bool = False) -> None:
        found.setdefault(_clause(sentence, at), []).append((statistic, value, rel, directed))

    for m in _P.finditer(sentence):
        if m.group("v"):
            add(m.start(), "p", m.group("v"), m.group("rel"))
        elif m.group("v2"):
            add(m.start(), "p", m.group("v2"))
        else:
            add(m.start(), "p", m.group("frac"))
            add(m.start(), "p", m.group("v3"), m.group("rel3"))
    for m in _T.finditer(sentence):
        add(m.start(), "t", m.group("v"), m.group("rel"), True)
        df = _DF.search(sentence, m.end())
        if df:
            add(m.start(), "df", df.group("df"))
    for m in _W.finditer(sentence):
        add(m.start(), "W", m.group("v"), m.group("rel"))
    for m in _D.finditer(sentence):
        add(m.start(), "d", m.group("v") or m.group("v2"), m.group("rel") or "=", True)
    for m in _MEAN.finditer(sentence):
        add(m.start(), "mean difference", m.group("v") or m.group("v2") or m.group("v3"), "=", True)
    if _WIN_WORDS.search(sentence):
        for m in _WINS.finditer(sentence):
            if _count(m.group("m")) == read.rows and _count(m.group("n")) is not None:
                add(m.start(), "positives", m.group("n"), "=", True)
    for m in _BRACKETS.finditer(sentence):
        a, _ = _clause(sentence, m.start())
        if _PERCENT.search(sentence, a, m.start()):
            add(m.start(), "interval", m.group(0), "=", True)
    return found


def _decision_clause(sentence: str) -> str:
    a, b = _clause(sentence, decision_at(sentence)[0])
    return sentence[a:b].strip(" ,.")


def _order(sentence: str, read: _Table) -> tuple[int, int] | None:
    """Which column is ``a`` and which ``b`` (the difference a − b): the system the sentence says gains, before
    "over", "than", "against"; else the difference the text defines beside the table; else None."""
    places = {i: _named_at(sentence, n) for i, n in enumerate(read.names)}
    for i, n in enumerate(read.names):  # "BM25" inside "BM25+RM3" names the longer system only
        longer = [(at, at + len(m)) for j, m in enumerate(read.names) if j != i and n in m and len(m) > len(n)
                  for at in places[j]]
        places[i] = [at for at in places[i] if not any(a <= at < b for a, b in longer)]
    named = [i for i, at in places.items() if at]
    if len(named) == 2:
        first, second = sorted(named, key=lambda i: places[i][0])
        between = sentence[places[first][0]:places[second][0]]
        if re.search(r"\b(?:over|than|against|versus|vs\.?|relative\s+to|compared\s+(?:with|to))\b", between):
            return first, second
        return None
    if len(named) == 1 and re.search(r"\b(?:gains?|improv\w*|better|higher|wins?|favou?r|under|ahead|beats?)\b",
                                     sentence, re.IGNORECASE):
        return named[0], 1 - named[0]
    return read.order


def _section_before(text: str, start: int, table_end: int) -> tuple[str, str]:
    """The title of the section a statement at ``start`` stands in, and its text from the table (or the heading) to
    the statement: where the test it reports was named."""
    heads = [m for m in _HEADING.finditer(text, 0, start)]
    title = heads[-1].group("title") if heads else ""
    return title, text[max(heads[-1].end() if heads else 0, table_end):start]


def _on_differences(sentence: str, start: int, text: str) -> list[dict] | None:
    """The statistic claims of ``sentence`` on the table of per-topic differences it reports on (``| topic | B − A
    |``): the column it names the system of (the only one, else the one whose first system the sentence names); a
    statistic whose sign matters only when the header or the caption says which system is subtracted. A decision
    is drafted only as an interval's ("which excludes zero"): whether a test's decision holds may rest on what the
    text says elsewhere (how many comparisons it makes), so it stays the author's."""
    if _LEFT.search(sentence):
        return None
    table = _bound(find_differences(text), start, start + len(sentence), text)
    if table is None:
        return None
    if len(table.systems) == 1:
        header = next(iter(table.systems))
    else:
        named = [h for h, d in table.directions.items() if d and _named_at(sentence, d[0])]
        if len(named) != 1:
            return None
        header = named[0]
    read = _Table(table, text)
    found = _statistics(sentence, read)
    title, earlier = _section_before(text, start, table.end)
    test = _test(sentence, title, earlier)
    level = list(re.finditer(r"(?P<conf>\d+(?:\.\d+)?)\s*%[^.;]*?\binterval\b", earlier))
    if test == "bootstrap" and level and not any(st[0] == "interval" for stats in found.values() for st in stats):
        # "For RM3 it is [0.02, 0.04]": the interval of the kind, and at the level, the sentence before gave
        for m in _BRACKETS.finditer(sentence):
            found.setdefault(_clause(sentence, m.start()), []).append(("interval", m.group(0), "=", True))
    decision = worded_decision(sentence)
    if decision == "unread" or not found:
        return None
    side = _SIDE.search(sentence)
    sided = ("two" if side.group("side").lower() == "two" else "one") if side else None
    direction = table.directions[header]
    described = f"{direction[0]} − {direction[1]}" if direction else header
    out = []
    for (a, b), stats in found.items():
        chosen = _chosen_test(stats, test)
        if chosen is None:
            return None
        if direction is None and (sided == "one" or any(st[3] for st in stats)):
            return None  # the sign matters and the text does not say which system is subtracted
        claim = _claim(sentence[a:b].strip(" ,."), chosen, read, None, stats, "two" if sided == "two" else None,
                       sentence, earlier, differences=(described, table.systems[header]))
        if chosen == "bootstrap" and "confidence" not in claim and level:
            claim["confidence"] = str(float(Fraction(level[-1].group("conf")) / 100))
        out.append(claim)
    if decision is not None and _ZERO.search(sentence):
        intervals = [c for c in out if c["test"] == "bootstrap"]
        if len(intervals) != 1:
            return None
        intervals[0]["decision"] = decision
    return out


def _claim(clause: str, test: str, read: _Table, order: tuple[int, int] | None, stats, sided: str | None,
           sentence: str, earlier: str, differences: tuple[str, list[str]] | None = None) -> dict | None:
    i, j = order or (0, 1)
    if sided == "one":
        if order is None:
            return None
        sided = "greater"  # one-sided in the direction the text reads: the first system better
    expect = []
    for statistic, value, rel, _ in stats:
        claimed = {"≈": "≈ ", "<": "< ", "≤": "<= "}.get(rel, "") + value.replace("−", "-")
        expect.append({"statistic": statistic, "claimed": claimed})
    if differences is not None:
        claim = {"kind": "statistic", "quote": clause,
                 "claim": f"{test} on the per-topic differences {differences[0]} of the table at line {read.table.line}",
                 "test": test, "data": {"differences": list(differences[1])}}
    else:
        a, b = read.table.systems[read.headers[i]], read.table.systems[read.headers[j]]
        claim = {"kind": "statistic", "quote": clause,
                 "claim": (f"{test} on the per-topic table at line {read.table.line}, {read.names[i]} against "
                           f"{read.names[j]}"), "test": test, "data": {"a": list(a), "b": list(b)}}
    if expect:
        claim["expect"] = expect
    if sided and test not in ("bootstrap",):
        claim["sided"] = sided
    if test == "bootstrap":
        bracket = _BRACKETS.search(clause)
        levels = list(_PERCENT.finditer(clause, 0, bracket.start() if bracket else len(clause)))
        if levels:
            claim["confidence"] = str(float(Fraction(levels[-1].group("conf")) / 100))
        resamples = _RESAMPLES.search(sentence) or _RESAMPLES.search(earlier)
        if resamples:
            claim["resamples"] = int(resamples.group("n").replace(",", ""))
    return claim
