package io.github.sluice.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The attack: a request reads the clock, and before it looks its key up, the key goes idle long
 * enough to be fresh and a sweep drops it (idle eviction is meant to be lossless). Deciding that
 * request on a new cell at its own, older reading would admit it into a window its key had
 * already filled, and leave the key's quota at the sweep's time untouched: one request more than
 * the limit. The request must be decided at a reading no earlier than the sweep, where the
 * dropped cell was fresh: it then takes its permit from that instant's quota.
 */
class StaleReadingAfterEvictionTest {

    private static final long SECOND = 1_000_000_000L;

    /** A clock whose next reading can be made to run a sweep first, then return an older instant. */
    private static final class StallingClock implements Clock {
        long now = SECOND;
        LongSupplier stall;

        @Override
        public long nanos() {
            LongSupplier s = stall;
            if (s != null) {
                stall = null;
                return s.getAsLong();
            }
            return now;
        }
    }

    static List<Algorithm<?>> algorithms() {
        Duration window = Duration.ofSeconds(10);
        return List.of(
                TokenBucket.of(Rate.of(2, window)),
                Gcra.of(Rate.of(2, window)),
                LeakyBucket.builder().capacity(2).rate(Rate.of(2, window)).build(),
                FixedWindow.builder().limit(2).window(window).alignment(FixedWindow.Alignment.FIRST_REQUEST).build(),
                SlidingWindow.of(2, window),
                SlidingLog.builder().limit(2).window(window).build());
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void keySweptBetweenAReadingAndItsLookup_theStaleReadingIsNotDecidedOnANewCell(Algorithm<?> algorithm) {
        // Given a key that used its whole quota at t = 1 s
        StallingClock clock = new StallingClock();
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).build();
        KeySpace space = registry.keySpace("p", algorithm);
        MutableDecision out = new MutableDecision();
        assertTrue(space.acquire("k", 2, out));
        clock.now = 2 * SECOND;
        assertFalse(space.acquire("k", 1, out), "the quota is used");
        long stale = clock.now;

        // When a request reads t = 2 s, and before it looks the key up, 30 s pass and a sweep drops
        // the key, idle and fresh by then
        clock.stall = () -> {
            clock.now = 32 * SECOND;
            assertEquals(1, registry.sweep(16), "the key was fresh at 32 s and was dropped");
            return stale;
        };
        boolean admitted = space.acquire("k", 1, out);

        // Then it is decided at 32 s, on the key's quota of then: admitted, and one permit is left
        assertTrue(admitted, algorithm + ": the key was fresh at the sweep");
        assertFalse(space.acquire("k", 2, out), algorithm + ": the request of 2 s was decided at its own reading, "
                + "on a new cell: it took nothing from the quota of 32 s, so 3 got in around 2 s");
        assertTrue(space.acquire("k", 1, out), algorithm + ": one permit of 32 s is left");
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void keySweptAndCreatedAgainBeforeTheStaleLookup_neverMoreThanTheLimitFromTheSweepOn(Algorithm<?> algorithm) {
        // Given a key that used its whole quota at t = 1 s
        StallingClock clock = new StallingClock();
        ShardedRegistry registry = ShardedRegistry.builder().clock(clock).build();
        KeySpace space = registry.keySpace("p", algorithm);
        MutableDecision out = new MutableDecision();
        assertTrue(space.acquire("k", 2, out));
        long stale = 2 * SECOND;

        // When a request reads t = 2 s, and before it looks the key up, the key is swept at 32 s
        // and another request creates it again and takes one permit
        clock.stall = () -> {
            clock.now = 32 * SECOND;
            assertEquals(1, registry.sweep(16));
            assertTrue(space.acquire("k", 1, out), "the swept key is fresh at 32 s");
            return stale;
        };
        int admitted = space.acquire("k", 1, out) ? 1 : 0;
        admitted += space.acquire("k", 1, out) ? 1 : 0;

        // Then, with the request of 32 s, no more than the limit of 2 got in from the sweep on
        assertEquals(1, admitted, algorithm + ": the stale request and one more at 32 s: one of them only");
    }
}
