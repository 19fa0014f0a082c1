"""Value types of the code/doc graph, shared by extraction, the store and selection."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from prooftext.canonical import MAX_SAFE_INTEGER, content_id

NODE_FILE = "file"
NODE_SECTION = "section"  # a Markdown / reStructuredText section, by heading
NODE_SYMBOL = "symbol"  # class, function, method, ... from tree-sitter
NODE_CHUNK = "chunk"  # a line window of a file in a language without a parser

EDGE_CONTAINS = "contains"
EDGE_IMPORTS = "imports"
EDGE_REFERENCES = "references"
EDGE_LINKS = "links"
EDGE_CONTRADICTS = "contradicts"  # the one undirected edge; endpoints sorted

EDGE_TYPES: tuple[str, ...] = (EDGE_CONTAINS, EDGE_IMPORTS, EDGE_REFERENCES, EDGE_LINKS, EDGE_CONTRADICTS)


@dataclass(frozen=True)
class Node:
    """A unit of evidence: a file, section, code symbol or chunk, with a 1-based inclusive line range."""

    id: str
    kind: str
    path: str
    name: str
    qualname: str
    symbol_kind: str  # class | function | method | struct | interface | enum | ... ; "" for non-symbols
    start_line: int
    end_line: int
    language: str
    signature: str = ""
    docstring: str = ""
    parent_id: str | None = None
    text_sha256: str = ""  # lowercase SHA-256 of the node's lines (``\n`` terminators included)
    ordinal: int = 0  # how many earlier nodes of the file share (kind, qualname, symbol_kind): overloads


@dataclass(frozen=True)
class Edge:
    id: str
    type: str
    source: str
    target: str


HOW_CALL = "call"
"""A reference that is called: ``f()``, ``self.push()``."""
HOW_READ = "read"
"""Any other reference in code: a value passed on, an attribute read, a type, a decorator, a base class."""
HOW_FROM = "from"
"""``from module import name [as alias]`` (Python): binds ``alias`` (or ``name``) in the importing file."""
HOW_IMPORT = "import"
"""``import module [as alias]`` (Python): binds ``alias`` (or the module's first part)."""
REFERENCE_HOWS = (HOW_CALL, HOW_READ, HOW_FROM, HOW_IMPORT)
UNKNOWN_RECEIVER = "?"
"""The receiver of an attribute whose object is not a chain of names (``f().x``, ``a[0].x``)."""


@dataclass(frozen=True)
class Reference:
    """A reference as written, kept for who-uses: what is named, how, and through which receiver.

    ``name`` is the identifier named (for ``from``, the imported name; for ``import``, the module).
    ``receiver`` is the dotted chain before it (``self``, ``helpers``, ``self.app``, ``super()``,
    :data:`UNKNOWN_RECEIVER`), or the module for ``from``; ``""`` for a bare name. ``alias`` is the name
    an import binds when it renames. Spelled in a ``Use.name`` as its space-separated fields
    ``name how [receiver [alias]]`` (no field holds a space), so that the store finds every reference to
    a name with one index range on ``name `` and a plain-identifier use (a ranking use) never matches.
    """

    name: str
    how: str
    receiver: str = ""
    alias: str = ""

    def spelled(self) -> str:
        return spell(self.name, self.how, self.receiver, self.alias)

    @property
    def binding(self) -> str:
        """The name an import binds in its file (``""`` for a call or read)."""
        if self.how == HOW_FROM:
            return self.alias or self.name
        if self.how == HOW_IMPORT:
            return self.alias or self.name.lstrip(".").split(".", 1)[0]
        return ""


def spell(name: str, how: str, receiver: str = "", alias: str = "") -> str:
    """``Reference(name, how, receiver, alias).spelled()``, without building the reference (extraction
    spells hundreds of thousands)."""
    if alias:
        return f"{name} {how} {receiver} {alias}"
    if receiver:
        return f"{name} {how} {receiver}"
    return f"{name} {how}"


_C_RECEIVER = re.compile(r"\w+(?:\(\))?(?:(?:\.|::)\w+(?:\(\))?){0,5}")
"""A C or C++ receiver as :func:`c_receiver` spells it: names, fields and calls (``scan_.build_log()``)."""
_JS_RECEIVER = re.compile(r"[\w$]+(?:\(\))?(?:\.#?[\w$]+(?:\(\))?){0,5}")
"""A JavaScript or TypeScript receiver as :func:`js_receiver` spells it (``z.string()``, ``c.req``,
``this.#req``)."""


def _without_arguments(text: str) -> str:
    """``text`` with every call's arguments left out (``a.b(1, f(2)).c`` is ``a.b().c``) and ``->`` spelled
    ``.``; spaces outside the arguments are dropped."""
    out: list[str] = []
    depth = 0
    for char in text.replace("->", "."):
        if char == "(":
            if depth == 0:
                out.append("(")
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(")")
        elif depth == 0 and not char.isspace():
            out.append(char)
    return "".join(out)


def c_receiver(text: str) -> str:
    """A C or C++ receiver's text as a reference spells it, so that who-uses can follow it through the types
    the called functions declare they return (``scan_.build_log()->Close()`` is on ``scan_.build_log()``),
    or :data:`UNKNOWN_RECEIVER` for any other expression."""
    spelled = _without_arguments(text)
    return spelled if _C_RECEIVER.fullmatch(spelled) else UNKNOWN_RECEIVER


def js_receiver(text: str) -> str:
    """A JavaScript or TypeScript receiver's text spelled as :func:`c_receiver` does, optional chaining and
    line breaks around a ``.`` read as a plain ``.`` (``z.string()``, ``c.req.header()``), or
    :data:`UNKNOWN_RECEIVER` for any other expression; a space elsewhere (``new Foo()``, ``await f()``)
    makes it one."""
    plain = re.sub(r"\s*\??\.\s*", ".", text)
    spelled = _without_arguments(re.sub(r"\s", "\x01", plain))
    return spelled if _JS_RECEIVER.fullmatch(spelled) else UNKNOWN_RECEIVER


_PHP_MEMBERS = re.compile(r"\$?\w+(?:\s*\??->\s*\w+){0,5}")
_PHP_CLASS = re.compile(r"\\?\w+(?:\\\w+){0,7}")


def php_receiver(text: str) -> str:
    """A PHP receiver's text as a reference spells it: ``$this`` is ``this`` (``$this->repo`` is
    ``this.repo``), a variable keeps its ``$`` (``$client.config``), ``self``, ``static`` and ``parent`` and a
    class name stay as written, a namespaced class name is dotted without its leading backslash
    (``\\App\\Models\\User`` is ``App.Models.User``); :data:`UNKNOWN_RECEIVER` for any other expression
    (a call, an array element)."""
    text = text.strip()
    if _PHP_MEMBERS.fullmatch(text):
        parts = [part.strip() for part in re.split(r"\??->", text)]
        head = "this" if parts[0] == "$this" else parts[0]
        return ".".join([head, *parts[1:]])
    if _PHP_CLASS.fullmatch(text):
        return text.lstrip("\\").replace("\\", ".")
    return UNKNOWN_RECEIVER


def parse_reference(spelled: str) -> Reference | None:
    """The reference a ``Use.name`` spells, or None for a plain-name use (one without a space)."""
    fields = spelled.split(" ")
    if len(fields) < 2 or len(fields) > 4 or fields[1] not in REFERENCE_HOWS:
        return None
    return Reference(*fields)


@dataclass(frozen=True)
class Use:
    """A name used inside a node.

    Two forms: a plain identifier (a call, type, decorator, base class or exception name; common names
    and the node's own name left out) from which ranking resolves reference edges by name, and a spelled
    :class:`Reference` (every call, attribute and import, common names included) from which who-uses
    resolves dependents through imports, classes and receivers.
    """

    node_id: str
    name: str
    line: int

    @property
    def reference(self) -> Reference | None:
        return parse_reference(self.name)


@dataclass(frozen=True)
class ImportRef:
    """An import statement: the module spelled as written, resolved later to a repository file if possible."""

    node_id: str
    module: str
    line: int
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class LinkRef:
    """A Markdown link target, resolved later against the repository."""

    node_id: str
    target: str
    line: int


@dataclass
class FileGraph:
    """Everything extracted from one file in isolation (pure function of path and text)."""

    path: str
    language: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)  # intra-file edges (contains)
    uses: list[Use] = field(default_factory=list)
    imports: list[ImportRef] = field(default_factory=list)
    links: list[LinkRef] = field(default_factory=list)
    contradicts: list[str] = field(
        default_factory=list
    )  # declared contradiction targets (paths), resolved later


