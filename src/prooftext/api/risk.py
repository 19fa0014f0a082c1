"""Risk of changing (ADR-0025's pre-edit question): what depends on these paths or symbols, and which
decisions, constraints and documentation cover them."""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import prooftext.graph.languages as L
from prooftext.api.who_uses_c import is_c_family_file, is_c_function
from prooftext.api.who_uses_cpp import CppWhoUses, is_cpp_target
from prooftext.api.who_uses_go import GoWhoUses
from prooftext.api.who_uses_java import JavaWhoUses
from prooftext.api.who_uses_js import (
    JS_SCRIPTS,
    JsWhoUses,
    object_literal_name,
)
from prooftext.api.who_uses_model import (
    CLASS_KINDS,
    FOUND_CALL,
    FOUND_IMPORT,
    FOUND_MENTION,
    FOUND_POSSIBLE,
    FOUND_REFERENCE,
    SELF_NAMES,
    UNKNOWN,
    Found,
    Node,
    Sym,
    Target,
    node_list,
    nodes_by_id,
)
from prooftext.api.who_uses_php import PhpWhoUses
from prooftext.api.who_uses_python import (
    FIXTURE,
    FIXTURE_NAME,
    TEST_MODULE,
    USEFIXTURES_WORD,
    marked_fixtures,
    parameters,
)
from prooftext.api.who_uses_python_names import RESULT_HOPS, PythonNames
from prooftext.corpus.lines import require_utf8
from prooftext.corpus.model import REMEDIES
from prooftext.corpus.safeio import Refusal, display_name, split_portable
from prooftext.errors import PathOutsideRootError, RangeError, RequestError, whole_number
from prooftext.graph.model import (
    HOW_CALL,
    HOW_FROM,
    HOW_IMPORT,
    HOW_READ,
    NODE_FILE,
    NODE_SYMBOL,
    Reference,
    parse_reference,
)
from prooftext.index import Index, check_flag, require_index
from prooftext.memory.store import MemoryRecord, MemoryStore
from prooftext.select.query import redacted_all
from prooftext.store.db import store_errors
from prooftext.store.queries import exclusion_of
from prooftext.store.risk_queries import (
    code_files_spelling,
    file_and_symbol_nodes,
    files_under,
    importers,
    is_indexed_file,
    module_importers,
    receiver_uses,
    sections_mentioning,
    symbols_named,
    symbols_of_files_holding,
    symbols_spelling,
)

RISK_DEFAULT_DEPTH = 1
RISK_DEFAULT_LIMIT = 100
RISK_MAX_DEPTH = 3
RISK_MAX_LIMIT = 1000
RISK_MAX_TARGETS = 64
"""The ranges of ``depth``, ``limit`` and the number of targets, as the JSON-RPC schema states them, for
every door."""
MAX_DIRECTORY_FILES = 500
"""A directory target covers at most this many indexed files (the rest are reported as truncated)."""
MAX_DOC_HITS = 20
"""Documentation sections mentioning a target: at most this many."""
MAX_TARGET_CHARS = 4096
"""A risk target is at most this long (Linux's ``PATH_MAX``): no indexed path or name is longer, and a longer
pattern would pass SQLite's limit on LIKE patterns."""
_DOTTED = re.compile(r"\w+(?:\.\w+)*")
"""A Python module's dotted name (``flask.helpers``): a target that names no definition may name a module."""
MIN_BASENAME_CHARS = 4
"""A path's file name is matched in memory text only when it is at least this long (``a.py`` is noise)."""


def _is_path_like(ref: str) -> bool:
    return "/" in ref or "\\" in ref or ref.startswith(".") or "\x00" in ref


def _checked_path(ref: str) -> str:
    try:
        split_portable(ref)
    except Refusal as refusal:
        raise PathOutsideRootError(
            f"target {display_name(ref)!r} is not a path under the root: {refusal.detail}",
            field="targets",
            path=display_name(ref),
        ) from None
    return ref


def _path_targets(conn: sqlite3.Connection, path: str) -> tuple[str, list[Node], bool]:
    """(kind, nodes, truncated): a file's own node and its symbols, or every file under a directory."""
    found = node_list(file_and_symbol_nodes(conn, path))
    if found:
        return "path", found, False
    files = files_under(conn, path.rstrip("/"), MAX_DIRECTORY_FILES + 1)
    truncated = len(files) > MAX_DIRECTORY_FILES
    nodes: list[Node] = []
    for file_path in files[:MAX_DIRECTORY_FILES]:
        nodes.extend(node_list(file_and_symbol_nodes(conn, file_path)))
    return ("directory" if files else "path"), nodes, truncated


def _unresolved_path_note(conn: sqlite3.Connection, ref: str) -> str:
    """Why a path target matched nothing: the exclusion that left it out of the index, or none."""
    left_out = exclusion_of(conn, ref.rstrip("/"))
    if left_out is None:
        return f"{ref}: names no indexed file or directory"
    return f"{ref}: left out of the index ({left_out.reason}): {REMEDIES.get(left_out.reason, '')}"


