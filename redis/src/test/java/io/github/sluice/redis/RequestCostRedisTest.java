package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A cost read from each request, decided by a real Redis: the scripts take the request's own
 * cost, instances share what each request took, a refused cost never reaches Redis, and with
 * costs drawn at random no window admits more than its limit.
 */
@ExtendWith(RedisServerExtension.class)
class RequestCostRedisTest {

    private final FakeClock clock = new FakeClock(60_000_000_000L * 29_000_000L);

    private RedisStore store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).commandTimeout(Duration.ofSeconds(5))
                .build();
    }

    private static Enforcer enforcer(RedisStore store, String... policies) {
        return Enforcer.builder().store(store).listener(EnforcementListener.NONE)
                .policies(String.join("\n", policies)).build();
    }

    private static FakeRequest cost(String value) {
        return FakeRequest.get("/").header("X-Cost", value);
    }

    @Test
    void headerCost_eachRequestTakesItsOwnCost_sharedByTwoInstances(RedisServer redis) {
        String policy = "bulk = fixed-window 100/1d align=first-request key=ip cost=header:X-Cost";
        try (RedisStore s1 = store(redis); RedisStore s2 = store(redis);
                Enforcer a = enforcer(s1, policy); Enforcer b = enforcer(s2, policy)) {
            Verdict first = a.enforce(cost("30"));
            Verdict second = b.enforce(cost("45"));
            Verdict tooMany = a.enforce(cost("26"));
            Verdict rest = b.enforce(cost("25"));

            assertTrue(first.admitted(), first.toString());
            assertFalse(first.degraded(0), "Redis decided");
            assertEquals(70, first.decision(0).remaining());
            assertEquals(25, second.decision(0).remaining(), "instance b saw a's 30");
            assertTrue(tooMany.denied());
            assertEquals(429, tooMany.status());
            assertTrue(tooMany.retryable(0));
            assertTrue(rest.admitted(), "the refused 26 took nothing");
            assertEquals(0, rest.decision(0).remaining());
        }
    }

    @Test
    void refusedCosts_neverReachRedis_andAreRefusedWithoutRetryAfter(RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store,
                "global = fixed-window 1000/1d align=first-request key=global",
                "bulk = fixed-window 100/1d align=first-request key=ip cost=header:X-Cost")) {
            long keysBefore = (Long) redis.call("DBSIZE");
            for (String hostile : new String[] {"0", "-1", "1.5", "101", "9223372036854775807",
                "99999999999999999999", "abc"}) {
                Verdict v = e.enforce(cost(hostile));
                assertTrue(v.denied(), hostile);
                assertEquals(400, v.status(), hostile);
                assertFalse(v.retryable(1), hostile);
            }
            assertEquals(keysBefore, (Long) redis.call("DBSIZE"), "no refused cost wrote a key in Redis");
            Verdict whole = e.enforce(cost("100"));
            assertTrue(whole.admitted(), "the whole limit at once");
            assertEquals(999, whole.decision(0).remaining(), "the global policy counted this request only");
        }
    }

    @Test
    void concurrencyPolicy_headerCost_releasesTheRequestsOwnCost(RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store, "c = concurrency 10 key=ip cost=header:X-Cost")) {
            Verdict six = e.enforce(cost("6"));
            Verdict five = e.enforce(cost("5"));
            six.release(200);
            Verdict again = e.enforce(cost("10"));

            assertTrue(six.admitted());
            assertTrue(five.denied());
            assertTrue(again.admitted(), "the 6 came back, whole");
            again.release(200);
        }
    }

    @Test
    void randomCosts_noWindowAdmitsMoreThanItsLimit(RedisServer redis) {
        SplittableRandom random = new SplittableRandom(26);
        try (RedisStore store = store(redis); Enforcer e = enforcer(store,
                "p = fixed-window 50/1m key=global cost=header:X-Cost")) {
            long window = -1;
            long used = 0;
            for (int i = 0; i < 400; i++) {
                clock.advanceNanos(random.nextLong(1_000_000_000L));
                long w = Math.floorDiv(clock.nanos(), 60_000_000_000L);
                if (w != window) {
                    window = w;
                    used = 0;
                }
                long c = random.nextInt(8) == 0 ? 51 + random.nextInt(100) : 1 + random.nextInt(12);
                boolean expected = c <= 50 && used + c <= 50;

                Verdict v = e.enforce(cost(Long.toString(c)));

                assertEquals(expected, v.admitted(), "request " + i + " cost " + c + " after " + used);
                if (v.admitted()) {
                    used += c;
                }
            }
        }
    }
}
