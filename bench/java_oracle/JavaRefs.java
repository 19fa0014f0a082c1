/*
 * The uses of each Java method and constructor as javac resolves them, for bench/who_uses_java_bench.py.
 *
 * Usage (JDK 17 or later; `java` runs a single source file without a build step):
 *     java bench/java_oracle/JavaRefs.java ROOT
 * Every `.java` file under ROOT (module-info.java and package-info.java left out) is parsed and attributed
 * together with com.sun.source (JavacTask.analyze), with the JDK alone on the class path: a library the
 * tree imports is not resolved, and a call on one of its types resolves to nothing (errors are ignored).
 * For each method or constructor declared in the tree, it prints one JSON object on a line, with the
 * calls, `new` expressions, method references and explicit `this(...)`/`super(...)` calls that resolve
 * to it (none for a declaration nothing uses):
 *     {"path": "rel/Foo.java", "name": "bar", "line": N, "refs": [{"path": "...", "line": N}, ...]}
 * where "line" is the first line of the declaration (its modifiers included), "name" is the method's name
 * or, for a constructor, its class's simple name, and each ref is the line where the use's name is
 * spelled. Calls are resolved by their static types, as the compiler does: a call through an interface
 * or a base class is a use of that declaration, not of an override. Implicit trees (a default
 * constructor, an implicit super()) have no source position and are left out.
 */
import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;
import javax.lang.model.element.*;
import javax.tools.*;

public class JavaRefs {
    public static void main(String[] args) throws Exception {
        Path root = Paths.get(args[0]).toAbsolutePath().normalize();
        List<File> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
                    .filter(p -> !p.getFileName().toString().equals("module-info.java"))
                    .filter(p -> !p.getFileName().toString().equals("package-info.java"))
                    .filter(p -> !root.relativize(p).toString().contains(".prooftext"))
                    .sorted().map(Path::toFile).collect(Collectors.toList());
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticListener<JavaFileObject> quiet = d -> { };
        StandardJavaFileManager manager = compiler.getStandardFileManager(quiet, null, StandardCharsets.UTF_8);
        JavacTask task = (JavacTask) compiler.getTask(null, manager, quiet,
                List.of("-proc:none", "-Xlint:none", "-implicit:none", "-Xmaxerrs", "0"), null,
                manager.getJavaFileObjectsFromFiles(files));
        List<CompilationUnitTree> units = new ArrayList<>();
        task.parse().forEach(units::add);
        task.analyze();
        Trees trees = Trees.instance(task);
        SourcePositions positions = trees.getSourcePositions();
        Map<String, List<String>> refs = new TreeMap<>();
        for (CompilationUnitTree unit : units) {
            String path = root.relativize(Paths.get(unit.getSourceFile().toUri())).toString();
            new TreePathScanner<Void, Void>() {
                void use(Tree tree, long at) {
                    if (at < 0 || positions.getEndPosition(unit, tree) < 0) return;  // implicit
                    Element element = trees.getElement(getCurrentPath());
                    if (!(element instanceof ExecutableElement)) return;
                    TreePath declared = trees.getPath(element);
                    if (declared == null || !(declared.getLeaf() instanceof MethodTree)) return;
                    CompilationUnitTree home = declared.getCompilationUnit();
                    long start = positions.getStartPosition(home, declared.getLeaf());
                    if (start < 0) return;  // a default constructor
                    refs.computeIfAbsent(key(home, element, start), k -> new ArrayList<>())
                            .add(path + "\t" + unit.getLineMap().getLineNumber(at));
                }

                String key(CompilationUnitTree home, Element element, long start) {
                    String name = element.getKind() == ElementKind.CONSTRUCTOR
                            ? element.getEnclosingElement().getSimpleName().toString()
                            : element.getSimpleName().toString();
                    return root.relativize(Paths.get(home.getSourceFile().toUri())) + "\t" + name + "\t"
                            + home.getLineMap().getLineNumber(start);
                }

                @Override
                public Void visitMethod(MethodTree tree, Void p) {
                    long start = positions.getStartPosition(unit, tree);
                    Element element = trees.getElement(getCurrentPath());
                    if (start >= 0 && positions.getEndPosition(unit, tree) >= 0 && element != null) {
                        refs.computeIfAbsent(key(unit, element, start), k -> new ArrayList<>());
                    }
                    return super.visitMethod(tree, p);
                }

                @Override
                public Void visitMethodInvocation(MethodInvocationTree tree, Void p) {
                    ExpressionTree select = tree.getMethodSelect();
                    long at = select instanceof MemberSelectTree
                            ? positions.getEndPosition(unit, select) - 1
                            : positions.getStartPosition(unit, select);
                    use(tree, at);
                    return super.visitMethodInvocation(tree, p);
                }

                @Override
                public Void visitNewClass(NewClassTree tree, Void p) {
                    use(tree, positions.getStartPosition(unit, tree.getIdentifier()));
                    return super.visitNewClass(tree, p);
                }

                @Override
                public Void visitMemberReference(MemberReferenceTree tree, Void p) {
                    use(tree, positions.getEndPosition(unit, tree) - 1);
                    return super.visitMemberReference(tree, p);
                }
            }.scan(unit, null);
        }
        for (Map.Entry<String, List<String>> entry : refs.entrySet()) {
            String[] key = entry.getKey().split("\t");
            String listed = entry.getValue().stream().distinct().map(r -> {
                String[] at = r.split("\t");
                return "{\"path\": " + quote(at[0]) + ", \"line\": " + at[1] + "}";
            }).collect(Collectors.joining(", "));
            System.out.println("{\"path\": " + quote(key[0]) + ", \"name\": " + quote(key[1]) + ", \"line\": " + key[2]
                    + ", \"refs\": [" + listed + "]}");
        }
    }

    static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }
}
