"""A book repository is untrusted input: a name from chapter.yaml or book.yaml is one line of printable text inside
the book, and the patch names exactly the files it changes, each an existing file of the chapter's book.

The attack: a chapter whose ``snapshot.file`` holds newlines (the folders of that path exist in the repository, as
an attacker can commit them) so that its diff header becomes a section of its own, creating
``.github/workflows/pwn.yml`` when the author applies the patch with ``patch -p0 < reports/ch01.patch``.
The chapter's one claim is contradicted (P@4 = 1/3 where one relevant result at rank 2 of four gives 1/4, as in
test_manuscript), so a patch would be written.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from audit.cli import EXIT_INPUT, main
from audit.errors import RegisterError
from audit.register.claims import load_chapter
from audit.report.patch import files_named, render
from audit.model.results import Hunk, Proposal
from test_manuscript import CLAIMS, SENTENCE, _book

INJECTED = ("x\n--- /dev/null\n+++ .github/workflows/pwn.yml\n@@ -0,0 +1,2 @@\n+on: push\n+jobs: {}\n"
            "--- ch01.md")


def _yaml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a YAML double-quoted scalar


def test_a_snapshot_name_holding_newlines_is_a_load_error_and_no_patch_is_written(tmp_path, monkeypatch, capsys):
    folder = _book(tmp_path, f"  file: {_yaml(INJECTED)}\n")
    manuscript = folder / INJECTED
    manuscript.parent.mkdir(parents=True)
    manuscript.write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--quiet", "--no-cache", "claims/ch01"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "snapshot.file" in err and "control character (U+000A)" in err and "Traceback" not in err
    assert not (tmp_path / "reports" / "ch01.patch").exists()
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "snapshot.file"
    assert not (tmp_path / ".github").exists()


@pytest.mark.parametrize("field, line", [
    ("snapshot.source", "  file: snapshot.txt\n  source: \"../../book/ch01.md\\u001b[2J\"\n"),
    ("snapshot.source", "  file: snapshot.txt\n  source: /etc/passwd\n"),
    ("snapshot.file", "  file: \"snapshot\\u202e.txt\"\n"),
    ("notebook", None),
])
def test_every_name_of_chapter_yaml_is_one_printable_line_inside_the_book(field, line, tmp_path):
    folder = _book(tmp_path, line or "  file: snapshot.txt\n")
    (folder / "snapshot.txt").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    if line is None:
        with (folder / "chapter.yaml").open("a", encoding="utf-8") as f:
            f.write('notebook: "ch01.ipynb\\r\\n--- x"\n')
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == field, str(caught.value)
    assert ("control character" in str(caught.value)) != (line is not None and "/etc/passwd" in line)


def test_a_source_that_links_outside_the_book_is_refused_and_a_description_is_not(tmp_path):
    folder = _book(tmp_path, "  file: snapshot.txt\n  source: linked.md\n")
    (folder / "snapshot.txt").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text(SENTENCE, encoding="utf-8")
    (folder / "linked.md").symlink_to(outside)
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "snapshot.source" and "outside the book's repository" in str(caught.value)
    (folder / "chapter.yaml").write_text("id: ch01\ntitle: Chapter 1\nsnapshot:\n  file: snapshot.txt\n  source: >\n"
                                         "    The course module as supplied, verbatim.\n", encoding="utf-8")
    assert load_chapter(folder).identity.snapshot.source == "The course module as supplied, verbatim."


def test_a_book_yaml_glob_through_a_link_out_of_the_book_is_refused(tmp_path, monkeypatch, capsys):
    book = tmp_path / "book"
    (book / ".git").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    _book(tmp_path / "elsewhere", "  file: snapshot.txt\n")
    (tmp_path / "elsewhere" / "claims" / "ch01" / "snapshot.txt").write_text(SENTENCE, encoding="utf-8")
    (book / "chapters").mkdir()
    (book / "chapters" / "ch01").symlink_to(tmp_path / "elsewhere" / "claims" / "ch01")
    (book / "book.yaml").write_text("chapters: [\"chapters/*\"]\n", encoding="utf-8")
    monkeypatch.chdir(book)
    assert main(["run", "--quiet", "--no-cache"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "chapters" in err and "outside the book's repository" in err and "Traceback" not in err
    assert not (book / "reports").exists() or not list((book / "reports").glob("*.json"))
    (book / "book.yaml").write_text("chapters: [\"chapters/*\\u001b[2J\"]\n", encoding="utf-8")
    assert main(["run", "--quiet", "--no-cache"]) == EXIT_INPUT
    assert "control character (U+001B)" in capsys.readouterr().err


def _proposal(file: str, register_file: str = "claims/ch01/claims.yaml") -> Proposal:
    old = SENTENCE.rstrip("\n")
    return Proposal(file=file, register_file=register_file, hunks=[Hunk(
        claim="M1", line=3, old=old, new=old.replace("1/3", "1/4"), action="correct 1/3 to 1/4\n--- x",
        replaced="1/3", text="1/4", rationale="P@4 = 1/4", tradeoff="", check="re-checked: supported")])


def test_the_patch_names_exactly_the_files_it_changes(tmp_path):
    text = "# Chapter 1\n\n" + SENTENCE
    patch = render(_proposal("book/ch01.md"), text)
    assert files_named(patch) == ["book/ch01.md"]
    assert "\n--- x" not in patch and "⟨U+000A⟩--- x" in patch  # a hunk's words stay on its comment line
    with pytest.raises(ValueError, match="cannot be named in a patch"):
        render(_proposal(INJECTED), text)
    # a section hidden after a hunk, a header inside a hunk's count, text between sections: all refused
    sections = patch.split("\n--- ", 1)[1]
    for forged in (patch + "--- /dev/null\n+++ .github/workflows/pwn.yml\n@@ -0,0 +1 @@\n+on: push\n",
                   patch.replace("@@ -2,2 +2,2 @@", "@@ -2,1 +2,1 @@"),
                   patch + "garbage\n" + "--- " + sections):
        with pytest.raises(ValueError):
            files_named(forged)
    assert files_named(patch + "--- " + sections.replace("book/ch01.md", "book/ch02.md")) == \
        ["book/ch01.md", "book/ch02.md"]


def test_a_line_holding_a_form_feed_is_one_line_of_the_patch_and_applies(tmp_path):
    """``patch`` splits lines at newlines only: a form feed inside the manuscript's line stays in it."""
    (tmp_path / "book").mkdir()
    text = "# Chapter 1\x0c page two\n\n" + SENTENCE
    (tmp_path / "book" / "ch01.md").write_text(text, encoding="utf-8")
    proposal = _proposal("book/ch01.md")
    proposal.hunks[0].line = 3
    patch = render(proposal, text)
    assert files_named(patch) == ["book/ch01.md"]
    subprocess.run(["patch", "-p0", "-s"], input=patch, cwd=tmp_path, text=True, check=True)
    assert (tmp_path / "book" / "ch01.md").read_text(encoding="utf-8") == text.replace("1/3", "1/4")


