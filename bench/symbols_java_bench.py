"""Java symbol extraction against an independent reader: the JDK's own parser (``bench/java_oracle``).

For every ``.java`` file of each tree, ``prooftext.graph.extract.extract`` (what the index stores for the
file) is compared with ``JavaOracle.java``, which walks javac's ``com.sun.source`` tree: every class,
interface, enum, record, annotation type, method and constructor, by (qualname, kind), paired by last line.

- range: ours starts at the declaration (annotations included) or at the doc comment directly above it;
  "exact" is either, "other start" / "other end" anything else;
- doc: javac's Javadoc (``Trees.getDocComment``) against our ``docstring``, each line stripped; a comment
  javac does not read as Javadoc (``//``, ``/* */``) but we keep as the doc comment is counted apart;
  docstrings cut at ``MAX_DOCSTRING_CHARS`` are compared on their first characters;
- imports: (name with ``.*`` when wildcard, line) against our ``ImportRef`` (module, line).

Usage: python bench/symbols_java_bench.py TREE [TREE ...] [--verbose] [--limit 20]
Needs a JDK 17 or later (``java`` on PATH; the oracle runs from source, no build step). Not a test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from prooftext.graph import NODE_SYMBOL
from prooftext.graph.code import MAX_DOCSTRING_CHARS
from prooftext.graph.extract import extract

ORACLE = Path(__file__).resolve().parent / "java_oracle" / "JavaOracle.java"
Def = dict[str, Any]  # one def (or file record) of the oracle's JSON
Sym = tuple[str, str, int, int, str, str]  # qualname, kind, start, end, docstring, signature


def _oracle(tree: Path) -> list[Def]:
    run = subprocess.run(["java", str(ORACLE), str(tree)], capture_output=True, check=True, text=True)
    return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]


def _norm(text: str) -> str:
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip()


def _ours(path: str, text: str) -> tuple[list[Sym], list[tuple[str, int]]]:
    graph = extract(path, text)
    syms = [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line, n.docstring, n.signature)
        for n in graph.nodes
        if n.kind == NODE_SYMBOL
    ]
    return syms, [(i.module, i.line) for i in graph.imports]


def _pair(theirs: list[Def], ours: list[Sym]) -> tuple[list[tuple[Def, Sym]], list[Def], list[Sym]]:
    """Pair by (qualname, kind), then by last line; what is left is missed (theirs) or extra (ours)."""
    pool: dict[tuple[str, str], list[Sym]] = defaultdict(list)
    for sym in ours:
        pool[(sym[0], sym[1])].append(sym)
    pairs, missed = [], []
    for item in theirs:
        candidates = pool.get((str(item["qualname"]), str(item["kind"])), [])
        if not candidates:
            missed.append(item)
            continue
        best = min(candidates, key=lambda s: (abs(s[3] - int(item["end"])), abs(s[2] - int(item["start"]))))
        candidates.remove(best)
        pairs.append((item, best))
    extra = [sym for left in pool.values() for sym in left]
    return pairs, missed, extra


def _doc_class(item: Def, sym: Sym) -> str:
    javadoc = item["doc"]
    ours = sym[4]
    if javadoc is None:
        return "doc same (none)" if not ours else "doc from comments javac reads as no Javadoc (rule)"
    want = _norm(str(javadoc))
    got = _norm(ours)
    if got == want or (len(ours) >= MAX_DOCSTRING_CHARS and want.startswith(got[: MAX_DOCSTRING_CHARS // 2])):
        return "doc same"
    if want and want in got:
        return "doc: Javadoc with the comments next to it (rule)"
    return "doc missed" if not got else "doc differs"


def _range_class(item: Def, sym: Sym) -> str:
    start, end = int(item["start"]), int(item["end"])
    if sym[3] != end:
        return "other end"
    if sym[2] == start or (item["doc_start"] is not None and sym[2] == item["doc_start"]):
        return "exact"
    if sym[2] < start and sym[4]:
        return "start at a comment run above (rule)"
    return "other start"


def _signature_class(item: Def, sym: Sym) -> str:
    lines = [line.strip() for line in sym[5].splitlines()]
    if any(line.startswith(("//", "/*")) for line in lines):
        return "signature holds a comment"
    if item["kind"] == "method" and "(" in sym[5] and ")" not in sym[5]:
        return "signature cut"
    return "signature fine"


def bench(tree: Path, tally: Counter[str], verbose: bool, limit: int) -> None:
    shown: Counter[str] = Counter()
    for record in _oracle(tree):
        path = str(record["path"])
        text = (tree / path).read_text(encoding="utf-8", errors="replace")
        ours, imports = _ours(path, text)
        theirs = list(record["defs"])
        tally["files"] += 1
        tally["files javac reports errors in"] += bool(record["errors"])
        tally["javac defs"] += len(theirs)
        tally["our defs"] += len(ours)
        pairs, missed, extra = _pair(theirs, ours)
        tally["missed"] += len(missed)
        tally["extra"] += len(extra)
        notes: list[tuple[str, str]] = [
            ("missed", f"{m['qualname']} {m['kind']} {m['start']}-{m['end']}") for m in missed
        ]
        notes += [("extra", f"{e[0]} {e[1]} {e[2]}-{e[3]}") for e in extra]
        for item, sym in pairs:
            for label in (_range_class(item, sym), _doc_class(item, sym), _signature_class(item, sym)):
                tally[label] += 1
                if label not in ("exact", "doc same", "doc same (none)", "signature fine"):
                    detail = f"{sym[0]} javac {item['start']}-{item['end']} doc@{item['doc_start']} ours {sym[2]}-{sym[3]}"
                    if label.startswith("signature"):
                        detail += f"\n      {sym[5]!r}"
                    if label.startswith("doc"):
                        detail += f"\n      javac: {item['doc']!r}\n      ours:  {sym[4]!r}"
                    notes.append((label, detail))
        want = sorted((str(i["name"]), int(i["line"])) for i in record["imports"])
        got = sorted(imports)
        tally["javac imports"] += len(want)
        tally["imports same"] += sum((Counter(want) & Counter(got)).values())
        for label, items in (
            ("import missed", Counter(want) - Counter(got)),
            ("import extra", Counter(got) - Counter(want)),
        ):
            for (name, line), count in items.items():
                tally[label] += count
                notes.append((label, f"{name} line {line}"))
        for label, detail in notes:
            shown[label] += 1
            if verbose and shown[label] <= limit:
                print(f"  {label}: {path}: {detail}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--limit", type=int, default=20)
    args = parser.parse_args()
    for tree in args.trees:
        tally: Counter[str] = Counter()
        print(f"{tree}:")
        bench(tree, tally, args.verbose, args.limit)
        for key, value in tally.items():
            print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
