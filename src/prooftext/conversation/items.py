"""Context items: the one value type every conversation stage reads and returns.

An item is a piece of text with a kind, a content hash (SHA-256 of its UTF-8 bytes), the thread it belongs
to and its timestamps (integer milliseconds since the epoch). Items are immutable; stages return new lists.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from prooftext.corpus.secrets import redact_text
from prooftext.errors import RequestError
from prooftext.tokens import Counter, TokenCount


class ItemKind(StrEnum):
    """What an item is; the pipeline's classify stage protects some kinds unconditionally."""

    SYSTEM = "system"
    IDENTITY = "identity"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    FILE = "file"
    RETRIEVAL = "retrieval"
    MEMORY = "memory"


HISTORY_KINDS: frozenset[ItemKind] = frozenset({ItemKind.USER, ItemKind.ASSISTANT, ItemKind.TOOL})
"""Kinds that are turns of a conversation (history), as opposed to context attached to it."""

DEFAULT_THREAD = "main"

THREAD_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A thread name: 1-64 characters, letters, digits, ``_ . -``, not starting with punctuation. Always applied
with ``fullmatch``: ``$`` would also match before a trailing line feed and admit ``"main\n"``."""


def content_hash(text: str) -> str:
    """Lowercase SHA-256 hex of the UTF-8 bytes of ``text``: the dedup key."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def check_thread(name: str) -> str:
    """Return ``name`` if it is a valid thread name; otherwise a :class:`RequestError` naming ``thread``."""
    if not isinstance(name, str) or not THREAD_NAME_PATTERN.fullmatch(name):
        raise RequestError(
            "thread names are 1-64 letters, digits, '_', '.' or '-', not starting with punctuation",
            field="thread",
        )
    if redact_text(name) != name:  # a name is stored and shown as given: it may not be a credential
        raise RequestError("a thread name may not hold a credential", field="thread")
    return name


@dataclass(frozen=True)
class ContextItem:
    """One piece of context. ``current`` marks the user turn being answered (always protected)."""

    kind: ItemKind
    text: str
    item_id: str
    content_hash: str
    thread: str = DEFAULT_THREAD
    created_ms: int = 0
    updated_ms: int = 0
    current: bool = False
    label: str = ""
    tokens: TokenCount | None = field(default=None, compare=False)
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self, *, with_text: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "content_hash": self.content_hash,
            "created_ms": self.created_ms,
            "current": self.current,
            "item_id": self.item_id,
            "kind": self.kind.value,
            "label": self.label,
            "thread": self.thread,
            "updated_ms": self.updated_ms,
        }
        if self.tokens is not None:
            out["tokens"] = self.tokens.to_dict()
        if with_text:
            out["text"] = self.text
        return out

    def with_text(self, text: str) -> ContextItem:
        return replace(self, text=text, content_hash=content_hash(text), tokens=None)


def make_item(
    kind: ItemKind | str,
    text: str,
    *,
    item_id: str | None = None,
    thread: str = DEFAULT_THREAD,
    created_ms: int = 0,
    updated_ms: int | None = None,
    current: bool = False,
    label: str = "",
    meta: dict[str, Any] | None = None,
    counter: Counter | None = None,
) -> ContextItem:
    """Build an item from ``text`` with every credential redacted, computing its content hash; ``item_id``
    defaults to ``kind:hash-prefix``."""
    try:
        k = ItemKind(kind)
    except ValueError:
        raise RequestError(
            f"unknown item kind {kind!r}; known: {', '.join(x.value for x in ItemKind)}", field="kind"
        ) from None
    if not isinstance(text, str):
        raise RequestError("item text must be a string", field="text")
    text = redact_text(text)  # no credential reaches a prompt, whatever the item came from
    digest = content_hash(text)
    return ContextItem(
        kind=k,
        text=text,
        item_id=item_id if item_id is not None else f"{k.value}:{digest[:16]}",
        content_hash=digest,
        thread=thread,
        created_ms=created_ms,
        updated_ms=created_ms if updated_ms is None else updated_ms,
        current=current,
        label=label,
        tokens=TokenCount(counter.count(text), counter.basis) if counter is not None else None,
        meta=dict(meta or {}),
    )
