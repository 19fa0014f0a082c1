"""Incremental refresh of the index store.

Unchanged files are skipped by (size, mtime_ns, inode, ctime_ns); changed files are re-read, re-hashed and
re-extracted; deleted files are removed. A file a read excluded is skipped the same way, except that a
refresh reads one found ``unreadable`` again: what cures that (a chmod, a repaired disk) changes none of the
three. A status still counts it unchanged, so that a file that stays unreadable does not make every request
of a server refresh. The row of a read-time exclusion is keyed by the redacted path (see
:func:`exclusion_key`), so a path spelling a credential is never stored yet is still found unchanged; the
row goes when its file goes, as a from-scratch index would never have had it. Every file is written in its
own batch transaction, so a run killed at any point leaves a store that the next run completes: a file row is only
ever present together with all of its nodes.

What a file's row says also depends on how it was read (the configuration's labels and secret policy, this
version's scan and extraction rules, the installed parsers). The store keeps a digest of those, its *reading
key*; when it differs, every file is read again, so a new label rule or secret rule never leaves an unchanged
file with the old decision (a file newly labelled ``owner-private`` must not stay in packets at the old
clearance). ``tests/store/test_reading_revision.py`` fails when what a store reads changes while
:data:`READING_REVISION` stays.

A declared ``[scan] specification`` that the refresh did not index (missing, ignored, excluded, binary, too
large, ...) fails the refresh with ``config_invalid`` naming the exclusion, as a scan does: the store is
brought in line with the files all the same, but holds no candidate until the specification is adopted.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import os
import posixpath
import secrets
import sqlite3
import time
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from importlib import metadata
from itertools import accumulate
from pathlib import Path

import prooftext.canonical as canonical
from prooftext._version import __version__
from prooftext.corpus.config import CorpusConfig
from prooftext.corpus.identity import candidate_identity, git_head
from prooftext.corpus.model import (
    REASON_CHANGED,
    REASON_UNREADABLE,
    CandidateIdentity,
    Exclusion,
    FileStat,
    SourceFile,
    WalkResult,
)
from prooftext.corpus.read import read_settled_at
from prooftext.corpus.safeio import open_root
from prooftext.corpus.scan import specification_paths, specification_refusal
from prooftext.corpus.secrets import REDACTED_PREFIX, redact_path
from prooftext.corpus.walk import walk
from prooftext.errors import ConfigError
from prooftext.graph.languages import SPECS, language_for
from prooftext.graph.model import NODE_FILE, FileGraph, Node
from prooftext.graph.resolve import (
    COMPOSER_MANIFEST,
    DECLARING_LANGUAGES,
    MAX_REFERENCE_FANOUT,
    PathIndex,
    psr4_prefixes,
)
from prooftext.store.db import SYNCHRONOUS, transaction, writer_lock
from prooftext.store.fts import IndexedText, expand_identifiers, literal_identifiers
from prooftext.store.schema import drop_deferred_indexes, ensure_indexes, missing_indexes
from prooftext.text import identifier_parts
from prooftext.workers import start_every_worker, watch_parent

BATCH_FILES = 128
"""Files written per transaction: large enough to amortize commits, small enough to lose little on a kill."""

BULK_MIN_FILES = 256
"""A first build of at least this many files defers its indexes and syncs (see :func:`_bulk`)."""

MAX_CHUNK_FILES = 256
"""Files a worker reads per task: few enough that a chunk's rows stay small, many enough to amortize."""

CHUNKS_PER_WORKER = 16
"""A refresh cuts its files into about this many chunks per worker (small ones even out the workers' last
chunks, when one would otherwise wait for the other)."""

CHUNKS_IN_FLIGHT = 3
"""Chunks per worker submitted ahead of the writer (see :func:`_load_all`)."""

PARALLEL_MIN_FILES = 48
"""Below this many changed files, a process pool costs more than it saves."""

READER_GC_THRESHOLD = 50_000
"""Allocations between two young-generation garbage collections in a refresh worker (Python's default is
700). A worker allocates a few tuples and nodes per line of each file it reads, nearly none of them in a
reference cycle: collecting them at the default rate took 8% of its time on sphinx."""

MAX_NODES_PER_LINE = 10
"""A line that more nodes than this cover is *dense*: its text goes to its file's FTS row alone. Copying each
line into the row of every node that covers it costs a file its size times its nesting depth, which minified
code (n definitions on one line) turns into n times its size: quadratic. Ordinary code stays far below it
(the deepest line in ~5,000 files of real Python, JavaScript and Markdown lies in 7 nodes)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: the only way the store reports progress."""


