package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Key names, hashing, TTLs and robustness of the stored state. */
@ExtendWith(RedisServerExtension.class)
class KeyLayoutTest {

    private static final String CLIENT = "203.0.113.7";

    static Stream<Algorithm<?>> algorithms() {
        return Stream.of(
                TokenBucket.builder().rate(Rate.of(1, Duration.ofSeconds(10))).burst(5).build(),
                Gcra.builder().rate(Rate.of(1, Duration.ofSeconds(10))).burst(4).build(),
                FixedWindow.of(5, Duration.ofSeconds(50)),
                SlidingWindow.builder().limit(5).window(Duration.ofSeconds(50)).slots(5).build(),
                LeakyBucket.builder().capacity(5).rate(Rate.of(1, Duration.ofSeconds(10))).build(),
                SlidingLog.builder().limit(5).window(Duration.ofSeconds(50)).build(),
                ShapingLeakyBucket.builder().rate(Rate.of(1, Duration.ofSeconds(10))).slack(4)
                        .start(ShapingLeakyBucket.Start.EARNED).build(),
                SmoothBursty.builder().rate(Rate.of(1, Duration.ofSeconds(10))).maxBurst(Duration.ZERO).build());
    }

    @Test
    void shapingEmptyStart_keyOutlivesItsResetByOneSlackWindow(RedisServer redis) {
        // An idle key holds slack that a missing (new) key lacks: Redis keeps it 40 s longer
        try (RedisStore store = store(redis).build()) {
            MutableDecision out = new MutableDecision();
            long start = System.nanoTime();
            store.keySpace("ttl", ShapingLeakyBucket.builder().rate(Rate.of(1, Duration.ofSeconds(10))).slack(4)
                    .build()).acquire(CLIENT, 1, out);

            long pttl = (Long) redis.call("PTTL", keys(redis).get(0));
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000 + 1;
            assertEquals(50_000_000_000L, out.resetNanos());
            assertTrue(pttl <= 90_000 && pttl >= 90_000 - elapsedMillis, "PTTL " + pttl);
        }
    }

