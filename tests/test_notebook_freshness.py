"""A notebook's stored run is reused only when nothing it used changed: its text, its folder's files, the audit's
source, the Jupyter packages, the Python version and platform, and the file of every module its kernel imported
outside the standard library (recorded by SHA-256 when the kernel ends). The attack: a module the notebook imports
changes (an installed helper now computes P@5 = 0.5 where it gave 0.4); the stored run must not be reported as
fresh: the notebook runs again and prints the new value."""

from __future__ import annotations

import hashlib
import sys
from types import SimpleNamespace

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from audit.evaluation.notebook import notebook_report
from audit.evaluation.sandbox import unavailable_reason
from audit.run.cache import NotebookStore

pytestmark = pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")

HELPER = "def precision_at(k, relevant_ranks):\n    return sum(r <= k for r in relevant_ranks) / k\n"


def _values(report) -> list[tuple[str, str]]:
    return [(n.label, n.value) for n in report.numbers]


def test_a_changed_module_the_notebook_imports_runs_it_again(tmp_path, monkeypatch):
    site = tmp_path / "env" / "lib" / "site-packages"  # an installed package the kernel sees read-only
    site.mkdir(parents=True)
    helper = site / "ranking_helpers.py"
    helper.write_text(HELPER, encoding="utf-8")
    monkeypatch.setattr(sys, "path", sys.path + [str(site)])
    book = tmp_path / "book"
    book.mkdir()
    nb = new_notebook()
    nb.cells = [new_code_cell("from ranking_helpers import precision_at\n"
                              "print('P@5 =', round(precision_at(5, [1, 3]), 4))")]
    text = nbformat.writes(nb)
    (book / "ch01.ipynb").write_text(text, encoding="utf-8")
    chapter = SimpleNamespace(identity=SimpleNamespace(notebook="ch01.ipynb"), folder=book)
    store = NotebookStore(True, tmp_path / "store")
    key = store.key(text, book)

    first = notebook_report(chapter, text)
    assert first.status == "ran", first.summary
    assert _values(first) == [("P@5", "0.4")]  # 2 relevant in the top 5: 2/5
    used = first._modules
    assert used[str(helper.resolve())] == hashlib.sha256(helper.read_bytes()).hexdigest()
    assert not any("/python3." in p and "site-packages" not in p for p in used)  # no standard library file
    store.put(key, first)
    assert _values(store.get(key)) == [("P@5", "0.4")]  # nothing changed: the stored run is used

    helper.write_text(HELPER.replace("/ k", "/ (k - 1)"), encoding="utf-8")  # now 2/4
    assert store.key(text, book) == key  # the notebook and its folder are unchanged ...
    assert store.get(key) is None          # ... but a module it imported is: the stored run is not used
    second = notebook_report(chapter, text)
    assert _values(second) == [("P@5", "0.5")]


def test_the_key_holds_the_python_version_and_the_platform(tmp_path, monkeypatch):
    import platform
    (tmp_path / "data.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    store = NotebookStore(True, tmp_path / "store")
    key = store.key("{}", tmp_path)
    monkeypatch.setattr(platform, "platform", lambda *a, **k: "Linux-other-kernel")
    assert store.key("{}", tmp_path) != key
    monkeypatch.undo()
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    assert store.key("{}", tmp_path) != key


def test_a_run_whose_modules_are_not_known_is_not_stored(tmp_path):
    from audit.model.results import NotebookReport
    store = NotebookStore(True, tmp_path / "store")
    (tmp_path / "data.txt").write_text("x", encoding="utf-8")
    key = store.key("{}", tmp_path)
    store.put(key, NotebookReport(path="ch01.ipynb", status="ran", summary="ran every cell"))
    assert store.get(key) is None


def test_after_the_notebook_ran_again_the_console_says_what_changed(tmp_path, monkeypatch, capsys):
    """``audit run`` compares the new report with the previous one: a notebook that ran again and now prints another
    value is a change, not "no change since the previous report". The test book's ch1 notebook divides the hits by
    the documents returned: on its four-document ranking P@5 prints 2/4 = 0.5000 (the chapter, dividing by k, says
    2/5); with the fifth result d4 added it prints 2/5 = 0.4000, and the finding on cell 2 goes away."""
    import json
    import shutil
    from pathlib import Path

    from audit.cli import main
    book = tmp_path / "book"
    shutil.copytree(Path(__file__).resolve().parent / "book", book,
                    ignore=shutil.ignore_patterns("conftest.py", "__pycache__"))
    (book / ".git").mkdir()
    monkeypatch.setenv("CHAPTER_AUDIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(book)
    assert main(["run", "ch1-precision/audit"]) == 0
    capsys.readouterr()
    path = book / "ch1-precision" / "precision.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    cell["source"] = "".join(cell["source"]).replace('["d3", "d7", "d1", "d9"]', '["d3", "d7", "d1", "d9", "d4"]')
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert main(["run", "ch1-precision/audit"]) == 0
    out = capsys.readouterr().out
    assert "no change" not in out
    assert "ch1-precision: changes since the previous report" in out
    assert "notebook cell 2 P@5: 0.5000 → 0.4000" in out
    assert "notebook finding gone: P@5 (P2): cell 2 prints 'P@5 = 0.5000'" in out
    assert main(["run", "ch1-precision/audit"]) == 0  # nothing changed: the stored run, and the same report
    assert "ch1-precision: no change since the previous report" in capsys.readouterr().out
