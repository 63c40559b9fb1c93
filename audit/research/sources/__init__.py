"""Primary sources behind the harness's definitions and conventions (the source ledger's bibliography)."""

from __future__ import annotations

from audit.research.sources.bibliography import (
    CONVENTIONS,
    MEASURES,
    METADATA_FIELDS,
    BearsOn,
    Bibliography,
    BibliographyError,
    Check,
    Source,
    default_path,
    load_bibliography,
    shipped_bibliography,
    sources_for,
)

__all__ = [
    "CONVENTIONS", "MEASURES", "METADATA_FIELDS", "BearsOn", "Bibliography", "BibliographyError", "Check",
    "Source", "default_path", "load_bibliography", "shipped_bibliography", "sources_for",
]
