"""Statements a claim register should cover, found in a chapter's prose.

The text is cut into units — sentences of paragraphs, list items, table rows (read with their
header), a listing's ``def`` lines, the lines of a block of trec_eval output — and each unit is kept
when it states something checkable:

* ``arithmetic``: an expression and its printed value (``21/43 ≈ .4884``, ``(1 + 2/3)/2``,
  ``9/11, roughly .8182``, ``0.75 − 0.508 = 0.342``, ``(1 × 1/2 × 1/4)^(1/3) = 0.5``,
  ``5 + 3/log2(4) = 6.5``, ``3/4 + (1/4)(1/4)/3 ≈ 0.771``);
* ``count``: a set measure or share from counts (``retains 12 of 20 positives``, ``two of the
  twenty needs, a tenth``, ``26 non-relevant passages out of 30``, ``fifty retained``);
* ``value``: a measure named in notation, by a library or in words (``P@10``, ``ERR@5``, ``RBP``,
  ``bpref``, ``R-precision``, ``GMAP``, ``F1``, ``IPrec@0.5``, ranx's ``rbp.80``, trec_eval's
  ``num_rel``, ``precision at ten``, ``the ideal DCG@5``, ``discounted cumulative gain``,
  ``expected reciprocal rank``, ``rank-biased precision``, ``interpolated precision``, ``the
  number of relevant documents``, ``its reciprocal rank``, ``the mean of the reciprocal ranks``)
  with a number, a number word or a fraction in words (``a fifth``, ``three fifths``), a rank
  (``at ranks 2 and 5 out of six``, ``1st → 1.0``) or a cutoff (``k = 4``); a line of trec_eval
  output (``map  all  0.7904``);
* ``universal``: a measure with a universal or comparative wording and no number needed
  (``is never larger than``, ``cannot fall as k grows``, ``always helps``, ``raises``,
  ``lowers``, ``beats``, ``ignores everything after``);
* ``definition``: a measure said to answer a question or defined by a formula (``Recall@k — of
  the relevant chunks, what fraction …?``, ``P@k = … / k``);
* ``convention``: how an evaluator treats repeated IDs, ties, unjudged documents, grades or gain;
* ``listing``: the ``def`` line of a code listing (the code itself is not prose: numbers in it
  are never statements).

A unit can state several things ("P@3 = 2/3, R@3 = 1 and RR = 1/2"): ``audit.text.coverage`` splits each unit
into the statements a report counts (one per printed value) and decides which claims cover each.

How well this works is measured, not assumed: ``MEASURED`` holds recall and precision on the
hand-labelled corpus in ``tests/corpus`` (recomputed by ``benchmarks/bench_scanner.py``; a test
fails when the figures here go stale). A sentence the scanner does not read but that holds a number, a
comparison or a universal word is still listed (``unread_sentences``), so a report's "uncovered" never rests on
the scanner alone.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from audit.errors import ValueParseError
from audit.model.values import ClaimedValue, parse_claimed
from audit.text.chapter import Snapshot
from audit.text.listings import find_listings

#: Recall and precision of ``scan`` on the labelled corpus (``tests/corpus/labels.yaml``), as
#: printed by ``benchmarks/bench_scanner.py``: all texts, and the held-out text alone (never run
#: through the scanner while its patterns were written).
MEASURED = {"statements": 65, "texts": 3, "recall": 1.0, "precision": 1.0,
            "held_out_statements": 20, "held_out_recall": 1.0, "held_out_precision": 1.0,
            # statement recall on every labelled text of tests/corpus (the scanner's texts above and the measures
            # corpus, tests/corpus/measures): the share of labelled statements the scanner reads as statements,
            # on all of them and on the texts held out, and the share the scanner or the sentence sweep
            # (``unread_sentences``) lists, i.e. that a report names as covered or uncovered
            "corpus_statements": 453, "corpus_texts": 22, "corpus_recall": 0.9713,
            "corpus_held_out_statements": 230, "corpus_held_out_recall": 0.9609, "corpus_swept_recall": 0.9978}
#: Statements are sentences, list items, table rows and ``def`` lines; a statement counts as
#: found when a scanned unit overlaps its labelled quote.

# --- vocabulary -------------------------------------------------------------------------------

NUM = r"(?:\d+(?:\.\d+)?|\.\d+)"
UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
WORD_NUMBER = rf"(?:(?:{'|'.join(TENS)})(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|{'|'.join(UNITS)})"
ORDINALS = ("half halves third thirds quarter quarters fourth fourths fifth fifths sixth sixths seventh sevenths "
            "eighth eighths ninth ninths tenth tenths").split()
WORD_FRACTION = rf"(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine)\s+(?:{'|'.join(ORDINALS)})\b|\bhalf\b)"
#: A value as printed: decimal, fraction, percentage, number word or fraction in words.
VALUE = rf"(?:{NUM}\s*/\s*{NUM}|{NUM}%?|{WORD_FRACTION}|\b{WORD_NUMBER}\b)"

#: Measure names in notation, as libraries print them, and in words; the capture is mapped by
#: ``audit.draft.encode.measure_of``. Notation is ir-measures' (``nDCG@5``, ``ERR@10``, ``RBP(p=0.8)``,
#: ``IPrec@0.5``, ``Rprec``, ``Bpref``, ``GMAP``, ``NumRel``) plus the usual abbreviations (``MAP``, ``MRR``,
#: ``F1``); library names are trec_eval's output names (``num_rel``, ``gm_map``, ``iprec_at_recall_0.50``,
#: ``P_5``, ``ndcg_cut.10``) and ranx's metric names (``rbp.80``, ``ndcg_burges@5``, ``r-precision``), the short
#: lower-case ones (``map``, ``mrr``, ``dcg``) only in backquotes, before ``@k`` or before a verb.
_NOTATION_NAMES = (r"nDCG|NDCG|IDCG|DCG|MRR|GMAP|MAP|ERR|RBP|RR|AP|Rprec|R-prec|IPrec|NumRelRet|NumRel|NumRet|"
                   r"SetP|SetR|SetF|Success|Judged|Bpref|bpref|F1|F2|F0\.5|F_?β|F(?=@|\()|P|R(?!\|)(?!\s*=\s*\d+(?![\d.]))")
_LIBRARY_NAMES = (r"rbp\.\d+|n?dcg_burges|r[-_]precision|gm_map|num_rel_ret|num_rel|num_ret|recip_rank|"
                  r"iprec_at_recall_\d\.\d+|P_\d+|ndcg_cut[._]\d+|map_cut[._]\d+|recall_\d+|set_F|set_P|set_recall|"
                  r"(?<=`)(?:map|mrr|dcg|ndcg|rbp|err|hits)(?=[@`])|(?:map|mrr|dcg|rbp|err)(?=@)|"
                  r"map(?=:|\s+(?:is|was|at|over|and|equals|stays?|falls?|drops?|=)\b)")
_MEASURE_WORDS = (r"(?:interpolated\s+)?precision\s+at\s+(?:an?\s+|the\s+|each\s+|every\s+|any\s+)?"
                  r"(?:standard\s+)?recall(?:\s+levels?)?(?:\s+(?:of\s+)?(?P<level>\d*\.\d+|\d(?![\d/])))?|"
                  r"mean\s+reciprocal\s+rank|expected\s+reciprocal\s+rank|reciprocal\s+ranks?|"
                  r"geometric\s+mean\s+(?:of\s+(?:the\s+)?)?average\s+precision|mean\s+average\s+precision|"
                  r"average\s+precision|interpolated\s+precision|rank-biased\s+precision|R-precision|"
                  r"normali[sz]ed\s+discounted\s+cumulative\s+gain|ideal\s+discounted\s+cumulative\s+gain|"
                  r"discounted\s+cumulative\s+gain|ideal\s+(?:order|ranking|DCG)|bpref|F-measure|F-score|F1(?:\s+score)?|"
                  r"number\s+of\s+relevant\s+(?:documents|passages|results)(?:\s+(?:retrieved|returned))?|"
                  r"precision|(?<!\bat\s)recall(?!\s+levels?\b)|ndcg|success|hit\s+rate|judged\s+fraction")
METRIC = re.compile(
    r"(?<![\w|-])(?:(?P<notation>" + _NOTATION_NAMES + r")(?P<params>\([a-z]+\s*=\s*'?[\w.-]+'?\))?"
    r"(?:@\s*(?P<k>k|\d+(?:\.\d+)?(?!\d|\.\d))"
    # a cutoff in a subscript, as nDCG write-ups print it (DCG_6, nDCG_{6}, nDCG₆); not R_1 (a set of relevant
    # documents), nor an index before the measure's own cutoff (AP₁@K)
    r"|(?<!\bR)(?:_\{(?P<kb>k|\d+)\}|_(?P<ku>k|\d+)(?![\w{])|(?P<ks>[₀-₉]+))(?!\s*@))?(?![\w-])"
    r"|(?P<lib>" + _LIBRARY_NAMES + r")(?:@(?P<k3>k|\d+))?(?![\w-])"
    r"|(?i:(?P<words>" + _MEASURE_WORDS + r")"
    r"(?:\s+at\s+(?P<kw>k|\d+|" + WORD_NUMBER + r")\b(?![.,]\d)|@(?P<k2>k|\d+))?))")

UNIVERSAL = re.compile(
    r"\b(?:never|always|cannot|can\s*not|can't|at\s+most|at\s+least|no\s+more\s+than|no\s+less\s+than|"
    r"larger|smaller|greater|exceeds?|beats?|outranks?|raises?|raising|lowers?|lowering|improves?|improved|"
    r"hurts?|helps?|rises?|rose|falls?|fell|drops?|increases?|decreases?|unchanged|did\s+not\s+(?:move|change)|"
    r"does\s+not\s+(?:move|change)|stays?|stayed|remains?|ignores?|tripled|doubled|halved|equals?|"
    r"is\s+equal|moves?|moved|moving|more|fewer|less)\b", re.IGNORECASE)
_DEFINITION = re.compile(r"\?|=|\bdenominator\b|\bfraction\b|\bhow\s+(?:many|much|early|high|far)\b|\bdivides?\b|"
                         r"\bshare\b|\bproportion\b|\bmeasures?\b|\basks?\b|\banswers?\b|\bcounts?\b|\bdefined\b",
                         re.IGNORECASE)
_NUMBERISH = re.compile(rf"{NUM}|\b{WORD_NUMBER}\b|{WORD_FRACTION}|\b\d+(?:st|nd|rd|th)\b|\bk\s*=\s*\d", re.IGNORECASE)
_ARROW = re.compile(rf"(?:\b\d+(?:st|nd|rd|th)|rank\s+\d+)\s*→\s*{VALUE}")
_CUTOFF = re.compile(r"\bk\s*=\s*\d+")
_COUNT = re.compile(
    rf"\b(?:{NUM}|{WORD_NUMBER}|half|all|none)\s+(?:of\s+(?:the\s+|its\s+|their\s+)?(?:{NUM}|{WORD_NUMBER})\b"
    rf"|(?:\S+\s+){{0,3}}?out\s+of\s+(?:{NUM}|{WORD_NUMBER})\b)"
    rf"|\bof\s+the\s+{NUM}\s+\w+(?:\s+\w+){{0,3}},\s+{NUM}\s+(?:are|were)\b"
    rf"|\b(?:{WORD_NUMBER}|\d+)\s+(?:retained|positives|negatives)\b"
    rf"|\b(?:Whole\s+cohort|Total|All)\s+\d+(?:\s+\d+)+", re.IGNORECASE)
_CONVENTION = re.compile(
    r"\b(?:evaluator|convention|unjudged|unknown\s+labels?|ties?|tied|repeated|duplicates?|judgements?|"
    r"judgments?|grades?|gain)\b[^.]*\b(?:treats?|rejects?|keeps?|breaks?|resolves?|preserves?|counts?|"
    r"as\s+zero|is\s+equal\s+to|equals|drops?|dropping|ignores?)\b"
    r"|\b(?:treats?|rejects?|resolves?|counts?)\b[^.]*\b(?:unjudged|unknown\s+labels?|ties|repeated|duplicates?|"
    r"relevant|zero)\b", re.IGNORECASE)
#: What a named evaluation tool does with its input: "ranx keeps tied documents in the order they were added",
#: "trec_eval refused that file outright", "ir_measures scores a judged query missing from the run as 0", "This
#: matches `trec_eval -l 2`" — a statement about the tool's convention the text makes, whatever its wording.
_TOOL = r"`?(?:trec_eval|pytrec_eval|ir_measures|ir-measures|ranx|torchmetrics|scikit-learn|sklearn|ml_metrics)\b"
_TOOL_DOES = re.compile(
    rf"{_TOOL}(?:[^.;:]|\.\d){{0,60}}?\b(?:matches|agrees?|skips?|drops?|ignores?|ignored|refused?|refuses|keeps?|kept|"
    r"scores?|treats?|breaks?|sorts?|fills?|pads?|rejects?|rejected|raises?|warns?|does\s+the\s+same|"
    r"(?:also\s+)?evaluates?|counts?|reads?\s+(?:it|them|the|scores)|switch(?:es)?)\b"
    rf"|\b(?:matches|agrees\s+with|as\s+(?:in|with))\s+{_TOOL}"
    r"|\bbreaks?\s+(?:the\s+)?ties\b|\bscores?\s+(?:0|zero)\s+on\s+(?:every|each|any)\s+(?:metric|measure)", re.IGNORECASE)
_IR_NOUN = re.compile(r"\b(?:retrieved|recovered|relevant|ranking|ranked|prefix|evidence|documents?|results?|"
                      r"passages?|chunks?|rank|cutoff)\b", re.IGNORECASE)
_STRONG_CHANGE = re.compile(r"\b(?:remains?|improves?|improved|raises?|lowers?|recovers?|beats?|hurts?|helps?|"
                            r"measurement)\b", re.IGNORECASE)
_DEFINE = re.compile(r"\blet\s+\w+\s+be\b|\bis\s+defined\s+as\b", re.IGNORECASE)
#: Pieces of an arithmetic expression as printed: the functions ``audit.model.expressions`` reads, operators
#: (``×``, ``·``, ``x`` between numbers as in ".912 x 10", ``÷``, ``−``, powers ``^``/``**``, a superscript ² or
#: ³), and a product written ``(1/4)(1/4)``.
FUNCTION = r"(?:log2|log10|log|ln|sqrt|exp)"
_SUP = r"[²³]"
_OPERATOR = r"(?:\*\*|[-+*/×·÷−^]|[xX](?=\s*[\d.(]))"
#: Bounds that keep every expression pattern linear in the text's length: an expression of at most
#: ``_MAX_TERMS`` numbers and ``_MAX_OPEN`` parentheses opened before one (an author's sum has a few dozen); each
#: link between terms is atomic (``(?>…)``), so a chain that ends in no relation is given up once, not tried again
#: with its spaces split another way (2^n ways for n terms).
_MAX_TERMS = 200
_MAX_OPEN = 40
_OPERAND = rf"(?:{FUNCTION}\s*)?(?:\(\s*(?:{FUNCTION}\s*)?){{0,{_MAX_OPEN}}}{NUM}{_SUP}?(?!\w|\.\d)"
_LINK = rf"(?>\s*\)*{_SUP}?\s*{_OPERATOR}\s*|\s*\)+{_SUP}?\s*(?=\()|(?<![A-Za-z]\d)(?<![A-Za-z]\d\d)(?<=\d)(?=\(\s*[\d.]))"
#: Not right after an operator (``… + 9/10``), with a space or without; a ``-`` or ``*`` that starts a line, or
#: follows only spaces there, is a list marker ("- 3/log2(4) = 1.5", a step of a worked calculation), not a minus.
_NOT_AFTER_OPERATOR = (r"(?<![+/×·÷−^…]\s)(?<![+/×·÷−^…])(?<![-*][-*])"
                       r"(?<![^\s][-*]\s)(?<![^\s]\s[-*]\s)(?<![^\s][-*])")
#: An expression or a single number, never starting inside a longer expression (after an operator, a
#: word character, ``@`` or an ellipsis: ``… + 9/10 + 10/12)/10`` is not an expression of its own).
EXPRESSION = (rf"(?<![\w@.]){_NOT_AFTER_OPERATOR}"
              rf"{_OPERAND}(?:{_LINK}{_OPERAND}){{0,{_MAX_TERMS}}}(?:\s*\))*{_SUP}?")
#: What links an expression to the value printed for it: ``=``, ``≈``, ``~``, ``, roughly``, ``is about``, ``comes to``.
RELATION = (r"=|≈|~|,?\s*(?:(?:is|was|comes\s+to|gives)\s+)?(?:roughly|about|approximately|or\s+about|"
            r"which\s+is\s+about)|,?\s*(?:is|was|comes\s+to|gives)")
#: An expression and the value printed for it (``21/43 ≈ .4884``, ``(1 × 1/2 × 1/4)^(1/3) = 0.5``,
#: ``3/4 + (1/4)(1/4)/3 ≈ 0.771``); the value is not the start of a further expression.
ARITH = re.compile(
    rf"(?<![\w@.]){_NOT_AFTER_OPERATOR}"
    rf"(?P<expr>{_OPERAND}(?:{_LINK}{_OPERAND}){{1,{_MAX_TERMS}}}(?:\s*\))*{_SUP}?)"
    rf"\s*(?P<rel>{RELATION})\s*"
    rf"(?P<value>(?:≈\s*)?{NUM}%?)(?![\d/]|\.\d)(?!\s*(?:{_OPERATOR}|\())")

# --- cutting the text into units --------------------------------------------------------------

_ABBREV = re.compile(r"(?:\be\.g|\bi\.e|\bet\s+al|\bcf|\bvs|\bapprox|\bFig|\bSec|\bEq)\.$", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Unit:
    """A piece of the text read on its own: ``kind`` is sentence, item, row, def or output; ``context``
    is extra text read with it (a table row's header); ``start``/``end`` are character offsets."""

    kind: str
    start: int
    end: int
    context: str = ""


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans in ``text[start:end]``: a break after ``.``, ``?`` or ``!`` followed by space
    and a capital, digit, quote or bracket (never inside ``.4884`` or after ``e.g.``)."""
    spans, begin = [], start
    for m in re.finditer(r"[.?!](?:[)\"”’]*)(?=\s+[\"“(\[A-Z0-9•])", text[start:end]):
        stop = start + m.end()
        if _ABBREV.search(text[begin:stop]):
            continue
        if text[begin:stop].strip():
            spans.append((begin, stop))
        begin = stop
    if text[begin:end].strip():
        spans.append((begin, end))
    out = []
    for a, b in spans:  # trim the whitespace around each sentence
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        out.append((a, b))
    return out


#: A result pasted into a listing as a comment: a mapping of measures to values (``# {AP: 0.75, nDCG: 0.81}``, what
#: ir-measures' ``calc_aggregate`` prints) or one per query (``# Metric(query_id='Q0', measure=AP, value=0.5)``), a
#: printed tuple or list of numbers (``# (0.5, 0.6666666865348816)``), a tensor or an array.
COMMENT_RESULT = re.compile(r"^\s*#\s*(?:\{\s*['\"]?[A-Za-z][\w@().=,]*['\"]?\s*:\s*-?\d|Metric\(\s*query_id\s*=|"
                            r"[(\[]\s*-?\d[\d.eE+-]*\s*,|tensor\(|array\()")
#: A line of trec_eval's output (``measure  query  value``: ``map  all  0.7904``, ``P_5  401  0.8000``).
OUTPUT_LINE = re.compile(r"^\s*[A-Za-z][\w.]*\s+(?:all|[\w.-]+)\s+-?\d+(?:\.\d+)?\s*$")
#: A line a program printed after the code before it: a number alone (``0.5315681641165526``), or after a label
#: ending in a colon, an equals sign or a gap of spaces (``MRR@10 (grade 2 only): 0.4375``, ``MAP = 0.6852``,
#: ``P@5       0.3000``).
PRINTED_LINE = re.compile(r"^\s*(?:[A-Za-z][^=:\n]{0,60}?(?::\s*|\s*=\s*|\s{2,}))?-?\d+(?:\.\d+)?(?:[eE]-?\d+)?\s*$")


#: A line of a worked calculation: an optional name before its relation ("DCG@3 =", "nDCG ≈"), then numbers, operators,
#: parentheses, the functions ``FUNCTION`` and further relations; nothing else (no identifier, bracket or keyword of
#: code).
_CALCULATION_LINE = re.compile(
    rf"^\s*(?:[A-Za-z][\w@.-]*(?:[ \t]+#?[\w@.-]+){{0,3}}\s*(?=[=≈~]))?(?:[=≈~]\s*)?(?:[-+*/×·÷−^()\d.,\s]|{FUNCTION}|[=≈~]|\.\.\.|…)*$")


def is_calculation(lines: list[str]) -> bool:
    """Whether a block's lines are a worked calculation (``DCG = 3/log2(2) + 2/log2(3)``, ``    = 3 + 1.262``,
    ``    = 4.262``), or a program's printed lines of the same notation (``query #2 = 1/1 = 1.5``, ``MRR = 0.57``),
    rather than code: every non-empty line is calculation notation, and together they print an expression with its
    value or name a measure with each value (``AP@8_1 = 0.54``, ``mAP@8 = 0.48``)."""
    filled = [ln for ln in lines if ln.strip()]
    if not filled or not all(_CALCULATION_LINE.match(ln) for ln in filled):
        return False
    block = "\n".join(filled)
    return bool(ARITH.search(block)) or (all(_NAMED_VALUE.match(ln) for ln in filled) and bool(METRIC.search(block)))


#: A printed line naming a value: ``AP@8_1 = 0.54``, ``query #3 = 0.2``.
_NAMED_VALUE = re.compile(r"^\s*[A-Za-z][\w@.#-]*(?:[ \t]+#?[\w@.-]+){0,3}\s*[=≈~]\s*[-−]?(?:\d+\.?\d*|\.\d+)\s*$")


def _step_unit(lines: list[str], offsets: list[int], step: list[int]) -> Unit:
    first, last = step[0], step[-1]
    return Unit("sentence", offsets[first] + len(lines[first]) - len(lines[first].lstrip()),
                offsets[last] + len(lines[last].rstrip()))


def _fenced_table(body: list[str]) -> bool:
    """Whether a code block holds nothing but a pipe table (a header, its rule and rows), as pages converted to
    Markdown often print a table inside ```plaintext: printed values, not code."""
    rows = [ln.strip() for ln in body if ln.strip() and not ln.strip().startswith("```") and not ln.strip().startswith("~~~")]
    return len(rows) >= 3 and all(r.startswith("|") for r in rows) and bool(_TABLE_RULE.match(rows[1]))


