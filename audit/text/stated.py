"""Evaluation conventions a chapter's wording states, recognised for ``audit init``.

``WORDINGS`` is the one table: each row is a convention (``audit.measures.conventions``), the value a
wording sets, and a pattern for that wording. ``stated_in`` reads one unit of text (a sentence,
list item or table row from ``audit.text.scan.units``); ``declare`` reads a chapter's units and
returns the ``conventions:`` mapping for ``chapter.yaml``, each statement with its quote.

Two rules keep the reading honest:

* a unit that names two values of one convention is describing the alternatives ("scored with
  unjudged documents as zero …; dropping them first leaves the condensed list …"), so neither is
  declared from it;
* two different values of one convention stated in different units are both written: that is an
  internal tension, which the audit reports with both quotes.

A wording that does not settle a value is not read as one: "the ideal order sorts the judged
documents" leaves open whether the ideal DCG is cut at k, and "ties are broken by docno" without
a direction leaves open which way; neither is declared. Nor is a negated wording ("divides by the
cutoff, not by the number retrieved" states k only), a gain outside a sentence about DCG or its gain
(ERR's stopping probability (2^g − 1)/2^4 is no nDCG gain), a gain presented as a variant ("the
same with gain 2^g − 1", "uses gain 2^g − 1 instead"), or ERR divided by 2^N for a top grade N the
sentence does not show ("divides by 2^2: a list graded [2, 0, 1]" states the highest grade judged;
"divides by 2^4" states gdeval's 4).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from audit.measures.conventions import CONVENTIONS, LATEX_GRADE, accepts

#: A run of digits read as a number: at most its last 12 digits (a longer run is read as a number of 12 digits, which
#: no grade, rank or count of a text reaches), so that a 5,000-digit run never meets Python's limit on converting
#: digit strings (an internal error in ``audit init``). Every reader of digit runs in a text uses it.
DIGITS = re.compile(r"\d{1,12}(?!\d)")

_I = re.IGNORECASE
_RELEVANT = r"(?:relevant|positive)"
_DOC = r"(?:documents?|docs?|results?|passages?|chunks?|items?|IDs?|products?|pages?|records?|hits?)"
_K = r"(?:k|\d+|the\s+(?:requested\s+)?cutoff(?:\s+k)?)"

#: Most characters a wording may put between its words (a gap written ``[^.;]*``, ``(?:[^.;]|\\.\\d)*``, ``[^.]*``,
#: ``[^)]*`` or ``.*`` is read as at most ``GAP`` of them). Unbounded, each mention of a measure in a long clause was
#: read to the clause's end: a sentence printing "P@1 = 1/2" 1,000 times took seconds, growing with the square of
#: its length. Bounded, one match attempt examines at most ``WORDING_WIDTH`` characters (whitespace and word runs
#: aside), so reading a unit is linear in its length.
GAP = 400
WORDING_WIDTH = 2_000
_GAP = re.compile(r"\(\?:\[\^\.;\]\|\\\.\\d\)\*|(?<!\\)\[\^(?:\\.|[^\]\\])*\]\*|(?<!\\)\.\*")


def _bounded(pattern: str) -> str:
    """``pattern`` with each gap between a wording's words (greedy or lazy) at most ``GAP`` characters."""
    return _GAP.sub(lambda m: m.group()[:-1] + f"{{0,{GAP}}}", pattern)