READING_REVISION = 34
"""Raised whenever the scan, label, secret or extraction rules change what a file's row holds, so that stores
written under the previous rules are read again (2: an anonymous FTP login is not a credential; 3: symbol
and heading names are redacted like the text, and read-time exclusions are keyed by the redacted path;
4: an upper-case extension such as ``Foo.PY`` is parsed in its language, ``.C``/``.H`` as C++, and a heading
past the title limit is cut at a word boundary; 5: a dense line, one that more than
:data:`MAX_NODES_PER_LINE` nodes cover, is indexed in its file's FTS row only, and a node that starts on one
holds its signature instead; 6: a long Markdown or reStructuredText section is also cut into chunk windows; 7: credential-named keys
inside longer names, Authorization headers, command-line, netrc and XML passwords are found, a redacted value
keeps its quotes and is also redacted wherever it recurs in its file, and a source holding a credential is
redacted by default, not left out; 8: every call, attribute and import is also kept as a spelled reference
for who-uses, common names included; 9: a section's chunk window of blank lines only is not a node; 10: outside
Python a symbol's range starts at its leading doc comment, a Ruby body's first definition keeps its comment and
a C++ specialization is named without its template arguments; a JavaScript function assigned in a chain covers the
whole statement, and one assigned to ``module.exports`` is named by its own name; a Rust ``use crate::Item``
resolves to the crate root's file; a call of a private ``#method`` is a use and a private arrow-function field a
method; a JavaScript / TypeScript class member's range holds its decorators; a C++ conversion operator is
named ``operator T``; a top-level ``const Button = forwardRef((props) => …)`` is a function;
11: a value in the escaped quotes of code held in a JSON string, a Dockerfile ``ENV KEY VALUE``, a C
``#define``, a Go ``var key string``, a Rust ``&str`` constant, a PuTTY private key, an Authorization header a
server directive sets, a literal given by subscript (``os.environ["API_KEY"] = …``), by ``?=`` or to
``Header.Set``, an SQL password and the value of a credential-named name/value pair are credentials, and a
private-key marker that no key material follows, as code that tests for it, or a token prefix followed by
lowercase words in a file name, no longer leaves its file out; 12: a JavaScript / TypeScript ``require('..')``
that names the repository root resolves to its ``index`` file; 13: an AWS access key id's body is base32, so
``ASIAPACIFICSALES2024.csv`` and other words or numbers after an AWS prefix are not credentials; 14: a
provider token glued to a word, a credential given by Kotlin's ``to`` or Scala's ``->``, under a .NET
configuration key (``Jwt:Secret``) or to ``ConvertTo-SecureString -AsPlainText``, the literals of a list under a
credential name and a YAML block sequence or one-line block scalar under one are credentials; 15: a Python
docstring is the value Python gives it (escape sequences decoded unless raw, concatenated or parenthesized
strings read, an f-string or bytes literal none), a Python ``type Name[T] = …`` statement is a ``type`` symbol
and a generic base class ``Mixin[App]`` is a use of both names; 16: Markdown
headings inside HTML blocks are not headings, a backtick line with a backtick after its fence opens no fence,
lazy and interrupting lines decide setext titles as CommonMark does, a link on a heading's line is kept,
reStructuredText titles, underlines, overlines and levels follow docutils and its front matter declares
``contradicts`` as Markdown's does, and a byte order mark hides no heading; 17: a Go type read through its
package (``*web.Context``) and a TypeScript type read through a namespace (``Kind.ZodSet``) record the
qualifier as the receiver of their spelled use; 18: a Java annotation type's elements are methods, a Java
signature leaves out comments among the annotations and holds a bodiless declaration's whole header without
its ``;``, a qualified annotation and a method reference are uses and ``var`` is none, and a Javadoc's
unicode escapes are decoded; 19: a Rust item's range and doc comment hold every outer
attribute and doc comment rustc attaches to it (a comment trailing an attribute, a blank line, an attribute
before the doc comment), ``//!`` documents no item, and each path or group inside a ``use`` group is its own
import; a Ruby doc comment above the first method of a branch, loop or brace block, or above ``private def
x``, is that method's; Ruby and Rust doc comments keep their ``*`` list bullets; a Ruby ``YAML.load("…")``
is no import; 20: a declaration without a body in TypeScript, Rust and Go has its whole header as its
signature; 21: a C or C++ definition keeps its name and kind around export,
calling convention and statement macros (``struct API Name``, ``int CDECL main``, ``FMT_BEGIN_NAMESPACE``,
``(ZCALLBACK *f)``), a ``.h`` the C grammar reads with errors is read as C++ when that grammar reads it better,
a C++ ``using`` alias is a ``type`` symbol, and an ``else if`` cut by ``#ifdef`` is no function named ``if``;
22: a Go reference is kept once per function literal, not once per function; 23: TypeScript's ``repo!.load()``
spells its receiver ``repo``; 24: Java's ``new Foo(...)`` is a call of ``Foo``, not a read; 25: a C or C++
definition inside a function's body that declares no function (lua's ``vmcase(OP_MOVE) {…}``) is no symbol,
and an export macro before a typedef'd return type, or before a parenthesized name (``LUALIB_API int
(luaL_loadstring) (…)``), leaves a C function its name; 26: a C++ class with an export macro before its name
(``class TINYXML2_LIB XMLNode : public Base {``) holds its whole body, not the members before the grammar lost
its way, a nested class defined outside its class is named in its scope (``struct TableBuilder::Rep`` is
``Rep`` in ``TableBuilder``), a C++ constructor's initializer (``: Base(doc)``) is a call, and a C or C++
receiver through ``->`` is spelled with ``.`` and through a call without its arguments
(``b->plan_.Reset()`` on ``b.plan_``, ``scan_.build_log()->Close()`` on ``scan_.build_log()``); 27: a
JavaScript or TypeScript receiver through a call is spelled without its arguments (``z.string().min(5)`` on
``z.string()``), optional chaining and a line break around a ``.`` as a plain ``.``, and a private field as
itself (``this.#req.param()`` on ``this.#req``); 28: a Python receiver through a call is spelled without
its arguments (``app.test_client().get()`` on ``app.test_client()``); 29: a TypeScript file the grammar
reads with errors is read again with each line that starts a generic call signature (``<I, R>(h: H<I>):
R``) ending the line above, as TypeScript reads it, and a generator function assigned or stored as a
value (``const f = function* () {}``) is a function like any other; 30: a PHP file (``.php``) is read
for its classes, interfaces, traits, enums, functions and methods, its uses and its ``use``, ``include``
and ``require`` imports, where it was cut into line windows before; 31: a PHP receiver is spelled as
who-uses follows it (``$this->repo`` as ``this.repo``, ``\\App\\Cache`` as ``App.Cache``), a name's namespace
qualifier as its receiver (``Command\\`` of ``new Command\\Alias()``), a method named by a callable
array is read through its first element (``[$this, 'run']``, ``[Foo::class, 'make']``), and the class of a
static call (``Cache::get()``) is read, not called; 32: a Scala file (``.scala``) is read for its classes,
traits, objects, enums, ``def``s, ``type`` members and named givens, its uses and its imports, where it was
cut into line windows before; 33: a Kotlin file (``.kt``, ``.kts``) is read for its classes, interfaces,
objects, ``fun``s, constructors and type aliases, its uses and its imports, where it was cut into line
windows before, and a Kotlin import resolves to the file of its package that defines its name, also where
the project's directories omit its root package; 34: a Lua file (``.lua``) is read for its functions and
methods, its uses and its ``require`` imports, where it was cut into line windows before))."""

FINISHED_KEY = "finished"
"""The meta key of the generation at which the last refresh finished (see :func:`_settled`)."""

READING_KEY = "reading"
"""The meta key of the store's reading key (see :func:`reading_key`)."""

_FINISH_KEYS = ("edges", "nodes", "generation", "candidate", READING_KEY, FINISHED_KEY)
"""The meta a refresh's end records; read first, so that a refresh that changes none writes nothing."""

GENERATION_START_BITS = 48
"""Width of the random first generation of a new store (later refreshes count up from it)."""


