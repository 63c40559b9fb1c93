"""Command line: ``audit run [CHAPTER_DIR …]`` writes Markdown and JSON reports and prints a summary."""

from __future__ import annotations

import argparse
import errno
import os
import sys
from pathlib import Path

from audit import __version__
from audit.errors import AuditError
from audit.report.files import SELECTED

#: Exit codes (also in docs/workflow.md).
EXIT_OK = 0           # the audit ran; reports written
EXIT_FAIL_ON = 1      # the audit ran, and a claim has a verdict named by --fail-on
EXIT_USAGE = 2        # bad command line
EXIT_INPUT = 3        # a chapter folder or register is invalid (other chapters are still audited)
EXIT_INTERNAL = 4     # an unexpected failure inside chapter-audit

FAILABLE = ("contradicted", "qualified", "stale", "error", "notebook")


def _fail_on(text: str) -> set[str]:
    chosen = {t.strip() for t in text.split(",") if t.strip()}
    unknown = chosen - set(FAILABLE)
    if not chosen or unknown:
        raise argparse.ArgumentTypeError(
            f"--fail-on takes a comma-separated list of {', '.join(FAILABLE)}; got {text!r}")
    return chosen


def _claim_ids(text: str) -> list[str]:
    chosen = list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
    if not chosen:
        raise argparse.ArgumentTypeError(f"--claims takes a comma-separated list of claim ids, e.g. C08,C14; "
                                         f"got {text!r}")
    return chosen


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"-j takes a whole number of chapters to audit at once (1 or more); "
                                         f"got {text!r}")
    return jobs


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="audit", description="Audit the quantitative claims of book chapters "
                                     "about retrieval metrics.")
    parser.add_argument("--version", action="version", version=f"chapter-audit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="audit chapters and write their reports")
    run.add_argument("chapters", nargs="*", type=Path,
                     help="chapter folders (default: every folder under claims/ with a chapter.yaml)")
    run.add_argument("--claims-dir", type=Path, default=Path("claims"),
                     help="where to look for chapters when none are named (default: claims)")
    run.add_argument("--reports", type=Path, default=Path("reports"),
                     help="folder for <chapter-id>.html, .md and .json (default: reports)")
    run.add_argument("--fail-on", type=_fail_on, default=set(), metavar="VERDICTS",
                     help="exit 1 when any claim has one of these verdicts, e.g. contradicted,stale,error; "
                          "notebook: when a chapter's notebook does not run through or contradicts its chapter")
    run.add_argument("--quiet", action="store_true", help="print only errors and the written paths")
    run.add_argument("--claims", type=_claim_ids, default=None, metavar="IDS",
                     help=f"audit only these claims, e.g. C08,C14; their reports go to REPORTS/{SELECTED}/ (the "
                          "chapters' own reports and the index are left as they are)")
    run.add_argument("--no-cache", action="store_true",
                     help="compute every claim; neither read nor write the claim cache "
                          "(default location ~/.cache/chapter-audit, or $CHAPTER_AUDIT_CACHE)")
    touched = run.add_mutually_exclusive_group()
    touched.add_argument("--changed", nargs="?", const="HEAD", default=None, metavar="REV",
                         help="audit only the chapters whose files changed since the git revision REV (default HEAD: "
                              "what is staged, not staged or new); the others' reports are kept")
    touched.add_argument("--files", nargs="+", type=Path, default=None, metavar="FILE",
                         help="audit only the chapters these files belong to (their folder, snapshot, manuscript or "
                              "notebook; the pre-commit hook passes the files of a commit)")
    run.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N",
                     help="audit up to N chapters in parallel processes (default 1); output is the same")
    dif = sub.add_parser("diff", help="what changed between two JSON reports of a chapter")
    dif.add_argument("old", type=Path, help="the previous report (e.g. the committed reports/<id>.json)")
    dif.add_argument("new", type=Path, help="the new report")
    cross = sub.add_parser("crosscheck", help="where trec_eval, ir-measures, ranx and the chapter disagree on a "
                           "TREC qrels and run, and why")
    cross.add_argument("--qrels", type=Path, required=True, help="TREC qrels file")
    cross.add_argument("--run", type=Path, action="append", required=True, help="TREC run file (repeatable)")
    cross.add_argument("--measures", default="P@10 R@100 RR AP nDCG@10",
                       help="space-separated ir-measures names (default: %(default)s)")
    cross.add_argument("--expected", type=Path, help="trec_eval output for the same files, to compare 'all' values")
    cross.add_argument("--out", type=Path, default=Path("reports/crosscheck"),
                       help="report path without suffix; .md and .json are written (default: %(default)s)")
    init = sub.add_parser("init", help="start a chapter register from a snapshot's numeric statements")
    init.add_argument("snapshot", type=Path, help="the chapter text (plain text or Markdown)")
    init.add_argument("--id", required=True, help="the chapter's stable id (the folder and report name)")
    init.add_argument("--title", help="the chapter's title (default: the snapshot's first line)")
    init.add_argument("--book", help="the book's title")
    init.add_argument("--chapter", help="the chapter's number or label in the book")
    init.add_argument("--claims-dir", type=Path, default=Path("claims"), help="where to create the folder")
    init.add_argument("--notebook", type=Path, help="the chapter's companion notebook (.ipynb in the book's "
                      "repository): recorded in chapter.yaml, run by every audit, and its printed numbers linked to the "
                      "drafted values they print")
    acc = sub.add_parser("accept", help="accept the chapter's current text as the revision its register is written "
                         "for: record its fingerprint in chapter.yaml and in the history (after auditing it)")
    acc.add_argument("chapters", nargs="+", type=Path, help="chapter folders")
    acc.add_argument("--reports", type=Path, default=Path("reports"),
                     help="where the revision's report was written by `audit run` (default: reports)")
    schema = sub.add_parser("schema", help="print the JSON Schema of claims.yaml (or chapter.yaml) for editors")
    schema.add_argument("--chapter", dest="which", action="store_const", const="chapter", default="claims",
                        help="the schema of chapter.yaml instead of claims.yaml")
    return parser


