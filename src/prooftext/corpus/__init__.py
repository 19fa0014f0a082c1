"""Safe corpus scan: walk, ignore rules, strict reading, labels, manifest and candidate identity."""
