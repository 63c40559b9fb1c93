"""Limits on everything a register or an input file can make large.

Each is far above what a chapter needs (the shipped chapters use a small fraction of each) and low
enough that no input can exhaust memory or time. A value past a limit is a ``RegisterError`` (or
``AuditError``) naming the file, the claim, the field and the limit.
"""

from __future__ import annotations

from fractions import Fraction

#: Bytes of a claims.yaml or chapter.yaml (a register of several hundred claims is ~100 KB).
MAX_REGISTER_BYTES = 2 * 2**20
#: Nesting depth of a register's YAML (claims → claim → universe → grades is 4 deep).
MAX_YAML_DEPTH = 20
#: Aliases (``*name``) in one register: each can repeat a whole subtree, so many of them nested
#: can expand a small file into an enormous document.
MAX_YAML_ALIASES = 20
#: Bytes of a chapter snapshot (a long chapter is ~100 KB of text).
MAX_SNAPSHOT_BYTES = 2 * 2**20
#: Bytes of a chapter's notebook (its committed outputs included; a notebook with plots runs to a few MB).
MAX_NOTEBOOK_BYTES = 32 * 2**20
#: Lines of a chapter snapshot (a long chapter has a few thousand; the shipped ones fewer than 300).
MAX_SNAPSHOT_LINES = 50_000
#: Claims in one register (the shipped chapters have 40 and 60; a chapter of several hundred numbered claims
#: still loads). Every claim is anchored, keyed and checked, and the report holds each with its evidence.
MAX_CLAIMS = 1_000
#: Words of a snapshot over which a lost quote is searched for an edited passage (the similarity
#: search looks at every window of about the quote's length). Longer snapshots are searched only
#: near the claim's ``line`` hint; without one, the quote is reported lost with this reason.
FUZZY_MAX_WORDS = 5_000
#: Passages whose similarity ratio is computed for one lost quote (about 1 ms each), most promising
#: first; past it the search stops and says so.
FUZZY_MAX_SCORED = 5_000
#: Passages the similarity search may examine for all the lost quotes of one chapter (each lost
#: quote examines about 7 per word of the snapshot, at most 7 × FUZZY_MAX_WORDS); past it, further
#: lost quotes are reported lost with this reason.
FUZZY_CHAPTER_PASSAGES = 2_000_000
#: Characters of a quote, prefix or suffix.
MAX_QUOTE_CHARS = 2_000
#: Digits in one printed number (a claimed value, a tolerance, a number in an expression).
MAX_DIGITS = 30
#: Half-width of a ``tolerance``, relative to the measure range [0, 1]: at most a tenth of
#: max(1, |claimed|). A wider one would make almost any value "supported".
MAX_TOLERANCE = Fraction(1, 10)
#: Characters and nesting depth of an arithmetic expression.
MAX_EXPRESSION_CHARS = 200
MAX_EXPRESSION_DEPTH = 20
#: Largest |exponent| of a power in an arithmetic expression (``2^3``, ``10**-2``; exponential gain
#: 2**g − 1 needs g ≤ ``MAX_GRADE``). ``10**10**10`` is refused at the outer power, before any work.
MAX_POWER_EXPONENT = 1_000
#: Bits of any value inside an arithmetic expression: an exact value's numerator and denominator
#: each, an irrational value's magnitude (between 2**-1000 and 2**1000, about 1e±301). Keeps every
#: value a float can show and every step fast.
MAX_VALUE_BITS = 1_000
#: Largest |grade| in a fixture or universe. TREC collections grade 0–4; trec_eval keeps grades in
#: C ints (2**31 wraps) and exponential gain 2**g − 1 overflows a float beyond g = 1023.
MAX_GRADE = 100
#: Grades ``audit crosscheck`` accepts in a qrels file, which the libraries read themselves. Above: trec_eval
#: (pytrec_eval, and ir-measures through it) keeps a counter for every grade from 0 to a query's highest (8 bytes
#: each) and its ndcg steps through them in time growing with the square of that grade (observed: about 1 s a
#: query at 100,000, minutes at 1,000,000; 2**31 − 1 crashed pytrec_eval with SIGSEGV). Below: all three read a
#: negative grade as non-relevant down to −(2**63 − 1) (observed); at −2**63 ranx gave an nDCG of 1.58 (its 64-bit
#: integers overflow) and below it pytrec_eval refuses the grade (a C long).
MAX_TREC_GRADE = 10_000
MIN_TREC_GRADE = -(2**63 - 1)
#: Bytes of a TREC qrels file and of a run file given to ``audit crosscheck``, checked before anything is read (a
#: run of 10,000 queries × 1,000 documents is about 450 MB; the largest public qrels are tens of MB).
MAX_QRELS_BYTES = 256 * 2**20
MAX_RUN_BYTES = 1 * 2**30
#: Bytes of one line of a TREC file (a run line is a query ID, Q0, a document ID, a rank, a score and a tag: tens of
#: bytes); a longer line is refused as soon as it is seen, so a file with no newline is not read whole into memory.
MAX_TREC_LINE_BYTES = 1 * 2**20
#: Characters of one query ID or document ID in a fixture, a qrels or a run. Real IDs are short: MS MARCO's and TREC
#: DL's are digits or ``D`` and digits (under 10), ClueWeb's and TREC CAR's under 50, a URL used as an ID rarely past
#: a few hundred; trec_eval reads an ID as one whitespace-separated field of any length. ranx holds every ID of a
#: call in one fixed-width array of the longest ID's width (4 bytes a character), so one long ID multiplies its
#: memory by the number of IDs (one 16 KB docno in a run of a few thousand lines took it past 10 GB).
MAX_ID_CHARS = 1_000
#: Documents of one query in a qrels or a run given to ``audit crosscheck`` (a TREC run keeps 1,000 a query, a deep
#: one 10,000; the largest public qrels judge a few thousand documents a query). Bounds what one query holds in
#: memory while the run is read one query at a time.
MAX_DOCS_PER_QUERY = 1_000_000
#: Bytes of one entry of the claim cache (a chapter's research sections are the largest: ~1 MB for chapter 23).
MAX_CACHE_ENTRY_BYTES = 32 * 2**20
#: Largest cutoff k in a measure name.
MAX_CUTOFF = 10_000
#: Cases of a property claim's exhaustive universe, counted before any is built (the shipped
#: chapters' largest universe has 4,481 cases).
MAX_UNIVERSE_CASES = 20_000
#: Random cases and seconds of a property claim's search.
MAX_RANDOM_CASES = 100_000
MAX_SEARCH_SECONDS = 300.0
#: Candidates of one cohort (the sum of its cell counts).
MAX_COHORT = 100_000
#: Seconds one claim may take to check (its references' batch evaluation is separate); past it the
#: claim is an ``error`` naming the limit and the chapter goes on.
CLAIM_SECONDS = 600.0
#: Characters of input echoed in an error message.
ECHO_CHARS = 80


def trim(text: object, limit: int = ECHO_CHARS) -> str:
    """``text`` as a ``repr`` cut to about ``limit`` characters, with the full length stated when cut."""
    shown = repr(text)
    if len(shown) <= limit:
        return shown
    return f"{shown[:limit]}… ({len(str(text)):,} characters)"


def shorten(text: object, limit: int = ECHO_CHARS) -> str:
    """``str(text)`` cut to ``limit`` characters, with the full length stated when cut."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"