def _read_report(path: Path) -> dict:
    import json

    from audit.model.files import read_text
    if not path.exists():
        raise AuditError("report not found", file=str(path))
    try:
        data = json.loads(read_text(path, "report", 256 * 2**20))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise AuditError(f"not a JSON report ({str(exc)[:200]})", file=str(path))
    claims = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(claims, list) or not all(isinstance(c, dict) and "id" in c for c in claims) \
            or not isinstance(data.get("chapter"), dict):
        raise AuditError("not a chapter-audit JSON report (expected a chapter and a list of claims with ids)",
                         file=str(path))
    return data


def diff(args) -> int:
    from audit.report.diff import diff_reports

    old, new = _read_report(args.old), _read_report(args.new)
    if old["chapter"].get("id") != new["chapter"].get("id"):
        raise AuditError(f"the reports are of different chapters ({old['chapter'].get('id')} and "
                         f"{new['chapter'].get('id')}); compare two reports of one chapter", file=str(args.new))
    print(_plain("\n".join(diff_reports(old, new).lines())))
    return EXIT_OK


def crosscheck(args) -> int:
    from audit.attribution.crosscheck import crosscheck as run_crosscheck
    from audit.attribution.crosscheck_report import render_markdown
    from audit.evaluation.references import all_references
    from audit.report.files import write_text
    from audit.run.provenance import collect

    if not args.measures.split():
        raise AuditError("--measures is empty; give ir-measures names such as \"P@10 RR AP nDCG@10\"")
    from audit.model.limits import MAX_QRELS_BYTES, MAX_RUN_BYTES
    for path, what, limit in [(args.qrels, "qrels file", MAX_QRELS_BYTES)] + [(r, "run file", MAX_RUN_BYTES)
                                                                                for r in args.run]:
        try:
            size = os.stat(path).st_size if os.path.isfile(path) else 0  # anything else is refused when opened
        except (OSError, ValueError):
            size = 0
        if size > limit:
            raise AuditError(f"the {what} is {size:,} bytes, more than the limit of {limit:,} "
                             f"(limits.MAX_{'QRELS' if what == 'qrels file' else 'RUN'}_BYTES)", file=str(path))
    from audit.measures.syntax import parse as parse_measure
    for name in args.measures.split():
        try:
            parse_measure(name, True)  # measures only the references define are cross-checked among them
        except AuditError as exc:
            print(f"audit crosscheck: error: --measures: {_plain(exc)}", file=sys.stderr)
            return EXIT_USAGE
    report = run_crosscheck(args.qrels, args.run, args.measures.split(), all_references(), expected=args.expected,
                            provenance=collect(sys.argv).model_dump(),
                            progress=lambda text: print(text, file=sys.stderr))
    for suffix, text in ((".json", report.model_dump_json(indent=2) + "\n"), (".md", render_markdown(report))):
        print(f"wrote {write_text(args.out.parent / (args.out.name + suffix), text)}")
    failed = [r for r in report.runs if r.error]
    for r in failed:
        print(f"error: {_plain(r.run)}: {_plain(r.error)}", file=sys.stderr)
    return EXIT_INPUT if failed else EXIT_OK


