package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.FakeRequest;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * Counts stay exact when many threads decide at once: no lost increment, no request counted twice,
 * in-flight never above the limit nor below zero. The clock is frozen; threads are released together.
 */
class EnforcerMetricsConcurrencyTest {

    private static final int THREADS = 16;
    private static final int REQUESTS = 500;

    private final EnforcerFixture f = new EnforcerFixture();

    @Test
    void manyThreadsAtOnce_totalsAreExact() throws Exception {
        // Given a global limit of 1000 per hour, on a frozen clock
        Enforcer e = f.enforcer("global = token-bucket 1000/1h key=global");
        AtomicLong admitted = new AtomicLong();

        // When 16 threads released together send 500 requests each
        race(() -> {
            for (int i = 0; i < REQUESTS; i++) {
                if (e.enforce(FakeRequest.get("/")).admitted()) {
                    admitted.incrementAndGet();
                }
            }
        });

        // Then exactly the limit was allowed and counted, and every request was counted once
        PolicyMetrics m = e.metrics().policy("global");
        assertEquals(1000, admitted.get());
        assertEquals(1000, m.allowed());
        assertEquals(THREADS * REQUESTS - 1000, m.denied());
    }

    @Test
    void manyThreadsHoldingAndReleasingPermits_inFlightStaysWithinTheLimitAndEndsAtZero() throws Exception {
        // Given at most 4 requests in flight
        Enforcer e = f.enforcer("slots = concurrency 4 key=global");
        PolicyMetrics m = e.metrics().policy("slots");
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong worst = new AtomicLong();
        AtomicLong negative = new AtomicLong();
        Thread watcher = new Thread(() -> {
            while (!done.get()) {
                long n = m.inFlight();
                worst.accumulateAndGet(n, Math::max);
                if (n < 0) {
                    negative.incrementAndGet();
                }
            }
        });
        watcher.start();

        // When 16 threads take and give back permits as fast as they can
        race(() -> {
            for (int i = 0; i < REQUESTS; i++) {
                Verdict v = e.enforce(FakeRequest.get("/"));
                v.release();
            }
        });
        done.set(true);
        watcher.join();

        // Then the watcher never saw more than the limit plus the releases then in progress (at
        // most one per thread: a permit back in the store, not yet counted out), never below zero,
        // and nothing is left in flight
        assertTrue(worst.get() <= 4 + THREADS, "in flight was " + worst.get());
        assertEquals(0, negative.get());
        assertEquals(0, m.inFlight());
        assertEquals(m.allowed(), m.released());
        assertEquals(THREADS * REQUESTS, m.allowed() + m.denied());
    }

    @Test
    void countingADecision_allocatesNothing() throws Exception {
        EnforcerMetrics metrics = EnforcerMetrics.builder().build();
        Policy rate = Policy.parse("rate = token-bucket 10/1s key=ip");
        Policy slots = Policy.parse("slots = concurrency 10 key=ip");
        metrics.track(List.of(rate, slots), null);
        MutableDecision allow = new MutableDecision().allow(10, 9, 100_000_000);
        MutableDecision shape = new MutableDecision().shape(10, 9, 100_000_000, 1_000_000);
        MutableDecision deny = new MutableDecision().deny(10, 0, 100_000_000, 100_000_000);
        for (int i = 0; i < 200_000; i++) { // warm up: let the JIT compile the path
            count(metrics, rate, slots, allow, shape, deny);
        }

        long tid = Thread.currentThread().getId();
        long before = allocatedBytes(tid);
        for (int i = 0; i < 100_000; i++) {
            count(metrics, rate, slots, allow, shape, deny);
        }
        long allocated = allocatedBytes(tid) - before;

        // 500,000 events: anything per event would be megabytes; allow for the measurement's own noise
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes for 500,000 events");
        PolicyMetrics r = metrics.policy("rate");
        assertEquals(300_000, r.allowed());
        assertEquals(300_000, r.shaped());
        assertEquals(300_000, r.denied());
        assertEquals(0, metrics.policy("slots").inFlight());
    }

    /** The JDK's per-thread allocation counter, read through JMX (the test runs as a module without jdk.management). */
    private static long allocatedBytes(long tid) throws Exception {
        return (Long) ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("java.lang:type=Threading"),
                "getThreadAllocatedBytes", new Object[] {tid}, new String[] {"long"});
    }

    private static void count(EnforcerMetrics m, Policy rate, Policy slots, MutableDecision allow,
            MutableDecision shape, MutableDecision deny) {
        m.allowed(rate, "192.0.2.1", allow);
        m.shaped(rate, "192.0.2.1", shape);
        m.denied(rate, "192.0.2.1", deny);
        m.allowed(slots, "192.0.2.1", allow);
        m.released(slots, "192.0.2.1", 1);
    }

    /** Runs the task on every thread, all released at once, and waits for them. */
    private static void race(Runnable task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch ready = new CountDownLatch(THREADS);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    task.run();
                    return null;
                }));
            }
            ready.await();
            go.countDown();
            for (Future<?> fut : futures) {
                fut.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