def _resolve_target(who: _WhoUses, ref: str) -> tuple[str, list[Node], bool]:
    conn = who.conn
    if not isinstance(ref, str) or not ref.strip():
        raise RequestError("every target must be a non-empty string", field="targets")
    if len(ref) > MAX_TARGET_CHARS:
        raise RangeError(f"a target is at most {MAX_TARGET_CHARS} characters", field="targets")
    if _is_path_like(ref):
        return _path_targets(conn, _checked_path(ref.rstrip("/") or ref))
    if is_indexed_file(conn, ref):
        return _path_targets(conn, ref)
    symbols = node_list(symbols_named(conn, ref)) or _module_symbols(conn, ref) or _reached_symbols(who, ref)
    if symbols:
        return "symbol", symbols, False
    kind, nodes, truncated = _path_targets(conn, ref)  # a top-level directory named without a slash
    if nodes:
        return kind, nodes, truncated
    module = who.paths.resolve_import("", ref, L.PYTHON) if _DOTTED.fullmatch(ref) else None
    return _path_targets(conn, module) if module is not None else ("symbol", [], False)


def _reached_symbols(who: _WhoUses, ref: str) -> list[Node]:
    """The definitions a dotted name reaches that are not spelled so where they are defined: a name a
    package re-exports (``flask.url_for``, defined in ``flask/helpers.py``) or a member a class inherits
    (``Flask.route``, defined on ``Scaffold``)."""
    parts = ref.split(".")
    if len(parts) < 2 or not all(parts):
        return []
    found: set[str] = set()
    for cut in range(len(parts) - 1, 0, -1):
        module = who.paths.resolve_import("", ".".join(parts[:cut]), L.PYTHON)
        if module is not None:
            found = {value for kind, value in who.resolve(module, parts[cut:]) if kind == "node"}
            if found:
                break
    if not found:
        found = {n.node_id for n in [*_assigned_as(who, ref), *_object_methods(who, ref)]}
    if not found:
        for owner in node_list(symbols_named(who.conn, ".".join(parts[:-1]))):
            owner_sym = who.sym(owner.node_id)
            if owner_sym is not None and owner_sym.language == L.GO:
                found.update(_go_promoted_ids(who, owner_sym, parts[-1]))
                continue
            member = (
                who.lookup(owner.node_id, parts[-1])
                if owner_sym and owner_sym.symbol_kind in CLASS_KINDS
                else None
            )
            if member is not None:
                found.add(member)
    return nodes_by_id(who.conn, sorted(found))


def _go_promoted_ids(who: _WhoUses, owner: Sym, name: str) -> set[str]:
    """The node ids of the definitions ``name`` finds on the Go type ``owner`` through the types it embeds
    (``Engine.GET`` is ``RouterGroup.GET``), in its package."""
    directory = posixpath.dirname(owner.path)
    return {
        n.node_id
        for qualname in who.go.promoted(owner.qualname, name, directory)
        for n in node_list(symbols_named(who.conn, qualname))
        if posixpath.dirname(n.path) == directory
    }


def _object_methods(who: _WhoUses, ref: str) -> list[Node]:
    """JavaScript methods of the object literal ``ref`` names (``handlers.onClick``): indexed by their own
    name."""
    owner, _, name = ref.rpartition(".")
    found = []
    for node in node_list(symbols_named(who.conn, name)):
        sym = who.sym(node.node_id)
        scripted = sym is not None and sym.language in JS_SCRIPTS and node.name == name
        if scripted and object_literal_name(who.lines(node.path), node.start_line) == owner:
            found.append(node)
    return found


def _assigned_as(who: _WhoUses, ref: str) -> list[Node]:
    """Definitions outside Python whose statement assigns them to ``ref`` (JavaScript ``res.send = function
    send()``, ``res.contentType = res.type = function contentType()``): indexed by their own name."""
    assigned = re.compile(rf"(?:^|=)\s*{re.escape(ref)}\s*=(?!=)")
    found = []
    for node in node_list(symbols_spelling(who.conn, ref)):
        sym = who.sym(node.node_id)
        if sym is not None and sym.language != L.PYTHON and assigned.search(sym.signature):
            found.append(node)
    return found


def _module_parts(path: str) -> list[str]:
    """A source file's dotted module path as parts: ``pkg/helpers.py`` is ``pkg.helpers``, a package's
    ``__init__`` the package."""
    parts = path.rsplit(".", 1)[0].split("/") if "." in path.rsplit("/", 1)[-1] else path.split("/")
    return parts[:-1] if parts[-1] == "__init__" else parts


def _module_symbols(conn: sqlite3.Connection, ref: str) -> list[Node]:
    """The definitions ``ref`` names as ``module.qualname`` (``helpers.url_for``, ``pkg.helpers.Flask.run``):
    symbols named as its last part whose qualified name ends ``ref`` after a module, in a file whose module
    path ends with that module (one indexed look-up, however many dots ``ref`` has)."""
    found: list[Node] = []
    for node in node_list(symbols_named(conn, ref.rsplit(".", 1)[-1])):
        module = ref.removesuffix("." + node.qualname)
        parts = module.split(".")
        if module != ref and _module_parts(node.path)[-len(parts) :] == parts:
            found.append(node)
    return found


