"""The claim cache cannot be forged into a verdict, a report or a crash (audit.run.cache, signing, entries).

Whoever can write the cache folder (a CI cache shared between branches) can write any file there and compute any
key (``claim_key`` is public) or digest. Each case below takes a chapter audited once with a warm cache, changes
the cache as such a writer could, audits again and checks that the run ends as the clean one did (same exit
code, no traceback, no internal error) with byte-identical reports: nothing forged was used. Where the writer
could not even have signed the entry (it has no key), the signature refuses it; the same changes signed with the
installation's key (as a bug or a leaked key could produce) are refused by the checks of what an entry may hold.

The chapter is test_cli's (C1 "1/4" supported, C2 not checkable, C3 "1/3" contradicted), plus a convention claim
whose finding gets a re-checked caveat (test_cache's repeated-ID probe), so the proposal's per-claim re-check and
the reports' patch are exercised too.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from test_cache import REPEATED_ID_CHAPTER, run_cli
from test_cli import CONTRADICTED_CLAIM, NOT_CHECKABLE_CLAIM

from audit.cli import main
from audit.run import cache as cache_module
from audit.run import entries, signing

SNAPSHOT = ("At cutoff four, a single relevant result gives P@4 = 1/4. A draft said P@4 = 1/3. "
            "The evaluator rejects repeated result IDs.\n")


def write_chapter(root: Path) -> Path:
    folder = root / "forged"
    folder.mkdir(parents=True)
    (folder / "chapter.yaml").write_text("id: forged\nbook: Test Book\ntitle: forgery\n"
                                         "conventions: {precision_denominator: k}\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(REPEATED_ID_CHAPTER + CONTRADICTED_CLAIM + NOT_CHECKABLE_CLAIM,
                                        encoding="utf-8")
    return folder


def audit(folder: Path, reports: Path, cache: Path, monkeypatch, *extra: str) -> tuple[int, str]:
    """``audit run`` in this process (its reference workers are started once); exit code and all output."""
    monkeypatch.setenv("CHAPTER_AUDIT_CACHE", str(cache))
    monkeypatch.setenv("COLUMNS", "1000")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["run", str(folder), "--reports", str(reports), "--fail-on", "contradicted", *extra])
    return code, out.getvalue()


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """The chapter, its reports and its cache after a cold audit and a rerun (so every namespace is stored)."""
    root = tmp_path_factory.mktemp("forgery")
    folder = write_chapter(root / "claims")
    mp = pytest.MonkeyPatch()
    try:
        cold = audit(folder, root / "reports", root / "cache", mp)
        again = audit(folder, root / "reports", root / "cache", mp)
    finally:
        mp.undo()
    assert cold[0] == again[0] == 1, cold[1] + again[1]   # C3 contradicted: --fail-on contradicted fails
    return root, folder, files(root / "reports")


@pytest.fixture
def case(warm, tmp_path, monkeypatch):
    """A copy of the warm cache and reports for one test: ``(folder, reports, cache, run)``; ``run()`` audits
    and asserts it ends as the clean run did, with the same reports (``run.clean``). The record of reports written
    (``rendered``) is left out, so every run renders its reports and reads the charts' and research entries."""
    root, folder, clean = warm
    cache, reports = tmp_path / "cache", tmp_path / "reports"
    shutil.copytree(root / "cache", cache, symlinks=True, ignore=lambda where, names:
                    ["rendered"] if Path(where) == root / "cache" else [])
    shutil.copytree(root / "reports", reports)

    def run(expect_same: bool = True) -> str:
        code, text = audit(folder, reports, cache, monkeypatch)
        assert code == 1, text
        assert "Traceback" not in text and "internal error" not in text, text
        if expect_same:
            assert files(reports) == clean
        return text
    run.clean = clean
    return folder, reports, cache, run


# --- entries on disk ---------------------------------------------------------------------------------------------

def entry_files(cache: Path, namespace: str) -> list[Path]:
    return sorted((cache / namespace).rglob("*.entry"))


def read_entry(path: Path) -> tuple[list[bytes], dict]:
    header, body = path.read_bytes().split(b"\n", 1)
    return header.split(b" "), json.loads(body)


