package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A slow Redis, simulated with {@code CLIENT PAUSE}, and a Redis that is down when the store
 * starts: requests never wait longer than the command timeout, and the store recovers within a
 * second of Redis answering.
 */
@ExtendWith(RedisServerExtension.class)
class SlowRedisTest {

    private static final Duration TIMEOUT = Duration.ofMillis(50);
    /**
     * Thread scheduling on a shared, overloaded machine (load averages of 25 on two cores were
     * seen). What this catches is a hang: Lettuce's own default timeout is 60 s, and a command
     * queued while disconnected would wait for the reconnection.
     */
    private static final long NOISE_NANOS = 1_000_000_000L;
    private static final Clock REAL = Clock.system();

    private static RedisStore.Builder store(RedisServer redis, RecordingListener listener) {
        return RedisStore.builder().uri(redis.uri()).commandTimeout(TIMEOUT)
                .failurePolicy(FailurePolicy.failClosed(503)).listener(listener);
    }

    @Test
    void acquire_redisPaused_returnsDegradedAfterTheTimeout(RedisServer redis) {
        // Given a store that answers from Redis
        try (RedisStore store = store(redis, new RecordingListener()).build()) {
            KeySpace space = store.keySpace("slow", TokenBucket.of(Rate.perSecond(100)));
            MutableDecision out = new MutableDecision();
            space.acquire("k", 1, out);
            assertFalse(out.degraded());

            // When Redis stops answering for longer than the timeout
            redis.call("CLIENT", "PAUSE", "300", "ALL");
            long t0 = REAL.nanos();
            boolean admitted = space.acquire("k", 1, out);
            long waited = REAL.nanos() - t0;

            // Then the request waited the timeout, no more, and the failure policy decided
            assertFalse(admitted);
            assertTrue(out.degraded());
            assertEquals(503, out.denialStatus());
            assertTrue(waited >= TIMEOUT.toNanos() - 5_000_000L, "waited " + waited / 1e6 + " ms");
            assertTrue(waited <= TIMEOUT.toNanos() + NOISE_NANOS, "waited " + waited / 1e6 + " ms");
        }
    }

    @Test
    void load_redisPausedForASecond_degradesWithinTimeoutThenRecovers(RedisServer redis)
            throws Exception {
        RecordingListener listener = new RecordingListener();
        try (RedisStore store = store(redis, listener).build()) {
            KeySpace space = store.keySpace("slow",
                    TokenBucket.of(Rate.perSecond(1_000_000)));
            try (Load load = new Load(space, 4, d -> !d.allowed() && d.denialStatus() == 503)) {
                Load.await("decisions from Redis", 5_000, () -> load.authoritative.get() >= 100);

                // When Redis is paused for one second
                redis.call("CLIENT", "PAUSE", "1000", "ALL");
                long pausedAt = REAL.nanos();
                Load.await("the breaker to open", 2_000, store::degraded);
                Load.await("recovery", 5_000, () -> !store.degraded());
                long recovery = REAL.nanos() - pausedAt - 1_000_000_000L;
                long before = load.authoritative.get();
                Load.await("decisions from Redis again", 5_000, () -> load.authoritative.get() > before + 50);
                load.stop();

                // Then no call waited past the timeout and Redis was used again within a second
                System.out.printf("CLIENT PAUSE: %d calls, %d degraded, slowest %.1f ms, recovered"
                        + " %.0f ms after the pause ended%n", load.calls.get(), load.degraded.get(),
                        load.maxLatencyNanos.get() / 1e6, recovery / 1e6);
                assertTrue(load.errors.isEmpty(), () -> "exceptions: " + load.errors);
                assertEquals(0, load.violations.get(), load.violationSamples::toString);
                assertTrue(load.degraded.get() > 0);
                assertTrue(load.maxLatencyNanos.get() <= TIMEOUT.toNanos() + NOISE_NANOS,
                        "slowest call " + load.maxLatencyNanos.get() / 1e6 + " ms");
                assertTrue(recovery < 1_000_000_000L, "recovered " + recovery / 1e6 + " ms after the pause");
                // (A loaded machine may also time out a few calls before the kill: each
                // degradation is followed by its recovery.)
                // (told by the store's event thread, shortly after each transition)
                Load.await("the events", 5_000, () -> listener.recovered.get() >= 1
                        && listener.recovered.get() == listener.degraded.get());
                assertTrue(listener.degraded.get() >= 1, listener.events::toString);
                assertEquals(listener.degraded.get(), listener.recovered.get(), listener.events::toString);
            }
        }
    }

    @Test
    void build_redisDown_startsDegradedAndConnectsWhenRedisStarts(RedisServer redis)
            throws Exception {
        // Given no Redis at all
        redis.kill();
        RecordingListener listener = new RecordingListener();

        // When the store is built
        try (RedisStore store = store(redis, listener).build()) {
            KeySpace space = store.keySpace("down", TokenBucket.of(Rate.perSecond(10)));
            MutableDecision out = new MutableDecision();
            long t0 = REAL.nanos();
            boolean admitted = space.acquire("k", 1, out);
            long waited = REAL.nanos() - t0;

            // Then it starts degraded, answers at once by its failure policy...
            assertTrue(store.degraded());
            assertFalse(admitted);
            assertTrue(out.degraded());
            assertTrue(waited <= TIMEOUT.toNanos() + NOISE_NANOS, "waited " + waited / 1e6 + " ms");
            // (told by the store's event thread, shortly after)
            Load.await("the degradation to be told", 5_000, () -> listener.degraded.get() == 1);

            // ...and uses Redis within a second of it starting
            redis.start();
            long recovery = Load.await("recovery", 5_000, () -> !store.degraded());
            assertTrue(recovery < 1_000_000_000L, "recovered after " + recovery / 1e6 + " ms");
            assertTrue(space.acquire("k", 1, out));
            assertFalse(out.degraded());
        }
    }

    @Test
    void close_laterRequests_followTheFailurePolicyWithoutThrowing(RedisServer redis) {
        RedisStore store = store(redis, new RecordingListener()).build();
        KeySpace space = store.keySpace("closed", TokenBucket.of(Rate.perSecond(10)));

        store.close();
        store.close();
        MutableDecision out = new MutableDecision();
        boolean admitted = space.acquire("k", 1, out);
        space.release("k", 1);

        assertFalse(admitted);
        assertTrue(out.degraded());
        assertEquals(503, out.denialStatus());
    }
}
