"""Ruby symbols and imports as prooftext extracts them, against Ruby's own parser.

``bench/ruby_oracle/symbols.rb`` reads each ``.rb`` file with ``RubyVM::AbstractSyntaxTree`` and Ripper (see
its header for what it lists and how it names things); this script runs ``prooftext.graph.extract.extract``
on the same files (the index stores exactly what it returns) and compares, per tree:

- definitions, paired by qualname in file order: missed (the oracle's only), extra (ours only), kind
  differs, range differs (our first line is the doc comment's, else the definition's; last line ``end``),
  doc comment differs;
- imports: (module, line) pairs of ``require`` / ``require_relative`` / ``load``, missed and extra.

Usage: python bench/symbols_ruby_bench.py TREE [TREE ...] [--verbose]
Needs ``ruby`` on PATH (2.6 or later; Debian's ``ruby`` package will do). Not a test: it prints a table.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Language, cli, doc_first, our_imports, plain_doc_differs

ORACLE = Path(__file__).resolve().parent / "ruby_oracle" / "symbols.rb"


def main() -> int:
    return cli(
        __doc__.splitlines()[0],
        Language(".rb", ["ruby", str(ORACLE)], doc_first, our_imports, plain_doc_differs),
    )


if __name__ == "__main__":
    raise SystemExit(main())
