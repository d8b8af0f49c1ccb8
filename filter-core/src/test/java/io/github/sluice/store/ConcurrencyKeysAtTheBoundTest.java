package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.testing.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Keys that hold concurrency permits are never dropped. They must not make the registry refuse new
 * keys while it is far below its bound, however the keys fall into shards.
 */
class ConcurrencyKeysAtTheBoundTest {

    private static final int MAX_KEYS = 64;

    private final FakeClock clock = new FakeClock();
    private final MutableDecision out = new MutableDecision();
    private final List<String> dropped = new ArrayList<>();
    private final KeySpace space = ShardedRegistry.builder().clock(clock).maxKeys(MAX_KEYS).shards(16)
            .listener((policy, key, lossless) -> dropped.add(key)).build()
            .keySpace("inflight", Concurrency.of(1));

    @Test
    void permitHoldersSharingAHashCode_registryAtAQuarterOfItsBound_everyNewKeyAdmitted() {
        // Given 16 keys (a quarter of the bound) that share one String.hashCode, so that any shard
        // chosen from the hash code holds them all
        Collisions keys = new Collisions("tenant-0", 4);

        // When each starts a request and holds its permit
        for (int i = 0; i < 16; i++) {
            assertTrue(space.acquire(keys.get(i), 1, out), "key " + i + " of 16 was refused");
        }

        // Then all were admitted, and plain keys too, up to the bound
        for (int i = 16; i < MAX_KEYS; i++) {
            assertTrue(space.acquire("plain-" + i, 1, out), "key " + i + " was refused");
        }
        assertEquals(MAX_KEYS, space.size());
        assertEquals(List.of(), dropped);
    }

    @Test
    void everyKeyHoldsAPermit_atTheBound_aNewKeyIsRefusedUntilOneEnds() {
        // Given the registry full of keys that each hold their permit
        for (int i = 0; i < MAX_KEYS; i++) {
            assertTrue(space.acquire("k" + i, 1, out));
        }

        // When a new key arrives, it is refused (the gate never opens by forgetting a holder)
        assertFalse(space.acquire("new", 1, out));
        assertEquals(1_000_000_000L, out.retryAfterNanos());
        assertEquals(List.of(), dropped);

        // Then once one request ends, its key makes room without loss and the new key is admitted
        space.release("k37", 1);
        assertTrue(space.acquire("new", 1, out));
        assertEquals(List.of("k37"), dropped);
        assertEquals(MAX_KEYS, space.size());
        for (int i = 0; i < MAX_KEYS; i++) {
            if (i != 37) {
                assertFalse(space.acquire("k" + i, 1, out), "k" + i + " still holds its permit");
            }
        }
    }

    @Test
    void floodOfNewKeysAtTheBound_whileRequestsHoldPermits_neverForgetsAHolder() throws Exception {
        // Given 16 hot keys of at most 2 requests in flight each, in a policy bounded at 64 keys
        KeySpace inflight = ShardedRegistry.builder().clock(clock).maxKeys(MAX_KEYS).shards(16).build()
                .keySpace("inflight", Concurrency.of(2));
        int hot = 16;
        AtomicIntegerArray held = new AtomicIntegerArray(hot);
        AtomicBoolean overAdmitted = new AtomicBoolean();
        AtomicBoolean flooding = new AtomicBoolean(true);
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();

        // When 4 threads start and end requests on the hot keys while 4 others flood new keys
        for (int t = 0; t < threads; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                MutableDecision decision = new MutableDecision();
                Random random = new Random(thread);
                start.await();
                if (thread % 2 == 0) {
                    for (int i = 0; flooding.get() && i < 2_000_000; i++) {
                        String key = "flood-" + thread + "-" + i;
                        if (inflight.acquire(key, 1, decision)) {
                            inflight.release(key, 1);
                        }
                    }
                    return null;
                }
                List<Integer> mine = new ArrayList<>();
                for (int i = 0; i < 100_000; i++) {
                    if (mine.isEmpty() || random.nextBoolean()) {
                        int k = random.nextInt(hot);
                        if (inflight.acquire("hot-" + k, 1, decision)) {
                            // Counted after admission, before release: never above the truth.
                            if (held.incrementAndGet(k) > 2) {
                                overAdmitted.set(true);
                            }
                            mine.add(k);
                        }
                    } else {
                        int k = mine.remove(random.nextInt(mine.size()));
                        held.decrementAndGet(k);
                        inflight.release("hot-" + k, 1);
                    }
                }
                for (int k : mine) {
                    held.decrementAndGet(k);
                    inflight.release("hot-" + k, 1);
                }
                return null;
            }));
        }
        for (int t = 1; t < threads; t += 2) {
            done.get(t).get(120, TimeUnit.SECONDS);
        }
        flooding.set(false);
        for (Future<?> f : done) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // Then no hot key ever had more than 2 requests in flight (a forgotten holder would have let
        // a fresh state admit more), and every hot key is whole again
        assertFalse(overAdmitted.get(), "a hot key admitted more than 2 requests at once");
        for (int k = 0; k < hot; k++) {
            inflight.acquire("hot-" + k, 0, out);
            assertEquals(2, out.remaining(), "hot-" + k);
        }
        assertTrue(inflight.size() <= MAX_KEYS);
    }
}
