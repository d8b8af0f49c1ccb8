package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.github.sluice.request.HeaderSink;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.MergedFields;
import io.github.sluice.testing.StructuredFields.Item;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two enforcers on one response, as a servlet filter and a JAX-RS feature (or Spring MVC's
 * {@code @RateLimited}) are: the second one's fields are merged into the first one's, one line each.
 */
class LayeredFieldsTest {

    private final FakeRequest request = FakeRequest.get("/api/x");

    /** A response as a container keeps it: lines per name; {@code header} replaces them. */
    private static class Response implements HeaderSink {
        final Map<String, List<String>> lines = new LinkedHashMap<>();

        @Override
        public void header(String name, String value) {
            lines.put(name, new ArrayList<>(List.of(value)));
        }

        @Override
        public String existing(String name) {
            List<String> l = lines.get(name);
            return l == null ? null : String.join(", ", l);
        }

        List<String> get(String name) {
            return lines.getOrDefault(name, List.of());
        }

        String one(String name) {
            List<String> l = get(name);
            assertEquals(1, l.size(), name);
            return l.get(0);
        }
    }

    private static Enforcer layer(String... policies) {
        return new EnforcerFixture().enforcer(policies);
    }

    @Test
    void twoLayers_bothAdmit_oneLineEach_withBothLayersPolicies() {
        // Given an outer layer with a concurrency policy and an inner one with a rate
        Enforcer outer = layer("inflight = concurrency 10 key=global");
        Enforcer inner = layer("per-ip = token-bucket 100/1m key=ip");
        Response response = new Response();

        // When both write their fields on one response, the outer first
        outer.enforce(request).writeHeaders(response);
        inner.enforce(request).writeHeaders(response);

        // Then one line each, the outer layer's policy first, nothing lost
        MergedFields.assertMerged(response::get, List.of("inflight", "per-ip"), false);
        assertEquals("\"inflight\";q=10;qu=\"concurrent-requests\", \"per-ip\";q=100;w=60",
                response.one("RateLimit-Policy"));
        // closest to exhaustion first: 99/100 left of the rate, 9/10 of the concurrency
        assertEquals("\"inflight\";r=9, \"per-ip\";r=99;t=1", response.one("RateLimit"));
    }

    @Test
    void twoLayers_innerRefuses_itsMembersFirst_andOneRetryAfter() {
        Enforcer outer = layer("inflight = concurrency 10 key=global");
        Enforcer inner = layer("per-ip = fixed-window 1/1m key=ip");
        inner.enforce(request);
        Response response = new Response();

        outer.enforce(request).writeHeaders(response);
        Verdict refused = inner.enforce(request);
        refused.writeHeaders(response);

        List<Item> limit = MergedFields.assertMerged(response::get, List.of("inflight", "per-ip"), true);
        assertEquals("per-ip", limit.get(0).value(), "the refusing policy leads");
        assertEquals(0L, limit.get(0).param("r"));
    }

    @Test
    void sameNameInBothLayers_keepsTheOneCloserToExhaustion_inBothFields() {
        // Given two layers that each call their policy "per-ip", with different quotas
        Enforcer outer = layer("per-ip = fixed-window 5/1m key=ip");
        Enforcer inner = layer("per-ip = fixed-window 100/1m key=ip", "burst = token-bucket 10/1s key=ip");
        for (int i = 0; i < 3; i++) {
            outer.enforce(request);
        }
        Response response = new Response();

        // When the outer one has 1 of 5 left, the inner 99 of 100
        outer.enforce(request).writeHeaders(response);
        inner.enforce(request).writeHeaders(response);

        // Then "per-ip" appears once in each field, q and r both the outer layer's: it refuses first
        MergedFields.assertMerged(response::get, List.of("per-ip", "burst"), false);
        assertEquals("\"per-ip\";q=5;w=60, \"burst\";q=10;w=1", response.one("RateLimit-Policy"));
        assertEquals("\"per-ip\";r=1;t=60, \"burst\";r=9;t=1", response.one("RateLimit"));
    }

