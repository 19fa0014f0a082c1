"""The MCP toolset as a coding agent's client sees it, through the official MCP Inspector CLI (npm).

Prints, for ``prooftext mcp`` on a copy of a sphinx-sized tree:

- what the default (lean) tool definitions cost: the JSON of ``tools/list`` in o200k tokens (bar: 2,000), and
  the ``--tools all`` profile beside it;
- for every tool of both profiles, a call through the Inspector (whose SDK client checks ``structuredContent``
  against the tool's ``outputSchema`` and fails the call otherwise) and a second check of the same result here
  with a JSON Schema draft 7 validator (what the Inspector's Ajv reads);
- search's cost per hit (bar: 60 tokens), over several queries;
- the ``notifications/progress`` a cold first index sends. The Inspector CLI sends no progress token with a
  call (its ``callTool`` passes no ``onprogress``), so this part drives ``prooftext mcp`` with the MCP Python
  SDK's client, which does;
- the same tools/list and calls through the Inspector over ``mcp --http`` (streamable HTTP, bearer token);
- what the Inspector CLI shows for ``mcp --http`` with a missing and a wrong bearer token.

Usage: ``python bench/mcp_bench.py [--tree /tmp/sphinx] [--inspector @modelcontextprotocol/inspector]``.
Needs ``npx`` (Node.js) and network access to the npm registry on the first run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import SchemaError
from mcp import Client, StdioServerParameters

import prooftext

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
"""The Inspector run (pinned: its CLI options changed between releases)."""
BASIS = "o200k_base"
DEFINITIONS_BAR = 2000
HIT_BAR = 60
SEARCHES = (
    "how does the html builder decide which documents are outdated",
    "autodoc member ordering",
    "intersphinx inventory fetch timeout",
    "toctree directive maxdepth",
    "i18n gettext message catalog",
)


def _tokens(value: Any) -> int:
    return prooftext.count(json.dumps(value, ensure_ascii=False, separators=(",", ":")), BASIS).count


def _server(root: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "prooftext", "mcp", "--root", str(root), *extra]


def inspector(package: str, target: list[str], *args: str, timeout: float = 600) -> Any:
    """One Inspector CLI call; its JSON answer (an ``{"error": ...}`` object when it failed)."""
    command = ["npx", "-y", package, "--cli", *target, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"error": (done.stderr or done.stdout).strip()[-600:]}
    if done.returncode != 0 and "error" not in answer:
        return {"error": (done.stderr or done.stdout).strip()[-600:]}
    return answer


def _copy(tree: Path) -> Path:
    target = Path(tempfile.mkdtemp(prefix="mcp-bench-")) / tree.name
    shutil.copytree(tree, target, symlinks=True, ignore=shutil.ignore_patterns(".prooftext"))
    return target


def definitions(package: str, root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("lean", "all"):
        listed = inspector(package, _server(root, "--no-warm", "--tools", name), "--method", "tools/list")
        out[name] = listed
        tools = listed["tools"]
        print(
            f"tools/list --tools {name}: {len(tools)} tools, {_tokens(listed)} o200k tokens"
            + (f" (bar {DEFINITIONS_BAR})" if name == "lean" else ""),
            f"; every tool has an outputSchema: {all('outputSchema' in t for t in tools)}",
            f"; every schema is valid JSON Schema (draft 7 and 2020-12): {_schemas_valid(tools)}",
        )
    return out


def _schemas_valid(tools: list[dict[str, Any]]) -> bool:
    try:
        for tool in tools:
            for schema in (tool["inputSchema"], tool.get("outputSchema", {})):
                Draft7Validator.check_schema(schema)
                Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


def _args(arguments: dict[str, Any]) -> list[str]:
    return ["--tool-args-json", json.dumps(arguments)]


def calls(package: str, target: list[str], listed: dict[str, Any]) -> None:
    """Every tool of ``--tools all`` through the Inspector, on the server ``target`` names (a command for
    stdio, a URL and its options for HTTP)."""
    plan: list[tuple[str, dict[str, Any]]] = [
        ("context", {"query": "toctree maxdepth", "max_tokens": 1500}),
        ("search", {"query": SEARCHES[0], "limit": 5}),
        ("map", {"query": "toctree maxdepth", "max_tokens": 1024}),
        ("read", {"path": "sphinx/builders/__init__.py", "start": 1, "end": 20}),
        ("who_uses", {"targets": ["sphinx.util.logging.getLogger"]}),
        ("adaptive_context", {"query": "toctree maxdepth", "max_tokens": 1500, "min_tokens": 1000}),
        ("pack_context", {"query": "toctree maxdepth", "max_tokens": 1000}),
        ("rank_candidates", {"query": "toctree maxdepth", "limit": 3}),
        ("risk_of_changing", {"targets": ["sphinx/util/logging.py"], "limit": 5}),
        ("index_status", {}),
        ("classify_depth", {"text": "how does the toctree directive work?"}),
        ("plan_turn", {"text": "how does the toctree directive work?"}),
        ("add_memory", {"kind": "discovery", "text": "the toctree maxdepth option caps nesting"}),
        ("should_recall_memory", {"task": "what did we find out about toctree?"}),
    ]
    schemas = {t["name"]: t["outputSchema"] for t in listed["all"]["tools"]}
    results: dict[str, Any] = {}
    for name, arguments in plan:
        results[name] = _call(package, target, name, arguments, schemas[name])
    packet = results["context"].get("structuredContent")
    if packet is not None:
        _call(package, target, "verify", {"packet": packet}, schemas["verify"])


def _call(
    package: str, target: list[str], name: str, arguments: dict[str, Any], schema: dict[str, Any]
) -> Any:
    started = time.perf_counter()
    answer = inspector(package, target, "--method", "tools/call", "--tool-name", name, *_args(arguments))
    elapsed = time.perf_counter() - started
    if "error" in answer:
        print(f"  {name:22} FAILED through the Inspector: {answer['error'][-300:]}")
        return answer
    structured = answer.get("structuredContent")
    problems = [e.message[:100] for e in Draft7Validator(schema).iter_errors(structured)]
    verdict = "valid" if structured is not None and not problems and not answer.get("isError") else "INVALID"
    print(f"  {name:22} {verdict} against its outputSchema ({elapsed:.1f} s) {problems[:2] or ''}")
    return answer


def search_cost(package: str, root: Path) -> None:
    costs: list[int] = []
    for query in SEARCHES:
        answer = inspector(
            package,
            _server(root, "--no-warm"),
            "--method",
            "tools/call",
            "--tool-name",
            "search",
            *_args({"query": query, "limit": 10}),
        )
        hits = answer.get("structuredContent", {}).get("hits", [])
        costs += [_tokens(hit) for hit in hits]
    if costs:
        mean = sum(costs) / len(costs)
        print(
            f"search: {len(costs)} hits over {len(SEARCHES)} queries, o200k tokens per hit: max {max(costs)}, "
            f"mean {mean:.1f} (bar {HIT_BAR})"
        )


def cold_progress(tree: Path) -> None:
    root = _copy(tree)
    heard: list[tuple[float, float | None]] = []

    async def listen(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total))

    async def run() -> Any:
        server = StdioServerParameters(command=sys.executable, args=_server(root, "--no-warm")[1:])
        async with Client(server, read_timeout_seconds=900) as client:
            return await client.call_tool(
                "search", {"query": "toctree maxdepth", "limit": 3}, progress_callback=listen
            )

    started = time.perf_counter()
    result = asyncio.run(run())
    elapsed = time.perf_counter() - started
    hits = len((result.structured_content or {}).get("hits", []))
    last = heard[-1] if heard else None
    print(
        f"cold index of a copy of {tree.name} (MCP Python SDK client with a progress token): {elapsed:.1f} s, "
        f"{len(heard)} notifications/progress, last {last}, {hits} hits"
    )
    shutil.rmtree(root.parent, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _http_server(root: Path, token: str) -> Iterator[str]:
    """``prooftext mcp --http --tools all`` on a free port with ``token``; yield its URL."""
    port = _free_port()
    command = [*_server(root, "--no-warm", "--tools", "all", "--http", "--port", str(port), "--token", token)]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        server.stderr.readline()  # "listening on ..." once bound
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(30)


def over_http(package: str, root: Path, listed: dict[str, Any]) -> None:
    with _http_server(root, "bench-token") as url:
        target = [url, "--transport", "http", "--header", "Authorization: Bearer bench-token"]
        over = inspector(package, target, "--method", "tools/list")
        same = over.get("tools") == listed["all"]["tools"]
        print(f"mcp --http: tools/list through the Inspector is the one over stdio: {same}")
        print("every tool through the Inspector over mcp --http:")
        calls(package, target, listed)


def refused_token(package: str, root: Path) -> None:
    with _http_server(root, "bench-token") as url:
        for label, extra in (("missing", []), ("wrong", ["--header", "Authorization: Bearer not-it"])):
            for mode in ([], ["--stored-auth-only"]):
                target = ["--server-url", url, *extra, *mode]
                answer = inspector(package, target, "--method", "tools/list", timeout=120)
                shown = json.dumps(answer)[-420:]
                print(
                    f"mcp --http, {label} token {' '.join(mode) or '(defaults)'}: the Inspector CLI shows {shown}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path("/tmp/sphinx"))
    parser.add_argument("--inspector", default=INSPECTOR, help="the npm package (a version may be pinned)")
    options = parser.parse_args()
    if shutil.which("npx") is None:
        sys.exit("npx (Node.js) is needed to run the MCP Inspector CLI")
    os.environ.setdefault("npm_config_yes", "true")
    root = _copy(options.tree)
    subprocess.run([sys.executable, "-m", "prooftext", "index", str(root)], check=True, capture_output=True)
    try:
        listed = definitions(options.inspector, root)
        print("every tool through the Inspector (structuredContent checked against outputSchema):")
        calls(options.inspector, _server(root, "--no-warm", "--tools", "all"), listed)
        over_http(options.inspector, root, listed)
        search_cost(options.inspector, root)
        refused_token(options.inspector, root)
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)
    cold_progress(options.tree)


if __name__ == "__main__":
    main()
