"""Every store under ``ROOT/.prooftext/`` checked at once, and the memory store's export and import.

``fsck`` runs the artifact and index store checks, then checks the memory store (SQLite's integrity check
and the memory invariants, read-only). A memory store that is absent is fine; a damaged one sets status bit
8 and names its repair: export what is readable, move the file aside, import the export.
"""

from __future__ import annotations

import os
from pathlib import Path

from prooftext.artifacts.fsck import BIT_IO, BIT_MEMORY, FsckReport
from prooftext.artifacts.lifecycle import run_fsck
from prooftext.corpus.safeio import read_bounded
from prooftext.corpus.stores import MEMORY_FILE, STORE_DIR
from prooftext.errors import RequestError
from prooftext.memory.integrity import STATE_CORRUPT, STATE_NEWER, STATE_UNREADABLE, check_memory_store
from prooftext.memory.store import MemoryStore, check_root, repair_hint
from prooftext.memory.transfer import MemoryExport, MemoryImport, export_memory, import_memory
from prooftext.sqlite import read_only_use

MEMORY_PATH = f"{STORE_DIR}/{MEMORY_FILE}"
"""Where the memory store lives under a root, as fsck shows it."""
MAX_EXPORT_BYTES = 1024 * 1024 * 1024
"""The largest export ``memory_import`` reads."""
PROBLEM_KIND = "memory_store"


def _check_memory(path: Path, report: FsckReport) -> None:
    with read_only_use(path):
        check = check_memory_store(path)
    report.memory = check.state
    if check.state == STATE_NEWER:
        report.note(
            kind=PROBLEM_KIND, path=MEMORY_PATH, detail="a newer schema than this prooftext: not checked"
        )
    for problem in check.problems:
        if check.state == STATE_UNREADABLE:
            report.add(BIT_IO, kind=PROBLEM_KIND, path=MEMORY_PATH, detail=problem)
        elif check.state == STATE_CORRUPT:
            report.add(
                BIT_MEMORY, kind=PROBLEM_KIND, path=MEMORY_PATH, detail=problem, repair=repair_hint(path)
            )


def fsck(root: Path | str) -> FsckReport:
    """``prooftext fsck``: check the artifacts stored under ``root``, its index store and the sources it
    names, and its memory store (nothing is written)."""
    base = check_root(root)
    report = run_fsck(base)
    memory = base / STORE_DIR / MEMORY_FILE
    if memory.is_file():
        _check_memory(memory, report)
    return report


def memory_export(root: Path | str) -> MemoryExport:
    """Every record and message of ``root``'s memory store that can be read, read-only (nothing when there
    is no store): the first step of repairing a damaged store."""
    path = check_root(root) / STORE_DIR / MEMORY_FILE
    with read_only_use(path):
        return export_memory(path)


def memory_import(root: Path | str, export: Path | str | bytes) -> MemoryImport:
    """Write an export (a file, named by a path or a string, or its bytes) into ``root``'s memory store,
    which must be empty (a fresh store is created when there is none): all of it or, on any error,
    nothing."""
    if isinstance(export, (str, os.PathLike)):
        data = read_bounded(Path(export), MAX_EXPORT_BYTES, "memory export")
    elif isinstance(export, bytes):
        data = export
    else:
        raise RequestError("export must be a path to an export file, or its bytes", field="export")
    with MemoryStore.open(root) as store:
        return import_memory(store, data)
