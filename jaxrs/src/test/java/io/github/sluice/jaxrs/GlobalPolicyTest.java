package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.net.http.HttpResponse;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Path-matched policies, applied by the {@code @PreMatching} stage, over real HTTP. */
class GlobalPolicyTest {

    private static JerseyServer server;

    @Path("/")
    public static class Api {
        @GET
        @Path("api/items/{id}")
        public String item(@PathParam("id") String id) {
            return "item " + id;
        }

        @GET
        @Path("public")
        public String open() {
            return "open";
        }
    }

    @BeforeAll
    static void start() {
        // Per API key: 3 per minute on /api/*; on a frozen clock nothing refills during the test.
        ShardedRegistry store = ShardedRegistry.builder().clock(new FakeClock()).build();
        Enforcer enforcer = Enforcer.builder()
                .policies("per-key = fixed-window 3/1m key=header:X-Api-Key match=/api/*")
                .listener(EnforcementListener.NONE)
                .store(store)
                .build();
        server = JerseyServer.start(new ResourceConfig(Api.class).register(new SluiceFeature(enforcer)));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Test
    void matchedPath_admitted_carriesRateLimitHeaders() {
        // When a client calls a matched path
        HttpResponse<String> r = server.get("/api/items/1", "X-Api-Key", "headers");

        // Then the response is the resource's, with the policy and the remaining quota
        assertEquals(200, r.statusCode());
        assertEquals("item 1", r.body());
        assertEquals("\"per-key\";q=3;w=60", r.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertTrue(r.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-key\";r=2;t="),
                r.headers().map().toString());
    }

    @Test
    void overLimit_deniedWith429RetryAfterAndProblemBody() {
        // Given a client that used its 3 requests
        for (int i = 0; i < 3; i++) {
            assertEquals(200, server.get("/api/items/" + i, "X-Api-Key", "greedy").statusCode());
        }

        // When it calls again
        HttpResponse<String> r = server.get("/api/items/9", "X-Api-Key", "greedy");

        // Then it is refused with the status, Retry-After, the headers and an RFC 9457 problem
        assertEquals(429, r.statusCode());
        long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retryAfter >= 1 && retryAfter <= 60, "Retry-After " + retryAfter);
        assertTrue(r.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-key\";r=0;t="));
        assertEquals("\"per-key\";q=3;w=60", r.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(r.body().contains("\"status\":429"), r.body());
        assertTrue(r.body().contains("\"violated-policies\":[\"per-key\"]"), r.body());
        // And another client is not affected
        assertEquals(200, server.get("/api/items/9", "X-Api-Key", "modest").statusCode());
    }

    @Test
    void unmatchedPath_isNotLimited_andCarriesNoHeaders() {
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = server.get("/public", "X-Api-Key", "elsewhere");
            assertEquals(200, r.statusCode());
            assertFalse(r.headers().firstValue("RateLimit").isPresent(), r.headers().map().toString());
        }
    }

    @Test
    void noKey_policyDoesNotApply() {
        // A request without the header has no key for this policy: it is neither limited nor reported
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = server.get("/api/items/1");
            assertEquals(200, r.statusCode());
            assertFalse(r.headers().firstValue("RateLimit").isPresent());
        }
    }

    @Test
    void unknownPathUnderPattern_isLimitedBeforeMatching() {
        // The stage runs before resource matching, so a flood of 404s under /api/* is limited too
        for (int i = 0; i < 3; i++) {
            assertEquals(404, server.get("/api/nothing-here", "X-Api-Key", "scanner").statusCode());
        }
        assertEquals(429, server.get("/api/nothing-here", "X-Api-Key", "scanner").statusCode());
    }

    @Test
    void matrixParameters_doNotEscapeThePattern() {
        // The runtime routes /api;x=1/items/1 to the same resource, so the policy must see /api/items/1
        for (int i = 0; i < 3; i++) {
            assertEquals(200, server.get("/api;v=" + i + "/items/1;x=" + i, "X-Api-Key", "sly").statusCode());
        }
        HttpResponse<String> r = server.get("/api;v=4/items/1", "X-Api-Key", "sly");
        assertEquals(429, r.statusCode());
    }
}
