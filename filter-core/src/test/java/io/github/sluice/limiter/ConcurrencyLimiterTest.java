package io.github.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.testing.Expect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterTest {

    @Test
    void tryAcquire_upToMax_thenRefusedWithARefusedPermitNeverNull() {
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(2);

        Permit a = limiter.tryAcquire();
        Permit b = limiter.tryAcquire();
        Permit c = limiter.tryAcquire();

        assertTrue(a.granted());
        assertTrue(b.granted());
        assertNotNull(c);
        assertFalse(c.granted());
        assertEquals(0, c.permits());
        assertEquals(2, limiter.inFlight());
    }

    @Test
    void release_twice_freesOnlyOnePermit() {
        // Given two permits held of two
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(2);
        Permit a = limiter.tryAcquire();
        limiter.tryAcquire();

        // When one is released twice
        assertTrue(a.release());
        assertFalse(a.release());
        a.close();

        // Then only one permit was freed: the other is still held
        assertEquals(1, limiter.inFlight());
        assertTrue(limiter.tryAcquire().granted());
        assertFalse(limiter.tryAcquire().granted());
    }

    @Test
    void refusedPermit_releaseDoesNothing() {
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(1);
        limiter.tryAcquire();
        Permit refused = limiter.tryAcquire();

        assertFalse(refused.release());
        refused.close();

        assertEquals(1, limiter.inFlight());
    }

    @Test
    void tryWithResources_releasesExactlyOnceHoweverTheWorkEnds() {
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(1);

        assertThrows(IllegalStateException.class, () -> {
            try (Permit permit = limiter.tryAcquire()) {
                assertTrue(permit.granted());
                throw new IllegalStateException("work failed");
            }
        });

        assertEquals(0, limiter.inFlight());
    }

    @Test
    void tryAcquire_withTimeout_getsAPermitReleasedWhileWaiting() throws Exception {
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(1);
        Permit held = limiter.tryAcquire();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch started = new CountDownLatch(1);
            Future<Permit> waiter = pool.submit(() -> {
                started.countDown();
                return limiter.tryAcquire(Duration.ofMinutes(5));
            });
            started.await();

            held.release();

            assertTrue(waiter.get(30, TimeUnit.SECONDS).granted());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void tryAcquire_withTimeout_refusesWhenNothingIsReleased() throws InterruptedException {
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(1);
        limiter.tryAcquire();

        assertFalse(limiter.tryAcquire(Duration.ZERO).granted());
        assertFalse(limiter.tryAcquire(Duration.ofMillis(1)).granted());
        assertSame(Permit.REFUSED, limiter.tryAcquire(2, Duration.ofDays(1)), "never waits for more than max");
    }

    @Test
    void manyThreads_mixedAcquireAndDoubleRelease_endWithZeroHeldAndNeverExceedMax()
            throws Exception {
        // Given a limiter of 4 and 16 threads released together, 100,000 calls in all
        int max = 4;
        int threads = 16;
        int callsPerThread = 100_000 / threads;
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(max);
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = t;
            results.add(pool.submit(() -> {
                Random random = new Random(seed);
                List<Permit> mine = new ArrayList<>();
                int granted = 0;
                start.await();
                for (int i = 0; i < callsPerThread; i++) {
                    if (mine.isEmpty() || random.nextBoolean()) {
                        Permit p = random.nextInt(10) == 0
                                ? limiter.tryAcquire(Duration.ofNanos(random.nextInt(1000)))
                                : limiter.tryAcquire();
                        if (p.granted()) {
                            granted++;
                            peak.accumulateAndGet(holders.incrementAndGet(), Math::max);
                            mine.add(p);
                        }
                    } else {
                        Permit p = mine.remove(random.nextInt(mine.size()));
                        holders.decrementAndGet();
                        p.release();
                        // When permits are released twice, sometimes long after
                        p.close();
                        if (!mine.isEmpty()) {
                            // Counted down before the release, so the count never exceeds the truth.
                            Permit twice = mine.remove(0);
                            holders.decrementAndGet();
                            twice.release();
                            twice.release();
                        }
                    }
                }
                for (Permit p : mine) {
                    holders.decrementAndGet();
                    p.release();
                    p.release();
                }
                return granted;
            }));
        }
        int granted = 0;
        for (Future<Integer> f : results) {
            granted += f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // Then nothing is held, every permit was free again, and the max was never exceeded
        assertEquals(0, limiter.inFlight());
        assertEquals(max, limiter.available());
        assertTrue(peak.get() <= max, "peak " + peak.get());
        assertTrue(granted > 1000, "granted " + granted);
    }

    @Test
    void badArguments_failNamingTheParameterAndValue() {
        Expect.illegalArgument("maxInFlight must be >= 1 but was 0", () -> ConcurrencyLimiter.of(0));
        ConcurrencyLimiter limiter = ConcurrencyLimiter.of(1);
        Expect.illegalArgument("permits must be >= 1 but was 0", () -> limiter.tryAcquire(0));
        Expect.illegalArgument("timeout must be >= 0 but was -1s",
                () -> limiter.tryAcquire(Duration.ofSeconds(-1)));
        assertThrows(NullPointerException.class, () -> limiter.tryAcquire((Duration) null));
    }
}
