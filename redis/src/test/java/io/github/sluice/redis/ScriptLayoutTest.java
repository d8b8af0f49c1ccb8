package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.github.sluice.store.KeySpace;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The script defines each algorithm only in the calls that name it (see {@code Script}): every
 * algorithm must still decide from a cold script cache, through the {@code EVAL} fallback, and
 * then by digest again; and, where calls go by the function library, after the library is
 * flushed.
 */
@ExtendWith(RedisServerExtension.class)
class ScriptLayoutTest {

    private static final String CLIENT = "203.0.113.9";

    /** One algorithm of every kind the script dispatches on (both shaping starts). */
    static Stream<Algorithm<?>> everyKind() {
        Rate tenSeconds = Rate.of(1, Duration.ofSeconds(10));
        return Stream.of(
                TokenBucket.builder().rate(tenSeconds).burst(5).build(),
                Gcra.builder().rate(tenSeconds).burst(4).build(),
                FixedWindow.of(5, Duration.ofSeconds(50)),
                SlidingWindow.builder().limit(5).window(Duration.ofSeconds(50)).slots(5).build(),
                LeakyBucket.builder().capacity(5).rate(tenSeconds).build(),
                SlidingLog.builder().limit(5).window(Duration.ofSeconds(50)).build(),
                ShapingLeakyBucket.builder().rate(tenSeconds).slack(4).build(),
                ShapingLeakyBucket.builder().rate(tenSeconds).slack(4).start(ShapingLeakyBucket.Start.EARNED).build(),
                SmoothBursty.builder().rate(tenSeconds).maxBurst(Duration.ofSeconds(40)).build(),
                Concurrency.builder().maxInFlight(5).build());
    }

    @ParameterizedTest
    @MethodSource("everyKind")
    void scriptCacheFlushed_everyAlgorithmStillDecidesThroughEvalThenByDigest(Algorithm<?> algorithm,
            RedisServer redis) {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(5))
                .denialCacheSize(0).functions(false).build()) {
            KeySpace space = store.keySpace("kind", algorithm);
            MutableDecision out = new MutableDecision();
            assertTrue(space.acquire(CLIENT, 1, out), "first acquisition of " + algorithm);
            assertFalse(out.degraded());

            // When Redis forgets the script (a restart, a failover to a replica)
            redis.call("SCRIPT", "FLUSH");
            long evals = redis.calls("eval");
            long evalshas = redis.calls("evalsha");

            // Then the next decision is Redis's, through one EVAL that caches the script again
            space.acquire(CLIENT, 1, out);
            assertFalse(out.degraded(), algorithm + " was not decided by Redis after SCRIPT FLUSH");
            assertEquals(evals + 1, redis.calls("eval"));

            // And the one after goes by digest, deciding from the state the others left
            space.acquire(CLIENT, 1, out);
            assertFalse(out.degraded());
            assertEquals(evals + 1, redis.calls("eval"));
            assertEquals(evalshas + 2, redis.calls("evalsha"));
            if (algorithm.limit() == 5 && !(algorithm instanceof ShapingLeakyBucket)) {
                // The bursts and windows of five: the three permits were taken on Redis
                assertEquals(2, out.remaining(), "remaining after three permits of " + algorithm);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("everyKind")
    void functionFlushed_everyAlgorithmStillDecidesThroughEvalThenWithoutIt(Algorithm<?> algorithm,
            RedisServer redis) {
        try (RedisStore store = RedisStore.builder().uri(redis.uri()).commandTimeout(Duration.ofSeconds(5))
                .denialCacheSize(0).build()) {
            KeySpace space = store.keySpace("kind", algorithm);
            MutableDecision out = new MutableDecision();
            long fcalls = redis.calls("fcall");
            assertTrue(space.acquire(CLIENT, 1, out), "first acquisition of " + algorithm);
            assertFalse(out.degraded());
            assertEquals(fcalls + 1, redis.calls("fcall"), "the first decision by FCALL");

            // When Redis loses the function library (FUNCTION FLUSH, a node new to a cluster)
            redis.call("FUNCTION", "FLUSH");
            long evals = redis.calls("eval");

            // Then the next decision is Redis's, through one EVAL
            space.acquire(CLIENT, 1, out);
            assertFalse(out.degraded(), algorithm + " was not decided by Redis after FUNCTION FLUSH");
            assertEquals(evals + 1, redis.calls("eval"));

            // And the one after goes by digest (or by function, once loaded again), not by EVAL
            space.acquire(CLIENT, 1, out);
            assertFalse(out.degraded());
            assertEquals(evals + 1, redis.calls("eval"));
            if (algorithm.limit() == 5 && !(algorithm instanceof ShapingLeakyBucket)) {
                assertEquals(2, out.remaining(), "remaining after three permits of " + algorithm);
            }
        }
    }
}
