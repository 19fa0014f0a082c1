"""Plain functions shared by the command line, JSON-RPC and MCP.

Each returns the JSON-ready dictionary every interface emits, so the three give the same result for the
same request. They compose core calls (index, memory, depth, conversation) and hold no wire concerns:
no transport, no error formatting. ``risk_of_changing`` and ``should_recall_memory`` are the ADR's two
agent-facing questions; the rest mirror the ``--json`` output of the matching CLI commands.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prooftext.conversation.health import compute_health
from prooftext.conversation.items import ContextItem, ItemKind, check_thread, make_item
from prooftext.conversation.surfacing import should_surface
from prooftext.conversation.turn import (
    DEFAULT_WINDOW_TOKENS,
    HistorySource,
    RetrievalResult,
    Retriever,
    TurnRequest,
    TurnSources,
    plan_turn,
    prompt_budget_for,
    select_memory,
)
from prooftext.corpus.safeio import Refusal, display_name, split_portable
from prooftext.depth.policy import DEFAULT_MODE, Mode, parse_mode, policy_for, should_recall_memory
from prooftext.depth.tiers import classify_detailed, recall_signal
from prooftext.errors import PathOutsideRootError, RangeError, RequestError, UnknownNameError
from prooftext.graph.model import NODE_FILE, NODE_SECTION, NODE_SYMBOL
from prooftext.graph.resolve import MAX_REFERENCE_FANOUT
from prooftext.index import Index, open_index
from prooftext.memory.store import (
    STORE_DIR,
    STORE_FILE,
    MemoryRecord,
    MemoryStore,
    StoredMessage,
    check_root,
)
from prooftext.memory.surface import candidates_for
from prooftext.store.fts import fts_quote
from prooftext.tokens import BYTES_BASIS, DEFAULT_TOKENIZER, Counter, TokenCount, get_counter

ITEM_KINDS: tuple[str, ...] = tuple(k.value for k in ItemKind)

RISK_DEFAULT_DEPTH = 1
RISK_DEFAULT_LIMIT = 100
MAX_DIRECTORY_FILES = 500
"""A directory target covers at most this many indexed files (the rest are reported as truncated)."""
MAX_DOC_HITS = 20
"""Documentation sections mentioning a target: at most this many."""
MAX_TARGET_CHARS = 4096
"""A risk target is at most this long (Linux's ``PATH_MAX``): no indexed path or name is longer, and a longer
pattern would pass SQLite's limit on LIKE patterns."""
MIN_BASENAME_CHARS = 4
"""A path's file name is matched in memory text only when it is at least this long (``a.py`` is noise)."""

# -- depth and memory, as the CLI prints them --------------------------------------------------------------


def depth_report(text: str, *, attachment: bool = False, active_files: int = 0) -> dict[str, Any]:
    """``prooftext depth --json``: the tier decision, its smart-mode policy and the recall signal."""
    decision = classify_detailed(text, has_attachment=attachment, active_files=active_files)
    signal = recall_signal(text)
    policy = policy_for(Mode.SMART, decision.tier, signal)
    return {"decision": decision.to_dict(), "policy": policy.to_dict(), "signal": signal.to_dict()}


def memory_add(
    root: Path | str,
    kind: str,
    text: str,
    *,
    source: str,
    strength: str | None = None,
    thread: str | None = None,
) -> dict[str, Any]:
    """``prooftext memory add --json``: the stored record."""
    with MemoryStore.open(root) as store:
        record = store.add(kind, text, source=source, strength=strength, thread=thread)
    return {"record": record.to_dict()}


def memory_list(root: Path | str, *, kind: str | None = None, status: str | None = None) -> dict[str, Any]:
    """``prooftext memory list --json``: records in id order, optionally of one kind and/or status."""
    with MemoryStore.open(root) as store:
        records = store.records(kind=kind, status=status)
    return {"records": [r.to_dict() for r in records]}


def _existing_store(root: Path | str) -> MemoryStore | None:
    """The memory store of ``root`` when one exists; None otherwise (nothing is created)."""
    path = Path(root) / STORE_DIR / STORE_FILE
    return MemoryStore(path) if path.is_file() else None


@contextmanager
def renamed_field(inner: str, outer: str) -> Iterator[None]:
    """Report a request error about the core parameter ``inner`` under ``outer``, the name the caller used.

    The core names its own parameters (``TurnRequest(window_tokens=…)``); an interface that calls the same
    value ``window`` or ``task`` must say ``window`` or ``task``, or the caller is told to fix a field it
    never sent."""
    try:
        yield
    except RequestError as exc:
        if exc.field != inner:
            raise
        details = {k: v for k, v in exc.details.items() if k != "field"}
        raise type(exc)(exc.message, field=outer, **details) from None


CONTEXT_FIELDS = frozenset({"kind", "text"})
"""What one entry of ``context`` holds, exactly (as the ``memory.surface`` params schema says)."""


def _context_items(context: object, task: str, counter: Counter) -> list[ContextItem]:
    """The caller's ``context`` entries as items, then the task as the current turn; a malformed entry is a
    request error naming ``context`` and the entry's index, never a ``KeyError`` or ``TypeError``."""
    if isinstance(context, (str, bytes, Mapping)) or not isinstance(context, Sequence):
        raise RequestError("context must be a list of {kind, text} objects", field="context")
    items: list[ContextItem] = []
    for pos, entry in enumerate(context):
        if not isinstance(entry, Mapping) or set(entry) != CONTEXT_FIELDS:
            raise RequestError(
                f"context[{pos}] must be an object with exactly the fields 'kind' and 'text'",
                field="context",
                index=pos,
            )
        kind, text = entry["kind"], entry["text"]
        if not isinstance(kind, str) or not isinstance(text, str):
            raise RequestError(f"context[{pos}]: kind and text must be strings", field="context", index=pos)
        if kind not in ITEM_KINDS:
            raise UnknownNameError(
                f"context[{pos}]: unknown item kind {kind!r}; known: {', '.join(ITEM_KINDS)}",
                field="context",
                index=pos,
                known=list(ITEM_KINDS),
            )
        items.append(make_item(kind, text, counter=counter))
    items.append(make_item(ItemKind.USER, task, item_id="turn:current", current=True, counter=counter))
    return items


def _surfaced(item: ContextItem) -> dict[str, Any]:
    return {
        "item_id": item.item_id,
        "kind": item.meta.get("record_kind"),
        "label": item.label,
        "record_id": item.meta.get("record_id"),
        "strength": item.meta.get("strength"),
        "text": item.text,
        "tokens": item.tokens.to_dict() if item.tokens else None,
    }


def recall_memory(
    root: Path | str,
    task: str,
    *,
    mode: str = DEFAULT_MODE.value,
    context: Sequence[Mapping[str, str]] = (),
    window_tokens: int = DEFAULT_WINDOW_TOKENS,
    tokenizer: str = DEFAULT_TOKENIZER,
    has_attachment: bool = False,
    active_files: int = 0,
) -> dict[str, Any]:
    """Should memory be recalled for ``task``, and which records fit the surfacing budget (ADR-0025).

    The depth gate decides first (a greeting never searches memory); then, exactly as a planned turn does:
    the prompt budget is the window less the policy's output budget, the context's health is measured
    against it, and ``select`` keeps the candidates that fit the policy's memory share of it.
    """
    base = check_root(root)
    with renamed_field("text", "task"):
        gate = should_recall_memory(task, mode=mode, has_attachment=has_attachment, active_files=active_files)
    out: dict[str, Any] = {"gate": gate.to_dict(), "recall": gate.recall, "items": [], "note": None}
    out.update({"health": None, "surface_check": None, "select": None})
    if not gate.recall:
        out["note"] = "depth gate: memory search is off for this message"
        return out
    counter = get_counter(tokenizer)
    prompt_budget = prompt_budget_for(window_tokens, gate.policy)
    health = compute_health(_context_items(context, task, counter), task, counter, prompt_budget)
    check = should_surface(health)
    out.update({"health": health.to_dict(), "surface_check": check.to_dict()})
    store = _existing_store(base)
    if store is None:
        out["note"] = "no memory store under this root"
        return out
    with store:
        candidates = candidates_for(store, task, counter)
    decision = select_memory(candidates, task, gate.policy, health, check, counter)
    out.update({"select": decision.to_dict(), "items": [_surfaced(i) for i in decision.items]})
    return out


# -- turn planning -------------------------------------------------------------------------------------------


def _history_item(message: StoredMessage) -> ContextItem:
    kind = ItemKind.USER if message.role == "user" else ItemKind.ASSISTANT
    return make_item(
        kind, message.text, item_id=f"msg:{message.id}", thread=message.thread, created_ms=message.created_ms
    )


LADDER_RUNGS = 4
"""The adaptive ladder of a turn's retrieval climbs from a quarter of the retrieval budget in quarter steps."""


class LazyIndex:
    """The index of ``root``, opened at its first use and closed by :meth:`close`: a turn that never
    retrieves (a surface turn) never creates or touches the index store."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._index: Index | None = None

    def __call__(self) -> Index:
        if self._index is None:
            self._index = open_index(self.root)
        return self._index

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None


def index_retriever_for(
    index: Index | Callable[[], Index], basis: str, before: Callable[[], object] | None = None
) -> Retriever:
    """A turn retriever over an index (the ladder climbs in quarters of the retrieval budget).

    ``index`` is an open index, or a function that gives one at each retrieval (:class:`LazyIndex` opens it
    at the first); an index that cannot be opened fails the retrieval step with its code. ``before``
    (optional, no arguments) runs before each pack, e.g. a shared freshness check; the pack then skips its
    own.
    """

    def retrieve(query: str, max_tokens: int) -> RetrievalResult | None:
        step = max(1, max_tokens // LADDER_RUNGS)
        opened = index if isinstance(index, Index) else index()
        if before is not None:
            before()
        result = opened.adaptive_pack(
            query,
            max_tokens=max_tokens,
            min_tokens=step,
            token_step=step,
            tokenizer=DEFAULT_TOKENIZER if basis == BYTES_BASIS else basis,
            refresh=before is None,
        )
        tokens = result.packet.prompt_tokens
        return RetrievalResult(result.prompt, TokenCount(tokens.count, tokens.basis), result.to_dict())

    return retrieve


def turn_plan(
    root: Path | str,
    text: str,
    *,
    thread: str = "main",
    mode: str = DEFAULT_MODE.value,
    window: int = DEFAULT_WINDOW_TOKENS,
    tokenizer: str = DEFAULT_TOKENIZER,
    retriever: Retriever | None = None,
) -> dict[str, Any]:
    """``prooftext turn --dry-run --json``: plan one turn; nothing is sent and nothing of the conversation is
    recorded (no memory store, thread or message is created).

    A standard or deep turn retrieves evidence as a real turn would, so the plan shows what would be sent:
    that opens the project's index and may build or refresh it (``ROOT/.prooftext/index.sqlite``), a cache
    derived from the files, not a record of the turn.
    """
    base = check_root(root)
    check_thread(thread)
    parse_mode(mode)
    check_window(window, "window")
    counter = get_counter(tokenizer)
    index = LazyIndex(base)
    if retriever is None:
        retriever = index_retriever_for(index, counter.basis)
    store = _existing_store(base)
    try:
        existed = store is not None and store.has_thread(thread)
        memory = None if store is None else (lambda task: candidates_for(store, task, counter))
        sources = TurnSources(history=_history_source(store), memory=memory, retriever=retriever)
        with renamed_field("window_tokens", "window"):
            plan = plan_turn(
                TurnRequest(thread, text, mode=mode, window_tokens=window), sources, counter=counter
            )
    finally:
        index.close()
        if store is not None:
            store.close()
    note = None if existed else "new thread: no history"
    return {
        "dry_run": True,
        "plan": plan.to_dict(),
        "thread": {"exists": existed, "name": thread, "note": note},
    }


def check_window(window: object, field: str) -> int:
    """A context window is a positive integer; the error names the caller's own ``field``."""
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise RangeError(f"{field} must be a positive integer (tokens)", field=field)
    return window


def _history_source(store: MemoryStore | None) -> HistorySource:
    def load(thread: str, limit: int | None) -> list[ContextItem]:
        if store is None:
            return []
        return [_history_item(m) for m in store.history(thread, limit)]

    return load


# -- risk of changing ----------------------------------------------------------------------------------------

_NODE_SQL = (
    "SELECT n.id, n.kind, n.name, n.qualname, f.path, n.start_line, n.end_line"
    " FROM nodes n JOIN files f ON f.id = n.file_id"
)


@dataclass(frozen=True)
class _Node:
    node_id: str
    kind: str
    name: str
    qualname: str
    path: str
    start_line: int
    end_line: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "lines": [self.start_line, self.end_line],
            "node_id": self.node_id,
            "path": self.path,
            "qualname": self.qualname,
        }

    @property
    def order(self) -> tuple[str, int, str]:
        return (self.path, self.start_line, self.node_id)


