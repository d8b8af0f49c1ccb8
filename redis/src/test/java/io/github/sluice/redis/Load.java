package io.github.sluice.redis;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Steady load on a key space from several threads, recording for every call its latency on the
 * real clock, whether it was degraded, and any exception. Decisions that break the expected rule
 * for degraded decisions are counted as violations.
 *
 * <p>Every call's latency is kept (up to {@value #SAMPLES} per thread) for percentiles; a call
 * still running when the load stops counts with the time it has taken so far, so a call that
 * never returns is not missing from the maximum.
 */
final class Load implements AutoCloseable {

    private static final Clock REAL = Clock.system();
    private static final int SAMPLES = 1 << 16;

    private final KeySpace space;
    private final Predicate<MutableDecision> degradedRule;
    private final long pauseNanos;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final long[][] samples;
    private final AtomicIntegerArray counts;
    /** When each thread's current call started, 0 between calls. */
    private final AtomicLongArray inCallSince;
    private long[] stuck = new long[0];
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
        this(space, threads, degradedRule, 200_000);
    }

    /**
     * @param space the key space under load
     * @param threads the number of threads
     * @param degradedRule what every degraded decision must satisfy
     * @param pauseNanos the pause between two calls of a thread
     */
    Load(KeySpace space, int threads, Predicate<MutableDecision> degradedRule, long pauseNanos) {
        this.space = space;
        this.degradedRule = degradedRule;
        this.pauseNanos = pauseNanos;
        this.samples = new long[threads][SAMPLES];
        this.counts = new AtomicIntegerArray(threads);
        this.inCallSince = new AtomicLongArray(threads);
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = new Thread(() -> loop(index), "load-" + space.name() + "-" + i);
            t.setDaemon(true);
            this.threads.add(t);
        }
        for (Thread t : this.threads) {
            t.start();
        }
    }

    private void loop(int index) {
        String key = "client-" + index;
        MutableDecision out = new MutableDecision();
        long[] mine = samples[index];
        while (running.get()) {
            long t0 = REAL.nanos();
            inCallSince.set(index, t0);
            try {
                space.acquire(key, 1, out);
                long dt = REAL.nanos() - t0;
                inCallSince.set(index, 0);
                int n = counts.get(index);
                if (n < mine.length) {
                    mine[n] = dt;
                    counts.lazySet(index, n + 1);
                }
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
                inCallSince.set(index, 0);
                errors.add(e);
            }
            // Pace the load: a degraded decision is instant, and the machine is shared.
            LockSupport.parkNanos(pauseNanos);
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

    /**
     * Stops the threads and waits for them (5 s at most), so that the counters are final. A call
     * that is still running then (a hung request) is recorded with the time it has taken.
     */
    synchronized void stop() {
        if (!running.getAndSet(false)) {
            return;
        }
        long deadline = REAL.nanos() + 5_000_000_000L;
        try {
            for (Thread t : threads) {
                t.join(Math.max(1, (deadline - REAL.nanos()) / 1_000_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long now = REAL.nanos();
        List<Long> hung = new ArrayList<>();
        for (int i = 0; i < threads.size(); i++) {
            long since = inCallSince.get(i);
            if (since != 0 && threads.get(i).isAlive()) {
                hung.add(now - since);
                maxLatencyNanos.accumulateAndGet(now - since, Math::max);
            }
        }
        stuck = hung.stream().mapToLong(Long::longValue).toArray();
    }

    /** @return the number of calls that had not returned when the load stopped */
    int hung() {
        return stuck.length;
    }

    /** @return the latencies of every recorded call (and of hung calls), after {@link #stop()} */
    Latencies latencies() {
        int total = stuck.length;
        for (int i = 0; i < threads.size(); i++) {
            total += counts.get(i);
        }
        long[] all = new long[total];
        int at = 0;
        for (int i = 0; i < threads.size(); i++) {
            int n = counts.get(i);
            System.arraycopy(samples[i], 0, all, at, n);
            at += n;
        }
        System.arraycopy(stuck, 0, all, at, stuck.length);
        Arrays.sort(all);
        return new Latencies(all);
    }

    @Override
    public void close() {
        stop();
    }

    /** A sorted set of latencies, nanoseconds. */
    record Latencies(long[] sorted) {

        /**
         * @param q a quantile in [0, 1]
         * @return the latency at that quantile (nearest rank), 0 if there is none
         */
        long quantile(double q) {
            if (sorted.length == 0) {
                return 0;
            }
            int rank = (int) Math.ceil(q * sorted.length);
            return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
        }

        long max() {
            return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
        }

        /** @return the number of latencies above the given one */
        long above(long nanos) {
            return Arrays.stream(sorted).filter(v -> v > nanos).count();
        }

        @Override
        public String toString() {
            return String.format("n=%d p50=%.2f ms p99=%.2f ms p100=%.2f ms", sorted.length,
                    quantile(0.5) / 1e6, quantile(0.99) / 1e6, max() / 1e6);
        }
    }
}