def init(args) -> int:
    from audit.draft.init import create_chapter
    from audit.text.scan import MEASURED

    folder, counts = create_chapter(args.snapshot, args.id, args.claims_dir, title=args.title, book=args.book,
                                    chapter=args.chapter, notebook=args.notebook)
    kinds = ", ".join(f"{counts[k]} {k}" for k in ("arithmetic", "value", "comparison", "property", "code", "statistic")
                      if counts.get(k))
    print(f"created {folder}: {counts['statements']} statements found; {counts['encoded']} claims encoded to run "
          f"as written ({kinds or 'none'}), {counts['draft']} drafts with a TODO (see {folder / 'claims.yaml'}); "
          f"{counts.get('conventions', 0)} conventions the text states declared in {folder / 'chapter.yaml'}"
          + (f"; {counts['notebook links']} drafted value(s) linked to a number the notebook prints under their "
             "measure's name (check each link)" if "notebook links" in counts else "") + ". "
          + _unread_sentence(counts.get("unread", 0))
          + f"Measured on the labelled corpus ({MEASURED['corpus_statements']} statements in "
          f"{MEASURED['corpus_texts']} texts), the scanner reads {MEASURED['corpus_recall']:.0%} of statements "
          f"({MEASURED['corpus_held_out_recall']:.0%} on held-out texts); what it misses has no claim here: read the "
          f"chapter for it.")
    return EXIT_OK


def _unread_sentence(n: int) -> str:
    """init's count of the sentences it drafted nothing for although they hold a number, a comparison or a
    universal word (``audit.draft.init.unread_quoted_by_none``)."""
    if not n:
        return ""
    return (f"{n} sentence{'' if n == 1 else 's'} with a number, a comparison or a universal word "
            f"{'is' if n == 1 else 'are'} not read as a statement and got no claim: `audit run` lists "
            f"{'it' if n == 1 else 'them'} as uncovered. ")


def schema(args) -> int:
    from audit.register.schema import render

    sys.stdout.write(render(args.which))
    return EXIT_OK


