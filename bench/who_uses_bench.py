"""Who-uses against an independent oracle: the callers jedi finds for functions drawn at random.

For each repository, 50 Python functions and methods (seed 27) are drawn from the index; for each, jedi's
``get_references`` (a reference finder that infers types, imports and fixtures) gives the oracle's
references, and prooftext's who-uses gives its dependents. Both sides are reduced to *callers*: the
innermost indexed node (function, method, class, or the file for module-level code) enclosing a reference,
the target itself excluded; a constructor's (``__init__``) callers include the calls of its class, which jedi
does not count as references of ``__init__``. Recall is the share of jedi's callers who-uses reports; the false-positive rate
is the share of reported callers jedi does not find (jedi misses some real ones: a receiver whose type it
cannot infer, a dynamic dispatch, most tests requesting a pytest fixture by a parameter, a call through an
alias import), printed for the resolved dependents and with the possible ones added. With ``--n`` above the
pool (every function), a fixture-heavy test suite makes the resolved false-positive rate mostly fixture
requests jedi does not report.

Usage: python bench/who_uses_bench.py [--flask DIR] [--requests DIR] [--tree NAME=DIR ...] [--n 50] [--seed 27]
       [--verbose]
A directory is copied to a temporary one first, so the index never lands in the source tree. Needs
``jedi`` (in the ``dev`` extra).
"""

from __future__ import annotations

import argparse
import bisect
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import prooftext
from prooftext.api.risk import FOUND_POSSIBLE, who_uses

MIRRORS = {
    "flask": Path("/work/.mirror/pallets+flask/repo"),
    "requests": Path("/work/.mirror/psf+requests/repo"),
}
DEFAULT_TREES = {"flask": Path("/tmp/flaskhead"), "requests": Path("/tmp/requestshead")}
KINDS = ("function", "method")
CONSTRUCTORS = ("__init__", "__new__")


@dataclass(frozen=True)
class Target:
    node_id: str
    path: str
    qualname: str
    name: str
    start_line: int
    end_line: int


@dataclass
class Tally:
    oracle: int = 0
    found_resolved: int = 0
    found_all: int = 0
    reported_resolved: int = 0
    reported_all: int = 0
    false_resolved: int = 0
    false_all: int = 0

    def count(self, oracle: set[Any], resolved: set[Any], every: set[Any]) -> None:
        """Add one target: the oracle's callers, and who-uses' resolved ones and all ones (possible too)."""
        self.oracle += len(oracle)
        self.found_resolved += len(oracle & resolved)
        self.found_all += len(oracle & every)
        self.reported_resolved += len(resolved)
        self.reported_all += len(every)
        self.false_resolved += len(resolved - oracle)
        self.false_all += len(every - oracle)


@contextmanager
def _copy(tree: Path) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="who-uses-") as tmp:
        root = Path(tmp) / tree.name
        shutil.copytree(tree, root, ignore=shutil.ignore_patterns(".git", ".prooftext", "__pycache__"))
        yield root


def ensure_tree(tree: Path, mirror: Path) -> Path:
    """``tree``, made from the head of the git directory ``mirror`` when it is not there yet."""
    if tree.is_dir():
        return tree
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", f"--git-dir={mirror}", "archive", "HEAD"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


class Enclosing:
    """The innermost indexed node around a line of a file (the file's node when no symbol encloses it)."""

    def __init__(self, conn: object) -> None:
        rows = conn.execute(  # type: ignore[attr-defined]
            "SELECT f.path, n.id, n.kind, n.start_line, n.end_line FROM nodes n JOIN files f ON f.id = n.file_id"
            " WHERE n.kind IN ('symbol', 'file')"
        ).fetchall()
        self.by_path: dict[str, list[tuple[int, int, str, str]]] = {}
        for path, node_id, kind, start, end in rows:
            self.by_path.setdefault(path, []).append((start, -end, node_id, kind))
        for spans in self.by_path.values():
            spans.sort()

    def __call__(self, path: str, line: int) -> str | None:
        spans = self.by_path.get(path, [])
        best: str | None = None
        best_size = None
        for start, neg_end, node_id, _kind in spans[: bisect.bisect_right(spans, (line, 1, "~", "~"))]:
            end = -neg_end
            if start <= line <= end and (best_size is None or end - start <= best_size):
                best, best_size = node_id, end - start
        return best


