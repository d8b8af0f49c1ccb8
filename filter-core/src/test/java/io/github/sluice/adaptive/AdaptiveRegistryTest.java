package io.github.sluice.adaptive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Adaptive limits through the in-memory registry: samples on release, keys kept, races. */
class AdaptiveRegistryTest {

    private final FakeClock clock = new FakeClock();
    private final MutableDecision out = new MutableDecision();

    @Test
    void releaseThroughTheRegistry_feedsTheSampleMeasuredOnItsClock() {
        KeySpace space = ShardedRegistry.builder().clock(clock).build()
                .keySpace("api", Aimd.builder().min(1).max(100).initial(4).samples(4).backoff(0.5)
                        .latency(Duration.ofMillis(50)).build());
        long[] receipts = new long[4];
        for (int i = 0; i < 4; i++) {
            assertTrue(space.acquire("tenant", 1, out));
            receipts[i] = out.receipt();
        }
        assertFalse(space.acquire("tenant", 1, out));

        clock.advance(Duration.ofMillis(60)); // slower than the latency: drops
        for (long r : receipts) {
            space.release("tenant", 1, r, false);
        }

        space.acquire("tenant", 0, out);
        assertEquals(2, out.limit());
    }

    @Test
    void droppedFlag_throughTheRegistry_cutsTheLimit() {
        KeySpace space = ShardedRegistry.builder().clock(clock).build()
                .keySpace("api", Aimd.builder().min(1).max(100).initial(4).samples(4).backoff(0.5).build());
        long[] receipts = new long[4];
        for (int i = 0; i < 4; i++) {
            space.acquire("tenant", 1, out);
            receipts[i] = out.receipt();
        }
        clock.advance(Duration.ofMillis(1));
        for (int i = 0; i < 4; i++) {
            space.release("tenant", 1, receipts[i], i == 0);
        }

        space.acquire("tenant", 0, out);
        assertEquals(2, out.limit());
    }

    @Test
    void perKey_eachTenantLearnsItsOwnLimit() {
        KeySpace space = ShardedRegistry.builder().clock(clock).build()
                .keySpace("api", Aimd.builder().min(1).max(100).initial(4).samples(4).backoff(0.5).build());
        long[] receipts = new long[4];
        for (int i = 0; i < 4; i++) {
            space.acquire("slow", 1, out);
            receipts[i] = out.receipt();
            space.acquire("fast", 1, null);
        }
        clock.advance(Duration.ofMillis(1));
        for (long r : receipts) {
            space.release("slow", 1, r, true);
        }

        space.acquire("slow", 0, out);
        assertEquals(2, out.limit());
        space.acquire("fast", 0, out);
        assertEquals(4, out.limit());
    }

    @Test
    void keysHoldingPermits_areNeverForgottenByABoundedRegistry() {
        List<String> evicted = new ArrayList<>();
        KeySpace space = ShardedRegistry.builder().clock(clock).maxKeys(64).shards(16)
                .listener((policy, key, lossless) -> evicted.add(key)).build()
                .keySpace("api", Gradient.builder().min(1).max(10).initial(1).build());
        for (int i = 0; i < 64; i++) {
            assertTrue(space.acquire("k" + i, 1, out));
        }

        clock.advance(Duration.ofHours(1));
        assertFalse(space.acquire("new", 1, out), "a full registry of holders refuses a new key");
        for (int i = 0; i < 64; i++) {
            assertFalse(space.acquire("k" + i, 1, out), "k" + i + " still holds its only permit");
        }
        assertEquals(List.of(), evicted);
    }

    @Test
    void manyThreadsReleasedTogether_fixedLimit_neverMoreInFlightThanTheLimit() throws Exception {
        // An adaptive limit whose min and max are equal cannot move: the strictest invariant.
        long limit = 8;
        KeySpace space = ShardedRegistry.builder().clock(clock).build()
                .keySpace("api", Aimd.builder().min(limit).max(limit).initial(limit).samples(1).build());
        AtomicInteger held = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        hammer(space, 0, 2, (admitted) -> {
            int now = held.incrementAndGet();
            most.accumulateAndGet(now, Math::max);
            return () -> held.decrementAndGet();
        });

        assertTrue(most.get() <= limit, "most in flight " + most.get());
        assertTrue(most.get() >= 2, "the threads did race: " + most.get());
        space.acquire("global", 0, out);
        assertEquals(limit, out.remaining(), "every permit came back");
    }

    @Test
    void manyThreadsReleasedTogether_movingLimitAndPartitions_permitsBalanceAndStayBounded() throws Exception {
        // Drops cut the limit while other releases grow it: the total stays within max plus the
        // guaranteed shares, and every permit, per partition too, comes back.
        Aimd aimd = Aimd.builder().min(2).max(16).initial(8).samples(2).backoff(0.5).partition("paid", 0.5)
                .partition("free", 0.25).build();
        KeySpace space = ShardedRegistry.builder().clock(clock).build().keySpace("api", aimd);
        AtomicInteger held = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        hammer(space, 3, 3, (admitted) -> {
            int now = held.incrementAndGet();
            most.accumulateAndGet(now, Math::max);
            return () -> held.decrementAndGet();
        });

        assertTrue(most.get() <= 16 + 8 + 4, "most in flight " + most.get());
        space.acquire("global", 0, out);
        assertEquals(out.limit(), out.remaining(), "every permit came back");
    }

    /** Called after an admission; returns what to run just before its release. */
    private interface Hold {
        Runnable admitted(long receipt);
    }

    /**
     * Eight threads, released together, each start and end requests on one key (of
     * {@code partitions} partitions, 0 for none), holding up to {@code depth} at a time; one
     * request in five is a drop.
     */
    private void hammer(KeySpace space, int partitions, int depth, Hold hold) throws Exception {
        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong admissions = new AtomicLong();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    MutableDecision decision = new MutableDecision();
                    SplittableRandom random = new SplittableRandom(thread);
                    Deque<long[]> mine = new ArrayDeque<>();
                    Deque<Runnable> undo = new ArrayDeque<>();
                    start.await();
                    for (int i = 0; i < 50_000; i++) {
                        if (mine.size() < depth && random.nextBoolean()) {
                            int partition = partitions == 0 ? -1 : random.nextInt(partitions);
                            if (space.acquire("global", partition, 1, decision)) {
                                undo.push(hold.admitted(decision.receipt()));
                                mine.push(new long[] {decision.receipt()});
                                admissions.incrementAndGet();
                            }
                        } else if (!mine.isEmpty()) {
                            undo.pop().run();
                            space.release("global", 1, mine.pop()[0], random.nextInt(5) == 0);
                        }
                    }
                    while (!mine.isEmpty()) {
                        undo.pop().run();
                        space.release("global", 1, mine.pop()[0], false);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(admissions.get() > 1000, "admissions " + admissions.get());
    }
}