#: (convention, value, pattern). A row lists its pattern in pieces, joined. ``value`` None: the pattern's ``level`` group gives the relevance
#: level (``grade 2 or more`` → 2; ``grade above 1`` → 2 through the ``above`` group).
WORDINGS: tuple[tuple[str, str | None, re.Pattern], ...] = tuple(
    (name, value, re.compile(_bounded("".join(parts)), _I)) for name, value, *parts in (
        # --- the evaluated prefix and repeated IDs ------------------------------------------------
        ("prefix", "first k distinct IDs", r"\bfirst\s+k\s+distinct\s+(?:IDs?|documents?|results?)"),
        ("prefix", "first k results", r"\bfirst\s+k\s+(?:positions|results),\s+(?:repeats|duplicates)\s+included"),
        ("repeated_ids", "reject", r"\brejects?\s+(?:any\s+|a\s+|the\s+)?(?:ranking|run)s?\s+(?:that|which)\s+",
                                   r"repeats?|\brejects?\s+repeated\s+(?:result\s+)?(?:IDs?|docnos?|documents?)|",
                                   r"\brepeated\s+(?:result\s+)?(?:IDs?|docnos?)\s+(?:are|is)\s+(?:rejected|an\s+error)|",
                                   r"\b(?:refuses?|rejects?)\s+(?:a|any)\s+run\s+that\s+lists\s+the\s+same\s+",
                                   r"document\s+twice|\ba\s+duplicate\s+is\s+an\s+error\b"),
        ("repeated_ids", "keep first", r"\bfirst\s+k\s+distinct\s+IDs|\bkeeps?\s+(?:only\s+)?the\s+first\s+",
                                       r"(?:copy|occurrence)|\brepeated\s+ID\s+(?:is\s+)?(?:counted|kept)\s+once,?\s+",
                                       r"at\s+its\s+first|\bde-?duplicat\w*\b[^.;]*\bfirst\s+(?:copy|occurrence)|",
                                       r"\bonly\s+the\s+first\s+(?:copy|occurrence)\s+(?:counts|is\s+kept)|",
                                       # "If a ranking lists a document twice, only its first position counts."
                                       r"\b(?:lists?|returns?|holds?|contains?)\s+(?:a|the\s+same)\s+(?:document|doc|"
                                       r"passage|item|ID)\s+(?:twice|more\s+than\s+once)\b[^.;]*\bonly\s+(?:its|the)\s+",
                                       r"first\s+(?:position|copy|occurrence|rank)\s+(?:counts|is\s+kept|is\s+scored)|",
                                       r"\blater\s+(?:copies|occurrences|duplicates)\s+(?:are\s+)?(?:dropped|ignored|",
                                       r"removed)|\b(?:duplicate|repeated)\s+(?:IDs?|documents?|chunks?)\b[^.;]*\b",
                                       r"ignored\s+after\s+(?:their|its|the)\s+first\s+(?:copy|occurrence)"),
        ("repeated_ids", "keep last", r"\bkeeps?\s+(?:only\s+)?the\s+last\s+(?:copy|occurrence|score)|",
                                      r"\brepeated\s+ID\s+(?:is\s+)?(?:counted|kept)\s+once,?\s+at\s+its\s+last"),
        ("repeated_ids", "count each", r"\b(?:every|each)\s+(?:copy|occurrence)\s+of\s+a\s+repeated\s+ID\s+",
                                       r"(?:counts|is\s+counted)"),
        # --- P@k's denominator ---------------------------------------------------------------------
        ("precision_denominator", "k", r"\bdivides?\s+by\s+k\b|\b(?:P(?:@k|_\w+)?|precision|trec_eval)\b[^.;]*\bdivides?\s+",
                                       r"by\s+the\s+cutoff\b|\bdenominator\s+is\s+(?:the\s+)?",
                                       r"(?:requested\s+)?(?:cutoff\s+)?k\b|\bof\s+the\s+k\s+retrieved\b|",
                                       r"(?:^|\|\s*)k,\s+kept\s+even\s+when\s+fewer"),
        ("precision_denominator", "number returned",
         rf"\b(?:divides?|divided)\s+(?:the\s+relevant\s+results\s+)?by\s+the\s+number\s+of\s+{_DOC}\s+",
         r"(?:the\s+system\s+|it\s+|actually\s+)?(?:returned|retrieved)|\bdenominator\s+is\s+the\s+number\s+",
         rf"(?:of\s+{_DOC}\s+)?(?:returned|retrieved)"),
        # a formula, in the plain notation of a LaTeX one (``scan.latex_plain``): P@k = (…)/(k)
        ("precision_denominator", "k", r"\bP@k\s*=\s*\(.*\)\s*/\s*\(\s*k\s*\)"),
        # …/(number of recommended items @k): the results returned in the top k, counted
        ("precision_denominator", "number returned",
         r"\b(?:P|Precision)\s*@\s*k\s*=\s*\(.*\)\s*/\s*\(\s*(?:the\s+)?(?:number|count|#)\s+of\s+(?:the\s+)?",
         rf"(?:recommended|returned|retrieved|predicted)\s+{_DOC}\s*(?:@\s*k|at\s+k|in\s+the\s+top[-\s]k)?\s*\)"),
        ("precision_denominator", "min(k, |R|)", r"\bdivides?\s+by\s+the\s+smaller\s+of\s+k\s+and\b|",
                                                 r"\bmin\s*\(\s*k\s*,\s*\|R\|\s*\)"),
        # --- ties ------------------------------------------------------------------------------------
        ("ties", "listed order", r"\b(?:ties?|tied)\b[^.]*\b(?:keep|kept|preserves?|preserved|in)\s+(?:the\s+)?",
                                 r"(?:listed|reference|given|original|established\s+(?:full-)?reference)\s+order|",
                                 r"\bresolve\s+score\s+ties\s+using\s+the\s+(?:established\s+)?(?:full-)?reference\s+order|",
                                 r"\bunder\s+the\s+listed\s+order\b"),
        ("ties", "docno descending", r"\b(?:ties?|tied)\b[^.]*\bby\s+(?:docno|document\s+ID)s?,?\s+(?:in\s+)?descending|",
                                     r"\bdocno\s+descending\b|\breverse\s+(?:docno|document\s+ID)\s+order"),
        ("ties", "docno ascending", r"\b(?:ties?|tied)\b[^.]*\bby\s+(?:docno|document\s+ID)s?,?\s+(?:in\s+)?ascending|",
                                    r"\bdocno\s+ascending\b"),
        # --- unjudged documents -----------------------------------------------------------------------
        ("unjudged", "non-relevant", rf"\bunjudged\s+(?:{_DOC}|returns?)\s+(?:count|counts|are\s+counted|",
                                     r"are\s+treated|is\s+treated|are\s+scored|is\s+scored)\s+as\s+(?:not\s+relevant|",
                                     r"non-?relevant|irrelevant|zero|0)\b|\btreats?\s+(?:unknown\s+labels|unjudged\s+",
                                     rf"(?:{_DOC}|returns?))\s+as\s+(?:zero|0|non-?relevant|not\s+relevant)\b|",
                                     # "a document that is not in the judgements has grade 0"
                                     r"\b(?:not|missing)\s+(?:in|from)\s+the\s+(?:judge?ments|qrels|labels)\s+(?:has|have|",
                                     r"gets?|counts?\s+as|is\s+given)\s+(?:a\s+)?grade\s+(?:0|zero)\b|",
                                     # "documents that nobody judged count as not relevant"
                                     r"\b(?:nobody|no\s+one|never)\s+judged\b[^.]{0,60}?\b(?:count|counts|are\s+counted|",
                                     r"is\s+counted|are\s+treated|is\s+treated)\s+as\s+(?:not\s+relevant|non-?relevant|",
                                     r"irrelevant)\b"),
        ("unjudged", "removed", rf"\bunjudged\s+{_DOC}\s+(?:are|is)\s+(?:removed|dropped|discarded)|",
                                rf"\b(?:removes?|drops?|discards?)\s+(?:the\s+)?unjudged\s+{_DOC}\s+",
                                r"(?:first|before)|\b(?:scored\s+)?on\s+(?:the|a)\s+condensed\s+lists?\b"),
        # --- nDCG -----------------------------------------------------------------------------------
        ("gain", "linear", r"\blinear\s+(?:gain|n?DCG)\b|\bgain\s+(?:is\s+)?(?:equal\s+to|=|equals|is)\s+(?:the\s+|its\s+)?grade\b|",
                           rf"\bgain\s+of\s+(?:a|each|every)\s+(?:{_DOC}|document)\s+is\s+(?:its|the)\s+grade\b|",
                           r"\b(?:with\s+)?the\s+grade\s+(?:itself\s+)?as\s+(?:the\s+|its\s+)?gain\b|",
                           # LaTeX: \frac{rel_i}{\log_2(i+1)} — the grade itself over the discount
                           r"\\frac\s*\{\s*" + LATEX_GRADE + r"(?:_\{?\w+\}?)?\s*\}\s*\{\s*\\log"),
        ("gain", "exponential", r"\bexponential\s+(?:gain|n?DCG)\b|\bgain\s+is\s+exponential\b|(?<![(/])2\s*\^\s*(?:grade|g|rel)\s*",
                                r"[−-]\s*1\b(?!\s*\)?\s*/)|(?<![(/])\b2\s*\*\*\s*(?:grade|g|rel)\s*[−-]\s*1\b(?!\s*\)?\s*/)|",
                                # LaTeX: \frac{2^{g_i}-1}{\log_2(i+1)} — exponential gain over a log discount (not
                                # ERR's (2^g − 1)/2^g_max)
                                r"\\frac\s*\{\s*2\s*\^\s*\{?\s*" + LATEX_GRADE + r"(?:_\{?\w+\}?)?\s*\}?\s*[−-]\s*1\s*\}",
                                r"\s*\{\s*\\log"),
        ("ideal", "judged, cut at k", r"\bideal\b[^.]*\b(?:all|every)\s+judged\s+(?:grades?|documents?)[^.]*\b",
                                      r"(?:(?:cut|truncated)\s+at\s+k|keeps?\s+(?:only\s+)?the\s+(?:first|top|best)\s+k)\b|"
                                      r"\bideal\s+DCG@k\s+for\s+the\s+same\s+judge?ments\b"),
        ("ideal", "judged, whole list", r"\bideal\b[^.]*\b(?:all|every)\s+judged\s+(?:grades?|documents?)[^.]*\b",
                                        r"not\s+cut\s+at\s+k\b"),
        ("ideal", "retrieved only", r"\bideal\b[^.]*\b(?:re-?sorts?|sorts?)\s+only\s+the\s+(?:retrieved|returned)\b"),
        ("ideal", "all retrieved, cut at k", r"\bideal\b[^.]*\b(?:(?:all|every)\s+(?:the\s+)?(?:retrieved|returned)\s+",
                                             rf"(?:{_DOC}|grades?|labels?)\b(?!\s+(?:with)?in\b)|sorts?\s+(?:those|these|the\s+"
                                             r"(?:given|retrieved|returned))\s+(?:labels|grades))[^.]*\b(?:(?:cut|truncated)\s+",
                                             r"at\s+k|keeps?\s+(?:only\s+)?the\s+(?:first|top|best)\s+k)\b|",
                                             # "takes its ideal from the labels it is given, sorted best first and cut at k"
                                             r"\bideal\b[^.]*\bfrom\s+the\s+(?:labels|grades)\s+(?:it\s+is|it's|they\s+are)\s+",
                                             r"given\b[^.]*\b(?:(?:cut|truncated)\s+at\s+k|keeps?\s+(?:only\s+)?the\s+",
                                             r"(?:first|top|best)\s+k)\b"),
        # --- AP's denominator -----------------------------------------------------------------------------
        ("ap_denominator", "|R|", r"\b(?:average\s+precision|AP|MAP)\b[^.;]*\b(?:divides?|divided|normali[sz]e[sd]?|",
                                  r"averaged?)\s+(?:(?:the\s+|its\s+)?sum\s+)?(?:by|over)\s+(?:all\s+(?:(?:the|\w+)\s+)?|",
                                  r"the\s+(?:total\s+)?number\s+of\s+(?:all\s+)?|\|R\|)(?:known[- ])?",
                                  rf"{_RELEVANT}\s+{_DOC}\b(?!\s+(?:retrieved|returned|found|in\s+the\s+(?:run|ranking|list)))|",
                                  r"\b(?:average\s+precision|AP)\b[^.;]*\b(?:divides?|divided)\s+by\s+\|R\||",
                                  r"\b(?:average\s+precision|AP|MAP)\b[^.;]*\bcontribut\w*\s+(?:at\s+most\s+)?1\s*/\s*\|R\||",
                                  r"\b(?:average\s+precision|AP|MAP)\b[^.;]*\b(?:divides?|divided|divisor|denominator)\b[^.;]*",
                                  r"\bwhether\s+or\s+not\s+(?:they|it)\s+(?:were|was|are|is)\s+(?:retrieved|returned|found)"),
        ("ap_denominator", "|R|", r"\b(?:AP|MAP)\b(?:\s*\([^)]*\))?\s*=\s*\(\s*1\s*\)\s*/\s*\(\s*\|R\|\s*\)"),
        # a sentence's own condition: "… when its denominator is the full relevant set"
        ("ap_denominator", "|R|", r"\b(?:average\s+precision|AP|MAP)\b[^.;]*\b(?:denominator|divisor)\s+is\s+(?:the\s+)?",
                                  rf"(?:(?:full|whole|entire|complete)\s+(?:relevant\s+set|set\s+of\s+{_RELEVANT}\s+{_DOC})|",
                                  r"\|R\|)"),
        ("ap_denominator", "relevant retrieved", r"\b(?:average\s+precision|AP|MAP)\b[^.;]*\b(?:divides?|divided|",
                                                 r"averaged?)\s+(?:(?:the\s+|its\s+)?sum\s+)?(?:by|over)\s+",
                                                 r"(?:the\s+(?:number\s+of\s+)?)?",
                                                 rf"{_RELEVANT}\s+{_DOC}\s+(?:retrieved|returned|found)"),
        ("ap_denominator", "min(k, |R|)", r"\b(?:average\s+precision|AP)\b[^.;]*\b(?:divides?|divided)\s+by\s+",
                                          r"min\s*\(\s*k\s*,\s*\|?R\|?\s*\)|\b(?:average\s+precision|AP)\b[^.;]*\b",
                                          r"(?:divides?|divided)\s+by\s+the\s+smaller\s+of\s+k\s+and\b"),
        # --- ERR's top grade (Chapelle et al. 2009: (2^g − 1) / 2^g_max; gdeval: 2^4) ------------------------
        ("err_max_grade", "4", r"(?:\bERR\b|expected\s+reciprocal\s+rank|\bsatisf|\bstopping\s+probabilit)(?:[^.;]|\.\d)*?(?:2\s*\^\s*g\s*[−-]\s*1\s*\)?\s*",
                               r"/\s*(?:2\s*\^\s*4|16)\b|\bdivide[sd]?\s+by\s+(?:2\s*\^\s*4|16)\b)|",
                               r"\(2\s*\^\s*g\s*[−-]\s*1\s*\)\s*/\s*(?:2\s*\^\s*4|16)\b"),
        ("err_max_grade", "highest grade judged", r"(?:\bERR\b|expected\s+reciprocal\s+rank|\bsatisf|\bstopping\s+probabilit)(?:[^.;]|\.\d)*?",
                                                  r"(?:2\s*\^\s*\(?\s*g_?max|2\s*\^\s*\(?\s*(?:the\s+)?(?:highest|top|maximum|max)",
                                                  r"\s+grade|\b2\s+to\s+the\s+(?:power\s+of\s+the\s+)?(?:highest|top|",
                                                  r"maximum)\s+grade|\bdivide[sd]?\s+by\s+2\s+to\s+the\s+(?:highest|top|",
                                                  r"maximum)\s+grade)"),
        ("err_max_grade", None, r"(?:\bERR\b|expected\s+reciprocal\s+rank|\bsatisf|\bstopping\s+probabilit)(?:[^.;]|\.\d)*?\b(?:divide[sd]?\s+by\s+|\)\s*/\s*)",
                                r"2\s*\^\s*\(?\s*(?P<top>\d)\b|\bdivide[sd]?\s+by\s+2\s*\^\s*(?P<top2>\d)\b(?:[^.;]|\.\d)*?",
                                r"(?:\bERR\b|expected\s+reciprocal\s+rank)|",
                                # "g_max = 3" in a unit about ERR
                                r"(?:\bERR\b|expected\s+reciprocal\s+rank)(?:[^.;]|\.\d)*?\bg_?\{?max\}?\s*=\s*(?P<gmax>\d)\b|",
                                r"\bg_?\{?max\}?\s*=\s*(?P<gmax2>\d)\b(?:[^.;]|\.\d)*?(?:\bERR\b|expected\s+reciprocal\s+rank)"),
        # --- RBP's gain (Moffat & Zobel 2008: binary; ranx: the grade) --------------------------------------------
        ("rbp_gain", "binary", r"(?:\bRBP\b|rank-biased\s+precision|\brbp\.\d+)(?:[^.;]|\.\d)*?(?:\br_i\s+is\s+1\s+for\s+a\s+",
                               rf"{_RELEVANT}\s+{_DOC}\s+and\s+0\s+otherwise|\bcounts?\s+(?:a|each|every)\s+",
                               rf"{_RELEVANT}\s+{_DOC}\s+as\s+(?:1|one)\b|\bbinary\s+(?:relevance|gains?)\b)"),
        ("rbp_gain", "grade", r"(?:\bRBP\b|rank-biased\s+precision|\brbp\.\d+|\brbp\b)(?:[^.;]|\.\d)*?(?:\bweigh[ts]?\w*\s+",
                              rf"(?:(?:a|each|every)\s+(?:{_RELEVANT}\s+)?{_DOC}\s+)?by\s+(?:its|their|the)\s+grades?\b|",
                              r"\br_i\s+is\s+(?:the|its)\s+grade\b|\bcounts?\s+(?:a|each|every)\s+",
                              rf"(?:{_RELEVANT}\s+)?{_DOC}\s+(?:as|by)\s+its\s+grade\b)"),
        # --- grades below the relevance level (trec_eval keeps their gain, ranx's -l drops them) -----------------
        ("level_gain", "dropped", r"\bgrades?\s+below\s+(?:it|the\s+(?:relevance\s+)?level|that\s+level|this\s+level)\s+",
                                  r"(?:are|is)\s+(?:dropped|removed|ignored|discarded)\b|\bgrades?\s+below\s+(?:it|the\s+",
                                  r"(?:relevance\s+)?level)\s+(?:give|gives|contribute|contributes|earn|earns|add|adds)\s+",
                                  r"no\s+gain\b"),
        ("level_gain", "kept", r"\bgrades?\s+below\s+(?:it|the\s+(?:relevance\s+)?level)\s+still\s+(?:give|gives|contribute|",
                               r"contributes|count|counts|earn|earns)\b|\B-l\b(?:[^.;]|\.\d)*\bbinary\s+measures\s+only\b"),
        # --- interpolated precision's recall level ----------------------------------------------------------------
        ("iprec_level", "recall ≥ r", r"\bprecision\s+(?:seen\s+|found\s+)?at\s+(?:this|a|that|the)\s+recall\s+level\s+",
                                      r"or\s+(?:at\s+)?any\s+higher\b|\brecall\s+(?:of\s+)?at\s+least\s+r\b|\brecall\s*(?:≥|>=)\s*r\b"),
        ("iprec_level", "round(r·|R|) relevant", r"\bl?round\s*\(\s*r\s*[·*×]\s*\|?R\|?\s*\)"),
        ("iprec_level", "floor(r·|R| + 0.9) relevant", r"\br\s*[·*×]\s*\|?R\|?\s*\+\s*0?\.9\b"),
        # --- GMAP's floor ----------------------------------------------------------------------------------
        ("gmap_floor", "floored", r"\b(?:replaces?|floors?|floored|clamps?|raises?)\b(?:[^.;]|\.\d)*\b(?:AP|average\s+precision)"
                                  r"\b(?:[^.;]|\.\d)*\b(?:0\.00001|1e-5|10\^-5|10⁻⁵)|\b(?:AP|average\s+precision)\s+of\s+0\s+"
                                  r"(?:is\s+)?(?:replaced|floored|raised)\s+(?:by|to|at)\s+0\.00001|\b(?:GMAP|gm_map)\b(?:[^.;]|\.\d)*"
                                  r"\bfloors?\b(?:[^.;]|\.\d)*\b0\.00001"),
        ("gmap_floor", "none", r"\b(?:GMAP|gm_map|geometric\s+mean)\b(?:[^.;]|\.\d)*\b(?:without\s+(?:a|any)\s+floor|no\s+floor|"
                               r"(?:is\s+)?the\s+plain\s+geometric\s+mean)\b"),
        # --- relevance level ----------------------------------------------------------------------------
        ("relevance_level", None, rf"\b(?:counts?\s+as|is|are|considered)\s+{_RELEVANT}\s+when\s+(?:its|their|the)\s+",
                                  r"grades?\s+(?:is\s+)?(?P<level>[123])\s+or\s+(?:more|higher|above)|\bgrades?\s*",
                                  r"(?:≥|>=|of\s+at\s+least|at\s+least)\s*(?P<level2>[123])\s+(?:counts?|is|are)\s+",
                                  rf"(?:as\s+)?{_RELEVANT}|\bgrades?\s+above\s+(?P<above>[012])\s+(?:counts?|is|are)\s+",
                                  rf"(?:as\s+)?{_RELEVANT}|\bknown\s+positive\s+relevance\s+grade|",
                                  # "a document is relevant if its grade is 1 or more" / "… at least 2"
                                  rf"\b{_RELEVANT}\s+(?:if|when)\s+(?:its|their|the)\s+grades?\s+(?:is\s+|are\s+)?",
                                  r"(?:(?P<level4>[123])\s+or\s+(?:more|higher|above)|at\s+least\s+(?P<level5>[123])|",
                                  r"(?:≥|>=)\s*(?P<level6>[123]))|",
                                  # "a document with grade 1 or more counts as relevant"
                                  r"\bwith\s+(?:a\s+)?grades?\s+(?:of\s+)?(?P<level8>[123])\s+or\s+(?:more|higher|above)\s+",
                                  rf"(?:counts?|is|are)\s+(?:as\s+)?{_RELEVANT}\b|",
                                  # "the leaderboard only counts grade-2 passages" / "counts only grade 2 documents"
                                  rf"\b(?:only\s+counts?|counts?\s+only)\s+grade[- ](?P<level7>[123])\s+(?:{_DOC}|"
                                  r"judge?ments)\b"),
        # --- RR's cutoff --------------------------------------------------------------------------------
        ("rr_cutoff", "applied", rf"\b(?:M?RR|(?:mean\s+)?reciprocal\s+rank)\s*@\s*{_K}\b[^.]*\b(?:counts?\s+only|only\s+",
                                 r"counts?|looks?\s+only\s+at|within)\s+the\s+first\b|\b(?:M?RR|reciprocal\s+rank)\b",
                                 rf"[^.]*\bcounts?\s+only\s+the\s+first\s+(?:k|\d+|{_DOC})|",
                                 rf"\b(?:M?RR|reciprocal\s+rank)\s*@\s*{_K}\b[^.]*\b(?:gives?|scores?)\b[^.]*\b0\b[^.]*\b",
                                 r"(?:below|after|past|beyond)\s+(?:rank\s+)?(?:k|\d+)\b"),
        ("rr_cutoff", "ignored", r"\b(?:M?RR|reciprocal\s+rank)\b[^.]*\b(?:has\s+no\s+cutoff|ignores?\s+the\s+cutoff|",
                                 r"on\s+the\s+whole\s+ranking)"),
        # --- averaging over queries ----------------------------------------------------------------------
        ("averaging", "queries with results", r"\baverag\w*\s+over\s+(?:the\s+)?(?:queries|needs|questions)\s+",
                                              r"(?:that\s+)?(?:returned\s+results|with\s+results)"),
        ("averaging", "all judged queries", r"\baverag\w*\s+(?:\w+\s+)?(?:over|across)\s+(?:all|every)\s+(?:the\s+)?",
                                            r"(?:judged\s+|labell?ed\s+)?(?:queries|query|needs?|questions?)\b|",
                                            r"\baverage\s+each\s+over\s+the\s+labell?ed\s+set\b"),
        ("averaging", "pooled", r"\bpooled\s+over\s+(?:the\s+)?(?:queries|needs|questions)\b"),
        # --- a query with no relevant document -----------------------------------------------------------
        ("no_relevant", "scores 0", r"\b(?:query|need|question)s?\s+(?:with|that\s+ha(?:s|ve))\s+no\s+relevant\s+(?:judged\s+)?",
                                    rf"{_DOC}[^.;]*\bscores?\s+(?:0|zero)\b"),
        ("no_relevant", "left out", r"\b(?:query|need|question)s?\s+(?:with|that\s+ha(?:s|ve))\s+no\s+relevant\s+",
                                    rf"{_DOC}[^.;]*\b(?:is|are)\s+(?:left\s+out|dropped|excluded|skipped)\b"),
        # --- a query whose qrels entry is empty ----------------------------------------------------------------
        ("no_qrels", "left out", r"\b(?:query|topic|need|question)s?\s+(?:with|that\s+ha(?:s|ve))\s+(?:no\s+(?:qrels|",
                                 r"judge?ments|lines?\s+in\s+the\s+qrels)|an\s+empty\s+qrels\s+entry)[^.;]*\b(?:is|are)\s+",
                                 r"(?:left\s+out|skipped|dropped|ignored)\b"),
        ("no_qrels", "scores 0", r"\b(?:query|topic|need|question)s?\s+(?:with|that\s+ha(?:s|ve))\s+(?:no\s+(?:qrels|",
                                 r"judge?ments|lines?\s+in\s+the\s+qrels)|an\s+empty\s+qrels\s+entry)[^.;]*\bscores?\s+",
                                 r"(?:0|zero)\b"),
    ))

