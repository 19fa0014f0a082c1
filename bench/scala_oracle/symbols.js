// Scalameta's reading of Scala files, for bench/symbols_scala_bench.py: one JSON line per file argument.
//
// Each line: {"path", "error", "defs": [[qualname, kind, first, last, doc_first, doc]], "imports": [[module, line]]}.
// Definitions come from scalameta's parser (scalameta-parsers on npm, the parser of scalafmt and Metals),
// tried with the Scala 2.13 dialect (Scala 3 syntax under -Xsource:3 included) and then Scala 3 (first for a
// path under a `scala-3` directory): classes (case classes too), traits, objects (package objects too) and
// Scala 3 enums by their kind, `type` members and aliases as "type", named givens as "given", and every
// `def` (abstract too, a secondary constructor as `this`, a Scala 2 macro) as "method" where the closest
// enclosing definition is a class, trait, object, enum or given, else "function". Values and variables,
// enum cases, anonymous givens, extension groups and anonymous classes are not definitions: what they hold
// belongs to the closest enclosing definition; nothing in a type is one (a refinement's `{ type F = G }`). A definition is named by the chain of enclosing ones.
// `first` is the line its modifiers (annotations) start on, `last` the line it ends on, or its `end` marker's
// (`end Foo` after `object Foo:`, which scalameta reads as a statement of its own). The doc comment, for a
// definition that starts its line, is the run of comments ending on the line directly above `first`, each
// alone on its lines (nothing but space before it on its first line), markers and margins removed;
// `doc_first` is that run's first line (else `first`). Comments are found in the text outside every literal the parser read (strings, interpolations,
// characters, XML), so a `//` in a string is no comment.
// Imports: every importer of every `import` at its statement's line, spelled as the path it imports: `a.b.C`
// for `import a.b.C`, one per selector of `import a.b.{C, D => E}` (`a.b.C`, `a.b.D`), the path alone for a
// wildcard or given selector (`import a.b._`, `a.b.*`, `a.b.given` give `a.b`), nothing for a hidden one
// (`C => _`); `_root_.` dropped; each module once per statement.
//
// Run: node bench/scala_oracle/symbols.js FILE...  (SCALAMETA_PARSERS: the package's path; by default
// `scalameta-parsers` as Node resolves it).

const fs = require('fs');
const { parseSource } = require(process.env.SCALAMETA_PARSERS || 'scalameta-parsers');

const CLASS_KINDS = {
  'Defn.Class': 'class', 'Defn.Trait': 'trait', 'Defn.Object': 'object', 'Pkg.Object': 'object',
  'Defn.Enum': 'enum', 'Defn.Type': 'type', 'Decl.Type': 'type', 'Defn.Given': 'given',
  'Decl.Given': 'given', 'Defn.GivenAlias': 'given',
};
const DEFS = new Set(['Defn.Def', 'Decl.Def', 'Defn.Macro', 'Ctor.Secondary']);
const METHOD_PARENTS = new Set(['class', 'trait', 'object', 'enum', 'given']);
const LITERALS = new Set(['Lit.String', 'Lit.Char', 'Term.Interpolate', 'Pat.Interpolate', 'Term.Xml', 'Pat.Xml', 'Lit.Symbol']);

function lineStarts(code) {
  const starts = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === '\n') starts.push(i + 1);
  return starts;
}

function lineOf(starts, offset) {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid; else hi = mid - 1;
  }
  return lo + 1;
}

function children(node) {
  const out = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pos' || key === 'type') continue;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (Array.isArray(item)) item.forEach((x) => x && typeof x === 'object' && out.push(x));
        else if (item && typeof item === 'object') out.push(item);
      }
    } else if (value && typeof value === 'object' && value.type) out.push(value);
  }
  return out;
}

// [start, end) of every literal, sorted.
function literals(node, out) {
  if (LITERALS.has(node.type)) { out.push([node.pos.start, node.pos.end]); return out; }
  for (const child of children(node)) literals(child, out);
  return out;
}

// {lastLine: [text, firstLine]} of each comment alone on its lines.
function comments(code, skip, starts) {
  const out = {};
  let i = 0, k = 0;
  while (i < code.length) {
    while (k < skip.length && skip[k][1] <= i) k++;
    if (k < skip.length && skip[k][0] <= i) { i = skip[k][1]; continue; }
    let end = -1;
    if (code.startsWith('//', i)) {
      end = code.indexOf('\n', i);
      if (end < 0) end = code.length;
    } else if (code.startsWith('/*', i)) {
      let depth = 0, j = i;
      while (j < code.length) {
        if (code.startsWith('/*', j)) { depth++; j += 2; }
        else if (code.startsWith('*/', j)) { depth--; j += 2; if (depth === 0) break; }
        else j++;
      }
      end = j;
    }
    if (end < 0) { i++; continue; }
    const line = lineOf(starts, i);
    const before = code.slice(starts[line - 1], i);
    if (/^\s*$/.test(before)) {
      const text = code.slice(i, end).replace(/[\r\n]+$/, '');
      out[lineOf(starts, i + text.length - 1 >= i ? i + text.length - 1 : i)] = [text, line];
    }
    i = end;
  }
  return out;
}

function clean(text) {
  const lines = [];
  let inBlock = false;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    const block = inBlock || line.startsWith('/*');
    inBlock = block && !line.endsWith('*/');
    for (const marker of ['///', '//!', '//', '/**', '/*!', '/*', '#']) {
      if (line.startsWith(marker)) { line = line.slice(marker.length); break; }
    }
    line = line.replace(/\*\/$/, '').trim();
    if (line === '*' || line.startsWith('* ')) line = line.slice(1).trim();
    lines.push(line);
  }
  return lines.join('\n').trim();
}

