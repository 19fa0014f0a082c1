// luaparse's reading of Lua files, for bench/symbols_lua_bench.py: one JSON line per file argument.
//
// Each line: {"path", "error", "defs": [[qualname, kind, first, last, doc_first, doc]], "imports": [[module, line]]}.
// luaparse (https://github.com/fstirlitz/luaparse, a Lua 5.1 to 5.3 and LuaJIT parser written in JavaScript)
// reads each file as Lua 5.3, else LuaJIT, else 5.1. A definition is a function statement (`function f()`,
// `local function f()`, `function a.b:c()`), an assignment or `local` statement of one variable to one function
// expression (`M.f = function() end`, `local f = function() end`), or a table constructor's `name = function`
// field. It is named by the chain of the definitions enclosing it, then the dotted table it is a member of
// (`a.b` of `a.b:c`; none for `self`, or for a table that is not a chain of names), then its name; it is a
// `method` when named with `:`, else a `function`. Its lines are the statement's (the field's); its doc comment
// is the run of comments directly above its first line, each alone on its line with nothing but blanks before
// the definition on its line, read as prooftext reads Lua comments (`--`, `---` and rules of dashes stripped, a
// block's `--[[` and `]]`). Imports are `require` calls, with parentheses or not, and `pcall(require, "...")`,
// whose module is a quoted string without escapes.
//
// Run: node bench/lua_oracle/symbols.js FILE... with luaparse importable (NODE_PATH=DIR/node_modules).
"use strict";
const fs = require("fs");
const luaparse = require("luaparse");

const VERSIONS = ["5.3", "LuaJIT", "5.1"];

function parse(text) {
  let error = null;
  for (const luaVersion of VERSIONS) {
    try {
      return [luaparse.parse(text, { comments: true, locations: true, ranges: true, luaVersion }), null];
    } catch (e) {
      error = error || String(e.message || e);
    }
  }
  return [null, error];
}

function chain(node) {
  if (!node) return null;
  if (node.type === "Identifier") return node.name;
  if (node.type === "MemberExpression" && node.indexer === ".") {
    const base = chain(node.base);
    return base === null ? null : `${base}.${node.identifier.name}`;
  }
  return null;
}

// [scope, name, kind] of a definition's name node, or null when it is anonymous.
function naming(target) {
  if (!target) return null;
  if (target.type === "Identifier") return [[], target.name, "function"];
  if (target.type !== "MemberExpression") return null;
  const table = chain(target.base);
  const scope = table === null || table === "self" ? [] : table.split(".");
  return [scope, target.identifier.name, target.indexer === ":" ? "method" : "function"];
}

const OPEN = /^--\[=*\[/;
const CLOSE = /-*\]=*\]$/;

function cleanComment(text) {
  const lines = [];
  let inBlock = false;
  for (const line of text.split(/\r?\n/)) {
    let stripped = line.trim();
    const opened = OPEN.exec(stripped);
    if (opened) {
      stripped = stripped.slice(opened[0].length).replace(/^-+/, "");
      inBlock = true;
    } else if (!inBlock) {
      stripped = stripped.replace(/^-+/, "");
    }
    if (inBlock) {
      const closed = CLOSE.exec(stripped);
      if (closed) {
        stripped = stripped.slice(0, closed.index);
        inBlock = false;
      }
    }
    lines.push(stripped.trim());
  }
  return lines.join("\n").trim();
}

function readFile(path) {
  const text = fs.readFileSync(path, "utf8");
  const [ast, error] = parse(text);
  if (!ast) return { path, error, defs: [], imports: [] };
  const lines = text.split("\n");
  const alone = new Map(); // end line -> comment, for comments with only blanks before them on their line
  for (const c of ast.comments) {
    const before = lines[c.loc.start.line - 1].slice(0, c.loc.start.column);
    if (!before.trim()) alone.set(c.loc.end.line, c);
  }
  const doc = (node) => {
    const first = node.loc.start.line;
    if (lines[first - 1].slice(0, node.loc.start.column).trim()) return [first, ""];
    const parts = [];
    let line = first;
    while (alone.has(line - 1)) {
      const c = alone.get(line - 1);
      parts.unshift(c.raw);
      line = c.loc.start.line;
    }
    return parts.length ? [line, cleanComment(parts.join("\n"))] : [first, ""];
  };
  const defs = [];
  const imports = [];
  const define = (node, target, prefix) => {
    const named = naming(target);
    if (!named) return prefix;
    const [scope, name, kind] = named;
    const qualname = [...prefix, ...scope, name].join(".");
    const [docFirst, docText] = doc(node);
    defs.push([qualname, kind, node.loc.start.line, node.loc.end.line, docFirst, docText]);
    return [qualname];
  };
  const isFunction = (n) => n && n.type === "FunctionDeclaration";
  const importOf = (node) => {
    let base = node.base;
    let arg = null;
    if (node.type === "StringCallExpression") arg = node.argument;
    else if (node.type === "CallExpression") arg = node.arguments[0];
    if (base && base.type === "Identifier" && base.name === "pcall" && node.type === "CallExpression") {
      const [callee, second] = node.arguments;
      if (!(callee && callee.type === "Identifier" && callee.name === "require")) return;
      base = callee;
      arg = second;
    }
    if (!(base && base.type === "Identifier" && base.name === "require")) return;
    if (!arg || arg.type !== "StringLiteral") return;
    const raw = arg.raw;
    if (!(raw.startsWith('"') || raw.startsWith("'")) || raw.includes("\\")) return;
    const module = raw.slice(1, -1);
    if (module) imports.push([module, arg.loc.start.line]);
  };
  const walk = (node, prefix) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child, prefix);
      return;
    }
    if (typeof node.type !== "string") return;
    let inner = prefix;
    if (node.type === "FunctionDeclaration" && node.identifier) {
      inner = define(node, node.identifier, prefix);
    } else if (
      (node.type === "AssignmentStatement" || node.type === "LocalStatement") &&
      node.variables.length === 1 &&
      node.init.length === 1 &&
      isFunction(node.init[0])
    ) {
      inner = define(node, node.variables[0], prefix);
    } else if (node.type === "TableKeyString" && isFunction(node.value)) {
      inner = define(node, node.key, prefix);
    }
    if (node.type === "CallExpression" || node.type === "StringCallExpression") importOf(node);
    for (const key of Object.keys(node)) {
      if (key === "loc" || key === "range" || key === "type") continue;
      walk(node[key], inner);
    }
  };
  walk(ast.body, []);
  defs.sort((a, b) => a[2] - b[2] || b[3] - a[3]);
  return { path, error: null, defs, imports };
}

for (const path of process.argv.slice(2)) {
  let out;
  try {
    out = readFile(path);
  } catch (e) {
    out = { path, error: String(e.message || e), defs: [], imports: [] };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
