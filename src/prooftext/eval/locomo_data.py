"""LoCoMo conversations as transcripts (one turn per line) and questions with normalized evidence ids.

A transcript is Markdown: a title line, one ``## Session N (date)`` heading per session, then one line per
turn, ``Speaker: text`` (whitespace collapsed; a shared image as ``[shares a photo: caption]``). Every turn
is exactly one line, so an excerpt's line range maps exactly to turn ids.

Evidence ids are normalized as ``shared/eval/SOURCES.md`` describes: each raw entry is split on ``;`` and
whitespace, ``D:11:26`` becomes ``D11:26``, leading zeros go (``D30:05`` → ``D30:5``), and what still names
no turn of the conversation is dropped and counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prooftext.errors import ArtifactError

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
"""LoCoMo category ids (compare by id; the names are for reports)."""

_SESSION_KEY = re.compile(r"session_(\d+)")
_SPLIT = re.compile(r"[;\s]+")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    date: str
    line: int

    @property
    def line_text(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass
class EvidenceStats:
    """What normalization did to the raw evidence ids of a dataset."""

    raw_entries: int = 0
    entries_split: int = 0
    ids: int = 0
    repaired: int = 0
    dropped: list[str] = field(default_factory=list)
    questions_without_evidence: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "raw_entries": self.raw_entries,
            "entries_split": self.entries_split,
            "ids_kept": self.ids,
            "ids_repaired": self.repaired,
            "ids_dropped": len(self.dropped),
            "dropped": self.dropped,
            "questions_without_evidence": self.questions_without_evidence,
        }


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    title: str
    turns: tuple[Turn, ...]
    headings: tuple[tuple[int, str], ...]
    questions: tuple[Question, ...]

    def transcript(self) -> str:
        lines: dict[int, str] = {1: self.title}
        lines.update(dict(self.headings))
        lines.update({t.line: t.line_text for t in self.turns})
        return "".join(lines[n] + "\n" for n in range(1, len(lines) + 1))

    def turns_in(self, ranges: Sequence[tuple[int, int]]) -> set[str]:
        """Ids of the turns whose line lies inside any of ``ranges``."""
        return {t.dia_id for t in self.turns if any(a <= t.line <= b for a, b in ranges)}


def normalize_evidence(raw: object, valid: set[str], stats: EvidenceStats) -> tuple[str, ...]:
    """Valid, deduplicated turn ids from one question's raw evidence list."""
    kept: list[str] = []
    entries = raw if isinstance(raw, list) else []
    for entry in entries:
        stats.raw_entries += 1
        pieces = [p for p in _SPLIT.split(str(entry).strip()) if p]
        stats.entries_split += int(len(pieces) > 1)
        for piece in pieces:
            match = _EVIDENCE.fullmatch(piece)
            canonical = f"D{int(match.group(1))}:{int(match.group(2))}" if match else piece
            if canonical not in valid:
                stats.dropped.append(piece)
                continue
            if canonical != piece:
                stats.repaired += 1
            if canonical not in kept:
                kept.append(canonical)
    stats.ids += len(kept)
    return tuple(kept)


def _clean(text: object) -> str:
    return " ".join(str(text).split())


def _turn_text(raw: dict[str, Any]) -> str:
    text = _clean(raw.get("text", ""))
    caption = raw.get("blip_caption")
    return f"{text} [shares a photo: {_clean(caption)}]" if caption else text


def _sessions(conv: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]], str]]:
    found = []
    for key, value in conv.items():
        match = _SESSION_KEY.fullmatch(key)
        if match and isinstance(value, list):
            found.append((int(match.group(1)), value, _clean(conv.get(f"{key}_date_time", ""))))
    return sorted(found, key=lambda s: s[0])


def parse_conversation(sample: dict[str, Any], stats: EvidenceStats) -> Conversation:
    conv = sample["conversation"]
    sample_id = str(sample.get("sample_id", ""))
    title = f"# Conversation {sample_id} between {conv.get('speaker_a')} and {conv.get('speaker_b')}"
    turns: list[Turn] = []
    headings: list[tuple[int, str]] = []
    line = 1
    for number, raw_turns, date in _sessions(conv):
        line += 1
        headings.append((line, f"## Session {number} ({date})"))
        for raw in raw_turns:
            line += 1
            turn = Turn(str(raw["dia_id"]), _clean(raw["speaker"]), _turn_text(raw), number, date, line)
            turns.append(turn)
    valid = {t.dia_id for t in turns}
    questions = []
    for i, qa in enumerate(sample.get("qa", [])):
        evidence = normalize_evidence(qa.get("evidence"), valid, stats)
        stats.questions_without_evidence += 0 if evidence else 1
        questions.append(Question(f"{sample_id}#{i}", str(qa["question"]), int(qa["category"]), evidence))
    return Conversation(sample_id, title, tuple(turns), tuple(headings), tuple(questions))


def load_locomo(path: Path) -> tuple[list[Conversation], EvidenceStats]:
    """Every conversation of a LoCoMo JSON file, and the evidence normalization record."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ArtifactError(f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ArtifactError(f"{path} is not JSON: {exc.msg}") from None
    if not isinstance(data, list):
        raise ArtifactError(f"{path}: a LoCoMo file is a JSON list of conversations")
    stats = EvidenceStats()
    try:
        conversations = [parse_conversation(sample, stats) for sample in data]
    except (KeyError, TypeError, ValueError) as exc:
        raise ArtifactError(f"{path}: not LoCoMo data ({type(exc).__name__}: {exc})") from None
    return conversations, stats


def sample_questions(questions: Sequence[Question], limit: int | None) -> list[Question]:
    """At most ``limit`` questions, evenly spaced over the list (keeps the category mix); all if None."""
    if limit is None or limit >= len(questions):
        return list(questions)
    step = len(questions) / limit
    return [questions[int(i * step)] for i in range(limit)]
