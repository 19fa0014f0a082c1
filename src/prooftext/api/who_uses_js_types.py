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
from dataclasses import dataclass

from prooftext.graph.model import js_receiver

_IDENT = r"[A-Za-z_$][\w$]*"
_TYPE = re.compile(rf"\s*({_IDENT})\s*(?:<[^=;{{}}()]*>)?\s*(?:\|\s*(?:null|undefined)\s*)*$")
"""A class as an annotation names it: ``Foo``, ``Foo<T>``, ``Foo | null``; not an array, a union of two
classes, an object type or a function type."""
_NEW = re.compile(rf"\s*new\s+({_IDENT})\s*(?:<[^=;{{}}()]*>)?\s*\(")
_MODIFIERS = r"(?:(?:public|private|protected|readonly|static|declare|override|abstract)\s+)"


def annotation_name(text: str) -> str | None:
    """The class an annotation's text names (see :data:`_TYPE`), or None."""
    found = _TYPE.match(text)
    return found.group(1) if found else None


AWAITED = "await "
"""What a stated call awaited starts with (``await app.request()``): its value is what the promise holds."""


def _assigned(text: str) -> str | None:
    """The class a value's text constructs (``new Foo(…)``), or the call it makes spelled as a receiver
    (``metabench()``, ``z.string().min()``: see :func:`is_call`; awaited, after :data:`AWAITED`), or None."""
    found = _NEW.match(text)
    if found:
        return found.group(1)
    value = text.strip()
    awaited = value.startswith(AWAITED)
    spelled = js_receiver(value[len(AWAITED) :].lstrip() if awaited else value)
    return (AWAITED if awaited else "") + spelled if is_call(spelled) else None


def is_call(stated: str) -> bool:
    """Whether what :func:`local_class_name` states is a call to follow, not a class's name."""
    return stated.endswith(")")


def declared_result(signature: str, awaited: bool = False) -> str | None:
    """The class a function's or method's ``signature`` declares it returns: the annotation after its
    parameters (``string(params?: Params): ZodString``, ``get req(): HonoRequest<P>``, ``const f = (x):
    Foo =>``), ``this`` for a method returning its receiver; None when it declares none, or no plain class
    (see :data:`_TYPE`: ``Promise<Foo>`` names ``Promise``). ``awaited``: the class its result holds once
    awaited (``Promise<Foo>``, ``Foo | Promise<Foo>`` and ``Foo`` name ``Foo``)."""
    stated, _body, written = _result_and_body(signature)
    return _awaited(written) if awaited and written is not None else stated


_PROMISE = re.compile(r"\s*(?:Promise|PromiseLike)\s*<(.*)>\s*$", re.DOTALL)


def _awaited(annotation: str) -> str | None:
    """The class every member of a union (``Foo | Promise<Foo>``) holds once awaited, or None."""
    members = [m for m in _top_level_split(annotation, "|") if m.strip() not in ("", "null", "undefined")]
    inner = [promise.group(1) if (promise := _PROMISE.match(m)) else m for m in members]
    return agreed([annotation_name(m) for m in inner])


def _top_level_split(text: str, separator: str) -> list[str]:
    """``text`` cut at each ``separator`` outside brackets."""
    pieces: list[str] = []
    depth, begun = 0, 0
    for at, char in enumerate(text):
        if char in "([{<":
            depth += 1
        elif char in ")]}>" and not (char == ">" and text[at - 1] == "="):
            depth -= 1
        elif char == separator and depth == 0:
            pieces.append(text[begun:at])
            begun = at + 1
    pieces.append(text[begun:])
    return pieces


def _result_and_body(header: str) -> tuple[str | None, int, str | None]:
    """What a function's ``header`` (its signature, or its text from the signature on) declares it returns
    (see :func:`declared_result`), where the body of an arrow starts after its ``=>`` (-1 for none), and the
    annotation of its result as written."""
    start = _parameters_start(header)
    depth, end = 0, -1
    for at in range(max(start, 0), len(header) if start >= 0 else 0):
        depth += {"(": 1, ")": -1}.get(header[at], 0)
        if depth == 0:
            end = at
            break
    found = _RESULT.match(header, end + 1) if end >= 0 else None
    if found is None:
        return None, -1, None
    written = found.group(1)
    stated = annotation_name(written) if written is not None else None
    return stated, found.end() if found.group(2) == "=>" else -1, written


