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
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from prooftext.graph.extract import extract

ORACLE = Path(__file__).resolve().parent / "ruby_oracle" / "symbols.rb"
_BATCH = 200

Definition = tuple[str, str, int, int, str]  # qualname, kind, first line, last line, doc comment


@dataclass
class Tally:
    files: int = 0
    unparsed: int = 0
    oracle: int = 0
    ours: int = 0
    exact: int = 0
    missed: int = 0
    extra: int = 0
    kind: int = 0
    range: int = 0
    doc: int = 0
    imports: int = 0
    imports_missed: int = 0
    imports_extra: int = 0
    notes: list[str] = field(default_factory=list)


def _oracle(files: list[Path]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for start in range(0, len(files), _BATCH):
        batch = [str(path) for path in files[start : start + _BATCH]]
        run = subprocess.run(["ruby", str(ORACLE), *batch], capture_output=True, check=True, text=True)
        out.extend(json.loads(line) for line in run.stdout.splitlines() if line.strip())
    return out


def _ours(rel: str, text: str) -> tuple[list[Definition], list[tuple[str, int]]]:
    graph = extract(rel, text)
    defs = [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line, n.docstring)
        for n in graph.nodes
        if n.kind == "symbol"
    ]
    return defs, [(i.module, i.line) for i in graph.imports]


def _pair(
    theirs: list[Definition], ours: list[Definition]
) -> tuple[list[tuple[Definition, Definition]], list[Definition], list[Definition]]:
    pending: dict[str, list[Definition]] = {}
    for definition in ours:
        pending.setdefault(definition[0], []).append(definition)
    pairs: list[tuple[Definition, Definition]] = []
    missed: list[Definition] = []
    for definition in theirs:
        same = pending.get(definition[0])
        if same:
            pairs.append((definition, same.pop(0)))
        else:
            missed.append(definition)
    extra = [d for rest in pending.values() for d in rest]
    return pairs, missed, extra


def _compare(rel: str, found: dict[str, object], text: str, tally: Tally) -> None:
    ours, our_imports = _ours(rel, text)
    tally.files += 1
    if found["error"]:
        tally.unparsed += 1
        tally.notes.append(f"{rel}: the oracle cannot parse it ({found['error']})")
        return
    theirs: list[Definition] = [
        (str(q), str(k), int(f), int(last), str(doc))
        for q, k, _first, last, f, doc in found["defs"]  # type: ignore[union-attr]
    ]
    tally.oracle += len(theirs)
    tally.ours += len(ours)
    pairs, missed, extra = _pair(theirs, ours)
    tally.missed += len(missed)
    tally.extra += len(extra)
    tally.notes += [f"{rel}: missed {d}" for d in missed] + [f"{rel}: extra {d}" for d in extra]
    for want, got in pairs:
        if want == got:
            tally.exact += 1
            continue
        if want[1] != got[1]:
            tally.kind += 1
        if want[2:4] != got[2:4]:
            tally.range += 1
        if want[4] != got[4]:
            tally.doc += 1
        tally.notes.append(f"{rel}: oracle {want!r}\n{' ' * len(rel)}    ours   {got!r}")
    want_imports = Counter((str(m), int(line)) for m, line in found["imports"])  # type: ignore[union-attr]
    got_imports = Counter(our_imports)
    tally.imports += sum(want_imports.values())
    tally.imports_missed += sum((want_imports - got_imports).values())
    tally.imports_extra += sum((got_imports - want_imports).values())
    tally.notes += [f"{rel}: import missed {i}" for i in want_imports - got_imports]
    tally.notes += [f"{rel}: import extra {i}" for i in got_imports - want_imports]


def measure(tree: Path) -> Tally:
    files = sorted(p for p in tree.rglob("*.rb") if p.is_file() and ".git" not in p.parts)
    tally = Tally()
    for found in _oracle(files):
        path = Path(str(found["path"]))
        text = path.read_bytes().decode("utf-8", "replace")
        _compare(path.relative_to(tree).as_posix(), found, text, tally)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    args = parser.parse_args()
    print(
        "| tree | files | unparsed | oracle defs | ours | exact | missed | extra | kind | range | doc "
        "| imports | imp. missed | imp. extra |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for tree in args.trees:
        t = measure(tree)
        print(
            f"| {tree.name} | {t.files} | {t.unparsed} | {t.oracle} | {t.ours} | {t.exact} | {t.missed} "
            f"| {t.extra} | {t.kind} | {t.range} | {t.doc} | {t.imports} | {t.imports_missed} "
            f"| {t.imports_extra} |"
        )
        if args.verbose and t.notes:
            print("\n".join(t.notes), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
