"""Where prooftext keeps its stores under a root: one directory, which the scan never reads, and one file per
store (the index can be rebuilt from the files; memory cannot)."""

from __future__ import annotations

STORE_DIR = ".prooftext"
INDEX_FILE = "index.sqlite"
MEMORY_FILE = "memory.sqlite"
