"""C and C++ symbols as a compiler reads them (checked against libclang by ``bench/symbols_c_bench.py``):
names, qualified names, kinds and line ranges where macros, headers and aliases trip a syntax reader."""

from __future__ import annotations

from helpers import dedented, symbol_rows
from prooftext.graph.extract import extract


def test_a_calling_convention_macro_before_a_function_name_leaves_the_function_its_name() -> None:
    graph = extract(
        "tests/main.c",
        dedented("""
            /* Runs the tests. */
            int CJSON_CDECL main(void)
            {
                return run();
            }
        """),
    )
    assert symbol_rows(graph) == [("main", "function", 1, 5)]
    main = graph.nodes[1]
    assert main.docstring == "Runs the tests."
    assert main.signature == "int CJSON_CDECL main(void)"


def test_an_export_macro_between_struct_and_its_name_gives_the_struct_and_its_methods() -> None:
    graph = extract(
        "include/approx.hpp",
        dedented("""
            namespace doctest {
            struct DOCTEST_INTERFACE Approx {
                double epsilon() const { return e; }
            };
            class API Widget final : public Base {
                int size() { return 1; }
            };
            }
        """),
    )
    assert symbol_rows(graph) == [
        ("doctest", "namespace", 1, 8),
        ("doctest.Approx", "struct", 2, 4),
        ("doctest.Approx.epsilon", "method", 3, 3),
        ("doctest.Widget", "class", 5, 7),
        ("doctest.Widget.size", "method", 6, 6),
    ]


def test_an_export_macro_before_a_class_s_name_leaves_the_class_its_whole_body() -> None:
    graph = extract(
        "tinyxml2.h",
        dedented("""
            namespace tinyxml2 {
            class TINYXML2_LIB XMLNode
            {
                friend class XMLDocument;
            public:
                const XMLDocument* GetDocument() const { return _document; }
                virtual ~XMLNode();
                XMLNode* LinkEndChild( XMLNode* addThis ) { return InsertEndChild( addThis ); }
            private:
                XMLNode( const XMLNode& );
            };
            class TINYXML2_LIB XMLText : public XMLNode
            {
                explicit XMLText( XMLDocument* doc ) : XMLNode( doc ) {}
            };
            }
        """),
    )
    assert symbol_rows(graph) == [
        ("tinyxml2", "namespace", 1, 16),
        ("tinyxml2.XMLNode", "class", 2, 11),
        ("tinyxml2.XMLNode.GetDocument", "method", 6, 6),
        ("tinyxml2.XMLNode.LinkEndChild", "method", 8, 8),
        ("tinyxml2.XMLText", "class", 12, 15),
        ("tinyxml2.XMLText.XMLText", "method", 14, 14),
    ]
    assert graph.nodes[2].signature == "class TINYXML2_LIB XMLNode"


def test_a_nested_class_defined_outside_its_class_is_named_in_its_scope() -> None:
    graph = extract(
        "table/table_builder.cc",
        dedented("""
            namespace leveldb {
            struct TableBuilder::Rep {
              Rep(const Options& opt) : options(opt) {}
              Options options;
            };
            }
        """),
    )
    assert symbol_rows(graph) == [
        ("leveldb", "namespace", 1, 6),
        ("leveldb.TableBuilder.Rep", "struct", 2, 5),
        ("leveldb.TableBuilder.Rep.Rep", "method", 3, 3),
    ]
    assert graph.nodes[2].name == "Rep"


def test_a_macro_before_class_or_namespace_leaves_the_class_or_namespace_its_name_and_kind() -> None:
    graph = extract(
        "include/fmt/args.hpp",
        dedented("""
            EXPORTED namespace detail {
            struct node { int x; };
            }
            GTEST_API_ class Foo {
              int size() { return 1; }
            };
        """),
    )
    assert symbol_rows(graph) == [
        ("detail", "namespace", 1, 3),
        ("detail.node", "struct", 2, 2),
        ("Foo", "class", 4, 6),
        ("Foo.size", "method", 5, 5),
    ]


def test_a_calling_convention_macro_inside_a_function_pointer_typedef_leaves_the_type_its_name() -> None:
    graph = extract(
        "contrib/minizip/ioapi.h",
        dedented("""
            typedef voidpf   (ZCALLBACK *open_file_func)      (voidpf opaque, const char* filename, int mode);
            typedef void (ZCALLBACK *free_func)(void *p);
            typedef void (*plain_func)(void *p);
        """),
    )
    assert symbol_rows(graph) == [
        ("open_file_func", "type", 1, 1),
        ("free_func", "type", 2, 2),
        ("plain_func", "type", 3, 3),
    ]


def test_a_statement_macro_alone_on_its_line_does_not_swallow_the_definitions_after_it() -> None:
    graph = extract(
        "include/fmt/base.hpp",
        dedented("""
            FMT_BEGIN_NAMESPACE

            // For older systems.
            template <bool B, typename T = void>
            using enable_if_t = typename std::enable_if<B, T>::type;

            FMT_BEGIN_EXPORT

            /** A string view. */
            template <typename Char> class basic_string_view {
             private:
              const Char* data_;
             public:
              auto size() const noexcept -> size_t { return size_; }
            };
            DOCTEST_MSVC_SUPPRESS_WARNING_POP
            enum color {
              RED,
              DARK_BLUE
            };
            FMT_END_EXPORT
            FMT_END_NAMESPACE
        """),
    )
    assert symbol_rows(graph) == [
        ("enable_if_t", "type", 3, 5),
        ("basic_string_view", "class", 9, 15),
        ("basic_string_view.size", "method", 14, 14),
        ("color", "enum", 17, 20),
    ]
    assert graph.nodes[2].docstring == "A string view."


