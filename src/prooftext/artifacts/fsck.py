"""``prooftext fsck``: recompute every stored artifact, check the store, re-hash every source they name.

Stored artifacts are the ``.json`` files anywhere under ``ROOT/.prooftext/`` whose head names an
``artifact_id`` or ``artifact_type``; each is fully re-validated, including its id, so an artifact that is
damaged in any way (an unknown type, a BOM, a wrapper, a truncation, an oversized file) is a problem, as is
a symlink or a non-regular file in an artifact's place. Other ``.json`` files (claims files, say), symlinked
directories and the files past the first :data:`MAX_ARTIFACT_FILES` are listed in ``notices``: passed over,
never silently. Every repository source a sound artifact names is re-hashed against its locator, and the
lines each node, extract or compacted digest claims against its text digest
(:mod:`prooftext.artifacts.recheck`): a missing or changed source is bit 2 (so is one now linked or not a
regular file), text its unchanged source does not hold is a damaged artifact (bit 1); each problem names
the artifact. A selection, snapshot, compaction or quality report whose parents are stored must be what
they derive (:mod:`prooftext.artifacts.lineage`; bit 1 otherwise). The index store gets ``PRAGMA
integrity_check`` (read-only) and must hold every table its schema version creates (the FTS5 index included: an integrity check passes a store whose table was dropped
whole, which no search can use), and every file the store records is re-read and re-hashed (one grown
past :data:`MAX_SOURCE_BYTES` is ``limit_exceeded``, naming its size and the limit, bit 2); a store that
cannot be opened or read (a read-only file system, a permission, a failing disk) is an I/O error, not
damage. The status is
a bitmask, as ``verify``: 1 digest or integrity mismatch, 2 missing or stale source, 4 I/O error, and 8 a
damaged memory store (found by :func:`prooftext.api.stores.fsck`, which adds the memory store's check to this
one: memory cannot be rebuilt from the files, so its repair is its own).
"""

from __future__ import annotations

import errno
import json
import os
import re
import sqlite3
import stat as stat_module
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import prooftext.canonical as canonical
from prooftext.artifacts.fields import Envelope
from prooftext.artifacts.limits import MAX_ARTIFACT_BYTES
from prooftext.artifacts.lineage import lineage_problem
from prooftext.artifacts.loader import parse_artifact
from prooftext.artifacts.observe import over_limit
from prooftext.artifacts.recheck import ALTERED, STALE, UNREADABLE, Recheck, SourceCache, recheck_sources
from prooftext.corpus.model import REASON_SIZE as READ_REASON_SIZE
from prooftext.corpus.read import read_bytes_checked
from prooftext.corpus.safeio import display_name
from prooftext.corpus.stores import INDEX_FILE, STORE_DIR
from prooftext.errors import ProoftextError, SourceMissingError, SourceUnreadableError
from prooftext.sqlite import is_damage, is_unopenable, open_read_only, read_only_use, why_unopenable
from prooftext.store.schema import MIGRATIONS

BIT_DIGEST = 1
BIT_SOURCE = 2
BIT_IO = 4
BIT_MEMORY = 8
"""The memory store is damaged: repaired by export, move aside and import, not by an index rebuild."""
MAX_ARTIFACT_FILES = 10_000
MAX_SOURCE_BYTES = 8 * 1024 * 1024
INTEGRITY_OK = "ok"
STORE_CORRUPT = "corrupt"
STORE_UNREADABLE = "unreadable"
"""The index store could not be opened or read (a read-only file system, a permission, a failing disk): an
I/O problem (bit 4), not damage, and no rebuild repairs it."""
STORE_PATH = f"{STORE_DIR}/{INDEX_FILE}"
"""Where the index store lives under a root, as fsck shows it."""
REPAIR_HINT = "prooftext index --rebuild"
"""Said with every store problem (the ``repair`` of its finding, the command alone): the index is derived
data, and a rebuild keeps memory and artifacts."""
ARTIFACT_SUFFIX = ".json"
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
REASON_SYMLINK = "symlink"
REASON_NOT_REGULAR = "not_regular"
REASON_UNREADABLE = "unreadable"
REASON_SIZE = "size"
SYMLINK_DETAIL = "a symlink where a stored artifact belongs (artifacts are regular files; not followed)"
NOT_REGULAR_DETAIL = "not a regular file"
NOTICE_NOT_ARTIFACT = "not_an_artifact"
NOTICE_CAP = "artifact_cap"
NOTICE_LINKED_DIR = "symlinked_directory"
NOTICE_OWNER_SOURCES = "owner_sources"


