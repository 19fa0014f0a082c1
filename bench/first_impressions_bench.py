"""First-impressions benchmark: what a new user's fresh install weighs, and how fast its first commands answer.

Usage: python bench/first_impressions_bench.py [--tree PATH] [--repeat 7] [--query TEXT] [--json]

Everything is built in the same run, in a temporary directory:

* two fresh virtual environments: ``empty`` (``python -m venv`` alone: the baseline) and ``core`` (the
  project installed from this checkout with ``pip install ROOT``, no extras, as ``pip install prooftext``
  would); the install's size is the difference of their sizes on disk, and its package count the difference
  of ``pip list``;
* a copy of ``--tree`` (default: this repository's ``src`` and ``docs``, a tree about flask's size), indexed
  once with the core install's ``prooftext index``.

Printed: the install's size and packages; the median wall time of ``python -c pass`` (the baseline),
``prooftext --help``, and a warm one-shot ``prooftext pack`` (a new process each time, index fresh, page cache
warm), each with its ratio to the baseline; and whether ``prooftext eval`` on the core install stops with
``extra_missing``. Targets (issue): install at most 120 MB, ``--help`` at most 0.3 s, ``pack`` at most 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERY = "how does the adaptive ladder decide when to stop adding evidence"
MB = 1_000_000
TARGET_INSTALL_MB = 120
TARGET_HELP_S = 0.3
TARGET_PACK_S = 0.5
PACK_TOKENS = "4000"


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]


def _checked(argv: list[str]) -> str:
    done = _run(argv)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr[-2000:]}")
    return str(done.stdout)


def _size(folder: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(dirpath, name)
            if not path.is_symlink():
                total += path.stat().st_size
    return total


def _packages(venv: Path) -> int:
    listing = _checked([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"])
    return len(json.loads(listing))


def _venv(folder: Path, install: bool) -> Path:
    _checked([sys.executable, "-m", "venv", str(folder)])
    if install:
        _checked([str(folder / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT)])
    return folder


def _median_seconds(argv: list[str], repeat: int, cwd: Path | None = None) -> float:
    _run(argv, cwd=cwd)  # warm: the page cache and the interpreter's bytecode caches
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        done = _run(argv, cwd=cwd)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr[-2000:]}")
    return statistics.median(times)


def _copy_tree(source: Path | None, target: Path) -> Path:
    if source is not None:
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".prooftext", ".git", ".venv"))
        return target
    for part in ("src", "docs", "README.md"):
        path = ROOT / part
        if path.is_dir():
            shutil.copytree(path, target / part, ignore=shutil.ignore_patterns("__pycache__", ".prooftext"))
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / part)
    return target


def _tree_facts(tree: Path) -> dict[str, int]:
    files = [p for p in tree.rglob("*") if p.is_file() and ".prooftext" not in p.parts]
    return {"files": len(files), "bytes": sum(p.stat().st_size for p in files)}


def measure(tree_source: Path | None, repeat: int, query: str) -> dict[str, object]:
    if tree_source is not None and not tree_source.is_dir():
        raise SystemExit(f"--tree is not a folder: {tree_source}")
    if repeat < 1:
        raise SystemExit(f"--repeat must be at least 1, not {repeat}")
    with tempfile.TemporaryDirectory(prefix="prooftext-first-") as tmp:
        work = Path(tmp)
        empty = _venv(work / "empty", install=False)
        core = _venv(work / "core", install=True)
        python, prooftext = str(core / "bin" / "python"), str(core / "bin" / "prooftext")
        tree = _copy_tree(tree_source, work / "tree")
        _checked([prooftext, "index", str(tree)])
        clinc = work / "clinc.json"
        clinc.write_text(json.dumps({"test": [["thanks", "thank_you"]]}), encoding="utf-8")
        refused = _run([prooftext, "eval", "depth", "--clinc", str(clinc), "--json"])
        error = json.loads(refused.stdout or "{}").get("error", {})
        return {
            "install_bytes": _size(core) - _size(empty),
            "install_packages": _packages(core) - _packages(empty),
            "tree": _tree_facts(tree),
            "python_pass_s": _median_seconds([python, "-c", "pass"], repeat),
            "help_s": _median_seconds([prooftext, "--help"], repeat),
            "pack_s": _median_seconds(
                [prooftext, "pack", query, "--root", str(tree), "--max-tokens", PACK_TOKENS], repeat
            ),
            "eval_without_extra": {"status": refused.returncode, "code": error.get("code")},
        }


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(result: dict[str, object]) -> list[str]:
    base = float(result["python_pass_s"])  # type: ignore[arg-type]
    size_mb = int(result["install_bytes"]) / MB  # type: ignore[call-overload]
    help_s, pack_s = float(result["help_s"]), float(result["pack_s"])  # type: ignore[arg-type]
    tree = result["tree"]
    refused = result["eval_without_extra"]
    return [
        f"core install: {size_mb:.1f} MB, {result['install_packages']} packages beyond an empty venv "
        f"(target <= {TARGET_INSTALL_MB} MB): {_verdict(size_mb <= TARGET_INSTALL_MB)}",
        f"python -c pass: {base:.3f} s (baseline)",
        f"prooftext --help: {help_s:.3f} s, {help_s / base:.1f}x the baseline "
        f"(target <= {TARGET_HELP_S} s): {_verdict(help_s <= TARGET_HELP_S)}",
        f"warm one-shot pack ({tree['files']} files, {tree['bytes'] / MB:.1f} MB, --max-tokens {PACK_TOKENS}): "  # type: ignore[index]
        f"{pack_s:.3f} s, {pack_s / base:.1f}x the baseline (target <= {TARGET_PACK_S} s): "
        f"{_verdict(pack_s <= TARGET_PACK_S)}",
        f"prooftext eval without the eval extra: exit {refused['status']}, {refused['code']}",  # type: ignore[index]
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--tree", type=Path, default=None, help="tree to pack (default: this repository's src and docs)"
    )
    parser.add_argument(
        "--repeat", type=int, default=7, help="timed runs per command (the median is printed)"
    )
    parser.add_argument("--query", default=QUERY, help="the pack's query")
    parser.add_argument("--json", action="store_true", help="print the measurements as one JSON object")
    args = parser.parse_args()
    result = measure(args.tree, args.repeat, args.query)
    print(json.dumps(result, sort_keys=True) if args.json else "\n".join(report(result)))


if __name__ == "__main__":
    main()