def _register_text(path: Path) -> str | None:
    """The claim register as the patch's base (None when it can no longer be read: the patch then covers the
    snapshot only)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _plain(text: object) -> str:
    """Text from the book or a file for the console: its lines kept, every other control or format character (an
    escape, a right-to-left override) shown, never sent (``report.shown``)."""
    from audit.report.shown import visible_lines
    return visible_lines(text)


def _esc(text: object) -> str:
    """``_plain`` text inside a Rich message: its ``[green]`` is shown as written, never read as markup."""
    from rich.markup import escape
    return escape(_plain(text))


def _brief(exc: BaseException) -> str:
    """``TypeName: message``, the message cut to 200 characters."""
    text = str(exc)
    return f"{type(exc).__name__}: {text[:200] + '…' if len(text) > 200 else text}"


#: Free bytes below which the numba cache's disk is named before the audit starts: ranx's compiled metrics take
#: about 20 MB for each installation.
NUMBA_ROOM = 64 * 2**20


def _free_bytes(folder: str | Path) -> int | None:
    """Free bytes on the disk of ``folder`` (or of its nearest existing parent), or None when unknown."""
    import shutil
    path = Path(folder)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def _numba_room(folder: str, free: int | None) -> str:
    room = f"{free / 2**20:.1f} MB free" if free is not None else "free space unknown"
    return (f"ranx keeps its compiled metrics in the numba cache {folder} ({room}; about 20 MB are needed for each "
            "installation); free some space there or point NUMBA_CACHE_DIR at a folder with room")


#: What a reference's error says when it could not write a file (numba writing its cache).
_WRITE_FAILURES = ("[Errno 28]", "No space left on device", "[Errno 30]", "Read-only file system", "[Errno 122]",
                   "Disk quota exceeded")


def _numba_hint(reports, folder: str) -> str:
    """A hint when a reference failed on a claim because a file could not be written (ranx, numba's cache full):
    such claims are errors that name only the OSError."""
    for report in reports:
        for claim in report.claims:
            for check in claim.checks:
                for value in check.values:
                    if value.status == "error" and any(text in value.detail for text in _WRITE_FAILURES):
                        import tempfile
                        where = (_numba_room(folder, _free_bytes(folder)) if value.implementation == "ranx" else
                                 f"a disk it writes to is full or read-only (the temporary folder is "
                                 f"{tempfile.gettempdir()}; TMPDIR moves it)")
                        return (f"{value.implementation} failed with “{value.detail[:120]}” on {claim.id} of "
                                f"{report.chapter['id']}; {where}")
    return ""


def _add_stats(total: dict, more: dict) -> None:
    """Add a chapter process's cache counts (``audit.run.cache.STATS``) to this process's."""
    for name in ("refused", "unwritten"):
        if more.get(name):
            total[name] += more[name]
            total[f"{name}_reason"] = more.get(f"{name}_reason", "")
    if more.get("unwritten_errno"):
        total["unwritten_errno"] = more["unwritten_errno"]


def _chapters(args) -> list[Path]:
    if args.chapters:
        return args.chapters
    from audit.run.changed import book_chapters, layout_file, leaves_book, repository_of
    layout = layout_file(args.claims_dir)
    if layout is not None:
        return book_chapters(layout)
    if not args.claims_dir.is_dir():
        raise AuditError(f"no chapters named and no {args.claims_dir}/ folder here; run from the project root "
                         "or name chapter folders")
    found = sorted(p.parent for p in args.claims_dir.glob("*/chapter.yaml"))
    root = repository_of(args.claims_dir)
    for folder in found:
        if leaves_book(folder, root):  # a committed link to a folder elsewhere: not the book's chapter
            raise AuditError(f"{folder.as_posix()} is a link to a folder outside the book's repository ({root}); a "
                             "chapter folder must lie inside it (name it on the command line to audit it anyway)")
    if not found:
        raise AuditError(f"no chapter folders (with chapter.yaml) under {args.claims_dir}/")
    return found


def _start_significance(references, chapters) -> None:
    """Start the worker of each reference whose own significance tests a chapter's statistic claims name (ranx's
    t-test and randomization test): its library takes seconds to load, which then overlap the audit's own start."""
    from audit.evaluation.references import significance_references
    for ref in significance_references(references, [c for ch in chapters for c in ch.register.claims]):
        try:
            ref.start()
        except Exception:  # the audit starts it again when a claim asks, and reports a failure there
            pass


