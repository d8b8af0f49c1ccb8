package io.github.sluice.bench.redis;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.sluice.bench.micro.Configs;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.store.KeySpace;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * One hot key at one thread, Sluice's {@link RedisStore} and Bucket4j's Lettuce proxy manager in
 * <em>alternating</em> rounds of 2,000 decisions in one JVM on one {@code redis-server}: on a
 * machine whose load changes from second to second, JMH's separate forks measure the two at
 * different moments, while alternating rounds see the same load. Prints each round's ratio and
 * the median. Not a replacement for JMH on a quiet machine; a cross-check on a loaded one.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.sluice.bench.redis.Interleaved [rounds]}.
 */
public final class Interleaved {

    private static final int PER_ROUND = 2_000;
    private static final String HOT = "198.51.100.7";

    private Interleaved() {
    }

    /**
     * @param args optionally the number of rounds (default 20, after 5 of warm-up)
     * @throws Exception if Redis cannot be started
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        Configs config = new Configs(1_000_000, Duration.ofSeconds(1), 1_000_000);
        try (RedisServer server = RedisServer.start();
                RedisStore store = RedisStore.builder().uri(server.uri()).commandTimeout(Duration.ofSeconds(2))
                        .connectTimeout(Duration.ofSeconds(30)).build()) {
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, byte[]> connection =
                    client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE))) {
                KeySpace space = store.keySpace("bench", config.tokenBucket());
                BucketConfiguration c = config.bucket4jConfiguration();
                ProxyManager<String> proxies = Bucket4jLettuce.casBasedBuilder(connection)
                        .expirationAfterWrite(ExpirationAfterWriteStrategy
                                .basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                        .build();
                MutableDecision out = new MutableDecision();
                double[] ratios = new double[rounds];
                for (int r = -5; r < rounds; r++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < PER_ROUND; i++) {
                        space.acquire(HOT, 1, out);
                        if (out.degraded()) {
                            throw new IllegalStateException("a Sluice decision was degraded");
                        }
                    }
                    long t1 = System.nanoTime();
                    for (int i = 0; i < PER_ROUND; i++) {
                        proxies.getProxy(HOT, () -> c).tryConsume(1);
                    }
                    long t2 = System.nanoTime();
                    if (r >= 0) {
                        ratios[r] = (double) (t2 - t1) / (t1 - t0);
                        System.out.printf(Locale.ROOT, "round %2d: Sluice %6.1f us, Bucket4j %6.1f us per decision,"
                                + " Sluice / Bucket4j throughput %.2f%n", r, (t1 - t0) / 1e3 / PER_ROUND,
                                (t2 - t1) / 1e3 / PER_ROUND, ratios[r]);
                    }
                }
                Arrays.sort(ratios);
                System.out.printf(Locale.ROOT, "median Sluice / Bucket4j throughput, one hot key, 1 thread: %.2f"
                        + " (min %.2f, max %.2f)%n", ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
            } finally {
                client.shutdown();
            }
        }
    }
}
