package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.KeyState;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An operator reads a key's state in Redis without consuming, and resets it: the Redis key is
 * deleted, and this instance's cached denial no longer answers.
 */
@ExtendWith(RedisServerExtension.class)
class ResetAndInspectRedisTest {

    private final FakeClock clock = new FakeClock(60_000_000_000L * 29_000_000L);

    private Enforcer enforcer(RedisStore store) {
        return Enforcer.builder().store(store).listener(EnforcementListener.NONE)
                .policies("login = fixed-window 2/1m key=ip\ninflight = concurrency 3 key=ip").build();
    }

    private static boolean exists(RedisServer redis, String key) {
        return ((Number) redis.call("EXISTS", key)).longValue() == 1;
    }

    @Test
    void reset_spentKey_isAdmittedAgain_despiteTheCachedDenial(RedisServer redis) {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clientClock(clock)
                .commandTimeout(Duration.ofSeconds(5)).build(); Enforcer e = enforcer(store)) {
            // Given a key that spent its quota and was denied (the denial is now cached)
            FakeRequest r = FakeRequest.get("/login").peer("198.51.100.7");
            e.enforce(r).release();
            e.enforce(r).release();
            assertTrue(e.enforce(r).denied());
            String redisKey = "sluice:login:{" + new io.github.sluice.redis.internal.KeyNames("sluice", null)
                    .hash("198.51.100.7") + "}";
            assertTrue(exists(redis, redisKey), redisKey);

            // When an operator reads it, twice, and then resets it
            KeyState before = e.inspect("198.51.100.7", "login");
            KeyState again = e.inspect("198.51.100.7", "login");
            List<String> reset = e.reset("198.51.100.7");

            // Then reading consumed nothing, the Redis key is gone, and the next request passes
            assertEquals(new KeyState("login", "fixed-window", false, 2, 0, 60), before);
            assertEquals(before, again);
            assertEquals(List.of("login"), reset);
            assertFalse(exists(redis, redisKey));
            assertEquals(2, e.inspect("198.51.100.7", "login").remaining());
            assertTrue(e.enforce(r).admitted());
            assertFalse(e.reset("203.0.113.9", "login"), "a key never seen has nothing to reset");
        }
    }

    @Test
    void reset_concurrencyKeyWithRequestsInFlight_keepsThemCounted_andTheirReleasesComeBackOnce(RedisServer redis) {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).clientClock(clock)
                .commandTimeout(Duration.ofSeconds(5)).build(); Enforcer e = enforcer(store)) {
            FakeRequest r = FakeRequest.get("/x").peer("198.51.100.8");
            var first = e.enforce(r);
            var second = e.enforce(r);

            assertEquals(List.of("login"), e.reset("198.51.100.8"));
            assertEquals(2, e.inspect("198.51.100.8", "inflight").inFlight());

            first.release();
            second.release();
            long deadline = io.github.sluice.core.Clock.system().nanos() + Duration.ofSeconds(10).toNanos();
            while (e.inspect("198.51.100.8", "inflight").inFlight() != 0 && io.github.sluice.core.Clock.system().nanos() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(0, e.inspect("198.51.100.8", "inflight").inFlight());
        }
    }
}
