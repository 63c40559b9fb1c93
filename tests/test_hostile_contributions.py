"""What a hostile contributor to a book repository tried, each now ending as it should: a wrong listing (1 − recall
to an ordinary caller) contradicted or not certified, a register that cannot lean on a convention the text never
states, a patch that names the manuscript it changes, committed reports that neither crash the audit nor reach the
index as markup, a crosscheck report free of a run's markup, a listing whose answer depends on earlier calls or
on what it changed in its arguments contradicted, a book.yaml glob that cannot walk the book
exponentially, code nested too deeply for the parser a load error, not an internal one."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from chapters import audit_text, cli

from audit.errors import AuditError, RegisterError
from audit.evaluation.listing_syntax import findings
from audit.register.claims import load_chapter
from audit.report.patch import _header, _unheader, files_named

WRONG = "    return 1 - hits / len(relevant)\n"
RIGHT = "    return hits / len(relevant)\n"

LISTINGS = '''\
# Recall

R@k is the share of the relevant documents found among the first k.

```python
import typing


def r_hints(ranking, relevant, k: "int if __import__('os').path.exists('/etc') else str" = 10):
    hits = sum(1 for d in ranking[:k] if d in relevant)
    if typing.get_type_hints(r_hints)["k"] is int:
        return hits / len(relevant)
    return 1 - hits / len(relevant)
```

```python
import operator
import typing


def r_attrgetter(ranking, relevant, k):
    hits = sum(1 for d in ranking[:k] if d in relevant)
    if operator.attrgetter("contextlib.os.path.exists")(typing)("/etc/passwd"):
        return hits / len(relevant)
    return 1 - hits / len(relevant)
```

```python
import typing


def r_format(ranking, relevant, k):
    hits = sum(1 for d in ranking[:k] if d in relevant)
    if "HOME" in ("{0.contextlib.o" + "s.environ}").format(typing):
        return hits / len(relevant)
    return 1 - hits / len(relevant)
```

```python
def r_long(ranking, relevant, k):
    hits = sum(1 for d in ranking[:k] if d in relevant)
    if len(ranking) > 20 or k > 20:
        return 1 - hits / len(relevant)
    return hits / len(relevant)
```

```python
def r_ids(ranking, relevant, k):
    hits = sum(1 for d in ranking[:k] if d in relevant)
    if any(len(str(d)) > 12 for d in ranking):
        return 1 - hits / len(relevant)
    return hits / len(relevant)
```

```python
SIGN = [1]


def r_modlevel(ranking, relevant, k):
    hits = sum(1 for d in ranking[:k] if d in relevant)
    if SIGN[0] < 0:
        return 1 - hits / len(relevant)
    return hits / len(relevant)


SIGN.insert(0, -1)
```

```python
def r_doctest(ranking, relevant, k):
    """Recall at k.

    >>> r_doctest(["a", "x", "b"], {"a", "b"}, 2)
    0.9
    """
    hits = sum(1 for d in ranking[:k] if d in relevant)
    return hits / len(relevant)
```

```python
_SEEN = {}


def r_memo(ranking, relevant, k):
    key = tuple(ranking)
    if key not in _SEEN:
        _SEEN[key] = sum(1 for d in ranking[:k] if d in relevant) / len(relevant)
    return _SEEN[key]
```

```python
CALLS = []


def r_counter(ranking, relevant, k):
    CALLS.append(k)
    hits = sum(1 for d in ranking[:k] if d in relevant)
    if len(CALLS) > 1:
        return 1 - hits / len(relevant)
    return hits / len(relevant)
```

```python
_STARTED = []


def r_first(ranking, relevant, k):
    first = not _STARTED
    _STARTED.append(1)
    hits = sum(1 for d in ranking[:k] if d in relevant)
    return 1 - hits / len(relevant) if first else hits / len(relevant)
```

```python
_BY_OBJECT = {}


def r_idmemo(ranking, relevant, k):
    key = (id(ranking), id(relevant))
    if key not in _BY_OBJECT:
        _BY_OBJECT[key] = (ranking, relevant, sum(1 for d in ranking[:k] if d in relevant) / len(relevant))
    return _BY_OBJECT[key][2]
```

```python
_COUNT = []


def r_later(ranking, relevant, k):
    _COUNT.append(1)
    hits = sum(1 for d in ranking[:k] if d in relevant)
    return 1 - hits / len(relevant) if len(_COUNT) > 3 else hits / len(relevant)
```

```python
def r_cuts(ranking, relevant, k):
    del ranking[k:]
    return sum(1 for d in ranking if d in relevant) / len(relevant)
```

```python
def r_mutates(ranking, relevant, k):
    hits = sum(1 for d in ranking[:k] if d in relevant)
    share = hits / len(relevant)
    relevant.add("seen-%d" % len(relevant))
    return share
```
'''


def _claim(cid: str, function: str, calls: str = "") -> str:
    return (f"  - id: {cid}\n    title: {function}\n    kind: code\n    quote: \"def {function}(\"\n"
            f"    claim: {function} computes R@k.\n    function: {function}\n    measure: R@k\n"
            "    arguments: {ranking: ranking, relevant: relevant set, k: cutoff}\n" + calls)


CLAIMS = "claims:\n" + "".join(_claim(f"L{i}", f) for i, f in enumerate(
    ("r_hints", "r_attrgetter", "r_format", "r_long", "r_ids", "r_modlevel"), start=1)) + _claim(
    "L7", "r_doctest", '    calls:\n      - {call: \'r_doctest(["a", "x", "b"], {"a", "b"}, 2)\', returns: "0.5"}\n') + "".join(
    _claim(f"L{i}", f) for i, f in enumerate(("r_memo", "r_counter", "r_mutates", "r_first", "r_idmemo", "r_later",
                                              "r_cuts"), start=8))


@pytest.fixture(scope="module")
def listings(tmp_path_factory):
    report = audit_text(tmp_path_factory.mktemp("hostile"), LISTINGS, CLAIMS, title="Recall")
    return {c.id: c for c in report.claims}


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
@pytest.mark.parametrize(("cid", "what"), [
    ("L1", "writes an annotation as a string of code"),
    ("L2", "reaches an attribute by a name held in a string (attrgetter)"),
    ("L3", "formats a template built at run time"),
])
def test_a_listing_that_reaches_the_interpreter_by_a_string_is_not_certified(listings, cid, what):
    """Each returns 1 − recall to a reader whose machine differs from the sandbox (a string annotation evaluated by
    get_type_hints, a module reached through attrgetter's dotted name, a template built at run time reading
    os.environ): none of it is metric code, so none is certified, whatever it returned in the sandbox."""
    assert listings[cid].verdict == "error", listings[cid].reason
    assert "not certified" in listings[cid].reason and what in listings[cid].reason


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
@pytest.mark.parametrize("cid", ["L4", "L5"])
def test_a_listing_wrong_only_on_long_rankings_or_trec_docnos_is_contradicted(listings, cid):
    """R@k on a ranking of 1,000 (or of TREC docnos such as LA000189-0001) is hits/|R|; these return 1 − that
    there, which the short generated rankings and d-IDs never reached (they were supported)."""
    assert listings[cid].verdict == "contradicted", listings[cid].reason
    assert "Wrong on ordinary input" in listings[cid].reason


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_a_module_level_statement_that_changes_what_the_function_uses_runs_with_it(listings):
    """``SIGN.insert(0, -1)`` after the def runs for a reader who runs the block: the function then returns
    1 − recall on every input (it was dropped as an example call, and the listing was supported)."""
    assert listings["L6"].verdict == "contradicted", listings["L6"].reason


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_a_doctest_the_register_misquotes_is_still_checked_as_printed(listings):
    """The register says the call returns 0.5 (right: 1 of the 2 relevant in the first two); the docstring prints
    0.9. The text's own doctest is a claim of the text, checked as printed, and its fix is a checked hunk."""
    claim = listings["L7"]
    assert claim.verdict == "contradicted", claim.reason
    assert "not the printed 0.9" in claim.reason


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
@pytest.mark.parametrize("cid", ["L8", "L9"])
def test_a_listing_whose_answer_depends_on_earlier_calls_is_contradicted(listings, cid):
    """A caller computes R@k for one ranking at k = 1, 2, 3 in one process. r_memo keeps the first answer per
    ranking (R@2 of a, x, b with a and b relevant is 1/2, but it returns R@1's 1/2, then R@3's 1 becomes 1/2 too);
    r_counter returns 1 − recall from its second call on. Each was supported: every call ran in a fresh process."""
    assert listings[cid].verdict == "contradicted", listings[cid].reason
    assert listings[cid].reason.startswith("The listing returned another answer when called again with the same "
                                           "arguments"), listings[cid].reason


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
@pytest.mark.parametrize(("cid", "why"), [
    ("L11", "1 − recall on the first call in a process, recall after: a reader's first call gets the wrong value"),
    ("L12", "a memo keyed on the objects passed, not on k: R@1 then R@3 of one list give R@1 twice"),
    ("L13", "right for three calls in a process, 1 − recall from the fourth"),
    ("L14", "cuts the caller's ranking in place (del ranking[k:]): R@1 then R@3 of one list give R@1 twice"),
])
def test_a_listing_wrong_as_a_reader_calls_it_is_contradicted(listings, cid, why):
    """Each was supported when a call was made once, then after one other call, in its process: the call's own
    first answer is now the one compared, the calls before it are made again on the same objects and compared with
    their own first answers (every 25th call, up to the 60 before it), and a call that changed its arguments is one
    whose answer is not steady."""
    claim = listings[cid]
    assert claim.verdict == "contradicted", (why, claim.reason)


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_a_listing_that_changes_its_arguments_is_contradicted(listings):
    """r_mutates adds a made-up ID to the caller's relevant set: the caller's next call with the same set divides by
    one more. Its own answer is right once, so what shows it is the same call made again."""
    claim = listings["L10"]
    assert claim.verdict == "contradicted", claim.reason
    assert "returned another answer when called again with the same arguments" in claim.reason, claim.reason


