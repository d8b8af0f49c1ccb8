package io.github.sluice.moduletests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of README.md carries its imports, and they are real: each type the snippet
 * names is imported (or is in {@code java.lang}, declared by the snippet, or one of the user's
 * own classes the prose names), no import is unused, and each imported class exists (a Sluice
 * source file, or a class some compiled source of this repository imports). The code of the
 * snippets themselves is compared with the tests that run it in each module (ReadmeSnippetsTest,
 * QuickStartTest, DocsSnippetsTest, the demo's ReadmeTest).
 */
class ReadmeImportsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern IMPORT = Pattern.compile("^import\\s+([\\w.]+)\\s*;\\s*$", Pattern.MULTILINE);
    private static final Pattern TYPE = Pattern.compile("(?<![\\w.$])(@?)([A-Z][A-Za-z0-9_]*)\\b");
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|record|interface|enum)\\s+([A-Z]\\w*)");
    /** The user's own classes that the README's prose introduces instead of importing. */
    private static final Set<String> USER_CLASSES = Set.of("HelloServlet");

    /** @return the classes the README's snippets declare (a resource shown in one, used in another) */
    static Set<String> declaredBySnippets(String readme) {
        Set<String> declared = new HashSet<>(USER_CLASSES);
        Matcher block = JAVA_BLOCK.matcher(readme);
        while (block.find()) {
            Matcher d = DECLARED.matcher(block.group(1));
            while (d.find()) {
                declared.add(d.group(1));
            }
        }
        return declared;
    }

    /** The types a snippet names: capitalised identifiers not after a dot, outside strings and comments. */
    static Set<String> namedTypes(String code) {
        String bare = code.replaceAll("(?s)\"\"\".*?\"\"\"", "\"\"")
                .replaceAll("\"(?:[^\"\\\\\\n]|\\\\.)*\"", "\"\"")
                .replaceAll("//[^\\n]*", "")
                .replaceAll("(?s)/\\*.*?\\*/", "");
        Set<String> declared = new HashSet<>();
        Matcher d = DECLARED.matcher(bare);
        while (d.find()) {
            declared.add(d.group(1));
        }
        Set<String> types = new TreeSet<>();
        Matcher m = TYPE.matcher(bare);
        while (m.find()) {
            String name = m.group(2);
            boolean annotation = !m.group(1).isEmpty();
            boolean constant = name.equals(name.toUpperCase()) && name.length() > 1;
            if ((annotation || !constant) && !declared.contains(name) && !isJavaLang(name)) {
                types.add(name);
            }
        }
        return types;
    }

    private static boolean isJavaLang(String simpleName) {
        try {
            Class.forName("java.lang." + simpleName, false, ClassLoader.getPlatformClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** @return what is wrong with one snippet's imports, empty when nothing */
    static List<String> importProblems(String snippet, Set<String> knownClasses, Set<String> userClasses) {
        List<String> problems = new ArrayList<>();
        Map<String, String> imported = new TreeMap<>();
        Matcher i = IMPORT.matcher(snippet);
        while (i.find()) {
            String fqcn = i.group(1);
            imported.put(fqcn.substring(fqcn.lastIndexOf('.') + 1), fqcn);
        }
        String code = IMPORT.matcher(snippet).replaceAll("");
        Set<String> named = namedTypes(code);
        for (String type : named) {
            if (!imported.containsKey(type) && !userClasses.contains(type)) {
                problems.add("no import for " + type);
            }
        }
        for (Map.Entry<String, String> e : imported.entrySet()) {
            if (!named.contains(e.getKey())) {
                problems.add("unused import " + e.getValue());
            } else if (!knownClasses.contains(e.getValue())) {
                problems.add("no such class in this repository's code: " + e.getValue());
            }
        }
        return problems;
    }

    /** Sluice's classes (by source file) and every class that a source of the repository imports. */
    static Set<String> knownClasses() throws IOException {
        Set<String> known = new HashSet<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !ROOT.relativize(f).toString().matches("(?:.*/)?(?:target|\\.git)/.*"))
                    .forEach(f -> {
                        String rel = ROOT.relativize(f).toString().replace('\\', '/');
                        int src = rel.indexOf("/src/main/java/");
                        if (src >= 0) {
                            known.add(rel.substring(src + "/src/main/java/".length(), rel.length() - ".java".length())
                                    .replace('/', '.'));
                        }
                        try {
                            Matcher m = IMPORT.matcher(Files.readString(f, StandardCharsets.UTF_8));
                            while (m.find()) {
                                known.add(m.group(1));
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
        return known;
    }

    @Test
    void everyJavaSnippetOfTheReadme_importsWhatItUses() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        Set<String> known = knownClasses();
        Map<String, List<String>> problems = new TreeMap<>();
        Matcher block = JAVA_BLOCK.matcher(readme);
        int blocks = 0;
        while (block.find()) {
            blocks++;
            List<String> found = importProblems(block.group(1), known, declaredBySnippets(readme));
            if (!found.isEmpty()) {
                problems.put("README.md:" + (readme.substring(0, block.start()).lines().count() + 1), found);
            }
        }
        assertTrue(blocks >= 5, "found " + blocks + " Java blocks in the README");
        assertEquals(Map.of(), problems, "README Java snippets a reader cannot paste as they are");
    }

    @Test
    void importProblems_findsMissingUnusedAndInventedImports() {
        // The rule above must be able to fail
        Set<String> known = Set.of("io.github.sluice.http.Enforcer", "java.util.EnumSet");
        String snippet = """
                import io.github.sluice.http.Enforcer;
                import java.util.EnumSet;
                import io.github.sluice.Nope;

                @RateLimited("x")
                Enforcer e = Enforcer.builder().policies("key=ip Policy").build();  // Verdict in a comment
                String s = DispatcherType.REQUEST + SluiceFilter.STORE_ATTRIBUTE;
                """;
        assertEquals(List.of("no import for DispatcherType", "no import for RateLimited", "no import for SluiceFilter",
                "unused import java.util.EnumSet", "unused import io.github.sluice.Nope"),
                importProblems(snippet, known, USER_CLASSES));
    }
}