def _parameters_start(header: str) -> int:
    """Where a function's parameter list opens in its ``header``, after any type parameters (``<T, F
    extends (v: T) => R>(…)``), or -1."""
    start, generic = header.find("("), header.find("<")
    if 0 <= generic < start:
        closed = _closing(header, generic)
        start = header.find("(", closed) if closed >= 0 else -1
    return start


_RESULT = re.compile(r"\s*(?::\s*([^{;]*?))?\s*(\{|;|=>|$)")
"""What follows a function's parameters: its declared result, then its body (``{``, an arrow's ``=>``)."""


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


@dataclass(frozen=True)
class Contextual:
    """A parameter of a function the code does not annotate, whose type its context states: the
    ``position``-th parameter of the function type ``via`` names (``const f: GetConnInfo = (c) =>``, or a
    function returned where the enclosing one declares it returns a ``MiddlewareHandler``)."""

    via: str
    position: int
    called: bool = False
    """``via`` names a function the callback is passed to as its first argument (``createMiddleware(async
    (c, next) => …)``): the function type is that parameter's annotation."""


_PARAMETER = re.compile(rf"[(,]\s*{_MODIFIERS}*(?:\.\.\.)?({_IDENT})\s*\??\s*(?::\s*([^=,)]+))?\s*(?=[,)=])")
_DECLARED = re.compile(
    rf"\b(?:const|let|var)\s+({_IDENT})(?![\w$])\s*(?::\s*([^=;\n]+))?(?:=(?![=>])([^;\n]*))?"
)
_ASSIGNED = re.compile(rf"(?<![\w$.])({_IDENT})\s*=(?![=>])([^;\n]*)")
_DECLARATION_END = re.compile(r"\b(?:const|let|var)\s+$")
Binding = str | int | Contextual
"""One binding of a name as :func:`local_bindings` finds it: an annotation's text, where in the function's
text the value assigned to it starts, or the context that states an unannotated parameter's type."""
_TYPED_FUNCTION = re.compile(
    rf"\s*(?:export\s+)?(?:const|let|var)\s+{_IDENT}\s*:\s*({_IDENT})\s*(?:<[^=;{{}}]*>)?\s*="
    r"\s*(?:async\s+)?(?:function\b\s*\*?\s*[\w$]*\s*)?(?=\()"
)
"""A variable annotated with a function type and assigned a function: ``const f: GetConnInfo = (c) =>``."""
_FUNCTION_EXPRESSION = re.compile(r"\s*(?:async\s+)?(?:(function\b\s*\*?\s*[\w$]*\s*)(?=\()|(?=\())")
"""A function expression from its start to its parameter list (``async function etag(c, next) {``,
``(c) =>``)."""
_RETURN = re.compile(r"(?<![\w$.])return\b")
_PASSED_FUNCTION = re.compile(r"\(\s*(?:async\s+)?(?:(function\b\s*\*?\s*[\w$]*\s*)(?=\()|(?=\())")
"""A function expression passed as the first argument of a call (``createMiddleware(async (c, next) => {``),
from the call's ``(``: :data:`_CALLEE` reads the name called before it."""
_CALLEE = re.compile(rf"(?<![\w$.])({_IDENT})\s*(?:<[^<>()]*>)?\s*$")
_CALLEE_CHARS = 120
"""How far before a call's ``(`` its plain name and type arguments are looked for."""
_HEADER_CHARS = 60
"""The first characters of a function's signature, which its text holds as they are (a signature is cut
short at 500 characters)."""


