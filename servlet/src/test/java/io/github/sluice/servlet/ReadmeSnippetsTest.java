package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's "Quick start: Servlet" snippets are the code the tests run: the web.xml snippet
 * is part of the test webapp's descriptor, the Java snippets are the {@code start} methods of
 * {@link ReadmeJettyQuickStartTest} and {@link ReadmeTomcatQuickStartTest}.
 */
class ReadmeSnippetsTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path TESTS = Path.of("src", "test", "java", "io", "github", "sluice", "servlet");

    @Test
    void webXmlSnippet_isInTheTestWebappDescriptor() throws IOException {
        List<String> snippet = normalised(block("xml", "<filter>"));
        List<String> webXml = normalised(read(Container.TEST_WEBAPP.resolve("WEB-INF/web.xml")));

        assertTrue(Collections.indexOfSubList(webXml, snippet) >= 0,
                "the README's web.xml snippet is not in src/test/webapp/WEB-INF/web.xml:\n" + String.join("\n", snippet));
    }

    @Test
    void jettySnippet_isTheCodeOfReadmeJettyQuickStartTest() throws IOException {
        assertEquals(normalised(marked(TESTS.resolve("ReadmeJettyQuickStartTest.java"), "embedded Jetty")),
                normalised(block("java", "ServletContextHandler")));
    }

    @Test
    void tomcatSnippet_isTheCodeOfReadmeTomcatQuickStartTest() throws IOException {
        assertEquals(normalised(marked(TESTS.resolve("ReadmeTomcatQuickStartTest.java"), "embedded Tomcat")),
                normalised(block("java", "new Tomcat()")));
    }

    /** The fenced block of the given language, in the Servlet quick start, that contains {@code marker}. */
    private static String block(String language, String marker) throws IOException {
        String readme = read(README);
        int from = readme.indexOf("\n## Quick start: Servlet");
        assertTrue(from >= 0, "README.md has no '## Quick start: Servlet' section");
        int to = readme.indexOf("\n## ", from + 1);
        String section = readme.substring(from, to < 0 ? readme.length() : to);
        List<String> found = new ArrayList<>();
        int at = 0;
        String fence = "```" + language + "\n";
        while ((at = section.indexOf(fence, at)) >= 0) {
            int end = section.indexOf("```", at + fence.length());
            String body = section.substring(at + fence.length(), end);
            if (body.contains(marker)) {
                found.add(body);
            }
            at = end + 3;
        }
        assertEquals(1, found.size(), "README blocks of " + language + " containing '" + marker + "'");
        return found.get(0);
    }

    /** The lines between "// README: name (begin)" and "// README: name (end)". */
    private static String marked(Path file, String name) throws IOException {
        String text = read(file);
        String begin = "// README: " + name + " (begin)\n";
        int from = text.indexOf(begin);
        int to = text.indexOf("// README: " + name + " (end)");
        assertTrue(from >= 0 && to > from, "markers of '" + name + "' in " + file);
        return text.substring(from + begin.length(), to);
    }

    /**
     * Lines without their indentation and without blank lines: indentation differs between a README and a class.
     * Import lines are left out: ReadmeImportsTest (module-tests) checks them.
     */
    private static List<String> normalised(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("import ")).collect(Collectors.toList());
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
