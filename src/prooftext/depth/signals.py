"""The standard tier's gates: when a turn that is neither small talk nor deep searches memory or retrieves.

Memory search runs on a recall signal: a reference to memory (``remember``, ``last time``), a first- or
second-person reference to earlier talk (``did I tell you``, ``what did we talk about``, ``you said``), a
question about the person themselves (``what's my name?``), the name of a person, place or thing that the
thread or memory mentions (:func:`names_in`), or a word of a memory record (:func:`memory_terms_in`).
Retrieval runs on a relevance signal: code or a path in the message, a code-shaped symbol name of the open
repository, words its identifiers, files and modules are made of (two or more, and at least half of the
message's content words), one of its section headings, or a question about code; when no repository's names
are known, a substantial question.

Pure functions over the message and a :class:`KnownTerms` value (what the thread, memory and index know),
which the caller builds once per thread or index. Every reason is recorded.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import prooftext.depth.smalltalk as smalltalk
from prooftext.text import CHAT_STOPWORDS_V1, STOPWORDS_V1, identifier_parts

MEMORY_REFERENCE_PHRASES: tuple[str, ...] = (
    "remember",
    "remembered",
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
    "forgot",
    "i told you",
    "did i tell you",
    "did i mention",
    "i mentioned",
    "you told me",
    "you mentioned",
    "we talked",
    "we spoke",
    "we chatted",
    "our conversation",
    "our last chat",
)
"""Phrases that refer to memory: never surface, and a recall signal for a standard turn."""

_EARLIER_TALK: tuple[tuple[str, str], ...] = (
    (
        "earlier_talk:asked_whether_said",
        r"\b(?:did|have|had|do|didn'?t|haven'?t)\s+(?:i|we|you)\s+(?:ever\s+|already\s+|just\s+)?"
        r"(?:tell|told|mention|mentioned|say|said|share|shared|talk|talked|discuss|discussed|ask|asked"
        r"|speak|spoke|chat|chatted|decide|decided|agree|agreed|bring up|brought up|show|showed|send|sent"
        r"|explain|explained|recommend|recommended|suggest|suggested|promise|promised|plan|planned)\b",
    ),
    (
        "earlier_talk:said_before",
        r"\b(?:i|we|you)\s+(?:already\s+|just\s+|once\s+)?(?:told|mentioned|said|shared|talked|discussed"
        r"|asked|spoke|chatted|decided|agreed|promised|recommended|suggested|explained|showed|sent|planned"
        r"|brought up|went over)\b",
    ),
    (
        "earlier_talk:what_we_did",
        r"\bwhat\s+(?:did|do|have|had)\s+(?:i|we|you)\s+(?:\w+\s+){0,2}(?:say|tell|talk|discuss|decide"
        r"|agree|mention|ask|plan|do|recommend|suggest)\b",
    ),
    (
        "earlier_talk:your_earlier_words",
        r"\b(?:your|my|our)\s+(?:last|previous|earlier|first|other|old)\s+(?:answer|reply|message|suggestion"
        r"|advice|question|chat|conversation|point|idea|plan|recommendation)\b",
    ),
)
"""First- and second-person references to earlier talk (a rule name, and its pattern); then
``earlier_talk:when_before`` (:func:`_when_before`)."""

_PAST_TIME = re.compile(
    r"\b(?:yesterday|last\s+(?:week|night|month|year|time|session)|the\s+other\s+day|before|ago"
    r"|a\s+while\s+back)\b",
    re.IGNORECASE,
)
"""A time in the past, before a person on its line."""

_PAST_TIME_AFTER = re.compile(
    r"(?=\b(?:yesterday|last\s+(?:week|night|month|year|session)|the\s+other\s+day|a\s+while\s+back"
    r"|\w+\s+ago)\b)",
    re.IGNORECASE,
)
"""Where a time in the past starts, after a person on its line (every start, also overlapping ones)."""

_PERSON = re.compile(r"\b(?:we|i|you)\b", re.IGNORECASE)


def _followed_on_its_line(newlines: list[int], ends: Iterable[int], starts: list[int]) -> bool:
    """Whether one of ``ends`` is followed by one of ``starts`` (ascending) with no line break between
    (``newlines``: the ascending positions of ``\\n``)."""
    for end in ends:
        after = bisect.bisect_left(starts, end)
        if after < len(starts):
            line_break = bisect.bisect_left(newlines, end)
            if line_break == len(newlines) or newlines[line_break] >= starts[after]:
                return True
    return False


def _when_before(text: str) -> bool:
    """A time in the past (``yesterday``, ``last week``, ``ago``) and ``we``, ``I`` or ``you`` on one line,
    in either order: a reference to earlier talk. Each match is found once, so the time is linear."""
    persons = list(_PERSON.finditer(text))
    if not persons:
        return False
    newlines = [m.start() for m in re.finditer("\n", text)]
    times = (m.end() for m in _PAST_TIME.finditer(text))
    if _followed_on_its_line(newlines, times, [m.start() for m in persons]):
        return True
    later = [m.start() for m in _PAST_TIME_AFTER.finditer(text)]
    return _followed_on_its_line(newlines, (m.end() for m in persons), later)


_PERSONAL_QUESTION = re.compile(
    r"\b(?:my|our|mine|ours)\b|\b(?:where|when|who|what|which|how\s+old|how\s+many|how\s+much)\s+"
    r"(?:do|did|am|was|have|had|does|is|were)\s+(?:i|we)\b|\b(?:do|did)\s+you\s+know\s+(?:me|who\s+i|my)\b",
    re.IGNORECASE,
)
"""A question about the person asking (``what's my name?``, ``where do I work?``): it needs what they said."""

_QUESTION_START = re.compile(
    r"^\s*(?:what|whats|what's|why|how|hows|how's|when|where|which|who|whom|whose|can|could|should|shall"
    r"|would|will|does|do|did|is|are|was|were|has|have|had|tell me|explain|describe)\b",
    re.IGNORECASE,
)

CODE_WORDS: tuple[str, ...] = (
    "api",
    "argument",
    "attribute",
    "bug",
    "class",
    "code",
    "codebase",
    "compile",
    "config",
    "configuration",
    "crash",
    "crashes",
    "decorator",
    "dependency",
    "deprecated",
    "deprecation",
    "docstring",
    "error",
    "exception",
    "fails",
    "failing",
    "failure",
    "file",
    "files",
    "function",
    "implementation",
    "implemented",
    "import",
    "keyword",
    "library",
    "method",
    "module",
    "package",
    "parameter",
    "raises",
    "regression",
    "repo",
    "repository",
    "return",
    "returns",
    "signature",
    "source",
    "stacktrace",
    "test",
    "tests",
    "traceback",
    "typeerror",
    "valueerror",
    "warning",
)
"""Words of a question about code: with a repository open, a relevance signal."""

RELEVANCE_MIN_CONTENT_WORDS = 4
"""A question with at least this many content words carries a relevance signal (standard turns)."""

REPOSITORY_MIN_PART_MATCHES = 2
"""Words the repository's identifiers are made of: at least this many distinct ones, and at least half of
the message's content words, make a signal."""

NAME_MIN_LENGTH = 3
"""A known name shorter than this is not matched (``Al``, ``Jo`` collide with ordinary words)."""

_IDENTIFIER = re.compile(
    r"`[^`]+`|(?<![\w-])[\w-]+\.[A-Za-z]{1,5}\b|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b"
    r"|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|(?<![\w-])[\w-]+/[\w./-]+|\b\w+\(\)|\b[a-z_]+\.[a-z_]+\b"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'’-]*")
_CAPITALIZED = re.compile(r"(?<![\w'’])([A-Z][A-Za-z0-9'’-]*[A-Za-z0-9])")
_SENTENCE_MARKS = frozenset('.!?:;\n"“”(')


def _phrase_pattern(phrases: Iterable[str]) -> re.Pattern[str]:
    body = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in phrases)
    return re.compile(rf"\b(?:{body})\b", re.IGNORECASE)


_MEMORY_REF = _phrase_pattern(MEMORY_REFERENCE_PHRASES)
_EARLIER = tuple((name, re.compile(p, re.IGNORECASE)) for name, p in _EARLIER_TALK)


def _plain(text: str) -> str:
    return text.replace("’", "'")


def memory_reference(text: str) -> str | None:
    """The first memory reference in ``text`` (a phrase, or a rule of earlier talk), or ``None``."""
    plain = _plain(text)
    found = _MEMORY_REF.search(plain)
    if found:
        return "memory_reference:" + " ".join(found.group(0).lower().split())
    for name, pattern in _EARLIER:
        if pattern.search(plain):
            return name
    return "earlier_talk:when_before" if _when_before(plain) else None


_MARK_RUN = re.compile("[?!\uff1f\uff01\u061f]+")
"""A run of question and exclamation marks: ASCII, full-width (``？``, ``！``) or Arabic (``؟``)."""
_QUESTION_MARKS = frozenset("?\uff1f\u061f")
_AFTER_MARKS = frozenset(")]}\"'\u00bb\u201d\u2019\u00bf\u00a1")
"""What may follow a question's marks: closing brackets and quotes, and the inverted marks that open the
next Spanish sentence (``?¿``, ``?¡``)."""


def _ends_question(text: str, run: re.Match[str]) -> bool:
    """Whether ``run`` (a ``_MARK_RUN`` match in ``text``) ends a question: it holds a question mark and
    the text ends, or a space, a closing bracket or quote, or an inverted mark (``¿``, ``¡``) follows it.
    A ``?`` inside a URL or code (``/search?q=1``, ``a?.b``) ends none."""
    after = run.end()
    ends = after == len(text) or text[after].isspace() or text[after] in _AFTER_MARKS
    return ends and not _QUESTION_MARKS.isdisjoint(run.group(0))


_WORD_CHAR = re.compile(r"\w")
_QUOTED = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`|\[[^\[\]\n]{0,500}\]\([^()\s]{0,2000}\)", re.DOTALL)
"""Code (a fenced block, an inline span) and a Markdown link (its text and target). Each repeat is bounded or
stops at the next opener, so blanking them stays linear in a message's length."""


def unquoted(text: str) -> str:
    """``text`` with its code and Markdown links blanked to spaces (same length, so positions hold): a mark
    inside them (``a ? b : c``, ``[why?](faq.md)``) says nothing about the message."""
    return _QUOTED.sub(lambda found: " " * len(found.group(0)), text)


def question_count(text: str) -> int:
    """The questions in ``text``: clauses holding a word that end in a run of ``?`` and ``!`` with a ``?``
    in it (ASCII or full-width), followed by the end, a space or a closing bracket or quote. A run of marks
    ends one question however long it is (``ok???``, ``really?!?``); marks with no word before them
    (``what? ??``), a ``?`` inside a URL (``/search?q=1``), inline code or a code block, and a Markdown
    link's text end none."""
    plain = unquoted(text)
    count = 0
    start = 0
    for marks in _MARK_RUN.finditer(plain):
        if _ends_question(plain, marks) and _WORD_CHAR.search(plain, start, marks.start()):
            count += 1
        start = marks.end()
    return count


def _is_question(text: str) -> bool:
    return question_count(text) > 0 or bool(_QUESTION_START.match(_plain(text)))


def word_forms(word: str) -> frozenset[str]:
    """``word`` and its fixed, crude base forms (``cookies`` → ``cookie``, ``signed`` → ``sign``,
    ``classes`` → ``class``): matched on both sides, so a plural meets a singular name."""
    forms = {word}
    for suffix, replacement in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", ""), ("d", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= NAME_MIN_LENGTH and not word.endswith("ss"):
            forms.add(word[: -len(suffix)] + replacement)
    return frozenset(forms)


def _stem(word: str) -> str:
    """The shortest of :func:`word_forms` (ties: alphabetical), for code words."""
    return min(word_forms(word), key=lambda w: (len(w), w))


def _content_words(text: str, *, small_talk: bool = True) -> list[str]:
    """Lowercased words of ``text`` that carry content: not stop words, 3+ letters, and (unless
    ``small_talk``) not words small talk is made of."""
    talk = frozenset() if small_talk else smalltalk.vocabulary()
    out: list[str] = []
    for raw in _WORD.findall(text):
        word = raw.lower().replace("’", "'").split("'")[0].strip("-")
        if len(word) >= 3 and word not in CHAT_STOPWORDS_V1 and word not in STOPWORDS_V1 and word not in talk:
            out.append(word)
    return out


def _starts_sentence(text: str, start: int) -> bool:
    """Whether ``start`` opens ``text`` or a sentence: only white space before it, or after a line break or
    one of ``. ! ? : ; " “ ” (``. Reads back over the white space alone, so a text's words cost linear time."""
    first = start
    while first > 0 and text[first - 1].isspace():
        first -= 1
    return first == 0 or text[first - 1] in _SENTENCE_MARKS or "\n" in text[first:start]


def names_in(texts: Iterable[str]) -> frozenset[str]:
    """Names of people, places and things in ``texts``: words written with a capital letter somewhere other
    than at the start of a sentence (``Caroline``, ``Paris``, ``LGBTQ``), lowercased; stop words, small-talk
    words and names shorter than :data:`NAME_MIN_LENGTH` are left out."""
    talk = smalltalk.vocabulary()
    names: set[str] = set()
    for text in texts:
        for match in _CAPITALIZED.finditer(text):
            if _starts_sentence(text, match.start()):
                continue
            word = match.group(1).replace("’", "'").split("'")[0].lower()
            if len(word) >= NAME_MIN_LENGTH and word not in STOPWORDS_V1 and word not in talk:
                names.add(word)
    return frozenset(names)


MEMORY_TERM_MIN_LENGTH = 4
"""A word of a memory record shorter than this is not one of the things memory mentions."""


def memory_terms_in(texts: Iterable[str]) -> frozenset[str]:
    """The things memory records mention: their content words of :data:`MEMORY_TERM_MIN_LENGTH` letters or
    more (``numpy``, ``journal``), lowercased; stop words and small-talk words are left out."""
    return frozenset(
        w for t in texts for w in _content_words(t, small_talk=False) if len(w) >= MEMORY_TERM_MIN_LENGTH
    )


_CODE_SHAPED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _code_shaped(name: str) -> bool:
    """A name that reads as code, not as a word: ``Blueprint``, ``url_for``, ``SecureCookie``, ``sha256``."""
    return bool(_CODE_SHAPED.match(name)) and (
        name[0].isupper() or "_" in name or any(c.isupper() or c.isdigit() for c in name[1:])
    )


@dataclass(frozen=True)
class RepositoryTerms:
    """What an open repository's index is called by: its code-shaped symbol names as written
    (``Blueprint``, ``url_for``), the words its identifiers, files and modules are made of (lowercased, with
    their base forms, :func:`word_forms`) and its section headings of two words or more."""

    symbols: frozenset[str] = frozenset()
    parts: frozenset[str] = frozenset()
    sections: frozenset[str] = frozenset()

    @classmethod
    def build(
        cls, symbols: Iterable[str], paths: Iterable[str], headings: Iterable[str] = ()
    ) -> RepositoryTerms:
        names: set[str] = set()
        parts: set[str] = set()
        for symbol in symbols:
            for piece in re.split(r"[.:]+", symbol):
                if _code_shaped(piece) and len(piece) >= NAME_MIN_LENGTH:
                    names.add(piece)
                parts.update(p.lower() for p in identifier_parts(piece))
        for path in paths:
            for component in path.split("/"):
                parts.update(p.lower() for p in identifier_parts(component.split(".")[0]))
        sections = set()
        for heading in headings:
            words = [w.lower() for w in _WORD.findall(heading)]
            if len(words) >= 2:
                sections.add(" ".join(words))
        stop = STOPWORDS_V1 | CHAT_STOPWORDS_V1 | smalltalk.vocabulary()
        forms = {f for p in parts if len(p) >= NAME_MIN_LENGTH for f in word_forms(p)}
        return cls(frozenset(names), frozenset(forms - stop), frozenset(sections))


@dataclass(frozen=True)
class KnownTerms:
    """What a turn's gates may recognise: names the thread and memory mention, and whether a repository is
    open and what it is called by."""

    names: frozenset[str] = frozenset()
    repository: RepositoryTerms | None = None
    memory: frozenset[str] = frozenset()
    """Words of the memory records (:func:`memory_terms_in`)."""

    @property
    def root_open(self) -> bool:
        return self.repository is not None


NO_KNOWN_TERMS = KnownTerms()


@dataclass(frozen=True)
class RecallSignal:
    """Whether a standard turn should search memory (``recall``) and retrieve (``relevance``), and why."""

    recall: bool
    relevance: bool
    reasons: tuple[str, ...]
    memory_reasons: tuple[str, ...] = field(default_factory=tuple)
    retrieval_reasons: tuple[str, ...] = field(default_factory=tuple)

    @property
    def passes(self) -> bool:
        return self.recall or self.relevance

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_reasons": list(self.memory_reasons),
            "passes": self.passes,
            "reasons": list(self.reasons),
            "recall": self.recall,
            "relevance": self.relevance,
            "relevance_min_content_words": RELEVANCE_MIN_CONTENT_WORDS,
            "repository_min_part_matches": REPOSITORY_MIN_PART_MATCHES,
            "retrieval_reasons": list(self.retrieval_reasons),
        }


def memory_reasons(text: str, known: KnownTerms = NO_KNOWN_TERMS) -> list[str]:
    """Why ``text`` should search memory: references to memory or earlier talk, a question about the person
    asking, names the thread or memory mention."""
    reasons: list[str] = []
    ref = memory_reference(text)
    if ref is not None:
        reasons.append(ref)
    if _is_question(text) and _PERSONAL_QUESTION.search(_plain(text)):
        reasons.append("personal_question")
    words = {w.lower().replace("’", "'").split("'")[0] for w in _WORD.findall(text)}
    named = sorted(w for w in words if w in known.names)
    if named:
        reasons.append("known_name:" + ",".join(named[:5]))
    recorded = sorted({w for w in _content_words(text, small_talk=False) if w in known.memory})
    if recorded:
        reasons.append("memory_term:" + ",".join(recorded[:5]))
    return reasons


def retrieval_reasons(text: str, known: KnownTerms = NO_KNOWN_TERMS) -> list[str]:
    """Why ``text`` should retrieve: code or a path in it, the open repository's names or identifier words,
    a question about code (with a repository open), or a substantial question."""
    reasons: list[str] = []
    if _IDENTIFIER.search(text):
        reasons.append("identifier_or_path")
    content = _content_words(text)
    repo = known.repository
    if repo is not None:
        named = sorted({w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text) if w in repo.symbols})
        if named:
            reasons.append("repository_symbol:" + ",".join(named[:5]))
        words = _content_words(text, small_talk=False)
        parts = sorted({w for w in words if word_forms(w) & repo.parts})
        if len(parts) >= REPOSITORY_MIN_PART_MATCHES and len(parts) * 2 >= len(words):
            reasons.append("repository_terms:" + ",".join(parts[:5]))
        flat = " " + " ".join(w.lower() for w in _WORD.findall(text)) + " "
        sections = sorted(h for h in repo.sections if f" {h} " in flat)
        if sections:
            reasons.append("repository_section:" + "|".join(sections[:3]))
        code = sorted({w for w in content if w in CODE_WORDS or _stem(w) in CODE_WORDS})
        if code and _is_question(text):
            reasons.append("asks_about_code:" + ",".join(code[:5]))
    elif _is_question(text) and len(content) >= RELEVANCE_MIN_CONTENT_WORDS:
        reasons.append(f"question:{len(content)}_content_words")
    return reasons


def recall_signal(text: str, known: KnownTerms = NO_KNOWN_TERMS) -> RecallSignal:
    """Both gates of a standard turn over ``text`` and what the thread, memory and index know."""
    mem = memory_reasons(text, known)
    ret = retrieval_reasons(text, known)
    reasons = [*(f"memory:{r}" for r in mem), *(f"retrieval:{r}" for r in ret)]
    if not reasons:
        reasons.append("no recall or relevance signal")
    return RecallSignal(bool(mem), bool(ret), tuple(reasons), tuple(mem), tuple(ret))
