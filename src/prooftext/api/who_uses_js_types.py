"""The classes that JavaScript and TypeScript code states for its variables, where its text says so plainly:
``const x = new Foo()``, a parameter or variable annotated ``x: Foo`` (``Foo<T>``, ``Foo | null`` too), and for
``this.x`` a class field ``x: Foo``, a constructor parameter property ``constructor(private x: Foo)`` or
``this.x = new Foo()``; a variable assigned a call (``const bench = metabench(…)``) states that call, spelled
as a receiver is (``metabench()``), for who-uses to follow through the type the called function declares it
returns (:func:`declared_result`). A name bound more than once is typed only when every binding says the
same; any binding this does not read (``x = y``) leaves it untyped. Read from a function's or a class's text
with regular expressions, at query time."""

from __future__ import annotations

import re

from prooftext.graph.model import js_receiver

_IDENT = r"[A-Za-z_$][\w$]*"
_TYPE = re.compile(rf"\s*({_IDENT})\s*(?:<[^=;{{}}()]*>)?\s*(?:\|\s*(?:null|undefined)\s*)*$")
"""A class as an annotation names it: ``Foo``, ``Foo<T>``, ``Foo | null``; not an array, a union of two
classes, an object type or a function type."""
_NEW = re.compile(rf"\s*new\s+({_IDENT})\s*(?:<[^=;{{}}()]*>)?\s*\(")
_MODIFIERS = r"(?:(?:public|private|protected|readonly|static|declare|override|abstract)\s+)"


def _annotation(text: str) -> str | None:
    """The class an annotation's text names (see :data:`_TYPE`), or None."""
    found = _TYPE.match(text)
    return found.group(1) if found else None


def _assigned(text: str) -> str | None:
    """The class a value's text constructs (``new Foo(…)``), or the call it makes spelled as a receiver
    (``metabench()``, ``z.string().min()``: see :func:`is_call`), or None."""
    found = _NEW.match(text)
    if found:
        return found.group(1)
    spelled = js_receiver(text.strip())
    return spelled if is_call(spelled) else None


def is_call(stated: str) -> bool:
    """Whether what :func:`local_class_name` states is a call to follow, not a class's name."""
    return stated.endswith(")")


def declared_result(signature: str) -> str | None:
    """The class a function's or method's ``signature`` declares it returns: the annotation after its
    parameters (``string(params?: Params): ZodString``, ``get req(): HonoRequest<P>``, ``const f = (x):
    Foo =>``), ``this`` for a method returning its receiver; None when it declares none, or no plain class
    (see :data:`_TYPE`: ``Promise<Foo>`` names ``Promise``)."""
    start = signature.find("(")
    depth, end = 0, -1
    for at in range(max(start, 0), len(signature) if start >= 0 else 0):
        depth += {"(": 1, ")": -1}.get(signature[at], 0)
        if depth == 0:
            end = at
            break
    found = re.match(r"\s*:\s*([^{;]*?)\s*(?:\{|;|=>|$)", signature[end + 1 :]) if end >= 0 else None
    return _annotation(found.group(1)) if found else None


def _value_text(text: str, start: int) -> str:
    """The value an assignment's text holds from ``start``: to the first ``;``, or line break, outside its
    brackets (a call's arguments may take many lines), a line break before a ``.`` continuing it."""
    depth = 0
    for at in range(start, len(text)):
        char = text[at]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return text[start:at]
        elif depth == 0 and (char == ";" or (char == "\n" and not _CONTINUED.match(text, at + 1))):
            return text[start:at]
    return text[start:]


_CONTINUED = re.compile(r"\s*\??\.(?!\.)")
"""A line that continues the expression above it (``  .min(5)``)."""


def agreed(stated: list[str | None]) -> str | None:
    """The one thing every entry of ``stated`` says, or None (none, or two that differ)."""
    first = stated[0] if stated else None
    return first if first is not None and all(s == first for s in stated) else None


