"""Ignore rules with git's semantics, plus prooftext's own excludes.

* ``.gitignore`` files at every directory level, each relative to its own directory. For a path, the deepest
  ``.gitignore`` with a pattern matching that path decides, and inside one file the last matching pattern
  wins, so a ``!negation`` re-includes. A leading UTF-8 byte order mark is skipped, as git skips it. As in git, nothing below an ignored directory can be re-included: the walk
  records the directory as one exclusion and does not descend. Like git, a symlinked ``.gitignore`` is
  not followed (and so not used).
* ``ROOT/.prooftext/ignore`` and the configured ``exclude`` patterns, relative to the root. These only add
  exclusions: a ``.gitignore`` negation written for git does not re-include what prooftext was told to skip.
* ``.git`` and ``.prooftext`` (at any depth) are always excluded with reason ``internal``.

Directories are matched git's way: a trailing-slash pattern (``build/``) matches only directories, while
``dir/**`` matches what is inside ``dir`` but not ``dir`` itself, so ``dir/**`` with ``!dir/keep.md``
keeps ``dir/keep.md`` exactly as git does.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from pathspec import GitIgnoreSpec

from prooftext.corpus.model import REASON_IGNORE_INVALID, REASON_SYMLINK
from prooftext.corpus.safeio import GITIGNORE, Refusal, open_dir_at, printable, read_below, read_regular_at
from prooftext.corpus.stores import STORE_DIR
from prooftext.errors import ConfigError

GIT_DIR = ".git"
INTERNAL_NAMES = frozenset({GIT_DIR, STORE_DIR})
INTERNAL_SHORT_NAMES = frozenset({"git~1", "prooft~1"})
"""8.3 short names under which Windows file systems also reach the internal directories."""
PROOFTEXT_IGNORE = f"{STORE_DIR}/ignore"
MAX_IGNORE_BYTES = 1 << 20
"""An ignore file larger than this is refused (and its directory with it) rather than read unbounded."""

PATTERN_ERRORS: tuple[type[Exception], ...] = (ValueError, re.error)
"""What compiling an invalid pattern raises: pathspec rejects some patterns itself (a lone ``\\``) with a
ValueError, but lets ``re`` reject others (a reversed range such as ``[z-a]``), and ``re.error`` is not one."""

_ESCAPED_SPACE = "\\ "


def pattern_problem(exc: Exception) -> str:
    """Why a pattern does not compile, in the pattern's terms: a regular expression's error without its
    position, which counts in the expression the pattern was translated to, not in the pattern."""
    return exc.msg if isinstance(exc, re.error) else str(exc)


def is_internal(name: str) -> bool:
    """The internal directories under every spelling git itself refuses (``verify_dotfile``): any case,
    trailing spaces or dots (dropped by NTFS), and 8.3 short names."""
    folded = name.rstrip(" .").lower()
    return folded in INTERNAL_NAMES or folded in INTERNAL_SHORT_NAMES


def _strip_trailing_spaces(line: str) -> str:
    # git drops trailing spaces unless the last one is escaped with a backslash. One rstrip, not a loop
    # of slices: a 1 MiB run of spaces would otherwise be copied once per space.
    stripped = line.rstrip(" ")
    if len(stripped) < len(line) and stripped.endswith("\\"):
        return stripped + " "
    return stripped


_BOM = "\ufeff"


def _lines(text: str) -> list[str]:
    # A leading byte order mark (an editor's UTF-8 signature) is not part of the first pattern: git skips it.
    lines = text.removeprefix(_BOM).split("\n")
    return [_strip_trailing_spaces(line.removesuffix("\r")) for line in lines]


def _directory_form(line: str) -> str:
    """The pattern as asked about a directory path given without a trailing slash."""
    return line[:-1] if line.endswith("/") else line


# --- matching -------------------------------------------------------------------------------------------
#
# pathspec parses the patterns (so an invalid one fails exactly as before) and translates each into a
# regex; the decision rules of its GitIgnoreSpec (the last match wins, and a match through a directory
# mark ranks below a match of the path itself) are applied here. Python's re backtracks: ``*a*a*a*a*b``
# becomes ``[^/]*a[^/]*a...`` and takes exponential time on a long name of ``a``s. A regex with at most
# _MAX_RE_REPEATS unbounded repeats still runs on re (two repeats backtrack at most quadratically, over a
# path the walk bounds to MAX_PATH_BYTES, and most paths are rejected by one combined regex); any other
# runs as a program on _run, which explores the same alternatives in the same order as re but never one
# (instruction, offset) state twice, and decides a whole segment (``*a*a*b``) with one fullmatch that
# never backtracks.

_MAX_RE_REPEATS = 2
"""Unbounded repeats (``*``, a ``*`` segment, a leading or inner ``**``) a pattern may hold and still be
matched by Python's re; a pattern with more runs on the memoized matcher."""