@dataclass
class RefreshReport:
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    files_skipped: dict[str, int] = field(default_factory=dict)
    nodes: int = 0
    edges: int | None = None
    """Counted only when asked (it joins every identifier use); None otherwise."""
    seconds_ms: int = 0

    @property
    def partial(self) -> bool:
        """Some files could not be read (``files_skipped["unreadable"]``) or changed again when read once more
        (``files_skipped["changed"]``, read at the next refresh): the index is usable, not whole."""
        return any(self.files_skipped.get(reason, 0) > 0 for reason in (REASON_UNREADABLE, REASON_CHANGED))

    def to_dict(self) -> dict[str, object]:
        return {
            "files_indexed": self.files_indexed,
            "files_unchanged": self.files_unchanged,
            "files_removed": self.files_removed,
            "files_skipped": dict(sorted(self.files_skipped.items())),
            "nodes": self.nodes,
            "edges": self.edges,
            "seconds": round(self.seconds_ms / 1000, 3),
        }


_Known = tuple[str, int, int, int, int, int | None]
"""An indexed file's row of :data:`KNOWN_SQL`: path, id (``row[1]``), then its stat signature (size,
mtime_ns, inode, ctime_ns). Kept as SQLite returns it: no object per file of a large tree."""


def _signature(stat: FileStat) -> tuple[int, int, int, int | None]:
    """What a stored row must equal for a file to count as unchanged: size, mtime_ns, inode, ctime_ns. A
    store written before ctimes were kept holds None, which no file matches: it is read once more."""
    return stat.size, stat.mtime_ns, stat.inode, stat.ctime_ns


KNOWN_SQL = "SELECT path, id, size, mtime_ns, inode, ctime_ns FROM files"
"""Every file's stat signature, served by the covering index ``files_stat`` (see the schema's migration 3)."""


def load_known(conn: sqlite3.Connection) -> dict[str, _Known]:
    return {row[0]: row for row in conn.execute(KNOWN_SQL)}


ExcludedStat = tuple[int, int, int, int | None]
"""(size, mtime_ns, inode, ctime_ns) of a file a read excluded."""


def exclusion_key(path: str) -> str:
    """The ``excluded`` row key of a read-time exclusion of ``path``: the path with any credential it
    spells replaced (:func:`~prooftext.corpus.secrets.redact_path`, deterministic, so a later walk finds
    the row again without the raw value ever being stored)."""
    return redact_path(path)


def load_excluded_stats(conn: sqlite3.Connection) -> dict[str, tuple[ExcludedStat, str]]:
    """Every read-time exclusion row (those with stat data): key -> (stat signature, reason)."""
    sql = "SELECT path, size, mtime_ns, inode, ctime_ns, reason FROM excluded WHERE size IS NOT NULL"
    return {r[0]: ((r[1], r[2], r[3], r[4]), r[5]) for r in conn.execute(sql)}


def _usable(rows: dict[str, tuple[ExcludedStat, str]], retry_unreadable: bool) -> dict[str, ExcludedStat]:
    """The stat data of files a read excluded, which are not read again while it holds. With
    ``retry_unreadable``, ``unreadable`` is left out: what fixes it (a chmod, a repaired disk) changes
    neither size, mtime nor inode, so a refresh tries such a file again."""
    return {
        key: stat
        for key, (stat, reason) in rows.items()
        if not (retry_unreadable and reason == REASON_UNREADABLE)
    }


def _has_excluded_stats(conn: sqlite3.Connection) -> bool:
    """Whether the store remembers an excluded file by its stat data (see :func:`load_known_excluded`)."""
    return conn.execute("SELECT 1 FROM excluded WHERE size IS NOT NULL LIMIT 1").fetchone() is not None


class _ExclusionKeys:
    """Finds the exclusion row of a walked path. Most rows are keyed by the raw path; :func:`exclusion_key`
    (a scan of the path for credentials) is computed only when the raw path misses and the store holds a
    redacted key at all, so a status check of a large tree costs no scan per path."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = set(keys)
        self.redacted = any(REDACTED_PREFIX in key for key in self.keys)

    def find(self, path: str) -> str | None:
        if path in self.keys:
            return path
        if self.redacted:
            key = exclusion_key(path)
            if key in self.keys:
                return key
        return None


@dataclass
class Plan:
    """What a refresh would do, computed from stat data alone (also the basis of ``index --status``)."""

    to_read: list[FileStat]
    unchanged: list[str]
    removed: list[str]
    walk_excluded: list[Exclusion]
    unchanged_excluded: list[str]
    directories: list[str] = field(default_factory=list)
    stale_excluded: list[str] = field(default_factory=list)
    """Keys of read-time exclusion rows whose file no walked path is any more (deleted, renamed, now
    excluded by the walk): a refresh deletes them, as a from-scratch index would never have had them."""
    with_exclusion_row: set[str] = field(default_factory=set)
    """Paths of :attr:`to_read` that an ``excluded`` row may stand for (keyed by the path or its redacted
    form): reading such a file deletes the row. Every other file has none to delete (a first build, none)."""
    changed_excluded: set[str] = field(default_factory=set)
    """Paths of :attr:`to_read` that the last read left out (binary, too large, ...) and that changed since:
    a status counts them as changed, not added, as it does an indexed file."""


@lru_cache(maxsize=1)
def parser_versions() -> tuple[tuple[str, str], ...]:
    """Installed versions of the parsers extraction uses (``tree-sitter`` and each grammar wheel), read
    once per process: their dependency ranges allow upgrades that change the nodes of an unchanged file."""
    out: list[tuple[str, str]] = []
    for name in sorted({"tree_sitter", *(spec.module for spec in SPECS.values())}):
        try:
            out.append((name, metadata.version(name.replace("_", "-"))))
        except metadata.PackageNotFoundError:
            out.append((name, "absent"))  # that language degrades to chunks (see prooftext.graph.languages)
    return tuple(out)


def reading_key(config: CorpusConfig) -> str:
    """The SHA-256 of everything besides a file's bytes that decides its row: the configuration, this
    version, :data:`READING_REVISION` and the parsers' versions."""
    return _reading_key(config, READING_REVISION, parser_versions())


@lru_cache(maxsize=8)
def _reading_key(config: CorpusConfig, revision: int, parsers: tuple[tuple[str, str], ...]) -> str:
    # Cached: every status check (one per pack) compares the key, and encoding the configuration costs ~45 µs.
    rules = {"version": __version__, "revision": revision, "config": asdict(config), "parsers": dict(parsers)}
    return hashlib.sha256(canonical.encode(rules)).hexdigest()


