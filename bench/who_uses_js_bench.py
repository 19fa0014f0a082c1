"""Who-uses on JavaScript and TypeScript against an independent oracle: the TypeScript language service.

For each repository, 50 JavaScript or TypeScript functions, methods and classes (seed 27) are drawn from the
index; for each, the language service's ``findReferences`` (``allowJs``, ``checkJs`` off, bundler module
resolution, no ``node_modules``: a bare package name is external to both sides) gives the oracle's
references, and prooftext's who-uses gives its dependents. Both sides are reduced to *callers*, as in
``bench/who_uses_bench.py``: the innermost indexed node enclosing a reference, the target itself and other
declarations of it (an overload signature, the definition) excluded; an import statement counts (its file's
node). Recall is the share of the oracle's callers who-uses reports; the false-positive rate is the share of
reported callers the oracle does not find, for the resolved dependents and with the possible ones added.

Methods of object literals (``{ parseJson(text) {} }``, mostly options passed in a call) are left out of the
sample: the oracle's references to one are those of the option's declared property. The oracle does not see
everything: a CommonJS export it cannot follow (``exports = module.exports = createApplication``, ``var f =
require('./utils').f``, ``res.send = function``) leaves real callers out of it (counted as false positives
here: read them with ``--verbose``), ``export *`` re-exports name nothing it reports, and a definition it finds
no declaration for (``app.request.foobar = function``) is skipped. It also reports more than the calls of a
method: for one implementing an interface's member or overriding a base's, the references of that member and
of the other implementations (``router.add()`` on a ``LinearRouter`` among ``SmartRouter.add``'s), which
who-uses calls ``possible`` where the receiver's class is not stated, and no use where it is another class.

Usage: python bench/who_uses_js_bench.py [--tree NAME=DIR ...] [--n 50] [--seed 27] [--verbose]
The default trees are express (JavaScript, CommonJS), zod (TypeScript), ky (TypeScript, ESM) and hono
(TypeScript, classes and re-exporting barrels), archived from their mirrors. Needs ``node`` and the ``typescript`` package (5.x, the JavaScript API) in
``--typescript DIR`` (default ``/tmp/typescript5``: ``npm i typescript@5`` there). A directory is copied to a
temporary one first, so the index never lands in the source tree.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from who_uses_bench import Enclosing, Tally, Target, _copy, _share, ensure_tree, score

import prooftext

MIRRORS = {
    "express": Path("/work/.mirror/expressjs+express/repo"),
    "zod": Path("/work/.mirror/colinhacks+zod/repo"),
    "ky": Path("/work/.mirror/sindresorhus+ky/repo"),
    "hono": Path("/work/.mirror/honojs+hono/repo"),
}
KINDS = ("function", "method", "class")
LANGUAGES = ("javascript", "typescript", "tsx")
ORACLE = r"""
const ts = require('typescript');
const fs = require('fs');
const path = require('path');
const root = path.resolve(process.argv[1]);
const queries = JSON.parse(fs.readFileSync(0, 'utf8'));
const exts = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, {withFileTypes: true})) {
    if (['node_modules', '.git', '.prooftext'].includes(e.name)) continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (exts.some((x) => e.name.endsWith(x)) && !e.name.endsWith('.d.ts')) files.push(p);
  }
})(root);
const options = {
  allowJs: true, checkJs: false, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, noEmit: true,
  allowImportingTsExtensions: true, resolveJsonModule: true, esModuleInterop: true, skipLibCheck: true,
};
const host = {
  getScriptFileNames: () => files, getScriptVersion: () => '1',
  getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, 'utf8')) : undefined),
  getCurrentDirectory: () => root, getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists, getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();
