"""The chat message both chat APIs accept: a role and its content."""

from __future__ import annotations

from typing import TypedDict


class ChatMessage(TypedDict):
    role: str
    content: str
