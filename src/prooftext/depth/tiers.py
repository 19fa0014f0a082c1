"""Depth tiers: a deterministic, per-turn classifier (no model call) into surface, standard or deep.

Surface is a strict whole-message allowlist: the entire message, case-folded and trimmed, must be one of
the listed acknowledgements, optionally followed by a single ``.`` or ``!``. Anything else is at least
standard: commands, memory references, multi-part questions, punctuation beyond a single ack, and every
message with an attachment or active files. Deep fires on explicit phrases, attachments or active files,
and long or multi-part prompts. Every rule and constant is recorded in the decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from prooftext.errors import EmptyQueryError, RangeError, RequestError
from prooftext.text import CHAT_STOPWORDS_V1

MARKER = "v-adaptive-context-depth-v0"
"""The interface marker of the depth-tier design this module implements."""


class Tier(StrEnum):
    SURFACE = "surface"
    STANDARD = "standard"
    DEEP = "deep"


SURFACE_ALLOWLIST: tuple[str, ...] = (
    "hi",
    "hello",
    "hey",
    "good morning",
    "thanks",
    "ok",
    "test",
    "yes",
    "no",
)
"""Whole messages that may be surface (yes/no only when the entire message is that token)."""

SURFACE_TRAILING_PUNCTUATION = ".!"
"""At most one of these may follow an allowlisted ack (``Hi!``, ``Thanks.``); anything more is not surface."""

DEEP_PHRASES: tuple[str, ...] = (
    "think deeply",
    "deep dive",
    "analyze",
    "analyse",
    "compare",
    "plan",
    "in detail",
)
"""Explicit deep triggers, matched as whole words, ignoring case (``analyse``: British spelling)."""

DEEP_MIN_WORDS = 60
"""A message of at least this many words is a long prompt: deep."""

MULTI_PART_MIN_QUESTIONS = 2
"""At least this many question marks make a multi-part question: deep."""

MULTI_PART_MIN_LIST_ITEMS = 2
"""At least this many numbered or bulleted lines make a multi-part prompt: deep."""

MEMORY_REFERENCE_PHRASES: tuple[str, ...] = (
    "remember",
    "recall",
    "last time",
    "you said",
    "we said",
    "we discussed",
    "we decided",
    "earlier",
    "previously",
    "as before",
    "memory",
    "forget",
)
"""Phrases that refer to memory: never surface, and a recall signal for a standard turn."""

RELEVANCE_MIN_CONTENT_WORDS = 4
"""A question with at least this many content words carries a relevance signal (standard turns)."""

_COMMAND = re.compile(r"^\s*[/!:][A-Za-z]")
_LIST_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+\S", re.MULTILINE)
_IDENTIFIER = re.compile(
    r"`[^`]+`|\b[\w-]+\.[A-Za-z]{1,5}\b|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[\w-]+/[\w./-]+"
)
_WH = re.compile(r"^\s*(what|why|how|when|where|which|who|whose|can|could|should|does|do|is|are)\b", re.I)


def _phrase_pattern(phrases: Sequence[str]) -> re.Pattern[str]:
    body = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in phrases)
    return re.compile(rf"\b(?:{body})\b", re.IGNORECASE)


_DEEP = _phrase_pattern(DEEP_PHRASES)
_MEMORY_REF = _phrase_pattern(MEMORY_REFERENCE_PHRASES)


def normalize_ack(text: str) -> str:
    """Case-folded, trimmed, inner whitespace collapsed, one trailing ``.``/``!`` removed."""
    norm = " ".join(text.split()).casefold()
    if norm and norm[-1] in SURFACE_TRAILING_PUNCTUATION:
        norm = norm[:-1].rstrip()
    return norm


@dataclass(frozen=True)
class TierDecision:
    """A tier, the rule that chose it, and every signal observed (so a user can see why)."""

    tier: Tier
    rule: str
    reasons: tuple[str, ...]
    never_surface: tuple[str, ...] = field(default_factory=tuple)
    words: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "constants": tier_constants(),
            "marker": MARKER,
            "never_surface": list(self.never_surface),
            "reasons": list(self.reasons),
            "rule": self.rule,
            "tier": self.tier.value,
            "words": self.words,
        }


def tier_constants() -> dict[str, Any]:
    return {
        "deep_min_words": DEEP_MIN_WORDS,
        "deep_phrases": list(DEEP_PHRASES),
        "multi_part_min_list_items": MULTI_PART_MIN_LIST_ITEMS,
        "multi_part_min_questions": MULTI_PART_MIN_QUESTIONS,
        "surface_allowlist": list(SURFACE_ALLOWLIST),
        "surface_trailing_punctuation": SURFACE_TRAILING_PUNCTUATION,
    }


def _count_files(active_files: int | Sequence[object] | None) -> int:
    """A count of files, or a sequence of them. A string is a sequence too, but its length is no count of
    files (``"100"`` is not three files), so it is refused like any other type."""
    if active_files is None:
        return 0
    if isinstance(active_files, int) and not isinstance(active_files, bool):
        if active_files < 0:
            raise RangeError("active_files must not be negative", field="active_files")
        return active_files
    if isinstance(active_files, Sequence) and not isinstance(active_files, (str, bytes, bytearray)):
        return len(active_files)
    raise RequestError(
        f"active_files must be a count or a list of files, not {type(active_files).__name__}",
        field="active_files",
    )


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise RequestError("the message must be a string", field="text")
    if not text.strip():
        raise EmptyQueryError("the message is empty or whitespace", field="text")
    return text


def classify_detailed(
    text: str, *, has_attachment: bool = False, active_files: int | Sequence[object] | None = None
) -> TierDecision:
    """Classify one message, recording the rule, the deep reasons and the never-surface signals."""
    text = _check_text(text)
    n_files = _count_files(active_files)
    words = len(text.split())
    never: list[str] = []
    if has_attachment:
        never.append("attachment")
    if n_files:
        never.append("active_files")
    if _COMMAND.match(text):
        never.append("command")
    if _MEMORY_REF.search(text):
        never.append("memory_reference")
    norm = normalize_ack(text)
    if norm not in SURFACE_ALLOWLIST:
        never.append("not_in_allowlist")
    elif not never:
        return TierDecision(Tier.SURFACE, "surface_allowlist", (f"whole message is {norm!r}",), (), words)

    deep: list[str] = []
    if has_attachment:
        deep.append("attachment")
    if n_files:
        deep.append(f"active_files:{n_files}")
    phrases = sorted({" ".join(m.group(0).lower().split()) for m in _DEEP.finditer(text)})
    deep.extend(f"phrase:{p}" for p in phrases)
    if words >= DEEP_MIN_WORDS:
        deep.append(f"long:{words}_words")
    questions = text.count("?")
    if questions >= MULTI_PART_MIN_QUESTIONS:
        deep.append(f"multi_part:{questions}_questions")
    list_items = len(_LIST_LINE.findall(text))
    if list_items >= MULTI_PART_MIN_LIST_ITEMS:
        deep.append(f"multi_part:{list_items}_list_items")
    if deep:
        return TierDecision(Tier.DEEP, "deep_trigger", tuple(deep), tuple(never), words)
    return TierDecision(
        Tier.STANDARD, "default", ("no surface match and no deep trigger",), tuple(never), words
    )


def classify(
    text: str, *, has_attachment: bool = False, active_files: int | Sequence[object] | None = None
) -> Tier:
    """``surface``, ``standard`` or ``deep`` for one message (see :func:`classify_detailed`)."""
    return classify_detailed(text, has_attachment=has_attachment, active_files=active_files).tier


@dataclass(frozen=True)
class RecallSignal:
    """Whether a standard turn should run memory search and retrieval, and why."""

    recall: bool
    relevance: bool
    reasons: tuple[str, ...]

    @property
    def passes(self) -> bool:
        return self.recall or self.relevance

    def to_dict(self) -> dict[str, Any]:
        return {
            "passes": self.passes,
            "reasons": list(self.reasons),
            "recall": self.recall,
            "relevance": self.relevance,
            "relevance_min_content_words": RELEVANCE_MIN_CONTENT_WORDS,
        }


def recall_signal(text: str) -> RecallSignal:
    """Recall: the message refers to memory. Relevance: it names code or files, or asks a real question."""
    reasons: list[str] = []
    recall = bool(_MEMORY_REF.search(text))
    if recall:
        reasons.append("memory_reference")
    identifiers = bool(_IDENTIFIER.search(text))
    if identifiers:
        reasons.append("identifier_or_path")
    content_words = [w for w in re.findall(r"[A-Za-z0-9]+", text.lower()) if w not in CHAT_STOPWORDS_V1]
    question = "?" in text or bool(_WH.match(text))
    substantive = question and len(content_words) >= RELEVANCE_MIN_CONTENT_WORDS
    if substantive:
        reasons.append(f"question:{len(content_words)}_content_words")
    if not reasons:
        reasons.append("no recall or relevance signal")
    return RecallSignal(recall, identifiers or substantive, tuple(reasons))
