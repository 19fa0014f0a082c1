"""Depth tiers: a deterministic, per-turn classifier (no model call) into surface, standard or deep.

Surface is small talk and nothing else: the never-surface rules are checked first (an attachment, active
files, a command or a negation with a command, a memory reference, a multi-part question, code or a path,
a long message); then the entire normalized message must split into forms of the closed small-talk set of
:mod:`prooftext.depth.smalltalk` (greeting, goodbye, thanks, yes, no, ok, courtesy, test). Deep fires on
explicit phrases, attachments or active files, and long or multi-part prompts. Every decision carries the
rule that made it, the rules that ruled surface out, and the small-talk pieces it found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import prooftext.depth.smalltalk as smalltalk
from prooftext.depth.signals import (
    MEMORY_REFERENCE_PHRASES,
    KnownTerms,
    RecallSignal,
    memory_reference,
    question_count,
    recall_signal,
)
from prooftext.errors import EmptyQueryError, RangeError, RequestError

__all__ = [
    "MARKER",
    "SURFACE_ALLOWLIST",
    "KnownTerms",
    "RecallSignal",
    "Tier",
    "TierDecision",
    "classify",
    "classify_detailed",
    "recall_signal",
]

MARKER = "v-adaptive-context-depth-v0"
"""The interface marker of the depth-tier design this module implements."""


class Tier(StrEnum):
    SURFACE = "surface"
    STANDARD = "standard"
    DEEP = "deep"


SURFACE_ALLOWLIST: tuple[str, ...] = tuple(sorted(smalltalk.FORMS))
"""The kinds of small talk that may be surface (each a closed set of forms in :mod:`smalltalk`)."""

SURFACE_MAX_WORDS = 24
"""A message longer than this many words is never surface, whatever it is made of. Words are counted as
written and after normalization, whichever is more: 25 waving hands with no space between are 25 words."""

SURFACE_MAX_CLAUSES = 5
"""More clauses than this (runs of ``. , ; : ! ?``) make a punctuation-heavy message: never surface."""

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
"""At least this many questions make a multi-part question: deep. A question is a clause with a word in it
that ends in a run of ``?`` and ``!`` holding a ``?`` (``hi??`` and ``really?!?`` are one question each)."""

MULTI_PART_MIN_LIST_ITEMS = 2
"""At least this many numbered or bulleted lines make a multi-part prompt: deep."""

ACTION_VERBS: tuple[str, ...] = (
    "add",
    "append",
    "abort",
    "book",
    "build",
    "buy",
    "call",
    "cancel",
    "change",
    "clear",
    "close",
    "commit",
    "convert",
    "copy",
    "create",
    "delete",
    "deploy",
    "destroy",
    "disable",
    "download",
    "drop",
    "edit",
    "email",
    "enable",
    "erase",
    "execute",
    "fix",
    "format",
    "generate",
    "install",
    "kill",
    "launch",
    "merge",
    "modify",
    "move",
    "open",
    "order",
    "overwrite",
    "paste",
    "pay",
    "post",
    "publish",
    "purge",
    "push",
    "rebase",
    "reboot",
    "remove",
    "rename",
    "replace",
    "reset",
    "restart",
    "restore",
    "revert",
    "rewrite",
    "rollback",
    "run",
    "save",
    "schedule",
    "send",
    "set",
    "share",
    "shutdown",
    "start",
    "stop",
    "submit",
    "switch",
    "transfer",
    "turn",
    "undo",
    "uninstall",
    "update",
    "upload",
    "wipe",
    "write",
)
"""Verbs of acting on something: a clause that starts with one (``delete it``, ``please run the tests``) is a
command, and one after a negation (``no, don't delete that``) is a negation with a command."""

NEGATIONS: tuple[str, ...] = ("no", "nope", "dont", "do not", "never", "stop", "quit", "wait", "not")
"""Words that, with an action verb in the same message, make a negation with a command."""

_COMMAND = re.compile(r"^\s*[/!:][A-Za-z]")
_LIST_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+\S", re.MULTILINE)
_IDENTIFIER = re.compile(
    r"`[^`]+`|(?<![\w-])[\w-]+\.[A-Za-z]{1,5}\b|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|(?<![\w-])[\w-]+/[\w./-]+"
)
_CODE_CHARS = re.compile(r"[`{}\[\]<>=#$%^&*|\\~@]|https?://|\(\)")
_CLAUSE_BREAK = re.compile(r"[.,;:!?\n]+")
_LEADING_SOFT = (
    "please",
    "pls",
    "plz",
    "kindly",
    "now",
    "just",
    "ok",
    "okay",
    "so",
    "then",
    "and",
    "yes",
    "no",
)


def _phrase_pattern(phrases: Sequence[str]) -> re.Pattern[str]:
    body = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in phrases)
    return re.compile(rf"\b(?:{body})\b", re.IGNORECASE)


