"""A book repository is untrusted input: every string from the book (a chapter's title, its book's name, a claim's
title, statement and rewording, a measure name the register misspells) reaches the Markdown report, the HTML report,
the book index, the JSON report and the console as data, never as a heading, a link, an image, HTML, a terminal
escape or a right-to-left reordering.

The attack text below puts a heading on a line of its own, an image and a link, a ``<script>`` and an
``<img onerror>``, a clear-screen and a green "All 12 claims supported" (ANSI escapes), a right-to-left override and
Rich markup into every name of a chapter whose one claim is contradicted (P@4 = 1/3 for one relevant result at rank
2 of four, which is 1/4, as in test_manuscript), so every section of the report is written.
"""

from __future__ import annotations

import json
import re

from audit.cli import main
from audit.report.shown import markdown_safe, markdown_text, visible, visible_lines
from test_manuscript import SENTENCE

ATTACK = ("\n\n# Forged heading\n![pixel](http://tracker.example/p.png) [open](https://phish.example/login) "
          "<script>alert(1)</script> <img src=x onerror=alert(2)> \x1b[2J\x1b[32mAll 12 claims supported\x1b[0m "
          "\u202egnp.exe [green]passed[/green]")


def _chapter(root, register_extra: str = ""):
    (root / ".git").mkdir()
    folder = root / "claims" / "ch01"
    folder.mkdir(parents=True)
    (folder / "snapshot.txt").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    (folder / "chapter.yaml").write_text(
        f"id: ch01\nbook: {json.dumps('Retrieval' + ATTACK)}\nchapter: 1\ntitle: {json.dumps('Precision' + ATTACK)}\n"
        "snapshot:\n  file: snapshot.txt\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(f"""\
fixtures:
  one-at-two:
    qrels: {{q1: {{a: 1, x: 0, y: 0, z: 0}}}}
    run: {{q1: [x, a, y, z]}}
claims:
  - id: M1
    title: {json.dumps('One hit at rank 2' + ATTACK)}
    kind: value
    quote: "One relevant result at rank 2 of four gives P@4 = 1/3."
    claim: {json.dumps('P@4 = 1/3.' + ATTACK)}
    rewording: {json.dumps('P@4 = 1/4.' + ATTACK)}
    fixture: one-at-two
    expect:
      - {{measure: "P@4", claimed: "1/3"}}
{register_extra}""", encoding="utf-8")
    return folder


def _no_markup(text: str, where: str) -> None:
    assert "\x1b" not in text and "\u202e" not in text, where
    assert "<script>alert" not in text and "<img src=x" not in text, where


def _no_markdown_injection(text: str, where: str) -> None:
    _no_markup(text, where)
    assert not re.search(r"(?m)^\s*#+ *Forged heading", text), where
    assert "![pixel](" not in text and "](https://phish" not in text and "](http://tracker" not in text, where
    assert "http://tracker" not in text and "https://phish" not in text, where  # no autolink either


def test_names_from_the_book_are_literal_in_every_report_and_on_the_console(tmp_path, monkeypatch, capsys):
    _chapter(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--no-cache", "claims/ch01"]) == 0
    assert main(["run", "--no-cache", "claims/ch01"]) == 0  # the second run also prints what changed
    reports = tmp_path / "reports"
    report = json.loads((reports / "ch01.json").read_text(encoding="utf-8"))
    assert {c["id"]: c["verdict"] for c in report["claims"]} == {"M1": "contradicted"}
    for name in ("ch01.md", "index.md"):
        text = (reports / name).read_text(encoding="utf-8")
        _no_markdown_injection(text, name)
        assert "Forged heading" in text  # shown, as text, on the line of its name
        assert "␛" in text and "⟨U+202E⟩" in text
    for name in ("ch01.html", "index.html"):
        text = (reports / name).read_text(encoding="utf-8")
        _no_markup(text, name)
        assert "&lt;script&gt;" in text and "␛" in text and "⟨U+202E⟩" in text
    raw = (reports / "ch01.json").read_text(encoding="utf-8")
    assert "\x1b" not in raw and "\u202e" not in raw and "\\u202e" in raw  # escaped in the file, whole in the data
    assert report["claims"][0]["title"] == "One hit at rank 2" + ATTACK
    captured = capsys.readouterr()
    for stream in (captured.out, captured.err):
        assert "\x1b" not in stream and "\u202e" not in stream


def test_a_register_error_shows_the_names_it_quotes_on_the_console(tmp_path, monkeypatch, capsys):
    """A misspelled measure name holding escapes and Rich markup is named in the load error, shown, never sent."""
    folder = _chapter(tmp_path)
    text = (folder / "claims.yaml").read_text(encoding="utf-8")
    (folder / "claims.yaml").write_text(text.replace('measure: "P@4"', 'measure: "P@4\\u001b[2J[green]ok[/green]"'),
                                        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--quiet", "--no-cache", "claims/ch01"]) != 0
    err = capsys.readouterr().err
    assert "claims.yaml" in err and "\x1b" not in err and "Traceback" not in err
    assert "[green]" in err or "\\x1b" in err or "␛" in err  # the name shown as written


def test_each_destination_has_one_function():
    assert visible("a\nb\x1b[2J\u202e") == "a␊b␛[2J⟨U+202E⟩"
    assert markdown_text("# T ![i](http://x.example/i.png) <b>") == \
        "\\# T !\\[i\\](http\\://x.example/i.png) &lt;b>"
    # the audit's own code spans are kept in a sentence it composed; the book's link inside it is not
    assert markdown_safe("run `audit init` on [x](https://a.example)\nnext") == \
        "run `audit init` on \\[x\\](https\\://a.example)␊next"


#: One character of every class ``visible`` treats, among ordinary text: C0 controls (NUL, BEL, ESC, tab, newline,
#: carriage return), DEL, C1 controls (NEL, CSI), the soft hyphen, an Arabic number sign, a zero-width joiner, a
#: byte-order mark, a right-to-left override and a right-to-left isolate, the line and paragraph separators, a lone
#: surrogate, and format characters outside the Basic Multilingual Plane (a tag letter, a musical beam); and
#: characters kept as they are: accented and CJK letters, a mathematical symbol, an emoji, a no-break space.
MIXED = ("é\x00a\x07\x1b[1m\tb\nc\rd\x7fe\x85f\x9bg\u00adh\u0600i\u200dj\ufeffk\u202el\u2067m\u2028n\u2029o"
         "\ud800p\U000E0041q\U0001D173r 中∑😀\u00a0s")


def test_the_table_of_shown_code_points_is_this_pythons_unicode_database():
    """``SHOWN_RUNS`` (read instead of the database, for speed) holds for its version exactly the code points the
    database classifies as shown; a version it lacks reads the database itself."""
    import unicodedata

    from audit.report import shown

    read = shown._read_shown_codes()
    assert shown._shown_codes() == read
    if unicodedata.unidata_version in shown.SHOWN_RUNS:
        assert len(read) == sum(last - first + 1 for first, last in shown.SHOWN_RUNS[unicodedata.unidata_version])
    assert 0x202E in read and 0xE0041 in read and ord("a") not in read and 0xA0 not in read  # RLO, a tag; kept


def test_visible_shows_every_class_of_character_and_keeps_the_rest():
    # Control pictures U+2400 + code for C0 (␀ ␇ ␛ ␉ ␊ ␍), ␡ for DEL, U+FFFD for a lone surrogate, ⟨U+XXXX⟩ for the
    # C1 controls and for every format or separator character, wherever it lies in the code space.
    assert visible(MIXED) == (
        "é␀a␇␛[1m␉b␊c␍d␡e⟨U+0085⟩f⟨U+009B⟩g⟨U+00AD⟩h⟨U+0600⟩i⟨U+200D⟩j⟨U+FEFF⟩k⟨U+202E⟩l⟨U+2067⟩m⟨U+2028⟩n"
        "⟨U+2029⟩o\ufffdp⟨U+E0041⟩q⟨U+1D173⟩r 中∑😀\u00a0s")
    # The same, with the tab and the newline kept (lines shown in a code block or an HTML page).
    assert visible_lines(MIXED) == (
        "é␀a␇␛[1m\tb\nc␍d␡e⟨U+0085⟩f⟨U+009B⟩g⟨U+00AD⟩h⟨U+0600⟩i⟨U+200D⟩j⟨U+FEFF⟩k⟨U+202E⟩l⟨U+2067⟩m⟨U+2028⟩n"
        "⟨U+2029⟩o\ufffdp⟨U+E0041⟩q⟨U+1D173⟩r 中∑😀\u00a0s")
    # A text with nothing to show differently comes back equal; a non-string is shown by its str().
    assert visible("nDCG@10 = 0.6131, P@5 = 3/5") == "nDCG@10 = 0.6131, P@5 = 3/5"
    assert visible(12) == "12" and visible_lines(None) == "None"


def test_book_text_already_literal_is_not_escaped_again_in_an_audit_sentence():
    """A listing's message quoted by the sandbox is already literal (``\\[click\\](javascript:…)``). Escaping its
    brackets a second time gave ``\\\\[``: a literal backslash and a bare bracket, which CommonMark reads as a link."""
    from markdown_it import MarkdownIt
    from audit.evaluation.sandbox.quote import quote
    sentence = "it raises (" + quote("the listing's exception:", "[click](http://evil.example/x)") + ")"
    shown = markdown_safe(sentence)
    assert "\\[click\\](http\\://evil.example/x)" in shown and "\\\\[" not in shown
    tokens = MarkdownIt("commonmark").parse(shown)
    assert not [t for t in tokens[1].children if t.type == "link_open"]
    # brackets after an even number of backslashes (an escaped backslash, then a bare bracket) are still escaped
    assert markdown_safe("a \\\\[b](http://x.example)") == "a \\\\\\[b\\](http\\://x.example)"
    assert not [t for t in MarkdownIt("commonmark").parse(markdown_safe("a \\\\[b](http://x.example)"))[1].children
                if t.type == "link_open"]


def test_a_measure_name_at_a_sentences_end_is_not_taken_for_an_email_address():
    # GFM's extended e-mail autolink needs a domain of non-empty labels with at least one period (GFM spec, 6.9):
    # "Precision@k." ends the sentence with nothing after the period, so it is plain text and is printed as is;
    # "someone@evil.example" and "ndcg@cut.10" are addresses GFM would link, so their @ goes into a code span.
    assert markdown_text("For every k, Precision@k+1 is less than Precision@k.") == (
        "For every k, Precision@k+1 is less than Precision@k.")
    assert markdown_text("P@10. Then RR@k") == "P@10. Then RR@k"
    assert markdown_text("mail someone@evil.example now") == "mail someone`@`evil.example now"
    assert markdown_text("trec_eval's ndcg@cut.10") == "trec_eval's ndcg`@`cut.10"


def test_a_chapter_number_written_as_text_is_literal_in_the_markdown_report(tmp_path, monkeypatch):
    """chapter.yaml's ``chapter`` may be text ("2`3"): its backtick opened a code span in the report's context table
    and its heading, which swallowed the cells after it; it is now literal, as the title is."""
    folder = _chapter(tmp_path)
    yaml = (folder / "chapter.yaml").read_text(encoding="utf-8")
    (folder / "chapter.yaml").write_text(yaml.replace("chapter: 1\n", f"chapter: {json.dumps('2`3' + ATTACK)}\n"),
                                         encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--no-cache", "--quiet", "claims/ch01"]) == 0
    text = (tmp_path / "reports" / "ch01.md").read_text(encoding="utf-8")
    _no_markdown_injection(text, "ch01.md")
    row = next(line for line in text.splitlines() if line.startswith("| chapter |"))
    assert row.startswith("| chapter | 2\\`3"), row
    assert "chapter 2\\`3" in text.splitlines()[0]
