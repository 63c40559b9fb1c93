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
