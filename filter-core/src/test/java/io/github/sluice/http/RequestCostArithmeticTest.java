package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeRequest;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A cost a client writes cannot overflow any algorithm: the enforcer refuses every cost above
 * the limit before the store is asked, and each algorithm itself, asked directly with a cost near
 * the limit or near {@link Long#MAX_VALUE}, decides without an exception, without admitting an
 * impossible cost, and without changing the key's state by a denial.
 */
class RequestCostArithmeticTest {

    static List<String> algorithms() {
        return List.of("token-bucket 100/1m", "token-bucket 1000/1s burst=2305843009213",
                "gcra 100/1m", "fixed-window 100/1m", "fixed-window 100/1m align=first-request",
                "fixed-window 140737488355327/1d", "sliding-window 100/1m", "leaky-bucket 100/1m",
                "concurrency 100", "shaping 100/1s", "sliding-log 100/1m", "warm-up 100/1s warm-up=10s",
                "smooth-bursty 100/1s", "adaptive gradient max=100");
    }

    /** Guava's meters admit a cost above their permits by borrowing from the future (the enforcer never asks them to). */
    private static boolean borrows(String spec) {
        return spec.startsWith("warm-up") || spec.startsWith("smooth-bursty") || spec.startsWith("shaping");
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void enforcer_costsAtAndAboveTheLimit_theLimitPassesOnAFreshKey_aboveIsRefusedUntouched(String spec) {
        EnforcerFixture fixture = new EnforcerFixture();
        Enforcer e = fixture.enforcer("p = " + spec + " key=ip cost=header:X-Cost");
        long limit = e.policies().get(0).algorithm().limit();
        KeyState before = e.inspect("192.0.2.1", "p");
        for (String cost : List.of(Long.toString(limit + 1), "9223372036854775807", "9223372036854775806",
                Long.toString(Long.MAX_VALUE / 2), "18446744073709551616")) {
            Verdict v = e.enforce(FakeRequest.get("/").header("X-Cost", cost));
            assertTrue(v.denied(), spec + " cost " + cost);
            assertFalse(v.retryable(0));
            assertEquals(400, v.status());
        }
        assertEquals(before, e.inspect("192.0.2.1", "p"), spec + ": a refused cost took nothing");
        Verdict whole = e.enforce(FakeRequest.get("/").header("X-Cost", Long.toString(limit)));
        // A cold warm-up key spaces its first permits; an adaptive limit starts below its max.
        assertTrue(whole.admitted() || spec.startsWith("warm-up") || spec.startsWith("adaptive"), spec + ": " + whole);
        whole.release(200);
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    @SuppressWarnings({"unchecked", "rawtypes"})
    void algorithm_costNearLongMax_deniesNeverPassing_withoutAnExceptionOrAWrite(String spec) {
        Algorithm a = Policy.parse("p = " + spec + " key=ip").algorithm();
        long now = new io.github.sluice.testing.FakeClock().nanos();
        Cell cell = a.newCell(now);
        MutableDecision before = new MutableDecision();
        a.acquire(cell, now, 0, before);
        for (long cost : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE / 2, (Long.MAX_VALUE >> 1) + 1,
            a.limit() + 1}) {
            if (cost == a.limit() + 1 && borrows(spec)) {
                continue;
            }
            MutableDecision out = new MutableDecision();
            int r = a.acquire(cell, now, cost, out);
            assertEquals(Algorithm.DENIED, r, spec + " cost " + cost);
            assertEquals(Decision.NEVER, out.retryAfterNanos(), spec + " cost " + cost);
            MutableDecision after = new MutableDecision();
            a.acquire(cell, now, 0, after);
            assertEquals(before.remaining(), after.remaining(), spec + ": the denial of " + cost + " wrote");
        }
        MutableDecision out = new MutableDecision();
        int r = a.acquire(cell, now, a.limit(), out);
        assertTrue(r == Algorithm.ADMITTED || spec.startsWith("warm-up") || spec.startsWith("adaptive"),
                spec + " the whole limit: " + out);
    }
}
