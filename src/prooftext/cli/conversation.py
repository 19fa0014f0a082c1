"""Conversation commands: ``memory add|list|resolve|supersede|export|import``, ``depth``, ``turn`` and ``chat``.

Adapters only: they parse flags, call the core and print. Errors are raised, never printed here; the one
place that turns them into output is :func:`prooftext.cli.common.run_app`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, BinaryIO

import click
import typer

import prooftext
from prooftext.cli.common import EXIT_PARTIAL, app, echo, emit_json, root_option
from prooftext.errors import ProoftextError, RequestError

_TURN = prooftext.TurnRequest("main", "")
"""The defaults of a turn's fields, which the options show."""
_TOKENIZER = prooftext.Query("").tokenizer

memory_app = typer.Typer(
    help="Typed memory: decisions, constraints, discoveries and failures.", no_args_is_help=True
)
app.add_typer(memory_app, name="memory")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
# readable=False on every path: the project opens it and reports a failure by code (exit 1); click's own
# check would call an unreadable path a usage error (exit 64).
RootOpt = Annotated[Path, root_option("Project root (memory lives in ROOT/.prooftext/).")]
ThreadOpt = Annotated[str, typer.Option("--thread", help="Conversation thread (its own history).")]
ModeOpt = Annotated[str, typer.Option("--mode", help="smart (depth tiers), full or minimal.")]
WindowOpt = Annotated[int, typer.Option("--window-tokens", help="Context window of the model, in tokens.")]
TokenizerOpt = Annotated[str, typer.Option("--tokenizer", help="Token counting basis.")]
BackendOpt = Annotated[str, typer.Option("--backend", help="ollama or openai (OpenAI-compatible).")]
EndpointOpt = Annotated[str | None, typer.Option("--endpoint", help="Backend base URL (default: local).")]
ModelOpt = Annotated[
    str | None, typer.Option("--model", help="Model name; never chosen or switched for you.")
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout", help="Seconds a reply may go with nothing received from the server (default 600)."
    ),
]


def _backend(backend: str, endpoint: str | None, timeout: float | None) -> prooftext.ChatBackend:
    """The chat client; an unknown backend, a malformed endpoint or a timeout that is not a positive number
    fails here, before anything is sent."""
    options = {} if timeout is None else {"read_timeout": timeout}
    return prooftext.make_backend(backend, endpoint, **options)


CHAT_HELP = (
    "commands: /signal (last signal report), /mode smart|full|minimal, /identity TEXT (kept with the thread), "
    "/summary TEXT, /attach PATH (next message only), /file PATH (active file; /file alone clears), "
    "/threads, /help, /quit or /exit"
)
IdentityOpt = Annotated[
    str | None,
    typer.Option(
        "--identity",
        help="The AI's system voice, kept with the thread: by turn when it sends (not with --dry-run), by chat "
        "when it starts, even if the model then fails.",
    ),
]
SummaryOpt = Annotated[str | None, typer.Option("--summary", help="The thread's summary for this turn.")]
AttachOpt = Annotated[
    list[str] | None,
    typer.Option("--attach", help="A file under the root attached to the message (repeatable; deep)."),
]
ActiveFileOpt = Annotated[
    list[str] | None,
    typer.Option("--active-file", help="A file under the root open beside the chat (repeatable)."),
]

MODE_COMMAND = "/mode"
ARGUMENT_COMMANDS = ("/mode", "/identity", "/summary", "/attach", "/file")
"""Commands with an argument; the others are a whole line on their own. A line whose first word is no
command (``/modern art``) is a message: commands match whole words, never prefixes."""


def _record_line(r: prooftext.MemoryRecord) -> str:
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
    with prooftext.MemoryStore.open(root) as store:
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
    """List memory records (all, or of one kind and/or status); a root without a store has none, and none is
    created."""
    records = prooftext.MemoryStore.list_records(root, kind=kind, status=status)
    if as_json:
        emit_json({"records": [r.to_dict() for r in records]})
    else:
        for r in records:
            echo(_record_line(r))
        if not records:
            echo("(no memory records)")


