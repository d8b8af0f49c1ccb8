package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * How a request ended reaches the adaptive policy that admitted it, through the verdict's release:
 * a status the policy lists as a drop, or a timeout, cuts an AIMD limit even when the request was
 * fast; any other status is a success; a failure (an exception, a client gone) teaches nothing.
 * Before phase 2 every release counted as not dropped, so an application answering fast 503s
 * raised its own limit. The {@code RateLimit-Policy} {@code q} of an adaptive policy is the
 * current limit, not the configured maximum.
 */
class AdaptiveEndingTest {

    /** Fast responses (10 ms, well under the 100 ms objective): only the drop signal can cut. */
    private static final String AIMD = "api = adaptive aimd min=1 max=100 initial=10 latency=100ms samples=5 key=global";

    private final EnforcerFixture f = new EnforcerFixture();

    private static List<Verdict> admit(Enforcer e, int n) {
        List<Verdict> running = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Verdict v = e.enforce(FakeRequest.get("/"));
            assertTrue(v.admitted(), () -> "request " + running.size() + ": " + v);
            running.add(v);
        }
        return running;
    }

    /** Admits a batch of five, ends each after 10 ms as {@code ending} says; returns the next limit. */
    private long limitAfterBatch(Enforcer e, Consumer<Verdict> ending) {
        List<Verdict> running = admit(e, 5);
        assertEquals(10, running.get(0).decision(0).limit());
        f.clock.advance(Duration.ofMillis(10));
        running.forEach(ending);
        Verdict next = e.enforce(FakeRequest.get("/"));
        long limit = next.decision(0).limit();
        next.release(200);
        return limit;
    }

    @Test
    void fast503_isADropByDefault_andCutsTheLimit() {
        assertEquals(9, limitAfterBatch(f.enforcer(AIMD), v -> v.release(503)));
    }

    @Test
    void fast504_isADropByDefault_andCutsTheLimit() {
        assertEquals(9, limitAfterBatch(f.enforcer(AIMD), v -> v.release(504)));
    }

    @Test
    void fast200_isASuccess_andRaisesTheLimit() {
        assertEquals(11, limitAfterBatch(f.enforcer(AIMD), v -> v.release(200)));
    }

    @Test
    void fast500_isNotADropByDefault() {
        assertEquals(11, limitAfterBatch(f.enforcer(AIMD), v -> v.release(500)));
    }

    @Test
    void dropNone_503IsASuccess() {
        assertEquals(11, limitAfterBatch(f.enforcer(AIMD + " drop=none"), v -> v.release(503)));
    }

    @Test
    void drop5xx_500IsADrop() {
        assertEquals(9, limitAfterBatch(f.enforcer(AIMD + " drop=5xx"), v -> v.release(500)));
    }

    @Test
    void dropList_onlyTheListedStatusesAreDrops() {
        assertEquals(9, limitAfterBatch(f.enforcer(AIMD + " drop=429"), v -> v.release(429)));
        assertEquals(11, limitAfterBatch(new EnforcerFixture().enforcer(AIMD + " drop=429"), v -> v.release(503)));
    }

    @Test
    void timeout_isADropWhateverTheDropStatuses() {
        assertEquals(9, limitAfterBatch(f.enforcer(AIMD + " drop=none"), Verdict::releaseTimedOut));
    }

    @Test
    void failure_teachesNothing_butEveryPermitComesBack() {
        Enforcer e = f.enforcer(AIMD);
        assertEquals(10, limitAfterBatch(e, Verdict::releaseFailed), "no sample: neither cut nor raised");
        List<Verdict> all = admit(e, 10);
        assertTrue(e.enforce(FakeRequest.get("/")).denied(), "the limit is still 10, and all 10 permits came back");
        all.forEach(Verdict::releaseFailed);
    }

    @Test
    void onlyTheFirstEndingCounts() {
        Enforcer e = f.enforcer(AIMD);
        assertEquals(11, limitAfterBatch(e, v -> {
            v.release(200);
            v.releaseTimedOut();
            v.release(503);
        }));
    }

    @Test
    void rateLimitPolicyQ_isTheCurrentLimit_andFollowsIt() {
        Enforcer e = f.enforcer(AIMD);
        Verdict first = e.enforce(FakeRequest.get("/"));
        assertEquals("\"api\";q=10;qu=\"concurrent-requests\"", EnforcerFixture.headers(first).headers.get("RateLimit-Policy"));
        assertEquals("\"api\";r=9", EnforcerFixture.headers(first).headers.get("RateLimit"));
        first.release(200);
        assertEquals(9, limitAfterBatch(e, v -> v.release(503)));
        Verdict after = e.enforce(FakeRequest.get("/"));
        assertEquals("\"api\";q=9;qu=\"concurrent-requests\"", EnforcerFixture.headers(after).headers.get("RateLimit-Policy"));
        assertEquals("\"api\";r=8", EnforcerFixture.headers(after).headers.get("RateLimit"));
        after.release(200);
    }

    @Test
    void rateLimitPolicyQ_ofAnAdaptivePolicyAmongOthers_isTheCurrentLimit() {
        Enforcer e = f.enforcer(AIMD, "per-ip = token-bucket 100/1s key=ip");
        assertEquals(9, limitAfterBatch(e, v -> v.release(503)));
        Verdict v = e.enforce(FakeRequest.get("/"));
        assertEquals("\"api\";q=9;qu=\"concurrent-requests\", \"per-ip\";q=100;w=1",
                EnforcerFixture.headers(v).headers.get("RateLimit-Policy"));
        v.release(200);
    }

    @Test
    void rateLimitPolicy_ofFixedPolicies_isFormattedOnce() {
        Enforcer e = f.enforcer("slots = concurrency 5 key=global", "per-ip = token-bucket 100/1s key=ip");
        Verdict a = e.enforce(FakeRequest.get("/"));
        Verdict b = e.enforce(FakeRequest.get("/"));
        assertSame(EnforcerFixture.headers(a).headers.get("RateLimit-Policy"),
                EnforcerFixture.headers(b).headers.get("RateLimit-Policy"), "cached per subset of policies");
        a.release(200);
        b.release(200);
    }

    @Test
    void rateLimitPolicy_ofAnAdaptivePolicy_isReusedWhileTheLimitRepeats() {
        Enforcer e = f.enforcer(AIMD);
        Verdict a = e.enforce(FakeRequest.get("/"));
        Verdict b = e.enforce(FakeRequest.get("/"));
        String fa = EnforcerFixture.headers(a).headers.get("RateLimit-Policy");
        assertSame(fa, EnforcerFixture.headers(b).headers.get("RateLimit-Policy"));
        a.release(200);
        b.release(200);
        f.clock.advance(Duration.ofMillis(10));
        admit(e, 5).forEach(v -> v.release(503));
        Verdict c = e.enforce(FakeRequest.get("/"));
        String fc = EnforcerFixture.headers(c).headers.get("RateLimit-Policy");
        assertNotSame(fa, fc);
        assertFalse(fc.equals(fa));
        c.release(200);
    }
}