def _targets(conn: object, n: int, seed: int) -> list[Target]:
    rows = conn.execute(  # type: ignore[attr-defined]
        "SELECT n.id, f.path, n.qualname, n.name, n.start_line, n.end_line FROM nodes n"
        " JOIN files f ON f.id = n.file_id WHERE n.kind = 'symbol' AND n.symbol_kind IN (?, ?)"
        " AND f.language = 'python' ORDER BY f.path, n.start_line, n.qualname",
        KINDS,
    ).fetchall()
    pool = [Target(*row) for row in rows]
    return random.Random(seed).sample(pool, min(n, len(pool)))


def _position(
    lines: list[str], first: int, last: int, marker: str, upward: bool = False
) -> tuple[int, int] | None:
    """(line, column) of the name after ``marker`` (``def x``, ``class X``) between two lines: the first one,
    or the last one when ``upward`` (the class enclosing a method)."""
    numbers = range(first, min(last, len(lines)) + 1)
    for number in reversed(numbers) if upward else numbers:
        if marker in lines[number - 1]:
            return number, lines[number - 1].index(marker) + marker.index(" ") + 1
    return None


def _project(root: Path) -> Any:
    """A jedi project that reads the repository's own package first: a ``src`` layout's ``src`` goes before
    the environment's paths, so ``import requests`` is the checkout, not an installed copy of it."""
    import jedi

    environment = jedi.Project(str(root)).get_environment()
    first = [str(root / "src")] if (root / "src").is_dir() else []
    return jedi.Project(str(root), sys_path=[*first, str(root), *environment.get_sys_path()])


def _oracle(root: Path, target: Target, enclosing: Enclosing, project: object) -> set[str]:
    """The callers of ``target`` jedi finds; for a constructor (``__init__``, ``__new__``), also the calls of
    its class, since jedi does not count ``Point(0)`` as a reference of ``Point.__init__``."""
    import jedi

    path = root / target.path
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    where = _position(lines, target.start_line, target.end_line, f"def {target.name}")
    if where is None:
        return set()
    script = jedi.Script(text, path=str(path), project=project)
    callers = _callers(root, target, enclosing, script.get_references(*where), where[0], calls_only=False)
    owner = target.qualname.rsplit(".", 1)[0] if target.name in CONSTRUCTORS else ""
    cls = _position(lines, 1, target.start_line, f"class {owner.rsplit('.', 1)[-1]}", True) if owner else None
    if cls is not None:
        callers |= _callers(root, target, enclosing, script.get_references(*cls), cls[0], calls_only=True)
    return callers


def _callers(
    root: Path, target: Target, enclosing: Enclosing, refs: list[Any], own_line: int, calls_only: bool
) -> set[str]:
    """The innermost indexed nodes enclosing ``refs`` (only the calls, ``name(``, when ``calls_only``)."""
    callers: set[str] = set()
    for ref in refs:
        if ref.module_path is None or ref.line is None:
            continue
        try:
            rel = Path(ref.module_path).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue  # outside the repository (an installed package)
        if rel == target.path and ref.line == own_line:
            continue  # the definition itself
        if ref.is_definition() and ref.type in ("function", "class") and not _is_import(ref):
            continue  # another definition of the name (an overload, an override): not a caller
        if calls_only and not _is_call(root / rel, ref.line, ref.column, ref.name):
            continue
        caller = enclosing(rel, ref.line)
        if caller is not None and caller != target.node_id:
            callers.add(caller)
    return callers


def _is_import(ref: Any) -> bool:
    """Whether a reference is a name an import statement binds (``from .utils import x``): jedi counts it as a
    definition, but the importing file depends on the target (who-uses reports it as an ``import``)."""
    tree_name = getattr(getattr(ref, "_name", None), "tree_name", None)
    statement = tree_name.get_definition(import_name_always=True) if tree_name is not None else None
    return statement is not None and statement.type in ("import_from", "import_name")


def _is_call(path: Path, line: int, column: int, name: str) -> bool:
    text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    return text[column + len(name) :].lstrip().startswith("(")


