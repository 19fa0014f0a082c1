"""Small helpers every benchmark uses: failure records and timing."""

from __future__ import annotations

import importlib.util
import os
import resource
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from prooftext.errors import ArtifactError, ExtraMissingError, ProoftextError, RangeError, RequestError
from prooftext.eval.executor import EXECUTOR_DASK, EXECUTOR_PROCESS, EXECUTORS, UnitFn, run_units

if TYPE_CHECKING:
    from prooftext.eval.output import RunOutput

U = TypeVar("U")

MS_PER_S = 1000
MAX_ERROR_CHARS = 500
WORK_SUBDIR = "work"

EVAL_EXTRA_MODULES = ("bm25s", "matplotlib", "numpy")
"""What the ``eval`` extra installs: the lexical baseline and the report's figures."""
EVAL_EXTRA_INSTALL = "pip install 'prooftext[eval]'"

Progress = Callable[[int, int], None]
"""``progress(done, total)``: how a run reports progress (the CLI draws a bar)."""


@dataclass(frozen=True)
class RunOptions:
    """How to run: output and work directories, parallelism, and how much of the data."""

    out_dir: Path | None = None
    work_dir: Path | None = None
    workers: int = 1
    executor: str = EXECUTOR_PROCESS
    scheduler: str | None = None
    limit: int | None = None

    def work_root(self, scratch: str) -> Path:
        """Where work trees and indexes go: ``work_dir``, else ``OUT/work``, else ``scratch`` (a temporary
        directory the caller removes). A given ``work_dir`` is created and checked writable first, so that
        one that cannot be used (a file, a directory below a file) refuses the run before any work, with an
        ``artifact_invalid`` error naming it (field ``work``), instead of failing every task."""
        if self.work_dir is not None:
            writable_dir(self.work_dir, "work", "work directory")
            return self.work_dir
        return self.out_dir / WORK_SUBDIR if self.out_dir else Path(scratch)

    def __post_init__(self) -> None:
        for name in ("out_dir", "work_dir"):  # a directory named by text, as the run objects take their files
            value: object = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, Path(value))
        for name in ("workers", "limit"):
            number: object = getattr(self, name)
            if (number is not None or name == "workers") and (
                isinstance(number, bool) or not isinstance(number, int)
            ):
                raise RequestError(f"{name} must be an integer", field=name)
        # A slice with a negative or zero limit would silently drop tasks from the end, or all of them.
        if self.limit is not None and self.limit < 1:
            raise RangeError(f"limit must be at least 1, not {self.limit}", field="limit")
        if self.executor not in EXECUTORS:
            raise RequestError(f"executor must be one of {', '.join(EXECUTORS)}", field="executor")
        # Both checked here, before anything is declared or written, not when the first unit would run.
        if self.executor == EXECUTOR_DASK and not self.scheduler:
            raise RequestError("--executor dask needs --scheduler ADDRESS", field="scheduler")
        if self.executor != EXECUTOR_DASK and self.scheduler is not None:
            raise RequestError(
                "--scheduler needs --executor dask: without it the run is local and no scheduler is used",
                field="scheduler",
            )


def probe_writable(path: Path) -> None:
    """Create ``path`` and write a file in it (removed at once); the :class:`OSError` when it cannot be."""
    path.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path, prefix=".tmp-")
    os.close(fd)
    os.unlink(temp)


def writable_dir(path: Path, field: str, what: str) -> None:
    """:func:`probe_writable`, or an :class:`ArtifactError` naming ``what``, the path and ``field``."""
    try:
        probe_writable(path)
    except OSError as exc:
        raise ArtifactError(
            f"cannot use {path} as the {what}: {exc.strerror}", path=str(path), field=field
        ) from None


def require_eval_extra() -> None:
    """Fail with ``extra_missing`` when a module of the ``eval`` extra is not installed, before any work."""
    missing = [name for name in EVAL_EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise ExtraMissingError(
            f"the evaluation needs {', '.join(missing)}, which a core install leaves out: {EVAL_EXTRA_INSTALL}",
            install=EVAL_EXTRA_INSTALL,
            missing=missing,
        )


def collect_rows(
    fn: UnitFn[U],
    units: Sequence[U],
    total: int,
    output: RunOutput,
    options: RunOptions,
    progress: Progress | None,
) -> list[dict[str, Any]]:
    """Run every unit under ``options``; each row is written to ``output`` as it arrives and returned."""
    rows: list[dict[str, Any]] = []

    def on_row(row: dict[str, Any]) -> None:
        rows.append(row)
        output.row(row)
        if progress is not None:
            progress(len(rows), total)

    run_units(
        fn, units, on_row, workers=options.workers, executor=options.executor, scheduler=options.scheduler
    )
    return rows


def error_record(exc: BaseException) -> dict[str, Any]:
    """A failure as recorded in a row: the stable error object, or the exception type for a bug."""
    if isinstance(exc, ProoftextError):
        return exc.to_dict()
    return {"code": "internal_error", "message": f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]}


def elapsed_ms(started: float) -> float:
    """Wall milliseconds since ``started`` (a ``time.perf_counter()`` value)."""
    return round((time.perf_counter() - started) * MS_PER_S, 3)


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (refresh uses a process pool)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime
