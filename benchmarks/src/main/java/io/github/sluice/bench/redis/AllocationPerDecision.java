package io.github.sluice.bench.redis;

import io.github.sluice.bench.micro.Configs;
import io.github.sluice.bench.micro.KeyPool;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.store.KeySpace;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * Bytes allocated per Redis decision, by every thread of the JVM (the request thread, Lettuce's
 * I/O threads, the store's own), counted exactly by the JVM's per-thread allocation counters over
 * 20,000 sequential decisions after 20,000 of warm-up: one hot key, then 1,000, 10,000 and
 * 1,000,000 keys round-robin (with a million, every decision is on a key never seen before), on
 * one {@code redis-server} and on a cluster of one master. Unlike JMH's {@code -prof gc} at a few
 * hundred decisions a second, the figure does not depend on the machine's load (background work
 * such as a topology refresh is spread over the decisions, and is small next to them here).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.redis.AllocationPerDecision};
 * prints one Markdown table row per setup with the verdict against the target (at most
 * {@value #TARGET_BYTES} B per decision; on one {@code redis-server}, at most
 * {@value #MANY_KEYS_TARGET_BYTES} B at 10,000 and 1,000,000 keys: a decision costs no more for a
 * key that was not seen recently), and exits with 1 if one is missed.
 */
public final class AllocationPerDecision {

    /** The target: bytes allocated per decision, at most. */
    static final long TARGET_BYTES = 1_000;
    /** The target on one {@code redis-server} with 10,000 and more keys: bytes per decision, at most. */
    static final long MANY_KEYS_TARGET_BYTES = 500;
    private static final int[] POOLS = {1, 1_000, 10_000, 1_000_000};

    private static final int WARM_UP = 20_000;
    private static final int DECISIONS = 20_000;

    private AllocationPerDecision() {
    }

    /**
     * @param args none
     * @throws Exception if Redis cannot be started
     */
    public static void main(String[] args) throws Exception {
        boolean met = true;
        try (RedisServer server = RedisServer.start()) {
            met &= measure("redis-server", server.uri());
        }
        try (RedisClusterNodes cluster = RedisClusterNodes.start(1)) {
            met &= measure("cluster", cluster.uri());
        }
        System.exit(met ? 0 : 1);
    }

    private static boolean measure(String setup, String uri) {
        boolean met = true;
        try (RedisStore store = RedisStore.builder().uri(uri).commandTimeout(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofSeconds(30)).build()) {
            KeySpace space = store.keySpace("bench",
                    new Configs(1_000_000, Duration.ofSeconds(1), 1_000_000).tokenBucket());
            String[] all = KeyPool.addresses(POOLS[POOLS.length - 1]);
            for (int pool : POOLS) {
                String[] keys = Arrays.copyOf(all, pool);
                MutableDecision out = new MutableDecision();
                run(space, keys, 0, WARM_UP, out);
                long before = allocated();
                long degraded = run(space, keys, WARM_UP, DECISIONS, out);
                long bytes = (allocated() - before) / DECISIONS;
                if (degraded > 0) {
                    throw new IllegalStateException(degraded + " decisions were degraded on " + uri);
                }
                long target = pool >= 10_000 && setup.equals("redis-server") ? MANY_KEYS_TARGET_BYTES : TARGET_BYTES;
                boolean ok = bytes <= target;
                met &= ok;
                System.out.printf(Locale.ROOT, "| <= %,d B per decision, %s, %s | all threads | %d B | %s |%n",
                        target, setup, pool == 1 ? "one hot key" : String.format(Locale.ROOT, "%,d keys", pool),
                        bytes, ok ? "met" : "missed");
            }
        }
        return met;
    }

    /** Decides keys round-robin, starting at decision {@code from}. */
    private static long run(KeySpace space, String[] keys, int from, int n, MutableDecision out) {
        long degraded = 0;
        for (int i = from; i < from + n; i++) {
            space.acquire(keys[i % keys.length], 1, out);
            degraded += out.degraded() ? 1 : 0;
        }
        return degraded;
    }

    /** @return the bytes every live thread has allocated so far */
    private static long allocated() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long b : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, b);
        }
        return sum;
    }
}
