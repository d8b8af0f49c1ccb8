package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
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
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.Claim;
import io.github.sluice.store.Decided;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The asynchronous decision of the Redis store decides as the synchronous one does: the same
 * decisions for every algorithm, all or nothing with refunds by receipt, the failure policy on a
 * timeout (decided by the store's timer) and while the breaker is open (at once, on the calling
 * thread), the bounded wait of a concurrency limit, a script cache flushed under it.
 */
@ExtendWith(RedisServerExtension.class)
class AsyncDecisionRedisTest {

    private static final int LIMIT = 5;
    private final FakeClock clock = new FakeClock();

    static Stream<Algorithm<?>> algorithms() {
        Rate slow = Rate.of(1, Duration.ofMinutes(10));
        return Stream.of(
                TokenBucket.builder().rate(slow).burst(LIMIT).build(),
                Gcra.builder().rate(slow).burst(LIMIT - 1).build(),
                FixedWindow.of(LIMIT, Duration.ofHours(1)),
                SlidingWindow.builder().limit(LIMIT).window(Duration.ofHours(1)).slots(6).build(),
                LeakyBucket.builder().capacity(LIMIT).rate(slow).build(),
                SlidingLog.builder().limit(LIMIT).window(Duration.ofHours(1)).build(),
                ShapingLeakyBucket.builder().rate(Rate.of(1, Duration.ofSeconds(1))).slack(LIMIT - 1)
                        .start(ShapingLeakyBucket.Start.EARNED).maxDelay(Duration.ofSeconds(2)).build(),
                SmoothBursty.builder().rate(Rate.of(1, Duration.ofMinutes(10))).maxBurst(Duration.ofMinutes(50)).build(),
                Concurrency.of(LIMIT));
    }

