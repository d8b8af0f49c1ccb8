package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.PolicySet;
import io.github.sluice.http.Verdict;
import io.github.sluice.redis.testing.RedisCluster;
import io.github.sluice.redis.testing.RedisClusterExtension;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.testing.FakeRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.blockhound.BlockHound;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The asynchronous decision never blocks a non-blocking thread, proved by BlockHound: every
 * algorithm the Redis store runs, alone, together in one script call, mixed with an adaptive
 * (local) policy and with a dry-run one, under every failure policy, with Redis up, down (killed),
 * paused ({@code CLIENT PAUSE}) and restarting. Requests start on Reactor's parallel scheduler
 * (threads BlockHound checks through Reactor's integration); their continuations and releases run
 * where the decision completes: Lettuce's Netty I/O threads (checked through Netty's
 * integration), the store's timer thread (checked here), or the calling thread. Every ending
 * (a status, a failure, a timeout, an abort) is given on those threads too. The same in memory,
 * and on a Redis Cluster with Redis up.
 *
 * <p>This class runs in a JVM of its own (the {@code blockhound} execution of surefire): BlockHound
 * cannot be uninstalled.
 */
@ExtendWith(RedisServerExtension.class)
class AsyncDecisionBlockHoundTest {

    /** Every blocking call BlockHound saw on a non-blocking thread, with where it was made. */
    private static final List<String> BLOCKED = new CopyOnWriteArrayList<>();

