"""What a store holds for a file must change only together with ``READING_REVISION``.

A store keeps the rows it read under a *reading key* (see :mod:`prooftext.store.refresh`); a new prooftext
re-reads every file only when that key moves. If scan, label, secret or extraction rules change what a row
holds and the revision stays, stores built before the change keep stale rows for every unchanged file. This
test fingerprints the rows of a tree that exercises each reader and fails when the fingerprint moves without
the revision. After a deliberate change: raise ``READING_REVISION``, then regenerate with
``PROOFTEXT_REGEN_GOLDEN=1 pytest tests/store/test_reading_revision.py`` and review the diff.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import prooftext
from helpers import check_reading_golden, write_tree
from prooftext import canonical

GOLDEN = Path(__file__).parent / "golden" / "reading.json"

TREE = {
    "pkg/shapes.py": (
        '"""Shapes."""\nimport math\n\n\nclass Circle:\n    """A circle."""\n\n    def area(self):\n'
        "        def square(x):\n            return x * x\n\n        return math.pi * square(self.r)\n\n\n"
        "def unit():\n    return Circle()\n"
    ),
    "pkg/long_module.py": "".join(f"VALUE_{i} = {i}\n" for i in range(130)),
    "web/app.js": "export function greet(name) {\n  return `hi ${name}`;\n}\nclass Box { open() { return 1; } }\n",
    "cmd/main.go": 'package main\n\nfunc main() {\n\tprintln("hi")\n}\n',
    "docs/guide.md": "# Guide\n\nIntro.\n\n## Install\n\nRun it.\n",
    "docs/index.rst": "Title\n=====\n\nText.\n\nSection\n-------\n\nMore.\n",
    "pkg/Legacy.PY": "def legacy():\n    return 1\n",
    "docs/long.md": "# " + "word " * 70 + "\n\nBody.\n",
    "notes.txt": "plain words\n",
    "deploy.env": 'PASSWORD = "hunter2-correct-horse-battery"\n',
    "mirror.py": 'URL = "ftp://anonymous:data%40observatory.org@ftp.observatory.org/pub/"\n',
}
BINARY = {"blob.bin": b"\x00\x01\x02binary", "latin.txt": "caf\xe9\n".encode("latin-1")}


def _fingerprint(root: Path) -> str:
    with prooftext.open(write_tree(root, {**TREE, **BINARY})) as index:
        index.refresh()
        conn = index.conn
        rows = {
            "files": conn.execute(
                "SELECT path, sha256, kind, language, authority, freshness, sensitivity, line_count"
                " FROM files ORDER BY path"
            ).fetchall(),
            "nodes": conn.execute(
                "SELECT f.path, n.id, n.kind, n.qualname, n.symbol_kind, n.start_line, n.end_line, n.signature"
                " FROM nodes n JOIN files f ON f.id = n.file_id ORDER BY f.path, n.start_line, n.id"
            ).fetchall(),
            "excluded": conn.execute("SELECT path, reason, detail FROM excluded ORDER BY path").fetchall(),
            "fts": conn.execute("SELECT title, labels, path FROM nodes_fts ORDER BY rowid").fetchall(),
        }
    data = json.loads(json.dumps(rows))
    return hashlib.sha256(canonical.encode(data)).hexdigest()


def test_the_rows_a_store_reads_change_only_with_the_reading_revision(tmp_path: Path) -> None:
    check_reading_golden(
        GOLDEN,
        "fingerprint",
        _fingerprint(tmp_path),
        lambda old, new: [] if old == new else ["a file's rows"],
    )
