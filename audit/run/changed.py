"""Which chapters a change touches: the book layout's chapter folders (``book.yaml``'s ``chapters`` globs), the
files changed since a git revision, and the chapters those files belong to (for ``audit run --changed`` and the
pre-commit hook, which audit only those)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from audit.errors import AuditError
from audit.register.claims import BOOK_FILE, Chapter, read_book_file


def book_chapters(book_file: Path) -> list[Path]:
    """The chapter folders ``book_file``'s ``chapters`` globs name (relative to its folder), each holding a
    chapter.yaml, sorted, once each. Raises ``RegisterError`` for an invalid book.yaml and ``AuditError`` when its
    globs name no chapter folder."""
    book = read_book_file(book_file)
    base = book_file.parent
    root = repository_of(base)
    found: dict[Path, None] = {}
    for pattern in book.chapters:
        if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
            raise AuditError(f"chapters: {pattern!r} must be a pattern inside the book (relative, no '..')",
                             file=str(book_file), field="chapters")
        for path in sorted(base.glob(_plain_pattern(pattern, book_file))):
            if (path / "chapter.yaml").is_file():
                if leaves_book(path, root):
                    raise AuditError(f"chapters: {pattern!r} names {path.as_posix()!r}, a link to a folder outside the "
                                     f"book's repository ({root}); a chapter folder must lie inside it",
                                     file=str(book_file), field="chapters")
                found[path] = None
    if not found:
        raise AuditError(f"chapters: {', '.join(book.chapters)} name no folder holding a chapter.yaml",
                         file=str(book_file), field="chapters")
    return list(found)


#: ``**`` segments a chapters pattern may hold: each one more multiplies the folders a glob walks by the book's.
MAX_RECURSIVE = 2


def _plain_pattern(pattern: str, book_file: Path) -> str:
    """``pattern`` with each run of ``**`` segments as one (``**/**/x`` is ``**/x``: the same folders, walked once);
    raises ``AuditError`` for a pattern with more than ``MAX_RECURSIVE`` of them (a glob of ``**/a/**/b/**/c`` walks
    the book once per ``**`` nested in the others)."""
    parts: list[str] = []
    for part in Path(pattern).parts:
        if part == "**" and parts and parts[-1] == "**":
            continue
        parts.append(part)
    if sum(p == "**" for p in parts) > MAX_RECURSIVE:
        raise AuditError(f"chapters: {pattern!r} holds more than {MAX_RECURSIVE} '**' segments; name the chapter "
                         "folders with fewer", file=str(book_file), field="chapters")
    return "/".join(parts)


def repository_of(folder: Path) -> Path:
    """The book's repository holding ``folder`` (resolved): the nearest folder above it with ``.git``, else itself."""
    top = folder.resolve()
    return next((p for p in (top, *top.parents) if (p / ".git").exists()), top)


def leaves_book(chapter_folder: Path, root: Path) -> bool:
    """Whether ``chapter_folder`` found by a glob, or the chapter.yaml or claims.yaml in it, is a link leading out of
    the book's repository ``root`` (a committed symbolic link): such a folder is not the book's to audit."""
    try:
        return any(not p.resolve().is_relative_to(root)
                   for p in (chapter_folder, chapter_folder / "chapter.yaml", chapter_folder / "claims.yaml"))
    except (OSError, RuntimeError):  # a link loop
        return True


def layout_file(claims_dir: Path) -> Path | None:
    """The ``book.yaml`` that lays out the book's chapters: the one in the current folder (a book repository's
    root), else the one in ``claims_dir``, whichever names ``chapters``; None when neither does."""
    for candidate in (Path(BOOK_FILE), claims_dir / BOOK_FILE):
        if candidate.is_file() and read_book_file(candidate).chapters:
            return candidate
    return None


def changed_files(revision: str, where: Path = Path(".")) -> list[Path]:
    """The files changed since ``revision`` in the git repository at ``where``: committed since it, staged, not
    staged, and new files git does not ignore; absolute paths. Raises ``AuditError`` when ``where`` is not in a
    git repository or git does not know ``revision``."""
    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AuditError(f"git could not be run ({exc})")
        if done.returncode != 0:
            raise AuditError(f"git {' '.join(args)}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else 'failed'}")
        return done.stdout

    if revision.startswith("-"):
        raise AuditError(f"--changed {revision!r}: a revision, not an option")
    top = Path(git("rev-parse", "--show-toplevel").strip())
    git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    names = git("diff", "--name-only", "-z", revision, "--").split("\0")
    names += git("ls-files", "--others", "--exclude-standard", "-z").split("\0")
    return sorted({(top / name).resolve() for name in names if name})


def chapter_files(chapter: Chapter) -> set[Path]:
    """The files a chapter's report depends on: everything in its folder, its snapshot (which may be the manuscript
    elsewhere in the book), the source its snapshot was copied from, the notebook it names (a local path) with every
    file of its folder (which the notebook's kernel sees), and the book.yaml files above it."""
    folder = chapter.folder.resolve()
    files = {p.resolve() for p in folder.rglob("*") if p.is_file()}
    info = chapter.identity.snapshot
    files.add((chapter.folder / info.file).resolve())
    if info.source:
        files.add((chapter.folder / info.source).resolve())
    notebook = chapter.identity.notebook
    if notebook and "://" not in notebook:
        path = (chapter.folder / notebook).resolve()
        files.add(path)
        # the notebook sandbox shows the kernel the notebook's folder: a data file or module there can change what
        # a cell prints, so a change to it touches the chapter
        from audit.evaluation.sandbox.notebook import book_files
        files |= {f.resolve() for f, _ in book_files(path.parent) or []}
    files |= {parent / BOOK_FILE for parent in folder.parents}
    return files


def touched(chapters: Sequence[Chapter], files: Iterable[Path]) -> list[Chapter]:
    """The chapters one of ``files`` belongs to (``chapter_files``), in their order."""
    changed = {Path(f).resolve() for f in files}
    return [c for c in chapters if chapter_files(c) & changed]
