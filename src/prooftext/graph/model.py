"""Value types of the code/doc graph, shared by extraction, the store and selection."""

from __future__ import annotations

from dataclasses import dataclass, field

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
    """A unit of evidence: a file, a section, a code symbol or a chunk, with a 1-based inclusive line range."""

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


@dataclass(frozen=True)
class Edge:
    id: str
    type: str
    source: str
    target: str


@dataclass(frozen=True)
class Use:
    """An identifier used inside a node (resolved to definitions by name, across files)."""

    node_id: str
    name: str
    line: int


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
    contradicts: list[str] = field(default_factory=list)  # declared contradiction targets (paths), resolved later
