"""JSON-RPC over HTTP: ``POST /rpc`` (one message per body) and ``GET /health``, served by uvicorn.

A body larger than the limit is refused with 413 before it is read (by ``Content-Length``) or as soon as
the limit is passed (chunked bodies). When a token is set, ``/rpc`` requires ``Authorization: Bearer``;
binding to anything but a loopback address without a token is refused at startup. JSON-RPC errors travel
with status 200; a message of notifications only is answered 204 with no body.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
import sys
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from prooftext.errors import AuthError, LimitError
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.limits import TOKEN_ENV
from prooftext.server.runner import Runner

LOOPBACK_NAMES = frozenset({"localhost"})
JSON_TYPE = "application/json"
KEEP_ALIVE_S = 5
STATUS_OK = 200
STATUS_NO_CONTENT = 204
STATUS_UNAUTHORIZED = 401
STATUS_TOO_LARGE = 413


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve a non-loopback address without a bearer token (a clear error, before binding)."""
    if not token and not is_loopback(host):
        raise AuthError(
            f"binding to {host} exposes the server beyond this machine: set a bearer token with --token or "
            f"the {TOKEN_ENV} environment variable (or bind to 127.0.0.1)",
            host=host,
        )


def authorized(header: str | None, token: str | None) -> bool:
    """Constant-time check of ``Authorization: Bearer <token>`` (always true when no token is set)."""
    if not token:
        return True
    scheme, _, value = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())


def _error(status: int, exc: Exception, headers: dict[str, str] | None = None) -> Response:
    body = Dispatcher.error_response(None, exc)
    return Response(body, status_code=status, media_type=JSON_TYPE, headers=headers)


def _unauthorized() -> Response:
    exc = AuthError("missing or wrong bearer token")
    return _error(STATUS_UNAUTHORIZED, exc, {"WWW-Authenticate": "Bearer"})


def _too_large(limit: int) -> Response:
    exc = LimitError(f"request bodies are limited to {limit} bytes", field="body", limit=limit)
    return _error(STATUS_TOO_LARGE, exc, {"Connection": "close"})


def _declared_length(request: Request) -> int | None:
    value = request.headers.get("content-length")
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


async def _read_capped(request: Request, limit: int) -> bytes | None:
    """The body, or None as soon as it passes ``limit`` bytes (the rest is never read)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(runner: Runner, token: str | None = None) -> Starlette:
    """The ASGI app of one JSON-RPC server (the runner's dispatcher serves one root)."""
    limit = runner.limits.max_body_bytes

    async def rpc(request: Request) -> Response:
        if not authorized(request.headers.get("authorization"), token):
            return _unauthorized()
        declared = _declared_length(request)
        if declared is not None and declared > limit:
            return _too_large(limit)
        body = await _read_capped(request, limit)
        if body is None:
            return _too_large(limit)
        reply = await runner.handle(body)
        if reply is None:
            return Response(status_code=STATUS_NO_CONTENT)
        return Response(reply, status_code=STATUS_OK, media_type=JSON_TYPE)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "pending": runner.pending})

    routes = [Route("/rpc", rpc, methods=["POST"]), Route("/health", health, methods=["GET"])]
    return Starlette(routes=routes)


class BearerGuard:
    """ASGI middleware: every HTTP request needs the bearer token (for apps we do not write, e.g. MCP)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.token:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            if not authorized(headers.get("authorization"), self.token):
                await _unauthorized()(scope, receive, send)
                return
        await self.app(scope, receive, send)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0 picks a free port; read it back with ``getsockname``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def make_server(app: Any, log_level: str = "warning") -> uvicorn.Server:
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=False,
        lifespan="auto",
        timeout_keep_alive=KEEP_ALIVE_S,
        server_header=False,
    )
    return uvicorn.Server(config)


def url_of(sock: socket.socket, path: str) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def serve(app: Any, host: str, port: int, path: str) -> None:
    """Bind, announce the URL on stderr, and serve until interrupted (blocking)."""
    sock = bind(host, port)
    sys.stderr.write(f"prooftext: listening on {url_of(sock, path)}\n")
    sys.stderr.flush()
    make_server(app).run(sockets=[sock])
