"""The work a value claim's sentence prints beside its value, read to tell which reading the author took: the sums it
divides and their divisors, the denominator it names, the terms it prints (each a reading's per-rank term), and the
ideal order its nDCG divides by."""

from __future__ import annotations

import math
import itertools
import re
from fractions import Fraction

from audit.evaluation.checks.common import Measurements
from audit.evaluation.readings import REJECTED, base_reading
from audit.evaluation import definitions
from audit.measures.conventions import Declared, Statement
from audit.measures.syntax import parse as parse_measure
from audit.evaluation.checks.value_readings import chapter_readings
from audit.model.values import ClaimedValue, parse_claimed


_FRACTION = re.compile(r"(?<![\d.])(\d{1,9})\s*/\s*(\d{1,9})(?![\d.])")


#: A parenthesised sum over a whole divisor, "(1 + 2/3)/3": its terms and the divisor.
_SUM_OVER = re.compile(r"\(([^()]*[+][^()]*)\)\s*/\s*(\d{1,9})(?![\d./])")


_TERM = re.compile(r"\s*(?:(\d{1,9})\s*/\s*(\d{1,9})|(\d*\.\d+|\d+))\s*")


def _sum_of(terms: str) -> Fraction | None:
    """The value of a printed sum of numbers and fractions ("1 + 2/3 + 3/6", "0.542 + 0"); None for anything else
    (a logarithm, a product, a name)."""
    total = Fraction(0)
    for term in re.split(r"\+", terms):
        m = _TERM.fullmatch(term)
        if m is None:
            return None
        if m.group(1) is not None:
            if int(m.group(2)) == 0:
                return None
            total += Fraction(int(m.group(1)), int(m.group(2)))
        else:
            total += Fraction(m.group(3))
    return total


def printed_sums(quote: str, claimed: ClaimedValue | None) -> list[tuple[list[str], int]]:
    """The parenthesised sums over a divisor the sentence prints for the claimed value ("(0.542 + 0)/2 ≈ 0.271"):
    each one's terms as printed and its divisor. A printed term may be rounded, so a sum counts when its quotient
    lies in the claimed interval, as a fraction must; with ``claimed`` None, every sum of numbers over a divisor."""
    out = []
    for terms, d in _SUM_OVER.findall(quote):
        total = _sum_of(terms)
        if int(d) and total is not None and (claimed is None or claimed.contains(total / int(d))):
            out.append(([t.strip() for t in terms.split("+")], int(d)))
    return out


def printed_divisors(quote: str, claimed: ClaimedValue) -> tuple[set[int], set[int]]:
    """What the sentence prints the claimed value as: the denominators of fractions equal to it ("5/20 = 0.25"),
    and the divisors of parenthesised sums equal to it ("(1 + 2/3)/3 ≈ 0.556", ``printed_sums``)."""
    fractions = {int(b) for a, b in _FRACTION.findall(quote) if int(b) and claimed.contains(Fraction(int(a), int(b)))}
    return fractions, {d for _, d in printed_sums(quote, claimed)}


def _printed_denominator(quote: str, claimed: ClaimedValue, fixture, measure: str, query: str | None,
                         declared: Declared) -> Declared:
    """``declared`` narrowed by what the sentence prints for the value: a reading of the measure's denominator
    convention (``definitions.DENOMINATOR_CONVENTION``) that cannot have produced the printed number is not tried. The
    printed arithmetic chooses among the readings the text is read with (``Declared.tried``); it never makes a
    reading of a divisor nobody reads the measure with (AP over the three relevant documents retrieved, when
    four are relevant, is a wrong count, not a convention).

    - A fraction equal to the value ("it is 5/20 = 0.25"): a reading whose denominator the printed one does not
      divide cannot have produced it (the printed 5/20 is no reduced form of 5/10).
    - A parenthesised sum over a divisor equal to the value ("AP = (1 + 2/3)/3 ≈ 0.556"): the divisor is what the
      sum is divided by, so only the readings whose denominator equals it fit (the two relevant documents retrieved
      are not the printed 3).

    Unchanged when nothing printed equals the claimed value, the measure has no denominator convention, the value is
    over several queries (a divisor there counts queries), or every reading (or none) fits."""
    spec = parse_measure(measure, True)[1]
    name = definitions.DENOMINATOR_CONVENTION.get(spec.name) if spec is not None else None
    if name is None or (query is None and len(fixture.run) != 1):
        return declared
    fractions, sums = printed_divisors(quote, claimed)
    if not fractions and not sums:
        return declared
    q = query or next(iter(fixture.run))
    base = base_reading(declared)
    values = declared.tried(name)   # the readings someone reads the text with: printed arithmetic chooses among them
    fitting = [v for v in values
               if (d := definitions.denominator(spec, fixture.qrels.get(q, {}), fixture.run.get(q, []),
                                              {**base, name: v}))
               and (any(d % b == 0 for b in fractions) or d in sums)]
    if not fitting or len(fitting) == len(values):
        return declared
    shown = " and ".join(([f"the printed fraction {', '.join(f'…/{b}' for b in sorted(fractions))}"] if fractions
                          else []) + ([f"the printed divisor {', '.join(f'(…)/{b}' for b in sorted(sums))}"] if sums
                                      else []))
    return declared.overlay(Declared({name: [Statement(v, shown, "claim") for v in fitting]}))


