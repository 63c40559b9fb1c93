"""The registers in this folder are a labelled corpus, not chapters of the book: several of their claims are
contradicted on purpose. Keep ``pytest`` (testpaths = tests) from collecting them as claim items; audit one
explicitly with ``audit run tests/corpus/measures/<text-id> --reports <dir>``."""

collect_ignore_glob = ["*/claims.yaml", "compute_labels.py"]