#: A row of a table a program printed (pandas' ``print(df)``): a label, then numbers only.
_PRINTED_ROW = re.compile(r"^\s*(?P<label>[A-Za-z_][\w.@-]*)\s+(?P<numbers>-?\d+(?:\.\d+)?(?:\s+-?\d+(?:\.\d+)?)*)\s*$")


def _printed_table(body: list[str]) -> list[int] | None:
    """The positions (in ``body``) of the rows of a table a program printed, aligned on whitespace, with its header
    at position 0: the header names a measure in each column ("P@5      AP  nDCG@5"), an index line may follow
    ("query"), and every other line is a label and one number per column ("q2     0.4  0.5000  0.5672"). None for
    any other block."""
    filled = [(i, ln) for i, ln in enumerate(body) if ln.strip()]
    if len(filled) < 2 or filled[0][0] != 0:
        return None
    columns = body[0].split()
    if not columns or not all(METRIC.fullmatch(c) or METRIC.search(c) for c in columns) \
            or re.search(r"[=(){}\[\]:,'\"]", body[0]):
        return None
    rows = []
    for i, line in filled[1:]:
        m = _PRINTED_ROW.match(line)
        if m and len(m.group("numbers").split()) == len(columns):
            rows.append(i)
        elif not (i == filled[1][0] and re.fullmatch(r"\s*[A-Za-z_]\w*\s*", line)):  # the index's name line
            return None
    return rows or None