def local_bindings(signature: str, text: str) -> dict[str, list[Binding]]:
    """Every binding of every name in a function, found in one pass of its ``signature`` and ``text``: what
    each states is read only for the names asked about (:func:`stated_class`). An unannotated parameter is
    typed by its context (:class:`Contextual`) where the function is assigned to a variable annotated with a
    function type, is returned where the enclosing function declares its result, or is passed as the first
    argument of a function called by its plain name."""
    found_in: dict[str, list[Binding]] = {}

    def bind(parameters: list[tuple[str, Binding]] | None) -> None:
        for name, binding in parameters or []:
            found_in.setdefault(name, []).append(binding)

    typed = _TYPED_FUNCTION.match(signature)
    contextual = _function_parameters(signature, typed.end(), typed.group(1)) if typed else None
    bind(contextual)
    for found in _PARAMETER.finditer(signature) if contextual is None else ():
        found_in.setdefault(found.group(1), []).append(found.group(2) or "")
    header = text.find(signature[:_HEADER_CHARS]) if signature else -1  # after the doc comment
    result, body, _written = _result_and_body(text[header:] if header >= 0 else signature)
    arrow_body = header + body if header >= 0 and body >= 0 else -1
    for found in _returned_functions(text, arrow_body) if result else ():
        bind(_function_parameters(text, found.end(), result, bool(found.group(1))))
    for found in _PASSED_FUNCTION.finditer(text):
        callee = _CALLEE.search(text, max(0, found.start() - _CALLEE_CHARS), found.start())
        if callee is not None:
            bind(_function_parameters(text, found.end(), callee.group(1), bool(found.group(1)), called=True))
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


def _returned_functions(text: str, body: int) -> list[re.Match[str]]:
    """The function expressions a function's ``text`` returns as its own result: the body of an arrow, from
    ``body`` (``(o): MiddlewareHandler => async function etag(c, next) {``), and those of its ``return``
    statements outside any block (a ``return`` in a nested function, or in an ``if`` block, is not read)."""
    found: list[re.Match[str]] = []
    expression = _FUNCTION_EXPRESSION.match(text, body) if body >= 0 else None
    if expression is not None:
        found.append(expression)
    for at in _top_level_returns(text):
        expression = _FUNCTION_EXPRESSION.match(text, at + len("return"))
        if expression is not None:
            found.append(expression)
    return found


def _top_level_returns(text: str) -> list[int]:
    """Where each ``return`` of a function's ``text`` (its header, then its body's braces) stands directly in
    its body: at brace depth one, outside strings and comments."""
    returns = {found.start() for found in _RETURN.finditer(text)}
    if not returns:
        return []
    out: list[int] = []
    depth, at, size = 0, 0, len(text)
    while at < size:
        char = text[at]
        if char in "'\"`":
            at = _string_end(text, at)
        elif text.startswith("//", at):
            at = text.find("\n", at) % (size + 1)
        elif text.startswith("/*", at):
            at = (text.find("*/", at) + 1) % (size + 1)
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif depth == 1 and at in returns:
            out.append(at)
        at += 1
    return out


def _string_end(text: str, start: int) -> int:
    """Where the string literal opened at ``start`` closes (its last character), or the text's end."""
    quote, at = text[start], start + 1
    while at < len(text):
        if text[at] == "\\":
            at += 2
            continue
        if text[at] == quote or (text[at] == "\n" and quote != "`"):
            return at
        at += 1
    return len(text)


def _closing(text: str, start: int) -> int:
    """Where the bracket opened at ``start`` closes, or -1."""
    depth = 0
    for at in range(start, len(text)):
        char = text[at]
        if char in "([{<":
            depth += 1
        elif char in ")]}>" and not (char == ">" and text[at - 1] == "="):
            depth -= 1
            if depth == 0:
                return at
    return -1


def parameter_list(text: str, start: int) -> list[tuple[str, str]] | None:
    """(name, annotation or "") of each parameter of the list opened at ``start`` (a rest parameter by its
    name), or None where one is not a plain name (a destructured object or array) or the list does not
    close."""
    end = _closing(text, start)
    return _parameters(text[start + 1 : end]) if end >= 0 else None


def _parameters(inside: str) -> list[tuple[str, str]] | None:
    """:func:`parameter_list` of the text ``inside`` a parameter list's parentheses."""
    out: list[tuple[str, str]] = []
    for piece in (p.strip() for p in _top_level_split(inside, ",")):
        found = re.fullmatch(rf"(?:\.\.\.)?({_IDENT})\s*\??\s*(?::\s*([^=]+?))?\s*(?:=.*)?", piece, re.DOTALL)
        if found is None:
            return None if piece else out
        out.append((found.group(1), found.group(2) or ""))
    return out


