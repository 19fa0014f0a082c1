"""Exact token counting: tiktoken encodings loaded from pinned BPE files in package data, plus bytes.

tiktoken downloads its BPE files at first use, which fails offline; prooftext ships them (gzip) and checks
the SHA-256 of the decompressed bytes before building an encoding. Every count carries its basis.

Parsing a BPE file takes about a quarter of a second, paid by every one-shot CLI call; the parsed ranks are
therefore kept in a per-user cache (``PROOFTEXT_CACHE_DIR``, else ``$XDG_CACHE_HOME/prooftext``, else
``~/.cache/prooftext``; an empty ``PROOFTEXT_CACHE_DIR`` turns it off). A cache file names the pinned
SHA-256 it was parsed from and carries the SHA-256 of its own payload; one that does not check out is
ignored and rewritten, so the cache can make a start faster but never change a count.

Building tiktoken's encoder from the ranks costs another 0.15–0.2 s (it copies and sorts 200,000 entries),
more than a one-shot ``pack`` spends on everything else. A process therefore counts its first
:data:`INTERPRETED_COUNT_CHARS` characters with :class:`InterpretedBpe`, the same byte-pair merge over the
same ranks and the same split pattern (its Unicode classes spelled out for Python's ``re`` over those characters),
written in Python, and builds the encoder only after that much text,
or at once for a text it cannot count the same way for certain (see :func:`interpretable`). Both give the
same counts (tests compare them exhaustively over the characters they take); only the speed differs.
"""

from __future__ import annotations

import binascii
import contextlib
import functools
import gzip
import hashlib
import marshal
import os
import re
import sys
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from prooftext.errors import CorruptTokenizerError, RequestError, UnknownNameError

if TYPE_CHECKING:
    import tiktoken

DEFAULT_TOKENIZER = "o200k_base"
BATCH_THREADS = max(1, os.cpu_count() or 1)
"""Threads for batch counting: one per core."""
BATCH_MIN_CHARS = 64 * 1024
"""Below this much text a batch is counted in this thread: a batch starts a thread pool, which costs more
than encoding a few small excerpts."""
BYTES_BASIS = "bytes"
INTERPRETED_COUNT_CHARS = 1_000_000
"""Characters a process counts with :class:`InterpretedBpe` before it builds tiktoken's encoder: about a
quarter of a second of counting, what building the encoder costs."""
MAX_INTERPRETED_PIECE_BYTES = 128
"""A split piece longer than this is counted by the encoder: the interpreted merge is quadratic in it."""
_NO_RANK = 1 << 62
"""Stands for a pair that is not in the vocabulary (above every rank)."""
MAX_REMEMBERED_PIECES = 200_000
"""Pieces whose counts :class:`InterpretedBpe` keeps (emptied when full)."""
_INTERPRETABLE_RANGES = (
    (0x0000, 0x024F),  # ASCII, Latin-1 Supplement, Latin Extended-A and -B
    (0x2000, 0x2064),  # General Punctuation (U+2065 is unassigned)
    (0x2066, 0x206F),
    (0x2190, 0x23FF),  # Arrows, Mathematical Operators, Miscellaneous Technical
    (0x2400, 0x2426),  # Control Pictures, which packets show for control characters
    (0x2500, 0x25FF),  # Box Drawing, Block Elements, Geometric Shapes
)
"""Code points whose letter, number and space classes have not changed for decades: the split pattern
classifies them alike under any Unicode version the regular-expression engines ship (every one assigned)."""
_NOT_INTERPRETABLE = re.compile(
    "[^" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in _INTERPRETABLE_RANGES) + "]"
)

_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""


@dataclass(frozen=True)
class _Spec:
    filename: str
    sha256: str
    pattern: str
    special: dict[str, int]
    longest: int
    """The most bytes one token of the pinned file stands for (pinned, since finding it walks the whole
    vocabulary: a test recomputes it)."""


