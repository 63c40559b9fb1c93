"""A claim's quote is the chapter's sentence only where a reader of the rendered chapter sees it. Quoted from an
HTML comment, a link reference definition (the ``[//]: # (…)`` comment idiom among them) or a MyST comment, a
claim was supported while the visible sentence beside it said otherwise; such a claim is now stale, naming where
the quote is printed. So is one quoted from an inline link's title (a tooltip), LaTeX's ``\\phantom{…}``, a Quarto
div no format renders (``.content-hidden``, ``.hidden``) or a comment in a Pandoc ``{=html}`` block. The same sentence printed visibly too is anchored there. An image's alt text is read (screen
readers and a browser that cannot load the image show it).

Values, by hand: relevant {a, b} at ranks 1 and 4 of five: P@5 = 2/5; relevant {a, b, c} at ranks 1, 3 and 4:
P@5 = 3/5."""

from __future__ import annotations

import pytest

from chapters import audit_text

from audit.text.markdown import layout, unseen

TEXT = """\
# Precision

With two relevant documents at ranks 1 and 4 of five results, P@5 = 3/5.

![P@5 = 2/5 for ranks 1 and 4](fig.png)

[ref]: https://example.org "P@5 = 2/5 at ranks 1 and 4"

[//]: # (Two relevant at ranks 1 and 4 give P@5 = 2/5.)

<!--
Three relevant in five give P@5 = 3/5.
-->

% Three relevant at ranks 1, 3 and 4 give P@5 = 3/5 here.

Three relevant in five give P@5 = 3/5.

Shown: P@5 = 4/5 <span style="display:none">Hidden: P@5 = 2/5 at ranks 1 and 4, in a span.</span> for ranks 1 and 4.

<div hidden>
Hidden: two relevant at ranks 1 and 4 give P@5 = 2/5, in a div.
</div>

<style>.answer { display: none }</style>
<p class="answer">Hidden: P@5 = 2/5 for two relevant at ranks 1 and 4, by a class.</p>

```markdown
[//]: # (in a code block: as printed)
```

See [the run](https://example.org/run "Tooltip: two relevant at ranks 1 and 4 give P@5 = 2/5.") for details.

$$\\phantom{\\text{Phantom: two relevant at ranks 1 and 4 give P@5 = 2/5.}} P@5 = 3/5$$

::: {.content-hidden}
Quarto-hidden: two relevant at ranks 1 and 4 give P@5 = 2/5.
:::

```{=html}
<!-- Raw-HTML comment: two relevant at ranks 1 and 4 give P@5 = 2/5. -->
```

::: {.content-hidden when-format="pdf"}
Shown on the web: two relevant at ranks 1 and 4 give P@5 = 2/5.
:::

::: {.callout-note}
In a callout: two relevant at ranks 1 and 4 give P@5 = 2/5.
:::
"""

