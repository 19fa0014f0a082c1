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

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Definition, Imports, Language, plain_doc_differs, print_table

from prooftext.graph.extract import extract

ORACLE = Path(__file__).resolve().parent / "ruby_oracle" / "symbols.rb"


def _theirs(defs: list[list[object]]) -> list[Definition]:
    """The oracle's (qualname, kind, def line, last line, first line, doc): ours start at the doc comment."""
    return [(str(q), str(k), int(f), int(last), str(doc)) for q, k, _def, last, f, doc in defs]  # type: ignore[call-overload]


def _imports(rel: str, text: str) -> Imports:
    return [(i.module, i.line) for i in extract(rel, text).imports]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    args = parser.parse_args()
    ruby = Language(".rb", ["ruby", str(ORACLE)], _theirs, _imports, plain_doc_differs)
    return print_table(args.trees, ruby, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
