"""JSON-RPC over HTTP: ``POST /rpc`` (one message per body) and ``GET /health``, served by uvicorn.

A body larger than the limit is refused with 413 before it is read (by ``Content-Length``) or as soon as
the limit is passed (chunked bodies). When a token is set, ``/rpc`` requires ``Authorization: Bearer``,
and a request without it or with another token is answered 401 saying which (``data.token``: ``missing`` or
``wrong``), with no OAuth discovery hints (the server has no OAuth; its ``/.well-known/`` answers 404);
binding to anything but a loopback address without a token is refused at startup. JSON-RPC errors travel
with status 200; a message of notifications only is answered 204 with no body.

Without a token the server is on loopback, where any web page the user opens can reach it. So a ``Host``
that is not a loopback name (a name rebound to 127.0.0.1) is answered 421, and an ``Origin`` that is not a
loopback origin (a cross-site page) 403, as the MCP SDK's transport security answers them. With a token,
the token guards: a page cannot attach it, and the server may be reached under any name (a proxy, the
machine's own names). Every ``POST /rpc`` must be ``Content-Type: application/json`` (with no charset,
or ``utf-8``) or it is answered 415, so a page cannot send one as a "simple" cross-site request without a
CORS preflight, which the server never grants. Every refusal, including 404, 405, 408 and 503, carries a
JSON-RPC error with its stable code in ``data.code``.

Every connection must deliver each whole request (headers and body) within :data:`READ_TIMEOUT_S`, or it is
answered 408 and closed; at most :data:`MAX_CONNECTIONS` are open at once, and one more is answered 503 and
closed. So clients that open sockets and send a request slowly, or never (slowloris), can neither hold
connections for long nor run the server out of file descriptors. At most as many requests run at once
(those whose clients left count until they end); one more is answered 503 ``busy``. Each 503 carries
``data.retry_after_ms`` and a ``Retry-After`` header. Bytes that are not an HTTP/1.1 request are answered
400 and the connection closed. None of these answers is uvicorn's plain text: each is a JSON-RPC error.

A request whose app fails (a bug) is answered 500 with the JSON-RPC internal error (``data.code``
``internal_error``), never with a traceback or a framework's plain text (:class:`CodedFailures`, around
the app of every HTTP server, ``prooftext mcp --http`` included).
"""

from __future__ import annotations

import asyncio
import errno
import hmac
import ipaddress
import json
import logging
import signal
import socket
import sys
import threading
import urllib.parse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http import HTTPStatus
from types import FrameType
from typing import Any, ClassVar

import h11
import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from prooftext.errors import AuthError, ConfigError, LimitError, NotFoundError, RequestError
from prooftext.server.dispatcher import CODE_INTERNAL, INTERNAL_ERROR, Dispatcher, ProtocolError
from prooftext.server.limits import TOKEN_ENV
from prooftext.server.runner import RETRY_AFTER_MS, Runner

log = logging.getLogger("prooftext.server")

LOOPBACK_NAMES = frozenset({"localhost"})
JSON_TYPE = "application/json"
KEEP_ALIVE_S = 5
STATUS_OK = 200
STATUS_NO_CONTENT = 204
STATUS_UNAUTHORIZED = 401
STATUS_FORBIDDEN = 403
STATUS_NOT_FOUND = 404
STATUS_NOT_ALLOWED = 405
STATUS_TOO_LARGE = 413
STATUS_UNSUPPORTED_TYPE = 415
STATUS_MISDIRECTED = 421
STATUS_SERVER_ERROR = 500
ORIGIN_SCHEMES = frozenset({"http", "https"})
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The names of this machine's loopback a ``Host`` or ``Origin`` may give on a server without a token."""
LOOPBACK_SHOWN = f"{', '.join(LOOPBACK_HOSTS[:-1])} or {LOOPBACK_HOSTS[-1]}"
LISTEN_BACKLOG = 128
AUTHORIZATION = b"authorization"
BEARER = b"bearer"
HEADER_BLANKS = " \t\r\n\v\f"
"""What a header's value loses at its ends (a bearer token is compared without them)."""
TOKEN_MISSING = "missing"
TOKEN_WRONG = "wrong"
REALM = "prooftext"
WELL_KNOWN = "/.well-known/"
"""Discovery documents (OAuth protected resource and authorization server metadata) live below this."""

