"""chapter-audit: check a chapter's quantitative claims about retrieval metrics."""

__version__ = "0.1.0"