_SPECS: dict[str, _Spec] = {
    "o200k_base": _Spec(
        "o200k_base.tiktoken.gz",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        _O200K_PATTERN,
        {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        128,
    ),
    "cl100k_base": _Spec(
        "cl100k_base.tiktoken.gz",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        _CL100K_PATTERN,
        {
            _ENDOFTEXT: 100257,
            _FIM_PREFIX: 100258,
            _FIM_MIDDLE: 100259,
            _FIM_SUFFIX: 100260,
            _ENDOFPROMPT: 100276,
        },
        128,
    ),
}

TOKENIZERS: tuple[str, ...] = (*sorted(_SPECS), BYTES_BASIS)
"""Every basis a count can have."""


@dataclass(frozen=True)
class TokenCount:
    """A count and the basis it was measured in (a tokenizer name or ``bytes``)."""

    count: int
    basis: str

    def to_dict(self) -> dict[str, int | str]:
        return {"count": self.count, "basis": self.basis}


class Counter(Protocol):
    """Anything that counts text exactly in one basis."""

    @property
    def basis(self) -> str: ...

    def count(self, text: str) -> int: ...

    def count_many(self, texts: Sequence[str]) -> list[int]: ...

    @property
    def longest_token(self) -> int:
        """The most UTF-8 bytes one unit stands for: a text's count is never below its byte length over
        this (see :func:`count_floor`)."""
        ...


def count_floor(counter: Counter, nbytes: int) -> int:
    """A count no text of at least ``nbytes`` UTF-8 bytes can go below in ``counter``'s basis: its units
    cover its bytes without overlap, none more than :attr:`Counter.longest_token` of them."""
    return -(-nbytes // counter.longest_token) if nbytes > 0 else 0


def parse_bpe(data: bytes, expected_sha256: str, name: str) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` BPE file after checking its SHA-256; any damage is a clear error."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise CorruptTokenizerError(
            f"BPE file for {name} does not match its pinned SHA-256", expected=expected_sha256, actual=actual
        )
    fields = data.split()
    lines = data.splitlines()
    if len(fields) != 2 * (len(lines) - lines.count(b"")):
        bad = next(n for n, line in enumerate(lines, start=1) if line and len(line.split()) != 2)
        raise CorruptTokenizerError(f"BPE file for {name} is malformed at line {bad}")
    try:
        # One pass of C-level decoding: the file is loaded at every cold start, so this path matters.
        tokens = [binascii.a2b_base64(token, strict_mode=True) for token in fields[0::2]]
        ranks = dict(zip(tokens, map(int, fields[1::2]), strict=True))
    except (ValueError, binascii.Error):
        bad = next(n for n, line in enumerate(lines, start=1) if line and not _valid_line(line))
        raise CorruptTokenizerError(f"BPE file for {name} is malformed at line {bad}") from None
    return ranks


def _valid_line(line: bytes) -> bool:
    parts = line.split()
    if len(parts) != 2:
        return False
    token, rank = parts
    try:
        binascii.a2b_base64(token, strict_mode=True)
        int(rank)
    except (ValueError, binascii.Error):
        return False
    return True


def _packaged_bytes(filename: str) -> bytes:
    """The raw (gzip) bytes of a packaged BPE file; a seam tests replace to simulate damage."""
    return resources.files("prooftext").joinpath("data").joinpath("bpe").joinpath(filename).read_bytes()


def _read_packaged(filename: str, name: str) -> bytes:
    try:
        return gzip.decompress(_packaged_bytes(filename))
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise CorruptTokenizerError(f"BPE file for {name} cannot be read: {exc}") from None


_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u2000-\u200a\u2028\u2029\u202f\u205f"
"""Unicode's White_Space among the interpretable code points: what the patterns' ``\\s`` means (Python's own
``\\s`` would take ``\\x1c``-``\\x1f`` too)."""
_NOTHING = "^\\x00-\\U0010ffff"
"""The contents of a class that takes no character."""
_CATEGORY_CLASSES = {"L": "L", "N": "N", "M": "M", "Lu": "Lu", "Ll": "Ll", "Lt": "Lt", "Lm": "Lm", "Lo": "Lo"}
_CLASS_ESCAPE = re.compile(r"\\p\{(\w+)\}|\\s|\\S|\[|\]|\\.")


@functools.cache
def _class_of(category: str) -> str:
    """The interpretable code points of a general category (``L``: every letter), as ranges of a class."""
    codes = [code for code, found in _categories() if found.startswith(category)]
    if not codes:  # no mark (``M``) is interpretable: the class takes nothing
        return ""
    runs: list[str] = []
    start = prev = codes[0]
    for code in [*codes[1:], -1]:
        if code != prev + 1:
            runs.append(f"\\U{start:08x}" + (f"-\\U{prev:08x}" if prev != start else ""))
            start = code
        prev = code
    return "".join(runs)


@functools.cache
def _categories() -> tuple[tuple[int, str], ...]:
    import unicodedata

    return tuple(
        (code, unicodedata.category(chr(code)))
        for low, high in _INTERPRETABLE_RANGES
        for code in range(low, high + 1)
    )


def interpretable_pattern(pattern: str) -> str:
    """``pattern`` in the syntax of Python's ``re``, for interpretable text: each Unicode property class
    (``\\p{L}``, ``\\p{Lu}``, ...) and ``\\s``/``\\S`` spelled out over the interpretable code points, inside
    or outside a bracketed class. The tests compare its counts with the encoder's."""
    out: list[str] = []
    inside = False
    last = 0
    for match in _CLASS_ESCAPE.finditer(pattern):
        out.append(pattern[last : match.start()])
        last = match.end()
        token = match.group(0)
        if token == "[":
            inside = True
            out.append(token)
        elif token == "]":
            inside = False
            out.append(token)
        elif match.group(1) is not None:
            members = _class_of(_CATEGORY_CLASSES[match.group(1)])
            out.append(members if inside else f"[{members or _NOTHING}]")
        elif token == "\\s":
            out.append(_WHITE_SPACE if inside else f"[{_WHITE_SPACE}]")
        elif token == "\\S":
            out.append(f"[^{_WHITE_SPACE}]")  # never used inside a class by the pinned patterns
        else:
            out.append(token)
    out.append(pattern[last:])
    return "".join(out)


def interpretable(text: str) -> bool:
    """Whether :class:`InterpretedBpe` counts ``text`` exactly as the encoder would: every character in
    :data:`_INTERPRETABLE_RANGES` (most source code and prose in Latin script)."""
    return text.isascii() or _NOT_INTERPRETABLE.search(text) is None


class InterpretedBpe:
    """Exact counts without tiktoken's encoder: the text split by the encoding's pattern, each piece merged
    pair by pair, lowest rank first, as tiktoken's ``byte_pair_merge`` does. Pieces seen before are
    remembered. ``count`` answers None for a piece above :data:`MAX_INTERPRETED_PIECE_BYTES`."""

    def __init__(self, ranks: dict[bytes, int], spec: _Spec) -> None:
        self._ranks = ranks
        self._split = re.compile(interpretable_pattern(spec.pattern)).findall
        self._pieces: dict[str, int] = {}

    def count(self, text: str) -> int | None:
        pieces = self._pieces
        if len(pieces) > MAX_REMEMBERED_PIECES:
            pieces.clear()
        total = 0
        for piece in self._split(text):
            size = pieces.get(piece)
            if size is None:
                size = self._merge(piece.encode("utf-8"))
                if size is None:
                    return None
                pieces[piece] = size
            total += size
        return total

    def _merge(self, piece: bytes) -> int | None:
        ranks = self._ranks
        if piece in ranks:
            return 1
        if len(piece) > MAX_INTERPRETED_PIECE_BYTES:
            return None
        get = ranks.get
        parts = [piece[i : i + 1] for i in range(len(piece))]
        # The rank of each adjacent pair; a merge changes only the two pairs beside it.
        pairs = [get(parts[i] + parts[i + 1], _NO_RANK) for i in range(len(parts) - 1)]
        while pairs:
            best = min(pairs)
            if best == _NO_RANK:
                break
            at = pairs.index(best)  # the leftmost of equal ranks, as tiktoken merges
            parts[at : at + 2] = [parts[at] + parts[at + 1]]
            del pairs[at]
            if at < len(pairs):
                pairs[at] = get(parts[at] + parts[at + 1], _NO_RANK)
            if at > 0:
                pairs[at - 1] = get(parts[at - 1] + parts[at], _NO_RANK)
        return len(parts)


class TiktokenCounter:
    """Exact counts in a tiktoken encoding built from a pinned, packaged BPE file: interpreted at first,
    by the encoder once it is built (see the module notes)."""

    def __init__(self, name: str, ranks: dict[bytes, int]) -> None:
        self._name = name
        self._ranks = ranks
        self._encoder: tiktoken.Encoding | None = None
        self._encoder_lock = threading.Lock()
        self._interpreted = InterpretedBpe(ranks, _SPECS[name])
        self._interpreted_left = INTERPRETED_COUNT_CHARS
        self._longest = _SPECS[name].longest

    @property
    def basis(self) -> str:
        return self._name

    @property
    def encoder_built(self) -> bool:
        """Whether tiktoken's encoder has been built (every count after that uses it)."""
        return self._encoder is not None

    @property
    def _encoding(self) -> tiktoken.Encoding:
        encoder = self._encoder
        if encoder is None:
            with self._encoder_lock:
                if self._encoder is None:
                    self._encoder = _encoding(self._name, self._ranks)
                encoder = self._encoder
        return encoder

    def _interpret(self, text: str) -> int | None:
        """The interpreted count, or None when the encoder must count ``text``."""
        if self._encoder is not None or len(text) > self._interpreted_left or not interpretable(text):
            return None
        self._interpreted_left -= len(text)
        return self._interpreted.count(text)

    def count(self, text: str) -> int:
        size = self._interpret(text)
        if size is not None:
            return size
        # Special-token text in a source is data: count it as ordinary text, never as a control token.
        return len(self._encoding.encode(text, disallowed_special=()))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Exact counts of many texts; a large batch is encoded in parallel threads (the encoder releases
        the GIL)."""
        if sum(map(len, texts)) < BATCH_MIN_CHARS or self._encoder is None:
            return [self.count(text) for text in texts]
        batches = self._encoding.encode_batch(list(texts), num_threads=BATCH_THREADS, disallowed_special=())
        return [len(tokens) for tokens in batches]

    @property
    def longest_token(self) -> int:
        """The longest byte value of the vocabulary (pinned; special tokens never occur in a count: their
        text is encoded as ordinary text)."""
        return self._longest

    def encode(self, text: str) -> list[int]:
        return self._encoding.encode(text, disallowed_special=())

    def decode(self, tokens: list[int]) -> str:
        return self._encoding.decode(tokens)


class BytesCounter:
    """The ``bytes`` unit: UTF-8 length, always available."""

    @property
    def basis(self) -> str:
        return BYTES_BASIS

    def count(self, text: str) -> int:
        try:
            return len(text.encode("utf-8"))
        except UnicodeEncodeError:
            # A lone surrogate has no UTF-8 form: count it as U+FFFD, exactly as tiktoken encodes it.
            return len(_without_lone_surrogates(text).encode("utf-8"))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(text) for text in texts]

    @property
    def longest_token(self) -> int:
        return 1


def _without_lone_surrogates(text: str) -> str:
    """Join surrogate pairs and replace lone surrogates with U+FFFD (tiktoken's own fix-up)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


_cache: dict[str, Counter] = {}
_lock = threading.Lock()


def build_encoding(name: str, bpe: bytes) -> tiktoken.Encoding:
    """A tiktoken encoding for ``name`` from the given (decompressed) BPE bytes, checked against the pin."""
    return _encoding(name, parse_bpe(bpe, _SPECS[name].sha256, name))


def _encoding(name: str, ranks: dict[bytes, int]) -> tiktoken.Encoding:
    import tiktoken  # loaded with the encoder, which a one-shot call may never need

    spec = _SPECS[name]
    return tiktoken.Encoding(
        name=name, pat_str=spec.pattern, mergeable_ranks=ranks, special_tokens=spec.special
    )


CACHE_ENV = "PROOFTEXT_CACHE_DIR"
_RANKS_MAGIC = b"prooftext-bpe-ranks/1\n"
_DIGEST_HEX = 64


def cache_dir() -> Path | None:
    """Where parsed tokenizer ranks are kept, or None when the cache is turned off."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured else None
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "prooftext"
    home = os.path.expanduser("~")
    return None if home == "~" else Path(home) / ".cache" / "prooftext"  # no home: no cache


def _ranks_path(folder: Path, name: str) -> Path:
    # marshal's format may change between Python versions: one file per version.
    version = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return folder / f"{name}-{_SPECS[name].sha256[:16]}-{version}.ranks"


def _cached_ranks(path: Path) -> dict[bytes, int] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_RANKS_MAGIC)
    digest, payload = data[head : head + _DIGEST_HEX], data[head + _DIGEST_HEX :]
    if not data.startswith(_RANKS_MAGIC) or hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    try:
        ranks = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    return ranks if isinstance(ranks, dict) else None


def _store_ranks(path: Path, ranks: dict[bytes, int]) -> None:
    import tempfile  # only a start that parsed the file writes the cache

    payload = marshal.dumps(ranks)
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as out:
            temporary = out.name
            out.write(_RANKS_MAGIC + hashlib.sha256(payload).hexdigest().encode() + payload)
        os.replace(temporary, path)
    except OSError:
        # A read-only or full cache only costs the next start its parse; it keeps no half-written file.
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def load_encoding(name: str) -> tiktoken.Encoding:
    """The encoding for ``name``, built from :func:`load_ranks`."""
    return _encoding(name, load_ranks(name))


def load_ranks(name: str) -> dict[bytes, int]:
    """The ranks of ``name``: from the cache when a checked copy is there, else parsed and kept."""
    folder = cache_dir()
    path = None if folder is None else _ranks_path(folder, name)
    ranks = None if path is None else _cached_ranks(path)
    if ranks is None:
        ranks = parse_bpe(_read_packaged(_SPECS[name].filename, name), _SPECS[name].sha256, name)
        if path is not None:
            _store_ranks(path, ranks)
    return ranks


def get_counter(name: str = DEFAULT_TOKENIZER) -> Counter:
    """The counter for a basis name; unknown names fail with ``unknown_name``, as every request's do."""
    if not isinstance(name, str):
        raise UnknownNameError(
            f"a tokenizer is named by a string; known: {', '.join(TOKENIZERS)}",
            field="tokenizer",
            known=list(TOKENIZERS),
        )
    if name == BYTES_BASIS:
        return BytesCounter()
    if name not in _SPECS:
        raise UnknownNameError(
            f"unknown tokenizer {name!r}; known: {', '.join(TOKENIZERS)}",
            field="tokenizer",
            known=list(TOKENIZERS),
        )
    with _lock:
        counter = _cache.get(name)
        if counter is None:
            counter = TiktokenCounter(name, load_ranks(name))
            _cache[name] = counter
        return counter


def count(text: str, basis: str = DEFAULT_TOKENIZER) -> TokenCount:
    """Count ``text`` exactly; the result names its basis."""
    if not isinstance(text, str):
        raise RequestError("only text (a string) can be counted", field="text")
    return TokenCount(get_counter(basis).count(text), basis)