const out = {};
for (const q of queries) {
  const abs = path.join(root, q.file);
  const sf = program.getSourceFile(abs);
  out[q.id] = null;
  if (!sf) continue;
  const lines = sf.text.split('\n');
  const word = new RegExp('(?<![\\w$])' + q.name.replace(/\$/g, '\\$') + '(?![\\w$])', 'g');
  let found = null;
  for (let l = q.line - 1; l < Math.min(lines.length, q.end) && !found; l++) for (const m of lines[l].matchAll(word)) {
    if (found) break;
    const pos = sf.getPositionOfLineAndCharacter(l, m.index);
    const groups = service.findReferences(abs, pos) || [];
    const own = groups.some((g) => g.references.some((r) => r.isDefinition && r.fileName === abs && r.textSpan.start === pos));
    if (own) found = groups;  // the name where it is declared, not in a comment or a use before it
  }
  if (!found) continue;
  const refs = [];
  for (const sym of found) for (const r of sym.references) {
    const rsf = program.getSourceFile(r.fileName);
    if (!rsf) continue;
    const at = rsf.getLineAndCharacterOfPosition(r.textSpan.start);
    const text = rsf.text.split('\n')[at.line];
    refs.push([path.relative(root, r.fileName), at.line + 1, !!r.isDefinition, text]);
  }
  out[q.id] = refs;
}
process.stdout.write(JSON.stringify(out));
"""
CLASS_KINDS = ("class", "interface")
_LITERAL_MEMBER = re.compile(r"^\s*(?:async\s+)?(?:[gs]et\s+)?\*?\s*[\w$]+\s*\(")
"""A method of an object literal (``{ parseJson(text) {} }``, most often an option passed in a call): left out
of the sample, since the oracle's references to it are those of the option's declared property."""
_IMPORTING = ("import ", "import{", "export ", "export{")


def _targets(conn: object, n: int, seed: int) -> list[Target]:
    rows = conn.execute(  # type: ignore[attr-defined]
        "SELECT n.id, f.path, n.qualname, n.name, n.start_line, n.end_line, coalesce(p.symbol_kind, ''),"
        " n.signature FROM nodes n JOIN files f ON f.id = n.file_id LEFT JOIN nodes p ON p.id = n.parent_id WHERE n.kind = 'symbol' AND n.symbol_kind IN (?, ?, ?)"
        " AND f.language IN (?, ?, ?) ORDER BY f.path, n.start_line, n.qualname",
        (*KINDS, *LANGUAGES),
    ).fetchall()
    pool = [Target(*row[:6]) for row in rows if row[6] in CLASS_KINDS or not _LITERAL_MEMBER.match(row[7])]
    return random.Random(seed).sample(pool, min(n, len(pool)))


def _oracle_refs(root: Path, targets: list[Target], typescript: Path) -> dict[str, list[list[object]] | None]:
    queries = [
        {"id": t.node_id, "file": t.path, "line": t.start_line, "end": t.end_line, "name": t.name}
        for t in targets
    ]
    done = subprocess.run(
        ["node", "-e", ORACLE, str(root)],
        input=json.dumps(queries),
        capture_output=True,
        text=True,
        check=True,
        cwd=typescript,
        env={"NODE_PATH": str(typescript / "node_modules"), "PATH": "/usr/bin:/usr/local/bin:/bin"},
    )
    found: dict[str, list[list[object]] | None] = json.loads(done.stdout)
    return found


def _callers(
    root: Path, target: Target, refs: list[list[object]], enclosing: Enclosing, conn: object
) -> set[str]:
    callers: set[str] = set()
    for path, line, definition, text in refs:
        assert isinstance(path, str) and isinstance(line, int) and isinstance(text, str)
        if definition and not text.lstrip().startswith(_IMPORTING):
            continue  # the definition, an overload signature, a redeclaration: not a use
        caller = enclosing(path, line)
        if (
            caller is not None
            and caller != target.node_id
            and not _declares(root, conn, caller, target.name, line)
        ):
            callers.add(caller)
    return callers


def _declares(root: Path, conn: object, node_id: str, name: str, line: int) -> bool:
    """Whether ``line`` is where the node ``node_id``, named ``name`` too, declares it (an overload, an
    override, a sibling class's member of that name): another definition, no use."""
    row = conn.execute(  # type: ignore[attr-defined]
        "SELECT n.name, f.path, n.start_line FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id = ?",
        (node_id,),
    ).fetchone()
    if row is None or row[0] != name:
        return False
    lines = (root / row[1]).read_text(encoding="utf-8").splitlines()
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    first = next((n for n in range(row[2], line + 1) if word.search(lines[n - 1])), None)
    return first == line


def _bench(tree: Path, n: int, seed: int, typescript: Path, verbose: bool) -> Tally:
    tally = Tally()
    with _copy(tree) as root, prooftext.open(root) as index:
        index.refresh()
        enclosing = Enclosing(index.conn)
        targets = _targets(index.conn, n, seed)
        refs = _oracle_refs(root, targets, typescript)
        for target in targets:
            found_refs = refs.get(target.node_id)
            if found_refs is None:
                if verbose:
                    print(f"  (no oracle position) {target.path}:{target.start_line} {target.qualname}")
                continue
            oracle = _callers(root, target, found_refs, enclosing, index.conn)
            score(index, target, oracle, tally, verbose)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tree", action="append", default=[], help="NAME=DIR (express, zod, ky, hono, or any other tree)"
    )
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--typescript", type=Path, default=Path("/tmp/typescript5"))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    trees = {name: Path(f"/tmp/who-uses-{name}") for name in MIRRORS}
    trees.update((k, Path(v)) for k, _, v in (t.partition("=") for t in args.tree))
    if args.tree:
        trees = {k: v for k, v in trees.items() if k in {t.partition("=")[0] for t in args.tree}}
    print(
        f"who-uses against TypeScript findReferences: {args.n} definitions per repository, seed {args.seed}"
    )
    print(f"{'repository':<10} {'oracle':>6} {'recall':>7} {'+possible':>9} {'FP rate':>8} {'+possible':>9}")
    for name, tree in trees.items():
        made = ensure_tree(tree, MIRRORS[name]) if name in MIRRORS else tree  # any other tree: as given
        tally = _bench(made, args.n, args.seed, args.typescript, args.verbose)
        print(
            f"{name:<10} {tally.oracle:>6} {_share(tally.found_resolved, tally.oracle):>7}"
            f" {_share(tally.found_all, tally.oracle):>9} {_share(tally.false_resolved, tally.reported_resolved):>8}"
            f" {_share(tally.false_all, tally.reported_all):>9}",
            flush=True,
        )
    print("recall: the oracle's callers that who-uses reports (resolved; with possible ones added);")
    print("FP rate: reported callers the oracle does not find (resolved; with possible ones added).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
