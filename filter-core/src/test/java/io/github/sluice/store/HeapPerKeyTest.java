package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bytes per key that the memory budget relies on are measured, not estimated: used heap after
 * full collections, with many keys held, minus the same before, divided by the number of keys.
 *
 * <p>Tolerances. An algorithm's cells, whose layout is exact: 2 bytes per key. The registry: its
 * worst case must cover the measurement and exceed it by at most 40 bytes, the gap between a
 * worst-case entry and an ordinary one (a tree node of 48 bytes against a plain node of 32, plus
 * its share of a tree bin; a map table between 5 and 16 bytes per key). Both allow 2% more for the
 * collector's own waste, which shows with large cells (the unused ends of G1's regions and of its
 * compaction workers' last regions: about 1% for 8 KB cells).
 */
class HeapPerKeyTest {

    private static final long CELL_HEAP = 16L << 20;
    private static final long REGISTRY_HEAP = 64L << 20;
    private static final int REGISTRY_KEYS = 1 << 15;
    private static final long GAP = 40;

    static List<Algorithm<?>> algorithms() {
        Duration minute = Duration.ofMinutes(1);
        return List.of(
                TokenBucket.of(Rate.of(10, minute)),
                Gcra.of(Rate.of(10, minute)),
                FixedWindow.of(10, minute),
                FixedWindow.builder().limit(10).window(minute)
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                SlidingWindow.of(10, minute),
                SlidingWindow.builder().limit(10).window(minute).slots(100).build(),
                SlidingLog.builder().limit(10).window(minute).build(),
                SlidingLog.builder().limit(1000).window(minute).build(),
                LeakyBucket.builder().capacity(10).rate(Rate.of(10, minute)).build(),
                ShapingLeakyBucket.of(Rate.of(10, minute)),
                WarmUp.of(Rate.of(10, minute), minute),
                SmoothBursty.of(Rate.of(10, minute)),
                Concurrency.of(10));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void bytesPerKey_matchesTheMeasuredHeapOfItsCells(Algorithm<?> algorithm) {
        // Given as many used cells as fill about 16 MB, each having admitted one request
        int n = (int) Math.max(2_000, CELL_HEAP / algorithm.bytesPerKey());
        long now = new FakeClock().nanos();

        // When their retained heap is measured (the array that holds them exists before), three
        // times with fresh cells: the median, as another thread's allocation between two
        // collections can move one measurement by a few bytes per cell
        MutableDecision out = new MutableDecision();
        double[] measurements = new double[3];
        for (int m = 0; m < measurements.length; m++) {
            Object[] cells = new Object[n];
            measurements[m] = perKey(n, () -> {
                for (int i = 0; i < n; i++) {
                    cells[i] = used(algorithm, now, out);
                }
                return cells;
            });
        }
        java.util.Arrays.sort(measurements);
        double measured = measurements[1];

        // Then it is the algorithm's figure
        long expected = algorithm.bytesPerKey();
        System.out.printf(java.util.Locale.ROOT, "cell %s: measured %.1f (of %s), bytesPerKey %d%n", algorithm, measured,
                java.util.Arrays.toString(measurements), expected);
        double tolerance = Math.max(2, expected / 50.0);
        assertTrue(Math.abs(measured - expected) <= tolerance,
                () -> algorithm + ": measured " + measured + " bytes per cell, bytesPerKey() says "
                        + expected);
    }

    private static <S extends Cell> S used(Algorithm<S> algorithm, long now, MutableDecision out) {
        S cell = algorithm.newCell(now);
        algorithm.acquire(cell, now, 1, out);
        return cell;
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void registryWorstCase_coversAFullPolicyOfLongestKeys(Algorithm<?> algorithm) {
        // Given keys of the longest length, stored as UTF-16
        assertRegistryWorstCase(algorithm, i -> {
            String digits = Integer.toString(i);
            return "\u0100" + "k".repeat(127 - digits.length()) + digits;
        });
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void registryWorstCase_coversKeysThatAllShareOneHashCode(Algorithm<?> algorithm) {
        // Given keys of the longest length that all share one String.hashCode, so that the map keeps
        // them in one tree bin, in tree nodes
        Collisions collisions = new Collisions("victim", 60);
        assertRegistryWorstCase(algorithm, i -> "\u0100" + collisions.get(i));
    }

    private static void assertRegistryWorstCase(Algorithm<?> algorithm, IntFunction<String> key) {
        ShardedRegistry probe = ShardedRegistry.builder().maxKeyLength(128).build();
        int n = (int) Math.min(REGISTRY_KEYS, REGISTRY_HEAP / probe.bytesPerKey(algorithm));
        ShardedRegistry registry = ShardedRegistry.builder().clock(new FakeClock())
                .maxKeys(n).memoryBudget(Long.MAX_VALUE).maxKeyLength(128).shards(16).build();
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = key.apply(i);
            assertTrue(keys[i].length() == 128, keys[i]);
        }

        // When a policy holds the bound of such keys, each having made one request
        double measured = perKey(n, () -> {
            KeySpace space = registry.keySpace("p", algorithm);
            MutableDecision out = new MutableDecision();
            for (int i = 0; i < n; i++) {
                // A fresh copy: the test's own array of keys is not part of the registry's cost.
                space.acquire(new String(keys[i].toCharArray()), 1, out);
            }
            assertTrue(space.size() == n, () -> "holds " + space.size());
            return space;
        });

        // Then the registry's worst case covers what it retains, and is not far above it
        long worst = registry.bytesPerKey(algorithm);
        System.out.printf(java.util.Locale.ROOT, "registry %s (%d keys): measured %.1f, worst %d%n", algorithm, n, measured, worst);
        double waste = worst / 50.0;
        assertTrue(measured <= worst + waste && measured >= worst - GAP - waste,
                () -> algorithm + ": measured " + measured + " bytes per key, worst case " + worst);
    }

    /** The heap retained by what {@code build} returns, per key. */
    private static double perKey(int n, Supplier<Object> build) {
        long before = usedAfterGc();
        Object held = build.get();
        long after = usedAfterGc();
        Reference.reachabilityFence(held);
        return (after - before) / (double) n;
    }

    private static long usedAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        // Several collections: the first may leave objects that only a later one frees.
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }
}
