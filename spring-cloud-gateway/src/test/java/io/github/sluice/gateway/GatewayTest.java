package io.github.sluice.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.MergedFields;
import io.github.sluice.testing.RawHttp;
import io.github.sluice.testing.StructuredFields;
import io.github.sluice.testing.ReleaseLedger;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * Spring Cloud Gateway 4.3 (Boot 3.5) with real routes to a real backend this test serves itself
 * (Reactor Netty): the {@code Sluice} filter from route properties and from the Java DSL, with the
 * rate-limit fields on proxied responses and problem bodies on denials; the gateway's
 * {@code RequestRateLimiter} with {@link SluiceRateLimiter}; and exactly-once release under 2,000
 * mixed proxied requests with backend errors, an unreachable backend and clients that go away.
 */
@SpringBootTest(classes = {GatewayTestApplication.class, GatewayTest.Ledger.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
            "sluice.listener=none",
            "sluice.policies.per-client=fixed-window 2/1m key=header:X-Client match=none",
            "sluice.policies.gateway-api=fixed-window 2/1m key=attribute:gateway-key match=none",
            "sluice.policies.inflight=concurrency 16 key=global status=503 match=none",
            "sluice.policies.per-request=concurrency 1 key=header:X-Request-Id match=none",
            "sluice.policies.edge=fixed-window 2/1m key=header:X-Edge match=GET:/get/*",
            "sluice.policies.per-ip=fixed-window 1/1m key=ip match=GET:/get/ip",
            "sluice.policies.layered-rrl=fixed-window 100/1m key=attribute:gateway-key match=none",
            "sluice.policies.layered-route=fixed-window 2/1m key=header:X-Client match=none",
            "sluice.trusted-proxies=127.0.0.1/32",
            "sluice.forwarded-header=forwarded",
            "spring.cloud.gateway.server.webflux.routes[0].id=sluice",
            "spring.cloud.gateway.server.webflux.routes[0].uri=${backend}",
            "spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/get/**",
            "spring.cloud.gateway.server.webflux.routes[0].filters[0]=Sluice=per-client",
            "spring.cloud.gateway.server.webflux.routes[1].id=limiter",
            "spring.cloud.gateway.server.webflux.routes[1].uri=${backend}",
            "spring.cloud.gateway.server.webflux.routes[1].predicates[0]=Path=/limited/**",
            "spring.cloud.gateway.server.webflux.routes[1].filters[0].name=RequestRateLimiter",
            "spring.cloud.gateway.server.webflux.routes[1].filters[0].args.rate-limiter=#{@sluiceRateLimiter}",
            "spring.cloud.gateway.server.webflux.routes[1].filters[0].args.key-resolver=#{@clientKeyResolver}",
            "spring.cloud.gateway.server.webflux.routes[1].filters[0].args.sluice-rate-limiter.policy=gateway-api",
            "spring.cloud.gateway.server.webflux.routes[2].id=held",
            "spring.cloud.gateway.server.webflux.routes[2].uri=${backend}",
            "spring.cloud.gateway.server.webflux.routes[2].predicates[0]=Path=/slow/**",
            "spring.cloud.gateway.server.webflux.routes[2].filters[0].name=Sluice",
            "spring.cloud.gateway.server.webflux.routes[2].filters[0].args.policy=inflight,per-request",
            "spring.cloud.gateway.server.webflux.routes[3].id=down",
            "spring.cloud.gateway.server.webflux.routes[3].uri=http://127.0.0.1:1",
            "spring.cloud.gateway.server.webflux.routes[3].predicates[0]=Path=/down/**",
            "spring.cloud.gateway.server.webflux.routes[3].filters[0].name=Sluice",
            "spring.cloud.gateway.server.webflux.routes[3].filters[0].args.policy=inflight,per-request",
            "spring.cloud.gateway.server.webflux.routes[4].id=layered",
            "spring.cloud.gateway.server.webflux.routes[4].uri=${backend}",
            "spring.cloud.gateway.server.webflux.routes[4].predicates[0]=Path=/layered/**",
            "spring.cloud.gateway.server.webflux.routes[4].filters[0].name=RequestRateLimiter",
            "spring.cloud.gateway.server.webflux.routes[4].filters[0].args.rate-limiter=#{@sluiceRateLimiter}",
            "spring.cloud.gateway.server.webflux.routes[4].filters[0].args.key-resolver=#{@clientKeyResolver}",
            "spring.cloud.gateway.server.webflux.routes[4].filters[0].args.sluice-rate-limiter.policy=layered-rrl",
            "spring.cloud.gateway.server.webflux.routes[4].filters[1]=Sluice=layered-route",
        })
