package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A flood of new keys at the registry's bound, from many threads released together on a frozen
 * clock: every new key is decided by its own algorithm (a fresh key admits a request of cost 1),
 * never refused because the registry is full, and the bound holds.
 */
class NewKeyFloodTest {

    private static final int THREADS = 8;
    private static final int KEYS_PER_THREAD = 25_000;
    private static final int MAX_KEYS = 64;

    static List<Policies> policies() {
        return Policies.all();
    }

    @ParameterizedTest
    @MethodSource("policies")
    void manyThreads_distinctNewKeysAtTheBound_everyOneAdmittedByItsAlgorithm(Policies policy)
            throws Exception {
        // Given a registry bounded at 64 keys in 16 shards, already full
        FakeClock clock = new FakeClock();
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).maxKeys(MAX_KEYS).shards(16)
                .build();
        Algorithm<?> algorithm = policy.algorithm();
        KeySpace space = registry.keySpace("p", algorithm);
        MutableDecision first = new MutableDecision();
        for (int i = 0; i < MAX_KEYS; i++) {
            assertTrue(space.acquire("old-" + i, 1, first));
            if (algorithm.concurrency()) {
                space.release("old-" + i, 1);
            }
        }

        // When 8 threads released together each send one request for 25,000 new keys
        AtomicInteger refused = new AtomicInteger();
        AtomicLong oversize = new AtomicLong();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                MutableDecision out = new MutableDecision();
                start.await();
                for (int i = 0; i < KEYS_PER_THREAD; i++) {
                    String key = "t" + thread + "-" + i;
                    if (!space.acquire(key, 1, out)) {
                        refused.incrementAndGet();
                    } else if (algorithm.concurrency()) {
                        space.release(key, 1);
                    }
                    long size = space.size();
                    if (size > MAX_KEYS) {
                        oversize.accumulateAndGet(size, Math::max);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // Then not one of the 200,000 new keys was refused, and the bound always held
        assertEquals(0, refused.get(), "new keys refused");
        assertEquals(0, oversize.get(), "largest size seen above the bound");
        assertTrue(space.size() <= MAX_KEYS);
    }
}