CREDENTIAL = "\turl = https://builder:ghp_0123456789abcdefSECRET@example.org/book.git\n"


def _git_config(tmp_path: Path) -> None:
    (tmp_path / ".git" / "config").write_text('[remote "origin"]\n' + CREDENTIAL, encoding="utf-8")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "audit.yml").write_text("on: push\n# " + SENTENCE, encoding="utf-8")
    (tmp_path / ".env").write_text("TOKEN=SECRET\n" + SENTENCE, encoding="utf-8")


@pytest.mark.parametrize("name, hidden", [
    ("../../.git/config", ".git"),
    ("../../.git/../.git/./config", ".git"),
    ("../../.github/workflows/audit.yml", ".github"),
    ("../../.env", ".env"),
    ("linked.txt", ".git"),            # a committed link beside chapter.yaml leading into .git
])
def test_a_snapshot_in_a_dot_folder_of_the_book_is_refused_and_nothing_of_it_is_shown(name, hidden, tmp_path,
                                                                                      monkeypatch, capsys):
    """``snapshot.file: ../../.git/config`` was read as the chapter's text: its credential line was shown in the
    HTML report and the patch targeted ``.git/config``. A dot-folder or hidden file of the book is no chapter."""
    folder = _book(tmp_path, f"  file: {_yaml(name)}\n")
    _git_config(tmp_path)
    (folder / "linked.txt").symlink_to(tmp_path / ".git" / "config")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "snapshot.file" and caught.value.file == str(folder / "chapter.yaml")
    assert repr(hidden) in str(caught.value) and repr(name) in str(caught.value)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--quiet", "--no-cache", "claims/ch01"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "snapshot.file" in err and "SECRET" not in err and "Traceback" not in err
    assert not (tmp_path / "reports").exists() or not list((tmp_path / "reports").iterdir())