def run(args) -> int:
    from rich.console import Console

    from audit.evaluation.references import all_references
    from audit.evaluation.references.ranx_ref import numba_cache_dir
    from audit.register.claims import load_chapter, source_difference
    from audit.report.files import locked
    from audit.run.provenance import collect

    def prepare_charts() -> None:  # matplotlib loads while the audit waits on its references
        from audit.report.charts import prepare
        prepare()

    def draw_ahead(result) -> None:  # and each claim's charts are drawn as it is done
        from audit.report.charts import draw_ahead
        draw_ahead(result.checks)

    err = Console(stderr=True, soft_wrap=True)
    out = Console(soft_wrap=True)
    cache = numba_cache_dir()
    if not args.quiet and not any(Path(cache).rglob("*.nbi")):
        err.print(f"[dim]ranx compiles its metrics on first use in an installation (about 40 s); cache: {cache}[/dim]")
    room = _free_bytes(cache)
    if room is not None and room < NUMBA_ROOM:
        err.print(f"[yellow]warning:[/yellow] {_numba_room(cache, room)}", highlight=False)
    provenance = collect(sys.argv)
    references = all_references(start=False)  # started when a claim is not in the cache
    status = EXIT_OK
    reports = []
    seen_ids: dict[str, Path] = {}
    chapters = []
    for folder in _chapters(args):
        try:
            chapter = load_chapter(folder)
            if chapter.identity.id in seen_ids:
                raise AuditError(f"chapter id {chapter.identity.id!r} is also used by {seen_ids[chapter.identity.id]}; "
                                 "ids name the reports, so they must be unique", file=str(folder / "chapter.yaml"),
                                 field="id")
            seen_ids[chapter.identity.id] = folder
            chapters.append(chapter)
            differs = source_difference(chapter)
            if differs:  # said first, before any verdict: the author may be auditing an old copy
                err.print(f"[yellow]warning:[/yellow] {chapter.identity.id}: {_esc(differs)}", highlight=False)
        except AuditError as exc:
            err.print(f"[red]error:[/red] {_esc(exc)}", highlight=False)
            status = max(status, EXIT_INPUT)
        except Exception as exc:  # an internal fault on this chapter only: say so, keep the others
            err.print(f"[red]internal error[/red] while loading {_esc(folder)}: {_esc(_brief(exc))} (this chapter is skipped; "
                      "please report this)", highlight=False)
            status = EXIT_INTERNAL
    # a library whose own significance tests a claim will ask for loads from now on, while the audit itself loads
    if not (args.jobs > 1 and len(chapters) > 1):  # chapter processes start their own workers
        _start_significance(references, chapters)
    from audit.attribution.book import Book
    from audit.run.audit import audit_chapter
    from audit.run.cache import STATS, ClaimCache, reset_stats, set_memo
    from audit.run.jobs import audit_parallel
    try:
        book = Book(chapters)
    except Exception as exc:
        err.print(f"[red]internal error[/red] while comparing the chapters' conventions: {_esc(_brief(exc))} (chapters "
                  "audited alone; please report this)", highlight=False)
        book = Book([])
    if args.changed is not None or args.files is not None:
        # every chapter is loaded (the book's conventions are compared across all of them); only those the change
        # touches are audited, and the others' reports are left as they are
        from audit.run.changed import changed_files, touched
        try:
            files = changed_files(args.changed) if args.changed is not None else args.files
        except AuditError as exc:
            err.print(f"[red]error:[/red] --changed: {_esc(exc)}", highlight=False)
            return EXIT_USAGE
        chosen = touched(chapters, files)
        if not args.quiet:
            what = f"since {args.changed}" if args.changed is not None else "in the files given"
            err.print(f"[dim]changed {what}: {', '.join(str(c.identity.id) for c in chosen) or 'no chapter'}"
                      f"{' (the others are not audited)' if len(chosen) < len(chapters) else ''}[/dim]",
                      highlight=False)
        chapters = chosen
        if not chapters:
            return status
    if args.claims is not None:
        known = {c.id for chapter in chapters for c in chapter.register.claims}
        unknown = [cid for cid in args.claims if cid not in known]
        if unknown and status == EXIT_INPUT:  # a chapter did not load (said above): its claims are not known
            err.print(f"[red]error:[/red] --claims: {_esc(', '.join(unknown))} not found in the chapters that loaded; fix "
                      "the register named above and run again", highlight=False)
            return status
        if unknown:
            err.print(f"[red]error:[/red] --claims: no audited chapter has claim {_esc(', '.join(unknown))}",
                      highlight=False)
            return EXIT_USAGE
    select = set(args.claims) if args.claims is not None else None
    folder = args.reports
    if select is not None:
        # A partial audit never poses as a chapter's report: its reports go to their own folder, the chapters'
        # own reports and the book index are left as they are, and a chapter with none of the claims is skipped.
        folder = args.reports / SELECTED
        skipped = [c for c in chapters if not any(claim.id in select for claim in c.register.claims)]
        chapters = [c for c in chapters if c not in skipped]
        if skipped and not args.quiet:
            err.print(f"[dim]skipped (none of the selected claims): "
                      f"{', '.join(str(c.identity.id) for c in skipped)}[/dim]", highlight=False)
    cache = ClaimCache(enabled=not args.no_cache)
    reset_stats()
    if cache.enabled:
        from audit.run.signing import signer
        sign = signer(cache.folder.parent)
        if sign.secret is None:
            if not args.quiet:
                err.print(f"[yellow]note:[/yellow] the claim cache is not used: {_esc(sign.problem)}; every claim is computed",
                          highlight=False)
            cache.enabled = False
    set_memo(cache.enabled)  # charts and reference observations are cached with the claims
    audited = []
    hits = misses = 0
    if args.jobs > 1 and len(chapters) > 1:
        for done in audit_parallel(chapters, book, provenance, cache, select, args.jobs):
            hits, misses = hits + done.hits, misses + done.misses
            _add_stats(STATS, done.stats)
            if done.report is None:
                err.print(f"[red]internal error[/red] while auditing {done.chapter.identity.id}: {_esc(done.error)} "
                          "(no report written for this chapter; please report this)", highlight=False)
                status = EXIT_INTERNAL
            else:
                audited.append(done.report)
        chapters_done = True
    else:
        chapters_done = False
    for chapter in ([] if chapters_done else chapters):
        claims = chapter.register.claims
        with err.status(f"auditing {chapter.identity.id}", spinner="dots") as spinner:
            def progress(claim_id: str) -> None:
                index = next(i for i, c in enumerate(claims, 1) if c.id == claim_id)
                spinner.update(f"auditing {chapter.identity.id}: claim {claim_id} ({index}/{len(claims)})")
            try:
                report = audit_chapter(chapter, references, provenance, progress=None if args.quiet else progress,
                                       book=book, cache=cache, select=select, computing=prepare_charts,
                                       computed=draw_ahead)
            except Exception as exc:  # an internal fault: say so, keep going with the other chapters
                err.print(f"[red]internal error[/red] while auditing {chapter.identity.id}: "
                          f"{_brief(exc)} (no report written for this chapter; please report this)",
                          highlight=False)
                status = EXIT_INTERNAL
                continue
        audited.append(report)
    if not chapters_done:
        hits, misses = cache.hits, cache.misses
    if not args.quiet and cache.enabled:
        err.print(f"[dim]claim cache: {hits} of {hits + misses} claims reused, {misses} computed "
                  f"({cache.folder})[/dim]", highlight=False)
    hint = _numba_hint(audited, numba_cache_dir())
    if hint:
        err.print(f"[yellow]hint:[/yellow] {_esc(hint)}", highlight=False)
    # Written under the reports folder's lock: an audit writing the same folder meanwhile waits, so the folder
    # holds every report of one run or of the other, never chapters of both side by side with one index.
    if audited:
        with locked(args.reports, waiting=lambda text: err.print(f"[dim]{_esc(text)}[/dim]", highlight=False)):
            status = _write_all(args, audited, chapters, book, select, folder, status, reports, out, err,
                                cache.enabled)
    if STATS["refused"]:
        err.print(f"[yellow]warning:[/yellow] {STATS['refused']} cache entr{'y was' if STATS['refused'] == 1 else 'ies were'} "
                  f"not used and computed again (last: {STATS['refused_reason']}); the cache folder "
                  f"{cache.folder.parent} may have been written by someone else", highlight=False)
    if STATS["unwritten"]:
        full = " (its disk is full)" if STATS["unwritten_errno"] == errno.ENOSPC else ""
        err.print(f"[yellow]warning:[/yellow] the claim cache could not be written{full}: {STATS['unwritten']} "
                  f"entr{'y' if STATS['unwritten'] == 1 else 'ies'} not stored ({STATS['unwritten_reason']}); the "
                  "reports are complete, and the next run computes those results again", highlight=False)
    if book.conflicts and not args.quiet:
        out.print(f"\nBook-level consistency: {len(book.conflicts)} conflict(s) between chapters")
        for conflict in book.conflicts:
            out.print(f"  - {_esc(conflict.sentence())}", highlight=False)
    if status == EXIT_OK and args.fail_on:
        hits = [(r.chapter["id"], c.id, c.verdict) for r in reports for c in r.claims if c.verdict in args.fail_on]
        if "notebook" in args.fail_on:  # a chapter's notebook that does not run through or contradicts its chapter
            hits += [(r.chapter["id"], r.notebook.path, "notebook") for r in reports
                     if r.notebook is not None and r.notebook.failing]
        if hits:
            listed = ", ".join(f"{ch}:{cid} ({v})" for ch, cid, v in hits)
            notebooks = sum(v == "notebook" for _, _, v in hits)
            counted = f"{len(hits) - notebooks} claim(s)" + (f", {notebooks} notebook(s)" if notebooks else "")
            err.print(f"[red]--fail-on {','.join(sorted(args.fail_on))}:[/red] {counted}: {_esc(listed)}",
                      highlight=False)
            return EXIT_FAIL_ON
    return status


