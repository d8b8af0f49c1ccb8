package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.Store;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.RecordingResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A shared store that is down marks its decisions degraded (as the Redis store's failure policy
 * does): the verdict honours the status it asks for and can announce the degradation.
 */
class DegradedStoreTest {

    private final EnforcerFixture f = new EnforcerFixture();

    /** A store whose key spaces answer from the registry but mark every decision degraded. */
    private Store degrading(int denialStatus) {
        return new Store() {
            @Override
            public KeySpace keySpace(String name, Algorithm<?> algorithm) {
                KeySpace real = f.registry.keySpace(name, algorithm);
                return new KeySpace() {
                    @Override
                    public String name() {
                        return real.name();
                    }

                    @Override
                    public Algorithm<?> algorithm() {
                        return real.algorithm();
                    }

                    @Override
                    public boolean acquire(String key, long cost, MutableDecision out) {
                        boolean ok = real.acquire(key, cost, out);
                        out.degrade(denialStatus);
                        return ok;
                    }

                    @Override
                    public void release(String key, long cost) {
                        real.release(key, cost);
                    }

                    @Override
                    public void refund(String key, long cost, MutableDecision admission) {
                        real.refund(key, cost, admission);
                    }

                    @Override
                    public long size() {
                        return real.size();
                    }
                };
            }
        };
    }

    @Test
    void degradedDenial_usesTheStatusTheStoreAsksFor() {
        Enforcer e = f.builder("p = token-bucket 1/1m key=global").store(degrading(503)).build();
        e.enforce(FakeRequest.get("/"));

        Verdict v = e.enforce(FakeRequest.get("/"));

        assertTrue(v.denied());
        assertTrue(v.degraded(0));
        assertEquals(503, v.status());
    }

    @Test
    void degradedDecisions_areCountedWhateverTheirOutcome() {
        Enforcer e = f.builder("p = token-bucket 1/1m key=global").store(degrading(503)).build();
        Enforcer healthy = f.enforcer("p = token-bucket 1/1m key=global");
        for (int i = 0; i < 3; i++) {
            e.enforce(FakeRequest.get("/")).release();
            healthy.enforce(FakeRequest.get("/")).release();
        }
        PolicyMetrics m = e.metrics().policy("p");
        assertEquals(3, m.degradedDecisions());
        assertEquals(1, m.allowed());
        assertEquals(2, m.denied(503));
        assertEquals(0, healthy.metrics().policy("p").degradedDecisions());
    }

    @Test
    void degradedDenialWithoutStatus_usesThePolicyStatus() {
        Enforcer e = f.builder("p = token-bucket 1/1m key=global status=429").store(degrading(0)).build();
        e.enforce(FakeRequest.get("/"));

        assertEquals(429, e.enforce(FakeRequest.get("/")).status());
    }

    @Test
    void degradedHeader_listsTheDegradedPolicies() {
        Enforcer e = f.builder("p = token-bucket 5/1m key=global", "q = token-bucket 5/1m key=ip")
                .store(degrading(0))
                .headers(new HeaderOptions(HeaderStyle.DRAFT, false, true, "Sluice-Degraded")).build();

        RecordingResponse r = EnforcerFixture.headers(e.enforce(FakeRequest.get("/")));

        assertEquals("\"p\", \"q\"", r.headers.get("Sluice-Degraded"));
        assertEquals("RateLimit-Policy, RateLimit, Sluice-Degraded", r.headers.get("Access-Control-Expose-Headers"));
    }

    @Test
    void degradedHeader_withStyleNone_isStillWrittenOnAnAllowedResponse() {
        // No style field on allowed responses, but a degraded field: the header step must still run
        Enforcer e = f.builder("p = token-bucket 5/1m key=global").store(degrading(0))
                .headers(new HeaderOptions(HeaderStyle.NONE, false, true, "Sluice-Degraded")).build();

        RecordingResponse r = EnforcerFixture.headers(e.enforce(FakeRequest.get("/")));

        assertEquals(Map.of("Sluice-Degraded", "\"p\"", "Access-Control-Expose-Headers", "Sluice-Degraded"),
                r.headers);
    }

    @Test
    void healthyStore_writesNoDegradedHeader() {
        Enforcer e = f.builder("p = token-bucket 5/1m key=global")
                .headers(new HeaderOptions(HeaderStyle.DRAFT, false, false, "Sluice-Degraded")).build();

        Verdict v = e.enforce(FakeRequest.get("/"));

        assertFalse(v.degraded(0));
        assertFalse(EnforcerFixture.headers(v).headers.containsKey("Sluice-Degraded"));
    }
}
