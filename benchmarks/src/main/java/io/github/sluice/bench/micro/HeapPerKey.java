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
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Measures, not estimates, the heap each structure retains per IPv4 key, the key string included:
 * used heap after a full GC with {@link ManyKeys#KEYS} keys inserted, minus the same before, divided
 * by the key count. Run one structure per JVM:
 * {@code java -Xmx3g -cp benchmarks.jar io.github.sluice.bench.micro.HeapPerKey sluice}
 * (or {@code caffeine}, {@code bucket4j}). Prints one line {@code heap-per-key <name> <bytes>}.
 */
public final class HeapPerKey {

    private HeapPerKey() {
    }

    /**
     * @param args the structure: {@code sluice}, {@code caffeine} or {@code bucket4j}
     * @throws IllegalArgumentException for any other name
     */
    public static void main(String[] args) {
        String which = args.length > 0 ? args[0] : "sluice";
        int n = ManyKeys.KEYS;
        long before = usedAfterGc();
        Object structure = switch (which) {
            case "sluice" -> sluice(n);
            case "caffeine" -> caffeine(n);
            case "bucket4j" -> bucket4j(n);
            default -> throw new IllegalArgumentException(
                    "structure must be sluice, caffeine or bucket4j but was " + which);
        };
        long after = usedAfterGc();
        Reference.reachabilityFence(structure);
        System.out.printf(Locale.ROOT, "heap-per-key %s %.1f%n", which, (after - before) / (double) n);
    }

    private static Object sluice(int n) {
        // The bound's worst case (2,000,000 keys of up to 408 bytes) must fit the budget.
        KeySpace space = ShardedRegistry.builder().maxKeys(ManyKeys.BOUND).memoryBudget(1L << 30)
                .build()
                .keySpace("per-ip", Configs.KEYED.tokenBucket());
        MutableDecision out = new MutableDecision();
        for (int i = 0; i < n; i++) {
            space.acquire(KeyPool.address(i), 1, out);
        }
        require(space.size(), n);
        return space;
    }

    private static Object caffeine(int n) {
        TokenBucket algorithm = Configs.KEYED.tokenBucket();
        Cache<String, Limiter<Cell>> cache = Caffeine.newBuilder().maximumSize(ManyKeys.BOUND).build();
        for (int i = 0; i < n; i++) {
            cache.get(KeyPool.address(i), k -> Limiter.of(algorithm)).tryAcquire();
        }
        cache.cleanUp();
        require(cache.estimatedSize(), n);
        return cache;
    }

    private static Object bucket4j(int n) {
        BucketConfiguration c = Configs.KEYED.bucket4jConfiguration();
        Supplier<BucketConfiguration> configuration = () -> c;
        ProxyManager<String> proxies = Bucket4jCaffeine.<String>builderFor(
                        Caffeine.newBuilder().maximumSize(ManyKeys.BOUND))
                .expirationAfterWrite(ExpirationAfterWriteStrategy
                        .basedOnTimeForRefillingBucketUpToMax(Duration.ofMinutes(10)))
                .build();
        for (int i = 0; i < n; i++) {
            proxies.getProxy(KeyPool.address(i), configuration).tryConsume(1);
        }
        return proxies;
    }

    private static void require(long size, int n) {
        if (size != n) {
            throw new IllegalStateException("holds " + size + " keys, expected " + n);
        }
    }

    private static long usedAfterGc() {
        long used = Long.MAX_VALUE;
        // Several collections: the first may leave objects that only a later one frees.
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
