"""Conversation commands: ``memory add|list|resolve|supersede``, ``depth``, ``turn`` and ``chat``.

Adapters only: they parse flags, call the core and print. Errors are raised, never printed here; the one
place that turns them into output is :func:`prooftext.cli.common.run_app`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, BinaryIO

import click
import typer

from prooftext.api import LazyIndex, check_window, index_retriever_for, renamed_field
from prooftext.cli.common import app, echo, emit_json
from prooftext.conversation.items import ContextItem, ItemKind, check_thread, make_item
from prooftext.conversation.turn import (
    DEFAULT_WINDOW_TOKENS,
    HistorySource,
    MemorySource,
    TurnPlan,
    TurnRequest,
    TurnSources,
    plan_turn,
)
from prooftext.depth.policy import DEFAULT_MODE, Mode, parse_mode, policy_for
from prooftext.depth.tiers import classify_detailed, recall_signal
from prooftext.errors import ProoftextError, RequestError
from prooftext.llm.backends import BACKENDS, ChatBackend, ChatResult, make_backend
from prooftext.llm.signal import SignalReport, signal_report
from prooftext.memory.store import (
    STORE_DIR,
    STORE_FILE,
    MemoryRecord,
    MemoryStore,
    StoredMessage,
    check_root,
)
from prooftext.memory.surface import candidates_for
from prooftext.tokens import DEFAULT_TOKENIZER, Counter, get_counter

memory_app = typer.Typer(
    help="Typed memory: decisions, constraints, discoveries and failures.", no_args_is_help=True
)
app.add_typer(memory_app, name="memory")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
RootOpt = Annotated[
    Path, typer.Option("--root", help="Project root (memory lives in ROOT/.prooftext/).", readable=False)
]
ThreadOpt = Annotated[str, typer.Option("--thread", help="Conversation thread (its own history).")]
ModeOpt = Annotated[str, typer.Option("--mode", help="smart (depth tiers), full or minimal.")]
WindowOpt = Annotated[int, typer.Option("--window", help="Context window of the model, in tokens.")]
TokenizerOpt = Annotated[str, typer.Option("--tokenizer", help="Token counting basis.")]
BackendOpt = Annotated[str, typer.Option("--backend", help="ollama or openai (OpenAI-compatible).")]
EndpointOpt = Annotated[str | None, typer.Option("--endpoint", help="Backend base URL (default: local).")]
ModelOpt = Annotated[
    str | None, typer.Option("--model", help="Model name; never chosen or switched for you.")
]

CHAT_HELP = "commands: /signal (last signal report), /mode smart|full|minimal, /threads, /help, /quit"

MODE_COMMAND = "/mode"
"""The one command with an argument; the others are a whole line on their own. A line whose first word is
no command (``/modern art``) is a message: commands match whole words, never prefixes."""


def _record_line(r: MemoryRecord) -> str:
    kind = f"{r.strength} constraint" if r.kind == "constraint" else r.kind
    extra = f" -> #{r.superseded_by}" if r.superseded_by else ""
    return f"#{r.id} [{kind}, {r.status}{extra}] {r.text}  (source: {r.source})"


@memory_app.command("add")
def memory_add(
    kind: Annotated[str, typer.Argument(help="decision, constraint, discovery or failure.")],
    text: Annotated[str, typer.Argument(help="The record's statement.")],
    source: Annotated[str, typer.Option("--source", help="Provenance: who or what recorded it.")] = "cli",
    strength: Annotated[
        str | None, typer.Option("--strength", help="hard or soft (constraints only).")
    ] = None,
    thread: Annotated[str | None, typer.Option("--thread", help="Thread it came from.")] = None,
    root: RootOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Record a memory item."""
    with MemoryStore.open(root) as store:
        record = store.add(kind, text, source=source, strength=strength, thread=thread)
    if as_json:
        emit_json({"record": record.to_dict()})
    else:
        echo(_record_line(record))