def _right_after(lines: list[str], end: int, start: int) -> bool:
    """Whether a block starting at line ``start`` comes right after a listing ending at line ``end``: nothing
    between them but blank lines, fences and a short label ("Output:", "It prints:")."""
    between = [lines[n - 1].strip() for n in range(end + 1, start) if 0 < n <= len(lines)]
    return len(between) <= 6 and all(not ln or ln.startswith(("```", "~~~")) or (len(ln) <= 40 and ln.endswith(":"))
                                     for ln in between)


def units(text: str, markdown: bool = False) -> list[Unit]:
    """Every unit of ``text`` in reading order: sentences of paragraphs and list items, table
    rows with their header, the ``def`` lines of code listings (the rest of a listing is
    code, not prose), each step of a worked calculation set as a code block (``is_calculation``),
    and each line of a block that holds nothing but trec_eval output
    (``map  all  0.7904``: printed values, not code). Markdown headings are skipped. ``markdown``: the
    text is a Markdown chapter (``audit.text.markdown``): its front matter, HTML blocks, MyST targets and
    comments and ``:::`` fence lines are not prose, and each display formula is one ``formula`` unit."""
    lines = text.split("\n")
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    code_lines: set[int] = set()
    out: list[Unit] = []
    if markdown:
        from audit.text.markdown import layout
        shape = layout(text)
        code_lines |= shape.skip
        for first, last in shape.formulas:
            code_lines.update(range(first, last + 1))
            a = offsets[first] + len(lines[first]) - len(lines[first].lstrip())
            out.append(Unit("formula", a, offsets[last] + len(lines[last].rstrip())))
    previous = None
    for listing in find_listings(text):
        body = [lines[n - 1] for n in range(listing.start, listing.end + 1) if n - 1 < len(lines)]
        before, previous = previous, listing
        if listing.style != "unfenced" and is_calculation(body):
            # a worked calculation set as code: each step (a line, with the lines after it that start with a
            # relation: "    = 3 + 1.262 + 1.5") is read as prose, never as code
            step: list[int] = []
            for n in range(listing.start, min(listing.end, len(lines)) + 1):
                line = lines[n - 1]
                if step and (not line.strip() or not re.match(r"\s*(?:=|≈|~)", line)):
                    out.append(_step_unit(lines, offsets, step))
                    step = []
                if line.strip():
                    step.append(n - 1)
            if step:
                out.append(_step_unit(lines, offsets, step))
            code_lines.update(n - 1 for n in range(listing.start, listing.end + 1))
            continue
        if listing.style != "unfenced" and _fenced_table(body):
            continue  # a pipe table set in a code block (```plaintext): its rows are read as a table's
        table = _printed_table(body) if listing.style != "unfenced" else None
        if table is not None:
            # a table a program printed (a notebook's ``df.round(4)``): each row a table row under its header
            code_lines.update(n - 1 for n in range(listing.start, listing.end + 1))
            header = body[0].strip()
            for i in table:
                n = listing.start + i
                line = lines[n - 1]
                a = offsets[n - 1] + len(line) - len(line.lstrip())
                out.append(Unit("row", a, offsets[n - 1] + len(line.rstrip()), context=header))
            continue
        printed = listing.style != "unfenced" and any(ln.strip() for ln in body) and (
            all(OUTPUT_LINE.match(ln) for ln in body if ln.strip())
            # what the code right before printed: a block of printed values a few lines after a listing
            or (before is not None and _right_after(lines, before.end, listing.start)
                and all(PRINTED_LINE.match(ln) for ln in body if ln.strip())))
        for n in range(listing.start, listing.end + 1):
            code_lines.add(n - 1)
            line = lines[n - 1] if n - 1 < len(lines) else ""
            if re.match(r"\s*(?:async\s+)?def\s+\w+\s*\(", line) or (printed and line.strip()):
                a = offsets[n - 1] + len(line) - len(line.lstrip())
                out.append(Unit("def" if not printed else "output", a, offsets[n - 1] + len(line.rstrip())))
            elif COMMENT_RESULT.match(line):
                # a result pasted into the listing as a comment (a README's "# {AP: 0.75, nDCG: 0.815…}"): printed
                # values, read as a statement
                a = offsets[n - 1] + len(line) - len(line.lstrip())
                out.append(Unit("output", a, offsets[n - 1] + len(line.rstrip())))
    header = ""
    para: list[int] = []

    def flush() -> None:
        if para:
            a, b = offsets[para[0]], offsets[para[-1]] + len(lines[para[-1]])
            out.extend(Unit("sentence", s, e) for s, e in _sentences(text, a, b))
            para.clear()

    for i, line in enumerate(lines):
        stripped = line.strip()
        if i in code_lines or not stripped or stripped.startswith("#") or stripped.startswith("```"):
            flush()
            if not stripped.startswith("|"):
                header = ""
            continue
        if stripped.startswith("|"):
            flush()
            if _TABLE_RULE.match(stripped):
                continue
            a = offsets[i] + len(line) - len(line.lstrip())
            if not header:
                header = stripped
                out.append(Unit("row", a, offsets[i] + len(line.rstrip())))
            else:
                out.append(Unit("row", a, offsets[i] + len(line.rstrip()), context=header))
            continue
        header = ""
        if _LIST_ITEM.match(line):
            flush()
            para.append(i)
            flush()
            continue
        para.append(i)
    flush()
    return sorted(out, key=lambda u: u.start)


