package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.CalendarPeriod;
import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.Claim;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Coalescing (docs/redis.md, "Coalescing"): requests on the same keys that arrive while a call for
 * those keys is in flight are decided by the next call, one batch, each with its own exact answer.
 * The call in flight is held deterministically by stopping redis-server (SIGSTOP): it is sent and
 * unanswered, and every later request on its keys queues until the server continues.
 */
@ExtendWith(RedisServerExtension.class)
class CoalescingRedisTest {

    private static final int LIMIT = 5;

    static Stream<Algorithm<?>> algorithms() {
        Rate slow = Rate.perHour(1);
        return Stream.of(
                TokenBucket.builder().rate(slow).burst(LIMIT).build(),
                Gcra.builder().rate(slow).burst(LIMIT - 1).build(),
                FixedWindow.of(LIMIT, Duration.ofMinutes(1)),
                FixedWindow.of(LIMIT, CalendarPeriod.of(CalendarPeriod.Unit.MONTH, ZoneId.of("Europe/Paris"))),
                FixedWindow.builder().limit(LIMIT).window(Duration.ofMinutes(1))
                        .alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                SlidingWindow.builder().limit(LIMIT).window(Duration.ofMinutes(1)).slots(6).build(),
                LeakyBucket.builder().capacity(LIMIT).rate(slow).build(),
                SlidingLog.builder().limit(LIMIT).window(Duration.ofMinutes(1)).build(),
                SmoothBursty.builder().rate(Rate.perSecond(1)).maxBurst(Duration.ofSeconds(LIMIT)).build(),
                ShapingLeakyBucket.builder().rate(Rate.perSecond(1)).slack(LIMIT - 1)
                        .start(ShapingLeakyBucket.Start.EARNED).maxDelay(Duration.ofSeconds(3)).build(),
                Concurrency.of(LIMIT));
    }