@memory_app.command("list")
def memory_list(
    kind: Annotated[str | None, typer.Option("--kind", help="Only this kind.")] = None,
    status: Annotated[
        str | None, typer.Option("--status", help="active, superseded, unresolved, resolved.")
    ] = None,
    root: RootOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """List memory records (all, or of one kind and/or status)."""
    with MemoryStore.open(root) as store:
        records = store.records(kind=kind, status=status)
    if as_json:
        emit_json({"records": [r.to_dict() for r in records]})
    else:
        for r in records:
            echo(_record_line(r))
        if not records:
            echo("(no memory records)")


@memory_app.command("resolve")
def memory_resolve(
    record_id: Annotated[int, typer.Argument(help="Id of an unresolved failure.")],
    note: Annotated[str | None, typer.Option("--note", help="How it was resolved.")] = None,
    source: Annotated[str, typer.Option("--source", help="Who resolved it.")] = "cli",
    root: RootOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Mark a failure resolved."""
    with MemoryStore.open(root) as store:
        record = store.resolve(record_id, note, source=source)
    if as_json:
        emit_json({"record": record.to_dict()})
    else:
        echo(_record_line(record))


@memory_app.command("supersede")
def memory_supersede(
    record_id: Annotated[int, typer.Argument(help="Id of an active decision.")],
    text: Annotated[str, typer.Argument(help="The new decision.")],
    source: Annotated[str, typer.Option("--source", help="Provenance of the new decision.")] = "cli",
    root: RootOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Replace an active decision with a new one (the old one stays, marked superseded)."""
    with MemoryStore.open(root) as store:
        old, new = store.supersede(record_id, text, source=source)
    if as_json:
        emit_json({"new": new.to_dict(), "old": old.to_dict()})
    else:
        echo(_record_line(old))
        echo(_record_line(new))


@app.command("depth")
def depth_command(
    text: Annotated[str, typer.Argument(help="The chat message to classify.")],
    attachment: Annotated[bool, typer.Option("--attachment", help="The message has an attachment.")] = False,
    active_files: Annotated[int, typer.Option("--active-files", help="Number of active context files.")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Classify a message as surface, standard or deep, and show its policy under smart mode."""
    decision = classify_detailed(text, has_attachment=attachment, active_files=active_files)
    signal = recall_signal(text)
    policy = policy_for(Mode.SMART, decision.tier, signal)
    if as_json:
        emit_json({"decision": decision.to_dict(), "policy": policy.to_dict(), "signal": signal.to_dict()})
    else:
        echo(policy.label)
        echo(f"rule: {decision.rule}; reasons: {', '.join(decision.reasons)}")
        on = [n for n, v in (("memory", policy.memory), ("retrieval", policy.retrieval)) if v]
        echo(
            f"history cap {policy.history_cap}, output budget {policy.output_budget}, "
            f"searches: {', '.join(on) or 'none'}"
        )


# -- turns -------------------------------------------------------------------------------------------------


def _history_item(m: StoredMessage) -> ContextItem:
    kind = ItemKind.USER if m.role == "user" else ItemKind.ASSISTANT
    return make_item(kind, m.text, item_id=f"msg:{m.id}", thread=m.thread, created_ms=m.created_ms)


class _Session:
    """What a turn needs from the project: memory store, history, retriever, counter."""

    def __init__(self, root: Path, tokenizer: str, *, create: bool) -> None:
        self.root = check_root(root)
        self.counter: Counter = get_counter(tokenizer)
        path = root / STORE_DIR / STORE_FILE
        self.store: MemoryStore | None = None
        if create or path.exists():
            self.store = MemoryStore.open(root)
        self.index = LazyIndex(self.root)
        self.retriever = index_retriever_for(self.index, self.counter.basis)

    def close(self) -> None:
        self.index.close()
        if self.store is not None:
            self.store.close()

    def memory_source(self) -> MemorySource | None:
        store = self.store
        if store is None:
            return None
        counter = self.counter
        return lambda task: candidates_for(store, task, counter)

    def history_source(self) -> HistorySource:
        store = self.store

        def load(thread: str, limit: int | None) -> Sequence[ContextItem]:
            if store is None:
                return []
            return [_history_item(m) for m in store.history(thread, limit)]

        return load

    def thread_exists(self, thread: str) -> bool:
        return self.store is not None and self.store.has_thread(thread)

    def plan(self, thread: str, text: str, mode: str, window: int) -> TurnPlan:
        """Plan one turn; errors about the window name ``window``, the flag the user gave."""
        check_window(window, "window")
        with renamed_field("window_tokens", "window"):
            sources = TurnSources(self.history_source(), self.memory_source(), self.retriever)
            return plan_turn(
                TurnRequest(thread, text, mode=mode, window_tokens=window), sources, counter=self.counter
            )


def _send(
    session: _Session,
    backend: ChatBackend,
    plan: TurnPlan,
    text: str,
    model: str,
    stream: bool,
    echo_deltas: bool,
) -> tuple[ChatResult, SignalReport]:
    """Persist the user turn first (it is never lost), call the model, then persist the reply."""
    assert session.store is not None
    tier = plan.tier.value if plan.tier else plan.mode.value
    session.store.append_message(plan.thread, "user", text, tier=tier)
    on_delta = (lambda d: echo(d, nl=False)) if echo_deltas else None
    result = backend.chat(
        list(plan.messages),
        model=model,
        max_output_tokens=plan.output_budget,
        stream=stream,
        on_delta=on_delta,
    )
    session.store.append_message(plan.thread, "assistant", result.text, tier=tier)
    return result, signal_report(plan, result)


def _require_model(model: str | None) -> str:
    if model is None or not model.strip():
        raise RequestError("name the model with --model (it is never chosen for you)", field="model")
    return model


def _answer(
    session: _Session,
    client: ChatBackend,
    plan: TurnPlan,
    text: str,
    model: str,
    *,
    stream: bool,
    as_json: bool,
) -> tuple[ChatResult, SignalReport]:
    """Show the plan's label, then send the turn. Neither the label nor streamed deltas are printed with
    ``--json``: standard output then holds JSON documents only."""
    if not as_json:
        echo(f"[{plan.status_label}]")
    return _send(session, client, plan, text, model, stream, stream and not as_json)


@app.command("turn")
def turn_command(
    text: Annotated[str, typer.Argument(help="The user message.")],
    thread: ThreadOpt = "main",
    mode: ModeOpt = DEFAULT_MODE.value,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Plan only: show what would be sent. Records nothing of the conversation; retrieval may "
            "build or refresh the project index (a cache of the files).",
        ),
    ] = False,
    root: RootOpt = Path("."),
    window: WindowOpt = DEFAULT_WINDOW_TOKENS,
    tokenizer: TokenizerOpt = DEFAULT_TOKENIZER,
    backend: BackendOpt = "ollama",
    endpoint: EndpointOpt = None,
    model: ModelOpt = None,
    stream: Annotated[bool, typer.Option("--stream/--no-stream", help="Stream the reply.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Plan one turn (and, without --dry-run, send it to the model and record it in the thread)."""
    _check_turn_flags(root, thread, mode, window, dry_run=dry_run, model=model, backend=backend)
    session = _Session(root, tokenizer, create=not dry_run)
    try:
        existed = session.thread_exists(thread)
        plan = session.plan(thread, text, mode, window)
        info = _thread_info(thread, existed)
        if dry_run:
            _print_plan(plan, info, as_json)
            return
        with make_backend(backend, endpoint) as client:
            result, report = _answer(
                session, client, plan, text, _require_model(model), stream=stream, as_json=as_json
            )
        if as_json:
            emit_json(
                {"plan": plan.to_dict(), "reply": result.text, "signal": report.to_dict(), "thread": info}
            )
        else:
            echo("" if stream else result.text)
    finally:
        session.close()


def _check_turn_flags(
    root: Path, thread: str, mode: str, window: int, *, dry_run: bool, model: str | None, backend: str
) -> None:
    """Refuse bad flags before the project is opened; a dry run needs neither a model nor a backend."""
    check_root(root)
    check_thread(thread)
    parse_mode(mode)
    check_window(window, "window")
    if not dry_run:
        _require_model(model)
        if backend not in BACKENDS:
            make_backend(backend)  # raises unknown_name


def _thread_info(thread: str, existed: bool) -> dict[str, Any]:
    return {"exists": existed, "name": thread, "note": None if existed else "new thread: no history"}


def _print_plan(plan: TurnPlan, thread_info: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json({"dry_run": True, "plan": plan.to_dict(), "thread": thread_info})
        return
    echo(plan.status_label)
    for step in plan.steps:
        echo(f"  {step.name}: {'ran' if step.ran else 'skipped'} ({step.reason})")
    echo(f"  prompt: {plan.prompt_tokens.count} {plan.prompt_tokens.basis} tokens")
    echo(f"  output budget: {plan.output_budget}")


def _print_report(report: SignalReport | None, as_json: bool) -> None:
    if report is None:
        data: dict[str, Any] = {"signal": None, "note": "no turn answered yet"}
    else:
        data = {"signal": report.to_dict()}
    if as_json:
        emit_json(data)
        return
    if report is None:
        echo("(no turn answered yet)")
        return
    d = report.to_dict()
    echo(f"{d['status_label']} · prompt {d['prompt_tokens']['count']} {d['prompt_tokens']['basis']} tokens")
    echo(f"counts: {d['counts']}  output budget: {d['output_budget']}  model: {d['model']}")
    echo(f"timings: {d['timings']}  usage: {d['usage']}")
    if d["suspected_truncation"]:
        echo(f"warning: suspected silent truncation ({d['truncation_reason']})")


@app.command("chat")
def chat_command(
    thread: ThreadOpt = "main",
    model: ModelOpt = None,
    endpoint: EndpointOpt = None,
    backend: BackendOpt = "ollama",
    mode: ModeOpt = DEFAULT_MODE.value,
    root: RootOpt = Path("."),
    window: WindowOpt = DEFAULT_WINDOW_TOKENS,
    tokenizer: TokenizerOpt = DEFAULT_TOKENIZER,
    stream: Annotated[bool, typer.Option("--stream/--no-stream", help="Stream replies.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Interactive terminal chat; history and threads persist in ROOT/.prooftext/memory.sqlite."""
    check_thread(thread)
    first_mode = parse_mode(mode).value
    the_model = _require_model(model)
    check_window(window, "window")
    session = _Session(root, tokenizer, create=True)
    read_line = _line_reader(as_json)
    try:
        with make_backend(backend, endpoint) as client:
            if not as_json:
                echo(f"prooftext chat · thread {thread} · model {the_model} · {CHAT_HELP}")
            chat = _Chat(session, client, thread, the_model, first_mode, window, stream, as_json)
            chat.run(read_line)
    finally:
        session.close()


@dataclass
class _Chat:
    """One interactive chat: ``/mode`` changes its mode, and ``/signal`` shows its last report."""

    session: _Session
    client: ChatBackend
    thread: str
    model: str
    mode: str
    window: int
    stream: bool
    as_json: bool
    last: SignalReport | None = None

    def run(self, read_line: Callable[[], str | None]) -> None:
        """Read and handle lines until end of input or a quit command. An unreadable line is reported and
        skipped, so one bad line never ends the chat."""
        while True:
            try:
                line = read_line()
            except ProoftextError as exc:
                _error(exc, self.as_json)
                continue
            if line is None or not self.handle(line):
                return

    def handle(self, line: str) -> bool:
        """Act on one input line; ``False`` when it ends the chat."""
        cmd = line.strip()
        words = cmd.split(maxsplit=1)
        if not cmd:
            _note("empty message ignored", self.as_json)
        elif cmd in ("/quit", "/exit"):
            return False
        elif cmd == "/help":
            _note(CHAT_HELP, self.as_json)
        elif cmd == "/signal":
            _print_report(self.last, self.as_json)
        elif cmd == "/threads":
            self._show_threads()
        elif words[0] == MODE_COMMAND:
            self._set_mode(words[1:])
        else:
            self._turn(line)
        return True

    def _show_threads(self) -> None:
        assert self.session.store is not None
        names = [t.to_dict() for t in self.session.store.threads()]
        if self.as_json:
            emit_json({"threads": names})
        else:
            for t in names:
                echo(f"{t['name']}: {t['messages']} messages")

    def _set_mode(self, args: list[str]) -> None:
        """Switch to the named mode, or with no name just say which is in use."""
        try:
            if args:
                self.mode = parse_mode(args[0].strip()).value
            _note(f"mode {self.mode}", self.as_json)
        except ProoftextError as exc:
            _error(exc, self.as_json)

    def _turn(self, line: str) -> None:
        """Plan and send one message. The message is sent as typed, not stripped: what the user wrote is what
        the model sees."""
        try:
            plan = self.session.plan(self.thread, line, self.mode, self.window)
            result, self.last = _answer(
                self.session, self.client, plan, line, self.model, stream=self.stream, as_json=self.as_json
            )
        except ProoftextError as exc:
            _error(exc, self.as_json)
            return
        if self.as_json:
            emit_json(
                {"reply": result.text, "signal": self.last.to_dict(), "status_label": plan.status_label}
            )
        else:
            echo("" if self.stream else result.text)


def _line_reader(as_json: bool) -> Callable[[], str | None]:
    """A function returning the next input line, or ``None`` at the end of input.

    With ``--json`` standard output holds JSON lines only, so the ``you>`` prompt goes to standard error,
    and only when a person types at a terminal. Input bytes that are not UTF-8 are kept as lone surrogates,
    so that such a line is refused as an invalid message (and the chat goes on) rather than ending it."""
    if not as_json:

        def prompt() -> str | None:
            try:
                return str(typer.prompt("you", prompt_suffix="> ", default="", show_default=False))
            except (typer.Abort, click.exceptions.Abort):
                return None
            except UnicodeDecodeError:  # the line is consumed; say so and read the next one
                raise RequestError("the message is not valid UTF-8 text", field="text") from None

        return prompt
    stdin = sys.stdin
    binary: BinaryIO | None = getattr(stdin, "buffer", None)

    def read() -> str | None:
        if stdin.isatty():
            echo("you> ", nl=False, err=True)
        if binary is not None:
            raw = binary.readline()
            line = raw.decode("utf-8", errors="surrogateescape")
        else:
            line = stdin.readline()
        return line.rstrip("\r\n") if line else None

    return read


def _note(text: str, as_json: bool) -> None:
    if as_json:
        emit_json({"note": text})
    else:
        echo(f"({text})")


def _error(exc: ProoftextError, as_json: bool) -> None:
    """A failed turn inside the chat loop is reported and the chat goes on (the user turn is kept)."""
    if as_json:
        emit_json({"error": exc.to_dict()})
    else:
        echo(f"error [{exc.code}]: {exc.message}", err=True)