RECORD_ID_SETTINGS = {"ignore_unknown_options": True}
"""A record id argument may be negative (``memory resolve -1``): it reaches the store, which answers an id
it does not hold with ``not_found``, instead of being read as an unknown option."""


@memory_app.command("resolve", context_settings=RECORD_ID_SETTINGS)
def memory_resolve(
    record_id: Annotated[int, typer.Argument(help="Id of an unresolved failure.")],
    note: Annotated[str | None, typer.Option("--note", help="How it was resolved.")] = None,
    source: Annotated[str, typer.Option("--source", help="Who resolved it.")] = "cli",
    root: RootOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Mark a failure resolved."""
    with prooftext.MemoryStore.open(root) as store:
        record = store.resolve(record_id, note, source=source)
    if as_json:
        emit_json({"record": record.to_dict()})
    else:
        echo(_record_line(record))


@memory_app.command("supersede", context_settings=RECORD_ID_SETTINGS)
def memory_supersede(
    record_id: Annotated[int, typer.Argument(help="Id of an active decision.")],
    text: Annotated[str, typer.Argument(help="The new decision.")],
    source: Annotated[str, typer.Option("--source", help="Provenance of the new decision.")] = "cli",
    root: RootOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Replace an active decision with a new one (the old one stays, marked superseded)."""
    with prooftext.MemoryStore.open(root) as store:
        old, new = store.supersede(record_id, text, source=source)
    if as_json:
        emit_json({"new": new.to_dict(), "old": old.to_dict()})
    else:
        echo(_record_line(old))
        echo(_record_line(new))


@memory_app.command("export")
def memory_export(
    root: RootOpt = Path("."),
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Write the summary on stderr as one JSON object (the export is JSON lines)."
        ),
    ] = False,
) -> None:
    """Print every readable record, message and thread identity as JSON lines, read-only: the first step of
    repairing a damaged store. A summary goes to stderr; exit 3 when some rows could not be read."""
    export = prooftext.memory_export(root)
    for line in export.lines():
        echo(line)
    summary = export.summary()
    if as_json:
        echo(json.dumps(summary, sort_keys=True), err=True)
    else:
        unreadable = "; ".join(f"{t} {', '.join(ids)}" for t, ids in summary["unreadable"].items())
        echo(
            f"memory export: {summary['records']} records, {summary['messages']} messages,"
            f" {summary['thread_settings']} thread identities",
            err=True,
        )
        if unreadable:
            echo(f"memory export: could not read (damaged pages): {unreadable}", err=True)
        for problem in summary["invalid"]:
            echo(f"memory export: left out: {problem}", err=True)
    if not export.complete:
        raise typer.Exit(EXIT_PARTIAL)


@memory_app.command("import")
def memory_import(
    file: Annotated[Path, typer.Argument(help="An export (JSON lines).", readable=False)],
    root: RootOpt = Path("."),
    as_json: JsonOpt = False,
) -> None:
    """Write an export into the memory store, which must be empty (all of it, or nothing)."""
    result = prooftext.memory_import(root, file)
    if as_json:
        emit_json(result.to_dict())
    else:
        echo(
            f"imported {result.records} records, {result.messages} messages"
            f" and {result.thread_settings} thread identities"
        )
        for link in result.links_dropped:
            echo(f"memory import: dropped the link to a record not in the export: {link}", err=True)


