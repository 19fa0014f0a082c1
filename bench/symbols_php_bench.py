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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Definition, Language, cli, doc_first, our_imports

from prooftext.graph.code import MAX_DOCSTRING_CHARS

ORACLE = Path(__file__).resolve().parent / "php_oracle" / "symbols.php"


def _doc_differs(_lines: list[str], want: Definition, got: Definition) -> bool:
    """Doc comments differ, unless ours is the oracle's cut at prooftext's bound on a doc comment's length."""
    if len(want[4]) > MAX_DOCSTRING_CHARS:
        return not want[4].startswith(got[4])
    return want[4] != got[4]


def main() -> int:
    return cli(
        __doc__.splitlines()[0], Language(".php", ["php", str(ORACLE)], doc_first, our_imports, _doc_differs)
    )


if __name__ == "__main__":
    raise SystemExit(main())
