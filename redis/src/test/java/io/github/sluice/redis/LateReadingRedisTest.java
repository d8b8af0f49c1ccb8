package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.CalendarPeriod.Unit;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With the client's clock, a request's reading can be taken before its window's end and reach
 * Redis after it (queued behind others, coalesced, a command that timed out and ran anyway). The
 * attacker's move: fill a window just before its end, then send more requests stamped in it that
 * arrive once Redis would have expired the key. A window's key outlives its window by a grace,
 * so they are counted in their window, which is full, and refused; a window's count never opens
 * again from zero.
 */
@ExtendWith(RedisServerExtension.class)
class LateReadingRedisTest {

    private final FakeClock clock = new FakeClock(); // 2026-01-01T00:00:00Z: a 10 s window starts

    private RedisStore store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .coalescing(false).commandTimeout(Duration.ofSeconds(5)).build();
    }

    private static long pttl(RedisServer redis, String name) {
        List<?> keys = (List<?>) redis.call("KEYS", "*" + name + "*");
        assertEquals(1, keys.size(), "keys: " + keys);
        Object key = keys.get(0);
        return ((Number) redis.call("PTTL", key instanceof byte[] b ? new String(b) : key.toString())).longValue();
    }

    @Test
    void fixedWindow_readingsBeforeTheEnd_reachingRedisAfterIt_stayCountedInTheirWindow(RedisServer redis)
            throws Exception {
        try (RedisStore store = store(redis)) {
            KeySpace perTenSeconds = store.keySpace("late", FixedWindow.of(3, Duration.ofSeconds(10)));
            MutableDecision out = new MutableDecision();
            // Given a window filled 10 ms before its end (by the client's clock)
            clock.advance(Duration.ofMillis(9_990));
            for (int i = 0; i < 3; i++) {
                assertTrue(perTenSeconds.acquire("client-1", 1, out));
            }

            // When requests stamped in that window reach Redis after its end (by Redis's clock:
            // the 10 ms that were left pass in real time, the client's reading stays)
            Thread.sleep(100);
            int late = 0;
            for (int i = 0; i < 5; i++) {
                late += perTenSeconds.acquire("client-1", 1, out) ? 1 : 0;
            }

            // Then they were counted in their full window and refused, the key alive past its end
            assertEquals(0, late, "late requests opened their window again");
            assertTrue(pttl(redis, "late") > 5_000, "the key outlives its window by a grace");

            // And the next window, by the client's clock, starts from zero as before
            clock.advance(Duration.ofMillis(10));
            assertTrue(perTenSeconds.acquire("client-1", 1, out));
            assertEquals(2, out.remaining());
        }
    }

    @Test
    void calendarWindow_lateReading_stayCountedInItsDay(RedisServer redis) throws Exception {
        try (RedisStore store = store(redis)) {
            KeySpace daily = store.keySpace("lateday",
                    FixedWindow.of(2, CalendarPeriod.of(Unit.DAY, ZoneOffset.UTC)));
            MutableDecision out = new MutableDecision();
            clock.advance(Duration.ofHours(24).minusMillis(10)); // 10 ms before the next midnight
            assertTrue(daily.acquire("customer-1", 1, out));
            assertTrue(daily.acquire("customer-1", 1, out));

            Thread.sleep(100);

            assertFalse(daily.acquire("customer-1", 1, out), "a late request reopened its day");
            assertTrue(pttl(redis, "lateday") > 5_000);
        }
    }

    @Test
    void redisTime_noGrace_theKeyEndsWithItsWindow(RedisServer redis) {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).denialCacheSize(0).build()) {
            KeySpace perTenSeconds = store.keySpace("own", FixedWindow.of(3, Duration.ofSeconds(10)));
            assertTrue(perTenSeconds.acquire("client-1", 1, new MutableDecision()));
            // Redis reads its own clock as the script runs: no reading can arrive late
            assertTrue(pttl(redis, "own") <= 10_000);
        }
    }
}
