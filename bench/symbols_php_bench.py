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

from symbols_oracle import Language, bounded_doc_differs, cli, doc_first, our_imports

ORACLE = Path(__file__).resolve().parent / "php_oracle" / "symbols.php"


def main() -> int:
    return cli(
        __doc__.splitlines()[0],
        Language(".php", ["php", str(ORACLE)], doc_first, our_imports, bounded_doc_differs),
    )


if __name__ == "__main__":
    raise SystemExit(main())
