"""The readings a claim is checked under: its text's stated conventions, and every value of each unstated one.

A claim holds under all readings → supported (as far as the chapter's definitions go); under
some → qualified, naming the convention values that decide it; under none → contradicted.
Only conventions that change the value on the claim's input are varied: each convention is
first varied alone from a base reading, and the readings are then the product of the values
of the conventions that changed something (interactions between conventions that each change
nothing alone are not explored).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

from audit.errors import ReadingDoesNotApply, RepeatedIDError
from audit.measures.conventions import CONVENTIONS, NAMES, Declared

#: The chapter rejected the input under this reading (``repeated_ids: reject``).
REJECTED = "rejected"

Value = Fraction | str | None  # a value, REJECTED, or None when the reading does not apply


@dataclass(frozen=True)
class Outcome:
    """One reading (only the conventions that matter, as ``{name: value}``) and the value it gives."""

    reading: tuple[tuple[str, str], ...]
    value: Value

    @property
    def as_dict(self) -> dict[str, str]:
        return dict(self.reading)

    def label(self) -> str:
        return ", ".join(f"{CONVENTIONS[n].title} {v}" for n, v in self.reading)


@dataclass
class Readings:
    """Every reading explored for one quantity: the conventions that matter and each outcome."""

    varied: list[str]
    outcomes: list[Outcome]
    base: dict[str, str] = field(default_factory=dict)

    def values(self) -> list[Value]:
        return list(dict.fromkeys(o.value for o in self.outcomes))

    def single(self) -> bool:
        return len(self.values()) == 1

    def deciding(self, holds: Callable[[Value], bool]) -> list[str]:
        """Conventions whose value alone decides whether the claim holds (given the others vary freely)."""
        out = []
        for name in self.varied:
            verdict_by_value: dict[str, set[bool]] = {}
            for o in self.outcomes:
                verdict_by_value.setdefault(o.as_dict[name], set()).add(holds(o.value))
            if all(len(s) == 1 for s in verdict_by_value.values()) and len(
                    {next(iter(s)) for s in verdict_by_value.values()}) > 1:
                out.append(name)
        return out


def base_reading(declared: Declared) -> dict[str, str]:
    """Each convention's first stated value, or its first value when unstated."""
    return {name: declared.values(name)[0] for name in NAMES}


def _safe(fn: Callable[[Mapping[str, str]], Value], reading: Mapping[str, str]) -> Value:
    try:
        return fn(reading)
    except RepeatedIDError:
        return REJECTED
    except ReadingDoesNotApply:
        return None


def graded_levels(*qrels_list: Mapping[str, Mapping[str, int]]) -> dict[str, tuple[str, ...]]:
    """Relevance levels that mean something on these judgements: 1 up to the largest positive grade
    (binary judgements leave only level 1)."""
    top = max((g for qrels in qrels_list for j in qrels.values() for g in j.values()), default=1)
    return {"relevance_level": tuple(v for v in CONVENTIONS["relevance_level"].values if int(v) <= max(top, 1))}


def explore(fn: Callable[[Mapping[str, str]], Value], declared: Declared, names: Iterable[str],
            *, free: Sequence[str] = (), restrict: Mapping[str, Sequence[str]] | None = None) -> Readings:
    """Evaluate ``fn(reading)`` under the readings a claim must hold under.

    ``names``: the conventions the quantity can depend on (``evaluator.relevant_to``).
    Each takes its stated value(s), or every value when unstated; conventions in ``free`` take
    every value whatever is stated (used to find which value a reference follows); ``restrict``
    narrows an unstated convention to the values meaningful on the input (``graded_levels``).
    """
    base = base_reading(declared)
    # an unstated convention takes the values someone reads the text with (``Declared.tried``): a reference's
    # default under the measure's name, the measure's defining source, or a source the text cites
    candidates = {n: (CONVENTIONS[n].values if n in free else declared.tried(n)) for n in names}
    for n, allowed in (restrict or {}).items():
        if n in candidates and not declared.stated(n):
            candidates[n] = tuple(v for v in candidates[n] if v in allowed) or candidates[n][:1]
    reference = _safe(fn, base)
    varied = []
    for name, values in candidates.items():
        if len(values) < 2:
            if values and values[0] != base[name]:
                base[name] = values[0]
            continue
        changed = [_safe(fn, {**base, name: v}) for v in values if v != base[name]]
        if any(c is not None and c != reference for c in changed):  # None: the reading does not apply
            varied.append(name)
    outcomes = []
    for combo in product(*(candidates[n] for n in varied)):
        reading = {**base, **dict(zip(varied, combo))}
        outcomes.append(Outcome(tuple(zip(varied, combo)), _safe(fn, reading)))
    if not varied:
        outcomes = [Outcome((), reference)]
    return Readings(varied, outcomes, base)
