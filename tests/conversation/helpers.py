"""Small builders shared by the conversation tests."""

from __future__ import annotations

from collections.abc import Sequence

from prooftext.conversation.items import DEFAULT_THREAD, ContextItem, ItemKind, make_item


def alternating(texts: Sequence[str], ids: str, *, thread: str = DEFAULT_THREAD) -> list[ContextItem]:
    """One item per text, user and assistant in turn, created in order; ``ids`` formats each index into its
    item id (``"msg:{}"``)."""
    return [
        make_item(
            ItemKind.USER if i % 2 == 0 else ItemKind.ASSISTANT,
            text,
            item_id=ids.format(i),
            thread=thread,
            created_ms=i,
        )
        for i, text in enumerate(texts)
    ]


def turn(i: int, text: str, *, thread: str = "main", role: ItemKind = ItemKind.USER) -> ContextItem:
    return make_item(role, text, item_id=f"m{i}", thread=thread, created_ms=i)


def conversation(n: int, *, thread: str = "main") -> list[ContextItem]:
    """``n`` alternating user/assistant turns with varied vocabulary."""
    topics = ["sqlite wal journal", "tokenizer basis counts", "bm25 ranking terms", "thread history cap"]
    texts = [f"turn {i} talks about {topics[i % len(topics)]} and more words here" for i in range(n)]
    return alternating(texts, "m{}", thread=thread)
