package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.jaxrs.readme.Reports;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * The README's "Quick start: JAX-RS", run as written: {@link #application()} and {@link Reports}
 * are its two snippets, and the last test fails if the README and this code drift apart.
 */
class QuickStartTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path TESTS = Path.of("src", "test", "java", "io", "github", "sluice", "jaxrs");

    static ResourceConfig application() {
        // README: register (begin)
        Enforcer enforcer = Enforcer.builder()
                .policies("""
                        per-client = token-bucket 100/1m key=header:X-Api-Key match=/api/*
                        exports    = token-bucket 10/1h key=header:X-Api-Key match=none
                        """)
                .build();

        ResourceConfig app = new ResourceConfig(Reports.class)
                .register(new SluiceFeature(enforcer));
        // README: register (end)
        return app;
    }

    @Test
    void quickStart_pathPolicyEverywhere_annotatedPolicyOnExport() throws Exception {
        try (JerseyServer server = JerseyServer.start(application())) {
            // The path-matched policy applies to the whole API
            HttpResponse<String> list = server.get("/api/reports", "X-Api-Key", "quick");
            assertEquals(200, list.statusCode());
            assertEquals("\"per-client\";q=100;w=60", list.headers().firstValue("RateLimit-Policy").orElseThrow());

            // The export allows 10 per hour per client; both policies are reported, in one line
            for (int i = 0; i < 10; i++) {
                HttpResponse<String> export = server.send(post(server, "/api/reports/export"));
                assertEquals(200, export.statusCode());
                assertEquals(List.of("\"per-client\";q=100;w=60, \"exports\";q=10;w=3600"),
                        export.headers().allValues("RateLimit-Policy"));
            }
            HttpResponse<String> refused = server.send(post(server, "/api/reports/export"));
            assertEquals(429, refused.statusCode());
            assertTrue(refused.body().contains("\"violated-policies\":[\"exports\"]"), refused.body());
        }
    }

    private static HttpRequest post(JerseyServer server, String path) {
        return server.request(path).header("X-Api-Key", "quick").POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    @Test
    void readmeSnippets_areTheCodeOfThisTest() throws IOException {
        assertEquals(normalised(marked(TESTS.resolve("QuickStartTest.java"), "register")),
                normalised(block("new SluiceFeature")));
        assertEquals(normalised(marked(TESTS.resolve("readme").resolve("Reports.java"), "resource")),
                normalised(block("@RateLimited")));
    }

    /** The java block of the JAX-RS quick start that contains {@code marker}. */
    private static String block(String marker) throws IOException {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        int from = readme.indexOf("\n## Quick start: JAX-RS");
        assertTrue(from >= 0, "README.md has no '## Quick start: JAX-RS' section");
        int to = readme.indexOf("\n## ", from + 1);
        String section = readme.substring(from, to < 0 ? readme.length() : to);
        List<String> found = new ArrayList<>();
        String fence = "```java\n";
        for (int at = section.indexOf(fence); at >= 0; at = section.indexOf(fence, at)) {
            int end = section.indexOf("```", at + fence.length());
            String body = section.substring(at + fence.length(), end);
            if (body.contains(marker)) {
                found.add(body);
            }
            at = end + 3;
        }
        assertEquals(1, found.size(), "java blocks containing '" + marker + "' in the JAX-RS quick start");
        return found.get(0);
    }

    /** The lines between "// README: name (begin)" and "// README: name (end)". */
    private static String marked(Path file, String name) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        String begin = "// README: " + name + " (begin)\n";
        int from = text.indexOf(begin);
        int to = text.indexOf("// README: " + name + " (end)");
        assertTrue(from >= 0 && to > from, "markers of '" + name + "' in " + file);
        return text.substring(from + begin.length(), to);
    }

    /**
     * Lines without indentation or blank lines: indentation differs between a README and a class.
     * Import lines are left out: ReadmeImportsTest (module-tests) checks them.
     */
    private static List<String> normalised(String text) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank() && !line.strip().startsWith("import ")) {
                lines.add(line.strip());
            }
        }
        return lines;
    }
}
