"""Chapter text: the snapshot, anchors, the scanner, stated conventions, `audit init`, listings."""
