"""What a backend makes of bodies it cannot take at their word: error bodies, replies and stream lines that
the JSON parser refuses, and 404s: the server's own answer that a model is unknown, or a path it does
not serve."""

from __future__ import annotations

import pytest

from llm.canned_server import CannedServer
from prooftext.errors import BackendError, BackendProtocolError, ModelNotFoundError
from prooftext.llm.backends import OllamaBackend, OpenAIBackend, make_backend
from prooftext.llm.messages import ChatMessage

MESSAGES: list[ChatMessage] = [{"role": "user", "content": "Say hello."}]
BACKENDS = [OllamaBackend, OpenAIBackend]
TOO_DEEP = b"[" * 200_000
TOO_LONG_INTEGER = b"1" * 5_000
"""Past the interpreter's 4,300-digit limit for converting a string to an integer."""


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "body",
    [TOO_DEEP, b'{"error":' + TOO_DEEP, b'{"error":' + TOO_LONG_INTEGER + b"}"],
    ids=["nested-array", "nested-error", "long-integer"],
)
def test_an_error_body_the_parser_refuses_is_a_backend_error_with_its_status(
    backend_cls: type, stream: bool, body: bytes
) -> None:
    with CannedServer(500, body) as s, backend_cls(s.url) as backend, pytest.raises(BackendError) as exc:
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=stream)
    assert type(exc.value) is BackendError and exc.value.details["status"] == 500


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("value", [TOO_DEEP, TOO_LONG_INTEGER], ids=["nested-array", "long-integer"])
def test_a_reply_or_stream_line_the_parser_refuses_is_a_protocol_error(
    backend_cls: type, stream: bool, value: bytes
) -> None:
    body = b"data: " + value + b"\n\n" if backend_cls is OpenAIBackend and stream else value + b"\n"
    with (
        CannedServer(200, body) as s,
        backend_cls(s.url) as backend,
        pytest.raises(BackendProtocolError, match="not valid JSON"),
    ):
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=stream)


PATHS = {OllamaBackend: "/api/chat", OpenAIBackend: "/v1/chat/completions"}


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_a_404_for_a_path_the_server_does_not_serve_is_a_backend_error_naming_the_url(
    backend_cls: type, stream: bool
) -> None:
    """An OpenAI-style endpoint ending in /v1 given to the Ollama backend: Ollama answers the path it does
    not serve with a plain-text 404, which says nothing about the model."""
    with (
        CannedServer(404, b"404 page not found", "text/plain") as s,
        backend_cls(s.url + "/v1") as backend,
        pytest.raises(BackendError) as exc,
    ):
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=stream)
    url = s.url + "/v1" + PATHS[backend_cls]
    assert type(exc.value) is BackendError and s.paths == ["/v1" + PATHS[backend_cls]]
    assert exc.value.details == {"status": 404, "url": url}
    assert exc.value.message == f"backend answered HTTP 404 for {url}: 404 page not found"


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize(
    "answer", [{"error": "not found"}, {"detail": "Not Found"}, {"error": {"message": "route not found"}}]
)
def test_a_json_404_that_does_not_say_a_model_is_missing_is_a_backend_error(
    backend_cls: type, answer: dict[str, object]
) -> None:
    with (
        CannedServer.json(404, answer) as s,
        backend_cls(s.url) as backend,
        pytest.raises(BackendError) as exc,
    ):
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5)
    assert type(exc.value) is BackendError and exc.value.details["status"] == 404


MODEL_MISSING_ANSWERS = {
    "ollama": {"error": 'model "tiny" not found, try pulling it first'},
    "ollama-older": {"error": "model 'tiny' not found"},
    "ollama-openai-api": {
        "error": {
            "message": 'model "tiny" not found, try pulling it first',
            "type": "not_found_error",
            "param": None,
            "code": None,
        }
    },
    "openai": {
        "error": {
            "message": "The model `tiny` does not exist or you do not have access to it.",
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
    },
    "vllm": {"error": {"message": "The model `tiny` does not exist.", "type": "NotFoundError", "code": 404}},
    "vllm-older": {
        "object": "error",
        "message": "The model `tiny` does not exist.",
        "type": "NotFoundError",
        "param": None,
        "code": 404,
    },
}


@pytest.mark.parametrize("backend_cls", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("server", sorted(MODEL_MISSING_ANSWERS))
def test_a_servers_own_answer_that_the_model_is_unknown_is_model_not_found(
    backend_cls: type, stream: bool, server: str
) -> None:
    with (
        CannedServer.json(404, MODEL_MISSING_ANSWERS[server]) as s,
        backend_cls(s.url) as backend,
        pytest.raises(ModelNotFoundError) as exc,
    ):
        backend.chat(MESSAGES, model="tiny", max_output_tokens=5, stream=stream)
    assert exc.value.details == {"model": "tiny"}


@pytest.mark.parametrize("stream", [False, True])
def test_a_server_that_echoes_the_credentials_it_refused_has_them_redacted_in_the_error(
    stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFTEXT_API_KEY", "sk-echoed-key")
    body = b'{"error": {"message": "bad key sk-echoed-key for alice with password hunter2-pw"}}'
    with CannedServer(401, body) as server:
        endpoint = server.url.replace("http://", "http://alice:hunter2-pw@")
        with make_backend("openai", endpoint) as client, pytest.raises(BackendError) as caught:
            client.chat(MESSAGES, model="tiny", max_output_tokens=8, stream=stream)
    said = caught.value.message + repr(caught.value.details)
    assert "sk-echoed-key" not in said and "hunter2-pw" not in said and "alice" not in said
    assert caught.value.details["status"] == 401 and "bad key" in said
