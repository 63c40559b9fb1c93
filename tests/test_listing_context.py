"""What a listing runs with from the text before it (an earlier cell's imports and constants), and what its corrected
listing keeps of it (its docstring and doctests)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

GAIN = ("A document of grade g earns a gain of 2^g − 1, discounted by log2(i + 1) at rank i; DCG@k sums the first k "
        "of them.")
HEADER = "import numpy as np\n\nGAIN_BASE = 2"
DCG = ("def dcg_at_k(rels, k):\n"
       "    rels = np.asarray(rels, dtype=float)[:k]\n"
       "    if rels.size == 0:\n"
       "        return 0.0\n"
       "    return float(np.sum((GAIN_BASE ** rels - 1) / np.log2(np.arange(2, rels.size + 2))))")
CLAIM = ('claims:\n  - {id: G1, title: DCG, kind: code, quote: "def dcg_at_k(rels, k):", claim: c, function: dcg_at_k,'
         " measure: DCG@k, arguments: {rels: ranked grades, k: cutoff}}\n")


def _folder(root: Path, name: str, body: str, claims: str = CLAIM) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(body, encoding="utf-8")
    # the gain is declared with its quote where the text states it (a quote the text does not hold stops the load)
    stated = ("conventions:\n  gain: {value: exponential, quote: 'A document of grade g earns a gain of 2^g − 1'}\n"
              if "earns a gain of 2^g − 1" in body else "")
    (root / "chapter.yaml").write_text(f"id: ctx\ntitle: Context\nsnapshot: {{file: {name}}}\n{stated}",
                                       encoding="utf-8")
    (root / "claims.yaml").write_text(claims, encoding="utf-8")
    return root


def _notebook(cells) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    return nbformat.writes(nb)


@pytest.mark.parametrize("name, body", [
    ("snapshot.ipynb", _notebook([nbformat.v4.new_markdown_cell(f"# DCG\n\n{GAIN}"),
                                  nbformat.v4.new_code_cell(HEADER), nbformat.v4.new_code_cell(DCG)])),
    # plain text: the import and the constant printed unfenced, the function further on
    ("snapshot.txt", f"DCG\n\n{GAIN}\n\n{HEADER}\n\nWith those in place, the function itself:\n\n{DCG}\n\n"
                     "That is all it takes.\n"),
])
def test_a_listing_runs_with_the_imports_and_constants_printed_before_it(tmp_path, name, body):
    """dcg_at_k uses np and GAIN_BASE from the code before it and the register names no builds_on: it loads, runs
    with them as a reader running the text in order has them, and is right (it is the chapter's DCG@k: gain 2^g − 1,
    discount log2(i + 1), as chapter.yaml states), instead of raising NameError on every input."""
    from audit.text.listings import function_source
    chapter = load_chapter(_folder(tmp_path / "ch", name, body))
    claim = chapter.register.claims[0]
    _, source = function_source(chapter.snapshot.text, claim.quote, claim.function)
    assert source.startswith("import numpy as np\nGAIN_BASE = 2\n")
    result = audit_chapter(chapter, all_references(), collect(["audit", "run"])).claims[0]
    assert result.verdict == "supported", result.reason
    assert "NameError" not in result.reason


PROSE_GLOBAL = ("# Set measures\n\n## The relevant documents\n- Judged: `[\"a\", \"b\", \"c\", \"x\", \"y\"]`\n"
                "- Relevant: `[\"a\", \"b\", \"c\"]`\n\nPrecision at k is the precision of the first k results.\n\n"
                "```python\ndef is_relevant(doc):\n    return doc in Relevant\n\n"
                "def precision_at_k(ranking, k):\n    top = ranking[:k]\n"
                "    return len([d for d in top if is_relevant(d)]) / len(top)\n```\n")
PROSE_CLAIM = ('claims:\n  - {id: G1, title: P@k, kind: code, quote: "def precision_at_k(ranking, k):", claim: c, '
               "function: precision_at_k, measure: P@k, arguments: {ranking: ranking, k: cutoff}}\n")


def test_a_global_the_text_gives_only_in_prose_is_an_error_naming_it_not_a_contradiction(tmp_path):
    """Lecture notes give the relevant set in prose (“Relevant: `[...]`”) and the listing reads it as a global. The
    audit cannot give it to the function, so every input that reaches it raises NameError: the claim is an error
    naming the name and the line, never contradicted on the empty ranking's ZeroDivisionError (which the smallest
    generated input, [] at k = 1, shows before any NameError)."""
    chapter = load_chapter(_folder(tmp_path / "ch", "snapshot.md", PROSE_GLOBAL, PROSE_CLAIM))
    result = audit_chapter(chapter, all_references(), collect(["audit", "run"])).claims[0]
    assert result.verdict == "error", result.reason
    assert "uses Relevant, which no listing binds; the text gives it in prose (snapshot line 5)" in result.reason


def test_a_name_the_text_gives_nowhere_is_the_listing_s_own_mistake(tmp_path):
    """The same listing with the prose line gone: Relevant is a name nothing gives, a reader copying the listing
    gets a NameError, so the listing is wrong as printed (contradicted), not an error of the audit."""
    text = PROSE_GLOBAL.replace("- Relevant: `[\"a\", \"b\", \"c\"]`\n", "")
    chapter = load_chapter(_folder(tmp_path / "ch", "snapshot.md", text, PROSE_CLAIM))
    result = audit_chapter(chapter, all_references(), collect(["audit", "run"])).claims[0]
    assert result.verdict == "contradicted", result.reason


def test_a_name_an_earlier_listing_binds_out_of_reach_is_an_error_never_a_contradiction(tmp_path):
    """The earlier block imports NumPy inside a `with` block, which is not brought along: the NameError on np is
    not the listing's defect; the claim is an error naming the line that binds it."""
    text = (f"# DCG\n\n{GAIN}\n\n```python\nimport warnings\n\nwith warnings.catch_warnings():\n"
            "    warnings.simplefilter(\"ignore\")\n    import numpy as np\n\nGAIN_BASE = 2\n```\n\n"
            f"```python\n{DCG}\n```\n")
    chapter = load_chapter(_folder(tmp_path / "ch", "snapshot.md", text))
    result = audit_chapter(chapter, all_references(), collect(["audit", "run"])).claims[0]
    assert result.verdict == "error", result.reason
    assert "uses np, which an earlier listing binds (snapshot line 10)" in result.reason
    assert text.split("\n")[9] == "    import numpy as np"


