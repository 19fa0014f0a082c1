"""The types of a Go function's parameters and local variables, where its text states them plainly: a
parameter's declared type (of the function or of a function literal inside it), a composite literal
(``x := &Engine{}``), ``new(T)``, ``var x T``, and the declared result of a call (``c, _ :=
CreateTestContext(w)``, ``cp := c.Copy()``). A name declared more than once in a function is typed only when
every declaration gives the same type; any declaration this does not read leaves it untyped."""

from __future__ import annotations

import re
from dataclasses import dataclass

_IDENT = re.compile(r"[A-Za-z_]\w*")
_TYPE = re.compile(r"\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)(?:\[[^\[\]]*\])?")
"""A named type as a variable or result holds it: ``T``, ``*T``, ``pkg.T``, ``T[K]``; not a slice, map,
channel or function."""
_KEYWORDS = frozenset({"chan", "func", "map", "struct", "interface"})
_NAMES = r"((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)"
_SHORT = re.compile(r"(?:^\s*|[;{]\s*|\b(?:if|for|switch|select|case|go|defer)\s+)" + _NAMES + r"\s*:=\s*")
_VAR = re.compile(r"^var\s+" + _NAMES + r"\s*([^=]*?)\s*(?:=\s*(.*))?$")
_LITERAL = re.compile(r"&?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)(?:\[[^\[\]]*\])?\s*\{")
_NEW = re.compile(r"new\(\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*\)")
_CALL = re.compile(r"([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?\s*\(")
_FUNC_LITERAL = re.compile(r"\bfunc\s*\(")
_OPENERS = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class Declared:
    """What one declaration says of a name: a type as written (``*Context``, ``gin.Engine``), or the
    ``index``-th result of a call of ``head(…)`` or ``head.member(…)``; neither when it is not read."""

    type_text: str = ""
    head: str = ""
    member: str = ""
    index: int = 0

    @property
    def known(self) -> bool:
        return bool(self.type_text or self.head)


UNREAD = Declared()


def closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at ``start``, or -1 when the text ends first."""
    stack: list[str] = []
    for i in range(start, len(text)):
        char = text[i]
        if char in _OPENERS:
            stack.append(_OPENERS[char])
        elif stack and char == stack[-1]:
            stack.pop()
            if not stack:
                return i
    return -1


def _split_top(text: str) -> list[str]:
    """``text`` cut at the commas outside any bracket."""
    parts: list[str] = []
    depth, begin = 0, 0
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[begin:i])
            begin = i + 1
    parts.append(text[begin:])
    return [part.strip() for part in parts if part.strip()]


def type_name(text: str) -> str | None:
    """The named type a declared type holds (``*gin.Context`` gives ``gin.Context``), None for any other."""
    found = _TYPE.fullmatch(text.strip())
    return found.group(1) if found else None


def fields(inner: str) -> list[tuple[str, str]]:
    """``(name, type)`` of each entry of a parameter or result list's inside, a name ``""`` when unnamed:
    ``a, b int`` gives both names ``int``."""
    out: list[tuple[str, str]] = []
    pending: list[str] = []
    for item in _split_top(inner):
        head, _, rest = item.partition(" ")
        if rest.strip() and _IDENT.fullmatch(head) and head not in _KEYWORDS:
            out.extend((name, rest.strip()) for name in (*pending, head))
            pending = []
        else:
            pending.append(item)
    out.extend(("", item) for item in pending)
    return out


def signature_parts(signature: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The parameters (a method's receiver first) and the results of a Go ``func`` signature, as
    :func:`fields` reads them; an interface's method (``GET(string) IRoutes``) has no ``func``."""
    rest = signature.strip()
    rest = (
        rest[len("func") :].lstrip() if rest.startswith("func") and not _IDENT.fullmatch(rest[:5]) else rest
    )
    params: list[tuple[str, str]] = []
    if rest.startswith("("):  # a method's receiver
        end = closing(rest, 0)
        params, rest = fields(rest[1:end]), rest[end + 1 :].lstrip()
    named = _IDENT.match(rest)
    rest = rest[named.end() :].lstrip() if named else rest
    if rest.startswith("["):  # type parameters
        rest = rest[closing(rest, 0) + 1 :].lstrip()
    end = closing(rest, 0) if rest.startswith("(") else -1
    if end < 0:
        return params, []
    params += fields(rest[1:end])
    rest = rest[end + 1 :].strip().removesuffix("{").strip()
    if rest.startswith("("):
        end = closing(rest, 0)
        return params, fields(rest[1:end]) if end > 0 else []
    return params, [("", rest)] if rest else []


