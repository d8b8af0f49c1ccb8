package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Decision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.Expect;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The vectors of x/time/rate's rate_test.go, step for step. Times are multiples of
 * {@code d = 100 ms} after {@code t0}; a reservation's expected time to act likewise. The clock is
 * monotonic, so the vectors that move time backwards are left out, and TestReserveSetBurst reserves
 * at t3 (the time of its SetBurstAt) instead of jumping back to t0.
 */
class TokenBucketLimiterTest {

    private static final long D = 100_000_000L;

    private final FakeClock clock = new FakeClock();
    private final long t0 = clock.nanos();

    /** One line of a vector. */
    record Step(String op, int t, long n, int act, boolean ok, int ref, int maxD) {
        @Override
        public String toString() {
            return op + "(t" + t + ", " + n + ")";
        }
    }

    static Step allow(int t, long n, boolean ok) {
        return new Step("allow", t, n, 0, ok, 0, 0);
    }

    static Step reserve(int t, long n, int act, boolean ok) {
        return new Step("reserve", t, n, act, ok, 0, -1);
    }

    static Step reserveMax(int t, long n, int maxD, int act, boolean ok) {
        return new Step("reserve", t, n, act, ok, 0, maxD);
    }

    /** Cancels the reservation made by step number {@code ref} (0-based). */
    static Step cancel(int t, int ref) {
        return new Step("cancel", t, 0, 0, true, ref, 0);
    }

    static Step setLimit(int t, long perSecond) {
        return new Step("setLimit", t, perSecond, 0, true, 0, 0);
    }

    static Step setBurst(int t, long burst) {
        return new Step("setBurst", t, burst, 0, true, 0, 0);
    }