#: A reference's option a sentence names (trec_eval -J, ir-measures' judged_only, trec_eval -l 2): what that
#: reference computes with the option, stated for that sentence only. "`trec_eval -l 2` counts only grade ≥ 2 as
#: relevant" describes an option, not the chapter's rule, so it never becomes a chapter's or a section's convention
#: (``stated_in(…, options=False)``).
OPTION_WORDINGS: tuple[tuple[str, str | None, re.Pattern], ...] = tuple(
    (name, value, re.compile("".join(parts), _I)) for name, value, *parts in (
        ("unjudged", "removed", r"\btrec_eval\s+(?:with\s+)?-J\b|\bjudged_only\s*=\s*True\b"),
        ("relevance_level", None, r"\btrec_eval\s+(?:with\s+)?-l\s*(?P<level3>[123])\b"),
    ))

#: A wording negated ("not by the number retrieved", "never min(k, R)", "rather than removed") states what the
#: text does not do.
_NEGATED = re.compile(r"\b(?:not|never|rather\s+than|instead\s+of|without|unlike)\s+(?:by\s+)?$", re.IGNORECASE)
#: A gain wording that presents another definition ("the same with gain 2^g − 1", "uses gain 2^g − 1 instead")
#: describes a variant, not the text's own nDCG.
_VARIANT = re.compile(r"\binstead\b|\bthe\s+same\s+with\b|\bvariant\b|\bburges\b", re.IGNORECASE)
#: The gain convention is nDCG's: a wording counts only in a unit about DCG or its gain (ERR's ``(2^g − 1)/2^4``
#: is a stopping probability, not a gain).
_ABOUT_GAIN = re.compile(r"\bn?DCG\b|\bdcg_|discounted\s+cumulative\s+gain|\bgains?\b", re.IGNORECASE)
_ABOUT_OTHER = re.compile(r"\bERR\b|expected\s+reciprocal\s+rank|\bsatisf|\bprobabilit|\bRBP\b|rank-biased",
                          re.IGNORECASE)


