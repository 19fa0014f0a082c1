"""Who-uses on PHP against an independent oracle: the references the Intelephense language server finds.

For each tree, 400 PHP functions and methods (seed 27) are drawn from the index. The oracle lists every
function and method of the tree as PHP's own AST reads it (``bench/php_oracle/symbols.php``, with the php-ast
extension) and asks Intelephense, a PHP language server that resolves names through namespaces, ``use``
imports, type declarations and doc-comment types, for the references to each (``textDocument/references``,
the declaration left out). Both sides are reduced to callers, the innermost indexed node enclosing a use, as
in ``bench/who_uses_bench.py``. Intelephense resolves a call by the static type of its receiver, but lists
a method's references as one family with the methods it overrides or implements and their other
implementations (``$this->getFormatter()`` of one handler for another handler's ``getFormatter``, both
implementing one interface's): who-uses reports a call through the interface or a base class as
``possible`` and a sibling's call as nothing, so on hierarchies of many siblings its recall reads low.

Usage: python bench/who_uses_php_bench.py TREE [TREE ...] [--n 400] [--seed 27] [--verbose]
Needs ``php`` with the ast extension (Debian: ``php-cli php-ast``), ``node``, and Intelephense installed
with npm in the directory ``INTELEPHENSE_DIR`` names (default ``/tmp/intelephense``: ``npm i
intelephense@1.18.5`` there).
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from who_uses_bench import listed_arguments, listed_bench

HERE = Path(__file__).resolve().parent
SYMBOLS = HERE / "php_oracle" / "symbols.php"
SERVER = (
    Path(os.environ.get("INTELEPHENSE_DIR", "/tmp/intelephense"))
    / "node_modules/intelephense/lib/intelephense.js"
)
TIMEOUT = 900.0
BATCH = 200


class Server:
    """A language server on stdio (LSP's ``Content-Length`` framing), answering one request at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.proc = subprocess.Popen(
            ["node", str(SERVER), "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.last_id = 0
        self.indexed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while (line := out.readline()) not in (b"", b"\r\n", b"\n"):  # headers, up to a blank line
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            if not length:
                return
            self.inbox.put(json.loads(out.read(length)))

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
        self.proc.stdin.flush()

    def _handle(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:  # a request of the server's: answered with nothing
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif message.get("method") == "indexingEnded":
            self.indexed = True

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.last_id += 1
        self._send({"jsonrpc": "2.0", "id": self.last_id, "method": method, "params": params})
        while True:
            message = self.inbox.get(timeout=TIMEOUT)
            if message.get("id") == self.last_id and "method" not in message:
                return message.get("result")
            self._handle(message)

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def start(self, storage: Path) -> None:
        options = {"storagePath": str(storage), "clearCache": True}
        params = {"processId": os.getpid(), "rootUri": self.root.as_uri(), "capabilities": {}}
        self.request("initialize", {**params, "initializationOptions": options})
        self.notify("initialized", {})
        while not self.indexed:
            self._handle(self.inbox.get(timeout=TIMEOUT))

    def references(self, path: str, line: int, column: int) -> list[dict[str, object]]:
        """Where the name at 0-based (line, column) of ``path`` is referenced, as 1-based lines."""
        uri = (self.root / path).as_uri()
        params = {"line": line, "character": column}
        found = self.request(
            "textDocument/references",
            {"textDocument": {"uri": uri}, "position": params, "context": {"includeDeclaration": False}},
        )
        out: list[dict[str, object]] = []
        for ref in found or []:
            where = Path(ref["uri"].removeprefix("file://"))
            if where.is_relative_to(self.root):
                out.append(
                    {
                        "path": where.relative_to(self.root).as_posix(),
                        "line": ref["range"]["start"]["line"] + 1,
                    }
                )
        return out

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def _definitions(tree: Path) -> dict[str, list[tuple[str, int, int]]]:
    """Each file's functions and methods as PHP's AST reads them: (name, first line, last line)."""
    files = sorted(p for p in tree.rglob("*.php") if p.is_file() and ".git" not in p.parts)
    out: dict[str, list[tuple[str, int, int]]] = {}
    for start in range(0, len(files), BATCH):
        batch = [str(p) for p in files[start : start + BATCH]]
        run = subprocess.run(["php", str(SYMBOLS), *batch], capture_output=True, check=True, text=True)
        for line in run.stdout.splitlines():
            found = json.loads(line)
            rel = Path(found["path"]).relative_to(tree).as_posix()
            for qualname, kind, first, last, _doc_first, _doc in found["defs"] or []:
                if kind in ("function", "method"):
                    out.setdefault(rel, []).append((qualname.rsplit(".", 1)[-1], first, last))
    return out


def _name_at(lines: list[str], name: str, first: int, last: int) -> tuple[int, int] | None:
    """0-based (line, column) of ``function name`` in a definition's lines."""
    pattern = re.compile(r"\bfunction\s+&?\s*(" + re.escape(name) + r")\s*\(")
    for number in range(first - 1, min(last, len(lines))):
        match = pattern.search(lines[number])
        if match:
            return number, match.start(1)
    return None


def listing(tree: Path) -> list[dict[str, Any]]:
    server = Server(tree)
    try:
        server.start(Path("/tmp/intelephense-storage") / tree.resolve().name)
        out: list[dict[str, Any]] = []
        for rel, defs in sorted(_definitions(tree).items()):
            text = (tree / rel).read_text(encoding="utf-8", errors="replace")
            uri = (server.root / rel).as_uri()
            server.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "php", "version": 1, "text": text}},
            )
            lines = text.split("\n")
            for name, first, last in defs:
                at = _name_at(lines, name, first, last)
                if at is not None:
                    out.append(
                        {"path": rel, "name": name, "line": at[0] + 1, "refs": server.references(rel, *at)}
                    )
            server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        return out
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    args = listed_arguments(__doc__.splitlines()[0], argv, "TREE")
    if not SERVER.exists():
        print(f"who_uses_php_bench: needs Intelephense at {SERVER} (see --help)", file=sys.stderr)
        return 2
    listed_bench(args, listing, "php", "Intelephense")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
