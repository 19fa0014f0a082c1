"""What every method handler sees: the one root a server process serves, its open index, and its limits."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from prooftext import Index, IndexStatus, SigningKey, __version__, sign
from prooftext import open as open_index
from prooftext.errors import ProoftextError
from prooftext.server.limits import Limits

log = logging.getLogger("prooftext.server")

T = TypeVar("T")
Progress = Callable[[int, int], None]
"""``progress(done, total)``: files read so far of those a refresh reads."""

__all__ = ["Coalesced", "Limits", "ServerContext"]


class Coalesced(Generic[T]):
    """Run ``fn`` for concurrent callers: each caller gets the outcome of a run that started no earlier than
    ``max_age_s`` before it arrived (0: after it arrived), and callers waiting at the same time share a run.

    With ``max_age_s = 0`` every caller sees a result at least as fresh as if it had called ``fn`` itself;
    under load the work is done once per round instead of once per caller.
    """

    def __init__(self, fn: Callable[[], T], max_age_s: float = 0.0) -> None:
        self._fn = fn
        self._max_age_s = max_age_s
        self._cond = threading.Condition()
        self._running = False
        self._done_started_at: float | None = None
        self._outcome: tuple[T | None, BaseException | None] = (None, None)

    def __call__(self) -> T:
        oldest = time.monotonic() - self._max_age_s
        with self._cond:
            while self._done_started_at is None or self._done_started_at < oldest:
                if not self._running:
                    self._running = True
                    return self._run()
                self._cond.wait()
            value, error = self._outcome
        return self._unwrap(value, error)

    def wait_idle(self) -> None:
        """Return once no run is under way (a run started meanwhile is waited for too)."""
        with self._cond:
            while self._running:
                self._cond.wait()

    def _run(self) -> T:
        started_at = time.monotonic()
        self._cond.release()
        try:
            value: T | None = self._fn()
            error: BaseException | None = None
        except BaseException as exc:
            value, error = None, exc
        finally:
            self._cond.acquire()
        self._running = False
        self._done_started_at = started_at
        self._outcome = (value, error)
        self._cond.notify_all()
        return self._unwrap(value, error)

    @staticmethod
    def _unwrap(value: T | None, error: BaseException | None) -> T:
        if error is not None:
            raise error
        return value  # type: ignore[return-value]


@dataclass
class ServerContext:
    """One root, its index (shared by all requests), limits, and the interface name used as provenance."""

    root: Path
    index: Index
    limits: Limits = field(default_factory=Limits)
    interface: str = "rpc"
    version: str = __version__
    signing_key: SigningKey | None = None
    """The server's key: packets and adaptive results it returns are signed, and ``context.verify`` checks
    signatures with it (see ``prooftext serve --sign-key``)."""
    worker: bool = False
    """Whether this context answers requests in a worker process of a pool (``Limits.processes`` above 1)."""

    def __post_init__(self) -> None:
        if self.limits.watch and (self.limits.processes == 1 or self.worker):
            # A pool's own process answers no request: only its workers drain events; its own would pile up.
            self.index.watch()
        max_age_s = self.limits.fresh_ms / 1000
        self.closing = threading.Event()
        """Set by :meth:`close`: a refresh under way stops after the batch of files it has committed."""
        self._warm: threading.Thread | None = None
        self._listeners: list[Progress] = []
        self._listeners_lock = threading.Lock()
        self.ensure_fresh: Coalesced[None] = Coalesced(self._refresh_when_stale, max_age_s)
        self.status: Coalesced[IndexStatus] = Coalesced(self.index.status, max_age_s)

    @classmethod
    def open(
        cls,
        root: Path | str,
        limits: Limits | None = None,
        interface: str = "rpc",
        signing_key: SigningKey | None = None,
        *,
        worker: bool = False,
    ) -> ServerContext:
        index = open_index(root)
        return cls(index.root, index, limits or Limits(), interface, signing_key=signing_key, worker=worker)

    def _refresh_when_stale(self) -> None:
        """Refresh when anything changed on disk (or nothing was ever indexed), telling every listener of
        :meth:`progress_to` how far it got."""
        if not self.index.status().fresh:
            self.index.refresh(self._progress)

    def _progress(self, done: int, total: int) -> None:
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(done, total)
        if self.closing.is_set():  # every batch so far is committed: the store is as a killed run leaves it
            raise _Closed

    def warm_up(self) -> None:
        """Bring the index up to date in the background, so that the first request does not pay for it.
        A failure is logged in one line; the first request that needs the index reports it."""
        self._warm = threading.Thread(target=self._warm_run, name="prooftext-warm-up", daemon=True)
        self._warm.start()

    def _warm_run(self) -> None:
        try:
            self.ensure_fresh()
        except _Closed:
            return
        except ProoftextError as exc:
            log.warning("initial index refresh failed: %s", exc.message)
        except Exception as exc:
            log.warning("initial index refresh failed: %s", exc)

    @property
    def warming(self) -> bool:
        """Whether the background refresh of :meth:`warm_up` still runs."""
        return self._warm is not None and self._warm.is_alive()

    @contextmanager
    def progress_to(self, listener: Progress) -> Iterator[None]:
        """While inside, ``listener`` hears the progress of every refresh this context runs (a refresh
        already under way included, from its next file on)."""
        with self._listeners_lock:
            self._listeners.append(listener)
        try:
            yield
        finally:
            with self._listeners_lock:
                self._listeners.remove(listener)

    def signed(self, result: dict[str, Any]) -> dict[str, Any]:
        """``result`` signed with the server's key, or as it is when the server has none."""
        return result if self.signing_key is None else sign(result, self.signing_key)

    def close(self) -> None:
        """Stop a refresh under way (after its current batch) and wait for it, then close the index. A
        thread left refreshing would be torn down at interpreter exit in the middle of native code
        (hashing, parsing, a pool of readers): a crash instead of an exit."""
        self.closing.set()
        if self._warm is not None:
            self._warm.join()
        self.ensure_fresh.wait_idle()
        self.index.close()


class _Closed(Exception):
    """Ends a refresh whose server is closing (raised from its progress report)."""