def write_entry(path: Path, fields: list[bytes], payload, signed: bool, key: bytes | None = None) -> None:
    """Write ``payload`` as an entry: ``signed`` with the installation's key (as a writer holding it), else with the
    SHA-256 of the payload where the signature goes (as a writer without it recomputes a digest)."""
    body = json.dumps(payload, ensure_ascii=True, allow_nan=True).encode("ascii")
    magic, fmt, namespace, old_key = fields[:4]
    key = key or old_key
    if signed:
        mac = signing.signer(path.parents[2]).mac(magic, fmt, namespace, key, body).encode()
    else:
        mac = hashlib.sha256(body).hexdigest().encode()
    path.write_bytes(b" ".join([magic, fmt, namespace, key, mac]) + b"\n" + body)


def claim_entry(cache: Path, claim_id: str) -> Path:
    for path in entry_files(cache, "claims"):
        if read_entry(path)[1]["result"]["id"] == claim_id:
            return path
    raise AssertionError(f"no entry for {claim_id}")


def forget_claims(cache: Path) -> None:
    """Drop the claims' and research entries, so the next audit computes them and reads what they depend on."""
    for namespace in ("claims", "research"):
        shutil.rmtree(cache / namespace)


# --- forged, planted, damaged and odd entries ----------------------------------------------------------------

@pytest.mark.parametrize("signed", [False, True], ids=["recomputed digest", "signed"])
def test_a_rewritten_verdict_is_not_used(case, signed):
    folder, reports, cache, run = case
    path = claim_entry(cache, "C3")
    fields, payload = read_entry(path)
    result = payload["result"]
    assert result["verdict"] == "contradicted"
    result.update(verdict="supported", reason="forged", priority="none", concern="", response="")
    write_entry(path, fields, payload, signed=False)
    run()   # the gate still fails on C3, and the reports are the clean ones
    if signed:  # a writer with the key could change a verdict; what it can change is only what the model allows
        result.update(verdict="bogus")
        write_entry(path, fields, payload, signed=True)
        run()


def test_an_entry_planted_in_an_empty_cache_is_not_used(case):
    """The key is computed exactly as the audit computes it (``claim_key``), so the planted file is where the audit
    looks: after the run, that very path holds the recomputed result, signed."""
    from audit.attribution.book import Book
    from audit.register.claims import load_chapter
    from audit.model.limits import CLAIM_SECONDS
    from audit.run.provenance import collect
    from audit.text.anchors import anchor_claim

    folder, reports, cache, run = case
    template_fields, template = read_entry(claim_entry(cache, "C3"))
    shutil.rmtree(cache)
    chapter = load_chapter(folder)
    claim = next(c for c in chapter.register.claims if c.id == "C3")
    env = cache_module.environment(collect(["audit"]).versions, CLAIM_SECONDS)
    key = cache_module.claim_key(claim, chapter, anchor_claim(chapter.snapshot, claim), env, Book([chapter]))
    path = cache / "claims" / key[:2] / f"{key}.entry"
    path.parent.mkdir(parents=True)
    template["result"].update(verdict="supported", reason="planted", priority="none")
    write_entry(path, template_fields, template, signed=False, key=key.encode())
    run()
    assert cache_module.ClaimCache(cache / "claims").get(key)[0].verdict == "contradicted"


@pytest.mark.parametrize("signed", [False, True], ids=["recomputed digest", "signed"])
@pytest.mark.parametrize("svg", [
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><g/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><img src="x" onerror="alert(1)"/></foreignObject></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><path style="fill: url(http://evil.example/x)"/></svg>',
], ids=["script", "onload", "foreignObject", "external url"])
def test_a_chart_entry_is_not_put_into_the_page_raw(case, signed, svg):
    folder, reports, cache, run = case
    charts = [p for p in entry_files(cache, "charts") if read_entry(p)[1]["text"]]
    assert charts
    for path in charts:
        fields, payload = read_entry(path)
        payload["text"] = svg
        write_entry(path, fields, payload, signed)
    run()
    page = (reports / "forged.html").read_text(encoding="utf-8")
    assert "alert(1)" not in page and "evil.example" not in page


def test_forged_reference_outcomes_are_not_used(case):
    """C3 claims P@4 = 1/3; outcomes saying each reference computed 1/3 would make them 'agree' with it."""
    folder, reports, cache, run = case
    forget_claims(cache)
    changed = 0
    for path in entry_files(cache, "outcomes"):
        fields, payload = read_entry(path)
        if payload["outcome"]["per_query"] == {"q1": 0.25}:
            payload["outcome"]["per_query"] = {"q1": 1 / 3}
            write_entry(path, fields, payload, signed=False)
            changed += 1
    assert changed
    run()


