"""Memory keeps no credential: records, notes, sources and chat messages are redacted when written."""

from __future__ import annotations

from pathlib import Path

import pytest

import prooftext
from prooftext.conversation.items import make_item
from prooftext.errors import LimitError
from prooftext.memory import MemoryStore
from prooftext.memory.store import MAX_RECORD_BYTES

PASSWORD = "Wq7" + "zK2#vN9" + "pL4"
TOKEN = "gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0" * 2 + "kL"
PLANTED = f"The staging DB password={PASSWORD} and the deploy token {TOKEN}"


def _stored_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((root / ".prooftext").glob("memory.sqlite*")))


def test_a_record_carrying_credentials_is_stored_redacted_and_flagged(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path) as store:
        record = store.add("discovery", PLANTED, source=f"agent with token {TOKEN}")
        again = store.get(record.id)
    assert PASSWORD not in again.text and TOKEN not in again.text and TOKEN not in again.source
    assert again.text.startswith("The staging DB password=[REDACTED:")
    assert again.redactions == 3 and again.to_dict()["redactions"] == 3
    assert PASSWORD.encode() not in _stored_bytes(tmp_path) and TOKEN.encode() not in _stored_bytes(tmp_path)


def test_a_clean_record_is_stored_as_given_and_not_flagged(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path) as store:
        record = store.add("decision", "Use SQLite in WAL mode", source="user")
    assert record.text == "Use SQLite in WAL mode" and record.redactions == 0


def test_superseding_and_resolving_redact_the_new_text_and_the_note(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path) as store:
        decision = store.add("decision", "Deploy with the old key", source="user")
        _, new = store.supersede(decision.id, f"Deploy with token {TOKEN}", source="user")
        failure = store.add("failure", "Login failed", source="user")
        resolved = store.resolve(failure.id, f"reset it: password={PASSWORD}")
    assert TOKEN not in new.text and new.redactions == 1
    assert resolved.resolution is not None and PASSWORD not in resolved.resolution
    assert PASSWORD.encode() not in _stored_bytes(tmp_path) and TOKEN.encode() not in _stored_bytes(tmp_path)


def test_chat_history_is_stored_redacted(tmp_path: Path) -> None:
    with MemoryStore.open(tmp_path) as store:
        store.append_message("main", "user", PLANTED)
        history = store.history("main")
    assert [TOKEN in m.text or PASSWORD in m.text for m in history] == [False]
    assert TOKEN.encode() not in _stored_bytes(tmp_path)


def test_a_chat_item_built_from_any_text_carries_no_credential() -> None:
    item = make_item("user", PLANTED)
    assert PASSWORD not in item.text and TOKEN not in item.text and "[REDACTED:" in item.text


def test_a_text_whose_redaction_would_pass_the_limit_is_refused_so_every_store_exports_and_imports(
    tmp_path: Path,
) -> None:
    key = "AKIA" + "IOSFODNN7EXAMPLQ"
    line = f"key: {key} ok"
    filler = "x" * (MAX_RECORD_BYTES - len(line) - 1)
    with (
        MemoryStore.open(tmp_path) as store,
        pytest.raises(LimitError, match="with its credentials redacted"),
    ):
        store.add("discovery", f"{filler} {line}", source="test")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with MemoryStore.open(tmp_path / "a") as store:
        store.add("discovery", f"{filler[:-100]} {line}", source="test")
    export = prooftext.memory_export(tmp_path / "a")
    data = "".join(line + "\n" for line in export.lines()).encode()
    assert prooftext.memory_import(tmp_path / "b", data).records == 1
