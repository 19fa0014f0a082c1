"""Who-uses in PHP: a call resolves through the class the code states for its receiver. A receiver is
``$this``, ``self`` or ``static`` (the enclosing class), ``parent`` (the class it extends), a class named for a
static call (``Cache::get()``, ``\\App\\Cache::get()``), a variable whose class the function states (a typed
parameter ``Request $request``, also a closure's, ``$x = new Foo(...)``, a ``@param`` or ``@var`` doc-comment
type, ``$x = $this->make()`` where ``make`` declares its result) or a property whose class its class states
(``private Foo $foo``, a promoted constructor parameter, a ``@var`` doc comment), read through ``$this``. A
class name is looked up as PHP does: the file's own classes, its ``use`` imports under their alias (a name
qualified through an imported namespace too), then its namespace (under PSR-4, the importer's directory);
a class of the file's own vendor namespace that PSR-4 maps elsewhere is the one file named for it that
defines it. A member is looked up in the class, then in the traits it uses, the class it extends and the
interfaces it implements; a call on an object whose member the target overrides or implements is
``possible``, and so is a call whose receiver's class is not known here; ``parent::`` and ``self::`` run
the member looked up and no other. A constructor is used by ``new`` of its class under any name a file
imports it as, ``new self()``, ``new static()`` and ``parent::__construct()``. A method named by a callable
array (``[$this, 'run']``, ``[Foo::class, 'make']``) is read through the class its first element names. A
function is called by its name alone: a call in its own file, in a file of its directory (its namespace) or
of a file importing it (``use function``), or anywhere when no other function of the repository has its
name."""

from __future__ import annotations

import posixpath
import re
import sqlite3

from prooftext.api.who_uses_model import (
    CLASS_KINDS,
    FOUND_CALL,
    FOUND_POSSIBLE,
    FOUND_REFERENCE,
    Sym,
    WhoUsesStore,
    importing_paths,
)
from prooftext.graph import languages as L
from prooftext.graph.model import HOW_CALL, UNKNOWN_RECEIVER, Reference, php_receiver
from prooftext.store.risk_queries import definitions_named, file_imports, files_ending

OUTSIDE_PHP = "outside"
"""A class the repository does not define (a package's, PHP's own)."""
MAX_SUPERTYPES = 16
_HEAD_LINES = 200
"""A file's namespace is read from its first lines."""
_SCALARS = frozenset(
    {
        "int", "integer", "float", "double", "string", "bool", "boolean", "array", "callable", "iterable",
        "object", "mixed", "void", "null", "false", "true", "never", "resource", "list",
    }
)  # fmt: skip
_SELF = frozenset({"this", "self", "static"})
_TYPE = r"\??(\\?[A-Za-z_]\w*(?:\\\w+)*)"
_NAMESPACE = re.compile(r"^\s*namespace\s+([\w\\]+)\s*[;{]", re.MULTILINE)
_HEADER = re.compile(r"\b(extends|implements)\s+([\w\\\s,]+?)(?=\bimplements\b|\{|$)")
_TRAITS = re.compile(r"^\s*use\s+(\\?[A-Z][\w\\]*(?:\s*,\s*\\?[A-Z][\w\\]*)*)\s*[;{]", re.MULTILINE)
_VISIBILITY = r"(?:public|protected|private|var|readonly)(?:\s+(?:static|readonly|public|protected|private))*"