def _write_all(args, audited, chapters, book, select, folder, status, reports, out, err, cached: bool) -> int:
    """Write every audited chapter's reports (adding each written one to ``reports``) and the book index; return
    the exit status so far. ``cached``: reports already in place are left there (``audit.run.rendered``)."""
    from rich.table import Table

    from audit.run.rendered import RenderedReports

    from audit.report.writer import write_chapter_reports, write_index
    from audit.run.audit import add_book_findings

    snapshots = {c.identity.id: c.snapshot for c in chapters}
    registers = {c.identity.id: c.claims_path for c in chapters}
    for report in audited:
        base = str(report.chapter["id"])
        try:
            add_book_findings(report, book)
        except Exception as exc:
            err.print(f"[red]internal error[/red] while adding book findings to {base}: {_esc(_brief(exc))}",
                      highlight=False)
            status = EXIT_INTERNAL
        previous = args.reports / f"{base}.json"  # the chapter's own report, also for a partial audit
        chosen = [c.id for c in report.claims] if select is not None else None
        if previous.exists() and not args.quiet:
            from audit.report.diff import diff_reports
            try:
                before = _read_report(previous)
                if chosen is not None:  # compare only the claims audited
                    before["claims"] = [c for c in before["claims"] if c["id"] in select]
                change = diff_reports(before, report.model_dump(mode="json"))
                if chosen is not None:
                    change.chapter = f"{change.chapter} (claims {', '.join(chosen)})"
                out.print(_plain("\n".join(change.lines())), highlight=False, markup=False)
            except AuditError as exc:
                err.print(f"[yellow]note:[/yellow] previous report not compared: {_esc(exc)}", highlight=False)
        try:
            written = write_chapter_reports(report, snapshots[base].text, folder, claims=chosen,
                                            register_text=_register_text(registers[base]), manuscript=snapshots[base],
                                            rendered=RenderedReports(enabled=cached))
        except AuditError as exc:
            err.print(f"[red]error:[/red] {_esc(exc)}", highlight=False)
            status = max(status, EXIT_INPUT)
            continue
        except Exception as exc:
            err.print(f"[red]internal error[/red] while writing the reports of {base}: {_esc(_brief(exc))} (please "
                      "report this)", highlight=False)
            status = EXIT_INTERNAL
            continue
        reports.append(report)
        if not args.quiet:
            table = Table(title=f"{report.chapter['id']}: {len(report.claims)} claims", title_justify="left")
            for col in ("verdict", "claims", "ids"):
                table.add_column(col)
            for verdict, count in report.summary.items():
                if count:
                    ids = [c.id for c in report.claims if c.verdict == verdict]
                    table.add_row(verdict, str(count), ", ".join(ids) if verdict != "supported" else "")
            out.print(table)
        for path in written:
            unchanged = path.endswith(" (unchanged)")  # already in place, byte for byte (audit.run.rendered)
            out.print(f"unchanged {path.removesuffix(' (unchanged)')}" if unchanged else f"wrote {path}",
                      highlight=False)
    if audited and select is None:  # the book index lists whole chapters only
        try:
            index = write_index(args.reports)
            if not args.quiet:
                out.print("\n".join(f"wrote {path}" for path in index), highlight=False)
        except AuditError as exc:
            err.print(f"[red]error:[/red] {_esc(exc)}", highlight=False)
            status = max(status, EXIT_INPUT)
    return status


