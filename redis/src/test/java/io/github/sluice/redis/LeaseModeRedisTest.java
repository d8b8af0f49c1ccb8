package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.ShareSlot;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.Claim;
import io.github.sluice.store.Decided;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lease mode on a real redis-server, one instance, on a frozen client clock: what a local decision
 * says (its RateLimit fields, its receipt), a refusal without a round trip, the failure policy when
 * a refill fails, all or nothing across policies, refunds by outcome, the async path, closing, and
 * what is logged when the store's setting does not apply to a policy.
 */
@ExtendWith(RedisServerExtension.class)
class LeaseModeRedisTest {

    private static final String KEY = "192.0.2.44";

    private final FakeClock clock = new FakeClock();

    private RedisStore.Builder store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).commandTimeout(Duration.ofMillis(500))
                .leases(0.1, Duration.ofSeconds(1));
    }

    private static RedisKeySpace space(KeySpace s) {
        return (RedisKeySpace) s;
    }

    @Test
    void acquire_tokenBucket_decidesLocallyWithRedisRemainingPlusTheShare(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            TokenBucket bucket = TokenBucket.builder().rate(Rate.perHour(1)).burst(1000).build();
            KeySpace tb = store.keySpace("tb", bucket);
            MutableDecision d = new MutableDecision();

            // The first request takes a share of 100 (Redis keeps 900) and one permit of it
            assertTrue(tb.acquire(KEY, 1, d));
            assertTrue(ShareSlot.local(d.receipt()), d.toString());
            assertEquals(1000, d.limit());
            assertEquals(999, d.remaining());
            assertEquals(clock.nanos(), d.nanos());
            for (int i = 2; i <= 100; i++) {
                assertTrue(tb.acquire(KEY, 1, d));
                assertEquals(1000 - i, d.remaining());
            }
            assertEquals(0, space(tb).lease.left(KEY));
            // Redis holds what the share left it: 900
            assertEquals(900, inspectRemaining(redis, "tb", bucket));

            // The 101st takes the next share
            assertTrue(tb.acquire(KEY, 1, d));
            assertEquals(899, d.remaining());
            assertEquals(800, inspectRemaining(redis, "tb", bucket));
        }
    }

    /** What another instance without leases reads: Redis's own remaining, by a cost-0 peek. */
    private long inspectRemaining(RedisServer redis, String policy, io.github.sluice.core.Algorithm<?> algorithm) {
        try (RedisStore plain = RedisStore.builder().uri(redis.uri()).clientClock(clock).build()) {
            MutableDecision d = new MutableDecision();
            assertTrue(plain.keySpace(policy, algorithm).acquire(KEY, 0, d));
            return d.remaining();
        }
    }

    @Test
    void acquire_manyThreadsFindTheShareSpent_joinOneRefill(RedisServer redis) throws Exception {
        // Shares of 100, 16 threads released together, 50 requests each: 800 permits, 8 shares
        // Coalescing off: each exact decision is then one call, and the refills the rest
        try (RedisStore store = store(redis).coalescing(false).build()) {
            KeySpace tb = store.keySpace("join", TokenBucket.builder().rate(Rate.perHour(1)).burst(1000).build());
            long callsBefore = redis.calls("fcall") + redis.calls("evalsha") + redis.calls("eval");
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicInteger admitted = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger local = new java.util.concurrent.atomic.AtomicInteger();
            Thread[] threads = new Thread[16];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = new Thread(() -> {
                    MutableDecision d = new MutableDecision();
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < 50; i++) {
                        if (tb.acquire(KEY, 1, d) && !d.degraded()) {
                            admitted.incrementAndGet();
                            local.addAndGet(ShareSlot.local(d.receipt()) ? 1 : 0);
                        }
                    }
                });
                threads[t].start();
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            long calls = redis.calls("fcall") + redis.calls("evalsha") + redis.calls("eval") - callsBefore;
            assertEquals(800, admitted.get());
            // About 8 refills (one more for each share the exact decisions left short), not one per
            // request that found the share spent; and the requests that woke to find their
            // refill's share spent by the ones ahead, decided exactly: at most the other threads,
            // per refill
            long exact = 800 - local.get();
            assertTrue(calls - exact <= 10, "refills: " + (calls - exact) + " (" + calls + " calls, " + exact + " exact)");
            assertTrue(exact <= 8 * 15, "decided exactly: " + exact);
        }
    }

    @Test
    void maxAgePasses_theUnspentShareGoesBackByReceipt_beforeTheNextShareIsTaken(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            // A token an hour, a burst of 100: shares of 10, for at most a second
            TokenBucket bucket = TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build();
            KeySpace tb = store.keySpace("aged", bucket);
            MutableDecision d = new MutableDecision();
            for (int i = 0; i < 3; i++) {
                assertTrue(tb.acquire(KEY, 1, d));
            }
            assertEquals(90, inspectRemaining(redis, "aged", bucket));

            // When the share's second has passed, the next request gives back the 7 unspent permits
            // (less what the bucket refilled in that second: no whole token) and takes a new share
            clock.advance(Duration.ofSeconds(1));
            assertTrue(tb.acquire(KEY, 1, d));
            assertEquals(9, space(tb).lease.left(KEY));
            assertEquals(90 + 7 - 10, inspectRemaining(redis, "aged", bucket));
        }
    }

    @Test
    void sweep_idleKeyWhoseShareEnded_givesItBackAndForgetsTheKey(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            TokenBucket bucket = TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build();
            KeySpace tb = store.keySpace("idle", bucket);
            MutableDecision d = new MutableDecision();
            assertTrue(tb.acquire(KEY, 1, d));
            Leasing lease = space(tb).lease;
            lease.sweep();
            assertEquals(1, lease.size(), "a live share stays");

            clock.advance(Duration.ofSeconds(1));
            lease.sweep();
            assertEquals(0, lease.size());
            Load.await("the give-back", 5_000, () -> inspectRemaining(redis, "idle", bucket) == 99);
        }
    }

    @Test
    void acquire_redisCannotGrantOne_deniesWithRedisRetryAfterWithoutARoundTrip(RedisServer redis)
            throws Exception {
        try (RedisStore store = store(redis).leases(0.5, Duration.ofSeconds(10)).build()) {
            // A token an hour, a burst of 4: shares of 2
            KeySpace tb = store.keySpace("empty", TokenBucket.builder().rate(Rate.perHour(1)).burst(4).build());
            MutableDecision d = new MutableDecision();
            for (int i = 0; i < 4; i++) {
                assertTrue(tb.acquire(KEY, 1, d), "admission " + i);
            }
            assertFalse(tb.acquire(KEY, 1, d));
            assertFalse(d.degraded());
            assertEquals(TimeUnit.HOURS.toNanos(1), d.retryAfterNanos(), d.toString());

            // Redis stops answering: the refusals still come, from the denial, as time passes
            redis.suspend();
            try {
                clock.advance(Duration.ofMinutes(10));
                assertFalse(tb.acquire(KEY, 1, d));
                assertFalse(d.degraded(), d.toString());
                assertEquals(TimeUnit.MINUTES.toNanos(50), d.retryAfterNanos());
            } finally {
                redis.resume();
            }
        }
    }

    @Test
    void acquire_redisDownDuringRefill_followsTheFailurePolicy(RedisServer redis) throws Exception {
        try (RedisStore store = store(redis).failurePolicy(FailurePolicy.failClosed(503))
                .commandTimeout(Duration.ofMillis(100)).build()) {
            KeySpace tb = store.keySpace("down", TokenBucket.builder().rate(Rate.perHour(1)).burst(20).build());
            MutableDecision d = new MutableDecision();
            assertTrue(tb.acquire(KEY, 1, d));
            assertTrue(tb.acquire(KEY, 1, d)); // the share of 2 is spent
            redis.suspend();
            try {
                long start = System.nanoTime();
                assertFalse(tb.acquire(KEY, 1, d));
                long took = System.nanoTime() - start;
                assertTrue(d.degraded(), d.toString());
                assertEquals(503, d.denialStatus());
                assertTrue(took < TimeUnit.SECONDS.toNanos(2), "waited " + took + " ns");
            } finally {
                redis.resume();
            }
        }
    }

    @Test
    void acquire_redisKilledBeforeARefill_followsTheFailurePolicy_andTheShareStillSpendsWhatItHolds(
            RedisServer redis) throws Exception {
        try (RedisStore store = store(redis).leases(0.5, Duration.ofSeconds(10))
                .failurePolicy(FailurePolicy.failClosed(503)).commandTimeout(Duration.ofMillis(200)).build()) {
            KeySpace tb = store.keySpace("killed", TokenBucket.builder().rate(Rate.perHour(1)).burst(4).build());
            MutableDecision d = new MutableDecision();
            assertTrue(tb.acquire(KEY, 1, d)); // a share of 2, one left
            redis.kill();
            // What the share holds was taken from Redis: it is still admitted, not degraded
            assertTrue(tb.acquire(KEY, 1, d));
            assertFalse(d.degraded(), d.toString());
            // The refill fails: the failure policy decides
            assertFalse(tb.acquire(KEY, 1, d));
            assertTrue(d.degraded(), d.toString());
            assertEquals(503, d.denialStatus());
        }
    }

    @Test
    void acquireAll_anotherPolicyRefuses_givesTheLocalPermitBackToTheShare(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace tb = store.keySpace("all-tb", TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build());
            KeySpace log = store.keySpace("all-log", SlidingLog.builder().limit(1).window(Duration.ofHours(1)).build());
            MutableDecision a = new MutableDecision();
            MutableDecision b = new MutableDecision();
            // A request of several policies does not wait for a refill: its bucket's permit is
            // decided exactly, and the refill it started lands meanwhile
            assertTrue(store.acquireAll(Claim.of(tb, KEY, 1, a, Claim.of(log, KEY, 1, b, null))));
            assertFalse(ShareSlot.local(a.receipt()));
            Load.await("the refill", 5_000, () -> space(tb).lease.left(KEY) == 10);

            // The sliding log refuses: the bucket's permit, taken locally, goes back to the share
            assertFalse(store.acquireAll(Claim.of(tb, KEY, 1, a, Claim.of(log, KEY, 1, b, null))));
            assertTrue(ShareSlot.local(a.receipt()), a.toString());
            assertFalse(b.allowed());
            assertEquals(10, space(tb).lease.left(KEY));
        }
    }

    @Test
    void refund_ofALocalAdmission_goesBackToTheShare(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace tb = store.keySpace("refund", TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build());
            MutableDecision d = new MutableDecision();
            assertTrue(tb.acquire(KEY, 3, d));
            assertEquals(7, space(tb).lease.left(KEY));
            tb.refund(KEY, 3, d);
            assertEquals(10, space(tb).lease.left(KEY));
        }
    }

    @Test
    void acquireAsync_fromTheShare_completesAtOnce(RedisServer redis) throws Exception {
        try (RedisStore store = store(redis).build()) {
            KeySpace g = store.keySpace("async", Gcra.builder().rate(Rate.perHour(1)).burst(99).build());
            MutableDecision d = new MutableDecision();
            CompletionStage<Boolean> refill = g.acquireAsync(KEY, 0, 1, d);
            assertTrue(refill.toCompletableFuture().get(5, TimeUnit.SECONDS));
            CompletionStage<Boolean> local = g.acquireAsync(KEY, 0, 1, d);
            assertTrue(Decided.isDecided(local), "decided on the calling thread");
            assertTrue(local.toCompletableFuture().getNow(false));
            assertTrue(ShareSlot.local(d.receipt()));
        }
    }

    @Test
    void fixedWindow_shareEndsWithItsWindow(RedisServer redis) {
        try (RedisStore store = store(redis).leases(0.5, Duration.ofMinutes(1)).build()) {
            KeySpace fw = store.keySpace("window", FixedWindow.of(10, Duration.ofSeconds(10)));
            MutableDecision d = new MutableDecision();
            // Align the frozen clock one second before a window's end
            long window = TimeUnit.SECONDS.toNanos(10);
            clock.advanceNanos(window - Math.floorMod(clock.nanos(), window) - TimeUnit.SECONDS.toNanos(1));
            assertTrue(fw.acquire(KEY, 1, d));
            assertEquals(4, space(fw).lease.left(KEY));
            clock.advance(Duration.ofSeconds(1)); // the next window: the share is over
            assertTrue(fw.acquire(KEY, 1, d));
            assertEquals(9, d.remaining(), "a new window's share, from a full window");
        }
    }

    @Test
    void close_dropsTheShares_decisionsFollowTheFailurePolicy(RedisServer redis) {
        RedisStore store = store(redis).failurePolicy(FailurePolicy.failClosed(503)).build();
        KeySpace tb = store.keySpace("closing", TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build());
        MutableDecision d = new MutableDecision();
        assertTrue(tb.acquire(KEY, 1, d));
        store.close();
        assertFalse(tb.acquire(KEY, 1, d));
        assertTrue(d.degraded());
    }

    @Test
    void keySpace_algorithmsThatCannotLease_loggedAtWarningAndDecidedExactly(RedisServer redis) {
        try (LogCapture log = LogCapture.start(); RedisStore store = store(redis).build()) {
            KeySpace c = store.keySpace("conc", Concurrency.of(5));
            KeySpace tb = store.keySpace("leased", TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build());
            assertNull(space(c).lease);
            MutableDecision d = new MutableDecision();
            assertTrue(c.acquire(KEY, 1, d));
            assertFalse(ShareSlot.local(d.receipt()));
            assertTrue(tb.acquire(KEY, 1, d));
            Load.await("the log lines", 5_000, () -> log.lines().size() >= 2);
            List<LogCapture.Line> lines = log.lines();
            assertTrue(lines.stream().anyMatch(l -> l.level() == Level.WARNING && l.message().contains("'conc'")
                    && l.message().contains("cannot be leased")), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.level() == Level.INFO && l.message().contains("'leased'")
                    && l.message().contains("shares of 10")), lines.toString());
        }
    }

    @Test
    void reset_dropsThisInstancesShare(RedisServer redis) {
        try (RedisStore store = store(redis).build()) {
            KeySpace tb = store.keySpace("reset", TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build());
            MutableDecision d = new MutableDecision();
            assertTrue(tb.acquire(KEY, 1, d));
            assertEquals(9, space(tb).lease.left(KEY));
            tb.reset(KEY);
            assertTrue(space(tb).lease.left(KEY) < 0, "the share is drained");
            assertTrue(tb.acquire(KEY, 1, d));
            assertEquals(99, d.remaining(), "a share of the fresh key: " + d);
        }
    }

    @Test
    void acquire_fromTheShare_allocatesNothing(RedisServer redis) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (RedisStore store = store(redis).leases(1, Duration.ofMinutes(1)).build()) {
            KeySpace tb = store.keySpace("alloc", TokenBucket.builder().rate(Rate.perSecond(1)).burst(1_000_000).build());
            MutableDecision d = new MutableDecision();
            for (int i = 0; i < 20_000; i++) { // the refill, then warm-up
                assertTrue(tb.acquire(KEY, 1, d));
            }
            long id = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 10_000; i++) {
                tb.acquire(KEY, 1, d);
            }
            long bytes = threads.getThreadAllocatedBytes(id) - before;
            assertTrue(ShareSlot.local(d.receipt()));
            // The counter's own reading may allocate a little once; nothing per decision
            assertTrue(bytes < 10_000, bytes + " bytes for 10,000 local decisions");
        }
    }

    @Test
    void builder_badLeaseSettings_failNamingTheParameterAndValue() {
        RedisStore.Builder b = RedisStore.builder();
        assertEquals("leases share must be in (0, 1] (a fraction of each policy's limit) but was 0.0",
                assertThrows(IllegalArgumentException.class, () -> b.leases(0, Duration.ofSeconds(1))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.leases(1.5, Duration.ofSeconds(1)))
                .getMessage().endsWith("but was 1.5"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.leases(Double.NaN, Duration.ofSeconds(1)))
                .getMessage().endsWith("but was NaN"));
        assertEquals("leases maxAge must be between 1ms and 1m but was 0s",
                assertThrows(IllegalArgumentException.class, () -> b.leases(0.1, Duration.ZERO)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.leases(0.1, Duration.ofMinutes(2)))
                .getMessage().startsWith("leases maxAge must be between"));
        assertThrows(NullPointerException.class, () -> b.leases(0.1, null));
    }
}
