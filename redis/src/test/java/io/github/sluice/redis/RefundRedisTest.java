package io.github.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.testing.RedisServer;
import io.github.sluice.redis.testing.RedisServerExtension;
import io.github.sluice.store.Claim;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.StaleClock;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Refunds in the Redis scripts carry the receipt the script returned for the admission, as in
 * memory: a refund sent after a round trip, with another instance's request in between, gives
 * back only what is still the admission's own; a stale client-clock reading never reopens a
 * window.
 */
@ExtendWith(RedisServerExtension.class)
class RefundRedisTest {

    private static final long S = 1_000_000_000L;
    /** 2026-01-01T00:00:00Z: a whole minute, so a multiple of every window below. */
    private static final long T0 = 1_767_225_600_000_000_000L;

    private final StaleClock clock = new StaleClock(T0);
    private final MutableDecision[] out = {new MutableDecision(), new MutableDecision()};
    private final MutableDecision other = new MutableDecision();
    private RedisStore store;
    /** Another instance on the same Redis and the same clock. */
    private RedisStore elsewhere;

    @BeforeEach
    void open(RedisServer redis) {
        store = RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).build();
        elsewhere = RedisStore.builder().uri(redis.uri()).clientClock(clock).denialCacheSize(0)
                .commandTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void close() {
        store.close();
        elsewhere.close();
    }

    private boolean admitted(KeySpace space, long at) {
        clock.set(at);
        return space.acquire("alice", 1, other);
    }

    /**
     * A request on {@code tested} (key alice) and a gate (key global, another cluster slot, so
     * another script call): the tested policy admits, the closed gate refuses, and the refund
     * follows the round trip; {@code meanwhile} runs just before it is sent.
     */
    private void refusedByTheGate(KeySpace tested, long at, Runnable meanwhile) {
        KeyNames names = new KeyNames("sluice", null);
        assertNotEquals(SlotHash.getSlot(names.key(tested.name(), "alice")),
                SlotHash.getSlot(names.key("gate", "global")));
        KeySpace gate = store.keySpace("gate", Concurrency.of(1));
        KeySpace holder = elsewhere.keySpace("gate", Concurrency.of(1));
        clock.set(at);
        assertTrue(holder.acquire("global", 1, other), "the gate closes");
        // The second reading of the store's clock is the one the refund is sent with.
        clock.onReading(2, meanwhile);
        boolean admitted = store.acquireAll(
                Claim.of(tested, "alice", 1, out[0], Claim.of(gate, "global", 1, out[1], null)));
        assertFalse(admitted, "refused by the gate");
        assertTrue(out[0].allowed(), "admitted by the tested policy");
        assertFalse(out[1].allowed(), "refused by the gate");
        holder.release("global", 1);
    }

    /** Another instance's request on the tested policy, at {@code at}. */
    private Runnable elsewhere(String policy, Algorithm<?> algorithm, long at, long cost) {
        return () -> {
            clock.set(at);
            assertTrue(elsewhere.keySpace(policy, algorithm).acquire("alice", cost, new MutableDecision()),
                    "the other instance's request is admitted");
        };
    }

    static Stream<Arguments> instants() {
        return Stream.of(
                Arguments.of(TokenBucket.of(Rate.of(2, Duration.ofSeconds(10)))),
                Arguments.of(Gcra.of(Rate.of(2, Duration.ofSeconds(10)))),
                Arguments.of(LeakyBucket.builder().capacity(2).rate(Rate.of(2, Duration.ofSeconds(10))).build()));
    }

    @ParameterizedTest
    @MethodSource("instants")
    void refundAfterTheRoundTrip_whenItsShareWasRefilledAndRetaken_givesNothingBack(
            Algorithm<?> algorithm) {
        // Given 2 at once, one every 5 s: a request at 0 s is refunded after the round trip, by
        // when the key had refilled and another instance took the whole burst at 20 s
        KeySpace tested = store.keySpace("tested", algorithm);
        refusedByTheGate(tested, T0, elsewhere("tested", algorithm, T0 + 20 * S, 2));

        // When a request comes at 20 s, Then it is refused: 2 already went at that instant
        assertFalse(admitted(tested, T0 + 20 * S), "the refund gave back what was not its own");
    }

    @ParameterizedTest
    @MethodSource("instants")
    void refundAfterTheRoundTrip_rightAway_givesEverythingBack(Algorithm<?> algorithm) {
        KeySpace tested = store.keySpace("tested", algorithm);
        refusedByTheGate(tested, T0, () -> { });

        assertTrue(admitted(tested, T0));
        assertTrue(admitted(tested, T0), "the refunded permit came back");
        assertFalse(admitted(tested, T0));
    }