class GatewayTest {

    private static final AtomicInteger BACKEND_HITS = new AtomicInteger();

    /** The backend: echoes the path it was asked for; {@code /slow/*} waits, {@code /slow/fail} answers 500. */
    private static final DisposableServer BACKEND = HttpServer.create().host("127.0.0.1").port(0)
            .route(r -> r.get("/get/**", (req, res) -> {
                BACKEND_HITS.incrementAndGet();
                return res.header("X-Backend", "yes").sendString(Mono.just("backend " + req.uri()));
            }).get("/limited/**", (req, res) -> res.sendString(Mono.just("limited " + req.uri())))
                    .get("/dsl/**", (req, res) -> res.sendString(Mono.just("dsl " + req.uri())))
                    .get("/layered/**", (req, res) -> res.sendString(Mono.just("layered " + req.uri())))
                    .get("/slow/fail", (req, res) -> res.status(500).sendString(Mono.just("failed")))
                    .get("/slow/**", (req, res) -> res.sendString(
                            Mono.delay(Duration.ofMillis(40)).thenReturn("slow " + req.uri()))))
            .bindNow();

    @DynamicPropertySource
    static void backend(DynamicPropertyRegistry registry) {
        registry.add("backend", () -> "http://127.0.0.1:" + BACKEND.port());
    }

    @AfterAll
    static void stopBackend() {
        BACKEND.disposeNow();
    }

