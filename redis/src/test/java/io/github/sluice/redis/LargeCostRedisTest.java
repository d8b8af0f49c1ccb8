package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One acquisition of many permits in the algorithms that keep a member per permit (concurrency
 * leases, sliding-log entries). Lua's {@code unpack} pushes every value onto a C stack of at most
 * 8000 slots, and a ZADD of n members takes 2n values: a script that unpacks one acquisition's
 * members at once fails as a whole ("too many results to unpack") once the cost passes about
 * 4000. Every command over an acquisition's members (add, renew, release, refund) must take them
 * in batches; the helpers that do are in {@code prelude.lua}.
 */
@ExtendWith(RedisServerExtension.class)
class LargeCostRedisTest {

    /** Well past Lua's unpack limit for a ZADD (about 4000 members), within every algorithm's own. */
    private static final int COST = 9_000;
    private static final Clock REAL = Clock.system();
    private static final String CLIENT = "203.0.113.7";

    private static RedisStore.Builder store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(5)).denialCacheSize(0);
    }

    private static long members(RedisServer redis, String policy) {
        return (Long) redis.call("ZCARD", new KeyNames("sluice", null).key(policy, CLIENT));
    }

    @Test
    void concurrency_acquireAndRelease_ofThousandsOfPermits_takeAndGiveBackEveryLease(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("bulk", Concurrency.of(COST));
            MutableDecision out = new MutableDecision();

            assertTrue(space.acquire(CLIENT, COST, out));
            assertFalse(out.degraded(), "the script failed and the failure policy decided");
            assertEquals(COST, members(redis, "bulk"));
            assertFalse(space.acquire(CLIENT, 1, out));

            space.release(CLIENT, COST);
            Load.await("every lease released", 5_000, () -> members(redis, "bulk") == 0);
        }
    }

    @Test
    void concurrency_renewal_ofThousandsOfPermits_keepsEveryLease(RedisServer redis) {
        // Given one request holding thousands of permits, with a one-second lease renewed in the
        // background every third of it (Redis TIME: this test is about a real server's timing)
        try (RedisStore holder = store(redis).leaseTimeout(Duration.ofSeconds(1)).build();
                RedisStore other = store(redis).build()) {
            KeySpace held = holder.keySpace("bulk", Concurrency.of(COST));
            KeySpace contender = other.keySpace("bulk", Concurrency.of(COST));
            assertTrue(held.acquire(CLIENT, COST, new MutableDecision()));

            // When the request runs for longer than the lease timeout
            long start = REAL.nanos();
            Load.await("1.5 s of a running request", 5_000, () -> REAL.nanos() - start > 1_500_000_000L);

            // Then the renewals kept every lease: another instance finds no permit free
            MutableDecision out = new MutableDecision();
            assertFalse(contender.acquire(CLIENT, 1, out), "a lease expired: its renewal failed");
            assertFalse(out.degraded());
            assertEquals(COST, members(redis, "bulk"));
            held.release(CLIENT, COST);
            Load.await("every lease released", 5_000, () -> members(redis, "bulk") == 0);
        }
    }

    @Test
    void slidingLog_acquireAndRefund_ofThousandsOfPermits_logAndUnlogEveryEntry(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("log", SlidingLog.builder().limit(SlidingLog.MAX_LIMIT)
                    .window(Duration.ofMinutes(10)).build());
            MutableDecision admission = new MutableDecision();

            assertTrue(space.acquire(CLIENT, COST, admission));
            assertFalse(admission.degraded(), "the script failed and the failure policy decided");
            assertEquals(COST, members(redis, "log"));

            space.refund(CLIENT, COST, admission);
            Load.await("every entry refunded", 5_000, () -> members(redis, "log") == 0);
            assertTrue(space.acquire(CLIENT, SlidingLog.MAX_LIMIT, new MutableDecision()),
                    "the refunded permits are free again");
        }
    }
}