NO_MATCH = 0
DIRECTORY_MATCH = 1
"""Matched through pathspec's directory mark (the pattern names a directory above the path)."""
PATH_MATCH = 2
"""Matched the path itself: outranks a directory match, as in pathspec's GitIgnoreSpec."""

_DIR_MARK = "ps_d"
"""pathspec's group name for a match that ended at a directory separator."""

# The pieces of the regexes pathspec's GitIgnoreSpecPattern emits. Anything else in them is a bracket
# expression copied from the pattern or a character escaped with re.escape.
_END_OR_DIRECTORY = "(?:(?P<ps_d>/)|$)"
_DIRECTORY = "(?P<ps_d>/)"
_LEADING_DOUBLE_STAR = "(?:.+/)?"
_INNER_DOUBLE_STAR = "(?:/.+)?"
_STAR = "[^/]*"
_STAR_SEGMENT = "[^/]+"
_ONE = "[^/]"
_PIECES = (
    _END_OR_DIRECTORY,
    _DIRECTORY,
    _LEADING_DOUBLE_STAR,
    _INNER_DOUBLE_STAR,
    _STAR,
    _STAR_SEGMENT,
    _ONE,
)
_REPEATS = (_LEADING_DOUBLE_STAR, _INNER_DOUBLE_STAR, _STAR, _STAR_SEGMENT)
_REGEX_SPECIALS = frozenset(".^$*+?{}[]|()\\")
_SEPARATOR = "/"


@dataclass(frozen=True)
class _Token:
    """One piece of a pathspec regex: its source, and for a literal its character, for a bracket
    expression its compiled one-character regex."""

    source: str
    char: str = ""
    expression: re.Pattern[str] | None = None

    def in_segment(self) -> bool:
        """Can only match inside one path segment (never a separator)?"""
        if self.source in (_STAR, _STAR_SEGMENT, _ONE):
            return True
        if self.expression is not None:
            return self.expression.match(_SEPARATOR) is None
        return bool(self.char) and self.char != _SEPARATOR


def _tokens(regex: str) -> list[_Token] | None:
    """The pieces of pathspec's anchored ``regex``, or None for a regex outside the shapes it emits."""
    if not regex.startswith("^"):
        return None
    tokens: list[_Token] = []
    i, end = 1, len(regex)
    while i < end:
        piece = next((piece for piece in _PIECES if regex.startswith(piece, i)), None)
        if piece is not None:
            tokens.append(_Token(piece))
            i += len(piece)
        elif regex[i] == "[":
            # A bracket expression as pathspec copies it: "[", an optional "^", an optional leading "]"
            # (a literal), then everything up to the next "]" (its backslashes come doubled).
            close = i + 1
            if regex.startswith("^", close):
                close += 1
            if regex.startswith("]", close):
                close += 1
            close = regex.find("]", close)
            if close < 0:
                return None
            source = regex[i : close + 1]
            try:
                tokens.append(_Token(source, expression=re.compile(source)))
            except re.error:
                return None
            i = close + 1
        elif regex[i] == "\\" and i + 1 < end and not regex[i + 1].isalnum():
            tokens.append(_Token(regex[i : i + 2], regex[i + 1]))  # re.escape's: a special character
            i += 2
        elif regex[i] in _REGEX_SPECIALS:
            return None
        else:
            tokens.append(_Token(regex[i], regex[i]))
            i += 1
    if any(token.source in (_END_OR_DIRECTORY, _DIRECTORY) for token in tokens[:-1]):
        return None  # the directory mark ends every regex pathspec emits
    return tokens


def _needs_separator(tokens: list[_Token], at: int) -> bool:
    """Does whatever follows ``tokens[at:]`` start with a separator, or with the end of the path?"""
    if at >= len(tokens):
        return False
    token = tokens[at]
    if token.source == _INNER_DOUBLE_STAR:
        return at + 1 < len(tokens) and tokens[at + 1].char == _SEPARATOR
    return token.source in (_END_OR_DIRECTORY, _DIRECTORY) or token.char == _SEPARATOR


def _segment_regex(tokens: list[_Token]) -> re.Pattern[str]:
    """A regex that fullmatches one segment text exactly when ``tokens`` do, in linear time.

    Between stars every piece matches one character, so the pieces between two stars can be placed at
    their leftmost occurrence: any later placement leaves the rest less room. Each such placement is an
    atomic group (``(?>[^/]*?...)``), so re never goes back to try another one.
    """
    chunks: list[list[str]] = [[]]
    for token in tokens:
        if token.source == _STAR:
            chunks.append([])
        elif token.source == _STAR_SEGMENT:
            chunks[-1].append(_ONE)
            chunks.append([])
        else:
            chunks[-1].append(token.source)
    texts = ["".join(chunk) for chunk in chunks]
    if len(texts) == 1:
        return re.compile(texts[0])
    middle = "".join(f"(?>{_STAR}?{text})" for text in texts[1:-1])
    return re.compile(texts[0] + middle + _STAR + texts[-1])


