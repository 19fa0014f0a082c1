"""What a backend makes of bodies it cannot take at their word: error bodies, replies and stream lines that
the JSON parser refuses, and 404s that are not the server's own answer about a model."""

from __future__ import annotations

import pytest

from llm.canned_server import CannedServer
from prooftext.errors import BackendError, BackendProtocolError
from prooftext.llm.backends import OllamaBackend, OpenAIBackend
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