#: Where a text shows its grade scale: a graded list ("[2, 0, 1]"), a range ("0–2", "from 0 to 3") or its top
#: ("tops out at 3", "the highest grade is 3").
_GRADES = re.compile(r"\[(?P<list>\d+(?:\s*,\s*\d+)+)\]|\b0\s*[–-]\s*(?P<top>\d)\b|\bfrom\s+0\s+to\s+(?P<top2>\d)\b|"
                     r"\btops?\s+out\s+at\s+(?P<top3>\d)\b|\b(?:highest|top|maximum)\s+grade\s+(?:is\s+)?(?P<top4>\d)\b",
                     re.IGNORECASE)


def _value(name: str, value: str | None, m: re.Match, text: str = "") -> str | None:
    if value is not None:
        return value
    groups = m.groupdict()
    if name == "err_max_grade":
        # ERR divides by 2^4 (gdeval), or by 2 to a number: the top grade of the text's own judging scale, which a
        # scale the unit shows ("0–3", "tops out at 3") must agree with; a worked example's graded list alone
        # ("divides by 2^2: a list graded [2, 0, 1]") shows the recipe's g_max is the list's highest grade judged.
        top = int(next(groups[g] for g in ("top", "top2", "gmax", "gmax2") if groups.get(g)))
        if top == 4:
            return "4"
        scales = {int(g.group("top") or g.group("top2") or g.group("top3") or g.group("top4"))
                  for g in _GRADES.finditer(text) if not g.group("list")}
        lists = {max(int(d) for d in DIGITS.findall(g.group("list"))) for g in _GRADES.finditer(text)
                 if g.group("list")}
        if scales:
            return str(top) if scales == {top} else None
        return "highest grade judged" if lists == {top} else str(top)
    levels = [groups.get(f"level{n}") for n in ("", "2", "3", "4", "5", "6", "7", "8")]
    if any(levels):
        return next(v for v in levels if v)
    if groups.get("above") is not None:
        return str(int(groups["above"]) + 1)
    return "1"  # "a known positive relevance grade": any grade above 0