    /** A generous timeout: these tests are about layout, not about a loaded machine's latency. */
    private static RedisStore.Builder store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(5));
    }

    @SuppressWarnings("unchecked")
    private static List<String> keys(RedisServer redis) {
        return (List<String>) redis.call("KEYS", "*");
    }

    @Test
    void keys_arePrefixPolicyAndHashTag_neverTheRawKey(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            // When one client is limited by two policies
            store.keySpace("per-ip", TokenBucket.builder().rate(Rate.perSecond(1)).burst(5).build())
                    .acquire(CLIENT, 1, new MutableDecision());
            store.keySpace("per-ip-daily", FixedWindow.of(100, Duration.ofDays(1)))
                    .acquire(CLIENT, 1, new MutableDecision());

            // Then both keys carry the same hash tag, and the address appears nowhere
            List<String> keys = keys(redis);
            assertEquals(2, keys.size());
            String tag = new KeyNames("sluice", null).hash(CLIENT);
            assertTrue(keys.contains("sluice:per-ip:{" + tag + "}"), keys::toString);
            assertTrue(keys.contains("sluice:per-ip-daily:{" + tag + "}"), keys::toString);
            assertTrue(tag.matches("[A-Za-z0-9_-]{20}"), tag);
            for (String k : keys) {
                assertFalse(k.contains(CLIENT));
                assertFalse(String.valueOf(redis.call("DUMP", k)).contains(CLIENT));
            }
        }
    }

    @Test
    void loginsDifferingOnlyInAnUnpairedSurrogate_eachHaveTheirOwnQuota(RedisServer redis) {
        // getBytes(UTF_8) writes '?' for an unpaired surrogate: hashed that way, these five logins,
        // and their long forms, would share two quotas
        String longer = "u".repeat(200);
        List<String> logins = List.of("bob\uD800", "bob\uDBFF", "bob\uDC00", "bob?", "bob",
                longer + "\uD800", longer + "\uDBFF", longer + "\uDC00", longer + "?");
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("login", FixedWindow.of(1, Duration.ofHours(1)));
            MutableDecision out = new MutableDecision();

            for (String login : logins) {
                assertTrue(space.acquire(login, 1, out), login);
                assertFalse(out.degraded());
            }
            for (String login : logins) {
                assertFalse(space.acquire(login, 1, out), login);
            }
            assertEquals(logins.size(), keys(redis).size());
        }
    }

    @Test
    void keySecretAndPrefix_changeTheKeyName(RedisServer redis) {
        try (RedisStore store = store(redis).prefix("rl")
                .keySecret("0123456789abcdef-secret").build()) {
            store.keySpace("per-ip", TokenBucket.builder().rate(Rate.perSecond(1)).burst(5).build())
                    .acquire(CLIENT, 1, new MutableDecision());

            String keyed = new KeyNames("rl", "0123456789abcdef-secret".getBytes()).hash(CLIENT);
            assertEquals(List.of("rl:per-ip:{" + keyed + "}"), keys(redis));
            assertNotEquals(new KeyNames("rl", null).hash(CLIENT), keyed);
        }
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void everyKey_expiresWhenItsStateIsFreshAgain(Algorithm<?> algorithm, RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            MutableDecision out = new MutableDecision();
            long start = System.nanoTime();
            store.keySpace("ttl", algorithm).acquire(CLIENT, 1, out);

            // The key lives as long as the decision's reset, rounded up to the millisecond, less
            // the time Redis's clock ran between the script and PTTL (bounded by ours, however
            // slow a loaded machine makes that)
            long pttl = (Long) redis.call("PTTL", keys(redis).get(0));
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000 + 1;
            long resetMillis = (out.resetNanos() + 999_999) / 1_000_000;
            assertTrue(pttl > 0 && pttl <= resetMillis && pttl >= resetMillis - elapsedMillis,
                    "PTTL " + pttl + " ms for a reset of " + resetMillis + " ms, " + elapsedMillis + " ms later");
        }
    }

    static Stream<Algorithm<?>> allAlgorithms() {
        return Stream.concat(algorithms(), Stream.of(Concurrency.of(5)));
    }

    @ParameterizedTest
    @MethodSource("allAlgorithms")
    void keyOfAnotherType_isTreatedAsFresh(Algorithm<?> algorithm, RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            // Given the policy's key holds something else (say, another algorithm's state)
            String name = new KeyNames("sluice", null).key("changed", CLIENT);
            redis.call("RPUSH", name, "junk");

            // When a request comes
            MutableDecision out = new MutableDecision();
            KeySpace space = store.keySpace("changed", algorithm);

            // Then it is decided by Redis from a fresh state
            assertTrue(space.acquire(CLIENT, 1, out));
            assertFalse(out.degraded());
            assertEquals(algorithm.limit() - 1, out.remaining());
        }
    }

    @Test
    void scriptCacheFlushed_fallsBackToEvalOnce(RedisServer redis) {
        try (RedisStore store = store(redis).functions(false).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perSecond(1)).burst(5).build());
            MutableDecision out = new MutableDecision();
            space.acquire(CLIENT, 1, out);

            // When Redis forgets its scripts (a restart, a failover)
            redis.call("SCRIPT", "FLUSH");
            long evals = redis.calls("eval");

            // Then the next call is repeated with EVAL, which caches the script again
            assertTrue(space.acquire(CLIENT, 1, out));
            assertFalse(out.degraded());
            assertEquals(3, out.remaining());
            assertEquals(evals + 1, redis.calls("eval"));
            space.acquire(CLIENT, 1, out);
            assertEquals(evals + 1, redis.calls("eval"));
        }
    }

    @Test
    void keySpace_badNameOrUnsupportedParameter_isRefused(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
                    () -> store.keySpace("Per IP", TokenBucket.builder().rate(Rate.perSecond(1)).burst(5).build()));
            assertTrue(name.getMessage().contains("'Per IP'"), name.getMessage());

            IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                    () -> store.keySpace("huge", FixedWindow.of(1L << 55, Duration.ofDays(3650))));
            assertTrue(huge.getMessage().contains("fixed-window limit"), huge.getMessage());
        }
    }

    @Test
    void keySpace_warmUp_isRefusedWithTheReason(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            WarmUp warmUp = WarmUp.builder().rate(Rate.perSecond(10))
                    .warmUp(Duration.ofSeconds(30)).build();

            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.keySpace("warm", warmUp));

            assertTrue(e.getMessage().contains("warm-up"), e.getMessage());
            assertTrue(e.getMessage().contains("not supported by the Redis store"), e.getMessage());
            assertTrue(e.getMessage().contains("2^53"), e.getMessage());
        }
    }

    @Test
    void keySpace_smoothBursty_isSharedThroughRedis(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            SmoothBursty bursty = SmoothBursty.of(Rate.perSecond(5));
            KeySpace space = store.keySpace("bursty", bursty);
            MutableDecision out = new MutableDecision();

            // Guava: the first request of a new key is free, and pushes the next one 200 ms away
            assertTrue(space.acquire("k", 3, out), out.toString());
            assertFalse(space.acquire("k", 1, out));
            assertTrue(out.retryAfterNanos() > 0 && out.retryAfterNanos() <= 600_000_000L, out.toString());
        }
    }
}
