package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The demo on Redis: two deployments of the WAR (two embedded Jettys, as two instances would be)
 * share their limits through one real {@code redis-server}. The URL reaches them as the context
 * init-param {@code sluice.redis.url}, the per-deployment form of {@code SLUICE_REDIS_URL} (whose
 * reading {@link RunnerIT} checks through the runner). Without {@code redis-server} installed the
 * tests are skipped, except when {@code CI=true} (as in {@code .ci/run}, which installs it), where
 * that is a failure.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisIT {

    private LocalRedis redis;
    private EmbeddedJetty a;
    private EmbeddedJetty b;
    private Http first;
    private Http second;
    private int client;

    @BeforeAll
    void start() throws Exception {
        String executable = LocalRedis.find();
        if (executable == null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("redis-server is not installed, and CI=true: install it (.ci/run does)");
            }
            Assumptions.abort("redis-server is not installed; the demo's Redis tests need it");
        }
        redis = LocalRedis.start(executable);
        Map<String, String> params = Map.of("sluice.redis.url", redis.url());
        // Deployed side by side: each takes seconds, mostly Jersey's start-up.
        CompletableFuture<EmbeddedJetty> other = CompletableFuture.supplyAsync(() -> deploy(params));
        a = deploy(params);
        b = other.get(2, TimeUnit.MINUTES);
        first = new Http(a.uri());
        second = new Http(b.uri());
        for (Http http : List.of(first, second)) {
            for (String path : List.of("health", "servlet/hello", "api/hello")) {
                http.get(path, "X-Forwarded-For", "192.0.2.254");
            }
        }
    }

    private static EmbeddedJetty deploy(Map<String, String> params) {
        try {
            return EmbeddedJetty.start(Path.of(System.getProperty("sluice.demo.war", "target/sluice-demo.war")), params);
        } catch (Exception e) {
            throw new IllegalStateException("the demo failed to deploy: " + e, e);
        }
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (b != null) {
                b.close();
            }
        } finally {
            try {
                if (a != null) {
                    a.close();
                }
            } finally {
                if (redis != null) {
                    redis.close();
                }
            }
        }
    }

    @Test
    @Order(1)
    void twoDemosOnOneRedis_shareEveryClientsQuota() throws Exception {
        // Given two demos on one Redis, when one client's six requests alternate between them
        Burst burst = sharedBurst();

        // Then they count down one quota, and the sixth is refused
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = burst.get(i);
            int remaining = 4 - i;
            assertAll("request " + (i + 1),
                    () -> assertEquals(200, r.statusCode()),
                    () -> assertEquals("\"per-ip\";r=" + remaining + ";t=10", Http.header(r, "RateLimit")));
        }
        HttpResponse<String> denied = burst.get(5);
        assertAll("request 6",
                () -> assertEquals(429, denied.statusCode()),
                () -> assertEquals("10", Http.header(denied, "Retry-After")),
                () -> assertEquals("\"per-ip\";r=0;t=10", Http.header(denied, "RateLimit")),
                () -> assertEquals(DemoContract.problem429("per-ip"), denied.body()));
    }

    @Test
    @Order(2)
    void twoDemosOnOneRedis_shareTheGlobalInflightLimit() throws Exception {
        List<String> degraded = new ArrayList<>();
        for (int attempt = 0; attempt < 3; attempt++) {
            // Given the global limit of 2 in flight, when 2 slow requests reach each demo together
            List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                inFlight.add((i % 2 == 0 ? first : second).getAsync("api/slow?ms=2000"));
            }
            List<HttpResponse<String>> done = new ArrayList<>();
            for (CompletableFuture<HttpResponse<String>> f : inFlight) {
                done.add(f.get(Http.TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            }
            List<Integer> statuses = done.stream().map(HttpResponse::statusCode).sorted().toList();
            // (A call to Redis that timed out on a busy machine is decided locally and says so:
            // such a round proves nothing about the shared limit, so it is repeated.)
            if (done.stream().anyMatch(r -> Http.header(r, "Sluice-Degraded") != null)) {
                degraded.add(statuses.toString());
                continue;
            }

            // Then the two demos admitted two between them
            assertEquals(List.of(200, 200, 503, 503), statuses);
            return;
        }
        throw new AssertionError("every round had a decision made without Redis: " + degraded);
    }

    @Test
    @Order(3)
    void redisGone_theDemoKeepsLimitingLocally_andSaysSo() throws Exception {
        // Given Redis stopped under the running demos
        redis.close();

        // When a client calls
        HttpResponse<String> r = first.get("servlet/hello", "X-Forwarded-For", "198.51.100.250");

        // Then it is served, limited by the local fallback (the full limit), and the response says so
        assertEquals(200, r.statusCode());
        assertEquals("\"per-ip\"", Http.header(r, "Sluice-Degraded"));
        assertEquals("\"per-ip\";r=4;t=10", Http.header(r, "RateLimit"));
        assertNull(Http.header(r, "Retry-After"));
    }

    /**
     * A fast burst of six, alternating between the demos, none of it decided without Redis (a
     * busy machine may time out a call, and the demo then decides locally and says so in
     * {@code Sluice-Degraded}); repeated with a fresh client until one is.
     */
    private Burst sharedBurst() throws Exception {
        List<String> rejected = new ArrayList<>();
        for (int attempt = 0; attempt < 5; attempt++) {
            String address = "198.51.100." + (++client);
            List<HttpResponse<String>> responses = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < Burst.SIZE; i++) {
                responses.add((i % 2 == 0 ? first : second).get("servlet/hello", "X-Forwarded-For", address));
            }
            Burst burst = new Burst(responses, System.nanoTime() - start);
            boolean degraded = responses.stream().anyMatch(r -> Http.header(r, "Sluice-Degraded") != null);
            if (burst.fast() && !degraded) {
                return burst;
            }
            rejected.add(TimeUnit.NANOSECONDS.toMillis(burst.elapsedNanos()) + " ms" + (degraded ? " degraded" : ""));
        }
        throw new AssertionError("no burst was fast and decided by Redis: " + rejected);
    }
}