#: LaTeX read as the plain notation the scanner knows: ``\frac{a}{b}`` → ``(a)/(b)``, ``\log_2`` → ``log2``…
_LATEX = ((re.compile(r"\\\{"), "⟨"), (re.compile(r"\\\}"), "⟩"), (re.compile(r"\^\{([^{}]*)\}"), r"^(\1)"),
          (re.compile(r"_\{([^{}]*)\}"), r"_\1"), (re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}"), r"(\1)/(\2)"),
          (re.compile(r"\\(?:mathrm|text|operatorname|mathit|mathbf)\s*\{([^{}]*)\}"), r"\1"),
          (re.compile(r"\\log_\{?2\}?"), "log2"), (re.compile(r"\\approx"), "≈"), (re.compile(r"\\(?:cdot|times)"), "·"),
          (re.compile(r"\\(?:left|right|,|;|!|quad)"), " "), (re.compile(r"\$+|\\\[|\\\]"), " "))


def latex_plain(formula: str) -> str:
    """A LaTeX formula in the plain notation prose uses (fractions as ``(a)/(b)``, ``\\approx`` as ``≈``, text macros
    unwrapped), for classifying it; nested fractions are unwrapped from the inside out."""
    plain = formula
    for _ in range(8):
        before = plain
        for pattern, into in _LATEX:
            plain = pattern.sub(into, plain)
        if plain == before:
            break
    return " ".join(plain.split())