    @Test
    void slidingLog_refundAfterTheRoundTrip_unlogsItsOwnPermitNotTheNewest() {
        // Given 2 per 10 s; a request at 0 s is refunded after another instance logged one at 5 s
        SlidingLog log = SlidingLog.builder().limit(2).window(Duration.ofSeconds(10)).build();
        KeySpace tested = store.keySpace("log", log);
        refusedByTheGate(tested, T0, elsewhere("log", log, T0 + 5 * S, 1));

        // When the window (0 s, 10 s] is filled at 10 s, Then the 5 s permit still counts
        assertTrue(admitted(tested, T0 + 10 * S));
        assertFalse(admitted(tested, T0 + 10 * S), "the refund un-logged the newer permit");
    }

    @Test
    void slidingWindow_refundAfterTheHeadMoved_lowersTheSlotItWasCountedIn() {
        // Given 3 per 10 s in two slots of 5 s; a request in slot 0 is refunded after another
        // instance's request moved the head to slot 1
        SlidingWindow window = SlidingWindow.builder().limit(3).window(Duration.ofSeconds(10)).slots(2).build();
        KeySpace tested = store.keySpace("slots", window);
        refusedByTheGate(tested, T0, elsewhere("slots", window, T0 + 5 * S, 1));

        // When slot 2 begins (its window: slots 1 and 2), Then 2 more fit, not 3
        assertTrue(admitted(tested, T0 + 10 * S));
        assertTrue(admitted(tested, T0 + 10 * S));
        assertFalse(admitted(tested, T0 + 10 * S), "the refund lowered the wrong slot");
    }

    @Test
    void fixedWindow_refundAfterTheKeyMovedToTheNextWindow_isDropped() {
        // Given 2 per 10 s: a request at 9 s is refunded after another instance filled [10, 20 s)
        FixedWindow fw = FixedWindow.of(2, Duration.ofSeconds(10));
        KeySpace tested = store.keySpace("fixed", fw);
        refusedByTheGate(tested, T0 + 9 * S, elsewhere("fixed", fw, T0 + 11 * S, 2));

        // Then the new window owes the old one nothing
        assertFalse(admitted(tested, T0 + 11 * S));
    }

    @Test
    void fixedWindow_staleClientReadingAfterRefundsEmptiedTheNextWindow_isRefused() {
        // Given 2 per 10 s: [0, 10 s) full; a request at 11 s refunded at once
        FixedWindow fw = FixedWindow.of(2, Duration.ofSeconds(10));
        KeySpace tested = store.keySpace("fixed", fw);
        assertTrue(admitted(tested, T0 + S));
        assertTrue(admitted(tested, T0 + S));
        refusedByTheGate(tested, T0 + 11 * S, () -> { });

        // When an instance whose clock lags decides at 9 s
        boolean stale = admitted(tested, T0 + 9 * S);

        // Then it is refused, and [10 s, 20 s) keeps its whole quota
        assertFalse(stale, "a stale reading reopened a full window");
        assertTrue(admitted(tested, T0 + 11 * S));
        assertTrue(admitted(tested, T0 + 11 * S));
        assertFalse(admitted(tested, T0 + 11 * S));
    }

    @Test
    void slidingWindow_staleClientReadingBehindTheHead_isRefused() {
        SlidingWindow window = SlidingWindow.builder().limit(2).window(Duration.ofSeconds(10)).slots(2).build();
        KeySpace tested = store.keySpace("slots", window);
        assertTrue(admitted(tested, T0));
        assertTrue(admitted(tested, T0));
        assertTrue(admitted(tested, T0 + 10 * S));

        assertFalse(admitted(tested, T0 + 7 * S), "a stale reading was counted in the head's slot");
    }

    @Test
    void shaping_refundAfterALaterSlotWasIssued_neverSchedulesTwoRequestsInOneSlot() {
        // Given one per second, no slack, delays up to 10 s; a request at 0 s is refunded after
        // another instance's request took the next slot
        ShapingLeakyBucket shaping = ShapingLeakyBucket.builder().rate(Rate.perSecond(1))
                .slack(0).maxDelay(Duration.ofSeconds(10)).build();
        KeySpace tested = store.keySpace("shaped", shaping);
        refusedByTheGate(tested, T0, elsewhere("shaped", shaping, T0, 1));

        // Then the next request is scheduled after the issued slot, not in it
        clock.set(T0);
        assertTrue(tested.acquire("alice", 1, other));
        assertEquals(2 * S, other.delayNanos(), "two requests were scheduled in one slot");
    }
}
