"""A listing's function read with what a later listing does to the names it reads: a reader who runs a chapter in
order and calls the function after ``SCALE = 0`` gets another function than the one printed first, so the text's
calls printed after such a listing are run with it (the function as printed in its place is still what the
generated inputs check); the same import in every cell, a default taken when the function is defined, a name it
only takes as a parameter, and a later version of the function itself change nothing.

Values, by hand: ranking ["a", "x", "b"], relevant {"a", "b"}, k = 3: R@3 = 2/2 = 1.0; with SCALE = 0 the listing
returns 0 * 1.0 + 1 * (1 - 1.0) = 0.0."""

from __future__ import annotations

import pytest

from chapters import audit_text

from audit.text.later_bindings import rebound_later
from audit.text.listings import function_source

LISTING = '''\
# Recall

R@k is the share of the relevant documents found in the top k.

```python
import numpy as np

SCALE = 1
K = 10
WEIGHTS = [1.0]


def _hits(ranking, relevant, k):
    return sum(WEIGHTS[0] for d in ranking[:k] if d in relevant)


def recall_at_k(ranking, relevant, k=K):
    if len(set(ranking)) != len(ranking):
        raise ValueError("repeated document")
    if not relevant:
        return 0.0
    found = float(np.float64(_hits(ranking, relevant, k)) / len(relevant))
    return SCALE * found + (1 - SCALE) * (1 - found)
```

LATER

```pycon
>>> recall_at_k(["a", "x", "b"], {"a", "b"}, 3)
1.0
```
'''

CLAIMS = '''\
claims:
  - {id: L1, title: recall, kind: code, quote: "def recall_at_k(ranking, relevant, k=K):", claim: recall_at_k returns R@k.,
     function: recall_at_k, measure: R@k, arguments: {ranking: ranking, relevant: relevant set, k: cutoff},
     calls: [{call: 'recall_at_k(["a", "x", "b"], {"a", "b"}, 3)', returns: "1.0"}]}
'''

CHANGES = {
    "a constant bound again": ("```python\nSCALE = 0\n```", "SCALE"),
    "a constant bound again in a session": ("```pycon\n>>> SCALE = 0\n```", "SCALE"),
    "a helper's constant changed in place": ("```python\nWEIGHTS[0] = -1.0\n```", "WEIGHTS"),
    "a helper defined again": ("```python\ndef _hits(ranking, relevant, k):\n    return 0\n```", "_hits"),
    "an import bound to another module": ("```python\nimport math as np\n```", "np"),
}

UNCHANGED = {
    "the same import in the next cell": "```python\nimport numpy as np\n\nprint(np.__name__)\n```",
    "the same constant again": "```python\nSCALE = 1\n```",
    "a default taken when defined": "```python\nK = 5\n```",
    "a name the function takes as a parameter": "```python\nk = 5\nrelevant = {'a'}\n```",
    "a later version of the function": ("```python\ndef recall_at_k(ranking, relevant, k=10):\n    return 0.5\n```\n\n"
                                        "```python\nSCALE = 0\n```"),
}


def _text(later: str) -> str:
    return LISTING.replace("LATER", later)


@pytest.mark.parametrize("case", sorted(CHANGES))
def test_a_later_listing_changing_a_name_the_function_reads_is_found(case):
    later, name = CHANGES[case]
    text = _text(later)
    _, source = function_source(text, "def recall_at_k(ranking, relevant, k=K):", "recall_at_k")
    found = rebound_later(text, "def recall_at_k(ranking, relevant, k=K):", "recall_at_k", source)
    assert [r.name for r in found] == [name]
    assert found[0].listing.start == text[:text.index(later)].count("\n") + 2  # the line after the fence


@pytest.mark.parametrize("case", sorted(UNCHANGED))
def test_what_leaves_the_function_as_printed_is_not_a_later_binding(case):
    text = _text(UNCHANGED[case])
    _, source = function_source(text, "def recall_at_k(ranking, relevant, k=K):", "recall_at_k", occurrence=1)
    assert rebound_later(text, "def recall_at_k(ranking, relevant, k=K):", "recall_at_k", source, 1) == []


