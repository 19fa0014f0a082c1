"""The permitted corpus of an index, seen by the full and bm25 arms, with per-content caches.

The permitted corpus is exactly what the index holds (sources its scan admitted: ignore rules, size limits,
binary, encoding and secret exclusions applied), read back from the store at its current state. Terms and
whole-file block costs are cached by content digest, so moving the tree to the next commit only costs the
files that changed; entries of contents no longer present are dropped after each snapshot.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from prooftext.eval.lexical import Bm25Ranker, file_block, file_prompt, path_terms, terms
from prooftext.tokens import Counter


@dataclass
class Snapshot:
    """The permitted files of one indexed commit: paths, digests and kinds in path order."""

    paths: list[str]
    digests: list[str]
    kinds: list[str]
    ranker: Bm25Ranker | None = None
    members: list[int] = field(default_factory=list)
    """Indices (into ``paths``) of the documents the ranker scores."""

    def rank(self, query: str) -> list[int]:
        """Indices into ``paths`` of the ranked documents with a positive score, best first."""
        if self.ranker is None:
            return []
        names = [self.paths[i] for i in self.members]
        return [self.members[j] for j in self.ranker.rank(query, names)]


@dataclass
class CorpusCache:
    """Per-content terms and block costs, shared by the commits one work tree visits."""

    counter: Counter
    k1: float
    b: float
    kinds: tuple[str, ...]
    """Source kinds the bm25 ranker indexes (the store's ``files.kind``); empty means every kind."""
    _terms: dict[str, list[str]] = field(default_factory=dict)
    _costs: dict[tuple[str, str], int] = field(default_factory=dict)
    _snapshot_key: tuple[str, ...] | None = None
    _snapshot: Snapshot | None = None

    def snapshot(self, conn: sqlite3.Connection) -> Snapshot:
        rows = conn.execute("SELECT path, sha256, kind FROM files ORDER BY path").fetchall()
        paths = [str(r[0]) for r in rows]
        digests = [str(r[1]) for r in rows]
        key = tuple(f"{p}\0{d}" for p, d in zip(paths, digests, strict=True))
        if self._snapshot is None or key != self._snapshot_key:
            self._snapshot = Snapshot(paths, digests, [str(r[2]) for r in rows])
            self._snapshot_key = key
            self._prune(set(zip(paths, digests, strict=True)))
        return self._snapshot

    def prepare_ranker(self, conn: sqlite3.Connection, snap: Snapshot) -> None:
        """Build the bm25 index of ``snap`` once (per commit, like the prooftext index refresh)."""
        if snap.ranker is None:
            snap.members = [i for i, k in enumerate(snap.kinds) if not self.kinds or k in self.kinds]
            snap.ranker = self._build_ranker(conn, snap)

    def prepare_costs(self, conn: sqlite3.Connection, snap: Snapshot) -> None:
        """Count every file block of ``snap`` once (cached by content, so per commit only changed files)."""
        for path, digest in zip(snap.paths, snap.digests, strict=True):
            self.block_cost(conn, path, digest)

    def _prune(self, live: set[tuple[str, str]]) -> None:
        digests = {d for _, d in live}
        self._terms = {d: t for d, t in self._terms.items() if d in digests}
        self._costs = {k: c for k, c in self._costs.items() if k in live}

    def _build_ranker(self, conn: sqlite3.Connection, snap: Snapshot) -> Bm25Ranker:
        documents: list[list[str]] = []
        for i in snap.members:
            path, digest = snap.paths[i], snap.digests[i]
            cached = self._terms.get(digest)
            if cached is None:
                cached = terms(text_of(conn, path))
                self._terms[digest] = cached
            documents.append(path_terms(path) + cached)
        return Bm25Ranker(documents, self.k1, self.b)

    def block_cost(self, conn: sqlite3.Connection, path: str, digest: str) -> int:
        """Exact count of the file's whole-file block alone."""
        key = (path, digest)
        cost = self._costs.get(key)
        if cost is None:
            cost = self.counter.count(file_block(path, text_of(conn, path)))
            self._costs[key] = cost
        return cost

    def full_tokens(self, conn: sqlite3.Connection, snap: Snapshot, query: str) -> int:
        """The whole permitted corpus as one whole-file prompt: header plus every block's exact count."""
        header = self.counter.count(file_prompt(query, []))
        return header + sum(
            self.block_cost(conn, p, d) for p, d in zip(snap.paths, snap.digests, strict=True)
        )


def text_of(conn: sqlite3.Connection, path: str) -> str:
    row = conn.execute("SELECT text FROM files WHERE path = ?", (path,)).fetchone()
    return "" if row is None else str(row[0])