# --- classification ---------------------------------------------------------------------------


def classify(unit_text: str, context: str = "", unit_kind: str = "sentence") -> str | None:
    """The statement kind of one unit (see the module docstring), or ``None`` for plain prose."""
    if unit_kind == "def":
        return "listing"
    if unit_kind == "output":
        return "value"
    if unit_kind == "formula":
        return _formula_kind(unit_text)
    t = unit_text
    if unit_kind == "row":
        cells = [c.strip() for c in t.strip().strip("|").split("|")]
        if not context:
            return None  # a header row states nothing by itself
        # A row states a value when a metric names its row or column and the row holds a number.
        if (METRIC.search(context) or METRIC.search(cells[0] if cells else "")) and _NUMBERISH.search(t):
            return "value"
        if METRIC.search(t) and (_DEFINITION.search(t) or UNIVERSAL.search(t)):
            return "definition"
        return None
    if _CITATION.match(t) and not re.search(r"(?<![\w/.])(?:\d*\.\d+|\d+/\d+)(?![\w/])", re.sub(r"\S*://\S*", " ", t)):
        return None   # "Source: …", "Adapted from …": where the text comes from, not what it states
    if _STATISTIC.search(t):
        return "statistic"
    if ARITH.search(t) or any(ARITH.search(plain) for _, _, plain in latex_math(t)):
        return "arithmetic"
    metric = METRIC.search(t)
    share = _COUNT.search(t) or re.search(rf"{WORD_FRACTION}|\b\d+(?:\.\d+)?%", t, re.IGNORECASE)
    if share and (metric or re.search(r"\b(?:relevant|positives?|negatives?|judged|unjudged|retained|"
                                                 r"candidates?|improve[sd]?|needs?|questions?|missing)\b", t, re.IGNORECASE)):
        return "count"
    if _ARROW.search(t):
        return "value"
    if metric:
        if _NUMBERISH.search(t):
            return "value"
        if UNIVERSAL.search(t):
            return "universal"
        if _DEFINITION.search(t):
            return "definition"
    if _CONVENTION.search(t) or _TOOL_DOES.search(t):
        return "convention"
    if _CUTOFF.search(t):
        return "value"
    if (_STRONG_CHANGE.search(t) or _DEFINE.search(t)) and _IR_NOUN.search(t):
        return "universal" if _STRONG_CHANGE.search(t) else "definition"
    return None


