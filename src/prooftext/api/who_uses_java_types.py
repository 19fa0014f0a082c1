"""The classes Java code states for its variables, read from its text: a parameter, a local, a field, a
for-each, catch or pattern variable (``Foo x``, ``final Foo<T> x``, ``Outer.Foo x``) and ``var x = new Foo()``.
A name declared more than once is typed only when every declaration states the same class; an array, a
primitive or a ``var`` of any other value states none. Read with regular expressions, at query time."""

from __future__ import annotations

import re
from collections.abc import Callable

_IDENT = r"[A-Za-z_$][\w$]*"
_ARGUMENT = r"[\w$.,?\s\[\]]"
_GENERIC = rf"<(?:{_ARGUMENT}|<(?:{_ARGUMENT}|<{_ARGUMENT}*>)*>)*>"
"""Type arguments, nested two deep (``<String, List<Map<K, V>>>``)."""
_DECLARED = re.compile(
    rf"(?<![\w$.])((?:{_IDENT}\.)*{_IDENT})(?:\s*({_GENERIC}))?((?:\s*\[\s*\])*)(\s*\.\.\.)?\s*"
    rf"(?<![\w$])({_IDENT})\s*(?=[=;,:)]|\[)"
)
"""A declaration: a type (qualified, generic, an array) and a name, then what may follow a declared name (an
initializer, the end of a statement, the next parameter, a for-each's colon). Each run of white space has
one place in it, so a long one costs no backtracking."""
_LAMBDA = re.compile(rf"(?<![\w$.])({_IDENT})\s*->|\(([\w$\s,]*)\)\s*->")
"""A lambda's parameters without types: ``x ->`` or ``(x, y) ->``."""
_NOT_TYPES = frozenset(
    {"return", "throw", "new", "case", "else", "yield", "assert", "instanceof", "import", "package", "goto"}
)
"""Words that stand before a name without declaring it (``return x;``)."""
_VAR_NEW = re.compile(rf"\s*new\s+((?:{_IDENT}\.)*{_IDENT})\s*(?:{_GENERIC})?\s*\(")


def declared_names(text: str) -> dict[str, list[str | None]]:
    """What each declaration in ``text`` states, by the name it declares: a class as spelled (``Foo``,
    ``Outer.Foo``, ``a.b.Foo``), or None for one that states no class (an array, a primitive, ``var`` of
    another value, a lambda's parameter). One pass over the text for every name."""
    stated: dict[str, list[str | None]] = {}
    for found in _DECLARED.finditer(text):
        spelled, generic, array, varargs, name = found.groups()
        if spelled in _NOT_TYPES or name in _NOT_TYPES:
            continue
        held: str | None
        if array or varargs:
            held = None
        elif spelled == "var" and not generic:
            value = _VAR_NEW.match(text, found.end() + _skip_equals(text, found.end()))
            held = value.group(1) if value else None
        else:
            last = spelled.rsplit(".", 1)[-1]
            held = spelled if last[:1].isupper() else None  # a primitive or a lowercase word
        stated.setdefault(name, []).append(held)
    for found in _LAMBDA.finditer(text):
        for name in (found.group(1) or found.group(2) or "").replace(",", " ").split():
            stated.setdefault(name, []).append(None)
    return stated


def agreed(stated: list[str | None]) -> str | None:
    """The class every declaration states, or None."""
    first = stated[0] if stated else None
    return first if first is not None and all(s == first for s in stated) else None


_EQUALS = re.compile(r"\s*=(?!=)")


def _skip_equals(text: str, at: int) -> int:
    """How many characters after ``at`` lead past the ``=`` of an initializer (none when there is none)."""
    found = _EQUALS.match(text, at)
    return found.end() - at if found else 0


_HEADER_END = re.compile(r"[{;]")
_EXTENDS = re.compile(r"\b(extends|implements|permits)\b")


def supertypes(header: str) -> list[str]:
    """The simple names of the classes and interfaces a class or interface header extends or implements,
    in order (the superclass first), type arguments left out."""
    text = _HEADER_END.split(header, 1)[0]
    text = _drop_generics(text)
    names: list[str] = []
    parts = _EXTENDS.split(text)
    for keyword, listed in zip(parts[1::2], parts[2::2], strict=True):
        if keyword == "permits":
            continue
        for spelled in listed.split(","):
            word = spelled.strip().rsplit(".", 1)[-1]
            if re.fullmatch(_IDENT, word):
                names.append(word)
    return names


