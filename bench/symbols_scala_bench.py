"""Scala symbols and imports as prooftext extracts them, against scalameta's parser.

``bench/scala_oracle/symbols.js`` reads each ``.scala`` file with scalameta (the parser of scalafmt and
Metals, as the ``scalameta-parsers`` npm package builds it for Node; see its header for what it lists and
how it names things); this script runs ``prooftext.graph.extract.extract`` on the same files (the index
stores exactly what it returns) and compares, per tree:

- definitions (classes, traits, objects, enums, ``def``s, ``type`` members, named givens), paired by qualname
  in file order: missed (the oracle's only), extra (ours only), kind differs, range differs (our first line is
  the doc comment's, else the first annotation's or the definition's; the last line is its last character's);
  doc comment differs;
- imports: (module, line) pairs, missed and extra.

Usage: python bench/symbols_scala_bench.py TREE [TREE ...] [--verbose]
Needs ``node`` on PATH and ``scalameta-parsers`` (``npm i scalameta-parsers@4.14.2``) where Node finds it, or
its directory in ``SCALAMETA_PARSERS``. Not a test: it prints a table.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Language, bounded_doc_differs, cli, doc_first, our_imports

ORACLE = Path(__file__).resolve().parent / "scala_oracle" / "symbols.js"


def main() -> int:
    return cli(
        __doc__.splitlines()[0],
        Language(".scala", ["node", str(ORACLE)], doc_first, our_imports, bounded_doc_differs),
    )


if __name__ == "__main__":
    raise SystemExit(main())
