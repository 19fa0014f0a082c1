"""F1 end to end: a value of every credential shape of the labelled corpus, planted in one tree, reaches no
store, artifact, packet, prompt, error message or log.

One tree holds a file per positive case of :func:`secret_corpus.positives` (``planted/<index>/<case.path>``;
for a case spelled in a path the file name holds the value), a PEM private key, a markdown runbook and a
code module quoting some of the same values, and a few clean files about the query's topic. A module
fixture then drives every surface once and keeps every byte each one produced, by stream:

* the CLI in-process: ``index`` (JSON and text), ``index --excluded --json``, ``pack`` and
  ``adaptive-pack`` (markdown, ``--format json`` and the ``--json`` artifact, with and without every
  planted file required), ``verify``, ``memory add`` / ``memory list``, ``turn`` (dry run and sent) and
  ``chat`` (JSON lines and text) against the local fake chat server, and a real subprocess;
* the Python API's packets (markdown and JSON formats), adaptive results and search;
* the context artifact lifecycle (manifest, graph, query, selection, snapshot);
* JSON-RPC (``context.*``, ``memory.*``, ``turn.plan``) and MCP tools (``pack_context``, ``search``,
  ``add_memory``, ``plan_turn``, ...), memory texts and turn texts carrying every planted case;
* what the fake chat server received (the prompts);
* error paths: requiring a left-out file (a private key; a file whose name holds a credential), memory
  arguments given in the wrong order (the record text lands in ``kind``), the same over JSON-RPC, and a
  malformed JSON-RPC body;
* the SWE-bench evaluation run offline on a two-file git repository holding planted files;
* ``ROOT/.prooftext/`` (index and memory databases with their WAL files, snapshotted while a server
  context is open and again at the end, and the lifecycle's artifacts), and every log record.

Each stream is its own test case, so a leak in one is reported (shape id and masked context, never the
value) without hiding the others. The values are generated (``secret_corpus``, ``fakes``): nothing here
is a real credential.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import prooftext
from fake_chat_server import FakeChatServer
from prooftext import Ladder
from prooftext.cli import main
from prooftext.corpus.model import REASON_SECRET
from secret_corpus import Case, positives

from .conftest import all_output_bytes, run_cli_subprocess
from .fakes import fake_secrets, pem_block

QUERY = "rotate deployment credentials for the billing service"
CASES: list[Case] = positives()
KEY_BODY = fake_secrets()["private-key"]
KEY_FILE = "planted/keys/deploy_id.pem"
PREFIX_CHARS = 12
"""A value of at least :data:`PREFIX_MIN` characters is also looked for by its first characters: a leak that
cut the value short (a truncated excerpt, a bounded error message) is still a leak."""
PREFIX_MIN = 16
MODEL = "tiny"
REPLY = "Noted: rotate the billing credentials through the vault."

DOC_SHAPES = ("tok-", "curl-bearer", "url-postgres", "mysql-p", "py-headers-bearer")
"""Cases whose text is also quoted, in fenced blocks, in the markdown runbook (shapes that are credentials
wherever they are written; a netrc line is one only in a netrc file, so it stays in its own file)."""
CODE_SHAPES = ("tok-",)
"""Cases whose value is also assigned to a quoted constant in a code module."""
NOT_IN_CODE = ("tok-azure-storage",)
"""An Azure account key has no prefix of its own: it is a credential in its connection string
(``AccountKey=``), and alone in a constant it is a random-looking string, labelled but not redacted (F6)."""


def _planted_path(index: int, case: Case) -> str:
    return f"planted/{index:03d}/{case.path}"


def _label(index: int, case: Case) -> str:
    return f"{case.shape}#{index:03d}"


def _values() -> dict[str, str]:
    """What must never appear: needle -> which planted value it comes from (a shape id, never the value)."""
    out: dict[str, str] = {}
    for index, case in enumerate(CASES):
        out[case.value] = _label(index, case)
        if len(case.value) >= PREFIX_MIN:
            out.setdefault(case.value[:PREFIX_CHARS], _label(index, case) + ":prefix")
    for number, line in enumerate(KEY_BODY.split("\n")):
        out[line] = f"private-key:line{number}"
        out.setdefault(line[:PREFIX_CHARS], f"private-key:line{number}:prefix")
    return out


VALUES = _values()


def _tree() -> dict[str, str]:
    files: dict[str, str] = {}
    for index, case in enumerate(CASES):
        files[_planted_path(index, case)] = case.text
    files[KEY_FILE] = pem_block(KEY_BODY)
    quoted = [(i, c) for i, c in enumerate(CASES) if not c.in_path and c.shape.startswith(DOC_SHAPES)]
    files["docs/credential-rotation.md"] = (
        "# Rotating deployment credentials\n\n"
        "Rotate the billing service's deployment credentials every 30 days. The values below were in use\n"
        "before the last rotation and are kept here for the audit.\n\n"
        + "".join(f"## {c.shape} ({c.path})\n\n```\n{c.text.rstrip()}\n```\n\n" for _, c in quoted)
    )
    coded = [
        (i, c)
        for i, c in enumerate(CASES)
        if not c.in_path and c.shape.startswith(CODE_SHAPES) and c.shape not in NOT_IN_CODE
    ]
    files["billing/legacy_credentials.py"] = (
        '"""Credentials the billing service used before the vault (rotate deployment credentials)."""\n\n'
        + "".join(
            f'{c.shape.upper().replace("-", "_")}_{i:03d} = "{c.value}"\n'
            for i, c in coded
            if '"' not in c.value
        )
    )
    files["billing/rotation.py"] = (
        '"""The billing service: it reads deployment credentials from the vault and rotates them."""\n\n\n'
        "def rotate_deployment_credentials(vault, service='billing'):\n"
        "    return vault.rotate(service)\n"
    )
    files["docs/deploy.md"] = "# Deployment\n\nRotate deployment credentials for the billing service.\n"
    files["SPEC.md"] = "# Spec\n\nRotate deployment credentials for billing.\n"
    return files


def _blob(cases: list[tuple[int, Case]]) -> str:
    """One text carrying every given case, each under its file name (what a person pastes into a note)."""
    body = "".join(f"{c.path}:\n{c.text.rstrip()}\n\n" for _, c in cases)
    return "Before rotating the billing deployment credentials, the settings were:\n\n" + body


TEXT_CASES = [(i, c) for i, c in enumerate(CASES) if not c.in_path]
PATH_CASES = [(i, c) for i, c in enumerate(CASES) if c.in_path]
ONE_LINE_CASES = [(i, c) for i, c in TEXT_CASES if c.text.strip() and "\n" not in c.text.strip()]


# --- running the surfaces ---------------------------------------------------------------------------------


def _cli(argv: list[Any], stdin: str = "") -> tuple[int, str, str]:
    """``prooftext ARGV`` in-process with its own stdin, stdout and stderr: ``(status, stdout, stderr)``."""
    out, err = io.StringIO(), io.StringIO()
    old_in = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main([str(a) for a in argv])
    finally:
        sys.stdin = old_in
    return status, out.getvalue(), err.getvalue()


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.lines.append(f"{record.name}: {text}")


@contextlib.contextmanager
def _all_logs() -> Iterator[_Records]:
    handler = _Records()
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def _store_files(root: Path) -> dict[str, bytes]:
    """Every file under ``ROOT/.prooftext/`` grouped as index database, memory database, or other."""
    groups: dict[str, list[bytes]] = {"store-index": [], "store-memory": [], "store-other": []}
    store = root / ".prooftext"
    for path in sorted(store.rglob("*")) if store.is_dir() else []:
        if not path.is_file():
            continue
        if path.name.startswith("index.sqlite"):
            group = "store-index"
        elif path.name.startswith("memory.sqlite"):
            group = "store-memory"
        else:
            group = "store-other"
        groups[group].append(f"\n--- {path.name}\n".encode() + path.read_bytes())
    return {k: b"".join(v) for k, v in groups.items()}


@dataclass(repr=False)
class Run:
    root: Path
    streams: dict[str, str] = field(default_factory=dict)
    excluded: list[dict[str, Any]] = field(default_factory=list)
    required_packet: str = ""
    topic_packet: str = ""
    snapshots: list[dict[str, bytes]] = field(default_factory=list)

    def __repr__(self) -> str:  # a failing test's report shows its arguments: never the streams' bytes
        return f"Run({len(self.streams)} streams)"

    def add(self, name: str, *parts: str | bytes) -> None:
        text = "\n".join(p.decode("utf-8", errors="replace") if isinstance(p, bytes) else p for p in parts)
        self.streams[name] = self.streams.get(name, "") + "\n" + text

    def snapshot(self) -> None:
        self.snapshots.append(_store_files(self.root))


def _ok(status: int, out: str, err: str) -> tuple[str, str]:
    assert status == 0, (out + err)[-2000:]
    return out, err


def _index_and_pack(run: Run, tmp: Path) -> None:
    root = run.root
    run.add("index", *_ok(*_cli(["index", root, "--json"])), *_ok(*_cli(["index", root])))
    out, err = _ok(*_cli(["index", root, "--excluded", "--json"]))
    run.add("index-excluded", out, err)
    run.excluded = json.loads(out)["excluded"]
    required = [p for p in _tree() if not p.startswith("planted/keys/")]
    required = [p for p in required if not any(p == _planted_path(i, c) for i, c in PATH_CASES)]
    wide = ["--max-tokens", "90000", "--max-nodes", "400"]
    require_all = [a for p in required for a in ("--require", p)]
    out, err = _ok(*_cli(["pack", QUERY, "--root", root]))
    run.topic_packet = out
    run.add("pack-cli-markdown", out, err)
    out, err = _ok(*_cli(["pack", QUERY, "--root", root, *wide, *require_all]))
    run.required_packet = out
    run.add("pack-cli-markdown", out, err)
    run.add(
        "pack-cli-json", *_ok(*_cli(["pack", QUERY, "--root", root, "--format", "json", *wide, *require_all]))
    )
    out, err = _ok(*_cli(["pack", QUERY, "--root", root, "--json", *wide, *require_all]))
    run.add("pack-cli-json", out, err)
    saved = tmp / "packet.json"
    saved.write_text(out)
    run.add("pack-cli-json", *_ok(*_cli(["pack", QUERY, "--root", root, "--json"])))
    adaptive = ["adaptive-pack", QUERY, "--root", root, "--max-tokens", "4000"]
    run.add("adaptive-cli-markdown", *_ok(*_cli(adaptive)))
    run.add(
        "adaptive-cli-json", *_ok(*_cli([*adaptive, "--format", "json"])), *_ok(*_cli([*adaptive, "--json"]))
    )
    run.add(
        "verify",
        *_ok(*_cli(["verify", saved, "--root", root, "--json"])),
        *_ok(*_cli(["verify", saved, "--root", root])),
    )
    with prooftext.open(root) as index:
        everything = prooftext.Query(QUERY, required=tuple(required), max_tokens=90000, max_nodes=400)
        parts: list[Any] = []
        for fmt in ("markdown", "json"):
            parts.append(index.pack(QUERY, format=fmt).to_dict())
            parts.append(index.pack(everything, format=fmt).to_dict())
            parts.append(index.adaptive_pack(QUERY, ladder=Ladder(max_tokens=4000), format=fmt).to_dict())
        parts.append(index.search(QUERY, limit=200))
        run.add("api", json.dumps(parts))
    proc = run_cli_subprocess("pack", QUERY, "--root", str(root), "--json")
    run.add("subprocess", proc.stdout, proc.stderr)
    # run_cli_subprocess waits before reading its pipes, so a child writing more than a pipe holds would
    # block: the packet of every planted file (about 190 kB) is read while it is written.
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    code = "from prooftext.cli import main; main()"
    argv = [sys.executable, "-c", code, "pack", QUERY, "--root", str(root), "--json", *wide, *require_all]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0 and proc.returncode == 0, (done.stderr + proc.stderr)[-2000:]
    run.add("subprocess", done.stdout, done.stderr)


def _lifecycle(run: Run) -> None:
    from prooftext.artifacts import lifecycle
    from prooftext.artifacts.query import byte_query

    root = run.root
    out = root / ".prooftext" / "context"
    lifecycle.run_manifest(root, out / "manifest.json", "SPEC.md", [])
    lifecycle.run_index(out / "manifest.json", root, None, out / "graph.json")
    lifecycle.run_query(out / "graph.json", byte_query(QUERY), out / "query.json")
    lifecycle.run_select(out / "graph.json", out / "query.json", out / "selection.json")
    lifecycle.run_snapshot(out / "graph.json", out / "selection.json", root, None, out / "snapshot.json")
    run.add("lifecycle", *(p.read_bytes() for p in sorted(out.iterdir())))


def _memory_cli(run: Run) -> None:
    root = run.root
    token = next(c.value for _, c in TEXT_CASES if c.shape == "tok-github-classic")
    text = _blob(TEXT_CASES) + "".join(f"The key file was {c.path}.\n" for _, c in PATH_CASES)
    run.add("memory-cli", *_ok(*_cli(["memory", "add", "decision", text, "--root", root, "--json"])))
    run.add(
        "memory-cli",
        *_ok(*_cli(["memory", "add", "discovery", text, "--source", f"ops {token}", "--root", root])),
    )
    run.add(
        "memory-list",
        *_ok(*_cli(["memory", "list", "--root", root, "--json"])),
        *_ok(*_cli(["memory", "list", "--root", root])),
    )


def _rpc(run: Run) -> None:
    from prooftext.server.context import Limits, ServerContext
    from prooftext.server.dispatcher import Dispatcher

    required = [_planted_path(i, c) for i, c in TEXT_CASES]
    blob = _blob(TEXT_CASES)
    swapped = ONE_LINE_CASES[0][1].text.strip()
    ctx = ServerContext.open(run.root, Limits(), "rpc")
    try:
        dispatcher = Dispatcher(ctx)

        def call(method: str, params: dict[str, Any], rid: int) -> str:
            body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            return (dispatcher.handle(body.encode()) or b"").decode("utf-8", errors="replace")

        everything = {"query": QUERY, "required": required, "max_tokens": 90000, "max_nodes": 400}
        context = [
            call("index.refresh", {}, 1),
            call("context.pack", {"query": QUERY}, 2),
            call("context.pack", everything, 3),
            call("context.adaptive", {"query": QUERY, "max_tokens": 4000}, 4),
            call("context.select", {"query": QUERY, "limit": 200}, 5),
            call("index.status", {}, 6),
        ]
        run.add("rpc-context", *context)
        assert all('"result"' in reply for reply in context), [r[:300] for r in context]
        memory = [
            call("memory.add", {"kind": "constraint", "text": blob, "strength": "hard"}, 7),
            call("memory.list", {}, 8),
            call("memory.surface", {"task": blob}, 9),
        ]
        run.add("rpc-memory", *memory)
        assert all('"result"' in reply for reply in memory), [r[:300] for r in memory]
        plan = call("turn.plan", {"text": blob}, 10)
        run.add("rpc-turn-plan", plan)
        assert '"result"' in plan, plan[:300]
        run.snapshot()  # the server's connections are open: WAL files hold recent writes
        run.add("rpc-error-swapped-arguments", call("memory.add", {"kind": swapped, "text": "decision"}, 11))
        malformed = (
            '{"jsonrpc": "2.0", "id": 12, "method": "memory.add", "params": {"kind": "decision", "text": '
        )
        malformed += json.dumps(swapped)[:-1]  # the body stops inside the string
        run.add("rpc-error-malformed", (dispatcher.handle(malformed.encode()) or b"").decode())
    finally:
        ctx.close()


def _mcp(run: Run) -> None:
    from mcp import Client

    from prooftext.server.context import ServerContext
    from prooftext.server.dispatcher import Dispatcher
    from prooftext.server.mcp_server import create_mcp_server

    blob = _blob(TEXT_CASES)
    ctx = ServerContext.open(run.root, interface="mcp")

    async def session() -> dict[str, list[str]]:
        out: dict[str, list[str]] = {"mcp-context": [], "mcp-memory": [], "mcp-plan-turn": []}
        calls: list[tuple[str, str, dict[str, Any]]] = [
            ("mcp-context", "adaptive_context", {"query": QUERY}),
            ("mcp-context", "pack_context", {"query": QUERY, "max_tokens": 4000}),
            ("mcp-context", "search", {"query": QUERY, "limit": 200}),
            ("mcp-memory", "add_memory", {"kind": "failure", "text": blob}),
            ("mcp-memory", "should_recall_memory", {"task": blob}),
            ("mcp-plan-turn", "plan_turn", {"text": blob}),
        ]
        async with Client(create_mcp_server(Dispatcher(ctx))) as client:
            for stream, name, arguments in calls:
                result = await client.call_tool(name, arguments)
                out[stream].append(json.dumps([c.model_dump(mode="json") for c in result.content]))
                out[stream].append(json.dumps(result.structured_content))
                assert not result.is_error, (name, out[stream][-2][:300])
        return out

    try:
        for stream, texts in asyncio.run(session()).items():
            run.add(stream, *texts)
    finally:
        ctx.close()


def _conversation(run: Run, server: FakeChatServer) -> None:
    root = run.root
    blob = _blob(TEXT_CASES)
    base = ["--root", root, "--model", MODEL, "--endpoint", server.url]
    run.add("turn", *_ok(*_cli(["turn", blob, "--root", root, "--dry-run", "--json"])))
    run.add("turn", *_ok(*_cli(["turn", blob, *base, "--json"])))
    run.add("turn", *_ok(*_cli(["turn", blob, *base, "--thread", "billing", "--stream"])))
    lines = "".join(c.text.strip() + "\n" for _, c in ONE_LINE_CASES) + "/signal\n/threads\n"
    run.add("chat", *_ok(*_cli(["chat", *base, "--json", "--no-stream"], stdin=lines)))
    first = "".join(c.text.strip() + "\n" for _, c in ONE_LINE_CASES[:3])
    run.add("chat", *_ok(*_cli(["chat", *base, "--thread", "ops"], stdin=first + "/quit\n")))
    run.add("prompt", json.dumps(server.requests))
    assert server.requests, "the fake chat server received nothing"


def _errors(run: Run) -> None:
    root = run.root
    for name, ref in (
        ("error-require-private-key", KEY_FILE),
        ("error-require-credential-path", _planted_path(*PATH_CASES[0])),
    ):
        for mode in (["--json"], []):
            status, out, err = _cli(["pack", QUERY, "--root", root, "--require", ref, *mode])
            assert status != 0, out + err
            run.add(name, out, err)
    swapped = ONE_LINE_CASES[0][1].text.strip()
    for mode in (["--json"], []):  # the record's text given where the kind goes
        status, out, err = _cli(["memory", "add", swapped, "decision", "--root", root, *mode])
        assert status != 0, out + err
        run.add("error-memory-swapped-arguments", out, err)


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env.update({"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})
    env.update({"GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z"})
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _evaluation(run: Run, base: Path) -> None:
    """``run_swebench`` on a one-commit repository holding every planted file: rows, summary and report."""
    from prooftext.eval.common import RunOptions
    from prooftext.eval.declare import Declaration
    from prooftext.eval.swe_run import run_swebench
    from prooftext.eval.swebench import SweConfig

    upstream = base / "upstream"
    upstream.mkdir(parents=True)
    for rel, text in _tree().items():
        (upstream / rel).parent.mkdir(parents=True, exist_ok=True)
        (upstream / rel).write_text(text)
    _git(upstream, "init", "-q")
    _git(upstream, "add", "-A")
    _git(upstream, "commit", "-q", "-m", "one")
    commit = _git(upstream, "rev-parse", "HEAD")
    gold = "billing/rotation.py"
    task = {
        "instance_id": "demo-1",
        "repo": "demo/demo",
        "base_commit": commit,
        "problem_statement": QUERY,
        "fix_paths": [gold],
        "splits": ["dev"],
        "fix_files": [{"path": gold, "status": "modified", "base_path": gold, "base_line_ranges": [[4, 5]]}],
        "fix_spans": {},
    }
    (base / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    (base / "repos.json").write_text(json.dumps({"demo/demo": str(upstream / ".git")}))
    out, work = base / "out", base / "work"
    config = SweConfig(work_dir=Path("."), budget=4000, tokenizer="bytes")
    declared = Declaration("gold_file_recall", 0.6, 0.4, "flags")
    summary = run_swebench(
        base / "tasks.jsonl", base / "repos.json", config, declared, RunOptions(out_dir=out, work_dir=work)
    )
    produced = [p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()]
    stores = [p.read_bytes() for p in sorted(work.rglob("*")) if p.is_file() and ".prooftext" in p.parts]
    assert produced and stores, (produced, stores)
    run.add("eval", json.dumps(summary), *produced, *stores)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp("f-e2e")
    root = base / "repo"
    for rel, text in _tree().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    run = Run(root)
    with _all_logs() as logs, FakeChatServer(reply=REPLY, models=(MODEL,)) as server:
        _index_and_pack(run, base)
        run.snapshot()
        _lifecycle(run)
        _memory_cli(run)
        _rpc(run)
        _mcp(run)
        _conversation(run, server)
        run.snapshot()
        _errors(run)
        _evaluation(run, base / "eval")
    run.add("logs", "\n".join(logs.lines))
    run.snapshot()
    final = run.snapshots[-1]
    assert sum(map(len, final.values())) >= len(all_output_bytes(root))  # every stored file is covered
    for snap in run.snapshots:
        for name, data in snap.items():
            run.add(name, data)
    return run


STREAMS: tuple[str, ...] = (
    "index",
    "index-excluded",
    "pack-cli-markdown",
    "pack-cli-json",
    "adaptive-cli-markdown",
    "adaptive-cli-json",
    "verify",
    "api",
    "subprocess",
    "lifecycle",
    "memory-cli",
    "memory-list",
    "rpc-context",
    "rpc-memory",
    "rpc-turn-plan",
    "rpc-error-swapped-arguments",
    "rpc-error-malformed",
    "mcp-context",
    "mcp-memory",
    "mcp-plan-turn",
    "turn",
    "chat",
    "prompt",
    "error-require-private-key",
    "error-require-credential-path",
    "error-memory-swapped-arguments",
    "eval",
    "logs",
    "store-index",
    "store-memory",
    "store-other",
)


_TAGGED = sorted(VALUES, key=len, reverse=True)
OPEN, CLOSE = "\ue000", "\ue001"
"""Private-use characters marking a masked value: no output of prooftext holds them (binary data is decoded
as UTF-8 with replacement characters)."""


def _leaks(text: str) -> list[str]:
    """Each planted value (or value prefix) found in ``text``: its label and 40 characters either side, with
    every planted value masked by its label (a value is never printed, not even in part)."""
    masked = text
    for needle in _TAGGED:  # whole values first, so a prefix is reported only where the value was cut short
        masked = masked.replace(needle, OPEN + VALUES[needle] + CLOSE)
    found: list[str] = []
    start = masked.find(OPEN)
    while start >= 0:
        end = masked.index(CLOSE, start)
        label = masked[start + 1 : end]
        context = masked[max(0, start - 40) : end + 41].replace(OPEN, "<").replace(CLOSE, ">")
        found.append(f"{label}: ...{context!r}...")
        start = masked.find(OPEN, end)
    return found


@pytest.mark.parametrize("stream", STREAMS)
def test_F01_no_planted_value_of_any_shape_reaches_a_store_artifact_packet_prompt_error_or_log(
    planted: Run, stream: str, figure: Any
) -> None:
    leaks = _leaks(planted.streams[stream])
    figure("secret_leaks", len(leaks))
    assert leaks == [], f"{len(leaks)} planted value(s) in {stream}:\n" + "\n".join(leaks[:40])


def test_F01_every_surface_was_exercised_and_produced_output(planted: Run) -> None:
    assert set(planted.streams) == set(STREAMS)
    assert [s for s in STREAMS if len(planted.streams[s].strip()) < 20] == []
    assert len(planted.snapshots) >= 4 and any(  # a WAL file was caught while a server context was open
        b"--- index.sqlite-wal" in snap.get("store-index", b"") for snap in planted.snapshots
    )


def test_F01_files_holding_credentials_are_quoted_redacted_and_only_keys_and_credential_paths_are_left_out(
    planted: Run,
) -> None:
    secret = sorted(e["path"] for e in planted.excluded if e["reason"] == REASON_SECRET)
    expected_in_path = sorted(_planted_path(i, c).replace(c.value, "") for i, c in PATH_CASES)
    assert len(secret) == 1 + len(PATH_CASES) and KEY_FILE in secret
    assert sorted(p.split("[REDACTED:")[0] + p.split("]", 1)[1] for p in secret if p != KEY_FILE) == (
        expected_in_path
    )
    assert all("[REDACTED:aws-access-key-id#" in p for p in secret if p != KEY_FILE)
    assert [e for e in planted.excluded if e["reason"] not in (REASON_SECRET, "internal")] == []
    packet = planted.required_packet
    missing = [_planted_path(i, c) for i, c in TEXT_CASES if _planted_path(i, c) not in packet]
    assert missing == []  # every text case is indexed (redacted), none dropped
    for rel in ("docs/credential-rotation.md", "billing/legacy_credentials.py"):
        assert rel in packet
    assert packet.count("[REDACTED:") >= len(TEXT_CASES)
    for rel in ("billing/rotation.py", "docs/deploy.md"):  # the clean sources answer the query
        assert rel in planted.topic_packet