def _nodes(conn: sqlite3.Connection, where: str, args: Sequence[Any]) -> list[_Node]:
    rows = conn.execute(f"{_NODE_SQL} WHERE {where}", tuple(args)).fetchall()
    return sorted((_Node(*r) for r in rows), key=lambda n: n.order)


def _is_path_like(ref: str) -> bool:
    return "/" in ref or "\\" in ref or ref.startswith(".") or "\x00" in ref


def _checked_path(ref: str) -> str:
    try:
        split_portable(ref)
    except Refusal as refusal:
        raise PathOutsideRootError(
            f"target {display_name(ref)!r} is not a path under the root: {refusal.detail}",
            field="targets",
            path=display_name(ref),
        ) from None
    return ref


def _like_prefix(path: str) -> str:
    return path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"


def _path_targets(conn: sqlite3.Connection, path: str) -> tuple[str, list[_Node], bool]:
    """(kind, nodes, truncated): a file's own node and its symbols, or every file under a directory."""
    where = "f.path = ? AND n.kind IN (?, ?)"
    found = _nodes(conn, where, (path, NODE_FILE, NODE_SYMBOL))
    if found:
        return "path", found, False
    files = [
        r[0]
        for r in conn.execute(
            "SELECT path FROM files WHERE path LIKE ? ESCAPE '\\' ORDER BY path LIMIT ?",
            (_like_prefix(path.rstrip("/")), MAX_DIRECTORY_FILES + 1),
        )
    ]
    truncated = len(files) > MAX_DIRECTORY_FILES
    nodes: list[_Node] = []
    for file_path in files[:MAX_DIRECTORY_FILES]:
        nodes.extend(_nodes(conn, where, (file_path, NODE_FILE, NODE_SYMBOL)))
    return "directory", nodes, truncated


