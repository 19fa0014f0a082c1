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

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from who_uses_bench import listed_arguments, listed_bench

ORACLE_SOURCE = Path(__file__).resolve().parent / "go_oracle"


def main(argv: list[str] | None = None) -> int:
    args = listed_arguments(__doc__.splitlines()[0], argv, "MODULE_DIR")
    if shutil.which("go") is None:
        print("who_uses_go_bench: needs a Go toolchain (`go` on PATH) to build its oracle", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="go-oracle-") as tmp:
        binary = Path(tmp) / "go_oracle"
        subprocess.run(["go", "build", "-o", str(binary), "."], cwd=ORACLE_SOURCE, check=True)

        def oracle(tree: Path) -> list[dict[str, object]]:
            run = subprocess.run([str(binary), str(tree)], capture_output=True, check=True)
            return list(json.loads(run.stdout))

        listed_bench(args, oracle, "go", "go/types")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
