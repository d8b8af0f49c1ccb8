package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The feature watches its {@code sluice.config} file on Jersey: an edit shows in
 * {@code RateLimit-Policy} within 5 seconds without a redeployment, a broken edit keeps the
 * policies in force, and a later fixed version is applied (including a policy matched by path
 * added to a file that had none).
 */
class ConfigWatchTest {

    private static final Duration WITHIN = Duration.ofSeconds(5);

    @TempDir
    java.nio.file.Path dir;

    @Path("/api")
    public static class Api {
        @GET
        @RateLimited("named")
        public String get() {
            return "api";
        }
    }

    /** Configured by the Jersey servlet's init-params, as a web.xml would. */
    public static class App extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Api.class, SluiceFeature.class);
        }
    }

    private static String policyHeader(JerseyServer server) throws Exception {
        var r = server.get("/api");
        return r.headers().firstValue("RateLimit-Policy").orElse("(none: " + r.statusCode() + ")");
    }

    private static String await(JerseyServer server, String expected) throws Exception {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        String seen = policyHeader(server);
        while (!seen.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            seen = policyHeader(server);
        }
        return seen;
    }

    @Test
    void configFile_edited_isAppliedWithoutRedeployment_andABrokenEditKeepsThePolicies() throws Exception {
        java.nio.file.Path file = dir.resolve("sluice.properties");
        Files.writeString(file, "config-watch-interval = 200ms\npolicy.named = fixed-window 500/10s key=global match=none\n");
        try (JerseyServer server = JerseyServer.start(App.class,
                Map.of("sluice.config", file.toString(), "sluice.listener", "none"))) {
            assertEquals("\"named\";q=500;w=10", policyHeader(server));

            // The named policy's limit changes
            Files.writeString(file, "config-watch-interval = 200ms\n"
                    + "policy.named = fixed-window 700/10s key=global match=none\n");
            assertEquals("\"named\";q=700;w=10", await(server, "\"named\";q=700;w=10"));

            // A broken edit keeps it, for several intervals
            Files.writeString(file, "config-watch-interval = 200ms\npolicy.named = fixed-window 700/10s key=nope\n");
            long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            while (System.nanoTime() < until) {
                assertEquals("\"named\";q=700;w=10", policyHeader(server));
                Thread.sleep(100);
            }

            // A fixed version adds a policy matched by path, though no policy had a match before:
            // once one request has taken its only permit, it refuses before the named policy runs
            Files.writeString(file, "config-watch-interval = 200ms\n"
                    + "policy.named = fixed-window 900/10s key=global match=none\n"
                    + "policy.by-path = fixed-window 1/1h key=global match=/api/*\n");
            assertEquals("\"by-path\";q=1;w=3600", await(server, "\"by-path\";q=1;w=3600"));
            assertEquals(429, server.get("/api").statusCode());
        }
    }
}
