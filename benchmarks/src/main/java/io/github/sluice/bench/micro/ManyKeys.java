package io.github.sluice.bench.micro;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.caffeine.Bucket4jCaffeine;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Cell;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.limiter.Limiter;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A million IPv4 keys with a Zipf-like access pattern, all present before measuring: Sluice's
 * sharded registry against the same token bucket kept in a Caffeine cache, and against Bucket4j's
 * Caffeine-based proxy manager. Every key has the {@link Configs#KEYED} token bucket, so every
 * request is admitted; what differs is the cost of finding the key's state.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class ManyKeys {

    /** Number of distinct keys. */
    public static final int KEYS = 1_000_000;
    /** Bound given to every structure: above {@link #KEYS}, so nothing is evicted. */
    public static final int BOUND = 2 * KEYS;
    private static final int SEQUENCE = 1 << 22;

    /** The lookup keys and the shared access sequence. */
    @State(Scope.Benchmark)
    public static class Data {
        String[] keys;
        int[] sequence;

        /** Builds a million addresses and four million Zipf(1.0) draws over them. */
        @Setup(Level.Trial)
        public void setUp() {
            keys = KeyPool.addresses(KEYS);
            sequence = KeyPool.zipf(KEYS, 1.0, SEQUENCE, 42);
        }
    }

    /** Each thread walks the sequence from its own random offset. */
    @State(Scope.Thread)
    public static class Cursor {
        int next = ThreadLocalRandom.current().nextInt(SEQUENCE);
        final MutableDecision out = new MutableDecision();

        String key(Data d) {
            return d.keys[d.sequence[next++ & (SEQUENCE - 1)]];
        }
    }

    /** Sluice: the sharded registry with one token-bucket policy. */
    @State(Scope.Benchmark)
    public static class SluiceRegistry {
        KeySpace space;

        /** Inserts every key (each a fresh string, as a request would bring). */
        @Setup(Level.Trial)
        public void setUp() {
            // The bound's worst case (2,000,000 keys of up to 408 bytes) must fit the budget.
            space = ShardedRegistry.builder().maxKeys(BOUND).memoryBudget(1L << 30).build()
                    .keySpace("per-ip", Configs.KEYED.tokenBucket());
            MutableDecision out = new MutableDecision();
            for (int i = 0; i < KEYS; i++) {
                space.acquire(KeyPool.address(i), 1, out);
            }
            check(space.size(), "sluice registry");
        }
    }

    /** The same Sluice limiter per key, kept in a bounded Caffeine cache. */
    @State(Scope.Benchmark)
    public static class CaffeineLimiters {
        Cache<String, Limiter<Cell>> cache;
        final TokenBucket algorithm = Configs.KEYED.tokenBucket();
        final Function<String, Limiter<Cell>> create = k -> Limiter.of(algorithm);

        /** Inserts every key. */
        @Setup(Level.Trial)
        public void setUp() {
            cache = Caffeine.newBuilder().maximumSize(BOUND).build();
            for (int i = 0; i < KEYS; i++) {
                cache.get(KeyPool.address(i), create).tryAcquire();
            }
            cache.cleanUp();
            check(cache.estimatedSize(), "caffeine");
        }
    }

    /** Bucket4j's proxy manager over a bounded Caffeine cache, same bandwidth per key. */
    @State(Scope.Benchmark)
    public static class Bucket4jCaffeineProxies {
        ProxyManager<String> proxies;
        Supplier<BucketConfiguration> configuration;

        /** Inserts every key. */
        @Setup(Level.Trial)
        public void setUp() {
            BucketConfiguration c = Configs.KEYED.bucket4jConfiguration();
            configuration = () -> c;
            proxies = Bucket4jCaffeine.<String>builderFor(Caffeine.newBuilder().maximumSize(BOUND))
                    .expirationAfterWrite(ExpirationAfterWriteStrategy
                            .basedOnTimeForRefillingBucketUpToMax(Duration.ofMinutes(10)))
                    .build();
            for (int i = 0; i < KEYS; i++) {
                proxies.getProxy(KeyPool.address(i), configuration).tryConsume(1);
            }
        }
    }

    private static void check(long size, String who) {
        if (size != KEYS) {
            throw new IllegalStateException(who + " holds " + size + " keys, expected " + KEYS);
        }
    }

    /**
     * @param d keys and sequence
     * @param c this thread's position
     * @param s the registry
     * @return admitted
     */
    @Benchmark
    public boolean sluiceRegistry(Data d, Cursor c, SluiceRegistry s) {
        return s.space.acquire(c.key(d), 1, c.out);
    }

    /**
     * @param d keys and sequence
     * @param c this thread's position
     * @param s the cache
     * @return admitted
     */
    @Benchmark
    public boolean caffeineLimiters(Data d, Cursor c, CaffeineLimiters s) {
        return s.cache.get(c.key(d), s.create).acquire(1, c.out);
    }

    /**
     * @param d keys and sequence
     * @param c this thread's position
     * @param s the proxy manager
     * @return admitted
     */
    @Benchmark
    public boolean bucket4jCaffeine(Data d, Cursor c, Bucket4jCaffeineProxies s) {
        return s.proxies.getProxy(c.key(d), s.configuration).tryConsume(1);
    }
}