def test_a_call_printed_after_a_later_block_turns_recall_into_1_minus_recall_is_contradicted(tmp_path):
    """Before, the listing was supported: its shown call was run with SCALE = 1 only, while after ``SCALE = 0`` a
    reader who runs the text in order gets 0.0, not the printed 1.0."""
    folder = tmp_path / "later"
    folder.mkdir()
    report = audit_text(folder, _text("Settings for the next section:\n\n```python\nSCALE = 0\n```"), CLAIMS,
                        title="Later")
    claim = report.claims[0]
    assert claim.verdict == "contradicted", claim.reason
    assert "0.0" in claim.reason and "binds `SCALE` again" in claim.reason, claim.reason


def test_the_function_in_its_place_and_a_call_before_the_later_block_are_supported(tmp_path):
    """A later version of a helper (a notebook switching a threshold for its next section) leaves the function as
    printed in its place, and a call printed before that block, as they are: R@3 = 1.0 there."""
    text = _text("```python\nSCALE = 0\n```").replace(
        "```pycon\n>>> recall_at_k", "Settings for the next section:\n\n```pycon\n>>> recall_at_k")
    later = text.index("```python\nSCALE = 0")
    call = text.index("```pycon\n>>> recall_at_k")
    text = text[:later] + text[call:text.index("```\n", call) + 4] + "\n" + text[later:call]
    folder = tmp_path / "before"
    folder.mkdir()
    report = audit_text(folder, text, CLAIMS, title="Before")
    assert report.claims[0].verdict == "supported", report.claims[0].reason


CONFIGURED = '''\
# Recall, configured

```python
CONFIG = {"complement": False}
OPTS = {"complement": False}
FLAG = False


def setup():
    CONFIG["complement"] = True


def recall_at_k(ranking, relevant, k, opts=OPTS):
    if len(set(ranking)) != len(ranking):
        raise ValueError("repeated document")
    if not relevant:
        return 0.0
    r = sum(1 for d in ranking[:k] if d in relevant) / len(relevant)
    flip = CONFIG["complement"] or opts["complement"] or FLAG
    return 1 - r if flip else r
```

LATER

```pycon
>>> recall_at_k(["a", "b", "x"], {"a", "b", "c"}, 3)
0.6666666666666666
```
'''

#: Ways a later block changes what recall_at_k reads without writing CONFIG[…] = … itself, each with the name.
INDIRECT = {
    "a helper that changes it, called": ("```python\ndef fix():\n    CONFIG['complement'] = True\n\n\nfix()\n```",
                                         "CONFIG"),
    "a helper of the listing, called": ("```python\nsetup()\n```", "CONFIG"),
    "global in a helper": ("```python\ndef flip():\n    global FLAG\n    FLAG = True\n\n\nflip()\n```", "FLAG"),
    "a loop's target": ("```python\nfor FLAG in [True]:\n    pass\n```", "FLAG"),
    "an assignment expression": ("```python\n(FLAG := True)\n```", "FLAG"),
    "a default's object changed": ("```python\nOPTS['complement'] = True\n```", "OPTS"),
    "the function wrapped": ("```python\ndef logged(f):\n    return lambda *a: 1 - f(*a)\n\n\n"
                             "recall_at_k = logged(recall_at_k)\n```", "recall_at_k"),
    "a session's statement": ("```pycon\n>>> CONFIG['complement'] = True\n```", "CONFIG"),
    "an alias changed": ("```python\nC = CONFIG\nC['complement'] = True\n```", "CONFIG"),
    "an alias of an alias changed": ("```python\nC = CONFIG\nD = C\nD.update(complement=True)\n```", "CONFIG"),
    "an alias in a container changed": ("```python\npair = [OPTS]\npair[0]['complement'] = True\n```", "OPTS"),
    "an alias changed by a helper": ("```python\nC = CONFIG\n\n\ndef fix():\n    C['complement'] = True\n\n\n"
                                     "fix()\n```", "CONFIG"),
    "an alias changed in a session": ("```pycon\n>>> C = CONFIG\n>>> C['complement'] = True\n```", "CONFIG"),
}