def _formula_kind(formula: str) -> str:
    """A display formula's statement kind: ``convention`` when it states one (``audit.text.stated``, which reads
    LaTeX), else what its plain notation states as prose would, else ``definition`` (an equation defines)."""
    from audit.text.stated import latex_plain, stated_in
    if stated_in(formula):  # reads the LaTeX and its plain notation
        return "convention"
    plain = latex_plain(formula)
    return classify(plain) or ("definition" if "=" in plain else "formula")


#: Inline math in a sentence: ``$…$`` (not ``$$``), ``\\(…\\)``.
_INLINE_MATH = re.compile(r"(?<![$\\])\$(?!\$)(?P<a>[^$\n]+?)(?<!\\)\$(?!\$)|\\\((?P<b>.+?)\\\)")


def latex_math(text: str) -> list[tuple[int, int, str]]:
    """Each inline formula of ``text`` holding LaTeX (``$\\frac{3}{\\log_2 4} = 1.5$``) as ``(start, end, plain)``:
    its span with the delimiters, and its arithmetic in plain notation (``3/(log2 4) = 1.5``; ``\\approx`` as ``≈``,
    read by ``audit.model.expressions.latex_arithmetic``), each side holding a symbol written ``§`` (``§ = 3 + 2/(log2 3)
    ≈ 5.762`` for ``DCG@3 = …``). A display formula unit is one formula as a whole."""
    from audit.model.expressions import latex_arithmetic
    from audit.errors import AuditError
    spans = [(m.start(), m.end(), m.group("a") or m.group("b")) for m in _INLINE_MATH.finditer(text)]
    if not spans and re.match(r"\s*(?:\$\$|\\\[)", text):
        spans = [(0, len(text), re.sub(r"^\s*(?:\$\$|\\\[)|(?:\$\$|\\\])\s*[.,]?\s*$", "", text))]
    out = []
    for a, b, body in spans:
        if "\\" not in body:
            continue
        try:
            plain = latex_arithmetic(re.sub(r"\\approx\b", "≈", body).replace("\\leq", "≤").replace("\\geq", "≥"))
        except AuditError:
            continue
        # a side holding a symbol (DCG@3, g_i, a sum over grades the formula does not give) is no arithmetic: it is
        # written as one mark, so that nothing inside it is read as an expression of its own ("3+1 = 5.762")
        sides = re.split(r"(\s*(?:=|≈|<|>|≤|≥)\s*)", plain)
        plain = "".join(side if i % 2 or not _SYMBOL.search(_FUNCTIONS.sub(" ", side)) else "§"
                        for i, side in enumerate(sides))
        out.append((a, b, plain))
    return out


