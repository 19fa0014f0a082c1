"""Who-uses in Java: a call resolves through the class the code states for its receiver, as the compiler
resolves it by the receiver's static type. A receiver is a parameter, local or field declared with its class
(:func:`~prooftext.api.who_uses_java_types.declared_names`), ``this``, ``super``, ``Outer.this``, a class named
for a static call (with its package or without), or a chain of calls followed through the classes their
methods declare they return; a bare call is the enclosing classes' own or inherited method, or a static
import's. A class name is looked up as javac does: the file's own classes, its single-type imports, its
package (in any source root), its on-demand imports (``a.b.*``) and ``java.lang``. A constructor is used by
``new`` of its class, ``this(...)`` and ``super(...)``, not by a read of the class's name. Of overloads, the
number of arguments tells them apart; when it cannot, each is a possible callee."""

from __future__ import annotations

import posixpath
import re
import sqlite3
from collections.abc import Iterator

from prooftext.api.who_uses_java_types import (
    JAVA_LANG,
    Arguments,
    Step,
    accepts,
    agreed,
    arguments_at,
    call_arguments,
    chained_receiver,
    construction_arguments,
    declared_names,
    enum_constants,
    is_chain,
    parameter_types,
    return_type,
    supertypes,
    without_comments,
)
from prooftext.api.who_uses_model import (
    CLASS_KINDS,
    FOUND_CALL,
    FOUND_POSSIBLE,
    SELF_NAMES,
    Found,
    Sym,
    WhoUsesStore,
)
from prooftext.graph import languages as L
from prooftext.graph.model import HOW_CALL, UNKNOWN_RECEIVER, Reference
from prooftext.store.risk_queries import file_imports, indexed_paths

MAX_SUPERTYPES = 16
"""Classes and interfaces followed up one hierarchy: deeper ones are taken as not found here."""
_PACKAGE = re.compile(r"\s*package\s+([\w$.]+)\s*;")
_TYPE_START = re.compile(
    r"\s*(?:import|(?:public|final|abstract|sealed)\s|class\s|interface\s|enum\s|record\s|@)"
)
_STATIC = re.compile(r"(?<![\w$])static\s")
OUTSIDE = "outside"
"""A class the repository does not define (the JDK's, a library's): no repository method is its member."""