def test_an_else_branch_split_by_a_preprocessor_conditional_is_no_function_named_if() -> None:
    graph = extract(
        "deflate.c",
        dedented("""
            local unsigned read_buf(z_streamp strm, Bytef *buf, unsigned size) {
                if (strm->state->wrap == 1) {
                    strm->adler = adler32(strm->adler, buf, len);
                }
            #ifdef GZIP
                else if (strm->state->wrap == 2) {
                    strm->adler = crc32(strm->adler, buf, len);
                }
            #endif
                return len;
            }
        """),
    )
    assert [(q, k) for q, k, _, _ in symbol_rows(graph)] == [("read_buf", "function")]


def test_an_export_macro_before_a_typedef_return_type_leaves_the_function_its_name() -> None:
    graph = extract(
        "lapi.c",
        dedented("""
            LUA_API lua_CFunction lua_atpanic (lua_State *L, lua_CFunction panicf) {
              lua_CFunction old;
              return old;
            }
            LUA_API int lua_gettop (lua_State *L) {
              return 0;
            }
        """),
    )
    assert symbol_rows(graph) == [("lua_atpanic", "function", 1, 4), ("lua_gettop", "function", 5, 7)]
    assert (
        graph.nodes[1].signature == "LUA_API lua_CFunction lua_atpanic (lua_State *L, lua_CFunction panicf)"
    )


def test_a_definition_s_name_in_parentheses_after_an_export_macro_is_its_name() -> None:
    graph = extract(
        "lauxlib.c",
        dedented("""
            LUALIB_API int (luaL_loadstring) (lua_State *L, const char *s) {
              return luaL_loadbuffer(L, s, strlen(s), s);
            }
        """),
    )
    assert symbol_rows(graph) == [("luaL_loadstring", "function", 1, 3)]


def test_a_macro_used_as_a_case_label_inside_a_function_is_no_function_of_its_own() -> None:
    graph = extract(
        "lvm.c",
        dedented("""
            void luaV_execute (lua_State *L, CallInfo *ci) {
              vmdispatch (GET_OPCODE(i)) {
                vmcase(OP_MOVE) {
                  setobjs2s(L, ra, RB(i));
                  vmbreak;
                }
                vmcase(OP_LOADI) {
                  lua_Integer b = GETARG_sBx(i);
                  vmbreak;
                }
              }
            }
        """),
    )
    assert symbol_rows(graph) == [("luaV_execute", "function", 1, 12)]


def test_a_class_defined_inside_a_function_keeps_its_constructor() -> None:
    graph = extract(
        "local.cpp",
        dedented("""
            int run() {
              struct Guard {
                Guard() { start(); }
                int size() const { return 1; }
              };
              return Guard().size();
            }
        """),
    )
    assert [q for q, _, _, _ in symbol_rows(graph)] == [
        "run",
        "run.Guard",
        "run.Guard.Guard",
        "run.Guard.size",
    ]


CPP_HEADER = dedented("""
    #include <string>
    namespace fmt {
    /** An error. */
    class format_error : public std::runtime_error {
     public:
      explicit format_error(const char* message) : std::runtime_error(message) {}
      template <typename T> T get() const { return T(); }
    };
    }
""")


def test_a_cpp_header_named_dot_h_is_read_with_the_cpp_grammar() -> None:
    graph = extract("include/fmt/format.h", CPP_HEADER)
    assert symbol_rows(graph) == [
        ("fmt", "namespace", 2, 9),
        ("fmt.format_error", "class", 3, 8),
        ("fmt.format_error.format_error", "method", 6, 6),
        ("fmt.format_error.get", "method", 7, 7),
    ]
    assert graph.nodes[2].docstring == "An error."
    assert [i.module for i in graph.imports] == ["<string>"]


def test_a_c_header_that_the_c_grammar_reads_stays_c_even_where_cpp_would_not_read_it() -> None:
    text = "struct list { struct list *new; };\nint class_of(int this, int template);\n"
    graph = extract("include/list.h", text)
    assert symbol_rows(graph) == [("list", "struct", 1, 1)]
    assert graph.language == "c"


def test_cpp_using_aliases_are_type_definitions_like_typedefs() -> None:
    graph = extract(
        "src/types.hpp",
        dedented("""
            namespace argparse {
            using string_view = std::string_view;
            template <typename T>
            using vec = std::vector<T>;
            class Parser {
              using iterator = std::list<int>::iterator;
            };
            }
        """),
    )
    assert symbol_rows(graph) == [
        ("argparse", "namespace", 1, 8),
        ("argparse.string_view", "type", 2, 2),
        ("argparse.vec", "type", 3, 4),
        ("argparse.Parser", "class", 5, 7),
        ("argparse.Parser.iterator", "type", 6, 6),
    ]


def test_a_header_prototype_is_no_symbol_so_the_definition_is_the_one_target_of_its_name() -> None:
    header = extract("include/add.h", "/* Adds two numbers. */\nint add(int a, int b);\nchar *name(void);\n")
    source = extract("src/add.c", '#include "add.h"\nint add(int a, int b) { return a + b; }\n')
    assert symbol_rows(header) == []
    assert symbol_rows(source) == [("add", "function", 2, 2)]
