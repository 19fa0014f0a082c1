"""Conversation turns over a project: plan one (depth tier, memory, retrieval, a token-ledgered prompt), send
it to a model and record it in its thread.

A :class:`Conversation` holds what a turn needs from the project root: the memory store (history and typed
memory), the index (opened only when a turn retrieves) and the token counter. ``turn``, ``chat``, JSON-RPC
``turn.plan`` and MCP ``plan_turn`` all plan through it, so they cannot drift.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from prooftext.adaptive.ladder import Ladder
from prooftext.conversation.files import ATTACHMENT, read_turn_files, turn_files
from prooftext.conversation.health import check_window
from prooftext.conversation.items import DEFAULT_THREAD, ContextItem, ItemKind, check_thread, make_item
from prooftext.conversation.turn import (
    RetrievalResult,
    Retriever,
    TurnPlan,
    TurnRequest,
    TurnSources,
    plan_turn,
)
from prooftext.corpus.stores import MEMORY_FILE, STORE_DIR
from prooftext.depth.policy import parse_mode
from prooftext.depth.signals import KnownTerms, RepositoryTerms, memory_terms_in, names_in
from prooftext.errors import ProoftextError, RequestError
from prooftext.index import Index, open_index
from prooftext.llm.backends import ChatBackend, ChatResult, DeltaCallback
from prooftext.llm.signal import SignalReport, signal_report
from prooftext.memory.store import MemoryStore, StoredMessage, ThreadInfo, check_root
from prooftext.memory.surface import candidates_for
from prooftext.select.query import MIN_BYTES, MIN_TOKENS, Query
from prooftext.tokens import BYTES_BASIS, DEFAULT_TOKENIZER, TokenCount, get_counter

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
    """A turn retriever over an index (the ladder climbs in quarters of the retrieval budget), packing in the
    turn's own ``basis``: in ``bytes`` the block fits a byte budget. A budget below the smallest ceiling a
    pack takes in that basis (:data:`MIN_BYTES` bytes, :data:`MIN_TOKENS` token) skips the search, saying so.

    ``index`` is an open index, or a function that gives one at each retrieval (:class:`LazyIndex` opens it
    at the first); an index that cannot be opened fails the retrieval step with its code. ``before``
    (optional, no arguments) runs before each pack, e.g. a shared freshness check; the pack then skips its
    own.
    """

    least = MIN_BYTES if basis == BYTES_BASIS else MIN_TOKENS

    def retrieve(query: str, max_tokens: int) -> RetrievalResult | None:
        if max_tokens < least:
            why = f"a retrieval budget of {max_tokens} {basis} is below the smallest pack ceiling, {least}"
            return RetrievalResult("", TokenCount(0, basis), skipped=why)
        step = max(1, max_tokens // LADDER_RUNGS)
        opened = index if isinstance(index, Index) else index()
        if before is not None:
            before()
        result = opened.adaptive_pack(
            Query(query, tokenizer=basis),
            # The first rung is a pack ceiling too, so it is never below the smallest one (bytes: 1024).
            ladder=Ladder(max_tokens=max_tokens, min_tokens=max(step, least), token_step=step),
            refresh=before is None,
        )
        packet = result.packet
        size = TokenCount(packet.prompt_tokens.count, packet.prompt_tokens.basis)
        return RetrievalResult(result.prompt, size, result.to_dict(), evidence=len(packet.evidence))

    return retrieve


def repository_terms_of(index: Index) -> RepositoryTerms:
    """What an index's repository is called by: its symbol names, file paths and section headings. The index
    is brought up to date first (as a retrieval would), so a root never indexed is indexed now."""
    index.ensure_fresh()
    conn = index.conn
    symbols = [str(r[0]) for r in conn.execute("SELECT DISTINCT name FROM nodes WHERE kind = 'symbol'")]
    headings = [str(r[0]) for r in conn.execute("SELECT DISTINCT name FROM nodes WHERE kind = 'section'")]
    paths = [str(r[0]) for r in conn.execute("SELECT path FROM files")]
    return RepositoryTerms.build(symbols, paths, headings)


def _history_item(message: StoredMessage) -> ContextItem:
    kind = ItemKind.USER if message.role == "user" else ItemKind.ASSISTANT
    return make_item(
        kind, message.text, item_id=f"msg:{message.id}", thread=message.thread, created_ms=message.created_ms
    )


def check_turn(root: Path | str, turn: TurnRequest) -> Path:
    """Refuse a bad root, thread, mode or window before anything is opened; the root as a path. ``turn``
    must be a :class:`TurnRequest`."""
    if not isinstance(turn, TurnRequest):
        raise RequestError(f"turn must be a prooftext.TurnRequest, not {type(turn).__name__}", field="turn")
    base = check_root(root)
    check_thread(turn.thread)
    parse_mode(turn.mode)
    check_window(turn.window_tokens)
    return base


@dataclass(frozen=True)
class Reply:
    """A sent turn's answer and its shape-only signal report."""

    result: ChatResult
    signal: SignalReport

    @property
    def text(self) -> str:
        return self.result.text