def _function_parameters(
    text: str, start: int, via: str | None, function: bool = False, called: bool = False
) -> list[tuple[str, Binding]] | None:
    """The parameters of the function whose parameter list opens at ``start`` in ``text``, each bound to its
    annotation or, unannotated, to its ``position`` in the function type ``via`` (None: to nothing known);
    None when no function starts there (an arrow's list is followed by ``=>``, a ``function``'s by ``{``)."""
    end = _closing(text, start)
    after = re.match(r"\s*(?::[^=;{}]*?)?\s*(=>|\{)", text[end + 1 : end + 200]) if end >= 0 else None
    if after is None or (after.group(1) == "{") != function:
        return None
    parameters = _parameters(text[start + 1 : end])
    if parameters is None:
        return None
    return [
        (name, annotation or (Contextual(via, position, called) if via else ""))
        for position, (name, annotation) in enumerate(parameters)
    ]


def first_parameter_type(signature: str) -> str | None:
    """The annotation of a function's first parameter, from its ``signature`` (type parameters skipped)."""
    start = _parameters_start(signature)
    parameters = parameter_list(signature, start) if start >= 0 else None
    return (parameters[0][1] or None) if parameters else None


def function_type_parameter(text: str, position: int) -> str | None:
    """The class a function type states for its ``position``-th parameter, or None: the type written out
    (``(c: Context) => void``) or a type alias of one (``type GetConnInfo = (c: Context) => ConnInfo``,
    generic parameters too)."""
    if text.lstrip().startswith("("):
        parameters = parameter_list(text, text.index("("))
        return annotation_name(parameters[position][1]) if parameters and position < len(parameters) else None
    equals = re.search(rf"\btype\s+{_IDENT}\s*", text)
    if equals is None:
        return None
    at = equals.end()
    if text.startswith("<", at):
        at = _closing(text, at) + 1
        if at == 0:
            return None
    found = re.compile(r"\s*=\s*(?=\()").match(text, at)
    parameters = parameter_list(text, found.end()) if found else None
    if not parameters or position >= len(parameters):
        return None
    return annotation_name(parameters[position][1])


def stated_class(text: str, bindings: list[Binding]) -> str | None:
    """What every one of a name's ``bindings`` (from :func:`local_bindings` over ``text``) states, when they
    agree: an annotation's class, a constructed class or a call spelled as a receiver."""
    return agreed([_stated(text, b) for b in bindings])


def _stated(text: str, binding: Binding) -> str | None:
    if isinstance(binding, str):
        return annotation_name(binding)
    if isinstance(binding, int):
        return _assigned(_value_text(text, binding))
    return None  # the context's type is the caller's to resolve


def _empty(value: str | None) -> bool:
    """Whether an assigned value says nothing of a class: none, ``null`` or ``undefined``."""
    return value is None or value.strip() in ("", "null", "undefined")


def field_class_name(text: str, name: str) -> str | None:
    """The class every binding of ``this.name`` in a class's ``text`` states: a field declaration, a
    constructor parameter property, or ``this.name = new Foo()``."""
    word = re.escape(name)
    stated: list[str | None] = []
    declared = rf"(?m)^\s*{_MODIFIERS}*{word}\s*[?!]?\s*:\s*([^=;\n]+)"
    stated.extend(annotation_name(found.group(1)) for found in re.finditer(declared, text))
    parameter = (
        rf"[(,]\s*(?:public|private|protected|readonly)\s+{_MODIFIERS}*{word}\s*\??\s*:\s*([^=,();{{}}]+)"
    )
    stated.extend(annotation_name(found.group(1)) for found in re.finditer(parameter, text))
    assigned = rf"\bthis\.{word}\s*=(?![=>])([^;\n]*)"
    stated.extend(_assigned(v.group(1)) for v in re.finditer(assigned, text) if not _empty(v.group(1)))
    return agreed(stated)


def binds_name(signature: str, name: str) -> bool:
    """Whether a function's ``signature`` has a parameter ``name`` (a use of the name in the function is
    that parameter's; a local ``const`` is not read, as it may be the very ``require`` of the definition)."""
    word = re.escape(name)
    parameter = rf"[(,]\s*{_MODIFIERS}*(?:\.\.\.)?{word}\s*\??\s*(?::[^=,)]+)?\s*(?:=[^,)]*)?[,)]"
    return re.search(parameter, signature) is not None
