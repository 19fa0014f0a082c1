"""Who-uses on Go against an independent oracle: the uses go/types resolves to functions drawn at random.

For each Go module, 400 functions and methods (seed 27) are drawn from the index; ``bench/go_oracle`` (a
small Go program over ``go/parser`` and ``go/types``, type-checking every package of the module with the
module's own packages importable and every other import left unresolved) lists the positions of each one's
uses. Both sides are reduced to callers, the innermost indexed node enclosing a use, as in
``bench/who_uses_bench.py``. The oracle sees one declaration of a name that build tags declare twice
(``binding.go`` and ``binding_nomsgpack.go``), so who-uses' uses of the other count as false positives, and
a call through an interface is the interface method's only.

Usage: python bench/who_uses_go_bench.py MODULE_DIR [MODULE_DIR ...] [--n 400] [--seed 27] [--verbose]
Needs a Go toolchain (``go`` on PATH, 1.19 or later) to build the oracle.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from who_uses_bench import Enclosing, Tally, _copy, _describe, _share

import prooftext
from prooftext.api.risk import FOUND_POSSIBLE, who_uses

ORACLE_SOURCE = Path(__file__).resolve().parent / "go_oracle"


def _oracle(tree: Path, binary: Path) -> dict[tuple[str, str], list[dict[str, object]]]:
    listed = json.loads(subprocess.run([str(binary), str(tree)], capture_output=True, check=True).stdout)
    by_name: dict[tuple[str, str], list[dict[str, object]]] = {}
    for definition in listed:
        by_name.setdefault((definition["path"], definition["name"]), []).append(definition)
    return by_name


def _bench(tree: Path, binary: Path, n: int, seed: int, verbose: bool) -> tuple[Tally, int]:
    oracle = _oracle(tree, binary)
    tally, unmatched = Tally(), 0
    with _copy(tree) as root, prooftext.open(root) as index:
        index.refresh()
        enclosing = Enclosing(index.conn)
        rows = index.conn.execute(
            "SELECT n.id, f.path, n.qualname, n.name, n.start_line, n.end_line FROM nodes n"
            " JOIN files f ON f.id = n.file_id WHERE n.kind = 'symbol' AND n.symbol_kind IN ('function', 'method')"
            " AND f.language = 'go' ORDER BY f.path, n.start_line, n.qualname"
        ).fetchall()
        for node_id, path, qualname, name, start, end in random.Random(seed).sample(rows, min(n, len(rows))):
            matches = [d for d in oracle.get((path, name), []) if start <= int(str(d["line"])) <= end]
            if len(matches) != 1:
                unmatched += 1  # the oracle did not type-check the definition
                continue
            uses = matches[0]["refs"] or []
            want = {enclosing(u["path"], u["line"]) for u in uses} - {None, node_id}  # type: ignore[union-attr]
            found = who_uses(index, node_id)
            resolved = {d["node_id"] for d in found if d["found_by"] != FOUND_POSSIBLE}
            every = {d["node_id"] for d in found}
            tally.count(want, resolved, every)
            if verbose and (want - resolved or resolved - want):
                print(f"  {path}:{start} {qualname}")
                for missed in sorted(want - resolved):  # type: ignore[type-var]
                    print(
                        f"    {'possible' if missed in every else 'missed  '} {_describe(index.conn, missed)}"
                    )
                for extra in sorted(resolved - want):
                    print(f"    extra    {_describe(index.conn, extra)}")
    return tally, unmatched


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", type=Path, nargs="+")
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("go") is None:
        print("who_uses_go_bench: needs a Go toolchain (`go` on PATH) to build its oracle", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="go-oracle-") as tmp:
        binary = Path(tmp) / "go_oracle"
        subprocess.run(["go", "build", "-o", str(binary), "."], cwd=ORACLE_SOURCE, check=True)
        print(f"who-uses against go/types: {args.n} Go functions and methods per module, seed {args.seed}")
        print(f"{'module':<12} {'oracle':>6} {'recall':>7} {'+possible':>9} {'FP rate':>8} {'+possible':>9}")
        for tree in args.modules:
            tally, unmatched = _bench(tree, binary, args.n, args.seed, args.verbose)
            print(
                f"{tree.name[:12]:<12} {tally.oracle:>6} {_share(tally.found_resolved, tally.oracle):>7}"
                f" {_share(tally.found_all, tally.oracle):>9} {_share(tally.false_resolved, tally.reported_resolved):>8}"
                f" {_share(tally.false_all, tally.reported_all):>9}"
                + (f"  ({unmatched} not type-checked)" if unmatched else "")
            )
    print("recall: go/types' callers that who-uses reports (resolved; with possible ones added);")
    print("FP rate: reported callers go/types does not resolve (resolved; with possible ones added).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