_SYMBOL = re.compile(r"[A-Za-z_\\]")
_FUNCTIONS = re.compile(r"\b(?:log2|log10|log|ln|sqrt|exp)\b")


#: A line saying where the text comes from: "Source: …", "References: …", "Adapted from …".
_CITATION = re.compile(r"^\s*(?:[*_]{1,2})?(?:sources?|references?|credits?|adapted\s+from|reproduced\s+from|"
                       r"see\s+also)(?:[*_]{1,2})?\s*:", re.IGNORECASE)
#: A significance test reported in its notation: t(df) = …, or a p-value with a relation and a number.
_STATISTIC = re.compile(r"\bt\s*\(\s*\d+\s*\)\s*=\s*[-−]?\d|\bp\s*(?:=|<|>|≤|≥|≈)\s*0?\.\d"
                        r"|\b(?i:p[-\s]?values?\s+(?:of|is|was|were|are)\s+(?:about\s+|only\s+)?)0?\.\d"
                        # a test's statistics in words: t ≈ 2.75, W = 3, d = 0.77, the mean difference, the degrees of
                        # freedom, a decision
                        r"|(?<![\w(])t\s*[=≈]\s*[-−]?\d*\.\d|(?<!\w)W\s*=\s*(?:min\s*\(|\d)|(?<![\w'])d\s*[=≈]\s*[-−]?\d*\.\d"
                        r"|\b(?i:degrees\s+of\s+freedom|mean\s+(?:per[- ]\w+\s+)?(?:difference|gain)\s+(?:is|of)\s+[-−]?\d"
                        r"|statistically\s+significant|reject\s+the\s+null|cohen'?s\s+d\b|p\s+(?:is|was)\s+0?\.\d"
                        r"|significant(?:[^.]|\.\d)*?(?:α|\balpha\b)|(?:α|\balpha\b)\s*=(?:[^.]|\.\d)*?significant"
                        r"|\d+\s*%\s*(?:\w+\s+){0,3}interval\b(?:[^.]|\.\d)*?\["
                        # a correction of printed p-values, an interval said to exclude zero
                        r"|\b(?:bonferroni|holm)\b(?:[^.]|\.\d)*?\d"
                        r"|\d*\.\d+\s*,\s*[-−]?\d*\.\d+\s*\](?:[^.]|\.\d)*?\b(?:excludes|includes|straddles|"
                        r"contains)\s+(?:zero|0)\b)")