# Instructions of the memoized matcher: (opcode, character, regex, next, alternative).
_OP_LITERAL = 0  # the character
_OP_NOT = 1  # any one character but this one: ``[^/]``, or re's ``.`` (anything but a newline)
_OP_REPEAT = 2  # greedy ``[^/]*`` or ``.*`` (the character is the one excluded): longest first, as re
_OP_CLASS = 3  # one character the bracket expression accepts
_OP_SEGMENT = 4  # the regex fullmatches the text up to the next separator (or the end)
_OP_LEADING = 5  # a leading ``(?:.+/)?``: after each separator, the last one first, then here
_OP_INNER = 6  # an inner ``(?:/.+)?/``: after each later separator, the last one first, then this one
_OP_SPLIT = 7  # try ``next``, then ``alternative``: re's order for ``(?:...)?`` and ``(?:A|B)``
_OP_END = 8  # re's ``$``: the end, or just before a final newline
_OP_MATCH_DIRECTORY = 9
_OP_MATCH_PATH = 10

_Instruction = tuple[int, str, "re.Pattern[str] | None", int, int]


def _op(op: int, char: str, follow: int, alternative: int = -1) -> _Instruction:
    return (op, char, None, follow, alternative)


def _piece_program(token: _Token, at: int) -> list[_Instruction]:
    """The instructions for one token placed at ``at``; each continues at the one after them."""
    if token.source == _END_OR_DIRECTORY:
        return [
            _op(_OP_SPLIT, "", at + 1, at + 3),
            _op(_OP_LITERAL, _SEPARATOR, at + 2),
            _op(_OP_MATCH_DIRECTORY, "", -1),
            _op(_OP_END, "", at + 4),
            _op(_OP_MATCH_PATH, "", -1),
        ]
    if token.source == _DIRECTORY:
        return [_op(_OP_LITERAL, _SEPARATOR, at + 1), _op(_OP_MATCH_DIRECTORY, "", -1)]
    if token.source == _LEADING_DOUBLE_STAR:
        return [_op(_OP_LEADING, "", at + 1)]
    if token.source == _INNER_DOUBLE_STAR:
        return [
            _op(_OP_SPLIT, "", at + 1, at + 4),
            _op(_OP_LITERAL, _SEPARATOR, at + 2),
            _op(_OP_NOT, "\n", at + 3),
            _op(_OP_REPEAT, "\n", at + 4),
        ]
    if token.source == _STAR:
        return [_op(_OP_REPEAT, _SEPARATOR, at + 1)]
    if token.source == _STAR_SEGMENT:
        return [_op(_OP_NOT, _SEPARATOR, at + 1), _op(_OP_REPEAT, _SEPARATOR, at + 2)]
    if token.source == _ONE:
        return [_op(_OP_NOT, _SEPARATOR, at + 1)]
    if token.expression is not None:
        return [(_OP_CLASS, "", token.expression, at + 1, -1)]
    return [_op(_OP_LITERAL, token.char, at + 1)]


def _compile_program(regex: str) -> tuple[tuple[_Instruction, ...], tuple[str, ...]] | None:
    """pathspec's anchored ``regex`` as matcher instructions, with its literal runs in order (a match holds
    each, so a path missing one is rejected without running the matcher); None for a regex outside the
    shapes pathspec emits, which then stays on re."""
    tokens = _tokens(regex)
    if tokens is None:
        return None
    program: list[_Instruction] = []
    i = 0
    while i < len(tokens):
        at = len(program)
        stop = i
        while stop < len(tokens) and tokens[stop].in_segment():
            stop += 1
        if stop > i and _needs_separator(tokens, stop):
            # A whole segment: what follows needs a separator (or the end), so the segment can only end
            # at the next one and is decided by one fullmatch.
            program.append((_OP_SEGMENT, "", _segment_regex(tokens[i:stop]), at + 1, -1))
            i = stop
        elif tokens[i].source == _INNER_DOUBLE_STAR and _needs_separator(tokens, i):
            program.append(_op(_OP_INNER, "", at + 1))  # with the separator that always follows it
            i += 2
        else:
            program += _piece_program(tokens[i], at)
            i += 1
    if not program or program[-1][0] not in (_OP_MATCH_DIRECTORY, _OP_MATCH_PATH):
        program.append(_op(_OP_MATCH_PATH, "", -1))
    literals: list[str] = []
    run: list[str] = []
    for token in [*tokens, _Token(_STAR)]:
        if token.char:
            run.append(token.char)
        elif run:
            literals.append("".join(run))
            run = []
    return tuple(program), tuple(literals)


