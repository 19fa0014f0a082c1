"""The server's limits: request size, batch size, deadline, concurrency, freshness, and the token variable.

Kept apart from the rest of the server so the command line can show the defaults without importing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prooftext.errors import RangeError

TOKEN_ENV = "PROOFTEXT_TOKEN"
"""Environment variable holding the bearer token (instead of ``--token``)."""

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
"""Largest request accepted (one HTTP body or one stdio line); larger ones are refused unread."""
MAX_BODY_BYTES = 1024 * 1024 * 1024
"""The largest request size limit accepted (1 GiB): a request is held in memory whole, and a larger limit
(a typo such as 10**30) would overflow the reads it bounds."""
DEFAULT_MAX_BATCH = 64
"""Most calls accepted in one JSON-RPC batch."""
DEFAULT_TIMEOUT_S = 60.0
"""Per-request deadline; the caller gets ``limit_exceeded`` when it passes (the work is not interrupted)."""
MIN_TIMEOUT_S = 0.001
"""The shortest deadline accepted: a millisecond, the unit ``server.info`` and the ``limit_exceeded`` error
state it in (a shorter one would be reported as 0 ms)."""
MAX_TIMEOUT_S = 86_400.0
"""The longest deadline accepted: a day. A larger one (or infinity) is never a meaningful deadline, and it
must stay a finite whole number of milliseconds for ``server.info`` and the ``limit_exceeded`` error."""
DEFAULT_MAX_WORKERS = 8
"""Requests executed at once (reads run concurrently; index refreshes are serialized by the index)."""
DEFAULT_PROCESSES = 1
"""Worker processes executing requests (1: threads of the server process). Ranking and packing hold the
interpreter lock, so on a machine with several cores more processes serve more requests at once; each
process keeps its own index handle, watcher and caches, and refreshes stay serialized by the store's lock."""
MAX_PROCESSES = 64
"""The most worker processes a server starts: each holds its own index handle, watcher and caches, so more
than a machine has cores only costs memory (a typo such as 100000 would fork that many)."""
MAX_WORKERS = 1024
"""The most requests a server executes at once (each one a thread)."""
DEFAULT_MAX_PENDING = 64
"""Requests admitted at once (running plus queued); beyond it a request is refused as busy."""
DEFAULT_FRESH_MS = 0
"""How old a freshness check (index.status, or the one before a context request) a request may reuse
(0: one that started after the request arrived).

Packets stay verified either way (every excerpt's source is re-hashed before it is served); a positive
value only delays when a just-edited file is re-indexed, in exchange for fewer tree walks under load."""
MAX_FRESH_MS = 86_400_000
"""The oldest freshness check a request may be allowed to reuse: a day, as the longest deadline."""
DEFAULT_WATCH = True
"""Learn of changes on disk from kernel events (inotify) rather than a tree walk per check, where available.
Events are queued before the modifying call returns, so no change that precedes a request is missed."""


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_batch: int = DEFAULT_MAX_BATCH
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_workers: int = DEFAULT_MAX_WORKERS
    max_pending: int = DEFAULT_MAX_PENDING
    fresh_ms: int = DEFAULT_FRESH_MS
    watch: bool = DEFAULT_WATCH
    processes: int = DEFAULT_PROCESSES

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_batch", "max_workers", "max_pending", "processes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise RangeError(f"{name} must be a positive integer", field=name)
        for name, most in (
            ("processes", MAX_PROCESSES),
            ("max_workers", MAX_WORKERS),
            ("max_body_bytes", MAX_BODY_BYTES),
        ):
            if getattr(self, name) > most:
                raise RangeError(f"{name} must be at most {most}", field=name)
        if isinstance(self.fresh_ms, bool) or not isinstance(self.fresh_ms, int) or self.fresh_ms < 0:
            raise RangeError("fresh_ms must be a non-negative integer", field="fresh_ms")
        if self.fresh_ms > MAX_FRESH_MS:
            raise RangeError(f"fresh_ms must be at most {MAX_FRESH_MS} (a day)", field="fresh_ms")
        # Written as one negated range so that NaN, which fails every comparison, is refused too.
        if not MIN_TIMEOUT_S <= self.timeout_s <= MAX_TIMEOUT_S:
            raise RangeError(
                f"the request timeout must be at least {MIN_TIMEOUT_S:g} and at most {MAX_TIMEOUT_S:g} seconds",
                field="timeout",
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "max_batch": self.max_batch,
            "fresh_ms": self.fresh_ms,
            "max_body_bytes": self.max_body_bytes,
            "max_pending": self.max_pending,
            "max_workers": self.max_workers,
            "processes": self.processes,
            "timeout_ms": int(self.timeout_s * 1000),
            "watch": self.watch,
        }
