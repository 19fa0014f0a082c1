"""A damaged memory store through the command line: ``fsck`` fails with bit 8, ``memory add`` fails with
``store_corrupt``, and ``memory export``, a move aside and ``memory import`` recover every readable record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import damage_records_page, filled_memory
from prooftext.cli import main
from prooftext.cli.common import EXIT_PARTIAL

RECORDS = 300
BIT_MEMORY = 8


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[Path, list[int]]:
    """A root whose memory store lost one page of records; the ids that page held."""
    return tmp_path, damage_records_page(filled_memory(tmp_path, RECORDS))


def test_fsck_fails_with_the_memory_bit_and_names_the_repair(
    damaged: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = damaged
    status, out, _ = _run(capsys, "fsck", str(root), "--json")
    report = json.loads(out)
    assert status == BIT_MEMORY and report["memory"] == "corrupt" and not report["ok"]
    assert "prooftext memory export" in report["problems"][0]["repair"]
    status, out, err = _run(capsys, "fsck", str(root))
    assert status == BIT_MEMORY and out == "failed (status 8)\n"
    assert "memory_store: .prooftext/memory.sqlite" in err and "prooftext memory import" in err


def test_fsck_json_gives_the_memory_repair_without_a_prefix_and_the_human_line_says_repair_once(
    damaged: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = damaged
    repair = json.loads(_run(capsys, "fsck", str(root), "--json")[1])["problems"][0]["repair"]
    assert repair.startswith("prooftext memory export --root ")
    err = _run(capsys, "fsck", str(root))[2]
    assert err.endswith(f" (repair: {repair})\n") and err.count("repair") == 1


def test_memory_add_into_a_damaged_store_fails_with_store_corrupt_and_exit_1(
    damaged: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = damaged
    status, out, _ = _run(capsys, "memory", "add", "decision", "Keep WAL", "--root", str(root), "--json")
    error = json.loads(out)["error"]
    assert status == 1 and error["code"] == "store_corrupt"
    assert str(root / ".prooftext" / "memory.sqlite") in error["message"]
    assert "prooftext memory export" in error["message"]
    status, _, err = _run(capsys, "memory", "add", "decision", "Keep WAL", "--root", str(root))
    assert status == 1 and "[store_corrupt]" in err


def test_export_move_aside_and_import_recover_the_readable_records(
    damaged: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, lost = damaged
    status, out, err = _run(capsys, "memory", "export", "--root", str(root))
    assert status == EXIT_PARTIAL
    assert f"could not read (damaged pages): records {lost[0]}-{lost[-1]}" in err
    export = root / "memory.jsonl"
    export.write_text(out)
    store = root / ".prooftext" / "memory.sqlite"
    for side in store.parent.glob("memory.sqlite*"):
        if not side.name.endswith(".lock"):
            side.rename(root / side.name)
    status, out, _ = _run(capsys, "memory", "import", str(export), "--root", str(root), "--json")
    assert status == 0 and json.loads(out) == {
        "links_dropped": [],
        "messages": 1,
        "records": RECORDS + 2 - len(lost),
        "thread_settings": 0,
    }
    status, out, _ = _run(capsys, "memory", "list", "--root", str(root), "--json")
    ids = [r["id"] for r in json.loads(out)["records"]]
    assert status == 0 and ids == [i for i in range(1, RECORDS + 3) if i not in lost]
    assert _run(capsys, "memory", "add", "decision", "Keep WAL", "--root", str(root))[0] == 0
    assert _run(capsys, "fsck", str(root))[0] == 0


def test_export_of_a_sound_store_is_complete_and_its_summary_is_json_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filled_memory(tmp_path, 3)
    status, out, err = _run(capsys, "memory", "export", "--root", str(tmp_path), "--json")
    assert status == 0 and len(out.splitlines()) == 3 + 2 + 1
    summary = json.loads(err)
    assert summary["complete"] and summary["records"] == 5 and summary["unreadable"] == {}


def test_import_beside_a_left_over_wal_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filled_memory(tmp_path, 3)
    _, out, _ = _run(capsys, "memory", "export", "--root", str(tmp_path))
    (tmp_path / "memory.jsonl").write_text(out)
    store = tmp_path / ".prooftext" / "memory.sqlite"
    store.rename(tmp_path / "aside.sqlite")
    store.with_name("memory.sqlite-wal").write_bytes(b"left over")
    status, out, _ = _run(
        capsys, "memory", "import", str(tmp_path / "memory.jsonl"), "--root", str(tmp_path), "--json"
    )
    assert status == 1 and json.loads(out)["error"]["code"] == "memory_error"
    assert not store.exists()
