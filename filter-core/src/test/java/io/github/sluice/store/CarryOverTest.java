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
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Carrying state over changes of a policy in the in-memory store ({@link ShardedRegistry#rebind}):
 * the attacks on it, the memory it holds, and the operator's reset and read during it.
 */
class CarryOverTest {

    private final FakeClock clock = new FakeClock();
    private final ShardedRegistry store = ShardedRegistry.builder().clock(clock).shards(4).maxKeys(100_000).build();
    private final MutableDecision d = new MutableDecision();

    private static LongFunction<Algorithm<?>> perHour(String kind) {
        Duration hour = Duration.ofHours(1);
        return limit -> switch (kind) {
            case "fixed-window" -> FixedWindow.of(limit, hour);
            case "sliding-window" -> SlidingWindow.of(limit, hour);
            case "sliding-log" -> SlidingLog.of(limit, hour);
            case "token-bucket" -> TokenBucket.builder().rate(Rate.of(limit, hour)).burst(limit).build();
            case "gcra" -> Gcra.builder().rate(Rate.of(limit, hour)).burst(limit - 1).build();
            case "leaky-bucket" -> LeakyBucket.builder().rate(Rate.of(limit, hour)).capacity(limit).build();
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private int admit(KeySpace space, String key, int n) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            if (space.acquire(key, 1, d)) {
                admitted++;
            }
        }
        return admitted;
    }

    /** The attack of issue 25: a 5/h limit raised to 6/h and put back while the client is idle. */
    @ParameterizedTest
    @ValueSource(strings = {"fixed-window", "sliding-window", "sliding-log", "token-bucket", "gcra", "leaky-bucket"})
    void keepConsumed_fivePerHourRaisedToSixAndBackWhileIdle_admitsNothingMore(String kind) {
        LongFunction<Algorithm<?>> limit = perHour(kind);
        // Given a client that spent its 5 of 5/h
        KeySpace space = store.keySpace("p", limit.apply(5));
        assertEquals(5, admit(space, "client", 5));

        // When the operator raises the limit to 6/h and puts it back to 5/h while the client is idle
        clock.advance(Duration.ofSeconds(10));
        space = store.rebind(space, limit.apply(6), Inheritance.KEEP_CONSUMED);
        clock.advance(Duration.ofSeconds(10));
        space = store.rebind(space, limit.apply(5), Inheritance.KEEP_CONSUMED);
        clock.advance(Duration.ofSeconds(10));

        // Then the client gets nothing more: it used 5, and 5 is the least limit of the chain
        assertEquals(0, admit(space, "client", 10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"fixed-window", "sliding-window", "sliding-log", "token-bucket", "gcra", "leaky-bucket"})
    void keepConsumed_manyEditsAndRevertsSecondsApart_idleKeyGetsNothing_activeKeyNoMoreThanTheRaises(String kind) {
        LongFunction<Algorithm<?>> limit = perHour(kind);
        KeySpace space = store.keySpace("p", limit.apply(5));
        assertEquals(5, admit(space, "idle", 5));
        assertEquals(5, admit(space, "active", 5));

        // 40 changes a second apart between 5/h and 9/h; "active" asks once after each
        int active = 0;
        for (int i = 0; i < 40; i++) {
            clock.advance(Duration.ofSeconds(1));
            space = store.rebind(space, limit.apply(i % 2 == 0 ? 9 : 5), Inheritance.KEEP_CONSUMED);
            active += admit(space, "active", 1);
        }
        clock.advance(Duration.ofSeconds(1));

        // The last limit is 5/h: the idle key, which used 5, gets nothing. The active key is
        // remembered to have used at most 5 after each lowering (min(used, 5)), so each of the 20
        // raises gives it back the one permit it took above 5: 20, within the 20 x 4 the raises add.
        assertEquals(0, admit(space, "idle", 10));
        assertEquals(20, active);
        assertEquals(0, admit(space, "active", 10));
    }

    @Test
    void keepConsumed_changeOfAlgorithmWhileIdle_carriesThroughEveryGeneration() {
        // fixed-window 5/h -> token-bucket 6/h -> sliding-log 5/h, the client idle throughout
        KeySpace space = store.keySpace("p", FixedWindow.of(5, Duration.ofHours(1)));
        assertEquals(5, admit(space, "client", 5));
        space = store.rebind(space, TokenBucket.builder().rate(Rate.of(6, Duration.ofHours(1))).burst(6).build(),
                Inheritance.KEEP_CONSUMED);
        clock.advance(Duration.ofMinutes(1));
        space = store.rebind(space, SlidingLog.of(5, Duration.ofHours(1)), Inheritance.KEEP_CONSUMED);

        assertEquals(0, admit(space, "client", 10));
    }

    /**
     * The promise of {@link Inheritance#KEEP_CONSUMED} in plain numbers, over random changes of a
     * fixed window's limit (its length kept): in one window, a key is admitted at most the limit
     * in force when the window began plus what the raises during the window add. No sequence of
     * changes gives a key more than the changes themselves.
     */
    @Test
    void keepConsumed_randomChanges_noWindowAdmitsMoreThanItsLimitPlusItsRaises() {
        Duration window = Duration.ofMinutes(1);
        long w = window.toNanos();
        for (int seed = 0; seed < 200; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            FakeClock c = new FakeClock(0);
            ShardedRegistry registry = ShardedRegistry.builder().clock(c).shards(2).maxKeys(1_000).build();
            long limit = 1 + random.nextInt(6);
            KeySpace space = registry.keySpace("p", FixedWindow.of(limit, window));
            Map<Long, Long> allowance = new HashMap<>(); // window -> limit at its start + raises in it
            Map<String, Long> admitted = new HashMap<>();
            allowance.put(0L, limit);
            List<String> trace = new ArrayList<>();
            for (int step = 0; step < 300; step++) {
                int roll = random.nextInt(10);
                long slot = c.nanos() / w;
                if (roll == 0) {
                    long next = 1 + random.nextInt(6);
                    space = registry.rebind(space, FixedWindow.of(next, window), Inheritance.KEEP_CONSUMED);
                    allowance.merge(slot, Math.max(0, next - limit), Long::sum);
                    limit = next;
                    trace.add("limit " + limit);
                } else if (roll < 4) {
                    c.advanceNanos(random.nextLong(1, w / 2));
                    allowance.putIfAbsent(c.nanos() / w, limit);
                } else {
                    String key = "k" + random.nextInt(3);
                    if (space.acquire(key, 1, d)) {
                        long n = admitted.merge(key + "@" + slot, 1L, Long::sum);
                        trace.add(key + " admitted in window " + slot);
                        long cap = allowance.get(slot);
                        assertTrue(n <= cap, "seed " + seed + ": " + n + " admitted in window " + slot
                                + " whose limit and raises allow " + cap + "\n" + trace);
                    }
                }
            }
        }
    }

    @Test
    void manyChangesWithManyIdleKeys_holdAtMostTwoGenerations_andLetTheOldOneGoAfterItsHorizon() {
        // Given 2,000 keys that each used 2 of 3 per minute
        KeySpace space = store.keySpace("p", FixedWindow.of(3, Duration.ofMinutes(1)));
        for (int i = 0; i < 2_000; i++) {
            admit(space, "idle-" + i, 2);
        }

        // When the limit changes 30 times, a second apart, with 200 new keys between changes
        for (int change = 0; change < 30; change++) {
            clock.advance(Duration.ofSeconds(1));
            space = store.rebind(space, FixedWindow.of(3 + change % 2, Duration.ofMinutes(1)), Inheritance.KEEP_CONSUMED);
            for (int i = 0; i < 200; i++) {
                admit(space, "new-" + change + "-" + i, 1);
            }
            // Then the store holds the current generation and at most one before it: every key of
            // the one before that was carried forward at this change, none lost, none held twice
            long held = space.size() + store.previousKeys("p");
            assertTrue(held <= 2L * (2_000 + 200 * (change + 1)),
                    "change " + change + ": " + held + " keys held over two generations");
            assertTrue(store.previousKeys("p") <= 2_000 + 200 * change, "change " + change);
        }
        // and the keys idle across all 30 changes still have used 2 of the last limit
        space.inspect("idle-7", d);
        assertEquals(d.limit() - 2, d.remaining());

        // When twice the old window and a second have passed, a sweep lets the old generation go
        clock.advance(Duration.ofMinutes(2).plusSeconds(1).plusNanos(1));
        store.sweep(1);
        assertEquals(0, store.previousKeys("p"));
        // and the fresh cells of the current one are dropped as idle again
        store.sweep(100_000);
        assertEquals(0, space.size());
    }

    @Test
    void reset_duringCarryOver_forgetsTheKeyInBothGenerations_andTheClientIsAdmitted() {
        // Given a client that spent 5 of 5/h, and a change to 6/h it has not come back since
        KeySpace space = store.keySpace("p", FixedWindow.of(5, Duration.ofHours(1)));
        assertEquals(5, admit(space, "client", 5));
        space = store.rebind(space, FixedWindow.of(6, Duration.ofHours(1)), Inheritance.KEEP_CONSUMED);

        // When the operator resets the key (it threw UnsupportedOperationException here before)
        assertTrue(space.reset("client"));

        // Then the client has the whole new limit, and the old generation does not impose its state again
        assertEquals(6, admit(space, "client", 6));
        store.sweep(100_000);
        assertEquals(0, admit(space, "client", 1));
        assertFalse(space.reset("nobody"));
    }

    @Test
    void reset_afterTheKeyWasCarried_forgetsItInBothGenerations() {
        KeySpace space = store.keySpace("p", TokenBucket.builder().rate(Rate.of(5, Duration.ofHours(1))).burst(5).build());
        assertEquals(5, admit(space, "client", 5));
        space = store.rebind(space, TokenBucket.builder().rate(Rate.of(6, Duration.ofHours(1))).burst(6).build(),
                Inheritance.KEEP_CONSUMED);
        assertEquals(1, admit(space, "client", 3));

        assertTrue(space.reset("client"));
        // a second change folds the old generation into the current one: nothing of the client is left
        space = store.rebind(space, TokenBucket.builder().rate(Rate.of(5, Duration.ofHours(1))).burst(5).build(),
                Inheritance.KEEP_CONSUMED);
        assertEquals(5, admit(space, "client", 6));
    }

    /**
     * A fixed window that runs {@code hook} once, inside the charge of a carried state (between
     * the read of the old state and the keeping of the new one): where an operator's reset can
     * land while the key's first request after a change is carrying it.
     */
    private static final class HookedWindow extends Algorithm<FixedWindow.WindowCell> {
        private final FixedWindow window;
        private Runnable hook;

        HookedWindow(FixedWindow window, Runnable hook) {
            this.window = window;
            this.hook = hook;
        }

        @Override
        public String kind() {
            return window.kind();
        }

        @Override
        public long limit() {
            return window.limit();
        }

        @Override
        public long windowNanos() {
            return window.windowNanos();
        }

        @Override
        public FixedWindow.WindowCell newCell(long now) {
            return window.newCell(now);
        }

        @Override
        public int acquire(FixedWindow.WindowCell cell, long now, long cost, MutableDecision out) {
            Runnable h = hook;
            if (h != null && cost > 0) {
                hook = null;
                h.run();
            }
            return window.acquire(cell, now, cost, out);
        }

        @Override
        public void refund(FixedWindow.WindowCell cell, long cost, long receipt, io.github.sluice.core.Clock clock) {
            window.refund(cell, cost, receipt, clock);
        }

        @Override
        public boolean isFresh(FixedWindow.WindowCell cell, long now) {
            return window.isFresh(cell, now);
        }

        @Override
        public boolean retireIfFresh(FixedWindow.WindowCell cell, long now) {
            return window.retireIfFresh(cell, now);
        }

        @Override
        public long bytesPerKey() {
            return window.bytesPerKey();
        }
    }

    @Test
    void reset_landingWhileTheKeysFirstRequestCarriesIt_theCarryDoesNotOutliveTheReset() {
        // Given a client that spent 5 of 5/h, and a change to 6/h
        KeySpace space = store.keySpace("p", FixedWindow.of(5, Duration.ofHours(1)));
        assertEquals(5, admit(space, "client", 5));
        KeySpace[] now = new KeySpace[1];
        now[0] = store.rebind(space, new HookedWindow(FixedWindow.of(6, Duration.ofHours(1)),
                () -> assertTrue(now[0].reset("client"), "the old state is there to reset")), Inheritance.KEEP_CONSUMED);

        // When the operator's reset lands after the client's first request read the old state
        // and before it kept what it carries
        assertTrue(now[0].acquire("client", 1, d));

        // Then the carried state does not survive the reset: the client has the whole new limit
        // (it was refused after the request above, the limit the operator lifted re-imposed)
        assertEquals(5, admit(now[0], "client", 6));
    }

    @Test
    void inspect_duringCarryOver_readsWhatTheKeyWouldCarry_andCreatesNothing() {
        KeySpace space = store.keySpace("p", FixedWindow.of(5, Duration.ofHours(1)));
        assertEquals(3, admit(space, "client", 3));
        space = store.rebind(space, FixedWindow.of(10, Duration.ofHours(1)), Inheritance.KEEP_CONSUMED);
        space = store.rebind(space, FixedWindow.of(8, Duration.ofHours(1)), Inheritance.KEEP_CONSUMED);
        long held = space.size();
        long previous = store.previousKeys("p");

        space.inspect("client", d);
        assertEquals(8, d.limit());
        assertEquals(5, d.remaining(), "3 used, carried through 10 and 8");
        space.inspect("stranger", d);
        assertEquals(8, d.remaining());

        assertEquals(held, space.size(), "an inspection keeps no state");
        assertEquals(previous, store.previousKeys("p"));
        assertEquals(5, admit(space, "client", 10), "and the client is decided as the inspection said");
    }
}
