"""Python names at query time: what a dotted name means in a file (through its imports, the modules they
name, classes and their bases in the repository), and the class a receiver holds where the code states it (a
local's, an instance attribute's, a module-level variable's, a function's result). Read lazily from the store
and cached for one request."""

from __future__ import annotations

import ast
import posixpath
import re
import sqlite3
import sys
from collections.abc import Sequence
from functools import cached_property

import prooftext.graph.languages as L
from prooftext.api.who_uses_model import (
    CLASS_KINDS,
    MAX_IMPORT_HOPS,
    OUTSIDE,
    SELF_NAMES,
    UNKNOWN,
    VARIABLE,
    Sym,
    Target,
    WhoUsesStore,
)
from prooftext.api.who_uses_python import (
    BUILTIN_TYPES,
    Function,
    attribute_types,
    bound_locally,
    global_names,
    is_property,
    local_type_names,
    module_aliases,
    module_types,
    module_values,
    only_a_parameter,
    parse_class,
    parse_function,
    parse_module,
    result_sources,
    split_bases,
)
from prooftext.graph.model import HOW_FROM, HOW_IMPORT, Reference, parse_reference
from prooftext.graph.resolve import PathIndex
from prooftext.store.risk_queries import import_uses, indexed_paths

RESULT_HOPS = 2
"""How many functions a local's class is followed through (``s = make()`` where ``make`` returns
``build()``, which constructs the class); past them the local's class is not known."""
BUILTIN_CLASS = "builtins"
"""The class id :meth:`PythonNames._local_class` gives a local holding a built-in container or string
(``options = {}``, ``**kwargs``, ``values: dict[str, Any]``): no class of the repository, so no member of
one is called on it."""
_PY_BASES = re.compile(r"^\s*class\s+\w+\s*(?:\[[^\]]*\])?\s*\((.*)\)\s*:?\s*$", re.DOTALL)