def _resolve_target(conn: sqlite3.Connection, ref: str) -> tuple[str, list[_Node], bool]:
    if not isinstance(ref, str) or not ref.strip():
        raise RequestError("every target must be a non-empty string", field="targets")
    if len(ref) > MAX_TARGET_CHARS:
        raise RangeError(f"a target is at most {MAX_TARGET_CHARS} characters", field="targets")
    if _is_path_like(ref):
        return _path_targets(conn, _checked_path(ref.rstrip("/") or ref))
    exact_file = conn.execute("SELECT 1 FROM files WHERE path = ?", (ref,)).fetchone()
    if exact_file is not None:
        return _path_targets(conn, ref)
    symbols = _nodes(conn, "n.kind = ? AND (n.name = ? OR n.qualname = ?)", (NODE_SYMBOL, ref, ref))
    if symbols:
        return "symbol", symbols, False
    kind, nodes, truncated = _path_targets(conn, ref)  # a top-level directory named without a slash
    return (kind, nodes, truncated) if nodes else ("symbol", [], False)


def _definitions(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM nodes WHERE kind = ? AND name = ?", (NODE_SYMBOL, name)
    ).fetchone()
    return int(row[0])


def _dependents_of(conn: sqlite3.Connection, node: _Node) -> tuple[list[tuple[_Node, str]], str | None]:
    """Direct dependents of one node, and a note when its name is too common to follow."""
    if node.kind == NODE_FILE:
        where = "n.id IN (SELECT node_id FROM imports WHERE resolved_path = ?)"
        return [(n, f"imports {node.path}") for n in _nodes(conn, where, (node.path,))], None
    if node.kind != NODE_SYMBOL:
        return [], None
    if _definitions(conn, node.name) > MAX_REFERENCE_FANOUT:
        return [], f"{node.name}: defined more than {MAX_REFERENCE_FANOUT} times; references not followed"
    users = _nodes(conn, "n.id IN (SELECT node_id FROM uses WHERE name = ?)", (node.name,))
    return [(n, f"references {node.qualname}") for n in users if n.node_id != node.node_id], None


