package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Outcome;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShapingTest {

    private final EnforcerFixture f = new EnforcerFixture();

    @Test
    void shapedPolicy_delaysTheRequestAndTellsTheListener() {
        // Given requests paced 100 ms apart, with no slack
        RecordingListener events = new RecordingListener();
        Enforcer e = f.builder("pace = shaping 10/1s slack=0 key=global", "quota = token-bucket 100/1m key=global")
                .listener(events).build();
        e.enforce(FakeRequest.get("/"));

        // When a second request arrives at the same instant
        Verdict v = e.enforce(FakeRequest.get("/"));

        // Then it is admitted after the pacing interval
        assertEquals(Outcome.SHAPED, v.outcome());
        assertTrue(v.shaped() && v.admitted());
        assertEquals(100_000_000L, v.delayNanos());
        assertEquals("shaped pace global 100000000", events.events.get(2));
        assertEquals("allowed quota global", events.events.get(3));
    }

    @Test
    void shapedBeyondMaxDelay_isDenied() {
        Enforcer e = f.enforcer("pace = shaping 10/1s slack=0 max-delay=150ms key=global");
        e.enforce(FakeRequest.get("/"));
        e.enforce(FakeRequest.get("/"));

        Verdict v = e.enforce(FakeRequest.get("/"));

        assertTrue(v.denied());
        assertEquals(List.of("pace"), v.violatedPolicies());
    }

    @Test
    void dryRunShaping_neverDelays() {
        Enforcer e = f.enforcer("pace = shaping 10/1s slack=0 key=global dry-run");
        e.enforce(FakeRequest.get("/"));

        Verdict v = e.enforce(FakeRequest.get("/"));

        assertEquals(Outcome.ALLOWED, v.outcome());
        assertEquals(0, v.delayNanos());
        assertEquals(Outcome.SHAPED, v.decision(0).outcome(), "the dry-run decision is still reported");
    }

    @Test
    void severalShapedPolicies_waitForTheLongestDelay() {
        Enforcer e = f.enforcer("fast = shaping 10/1s slack=0 key=global", "slow = shaping 4/1s slack=0 key=global");
        e.enforce(FakeRequest.get("/"));

        Verdict v = e.enforce(FakeRequest.get("/"));

        assertEquals(250_000_000L, v.delayNanos());
    }
}
