"""Who-uses in C++: a member function is reached through a class. A call without a receiver, or on
``this``, inside a member function (or inside a test that a fixture macro defines, ``TEST_F(Fixture,
Name)``) names the member of that class, or of its nearest base defining the name; a call on a variable
names the member of the class its declaration states (a parameter, a local, a field of the caller's class
or of a base: ``Builder builder_;``, ``Node* node``, ``std::unique_ptr<Plan> plan``; a chain of fields),
and nothing of the tree's where the declared type is no class of the tree (``std::vector``, ``string``);
where the type is not stated (``auto``, an expression's result) it is possible. A qualified call
(``Builder::AddTarget(...)``) names the class's member, and a call of a class's name (``Plan(...)``, ``new
Plan(...)``, a base's initializer) its constructor. Overloads are told apart as the compiler would where
the call shows it: by the number of arguments, by the types that literals and the declarations of
variables state, the exact match preferred; a call of a method a subclass overrides may dispatch to the
override, so the override is a possible callee. A free C++ function is called by linkage, as a C function
is (:mod:`prooftext.api.who_uses_c`), unless the caller's class declares a member of the name."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

import prooftext.graph.languages as L
from prooftext.api.who_uses_c import C_FAMILY, CWhoUses
from prooftext.api.who_uses_model import FOUND_POSSIBLE, SELF_NAMES, Sym
from prooftext.graph.model import HOW_CALL, Reference
from prooftext.store.risk_queries import definitions_named

CLASS_KINDS_CPP = ("class", "struct")
MAX_ALIASES = 4
"""Aliases followed from one declared type to a class (``using A = B;`` chains)."""
MAX_BASE_DEPTH = 12
"""Bases followed from one class (a deeper or cyclic hierarchy is cut there)."""
_KEYWORDS = frozenset(
    {"return", "delete", "new", "case", "goto", "else", "throw", "sizeof", "typedef", "using", "namespace"}
    | {"operator", "co_return", "co_yield", "public", "private", "protected", "friend", "template"}
    | {"typename", "virtual", "explicit", "inline", "struct", "class", "union", "enum"}
)
"""Words that stand before a name without being its type (``return node;``, ``struct Plan {``)."""
_OWNING = frozenset({"unique_ptr", "shared_ptr", "weak_ptr", "auto_ptr", "optional", "reference_wrapper"})
"""Templates whose first argument is the class a receiver of their type reaches (``plan->Reset()``)."""
_FIXTURE_MACRO = re.compile(r"^(?:[A-Z][A-Z0-9_]*_[FP]|TYPED_TEST[A-Z_]*)$")
"""A test that a fixture macro defines (``TEST_F``, ``TEST_P``, ``TYPED_TEST``, ``BENCHMARK_F``): its first
argument names its fixture class; a plain ``TEST(Suite, Name)`` names a suite, not a class."""
_BASES = re.compile(r"(?<!:):(?!:)(?P<bases>[^{]*)")
_ACCESS = re.compile(r"\b(?:public|protected|private|virtual)\b")
_TEMPLATE_ARGUMENTS = re.compile(r"<.*>", re.DOTALL)
_PARAMETER_TYPE = re.compile(r"\s*(?:const\s+|struct\s+|class\s+)*(?:\w+::)*(\w+)")
"""A parameter's type's simple name (``Node`` for ``const ns::Node* target``)."""
_WORD = re.compile(r"[A-Za-z_]\w*")
_CLASS_HEAD = re.compile(r"\s*(?:class|struct|union)\s[^;]*[:{]\s*$")
_NUMBER = re.compile(r"-?\d+(?P<fraction>\.\d*(?:[eE][-+]?\d+)?[fF]?)?[uUlL]*")
MAX_CALL_LINES = 400
"""Lines of a caller read for the calls of one spelled reference (the index keeps its first line only)."""
_RETURNED = "returned_value"
"""A name standing for a function's result, so that its return type reads as a declaration's."""
UNKNOWN_CLASS = ""
"""A receiver whose class is not stated where who-uses reads (``auto``, an expression)."""


@dataclass(frozen=True)
class _Site:
    """Where a reference stands: its file and line, the node holding it (its id, and its symbol when it is
    one), that node's class and the reference's receiver."""

    path: str
    line: int
    owner_id: str
    owner: Sym | None
    caller_class: str | None
    receiver: str


def is_cpp_target(target: Sym) -> bool:
    """Whether who-uses reads ``target`` as C++: a member function of a C or C++ file, or a free function
    of a C++ file."""
    if target.language not in C_FAMILY:
        return False
    return target.symbol_kind == "method" or (target.language == L.CPP and target.symbol_kind == "function")


def class_name(member: Sym) -> str | None:
    """The simple name of the class a member function belongs to (``Builder`` for ``Builder::Build``
    defined outside its class, ``TopoSort`` for a method of a class defined in a function)."""
    parts = member.qualname.split(".")
    return parts[-2] if member.symbol_kind == "method" and len(parts) > 1 else None


class CppWhoUses(CWhoUses):
    """C++'s classification, over C's, cached for one request."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self._cpp_class_rows: dict[str, list[Sym]] = {}
        self._cpp_method_rows: dict[str, list[Sym]] = {}
        self._cpp_alias_rows: dict[str, list[Sym]] = {}
        self._cpp_namespace_rows: dict[str, bool] = {}
        self._cpp_types: dict[tuple[str, str], str | None] = {}
        self._cpp_bases: dict[str, list[str]] = {}

    def _classify_cpp(
        self, target: Sym, ref: Reference, place: tuple[str, str, int], exact: str
    ) -> str | None:
        """How a reference in the C or C++ file ``path`` inside ``owner_id`` at ``line`` (``place``)
        depends on the C++ definition ``target`` (see the module docstring)."""
        path, owner_id, line = place
        owner = self.sym(owner_id)
        if owner is not None and ref.how != HOW_CALL and _declares(owner, ref):
            return None  # `Builder::AddTarget` in the definition's own name, a constructor's declaration
        caller_class = self._cpp_caller_class(owner)
        site = _Site(path, line, owner_id, owner, caller_class, ref.receiver)
        if target.symbol_kind != "method":
            return self._cpp_free_function(target, ref, site, exact)
        if ref.name == target.name == class_name(target):
            return self._cpp_construction(target, ref, site, exact)
        if not ref.receiver or ref.receiver in SELF_NAMES:
            if caller_class is None:
                return None  # a free function cannot call a member without an object
            return self._cpp_through_class(target, caller_class, ref.name, site, exact)
        receiver_class = self._cpp_receiver_class(owner, caller_class, ref.receiver)
        if receiver_class == UNKNOWN_CLASS:
            return FOUND_POSSIBLE
        if receiver_class is None:
            return None  # a namespace's function, or a member of a class outside the tree
        return self._cpp_through_class(target, receiver_class, ref.name, site, exact)

    def _cpp_free_function(self, target: Sym, ref: Reference, site: _Site, exact: str) -> str | None:
        """How a reference at ``site`` depends on the free function ``target``: by linkage, as in C, and
        among its overloads in its file by the arguments of the call."""
        if site.caller_class and not ref.receiver and self._cpp_declares(site.caller_class, ref.name):
            return None  # the caller's class has a member of the name: it hides the free function
        if ref.receiver and not self._cpp_namespaces(ref.receiver):
            return None  # `x.f()`, `Class::f()`, `std::f()`: a member, or another library's function
        how = self._c_linkage(target, site.path, site.owner_id, exact)  # a call, or a function passed on
        named = self._c_named(target.name)
        overloads = [f for f in named if f.path == target.path]
        if how is None or len(overloads) < 2 or ref.how != HOW_CALL:
            return how
        if how == FOUND_POSSIBLE and len(overloads) < len(named):
            return how  # another file's definition of the name is as near: the build picks one
        return self._cpp_overload(target, overloads, target.name, site, exact)

    def _cpp_construction(self, target: Sym, ref: Reference, site: _Site, exact: str) -> str | None:
        """How naming the class of the constructor ``target`` depends on it: a call (``Plan(...)``,
        ``new Plan(...)``, a base's initializer) reaches the constructor its arguments fit; the class's
        name read as a type (``Plan* plan``, a base, a fixture) is a use of the class, not of this one of
        its constructors."""
        if ref.how != HOW_CALL:
            return None
        if ref.receiver and self._cpp_declared_in(site.owner, site.caller_class, ref.receiver) is not None:
            return None  # `x.Plan()`: a member of x's class
        cls = class_name(target) or ""
        found = [m for m in self._cpp_methods(target.name) if class_name(m) == cls]
        return self._cpp_overload(target, found, target.name, site, exact)

    def _cpp_through_class(self, target: Sym, cls: str, name: str, site: _Site, exact: str) -> str | None:
        """How calling ``name`` on an object of the class named ``cls`` (at ``site``) depends on ``target``:
        the member the class or its nearest base defines (:meth:`_cpp_overload`); possible when ``target``
        overrides it in a subclass."""
        found = self._cpp_lookup(cls, name)
        target_class = class_name(target)
        if target not in found:
            overrides = target_class is not None and self._cpp_derives(target_class, cls)
            return FOUND_POSSIBLE if overrides and target_class != cls else None
        return self._cpp_overload(target, found, name, site, exact)

    def _cpp_overload(self, target: Sym, found: list[Sym], name: str, site: _Site, exact: str) -> str | None:
        """Whether a call of ``name`` at ``site`` reaches ``target`` among the overloads ``found``: exact
        when a call there fits it alone (:func:`_takes`), possible when it fits others too, None when
        every call there fits another one only; when none fits any, its defaults are in a header."""
        node = self.node(site.owner) if site.owner is not None else None
        end = node.end_line if node is not None else site.line
        text = "\n".join(self.lines(site.path)[site.line - 1 : min(end, site.line + MAX_CALL_LINES)])
        calls = _call_arguments(text, name, site.receiver) or [None]
        bodies = {f.node_id: self._cpp_body_of(f) for f in found}
        best: str | None = None
        for arguments in calls:
            kinds = None if arguments is None else [self._cpp_argument(a, site) for a in arguments]
            fitting = [
                f for f in found if kinds is None or _takes(f, kinds, self._cpp_fits, bodies[f.node_id])
            ] or found
            matching = [f for f in fitting if kinds is not None and _matches(f, kinds)]
            fitting = matching if len(matching) == 1 else fitting  # the overload no conversion is needed for
            if target in fitting and len(fitting) == 1:
                return exact
            if target in fitting:
                best = FOUND_POSSIBLE
        return best

    def _cpp_body_of(self, member: Sym) -> str:
        """The code of the class bodies a member defined outside its class is declared in (its defaults)."""
        if f"::{member.name}" not in member.signature:
            return ""
        return "\n".join(self._c_body(c.path, c.node_id) for c in self._cpp_classes(class_name(member) or ""))

    def _cpp_argument(self, argument: str, site: _Site) -> str | None:
        """The simple name of an argument's type, for telling overloads apart: a literal's (``char`` for a
        string), or the one a variable's declaration states; None when not known here."""
        literal = _literal_type(argument)
        if literal is not None:
            return literal
        word = argument.lstrip("&*")
        return self._cpp_declared(site.owner, site.caller_class, word) if _WORD.fullmatch(word) else None

    def _cpp_fits(self, argument: str, parameter: str) -> bool:
        """Whether an argument of the type named ``argument`` may be passed as ``parameter`` (its text): a
        class of the tree only as itself or a base; another type not as a pointer to a class of the tree,
        and as such a class by value only where one of its constructors takes one argument (``Slice(const
        char* s)``); any to a template's parameter."""
        declared = _PARAMETER_TYPE.match(parameter)
        wanted = declared.group(1) if declared is not None else ""
        if not wanted or len(wanted) == 1 or self._cpp_as_class(argument) == UNKNOWN_CLASS:
            return True
        if self._cpp_classes(argument):
            return self._cpp_derives(argument, wanted)
        if not self._cpp_classes(wanted):
            return True  # among built-in and library types, conversions are the compiler's to judge
        return "*" not in parameter and any(
            len(_parameters(c) or []) == 1 for c in self._cpp_methods(wanted) if class_name(c) == wanted
        )

    def _cpp_caller_class(self, owner: Sym | None) -> str | None:
        """The class whose members an unqualified call in ``owner`` reaches: a member function's class, a
        class's own, or the fixture a test macro names (``TEST_F(BuildTest, Name)``)."""
        if owner is None:
            return None
        if owner.symbol_kind in CLASS_KINDS_CPP:
            return owner.name
        if owner.symbol_kind == "method":
            return class_name(owner)
        if _FIXTURE_MACRO.match(owner.name) and "(" in owner.signature:
            first = owner.signature.split("(", 1)[1].split(",", 1)[0].strip()
            return first if self._cpp_classes(first) else None
        return None

    def _cpp_receiver_class(self, owner: Sym | None, caller_class: str | None, receiver: str) -> str | None:
        """The class named ``receiver`` reaches (a variable, a chain of fields, a class named in a
        qualified call): its simple name, :data:`UNKNOWN_CLASS` when no declaration states it, None when
        it is no class of the tree (a namespace, a type of a library)."""
        if "::" in receiver:  # `Builder::AddTarget(...)`, `leveldb::Status::OK()`; a namespace's function
            named = receiver.rsplit("::", 1)[1]
            return named if self._cpp_classes(named) else None
        parts = [p for p in receiver.split(".") if p]
        if not parts or "?" in parts:
            return UNKNOWN_CLASS
        first, rest = parts[0], parts[1:]
        if first in SELF_NAMES:
            current = caller_class
        elif first.endswith("()"):  # `GetPlan()->Reset()`: what the function called returns
            name = first[:-2]
            found = (self._cpp_lookup(caller_class, name) if caller_class else []) or self._c_named(name)
            current = self._cpp_returned(found)
        elif (declared := self._cpp_declared(owner, caller_class, first)) is not None:
            current = self._cpp_as_class(declared)
        elif self._cpp_classes(first):
            current = first  # `Builder::Build(...)`, `Base::Method(...)`
        else:
            return UNKNOWN_CLASS  # a global, or a declaration not read here
        for member in rest:
            if not current:
                return current
            if member.endswith("()"):  # `scan_.build_log()->Close()`
                current = self._cpp_returned(self._cpp_lookup(current, member[:-2]))
            else:
                current = self._cpp_field_class(current, member)
        return current

    def _cpp_returned(self, found: list[Sym]) -> str | None:
        """The class of the tree the functions ``found`` (overloads of one name) declare they return, when
        they agree; :data:`UNKNOWN_CLASS` when they do not or none is found."""
        returned = {_returned_type(f) for f in found}
        if len(returned) != 1 or None in returned:
            return UNKNOWN_CLASS
        return self._cpp_as_class(returned.pop() or "")

    def _cpp_declared_in(self, owner: Sym | None, caller_class: str | None, name: str) -> str | None:
        """The class of the variable ``name`` (:meth:`_cpp_declared`, :meth:`_cpp_as_class`)."""
        declared = self._cpp_declared(owner, caller_class, name)
        return None if declared is None else self._cpp_as_class(declared)

    def _cpp_declared(self, owner: Sym | None, caller_class: str | None, name: str) -> str | None:
        """The simple name of the type the variable ``name`` is declared with in ``owner`` (a parameter or
        local) or as a field of ``caller_class`` or its bases; None when nothing declares it."""
        declared = _declared_type(self.text_of(owner), name) if owner is not None else None
        if declared is None and caller_class:
            declared = self._cpp_field_type(caller_class, name)
        return declared

    def _cpp_field_class(self, cls: str, field: str) -> str | None:
        """The class of the field ``field`` of the class ``cls`` or of its nearest base declaring it;
        :data:`UNKNOWN_CLASS` when none declares it where who-uses reads."""
        declared = self._cpp_field_type(cls, field)
        return UNKNOWN_CLASS if declared is None else self._cpp_as_class(declared)

    def _cpp_field_type(self, cls: str, field: str) -> str | None:
        """The simple name of the type of the field ``field`` of ``cls`` or of its nearest base declaring it."""
        key = (cls, field)
        if key not in self._cpp_types:
            self._cpp_types[key] = None
            for current in self._cpp_hierarchy(cls):
                declared = next(
                    (t for c in self._cpp_classes(current) if (t := _declared_type(self.text_of(c), field))),
                    None,
                )
                if declared is not None:
                    self._cpp_types[key] = declared
                    break
        return self._cpp_types[key]

    def _cpp_as_class(self, declared: str, aliases: int = MAX_ALIASES) -> str | None:
        """A declared type's class of the tree, through the tree's aliases of it (``using shared_node =
        std::shared_ptr<node>;``, ``typedef``); :data:`UNKNOWN_CLASS` when it is not stated (``auto``, a
        template's parameter, an alias of several), None for a type outside the tree."""
        if declared == "auto" or len(declared) == 1:
            return UNKNOWN_CLASS
        if self._cpp_classes(declared):
            return declared
        meant = {_aliased_type(a.signature, declared) for a in self._cpp_aliases(declared)}
        if not meant or aliases == 0:
            return None
        if len(meant) > 1 or None in meant:
            return UNKNOWN_CLASS
        return self._cpp_as_class(meant.pop() or "", aliases - 1)

    def _cpp_aliases(self, name: str) -> list[Sym]:
        if name not in self._cpp_alias_rows:
            rows = definitions_named(self.conn, name, ("type",), sorted(C_FAMILY))
            self._cpp_alias_rows[name] = [Sym(*row) for row in rows]
        return self._cpp_alias_rows[name]

    def _cpp_lookup(self, cls: str, name: str) -> list[Sym]:
        """The member functions named ``name`` of the class ``cls``, else of its nearest base defining it."""
        for current in self._cpp_hierarchy(cls):
            found = [m for m in self._cpp_methods(name) if class_name(m) == current]
            if found:
                return found
        return []

    def _cpp_declares(self, cls: str, name: str) -> bool:
        """Whether the class ``cls`` or a base declares a member function ``name`` (a definition, or a
        declaration in its body: ``virtual bool MakeDir(const std::string& path) = 0;``)."""
        return bool(self._cpp_lookup(cls, name)) or any(
            _declared_function(self._c_body(c.path, c.node_id), name)
            for current in self._cpp_hierarchy(cls)
            for c in self._cpp_classes(current)
        )

    def _cpp_hierarchy(self, cls: str) -> list[str]:
        """``cls`` and its bases of the tree, nearest first (breadth first, each once)."""
        if cls not in self._cpp_bases:
            order, queue = [cls], [cls]
            while queue and len(order) < MAX_BASE_DEPTH:
                for found in self._cpp_classes(queue.pop(0)):
                    for base in _bases(found.signature):
                        if base not in order and self._cpp_classes(base):
                            order.append(base)
                            queue.append(base)
            self._cpp_bases[cls] = order
        return self._cpp_bases[cls]

    def _cpp_derives(self, cls: str, base: str) -> bool:
        return base in self._cpp_hierarchy(cls)

    def _cpp_namespaces(self, receiver: str) -> bool:
        """Whether every name of ``receiver`` is a namespace the tree defines (``leveldb::log``)."""
        if receiver not in self._cpp_namespace_rows:
            names = receiver.replace("::", ".").split(".")
            self._cpp_namespace_rows[receiver] = all(
                definitions_named(self.conn, n, ("namespace",), sorted(C_FAMILY)) for n in names
            )
        return self._cpp_namespace_rows[receiver]

    def _cpp_classes(self, name: str) -> list[Sym]:
        if name not in self._cpp_class_rows:
            rows = definitions_named(self.conn, name, CLASS_KINDS_CPP, sorted(C_FAMILY))
            self._cpp_class_rows[name] = [Sym(*row) for row in rows]
        return self._cpp_class_rows[name]

    def _cpp_methods(self, name: str) -> list[Sym]:
        if name not in self._cpp_method_rows:
            rows = definitions_named(self.conn, name, ("method",), sorted(C_FAMILY))
            self._cpp_method_rows[name] = [Sym(*row) for row in rows]
        return self._cpp_method_rows[name]


def _declaration(name: str) -> re.Pattern[str]:
    return re.compile(
        r"(?:^|(?<=[(,;{}]))\s*(?:(?:const|static|mutable|volatile|struct|class|unsigned|signed|virtual|inline"
        r"|constexpr|extern)\s+)*"
        r"(?P<type>[A-Za-z_]\w*(?:::\w+)*(?:\s*<[^;{}()]*>)?)(?:\s*[*&]+\s*|\s+)(?:const\s*[*&]*\s*)?"
        rf"{re.escape(name)}\s*(?:[A-Z][A-Z0-9_]*\([^()]*\)\s*)?(?:[;=,)(\[{{]|:(?!:)|$)",
        re.MULTILINE,
    )


def _declares(owner: Sym, ref: Reference) -> bool:
    """Whether ``ref`` (no call) in ``owner`` names ``owner`` itself: a member defined outside its class
    (``Builder::AddTarget``), or a class's own constructor declared in its body."""
    if owner.name != ref.name:
        return False
    return class_name(owner) == ref.receiver or (owner.symbol_kind in CLASS_KINDS_CPP and not ref.receiver)


def _declared_function(code: str, name: str) -> bool:
    """Whether ``code`` (a class's body) declares a function ``name``: a type before it, not a statement's
    keyword (``bool MakeDir(const string& path);``, not ``return MakeDir(path);``)."""
    pattern = rf"(?<![\w$])([A-Za-z_][\w:>]*)[\s*&]+{re.escape(name)}\s*\("
    return any(found.group(1) not in _KEYWORDS for found in re.finditer(pattern, code))


def _aliased_type(signature: str, name: str) -> str | None:
    """The simple name of the type an alias's signature gives ``name`` (``using name = std::shared_ptr<node>;``
    or ``typedef node* name;``), through an owning template (``node``), or None."""
    using = re.match(rf"\s*using\s+{re.escape(name)}\s*=\s*(?P<aliased>[^;]+)", signature)
    if using is not None:
        return _declared_type(f"{using.group('aliased').strip()} {_RETURNED};", _RETURNED)
    typedef = re.match(r"\s*typedef\s+(?P<aliased>.+)", signature, re.DOTALL)
    return _declared_type(f"{typedef.group('aliased').rstrip(' ;')};", name) if typedef else None


def _returned_type(function: Sym) -> str | None:
    """The simple name of the type ``function``'s signature declares it returns (``BuildLog`` for
    ``BuildLog* build_log() const``, ``Node`` for ``Node* Builder::AddTarget(…)``), or None."""
    at = re.search(rf"(?:\w+::)*~?{re.escape(function.name)}\s*\(", function.signature)
    if at is None:
        return None
    return _declared_type(f"{function.signature[: at.start()]} {_RETURNED};", _RETURNED)


def _declared_type(text: str, name: str) -> str | None:
    """The simple name of the type ``text`` declares ``name`` with (``Builder`` for ``Builder builder_;``
    and ``const Builder& b``, ``Plan`` for ``std::unique_ptr<Plan> plan``), or None."""
    if name not in text:
        return None
    for found in _declaration(name).finditer(text):
        if _CLASS_HEAD.match(found.group(0)):
            continue  # `class TINYXML2_LIB XMLPrinter : public XMLVisitor`: a class, not a variable
        spelled = found.group("type")
        template = spelled.split("<", 1)
        simple = template[0].strip().rsplit("::", 1)[-1]
        if simple in _KEYWORDS:
            continue
        if simple in _OWNING and len(template) > 1:
            inner = template[1].rsplit(">", 1)[0].split(",", 1)[0].strip().rstrip("*& ")
            return _TEMPLATE_ARGUMENTS.sub("", inner).rsplit("::", 1)[-1].strip()
        return simple
    return None


def _bases(signature: str) -> list[str]:
    """The simple names of the bases a class's signature lists (``struct A : public B, private ns::C<T>``)."""
    found = _BASES.search(signature)
    if found is None:
        return []
    listed = _TEMPLATE_ARGUMENTS.sub("", _ACCESS.sub("", found.group("bases")))
    return [b.strip().rsplit("::", 1)[-1] for b in listed.split(",") if b.strip()]


def _call_arguments(text: str, name: str, receiver: str) -> list[list[str] | None]:
    """The arguments of each call of ``name`` on ``receiver`` (``""`` for none) in ``text`` (None for a
    call whose parentheses do not close there)."""
    if receiver:
        on = r"(?:\.|->)".join(re.escape(part) for part in receiver.split("."))
        before = rf"(?<![\w$]){on}\s*(?:\.|->|::)\s*"
    else:
        before = r"(?<![\w$.>:])"
    calls = re.finditer(rf"{before}{re.escape(name)}\s*\(", text)
    return [_arguments(text, c.end(), "([{") for c in calls]


def _parameters(member: Sym) -> list[str] | None:
    """The parameters ``member``'s signature declares (``[]`` for ``(void)``), or None when unread."""
    at = member.signature.find(member.name + "(")
    opening = member.signature.find("(", max(at, member.signature.find(member.name), 0))
    found = _arguments(member.signature, opening + 1, "([{<") if opening >= 0 else None
    return [] if found == ["void"] else found


def _takes(member: Sym, arguments: list[str | None], fits: Callable[[str, str], bool], declared: str) -> bool:
    """Whether ``member`` can be called with ``arguments`` (each one's type's simple name, or None when not
    known): as many as it takes (defaults and ``...`` counted, those of its declaration in its class's
    body ``declared`` too), each known one fitting its parameter (``fits``: ``AddTarget("all", &err)`` is
    not ``AddTarget(Node* target, …)``)."""
    parameters = _parameters(member)
    if parameters is None:
        return True
    variadic = bool(parameters) and "..." in parameters[-1]
    required = min(_required(parameters), _declared_required(declared, member.name, len(parameters)))
    if len(arguments) < required or (len(arguments) > len(parameters) and not variadic):
        return False
    return all(a is None or fits(a, p) for a, p in zip(arguments, parameters, strict=False))


def _required(parameters: list[str]) -> int:
    return sum(1 for p in parameters if "=" not in p and "..." not in p)


def _declared_required(body: str, name: str, count: int) -> int:
    """The fewest arguments a declaration of ``name`` with ``count`` parameters in a class's ``body`` requires
    (``const XMLElement* FirstChildElement( const char* name = 0 ) const;``), ``count`` when none is there."""
    fewest = count
    for found in re.finditer(rf"(?<![\w$.>:~]){re.escape(name)}\s*\(", body):
        parameters = _arguments(body, found.end(), "([{<")
        if parameters is not None and len(parameters) == count:
            fewest = min(fewest, _required(parameters))
    return fewest


def _matches(member: Sym, arguments: list[str | None]) -> bool:
    """Whether every argument of a known type has exactly its parameter's type (``char`` for a string
    literal and ``const char*``): the overload C++ prefers to one that needs a conversion."""
    parameters = _parameters(member) or []
    for argument, parameter in zip(arguments, parameters, strict=False):
        declared = _PARAMETER_TYPE.match(parameter)
        if argument is not None and (declared is None or declared.group(1) != argument):
            return False
    return True


def _literal_type(argument: str) -> str | None:
    """The type of a literal argument: ``char`` for a string or character, ``bool``, ``int``, ``float``
    and ``double``; None for anything else."""
    if argument.startswith(('"', "'")):
        return "char"
    if argument in ("true", "false"):
        return "bool"
    found = _NUMBER.fullmatch(argument)
    if found is None:
        return None
    if found.group("fraction") is None:
        return "int"
    return "float" if argument[-1] in "fF" else "double"


def _arguments(text: str, start: int, nesting: str) -> list[str] | None:
    """The comma-separated parts between ``text[start - 1]`` (an opening parenthesis) and its closing one,
    stripped, or None when it does not close; commas inside the brackets of ``nesting`` (``<`` in a
    signature's template arguments, not in a call's comparisons) separate nothing."""
    closing = {"(": ")", "[": "]", "{": "}", "<": ">"}
    ends = "".join(closing[c] for c in nesting)
    depth, parts, current = 0, [], start
    for at in range(start, len(text)):
        char = text[at]
        if char in nesting:
            depth += 1
        elif char in ends and depth > 0:
            depth -= 1
        elif char == ")":
            parts.append(text[current:at].strip())
            return [p for p in parts if p] if parts != [""] else []
        elif char == "," and depth == 0:
            parts.append(text[current:at].strip())
            current = at + 1
    return None
