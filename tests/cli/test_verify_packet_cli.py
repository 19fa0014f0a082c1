"""``prooftext verify``: forged labels fail the check; a malformed packet is a coded error, not a crash."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers import promoted
from prooftext.artifacts.limits import MAX_ARTIFACT_BYTES
from prooftext.cli import main
from prooftext.cli.common import EXIT_ERROR
from prooftext.pack.verify import BIT_DIGEST


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _packet(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, Any]:
    status, out, _ = _run(capsys, "pack", "separability_matrix", "--root", str(root), "--json")
    assert status == 0
    packet: dict[str, Any] = json.loads(out)
    return packet


def _verify(capsys: pytest.CaptureFixture[str], root: Path, packet: dict[str, Any]) -> tuple[int, Any, str]:
    saved = root.parent / "packet.json"
    saved.write_text(json.dumps(packet))
    status, out, err = _run(capsys, "verify", str(saved), "--root", str(root), "--json")
    return status, json.loads(out), err


def test_verify_fails_a_packet_whose_labels_were_promoted_and_redigested(
    sample_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packet = promoted(_packet(capsys, sample_repo))
    status, report, _ = _verify(capsys, sample_repo, packet)
    assert status == BIT_DIGEST and report["ok"] is False
    assert {p["kind"] for p in report["problems"]} == {"labels"}


TAMPERED: dict[str, Callable[[dict[str, Any]], None]] = {
    "an empty evidence item": lambda p: p["evidence"].__setitem__(0, {}),
    "lines as a string": lambda p: p["evidence"][0].__setitem__("lines", "1-9"),
    "three line numbers": lambda p: p["evidence"][0].__setitem__("lines", [1, 2, 3]),
    "a null path": lambda p: p["evidence"][0].__setitem__("path", None),
    "an unknown version": lambda p: p.__setitem__("version", "prooftext.packet/v999"),
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_verify_refuses_a_malformed_packet_with_artifact_invalid(
    sample_repo: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    packet = _packet(capsys, sample_repo)
    TAMPERED[case](packet)
    status, out, err = _verify(capsys, sample_repo, packet)
    assert status == EXIT_ERROR and "Traceback" not in err
    assert out["error"]["code"] == "artifact_invalid"
    assert out["error"]["details"]["field"].startswith("packet.")


FIFO_WATCHDOG_SECONDS = 30
"""Only a reader that blocks on the FIFO waits this long; a correct one returns at once."""


def test_verify_refuses_a_fifo_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "packet.json"
    os.mkfifo(fifo)
    done, released = threading.Event(), threading.Event()

    def watchdog() -> None:
        # A reader blocked on open() would hang the test run: after the deadline, open the writing end
        # (and close it) so the reader sees end-of-file and the test fails instead.
        if not done.wait(FIFO_WATCHDOG_SECONDS):
            released.set()
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    guard = threading.Thread(target=watchdog)
    guard.start()
    try:
        status, out, err = _run(capsys, "verify", str(fifo), "--root", str(tmp_path), "--json")
    finally:
        done.set()
        guard.join()
    assert not released.is_set()
    assert status == EXIT_ERROR and "Traceback" not in err
    assert json.loads(out)["error"]["code"] == "artifact_invalid"


def test_verify_refuses_a_device_and_an_oversized_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "verify", os.devnull, "--root", str(tmp_path), "--json")
    error = json.loads(out)["error"]
    assert status == EXIT_ERROR and error["code"] == "artifact_invalid" and "regular" in error["message"]
    big = tmp_path / "big.json"
    big.write_bytes(b"{}")
    os.truncate(big, MAX_ARTIFACT_BYTES + 1)  # sparse: nothing is written, and nothing may be read
    status, out, _ = _run(capsys, "verify", str(big), "--root", str(tmp_path), "--json")
    assert status == EXIT_ERROR and json.loads(out)["error"]["code"] == "limit_exceeded"


def _billing_repo(root: Path) -> Path:
    """One file whose first and last functions (far apart) are what a query about charges needs."""
    parts = []
    for i in range(30):
        name = {0: "charge_refund_start", 29: "charge_refund_end"}.get(i, f"helper_{i}")
        doc = "Charge and refund the amount." if i in (0, 29) else "Unrelated helper."
        body = "\n".join(f"    value_{j} = {i} + {j}" for j in range(8))
        parts.append(f'def {name}(amount):\n    """{doc}"""\n{body}\n    return amount\n')
    (root / "src").mkdir(parents=True)
    (root / "src" / "billing.py").write_text("\n\n".join(parts))
    return root


def test_verify_names_the_path_and_every_line_range_of_a_drifted_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _billing_repo(tmp_path / "repo")
    status, out, _ = _run(
        capsys, "pack", "charge refund amount", "--root", str(root), "--max-tokens", "500", "--json"
    )
    evidence = json.loads(out)["evidence"]
    assert status == 0 and len(evidence) >= 2 and {e["path"] for e in evidence} == {"src/billing.py"}
    saved = tmp_path / "packet.json"
    saved.write_text(out)
    with (root / "src" / "billing.py").open("a") as handle:
        handle.write("# edited\n")
    status, out, err = _run(capsys, "verify", str(saved), "--root", str(root))
    ranges = ", ".join(f"L{e['lines'][0]}-L{e['lines'][1]}" for e in evidence)
    lines = err.splitlines()
    assert status == 2 and out == "failed (status 2)\n"
    assert len(lines) == 1
    assert lines[0].startswith(
        f"verify: src/billing.py {ranges}: source_drift: content changed since the packet"
    )
    status, out, _ = _run(capsys, "verify", str(saved), "--root", str(root), "--json")
    problems = json.loads(out)["problems"]
    assert [(p["path"], p["lines"]) for p in problems] == [(e["path"], e["lines"]) for e in evidence]


def test_verify_of_a_missing_packet_file_is_not_found_naming_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "saved" / "packet.json"
    status, out, err = _run(capsys, "verify", str(missing), "--root", str(tmp_path), "--json")
    error = json.loads(out)["error"]
    assert status == EXIT_ERROR and "Traceback" not in err
    assert error["code"] == "not_found" and error["message"] == f"packet file not found: {missing}"
    status, _, err = _run(capsys, "verify", str(missing), "--root", str(tmp_path))
    assert status == EXIT_ERROR and err == f"prooftext: error [not_found]: packet file not found: {missing}\n"