CLAIMS = """\
fixtures:
  f: {qrels: {q1: {a: 1, b: 1, n1: 0, n2: 0, n3: 0}}, run: {q1: [a, n1, n2, b, n3]}}
  g: {qrels: {q1: {a: 1, b: 1, c: 1, n1: 0, n2: 0}}, run: {q1: [a, n1, b, c, n2]}}
claims:
  - {id: C01, title: alt, kind: value, quote: "P@5 = 2/5 for ranks 1 and 4", claim: P@5 is 2/5., fixture: f,
     expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C02, title: title, kind: value, quote: "P@5 = 2/5 at ranks 1 and 4", claim: P@5 is 2/5., fixture: f,
     expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C03, title: comment, kind: value, quote: "Two relevant at ranks 1 and 4 give P@5 = 2/5.", claim: P@5 is 2/5.,
     fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C04, title: myst, kind: value, quote: "Three relevant at ranks 1, 3 and 4 give P@5 = 3/5 here.",
     claim: P@5 is 3/5., fixture: g, expect: [{measure: "P@5", claimed: "3/5"}]}
  - {id: C05, title: twice, kind: value, quote: "Three relevant in five give P@5 = 3/5.", claim: P@5 is 3/5.,
     fixture: g, expect: [{measure: "P@5", claimed: "3/5"}]}
  - {id: C06, title: span, kind: value, quote: "Hidden: P@5 = 2/5 at ranks 1 and 4, in a span.", claim: P@5 is 2/5.,
     fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C07, title: div, kind: value, quote: "Hidden: two relevant at ranks 1 and 4 give P@5 = 2/5, in a div.",
     claim: P@5 is 2/5., fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C08, title: class, kind: value, quote: "Hidden: P@5 = 2/5 for two relevant at ranks 1 and 4, by a class.",
     claim: P@5 is 2/5., fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C09, title: tooltip, kind: value, quote: "Tooltip: two relevant at ranks 1 and 4 give P@5 = 2/5.",
     claim: P@5 is 2/5., fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C10, title: phantom, kind: value, quote: "Phantom: two relevant at ranks 1 and 4 give P@5 = 2/5.",
     claim: P@5 is 2/5., fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C11, title: quarto, kind: value, quote: "Quarto-hidden: two relevant at ranks 1 and 4 give P@5 = 2/5.",
     claim: P@5 is 2/5., fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C12, title: raw, kind: value, quote: "Raw-HTML comment: two relevant at ranks 1 and 4 give P@5 = 2/5.",
     claim: P@5 is 2/5., fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C13, title: web, kind: value, quote: "Shown on the web: two relevant at ranks 1 and 4 give P@5 = 2/5.",
     claim: P@5 is 2/5., fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
  - {id: C14, title: callout, kind: value, quote: "In a callout: two relevant at ranks 1 and 4 give P@5 = 2/5.",
     claim: P@5 is 2/5., fixture: f, expect: [{measure: "P@5", claimed: "2/5"}]}
"""


def test_what_no_rendering_shows_is_found_with_what_it_is():
    spans = {TEXT[a:b].strip(): what for a, b, what in unseen(TEXT) if what != "an HTML element a browser does not show"}
    assert spans == {
        '[ref]: https://example.org "P@5 = 2/5 at ranks 1 and 4"': "a link reference definition",
        "[//]: # (Two relevant at ranks 1 and 4 give P@5 = 2/5.)": "a comment written as a link definition",
        "<!--\nThree relevant in five give P@5 = 3/5.\n-->": "an HTML comment",
        "% Three relevant at ranks 1, 3 and 4 give P@5 = 3/5 here.": "a MyST comment",
        '"Tooltip: two relevant at ranks 1 and 4 give P@5 = 2/5."': "a link's title (a tooltip)",
        "\\phantom{\\text{Phantom: two relevant at ranks 1 and 4 give P@5 = 2/5.}}":
            "a LaTeX \\phantom (typeset as blank space)",
        "::: {.content-hidden}\nQuarto-hidden: two relevant at ranks 1 and 4 give P@5 = 2/5.\n:::":
            "a div no format renders (.content-hidden, .hidden)",
        "<!-- Raw-HTML comment: two relevant at ranks 1 and 4 give P@5 = 2/5. -->": "an HTML comment",
    }
    inline = "P@5 is <!-- 1/2, or --> 2/5 here.\n"
    assert [inline[a:b] for a, b, _ in unseen(inline)] == ["<!-- 1/2, or -->"]
    lines = TEXT.split("\n")
    assert {lines[i] for i in layout(TEXT).skip} >= {'[ref]: https://example.org "P@5 = 2/5 at ranks 1 and 4"',
                                                     "[//]: # (Two relevant at ranks 1 and 4 give P@5 = 2/5.)"}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("unseen")
    return {c.id: c for c in audit_text(folder, TEXT, CLAIMS, title="Unseen").claims}


