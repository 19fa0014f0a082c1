"""Exclusive publication: never overwrite, exactly one of concurrent publishers wins, no partial file."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from prooftext.artifacts.publish import publish_exclusive, sweep_orphans
from prooftext.errors import OutputExistsError, ProoftextError

PUBLISHERS = 8
PAYLOAD_BYTES = 256 * 1024


def _payload(index: int) -> bytes:
    return bytes([65 + index]) * PAYLOAD_BYTES


def _publish(path: str, index: int, barrier: threading.Barrier, outcomes: list[str]) -> None:
    barrier.wait()
    try:
        publish_exclusive(Path(path), _payload(index))
        outcomes[index] = "won"
    except OutputExistsError:
        outcomes[index] = "output_exists"


def _process_publish(args: tuple[str, int]) -> str:
    path, index = args
    try:
        publish_exclusive(Path(path), _payload(index))
        return "won"
    except ProoftextError as exc:
        return exc.code


def _assert_one_complete_winner(path: Path, outcomes: list[str]) -> None:
    assert outcomes.count("won") == 1
    assert sorted(set(outcomes)) == ["output_exists", "won"]
    winner = outcomes.index("won")
    assert path.read_bytes() == _payload(winner)
    assert sorted(os.listdir(path.parent)) == [path.name]


def test_concurrent_threads_exactly_one_wins(tmp_path: Path) -> None:
    path = tmp_path / "out" / "artifact.json"
    barrier = threading.Barrier(PUBLISHERS)
    outcomes = [""] * PUBLISHERS
    threads = [
        threading.Thread(target=_publish, args=(str(path), i, barrier, outcomes)) for i in range(PUBLISHERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _assert_one_complete_winner(path, outcomes)


def test_concurrent_processes_exactly_one_wins(tmp_path: Path) -> None:
    path = tmp_path / "artifact.json"
    context = multiprocessing.get_context("fork")
    with context.Pool(4) as pool:
        outcomes = pool.map(_process_publish, [(str(path), i) for i in range(PUBLISHERS)])
    _assert_one_complete_winner(path, outcomes)


def test_an_existing_path_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "artifact.json"
    path.write_bytes(b"original")
    with pytest.raises(OutputExistsError):
        publish_exclusive(path, b"new")
    assert path.read_bytes() == b"original"


def test_a_dangling_symlink_counts_as_existing(tmp_path: Path) -> None:
    path = tmp_path / "artifact.json"
    path.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(OutputExistsError):
        publish_exclusive(path, b"new")
    assert not (tmp_path / "elsewhere.json").exists()


def test_a_failing_final_check_publishes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "artifact.json"

    def veto() -> None:
        raise OutputExistsError("stop")

    with pytest.raises(OutputExistsError):
        publish_exclusive(path, b"data", before=veto)
    assert os.listdir(tmp_path) == []


def test_without_hard_links_the_output_is_still_exclusive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "artifact.json"
    publish_exclusive(path, b"data")
    assert path.read_bytes() == b"data" and os.listdir(tmp_path) == ["artifact.json"]
    with pytest.raises(OutputExistsError):
        publish_exclusive(path, b"other")


def test_orphan_temps_of_dead_publishers_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead, live = int(done.stdout), os.getpid()
    token = "0123456789abcdef"
    (tmp_path / f".x.json.{dead}.{token}.tmp").write_bytes(b"partial")
    (tmp_path / f".y.json.{live}.{token}.tmp").write_bytes(b"in progress")
    (tmp_path / "notes.tmp").write_bytes(b"not ours")
    assert sweep_orphans(tmp_path) == [f".x.json.{dead}.{token}.tmp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".y.json.{live}.{token}.tmp", "notes.tmp"]


LONG_NAME_CHARS = 250
"""An output name close to the usual 255-byte limit: its temporary name must still fit."""


def test_a_long_output_name_is_published(tmp_path: Path) -> None:
    path = tmp_path / ("a" * (LONG_NAME_CHARS - len(".json")) + ".json")
    publish_exclusive(path, b"{}")
    assert path.read_bytes() == b"{}" and os.listdir(tmp_path) == [path.name]
