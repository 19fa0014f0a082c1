"""A packet is UTF-8 text (its digest and counts are of its UTF-8 bytes): ``pack`` writes those bytes even
when standard output was opened in another encoding (``PYTHONIOENCODING=ascii``, a Latin-1 locale), instead
of failing as an internal error on the first character that encoding cannot hold."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from prooftext.cli import main


def test_a_packet_reaches_an_ascii_stdout_as_its_utf8_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text('def frobnicate():\n    return "\x1b[2J café → ✓"\n', encoding="utf-8")
    assert main(["pack", "frobnicate", "--root", str(root), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)["prompt"]
    raw = io.BytesIO()
    monkeypatch.setattr("sys.stdout", io.TextIOWrapper(raw, encoding="ascii"))
    assert main(["pack", "frobnicate", "--root", str(root)]) == 0
    assert raw.getvalue().decode("utf-8") == expected
