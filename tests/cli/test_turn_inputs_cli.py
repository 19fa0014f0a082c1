"""``turn`` and ``chat`` take every turn input: identity (kept with the thread), summary, attachments and
active files, sent to a real local chat server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import prooftext.cli.conversation  # noqa: F401  (registers the commands)
from fake_chat_server import FakeChatServer
from prooftext.cli.common import app, run_app
from prooftext.memory import MemoryStore

runner = CliRunner()
VOICE = "You are Luminos, a calm gardener who answers in short sentences."
SUMMARY = "So far: the user is planning a herb garden on a balcony."


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer(reply="Plant basil.") as s:
        yield s


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "basil.md").write_text("Basil wants six hours of sun.\n")
    (tmp_path / "notes" / "mint.md").write_text("Mint spreads; keep it in its own pot.\n")
    (tmp_path / "photo.bin").write_bytes(b"\x89PNG\x00\x00binary")
    return tmp_path


def _system(server: FakeChatServer) -> str:
    messages: list[dict[str, Any]] = server.requests[-1]["body"]["messages"]
    return str(messages[0]["content"])


def test_turn_sends_identity_summary_attachments_and_active_files_and_keeps_the_identity(
    root: Path, server: FakeChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Requirement: turn.inputs.cli"""
    base = ["--root", str(root), "--model", "tiny", "--endpoint", server.url, "--thread", "garden", "--json"]
    inputs = ["--identity", VOICE, "--summary", SUMMARY, "--attach", "notes/basil.md"]
    status = run_app(["turn", "What should I plant first?", *base, *inputs, "--active-file", "notes/mint.md"])
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert status == 0 and out["plan"]["tier"] == "deep"
    system = _system(server)
    assert (
        VOICE in system
        and SUMMARY in system
        and "Basil wants six hours" in system
        and "Mint spreads" in system
    )
    assert 'label="attachment: notes/basil.md' in system and 'label="active file: notes/mint.md' in system
    with MemoryStore.open(root) as store:
        assert store.thread_identity("garden") == VOICE
    # a later surface hello in the thread keeps the chosen identity, and only the last two turns
    assert run_app(["turn", "hi", *base]) == 0
    capsys.readouterr()
    assert VOICE in _system(server) and len(server.requests[-1]["body"]["messages"]) == 3
    # another thread keeps its own (the default)
    assert run_app(["turn", "hi", *base[:-3], "--thread", "other", "--json"]) == 0
    capsys.readouterr()
    assert VOICE not in _system(server)


def test_turn_refuses_a_file_outside_the_root_or_that_the_corpus_would_exclude(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path, code in (
        ("../etc/passwd", "path_outside_root"),
        ("photo.bin", "source_unreadable"),
        ("nope.md", "source_missing"),
    ):
        status = run_app(["turn", "look", "--root", str(root), "--dry-run", "--attach", path, "--json"])
        error = json.loads(capsys.readouterr().out)["error"]
        assert status != 0 and error["code"] == code, (path, error)


@pytest.mark.parametrize(
    ("setup", "path"),
    [
        ({"prooftext.toml": "[scan]\nexclude = ['secret_notes/**']\n"}, "secret_notes/plan.md"),
        ({".gitignore": "private.md\n"}, "private.md"),
        ({"notes/.gitignore": "*.md\n!mint.md\n"}, "notes/basil.md"),
        ({".gitignore": "notes/\n"}, "notes/mint.md"),
        ({".prooftext/ignore": "notes/basil.md\n"}, "notes/basil.md"),
    ],
)
def test_a_file_the_corpus_leaves_out_by_a_pattern_is_not_attached_and_the_error_says_why(
    root: Path, capsys: pytest.CaptureFixture[str], setup: dict[str, str], path: str
) -> None:
    for name, text in {**setup, path: "classified plan\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    status = run_app(["turn", "look", "--root", str(root), "--dry-run", "--attach", path, "--json"])
    out = capsys.readouterr().out
    error = json.loads(out)["error"]
    assert status != 0 and error["code"] == "source_unreadable" and error["details"]["reason"] == "ignored"
    assert "classified plan" not in out and path in error["message"]


def test_a_file_a_negated_pattern_keeps_is_attached(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / "notes" / ".gitignore").write_text("*.md\n!mint.md\n")
    status = run_app(
        ["turn", "look", "--root", str(root), "--dry-run", "--attach", "notes/mint.md", "--json"]
    )
    assert status == 0 and "Mint spreads" in capsys.readouterr().out


def test_chat_commands_set_identity_summary_attachments_and_active_files(
    root: Path, server: FakeChatServer
) -> None:
    """Requirement: turn.inputs.chat"""
    script = (
        f"/identity {VOICE}\n/summary {SUMMARY}\n/file notes/mint.md\n/attach notes/basil.md\n"
        "What should I plant first?\nand after that?\n/file\nhi\n/quit\n"
    )
    args = ["chat", "--root", str(root), "--model", "tiny", "--endpoint", server.url, "--no-stream"]
    result = runner.invoke(app, [*args, "--thread", "garden"], input=script)
    assert result.exit_code == 0, result.output
    first, second, third = (r["body"]["messages"] for r in server.requests[-3:])
    assert VOICE in first[0]["content"] and SUMMARY in first[0]["content"]
    assert "Basil wants" in first[0]["content"] and "Mint spreads" in first[0]["content"]
    assert "Basil wants" not in second[0]["content"]  # an attachment goes with one message
    assert VOICE in third[0]["content"] and "Mint spreads" not in third[0]["content"]
    with MemoryStore.open(root) as store:
        assert store.thread_identity("garden") == VOICE


def test_chat_refuses_a_file_when_it_is_named_and_the_next_messages_still_go(
    root: Path, server: FakeChatServer
) -> None:
    script = "/file ../etc/passwd\n/attach nope.md\n/attach photo.bin\nWhat should I plant first?\n/quit\n"
    args = ["chat", "--root", str(root), "--model", "tiny", "--endpoint", server.url, "--no-stream"]
    result = runner.invoke(app, args, input=script)
    assert result.exit_code == 0, result.output
    for code in ("path_outside_root", "source_missing", "source_unreadable"):
        assert code in result.output
    assert "attached to the next message" not in result.output and "active files: ../etc" not in result.output
    assert len(server.requests) == 1 and "passwd" not in str(server.requests[0]["body"])


def test_a_dry_run_refuses_an_empty_identity_as_the_sent_turn_does(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run_app(["turn", "hi", "--root", str(root), "--identity", " ", "--dry-run", "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert status != 0 and error["code"] == "invalid_request" and error["details"]["field"] == "identity"


def test_a_sent_turn_given_an_identity_reports_its_thread_as_keeping_one(
    root: Path, server: FakeChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--root", str(root), "--model", "tiny", "--endpoint", server.url, "--thread", "garden", "--json"]
    assert run_app(["turn", "hi", *base, "--identity", VOICE]) == 0
    thread = json.loads(capsys.readouterr().out.splitlines()[-1])["thread"]
    assert thread["identity_kept"] is True and thread["note"] == "new thread: no history"
