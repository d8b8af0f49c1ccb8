package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A denial is cached locally until its retry-after: under a flood on one key, Redis sees the
 * admissions and one denial, counted by Redis itself ({@code INFO commandstats}).
 */
@ExtendWith(RedisServerExtension.class)
class DenialCacheTest {

    private static final int FLOOD = 1000;

    private final FakeClock clock = new FakeClock(60_000_000_000L * 29_000_000L);

    private RedisStore.Builder store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock)
                .commandTimeout(Duration.ofSeconds(5));
    }

    private static long scriptCalls(RedisServer redis) {
        return redis.scriptCalls();
    }

    @Test
    void flood_onOneKey_reachesRedisOnlyUntilTheFirstDenial(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            // Given 5 requests per minute, and a minute that has just begun
            KeySpace space = store.keySpace("login", FixedWindow.of(5, Duration.ofMinutes(1)));
            MutableDecision out = new MutableDecision();
            long callsBefore = scriptCalls(redis);

            // When one key sends 1000 requests at once
            int admitted = 0;
            for (int i = 0; i < FLOOD; i++) {
                if (space.acquire("10.0.0.1", 1, out)) {
                    admitted++;
                } else {
                    assertEquals(60_000_000_000L, out.retryAfterNanos(), "until the window ends");
                    assertFalse(out.degraded());
                }
            }

            // Then 5 pass, and Redis saw 5 admissions and 1 denial
            assertEquals(5, admitted);
            assertEquals(6, scriptCalls(redis) - callsBefore);

            // And once the retry-after has passed, the key is asked about again
            clock.advance(Duration.ofMinutes(1));
            assertTrue(space.acquire("10.0.0.1", 1, out));
            assertEquals(7, scriptCalls(redis) - callsBefore);
        }
    }

    @Test
    void flood_cacheOff_everyRequestReachesRedis(RedisServer redis) {
        try (RedisStore store = store(redis).denialCacheSize(0).build()) {
            KeySpace space = store.keySpace("login", FixedWindow.of(5, Duration.ofMinutes(1)));
            MutableDecision out = new MutableDecision();
            long callsBefore = scriptCalls(redis);

            for (int i = 0; i < 100; i++) {
                space.acquire("10.0.0.1", 1, out);
            }

            assertEquals(100, scriptCalls(redis) - callsBefore);
        }
    }

    @Test
    void cachedDenial_otherKeysAndCosts_stillAskRedis(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("login", FixedWindow.of(2, Duration.ofMinutes(1)));
            MutableDecision out = new MutableDecision();
            space.acquire("a", 2, out);
            assertFalse(space.acquire("a", 1, out));

            // A cheaper request of the denied cost is not the same question, nor is another key
            long callsBefore = scriptCalls(redis);
            assertTrue(space.acquire("b", 2, out));
            assertFalse(space.acquire("a", 2, out));
            assertEquals(2, scriptCalls(redis) - callsBefore);
        }
    }

    @Test
    void keySpace_reboundWithAnotherAlgorithm_forgetsCachedDenials(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            // Given a cached denial under a limit of 5
            KeySpace strict = store.keySpace("login", FixedWindow.of(5, Duration.ofMinutes(1)));
            MutableDecision out = new MutableDecision();
            for (int i = 0; i < 6; i++) {
                strict.acquire("10.0.0.1", 1, out);
            }
            assertFalse(strict.acquire("10.0.0.1", 1, out));

            // When the policy changes to a limit of 10
            KeySpace relaxed = store.keySpace("login", FixedWindow.of(10, Duration.ofMinutes(1)));

            // Then the key is asked about again, keeping its count, and neither key space answers
            // from the old cache
            assertTrue(relaxed.acquire("10.0.0.1", 1, out));
            assertEquals(4, out.remaining());
            long callsBefore = scriptCalls(redis);
            strict.acquire("10.0.0.1", 1, out);
            assertEquals(1, scriptCalls(redis) - callsBefore);
        }
    }
}
