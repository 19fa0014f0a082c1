"""Test helpers shared across folders (importable because pytest puts tests/ on the path)."""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from types import ModuleType
from typing import Any

import blake3
import pytest

import prooftext
import prooftext.sqlite as prooftext_sqlite
from prooftext.corpus import safeio
from prooftext.graph import NODE_SYMBOL, FileGraph
from prooftext.pack.render import Block, derive_nonce, render
from prooftext.pack.sources import file_repeats, observe
from prooftext.tokens import get_counter

REPO = Path(__file__).resolve().parents[1]


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` loaded as a module (registered in ``sys.modules``, so its dataclasses resolve
    their annotations); the test is skipped when the checkout has no such script."""
    path = REPO / "bench" / f"{name}.py"
    if not path.is_file():
        pytest.skip(f"bench/{name}.py is not in this checkout")
    if (
        str(path.parent) not in sys.path
    ):  # a script imports its shared argument types as a run from bench/ does
        sys.path.append(str(path.parent))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def shared_path() -> Path | None:
    """``../shared`` beside the checkout, or ``$PROOFTEXT_SHARED``; None when neither exists."""
    env = os.environ.get("PROOFTEXT_SHARED")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared")
    for path in candidates:
        if path.is_dir():
            return path
    return None


SAMPLE_FILES: dict[str, str] = {
    "modeling/__init__.py": '"""Modeling package."""\n',
    "modeling/separable.py": (
        '"""Separability of compound models."""\n'
        "\n"
        "import numpy as np\n"
        "\n"
        "\n"
        "def _coord_matrix(model, pos, noutp):\n"
        '    """Create an array representing inputs and outputs of a simple model."""\n'
        "    mat = np.zeros((noutp, model.n_inputs))\n"
        "    return mat\n"
        "\n"
        "\n"
        "def separability_matrix(transform):\n"
        '    """Compute the correlation between outputs and inputs of a compound model."""\n'
        "    if transform.n_inputs == 1:\n"
        "        return np.ones((transform.n_outputs, 1), dtype=bool)\n"
        "    matrix = _coord_matrix(transform, 'left', transform.n_outputs)\n"
        "    return matrix != 0\n"
        "\n"
        "\n"
        "def is_separable(transform):\n"
        '    """A model is separable when each output depends on one input."""\n'
        "    return separability_matrix(transform).sum(1) == 1\n"
    ),
    "modeling/core.py": (
        '"""Core model classes."""\n'
        "\n"
        "from .separable import separability_matrix\n"
        "\n"
        "\n"
        "class CompoundModel:\n"
        '    """A model built from two others."""\n'
        "\n"
        "    def __init__(self, left, right):\n"
        "        self.left = left\n"
        "        self.right = right\n"
        "\n"
        "    def separable(self):\n"
        "        return separability_matrix(self)\n"
    ),
    "docs/guide.md": (
        "# Guide\n\nModels can be combined.\n\n## Separability\n\nSee the separability matrix of a compound model.\n"
    ),
    "util/strings.py": (
        "def slugify(text):\n"
        '    """Lowercase words joined by dashes."""\n'
        "    return '-'.join(text.lower().split())\n"
    ),
}


def children(parent: int) -> list[int]:
    """The processes whose parent is ``parent`` (from /proc, which lists no children file here)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            if int(stat.rpartition(")")[2].split()[1]) == parent:
                out.append(int(entry.name))
    return out


def spawned_workers() -> set[int]:
    """This process's children that run a spawned interpreter's entry point (not its resource tracker)."""
    workers = set()
    for pid in children(os.getpid()):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # ended meanwhile
            continue
        if b"spawn_main" in command:
            workers.add(pid)
    return workers


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """``files`` under ``root``: text as UTF-8, bytes as they are."""
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


def found_by(root: Path, files: Mapping[str, str], target: str) -> dict[str, str]:
    """``files`` (indented text, dedented) written under ``root`` and indexed; then each dependent of the
    definition ``target`` (a qualified name) as ``path:qualname``, with how who-uses found it."""
    write_tree(root, {name: textwrap.dedent(text).lstrip("\n") for name, text in files.items()})
    with prooftext.open(root) as index:
        index.refresh()
        result = prooftext.risk_of_changing(index, [target])
    return {f"{d['path']}:{d['qualname']}": d["found_by"] for d in result["dependents"]}


def indexed_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """``files`` under ``root`` (:func:`write_tree`), indexed once; ``root``."""
    write_tree(root, files)
    with prooftext.open(root) as index:
        index.refresh()
    return root


def undecodable_directory(parent: Path) -> Path:
    """A new directory under ``parent`` whose name is not UTF-8 (the Latin-1 byte of "é"); the test is skipped
    when the file system refuses such a name."""
    if sys.getfilesystemencoding().lower() not in ("utf-8", "utf8"):
        pytest.skip(f"file names are {sys.getfilesystemencoding()} here, not UTF-8")
    raw = os.path.join(os.fsencode(parent), b"r\xe9")
    try:
        os.mkdir(raw)
    except OSError as exc:
        pytest.skip(f"this file system refuses a directory name that is not UTF-8: {exc.strerror}")
    return Path(os.fsdecode(raw))


def ranked_hits(root: Path, query: str, limit: int = 50) -> list[dict[str, Any]]:
    """The ranked candidates of ``query`` over ``root``, refreshed first."""
    with prooftext.open(root) as index:
        index.refresh()
        return index.search(query, limit=limit)


def eio_on(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Reading a file named ``name`` fails with EIO, as a permission problem or a bad sector would (and as
    root, whom file permissions do not stop, can still be shown); chmod or a repair changes none of its
    size, mtime or inode."""
    real_read = os.read

    def failing_read(fd: int, n: int) -> bytes:
        if os.readlink(f"/proc/self/fd/{fd}").endswith("/" + name):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real_read(fd, n)

    monkeypatch.setattr(safeio.os, "read", failing_read)


def cantopen() -> sqlite3.OperationalError:
    """SQLite's error for a database file it cannot open (``SQLITE_CANTOPEN``), as a read-only file system or a
    missing permission gives it."""
    exc = sqlite3.OperationalError("unable to open database file")
    exc.sqlite_errorcode = 14
    exc.sqlite_errorname = "SQLITE_CANTOPEN"
    return exc


def read_only_file_system(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    """``directory`` behaves as a read-only mount (which root, whom permissions do not stop, cannot otherwise
    be shown without mounting): its file system reports itself read-only, a SQLite connection to a file in it
    fails with ``SQLITE_CANTOPEN`` at its first statement unless it is immutable (it could create no ``-shm``
    file), and opening a file in it for writing fails with EROFS."""
    inside = str(directory.absolute())
    real_connect = sqlite3.connect
    real_open = os.open

    class Unopenable(sqlite3.Connection):
        def execute(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
            raise cantopen()

    def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        target = os.fsdecode(database)
        if inside in target and "immutable=1" not in target:
            return real_connect(":memory:", factory=Unopenable)
        return real_connect(database, *args, **kwargs)

    def open_file(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if inside in os.fsdecode(path) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)
    monkeypatch.setattr(os, "open", open_file)
    monkeypatch.setattr(prooftext_sqlite, "is_read_only_file_system", lambda d: inside in str(d.absolute()))


def redigested(packet: dict[str, Any]) -> dict[str, Any]:
    """The packet with its digest and token count recomputed, as a forger would."""
    packet["blake3"] = blake3.blake3(packet["prompt"].encode()).hexdigest()
    packet["prompt_tokens"]["count"] = get_counter(packet["prompt_tokens"]["basis"]).count(packet["prompt"])
    return packet


def promoted(packet: dict[str, Any]) -> dict[str, Any]:
    """Every excerpt relabelled owner-approved and public, in ``evidence`` and in the prompt alike, and the
    packet redigested: a forgery only the labels' derivation from the configuration can catch."""
    packet["prompt"] = (
        packet["prompt"]
        .replace("authority=repository-record", "authority=owner-approved")
        .replace("sensitivity=repository-private", "sensitivity=public")
    )
    for item in packet["evidence"]:
        item.update(authority="owner-approved", sensitivity="public")
    return redigested(packet)


LADDER_FIELDS = frozenset(f.name for f in fields(prooftext.Ladder))
CALL_OPTIONS = frozenset({"format", "refresh", "on_round"})


def pack_fields(index: prooftext.Index, text: str, **kw: Any) -> prooftext.Packet:
    """``index.pack`` of a query with the given fields (and the call's own ``format``/``refresh``)."""
    options = {k: kw.pop(k) for k in list(kw) if k in CALL_OPTIONS}
    return index.pack(prooftext.Query(text, **kw), **options)


def adaptive_fields(index: prooftext.Index, text: str, **kw: Any) -> prooftext.AdaptiveResult:
    """``index.adaptive_pack`` with the given ladder and query fields (and the call's own options)."""
    options = {k: kw.pop(k) for k in list(kw) if k in CALL_OPTIONS}
    ladder = prooftext.Ladder(**{k: kw.pop(k) for k in list(kw) if k in LADDER_FIELDS})
    return index.adaptive_pack(prooftext.Query(text, **kw), ladder=ladder, **options)


def filled_memory(root: Path, records: int = 300) -> Path:
    """A memory store under ``root`` holding ``records`` discoveries, then a decision superseded by another
    (the last two records) and one chat message; its path, every handle closed."""
    root.mkdir(parents=True, exist_ok=True)
    with prooftext.MemoryStore.open(root) as store:
        for i in range(records):
            store.add("discovery", f"discovery {i}: the retry policy lives in settings", source="test")
        decision = store.add("decision", "Use SQLite WAL", source="test")
        store.supersede(decision.id, "Use SQLite WAL with a busy timeout", source="test")
        store.append_message("main", "user", "what did we decide?")
        return store.path


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``at``: its value and the offset after it."""
    value = 0
    for n in range(9):
        byte = data[at + n]
        if n == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at + n + 1
    raise AssertionError("unreachable")


def _leaf_rowids(page: bytes) -> list[int]:
    """The rowids of the cells of one table b-tree leaf page (type 13), read from the file format."""
    cells = int.from_bytes(page[3:5], "big")
    out = []
    for n in range(cells):
        offset = int.from_bytes(page[8 + 2 * n : 10 + 2 * n], "big")
        _, after_size = _varint(page, offset)
        out.append(_varint(page, after_size)[0])
    return sorted(out)


TABLE_LEAF = 13
"""The first byte of a table b-tree leaf page."""


def damage_records_page(path: Path) -> list[int]:
    """Overwrite the header of a leaf page of ``records`` in the middle of the table with bytes no page
    holds, as a failing disk would; the ids of the records that page held (read from the file format).

    Only ``records`` has many rows, so its leaf pages are the table leaves holding more than ten cells."""
    assert not path.with_name(path.name + "-wal").exists()  # every page is in the file itself
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[16:18], "big")
    leaves = [
        start
        for start in range(size, len(data), size)
        if data[start] == TABLE_LEAF and int.from_bytes(data[start + 3 : start + 5], "big") > 10
    ]
    start = leaves[len(leaves) // 2]
    lost = _leaf_rowids(bytes(data[start : start + size]))
    data[start : start + 16] = b"\xff" * 16
    path.write_bytes(bytes(data))
    return lost


# --- packet forgeries: edits a forger re-renders consistently with the public functions ---------------


def rerendered(packet: dict[str, Any], root: Path) -> dict[str, Any]:
    """The packet's prompt, nonce, digest and count rendered again from its (edited) query and evidence, as
    a forger with the project's own functions would: the files alone cannot tell it from a genuine one."""
    blocks = []
    for item in packet["evidence"]:
        (start, end), sha = item["lines"], item["sha256"]
        text = observe(root, item["path"], sha, [(start, end)]).text
        assert text is not None
        truncated = tuple(item["truncated_from"]) if item["truncated_from"] else None
        blocks.append(
            Block(
                item["path"],
                start,
                end,
                sha,
                item["authority"],
                item["sensitivity"],
                text.slice(start, end),
                truncated,
                file_repeats(item["path"], sha, text),
            )
        )
    query = packet["query"]["text"]
    packet["nonce"] = derive_nonce(query, blocks)
    packet["prompt"] = render(packet["format"], query, blocks, packet["nonce"])
    return redigested(packet)


def _drop_one(p: dict[str, Any]) -> None:
    p["evidence"].pop()


def _reverse(p: dict[str, Any]) -> None:
    p["evidence"].reverse()


def _shrink(p: dict[str, Any]) -> None:
    item = next(e for e in p["evidence"] if e["lines"][1] > e["lines"][0])
    item["lines"][1] -= 1


def _new_query(p: dict[str, Any]) -> None:
    p["query"]["text"] = "which models are separable"


def _raise_limits(p: dict[str, Any]) -> None:
    p["query"]["max_tokens"] *= 2
    p["query"]["max_nodes"] *= 2


def _made_up_truncation(p: dict[str, Any]) -> None:
    p["query"]["allow_truncated"] = True
    item = p["evidence"][0]
    item["truncated_from"] = [item["lines"][0], item["lines"][1] + 3]


def _omitted(p: dict[str, Any]) -> None:
    p["omitted"] += 1


FORGERIES: dict[str, Callable[[dict[str, Any]], None]] = {
    "an excerpt dropped": _drop_one,
    "the order reversed": _reverse,
    "a range shrunk by one": _shrink,
    "the query changed": _new_query,
    "the limits raised": _raise_limits,
    "a made-up truncation": _made_up_truncation,
    "the compiler's record edited": _omitted,
}


REGENERATE_GOLDEN = os.environ.get("PROOFTEXT_REGEN_GOLDEN") == "1"
"""``PROOFTEXT_REGEN_GOLDEN=1`` rewrites the store's golden files (review the diff)."""


def check_reading_golden(golden: Path, key: str, held: Any, moved: Callable[[Any, Any], list[str]]) -> None:
    """Compare what the store holds (``held``, recorded under ``key`` beside the reading revision and the
    parsers' versions) with the golden file: whatever ``moved(recorded, held)`` lists must come with a raised
    ``READING_REVISION``; other parsers skip (the reading key already covers a parser upgrade, only the record
    is out of date)."""
    from prooftext.store import refresh

    current = {"revision": refresh.READING_REVISION, "parsers": dict(refresh.parser_versions()), key: held}
    if REGENERATE_GOLDEN:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    recorded = json.loads(golden.read_text())
    if recorded["parsers"] != current["parsers"]:
        pytest.skip(f"{golden.name} recorded with parsers {recorded['parsers']}; regenerate it for these")
    changed = moved(recorded[key], held)
    if changed:
        assert current["revision"] > recorded["revision"], (
            f"{', '.join(changed)} changed: raise READING_REVISION in prooftext.store.refresh, then regenerate"
            f" {golden.name} (PROOFTEXT_REGEN_GOLDEN=1)"
        )
    assert current == recorded, f"regenerate {golden.name} after raising READING_REVISION"


SERVER_STARTUP_S = 15.0
"""How long a test waits for a served app to start or stop; never reached when it works."""


@contextmanager
def serving_app(app: Any, **options: Any) -> Iterator[socket.socket]:
    """Serve ``app`` (with ``make_server`` options) on a free loopback port; yield its socket; then stop it
    and wait for its thread to end."""
    from prooftext.server import http

    sock = http.bind("127.0.0.1", 0)
    server = http.make_server(app, **options)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + SERVER_STARTUP_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        thread.join(0.01)
    try:
        yield sock
    finally:
        server.should_exit = True
        thread.join(SERVER_STARTUP_S)
        sock.close()
    assert not thread.is_alive()


MCP_INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
"""An MCP client's ``initialize`` request, as the raw-transport tests send it."""
MCP_PATH = "/mcp"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
MCP_SESSION = "mcp-session-id"


@contextmanager
def served_mcp(root: Path, bound: str = "127.0.0.1", **options: Any) -> Iterator[str]:
    """The app of ``prooftext mcp --http`` for a server bound to ``bound``, without a token, on a free
    loopback port; yield its URL."""
    from prooftext.server import http
    from prooftext.server.context import ServerContext
    from prooftext.server.dispatcher import Dispatcher
    from prooftext.server.mcp_server import create_mcp_server

    ctx = ServerContext.open(root, interface="mcp")
    try:
        app = http.BearerGuard(create_mcp_server(Dispatcher(ctx)).http_app(MCP_PATH, bound, **options), None)
        with serving_app(app) as sock:
            yield http.url_of(sock, MCP_PATH)
    finally:
        ctx.close()


def mcp_session(client: Any, url: str) -> dict[str, str]:
    """The headers of a request in a new, initialized MCP session at ``url``."""
    opened = client.post(url, json=MCP_INITIALIZE, headers=MCP_HEADERS)
    assert opened.status_code == 200
    headers = {**MCP_HEADERS, MCP_SESSION: opened.headers[MCP_SESSION]}
    client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers


@contextmanager
def tmpfs(where: Path, size: str = "1m") -> Iterator[Path]:
    """A small tmpfs mounted at ``where`` (root only); skips the test when mounting is not permitted."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"mount is not permitted here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def dedented(text: str) -> str:
    """A source file written indented in a test, as the file holds it."""
    return textwrap.dedent(text).lstrip("\n")


def symbol_rows(graph: FileGraph) -> list[tuple[str, str, int, int]]:
    """The symbols of an extracted file: qualname, kind, first and last line."""
    return [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line) for n in graph.nodes if n.kind == NODE_SYMBOL
    ]


def symbol_signatures(graph: FileGraph) -> dict[tuple[str, str], str]:
    """The signature of each symbol of an extracted file, by qualname and kind."""
    return {(n.qualname, n.symbol_kind): n.signature for n in graph.nodes if n.kind == NODE_SYMBOL}


def documented_rows(graph: FileGraph) -> list[tuple[str, str, int, int, str]]:
    """:func:`symbol_rows` with each symbol's doc comment."""
    return [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line, n.docstring)
        for n in graph.nodes
        if n.kind == NODE_SYMBOL
    ]
