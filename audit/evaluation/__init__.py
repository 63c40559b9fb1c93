"""Evaluation: the chapter's definitions, readings, references, probes, checkers, the sandbox."""
