package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisCluster;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Drives the Redis store and the in-memory registry with the same random sequence of
 * acquisitions, releases and clock steps, on the same fake clock (the store's client-clock
 * option), and compares every decision.
 *
 * <p>Clock steps are whole microseconds, so with configurations in whole microseconds both sides
 * compute on the same instants; reset and retry-after may then differ by at most
 * {@code toleranceNanos} (0 when the algorithm's arithmetic is exact in microseconds).
 */
final class Differential implements AutoCloseable {

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final FakeClock clock = new FakeClock();
    private final String prefix = "diff" + INSTANCES.incrementAndGet();
    private final KeyNames names = new KeyNames(prefix, null);
    /** Sends a command to the server, or to the master of its key, for {@link #persistKeys}. */
    private final Function<String[], Object> redis;
    private boolean persist;
    private final RedisStore store;
    private final long toleranceNanos;
    private int runs;
    private int steps = 400;
    private long maxStepMicros;
    private int maxCost = 3;
    private int keys = 3;

    Differential(RedisServer redis, long toleranceNanos) {
        this(redis, toleranceNanos, true);
    }

    /**
     * @param redis the server
     * @param toleranceNanos how far reset and retry-after may differ
     * @param functions whether the store may call the function library ({@code FCALL}), or
     *     calls the script by digest only ({@code EVALSHA})
     */
    Differential(RedisServer redis, long toleranceNanos, boolean functions) {
        this(redis.uri(), toleranceNanos, redis::call, functions);
    }

    /**
     * @param cluster the cluster; commands of {@link #persistKeys} go to the master of their key
     * @param toleranceNanos how far reset and retry-after may differ
     */
    Differential(RedisCluster cluster, long toleranceNanos) {
        this(cluster.uri(), toleranceNanos, args -> cluster.call(cluster.masterOf(args[1]), args), true);
    }

    private Differential(String uri, long toleranceNanos, Function<String[], Object> redis, boolean functions) {
        this.redis = redis;
        // Leases outlive the fake clock's steps: the in-memory concurrency limit has no leases.
        // A prefix of its own: every fake clock starts at the same instant, so a key another
        // differential left in the same server (same policy name, a window still open on that
        // clock) would otherwise be read as this run's state.
        this.store = RedisStore.builder().uri(uri).clientClock(clock).prefix(prefix)
                .commandTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10)).denialCacheSize(0)
                .leaseTimeout(Duration.ofDays(1)).functions(functions).build();
        this.toleranceNanos = toleranceNanos;
    }

    /**
     * Moves the fake clock to an instant (e.g. just before a calendar boundary), if it is later.
     *
     * @param nanos the instant, nanoseconds since the epoch
     */
    Differential startAt(long nanos) {
        clock.set(Math.max(nanos, clock.nanos()));
        return this;
    }

    /** @param micros the largest clock step; default: about two windows of the algorithm */
    Differential maxStep(long micros) {
        this.maxStepMicros = micros;
        return this;
    }

    /** @param cost the largest cost asked for */
    Differential maxCost(int cost) {
        this.maxCost = cost;
        return this;
    }

    /**
     * @param keys how many keys the operations spread over (one: the in-memory registry never
     *     creates a key after the first, so it never sweeps, whatever the clock does)
     */
    Differential keys(int keys) {
        this.keys = keys;
        return this;
    }

    /**
     * Removes each key's TTL after every operation (a single server only). Redis expires keys on
     * its own clock: a key whose state is within a millisecond of fresh (after a refund or an
     * admission near a full bucket) has a TTL of 1 ms, which the wall clock outruns on a loaded
     * machine while the fake clock has moved a few microseconds, so Redis would read a fresh key
     * where memory still has the last microseconds of debt. For algorithms that read a state
     * left behind by time as fresh (the token bucket, GCRA, the policing leaky bucket), a key
     * kept is decided exactly as an expired one, so this removes the race and nothing else; for
     * those three it is always on, whatever this says (see {@link #keptAsExpired}).
     */
    Differential persistKeys(boolean persist) {
        this.persist = persist;
        return this;
    }

    /** @param steps operations per run */
    Differential steps(int steps) {
        this.steps = steps;
        return this;
    }

    /**
     * Runs one random sequence and fails at the first decision that differs, unless the same
     * sequence, run again on fresh keys, decides alike throughout.
     *
     * <p>Why once more: everything here is determined by the seed and the fake clock except one
     * thing, Redis's expiry, which runs on the wall clock. A key within a millisecond of fresh gets
     * a TTL of 1 ms, and a pause of the machine between the script's write and the
     * {@linkplain #persistKeys PERSIST} lets it expire, so Redis reads a fresh key where memory
     * still has the last microseconds of debt. A real difference between the two sides is a
     * function of the seed and reappears in the second run; a lost race does not.
     */
    void run(Algorithm<?> algorithm, long seed) {
        try {
            runOnce(algorithm, seed);
        } catch (AssertionError first) {
            try {
                runOnce(algorithm, seed);
            } catch (AssertionError again) {
                first.addSuppressed(again);
                throw first;
            }
            System.err.println("Differential: " + algorithm + " seed " + seed + " differed once and decided alike"
                    + " when run again (a key expired on Redis's wall clock): " + first.getMessage());
        }
    }

    private void runOnce(Algorithm<?> algorithm, long seed) {
        // A new policy name per run: fresh state on both sides, one store for every run.
        String policy = "p" + (++runs);
        KeySpace mem = ShardedRegistry.builder().clock(clock).build().keySpace(policy, algorithm);
        long step = maxStepMicros > 0 ? maxStepMicros
                : Math.max(1, Math.max(algorithm.windowNanos(), 1_000_000_000L) / 1000 * 2);
        {
            KeySpace red = store.keySpace(policy, algorithm);
            Random random = new Random(seed);
            MutableDecision m = new MutableDecision();
            MutableDecision r = new MutableDecision();
            // Admissions not yet refunded, per key: cost, and each side's decision (its receipt)
            Map<String, List<Object[]>> held = new HashMap<>();
            for (int i = 0; i < steps; i++) {
                String key = "k" + random.nextInt(keys);
                int op = random.nextInt(10);
                String where = algorithm + " seed " + seed + " step " + i;
                List<Object[]> mine = held.computeIfAbsent(key, k -> new ArrayList<>());
                if (op < 6) {
                    long cost = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(maxCost);
                    boolean am = mem.acquire(key, cost, m);
                    boolean ar = red.acquire(key, cost, r);
                    assertFalse(r.degraded(), where + ": Redis did not answer");
                    persist(policy, key, algorithm);
                    compare(where + " acquire(" + key + ", " + cost + ")", m, r);
                    assertEquals(am, ar, where);
                    if (am && cost > 0) {
                        mine.add(new Object[] {cost, new MutableDecision().copyFrom(m),
                                new MutableDecision().copyFrom(r)});
                    }
                } else if (op < 7 && algorithm.concurrency()) {
                    long cost = 1 + random.nextInt(2);
                    mem.release(key, cost);
                    red.release(key, cost);
                } else if (op < 7 && !mine.isEmpty()) {
                    // A refund: mostly of the key's latest admission (another policy refused the
                    // same request), sometimes of an older one, after the state has moved on
                    int j = random.nextInt(3) != 0 ? mine.size() - 1 : random.nextInt(mine.size());
                    Object[] a = mine.remove(j);
                    mem.refund(key, (Long) a[0], (MutableDecision) a[1]);
                    red.refund(key, (Long) a[0], (MutableDecision) a[2]);
                    // A refund is sent without waiting: a peek waits for it (same connection)
                    red.acquire(key, 0, new MutableDecision());
                    persist(policy, key, algorithm);
                } else if (random.nextBoolean()) {
                    clock.advanceNanos(1000L * (1 + random.nextInt(20)));
                } else {
                    clock.advanceNanos(1000L * (1 + (long) (random.nextDouble() * step)));
                }
            }
        }
    }

    private void persist(String policy, String key, Algorithm<?> algorithm) {
        if (persist || keptAsExpired(algorithm)) {
            redis.apply(new String[] {"PERSIST", names.key(policy, key)});
        }
    }

    /**
     * Whether the algorithm decides a key kept past its TTL exactly as an expired one: a state
     * that time has left behind reads as fresh. Their TTLs run to within a millisecond of the
     * state's freshness (7 ms for a leaky bucket of 1000 per 7 s), which the wall clock of a loaded
     * machine outruns while the fake clock moves microseconds; so their keys are always kept.
     */
    private static boolean keptAsExpired(Algorithm<?> algorithm) {
        return algorithm instanceof TokenBucket || algorithm instanceof Gcra || algorithm instanceof LeakyBucket;
    }

    @Override
    public void close() {
        store.close();
    }

    private void compare(String where, MutableDecision mem, MutableDecision red) {
        Decision m = mem.toDecision();
        Decision r = red.toDecision();
        String msg = where + "\n memory: " + m + "\n redis:  " + r;
        assertEquals(m.outcome(), r.outcome(), msg);
        assertEquals(m.limit(), r.limit(), msg);
        assertEquals(m.remaining(), r.remaining(), msg);
        close(m.resetNanos(), r.resetNanos(), msg);
        if (m.retryAfterNanos() == Decision.NEVER || r.retryAfterNanos() == Decision.NEVER) {
            assertEquals(m.retryAfterNanos(), r.retryAfterNanos(), msg);
        } else {
            close(m.retryAfterNanos(), r.retryAfterNanos(), msg);
        }
        close(m.delayNanos(), r.delayNanos(), msg);
    }

    private void close(long expected, long actual, String msg) {
        assertTrue(Math.abs(expected - actual) <= toleranceNanos, msg);
    }
}
