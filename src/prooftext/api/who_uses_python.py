"""Who-uses in Python: the names a function's text binds, its parameters, its bases, and pytest fixtures."""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Collection, Iterator


def split_bases(text: str) -> list[str]:
    depth, start, out = 0, 0, []
    for i, ch in enumerate(text + ","):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    return [b.split("[", 1)[0].strip() for b in out if b.strip() and "=" not in b and not b.startswith("*")]


FUNCTION_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NEW_SCOPES = (
    *FUNCTION_DEFS,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _arguments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    arguments = function.args
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ]
    return [a for a in every if a is not None]


def argument_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in _arguments(function)]


def parameters(signature: str) -> list[str]:
    """The parameter names of a Python ``def`` signature as indexed (none when it does not read as one)."""
    for body in ("\n    pass", " ..."):  # after a comment line the signature may hold; or after its colon
        try:
            tree = ast.parse(textwrap.dedent(signature).strip() + body)
        except (SyntaxError, ValueError):
            continue
        function = tree.body[0] if tree.body else None
        return argument_names(function) if isinstance(function, FUNCTION_DEFS) else []
    return []


FIXTURE = re.compile(r"^\s*@(?:pytest\.)?fixture\b")
TEST_MODULE = re.compile(r"^(?:test_\w*|\w*_test)\.py$")
"""A pytest test module's file name: the fixtures it defines serve its own tests only."""
FIXTURE_NAME = re.compile(r"\bname\s*=\s*[\"'](\w+)[\"']")
USEFIXTURES_WORD = "usefixtures"
USEFIXTURES = re.compile(r"\busefixtures\s*\(([^)]*)\)")
"""A ``pytest.mark.usefixtures(...)`` mark, its arguments up to the closing parenthesis."""
QUOTED_NAME = re.compile(r"[\"'](\w+)[\"']")


def marked_fixtures(head: str) -> set[str]:
    """The fixtures that ``usefixtures`` marks in ``head`` (a definition's lines down to its ``def`` or
    ``class`` line, its decorators) request by name."""
    return {name for marks in USEFIXTURES.findall(head) for name in QUOTED_NAME.findall(marks)}


Function = ast.FunctionDef | ast.AsyncFunctionDef


def parse_function(text: str) -> Function | None:
    """The Python function whose indexed text this is, parsed; None when it does not read as one."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return None
    function = tree.body[0] if tree.body else None
    return function if isinstance(function, FUNCTION_DEFS) else None


def bound_locally(function: Function) -> frozenset[str]:
    """The names the Python function binds in its own scope: its parameters and the names its body assigns
    or defines (not inside a nested scope; not an import, which who-uses resolves; not a name declared
    ``global`` or ``nonlocal``)."""
    names = set(argument_names(function))
    declared: set[str] = set()
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if isinstance(node, (*FUNCTION_DEFS, ast.ClassDef)):
            names.add(node.name)
        if not isinstance(node, _NEW_SCOPES):
            pending.extend(ast.iter_child_nodes(node))
    return frozenset(names - declared)


def _dotted(node: ast.AST | None) -> list[str] | None:
    """``a.b.C`` as its parts, None for any other expression."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *parts]
    return None


def _constructed(value: ast.AST | None) -> list[str] | None:
    """The dotted callee of ``value`` when it is a call (``requests.Session()``), None otherwise."""
    return _dotted(value.func) if isinstance(value, ast.Call) else None


def _valued(value: ast.AST) -> list[str] | None:
    """The class a value assigned to a name states: a call's callee (:func:`_constructed`), or a literal's
    built-in type (``{}`` and a dict comprehension a ``dict``, ``[]`` a ``list``, ``f"…"`` a ``str``)."""
    literal = next((kind for types, kind in _LITERALS if isinstance(value, types)), None)
    if isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes)):
        literal = type(value.value).__name__
    return [literal] if literal else _constructed(value)


