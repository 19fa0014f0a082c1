"""The index handle: ``prooftext.open(root)`` returns an :class:`Index` over ``ROOT/.prooftext/index.sqlite``."""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import prooftext.store.db as db
from prooftext.adaptive.compile import AdaptiveResult, RoundCallback, adaptive_compile
from prooftext.adaptive.ladder import DEFAULT_LADDER, Ladder
from prooftext.corpus.config import CorpusConfig, config_stamp, load_config
from prooftext.corpus.model import Exclusion, WalkResult
from prooftext.corpus.safeio import existing_directory
from prooftext.corpus.stores import INDEX_FILE
from prooftext.corpus.walk import patch, walk
from prooftext.corpus.watch import DirectoryWatcher
from prooftext.errors import (
    RangeError,
    RequestError,
    StoreError,
)
from prooftext.pack.packet import Compiler, Packet
from prooftext.pack.render import DEFAULT_FORMAT
from prooftext.pack.signing import SigningKey, checked_key
from prooftext.pack.verify import VerifyReport, read_packet_file, verify_value
from prooftext.select.policy import DEFAULT_POLICY, RankingPolicy
from prooftext.select.query import Query, validate
from prooftext.select.rank import rank
from prooftext.select.terms import analyze
from prooftext.sqlite import is_exclusive
from prooftext.store.queries import exclusions
from prooftext.store.refresh import Progress, RefreshReport, exclusions_changed, plan, read_meta, refresh

MIN_SEARCH_LIMIT = 1
"""The least ``limit`` of :meth:`Index.search`, as ``context.select`` publishes it. The 500 that method
also publishes bounds a wire response; in process, the evaluation asks for every ranked candidate."""


@dataclass(frozen=True)
class IndexStatus:
    """How far the store is from the files on disk, from stat data alone (nothing is read)."""

    changed: int
    added: int
    removed: int
    unchanged: int
    """Indexed files whose stat signature is the one the store holds."""
    indexed_files: int
    excluded: int = 0
    """Paths left out of the index, each for a reason a refresh reports: by the walk (ignore rules, links,
    special files) or at the last read (binary, size, encoding, secret, ...) and not changed since."""
    complete: bool = True
    """The last refresh finished: False before the first one, or after one that failed closed (a declared
    specification that is not indexed), when no files changed but packing would refresh and fail again."""
    indexed: bool = True
    """The root has an index store. False when it was never indexed: every file a scan would read counts as
    added, and nothing was created to find out (see :meth:`Index.status_of`)."""
    exclusions_changed: int = 0
    """Exclusions the last refresh did not record: a path the walk now leaves out (a new link, an ignore
    rule) or no longer does, or a left-out file that is gone. A refresh lists them; no node changes."""

    @property
    def fresh(self) -> bool:
        changes = (self.changed, self.added, self.removed, self.exclusions_changed)
        return self.complete and not any(changes)

    def to_dict(self) -> dict[str, int | bool]:
        return {
            "changed": self.changed,
            "added": self.added,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "indexed_files": self.indexed_files,
            "excluded": self.excluded,
            "files_changed_since_index": self.changed + self.added + self.removed,
            "exclusions_changed": self.exclusions_changed,
            "complete": self.complete,
            "fresh": self.fresh,
            "indexed": self.indexed,
        }


_LADDER_FIELDS = ("max_tokens", "max_nodes", "allow_truncated")
"""What the ladder decides in an adaptive compilation, and a query may set only to the ladder's own value (as
a saved result's ``query`` holds it) or leave at its default."""


def _ladder_base(query: Query, ladder: Ladder) -> Query:
    default = Query(query.text)
    for name in _LADDER_FIELDS:
        if getattr(query, name) not in (getattr(default, name), getattr(ladder, name)):
            raise RequestError(
                f"{name} of an adaptive compilation is the ladder's, not the query's", field=name
            )
    return query


def resolve_root(root: Path | str) -> Path:
    """An existing directory, absolute; a clear error otherwise (see :func:`existing_directory`)."""
    return existing_directory(root)


def _query_of(query: object) -> Query:
    """A query's text alone as a :class:`Query`, a :class:`Query` as it is; anything else is refused."""
    if isinstance(query, str):
        return Query(query)
    if not isinstance(query, Query):
        raise RequestError("query must be a string or a prooftext.Query", field="query")
    return query


def check_flag(name: str, value: object) -> None:
    """A flag given as a boolean, or a request error naming it (a string ``"no"`` would read as true)."""
    if not isinstance(value, bool):
        raise RequestError(f"{name} must be true or false", field=name)


