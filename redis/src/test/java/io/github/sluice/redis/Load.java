package io.github.sluice.redis;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Steady load on a key space from several threads, recording for every call its latency on the
 * real clock, whether it was degraded, and any exception. Decisions that break the expected rule
 * for degraded decisions are counted as violations.
 */
final class Load implements AutoCloseable {

    private static final Clock REAL = Clock.system();

    private final KeySpace space;
    private final Predicate<MutableDecision> degradedRule;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    final AtomicLong calls = new AtomicLong();
    final AtomicLong degraded = new AtomicLong();
    final AtomicLong authoritative = new AtomicLong();
    final AtomicLong violations = new AtomicLong();
    final AtomicLong maxLatencyNanos = new AtomicLong();
    final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> violationSamples = new ConcurrentLinkedQueue<>();

    /**
     * @param space the key space under load
     * @param threads the number of threads
     * @param degradedRule what every degraded decision must satisfy
     */
    Load(KeySpace space, int threads, Predicate<MutableDecision> degradedRule) {
        this.space = space;
        this.degradedRule = degradedRule;
        for (int i = 0; i < threads; i++) {
            String key = "client-" + i;
            Thread t = new Thread(() -> loop(key), "load-" + i);
            t.setDaemon(true);
            this.threads.add(t);
        }
        for (Thread t : this.threads) {
            t.start();
        }
    }

    private void loop(String key) {
        MutableDecision out = new MutableDecision();
        while (running.get()) {
            long t0 = REAL.nanos();
            try {
                space.acquire(key, 1, out);
                long dt = REAL.nanos() - t0;
                maxLatencyNanos.accumulateAndGet(dt, Math::max);
                calls.incrementAndGet();
                if (out.degraded()) {
                    degraded.incrementAndGet();
                    if (!degradedRule.test(out)) {
                        violations.incrementAndGet();
                        if (violationSamples.size() < 5) {
                            violationSamples.add(out.toString());
                        }
                    }
                } else {
                    authoritative.incrementAndGet();
                }
            } catch (Throwable e) {
                errors.add(e);
            }
            // Pace the load: a degraded decision is instant, and the machine is shared.
            LockSupport.parkNanos(200_000);
        }
    }

    /**
     * Polls until the condition holds.
     *
     * @return the time waited, nanoseconds
     * @throws AssertionError if it does not hold within the timeout
     */
    static long await(String what, long timeoutMillis, BooleanSupplier condition) {
        long start = REAL.nanos();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (REAL.nanos() > deadline) {
                throw new AssertionError("timed out after " + timeoutMillis + " ms waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
        return REAL.nanos() - start;
    }

    /** Stops the threads and waits for them, so that the counters are final. */
    void stop() {
        running.set(false);
        try {
            for (Thread t : threads) {
                t.join(5000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