@dataclass
class FsckReport:
    status: int = 0
    artifacts_checked: int = 0
    sources_checked: int = 0
    """Files the index store records, re-read and re-hashed."""
    artifact_sources_checked: int = 0
    """Repository sources named by stored artifacts, re-hashed (once per artifact that names one)."""
    store: str = "absent"
    memory: str = "absent"
    """The memory store: absent, ok, corrupt, unreadable, or newer (a schema this version does not check)."""
    problems: list[dict[str, Any]] = field(default_factory=list)
    notices: list[dict[str, Any]] = field(default_factory=list)
    """What fsck passed over without failing, each with its reason (nothing is skipped silently)."""

    def add(self, bit: int, **problem: Any) -> None:
        self.status |= bit
        self.problems.append(problem)

    def note(self, **notice: Any) -> None:
        self.notices.append(notice)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.status == 0, **asdict(self)}


@dataclass
class _Found:
    files: list[Path] = field(default_factory=list)
    linked_dirs: list[Path] = field(default_factory=list)
    capped: bool = False


def _artifact_files(directory: Path) -> _Found:
    """Every ``.json`` entry below ``directory`` (symlinks included: they are reported, not followed), up
    to :data:`MAX_ARTIFACT_FILES`; ``capped`` says that more were left unchecked."""
    found = _Found()
    for base, dirs, files in os.walk(directory, followlinks=False):
        dirs.sort()
        found.linked_dirs += [Path(base) / name for name in dirs if (Path(base) / name).is_symlink()]
        found.files += [Path(base) / name for name in sorted(files) if name.endswith(ARTIFACT_SUFFIX)]
        if len(found.files) > MAX_ARTIFACT_FILES:
            found.capped = True
            found.files = found.files[:MAX_ARTIFACT_FILES]
            break
    return found


_ARTIFACT_KEY = re.compile(rb'"artifact_(?:id|type)"\s*:')
"""An artifact's own keys (canonical key order puts them first). Inside a JSON string the quotes would be
escaped, so quoted text cannot match."""
PROBE_BYTES = 4096
"""How much of an oversized file's head is searched for :data:`_ARTIFACT_KEY`."""


def _plain_json(data: bytes) -> bool:
    """A well-formed JSON document (by the lenient standard parser: this only decides whether a file with
    no artifact key is some other JSON file, such as a claims file, rather than damage)."""
    try:
        json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return True


REFERENCE_FIELDS = ("manifest_id", "graph_id", "query_id", "selection_id", "snapshot_id")
"""Top-level fields naming the parent artifacts an artifact was derived from."""