def local_class_name(signature: str, text: str, name: str) -> str | None:
    """The class every binding of ``name`` in a function states: a parameter's annotation in its
    ``signature``, and in its ``text`` a declaration's annotation or a construction assigned to it (a
    parameter without annotation, or any other value, states none). See :func:`local_bindings`."""
    return stated_class(text, local_bindings(signature, text).get(name, []))


_PARAMETER = re.compile(rf"[(,]\s*{_MODIFIERS}*(?:\.\.\.)?({_IDENT})\s*\??\s*(?::\s*([^=,)]+))?\s*(?=[,)=])")
_DECLARED = re.compile(
    rf"\b(?:const|let|var)\s+({_IDENT})(?![\w$])\s*(?::\s*([^=;\n]+))?(?:=(?![=>])([^;\n]*))?"
)
_ASSIGNED = re.compile(rf"(?<![\w$.])({_IDENT})\s*=(?![=>])([^;\n]*)")
_DECLARATION_END = re.compile(r"\b(?:const|let|var)\s+$")
Binding = str | int
"""One binding of a name as :func:`local_bindings` finds it: an annotation's text, or where in the function's
text the value assigned to it starts."""


def local_bindings(signature: str, text: str) -> dict[str, list[Binding]]:
    """Every binding of every name in a function, found in one pass of its ``signature`` and ``text``: what
    each states is read only for the names asked about (:func:`stated_class`)."""
    found_in: dict[str, list[Binding]] = {}
    for found in _PARAMETER.finditer(signature):
        found_in.setdefault(found.group(1), []).append(found.group(2) or "")
    for found in _DECLARED.finditer(text):
        name, annotation, value = found.groups()
        if annotation:
            found_in.setdefault(name, []).append(annotation)
        elif not _empty(value):  # `let x;` or `let x = null`: what is assigned later says
            found_in.setdefault(name, []).append(found.start(3))
    for found in _ASSIGNED.finditer(text):
        declaration = _DECLARATION_END.search(text, max(0, found.start() - 16), found.start())
        if not declaration and not _empty(found.group(2)):  # the declaration is read above
            found_in.setdefault(found.group(1), []).append(found.start(2))
    return found_in


def stated_class(text: str, bindings: list[Binding]) -> str | None:
    """What every one of a name's ``bindings`` (from :func:`local_bindings` over ``text``) states, when they
    agree: an annotation's class, a constructed class or a call spelled as a receiver."""
    return agreed(
        [_annotation(b) if isinstance(b, str) else _assigned(_value_text(text, b)) for b in bindings]
    )


def _empty(value: str | None) -> bool:
    """Whether an assigned value says nothing of a class: none, ``null`` or ``undefined``."""
    return value is None or value.strip() in ("", "null", "undefined")


def field_class_name(text: str, name: str) -> str | None:
    """The class every binding of ``this.name`` in a class's ``text`` states: a field declaration, a
    constructor parameter property, or ``this.name = new Foo()``."""
    word = re.escape(name)
    stated: list[str | None] = []
    declared = rf"(?m)^\s*{_MODIFIERS}*{word}\s*[?!]?\s*:\s*([^=;\n]+)"
    stated.extend(_annotation(found.group(1)) for found in re.finditer(declared, text))
    parameter = (
        rf"[(,]\s*(?:public|private|protected|readonly)\s+{_MODIFIERS}*{word}\s*\??\s*:\s*([^=,();{{}}]+)"
    )
    stated.extend(_annotation(found.group(1)) for found in re.finditer(parameter, text))
    assigned = rf"\bthis\.{word}\s*=(?![=>])([^;\n]*)"
    stated.extend(_assigned(v.group(1)) for v in re.finditer(assigned, text) if not _empty(v.group(1)))
    return agreed(stated)


def binds_name(signature: str, name: str) -> bool:
    """Whether a function's ``signature`` has a parameter ``name`` (a use of the name in the function is
    that parameter's; a local ``const`` is not read, as it may be the very ``require`` of the definition)."""
    word = re.escape(name)
    parameter = rf"[(,]\s*{_MODIFIERS}*(?:\.\.\.)?{word}\s*\??\s*(?::[^=,)]+)?\s*(?:=[^,)]*)?[,)]"
    return re.search(parameter, signature) is not None
