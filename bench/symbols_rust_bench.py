"""Rust symbols and imports as prooftext extracts them, against the ``syn`` crate's reading.

``bench/rust_oracle`` is a small Rust program over ``syn`` 1.x (full, visit) and ``proc-macro2``
(span-locations); see its header for what it lists and how it names things. This script runs
``prooftext.graph.extract.extract`` on the same files (the index stores exactly what it returns) and compares,
per tree:

- definitions, paired by qualname in file order: missed (the oracle's only), extra (ours only), kind
  differs, range differs (first line: outer attributes, doc comments and the comments directly above; last
  line: the closing brace or semicolon), doc comment differs (only where the oracle found ``///`` or
  ``/** */`` comments and no plain ``//`` comment is in the range above the item);
- imports: one (path, line) per leaf of a ``use`` tree (ours: ``module::name`` per name, else the module),
  and ``self::m`` per ``mod m;``, missed and extra.

Usage: python bench/symbols_rust_bench.py TREE [TREE ...] [--verbose] [--oracle BINARY]
Needs the oracle built once. With Debian's packages (``apt-get install cargo librust-syn-dev``), offline::

    cd bench/rust_oracle && cargo build --release --offline \\
      --config 'source.crates-io.replace-with="debian"' \\
      --config 'source.debian.directory="/usr/share/cargo/registry"' --target-dir /tmp/rust_oracle

then pass ``--oracle /tmp/rust_oracle/release/symbols_oracle`` (with crates.io reachable a plain
``cargo build --release`` does). Not a test: it prints a table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from prooftext.graph.extract import extract

DEFAULT_ORACLE = Path("/tmp/rust_oracle/release/symbols_oracle")
_BATCH = 200

Definition = tuple[str, str, int, int, str]  # qualname, kind, first line, last line, doc comment


@dataclass
class Tally:
    files: int = 0
    unparsed: int = 0
    oracle: int = 0
    ours: int = 0
    exact: int = 0
    missed: int = 0
    extra: int = 0
    kind: int = 0
    range: int = 0
    doc: int = 0
    imports: int = 0
    imports_missed: int = 0
    imports_extra: int = 0
    notes: list[str] = field(default_factory=list)


def _oracle(binary: Path, files: list[Path]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for start in range(0, len(files), _BATCH):
        batch = [str(path) for path in files[start : start + _BATCH]]
        run = subprocess.run([str(binary), *batch], capture_output=True, check=True, text=True)
        out.extend(json.loads(line) for line in run.stdout.splitlines() if line.strip())
    return out


def _ours(rel: str, text: str) -> tuple[list[Definition], list[tuple[str, int]]]:
    graph = extract(rel, text)
    defs = [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line, n.docstring)
        for n in graph.nodes
        if n.kind == "symbol"
    ]
    imports = [
        (f"{i.module}::{name}" if name != "self" else i.module, i.line)  # `a::{self}` names `a`
        for i in graph.imports
        for name in (i.names or ("self",))
    ]
    return defs, imports


def _pair(
    theirs: list[Definition], ours: list[Definition]
) -> tuple[list[tuple[Definition, Definition]], list[Definition], list[Definition]]:
    pending: dict[str, list[Definition]] = {}
    for definition in ours:
        pending.setdefault(definition[0], []).append(definition)
    pairs: list[tuple[Definition, Definition]] = []
    missed: list[Definition] = []
    for definition in theirs:
        same = pending.get(definition[0])
        if same:
            pairs.append((definition, same.pop(0)))
        else:
            missed.append(definition)
    extra = [d for rest in pending.values() for d in rest]
    return pairs, missed, extra


def _plain_comment_above(lines: list[str], first: int, doc: str) -> bool:
    """Whether a ``//`` comment that is no doc comment lies among the comments and attributes the oracle's
    range opens with (ours reads it into the doc comment, by the project's rule; rustc ignores it)."""
    for line in lines[first - 1 :]:
        stripped = line.strip()
        if stripped.startswith("#["):
            continue
        if not stripped.startswith(("//", "/*", "*")):
            return False
        if stripped.startswith("//") and not stripped.startswith(("///", "//!")):
            return True
    return not doc


def _compare(rel: str, found: dict[str, object], text: str, tally: Tally) -> None:
    ours, our_imports = _ours(rel, text)
    tally.files += 1
    if found["error"]:
        tally.unparsed += 1
        tally.notes.append(f"{rel}: the oracle cannot parse it ({found['error']})")
        return
    theirs: list[Definition] = [
        (str(q), str(k), int(f), int(last), str(doc))
        for q, k, f, last, doc in found["defs"]  # type: ignore[union-attr]
    ]
    lines = text.split("\n")
    tally.oracle += len(theirs)
    tally.ours += len(ours)
    pairs, missed, extra = _pair(theirs, ours)
    tally.missed += len(missed)
    tally.extra += len(extra)
    tally.notes += [f"{rel}: missed {d}" for d in missed] + [f"{rel}: extra {d}" for d in extra]
    for want, got in pairs:
        doc_differs = want[4] != got[4] and not _plain_comment_above(lines, want[2], want[4])
        if want[:4] == got[:4] and not doc_differs:
            tally.exact += 1
            continue
        tally.kind += want[1] != got[1]
        tally.range += want[2:4] != got[2:4]
        tally.doc += doc_differs
        tally.notes.append(f"{rel}: oracle {want!r}\n{' ' * len(rel)}    ours   {got!r}")
    want_imports = Counter((str(m), int(line)) for m, line in found["imports"])  # type: ignore[union-attr]
    got_imports = Counter(our_imports)
    tally.imports += sum(want_imports.values())
    tally.imports_missed += sum((want_imports - got_imports).values())
    tally.imports_extra += sum((got_imports - want_imports).values())
    tally.notes += [f"{rel}: import missed {i}" for i in want_imports - got_imports]
    tally.notes += [f"{rel}: import extra {i}" for i in got_imports - want_imports]


def measure(tree: Path, binary: Path) -> Tally:
    files = sorted(p for p in tree.rglob("*.rs") if p.is_file() and ".git" not in p.parts)
    tally = Tally()
    for found in _oracle(binary, files):
        path = Path(str(found["path"]))
        text = path.read_bytes().decode("utf-8", "replace")
        _compare(path.relative_to(tree).as_posix(), found, text, tally)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    parser.add_argument("--oracle", type=Path, default=DEFAULT_ORACLE, help="the built oracle binary")
    args = parser.parse_args()
    print(
        "| tree | files | unparsed | oracle defs | ours | exact | missed | extra | kind | range | doc "
        "| imports | imp. missed | imp. extra |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for tree in args.trees:
        t = measure(tree, args.oracle)
        print(
            f"| {tree.name} | {t.files} | {t.unparsed} | {t.oracle} | {t.ours} | {t.exact} | {t.missed} "
            f"| {t.extra} | {t.kind} | {t.range} | {t.doc} | {t.imports} | {t.imports_missed} "
            f"| {t.imports_extra} |"
        )
        if args.verbose and t.notes:
            print("\n".join(t.notes), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
