"""Every test run uses a claim cache of its own, so results cached by earlier runs (or by the user's own
audits) never stand in for a computation a test means to exercise."""

import os
import tempfile

os.environ["CHAPTER_AUDIT_CACHE"] = tempfile.mkdtemp(prefix="chapter-audit-test-cache-")
