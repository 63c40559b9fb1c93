"""A committed symbolic link cannot make the audit read a chapter outside the book's repository: not through a
book.yaml glob (a chapter folder, or its chapter.yaml or claims.yaml, that links elsewhere), nor through the default
``claims/*`` folders. Each is refused with an error naming the link, no report is written, and nothing is audited.
"""

from __future__ import annotations

from audit.cli import EXIT_INPUT, main
from test_manuscript import SENTENCE, _book


def _outside(tmp_path):
    """A chapter folder holding a complete chapter, outside the book's repository ``tmp_path / "book"``."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = _book(elsewhere, "  file: snapshot.txt\n")
    (folder / "snapshot.txt").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    book = tmp_path / "book"
    (book / ".git").mkdir(parents=True)
    return book, folder


def _refused(book, monkeypatch, capsys, *names):
    monkeypatch.chdir(book)
    assert main(["run", "--quiet", "--no-cache"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "outside the book's repository" in err and "Traceback" not in err
    assert all(name in err for name in names), err
    assert not list((book / "reports").glob("*.json")) if (book / "reports").exists() else True


def test_a_default_chapter_folder_that_links_outside_is_refused(tmp_path, monkeypatch, capsys):
    book, folder = _outside(tmp_path)
    (book / "claims").mkdir()
    (book / "claims" / "ch01").symlink_to(folder, target_is_directory=True)
    _refused(book, monkeypatch, capsys, "claims/ch01")


def test_a_globbed_chapter_whose_register_links_outside_is_refused(tmp_path, monkeypatch, capsys):
    book, folder = _outside(tmp_path)
    inside = book / "chapters" / "ch01"
    inside.mkdir(parents=True)
    for name in ("chapter.yaml", "snapshot.txt"):
        (inside / name).write_bytes((folder / name).read_bytes())
    (inside / "claims.yaml").symlink_to(folder / "claims.yaml")
    (book / "book.yaml").write_text("chapters: [\"chapters/*\"]\n", encoding="utf-8")
    _refused(book, monkeypatch, capsys, "chapters/ch01")
    (inside / "claims.yaml").unlink()  # the same chapter with its own register is audited
    (inside / "claims.yaml").write_bytes((folder / "claims.yaml").read_bytes())
    assert main(["run", "--quiet", "--no-cache"]) == 0
    assert (book / "reports" / "ch01.json").is_file()