"""How a dependent was found: a resolved call, another resolved reference in code (a value passed on, a
type, a base class), an import of the target, a reference whose receiver cannot be tied to a definition
(``x.push()`` with ``x`` of unknown type: reported, never dropped), and, for documentation, a mention."""

_CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor", "__construct"})
"""Methods that constructing their class runs: a call of the class depends on them."""
_DISTINCTIVE = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]")
"""A name that is no plain word (an inner ``_``, a case change, a digit): matched in documentation alone."""


class _WhoUses(JsWhoUses, GoWhoUses, JavaWhoUses, CppWhoUses, PhpWhoUses, PythonNames):
    """Resolves spelled references (see :class:`~prooftext.graph.model.Reference`) to the definitions they
    name, through the file's imports, the enclosing class and its bases in the repository: Python here, and
    JavaScript, Go, Java, C, C++ and PHP through their classifiers. Read lazily from the store and cached for one request."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._fixtures: dict[str, list[Node]] = {}

    # --- classification -------------------------------------------------------------------------------

    def classify(self, target: Sym, ref: Reference, path: str, owner_id: str, line: int = 0) -> str | None:
        """How a reference in ``path`` inside ``owner_id`` (at ``line``, when known) depends on ``target``,
        or None when it names something else."""
        exact = FOUND_CALL if ref.how == HOW_CALL else FOUND_REFERENCE
        want: Target = ("node", target.node_id)
        python = path.endswith((".py", ".pyi"))
        if ref.how == HOW_FROM:
            return FOUND_IMPORT if want in self.bound(path, ref, 0) else None
        if ref.how == HOW_IMPORT:
            return None
        if target.language == L.GO and path.endswith(".go"):
            return self._classify_go(target, ref, path, (owner_id, line), exact)
        if target.language == L.JAVA and path.endswith(".java") and target.symbol_kind == "method":
            return self._classify_java(target, ref, path, owner_id, exact)
        if target.language == L.PHP and path.endswith(".php"):
            return self._classify_php(target, ref, path, owner_id, exact)
        if is_cpp_target(target) and is_c_family_file(path):
            return self._classify_cpp(target, ref, (path, owner_id, line), exact)
        if is_c_function(target) and is_c_family_file(path) and not ref.receiver:
            return self._classify_c(target, ref, path, owner_id, exact)
        if not python:
            return self._classify_other(target, ref, path, owner_id, exact)
        if not ref.receiver:
            if self.shadowed(ref.name, owner_id, target.parent_id):
                return None  # a parameter or local variable of that name
            members = self.class_body_members(owner_id, ref.name)
            if members:
                return exact if target.node_id in members else None
            if self.encloses(target.parent_id, owner_id):
                return exact  # a nested function named in its enclosing function (or deeper)
            found = self.resolve(path, [ref.name])
            if want in found:
                return exact
            return FOUND_POSSIBLE if UNKNOWN in found and self.bindings(path)[1] else None
        parts = ref.receiver.split(".")
        if parts[0] in SELF_NAMES or parts[0] == "super()":
            return self._classify_self(target, ref, owner_id, parts, exact)
        found = self.resolve(path, [*parts, ref.name])
        if want in found:
            return exact
        if found and found != {UNKNOWN}:
            return FOUND_POSSIBLE if UNKNOWN in found else None
        stated = self._receiver_class(owner_id, path, parts)
        if stated is not None:  # `s = requests.Session(); s.get()`: the class the code states for it
            return self._dispatch(target, stated, self.lookup(stated, ref.name), exact)
        if self.defs(path).get(parts[0]) or parts[0] in self.bindings(path)[0]:
            return FOUND_POSSIBLE if UNKNOWN in found else None
        return FOUND_POSSIBLE  # a local or an expression: its type is not known here

    def _classify_self(
        self, target: Sym, ref: Reference, owner_id: str, parts: list[str], exact: str
    ) -> str | None:
        cls = self.enclosing_class(owner_id)
        if cls is not None and len(parts) > 1:
            stated = self._receiver_class(owner_id, cls.path, parts)
            if stated is not None:  # `self.session.get()`: the class the attribute is bound to
                return self._dispatch(target, stated, self.lookup(stated, ref.name), exact)
        if cls is None or len(parts) > 1:
            return FOUND_POSSIBLE  # `self.app.x()`: the attribute's type is not known here
        return self._dispatch(
            target, cls.node_id, self.lookup(cls.node_id, ref.name, parts[0] == "super()"), exact
        )

    def _dispatch(self, target: Sym, class_id: str, member: str | None, exact: str) -> str | None:
        """How a member looked up on the class ``class_id`` (``member``, the definition found) depends on
        ``target``: exact when it is the target; possible when the target is defined in a subclass of that
        class (an instance of the subclass dispatches to it); else something else. The member's overloads
        (``@overload`` stubs, a property's setter: definitions of its name in its class) are the member."""
        found = self.sym(member) if member is not None else None
        if found is not None and target.node_id in self.children(found.parent_id or "").get(found.name, []):
            return exact
        owner_class = self.enclosing_class(target.node_id) if target.parent_id else None
        return (
            FOUND_POSSIBLE
            if owner_class is not None and class_id in self.mro(owner_class.node_id)[0]
            else None
        )

    def constructions(self, target: Sym) -> list[Found]:
        """For a constructor (``__init__``, ``constructor``), the calls of its class: each one runs it."""
        cls = self.sym(target.parent_id) if target.name in _CONSTRUCTORS and target.parent_id else None
        if cls is None or cls.symbol_kind not in CLASS_KINDS:
            return []
        return [
            found
            for found in self.dependents(cls)
            if (ref := parse_reference(found.spelled)) is not None and ref.how == HOW_CALL
        ]

    def fixture_name(self, found: Sym) -> str | None:
        """The name a pytest fixture is requested by (its own, or the decorator's ``name=``), None when a
        Python function is no fixture (no decorator line above its ``def`` says so)."""
        node = self.node(found) if found.language == L.PYTHON else None
        if node is None or found.symbol_kind in CLASS_KINDS:
            return None
        for line in self.lines(found.path)[node.start_line - 1 : node.end_line]:
            if line.lstrip().startswith(("def ", "async def ")):
                return None
            if FIXTURE.match(line):
                renamed = FIXTURE_NAME.search(line)
                return renamed.group(1) if renamed else found.name
        return None

    @staticmethod
    def nearest_fixture(fixtures: Sequence[Node], user: Node) -> tuple[int, str] | None:
        """Which of ``fixtures`` (of one name) a test or fixture gets, with its rank: one in its own class,
        else one at the top of its file, else the one in the nearest ``conftest.py`` above it, else a
        plugin's (negative: whether the plugin is loaded is not known here). A fixture requesting its own
        name gets the one it overrides."""
        best: tuple[int, str] | None = None
        directory = posixpath.dirname(user.path)
        for node in fixtures:
            home = posixpath.dirname(node.path)
            owner = node.qualname.rpartition(".")[0]
            if node.node_id == user.node_id or (owner and not user.qualname.startswith(owner + ".")):
                continue
            if node.path == user.path:
                rank = 1 << (17 if owner else 16)
            elif posixpath.basename(node.path) == "conftest.py":
                if home and directory != home and not directory.startswith(home + "/"):
                    continue  # another directory's
                rank = home.count("/") + bool(home)
            elif not TEST_MODULE.match(posixpath.basename(node.path)):
                rank = -1  # a plugin's (``pytest_plugins``, an entry point): any test may get it
            else:
                continue
            if best is None or rank > best[0]:
                best = (rank, node.node_id)
        return best

    def parameter_class(self, owner_id: str, name: str) -> str | None:
        """A test's or fixture's parameter that pytest fills from the fixture of its name: the class that
        fixture returns or yields (:meth:`result_class`), for the fixture the test gets
        (:meth:`nearest_fixture`)."""
        owner = self.sym(owner_id)
        if owner is None or owner.language != L.PYTHON or name not in parameters(owner.signature):
            return None
        if not self.test_or_fixture(owner):
            return None
        fixtures = self.fixtures_named(name)
        users = nodes_by_id(self.conn, [owner_id])
        nearest = self.nearest_fixture(fixtures, users[0]) if users and fixtures else None
        fixture = self.sym(nearest[1]) if nearest is not None and nearest[0] >= 0 else None
        return self.result_class(fixture, RESULT_HOPS, yields=True) if fixture is not None else None

    def fixture_users(self, target: Sym) -> list[Found]:
        """For a pytest fixture, the tests and fixtures that request it by a parameter of its name, in its
        own file or under its ``conftest.py``'s directory, unless a nearer fixture of that name overrides it."""
        name = self.fixture_name(target)
        if name is None:
            return []
        fixtures = self.fixtures_named(name, nodes_by_id(self.conn, [target.node_id]))
        found: list[Found] = []
        spelling = node_list(symbols_spelling(self.conn, name))
        marking = node_list(symbols_of_files_holding(self.conn, USEFIXTURES_WORD))
        marked = {n.node_id for n in marking}
        for node in {n.node_id: n for n in spelling + marking}.values():
            user = self.sym(node.node_id)
            if user is None or user.language != L.PYTHON:
                continue
            if not self.requests_fixture(user, node, name, node.node_id in marked):
                continue
            nearest = self.nearest_fixture(fixtures, node)
            if nearest is not None and nearest[1] == target.node_id:
                how = FOUND_REFERENCE if nearest[0] >= 0 else FOUND_POSSIBLE
                found.append(Found(node, how, self.def_line(node), ""))
        return found

    def receiver_reads(self, target: Sym) -> list[Found]:
        """For a Python definition that is no method, the code reading it as the head of a receiver
        (``run_command.make_context()``, ``@subgroup.command()``) where that name resolves to it."""
        if target.language != L.PYTHON or target.symbol_kind == "method":
            return []
        read = Reference(target.name, HOW_READ)
        found: list[Found] = []
        for owner_id, spelled, line, path in receiver_uses(self.conn, target.name):
            ref = parse_reference(spelled)
            if ref is None or ref.how in (HOW_FROM, HOW_IMPORT) or ref.receiver.split(".")[0] != target.name:
                continue
            how = self.classify(target, read, path, owner_id) if path.endswith((".py", ".pyi")) else None
            if how == FOUND_REFERENCE:
                found.extend(Found(n, how, line, "") for n in nodes_by_id(self.conn, [owner_id]))
        return found

    def requests_fixture(self, user: Sym, node: Node, name: str, marked: bool) -> bool:
        """Whether ``user`` requests the fixture ``name``: a test or fixture by a parameter of its name, or
        a test or class of tests by a ``@pytest.mark.usefixtures("name")`` mark (in a file that spells one:
        ``marked``)."""
        if marked and name in marked_fixtures(self.head(node)):
            return True
        return name in parameters(user.signature) and self.test_or_fixture(user)

    def test_or_fixture(self, found: Sym) -> bool:
        """Whether pytest fills the parameters of a Python function: a test, or a fixture."""
        return found.name.startswith("test") or self.fixture_name(found) is not None

    def fixtures_named(self, name: str, extra: Sequence[Node] = ()) -> list[Node]:
        """The pytest fixtures requested by ``name``, among the symbols of that name (read once per request)
        and ``extra``."""
        if name not in self._fixtures:
            self._fixtures[name] = node_list(symbols_named(self.conn, name))
        return [
            node
            for node in [*self._fixtures[name], *extra]
            if (found := self.sym(node.node_id)) is not None and self.fixture_name(found) == name
        ]

    def head(self, node: Node) -> str:
        """A definition's lines down to its ``def`` or ``class`` line: its decorators and that line."""
        head: list[str] = []
        for line in self.lines(node.path)[node.start_line - 1 : node.end_line]:
            head.append(line)
            if line.lstrip().startswith(("def ", "async def ", "class ")):
                break
        return "\n".join(head)

    def def_line(self, node: Node) -> int:
        """The line of a function's ``def`` (after its decorators)."""
        lines = self.lines(node.path)
        for number in range(node.start_line, node.end_line + 1):
            if number <= len(lines) and not lines[number - 1].lstrip().startswith("@"):
                return number
        return node.start_line

    def dependents(self, target: Sym) -> list[Found]:
        """Every node that references ``target``, best finding per node (call > reference > import >
        possible), at its first line."""
        rank = {FOUND_CALL: 0, FOUND_REFERENCE: 1, FOUND_IMPORT: 2, FOUND_POSSIBLE: 3}
        best: dict[str, tuple[int, int, str, str]] = {}
        rows = [
            *self.spelled_uses(target.name),
            *self.js_alias_rows(target),
            *self.python_alias_rows(target),
            *self.php_alias_rows(target),
        ]
        aliases: set[tuple[str, str]] = set()
        seen_rows: set[tuple[str, str]] = set()
        while rows:
            more: list[tuple[str, str, int, str]] = []
            for owner_id, spelled, line, path in rows:
                seen_rows.add((owner_id, spelled))
                ref = parse_reference(spelled)
                if ref is None:
                    continue
                how = self.classify(target, ref, path, owner_id, line)
                if how is None or not self.js_in_region(target, ref, path, line):
                    continue
                if how == FOUND_IMPORT and ref.alias and (path, ref.alias) not in aliases:
                    aliases.add((path, ref.alias))
                    more.extend(
                        r for r in self.spelled_uses(ref.alias, path) if (r[0], r[1]) not in seen_rows
                    )
                entry = (rank[how], line, how, spelled)
                if owner_id not in best or entry < best[owner_id]:
                    best[owner_id] = entry
            rows = more
        for made in [
            *self.constructions(target),
            *self.fixture_users(target),
            *self.receiver_reads(target),
            *self.js_importing_files(target),
            *self.js_value_uses(target),
            *self.js_accessor_uses(target),
            *self.go_value_uses(target),
            *self.c_value_uses(target),
            *self.java_constructor_calls(target),
        ]:
            entry = (rank[made.found_by], made.line, made.found_by, made.spelled)
            if made.node.node_id not in best or entry < best[made.node.node_id]:
                best[made.node.node_id] = entry
        nodes = {n.node_id: n for n in nodes_by_id(self.conn, list(best))}
        found = [
            Found(nodes[node_id], how, line, spelled)
            for node_id, (_, line, how, spelled) in best.items()
            if node_id in nodes
        ]
        return sorted(found, key=lambda f: (rank[f.found_by], f.node.order))


def _dependents_of(
    who: _WhoUses, node: Node, ambiguous: frozenset[str] = frozenset()
) -> list[tuple[Node, str, str, int]]:
    """Direct dependents of one node: (node, via, found_by, line); ``via`` names the node's file too when
    its qualified name is in ``ambiguous`` (another target has it)."""
    conn = who.conn
    if node.kind == NODE_FILE:
        lines = _go_importers(who, node.path) if node.path.endswith(".go") else importers(conn, node.path)
        users = nodes_by_id(conn, list(lines))
        return [
            (n, f"imports {node.path}", FOUND_IMPORT, lines[n.node_id])
            for n in sorted(users, key=lambda n: n.order)
        ]
    target = who.sym(node.node_id) if node.kind == NODE_SYMBOL else None
    if target is None:
        return []
    verbs = {
        FOUND_CALL: "references",
        FOUND_REFERENCE: "references",
        FOUND_IMPORT: "imports",
        FOUND_POSSIBLE: "may reference",
    }
    named = f"{target.qualname} in {target.path}" if target.qualname in ambiguous else target.qualname
    found = [
        (f.node, f"{verbs[f.found_by]} {named}", f.found_by, f.line)
        for f in who.dependents(target)
        if f.node.node_id != node.node_id
    ]
    own_file_only = found and all(f[0].path == target.path for f in found)
    if target.language in JS_SCRIPTS and own_file_only and who.js_exported_unseen(target):
        return found + _file_importers_as_possible(who, target, named)
    if found or target.language == L.PYTHON:
        return found
    return _spelled_in_text(who, node, target, named) + _file_importers_as_possible(who, target, named)


MAX_TEXT_FILES = 200
"""Code files searched for the name of a definition no reference names (the first ones by path)."""


def _spelled_in_text(who: _WhoUses, node: Node, target: Sym, named: str) -> list[tuple[Node, str, str, int]]:
    """Outside Python, a definition no recorded reference names may still be used where the reading keeps no
    reference (a Go function passed as a value, a one-letter name): the code whose text spells its name,
    outside the definition itself, is a possible dependent, at the first such line."""
    word = re.compile(rf"(?<![\w$]){re.escape(target.name)}(?![\w$])")
    found: dict[str, tuple[Node, int]] = {}
    for path in code_files_spelling(who.conn, target.name, MAX_TEXT_FILES):
        spans = who.spans(path)
        for number, line in enumerate(who.lines(path), 1):
            if target.name not in line:
                continue
            own = path == node.path and node.start_line <= number <= node.end_line
            if own or not word.search(line):
                continue
            holder = min(
                (n for n in spans if n.start_line <= number <= n.end_line),
                key=lambda n: n.end_line - n.start_line,
                default=None,
            )
            if holder is not None and holder.node_id not in found:
                found[holder.node_id] = (holder, number)
    return [
        (holder, f"may reference {named} (its name is in the text)", FOUND_POSSIBLE, line)
        for holder, line in found.values()
    ]


def _file_importers_as_possible(who: _WhoUses, target: Sym, named: str) -> list[tuple[Node, str, str, int]]:
    """A top-level definition no reference names may still be used under another name (an export renamed,
    ``module.exports = f``): the files importing its file are its possible dependents (for Go, only when the
    name is exported)."""
    if target.parent_id != who.file_id(target.path) or (
        target.language == L.GO and not target.name[:1].isupper()
    ):
        return []
    lines = (
        _go_importers(who, target.path) if target.path.endswith(".go") else importers(who.conn, target.path)
    )
    return [
        (n, f"may reference {named} (imports {target.path})", FOUND_POSSIBLE, lines[n.node_id])
        for n in nodes_by_id(who.conn, list(lines))
    ]


def _go_importers(who: _WhoUses, path: str) -> dict[str, int]:
    """The files importing a Go file's package: by its import path (from ``go.mod``), and through the
    package's first file, the one an import is resolved to in the index."""
    lines = importers(who.conn, path)
    if path.endswith("_test.go"):
        return lines
    package = who.paths.go_package(posixpath.dirname(path))
    found = [importers(who.conn, package[0])] if package else []
    module = who.go.import_path(path)
    if module is not None:
        found.append(module_importers(who.conn, module, L.GO))
    for more in found:
        for node_id, line in more.items():
            lines[node_id] = min(line, lines.get(node_id, line))
    return lines


def _walk_dependents(
    who: _WhoUses, roots: list[Node], depth: int, limit: int
) -> tuple[list[dict[str, Any]], list[str], bool, set[str]]:
    """Breadth-first over "is used by" and "is imported by", each node once, at most ``limit`` found:
    at each distance the resolved dependents come before the possible ones. Also the roots that have a
    direct dependent."""
    used: set[str] = set()
    names = Counter(name for name, _ in {(n.qualname, n.path) for n in roots if n.kind == NODE_SYMBOL})
    ambiguous = frozenset(name for name, files in names.items() if files > 1)
    seen = {n.node_id for n in roots}
    frontier = list(roots)
    found: list[dict[str, Any]] = []
    notes: list[str] = []
    rank = {FOUND_CALL: 0, FOUND_REFERENCE: 0, FOUND_IMPORT: 0, FOUND_POSSIBLE: 1}
    for distance in range(1, depth + 1):
        if not frontier:
            break
        level: list[tuple[Node, str, str, int]] = []
        for node in frontier:
            direct = _dependents_of(who, node, ambiguous)
            if direct and distance == 1:
                used.add(node.node_id)
            level.extend(direct)
        level.sort(key=lambda d: rank[d[2]])
        next_frontier: list[Node] = []
        for dep, via, found_by, line in level:
            if dep.node_id in seen:
                continue
            if len(found) >= limit:
                return found, notes, True, used
            seen.add(dep.node_id)
            found.append(
                {**dep.to_dict(), "distance": distance, "found_by": found_by, "line": line, "via": via}
            )
            next_frontier.append(dep)
        frontier = next_frontier
    if any(d["found_by"] == FOUND_POSSIBLE for d in found):
        notes.append(
            "possible: a reference whose receiver's type is not known here (it may name another definition),"
            " or, outside Python, for a definition no reference names, code that spells its name or a file"
            " importing its file"
        )
    return found, notes, False, used


def _unused_note(who: _WhoUses, ref: str, nodes: Sequence[Node]) -> str:
    """Why a target has no dependent: its name appears nowhere else, or every use of it names another
    definition (or, for a file, nothing imports it either)."""
    names = sorted({n.name for n in nodes if n.kind == NODE_SYMBOL})
    ids = {n.node_id for n in nodes}
    uses = sum(1 for name in names for row in who.spelled_uses(name) if row[0] not in ids)
    if not names:
        why = "no indexed file imports it"
    elif uses == 0:
        several = len(names) > 1
        why = (
            f"the name{'s' if several else ''} {', '.join(names)} appear{'' if several else 's'} nowhere else"
        )
    else:
        why = f"{uses} use{'s' if uses > 1 else ''} of the name {', '.join(names)} name other definitions"
    return (
        f"{ref}: no reference to it was found in the indexed files ({why}); a use the index cannot see"
        " (another repository, a string, reflection) is not counted"
    )


def _terms_of(ref: str, kind: str, nodes: Iterable[Node]) -> list[str]:
    """Words that name a target in free text: the reference itself, a path's file name, symbol names."""
    terms = [ref.rstrip("/")]
    if kind != "symbol":
        base = ref.rstrip("/").rsplit("/", 1)[-1]
        if len(base) >= MIN_BASENAME_CHARS:
            terms.append(base)
    else:
        terms.extend(_doc_terms(nodes))
    return list(dict.fromkeys(t for t in terms if t))


def _doc_terms(nodes: Iterable[Node]) -> list[str]:
    """How documentation names symbols unambiguously: qualified names (``AppContext.push``), and bare names
    only when distinctive (``url_for``, ``AppContext``), never a plain word (``push``, ``get``)."""
    terms: list[str] = []
    for node in nodes:
        if node.kind != NODE_SYMBOL:
            continue
        if "." in node.qualname:
            terms.append(node.qualname)
        if _DISTINCTIVE.search(node.name.strip("_")):
            terms.append(node.name)
    return list(dict.fromkeys(terms))


def _mentions(text: str, terms: Sequence[str]) -> list[str]:
    return [t for t in terms if re.search(rf"(?<![\w/.-]){re.escape(t)}(?![\w/-])", text, re.IGNORECASE)]


def _memory_cover(root: Path, terms: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {"constraints": [], "decisions": [], "other_memory": []}
    store = MemoryStore.existing(root)
    if store is None or not terms:
        return out
    with store:
        records: list[MemoryRecord] = store.candidates()
    for record in records:
        matched = _mentions(record.text, terms)
        if not matched:
            continue
        bucket = {"constraint": "constraints", "decision": "decisions"}.get(record.kind, "other_memory")
        out[bucket].append({**record.to_dict(), "matched": matched})
    return out


def _docs_mentioning(conn: sqlite3.Connection, names: Sequence[str]) -> list[dict[str, Any]]:
    hits: dict[str, dict[str, Any]] = {}
    for name in names:
        for row in sections_mentioning(conn, name, MAX_DOC_HITS):
            node = Node(*row)
            entry = hits.setdefault(
                node.node_id, {**node.to_dict(), "found_by": FOUND_MENTION, "mentions": []}
            )
            entry["mentions"].append(name)
    return sorted(hits.values(), key=lambda d: (d["path"], d["lines"][0], d["node_id"]))[:MAX_DOC_HITS]


def _check_risk_request(targets: object, depth: object, limit: object) -> list[str]:
    """The targets as a list, each with any credential redacted (the result records it), once ``targets``
    is a sequence of strings (a lone string is refused, not read as its letters) and ``depth`` and ``limit``
    are whole numbers in their ranges."""
    if isinstance(targets, (str, bytes)) or not isinstance(targets, Sequence):
        raise RequestError("targets must be a list of paths or symbol names", field="targets")
    if not targets:
        raise RequestError("name at least one path or symbol", field="targets")
    if len(targets) > RISK_MAX_TARGETS:
        raise RangeError(f"name at most {RISK_MAX_TARGETS} targets", field="targets")
    for target in targets:
        if not isinstance(target, str):
            raise RequestError("every target must be a string", field="targets")
        require_utf8(target, "targets")
    whole_number("depth", depth, 1, RISK_MAX_DEPTH)
    whole_number("limit", limit, 1, RISK_MAX_LIMIT)
    return list(redacted_all(tuple(targets)))


def risk_of_changing(
    index: Index,
    targets: Sequence[str],
    *,
    depth: int = RISK_DEFAULT_DEPTH,
    limit: int = RISK_DEFAULT_LIMIT,
    refresh: bool = True,
) -> dict[str, Any]:
    """What depends on these paths or symbols in the graph, and which decisions and constraints cover them.

    Paths are repository-relative files or directories (anything that would leave the root is refused);
    other strings are symbol names or qualified names. Dependents are the symbols that reference a target's
    name and the files that import a target file, followed ``depth`` hops. Memory records (active decisions,
    constraints, discoveries, unresolved failures) and documentation sections that mention a target are
    listed with the words that matched. ``refresh``: bring the index up to date first when files changed on
    disk, as :meth:`~prooftext.index.Index.pack` does (a stale index would miss a new caller).
    """
    require_index(index)
    targets = _check_risk_request(targets, depth, limit)
    check_flag("refresh", refresh)
    if refresh:
        index.ensure_fresh()
    with store_errors():  # a store damaged under the reads is a coded store error, not a crash
        return _answer(index, targets, depth, limit)


def _answer(index: Index, targets: list[str], depth: int, limit: int) -> dict[str, Any]:
    conn = index.conn
    who = _WhoUses(conn)
    resolved: list[dict[str, Any]] = []
    roots: list[Node] = []
    terms: list[str] = []
    symbol_names: list[str] = []
    truncated = False
    found: list[tuple[str, str, list[Node]]] = []
    for ref in targets:
        kind, nodes, cut = _resolve_target(who, ref)
        truncated = truncated or cut
        found.append((ref, kind, nodes))
        resolved.append({"kind": kind, "matches": [n.to_dict() for n in nodes], "ref": ref})
        roots.extend(n for n in nodes if n.node_id not in {r.node_id for r in roots})
        terms.extend(_terms_of(ref, kind, nodes))
        symbol_names.extend(_doc_terms(nodes))
    dependents, notes, walk_cut, used = _walk_dependents(who, roots, depth, limit)
    notes.extend(_target_notes(who, found, used, truncated or walk_cut))
    files = sorted({d["path"] for d in dependents} | {n.path for n in roots})
    return {
        "dependents": dependents,
        "docs": _docs_mentioning(conn, list(dict.fromkeys(symbol_names))),
        "files_affected": files,
        "notes": notes,
        "targets": resolved,
        "truncated": truncated or walk_cut,
        "unresolved": [t["ref"] for t in resolved if not t["matches"]],
        **_memory_cover(index.root, list(dict.fromkeys(terms))),
    }


def _target_notes(
    who: _WhoUses, targets: list[tuple[str, str, list[Node]]], used: set[str], cut: bool
) -> list[str]:
    """A note per target (ref, kind, nodes) that matched nothing (why), that reached a definition spelled
    otherwise (which), or whose definitions nothing uses (why not; unless the walk was cut short)."""
    notes: list[str] = []
    for ref, kind, nodes in targets:
        if not nodes:
            notes.append(
                _unresolved_path_note(who.conn, ref)
                if kind == "path"
                else _unresolved_name_note(who.conn, ref)
            )
            continue
        if kind == "symbol" and not any(_spells(ref, n.qualname) for n in nodes):
            notes.append(f"{ref}: reaches " + ", ".join(f"{n.qualname} ({n.path})" for n in nodes))
        if not cut and not any(n.node_id in used for n in nodes):
            notes.append(_unused_note(who, ref, nodes))
    return notes


def _spells(ref: str, qualname: str) -> bool:
    """Whether ``ref`` names ``qualname`` as written: itself, its last part, or with a module before it."""
    return ref in (qualname, qualname.rsplit(".", 1)[-1]) or ref.endswith("." + qualname)


MAX_NAMESAKES = 3
"""Definitions named as a dotted target's last part that the note on an unmatched target lists."""


def _unresolved_name_note(conn: sqlite3.Connection, ref: str) -> str:
    """Why a name matched nothing, and for a dotted name the definitions named as its last part (a method
    of one object literal, ``onClick``, named through another, ``buttons.onClick``)."""
    note = f"{ref}: names no indexed definition (as a name, a qualified name, module.name or an inherited member)"
    last = ref.rsplit(".", 1)[-1]
    namesakes = [n for n in node_list(symbols_named(conn, last)) if n.name == last] if last != ref else []
    if not namesakes:
        return note
    listed = ", ".join(f"{n.qualname} ({n.path})" for n in namesakes[:MAX_NAMESAKES])
    more = ", ..." if len(namesakes) > MAX_NAMESAKES else ""
    count = f"{len(namesakes)} definition{' is' if len(namesakes) == 1 else 's are'}"
    return f"{note}; {count} named {last}: {listed}{more}"


def who_uses(index: Index, node_id: str) -> list[dict[str, Any]]:
    """The direct dependents of one indexed symbol (by node id), resolved first, possible last: each with
    its node, how it was found (``call``, ``reference``, ``import``, ``possible``) and its first line."""
    who = _WhoUses(index.conn)
    target = who.sym(node_id)
    if target is None:
        return []
    return [
        {**f.node.to_dict(), "found_by": f.found_by, "line": f.line}
        for f in who.dependents(target)
        if f.node.node_id != node_id
    ]
