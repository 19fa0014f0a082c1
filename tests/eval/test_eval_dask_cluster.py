"""Scale-out on a real cluster, and mirrors that lack blobs.

A real ``dask scheduler`` and a ``dask worker`` (a nanny with one daemonic worker process) run as separate
processes on 127.0.0.1; a refresh of a tree large enough for a process pool runs inside the worker.
"""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import prooftext
import prooftext.cli.eval
from prooftext.cli import main
from prooftext.eval import executor
from prooftext.eval.common import RunOptions
from prooftext.eval.run import SwebenchRun, evaluate
from prooftext.store.refresh import PARALLEL_MIN_FILES

from .evaldata import QUERY_1, _git, task

FILES = PARALLEL_MIN_FILES + 12
"""Enough files that a refresh would read them with a process pool where it may start one."""
HAS_DASK = importlib.util.find_spec("distributed") is not None and shutil.which(
    "dask", path=str(Path(sys.executable).parent)
)


def _big_repo(root: Path) -> tuple[Path, str]:
    root.mkdir(parents=True)
    _git(root, "init", "-q")
    for n in range(FILES):
        (root / "pkg").mkdir(exist_ok=True)
        (root / "pkg" / f"mod{n}.py").write_text(
            f"def helper_{n}(x):\n    return x + {n}\n", encoding="utf-8"
        )
    (root / "pkg" / "alpha.py").write_text(
        "def frobnicate_widget(x):\n    if x < 0:\n        raise ValueError(x)\n    return x * 2\n",
        encoding="utf-8",
    )
    (root / "data.bin").write_text("large data file\n" * 50, encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "one", when="2020-01-01T00:00:00Z")
    return root / ".git", _git(root, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("big")
    git_dir, commit = _big_repo(base / "upstream")
    tasks = base / "tasks.jsonl"
    tasks.write_text(json.dumps(task("big-1", commit, QUERY_1, [("pkg/alpha.py", [[2, 3]])])) + "\n")
    repo_map = base / "repos.json"
    repo_map.write_text(json.dumps({"demo/demo": str(git_dir)}))
    return tasks, repo_map


def _refresh_in_daemon(root: str, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    index = prooftext.open(Path(root))
    out.put(index.refresh().files_indexed)
    index.close()


def test_a_refresh_inside_a_daemonic_process_reads_files_without_a_pool(tmp_path: Path) -> None:
    for n in range(FILES):
        (tmp_path / f"m{n}.py").write_text(f"X{n} = {n}\n", encoding="utf-8")
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    process = context.Process(target=_refresh_in_daemon, args=(str(tmp_path), out), daemon=True)
    process.start()
    indexed = out.get(timeout=120)
    process.join(timeout=60)
    assert process.exitcode == 0 and indexed == FILES


def test_an_unreachable_scheduler_is_a_coded_error_naming_its_address(
    big: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(executor, "SCHEDULER_TIMEOUT_S", 0.5)
    import socket

    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    tasks, repo_map = big
    code = main(
        [
            *("eval", "swebench", "--tasks", str(tasks), "--repo-map", str(repo_map), "--arms", "bm25"),
            *("--executor", "dask", "--scheduler", address, "--out", str(tmp_path), "--json"),
        ]
    )
    error = json.loads(capsys.readouterr().out.splitlines()[-1])["error"]
    assert code == 1 and error["code"] == "scheduler_unreachable"
    assert address in error["message"] and error["details"]["address"] == address


def test_a_file_whose_blob_the_mirror_lacks_is_left_out_with_its_reason(
    big: tuple[Path, Path], tmp_path: Path
) -> None:
    tasks, repo_map = big
    source = Path(json.loads(repo_map.read_text())["demo/demo"]).parent
    clone = tmp_path / "partial"
    shutil.copytree(source, clone)
    blob = _git(clone, "rev-parse", "HEAD:data.bin")
    (clone / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    partial_map = tmp_path / "repos.json"
    partial_map.write_text(json.dumps({"demo/demo": str(clone / ".git")}))
    summary = evaluate(
        SwebenchRun(tasks, partial_map, "full,bm25", tokenizer="bytes"), RunOptions(out_dir=tmp_path / "out")
    ).to_dict()
    row = json.loads((tmp_path / "out" / "tasks.jsonl").read_text())
    assert row["files_left_out"] == [{"path": "data.bin", "reason": "blob_missing"}]
    assert summary["files_left_out"] == {"blob_missing": 1} and summary["tasks_with_files_left_out"] == 1
    assert summary["arms"]["bm25"]["failures"] == 0 and row["arms"]["full"]["files"] == FILES + 1
    assert not (tmp_path / "out" / "work" / "demo+demo-0" / "data.bin").exists()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[str]:
    """A scheduler and a nanny worker (one daemonic worker process, one thread), each its own process."""
    dask = str(Path(sys.executable).parent / "dask")
    scheduler_file = tmp_path / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "True"}
    logs = (tmp_path / "scheduler.log").open("w"), (tmp_path / "worker.log").open("w")
    started = [
        subprocess.Popen(
            [
                *(dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"),
                *("--scheduler-file", str(scheduler_file)),
            ],
            stdout=logs[0],
            stderr=subprocess.STDOUT,
            env=env,
        )
    ]
    try:
        from distributed import Client

        with Client(scheduler_file=str(scheduler_file), timeout=60) as client:  # waits for the file
            address = str(client.scheduler.address)
            started.append(
                subprocess.Popen(
                    [dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
                    stdout=logs[1],
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            )
            client.wait_for_workers(1, timeout=120)
        yield address
    finally:
        for process in reversed(started):
            process.terminate()
            process.wait(timeout=60)
        for log in logs:
            log.close()


@pytest.mark.skipif(not HAS_DASK, reason="needs the dask extra")
def test_a_real_scheduler_and_nanny_worker_run_the_evaluation(
    big: tuple[Path, Path], cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks, repo_map = big
    code = main(
        [
            *("eval", "swebench", "--tasks", str(tasks), "--repo-map", str(repo_map), "--arms", "bm25,fixed"),
            *("--tokenizer", "bytes", "--executor", "dask", "--scheduler", cluster),
            *("--out", str(tmp_path / "out"), "--json"),
        ]
    )
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["failed_tasks"] == 0
    assert summary["arms"]["fixed"]["failures"] == 0 and summary["arms"]["fixed"]["gold_file_recall"] == 1.0
    row = json.loads((tmp_path / "out" / "tasks.jsonl").read_text())
    assert row["index"]["files_indexed"] == FILES + 2