def _check_config(config: object) -> None:
    if config is not None and not isinstance(config, CorpusConfig):
        raise RequestError("config must be a CorpusConfig, or None to read prooftext.toml", field="config")


def require_index(value: object) -> None:
    """An index handle, as ``prooftext.open`` returns one; anything else (a root path) is a request error
    naming ``index``, not an attribute error from deep inside."""
    if not isinstance(value, Index):
        raise RequestError(
            f"index must be a prooftext.Index (prooftext.open(root)), not {type(value).__name__}",
            field="index",
        )


def _vouched(walked: WalkResult) -> bool:
    """Whether directory events can vouch for every file ``walked`` lists: a file with another hard link
    changes without an event in its directory when it is written through that link."""
    return all(stat.links == 1 for stat in walked.stats)


class Index:
    """A repository's index: refresh it, ask its status, and (see other methods) select and pack from it."""

    def __init__(
        self, root: Path | str, config: CorpusConfig | None = None, ranking: RankingPolicy = DEFAULT_POLICY
    ) -> None:
        _check_config(config)
        self.root = resolve_root(root)
        self._given_config = config is not None
        self._config_stamp = None if config is not None else config_stamp(self.root)
        self.config = config if config is not None else load_config(self.root)
        self.ranking = ranking
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._writer = db.connect(self.root)
        self._watcher: DirectoryWatcher | None = None
        self._trusted: tuple[tuple[int, object], IndexStatus] | None = None
        self._walked: tuple[int, WalkResult] | None = None
        self._closed = False

    @property
    def ranking(self) -> RankingPolicy:
        """The ranking policy every search and pack of this handle uses (a value; assign another to switch)."""
        return self._ranking

    @ranking.setter
    def ranking(self, policy: RankingPolicy) -> None:
        if not isinstance(policy, RankingPolicy):
            raise RequestError(
                "ranking must be a prooftext.RankingPolicy (RankingPolicy.from_dict reads a dict)",
                field="ranking",
            )
        self._ranking = policy

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("this index handle is closed; open the root again")

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's read connection (WAL: readers never block the writer, nor each other); the writer's
        own when the store was opened on a full disk."""
        self._check_open()
        if is_exclusive(self._writer):
            # Opened on a full disk, the writer holds the store's lock (see prooftext.sqlite): it reads too.
            return self._writer
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = db.connect(self.root)
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    def refresh(self, progress: Progress | None = None, *, count_edges: bool = False) -> RefreshReport:
        """Incrementally bring the index up to date; one writer at a time (threads and processes).

        ``count_edges`` also counts every resolved edge (identifier references included) for the report."""
        self._check_open()
        with self._write_lock:
            self._follow_config()
            return refresh(self._writer, self.root, self.config, progress, count_edges, self._walk)

    def rebuild(self, progress: Progress | None = None, *, count_edges: bool = False) -> RefreshReport:
        """Empty the index store and index every file again: the repair for a store ``fsck`` calls corrupt
        (a table lost, a page damaged). Memory and artifacts under ``.prooftext/`` are kept. The handle's
        connections are opened anew, so no other thread may use this handle meanwhile; other processes'
        handles see the rebuilt store."""
        with self._write_lock:
            self._close_connections()
            db.reset(self.root)
            self._writer = db.connect(self.root)
            self._local = threading.local()
            self._trusted = None
            self._walked = None
        return self.refresh(progress, count_edges=count_edges)

    def _follow_config(self) -> None:
        """Reload ``prooftext.toml`` when it changed since it was read (a handle given a configuration keeps
        it): a long-lived handle must apply a new label rule as a new process would. A bad edit raises
        :class:`~prooftext.errors.ConfigError` here and on every call until it is mended."""
        if self._given_config:
            return
        stamp = config_stamp(self.root)
        if stamp == self._config_stamp:
            return
        self.config = load_config(self.root)
        self._config_stamp = stamp
        self._walked = None
        self._trusted = None

    def watch(self) -> bool:
        """Learn of changes from the kernel instead of a walk per :meth:`status` (for long-lived handles).

        Returns whether watching is active; where it is not, every status call walks, as without it."""
        if self._watcher is None:
            self._watcher = DirectoryWatcher(self.root)
        return self._watcher.active

    @property
    def freshness_check(self) -> dict[str, object]:
        """How :meth:`status` learns of changes: ``watch`` (with the watched directory count) or ``walk``."""
        watcher = self._watcher
        if watcher is not None and watcher.active:
            return {"mode": "watch", "directories": watcher.watched}
        return {"mode": "walk", "reason": watcher.reason if watcher is not None else "not watching"}

    def _walk(self) -> WalkResult:
        """A walk of the root; with :meth:`watch`, the last one while the kernel reported no event since,
        or the last one patched when the events since were edits or deletions of files it listed.

        The epoch is read before walking, so an event during the walk makes the next call walk again; a
        walk that added watches is not reused (a file made before its directory was watched is unseen), nor
        one that lists a file with several hard links (a write through another link is no event here)."""
        watcher = self._watcher
        if watcher is None or not watcher.active:
            return walk(self.root, self.config)
        epoch = watcher.epoch()
        walked = self._walked
        if walked is not None and walked[0] == epoch:
            return walked[1]
        events = None if walked is None else watcher.events_since(walked[0])
        patched = (
            None if walked is None or events is None else patch(self.root, self.config, walked[1], events)
        )
        if patched is not None:
            self._walked = (epoch, patched) if _vouched(patched) else None
            return patched
        result = walk(self.root, self.config)
        added = watcher.sync(result.directories)
        if not _vouched(result):
            self._walked = None
        elif not added and watcher.active:
            self._walked = (epoch, result)
        return result

    def status(self) -> IndexStatus:
        """Changes on disk since the last refresh, from stat data; with :meth:`watch`, the tree is walked
        only when the kernel reported an event since the last walk, and compared with the store only when
        that walk or the store's generation (a refresh by any process) moved."""
        self._follow_config()
        watcher = self._watcher
        with db.store_errors():
            epoch = (
                (watcher.epoch(), read_meta(self.conn, "generation"))
                if watcher is not None and watcher.active
                else None
            )
        trusted = self._trusted
        if epoch is not None and trusted is not None and trusted[0] == epoch:
            return trusted[1]
        with db.store_errors():
            work = plan(self.conn, self.root, self.config, self._walk(), retry_unreadable=False)
            known = {r[0] for r in self.conn.execute("SELECT path FROM files")}
            complete = read_meta(self.conn, "candidate") is not None
            exclusions = exclusions_changed(self.conn, work)
        changed = sum(1 for s in work.to_read if s.path in known or s.path in work.changed_excluded)
        status = IndexStatus(
            changed=changed,
            added=len(work.to_read) - changed,
            removed=len(work.removed),
            unchanged=len(work.unchanged),
            indexed_files=len(known),
            excluded=len(work.walk_excluded) + len(work.unchanged_excluded),
            complete=complete,
            exclusions_changed=exclusions,
        )
        walked = self._walked
        if epoch is not None and status.fresh and walked is not None and walked[0] == epoch[0]:
            self._trusted = (epoch, status)
        return status

    @classmethod
    def status_of(cls, root: Path | str, config: CorpusConfig | None = None) -> IndexStatus:
        """:meth:`status` of ``root``'s index without creating anything under ``root``: a root that has no
        index store yet reports every file a scan would read as added, ``complete`` and ``indexed`` false."""
        _check_config(config)
        base = resolve_root(root)
        if os.path.lexists(db.store_dir(base) / INDEX_FILE):
            with cls(base, config) as index:
                return index.status()
        walked = walk(base, config if config is not None else load_config(base))
        # The first refresh creates the store directory, and leaves it out (internal) as it does every time.
        store = 0 if os.path.lexists(db.store_dir(base)) else 1
        return IndexStatus(
            changed=0,
            added=len(walked.stats),
            removed=0,
            unchanged=0,
            indexed_files=0,
            excluded=len(walked.excluded) + store,
            complete=False,
            indexed=False,
        )

    def exclusions(self, reason: str | None = None) -> list[Exclusion]:
        """Every path the last refresh left out, in path order, each with its reason, its detail (for a
        credential the rules and line numbers, never the value; a path spelling one is shown redacted) and
        :attr:`~Exclusion.remedy`, what would change it; ``reason`` keeps one reason."""
        if reason is not None:
            Exclusion.known_reason(reason)
        with db.store_errors():
            return exclusions(self.conn, reason)

    def ensure_fresh(self) -> None:
        """Refresh when anything changed on disk (or nothing was ever indexed); a damaged store is a coded
        :class:`~prooftext.errors.StoreError`, as at every other read."""
        with db.store_errors():
            if read_meta(self.conn, "candidate") is None or not self.status().fresh:
                self.refresh()

    def pack(self, query: str | Query, *, format: str = DEFAULT_FORMAT, refresh: bool = True) -> Packet:
        """A packet for ``query`` (its text alone, or a :class:`Query` with its ceilings, tokenizer, required
        sources and seeds) at a fixed budget: selected, re-verified, counted exactly, digested."""
        spec = validate(_query_of(query))
        check_flag("refresh", refresh)
        with db.store_errors():
            if refresh:
                self.ensure_fresh()
            return Compiler(self.conn, self.root, spec, format, policy=self.ranking).compile()

    def adaptive_pack(
        self,
        query: str | Query,
        *,
        ladder: Ladder = DEFAULT_LADDER,
        format: str = DEFAULT_FORMAT,
        refresh: bool = True,
        on_round: RoundCallback | None = None,
    ) -> AdaptiveResult:
        """Adaptive compilation (SACP): climb ``ladder`` until the estimator passes. A :class:`Query` gives the
        text, tokenizer, required sources, seeds and clearance; the ladder sets every rung's ceilings and
        whether excerpts may be shortened, so a query that sets those itself is refused."""
        base = _query_of(query)
        if not isinstance(ladder, Ladder):
            raise RequestError("ladder must be a prooftext.Ladder", field="ladder")
        if not isinstance(query, str):
            base = _ladder_base(base, ladder)
        if on_round is not None and not callable(on_round):
            raise RequestError("on_round must be a function of one round, or None", field="on_round")
        check_flag("refresh", refresh)
        with db.store_errors():
            if refresh:
                self.ensure_fresh()
            return adaptive_compile(self.conn, self.root, base, ladder, format, on_round, self.ranking)

    def search(self, query: str, *, limit: int = 20, refresh: bool = True) -> list[dict[str, Any]]:
        """The best-ranked nodes for ``query`` with their rank components (no packing); like :meth:`pack`, it
        refreshes the index first when anything changed on disk."""
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise RequestError("limit must be an integer", field="limit")
        if limit < MIN_SEARCH_LIMIT:
            raise RangeError(f"limit must be at least {MIN_SEARCH_LIMIT}, got {limit}", field="limit")
        spec = validate(Query(text=query))
        check_flag("refresh", refresh)
        with db.store_errors():
            if refresh:
                self.ensure_fresh()
            ranked = rank(self.conn, spec, analyze(query), self.ranking)
        return [c.to_dict() for c in ranked.candidates[:limit]]

    def verify(self, packet: object, key: SigningKey | None = None) -> VerifyReport:
        """Re-check a saved packet (a value, or the path of a file ``pack --json`` saved, as
        :func:`verify` takes) against the files under this root, with the labels this handle's
        configuration gives each path, and with ``key`` its signature; a packet that is not a valid packet
        raises :class:`~prooftext.errors.ArtifactError`."""
        self._follow_config()
        return verify_value(_packet_value(packet), self.root, self.config, checked_key(key))

    def close(self) -> None:
        self._closed = True
        if self._watcher is not None:
            self._watcher.close()
        self._close_connections()

    def _close_connections(self) -> None:
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._writer.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def reset_index(root: Path | str) -> str:
    """Empty the index store of ``root`` (see :func:`prooftext.store.db.reset`), also when it is too
    damaged to open; the next refresh reads every file. :meth:`Index.rebuild` does this for an open handle."""
    return db.reset(resolve_root(root))


def open_index(
    root: Path | str = ".", config: CorpusConfig | None = None, ranking: RankingPolicy = DEFAULT_POLICY
) -> Index:
    """Open (creating if needed) the index of ``root``, ranking under ``ranking``; call
    :meth:`Index.refresh` to bring it up to date."""
    return Index(root, config, ranking)


def verify(packet: object, root: Path | str = ".", key: SigningKey | None = None) -> VerifyReport:
    """Re-check a saved packet against the files under ``root`` with the labels the root's configuration
    gives each path, without opening (or creating) the index: ``packet`` is a packet, an adaptive result
    holding one, or the path of a file saved by ``pack --json`` or ``adaptive-pack --json``. A value that is
    not a packet raises :class:`~prooftext.errors.ArtifactError`, a path that names no file
    :class:`~prooftext.errors.NotFoundError`. With ``key``, the value's signature is
    checked too: status bit 8 when it carries none, 16 when it is forged or made with another key."""
    base = resolve_root(root)
    key = checked_key(key)
    return verify_value(_packet_value(packet), base, key=key)


def _packet_value(packet: object) -> object:
    """A packet as given, or the one saved in the file a path names."""
    return read_packet_file(packet) if isinstance(packet, (str, Path)) else packet
