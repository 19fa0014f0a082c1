"""Worker processes that end with the process that started them, and pools that see each of them die.

A pool worker outlives a parent that is killed (not interrupted): a busy one goes on with its work, an idle
one waits forever on a queue that every worker holds open. Both pools of prooftext (a refresh reading many
files, an evaluation running shards) start their workers with :func:`watch_parent`, so a killed
``prooftext index`` or ``prooftext eval`` leaves no process behind. Ending a worker at any point is safe:
a refresh killed mid-run is completed by the next one (see :mod:`prooftext.store.refresh`).

The other way round, a pool must see a worker die to fail its work: every process pool of prooftext (the
server's too) goes through :func:`start_every_worker`.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

EXIT_ORPHANED = 3
"""Exit status of a worker that found its parent gone."""
ORPHAN_POLL_S = 1.0
"""How often a worker checks that the process that started it is still there."""


def orphaned(parent: int) -> bool:
    """Whether ``parent`` is no longer this process's parent (it ended, and the process was re-parented)."""
    return os.getppid() != parent


def watch_parent(parent: int) -> None:
    """Pool initializer: end this process (:data:`EXIT_ORPHANED`) once ``parent`` is gone.

    The expected parent is passed in rather than read here: a worker still starting when its parent was
    killed must not take its new parent (init) for the one to watch."""

    def watch() -> None:
        while not orphaned(parent):
            time.sleep(ORPHAN_POLL_S)
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="prooftext-parent-watch", daemon=True).start()


_ON_DEMAND_FLAG = "_safe_to_dynamically_spawn_children"
"""The pool's flag, read at each submission, that makes it start a worker only when a call finds none idle."""


def start_every_worker(pool: ProcessPoolExecutor) -> ProcessPoolExecutor:
    """``pool``, made to start all its workers with its first submission, before its manager thread.

    A pool whose processes are not forked starts a worker when a call finds none idle, after waking its
    manager thread: the manager may already be waiting again on the deaths of the workers it knew, without
    the new one's. That worker, killed (out of memory, by an operator), then fails nothing: its call waits
    for the next submission, or forever. Started together, before the manager's first wait, every worker is
    watched from the start. (A flag the standard library reads; where a version lacks it, setting it changes
    nothing and the pool behaves as before.)"""
    setattr(pool, _ON_DEMAND_FLAG, False)
    return pool
