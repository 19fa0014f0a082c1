"""Backends against real local HTTP servers speaking Ollama's and the OpenAI API's wire formats."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from fake_chat_server import FakeChatServer
from prooftext.errors import (
    BackendError,
    BackendProtocolError,
    BackendUnavailableError,
    ModelNotFoundError,
    RequestError,
    UnknownNameError,
)
from prooftext.llm.backends import (
    OLLAMA_TIMING_FIELDS,
    OllamaBackend,
    OpenAIBackend,
    make_backend,
    shown_endpoint,
)
from prooftext.llm.messages import ChatMessage

MESSAGES: list[ChatMessage] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Say hello."},
]
REPLY = "Héllo wörld — streamed in parts."
BACKENDS = [OllamaBackend, OpenAIBackend]


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer(reply=REPLY) as s:
        yield s


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_reply_streaming_and_not(server: FakeChatServer, backend_cls: type, stream: bool) -> None:
    """Requirement: llm.backends.wire_formats"""
    deltas: list[str] = []
    with backend_cls(server.url) as backend:
        result = backend.chat(
            MESSAGES, model="tiny", max_output_tokens=77, stream=stream, on_delta=deltas.append
        )
    assert result.text == REPLY and result.streamed is stream and result.model == "tiny"
    assert result.done_reason == "stop"
    if stream:
        assert len(deltas) > 1 and "".join(deltas) == REPLY
    else:
        assert deltas == []
    body = server.requests[-1]["body"]
    assert body["messages"] == MESSAGES and body["model"] == "tiny" and body["stream"] is stream
    if backend_cls is OllamaBackend:
        assert server.requests[-1]["path"] == "/api/chat"
        assert body["options"] == {"num_predict": 77}
        assert all(isinstance(result.timings[k], int) for k in OLLAMA_TIMING_FIELDS)
    else:
        assert server.requests[-1]["path"] == "/v1/chat/completions"
        assert body["max_tokens"] == 77
        assert result.usage["prompt_tokens"] is not None and result.usage["completion_tokens"] is not None


def test_ollama_num_ctx_is_sent_only_when_configured(server: FakeChatServer) -> None:
    with OllamaBackend(server.url, num_ctx=4096) as backend:
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5)
    assert server.requests[-1]["body"]["options"] == {"num_predict": 5, "num_ctx": 4096}


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_connection_refused_is_backend_unavailable(backend_cls: type, stream: bool) -> None:
    """Requirement: llm.errors.connection_refused"""
    with backend_cls(f"http://127.0.0.1:{_unused_port()}") as backend, pytest.raises(BackendUnavailableError):
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=stream)


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_server_error_500(backend_cls: type, stream: bool) -> None:
    """Requirement: llm.errors.http_500"""
    with FakeChatServer(fault="500") as s, backend_cls(s.url) as backend, pytest.raises(BackendError) as exc:
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=stream)
    assert type(exc.value) is BackendError and exc.value.details["status"] == 500


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("fault", ["malformed", "bad_utf8"])
def test_malformed_json_and_invalid_utf8_are_protocol_errors(backend_cls: type, fault: str) -> None:
    """Requirement: llm.errors.malformed"""
    with FakeChatServer(fault=fault) as s, backend_cls(s.url) as backend:
        with pytest.raises(BackendProtocolError):
            backend.chat(MESSAGES, model="tiny", max_output_tokens=5)
        with pytest.raises(BackendProtocolError):
            backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=True)


@pytest.mark.parametrize("backend_cls", BACKENDS)
def test_a_stream_that_stops_early_is_a_protocol_error(backend_cls: type) -> None:
    with (
        FakeChatServer(fault="truncated_stream") as s,
        backend_cls(s.url) as backend,
        pytest.raises(BackendProtocolError),
    ):
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=True)


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_model_not_found(server: FakeChatServer, backend_cls: type, stream: bool) -> None:
    """Requirement: llm.errors.model_not_found"""
    with backend_cls(server.url) as backend, pytest.raises(ModelNotFoundError) as exc:
        backend.chat(MESSAGES, model="giant", max_output_tokens=5, stream=stream)
    assert exc.value.details["model"] == "giant"


def test_bad_requests_fail_before_any_network_call(server: FakeChatServer) -> None:
    with OllamaBackend(server.url) as backend:
        with pytest.raises(RequestError):
            backend.chat(MESSAGES, model=" ", max_output_tokens=5)
        with pytest.raises(RequestError):
            backend.chat(MESSAGES, model="tiny", max_output_tokens=0)
        with pytest.raises(RequestError):
            backend.chat([], model="tiny", max_output_tokens=5)
    assert server.requests == []
    with pytest.raises(RequestError):
        OllamaBackend("ftp://example")
    with pytest.raises(UnknownNameError):
        make_backend("llamafile-9000")


@pytest.mark.parametrize(
    ("endpoint", "shown"),
    [
        ("http://user:sk-123@127.0.0.1:9", "http://[REDACTED]@127.0.0.1:9"),
        ("https://sk-123@example.test/v1", "https://[REDACTED]@example.test/v1"),
        ("http://127.0.0.1:9/a@b", "http://127.0.0.1:9/a@b"),
        ("http://127.0.0.1:9", "http://127.0.0.1:9"),
    ],
)
def test_an_endpoint_is_shown_without_the_credentials_it_holds(endpoint: str, shown: str) -> None:
    assert shown_endpoint(endpoint) == shown


@pytest.mark.parametrize("backend_cls", [OllamaBackend, OpenAIBackend])
def test_credentials_in_the_endpoint_reach_no_error_message_or_detail(backend_cls: type) -> None:
    with FakeChatServer(fault="500") as server:
        up = server.url.replace("http://", "http://user:sk-123@")
        for endpoint in (up, "http://user:sk-123@127.0.0.1:9"):
            with backend_cls(endpoint) as client, pytest.raises(BackendError) as caught:
                client.chat(MESSAGES, model="tiny", max_output_tokens=8)
            assert "sk-123" not in caught.value.message + repr(caught.value.details)
            assert "[REDACTED]@127.0.0.1" in caught.value.message


@pytest.mark.parametrize("key", ["ké-secret", "a\nb-secret", "two words-secret"])
def test_an_api_key_a_header_cannot_carry_is_refused_without_repeating_it(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFTEXT_API_KEY", key)
    with pytest.raises(RequestError) as caught:
        make_backend("openai", "http://127.0.0.1:9")
    assert caught.value.field == "api_key" and "secret" not in caught.value.message


@pytest.mark.parametrize("backend", ["ollama", "openai"])
@pytest.mark.parametrize(
    "endpoint",
    ["http://", "http://:80", "https:///v1", "http://[bad", "http://127.0.0.1:99999", "http://h o st"],
)
def test_an_endpoint_without_a_usable_host_or_port_is_refused_before_any_request(
    backend: str, endpoint: str
) -> None:
    with pytest.raises(RequestError) as caught:
        make_backend(backend, endpoint)
    assert caught.value.field == "endpoint"
