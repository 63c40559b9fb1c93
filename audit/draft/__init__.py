"""Drafting: ``audit init`` reads a chapter and drafts its register.

It sits above the register and the evaluation because a draft is a claim the register declares, computed under
the readings the audit will try: ``encode`` turns one statement into claims (``encode_fixtures``,
``encode_code``, ``encode_universal``; the arithmetic and measure names it shares with the checks live in the text
stage), ``examples`` reads the worked examples a statement follows (rank tables, grade lists, positions in prose),
and ``init`` writes the register files.
"""
