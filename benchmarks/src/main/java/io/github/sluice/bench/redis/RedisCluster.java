package io.github.sluice.bench.redis;

import io.github.sluice.bench.micro.Configs;
import io.github.sluice.bench.micro.KeyPool;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.store.KeySpace;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Sluice's {@link RedisStore} on a Redis Cluster of 1 and of 3 masters (no replicas, started for
 * the trial on free loopback ports): 100,000 keys drawn uniformly, so that the load spreads over
 * the masters, and one hot key, which stays on one master whatever the cluster's size. The same
 * token bucket as {@link RedisStores} (every request admitted); each decision one synchronous call
 * from the benchmark thread.
 *
 * <p>What a cluster buys is capacity: each master is one single-threaded Redis, so throughput
 * grows with the masters when the clients can keep them busy and each master has a core of its
 * own. On a machine with fewer cores than masters plus clients the table shows the client's cost,
 * not the cluster's ceiling (docs/PERFORMANCE.md).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RedisCluster {

    private static final Configs CONFIG = new Configs(1_000_000, Duration.ofSeconds(1), 1_000_000);
    private static final int KEYS = 100_000;
    private static final String HOT = "198.51.100.7";
    private static final String[] POOL = KeyPool.addresses(KEYS);

    /**
     * A cluster and a store connected to it, for one trial. (A state per cluster size rather than
     * a {@code @Param}, so that each size is a benchmark of its own name in the report.)
     */
    public abstract static class Cluster {
        private RedisClusterNodes nodes;
        private RedisStore store;
        KeySpace space;

        abstract int masters();

        /**
         * Starts the cluster and connects the store.
         *
         * @throws IOException if redis-server cannot be started
         * @throws InterruptedException if interrupted while it starts
         */
        @Setup(Level.Trial)
        public void setUp() throws IOException, InterruptedException {
            nodes = RedisClusterNodes.start(masters());
            store = RedisStore.builder().uri(nodes.uri()).commandTimeout(Duration.ofSeconds(2))
                    .connectTimeout(Duration.ofSeconds(30)).build();
            if (store.degraded()) {
                throw new IllegalStateException("the store did not connect to " + nodes.uri());
            }
            space = store.keySpace("bench", CONFIG.tokenBucket());
        }

        /** Closes the store and stops the cluster. */
        @TearDown(Level.Trial)
        public void tearDown() {
            store.close();
            nodes.close();
        }
    }

    /** A cluster of one master (all 16,384 slots on it). */
    @State(Scope.Benchmark)
    public static class OneMaster extends Cluster {
        @Override
        int masters() {
            return 1;
        }
    }

    /** A cluster of three masters. */
    @State(Scope.Benchmark)
    public static class ThreeMasters extends Cluster {
        @Override
        int masters() {
            return 3;
        }
    }

    /** A reused decision holder, and a count of decisions taken without Redis. */
    @State(Scope.Thread)
    public static class Holder {
        final MutableDecision out = new MutableDecision();
        long degraded;

        /** Fails the run if a decision was taken without Redis (timeout, breaker). */
        @TearDown(Level.Iteration)
        public void check() {
            if (degraded > 0) {
                throw new IllegalStateException(degraded + " decisions were degraded");
            }
        }
    }

    private static boolean decide(Cluster c, String key, Holder h) {
        boolean admitted = c.space.acquire(key, 1, h.out);
        if (h.out.degraded()) {
            h.degraded++;
        }
        return admitted;
    }

    /**
     * @param c the cluster
     * @param h this thread's holder
     * @return admitted
     */
    @Benchmark
    public boolean manyKeysOneMaster(OneMaster c, Holder h) {
        return decide(c, POOL[ThreadLocalRandom.current().nextInt(KEYS)], h);
    }

    /**
     * @param c the cluster
     * @param h this thread's holder
     * @return admitted
     */
    @Benchmark
    public boolean manyKeysThreeMasters(ThreeMasters c, Holder h) {
        return decide(c, POOL[ThreadLocalRandom.current().nextInt(KEYS)], h);
    }

    /**
     * @param c the cluster
     * @param h this thread's holder
     * @return admitted
     */
    @Benchmark
    public boolean hotKeyThreeMasters(ThreeMasters c, Holder h) {
        return decide(c, HOT, h);
    }
}