class PythonNames(WhoUsesStore):
    """What Python names mean where they are written (see the module docstring)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._paths: PathIndex | None = None
        self._bindings: dict[str, tuple[dict[str, Reference], list[str]]] = {}
        self._mro: dict[str, tuple[list[str], bool]] = {}
        self._trees: dict[str, Function | None] = {}
        self._class_trees: dict[str, ast.ClassDef | None] = {}
        self._module_trees: dict[str, ast.Module | None] = {}
        self._global_names: dict[str, frozenset[str]] = {}
        self._locals: dict[str, frozenset[str]] = {}
        self._pending: set[tuple[str, str]] = set()
        self._local_classes: dict[tuple[str, str], str | None] = {}
        self._results: dict[tuple[str, int, bool], str | None] = {}
        self._attributes: dict[tuple[str, str], str | None] = {}

    # --- Python imports -------------------------------------------------------------------------------

    @property
    def paths(self) -> PathIndex:
        if self._paths is None:
            self._paths = PathIndex(indexed_paths(self.conn))
        return self._paths

    def bindings(self, path: str) -> tuple[dict[str, Reference], list[str]]:
        """Names a file's imports bind, and the modules it star-imports."""
        if path not in self._bindings:
            named: dict[str, Reference] = {}
            stars: list[str] = []
            for spelled in import_uses(self.conn, path):
                ref = parse_reference(spelled)
                if ref is None or ref.how not in (HOW_FROM, HOW_IMPORT):
                    continue
                if ref.how == HOW_FROM and ref.name == "*":
                    stars.append(ref.receiver)
                else:
                    named.setdefault(ref.binding, ref)
            self._bindings[path] = (named, stars)
        return self._bindings[path]

    # --- resolution -----------------------------------------------------------------------------------

    def module(self, importer: str, module: str) -> str | None:
        return self.paths.resolve_import(importer, module, L.PYTHON)

    def resolve(self, path: str, parts: Sequence[str], hops: int = 0) -> set[Target]:
        """What the dotted name ``parts`` names at the top level of file ``path``."""
        if not parts or hops > MAX_IMPORT_HOPS:
            return {UNKNOWN}
        head, rest = parts[0], list(parts[1:])
        # Only definitions at the file's top level bind a name there (not a method of the same name).
        local = [d for d in self.defs(path).get(head, ()) if d.parent_id == self.file_id(path)]
        if local:
            return set().union(*(self.member_chain(("node", d.node_id), rest, hops) for d in local))
        named, stars = self.bindings(path)
        ref = named.get(head)
        if ref is not None:
            return set().union(*(self.member_chain(t, rest, hops) for t in self.bound(path, ref, hops)))
        found: set[Target] = set()
        for star in stars:
            target = self.module(path, star)
            if target is not None:
                found |= {t for t in self.resolve(target, parts, hops + 1) if t != UNKNOWN}
        submodule = self._submodule(path, head) if not found and hops else None
        if submodule is not None:  # `requests.cookies.X`: importing the submodule anywhere binds it here
            return self.member_chain(("module", submodule), rest, hops)
        if not found and not rest:  # `flask.session`: a variable assigned a value, or an alias of a name
            return self._variable(path, head, hops)
        return found or {UNKNOWN}  # a variable, a builtin, or a name this index does not define

    def _variable(self, path: str, name: str, hops: int) -> set[Target]:
        """What the module-level variable ``name`` of ``path`` names (see
        :func:`~prooftext.api.who_uses_python.module_values`): :data:`VARIABLE` for a value, what an alias
        names, :data:`UNKNOWN` when it is bound otherwise or not at all."""
        tree = self.module_tree(path)
        values = module_values(tree, name, self.global_names(path)) if tree is not None else None
        if values is None:
            return {UNKNOWN}
        found: set[Target] = set()
        for value in values:
            found |= self.resolve(path, value, hops + 1) if value else {VARIABLE}
        return found

    def _submodule(self, path: str, name: str) -> str | None:
        """The submodule ``name`` of the package whose ``__init__`` is ``path`` (None for another file)."""
        if posixpath.basename(path) not in ("__init__.py", "__init__.pyi"):
            return None
        return self.module(path, "." + name)

    def bound(self, path: str, ref: Reference, hops: int) -> set[Target]:
        """What one import binding names: a module, or the definitions of the name in its module (several
        when they share it: ``@overload`` stubs and their implementation, a definition in each branch)."""
        if ref.how == HOW_IMPORT:
            module = ref.name if ref.alias else ref.name.split(".", 1)[0]
            target = self.module(path, module)
            return {("module", target) if target is not None else self._outside(module)}
        joiner = "" if ref.receiver.endswith(".") else "."
        submodule = self.module(path, ref.receiver + joiner + ref.name)
        if submodule is not None:
            return {("module", submodule)}
        source = self.module(path, ref.receiver)
        if source is None:
            return {self._outside(ref.receiver)}
        return self.resolve(source, [ref.name], hops + 1)

    def _outside(self, module: str) -> Target:
        """What an absolute import of a module the index does not hold names: :data:`OUTSIDE` for one of
        Python's standard library, or of a package of which the repository has no module or directory of
        that name (``click``, ``werkzeug``); else :data:`UNKNOWN` (one of its own the index does not find)."""
        top = module.split(".", 1)[0]
        if not top:
            return UNKNOWN  # a relative import
        if top in sys.stdlib_module_names or top not in self._own_names:
            return OUTSIDE
        return UNKNOWN

    @cached_property
    def _own_names(self) -> frozenset[str]:
        """Every directory name and Python file stem in the repository's paths."""
        names: set[str] = set()
        for path in self.paths.paths:
            *directories, name = path.split("/")
            names.update(directories)
            names.add(posixpath.splitext(name)[0])
        return frozenset(names)

    def member_chain(self, start: Target, rest: Sequence[str], hops: int) -> set[Target]:
        """Follow attribute names from a module or class; unknown where the chain leaves what is defined."""
        current = start
        for i, part in enumerate(rest):
            kind, value = current
            if kind == "module":
                return self.resolve(value, rest[i:], hops + 1)
            if current == OUTSIDE:
                return {OUTSIDE}  # `os.environ.get`: the outside module's, all the way down
            if kind != "node":
                return {UNKNOWN}
            found = self.sym(value)
            if found is None or found.symbol_kind not in CLASS_KINDS:
                return {UNKNOWN}
            member = self.lookup(value, part)
            current = ("node", member) if member is not None else UNKNOWN
        return {current}

    def bases(self, cls: Sym) -> tuple[list[str], bool]:
        """The repository classes a class derives from, and whether any base lies outside the repository."""
        if cls.language != L.PYTHON:
            return [], True
        match = _PY_BASES.match(cls.signature)
        if match is None:
            return [], False
        out: list[str] = []
        unknown = False
        for base in split_bases(match.group(1)):
            targets = self.resolve(cls.path, base.split("."))
            nodes = [t[1] for t in targets if t[0] == "node"]
            out.extend(nodes)
            unknown = unknown or not nodes
        return out, unknown

    def mro(self, class_id: str) -> tuple[list[str], bool]:
        """The class and its repository ancestors, depth first, and whether some ancestor is external."""
        if class_id not in self._mro:
            self._mro[class_id] = ([class_id], False)  # a cycle stops here
            order: list[str] = [class_id]
            external = False
            found = self.sym(class_id)
            if found is not None:
                direct, external = self.bases(found)
                for base in direct:
                    ancestors, outside = self.mro(base)
                    order.extend(a for a in ancestors if a not in order)
                    external = external or outside
            self._mro[class_id] = (order, external)
        return self._mro[class_id]

    def lookup(self, class_id: str, name: str, skip_first: bool = False) -> str | None:
        """The definition ``name`` finds on a class: its own, else the first base's that has one."""
        order, _ = self.mro(class_id)
        for cls in order[1:] if skip_first else order:
            found = self.children(cls).get(name)
            if found:
                return found[0]
        return None

    def encloses(self, scope_id: str | None, node_id: str) -> bool:
        """Whether the function ``scope_id`` is ``node_id`` or one of its ancestors."""
        scope = self.sym(scope_id) if scope_id else None
        if scope is None or scope.symbol_kind in CLASS_KINDS:
            return False
        current = self.sym(node_id)
        while current is not None:
            if current.node_id == scope_id:
                return True
            current = self.sym(current.parent_id) if current.parent_id else None
        return False

    def class_body_members(self, owner_id: str, name: str) -> list[str]:
        """The members named ``name`` of the class ``owner_id``: a bare name in a class body (``tag =
        to_json``) names them before anything at the top level."""
        owner = self.sym(owner_id)
        if owner is None or owner.symbol_kind not in CLASS_KINDS or owner.language != L.PYTHON:
            return []
        return self.children(owner_id).get(name, [])

    def shadowed(self, name: str, owner_id: str, scope_id: str | None) -> bool:
        """Whether a function from ``owner_id`` up to (not including) ``scope_id``, where the target is
        defined, binds ``name`` itself (a parameter, an assignment): a bare ``name`` there is that local."""
        current = self.sym(owner_id)
        while current is not None and current.node_id != scope_id:
            if current.symbol_kind not in CLASS_KINDS and name in self.local_names(current):
                return True
            current = self.sym(current.parent_id) if current.parent_id else None
        return False

    def function_tree(self, function: Sym) -> Function | None:
        """The Python function ``function`` parsed from its indexed text, once per request."""
        if function.node_id not in self._trees:
            node = self.node(function)
            text = "\n".join(self.lines(function.path)[node.start_line - 1 : node.end_line]) if node else ""
            python = node is not None and function.language == L.PYTHON
            self._trees[function.node_id] = parse_function(text) if python else None
        return self._trees[function.node_id]

    def local_names(self, function: Sym) -> frozenset[str]:
        """The names a Python function binds in its own scope (read from its indexed text), none when its
        text cannot be read as a function."""
        if function.node_id not in self._locals:
            tree = self.function_tree(function)
            self._locals[function.node_id] = bound_locally(tree) if tree is not None else frozenset()
        return self._locals[function.node_id]

    # --- stated classes -------------------------------------------------------------------------------

    def _local_class(self, owner_id: str, path: str, name: str) -> str | None:
        """The class a Python function states for its local ``name`` (see
        :func:`~prooftext.api.who_uses_python.local_type_names`), or that fills its parameter ``name``
        (:meth:`parameter_class`), when it resolves to one class here."""
        key = (owner_id, name)
        if key in self._local_classes:
            return self._local_classes[key]
        if key in self._pending:
            return None  # `x = x.next()`: its class is what is being found
        function = self.sym(owner_id)
        tree = self.function_tree(function) if function is not None else None
        dotted = local_type_names(tree, name) if tree is not None else None
        self._pending.add(key)
        try:
            if dotted is None:  # a parameter pytest fills, if the body never binds it again
                only = tree is not None and only_a_parameter(tree, name)
                found = self.parameter_class(owner_id, name) if only else None
            else:
                found = self._callee_class(owner_id, path, dotted, RESULT_HOPS)
                if found is None and self._builtin(path, dotted):
                    found = BUILTIN_CLASS
        finally:
            self._pending.discard(key)
        self._local_classes[key] = found
        return found

    def _builtin(self, path: str, dotted: list[str]) -> bool:
        """Whether ``dotted`` in ``path`` names a built-in container or string (``dict``, ``t.Dict``) and
        nothing the repository defines."""
        if dotted[-1] not in BUILTIN_TYPES or len(dotted) > 2:
            return False
        return not any(kind == "node" for kind, _ in self.resolve(path, dotted))

    def parameter_class(self, owner_id: str, name: str) -> str | None:
        """The class of a parameter of ``owner_id`` that its text does not state (pytest fills some: see
        the who-uses resolver); None here."""
        return None

    def _callee_class(self, owner_id: str, path: str, dotted: list[str], hops: int) -> str | None:
        """The class that calling ``dotted`` in the function ``owner_id`` gives: a class's, or a function's or
        method's stated result; through the receiver's class when ``dotted`` starts with ``self`` or a local
        (``s.get()`` where ``s`` is a ``Session``)."""
        function = self.sym(owner_id)
        local = function is not None and dotted[0] in self.local_names(function)
        if len(dotted) > 1 and (dotted[0] in SELF_NAMES or local):
            cls = self._receiver_class(owner_id, path, dotted[:-1])
            method = self.sym(self.lookup(cls, dotted[-1]) or "") if cls is not None else None
            return self.result_class(method, hops - 1) if method is not None and hops else None
        return self._class_named(path, dotted, hops)

    def result_class(self, function: Sym, hops: int, yields: bool = False) -> str | None:
        """The one class a Python function or method returns (with ``yields``: yields) where its text states
        it (:func:`~prooftext.api.who_uses_python.result_sources`), following calls ``hops`` more times."""
        key = (function.node_id, hops, yields)
        if key not in self._results:
            self._results[key] = None  # a function returning its own result: none known
            self._results[key] = self._result_of(function, hops, yields)
        return self._results[key]

    def _result_of(self, function: Sym, hops: int, yields: bool) -> str | None:
        tree = self.function_tree(function) if function.symbol_kind in ("function", "method") else None
        sources = result_sources(tree, yields) if tree is not None else None
        found: set[str | None] = set()
        for kind, dotted in sources or [("", [])]:
            if kind == "class":
                found.add(self._class_named(function.path, dotted, 0))
            elif kind == "call":
                found.add(self._callee_class(function.node_id, function.path, dotted, hops))
            elif kind == "local":
                found.add(self._local_class(function.node_id, function.path, dotted[0]))
            else:
                found.add(None)
        return found.pop() if len(found) == 1 else None

    def _receiver_class(self, owner_id: str, path: str, parts: Sequence[str]) -> str | None:
        """The class of a Python receiver (``s``, ``self.session``, ``app.config``) in the function
        ``owner_id``: its head's (the enclosing class for ``self``, else the class the function states for
        that local), then each attribute's (:meth:`_attribute_class`); through a call (``app.test_client()``,
        ``make()``), the class the called function states it returns (:meth:`_callee_class`); None where one
        is not known."""
        last = max(
            (i for i, part in enumerate(parts) if part.endswith("()") and part != "super()"), default=-1
        )
        if last >= 0:
            dotted = [*parts[:last], parts[last][:-2]]
            current = self._callee_class(owner_id, path, dotted, RESULT_HOPS)
            for attribute in parts[last + 1 :]:
                current = self._attribute_class(current, attribute) if current is not None else None
            return current
        if parts[0] in SELF_NAMES:
            cls = self.enclosing_class(owner_id)
            current, rest = (cls.node_id if cls is not None else None), parts[1:]
        else:
            scope = self._binding_scope(owner_id, parts[0])
            current, rest = self._local_class(scope, path, parts[0]), parts[1:]
            function = self.sym(scope)
            local = function is not None and parts[0] in self.local_names(function)
            if current is None and not local:
                current, rest = self._global_head(path, parts)
        for attribute in rest:
            current = self._attribute_class(current, attribute) if current is not None else None
        return current

    def _binding_scope(self, owner_id: str, name: str) -> str:
        """The function whose ``name`` a use in ``owner_id`` reads: ``owner_id`` itself, or the nearest
        enclosing function that binds it where ``owner_id`` does not (a closure; a nested function's
        decorator line, ``@app.route(…)``, reads the enclosing function's ``app`` too)."""
        current = self.sym(owner_id)
        while current is not None and current.symbol_kind not in CLASS_KINDS:
            if name in self.local_names(current):
                return current.node_id
            parent = self.sym(current.parent_id) if current.parent_id else None
            if parent is None or parent.symbol_kind in CLASS_KINDS:
                break
            current = parent
        return owner_id

    def _global_head(self, path: str, parts: Sequence[str]) -> tuple[str | None, Sequence[str]]:
        """The class of the module-level variable a receiver starts with (``db`` in ``db.query``, ``g`` in
        ``flask.g.pop``: through the modules its first parts name), and the parts after it."""
        module, at = path, 0
        while at < len(parts) - 1:
            found = self.resolve(path, parts[: at + 1])
            kind, value = next(iter(found)) if len(found) == 1 else ("", "")
            if kind != "module":
                break
            module, at = value, at + 1
        return self._global_class(module, parts[at], 0), parts[at + 1 :]

    def _global_class(self, path: str, name: str, hops: int) -> str | None:
        """The class a module-level variable of ``path`` holds, when every binding of it there states one
        (:func:`~prooftext.api.who_uses_python.module_types`); a ``from m import name`` is followed to
        ``m``."""
        tree = self.module_tree(path) if hops <= MAX_IMPORT_HOPS else None
        stated = module_types(tree, name, self.global_names(path)) if tree is not None else []
        if stated:
            return self._agreed(path, None, stated)
        ref = self.bindings(path)[0].get(name)
        source = self.module(path, ref.receiver) if ref is not None and ref.how == HOW_FROM else None
        return self._global_class(source, ref.name, hops + 1) if source and ref else None

    def python_alias_rows(self, target: Sym) -> list[tuple[str, str, int, str]]:
        """The spelled uses of the names the file of a top-level Python definition also binds it to
        (``fetch = _fetch``): classified as uses of ``target`` where they resolve to it."""
        top_level = target.parent_id == self.file_id(target.path)
        tree = self.module_tree(target.path) if top_level and target.language == L.PYTHON else None
        aliases = module_aliases(tree, target.name) if tree is not None else []
        return [row for alias in sorted(set(aliases)) for row in self.spelled_uses(alias)]

    def global_names(self, path: str) -> frozenset[str]:
        """The names a function of the Python file ``path`` declares ``global``, once per request."""
        if path not in self._global_names:
            tree = self.module_tree(path)
            self._global_names[path] = global_names(tree) if tree is not None else frozenset()
        return self._global_names[path]

    def module_tree(self, path: str) -> ast.Module | None:
        """The Python file ``path`` parsed, once per request."""
        if path not in self._module_trees:
            python = path.endswith((".py", ".pyi"))
            self._module_trees[path] = parse_module("\n".join(self.lines(path))) if python else None
        return self._module_trees[path]

    def _attribute_class(self, class_id: str, attribute: str) -> str | None:
        """The class an instance attribute of ``class_id`` holds, when every binding of it in the first class
        of the MRO binding it states the same (:func:`~prooftext.api.who_uses_python.attribute_types`), or
        a property's stated result."""
        key = (class_id, attribute)
        if key not in self._attributes:
            self._attributes[key] = None  # an attribute bound through itself: none known
            self._attributes[key] = self._attribute_of(class_id, attribute)
        return self._attributes[key]

    def _attribute_of(self, class_id: str, attribute: str) -> str | None:
        member = self.sym(self.lookup(class_id, attribute) or "")
        tree = self.function_tree(member) if member is not None else None
        if member is not None and tree is not None and is_property(tree):
            return self.result_class(member, RESULT_HOPS)
        for owner_id in self.mro(class_id)[0]:
            owner = self.sym(owner_id)
            body = self.class_tree(owner) if owner is not None else None
            stated = attribute_types(body, attribute) if body is not None else []
            if stated and owner is not None:
                return self._agreed(owner.path, owner, stated)
        return None

    def _agreed(self, path: str, owner: Sym | None, stated: list[list[str] | None]) -> str | None:
        """The one class that every binding ``stated`` in ``path`` (in the class ``owner``, if any) gives,
        or None."""
        found: set[str | None] = set()
        for dotted in stated:
            if owner is not None and dotted and dotted[0] == "self" and len(dotted) == 2:
                method = self.sym(self.lookup(owner.node_id, dotted[1]) or "")  # `self.x = self.make()`
                found.add(self.result_class(method, RESULT_HOPS) if method is not None else None)
            else:
                found.add(self._class_named(path, dotted, RESULT_HOPS) if dotted else None)
        return found.pop() if len(found) == 1 else None

    def class_tree(self, cls: Sym) -> ast.ClassDef | None:
        """The Python class ``cls`` parsed from its indexed text, once per request."""
        if cls.node_id not in self._class_trees:
            node = self.node(cls)
            text = "\n".join(self.lines(cls.path)[node.start_line - 1 : node.end_line]) if node else ""
            python = node is not None and cls.language == L.PYTHON and cls.symbol_kind == "class"
            self._class_trees[cls.node_id] = parse_class(text) if python else None
        return self._class_trees[cls.node_id]

    def _class_named(self, path: str, dotted: list[str], hops: int) -> str | None:
        """The class that ``dotted``, called in ``path``, gives: the class it names, or the class that the
        function or method it names returns (:meth:`result_class`, followed ``hops`` more times: a factory
        calling a factory)."""
        found = self.resolve(path, dotted)
        if len(found) != 1:
            return None
        kind, ident = next(iter(found))
        held = self.sym(ident) if kind == "node" else None
        if held is None or held.language != L.PYTHON:
            return None
        if held.symbol_kind == "class":
            return ident
        return self.result_class(held, hops - 1) if hops else None
