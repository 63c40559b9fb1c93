"""Every test run uses a claim cache of its own, so results cached by earlier runs (or by the user's own
audits) never stand in for a computation a test means to exercise."""

import os
import tempfile

os.environ["CHAPTER_AUDIT_CACHE"] = tempfile.mkdtemp(prefix="chapter-audit-test-cache-")
# and a cache key of its own (audit.run.signing), so the tests never create or read the user's key
os.environ["CHAPTER_AUDIT_CACHE_KEY_FILE"] = os.path.join(tempfile.mkdtemp(prefix="chapter-audit-test-key-"),
                                                         "cache-key")
os.environ.pop("CHAPTER_AUDIT_CACHE_KEY", None)
# Python's bytecode cache kept, as on a user's machine, in every process a test starts: with PYTHONDONTWRITEBYTECODE
# set (some CI images set it), each of the suite's hundreds of audits, workers and sandboxed runs would compile
# chapter-audit's modules from source again (about 7 % of the suite's CPU). It changes no value any test sees.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
import sys  # noqa: E402

sys.dont_write_bytecode = False

import copy
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("retrieval-23-chapter", "recall-and-precision")


# --- running across processes ------------------------------------------------------------------------------------
# `pytest` runs the tests across processes with pytest-xdist: as many workers as the machine has cores (`-n auto`;
# PYTEST_XDIST_AUTO_NUM_WORKERS sets another number), distributed by group (`--dist loadgroup`, below). This is set
# here rather than in pyproject.toml's addopts so that `pytest -n 0` (one process) and `pytest -p no:xdist` (no
# pytest-xdist at all, where an `-n` in addopts would be an unknown option) keep working.

@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return  # a worker (it must never start workers of its own), or pytest-xdist turned off
    option = config.option
    if option.numprocesses is None and not (option.collectonly or option.usepdb or option.trace):
        option.numprocesses = "auto"
    if option.numprocesses and option.dist == "no":
        option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """Tell each worker whether the run is distributed by group: a worker reads its options from the command line
    alone, so `--dist loadgroup` set above in the controller never reaches it (pytest-xdist's `setup_config`)."""
    node.workerinput["loadgroup"] = node.config.option.dist == "loadgroup"


def pytest_collection_modifyitems(config, items):
    """A test that uses a module- or session-scoped fixture of this project (an audited chapter, say) runs in the
    worker that runs the others using it, so that each such fixture is computed once, not once per worker: the
    test is put in the group named after that fixture (pytest-xdist's `loadgroup`); the other tests go wherever a
    worker is free."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group"):
            continue
        shared = []
        for name in info.names_closure:
            for fixturedef in info.name2fixturedefs.get(name, ()):
                if fixturedef.scope in ("module", "package", "session") and fixturedef.baseid is not None \
                        and fixturedef.baseid.startswith("tests"):
                    shared.append((fixturedef.scope == "module", fixturedef.baseid, name))
        if shared:
            _, baseid, name = min(shared)   # a session fixture first: it may serve several modules
            item.add_marker(pytest.mark.xdist_group(f"{baseid or 'session'}::{name}"))
    # The worker names each grouped test with its group, and the controller's `loadgroup` scheduler sends the tests
    # of one `@group` suffix to one worker. pytest-xdist does this itself, but before this hook has marked the tests
    # and by setting `item._nodeid`, which pytest 9 no longer reads (a node's id is `item._id`, a NodeId whose
    # parse keeps the string given): so it is done here, for both.
    worker = getattr(config, "workerinput", None)
    if worker and worker.get("loadgroup"):
        for item in items:
            names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                            for m in item.iter_markers("xdist_group")})
            if names and item.nodeid.rfind("@") <= item.nodeid.rfind("]"):  # not yet named with its group
                grouped = f"{item.nodeid}@{'_'.join(names)}"
                if hasattr(item, "_id"):
                    from _pytest.nodeid import NodeId
                    item._id = NodeId.parse(grouped)
                else:
                    item._nodeid = grouped


# --- the shipped chapters, audited once --------------------------------------------------------------------------

_SHIPPED_BOOK: dict = {}


@pytest.fixture(scope="session")
def shipped_book_audit(tmp_path_factory):
    """The shipped chapters audited together as one book, as `audit run` audits them: from a copy of claims/, with
    paths relative to the copy. Returns (root of the copy, {chapter id: (chapter, report)}, book). Computed once per
    process; tests that read it get it through `shipped_book` (a copy of their own)."""
    if not _SHIPPED_BOOK:
        from audit.attribution.book import Book
        from audit.evaluation.references import all_references
        from audit.register.claims import load_chapter
        from audit.run.audit import add_book_findings, audit_chapter
        from audit.run.cache import ClaimCache
        from audit.run.provenance import collect

        root = tmp_path_factory.mktemp("shipped-book")
        shutil.copytree(ROOT / "claims", root / "claims")
        cwd = Path.cwd()
        os.chdir(root)
        try:
            chapters = [load_chapter(Path("claims") / name) for name in SHIPPED]
            book = Book(chapters)
            refs = all_references()
            # stored in a claim cache of the fixture's own (empty, so every claim is computed here): a test that
            # audits a revision of a shipped chapter reads it (``<root>/cache/claims``) and computes only what changed
            cache = ClaimCache(root / "cache" / "claims")
            reports = [audit_chapter(c, refs, collect(["audit", "run"]), book=book, cache=cache) for c in chapters]
            for r in reports:
                add_book_findings(r, book)
        finally:
            os.chdir(cwd)
        _SHIPPED_BOOK.update(root=root, audited=dict(zip(SHIPPED, zip(chapters, reports))), book=book,
                             cache=root / "cache" / "claims")
    return _SHIPPED_BOOK


@pytest.fixture(scope="module")
def shipped_book(shipped_book_audit):
    """The shipped book's audit (see shipped_book_audit), deep-copied for one test module, so that a module that
    changes a report or the book leaves the next module the audit as it was made."""
    audited = copy.deepcopy((shipped_book_audit["audited"], shipped_book_audit["book"]))
    return shipped_book_audit["root"], audited[0], audited[1]
