"""A small local chat server speaking Ollama's and the OpenAI API's wire formats, for tests and offline demos.

It is a real HTTP server (``ThreadingHTTPServer`` on 127.0.0.1, an ephemeral port) that answers
``POST /api/chat`` (Ollama: JSON or NDJSON stream with timing fields) and ``POST /v1/chat/completions``
(OpenAI-compatible: JSON or server-sent events). ``fault`` makes it misbehave on purpose: ``"500"``,
``"malformed"`` (invalid JSON), ``"bad_utf8"`` (invalid UTF-8 bytes), ``"truncated_stream"`` (a stream that
stops before it is done). An unknown model gets each API's own not-found error. Every request body is
recorded in ``requests`` so tests can check what was sent.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS: tuple[str, ...] = ("500", "malformed", "bad_utf8", "truncated_stream")


class FakeChatServer:
    def __init__(
        self,
        *,
        reply: str = "Hello from the local test model.",
        models: tuple[str, ...] = ("tiny",),
        fault: str | None = None,
        prompt_eval_count: int | None = None,
    ) -> None:
        self.reply = reply
        self.models = models
        self.fault = fault
        self.prompt_eval_count = prompt_eval_count
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
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
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _record(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append({"path": path, "body": body})

    def _prompt_count(self, body: dict[str, Any]) -> int:
        if self.prompt_eval_count is not None:
            return self.prompt_eval_count
        msgs = body.get("messages") or []
        return sum(len(str(m.get("content", "")).split()) for m in msgs if isinstance(m, dict)) + 4 * len(
            msgs
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _send_stream(self, ctype: str, lines: list[bytes]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for line in lines:
                    self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._send(400, b'{"error":"bad request"}')
                    return
                fake._record(self.path, body)
                if self.path == "/api/chat":
                    self._ollama(body)
                elif self.path == "/v1/chat/completions":
                    self._openai(body)
                else:
                    self._send(404, b'{"error":"not found"}')

            def _common_fault(self) -> bool:
                if fake.fault == "500":
                    self._send(500, b'{"error":"internal server error"}')
                    return True
                if fake.fault == "malformed":
                    self._send(200, b'{"message": {"content": "unterminated')
                    return True
                if fake.fault == "bad_utf8":
                    self._send(
                        200, b'{"message": {"role": "assistant", "content": "caf\xc3\x28"}, "done": true}'
                    )
                    return True
                return False

            def _words(self) -> list[str]:
                words = fake.reply.split(" ")
                return [w if i == len(words) - 1 else w + " " for i, w in enumerate(words)]

            def _ollama(self, body: dict[str, Any]) -> None:
                model = str(body.get("model", ""))
                if model not in fake.models:
                    self._send(404, json.dumps({"error": f"model '{model}' not found"}).encode())
                    return
                if self._common_fault():
                    return
                timings = {
                    "load_duration": 1_000_000,
                    "prompt_eval_count": fake._prompt_count(body),
                    "prompt_eval_duration": 2_000_000,
                    "eval_count": len(self._words()),
                    "eval_duration": 3_000_000,
                    "total_duration": 7_000_000,
                }
                if not body.get("stream", True):
                    out = {
                        "model": model,
                        "message": {"role": "assistant", "content": fake.reply},
                        "done": True,
                        "done_reason": "stop",
                        **timings,
                    }
                    self._send(200, json.dumps(out).encode())
                    return
                lines = [
                    json.dumps(
                        {"model": model, "message": {"role": "assistant", "content": w}, "done": False}
                    ).encode()
                    + b"\n"
                    for w in self._words()
                ]
                if fake.fault == "truncated_stream":
                    self._send_stream("application/x-ndjson", lines[:1])
                    return
                final = {"model": model, "message": {"role": "assistant", "content": ""}, "done": True}
                final.update({"done_reason": "stop", **timings})
                lines.append(json.dumps(final).encode() + b"\n")
                self._send_stream("application/x-ndjson", lines)

            def _openai(self, body: dict[str, Any]) -> None:
                model = str(body.get("model", ""))
                if model not in fake.models:
                    err = {
                        "error": {
                            "message": f"The model `{model}` does not exist.",
                            "type": "invalid_request_error",
                            "code": "model_not_found",
                        }
                    }
                    self._send(404, json.dumps(err).encode())
                    return
                if self._common_fault():
                    return
                usage = {
                    "prompt_tokens": fake._prompt_count(body),
                    "completion_tokens": len(self._words()),
                    "total_tokens": fake._prompt_count(body) + len(self._words()),
                }
                if not body.get("stream", False):
                    out = {
                        "id": "chatcmpl-local",
                        "object": "chat.completion",
                        "model": model,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": fake.reply},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": usage,
                    }
                    self._send(200, json.dumps(out).encode())
                    return
                events: list[bytes] = []
                for w in self._words():
                    chunk = {
                        "model": model,
                        "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": None}],
                    }
                    events.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                if fake.fault == "truncated_stream":
                    self._send_stream("text/event-stream", events[:1])
                    return
                last = {"model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                events.append(b"data: " + json.dumps(last).encode() + b"\n\n")
                events.append(
                    b"data: " + json.dumps({"model": model, "choices": [], "usage": usage}).encode() + b"\n\n"
                )
                events.append(b"data: [DONE]\n\n")
                self._send_stream("text/event-stream", events)

        return Handler
