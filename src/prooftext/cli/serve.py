"""``prooftext serve`` (JSON-RPC 2.0 over stdio or HTTP) and ``prooftext mcp`` (MCP for coding agents)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import click
import typer

import prooftext
from prooftext.cli.common import app, key_path, root_option
from prooftext.errors import RangeError, RequestError, UnknownNameError
from prooftext.server import limits as limits_defaults
from prooftext.server.limits import TOKEN_ENV, Limits

DEFAULT_HOST = "127.0.0.1"
DEFAULT_RPC_PORT = 8765
DEFAULT_MCP_PORT = 8766
MAX_PORT = 65_535
MCP_PROFILES = ("lean", "all")
"""The tool profiles of ``prooftext mcp`` (checked here, before the MCP SDK loads)."""

# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
RootOpt = Annotated[Path, root_option("The one root this server serves.")]
HostOpt = Annotated[str, typer.Option("--host", help="Address to bind (non-loopback needs a token).")]
TokenOpt = Annotated[
    str | None,
    typer.Option("--token", envvar=TOKEN_ENV, help=f"Bearer token required from clients (or ${TOKEN_ENV})."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Report startup errors as one JSON object.")]
WarmOpt = Annotated[
    bool, typer.Option("--warm/--no-warm", help="Refresh the index in the background at startup.")
]
WatchOpt = Annotated[
    bool,
    typer.Option(
        "--watch/--no-watch",
        help="Learn of file changes from kernel events (inotify) instead of a tree walk per request.",
    ),
]


HTTP_ONLY = ("host", "port", "token")
"""The parameters of the HTTP transport alone: given on the command line to a server on stdio, they are
refused rather than ignored (a token from the environment is not refused)."""


def _check_http_only(ctx: typer.Context, use_http: bool) -> None:
    if use_http:
        return
    for name in HTTP_ONLY:
        source = ctx.get_parameter_source(name)
        if source is not None and source.name == "COMMANDLINE":
            raise RequestError(
                f"--{name} applies to the HTTP transport only: add --http, or leave --{name} out", field=name
            )


def _check_port(port: int) -> None:
    # Checked here, like the limits, so that a bad value is a coded error at startup rather than the
    # OverflowError the socket layer raises while binding.
    if not 0 <= port <= MAX_PORT:
        raise RangeError(f"port must be between 0 and {MAX_PORT}, got {port}", field="port")


@app.command("serve")
def serve_command(
    ctx: typer.Context,
    root: RootOpt = Path("."),
    stdio: Annotated[bool, typer.Option("--stdio", help="Newline-delimited JSON on stdin/stdout.")] = False,
    use_http: Annotated[bool, typer.Option("--http", help="HTTP: POST /rpc and GET /health.")] = False,
    host: HostOpt = DEFAULT_HOST,
    port: Annotated[int, typer.Option("--port", help="TCP port (0 picks a free one).")] = DEFAULT_RPC_PORT,
    token: TokenOpt = None,
    max_body_bytes: Annotated[
        int, typer.Option("--max-body-bytes", help="Largest request accepted.")
    ] = limits_defaults.DEFAULT_MAX_BODY_BYTES,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Per-request deadline in seconds.")
    ] = limits_defaults.DEFAULT_TIMEOUT_S,
    workers: Annotated[
        int, typer.Option("--workers", help="Requests executed at once.")
    ] = limits_defaults.DEFAULT_MAX_WORKERS,
    fresh_ms: Annotated[
        int,
        typer.Option("--fresh-ms", help="Reuse a freshness check up to this old (0: check per request)."),
    ] = limits_defaults.DEFAULT_FRESH_MS,
    processes: Annotated[
        int,
        typer.Option("--processes", help="Worker processes (1: threads only; more use more cores)."),
    ] = limits_defaults.DEFAULT_PROCESSES,
    warm: WarmOpt = True,
    watch: WatchOpt = limits_defaults.DEFAULT_WATCH,
    sign_key: Annotated[
        Path | None,
        typer.Option(
            "--sign-key",
            help="Sign every packet and adaptive result with this key (prooftext key init); "
            "context.verify checks signatures with it.",
            parser=key_path,
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Serve JSON-RPC 2.0 for ROOT: context.adaptive, context.pack, index.status, memory.*, turn.plan, ..."""
    if stdio == use_http:
        raise click.UsageError("choose one transport: --stdio or --http")
    _check_port(port)
    _check_http_only(ctx, use_http)
    limits = Limits(
        max_body_bytes=max_body_bytes,
        timeout_s=timeout,
        max_workers=workers,
        max_pending=max(workers, limits_defaults.DEFAULT_MAX_PENDING),
        fresh_ms=fresh_ms,
        watch=watch,
        processes=processes,
    )
    key = prooftext.SigningKey.load(sign_key, root=root) if sign_key is not None else None
    from prooftext.server.app import run_jsonrpc_http, run_jsonrpc_stdio  # loaded only when serving

    if stdio:
        run_jsonrpc_stdio(root, limits, warm=warm, key=key)
    else:
        run_jsonrpc_http(root, limits, host, port, token, warm=warm, key=key)


@app.command("mcp")
def mcp_command(
    ctx: typer.Context,
    root: RootOpt = Path("."),
    use_http: Annotated[
        bool, typer.Option("--http", help="Streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: HostOpt = DEFAULT_HOST,
    port: Annotated[
        int, typer.Option("--port", help="TCP port for --http (0 picks a free one).")
    ] = DEFAULT_MCP_PORT,
    token: TokenOpt = None,
    tools: Annotated[
        str,
        typer.Option(
            "--tools",
            help="Tool profile: lean (context, search, map, read, who_uses, verify) or all (adds the advanced "
            "knobs and the conversation tools).",
        ),
    ] = "lean",
    warm: WarmOpt = True,
    watch: WatchOpt = limits_defaults.DEFAULT_WATCH,
    as_json: JsonOpt = False,
) -> None:
    """Serve ROOT to coding agents over MCP (stdio by default): context, search, map, read, who_uses, verify."""
    _check_port(port)
    _check_http_only(ctx, use_http)
    if tools not in MCP_PROFILES:
        raise UnknownNameError(
            f"unknown tool profile {tools[:40]!r}; known: {', '.join(MCP_PROFILES)}", field="tools"
        )
    from prooftext.server.app import run_mcp  # the MCP SDK loads only for this command

    run_mcp(root, use_http=use_http, host=host, port=port, token=token, warm=warm, watch=watch, tools=tools)
