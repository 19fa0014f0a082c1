"""What a query text names: lexical terms, code identifiers, paths and dotted module paths.

Pure functions. Issue texts name code in recognisable ways (backticks, tracebacks, dotted paths, CamelCase,
snake_case, calls); each way has its own named weight, recorded in the selection trace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from prooftext.text import STOPWORDS_V1, identifier_parts

WEIGHT_BACKTICK = 3
WEIGHT_TRACEBACK = 3
WEIGHT_DOTTED = 2
WEIGHT_CAMEL = 2
WEIGHT_SNAKE = 2
WEIGHT_CALL = 2
"""Weights of an identifier by how the query spells it; a name spelled several ways keeps the highest. A
plain word is no identifier: one that names a function (``decide``, ``stop``) was measured as noise."""

PHRASE_WINDOW = 4
"""Literal phrases are matched as runs of this many consecutive words: an error message with a value
formatted into it (``can't add 2.0*Point2D(1, 1) and a Point``) still shares its fixed runs with the code."""
MIN_RUN_WORDS = 2
MIN_RUN_WORD = 3
"""A run needs this many words of at least this many letters: ``x 5 x 4`` from a printed formula is no
literal text."""
MAX_PHRASE_RUNS = 32
"""Word runs searched per query, in first-seen order (each is one FTS5 phrase)."""
MAX_PHRASE_CHARS = 300
"""A literal is read up to this many characters (quoted strings longer than this are not literals)."""

_BACKTICK = re.compile(r"`([^`\n]{1,200})`")
_TRACEBACK_FRAME = re.compile(r'File "([^"\n]{1,300})", line (\d+)(?:, in ([A-Za-z_][A-Za-z0-9_]*))?')
_DOTTED = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\b")
_CAMEL = re.compile(r"\b([A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*)\b")
_SNAKE = re.compile(r"\b((?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]+_[A-Za-z0-9_]+)\b")
_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\(")
_WORD = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\b")
_SEARCH_WORD = re.compile(r"\w+")
MAX_PATH_PARTS = 64
"""A path the query names is read up to this many parts, each at most 255 characters (a file system's
limit): a long run of words, slashes, hyphens or dots is then read in time linear in its length (unbounded,
a 64 KiB query of ``-a-a-a`` or ``a.a.a`` took seconds to minutes)."""
_PATH = re.compile(
    rf"(?<![\w/.])((?:[\w.-]{{1,255}}/){{0,{MAX_PATH_PARTS - 1}}}[\w.-]{{1,255}}"
    r"\.(?:py|pyi|js|jsx|ts|tsx|go|rs|java|c|h|cc|cpp|hpp|rb|md|rst|txt|toml|cfg|ini|json|yaml|yml))\b"
)
_SUFFIXED_EXCEPTION = r"\b[A-Za-z_]\w*(?:Error|Exception|Warning)\b"
_ERROR_LINE = re.compile(_SUFFIXED_EXCEPTION + r":[ \t]*([^`\n]+)")
_LABELLED_LINE = re.compile(r"^[ \t]*([\w.]{1,200}):[ \t]+([^`\n]+)", re.MULTILINE)
"""A line that starts with a label and a colon: a message when the label is a severity (``ERROR:``) or an
exception's name (``httpx.InvalidURL:``), see :func:`_labelled_messages`."""
_ERROR_NAME = re.compile(_SUFFIXED_EXCEPTION + r"(?=:)")
MAX_LABEL_CHARS = 200
"""An exception's dotted module before its name is read up to this many characters."""
_SEVERITIES = frozenset({"error", "warning", "fatal", "critical"})
_EXCEPTION_NAME = re.compile(r"[A-Z][a-z0-9]+[A-Z]\w*")
_QUOTED = re.compile(r"\"([^\"\n]{8,300})\"|'([^'\n]{8,300})'")
_TRACEBACK_CODE = re.compile(r'File "[^"\n]{1,300}", line \d+[^\n]*\n[ \t]+([^\n]+)')
_HYPHENATED = re.compile(r"(?<![\w./\\-])(-{0,2})([A-Za-z][a-z0-9]*(?:-[a-z][a-z0-9]*)+)(?![\w/\\-])")
_QUOTES = ("`", "'", '"')
MIN_NAME_PARTS = 3
"""A hyphenated word of this many parts is a name (``too-many-arguments``), as is one of two written as an
option (``--collect-only``) or alone in quotes (```good-names```); two parts alone are often English
(``read-only``)."""
_FILE_EXTENSIONS = (".py", ".js", ".ts", ".go", ".rs", ".java", ".rb", ".md", ".rst")
ABBREVIATIONS = frozenset({"e.g", "i.e", "a.k.a", "n.b", "w.r.t", "et.al"})
"""Abbreviations written with dots (``e.g.``, ``i.e.``), which the dotted-name pattern would read as code:
``e.g.`` made ``e`` and ``g`` identifiers, so every symbol named ``e`` or ``g`` a definition the query
named."""


def _dotted_names(text: str) -> list[str]:
    """The dotted names of ``text`` that are code: not a file name, not an abbreviation."""
    return [
        d
        for d in _DOTTED.findall(text)
        if not d.endswith(_FILE_EXTENSIONS) and d.lower() not in ABBREVIATIONS
    ]


def search_terms(text: str) -> list[str]:
    """Terms to look up in the FTS index: whole identifiers (with ``_``) and their parts, minus stop words."""
    seen: dict[str, None] = {}
    for match in _SEARCH_WORD.finditer(text):
        word = match.group(0)
        for term in (word.lower().strip("_"), *identifier_parts(word)):
            if term and term not in STOPWORDS_V1 and not term.isdigit():
                seen.setdefault(term, None)
    return list(seen)


@dataclass(frozen=True)
class QueryAnalysis:
    terms: tuple[str, ...]
    identifiers: dict[str, int]
    paths: tuple[str, ...]
    modules: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...] = ()
    """Literal word runs the query quotes (error messages, quoted strings, traceback source lines)."""
    subject: tuple[str, ...] = ()
    """Search terms of the first line of a query of several lines: its subject (an issue's title)."""

    def to_dict(self) -> dict[str, object]:
        return {
            "terms": list(self.terms),
            "identifiers": dict(sorted(self.identifiers.items())),
            "paths": list(self.paths),
            "modules": list(self.modules),
            "phrases": [" ".join(words) for words in self.phrases],
            "subject": list(self.subject),
        }


def _add(found: dict[str, int], name: str, weight: int) -> None:
    if not name.strip("_"):
        return
    if name not in found or found[name] < weight:
        found[name] = weight


def _from_code_span(found: dict[str, int], span: str) -> None:
    for dotted in _DOTTED.findall(span):
        for part in dotted.split("."):
            _add(found, part, WEIGHT_BACKTICK)
    for word in _WORD.findall(span):
        if len(word) >= 2:
            _add(found, word, WEIGHT_BACKTICK)


def _identifiers(text: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for span in _BACKTICK.findall(text):
        _from_code_span(found, span)
    for _path, _line, func in _TRACEBACK_FRAME.findall(text):
        if func and func != "<module>":
            _add(found, func, WEIGHT_TRACEBACK)
    for dotted in _dotted_names(text):
        for part in dotted.split("."):
            _add(found, part, WEIGHT_DOTTED)
    for name in _CAMEL.findall(text):
        _add(found, name, WEIGHT_CAMEL)
    for name in _SNAKE.findall(text):
        _add(found, name, WEIGHT_SNAKE)
    for name in _CALL.findall(text):
        _add(found, name, WEIGHT_CALL)
    return found


def _paths(text: str) -> list[str]:
    out: dict[str, None] = {}
    for path, _line, _func in _TRACEBACK_FRAME.findall(text):
        out.setdefault(path.replace("\\", "/"), None)
    for path in _PATH.findall(text):
        out.setdefault(path, None)
    return list(out)


def _modules(text: str) -> list[str]:
    out: dict[str, None] = {}
    for dotted in _dotted_names(text):
        out.setdefault(dotted, None)
    return list(out)


def phrases(text: str) -> list[tuple[str, ...]]:
    """Runs of :data:`PHRASE_WINDOW` lowercase words from the literal text a query quotes: messages after
    ``SomeError:``, quoted strings and the source lines of traceback frames, then the words of each
    hyphenated name (see :func:`hyphenated_names`). Code carries these verbatim, so a run found in a node is
    evidence no bag of words gives."""
    found: list[str] = [m.group(1) for m in _ERROR_LINE.finditer(text)]
    found.extend(_labelled_messages(text))
    found.extend(m.group(1) or m.group(2) for m in _QUOTED.finditer(text))
    found.extend(m.group(1) for m in _TRACEBACK_CODE.finditer(text))
    runs: dict[tuple[str, ...], None] = {}
    for literal in dict.fromkeys(f.strip() for f in found):
        if not any(c.isspace() for c in literal):
            continue  # a path or a single token, not a phrase
        words = [w.lower() for w in _SEARCH_WORD.findall(literal[:MAX_PHRASE_CHARS])]
        window = min(PHRASE_WINDOW, len(words))  # a short message is one run
        for start in range(len(words) - window + 1):
            _add_run(runs, tuple(words[start : start + window]))
    for run in hyphenated_names(text):
        _add_run(runs, run[:PHRASE_WINDOW])
    return list(runs)[:MAX_PHRASE_RUNS]


def _labelled_messages(text: str) -> list[str]:
    """The messages of lines labelled by a severity (``ERROR: No matching distribution``, as command-line
    tools and loggers print them) or by an exception's name that does not end in ``Error``
    (``httpx.InvalidURL: Invalid port``)."""
    out: list[str] = []
    for m in _LABELLED_LINE.finditer(text):
        if _label_name(m).lower() in _SEVERITIES or _names_exception(m):
            out.append(m.group(2))
    return out


def _label_name(line: re.Match[str]) -> str:
    """The last dotted part of a labelled line's label (``InvalidURL`` of ``httpx.InvalidURL:``)."""
    return line.group(1).rsplit(".", 1)[-1]


def _names_exception(line: re.Match[str]) -> bool:
    return _EXCEPTION_NAME.fullmatch(_label_name(line)) is not None


def _module_start(text: str, start: int) -> int:
    """Where the dotted module written before the name at ``start`` begins (``rich.errors.`` before
    ``MarkupError``), or ``start``."""
    begin, floor = start, max(0, start - MAX_LABEL_CHARS)
    while begin > floor and text[begin - 1] == ".":
        left = begin - 1
        while left > floor and (text[left - 1].isalnum() or text[left - 1] == "_"):
            left -= 1
        if left == begin - 1:
            break  # a dot with no name before it
        begin = left
    return begin


def without_exception_labels(text: str) -> str:
    """``text`` with the exception names that label a message blanked out (``rich.errors.MarkupError:``,
    ``httpx.InvalidURL:``), their modules included. A traceback's last line names the exception's class and
    the module defining it, which is almost never the code to read: the code raising it is."""
    spans = [(_module_start(text, m.start()), m.end()) for m in _ERROR_NAME.finditer(text)]
    spans.extend(m.span(1) for m in _LABELLED_LINE.finditer(text) if _names_exception(m))
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def hyphenated_names(text: str) -> list[tuple[str, ...]]:
    """The words of the hyphenated names a query writes: message ids, options and configuration keys that
    code defines as string literals (``too-many-arguments``, ``--max-line-length``)."""
    names: list[tuple[str, ...]] = []
    for m in _HYPHENATED.finditer(text):
        parts = tuple(m.group(2).lower().split("-"))
        before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
        quoted = before == after and before in _QUOTES  # the name alone in quotes or backticks
        if len(parts) >= MIN_NAME_PARTS or m.group(1) or quoted:
            names.append(parts)
    return names


def _add_run(runs: dict[tuple[str, ...], None], run: tuple[str, ...]) -> None:
    if sum(len(w) >= MIN_RUN_WORD and w.isalpha() for w in run) >= MIN_RUN_WORDS:
        runs.setdefault(run, None)


def subject_terms(text: str) -> list[str]:
    """The search terms of a query's first line, when more lines follow it.

    A long issue text names many rare tokens in its examples and tracebacks; its title says in a few common
    words what it is about, and those words must not lose their place to the rare ones."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return search_terms(lines[0]) if len(lines) > 1 else []


def analyze(text: str) -> QueryAnalysis:
    """Everything the selector reads from a query text."""
    code = without_exception_labels(text)
    return QueryAnalysis(
        terms=tuple(search_terms(text)),
        identifiers=_identifiers(code),
        paths=tuple(_paths(text)),
        modules=tuple(_modules(code)),
        phrases=tuple(phrases(text)),
        subject=tuple(subject_terms(text)),
    )