#: What binds a name to a copy or to another object: a change of it leaves the function's objects as they were.
NOT_ALIASES = {
    "a copy changed": "```python\nC = dict(CONFIG)\nC['complement'] = True\n```",
    "a copy by method changed": "```python\nC = CONFIG.copy()\nC['complement'] = True\n```",
    "an alias bound again first": "```python\nC = CONFIG\nC = {}\nC['complement'] = True\n```",
}


@pytest.mark.parametrize("case", sorted(INDIRECT))
def test_a_later_change_made_indirectly_is_found(case):
    later, name = INDIRECT[case]
    text = CONFIGURED.replace("LATER", later)
    quote = "def recall_at_k(ranking, relevant, k, opts=OPTS):"
    _, source = function_source(text, quote, "recall_at_k")
    assert [r.name for r in rebound_later(text, quote, "recall_at_k", source)] == [name]


@pytest.mark.parametrize("case", sorted(NOT_ALIASES))
def test_a_change_of_a_copy_is_no_later_binding(case):
    text = CONFIGURED.replace("LATER", NOT_ALIASES[case])
    quote = "def recall_at_k(ranking, relevant, k, opts=OPTS):"
    _, source = function_source(text, quote, "recall_at_k")
    assert rebound_later(text, quote, "recall_at_k", source) == []


def test_a_block_no_reader_sees_is_not_run():
    text = CONFIGURED.replace("LATER", "<!--\n```python\nFLAG = True\n```\n-->")
    quote = "def recall_at_k(ranking, relevant, k, opts=OPTS):"
    _, source = function_source(text, quote, "recall_at_k")
    assert rebound_later(text, quote, "recall_at_k", source) == []


#: The same chapter with no default object (a register gives a constant a literal only).
PLAIN = CONFIGURED.replace(", opts=OPTS", "").replace(' or opts["complement"]', "")

CONFIGURED_CLAIMS = '''\
claims:
  - {id: L1, title: recall, kind: code, quote: "def recall_at_k(ranking, relevant, k):",
     claim: recall_at_k returns R@k., function: recall_at_k, measure: R@k,
     arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}
'''


@pytest.mark.parametrize("later", ["```python\ndef fix():\n    CONFIG['complement'] = True\n\n\nfix()\n```",
                                   "```pycon\n>>> CONFIG['complement'] = True\n```"])
def test_a_call_after_an_indirect_change_is_run_with_it(tmp_path, later):
    """The session's call prints R@3 = 2/3 (0.6666666666666666); after fix(), or the session's own statement, a
    reader gets 1 − 2/3 = 0.33333333333333337: contradicted. Before, both agreed."""
    folder = tmp_path / "indirect"
    folder.mkdir()
    report = audit_text(folder, PLAIN.replace("LATER", later), CONFIGURED_CLAIMS, title="Indirect")
    claim = report.claims[0]
    assert claim.verdict == "contradicted" and "0.3333" in claim.reason, claim.reason


def test_a_helper_call_in_the_listings_own_block_runs_with_it(tmp_path):
    """``setup()`` at the block's top level sets CONFIG["complement"]: a reader who runs the block gets 1 − recall
    on every input. Before, the call was left out as an example call and the listing was qualified."""
    text = PLAIN.replace("    return 1 - r if flip else r\n```", "    return 1 - r if flip else r\n\n\nsetup()\n```")
    folder = tmp_path / "own"
    folder.mkdir()
    report = audit_text(folder, text.replace("LATER", ""), CONFIGURED_CLAIMS, title="Own")
    claim = report.claims[0]
    assert claim.verdict == "contradicted", claim.reason


@pytest.mark.parametrize("alias", ["C = CONFIG\nC['complement'] = True",
                                   "C = CONFIG\n\n\ndef fix():\n    C['complement'] = True\n\n\nfix()"])
