package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code 7/1m} keeps its rational schedule on Redis, as in memory: a client that asks at every
 * instant it would be admitted (Redis's clock is whole microseconds, the store's client clock
 * here) gets its k-th permit after the initial two at exactly {@code ceil(k x 60 s / 7)}, so
 * every minute holds exactly 7, forever. An interval rounded up to whole microseconds
 * (8,571,429 us) admits the third permit a microsecond late and drifts 3 us a minute.
 */
@ExtendWith(RedisServerExtension.class)
class ExactScheduleRedisTest {

    private static final long MINUTE = 60_000_000_000L;
    private static final int MINUTES = 60;

    /** Buckets that hold the fraction of a token such a client leaves behind (two permits). */
    static Stream<Algorithm<?>> sevenPerMinute() {
        Rate rate = Rate.of(7, Duration.ofMinutes(1));
        return Stream.of(TokenBucket.builder().rate(rate).burst(2).build(),
                Gcra.builder().rate(rate).burst(1).build(),
                LeakyBucket.builder().rate(rate).capacity(2).build());
    }

    @ParameterizedTest
    @MethodSource("sevenPerMinute")
    void sevenPerMinute_anHourOfGreedyRequests_exactlySevenEveryMinute(Algorithm<?> algorithm, RedisServer redis) {
        FakeClock clock = new FakeClock();
        long start = clock.nanos();
        assertEquals(0, start % MINUTE, "the fake clock starts on a whole minute");
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clientClock(clock)
                .commandTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10))
                .denialCacheSize(0).build()) {
            KeySpace red = store.keySpace("seven", algorithm);
            List<Long> admitted = greedy(red, clock);
            FakeClock memClock = new FakeClock(start);
            KeySpace mem = ShardedRegistry.builder().clock(memClock).build().keySpace("seven", algorithm);
            List<Long> inMemory = greedy(mem, memClock);
            for (int i = 0; i < Math.min(inMemory.size(), admitted.size()); i++) {
                assertEquals(inMemory.get(i) - start, admitted.get(i) - start, "admission " + i
                        + " (ns from the start): memory and Redis admit at the same instants");
            }
            assertEquals(inMemory.size(), admitted.size(), "admissions in memory and in Redis");

            // The initial two at once, then the k-th at the first microsecond from k x 60 s / 7
            assertEquals(start, admitted.get(0));
            assertEquals(start, admitted.get(1));
            for (int k = 1; k + 1 < admitted.size(); k++) {
                long exact = k * MINUTE / 7 + (k * MINUTE % 7 == 0 ? 0 : 1);
                long micros = (exact + 999) / 1000 * 1000;
                assertEquals(micros, admitted.get(k + 1) - start, "permit " + k + " after the burst (ns from the start)");
            }
            int[] perMinute = new int[MINUTES];
            for (long t : admitted) {
                perMinute[(int) ((t - start) / MINUTE)]++;
            }
            assertEquals(8, perMinute[0], "the burst of two and six more");
            for (int m = 1; m < MINUTES; m++) {
                assertEquals(7, perMinute[m], "minute " + m);
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void storedInstant_microsecondsAndSevenDigits_readByAnOlderScriptWithinAMicrosecond(RedisServer redis) {
        FakeClock clock = new FakeClock();
        long t0 = clock.nanos() / 1000;
        Algorithm<?> tb = TokenBucket.builder().rate(Rate.of(7, Duration.ofMinutes(1))).burst(2).build();
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10)).build()) {
            KeySpace space = store.keySpace("stored-format", tb);
            MutableDecision d = new MutableDecision();
            assertTrue(space.acquire("c", 2, d));
            List<String> keys = (List<String>) redis.call("KEYS", "*stored-format*");
            assertEquals(1, keys.size(), keys.toString());
            String key = keys.get(0);
            // Empty exactly now: a whole microsecond, a plain integer as before
            assertEquals(Long.toString(t0), redis.call("GET", key));

            // One interval later, rounded up to the microsecond: 3/7 us of credit is left over
            clock.advanceNanos(8_571_429_000L);
            assertTrue(space.acquire("c", 1, d));
            String stored = (String) redis.call("GET", key);
            assertEquals((t0 + 8_571_428) + ".5714285", stored, "t0 + 60 s / 7, 4/7 us into a microsecond");
            // It expires when the bucket is full again: two intervals less 3/7 us, in ms rounded up
            long pttl = (Long) redis.call("PTTL", key);
            assertTrue(pttl <= 17_143 && pttl > 16_000, "PTTL " + pttl);
            // An older script reads it with tonumber: within a microsecond of the instant
            assertTrue(Math.abs(Double.parseDouble(stored) - (t0 + 60_000_000.0 / 7)) < 1, stored);

            // A key an older version wrote (an integer instant) reads as that instant: empty
            // one interval after now, so the next token is one interval away, to the nanosecond
            long now = clock.nanos() / 1000;
            redis.call("SET", key, Long.toString(now + 8_571_429), "PX", "60000");
            assertFalse(space.acquire("c", 1, d));
            assertEquals(8_571_429_000L + 8_571_428_572L, d.toDecision().retryAfterNanos());
        }
    }

    /**
     * Asks at once after each admission and, after a denial, again at its retry-after rounded up
     * to the microsecond, for {@link #MINUTES} minutes; each denial's retry-after must lead to an
     * admission.
     *
     * @return the clock readings of the admissions
     */
    private static List<Long> greedy(KeySpace space, FakeClock clock) {
        long end = clock.nanos() + MINUTES * MINUTE;
        List<Long> admitted = new ArrayList<>();
        MutableDecision d = new MutableDecision();
        boolean retried = false;
        while (clock.nanos() < end) {
            if (space.acquire("client", 1, d)) {
                assertFalse(d.degraded(), "Redis did not answer");
                admitted.add(clock.nanos());
                retried = false;
            } else {
                assertFalse(retried, "denied again at the retry-after of the previous denial: " + d.toDecision());
                long retry = d.toDecision().retryAfterNanos();
                assertTrue(retry > 0, "a denial with a retry-after: " + d.toDecision());
                clock.advanceNanos((retry + 999) / 1000 * 1000);
                retried = true;
            }
        }
        return admitted;
    }
}
