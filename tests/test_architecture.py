"""The house keeps its shape: imports point down the layers ARCHITECTURE.md draws, no module or package
imports itself back through a cycle, and the adapters use only the public door.

Every import counts: module level, function-local and ``TYPE_CHECKING`` alike.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import prooftext

SRC = Path(prooftext.__file__).resolve().parent
PACKAGE = SRC.name

FOUNDATION = (
    "_version",
    "errors",
    "canonical",
    "text",
    "tokens",
    "sqlite",
    "cache",
    "schema_registry",
    "workers",
)
"""Foundation modules, in order: each may import only the ones before it."""

CORE = ("corpus", "graph", "store", "select", "pack", "adaptive", "artifacts", "index")
CONVERSATION = ("depth", "memory", "llm", "conversation")
ALLOWED: dict[str, frozenset[str]] = {
    "corpus": frozenset(),
    "graph": frozenset({"corpus"}),
    "store": frozenset({"corpus", "graph"}),
    "select": frozenset({"corpus", "graph", "store"}),
    "pack": frozenset({"corpus", "graph", "store", "select"}),
    "adaptive": frozenset({"corpus", "store", "select", "pack"}),
    "artifacts": frozenset({"corpus", "graph", "store", "select"}),
    "index": frozenset({"corpus", "graph", "store", "select", "pack", "adaptive"}),
    "depth": frozenset(),
    "memory": frozenset({"corpus", "conversation"}),
    "llm": frozenset(),
    "conversation": frozenset({"corpus", "depth", "llm"}),
    "api": frozenset(CORE + CONVERSATION),
    "eval": frozenset(CORE + CONVERSATION + ("api",)),
}
"""Which packages each package may import besides the foundation and itself (ARCHITECTURE.md's table)."""

ADAPTERS = ("cli", "server")
DOOR = frozenset({"", "errors"})
"""What an adapter may import of prooftext: the package itself (its door) and the exception tree."""


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module of ``name`` relative to the package ('' for the package itself), or None if outside."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    rest = name[len(PACKAGE) + 1 :]
    while rest and rest not in MODULES:
        rest = rest.rpartition(".")[0]
    return rest


def _targets(module: str, node: ast.AST) -> Iterable[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            here = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
            here = here[: len(here) - node.level + 1] if node.level > 1 else here
            base = ".".join([PACKAGE, *[p for p in here if p], *([base] if base else [])])
        yield base
        yield from (f"{base}.{alias.name}" for alias in node.names)


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _targets(module, node):
                resolved = _resolve(target)
                if resolved is not None and resolved != module:
                    edges[module].add(resolved)
    return edges


EDGES = _edges()


def _top(module: str) -> str:
    return module.split(".")[0]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    nodes = sorted(set(graph) | {t for ts in graph.values() for t in ts})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_module_imports_itself_back_through_a_cycle() -> None:
    assert _cycles(EDGES) == []


def test_no_package_imports_itself_back_through_a_cycle() -> None:
    packages: dict[str, set[str]] = defaultdict(set)
    for module, targets in EDGES.items():
        for target in targets:
            if target and _top(target) != _top(module):
                packages[_top(module)].add(_top(target))
    assert _cycles(packages) == []


def test_foundation_modules_import_only_earlier_foundation_modules() -> None:
    wrong = [
        f"{module} -> {target}"
        for module in FOUNDATION
        for target in EDGES.get(module, ())
        if _top(target) not in FOUNDATION[: FOUNDATION.index(module)]
    ]
    assert wrong == []


def test_every_package_imports_only_what_its_row_allows() -> None:
    wrong = []
    for module, targets in EDGES.items():
        top = _top(module)
        if top not in ALLOWED:
            continue
        for target in targets:
            other = _top(target)
            if other != top and other not in FOUNDATION and other not in ALLOWED[top]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_adapters_import_only_the_door_the_errors_and_themselves() -> None:
    wrong = [
        f"{module} -> {target or PACKAGE}"
        for module, targets in EDGES.items()
        if _top(module) in ADAPTERS
        for target in targets
        if target not in DOOR and _top(target) not in ADAPTERS and target != "_version"
    ]
    assert wrong == []


def test_every_top_level_name_has_a_place_in_the_layers() -> None:
    known = set(FOUNDATION) | set(ALLOWED) | set(ADAPTERS) | {"", "__main__"}
    assert sorted({_top(m) for m in MODULES} - known) == []


def test_the_internal_modules_never_import_the_door() -> None:
    """A module inside the package that imports ``prooftext`` itself closes a cycle through the door."""
    wrong = [
        module
        for module, targets in EDGES.items()
        if "" in targets and _top(module) not in ADAPTERS and module not in ("", "__main__")
    ]
    assert wrong == []


MAX_FUNCTION_LINES = 60
MAX_PARAMETERS = 10
"""Outside the CLI's command functions, whose parameters are their options."""


def _functions() -> Iterable[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield where, node


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    names = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    count = len(names) + (args.vararg is not None) + (args.kwarg is not None)
    return count - (bool(names) and names[0].arg in ("self", "cls"))


def test_no_function_is_longer_than_sixty_lines() -> None:
    long = [
        f"{where}:{node.lineno} {node.name}"
        for where, node in _functions()
        if (node.end_lineno or node.lineno) - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_no_function_outside_the_cli_takes_more_than_ten_parameters() -> None:
    wide = [
        f"{where}:{node.lineno} {node.name}"
        for where, node in _functions()
        if not where.startswith("cli/") and _parameters(node) > MAX_PARAMETERS
    ]
    assert wide == []