def plan(
    conn: sqlite3.Connection,
    root: Path,
    config: CorpusConfig,
    walked: WalkResult | None = None,
    stored: dict[str, _Known] | None = None,
    retry_unreadable: bool = True,
) -> Plan:
    """Compare a walk of ``root`` (``walked``, when the caller knows one to be current) with the store
    (``stored``: its files, when the caller has just loaded them). A store read under another reading key
    has nothing unchanged: every file is read again. ``retry_unreadable``: plan to read again the files a
    read found unreadable (a refresh does; a status does not, see the module docstring)."""
    result = walk(root, config) if walked is None else walked
    stored = load_known(conn) if stored is None else stored
    current = read_meta(conn, READING_KEY) == reading_key(config)
    known = stored if current else {}
    excluded_rows = load_excluded_stats(conn)
    keys = _ExclusionKeys(excluded_rows)
    known_excluded = _usable(excluded_rows, retry_unreadable) if current else {}
    any_row = _ExclusionKeys(r[0] for r in conn.execute("SELECT path FROM excluded"))
    to_read: list[FileStat] = []
    unchanged: list[str] = []
    unchanged_excluded: list[str] = []
    changed_excluded: set[str] = set()
    live: set[str] = set()
    for stat in result.stats:
        old = known.get(stat.path)
        signature = _signature(stat)
        if old is not None and old[2:] == signature:
            unchanged.append(stat.path)
            continue
        # An indexed file has no exclusion row (writing either deletes the other): no key to look up.
        key = None if stat.path in stored else keys.find(stat.path)
        if key is not None:
            live.add(key)
            prior = known_excluded.get(key)
            if prior == signature:
                unchanged_excluded.append(stat.path)
                continue
            changed_excluded.add(stat.path)
        to_read.append(stat)
    seen = {s.path for s in result.stats}
    removed = sorted(p for p in stored if p not in seen)
    stale = sorted(keys.keys - live)
    with_row = {s.path for s in to_read if any_row.find(s.path) is not None} if any_row.keys else set()
    return Plan(
        to_read,
        unchanged,
        removed,
        result.excluded,
        unchanged_excluded,
        result.directories,
        stale,
        with_row,
        changed_excluded,
    )


@dataclass
class FileRows:
    """A file's rows as plain tuples in column order, less the keys the writer assigns (the file's id, the
    nodes' rowids): built where the file is read, so a worker hands the writer values that cost little to
    send and nothing to rearrange."""

    file: tuple[object, ...]
    """files: path, size, mtime_ns, inode, ctime_ns, sha256, kind, language, authority, freshness,
    sensitivity, line_count, text."""
    nodes: list[tuple[object, ...]]
    """nodes: id, kind, name, qualname, symbol_kind, start_line, end_line, language, signature, docstring,
    parent_id."""
    fts: list[tuple[str, str, str, str]]
    """nodes_fts, one per node in node order: title, labels, path, content."""
    edges: list[tuple[str, str, str, str]]
    uses: list[tuple[str, str, int]]
    imports: list[tuple[str, str, int]]
    links: list[tuple[str, str, int]]
    contradicts: list[str]


def file_rows(source: SourceFile, graph: FileGraph) -> FileRows:
    """The rows a file adds to the store."""
    labels = source.labels
    return FileRows(
        file=(
            source.path, source.size, source.mtime_ns, source.inode, source.ctime_ns, source.sha256,
            source.kind, graph.language, labels.authority, labels.freshness, labels.sensitivity,
            source.line_count, source.text,
        ),
        nodes=[
            (n.id, n.kind, n.name, n.qualname, n.symbol_kind, n.start_line, n.end_line, n.language,
             n.signature, n.docstring, n.parent_id)
            for n in graph.nodes
        ],
        fts=fts_rows(source, graph),
        edges=_unique_edges(graph),
        uses=[(u.node_id, u.name, u.line) for u in graph.uses],
        imports=[(i.node_id, i.module, i.line) for i in graph.imports],
        links=[(link.node_id, link.target, link.line) for link in graph.links],
        contradicts=list(graph.contradicts),
    )  # fmt: skip


def _unique_edges(graph: FileGraph) -> list[tuple[str, str, str, str]]:
    """The file's edges, the first of each id: what ``INSERT OR IGNORE`` keeps where the unique index of
    (id, file) is in place, and what a first build, which defers it, must write all the same."""
    unique: dict[str, tuple[str, str, str, str]] = {}
    for e in graph.edges:
        unique.setdefault(e.id, (e.id, e.type, e.source, e.target))
    return list(unique.values())


@dataclass
class Loaded:
    """One file read and extracted (in a worker process when many files changed), ready to write: its
    rows, or the exclusion a read found."""

    stat: FileStat
    result: FileRows | Exclusion


def _load(root_fd: int, stat: FileStat, config: CorpusConfig) -> Loaded:
    source = read_settled_at(root_fd, stat, config)
    if isinstance(source, Exclusion):
        return Loaded(stat, source)
    from prooftext.graph.extract import extract  # the parsers: only a file that is read needs them

    return Loaded(stat, file_rows(source, extract(source.path, source.text)))


def _may_start_processes() -> bool:
    """False in a daemonic process (a Dask or pool worker), which may not have children."""
    import multiprocessing

    return not multiprocessing.current_process().daemon


def _loaded(root: Path, stats: Sequence[FileStat], config: CorpusConfig) -> Iterator[Loaded]:
    """Each file of ``stats`` read and extracted, in order, through one descriptor of the root."""
    if not stats:
        return
    root_fd = open_root(root)
    try:
        for stat in stats:
            yield _load(root_fd, stat, config)
    finally:
        os.close(root_fd)


def _load_chunk(root: Path, stats: Sequence[FileStat], config: CorpusConfig) -> list[Loaded]:
    return list(_loaded(root, stats, config))


def _start_reader(parent: int) -> None:
    """Pool initializer: end with ``parent`` (:func:`~prooftext.workers.watch_parent`); keep what the fork
    inherited (modules, parsers) out of every collection and collect less often."""
    watch_parent(parent)
    gc.freeze()
    gc.set_threshold(READER_GC_THRESHOLD, *gc.get_threshold()[1:])


