"""Corpus-wide facts the ranking reads (file paths and ids, test and documentation files, path suffixes and
components), built once per index generation and rolled forward over the common refresh."""

from __future__ import annotations

import functools
import posixpath
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from prooftext.cache import BoundedCache
from prooftext.corpus.kinds import KIND_CODE
from prooftext.graph.languages import TSX, TYPESCRIPT, language_for
from prooftext.select.policy import RankingPolicy, compiled
from prooftext.store.queries import file_list

FileFacts = dict[str, tuple[int, str, str, int, int]]
"""Every file's id, kind, SHA-256, size in bytes and line count, by path."""


@dataclass
class CorpusFacts:
    """Corpus-wide facts the ranking reads, built once per index generation."""

    paths: dict[int, str]
    ids: dict[str, int]
    test_files: set[int]
    doc_files: set[int]
    """Documentation and every other file that is not code (configuration, data, text), by kind or path."""
    data_files: set[int]
    """Data and history files: vendored, minified, generated, translation catalogues, change logs."""
    suffixes: dict[str, list[int]]
    components: dict[str, set[int]]


CORPUS_STORES = 4
"""Corpus facts kept for the latest generation of this many stores: a server or evaluation reuses them."""

Rules = tuple[str, str, str, str, int]
"""The policy's test, documentation and data path patterns, its license name pattern and its dense line
length: what the facts depend on."""


@dataclass(frozen=True)
class _CorpusState:
    generation: int
    files: FileFacts
    """What the corpus facts were derived from."""
    corpus: CorpusFacts


_corpus_states: BoundedCache[tuple[str, Rules], _CorpusState] = BoundedCache(CORPUS_STORES)


def _rules(policy: RankingPolicy) -> Rules:
    return (
        policy.test_path_pattern,
        policy.doc_path_pattern,
        policy.data_path_pattern,
        policy.license_name_pattern,
        policy.dense_line_bytes,
    )


def find_test_files(paths: dict[int, str], policy: RankingPolicy) -> set[int]:
    """Files under a test directory or named as tests."""
    pattern = compiled(policy.test_path_pattern)
    return {fid for fid, path in paths.items() if pattern.search(path)}


def find_data_files(files: FileFacts, policy: RankingPolicy, only: set[str] | None = None) -> set[int]:
    """Files whose path says data or history, and files whose lines are minified-long (of ``only``'s paths,
    when given)."""
    pattern = compiled(policy.data_path_pattern)
    paths = files.keys() if only is None else only & files.keys()
    out: set[int] = set()
    for path in paths:
        fid, _kind, _sha, size, lines = files[path]
        if pattern.search(path.lower()) or size > policy.dense_line_bytes * max(1, lines):
            out.add(fid)
    return out


LICENSE_DIRECTORIES = frozenset({"license", "licenses"})
"""A license kept in a directory of these names speaks for the directory above it."""


@functools.cache
def _by_line(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


def _licenses(paths: Iterable[str], policy: RankingPolicy) -> list[str]:
    """The paths of ``paths`` that name a license file: one search of the pattern over all the paths at
    once, lower-cased, one per line (a license is rare; a search per path cost a 100,000-file corpus a
    tenth of a second)."""
    if not policy.license_name_pattern:
        return []
    listed = list(paths)
    text = "\n".join(listed).lower()
    found: list[str] = []
    line, counted = 0, 0
    for match in _by_line(policy.license_name_pattern).finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        if not found or found[-1] != listed[line]:
            found.append(listed[line])
    return found


def _licensed_directories(files: FileFacts, policy: RankingPolicy) -> set[str]:
    """The directories below the root that hold a license of their own: a text no other directory's license
    (the root's included) has, outside documentation and tests (a documentation page about the license,
    a test fixture)."""
    skip = (compiled(policy.doc_path_pattern), compiled(policy.test_path_pattern))
    holders: dict[str, set[str]] = defaultdict(set)
    for path in _licenses(files, policy):
        if not any(p.search(path) for p in skip):
            directory = posixpath.dirname(path)
            if posixpath.basename(directory).lower() in LICENSE_DIRECTORIES:
                directory = posixpath.dirname(directory)
            holders[files[path][2]].add(directory)
    return {next(iter(dirs)) for dirs in holders.values() if len(dirs) == 1 and next(iter(dirs))}


def _language(path: str) -> str | None:
    """A file's language, TypeScript's two grammars as one."""
    language = language_for(path)
    return TYPESCRIPT if language == TSX else language


def _main_language(files: FileFacts) -> str | None:
    """The language of the most code files (counted by suffix, then named)."""
    suffixes = Counter(path[path.rfind(".") :] for path, entry in files.items() if entry[1] == KIND_CODE)
    counts: Counter[str] = Counter()
    for suffix, count in suffixes.items():
        language = _language("file" + suffix)
        if language is not None:
            counts[language] += count
    return min(counts, key=lambda language: (-counts[language], language)) if counts else None


def _under(path: str, directories: set[str]) -> str | None:
    directory = posixpath.dirname(path)
    while directory:
        if directory in directories:
            return directory
        directory = posixpath.dirname(directory)
    return None


def find_third_party(files: FileFacts, policy: RankingPolicy, only: Iterable[str] | None = None) -> set[int]:
    """Files of third-party copies (of ``only``'s paths, when given): under a directory holding a license of
    its own and no code in the repository's main language, as a C library bundled with Python code is. A
    licensed copy in the main language is often adopted and maintained (a parser taken from another
    project), so it is not one."""
    licensed = _licensed_directories(files, policy)
    if not licensed:
        return set()
    below = tuple(directory + "/" for directory in licensed)
    inside = [path for path in files if path.startswith(below)]
    main = _main_language(files)
    copies = licensed - {_under(path, licensed) for path in inside if _language(path) == main}
    if not copies:
        return set()
    prefixes = tuple(d + "/" for d in copies)
    paths = inside if only is None else only
    return {files[path][0] for path in paths if path.startswith(prefixes)}


def build_corpus(files: FileFacts, policy: RankingPolicy) -> CorpusFacts:
    """The facts of ``files``, read afresh."""
    paths = {entry[0]: path for path, entry in sorted(files.items(), key=lambda kv: kv[1][0])}
    docs = {fid for fid, kind, *_rest in files.values() if kind != KIND_CODE}
    pattern = compiled(policy.doc_path_pattern)
    docs |= {fid for fid, path in paths.items() if pattern.search(path)}
    suffixes: dict[str, list[int]] = defaultdict(list)
    components: dict[str, set[int]] = defaultdict(set)
    for fid, path in paths.items():
        for suffix in _suffixes(path):
            suffixes[suffix].append(fid)
        for word in _components(path):
            components[word].add(fid)
    ids = {path: fid for fid, path in paths.items()}
    tests = find_test_files(paths, policy)
    data = find_data_files(files, policy) | find_third_party(files, policy)
    return CorpusFacts(paths, ids, tests, docs, data, dict(suffixes), dict(components))


def _suffixes(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[start:]) for start in range(len(parts))]