_LATEX_MARK = re.compile(r"\\[A-Za-z]+|\$")


def stated_in(text: str, options: bool = True) -> dict[str, tuple[str, int]]:
    """The conventions one unit of text states: ``{name: (value, offset of the wording)}``. A unit holding LaTeX
    (a formula, or ``$…$`` in a sentence) is also read in its plain notation (``latex_plain``), so a formula that
    states a convention is seen as one (its offset is then the unit's start).

    A unit naming two values of one convention contrasts them and states neither. Values are
    checked against ``audit.measures.conventions`` (a row giving an unknown value is a bug in the table).
    ``options``: read the reference options the unit names (``OPTION_WORDINGS``), as a claim's own sentence does;
    a chapter's or a section's conventions are never read from them."""
    # an en dash typed for a minus ("2^{rel_i} – 1") is read as one; the offsets stay those of the text
    text = text.replace("\u2013", "\u2212")
    found = _stated(text, options)
    if _LATEX_MARK.search(text):
        for name, (value, _) in _stated(latex_plain(text), options).items():
            found.setdefault(name, (value, 0))
    return found


def _stated(text: str, options: bool = True) -> dict[str, tuple[str, int]]:
    found: dict[str, dict[str, int]] = {}
    for name, value, pattern in WORDINGS + (OPTION_WORDINGS if options else ()):
        if name == "gain" and (not _ABOUT_GAIN.search(text) or _VARIANT.search(text)
                               or (_ABOUT_OTHER.search(text) and not re.search(r"\bn?DCG\b|\bgain\b", text, _I))):
            continue
        for m in pattern.finditer(text):
            if _NEGATED.search(text[max(0, m.start() - 20):m.start()]):
                continue
            v = _value(name, value, m, text)
            if v is None:
                continue
            assert accepts(name, v), (name, v)
            found.setdefault(name, {}).setdefault(v, m.start())
    return {name: next(iter(values.items())) for name, values in found.items() if len(values) == 1}