@pytest.mark.parametrize("signed", [False, True], ids=["recomputed digest", "signed"])
def test_a_nan_per_query_outcome_is_not_used(case, signed):
    folder, reports, cache, run = case
    forget_claims(cache)
    for path in entry_files(cache, "outcomes"):
        fields, payload = read_entry(path)
        payload["outcome"]["per_query"] = {q: float("nan") for q in payload["outcome"]["per_query"]}
        write_entry(path, fields, payload, signed)
    run()   # no claim became an error
    assert json.loads((reports / "forged.json").read_text())["summary"]["error"] == 0


@pytest.mark.parametrize("emptied, signed", [({}, False), ({"withdrawn": "forged"}, False),
                                             ({"text": "", "check": ""}, False), ({}, True),
                                             ({"text": "", "check": ""}, True), ({"text": 1, "check": None}, True)],
                         ids=["empty", "withdrawn", "blank", "empty, signed", "blank, signed", "not text, signed"])
def test_an_emptied_proposal_recheck_does_not_remove_the_patch(case, emptied, signed):
    folder, reports, cache, run = case
    assert (reports / "forged.patch").exists()
    forget_claims(cache)
    rechecks = [p for p in entry_files(cache, "per-claim") if "text" in read_entry(p)[1]["outcome"]]
    assert rechecks
    for path in rechecks:
        fields, payload = read_entry(path)
        payload["outcome"] = emptied
        write_entry(path, fields, payload, signed)
    run()
    assert (reports / "forged.patch").exists()


@pytest.mark.parametrize("forged", [{"others": {"ranx": 7}}, {"others": {"ranx": "no such rule"}},
                                    {"others": {"no_such_library": "keep last"}}, {"others": {}},
                                    {"verdict": "bogus"}, {"verdict": 1}],
                         ids=["rule not text", "unknown rule", "unknown reference", "empty", "verdict unknown",
                              "verdict not text"])
def test_a_signed_forged_departure_or_recheck_changes_nothing(case, forged):
    """The proposal keeps, per claim, what each reference does where it departs from the chapter's rule
    ("departures": ``others``) and the verdict of each re-check; an entry signed with the key but holding what
    this version never writes is recomputed: the same verdicts and patch, no internal error (exit 1, the clean
    run's)."""
    folder, reports, cache, run = case
    patch = (reports / "forged.patch").read_text(encoding="utf-8")
    verdicts = {c["id"]: c["verdict"] for c in json.loads((reports / "forged.json").read_text())["claims"]}
    forget_claims(cache)
    kept = [p for p in entry_files(cache, "per-claim")
            if set(read_entry(p)[1]["outcome"]) == ({"others"} if "others" in forged else {"verdict"})]
    assert kept
    for path in kept:
        fields, payload = read_entry(path)
        payload["outcome"] = forged
        write_entry(path, fields, payload, True)
    text = run()
    assert "please report this" not in text
    assert (reports / "forged.patch").read_text(encoding="utf-8") == patch
    assert {c["id"]: c["verdict"] for c in json.loads((reports / "forged.json").read_text())["claims"]} == verdicts


@pytest.mark.parametrize("namespace", ["claims", "charts", "research", "rendered"])
def test_a_symlinked_cache_folder_redirects_no_read_and_no_write(case, warm, tmp_path, namespace):
    folder, reports, cache, run = case
    if namespace == "rendered":
        shutil.copytree(warm[0] / "cache" / "rendered", cache / "rendered")
    elsewhere = tmp_path / "elsewhere"
    shutil.move(cache / namespace, elsewhere)       # signed entries, but reached through a link
    (cache / namespace).symlink_to(elsewhere, target_is_directory=True)
    before = {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()}
    text = run()
    assert {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()} == before   # nothing written there
    assert "symbolic link" in text   # said, among the cache's warnings


def _bogus_verdict(p):
    p["result"]["verdict"] = "bogus"


def _bogus_conflicts(p):
    p["conflicts"] = [{"bogus": 1}]


def _values(x):
    def change(p):
        for check in p["result"]["checks"]:
            for value in check["values"]:
                if value["value"] is not None:
                    value["value"] = x
    return change


def _nan_interval(p):
    for check in p["result"]["checks"]:
        check["low"], check["high"] = float("nan"), -1.0