_LITERALS: tuple[tuple[tuple[type[ast.AST], ...], str], ...] = (
    ((ast.Dict, ast.DictComp), "dict"),
    ((ast.List, ast.ListComp), "list"),
    ((ast.Set, ast.SetComp), "set"),
    ((ast.Tuple,), "tuple"),
    ((ast.JoinedStr,), "str"),
)
BUILTIN_TYPES = frozenset(
    {
        "dict",
        "list",
        "set",
        "frozenset",
        "tuple",
        "str",
        "bytes",
        "bytearray",
        "Dict",
        "List",
        "Set",
        "FrozenSet",
        "Tuple",
    }
)
"""The built-in containers and strings (with ``typing``'s names for the containers): a variable holding one
calls none of the repository's methods."""


def _annotated(node: ast.AST | None) -> list[str] | None:
    """The dotted class an annotation names: ``Session``, ``"Session"``, and with ``None`` allowed,
    ``Optional[Session]``, ``Session | None``, ``Union[Session, None]`` (a call on the value is the
    class's); None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _annotated(ast.parse(node.value.strip(), mode="eval").body)
        except SyntaxError:
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [side for side in (node.left, node.right) if not _is_none(side)]
        return _annotated(sides[0]) if len(sides) == 1 else None
    if isinstance(node, ast.Subscript) and (_dotted(node.value) or [""])[-1] in _OPTIONAL:
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        kept = [item for item in items if not _is_none(item)]
        return _annotated(kept[0]) if len(kept) == 1 else None
    if isinstance(node, ast.Subscript):  # `dict[str, Any]`, `Repo[User]`: the generic class
        return _dotted(node.value)
    return _dotted(node)


_OPTIONAL = frozenset({"Optional", "Union"})


def _is_none(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _stated_types(function: Function, name: str) -> list[list[str] | None]:
    """What each binding of ``name`` in ``function``'s own scope says of its type: the annotation of a
    parameter, or the callee of the call assigned to it (``s = Session()``, ``with Session() as s``); None
    for a binding that says nothing (another assignment, a loop, a name without annotation)."""
    arguments = function.args
    packed = {a.arg: kind for a, kind in ((arguments.vararg, "tuple"), (arguments.kwarg, "dict")) if a}
    stated: list[list[str] | None] = [
        [packed[a.arg]] if a.arg in packed else _annotated(a.annotation)
        for a in _arguments(function)
        if a.arg == name
    ]
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            if not _is_none(node.value):  # `s = None` first: a call on it is on what is bound later
                stated.append(_valued(node.value) if len(node.targets) == 1 else None)
        elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
            if node.optional_vars.id == name:
                stated.append(_constructed(node.context_expr))
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            stated.append(None)  # a loop target, an augmented or annotated assignment, a walrus
        if not isinstance(node, _NEW_SCOPES):
            pending.extend(
                child for child in ast.iter_child_nodes(node) if not _is_assign_target(node, child)
            )
    return stated


def _is_assign_target(parent: ast.AST, child: ast.AST) -> bool:
    """Whether ``child`` is a target of the plain assignment or ``with`` item ``parent`` (read above)."""
    if isinstance(parent, ast.Assign):
        return child in parent.targets
    return isinstance(parent, ast.withitem) and child is parent.optional_vars


def _own_scope(function: Function) -> Iterator[ast.AST]:
    """Every node of ``function``'s body in its own scope (not inside a nested function, class or
    comprehension)."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, _NEW_SCOPES):
            pending.extend(ast.iter_child_nodes(node))


Source = tuple[str, list[str]]
"""How a function states its result: ``("class", dotted)`` by its annotation, ``("call", callee)`` by a
returned call, ``("local", [name])`` by a returned local."""


def result_sources(function: Function, yields: bool = False) -> list[Source] | None:
    """How a Python function states the class it returns (with ``yields``, what it yields: a pytest fixture's
    value): its return annotation, else each ``return`` of its own scope, a call or a local (a ``return None``
    aside); None when one of them is another expression, or when nothing is returned."""
    if function.returns is not None and not yields:
        dotted = _annotated(function.returns)
        return [("class", dotted)] if dotted else None
    kinds = (ast.Return, ast.Yield) if yields else (ast.Return,)
    values = [
        n.value for n in _own_scope(function) if isinstance(n, kinds) and n.value and not _is_none(n.value)
    ]
    sources: list[Source] = []
    for value in values:
        callee = _constructed(value)
        if callee is not None:
            sources.append(("call", callee))
        elif isinstance(value, ast.Name):
            sources.append(("local", [value.id]))
        else:
            return None
    return sources or None


