"""The chapter's place in its book: the notebook and snapshot source files (inside the repository, no hidden
folder), the listing environment a chapter declares, book.yaml and its conventions.
"""

from __future__ import annotations

import re

from pathlib import Path
from pydantic import ValidationError

from audit.errors import AuditError, RegisterError
from audit.measures.conventions import Declared, declared_from
from audit.model.files import read_text
from audit.model.limits import MAX_NOTEBOOK_BYTES
from audit.register.fields import _as_plain, BookFile, Identity
from audit.register.yaml_reading import _read_yaml, _validation_error
from audit.text.chapter import Snapshot


BOOK_FILE = "book.yaml"


URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def notebook_path(folder: Path, identity: Identity) -> Path | None:
    """The chapter's notebook as a file of the book's repository, or None when it names none or a URL."""
    if not identity.notebook or URL.match(identity.notebook):
        return None
    return (Path(folder) / identity.notebook).resolve()


def _check_source(folder: Path, identity: Identity, root: Path, chapter_path: Path) -> None:
    """``snapshot.source`` says where a frozen copy came from: a description, a URL, or a file of the book's
    repository (compared with the copy on every run). A name that is an absolute path, or a file or link that leads
    outside the repository, is refused: the audit reads and names only the book's own files. Raises
    ``RegisterError`` naming chapter.yaml's ``snapshot.source``."""
    source = identity.snapshot.source
    if not source or URL.match(source):
        return
    try:
        path = Path(folder) / source
        problem = (repository_problem(folder, source, root)
                   if Path(source).is_absolute() or path.exists() or path.is_symlink() else "")
    except (OSError, ValueError, RuntimeError):  # a description too long to be a path, a link loop
        problem = ""
    if problem:
        raise RegisterError(f"snapshot.source {source!r} {problem}; name the "
                            "file the copy came from relative to the chapter folder, inside the repository, or "
                            "describe where it came from", file=str(chapter_path), field="snapshot.source")


def _check_environment(identity: Identity, chapter_path: Path) -> None:
    """Every package chapter.yaml's ``environment`` names must be importable in the listing sandbox. Raises
    ``RegisterError`` naming chapter.yaml, ``environment[i]`` and the package, with how to provide it."""
    from audit.evaluation.sandbox.environment import how_to_provide, importable
    for i, name in enumerate(identity.environment):
        if not importable(name):
            raise RegisterError(f"the chapter's listings need {name!r}, which is not installed where the listing "
                                f"sandbox finds packages (chapter-audit's own environment): {how_to_provide(name)}",
                                file=str(chapter_path), field=f"environment[{i}]")


def _check_notebook(folder: Path, identity: Identity, root: Path, chapter_path: Path) -> None:
    """A local ``notebook`` must be a readable notebook inside the book's repository (its folder is what the notebook
    sandbox shows the kernel). Raises ``RegisterError`` naming chapter.yaml's ``notebook``."""
    try:
        path = notebook_path(folder, identity)
        if path is None:
            return
        problem = (repository_problem(folder, identity.notebook, root)
                   or ("is not a .ipynb file" if path.suffix != ".ipynb"
                       else "names no file" if not path.is_file() else ""))
    except (OSError, ValueError, RuntimeError) as exc:  # a name too long, a NUL byte, a link loop
        problem = f"cannot be read as a path ({type(exc).__name__}: {str(exc)[:80]})"
    if problem:
        raise RegisterError(f"notebook {identity.notebook[:200]!r} {problem}; give the chapter's notebook "
                            "relative to the chapter folder, or its URL", file=str(chapter_path), field="notebook")
    import nbformat
    try:
        nbformat.reads(read_text(path, "notebook", MAX_NOTEBOOK_BYTES, RegisterError), as_version=4)
    except RegisterError as exc:
        raise RegisterError(f"notebook {identity.notebook!r}: {exc.message}", file=str(chapter_path),
                            field="notebook") from None
    except Exception as exc:  # nbformat raises JSON, validation and version errors of many types
        raise RegisterError(f"notebook {identity.notebook!r} is not a Jupyter notebook nbformat can read "
                            f"({type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else 'no detail'})",
                            file=str(chapter_path), field="notebook") from None