def _drop_generics(text: str) -> str:
    """``text`` without what angle brackets hold (nested ones too)."""
    out: list[str] = []
    depth = 0
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(char)
    return "".join(out)


JAVA_LANG = frozenset(
    {
        "Object", "String", "StringBuilder", "StringBuffer", "CharSequence", "Class", "Enum", "Record",
        "Boolean", "Byte", "Character", "Short", "Integer", "Long", "Float", "Double", "Number", "Void",
        "Math", "StrictMath", "System", "Runtime", "Thread", "ThreadLocal", "Runnable", "Iterable",
        "Comparable", "AutoCloseable", "Throwable", "Exception", "RuntimeException", "Error",
        "IllegalArgumentException", "IllegalStateException", "NullPointerException",
        "UnsupportedOperationException", "IndexOutOfBoundsException", "ClassLoader", "Process",
    }
)  # fmt: skip
"""Classes of ``java.lang``, which every Java file sees without an import: a variable of one of them
holds no repository class unless the repository defines one so named where the file sees it."""


def return_type(signature: str, name: str) -> str | None:
    """The class a method's ``signature`` states it returns, as spelled (``Builder``, ``CodeBlock.Builder``;
    type arguments left out); None for ``void``, a primitive, an array or a signature this cannot read."""
    found = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", signature)
    if found is None:
        return None
    head = re.sub(r"@[\w$.]+(?:\([^)]*\))?", " ", signature[: found.start()])
    words = _drop_generics(head).split()
    spelled = words[-1] if words else ""
    last = spelled.rsplit(".", 1)[-1]
    return spelled if re.fullmatch(rf"(?:{_IDENT}\.)*{_IDENT}", spelled) and last[:1].isupper() else None


Step = tuple[str, str]
"""One step of a receiver chain: ``("name", "builder")`` (a variable, a field or a class, dotted as spelled),
``("new", "CodeBlock.Builder")``, ``("bare", "make")`` (a call without receiver) or ``("call", "add")``."""
MAX_CHAIN = 12
"""Calls followed back along one receiver chain."""


def chained_receiver(text: str, dot: int) -> list[Step] | None:
    """The steps of the receiver expression that ends at ``text[dot]``, the ``.`` before a called name,
    first step first (``CodeBlock.builder().add(x)`` gives name ``CodeBlock``, call ``builder``, call
    ``add``); None for what this does not read (a cast, an array element, a literal, a field of a call's
    result)."""
    steps: list[Step] = []
    end = dot
    for _ in range(MAX_CHAIN):
        end = _skip_space_back(text, end)
        if end == 0:
            return None
        if text[end - 1] == "}":  # `new TypeToken<T>() {}`: an anonymous class is its class's instance
            body = _opening_back(text, end - 1, "{}")
            end = _skip_space_back(text, body) if body is not None else 0
            if not end or text[end - 1] != ")":
                return None
        if text[end - 1] != ")":
            dotted, start = _dotted_back(text, end)
            before = _skip_space_back(text, start)
            if not dotted or (before and text[before - 1] == "."):
                return None
            return [("name", dotted), *reversed(steps)]
        opening = _opening_back(text, end - 1)
        if opening is None:
            return None
        name_end = _skip_space_back(text, opening)
        if name_end and text[name_end - 1] == ">":  # `new TypeToken<List<T>>(`: its type arguments
            arguments = _opening_back(text, name_end - 1, "<>")
            name_end = _skip_space_back(text, arguments) if arguments is not None else 0
        dotted, start = _dotted_back(text, name_end)
        before = _skip_space_back(text, start)
        if not dotted:
            return None
        if text[max(before - 3, 0) : before] == "new" and not re.match(
            r"[\w$]", text[before - 4 : before - 3]
        ):
            return [("new", dotted), *reversed(steps)]
        head, _dot, method = dotted.rpartition(".")
        steps.append(("call", method))
        if head:
            return [("name", head), *reversed(steps)]
        if not before or text[before - 1] != ".":
            steps[-1] = ("bare", method)
            return list(reversed(steps))
        end = before - 1
    return None