def _declared(text: str, variable: str, signature: str | None = None) -> list[str]:
    """The classes ``text`` states for ``$variable``: for a function's variable (its ``signature`` given),
    a typed parameter there, ``$x = new Foo`` or ``@param Foo $x`` / ``@var Foo $x``; for a property (a
    class's text, no signature), its typed declaration or promoted constructor parameter (with a
    visibility) or the ``@var Foo`` above it."""
    name = re.escape(variable)
    doc = rf"@(?:param|var)\s+{_TYPE}\s+\${name}\b"
    if signature is None:
        typed = rf"{_VISIBILITY}\s+{_TYPE}\s+&?\${name}\b"
        above = rf"@var\s+{_TYPE}[^;{{}}$]*?\*/\s*{_VISIBILITY}\s+(?:{_TYPE}\s+)?\${name}\b"
        searched = [(typed, text), (doc, text), (above, text)]
    else:
        parameter = rf"(?:{_VISIBILITY}\s+)?{_TYPE}\s+&?(?:\.\.\.)?\${name}\b"
        made = rf"\${name}\s*=\s*new\s+(\\?[A-Za-z_][\w\\]*)"
        # a parameter of the function or of a closure in it (`function (Request $r) use ($x)`); one on a
        # line of its own only in the function's signature (`return $x` is no parameter)
        searched = [
            (rf"[(,]\s*{parameter}", text),
            (rf"^\s*{parameter}", signature),
            (doc, text),
            (made, text),
        ]
    found = [m.group(1) for pattern, where in searched for m in re.finditer(pattern, where, re.MULTILINE)]
    return [t for t in found if t.lower() not in _SCALARS]


_RETURNS = re.compile(r"\)\s*:\s*\??(\\?[A-Za-z_][\w\\]*)\s*$")
"""A function's declared result at the end of its signature (``): ?Response``)."""
_ASSIGNED_CALL = re.compile(
    r"(\$\w+(?:\s*\??->\s*\w+)*|self|static|parent|\\?[A-Z][\w\\]*)\s*(?:\??->|::)\s*(\w+)\s*\("
)
"""A method called on a receiver: ``$this->createRoute(``, ``Foo::make(``."""


def _assigned_calls(text: str, variable: str) -> str:
    """The right-hand sides of the assignments of ``$variable`` in ``text``, each up to its first ``(``."""
    name = re.escape(variable)
    return "\n".join(m.group(1) for m in re.finditer(rf"\${name}\s*=(?!=)\s*([^;(\n]*\()", text))


