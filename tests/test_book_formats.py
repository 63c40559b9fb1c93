"""The test book (tests/book: four chapters, in CommonMark, MyST, a Jupyter notebook and an HTML page; two with
notebooks) audited end to end as its repository would be: the shipped pre-commit hook's entry and the CI recipe's
commands, each finding and failure named, the patch applied to the manuscript, and a rerun with one chapter changed
recomputing that chapter only. What each chapter holds and why: docs/notebooks.md, "The test book"."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from audit.evaluation.sandbox import unavailable_reason
from tests.test_book_repository import ROOT, _git, _run

BOOK = ROOT / "tests" / "book"

# an end-to-end run of the whole test book: a `slow` test, run by CI as a step of its own (`pytest -m slow`)
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
              pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")]


@pytest.fixture
def book(tmp_path):
    repo = tmp_path / "book"
    shutil.copytree(BOOK, repo, ignore=shutil.ignore_patterns("conftest.py", "__pycache__"))
    (repo / ".gitignore").write_text(".chapter-audit/\nreports/\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "the test book")
    return repo


def _report(folder: Path, chapter: str) -> dict:
    return json.loads((folder / f"{chapter}.json").read_text(encoding="utf-8"))


def test_the_hook_names_every_finding_and_failure_of_the_test_book(book):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    entry = shlex.split(next(h for h in hooks if h["id"] == "chapter-audit")["entry"])
    files = [str(p.relative_to(book)) for p in sorted(book.rglob("*")) if p.is_file() and ".git" not in p.parts]
    done = _run(book, *entry[1:], *files)
    assert done.returncode == 1, done.stdout + done.stderr
    # the gate names the contradicted claim and both notebooks, and nothing else
    gate = next(line for line in done.stderr.splitlines() if line.startswith("--fail-on"))
    assert gate.endswith("3 claim(s), 2 notebook(s): ch2-reciprocal-rank:R2 (contradicted), ch3-average-precision:A2 (contradicted), "
                         "ch4-dcg:D2 (contradicted), ch1-precision:../precision.ipynb (notebook), "
                         "ch3-average-precision:../average-precision.ipynb (notebook)"), gate
    out = book / ".chapter-audit"
    ch1, ch2, ch3, ch4 = (_report(out, c) for c in ("ch1-precision", "ch2-reciprocal-rank", "ch3-average-precision",
                                                   "ch4-dcg"))
    # ch1: its notebook runs; cell 2 prints P@5 = 0.5000 (its ranking lost d4), the chapter's 2/5 is right
    nb = ch1["notebook"]
    assert nb["status"] == "ran" and nb["cell"] is None
    assert [f["text"] for f in nb["findings"]] == [
        "P@5 (P2): cell 2 prints 'P@5 = 0.5000' where the chapter says 2/5; the chapter's definitions give 0.4: "
        "correct cell 2"]
    assert nb["agreements"] == ["P@3 (P1): cell 2 prints 'P@3 = 0.6667', as the chapter says (2/3) and its "
                                "definitions give"]
    assert nb["stale"] == ["cell 2: committed 'P@3 = 0.6667 / P@5 = 0.4000', re-executed 'P@3 = 0.6667 / P@5 = "
                           "0.5000'"]
    assert [c["verdict"] for c in ch1["claims"]] == ["supported", "supported"]
    # ch2 (MyST): (1 + 1/3 + 1/2)/3 = 11/18 ≈ 0.611, not 0.630; the quote's line is the manuscript's
    r2 = next(c for c in ch2["claims"] if c["id"] == "R2")
    lines = (book / "ch2-reciprocal-rank" / "reciprocal-rank.md").read_text(encoding="utf-8").splitlines()
    assert r2["verdict"] == "contradicted" and "(1 + 1/3 + 1/2)/3 ≈ 0.630" in lines[r2["line"] - 1]
    # ch3 (a notebook chapter, its own notebook): cell 4 reads a qrels file that is not there
    nb = ch3["notebook"]
    assert (nb["status"], nb["cell"], nb["error"]) == (
        "failed", 4, "FileNotFoundError: [Errno 2] No such file or directory: 'qrels.txt'")
    assert nb["agreements"] and not nb["findings"]
    assert ch3["claims"][0]["verdict"] == "supported" and ch3["claims"][0]["place"] == "notebook cell 3, line 1"
    # ... and (34/45 + 1/2)/2 = 113/180 ≈ 0.628, not 0.682, in a Markdown cell after the failing one
    assert (ch3["claims"][1]["verdict"], ch3["claims"][1]["place"]) == ("contradicted", "notebook cell 5, line 3")
    # ch4 (HTML): DCG@4 supported; nDCG@4 = 0.985, not 0.958; each quote placed in the page
    assert [c["verdict"] for c in ch4["claims"]] == ["supported", "contradicted"]
    page = (book / "ch4-dcg" / "dcg.html").read_text(encoding="utf-8").splitlines()
    for claim, words in zip(ch4["claims"], ("DCG@4 = 3 + 2/log2(3)", "The ideal order")):
        assert re.fullmatch(r"dcg\.html line \d+", claim["place"])
        assert words in page[int(claim["place"].split()[-1]) - 1]
    # the research pack's index says how each notebook ran and links its run
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "| fails in cell 4 |" in index
    assert "| ran; 1 number(s) wrong in the notebook, 1 cell(s) with stale outputs |" in index
    assert "[notebook run](ch3-average-precision.html#notebook)" in index
    assert 'id="notebook"' in (out / "ch3-average-precision.html").read_text(encoding="utf-8")
    # What to change leads with the notebooks
    md = (out / "ch3-average-precision.md").read_text(encoding="utf-8")
    assert "- 📓 notebook — [../average-precision.ipynb](#notebook): it does not run through: a cell raised an error " \
           "in cell 4" in md


def test_the_patch_applies_to_the_manuscript_and_the_ci_push_then_fails_on_the_notebooks_only(book):
    recipe = yaml.safe_load((ROOT / "docs" / "ci" / "github-actions.yml").read_text(encoding="utf-8"))
    steps = recipe["jobs"]["audit"]["steps"]
    push = next(s["run"] for s in steps if s.get("if", "").endswith("'push'"))
    done = _run(book, *shlex.split(push)[1:])
    assert done.returncode == 1, done.stdout + done.stderr
    # each patch is against the manuscript file itself: the MyST page, the notebook, the HTML page
    for chapter, manuscript, now in (("ch2-reciprocal-rank", "reciprocal-rank.md", "(1 + 1/3 + 1/2)/3 ≈ 0.611"),
                                      ("ch3-average-precision", "average-precision.ipynb", "(34/45 + 1/2)/2 ≈ 0.628."),
                                      ("ch4-dcg", "dcg.html", "DCG@4/IDCG@4 &asymp; 0.985.")):
        patch = book / "reports" / f"{chapter}.patch"
        assert f"--- {chapter}/{manuscript}\n" in patch.read_text(encoding="utf-8")
        applied = subprocess.run(["patch", "-p0", "-i", str(patch)], cwd=book,  # "apply from the project root"
                                 capture_output=True, text=True)
        assert applied.returncode == 0, applied.stdout + applied.stderr
        assert now in (book / chapter / manuscript).read_text(encoding="utf-8")
    done = _run(book, *shlex.split(push)[1:])
    assert done.returncode == 1
    gate = next(line for line in done.stderr.splitlines() if line.startswith("--fail-on"))
    assert gate.endswith("0 claim(s), 2 notebook(s): ch1-precision:../precision.ipynb (notebook), "
                         "ch3-average-precision:../average-precision.ipynb (notebook)"), gate
    assert all(_report(book / "reports", c)["summary"]["contradicted"] == 0
               for c in ("ch2-reciprocal-rank", "ch3-average-precision", "ch4-dcg"))
    # the author fixes the notebooks as the report says: ch1's ranking gets its fifth result, ch3 its qrels file
    notebook = book / "ch1-precision" / "precision.ipynb"
    notebook.write_text(notebook.read_text(encoding="utf-8").replace('\\"d9\\"]', '\\"d9\\", \\"d4\\"]'),
                        encoding="utf-8")
    (book / "ch3-average-precision" / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d5 1\n", encoding="utf-8")
    done = _run(book, *shlex.split(push)[1:])
    assert done.returncode == 0, done.stdout + done.stderr
    nb = _report(book / "reports", "ch1-precision")["notebook"]
    assert nb["status"] == "ran" and not nb["findings"] and len(nb["agreements"]) == 2


def test_one_changed_chapter_is_the_only_one_recomputed(book):
    assert _run(book, "run", "--quiet").returncode == 0
    kept = {c: (book / "reports" / f"{c}.json").read_bytes() for c in ("ch1-precision", "ch3-average-precision")}
    page = book / "ch4-dcg" / "dcg.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", "<p>One more paragraph.</p>\n</body>"),
                    encoding="utf-8")
    done = _run(book, "run", "--changed")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "changed since HEAD: ch4-dcg (the others are not audited)" in done.stderr
    assert all((book / "reports" / f"{c}.json").read_bytes() == kept[c] for c in kept)
    # nothing changed: the notebooks' stored runs are used, no notebook is executed again
    first = _report(book / "reports", "ch1-precision")["notebook"]
    assert _run(book, "run", "--quiet").returncode == 0
    again = _report(book / "reports", "ch1-precision")["notebook"]
    assert again == first
