"""PHP symbols and imports as prooftext extracts them, against PHP's own parser.

``bench/php_oracle/symbols.php`` reads each ``.php`` file with the php-ast extension (the AST PHP's compiler
builds) and PHP's tokenizer (see its header for what it lists and how it names things); this script runs
``prooftext.graph.extract.extract`` on the same files (the index stores exactly what it returns) and
compares, per tree:

- definitions (classes, interfaces, traits, enums, functions, methods), paired by qualname in file order:
  missed (the oracle's only), extra (ours only), kind differs, range differs (our first line is the doc
  comment's, else the first attribute's or the definition's; the last line is its closing brace or ``;``),
  doc comment differs;
- imports: (module, line) pairs of ``use`` elements and literal ``include`` / ``require`` paths, missed and
  extra.

Usage: python bench/symbols_php_bench.py TREE [TREE ...] [--verbose]
Needs ``php`` on PATH (8.0 or later) with the ast extension (Debian: ``php-cli php-ast``). Not a test: it
prints a table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Definition, Imports, Language, print_table

from prooftext.graph.code import MAX_DOCSTRING_CHARS
from prooftext.graph.extract import extract

ORACLE = Path(__file__).resolve().parent / "php_oracle" / "symbols.php"


def _theirs(defs: list[list[object]]) -> list[Definition]:
    """The oracle's (qualname, kind, first, last, doc first line, doc): ours start at the doc comment."""
    return [(str(q), str(k), int(f), int(last), str(doc)) for q, k, _first, last, f, doc in defs]  # type: ignore[call-overload]


def _doc_differs(_lines: list[str], want: Definition, got: Definition) -> bool:
    """Doc comments differ, unless ours is the oracle's cut at prooftext's bound on a doc comment's length."""
    if len(want[4]) > MAX_DOCSTRING_CHARS:
        return not want[4].startswith(got[4])
    return want[4] != got[4]


def _imports(rel: str, text: str) -> Imports:
    return [(i.module, i.line) for i in extract(rel, text).imports]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    args = parser.parse_args()
    php = Language(".php", ["php", str(ORACLE)], _theirs, _imports, _doc_differs)
    return print_table(args.trees, php, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
