"""Every test run uses a claim cache of its own, so results cached by earlier runs (or by the user's own
audits) never stand in for a computation a test means to exercise."""

import os
import tempfile

os.environ["CHAPTER_AUDIT_CACHE"] = tempfile.mkdtemp(prefix="chapter-audit-test-cache-")
# and a cache key of its own (audit.run.signing), so the tests never create or read the user's key
os.environ["CHAPTER_AUDIT_CACHE_KEY_FILE"] = os.path.join(tempfile.mkdtemp(prefix="chapter-audit-test-key-"),
                                                         "cache-key")
os.environ.pop("CHAPTER_AUDIT_CACHE_KEY", None)
