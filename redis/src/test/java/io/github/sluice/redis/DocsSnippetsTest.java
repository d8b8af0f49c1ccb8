package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Java snippets of docs/redis.md's "Quick start" and "Lease mode" and of README.md's "Quick start: Redis" are
 * the code {@link QuickStartTest} runs, between its "docs: name (begin)" and "(end)" markers.
 */
class DocsSnippetsTest {

    private static final Path DOCS = Path.of("..", "docs", "redis.md");
    private static final Path README = Path.of("..", "README.md");
    private static final Path TEST = Path.of("src", "test", "java", "io", "github", "sluice", "redis",
            "QuickStartTest.java");

    @Test
    void docsStoreAlone_isTheTestedCode() throws IOException {
        assertEquals(normalised(marked("store alone")),
                normalised(block(DOCS, "## Quick start", "perIp.acquire")));
    }

    @Test
    void docsWithTheEnforcer_isTheTestedCode() throws IOException {
        assertEquals(normalised(marked("with the enforcer")),
                normalised(block(DOCS, "## Quick start", "Enforcer.builder()")));
    }

    @Test
    void docsLeaseMode_isTheTestedCode() throws IOException {
        assertEquals(normalised(marked("lease mode")), normalised(block(DOCS, "## Lease mode", ".leases(")));
    }

    @Test
    void readmeQuickStart_isTheTestedCode() throws IOException {
        assertEquals(normalised(marked("store alone")),
                normalised(block(README, "## Quick start: Redis", "perIp.acquire")));
    }

    /** The one fenced Java block of the section that contains {@code marker}. */
    private static String block(Path file, String heading, String marker) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int from = text.indexOf("\n" + heading + "\n");
        assertTrue(from >= 0, file + " has no '" + heading + "' section");
        int to = text.indexOf("\n## ", from + 1);
        String section = text.substring(from, to < 0 ? text.length() : to);
        List<String> found = new ArrayList<>();
        String fence = "```java\n";
        int at = 0;
        while ((at = section.indexOf(fence, at)) >= 0) {
            int end = section.indexOf("```", at + fence.length());
            String body = section.substring(at + fence.length(), end);
            if (body.contains(marker)) {
                found.add(body);
            }
            at = end + 3;
        }
        assertEquals(1, found.size(), file + ": Java blocks containing '" + marker + "'");
        return found.get(0);
    }

    private static String marked(String name) throws IOException {
        String text = Files.readString(TEST, StandardCharsets.UTF_8);
        String begin = "// docs: " + name + " (begin)\n";
        int from = text.indexOf(begin);
        int to = text.indexOf("// docs: " + name + " (end)");
        assertTrue(from >= 0 && to > from, "markers of '" + name + "' in " + TEST);
        return text.substring(from + begin.length(), to);
    }

    /**
     * Lines without indentation or blank lines: a document and a class indent differently.
     * Import lines are left out: ReadmeImportsTest (module-tests) checks them.
     */
    private static List<String> normalised(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("import ")).collect(Collectors.toList());
    }
}