def _push_directories(stack: list[int], leading: bool, path: str, pos: int, base: int) -> None:
    """The states after a run of whole directories at ``pos``: a leading ``(?:.+/)?`` when ``leading``, else
    an inner ``(?:/.+)?/`` (``base`` is the next instruction's first state). ``.+`` stops before a newline, and its
    greedy repeat tries the furthest separator first: pushed last, so popped first. The skipped group comes
    last (pushed first)."""
    size = len(path)
    if leading:
        stack.append(base + pos)
        first = pos + 1
    elif pos < size and path[pos] == _SEPARATOR:
        stack.append(base + pos + 1)
        first = pos + 2
    else:
        return
    limit = path.find("\n", first - 1)
    separator = path.find(_SEPARATOR, first, size if limit < 0 else limit)
    while separator >= 0:
        stack.append(base + separator + 1)
        separator = path.find(_SEPARATOR, separator + 1, size if limit < 0 else limit)


def _push_segment(stack: list[int], expression: re.Pattern[str], path: str, pos: int, base: int) -> None:
    """The state after one path segment at ``pos`` that ``expression`` matches whole: what follows needs a
    separator, the end, or (re's ``$``) the end less a final newline."""
    size = len(path)
    stop = path.find(_SEPARATOR, pos)
    if stop >= 0:
        if expression.fullmatch(path, pos, stop):
            stack.append(base + stop)
        return
    if pos < size and path[-1] == "\n" and expression.fullmatch(path, pos, size - 1):
        stack.append(base + size - 1)
    if expression.fullmatch(path, pos, size):
        stack.append(base + size)


def _run(program: tuple[_Instruction, ...], path: str) -> int:
    """NO_MATCH, DIRECTORY_MATCH or PATH_MATCH: what ``re.match`` finds with the regex compiled into
    ``program``. A depth-first search in re's order of alternatives, so its first success is re's match;
    but a state (instruction, offset) reached again has already failed (nothing captured can change an
    outcome, and every loop consumes a character), so it is not explored twice: the work is at most
    len(program) * (len(path) + 1) states, where re's backtracking is exponential in the stars."""
    size = len(path)
    width = size + 1
    seen: set[int] = set()
    stack = [0]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        pc, pos = divmod(state, width)
        op, char, expression, follow, alternative = program[pc]
        if op == _OP_REPEAT:
            stack.append(follow * width + pos)
            if pos < size and path[pos] != char:
                stack.append(state + 1)  # one more character first: the repeat is greedy
        elif op in (_OP_LEADING, _OP_INNER):
            _push_directories(stack, op == _OP_LEADING, path, pos, follow * width)
        elif op == _OP_SPLIT:
            stack.append(alternative * width + pos)
            stack.append(follow * width + pos)
        elif op == _OP_SEGMENT and expression is not None:
            _push_segment(stack, expression, path, pos, follow * width)
        elif op == _OP_MATCH_PATH:
            return PATH_MATCH
        elif op == _OP_MATCH_DIRECTORY:
            return DIRECTORY_MATCH
        elif op == _OP_END:
            if pos == size or (pos == size - 1 and path[pos] == "\n"):
                stack.append(follow * width + pos)
        elif pos < size:
            here = path[pos]
            if (
                (here == char if op == _OP_LITERAL else here != char)
                if expression is None
                else expression.match(here) is not None
            ):
                stack.append(follow * width + pos + 1)
    return NO_MATCH


@dataclass(frozen=True)
class _Glob:
    """One pattern that matches something: re's compiled regex, or the matcher program built from it."""

    include: bool
    regex: re.Pattern[str]
    program: tuple[_Instruction, ...] | None = None
    literals: tuple[str, ...] = ()
    line: int = 0
    """The pattern's index among the lines it was compiled from."""

    @classmethod
    def of(cls, include: bool, regex: re.Pattern[str]) -> _Glob:
        if sum(regex.pattern.count(repeat) for repeat in _REPEATS) <= _MAX_RE_REPEATS:
            return cls(include, regex)
        compiled = _compile_program(regex.pattern)
        if compiled is None:
            return cls(include, regex)
        return cls(include, regex, *compiled)

    def at_start(self, path: str) -> bool:
        """Does the regex match at the start of ``path`` (``re.match``)?"""
        if self.program is None:
            return self.regex.match(path) is not None
        return self.search(path) != NO_MATCH

    def search(self, path: str) -> int:
        """pathspec's test (``re.search``): NO_MATCH, DIRECTORY_MATCH or PATH_MATCH."""
        if self.program is None:
            found = self.regex.search(path)
            if found is None:
                return NO_MATCH
            return DIRECTORY_MATCH if found.groupdict().get(_DIR_MARK) else PATH_MATCH
        at = 0
        for literal in self.literals:
            at = path.find(literal, at)
            if at < 0:
                return NO_MATCH
            at += len(literal)
        # A program is only built for a regex anchored with "^", where search and match agree.
        return _run(self.program, path)