    /** The policies' store, behind a ledger of every admission and release. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Ledger {
        @Bean
        ReleaseLedger sluiceLedgerStore() {
            return ReleaseLedger.over(ShardedRegistry.builder().build());
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    ReleaseLedger ledger;

    @Autowired
    Enforcer enforcer;

    private URI base() {
        return URI.create("http://127.0.0.1:" + port);
    }

    @Test
    void sluiceFilter_fromRouteProperties_limitsTheRoute_withFieldsOnProxiedResponses_andAProblemBody() {
        int hits = BACKEND_HITS.get();
        for (int i = 0; i < 2; i++) {
            RawHttp.Response r = RawHttp.send(base(), "GET", "/get/x?y=1", "X-Client", "route");
            assertEquals(200, r.status());
            assertEquals("backend /get/x?y=1", r.body()); // the path and query, unchanged
            assertEquals("yes", r.header("X-Backend"));
            assertTrue(r.header("RateLimit").startsWith("\"per-client\";r=" + (1 - i)), r.head());
            assertEquals("\"per-client\";q=2;w=60", r.header("RateLimit-Policy"), r.head());
        }
        RawHttp.Response denied = RawHttp.send(base(), "GET", "/get/x", "X-Client", "route");
        assertEquals(429, denied.status());
        assertEquals("application/problem+json", denied.header("Content-Type"));
        assertTrue(denied.body().contains("per-client"), denied.body());
        assertTrue(denied.has("Retry-After"), denied.head());
        assertEquals(hits + 2, BACKEND_HITS.get(), "the denied request never reached the backend");
        assertEquals(200, RawHttp.get(base(), "/get/x", "X-Client", "another"));
    }

    @Test
    void webFilter_inTheGateway_limitsByMatch_everySpellingOfThePath_andHead_sharingTheQuota() {
        // The starter's web filter runs before routing: GET /get/* by match, however it is spelled
        // (what the backend answers to a spelling does not matter here: the web filter counted it before routing)
        assertNotEquals(429, RawHttp.get(base(), "/g%65t/a", "X-Edge", "spell", "X-Client", "s1"));
        assertNotEquals(429, RawHttp.send(base(), "HEAD", "/get/a", "X-Edge", "spell", "X-Client", "s2").status());
        RawHttp.Response denied = RawHttp.send(base(), "GET", "/get;v=1/a", "X-Edge", "spell", "X-Client", "s3");
        assertEquals(429, denied.status());
        assertTrue(denied.body().contains("edge"), denied.body());
        RawHttp.Response head = RawHttp.send(base(), "HEAD", "/get//a", "X-Edge", "spell", "X-Client", "s4");
        assertEquals(429, head.status());
        assertEquals("", head.body());
    }

    @Test
    void trustedProxy_forwardedFor_isTheClient_andASpoofedHopCannotMoveIt() {
        assertEquals(200, RawHttp.get(base(), "/get/ip", "Forwarded", "for=203.0.113.5", "X-Client", "p1"));
        assertEquals(429, RawHttp.get(base(), "/get/ip", "Forwarded", "for=\"203.0.113.5:1234\"", "X-Client", "p2"));
        // A client that sends its own Forwarded first: the proxy's appended hop still counts
        assertEquals(429, RawHttp.get(base(), "/get/ip", "Forwarded", "for=198.51.100.1, for=203.0.113.5",
                "X-Client", "p3"));
        assertEquals(200, RawHttp.get(base(), "/get/ip", "Forwarded", "for=203.0.113.6", "X-Client", "p4"));
    }

    @Test
    void sluiceFilter_fromTheJavaDsl_limitsItsRoute() {
        assertEquals(200, RawHttp.get(base(), "/dsl/a", "X-Client", "dsl"));
        RawHttp.Response second = RawHttp.send(base(), "GET", "/dsl/a", "X-Client", "dsl");
        assertEquals("dsl /dsl/a", second.body());
        assertTrue(second.header("RateLimit").startsWith("\"per-client\";r=0"), second.head());
        assertEquals(429, RawHttp.get(base(), "/dsl/a", "X-Client", "dsl"));
    }

    @Test
    void requestRateLimiter_withTheSluiceRateLimiter_decidesByThePolicy_forTheKeyResolversKey() {
        for (int i = 0; i < 2; i++) {
            RawHttp.Response r = RawHttp.send(base(), "GET", "/limited/a", "X-Client", "rrl");
            assertEquals(200, r.status());
            assertTrue(r.header("RateLimit").startsWith("\"gateway-api\";r=" + (1 - i)), r.head());
        }
        RawHttp.Response denied = RawHttp.send(base(), "GET", "/limited/a", "X-Client", "rrl");
        assertEquals(429, denied.status());
        assertTrue(denied.has("Retry-After") && denied.has("RateLimit"), denied.head());
        assertNull(denied.header("X-RateLimit-Remaining"), "Sluice's fields, not RedisRateLimiter's");
        assertEquals(200, RawHttp.get(base(), "/limited/a", "X-Client", "rrl-other"));
        // No key: the gateway's deny-empty-key answers (403 by default); the limiter is not asked
        assertEquals(403, RawHttp.get(base(), "/limited/a"));
    }

    /**
     * The starter's web filter (by match) and the route's Sluice filter on one request: one line of
     * each field with both policies, admitted, and refused by the route filter.
     */
    @Test
    void webFilterAndRouteFilter_oneLineOfEachField_withBoth() {
        for (int i = 1; i <= 2; i++) {
            RawHttp.Response ok = RawHttp.send(base(), "GET", "/get/two", "X-Edge", "two-" + i, "X-Client", "two");
            assertEquals(200, ok.status(), ok.head());
            MergedFields.assertMerged(ok::headers, List.of("edge", "per-client"), false);
        }
        RawHttp.Response refused = RawHttp.send(base(), "GET", "/get/two", "X-Edge", "two-3", "X-Client", "two");
        assertEquals(429, refused.status(), refused.head());
        List<StructuredFields.Item> limit = MergedFields.assertMerged(refused::headers, List.of("edge", "per-client"), true);
        assertEquals("per-client", limit.get(0).value(), refused.head());
    }