def hidden_part(path: Path, root: Path) -> str:
    """The first name starting with a dot (``.git``, ``.github``, ``.env``) on the way from the book's repository
    ``root`` to the resolved ``path`` — a folder or file the book keeps out of its text (credentials in
    ``.git/config``, CI workflows) — or '' when there is none. ``path`` must be resolved and inside ``root``. A
    chapter folder inside a dot-folder gets no exception: its own copy there could be a workflow file."""
    return next((part for part in path.relative_to(root).parts if part.startswith(".")), "")


def repository_problem(folder: Path, name: str, root: Path) -> str:
    """What keeps ``name`` (from chapter.yaml, relative to the chapter folder) from being read as a file of the book's
    repository ``root``: '' when nothing does; else that it is absolute or leads outside the repository (also through
    a link), or that it lies in a dot-folder or is a hidden file of the repository (``hidden_part``). The audit reads
    such a file as a chapter's text, shows it in the report and names it in the patch, so neither may be."""
    path = (Path(folder) / name).resolve()
    if Path(name).is_absolute() or not path.is_relative_to(root):
        return f"points outside the book's repository ({root})"
    hidden = hidden_part(path, root)
    if hidden:
        what = "is the hidden file" if hidden == path.name else "lies in the dot-folder"
        return (f"{what} {hidden!r} of the book's repository ({root}), which the audit neither reads as a "
                "chapter's text nor patches")
    return ""


def book_root(folder: Path) -> Path:
    """The book's repository a chapter folder lies in: the nearest folder above it holding ``.git``, else the folder
    above the one holding the chapter folders (``claims/<id>`` → the project). A chapter's manuscript may be read
    from anywhere inside it."""
    folder = folder.resolve()
    for parent in [folder, *folder.parents]:
        if (parent / ".git").exists():
            return parent
    return folder.parent.parent if folder.parent != folder else folder


def source_difference(chapter: "Chapter") -> str:
    """'' when the snapshot is the manuscript itself, or ``snapshot.source`` names no readable file, or that file's
    normalised text is the snapshot's; else a sentence saying that the frozen copy and its source differ."""
    info = chapter.identity.snapshot
    if not info.source or info.source.strip() == info.file.strip():
        return ""
    path = chapter.folder / info.source
    try:
        if not path.is_file() or repository_problem(chapter.folder, info.source, book_root(chapter.folder)):
            return ""
        source = Snapshot.read(path)
    except (OSError, AuditError, ValueError):
        return ""
    if source.fingerprint() == chapter.snapshot.fingerprint():
        return ""
    return (f"the snapshot {info.file} differs from its source {info.source}: this audit read the frozen copy; "
            f"copy the source over it (or point snapshot.file at the source) to audit the current text")


def read_book_file(path: Path) -> BookFile:
    """A ``book.yaml``, validated. Raises ``RegisterError`` naming the file and field."""
    data, _ = _read_yaml(path)
    try:
        return BookFile.model_validate(data if data is not None else {})
    except ValidationError as exc:
        raise _validation_error(exc, path, data)


def _book_conventions(folder: Path, identity: Identity) -> Declared:
    """The book's default conventions from the nearest ``book.yaml`` above the chapter folder (beside it, or higher
    up inside the book's repository), if it names this chapter's book (or names none)."""
    root = book_root(folder)
    path = next((parent / BOOK_FILE for parent in Path(folder).resolve().parents
                 if (parent / BOOK_FILE).is_file() and parent.is_relative_to(root)), None)
    if path is None:
        return Declared()
    book = read_book_file(path)
    if book.book is not None and book.book != identity.book:
        return Declared()
    return declared_from(_as_plain(book.conventions), "book")