def _walk_dependents(
    conn: sqlite3.Connection, roots: list[_Node], depth: int, limit: int
) -> tuple[list[dict[str, Any]], list[str], bool]:
    """Breadth-first over "is used by" and "is imported by", each node once, at most ``limit`` found."""
    seen = {n.node_id for n in roots}
    frontier = list(roots)
    found: list[dict[str, Any]] = []
    notes: list[str] = []
    for distance in range(1, depth + 1):
        next_frontier: list[_Node] = []
        for node in frontier:
            deps, note = _dependents_of(conn, node)
            if note and note not in notes:
                notes.append(note)
            for dep, via in deps:
                if dep.node_id in seen:
                    continue
                if len(found) >= limit:
                    return found, notes, True
                seen.add(dep.node_id)
                found.append({**dep.to_dict(), "distance": distance, "via": via})
                next_frontier.append(dep)
        frontier = next_frontier
    return found, notes, False


def _terms_of(ref: str, kind: str, nodes: Iterable[_Node]) -> list[str]:
    """Words that name a target in free text: the reference itself, a path's file name, symbol names."""
    terms = [ref.rstrip("/")]
    if kind != "symbol":
        base = ref.rstrip("/").rsplit("/", 1)[-1]
        if len(base) >= MIN_BASENAME_CHARS:
            terms.append(base)
    else:
        terms.extend(n.name for n in nodes)
    return list(dict.fromkeys(t for t in terms if t))


