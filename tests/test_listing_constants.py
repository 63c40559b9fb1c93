"""A register ``constants:`` value that overrides a listing's literal default, where the parameter is not the
measure's own: the listing would be checked as called in a way no reader calls it. A function whose printed default
makes it return 1 − recall (``complement=True``) must not be certified because the register passes
``complement: False``. The override holds when a call the text prints passes that value (a ``>>>`` session, the
listing's own ``print(…)``, or the claim's ``calls``); a measure's own parameter (RBP's ``p``) is held to the measure
instead (``test_listing_shapes``).

Values, by hand: ranking ["a", "x", "b"], relevant {"a", "b", "c"}, k = 3: R@3 = 2/3 = 0.6666666666666666; with the
default complement=True the listing returns 1 − 2/3 = 0.33333333333333337."""

from __future__ import annotations

import pytest

from chapters import audit_text

from audit.errors import RegisterError
from audit.register.claims import load_chapter

TEXT = '''\
# Recall with a switch

R@k is the share of the relevant documents found in the top k.

```python
def recall_at_k(ranking, relevant, k, complement=True):
    if len(set(ranking)) != len(ranking):
        raise ValueError("repeated document")
    if not relevant:
        return 0.0
    r = sum(1 for d in ranking[:k] if d in relevant) / len(relevant)
    return 1 - r if complement else r
```
CALLS
'''

CLAIMS = '''\
claims:
  - {id: K1, title: recall, kind: code, quote: "def recall_at_k(ranking, relevant, k, complement=True):",
     claim: recall_at_k returns R@k., function: recall_at_k, measure: R@k,
     arguments: {ranking: ranking, relevant: relevant set, k: cutoff, complement: constant},
     constants: {complement: VALUE}}
'''


def _folder(tmp_path, calls: str, value: str = "0"):
    folder = tmp_path / "constants"
    folder.mkdir()
    (folder / "chapter.yaml").write_text("id: constants\ntitle: Constants\nsnapshot: {file: snapshot.md}\n",
                                         encoding="utf-8")
    (folder / "snapshot.md").write_text(TEXT.replace("CALLS", calls), encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS.replace("VALUE", value), encoding="utf-8")
    return folder


@pytest.mark.parametrize("calls, value", [
    ("", "0"),
    ("", "'no'"),
    ("\n```pycon\n>>> recall_at_k(['a', 'x', 'b'], {'a', 'b', 'c'}, 3)\n0.33333333333333337\n```\n", "0"),
    ("\n```pycon\n>>> recall_at_k(['a', 'x', 'b'], {'a', 'b', 'c'}, 3, complement=True)\n0.33333333333333337\n```\n",
     "0"),
])
def test_a_constant_overriding_the_listings_default_that_no_call_passes_stops_the_load(tmp_path, calls, value):
    """Before, the listing was checked with complement=0 only and rated qualified: the register certified a call no
    reader makes."""
    with pytest.raises(RegisterError) as caught:
        load_chapter(_folder(tmp_path, calls, value))
    error = caught.value
    assert error.claim == "K1" and error.field == "constants.complement", (error.field, error.message)
    assert "the listing's default is complement = True" in error.message and "no call the text prints" in error.message


@pytest.mark.parametrize("calls", [
    "\n```pycon\n>>> recall_at_k(['a', 'x', 'b'], {'a', 'b', 'c'}, 3, complement=False)\n0.6666666666666666\n```\n",
    "\n```pycon\n>>> recall_at_k(['a', 'x', 'b'], {'a', 'b', 'c'}, 3, False)\n0.6666666666666666\n```\n",
    "\n```python\nprint(recall_at_k(['a', 'x', 'b'], {'a', 'b', 'c'}, 3, complement=False))\n```\n\n"
    "```text\n0.6666666666666666\n```\n",
])
def test_a_constant_a_printed_call_passes_is_checked_with_it(tmp_path, calls):
    """The text prints a call passing complement=False (by keyword or position, in a session or the listing's own
    print): the register's constant is the reader's, and the listing so called computes R@k."""
    folder = tmp_path / "audited"
    folder.mkdir()
    claim = audit_text(folder, TEXT.replace("CALLS", calls), CLAIMS.replace("VALUE", "0"), title="Passed").claims[0]
    assert claim.verdict in ("supported", "qualified") and "0.3333" not in claim.reason, claim.reason


def test_the_listings_own_default_needs_no_call(tmp_path):
    """``constants: {complement: 1}`` is the default itself (1 == True): it loads, and the listing returning 1 − recall is
    contradicted (0.33333333333333337 where R@3 = 2/3)."""
    folder = tmp_path / "audited"
    folder.mkdir()
    claim = audit_text(folder, TEXT.replace("CALLS", ""), CLAIMS.replace("VALUE", "1"), title="Default").claims[0]
    assert claim.verdict == "contradicted", claim.reason
