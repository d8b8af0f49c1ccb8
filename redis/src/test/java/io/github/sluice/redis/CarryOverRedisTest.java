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
        "token-bucket 5/1h           | token-bucket 10/1h burst=5  | its rate, from 5/1h to 10/1h, while the time its"
                + " bucket takes to fill shrinks from 1h to 30m",
        "token-bucket 10/1h burst=5  | token-bucket 5/1h           | its rate, from 10/1h to 5/1h, while the time its"
                + " bucket takes to fill grows from 30m to 1h",
        "gcra 10/1h burst=4          | gcra 5/1h burst=4           | its rate, from 10/1h to 5/1h, while the time a"
                + " full burst takes to earn back grows from 30m to 1h",
        "leaky-bucket 10/1h capacity=5 | leaky-bucket 5/1h capacity=5 | its rate, from 10/1h to 5/1h, while the time"
                + " its bucket takes to drain grows from 30m to 1h",
        "sliding-log 5/1h            | sliding-log 5/30m           | its window, from 1h to 30m",
        "sliding-log 5/30m           | sliding-log 5/1h            | its window, from 30m to 1h",
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

    /**
     * The case that the first refusal rule broke: the limit "N/period" of a token bucket is both
     * its burst and its rate, so doubling it doubles both, and the bucket still fills in a minute.
     * A client that had refilled 25 tokens of 100 is left 50 of 200 (15 s at the new rate), never
     * more than its 25 plus the 100 of the raise.
     */
    @Test
    void tokenBucket_100PerMinuteRaisedTo200PerMinute_isApplied_andTheClientGetsNoMoreThanTheRaise(RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store, "p = token-bucket 100/1m key=ip")) {
            assertEquals(100, admit(e, 101));
            clock.advance(Duration.ofSeconds(15));
            long before = e.inspect("192.0.2.1", "p").remaining();

            e.reconfigure("p = token-bucket 200/1m key=ip", Inheritance.KEEP_CONSUMED);

            assertEquals(25, before);
            assertEquals(200, e.inspect("192.0.2.1", "p").limit());
            assertEquals(50, e.inspect("192.0.2.1", "p").remaining());
            assertEquals(50, admit(e, 200), "no more than the 25 it had plus the raise of 100");
            clock.advance(Duration.ofMillis(300));
            assertEquals(1, admit(e, 2), "refilled at the new rate");
        }
    }

    /**
     * Lowering a token bucket's rate during an attack applies at once: the attacker, refused and so
     * never written since, refills at the new rate only, including past the instant its key would
     * have been full under the old rate (when a key expires). Keeping the burst at the lower rate
     * would make the bucket take longer to fill than the key lives, and is refused.
     */
    @Test
    void tokenBucket_rateLoweredDuringAnAttack_isApplied_andTheAttackerRefillsAtTheNewRateOnly(RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store, "p = token-bucket 100/1m key=ip")) {
            assertEquals(100, admit(e, 101));
            clock.advance(Duration.ofSeconds(6));
            assertThrows(IllegalArgumentException.class,
                    () -> e.reconfigure("p = token-bucket 10/1m burst=100 key=ip", Inheritance.KEEP_CONSUMED));

            e.reconfigure("p = token-bucket 10/1m key=ip", Inheritance.KEEP_CONSUMED);

            assertEquals(1, admit(e, 100), "the 6 s since the bucket was empty read at 10/1m: one token, not ten");
            assertEquals(0, admit(e, 1000));
            clock.advance(Duration.ofSeconds(5));
            assertEquals(0, admit(e, 1000));
            clock.advance(Duration.ofSeconds(55));
            assertEquals(10, admit(e, 1000), "a full bucket of the new burst");
        }
    }

    /**
     * A GCRA key's state is the time it owes: at a lower rate the same time is fewer permits owed.
     * The change is refused, the message names the policy, what changes, why and how to apply it.
     */
    @Test
    void gcra_rateLoweredAtTheSameBurst_isRefusedNamingTheRateAndWhy(RedisServer redis) {
        try (RedisStore store = store(redis); Enforcer e = enforcer(store, "p = gcra 100/1m burst=99 key=ip")) {
            assertEquals(100, admit(e, 101));

            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> e.reconfigure("p = gcra 50/1m burst=99 key=ip", Inheritance.KEEP_CONSUMED));

            assertEquals("policy 'p': the Redis store reads each key's state as it is under the new parameters, and"
                    + " this change changes its rate, from 100/1m to 50/1m, while the time a full burst takes to earn"
                    + " back grows from 1m to 2m: a key's state is the instant it is owed until, and the slower rate"
                    + " reads that time as fewer permits owed, leaving more than the change raises; it would break"
                    + " what KEEP_CONSUMED promises (no key left more than it had plus what the change raises). Apply"
                    + " it with Inheritance.RESET (config-reload=reset), or give the policy a new name (see"
                    + " docs/redis.md, \"Policy changes\")", refused.getMessage());
            assertEquals(0, admit(e, 1), "the policy in force stays");
            e.reconfigure("p = gcra 50/1m burst=49 key=ip", Inheritance.KEEP_CONSUMED);
            assertEquals(0, admit(e, 1), "a lower rate whose burst takes no longer to earn back is applied");
        }
    }

    /**
     * The model check of every rule: random changes of the rate (permits and period) and of the
     * burst, capacity or window, both ways, mixed with requests of two clients and idle stretches
     * from nothing to minutes. At every change, it is refused exactly when the rule of docs/redis.md
     * says so (computed here from the nominal rates), and when it is applied each client is left,
     * read through inspect, at most what it had just before plus what the change raises. After it,
     * a rate algorithm's client never reads more than that plus what the new rate refilled since,
     * less what it was admitted, up to the new limit: no key expires into more than the new
     * parameters give back. The fake clock does not move Redis's, so the test expires a key itself
     * when the clock passes the TTL its last write set (read right after it, plus a margin for
     * the real time between the two), as Redis would.
     */
    @ParameterizedTest
    @CsvSource({"token-bucket", "gcra", "leaky-bucket", "sliding-log"})
    void randomChanges_areRefusedExactlyByTheRule_andAppliedOnesLeaveNoMoreThanBeforePlusTheRaise(String kind,
            RedisServer redis) {
        long[] periods = {30, 60, 120};
        String[] peers = {"192.0.2.1", "192.0.2.2"};
        int applied = 0;
        int refused = 0;
        int consumed = 0;
        int bounded = 0;
        int expired = 0;
        try (RedisStore store = store(redis)) {
            for (int seed = 0; seed < 12; seed++) {
                SplittableRandom random = new SplittableRandom(seed * 31L + kind.hashCode());
                String policy = "m" + seed + "-" + kind;
                long[] p = {1 + random.nextInt(12), periods[random.nextInt(3)], 1 + random.nextInt(12)};
                // Per client, since the last applied change: an upper bound of what it may have left (real)
                double[] bound = {Double.NaN, Double.NaN};
                long[] expiry = {Long.MAX_VALUE, Long.MAX_VALUE};
                try (Enforcer e = enforcer(store, policy + " = " + spec(kind, p) + " key=ip")) {
                    for (int step = 0; step < 150; step++) {
                        for (int i = 0; i < peers.length; i++) {
                            if (clock.nanos() >= expiry[i]) {
                                redis.call("DEL", key(policy, peers[i]));
                                expiry[i] = Long.MAX_VALUE;
                            }
                        }
                        int roll = random.nextInt(10);
                        String what = "seed " + seed + " step " + step + ": ";
                        if (roll < 2) {
                            long[] q = {1 + random.nextInt(12), periods[random.nextInt(3)], 1 + random.nextInt(12)};
                            long[] before = new long[peers.length];
                            for (int i = 0; i < peers.length; i++) {
                                before[i] = e.inspect(peers[i], policy).remaining();
                                consumed += before[i] < limit(kind, p) ? 1 : 0;
                            }
                            boolean safe = safe(kind, p, q);
                            what += spec(kind, p) + " -> " + spec(kind, q);
                            try {
                                e.reconfigure(policy + " = " + spec(kind, q) + " key=ip", Inheritance.KEEP_CONSUMED);
                            } catch (IllegalArgumentException x) {
                                assertFalse(safe, what + " refused: " + x.getMessage());
                                assertTrue(x.getMessage().startsWith("policy '" + policy + "'")
                                        && x.getMessage().contains("Inheritance.RESET"), x.getMessage());
                                refused++;
                                continue;
                            }
                            assertTrue(safe, what + " applied, though the rule refuses it");
                            long raise = Math.max(0, limit(kind, q) - limit(kind, p));
                            for (int i = 0; i < peers.length; i++) {
                                long after = e.inspect(peers[i], policy).remaining();
                                assertTrue(after <= before[i] + raise, what + ": " + peers[i] + " had " + before[i]
                                        + ", the change raises " + raise + ", and it is left " + after);
                                // what it had is a floor: the state may hold up to one permit more
                                bound[i] = kind.equals("sliding-log") ? Double.NaN
                                        : Math.min(limit(kind, q), before[i] + raise + 1);
                            }
                            p = q;
                            applied++;
                        } else if (roll < 4) {
                            long idle = random.nextBoolean() ? random.nextLong(1, 5_000_000_000L)
                                    : random.nextLong(1, 180_000_000_000L);
                            clock.advanceNanos(idle);
                            for (int i = 0; i < peers.length; i++) {
                                bound[i] = Math.min(limit(kind, p), bound[i] + idle / 1e9 * p[0] / p[1]);
                                long left = e.inspect(peers[i], policy).remaining();
                                assertFalse(left > Math.floor(bound[i] + 1e-9), what + spec(kind, p) + ": "
                                        + peers[i] + " is left " + left + " after an idle " + idle + " ns, more than"
                                        + " the change and the new rate since allow: " + bound[i]);
                                bounded += Double.isNaN(bound[i]) ? 0 : 1;
                            }
                        } else {
                            int i = random.nextInt(peers.length);
                            if (e.enforce(FakeRequest.get("/").peer(peers[i])).admitted()) {
                                bound[i] -= 1;
                                long ttl = ((Number) redis.call("PTTL", key(policy, peers[i]))).longValue();
                                expiry[i] = clock.nanos() + (ttl + 100) * 1_000_000L;
                                expired += ttl < 0 ? 1 : 0;
                            }
                        }
                    }
                }
            }
        }
        assertEquals(0, expired, "every write sets a TTL");
        assertTrue(applied > 20 && refused > 5 && consumed > 20 && (kind.equals("sliding-log") || bounded > 100),
                kind + ": " + applied + " applied, " + refused + " refused, " + consumed + " reads of a used key, "
                        + bounded + " reads bounded after a change");
    }

    private static String key(String policy, String peer) {
        return "sluice:" + policy + ":{" + new KeyNames("sluice", null).hash(peer) + "}";
    }

    /** {permits, period in seconds, burst / capacity} as a policy; the sliding log's window is the period. */
    private static String spec(String kind, long[] p) {
        String rate = p[0] + "/" + p[1] + "s";
        return switch (kind) {
            case "token-bucket" -> "token-bucket " + rate + " burst=" + p[2];
            case "gcra" -> "gcra " + rate + " burst=" + p[2];
            case "leaky-bucket" -> "leaky-bucket " + rate + " capacity=" + p[2];
            default -> "sliding-log " + rate;
        };
    }

    private static long limit(String kind, long[] p) {
        return switch (kind) {
            case "token-bucket", "leaky-bucket" -> p[2];
            case "gcra" -> p[2] + 1;
            default -> p[0];
        };
    }

    /**
     * The rule of docs/redis.md from the nominal rates (every one here is scheduled exactly), with
     * the interval period / permits and the burst window limit * interval: a token bucket's rate and
     * fill time may not both move for the client (faster and quicker to fill, or slower and
     * longer); GCRA's and the leaky bucket's rate may fall only if their burst window does not
     * grow; a sliding log keeps its window.
     */
    private static boolean safe(String kind, long[] p, long[] q) {
        int interval = Long.compare(q[1] * p[0], p[1] * q[0]);
        int window = Long.compare(limit(kind, q) * q[1] * p[0], limit(kind, p) * p[1] * q[0]);
        return switch (kind) {
            case "token-bucket" -> !(interval < 0 && window < 0) && !(interval > 0 && window > 0);
            case "gcra", "leaky-bucket" -> interval <= 0 || window <= 0;
            default -> q[1] == p[1];
        };
    }
}
