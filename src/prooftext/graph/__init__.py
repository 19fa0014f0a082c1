"""The code and documentation graph: nodes and edges extracted from files.

The names below load on first use: a module of this package (``graph.model``, wanted by every query) must
not pull in the parsers, which only a refresh that reads files needs. The extraction function is not among
them: its name is its module's (``prooftext.graph.extract``), which importing that module binds here, so it
is imported from the module.
"""

import importlib as _importlib
import typing as _typing

_MODULES = {
    "prooftext.graph.extract": (
        "CHUNK_LINES",
        "MAX_PARSE_BYTES",
        "MAX_USES_PER_FILE",
        "language_for",
    ),
    "prooftext.graph.model": (
        "EDGE_CONTAINS",
        "EDGE_CONTRADICTS",
        "EDGE_IMPORTS",
        "EDGE_LINKS",
        "EDGE_REFERENCES",
        "EDGE_TYPES",
        "NODE_CHUNK",
        "NODE_FILE",
        "NODE_SECTION",
        "NODE_SYMBOL",
        "Edge",
        "FileGraph",
        "ImportRef",
        "LinkRef",
        "Node",
        "Use",
        "edge_id",
        "make_edge",
        "node_id",
    ),
    "prooftext.graph.resolve": (
        "MAX_REFERENCE_FANOUT",
        "PathIndex",
        "build_edges",
        "resolve_import",
        "resolve_link",
    ),
}
_LAZY = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> _typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'prooftext.graph' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = sorted(_LAZY)