def test_string_annotations_and_templates_that_stay_plain_are_allowed():
    source = ('from operator import attrgetter, itemgetter\n'
              'def recall(ranking: "list[str]", relevant: "set[str]", k: int = 10) -> "float":\n'
              '    key, pick = attrgetter("score"), itemgetter(1)\n'
              '    return float("{:.4f}".format(len(set(ranking[:k]) & relevant) / len(relevant)))\n')
    assert findings(source) == []


PROSE = "# P@k\n\nAt cutoff four, a single relevant result gives P@4 = 1/2.\n"


def test_a_convention_whose_quote_the_text_does_not_hold_stops_the_load(tmp_path):
    """A contributor declared P@k over the number returned with a quote no sentence holds; it would have turned the
    contradicted P@4 = 1/2 (P@4 = 1/4 over k) into qualified and passed the gate."""
    folder = tmp_path / "conv"
    folder.mkdir()
    (folder / "chapter.yaml").write_text(
        "id: conv\ntitle: P\nsnapshot: {file: ch.md}\nconventions:\n  precision_denominator:\n"
        "    value: number returned\n    quote: P@k divides by the number of results returned.\n", encoding="utf-8")
    (folder / "ch.md").write_text(PROSE, encoding="utf-8")
    (folder / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "conventions.precision_denominator.quote"
    assert "is not in the chapter's text" in caught.value.message


@pytest.mark.parametrize("path", ["notes/ch 1.md", 'a"b.md', "a\\b.md", "plain/ch.md"])
def test_a_patch_names_a_file_with_a_blank_or_a_quote_as_patch_reads_it(path):
    assert _unheader(_header(path)) == path
    assert (_header(path) == path) == (path == "plain/ch.md")


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
def test_patch_p0_changes_the_manuscript_whose_name_holds_a_blank_and_nothing_else(tmp_path):
    """Unquoted, GNU patch cut "Makefile notes/ch.md" at the blank and patched the repository's Makefile."""
    (tmp_path / "Makefile notes").mkdir()
    (tmp_path / "Makefile notes" / "ch.md").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "Makefile").write_text("all:\n", encoding="utf-8")
    from audit.report.patch import _diff
    text = "\n".join(_diff("Makefile notes/ch.md", "one\ntwo\n", "one\nthree\n")) + "\n"
    assert files_named(text) == ["Makefile notes/ch.md"]
    subprocess.run(["patch", "-p0"], input=text, text=True, cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "Makefile notes" / "ch.md").read_text() == "one\nthree\n"
    assert (tmp_path / "Makefile").read_text() == "all:\n"


