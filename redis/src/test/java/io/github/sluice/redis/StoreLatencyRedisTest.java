package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.Policy;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.StoreLatency;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Redis store times its round trips per operation ({@link RedisStore#latency()}): every call
 * Redis answered, once, counted by the time the decision returns; never a call Redis did not
 * answer; and an enforcer built with the store hands the histogram to its metrics.
 */
@ExtendWith(RedisServerExtension.class)
class StoreLatencyRedisTest {

    private static final int ACQUIRE = 0;
    private static final int RELEASE = 1;
    private static final int PROBE = 3;

    @Test
    void decisionsAndReleases_areTimedUnderTheirOperation_byTheTimeTheyReturn(RedisServer redis) {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(2)).build()) {
            StoreLatency l = store.latency();
            assertSame(l, store.latency());
            assertEquals(List.of("acquire", "release", "renew", "probe"), l.operations());
            assertEquals("redis", l.store());
            assertTrue(l.count(PROBE) >= 1, "the start-up check's probe was timed: " + l);
            KeySpace window = store.keySpace("window", FixedWindow.of(2, Duration.ofHours(1)));
            MutableDecision out = new MutableDecision();

            // When three decisions are taken (two admitted, one refused, all by Redis)
            assertTrue(window.acquire("198.51.100.7", 1, out));
            assertTrue(window.acquire("198.51.100.7", 1, out));
            assertFalse(window.acquire("198.51.100.7", 1, out));
            assertFalse(out.degraded());

            // Then three acquire round trips are counted, each in a bucket, with their time
            assertEquals(3, l.count(ACQUIRE));
            assertEquals(3, l.countAtMost(ACQUIRE, StoreLatency.bounds().length));
            assertTrue(l.totalNanos(ACQUIRE) > 0, l::toString);
            assertEquals(0, l.count(RELEASE));

            // And a concurrency permit's release is timed as a release when Redis answers it
            KeySpace inflight = store.keySpace("inflight", Concurrency.of(2));
            assertTrue(inflight.acquire("198.51.100.7", 1, out));
            assertEquals(4, l.count(ACQUIRE));
            inflight.release("198.51.100.7", 1);
            Load.await("the release's reply", 5_000, () -> l.count(RELEASE) == 1);
        }
    }

    @Test
    void callsRedisNeverAnswers_areNotTimed(RedisServer redis) throws Exception {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofMillis(200))
                .failurePolicy(FailurePolicy.failOpen()).build()) {
            StoreLatency l = store.latency();
            KeySpace space = store.keySpace("p", FixedWindow.of(100, Duration.ofHours(1)));
            MutableDecision out = new MutableDecision();
            assertTrue(space.acquire("198.51.100.7", 1, out));
            assertEquals(1, l.count(ACQUIRE));

            // When Redis is gone: the decisions are the failure policy's
            redis.kill();
            for (int i = 0; i < 3; i++) {
                space.acquire("198.51.100.7", 1, out);
                assertTrue(out.degraded(), out::toString);
            }

            // Then no failed call was timed as a (fast) round trip
            assertEquals(1, l.count(ACQUIRE), l::toString);
        } finally {
            redis.start();
        }
    }

    @Test
    void enforcerBuiltWithTheStore_handsItsLatencyToItsMetrics(RedisServer redis) {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).name("shared")
                .commandTimeout(Duration.ofSeconds(2)).build()) {
            Enforcer e = Enforcer.builder().store(store).listener(EnforcementListener.NONE)
                    .policy(Policy.parse("per-ip = token-bucket 10/1s key=ip")).build();

            e.enforce(FakeRequest.get("/").peer("192.0.2.1")).release();

            assertSame(store.latency(), e.metrics().storeLatencies().get("shared"));
            assertEquals(1, e.metrics().storeLatencies().get("shared").count(ACQUIRE));
        }
    }
}
