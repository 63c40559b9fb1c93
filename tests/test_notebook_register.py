"""chapter.yaml's ``notebook``: a local notebook must be a readable notebook inside the book's repository, or the
chapter does not load (exit 3, naming the file and the field); a URL is kept and never run. The notebook's folder
files that key its stored run are the ones the kernel is shown (``sandbox.notebook.book_files``)."""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_notebook

import audit.evaluation.sandbox.notebook as sandbox_notebook
from audit.errors import RegisterError
from audit.register.claims import load_chapter
from audit.run.cache import _folder_digest


def _chapter(repo, notebook: str):
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    folder = repo / "ch" / "audit"
    folder.mkdir(parents=True, exist_ok=True)
    (repo / "ch" / "text.md").write_text("P@4 = 1/4.\n", encoding="utf-8")
    (folder / "chapter.yaml").write_text(f"id: ch\ntitle: t\nsnapshot: {{file: ../text.md}}\nnotebook: {notebook!r}\n",
                                         encoding="utf-8")
    (folder / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("name, why", [
    ("../bad.ipynb", "is not a Jupyter notebook nbformat can read"),   # not JSON
    ("../latin1.ipynb", "not UTF-8"),
    ("/etc/passwd", "points outside the book's repository"),
    ("../../../outside.ipynb", "points outside the book's repository"),
    ("../missing.ipynb", "names no file"),
    ("../text.md", "is not a .ipynb file"),
    ("../" + "x" * 300 + ".ipynb", "cannot be read as a path"),
])
def test_a_local_notebook_that_is_not_one_is_a_load_error_naming_the_field(tmp_path, name, why):
    repo = tmp_path / "book"
    folder = _chapter(repo, name)
    (repo / "ch" / "bad.ipynb").write_text("{not json", encoding="utf-8")
    (repo / "ch" / "latin1.ipynb").write_bytes(b"\xff\xfe{}")
    with pytest.raises(RegisterError) as raised:
        load_chapter(folder)
    assert raised.value.field == "notebook" and raised.value.file.endswith("chapter.yaml")
    assert why in raised.value.message, raised.value.message


def test_a_nul_byte_in_the_name_is_refused_by_the_schema(tmp_path):
    folder = _chapter(tmp_path / "book", "../a\x00b.ipynb")
    with pytest.raises(RegisterError) as raised:
        load_chapter(folder)
    assert "notebook" in str(raised.value.field or raised.value.message)


def test_a_url_and_a_notebook_of_the_repository_load(tmp_path):
    repo = tmp_path / "book"
    assert load_chapter(_chapter(repo, "https://colab.research.google.com/x.ipynb")).identity.notebook.startswith("https")
    nbformat.write(new_notebook(), repo / "ch" / "nb.ipynb")
    assert load_chapter(_chapter(repo, "../nb.ipynb")).identity.notebook == "../nb.ipynb"


def test_the_stored_runs_key_reads_the_files_the_kernel_sees(tmp_path, monkeypatch):
    folder = tmp_path / "nb"
    (folder / ".git").mkdir(parents=True)
    (folder / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    (tmp_path / "outside.bin").write_bytes(b"x" * 1000)
    (folder / "link.bin").symlink_to(tmp_path / "outside.bin")
    before = _folder_digest(folder)
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")   # not shown: same key
    (tmp_path / "outside.bin").write_bytes(b"y" * 1000)                                # not shown: same key
    assert _folder_digest(folder) == before
    (folder / "qrels.txt").write_text("q1 0 d1 0\n", encoding="utf-8")
    assert _folder_digest(folder) != before
    monkeypatch.setattr(sandbox_notebook, "MAX_BOOK_BYTES", 5)   # a folder too large to show: no stored run
    assert _folder_digest(folder) is None


def _companion(path, *printed: str):
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_output
    nb = new_notebook()
    nb.cells = [new_markdown_cell("# companion")]
    for text in printed:
        cell = new_code_cell("print(...)")
        cell.outputs = [new_output("stream", name="stdout", text=text + "\n")]
        nb.cells.append(cell)
    nbformat.write(nb, path)


def test_init_records_the_notebook_and_links_a_value_its_outputs_print_once(tmp_path):
    from audit.draft.init import create_chapter
    (tmp_path / ".git").mkdir()
    text = tmp_path / "ch.md"
    text.write_text("# Graded lists\n\nThe gain is the grade.\n\n"
                    "For the list [3, 2, 0, 1], DCG@4 = 3 + 2/1.585 + 0 + 1/2.322 ≈ 4.69.\n", encoding="utf-8")
    _companion(tmp_path / "ch.ipynb", "DCG@4 = 4.6925", "done in 0.3 s")
    folder, counts = create_chapter(text, "ch", tmp_path / "claims", notebook=tmp_path / "ch.ipynb")
    chapter = load_chapter(folder)
    assert chapter.identity.notebook == "../../ch.ipynb" and counts["notebook links"] == 1
    value = next(c for c in chapter.register.claims if c.kind == "value")
    assert value.expect[0].notebook == "cell 2: DCG@4"
    # printed twice (two runs, two systems): which one is the sentence's is not known, so no link
    _companion(tmp_path / "twice.ipynb", "DCG@4 = 4.6925", "DCG@4 = 5.1200")
    folder, counts = create_chapter(text, "ch2", tmp_path / "claims", notebook=tmp_path / "twice.ipynb")
    assert counts["notebook links"] == 0
    assert all(e.notebook is None for c in load_chapter(folder).register.claims if c.kind == "value" for e in c.expect)


def test_a_number_the_stopped_cell_never_printed_is_not_a_second_finding():
    """A run killed in cell 2 before it printed P@5: the stop is the finding, not "cell 2 prints no P@5"; a number
    the cell printed before it failed is still held to the chapter."""
    from types import SimpleNamespace

    from audit.evaluation.notebook import hold_to_chapter
    from audit.model.results import NotebookNumber, NotebookReport
    claim = SimpleNamespace(id="P2", expect=[SimpleNamespace(measure="P@5", claimed="2/5", notebook="cell 2: P@5"),
                                             SimpleNamespace(measure="P@3", claimed="2/3", notebook="cell 2: P@3")])
    result = SimpleNamespace(id="P2", checks=[])
    report = NotebookReport(path="x.ipynb", status="violation", summary="killed", cell=2,
                            numbers=[NotebookNumber(cell=2, label="P@3", value="0.5000", line="P@3 = 0.5000")])
    hold_to_chapter(report, [claim], [result])
    assert [f.text for f in report.findings] == ["P@3 (P2): cell 2 prints 'P@3 = 0.5000' where the chapter says 2/3"]


def test_a_change_to_a_file_the_notebooks_kernel_sees_touches_the_chapter(tmp_path):
    """A notebook reading p5.txt beside it: with p5.txt changed, ``audit run --changed`` (and the pre-commit hook)
    named no chapter and passed the gate, while a full run found the stale cell. Every file of the notebook's folder
    that its kernel is shown (``sandbox.notebook.book_files``) belongs to the chapter; a file elsewhere does not."""
    from audit.run.changed import chapter_files, touched
    repo = tmp_path / "book"
    folder = _chapter(repo, "../nb/run.ipynb")
    (repo / "ch" / "nb").mkdir()
    nbformat.write(new_notebook(), repo / "ch" / "nb" / "run.ipynb")
    (repo / "ch" / "nb" / "p5.txt").write_text("0.4\n", encoding="utf-8")
    (repo / "elsewhere.txt").write_text("x\n", encoding="utf-8")
    chapter = load_chapter(folder)
    assert (repo / "ch" / "nb" / "p5.txt").resolve() in chapter_files(chapter)
    assert touched([chapter], [repo / "ch" / "nb" / "p5.txt"]) == [chapter]
    assert touched([chapter], [repo / "elsewhere.txt"]) == []