def _skip_space_back(text: str, end: int) -> int:
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end


def _dotted_back(text: str, end: int) -> tuple[str, int]:
    """The dotted name (``a.b.c``, white space around its dots allowed) that ends at ``end``, and where it
    starts; ``("", end)`` when none does."""
    start = end
    while True:
        word = re.search(rf"{_IDENT}$", text[max(start - 200, 0) : start])
        if word is None:
            break
        start -= len(word.group(0))
        back = _skip_space_back(text, start)
        ahead = _skip_space_back(text, back - 1) if back and text[back - 1] == "." else None
        if ahead is None or not ahead or not re.match(r"[\w$]", text[ahead - 1]):
            break
        start = ahead
    spelled = re.sub(r"\s+", "", text[start:end])
    return (spelled, start) if re.fullmatch(rf"(?:{_IDENT}\.)*{_IDENT}", spelled) else ("", end)


def _opening_back(text: str, closing: int, pair: str = "()") -> int | None:
    """The index of the opening bracket matching the closing one at ``closing`` (``pair``: the two
    brackets), skipping string and character literals."""
    opening, closed = pair[0], pair[1]
    depth = 0
    at = closing
    while at >= 0:
        char = text[at]
        if char in "\"'":
            at = text.rfind(char, 0, at)
            while at > 0 and text[at - 1] == "\\":
                at = text.rfind(char, 0, at - 1)
            if at < 0:
                return None
        elif char == closed:
            depth += 1
        elif char == opening:
            depth -= 1
            if depth == 0:
                return at
        at -= 1
    return None


_OPEN = "([{"
_CLOSE = ")]}"
Arguments = tuple[str, ...]
"""A call's arguments as written, each stripped."""


def call_arguments(text: str, name: str, receiver: str | None = None) -> set[Arguments]:
    """The arguments of each call of ``name`` in ``text`` (``this(…)`` alike): through ``receiver``
    (``x.name(…)``, ``this.x.name(…)``) when it is given, without one when it is ``""``, and any call when
    it is None."""
    called = rf"{re.escape(name)}\s*(?:<[^<>()]*>\s*)?\("
    if receiver:
        dotted = r"\s*\.\s*".join(re.escape(part) for part in receiver.split("."))
        pattern = rf"(?<![\w$.]){dotted}\s*\.\s*(?:<[^<>()]*>\s*)?{called}"
    else:
        pattern = (r"(?<![\w$.])" if receiver == "" else r"(?<![\w$])") + called
    return _calls(text, pattern)


def construction_arguments(text: str, name: str) -> set[Arguments]:
    """The arguments of each ``new name(…)`` in ``text`` (``new a.b.name<>(…)`` too)."""
    return _calls(text, rf"(?<![\w$])new\s+(?:[\w$]+\s*\.\s*)*{re.escape(name)}\s*(?:<[^()]*>)?\s*\(")


def _calls(text: str, pattern: str) -> set[Arguments]:
    found: set[Arguments] = set()
    for call in re.finditer(pattern, text):
        listed = arguments_at(text, call.end())
        if listed is not None:
            found.add(listed)
    return found


def parameter_types(signature: str, name: str) -> tuple[str, ...] | None:
    """The type of each parameter of the method ``name`` that ``signature`` declares, by its simple name
    without type arguments (``Map<K, V> m`` gives ``Map``, ``String... rest`` gives ``String...``); None
    when the signature does not show its parameters."""
    found = re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", signature)
    listed = arguments_at(signature, found.end()) if found else None
    if listed is None:
        return None
    types: list[str] = []
    for parameter in listed:
        words = (
            _drop_generics(re.sub(r"@[\w$.]+(?:\([^)]*\))?", " ", parameter)).replace("...", " ... ").split()
        )
        words = [w for w in words if w != "final"]
        if len(words) < 2:
            return None
        varargs = len(words) >= 3 and words[-2] == "..."
        spelled = words[-3] if varargs else words[-2]
        types.append(spelled.rsplit(".", 1)[-1] + ("..." if varargs else ""))
    return tuple(types)


