// The Mono C# compiler's reading of C# files, for bench/symbols_csharp_bench.py: one JSON line per file argument.
//
// Each line: {"path", "error", "defs": [[qualname, kind, first, last, doc_first, doc]], "imports": [[module, line]]}.
// Each file is parsed alone by Mono.CSharp's parser, twice: with none of the symbols its `#if` directives test
// defined and with all of them, the definitions and imports of both readings kept once each (tree-sitter reads
// every branch); it is parsed (the parser of mcs, Mono's C# compiler, which reads C# up
// to about version 7: records, switch expressions, file-scoped namespaces and local functions are errors, and
// such a file is reported as unparsed). Definitions are classes, structs, interfaces and enums by their kind,
// delegates (`type`), methods and constructors (`method`, a constructor named as its class); operators,
// destructors, properties, indexers, events and fields are not. A definition is named by the chain of the
// types enclosing it (namespaces are not part of a name). Its first line is its first attribute's or
// modifier's or its name's, the earliest; its last line is its closing brace's (a type's), its body's end (a
// method's), or its `;`. Its doc comment is the run of comment lines directly above its first line, each
// alone on its line (`//`, `///`, or the lines of a `/* */` block), read as prooftext reads them: markers
// `///`, `//`, `/**`, `/*` and a trailing `*/` stripped from each line, then a leading `* `. Imports are
// `using` directives as written (`using static` and an alias's target included).
//
// Build: mcs -r:Mono.CSharp.dll CSharpOracle.cs (Debian's mono-mcs and libmono-csharp4.0c-cil).
// Run: mono CSharpOracle.exe FILE...
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using Mono.CSharp;

class CSharpOracle {
  static string Json(string s) {
    var b = new StringBuilder("\"");
    foreach (var c in s) {
      if (c == '"') b.Append("\\\""); else if (c == '\\') b.Append("\\\\");
      else if (c == '\n') b.Append("\\n"); else if (c == '\r') b.Append("\\r"); else if (c == '\t') b.Append("\\t");
      else if (c < 0x20) b.Append("\\u" + ((int) c).ToString("x4"));
      else b.Append(c);
    }
    return b.Append('"').ToString();
  }

  static readonly string[] Markers = { "///", "//!", "//", "/**", "/*!", "/*" };

  static string Clean(List<string> lines) {
    var outLines = new List<string>();
    bool inBlock = false;
    foreach (var line in lines) {
      var s = line.Trim();
      bool block = inBlock || s.StartsWith("/*");
      inBlock = block && !s.EndsWith("*/");
      foreach (var m in Markers) if (s.StartsWith(m)) { s = s.Substring(m.Length); break; }
      if (s.EndsWith("*/")) s = s.Substring(0, s.Length - 2).TrimEnd('*');
      s = s.Trim();
      if (s == "*" || s.StartsWith("* ")) s = s.Substring(1).Trim();
      outLines.Add(s);
    }
    return string.Join("\n", outLines).Trim();
  }

  // (first line of the doc comment, its text) for a definition starting on `first` (1-based).
  static Tuple<int, string> Doc(string[] lines, int first) {
    var taken = new List<string>();
    int line = first - 1;  // 1-based line above
    int top = first;  // the first line of the comments taken
    while (line >= 1) {
      var s = lines[line - 1].Trim();
      if (s.StartsWith("#")) { line--; continue; }  // a directive: the compiler's trivia, as comments are
      if (s.StartsWith("//")) { taken.Insert(0, lines[line - 1]); top = line; line--; continue; }
      if (s.EndsWith("*/")) {  // a block comment ending here: it must start alone on its line
        int start = line;
        while (start >= 1 && !lines[start - 1].Contains("/*")) start--;
        if (start < 1 || !lines[start - 1].Trim().StartsWith("/*")) break;
        for (int i = line; i >= start; i--) taken.Insert(0, lines[i - 1]);
        top = start;
        line = start - 1;
        continue;
      }
      break;
    }
    return taken.Count == 0 ? Tuple.Create(first, "") : Tuple.Create(top, Clean(taken));
  }

  class Def {
    public string Qualname, Kind, Doc;
    public int First, Last, DocFirst;
    public string Key { get { return Qualname + "\n" + Kind + "\n" + Last; } }
    public override string ToString() {
      return "[" + Json(Qualname) + "," + Json(Kind) + "," + First + "," + Last + "," + DocFirst + "," + Json(Doc) + "]";
    }
  }

  class Reader {
    public string[] Lines;
    public LocationsBag Bag;
    public List<Def> Out = new List<Def>();

    int First(MemberCore m) {
      int first = m.Location.Row;
      if (m.OptAttributes != null) foreach (var a in m.OptAttributes.Attrs) first = Math.Min(first, a.Location.Row);
      var where = Bag.GetMemberLocation(m);
      if (where != null && where.Modifiers != null)
        foreach (var mod in where.Modifiers) if (mod.Item2.Row > 0) first = Math.Min(first, mod.Item2.Row);
      var method = m as MethodCore;
      if (method != null && method.TypeExpression != null && method.TypeExpression.Location.Row > 0)
        first = Math.Min(first, method.TypeExpression.Location.Row);
      return first;
    }

