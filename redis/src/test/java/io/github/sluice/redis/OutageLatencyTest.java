package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Request latency while a real redis-server is paused ({@code CLIENT PAUSE}), frozen (SIGSTOP)
 * or killed (SIGKILL, then restarted): every call of {@value #THREADS} request threads is timed,
 * and none may take longer than the command timeout plus a margin for this machine's scheduling.
 *
 * <p>The margin comes from a control run in the same load: {@value #CONTROL_THREADS} threads that
 * wait the command timeout on a future nobody completes, i.e. the very wait of a request on a
 * silent Redis without Redis. How late they wake is what the machine adds to any timed wait; the
 * margin is twice the worst of it, and at least {@value #MARGIN_FLOOR_MILLIS} ms (see
 * docs/redis.md for the distributions measured).
 *
 * <p>Each run also checks that the failure policy decides during the outage, that the limits
 * hold after recovery, and that the degradation is still told (listener, log) in order, on the
 * store's event thread rather than inline.
 */
@ExtendWith(RedisServerExtension.class)
class OutageLatencyTest {

    private static final Clock REAL = Clock.system();
    static final Duration TIMEOUT = Duration.ofMillis(50);
    private static final long OUTAGE_MILLIS = 800;
    private static final int THREADS = 8;
    private static final int CONTROL_THREADS = 2;
    private static final long MARGIN_FLOOR_MILLIS = 100;
    private static final long LIMIT = 1_000_000;
    private static final int SMALL = 8;
    private static final int INSTANCES = 4;
    private static final String EVENTS_THREAD = "sluice-redis-events-";

    /** A quota that a test uses up, and that does not come back during the test. */
    private static Algorithm<?> small() {
        return TokenBucket.of(Rate.perHour(SMALL));
    }

    static Stream<Arguments> outagesAndPolicies() {
        List<Arguments> all = new ArrayList<>();
        for (Outage o : Outage.values()) {
            for (FailurePolicy p : List.of(FailurePolicy.failOpen(), FailurePolicy.failClosed(503),
                    FailurePolicy.localFallback(INSTANCES))) {
                all.add(Arguments.of(o, p));
            }
        }
        return all.stream();
    }

    /** What every degraded decision of the load (a huge limit) must look like. */
    private static Predicate<MutableDecision> rule(FailurePolicy policy) {
        return switch (policy.mode()) {
            case FAIL_OPEN -> d -> d.allowed() && d.limit() == LIMIT;
            case FAIL_CLOSED -> d -> !d.allowed() && d.denialStatus() == policy.status()
                    && d.retryAfterNanos() > 0;
            case LOCAL_FALLBACK -> d -> d.allowed() && d.limit() == LIMIT / INSTANCES;
        };
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("outagesAndPolicies")
    void outage_noCallWaitsPastTheTimeout_policyDecides_limitsHoldAfter(Outage outage,
            FailurePolicy policy, RedisServer redis) throws Exception {
        RecordingListener listener = new RecordingListener();
        try (LogCapture log = LogCapture.start();
                RedisStore store = RedisStore.builder().uri(redis.uri()).name("outage")
                        .commandTimeout(TIMEOUT).denialCacheSize(0).failurePolicy(policy)
                        .listener(listener).build()) {
            KeySpace load = store.keySpace("load", TokenBucket.of(Rate.perSecond(LIMIT)));
            KeySpace small = store.keySpace("small", small());
            // Given a key whose quota is used up before the outage
            MutableDecision d = new MutableDecision();
            for (int i = 0; i < SMALL; i++) {
                assertTrue(small.acquire("exhausted", 1, d) && !d.degraded(), d::toString);
            }

            Run run = Run.during(redis, outage, store, load, rule(policy));

            // Then no request waited past the timeout and the failure policy decided
            run.print(outage + ", " + policy);
            run.assertBounded();
            assertTrue(run.load.degraded.get() > 0, "the outage was not seen");
            assertEquals(0, run.load.violations.get(), () -> policy + " violated by " + run.load.violationSamples);
            checkPolicy(policy, run.duringOutage);

            // And the limits hold after recovery
            assertFalse(store.degraded());
            MutableDecision after = new MutableDecision();
            boolean admitted = small.acquire("exhausted", 1, after);
            if (outage.keepsData()) {
                assertFalse(admitted, "a quota used up before the outage: " + after);
            } else {
                assertTrue(admitted, "SIGKILL without persistence loses the count: " + after);
            }
            assertExactlyTheLimitUnderContention(store);

            // And the degradation was told, in order, on the store's event thread
            Load.await("the recovery event", 5_000, () -> listener.recovered.get() >= 1
                    && listener.recovered.get() == listener.degraded.get()
                    && listener.order.size() == listener.entered.get());
            assertTrue(listener.alternates(), listener.order::toString);
            assertEquals(0, listener.overlaps.get(), "listener calls overlapped");
            assertEquals("outage", listener.store);
            for (String thread : listener.threads) {
                assertTrue(thread.startsWith(EVENTS_THREAD), "listener called on " + thread);
            }
            Load.await("the log lines", 5_000, () -> log.lines().stream().anyMatch(
                    l -> l.message().contains("recovered")));
            assertTrue(log.lines().stream().anyMatch(l -> l.level() == java.util.logging.Level.WARNING
                    && l.message().contains("degraded")), log.lines()::toString);
            for (LogCapture.Line l : log.lines()) {
                assertTrue(l.thread().startsWith(EVENTS_THREAD), "logged on " + l.thread() + ": " + l);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Outage.class)
    void outage_hungLogHandlerAndListener_noRequestWaitsForThem(Outage outage, RedisServer redis)
            throws Exception {
        // Given a log handler and a listener that hang (a full pipe, a webhook that never answers)
        RecordingListener listener = RecordingListener.blocking();
        LogCapture log = LogCapture.blocking();
        try (log) {
            RedisStore store = RedisStore.builder().uri(redis.uri()).name("hung")
                    .commandTimeout(TIMEOUT).failurePolicy(FailurePolicy.failClosed(503))
                    .listener(listener).build();
            try {
                KeySpace load = store.keySpace("load", TokenBucket.of(Rate.perSecond(LIMIT)));

                // When Redis stops answering, the store degrades, and Redis comes back
                Run run = Run.during(redis, outage, store, load, rule(FailurePolicy.failClosed(503)));

                // Then no request waited for the log or the listener
                run.print(outage + ", hung log handler and listener");
                assertEquals(0, run.load.hung(), "requests hung: " + run.load.latencies());
                run.assertBounded();
                assertEquals(0, run.load.violations.get(), run.load.violationSamples::toString);
            } finally {
                // And closing does not wait for them either
                long t0 = REAL.nanos();
                store.close();
                long closing = REAL.nanos() - t0;
                System.out.printf("%s: close() with a hung listener took %.0f ms%n", outage, closing / 1e6);
                assertTrue(closing < 10_000_000_000L, "close() took " + closing / 1e6 + " ms");
            }
        } finally {
            listener.unblock();
        }
        // And once the listener returns, what it was told is in order
        assertTrue(listener.alternates(), listener.order::toString);
        assertEquals(0, listener.overlaps.get());
    }

    private static void checkPolicy(FailurePolicy policy, List<MutableDecision> decisions) {
        assertEquals(4, decisions.size());
        for (int i = 0; i < decisions.size(); i++) {
            MutableDecision d = decisions.get(i);
            assertTrue(d.degraded(), d::toString);
            switch (policy.mode()) {
                case FAIL_OPEN -> assertTrue(d.allowed(), d::toString);
                case FAIL_CLOSED -> {
                    assertFalse(d.allowed(), d::toString);
                    assertEquals(503, d.denialStatus());
                }
                case LOCAL_FALLBACK -> {
                    // The in-memory limit: the shared one divided by the instance count
                    assertEquals(SMALL / INSTANCES, d.limit(), d::toString);
                    assertEquals(i < SMALL / INSTANCES, d.allowed(), d::toString);
                }
            }
        }
    }

    /**
     * Many threads released together on a fresh key: exactly the limit is admitted, by Redis. A
     * round in which the loaded machine made a call miss the timeout is not conclusive and is
     * repeated, once the breaker (which such misses may have opened) has closed again.
     */
    private static void assertExactlyTheLimitUnderContention(RedisStore store) throws InterruptedException {
        assertExactlyTheLimitUnderContention(store, round -> "fresh-" + round);
    }

    /**
     * As above, with the key of each round chosen by the caller (e.g. a key on a given master).
     *
     * @param keyOfRound the fresh key of each round (0 to 9)
     */
    static void assertExactlyTheLimitUnderContention(RedisStore store,
            java.util.function.IntFunction<String> keyOfRound) throws InterruptedException {
        int limit = 10;
        // (a token bucket refilling once in six minutes: no window boundary to cross mid-test)
        KeySpace space = store.keySpace("after", TokenBucket.of(Rate.perHour(limit)));
        for (int round = 0; round < 10; round++) {
            Load.await("the breaker to be closed", 10_000, () -> !store.degraded());
            String key = keyOfRound.apply(round);
            AtomicInteger admitted = new AtomicInteger();
            AtomicInteger degraded = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2 * THREADS; t++) {
                Thread thread = new Thread(() -> {
                    MutableDecision out = new MutableDecision();
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (space.acquire(key, 1, out) && !out.degraded()) {
                        admitted.incrementAndGet();
                    }
                    degraded.addAndGet(out.degraded() ? 1 : 0);
                });
                thread.start();
                threads.add(thread);
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(admitted.get() <= limit, "Redis admitted " + admitted.get() + " of " + limit);
            if (degraded.get() == 0) {
                assertEquals(limit, admitted.get());
                return;
            }
        }
        throw new AssertionError("every round had a call that missed the timeout");
    }

    /** One load run across an outage, with its control. */
    static final class Run {
        final Load load;
        final Load control;
        final List<MutableDecision> duringOutage = new ArrayList<>();
        long recoveryNanos;

        private Run(Load load, Load control) {
            this.load = load;
            this.control = control;
        }

        /**
         * Runs the load across the outage. A step that does not happen in time (the breaker does
         * not open, the store does not recover) is kept as {@link #failure} and the run goes on,
         * so that the latencies are still measured and the server is always brought back.
         */
        static Run during(RedisServer redis, Outage outage, RedisStore store, KeySpace space,
                Predicate<MutableDecision> rule) throws Exception {
            Load control = new Load(silentRedis(), CONTROL_THREADS, d -> true, 1_000_000);
            Load load = new Load(space, THREADS, rule, 1_000_000);
            Run run = new Run(load, control);
            try (load; control) {
                Load.await("decisions from Redis", 10_000, () -> load.authoritative.get() >= 200);

                // When Redis stops answering
                long begun = REAL.nanos();
                outage.begin(redis, OUTAGE_MILLIS);
                try {
                    run.step(() -> Load.await("the breaker to open", 5_000, store::degraded));
                    KeySpace small = store.keySpace("small", small());
                    for (int i = 0; i < 4; i++) {
                        MutableDecision d = new MutableDecision();
                        small.acquire("during", 1, d);
                        run.duringOutage.add(d);
                    }
                    // (the real server's timing is what is under test)
                    long left = OUTAGE_MILLIS - (REAL.nanos() - begun) / 1_000_000;
                    if (left > 0) {
                        Thread.sleep(left);
                    }
                } finally {
                    outage.end(redis);
                }
                long ended = REAL.nanos();

                // And answers again
                run.step(() -> Load.await("recovery", 10_000, () -> !store.degraded()));
                run.recoveryNanos = REAL.nanos() - ended;
                long before = load.authoritative.get();
                run.step(() -> Load.await("decisions from Redis again", 10_000,
                        () -> load.authoritative.get() >= before + 100));
            }
            return run;
        }

        AssertionError failure;

        private void step(Runnable r) {
            if (failure != null) {
                return;
            }
            try {
                r.run();
            } catch (AssertionError e) {
                failure = e;
            }
        }

        /** The margin this run's own control justifies. */
        long marginNanos() {
            long excess = Math.max(0, control.latencies().max() - TIMEOUT.toNanos());
            return Math.max(MARGIN_FLOOR_MILLIS * 1_000_000L, 2 * excess);
        }

        void assertBounded() {
            if (failure != null) {
                throw failure;
            }
            assertTrue(load.errors.isEmpty(), () -> "exceptions reached the caller: " + load.errors);
            Load.Latencies l = load.latencies();
            long bound = TIMEOUT.toNanos() + marginNanos();
            assertTrue(l.max() <= bound, String.format("slowest call %.1f ms > %.1f ms (timeout %d ms"
                    + " + margin %.1f ms from the control: %s)", l.max() / 1e6, bound / 1e6,
                    TIMEOUT.toMillis(), marginNanos() / 1e6, control.latencies()));
        }

        void print(String what) {
            Load.Latencies l = load.latencies();
            System.out.printf("%s: requests %s, %d hung, %d degraded, %d over the timeout + 5 ms"
                    + " | control (a %d ms wait) %s | recovered %.0f ms after the outage ended%s%n",
                    what, l, load.hung(), load.degraded.get(), l.above(TIMEOUT.toNanos() + 5_000_000L),
                    TIMEOUT.toMillis(), control.latencies(), recoveryNanos / 1e6,
                    failure == null ? "" : " | " + failure.getMessage());
        }
    }

    /** A key space whose every call waits the timeout for a reply that never comes. */
    static KeySpace silentRedis() {
        CompletableFuture<Void> never = new CompletableFuture<>();
        return new KeySpace() {
            @Override
            public String name() {
                return "control";
            }

            @Override
            public Algorithm<?> algorithm() {
                return TokenBucket.of(Rate.perSecond(LIMIT));
            }

            @Override
            public boolean acquire(String key, long cost, MutableDecision out) {
                try {
                    never.get(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
                } catch (TimeoutException expected) {
                    // What a request on a silent Redis does.
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                    throw new AssertionError(e);
                }
                out.allow(LIMIT, LIMIT, 0);
                return true;
            }

            @Override
            public void release(String key, long cost) {
            }

            @Override
            public void refund(String key, long cost, MutableDecision admission) {
            }

            @Override
            public long size() {
                return 0;
            }
        };
    }
}