class JavaWhoUses(WhoUsesStore):
    """Java's classification, over the store reads of :class:`WhoUsesStore`, cached for one request."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._java_paths: dict[str, list[str]] | None = None
        self._java_classes: dict[tuple[str, str], Sym | str | None] = {}
        self._java_supers: dict[str, tuple[list[Sym], bool]] = {}
        self._java_texts: dict[tuple[str, bool], str] = {}
        self._java_imported: dict[str, list[str]] = {}
        self._java_declared: dict[tuple[str, bool], dict[str, list[str | None]]] = {}
        self._java_code: dict[str, list[str]] = {}

    def _classify_java(self, target: Sym, ref: Reference, path: str, owner_id: str, exact: str) -> str | None:
        """How a reference in a Java file depends on the Java method or constructor ``target``: exact where
        the class it is looked up in has the target as its own or inherited member, possible where the
        target overrides that member in a subclass or the class cannot be told, else None. Of overloads,
        one is exact only when a call this reference spells passes arguments no other overload may take
        (:meth:`_java_overload`)."""
        how = self._java_found(target, ref, path, owner_id, exact)
        holder = self.sym(owner_id)
        if how != exact or ref.receiver == UNKNOWN_RECEIVER or holder is None:
            return how  # a chain's calls are told apart one by one (:meth:`_java_chains`)
        text = self._java_caller_text(holder)
        owner_class = self.sym(target.parent_id) if target.parent_id else None
        if owner_class is not None and target.name == owner_class.name:  # a constructor
            calls = construction_arguments(text, ref.name)
        else:
            calls = call_arguments(text, ref.name, ref.receiver)
        return self._java_overload(target, calls, exact, (path, owner_id))

    def _java_overload(
        self, target: Sym, calls: set[Arguments], exact: str, where: tuple[str, str]
    ) -> str | None:
        """Exact when one of ``calls`` (the arguments of the calls found in the definition ``where`` names:
        its file and node id) may invoke ``target`` and no other overload of its name (:func:`accepts`, the
        arguments typed as receivers are); possible when another may too, since which one runs depends on
        types not read here; None when none of them may invoke it."""
        parameters = parameter_types(target.signature, target.name)
        if not self._java_overloaded(target) or parameters is None or not calls:
            return exact
        rivals = [
            parameter_types(other.signature, other.name)
            for other_id in self.children(target.parent_id or "").get(target.name, [])
            if other_id != target.node_id and (other := self.sym(other_id)) is not None
        ]
        best: str | None = None

        def typed(argument: str) -> frozenset[str] | None:
            return self._java_argument_names(argument, *where)

        for arguments in sorted(calls):
            mine = accepts(parameters, arguments, typed)
            theirs = any(rival is None or accepts(rival, arguments, typed) for rival in rivals)
            if not mine and not theirs:  # the arguments' classes fit no overload: one was read wrong
                mine = accepts(parameters, arguments)
                theirs = any(rival is None or accepts(rival, arguments) for rival in rivals)
            if mine and not theirs:
                return exact
            best = best or (FOUND_POSSIBLE if mine else None)
        return best

    def _java_argument_names(self, argument: str, path: str, owner_id: str) -> frozenset[str] | None:
        """The simple names of an argument's class and its supertypes, when its class is read as a
        receiver's would be (a variable, a field, ``new Foo(…)``, a chain of declared results) and every
        supertype is known; None otherwise."""
        if not is_chain(argument):
            return None  # `"id " + id`, `(Type) cls`, `items[0]`: not read
        steps = chained_receiver(argument + ".", len(argument))  # a plain name is a chain of one step
        held = self._java_steps(steps, path, owner_id) if steps else None
        if not isinstance(held, Sym):
            return None
        supers, known = self.java_supertypes(held)
        if not known:
            return None
        outside = [spelled for cls in [held, *supers] for spelled in supertypes(self._java_header(cls))]
        return frozenset([held.name, *(cls.name for cls in supers), *outside])

    def _java_constructs(self, owner_id: str, name: str) -> bool:
        """Whether the definition ``owner_id`` holds ``new name(…)`` (qualified or generic too)."""
        holder = self.sym(owner_id)
        text = self._java_caller_text(holder) if holder else ""
        return (
            re.search(rf"(?<![\w$])new\s+(?:[\w$]+\s*\.\s*)*{re.escape(name)}\s*(?:<[^()]*>)?\s*\(", text)
            is not None
        )

    def _java_overloaded(self, target: Sym) -> bool:
        return len(self.children(target.parent_id).get(target.name, [])) > 1 if target.parent_id else False

    def _java_found(self, target: Sym, ref: Reference, path: str, owner_id: str, exact: str) -> str | None:
        """:meth:`_classify_java` before overloads are told apart."""
        owner_class = self.sym(target.parent_id) if target.parent_id else None
        if owner_class is None or owner_class.symbol_kind not in CLASS_KINDS:
            return FOUND_POSSIBLE
        if target.name == owner_class.name:  # a constructor: `new Foo(...)`, `new Outer.Foo(...)`
            if ref.how != HOW_CALL:
                return None  # a read of the class's name (a type) runs no constructor
            if not self._java_constructs(owner_id, ref.name):
                return None  # `Outer` of `new Outer.Inner()`, `Foo` of `Foo.class.getName()`
            spelled = f"{ref.receiver}.{ref.name}" if ref.receiver else ref.name
            cls = self._java_named(path, spelled)
            if cls is None:
                return FOUND_POSSIBLE
            return exact if isinstance(cls, Sym) and cls.node_id == owner_class.node_id else None
        if not ref.receiver:
            return self._java_bare(target, ref, path, owner_id, exact)
        if ref.receiver == UNKNOWN_RECEIVER:
            return self._java_chains(target, ref.name, owner_id, exact)
        cls = self._java_receiver(ref.receiver, path, owner_id)
        if cls is None:
            return FOUND_POSSIBLE
        if isinstance(cls, str):  # a library's class: the call may dispatch to a class implementing it here
            return FOUND_POSSIBLE if self._java_implements_outside(target) else None
        return self.java_dispatch(target, cls, ref.name, exact)

    def _java_implements_outside(self, target: Sym) -> bool:
        """Whether the instance method ``target`` belongs to a class that extends or implements a library's
        class or interface (other than ``Object``), whose calls may dispatch to it."""
        owner = self.sym(target.parent_id) if target.parent_id else None
        if owner is None or _STATIC.search(target.signature):
            return False
        supers, _known = self.java_supertypes(owner)
        return any(
            self._java_named(cls.path, spelled) == OUTSIDE
            for cls in [owner, *supers]
            for spelled in supertypes(self._java_header(cls))
            if spelled != "Object"
        )

    def java_constructor_calls(self, target: Sym) -> list[Found]:
        """For a Java constructor, the constructors that call it explicitly: ``this(...)`` in its own
        class, ``super(...)`` in a class extending it."""
        cls = self.sym(target.parent_id) if target.language == L.JAVA and target.parent_id else None
        if cls is None or cls.symbol_kind not in CLASS_KINDS or target.name != cls.name:
            return []
        calling: list[tuple[Sym, str]] = [(cls, "this")]
        for owner_id, spelled, _line, path in self.spelled_uses(cls.name):
            sub = (
                self.sym(owner_id) if path.endswith(".java") and spelled.startswith(cls.name + " ") else None
            )
            if sub is None or sub.symbol_kind not in CLASS_KINDS or (sub, "super") in calling:
                continue
            named = supertypes(self._java_header(sub))
            base = self.java_class(sub.path, named[0]) if named else None
            if base is not None and base.node_id == cls.node_id:
                calling.append((sub, "super"))
        found: list[Found] = []
        for holder, word in calling:
            for member_id in self.children(holder.node_id).get(holder.name, []):
                member = self.sym(member_id)
                node = self.node(member) if member is not None and member_id != target.node_id else None
                if node is None:
                    continue
                lines = self.lines(holder.path)[node.start_line - 1 : node.end_line]
                at = next((i for i, line in enumerate(lines) if re.match(rf"\s*{word}\s*\(", line)), None)
                if at is not None and self._java_takes(target, call_arguments("\n".join(lines[at:]), word)):
                    found.append(Found(node, FOUND_CALL, node.start_line + at, f"{cls.name} call"))
        return found

    def _java_takes(self, target: Sym, calls: set[Arguments]) -> bool:
        """Whether one of ``calls`` may invoke ``target``, or it cannot be told."""
        parameters = parameter_types(target.signature, target.name)
        if parameters is None or not calls or not self._java_overloaded(target):
            return True
        return any(accepts(parameters, arguments) for arguments in calls)

    def _java_chains(self, target: Sym, name: str, owner_id: str, exact: str) -> str | None:
        """``….name(…)`` on a receiver the index could not spell (``CodeBlock.builder().add(x).name()``): each
        such call in the definition ``owner_id`` holds, its receiver's class followed through the classes the
        called methods state they return; the best finding of them."""
        holder = self.sym(owner_id)
        if holder is None:
            return FOUND_POSSIBLE
        text = self._java_caller_text(holder)
        best: str | None = None
        for found in re.finditer(rf"\.\s*(?:<[^<>()]*>\s*)?{re.escape(name)}\s*\(", text):
            steps = chained_receiver(text, found.start())
            cls = self._java_steps(steps, holder.path, owner_id) if steps else None
            if cls is None:
                how: str | None = FOUND_POSSIBLE
            elif isinstance(cls, Sym):
                how = self.java_dispatch(target, cls, name, exact)
            else:
                how = FOUND_POSSIBLE if self._java_implements_outside(target) else None
            if how == exact:
                listed = arguments_at(text, found.end())
                calls = {listed} if listed is not None else set()
                how = self._java_overload(target, calls, exact, (holder.path, owner_id))
            if how == exact:
                return how
            best = best or how
        return best

    def _java_steps(self, steps: list[Step], path: str, owner_id: str) -> Sym | str | None:
        """The class a receiver chain (:func:`chained_receiver`) evaluates to, or :data:`OUTSIDE`, or None."""
        kind, value = steps[0]
        held: Sym | str | None
        if kind == "name":
            held = self._java_receiver(value, path, owner_id)
        elif kind == "new":
            held = self._java_named(path, value)
        else:  # a call without receiver: a method of an enclosing class, or a static import's
            try:
                owner = self._java_bare_owner(path, owner_id, value)
            except LookupError:
                owner = None
            held = self._java_returns(owner, value) if owner is not None else None
        for _kind, method in steps[1:]:
            held = self._java_returns(held, method) if isinstance(held, Sym) else None
        return held

    def _java_returns(self, cls: Sym, method: str) -> Sym | str | None:
        """The class every overload of ``method`` looked up on ``cls`` states it returns, or None."""
        returned: set[str] = set()
        held: Sym | str | None = None
        for member_id in self.java_lookup(cls, method)[0]:
            member = self.sym(member_id)
            spelled = return_type(member.signature, method) if member is not None else None
            held = self._java_named(member.path, spelled) if member is not None and spelled else None
            if held is None:
                return None
            returned.add(held.node_id if isinstance(held, Sym) else held)
        return held if len(returned) == 1 else None

    def _java_bare(self, target: Sym, ref: Reference, path: str, owner_id: str, exact: str) -> str | None:
        """A call without receiver: the method of the innermost enclosing class that has one so named (its
        own or inherited), else a static import's; possible where a class on the way is not known."""
        try:
            cls = self._java_bare_owner(path, owner_id, ref.name)
        except LookupError:
            return FOUND_POSSIBLE
        return self.java_dispatch(target, cls, ref.name, exact) if cls is not None else None

    def _java_enclosing(self, node_id: str) -> Iterator[Sym]:
        """The classes around a definition, innermost first."""
        current = self.enclosing_class(node_id)
        while current is not None:
            yield current
            current = self.enclosing_class(current.parent_id) if current.parent_id else None

    def _java_bare_owner(self, path: str, owner_id: str, name: str) -> Sym | None:
        """The class a call of ``name`` without receiver looks its method up in; LookupError when an
        enclosing class's hierarchy leaves what is known before one is found."""
        for current in self._java_enclosing(owner_id):
            found, known = self.java_lookup(current, name)
            if found:
                return current
            if not known:
                raise LookupError(name)
        for module in self.java_imports(path):  # `import static a.b.Util.name;` or `a.b.Util.*`
            held, _dot, last = module.rpartition(".")
            cls = self._java_class_at(held) if last in (name, "*") and held else None
            if cls is not None and self.children(cls.node_id).get(name):
                return cls
        return None

    def java_imports(self, path: str) -> list[str]:
        """What the Java file at ``path`` imports, as written (``a.b.Foo``, ``a.b.*``, ``a.b.Util.stat``)."""
        if path not in self._java_imported:
            self._java_imported[path] = [module for module, _resolved, _line in file_imports(self.conn, path)]
        return self._java_imported[path]

    def _java_receiver(self, receiver: str, path: str, owner_id: str) -> Sym | str | None:
        """The class a receiver's static type names: a declared variable (a local or parameter of the
        function holding the reference, else a field of an enclosing class), ``this``, ``super``, a field
        read through ``this``, or a class named for a static call. :data:`OUTSIDE` for a class the
        repository does not define, None where it is not known."""
        parts = receiver.split(".")
        here = self.enclosing_class(owner_id)
        if parts[-1] == "class":
            return OUTSIDE  # `Foo.class` is a java.lang.Class
        if len(parts) == 2 and parts[1] == "this":  # `Outer.this`: the enclosing class so named
            return next((cls for cls in self._java_enclosing(owner_id) if cls.name == parts[0]), None)
        if parts[0] in SELF_NAMES and here is not None:
            return self._java_fields(here, parts[1:])
        if parts[0] == "super" and len(parts) == 1 and here is not None:
            bases, _known = self.java_supertypes(here)
            return bases[0] if bases else None
        if len(parts) != 1:
            for cut in range(len(parts), 1, -1) if parts[0][:1].islower() else ():
                qualified = self._java_class_at(".".join(parts[:cut]))
                if qualified is not None:  # `org.jsoup.Jsoup.parse()`: a class named with its package
                    return self._java_fields(qualified, parts[cut:])
            first = self._java_receiver(parts[0], path, owner_id)  # `builder.code`: a field of a variable
            return self._java_fields(first, parts[1:]) if isinstance(first, Sym) else None
        name = parts[0]
        holder = self.sym(owner_id)
        if holder is not None and holder.symbol_kind not in CLASS_KINDS and holder.parent_id:
            stated = self.java_declarations(holder, name)
            if stated:  # a local or parameter; None when it states no class this reads (`var x = make()`)
                return self._java_stated(path, stated)
        for current in self._java_enclosing(owner_id):
            field = self._java_field(current, name)
            if field is not None:  # a field of an enclosing class, its own or inherited
                return self._java_stated(field[0].path, field[1])
        if name[:1].isupper():
            return self._java_named(path, name)  # `Util.stat()`
        return None

    def _java_named(self, path: str, spelled: str) -> Sym | str | None:
        """The class a type spelled in the file at ``path`` names (``Foo``, ``Outer.Inner``, ``a.b.Foo``)."""
        first, _dot, rest = spelled.partition(".")
        if not first[:1].isupper():
            return self._java_class_at(spelled) or OUTSIDE  # a package-qualified name
        cls = self.java_class(path, first)
        if cls is not None:
            return self._top_class(cls.path, f"{cls.qualname}.{rest}") if rest else cls
        return OUTSIDE if first in JAVA_LANG or self._java_imported_outside(path, first) else None

    def java_declarations(self, holder: Sym, name: str, own_lines: bool = False) -> list[str | None]:
        """:func:`declared_names`' ``name`` in a definition's text (a class's own lines with ``own_lines``)."""
        key = (holder.node_id, own_lines)
        if key not in self._java_declared:
            self._java_declared[key] = declared_names(self._java_text(holder, own_lines))
        return self._java_declared[key].get(name, [])

    def _java_stated(self, path: str, stated: list[str | None]) -> Sym | str | None:
        name = agreed(stated)
        return self._java_named(path, name) if name is not None else None

    def _java_fields(self, cls: Sym, names: list[str]) -> Sym | str | None:
        """The class of the field ``names[0]`` of ``cls``, of its field ``names[1]``, and so on."""
        held: Sym | str | None = cls
        for name in names:
            if not isinstance(held, Sym):
                return None
            field = self._java_field(held, name)
            held = self._java_stated(field[0].path, field[1]) if field is not None else None
        return held

    def _java_field(self, cls: Sym, name: str) -> tuple[Sym, list[str | None]] | None:
        """The class declaring the field ``name`` of ``cls`` (``cls`` or the nearest supertype declaring
        it) and what its declarations state; None when none of them declares it."""
        supers, _known = self.java_supertypes(cls)
        for current in [cls, *supers]:
            stated = self.java_declarations(current, name, own_lines=True)
            if stated:
                return current, stated
        if cls.symbol_kind == "enum" and name in enum_constants(self._java_text(cls, own_lines=True)):
            return cls, [cls.qualname]  # `DateType.DATE`: a constant of the enum is the enum's instance
        return None

    def _java_caller_text(self, holder: Sym) -> str:
        """The code of the definition holding a reference: a method's lines, or a class's own lines (its
        fields' initializers, without its members)."""
        return self._java_text(holder, own_lines=holder.symbol_kind in CLASS_KINDS)

    def _java_text(self, holder: Sym, own_lines: bool = False) -> str:
        """A definition's lines; with ``own_lines``, a class's without the lines of the methods and classes
        it holds (its fields' declarations)."""
        key = (holder.node_id, own_lines)
        if key not in self._java_texts:
            self._java_texts[key] = self._read_java_text(holder, own_lines)
        return self._java_texts[key]

    def _read_java_text(self, holder: Sym, own_lines: bool) -> str:
        code = self._java_code_lines(holder.path)
        if own_lines:
            return "\n".join(self.own_lines(holder, code))
        node = self.node(holder)
        return "\n".join(code[node.start_line - 1 : node.end_line]) if node is not None else ""

    def _java_code_lines(self, path: str) -> list[str]:
        """The lines of a Java file with its comments blanked (:func:`without_comments`), once per file."""
        if path not in self._java_code:
            self._java_code[path] = without_comments("\n".join(self.lines(path))).split("\n")
        return self._java_code[path]

    def java_dispatch(self, target: Sym, cls: Sym, name: str, exact: str) -> str | None:
        """How calling ``name`` on a value whose static type is ``cls`` depends on ``target``: exact when the
        member looked up is the target, possible when the target overrides it in a subclass of ``cls`` or
        the lookup reaches a class not found here, else None."""
        found, known = self.java_lookup(cls, name)
        if target.node_id in found:
            return exact
        owner = self.sym(target.parent_id) if target.parent_id else None
        below, below_known = self.java_supertypes(owner) if owner is not None else ([], False)
        static = _STATIC.search(target.signature) is not None  # a static method hides, it does not override
        if not static and (not below_known or cls.node_id in {b.node_id for b in below}):
            return FOUND_POSSIBLE  # an override the call may dispatch to
        return None if found or known else FOUND_POSSIBLE

    def java_lookup(self, cls: Sym, name: str) -> tuple[list[str], bool]:
        """The members named ``name`` of ``cls`` or of the nearest supertype that has some, and whether
        every supertype is known (the repository's, the JDK's or an imported library's: a member none of
        the repository's classes has is then a library's)."""
        supers, known = self.java_supertypes(cls)
        for current in [cls, *supers]:
            found = self.children(current.node_id).get(name)
            if found:
                return list(found), True
        return [], known

    def java_supertypes(self, cls: Sym) -> tuple[list[Sym], bool]:
        """The repository's classes and interfaces ``cls`` extends or implements, nearest first (a superclass
        before the interfaces), and whether every supertype is known: the repository's, or a class of
        ``java.lang`` or one the file imports from outside the repository."""
        if cls.node_id in self._java_supers:
            return self._java_supers[cls.node_id]
        self._java_supers[cls.node_id] = ([], False)  # a cycle of bad code ends here
        order: list[Sym] = []
        known = True
        for spelled in supertypes(self._java_header(cls)):
            base = self._java_named(cls.path, spelled)
            if isinstance(base, Sym) and base.node_id != cls.node_id and len(order) < MAX_SUPERTYPES:
                further, further_known = self.java_supertypes(base)
                known = known and further_known
                order.extend(b for b in [base, *further] if b not in order)
            else:
                known = known and base == OUTSIDE
        self._java_supers[cls.node_id] = (order, known)
        return order, known

    def _java_header(self, cls: Sym) -> str:
        """A class's declaration up to its body's opening brace, without the comments above or in it (a
        Javadoc's ``{@link Foo}``)."""
        node = self.node(cls)
        if node is None:
            return cls.signature
        text = "\n".join(self._java_code_lines(cls.path)[node.start_line - 1 : node.end_line])
        return text.split("{", 1)[0]

    def java_class(self, path: str, name: str) -> Sym | None:
        """The repository class ``name`` means in the Java file at ``path``, or None."""
        key = (path, name)
        if key not in self._java_classes:
            self._java_classes[key] = self._find_java_class(path, name)
        found = self._java_classes[key]
        return found if isinstance(found, Sym) else None

    def _find_java_class(self, path: str, name: str) -> Sym | None:
        own = [d for found in self.defs(path).values() for d in found if d.name == name]
        own = [d for d in own if d.symbol_kind in CLASS_KINDS]
        if own:
            return min(own, key=lambda d: d.qualname.count("."))
        on_demand: list[str] = []
        for module in self.java_imports(path):
            if module.endswith(".*"):
                on_demand.append(module[:-2])
            elif module.rsplit(".", 1)[-1] == name:
                return self._java_class_at(module)
        own_package = self.java_package(path)
        same = posixpath.join(posixpath.dirname(path), name + ".java")
        if same in self._java_path_index().get(name + ".java", []):
            return self._top_class(same, name)
        for package in [*([own_package] if own_package else []), *on_demand]:  # a package spans source roots
            found = self._java_class_at(package + "." + name)
            if found is not None:
                return found
        return None

    def java_package(self, path: str) -> str:
        """The package a Java file declares (``""`` for the unnamed package)."""
        for line in self.lines(path):
            found = _PACKAGE.match(line)
            if found:
                return found.group(1)
            if _TYPE_START.match(line):
                break
        return ""

    def _java_imported_outside(self, path: str, name: str) -> bool:
        return any(m.rsplit(".", 1)[-1] == name for m in self.java_imports(path))

    def _java_class_at(self, qualified: str) -> Sym | None:
        """The class a qualified name (``a.b.Foo``, ``a.b.Outer.Inner``) means, where the repository holds
        its file (``…/a/b/Foo.java``, ``…/a/b/Outer.java``)."""
        parts = qualified.split(".")
        for cut in range(len(parts), 0, -1):
            file = self._java_file_of(".".join(parts[:cut]))
            if file is not None:
                inner = parts[cut - 1 :]
                return self._top_class(file, ".".join(inner))
        return None

    def _java_file_of(self, qualified: str) -> str | None:
        """The indexed file of a top-level class's qualified name, by its package directories."""
        suffix = qualified.replace(".", "/") + ".java"
        found = [
            p
            for p in self._java_path_index().get(posixpath.basename(suffix), [])
            if p == suffix or p.endswith("/" + suffix)
        ]
        return found[0] if len(found) == 1 else None

    def _top_class(self, path: str, qualname: str) -> Sym | None:
        found = [d for d in self.defs(path).get(qualname, []) if d.symbol_kind in CLASS_KINDS]
        return found[0] if found else None

    def _java_path_index(self) -> dict[str, list[str]]:
        """Indexed Java files by base name."""
        if self._java_paths is None:
            self._java_paths = {}
            for path in indexed_paths(self.conn):
                if path.endswith(".java"):
                    self._java_paths.setdefault(posixpath.basename(path), []).append(path)
        return self._java_paths
