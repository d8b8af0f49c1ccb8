package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.http.LoggingListener;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store's events (listener calls, log lines) are told off the request path, one at a time and
 * in the order of the transitions, and not at all once the store is closed.
 */
@ExtendWith(RedisServerExtension.class)
class StoreEventsTest {

    private static final Clock REAL = Clock.system();
    private static final Duration TIMEOUT = Duration.ofMillis(50);

    @Test
    void slowListener_redisBackWhileItIsToldOfTheOutage_recoveryIsToldAfterNotDuring(RedisServer redis)
            throws Exception {
        // Given a listener that takes its time over the degradation
        RecordingListener listener = RecordingListener.blocking();
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(TIMEOUT)
                .failurePolicy(FailurePolicy.failClosed(503)).listener(listener).build()) {
            KeySpace space = store.keySpace("load", TokenBucket.of(Rate.perSecond(1_000_000)));
            try (Load load = new Load(space, 2, d -> !d.allowed() && d.denialStatus() == 503)) {
                Load.await("decisions from Redis", 5_000, () -> load.authoritative.get() >= 20);

                // When Redis goes away and the listener is being told...
                redis.kill();
                Load.await("the degradation to be told", 5_000, () -> listener.entered.get() >= 1);
                // ...and Redis comes back before the listener returns
                redis.start();
                Load.await("recovery", 5_000, () -> !store.degraded());
                long until = REAL.nanos() + 2_000_000_000L;
                Load.await("the recovery to be told, or 2 s", 5_000,
                        () -> listener.entered.get() >= 2 || REAL.nanos() > until);
                listener.unblock();
                Load.await("both events", 5_000, () -> listener.order.size() >= 2);
                load.stop();

                // Then the recovery was told after the degradation, never during it
                assertEquals(List.of("degraded", "recovered"), List.copyOf(listener.order));
                assertEquals(0, listener.overlaps.get(), "the listener was called twice at once");
                // And no request waited for the listener
                assertEquals(0, load.hung());
                assertTrue(load.latencies().max() < 1_000_000_000L, load.latencies()::toString);
            }
        } finally {
            listener.unblock();
        }
    }

    @Test
    void closed_laterRequests_followThePolicyWithoutEventsOrLogLines(RedisServer redis) {
        RecordingListener listener = new RecordingListener();
        try (LogCapture log = LogCapture.start()) {
            // (a timeout a loaded machine does not miss: this test is not about timing)
            RedisStore store = RedisStore.builder().uri(redis.uri()).name("closing")
                    .commandTimeout(Duration.ofSeconds(2)).failurePolicy(FailurePolicy.failClosed(503))
                    .listener(listener).build();
            KeySpace space = store.keySpace("p", TokenBucket.of(Rate.perSecond(10)));
            MutableDecision out = new MutableDecision();
            assertTrue(space.acquire("k", 1, out), out::toString);
            assertFalse(out.degraded(), out::toString);

            // When the store is closed and requests still come
            store.close();
            for (int i = 0; i < 10; i++) {
                // Then each follows the failure policy at once
                assertFalse(space.acquire("k", 1, out));
                assertTrue(out.degraded());
                assertEquals(503, out.denialStatus());
            }

            // And nobody is told that Redis failed: it did not, the store was closed
            assertEquals(0, listener.entered.get(), listener.events::toString);
            assertTrue(log.lines().stream().noneMatch(l -> l.message().contains("degraded")
                    || l.message().contains("call failed")), log.lines()::toString);
        }
    }

    @Test
    void enforcersListener_givenToTheStore_logsTheOutageAndTheRecovery(RedisServer redis) throws Exception {
        // Given the enforcer's own listener (an EnforcementListener is a StoreListener), logging
        // to a logger of its own
        Lines lines = new Lines();
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).name("shared").commandTimeout(TIMEOUT)
                .failurePolicy(FailurePolicy.failOpen()).listener(new LoggingListener(lines)).build()) {
            KeySpace space = store.keySpace("p", TokenBucket.of(Rate.perSecond(1_000_000)));
            try (Load load = new Load(space, 1, d -> d.allowed() && d.degraded())) {
                Load.await("decisions from Redis", 5_000, () -> load.authoritative.get() >= 5);

                // When Redis goes away, then comes back
                redis.kill();
                Load.await("the degradation to be logged", 5_000, () -> lines.contains("WARNING store 'shared' degraded"));
                redis.start();
                Load.await("the recovery to be logged", 5_000, () -> lines.contains("INFO store 'shared' recovered"));
                load.stop();
            }
        }

        // Then it logged both, in that order, as it does for any store
        List<String> seen = List.copyOf(lines.lines);
        assertTrue(seen.indexOf(first(seen, "WARNING store 'shared' degraded"))
                < seen.indexOf(first(seen, "INFO store 'shared' recovered")), seen::toString);
    }

    private static String first(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
    }

    /** A System.Logger that records "LEVEL message" lines, every level on. */
    private static final class Lines implements System.Logger {
        final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();

        boolean contains(String prefix) {
            return lines.stream().anyMatch(l -> l.startsWith(prefix));
        }

        @Override
        public String getName() {
            return "lines";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            lines.add(level + " " + msg);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            lines.add(level + " " + (params == null || params.length == 0 ? format : MessageFormat.format(format, params)));
        }
    }
}