    int Last(MemberCore m) {
      int last = m.Location.Row;
      if (m is TypeDefinition && !(m is Mono.CSharp.Delegate)) return ClosingBrace(m.Location.Row, m.Location.Column);
      if (m is Mono.CSharp.Delegate || (m is MethodOrOperator && ((MethodOrOperator) m).Block == null))
        return Semicolon(m.Location.Row, m.Location.Column);
      ToplevelBlock block = null;
      if (m is MethodOrOperator) block = ((MethodOrOperator) m).Block;
      if (m is Constructor) block = ((Constructor) m).Block;
      if (block != null) last = Math.Max(last, block.EndLocation.Row);
      return last;
    }

    // The line of the brace that closes the body opened by the first `{` after (row, column): mcs keeps no end
    // location for a type, so its source is scanned, skipping comments, strings, verbatim strings and chars.
    int ClosingBrace(int row, int column) {
      int depth = 0;
      var scan = new Scanner(Lines, row, column);
      while (scan.Next()) {
        if (scan.Char == '{') depth++;
        else if (scan.Char == '}' && --depth == 0) return scan.Row;
      }
      return row;
    }

    int Semicolon(int row, int column) {
      var scan = new Scanner(Lines, row, column);
      while (scan.Next()) if (scan.Char == ';') return scan.Row;
      return row;
    }

    void Define(MemberCore m, string qualname, string kind) {
      int first = First(m);
      var doc = Doc(Lines, first);
      Out.Add(new Def { Qualname = qualname, Kind = kind, First = first, Last = Last(m), DocFirst = doc.Item1, Doc = doc.Item2 });
    }

    static string KindOf(TypeContainer t) {
      if (t is Class) return "class";
      if (t is Struct) return "struct";
      if (t is Interface) return "interface";
      if (t is Mono.CSharp.Enum) return "enum";
      return null;
    }

    public void Namespace(TypeContainer ns, string prefix) {
      if (ns.Containers == null) return;
      foreach (var c in ns.Containers) {
        if (c is NamespaceContainer) Namespace(c, prefix);
        else Type(c, prefix);
      }
    }

    void Type(TypeContainer t, string prefix) {
      var name = prefix + t.MemberName.Name;
      if (t is Mono.CSharp.Delegate) { Define(t, name, "type"); return; }
      var kind = KindOf(t);
      if (kind == null) return;
      Define(t, name, kind);
      var def = t as TypeDefinition;
      if (def == null || def.Members == null) return;
      foreach (var m in def.Members) {
        if (m is TypeContainer) Type((TypeContainer) m, name + ".");
        else if (m is Method || m is Constructor) Define(m, name + "." + (m is Constructor ? t.MemberName.Name : m.MemberName.Name), "method");
      }
    }
  }

  // Code characters from a 1-based (row, column) on, outside comments, strings and character literals.
  class Scanner {
    readonly string[] lines;
    int row, col;
    public char Char;
    public int Row { get { return row; } }

    public Scanner(string[] lines, int row, int column) { this.lines = lines; this.row = row; col = column - 2; }

    char At(int r, int c) { return r <= lines.Length && c < lines[r - 1].Length ? lines[r - 1][c] : '\n'; }

    bool Step() {
      col++;
      while (row <= lines.Length && col >= lines[row - 1].Length) {
        if (col == lines[row - 1].Length) { Char = '\n'; return true; }
        row++; col = 0;
        if (row <= lines.Length && lines[row - 1].Length > 0) break;
        if (row > lines.Length) return false;
      }
      if (row > lines.Length) return false;
      Char = lines[row - 1][col];
      return true;
    }

    void SkipTo(string end) {
      while (Step()) {
        if (Char == end[0] && (end.Length == 1 || At(row, col + 1) == end[1])) { if (end.Length == 2) col++; return; }
      }
    }

    void SkipString(bool verbatim) {
      while (Step()) {
        if (!verbatim && Char == '\\') { Step(); continue; }
        if (Char == '"') {
          if (verbatim && At(row, col + 1) == '"') { col++; continue; }
          return;
        }
      }
    }

    public bool Next() {
      while (Step()) {
        if (Char == '/' && At(row, col + 1) == '/') { col = lines[row - 1].Length - 1; continue; }
        if (Char == '/' && At(row, col + 1) == '*') { col++; SkipTo("*/"); continue; }
        if (Char == '\'') { while (Step() && Char != '\'') if (Char == '\\') Step(); continue; }
        if (Char == '"') { SkipString(At(row, col - 1) == '@' || (At(row, col - 1) == '$' && At(row, col - 2) == '@')); continue; }
        return true;
      }
      return false;
    }
  }