READ_TIMEOUT_S = 30.0
"""How long a client may take to send one whole request, headers and body, counted from when its connection
opens or its previous response ends. Past it the request is answered 408 and the connection closed."""
MAX_CONNECTIONS = 512
"""Connections open at once; one more is answered 503 and closed at once. It is kept below the usual limit
of 1024 open files so that the server's own files (index, sources, worker pipes) still open."""
TERMINATED_STATUS = 128 + signal.SIGTERM
"""Exit status after SIGTERM, as a shell reports a process ended by it (after the server has cleaned up)."""

_RECEIVING = frozenset({h11.IDLE, h11.SEND_BODY})
"""The client's states while its next request is awaited or still arriving."""


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_name(value: str) -> str:
    """The name in a ``Host`` header (``name``, ``name:port``, ``[v6]`` or ``[v6]:port``); "" if malformed."""
    if value.startswith("["):
        name, closed, rest = value[1:].partition("]")
        port_ok = not rest or (rest.startswith(":") and rest[1:].isdigit())
        return name if closed and port_ok else ""
    name, colon, port = value.partition(":")
    return name if not colon or port.isdigit() else ""


def loopback_host(value: str) -> bool:
    """Whether a ``Host`` header names this machine's loopback (127.0.0.1, localhost, [::1]; any port)."""
    return is_loopback(_host_name(value.strip()).lower())