def parse_class(text: str) -> ast.ClassDef | None:
    """The Python class whose indexed text this is, parsed; None when it does not read as one."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return None
    found = tree.body[0] if tree.body else None
    return found if isinstance(found, ast.ClassDef) else None


def is_property(function: Function) -> bool:
    """Whether a method is read as an attribute: decorated ``@property`` or ``@cached_property``."""
    return any((_dotted(d) or [""])[-1] in _PROPERTIES for d in function.decorator_list)


_PROPERTIES = frozenset({"property", "cached_property"})
_SELF = "self"


def attribute_types(cls: ast.ClassDef, attribute: str) -> list[list[str] | None]:
    """What each binding of ``attribute`` in a class says of its type: an annotation in the class body or on
    ``self.attribute`` in a method; the callee of a call assigned to it (``self.x = Session()``, ``self.x =
    self.make()``, whose result the caller follows); the annotation of a method's parameter assigned to it
    (``self.app = app`` where ``app: Flask``); None for a binding that says nothing. A binding to ``None``
    says nothing either way (a call on the attribute is on what is bound later). No binding: an empty list
    (a base class may bind it)."""
    stated: list[list[str] | None] = []
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id == attribute:
                stated.append(_annotated(node.annotation))
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == attribute for t in node.targets
        ):
            if not _is_none(node.value):  # `x = None` in the class body: filled in later
                stated.append(_constructed(node.value))
        elif isinstance(node, FUNCTION_DEFS):
            stated.extend(_self_bindings(node, attribute))
    return stated


def _self_bindings(method: Function, attribute: str) -> list[list[str] | None]:
    """What each ``self.attribute = …`` of a method says of the attribute's type (see
    :func:`attribute_types`); any other binding of it (a tuple's item, a loop, ``with … as``, ``+=``) says
    nothing."""
    annotations = {a.arg: _annotated(a.annotation) for a in _arguments(method)}
    stated: list[list[str] | None] = []
    for node in _own_scope(method):
        if isinstance(node, ast.AnnAssign) and _is_self_attribute(node.target, attribute):
            stated.append(_annotated(node.annotation))
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and _is_self_attribute(node.targets[0], attribute)
        ):
            value = node.value
            if not _is_none(value):  # `self.x = None`: a call on it is on what is bound later
                stated.append(
                    annotations.get(value.id) if isinstance(value, ast.Name) else _constructed(value)
                )
        elif any(_rebinds(t, attribute) for t in _targets(node)):
            stated.append(None)  # one of several targets, an item of a tuple, a loop, `as`, `+=`
    return stated


def _targets(node: ast.AST) -> list[ast.AST | None]:
    """What a statement binds: an assignment's targets, a loop's or an augmented assignment's target, a
    ``with`` item's ``as``; nothing for any other node."""
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor)):
        return [node.target]
    return [node.optional_vars] if isinstance(node, ast.withitem) else []


def _rebinds(target: ast.AST | None, attribute: str) -> bool:
    """Whether an assignment to ``target`` binds ``self.attribute`` (itself, or an item of a tuple or
    list target; not ``self.attribute[k]`` or ``self.attribute.x``, which change what it holds)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_rebinds(item, attribute) for item in target.elts)
    if isinstance(target, ast.Starred):
        return _rebinds(target.value, attribute)
    return _is_self_attribute(target, attribute)


def _is_self_attribute(node: ast.AST | None, attribute: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == attribute
        and isinstance(node.value, ast.Name)
        and node.value.id == _SELF
    )


def parse_module(text: str) -> ast.Module | None:
    """A Python file's text parsed; None when it does not parse."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def global_names(module: ast.Module) -> frozenset[str]:
    """The names some function of ``module`` declares ``global`` (and so may bind anywhere)."""
    return frozenset(name for n in ast.walk(module) if isinstance(n, ast.Global) for name in n.names)