_PRIMITIVES = frozenset({"boolean", "byte", "char", "short", "int", "long", "float", "double"})
_ANY_OBJECT = frozenset({"Object", "Serializable", "Comparable", "Constable"})
_LITERAL_TARGETS = {
    "string": frozenset({"String", "CharSequence"}),
    "char": frozenset({"char", "int", "long", "float", "double", "Character"}),
    "int": frozenset({"int", "long", "float", "double", "Integer", "Number"}),
    "long": frozenset({"long", "float", "double", "Long", "Number"}),
    "float": frozenset({"float", "double", "Float", "Number"}),
    "double": frozenset({"double", "Double", "Number"}),
    "boolean": frozenset({"boolean", "Boolean"}),
    "class": frozenset({"Class", "Type", "GenericDeclaration", "AnnotatedElement"}),
}
"""The parameter types a literal of each kind converts to in a method call (widening and boxing; a constant
is not narrowed there, so ``1`` is no ``byte``), besides :data:`_ANY_OBJECT` for every boxed one."""
_LITERALS = (
    ("string", re.compile(r'"(?:""(?s:.*)""|(?:\\.|[^"\\])*)"')),
    ("char", re.compile(r"'(?:\\.[^']*|[^'\\])'")),
    ("boolean", re.compile(r"true|false")),
    ("class", re.compile(rf"(?:{_IDENT}\.)*{_IDENT}(?:\s*\[\s*\])*\s*\.\s*class")),
    ("long", re.compile(r"-?(?:0[xX][\da-fA-F_]+|0[bB][01_]+|\d[\d_]*)[lL]")),
    ("int", re.compile(r"-?(?:0[xX][\da-fA-F_]+|0[bB][01_]+|\d[\d_]*)")),
    ("float", re.compile(r"-?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[fF]")),
    (
        "double",
        re.compile(
            r"-?(?:\d[\d_]*\.[\d_]*|\.\d[\d_]*|\d[\d_]*[eE][+-]?\d+)(?:[eE][+-]?\d+)?[dD]?|-?\d[\d_]*[dD]"
        ),
    ),
)


def literal_kind(argument: str) -> str | None:
    """What kind of literal an argument is (``string``, ``char``, ``boolean``, ``int``, ``long``,
    ``float``, ``double``, ``null``, ``class`` for ``Foo.class``), or None for any other expression."""
    if argument == "null":
        return "null"
    return next((kind for kind, form in _LITERALS if form.fullmatch(argument)), None)


ArgumentTypes = Callable[[str], frozenset[str] | None]
"""The simple names an argument's class answers to (its class and every supertype), or None when not known."""


def accepts(parameters: tuple[str, ...], arguments: Arguments, typed: ArgumentTypes | None = None) -> bool:
    """Whether a method with these parameter types may be the one a call with these arguments invokes: it
    takes their number (varargs: one fewer or more), no literal among them is of a kind its parameter
    cannot take (a type other than the JDK's basic ones, say ``T`` or a repository class, takes ``null``
    and any expression that is not a literal, and a ``T`` also takes literals), and no argument whose class
    ``typed`` tells has a parameter naming neither that class nor one of its supertypes."""
    varargs = bool(parameters) and parameters[-1].endswith("...")
    fixed = parameters[:-1] if varargs else parameters
    if len(arguments) < len(fixed) or (not varargs and len(arguments) != len(fixed)):
        return False
    return all(_takes(kind, value, typed) for kind, value in zip(fixed, arguments, strict=False))


def _takes(parameter: str, argument: str, typed: ArgumentTypes | None) -> bool:
    kind = literal_kind(argument)
    if kind is None:
        names = typed(argument) if typed is not None else None
        if names is None or parameter in _ANY_OBJECT or _TYPE_VARIABLE.fullmatch(parameter):
            return True
        return parameter in names
    if kind == "null":
        return parameter not in _PRIMITIVES
    if parameter in _ANY_OBJECT or _TYPE_VARIABLE.fullmatch(parameter):
        return True  # Object takes a boxed literal; a type variable (T, K2) may be bound to its class
    return parameter in _LITERAL_TARGETS[kind]


