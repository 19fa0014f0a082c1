"""Lua functions, methods, doc comments, signatures, uses and imports (values checked with luaparse, an
independent Lua parser, ``bench/lua_oracle``)."""

from __future__ import annotations

import pytest

from helpers import dedented, documented_rows
from prooftext.graph.extract import extract
from prooftext.graph.model import NODE_SYMBOL

STORE = dedented("""
    local Item = require("app.item")
    local util = require "app.util"
    local ok, json = pcall(require, "cjson")

    --- A store of items.
    -- @module store
    local Store = {}
    Store.__index = Store

    --- Makes a store.
    -- @tparam number size how many
    function Store.new(size)
      local self = setmetatable({ size = size }, Store)
      self.on_put = function(item) end
      return self
    end

    ---@param item Item
    function Store:put(item)
      table.insert(self.items, Item.wrap(item))
      self:notify "put"
    end

    --[[--
      Reads one.
    ]]--
    function Store:get(id) return self.items[id] end

    local function helper(a, b)
      local inner = function() return a end
      return inner() + b
    end

    Store.size_of = function(s) return s.size end

    do
      -- Only in this block.
      local function scoped() end
    end

    local handlers = {
      [1] = function() end,
      default = function(x) return x end,
    }

    return { Store = Store, make = function(n) return Store.new(n) end }
""")


def test_lua_function_statements_and_functions_given_one_name_are_symbols() -> None:
    assert documented_rows(extract("lua/app/store.lua", STORE)) == [
        ("Store.new", "function", 10, 16, "Makes a store.\n@tparam number size how many"),
        ("Store.new.on_put", "function", 14, 14, ""),  # `self.f = function`: no `self` scope
        ("Store.put", "method", 18, 22, "@param item Item"),  # named with `:`
        ("Store.get", "method", 24, 27, "Reads one."),  # an LDoc block closed with `]]--`
        ("helper", "function", 29, 32, ""),
        ("helper.inner", "function", 30, 30, ""),
        ("Store.size_of", "function", 34, 34, ""),
        ("scoped", "function", 37, 38, "Only in this block."),  # the comment opening a block
        ("default", "function", 43, 43, ""),  # a field; `[1] = function` names nothing
        ("make", "function", 46, 46, ""),
    ]


def test_a_lua_signature_ends_with_the_parameters() -> None:
    graph = extract("store.lua", STORE)
    signatures = {n.qualname: n.signature for n in graph.nodes if n.kind == NODE_SYMBOL}
    assert signatures["Store.new"] == "function Store.new(size)"
    assert signatures["Store.get"] == "function Store:get(id)"
    assert signatures["helper"] == "local function helper(a, b)"
    assert signatures["helper.inner"] == "local inner = function()"
    assert signatures["Store.size_of"] == "Store.size_of = function(s)"
    assert signatures["default"] == "default = function(x)"


def test_lua_uses_name_calls_with_or_without_parentheses() -> None:
    uses = {u.name for u in extract("store.lua", STORE).uses if " " not in u.name}
    assert {"insert", "wrap", "notify", "inner"} <= uses
    assert "items" not in uses  # a field read, not a definition's use
    assert "setmetatable" not in uses  # a base function of Lua's, named in every file


@pytest.mark.parametrize(
    ("statement", "module"),
    [
        ('local m = require("a.b")', "a.b"),
        ("local m = require 'a.b'", "a.b"),
        ('local ok, m = pcall(require, "a.b")', "a.b"),
        ("local m = require [[a.b]]", None),  # a long string: not read
        ("local m = require(name)", None),  # computed
        ('local m = obj.require("a.b")', None),  # someone else's `require`
    ],
)
def test_lua_imports_are_the_modules_require_names_with_a_quoted_string(
    statement: str, module: str | None
) -> None:
    graph = extract("init.lua", f"-- x\n{statement}\n")
    assert [(i.module, i.line) for i in graph.imports] == ([(module, 2)] if module else [])


def test_a_comment_trailing_code_or_a_blank_line_apart_is_not_a_lua_doc_comment() -> None:
    text = "local x = 1 -- trailing\nfunction a() end\n\n-- apart\n\nfunction b() end\n"
    assert documented_rows(extract("m.lua", text)) == [
        ("a", "function", 2, 2, ""),
        ("b", "function", 6, 6, ""),
    ]


def test_a_lua_call_is_spelled_with_the_table_it_is_called_through() -> None:
    text = "function f(x)\n  Item.wrap(x)\n  x:notify 'put'\n  helper(x)\n  a.b.cc(1)\n  a[1].dd(2)\nend\n"
    spelled = {u.name for u in extract("a.lua", text).uses if " " in u.name}
    assert spelled == {"wrap call Item", "notify call x", "helper call", "cc call a.b", "dd call ?"}
