"""The depth evaluation with the retrieval gate measured on SWE-bench issue titles.

Usage: python bench/depth_gates.py CLINC LOCOMO SWEBENCH REPO_MAP WORK_DIR OUT_DIR

``prooftext eval depth`` measures the tiers on CLINC150 and LoCoMo and the memory gate on LoCoMo; this runs
the same evaluation (``prooftext.eval.depth.run_depth``) with the SWE-bench titles and their repositories
as well, indexing each repository once under WORK_DIR, and writes the summary and report to OUT_DIR.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from prooftext.eval.common import RunOptions
from prooftext.eval.depth import DEFAULT_DEPTH_DECLARATION, gate_repositories, run_depth


def main(argv: list[str]) -> int:
    clinc, locomo, tasks, repo_map, work, out = (Path(a) for a in argv)
    repositories = gate_repositories(
        tasks, repo_map, work, lambda i, n: print(f"indexed {i}/{n}", flush=True)
    )
    summary = run_depth(
        clinc, locomo, DEFAULT_DEPTH_DECLARATION, RunOptions(out_dir=out), swebench=repositories
    )
    shown = {k: summary[k] for k in ("surface_targets", "gate_targets")}
    print(json.dumps(shown, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
