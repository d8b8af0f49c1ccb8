package io.github.sluice.bench.redis;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.sluice.bench.micro.Configs;
import io.github.sluice.bench.micro.KeyPool;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.store.KeySpace;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
 * Sluice's {@link RedisStore} against Bucket4j's Lettuce-based (compare-and-swap) proxy manager
 * (its default, and on the hot key also with {@code Optimizations.batching()}),
 * on the same {@code redis-server} (started for the trial on a free loopback port): one hot key,
 * and 100,000 keys with a Zipf-like pattern. Both use a token bucket of a million permits a second
 * with a burst of a million, so every request is admitted; each decision is one synchronous call
 * from the benchmark thread, as a servlet filter would make it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RedisStores {

    private static final Configs CONFIG = new Configs(1_000_000, Duration.ofSeconds(1), 1_000_000);
    private static final int KEYS = 100_000;
    private static final int SEQUENCE = 1 << 20;
    private static final String HOT = "198.51.100.7";

    private RedisServer server;
    private RedisStore store;
    private KeySpace space;
    private RedisClient client;
    private StatefulRedisConnection<String, byte[]> connection;
    private ProxyManager<String> proxies;
    /** The hot key's bucket with {@code Optimizations.batching()}, built once: batching works across its callers. */
    private BucketProxy batching;
    private Supplier<BucketConfiguration> configuration;
    private String[] keys;
    private int[] sequence;

    /**
     * Starts Redis and connects both clients.
     *
     * @throws IOException if redis-server cannot be started
     * @throws InterruptedException if interrupted while it starts
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        server = RedisServer.start();
        store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(2)).build();
        space = store.keySpace("bench", CONFIG.tokenBucket());
        client = RedisClient.create(server.uri());
        connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
        BucketConfiguration c = CONFIG.bucket4jConfiguration();
        configuration = () -> c;
        proxies = Bucket4jLettuce.casBasedBuilder(connection)
                .expirationAfterWrite(ExpirationAfterWriteStrategy
                        .basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build();
        batching = proxies.builder().withOptimization(Optimizations.batching()).build(HOT + ":batching", configuration);
        keys = KeyPool.addresses(KEYS);
        sequence = KeyPool.zipf(KEYS, 1.0, SEQUENCE, 7);
    }

    /** Closes the clients and stops Redis. */
    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        connection.close();
        client.shutdown();
        server.close();
    }

    /** Per-thread position in the key sequence and a reused decision holder. */
    @State(Scope.Thread)
    public static class Cursor {
        int next = ThreadLocalRandom.current().nextInt(SEQUENCE);
        final MutableDecision out = new MutableDecision();
        long degraded;

        String key(RedisStores s) {
            return s.keys[s.sequence[next++ & (SEQUENCE - 1)]];
        }

        /** Fails the run if a Sluice decision was taken without Redis (timeout, breaker). */
        @TearDown(Level.Iteration)
        public void check() {
            if (degraded > 0) {
                throw new IllegalStateException(degraded + " Sluice decisions were degraded");
            }
        }
    }

    private boolean sluice(String key, Cursor c) {
        boolean admitted = space.acquire(key, 1, c.out);
        if (c.out.degraded()) {
            c.degraded++;
        }
        return admitted;
    }

    /**
     * @param c this thread's holder
     * @return admitted
     */
    @Benchmark
    public boolean sluiceHotKey(Cursor c) {
        return sluice(HOT, c);
    }

    /** @return admitted */
    @Benchmark
    public boolean bucket4jHotKey() {
        return proxies.getProxy(HOT, configuration).tryConsume(1);
    }

    /**
     * Bucket4j's documented configuration for a hot key: concurrent requests on one bucket proxy
     * are combined into one remote command.
     *
     * @return admitted
     */
    @Benchmark
    public boolean bucket4jBatchingHotKey() {
        return batching.tryConsume(1);
    }

    /**
     * @param c this thread's position
     * @return admitted
     */
    @Benchmark
    public boolean sluiceManyKeys(Cursor c) {
        return sluice(c.key(this), c);
    }

    /**
     * @param c this thread's position
     * @return admitted
     */
    @Benchmark
    public boolean bucket4jManyKeys(Cursor c) {
        return proxies.getProxy(c.key(this), configuration).tryConsume(1);
    }
}
