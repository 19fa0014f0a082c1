"""Labels for excerpts that carry instruction-like text, invisible characters, bidi or terminal controls.

An excerpt is quoted data. prooftext never acts on what it says (it runs no tools, reads no path and
changes no budget because of content); what it can do is tell the model which excerpts look like they
are talking to it. :func:`flags` returns the labels that ``pack/render.py`` puts on the evidence block
(``flags=bidi:2,instruction-like,invisible:3``). Labelling never changes the excerpt, whose ``sha256`` is
the source's; only control characters (``control:N`` below) are shown in a visible form when rendered.

* ``invisible:N`` counts zero-width and other invisible format characters (ZWSP, ZWNJ, word joiner,
  invisible operators, soft hyphen, fillers, Unicode tag characters U+E0000-U+E007F that can smuggle ASCII,
  variation selectors 17-256). A byte-order mark at the very start of a text and a zero-width joiner
  between two pictographs (emoji sequences) are not counted.
* ``bidi:N`` counts bidirectional controls (embeddings, overrides, isolates, marks): "Trojan Source".
* ``control:N`` counts the characters :data:`CONTROL` matches: C0 controls other than tab and line feed
  (escape sequences that clear a terminal or set its title, backspaces that overwrite shown text, NUL,
  form feed, a carriage return that is not part of a CRLF line end), DEL, the C1 controls, and U+FFFE,
  U+FFFF and lone surrogates, which XML 1.0 forbids. These
  are the characters a query is refused for (plus the XML ones); an excerpt holding them is quoted, and the
  renderer shows each in a visible form (``pack/render.py``), so the label says how many it replaced.
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
from collections.abc import Iterator
from dataclasses import dataclass

from prooftext.corpus import secrets

FLAG_BIDI = "bidi"
FLAG_CONTROL = "control"
FLAG_HIGH_ENTROPY = "high-entropy"
FLAG_INSTRUCTION = "instruction-like"
FLAG_INVISIBLE = "invisible"
FLAG_REDACTED = "redacted"

_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_INVISIBLE = re.compile(
    "[\u00ad\u115f\u1160\u180e\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]|\r(?!\n)")
"""Characters a terminal acts on, or XML 1.0 forbids even as a character reference: the
:data:`~prooftext.corpus.lines.CONTROL_CHARACTERS` a query is refused for, the C1 controls (U+0080-U+009F:
U+009B is a one-character escape sequence introducer), a carriage return not followed by a line feed (it
returns the cursor and lets the rest of a line overwrite what was printed), plus U+FFFE, U+FFFF and lone
surrogates. Tab, line feed and the carriage return of a CRLF line end are ordinary text."""
_ZWJ = "\u200d"
_BOM = "\ufeff"

_M = re.MULTILINE


@dataclass(frozen=True)
class _Probe:
    """One instruction-like shape, matched on the lowercased text only where a trigger word occurs.

    Scanning for a few literal words with ``str.find`` and trying the pattern only there keeps labelling
    far below a millisecond for ordinary text; ``requires`` skips the probe unless one of its fragments is
    present anywhere; ``sentence_start`` asks for the trigger to begin a sentence.
    """

    signal: str
    triggers: tuple[str, ...]
    pattern: re.Pattern[str]
    requires: tuple[str, ...] = ()
    sentence_start: bool = False


def _led(
    signal: str,
    triggers: tuple[str, ...],
    rest: str,
    requires: tuple[str, ...] = (),
    sentence_start: bool = False,
) -> _Probe:
    """A probe whose pattern opens with one of its trigger words (it is tried where one is found), then
    ``rest``."""
    lead = triggers[0] if len(triggers) == 1 else "(?:" + "|".join(triggers) + ")"
    return _Probe(signal, triggers, re.compile(lead + rest), requires, sentence_start)


_PROBES: tuple[_Probe, ...] = (
    _led(
        "override",
        ("ignore", "disregard", "forget", "skip", "override", "bypass"),
        r"\b[^.\n]{0,40}?"
        r"\b(?:previous|prior|above|earlier|preceding|all|any|the|your|system|original|these|those)\b"
        r"[^.\n]{0,30}?\b(?:instructions?|prompts?|rules|directions|guidelines|context|messages?|constraints)\b",
        requires=(
            "instruction",
            "prompt",
            "rule",
            "direction",
            "guideline",
            "context",
            "message",
            "constraint",
        ),
    ),
    _led(
        "new-instructions",
        ("new", "updated", "real", "actual", "hidden", "secret"),
        r"\s+(?:instructions?|system\s+prompt)\b",
        requires=("instruction", "prompt"),
    ),
    _led("boundary", ("begin", "end"), r"\s+(?:evidence|query)\b", requires=("evidence", "query")),
    _led(
        "boundary",
        ("<",),
        r"/?(?:evidence|excerpt|context|notice|query|system)>",
        requires=("evidence>", "excerpt>", "context>", "notice>", "query>", "system>"),
    ),
    _led(
        "addresses-model",
        ("your",),
        r"\s+(?:response|reply|answer|message|output|responses|replies|answers|messages)\b",
    ),
    _Probe(
        "addresses-model",
        ("you",),
        re.compile(
            r"(?:you\s+are|you're)\s+(?:now|no\s+longer|an?\s+(?:ai|assistant|language\s+model|chatbot|llm))\b"
        ),
    ),
    _led("addresses-model", ("as",), r"\s+an?\s+(?:ai|language\s+model|assistant|llm)\b"),
    _led("addresses-model", ("pretend",), r"\s+(?:to\s+be|you)\b"),
    _led(
        "addresses-model",
        ("reply", "respond", "answer"),
        r"\s+(?:in|using|with|only|by)\b",
        sentence_start=True,
    ),
    _led(
        "addresses-model",
        ("do",),
        r"\s+not\s+(?:tell|inform|reveal|mention)\b[^.\n]{0,30}\b(?:user|anyone|human)\b",
        requires=("not",),
    ),
    _led(
        "exfiltration",
        ("send", "forward", "email", "post", "upload", "exfiltrate", "leak", "share"),
        r"\b[^.\n]{0,60}?\b(?:to|at|with)\s+"
        r"(?:https?://|www\.|[\w.+-]+@[\w-]+\.)",
        requires=("http", "www.", "@"),
    ),
    _Probe(
        "exfiltration",
        ("visit", "click", "open", "go", "navigate"),
        re.compile(r"(?:visit|click|open|go\s+to|navigate\s+to)\b[^.\n]{0,40}?(?:https?://|www\.)"),
        requires=("http", "www."),
    ),
    _led(
        "exfiltration",
        ("run", "execute"),
        r"\s+(?:the\s+following|this)\s+(?:command|code|script)\b",
        requires=("command", "code", "script"),
    ),
    _led(
        "exfiltration",
        ("read",),
        r"\b[^.\n]{0,30}?(?:\.env\b|/etc/passwd|id_rsa|credentials)",
        requires=(".env", "/etc/passwd", "id_rsa", "credentials"),
    ),
    _led(
        "exfiltration",
        ("raise", "increase", "set", "double"),
        r"\s+(?:the\s+|your\s+)?(?:budget|max_tokens|token\s+limit)\b",
        requires=("budget", "max_tokens", "token limit"),
    ),
)
_SIGNAL_ORDER: tuple[str, ...] = (
    "override",
    "new-instructions",
    "role-line",
    "chat-template",
    "boundary",
    "addresses-model",
    "exfiltration",
)
_ROLE_LINE = re.compile(
    r"^[ \t>*#-]*(?:SYSTEM|ASSISTANT|USER|DEVELOPER|System|Assistant|Developer|Human)[ \t]*:"
    r"[ \t]*\S+(?:[ \t]+\S+){2,}",
    _M,
)
_CHAT_TEMPLATE = re.compile(
    r"<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|eot_id|start_header_id)\|>"
    r"|\[/?INST\]|<</?SYS>>|<start_of_turn>|<end_of_turn>"
)
_SENTENCE_BREAK = ".!?:\n"


def _word_start(folded: str, at: int) -> bool:
    return at == 0 or not (folded[at - 1].isalnum() or folded[at - 1] == "_")


def _starts_sentence(folded: str, at: int) -> bool:
    head = folded[:at].rstrip()
    if head.endswith("please"):
        head = head[: -len("please")].rstrip()
    return not head or head[-1] in _SENTENCE_BREAK


def _probe_hits(probe: _Probe, folded: str) -> bool:
    if probe.requires and not any(fragment in folded for fragment in probe.requires):
        return False
    for trigger in probe.triggers:
        at = folded.find(trigger)
        while at >= 0:
            if (
                _word_start(folded, at)
                and (not probe.sentence_start or _starts_sentence(folded, at))
                and probe.pattern.match(folded, at)
            ):
                return True
            at = folded.find(trigger, at + 1)
    return False


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


def _counted_invisible(text: str) -> Iterator[int]:
    """Where ``text`` holds an invisible character that counts: all but a leading byte order mark and a
    zero-width joiner between two pictographs (an emoji sequence)."""
    for match in _INVISIBLE.finditer(text):
        char, at = match.group(0), match.start()
        if char == _BOM and at == 0:
            continue
        if char == _ZWJ and _pictograph(text, at - 1) and _pictograph(text, at + 1):
            continue
        yield at


def count_invisible(text: str) -> int:
    return 0 if text.isascii() else sum(1 for _ in _counted_invisible(text))


def escape_format_characters(text: str) -> str:
    """``text`` with each bidirectional control and counted invisible character (the Trojan Source set)
    written as ``[U+XXXX]``, so a printed prompt shows what reorders or hides its text."""
    if text.isascii():
        return text
    hidden = sorted({*(m.start() for m in _BIDI.finditer(text)), *_counted_invisible(text)})
    if not hidden:
        return text
    out: list[str] = []
    cursor = 0
    for at in hidden:
        out.append(text[cursor:at])
        out.append(f"[U+{ord(text[at]):04X}]")
        cursor = at + 1
    out.append(text[cursor:])
    return "".join(out)


def _pictograph(text: str, at: int) -> bool:
    if not 0 <= at < len(text):
        return False
    char = text[at]
    return unicodedata.category(char) == "So" or "\U0001f300" <= char <= "\U0001faff" or char == "\ufe0f"


def count_bidi(text: str) -> int:
    return 0 if text.isascii() else len(_BIDI.findall(text))


def count_control(text: str) -> int:
    return len(CONTROL.findall(text))


_OPENER = re.compile(
    r"\b(?:" + _REQUEST_VERBS + r"|(?:Can|Could|Would|Will)\s+you|" + _QUESTION_OPENERS + r")\b"
)
"""A word that can open a task-phrased sentence; only sentences it opens are examined in full."""
_LEAD_ONLY = re.compile(r"[\s>*#\-\"'`(\[]*(?:\d+[.)]\s*)?(?:[Pp]lease\s+)?")
_BREAKS = ".!?\n"


def _sentence_start(text: str, at: int) -> int:
    """Where the sentence holding offset ``at`` starts (just after the previous ``.``, ``!``, ``?`` or LF)."""
    return max(text.rfind(c, 0, at) for c in _BREAKS) + 1


def _has_request(text: str) -> bool:
    for opener in _OPENER.finditer(text):
        start = _sentence_start(text, opener.start())
        if not _LEAD_ONLY.fullmatch(text, start, opener.start()):
            continue  # the word is inside a sentence, not its opener
        sentence = _SENTENCE.match(text, start)
        if sentence is not None and _is_request(sentence.group(0)):
            return True
    return False


def instruction_signals(text: str) -> tuple[str, ...]:
    """Names of the instruction-like signals in ``text`` (``request`` for task-phrased sentences)."""
    folded = text.lower()
    hits = {probe.signal for probe in _PROBES if _probe_hits(probe, folded)}
    if _ROLE_LINE.search(text):
        hits.add("role-line")
    if ("<" in text or "[" in text) and _CHAT_TEMPLATE.search(text):
        hits.add("chat-template")
    found = [name for name in _SIGNAL_ORDER if name in hits]
    if _has_request(text):
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
    control = count_control(text)
    if control:
        out.append(f"{FLAG_CONTROL}:{control}")
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
