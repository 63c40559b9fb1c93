"""A Markdown chapter (CommonMark, MyST, Quarto) is read with markdown-it-py's block structure
(audit/text/markdown.py): front matter, HTML comments, MyST targets and comments are not prose; a ':::' container's
inside is; a display formula is one unit, and a formula that states a convention is seen as one
(audit/text/stated.py reads LaTeX in its plain notation). Lines stay the file's lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.text.chapter import Snapshot
from audit.draft.init import draft_register
from audit.text.markdown import is_markdown, layout
from audit.text.scan import scan, scan_text
from audit.text.stated import latex_plain, stated_in

MYST = """---
jupytext: {format_version: '0.13', jupytext_version: 1.16.4}
date: 2024-05-01
---

# Reciprocal rank

<!-- draft: MRR was 0.61 in the old run -->

(sec-rr)=
% reviewer: check 0.5 again

:::{note}
MRR = (1 + 1/3 + 0)/3 ≈ 0.444 for the three queries.
:::

$$
\\mathrm{P@}k = \\frac{|\\{d \\in \\mathrm{top}_k : d \\text{ relevant}\\}|}{k}
$$

$$ \\mathrm{AP}(q) = \\frac{1}{|R|} \\sum_{k=1}^{n} P(k)\\,\\mathrm{rel}(k) $$ {#eq-ap}

```{python}
def reciprocal_rank(ranking, relevant):
    return 0.0
```
"""


def test_front_matter_comments_and_targets_are_not_prose_and_lines_are_the_files():
    found = scan_text(MYST, markdown=True)
    texts = [(s.kind, s.line, s.text) for s in found]
    assert not any("2024" in t or "0.61" in t or "0.5 again" in t or "0.13" in t for _, _, t in texts), texts
    # the note's sentence, without its fence line, on the file's line 14
    assert ("arithmetic", 14, "MRR = (1 + 1/3 + 0)/3 ≈ 0.444 for the three queries.") in texts
    # the Quarto listing is a listing
    assert ("listing", 24, "def reciprocal_rank(ranking, relevant):") in texts
    # read as plain text, the front matter's numbers would have been statements
    assert any("2024" in s.text or "0.61" in s.text for s in scan_text(MYST))


def test_a_display_formula_is_one_unit_and_a_formula_stating_a_convention_is_one():
    found = [s for s in scan_text(MYST, markdown=True) if s.text.lstrip().startswith("$$")]
    assert [(s.kind, s.line) for s in found] == [("convention", 17), ("convention", 21)]
    assert stated_in(found[0].text) == {"precision_denominator": ("k", 0)}
    assert stated_in(found[1].text) == {"ap_denominator": ("|R|", 0)}
    assert layout(MYST).formulas == ((16, 18), (20, 20))


@pytest.mark.parametrize("formula, convention", [
    (r"\mathrm{DCG@}k = \sum_{i=1}^{k} \frac{2^{g_i}-1}{\log_2(i+1)}", {"gain": "exponential"}),
    (r"\mathrm{DCG@}k = \sum_{i=1}^{k} \frac{rel_i}{\log_2(i+1)}", {"gain": "linear"}),
    (r"\mathrm{P@}k = \frac{|\mathrm{rel} \cap \mathrm{top}_k|}{k}", {"precision_denominator": "k"}),
    (r"\mathrm{MRR} = \frac{1}{3}\left(1 + \frac{1}{3} + 0\right) \approx 0.444", {}),
    # a recommender's formula: what was recommended in the top k, counted, is the number returned
    (r"Precision@k = \frac{\text{number of recommended items @k that are relevant}}{\text{number of recommended items "
     r"@k}}", {"precision_denominator": "number returned"}),
    (r"P@k = \frac{\text{relevant in the top k}}{\text{number of retrieved documents}}",
     {"precision_denominator": "number returned"}),
    (r"Recall@k = \frac{\text{number of recommended items @k that are relevant}}{\text{total number of relevant "
     r"items}}", {}),
])
def test_latex_formulas_read_in_plain_notation(formula, convention):
    assert {n: v for n, (v, _) in stated_in(f"$${formula}$$").items()} == convention


def test_latex_plain_unwraps_nested_fractions_and_text():
    assert latex_plain(r"\frac{1}{3}\left(1 + \frac{1}{3}\right) \approx 0.444") == "(1)/(3) (1 + (1)/(3) ) ≈ 0.444"


def test_init_declares_a_convention_a_formula_alone_states(tmp_path):
    path = tmp_path / "chapter.md"
    path.write_text("# Precision\n\nWe use this definition.\n\n$$\n\\mathrm{P@}k = \\frac{|\\mathrm{rel} \\cap "
                    "\\mathrm{top}_k|}{k}\n$$\n\nFor one ranking P@4 = 1/4.\n", encoding="utf-8")
    snapshot = Snapshot.read(path)
    assert is_markdown(path) and any(s.kind == "convention" for s in scan(snapshot))
    _, _, _, conventions = draft_register(snapshot)
    assert conventions["precision_denominator"]["value"] == "k"
    assert conventions["precision_denominator"]["quote"].startswith("$$")


def test_a_text_file_is_not_read_as_markdown():
    assert not is_markdown(Path("snapshot.txt")) and is_markdown(Path("ch.qmd")) and is_markdown(Path("ch.MD"))


def test_a_notebooks_markdown_cells_are_read_as_markdown(tmp_path):
    """A notebook's reading is its Markdown cells and fenced code, so a formula in a Markdown cell is one unit."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
    nb = new_notebook()
    nb.cells = [new_markdown_cell("# AP\n\n$$\\mathrm{AP} = \\frac{1}{|R|} \\sum_k P(k)\\,\\mathrm{rel}(k)$$\n\n"
                                  "Here AP = 0.5."), new_code_cell("x = 1")]
    path = tmp_path / "ch.ipynb"
    nbformat.write(nb, path)
    snapshot = Snapshot.read(path)
    assert snapshot.markdown
    found = [(s.kind, snapshot.place(s.line)) for s in scan(snapshot)]
    assert found == [("convention", "notebook cell 1, line 3"), ("value", "notebook cell 1, line 5")]