def _value(text: str, index: int) -> Declared:
    """What the value ``text`` (the ``index``-th a call gives, for a call) declares of a name."""
    text = text.strip()
    literal = _LITERAL.match(text)
    if literal and index == 0 and literal.group(1) not in _KEYWORDS:
        return Declared(type_text=literal.group(1))
    made = _NEW.fullmatch(text)
    if made and index == 0:
        return Declared(type_text=made.group(1))
    call = _CALL.match(text)
    if call and closing(text, call.end() - 1) == len(text) - 1:
        return Declared(head=call.group(1), member=call.group(2) or "", index=index)
    return UNREAD


def _assigned(names: list[str], values: str) -> list[tuple[str, Declared]]:
    """What ``a, b := values`` declares: one value per name, or every name from one call's results."""
    parts = _split_top(values)
    if len(parts) == len(names):
        return [(name, _value(part, 0)) for name, part in zip(names, parts, strict=True)]
    if len(parts) == 1:
        return [(name, _value(parts[0], i)) for i, name in enumerate(names)]
    return [(name, UNREAD) for name in names]


def _line_declarations(line: str) -> tuple[list[tuple[str, Declared]], list[tuple[str, Declared]]]:
    """The names a line of a Go function's body declares, with what it says of each: those of its
    statement, and the parameters of the function literals it opens."""
    stripped = line.strip()
    if not stripped or stripped.startswith("//"):
        return [], []
    params: list[tuple[str, Declared]] = []
    for found in _FUNC_LITERAL.finditer(line):
        end = closing(line, found.end() - 1)
        if end > 0:
            params += [
                (name, Declared(type_text=kind)) for name, kind in fields(line[found.end() : end]) if name
            ]
    var = _VAR.match(stripped)
    if var:
        names = [name.strip() for name in var.group(1).split(",")]
        if var.group(2):
            return [(name, Declared(type_text=var.group(2))) for name in names], params
        return (
            _assigned(names, var.group(3)) if var.group(3) else [(name, UNREAD) for name in names]
        ), params
    indent = len(line) - len(line.lstrip())
    out: list[tuple[str, Declared]] = []
    for short in _SHORT.finditer(line):
        names = [name.strip() for name in short.group(1).split(",")]
        plain = short.start(1) == indent
        out += _assigned(names, line[short.end() :]) if plain else [(name, UNREAD) for name in names]
    return out, params


_LITERALS = re.compile(r"//.*|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|`[^`]*`")


def _depths(body: list[str]) -> list[int]:
    """How many braces are open before each line of ``body``, and after its last (comments and string
    literals on one line skipped)."""
    depths = [0]
    for line in body:
        code = _LITERALS.sub("", line)
        depths.append(depths[-1] + code.count("{") - code.count("}"))
    return depths


def _block_end(depths: list[int], start: int, floor: int) -> int:
    """The index of the first line from ``start`` after which fewer than ``floor`` braces are open (the last
    line when none)."""
    for index in range(start, len(depths) - 1):
        if depths[index + 1] < floor:
            return index
    return len(depths) - 2


@dataclass(frozen=True)
class Scoped:
    """A declaration and the lines of the body it holds for (indexes into the body, both included)."""

    declared: Declared
    first: int
    last: int


def declarations(signature: str, body: list[str]) -> dict[str, list[Scoped]]:
    """Every declaration of a name in a Go function, with its scope: the signature's parameters hold for
    the whole body; a statement's names from their line to the end of its block; a function literal's
    parameters from the next line to the end of the literal (its own line too when it ends there)."""
    found: dict[str, list[Scoped]] = {}
    whole = len(body) - 1
    for name, kind in signature_parts(signature)[0]:
        if name and name != "_":
            found.setdefault(name, []).append(Scoped(Declared(type_text=kind), 0, whole))
    depths = _depths(body)
    for index, line in enumerate(body):
        statement, params = _line_declarations(line)
        end = _block_end(depths, index, depths[index])
        inner = (
            _block_end(depths, index + 1, depths[index] + 1) if depths[index + 1] > depths[index] else index
        )
        for name, declared in statement:
            found.setdefault(name, []).append(Scoped(declared, index, end))
        for name, declared in params:
            found.setdefault(name, []).append(Scoped(declared, min(index + 1, inner), inner))
    return {name: scoped for name, scoped in found.items() if name != "_"}


def in_scope(scoped: list[Scoped], index: int) -> list[Scoped]:
    """The declarations that hold at line ``index`` of the body: the innermost ones (declared last)."""
    holding = [s for s in scoped if s.first <= index <= s.last]
    latest = max((s.first for s in holding), default=-1)
    return [s for s in holding if s.first == latest]
