package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.KeySpace;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * redis-server is killed under load, then restarted: each failure policy decides as configured,
 * no call waits longer than the command timeout (plus scheduling noise), no exception reaches the
 * caller, and the store recovers within a second of Redis answering again.
 */
@ExtendWith(RedisServerExtension.class)
class FailurePolicyTest {

    private static final Duration TIMEOUT = Duration.ofMillis(50);
    /**
     * Thread scheduling on a shared, overloaded machine (load averages of 25 on two cores were
     * seen). What this catches is a hang: Lettuce's own default timeout is 60 s, and a command
     * queued while disconnected would wait for the reconnection.
     */
    private static final long NOISE_NANOS = 1_000_000_000L;
    private static final long LIMIT = 1_000_000;

    static Stream<Arguments> policies() {
        Predicate<MutableDecision> admitted = d -> d.allowed() && d.limit() == LIMIT;
        Predicate<MutableDecision> refused = d -> !d.allowed() && d.denialStatus() == 503
                && d.retryAfterNanos() > 0;
        // The fallback's limit is the shared one divided by the instance count.
        Predicate<MutableDecision> local = d -> d.allowed() && d.limit() == LIMIT / 4;
        return Stream.of(
                Arguments.of(FailurePolicy.failOpen(), admitted),
                Arguments.of(FailurePolicy.failClosed(503), refused),
                Arguments.of(FailurePolicy.localFallback(4), local));
    }

    @ParameterizedTest
    @MethodSource("policies")
    void killedMidLoad_followsPolicyWithinTimeout_thenRecovers(FailurePolicy policy,
            Predicate<MutableDecision> rule, RedisServer redis) throws Exception {
        // Given a store under load from 4 threads
        RecordingListener listener = new RecordingListener();
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).name("shared")
                .commandTimeout(TIMEOUT).failurePolicy(policy).listener(listener).build()) {
            KeySpace space = store.keySpace("load",
                    TokenBucket.of(Rate.perSecond(LIMIT)));
            try (Load load = new Load(space, 4, rule)) {
                Load.await("decisions from Redis", 5_000, () -> load.authoritative.get() >= 200);

                // When redis-server is killed
                redis.kill();
                Load.await("the breaker to open", 5_000, store::degraded);
                long degradedBefore = load.degraded.get();
                Load.await("degraded decisions", 5_000, () -> load.degraded.get() >= degradedBefore + 200);

                // And started again
                redis.start();
                long recovery = Load.await("recovery", 5_000, () -> !store.degraded());
                long before = load.authoritative.get();
                Load.await("decisions from Redis again", 5_000, () -> load.authoritative.get() >= before + 100);

                load.stop();
                System.out.printf("%s: %d calls, %d degraded, slowest %.1f ms, recovered %.0f ms after"
                        + " redis-server answered%n", policy, load.calls.get(), load.degraded.get(),
                        load.maxLatencyNanos.get() / 1e6, recovery / 1e6);
                // Then every degraded decision followed the policy, nothing threw, nothing hung
                assertTrue(load.errors.isEmpty(), () -> "exceptions reached the caller: " + load.errors);
                assertEquals(0, load.violations.get(), () -> policy + " violated by " + load.violationSamples);
                assertTrue(load.maxLatencyNanos.get() <= TIMEOUT.toNanos() + NOISE_NANOS,
                        "slowest call " + load.maxLatencyNanos.get() / 1_000_000 + " ms");
                assertTrue(recovery < 1_000_000_000L, "recovered after " + recovery / 1_000_000 + " ms");
                // (A loaded machine may also time out a few calls before the kill: each
                // degradation is followed by its recovery.)
                // (told by the store's event thread, shortly after each transition)
                Load.await("the events", 5_000, () -> listener.recovered.get() >= 1
                        && listener.recovered.get() == listener.degraded.get());
                assertTrue(listener.degraded.get() >= 1, listener.events::toString);
                assertEquals(listener.degraded.get(), listener.recovered.get(), listener.events::toString);
                assertEquals("shared", listener.store);
                assertFalse(store.degraded());
            }
        }
    }
}
