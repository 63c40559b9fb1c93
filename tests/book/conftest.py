"""The test book's claim registers are audited by tests/test_book_formats.py as its repository would audit them (some
claims are contradicted on purpose); the pytest plugin does not collect them as tests of this project."""

collect_ignore_glob = ["*/audit/claims.yaml"]