@dataclass(frozen=True)
class Statement:
    """A unit that states something: its ``kind`` (see the module docstring), its ``text`` (a
    sentence, list item, table row or ``def`` line), 1-based ``line``/``column``, character
    ``start``/``end`` in the snapshot, and the table header read with a row (``context``). The
    statements a report counts in it are ``audit.text.coverage.statements``."""

    kind: str
    text: str
    line: int
    column: int
    start: int
    end: int
    context: str = ""


def scan_text(text: str, markdown: bool = False) -> list[Statement]:
    """Every statement in ``text``, in reading order. Editorial markers (``[… end of excerpt …]``)
    are ignored. ``markdown``: read as a Markdown chapter (see ``units``)."""
    found = []
    starts = [0] + [m.end() for m in re.finditer("\n", text)]  # each line's offset: lines found by bisection
    for u in units(text, markdown):
        body = text[u.start:u.end]
        if body.lstrip().startswith("[..."):
            continue
        kind = classify(body, u.context, u.kind)
        if kind is None:
            continue
        line = bisect_right(starts, u.start)
        column = u.start - starts[line - 1] + 1
        found.append(Statement(kind, body, line, column, u.start, u.end, u.context))
    return found


def scan(snapshot: Snapshot) -> list[Statement]:
    """Every statement in the snapshot's text, in reading order (see ``scan_text``); a Markdown file's and a
    notebook's as Markdown (``Snapshot.markdown``)."""
    return scan_text(snapshot.text, snapshot.markdown)


_NUMERIC = re.compile(r"\d|\b(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)|"
                      r"\b(?:half|third|quarter|fifth|tenth)s?\b|\bone\b[\w\s]{0,20}\bin\s+(?:two|three|four|five|ten)\b",
                      re.IGNORECASE)


def has_number(text: str) -> bool:
    """Whether a quote states a quantity: digits, a number word from twenty up, a fraction word
    (``a fifth``) or a rate (``one … in five``). Small number words (``one grade``, ``twice``) are
    ordinary prose and do not count."""
    return bool(_NUMERIC.search(text))


#: A percent sign after a space, as French and SI typesetting print it: "61.1 %", "61.1\u2009%", LaTeX's "61.1\\,\\%".
_SPACED_PERCENT = re.compile(r"(?:[ \u2009\u202f\u00a0]|\\,)\\?%")


def printed_values(text: str) -> list[str]:
    """Every value printed in ``text`` (decimals, fractions, percentages, number words, fractions in words), in
    order, as written."""
    grouped = [(m.start(), m.end()) for m in _GROUPED.finditer(text)]  # 1,048,576 is one number
    fractions = [(m.start(), m.end(), f"{m.group(1)}/{m.group(2)}") for m in _LATEX_FRACTION.finditer(text)]
    # a log's base (log2, \log_2, \log_{2}) and a LaTeX index (\sum_{i=1}^{3}, g_i) print no value
    hidden = grouped + [(a, b) for a, b, _ in fractions] + [(m.start(), m.end()) for m in _NOT_PRINTED.finditer(text)]
    found = [(a, text[a:b]) for a, b in grouped] + [(a, v) for a, _, v in fractions] + [
        (m.start(), m.group(0)) for m in re.finditer(VALUE, text, re.IGNORECASE)
        if not any(a <= m.start() < b for a, b in hidden)]
    out = []
    for a, value in sorted(found):
        b = a + len(value)
        if (value[:1].isdigit() or value[:1] == ".") and _SIGN.search(text[:a]):  # −0.05, not the 0.05 of 1 − 0.05
            value = text[a - 1] + value
        if text[b:b + 2] == "\\%" or _SPACED_PERCENT.match(text, b):  # LaTeX's percent sign; "61.1 %", "61.1\\,\\%"
            value += "%"
        out.append(value)
    return out


def printed_correction(quote: str, claimed: ClaimedValue, new: str) -> tuple[str, str] | None:
    """The text to change in ``quote`` for a claimed value the register writes otherwise than the sentence (the
    register's "< 1/3" for the sentence's "less than a third"), and what to write instead, in the sentence's own
    style: ``("a third", "two fifths")`` for the new value ``new`` ("< 2/5"). The printed token is the one whose
    number is the claim's (its bound, for a bound). None when the register's text is in the quote as it is, or no
    printed token, or more than one, stands for the claimed number."""
    if str(claimed.text).strip() in quote:
        return None
    number = claimed.number
    try:
        replacement = parse_claimed(new).number
    except ValueParseError:
        return None
    if number is None or replacement is None:
        return None
    tokens = []
    for token in dict.fromkeys(printed_values(quote)):
        try:
            printed = parse_claimed(token)
        except ValueParseError:
            continue
        if printed.nominal == number and quote.count(token) == 1:
            tokens.append((token, printed))
    if len(tokens) != 1:
        return None
    token, printed = tokens[0]
    return token, printed.write_like(replacement)


