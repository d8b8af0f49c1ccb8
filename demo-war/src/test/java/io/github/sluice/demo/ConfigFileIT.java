package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo with its policies in a file ({@code SLUICE_CONFIG}, here the context init-param of the
 * same name, which an embedding server can set per deployment): the servlet filter reads the file,
 * and an edit shows in {@code RateLimit-Policy} within 5 seconds, without a restart.
 */
class ConfigFileIT {

    @TempDir
    Path dir;

    @Test
    void sluiceConfig_editedWhileRunning_isAppliedWithinFiveSeconds() throws Exception {
        Path war = Path.of(System.getProperty("sluice.demo.war", "target/sluice-demo.war"));
        assertTrue(Files.isRegularFile(war), "the WAR must be built before the integration tests: " + war);
        Path file = dir.resolve("sluice.properties");
        Files.writeString(file, "policy.per-ip = fixed-window 5/10s align=first-request key=ip\n");
        try (EmbeddedJetty jetty = EmbeddedJetty.start(war, Map.of(DemoFilter.PROPERTY, file.toString()))) {
            Http http = new Http(jetty.uri());
            HttpResponse<String> first = http.get("servlet/hello");
            assertEquals(200, first.statusCode());
            assertEquals("\"per-ip\";q=5;w=10", Http.header(first, "RateLimit-Policy"));

            Files.writeString(file, "policy.per-ip = fixed-window 50/1m align=first-request key=ip\n");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            String seen = Http.header(http.get("servlet/hello"), "RateLimit-Policy");
            while (!"\"per-ip\";q=50;w=60".equals(seen) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                seen = Http.header(http.get("servlet/hello"), "RateLimit-Policy");
            }
            assertEquals("\"per-ip\";q=50;w=60", seen);
        }
    }
}
