"""What a fuzzed run of ``audit run`` or ``audit crosscheck`` must satisfy, checked from outside.

``check_register`` and ``check_trec`` run the CLI in this process (so the reference workers are
started once) and return the problems found, each tagged with its class: ``exit`` (a code
outside {0, 1, 3}), ``traceback``, ``internal`` (an internal error reported, by the CLI or as a
claim's reason), ``hang`` (past ``seconds``), ``vacuous`` ("supported" on a claim that exercises
nothing, or with no value computed), ``report`` (a report file missing or not valid JSON).
A crash of the process itself is caught by the caller (``benchmarks/bench_fuzz.py`` runs this
in a child process).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import time
from pathlib import Path

from generate import Register

from audit.cli import main

ALLOWED_EXITS = {0, 1, 3}


def _run(args: list[str]) -> tuple[int, str, float]:
    err, out = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(args)
    return code, err.getvalue() + out.getvalue(), time.monotonic() - started


def _common(code: int, text: str, elapsed: float, seconds: float, allowed=ALLOWED_EXITS) -> list[tuple[str, str]]:
    problems = []
    if code not in allowed:
        problems.append(("exit", f"exit code {code}: {text[-300:]}"))
    if "Traceback" in text:
        problems.append(("traceback", text[-500:]))
    if "internal error" in text:
        problems.append(("internal", text[-500:]))
    if elapsed > seconds:
        problems.append(("hang", f"{elapsed:.1f} s"))
    return problems


def check_register(reg: Register, root: Path, *, seconds: float = 120.0,
                   tally: dict | None = None) -> list[tuple[str, str]]:
    """Audit ``reg`` (written under ``root``) and return its problems (empty when it behaved);
    ``tally`` (when given) counts the exit code and each claim's verdict."""
    folder = reg.write(root / "claims")
    reports = root / "reports"
    code, text, elapsed = _run(["run", str(folder), "--reports", str(reports), "--quiet", "--fail-on", "contradicted"])
    problems = _common(code, text, elapsed, seconds)
    if tally is not None:
        tally[f"exit {code}"] = tally.get(f"exit {code}", 0) + 1
    written = sorted(reports.glob("*.json")) if reports.is_dir() else []  # the id may be a corrupted one
    path = written[0] if written else reports / f"{reg.chapter_id}.json"
    if code in (0, 1):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return [*problems, ("report", f"{path}: {exc}")]
        for claim in report["claims"]:
            reason = claim.get("reason", "")
            if tally is not None:
                key = f"{claim['kind']}: {claim['verdict']}"
                tally[key] = tally.get(key, 0) + 1
            if "internal error" in reason:
                problems.append(("internal", f"{claim['id']}: {reason[:300]}"))
            if claim["verdict"] != "supported":
                continue
            if claim["id"] in reg.vacuous:
                problems.append(("vacuous", f"{claim['id']} supported although its check exercises nothing"))
            if claim["kind"] == "property":  # evidence is the search: a non-empty universe was searched
                searched = re.search(r"\((\d[\d,]*) cases, (\d[\d,]*) comparisons\)", reason)
                if not searched or "0" in (searched.group(1), searched.group(2)):
                    problems.append(("vacuous", f"{claim['id']} supported without a search: {reason[:200]}"))
                continue
            ok = [v for check in claim.get("checks", []) for v in check.get("values", []) if v.get("status") == "ok"]
            if not ok:
                problems.append(("vacuous", f"{claim['id']} ({claim['kind']}) supported with no value computed"))
    elif path.exists():
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            problems.append(("report", f"{path}: {exc}"))
    return problems


def check_trec(qrels: bytes, run: bytes, root: Path, *, seconds: float = 120.0) -> list[tuple[str, str]]:
    """Cross-check one generated qrels and run; return the problems."""
    q, r = root / "qrels.txt", root / "run.txt"
    q.write_bytes(qrels)
    r.write_bytes(run)
    out = root / "cross"
    code, text, elapsed = _run(["crosscheck", "--qrels", str(q), "--run", str(r), "--measures", "P@2 RR AP nDCG@3",
                                "--out", str(out)])
    problems = _common(code, text, elapsed, seconds, allowed={0, 3})
    if code == 0:
        try:
            json.loads((root / "cross.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problems.append(("report", str(exc)))
    return problems


#: The listing's markup as markup: a raw script element, or its javascript: URL as a link's or image's target. The
#: URL as text (HTML-escaped in a code block, quoted in a sentence) is shown, never followed.
INJECTED = ("<script>alert(1)</script>", 'href="javascript:', "href='javascript:", 'src="javascript:',
            "src='javascript:")


def check_listing(case, root: Path, *, seconds: float = 120.0) -> list[tuple[str, str]]:
    """Audit a generated listing (``generate.listing``) and return its problems: those of every run, plus
    ``forged`` (a verdict its function does not earn: a wrong function supported or qualified, a right one
    anything else) and ``injected`` (the listing's markup raw in the HTML report, or its text unquoted)."""
    folder = case.write(root / "claims")
    reports = root / "reports"
    code, text, elapsed = _run(["run", str(folder), "--reports", str(reports), "--quiet"])
    problems = _common(code, text, elapsed, seconds, allowed={0, 1})
    try:
        report = json.loads((reports / f"{case.chapter_id}.json").read_text(encoding="utf-8"))
        page = (reports / f"{case.chapter_id}.html").read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        return [*problems, ("report", f"{case.label}: {exc}")]
    claim = report["claims"][0]
    if "internal error" in claim.get("reason", ""):
        problems.append(("internal", f"{case.label}: {claim['reason'][:300]}"))
    if claim["verdict"] not in case.allowed:
        problems.append(("forged", f"{case.label}: {claim['verdict']}: {claim.get('reason', '')[:300]}"))
    if any(raw in page.lower() for raw in INJECTED):
        problems.append(("injected", f"{case.label}: listing markup raw in the HTML report"))
    return problems