    static Stream<Arguments> vectors() {
        return Stream.of(
                Arguments.of("TestLimiterBurst1", 10, 1, List.of(
                        allow(0, 1, true), allow(0, 1, false), allow(0, 1, false),
                        allow(1, 1, true), allow(1, 1, false), allow(1, 1, false),
                        allow(2, 2, false), allow(2, 1, true), allow(2, 1, false))),
                Arguments.of("TestLimiterBurst3", 10, 3, List.of(
                        allow(0, 2, true), allow(0, 2, false), allow(0, 1, true),
                        allow(0, 1, false), allow(1, 4, false), allow(2, 1, true),
                        allow(3, 1, true), allow(4, 1, true), allow(4, 1, true),
                        allow(4, 1, false), allow(4, 1, false), allow(9, 3, true),
                        allow(9, 0, true))),
                Arguments.of("TestSimpleReserve", 10, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 2, 2, true), reserve(3, 2, 4, true))),
                Arguments.of("TestMix", 10, 2, List.of(
                        reserve(0, 3, 1, false), reserve(0, 2, 0, true), allow(1, 2, false),
                        reserve(1, 2, 2, true), allow(1, 1, false), allow(3, 1, true))),
                Arguments.of("TestCancelInvalid", 10, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 3, 3, false), cancel(0, 1),
                        reserve(0, 2, 2, true))),
                Arguments.of("TestCancelLast", 10, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 2, 2, true), cancel(1, 1),
                        reserve(1, 2, 2, true))),
                Arguments.of("TestCancelTooLate", 10, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 2, 2, true), cancel(3, 1),
                        reserve(3, 2, 4, true))),
                Arguments.of("TestCancel0Tokens", 10, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 1, 1, true), reserve(0, 1, 2, true),
                        cancel(0, 1), reserve(0, 1, 3, true))),
                Arguments.of("TestCancel1Token", 10, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 2, 2, true), reserve(0, 1, 3, true),
                        cancel(2, 1), reserve(2, 2, 4, true))),
                Arguments.of("TestCancelMulti", 10, 4, List.of(
                        reserve(0, 4, 0, true), reserve(0, 3, 3, true), reserve(0, 1, 4, true),
                        reserve(0, 1, 5, true), cancel(1, 3), cancel(1, 1),
                        reserve(1, 3, 5, true))),
                Arguments.of("TestReserveSetLimit", 5, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 2, 4, true), setLimit(2, 10),
                        reserve(2, 1, 4, true))),
                Arguments.of("TestReserveSetBurst (at t3)", 5, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 2, 4, true), setBurst(3, 4),
                        reserve(3, 4, 12, true))),
                Arguments.of("TestReserveSetLimitCancel", 5, 2, List.of(
                        reserve(0, 2, 0, true), reserve(0, 2, 4, true), setLimit(2, 10),
                        cancel(2, 1), reserve(2, 2, 3, true))),
                Arguments.of("TestReserveMax", 10, 2, List.of(
                        reserveMax(0, 2, 1, 0, true), reserveMax(0, 1, 1, 1, true),
                        reserveMax(0, 1, 1, 2, false))),
                Arguments.of("SetLimit mid-stream: slower, then faster", 10, 2, List.of(
                        allow(0, 2, true), setLimit(0, 1), allow(1, 1, false),
                        allow(9, 1, false), allow(10, 1, true), setLimit(10, 10),
                        allow(11, 1, true), allow(11, 1, false))),
                Arguments.of("SetBurst mid-stream: larger, then smaller", 10, 2, List.of(
                        allow(0, 2, true), setBurst(0, 5), allow(5, 5, true), allow(20, 5, true),
                        setBurst(40, 1), allow(40, 2, false), allow(40, 1, true),
                        allow(40, 1, false))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void vector_matchesXTimeRate(String name, long perSecond, long burst, List<Step> steps) {
        // Given x/time/rate's NewLimiter(perSecond, burst) at t0
        TokenBucketLimiter lim = TokenBucketLimiter.of(
                TokenBucket.builder().rate(Rate.perSecond(perSecond)).burst(burst).build(), clock);
        List<Reservation> made = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            // When each step happens at its time
            clock.set(t0 + step.t() * D);
            Reservation r = null;
            switch (step.op()) {
                case "allow" -> assertEquals(step.ok(), lim.allow(step.n()), name + " step " + i + " " + step);
                case "reserve" -> {
                    r = step.maxD() < 0 ? lim.reserve(step.n())
                            : lim.reserve(step.n(), Duration.ofNanos(step.maxD() * D));
                    // Then reservations are granted or refused, and act, as in x/time/rate
                    assertEquals(step.ok(), r.ok(), name + " step " + i + " " + step);
                    if (step.ok()) {
                        assertEquals(t0 + step.act() * D, r.timeToActNanos(),
                                name + " step " + i + " " + step);
                    } else {
                        assertEquals(Decision.NEVER, r.delayNanos());
                    }
                }
                case "cancel" -> made.get(step.ref()).cancel();
                case "setLimit" -> lim.setRate(Rate.perSecond(step.n()));
                case "setBurst" -> lim.setBurst(step.n());
                default -> throw new AssertionError(step.op());
            }
            made.add(r);
        }
    }

    @Test
    void waitUntil_xTimeRateWaitSimple_refusesAboveBurstAndSleepsForLaterTokens()
            throws InterruptedException {
        // Given NewLimiter(10, 3) and a sleeper that advances the fake clock
        List<Long> slept = new ArrayList<>();
        TokenBucketLimiter lim = limiter(10, 3, nanos -> {
            slept.add(nanos);
            clock.advanceNanos(nanos);
        });
        long far = t0 + 1_000 * D;

        assertFalse(lim.waitUntil(4, far), "exceed-burst-error");
        assertTrue(lim.waitUntil(2, far), "act-now");
        assertEquals(List.of(), slept);
        assertTrue(lim.waitUntil(3, far), "act-later");
        assertEquals(List.of(2 * D), slept);
        assertEquals(t0 + 2 * D, clock.nanos());
    }

    @Test
    void waitUntil_xTimeRateWaitTimeout_refusesAWaitPastTheDeadlineWithoutTakingTokens()
            throws InterruptedException {
        TokenBucketLimiter lim = limiter(10, 3, nanos -> {
            throw new AssertionError("must not sleep");
        });

        assertTrue(lim.waitUntil(2, t0 + D), "act-now");
        assertFalse(lim.waitUntil(3, t0 + D), "w-timeout-err");
        assertEquals(1, lim.tokens(), "the refused wait took nothing");
        assertFalse(lim.waitUntil(1, t0 - 1), "a deadline already passed");
        assertTrue(lim.waitFor(1, Duration.ZERO));
    }

    @Test
    void waitUntil_interruptedWhileSleeping_cancelsTheReservation() {
        // Given NewLimiter(10, 3) with 1 token left, and a sleep interrupted after d (TestWaitCancel)
        TokenBucketLimiter lim = limiter(10, 3, nanos -> {
            clock.advanceNanos(D);
            throw new InterruptedException();
        });
        assertTrue(lim.allow(2));

        assertThrows(InterruptedException.class, () -> lim.waitUntil(3, t0 + 100 * D));

        // Then the 3 tokens came back: 1 left + 1 refilled in d + 3 - 3 reserved = 2
        assertEquals(2, lim.tokens());
        assertTrue(lim.allow(2), "act-now-after-cancel");
    }

    @Test
    void reservation_cancelTwice_restoresOnlyOnce() {
        TokenBucketLimiter lim = limiter(10, 2, nanos -> { });
        assertTrue(lim.allow(2));
        Reservation r = lim.reserve(2);

        r.cancel();
        r.cancel();

        assertTrue(r.cancelled());
        assertEquals(0, lim.tokens(), "cancelling again gave nothing more back");
        assertEquals(t0 + 2 * D, lim.reserve(2).timeToActNanos());
    }

    @Test
    void reservation_refused_holdsNothingAndCancelDoesNothing() {
        TokenBucketLimiter lim = limiter(10, 2, nanos -> { });

        Reservation r = lim.reserve(3);
        r.cancel();

        assertFalse(r.ok());
        assertEquals(0, r.tokens());
        assertEquals(Decision.NEVER, r.timeToActNanos());
        assertFalse(r.cancelled());
        assertEquals(2, lim.tokens());
    }

    @Test
    void reservation_delay_countsDownWithTheClock() {
        TokenBucketLimiter lim = limiter(10, 1, nanos -> { });
        assertTrue(lim.allow());

        Reservation r = lim.reserve();
        assertEquals(D, r.delayNanos());
        clock.advanceNanos(D / 4);
        assertEquals(3 * D / 4, r.delayNanos());
        clock.advanceNanos(D);
        assertEquals(0, r.delayNanos());
    }

    @Test
    void badArguments_failNamingTheParameterAndValue() {
        TokenBucketLimiter lim = limiter(10, 2, nanos -> { });
        Expect.illegalArgument("n must be >= 0 but was -1", () -> lim.allow(-1));
        Expect.illegalArgument("n must be >= 0 but was -2", () -> lim.reserve(-2));
        Expect.illegalArgument("burst must be >= 1 but was 0", () -> lim.setBurst(0));
        Expect.illegalArgument("rate must be >= 0 (or INF) but was NaN", () -> lim.setRate(Double.NaN));
        Expect.illegalArgument("rate must be >= 0 (or INF) but was -1.0", () -> lim.setRate(-1.0));
        Expect.illegalArgument("permitsPerSecond must be at least one per 26687d (about 73 years) (longer"
                        + " intervals do not fit in signed 64-bit nanoseconds with room for a burst) but was"
                        + " 1.0E-10 per second, one every about 317 years; TokenBucketLimiter and"
                        + " BlockingLimiter.create accept such a rate (the burst is spent, nothing refills)",
                () -> lim.setRate(Rate.perSecond(1e-10)));
        Expect.illegalArgument("permits must be >= 1 but was 0",
                () -> lim.setRate(Rate.perSecond(0)));
        Expect.illegalArgument("burst * interval would overflow: at most 26687d (about 73 years) fits,"
                        + " and it would be about 2314815d",
                () -> lim.setBurst(2_000_000_000_000L));
        assertEquals(2, lim.burst(), "a refused change changes nothing");
        lim.setRate(Rate.perHour(1));
        Expect.illegalArgument("burst * interval would overflow: at most 26687d (about 73 years) fits,"
                        + " and it would be about 83333333333d",
                () -> TokenBucketLimiter.of(TokenBucket.builder().rate(Rate.perHour(1))
                        .burst(2_000_000_000_000L).build(), clock));
        assertThrows(IllegalStateException.class, () -> TokenBucket.builder().burst(1).build());
        assertThrows(NullPointerException.class, () -> TokenBucketLimiter.of(TokenBucket.of(Rate.perSecond(1)), null));
        assertThrows(NullPointerException.class, () -> TokenBucketLimiter.of(null, clock));
    }

    private TokenBucketLimiter limiter(long perSecond, long burst, TokenBucketLimiter.Sleeper sleeper) {
        return TokenBucketLimiter.of(TokenBucket.builder().rate(Rate.perSecond(perSecond)).burst(burst).build(),
                clock, sleeper);
    }
}