def quote_of(text: str, offset: int) -> str:
    """The clause of ``text`` around ``offset`` that states the convention: the unit cut at the
    ``;``/``:`` or sentence boundary on either side, trimmed (an exact substring of ``text``)."""
    starts = [m.end() for m in re.finditer(r"[;:]\s|[.?!]\s+(?=[A-Z])", text) if m.end() <= offset]
    a = starts[-1] if starts else 0
    stops = re.compile(r"[;:](?=\s)|[.?!](?=\s+[A-Z]|\s*$)")
    stop = stops.search(text, offset)
    # "a document nobody judged; it counts as not relevant": a clause that goes on with a pronoun is the same statement
    while stop and text[stop.start()] in ";:" and re.match(r"[;:]\s+(?:it|they|which|this|these)\b", text[stop.start():]):
        stop = stops.search(text, stop.end())
    b = stop.start() if stop else len(text)
    return text[a:b].strip()


def declare(units: Iterable[str], options: bool = True) -> dict[str, list[dict[str, str]]]:
    """``conventions:`` for ``chapter.yaml`` from the units of a chapter, in reading order: each
    convention a list of ``{value, quote}``, one per distinct value (two values: an internal
    tension; both are written). ``options``: as in ``stated_in``."""
    out: dict[str, list[dict[str, str]]] = {}
    for text in units:
        for name, (value, offset) in stated_in(text, options).items():
            stated = out.setdefault(name, [])
            if all(s["value"] != value for s in stated):
                stated.append({"value": value, "quote": quote_of(text, offset)})
    return {name: out[name] for name in CONVENTIONS if name in out}


