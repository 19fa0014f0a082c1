"""``prooftext serve`` and ``prooftext mcp`` refuse bad flags at startup with a stable code, before serving."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from prooftext.cli import main


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, object]]:
    status = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, json.loads(out)["error"]


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--http", "--port", "70000"],
        ["serve", "--http", "--port", "-1"],
        ["serve", "--stdio", "--port", "65536"],
        ["mcp", "--http", "--port", "70000"],
        ["mcp", "--port", "-1"],
    ],
)
def test_a_port_outside_0_to_65535_is_out_of_range(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    status, error = _error(capsys, [*argv, "--root", str(sample_repo), "--no-warm", "--json"])
    assert status == 1
    assert error["code"] == "value_out_of_range" and error["details"] == {"field": "port", "option": "--port"}


@pytest.mark.parametrize("timeout", ["inf", "-inf", "nan", "1e300", "86401", "0", "-1"])
def test_a_timeout_that_is_not_positive_and_at_most_a_day_is_refused_at_startup(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], timeout: str
) -> None:
    argv = ["serve", "--stdio", "--root", str(sample_repo), "--no-warm", "--timeout", timeout, "--json"]
    status, error = _error(capsys, argv)
    assert status == 1
    assert error["code"] == "value_out_of_range" and error["details"] == {
        "field": "timeout",
        "option": "--timeout",
    }


def test_a_host_that_is_no_address_of_this_machine_is_told_to_change_the_host_and_a_busy_port_the_port(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["serve", "--http", "--root", str(sample_repo), "--no-warm", "--token", "t", "--json"]
    status, error = _error(capsys, [*base, "--host", "192.0.2.1", "--port", "0"])  # TEST-NET-1: never local
    assert status == 1 and error["code"] == "config_invalid"
    assert "choose a host name or address of this machine" in str(error["message"])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        status, error = _error(capsys, [*base, "--host", "127.0.0.1", "--port", port])
    assert status == 1 and "choose another port, or 0 for a free one" in str(error["message"])


@pytest.mark.parametrize("workers", ["0", "-3", "1025"])
def test_a_workers_count_out_of_range_is_refused_naming_the_workers_option(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], workers: str
) -> None:
    argv = ["serve", "--stdio", "--root", str(sample_repo), "--no-warm", "--workers", workers]
    status, error = _error(capsys, [*argv, "--json"])
    assert status == 1
    assert error["code"] == "value_out_of_range"
    assert error["details"] == {"field": "max_workers", "option": "--workers"}
    assert main(argv) == 1
    message = capsys.readouterr().err
    assert message.startswith("prooftext: error [value_out_of_range]: --workers ")
    assert "max_workers" not in message


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["mcp", "--port", "9000"], "--port"),
        (["mcp", "--host", "0.0.0.0"], "--host"),
        (["mcp", "--token", "t"], "--token"),
        (["serve", "--stdio", "--port", "9000"], "--port"),
        (["serve", "--stdio", "--host", "127.0.0.1"], "--host"),
        (["serve", "--stdio", "--token", "t"], "--token"),
    ],
)
def test_an_option_of_the_http_transport_given_to_a_server_on_stdio_is_refused_before_serving(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], option: str
) -> None:
    """Not ignored: ``mcp --port 9000`` without ``--http`` would otherwise wait on stdin, silently."""
    status, error = _error(capsys, [*argv, "--root", str(sample_repo), "--no-warm", "--json"])
    assert status == 1
    assert error["code"] == "invalid_request"
    assert error["details"] == {"field": option.removeprefix("--"), "option": option}
    assert "--http" in str(error["message"])


def test_a_token_from_the_environment_does_not_keep_a_server_from_stdio(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROOFTEXT_TOKEN", "t")
    monkeypatch.setattr("sys.stdin", open(os.devnull, encoding="utf-8"))  # noqa: SIM115 - closed by the process
    assert main(["serve", "--stdio", "--root", str(sample_repo), "--no-warm", "--no-watch", "--json"]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("size", [str(2**30 + 1), str(10**30)])
def test_a_request_size_limit_above_a_gibibyte_is_refused_at_startup(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], size: str
) -> None:
    argv = ["serve", "--stdio", "--root", str(sample_repo), "--no-warm", "--max-body-bytes", size, "--json"]
    status, error = _error(capsys, argv)
    assert status == 1
    assert error["code"] == "value_out_of_range"
    assert error["details"] == {"field": "max_body_bytes", "option": "--max-body-bytes"}
    assert str(2**30) in str(error["message"])


@pytest.mark.parametrize("fresh_ms", [str(86_400_001), str(10**30)])
def test_a_freshness_reuse_longer_than_a_day_is_refused_at_startup(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], fresh_ms: str
) -> None:
    """Else ``server.info`` would report a limit beyond the integers JSON readers all read exactly."""
    argv = ["serve", "--stdio", "--root", str(sample_repo), "--no-warm", "--fresh-ms", fresh_ms, "--json"]
    status, error = _error(capsys, argv)
    assert status == 1
    assert error["code"] == "value_out_of_range"
    assert error["details"] == {"field": "fresh_ms", "option": "--fresh-ms"}


@pytest.mark.parametrize(
    "token", [" ", "secret\n", " secret", "sec\x1bret"], ids=["blank", "newline", "space", "escape"]
)
@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_token_no_client_can_send_in_a_header_is_refused_at_startup(
    sample_repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    token: str,
    command: str,
) -> None:
    """A header's value loses the blanks at its ends and holds no control character: such a token would be
    refused as wrong on every request."""

    def served(*args: object) -> None:
        raise AssertionError("the server was started")

    monkeypatch.setattr("prooftext.server.http.serve", served)
    argv = [command, "--http", "--root", str(sample_repo), "--no-warm", "--port", "0", "--token", token]
    status, error = _error(capsys, [*argv, "--json"])
    assert status == 1
    assert error["code"] == "config_invalid"
    assert error["details"] == {"field": "token", "option": "--token"}
    assert token.strip() not in str(error["message"]).split()  # the token is not echoed
