"""Wiring one root to a transport: the functions behind ``prooftext serve`` and ``prooftext mcp``."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from prooftext import SigningKey
from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.limits import Limits
from prooftext.server.runner import Runner

RPC_PATH = "/rpc"
MCP_PATH = "/mcp"


def open_context(
    root: Path | str, limits: Limits, interface: str, warm: bool, key: SigningKey | None = None
) -> ServerContext:
    ctx = ServerContext.open(root, limits, interface, key)
    if warm:
        ctx.warm_up()
    return ctx


def run_jsonrpc_stdio(
    root: Path | str, limits: Limits, *, warm: bool = True, key: SigningKey | None = None
) -> None:
    from prooftext.server.stdio import serve_stdio

    ctx = open_context(root, limits, "rpc", warm, key)
    runner = Runner(Dispatcher(ctx))
    try:
        serve_stdio(runner, sys.stdin.buffer, sys.stdout.buffer)
    finally:
        runner.close()
        ctx.close()


def run_jsonrpc_http(
    root: Path | str,
    limits: Limits,
    host: str,
    port: int,
    token: str | None,
    *,
    warm: bool = True,
    key: SigningKey | None = None,
) -> None:
    from prooftext.server import http  # uvicorn and starlette load only when HTTP is served

    http.check_bind(host, token)
    with http.bind(host, port) as sock:  # first: a port in use is reported before the index is opened
        ctx = open_context(root, limits, "rpc", warm, key)
        runner = Runner(Dispatcher(ctx))
        try:
            http.serve(http.create_app(runner, token), sock, RPC_PATH)
        finally:  # also on SIGTERM (SystemExit): the worker processes end and the index is closed
            runner.close()
            ctx.close()


def run_mcp(
    root: Path | str,
    *,
    use_http: bool = False,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    warm: bool = True,
    watch: bool = True,
    tools: str = "lean",
) -> None:
    from prooftext.server import http
    from prooftext.server.mcp_server import create_mcp_server  # the MCP SDK loads only for ``mcp``

    if use_http:
        http.check_bind(host, token)
    # Bound first: a port in use is reported before the index is opened.
    with http.bind(host, port) if use_http else contextlib.nullcontext() as sock:
        ctx = open_context(root, Limits(watch=watch), "mcp", warm)
        server = create_mcp_server(Dispatcher(ctx), tools)
        try:
            if sock is not None:
                app = http.BearerGuard(server.http_app(MCP_PATH, host), token)
                http.serve(app, sock, MCP_PATH)
            else:
                server.run("stdio")
        finally:
            ctx.close()
