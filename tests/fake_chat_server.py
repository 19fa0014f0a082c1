"""A small local chat server speaking Ollama's and the OpenAI API's wire formats, for tests.

It is a real HTTP server (``ThreadingHTTPServer`` on 127.0.0.1, an ephemeral port) that answers
``POST /api/chat`` (Ollama: JSON or NDJSON stream with timing fields) and ``POST /v1/chat/completions``
(OpenAI-compatible: JSON or server-sent events). ``fault`` makes it misbehave on purpose: ``"500"``,
``"malformed"`` (invalid JSON), ``"bad_utf8"`` (invalid UTF-8 bytes), ``"truncated_stream"`` (a stream that
stops before it is done), ``"silent"`` (a request read and never answered: not a byte back until the server
stops) and ``"stalled_stream"`` (a stream that sends its first line, then nothing). An unknown model gets each API's own not-found error. Every request body is
recorded in ``requests`` (with its ``Authorization`` header, or None) so tests can check what was sent.

For evaluations: ``responder(body)`` computes each reply from the request (deterministically from the
prompt), ``fail_requests`` names the chat requests (1-based, in arrival order) answered with HTTP 500, as a
server failing mid-run would, ``apis`` limits the wire formats served (``("openai",)``: an OpenAI-compatible
server only, whose ``/api/chat`` is 404), and ``usage=False`` leaves the token usage out of OpenAI replies.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Collection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OLLAMA_PATH = "/api/chat"
OPENAI_PATH = "/v1/chat/completions"
NDJSON = "application/x-ndjson"
EVENT_STREAM = "text/event-stream"

LOAD_DURATION_NS = 1_000_000
PROMPT_EVAL_DURATION_NS = 2_000_000
EVAL_DURATION_NS = 3_000_000
TOTAL_DURATION_NS = 7_000_000
"""Fixed Ollama timing fields (nanoseconds), so signal reports built from them are reproducible."""

OPENAI_COMPLETION_ID = "chatcmpl-local"


class _Server(ThreadingHTTPServer):
    """A client closing its kept-alive connection (a reset while the handler waits for the next request)
    is how a conversation ends, not an error to print; anything else is printed as before."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeChatServer:
    def __init__(
        self,
        *,
        reply: str = "Hello from the local test model.",
        models: tuple[str, ...] = ("tiny",),
        fault: str | None = None,
        prompt_eval_count: int | None = None,
        responder: Callable[[dict[str, Any]], str] | None = None,
        fail_requests: Collection[int] = (),
        apis: tuple[str, ...] = ("ollama", "openai"),
        usage: bool = True,
        served_as: str | None = None,
    ) -> None:
        self.reply = reply
        self.models = models
        self.fault = fault
        self.prompt_eval_count = prompt_eval_count
        self.responder = responder
        self.fail_requests = frozenset(fail_requests)
        self.apis = apis
        self.usage = usage
        self.served_as = served_as
        """The model name every reply gives (another model than the one asked for), else the one asked for."""
        self.chats = 0
        """Chat requests received so far (the ones ``fail_requests`` counts)."""
        self.requests: list[dict[str, Any]] = []
        self.released = threading.Event()
        """Set when the server stops: a silent or stalled handler then lets its connection go."""
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01})
        self._thread.daemon = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _record(self, path: str, body: dict[str, Any], authorization: str | None = None) -> int:
        """Record a request; its number among the chat requests (1-based)."""
        with self._lock:
            self.requests.append({"path": path, "body": body, "authorization": authorization})
            self.chats += 1
            return self.chats

    def reply_to(self, body: dict[str, Any]) -> str:
        return self.responder(body) if self.responder is not None else self.reply

    def _prompt_count(self, body: dict[str, Any]) -> int:
        if self.prompt_eval_count is not None:
            return self.prompt_eval_count
        msgs = body.get("messages") or []
        return sum(len(str(m.get("content", "")).split()) for m in msgs if isinstance(m, dict)) + 4 * len(
            msgs
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        """A handler class bound to this server: the HTTP server makes one handler per request from a class,
        so the state they share has to live on the class."""
        fake = self

        class Handler(_ChatHandler):
            server_state = fake

        return Handler


class _ChatHandler(BaseHTTPRequestHandler):
    """One request to the fake server; ``server_state`` is the :class:`FakeChatServer` that answers it."""

    protocol_version = "HTTP/1.1"
    server_state: FakeChatServer
    reply: str = ""
    """This request's reply (the server's fixed reply, or its responder's)."""

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_stream(self, ctype: str, lines: list[bytes], *, end: bool = True) -> None:
        # Chunked by hand, a flush per chunk, so a client sees each piece as a real server would send it.
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for line in lines:
            self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
            self.wfile.flush()
        if end:
            self.wfile.write(b"0\r\n\r\n")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send(400, b'{"error":"bad request"}')
            return
        state = self.server_state
        api = {OLLAMA_PATH: "ollama", OPENAI_PATH: "openai"}.get(self.path)
        if api is None or api not in state.apis:
            self._send(404, b'{"error":"not found"}')
            return
        number = state._record(self.path, body, self.headers.get("Authorization"))
        if number in state.fail_requests:
            self._send(500, b'{"error":"internal server error"}')
            return
        if state.fault == "silent":
            state.released.wait()
            return
        self.reply = state.reply_to(body)
        if api == "ollama":
            self._ollama(body)
        else:
            self._openai(body)

    def _served(self, model: str) -> str:
        return self.server_state.served_as or model

    def _common_fault(self) -> bool:
        """Answer with the configured fault, if it is one both APIs share; whether it did."""
        fault = self.server_state.fault
        if fault == "500":
            self._send(500, b'{"error":"internal server error"}')
            return True
        if fault == "malformed":
            self._send(200, b'{"message": {"content": "unterminated')
            return True
        if fault == "bad_utf8":
            self._send(200, b'{"message": {"role": "assistant", "content": "caf\xc3\x28"}, "done": true}')
            return True
        return False

    def _words(self) -> list[str]:
        """The reply cut into stream deltas that join back to it exactly (spaces kept on the left piece)."""
        words = self.reply.split(" ")
        return [w if i == len(words) - 1 else w + " " for i, w in enumerate(words)]

    def _stream(self, ctype: str, lines: list[bytes]) -> None:
        """Send the stream, or only its first line when the fault is a truncated stream."""
        if self.server_state.fault == "truncated_stream":
            self._send_stream(ctype, lines[:1])
        elif self.server_state.fault == "stalled_stream":
            self._send_stream(ctype, lines[:1], end=False)
            self.server_state.released.wait()
        else:
            self._send_stream(ctype, lines)

    def _ollama(self, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if model not in self.server_state.models:
            self._send(404, json.dumps({"error": f"model '{model}' not found"}).encode())
            return
        if self._common_fault():
            return
        timings = self._ollama_timings(body)
        if not body.get("stream", True):
            self._send(200, json.dumps(self._ollama_reply(self._served(model), timings)).encode())
            return
        lines = [_ndjson(_ollama_chunk(model, w, done=False)) for w in self._words()]
        final = _ollama_chunk(model, "", done=True)
        final.update({"done_reason": "stop", **timings})
        self._stream(NDJSON, [*lines, _ndjson(final)])

    def _ollama_timings(self, body: dict[str, Any]) -> dict[str, int]:
        return {
            "load_duration": LOAD_DURATION_NS,
            "prompt_eval_count": self.server_state._prompt_count(body),
            "prompt_eval_duration": PROMPT_EVAL_DURATION_NS,
            "eval_count": len(self._words()),
            "eval_duration": EVAL_DURATION_NS,
            "total_duration": TOTAL_DURATION_NS,
        }

    def _ollama_reply(self, model: str, timings: dict[str, int]) -> dict[str, Any]:
        return {
            "model": model,
            "message": {"role": "assistant", "content": self.reply},
            "done": True,
            "done_reason": "stop",
            **timings,
        }

    def _openai(self, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if model not in self.server_state.models:
            self._send(404, json.dumps(_openai_not_found(model)).encode())
            return
        if self._common_fault():
            return
        usage = self._openai_usage(body)
        if not body.get("stream", False):
            self._send(200, json.dumps(self._openai_reply(self._served(model), usage)).encode())
            return
        events = [_sse(_openai_chunk(model, {"content": w}, None)) for w in self._words()]
        events.append(_sse(_openai_chunk(model, {}, "stop")))
        events.append(_sse({"model": model, "choices": [], "usage": usage}))
        events.append(b"data: [DONE]\n\n")
        self._stream(EVENT_STREAM, events)

    def _openai_usage(self, body: dict[str, Any]) -> dict[str, int]:
        prompt = self.server_state._prompt_count(body)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": len(self._words()),
            "total_tokens": prompt + len(self._words()),
        }

    def _openai_reply(self, model: str, usage: dict[str, int]) -> dict[str, Any]:
        message = {"role": "assistant", "content": self.reply}
        out = {
            "id": OPENAI_COMPLETION_ID,
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
        if self.server_state.usage:
            out["usage"] = usage
        return out


def _ndjson(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _sse(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _ollama_chunk(model: str, content: str, *, done: bool) -> dict[str, Any]:
    return {"model": model, "message": {"role": "assistant", "content": content}, "done": done}


def _openai_chunk(model: str, delta: dict[str, str], finish_reason: str | None) -> dict[str, Any]:
    return {"model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


def _openai_not_found(model: str) -> dict[str, Any]:
    return {
        "error": {
            "message": f"The model `{model}` does not exist.",
            "type": "invalid_request_error",
            "code": "model_not_found",
        }
    }
