"""A killed evaluation leaves no pool worker running its unit on."""

from __future__ import annotations

import errno
import os
import select
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

RUNNER = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path

    from prooftext.eval.executor import run_units


    def unit(arg, emit):
        folder, blocking = Path(arg[0]), arg[1]
        if not blocking:
            return 0
        with open(folder / "ready", "w") as fifo:
            fifo.write(str(os.getpid()))
        with open(folder / "go") as fifo:
            fifo.read()
        emit({"row": 1})
        (folder / "survived").write_text("the unit went on after its parent died")
        return 1


    if __name__ == "__main__":
        folder = sys.argv[1]
        run_units(unit, [(folder, True), (folder, False)], lambda row: None, workers=2)
    """
)


def _release(fifo: Path) -> None:
    """Let the unit go on, unless its watch already ended it (then the FIFO has no reader)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        assert exc.errno == errno.ENXIO


WAIT_S = 60
"""A bound on waiting for the worker to end (it ends at once; the bound only keeps a failure finite)."""


@pytest.mark.skipif(
    not hasattr(os, "pidfd_open"), reason="waiting on a process that is not a child needs pidfd_open"
)
def test_a_pool_worker_whose_parent_was_killed_ends_without_finishing_its_unit(tmp_path: Path) -> None:
    script = tmp_path / "runner.py"
    script.write_text(RUNNER)
    os.mkfifo(tmp_path / "ready")
    os.mkfifo(tmp_path / "go")
    parent = subprocess.Popen([sys.executable, str(script), str(tmp_path)])
    with open(tmp_path / "ready") as fifo:
        worker = int(fifo.read())
    handle = os.pidfd_open(worker)  # before the kill: the worker may end (and be reaped) at once after it
    parent.kill()
    parent.wait()
    try:
        _release(tmp_path / "go")
        ended, _, _ = select.select([handle], [], [], WAIT_S)
    finally:
        os.close(handle)
    assert ended, "the orphaned worker did not end"
    assert not (tmp_path / "survived").exists()
