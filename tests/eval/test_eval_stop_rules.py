"""``bench/stop_rules.py``: reading the rows ``bench/tune.py`` recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import bench_module

PROBED = {"variant": "default", "repo": "a/b", "probe": [{"nodes": [], "tokens": 10, "recall": 1.0}]}


def _rows(tmp_path: Path, *rows: dict[str, object]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n\n" for r in rows), encoding="utf-8")
    return path


def test_the_rows_of_the_variant_with_a_probe_ladder_are_read(tmp_path: Path) -> None:
    path = _rows(tmp_path, PROBED, {**PROBED, "variant": "other"}, {"variant": "default", "repo": "a/b"})
    assert bench_module("stop_rules").read_rows(path, "default") == [PROBED]


def test_rows_without_a_probe_ladder_stop_with_a_message_naming_the_probe_step(tmp_path: Path) -> None:
    path = _rows(tmp_path, {"variant": "default", "repo": "a/b"})
    with pytest.raises(SystemExit, match="--probe-step"):
        bench_module("stop_rules").read_rows(path, "default")