  static readonly System.Text.RegularExpressions.Regex Directive =
    new System.Text.RegularExpressions.Regex(@"^\s*#\s*(if|elif)\b(.*)$");
  static readonly System.Text.RegularExpressions.Regex Symbol =
    new System.Text.RegularExpressions.Regex(@"[A-Za-z_][A-Za-z0-9_]*");

  // The symbols a file's `#if` and `#elif` directives test, but `true` and `false`.
  static List<string> Symbols(string[] lines) {
    var found = new SortedSet<string>();
    foreach (var line in lines) {
      var m = Directive.Match(line);
      if (!m.Success) continue;
      foreach (System.Text.RegularExpressions.Match s in Symbol.Matches(m.Groups[2].Value))
        if (s.Value != "true" && s.Value != "false") found.Add(s.Value);
    }
    return found.ToList();
  }

  // The file read twice, with none of the symbols its `#if`s test defined and with all of them, and the
  // definitions and imports of both readings (once each): tree-sitter reads every branch of a directive.
  static string Read(string path) {
    var lines = File.ReadAllText(path, Encoding.UTF8).Replace("\r\n", "\n").Split('\n');
    var none = ReadWith(path, lines, new List<string>());
    var symbols = Symbols(lines);
    if (symbols.Count == 0) return Line(path, none);
    var all = ReadWith(path, lines, symbols);
    if (all.Item1 != null || none.Item1 != null)  // what one reading cannot parse, the other may hold
      return Line(path, Tuple.Create("with the symbols of its #if directives " + (none.Item1 == null ? "defined: " + all.Item1 : "undefined: " + none.Item1), (List<Def>) null, (List<string>) null));
    // A definition both readings hold (the same name, kind and last line) once, from its earliest first line
    // (an attribute under `#if` starts it only where the symbol is defined).
    var defs = new Dictionary<string, Def>();
    foreach (var d in none.Item2.Concat(all.Item2))
      if (!defs.ContainsKey(d.Key) || d.First < defs[d.Key].First) defs[d.Key] = d;
    var imports = new List<string>(none.Item3);
    foreach (var i in all.Item3) if (!imports.Contains(i)) imports.Add(i);
    return Line(path, Tuple.Create((string) null, defs.Values.ToList(), imports));
  }

  static string Line(string path, Tuple<string, List<Def>, List<string>> read) {
    if (read.Item1 != null)
      return "{\"path\":" + Json(path) + ",\"error\":" + Json(read.Item1) + ",\"defs\":[],\"imports\":[]}";
    var defs = read.Item2.OrderBy(d => d.First).ThenByDescending(d => d.Last);
    return "{\"path\":" + Json(path) + ",\"error\":null,\"defs\":[" + string.Join(",", defs)
      + "],\"imports\":[" + string.Join(",", read.Item3) + "]}";
  }

  static Tuple<string, List<Def>, List<string>> ReadWith(string path, string[] lines, List<string> symbols) {
    var settings = new CompilerSettings();
    foreach (var symbol in symbols) settings.AddConditionalSymbol(symbol);
    settings.DocumentationFile = "/dev/null";  // the tokenizer keeps `///` comments only when it is set
    var printer = new StreamReportPrinter(TextWriter.Null);
    var ctx = new CompilerContext(settings, printer);
    var module = new ModuleContainer(ctx);
    var session = new ParserSession {
      UseJayGlobalArrays = true, LocatedTokens = new LocatedToken[15000], LocationsBag = new LocationsBag()
    };
    var source = new SourceFile(path, path, 1);
    Location.Initialize(new List<SourceFile> { source });
    var file = new CompilationSourceFile(module, source);
    module.AddTypeContainer(file);
    using (var stream = File.OpenRead(path)) {
      var reader = new SeekableStreamReader(stream, Encoding.UTF8, session.StreamReaderBuffer);
      new CSharpParser(reader, file, ctx.Report, session).parse();
    }
    if (ctx.Report.Errors > 0)
      return Tuple.Create(ctx.Report.Errors + " errors", (List<Def>) null, (List<string>) null);
    var r = new Reader { Lines = lines, Bag = session.LocationsBag };
    r.Namespace(file, "");
    var imports = new List<string>();
    Usings(file, imports);
    return Tuple.Create((string) null, r.Out, imports);
  }

  static void Usings(NamespaceContainer ns, List<string> imports) {
    if (ns.Usings != null)
      foreach (var u in ns.Usings)
        imports.Add("[" + Json(u.NamespaceExpression.GetSignatureForError()) + "," + u.Location.Row + "]");
    if (ns.Containers != null)
      foreach (var c in ns.Containers) if (c is NamespaceContainer) Usings((NamespaceContainer) c, imports);
  }

  static void Main(string[] args) {
    foreach (var path in args) {
      string line;
      try { line = Read(path); }
      catch (Exception e) {
        line = "{\"path\":" + Json(path) + ",\"error\":" + Json(e.GetType().Name) + ",\"defs\":[],\"imports\":[]}";
      }
      Console.WriteLine(line);
    }
  }
}
