"""TypeScript symbols and imports as prooftext extracts them, against the TypeScript compiler's own parser.

``bench/ts_oracle/symbols.js`` reads each ``.ts`` file with ``ts.createSourceFile`` (see its header for what it
lists and how it names things); this script runs ``prooftext.graph.extract.extract`` on the same files (the
index stores exactly what it returns) and compares, per tree:

- definitions, paired by qualname in file order: missed (the oracle's only), extra (ours only: prooftext also
  lists an object literal's methods and nested arrow functions the oracle does not), kind differs, range
  differs (both start at the JSDoc comment directly above, else at the declaration);
- imports: (module, line) pairs of ``import … from`` and ``export … from``, missed and extra.

A file the compiler reads with a syntax error is counted as ``unparsed`` and not compared. A file tree-sitter
misreads loses definitions: they show as missed (``--verbose`` lists them).

Usage: python bench/symbols_ts_bench.py TREE [TREE ...] [--typescript DIR] [--verbose]
Needs ``node`` and the ``typescript`` package (5.x) in ``--typescript DIR`` (default ``/tmp/typescript5``:
``npm i typescript@5`` there). Not a test: it prints a table.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Definition, Imports, Language, print_table

from prooftext.graph.extract import extract

ORACLE = Path(__file__).resolve().parent / "ts_oracle" / "symbols.js"


def _theirs(defs: list[list[object]]) -> list[Definition]:
    return [(str(q), str(k), int(first), int(last), str(doc)) for q, k, first, last, doc in defs]  # type: ignore[call-overload]


def _imports(rel: str, text: str) -> Imports:
    return [(i.module, i.line) for i in extract(rel, text).imports]


def _no_doc(_lines: list[str], _want: Definition, _got: Definition) -> bool:
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--typescript", type=Path, default=Path("/tmp/typescript5"))
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    args = parser.parse_args()
    os.environ["NODE_PATH"] = str(args.typescript / "node_modules")
    typescript = Language(".ts", ["node", str(ORACLE)], _theirs, _imports, _no_doc)
    return print_table(args.trees, typescript, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