def test_a_notebook_or_source_in_a_dot_folder_is_refused_naming_its_field(tmp_path):
    folder = _book(tmp_path, "  file: snapshot.txt\n  source: ../../.git/config\n")
    (folder / "snapshot.txt").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    _git_config(tmp_path)
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "snapshot.source" and "'.git'" in str(caught.value)
    (tmp_path / ".git" / "hooks").mkdir()
    (tmp_path / ".git" / "hooks" / "ch01.ipynb").write_text(
        '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: ch01\ntitle: Chapter 1\nnotebook: ../../.git/hooks/ch01.ipynb\n",
                                         encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "notebook" and "'.git'" in str(caught.value)


def test_a_chapter_kept_in_a_dot_folder_is_refused_even_for_its_own_copy(tmp_path):
    """A chapter folder committed inside ``.github/workflows`` with ``snapshot.file: audit.yml`` would make the patch
    edit a CI workflow: a dot-folder is out of the book's text wherever the chapter folder lies."""
    (tmp_path / ".git").mkdir()
    _git_config(tmp_path)
    folder = tmp_path / ".github" / "workflows"
    (folder / "chapter.yaml").write_text("id: ch01\ntitle: Chapter 1\nsnapshot: {file: audit.yml}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "snapshot.file" and "'.github'" in str(caught.value)
    (tmp_path / "claims" / "ch01").mkdir(parents=True)  # the same chapter in an ordinary folder loads
    for name in ("chapter.yaml", "claims.yaml"):
        (tmp_path / "claims" / "ch01" / name).write_text((folder / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "claims" / "ch01" / "audit.yml").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    assert load_chapter(tmp_path / "claims" / "ch01").snapshot.text.endswith(SENTENCE)


def test_a_snapshot_that_is_a_folder_names_the_field(tmp_path):
    folder = _book(tmp_path, "  file: ../../book\n")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "snapshot.file" and "is a folder" in str(caught.value)
    assert "'../../book'" in str(caught.value) and "Traceback" not in str(caught.value)


def test_a_patch_naming_a_file_in_a_dot_folder_is_not_kept(tmp_path, monkeypatch):
    """The last guard on the written patch: ``patch -p0`` must never be pointed at ``.git/config``."""
    from audit.errors import AuditError
    from audit.report.writer import _check_patch
    folder = _book(tmp_path, "  file: snapshot.txt\n")
    _git_config(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in (".git/config", "book/ch01.md"):
        patch = tmp_path / "reports" / "ch01.patch"
        patch.parent.mkdir(exist_ok=True)
        patch.write_text(render(_proposal(name, "claims/ch01/claims.yaml"), "# Chapter 1\n\n" + SENTENCE),
                         encoding="utf-8")
        if name == "book/ch01.md":
            _check_patch(patch, folder)
            assert patch.exists()
            continue
        with pytest.raises(AuditError, match="'.git'"):
            _check_patch(patch, folder)
        assert not patch.exists()