def module_types(module: ast.Module, name: str, rebound: Collection[str] = ()) -> list[list[str] | None]:
    """What each binding of the module-level variable ``name`` says of its type: ``name: T`` or ``name =
    T(…)`` at the top level (in an ``if`` or ``try`` there too); None for any other binding there (a loop,
    an ``import``, a definition, a tuple) and for a function's ``global name``. No binding (a ``from``
    import is none here): an empty list."""
    stated: list[list[str] | None] = []
    for node in _top_level(module):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            stated.append(_annotated(node.annotation))
        elif isinstance(node, ast.Assign) and any(_names(t, name) for t in node.targets):
            single = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            if not (single and _is_none(node.value)):  # `db = None` until it is set up
                stated.append(_constructed(node.value) if single else None)
        elif _binds(node, name):
            stated.append(None)
    if name in rebound:  # `global name` in a function (see :func:`global_names`)
        stated.append(None)
    return stated


def module_values(
    module: ast.Module, name: str, rebound: Collection[str] = ()
) -> list[list[str] | None] | None:
    """What each top-level assignment of the module-level variable ``name`` gives it, when only assignments
    of it alone bind it there (in an ``if`` or ``try`` too): the dotted name it aliases (``get = _get``), or
    an empty list for any other value (``session = LocalProxy(…)``, a literal, a lambda); None when
    something else binds it too (a definition, an ``import``, a loop, a tuple, a function's ``global``) or
    nothing does."""
    values: list[list[str] | None] = []
    for node in _top_level(module):
        if isinstance(node, ast.Assign) and any(_names(t, name) for t in node.targets):
            single = all(isinstance(t, ast.Name) for t in node.targets)
            values.append((_dotted(node.value) or []) if single else None)
        elif isinstance(node, ast.AnnAssign) and _names(node.target, name) and node.value is not None:
            values.append(_dotted(node.value) or [])
        elif _binds(node, name):
            values.append(None)
    if not values or None in values or name in rebound:  # `global name` (see :func:`global_names`)
        return None
    return values


def module_aliases(module: ast.Module, name: str) -> list[str]:
    """The module-level variables ``module`` assigns ``name`` itself (``fetch = _fetch``), at its top level."""
    return [
        target.id
        for node in _top_level(module)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name
        for target in node.targets
        if isinstance(target, ast.Name) and target.id != name
    ]


def _top_level(module: ast.Module) -> Iterator[ast.stmt]:
    """The statements that run at the module's top level: its body's, and those in an ``if`` or ``try``
    there."""
    pending: list[ast.stmt] = list(reversed(module.body))
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            branches = [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            branches.extend(s for handler in getattr(node, "handlers", []) for s in handler.body)
            pending.extend(reversed(branches))


def _names(target: ast.AST | None, name: str) -> bool:
    """Whether binding ``target`` binds the plain name ``name`` (itself, or inside a tuple; not ``name.x``
    or ``name[k]``, which change what it holds)."""
    return target is not None and any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(target)
    )


def _binds(node: ast.stmt, name: str) -> bool:
    """Whether a top-level statement other than an assignment binds ``name``."""
    if isinstance(node, ast.Import):  # `from m import name` is followed to ``m`` by the caller
        return any((alias.asname or alias.name.split(".")[0]) == name for alias in node.names)
    if isinstance(node, (*FUNCTION_DEFS, ast.ClassDef)):
        return node.name == name
    if isinstance(node, (ast.For, ast.AsyncFor, ast.AugAssign)):
        return _names(node.target, name)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return any(_names(item.optional_vars, name) for item in node.items)
    return False


def only_a_parameter(function: Function, name: str) -> bool:
    """Whether ``name`` is a parameter of the Python function that its body never binds again."""
    return name in argument_names(function) and len(_stated_types(function, name)) == 1


def local_type_names(function: Function, name: str) -> list[str] | None:
    """The dotted name of the class a local ``name`` of the Python function holds, when every binding of it
    states one and the same (``s = requests.Session()`` gives ``requests.Session``, ``app: Flask`` gives
    ``Flask``); None when a binding states none or two disagree."""
    stated = _stated_types(function, name)
    first = stated[0] if stated else None
    return first if first is not None and all(s == first for s in stated) else None
