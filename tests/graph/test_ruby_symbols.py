"""Ruby symbols, doc comments and imports as Ruby itself reads them (values checked with RubyVM::AST)."""

from __future__ import annotations

from helpers import dedented, documented_rows
from prooftext.graph.extract import extract

ODD = dedented("""
    # Top doc.
    def top = 1

    module A
      module B::C
        class D < Struct.new(:x)
          def ==(other) = x == other.x
          def []=(k, v); end
          def z=(v); end
        end
      end
      Klass = Class.new do
        def in_block; end
      end
      def self.build(a,
                     b)
        def nested; end
      end
      class << self
        # Not the doc of after_attr.
        attr_reader :q
        def after_attr; end
      end
      # Reopened.
      class E; def e1; end; end
      class E
        def e2
        end
      end
      private def priv
        1
      end
    end
    __END__
    def not_code; end
""")


def test_ruby_names_kinds_and_ranges_match_what_ruby_reads() -> None:
    assert documented_rows(extract("lib/a.rb", ODD)) == [
        ("top", "function", 1, 2, "Top doc."),
        ("A", "module", 4, 33, ""),
        ("A.B.C", "module", 5, 11, ""),
        ("A.B.C.D", "class", 6, 10, ""),
        ("A.B.C.D.==", "method", 7, 7, ""),
        ("A.B.C.D.[]=", "method", 8, 8, ""),
        ("A.B.C.D.z=", "method", 9, 9, ""),
        ("A.in_block", "method", 13, 13, ""),
        ("A.build", "method", 15, 18, ""),
        ("A.build.nested", "function", 17, 17, ""),
        ("A.after_attr", "method", 22, 22, ""),
        ("A.E", "class", 24, 25, "Reopened."),
        ("A.E.e1", "method", 25, 25, ""),
        ("A.E", "class", 26, 29, ""),
        ("A.E.e2", "method", 27, 28, ""),
        ("A.priv", "method", 30, 32, ""),
    ]


def test_a_ruby_doc_comment_that_opens_a_conditional_loop_or_brace_block_documents_the_method_below() -> None:
    text = dedented("""
        module Helpers
          unless method_defined? :options
            # Sends an OPTIONS request.
            def options; end
          end
          if defined?(OpenSSL)
            # Compares in constant time.
            def secure_compare(a, b); end
          elsif other
            # The fallback.
            def fallback; end
          end
          case mode
          when :a
            # In a when.
            def in_when; end
          end
          while false
            # In a loop.
            def in_loop; end
          end
          extend(Module.new {
            # In braces.
            def in_braces; end
          })
          if ready # a trailing note, not a doc comment
            def ready!; end
          end
        end
    """)
    docs = {q: (start, doc) for q, _, start, _, doc in documented_rows(extract("lib/helpers.rb", text))}
    assert docs["Helpers.options"] == (3, "Sends an OPTIONS request.")
    assert docs["Helpers.secure_compare"] == (7, "Compares in constant time.")
    assert docs["Helpers.fallback"] == (10, "The fallback.")
    assert docs["Helpers.in_when"] == (15, "In a when.")
    assert docs["Helpers.in_loop"] == (19, "In a loop.")
    assert docs["Helpers.in_braces"] == (23, "In braces.")
    assert docs["Helpers.ready!"] == (27, "")


def test_a_ruby_doc_comment_keeps_the_asterisks_of_its_bullet_list() -> None:
    text = dedented("""
        # Supported encodings:
        #
        # * gzip
        # * identity (no transformation)
        #
        # Prose with *emphasis*.
        class Deflater
        end
    """)
    (deflater,) = documented_rows(extract("lib/deflater.rb", text))
    assert deflater[4] == (
        "Supported encodings:\n\n* gzip\n* identity (no transformation)\n\nProse with *emphasis*."
    )


def test_a_ruby_require_or_load_called_on_an_object_is_no_import() -> None:
    text = dedented("""
        require 'json'
        require("set")
        require_relative '../x'
        load 'tasks.rake'
        require "a/#{name}"
        YAML.load("--- a: 1")
        config.require "not/a/file"
    """)
    graph = extract("lib/a.rb", text)
    assert [(i.module, i.line) for i in graph.imports] == [
        ("json", 1),
        ("set", 2),
        ("../x", 3),
        ("tasks.rake", 4),
    ]


def test_a_ruby_method_passed_to_a_modifier_like_private_keeps_the_doc_comment_above_the_call() -> None:
    text = dedented("""
        class Cache
          # Clears it.
          private def clear
          end
          # Loads once.
          memoize def load = read
          # Several modifiers.
          private memoize def both; end
          # A call's second argument is documented by nothing.
          register(:a, def later; end)
          value = 1 # trailing
          private def after_code; end
        end
    """)
    docs = {q: (start, doc) for q, _, start, _, doc in documented_rows(extract("lib/cache.rb", text))}
    assert docs["Cache.clear"] == (2, "Clears it.")
    assert docs["Cache.load"] == (5, "Loads once.")
    assert docs["Cache.both"] == (7, "Several modifiers.")
    assert docs["Cache.later"] == (10, "")
    assert docs["Cache.after_code"] == (12, "")