def _read_stored(path: Path, shown: str, report: FsckReport) -> bytes | None:
    """The bytes of a stored file, or None after reporting why it cannot be a stored artifact: a symlink
    or a non-regular file (bit 1: an artifact is written as a regular file), an unreadable one (bit 4), an
    oversized one whose head is an artifact's (bit 1; otherwise a notice)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW on a symlink: never followed out of the store
            report.add(BIT_DIGEST, kind="artifact", path=shown, code=REASON_SYMLINK, detail=SYMLINK_DETAIL)
        else:
            report.add(BIT_IO, kind="artifact", path=shown, code=REASON_UNREADABLE, detail=str(exc.strerror))
        return None
    try:
        info = os.fstat(fd)
        if not stat_module.S_ISREG(info.st_mode):
            report.add(
                BIT_DIGEST, kind="artifact", path=shown, code=REASON_NOT_REGULAR, detail=NOT_REGULAR_DETAIL
            )
            return None
        if info.st_size > MAX_ARTIFACT_BYTES:
            if _ARTIFACT_KEY.search(os.read(fd, PROBE_BYTES)):
                detail = f"{info.st_size} bytes, more than any artifact ({MAX_ARTIFACT_BYTES})"
                report.add(BIT_DIGEST, kind="artifact", path=shown, code=REASON_SIZE, detail=detail)
            else:
                report.note(kind=NOTICE_NOT_ARTIFACT, path=shown, detail="larger than any artifact")
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(MAX_ARTIFACT_BYTES + 1)
    except OSError as exc:
        report.add(BIT_IO, kind="artifact", path=shown, code=REASON_UNREADABLE, detail=str(exc.strerror))
        return None
    finally:
        os.close(fd)


_FINDING_BITS = {STALE: BIT_SOURCE, ALTERED: BIT_DIGEST, UNREADABLE: BIT_IO}


def _check_named_sources(result: Recheck, shown: str, report: FsckReport) -> None:
    """Report what re-hashing a sound artifact's sources found: a missing or changed source is bit 2, text
    its unchanged source does not hold is a damaged artifact (bit 1), an unreadable source bit 4."""
    report.artifact_sources_checked += result.checked
    for finding in result.findings:
        error = finding.error
        bit = _FINDING_BITS[finding.cause]
        detail = f"named by {shown}: {finding.detail}"[:300]
        report.add(bit, kind=error.code, path=finding.path, artifact=shown, detail=detail)
    if result.skipped:
        detail = f"{len(result.skipped)} owner sources not re-hashed (fsck reads the repository root only)"
        report.note(kind=NOTICE_OWNER_SOURCES, path=shown, detail=detail)


@dataclass
class _Stored:
    """What the checks of the stored artifacts share: the source cache and every sound model by path."""

    cache: SourceCache = field(default_factory=dict)
    models: dict[str, Envelope] = field(default_factory=dict)


def _check_artifact(path: Path, root: Path, report: FsckReport, stored: _Stored) -> dict[str, Any] | None:
    """Check one file; the artifact's value (for the reference check) when it parses as a JSON object.

    A file that names an artifact key anywhere, or that is not even well-formed JSON (a truncation, a BOM),
    is checked as an artifact, so damage of any kind is a problem; only well-formed JSON without an
    artifact key is passed over, with a notice."""
    shown = display_name(str(path.relative_to(root)))
    data = _read_stored(path, shown, report)
    if data is None:
        return None
    if not _ARTIFACT_KEY.search(data) and _plain_json(data):
        report.note(kind=NOTICE_NOT_ARTIFACT, path=shown, detail="JSON without artifact_id or artifact_type")
        return None
    report.artifacts_checked += 1
    try:
        model = parse_artifact(data)
    except ProoftextError as exc:
        report.add(BIT_DIGEST, kind="artifact", path=shown, code=exc.code, detail=exc.message[:300])
    else:
        stored.models[shown] = model
        _check_named_sources(recheck_sources(model, root, stored.cache), shown, report)
    try:
        value = canonical.load(data)
    except ProoftextError:
        return None  # already reported by parse_artifact
    return {**value, "_path": shown} if isinstance(value, dict) else None


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


def _check_lineage(models: dict[str, Envelope], report: FsckReport) -> None:
    """Every sound derived artifact whose parents are stored must be what they derive (bit 1 otherwise)."""
    by_id = {model.artifact_id: model for model in models.values()}
    for shown, model in models.items():
        problem = lineage_problem(model, by_id)
        if problem is not None:
            report.add(BIT_DIGEST, kind="lineage", path=shown, detail=problem[:300])


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


def _corrupt(report: FsckReport, detail: str) -> None:
    report.store = STORE_CORRUPT
    report.add(BIT_DIGEST, kind="store", path=STORE_PATH, detail=detail[:300], repair=REPAIR_HINT)


def _store_failed(exc: sqlite3.Error, path: Path, report: FsckReport) -> None:
    """Report a SQLite error met while checking the store: damage (bit 1, repaired by a rebuild), or a store
    that could not be opened or read (bit 4, with the reason when the file system gives one)."""
    if is_damage(exc):
        _corrupt(report, str(exc))
        return
    why = why_unopenable(path) if is_unopenable(exc) else None
    report.store = STORE_UNREADABLE
    report.add(BIT_IO, kind="store", path=STORE_PATH, detail=(f"{exc} ({why})" if why else str(exc))[:300])


def _store_rows(path: Path, report: FsckReport) -> list[tuple[str, str]]:
    with read_only_use(path):
        return _read_store_rows(path, report)


def _read_store_rows(path: Path, report: FsckReport) -> list[tuple[str, str]]:
    try:
        conn = open_read_only(path)
    except sqlite3.Error as exc:
        _store_failed(exc, path, report)
        return []
    try:
        rows = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        report.store = INTEGRITY_OK if rows == [INTEGRITY_OK] else STORE_CORRUPT
        if report.store != INTEGRITY_OK:
            _corrupt(report, "; ".join(str(r) for r in rows))
            return []
        missing = _missing_tables(conn)
        if missing:
            _corrupt(report, f"missing tables: {', '.join(missing)}")
            if "files" in missing:
                return []
        return [(p, s) for p, s in conn.execute("SELECT path, sha256 FROM files ORDER BY path")]
    except sqlite3.Error as exc:
        _store_failed(exc, path, report)
        return []
    finally:
        conn.close()


def _grown_past_limit(root: Path, path: str, report: FsckReport) -> None:
    """Report an indexed file the read refused as larger than :data:`MAX_SOURCE_BYTES`: past a limit
    (``limit_exceeded``, naming its size and the limit, as the strict read says), and never what was
    recorded, so a stale source (bit 2)."""
    try:
        size = str((root / path).lstat().st_size)
    except OSError:  # gone since the read: it was past the limit then
        size = f"more than {MAX_SOURCE_BYTES}"
    error = over_limit(path, size, MAX_SOURCE_BYTES)
    report.add(BIT_SOURCE, kind=error.code, path=path, detail=error.message)


def _check_source(root: Path, path: str, sha256: str, report: FsckReport) -> None:
    report.sources_checked += 1
    try:
        data = read_bytes_checked(root, path, MAX_SOURCE_BYTES)
    except SourceMissingError:
        report.add(BIT_SOURCE, kind="source_missing", path=path)
        return
    except SourceUnreadableError as exc:
        if exc.details.get("reason") == READ_REASON_SIZE:
            _grown_past_limit(root, path, report)
        else:
            report.add(BIT_IO, kind=exc.code, path=path)
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
    if store_dir.is_symlink():
        report.note(kind=NOTICE_LINKED_DIR, path=STORE_DIR, detail="not followed: no stored artifact checked")
    elif store_dir.is_dir():
        found = _artifact_files(store_dir)
        stored = _Stored()
        checked = [_check_artifact(path, root, report, stored) for path in found.files]
        _check_references([a for a in checked if a is not None], report)
        _check_lineage(stored.models, report)
        for linked in found.linked_dirs:
            report.note(
                kind=NOTICE_LINKED_DIR,
                path=display_name(str(linked.relative_to(root))),
                detail="not followed",
            )
        if found.capped:
            report.note(
                kind=NOTICE_CAP,
                detail=f"stopped after {MAX_ARTIFACT_FILES} .json files; the rest were not checked",
            )
    store = store_dir / INDEX_FILE
    if store.is_file():
        for rel_path, sha256 in _store_rows(store, report):
            _check_source(root, rel_path, sha256, report)
    return report