@pytest.mark.parametrize("cid, where", [("C02", "a link reference definition (line 7)"),
                                        ("C03", "a comment written as a link definition (line 9)"),
                                        ("C04", "a MyST comment (line 15)"),
                                        ("C06", "an HTML element a browser does not show (line 19)"),
                                        ("C07", "an HTML element a browser does not show (line 22)"),
                                        ("C08", "an HTML element a browser does not show (line 26)"),
                                        ("C09", "a link's title (a tooltip) (line 32)"),
                                        ("C10", "a LaTeX \\phantom (typeset as blank space) (line 34)"),
                                        ("C11", "a div no format renders (.content-hidden, .hidden) (line 37)"),
                                        ("C12", "an HTML comment (line 41)")])
def test_a_quote_a_reader_never_sees_is_stale_naming_where_it_is(report, cid, where):
    claim = report[cid]
    assert claim.verdict == "stale", claim.reason
    assert claim.reason.startswith("The quoted sentence is not in the text a reader sees"), claim.reason
    assert where in claim.reason, claim.reason


def test_a_sentence_printed_in_a_comment_and_visibly_is_anchored_where_it_is_seen(report):
    assert report["C05"].verdict == "supported" and report["C05"].line == 17, (report["C05"].line,
                                                                               report["C05"].reason)


@pytest.mark.parametrize("cid", ["C13", "C14"])
def test_a_div_some_format_shows_is_read(report, cid):
    """``.content-hidden when-format="pdf"`` is shown on the web; a callout is shown everywhere."""
    assert report[cid].verdict == "supported", report[cid].reason


def test_an_images_alt_text_is_read(report):
    assert report["C01"].verdict == "supported" and report["C01"].line == 5


def test_a_convention_quoted_only_where_no_reader_sees_it_stops_the_load(tmp_path):
    """A convention rests on what the text says: quoted from a comment or a hidden span, it made a listing dividing
    by the number returned qualified instead of contradicted. The load now names the quote and where it is."""
    from audit.errors import RegisterError
    from audit.register.claims import load_chapter
    for hidden in ("<!-- P@k divides by the number of results returned. -->",
                   '<span style="display:none">P@k divides by the number of results returned.</span>'):
        folder = tmp_path / f"c{len(hidden)}"
        folder.mkdir()
        (folder / "snapshot.md").write_text(f"# P@k\n\nP@k divides by k. {hidden}\n", encoding="utf-8")
        (folder / "chapter.yaml").write_text(
            "id: c\ntitle: C\nsnapshot: {file: snapshot.md}\nconventions:\n  precision_denominator:\n"
            "    value: number returned\n    quote: P@k divides by the number of results returned.\n", encoding="utf-8")
        (folder / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
        with pytest.raises(RegisterError) as caught:
            load_chapter(folder)
        assert "printed only where a reader of the rendered chapter never sees it" in caught.value.message
        assert caught.value.field == "conventions.precision_denominator.quote"


def test_a_convention_quote_does_not_run_across_a_hidden_span(tmp_path):
    """Where a hidden span stood, the words on either side are not one sentence: the mark left there was whitespace,
    which the quote comparison folds, so "P@k divides by <span hidden>k, not by</span> the number returned." held
    the quote "P@k divides by the number returned." although no reader reads that sentence."""
    from audit.errors import RegisterError
    from audit.register.claims import load_chapter
    folder = tmp_path / "across"
    folder.mkdir()
    (folder / "snapshot.md").write_text(
        "# P@k\n\nP@k divides by <span hidden>k, not by</span> the number returned.\n", encoding="utf-8")
    (folder / "chapter.yaml").write_text(
        "id: c\ntitle: C\nsnapshot: {file: snapshot.md}\nconventions:\n  precision_denominator:\n"
        "    value: number returned\n    quote: P@k divides by the number returned.\n", encoding="utf-8")
    (folder / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "conventions.precision_denominator.quote", caught.value.message
