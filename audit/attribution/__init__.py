"""Attribution and verdicts: causes found by experiment, verdict rules, the book, the cross-check."""
