"""A book repository: chapters laid out by book.yaml, audited only where a change touches them (`audit run
--changed`, `--files`), by the shipped pre-commit hook and by the CI recipe's commands."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
AUDIT = Path(sys.executable).parent / "audit"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@example.org"}
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env).stdout


def _chapter(repo: Path, name: str, sentence: str, expression: str, claimed: str) -> None:
    """A chapter: its manuscript in chapters/<name>/text.md, its audit folder beside it reading it in place."""
    folder = repo / "chapters" / name
    (folder / "audit").mkdir(parents=True)
    (folder / "text.md").write_text(f"# {name}\n\n{sentence}\n", encoding="utf-8")
    (folder / "audit" / "chapter.yaml").write_text(f"id: {name}\ntitle: {name}\nsnapshot: {{file: ../text.md}}\n",
                                                   encoding="utf-8")
    (folder / "audit" / "claims.yaml").write_text(
        f'claims:\n  - {{id: A1, title: t, kind: arithmetic, quote: "{sentence}", claim: c, '
        f'expression: "{expression}", claimed: "{claimed}"}}\n', encoding="utf-8")


@pytest.fixture
def book(tmp_path):
    """A git repository with two chapters found by book.yaml's glob, committed."""
    repo = tmp_path / "book"
    repo.mkdir()
    _chapter(repo, "ch01", "Three of four is 3/4 = 0.75.", "3/4", "0.75")
    _chapter(repo, "ch02", "Two of eight is 2/8 = 0.25.", "2/8", "0.25")
    (repo / "book.yaml").write_text('book: A test book\nchapters: ["chapters/*/audit"]\n', encoding="utf-8")
    (repo / ".gitignore").write_text(".chapter-audit/\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "two chapters")
    return repo


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(repo.parent / "cache")}
    return subprocess.run([str(AUDIT), *args], cwd=repo, capture_output=True, text=True, env=env, timeout=600)


def test_book_yaml_lays_out_the_chapters_and_a_run_audits_them_all(book):
    done = _run(book, "run", "--quiet")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (book / "reports").glob("*.json")) == ["ch01.json", "ch02.json"]
    # the reproducing command names the chapter folder, though its snapshot is the manuscript beside it
    report = json.loads((book / "reports" / "ch01.json").read_text(encoding="utf-8"))
    assert report["provenance"]["command"] == "audit run chapters/ch01/audit"
    assert _run(book, *report["provenance"]["command"].split()[1:], "--quiet").returncode == 0


def test_changed_audits_only_the_chapter_whose_manuscript_changed(book):
    """ch02's manuscript now prints 0.4 for 2/8 (= 0.25 exactly): it alone is audited, contradicted, and the gate
    fails; ch01's report from the first run is kept as it was."""
    assert _run(book, "run", "--quiet").returncode == 0
    kept = (book / "reports" / "ch01.json").read_bytes()
    text = book / "chapters" / "ch02" / "text.md"
    text.write_text(text.read_text(encoding="utf-8").replace("0.25", "0.4"), encoding="utf-8")
    claims = book / "chapters" / "ch02" / "audit" / "claims.yaml"
    claims.write_text(claims.read_text(encoding="utf-8").replace("0.25", "0.4"), encoding="utf-8")
    done = _run(book, "run", "--changed", "--fail-on", "contradicted,stale,error")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "changed since HEAD: ch02 (the others are not audited)" in done.stderr
    assert "ch02:A1 (contradicted)" in done.stderr
    assert (book / "reports" / "ch01.json").read_bytes() == kept
    index = (book / "reports" / "index.md").read_text(encoding="utf-8")
    assert "**ch01**" in index and "**ch02**" in index
    # the history keeps both revisions of ch02 and says how its verdict moved; ch01 has one
    history = {c: json.loads((book / "reports" / "history" / f"{c}.json").read_text(encoding="utf-8"))
               for c in ("ch01", "ch02")}
    assert [e["verdicts"] for e in history["ch02"]] == [{"A1": "supported"}, {"A1": "contradicted"}]
    assert len(history["ch01"]) == 1
    assert "## How the verdicts moved" in index and "A1 supported → contradicted" in index
    assert "A1 supported → contradicted" in (book / "reports" / "index.html").read_text(encoding="utf-8")
    # a rerun that changes nothing adds nothing
    before = (book / "reports" / "history" / "ch02.json").read_bytes()
    assert _run(book, "run", "--quiet").returncode == 0
    assert (book / "reports" / "history" / "ch02.json").read_bytes() == before