def _load_all(root: Path, stats: Sequence[FileStat], config: CorpusConfig) -> Iterator[Loaded]:
    """Every file of ``stats`` read and extracted, in order: in a pool of worker processes when there are
    many. At most :data:`CHUNKS_IN_FLIGHT` chunks per worker are submitted ahead of the writer, so the
    rows waiting for it stay bounded however many files there are (submitting them all held every file's
    rows in memory whenever the writer fell behind: 580 MB on 100,000 small files)."""
    workers = os.cpu_count() or 1
    if len(stats) < PARALLEL_MIN_FILES or workers < 2 or not _may_start_processes():
        yield from _loaded(root, stats, config)
        return
    size = max(1, min(MAX_CHUNK_FILES, len(stats) // (workers * CHUNKS_PER_WORKER)))
    chunks = (stats[i : i + size] for i in range(0, len(stats), size))
    from concurrent.futures import Future, ProcessPoolExecutor  # only a refresh with work for a pool

    import prooftext.graph.extract  # noqa: F401  # once here: forked workers start with the parsers loaded

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_start_reader, initargs=(os.getpid(),))
    with start_every_worker(pool):  # forked workers start together anyway; under another start method too
        pending: deque[Future[list[Loaded]]] = deque(
            pool.submit(_load_chunk, root, chunk, config)
            for chunk in itertools.islice(chunks, workers * CHUNKS_IN_FLIGHT)
        )
        try:
            while pending:
                done = pending.popleft().result()
                following = next(chunks, None)
                if following is not None:
                    pending.append(pool.submit(_load_chunk, root, following, config))
                yield from done
        finally:
            for future in pending:  # the writer stopped (an error, a kill): start nothing more
                future.cancel()


def _node_labels(node: Node, source: SourceFile) -> str:
    return " ".join(
        x for x in (node.kind, node.symbol_kind, node.language, source.kind, source.labels.authority) if x
    )


def _title(node: Node) -> str:
    words = [node.name, node.qualname, *identifier_parts(node.name)]
    return " ".join(dict.fromkeys(w for w in words if w))


def _path_text(path: str) -> str:
    parts = path.replace("/", " ").replace(".", " ").replace("-", " ")
    return path + " " + expand_identifiers(parts)


def _dense_lines(graph: FileGraph, count: int) -> list[int]:
    """The numbers, ascending, of the lines that more than :data:`MAX_NODES_PER_LINE` nodes cover."""
    spans = [(n.start_line, min(n.end_line, count)) for n in graph.nodes if n.kind != NODE_FILE]
    if len(spans) <= MAX_NODES_PER_LINE:
        return []  # too few nodes to make any line dense: skip the per-line pass
    delta = [0] * (count + 2)
    for start, end in spans:
        if start <= end:
            delta[start] += 1
            delta[end + 1] -= 1
    covering = accumulate(delta[1 : count + 1])
    return [number for number, depth in enumerate(covering, 1) if depth > MAX_NODES_PER_LINE]


def _between(dense: list[int], start: int, end: int) -> list[int]:
    return dense[bisect_left(dense, start) : bisect_right(dense, end)]


def _gaps(start: int, end: int, skipped: list[int]) -> Iterable[tuple[int, int]]:
    """The runs of lines from ``start`` to ``end`` not in ``skipped`` (ascending, all inside the range)."""
    cursor = start
    for number in [*skipped, end + 1]:
        if number > cursor:
            yield cursor, number - 1
        cursor = number + 1


Piece = tuple[int, int] | str
"""A part of a node's FTS text: a run of the file's lines (first, last), or literal text (a signature)."""


def _uncovered_pieces(count: int, node: Node, children: list[Node], dense: list[int]) -> list[Piece]:
    """Module-level text of a file: the lines no child node covers, so symbol text is indexed once, and the
    dense lines, which no node's row holds."""
    covered = sorted((c.start_line, c.end_line) for c in children)
    keep: list[Piece] = []
    cursor = 1
    for start, end in covered:
        if start > cursor:
            keep.append((cursor, start - 1))
        keep.extend((n, n) for n in _between(dense, max(start, cursor), end))
        cursor = max(cursor, end + 1)
    if cursor <= min(node.end_line, count):
        keep.append((cursor, min(node.end_line, count)))
    return keep


def _node_pieces(node: Node, count: int, dense: list[int]) -> list[Piece]:
    """A node's lines, less its dense ones: those hold other nodes' text too, and go to the file's row. A
    node that starts on a dense line keeps its signature (its name and parameters) in that line's place."""
    end = min(node.end_line, count)
    skipped = _between(dense, node.start_line, end)
    if not skipped:
        return [(node.start_line, end)]
    first: list[Piece] = [node.signature + "\n"] if skipped[0] == node.start_line and node.signature else []
    return first + list(_gaps(node.start_line, end, skipped))


def _fts_content(node: Node, text: IndexedText, children: list[Node], dense: list[int]) -> str:
    """``expand_identifiers`` of the node's text, from the file scanned once (see :class:`IndexedText`)."""
    if text.count == 0:
        return ""
    if node.kind == NODE_FILE:
        pieces = _uncovered_pieces(text.count, node, children, dense)
    else:
        pieces = _node_pieces(node, text.count, dense)
    if len(pieces) == 1 and not isinstance(pieces[0], str):
        start, end = pieces[0]
        return text.expand(text.slice(start, end), text.identifiers(start, end))
    bodies: list[str] = []
    identifiers: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            bodies.append(piece)
            identifiers.extend(literal_identifiers(piece))
        else:
            bodies.append(text.slice(*piece))
            identifiers.extend(text.identifiers(*piece))
    return text.expand("".join(bodies), identifiers)


def _delete_file(conn: sqlite3.Connection, file_id: int) -> None:
    conn.execute(
        "DELETE FROM nodes_fts WHERE rowid IN (SELECT rowid FROM nodes WHERE file_id = ?)", (file_id,)
    )
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def fts_rows(source: SourceFile, graph: FileGraph) -> list[tuple[str, str, str, str]]:
    """The FTS fields (title, labels, path, content) of every node of a file, in node order."""
    file_node = _file_node_id(graph)
    top_level = [n for n in graph.nodes if n.kind != NODE_FILE and n.parent_id in (None, file_node)]
    lines = IndexedText(source.text)
    dense = _dense_lines(graph, lines.count)
    path_text = _path_text(source.path)
    return [
        (
            _title(node),
            _node_labels(node, source),
            path_text,
            _fts_content(node, lines, top_level if node.kind == NODE_FILE else [], dense),
        )
        for node in graph.nodes
    ]


_INSERT_FILE = (
    "INSERT INTO files (id, path, size, mtime_ns, inode, ctime_ns, sha256, kind, language, authority,"
    " freshness, sensitivity, line_count, text) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_NODE = (
    "INSERT INTO nodes (rowid, file_id, id, kind, name, qualname, symbol_kind, start_line, end_line,"
    " language, signature, docstring, parent_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_FTS = "INSERT INTO nodes_fts (rowid, title, labels, path, content) VALUES (?,?,?,?,?)"
_INSERT_EDGE = "INSERT OR IGNORE INTO edges (file_id, id, type, source, target) VALUES (?,?,?,?,?)"
_INSERT_REFS = {
    table: f"INSERT INTO {table} (file_id, node_id, {column}, line) VALUES (?,?,?,?)"
    for table, column in (("uses", "name"), ("imports", "module"), ("links", "target"))
}
_INSERT_CONTRADICTS = "INSERT INTO contradicts (file_id, target) VALUES (?,?)"


@dataclass
class _Batch:
    """The rows of a batch of files, gathered to be written one statement per table. One writer holds the
    lock, so the files' ids and the nodes' rowids (shared with their FTS rows) are assigned here, as SQLite
    would: the largest so far plus one."""

    file_id: int
    rowid: int
    files: list[tuple[object, ...]] = field(default_factory=list)
    nodes: list[tuple[object, ...]] = field(default_factory=list)
    fts: list[tuple[object, ...]] = field(default_factory=list)
    edges: list[tuple[object, ...]] = field(default_factory=list)
    refs: dict[str, list[tuple[object, ...]]] = field(
        default_factory=lambda: {table: [] for table in _INSERT_REFS}
    )
    contradicts: list[tuple[object, ...]] = field(default_factory=list)

    @classmethod
    def start(cls, conn: sqlite3.Connection) -> _Batch:
        file_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM files").fetchone()[0])
        return cls(file_id, int(conn.execute("SELECT coalesce(max(rowid), 0) FROM nodes").fetchone()[0]))

    def write(self, conn: sqlite3.Connection) -> None:
        conn.executemany(_INSERT_FILE, self.files)
        conn.executemany(_INSERT_NODE, self.nodes)
        conn.executemany(_INSERT_FTS, self.fts)
        conn.executemany(_INSERT_EDGE, self.edges)
        for table, values in self.refs.items():
            conn.executemany(_INSERT_REFS[table], values)
        conn.executemany(_INSERT_CONTRADICTS, self.contradicts)


def _insert_file(batch: _Batch, rows: FileRows) -> None:
    """Add one file's rows to ``batch`` (written by :meth:`_Batch.write`, in the same transaction)."""
    batch.file_id += 1
    file_id = batch.file_id
    batch.files.append((file_id, *rows.file))
    for node, text in zip(rows.nodes, rows.fts, strict=True):
        batch.rowid += 1
        batch.nodes.append((batch.rowid, file_id, *node))
        batch.fts.append((batch.rowid, *text))
    batch.edges.extend((file_id, *edge) for edge in rows.edges)
    batch.refs["uses"].extend((file_id, *use) for use in rows.uses)
    batch.refs["imports"].extend((file_id, *ref) for ref in rows.imports)
    batch.refs["links"].extend((file_id, *link) for link in rows.links)
    batch.contradicts.extend((file_id, target) for target in rows.contradicts)


def _insert_files(conn: sqlite3.Connection, files: list[FileRows]) -> None:
    """Write the rows of ``files``, one statement per table."""
    if not files:
        return
    batch = _Batch.start(conn)
    for rows in files:
        _insert_file(batch, rows)
    batch.write(conn)


def _file_node_id(graph: FileGraph) -> str | None:
    return next((n.id for n in graph.nodes if n.kind == NODE_FILE), None)


def _record_exclusion(
    conn: sqlite3.Connection, exclusion: Exclusion, stat: FileStat | None, key: str | None = None
) -> None:
    """``key``: the row's path when it is not ``exclusion.path`` (see :func:`exclusion_key`)."""
    values = (stat.size, stat.mtime_ns, stat.inode, stat.ctime_ns) if stat else (None, None, None, None)
    conn.execute(
        "INSERT OR REPLACE INTO excluded (path, reason, detail, size, mtime_ns, inode, ctime_ns)"
        " VALUES (?,?,?,?,?,?,?)",
        (exclusion.path if key is None else key, exclusion.reason, exclusion.detail, *values),
    )


def _next_generation(current: object) -> int:
    """The generation after ``current``; a random first one, so that caches keyed by (store path,
    generation) never take a rebuilt store for the one it replaced."""
    return current + 1 if isinstance(current, int) else secrets.randbits(GENERATION_START_BITS)


def _advance_generation(conn: sqlite3.Connection) -> None:
    """Move the generation inside the transaction that changes the store's nodes. A refresh commits in
    batches, and a reader's snapshot may fall between two of them: each committed state then has its own
    generation, so a cache keyed by generation never mixes two states (rows a ranking cached and rows its
    snapshot holds)."""
    _put_meta(conn, {"generation": _next_generation(read_meta(conn, "generation"))})


def _apply(
    conn: sqlite3.Connection, known: dict[str, _Known], batch: list[Loaded], with_row: set[str]
) -> tuple[int, int]:
    """Write a batch of read files; the files indexed, and the indexed files that left the index because
    reading them now excludes them (a secret appeared, the file grew too large): both change the
    generation, so no cache keeps the nodes they had."""
    removed = 0
    indexed: list[FileRows] = []
    with transaction(conn):
        for loaded in batch:
            old = known.get(loaded.stat.path)
            if old is not None:
                _delete_file(conn, old[1])
            path = loaded.stat.path
            if path in with_row:
                # The raw path too: a store written before rows were keyed so may hold it.
                conn.executemany("DELETE FROM excluded WHERE path = ?", {(path,), (exclusion_key(path),)})
            if isinstance(loaded.result, Exclusion):
                _record_exclusion(conn, loaded.result, loaded.stat, exclusion_key(path))
                removed += old is not None
            else:
                indexed.append(loaded.result)
        _insert_files(conn, indexed)
        if indexed or removed:
            _advance_generation(conn)
    return len(indexed), removed


_MANIFESTS = "SELECT path, text FROM files WHERE path = ? OR path LIKE ?"
_DECLARED = (
    "SELECT f.path, n.name FROM nodes n JOIN files f ON f.id = n.file_id"
    " WHERE n.language IN ({}) AND n.kind = 'symbol' AND n.qualname = n.name"
).format(", ".join("?" * len(DECLARING_LANGUAGES)))
_DECLARING = tuple(sorted(DECLARING_LANGUAGES))


def _resolve_imports(conn: sqlite3.Connection, only: set[str] | None) -> None:
    """Resolve imports to repository files: all of them when the set of paths or a ``composer.json`` (the
    PSR-4 prefixes PHP names resolve through) changed, else only ``only``'s, and every Scala or Kotlin
    file's when a file of that language is among them (a Scala or Kotlin name resolves to the file that
    defines it)."""
    paths = {r[0] for r in conn.execute("SELECT path FROM files")}
    manifests = {p: t for p, t in conn.execute(_MANIFESTS, (COMPOSER_MANIFEST, f"%/{COMPOSER_MANIFEST}"))}
    again = {language_for(path) for path in only or ()} & DECLARING_LANGUAGES
    query = "SELECT i.rowid, f.path, i.module, f.language FROM imports i JOIN files f ON f.id = i.file_id"
    rows = [r for r in conn.execute(query) if only is None or r[1] in only or r[3] in again]
    declaring = any(r[3] in DECLARING_LANGUAGES for r in rows)
    declared = conn.execute(_DECLARED, _DECLARING) if declaring else ()
    index = PathIndex(paths, psr4_prefixes(manifests), declared)  # a scan of the nodes only when needed
    updates = [
        (index.resolve_import(importer, module, language), rowid)
        for rowid, importer, module, language in rows
    ]
    with transaction(conn):
        conn.executemany("UPDATE imports SET resolved_path = ? WHERE rowid = ?", updates)


def count_edges(conn: sqlite3.Connection) -> int:
    """Stored edges plus resolved imports, links and name references (fan-out capped)."""
    stored = conn.execute("SELECT count(*) FROM edges").fetchone()[0]
    imports = conn.execute("SELECT count(*) FROM imports WHERE resolved_path IS NOT NULL").fetchone()[0]
    contradicts = conn.execute("SELECT count(*) FROM contradicts").fetchone()[0]
    references = conn.execute(
        "SELECT count(*) FROM (SELECT DISTINCT node_id, name FROM uses WHERE instr(name, ' ') = 0 AND name IN"
        " (SELECT name FROM nodes WHERE kind = 'symbol' GROUP BY name HAVING count(*) <= ?))",
        (MAX_REFERENCE_FANOUT,),
    ).fetchone()[0]
    links = conn.execute("SELECT count(*) FROM links").fetchone()[0]
    return int(stored + imports + contradicts + references + links)


def current_candidate(conn: sqlite3.Connection, root: Path, config: CorpusConfig) -> CandidateIdentity:
    pairs = [(r[0], r[1]) for r in conn.execute("SELECT path, sha256 FROM files ORDER BY path")]
    spec_sha = None
    if config.specification:
        row = conn.execute("SELECT sha256 FROM files WHERE path = ?", (config.specification,)).fetchone()
        spec_sha = row[0] if row else None
    return candidate_identity(root, pairs, spec_sha)


def _put_meta(conn: sqlite3.Connection, values: dict[str, object]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        [(k, canonical.encode(v).decode("ascii")) for k, v in values.items()],
    )


def _write_meta(conn: sqlite3.Connection, values: dict[str, object]) -> None:
    with transaction(conn):
        _put_meta(conn, values)


def read_meta(conn: sqlite3.Connection, key: str) -> object:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else canonical.load(row[0])


def refresh(
    conn: sqlite3.Connection,
    root: Path,
    config: CorpusConfig,
    progress: Progress | None = None,
    count: bool = False,
    walker: Callable[[], WalkResult] | None = None,
) -> RefreshReport:
    """Bring the store in line with the files under ``root``; see the module docstring.

    ``walker`` supplies the walk (a caller that watches the tree can hand back one known to be current)."""
    started = time.perf_counter_ns()
    report = RefreshReport()
    with writer_lock(root):
        known = load_known(conn)
        settled = _settled(conn)
        first = not known and not _has_excluded_stats(conn)
        if first:
            # An empty store holds no earlier reading: the files a killed run commits are read under this key.
            _write_meta(conn, {READING_KEY: reading_key(config)})
        elif missing_indexes(conn):
            _create_indexes(conn)  # a first build was killed before it created them
        work = plan(conn, root, config, None if walker is None else walker(), known)
        with _bulk(conn, first and len(work.to_read) >= BULK_MIN_FILES):
            total = len(work.to_read)
            done = 0
            batch: list[Loaded] = []
            for item in _load_all(root, work.to_read, config):
                batch.append(item)
                if len(batch) >= BATCH_FILES:
                    done = _flush(conn, known, batch, work, report, done, total, progress)
            done = _flush(conn, known, batch, work, report, done, total, progress)
        _remove(conn, known, work, report)
        _sync_exclusions(conn, work.walk_excluded, work.stale_excluded)
        changed = bool(report.files_indexed or report.files_removed)
        if (
            not settled
            or (changed and set(load_known(conn)) != set(known))
            or not read_meta(conn, "candidate")
        ):
            _resolve_imports(conn, None)
        elif report.files_indexed:
            read = {s.path for s in work.to_read}
            manifest = any(posixpath.basename(path) == COMPOSER_MANIFEST for path in read)
            _resolve_imports(conn, None if manifest else read)
        _finish(conn, root, config, report, work, count, settled and not changed)
    report.seconds_ms = (time.perf_counter_ns() - started) // 1_000_000
    return report


def _create_indexes(conn: sqlite3.Connection) -> None:
    with transaction(conn):
        ensure_indexes(conn)


@contextlib.contextmanager
def _bulk(conn: sqlite3.Connection, bulk: bool) -> Iterator[None]:
    """A first build of many files: without the secondary indexes (created once at its end, see
    :data:`~prooftext.store.schema.DEFERRED_INDEXES`) and without syncing the store to disk at each WAL
    checkpoint, the creation of those indexes included (syncing its checkpoints made it wait on the disk
    for as long again as it computed). A killed process loses nothing either way (every batch is committed,
    and its pages are in the operating system's hands); an operating system crash or a power loss during
    the build may damage the store, which holds nothing but what the files give: ``fsck`` then calls it
    corrupt, and ``index --rebuild`` repairs it. Every later refresh syncs as before."""
    if not bulk:
        yield
        return
    with transaction(conn):
        drop_deferred_indexes(conn)
    conn.execute("PRAGMA synchronous = OFF")
    try:
        yield
        _create_indexes(conn)
    finally:
        conn.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")


def _flush(
    conn: sqlite3.Connection,
    known: dict[str, _Known],
    batch: list[Loaded],
    work: Plan,
    report: RefreshReport,
    done: int,
    total: int,
    progress: Progress | None,
) -> int:
    if not batch:
        return done
    indexed, removed = _apply(conn, known, batch, work.with_exclusion_row)
    report.files_indexed += indexed
    report.files_removed += removed
    done += len(batch)
    batch.clear()
    if progress is not None:
        progress(done, total)
    return done


def _remove(conn: sqlite3.Connection, known: dict[str, _Known], work: Plan, report: RefreshReport) -> None:
    if not work.removed:
        return
    with transaction(conn):
        for path in work.removed:
            _delete_file(conn, known[path][1])
        _advance_generation(conn)
    report.files_removed += len(work.removed)


def _walk_rows(walk_excluded: list[Exclusion]) -> set[tuple[str, str, str]]:
    """The ``excluded`` rows (path key, reason, detail) that record ``walk_excluded``: of two exclusions
    under one key, the later, as writing them in order leaves it."""
    last = {exclusion_key(e.path): (e.reason, redact_path(e.detail)) for e in walk_excluded}
    return {(key, reason, detail) for key, (reason, detail) in last.items()}


def _stored_walk_rows(conn: sqlite3.Connection) -> set[tuple[str, str, str]]:
    return set(conn.execute("SELECT path, reason, detail FROM excluded WHERE size IS NULL"))


def exclusions_changed(conn: sqlite3.Connection, work: Plan) -> int:
    """How many exclusion rows a refresh by ``work`` would write or delete: the walk's exclusions that
    differ from those the last walk recorded (a link, an ignore rule or a special file added or gone),
    and read-time rows whose file is gone. A status counts them, so that a path the walk now leaves out
    is listed with its reason after the refresh a pack makes, not unknown until some other change."""
    return len(_walk_rows(work.walk_excluded) ^ _stored_walk_rows(conn)) + len(work.stale_excluded)


def _sync_exclusions(conn: sqlite3.Connection, walk_excluded: list[Exclusion], stale: list[str]) -> None:
    """Walk-time exclusions are recomputed each run; read-time ones persist with their stat data until
    their file is gone (``stale``, see :attr:`Plan.stale_excluded`). Neither changes a node, so the
    generation stays. Both are keyed by the redacted path (:func:`exclusion_key`): an ignored, oversized or
    linked file is never read, so nothing else would keep a credential its name spells out of the store."""
    rows = _walk_rows(walk_excluded)
    if not stale and len(rows) == len(walk_excluded) and rows == _stored_walk_rows(conn):
        return  # the walk left out what it left out last time: nothing to write
    with transaction(conn):
        conn.execute("DELETE FROM excluded WHERE size IS NULL")
        conn.executemany("DELETE FROM excluded WHERE path = ? AND size IS NOT NULL", [(k,) for k in stale])
        for exclusion in walk_excluded:
            shown = replace(exclusion, detail=redact_path(exclusion.detail))
            _record_exclusion(conn, shown, None, exclusion_key(exclusion.path))


def _settled(conn: sqlite3.Connection) -> bool:
    """Whether the last refresh that changed the store also finished (wrote the counts, the candidate and
    resolved imports for the store as it is): the meta's :data:`FINISHED_KEY` is the current generation. A
    refresh killed after committing files leaves the generation ahead, and the next one does that again."""
    generation = read_meta(conn, "generation")
    return isinstance(generation, int) and read_meta(conn, FINISHED_KEY) == generation


def _finish(
    conn: sqlite3.Connection,
    root: Path,
    config: CorpusConfig,
    report: RefreshReport,
    work: Plan,
    count: bool,
    unchanged: bool = False,
) -> None:
    """Report and record what the store holds. ``unchanged``: no file row moved since a refresh that
    finished (see :func:`_settled`), so its node count and repository digest stand (git HEAD may move)."""
    report.files_unchanged = len(work.unchanged)
    counts: dict[str, int] = {}
    for reason, n in conn.execute("SELECT reason, count(*) FROM excluded GROUP BY reason"):
        counts[reason] = int(n)
    report.files_skipped = counts
    stored = {key: read_meta(conn, key) for key in _FINISH_KEYS}
    cached_nodes = stored["nodes"]
    if unchanged and isinstance(cached_nodes, int):
        report.nodes = cached_nodes
    else:
        report.nodes = int(conn.execute("SELECT count(*) FROM nodes").fetchone()[0])
    cached_edges = stored["edges"]
    if not unchanged or not isinstance(cached_edges, int):
        report.edges = count_edges(conn) if count else None
    else:
        report.edges = cached_edges
    generation = stored["generation"]
    if not isinstance(generation, int):  # a store no refresh has changed yet
        generation = _next_generation(None)
    meta: dict[str, object] = {"edges": report.edges, "nodes": report.nodes, "generation": generation}
    refusal = specification_refusal_in_store(conn, config)
    if refusal is None:
        candidate = stored["candidate"]
        if unchanged and isinstance(candidate, dict) and isinstance(candidate.get("repository_sha256"), str):
            meta["candidate"] = {**candidate, "git_head": git_head(root)}
        else:
            meta["candidate"] = current_candidate(conn, root, config).to_dict()
    meta[READING_KEY] = reading_key(config)
    meta[FINISHED_KEY] = generation
    if all(stored.get(key) == value for key, value in meta.items()) and refusal is None:
        return  # nothing to record: a no-change refresh writes nothing
    with transaction(conn):
        # Without a candidate every later pack refreshes again (see Index.ensure_fresh) and fails the same
        # way until the specification is adopted, instead of packing from a corpus that lacks it.
        conn.execute("DELETE FROM meta WHERE key = 'candidate'")
        _put_meta(conn, meta)
    if refusal is not None:
        raise refusal


def specification_refusal_in_store(conn: sqlite3.Connection, config: CorpusConfig) -> ConfigError | None:
    """None when the declared specification (if any) is an indexed file; else the error naming the stored
    exclusions that left it out, as :func:`~prooftext.corpus.scan.scan` raises for a scan."""
    spec = config.specification
    if spec is None or conn.execute("SELECT 1 FROM files WHERE path = ?", (spec,)).fetchone():
        return None
    # Exclusions are keyed by the redacted path; read them back under the declared one.
    keys = {exclusion_key(path): path for path in specification_paths(spec)}
    marks = ",".join("?" * len(keys))
    rows = conn.execute(f"SELECT path, reason, detail FROM excluded WHERE path IN ({marks})", list(keys))
    return specification_refusal(
        spec, [Exclusion(keys[path], reason, detail) for path, reason, detail in rows]
    )