    @Test
    void sameNameInBothLayers_innerRefusing_winsWithItsQuota() {
        Enforcer outer = layer("per-ip = fixed-window 100/1m key=ip");
        Enforcer inner = layer("per-ip = fixed-window 1/1m key=ip");
        inner.enforce(request);
        Response response = new Response();

        outer.enforce(request).writeHeaders(response);
        inner.enforce(request).writeHeaders(response);

        MergedFields.assertMerged(response::get, List.of("per-ip"), true);
        assertEquals("\"per-ip\";q=1;w=60", response.one("RateLimit-Policy"));
        assertEquals("\"per-ip\";r=0;t=60", response.one("RateLimit"));
    }

    @Test
    void sameNameAndSameShare_theLaterLayerWins() {
        Enforcer outer = layer("per-ip = fixed-window 10/1m key=ip");
        Enforcer inner = layer("per-ip = fixed-window 10/1h key=ip");
        Response response = new Response();

        outer.enforce(request).writeHeaders(response);
        inner.enforce(request).writeHeaders(response);

        assertEquals("\"per-ip\";q=10;w=3600", response.one("RateLimit-Policy"));
        assertEquals("\"per-ip\";r=9;t=3600", response.one("RateLimit"));
    }

    @Test
    void retryAfter_isTheLargerOfTheTwo() {
        assertEquals("120", LayeredFields.retryAfter("120", "7"));
        assertEquals("7", LayeredFields.retryAfter("3", "7"));
        assertEquals("7", LayeredFields.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", "7"));
    }

    @Test
    void exposedAndDegradedLists_areUnions_eachTokenOnce() {
        assertEquals("X-App, RateLimit-Policy, RateLimit, Retry-After",
                LayeredFields.tokens("X-App, RateLimit-Policy,RateLimit", "Retry-After, ratelimit-policy, RateLimit"));
    }

    @Test
    void exposeHeaders_ofTwoLayers_oneLine() {
        Enforcer outer = new EnforcerFixture().builder("inflight = concurrency 10 key=global")
                .headers(new HeaderOptions(HeaderStyle.DRAFT, false, true, null)).build();
        Enforcer inner = new EnforcerFixture().builder("per-ip = fixed-window 1/1m key=ip")
                .headers(new HeaderOptions(HeaderStyle.DRAFT, false, true, null)).build();
        inner.enforce(request);
        Response response = new Response();

        outer.enforce(request).writeHeaders(response);
        inner.enforce(request).writeHeaders(response);

        assertEquals("RateLimit-Policy, RateLimit, Retry-After", response.one("Access-Control-Expose-Headers"));
    }

    @Test
    void triple_keepsTheLayerCloserToExhaustion() {
        HeaderOptions xrate = new HeaderOptions(HeaderStyle.X_RATELIMIT, false, false, null);
        Enforcer outer = new EnforcerFixture().builder("a = fixed-window 2/1m key=ip").headers(xrate).build();
        Enforcer inner = new EnforcerFixture().builder("b = fixed-window 100/1m key=ip").headers(xrate).build();
        Response response = new Response();

        outer.enforce(request).writeHeaders(response);
        inner.enforce(request).writeHeaders(response);

        assertEquals("2", response.one("X-RateLimit-Limit"));
        assertEquals("1", response.one("X-RateLimit-Remaining"));
    }

    @Test
    void oneLayer_asksForNothingButRateLimitPolicy() {
        Enforcer only = layer("per-ip = token-bucket 100/1m key=ip");
        List<String> asked = new ArrayList<>();
        Response response = new Response() {
            @Override
            public String existing(String name) {
                asked.add(name);
                return super.existing(name);
            }
        };

        only.enforce(request).writeHeaders(response);

        assertEquals(List.of("RateLimit-Policy"), asked);
        assertNull(response.existing("Retry-After"));
    }
}
