"""``prooftext serve --sign-key``: the server signs every packet and adaptive result it returns, in its
threads and in its worker processes, and ``context.verify`` checks signatures with its key."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import prooftext
from prooftext.cli import main
from prooftext.server.context import Limits, ServerContext
from prooftext.server.dispatcher import Dispatcher
from prooftext.server.runner import Runner

PACK = {"jsonrpc": "2.0", "id": 1, "method": "context.pack", "params": {"query": "separability matrix"}}
ADAPTIVE = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "context.adaptive",
    "params": {"query": "separability matrix"},
}
BIT_UNSIGNED, BIT_FORGED = 8, 16


@pytest.fixture
def key(tmp_path: Path) -> prooftext.SigningKey:
    return prooftext.SigningKey.generate(tmp_path / "keys" / "server.key")


def _call(dispatcher: Dispatcher, message: dict[str, Any]) -> dict[str, Any]:
    reply = dispatcher.handle(json.dumps(message).encode())
    assert reply is not None
    body: dict[str, Any] = json.loads(reply)
    return body


def _verify(dispatcher: Dispatcher, packet: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 3, "method": "context.verify", "params": {"packet": packet}}
    result: dict[str, Any] = _call(dispatcher, message)["result"]
    return result


def test_a_server_with_a_key_signs_packets_and_adaptive_results_and_verifies_them(
    sample_repo: Path, key: prooftext.SigningKey
) -> None:
    ctx = ServerContext.open(sample_repo, Limits(), signing_key=key)
    try:
        dispatcher = Dispatcher(ctx)
        packet = _call(dispatcher, PACK)["result"]
        adaptive = _call(dispatcher, ADAPTIVE)["result"]
        assert packet["signature"]["key_id"] == adaptive["signature"]["key_id"] == key.key_id
        assert _verify(dispatcher, packet)["signature"] == "valid"
        packet["trace"] = {}  # the compiler's record, which only the signature covers
        report = _verify(dispatcher, packet)
        assert report["status"] & BIT_FORGED and report["signature"] == "forged"
    finally:
        ctx.close()


def test_a_server_without_a_key_signs_nothing_and_a_server_with_one_names_unsigned_packets(
    sample_repo: Path, key: prooftext.SigningKey
) -> None:
    plain = ServerContext.open(sample_repo, Limits())
    keyed = ServerContext.open(sample_repo, Limits(), signing_key=key)
    try:
        packet = _call(Dispatcher(plain), PACK)["result"]
        assert "signature" not in packet
        report = _verify(Dispatcher(keyed), packet)
        assert report["status"] == BIT_UNSIGNED and report["signature"] == "unsigned"
    finally:
        plain.close()
        keyed.close()


def test_worker_processes_sign_with_the_servers_key(sample_repo: Path, key: prooftext.SigningKey) -> None:
    ctx = ServerContext.open(sample_repo, Limits(processes=2), signing_key=key)
    runner = Runner(Dispatcher(ctx))
    try:
        reply = asyncio.run(runner.handle(json.dumps(PACK).encode()))
    finally:
        runner.close()
        ctx.close()
    assert reply is not None
    assert json.loads(reply)["result"]["signature"]["key_id"] == key.key_id


def test_serve_refuses_a_key_inside_the_root_it_serves(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inside = prooftext.SigningKey.generate(sample_repo.parent / "outside.key").secret
    (sample_repo / "server.key").write_bytes(inside)
    (sample_repo / "server.key").chmod(0o600)
    status = main(
        ["serve", "--stdio", "--root", str(sample_repo), "--sign-key", str(sample_repo / "server.key")]
    )
    assert status != 0 and "signing_key_invalid" in capsys.readouterr().err


def test_serve_names_the_sign_key_option_for_a_bad_key(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "keys" / "none.key"
    argv = ["serve", "--stdio", "--root", str(sample_repo), "--sign-key", str(missing)]
    assert main(argv) == 1
    assert capsys.readouterr().err.startswith("prooftext: error [signing_key_invalid]: --sign-key: ")
    assert main([*argv, "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["details"] == {"field": "key", "option": "--sign-key"}
