"""``prooftext fsck``: recompute every stored artifact, check the store, re-hash the indexed sources.

Stored artifacts are the context artifacts (JSON with a known ``artifact_type``) anywhere under
``ROOT/.prooftext/``; each is fully re-validated, including its id. The index store gets
``PRAGMA integrity_check`` (read-only) and must hold every table its schema version creates (the FTS5
index included: an integrity check passes a store whose table was dropped whole, which no search can use),
and every file the store records is re-read and re-hashed. The status is a bitmask, as ``verify``: 1 digest
or integrity mismatch, 2 missing or stale source, 4 I/O error.
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prooftext import canonical
from prooftext.artifacts.loader import parse_artifact, read_artifact_bytes
from prooftext.artifacts.models import MODELS
from prooftext.corpus.read import read_bytes_checked
from prooftext.errors import ProoftextError, SourceMissingError
from prooftext.store.db import STORE_DIR, STORE_FILE
from prooftext.store.schema import MIGRATIONS

BIT_DIGEST = 1
BIT_SOURCE = 2
BIT_IO = 4
MAX_ARTIFACT_FILES = 10_000
MAX_SOURCE_BYTES = 8 * 1024 * 1024
INTEGRITY_OK = "ok"
STORE_CORRUPT = "corrupt"
REPAIR_HINT = "repair: prooftext index --rebuild"
"""Said with every store problem: the index is derived data, and a rebuild keeps memory and artifacts."""
ARTIFACT_SUFFIX = ".json"


@dataclass
class FsckReport:
    status: int = 0
    artifacts_checked: int = 0
    sources_checked: int = 0
    store: str = "absent"
    problems: list[dict[str, Any]] = field(default_factory=list)

    def add(self, bit: int, **problem: Any) -> None:
        self.status |= bit
        self.problems.append(problem)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.status == 0,
            "status": self.status,
            "artifacts_checked": self.artifacts_checked,
            "sources_checked": self.sources_checked,
            "store": self.store,
            "problems": self.problems,
        }


def _artifact_files(directory: Path) -> list[Path]:
    found: list[Path] = []
    for base, dirs, files in os.walk(directory, followlinks=False):
        dirs.sort()
        found += [Path(base) / name for name in sorted(files) if name.endswith(ARTIFACT_SUFFIX)]
        if len(found) >= MAX_ARTIFACT_FILES:
            break
    return [p for p in found[:MAX_ARTIFACT_FILES] if not p.is_symlink()]


_ARTIFACT_OPENING = re.compile(rb'\s*\{\s*"artifact_id"\s*:\s*"[0-9A-Fa-f]{64}"\s*,\s*"artifact_type"\s*:')
"""How every stored artifact begins (canonical key order puts its id and type first)."""


REFERENCE_FIELDS = ("manifest_id", "graph_id", "query_id", "selection_id", "snapshot_id")
"""Top-level fields naming the parent artifacts an artifact was derived from."""


def _check_artifact(path: Path, root: Path, report: FsckReport) -> dict[str, Any] | None:
    """Check one file; the artifact's value when it is a stored artifact, else None."""
    shown = str(path.relative_to(root))
    try:
        data = read_artifact_bytes(path)
    except ProoftextError:
        return None  # not a readable regular file: not a stored artifact
    try:
        value = canonical.load(data)
    except ProoftextError as exc:
        # An artifact opens with its id and type; one that no longer parses (truncated) is damage, not a
        # foreign file to pass over.
        if _ARTIFACT_OPENING.match(data):
            report.artifacts_checked += 1
            report.add(BIT_DIGEST, kind="artifact", path=shown, code=exc.code, detail=exc.message[:300])
        return None
    if not isinstance(value, dict) or value.get("artifact_type") not in MODELS:
        return None
    report.artifacts_checked += 1
    try:
        parse_artifact(data)
    except ProoftextError as exc:
        report.add(BIT_DIGEST, kind="artifact", path=shown, code=exc.code, detail=exc.message[:300])
    return {**value, "_path": shown}


def _check_references(artifacts: list[dict[str, Any]], report: FsckReport) -> None:
    """Every parent an artifact names must be one of the stored artifacts: a lineage with a hole cannot be
    replayed or audited."""
    known = {a.get("artifact_id") for a in artifacts}
    for artifact in artifacts:
        for name in REFERENCE_FIELDS:
            ref = artifact.get(name)
            if isinstance(ref, str) and ref not in known:
                report.add(
                    BIT_DIGEST,
                    kind="reference",
                    path=artifact["_path"],
                    detail=f"{name} {ref} is not a stored artifact",
                )


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _missing_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables the store's schema version should hold and does not, found by applying the same
    migrations to an empty in-memory store (so the list never drifts from the schema)."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    expected = sqlite3.connect(":memory:")
    try:
        for script in MIGRATIONS[:version]:
            expected.executescript(script)
        return sorted(_tables(expected) - _tables(conn))
    finally:
        expected.close()


def _store_rows(path: Path, report: FsckReport) -> list[tuple[str, str]]:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        report.add(BIT_IO, kind="store", detail=str(exc)[:300])
        return []
    try:
        rows = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        report.store = INTEGRITY_OK if rows == [INTEGRITY_OK] else STORE_CORRUPT
        if report.store != INTEGRITY_OK:
            report.add(
                BIT_DIGEST, kind="store", detail="; ".join(str(r) for r in rows)[:300], repair=REPAIR_HINT
            )
            return []
        missing = _missing_tables(conn)
        if missing:
            report.store = STORE_CORRUPT
            detail = f"missing tables: {', '.join(missing)}"[:300]
            report.add(BIT_DIGEST, kind="store", detail=detail, repair=REPAIR_HINT)
            if "files" in missing:
                return []
        return [(p, s) for p, s in conn.execute("SELECT path, sha256 FROM files ORDER BY path")]
    except sqlite3.Error as exc:
        report.store = STORE_CORRUPT
        report.add(BIT_DIGEST, kind="store", detail=str(exc)[:300], repair=REPAIR_HINT)
        return []
    finally:
        conn.close()


def _check_source(root: Path, path: str, sha256: str, report: FsckReport) -> None:
    report.sources_checked += 1
    try:
        data = read_bytes_checked(root, path, MAX_SOURCE_BYTES)
    except SourceMissingError:
        report.add(BIT_SOURCE, kind="source_missing", path=path)
        return
    except ProoftextError as exc:
        report.add(BIT_IO, kind=exc.code, path=path)
        return
    if canonical.sha256_hex(data) != sha256:
        report.add(BIT_SOURCE, kind="source_drift", path=path)


def fsck(root: Path) -> FsckReport:
    """Check ``root``'s stored artifacts, index store and indexed sources (nothing is written)."""
    report = FsckReport()
    store_dir = root / STORE_DIR
    if store_dir.is_dir() and not store_dir.is_symlink():
        found = [_check_artifact(path, root, report) for path in _artifact_files(store_dir)]
        _check_references([a for a in found if a is not None], report)
    store = store_dir / STORE_FILE
    if store.is_file():
        for rel_path, sha256 in _store_rows(store, report):
            _check_source(root, rel_path, sha256, report)
    return report
