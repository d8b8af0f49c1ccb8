package io.github.sluice.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Shared machinery for the tests of the leaky buckets, the sliding log and warm-up: many threads
 * released together on one key, and the lossless-eviction comparison of two registries.
 */
final class MoreAlgorithmsHarness {

    /** Threads released together in the concurrency tests (the machine may have fewer cores). */
    static final int THREADS = 8;

    private MoreAlgorithmsHarness() {
    }

    /** One attempt of a worker thread; returns what the worker wants to record (or null). */
    @FunctionalInterface
    interface Attempt<T> {
        T run(int thread, int attempt) throws Exception;
    }

    /**
     * Runs {@code threads} workers, released together by a barrier, each making {@code attempts}
     * attempts, and returns every non-null result.
     */
    static <T> List<T> hammer(int threads, int attempts, Attempt<T> attempt) throws Exception {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<T>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    List<T> mine = new ArrayList<>();
                    start.await(10, TimeUnit.SECONDS);
                    for (int i = 0; i < attempts; i++) {
                        T result = attempt.run(thread, i);
                        if (result != null) {
                            mine.add(result);
                        }
                    }
                    return mine;
                }));
            }
            List<T> all = new ArrayList<>();
            for (Future<List<T>> f : futures) {
                all.addAll(f.get(60, TimeUnit.SECONDS));
            }
            return all;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Counts the admissions of {@code threads * attempts} single-permit requests made on one key of
     * a registry whose clock does not move.
     */
    static int admittedThroughRegistry(Algorithm<?> algorithm, int threads, int attempts)
            throws Exception {
        ShardedRegistry registry = ShardedRegistry.builder().clock(new FakeClock()).shards(4).build();
        KeySpace space = registry.keySpace("hot", algorithm);
        return hammer(threads, attempts, (t, i) -> {
            MutableDecision out = new MutableDecision();
            return space.acquire("one-key", 1, out) ? Boolean.TRUE : null;
        }).size();
    }

    /**
     * Drives two registries with the same random requests on a few keys: one sweeps idle keys
     * after every request, the other never drops anything. Their decisions must be identical, and
     * the sweeping one must really have dropped fresh keys, never a key with history.
     *
     * @param maxCost the largest cost drawn (costs are uniform in {@code [0, maxCost]})
     * @param maxStepNanos the largest clock step drawn between requests
     */
    static void assertIdleEvictionIsLossless(Algorithm<?> algorithm, long seed, int operations,
            long maxCost, long maxStepNanos) {
        assertIdleEvictionIsLossless(algorithm, seed, operations, maxCost, maxStepNanos, true);
    }

    /** As above; {@code evicts} says whether idle keys must have been dropped along the way. */
    static void assertIdleEvictionIsLossless(Algorithm<?> algorithm, long seed, int operations,
            long maxCost, long maxStepNanos, boolean evicts) {
        FakeClock clock = new FakeClock();
        AtomicInteger lossless = new AtomicInteger();
        AtomicInteger lossy = new AtomicInteger();
        ShardedRegistry sweeping = ShardedRegistry.builder().clock(clock).shards(2)
                .listener((policy, key, wasFresh) -> (wasFresh ? lossless : lossy).incrementAndGet())
                .build();
        ShardedRegistry keeping = ShardedRegistry.builder().clock(clock).shards(2).build();
        KeySpace a = sweeping.keySpace("p", algorithm);
        KeySpace b = keeping.keySpace("p", algorithm);
        SplittableRandom random = new SplittableRandom(seed);
        MutableDecision da = new MutableDecision();
        MutableDecision db = new MutableDecision();
        for (int i = 0; i < operations; i++) {
            String key = "k" + random.nextInt(6);
            long cost = random.nextLong(maxCost + 1);
            if (random.nextInt(10) == 0) {
                a.release(key, cost);
                b.release(key, cost);
            } else {
                boolean admittedA = a.acquire(key, cost, da);
                boolean admittedB = b.acquire(key, cost, db);
                assertEquals(db.toDecision(), da.toDecision(), "operation " + i + " on " + key);
                assertEquals(admittedB, admittedA);
            }
            sweeping.sweep(8);
            // Mostly short steps, sometimes a long idle period so that keys become fresh.
            long step = random.nextInt(8) == 0 ? random.nextLong(maxStepNanos * 20 + 1)
                    : random.nextLong(maxStepNanos + 1);
            clock.advanceNanos(step);
        }
        assertEquals(evicts, lossless.get() > 0, "fresh keys evicted: " + lossless.get());
        assertEquals(0, lossy.get(), "a key with history was dropped");
    }
}
