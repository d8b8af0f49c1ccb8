package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.Script;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decisions by Redis 7 Functions: the store loads its library ({@code FUNCTION LOAD}) and calls it
 * ({@code FCALL}); a library that goes missing, or that the server refuses, changes how calls are
 * made, never what they decide. (The extension empties the server before each test: keys, script
 * cache and functions.)
 */
@ExtendWith(RedisServerExtension.class)
class FunctionsTest {

    private static final String CLIENT = "203.0.113.9";
    private static final String LIBRARY = Script.load().libraryName();

    private static RedisStore.Builder store(RedisServer redis) {
        return RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(5))
                .connectTimeout(Duration.ofSeconds(10)).denialCacheSize(0);
    }

    /** @return whether the server has the store's library */
    static boolean loaded(Object functionList) {
        return String.valueOf(functionList).contains(LIBRARY);
    }

    static List<Algorithm<?>> everyKind() {
        return ScriptLayoutTest.everyKind().toList();
    }

    @ParameterizedTest
    @MethodSource("everyKind")
    void freshServer_libraryLoaded_everyKindDecidesByFcall(Algorithm<?> algorithm, RedisServer redis) {
        // Given a server without the library nor the script (the extension flushed both)
        assertFalse(loaded(redis.call("FUNCTION", "LIST")));
        try (RedisStore store = store(redis).build()) {
            // Then the store loaded its library
            assertTrue(loaded(redis.call("FUNCTION", "LIST")), "FUNCTION LIST: " + redis.call("FUNCTION", "LIST"));
            KeySpace space = store.keySpace("kind", algorithm);
            MutableDecision out = new MutableDecision();
            long fcalls = redis.calls("fcall");

            // And every decision of every kind is one FCALL, never the script
            for (int i = 1; i <= 3; i++) {
                boolean admitted = space.acquire(CLIENT, 1, out);
                assertTrue(admitted || i > 1, "first acquisition of " + algorithm);
                assertFalse(out.degraded(), "decision " + i + " of " + algorithm);
                assertEquals(fcalls + i, redis.calls("fcall"), algorithm.toString());
            }
            assertEquals(0, redis.calls("evalsha") + redis.calls("eval"), "script calls for " + algorithm);
            if (algorithm.limit() == 5 && !(algorithm instanceof io.github.sluice.algorithm.ShapingLeakyBucket)) {
                assertEquals(2, out.remaining(), "remaining after three permits of " + algorithm);
            }
        }
    }

    @Test
    void libraryAlreadyLoaded_secondStore_callsByFunction(RedisServer redis) {
        // Given a library another instance (of the same version) loaded
        try (RedisStore first = store(redis).build(); RedisStore second = store(redis).build()) {
            assertFalse(first.degraded());
            // Then the second store takes the server's "already exists" as loaded, and calls it
            KeySpace space = second.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(5).build());
            MutableDecision out = new MutableDecision();
            long fcalls = redis.calls("fcall");
            assertTrue(space.acquire(CLIENT, 1, out));
            assertFalse(out.degraded());
            assertEquals(fcalls + 1, redis.calls("fcall"));
            assertEquals(0, redis.calls("evalsha") + redis.calls("eval"));
        }
    }

    /** A rolling upgrade: another version's library on the same server is left alone, and not called. */
    @Test
    void anotherVersionsLibrary_onTheServer_eachVersionCallsItsOwn(RedisServer redis) {
        String other = "sluice_000000000000";
        redis.call("FUNCTION", "LOAD", "#!lua name=" + other + "\nredis.register_function{function_name = '" + other
                + "', callback = function(KEYS, ARGV) return redis.error_reply('the other version') end}");
        try (RedisStore store = store(redis).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(5).build());
            MutableDecision out = new MutableDecision();
            assertTrue(space.acquire(CLIENT, 1, out));
            assertFalse(out.degraded());
            assertEquals(4, out.remaining());
            Object list = redis.call("FUNCTION", "LIST");
            assertTrue(loaded(list) && String.valueOf(list).contains(other), String.valueOf(list));
        }
    }

    @Test
    void functionsOff_decidesByEvalshaAndLoadsNoLibrary(RedisServer redis) {
        try (RedisStore store = store(redis).functions(false).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(5).build());
            MutableDecision out = new MutableDecision();
            for (int i = 0; i < 3; i++) {
                assertTrue(space.acquire(CLIENT, 1, out));
            }
            assertEquals(2, out.remaining());
            assertFalse(loaded(redis.call("FUNCTION", "LIST")), "a store with Functions off loaded its library");
            assertEquals(0, redis.calls("fcall"));
            assertEquals(3 + 1, redis.calls("evalsha"), "three decisions and the startup probe");
        }
    }

    /**
     * The attack: {@code FUNCTION FLUSH} (an operator, a {@code FLUSHALL}-like reset, a node
     * replaced by one without the library) while many requests are deciding. No decision may
     * fail or be decided differently: exactly the burst is admitted on a frozen clock.
     */
    @Test
    void functionFlushedMidRun_noDecisionFailsOrChanges_evalOnceThenEvalshaUntilReloaded(RedisServer redis)
            throws Exception {
        int burst = 100;
        int threads = 8;
        int attempts = 40;
        FakeClock frozen = new FakeClock();
        try (LogCapture log = LogCapture.start();
                RedisStore store = store(redis).clientClock(frozen).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(burst).build());
            CyclicBarrier start = new CyclicBarrier(threads + 1);
            CountDownLatch underWay = new CountDownLatch(threads);
            AtomicInteger admitted = new AtomicInteger();
            AtomicInteger degraded = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    MutableDecision out = new MutableDecision();
                    try {
                        start.await();
                        for (int i = 0; i < attempts; i++) {
                            if (space.acquire(CLIENT, 1, out)) {
                                admitted.incrementAndGet();
                            }
                            degraded.addAndGet(out.degraded() ? 1 : 0);
                            if (i == 4) {
                                underWay.countDown();
                            }
                        }
                    } catch (Exception e) {
                        degraded.addAndGet(1_000_000);
                    }
                });
                w.start();
                workers.add(w);
            }
            start.await();
            underWay.await();
            // When the library is flushed while every thread is deciding
            redis.call("FUNCTION", "FLUSH");
            for (Thread w : workers) {
                w.join(30_000);
            }

            // Then no decision failed, and exactly the burst was admitted
            assertEquals(0, degraded.get(), "degraded decisions");
            assertEquals(burst, admitted.get(), "admitted");
            assertTrue(threads * attempts > burst);
            // And the calls that found the function gone were repeated with the source, the
            // store having turned to EVALSHA at the first: at most one EVAL per call in flight
            assertTrue(redis.calls("eval") >= 1, "no call found the function missing");
            assertTrue(redis.calls("eval") <= threads, "EVALs: " + redis.calls("eval"));
            // And the probe's thread loads the library again, after which calls go by FCALL
            Load.await("the library to be loaded again", 10_000, () -> loaded(redis.call("FUNCTION", "LIST")));
            MutableDecision out = new MutableDecision();
            Load.await("a call by FCALL", 10_000, () -> {
                long fcalls = redis.calls("fcall");
                assertFalse(space.acquire(CLIENT, 1, out));
                assertFalse(out.degraded());
                return redis.calls("fcall") == fcalls + 1;
            });
            long evalshas = redis.calls("evalsha");
            assertFalse(space.acquire(CLIENT, 1, out));
            assertEquals(evalshas, redis.calls("evalsha"));
            // And the loss was logged once, at INFO
            assertEquals(1, log.lines().stream().filter(l -> l.level() == Level.INFO
                    && l.message().contains("has lost the function library " + LIBRARY)).count(), log.lines()::toString);
        }
    }

    @Test
    void functionFlushed_eachLaterCallGoesByEvalshaNotByEval(RedisServer redis) {
        try (RedisStore store = store(redis).probeInterval(Duration.ofSeconds(10)).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(60).build());
            MutableDecision out = new MutableDecision();
            assertTrue(space.acquire(CLIENT, 1, out));

            // When the library is flushed between two decisions
            redis.call("FUNCTION", "FLUSH");
            long evals = redis.calls("eval");
            for (int i = 0; i < 50; i++) {
                assertTrue(space.acquire(CLIENT, 1, out));
                assertFalse(out.degraded());
            }

            // Then the first call was repeated once with the source, and the others went by
            // digest (or, once the library was loaded again, by function): never each by EVAL
            assertEquals(9, out.remaining());
            assertEquals(evals + 1, redis.calls("eval"), "EVALs after the flush");
            assertEquals(1 + 1 + 1 + 50, redis.calls("fcall") + redis.calls("evalsha") + redis.calls("eval"),
                    "the startup probe, the first decision, the FCALL that found no function, and 50 calls");
        }
    }

    /**
     * A server that refuses {@code FUNCTION LOAD} (an ACL without the {@code function} command, as
     * managed services have; Redis 6 answers an unknown command): the store starts, decides by
     * {@code EVALSHA}, and says why once.
     */
    @Test
    void functionLoadDeniedByAcl_storeDecidesByEvalsha_logsTheReasonOnce(RedisServer redis) {
        redis.call("ACL", "SETUSER", "nofunction", "on", ">pw-of-the-test", "~*", "&*", "+@all", "-function");
        try (LogCapture log = LogCapture.start();
                RedisStore store = RedisStore.builder()
                        .uri("redis://nofunction:pw-of-the-test@127.0.0.1:" + redis.port())
                        .commandTimeout(Duration.ofMillis(200)).connectTimeout(Duration.ofSeconds(10))
                        .failureThreshold(1).denialCacheSize(0).build()) {
            assertFalse(store.degraded());
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(5).build());
            MutableDecision out = new MutableDecision();
            for (int i = 0; i < 3; i++) {
                assertTrue(space.acquire(CLIENT, 1, out));
                assertFalse(out.degraded());
            }
            assertEquals(2, out.remaining());
            assertEquals(0, redis.calls("fcall"));
            assertEquals(3 + 1, redis.calls("evalsha"), "three decisions and the startup probe");
            assertFalse(loaded(redis.call("FUNCTION", "LIST")));
            Load.await("the refusal to be logged", 10_000, () -> !refusals(log).isEmpty());
            List<LogCapture.Line> refusals = refusals(log);
            assertEquals(1, refusals.size(), refusals::toString);
            assertEquals(Level.INFO, refusals.get(0).level());
            assertTrue(refusals.get(0).message().contains("NOPERM"), refusals.get(0).message());

            // When Redis stops answering for a while, the breaker opens and the probe checks
            // again, FUNCTION LOAD refused again
            redis.call("CLIENT", "PAUSE", "1000", "ALL");
            space.acquire(CLIENT, 1, out);
            assertTrue(out.degraded(), "a decision while the server is paused");
            Load.await("the store to recover", 20_000, () -> !store.degraded());

            // Then the store decides by EVALSHA again, and the refusal was not logged again
            long evalshas = redis.calls("evalsha");
            assertTrue(space.acquire(CLIENT, 1, out));
            assertFalse(out.degraded());
            assertEquals(evalshas + 1, redis.calls("evalsha"));
            assertEquals(0, redis.calls("fcall"));
            assertEquals(1, refusals(log).size(), () -> refusals(log).toString());
        } finally {
            redis.call("CLIENT", "UNPAUSE");
            redis.call("ACL", "DELUSER", "nofunction");
        }
    }

    /**
     * A server that cannot load the library now (a read-only replica: a primary demoted by a
     * failover; or busy, loading, out of memory) has not refused it: calls go by EVALSHA until it
     * can, and the probe's thread loads it then, without a refusal logged.
     */
    @Test
    void functionLoadAnsweredReadOnly_isNoRefusal_libraryLoadedOnceWritable(RedisServer redis) throws Exception {
        int nowhere;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            nowhere = s.getLocalPort();
        }
        redis.call("REPLICAOF", "127.0.0.1", Integer.toString(nowhere));
        try (LogCapture log = LogCapture.start(); RedisStore store = store(redis).build()) {
            assertFalse(loaded(redis.call("FUNCTION", "LIST")));
            KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.perHour(1)).burst(5).build());

            // When the server is writable again
            redis.call("REPLICAOF", "NO", "ONE");

            // Then the store loads the library and calls it, having logged no refusal
            MutableDecision out = new MutableDecision();
            Load.await("a call by FCALL", 10_000, () -> {
                long fcalls = redis.calls("fcall");
                space.acquire(CLIENT, 0, out);
                assertFalse(out.degraded());
                return redis.calls("fcall") == fcalls + 1;
            });
            assertTrue(loaded(redis.call("FUNCTION", "LIST")));
            assertEquals(List.of(), refusals(log));
        } finally {
            redis.call("REPLICAOF", "NO", "ONE");
        }
    }

    private static List<LogCapture.Line> refusals(LogCapture log) {
        return log.lines().stream().filter(l -> l.message().contains("refused the function library")).toList();
    }
}
