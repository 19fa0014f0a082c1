"""Kotlin symbols, doc comments, signatures and imports as the language's grammar reads them (values checked
with the parser generated from the Kotlin specification's grammar, ``bench/kotlin_oracle``)."""

from __future__ import annotations

import pytest

from helpers import dedented, documented_rows, symbol_signatures
from prooftext.graph.extract import extract

STORE = dedented("""
    package app.store

    import app.model.Item
    import app.model.Order as O
    import app.util.*

    /**
     * Keeps items.
     *
     * @property size how many
     */
    @Suppress("unused")
    internal data class Store(val size: Int) : Base(), Logging {
        constructor() : this(1)

        // Puts one.
        override fun put(item: Item) {
            items.add(item)
        }

        /** Reads one. */
        abstract fun get(id: Int): Item?
        fun `type`(): String = "store"

        companion object {
            fun make(n: Int): Store = Store(n)
        }

        val runner = object : Runnable {
            override fun run() {}
        }
    }

    enum class Color {
        RED {
            override fun isRed() = true
        },
        GREEN;

        open fun isRed() = false
    }

    fun interface Shape {
        fun area(): Double
    }

    object Registry {
        fun register(s: Store) = s.size
    }

    annotation class Marker
    typealias Stores = List<Store>

    /** Top level. */
    fun String.shout(): String = uppercase()
""")


def _signatures(text: str) -> dict[tuple[str, str], str]:
    return symbol_signatures(extract("src/Store.kt", text))


def test_kotlin_classes_objects_funs_constructors_and_type_aliases_are_symbols() -> None:
    assert documented_rows(extract("src/Store.kt", STORE)) == [
        ("Store", "class", 7, 32, "Keeps items.\n\n@property size how many"),
        ("Store.constructor", "method", 14, 14, ""),
        ("Store.put", "method", 16, 19, "Puts one."),
        ("Store.get", "method", 21, 22, "Reads one."),
        ("Store.type", "method", 23, 23, ""),  # a backquoted name is the name it quotes
        ("Store.Companion", "object", 25, 27, ""),  # an unnamed companion is Kotlin's `Companion`
        ("Store.Companion.make", "method", 26, 26, ""),
        ("Store.run", "method", 30, 30, ""),  # an object expression's member is the class's
        ("Color", "enum", 34, 41, ""),
        ("Color.isRed", "method", 36, 36, ""),  # an enum entry's body's member is the enum's
        ("Color.isRed", "method", 40, 40, ""),
        ("Shape", "interface", 43, 45, ""),  # a `fun interface`
        ("Shape.area", "method", 44, 44, ""),
        ("Registry", "object", 47, 49, ""),
        ("Registry.register", "method", 48, 48, ""),
        ("Marker", "annotation", 51, 51, ""),
        ("Stores", "type", 52, 52, ""),
        ("shout", "function", 54, 55, "Top level."),  # an extension function by its own name
    ]


def test_a_kotlin_signature_starts_after_its_annotations_and_ends_before_the_body() -> None:
    signatures = _signatures(STORE)
    assert signatures["Store", "class"] == "internal data class Store(val size: Int) : Base(), Logging"
    assert signatures["Store.constructor", "method"] == "constructor() : this(1)"
    assert signatures["Store.put", "method"] == "override fun put(item: Item)"
    assert signatures["Store.get", "method"] == "abstract fun get(id: Int): Item?"
    assert signatures["Store.Companion", "object"] == "companion object"
    assert signatures["shout", "function"] == "fun String.shout(): String"
    assert signatures["Stores", "type"] == "typealias Stores = List<Store>"


def test_an_annotation_the_grammar_reads_apart_still_starts_the_declaration_and_keeps_its_doc_comment() -> (
    None
):
    text = dedented("""
        import kotlin.coroutines.*

        /**
         * Setup [HttpURLConnection] timeout configuration using [HttpTimeout.HttpTimeoutCapabilityConfiguration] as a source.
         */
        @OptIn(InternalAPI::class)
        internal fun HttpURLConnection.setupTimeoutAttributes(requestData: HttpRequestData) {
            requestData.apply()
        }
    """)
    graph = extract("Utils.kt", text)
    assert documented_rows(graph) == [
        (
            "setupTimeoutAttributes",
            "function",
            3,
            9,
            "Setup [HttpURLConnection] timeout configuration using [HttpTimeout.HttpTimeoutCapabilityConfiguration] as a source.",
        ),
    ]
    assert _signatures(text)["setupTimeoutAttributes", "function"] == (
        "internal fun HttpURLConnection.setupTimeoutAttributes(requestData: HttpRequestData)"
    )


def test_kotlin_uses_name_calls_types_supertypes_annotations_and_callable_references() -> None:
    uses = {u.name for u in extract("src/Store.kt", STORE).uses if " " not in u.name}
    assert {"Base", "Logging", "Item", "Runnable", "Suppress", "add", "uppercase"} <= uses
    assert "items" not in uses  # a property read, not a definition's use
    refs = {
        u.name for u in extract("a.kt", "fun f() = listOf(1).transform(Int::inc).mapNotNull(::parse)\n").uses
    }
    assert {"listOf", "transform", "inc", "mapNotNull", "parse"} <= refs


@pytest.mark.parametrize(
    ("statement", "module"),
    [
        ("import a.b.C", "a.b.C"),
        ("import a.b.C as D", "a.b.C"),
        ("import a.b.*", "a.b"),
        ("import a.`when`.C", "a.when.C"),
        ("import a.b.C;", "a.b.C"),
    ],
)
def test_kotlin_imports_are_each_imported_path_with_a_wildcard_as_its_package(
    statement: str, module: str
) -> None:
    graph = extract("src/a.kt", f"package x\n{statement}\n")
    assert [(i.module, i.line) for i in graph.imports] == [(module, 2)]


def test_a_gradle_kotlin_script_is_read_as_kotlin() -> None:
    graph = extract("build.gradle.kts", 'import org.x.Y\n\nfun helper(): Int = 1\n\nplugins { id("java") }\n')
    assert graph.language == "kotlin"
    assert documented_rows(graph) == [("helper", "function", 3, 3, "")]
    assert [i.module for i in graph.imports] == ["org.x.Y"]


def test_a_class_the_grammar_fails_inside_is_still_a_symbol_holding_the_methods_it_reads() -> None:
    text = dedented("""
        /** Android's URLConnectionTest, ported. */
        @Tag("Slow")
        class URLConnectionTest {
          @RegisterExtension
          val platform = PlatformRule()

          @BeforeEach
          fun setUp() {
            server.protocolNegotiationEnabled = false
          }

          @AfterEach
          fun tearDown() {
            System.clearProperty("proxyHost")
            if (cache != null) {
        }
    """)
    assert documented_rows(extract("URLConnectionTest.kt", text)) == [
        ("URLConnectionTest", "class", 1, 16, "Android's URLConnectionTest, ported."),
        ("URLConnectionTest.setUp", "method", 7, 10, ""),
    ]
    assert _signatures(text)["URLConnectionTest", "class"] == ("class URLConnectionTest")
    assert documented_rows(extract("a.kt", "fun a() {\n  val x = listOf(\n}\n")) == [
        ("a", "function", 1, 3, "")
    ]


def test_a_doc_comment_closed_with_two_stars_reads_without_them() -> None:
    text = "/** Modifies this query to return only [count] results. **/\nfun limit(count: Int) = count\n"
    assert documented_rows(extract("Query.kt", text)) == [
        ("limit", "function", 1, 2, "Modifies this query to return only [count] results.")
    ]
