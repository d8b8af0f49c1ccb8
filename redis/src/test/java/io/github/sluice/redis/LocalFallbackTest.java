package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * While Redis is down, a local fallback for 4 instances admits about a quarter of each limit per
 * instance, so the cluster as a whole stays near the shared limit.
 */
@ExtendWith(RedisServerExtension.class)
class LocalFallbackTest {

    private static final int INSTANCES = 4;

    static Stream<Algorithm<?>> algorithms() {
        return Stream.of(
                TokenBucket.builder().rate(Rate.perSecond(1)).burst(40).build(),
                Gcra.builder().rate(Rate.perSecond(1)).burst(39).build(),
                FixedWindow.of(40, Duration.ofMinutes(1)),
                SlidingWindow.builder().limit(40).window(Duration.ofMinutes(1)).slots(6).build(),
                LeakyBucket.builder().capacity(40).rate(Rate.perSecond(1)).build(),
                SlidingLog.builder().limit(40).window(Duration.ofMinutes(1)).build(),
                ShapingLeakyBucket.builder().rate(Rate.perSecond(1)).slack(20).start(ShapingLeakyBucket.Start.EARNED)
                        .maxDelay(Duration.ofSeconds(19)).build(),
                Concurrency.of(40));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void redisDown_frozenClock_admitsTheInstancesShare(Algorithm<?> algorithm, RedisServer redis)
            throws InterruptedException {
        // Given Redis is down and the clock frozen
        redis.kill();
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clientClock(new FakeClock())
                .failurePolicy(FailurePolicy.localFallback(INSTANCES)).build()) {
            KeySpace space = store.keySpace("p", algorithm);
            MutableDecision out = new MutableDecision();

            // When one key asks for the whole shared limit
            int admitted = 0;
            for (int i = 0; i < algorithm.limit(); i++) {
                admitted += space.acquire("k", 1, out) ? 1 : 0;
                assertTrue(out.degraded());
            }

            // Then this instance admits its share: the smaller limit its decisions announce
            long share = out.limit();
            assertEquals(share, admitted, algorithm.toString());
            assertTrue(share >= 1 && share <= algorithm.limit() / INSTANCES + 1,
                    algorithm + ": share " + share + " of " + algorithm.limit());
        }
    }
}
