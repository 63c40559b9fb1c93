"""Running: one chapter's audit, the caches, parallel references and chapters, provenance."""
