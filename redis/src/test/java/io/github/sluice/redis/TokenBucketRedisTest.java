package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RedisServerExtension.class)
class TokenBucketRedisTest {

    private static final long SECOND = 1_000_000_000L;

    private final FakeClock clock = new FakeClock();
    private final RedisStore store;

    TokenBucketRedisTest(RedisServer redis) {
        store = RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private Decision acquire(KeySpace space, String key, long cost) {
        MutableDecision out = new MutableDecision();
        space.acquire(key, cost, out);
        assertFalse(out.degraded(), "decided by Redis");
        return out.toDecision();
    }

    @Test
    void acquire_freshBucket_startsFullAndDeniesWithRetryAfter() {
        // Given a bucket of 3 tokens refilled at 1 per second
        KeySpace space = store.keySpace("tb", TokenBucket.builder().rate(Rate.perSecond(1)).burst(3).build());

        // When 4 tokens are asked for at the same instant
        Decision first = acquire(space, "k", 1);
        acquire(space, "k", 1);
        Decision third = acquire(space, "k", 1);
        Decision fourth = acquire(space, "k", 1);

        // Then the first 3 pass and the 4th waits one interval
        assertEquals(new Decision(Outcome.ALLOWED, 3, 2, SECOND, 0, 0), first);
        assertEquals(new Decision(Outcome.ALLOWED, 3, 0, 3 * SECOND, 0, 0), third);
        assertEquals(new Decision(Outcome.DENIED, 3, 0, 3 * SECOND, SECOND, 0), fourth);
    }

    @Test
    void acquire_afterRetryAfter_isAdmitted() {
        KeySpace space = store.keySpace("tb", TokenBucket.of(Rate.perSecond(1)));
        acquire(space, "k", 1);
        Decision denied = acquire(space, "k", 1);

        clock.advanceNanos(denied.retryAfterNanos());

        assertTrue(acquire(space, "k", 1).allowed());
    }

    @Test
    void acquire_costAboveBurst_isRefusedForeverWithoutTakingTokens() {
        KeySpace space = store.keySpace("tb", TokenBucket.builder().rate(Rate.perSecond(1)).burst(3).build());

        Decision d = acquire(space, "k", 4);

        assertFalse(d.allowed());
        assertFalse(d.retryable());
        assertTrue(acquire(space, "k", 3).allowed(), "the refusal must not have taken tokens");
    }

    @Test
    void refund_atOnce_neverExceedsCapacity() {
        KeySpace space = store.keySpace("tb", TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build());
        MutableDecision admission = new MutableDecision();
        assertTrue(space.acquire("k", 2, admission));

        space.refund("k", 5, admission);

        assertEquals(2, acquire(space, "k", 0).remaining());
    }

    @Test
    void release_ofARateLimit_givesNothingBack() {
        KeySpace space = store.keySpace("tb", TokenBucket.builder().rate(Rate.perSecond(1)).burst(2).build());
        acquire(space, "k", 2);

        space.release("k", 2);

        assertEquals(0, acquire(space, "k", 0).remaining());
    }

    @Test
    void acquire_keys_areIndependent() {
        KeySpace space = store.keySpace("tb", TokenBucket.of(Rate.perSecond(1)));

        assertTrue(acquire(space, "a", 1).allowed());
        assertTrue(acquire(space, "b", 1).allowed());
        assertFalse(acquire(space, "a", 1).allowed());
    }

    @Test
    void acquire_keyTtl_isTheTimeToFullRestoration(RedisServer redis) {
        // Given a bucket of 10 tokens, one per second
        KeySpace space = store.keySpace("tb", TokenBucket.builder().rate(Rate.perSecond(1)).burst(10).build());

        // When 4 tokens are taken
        Decision d = acquire(space, "k", 4);

        // Then the key lives exactly as long as the bucket takes to refill (4 s)
        assertEquals(4 * SECOND, d.resetNanos());
        @SuppressWarnings("unchecked")
        List<String> keys = (List<String>) redis.call("KEYS", "sluice:tb:*");
        assertEquals(1, keys.size());
        long pttl = (Long) redis.call("PTTL", keys.get(0));
        assertTrue(pttl > 3_900 && pttl <= 4_000, "PTTL " + pttl);
    }

    @Test
    void acquire_peek_doesNotWrite(RedisServer redis) {
        KeySpace space = store.keySpace("tb", TokenBucket.builder().rate(Rate.perSecond(1)).burst(3).build());

        Decision peek = acquire(space, "k", 0);

        assertEquals(new Decision(Outcome.ALLOWED, 3, 3, 0, 0, 0), peek);
        assertEquals(0L, redis.call("DBSIZE"));
    }
}
