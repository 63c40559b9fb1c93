"""The chapter's notebook: its run in the notebook sandbox, the numbers its outputs show, its committed outputs
against the re-executed ones, and the numbers claims name as evidence held to the chapter.

The notebook is named by chapter.yaml's ``notebook`` (``Identity.notebook``): a file of the book's repository is
executed by ``audit.evaluation.sandbox.notebook.run_notebook``; a URL is not run (the sandbox has no network) and is
reported UNVERIFIED with that reason. A claim's ``expect[].notebook`` (``"cell 5"`` or ``"cell 5: MRR"``) names the
number the notebook prints for that value; it is held to the chapter's claimed value and the chapter's definitions
(the claim's check, ``checks.common.CHAPTER``), each compared at the notebook's printed precision
(``register.values.parse_claimed``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from audit.evaluation.checks.common import CHAPTER
from audit.register.claims import URL, notebook_path
from audit.model.values import ValueParseError, parse_claimed
from audit.model.results import ClaimResult, NotebookFinding, NotebookNumber, NotebookReport
from audit.text.outputs import media_texts, numbers, output_texts, rich_texts

UNVERIFIED_URL = ("UNVERIFIED: a URL, not run (the audit runs only a notebook in the book's repository, in a sandbox "
                  "without network); name the notebook's file relative to the chapter folder to have it run")


def numbers_in(texts: Sequence[tuple[int, str]]) -> list[NotebookNumber]:
    """The numbers the outputs show, each with its cell and label (``text.outputs.numbers``)."""
    return [NotebookNumber(cell=cell, label=label, value=value, line=line)
            for cell, label, value, line in numbers(texts)]


_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def stale_outputs(committed, executed, last: int | None = None) -> list[str]:
    """Code cells whose committed text outputs differ from the re-executed ones (as nbval compares them: execution
    counts and metadata ignored, memory addresses masked), each as one sentence; cells committed without outputs,
    and cells after ``last`` (where a run stopped), are not compared."""
    out = []
    for texts, shown in ((output_texts, ""), (rich_texts, " (its rich output, as GitHub and Jupyter show it)"),
                         (media_texts, " (its drawing, image or JSON output)")):
        before = dict(texts(committed))
        for cell, now in texts(executed):
            then = before.get(cell, "")
            if not then.strip() or (last is not None and cell > last):
                continue
            if _ADDRESS.sub(" at 0x…", then.strip()) != _ADDRESS.sub(" at 0x…", now.strip()) \
                    and not any(line.startswith(f"cell {cell}:") for line in out):
                out.append(f"cell {cell}{shown}: committed {_short(then)}, re-executed "
                           f"{_short(now) if now.strip() else 'nothing'}")
    return sorted(out, key=lambda line: int(line.split()[1].rstrip(":")))


def _short(text: str) -> str:
    flat = " / ".join(line.strip() for line in text.strip().splitlines())
    return repr(flat if len(flat) <= 120 else flat[:117] + "…")


def _named(link: str, printed: Sequence[NotebookNumber]) -> tuple[int, str, NotebookNumber | None, str]:
    """The number a claim's ``notebook`` link names among those ``printed``: (cell, label, number or None, why not
    found)."""
    cell_text, _, label = link.partition(":")
    cell, label = int(cell_text.split()[1]), label.strip()
    in_cell = [n for n in printed if n.cell == cell]
    if label:
        chosen = [n for n in in_cell if n.label.casefold() == label.casefold()]
        if len(chosen) == 1:
            return cell, label, chosen[0], ""
        return cell, label, None, (f"cell {cell} prints no number labelled {label!r}" if not chosen
                                   else f"cell {cell} prints {len(chosen)} numbers labelled {label!r}")
    if len(in_cell) == 1:
        return cell, label, in_cell[0], ""
    return cell, label, None, (f"cell {cell} prints no number" if not in_cell else
                               f"cell {cell} prints {len(in_cell)} numbers; name one by its label (\"cell {cell}: "
                               f"{in_cell[0].label or 'LABEL'}\")")


def _chapter_value(result: ClaimResult, measure: str) -> Fraction | None:
    for check in result.checks:
        if check.measure == measure:
            for value in check.values:
                if value.implementation == CHAPTER and value.status == "ok" and value.exact:
                    try:
                        return Fraction(value.exact)
                    except (ValueError, ZeroDivisionError):
                        return None
    return None


def hold_to_chapter(report: NotebookReport, claims: Sequence, results: Sequence[ClaimResult]) -> None:
    """Add to ``report`` each claim value whose ``notebook`` link names a number of the run: an agreement when the
    number is the chapter's claimed value and its definitions' value at the notebook's printed precision, else a
    finding saying which differs and what to change. Only the cells a run executed are read; a claim naming a
    cell the run did not reach, or the cell it stopped in when that printed no such number, is left unchecked (the
    run's own failure is the finding)."""
    if report.status in ("unverified", "not run", "error", "too large"):
        return
    by_id = {r.id: r for r in results}
    for claim in claims:
        result = by_id.get(claim.id)
        for expect in getattr(claim, "expect", None) or []:
            link = getattr(expect, "notebook", None)
            if not link or result is None:
                continue
            cell, label, number, missing = _named(link, report.numbers)
            what = f"{expect.measure} ({claim.id})"
            stopped = report.status != "ran" and (report.cell is None or cell > report.cell
                                                  or (cell == report.cell and number is None))
            if stopped:  # a cell the run did not reach, or left before it printed: the stop is the finding
                continue
            if number is None:
                report.findings.append(NotebookFinding(
                    claim=claim.id, cell=cell, fix="link", text=f"{what}: the claim names notebook {link!r} as its "
                    f"evidence, but {missing}; print the value there or correct the claim's notebook link"))
                continue
            try:
                printed = parse_claimed(number.value)
                claimed = parse_claimed(str(expect.claimed))
            except ValueParseError:
                continue
            exact = _chapter_value(result, expect.measure)
            says = claimed.contains(printed.nominal) or printed.contains(claimed.nominal) \
                if claimed.nominal is not None and printed.nominal is not None else False
            notebook_right = printed.contains(exact) if exact is not None else None
            chapter_right = claimed.contains(exact) if exact is not None else None
            shown = f"cell {cell} prints {number.line!r}"
            if says and notebook_right is not False:
                report.agreements.append(f"{what}: {shown}, as the chapter says ({expect.claimed})"
                                         + (" and its definitions give" if notebook_right else ""))
                continue
            if exact is None:
                fix, which = "", "notebook"
            elif notebook_right:
                fix = (f"; the chapter's definitions give {float(exact):.6g}: the notebook is right and the sentence "
                       f"is not (see {claim.id})")
                which = "sentence"
            else:
                fix = (f"; the chapter's definitions give {float(exact):.6g}: correct cell {cell}"
                       + ("" if chapter_right else f" and the sentence (see {claim.id})"))
                which = "notebook" if chapter_right else "both"
            report.findings.append(NotebookFinding(
                claim=claim.id, cell=cell, fix=which,
                text=f"{what}: {shown} where the chapter says {expect.claimed}{fix}"))


def notebook_report(chapter, text: str | None = None) -> NotebookReport | None:
    """The notebook section of ``chapter``'s report (None when chapter.yaml names no notebook): its run in the
    sandbox (``sandbox.notebook.run_notebook``). ``text``: the notebook as already read (else it is read here)."""
    name = chapter.identity.notebook
    if not name:
        return None
    if URL.match(name):
        return NotebookReport(path=name, status="unverified", summary=UNVERIFIED_URL)
    path = notebook_path(chapter.folder, chapter.identity)
    import nbformat

    from audit.evaluation.sandbox.notebook import run_notebook
    text = path.read_text(encoding="utf-8") if text is None else text
    done = run_notebook(text, str(path.parent))
    report = NotebookReport(path=name, status=done.status, summary=done.summary(), cell=done.cell, error=done.error,
                            seconds=done.seconds, kernel=done.kernel, versions=done.versions, isolation=done.isolation)
    report._modules = done.modules
    if done.notebook is not None:
        # cells after the one a run stopped in were not executed: their outputs are the committed ones
        report.numbers = numbers_in([(cell, text) for cell, text in output_texts(done.notebook)
                                     if done.ran or done.cell is None or cell <= done.cell])
        try:
            report.stale = stale_outputs(nbformat.reads(text, as_version=4), done.notebook,
                                         None if done.ran else done.cell)
        except Exception:  # the committed file was read at load; nbformat raises its own errors
            pass
    return report
