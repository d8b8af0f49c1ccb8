package io.github.sluice.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Which package of a source tree uses which package, read from the sources: every {@code import}
 * (static and on-demand ones included) and every fully qualified name written in code, with the
 * file and line that wrote it. Comments (Javadoc included), string and character literals and text
 * blocks are not code: a {@code {@link io.github.sluice.http.Enforcer}} in a comment is no
 * dependency, while an import used only by Javadoc is one (it is still an import).
 *
 * <p>Only names under a given prefix (say {@code io.github.sluice}) are collected. A name's package
 * is its segments up to the first that starts with an upper-case letter (Java's naming convention,
 * which this code base follows), so {@code io.github.sluice.redis.internal.Micros.toNanos} is in
 * {@code io.github.sluice.redis.internal}. {@code module-info.java} is skipped: it names packages
 * to export them, not to use them.
 *
 * <p>Immutable once scanned; the rules ({@link #upwardOrUnknown}, {@link #mutual},
 * {@link #outside}) return the offending references, empty when the rule holds.
 */
public final class SourceDependencies {

    /**
     * One use of a package by a file.
     *
     * @param file the source file
     * @param line the line, from 1
     * @param from the file's package
     * @param to the package used
     */
    public record Reference(Path file, int line, String from, String to) {

        @Override
        public String toString() {
            return file + ":" + line + ": " + from + " -> " + to;
        }
    }

    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");

    private final String prefix;
    private final Set<String> packages;
    private final Set<String> documented;
    private final List<Reference> references;
    private final int files;

    private SourceDependencies(String prefix, Set<String> packages, Set<String> documented,
            List<Reference> references, int files) {
        this.prefix = prefix;
        this.packages = packages;
        this.documented = documented;
        this.references = references;
        this.files = files;
    }

    /**
     * Reads every {@code .java} file under a source root.
     *
     * @param root a source root such as {@code src/main/java}
     * @param prefix the names to collect, e.g. {@code io.github.sluice}
     * @return what the files use
     * @throws UncheckedIOException if a file cannot be read
     * @throws IllegalArgumentException if {@code root} is not a directory, or a file declares no
     *     package
     */
    public static SourceDependencies scan(Path root, String prefix) {
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("source root must be a directory but was " + root.toAbsolutePath());
        }
        List<Path> sources;
        try (Stream<Path> walk = Files.walk(root)) {
            sources = walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.getFileName().toString().equals("module-info.java"))
                    .sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<Path, String> texts = new TreeMap<>();
        for (Path p : sources) {
            try {
                texts.put(p, Files.readString(p, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return of(texts, prefix);
    }

    /**
     * Reads sources given as text (for tests of the rules themselves).
     *
     * @param sources each file's name and text
     * @param prefix the names to collect
     * @return what the files use
     * @throws IllegalArgumentException if a file declares no package
     */
    public static SourceDependencies of(Map<Path, String> sources, String prefix) {
        Set<String> packages = new TreeSet<>();
        Set<String> documented = new TreeSet<>();
        List<Reference> references = new ArrayList<>();
        // The prefix, then identifiers; dots may have spaces around them, as Java allows.
        String dotted = Stream.of(prefix.split("\\.")).map(Pattern::quote).collect(Collectors.joining("\\s*\\.\\s*"));
        Pattern name = Pattern.compile("(?<![\\w$.])" + dotted + "((?:\\s*\\.\\s*[\\p{L}_$][\\p{L}\\p{N}_$]*)*)");
        for (Map.Entry<Path, String> e : sources.entrySet()) {
            String code = code(e.getValue());
            Matcher pm = PACKAGE.matcher(code);
            if (!pm.find()) {
                throw new IllegalArgumentException(e.getKey() + " declares no package");
            }
            String from = pm.group(1);
            packages.add(from);
            if (e.getKey().getFileName().toString().equals("package-info.java")) {
                documented.add(from);
            }
            Matcher m = name.matcher(code);
            int line = 1;
            int counted = 0;
            while (m.find()) {
                for (; counted < m.start(); counted++) {
                    line += code.charAt(counted) == '\n' ? 1 : 0;
                }
                String to = packageOf(prefix, m.group(1));
                if (!to.equals(from)) {
                    references.add(new Reference(e.getKey(), line, from, to));
                }
            }
        }
        return new SourceDependencies(prefix, Set.copyOf(packages), Set.copyOf(documented),
                List.copyOf(references), sources.size());
    }

    /** The package named by the segments after the prefix: those before the first capitalised one. */
    private static String packageOf(String prefix, String rest) {
        StringBuilder b = new StringBuilder(prefix);
        for (String segment : rest.split("\\s*\\.\\s*")) {
            if (segment.isEmpty()) {
                continue;
            }
            if (Character.isUpperCase(segment.charAt(0))) {
                break;
            }
            b.append('.').append(segment);
        }
        return b.toString();
    }

    /**
     * The code of a Java source: comments, string literals, text blocks and character literals are
     * blanked (line breaks kept, so that line numbers still match).
     *
     * @param source a compilation unit
     * @return the same text with everything that is not code replaced by spaces
     */
    static String code(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int n = source.length();
        int i = 0;
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                int end = source.indexOf('\n', i);
                end = end < 0 ? n : end;
                blank(source, i, end, out);
                i = end;
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                blank(source, i, end, out);
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = closing(source, i + 3, "\"\"\"");
                blank(source, i, end, out);
                i = end;
            } else if (c == '"' || c == '\'') {
                int end = closing(source, i + 1, String.valueOf(c));
                blank(source, i, end, out);
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** The index after the first unescaped {@code quote} from {@code from}, or the end. */
    private static int closing(String source, int from, String quote) {
        int i = from;
        while (i < source.length()) {
            if (source.charAt(i) == '\\') {
                i += 2;
            } else if (source.startsWith(quote, i)) {
                return i + quote.length();
            } else {
                i++;
            }
        }
        return source.length();
    }

    private static void blank(String source, int from, int to, StringBuilder out) {
        for (int i = from; i < to; i++) {
            out.append(source.charAt(i) == '\n' ? '\n' : ' ');
        }
    }

    /** @return the packages the scanned files declare */
    public Set<String> packages() {
        return packages;
    }

    /** @return the packages without a {@code package-info.java}, sorted */
    public List<String> undocumented() {
        return packages.stream().filter(p -> !documented.contains(p)).sorted().collect(Collectors.toList());
    }

    /** @return every use of another package under the prefix, in file order */
    public List<Reference> references() {
        return references;
    }

    /** @return how many files were read */
    public int files() {
        return files;
    }

    /**
     * @return for each package, the other packages under the prefix it uses
     */
    public Map<String, Set<String>> graph() {
        Map<String, Set<String>> g = new TreeMap<>();
        for (String p : packages) {
            g.put(p, new TreeSet<>());
        }
        for (Reference r : references) {
            g.get(r.from()).add(r.to());
        }
        return g;
    }

    /**
     * The rule of layers: each package may use only the packages listed before it. A reference to
     * a package listed after its own, or from or to a package the list does not have, breaks it.
     *
     * @param bottomToTop the packages in layer order, relative to the prefix ({@code "core"}), or
     *     absolute
     * @return the references that break the rule
     */
    public List<Reference> upwardOrUnknown(List<String> bottomToTop) {
        List<String> order = bottomToTop.stream().map(this::absolute).collect(Collectors.toList());
        return references.stream().filter(r -> {
            int from = order.indexOf(r.from());
            int to = order.indexOf(r.to());
            return from < 0 || to < 0 || to > from;
        }).collect(Collectors.toList());
    }

    /**
     * Packages that use each other, directly: for every such pair, the references both ways.
     *
     * @return the references of packages that use each other
     */
    public List<Reference> mutual() {
        Map<String, Set<String>> g = graph();
        return references.stream()
                .filter(r -> g.getOrDefault(r.to(), Set.of()).contains(r.from()))
                .collect(Collectors.toList());
    }

    /**
     * The references to packages outside a set, other than to the packages these sources declare.
     *
     * @param allowed the packages these sources may use, relative to the prefix or absolute
     * @return the references to any other package under the prefix
     */
    public List<Reference> outside(Collection<String> allowed) {
        Set<String> ok = allowed.stream().map(this::absolute).collect(Collectors.toSet());
        Predicate<Reference> fine = r -> ok.contains(r.to()) || packages.contains(r.to());
        return references.stream().filter(fine.negate()).collect(Collectors.toList());
    }

    private String absolute(String pkg) {
        return pkg.startsWith(prefix + '.') || pkg.equals(prefix) ? pkg : prefix + '.' + pkg;
    }

    /**
     * @param references references to report
     * @return one per line, for an assertion message
     */
    public static String lines(List<Reference> references) {
        return references.stream().map(Reference::toString).collect(Collectors.joining("\n  ", "\n  ", ""));
    }
}