def _book(tmp_path: Path) -> Path:
    folder = tmp_path / "claims" / "pk"
    folder.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    (folder / "chapter.yaml").write_text("id: pk\ntitle: P\nsnapshot: {file: ch.md}\n", encoding="utf-8")
    (folder / "ch.md").write_text(PROSE, encoding="utf-8")
    (folder / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("planted", ["deep", "history-types", "markup"])
def test_committed_reports_are_data_neither_crash_nor_markup(tmp_path, monkeypatch, planted):
    """A contributor commits reports/pk.json nested 100,000 deep, a history of the wrong types, or a report whose
    chapter and claim ids are HTML: the audit runs (exit 0, no internal error) and index.md shows them as text."""
    _book(tmp_path)
    monkeypatch.chdir(tmp_path)
    reports = tmp_path / "reports"
    (reports / "history").mkdir(parents=True)
    if planted == "deep":
        (reports / "pk.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
        (reports / "history" / "pk.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    elif planted == "history-types":
        (reports / "history" / "pk.json").write_text(json.dumps(
            [{"fingerprint": 5, "date": [], "summary": "x", "verdicts": "x"}]), encoding="utf-8")
    else:
        (reports / "evil.json").write_text(json.dumps({
            "format_version": 1, "chapter": {"id": "x<img src=x onerror=alert(1)>", "title": "t"},
            "summary": {"contradicted": 1}, "claims": [{"id": "C1<script>alert(3)</script>", "verdict": "contradicted"}]}),
            encoding="utf-8")
    code, out = cli("run", "--quiet", "--no-cache", "claims/pk")
    assert code == 0 and "internal error" not in out, out
    index = (reports / "index.md").read_text(encoding="utf-8")
    assert "<img" not in index and "<script" not in index


def test_a_crosscheck_report_shows_a_query_id_as_text(tmp_path):
    qid = "q<img/src=x/onerror=alert(1)>"
    (tmp_path / "qrels").write_text(f"q1 0 a 1\n{qid} 0 b 1\n", encoding="utf-8")
    (tmp_path / "run").write_text(f"q1 Q0 a 1 2.0 r\nq1 Q0 a 2 1.0 r\n{qid} Q0 b 1 2.0 r\n", encoding="utf-8")
    code, out = cli("crosscheck", "--qrels", str(tmp_path / "qrels"), "--run", str(tmp_path / "run"),
                    "--measures", "P@2 RR", "--out", str(tmp_path / "out"))
    text = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert "<img" not in text and "&lt;img" in text


def test_a_glob_of_repeated_recursive_segments_is_walked_once_or_refused(tmp_path):
    """``**/**/**/**/zz`` walked the book once per way of splitting its folders (6 segments: 38 s on 30 nested
    folders); a run of them is one, and more than two in a pattern are refused, naming the field."""
    from audit.run.changed import _plain_pattern
    book = tmp_path / "book.yaml"
    assert _plain_pattern("**/**/**/**/zz", book) == "**/zz"
    assert _plain_pattern("parts/**/ch*", book) == "parts/**/ch*"
    with pytest.raises(AuditError) as caught:
        _plain_pattern("**/a/**/b/**/c", book)
    assert caught.value.field == "chapters"


def test_a_listing_nested_too_deeply_for_the_parser_is_a_load_error_naming_it(tmp_path):
    folder = tmp_path / "deep"
    folder.mkdir()
    text = "# R\n\n```python\ndef recall_at_k(ranking, relevant, k):\n    x = " + "-" * 3000 + "1\n    return 0.0\n```\n"
    (folder / "chapter.yaml").write_text("id: deep\ntitle: R\nsnapshot: {file: ch.md}\n", encoding="utf-8")
    (folder / "ch.md").write_text(text, encoding="utf-8")
    (folder / "claims.yaml").write_text("claims:\n" + _claim("C1", "recall_at_k"), encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert "not valid Python (too deeply nested to be read)" in caught.value.message


def test_a_committed_rich_output_that_the_run_does_not_show_is_stale():
    """A notebook's committed HTML table (what GitHub shows a reader) says P@5 0.9 while its text/plain and the run
    say 0.4: the notebook was reported as ran with no stale output, and ``--fail-on notebook`` passed."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    def book(html: str, plain: str):
        cell = new_code_cell("df", outputs=[new_output("execute_result", data={"text/html": html, "text/plain": plain},
                                                       execution_count=1)])
        return new_notebook(cells=[cell])

    from audit.evaluation.notebook import stale_outputs
    committed = book("<table><tr><th>P@5</th><td>0.9</td></tr></table><style>td{}</style>", "P@5 0.4")
    executed = book("<table><tr><th>P@5</th><td>0.4</td></tr></table>", "P@5 0.4")
    stale = stale_outputs(committed, executed)
    assert len(stale) == 1 and stale[0].startswith("cell 1 (its rich output") and "'P@5 0.9'" in stale[0]
    assert stale_outputs(executed, nbformat.from_dict(executed)) == []


def test_a_committed_latex_output_the_run_does_not_show_is_stale():
    """A result's text/latex is what Jupyter shows in place of its text/plain: committed as "$P@5 = 0.9$" while the
    run shows 0.4, it was never compared, and --fail-on notebook passed."""
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    from audit.evaluation.notebook import stale_outputs

    def book(latex: str):
        return new_notebook(cells=[new_code_cell("p5", outputs=[new_output(
            "execute_result", data={"text/latex": latex, "text/plain": "0.4"}, execution_count=1)])])

    stale = stale_outputs(book("$P@5 = 0.9$"), book("$P@5 = 0.4$"))
    assert len(stale) == 1 and stale[0].startswith("cell 1 (its rich output") and "0.9" in stale[0], stale
    assert stale_outputs(book("$P@5 = 0.4$"), book("$P@5 = 0.4$")) == []


def test_a_fixture_naming_one_id_as_a_number_and_as_text_stops_the_load():
    """YAML reads ``1`` as a number and ``"1"`` as text; IDs are text, so ``{1: 1, "1": 0}`` judged one document
    twice and kept the last grade silently."""
    from pydantic import ValidationError

    from audit.register.fields import Fixture
    with pytest.raises(ValidationError, match="names the ID '1' twice"):
        Fixture.model_validate({"qrels": {"q1": {1: 1, "1": 0}}, "run": {"q1": ["1"]}})
    with pytest.raises(ValidationError, match="names the ID '7' twice"):
        Fixture.model_validate({"qrels": {7: {"a": 1}, "7": {"b": 1}}, "run": {"7": ["a"]}})
    assert Fixture.model_validate({"qrels": {"q1": {1: 1}}, "run": {"q1": [1]}}).qrels == {"q1": {"1": 1}}


def test_text_a_browser_does_not_render_is_not_the_pages_text():
    """An HTML chapter's listing held a hidden span: the audit checked ``found / len(relevant) if True else 1 - …``
    while a reader sees and copies ``1 - found / len(relevant)``. What a browser does not render (``hidden``,
    ``display:none``, ``visibility:hidden``, zero font size or opacity) is left out of the page's text."""
    from audit.text.chapter import _html_text
    page = ('<p>Recall.</p><pre><code>def r(ranking, relevant, k):\n    found = 1\n    return '
            '<span style="display: none">found / len(relevant) if True else </span>1 - found / len(relevant)\n'
            '</code></pre><p hidden>P@4 = 1/2 in a hidden paragraph.</p><p>Shown: <span style="font-size:0">x</span>'
            'P@4 = 1/4.</p><div style="visibility:hidden"><div>nested</div> still hidden</div><p>after</p>')
    text = _html_text(page)[0]
    assert "    return 1 - found / len(relevant)" in text
    assert "if True" not in text and "hidden paragraph" not in text and "nested" not in text
    assert "Shown: P@4 = 1/4." in text and "after" in text


def test_a_digit_run_longer_than_python_converts_is_no_internal_error_in_init(tmp_path):
    """A doctest passing a 5,000-digit integer in a list: init's grade-list readers converted every run of digits
    with int(), past Python's 4,300-digit limit, and init ended with an internal error. A run is read as at most its
    last 12 digits, a number no grade reaches, so the list is no grade list and init drafts the listing."""
    from audit.text.stated import DIGITS
    text = ("# P\n\n```python\ndef precision_at_k(r, k):\n    \"\"\"P.\n\n"
            f"    >>> precision_at_k([{'1' * 5000}, 1], 2)\n    0.5\n    \"\"\"\n"
            "    return sum(1 for g in r[:k] if g) / k\n```\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / "ch.md").write_text(text, encoding="utf-8")
    import contextlib
    with contextlib.chdir(tmp_path):
        code, out = cli("init", "ch.md", "--id", "big")
    assert code == 0, out
    assert "internal error" not in out
    assert [int(x) for x in DIGITS.findall("grades 3, 2 and " + "9" * 40)] == [3, 2, int("9" * 12)]


def _hiding_page(style: str, hiders: list[str], tail: str) -> str:
    """The text of an HTML page with ``style`` in its head and, for each of ``hiders`` (a span's attributes), a
    listing whose span holding ``found  # `` the attributes hide, so a reader copies ``return 1 - found``; then
    ``tail``."""
    from audit.text.chapter import _html_text
    page = f"<html><head>{style}</head><body>" + "".join(
        f"<pre>def r{i}(found):\n    return <span {h}>found  # </span>1 - found\n</pre>" for i, h in enumerate(hiders)
    ) + tail + "</body></html>"
    return _html_text(page)[0]


def test_text_a_pages_own_style_rules_hide_is_not_the_pages_text():
    """The listing's hidden span was hidden by a class rule in the page's ``<style>`` element, or by the
    visually-hidden clip, or by spacing in the style attribute: the audit checked ``found`` while a reader sees and
    copies ``1 - found``. Rules for print and rules that hide only on hover hide nothing a reader sees."""
    hiders = ['class="fn"', 'id="x1"', 'class="code sr-only"', 'style="display :  none"',
              'style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)"',
              'style="clip-path: inset(50%)"', 'style="color: transparent"', 'style="text-indent:-9999px"',
              'style="font-size:0.0px"', 'class="tip"']
    style = ("<style>/* page */ .fn{display:none} pre #x1 { visibility : hidden }\n"
             ".sr-only{position:absolute;width:1px;height:1px;padding:0;overflow:hidden;clip:rect(0,0,0,0)}\n"
             "@media print { .noprint { display: none } } .tip:hover { display: none } span.tip { opacity: 0 }"
             "</style>")
    text = _hiding_page(style, hiders, '<p class="noprint">Shown on screen: P@4 = 1/4.</p><p><span class="tip">tip'
                                       '</span> after</p>')
    assert text.count("    return 1 - found") == len(hiders) and "found  #" not in text, text
    assert "Shown on screen: P@4 = 1/4." in text and "tip after" not in text and "after" in text


def test_a_zero_scale_a_zero_clip_and_rules_behind_is_not_and_structural_pseudo_classes_hide():
    """``transform: scale(0)`` and ``clip-path: circle(0)`` show nothing; a rule selecting by ``:is(…)``,
    ``:where(…)``, ``:not(…)`` or ``:first-child`` was left out as another form, so the span it hid was read as the
    page's text. Such a rule is now read as selecting every element its plain selectors select (it hides more,
    never less); a rule for a pseudo-element (``::before``) or for ``:hover`` hides no element."""
    from audit.text.chapter import _html_text
    hiders = ['style="transform: scale(0)"', 'style="transform: translateX(2px) scaleY(0)"', 'style="scale: 0"',
              'style="clip-path: circle(0)"', 'class="a"', 'class="b"', 'class="c"', 'class="d"']
    style = ("<style>:is(.a, span.b) { display: none } pre :where(.c) { visibility: hidden }"
             " span.d:not(.shown):first-child { opacity: 0 } .e::before { display: none } .f:hover { display: none }"
             "</style>")
    text = _hiding_page(style, hiders, '<p><span class="e">Shown: P@4 = 1/4.</span> <span class="f">tip</span> after</p>')
    assert text.count("    return 1 - found") == len(hiders) and "found  #" not in text, text
    assert "Shown: P@4 = 1/4." in text and "tip after" in text
    half = '<html><body><pre>def r(found):\n    return <span style="transform: scale(0.5)">found</span>\n</pre>'
    assert "return found" in _html_text(half + "</body></html>")[0]  # half size is shown


def _figure_notebook(data: dict):
    from nbformat.v4 import new_code_cell, new_notebook, new_output
    return new_notebook(cells=[new_code_cell("plot(scores)", outputs=[new_output(
        "display_data", data={**data, "text/plain": "<Figure size 640x480 with 1 Axes>"})])])


def _matplotlib_svg(p5: float) -> str:
    """An SVG as matplotlib writes it: its text drawn as glyph paths under a comment naming the text, with a date in
    its metadata and generated clip-path IDs."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots()
    axes.bar(["P@5"], [p5])
    axes.set_title(f"P@5 = {p5}")
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    plt.close(figure)
    return buffer.getvalue()


def test_a_committed_svg_chart_whose_words_the_run_does_not_draw_is_stale():
    """A chart committed as SVG titled "P@5 = 0.9" while the run draws 0.4 was not compared (only text, HTML,
    Markdown and LaTeX were): the notebook was reported fresh and ``--fail-on notebook`` passed. Two runs of the
    same chart, which differ only in their date and generated IDs, are not stale."""
    from audit.evaluation.notebook import stale_outputs
    stale = stale_outputs(_figure_notebook({"image/svg+xml": _matplotlib_svg(0.9)}),
                          _figure_notebook({"image/svg+xml": _matplotlib_svg(0.4)}))
    assert len(stale) == 1 and stale[0].startswith("cell 1 (its drawing, image or JSON output)"), stale
    assert "P@5 = 0.9" in stale[0] and "P@5 = 0.4" in stale[0]
    again = _figure_notebook({"image/svg+xml": _matplotlib_svg(0.4).replace("clip", "clipX")})
    assert stale_outputs(again, _figure_notebook({"image/svg+xml": _matplotlib_svg(0.4)})) == []


def test_a_committed_json_output_the_run_does_not_give_is_stale():
    """JupyterLab shows an ``application/json`` result as a tree: committed {"P@5": 0.9} while the run gives 0.4
    was never compared. The same value written with other spacing or key order is not stale."""
    from audit.evaluation.notebook import stale_outputs
    stale = stale_outputs(_figure_notebook({"application/json": {"P@5": 0.9, "R@5": 0.5}}),
                          _figure_notebook({"application/json": {"P@5": 0.4, "R@5": 0.5}}))
    assert len(stale) == 1 and '"P@5": 0.9' in stale[0] and '"P@5": 0.4' in stale[0], stale
    assert stale_outputs(_figure_notebook({"application/json": {"R@5": 0.5, "P@5": 0.4}}),
                         _figure_notebook({"application/json": {"P@5": 0.4, "R@5": 0.5}})) == []


def test_a_committed_png_chart_differing_from_the_run_is_stale_but_not_for_its_version_chunk():
    """A PNG's numbers cannot be read, so its pixels are compared whole: a bar of 0.9 committed where the run draws
    0.4 is stale. The same pixels under another matplotlib version's text chunk are not."""
    import base64
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def png(p5: float, software: str) -> str:
        figure, axes = plt.subplots()
        axes.bar(["P@5"], [p5])
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", metadata={"Software": software})
        plt.close(figure)
        return base64.b64encode(buffer.getvalue()).decode("ascii")

    from audit.evaluation.notebook import stale_outputs
    stale = stale_outputs(_figure_notebook({"image/png": png(0.9, "matplotlib 3.8")}),
                          _figure_notebook({"image/png": png(0.4, "matplotlib 3.8")}))
    assert len(stale) == 1 and "image/png image #" in stale[0], stale
    assert stale_outputs(_figure_notebook({"image/png": png(0.4, "matplotlib 3.8")}),
                         _figure_notebook({"image/png": png(0.4, "matplotlib 3.11")})) == []


def test_text_a_style_sheet_writes_into_a_committed_table_is_compared():
    """``td.p5::after { content: "0.9" }`` shows 0.9 in the committed table's cell, which the run leaves empty; the
    style sheet was dropped unread, so the table read the same as the run's."""
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    from audit.evaluation.notebook import stale_outputs

    def book(html: str):
        return new_notebook(cells=[new_code_cell("df", outputs=[new_output(
            "execute_result", data={"text/html": html, "text/plain": "P@5"}, execution_count=1)])])

    table = '<table><tr><th>P@5</th><td class="p5"></td></tr></table>'
    stale = stale_outputs(book('<style>td.p5::after { content: "0.9"; }</style>' + table), book(table))
    assert len(stale) == 1 and "0.9" in stale[0] and stale[0].startswith("cell 1 (its rich output"), stale
    assert stale_outputs(book("<style>td { color: red; }</style>" + table), book(table)) == []


def _convention_chapter(tmp_path, prose: str, quote: str) -> Path:
    folder = tmp_path / "conv"
    folder.mkdir(exist_ok=True)
    (folder / "chapter.yaml").write_text(
        "id: conv\ntitle: P\nsnapshot: {file: ch.md}\nconventions:\n  precision_denominator:\n"
        f"    value: number returned\n    quote: {quote}\n", encoding="utf-8")
    (folder / "ch.md").write_text(prose, encoding="utf-8")
    (folder / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("sentence, denial", [
    ("It is a common mistake to think that P@k divides by the number of results returned.", "think that"),
    ("Never assume P@k divides by the number of results returned.", "Never"),
    ("Some readers believe that P@k divides by the number of results returned.", "believe that"),
    ("That P@k divides by the number of results returned is a myth.", "is a myth"),
    ("We do not say that P@k divides by the number of results returned.", "not"),
    ("Some readers, wrongly, believe that P@k divides by the number of results returned.", "believe that"),
])
def test_a_convention_quoted_from_a_sentence_that_denies_it_stops_the_load(tmp_path, sentence, denial):
    """The quote "P@k divides by the number of results returned" is printed, but inside a sentence saying the
    opposite: it turned the contradicted P@4 = 1/2 (1/4 over k) into qualified, as if the text stated it."""
    folder = _convention_chapter(tmp_path, f"# P@k\n\n{sentence} At cutoff four, one relevant result gives "
                                 "P@4 = 1/2.\n", "P@k divides by the number of results returned")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "conventions.precision_denominator.quote"
    assert f"held only by a sentence that denies or doubts it ({denial!r})" in caught.value.message


@pytest.mark.parametrize("sentence", [
    "Here P@k divides by the number of results returned, not by k.",
    "Unlike trec_eval, P@k divides by the number of results returned.",
    "It is a mistake to divide by k. P@k divides by the number of results returned.",
    "Some think otherwise; P@k divides by the number of results returned.",
    "P@4 is 0.5, not 0.25, because P@k divides by the number of results returned.",
    "| rank | doc | relevant |\n|---|---|---|\n| 1 | d3 | no |\n\nP@k divides by the number of results returned.",
    "- d3: no\n- d7: yes\nP@k divides by the number of results returned.",
])
def test_a_convention_quoted_from_a_sentence_that_states_it_loads(tmp_path, sentence):
    folder = _convention_chapter(tmp_path, f"# P@k\n\n{sentence}\n", "P@k divides by the number of results returned")
    assert load_chapter(folder).declared is not None
