"""Which of the stated conventions shaped a computed value, found by changing one stated convention at a time.

When the chapter's own definitions do not give a printed value, the author needs to know which of
the conventions their text states produced the number instead. That is found by experiment, never
looked up: the claim's quantity is evaluated again with one stated convention set to each of its
other values (every other convention as before, unstated ones still taking each of their values),
and a convention is named only when some other value was seen to change what the definitions give.
An alternative under which every remaining reading gives the printed value is marked ``holds``;
that re-run is the check a proposal built on it rests on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from audit.evaluation.readings import REJECTED, Value
from audit.measures.conventions import CONVENTIONS, Declared, Statement

ORIGIN = {"chapter": "The chapter's", "book": "The book's", "claim": "The claim's"}


@dataclass(frozen=True)
class Alternative:
    """One other value of a stated convention and what the definitions give with it.

    ``gives``: the distinct values over every remaining reading (in reading order);
    ``matches``: every one of them equals the printed quantity the finding is about;
    ``holds``: every one of them satisfies the whole claim (so stating this value instead would make it hold).
    """

    value: str
    gives: tuple[Value, ...]
    matches: bool
    holds: bool


@dataclass(frozen=True)
class Effect:
    """A stated convention whose other values were seen to change the result.

    ``statement``: the stated value and the quote it rests on; ``gives``: what the definitions give
    with the stated value; ``alternatives``: only the other values that change that.
    """

    name: str
    statement: Statement
    gives: tuple[Value, ...]
    alternatives: tuple[Alternative, ...]

    def holding(self) -> list[Alternative]:
        return [a for a in self.alternatives if a.holds]


def proposed(effects: Sequence[Effect]) -> set[tuple[str, str]]:
    """``(convention, value)`` for every alternative ``alternatives_to_state`` proposes."""
    return {(e.name, a.value) for e in effects for a in e.holding()}


def _single_statement(declared: Declared, name: str) -> Statement | None:
    """The statement fixing ``name`` to one value (the one with a quote, when several say the same), or None
    when the convention is unstated or stated with two values (those are already explored as readings)."""
    stated = declared.statements.get(name) or []
    if len({st.value for st in stated}) != 1:
        return None
    return next((st for st in stated if st.quote), stated[0])


def stated_effects(values_under: Callable[[Declared], Sequence[Value]], declared: Declared, names: Iterable[str],
                   holds: Callable[[Value], bool], restrict: Mapping[str, Sequence[str]] | None = None, *,
                   key: Callable[[Value], object] | None = None,
                   matches: Callable[[Value], bool] | None = None) -> list[Effect]:
    """The stated conventions among ``names`` that change the result, each with the other values tried.

    ``values_under(declared)``: the values the definitions give under every reading ``declared``
    allows (e.g. ``[o.value for o in chapter_readings(...).outcomes]``); an empty list means no reading
    applies. ``holds(value)``: whether a value satisfies the whole claim. ``restrict``: the values
    meaningful on the input for a convention (``readings.graded_levels``); others are not tried.
    ``key(value)``: the part of a value the finding is about (default: all of it), e.g. a comparison's
    direction; ``matches(value)``: whether that part is the printed one (default: ``holds``).

    An alternative is kept when the set of keys it gives differs from the stated one's; one
    whose every reading rejects the input (``repeated_ids: reject``) gives no number and is not kept.
    Returns the effects in ``names`` order; a convention with no kept alternative is left out.
    """
    key = key or (lambda v: v)
    matches = matches or holds
    base = tuple(dict.fromkeys(values_under(declared)))
    effects = []
    for name in names:
        statement = _single_statement(declared, name)
        if statement is None:
            continue
        allowed = (restrict or {}).get(name)
        alternatives = []
        for value in CONVENTIONS[name].values:
            if value == statement.value or (allowed is not None and value not in allowed):
                continue
            changed = declared.overlay(Declared({name: [Statement(value, "", "claim")]}))
            gives = tuple(dict.fromkeys(values_under(changed)))
            if not gives or all(v == REJECTED for v in gives) or {key(v) for v in gives} == {key(v) for v in base}:
                continue
            alternatives.append(Alternative(value, gives, all(matches(v) for v in gives), all(holds(v) for v in gives)))
        if alternatives:
            effects.append(Effect(name, statement, base, tuple(alternatives)))
    return effects


def statement_label(name: str, statement: Statement) -> str:
    """“The chapter's statement of how unjudged documents count (removed: “…”)”."""
    said = f"{statement.value}: “{statement.quote}”" if statement.quote else statement.value
    return f"{ORIGIN.get(statement.origin, 'The')} statement of {CONVENTIONS[name].named()} ({said})"


def describe(effects: Sequence[Effect], show: Callable[[Sequence[Value]], str], printed: str,
             match: str = "the printed value") -> str:
    """Sentences naming each effect, what its stated value gives and what each other value gives.

    ``show(values)``: how a set of values reads after "gives" ("1/2", "1/2 or 1/3");
    ``printed``: how the claim's value is named ("the printed 1/12"); ``match``: how an other value
    under which the claim holds is marked. Empty when ``effects`` is.
    """
    if not effects:
        return ""
    sentences = []
    for e in effects:
        others = "; ".join((f"with it set to “{a.value}” the definitions give " if i == 0 else f"with “{a.value}”, ")
                           + show(a.gives) + (f" ({match})" if a.matches else "")
                           for i, a in enumerate(e.alternatives))
        sentences.append(f"{statement_label(e.name, e.statement)} gives {show(e.gives)}; {others}.")
    if not any(a.matches for e in effects for a in e.alternatives):
        sentences.append(f"No other value of {CONVENTIONS[effects[0].name].named()} gives {printed}." if len(effects) == 1
                         else f"None of these stated conventions changed alone gives {printed}.")
    return " ".join(sentences)


def alternatives_to_state(effects: Sequence[Effect], printed: str,
                          exclude: Iterable[tuple[str, str]] = (), backers: Sequence[str] = ()) -> str:
    """The proposal for each alternative that makes the claim hold (already re-run: ``holds``), or ''.

    ``printed``: how the claim is named ("the printed 1/12"); ``exclude``: ``(convention, value)``
    pairs already proposed elsewhere in the same finding; ``backers``: the references that returned the
    printed value on this same input. An alternative goes against what the text states, so it is offered only
    when a reader is seen to compute the printed value: with no backer, nothing is offered."""
    if not backers:
        return ""
    who = ", ".join(backers[:-1]) + " and " + backers[-1] if len(backers) > 1 else backers[0]
    parts = []
    skip = set(exclude)
    for e in effects:
        for a in e.holding():
            if (e.name, a.value) in skip:
                continue
            against = f" — not what “{e.statement.quote}” states —" if e.statement.quote else ","
            parts.append(f"if this example means that {CONVENTIONS[e.name].phrase(a.value)}{against} say so here "
                         f"(checked: with “{a.value}” {printed} holds under every reading; {who} "
                         f"{'give' if len(backers) > 1 else 'gives'} it here)")
    return ("Or, " + "; or, ".join(parts) + ".") if parts else ""