_DEEP = _phrase_pattern(DEEP_PHRASES)
_ACTION = frozenset(ACTION_VERBS)


def _clauses(text: str) -> list[list[str]]:
    """The message's clauses as normalized word lists (split at punctuation, ``and`` and ``then``)."""
    out: list[list[str]] = []
    for part in _CLAUSE_BREAK.split(text):
        words = smalltalk.normalize(part).words
        current: list[str] = []
        for word in words:
            if word in ("and", "then") and current:
                out.append(current)
                current = []
            else:
                current.append(word)
        if current:
            out.append(current)
    return out


def command_rules(text: str) -> list[str]:
    """``command`` when a clause starts with an action verb (after ``please``, ``ok``, ``yes``…) or with a
    slash command (an emoticon such as ``:D`` is no command); ``negation_with_command`` when the message
    negates and names an action verb."""
    rules: list[str] = []
    clauses = _clauses(text)
    imperative = False
    for words in clauses:
        rest = list(words)
        while rest and rest[0] in _LEADING_SOFT:
            rest.pop(0)
        if rest and rest[0] in _ACTION:
            imperative = True
    if _COMMAND.match(smalltalk.strip_symbols(text)[0]) or imperative:
        rules.append("command")
    flat = " " + " ".join(w for c in clauses for w in c) + " "
    if any(f" {n} " in flat for n in NEGATIONS) and any(f" {v} " in flat for v in _ACTION):
        rules.append("negation_with_command")
    return rules


def normalize_ack(text: str) -> str:
    """The normalized words of ``text`` (see :func:`prooftext.depth.smalltalk.normalize`), space-joined."""
    return smalltalk.normalize(text).text


