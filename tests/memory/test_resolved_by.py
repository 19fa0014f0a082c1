"""Who resolved a failure is kept, with or without a note (``memory resolve ID --note TEXT --source WHO``):
typed memory promises each record's provenance. It survives an export and import, and a store or an export
from before it was kept reads on, with no one recorded."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import prooftext
from prooftext.cli import main
from prooftext.memory import SCHEMA_VERSION, MemoryStore


@pytest.mark.parametrize(
    ("note", "resolution"), [("pulled the model", "pulled the model"), (None, "resolved by alice")]
)
def test_the_resolver_is_kept_whether_or_not_a_note_is_given(
    tmp_path: Path, note: str | None, resolution: str
) -> None:
    with MemoryStore.open(tmp_path) as store:
        failure = store.add("failure", "Model not found", source="chat")
        record = store.resolve(failure.id, note, source="alice")
    assert (record.resolution, record.resolved_by) == (resolution, "alice")
    assert record.to_dict()["resolved_by"] == "alice"


def test_an_unresolved_record_has_no_resolver(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path) as store:
        assert store.add("failure", "Model not found", source="chat").resolved_by is None


def test_the_cli_keeps_the_source_of_a_resolution_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with MemoryStore.open(tmp_path) as store:
        failure = store.add("failure", "Model not found", source="chat")
    argv = [
        "memory",
        "resolve",
        str(failure.id),
        "--note",
        "pulled it",
        "--source",
        "bob",
        "--root",
        str(tmp_path),
    ]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["memory", "list", "--root", str(tmp_path), "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["records"]
    assert (listed["resolution"], listed["resolved_by"]) == ("pulled it", "bob")


def test_a_schema_two_store_is_migrated_and_its_resolved_failures_name_no_resolver(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path) as store:
        failure = store.add("failure", "Model not found", source="chat")
        store.resolve(failure.id, "pulled the model", source="alice")
        path = store.path
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE records DROP COLUMN resolved_by")
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    with MemoryStore.open(tmp_path) as store:
        assert store.schema_version() == SCHEMA_VERSION == 3
        (record,) = store.records()
        assert (record.resolution, record.resolved_by) == ("pulled the model", None)
        later = store.resolve(store.add("failure", "Disk full", source="chat").id, "freed", source="carol")
        assert later.resolved_by == "carol"


def test_the_resolver_survives_export_and_import_and_an_older_export_imports_without_one(
    tmp_path: Path,
) -> None:
    (tmp_path / "a").mkdir()
    with MemoryStore.open(tmp_path / "a") as store:
        store.resolve(store.add("failure", "Flaky test", source="ci").id, "fixed", source="dave")
    lines = list(prooftext.memory_export(tmp_path / "a").lines())
    new, old = tmp_path / "new.jsonl", tmp_path / "old.jsonl"
    new.write_text("".join(line + "\n" for line in lines))
    rows = [json.loads(line) for line in lines]
    for row in rows:
        row.pop("resolved_by", None)
    old.write_text("".join(json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n" for row in rows))
    for target, file, resolver in ((tmp_path / "b", new, "dave"), (tmp_path / "c", old, None)):
        target.mkdir()
        prooftext.memory_import(target, file)
        with MemoryStore.open(target) as store:
            (record,) = store.records()
            assert (record.resolution, record.resolved_by) == ("fixed", resolver)
