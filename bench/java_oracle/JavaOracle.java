/*
 * The declarations of Java files as the JDK's own parser reads them, one JSON object per file on stdout.
 *
 * Usage (JDK 17 or later; `java` runs a single source file without a build step):
 *     java bench/java_oracle/JavaOracle.java ROOT [ROOT ...]
 * Every `.java` file under each ROOT (module-info.java and package-info.java included) is parsed with
 * com.sun.source (JavacTask.parse: no symbol resolution, so no classpath is needed). For each file it prints
 *     {"path": "...", "defs": [...], "imports": [...], "errors": N}
 * A def is every class, interface, enum, record, annotation type, method and constructor (compact ones
 * included) with "qualname" (the named enclosing classes and methods, dotted; an anonymous class, an enum
 * constant's body included, adds no name), "kind" (class|interface|enum|record|annotation|method),
 * "start" (first line of the declaration, its annotations and modifiers included), "end" (last line),
 * "anonymous" (inside an anonymous class body), "doc" (the Javadoc javac attaches, as Trees.getDocComment
 * gives it, or null) and "doc_start" (the line where that comment's `/**` opens when only white space
 * separates it from the declaration, else null).
 * An import is {"name": "a.b.C" or "a.b.*", "static": bool, "line": N}.
 */
import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;
import javax.tools.*;

public class JavaOracle {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StringBuilder out = new StringBuilder();
        for (String root : args) {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(Paths.get(root))) {
                files = walk.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p)).sorted()
                        .collect(Collectors.toList());
            }
            for (Path file : files) {
                out.setLength(0);
                one(compiler, Paths.get(root), file, out);
                System.out.println(out);
            }
        }
    }

    static void one(JavaCompiler compiler, Path root, Path file, StringBuilder out) throws IOException {
        String source = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StandardJavaFileManager manager = compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8);
        JavacTask task = (JavacTask) compiler.getTask(null, manager, diagnostics,
                List.of("-proc:none", "-Xlint:none"), null, manager.getJavaFileObjects(file.toFile()));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        DocTrees trees = DocTrees.instance(task);
        long errors = diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR).count();
        List<String> defs = new ArrayList<>();
        List<String> imports = new ArrayList<>();
        for (CompilationUnitTree unit : units) {
            SourcePositions positions = trees.getSourcePositions();
            LineMap lines = unit.getLineMap();
            for (ImportTree imp : unit.getImports()) {
                long line = lines.getLineNumber(positions.getStartPosition(unit, imp));
                imports.add("{\"name\": " + quote(imp.getQualifiedIdentifier().toString()) + ", \"static\": "
                        + imp.isStatic() + ", \"line\": " + line + "}");
            }
            new TreePathScanner<Void, Deque<String>>() {
                int anonymous = 0;

                void def(Tree tree, String name, String kind, Deque<String> names) {
                    long start = positions.getStartPosition(unit, tree);
                    long end = positions.getEndPosition(unit, tree);
                    String doc = trees.getDocComment(getCurrentPath());
                    Long docStart = doc == null ? null : docStart(source, (int) start, lines);
                    List<String> chain = new ArrayList<>(names);
                    Collections.reverse(chain);
                    chain.add(name);
                    defs.add("{\"qualname\": " + quote(String.join(".", chain)) + ", \"name\": " + quote(name)
                            + ", \"kind\": " + quote(kind) + ", \"start\": " + lines.getLineNumber(start)
                            + ", \"end\": " + lines.getLineNumber(Math.max(start, end - 1))
                            + ", \"anonymous\": " + (anonymous > 0) + ", \"doc\": " + (doc == null ? "null" : quote(doc))
                            + ", \"doc_start\": " + docStart + "}");
                }

                @Override
                public Void visitClass(ClassTree tree, Deque<String> names) {
                    String name = tree.getSimpleName().toString();
                    if (name.isEmpty()) {
                        anonymous++;
                        super.visitClass(tree, names);
                        anonymous--;
                        return null;
                    }
                    String kind;
                    switch (tree.getKind()) {
                        case INTERFACE: kind = "interface"; break;
                        case ENUM: kind = "enum"; break;
                        case ANNOTATION_TYPE: kind = "annotation"; break;
                        default: kind = tree.getKind().name().equals("RECORD") ? "record" : "class";
                    }
                    def(tree, name, kind, names);
                    names.push(name);
                    super.visitClass(tree, names);
                    names.pop();
                    return null;
                }

                @Override
                public Void visitMethod(MethodTree tree, Deque<String> names) {
                    String name = tree.getName().toString();
                    if (name.equals("<init>")) {
                        name = names.isEmpty() ? name : names.peek();
                    }
                    def(tree, name, "method", names);
                    names.push(name);
                    super.visitMethod(tree, names);
                    names.pop();
                    return null;
                }
            }.scan(unit, new ArrayDeque<>());
        }
        out.append("{\"path\": ").append(quote(root.relativize(file).toString().replace('\\', '/')))
                .append(", \"errors\": ").append(errors)
                .append(", \"defs\": [").append(String.join(", ", defs))
                .append("], \"imports\": [").append(String.join(", ", imports)).append("]}");
    }

    /** The line of the `/**` of a comment that ends right before `start` with only white space between. */
    static Long docStart(String source, int start, LineMap lines) {
        int at = start;
        while (at > 0 && Character.isWhitespace(source.charAt(at - 1))) {
            at--;
        }
        if (at < 2 || !source.startsWith("*/", at - 2)) {
            return null;
        }
        int open = source.lastIndexOf("/**", at - 3);
        return open < 0 ? null : lines.getLineNumber(open);
    }

    static String quote(String text) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c)); else b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