def loopback_origin(value: str) -> bool:
    """Whether an ``Origin`` header is a page served from this machine's loopback (``null`` is not)."""
    try:
        parts = urllib.parse.urlsplit(value.strip())
        _ = parts.port  # a port that is not a number raises
    except ValueError:
        return False
    bare = parts.username is None and not (parts.path or parts.query or parts.fragment)
    return bare and parts.scheme.lower() in ORIGIN_SCHEMES and is_loopback(parts.hostname or "")


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve a non-loopback address without a bearer token, or with a token no client can send
    (a clear error, before binding)."""
    if token and not _sendable(token):
        raise ConfigError(
            f"the bearer token (--token or ${TOKEN_ENV}) cannot be sent in an Authorization header: it has "
            "blanks at its ends or a control character",
            field="token",
        )
    if not token and not is_loopback(host):
        raise AuthError(
            f"binding to {host} exposes the server beyond this machine: set a bearer token with --token or "
            f"the {TOKEN_ENV} environment variable (or bind to 127.0.0.1)",
            host=host,
        )


def _sendable(token: str) -> bool:
    """Whether a header can carry ``token`` as it is: a header's value loses the blanks at its ends and
    holds no control character."""
    return token.strip(HEADER_BLANKS) == token and not any(ord(c) < 0x20 or ord(c) == 0x7F for c in token)


def token_problem(header: bytes | None, token: str | None) -> str | None:
    """``"missing"`` or ``"wrong"`` when the raw ``Authorization: Bearer <token>`` header does not carry the
    token (None when it does, or when no token is set); the check takes constant time.

    Bytes are compared with the token's UTF-8 bytes: a header is bytes on the wire, and decoding it (ASGI
    servers decode as Latin-1) would accept a non-ASCII token only in an encoding nobody sends it in. A
    token read from the environment keeps the bytes it had there (``surrogateescape``)."""
    if not token:
        return None
    scheme, _, value = (header or b"").partition(b" ")
    if scheme.lower() != BEARER or not value.strip():
        return TOKEN_MISSING
    expected = token.encode("utf-8", "surrogateescape")
    return None if hmac.compare_digest(value.strip(), expected) else TOKEN_WRONG


def authorized(header: bytes | None, token: str | None) -> bool:
    """Whether the raw ``Authorization`` header carries the token (true when no token is set)."""
    return token_problem(header, token) is None


def _authorization(scope: Scope) -> bytes | None:
    """The raw ``Authorization`` header of an ASGI request (the first, if several were sent)."""
    return next((v for k, v in scope.get("headers", []) if k.lower() == AUTHORIZATION), None)


def _error(status: int, exc: Exception, headers: Mapping[str, str] | None = None) -> Response:
    body = Dispatcher.error_response(None, exc)
    return Response(body, status_code=status, media_type=JSON_TYPE, headers=headers)


def _unauthorized(problem: str) -> Response:
    """401 saying whether the token was missing or wrong. The challenge names the scheme and, for a wrong
    token, RFC 6750's ``invalid_token``, and nothing else: no ``resource_metadata`` or ``scope``, which
    would send an MCP client looking for an OAuth authorization server this server does not have."""
    if problem == TOKEN_MISSING:
        message = (
            "bearer token missing: send the header Authorization: Bearer <token>, with the token the "
            f"server was started with (--token or ${TOKEN_ENV})"
        )
        challenge = f'Bearer realm="{REALM}"'
    else:
        message = f"bearer token wrong: the token sent is not the one the server was started with (--token or ${TOKEN_ENV})"
        challenge = (
            f'Bearer realm="{REALM}", error="invalid_token", error_description="the bearer token is wrong"'
        )
    exc = AuthError(message, token=problem)
    return _error(STATUS_UNAUTHORIZED, exc, {"WWW-Authenticate": challenge})


def _no_oauth() -> Response:
    exc = NotFoundError(
        "this server has no OAuth authorization: it takes the static bearer token it was started with"
    )
    return _error(STATUS_NOT_FOUND, exc)


def too_large_error(limit: int) -> LimitError:
    """The error of a request body past ``limit`` bytes (on every HTTP server)."""
    return LimitError(f"request bodies are limited to {limit} bytes", field="body", limit=limit)


def _too_large(limit: int) -> Response:
    return _error(STATUS_TOO_LARGE, too_large_error(limit), {"Connection": "close"})


def _site_refusal(request: Request, token: str | None) -> Response | None:
    """421 for a ``Host`` that is not a loopback name, 403 for an ``Origin`` that is not a loopback page, when
    the server has no token (and so serves loopback only); None when the request may go on."""
    if token:
        return None
    remedy = f"start the server with a token (--token or ${TOKEN_ENV}) to serve other names and pages"
    host = request.headers.get("host")
    if host is not None and not loopback_host(host):
        message = f"the Host header must name {LOOPBACK_SHOWN} on a server without a token; {remedy}"
        return _error(STATUS_MISDIRECTED, AuthError(message, header="host"))
    origin = request.headers.get("origin")
    if origin is not None and not loopback_origin(origin):
        message = f"a page from another site may not call a server without a token; {remedy}"
        return _error(STATUS_FORBIDDEN, AuthError(message, header="origin"))
    return None


def json_typed(headers: Mapping[str, str]) -> bool:
    """Whether the body is declared ``application/json`` in UTF-8: without a charset, or with ``utf-8``
    (JSON between systems is UTF-8, RFC 8259; a body declared in another charset would be misread)."""
    media_type, *parameters = headers.get("content-type", "").split(";")
    if media_type.strip().lower() != JSON_TYPE:
        return False
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() != "utf-8":
            return False
    return True


def not_json_error() -> RequestError:
    """The error of a request body not declared ``application/json`` in UTF-8 (on every HTTP server)."""
    return RequestError(
        f"a request body must be sent with Content-Type: {JSON_TYPE} (in UTF-8, the only charset taken)",
        field="content-type",
    )


def _not_json() -> Response:
    return _error(STATUS_UNSUPPORTED_TYPE, not_json_error())


async def _refused(request: Request, exc: Exception) -> Response:
    """The coded answer to a path nothing serves (404) or a method a path does not take (405)."""
    status = exc.status_code if isinstance(exc, HTTPException) else STATUS_NOT_FOUND
    headers = exc.headers if isinstance(exc, HTTPException) else None
    served = "the server takes POST /rpc and GET /health"
    if status == STATUS_NOT_ALLOWED:
        error: Exception = RequestError(f"this path does not take that method: {served}", field="http_method")
    else:
        error = NotFoundError(f"nothing is served at this path: {served}")
    return _error(status, error, headers)


def raw_error(status: int, exc: Exception, headers: Mapping[str, str] | None = None) -> bytes:
    """A whole HTTP/1.1 response carrying ``exc`` as a JSON-RPC error, which then closes the connection
    (for answers written before any request reaches the app)."""
    body = Dispatcher.error_response(None, exc)
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\ncontent-type: {JSON_TYPE}\r\n"
        f"content-length: {len(body)}\r\n{extra}connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def retry_after(retry_after_ms: int) -> dict[str, str]:
    """The ``Retry-After`` header (whole seconds, at least one) of a refusal hinting ``retry_after_ms``."""
    return {"Retry-After": str(max(1, -(-retry_after_ms // 1000)))}


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
        refusal = _site_refusal(request, token)
        if refusal is not None:
            return refusal
        problem = token_problem(_authorization(request.scope), token)
        if problem is not None:
            return _unauthorized(problem)
        if not json_typed(request.headers):
            return _not_json()
        declared = _declared_length(request)
        if declared is not None and declared > limit:
            return _too_large(limit)
        try:
            body = await _read_capped(request, limit)
        except ClientDisconnect:  # gone, or closed for sending its body too slowly: nobody to answer
            return Response(status_code=STATUS_NO_CONTENT)
        if body is None:
            return _too_large(limit)
        reply = await runner.handle(body)
        if reply is None:
            return Response(status_code=STATUS_NO_CONTENT)
        return Response(reply, status_code=STATUS_OK, media_type=JSON_TYPE)

    async def health(request: Request) -> Response:
        refusal = _site_refusal(request, token)
        if refusal is not None:
            return refusal
        return JSONResponse({"status": "ok", "pending": runner.pending})

    routes = [Route("/rpc", rpc, methods=["POST"]), Route("/health", health, methods=["GET"])]
    refusals = {STATUS_NOT_FOUND: _refused, STATUS_NOT_ALLOWED: _refused}
    app = Starlette(routes=routes, exception_handlers=refusals)
    app.router.redirect_slashes = False  # /rpc/ is not /rpc: a client following a redirect may resend as GET
    return app


class BearerGuard:
    """ASGI middleware: every HTTP request needs the bearer token (for apps we do not write, e.g. MCP)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith(WELL_KNOWN):
            # OAuth discovery (RFC 9728, RFC 8414) ends here, token or not: there is nothing to discover.
            await _no_oauth()(scope, receive, send)
            return
        problem = token_problem(_authorization(scope), self.token) if scope["type"] == "http" else None
        if problem is not None:
            await _unauthorized(problem)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class RunningCap:
    """ASGI middleware: at most ``limit`` HTTP requests run at once, those whose clients left included;
    one more is answered 503 ``busy`` with a retry hint, as a JSON-RPC error. It stands in for uvicorn's
    ``limit_concurrency``, which answers in plain text."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.running = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.running >= self.limit:
            await _busy(self.limit)(scope, receive, send)
            return
        self.running += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.running -= 1


def _coded_error(body: bytes) -> bool:
    """Whether ``body`` is a JSON-RPC error carrying a stable code in ``error.data.code``."""
    try:
        error = json.loads(body).get("error")
    except (ValueError, RecursionError, AttributeError):  # plain text, or JSON that is not an object
        return False
    return isinstance(error, dict) and isinstance(error.get("data"), dict) and "code" in error["data"]


class _FailureWatch:
    """The ``send`` of one request as :class:`CodedFailures` sees it: an answer of 500 or more is held until
    whole and, when it carries no coded JSON-RPC error (a framework's plain text), replaced by the internal
    error; every other message passes at once."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._held: list[Message] = []
        self.started = False
        self.complete = False

    async def send(self, message: Message) -> None:
        failing = message["type"] == "http.response.start" and message["status"] >= STATUS_SERVER_ERROR
        if not (failing or self._held):
            await self._pass([message])
            return
        self._held.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            held, self._held = self._held, []
            if _coded_error(b"".join(m.get("body", b"") for m in held[1:])):
                await self._pass(held)
            else:
                await self.answer(int(held[0]["status"]), _internal())

    async def _pass(self, messages: list[Message]) -> None:
        for message in messages:
            self.started = True
            self.complete = message["type"] == "http.response.body" and not message.get("more_body", False)
            await self._send(message)

    async def answer(self, status: int, exc: Exception) -> None:
        """Answer ``exc`` as a JSON-RPC error with ``status`` (whatever was held is dropped)."""
        self._held = []
        body = Dispatcher.error_response(None, exc)
        length = str(len(body)).encode("ascii")
        headers = [(b"content-type", JSON_TYPE.encode("ascii")), (b"content-length", length)]
        start: Message = {"type": "http.response.start", "status": status, "headers": headers}
        await self._pass([start, {"type": "http.response.body", "body": body, "more_body": False}])


def _internal() -> ProtocolError:
    """The internal error standing for the failure behind a framework's plain-text 500 (the exception, if
    any, is logged when it reaches :class:`CodedFailures`)."""
    return ProtocolError(INTERNAL_ERROR, CODE_INTERNAL, "internal error")


class CodedFailures:
    """Outermost ASGI middleware of every HTTP server: a request whose app raises (a bug, or anything not
    turned into a JSON-RPC error) or returns without answering is answered 500 with the internal error
    (``data.code`` ``internal_error``, no traceback), as the dispatcher answers an unexpected exception;
    a plain-text 500 a framework wrote for such an exception is replaced by the same answer. A response
    already under way is never answered twice: the exception goes on to uvicorn, which logs it and closes
    the connection. One raised once its answer is whole is only logged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        watch = _FailureWatch(send)
        try:
            await self.app(scope, receive, watch.send)
        except Exception as exc:
            if watch.complete:
                log.error("internal error while serving a request", exc_info=exc)
            elif watch.started:
                raise
            else:
                await watch.answer(STATUS_SERVER_ERROR, exc)
            return
        if not watch.started:
            unanswered = RuntimeError("the request was left without an answer")
            await watch.answer(STATUS_SERVER_ERROR, unanswered)


class RequestTarget:
    """ASGI middleware of every HTTP server: what a request addresses, read as a server must. A request
    target in absolute form (``POST http://host/rpc``, as a client configured for a proxy sends it) is
    served as its path, its authority standing for the ``Host`` header, which a server must then ignore
    (RFC 9112, 3.2.2 and 3.2.4); and the host is in lower case, as names are case-insensitive (so the
    MCP SDK's exact match of loopback names takes ``LOCALHOST``). The loopback checks read the result."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope = addressed(scope)
        await self.app(scope, receive, send)


def addressed(scope: Scope) -> Scope:
    """``scope`` with an absolute-form target made its path and host, and its host in lower case (see
    :class:`RequestTarget`)."""
    raw: bytes = scope.get("raw_path") or b""
    headers: list[tuple[bytes, bytes]] = list(scope["headers"])
    if raw[:8].lower().startswith((b"http://", b"https://")):
        target = urllib.parse.urlsplit(raw.decode("latin-1"))
        path = target.path or "/"
        authority = target.netloc.rpartition("@")[2].encode("latin-1")
        headers = [*(h for h in headers if h[0] != b"host"), (b"host", authority)]
        scope = {**scope, "raw_path": path.encode("latin-1"), "path": urllib.parse.unquote(path)}
    lowered = [(name, value.lower() if name == b"host" else value) for name, value in headers]
    return {**scope, "headers": lowered}


def _busy(limit: int) -> Response:
    exc = LimitError(
        f"the server is running {limit} requests, its most; retry later",
        reason="busy",
        limit=limit,
        retry_after_ms=RETRY_AFTER_MS,
    )
    return _error(HTTPStatus.SERVICE_UNAVAILABLE, exc, retry_after(RETRY_AFTER_MS))


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline on receiving each request, a cap on connections, and
    coded answers where uvicorn's are plain text.

    uvicorn bounds only the idle time between requests: a connection that sends nothing, part of its
    headers or part of its body is kept open for ever (and its ``limit_concurrency`` answers 503 only to
    complete requests, so it does not bound open sockets either). Bytes h11 cannot read as a request are
    answered with :meth:`send_400_response`, which uvicorn calls for them."""

    read_timeout_s: ClassVar[float] = READ_TIMEOUT_S
    max_connections: ClassVar[int] = MAX_CONNECTIONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        if len(self.connections) > self.max_connections:
            full = LimitError(
                f"the server has {self.max_connections} connections open, its most; retry later",
                reason="connections",
                limit=self.max_connections,
                retry_after_ms=RETRY_AFTER_MS,
            )
            self._close_with(raw_error(HTTPStatus.SERVICE_UNAVAILABLE, full, retry_after(RETRY_AFTER_MS)))
            return
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """The answer to bytes that are not an HTTP/1.1 request (a malformed request line, header or chunk),
        then the connection is closed; only closed when a response is under way."""
        bad = RequestError(
            "invalid HTTP request: the request line, a header or the body's framing is not HTTP/1.1",
            field="http_request",
        )
        self._close_with(b"" if self._responding() else raw_error(HTTPStatus.BAD_REQUEST, bad))

    def _responding(self) -> bool:
        """Whether a response has started and not ended: nothing else may be written into it."""
        return self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete

    def _watch(self) -> None:
        """Run the deadline while a request is awaited or arriving; stop it once the request is whole."""
        receiving = self.conn.their_state in _RECEIVING and not self.transport.is_closing()
        if receiving and self._deadline is None:
            self._deadline = self.loop.call_later(self.read_timeout_s, self._timed_out)
        elif not receiving:
            self._disarm()

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _timed_out(self) -> None:
        self._deadline = None
        # A 408 cannot be written into a response under way; then the connection is only closed.
        late = LimitError(
            f"a request must arrive whole within {self.read_timeout_s:g} s",
            reason="read_timeout",
            limit_ms=int(self.read_timeout_s * 1000),
        )
        self._close_with(b"" if self._responding() else raw_error(HTTPStatus.REQUEST_TIMEOUT, late))

    def _close_with(self, response: bytes) -> None:
        if response:
            self.transport.write(response)
        self.transport.close()  # the app, if one is reading the body, receives http.disconnect


def _protocol(read_timeout_s: float, max_connections: int) -> type[GuardedH11Protocol]:
    """The protocol class for one server (uvicorn builds one instance per connection from a class)."""
    timeout, cap = read_timeout_s, max_connections

    class Protocol(GuardedH11Protocol):
        read_timeout_s = timeout
        max_connections = cap

    return Protocol


def _bind_remedy(exc: OSError) -> str:
    """What to change when a bind fails: the host when it names no address of this machine, else the port."""
    if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
        return "choose a host name or address of this machine, such as 127.0.0.1"
    return "choose another port, or 0 for a free one"


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0 picks a free port; read it back with ``getsockname``).

    A host or port that cannot be served (in use, not an address of this machine, privileged, not
    resolvable) is a :class:`ConfigError` naming them, raised before anything else starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(LISTEN_BACKLOG)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise ConfigError(
            f"cannot listen on {host} port {port}: {reason} ({_bind_remedy(exc)})",
            host=host,
            port=port,
            reason=reason,
        ) from None
    sock.setblocking(False)
    return sock


def make_server(
    app: Any,
    log_level: str = "warning",
    *,
    read_timeout_s: float = READ_TIMEOUT_S,
    max_connections: int = MAX_CONNECTIONS,
) -> uvicorn.Server:
    config = uvicorn.Config(
        CodedFailures(RequestTarget(RunningCap(app, max_connections))),
        http=_protocol(read_timeout_s, max_connections),
        ws="none",  # nothing here speaks WebSocket, and an upgraded connection would escape the deadline
        log_level=log_level,
        access_log=False,
        lifespan="auto",
        timeout_keep_alive=KEEP_ALIVE_S,
        limit_concurrency=None,  # RunningCap bounds the requests running, with a coded answer
        server_header=False,
    )
    return uvicorn.Server(config)


def url_of(sock: socket.socket, path: str) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(TERMINATED_STATUS)


@contextmanager
def _sigterm_exits() -> Iterator[None]:
    """SIGTERM raises ``SystemExit``, so that the callers' ``finally`` blocks release the index and pool.

    uvicorn catches SIGTERM to shut down gracefully, then raises it again under the handler it found: the
    default one, which ends the process on the spot."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread has handlers
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve(app: Any, sock: socket.socket, path: str) -> None:
    """Announce the URL on stderr and serve on ``sock`` (from :func:`bind`) until interrupted (blocking).

    SIGINT ends it with ``KeyboardInterrupt`` and SIGTERM with ``SystemExit`` (:data:`TERMINATED_STATUS`),
    each after uvicorn's graceful shutdown."""
    sys.stderr.write(f"prooftext: listening on {url_of(sock, path)}\n")
    sys.stderr.flush()
    with _sigterm_exits():
        make_server(app).run(sockets=[sock])