@dataclass(frozen=True)
class Globs:
    """Compiled gitignore-style patterns, decided as pathspec's GitIgnoreSpec decides them."""

    globs: tuple[_Glob, ...]
    quick: re.Pattern[str] | None
    """One regex matching where any re-backed pattern matches at the start: most paths match none."""
    unfiltered: bool = False
    """The re-backed patterns could not be combined into ``quick``: every path is decided in full."""
    programs: tuple[_Glob, ...] = ()
    """The patterns that run on the memoized matcher instead, tried when ``quick`` does not match."""

    @classmethod
    def compile(cls, lines: Iterable[str]) -> Globs:
        """Raises one of PATTERN_ERRORS for an invalid pattern, as pathspec does."""
        with warnings.catch_warnings():
            # A "[[" or "&&" in a bracket expression is literal, in git as in this Python; a FutureWarning
            # that a later Python may read it otherwise would only reach the user's terminal.
            warnings.simplefilter("ignore", FutureWarning)
            return cls._compile(list(lines))

    @classmethod
    def _compile(cls, lines: list[str]) -> Globs:
        # pathspec drops an empty line; a comment in its place keeps one pattern per line (see _Glob.line).
        spec = GitIgnoreSpec.from_lines([line or "#" for line in lines])
        globs: list[_Glob] = []
        for line, pattern in enumerate(spec.patterns):
            # A pattern without an outcome (a comment, a blank line) takes no part, as in pathspec.
            if pattern.include is not None and isinstance(pattern.regex, re.Pattern):
                globs.append(replace(_Glob.of(pattern.include, pattern.regex), line=line))
        on_re = [glob.regex for glob in globs if glob.program is None]
        quick = _any_of(on_re)
        programs = tuple(glob for glob in globs if glob.program is not None)
        return cls(tuple(globs), quick, quick is None and bool(on_re), programs)

    def any_at_start(self, path: str) -> bool:
        """Does any pattern match at the start of ``path`` (``re.match``, not pathspec's search)?"""
        if self.unfiltered or (self.quick is not None and self.quick.match(path) is not None):
            return True
        return any(glob.at_start(path) for glob in self.programs)

    def decide(self, path: str, *, through_directories: bool = True) -> bool | None:
        """True included (ignored), False negated, None when no pattern matches: pathspec's
        ``check_file(path).include``. From the last pattern back, the first one matching the path
        itself decides; failing that (unless not ``through_directories``), the last one matching through
        a directory mark."""
        glob = self.deciding(path, through_directories=through_directories)
        return None if glob is None else glob.include

    def deciding(self, path: str, *, through_directories: bool = True) -> _Glob | None:
        """The pattern that :meth:`decide` goes by, or None."""
        if path.startswith("/"):
            path = path[1:]
        elif path.startswith("./"):
            path = path[2:]
        decided: _Glob | None = None
        rank = NO_MATCH if through_directories else DIRECTORY_MATCH
        for glob in reversed(self.globs):
            found = glob.search(path)
            if found > rank:
                decided, rank = glob, found
            if found == PATH_MATCH:
                break
        return decided


_ANY_DIRECTORY = "^(?:.+/)?"
"""How pathspec starts the regex of a pattern without a slash (``*.pyc``, ``build/``): at any depth."""


def _top_level_branch(pattern: str) -> bool:
    """Whether ``pattern`` holds a ``|`` outside every group and character class."""
    depth = 0
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i += 1
            if i < len(pattern) and pattern[i] == "^":
                i += 1
            if i < len(pattern) and pattern[i] == "]":
                i += 1  # a leading "]" is a member, not the end
            while i < len(pattern) and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
        i += 1
    return False


