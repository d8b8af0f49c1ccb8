package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicyMetrics;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.MergedFields;
import io.github.sluice.testing.ReleaseLedger;
import io.github.sluice.testing.StructuredFields;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * What the starter promises on every embedded container of every Boot generation it supports (compiled by
 * the Boot 3.5 tests and by boot4-tests), over real HTTP: the filter's limits,
 * headers and denial body from {@code application.yml}, {@code @RateLimited} on methods and
 * classes, a {@code key=bean:} resolver, and permits released exactly once on every way a handler
 * ends. Each test uses keys of its own, since the context (and its counts) is shared.
 *
 * <p>Releases are counted at the store: the policies live behind a {@link ReleaseLedger}
 * ({@link Ledger}, which every container's test class adds to the context), and the
 * {@code per-request} policy is keyed by an {@code X-Request-Id} each test request carries, so
 * each request must show exactly one admission and one release. An extra release fails as surely
 * as a missing one.
 */
abstract class StarterContract {

    /** The tag of the 2,000-request mixed-load test. */
    static final String MIXED_LOAD = "mixed-load";

    /** Every async ending of a Spring MVC handler: {@code TestApplication.Endings}. */
    static final List<String> ENDINGS = List.of("/inflight/m/sync", "/inflight/m/throw", "/inflight/m/deferred",
            "/inflight/m/deferred-error", "/inflight/m/deferred-timeout", "/inflight/m/slow", "/inflight/m/callable",
            "/inflight/m/callable-error", "/inflight/m/task", "/inflight/m/task-timeout", "/inflight/m/future",
            "/inflight/m/future-error", "/inflight/m/streaming", "/inflight/m/streaming-error", "/inflight/m/emitter",
            "/inflight/m/emitter-error", "/inflight/m/sse", "/inflight/m/sse-timeout", "/inflight/m/start-async",
            "/front-async/sync", "/front-async/throw", "/front-dispatch/sync", "/front-dispatch/deferred");

    private static final Duration SETTLE = Duration.ofSeconds(20);

    /** The policies' store, behind a ledger of every admission and release. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Ledger {
        @Bean
        ReleaseLedger sluiceLedgerStore() {
            return ReleaseLedger.over(ShardedRegistry.builder().build());
        }
    }

    @Autowired
    ReleaseLedger ledger;

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    int port;

    @Autowired
    Enforcer enforcer;

    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void filterPolicy_fromApplicationYml_refusesTheFourthRequestWithHeadersAndProblem() throws Exception {
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> ok = get("/hello");
            assertEquals(200, ok.statusCode(), "request " + i);
            assertEquals("hello", ok.body());
            assertTrue(ok.headers().firstValue("RateLimit-Policy").orElse("").contains("per-ip"), ok.headers().toString());
        }
        HttpResponse<String> denied = get("/hello");
        assertEquals(429, denied.statusCode());
        assertTrue(denied.headers().firstValue("Retry-After").isPresent(), denied.headers().toString());
        assertTrue(denied.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                denied.headers().toString());
        assertTrue(denied.body().contains("per-ip"), denied.body());
    }

    @Test
    void rateLimited_onAMethod_limitsEachApiKeySeparately() throws Exception {
        assertEquals(200, get("/annotated", "X-Api-Key", "contract-a").statusCode());
        assertEquals(200, get("/annotated", "X-Api-Key", "contract-a").statusCode());
        HttpResponse<String> denied = get("/annotated", "X-Api-Key", "contract-a");
        assertEquals(429, denied.statusCode());
        assertTrue(denied.body().contains("per-key"), denied.body());
        assertTrue(denied.headers().firstValue("Retry-After").isPresent(), denied.headers().toString());
        assertEquals(200, get("/annotated", "X-Api-Key", "contract-b").statusCode(), "another key has its own quota");
    }

    /**
     * The filter's policy (by path) and {@code @RateLimited}'s on one request: one
     * {@code RateLimit-Policy} and one {@code RateLimit} line, both policies in each, admitted or
     * refused by the annotation (docs/configuration.md, "Two layers on one request").
     */
    @Test
    void filterAndRateLimited_oneLineOfEachField_withBothPolicies() throws Exception {
        String key = "layered-" + UUID.randomUUID();
        for (int i = 1; i <= 2; i++) {
            HttpResponse<String> ok = get("/layered", "X-Api-Key", key);
            assertEquals(200, ok.statusCode(), "request " + i);
            MergedFields.assertMerged(name -> ok.headers().allValues(name), List.of("layered-filter", "layered-mvc"), false);
        }
        HttpResponse<String> denied = get("/layered", "X-Api-Key", key);
        assertEquals(429, denied.statusCode());
        List<StructuredFields.Item> limit = MergedFields.assertMerged(name -> denied.headers().allValues(name),
                List.of("layered-filter", "layered-mvc"), true);
        assertEquals("layered-mvc", limit.get(0).value(), "the refusing policy leads");
    }

    @Test
    void rateLimited_onTheClass_limitsItsMethods() throws Exception {
        assertEquals(200, get("/class-level").statusCode());
        assertEquals(429, get("/class-level").statusCode());
    }

    @Test
    void beanKeyResolver_namedInThePolicy_limitsEachTenantSeparately() throws Exception {
        assertEquals(200, get("/tenant", "X-Tenant", "acme").statusCode());
        assertEquals(200, get("/tenant", "X-Tenant", "acme").statusCode());
        assertEquals(429, get("/tenant", "X-Tenant", "acme").statusCode());
        assertEquals(200, get("/tenant", "X-Tenant", "globex").statusCode());
    }

    /**
     * The permit leak: a handler that ends any other way than returning synchronously must still
     * give its concurrency permit back, once. Many requests released together through every
     * ending; afterwards nothing is in flight and every admitted request was released.
     */
    @Test
    void everyWayAHandlerEnds_releasesItsPermitExactlyOnce() throws Exception {
        List<String> paths = List.of("/inflight/sync", "/inflight/throw", "/inflight/deferred",
                "/inflight/deferred-error", "/inflight/timeout", "/inflight/callable", "/inflight/future");
        PolicyMetrics inflight = enforcer.metrics().policy("inflight");
        long allowedBefore = inflight.allowed();
        long releasedBefore = inflight.released();
        int rounds = 10;
        int threads = 14;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                String path = paths.get(t % paths.size());
                done.add(pool.submit(() -> {
                    start.await();
                    for (int r = 0; r < rounds; r++) {
                        int status = get(path).statusCode();
                        statuses.computeIfAbsent(path + " " + status, k -> new AtomicInteger()).incrementAndGet();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        int total = rounds * threads;
        // The container completes an async request (and calls its listeners) after the client has
        // the response, so the last releases may trail the last responses a little.
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (inflight.inFlight() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, inflight.inFlight(), "permits leaked; statuses: " + new TreeMap<>(statuses));
        assertEquals(total, inflight.allowed() - allowedBefore, new TreeMap<>(statuses).toString());
        assertEquals(total, inflight.released() - releasedBefore, "each admitted request released exactly once");
        ledger.awaitBalanced(SETTLE);
        assertNotNull(statuses.get("/inflight/sync 200"));
        assertNotNull(statuses.get("/inflight/deferred 200"));
        assertNotNull(statuses.get("/inflight/callable 200"));
        assertNotNull(statuses.get("/inflight/future 200"));
        assertNotNull(statuses.get("/inflight/throw 500"), new TreeMap<>(statuses).toString());
        assertNotNull(statuses.get("/inflight/timeout 503"), new TreeMap<>(statuses).toString());
    }

    /**
     * Clients that go away while their async request is held: each permit still goes back once,
     * when the application completes the result for a connection that is gone.
     */
    @Test
    void asyncRequest_clientGoneAway_releasesItsPermit() throws Exception {
        PolicyMetrics inflight = enforcer.metrics().policy("inflight");
        long releasedBefore = inflight.released();
        long inFlightBefore = inflight.inFlight();
        int clients = 12;
        List<java.net.Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                java.net.Socket s = new java.net.Socket("127.0.0.1", port);
                s.getOutputStream().write(("GET /inflight/hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                sockets.add(s);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (io.github.sluice.spring.boot.app.TestApplication.HELD.size() < clients
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(clients, io.github.sluice.spring.boot.app.TestApplication.HELD.size());
            assertEquals(inFlightBefore + clients, inflight.inFlight(), "every held request holds its permit");
        } finally {
            for (java.net.Socket s : sockets) {
                s.setSoLinger(true, 0); // a reset, as a client that crashed
                s.close();
            }
        }
        org.springframework.web.context.request.async.DeferredResult<String> held;
        while ((held = io.github.sluice.spring.boot.app.TestApplication.HELD.poll()) != null) {
            held.setResult("too late");
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (inflight.inFlight() != inFlightBefore && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(inFlightBefore, inflight.inFlight(), "permits of clients that went away leaked");
        assertEquals(clients, inflight.released() - releasedBefore);
        ledger.awaitBalanced(SETTLE);
    }

    /**
     * Each way a handler ends, alone: the request is decided once (one admission of its own key) and
     * gives its permits back once, counted at the store; a handler that starts async itself, and a
     * filter in front that starts it or moves the request to an ASYNC dispatch, included.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/inflight/m/sync", "/inflight/m/throw", "/inflight/m/deferred",
        "/inflight/m/deferred-error", "/inflight/m/deferred-timeout", "/inflight/m/callable",
        "/inflight/m/callable-error", "/inflight/m/task", "/inflight/m/task-timeout", "/inflight/m/future",
        "/inflight/m/future-error", "/inflight/m/streaming", "/inflight/m/streaming-error", "/inflight/m/emitter",
        "/inflight/m/emitter-error", "/inflight/m/sse", "/inflight/m/sse-timeout", "/inflight/m/start-async",
        "/front-async/sync", "/front-async/throw", "/front-dispatch/sync", "/front-dispatch/deferred"})
    void eachEnding_takesItsPermitOnce_andGivesItBackOnce(String path) throws Exception {
        String id = "one-" + UUID.randomUUID();
        HttpResponse<String> r = get(path, "X-Request-Id", id);
        assertTrue(r.headers().firstValue("RateLimit-Policy").orElse("").contains("per-request")
                || r.statusCode() >= 500, "decided with its headers: " + r.statusCode() + " " + r.headers().map());
        ledger.awaitHeld("per-request", id, 0, SETTLE);
        assertEquals(1, ledger.admitted("per-request", id), "decided once: " + r.statusCode() + " " + r.body());
        assertEquals(1, ledger.released("per-request", id), "released once");
        assertEquals(0, enforcer.metrics().policy("per-request").unmatchedReleases());
    }

    /** A permit is held while the handler's async work runs, not given back when the handler returns. */
    @Test
    void asyncHandler_holdsItsPermit_untilTheResponseCompletes() throws Exception {
        String id = "held-" + UUID.randomUUID();
        Future<HttpResponse<String>> pending = CLIENT.sendAsync(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/inflight/hold")).header("X-Request-Id", id).build(),
                HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (io.github.sluice.spring.boot.app.TestApplication.HELD.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        org.springframework.web.context.request.async.DeferredResult<String> held
                = io.github.sluice.spring.boot.app.TestApplication.HELD.poll();
        assertNotNull(held, "the request reached the handler");
        assertEquals(1, ledger.held("per-request", id), "held while the result is pending");
        held.setResult("done");
        assertEquals(200, pending.get(SETTLE.toSeconds(), TimeUnit.SECONDS).statusCode());
        ledger.awaitHeld("per-request", id, 0, SETTLE);
        assertEquals(1, ledger.released("per-request", id));
    }

    /**
     * 2,000 requests over every ending at once, from 24 clients, some of which go away mid-request:
     * each request that was admitted gave its permits back exactly once (its own key, and the
     * global {@code inflight} count), and no release matched nothing. Tagged {@value #MIXED_LOAD}:
     * the older Boot lines (boot33-tests, boot34-tests) leave it out to keep CI short; every
     * ending it mixes is still tested one by one there.
     */
    @Test
    @Tag(MIXED_LOAD)
    void mixedLoad_2000Requests_everyEnding_releaseEachPermitExactlyOnce() throws Exception {
        PolicyMetrics inflight = enforcer.metrics().policy("inflight");
        List<String> kinds = new ArrayList<>(ENDINGS);
        kinds.add("abort");
        kinds.add("abort");
        Random random = new Random(25);
        int count = 2000;
        List<String> ids = new ArrayList<>();
        List<String> plan = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            plan.add(kinds.get(random.nextInt(kinds.size())));
            ids.add("mixed-" + i + "-" + UUID.randomUUID());
        }
        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        AtomicLong aborted = new AtomicLong();
        ExecutorService clients = Executors.newFixedThreadPool(24);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String kind = plan.get(i);
                String id = ids.get(i);
                done.add(clients.submit(() -> {
                    String outcome;
                    try {
                        if (kind.equals("abort")) {
                            abort("/inflight/m/slow", id);
                            aborted.incrementAndGet();
                            outcome = "aborted";
                        } else {
                            outcome = Integer.toString(get(kind, "X-Request-Id", id).statusCode());
                        }
                    } catch (IOException | RuntimeException e) {
                        outcome = e.toString();
                    }
                    outcomes.computeIfAbsent(kind + " " + outcome, k -> new AtomicInteger()).incrementAndGet();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        String report = new TreeMap<>(outcomes).toString();
        ledger.awaitBalanced(SETTLE);
        for (int i = 0; i < count; i++) {
            String id = ids.get(i);
            long admitted = ledger.admitted("per-request", id);
            if (plan.get(i).equals("abort")) {
                assertTrue(admitted <= 1, id + " decided " + admitted + " times");
            } else {
                assertEquals(1, admitted, plan.get(i) + " " + id + " decided once; " + report);
            }
            assertEquals(admitted, ledger.released("per-request", id), plan.get(i) + " " + id + " released once");
        }
        assertEquals(0, inflight.unmatchedReleases(), report);
        assertEquals(0, enforcer.metrics().policy("per-request").unmatchedReleases(), report);
        assertTrue(aborted.get() > 0 && outcomes.keySet().stream().noneMatch(k -> k.contains("Exception")), report);
    }

    /** Sends a request and resets the connection before its answer (150 ms later) comes. */
    private void abort(String path, String id) throws IOException, InterruptedException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: " + id
                    + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            Thread.sleep(40);
            s.setSoLinger(true, 0); // a reset, as a client that crashed
        }
    }
}
