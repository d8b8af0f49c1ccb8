package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Guava's {@code RateLimiter} expectations, reproduced through Sluice's public API on a manual
 * clock: {@link SmoothBursty} and {@link WarmUp} driven by a {@link BlockingLimiter} whose sleeper
 * advances the clock. Each case is written here after the behaviour Guava's own tests pin down
 * ("R0.20" is a sleep of 0.20 s, as Guava's tests print it).
 */
class GuavaPortingTest {

    private final FakeClock clock = new FakeClock();
    private final List<Long> slept = Collections.synchronizedList(new ArrayList<>());
    private final TokenBucketLimiter.Sleeper sleeper = nanos -> {
        slept.add(nanos);
        clock.advanceNanos(nanos);
    };

    private BlockingLimiter<?> create(double perSecond) {
        return BlockingLimiter.of(SmoothBursty.of(Rate.perSecond((long) perSecond)), clock, sleeper);
    }

    private static String r(Duration waited) {
        return String.format(Locale.ROOT, "R%.2f", waited.toNanos() / 1e9);
    }

    private static String acquireAll(BlockingLimiter<?> limiter, long... permits) throws InterruptedException {
        List<String> out = new ArrayList<>();
        for (long p : permits) {
            out.add(r(limiter.acquire(p)));
        }
        return String.join(", ", out);
    }

    @Test
    void acquire_fivePerSecond_firstIsFreeThenOneFifthOfASecondEach() throws Exception {
        BlockingLimiter<?> limiter = create(5);
        assertEquals("R0.00, R0.20, R0.20", acquireAll(limiter, 1, 1, 1));
    }

    @Test
    void acquire_afterAPauseAsLongAsTheInterval_doesNotWait() throws Exception {
        BlockingLimiter<?> limiter = create(5);
        assertEquals("R0.00", acquireAll(limiter, 1));
        clock.advance(Duration.ofMillis(200));
        assertEquals("R0.00, R0.20", acquireAll(limiter, 1, 1));
    }

    @Test
    void acquire_afterTwoIdleSeconds_burstsOnlyOneSecondOfPermits() throws Exception {
        BlockingLimiter<?> limiter = create(5);
        clock.advance(Duration.ofSeconds(2));
        assertEquals(5.0, limiter.storedPermits(), 1e-12);
        // 1 + 1 + 3 stored permits, one more that pays later, then the steady rate
        assertEquals("R0.00, R0.00, R0.00, R0.00, R0.20", acquireAll(limiter, 1, 1, 3, 1, 1));
    }

    @Test
    void acquire_weights_eachRequestPaysForThePreviousOne() throws Exception {
        BlockingLimiter<?> limiter = create(1);
        assertEquals("R0.00, R1.00, R1.00, R2.00, R4.00, R100.00", acquireAll(limiter, 1, 1, 2, 4, 100, 1));
    }

    @Test
    void acquire_aHugeFirstRequest_isAdmittedAndTheNextWaitsForIt() throws Exception {
        BlockingLimiter<?> limiter = create(5);
        assertEquals("R0.00, R2.00", acquireAll(limiter, 10, 1));
    }

    @Test
    void storedPermits_growWithIdlenessUpToOneSecondOfTheRate() throws Exception {
        BlockingLimiter<?> limiter = create(5);
        limiter.acquire();
        assertEquals(0.0, limiter.storedPermits(), 0.0);
        clock.advance(Duration.ofMillis(600)); // 0.2 s repays the first request, 0.4 s stores 2
        assertEquals(2.0, limiter.storedPermits(), 1e-12);
        clock.advance(Duration.ofSeconds(10));
        assertEquals(5.0, limiter.storedPermits(), 1e-12);
    }

    @Test
    void tryAcquire_withoutTimeout_succeedsOnlyWhenTheNextTicketIsDue() {
        BlockingLimiter<?> limiter = create(5);
        assertTrue(limiter.tryAcquire());
        assertFalse(limiter.tryAcquire());
        clock.advance(Duration.ofMillis(199));
        assertFalse(limiter.tryAcquire());
        clock.advance(Duration.ofMillis(1));
        assertTrue(limiter.tryAcquire());
        assertEquals(List.of(), slept);
    }

    @Test
    void tryAcquire_withTimeout_waitsOnlyIfTheTicketFitsAndOtherwiseTakesNothing() throws Exception {
        BlockingLimiter<?> limiter = create(5);
        assertTrue(limiter.tryAcquire(1, Duration.ZERO));
        assertFalse(limiter.tryAcquire(1, Duration.ofMillis(199)));
        assertFalse(limiter.tryAcquire(1, Duration.ofNanos(199_999_999)));
        assertEquals(List.of(), slept);
        // The refusals took nothing: the ticket is still 0.2 s away.
        assertTrue(limiter.tryAcquire(1, Duration.ofMillis(200)));
        assertEquals(List.of(200_000_000L), slept);
        assertFalse(limiter.tryAcquire(1, Duration.ofMillis(-5)));
    }

    @Test
    void acquire_zeroOrNegativePermits_throwsAsGuavaDoes() {
        BlockingLimiter<?> limiter = create(5);
        assertEquals("permits must be >= 1 but was 0 (Guava: 'Requested permits (0) must be positive')",
                assertThrows(IllegalArgumentException.class, () -> limiter.acquire(0)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> limiter.acquire(-1));
        assertThrows(IllegalArgumentException.class, () -> limiter.tryAcquire(0));
        assertThrows(IllegalArgumentException.class, () -> limiter.tryAcquire(0, Duration.ofSeconds(1)));
        assertTrue(limiter.tryAcquire(), "the refusals took nothing");
    }

    @Test
    void acquire_interruptedOnEntry_throwsAndTakesNothing() throws Exception {
        BlockingLimiter<?> limiter = create(5);
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, limiter::acquire);
        assertFalse(Thread.currentThread().isInterrupted(), "the flag is consumed, as Semaphore does");
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> limiter.tryAcquire(1, Duration.ofSeconds(1)));
        Thread.interrupted();
        assertTrue(limiter.tryAcquire(), "nothing was taken: the first request is still free");
    }

    @Test
    void acquire_interruptedWhileWaiting_givesBackExactlyItsReservation() throws Exception {
        // Given a limiter whose next ticket is 0.2 s away, and a sleep that gets interrupted
        BlockingLimiter<?> limiter = BlockingLimiter.of(SmoothBursty.of(Rate.perSecond(5)), clock, nanos -> {
            throw new InterruptedException("interrupted while sleeping " + nanos);
        });
        assertTrue(limiter.tryAcquire());

        // When a caller reserves 3 permits (ticket at +0.2 s, charging +0.6 s) and is interrupted
        assertThrows(InterruptedException.class, () -> limiter.acquire(3));

        // Then the reservation is gone: at +0.2 s one permit is due, not 0.6 s later
        clock.advance(Duration.ofMillis(200));
        assertTrue(limiter.tryAcquire());
        assertFalse(limiter.tryAcquire());
    }

    @Test
    void acquire_manyCallersReleasedTogether_queueOneIntervalApart() throws Exception {
        // Given 5 per second, 8 threads released together, and a sleeper that does not move the
        // clock (every reservation is made at one instant)
        List<Long> waits = Collections.synchronizedList(new ArrayList<>());
        BlockingLimiter<?> limiter = BlockingLimiter.of(SmoothBursty.of(Rate.perSecond(5)), clock, waits::add);
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Duration>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return limiter.acquire();
                }));
            }
            List<Long> got = new ArrayList<>();
            for (Future<Duration> f : results) {
                got.add(f.get(30, TimeUnit.SECONDS).toNanos());
            }
            // Then each took its own ticket: 0, 0.2, 0.4, ... 1.4 s, none shared, none skipped
            Collections.sort(got);
            List<Long> expected = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                expected.add(i * 200_000_000L);
            }
            assertEquals(expected, got);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void acquire_warmUp_reproducesGuavasDocumentedSpacing() throws Exception {
        // RateLimiter.create(2, 4, SECONDS) from cold, as in Guava's warm-up tests
        BlockingLimiter<?> limiter = BlockingLimiter.of(WarmUp.of(Rate.perSecond(2), Duration.ofSeconds(4)),
                clock, sleeper);
        // Cold: Guava's maxPermits = 0.5 * 4 / 0.5 + 2 * 4 / (0.5 + 1.5) = 8 stored permits
        assertEquals(8.0, limiter.storedPermits(), 1e-6);
        assertEquals("R0.00, R1.38, R1.13, R0.88, R0.63, R0.50, R0.50, R0.50",
                acquireAll(limiter, 1, 1, 1, 1, 1, 1, 1, 1));
    }

    @Test
    void tryAcquire_warmUpWithTimeout_reservesAFutureTicketLikeGuava() throws Exception {
        BlockingLimiter<?> limiter = BlockingLimiter.of(WarmUp.of(Rate.perSecond(2), Duration.ofSeconds(4)),
                clock, sleeper);
        assertTrue(limiter.tryAcquire(1, Duration.ZERO));
        assertFalse(limiter.tryAcquire(1, Duration.ofMillis(1_374)));
        assertTrue(limiter.tryAcquire(1, Duration.ofMillis(1_376)));
        assertEquals(1, slept.size());
        assertEquals(1.375, slept.get(0) / 1e9, 1e-3);
    }

    @Test
    void acquire_tokenBucket_waitsByRetryingAndNeverOverAdmits() throws Exception {
        // An algorithm that cannot reserve: the caller sleeps the retry-after and asks again
        BlockingLimiter<?> limiter = BlockingLimiter.of(
                TokenBucket.builder().rate(Rate.perSecond(5)).burst(1).build(), clock, sleeper);
        assertEquals("R0.00, R0.20, R0.20", acquireAll(limiter, 1, 1, 1));
        assertFalse(limiter.tryAcquire(1, Duration.ofMillis(199)));
        assertTrue(limiter.tryAcquire(1, Duration.ofMillis(200)));
        assertThrows(IllegalArgumentException.class, () -> limiter.acquire(2), "more than the burst never comes");
        assertFalse(limiter.tryAcquire(2, Duration.ofDays(1)));
    }

    @Test
    void tryAcquire_shapingWithoutTimeout_refusesADelayedSlotAndTakesNothing() throws Exception {
        // uber-go's limiter: slots 0.2 s apart; a quiet key has its slack (10 intervals) earned
        BlockingLimiter<?> limiter = BlockingLimiter.of(
                ShapingLeakyBucket.builder().rate(Rate.perSecond(5)).slack(0).build(), clock, sleeper);
        assertTrue(limiter.tryAcquire());
        assertFalse(limiter.tryAcquire(), "the next slot is 0.2 s away");
        assertEquals("R0.20", acquireAll(limiter, 1), "the refusal did not keep the slot");
        assertEquals(List.of(200_000_000L), slept);
    }

    @Test
    void of_concurrencyLimit_isRefusedWithTheReason() {
        Algorithm<?> concurrency = Concurrency.of(10);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BlockingLimiter.of(concurrency, clock, sleeper));
        assertTrue(e.getMessage().startsWith("algorithm must be a rate algorithm but was "), e.getMessage());
    }
}