    /**
     * {@code RequestRateLimiter} with the Sluice rate limiter, then the route's Sluice filter: the
     * filter merges its fields into those the gateway added for the limiter. (In the other order the
     * gateway adds the limiter's fields as a second line: it does not read the response's; see
     * docs/gateway.md.)
     */
    @Test
    void requestRateLimiterThenRouteFilter_oneLineOfEachField_withBoth() {
        for (int i = 1; i <= 2; i++) {
            RawHttp.Response ok = RawHttp.send(base(), "GET", "/layered/a", "X-Client", "layered");
            assertEquals(200, ok.status(), ok.head());
            MergedFields.assertMerged(ok::headers, List.of("layered-rrl", "layered-route"), false);
        }
        RawHttp.Response refused = RawHttp.send(base(), "GET", "/layered/a", "X-Client", "layered");
        assertEquals(429, refused.status(), refused.head());
        List<StructuredFields.Item> limit = MergedFields.assertMerged(refused::headers,
                List.of("layered-rrl", "layered-route"), true);
        assertEquals("layered-route", limit.get(0).value(), refused.head());
    }

    @Test
    void sluiceRateLimiter_refusesPoliciesItCannotApply_namingTheRouteAndPolicy() {
        SluiceRateLimiter limiter = new SluiceRateLimiter(enforcer, null);
        limiter.getConfig().put("r-held", new SluiceRateLimiter.Config().setPolicy("inflight"));
        IllegalArgumentException held = assertThrows(IllegalArgumentException.class, () -> limiter.isAllowed("r-held", "k"));
        assertTrue(held.getMessage().contains("route 'r-held': policy 'inflight' holds permits"), held.getMessage());

        limiter.getConfig().put("r-key", new SluiceRateLimiter.Config().setPolicy("per-client"));
        IllegalArgumentException key = assertThrows(IllegalArgumentException.class, () -> limiter.isAllowed("r-key", "k"));
        assertTrue(key.getMessage().contains("write key=attribute:gateway-key"), key.getMessage());

        limiter.getConfig().put("r-typo", new SluiceRateLimiter.Config().setPolicy("gateway-apj"));
        IllegalArgumentException typo = assertThrows(IllegalArgumentException.class, () -> limiter.isAllowed("r-typo", "k"));
        assertTrue(typo.getMessage().contains("route 'r-typo'") && typo.getMessage().contains("gateway-apj"),
                typo.getMessage());
    }

    @Test
    void twoThousandMixedProxiedRequests_withBackendErrorsAndAborts_releaseEveryPermitExactlyOnce() throws Exception {
        List<String> kinds = List.of("/slow/ok", "/slow/ok", "/slow/fail", "/down/x", "abort");
        Random random = new Random(27);
        Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
        ExecutorService clients = Executors.newFixedThreadPool(24);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                String kind = kinds.get(random.nextInt(kinds.size()));
                String id = "g" + i;
                int wait = random.nextInt(60);
                done.add(clients.submit(() -> {
                    String outcome;
                    try {
                        if (kind.equals("abort")) {
                            try (Socket s = RawHttp.open(base(), "GET", "/slow/wait", "X-Request-Id", id)) {
                                Thread.sleep(wait);
                                s.setSoLinger(true, 0);
                            }
                            outcome = "aborted";
                        } else {
                            outcome = Integer.toString(RawHttp.get(base(), kind, "X-Request-Id", id));
                        }
                    } catch (RuntimeException | java.io.IOException | InterruptedException e) {
                        outcome = e.toString();
                    }
                    outcomes.computeIfAbsent(kind + " " + outcome, k -> new AtomicInteger()).incrementAndGet();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        ledger.awaitBalanced(Duration.ofSeconds(10));
        assertTrue(outcomes.keySet().stream().allMatch(k -> k.matches("\\S+ (\\d{3}|aborted)")), outcomes.toString());
        for (String expected : List.of("/slow/ok 200", "/slow/fail 500", "abort aborted")) {
            assertTrue(outcomes.containsKey(expected), expected + " in " + outcomes);
        }
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.startsWith("/down/x 5")), outcomes.toString());
        // How many pass the concurrency limit depends on the machine's speed: enough to have exercised every ending.
        assertTrue(ledger.admitted() > 200, "admissions: " + ledger.admitted());
    }
}
