"""A real local HTTP server (127.0.0.1, an ephemeral port) that answers every POST with one canned response.

It puts any status and body in front of a backend, as a misbehaving or mistaken server would: an error body
nested too deeply to parse, a plain-text 404 for a path it does not serve, a reply whose fields have the
wrong types. Each path asked for is kept in ``paths``, in arrival order.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class CannedServer:
    def __init__(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.paths: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01})
        self._thread.daemon = True

    @classmethod
    def json(cls, status: int, data: Any) -> CannedServer:
        return cls(status, json.dumps(data).encode())

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> CannedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        canned = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                canned.paths.append(self.path)
                self.send_response(canned.status)
                self.send_header("Content-Type", canned.content_type)
                self.send_header("Content-Length", str(len(canned.body)))
                self.end_headers()
                self.wfile.write(canned.body)

        return Handler
