"""A turn's attachments and active files, read like the corpus and attached as labelled, fenced items.

A path names a file under the project root, as a portable relative path. It is read by the corpus's safe
reader (one component at a time, never through a symbolic link, a regular file only, bounded by
``scan.max_file_bytes``, strict UTF-8, the secrets policy applied) and carries the corpus's labels
(authority, sensitivity) for that path. A file that the corpus would exclude (binary, not UTF-8, too large,
holding a private key, inside ``.git/`` or ``.prooftext/``, left out by ``.gitignore``, ``.prooftext/ignore`` or
``scan.exclude``) is refused with a coded error naming the path; nothing is
read from outside the root. Rendering fences each file like any attached block
(:mod:`prooftext.conversation.render`), so its text stays data.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from prooftext.conversation.items import ContextItem, ItemKind, make_item
from prooftext.corpus.config import load_config
from prooftext.corpus.ignore import ignored_below, is_internal, root_matcher
from prooftext.corpus.model import REASON_IGNORED, REASON_INTERNAL, REMEDIES, Exclusion, FileStat
from prooftext.corpus.read import adopt
from prooftext.corpus.safeio import Refusal, display_name, open_root, read_below, source_error
from prooftext.errors import RequestError, SourceError, SourceUnreadableError

ATTACHMENT = "attachment"
ACTIVE_FILE = "active file"
MAX_TURN_FILES = 64
"""At most this many attachments and active files on one turn."""
FIELDS = {ATTACHMENT: "attachments", ACTIVE_FILE: "active_files"}
"""The request field each role's paths come in."""


@dataclass(frozen=True)
class TurnFile:
    """One file of a turn: its role (attachment or active file), its path under the root and its place in
    its request field's list."""

    role: str
    path: str
    index: int = 0


def _check_paths(paths: object, field: str) -> list[str]:
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence):
        raise RequestError(f"{field} must be a list of paths under the root", field=field)
    out: list[str] = []
    for index, path in enumerate(paths):
        if not isinstance(path, str) or not path.strip():
            raise RequestError(f"{field}[{index}] is not a non-empty string path", field=field, index=index)
        out.append(path.strip())
    return out


def turn_files(attachments: object, active_files: object) -> list[TurnFile]:
    """The turn's files in order (attachments first), each path once; a bad list is a request error."""
    files = [TurnFile(ATTACHMENT, p, i) for i, p in enumerate(_check_paths(attachments, "attachments"))]
    files += [TurnFile(ACTIVE_FILE, p, i) for i, p in enumerate(_check_paths(active_files, "active_files"))]
    if len(files) > MAX_TURN_FILES:
        raise RequestError(f"at most {MAX_TURN_FILES} attachments and active files per turn", field="files")
    first: dict[str, TurnFile] = {}
    for f in files:
        first.setdefault(f.path, f)
    return list(first.values())


def read_turn_file(root: Path, file: TurnFile, *, thread: str) -> ContextItem:
    """One file under ``root`` read through the corpus's safe reader, as a labelled ``file`` item."""
    config = load_config(root)
    rel = file.path
    if any(is_internal(part) for part in rel.split("/")):
        raise SourceUnreadableError(
            f"{rel}: not attached ({REASON_INTERNAL}: {REMEDIES[REASON_INTERNAL]})",
            path=rel,
            reason=REASON_INTERNAL,
        )
    root_fd = open_root(root)
    try:
        data = read_below(root_fd, rel, config.max_file_bytes)
        ignored = ignored_below(root_fd, rel.split("/"), root_matcher(root_fd, config.exclude))
    except Refusal as refusal:
        raise source_error(refusal, display_name(rel)) from None
    finally:
        os.close(root_fd)
    if ignored:
        raise SourceUnreadableError(
            f"{rel}: not attached (ignored: .gitignore, .prooftext/ignore or scan.exclude leaves it out of "
            "the corpus)",
            path=rel,
            reason=REASON_IGNORED,
        )
    adopted = adopt(FileStat(rel, len(data), 0, 0), data, config)
    if isinstance(adopted, Exclusion):
        raise SourceUnreadableError(
            f"{adopted.path}: not attached ({adopted.reason}: {adopted.detail})",
            path=adopted.path,
            reason=adopted.reason,
        )
    labels = adopted.labels
    label = (
        f"{file.role}: {adopted.path} · sha256 {adopted.sha256[:16]} · {adopted.line_count} lines · "
        f"authority {labels.authority} · sensitivity {labels.sensitivity}"
    )
    return make_item(
        ItemKind.FILE,
        adopted.text,
        item_id=f"file:{adopted.path}",
        thread=thread,
        label=label,
        meta={"path": adopted.path, "role": file.role, "sha256": adopted.sha256},
    )


def read_turn_files(root: Path, files: Sequence[TurnFile], *, thread: str) -> list[ContextItem]:
    """Every file of a turn as labelled items, in order; the first unreadable one refuses the turn, its
    error naming the request ``field`` and the path's ``index`` in it."""
    items: list[ContextItem] = []
    for f in files:
        try:
            items.append(read_turn_file(root, f, thread=thread))
        except SourceError as exc:
            exc.details.update(field=FIELDS.get(f.role, f.role), index=f.index)
            raise
    return items