def _any_of(regexes: Iterable[re.Pattern[str]]) -> re.Pattern[str] | None:
    """The alternation of the regexes, or None when there are none or they cannot be combined safely.

    The patterns that match at any depth share their prefix ``^(?:.+/)?``: one alternation after it,
    rather than one prefix per pattern, tries each directory boundary of a path once instead of once per
    pattern (a third of a walk of sphinx, whose ``.gitignore`` has 30 such patterns). Either form matches
    at the start of the same paths: a path has a prefix some pattern matches after some boundary."""
    anywhere: list[str] = []
    parts: list[str] = []
    for regex in regexes:
        if regex.flags & ~re.UNICODE:
            return None
        # Named groups would collide across alternatives; they only report what matched, so drop them.
        pattern = re.sub(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>", "(", regex.pattern)
        rest = pattern.removeprefix(_ANY_DIRECTORY)
        if rest != pattern and not _top_level_branch(rest):
            anywhere.append("(?:" + rest + ")")
        else:
            parts.append("(?:" + pattern + ")")
    if anywhere:
        parts.insert(0, "(?:" + _ANY_DIRECTORY + "(?:" + "|".join(anywhere) + "))")
    if not parts:
        return None
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None


_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \t",
    "cntrl": "\x01-\x1f\x7f",
    "digit": "0-9",
    "graph": "0-~!-.",
    "lower": "a-z",
    "print": " -.0-~",
    "punct": ":-@!-.[-`{-~",
    "space": " \t\n\r\x0b\x0c",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}
"""git's character classes (``[[:digit:]]``), as the ASCII ranges its wildmatch tests: pathspec would end the
bracket expression at the class's own ``]``, so ``[[:digit:]]*.log`` ignored nothing. No range holds ``/``,
which no name holds and which would cut the pattern into two segments, and none starts with ``!``, which
would negate a bracket it opens."""


def _class_end(line: str, start: int) -> int:
    """The index of the ``]`` closing the character class ``[:name:]`` opened at ``start``, or -1: as in
    git, a class runs to the first ``]`` and is one only if a ``:`` and a name come before it; otherwise
    its ``[`` is a member like any other."""
    close = line.find("]", start + 2)
    return close if close >= start + 3 and line[close - 1] == ":" else -1


def _bracket_end(line: str, start: int) -> int:
    """The index of the ``]`` closing the bracket expression opened at ``start``, or -1 (a literal ``[``)."""
    j = start + 1
    if j < len(line) and line[j] in "!^":
        j += 1
    if j < len(line) and line[j] == "]":
        j += 1
    while j < len(line) and line[j] != "]":
        if line.startswith("[:", j):
            close = _class_end(line, j)
            j = close + 1 if close > 0 else j + 1
        else:
            j += 2 if line[j] == "\\" else 1
    return j if j < len(line) else -1


def _with_classes(expression: str) -> str:
    """A bracket expression with each ``[:name:]`` written as its ranges; ValueError for an unknown one."""

    def ranges(found: re.Match[str]) -> str:
        name = found.group(1)
        if name not in _POSIX_CLASSES:
            raise ValueError(f"unknown character class [:{name}:]")
        return _POSIX_CLASSES[name]

    return re.sub(r"\[:([^\]]*):\]", ranges, expression)


def posix_classes(line: str) -> str:
    """``line`` with its bracket expressions written as pathspec reads them: character classes written out
    (see :data:`_POSIX_CLASSES`), and a bracket holding a backslash rewritten without one (see
    :func:`_unescaped_bracket`). An unknown class is a ValueError, an invalid pattern like ``[z-a]``."""
    if "[:" not in line and not ("[" in line and "\\" in line):
        return line
    out: list[str] = []
    i = 0
    while i < len(line):
        char = line[i]
        end = _bracket_end(line, i) if char == "[" else -1
        if end < 0:
            step = 2 if char == "\\" else 1
            out.append(line[i : i + step])
            i += step
            continue
        expression = line[i : end + 1]
        out.append(_unescaped_bracket(expression) if "\\" in expression else _with_classes(expression))
        i = end + 1
    return "".join(out)


_BRACKET_SPECIALS = frozenset("]^!-[\\")
"""Characters whose place in a bracket expression changes what pathspec or Python's ``re`` make of them."""
_LAST_IN_BRACKET = "!^[-"
"""Members written after every other one, in this order: ``!`` or ``^`` first would negate the bracket,
``[`` before ``:`` would open a class, ``-`` anywhere but last would make a range."""


def _bracket_members(body: str) -> tuple[set[str], list[tuple[str, str]]]:
    """The single characters and ranges of a bracket expression's body, read as git's wildmatch reads it: a
    backslash makes the next character a member, ``-`` between two members makes a range (an escaped end
    included), ``[:name:]`` adds its class."""
    singles: set[str] = set()
    ranges: list[tuple[str, str]] = []
    previous = ""
    i = 0
    while i < len(body):
        char = body[i]
        if char == "-" and previous and i + 1 < len(body):
            i += 2 if body[i + 1] == "\\" else 1
            ranges.append((previous, body[i]))
            previous = ""
        elif body.startswith("[:", i) and _class_end(body, i) > 0:
            close = _class_end(body, i)
            class_singles, class_ranges = _bracket_members(_with_classes(body[i : close + 1]))
            singles |= class_singles
            ranges.extend(class_ranges)
            i = close
            previous = ""
        else:
            i += 1 if char == "\\" else 0
            previous = body[i]
            singles.add(previous)
        i += 1
    return singles, ranges


def _plain_range(low: str, high: str, singles: set[str]) -> str:
    """The range ``low``-``high`` written with no special character at either end: those ends move to
    ``singles``, and what is left of the range is returned ("" when nothing is)."""
    while low <= high and low in _BRACKET_SPECIALS:
        singles.add(low)
        low = chr(ord(low) + 1)
    while low <= high and high in _BRACKET_SPECIALS:
        singles.add(high)
        high = chr(ord(high) - 1)
    return "" if low > high else f"{low}-{high}"


def _unescaped_bracket(expression: str) -> str:
    """A bracket expression holding backslashes written without them, since pathspec takes a backslash in
    a bracket for a member where git takes it for an escape (``[\\]]`` is git's ``]``, and pathspec ended
    the bracket at the escaped ``]``). A range ending in a character that means something in a bracket is
    written without that end (see :func:`_plain_range`); one reversed is a ValueError, like ``[z-a]``."""
    negated = expression[1] in "!^"
    singles, ranges = _bracket_members(expression[2 if negated else 1 : -1])
    plain: list[str] = []
    for low, high in ranges:
        if low > high:
            raise ValueError(f"reversed range {low}-{high}")
        plain.append(_plain_range(low, high, singles))
    plain = [written for written in plain if written]
    if not negated and not plain and len(singles) == 1:
        return "\\" + next(iter(singles))
    ordered = sorted(singles - {"]"}, key=lambda member: (_LAST_IN_BRACKET.find(member), member))
    body = "".join((["]"] if "]" in singles else []) + plain + ordered)
    if not negated and body[0] in "!^":
        lead = next((member for member in "-[" if member in singles), "")
        if not lead:
            return expression  # only "!" and "^" are members: no order keeps pathspec from negating
        body = lead + body.replace(lead, "")
    return ("[!" if negated else "[") + body + "]"


@dataclass(frozen=True)
class PatternSet:
    """The patterns of one ignore source, compiled once for files and once for directories."""

    files: Globs
    directories: Globs
    lines: tuple[str, ...] = ()
    """The patterns as written, for the detail of an exclusion (see :meth:`describe`)."""
    where: tuple[str, ...] = ()
    """Where each line comes from (``pkg/.gitignore line 3``), aligned with :attr:`lines`."""

    @classmethod
    def from_lines(cls, lines: Iterable[str], where: Sequence[str] = ()) -> PatternSet:
        written = tuple(lines)
        patterns = [_git_pattern(line) for line in written]
        directories = Globs.compile([_directory_form(line) for line in patterns])
        return cls(Globs.compile(patterns), directories, written, tuple(where))

    def deciding(self, rel_path: str, is_dir: bool) -> _Glob | None:
        """The pattern that ignores (``include``) or re-includes the path, None when none matches the path
        itself.

        As in git, a pattern that matches only a directory above the path takes no part: the walk asked
        about that directory before entering it, and a directory it entered was not ignored (a deeper
        ``.gitignore`` or a negation re-included it), so nothing inside is ignored through it, and a
        negated directory (``!keep/``) re-includes the directory, not the files a shallower rule ignores."""
        globs = self.directories if is_dir else self.files
        if not globs.any_at_start(rel_path):
            return None
        return globs.deciding(rel_path, through_directories=False)

    def check(self, rel_path: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included by a negation, None when no pattern matches the path itself."""
        glob = self.deciding(rel_path, is_dir)
        return None if glob is None else glob.include

    def describe(self, glob: _Glob) -> str:
        """Which line of which file ``glob`` is, and its pattern (shown printable, cut at 80 characters)."""
        where = self.where[glob.line] if glob.line < len(self.where) else f"line {glob.line + 1}"
        return f"{where}: {printable(self.lines[glob.line])[:_SHOWN_PATTERN_CHARS]}"


_SHOWN_PATTERN_CHARS = 80

_NEGATION = "!"


def _git_pattern(line: str) -> str:
    """``line`` as pathspec should read it to decide as git does: its character classes written out, and a
    lone ``!`` (a negation of nothing, which git takes for a pattern matching nothing) as a comment."""
    return "#" if line == _NEGATION else posix_classes(line)


def _numbered(source: str, count: int) -> list[str]:
    return [f"{source} line {number}" for number in range(1, count + 1)]


def _first_invalid(lines: list[str]) -> str:
    """Which line of an ignore file does not compile, and why (the file as a whole failed to)."""
    for number, line in enumerate(lines, start=1):
        try:
            PatternSet.from_lines([line])
        except PATTERN_ERRORS as exc:
            return f"line {number}, {line[:80]!r}, is not a valid pattern ({pattern_problem(exc)})"
    return "its patterns do not compile together"


@dataclass(frozen=True)
class IgnoreMatcher:
    """Ignore state for one directory of the walk: prooftext's excludes plus the ``.gitignore`` chain."""

    extra: PatternSet | None = None
    frames: tuple[tuple[str, PatternSet], ...] = ()
    """(directory prefix ending in ``/`` or ``""`` for the root, its patterns), shallowest first."""

    def with_gitignore(self, directory: str, text: str) -> IgnoreMatcher:
        prefix = f"{directory}/" if directory else ""
        lines = _lines(text)
        try:
            patterns = PatternSet.from_lines(lines, _numbered(f"{prefix}{GITIGNORE}", len(lines)))
        except PATTERN_ERRORS:
            raise Refusal(REASON_IGNORE_INVALID, f"{prefix}{GITIGNORE}: {_first_invalid(lines)}") from None
        return IgnoreMatcher(self.extra, (*self.frames, (prefix, patterns)))

    def is_ignored(self, path: str, is_dir: bool) -> bool:
        return self.why_ignored(path, is_dir) is not None

    def why_ignored(self, path: str, is_dir: bool) -> str | None:
        """The file, line and pattern that ignore ``path``; None when it is not ignored."""
        if self.extra is not None:
            glob = self.extra.deciding(path, is_dir)
            if glob is not None and glob.include:
                return self.extra.describe(glob)
        for prefix, patterns in reversed(self.frames):
            glob = patterns.deciding(path[len(prefix) :], is_dir)
            if glob is not None:
                return patterns.describe(glob) if glob.include else None
        return None


def load_gitignore(dir_fd: int, directory: str) -> str | None:
    """The text of ``directory/.gitignore`` read through ``dir_fd``; None when absent, a symlink or a
    directory (as in git, a directory of that name holds no patterns, and the walk enters it).

    Any other failure raises :class:`Refusal`: adopting files that a ``.gitignore`` we could not read
    meant to hide (build output, local secrets) would fail open.
    """
    what = f"{directory}/{GITIGNORE}" if directory else GITIGNORE
    try:
        data = read_regular_at(dir_fd, GITIGNORE, MAX_IGNORE_BYTES)
    except Refusal as refusal:
        if refusal.missing or refusal.reason == REASON_SYMLINK or _is_directory_at(dir_fd, GITIGNORE):
            return None
        raise Refusal(refusal.reason, f"{what}: {refusal.detail}", refusal.errno) from None
    # Undecodable bytes stay as surrogate escapes, so they can match only the equally undecodable names.
    return data.decode("utf-8", "surrogateescape")


def _is_directory_at(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _prooftext_ignore_lines(root_fd: int) -> list[str]:
    try:
        data = read_below(root_fd, PROOFTEXT_IGNORE, MAX_IGNORE_BYTES)
    except Refusal as refusal:
        if refusal.missing:
            return []
        raise ConfigError(
            f"{PROOFTEXT_IGNORE} cannot be read ({refusal.reason}): {refusal.detail}", file=PROOFTEXT_IGNORE
        ) from None
    return _lines(data.decode("utf-8", "surrogateescape"))


def ignored_below(root_fd: int, parts: Sequence[str], matcher: IgnoreMatcher) -> bool:
    """Whether the file at ``parts`` below the root is ignored, as the walk decides it: by ``matcher`` (the
    root's excludes) and the ``.gitignore`` of each directory on its way, an ignored directory ignoring all
    below it. A directory that does not exist (yet) ends the way: no deeper ignore file can exist. An ignore
    file that cannot be read raises :class:`Refusal`."""
    fd = os.dup(root_fd)
    try:
        for depth, part in enumerate(parts[:-1]):
            matcher = _with_gitignore_at(fd, "/".join(parts[:depth]), matcher)
            if matcher.is_ignored("/".join(parts[: depth + 1]), True):
                return True
            try:
                child = open_dir_at(fd, part)
            except Refusal:
                return matcher.is_ignored("/".join(parts), False)
            os.close(fd)
            fd = child
        matcher = _with_gitignore_at(fd, "/".join(parts[:-1]), matcher)
        return matcher.is_ignored("/".join(parts), False)
    finally:
        os.close(fd)


def _with_gitignore_at(dir_fd: int, directory: str, matcher: IgnoreMatcher) -> IgnoreMatcher:
    text = load_gitignore(dir_fd, directory)
    return matcher if text is None else matcher.with_gitignore(directory, text)


def root_matcher(root_fd: int, exclude: Iterable[str]) -> IgnoreMatcher:
    """The matcher for the root before its ``.gitignore``: ``.prooftext/ignore`` and configured excludes."""
    own = _prooftext_ignore_lines(root_fd)
    lines = [*own, *exclude]
    if not any(line.strip() for line in lines):
        return IgnoreMatcher()
    where = [*_numbered(PROOFTEXT_IGNORE, len(own)), *(["[scan] exclude"] * (len(lines) - len(own)))]
    try:
        return IgnoreMatcher(extra=PatternSet.from_lines(lines, where))
    except PATTERN_ERRORS:
        # The configured excludes were checked when the configuration loaded: the file holds the culprit.
        raise ConfigError(
            f"{PROOFTEXT_IGNORE}: {_first_invalid(own)}; fix or remove that line", file=PROOFTEXT_IGNORE
        ) from None
