"""A listing that prints ``print(f(…))`` at its top level, with an output block right after it, is an example as a
``>>>`` session is: each printed line is checked against the call, whether or not the register lists it, and a
corrected listing is re-checked on it, so its output block is corrected with it. Before, the output block was
passed over: a right listing under a wrong printed 0.0 was supported, and a wrong listing's rewrite left its
output block printing the old function's values.

Values, by hand: ranking [a, x, b, y], relevant {a, b}: R@4 = 2/2 = 1.0 (the listing dividing by k prints 0.5);
ranking [a], relevant {a, b}: R@1 = 1/2 = 0.5 (dividing by k: 1.0); ranking [a, x, b]: R@3 = 1.0; ranking [a, x, y], relevant {a, b, c}: R@3 = 1/3, 0.333 to three places."""

from __future__ import annotations

from chapters import audit_text

from audit.text.coverage import script_outputs

RIGHT = '''\
# Recall

Recall at k is the share of the relevant documents found in the top k.

```python
def recall_at_k(ranking, relevant, k):
    if len(set(ranking)) != len(ranking):
        raise ValueError("a ranking may not repeat a document ID")
    return sum(1 for d in ranking[:k] if d in relevant) / len(relevant) if relevant else 0.0
```

```python
print(recall_at_k(["a", "x", "b"], {"a", "b"}, 3))
print(round(recall_at_k(["a", "x", "y"], {"a", "b", "c"}, 3), 3))
```

```text
0.0
0.333
```
'''

WRONG = '''\
# Recall

Recall at k is the share of the relevant documents found in the top k.

```python
def recall_at_k(ranking, relevant, k):
    if len(set(ranking)) != len(ranking):
        raise ValueError("a ranking may not repeat a document ID")
    return sum(1 for d in ranking[:k] if d in relevant) / k
```

```python
ranking = ["a", "x", "b", "y"]
print(recall_at_k(ranking, {"a", "b"}, 4))
print(recall_at_k(["a"], {"a", "b"}, 1))
```

Output:

```text
0.5
1.0
```
'''

CLAIMS = '''\
claims:
  - {id: L1, title: recall, kind: code, quote: "def recall_at_k(ranking, relevant, k):", claim: recall_at_k returns R@k.,
     function: recall_at_k, measure: R@k, arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}
'''


