"""C# symbols and imports as prooftext extracts them, against the Mono C# compiler's parser.

``bench/csharp_oracle/CSharpOracle.cs`` reads each ``.cs`` file with Mono.CSharp, the parser of ``mcs`` (see its
header for what it lists, how it names things, and the C# it cannot read); this script runs
``prooftext.graph.extract.extract`` on the same files (the index stores exactly what it returns) and compares,
per tree:

- definitions (classes, structs, interfaces, enums, delegates, methods, constructors), paired by qualname in
  file order: missed (the oracle's only), extra (ours only: local functions, records and whatever else the
  parser cannot read is counted here only in files it does parse), kind differs, range differs (our first
  line is the doc comment's, else the first attribute's or the definition's; the last line is its last
  character's); doc comment differs;
- imports: (module, line) pairs, missed and extra.

Usage: python bench/symbols_csharp_bench.py TREE [TREE ...] [--verbose] [--build DIR]
The oracle is compiled once into ``--build`` with ``mcs`` (Debian's ``mono-mcs`` and
``libmono-csharp4.0c-cil``). Not a test: it prints a table.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Language, bounded_doc_differs, doc_first, our_imports, print_table

ORACLE = Path(__file__).resolve().parent / "csharp_oracle" / "CSharpOracle.cs"


def build(into: Path) -> Path:
    exe = into / "CSharpOracle.exe"
    if not exe.exists():
        into.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mcs", "-r:Mono.CSharp.dll", str(ORACLE), f"-out:{exe}"], check=True)
    return exe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--build", type=Path, default=Path("/tmp/prooftext-csharp-oracle"))
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    args = parser.parse_args()
    command = ["mono", str(build(args.build))]
    return print_table(
        args.trees, Language(".cs", command, doc_first, our_imports, bounded_doc_differs), args.verbose
    )


if __name__ == "__main__":
    raise SystemExit(main())
