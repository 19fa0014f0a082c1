"""Rust symbols, doc comments and imports as rustc's own parser (the ``syn`` crate) reads them."""

from __future__ import annotations

import textwrap

from prooftext.graph import NODE_SYMBOL, FileGraph
from prooftext.graph.extract import extract


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _symbols(graph: FileGraph) -> list[tuple[str, str, int, int, str]]:
    return [
        (n.qualname, n.symbol_kind, n.start_line, n.end_line, n.docstring)
        for n in graph.nodes
        if n.kind == NODE_SYMBOL
    ]


def test_a_rust_doc_comment_keeps_its_markdown_list_but_a_block_comment_loses_its_margin() -> None:
    text = _code("""
        /// Options:
        ///
        /// * `a`: the first
        /// * `b`: the second
        pub struct Listed;

        /**
         * A block comment.
         * Its margin is no list.
         */
        pub struct Blocked;
    """)
    docs = {q: doc for q, _, _, _, doc in _symbols(extract("src/lib.rs", text))}
    assert docs["Listed"] == "Options:\n\n* `a`: the first\n* `b`: the second"
    assert docs["Blocked"] == "A block comment.\nIts margin is no list."
