"""Who-uses on Java against an independent oracle: the uses javac resolves to methods drawn at random.

For each tree, 400 Java methods and constructors (seed 27) are drawn from the index; ``bench/java_oracle/
JavaRefs.java`` attributes every ``.java`` file of the tree together with javac (the JDK alone on the class
path, so a call on a library's type resolves to nothing) and lists the calls, ``new`` expressions, method
references and explicit ``this(...)``/``super(...)`` calls that resolve to each declaration. Both sides are
reduced to callers, the innermost indexed node enclosing a use, as in ``bench/who_uses_bench.py``. javac
resolves a call by its static type: a call through an interface or a base class is a use of that
declaration only, so who-uses' report of an override's possible callers counts against it.

Usage: python bench/who_uses_java_bench.py TREE [TREE ...] [--n 400] [--seed 27] [--verbose]
Needs a JDK 17 or later (``java`` on PATH; the oracle runs from source, no build step).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from who_uses_bench import listed_arguments, listed_bench

ORACLE = Path(__file__).resolve().parent / "java_oracle" / "JavaRefs.java"


def main(argv: list[str] | None = None) -> int:
    args = listed_arguments(__doc__.splitlines()[0], argv, "TREE")
    if shutil.which("java") is None:
        print("who_uses_java_bench: needs a JDK 17 or later (`java` on PATH)", file=sys.stderr)
        return 2

    def oracle(tree: Path) -> list[dict[str, object]]:
        run = subprocess.run(["java", str(ORACLE), str(tree)], capture_output=True, check=True, text=True)
        return [json.loads(line) for line in run.stdout.splitlines() if line.strip()]

    listed_bench(args, oracle, "java", "javac")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