# Ids are computed for every node and edge of a repository (hundreds of thousands), so they are built
# directly in canonical form instead of through the general encoder. The bytes are identical to
# ``canonical.encode`` of the same dict (the tests check it); anything the fast path cannot vouch for —
# a lone surrogate, an id that is not 64 uppercase hex — goes through ``content_id``, which validates.
_HEX_ID = re.compile(r"[0-9A-F]{64}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_json_string = json.encoder.encode_basestring_ascii  # the canonical string form: ASCII, escaped


def _sha_upper(canonical: str) -> str:
    return hashlib.sha256(canonical.encode("ascii")).hexdigest().upper()


def node_id(
    *,
    kind: str,
    path: str,
    qualname: str,
    symbol_kind: str,
    start_line: int,
    end_line: int,
    text_sha256: str,
    ordinal: int,
) -> str:
    """Content id of a node. ``ordinal`` keeps same-named siblings (overloads, repeated headings) apart."""
    fields = {
        "kind": kind,
        "path": path,
        "qualname": qualname,
        "symbol_kind": symbol_kind,
        "start_line": start_line,
        "end_line": end_line,
        "text_sha256": text_sha256,
        "ordinal": ordinal,
    }
    strings = path + qualname + kind + symbol_kind + text_sha256
    if not strings.isascii() and _SURROGATE.search(strings):
        return content_id(fields)  # raises: a lone surrogate has no canonical form
    if max(abs(start_line), abs(end_line), abs(ordinal)) > MAX_SAFE_INTEGER:
        return content_id(fields)  # raises: outside the I-JSON safe range
    return _sha_upper(
        f'{{"end_line":{end_line},"kind":{_json_string(kind)},"ordinal":{ordinal},'
        f'"path":{_json_string(path)},"qualname":{_json_string(qualname)},"start_line":{start_line},'
        f'"symbol_kind":{_json_string(symbol_kind)},"text_sha256":{_json_string(text_sha256)}}}'
    )


def edge_id(edge_type: str, source: str, target: str) -> str:
    """Content id of an edge; the endpoints of the undirected ``contradicts`` edge are sorted first."""
    if edge_type == EDGE_CONTRADICTS:
        source, target = sorted((source, target))
    if edge_type in EDGE_TYPES and _HEX_ID.fullmatch(source) and _HEX_ID.fullmatch(target):
        return _sha_upper(f'{{"source":"{source}","target":"{target}","type":"{edge_type}"}}')
    return content_id({"type": edge_type, "source": source, "target": target})


def make_edge(edge_type: str, source: str, target: str) -> Edge:
    """An edge with its content id (``contradicts`` endpoints stored sorted)."""
    if edge_type == EDGE_CONTRADICTS:
        source, target = sorted((source, target))
    return Edge(id=edge_id(edge_type, source, target), type=edge_type, source=source, target=target)


def backquoted_name(text: str) -> str:
    """A Scala or Kotlin name as the language means it: a backquoted ``type`` is ``type`` (backquotes let a
    keyword or any text be a name: Kotlin's test methods are often sentences, ``fun `returns 404`()``)."""
    return text[1:-1] if len(text) > 2 and text[0] == text[-1] == "`" else text
