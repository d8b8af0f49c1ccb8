package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.core.Clock;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Concurrency limits in Redis: a permit per request held as a lease, released once by its
 * instance, renewed while the request runs, and given back by expiry when its instance crashed.
 */
@ExtendWith(RedisServerExtension.class)
class ConcurrencyRedisTest {

    private static final Clock REAL = Clock.system();
    private static final String CLIENT = "203.0.113.7";

    private static RedisStore.Builder store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(5));
    }

    private static long leases(RedisServer redis, String policy) {
        return (Long) redis.call("ZCARD", new KeyNames("sluice", null).key(policy, CLIENT));
    }

    @Test
    void acquireRelease_permitIsHeldUntilReleased(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("inflight", Concurrency.of(2));
            MutableDecision out = new MutableDecision();

            assertTrue(space.acquire(CLIENT, 1, out));
            assertTrue(space.acquire(CLIENT, 1, out));
            assertFalse(space.acquire(CLIENT, 1, out));
            assertEquals(new Decision(io.github.sluice.core.Outcome.DENIED, 2, 0, 0,
                    Concurrency.RETRY_AFTER_MILLIS * 1_000_000L, 0), out.toDecision());

            space.release(CLIENT, 1);
            Load.await("the release", 5_000, () -> leases(redis, "inflight") == 1);
            assertTrue(space.acquire(CLIENT, 1, out));
            assertEquals(0, out.remaining());
        }
    }

    @Test
    void release_withoutALease_returnsTheUnmatchedPermits_andSendsNothing(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("inflight", Concurrency.of(3));
            assertTrue(space.acquire(CLIENT, 2, new MutableDecision()));

            // A release of one admission matches its lease; a second release of it matches nothing
            assertEquals(1, space.release(CLIENT, 3, MutableDecision.NO_RECEIPT, false), "2 of 3 permits leased");
            assertEquals(1, space.release(CLIENT, 1, MutableDecision.NO_RECEIPT, false));
            assertEquals(2, space.release("198.51.100.1", 2, MutableDecision.NO_RECEIPT, false), "a key never admitted");
            Load.await("the release", 5_000, () -> leases(redis, "inflight") == 0);
        }
    }

    @Test
    void crashedInstance_permitsComeBackAfterTheLeaseTimeout(RedisServer redis) {
        FakeClock clock = new FakeClock();
        // Given an instance holding every permit, which then dies without releasing them
        RedisStore crashed = store(redis).clientClock(clock).leaseTimeout(Duration.ofSeconds(5)).build();
        KeySpace space = crashed.keySpace("inflight", Concurrency.of(3));
        assertTrue(space.acquire(CLIENT, 3, new MutableDecision()));
        crashed.close();

        try (RedisStore survivor = store(redis).clientClock(clock).leaseTimeout(Duration.ofSeconds(5)).build()) {
            KeySpace same = survivor.keySpace("inflight", Concurrency.of(3));
            MutableDecision out = new MutableDecision();
            assertFalse(same.acquire(CLIENT, 1, out), "the permits are still leased");

            // When the lease timeout passes
            clock.advance(Duration.ofSeconds(5).plusNanos(1000));

            // Then the permits are back
            assertTrue(same.acquire(CLIENT, 3, out));
            assertFalse(out.degraded());
        }
    }

    @Test
    void longRequest_leaseIsRenewedWhileItRuns(RedisServer redis) {
        // Given a lease timeout of one second, renewed every third of it (Redis TIME)
        try (RedisStore holder = store(redis).leaseTimeout(Duration.ofSeconds(1)).build();
                RedisStore other = store(redis).build()) {
            KeySpace held = holder.keySpace("inflight", Concurrency.of(1));
            KeySpace contender = other.keySpace("inflight", Concurrency.of(1));
            assertTrue(held.acquire(CLIENT, 1, new MutableDecision()));

            // When the request runs for longer than the lease timeout
            long start = REAL.nanos();
            Load.await("1.5 s of a running request", 5_000, () -> REAL.nanos() - start > 1_500_000_000L);

            // Then its permit is still held, and released when it ends
            assertFalse(contender.acquire(CLIENT, 1, new MutableDecision()));
            held.release(CLIENT, 1);
            Load.await("the release", 5_000, () -> contender.acquire(CLIENT, 1, new MutableDecision()));
        }
    }

    @Test
    void twoStores_acquireAndReleaseUnderLoad_neverOverAdmitNorLeak(RedisServer redis)
            throws InterruptedException {
        int max = 5;
        try (RedisStore a = store(redis).build(); RedisStore b = store(redis).build()) {
            KeySpace[] spaces = {a.keySpace("inflight", Concurrency.of(max)),
                b.keySpace("inflight", Concurrency.of(max))};
            AtomicInteger inFlight = new AtomicInteger();
            AtomicInteger peak = new AtomicInteger();
            AtomicLong admitted = new AtomicLong();
            AtomicLong degraded = new AtomicLong();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                KeySpace space = spaces[t % 2];
                Thread thread = new Thread(() -> {
                    MutableDecision out = new MutableDecision();
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < 100; i++) {
                        if (space.acquire(CLIENT, 1, out)) {
                            peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                            admitted.incrementAndGet();
                            inFlight.decrementAndGet();
                            space.release(CLIENT, 1);
                        }
                        degraded.addAndGet(out.degraded() ? 1 : 0);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }

            assertEquals(0, degraded.get());
            assertTrue(admitted.get() >= max, "admitted " + admitted.get());
            assertTrue(peak.get() <= max, "peak in flight " + peak.get());
            // Every permit was given back: nothing leaked in Redis
            Load.await("every release", 5_000, () -> leases(redis, "inflight") == 0);
            MutableDecision peek = new MutableDecision();
            spaces[0].acquire(CLIENT, 0, peek);
            assertEquals(max, peek.remaining());
        }
    }

    @Test
    void maxWait_aReleaseByAnotherInstance_admitsTheWaitingRequest(RedisServer redis)
            throws InterruptedException {
        Concurrency oneWithWait = Concurrency.builder().maxInFlight(1).maxWait(Duration.ofSeconds(5)).build();
        try (RedisStore a = store(redis).build(); RedisStore b = store(redis).build()) {
            KeySpace holder = a.keySpace("inflight", oneWithWait);
            KeySpace waiter = b.keySpace("inflight", oneWithWait);
            assertTrue(holder.acquire(CLIENT, 1, new MutableDecision()));
            MutableDecision out = new MutableDecision();
            boolean[] admitted = new boolean[1];
            Thread t = new Thread(() -> admitted[0] = waiter.acquire(CLIENT, 1, out));
            t.start();

            // When the holder's request ends while the other has been refused and polls
            long calls = redis.scriptCalls();
            Load.await("the waiter to poll", 5_000, () -> redis.scriptCalls() >= calls + 2);
            assertTrue(t.isAlive());
            holder.release(CLIENT, 1);
            t.join(5_000);

            // Then the waiting request is admitted
            assertTrue(admitted[0]);
            assertFalse(out.degraded());
        }
    }

    @Test
    void maxWait_noRelease_isDeniedAfterTheWait(RedisServer redis) {
        Concurrency oneWithWait = Concurrency.builder().maxInFlight(1).maxWait(Duration.ofMillis(200)).build();
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("inflight", oneWithWait);
            assertTrue(space.acquire(CLIENT, 1, new MutableDecision()));
            MutableDecision out = new MutableDecision();

            long t0 = REAL.nanos();
            boolean admitted = space.acquire(CLIENT, 1, out);
            long waited = REAL.nanos() - t0;

            assertFalse(admitted);
            assertTrue(waited >= 200_000_000L && waited < 2_000_000_000L, "waited " + waited / 1e6 + " ms");
        }
    }

    @Test
    void maxWait_slowFirstReply_theWaitCountsFromTheRequestsArrival(RedisServer redis) {
        // Given every permit held, and a policy that may wait 2 s for one
        Concurrency oneWithWait = Concurrency.builder().maxInFlight(1).maxWait(Duration.ofSeconds(2)).build();
        try (RedisStore store = store(redis).commandTimeout(Duration.ofSeconds(3)).build()) {
            KeySpace space = store.keySpace("inflight", oneWithWait);
            assertTrue(space.acquire(CLIENT, 1, new MutableDecision()));

            // When Redis answers the request's first call only after 1.5 s (within the timeout)
            redis.call("CLIENT", "PAUSE", "1500", "ALL");
            MutableDecision out = new MutableDecision();
            long t0 = REAL.nanos();
            boolean admitted = space.acquire(CLIENT, 1, out);
            long waited = REAL.nanos() - t0;

            // Then the request is refused 2 s after it arrived, not 2 s after that reply
            assertFalse(admitted);
            assertFalse(out.degraded());
            assertTrue(waited >= 2_000_000_000L && waited < 2_750_000_000L, "waited " + waited / 1e6 + " ms");
        }
    }

    @Test
    void failOpen_permitGrantedWhileRedisIsSlow_isNotReleasedIntoRedis(RedisServer redis) {
        try (RedisStore store = store(redis).commandTimeout(Duration.ofMillis(50)).build()) {
            KeySpace space = store.keySpace("inflight", Concurrency.of(2));
            MutableDecision out = new MutableDecision();
            // Given one permit held in Redis...
            assertTrue(space.acquire(CLIENT, 1, out));
            // ...and one granted by fail-open while Redis was too slow to answer
            redis.call("CLIENT", "PAUSE", "300", "ALL");
            assertTrue(space.acquire(CLIENT, 1, out));
            assertTrue(out.degraded());
            // (the timed-out call runs after the pause, and its lease is removed again)
            Load.await("the pause to end and its backlog to run", 5_000,
                    () -> leases(redis, "inflight") == 1);

            // When the degraded request ends first, nothing is released in Redis
            space.release(CLIENT, 1);
            space.acquire(CLIENT, 0, out); // a round trip on the store's connection, after any release
            assertEquals(1, leases(redis, "inflight"));

            // And when the other ends, its lease is
            space.release(CLIENT, 1);
            Load.await("the release", 5_000, () -> leases(redis, "inflight") == 0);
        }
    }

    @Test
    void keyTtl_isTheLeaseTimeout(RedisServer redis) {
        try (RedisStore store = store(redis).leaseTimeout(Duration.ofSeconds(20)).build()) {
            store.keySpace("inflight", Concurrency.of(3)).acquire(CLIENT, 2, new MutableDecision());

            String key = new KeyNames("sluice", null).key("inflight", CLIENT);
            long pttl = (Long) redis.call("PTTL", key);
            assertTrue(pttl > 19_000 && pttl <= 20_000, "PTTL " + pttl);
            assertEquals(2L, redis.call("ZCARD", key));
        }
    }
}
