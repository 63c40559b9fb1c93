"""A listing that rounds what it returns: ``return round(hits / len(relevant), 2)``, as tutorials print tidy numbers.

Found by experiment, as a convention a listing follows is: the places ``n`` at which every value the listing returned
is the chapter's exact value rounded as Python rounds a float (``round(float(x), n)``), on every generated input where
it returned a number, while the unrounded values differ. Such a listing computes the measure and rounds it for
display: its values are the chapter's to the places it keeps, so the finding names the rounding, never a wrong
computation.
"""

from __future__ import annotations

from fractions import Fraction

#: The most places a listing is read as rounding to: past six, a difference is a computation's, not a display's.
MAX_PLACES = 6


def rounded_places(returned: list[tuple[float, Fraction]]) -> int | None:
    """The fewest places ``n`` (0 … ``MAX_PLACES``) such that each ``(returned, exact)`` pair has the returned value
    equal to ``round(float(exact), n)`` (NumPy's ``np.round`` gives the same on these), when at least one exact value is
    not already so round; None when no ``n`` does, or nothing was returned."""
    if not returned:
        return None
    for n in range(MAX_PLACES + 1):
        if all(got == round(float(exact), n) for got, exact in returned):
            if all(float(exact) == round(float(exact), n) for _, exact in returned):
                return None  # every value is already that round: the inputs cannot show a rounding
            return n
    return None


def places_text(n: int) -> str:
    """“two decimal places”, “a whole number”."""
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
    return "a whole number" if n == 0 else f"{words[n]} decimal place{'s' * (n > 1)}"