def _stop_workers() -> None:
    """End the reference and chart workers now (their exit handlers would otherwise do it while the interpreter
    shuts down, where an interrupt can only be printed as ignored)."""
    for module in ("audit.evaluation.references.worker", "audit.report.chart_worker"):
        loaded = sys.modules.get(module)
        if loaded is not None:
            loaded._stop_all()


def _interrupted_at_exit(signum, frame) -> None:
    """SIGINT after the command's work is done, while the interpreter shuts down: say so and end with
    ``EXIT_INTERNAL`` (the reports written are complete; the workers end when their pipes close)."""
    try:
        sys.stdout.flush()
    except Exception:
        pass
    os.write(2, b"interrupted while finishing; reports already written are complete\n")
    os._exit(EXIT_INTERNAL)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; ``argv`` None reads ``sys.argv`` and means this is the program (``audit``): its
    workers are then ended before returning, and a Ctrl-C while the interpreter shuts down ends it with
    ``EXIT_INTERNAL``, not with exit 0 and an ignored ``KeyboardInterrupt``."""
    program = argv is None
    try:
        return _main(argv, program)
    finally:
        if program:
            _finishing()


def _finishing() -> None:
    """From now on a SIGINT ends the program at once with ``EXIT_INTERNAL`` (``_interrupted_at_exit``)."""
    import signal
    try:
        signal.signal(signal.SIGINT, _interrupted_at_exit)
    except ValueError:  # not the main thread
        pass


def _main(argv: list[str] | None, program: bool) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        from audit.evaluation.processes import memory_limit_mb
        memory_limit_mb()  # a malformed CHAPTER_AUDIT_WORKER_MEMORY_MB stops here, before any work
        code = _command(args)
        if program:
            _finishing()
            _stop_workers()
        return code
    except AuditError as exc:
        print(f"error: {_plain(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("interrupted; reports already written are complete", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception as exc:  # never a traceback; never exit 1, which means --fail-on
        print(f"internal error: {_plain(_brief(exc))} (please report this)", file=sys.stderr)
        return EXIT_INTERNAL


def _command(args) -> int:
    if args.command == "run":
        return run(args)
    if args.command == "diff":
        return diff(args)
    if args.command == "init":
        return init(args)
    if args.command == "crosscheck":
        return crosscheck(args)
    if args.command == "schema":
        return schema(args)
    if args.command == "accept":
        return accept(args)
    return EXIT_USAGE


def accept(args) -> int:
    """``audit accept``: each chapter's audited revision recorded as accepted (``audit.run.accept``)."""
    from audit.run.accept import accept as record
    for folder in args.chapters:
        computed, before, written = record(folder, args.reports)
        if not written:
            print(f"{folder}: the recorded fingerprint is already this text's ({computed[:12]}…); nothing to accept")
            continue
        print(f"{folder}: accepted revision {computed[:12]}…" + (f" (was {before[:12]}…)" if before else "")
              + "; recorded in " + " and ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