_TYPE_VARIABLE = re.compile(r"[A-Z][A-Z0-9]?")


def arguments_at(text: str, start: int) -> Arguments | None:
    """The arguments, as written and stripped, from ``start`` (just after a ``(``) to its matching ``)``,
    split at the top level: nested brackets, strings, character literals and type arguments (``Map<K, V>``)
    hold their own commas; None when the ``)`` is not there."""
    depth = 0
    angle = 0
    cut = start
    parts: list[str] = []
    at = start
    while at < len(text):
        char = text[at]
        if char in "\"'":
            at = _literal_end(text, at) - 1  # its closing quote
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            if depth == 0:
                last = text[cut:at].strip()
                return tuple([*parts, last]) if parts or last else ()
            depth -= 1
        elif char == "<" and at > 0 and re.match(r"[\w$]", text[at - 1]):
            angle += 1
        elif char == ">" and angle:
            angle -= 1
        elif char == "," and depth == 0 and angle == 0:
            parts.append(text[cut:at].strip())
            cut = at + 1
        at += 1
    return None


_LITERAL_OR_COMMENT = re.compile(
    r"\"\"\"(?s:.*?)\"\"\"|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|(/\*(?s:.*?)\*/|//[^\n]*)"
)


def without_comments(text: str) -> str:
    """``text`` with each comment blanked (a line comment to its line's end, a block comment kept as its
    line breaks), string and character literals and text blocks left as they are (``"http://x"``)."""

    def blank(found: re.Match[str]) -> str:
        comment = found.group(1)
        if comment is None:
            return found.group(0)
        return "\n".join(" " * len(part) for part in comment.split("\n"))

    return _LITERAL_OR_COMMENT.sub(blank, text)


_ENUM_BODY = re.compile(r"\benum\b[^{]*\{([^;}]*)")
_ENUM_CONSTANT = re.compile(rf"(?:^|,)\s*(?:@[\w$.]+(?:\([^)]*\))?\s*)*({_IDENT})")


def enum_constants(text: str) -> set[str]:
    """The constants an enum's text (its own lines) declares before its first ``;``: ``A, B(1), C {``."""
    body = _ENUM_BODY.search(text)
    if body is None:
        return set()
    flat = re.sub(r"\([^()]*\)", "", body.group(1))  # constants' arguments
    return {found.group(1) for found in _ENUM_CONSTANT.finditer(flat)}


_CHAIN = re.compile(
    r"(?:new\s+)?[\w$]+(?:\s*\.\s*[\w$]+)*(?:\s*<>)?(?:\s*\(\))?(?:\s*\{\})?"
    r"(?:\s*\.\s*[\w$]+(?:\s*\(\))?)*"
)


def is_chain(expression: str) -> bool:
    """Whether an expression is only a name, a ``new``, or calls and fields read through one another
    (``Canvas.builder().build()``), with no operator, cast, literal or array access outside its brackets."""
    return _CHAIN.fullmatch(_skeleton(expression)) is not None


def _skeleton(expression: str) -> str:
    """``expression`` with what its brackets and string literals hold left out (the brackets kept)."""
    out: list[str] = []
    depth = 0
    at = 0
    while at < len(expression):
        char = expression[at]
        if char in "\"'":
            at = _literal_end(expression, at)
            if depth == 0:
                out.append("'")  # a literal stays visible, so it is no chain
            continue
        opening = char in _OPEN or (char == "<" and at > 0 and re.match(r"[\w$]", expression[at - 1]))
        if opening:
            if depth == 0:
                out.append(char)
            depth += 1
        elif char in _CLOSE or (char == ">" and depth):
            depth = max(depth - 1, 0)
            if depth == 0:
                out.append(char)
        elif depth == 0:
            out.append(char)
        at += 1
    return "".join(out)


def _literal_end(text: str, start: int) -> int:
    """Where the string or character literal opening at ``start`` ends: just after its closing quote (or
    at the end of ``text``), escapes skipped."""
    end = start + 1
    while end < len(text) and text[end] != text[start]:
        end += 2 if text[end] == "\\" else 1
    return min(end + 1, len(text))
