"""Small builders shared by the conversation tests."""

from __future__ import annotations

from prooftext.conversation.items import ContextItem, ItemKind, make_item


def turn(i: int, text: str, *, thread: str = "main", role: ItemKind = ItemKind.USER) -> ContextItem:
    return make_item(role, text, item_id=f"m{i}", thread=thread, created_ms=i)


def conversation(n: int, *, thread: str = "main") -> list[ContextItem]:
    """``n`` alternating user/assistant turns with varied vocabulary."""
    topics = ["sqlite wal journal", "tokenizer basis counts", "bm25 ranking terms", "thread history cap"]
    out: list[ContextItem] = []
    for i in range(n):
        role = ItemKind.USER if i % 2 == 0 else ItemKind.ASSISTANT
        out.append(
            turn(
                i,
                f"turn {i} talks about {topics[i % len(topics)]} and more words here",
                thread=thread,
                role=role,
            )
        )
    return out
