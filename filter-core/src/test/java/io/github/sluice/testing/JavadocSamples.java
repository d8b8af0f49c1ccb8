package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles the Java code samples of a module's Javadoc ({@code <pre>{@code ...}</pre>}) against
 * the test class path, as the README's snippets are checked: a sample that no longer compiles (a
 * method renamed, an overload removed) fails the build, naming the file, the line and javac's
 * message.
 *
 * <p>How a sample is compiled:
 * <ul>
 *   <li>samples that are not Java (JSON, XML, a shell command: the first character is
 *       {@code {}, {@code <}, or the text has no {@code ;}, {@code (} or {@code @}) are skipped;
 *   <li>the obvious imports are added: every public type of {@code io.github.sluice} (by single
 *       type, so that {@code Clock} is Sluice's), and {@code java.time}, {@code java.util},
 *       {@code java.util.concurrent} and {@code java.util.function} on demand, plus the
 *       {@code extraImports} a module passes (its container's API);
 *   <li>a sample declaring members ({@code public Report export() ...}) is wrapped in a class;
 *       any other in a method that may throw, as statements;
 *   <li>the names a sample takes from its surrounding prose ({@code enforcer},
 *       {@code response}) come from {@code givens}: declarations put before the sample,
 *       per file and sample number ({@code "Enforcer.java#2"}), or for every sample of a file
 *       ({@code "Enforcer.java"}); {@code "Permit.java#1:members"} adds members to the class
 *       (the helper methods a sample calls), {@code "Permit.java#1:returns"} the method's
 *       return type (a sample that returns);
 *   <li>{@code { ... }} stands for "your code" and becomes a block that throws (valid where a
 *       value must be returned); a line that is only {@code ...} is dropped.
 * </ul>
 */
public final class JavadocSamples {

    private static final Pattern SAMPLE = Pattern.compile("<pre>\\{@code(.*?)}</pre>", Pattern.DOTALL);
    private static final Pattern MEMBER = Pattern.compile("^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s*)*"
            + "(?:public|protected|private)\\s+[\\w<>?,\\s\\[\\]]+\\s+\\w+\\s*\\(", Pattern.MULTILINE);

    /** One sample: where it is, and its code. */
    public record Sample(String file, int line, int index, String code) {

        /** @return {@code File.java:line} */
        public String where() {
            return file + ":" + line;
        }
    }

    private JavadocSamples() {
    }

    /**
     * @param sources a module's {@code src/main/java}
     * @return its Java samples, in file order
     */
    public static List<Sample> find(Path sources) {
        List<Sample> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java")).sorted()::iterator) {
                String text = Files.readString(f, StandardCharsets.UTF_8);
                Matcher m = SAMPLE.matcher(text);
                int index = 0;
                while (m.find()) {
                    String code = m.group(1).replaceAll("(?m)^\\s*\\* ?", "").replace("&#64;", "@")
                            .replace("{@literal @}", "@").strip();
                    int line = text.substring(0, m.start()).split("\n", -1).length;
                    if (isJava(code)) {
                        out.add(new Sample(f.getFileName().toString(), line, ++index, code));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static boolean isJava(String code) {
        return !code.isEmpty() && code.charAt(0) != '{' && code.charAt(0) != '<'
                && (code.contains(";") || code.contains("(") || code.contains("@"));
    }

    /**
     * Compiles every sample of {@code sources} and fails with all that do not compile.
     *
     * @param sources a module's {@code src/main/java}
     * @param givens declarations a sample takes from its prose, by {@code "File.java#n"} or {@code "File.java"}
     * @param extraImports imports beyond Sluice's and {@code java.*}, e.g. {@code "jakarta.ws.rs.*"}
     * @return the samples compiled
     */
    public static List<Sample> assertAllCompile(Path sources, Map<String, String> givens, String... extraImports) {
        assertTrue(!find(sources).isEmpty(), "no Javadoc samples under " + sources);
        return assertCompile(sources, null, givens, extraImports);
    }

    /**
     * Compiles the samples of {@code sources} that belong to {@code module}: a sample that names a
     * type of another module (filter-core's Javadoc showing {@code RedisStore}) says where it
     * compiles with the given {@code "File.java#n:module"}, and is compiled by that module's test,
     * whose class path has the type; the others belong to the module of {@code sources}
     * ({@code module == null}).
     *
     * @param sources a module's {@code src/main/java}
     * @param module the module whose class path this is, or {@code null} for the module of {@code sources}
     * @param givens as for {@link #assertAllCompile}
     * @param extraImports as for {@link #assertAllCompile}
     * @return the samples compiled
     */
    public static List<Sample> assertCompile(Path sources, String module, Map<String, String> givens,
            String... extraImports) {
        List<Sample> samples = new ArrayList<>();
        for (Sample s : find(sources)) {
            String elsewhere = givens.get(s.file() + "#" + s.index() + ":module");
            if (module == null ? elsewhere == null : module.equals(elsewhere)) {
                samples.add(s);
            }
        }
        if (samples.isEmpty()) {
            return samples;
        }
        String imports = imports(extraImports);
        Map<String, Sample> units = new LinkedHashMap<>();
        List<JavaFileObject> files = new ArrayList<>();
        for (Sample s : samples) {
            String name = "Sample_" + s.file().replace(".java", "").replaceAll("\\W", "_") + "_" + s.index();
            String key = s.file() + "#" + s.index();
            String given = givens.getOrDefault(key, givens.getOrDefault(s.file(), ""));
            String members = givens.getOrDefault(key + ":members", "");
            String returns = givens.getOrDefault(key + ":returns", "void");
            String code = s.code().replaceAll("\\{\\s*\\.\\.\\.\\s*}", "{ throw new UnsupportedOperationException(); }").replaceAll("(?m)^\\s*\\.\\.\\.\\s*$", "");
            String body = MEMBER.matcher(code).find()
                    ? "class " + name + " {\n" + members + "\n" + given + "\n" + code + "\n}\n"
                    : "class " + name + " {\n" + members + "\n@SuppressWarnings(\"unused\") " + returns
                            + " sample() throws Exception {\n" + given + "\n" + code + "\n}\n}\n";
            units.put(name, s);
            files.add(source(name, imports + body));
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            Path out = Files.createTempDirectory("javadoc-samples");
            List<String> options = List.of("-proc:none", "-d", out.toString(), "-classpath", classPath());
            javac.getTask(null, fm, diagnostics, options, null, files).call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> failures = new TreeSet<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR && d.getSource() != null) {
                String unit = d.getSource().getName().replaceAll(".*/", "").replace(".java", "");
                Sample s = units.get(unit);
                failures.add((s == null ? unit : s.where()) + ": " + d.getMessage(Locale.ROOT).replaceAll("\\s+", " "));
            }
        }
        assertEquals(Set.of(), failures, "Javadoc samples that do not compile");
        return samples;
    }

    private static String imports(String... extra) {
        StringBuilder b = new StringBuilder();
        for (String p : List.of("java.time.*", "java.util.*", "java.util.concurrent.*", "java.util.function.*")) {
            b.append("import ").append(p).append(";\n");
        }
        for (String p : extra) {
            b.append("import ").append(p).append(";\n");
        }
        Map<String, String> sluice = new LinkedHashMap<>();
        Set<String> ambiguous = new TreeSet<>();
        for (String entry : classPath().split(File.pathSeparator)) {
            Path root = Path.of(entry);
            List<String> names = new ArrayList<>();
            try {
                if (Files.isDirectory(root.resolve("io/github/sluice"))) {
                    try (Stream<Path> classes = Files.walk(root.resolve("io/github/sluice"))) {
                        classes.forEach(c -> names.add(root.relativize(c).toString().replace(File.separatorChar, '/')));
                    }
                } else if (entry.endsWith(".jar") && Files.isRegularFile(root) && !entry.endsWith("-tests.jar")) {
                    try (java.util.zip.ZipFile jar = new java.util.zip.ZipFile(root.toFile())) {
                        jar.stream().map(java.util.zip.ZipEntry::getName)
                                .filter(n -> n.startsWith("io/github/sluice/")).forEach(names::add);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            names.stream()
                    .filter(c -> c.endsWith(".class") && !c.contains("$") && !c.contains("/internal/")
                            && !c.endsWith("package-info.class") && !c.endsWith("module-info.class"))
                    .map(c -> c.substring(0, c.length() - ".class".length()).replace('/', '.'))
                    .filter(JavadocSamples::isPublic)
                    .forEach(fqcn -> {
                        String simple = fqcn.substring(fqcn.lastIndexOf('.') + 1);
                        String before = sluice.putIfAbsent(simple, fqcn);
                        if (before != null && !before.equals(fqcn)) {
                            ambiguous.add(simple);
                        }
                    });
        }
        sluice.forEach((simple, fqcn) -> {
            if (!ambiguous.contains(simple)) {
                b.append("import ").append(fqcn).append(";\n");
            }
        });
        return b.toString();
    }

    private static boolean isPublic(String fqcn) {
        try {
            return java.lang.reflect.Modifier.isPublic(
                    Class.forName(fqcn, false, JavadocSamples.class.getClassLoader()).getModifiers());
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The test class path and module path (a module's tests may run on the module path). */
    private static String classPath() {
        String cp = System.getProperty("java.class.path", "");
        String mp = System.getProperty("jdk.module.path", "");
        return mp.isEmpty() ? cp : cp.isEmpty() ? mp : cp + File.pathSeparator + mp;
    }

    private static JavaFileObject source(String name, String code) {
        return new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return code;
            }
        };
    }
}
