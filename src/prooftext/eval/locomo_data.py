"""LoCoMo conversations as transcripts (one turn per line) and questions with normalized evidence ids.

A transcript is Markdown: a title line, one ``## Session N (date)`` heading per session, then one line per
turn, ``Speaker: text`` (whitespace collapsed; a shared image as ``[shares a photo: caption]``). Every turn
is exactly one line, so an excerpt's line range maps exactly to turn ids.

Evidence ids are normalized as ``shared/eval/SOURCES.md`` describes: each raw entry is split on ``;`` and
whitespace, ``D:11:26`` becomes ``D11:26``, leading zeros go (``D30:05`` → ``D30:5``), and what still names
no turn of the conversation is dropped and counted.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prooftext.errors import ArtifactError, RangeError
from prooftext.eval.dataio import load_json

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
_PORTABLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A sample id used as its own directory name: portable, not hidden, never ``.`` or ``..``."""
MAPPED_DIR_PREFIX = "_"
MAPPED_DIR_DIGEST_CHARS = 32
"""Hex digits of SHA-256 naming the directory of a sample id that is not a portable name (128 bits)."""


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
    """One LoCoMo question: its id, text, category (1-5) and the dialogue ids of its evidence turns."""

    qid: str
    text: str
    category: int
    evidence: tuple[str, ...]
    answer: str | None = None
    """The gold answer (a number is kept as its text); None for adversarial questions, which have none."""


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

    @property
    def dir_name(self) -> str:
        """The conversation's directory under the run's work directory (see :func:`work_dir_name`)."""
        return work_dir_name(self.sample_id)

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


