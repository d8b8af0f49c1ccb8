package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Match;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.ReleaseLedger;
import jakarta.ws.rs.container.AsyncResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A concurrency permit is given back exactly once however a request ends. Every request to
 * {@code /paths/*} holds a permit of the global stage ({@code global-inflight}, by path) and of
 * the resource stage ({@code per-method}, by {@code @RateLimited}); the counts are read from the
 * store, not from logs, and counted at the store by a {@link ReleaseLedger}: after each test every
 * admission was given back exactly once, so an extra release fails as surely as a missing one.
 */
class PermitReleaseTest {

    private static JerseyServer server;
    private static Enforcer enforcer;
    private static SluiceFeature feature;
    private static ReleaseLedger ledger;

    @BeforeAll
    static void start() {
        Policy global = Policy.builder("global-inflight").algorithm(Concurrency.builder().maxInFlight(10_000).build())
                .key(KeyResolvers.global()).match(Match.paths("/paths/*")).build();
        Policy method = Policy.builder("per-method").algorithm(Concurrency.builder().maxInFlight(10_000).build())
                .key(KeyResolvers.global()).match(Match.NONE).build();
        Policy metered = Policy.builder("metered")
                .algorithm(FixedWindow.builder().limit(50).window(Duration.ofHours(1)).build())
                .key(KeyResolvers.global()).match(Match.NONE).build();
        enforcer = Enforcer.builder().policies(List.of(global, method, metered))
                .store(ledger = ReleaseLedger.over(ShardedRegistry.builder().clock(new FakeClock()).build()))
                .listener(EnforcementListener.NONE).build();
        ReleasePaths.enforcer = enforcer;
        ResourceConfig app = new ResourceConfig(ReleasePaths.Resource.class, ReleasePaths.Metered.class,
                ReleasePaths.Mapper.class, ReleasePaths.LaterFilter.class).register(feature = new SluiceFeature(enforcer));
        server = JerseyServer.start(app);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** Every test ends with each permit it took given back exactly once, counted at the store. */
    @AfterEach
    void balanced() {
        ledger.awaitBalanced(Duration.ofSeconds(10));
    }

    @BeforeEach
    void forget() {
        ReleasePaths.seenGlobal = 0;
        ReleasePaths.seenMethod = 0;
    }

    /**
     * A request; one whose exception nobody maps goes on a connection of its own. On that path
     * Jersey 3.1.12 lets Jetty write its error page, then writes the default mapper's response
     * as well, and when the request was suspended that late write can land on the connection's
     * next exchange (a stray 500 or a hung response, seen without Sluice too). The permits are
     * not affected (they are kept per request, not per connection), but other requests would be.
     */
    private static HttpRequest request(String method, String path, String header) {
        HttpRequest.Builder b = server.request(path).method(method, HttpRequest.BodyPublishers.noBody());
        if (header != null) {
            b.header(header, "yes");
        }
        if ("X-Break".equals(header) || path.endsWith("/unmapped") || path.endsWith("/error")
                || path.endsWith("/resume-failure")) {
            b.header("Connection", "close");
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0} {1} {2} -> {3}")
    @CsvSource({
        "GET,  /paths/ok,             ,           200, a normal response with a body: the writer interceptor",
        "GET,  /paths/empty,          ,           204, a normal response without a body: the response filter",
        "HEAD, /paths/ok,             ,           200, HEAD: the response filter",
        "GET,  /paths/mapped,         ,           418, an exception the application maps",
        "GET,  /paths/unmapped,       ,           500, an exception nobody maps (JAX-RS 3.1 default mapper)",
        "GET,  /paths/error,          ,           500, an Error thrown by the resource",
        "GET,  /paths/ok,             X-Forbid,   403, a later filter refuses the request",
        "GET,  /paths/ok,             X-Break,    500, a later filter throws an unmapped exception",
        "GET,  /paths/resume,         ,           200, AsyncResponse resumed on another thread",
        "GET,  /paths/resume-failure, ,           500, AsyncResponse resumed with an exception",
        "GET,  /paths/cancel,         ,           503, AsyncResponse cancelled",
        "GET,  /paths/timeout,        ,           503, AsyncResponse timed out",
    })
    void requestEnds_permitsOfBothStagesReleased(String method, String path, String header, int status, String why) {
        // When a request ends this way
        HttpResponse<String> r = server.send(request(method, path, header));

        // Then it had the status expected, held both permits while the application ran, and gave them back
        assertEquals(status, r.statusCode(), why);
        assertEquals(1, ReleasePaths.seenGlobal, "global permit held while running: " + why);
        assertEquals(1, ReleasePaths.seenMethod, "resource permit held while running: " + why);
        Permits.awaitHeld(enforcer, "global-inflight", "global", 0);
        Permits.awaitHeld(enforcer, "per-method", "global", 0);
    }

    @Test
    void streamingBody_holdsThePermitUntilWritten() throws Exception {
        // Given a body that waits for a gate before it writes
        ReleasePaths.streamGate = new CountDownLatch(1);
        CompletableFuture<HttpResponse<String>> pending = server.client()
                .sendAsync(server.request("/paths/held-stream").build(), HttpResponse.BodyHandlers.ofString());

        // Then the permits are held while the body is pending (the response filter has run by then)
        Permits.awaitHeld(enforcer, "global-inflight", "global", 1);
        Permits.awaitHeld(enforcer, "per-method", "global", 1);

        // When the body is written
        ReleasePaths.streamGate.countDown();

        // Then they are released
        assertEquals("streamed", pending.get(10, TimeUnit.SECONDS).body());
        Permits.awaitHeld(enforcer, "global-inflight", "global", 0);
        Permits.awaitHeld(enforcer, "per-method", "global", 0);
    }

    @Test
    void clientDisconnectsMidBody_writeFails_permitsReleased() throws Exception {
        // Given a client that reads the start of an endless body, then hangs up
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /paths/flood HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            assertTrue(in.read(new byte[1024]) > 0);
            Permits.awaitHeld(enforcer, "global-inflight", "global", 1);
        }

        // Then the server's next write fails and the permits come back
        Permits.awaitHeld(enforcer, "global-inflight", "global", 0);
        Permits.awaitHeld(enforcer, "per-method", "global", 0);
    }

    @Test
    void clientDisconnectsWhileSuspended_permitHeldUntilTheApplicationResumes() throws Exception {
        // Given a suspended request whose client hangs up
        ReleasePaths.PARKED.clear();
        AsyncResponse parked;
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.getOutputStream().write("GET /paths/park HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            parked = ReleasePaths.PARKED.poll(10, TimeUnit.SECONDS);
            assertTrue(parked != null, "the request reached the application");
        } // the client hangs up

        // Then the request is still in flight for the application, which holds it: permits stay taken
        Permits.awaitHeld(enforcer, "global-inflight", "global", 1);

        // When the application resumes it (as its timeout would)
        parked.resume("too late");

        // Then the permits come back
        Permits.awaitHeld(enforcer, "global-inflight", "global", 0);
        Permits.awaitHeld(enforcer, "per-method", "global", 0);
    }

    @Test
    void denialByTheResourceStage_releasesTheGlobalStagesPermit() {
        // Given the 50 metered calls used up
        for (int i = 0; i < 50; i++) {
            server.get("/paths/metered");
        }

        // When the next is refused by the resource stage
        HttpResponse<String> r = server.get("/paths/metered");

        // Then the global stage's permit, taken before, is released, and the refused stage holds none
        assertEquals(429, r.statusCode());
        assertTrue(r.body().contains("\"violated-policies\":[\"metered\"]"), r.body());
        Permits.awaitHeld(enforcer, "global-inflight", "global", 0);
        Permits.awaitHeld(enforcer, "per-method", "global", 0);
    }

    /** One kind of request in the mix: how to send it and the statuses it may end with. */
    private record Kind(String name, java.util.function.Supplier<CompletableFuture<Integer>> send, List<Integer> statuses) {
    }

    /**
     * "Status" of a response that is the servlet container's own failure page for a response the
     * application completed on another thread (only for the kinds that list it): Jersey's servlet writer answers 500 "Request
     * failed." when Jetty's {@code AsyncContext.complete()}, called from the application's thread
     * right after the resource method suspended the request, throws {@code IllegalStateException}
     * ({@code ServletChannelState.complete}, "s=HANDLING rs=BLOCKING", thrown inside Jersey's
     * {@code ResponseWriter.commit} after every filter has run); a race between Jersey and the
     * container, open upstream as eclipse-ee4j/jersey#3691, seen once in 50,000 mixed requests
     * here. Sluice's response filter has run by then, and the permits must come back all the
     * same, which the test still checks. The page does not tell the race from a failure of
     * Sluice's own filter on those paths, so more than a handful of them (a failure that is
     * systematic, not a rare race: each kind is sent about 130 times) still fails the test.
     */
    private static final int CONTAINER_RACE = -500;

    private static Kind http(String method, String path, String header, Integer... statuses) {
        boolean racing = List.of(statuses).contains(CONTAINER_RACE);
        return new Kind(method + " " + path + (header == null ? "" : " " + header), () -> {
            return server.client().sendAsync(request(method, path, header), HttpResponse.BodyHandlers.ofString())
                    .thenApply(r -> racing && r.statusCode() == 500 && r.body().contains("Request failed.")
                            ? CONTAINER_RACE : r.statusCode());
        }, List.of(statuses));
    }

    /** Reads the start of an endless body, then hangs up; "status" 0. */
    private static Kind hangUp() {
        return new Kind("GET /paths/flood, hang up", () -> CompletableFuture.supplyAsync(() -> {
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.getOutputStream().write("GET /paths/flood HTTP/1.1\r\nHost: test\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                socket.getInputStream().read(new byte[256]);
                return 0;
            } catch (IOException e) {
                return -1;
            }
        }, ReleasePaths.WORKERS), List.of(0));
    }

    @Test
    void twoThousandMixedRequests_concurrently_leaveZeroPermitsHeld() throws Exception {
        // Given every way a request can end, mixed at random, 32 in flight at a time
        List<Kind> kinds = List.of(
                http("GET", "/paths/ok", null, 200),
                http("GET", "/paths/empty", null, 204),
                http("HEAD", "/paths/ok", null, 200),
                http("GET", "/paths/mapped", null, 418),
                http("GET", "/paths/unmapped", null, 500),
                http("GET", "/paths/error", null, 500),
                http("GET", "/paths/ok", "X-Forbid", 403),
                http("GET", "/paths/ok", "X-Break", 500),
                http("GET", "/paths/resume", null, 200, CONTAINER_RACE),
                http("GET", "/paths/resume-failure", null, 500),
                http("GET", "/paths/cancel", null, 503, CONTAINER_RACE),
                http("GET", "/paths/timeout", null, 503, CONTAINER_RACE),
                http("GET", "/paths/metered", null, 200, 429),
                http("GET", "/paths/not-there", null, 404),
                hangUp());
        Random random = new Random(20_000);
        Semaphore window = new Semaphore(32);
        Map<String, AtomicInteger> unexpected = new ConcurrentHashMap<>();
        AtomicInteger denied = new AtomicInteger();
        AtomicInteger raced = new AtomicInteger();
        List<CompletableFuture<Integer>> all = new ArrayList<>();

        // When 2,000 of them are sent
        for (int i = 0; i < 2_000; i++) {
            Kind kind = kinds.get(random.nextInt(kinds.size()));
            window.acquire();
            all.add(kind.send().get().handle((status, failure) -> {
                window.release();
                if (failure != null || !kind.statuses().contains(status)) {
                    unexpected.computeIfAbsent(kind.name() + " -> " + (failure != null ? failure : status),
                            k -> new AtomicInteger()).incrementAndGet();
                } else if (status == 429) {
                    denied.incrementAndGet();
                } else if (status == CONTAINER_RACE) {
                    raced.incrementAndGet();
                }
                return status;
            }));
        }
        CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(2, TimeUnit.MINUTES);

        // Then every request ended as its kind does, some were refused, and no permit is held
        assertEquals(Map.of(), Map.copyOf(unexpected));
        assertTrue(denied.get() > 0, "the mix includes denials");
        assertTrue(raced.get() <= 5, raced + " responses lost to the container's race: more than a rare race");
        Permits.awaitHeld(enforcer, "global-inflight", "global", 0);
        Permits.awaitHeld(enforcer, "per-method", "global", 0);
        assertEquals(0, feature.inFlight(), "every decided request went through its response phase");
    }
}