def test_nothing_changed_audits_nothing(book):
    done = _run(book, "run", "--changed")
    assert done.returncode == 0 and "changed since HEAD: no chapter" in done.stderr
    assert not (book / "reports").exists()


def test_an_unknown_revision_is_a_usage_error_naming_it(book):
    done = _run(book, "run", "--changed", "no-such-rev")
    assert done.returncode == 2 and "--changed" in done.stderr and "Traceback" not in done.stderr


def test_the_shipped_pre_commit_hook_audits_the_files_of_a_commit_and_fails_on_the_gate(book):
    """The hook's entry as pre-commit runs it: with the commit's files appended. A change to ch01's claims alone
    audits ch01 only; a wrong printed value fails the commit."""
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "chapter-audit")
    assert hook["pass_filenames"] is True and hook["language"] == "python"
    entry = shlex.split(hook["entry"])
    assert entry[0] == "audit"
    claims = book / "chapters" / "ch01" / "audit" / "claims.yaml"
    done = _run(book, *entry[1:], str(claims.relative_to(book)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (book / ".chapter-audit").glob("*.json")) == ["ch01.json"]
    text = book / "chapters" / "ch01" / "text.md"
    text.write_text(text.read_text(encoding="utf-8").replace("= 0.75", "= 0.6"), encoding="utf-8")
    claims.write_text(claims.read_text(encoding="utf-8").replace('"0.75"', '"0.6"'), encoding="utf-8")
    done = _run(book, *entry[1:], str(text.relative_to(book)), str(claims.relative_to(book)))
    assert done.returncode == 1 and "ch01:A1 (contradicted)" in done.stderr, done.stdout + done.stderr


def test_the_ci_recipe_runs_as_written_on_a_pull_request_and_a_push(book):
    """The workflow's audit commands, with GitHub's expressions filled in as GitHub fills them: on a pull request
    the base revision (the commit before ch02 changed), on a push every chapter."""
    recipe = yaml.safe_load((ROOT / "docs" / "ci" / "github-actions.yml").read_text(encoding="utf-8"))
    steps = recipe["jobs"]["audit"]["steps"]
    commands = {s["if"].split("== ")[1].strip("'"): s["run"] for s in steps if s.get("run", "").startswith("audit ")}
    assert set(commands) == {"pull_request", "push"}
    base = _git(book, "rev-parse", "HEAD").strip()
    text = book / "chapters" / "ch02" / "text.md"
    text.write_text(text.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    _git(book, "commit", "-qam", "ch02 grows")
    pull = re.sub(r"\$\{\{ github\.event\.pull_request\.base\.sha \}\}", base, commands["pull_request"])
    done = _run(book, *shlex.split(pull)[1:])
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (book / "reports").glob("*.json")) == ["ch02.json"]
    done = _run(book, *shlex.split(commands["push"])[1:])
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (book / "reports").glob("*.json")) == ["ch01.json", "ch02.json"]


def test_a_book_yaml_whose_globs_find_nothing_is_an_input_error_naming_the_file(book):
    (book / "book.yaml").write_text('chapters: ["nowhere/*"]\n', encoding="utf-8")
    done = _run(book, "run", "--quiet")
    assert done.returncode == 3 and "book.yaml" in done.stderr and "chapters" in done.stderr
    assert "Traceback" not in done.stderr
