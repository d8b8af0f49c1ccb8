package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An adaptive policy enforced through the {@link Enforcer} learns from the requests it admitted:
 * the verdict's release hands the admission's receipt back to the store, so the latency from
 * admission to release reaches the rule. Without it, the limit would stay at {@code initial}
 * forever, whatever the server did.
 */
class AdaptiveThroughEnforcerTest {

    private static final String AIMD = "api = adaptive aimd min=1 max=100 initial=10 latency=100ms samples=5 key=global";

    private static List<Verdict> admit(Enforcer e, int n) {
        List<Verdict> running = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Verdict v = e.enforce(FakeRequest.get("/"));
            assertTrue(v.admitted(), () -> "request " + running.size() + ": " + v);
            running.add(v);
        }
        return running;
    }

    @Test
    void slowResponses_releasedThroughTheVerdict_lowerTheLimit() {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.enforcer(AIMD);
        List<Verdict> running = admit(e, 5);
        assertEquals(10, running.get(0).decision(0).limit());

        f.clock.advance(Duration.ofMillis(500));
        running.forEach(Verdict::release);

        Verdict next = e.enforce(FakeRequest.get("/"));
        assertEquals(5, next.decision(0).limit(), "10 x 0.5: a batch all slower than 100ms is halved");
        next.release();
    }

    @Test
    void fastResponses_releasedThroughTheVerdict_raiseTheLimit_andEveryPermitComesBack() {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.enforcer(AIMD);
        List<Verdict> running = admit(e, 5);

        f.clock.advance(Duration.ofMillis(10));
        running.forEach(Verdict::release);

        List<Verdict> all = admit(e, 11);
        assertEquals(11, all.get(0).decision(0).limit(), "one more per batch within the latency objective");
        assertTrue(e.enforce(FakeRequest.get("/")).denied(), "the 12th exceeds the new limit");
        all.forEach(Verdict::release);
    }
}
