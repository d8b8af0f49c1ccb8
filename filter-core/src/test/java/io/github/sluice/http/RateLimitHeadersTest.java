package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import io.github.sluice.testing.StructuredFields.Item;
import io.github.sluice.testing.StructuredFields;
import io.github.sluice.request.HeaderSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {

    private final EnforcerFixture f = new EnforcerFixture();
    private final FakeRequest request = FakeRequest.get("/api/x");

    private static List<Item> items(String field) {
        return StructuredFields.parseList(field).stream().map(Item.class::cast).toList();
    }

    @Test
    void draft_singlePolicy_isExactStructuredFields() {
        // Given a token bucket of 100 per minute
        Enforcer e = f.enforcer("per-ip = token-bucket 100/1m key=ip");

        // When one request passes
        RecordingResponse r = EnforcerFixture.headers(e.enforce(request));

        // Then both fields are exact, and parse as Structured Fields with the right types
        assertEquals("\"per-ip\";q=100;w=60", r.headers.get("RateLimit-Policy"));
        assertEquals("\"per-ip\";r=99;t=1", r.headers.get("RateLimit"));
        Item policy = items(r.headers.get("RateLimit-Policy")).get(0);
        assertEquals("per-ip", policy.value());
        assertEquals(Map.of("q", 100L, "w", 60L), policy.params());
        Item limit = items(r.headers.get("RateLimit")).get(0);
        assertEquals(Map.of("r", 99L, "t", 1L), limit.params());
        assertFalse(r.headers.containsKey("Retry-After"));
    }

    @Test
    void draft_severalPolicies_listsAllAndPutsTheClosestToExhaustionFirst() {
        // Given a burst limit and a daily quota, and 3 requests
        Enforcer e = f.enforcer("burst = token-bucket 10/1s key=ip", "daily = fixed-window 5/1d key=ip");
        e.enforce(request);
        e.enforce(request);

        RecordingResponse r = EnforcerFixture.headers(e.enforce(request));

        // Then the policy field keeps configuration order, the limit field leads with the daily quota
        List<Item> policies = items(r.headers.get("RateLimit-Policy"));
        assertEquals(List.of("burst", "daily"), policies.stream().map(Item::value).toList());
        List<Item> limits = items(r.headers.get("RateLimit"));
        assertEquals(List.of("daily", "burst"), limits.stream().map(Item::value).toList());
        assertEquals(2L, limits.get(0).param("r"));
        assertEquals(7L, limits.get(1).param("r"));
        assertEquals("\"burst\";q=10;w=1, \"daily\";q=5;w=86400", r.headers.get("RateLimit-Policy"));
    }

    @Test
    void draft_secondsAreRoundedUp() {
        // Given a bucket of 3 per 10 s, i.e. one token per 3.333... s
        Enforcer e = f.enforcer("slow = token-bucket 3/10s key=ip");

        e.enforce(request);
        f.clock.advance(Duration.ofMillis(100));
        RecordingResponse r = EnforcerFixture.headers(e.enforce(request));

        // Then t is the time to refill two tokens (6.667 s - 0.1 s) rounded up
        assertEquals("\"slow\";r=1;t=7", r.headers.get("RateLimit"));
        assertEquals("\"slow\";q=3;w=10", r.headers.get("RateLimit-Policy"));
    }

    @Test
    void denial_retryAfterIsRoundedUpAndNeverEarlierThanT() {
        // Given an exhausted bucket of 2 per minute
        Enforcer e = f.enforcer("per-ip = token-bucket 2/1m key=ip");
        e.enforce(request);
        e.enforce(request);
        f.clock.advance(Duration.ofMillis(1500));

        // When a third request arrives
        Verdict v = e.enforce(request);
        RecordingResponse r = EnforcerFixture.headers(v);

        // Then Retry-After is the 28.5 s left rounded up, equal to t of the binding policy
        assertTrue(v.denied());
        assertEquals("29", r.headers.get("Retry-After"));
        assertEquals(29L, v.retryAfterSeconds());
        Item limit = items(r.headers.get("RateLimit")).get(0);
        assertEquals(0L, limit.param("r"));
        assertTrue(Long.parseLong(r.headers.get("Retry-After")) >= (Long) limit.param("t"));
    }

    @Test
    void denial_retryAfterIsAtLeastOneSecond() {
        Enforcer e = f.enforcer("fast = token-bucket 1000/1s key=ip burst=1");
        e.enforce(request);

        Verdict v = e.enforce(request);

        assertEquals("1", EnforcerFixture.headers(v).headers.get("Retry-After"));
    }

    @Test
    void draft06_writesTheTripleOfTheBindingPolicy() {
        Enforcer e = f.builder("burst = token-bucket 10/1s key=ip", "daily = fixed-window 5/1d key=ip")
                .headers(new HeaderOptions(HeaderStyle.DRAFT_06, false, false, null)).build();

        RecordingResponse r = EnforcerFixture.headers(e.enforce(request));

        assertEquals(Map.of("RateLimit-Limit", "5", "RateLimit-Remaining", "4", "RateLimit-Reset",
                String.valueOf(r.headers.get("RateLimit-Reset"))), r.headers);
        assertTrue(Long.parseLong(r.headers.get("RateLimit-Reset")) > 0);
    }

    @Test
    void xRateLimit_writesThePrefixedTriple() {
        Enforcer e = f.builder("per-ip = token-bucket 10/10s key=ip")
                .headers(new HeaderOptions(HeaderStyle.X_RATELIMIT, false, false, null)).build();

        RecordingResponse r = EnforcerFixture.headers(e.enforce(request));

        assertEquals(Map.of("X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "9", "X-RateLimit-Reset", "1"),
                r.headers);
    }

    @Test
    void none_writesOnlyRetryAfterOnDenial() {
        Enforcer e = f.builder("per-ip = token-bucket 1/10s key=ip")
                .headers(new HeaderOptions(HeaderStyle.NONE, false, false, null)).build();

        assertEquals(Map.of(), EnforcerFixture.headers(e.enforce(request)).headers);
        assertEquals(Map.of("Retry-After", "10"), EnforcerFixture.headers(e.enforce(request)).headers);
    }

    @Test
    void onlyOnDenial_allowedResponsesCarryNoFields() {
        Enforcer e = f.builder("per-ip = token-bucket 1/10s key=ip")
                .headers(new HeaderOptions(HeaderStyle.DRAFT, true, false, null)).build();

        assertEquals(Map.of(), EnforcerFixture.headers(e.enforce(request)).headers);
        RecordingResponse denied = EnforcerFixture.headers(e.enforce(request));
        assertEquals(List.of("Retry-After", "RateLimit-Policy", "RateLimit"), List.copyOf(denied.headers.keySet()));
    }

    @Test
    void silentOptions_allowedResponse_touchesNoFieldNorLooksOneUp() {
        // Given options under which an allowed response carries no field: style NONE, or only on
        // denial, even with the expose option on (there is nothing to expose)
        for (HeaderOptions options : List.of(new HeaderOptions(HeaderStyle.NONE, false, false, null),
                new HeaderOptions(HeaderStyle.NONE, false, true, null),
                new HeaderOptions(HeaderStyle.DRAFT, true, true, null),
                new HeaderOptions(HeaderStyle.X_RATELIMIT, true, false, null))) {
            Enforcer e = f.builder("inflight = concurrency 1 key=global").headers(options).build();
            List<String> calls = new ArrayList<>();
            HeaderSink sink = new HeaderSink() {
                @Override
                public void header(String name, String value) {
                    calls.add("header " + name);
                }

                @Override
                public String existing(String name) {
                    calls.add("existing " + name);
                    return "\"outer\";q=1";
                }
            };

            // When an allowed verdict writes its fields on a response that has another layer's
            Verdict allowed = e.enforce(request);
            allowed.writeHeaders(sink);

            // Then the response is neither written nor read; a denial still gets its fields
            assertTrue(allowed.admitted(), options::toString);
            assertEquals(List.of(), calls, options::toString);
            Verdict denied = e.enforce(request);
            denied.writeHeaders(sink);
            assertTrue(denied.denied(), options::toString);
            assertFalse(calls.isEmpty(), options::toString);
            allowed.release();
        }
    }

    @Test
    void exposeHeaders_namesEveryFieldWritten() {
        Enforcer e = f.builder("per-ip = token-bucket 1/10s key=ip")
                .headers(new HeaderOptions(HeaderStyle.DRAFT, false, true, null)).build();

        assertEquals("RateLimit-Policy, RateLimit",
                EnforcerFixture.headers(e.enforce(request)).headers.get("Access-Control-Expose-Headers"));
        assertEquals("Retry-After, RateLimit-Policy, RateLimit",
                EnforcerFixture.headers(e.enforce(request)).headers.get("Access-Control-Expose-Headers"));
    }

    @Test
    void noPolicyApplies_writesNothing() {
        Enforcer e = f.enforcer("api = token-bucket 1/10s key=ip match=/api/*");

        Verdict v = e.enforce(FakeRequest.get("/static/app.js"));

        assertEquals(Map.of(), EnforcerFixture.headers(v).headers);
        assertTrue(v.admitted());
        assertTrue(v.released());
        assertEquals(0, v.size());
        assertEquals(-1, v.binding());
    }
}
