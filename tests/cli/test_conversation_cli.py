"""CLI: ``memory``, ``depth``, ``turn`` and the interactive ``chat``, against a real local chat server."""

from __future__ import annotations

import io
import json
import shlex
import socket
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import prooftext.cli.conversation  # noqa: F401  (registers the commands)
from fake_chat_server import FakeChatServer
from prooftext.cli.common import EXIT_PARTIAL, app, run_app
from prooftext.memory import MemoryStore

runner = CliRunner()


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer(reply="Reply from the local model.") as s:
        yield s


def _json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, list[dict[str, object]]]:
    status = run_app(argv)
    return status, _json_lines(capsys.readouterr().out)


def test_memory_commands_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Requirement: memory.cli"""
    root = str(tmp_path)
    status, out = _run(capsys, ["memory", "add", "decision", "Use JSON lines", "--root", root, "--json"])
    assert status == 0
    rid = out[0]["record"]["id"]  # type: ignore[index]
    _run(
        capsys,
        ["memory", "add", "failure", "Model load timed out", "--source", "chat", "--root", root, "--json"],
    )
    _run(capsys, ["memory", "add", "constraint", "No cloud", "--strength", "hard", "--root", root, "--json"])
    status, out = _run(capsys, ["memory", "supersede", str(rid), "Use SQLite", "--root", root, "--json"])
    assert status == 0 and out[0]["old"]["status"] == "superseded"  # type: ignore[index]
    status, out = _run(
        capsys, ["memory", "resolve", "2", "--note", "raised the timeout", "--root", root, "--json"]
    )
    assert status == 0 and out[0]["record"]["status"] == "resolved"  # type: ignore[index]
    status, out = _run(capsys, ["memory", "list", "--root", root, "--json"])
    records = out[0]["records"]
    assert [(r["kind"], r["status"]) for r in records] == [  # type: ignore[union-attr, index]
        ("decision", "superseded"),
        ("failure", "resolved"),
        ("constraint", "active"),
        ("decision", "active"),
    ]
    status, _ = _run(capsys, ["memory", "list", "--root", root])
    assert status == 0


def test_memory_errors_are_one_json_object_and_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(tmp_path)
    _run(capsys, ["memory", "add", "decision", "Keep WAL", "--root", root, "--json"])
    cases = [
        (["memory", "add", "constraint", "No cloud", "--root", root, "--json"], "invalid_request"),
        (["memory", "add", "wish", "x", "--root", root, "--json"], "unknown_name"),
        (["memory", "add", "decision", "  ", "--root", root, "--json"], "invalid_request"),
        (["memory", "resolve", "1", "--root", root, "--json"], "invalid_request"),
        (["memory", "supersede", "42", "x", "--root", root, "--json"], "not_found"),
        (["memory", "list", "--root", str(tmp_path / "nope"), "--json"], "root_missing"),
    ]
    for argv, code in cases:
        status, out = _run(capsys, argv)
        assert status != 0 and len(out) == 1 and out[0]["error"]["code"] == code, argv  # type: ignore[index]
    with MemoryStore.open(tmp_path) as store:
        assert [(r.text, r.status) for r in store.records()] == [("Keep WAL", "active")]


def test_a_negative_record_id_reaches_the_store_and_is_not_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(tmp_path)
    _run(capsys, ["memory", "add", "decision", "Keep WAL", "--root", root, "--json"])
    for argv in (
        ["memory", "resolve", "-1"],
        ["memory", "resolve", "-1", "--note", "fixed"],
        ["memory", "supersede", "-1", "Use SQLite"],
        ["memory", "supersede", "-7", "Use SQLite", "--source", "me"],
    ):
        status, out = _run(capsys, [*argv, "--root", root, "--json"])
        error = out[0]["error"]
        assert status == 1 and error["code"] == "not_found" and error["details"]["id"] < 0, argv  # type: ignore[index]
    status, out = _run(capsys, ["memory", "resolve", "1", "--bogus", "--root", root, "--json"])
    assert status == 64 and out[0]["error"]["code"] == "usage"  # type: ignore[index]
    with MemoryStore.open(tmp_path) as store:
        assert [(r.text, r.status) for r in store.records()] == [("Keep WAL", "active")]


README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_memory_lines() -> list[str]:
    """The memory lines of the README's conversation example, as a user would paste them."""
    text = README.read_text(encoding="utf-8")
    block = text.split("## Conversations", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if "prooftext memory" in line]


