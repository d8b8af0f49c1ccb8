package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The README's run command, as a newcomer types it: {@code java -jar
 * demo-war/target/sluice-demo-runner.jar}, in a process of its own.
 */
class RunnerIT {

    @Test
    void runner_startsOnPortFromEnvironment_printsCurlHints_andStopsCleanlyOnInterrupt() throws Exception {
        // Given the runner started with PORT=0 (a free port)
        try (RunnerProcess runner = RunnerProcess.start(Map.of("PORT", "0"))) {
            // When it has started
            URI base = runner.awaitRunning();
            int port = base.getPort();

            // Then it serves the WAR there, limits, and has told where to point curl
            Http http = new Http(base);
            assertEquals(200, http.get("health").statusCode());
            HttpResponse<String> hello = http.get("servlet/hello");
            assertEquals(200, hello.statusCode());
            assertEquals("\"per-ip\";r=4;t=10", Http.header(hello, "RateLimit"));
            assertTrue(runner.seen().stream().anyMatch(l -> l.contains("curl -i http://localhost:" + port + "/servlet/hello")),
                    () -> "no curl hint in " + runner.seen());
            assertTrue(runner.seen().stream().anyMatch(l -> l.contains("Limits are kept in memory")),
                    () -> "no word on the store in " + runner.seen());
            for (String listed : new String[] {"api/adaptive", "metrics", "admin/sluice/top?policy=per-ip&by=denied"}) {
                assertTrue(runner.seen().stream().anyMatch(l -> l.contains("GET http://localhost:" + port + "/" + listed)),
                        () -> "the banner does not list " + listed + ": " + runner.seen());
            }

            // And when a flood makes three clients exceed per-ip (5 per 10 s): 15, 9 and 6 requests
            String[] clients = {"192.0.2.10", "192.0.2.11", "192.0.2.12"};
            int[] sent = {15, 9, 6};
            for (int c = 0; c < clients.length; c++) {
                for (int i = 0; i < sent[c]; i++) {
                    http.get("servlet/hello", "X-Forwarded-For", clients[c]);
                }
            }
            // Then the admin endpoint lists them by refusals, heaviest first, exactly (few clients)
            HttpResponse<String> top = http.get("admin/sluice/top?policy=per-ip&by=denied");
            assertEquals(200, top.statusCode(), top.body());
            assertEquals("{\"policy\":\"per-ip\",\"by\":\"denied\",\"period\":\"5m\",\"size\":20,\"total\":15,\"bound\":0,"
                    + "\"top\":[{\"key\":\"192.0.2.10\",\"count\":10,\"error\":0},{\"key\":\"192.0.2.11\",\"count\":4,"
                    + "\"error\":0},{\"key\":\"192.0.2.12\",\"count\":1,\"error\":0}]}", top.body());

            // And when it is interrupted as Ctrl-C does, it stops the server and exits
            runner.interrupt();
            runner.await(Pattern.compile("Sluice demo stopped\\."));
            assertTrue(runner.process().waitFor(30, TimeUnit.SECONDS), "the runner must exit after Ctrl-C");
        }
    }

    @Test
    void runner_badPort_failsWithMessageNamingTheVariableAndValue() throws Exception {
        try (RunnerProcess runner = RunnerProcess.start(Map.of("PORT", "eighty"))) {
            assertTrue(runner.process().waitFor(60, TimeUnit.SECONDS));
            assertEquals(2, runner.process().exitValue());
            String err = runner.stderr();
            assertTrue(err.contains("PORT must be a number between 0 and 65535 but was 'eighty'"), err);
        }
    }

    @Test
    void runner_malformedRedisUrl_failsAtStartupNamingTheVariable() throws Exception {
        try (RunnerProcess runner = RunnerProcess.start(Map.of("PORT", "0", "SLUICE_REDIS_URL", "not a url"))) {
            assertTrue(runner.process().waitFor(120, TimeUnit.SECONDS));
            assertEquals(1, runner.process().exitValue());
            String err = runner.stderr();
            assertTrue(err.contains("SLUICE_REDIS_URL must be a Redis URL such as redis://127.0.0.1:6379, or a cluster's seed"
                    + " nodes such as redis-cluster://10.0.0.1:6379,10.0.0.2:6379, but was 'not a url'"),
                    err);
        }
    }

    @Test
    void runner_redisMode_printsNoSlf4jWarning_andMetricsShowTheJaxRsPolicies() throws Exception {
        String executable = LocalRedis.find();
        if (executable == null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("redis-server is not installed, and CI=true: install it (.ci/run does)");
            }
            Assumptions.abort("redis-server is not installed; the demo's Redis tests need it");
        }
        // Given the runner on a real Redis (Lettuce and its dependencies log through SLF4J)
        try (LocalRedis redis = LocalRedis.start(executable);
                RunnerProcess runner = RunnerProcess.start(Map.of("PORT", "0", "SLUICE_REDIS_URL", redis.url()))) {
            Http http = new Http(runner.awaitRunning());

            // When both adapters have served a request and the runner is stopped
            assertEquals(200, http.get("servlet/hello").statusCode());
            assertEquals(200, http.get("api/hello").statusCode());
            HttpResponse<String> metrics = http.get("metrics");
            runner.interrupt();
            runner.await(Pattern.compile("Sluice demo stopped\\."));
            assertTrue(runner.process().waitFor(30, TimeUnit.SECONDS), "the runner must exit after Ctrl-C");

            // Then SLF4J said nothing on stderr (no "No SLF4J providers were found"), and the JAX-RS
            // feature's enforcer is published next to the filter's, so /metrics shows its policies
            String err = runner.stderr();
            assertFalse(err.contains("SLF4J"), err);
            assertTrue(metrics.body().contains("filter=\"jaxrs\""), metrics.body());
            assertTrue(metrics.body().contains("filter=\"sluice\""), metrics.body());
        }
    }
}