    private static RedisStore.Builder store(RedisServer redis, FakeClock clock) {
        // Long timeouts: the server is stopped on purpose while requests queue. No denial cache:
        // the model must see every request go to Redis.
        return RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(10));
    }

    /** One request of a batch: a claim on each policy, with its cost, and where it is decided. */
    private record Request(long[] costs, MutableDecision[] out) {
        static Request of(long... costs) {
            MutableDecision[] out = new MutableDecision[costs.length];
            for (int i = 0; i < costs.length; i++) {
                out[i] = new MutableDecision();
            }
            return new Request(costs, out);
        }

        Claim claims(KeySpace[] spaces, String key) {
            Claim c = null;
            for (int i = spaces.length - 1; i >= 0; i--) {
                c = Claim.of(spaces[i], key, costs[i], out[i], c);
            }
            return c;
        }

        String answers() {
            StringBuilder sb = new StringBuilder();
            for (MutableDecision d : out) {
                sb.append(d).append(d.allowed() ? " receipt " + d.receipt() : "").append("; ");
            }
            return sb.toString();
        }
    }

    /**
     * Sends the requests asynchronously while the server is stopped: the first is in flight, the
     * others queue behind it; then lets the server go on and waits for every answer.
     *
     * @return whether each request was admitted
     */
    private static boolean[] coalesced(RedisServer redis, RedisStore store, KeySpace[] spaces, String key,
            List<Request> requests) throws Exception {
        List<CompletionStage<Boolean>> stages = new ArrayList<>();
        redis.suspend();
        try {
            for (Request r : requests) {
                stages.add(store.acquireAllAsync(r.claims(spaces, key)));
            }
            assertEquals(requests.size() - 1, store.queuedForBatch(), "every request after the first queues");
        } finally {
            redis.resume();
        }
        boolean[] admitted = new boolean[requests.size()];
        for (int i = 0; i < admitted.length; i++) {
            admitted[i] = stages.get(i).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        return admitted;
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void queuedRequests_everyAlgorithm_oneBatchDecidesEachAsItsOwnCallInOrder(Algorithm<?> algorithm,
            RedisServer redis) throws Exception {
        FakeClock frozen = new FakeClock();
        try (RedisStore batched = store(redis, frozen).prefix("batched").build();
                RedisStore model = store(redis, frozen).prefix("model").coalescing(false).build()) {
            KeySpace[] b = {batched.keySpace("p", algorithm)};
            KeySpace[] m = {model.keySpace("p", algorithm)};
            List<Request> requests = new ArrayList<>();
            List<Request> expected = new ArrayList<>();
            for (int i = 0; i < 3 * LIMIT; i++) {
                requests.add(Request.of(1));
                expected.add(Request.of(1));
            }
            long calls = redis.scriptCalls();

            boolean[] admitted = coalesced(redis, batched, b, "hot", requests);

            assertEquals(2, redis.scriptCalls() - calls, "the first request's call, then one batch");
            for (int i = 0; i < requests.size(); i++) {
                boolean alone = model.acquireAll(expected.get(i).claims(m, "hot"));
                assertEquals(alone, admitted[i], "request " + i);
                assertEquals(expected.get(i).answers(), requests.get(i).answers(), "request " + i);
            }
            // Equal cost, frozen clock: the admitted requests are the first ones in queue order.
            for (int i = 1; i < admitted.length; i++) {
                assertFalse(admitted[i] && !admitted[i - 1], "request " + i + " admitted after a refusal");
            }
            assertTrue(admitted[0] && !admitted[admitted.length - 1], "the limit was reached within the batch");
        }
    }

    /**
     * The batch model check: random requests on two policies of one key (all or nothing), random
     * costs (0 included), random algorithms, decided as one batch, against the same requests sent
     * one call each to a store without coalescing, with the same frozen clock: every answer equal.
     */
    @Test
    void randomBatches_twoPoliciesAndCosts_answerExactlyAsSequentialCalls(RedisServer redis) throws Exception {
        List<Algorithm<?>> all = algorithms().toList();
        FakeClock frozen = new FakeClock();
        try (RedisStore batched = store(redis, frozen).prefix("batched").build();
                RedisStore model = store(redis, frozen).prefix("model").coalescing(false).build()) {
            for (int seed = 0; seed < 12; seed++) {
                Random random = new Random(seed);
                Algorithm<?> first = all.get(random.nextInt(all.size()));
                Algorithm<?> second = all.get(random.nextInt(all.size()));
                KeySpace[] b = {batched.keySpace("p" + seed, first), batched.keySpace("q" + seed, second)};
                KeySpace[] m = {model.keySpace("p" + seed, first), model.keySpace("q" + seed, second)};
                List<Request> requests = new ArrayList<>();
                List<Request> expected = new ArrayList<>();
                int n = 2 + random.nextInt(20);
                for (int i = 0; i < n; i++) {
                    long[] costs = {random.nextInt(4), random.nextInt(3)};
                    requests.add(Request.of(costs.clone()));
                    expected.add(Request.of(costs.clone()));
                }
                String key = "key-" + seed;

                boolean[] admitted = coalesced(redis, batched, b, key, requests);

                for (int i = 0; i < n; i++) {
                    String what = "seed " + seed + " (" + first + ", " + second + "), request " + i;
                    assertEquals(model.acquireAll(expected.get(i).claims(m, key)), admitted[i], what);
                    assertEquals(expected.get(i).answers(), requests.get(i).answers(), what);
                }
                frozen.advance(Duration.ofMillis(random.nextInt(1500)));
            }
        }
    }

    @Test
    void queuedSynchronousRequests_hotKey_shareOneCallAndAdmitExactlyTheLimit(RedisServer redis) throws Exception {
        FakeClock frozen = new FakeClock();
        try (RedisStore store = store(redis, frozen).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(LIMIT).build());
            long calls = redis.scriptCalls();
            long timed = store.latency().count(0);
            AtomicLong admitted = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            redis.suspend();
            CompletionStage<Boolean> first;
            try {
                first = store.acquireAllAsync(Claim.of(space, "hot", 1, new MutableDecision(), null));
                for (int i = 0; i < 12; i++) {
                    Thread t = new Thread(() -> {
                        if (space.acquire("hot", 1, new MutableDecision())) {
                            admitted.incrementAndGet();
                        }
                    });
                    t.start();
                    threads.add(t);
                }
                Load.await("12 queued requests", 10_000, () -> store.queuedForBatch() == 12);
            } finally {
                redis.resume();
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
            assertTrue(first.toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals(LIMIT - 1, admitted.get());
            assertEquals(2, redis.scriptCalls() - calls);
            // sluice.store.latency: each round trip timed once, the batch's as an acquisition
            assertEquals(2, store.latency().count(0) - timed, store.latency().toString());
        }
    }

    @Test
    void maxBatch_moreQueuedThanItAllows_sendsFurtherBatchesInOrder(RedisServer redis) throws Exception {
        FakeClock frozen = new FakeClock();
        try (RedisStore store = store(redis, frozen).maxBatch(4).build()) {
            KeySpace[] s = {store.keySpace("p", SlidingLog.builder().limit(LIMIT).window(Duration.ofMinutes(1)).build())};
            List<Request> requests = new ArrayList<>();
            for (int i = 0; i < 11; i++) {
                requests.add(Request.of(1));
            }
            long calls = redis.scriptCalls();

            boolean[] admitted = coalesced(redis, store, s, "hot", requests);

            assertEquals(1 + 3, redis.scriptCalls() - calls, "the first call, then 10 queued in batches of 4, 4, 2");
            for (int i = 0; i < admitted.length; i++) {
                assertEquals(i < LIMIT, admitted[i], "request " + i);
            }
        }
    }

    @Test
    void coalescingOff_queuedRequests_eachSendsItsOwnCall(RedisServer redis) throws Exception {
        FakeClock frozen = new FakeClock();
        try (RedisStore store = store(redis, frozen).coalescing(false).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(LIMIT).build());
            long calls = redis.scriptCalls();
            List<CompletionStage<Boolean>> stages = new ArrayList<>();
            redis.suspend();
            try {
                for (int i = 0; i < 8; i++) {
                    stages.add(store.acquireAllAsync(Claim.of(space, "hot", 1, new MutableDecision(), null)));
                }
                assertEquals(0, store.queuedForBatch());
            } finally {
                redis.resume();
            }
            for (CompletionStage<Boolean> s : stages) {
                s.toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            assertEquals(8, redis.scriptCalls() - calls);
        }
    }

    @Test
    void refundByReceipt_requestsDeniedInAnotherSlot_giveBackTheirBatchedAdmissions(RedisServer redis)
            throws Exception {
        FakeClock frozen = new FakeClock();
        try (RedisStore store = store(redis, frozen).build()) {
            // Per client at most one; the global limit, on another key (another slot), is hot.
            KeySpace perClient = store.keySpace("per-client", TokenBucket.builder().rate(Rate.perHour(1)).burst(1).build());
            KeySpace global = store.keySpace("global", TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build());
            List<CompletionStage<Boolean>> stages = new ArrayList<>();
            redis.suspend();
            try {
                for (int i = 0; i < 10; i++) {
                    stages.add(store.acquireAllAsync(Claim.of(perClient, "alice", 1, new MutableDecision(),
                            Claim.of(global, "all", 1, new MutableDecision(), null))));
                }
                assertEquals(2 * 9, store.queuedForBatch(), "both keys' calls queue");
            } finally {
                redis.resume();
            }
            int admitted = 0;
            for (CompletionStage<Boolean> s : stages) {
                admitted += s.toCompletableFuture().get(10, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertEquals(1, admitted);
            // The refunds were sent before the answers completed, on the same connection.
            MutableDecision peek = new MutableDecision();
            assertTrue(store.acquireAll(Claim.of(global, "all", 0, peek, null)));
            assertEquals(99, peek.remaining(), "only the admitted request's permit stays taken: " + peek);
        }
    }

    @Test
    void batchCallFails_connectionLost_everyMemberFollowsTheFailurePolicy(RedisServer redis) throws Exception {
        FakeClock frozen = new FakeClock();
        try (RedisStore store = store(redis, frozen).failurePolicy(FailurePolicy.failClosed()).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(100).build());
            List<MutableDecision> outs = new ArrayList<>();
            List<CompletionStage<Boolean>> stages = new ArrayList<>();
            redis.suspend();
            for (int i = 0; i < 10; i++) {
                MutableDecision out = new MutableDecision();
                outs.add(out);
                stages.add(store.acquireAllAsync(Claim.of(space, "hot", 1, out, null)));
            }
            assertEquals(9, store.queuedForBatch());

            redis.kill(); // the call in flight fails, and the batch finds no connection

            for (int i = 0; i < stages.size(); i++) {
                assertFalse(stages.get(i).toCompletableFuture().get(10, TimeUnit.SECONDS), "request " + i);
                assertTrue(outs.get(i).degraded(), "request " + i + " decided by the failure policy");
            }
        }
    }

    @Test
    void batchTimesOut_requestsGiveUpWhileQueued_areDecidedByTheFailurePolicyAndNeverSent(RedisServer redis)
            throws Exception {
        FakeClock frozen = new FakeClock();
        try (RedisStore store = store(redis, frozen).commandTimeout(Duration.ofMillis(100)).failureThreshold(1000)
                .failurePolicy(FailurePolicy.failOpen()).build()) {
            KeySpace space = store.keySpace("p", SlidingLog.builder().limit(100).window(Duration.ofMinutes(1)).build());
            List<MutableDecision> outs = new ArrayList<>();
            List<CompletionStage<Boolean>> stages = new ArrayList<>();
            redis.suspend();
            try {
                for (int i = 0; i < 6; i++) {
                    MutableDecision out = new MutableDecision();
                    outs.add(out);
                    stages.add(store.acquireAllAsync(Claim.of(space, "hot", 1, out, null)));
                }
                MutableDecision sync = new MutableDecision();
                outs.add(sync);
                CountDownLatch done = new CountDownLatch(1);
                Thread t = new Thread(() -> {
                    space.acquire("hot", 1, sync);
                    done.countDown();
                });
                t.start();
                assertTrue(done.await(10, TimeUnit.SECONDS));
                for (CompletionStage<Boolean> s : stages) {
                    assertTrue(s.toCompletableFuture().get(10, TimeUnit.SECONDS), "fail-open admits");
                }
                for (int i = 0; i < outs.size(); i++) {
                    assertTrue(outs.get(i).degraded(), "request " + i + " decided by the failure policy");
                }
            } finally {
                redis.resume();
            }
            // Only the call in flight reached the server; the ones that gave up in the queue did
            // not. Read by a store with a long timeout: this one's 100 ms is short for a loaded machine.
            MutableDecision peek = new MutableDecision();
            try (RedisStore reader = store(redis, frozen).build()) {
                KeySpace same = reader.keySpace("p", SlidingLog.builder().limit(100).window(Duration.ofMinutes(1)).build());
                Load.await("the late call's answer", 10_000, () -> {
                    reader.acquireAll(Claim.of(same, "hot", 0, peek, null));
                    return !peek.degraded() && peek.remaining() < 100;
                });
            }
            assertEquals(99, peek.remaining(), "one permit logged: the call in flight's, none of the queued ones'");
        }
    }

    @Test
    void twoStores_manyThreadsOnOneHotKey_neverAdmitMoreThanTheLimitAndShareRoundTrips(RedisServer redis)
            throws Exception {
        FakeClock frozen = new FakeClock();
        Algorithm<?> algorithm = TokenBucket.builder().rate(Rate.perHour(1)).burst(300).build();
        try (RedisStore a = store(redis, frozen).build(); RedisStore b = store(redis, frozen).build()) {
            KeySpace[] spaces = {a.keySpace("shared", algorithm), b.keySpace("shared", algorithm)};
            long calls = redis.scriptCalls();
            int threads = 16;
            int attempts = 40;
            CountDownLatch start = new CountDownLatch(1);
            AtomicLong admitted = new AtomicLong();
            AtomicLong degraded = new AtomicLong();
            List<Thread> all = new ArrayList<>();
            for (int i = 0; i < 2 * threads; i++) {
                KeySpace space = spaces[i % 2];
                Thread t = new Thread(() -> {
                    MutableDecision out = new MutableDecision();
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int n = 0; n < attempts; n++) {
                        if (space.acquire("hot", 1, out)) {
                            admitted.incrementAndGet();
                        }
                        degraded.addAndGet(out.degraded() ? 1 : 0);
                    }
                });
                t.start();
                all.add(t);
            }
            start.countDown();
            for (Thread t : all) {
                t.join();
            }
            assertEquals(0, degraded.get());
            assertEquals(300, admitted.get(), "the limit, exactly: no over-admission across batches and stores");
            long decisions = 2L * threads * attempts;
            assertTrue(redis.scriptCalls() - calls < decisions,
                    "batches formed: " + (redis.scriptCalls() - calls) + " calls for " + decisions + " decisions");
        }
    }

    @Test
    void maxBatch_outOfRange_isRefusedNamingTheValue() {
        IllegalArgumentException low = assertThrows(IllegalArgumentException.class,
                () -> RedisStore.builder().maxBatch(1));
        assertEquals("maxBatch must be between 2 and 1024 but was 1", low.getMessage());
        IllegalArgumentException high = assertThrows(IllegalArgumentException.class,
                () -> RedisStore.builder().maxBatch(1025));
        assertEquals("maxBatch must be between 2 and 1024 but was 1025", high.getMessage());
    }
}