def test_the_readme_memory_example_works_line_by_line_in_a_fresh_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    monkeypatch.chdir(root)
    lines = _readme_memory_lines()
    assert any(" resolve " in line for line in lines) and any(" import " in line for line in lines)
    for line in lines:
        words = shlex.split(line, comments=True)
        if words[0] == "mkdir":  # ``mkdir DIR && prooftext ...``
            Path(words[1]).mkdir()
            words = words[3:]
        target = words[words.index(">") + 1] if ">" in words else None
        argv = words[1 : words.index(">")] if target else words[1:]
        status = run_app(argv)
        out = capsys.readouterr().out
        assert status == 0, line
        if target:
            Path(target).write_text(out, encoding="utf-8")
    with MemoryStore.open(tmp_path / "copy") as store:
        assert [r.status for r in store.records()] == ["superseded", "resolved", "active"]


def test_depth_command(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _run(capsys, ["depth", "Hi", "--json"])
    assert status == 0 and out[0]["decision"]["tier"] == "surface"  # type: ignore[index]
    assert out[0]["policy"]["label"] == "Context: Smart · Surface"  # type: ignore[index]
    status, out = _run(capsys, ["depth", "hi", "--attachment", "--json"])
    assert out[0]["decision"]["tier"] == "deep"  # type: ignore[index]
    status, out = _run(capsys, ["depth", "   ", "--json"])
    assert status == 1 and out[0]["error"]["code"] == "query_empty"  # type: ignore[index]


def test_turn_dry_run_shows_the_plan_without_side_effects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Requirement: depth.turn.dry_run"""
    status, out = _run(
        capsys, ["turn", "Hi", "--thread", "garden", "--root", str(tmp_path), "--dry-run", "--json"]
    )
    assert status == 0
    plan = out[0]["plan"]
    assert plan["tier"] == "surface" and plan["output_budget"] == 192  # type: ignore[index]
    assert plan["ledger"]["chained"] is True  # type: ignore[index]
    assert out[0]["thread"] == {
        "exists": False,
        "identity_kept": False,
        "name": "garden",
        "note": "new thread: no history",
    }
    assert not (tmp_path / ".prooftext" / "memory.sqlite").exists()
    status, out = _run(capsys, ["turn", "Hi", "--mode", "turbo", "--dry-run", "--json"])
    assert status == 1 and out[0]["error"]["details"]["field"] == "mode"  # type: ignore[index]
    status, out = _run(capsys, ["turn", "Hi", "--thread", "bad name", "--dry-run", "--json"])
    assert status == 1 and out[0]["error"]["details"]["field"] == "thread"  # type: ignore[index]


def test_turn_sends_records_and_reports(
    tmp_path: Path, server: FakeChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(tmp_path)
    base = ["--root", root, "--model", "tiny", "--endpoint", server.url, "--json"]
    _run(capsys, ["memory", "add", "decision", "Keep the WAL journal mode", "--root", root, "--json"])
    status, out = _run(capsys, ["turn", "Please analyze the WAL journal decision", *base])
    assert status == 0 and out[0]["reply"] == "Reply from the local model."
    signal = out[0]["signal"]
    assert signal["tier"] == "deep"  # type: ignore[index]
    # a deep turn searches memory because its tier says so, and records who decided
    memory = next(s for s in out[0]["plan"]["steps"] if s["name"] == "memory_search")  # type: ignore[index]
    assert memory["ran"] and memory["detail"]["candidates"] == 1 and signal["counts"]["memory"] == 1  # type: ignore[index]
    assert memory["detail"]["push"]["decided_by"] == "tier"
    assert "WAL" not in json.dumps(signal)
    status, out = _run(capsys, ["turn", "thanks", *base, "--stream"])
    assert status == 0 and out[0]["plan"]["counts"]["history"] == 1  # type: ignore[index]
    assert out[0]["thread"]["exists"] is True  # type: ignore[index]
    with MemoryStore.open(tmp_path) as store:
        assert [m.role for m in store.history("main")] == ["user", "assistant", "user", "assistant"]
    status, out = _run(capsys, ["turn", "hi", "--root", root, "--json"])
    assert status == 1 and out[0]["error"]["details"]["field"] == "model"  # type: ignore[index]


def test_a_chat_fed_from_a_pipe_writes_its_replies_alone_on_stdout(
    tmp_path: Path, server: FakeChatServer
) -> None:
    script = "hi\n/mode minimal\n/help\nok\n/exit\n"
    args = ["chat", "--root", str(tmp_path), "--model", "tiny", "--endpoint", server.url, "--no-stream"]
    result = runner.invoke(app, args, input=script)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["Reply from the local model."] * 2
    assert "prooftext chat · thread main" in result.stderr and "[Context: Minimal]" in result.stderr
    assert "(mode minimal)" in result.stderr and "/quit or /exit" in result.stderr


def test_chat_is_interactive_persists_history_and_shows_the_signal_report(
    tmp_path: Path, server: FakeChatServer
) -> None:
    """Requirement: llm.chat.interactive"""
    script = "hi\n/signal\nPlease analyze the ledger design in detail\n\n/mode minimal\nok\n/threads\n/quit\n"
    args = ["chat", "--root", str(tmp_path), "--model", "tiny", "--endpoint", server.url]
    result = runner.invoke(app, args, input=script)
    assert result.exit_code == 0, result.output
    out = result.output
    assert (
        "[Context: Smart · Surface]" in out
        and "[Context: Smart · Deep]" in out
        and "[Context: Minimal]" in out
    )
    assert out.count("Reply from the local model.") == 3
    assert "prompt_eval_count" in out and "(empty message ignored)" in out and "main: 6 messages" in out
    assert {r["body"]["model"] for r in server.requests} == {"tiny"}
    assert [r["body"]["options"]["num_predict"] for r in server.requests] == [192, 2048, 1024]
    # the next session continues the same thread from the store
    again = runner.invoke(app, args, input="thanks\n")
    assert again.exit_code == 0
    last = server.requests[-1]["body"]["messages"]
    assert [m["content"] for m in last[1:]] == ["Reply from the local model.", "thanks"]
    with MemoryStore.open(tmp_path) as store:
        assert len(store.history("main")) == 8


def test_chat_json_reports_errors_keeps_going_and_ends_with_status_3_without_losing_the_user_turn(
    tmp_path: Path,
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    big = "x" * 300_000
    script = f"hello\n{big}\n/mode turbo\n/signal\n"
    args = [
        "chat",
        "--root",
        str(tmp_path),
        "--model",
        "tiny",
        "--endpoint",
        f"http://127.0.0.1:{port}",
        "--json",
    ]
    result = runner.invoke(app, args, input=script)
    assert result.exit_code == EXIT_PARTIAL
    assert "chat: 2 of 2 messages failed" in result.output  # on stderr: a command's error is not a message
    lines = _json_lines(result.output)
    codes = [line["error"]["code"] for line in lines if "error" in line]  # type: ignore[index]
    assert codes == ["backend_unavailable", "limit_exceeded", "unknown_name"]
    assert {"signal": None, "note": "no turn answered yet"} in lines
    with MemoryStore.open(tmp_path) as store:
        assert [(m.role, m.text) for m in store.history("main")] == [("user", "hello")]


def test_memory_list_on_a_root_without_a_store_reads_none_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _run(capsys, ["memory", "list", "--root", str(tmp_path), "--json"])
    assert (status, out) == (0, [{"records": []}])
    assert not (tmp_path / ".prooftext").exists()
    status, out = _run(capsys, ["memory", "list", "--kind", "wish", "--root", str(tmp_path), "--json"])
    assert status != 0 and out[0]["error"]["details"]["field"] == "kind"  # type: ignore[index]
    assert not (tmp_path / ".prooftext").exists()


def test_chat_threads_are_separate(tmp_path: Path, server: FakeChatServer) -> None:
    base = ["chat", "--root", str(tmp_path), "--model", "tiny", "--endpoint", server.url, "--no-stream"]
    runner.invoke(app, [*base, "--thread", "main"], input="what is the store schema version?\n")
    result = runner.invoke(app, [*base, "--thread", "garden"], input="hello\n")
    assert result.exit_code == 0
    sent = server.requests[-1]["body"]["messages"]
    assert all("schema" not in m["content"] for m in sent)
    with MemoryStore.open(tmp_path) as store:
        assert {t.name: t.messages for t in store.threads()} == {"garden": 2, "main": 2}


def _chat_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], script: bytes
) -> tuple[int, list[str]]:
    """Run ``chat --json`` with ``script`` on a piped (non-terminal) stdin; returns stdout's lines."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(script), encoding="utf-8"))
    status = run_app(argv)
    return status, capsys.readouterr().out.splitlines()


def test_chat_json_stdout_holds_only_json_lines(
    tmp_path: Path,
    server: FakeChatServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["chat", "--root", str(tmp_path), "--model", "tiny", "--endpoint", server.url, "--json"]
    status, lines = _chat_json(monkeypatch, capsys, argv, b"hi\n/help\nbad \xff byte\n/signal\n")
    assert status == EXIT_PARTIAL and lines  # the message that is not UTF-8 got no reply
    parsed = [json.loads(line) for line in lines]  # every line is one JSON document
    assert parsed[0]["reply"] == "Reply from the local model."
    assert parsed[2]["error"]["code"] == "invalid_request"
    assert parsed[2]["error"]["details"]["field"] == "text"
    assert "signal" in parsed[3]


def test_chat_commands_match_whole_words_so_a_message_may_start_with_one(
    tmp_path: Path,
    server: FakeChatServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["chat", "--root", str(tmp_path), "--model", "tiny", "--endpoint", server.url, "--json"]
    script = b"/modern art is nice?\n/mode minimal\n/mode\n"
    status, lines = _chat_json(monkeypatch, capsys, argv, script)
    parsed = [json.loads(line) for line in lines]
    assert status == 0 and "reply" in parsed[0]
    assert server.requests[0]["body"]["messages"][-1]["content"] == "/modern art is nice?"
    assert parsed[1:] == [{"note": "mode minimal"}, {"note": "mode minimal"}]


def test_turn_errors_name_the_flag_and_refuse_what_cannot_be_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(tmp_path)
    cases = [
        (["turn", "hi", "--window-tokens", "-5"], "value_out_of_range", "window_tokens"),
        (["turn", "hi", "--window-tokens", "5"], "value_out_of_range", "window_tokens"),
        (["turn", "hello \udcff what is the retry config?"], "invalid_request", "text"),
        (["turn", "hi", "--thread", "main\n"], "invalid_request", "thread"),
    ]
    for argv, code, field in cases:
        status, out = _run(capsys, [*argv, "--root", root, "--dry-run", "--json"])
        error = out[0]["error"]
        assert status == 1 and error["code"] == code and error["details"]["field"] == field, argv  # type: ignore[index]
    status, out = _run(capsys, ["turn", "word " * 20000, "--root", root, "--dry-run", "--json"])
    assert status == 1 and out == [out[0]] and out[0]["error"]["code"] == "budget_exceeded"  # type: ignore[index]
    status, out = _run(
        capsys,
        ["turn", "what is up with it", "--window-tokens", "1025", "--root", root, "--dry-run", "--json"],
    )
    assert status == 1 and out[0]["error"]["code"] == "budget_exceeded"  # type: ignore[index]


def test_turn_dry_run_on_a_missing_or_non_directory_root_is_a_root_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _run(
        capsys, ["turn", "what is the retry config?", "--dry-run", "--root", str(tmp_path / "nope"), "--json"]
    )
    assert status == 1 and out[0]["error"]["code"] == "root_missing"  # type: ignore[index]
    (tmp_path / "file").write_text("x")
    status, out = _run(capsys, ["turn", "hi", "--dry-run", "--root", str(tmp_path / "file"), "--json"])
    assert status == 1 and out[0]["error"]["code"] == "root_not_directory"  # type: ignore[index]


def test_turn_dry_run_refuses_an_unknown_backend_as_a_real_turn_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["turn", "hi there", "--backend", "bogus", "--root", str(tmp_path), "--json"]
    status, out = _run(capsys, [*argv, "--dry-run"])
    assert status == 1 and out[0]["error"]["code"] == "unknown_name"  # type: ignore[index]
    assert not (tmp_path / ".prooftext").exists()


def test_memory_ids_beyond_sqlite_range_and_damaged_records_are_coded_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(tmp_path)
    _run(capsys, ["memory", "add", "decision", "Keep WAL", "--root", root, "--json"])
    huge = str(2**63)
    for argv in (["memory", "resolve", huge], ["memory", "supersede", huge, "New"]):
        status, out = _run(capsys, [*argv, "--root", root, "--json"])
        error = out[0]["error"]
        assert status == 1 and error["code"] == "value_out_of_range" and error["details"]["id"] == huge  # type: ignore[index]
    db = sqlite3.connect(tmp_path / ".prooftext" / "memory.sqlite")
    db.execute("UPDATE records SET text = ? WHERE id = 1", (b"\x00\xff",))
    db.commit()
    db.close()
    status, out = _run(capsys, ["memory", "list", "--root", root, "--json"])
    assert status == 1 and out[0]["error"]["code"] == "store_corrupt"  # type: ignore[index]


def test_a_memory_record_repeating_the_message_leaves_the_message_in_the_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(tmp_path)
    message = "Compare the cache refresh strategy in detail"
    _run(capsys, ["memory", "add", "decision", message, "--root", root, "--json"])
    status, out = _run(capsys, ["turn", message, "--root", root, "--dry-run", "--json"])
    plan = out[0]["plan"]
    assert status == 0 and plan["messages"][-1] == {"role": "user", "content": message}  # type: ignore[index]
    drops = plan["pipeline"]["drops"]  # type: ignore[index]
    assert all(d["item_id"] != "turn:current" for d in drops)  # type: ignore[index]


def test_chat_fed_from_a_pipe_writes_replies_alone_and_exits_0_when_every_message_is_answered(
    tmp_path: Path, server: FakeChatServer
) -> None:
    """No ``you>`` prompt between the replies: nobody is typing at a terminal."""
    argv = ["chat", "--root", str(tmp_path), "--model", "tiny", "--endpoint", server.url, "--no-stream"]
    result = runner.invoke(app, argv, input="hello\nand again\n")
    assert result.exit_code == 0
    assert "you>" not in result.output
    assert result.output.count("Reply from the local model.") == 2