class PhpWhoUses(WhoUsesStore):
    """PHP's classification, over the store reads of :class:`WhoUsesStore`, cached for one request."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._php_names: dict[str, dict[str, tuple[str, str | None]]] = {}
        self._php_supers: dict[str, tuple[list[Sym], bool]] = {}
        self._php_following: set[tuple[str, str]] = set()
        self._php_vendors: dict[str, str] = {}
        self._php_endings: dict[str, list[str]] = {}
        self._php_functions: dict[str, list[Sym]] = {}

    def _classify_php(self, target: Sym, ref: Reference, path: str, owner_id: str, exact: str) -> str | None:
        """How a reference in a PHP file depends on the PHP definition ``target``."""
        owner_class = self.sym(target.parent_id) if target.parent_id else None
        if target.symbol_kind in CLASS_KINDS:
            return self._php_class_use(target, ref, path, owner_id)
        if owner_class is None or owner_class.symbol_kind not in CLASS_KINDS:
            return self._php_function_use(target, ref, path)
        if not ref.receiver or ref.receiver.endswith("\\"):
            return None  # a bare or namespaced call is a function's, never a method's
        cls = self._php_receiver(ref.receiver, path, owner_id)
        if cls is None:
            return FOUND_POSSIBLE
        if isinstance(cls, str):  # a package's or PHP's own class (`Throwable`, a PSR interface)
            return FOUND_POSSIBLE if not self.php_supertypes(owner_class)[1] else None
        head = ref.receiver.split(".")[0]
        virtual = head in ("this", "static") or head.startswith("$")  # not `parent::`, `self::`, `Foo::`
        return self.php_dispatch(target, cls, ref.name, exact, virtual)

    def _php_class_use(self, target: Sym, ref: Reference, path: str, owner_id: str) -> str | None:
        if ref.name in _SELF:  # `new static()`, `: self` in the class's own code
            here = self.enclosing_class(owner_id) if not ref.receiver else None
            return self._php_named(here is not None and here.node_id == target.node_id, ref)
        if ref.name == "parent":
            return None
        if ref.receiver.endswith("\\"):  # `new Command\Foo()`, `\App\Foo::class`
            parts = [part for part in ref.receiver.split("\\") if part]
            cls = self.php_class(path, ".".join([*parts, ref.name]), qualified=ref.receiver.startswith("\\"))
        elif ref.receiver and ref.receiver != UNKNOWN_RECEIVER:
            cls = self.php_class(path, f"{ref.receiver}.{ref.name}")
        else:
            cls = self.php_class(path, ref.name)
        if cls is None:
            return FOUND_POSSIBLE
        if isinstance(cls, str):
            return None
        return self._php_named(cls.node_id == target.node_id, ref)

    @staticmethod
    def _php_named(same: bool, ref: Reference) -> str | None:
        """A use of a class's name: a call (``new``) or a reference (a type, a static call's class)."""
        if not same:
            return None
        return FOUND_CALL if ref.how == HOW_CALL else FOUND_REFERENCE

    def _php_function_use(self, target: Sym, ref: Reference, path: str) -> str | None:
        if ref.receiver and not ref.receiver.endswith("\\"):
            return None  # a method of the same name (`\Foo\helper()` is the namespaced function)
        exact = FOUND_CALL if ref.how == HOW_CALL else FOUND_REFERENCE
        if path == target.path or posixpath.dirname(path) == posixpath.dirname(target.path):
            return exact
        if self._php_imported_function(path, target):
            return exact
        others = [s for s in self.php_functions(target.name) if s.node_id != target.node_id]
        return exact if not others else FOUND_POSSIBLE

    def php_functions(self, name: str) -> list[Sym]:
        """The repository's PHP functions of a name that are no method, once per request."""
        if name not in self._php_functions:
            rows = definitions_named(self.conn, name, ["function"], [L.PHP])
            self._php_functions[name] = [Sym(*row) for row in rows]
        return self._php_functions[name]

    def _php_imported_function(self, path: str, target: Sym) -> bool:
        """Whether the file at ``path`` imports (``use function``) ``target``'s name from its file."""
        imported = self._php_imports(path).get(target.name)
        return imported is not None and imported[1] == target.path

    def php_alias_rows(self, target: Sym) -> list[tuple[str, str, int, str]]:
        """For a PHP class, the spelled uses of the names files import it under (``use Composer\\Script\\Event
        as ScriptEvent``), in those files, and of ``self`` and ``static`` in its own file (``new static()``)."""
        if target.language != L.PHP or target.symbol_kind not in CLASS_KINDS:
            return []
        rows = [row for word in sorted(_SELF - {"this"}) for row in self.spelled_uses(word, target.path)]
        for path in importing_paths(self.conn, target.path):
            for alias, (_module, resolved) in sorted(self._php_imports(path).items()):
                if resolved == target.path and alias != target.name:
                    rows.extend(self.spelled_uses(alias, path))
        return rows

    # --- classes ---------------------------------------------------------------------------------------

    def _php_receiver(self, receiver: str, path: str, owner_id: str) -> Sym | str | None:
        """The class a receiver holds, where the code states it (see the module docstring)."""
        if receiver == UNKNOWN_RECEIVER:
            return None
        parts = receiver.split(".")
        head = parts[0]
        if head in _SELF:
            held: Sym | str | None = self.enclosing_class(owner_id)
        elif head == "parent":
            here = self.enclosing_class(owner_id)
            held = self._php_parent(here) if here is not None else None
        elif head.startswith("$"):
            held = self._php_variable(owner_id, head[1:], path)
        else:
            return self.php_class(path, receiver)
        for name in parts[1:]:
            held = self._php_property(held, name) if isinstance(held, Sym) else None
        return held

    def _php_variable(self, owner_id: str, name: str, path: str) -> Sym | str | None:
        """The class a variable of the function ``owner_id`` holds: the one its declarations state
        (:func:`_declared`), or the one the method it is assigned from declares it returns
        (``$route = $this->createRoute(...)``), when they agree."""
        holder = self.sym(owner_id)
        if holder is None or holder.symbol_kind in CLASS_KINDS or (owner_id, name) in self._php_following:
            return None  # a class's own lines, or `$a = $a->next()`: read once
        text = self.text_of(holder)
        stated = {self._php_resolved(path, t) for t in _declared(text, name, holder.signature)}
        self._php_following.add((owner_id, name))
        try:
            for receiver, method in _ASSIGNED_CALL.findall(_assigned_calls(text, name)):
                cls = self._php_receiver(php_receiver(receiver), path, owner_id)
                stated.add(self._php_returns(cls, method) if isinstance(cls, Sym) else None)
        finally:
            self._php_following.discard((owner_id, name))
        return stated.pop() if len(stated) == 1 else None

    def _php_returns(self, cls: Sym, method: str) -> Sym | str | None:
        """The class the method ``method`` of ``cls`` (or of what it inherits) declares it returns."""
        supers, _known = self.php_supertypes(cls)
        for current in [cls, *supers]:
            for member_id in self.children(current.node_id).get(method, []):
                member = self.sym(member_id)
                declared = _RETURNS.search(member.signature) if member is not None else None
                if member is None or declared is None:
                    return None
                written = declared.group(1)
                if written.lower() in ("self", "static"):
                    return current
                return None if written.lower() in _SCALARS else self._php_resolved(member.path, written)
        return None

    def _php_property(self, cls: Sym, name: str) -> Sym | str | None:
        """The class a property of ``cls`` (or of the classes and traits it inherits) is declared with."""
        supers, _known = self.php_supertypes(cls)
        for current in [cls, *supers]:
            stated = {self._php_resolved(current.path, t) for t in _declared(self.text_of(current), name)}
            if stated:
                return stated.pop() if len(stated) == 1 else None
        return None

    def _php_resolved(self, path: str, written: str) -> Sym | str | None:
        return self.php_class(
            path, written.lstrip("\\").replace("\\", "."), qualified=written.startswith("\\")
        )

    def php_class(self, path: str, spelled: str, qualified: bool = False) -> Sym | str | None:
        """The class a name spelled in the PHP file at ``path`` names (``Foo``, ``App.Models.User``, dotted
        as receivers are spelled; ``qualified``: from the global namespace, ``\\App\\Models\\User``);
        :data:`OUTSIDE_PHP` for one the repository does not define."""
        parts = spelled.split(".")
        if len(parts) == 1 and not qualified:
            own = self._php_top_class(path, parts[0])
            if own is not None:
                return own
        imported = None if qualified else self._php_imports(path).get(parts[0])
        if imported is not None:
            module, resolved = imported
            if len(parts) > 1:  # `Command\ScriptAliasCommand` under `use Composer\Command;`
                return self._php_qualified([*module.split("\\"), *parts[1:]], path)
            stem = posixpath.splitext(posixpath.basename(resolved))[0] if resolved is not None else ""
            found = self._php_top_class(resolved, stem) if resolved is not None else None
            return found if found is not None else self._php_qualified(module.split("\\"), path)
        if len(parts) == 1 and not qualified:
            local = posixpath.join(posixpath.dirname(path), parts[0] + ".php")
            found = self._php_top_class(local, parts[0])
            return found if found is not None else OUTSIDE_PHP
        return self._php_qualified(parts, path)

    def _php_qualified(self, parts: list[str], path: str) -> Sym | str | None:
        """The class a fully qualified name names: the one defined in the file whose path ends in the
        longest trailing run of two or more of its parts; else, for a name of the importer's own vendor
        namespace (its first part), the one file named for the class that defines it (PSR-4 may map a
        namespace to several directories: laravel's ``Illuminate\\Support\\Arr`` is in ``Collections/``)."""
        for cut in range(len(parts) - 1):
            for candidate in self._php_ending("/".join(parts[cut:]) + ".php"):
                found = self._php_top_class(candidate, parts[-1])
                if found is not None:
                    return found
        if len(parts) > 1 and parts[0] == self._php_vendor(path):
            defining = [
                found
                for candidate in self._php_ending(parts[-1] + ".php")
                if (found := self._php_top_class(candidate, parts[-1])) is not None
            ]
            if len(defining) == 1:
                return defining[0]
        return OUTSIDE_PHP

    def _php_ending(self, suffix: str) -> list[str]:
        """The indexed paths ending in ``suffix`` (:func:`files_ending`), once per request."""
        if suffix not in self._php_endings:
            self._php_endings[suffix] = files_ending(self.conn, suffix)
        return self._php_endings[suffix]

    def _php_vendor(self, path: str) -> str:
        """The first part of the namespace the PHP file at ``path`` declares ('' for none)."""
        if path not in self._php_vendors:
            declared = _NAMESPACE.search("\n".join(self.lines(path)[:_HEAD_LINES]))
            self._php_vendors[path] = declared.group(1).lstrip("\\").split("\\")[0] if declared else ""
        return self._php_vendors[path]

    def _php_top_class(self, path: str, name: str) -> Sym | None:
        found = [s for s in self.defs(path).get(name, []) if s.symbol_kind in CLASS_KINDS]
        return found[0] if found else None

    def _php_imports(self, path: str) -> dict[str, tuple[str, str | None]]:
        """The names a PHP file's ``use`` imports bind (the alias, else the last part) to the name imported
        and the file it resolves to (None: outside the repository)."""
        if path not in self._php_names:
            lines = self.lines(path)
            names: dict[str, tuple[str, str | None]] = {}
            for module, resolved, line in file_imports(self.conn, path):
                if "/" in module or "." in module:
                    continue  # an include's path
                last = module.rsplit("\\", 1)[-1]
                statement = " ".join(lines[line - 1 : line + 20]).split(";", 1)[0]
                alias = re.search(rf"\b{re.escape(last)}\s+as\s+(\w+)", statement)
                names[alias.group(1) if alias else last] = (module, resolved)
            self._php_names[path] = names
        return self._php_names[path]

    # --- hierarchy -------------------------------------------------------------------------------------

    def _php_parent(self, cls: Sym) -> Sym | str | None:
        named = _HEADER.findall(cls.signature)
        extends = [n.strip() for kind, names in named if kind == "extends" for n in names.split(",")]
        return self._php_resolved(cls.path, extends[0]) if extends else None

    def php_supertypes(self, cls: Sym) -> tuple[list[Sym], bool]:
        """The classes, traits and interfaces ``cls`` inherits from, nearest first, and whether every one
        is known (none is a package's or PHP's own)."""
        if cls.node_id not in self._php_supers:
            self._php_supers[cls.node_id] = ([], True)  # a cycle reads as no more supertypes
            self._php_supers[cls.node_id] = self._read_php_supertypes(cls)
        return self._php_supers[cls.node_id]

    def _read_php_supertypes(self, cls: Sym) -> tuple[list[Sym], bool]:
        written = [n.strip() for _kind, names in _HEADER.findall(cls.signature) for n in names.split(",")]
        own = "\n".join(self.own_lines(cls, self.lines(cls.path)))
        written = [t.strip() for m in _TRAITS.finditer(own) for t in m.group(1).split(",")] + written
        out: list[Sym] = []
        known = True
        for name in filter(None, written):
            found = self._php_resolved(cls.path, name)
            if not isinstance(found, Sym):
                known = False
                continue
            inherited, inner_known = self.php_supertypes(found)
            known = known and inner_known
            for current in [found, *inherited]:
                if current not in out and len(out) < MAX_SUPERTYPES:
                    out.append(current)
        return out, known

    def php_dispatch(self, target: Sym, cls: Sym, name: str, exact: str, virtual: bool = True) -> str | None:
        """How calling ``name`` on ``cls`` depends on ``target``: exact when the member looked up is the
        target; else, for a call on an object (``virtual``: not ``parent::``, ``self::`` or a class's
        static call, which run the member looked up and no other), possible when the target overrides
        that member in a subclass of ``cls`` or is the member it implements, or when ``cls`` inherits from
        a class not known here and defines no such member; else None."""
        supers, known = self.php_supertypes(cls)
        for current in [cls, *supers]:
            found = self.children(current.node_id).get(name)
            if found:
                if target.node_id in found:
                    return exact
                break
        else:
            if not known and virtual:
                return FOUND_POSSIBLE
        owner = self.sym(target.parent_id) if target.parent_id and virtual else None
        if owner is None or owner.symbol_kind not in CLASS_KINDS:
            return None
        if cls in self.php_supertypes(owner)[0] or owner in supers:
            return FOUND_POSSIBLE  # the target overrides the member called, or the member implements it
        return None