class SampleFieldError(ValueError):
    """A conversation field that is missing or malformed; ``field`` names it (``qa[3].question``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _clean(text: str) -> str:
    """Whitespace collapsed: a line break inside a name or text would shift every turn after it."""
    return " ".join(text.split())


def _string(data: dict[str, Any], key: str, field: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise SampleFieldError(field, f"must be a string, not {_type_name(value)}")
    return value


def _type_name(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _turn_text(raw: dict[str, Any], field: str) -> str:
    text = _clean(_string(raw, "text", f"{field}.text"))
    caption = _clean(_string(raw, "blip_caption", f"{field}.blip_caption", required=False))
    return f"{text} [shares a photo: {caption}]" if caption else text


def _sessions(conv: dict[str, Any]) -> list[tuple[int, str, list[Any], str]]:
    found = []
    for key, value in conv.items():
        match = _SESSION_KEY.fullmatch(key)
        if not match:
            continue
        if not isinstance(value, list):  # skipping it would silently drop the session's turns
            raise SampleFieldError(f"conversation.{key}", f"must be a list of turns, not {_type_name(value)}")
        date = _clean(_string(conv, f"{key}_date_time", f"conversation.{key}_date_time", required=False))
        found.append((int(match.group(1)), key, value, date))
    return sorted(found, key=lambda s: s[0])


def work_dir_name(sample_id: str) -> str:
    """The directory a conversation's transcript and index live in, under the run's work directory.

    A portable name (at most 64 letters, digits, ``.``, ``_``, ``-``, starting with a letter or digit) is
    used as it is, so ``conv-26`` lives in ``conv-26``; any other id (``../x``, ``/tmp/x``, ``a b``) becomes
    ``_`` followed by the first hex digits of its SHA-256. Portable names never start with ``_``, so the two
    kinds never collide, and neither can leave the work directory.
    """
    if _PORTABLE_NAME.fullmatch(sample_id):
        return sample_id
    digest = hashlib.sha256(sample_id.encode("utf-8", "surrogatepass")).hexdigest()
    return MAPPED_DIR_PREFIX + digest[:MAPPED_DIR_DIGEST_CHARS]


def _question(
    qa: object, field: str, sample_id: str, number: int, valid: set[str], stats: EvidenceStats
) -> Question:
    if not isinstance(qa, dict):
        raise SampleFieldError(field, f"must be an object, not {_type_name(qa)}")
    text = _string(qa, "question", f"{field}.question")
    if not text.strip():  # an empty query ranks nothing: the question could not be evaluated
        raise SampleFieldError(f"{field}.question", "must not be empty")
    category = qa.get("category")
    if isinstance(category, bool) or not isinstance(category, int):
        raise SampleFieldError(f"{field}.category", f"must be an integer, not {_type_name(category)}")
    if category not in CATEGORY_NAMES:  # scored as none of LoCoMo's, it would be reported as a bare number
        known = ", ".join(f"{c} {name}" for c, name in CATEGORY_NAMES.items())
        raise SampleFieldError(
            f"{field}.category",
            (
                f"must be a LoCoMo category from {min(CATEGORY_NAMES)} to {max(CATEGORY_NAMES)} ({known}),"
                f" not {str(category)[:40]}"
            ),
        )
    raw_evidence = qa.get("evidence")
    if raw_evidence is not None and not isinstance(raw_evidence, list):
        raise SampleFieldError(
            f"{field}.evidence", f"must be a list of turn ids, not {_type_name(raw_evidence)}"
        )
    evidence = normalize_evidence(raw_evidence, valid, stats)
    stats.questions_without_evidence += 0 if evidence else 1
    answer = qa.get("answer")
    gold = str(answer) if isinstance(answer, str | int | float) and not isinstance(answer, bool) else None
    return Question(f"{sample_id}#{number}", text, category, evidence, gold)


def parse_conversation(sample: object, stats: EvidenceStats) -> Conversation:
    """One LoCoMo sample; :class:`SampleFieldError` names the first field that is missing or malformed."""
    if not isinstance(sample, dict):
        raise SampleFieldError("sample", f"must be an object, not {_type_name(sample)}")
    sample_id = _string(sample, "sample_id", "sample_id")
    if not sample_id:
        raise SampleFieldError("sample_id", "must not be empty")
    conv = sample.get("conversation")
    if not isinstance(conv, dict):
        raise SampleFieldError("conversation", f"must be an object, not {_type_name(conv)}")
    speakers = [_clean(_string(conv, key, f"conversation.{key}")) for key in ("speaker_a", "speaker_b")]
    title = f"# Conversation {_clean(sample_id)} between {speakers[0]} and {speakers[1]}"
    turns: list[Turn] = []
    headings: list[tuple[int, str]] = []
    seen: set[str] = set()
    line = 1
    for number, key, raw_turns, date in _sessions(conv):
        line += 1
        headings.append((line, f"## Session {number} ({date})"))
        for index, raw in enumerate(raw_turns):
            field = f"conversation.{key}[{index}]"
            if not isinstance(raw, dict):
                raise SampleFieldError(field, f"must be an object, not {_type_name(raw)}")
            dia_id = _string(raw, "dia_id", f"{field}.dia_id")
            if dia_id in seen:  # evidence naming it would match two lines
                raise SampleFieldError(f"{field}.dia_id", f"turn id {dia_id[:80]!r} appears twice")
            seen.add(dia_id)
            speaker = _clean(_string(raw, "speaker", f"{field}.speaker"))
            line += 1
            turns.append(Turn(dia_id, speaker, _turn_text(raw, field), number, date, line))
    raw_qa = sample.get("qa")
    if raw_qa is None:  # a conversation without questions is not left out unsaid
        raise SampleFieldError("qa", "missing; a conversation needs its list of questions")
    if not isinstance(raw_qa, list):
        raise SampleFieldError("qa", f"must be a list of questions, not {_type_name(raw_qa)}")
    questions = [_question(qa, f"qa[{i}]", sample_id, i, seen, stats) for i, qa in enumerate(raw_qa)]
    return Conversation(sample_id, title, tuple(turns), tuple(headings), tuple(questions))


LOCOMO_INPUT = "LoCoMo data"
"""``details.input`` of an error about a field of a LoCoMo file (no command-line option names it)."""


def load_locomo(path: Path) -> tuple[list[Conversation], EvidenceStats]:
    """Every conversation of a LoCoMo JSON file, and the evidence normalization record.

    A malformed field, a sample id given twice (two conversations would share one work directory) or a file
    without any question is an :class:`ArtifactError` naming the file, the conversation and the field.
    """
    data = load_json(path, "LoCoMo data", ArtifactError)
    if not isinstance(data, list):
        raise ArtifactError(
            f"{path}: a LoCoMo file is a JSON list of conversations", path=str(path), input=LOCOMO_INPUT
        )
    stats = EvidenceStats()
    conversations: list[Conversation] = []
    dirs: dict[str, tuple[str, int]] = {}
    for number, sample in enumerate(data):
        named = sample.get("sample_id") if isinstance(sample, dict) else None
        where = f"{path}: conversation {number}" + (f" ({named[:80]})" if isinstance(named, str) else "")
        try:
            conv = parse_conversation(sample, stats)
        except SampleFieldError as exc:
            raise ArtifactError(
                f"{where}: {exc}", path=str(path), conversation=number, field=exc.field, input=LOCOMO_INPUT
            ) from None
        # Case-folded: two ids differing only in case share a directory on a case-insensitive file system.
        folded = work_dir_name(conv.sample_id).casefold()
        if folded in dirs:
            other, first = dirs[folded]
            clash = (
                f"sample_id {other[:80]!r} is given twice (also by conversation {first})"
                if other == conv.sample_id
                else f"sample_id {conv.sample_id[:80]!r} differs only in case from conversation {first}'s"
                f" {other[:80]!r} (the two would share a work directory)"
            )
            raise ArtifactError(
                f"{where}: {clash}",
                path=str(path),
                conversation=number,
                field="sample_id",
                input=LOCOMO_INPUT,
            )
        dirs[folded] = (conv.sample_id, number)
        conversations.append(conv)
    if not any(c.questions for c in conversations):
        raise ArtifactError(f"{path}: no questions to evaluate", path=str(path), input=LOCOMO_INPUT)
    return conversations, stats


def sample_questions(questions: Sequence[Question], limit: int | None) -> list[Question]:
    """At most ``limit`` questions, evenly spaced over the list (keeps the category mix); all if None."""
    if limit is not None and limit < 1:
        raise RangeError("questions per conversation must be at least 1", field="questions")
    if limit is None or limit >= len(questions):
        return list(questions)
    step = len(questions) / limit
    return [questions[int(i * step)] for i in range(limit)]