def _bench(name: str, tree: Path, n: int, seed: int, verbose: bool) -> Tally:
    import jedi.inference.references as jedi_refs

    jedi_refs._PARSED_FILE_LIMIT = 10_000  # the oracle reads every file that spells the name
    tally = Tally()
    with _copy(tree) as root, prooftext.open(root) as index:
        index.refresh()
        enclosing = Enclosing(index.conn)
        project = _project(root)
        for target in _targets(index.conn, n, seed):
            oracle = _oracle(root, target, enclosing, project)
            score(index, target, oracle, tally, verbose)
    return tally


class Unread:
    """What an oracle did not read: whole files, and ranges of lines of others (a preprocessor branch the
    configuration it compiled skips). A caller there is judged on neither side."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.ranges: dict[str, list[tuple[int, int]]] = {}
        for entry in entries:
            first, last = entry.get("lines") or (1, sys.maxsize)
            self.ranges.setdefault(str(entry["unread"]), []).append((int(first), int(last)))

    def __contains__(self, place: tuple[str, int]) -> bool:
        path, line = place
        return any(first <= line <= last for first, last in self.ranges.get(path, ()))


def score(
    index: Any, target: Target, oracle: set[str], tally: Tally, verbose: bool, unread: Unread | None = None
) -> None:
    """Count who-uses' dependents of ``target`` against the oracle's callers, and with ``verbose`` print
    what differs; a dependent where the oracle did not read (``unread``: who-uses gives the line of its
    first reference there) is not judged, unless the oracle reads another of its lines."""
    skipped = unread or Unread([])
    found = [
        d
        for d in who_uses(index, target.node_id)
        if d["node_id"] in oracle or (d["path"], int(d["line"])) not in skipped
    ]
    resolved = {d["node_id"] for d in found if d["found_by"] != FOUND_POSSIBLE}
    every = {d["node_id"] for d in found}
    tally.count(oracle, resolved, every)
    if verbose and (oracle - resolved or every - oracle):
        names = {d["node_id"]: f"{d['path']}:{d['line']} {d['qualname']} ({d['found_by']})" for d in found}
        print(f"  {target.path}:{target.start_line} {target.qualname}")
        for missed in sorted(oracle - every):
            print(f"    missed {_describe(index.conn, missed)}")
        for weak in sorted((oracle & every) - resolved):
            print(f"    only possible {names[weak]}")
        for extra in sorted(every - oracle):
            print(f"    extra  {names[extra]}")


def listed_tally(
    tree: Path, listed: list[dict[str, Any]], language: str, sample: tuple[int, int], verbose: bool
) -> tuple[Tally, int]:
    """Who-uses against an oracle that lists each definition it resolves (``path``, ``name``, ``line``) with
    its uses (``refs``: ``path`` and ``line``), on ``sample`` = (n, seed) functions and methods of
    ``language`` drawn from the index of a copy of ``tree``; also how many drawn definitions the oracle does
    not list once (it did not read them, or two share the name and lines). An entry ``{"unread": path}``
    names a file the oracle could not read, ``"lines": [first, last]`` a part of it: callers there are
    judged on neither side (:class:`Unread`)."""
    unread = Unread([entry for entry in listed if "unread" in entry])
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for definition in listed:
        if "unread" not in definition:
            by_name.setdefault((definition["path"], definition["name"]), []).append(definition)
    tally, unmatched = Tally(), 0
    with _copy(tree) as root, prooftext.open(root) as index:
        index.refresh()
        enclosing = Enclosing(index.conn)
        rows = index.conn.execute(
            "SELECT n.id, f.path, n.qualname, n.name, n.start_line, n.end_line FROM nodes n"
            " JOIN files f ON f.id = n.file_id WHERE n.kind = 'symbol' AND n.symbol_kind IN ('function', 'method')"
            " AND f.language = ? ORDER BY f.path, n.start_line, n.qualname",
            (language,),
        ).fetchall()
        n, seed = sample
        for row in random.Random(seed).sample(rows, min(n, len(rows))):
            target = Target(*row)
            lines = range(target.start_line, target.end_line + 1)
            matches = [d for d in by_name.get((target.path, target.name), []) if int(d["line"]) in lines]
            if len(matches) != 1:
                unmatched += 1
                continue
            uses = [u for u in matches[0]["refs"] or [] if (u["path"], int(u["line"])) not in unread]
            oracle = {enclosing(u["path"], int(u["line"])) for u in uses} - {None, target.node_id}
            score(index, target, oracle, tally, verbose, unread)
    return tally, unmatched


def listed_arguments(
    description: str, argv: list[str] | None, trees: str, switches: dict[str, str] | None = None
) -> argparse.Namespace:
    """The arguments of a bench against a listing oracle: the trees, ``--n`` (400), ``--seed`` (27),
    ``--verbose`` and the bench's own ``switches`` (flag: help)."""
    parser = argparse.ArgumentParser(description=description)
    for flag, meaning in (switches or {}).items():
        parser.add_argument(flag, action="store_true", help=meaning)
    parser.add_argument("trees", type=Path, nargs="+", metavar=trees)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--verbose", action="store_true")
    return parser.parse_args(argv)