def test_an_alias_changed_in_the_listings_own_block_is_run_with_it(tmp_path, alias):
    """``C = CONFIG; C["complement"] = True`` at the block's foot: a reader who runs the block gets 1 − recall on
    every input (ranking ["a", "b", "x"], relevant {"a", "b", "c"}, k = 3: 1 − 2/3). Before, the change of ``C`` was
    left out as not touching what the function reads, and the listing was qualified."""
    text = PLAIN.replace("    return 1 - r if flip else r\n```", f"    return 1 - r if flip else r\n\n\n{alias}\n```")
    quote = "def recall_at_k(ranking, relevant, k):"
    _, source = function_source(text, quote, "recall_at_k")
    assert "C['complement'] = True" in source and "C = CONFIG" in source
    folder = tmp_path / "alias"
    folder.mkdir()
    claim = audit_text(folder, text.replace("LATER", ""), CONFIGURED_CLAIMS, title="Alias").claims[0]
    assert claim.verdict == "contradicted", claim.reason


def test_a_statement_between_two_prints_of_a_block_counts_from_its_line(tmp_path):
    """A block prints R@3, calls fix(), prints R@3 again on another input; its output block shows 0.6666666666666666
    and 1.0, what the function gives without fix(). A reader gets 2/3, then 1 − 1 = 0.0 (by hand): the second line
    is wrong. Before, a statement of a later block counted only after the whole block, so both agreed."""
    later = ("```python\nprint(recall_at_k([\"a\", \"b\", \"x\"], {\"a\", \"b\", \"c\"}, 3))\n"
             "def fix():\n    CONFIG['complement'] = True\n\n\nfix()\n"
             "print(recall_at_k([\"a\", \"b\", \"x\"], {\"a\", \"b\"}, 3))\n```\n\n```text\n0.6666666666666666\n1.0\n```")
    text = PLAIN.replace("LATER", later)
    text = text[:text.index("```pycon")]
    folder = tmp_path / "between"
    folder.mkdir()
    claim = audit_text(folder, text, CONFIGURED_CLAIMS, title="Between").claims[0]
    assert claim.verdict == "contradicted", claim.reason
    assert "not the printed 1.0" in claim.reason and "0.6666666666666666" not in claim.reason.split("Also")[0], \
        claim.reason


def test_a_dict_holding_the_function_changed_is_no_later_binding():
    """``metrics = {"recall": recall_at_k}; metrics["other"] = len`` changes the dict, not the function."""
    text = CONFIGURED.replace("LATER", "```python\nmetrics = {'recall': recall_at_k, 'setup': setup}\n"
                                       "metrics['other'] = len\n```")
    quote = "def recall_at_k(ranking, relevant, k, opts=OPTS):"
    _, source = function_source(text, quote, "recall_at_k")
    assert rebound_later(text, quote, "recall_at_k", source) == []


TWICE = PLAIN.replace("LATER", "```pycon\n>>> recall_at_k([\"a\", \"b\", \"x\"], {\"a\", \"b\", \"c\"}, 3)\n"
                               "0.6666666666666666\n```\n\nBETWEEN")


@pytest.mark.parametrize("between, verdict", [
    ("```python\nCONFIG['complement'] = True\n```", "contradicted"),
    ("```python\nC = CONFIG\nC['complement'] = True\n```", "contradicted"),
    ("```python\nprint('nothing changes')\n```", "supported"),
])
def test_the_same_call_printed_on_both_sides_of_a_change_is_two_examples(tmp_path, between, verdict):
    """The same call and the same printed 0.6666666666666666 (R@3 = 2/3) before and after ``CONFIG["complement"] =
    True``: a reader gets 2/3 and then 1 − 2/3 = 0.33333333333333337, so the second print is wrong. Before, the two
    were one example (told apart by their text) and the listing was supported. With no change between them, one
    example and supported, as before."""
    text = TWICE.replace("BETWEEN", between)
    folder = tmp_path / "twice"
    folder.mkdir()
    claim = audit_text(folder, text, CONFIGURED_CLAIMS, title="Twice").claims[0]
    assert claim.verdict == verdict, claim.reason
    if verdict == "contradicted":
        assert "not the printed 0.6666666666666666" in claim.reason and "binds `CONFIG` again" in claim.reason