def _inverted_interval(p):
    for check in p["result"]["checks"]:
        check["low"], check["high"] = 1.0, 0.0


def _surrogate(p):
    p["result"]["reason"] = "forged \ud800 reason"


CRASHERS = {"verdict bogus": _bogus_verdict, "conflicts [{'bogus': 1}]": _bogus_conflicts,
            "value 1e308": _values(1e308), "value -1e308": _values(-1e308), "NaN low above high": _nan_interval,
            "low above high": _inverted_interval, "lone surrogate in the reason": _surrogate}


@pytest.mark.parametrize("signed", [False, True], ids=["recomputed digest", "signed"])
@pytest.mark.parametrize("name", list(CRASHERS) + ["another claim's entry under the key", "hunk of unknown claim"])
def test_entries_that_crashed_the_audit_are_computed_again(case, name, signed):
    folder, reports, cache, run = case
    if name == "another claim's entry under the key":
        target, source = claim_entry(cache, "C1"), claim_entry(cache, "C3")
        fields, payload = read_entry(source)
        write_entry(target, fields, payload, signed, key=read_entry(target)[0][3])
    elif name == "hunk of unknown claim":
        [path] = entry_files(cache, "research")
        fields, payload = read_entry(path)
        hunks = payload["research"]["proposal"]["hunks"]
        assert hunks
        for hunk in hunks:
            hunk["claim"] = "C99"
        write_entry(path, fields, payload, signed)
    else:
        for claim_id in ("C1", "C3"):
            path = claim_entry(cache, claim_id)
            fields, payload = read_entry(path)
            CRASHERS[name](payload)
            write_entry(path, fields, payload, signed)
    run()


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom", "folder", "oversized", "unsigned"])
def test_odd_files_in_place_of_an_entry(case, kind):
    """A FIFO would make a plain read wait forever, /dev/zero or /dev/urandom never end; each is refused from the
    descriptor's type before anything is read (for these three the audit runs in a child process with a time limit;
    a folder, an oversized file or an unsigned entry cannot block a read, so that audit runs in this process)."""
    folder, reports, cache, run = case
    paths = entry_files(cache, "claims")
    for path in paths:
        path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        elif kind.startswith("/dev/"):
            path.symlink_to(kind)
        elif kind == "folder":
            path.mkdir()
        elif kind == "oversized":
            with open(path, "wb") as handle:
                handle.truncate(cache_module.MAX_CACHE_ENTRY_BYTES + 1)
        else:  # an entry as a writer without the key can make it: no signature at all
            path.write_bytes(b"chapter-audit-cache 2 claims " + path.stem.encode() + b" \n{}")
    if kind not in ("fifo", "/dev/zero", "/dev/urandom"):
        run()   # exit 1, no traceback or internal error, the clean run's reports
        return
    done = run_cli(["run", str(folder), "--reports", str(reports), "--fail-on", "contradicted"], cache)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert files(reports) == run.clean


def test_an_entry_signed_with_another_key_is_computed_again_and_said(case, tmp_path, monkeypatch):
    folder, reports, cache, run = case
    monkeypatch.setenv(signing.KEY_FILE_ENV, str(tmp_path / "another-key"))
    signing.forget()
    try:
        text = run()
    finally:
        signing.forget()
    assert "not used and computed again" in text and "signature" in text
    assert (tmp_path / "another-key").stat().st_mode & 0o777 == 0o600   # made on first use, private


def test_a_full_cache_disk_is_said(case, monkeypatch):
    folder, reports, cache, run = case
    shutil.rmtree(cache)

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(cache_module, "_write_some", full)
    text = run()
    assert "the claim cache could not be written (its disk is full)" in text
    assert not list(cache.rglob("*.entry")) and not list(cache.rglob(".tmp-*"))


# --- the key ----------------------------------------------------------------------------------------------------

@pytest.fixture
def fresh_key(tmp_path, monkeypatch):
    monkeypatch.delenv(signing.KEY_ENV, raising=False)
    path = tmp_path / "state" / "chapter-audit" / "cache-key"
    monkeypatch.setenv(signing.KEY_FILE_ENV, str(path))
    signing.forget()
    yield path
    signing.forget()


