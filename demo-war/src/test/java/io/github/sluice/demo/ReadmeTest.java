package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README says what the demo does; these checks keep it true: its policy lines are those of
 * the WAR's web.xml, and its Redis quick start is the code of the demo's store listener (which
 * the Redis integration test runs).
 */
class ReadmeTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path WEB_XML = Path.of("src", "main", "webapp", "WEB-INF", "web.xml");
    private static final Path LISTENER = Path.of("src", "main", "java", "io", "github", "sluice", "demo",
            "DemoStoreListener.java");

    @Test
    void demoTable_policyLines_areTheWebXmlPolicies() throws IOException {
        // Given the policies the README's demo table shows (in backticks, with escaped pipes)
        String readme = section(read(README), "## The demo");
        Matcher m = Pattern.compile("`((?:per-ip|login|per-key|inflight) = [^`]+)`").matcher(readme);
        List<String> shown = new ArrayList<>();
        while (m.find()) {
            shown.add(m.group(1).replace("\\|", "|"));
        }
        // Then there are four, and each is a line of web.xml, word for word
        assertEquals(4, shown.size(), () -> "policy lines in the README's demo table: " + shown);
        List<String> webXml = normalised(read(WEB_XML)).stream()
                .map(l -> l.replaceAll("\\s+", " "))
                .collect(Collectors.toList());
        for (String line : shown) {
            assertTrue(webXml.contains(line), () -> "not in web.xml: " + line);
        }
    }

    @Test
    void redisQuickStart_isTheCodeOfDemoStoreListener() throws IOException {
        String section = section(read(README), "## Quick start: Redis");
        int from = section.indexOf("```java\n", section.indexOf("ServletContextListener"));
        int to = section.indexOf("```", from + 8);
        assertTrue(from >= 0 && to > from, "no java block after 'ServletContextListener' in the README's Redis quick start");
        assertTrue(section.substring(from, to).contains("SluiceFilter.STORE_ATTRIBUTE"), "not the listener's block");
        String listener = read(LISTENER);
        String begin = "// README: Redis (begin)\n";
        int b = listener.indexOf(begin);
        int e = listener.indexOf("// README: Redis (end)");
        assertTrue(b >= 0 && e > b, "markers in " + LISTENER);

        assertEquals(normalised(listener.substring(b + begin.length(), e)),
                normalised(section.substring(from + 8, to)));
    }

    private static String section(String text, String heading) {
        int from = text.indexOf("\n" + heading + "\n");
        assertTrue(from >= 0, "README.md has no '" + heading + "' section");
        int to = text.indexOf("\n## ", from + 1);
        return text.substring(from, to < 0 ? text.length() : to);
    }

    /**
     * Lines stripped of indentation, without blank lines.
     * Import lines are left out: ReadmeImportsTest (module-tests) checks them.
     */
    private static List<String> normalised(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("import ")).collect(Collectors.toList());
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