@app.command("depth")
def depth_command(
    text: Annotated[str, typer.Argument(help="The chat message to classify.")],
    attachment: Annotated[bool, typer.Option("--attachment", help="The message has an attachment.")] = False,
    active_files: Annotated[int, typer.Option("--active-files", help="Number of active context files.")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Classify a message as surface, standard or deep, and show its policy under smart mode."""
    report = prooftext.depth_report(text, attachment=attachment, active_files=active_files)
    decision, policy = report.decision, report.policy
    if as_json:
        emit_json(report.to_dict())
    else:
        echo(policy.label)
        echo(f"rule: {decision.rule}; reasons: {', '.join(decision.reasons)}")
        on = [n for n, v in (("memory", policy.memory), ("retrieval", policy.retrieval)) if v]
        echo(
            f"history cap {policy.history_cap}, output budget {policy.output_budget}, "
            f"searches: {', '.join(on) or 'none'}"
        )


# -- turns -------------------------------------------------------------------------------------------------


def _require_model(model: str | None) -> str:
    if model is None or not model.strip():
        raise RequestError("name the model with --model (it is never chosen for you)", field="model")
    return model


def _answer(
    conversation: prooftext.Conversation,
    client: prooftext.ChatBackend,
    plan: prooftext.TurnPlan,
    text: str,
    model: str,
    *,
    stream: bool,
    as_json: bool,
) -> prooftext.Reply:
    """Send the turn, streaming its deltas unless ``--json`` (standard output then holds JSON documents only).
    A server that answered as another model is named on stderr either way (the signal report says so too)."""
    on_delta = (lambda d: echo(d, nl=False)) if stream and not as_json else None
    reply = conversation.send(plan, text, client, model, stream=stream, on_delta=on_delta)
    if reply.signal.model_warning:
        echo(f"warning: {reply.signal.model_warning}", err=True)
    return reply


@app.command("turn")
def turn_command(
    text: Annotated[str, typer.Argument(help="The user message.")],
    thread: ThreadOpt = "main",
    mode: ModeOpt = _TURN.mode,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Plan only: show what would be sent. Records nothing of the conversation; retrieval may "
            "build or refresh the project index (a cache of the files).",
        ),
    ] = False,
    root: RootOpt = Path("."),
    window_tokens: WindowOpt = _TURN.window_tokens,
    tokenizer: TokenizerOpt = _TOKENIZER,
    backend: BackendOpt = "ollama",
    endpoint: EndpointOpt = None,
    model: ModelOpt = None,
    timeout: TimeoutOpt = None,
    stream: Annotated[bool, typer.Option("--stream/--no-stream", help="Stream the reply.")] = False,
    identity: IdentityOpt = None,
    summary: SummaryOpt = None,
    attach: AttachOpt = None,
    active_file: ActiveFileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Plan one turn (and, without --dry-run, send it to the model and record it in the thread)."""
    turn = prooftext.TurnRequest(
        thread,
        text,
        mode=mode,
        window_tokens=window_tokens,
        identity=identity,
        summary=summary,
        attachments=tuple(attach or ()),
        active_files=tuple(active_file or ()),
    )
    prooftext.check_turn(root, turn)
    if not dry_run:
        _require_model(model)
    _backend(backend, None, timeout).close()  # an unknown backend fails here (a dry run too), before any work
    with prooftext.Conversation(root, tokenizer, create=not dry_run) as conversation:
        info = conversation.thread_info(thread)
        plan = conversation.plan(turn)
        if dry_run:
            _print_plan(plan, info, as_json)
            return
        with _backend(backend, endpoint, timeout) as client:
            info = _keep_identity(conversation, thread, identity, info)
            if not as_json:
                echo(f"[{plan.status_label}]")
            reply = _answer(
                conversation, client, plan, text, _require_model(model), stream=stream, as_json=as_json
            )
    if as_json:
        emit_json(
            {"plan": plan.to_dict(), "reply": reply.text, "signal": reply.signal.to_dict(), "thread": info}
        )
    else:
        echo("" if stream else reply.text)


def _keep_identity(
    conversation: prooftext.Conversation, thread: str, identity: str | None, info: dict[str, Any]
) -> dict[str, Any]:
    """Keep a sent turn's ``identity`` with its thread; ``info`` (the thread as planned) then says it is kept."""
    if identity is None:
        return info
    conversation.keep_identity(thread, identity)
    return {**info, "identity_kept": True}


def _print_plan(plan: prooftext.TurnPlan, thread_info: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json({"dry_run": True, "plan": plan.to_dict(), "thread": thread_info})
        return
    echo(plan.status_label)
    for step in plan.steps:
        echo(f"  {step.name}: {'ran' if step.ran else 'skipped'} ({step.reason})")
    echo(f"  prompt: {plan.prompt_tokens.count} {plan.prompt_tokens.basis} tokens")
    echo(f"  output budget: {plan.output_budget}")


def _print_report(report: prooftext.SignalReport | None, as_json: bool) -> None:
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
    if report.model_warning:
        echo(f"warning: {report.model_warning}")
    echo(f"timings: {d['timings']}  usage: {d['usage']}")
    if d["suspected_truncation"]:
        echo(f"warning: suspected silent truncation ({d['truncation_reason']})")


@app.command("chat")
def chat_command(
    thread: ThreadOpt = "main",
    model: ModelOpt = None,
    endpoint: EndpointOpt = None,
    backend: BackendOpt = "ollama",
    timeout: TimeoutOpt = None,
    mode: ModeOpt = _TURN.mode,
    root: RootOpt = Path("."),
    window_tokens: WindowOpt = _TURN.window_tokens,
    tokenizer: TokenizerOpt = _TOKENIZER,
    stream: Annotated[bool, typer.Option("--stream/--no-stream", help="Stream replies.")] = True,
    identity: IdentityOpt = None,
    summary: SummaryOpt = None,
    active_file: ActiveFileOpt = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Write JSON lines on stdout, one object per reply, note, report or error."
        ),
    ] = False,
) -> None:
    """Interactive terminal chat; history, threads and each thread's identity persist in
    ROOT/.prooftext/memory.sqlite."""
    first = prooftext.TurnRequest(
        thread,
        "",
        mode=mode,
        window_tokens=window_tokens,
        identity=identity,
        summary=summary,
        active_files=tuple(active_file or ()),
    )
    prooftext.check_turn(root, first)
    the_model = _require_model(model)
    read_line = _line_reader(as_json)
    with (
        _backend(backend, endpoint, timeout) as client,
        prooftext.Conversation(root, tokenizer) as conversation,
    ):
        if not as_json:
            _aside(f"prooftext chat · thread {thread} · model {the_model} · {CHAT_HELP}")
        if identity is not None:
            conversation.keep_identity(thread, identity)
        chat = _Chat(conversation, client, first, the_model, stream, as_json)
        chat.run(read_line)
    if chat.failed:
        echo(f"chat: {chat.failed} of {chat.sent} messages failed", err=True)
        raise typer.Exit(EXIT_PARTIAL)


@dataclass
class _Chat:
    """One interactive chat: ``/mode`` changes its mode, and ``/signal`` shows its last report."""

    conversation: prooftext.Conversation
    client: prooftext.ChatBackend
    turn: prooftext.TurnRequest
    """The thread, mode, window, summary and active files of every message (``/mode``, ``/summary`` and
    ``/file`` replace them); ``/attach`` adds an attachment to the next message only."""
    model: str
    stream: bool
    as_json: bool
    last: prooftext.SignalReport | None = None
    sent: int = 0
    """Messages the chat tried to send."""
    failed: int = 0
    """Of those, the ones that got no reply (the chat went on; its exit status says so at the end)."""

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
        elif words[0] in ARGUMENT_COMMANDS:
            self._set_input(words[0], words[1].strip() if len(words) > 1 else "")
        else:
            self._turn(line)
        return True

    def _set_input(self, command: str, value: str) -> None:
        """``/identity`` (kept with the thread), ``/summary``, ``/attach`` (next message) or ``/file``."""
        try:
            if command == "/identity":
                if not value:
                    raise RequestError("say the identity after /identity", field="identity")
                self.conversation.keep_identity(self.turn.thread, value)
                self.turn = replace(self.turn, identity=value)
                _note("identity kept with the thread", self.as_json)
            elif command == "/summary":
                self.turn = replace(self.turn, summary=value or None)
                _note("summary set" if value else "summary cleared", self.as_json)
            elif command == "/attach":
                if not value:
                    raise RequestError("name a file under the root after /attach", field="attachments")
                self.conversation.check_file(value)
                self.turn = replace(self.turn, attachments=(*self.turn.attachments, value))
                _note(f"{value} attached to the next message", self.as_json)
            else:
                if value:
                    self.conversation.check_file(value, active=True)
                files = (*self.turn.active_files, value) if value else ()
                self.turn = replace(self.turn, active_files=files)
                cleared = "" if value else " (/file alone clears them)"
                _note(f"active files: {', '.join(files) or 'none'}{cleared}", self.as_json)
        except ProoftextError as exc:
            _error(exc, self.as_json)

    def _show_threads(self) -> None:
        names = [t.to_dict() for t in self.conversation.threads()]
        if self.as_json:
            emit_json({"threads": names})
        else:
            for t in names:
                echo(f"{t['name']}: {t['messages']} messages")

    def _set_mode(self, args: list[str]) -> None:
        """Switch to the named mode, or with no name just say which is in use."""
        try:
            if args:
                self.turn = replace(self.turn, mode=prooftext.parse_mode(args[0].strip()).value)
            _note(f"mode {self.turn.mode}", self.as_json)
        except ProoftextError as exc:
            _error(exc, self.as_json)

    def _turn(self, line: str) -> None:
        """Plan and send one message. The message is sent as typed, not stripped: what the user wrote is what
        the model sees."""
        attachments = self.turn.attachments
        self.turn = replace(self.turn, attachments=())  # an attachment goes with one message only
        self.sent += 1
        try:
            plan = self.conversation.plan(replace(self.turn, text=line, attachments=attachments))
            if not self.as_json:
                _aside(f"[{plan.status_label}]")
            reply = _answer(
                self.conversation,
                self.client,
                plan,
                line,
                self.model,
                stream=self.stream,
                as_json=self.as_json,
            )
            self.last = reply.signal
        except ProoftextError as exc:
            self.failed += 1
            _error(exc, self.as_json)
            return
        if self.as_json:
            emit_json(
                {"reply": reply.text, "signal": reply.signal.to_dict(), "status_label": plan.status_label}
            )
        else:
            echo("" if self.stream else reply.text)


def _line_reader(as_json: bool) -> Callable[[], str | None]:
    """A function returning the next input line, or ``None`` at the end of input.

    With ``--json`` standard output holds JSON lines only, so the ``you>`` prompt goes to standard error,
    and only when a person types at a terminal. Input bytes that are not UTF-8 are kept as lone surrogates,
    so that such a line is refused as an invalid message (and the chat goes on) rather than ending it.
    Without ``--json`` the prompt is written only when a person types at a terminal, so that a chat fed from
    a pipe writes replies alone."""
    if not as_json and sys.stdin.isatty():

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


def _aside(text: str) -> None:
    """A chat's line for the person at the terminal (the banner, a turn's context label, a note): on standard
    output when input comes from a terminal, else on standard error, so that a chat fed from a pipe writes
    its replies alone on standard output."""
    echo(text, err=not sys.stdin.isatty())


def _note(text: str, as_json: bool) -> None:
    if as_json:
        emit_json({"note": text})
    else:
        _aside(f"({text})")


def _error(exc: ProoftextError, as_json: bool) -> None:
    """A failed turn inside the chat loop is reported and the chat goes on (the user turn is kept)."""
    if as_json:
        emit_json({"error": exc.to_dict()})
    else:
        echo(f"error [{exc.code}]: {exc.message}", err=True)