function doc(first, found) {
  const texts = [];
  let line = first;
  while (found[line - 1]) {
    const [text, start] = found[line - 1];
    if (start >= line) break;
    texts.unshift(text);
    line = start;
  }
  return [line, texts.length ? clean(texts.join('\n')) : ''];
}

function nameOf(node) {
  if (node.type === 'Ctor.Secondary') return 'this';
  return node.name && typeof node.name.value === 'string' ? node.name.value : '';
}

// The line of the `end` marker that closes a definition (`end Foo` after `object Foo:`), else its own last line.
function endMarkers(node, ctx) {
  const stats = Array.isArray(node.stats) ? node.stats : [];
  for (let i = 0; i + 1 < stats.length; i++) {
    const next = stats[i + 1];
    if (next && next.type === 'Term.EndMarker' && next.name && nameOf(stats[i]) === next.name.value) {
      ctx.ends.set(stats[i], lineOf(ctx.starts, next.pos.end - 1));
    }
  }
}

function pkgName(ref) {
  return refText(ref).replace(/^_root_\./, '');
}

// [package, name] of each definition directly in a package (what `import package.name` names).
function tops(node, pkg, out) {
  for (const stat of node.stats || []) {
    if (stat.type === 'Pkg') tops(stat.body || stat, pkg ? `${pkg}.${pkgName(stat.ref)}` : pkgName(stat.ref), out);
    else if (stat.type === 'Pkg.Object') out.push([pkg ? `${pkg}.${stat.name.value}` : stat.name.value, '*']);
    else if (nameOf(stat)) out.push([pkg, nameOf(stat)]);
  }
  return out;
}

function walk(node, scope, kinds, ctx, defs) {
  if (node.type.startsWith('Type.')) return; // a refinement's members (`{ type F[A] = G[A] }`) define nothing
  let kind = CLASS_KINDS[node.type];
  if (kind === undefined && DEFS.has(node.type)) {
    kind = METHOD_PARENTS.has(kinds[kinds.length - 1]) ? 'method' : 'function';
  }
  const name = kind === undefined ? '' : nameOf(node);
  if (kind !== undefined && name) {
    scope = [...scope, name];
    kinds = [...kinds, kind];
    const first = lineOf(ctx.starts, node.pos.start);
    const leads = /^\s*$/.test(ctx.code.slice(ctx.starts[first - 1], node.pos.start));
    const [docFirst, text] = leads ? doc(first, ctx.comments) : [first, ''];
    const last = ctx.ends.get(node) || lineOf(ctx.starts, Math.max(node.pos.start, node.pos.end - 1));
    defs.push([scope.join('.'), kind, first, last, docFirst, text]);
  }
  endMarkers(node, ctx);
  if (node.templ) endMarkers(node.templ, ctx);
  if (node.templ && node.templ.body) endMarkers(node.templ.body, ctx);
  if (node.body) endMarkers(node.body, ctx);
  if (node.type === 'Import') ctx.imports.push(...importsOf(node, ctx.starts));
  for (const child of children(node)) walk(child, scope, kinds, ctx, defs);
}

function refText(ref) {
  if (ref.type === 'Term.Name') return ref.value;
  if (ref.type === 'Term.Select') return refText(ref.qual) + '.' + ref.name.value;
  if (ref.type === 'Term.This') return 'this';
  if (ref.type === 'Term.Super') return 'super';
  return '?';
}

function importsOf(node, starts) {
  const line = lineOf(starts, node.pos.start);
  const seen = new Set();
  const out = [];
  const add = (module) => {
    module = module.replace(/^_root_\./, '');
    if (!seen.has(module)) { seen.add(module); out.push([module, line]); }
  };
  for (const importer of node.importers) {
    const path = refText(importer.ref);
    for (const importee of importer.importees) {
      if (importee.type === 'Importee.Name' || importee.type === 'Importee.Rename') add(path + '.' + importee.name.value);
      else if (importee.type === 'Importee.Wildcard' || importee.type === 'Importee.Given' || importee.type === 'Importee.GivenAll') add(path);
    }
  }
  return out;
}

function read(path) {
  const code = fs.readFileSync(path, 'utf8');
  const dialects = /(^|\/)scala-3\//.test(path) ? ['Scala3', 'Scala213Source3'] : ['Scala213Source3', 'Scala3'];
  let tree = null, error = null;
  for (const dialect of dialects) {
    const found = parseSource(code, { dialect });
    if (found.error === undefined) { tree = found; break; }
    if (error === null) error = `${found.error} at line ${found.lineNumber}`;
  }
  if (tree === null) return { path, error, defs: [], imports: [] };
  const starts = lineStarts(code);
  const skip = literals(tree, []).sort((a, b) => a[0] - b[0]);
  const ctx = { code, starts, comments: comments(code, skip, starts), imports: [], ends: new Map() };
  const defs = [];
  walk(tree, [], [], ctx, defs);
  return { path, error: null, defs, imports: ctx.imports, tops: tops(tree, '', []) };
}

for (const path of process.argv.slice(2)) {
  let out;
  try { out = read(path); } catch (e) { out = { path, error: String(e), defs: [], imports: [] }; }
  process.stdout.write(JSON.stringify(out) + '\n');
}
