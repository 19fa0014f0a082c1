"""What a reply says of itself (its model, its done or finish reason) reaches the signal report only as a
string or null, and a server answering as another model than the one requested is flagged, never passed
over: in the result, the signal report, and on the command line's stderr."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import prooftext.cli.conversation  # noqa: F401  (registers the commands)
from llm.canned_server import CannedServer
from prooftext.cli.common import run_app
from prooftext.conversation.turn import TurnRequest, plan_turn
from prooftext.errors import BackendProtocolError
from prooftext.llm.backends import ChatResult, OllamaBackend, OpenAIBackend
from prooftext.llm.messages import ChatMessage
from prooftext.llm.signal import model_switched, signal_report

MESSAGES: list[ChatMessage] = [{"role": "user", "content": "Say hello."}]
BACKENDS = [OllamaBackend, OpenAIBackend]
REASON_FIELD = {OllamaBackend: "done_reason", OpenAIBackend: "finish_reason"}


def _reply_body(backend_cls: type, stream: bool, **fields: Any) -> bytes:
    """One reply answering "hi", with ``model``, ``reason`` or ``delta`` set as given. An Ollama reply is
    one JSON object whether streamed or not: a whole reply and a one-line NDJSON stream at once."""
    top: dict[str, Any] = {"model": fields.get("model", "tiny")}
    choice: dict[str, Any] = {"index": 0, REASON_FIELD[backend_cls]: fields.get("reason", "stop")}
    if backend_cls is OllamaBackend:
        reply = {**top, **choice, "message": {"role": "assistant", "content": "hi"}, "done": True}
        return json.dumps(reply).encode() + b"\n"
    if not stream:
        choice["message"] = {"role": "assistant", "content": "hi"}
        return json.dumps({**top, "choices": [choice]}).encode()
    choice["delta"] = fields.get("delta", {"content": "hi"})
    return b"data: " + json.dumps({**top, "choices": [choice]}).encode() + b"\n\ndata: [DONE]\n\n"


def _chat(backend_cls: type, stream: bool, body: bytes, model: str = "tiny") -> ChatResult:
    with CannedServer(200, body) as s, backend_cls(s.url) as backend:
        result: ChatResult = backend.chat(MESSAGES, model=model, max_output_tokens=5, stream=stream)
        return result


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("field", ["model", "reason"])
@pytest.mark.parametrize(
    "value", [{"a": [1.5, 2]}, 1.5, ["stop"], True], ids=["object", "float", "list", "bool"]
)
def test_a_model_or_reason_that_is_neither_a_string_nor_null_is_a_protocol_error(
    backend_cls: type, stream: bool, field: str, value: Any
) -> None:
    body = _reply_body(backend_cls, stream, **{field: value})
    with pytest.raises(BackendProtocolError, match="neither a string nor null"):
        _chat(backend_cls, stream, body)


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_a_reply_naming_no_model_or_reason_has_none_of_either(backend_cls: type, stream: bool) -> None:
    result = _chat(backend_cls, stream, _reply_body(backend_cls, stream, model=None, reason=None))
    assert (result.text, result.model, result.served_model, result.done_reason) == ("hi", "tiny", None, None)


@pytest.mark.parametrize("delta", ["hi", ["hi"], 7])
def test_an_openai_stream_delta_that_is_not_an_object_is_a_protocol_error(delta: Any) -> None:
    with pytest.raises(BackendProtocolError, match="delta is not an object"):
        _chat(OpenAIBackend, True, _reply_body(OpenAIBackend, True, delta=delta))


def test_an_openai_stream_delta_whose_content_is_not_a_string_is_a_protocol_error() -> None:
    with pytest.raises(BackendProtocolError, match="neither a string nor null"):
        _chat(OpenAIBackend, True, _reply_body(OpenAIBackend, True, delta={"content": {"text": "hi"}}))


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_a_server_answering_as_another_model_is_flagged_in_the_signal_report(
    backend_cls: type, stream: bool
) -> None:
    body = _reply_body(backend_cls, stream, model="mistral:latest")
    result = _chat(backend_cls, stream, body, model="llama3.2")
    assert (result.model, result.served_model) == ("llama3.2", "mistral:latest")
    report = signal_report(plan_turn(TurnRequest("main", "hi")), result)
    data = report.to_dict()
    assert (data["model"], data["served_model"], data["model_switched"]) == (
        "llama3.2",
        "mistral:latest",
        True,
    )
    assert (
        report.model_warning == "the server answered as model 'mistral:latest', not 'llama3.2' as requested"
    )


@pytest.mark.parametrize(
    ("served", "switched"),
    [
        (None, False),
        ("llama3.2", False),
        ("llama3.2:latest", False),
        ("gpt-4o-2024-08-06", False),
        ("mistral:latest", True),
        ("llama3.2:1b", True),
        ("llama3.2-vision", True),
        ("LLAMA3.2", True),
    ],
)
def test_only_another_name_than_the_requested_one_tagged_latest_or_dated_is_a_switch(
    served: str | None, switched: bool
) -> None:
    requested = "gpt-4o" if served and served.startswith("gpt-4o") else "llama3.2"
    assert model_switched(requested, served) is switched


def _turn(url: str, root: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    argv = ["turn", "hi", "--model", "llama3.2", "--endpoint", url, "--root", str(root), *flags]
    status = run_app(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("stream", ["--no-stream", "--stream"])
def test_turn_says_on_stderr_and_in_its_json_that_the_server_answered_as_another_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stream: str
) -> None:
    warning = "warning: the server answered as model 'mistral:latest', not 'llama3.2' as requested\n"
    with CannedServer(200, _reply_body(OllamaBackend, False, model="mistral:latest")) as s:
        status, out, err = _turn(s.url, tmp_path, capsys, stream)
        assert status == 0 and err == warning and "hi" in out
        status, out, err = _turn(s.url, tmp_path, capsys, stream, "--json")
    signal = json.loads(out)["signal"]
    assert status == 0 and err == warning
    assert (signal["model"], signal["served_model"], signal["model_switched"]) == (
        "llama3.2",
        "mistral:latest",
        True,
    )


def test_turn_says_nothing_on_stderr_when_the_server_answers_as_the_model_requested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with CannedServer(200, _reply_body(OllamaBackend, False, model="llama3.2:latest")) as s:
        status, out, err = _turn(s.url, tmp_path, capsys, "--json")
    assert status == 0 and err == "" and json.loads(out)["signal"]["model_switched"] is False


def test_an_openai_reply_whose_content_is_null_is_an_empty_reply_with_its_finish_reason() -> None:
    """The API spells a message without text (the output limit spent on reasoning, a refusal) as null."""
    choice = {"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "length"}
    with CannedServer.json(200, {"model": "tiny", "choices": [choice]}) as server:
        result = OpenAIBackend(server.url).chat(MESSAGES, model="tiny", max_output_tokens=8)
    assert (result.text, result.done_reason) == ("", "length")
    choice["message"] = {"role": "assistant", "content": 7}
    with (
        CannedServer.json(200, {"model": "tiny", "choices": [choice]}) as server,
        pytest.raises(BackendProtocolError),
    ):
        OpenAIBackend(server.url).chat(MESSAGES, model="tiny", max_output_tokens=8)
