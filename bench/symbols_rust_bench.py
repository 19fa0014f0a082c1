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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Definition, Imports, Language, print_table

from prooftext.graph.extract import extract

DEFAULT_ORACLE = Path("/tmp/rust_oracle/release/symbols_oracle")


def _theirs(defs: list[list[object]]) -> list[Definition]:
    return [(str(q), str(k), int(f), int(last), str(doc)) for q, k, f, last, doc in defs]  # type: ignore[call-overload]


def _imports(rel: str, text: str) -> Imports:
    return [
        (f"{i.module}::{name}" if name != "self" else i.module, i.line)  # `a::{self}` names `a`
        for i in extract(rel, text).imports
        for name in (i.names or ("self",))
    ]


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


def _doc_differs(lines: list[str], want: Definition, got: Definition) -> bool:
    return want[4] != got[4] and not _plain_comment_above(lines, want[2], want[4])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    parser.add_argument("--oracle", type=Path, default=DEFAULT_ORACLE, help="the built oracle binary")
    args = parser.parse_args()
    rust = Language(".rs", [str(args.oracle)], _theirs, _imports, _doc_differs)
    return print_table(args.trees, rust, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