# --- the corrected listing keeps the docstring --------------------------------------------------------------------

WRONG_DCG = ('def dcg_at_k(rels, k):\n'
             '    """Discounted cumulative gain of the first k grades.\n\n'
             '    >>> dcg_at_k([1, 0, 1], 3)\n'
             '    1.5\n'
             '    >>> dcg_at_k([2, 0], 2)\n'
             '    2.0\n'
             '    """\n'
             '    rels = np.asarray(rels, dtype=float)[:k]\n'
             '    return float(np.sum(rels / np.log2(np.arange(2, rels.size + 2))))')


def test_a_corrected_listing_in_a_notebook_keeps_its_docstring_and_right_doctests(tmp_path):
    """The body uses linear gain where the chapter's is 2^g − 1. The first doctest is right either way (grades 1, 0, 1:
    1/log2 2 + 1/log2 4 = 1.5, by hand); the second prints the linear 2.0 where the chapter's DCG@2 of grades 2, 0 is
    (2^2 − 1)/log2 2 = 3. The corrected listing keeps the docstring, its prose and the right example as printed, and
    the wrong output becomes 3.0; the notebook's cell gets the change."""
    from audit.research.proposal import patched_text
    from audit.draft.init import create_chapter
    source = tmp_path / "dcg.ipynb"
    source.write_text(_notebook([nbformat.v4.new_markdown_cell(f"# DCG in NumPy\n\n{GAIN}"),
                                 nbformat.v4.new_code_cell("import numpy as np"),
                                 nbformat.v4.new_code_cell(WRONG_DCG)]), encoding="utf-8")
    create_chapter(source, "dcg", tmp_path / "claims")
    chapter = load_chapter(tmp_path / "claims" / "dcg")
    claim = next(c for c in chapter.register.claims if c.kind == "code")
    assert [(c.call, c.returns) for c in claim.calls] == [("dcg_at_k([1, 0, 1], 3)", "1.5"), ("dcg_at_k([2, 0], 2)",
                                                                                             "2.0")]
    report = audit_chapter(chapter, all_references(), collect(["audit", "run"]))
    result = next(r for r in report.claims if r.id == claim.id)
    assert result.verdict == "contradicted", result.reason
    proposal = report.research.proposal
    assert [h.action for h in proposal.hunks if h.claim == claim.id] == ["correct a listing"], \
        (proposal.not_proposed, proposal.withdrawn)
    patched = patched_text(chapter.snapshot.text, proposal)
    docstring = WRONG_DCG[WRONG_DCG.index('    """'):WRONG_DCG.index('    rels = ')]
    assert docstring.replace("    2.0\n", "    3.0\n") in patched
    assert "np.log2(np.arange(2, rels.size + 2))))" not in patched
    # the docstring sits right under the def line, and the rewrite's own docstring is not added beside it
    assert "def dcg_at_k(rels, k):\n" + docstring.replace("    2.0\n", "    3.0\n") in patched
    assert patched.count('"""') == 2
    # the notebook itself is patched in its cell
    after = chapter.snapshot.file_after(patched)
    cells = nbformat.reads(after, as_version=4).cells
    assert ">>> dcg_at_k([1, 0, 1], 3)\n    1.5\n" in cells[2].source and "    3.0\n" in cells[2].source


def test_a_corrected_listing_keeps_right_doctests_unchanged(tmp_path):
    """Markdown, the docstring's examples right (they use binary grades, where linear and 2^g − 1 gains agree) and the
    body wrong on graded input: the corrected listing holds the docstring exactly as printed."""
    text = f"# DCG\n\n{GAIN}\n\n```python\nimport numpy as np\n\n{WRONG_DCG.replace('[2, 0], 2', '[0, 1], 2').replace('    2.0', '    0.6309297535714575')}\n```\n"
    claims = CLAIM.replace("}}\n", "}, calls: [{call: 'dcg_at_k([1, 0, 1], 3)', returns: '1.5'}, "
                                   "{call: 'dcg_at_k([0, 1], 2)', returns: '0.6309297535714575'}]}\n")
    chapter = load_chapter(_folder(tmp_path / "ch", "snapshot.md", text, claims))
    report = audit_chapter(chapter, all_references(), collect(["audit", "run"]))
    assert report.claims[0].verdict == "contradicted", report.claims[0].reason
    hunk = next(h for h in report.research.proposal.hunks if h.action == "correct a listing")
    start = text.index('    """')
    docstring = text[start:text.index('    """', start + 1) + len('    """')]
    assert "0.6309297535714575" in docstring  # 1/log2(3), as Python prints it
    assert docstring in hunk.new and "rels / np.log2" not in hunk.new