#: The most ways of choosing which queries a printed mean's terms are that ``_printed_terms`` tries; past it the
#: sentence's arithmetic narrows nothing (every reading stays, as for a sentence that prints no terms).
_TERM_CHOICES = 10_000


def _terms_match(terms: list[str], values: list) -> bool:
    """Whether each printed term ("0.542", "2/3", "0") stands for a different one of ``values``: a decimal is the
    interval it rounds from, a fraction or whole number itself (``parse_claimed``), matched one to one (each term
    to a value it admits, by augmenting paths)."""
    admits = [[j for j, v in enumerate(values) if parse_claimed(t).contains(v)] for t in terms]
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for j in admits[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or place(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(place(i, set()) for i in range(len(terms)))


def _printed_terms(ms: Measurements, quote: str, claimed: ClaimedValue, fixture, measure: str, query: str | None,
                   declared: Declared) -> Declared:
    """``declared`` narrowed by a mean the sentence prints term by term: in "(0.542 + 0)/2 ≈ 0.271" over two
    queries, each term is one query's value and the divisor the number of queries the mean is over, so a reading
    under which no two queries give 0.542 and 0 (L6's AP over the relevant retrieved is 13/18), or under which the
    mean is over one query (a query without relevant documents left out), cannot have produced the printed
    arithmetic and is not tried. The terms are matched to queries' values as printed (``_terms_match``) and the chosen
    queries' exact mean must be the reading's value.

    Unchanged for one query's value, when no parenthesised sum over a divisor equals the claimed value, when the
    number of terms is not the divisor, when there are more than ``_TERM_CHOICES`` ways to choose the queries, or
    when every reading (or none) fits."""
    if query is not None or len(set(fixture.qrels) | set(fixture.run)) < 2:
        return declared
    queries = sorted(set(fixture.qrels) | set(fixture.run))
    # the sum whose quotient is the printed value; else the sentence's only sum, whose terms still say how each
    # query was scored when the total is a slip ("(0.361 + 1)/2 ≈ 0.691": the terms are right, the total not)
    sums = printed_sums(quote, claimed) or (lone if len(lone := printed_sums(quote, None)) == 1 else [])
    sums = [(terms, d) for terms, d in sums
            if len(terms) == d <= len(queries) and math.comb(len(queries), d) <= _TERM_CHOICES]
    if not sums:
        return declared
    readings = chapter_readings(ms, fixture, measure, declared, None)
    if not readings.varied:
        return declared

    def fits(o) -> bool:
        if o.value is None or o.value == REJECTED:
            return False
        reading = {**readings.base, **o.as_dict}
        per_query = {q: ms.chapter_value(fixture, measure, reading, q) for q in queries}
        for terms, d in sums:
            for chosen in itertools.combinations([q for q in queries if per_query[q] not in (None, REJECTED)], d):
                if Fraction(sum(Fraction(per_query[q]) for q in chosen), d) != Fraction(o.value):
                    continue
                if _terms_match(terms, [per_query[q] for q in chosen]):
                    return True
        return False

    fitting = [o for o in readings.outcomes if fits(o)]
    if not fitting or len(fitting) == len(readings.outcomes):
        return declared
    shown = "the printed terms " + " and ".join(f"({' + '.join(t)})/{d}" for t, d in sums)
    return declared.overlay(Declared({n: [Statement(v, shown, "claim") for v in dict.fromkeys(
        o.as_dict[n] for o in fitting)] for n in readings.varied}))


def _ideal_readings(fixture, measure: str, query: str | None, declared: Declared,
                    printed: list[int]) -> tuple[list[str], dict[str, list[int]]]:
    """The values of the ``ideal`` convention (those the text allows) whose ideal order begins with the printed
    grades, and each allowed value's order (for a reason when none does)."""
    _, spec = parse_measure(measure)
    q = query or next(iter(fixture.run))
    base = base_reading(declared)
    orders = {v: definitions.ideal_order(fixture.qrels.get(q, {}), fixture.run.get(q, []), spec.cutoff,
                                       {**base, "ideal": v}, spec.rel)
              for v in declared.values("ideal")}
    return [v for v, order in orders.items() if order[:len(printed)] == printed and len(order) >= len(printed)], orders
