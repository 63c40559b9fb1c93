"""pytest plugin: each claim of a chapter register is a test item named by its id.

``pytest claims/`` or ``pytest --audit claims/retrieval-23-chapter`` collects every
``claims.yaml`` that has a ``chapter.yaml`` beside it. supported → passed; qualified → passed
with a ``ClaimQualifiedWarning`` carrying the condition; contradicted and stale → failed, with a
plain failure text instead of a traceback; error → error; not checkable and pending → skipped
with the reason. Registered through the ``pytest11`` entry point.

Only the claims selected for the run are audited (``-k C08`` audits C08 alone), and results are
taken from the claim cache (``audit.run.cache``) unless ``--no-audit-cache`` is given. Under
pytest-xdist (``pytest -n auto claims/``) each worker audits the claims it is given, one by one.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from audit.errors import AuditError
from audit.register.claims import CHAPTER_FILE, CLAIMS_FILE
from audit.report.text import value_text


class ClaimQualifiedWarning(UserWarning):
    """A claim that holds only under a condition; the message names it."""


class ClaimFailed(Exception):
    """A contradicted or stale claim; rendered as plain lines by ``ClaimItem.repr_failure``."""


class ClaimErrored(Exception):
    """A claim whose check could not run."""


def pytest_addoption(parser):
    group = parser.getgroup("chapter-audit")
    group.addoption("--audit", action="append", default=[], metavar="CHAPTER_DIR",
                    help="collect the claims of this chapter folder as tests (repeatable)")
    group.addoption("--no-audit-cache", action="store_true",
                    help="compute every claim; neither read nor write chapter-audit's claim cache")


def pytest_configure(config):
    config.addinivalue_line("markers", "claim: a chapter claim collected by chapter-audit")
    paths = [str(Path(folder) / CLAIMS_FILE) for folder in config.getoption("audit") or []]
    if paths:
        if config.args_source == pytest.Config.ArgsSource.ARGS:
            config.args.extend(paths)       # explicit paths too: collect both
        else:
            config.args[:] = paths          # only the named chapters, not the configured testpaths


def pytest_collect_file(file_path: Path, parent):
    if file_path.name == CLAIMS_FILE and (file_path.parent / CHAPTER_FILE).exists():
        return ChapterFile.from_parent(parent, path=file_path)
    return None


class _Session:
    """Audits the selected claims of each chapter once per pytest session, with all collected chapters as
    the book: on the first claim of a chapter, every claim of that chapter still to run (after ``-k``
    and other deselection) is audited together; under pytest-xdist, where a worker does not know which
    claims it will be given, each claim is audited alone."""

    def __init__(self, config) -> None:
        from audit.run.cache import ClaimCache

        self.config = config
        self.chapters = {}
        self.reports: dict = {}
        self.book = None
        from audit.run.cache import set_memo

        self.cache = ClaimCache(enabled=not config.getoption("no_audit_cache", False))
        set_memo(self.cache.enabled)  # reference observations are cached with the claims

    def _wanted(self, item) -> set[str]:
        folder = item.path.parent
        if hasattr(self.config, "workerinput"):  # a pytest-xdist worker
            return {item.name}
        return {i.name for i in item.session.items if isinstance(i, ClaimItem) and i.path.parent == folder}

    def result(self, item):
        from audit.attribution.book import Book
        from audit.evaluation.references import all_references
        from audit.run.audit import add_book_findings, audit_chapter
        from audit.run.provenance import collect

        folder = item.path.parent
        got = self.reports.setdefault(folder, {})
        if isinstance(got, dict) and item.name not in got:
            try:
                if self.book is None:
                    self.book = Book(list(self.chapters.values()))
                select = (self._wanted(item) - set(got)) | {item.name}
                report = audit_chapter(self.chapters[folder], all_references(start=False), collect(["pytest"]),
                                       book=self.book, cache=self.cache, select=select, ledger=False)
                add_book_findings(report, self.book)
                got.update({c.id: c for c in report.claims})
            except Exception as exc:  # this chapter's failure, recorded once; its items show it as an error
                self.reports[folder] = got = _internal(exc)
        if isinstance(got, str):
            raise ClaimErrored(got)
        return got[item.name]


def _internal(exc: BaseException) -> str:
    text = str(exc)
    return (f"internal error while auditing the chapter: {type(exc).__name__}: "
            f"{text[:200] + '…' if len(text) > 200 else text} (please report this)")


def _session(config) -> _Session:
    if not hasattr(config, "_chapter_audit"):
        config._chapter_audit = _Session(config)
    return config._chapter_audit


class ChapterFile(pytest.File):
    """A chapter register: yields one ``ClaimItem`` per claim, in register order."""

    def collect(self):
        from audit.register.claims import load_chapter

        try:
            chapter = load_chapter(self.path.parent)
        except AuditError as exc:
            # One failing item for this chapter; the other chapters' claims are still collected and run.
            yield RegisterItem.from_parent(self, name="register", message=f"invalid register: {exc}")
            return
        except Exception as exc:
            yield RegisterItem.from_parent(self, name="register", message=_internal(exc).replace(
                "auditing the chapter", "loading the register"))
            return
        _session(self.config).chapters[self.path.parent] = chapter
        for claim in chapter.register.claims:
            yield ClaimItem.from_parent(self, name=claim.id, line=chapter.lines.get(claim.id))


class RegisterItem(pytest.Item):
    """Stands for a chapter whose register cannot be loaded: fails with the error, naming the
    file, claim and field, and no traceback."""

    def __init__(self, *, message: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.message = message

    def runtest(self) -> None:
        raise ClaimFailed(self.message)

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.path.parent.name}::register"


class ClaimItem(pytest.Item):
    def __init__(self, *, line: int | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.line = line
        self.add_marker("claim")
        self.result = None

    def setup(self) -> None:
        self.result = _session(self.config).result(self)
        # Recorded in JUnit XML as <property>, so a qualified pass is visible there too.
        self.user_properties += [("verdict", self.result.verdict), ("priority", self.result.priority)]
        if self.result.verdict == "error":
            raise ClaimErrored(self._text())

    def runtest(self) -> None:
        verdict = self.result.verdict
        if verdict in ("not checkable", "pending"):
            # Report the skip at the claim's line in the register, not at this line.
            raise pytest.skip.Exception(f"{self.name} {verdict}: {self.result.reason}", _use_item_location=True)
        if verdict in ("contradicted", "stale"):
            raise ClaimFailed(self._text())
        if verdict == "qualified":
            warnings.warn(ClaimQualifiedWarning(f"{self.name} qualified: {self.result.reason}"))

    def _text(self) -> str:
        r = self.result
        lines = [f"{r.id} {r.verdict}: {r.title}", f"  quote:    “{r.quote}” (snapshot line {r.line or '—'})",
                 f"  claimed:  {r.claimed or '—'}", f"  reason:   {r.reason}"]
        for check in r.checks:
            shown = [f"{v.implementation}={value_text(v, places=4)}" for v in check.values]
            if shown:
                lines.append(f"  {check.label}: " + ", ".join(shown))
            for row in check.table:
                lines.append("    " + " | ".join(row))
        lines.append(f"  response: {r.response}")
        return "\n".join(lines)

    def repr_failure(self, excinfo):
        if excinfo.errisinstance((ClaimFailed, ClaimErrored)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def _repr_failure_py(self, excinfo, style=None):
        # pytest renders errors raised in setup() through this method rather than repr_failure.
        if excinfo.errisinstance(ClaimErrored):
            return str(excinfo.value)
        return super()._repr_failure_py(excinfo, style=style)

    def reportinfo(self):
        return self.path, (self.line - 1) if self.line else None, f"{self.path.parent.name}::{self.name}"

