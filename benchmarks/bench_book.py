"""The test book's reruns (tests/book: four chapters in four formats, two notebooks), against the shipped chapters'
unchanged rerun measured in the same run, per chapter, in fresh processes.

    python benchmarks/bench_book.py [--repeat 3]

Prints:
  shipped rerun   ``audit run`` of the shipped chapters with nothing changed, seconds per chapter;
  book cold       ``audit run`` of the test book with an empty cache (every claim computed, both notebooks run);
  book rerun      ``audit run`` of the test book with nothing changed, seconds per chapter, and its ratio to the
                  shipped rerun per chapter (the criterion: at most 1);
  book changed    ``audit run --changed`` after one chapter's page changed: the chapters it audited (the criterion:
                  that one only) and its seconds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AUDIT = str(Path(sys.executable).parent / "audit")


def run(args: list[str], cwd: Path, env: dict) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run([AUDIT, *args], cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.org", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@example.org"}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-book-") as tmp:
        tmp = Path(tmp)
        env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(tmp / "cache")}
        shipped = tmp / "shipped"
        shutil.copytree(ROOT / "claims", shipped / "claims")
        run(["run", "--quiet", "--reports", str(shipped / "reports")], shipped, env)  # warm the cache
        ship = statistics.median(run(["run", "--quiet", "--reports", str(shipped / "reports")], shipped, env)[0]
                                 for _ in range(args.repeat))
        chapters = len(list((shipped / "claims").glob("*/chapter.yaml")))
        book = tmp / "book"
        shutil.copytree(ROOT / "tests" / "book", book, ignore=shutil.ignore_patterns("conftest.py", "__pycache__"))
        git(book, "init", "-q", "-b", "main")
        git(book, "add", ".")
        git(book, "commit", "-qm", "book")
        cold, _ = run(["run", "--quiet"], book, env)
        rerun = statistics.median(run(["run", "--quiet"], book, env)[0] for _ in range(args.repeat))
        page = book / "ch4-dcg" / "dcg.html"
        page.write_text(page.read_text(encoding="utf-8").replace("</body>", "<p>One more paragraph.</p>\n</body>"),
                        encoding="utf-8")
        changed, done = run(["run", "--changed"], book, env)
        audited = next((line for line in done.stderr.splitlines() if "changed since" in line), "?")
        per_ship, per_book = ship / chapters, rerun / 4
        print(f"shipped rerun : {ship:.2f} s for {chapters} chapters, {per_ship:.2f} s per chapter")
        print(f"book cold     : {cold:.2f} s (4 chapters, 2 notebooks run)")
        print(f"book rerun    : {rerun:.2f} s, {per_book:.2f} s per chapter, ratio to shipped per chapter "
              f"{per_book / per_ship:.2f}")
        print(f"book changed  : {changed:.2f} s; {audited.strip()}")


if __name__ == "__main__":
    main()