def _mentions(text: str, terms: Sequence[str]) -> list[str]:
    return [t for t in terms if re.search(rf"(?<![\w/.-]){re.escape(t)}(?![\w/-])", text, re.IGNORECASE)]


def _memory_cover(root: Path, terms: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {"constraints": [], "decisions": [], "other_memory": []}
    store = _existing_store(root)
    if store is None or not terms:
        return out
    with store:
        records: list[MemoryRecord] = store.candidates()
    for record in records:
        matched = _mentions(record.text, terms)
        if not matched:
            continue
        bucket = {"constraint": "constraints", "decision": "decisions"}.get(record.kind, "other_memory")
        out[bucket].append({**record.to_dict(), "matched": matched})
    return out


def _docs_mentioning(conn: sqlite3.Connection, names: Sequence[str]) -> list[dict[str, Any]]:
    hits: dict[str, dict[str, Any]] = {}
    for name in names:
        rows = conn.execute(
            f"{_NODE_SQL} WHERE n.kind = ? AND n.rowid IN"
            " (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?)",
            (NODE_SECTION, "content:" + fts_quote(name), MAX_DOC_HITS),
        ).fetchall()
        for row in rows:
            node = _Node(*row)
            entry = hits.setdefault(node.node_id, {**node.to_dict(), "mentions": []})
            entry["mentions"].append(name)
    return sorted(hits.values(), key=lambda d: (d["path"], d["lines"][0], d["node_id"]))[:MAX_DOC_HITS]


def risk_of_changing(
    index: Index,
    targets: Sequence[str],
    *,
    depth: int = RISK_DEFAULT_DEPTH,
    limit: int = RISK_DEFAULT_LIMIT,
) -> dict[str, Any]:
    """What depends on these paths or symbols in the graph, and which decisions and constraints cover them.

    Paths are repository-relative files or directories (anything that would leave the root is refused);
    other strings are symbol names or qualified names. Dependents are the symbols that reference a target's
    name and the files that import a target file, followed ``depth`` hops. Memory records (active decisions,
    constraints, discoveries, unresolved failures) and documentation sections that mention a target are
    listed with the words that matched.
    """
    if not targets:
        raise RequestError("name at least one path or symbol", field="targets")
    conn = index.conn
    resolved: list[dict[str, Any]] = []
    roots: list[_Node] = []
    terms: list[str] = []
    symbol_names: list[str] = []
    truncated = False
    for ref in targets:
        kind, nodes, cut = _resolve_target(conn, ref)
        truncated = truncated or cut
        resolved.append({"kind": kind, "matches": [n.to_dict() for n in nodes], "ref": ref})
        roots.extend(n for n in nodes if n.node_id not in {r.node_id for r in roots})
        terms.extend(_terms_of(ref, kind, nodes))
        symbol_names.extend(n.name for n in nodes if n.kind == NODE_SYMBOL)
    dependents, notes, walk_cut = _walk_dependents(conn, roots, depth, limit)
    files = sorted({d["path"] for d in dependents} | {n.path for n in roots})
    return {
        "dependents": dependents,
        "docs": _docs_mentioning(conn, list(dict.fromkeys(symbol_names))),
        "files_affected": files,
        "notes": notes,
        "targets": resolved,
        "truncated": truncated or walk_cut,
        "unresolved": [t["ref"] for t in resolved if not t["matches"]],
        **_memory_cover(index.root, list(dict.fromkeys(terms))),
    }