def test_the_key_is_made_once_private_and_outside_the_cache(tmp_path, fresh_key):
    signer = signing.signer(tmp_path / "cache")
    assert signer.secret is not None and not signer.problem
    assert fresh_key.stat().st_mode & 0o777 == 0o600 and fresh_key.parent.stat().st_mode & 0o777 == 0o700
    signing.forget()
    assert signing.signer(tmp_path / "cache").secret == signer.secret   # read again, not made again


def test_the_default_key_file_is_in_the_state_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(signing.KEY_FILE_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert signing.key_file() == tmp_path / "chapter-audit" / "cache-key"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert signing.key_file() == Path.home() / ".local" / "state" / "chapter-audit" / "cache-key"


@pytest.mark.parametrize("spoil, says", [
    (lambda p: p.chmod(0o644), "may be read or written by others"),
    (lambda p: (p.unlink(), p.symlink_to("/dev/zero")), "symbolic link"),
    (lambda p: p.write_text("not a key\n"), "does not hold a key"),
], ids=["readable by others", "a symbolic link", "not a key"])
def test_a_key_file_that_must_not_be_trusted_turns_the_cache_off(tmp_path, fresh_key, spoil, says):
    signing.signer(tmp_path / "cache")
    spoil(fresh_key)
    signing.forget()
    signer = signing.signer(tmp_path / "cache")
    assert signer.secret is None and says in signer.problem
    store = cache_module.ClaimCache(tmp_path / "cache" / "claims")
    store.put("ab" + "0" * 62, _a_result())
    assert store.get("ab" + "0" * 62) is None and not (tmp_path / "cache").exists()   # nothing read or written


def test_a_key_file_inside_the_cache_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(signing.KEY_FILE_ENV, str(tmp_path / "cache" / "key"))
    signing.forget()
    try:
        assert "inside the cache folder" in signing.signer(tmp_path / "cache").problem
    finally:
        signing.forget()


def test_a_key_from_the_environment_signs_for_every_job_that_has_it(tmp_path, monkeypatch):
    """CI: the jobs sharing a cache get the key as a secret; a job without it (or with another) reads nothing."""
    folder = tmp_path / "cache" / "claims"
    key = "ab" + "0" * 62
    monkeypatch.setenv(signing.KEY_ENV, "k" * 40)
    signing.forget()
    cache_module.ClaimCache(folder).put(key, _a_result())
    assert cache_module.ClaimCache(folder).get(key)[0] == _a_result()
    monkeypatch.setenv(signing.KEY_ENV, "j" * 40)
    assert cache_module.ClaimCache(folder).get(key) is None
    monkeypatch.setenv(signing.KEY_ENV, "short")
    assert "shorter than 32 characters" in signing.signer(folder.parent).problem
    monkeypatch.delenv(signing.KEY_ENV)
    signing.forget()


def _a_result():
    from audit.model.results import ClaimResult
    return ClaimResult(id="C1", kind="value", title="t", claim="c", quote="q", anchor="found", verdict="supported",
                       reason="r", concern="", response="", priority="none")


# --- what a chart may be ----------------------------------------------------------------------------------------

def test_the_charts_this_version_draws_pass_the_check_and_foreign_ones_do_not():
    from audit.report import charts
    from audit.model.results import Check, ImplValue

    check = Check(label="P@4", measure="P@4", claimed="1/4", low=0.25, high=0.25,
                  values=[ImplValue(implementation="chapter", value=0.25), ImplValue(implementation="ranx", value=0.3)],
                  curves={"P@k": [1.0, 0.5, 1 / 3, 0.25]})
    drawn = [charts._interval_svg(check), charts._curve_svg(check)]
    assert all(text.startswith("<svg") for text in drawn)
    assert all(entries.svg(text) for text in drawn) and entries.svg("")
    chart = drawn[0]
    for forged in (chart.replace("<defs>", "<defs><script>alert(1)</script>", 1),
                   chart.replace("<g ", '<g onclick="alert(1)" ', 1),
                   chart.replace("<svg ", '<!DOCTYPE svg [<!ENTITY x "y">]><svg ', 1),
                   chart.replace('xlink:href="#', 'xlink:href="javascript:alert(1)#', 1),
                   chart.replace("</svg>", '<a href="https://evil.example"><text>x</text></a></svg>'),
                   chart.replace("stroke-linecap: butt", "background: url(https://evil.example/x)"),
                   chart + "<img src=x onerror=alert(1)>", chart.replace("<svg", "<svg><!-- x -->", 1), "<svg"):
        assert not entries.svg(forged), forged[:80]


def test_entry_payloads_are_plain_and_bounded():
    assert entries.plain({"a": [1, 2.5, None, True, "é 日本 🙂"]})
    for bad in (float("nan"), float("inf"), 1e308, "\ud800", {1: 2}, {"a": object()}):
        assert not entries.plain({"a": bad})
    deep: list = []
    for _ in range(100):
        deep = [deep]
    assert not entries.plain({"a": deep})


# --- the command line, cache off -----------------------------------------------------------------------------------

def test_without_a_usable_key_everything_is_computed_and_said(tmp_path, monkeypatch):
    folder = write_chapter(tmp_path / "claims")
    key_dir = tmp_path / "key"
    key_dir.mkdir()
    (key_dir / "cache-key").write_text("0" * 64 + "\n")
    (key_dir / "cache-key").chmod(0o666)
    monkeypatch.setenv(signing.KEY_FILE_ENV, str(key_dir / "cache-key"))
    signing.forget()
    try:
        monkeypatch.setenv("CHAPTER_AUDIT_CACHE", str(tmp_path / "cache"))
        monkeypatch.setenv("COLUMNS", "1000")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(["run", str(folder), "--reports", str(tmp_path / "reports")])
    finally:
        signing.forget()
    assert code == 0, out.getvalue()
    assert "the claim cache is not used" in out.getvalue() and "may be read or written by others" in out.getvalue()
    assert not (tmp_path / "cache" / "claims").exists()


def test_entry_files_are_private(case):
    folder, reports, cache, run = case
    shutil.rmtree(cache)
    run()
    assert all(p.stat().st_mode & 0o077 == 0 for p in cache.rglob("*.entry"))


def test_no_entry_leaves_its_namespace(tmp_path):
    """Every namespace's entries are signed with their namespace: one copied into another is refused."""
    source = cache_module.ClaimCache(tmp_path / "claims")
    key = "ab" + "0" * 62
    source.put(key, _a_result())
    target = tmp_path / "research" / key[:2]
    target.mkdir(parents=True)
    shutil.copy(tmp_path / "claims" / key[:2] / f"{key}.entry", target / f"{key}.entry")
    assert cache_module.ResearchCache(tmp_path / "research").get(key, ["C1"], []) is None


def test_subprocess_runs_keep_their_key(tmp_path):
    """Each ``audit`` process reads the same key file: a second process reuses the first one's entries."""
    folder = write_chapter(tmp_path / "claims")
    args = ["run", str(folder), "--reports", str(tmp_path / "reports")]
    first = run_cli(args, tmp_path / "cache")
    assert first.returncode == 0, first.stderr
    second = run_cli(args, tmp_path / "cache")
    assert "claim cache: 4 of 4 claims reused" in second.stderr, second.stderr
    assert "warning" not in second.stderr


def test_stored_research_with_a_corrected_listing_is_used_and_a_changed_one_is_not(tmp_path, monkeypatch):
    """A chapter whose patch replaces a listing (hunks whose ``old`` spans several lines, at lines the hunks before
    them moved) reuses its stored research sections on a rerun with nothing changed: the shipped course module's
    M14/M15 listing hunks and M17/M18 sentence hunks. The check applies the hunks in order, as patch does; a hunk
    whose lines are not the text's is refused."""
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect
    import audit.research.sections as sections
    root = Path(__file__).resolve().parents[1]
    chapter = load_chapter(root / "claims" / "recall-and-precision")
    cache = cache_module.ClaimCache(tmp_path / "claims")
    first = audit_chapter(chapter, all_references(), collect([]), cache=cache)
    hunks = first.research.proposal.hunks
    assert any("\n" in h.old for h in hunks) and any(h.line != h.snapshot_line for h in hunks)

    def recomputed(*args, **kwargs):
        raise AssertionError("the stored research sections were not used")
    monkeypatch.setattr(sections, "complete", recomputed)
    again = audit_chapter(chapter, all_references(), collect([]), cache=cache)
    assert again.research.proposal.hunks == hunks
    lines = chapter.snapshot.text.splitlines()
    stored = first.research.model_dump(mode="json")
    assert entries.research(stored, [c.id for c in chapter.register.claims], lines) is not None
    moved = ["# an inserted line"] + lines   # every hunk now names lines that are not the text's
    assert entries.research(stored, [c.id for c in chapter.register.claims], moved) is None
