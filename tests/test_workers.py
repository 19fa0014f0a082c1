"""Worker processes end with the process that started them: a killed refresh leaves no pool behind."""

from __future__ import annotations

import multiprocessing
import os
import select
import signal
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from helpers import spawned_workers
from prooftext import start_every_worker

FILES = 60
"""More files than a refresh reads without its pool (``PARALLEL_MIN_FILES``)."""
WAIT_S = 60
"""A bound on waiting for the worker to end (it ends within a poll; the bound keeps a failure finite)."""

REFRESHER = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path

    import prooftext
    from prooftext.store import refresh

    folder = Path(sys.argv[1])
    read = refresh._load


    def blocking_load(root, stat, config):
        if stat.path == "m0.py":
            with open(folder / "ready", "w") as fifo:
                fifo.write(str(os.getpid()))
            with open(folder / "go") as fifo:
                fifo.read()
        return read(root, stat, config)


    refresh._load = blocking_load
    with prooftext.open(folder / "tree") as index:
        index.refresh()
    """
)

needs_pool = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2 or not hasattr(os, "pidfd_open"),
    reason="needs two cores (a refresh pool) and pidfd_open (to wait on a process that is not a child)",
)


def _ended(handle: int, within_s: float) -> bool:
    ready, _, _ = select.select([handle], [], [], within_s)
    return bool(ready)


def _blocked_refresh(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    """A refresh in another process, with one of its pool's workers blocked on a file it never finishes
    reading: the refresh's process and that worker's pidfd (opened while the worker surely runs)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(FILES):
        (tree / f"m{i}.py").write_text(f"def function_{i}():\n    return {i}\n")
    os.mkfifo(tmp_path / "ready")
    os.mkfifo(tmp_path / "go")
    script = tmp_path / "refresher.py"
    script.write_text(REFRESHER)
    parent = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stderr=subprocess.DEVNULL)
    with open(tmp_path / "ready") as fifo:
        worker = int(fifo.read())
    return parent, os.pidfd_open(worker)


def _end(parent: subprocess.Popen[bytes], handle: int) -> None:
    if parent.poll() is None:
        parent.kill()
        parent.wait()
    if not _ended(handle, 0):
        signal.pidfd_send_signal(handle, signal.SIGKILL)
    os.close(handle)


@needs_pool
def test_a_refresh_pool_worker_ends_when_the_refresh_is_killed(tmp_path: Path) -> None:
    parent, handle = _blocked_refresh(tmp_path)
    parent.kill()
    parent.wait()
    try:
        # The worker is blocked reading its file; only its watch can end it.
        assert _ended(handle, WAIT_S), "the orphaned refresh worker is still running"
    finally:
        _end(parent, handle)


def _spawned_pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn"))


@pytest.mark.parametrize("every", [True, False], ids=["every worker", "on demand"])
def test_a_pool_made_to_start_every_worker_starts_them_all_with_its_first_call(every: bool) -> None:
    # On demand, the second worker would start after the pool's manager began waiting on the first one's
    # death: killed, it would fail nothing. Started together, both are watched from the first wait on.
    before = spawned_workers()
    pool = start_every_worker(_spawned_pool()) if every else _spawned_pool()
    with pool:
        assert pool.submit(os.getpid).result(timeout=WAIT_S) in spawned_workers()
        started = spawned_workers() - before
    assert len(started) == (2 if every else 1)
