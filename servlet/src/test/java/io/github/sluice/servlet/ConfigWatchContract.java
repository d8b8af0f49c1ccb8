package io.github.sluice.servlet;

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
 * The filter watches its {@code config} file in a real container: an edit shows in
 * {@code RateLimit-Policy} within 5 seconds without a restart, a broken edit keeps the policies in
 * force, a later fixed version is applied, and the watch stops with the filter.
 */
abstract class ConfigWatchContract extends ContainerContract {

    private static final Duration WITHIN = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    ConfigWatchContract(Container container) {
        super(container);
    }

    private static String policyHeader(RunningServer server) {
        HttpResponse<String> r = Http.get(server.uri("/api/ok"));
        return r.headers().firstValue("RateLimit-Policy").orElse("(none: " + r.statusCode() + ")");
    }

    /** Polls until the header is {@code expected}; returns the last value seen. */
    private static String await(RunningServer server, String expected) throws InterruptedException {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        String seen = policyHeader(server);
        while (!seen.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            seen = policyHeader(server);
        }
        return seen;
    }

    private static long watchThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("sluice-config-watch") && t.isAlive()).count();
    }

    @Test
    void configFile_edited_isAppliedWithoutRestart_andABrokenEditKeepsThePolicies() throws Exception {
        // Given a filter configured by a properties file on the file system
        Path file = dir.resolve("sluice.properties");
        Files.writeString(file, "config-watch-interval = 200ms\n"
                + "policy.per-ip = fixed-window 500/10s align=first-request key=ip\n");
        long before = watchThreads();
        // (started here rather than by start(), so that the test stops it itself, once)
        RunningServer server = container().start(Deployment.ofInitParams(Map.of("config", file.toString(),
                "listener", "none"), app));
        boolean stopped = false;
        try {
            watched(server, file);
            server.close();
            stopped = true;
        } finally {
            if (!stopped) {
                server.close();
            }
        }
        long deadline = System.nanoTime() + WITHIN.toNanos();
        while (watchThreads() > before && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(before, watchThreads(), "watch threads after the filter was destroyed");
    }

    private void watched(RunningServer server, Path file) throws Exception {
        assertEquals("\"per-ip\";q=500;w=10", policyHeader(server));

        // When the file is edited, the new limit is announced within 5 seconds
        Files.writeString(file, "config-watch-interval = 200ms\n"
                + "policy.per-ip = fixed-window 700/10s align=first-request key=ip\n");
        assertEquals("\"per-ip\";q=700;w=10", await(server, "\"per-ip\";q=700;w=10"));

        // When an edit has an error, the policies in force stay (for several intervals)
        Files.writeString(file, "config-watch-interval = 200ms\npolicy.per-ip = fixed-window 0/10s key=ip\n");
        long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        while (System.nanoTime() < until) {
            assertEquals("\"per-ip\";q=700;w=10", policyHeader(server));
            Thread.sleep(100);
        }

        // And a later fixed version is applied
        Files.writeString(file, "config-watch-interval = 200ms\n"
                + "policy.per-ip = fixed-window 900/1m key=ip\npolicy.global = gcra 1000/1s key=global\n");
        assertEquals("\"per-ip\";q=900;w=60, \"global\";q=1000;w=1",
                await(server, "\"per-ip\";q=900;w=60, \"global\";q=1000;w=1"));

        assertTrue(watchThreads() > 0, "the watch runs");
    }
}