#: A LaTeX fraction of two numbers (``\\frac{3}{4}``, ``\\tfrac``, ``\\dfrac``): printed as the value ``3/4``.
_LATEX_FRACTION = re.compile(r"\\[dt]?frac\s*\{\s*(\d+(?:\.\d+)?)\s*\}\s*\{\s*(\d+(?:\.\d+)?)\s*\}")
#: Digits that are part of a name, not a value: a logarithm's base and a LaTeX sub- or superscript index.
_NOT_PRINTED = re.compile(r"\blog_?(?:2|10)\b|\\log_\s*\{?\s*\d+\s*\}?|\\(?:sum|prod)\s*_\s*\{[^{}]*\}\s*\^\s*\{?[^{}\s]*\}?|"
                          r"(?<=[A-Za-z])_\{?\w+\}?")
#: A number written with thousands separators: "1,048,576", LaTeX's "1{,}048{,}576" and "1\\,048\\,576", or thin,
#: no-break and plain spaces between groups of three ("1 048 576"), the first group without a leading zero.
_GROUPED = re.compile(r"(?<![\d,.])(?:\d{1,3}(?:,\d{3})+|[1-9]\d{0,2}(?:(?:\{,\}|\\,|[\u2009\u202f\u00a0\u2007 ])\d{3})+)"
                      r"(?:\.\d+)?(?![\d,]\d)(?!\{)")
#: A minus sign printed right before a number that is no operand of a subtraction: after the start, a space that
#: follows a word other than a number or a closing parenthesis, "(", "=", "≈" or ":".
_SIGN = re.compile(r"(?:^|(?<=[\s(=≈:])(?<![\d)]\s))[−-]$")


# --- the sentence sweep -------------------------------------------------------------------------

#: What makes a sentence worth a reader's look even when no statement shape matches: a number (digits, a number
#: word, a fraction word), a comparison, or a universal word.
_SWEEP_NUMBER = re.compile(rf"\d|\b{WORD_NUMBER}\b|\b(?:half|halves|thirds?|quarters?|fifths?|tenths?|hundred|"
                           r"thousand|million|once|twice)\b", re.IGNORECASE)
_SWEEP_COMPARISON = re.compile(
    r"[<>≤≥]|\b(?:than|more|less|fewer|higher|lower|greater|smaller|larger|above|below|better|worse|exceeds?|"
    r"exceeded|beats?|outperforms?|between|differs?|different|difference|same|equal|equals|matches|agrees?|"
    r"disagrees?|rises?|falls?|drops?|increases?|decreases?|raises?|lowers?|improves?|hurts?|widens?|narrows?)\b",
    re.IGNORECASE)
_SWEEP_UNIVERSAL = re.compile(r"\b(?:all|every|each|any|none|never|always|only|whenever|nothing|no)\b",
                              re.IGNORECASE)
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def sweep_reasons(sentence: str) -> list[str]:
    """What a sentence holds that a claim register should look at: ``number``, ``comparison``, ``universal``
    (in that order; inline code such as ``k=10`` or ``P_5`` is a name, not a number; a document id such as ``p8``
    holds one, as "which gives p8, p5, p1" states an order)."""
    plain = _INLINE_CODE.sub(" ", sentence)
    numbers = _NOT_A_QUANTITY.sub(" ", plain)
    return [name for name, pattern in (("number", _SWEEP_NUMBER), ("comparison", _SWEEP_COMPARISON),
                                       ("universal", _SWEEP_UNIVERSAL))
            if pattern.search(numbers if name == "number" else plain)]


#: Numbers that state no quantity: a list item's or heading's numbering ("1.", "1.1.3."), a URL, a date, a year.
_MONTHS = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_NOT_A_QUANTITY = re.compile(rf"^\s*#*\s*\d+(?:\.\d+)*[.)]\s|^\s*#*\s*\d+(?:\.\d+)*[.)]?\s*$|https?://\S+|www\.\S+|"
                             rf"\b{_MONTHS}\s+\d{{1,2}},?\s+\d{{4}}\b|\b\d{{1,2}}\s+{_MONTHS}\s+\d{{4}}\b|"
                             rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:19|20)\d{{2}}\b(?![.,]\d)", re.MULTILINE)


def unread_sentences(text: str, markdown: bool = False, found: list[Statement] | None = None) -> list[Statement]:
    """The sentences (and list items, and display formulas) the scanner reads as no statement but that hold a
    number, a comparison or a universal word (``sweep_reasons``): a statement shape the scanner does not know
    ("Every measure in this output lies between 0 and 1", "so we reject the null hypothesis", a
    ``\\sum`` formula with its value), which a report still lists as uncovered unless a claim quotes it. Each is a
    ``Statement`` whose ``kind`` is ``unread: `` and its reasons (``unread: number, universal``). ``found``: the
    scanner's statements on ``text`` (computed when not given); table rows, ``def`` lines and output lines are the
    scanner's alone."""
    found = scan_text(text, markdown) if found is None else found
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for u in units(text, markdown):
        if u.kind not in ("sentence", "formula") or any(s.start < u.end and u.start < s.end for s in found):
            continue
        body = text[u.start:u.end]
        if body.lstrip().startswith("[..."):
            continue
        reasons = sweep_reasons(body)
        if reasons:
            line = bisect_right(starts, u.start)
            out.append(Statement("unread: " + ", ".join(reasons), body, line, u.start - starts[line - 1] + 1,
                                 u.start, u.end))
    return out
