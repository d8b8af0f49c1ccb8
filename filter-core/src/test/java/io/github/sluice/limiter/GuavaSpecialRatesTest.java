package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The rates Guava's {@code RateLimiter} accepts beyond the ordinary: {@code +Inf}
 * ({@code create(Double.POSITIVE_INFINITY)}, {@code setRate(+Inf)}), tiny rates
 * ({@code create(Double.MIN_VALUE)}) and a zero warm-up. Each case is Guava's own test
 * ({@code RateLimiterTest.testInfinity_Bursty}, {@code testInfinity_BustyTimeElapsed},
 * {@code testInfinity_WarmUp}, {@code testInfinity_WarmUpTimeElapsed},
 * {@code testVerySmallDoubleValues}) with its expected sleeps, on a manual clock.
 */
class GuavaSpecialRatesTest {

    private final FakeClock clock = new FakeClock();
    private final List<String> events = new ArrayList<>();
    private final TokenBucketLimiter.Sleeper sleeper = nanos -> {
        events.add(String.format(Locale.ROOT, "R%.2f", nanos / 1e9));
        clock.advanceNanos(nanos);
    };

    private String acquireAll(BlockingLimiter<?> limiter, long... permits) throws InterruptedException {
        events.clear();
        List<String> out = new ArrayList<>();
        for (long p : permits) {
            out.add(String.format(Locale.ROOT, "R%.2f", limiter.acquire(p).toNanos() / 1e9));
        }
        return String.join(", ", out);
    }

    @Test
    void createInfinity_bursty_admitsEverythingThenResumesWithAFullBurstAndRepaysItsDebt() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(BlockingLimiter.INF, clock, sleeper);
        assertEquals("R0.00, R0.00, R0.00",
                acquireAll(limiter, Integer.MAX_VALUE / 4, Integer.MAX_VALUE / 2, Integer.MAX_VALUE));
        assertTrue(limiter.unlimited());
        assertEquals(Double.POSITIVE_INFINITY, limiter.getRate());

        limiter.setRate(2.0);
        // First the saved-up burst (one second: 2 permits), then the free request, then 0.5 s each
        assertEquals("R0.00, R0.00, R0.00, R0.50, R0.50", acquireAll(limiter, 1, 1, 1, 1, 1));