    static {
        BlockHound.builder()
                .loadIntegrations()
                .nonBlockingThreadPredicate(p -> p.or(t -> t.getName().startsWith("sluice-redis-timer-")))
                // Lettuce's endpoint takes a ReentrantLock around a counter of writers on every
                // command it sends (SharedLock.incrementWriters), contended only by another writer's
                // increment or by the client's own connect and close; no I/O, no wait for Redis. It is
                // how every user of Lettuce's asynchronous API sends from an event loop, as Reactor
                // and Netty allow their own queue locks (docs/redis.md, "Deciding without blocking").
                .allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
                // The in-memory store (the local fallback, adaptive policies) keeps a key it sees
                // for the first time under a shard's lock: bounded work, no I/O. Its first round
                // only tries each shard's lock; the second, reached when every shard was busy or
                // full, waits for one (docs/architecture.md, "The asynchronous decision").
                .allowBlockingCallsInside("io.github.sluice.store.ShardedRegistry$Space", "keep")
                // The store's timer purges its cancelled timeouts every half timeout: it walks its
                // own queue under the queue's lock, the lock that arming a timeout (the queue's
                // offer, which Reactor's integration allows) takes on the I/O threads. A purge that
                // meets an arming parks for that offer only: bounded, no I/O. Seen once in CI.
                .allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "purge")
                // Recorded, not thrown: an error thrown from inside a lock's park would leave the
                // lock's queue broken and hang the client, hiding the report.
                .blockingMethodCallback(m -> {
                    StringBuilder where = new StringBuilder(Thread.currentThread().getName()).append(": ").append(m);
                    StackTraceElement[] stack = new Throwable().getStackTrace();
                    for (int i = 0; i < Math.min(stack.length, 40); i++) {
                        where.append("\n\tat ").append(stack[i]);
                    }
                    BLOCKED.add(where.toString());
                })
                .install();
    }

    private static final String POLICIES = String.join("\n",
            "tb = token-bucket 1000/1s key=ip",
            "gc = gcra 1000/1s key=ip",
            "fw = fixed-window 1000/1s key=ip",
            "sw = sliding-window 1000/1s key=ip",
            "lb = leaky-bucket 1000/1s key=ip",
            "sl = sliding-log 1000/1s key=ip",
            "sh = shaping 1000/1s key=ip",
            "sb = smooth-bursty 1000/1s key=ip",
            "cc = concurrency 8 key=ip",
            "cw = concurrency 1 max-wait=20ms key=ip",
            "ad = adaptive aimd key=ip",
            "dr = token-bucket 5/1m key=ip dry-run");
    private static final List<String> REDIS = List.of("tb", "gc", "fw", "sw", "lb", "sl", "sh", "sb", "cc", "cw");
    private static final Duration TIMEOUT = Duration.ofMillis(50);

    enum State { UP, DOWN, PAUSED, RESTARTING }

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (FailurePolicy f : List.of(FailurePolicy.failOpen(), FailurePolicy.failClosed(503),
                FailurePolicy.localFallback(2))) {
            for (State s : State.values()) {
                all.add(Arguments.of(f, s));
            }
        }
        return all.stream();
    }

    @Timeout(60)
    @ParameterizedTest(name = "{0}, Redis {1}")
    @MethodSource("cases")
    void enforceAsync_onNonBlockingThreads_neverBlocks(FailurePolicy failure, State state, RedisServer redis)
            throws Exception {
        enforceAsync(failure, state, redis, false);
    }

    static Stream<Arguments> leaseCases() {
        return Stream.of(Arguments.of(FailurePolicy.failOpen(), State.UP),
                Arguments.of(FailurePolicy.failClosed(503), State.DOWN),
                Arguments.of(FailurePolicy.localFallback(2), State.PAUSED));
    }

    /**
     * Lease mode: a decision from the share completes on the calling thread, a refill on Lettuce's
     * I/O thread (or the timer's, when it times out), and neither blocks.
     */
    @Timeout(60)
    @ParameterizedTest(name = "leases, {0}, Redis {1}")
    @MethodSource("leaseCases")
    void enforceAsync_leases_onNonBlockingThreads_neverBlocks(FailurePolicy failure, State state, RedisServer redis)
            throws Exception {
        enforceAsync(failure, state, redis, true);
    }

    private void enforceAsync(FailurePolicy failure, State state, RedisServer redis, boolean leases) throws Exception {
        // Given an enforcer of every Redis algorithm, an adaptive and a dry-run policy, on Redis
        // (Redis up: a timeout long enough that a loaded machine's pauses do not degrade decisions)
        Duration timeout = state == State.UP ? Duration.ofSeconds(2) : TIMEOUT;
        RedisStore.Builder builder = RedisStore.builder().uri(redis.uri()).commandTimeout(timeout)
                .probeInterval(Duration.ofMillis(20)).failurePolicy(failure);
        try (RedisStore store = (leases ? builder.leases(0.05, Duration.ofMillis(20)) : builder).build();
                Enforcer enforcer = Enforcer.builder().store(store).listener(EnforcementListener.NONE)
                        .policies(POLICIES).build()) {
            Load load = new Load(enforcer, failure);
            BLOCKED.clear();
            load.batch(); // the first decisions, from Redis, the waiting ones polled on the timer
            load.holdNoMore();

            // When Redis is in the state, decisions start on non-blocking threads
            switch (state) {
                case UP -> load.until(() -> load.fromRedis.get() > 2_000);
                case DOWN -> {
                    redis.kill();
                    load.until(() -> store.degraded() && load.degraded.get() > 1_000);
                }
                case PAUSED -> {
                    redis.call("CLIENT", "PAUSE", "300", "ALL");
                    load.until(() -> load.degraded.get() > 200);
                    long before = load.fromRedis.get();
                    load.until(() -> !store.degraded() && load.fromRedis.get() > before + 200);
                }
                case RESTARTING -> {
                    redis.kill();
                    load.until(() -> store.degraded() && load.degraded.get() > 200);
                    Thread restart = new Thread(() -> {
                        try {
                            redis.start();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
                    restart.start();
                    long before = load.fromRedis.get();
                    load.until(() -> !store.degraded() && load.fromRedis.get() > before + 200);
                    restart.join();
                }
            }

            // Then nothing blocked, every stage completed normally, degraded decisions followed the policy
            assertTrue(BLOCKED.isEmpty(), () -> BLOCKED.size() + " blocking calls, the first:\n" + BLOCKED.get(0));
            assertTrue(load.errors.isEmpty(), () -> "stages failed: " + load.errors);
            assertTrue(load.broken.isEmpty(), () -> "degraded decisions broke " + failure + ": " + load.broken);
            if (state == State.UP) {
                assertEquals(0, load.degraded.get(), "degraded decisions with Redis up");
            } else {
                assertTrue(load.degraded.get() > 0, "no decision followed the failure policy");
            }
        }
    }

    @Timeout(60)
    @Test
    void enforceAsync_inMemory_onNonBlockingThreads_neverBlocks() throws Exception {
        // Given the same policies in memory, among them a concurrency limit that waits up to 20 ms
        try (Enforcer enforcer = Enforcer.builder().listener(EnforcementListener.NONE).policies(POLICIES).build()) {
            Load load = new Load(enforcer, null);
            BLOCKED.clear();

            // When decisions start on non-blocking threads, many of them waiting for the one permit
            load.batch();
            load.holdNoMore();
            long before = load.decided.get();
            load.until(() -> load.decided.get() > before + 2_000);

            // Then nothing blocked (the wait polls), and every stage completed normally
            assertTrue(BLOCKED.isEmpty(), () -> BLOCKED.size() + " blocking calls, the first:\n" + BLOCKED.get(0));
            assertTrue(load.errors.isEmpty(), () -> "stages failed: " + load.errors);
            assertFalse(enforcer.decidesAtOnce(), "a policy that waits: enforce() is not for an event loop");
        }
    }

    /** The same on a Redis Cluster: calls routed to three masters, replies on the client's I/O threads. */
    @Nested
    @ExtendWith(RedisClusterExtension.class)
    class OnACluster {

        @Timeout(120)
        @Test
        void enforceAsync_clusterUp_neverBlocks(RedisCluster cluster) throws Exception {
            try (RedisStore store = RedisStore.builder().uri(cluster.uri()).commandTimeout(Duration.ofSeconds(2))
                    .connectTimeout(Duration.ofSeconds(10)).build();
                    Enforcer enforcer = Enforcer.builder().store(store).listener(EnforcementListener.NONE)
                            .policies(POLICIES).build()) {
                Load load = new Load(enforcer, FailurePolicy.failOpen());
                BLOCKED.clear();
                load.batch();
                load.holdNoMore();
                load.until(() -> load.fromRedis.get() > 2_000);

                assertTrue(BLOCKED.isEmpty(), () -> BLOCKED.size() + " blocking calls, the first:\n" + BLOCKED.get(0));
                assertTrue(load.errors.isEmpty(), () -> "stages failed: " + load.errors);
                assertEquals(0, load.degraded.get(), "degraded decisions with the cluster up");
            }
        }
    }

    /** The harness itself: the synchronous path on a parallel thread is caught, so the test above can fail. */
    @Timeout(60)
    @Test
    void enforce_onNonBlockingThread_isCaughtBlocking(RedisServer redis) throws Exception {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(TIMEOUT).build();
                Enforcer enforcer = Enforcer.builder().store(store).listener(EnforcementListener.NONE)
                        .policies("tb = token-bucket 1000/1s key=ip").build()) {
            BLOCKED.clear();
            // Redis holds the reply back: the synchronous path must wait for it (or for its timeout)
            redis.call("CLIENT", "PAUSE", "200", "ALL");
            CountDownLatch done = new CountDownLatch(1);
            List<Throwable> thrown = new CopyOnWriteArrayList<>();
            Schedulers.parallel().schedule(() -> {
                try {
                    enforcer.enforce(FakeRequest.get("/").peer("198.51.100.1"));
                } catch (Throwable t) {
                    thrown.add(t);
                } finally {
                    done.countDown();
                }
            });
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertTrue(thrown.isEmpty(), () -> "thrown: " + thrown);
            assertTrue(BLOCKED.stream().anyMatch(b -> b.contains("ScriptCall.await")),
                    () -> "BlockHound did not see the synchronous path wait for Redis: " + BLOCKED);
            BLOCKED.clear();
        }
    }

    /** Requests in batches from Reactor's parallel scheduler, each decided asynchronously and ended. */
    private static final class Load {
        private static final int BATCH = 64;
        private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(20);
        private final Enforcer enforcer;
        private final FailurePolicy failure;
        private final Scheduler threads = Schedulers.parallel();
        private final List<PolicySet> selections = new ArrayList<>();
        final AtomicLong decided = new AtomicLong();
        final AtomicLong fromRedis = new AtomicLong();
        final AtomicLong degraded = new AtomicLong();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();
        final List<String> broken = new CopyOnWriteArrayList<>();
        private final AtomicInteger sequence = new AtomicInteger();

        /** A permit of the waiting concurrency policy per client, held by the test thread. */
        private final List<Verdict> held = new ArrayList<>();

        Load(Enforcer enforcer, FailurePolicy failure) {
            this.enforcer = enforcer;
            this.failure = failure;
            // Each client's one permit of 'cw' is taken here, so that the requests' own 'cw'
            // claims find none and wait (polled, never slept) until holdNoMore().
            for (int peer = 0; peer < 7; peer++) {
                held.add(enforcer.enforce(FakeRequest.get("/").peer("198.51.100." + peer), enforcer.select("cw")));
            }
            selections.add(null); // every policy by its match: one Redis call, then the adaptive one, then dry-run
            selections.add(enforcer.select(REDIS.toArray(new String[0]))); // one script call for all
            for (String name : REDIS) {
                selections.add(enforcer.select(name)); // each algorithm alone
            }
            selections.add(enforcer.select("ad", "tb", "cc")); // local and Redis in turn
        }

        /** Gives back the held permits: from now on the waiting requests can be admitted. */
        void holdNoMore() {
            held.forEach(Verdict::release);
        }

        void until(BooleanSupplier done) throws InterruptedException {
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            while (!done.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("not reached in time; from Redis " + fromRedis + ", degraded " + degraded
                            + ", blocked " + BLOCKED.size() + ", errors " + errors);
                }
                batch();
            }
        }

        void batch() throws InterruptedException {
            CountDownLatch done = new CountDownLatch(BATCH);
            for (int i = 0; i < BATCH; i++) {
                int n = sequence.getAndIncrement();
                PolicySet selection = selections.get(n % selections.size());
                FakeRequest request = FakeRequest.get("/").peer("198.51.100." + (n % 7));
                threads.schedule(() -> {
                    try {
                        CompletionStage<Verdict> s = selection == null ? enforcer.enforceAsync(request)
                                : enforcer.enforceAsync(request, selection);
                        s.whenComplete((v, t) -> {
                            try {
                                if (t != null) {
                                    errors.add(t);
                                } else {
                                    check(v);
                                    end(v, n);
                                }
                            } catch (Throwable e) {
                                errors.add(e);
                            } finally {
                                done.countDown();
                            }
                        });
                    } catch (Throwable t) {
                        errors.add(t);
                        done.countDown();
                    }
                });
            }
            if (!done.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError(done.getCount() + " decisions never completed");
            }
        }

        /** Ends the request as one of the endings, on the thread the decision completed on. */
        private static void end(Verdict v, int n) {
            switch (n % 4) {
                case 0 -> v.release(200);
                case 1 -> v.releaseFailed();
                case 2 -> v.releaseTimedOut();
                default -> v.releaseAborted();
            }
            if (!v.released()) {
                throw new AssertionError("still held after its ending: " + v);
            }
        }

        private void check(Verdict v) {
            decided.incrementAndGet();
            if (failure == null) {
                return; // in memory: nothing degrades
            }
            boolean anyDegraded = false;
            for (int i = 0; i < v.size(); i++) {
                if (v.policy(i).name().equals("ad")) {
                    continue; // local: never degraded
                }
                if (!v.degraded(i)) {
                    fromRedis.incrementAndGet();
                    continue;
                }
                anyDegraded = true;
                degraded.incrementAndGet();
                boolean allowed = v.decision(i).allowed();
                switch (failure.mode()) {
                    case FAIL_OPEN -> {
                        if (!allowed) {
                            broken.add("fail-open refused " + v);
                        }
                    }
                    case FAIL_CLOSED -> {
                        if (allowed) {
                            broken.add("fail-closed admitted " + v);
                        }
                    }
                    default -> {
                        if (v.decision(i).limit() >= v.policy(i).algorithm().limit()
                                && v.policy(i).algorithm().limit() > 1) {
                            broken.add("the local fallback decided with the shared limit " + v);
                        }
                    }
                }
            }
            if (anyDegraded && failure.mode() == FailurePolicy.Mode.FAIL_CLOSED && !v.denied()
                    && !onlyDryRunDegraded(v)) {
                broken.add("fail-closed let a request through " + v);
            }
        }

        private static boolean onlyDryRunDegraded(Verdict v) {
            for (int i = 0; i < v.size(); i++) {
                if (v.degraded(i) && !v.dryRun(i)) {
                    return false;
                }
            }
            return true;
        }
    }
}