class Conversation:
    """What a turn needs from a project root: its memory store (created with ``create``, else used only when
    it exists), its index (opened at the first retrieval) and a token counter.

    ``retriever`` replaces the index's own (a server passes one that shares its open index), and ``index``
    the index whose names the gates of a standard turn recognise (by default the root's, opened when first
    needed). Those names are read once per conversation."""

    def __init__(
        self,
        root: Path | str,
        tokenizer: str = DEFAULT_TOKENIZER,
        *,
        create: bool = True,
        retriever: Retriever | None = None,
        index: Index | None = None,
    ) -> None:
        self.root = check_root(root)
        self.counter = get_counter(tokenizer)
        exists = (self.root / STORE_DIR / MEMORY_FILE).is_file()
        self.store: MemoryStore | None = MemoryStore.open(self.root) if create or exists else None
        self._index = LazyIndex(self.root)
        self._shared_index = index
        self._repository: RepositoryTerms | None = None
        self.retriever = retriever or index_retriever_for(self._index, self.counter.basis)

    def repository_terms(self) -> RepositoryTerms:
        """The open repository's names and identifier words (read at the first standard turn, then kept)."""
        if self._repository is None:
            self._repository = repository_terms_of(self._shared_index or self._index())
        return self._repository

    def known_terms(self, thread: str) -> KnownTerms:
        """What a standard turn's gates recognise in ``thread``: the names its whole history and the memory
        records mention, and the repository's names."""
        texts: list[str] = []
        records: list[str] = []
        if self.store is not None:
            texts.extend(m.text for m in self.store.history(thread, None))
            records.extend(r.text for r in self.store.records())
        return KnownTerms(names_in([*texts, *records]), self.repository_terms(), memory_terms_in(records))

    def thread_exists(self, thread: str) -> bool:
        return self.store is not None and self.store.has_thread(thread)

    def thread_info(self, thread: str) -> dict[str, Any]:
        """How a turn's thread is reported: its name, whether it has history, a note when it has none, and
        whether it keeps an identity."""
        existed = self.thread_exists(thread)
        kept = self.store is not None and existed and self.store.thread_identity(thread) is not None
        return {
            "exists": existed,
            "identity_kept": kept,
            "name": thread,
            "note": None if existed else "new thread: no history",
        }

    def threads(self) -> list[ThreadInfo]:
        return [] if self.store is None else self.store.threads()

    def inputs(self, turn: TurnRequest) -> TurnRequest:
        """``turn`` with its inputs resolved: the thread's kept identity when none is given, and its
        attachments and active files read under the root (labelled items; an attachment makes it deep)."""
        if turn.identity is None and self.store is not None:
            kept = self.store.thread_identity(turn.thread)
            if kept is not None:
                turn = replace(turn, identity=kept, identity_source="thread")
        files = turn_files(turn.attachments, turn.active_files)
        if not files:
            return turn
        items = read_turn_files(self.root, files, thread=turn.thread)
        return replace(
            turn,
            files=[*turn.files, *items],
            has_attachment=turn.has_attachment or any(f.role == ATTACHMENT for f in files),
        )

    def keep_identity(self, thread: str, identity: str) -> None:
        """Keep ``identity`` with ``thread``: its later turns use it unless they give another."""
        if self.store is None:
            self.store = MemoryStore.open(self.root)
        self.store.set_thread_identity(thread, identity)

    def check_file(self, path: str, *, active: bool = False) -> None:
        """Refuse ``path`` now, with the coded error a turn naming it would give (outside the root, missing,
        binary, left out of the corpus, holding a private key): a chat checks a file when it is named, as
        an attachment or (``active``) an active file. The error names the field but no ``index``: the path
        was given alone, not in a list."""
        try:
            files = turn_files([], [path]) if active else turn_files([path], [])
            read_turn_files(self.root, files, thread=DEFAULT_THREAD)
        except ProoftextError as exc:
            exc.details.pop("index", None)
            raise

    def plan(self, turn: TurnRequest) -> TurnPlan:
        """Plan one turn from this project's history, memory and index; nothing is sent or recorded."""
        check_turn(self.root, turn)
        turn = self.inputs(turn)
        store, counter = self.store, self.counter
        memory = None if store is None else (lambda task: candidates_for(store, task, counter))
        sources = TurnSources(self._history, memory, self.retriever, known_terms=self.known_terms)
        return plan_turn(turn, sources, counter=counter)

    def _history(self, thread: str, limit: int | None) -> Sequence[ContextItem]:
        store = self.store
        return [] if store is None else [_history_item(m) for m in store.history(thread, limit)]

    def send(
        self,
        plan: TurnPlan,
        text: str,
        backend: ChatBackend,
        model: str,
        *,
        stream: bool = False,
        on_delta: DeltaCallback | None = None,
    ) -> Reply:
        """Record the user's ``text`` first (it is never lost), ask the model, then record its reply."""
        if self.store is None:
            self.store = MemoryStore.open(self.root)
        tier = plan.tier.value if plan.tier else plan.mode.value
        self.store.append_message(plan.thread, "user", text, tier=tier)
        result = backend.chat(
            list(plan.messages),
            model=model,
            max_output_tokens=plan.output_budget,
            stream=stream,
            on_delta=on_delta,
        )
        self.store.append_message(plan.thread, "assistant", result.text, tier=tier)
        return Reply(result, signal_report(plan, result))

    def close(self) -> None:
        self._index.close()
        if self.store is not None:
            self.store.close()

    def __enter__(self) -> Conversation:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def turn_plan(
    root: Path | str,
    turn: TurnRequest,
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
    retriever: Retriever | None = None,
    index: Index | None = None,
) -> dict[str, Any]:
    """``prooftext turn --dry-run --json``: plan one turn; nothing is sent and nothing of the conversation is
    recorded (no memory store, thread or message is created).

    A standard or deep turn retrieves evidence as a real turn would, so the plan shows what would be sent:
    that opens the project's index and may build or refresh it (``ROOT/.prooftext/index.sqlite``), a cache
    derived from the files, not a record of the turn.
    """
    check_turn(root, turn)
    with Conversation(root, tokenizer, create=False, retriever=retriever, index=index) as conversation:
        thread = conversation.thread_info(turn.thread)
        plan = conversation.plan(turn)
    return {"dry_run": True, "plan": plan.to_dict(), "thread": thread}