        limiter.setRate(Double.POSITIVE_INFINITY);
        // The last request's 0.5 s is repaid, then back to +Inf
        assertEquals("R0.50, R0.00, R0.00", acquireAll(limiter, 1, 1, 1));
    }

    @Test
    void createInfinity_bursty_timeElapsedBeforeSetRate_resumesWithOneSecondOfBurst() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(BlockingLimiter.INF, clock, sleeper);
        clock.advance(Duration.ofMillis(1));
        limiter.setRate(2.0);
        assertEquals("R0.00, R0.00, R0.00, R0.50, R0.50", acquireAll(limiter, 1, 1, 1, 1, 1));
    }

    @Test
    void createInfinity_warmUp_resumesWarmAtTheStableRate() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(BlockingLimiter.INF, Duration.ofSeconds(10), clock, sleeper);
        assertEquals("R0.00, R0.00, R0.00",
                acquireAll(limiter, Integer.MAX_VALUE / 4, Integer.MAX_VALUE / 2, Integer.MAX_VALUE));

        limiter.setRate(1.0);
        assertEquals("R0.00, R1.00, R1.00", acquireAll(limiter, 1, 1, 1));

        limiter.setRate(Double.POSITIVE_INFINITY);
        assertEquals("R1.00, R0.00, R0.00", acquireAll(limiter, 1, 1, 1));
    }

    @Test
    void createInfinity_warmUp_timeElapsedBeforeSetRate_resumesWarm() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(BlockingLimiter.INF, Duration.ofSeconds(10), clock, sleeper);
        clock.advance(Duration.ofMillis(1));
        limiter.setRate(1.0);
        assertEquals("R0.00, R1.00, R1.00, R1.00, R1.00", acquireAll(limiter, 1, 1, 1, 1, 1));
    }

    @Test
    void setRateInfinity_tryAcquire_trueUnlessADebtIsStillOwed() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(5, clock, sleeper);
        assertTrue(limiter.tryAcquire(10));               // pays forward 2 s
        limiter.setRate(BlockingLimiter.INF);
        assertFalse(limiter.tryAcquire(), "the 2 s owed are still owed");
        assertFalse(limiter.tryAcquire(1, Duration.ofMillis(1999)));
        assertEquals(List.of(), events, "a refusal within the timeout sleeps nothing");
        assertTrue(limiter.tryAcquire(1, Duration.ofSeconds(2)));
        assertEquals(List.of("R2.00"), events);
        assertTrue(limiter.tryAcquire(1_000_000));
        assertThrows(IllegalStateException.class, limiter::rate, "no Rate holds +Inf");
        assertEquals(Double.POSITIVE_INFINITY, limiter.storedPermits());
    }

    @Test
    void setRateInfinity_anyAlgorithm_unlimitedThenResumesAsANewKey() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build(), clock, sleeper);
        assertTrue(limiter.tryAcquire(2));
        assertFalse(limiter.tryAcquire());
        limiter.setRate(BlockingLimiter.INF);
        assertTrue(limiter.tryAcquire(1_000));
        assertEquals(clock.nanos(), limiter.take(), "take() at once");
        limiter.setRate(1.0);
        assertTrue(limiter.tryAcquire(2), "a full bucket, as x/time/rate's after Inf");
        assertFalse(limiter.tryAcquire());
    }

    @Test
    void unlimited_interruptedOnEntry_throwsAndTakesNothing() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(BlockingLimiter.INF, clock, sleeper);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, limiter::acquire);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, limiter::take);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> limiter.tryAcquire(1, Duration.ofSeconds(1)));
        assertFalse(Thread.interrupted());
    }

    /** Guava's {@code testVerySmallDoubleValues}. */
    @Test
    void createMinValue_admitsTheFirstPermitThenNoneEvenAfterSleeping() {
        BlockingLimiter<?> limiter = BlockingLimiter.create(Double.MIN_VALUE, clock, sleeper);
        assertTrue(limiter.tryAcquire(), "should acquire the initial permit");
        assertFalse(limiter.tryAcquire(), "should not acquire an additional permit");
        clock.advance(Duration.ofSeconds(5));
        assertFalse(limiter.tryAcquire(), "not even after sleeping");
        clock.advance(Duration.ofDays(365L * 70));
        assertFalse(limiter.tryAcquire(), "not even after 70 years");
        assertEquals(Double.MIN_VALUE, limiter.getRate());
        assertEquals(0.0, limiter.storedPermits());
    }

    @Test
    void tinyRate_acquireAfterItsOnePermit_waitsUntilInterrupted_andTakesNothing() throws Exception {
        List<Long> asked = new ArrayList<>();
        BlockingLimiter<?> limiter = BlockingLimiter.create(1e-10, clock, nanos -> {
            asked.add(nanos);
            throw new InterruptedException("woken");
        });
        assertEquals(Duration.ZERO, limiter.acquire(5), "the first request goes at once, whatever its size");
        assertThrows(InterruptedException.class, limiter::acquire);
        assertTrue(asked.get(0) >= Duration.ofDays(365L * 73).toNanos(), "asked to sleep for ever: " + asked);
        assertFalse(limiter.tryAcquire(1, Duration.ofDays(365L * 70)));
    }

    @Test
    void setRateTiny_afterADebt_waitsForItThenAdmitsOneMoreAndNoneAfter() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(5, clock, sleeper);
        limiter.acquire(1);                                // the next ticket is 0.2 s away
        limiter.setRate(1e-10);
        assertFalse(limiter.tryAcquire(), "the ticket owed is not due");
        assertEquals("R0.20", acquireAll(limiter, 3), "waits for the ticket owed, then goes");
        assertFalse(limiter.tryAcquire(1, Duration.ofDays(365L * 70)));
        // Back to a finite rate: the ticket owed at the tiny rate is kept, as Guava's doSetRate does.
        limiter.setRate(5.0);
        assertFalse(limiter.tryAcquire(1, Duration.ofDays(365L * 70)));
    }

    @Test
    void setRateTiny_thenFiniteBeforeUsingIt_resumesAsANewLimiter() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(Double.MIN_VALUE, clock, sleeper);
        limiter.setRate(5.0);
        assertEquals("R0.00, R0.20, R0.20", acquireAll(limiter, 1, 1, 1));
        assertEquals(Rate.perSecond(5), limiter.rate());
    }

    @Test
    void tinyRate_onAnAlgorithmGuavaDoesNotHave_isRefusedNamingTheRate() {
        BlockingLimiter<?> limiter = BlockingLimiter.of(TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build(), clock, sleeper);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> limiter.setRate(1e-10));
        assertTrue(e.getMessage().contains("but was 1.0E-10 per second"), e.getMessage());
        assertEquals(1.0, limiter.getRate(), "a refused change changes nothing");
    }

    @Test
    void createAndSetRate_badRates_failAsGuavaDoes() {
        for (double bad : new double[] {0, -1, Double.NaN, Double.NEGATIVE_INFINITY}) {
            assertEquals("permitsPerSecond must be > 0 (or INF) but was " + bad + " (Guava: 'rate must be positive')",
                    assertThrows(IllegalArgumentException.class, () -> BlockingLimiter.create(bad)).getMessage());
            BlockingLimiter<?> limiter = BlockingLimiter.create(5, clock, sleeper);
            assertThrows(IllegalArgumentException.class, () -> limiter.setRate(bad));
        }
    }

    /**
     * Guava's {@code create(2.0, 0, SECONDS)}: {@code maxPermits} is 0, so nothing is stored and
     * every request waits for the one before it, even after idling.
     */
    @Test
    void createWithZeroWarmUp_storesNothing_everyRequestSpacedByTheStableInterval() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(2.0, Duration.ZERO, clock, sleeper);
        assertEquals("R0.00, R0.50, R0.50", acquireAll(limiter, 1, 1, 1));
        clock.advance(Duration.ofSeconds(10));
        assertEquals(0.0, limiter.storedPermits());
        assertEquals("R0.00, R0.50, R1.00", acquireAll(limiter, 1, 2, 1));
    }

    @Test
    void zeroWarmUp_refund_givesTheTicketBack() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.create(2.0, Duration.ZERO, clock, nanos -> {
            throw new InterruptedException();
        });
        assertTrue(limiter.tryAcquire());
        assertThrows(InterruptedException.class, () -> limiter.acquire(4));
        clock.advance(Duration.ofMillis(500));
        assertTrue(limiter.tryAcquire(), "the interrupted reservation of 4 permits was given back");
    }

    @Test
    void create_finiteRate_isSmoothBurstyWithOneSecondOfBurst() {
        BlockingLimiter<?> limiter = BlockingLimiter.create(5, clock, sleeper);
        assertEquals(SmoothBursty.of(Rate.perSecond(5)), limiter.algorithm());
        assertFalse(limiter.unlimited());
    }
}
