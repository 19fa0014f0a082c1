"""Rust symbols, doc comments and imports as rustc's own parser (the ``syn`` crate) reads them."""

from __future__ import annotations

from helpers import dedented, documented_rows
from prooftext.graph.extract import extract


def test_a_rust_doc_comment_keeps_its_markdown_list_but_a_block_comment_loses_its_margin() -> None:
    text = dedented("""
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
    docs = {q: doc for q, _, _, _, doc in documented_rows(extract("src/lib.rs", text))}
    assert docs["Listed"] == "Options:\n\n* `a`: the first\n* `b`: the second"
    assert docs["Blocked"] == "A block comment.\nIts margin is no list."


ATTRIBUTED = dedented("""
    //! The crate's own doc, no item's.
    pub struct First;

    /// Try to create a file.
    #[allow(dead_code)] // unused on Windows
    pub fn try_create() {}

    #[cfg(unix)] // symlinks on windows are weird
    #[test]
    fn symlinks() {}

    #[derive(Debug)]
    /// Documented after its attribute.
    #[repr(C)]
    pub struct Derived;

    /// The JSON printer.
    ///
    /// ```

    #[derive(Clone)]

    pub struct Json;

    // A note above a blank line is no doc comment.

    pub fn plain() {}

    impl Json {
        /// Writes it.
        #[inline] // hot
        pub fn write(&self) {}
    }
""")


def test_a_rust_items_range_holds_all_its_outer_attributes_and_doc_comments_as_rustc_attaches_them() -> None:
    assert documented_rows(extract("src/lib.rs", ATTRIBUTED)) == [
        ("First", "struct", 2, 2, ""),
        ("try_create", "function", 4, 6, "Try to create a file."),
        ("symlinks", "function", 8, 10, ""),
        ("Derived", "struct", 12, 15, "Documented after its attribute."),
        ("Json", "struct", 17, 23, "The JSON printer.\n\n```"),
        ("plain", "function", 27, 27, ""),
        ("Json", "impl", 29, 33, ""),
        ("Json.write", "method", 30, 32, "Writes it."),
    ]


def test_rust_use_groups_give_one_import_per_module_they_name() -> None:
    text = dedented("""
        use std::fmt;
        use std::{io, path::Path};
        use {anyhow::Context as AnyhowContext, bstr::ByteVec};
        use crate::{decompress::{DecompressionReader, resolve_binary}, escape::*};
        use a::b::{self, c as d, e::f::{g, h::i}};
        use x::y as z;
        mod foo;
        mod inline {}
    """)
    graph = extract("src/lib.rs", text)
    assert [(i.module, i.names, i.line) for i in graph.imports] == [
        ("std::fmt", (), 1),
        ("std", ("io",), 2),
        ("std::path::Path", (), 2),
        ("anyhow::Context", (), 3),
        ("bstr::ByteVec", (), 3),
        ("crate::decompress", ("DecompressionReader", "resolve_binary"), 4),
        ("crate::escape", (), 4),
        ("a::b", ("self", "c"), 5),
        ("a::b::e::f", ("g",), 5),
        ("a::b::e::f::h::i", (), 5),
        ("x::y", (), 6),
        ("self::foo", (), 7),
    ]