def as_yaml_mapping(declared: dict[str, list[dict[str, str]]]) -> dict[str, object]:
    """One statement → ``{value, quote}``; several → the list (the register accepts both)."""
    return {name: stated[0] if len(stated) == 1 else stated for name, stated in declared.items()}


#: A sentence saying the text's relevance is binary: "Binary relevance: 1 = relevant, 0 = not relevant", "the labels
#: are binary", "relevant (1) or not (0)".
_BINARY_RELEVANCE = re.compile(
    r"\bbinary\s+(?:relevance|judge?ments?|labels?|grades?)\b|\b(?:relevance|judge?ments?|labels?|grades?)\s+(?:is|are)"
    r"\s+binary\b|\b1\s*(?:=|means|for)\s*relevant\b[^.\n]{0,20}\b0\s*(?:=|means|for)\s*(?:not|non|ir)[- ]?relevant\b|"
    r"\brelevant\s*\(1\)\s*or\s*not\s*\(0\)", re.IGNORECASE)


def binary_relevance(text: str) -> str | None:
    """The sentence of ``text`` saying its relevance is binary (each document relevant, 1, or not, 0), or None."""
    m = _BINARY_RELEVANCE.search(text)
    if m is None:
        return None
    start = text.rfind("\n", 0, m.start()) + 1  # never past the line: a heading above is no part of it
    return quote_of(text[start:], m.start() - start).lstrip("#/ ")  # a code comment says it as well