def _patched(tmp_path, monkeypatch, name: str, text: str) -> str:
    """A book holding ``text`` as chapter ``name``: audited, its patch applied with ``patch -p0`` from the book's
    root (where an author runs the audit and applies its patch), audited again with every finding failing the
    run (which must exit 0: the rerun is clean). Returns the patched text."""
    import subprocess

    from chapters import cli
    book = tmp_path / "book"
    folder = book / "claims" / name
    folder.mkdir(parents=True)
    (folder / "chapter.yaml").write_text(f"id: {name}\ntitle: T\nsnapshot: {{file: snapshot.md}}\n", encoding="utf-8")
    (folder / "snapshot.md").write_text(text, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    monkeypatch.chdir(book)
    code, out = cli("run", f"claims/{name}", "--no-cache", "--quiet")
    assert code == 0, out
    patch = (book / "reports" / f"{name}.patch").read_text(encoding="utf-8")
    applied = subprocess.run(["patch", "-p0"], input=patch, text=True, cwd=book, capture_output=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    patched = (folder / "snapshot.md").read_text(encoding="utf-8")
    code, out = cli("run", f"claims/{name}", "--no-cache", "--quiet", "--fail-on", "contradicted,error,stale")
    assert code == 0, out
    return patched


def test_each_printed_line_is_paired_with_its_print():
    pairs = [(source, line) for _, source, line in script_outputs(WRONG)]
    assert pairs == [("recall_at_k(ranking, {\"a\", \"b\"}, 4)", "0.5"), ("recall_at_k([\"a\"], {\"a\", \"b\"}, 1)", "1.0")]
    at = script_outputs(WRONG)[0][0]
    assert WRONG[at:].startswith("recall_at_k(ranking,")


def test_output_lines_that_cannot_be_told_apart_are_not_paired():
    in_a_loop = WRONG.replace('print(recall_at_k(["a"], {"a", "b"}, 1))',
                              'for k in cutoffs:\n    print(recall_at_k(["a"], {"a", "b"}, k))')
    with_sep = WRONG.replace('print(recall_at_k(["a"], {"a", "b"}, 1))', 'print(recall_at_k(["a"], {"a", "b"}, 1), end="")')
    one_line_short = WRONG.replace("0.5\n1.0\n", "0.5\n")
    for text in (in_a_loop, with_sep, one_line_short):
        assert script_outputs(text) == []


def test_a_right_listing_under_a_wrong_printed_output_is_contradicted_and_the_block_corrected(tmp_path):
    folder = tmp_path / "right"
    folder.mkdir()
    report = audit_text(folder, RIGHT, CLAIMS, title="Right")
    claim = report.claims[0]
    assert claim.verdict == "contradicted", claim.reason
    assert "returns 1.0000, not the printed 0.0" in claim.reason, claim.reason
    assert "0.333" not in claim.reason, claim.reason  # round(…, 3) of 1/3, printed right
    assert "The listing itself is right" in claim.response, claim.response


def test_a_wrong_listings_output_block_is_corrected_with_it_and_the_rerun_is_clean(tmp_path, monkeypatch):
    text = _patched(tmp_path, monkeypatch, "wrong", WRONG)
    assert "```text\n1.0\n0.5\n```" in text, text


def test_a_rounded_print_is_checked_at_its_printed_places(tmp_path):
    """``print(round(f(…), 3))`` printing 0.334 for 1/3 is wrong at the third place; 0.333 is right (above)."""
    folder = tmp_path / "rounded"
    folder.mkdir()
    report = audit_text(folder, RIGHT.replace("0.0\n0.333", "1.0\n0.334"), CLAIMS, title="Rounded")
    claim = report.claims[0]
    assert claim.verdict == "contradicted" and "0.334" in claim.reason, claim.reason


LABELLED = WRONG.replace('print(recall_at_k(ranking, {"a", "b"}, 4))\nprint(recall_at_k(["a"], {"a", "b"}, 1))',
                         "print(f\"R@4 = {recall_at_k(ranking, {'a', 'b'}, 4):.2f}\")\n"
                         'print("R@1:", recall_at_k(["a"], {"a", "b"}, 1))').replace("0.5\n1.0\n", "R@4 = 0.50\nR@1: 1.0\n")


def test_a_labelled_or_formatted_print_gives_each_value_its_words():
    """``print("R@1:", f(…))`` writes its arguments joined by a space, and ``print(f"R@4 = {f(…):.2f}")`` its
    literal parts as printed: each value is the word where the line reads so. A spec other than .Nf/.Ng (``.1%``),
    and a line that does not read as the print writes it, give none."""
    pairs = [(source, shown) for _, source, shown in script_outputs(LABELLED)]
    assert pairs == [("recall_at_k(ranking, {'a', 'b'}, 4)", "0.50"), ('recall_at_k(["a"], {"a", "b"}, 1)', "1.0")]
    two = WRONG.replace('print(recall_at_k(["a"], {"a", "b"}, 1))',
                        'print(recall_at_k(["a"], {"a", "b"}, 1), recall_at_k(["a"], {"a"}, 1), sep=", ")'
                        ).replace("0.5\n1.0\n", "0.5\n1.0, 1.0\n")
    assert [shown for _, _, shown in script_outputs(two)] == ["0.5", "1.0", "1.0"]
    percent = LABELLED.replace(":.2f}", ":.1%}").replace("R@4 = 0.50", "R@4 = 50.0%")
    assert [shown for _, _, shown in script_outputs(percent)] == ["1.0"]
    misread = LABELLED.replace("R@1: 1.0", "recall 1.0")
    assert [shown for _, _, shown in script_outputs(misread)] == ["0.50"]


def test_a_wrong_listings_labelled_output_is_corrected_with_it_and_the_rerun_is_clean(tmp_path, monkeypatch):
    """R@4 of [a, x, b, y] for {a, b} is 2/2, printed 1.00 at two places; R@1 of [a] for {a, b} is 1/2. Before, the
    labelled and formatted lines were passed over, and the patch left them printing the old function's 0.50 and
    1.0."""
    text = _patched(tmp_path, monkeypatch, "labelled", LABELLED)
    assert "```text\nR@4 = 1.00\nR@1: 0.5\n```" in text, text


COMMENTED = WRONG.replace('print(recall_at_k(ranking, {"a", "b"}, 4))\nprint(recall_at_k(["a"], {"a", "b"}, 1))\n```',
                          'print(recall_at_k(ranking, {"a", "b"}, 4))  # 0.5\n'
                          'r1 = recall_at_k(["a"], {"a", "b"}, 1)  # → 1.0\n'
                          'print("R@1:", r1)\n# Output: R@1: 1.0\n'
                          'recall_at_k(["a"], {"a", "b"}, 1)  # one of the two found\n```').replace(
    "\nOutput:\n\n```text\n0.5\n1.0\n```\n", "")


def test_a_comment_saying_what_a_call_gives_is_its_printed_value():
    """``print(f(…))  # 0.5``, ``x = f(…)  # → 1.0``: the author's comment is the value the call gives. A comment
    that is no value (``# one of the two found``) is not read as one, and ``print("R@1:", r1)`` prints a name."""
    from audit.text.coverage import comment_outputs
    pairs = [(source, shown) for _, source, shown in comment_outputs(COMMENTED)]
    assert pairs[:2] == [('recall_at_k(ranking, {"a", "b"}, 4)', "0.5"), ('recall_at_k(["a"], {"a", "b"}, 1)', "1.0")]
    assert ("r1", "1.0") in pairs


def test_a_wrong_listings_comments_are_corrected_with_it_and_the_rerun_is_clean(tmp_path, monkeypatch):
    """R@4 of [a, x, b, y] for {a, b} is 2/2 = 1.0, R@1 of [a] is 1/2: the listing dividing by k gives 0.5 and 1.0,
    which its comments print. Before, the comments were passed over; now they are checked, the patch corrects them
    with the listing, and the rerun is clean. A right listing under a wrong comment is contradicted naming it."""
    from chapters import audit_text
    text = _patched(tmp_path, monkeypatch, "commented", COMMENTED)
    assert '4))  # 1.0\n' in text and '1)  # → 0.5\n' in text, text
    right = tmp_path / "right"
    right.mkdir()
    claim = audit_text(right, text.replace("# 1.0", "# 0.75"), CLAIMS, title="Right").claims[0]
    assert claim.verdict == "contradicted" and "not the printed 0.75" in claim.reason, claim.reason


LOOP = WRONG.replace('print(recall_at_k(ranking, {"a", "b"}, 4))\nprint(recall_at_k(["a"], {"a", "b"}, 1))',
                     'for k in (1, 2, 4):\n    print(k, recall_at_k(ranking, {"a", "b"}, k))').replace(
    "0.5\n1.0\n", "1 1.0\n2 0.5\n4 0.5\n")


def test_a_loop_over_literal_cutoffs_gives_each_pass_its_line():
    """``for k in (1, 2, 4): print(k, f(…, k))`` writes one line per pass: each pass is an example of its own, the
    call with k replaced by that pass's value, placed where the call is printed. ``range`` of literals too; a loop
    over a name, or one whose body does more than print, gives none."""
    pairs = [(source, shown) for _, source, shown in script_outputs(LOOP)]
    assert pairs == [("1", "1"), ("recall_at_k(ranking, {'a', 'b'}, 1)", "1.0"), ("2", "2"),
                     ("recall_at_k(ranking, {'a', 'b'}, 2)", "0.5"), ("4", "4"),
                     ("recall_at_k(ranking, {'a', 'b'}, 4)", "0.5")]
    assert {LOOP[at:at + 12] for at, source, _ in script_outputs(LOOP) if source.startswith("recall")} == \
        {"recall_at_k("}
    ranged = LOOP.replace("(1, 2, 4)", "range(1, 4)").replace("4 0.5", "3 0.6666666666666666")
    assert [shown for _, source, shown in script_outputs(ranged) if source.startswith("recall")] == \
        ["1.0", "0.5", "0.6666666666666666"]
    busy = LOOP.replace("    print(k,", "    k2 = k\n    print(k,")
    assert script_outputs(busy) == []


def test_a_wrong_value_in_a_loop_table_is_found_and_the_patch_corrects_that_line(tmp_path, monkeypatch):
    """R@k of [a, x, b, y] for {a, b}: 1/2, 1/2, 2/2 at k = 1, 2, 4; the listing dividing by k gives 1.0, 0.5, 0.5,
    the table it prints. Before, a table printed in a loop was passed over. The patch corrects the listing and the
    lines at k = 1 and 4, and leaves the right 0.5 at k = 2, which prints the same word as the wrong one at k = 4."""
    text = _patched(tmp_path, monkeypatch, "loop", LOOP)
    assert "```text\n1 0.5\n2 0.5\n4 1.0\n```" in text, text


def test_a_right_listing_under_a_wrong_loop_table_is_contradicted_naming_the_pass(tmp_path):
    right = tmp_path / "right"
    right.mkdir()
    fixed = LOOP.replace("/ k\n", "/ len(relevant)\n").replace("1 1.0\n2 0.5\n4 0.5", "1 0.5\n2 0.5\n4 0.75")
    claim = audit_text(right, fixed, CLAIMS, title="Right").claims[0]
    assert claim.verdict == "contradicted", claim.reason
    assert "recall_at_k(ranking, {'a', 'b'}, 4)" in claim.reason and "not the printed 0.75" in claim.reason, claim.reason


def test_a_printed_expression_around_the_call_is_named_as_not_checked(tmp_path):
    """``print(1 - recall_at_k(…))`` prints the expression's value, not the call's; the audit does not compute it,
    so the line was passed over in silence (its 0.5 is wrong: 1 - 2/2 = 0.0). It is named as not checked."""
    text = RIGHT.replace('print(round(recall_at_k(["a", "x", "y"], {"a", "b", "c"}, 3), 3))',
                         'print(round(recall_at_k(["a", "x", "y"], {"a", "b", "c"}, 3), 3))\n'
                         'print(1 - recall_at_k(["a", "x", "b"], {"a", "b"}, 3))').replace("0.0\n0.333\n",
                                                                                         "1.0\n0.333\n0.5\n")
    folder = tmp_path / "expression"
    folder.mkdir()
    claim = audit_text(folder, text, CLAIMS, title="Expression").claims[0]
    assert 'the text prints `1 - recall_at_k(["a", "x", "b"], {"a", "b"}, 3)` as the output “0.5”: an expression ' \
           "around recall_at_k() the audit does not compute, not checked" in claim.reason, claim.reason
