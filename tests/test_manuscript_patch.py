"""A patch for a chapter read in another format is against that file (``Snapshot.file_after``): the changed lines of
the text reading are made in a notebook's cell sources or in an HTML page's source lines, and reading the patched
file gives the patched reading back. A change that cannot be placed leaves the patch against the reading."""

from __future__ import annotations

import json

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from audit.text.chapter import Snapshot

LISTING = "def precision(ranking, relevant, k):\n    hits = sum(1 for d in ranking[:k] if d in relevant)\n    return hits / len(ranking)"
FIXED = "def precision(ranking, relevant, k):\n    if k < 1:\n        raise ValueError('k must be at least 1')\n" \
        "    hits = sum(1 for d in ranking[:k] if d in relevant)\n    return hits / k"


def _notebook(tmp_path, *cells) -> Snapshot:
    nb = new_notebook()
    nb.cells = list(cells)
    path = tmp_path / "ch.ipynb"
    nbformat.write(nb, path)
    return Snapshot.read(path)


def _roundtrip(tmp_path, snapshot: Snapshot, after: str, suffix: str) -> str:
    raw = snapshot.file_after(after)
    assert raw is not None
    path = tmp_path / f"patched{suffix}"
    path.write_text(raw, encoding="utf-8")
    assert Snapshot.read(path).text == after
    return raw


def test_a_sentence_in_a_markdown_cell_is_corrected_in_that_cell(tmp_path):
    snap = _notebook(tmp_path, new_markdown_cell("# AP\n\nHere AP = 34/45 ≈ 0.765.\nNext line."),
                     new_code_cell("x = 1"), new_markdown_cell("AP = 0.765 again."))
    after = snap.text.replace("Here AP = 34/45 ≈ 0.765.", "Here AP = 34/45 ≈ 0.756.")
    raw = _roundtrip(tmp_path, snap, after, ".ipynb")
    changed = [line for line in raw.splitlines() if "0.756" in line]
    assert changed == ['    "Here AP = 34/45 ≈ 0.756.\\n",'] and "AP = 0.765 again." in raw
    assert raw.endswith("\n") == snap.raw.endswith("\n")


def test_a_listing_in_a_code_cell_is_replaced_by_one_of_another_length(tmp_path):
    snap = _notebook(tmp_path, new_markdown_cell("Precision:"), new_code_cell(LISTING), new_markdown_cell("End."))
    raw = _roundtrip(tmp_path, snap, snap.text.replace(LISTING, FIXED), ".ipynb")
    assert nbformat.reads(raw, as_version=4).cells[1].source == FIXED


def test_a_code_cell_saved_ending_in_a_newline_keeps_it(tmp_path):
    """A cell whose source ends in a newline (saved so by a script or an editor): the corrected listing lost it, so
    the patch changed a line it had no reason to touch (``"    return out\\n"`` to ``"    return out"``)."""
    snap = _notebook(tmp_path, new_markdown_cell("Precision:"), new_code_cell(LISTING + "\n"), new_markdown_cell("End."))
    raw = _roundtrip(tmp_path, snap, snap.text.replace(LISTING, FIXED), ".ipynb")
    assert nbformat.reads(raw, as_version=4).cells[1].source == FIXED + "\n"


def test_a_notebook_not_written_as_nbformat_writes_it_is_not_rewritten(tmp_path):
    nb = new_notebook()
    nb.cells = [new_markdown_cell("AP = 0.765.")]
    path = tmp_path / "compact.ipynb"
    path.write_text(json.dumps(nb, indent=4), encoding="utf-8")  # valid, but not nbformat's layout (indent 1)
    snap = Snapshot.read(path)
    assert snap.file_after(snap.text.replace("0.765", "0.756")) is None


PAGE = """<html><body>
<p>For grades 3, 2, 0 and 1
the sum is DCG@4 &asymp; 4.639, and P@3 = 2/3.</p>
<pre><code>def precision(ranking, relevant, k):
    hits = sum(1 for d in ranking[:k] if d in relevant)
    return hits / len(ranking)
</code></pre>
<p>Later: 4.639 again.</p>
</body></html>
"""


def test_a_value_in_a_paragraph_spread_over_lines_is_corrected_where_it_is(tmp_path):
    path = tmp_path / "ch.html"
    path.write_text(PAGE, encoding="utf-8")
    snap = Snapshot.read(path)
    after = snap.text.replace("≈ 4.639, and", "≈ 4.693, and")
    raw = _roundtrip(tmp_path, snap, after, ".html")
    assert "the sum is DCG@4 &asymp; 4.693, and P@3 = 2/3.</p>" in raw and "Later: 4.639 again." in raw


def test_a_listing_in_a_pre_block_is_replaced_escaped(tmp_path):
    path = tmp_path / "ch.html"
    path.write_text(PAGE, encoding="utf-8")
    snap = Snapshot.read(path)
    raw = _roundtrip(tmp_path, snap, snap.text.replace(LISTING, FIXED.replace("k < 1", "k <= 0")), ".html")
    assert "    if k &lt;= 0:" in raw and raw.count("<pre><code>def precision") == 1 and "</code></pre>" in raw


def test_a_text_file_is_its_reading(tmp_path):
    path = tmp_path / "ch.md"
    path.write_text("P@3 = 0.5\n", encoding="utf-8")
    snap = Snapshot.read(path)
    assert snap.file_after("P@3 = 0.667\n") == "P@3 = 0.667\n"


def test_a_pre_block_holding_backticks_gets_a_longer_fence_and_a_nested_pre_no_blank_line(tmp_path):
    path = tmp_path / "ch.html"
    path.write_text("<p>Intro.</p>\n<pre><code>FENCE = '```'\ndef f(x):\n    return x\n</code></pre>\n"
                    "<pre>a\n<pre>b</pre>\nc</pre>\n<p>After.</p>\n", encoding="utf-8")
    from audit.text.listings import find_listings
    text = Snapshot.read(path).text
    assert text.startswith("Intro.\n````python\nFENCE = '```'\ndef f(x):\n    return x\n````\n```python\na\nb\nc\n```\n")
    assert [listing.code for listing in find_listings(text)] == ["FENCE = '```'\ndef f(x):\n    return x", "a\nb\nc"]
