"""Labels for excerpts that carry instruction-like text, invisible characters or bidi controls.

An excerpt is quoted data. prooftext never acts on what it says (it runs no tools, reads no path and
changes no budget because of content); what it can do is tell the model which excerpts look like they
are talking to it. :func:`flags` returns the labels that ``pack/render.py`` puts on the evidence block
(``flags=bidi:2,instruction-like,invisible:3``); the bytes are never changed, so digests still verify.

* ``invisible:N`` counts zero-width and other invisible format characters (ZWSP, ZWNJ, word joiner,
  invisible operators, soft hyphen, fillers, Unicode tag characters U+E0000-U+E007F that can smuggle ASCII,
  variation selectors 17-256). A byte-order mark at the very start of a text and a zero-width joiner
  between two pictographs (emoji sequences) are not counted.
* ``bidi:N`` counts bidirectional controls (embeddings, overrides, isolates, marks): "Trojan Source".
* ``instruction-like`` marks text addressed to a model rather than a reader: attempts to override earlier
  instructions, chat-role lines (``SYSTEM: ...``), chat-template tokens, forged evidence boundaries,
  directives about "your response / reply / answer", requests to send data somewhere, and sentences phrased
  as a task for an assistant (imperatives such as "Summarize ..." or "Recommend ...", and questions such
  as "How can I ...?"). It is a heuristic with false positives in documentation (FAQ questions, how-to
  imperatives); it only labels, so a false positive costs a few tokens and never changes a decision.
* ``high-entropy:N`` (from :mod:`prooftext.corpus.secrets`) counts random-looking strings that might be
  credentials; digests, UUIDs and lockfile hashes are not counted.
* ``redacted:N`` counts ``[REDACTED:<rule>]`` placeholders in the rendered excerpt.

Flags are sorted by name and depend only on the excerpt text (already redacted) and its path.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from prooftext.corpus import secrets

FLAG_BIDI = "bidi"
FLAG_HIGH_ENTROPY = "high-entropy"
FLAG_INSTRUCTION = "instruction-like"
FLAG_INVISIBLE = "invisible"
FLAG_REDACTED = "redacted"

_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_INVISIBLE = re.compile(
    "[\u00ad\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_ZWJ = "\u200d"
_BOM = "\ufeff"

_I = re.IGNORECASE
_M = re.MULTILINE
_STRONG: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "override",
        re.compile(
            r"\b(?:ignore|disregard|forget|skip|override|bypass)\b[^.\n]{0,40}?"
            r"\b(?:previous|prior|above|earlier|preceding|all|any|the|your|system|original|these|those)\b"
            r"[^.\n]{0,30}?\b(?:instructions?|prompts?|rules|directions|guidelines|context|messages?|constraints)\b",
            _I,
        ),
    ),
    (
        "new-instructions",
        re.compile(r"\b(?:new|updated|real|actual|hidden|secret)\s+(?:instructions?|system\s+prompt)\b", _I),
    ),
    (
        "role-line",
        re.compile(
            r"^[ \t>*#-]*(?:SYSTEM|ASSISTANT|USER|DEVELOPER|System|Assistant|Developer|Human)[ \t]*:"
            r"[ \t]*\S+(?:[ \t]+\S+){2,}",
            _M,
        ),
    ),
    (
        "chat-template",
        re.compile(
            r"<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|eot_id|start_header_id)\|>"
            r"|\[/?INST\]|<</?SYS>>|<start_of_turn>|<end_of_turn>"
        ),
    ),
    (
        "boundary",
        re.compile(
            r"\b(?:BEGIN|END)\s+(?:EVIDENCE|QUERY)\b|</?(?:evidence|excerpt|context|notice|query|system)>", _I
        ),
    ),
    (
        "addresses-model",
        re.compile(
            r"\byour\s+(?:response|reply|answer|message|output|responses|replies|answers|messages)\b"
            r"|\b(?:you\s+are|you're)\s+(?:now|no\s+longer|an?\s+(?:ai|assistant|language\s+model|chatbot|llm))\b"
            r"|\bas\s+an?\s+(?:ai|language\s+model|assistant|llm)\b"
            r"|\bpretend\s+(?:to\s+be|you)\b"
            r"|(?:^|[.!?:]\s+)(?:please\s+)?(?:reply|respond|answer)\s+(?:in|using|with|only|by)\b"
            r"|\bdo\s+not\s+(?:tell|inform|reveal|mention)\b[^.\n]{0,30}\b(?:user|anyone|human)\b",
            _I,
        ),
    ),
    (
        "exfiltration",
        re.compile(
            r"\b(?:send|forward|email|post|upload|exfiltrate|leak|share)\b[^.\n]{0,60}?\b(?:to|at|with)\s+"
            r"(?:https?://|www\.|[\w.+-]+@[\w-]+\.)"
            r"|\b(?:visit|click|open|go\s+to|navigate\s+to)\b[^.\n]{0,40}?(?:https?://|www\.)"
            r"|\b(?:run|execute)\s+(?:the\s+following|this)\s+(?:command|code|script)\b"
            r"|\bread\b[^.\n]{0,30}?(?:\.env\b|/etc/passwd|id_rsa|credentials)"
            r"|\b(?:raise|increase|set|double)\s+(?:the\s+|your\s+)?(?:budget|max_tokens|token\s+limit)\b",
            _I,
        ),
    ),
)

_REQUEST_VERBS = (
    r"(?:Write|Provide|Show\s+me|Help\s+me|Tell\s+me|Give\s+me|Analy[sz]e|Recommend|Suggest|Summari[sz]e"
    r"|Describe|Determine|Classify|Explain|Translate|Compose|Draft|Rewrite|Paraphrase)"
)
_QUESTION_OPENERS = r"(?:How|What|Which|Who|Why|Where|When|Is|Are|Should|Do|Does|Did|Has|Have)"
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)", _M)
_LEAD = re.compile(r"^[\s>*#\-\"'`(\[]*(?:\d+[.)]\s*)?(?:[Pp]lease\s+)?")
_DOCSTRING = re.compile(r"^\s*(?:[rRbBuU]?\"\"\"|[rRbBuU]?''')")
_REQUEST = re.compile(_REQUEST_VERBS + r"\b")
_ASK = re.compile(r"(?:Can|Could|Would|Will)\s+you\b")
_QUESTION = re.compile(_QUESTION_OPENERS + r"\b")
_CODE_CHARS = re.compile(r"[(){}\[\];=<>|\\]|::|->|=>|\b(?:def|return|self|import|class|const|var|let)\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
MIN_REQUEST_WORDS = 5
"""A task sentence has at least this many words (short imperatives in code comments are not tasks)."""


def _prose_words(sentence: str) -> int:
    head = sentence.split("'", 1)[0].split('"', 1)[0]
    if _CODE_CHARS.search(head):
        return 0
    return len(_WORD.findall(sentence))


def _is_request(sentence: str) -> bool:
    if _DOCSTRING.match(sentence):
        return False  # a docstring's summary line is an imperative by convention ("Return ...")
    lead = _LEAD.match(sentence)
    body = sentence[lead.end() if lead else 0 :]
    if not body:
        return False
    if _prose_words(body) < MIN_REQUEST_WORDS:
        return False
    if _REQUEST.match(body) or _ASK.match(body):
        return True
    return bool(_QUESTION.match(body) and body.rstrip().endswith("?"))


@dataclass(frozen=True)
class Signals:
    """What :func:`scan` found in one text."""

    instruction: tuple[str, ...]
    invisible: int
    bidi: int

    @property
    def instruction_like(self) -> bool:
        return bool(self.instruction)


def count_invisible(text: str) -> int:
    count = 0
    for match in _INVISIBLE.finditer(text):
        char, at = match.group(0), match.start()
        if char == _BOM and at == 0:
            continue
        if char == _ZWJ and _pictograph(text, at - 1) and _pictograph(text, at + 1):
            continue
        count += 1
    return count


def _pictograph(text: str, at: int) -> bool:
    if not 0 <= at < len(text):
        return False
    char = text[at]
    return unicodedata.category(char) == "So" or "\U0001f300" <= char <= "\U0001faff" or char == "\ufe0f"


def count_bidi(text: str) -> int:
    return len(_BIDI.findall(text))


def instruction_signals(text: str) -> tuple[str, ...]:
    """Names of the instruction-like signals in ``text`` (``request`` for task-phrased sentences)."""
    found = [name for name, pattern in _STRONG if pattern.search(text)]
    if any(_is_request(m.group(0)) for m in _SENTENCE.finditer(text)):
        found.append("request")
    return tuple(found)


def scan(text: str) -> Signals:
    return Signals(instruction_signals(text), count_invisible(text), count_bidi(text))


def flags(text: str, path: str = "") -> list[str]:
    """The labels of one rendered excerpt, sorted; empty for ordinary text."""
    out: list[str] = []
    signals = scan(text)
    if signals.bidi:
        out.append(f"{FLAG_BIDI}:{signals.bidi}")
    entropy = secrets.high_entropy_count(text, path)
    if entropy:
        out.append(f"{FLAG_HIGH_ENTROPY}:{entropy}")
    if signals.instruction_like:
        out.append(FLAG_INSTRUCTION)
    if signals.invisible:
        out.append(f"{FLAG_INVISIBLE}:{signals.invisible}")
    redacted = secrets.redaction_count(text)
    if redacted:
        out.append(f"{FLAG_REDACTED}:{redacted}")
    return out