def _components(path: str) -> set[str]:
    lowered = path.lower().split("/")
    return {*lowered[:-1], lowered[-1].rsplit(".", 1)[0]}


def _renumbered(corpus: CorpusFacts, moved: dict[str, tuple[int, int]]) -> CorpusFacts:
    """``corpus`` with the files in ``moved`` (path: old id, new id) under their new ids; nothing shared is
    changed in place, so earlier generations' facts stay intact for requests still using them."""
    swap = {old: new for old, new in moved.values()}
    paths = {swap.get(fid, fid): path for fid, path in corpus.paths.items()}
    paths = dict(sorted(paths.items()))
    ids = {**corpus.ids, **{path: new for path, (_old, new) in moved.items()}}
    suffixes = dict(corpus.suffixes)
    components = dict(corpus.components)
    for path in moved:
        for suffix in _suffixes(path):
            suffixes[suffix] = sorted(swap.get(fid, fid) for fid in suffixes[suffix])
        for word in _components(path):
            components[word] = {swap.get(fid, fid) for fid in components[word]}
    tests = {swap.get(fid, fid) for fid in corpus.test_files}
    docs = {swap.get(fid, fid) for fid in corpus.doc_files}
    return CorpusFacts(paths, ids, tests, docs, corpus.data_files, suffixes, components)


def _roll_forward(before: _CorpusState, files: FileFacts, policy: RankingPolicy) -> CorpusFacts | None:
    """The corpus after edits that kept every path and kind (the common refresh): edited files got new ids,
    and only their data status (a minified line length) can differ. None when files came, went or changed
    kind."""
    if files.keys() != before.files.keys():
        return None
    if any(files[path][2] != before.files[path][2] for path in _licenses(files, policy)):
        return None  # a license's text changed: which directories are copies may have changed too
    edited: dict[str, tuple[int, int]] = {}
    for path, (fid, kind, sha, _size, _lines) in files.items():
        old_fid, old_kind, old_sha, _old_size, _old_lines = before.files[path]
        if old_kind != kind:
            return None
        if (old_fid, old_sha) != (fid, sha):
            edited[path] = (old_fid, fid)
    corpus = _renumbered(before.corpus, edited)
    olds = {old for old, _new in edited.values()}
    data = (corpus.data_files - olds) | find_data_files(files, policy, set(edited))  # old ids, not swapped
    data |= find_third_party(files, policy, edited)
    return CorpusFacts(
        corpus.paths,
        corpus.ids,
        corpus.test_files,
        corpus.doc_files,
        data,
        corpus.suffixes,
        corpus.components,
    )


def corpus_facts(
    conn: sqlite3.Connection, generation: tuple[str, int] | None, policy: RankingPolicy
) -> CorpusFacts:
    """The facts of the store's ``generation`` under ``policy``'s rules, kept per store (not when None)."""
    key = None if generation is None else (generation[0], _rules(policy))
    state = None if key is None else _corpus_states.get(key)
    if state is not None and generation is not None and state.generation == generation[1]:
        return state.corpus
    files = {path: (fid, kind, sha, size, lines) for path, fid, kind, sha, size, lines in file_list(conn)}
    corpus = None if state is None else _roll_forward(state, files, policy)
    if corpus is None:
        corpus = build_corpus(files, policy)
    if key is not None and generation is not None:
        _corpus_states.put(key, _CorpusState(generation[1], files, corpus))
    return corpus
