"""Running units of evaluation work: in this process, on a local process pool, or on a Dask cluster.

A unit function is ``fn(unit, emit) -> rows emitted``; each result row goes to ``emit`` as soon as it is
ready. Locally the rows reach the caller's ``on_row`` as they are produced (through a queue from pool
workers); on Dask a unit's rows arrive when the unit finishes. Dask is an optional extra
(``pip install 'prooftext[dask]'``); its workers must see the same paths (data, git directories, work dir).
A Dask worker runs in a daemonic process, which may not start children: there an index refresh reads files
in the worker's own process instead of a process pool. A scheduler that cannot be reached within
:data:`SCHEDULER_TIMEOUT_S` is ``scheduler_unreachable``, naming its address.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from prooftext.errors import (
    ConfigError,
    EvaluationError,
    ProoftextError,
    RequestError,
    SchedulerUnreachableError,
)
from prooftext.workers import EXIT_ORPHANED, orphaned, start_every_worker, watch_parent

EXECUTOR_PROCESS = "process"
EXECUTOR_DASK = "dask"
EXECUTORS: tuple[str, ...] = (EXECUTOR_PROCESS, EXECUTOR_DASK)
SCHEDULER_TIMEOUT_S = 10.0
"""How long to try to reach a Dask scheduler before giving up."""
POLL_S = 0.2
MAX_IDLE_POLLS = 100
"""After the pool has finished, rows still missing after this many empty polls are lost: an error."""
START_METHOD = "spawn"
"""Pool workers start fresh: no inherited threads, locks or open SQLite handles."""
NESTED_START_METHOD = "fork"
"""Pools started inside a worker fork it: the worker's code is already loaded and consistent."""

Row = dict[str, Any]
Emit = Callable[[Row], None]
U = TypeVar("U")
UnitFn = Callable[[U, Emit], int]

_SINK: Any = None
"""In a pool worker: the queue rows are sent back on."""
_PARENT: int | None = None
"""In a pool worker: the process that started the pool."""


def _install_sink(sink: Any, parent: int) -> None:
    """Pool worker initializer: the row queue, a watch on ``parent`` (see :mod:`prooftext.workers`), and fork
    for any pool the unit starts (index refresh).

    A spawned worker would otherwise spawn its own pools too: fresh interpreters that re-import prooftext
    from disk, which costs seconds per refresh and breaks if the source changes during a long run.
    """
    global _SINK, _PARENT
    _SINK = sink
    _PARENT = parent
    watch_parent(parent)
    if NESTED_START_METHOD in multiprocessing.get_all_start_methods():
        multiprocessing.set_start_method(NESTED_START_METHOD, force=True)


def _emit(row: Row) -> None:
    """Send a row to the parent; a worker whose parent is gone stops here at once (its watch, see
    :mod:`prooftext.workers`, would stop it within a poll)."""
    if _PARENT is not None and orphaned(_PARENT):
        os._exit(EXIT_ORPHANED)
    _SINK.put(row)


def _pool_unit(fn: UnitFn[U], unit: U) -> int:
    return fn(unit, _emit)


def _collect_unit(fn: UnitFn[U], unit: U) -> list[Row]:
    rows: list[Row] = []
    fn(unit, rows.append)
    return rows


def run_units(
    fn: UnitFn[U],
    units: Sequence[U],
    on_row: Emit,
    *,
    workers: int = 1,
    executor: str = EXECUTOR_PROCESS,
    scheduler: str | None = None,
) -> None:
    """Run every unit; ``on_row`` sees each row once. ``fn`` must be picklable for pools and clusters."""
    if workers < 1:
        raise RequestError("workers must be at least 1", field="workers")
    if executor == EXECUTOR_DASK:
        _run_dask(fn, units, on_row, scheduler)
    elif executor != EXECUTOR_PROCESS:
        raise RequestError(f"executor must be one of {', '.join(EXECUTORS)}", field="executor")
    elif workers == 1 or len(units) <= 1:
        for unit in units:
            fn(unit, on_row)
    else:
        _run_pool(fn, units, on_row, workers)


def _drain(sink: Any, on_row: Emit, block: bool) -> int:
    got = 0
    while True:
        try:
            row = sink.get(timeout=POLL_S) if block and not got else sink.get_nowait()
        except queue.Empty:
            return got
        on_row(row)
        got += 1


def _run_pool(fn: UnitFn[U], units: Sequence[U], on_row: Emit, workers: int) -> None:
    context = multiprocessing.get_context(START_METHOD)
    sink = context.Queue()
    received = 0
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(units)),
        mp_context=context,
        initializer=_install_sink,
        initargs=(sink, os.getpid()),
    )
    with start_every_worker(pool):  # a worker that dies fails the run instead of leaving it waiting
        futures: list[Future[int]] = [pool.submit(_pool_unit, fn, unit) for unit in units]
        while not all(f.done() for f in futures):
            received += _drain(sink, on_row, block=True)
        try:
            expected = sum(f.result() for f in futures)  # a crashed unit raises here, after the others ran
        except BrokenProcessPool:  # a worker died (killed, out of memory): the pool failed every unit left
            raise EvaluationError(
                "an evaluation worker process died (killed, or out of memory); the rows received before are kept",
                reason="worker_lost",
            ) from None
    idle = 0
    while received < expected:
        got = _drain(sink, on_row, block=True)
        received += got
        idle = 0 if got else idle + 1
        if idle > MAX_IDLE_POLLS:
            raise ProoftextError(f"{expected - received} result rows never arrived from the pool")


def _run_dask(fn: UnitFn[U], units: Sequence[U], on_row: Emit, scheduler: str | None) -> None:
    if not scheduler:
        raise RequestError("--executor dask needs --scheduler ADDRESS", field="scheduler")
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ConfigError(
            "the dask executor needs the optional extra: pip install 'prooftext[dask]'"
        ) from None
    try:
        client = Client(scheduler, set_as_default=False, timeout=SCHEDULER_TIMEOUT_S)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnreachableError(
            f"cannot reach the Dask scheduler at {scheduler} within {SCHEDULER_TIMEOUT_S:g} s: {exc}",
            address=scheduler,
        ) from None
    with client:
        futures = [client.submit(_collect_unit, fn, unit, pure=False) for unit in units]
        for future in as_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]
            for row in future.result():
                on_row(row)
