package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A concurrency limit with a bounded wait, through the registry: an acquisition that finds every
 * permit taken waits for a release, up to {@code maxWait} of the registry's clock. The clock is
 * frozen unless a test moves it, so only a release (or a moved clock) can end a wait.
 */
class ConcurrencyWaitTest {

    private final FakeClock clock = new FakeClock();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private KeySpace space(long max, Duration maxWait) {
        return ShardedRegistry.builder().clock(clock).build().keySpace("p",
                Concurrency.builder().maxInFlight(max).maxWait(maxWait).build());
    }

    @Test
    void acquire_allTaken_waitsAndGetsThePermitOfARelease() throws Exception {
        // Given one permit, taken, and a second request willing to wait an hour
        KeySpace space = space(1, Duration.ofHours(1));
        assertTrue(space.acquire("k", 1, new MutableDecision()));
        Future<Boolean> waiter = submitWaiter(() -> space.acquire("k", 1, new MutableDecision()));
        awaitWaiting(waiter);

        // When the first request ends
        space.release("k", 1);

        // Then the waiting request is admitted
        assertTrue(waiter.get(30, TimeUnit.SECONDS));
    }

    @Test
    void acquire_allTaken_givesUpWhenTheWaitHasPassedOnTheClock() throws Exception {
        KeySpace space = space(1, Duration.ofMillis(20));
        assertTrue(space.acquire("k", 1, new MutableDecision()));
        MutableDecision out = new MutableDecision();
        Future<Boolean> waiter = submitWaiter(() -> space.acquire("k", 1, out));
        awaitWaiting(waiter);

        clock.advance(Duration.ofMillis(20));

        assertFalse(waiter.get(30, TimeUnit.SECONDS));
        assertEquals(Concurrency.RETRY_AFTER_MILLIS * 1_000_000L, out.retryAfterNanos());
    }

    @Test
    void acquire_interruptedWhileWaiting_isDeniedWithTheInterruptKept() throws Exception {
        KeySpace space = space(1, Duration.ofHours(1));
        assertTrue(space.acquire("k", 1, new MutableDecision()));
        Future<Boolean> waiter = submitWaiter(() -> {
            boolean admitted = space.acquire("k", 1, new MutableDecision());
            return !admitted && Thread.currentThread().isInterrupted();
        });
        awaitWaiting(waiter);

        waiterThread.interrupt();

        assertTrue(waiter.get(30, TimeUnit.SECONDS), "denied, interrupt flag set");
    }

    @Test
    void acquire_costAboveMax_isNeverWaitedFor() {
        KeySpace space = space(2, Duration.ofHours(1));

        assertFalse(space.acquire("k", 3, new MutableDecision()));
    }

    @Test
    void manyThreads_acquireWaitRelease_noWakeUpIsLost() throws Exception {
        // Given 2 permits and 8 threads that each take one 2,000 times, waiting as long as needed
        // (an hour of a frozen clock: only releases can wake them)
        KeySpace space = space(2, Duration.ofHours(1));
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(8);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            workers.add(pool.submit(() -> {
                MutableDecision out = new MutableDecision();
                start.await();
                for (int i = 0; i < 2_000; i++) {
                    if (!space.acquire("k", 1, out)) {
                        refused.incrementAndGet();
                        continue;
                    }
                    peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    inFlight.decrementAndGet();
                    space.release("k", 1);
                }
                return null;
            }));
        }

        // When they all finish: a lost wake-up would leave a thread waiting for an hour
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }

        // Then every acquisition was granted, never more than 2 at once, and none is held
        assertEquals(0, refused.get());
        assertTrue(peak.get() <= 2, "peak " + peak.get());
        MutableDecision out = new MutableDecision();
        space.acquire("k", 0, out);
        assertEquals(2, out.remaining());
    }

    private volatile Thread waiterThread;

    /** Starts a waiting request on the pool, remembering its thread. */
    private <T> Future<T> submitWaiter(java.util.concurrent.Callable<T> request) {
        return pool.submit(() -> {
            waiterThread = Thread.currentThread();
            return request.call();
        });
    }

    /** Polls (yielding, not sleeping) until the waiter is blocked in the algorithm's wait. */
    private void awaitWaiting(Future<?> waiter) {
        for (long i = 0; i < 1_000_000_000L; i++) {
            Thread t = waiterThread;
            if (t != null && isWaiting(t)) {
                return;
            }
            assertFalse(waiter.isDone(), "the request did not wait");
            Thread.yield();
        }
        throw new AssertionError("the request never started waiting");
    }

    private static boolean isWaiting(Thread t) {
        if (t.getState() != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().equals(Concurrency.PermitCell.class.getName())) {
                return true;
            }
        }
        return false;
    }
}
