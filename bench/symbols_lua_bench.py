"""Lua symbols and imports as prooftext extracts them, against luaparse's reading of the same files.

``bench/lua_oracle/symbols.js`` reads each ``.lua`` file with luaparse, a Lua 5.1 to 5.3 and LuaJIT parser in
JavaScript (see its header for what it lists and how it names things); this script runs
``prooftext.graph.extract.extract`` on the same files (the index stores exactly what it returns) and
compares, per tree:

- definitions (function statements, a variable or field given one function), paired by qualname in file
  order: missed (the oracle's only), extra (ours only), kind differs, range differs (our first line is the doc
  comment's, else the definition's; the last line is its last character's); doc comment differs;
- imports: (module, line) pairs, missed and extra.

Usage: python bench/symbols_lua_bench.py TREE [TREE ...] [--verbose] [--build DIR]
luaparse 0.3 is installed once into ``--build`` with npm (Node.js 18 or later on PATH). Not a test: it
prints a table.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Language, bounded_doc_differs, doc_first, our_imports, print_table

ORACLE = Path(__file__).resolve().parent / "lua_oracle" / "symbols.js"
LUAPARSE = "luaparse@0.3.1"


def install(into: Path) -> None:
    if (into / "node_modules" / "luaparse").is_dir():
        return
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "install", "--silent", "--prefix", str(into), LUAPARSE], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--build", type=Path, default=Path("/tmp/prooftext-lua-oracle"))
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    args = parser.parse_args()
    install(args.build)
    os.environ["NODE_PATH"] = str(args.build / "node_modules")
    command = ["node", "--stack-size=65500", str(ORACLE)]
    return print_table(
        args.trees, Language(".lua", command, doc_first, our_imports, bounded_doc_differs), args.verbose
    )


if __name__ == "__main__":
    raise SystemExit(main())
