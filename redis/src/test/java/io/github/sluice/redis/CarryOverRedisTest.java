package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.KeyState;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.Inheritance;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Changes of a policy at run time on the Redis store, where each key's state stays in Redis and
 * is read under the new parameters: the attack of issue 25, the promise over random changes, the
 * changes that cannot keep it (refused unless RESET), and the operator's reset and read during a
 * change.
 */
@ExtendWith(RedisServerExtension.class)
class CarryOverRedisTest {

    private final FakeClock clock = new FakeClock(60_000_000_000L * 29_000_000L);
    private final FakeRequest client = FakeRequest.get("/").peer("192.0.2.1");

    private RedisStore store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).commandTimeout(Duration.ofSeconds(5)).build();
    }

    private static Enforcer enforcer(RedisStore store, String policies) {
        return Enforcer.builder().store(store).listener(EnforcementListener.NONE).policies(policies).build();
    }

    private int admit(Enforcer e, int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            if (e.enforce(client).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }

    /** The attack of issue 25 on the shared state: a 5/h limit raised to 6/h and put back while the client is idle. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "fixed-window 5/1h     | fixed-window 6/1h",
        "sliding-window 5/1h   | sliding-window 6/1h",
        "sliding-log 5/1h      | sliding-log 6/1h",
        "token-bucket 5/1h     | token-bucket 5/1h burst=6",
        "gcra 5/1h             | gcra 5/1h burst=5",
        "leaky-bucket 5/1h     | leaky-bucket 5/1h capacity=6",
    })
    void keepConsumed_fivePerHourRaisedToSixAndBackWhileIdle_admitsNothingMore(String five, String six,
            RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store, "p = " + five + " key=ip")) {
            assertEquals(5, admit(e, 6));

            clock.advance(Duration.ofSeconds(10));
            e.reconfigure("p = " + six + " key=ip", Inheritance.KEEP_CONSUMED);
            clock.advance(Duration.ofSeconds(10));
            e.reconfigure("p = " + five + " key=ip", Inheritance.KEEP_CONSUMED);
            clock.advance(Duration.ofSeconds(10));

            assertEquals(0, admit(e, 5));
        }
    }

    /**
     * The promise over random changes of a fixed window's limit (its length kept), with three
     * clients: in one window, a key is admitted at most the limit in force when the window began
     * plus what the raises during the window add.
     */
    @Test
    void randomLimitChanges_noWindowAdmitsMoreThanItsLimitPlusItsRaises(RedisServer redis) {
        long w = Duration.ofMinutes(1).toNanos();
        try (RedisStore store = store(redis)) {
            for (int seed = 0; seed < 12; seed++) {
                SplittableRandom random = new SplittableRandom(seed);
                long limit = 1 + random.nextInt(6);
                String policy = "p" + seed;
                try (Enforcer e = enforcer(store, policy + " = fixed-window " + limit + "/1m key=ip")) {
                    Map<Long, Long> allowance = new HashMap<>();
                    Map<String, Long> admitted = new HashMap<>();
                    allowance.put(clock.nanos() / w, limit);
                    for (int step = 0; step < 150; step++) {
                        int roll = random.nextInt(10);
                        long slot = clock.nanos() / w;
                        if (roll == 0) {
                            long next = 1 + random.nextInt(6);
                            e.reconfigure(policy + " = fixed-window " + next + "/1m key=ip", Inheritance.KEEP_CONSUMED);
                            allowance.merge(slot, Math.max(0, next - limit), Long::sum);
                            limit = next;
                        } else if (roll < 4) {
                            clock.advanceNanos(random.nextLong(1, w / 2));
                            allowance.putIfAbsent(clock.nanos() / w, limit);
                        } else {
                            String peer = "192.0.2." + random.nextInt(3);
                            if (e.enforce(FakeRequest.get("/").peer(peer)).admitted()) {
                                long n = admitted.merge(peer + "@" + slot, 1L, Long::sum);
                                assertTrue(n <= allowance.get(slot), "seed " + seed + ": " + n + " admitted in window "
                                        + slot + " whose limit and raises allow " + allowance.get(slot));
                            }
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "token-bucket 5/1h           | token-bucket 6/1h           | its rate",
        "gcra 5/1h                   | gcra 10/1h burst=4          | its rate",
        "fixed-window 5/1h           | fixed-window 5/1m           | its window",
        "fixed-window 5/1h           | token-bucket 5/1h           | its algorithm, from fixed-window to token-bucket",
        "sliding-window 5/1h slots=4 | sliding-window 5/1h slots=6 | its slots",
    })
    void keepConsumed_changeThatTheSharedStateCannotCarry_isRefusedNamingIt_andResetAppliesIt(String from, String to,
            String what, RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store, "p = " + from + " key=ip")) {
            assertEquals(5, admit(e, 6));

            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> e.reconfigure("p = " + to + " key=ip", Inheritance.KEEP_CONSUMED));

            assertTrue(refused.getMessage().contains("policy 'p'") && refused.getMessage().contains(what)
                    && refused.getMessage().contains("Inheritance.RESET"), refused.getMessage());
            assertEquals(0, admit(e, 1), "the policy in force stays");
            e.reconfigure("p = " + to + " key=ip", Inheritance.RESET);
            assertTrue(e.policies().get(0).algorithm().toString().startsWith(to.substring(0, to.indexOf(' '))));
        }
    }

    @Test
    void resetAndInspect_duringAChange_work_andInspectCreatesNoKey(RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store, "p = fixed-window 5/1h key=ip")) {
            assertEquals(5, admit(e, 6));
            e.reconfigure("p = fixed-window 6/1h key=ip", Inheritance.KEEP_CONSUMED);
            String stranger = "sluice:p:{" + new KeyNames("sluice", null).hash("198.51.100.7") + "}";

            KeyState state = e.inspect("192.0.2.1", "p");
            KeyState fresh = e.inspect("198.51.100.7", "p");
            List<String> reset = e.reset("192.0.2.1");

            assertEquals(6, state.limit());
            assertEquals(1, state.remaining());
            assertEquals(6, fresh.remaining());
            assertFalse(((Number) redis.call("EXISTS", stranger)).longValue() == 1, "an inspection wrote " + stranger);
            assertEquals(List.of("p"), reset);
            assertEquals(6, admit(e, 7), "the client is admitted after the reset");
        }
    }
}