@dataclass(frozen=True)
class TierDecision:
    """A tier, the rule that chose it, and every signal observed (so a user can see why)."""

    tier: Tier
    rule: str
    reasons: tuple[str, ...]
    never_surface: tuple[str, ...] = field(default_factory=tuple)
    words: int = 0
    normalized: str = ""
    normalization: tuple[str, ...] = field(default_factory=tuple)
    small_talk: tuple[smalltalk.Segment, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """The record. The normalized text and its steps are shown for small talk only: they repeat the
        message's words, and a message that is not small talk may hold anything (a credential among them),
        while small talk is made of the closed vocabulary alone."""
        talk = self.tier is Tier.SURFACE
        return {
            "constants": tier_constants(),
            "marker": MARKER,
            "never_surface": list(self.never_surface),
            "normalization": list(self.normalization) if talk else [],
            "normalized": self.normalized if talk else None,
            "reasons": list(self.reasons),
            "rule": self.rule,
            "small_talk": [s.to_dict() for s in self.small_talk],
            "tier": self.tier.value,
            "words": self.words,
        }


def tier_constants() -> dict[str, Any]:
    return {
        "action_verbs": len(ACTION_VERBS),
        "deep_min_words": DEEP_MIN_WORDS,
        "deep_phrases": list(DEEP_PHRASES),
        "memory_reference_phrases": len(MEMORY_REFERENCE_PHRASES),
        "multi_part_min_list_items": MULTI_PART_MIN_LIST_ITEMS,
        "multi_part_min_questions": MULTI_PART_MIN_QUESTIONS,
        "small_talk": smalltalk.constants(),
        "surface_allowlist": list(SURFACE_ALLOWLIST),
        "surface_max_clauses": SURFACE_MAX_CLAUSES,
        "surface_max_words": SURFACE_MAX_WORDS,
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


def never_surface_rules(
    text: str, has_attachment: bool, n_files: int, normalized_words: int = 0
) -> list[str]:
    """Every never-surface rule that ``text`` (with its attachment and files, and ``normalized_words``
    words after normalization) meets, in a fixed order."""
    never: list[str] = []
    if has_attachment:
        never.append("attachment")
    if n_files:
        never.append("active_files")
    never.extend(command_rules(text))
    if memory_reference(text):
        never.append("memory_reference")
    if (
        question_count(text) >= MULTI_PART_MIN_QUESTIONS
        or len(_LIST_LINE.findall(text)) >= MULTI_PART_MIN_LIST_ITEMS
    ):
        never.append("multi_part")
    stripped, _ = smalltalk.strip_symbols(text)
    if _IDENTIFIER.search(stripped) or _CODE_CHARS.search(stripped):
        never.append("code_or_path")
    if max(len(text.split()), normalized_words) > SURFACE_MAX_WORDS:
        never.append("long")
    if len([c for c in _CLAUSE_BREAK.split(stripped) if c.strip()]) > SURFACE_MAX_CLAUSES:
        never.append("punctuation_heavy")
    return never


def _deep_reasons(text: str, has_attachment: bool, n_files: int, words: int) -> list[str]:
    """Every deep trigger ``text`` meets: an attachment, active files, a phrase, length, several parts."""
    deep: list[str] = []
    if has_attachment:
        deep.append("attachment")
    if n_files:
        deep.append(f"active_files:{n_files}")
    phrases = sorted({" ".join(m.group(0).lower().split()) for m in _DEEP.finditer(text)})
    deep.extend(f"phrase:{p}" for p in phrases)
    if words >= DEEP_MIN_WORDS:
        deep.append(f"long:{words}_words")
    questions = question_count(text)
    if questions >= MULTI_PART_MIN_QUESTIONS:
        deep.append(f"multi_part:{questions}_questions")
    list_items = len(_LIST_LINE.findall(text))
    if list_items >= MULTI_PART_MIN_LIST_ITEMS:
        deep.append(f"multi_part:{list_items}_list_items")
    return deep


def classify_detailed(
    text: str, *, has_attachment: bool = False, active_files: int | Sequence[object] | None = None
) -> TierDecision:
    """Classify one message, recording the rule, the deep reasons, the never-surface rules it met and the
    small-talk pieces it is made of."""
    text = _check_text(text)
    n_files = _count_files(active_files)
    words = len(text.split())
    norm = smalltalk.normalize(text)
    never = never_surface_rules(text, has_attachment, n_files, len(norm.words))
    pieces: tuple[smalltalk.Segment, ...] = ()
    if not never:
        found = smalltalk.segment(norm.words)
        kinds = {p.kind for p in found or ()} - {"filler"}
        if found is None or not kinds:
            never.append("not_small_talk")
        elif all(k in kinds for k in smalltalk.YES_NO_KINDS):
            never.append("yes_and_no")
            pieces = found
        else:
            pieces = found
            return TierDecision(
                Tier.SURFACE,
                "small_talk",
                tuple(f"{p.kind}:{p.text}" for p in found),
                (),
                words,
                norm.text,
                norm.steps,
                found,
            )

    deep = _deep_reasons(text, has_attachment, n_files, words)
    if deep:
        return TierDecision(
            Tier.DEEP, "deep_trigger", tuple(deep), tuple(never), words, norm.text, norm.steps, pieces
        )
    return TierDecision(
        Tier.STANDARD,
        "default",
        ("not small talk and no deep trigger",),
        tuple(never),
        words,
        norm.text,
        norm.steps,
        pieces,
    )


def classify(
    text: str, *, has_attachment: bool = False, active_files: int | Sequence[object] | None = None
) -> Tier:
    """``surface``, ``standard`` or ``deep`` for one message (see :func:`classify_detailed`)."""
    return classify_detailed(text, has_attachment=has_attachment, active_files=active_files).tier
