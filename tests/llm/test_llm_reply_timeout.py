"""A server that takes a request and never answers fails the request after the reply timeout, by code."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

import prooftext.cli.conversation  # noqa: F401  (registers the commands)
from fake_chat_server import FakeChatServer
from prooftext.cli.common import run_app
from prooftext.errors import BackendUnavailableError, RangeError
from prooftext.llm.backends import READ_TIMEOUT_S, OllamaBackend, OpenAIBackend, make_backend
from prooftext.llm.messages import ChatMessage

MESSAGES: list[ChatMessage] = [{"role": "user", "content": "Say hello."}]
BACKENDS = [OllamaBackend, OpenAIBackend]
TINY_TIMEOUT_S = 0.2


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_a_server_that_never_answers_is_backend_unavailable_naming_the_timeout(
    backend_cls: type, stream: bool
) -> None:
    with (
        FakeChatServer(fault="silent") as server,
        backend_cls(server.url, read_timeout=TINY_TIMEOUT_S) as backend,
        pytest.raises(BackendUnavailableError) as exc,
    ):
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=stream)
    assert "0.2 s" in exc.value.message and "--timeout" in exc.value.message
    assert exc.value.details["timeout_s"] == TINY_TIMEOUT_S


@pytest.mark.parametrize("backend_cls", BACKENDS)
def test_a_stream_that_stops_sending_midway_is_backend_unavailable(backend_cls: type) -> None:
    deltas: list[str] = []
    with (
        FakeChatServer(fault="stalled_stream") as server,
        backend_cls(server.url, read_timeout=TINY_TIMEOUT_S) as backend,
        pytest.raises(BackendUnavailableError),
    ):
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=True, on_delta=deltas.append)
    assert deltas  # the first piece arrived: the limit is on silence, not on the whole reply


def test_the_default_reply_timeout_is_generous_and_bounded() -> None:
    with make_backend("ollama") as backend:
        assert backend.read_timeout == READ_TIMEOUT_S
    assert 60 <= READ_TIMEOUT_S < math.inf


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, True, "5", None])
def test_a_reply_timeout_that_is_not_a_positive_number_is_refused(bad: object) -> None:
    with pytest.raises(RangeError) as exc:
        make_backend("openai", read_timeout=bad)
    assert exc.value.code == "value_out_of_range" and exc.value.field == "timeout"


def _cli(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str]:
    status = run_app(args)
    return status, capsys.readouterr().out


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_turn_against_a_silent_server_fails_as_backend_unavailable_after_its_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stream: str
) -> None:
    with FakeChatServer(fault="silent") as server:
        args = ["turn", "hi", "--root", str(tmp_path), "--model", "tiny", "--endpoint", server.url]
        status, out = _cli(capsys, [*args, "--timeout", "0.2", stream, "--json"])
    error = json.loads(out)["error"]
    assert status == 1 and error["code"] == "backend_unavailable" and "--timeout" in error["message"]


def test_chat_reports_a_timed_out_reply_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("hi\n/quit\n"))
    with FakeChatServer(fault="silent") as server:
        args = ["chat", "--root", str(tmp_path), "--model", "tiny", "--endpoint", server.url]
        status, out = _cli(capsys, [*args, "--timeout", "0.2", "--json"])
    errors = [d["error"] for d in map(json.loads, out.splitlines()) if "error" in d]
    assert status != 0 and [e["code"] for e in errors] == ["backend_unavailable"]


@pytest.mark.parametrize("command", ["turn", "chat"])
def test_turn_and_chat_refuse_a_timeout_that_is_not_a_positive_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    args = [command, *(["hi", "--dry-run"] if command == "turn" else []), "--root", str(tmp_path)]
    status, out = _cli(capsys, [*args, "--model", "tiny", "--timeout", "0", "--json"])
    error = json.loads(out)["error"]
    assert status == 1 and error["code"] == "value_out_of_range" and error["details"]["field"] == "timeout"
