package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisCluster;
import io.github.sluice.redis.testing.RedisClusterExtension;
import io.github.sluice.store.Claim;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The asynchronous decision on a Redis Cluster: each slot's call goes to its master, replies
 * complete the decision on the client's I/O threads, and a request over several masters is still
 * all or nothing, refunded by receipt.
 */
@ExtendWith(RedisClusterExtension.class)
class AsyncClusterTest {

    private static final KeyNames NAMES = new KeyNames("sluice", null);
    private final FakeClock clock = new FakeClock();

    private RedisStore store(RedisCluster cluster) {
        return RedisStore.builder().uri(cluster.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10)).build();
    }

    private static boolean join(CompletionStage<Boolean> stage) {
        return stage.toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    static Stream<Algorithm<?>> algorithms() {
        return Stream.of(TokenBucket.builder().rate(Rate.of(1, Duration.ofMinutes(10))).burst(3).build(),
                FixedWindow.of(3, Duration.ofHours(1)), Concurrency.of(3));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void acquireAllAsync_onACluster_decidesAsTheSynchronousPath(Algorithm<?> algorithm, RedisCluster cluster) {
        try (RedisStore store = store(cluster)) {
            KeySpace space = store.keySpace("p", algorithm);
            for (int i = 0; i < 5; i++) {
                MutableDecision sync = new MutableDecision();
                MutableDecision async = new MutableDecision();
                boolean a = store.acquireAll(Claim.of(space, "sync-" + algorithm.limit(), 1, sync, null));
                boolean b = join(store.acquireAllAsync(Claim.of(space, "async-" + algorithm.limit(), 1, async, null)));
                assertEquals(a, b, "request " + i);
                assertEquals(sync.remaining(), async.remaining(), "request " + i);
                assertFalse(async.degraded(), async::toString);
            }
        }
    }

    @Test
    void acquireAllAsync_overTwoMasters_deniedByOne_givesBackTheOther(RedisCluster cluster) {
        // Given two client keys whose policies' keys are served by two masters
        String first = "a";
        String second = null;
        for (int i = 0; second == null; i++) {
            String candidate = "b" + i;
            if (cluster.masterOf(NAMES.key("per-key", first)) != cluster.masterOf(NAMES.key("global", candidate))) {
                second = candidate;
            }
        }
        try (RedisStore store = store(cluster)) {
            KeySpace perKey = store.keySpace("per-key", TokenBucket.of(Rate.of(10, Duration.ofMinutes(1))));
            KeySpace global = store.keySpace("global", FixedWindow.of(1, Duration.ofMinutes(1)));
            MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
            assertTrue(join(store.acquireAllAsync(
                    Claim.of(perKey, first, 1, out[0], Claim.of(global, second, 1, out[1], null)))));

            // When the second master's window refuses the next request
            boolean admitted = join(store.acquireAllAsync(
                    Claim.of(perKey, first, 1, out[0], Claim.of(global, second, 1, out[1], null))));

            // Then the first master's token is given back
            assertFalse(admitted);
            String k = first;
            Load.await("the refund", 5_000, () -> {
                MutableDecision peek = new MutableDecision();
                perKey.acquire(k, 0, peek);
                return peek.remaining() == 9;
            });
        }
    }
}