def listed_bench(
    args: argparse.Namespace, oracle: Callable[[Path], list[dict[str, Any]]], language: str, label: str
) -> None:
    """Run a listing oracle (``label`` names it) over each tree of ``args``, on the functions and methods
    of ``language``, and print a row per tree between its explanation."""
    print(f"who-uses against {label}: {args.n} {language} functions and methods per tree, seed {args.seed}")
    print(f"{'tree':<12} {'oracle':>6} {'recall':>7} {'+possible':>9} {'FP rate':>8} {'+possible':>9}")
    for tree in args.trees:
        tally, unmatched = listed_tally(tree, oracle(tree), language, (args.n, args.seed), args.verbose)
        print_row(tree.name, tally, unmatched)
    print(f"recall: the callers {label} resolves that who-uses reports (resolved; with possible ones added);")
    print(f"FP rate: reported callers {label} does not resolve (resolved; with possible ones added).")


def print_row(name: str, tally: Tally, unmatched: int = 0) -> None:
    """One tree's recall and false-positive rates, resolved and with the possible dependents added."""
    print(
        f"{name[:12]:<12} {tally.oracle:>6} {_share(tally.found_resolved, tally.oracle):>7}"
        f" {_share(tally.found_all, tally.oracle):>9} {_share(tally.false_resolved, tally.reported_resolved):>8}"
        f" {_share(tally.false_all, tally.reported_all):>9}"
        + (f"  ({unmatched} not listed by the oracle)" if unmatched else "")
    )


def _describe(conn: object, node_id: str) -> str:
    row = conn.execute(  # type: ignore[attr-defined]
        "SELECT f.path, n.start_line, n.qualname FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id = ?",
        (node_id,),
    ).fetchone()
    return f"{row[0]}:{row[1]} {row[2]}" if row else node_id


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "  n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flask", type=Path, default=DEFAULT_TREES["flask"])
    parser.add_argument("--requests", type=Path, default=DEFAULT_TREES["requests"])
    parser.add_argument("--tree", action="append", default=[], help="NAME=DIR: any other tree, instead")
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    print(f"who-uses against jedi callers: {args.n} functions and methods per repository, seed {args.seed}")
    print(f"{'repository':<10} {'jedi':>5} {'recall':>7} {'+possible':>9} {'FP rate':>8} {'+possible':>9}")
    trees = [(k, Path(v)) for k, _, v in (t.partition("=") for t in args.tree)]
    for name, tree in trees or [("flask", args.flask), ("requests", args.requests)]:
        made = ensure_tree(tree, MIRRORS[name]) if name in MIRRORS else tree
        tally = _bench(name, made, args.n, args.seed, args.verbose)
        print(
            f"{name:<10} {tally.oracle:>5} {_share(tally.found_resolved, tally.oracle):>7}"
            f" {_share(tally.found_all, tally.oracle):>9} {_share(tally.false_resolved, tally.reported_resolved):>8}"
            f" {_share(tally.false_all, tally.reported_all):>9}"
        )
    print("recall: jedi's callers that who-uses reports (resolved; with possible ones added);")
    print("FP rate: reported callers jedi does not find (resolved; with possible ones added).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