    private RedisStore.Builder store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5));
    }

    private static boolean join(CompletionStage<Boolean> stage) {
        return stage.toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void acquireAllAsync_everyAlgorithm_decidesAsTheSynchronousPath(Algorithm<?> algorithm, RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("p", algorithm);
            for (int i = 0; i < LIMIT + 2; i++) {
                // When the same request is decided for two fresh keys, one each way
                MutableDecision sync = new MutableDecision();
                MutableDecision async = new MutableDecision();
                boolean a = store.acquireAll(Claim.of(space, "sync", 1, sync, null));
                boolean b = join(store.acquireAllAsync(Claim.of(space, "async", 1, async, null)));

                // Then the decisions are the same, field by field
                assertEquals(a, b, "request " + i);
                assertEquals(sync.outcome(), async.outcome(), "request " + i);
                assertEquals(sync.limit(), async.limit(), "request " + i);
                assertEquals(sync.remaining(), async.remaining(), "request " + i);
                assertFalse(async.degraded());
            }
        }
    }

    @Test
    void acquireAllAsync_deniedInAnotherSlot_givesBackTheAdmissionByReceipt(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace perKey = store.keySpace("per-key", TokenBucket.of(Rate.of(10, Duration.ofMinutes(1))));
            KeySpace global = store.keySpace("global", FixedWindow.of(1, Duration.ofMinutes(1)));
            KeyNames names = new KeyNames("sluice", null);
            assertTrue(SlotHash.getSlot(names.key("per-key", "alice")) != SlotHash.getSlot(names.key("global", "all")));
            MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
            assertTrue(join(store.acquireAllAsync(Claim.of(perKey, "alice", 1, out[0], Claim.of(global, "all", 1, out[1], null)))));

            // When the global window refuses the second request
            boolean admitted = join(store.acquireAllAsync(
                    Claim.of(perKey, "alice", 1, out[0], Claim.of(global, "all", 1, out[1], null))));

            // Then the per-key token it took is given back
            assertFalse(admitted);
            assertTrue(out[0].allowed());
            Load.await("the refund", 5_000, () -> {
                MutableDecision peek = new MutableDecision();
                perKey.acquire("alice", 0, peek);
                return peek.remaining() == 9;
            });
        }
    }

    @Test
    void acquireAllAsync_mixedWithALocalStore_inTurnAllOrNothing(RedisServer redis) {
        try (RedisStore store = store(redis).build(); ShardedRegistry local = ShardedRegistry.builder().clock(clock).build()) {
            KeySpace shared = store.keySpace("shared", TokenBucket.of(Rate.of(10, Duration.ofMinutes(1))));
            KeySpace mine = local.keySpace("mine", FixedWindow.of(1, Duration.ofMinutes(1)));
            MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
            assertTrue(join(store.acquireAllAsync(Claim.of(shared, "k", 1, out[0], Claim.of(mine, "k", 1, out[1], null)))));

            boolean admitted = join(store.acquireAllAsync(Claim.of(shared, "k", 1, out[0], Claim.of(mine, "k", 1, out[1], null))));

            assertFalse(admitted);
            Load.await("the refund", 5_000, () -> {
                MutableDecision peek = new MutableDecision();
                shared.acquire("k", 0, peek);
                return peek.remaining() == 9;
            });
        }
    }

    @Test
    void acquireAllAsync_redisPaused_theTimerDecidesByTheFailurePolicy(RedisServer redis) {
        try (RedisStore store = store(redis).commandTimeout(Duration.ofMillis(50))
                .failurePolicy(FailurePolicy.failClosed(503)).failureThreshold(100).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.of(Rate.of(10, Duration.ofMinutes(1))));
            redis.call("CLIENT", "PAUSE", "2000", "ALL");
            MutableDecision out = new MutableDecision();
            AtomicReference<String> completedOn = new AtomicReference<>();

            // When Redis does not answer
            long start = System.nanoTime();
            CompletionStage<Boolean> stage = store.acquireAllAsync(Claim.of(space, "k", 1, out, null));
            boolean admitted = join(stage.whenComplete((ok, t) -> completedOn.set(Thread.currentThread().getName())));
            long tookMillis = (System.nanoTime() - start) / 1_000_000;

            // Then the command timeout's timer decides, by the failure policy, long before Redis answers
            assertFalse(admitted);
            assertTrue(out.degraded());
            assertEquals(503, out.denialStatus());
            assertTrue(tookMillis < 1_500, "took " + tookMillis + " ms");
            assertTrue(completedOn.get().startsWith("sluice-redis-timer-"), completedOn.get());
        } finally {
            redis.call("CLIENT", "UNPAUSE");
        }
    }

    @Test
    void acquireAllAsync_breakerOpen_decidesAtOnceOnTheCallingThread(RedisServer redis) throws Exception {
        try (RedisStore store = store(redis).commandTimeout(Duration.ofMillis(50))
                .failurePolicy(FailurePolicy.failOpen()).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.of(Rate.of(10, Duration.ofMinutes(1))));
            redis.kill();
            Load.await("the breaker to open", 5_000, () -> {
                join(store.acquireAllAsync(Claim.of(space, "k", 1, new MutableDecision(), null)));
                return store.degraded();
            });

            MutableDecision out = new MutableDecision();
            CompletionStage<Boolean> stage = store.acquireAllAsync(Claim.of(space, "k", 1, out, null));

            // Then the shared, completed stage: no future, no timer, no thread hop
            assertSame(Decided.ADMITTED, stage);
            assertTrue(out.degraded());
        }
    }

    @Test
    void acquireAsync_concurrencyMaxWait_admittedWhenAPermitIsReleasedDuringTheWait(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace slots = store.keySpace("slots", Concurrency.builder().maxInFlight(1)
                    .maxWait(Duration.ofSeconds(5)).build());
            MutableDecision held = new MutableDecision();
            assertTrue(slots.acquire("k", 1, held));

            // When a second request finds no permit
            MutableDecision out = new MutableDecision();
            CompletableFuture<Boolean> waiting = slots.acquireAsync("k", Algorithm.NO_PARTITION, 1, out)
                    .toCompletableFuture();
            assertFalse(waiting.isDone(), "decided before the wait");

            // And the first request's permit comes back
            slots.release("k", 1, held.receipt(), false);

            // Then the waiting request gets it, by a poll on the timer
            assertTrue(waiting.orTimeout(10, TimeUnit.SECONDS).join());
            assertTrue(out.allowed());
        }
    }

    @Test
    void acquireAsync_concurrencyMaxWait_deniedOnceTheWaitIsOver(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace slots = store.keySpace("slots", Concurrency.builder().maxInFlight(1)
                    .maxWait(Duration.ofMillis(100)).build());
            assertTrue(slots.acquire("k", 1, new MutableDecision()));

            MutableDecision out = new MutableDecision();
            long start = System.nanoTime();
            boolean admitted = join(slots.acquireAsync("k", Algorithm.NO_PARTITION, 1, out));

            assertFalse(admitted);
            assertFalse(out.allowed());
            assertTrue(System.nanoTime() - start >= 100_000_000L, "gave up before max-wait");
        }
    }

    @Test
    void acquireAllAsync_scriptsFlushed_sendsTheSourceAndDecidesFromRedis(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.of(Rate.of(10, Duration.ofMinutes(1))));
            assertTrue(join(store.acquireAllAsync(Claim.of(space, "k", 1, new MutableDecision(), null))));
            redis.call("SCRIPT", "FLUSH");
            redis.call("FUNCTION", "FLUSH");

            MutableDecision out = new MutableDecision();
            assertTrue(join(store.acquireAllAsync(Claim.of(space, "k", 1, out, null))));

            assertFalse(out.degraded(), "decided by the failure policy: " + out);
            assertEquals(8, out.remaining());
        }
    }

    @Test
    void close_withADecisionWaitingForRedis_decidesItByTheFailurePolicy(RedisServer redis) {
        RedisStore store = store(redis).commandTimeout(Duration.ofSeconds(10)).failurePolicy(FailurePolicy.failOpen()).build();
        try {
            KeySpace space = store.keySpace("p", TokenBucket.of(Rate.of(10, Duration.ofMinutes(1))));
            redis.call("CLIENT", "PAUSE", "3000", "ALL");
            MutableDecision out = new MutableDecision();
            CompletableFuture<Boolean> pending = store.acquireAllAsync(Claim.of(space, "k", 1, out, null)).toCompletableFuture();
            assertFalse(pending.isDone());

            store.close();

            assertTrue(pending.orTimeout(5, TimeUnit.SECONDS).join());
            assertTrue(out.degraded());
        } finally {
            store.close();
            redis.call("CLIENT", "UNPAUSE");
        }
    }
}
