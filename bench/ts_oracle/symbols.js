// The TypeScript compiler's own reading of .ts files, for bench/symbols_ts_bench.py: one JSON line per file
// argument, {"path", "error", "defs": [[qualname, kind, first, last, doc]], "imports": [[module, line]]}.
//
// Definitions are declarations as prooftext names them: classes, interfaces, enums, type aliases,
// namespaces (`namespace A`, `declare module 'm'`) and functions (a declaration, or a variable initialized
// with an arrow function or a function expression), nested in the chain of enclosing ones (`A.m`,
// `f.inner`); a class's methods, constructor, accessors and properties initialized with a function, and an
// interface's method signatures, are `method`s. `first` is the first line of the run of comments directly
// above the declaration (no blank line between), else the declaration's own; `last` its last line. `doc` is always empty: the
// bench compares names and lines. `error` is the parser's first syntax error, if any (the defs are still
// what the compiler recovered). Imports are `import … from 'm'` and `export … from 'm'` module names.
//
// Run: node bench/ts_oracle/symbols.js FILE... with the `typescript` package (5.x) on NODE_PATH.
const fs = require("fs");
const ts = require("typescript");

function line(sf, pos) {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

function firstLine(sf, node) {
  // The run of comments directly above the declaration, no blank line between them or below the last.
  let start = node.getStart(sf);
  const comments = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) || [];
  for (let i = comments.length - 1; i >= 0; i--) {
    const gap = sf.text.slice(comments[i].end, start);
    if (/\n[ \t]*\n/.test(gap) || !/^\s*$/.test(gap)) break;
    start = comments[i].pos;
  }
  return line(sf, start);
}

function isFunctionValue(init) {
  return init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init));
}

function nameOf(node) {
  return node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))
    ? node.name.text
    : undefined;
}

function read(path) {
  const text = fs.readFileSync(path, "utf8");
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const defs = [];
  const imports = [];
  const add = (scope, name, kind, node) => {
    const qual = [...scope, name].join(".");
    defs.push([qual, kind, firstLine(sf, node), line(sf, node.getEnd()), ""]);
    return [...scope, name];
  };
  const visit = (node, scope, inClass) => {
    let inner = scope;
    let memberOf = false;
    if (ts.isClassDeclaration(node) && nameOf(node)) {
      inner = add(scope, nameOf(node), "class", node);
      memberOf = true;
    } else if (ts.isInterfaceDeclaration(node)) {
      inner = add(scope, nameOf(node), "interface", node);
      memberOf = true;
    } else if (ts.isEnumDeclaration(node)) {
      add(scope, nameOf(node), "enum", node);
      return;
    } else if (ts.isTypeAliasDeclaration(node)) {
      add(scope, nameOf(node), "type", node);
      return;
    } else if (ts.isModuleDeclaration(node) && nameOf(node)) {
      inner = add(scope, nameOf(node), "namespace", node);
    } else if (ts.isFunctionDeclaration(node) && nameOf(node)) {
      inner = add(scope, nameOf(node), "function", node);
    } else if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && isFunctionValue(node.initializer)) {
      inner = add(scope, node.name.text, "function", node.parent.parent);
    } else if (inClass && (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && nameOf(node)) {
      inner = add(scope, nameOf(node), "method", node);
    } else if (inClass && ts.isConstructorDeclaration(node)) {
      inner = add(scope, "constructor", "method", node);
    } else if (inClass && ts.isPropertyDeclaration(node) && nameOf(node) && isFunctionValue(node.initializer)) {
      inner = add(scope, nameOf(node), "method", node);
    } else if (inClass && ts.isMethodSignature(node) && nameOf(node)) {
      add(scope, nameOf(node), "method", node);
      return;
    } else if (ts.isImportDeclaration(node) || (ts.isExportDeclaration(node) && node.moduleSpecifier)) {
      if (ts.isStringLiteral(node.moduleSpecifier)) imports.push([node.moduleSpecifier.text, line(sf, node.moduleSpecifier.getStart(sf))]);
    }
    ts.forEachChild(node, (child) => visit(child, inner, memberOf));
  };
  visit(sf, [], false);
  const diagnostics = sf.parseDiagnostics || [];
  const error = diagnostics.length ? ts.flattenDiagnosticMessageText(diagnostics[0].messageText, " ") : null;
  return { path, error, defs, imports };
}

for (const path of process.argv.slice(2)) {
  console.log(JSON.stringify(read(path)));
}
