"""``prooftext fsck`` on a store whose FTS5 table was dropped: fsck flags it, and pack fails with a code."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import prooftext.cli.context  # noqa: F401  (registers `fsck` on the app)
from prooftext.cli import main
from prooftext.cli.common import EXIT_INTERNAL
from prooftext.store.db import STORE_DIR, STORE_FILE


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    return status, capsys.readouterr().out


def test_fsck_flags_a_dropped_fts_table_and_pack_reports_a_store_error(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "index", str(sample_repo), "--json")[0] == 0
    with sqlite3.connect(sample_repo / STORE_DIR / STORE_FILE) as conn:
        conn.execute("DROP TABLE nodes_fts")
    status, out = _run(capsys, "fsck", str(sample_repo), "--json")
    report = json.loads(out)
    assert status == 1 and report["store"] == "corrupt"
    assert "nodes_fts" in report["problems"][0]["detail"]
    status, out = _run(capsys, "pack", "separability_matrix", "--root", str(sample_repo), "--json")
    assert status not in (0, EXIT_INTERNAL)
    assert json.loads(out)["error"]["code"] == "store_error"
