"""Fixtures for the servers: an indexed sample repository behind a dispatcher, and a JSON-RPC call helper."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from prooftext.server.context import ServerContext
from prooftext.server.dispatcher import Dispatcher

Rpc = Callable[[Any], Any]


@pytest.fixture
def ctx(sample_repo: Path) -> Iterator[ServerContext]:
    context = ServerContext.open(sample_repo)
    context.index.refresh()
    yield context
    context.close()


@pytest.fixture
def dispatcher(ctx: ServerContext) -> Dispatcher:
    return Dispatcher(ctx)


def send(dispatcher: Dispatcher, message: Any) -> Any:
    """Send raw bytes, or a JSON value encoded as is; the decoded reply, or None when there is none."""
    raw = message if isinstance(message, bytes) else json.dumps(message).encode()
    out = dispatcher.handle(raw)
    return None if out is None else json.loads(out)


@pytest.fixture
def rpc(dispatcher: Dispatcher) -> Rpc:
    return lambda message: send(dispatcher, message)


@pytest.fixture
def call(dispatcher: Dispatcher) -> Callable[..., Any]:
    """``call(method, params)`` → the whole response object of a single request with id 1."""

    def run(method: str, params: Any = None) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
        if params is not None:
            message["params"] = params
        return send(dispatcher, message)

    return run
