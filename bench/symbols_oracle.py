"""What the symbol benches share: an oracle program run over a tree's files in batches, its definitions
paired with prooftext's by qualname in file order, and one table row per tree.

An oracle prints one JSON line per file: ``{"path", "error", "defs", "imports"}``. Each language's bench
(``symbols_ruby_bench.py``, ``symbols_rust_bench.py``) says how its oracle spells a definition and when two
doc comments count as the same.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prooftext.graph.code import MAX_DOCSTRING_CHARS
from prooftext.graph.extract import extract

BATCH = 200
"""Files per run of the oracle."""

Definition = tuple[str, str, int, int, str]
"""qualname, kind, first line, last line, doc comment."""
Imports = list[tuple[str, int]]
DocDiffers = Callable[[list[str], Definition, Definition], bool]
"""Whether the doc comments of an oracle's definition and ours differ (given the file's lines)."""

HEADER = (
    "| tree | files | unparsed | oracle defs | ours | exact | missed | extra | kind | range | doc "
    "| imports | imp. missed | imp. extra |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


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

    def row(self, name: str) -> str:
        return (
            f"| {name} | {self.files} | {self.unparsed} | {self.oracle} | {self.ours} | {self.exact} "
            f"| {self.missed} | {self.extra} | {self.kind} | {self.range} | {self.doc} | {self.imports} "
            f"| {self.imports_missed} | {self.imports_extra} |"
        )


@dataclass(frozen=True)
class Language:
    """How one language's bench reads its oracle and ours."""

    suffix: str
    command: Sequence[str]
    theirs: Callable[[list[list[object]]], list[Definition]]
    imports: Callable[[str, str], Imports]
    doc_differs: DocDiffers


def doc_first(defs: list[list[object]]) -> list[Definition]:
    """An oracle's ``[qualname, kind, definition line, last line, doc comment's first line, doc]`` rows as
    definitions that start at the doc comment, as ours do."""
    return [(str(q), str(k), int(f), int(last), str(doc)) for q, k, _def, last, f, doc in defs]  # type: ignore[call-overload]


def our_imports(rel: str, text: str) -> Imports:
    """(module, line) of every import prooftext extracts from a file."""
    return [(i.module, i.line) for i in extract(rel, text).imports]


def cli(description: str, language: Language) -> int:
    """The command line of a bench that needs nothing but its trees: ``TREE [TREE ...] [--verbose]``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--verbose", action="store_true", help="print every difference")
    args = parser.parse_args()
    return print_table(args.trees, language, args.verbose)


def plain_doc_differs(_lines: list[str], want: Definition, got: Definition) -> bool:
    return want[4] != got[4]


def bounded_doc_differs(_lines: list[str], want: Definition, got: Definition) -> bool:
    """Doc comments differ, unless ours is the oracle's cut at prooftext's bound on a doc comment's length."""
    if len(want[4]) > MAX_DOCSTRING_CHARS:
        return not want[4].startswith(got[4])
    return want[4] != got[4]


def run_oracle(command: Sequence[str], files: list[Path]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for start in range(0, len(files), BATCH):
        batch = [str(path) for path in files[start : start + BATCH]]
        run = subprocess.run([*command, *batch], capture_output=True, check=True, text=True)
        out.extend(json.loads(line) for line in run.stdout.splitlines() if line.strip())
    return out


def our_definitions(rel: str, text: str) -> list[Definition]:
    graph = extract(rel, text)
    return [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line, n.docstring)
        for n in graph.nodes
        if n.kind == "symbol"
    ]


def pair(
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


def compare(rel: str, found: dict[str, object], text: str, language: Language, tally: Tally) -> None:
    tally.files += 1
    if found["error"]:
        tally.unparsed += 1
        tally.notes.append(f"{rel}: the oracle cannot parse it ({found['error']})")
        return
    theirs = language.theirs(found["defs"])  # type: ignore[arg-type]
    ours = our_definitions(rel, text)
    lines = text.split("\n")
    tally.oracle += len(theirs)
    tally.ours += len(ours)
    pairs, missed, extra = pair(theirs, ours)
    tally.missed += len(missed)
    tally.extra += len(extra)
    tally.notes += [f"{rel}: missed {d}" for d in missed] + [f"{rel}: extra {d}" for d in extra]
    for want, got in pairs:
        doc_differs = language.doc_differs(lines, want, got)
        if want[:4] == got[:4] and not doc_differs:
            tally.exact += 1
            continue
        tally.kind += want[1] != got[1]
        tally.range += want[2:4] != got[2:4]
        tally.doc += doc_differs
        tally.notes.append(f"{rel}: oracle {want!r}\n{' ' * len(rel)}    ours   {got!r}")
    want_imports = Counter((str(m), int(line)) for m, line in found["imports"])  # type: ignore[attr-defined]
    got_imports = Counter(language.imports(rel, text))
    tally.imports += sum(want_imports.values())
    tally.imports_missed += sum((want_imports - got_imports).values())
    tally.imports_extra += sum((got_imports - want_imports).values())
    tally.notes += [f"{rel}: import missed {i}" for i in want_imports - got_imports]
    tally.notes += [f"{rel}: import extra {i}" for i in got_imports - want_imports]


def measure(tree: Path, language: Language) -> Tally:
    files = sorted(p for p in tree.rglob(f"*{language.suffix}") if p.is_file() and ".git" not in p.parts)
    tally = Tally()
    for found in run_oracle(language.command, files):
        path = Path(str(found["path"]))
        text = path.read_bytes().decode("utf-8", "replace")
        compare(path.relative_to(tree).as_posix(), found, text, language, tally)
    return tally


def print_table(trees: list[Path], language: Language, verbose: bool) -> int:
    print(HEADER)
    for tree in trees:
        tally = measure(tree, language)
        print(tally.row(tree.name))
        if verbose and tally.notes:
            print("\n".join(tally.notes), file=sys.stderr)
    return 0
