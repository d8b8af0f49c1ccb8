package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.Expect;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * redis-cell's {@code CL.THROTTLE key max_burst count period [quantity]}, ported: its reply
 * ({@code limited, limit, remaining, retry_after, reset_after}) reproduced by {@link Gcra} on a
 * manual clock. Cases in the spirit of redis-cell's throttle tests (written here, not copied; its
 * own vector is {@code GcraTest.acquire_redisCellVectors_reproduceClThrottleReplies}).
 * "Porting from redis-cell" in docs/algorithms.md maps the reply fields.
 */
class RedisCellPortingTest {

    private static final long S = 1_000_000_000L;
    private static final long START = 1_767_225_600L * S;

    private final MutableDecision out = new MutableDecision();

    /** One CL.THROTTLE call: asserts the reply, with retry_after -1 as {@link Decision#NEVER} or 0. */
    private void throttle(Gcra gcra, Cell cell, long now, long quantity, boolean limited, long remaining,
            long resetNanos, long retryNanos) {
        int result = gcra.acquire(cell, now, quantity, out);
        String where = "at +" + (now - START) + " ns, quantity " + quantity;
        assertEquals(limited ? Algorithm.DENIED : Algorithm.ADMITTED, result, where + ": limited");
        assertEquals(gcra.limit(), out.limit(), where + ": limit");
        assertEquals(remaining, out.remaining(), where + ": remaining");
        assertEquals(resetNanos, out.resetNanos(), where + ": reset_after");
        if (limited) {
            assertEquals(retryNanos, out.retryAfterNanos(), where + ": retry_after");
        }
    }

    @Test
    void throttle_sixPerMinuteBurstTwo_repliesAsClThrottle() {
        // CL.THROTTLE key 2 6 60: limit 3, one every 10 s
        Gcra gcra = Gcra.builder().rate(Rate.of(6, Duration.ofSeconds(60))).burst(2).build();
        Cell cell = gcra.newCell(START);
        throttle(gcra, cell, START, 1, false, 2, 10 * S, 0);
        throttle(gcra, cell, START, 1, false, 1, 20 * S, 0);
        throttle(gcra, cell, START, 1, false, 0, 30 * S, 0);
        throttle(gcra, cell, START, 1, true, 0, 30 * S, 10 * S);
        throttle(gcra, cell, START + 4 * S, 1, true, 0, 26 * S, 6 * S);
        throttle(gcra, cell, START + 10 * S, 1, false, 0, 30 * S, 0);
        // quantity 0 peeks: the state does not move
        throttle(gcra, cell, START + 25 * S, 0, false, 1, 15 * S, 0);
        throttle(gcra, cell, START + 25 * S, 0, false, 1, 15 * S, 0);
        // a quantity above the limit is refused with retry_after -1, whatever the state
        throttle(gcra, cell, START + 25 * S, 4, true, 1, 15 * S, Decision.NEVER);
        // two at once when two are free
        throttle(gcra, cell, START + 30 * S, 2, false, 0, 30 * S, 0);
        // idle past reset_after: redis-cell's key has expired, the limiter is as new
        assertTrue(gcra.isFresh(cell, START + 60 * S));
        throttle(gcra, cell, START + 600 * S, 3, false, 0, 30 * S, 0);
    }

    @Test
    void throttle_maxBurstZero_spacesRequestsByTheEmissionInterval() {
        // CL.THROTTLE key 0 2 1: one request every 500 ms, none early
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(2)).burst(0).build();
        Cell cell = gcra.newCell(START);
        throttle(gcra, cell, START, 1, false, 0, S / 2, 0);
        throttle(gcra, cell, START + S / 2 - 1, 1, true, 0, 1, 1);
        throttle(gcra, cell, START + S / 2, 1, false, 0, S / 2, 0);
    }

    @Test
    void ratesWhoseIntervalRoundsToZero_refusedAtBuild_asRedisCellRefusesThem() {
        // redis-cell truncates period / count to whole nanoseconds and answers "Zero rates are
        // not supported" when that is 0, i.e. when count > period in ns: the same rates fail here,
        // at build time instead of on every call.
        Expect.illegalArgument("rate must be at most 1 permit per nanosecond (1000 per 1us) but was 1001 per 1us",
                () -> Gcra.builder().rate(Rate.of(1001, Duration.ofNanos(1000))));
        Gcra fastest = Gcra.builder().rate(Rate.of(1000, Duration.ofNanos(1000))).burst(0).build();
        assertEquals(1, fastest.emissionIntervalNanos(), "one per nanosecond is the fastest, as in redis-cell");
    }

    /**
     * The one deliberate difference: redis-cell truncates 60 s / 7 to 8,571,428,571 ns, so its
     * 7/min runs 3 ns per minute fast; Sluice keeps the fraction: after the burst, the j-th
     * request is admitted at exactly {@code ceil(j * 60 s / 7)}, never a nanosecond early, so
     * every minute holds exactly 7.
     */
    @Test
    void sevenPerMinute_exactSchedule_noDriftFromTruncation() {
        Gcra gcra = Gcra.builder().rate(Rate.perMinute(7)).burst(1).build();
        Cell cell = gcra.newCell(START);
        assertEquals(Algorithm.ADMITTED, gcra.acquire(cell, START, 2, out));
        for (long j = 1; j <= 7_000; j++) {
            long due = START + (j * 60 * S + 6) / 7;
            assertEquals(Algorithm.DENIED, gcra.acquire(cell, due - 1, 1, out), "request " + j + " early");
            assertEquals(1, out.retryAfterNanos(), "request " + j + ": retry_after");
            assertEquals(Algorithm.ADMITTED, gcra.acquire(cell, due, 1, out), "request " + j + " when due");
        }
        assertFalse(gcra.acquire(cell, START + 1000 * 60 * S + 1, 1, out) == Algorithm.ADMITTED,
                "7,000 in 1,000 minutes, and not one more");
    }

    /**
     * redis-cell's {@code Rate::per_period} makes a zero emission interval from a zero count or a
     * zero period, and {@code rate_limit} then answers every call, a peek included, with "Zero
     * rates are not supported". Sluice refuses the same rates once, when they are built or parsed.
     */
    @Test
    void zeroCountOrPeriod_refusedAtBuild() {
        Expect.illegalArgument("permits must be >= 1 but was 0", () -> Rate.of(0, Duration.ofSeconds(60)));
        Expect.illegalArgument("period must be > 0 but was 0s", () -> Rate.of(10, Duration.ZERO));
        Expect.illegalArgument("policy line 1 (policy 'cell'): rate='0/1m': permits must be >= 1 but was 0",
                () -> io.github.sluice.policy.Policy.parse("cell = gcra 0/1m burst=5 key=ip"));
        Expect.illegalArgument("policy line 1 (policy 'cell'): rate='10/0s': period must be > 0 but was 0s",
                () -> io.github.sluice.policy.Policy.parse("cell = gcra 10/0s burst=5 key=ip"));
    }
}
